//! `dh.voxelVolume`: places a `dh.voxel` container in the map, with a closed delta of this
//! placement's departures from it.

use super::ComponentCx;
use crate::read::{Cx, Table};

tokens! {
    /// How a voxel volume is lit (voxel spec, Lighting modes).
    pub enum VoxelLighting as "voxel lighting mode" {
        /// DH's own lighting; no light field. (The default of any platform DH does not
        /// know, hence `Default`.)
        #[default]
        Dh = "dh",
        /// DH's sun and shadows, the volume's sky light gating the ambient, its block
        /// light as a fill.
        Hybrid = "hybrid",
        /// Minecraft's lightmap model. Not built yet: shaded as hybrid.
        Minecraft = "minecraft",
    }
}

block! {
    /// A `dh.voxelVolume`'s `delta`: this placement's departures from its container.
    pub struct VoxelDelta = "dh.voxelVolume delta" {
        /// Shows (`true`) or hides (`false`) a grid, keyed by its name or `#<index>`.
        opt grids: Table<bool> = "grids",
    }
}

block! {
    /// `dh.voxelVolume`.
    pub struct VoxelVolume = "dh.voxelVolume" {
        /// The container's reference: `voxels/name.dh-vox` or
        /// `<palletId>:voxels/name.dh-vox`. Must be a `dh.voxel`.
        req volume: String = "volume",
        /// `dh`, `hybrid` or `minecraft`; the container's, else its platform's default,
        /// when left out.
        opt lighting: VoxelLighting = "lighting",
        /// This placement's departures from the container.
        opt delta: VoxelDelta = "delta",
    }
}

/// The extension of a `dh.voxel` container.
pub const VOXEL_EXTENSION: &str = ".dh-vox";

impl VoxelVolume {
    /// Runs this component's build-time rules: `volume` names a `dh.voxel` (a `.dh-vox`),
    /// and each `delta.grids` key is a grid name or `#<index>`. (An unknown `lighting`
    /// mode is refused when read, naming the three.)
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.voxelVolume");
        if self.at.has("volume") && !self.volume.ends_with(VOXEL_EXTENSION) {
            cx.error_at(
                &self.at,
                self.at.field("volume"),
                format!(
                    "{label} 'volume' must be a dh.voxel container (a {VOXEL_EXTENSION} file), found '{}'",
                    self.volume
                ),
            );
        }
        if let Some(delta) = &self.delta {
            if let Some(grids) = &delta.grids {
                for (key, span, _) in &grids.entries {
                    let bad = if key.is_empty() {
                        true
                    } else if let Some(index) = key.strip_prefix('#') {
                        index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit())
                    } else {
                        false
                    };
                    if bad {
                        cx.error_at(
                            &delta.at,
                            *span,
                            format!(
                                "{label} delta.grids key '{key}' must be a grid's name or '#<index>' (a whole number such as '#2')"
                            ),
                        );
                    }
                }
            }
        }
    }
}
