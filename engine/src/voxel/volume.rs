//! Opening a placed `dh.voxelVolume` (spec `dh.voxel`, "Placing it in a map"): its
//! `.dh-vox` definition and `.dh-vox.bin` payload read from the mounted pallets, every
//! grid's placement composed under the entity's pose, and which grids are shown.
//!
//! What the host does with an [`OpenedVolume`]: each shown grid becomes a
//! [`super::collision::CollisionVolume`] (the server's collision) and a
//! [`super::water::FluidField`] (the water query); a drawing streamer can take the same
//! grids, palette and placements.
//!
//! The payload is decoded whole when the volume opens ([`decode_all`], every count and
//! length capped by the reader): the collision cell cache that reads chunks by range
//! under `world.voxel.collisionCellCacheMb` is not built yet.

use std::sync::Arc;

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::read::Mode;
use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::schema::voxel::read_voxel;
use dh_content::voxel::payload::{decode_all, PaletteEntry, PayloadHeader};

use super::place::Placement;
use super::{MapChunks, StoredChunk};
use crate::catalog::{Catalog, Found};

/// The most payload shards a volume is read from (a shard is at most 1 GiB).
pub const MAX_SHARDS: u16 = 4096;

/// Why a placed volume could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VolumeError {
    /// The container reference is not a barcode of a mounted pallet's `.dh-vox`.
    #[error("voxel volume '{record}': container '{container}' {message}")]
    Container {
        /// The record carrying the `dh.voxelVolume`.
        record: String,
        /// The container's reference.
        container: String,
        /// What is wrong.
        message: String,
    },
    /// The definition does not read.
    #[error("voxel volume '{record}': {container}: {message}")]
    Definition {
        /// The record.
        record: String,
        /// The container's barcode.
        container: String,
        /// The diagnostics.
        message: String,
    },
    /// The payload does not read.
    #[error("voxel volume '{record}': payload {payload}: {message}")]
    Payload {
        /// The record.
        record: String,
        /// The payload's barcode.
        payload: String,
        /// What the reader said.
        message: String,
    },
}

/// One grid of an opened volume.
#[derive(Debug, Clone)]
pub struct OpenedGrid {
    /// The grid's index in the payload.
    pub index: usize,
    /// The grid's name.
    pub name: String,
    /// Its `blocks` layer, decoded.
    pub chunks: Arc<MapChunks>,
    /// Its cells to world meters: the grid transforms, the origin, `voxelSize`, `axes`,
    /// then the entity's pose.
    pub placement: Placement,
    /// The cells it holds, `[min, max)` (its bounds).
    pub cells: [[i32; 3]; 2],
}

/// A placed volume, opened.
#[derive(Debug, Clone)]
pub struct OpenedVolume {
    /// The record's name (what logs and contacts call the volume).
    pub name: String,
    /// The container's barcode (`pallet:path/x.dh-vox`).
    pub container: String,
    /// The platform the data follows (the payload's, else the definition's).
    pub platform: Option<String>,
    /// The definition's lighting (`None` for the platform's default).
    pub lighting: Option<VoxelLighting>,
    /// The entity's pose it was placed at (row-major 3×4, see [`pose_matrix`]).
    pub pose: [[f64; 4]; 3],
    /// The placement's delta: grids shown (`true`) or hidden by name or `#index`.
    pub delta: Vec<(String, bool)>,
    /// The payload's header.
    pub header: PayloadHeader,
    /// The global palette.
    pub palette: Vec<PaletteEntry>,
    /// The shown grids, in payload order (hidden ones left out).
    pub grids: Vec<OpenedGrid>,
}

/// The 3×4 row-major pose matrix of a position, a rotation quaternion `[x, y, z, w]` and
/// a per-axis scale (`p' = R·S·p + t`).
pub fn pose_matrix(position: [f32; 3], rotation: [f32; 4], scale: [f32; 3]) -> [[f64; 4]; 3] {
    let [x, y, z, w] = rotation.map(f64::from);
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = if n > 0.0 && n.is_finite() {
        (x / n, y / n, z / n, w / n)
    } else {
        (0.0, 0.0, 0.0, 1.0)
    };
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let s = scale.map(f64::from);
    let t = position.map(f64::from);
    [0, 1, 2].map(|row| [r[row][0] * s[0], r[row][1] * s[1], r[row][2] * s[2], t[row]])
}

/// Whether grid `index` named `name` is shown: the placement's delta wins (by name or
/// `#index`), else the container's `hidden` attribute hides it.
pub fn grid_shown(index: usize, name: &str, hidden: bool, delta: &[(String, bool)]) -> bool {
    let by_index = format!("#{index}");
    delta
        .iter()
        .rev()
        .find(|(k, _)| k == name || *k == by_index)
        .map_or(!hidden, |(_, shown)| *shown)
}

/// Opens the container `container` (a barcode) placed by record `record` at `pose`
/// (row-major 3×4, see [`pose_matrix`]), with the placement's delta `delta` (grids
/// shown or hidden by name or `#index`).
pub fn open_volume(
    catalog: &Catalog,
    record: &str,
    container: &str,
    pose: [[f64; 4]; 3],
    delta: &[(String, bool)],
) -> Result<OpenedVolume, VolumeError> {
    let container_err = |message: String| VolumeError::Container {
        record: record.to_string(),
        container: container.to_string(),
        message,
    };
    let (pallet, path) = container
        .split_once(':')
        .ok_or_else(|| container_err("is not a barcode (pallet:path)".into()))?;
    let found = Found {
        pallet: pallet.to_string(),
        path: path.to_string(),
    };
    let def_err = |message: String| VolumeError::Definition {
        record: record.to_string(),
        container: found.barcode(),
        message,
    };
    let bytes = catalog
        .read(&found)
        .map_err(|e| container_err(format!("does not read: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| def_err("is not UTF-8".into()))?;
    let file = SourceFile::new(found.barcode(), text);
    let mut diags = Diagnostics::new();
    let def = match read_voxel(&file, &mut diags, Mode::Load) {
        Some(d) if !diags.has_errors() => d,
        _ => return Err(def_err(diags.to_string())),
    };
    // The compiled definition's `data` names the payload beside it (or by barcode).
    let dependencies = catalog.dependencies(pallet);
    let payload = dh_content::refs::resolve(&def.data, pallet, path, &dependencies)
        .map_err(|e| def_err(format!("'data' ('{}') does not resolve: {e}", def.data)))?;
    let payload_found = Found {
        pallet: payload.pallet.clone(),
        path: payload.path.clone(),
    };
    let payload_err = |message: String| VolumeError::Payload {
        record: record.to_string(),
        payload: payload_found.barcode(),
        message,
    };
    if !payload_found.path.ends_with(".dh-vox.bin") {
        return Err(def_err(format!(
            "'data' names '{}', which is not a compiled .dh-vox.bin payload",
            def.data
        )));
    }
    let mut shards = vec![catalog
        .read(&payload_found)
        .map_err(|e| payload_err(e.to_string()))?
        .into_owned()];
    for n in 1..MAX_SHARDS {
        let shard = Found {
            pallet: payload_found.pallet.clone(),
            path: dh_content::pallet::voxel_shard_name(&payload_found.path, n),
        };
        match catalog.read(&shard) {
            Ok(b) => shards.push(b.into_owned()),
            // The reader names a shard the header wants and the pallet lacks.
            Err(_) => break,
        }
    }
    let refs: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
    let mut decoded = decode_all(&refs).map_err(|e| payload_err(e.to_string()))?;
    drop(shards);
    let edge = usize::from(decoded.header.chunk_edge);
    let infos: Vec<_> = decoded.grids.iter().map(|g| g.info.clone()).collect();
    let mut grids = Vec::new();
    for (index, grid) in decoded.grids.iter_mut().enumerate() {
        let info = &grid.info;
        let hidden = info
            .attribute("hidden")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false"));
        if !grid_shown(index, &info.name, hidden, delta) {
            continue;
        }
        let placement = Placement::new(&decoded.header, &infos, index, Some(pose))
            .ok_or_else(|| payload_err(format!("grid {index}'s parent chain is out of order")))?;
        let mut chunks = MapChunks::new(edge);
        let n = edge * edge * edge;
        for (key, cells) in std::mem::take(&mut grid.chunks) {
            if key.layer != 0 {
                continue;
            }
            if cells.len() != n {
                return Err(payload_err(format!(
                    "grid {index} chunk {:?} holds {} cells, expected {n}",
                    key.chunk,
                    cells.len()
                )));
            }
            chunks.chunks.insert(key.chunk, StoredChunk::Cells(cells));
        }
        chunks.compact();
        let lo = info.bounds_min;
        let hi = [0, 1, 2].map(|a| lo[a].saturating_add(info.bounds_size[a]));
        grids.push(OpenedGrid {
            index,
            name: info.name.clone(),
            chunks: Arc::new(chunks),
            placement,
            cells: [lo, hi],
        });
    }
    let platform = if decoded.header.platform.is_empty() {
        def.platform_id().map(str::to_string)
    } else {
        Some(decoded.header.platform.clone())
    };
    Ok(OpenedVolume {
        name: record.to_string(),
        container: found.barcode(),
        platform,
        lighting: def.lighting,
        pose,
        delta: delta.to_vec(),
        header: decoded.header,
        palette: decoded.palette,
        grids,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_matrix_turns_and_scales() {
        // 90° about +Y: (x, y, z, w) = (0, sin 45°, 0, cos 45°); +X goes to -Z.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let m = pose_matrix([1.0, 2.0, 3.0], [0.0, h, 0.0, h], [2.0, 1.0, 1.0]);
        let p = Placement::from_matrix(m).point([1.0, 0.0, 0.0]);
        // Scaled to (2, 0, 0), turned to (0, 0, -2), moved by (1, 2, 3).
        assert!((p[0] - 1.0).abs() < 1e-6, "{p:?}");
        assert!((p[1] - 2.0).abs() < 1e-6, "{p:?}");
        assert!((p[2] - 1.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn the_delta_wins_over_hidden() {
        assert!(grid_shown(0, "overworld", false, &[]));
        assert!(!grid_shown(1, "nether", true, &[]));
        assert!(grid_shown(1, "nether", true, &[("nether".into(), true)]));
        assert!(grid_shown(1, "nether", true, &[("#1".into(), true)]));
        assert!(!grid_shown(0, "overworld", false, &[("#0".into(), false)]));
    }
}
