//! Opening a placed `dh.voxelVolume` (spec `dh.voxel`, "Placing it in a map"): its
//! `.dh-vox` definition read from the mounted pallets, its `.dh-vox.bin` payload opened
//! by range (spec "A payload is read by range": the header and the region index, and
//! nothing else), every grid's placement composed under the entity's pose, and which
//! grids are shown.
//!
//! What the host does with an [`OpenedVolume`]: each shown grid becomes a
//! [`RangeCells`] over [`OpenedVolume::payload`] (chunks decoded when a cook or the water
//! query reads them, into a cache of `world.voxel.collisionCellCacheMb`), which the
//! collision streamer cooks from ([`super::collision::RangeVolume`]) and the water query
//! reads ([`GridWater`]). A drawing streamer can take [`OpenedVolume::bytes`] as a
//! `VolumeSource::Payload`, or each grid's [`OpenedGrid::chunks`], which decodes a chunk
//! the first time it is read and keeps it.

use std::sync::{Arc, Mutex, OnceLock};

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::pallet::{voxel_shard_name, Codec, Pallet};
use dh_content::read::Mode;
use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::schema::voxel::read_voxel;
use dh_content::voxel::payload::{ChunkKey, PaletteEntry, PayloadHeader};
use glam::{DAffine3, DMat3, DQuat, DVec3, Quat, Vec3};

use super::collision::RangeCells;
use super::place::Placement;
use super::stream::{OpenPayload, OwnedPayload, PalletPayload, PayloadBytes};
use super::water::{FluidField, WaterSample};
use super::{cell_of, ChunkSource, ChunkView, StoredChunk};
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
    /// Its `blocks` layer, each chunk decoded the first time it is read and kept (for a
    /// drawing streamer that takes decoded chunks; collision and water read through a
    /// bounded [`RangeCells`] instead).
    pub chunks: Arc<LazyChunks>,
    /// Its cells to world meters: the grid transforms, the origin, `voxelSize`, `axes`,
    /// then the entity's pose.
    pub placement: Placement,
    /// The cells it holds, `[min, max)` (its bounds).
    pub cells: [[i32; 3]; 2],
}

/// A placed volume, opened.
#[derive(Clone)]
pub struct OpenedVolume {
    /// The record's name (what logs and contacts call the volume).
    pub name: String,
    /// The container's barcode (`pallet:path/x.dh-vox`).
    pub container: String,
    /// The platform the data follows (the payload's, else the definition's).
    pub platform: Option<String>,
    /// The definition's lighting (`None` for the platform's default).
    pub lighting: Option<VoxelLighting>,
    /// The entity's pose it was placed at (see [`pose_matrix`]).
    pub pose: DAffine3,
    /// The placement's delta: grids shown (`true`) or hidden by name or `#index`.
    pub delta: Vec<(String, bool)>,
    /// The payload's header.
    pub header: PayloadHeader,
    /// The global palette.
    pub palette: Vec<PaletteEntry>,
    /// The shown grids, in payload order (hidden ones left out).
    pub grids: Vec<OpenedGrid>,
    /// The payload's bytes (a range of the mounted pallet's memory map where the pallet
    /// is a file).
    pub bytes: Arc<dyn PayloadBytes>,
    /// The payload, open: its header and region index read, chunk tables and records
    /// read when first needed.
    pub payload: Arc<OpenPayload>,
}

impl std::fmt::Debug for OpenedVolume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedVolume")
            .field("name", &self.name)
            .field("container", &self.container)
            .field("platform", &self.platform)
            .field("lighting", &self.lighting)
            .field("pose", &self.pose)
            .field("delta", &self.delta)
            .field("header", &self.header)
            .field("palette", &self.palette.len())
            .field("grids", &self.grids)
            .field("payload", &self.payload)
            .finish()
    }
}

/// The pose of a position, a rotation and a per-axis scale (`p' = R·S·p + t`), computed
/// in `f64`. A rotation that does not normalize stands as none.
pub fn pose_matrix(position: Vec3, rotation: Quat, scale: Vec3) -> DAffine3 {
    let q = rotation.as_dquat();
    let n = q.length();
    let q = if n > 0.0 && n.is_finite() {
        q / n
    } else {
        DQuat::IDENTITY
    };
    // glam's matrix doubles the components before multiplying, which rounds exactly as
    // doubling the products did (a power-of-two scale), so the bits are the project's.
    let r = DMat3::from_quat(q);
    let s = scale.as_dvec3();
    let m = DMat3::from_cols(r.x_axis * s.x, r.y_axis * s.y, r.z_axis * s.z);
    DAffine3::from_mat3_translation(m, position.as_dvec3())
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
/// (see [`pose_matrix`]), with the placement's delta `delta` (grids
/// shown or hidden by name or `#index`).
pub fn open_volume(
    catalog: &Catalog,
    record: &str,
    container: &str,
    pose: DAffine3,
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
    let bytes = payload_bytes(catalog, &payload_found).map_err(payload_err)?;
    let opened = OpenPayload::open(bytes.clone()).map_err(|e| payload_err(e.to_string()))?;
    let payload = Arc::new(opened);
    let r = payload.reader();
    let header = r.header().clone();
    let edge = usize::from(header.chunk_edge);
    if r.layer_edge(0) != Some(edge) {
        return Err(payload_err(format!(
            "layer 0 ('blocks') is not at the chunk edge {edge}"
        )));
    }
    let infos = r.grids();
    let mut grids = Vec::new();
    for (index, info) in infos.iter().enumerate() {
        let hidden = info
            .attribute("hidden")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false"));
        if !grid_shown(index, &info.name, hidden, delta) {
            continue;
        }
        let placement = Placement::new(&header, infos, index, Some(pose))
            .ok_or_else(|| payload_err(format!("grid {index}'s parent chain is out of order")))?;
        let lo = info.bounds_min;
        let hi = [0, 1, 2].map(|a| lo[a].saturating_add(info.bounds_size[a]));
        grids.push(OpenedGrid {
            index,
            name: info.name.clone(),
            chunks: Arc::new(LazyChunks::new(record, payload.clone(), index as u32)),
            placement,
            cells: [lo, hi],
        });
    }
    let palette = r.palette().to_vec();
    let platform = if header.platform.is_empty() {
        def.platform_id().map(str::to_string)
    } else {
        Some(header.platform.clone())
    };
    Ok(OpenedVolume {
        name: record.to_string(),
        container: found.barcode(),
        platform,
        lighting: def.lighting,
        pose,
        delta: delta.to_vec(),
        header,
        palette,
        grids,
        bytes,
        payload,
    })
}

/// The bytes of payload `found` and its shards: ranges of its pallet's memory map when
/// the pallet is a file (opened again by path, and used only when the entries there are
/// the mounted ones: same codec, length and CRC), else copied out of the catalog (a
/// pallet held in memory). Nothing is decoded either way.
fn payload_bytes(catalog: &Catalog, found: &Found) -> Result<Arc<dyn PayloadBytes>, String> {
    let pallet = catalog
        .pallet(&found.pallet)
        .ok_or_else(|| "its pallet is not mounted".to_string())?;
    let mounted: Vec<_> = (0..MAX_SHARDS)
        .map_while(|n| pallet.entry(&voxel_shard_name(&found.path, n)))
        .collect();
    if mounted.is_empty() {
        return Err(format!("{} has no entry '{}'", pallet.name(), found.path));
    }
    let all_stored = mounted.iter().all(|e| e.codec == Codec::Stored);
    if let (Some(path), true) = (pallet.path(), all_stored) {
        if let Ok(again) = Pallet::open(path) {
            let same = again.manifest().id == pallet.manifest().id
                && mounted.iter().all(|e| {
                    again.entry(e.path).is_some_and(|a| {
                        a.codec == e.codec
                            && a.stored_len == e.stored_len
                            && a.raw_crc32 == e.raw_crc32
                    })
                })
                && again
                    .entry(&voxel_shard_name(&found.path, mounted.len() as u16))
                    .is_none();
            if same {
                return Ok(Arc::new(PalletPayload {
                    pallet: Arc::new(again),
                    path: found.path.clone(),
                }));
            }
        }
    }
    let mut shards = Vec::with_capacity(mounted.len());
    for e in &mounted {
        shards.push(
            pallet
                .read(e.path)
                .map_err(|err| err.to_string())?
                .into_owned(),
        );
    }
    Ok(Arc::new(OwnedPayload {
        name: found.path.clone(),
        shards,
    }))
}

/// One region's chunks in a [`LazyChunks`], made the first time one of them is read: a
/// slot per entry of its chunk table, filled when that chunk is first read (`None`: it
/// does not decode, or is all `dh:empty`).
type RegionSlots = OnceLock<Box<[OnceLock<Option<StoredChunk>>]>>;

/// Lines a [`LazyChunks`] logs at most for chunks that do not decode.
const MAX_LAZY_ERRORS: usize = 32;

/// One grid's `blocks` layer of an open payload as a [`ChunkSource`]: each chunk is
/// decoded the first time it is read and kept for the grid's life (a chunk whose cells
/// are all one value is kept as that value, an all-`dh:empty` one as nothing, as a whole
/// decode compacts them). A chunk that does not decode is logged once and reads as
/// empty.
pub struct LazyChunks {
    name: String,
    payload: Arc<OpenPayload>,
    grid: u32,
    edge: usize,
    /// Per region of the payload's index: a slot per entry of its chunk table.
    regions: Vec<RegionSlots>,
    log: Mutex<(usize, Vec<String>)>,
}

impl std::fmt::Debug for LazyChunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyChunks")
            .field("name", &self.name)
            .field("grid", &self.grid)
            .field("edge", &self.edge)
            .finish()
    }
}

impl LazyChunks {
    /// Grid `grid` of `payload`, for volume `name` (what its log lines call it).
    pub fn new(name: &str, payload: Arc<OpenPayload>, grid: u32) -> LazyChunks {
        let r = payload.reader();
        let edge = usize::from(r.header().chunk_edge);
        let regions = (0..r.regions().len()).map(|_| OnceLock::new()).collect();
        LazyChunks {
            name: name.to_string(),
            payload,
            grid,
            edge,
            regions,
            log: Mutex::new((0, Vec::new())),
        }
    }

    /// The palette index of one cell (0 where nothing is stored).
    pub fn get(&self, cell: [i32; 3]) -> u32 {
        cell_of(self, cell)
    }

    /// The log lines of chunks that did not decode since the last call.
    pub fn take_log(&self) -> Vec<String> {
        self.log
            .lock()
            .map(|mut l| std::mem::take(&mut l.1))
            .unwrap_or_default()
    }

    fn report(&self, chunk: [i32; 3], message: &str) {
        if let Ok(mut l) = self.log.lock() {
            l.0 += 1;
            if l.0 <= MAX_LAZY_ERRORS {
                let line = format!(
                    "voxel volume '{}': grid {} chunk {chunk:?} does not decode and reads as empty: {message}",
                    self.name, self.grid
                );
                l.1.push(line);
            }
        }
    }

    fn decode(&self, chunk: [i32; 3], region: usize, index: usize) -> Option<StoredChunk> {
        let mut cells = Vec::new();
        let n = self.edge * self.edge * self.edge;
        match self
            .payload
            .reader()
            .read_chunk_into(region, index, &mut cells)
        {
            Ok(_) if cells.len() == n => {}
            Ok(_) => {
                self.report(chunk, &format!("{} cells, expected {n}", cells.len()));
                return None;
            }
            Err(e) => {
                self.report(chunk, &e.to_string());
                return None;
            }
        }
        let first = cells.first().copied().unwrap_or(0);
        if cells.iter().all(|&c| c == first) {
            (first != 0).then_some(StoredChunk::Uniform(first))
        } else {
            Some(StoredChunk::Cells(cells))
        }
    }
}

impl ChunkSource for LazyChunks {
    fn edge(&self) -> usize {
        self.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        let r = self.payload.reader();
        let Some(region) = r.find_region(self.grid, r.region_of(chunk)) else {
            return ChunkView::Empty;
        };
        let table = match r.chunk_table(region) {
            Ok(t) => t,
            Err(e) => {
                self.report(chunk, &e.to_string());
                return ChunkView::Empty;
            }
        };
        let Some(index) = table.find(ChunkKey { layer: 0, chunk }) else {
            return ChunkView::Empty;
        };
        let Some(slots) = self.regions.get(region).map(|s| {
            s.get_or_init(|| {
                (0..table.entries().len())
                    .map(|_| OnceLock::new())
                    .collect()
            })
        }) else {
            return ChunkView::Empty;
        };
        match slots
            .get(index)
            .map(|s| s.get_or_init(|| self.decode(chunk, region, index)))
        {
            Some(Some(StoredChunk::Uniform(v))) => ChunkView::Uniform(*v),
            Some(Some(StoredChunk::Cells(c))) => ChunkView::Cells(c),
            _ => ChunkView::Empty,
        }
    }
}

/// One shown grid's fluids as the water query reads them (spec "Swimming", "What it
/// reads"): through the grid's [`RangeCells`], the cells the collision streamer reads.
pub struct GridWater {
    field: FluidField,
    cells: Arc<RangeCells>,
    to_cells: Placement,
}

impl std::fmt::Debug for GridWater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridWater")
            .field("cells", &self.cells)
            .finish()
    }
}

impl GridWater {
    /// The water of `cells` placed by `placement`; `None` when the placement is singular
    /// (a zero scale).
    pub fn new(
        field: FluidField,
        cells: Arc<RangeCells>,
        placement: &Placement,
    ) -> Option<GridWater> {
        Some(GridWater {
            field,
            cells,
            to_cells: placement.inverse()?,
        })
    }

    /// The fluid at world point `point` ([`FluidField::water_at`]), reading the column of
    /// chunks through the point's cell.
    pub fn water_at(&self, point: DVec3) -> Option<WaterSample<'_>> {
        let c = self.to_cells.point(point);
        if !(c.is_finite() && c.abs().cmplt(DVec3::splat(1e9)).all()) {
            return None;
        }
        let window = self.cells.column_window(c.floor().as_ivec3().to_array());
        self.field.water_at(&window, point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_matrix_turns_and_scales() {
        // 90° about +Y: (x, y, z, w) = (0, sin 45°, 0, cos 45°); +X goes to -Z.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let m = pose_matrix(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_xyzw(0.0, h, 0.0, h),
            Vec3::new(2.0, 1.0, 1.0),
        );
        let p = Placement::from_affine(m).point(DVec3::X);
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
