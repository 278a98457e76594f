//! The voxel volume streamer (spec `dh.voxel`, "How the engine draws it", the streaming
//! paragraphs and preferences, "The light field", "Lighting modes"; runtime assets,
//! "Voxel volumes").
//!
//! [`VoxelStreamer`] keeps the regions around the camera meshed and nothing else:
//!
//! * A volume is added closed ([`VoxelStreamer::add_volume`]) and opened on a streaming
//!   thread the first frame it is drawn ([`VoxelStreamer::draw`]): a payload's header
//!   and region index are read by range ([`OpenPayload`]), a region's chunk table the
//!   first time a chunk in it is needed, each chunk's record when it is meshed, through a
//!   decoded-cell cache of `client.voxel.cellCacheMb` per volume. Its looks are resolved
//!   once and kept across closes. A volume not drawn for `client.voxel.idleFrames`
//!   frames closes.
//! * Each frame, [`VoxelStreamer::update`] takes in what the threads finished, queues
//!   every region whose bounds come within `client.voxel.streamRadius` meters of the
//!   camera, and unloads every one past the radius plus `client.voxel.unloadMargin` (a
//!   queued one is dropped unmeshed). It never waits on a thread.
//! * `client.voxel.workers` threads share one queue (see the `queue` module): the most
//!   urgent region as the camera stands when a thread asks.
//! * Two ceilings: `client.voxel.maxMeshes` meshes meshing or resident (a region that
//!   draws nothing frees its slot; a nearer queued region takes the farthest resident
//!   one's), and `client.voxel.meshBudgetMb` of vertex and index buffers over every
//!   volume, spent nearest first: once it runs out the farthest regions are dropped and
//!   nothing farther is taken, with one warning a map naming the preference.
//! * A volume whose lighting mode computes a field is lit whole brick columns at a time
//!   as its regions stream in, one light job per volume at a time, under
//!   `client.voxel.lightBudgetMb` and `client.voxel.lightSliceMs`.
//! * [`VoxelStreamer::fill_frame`] appends each open volume's two materials (its palette
//!   atlas, nearest-sampled, or, where model faces laid tiles, the block atlas with its
//!   mip chain and glow levels; and the missingMaterial checker its unresolved faces draw
//!   with) and one [`MeshInstance`] per resident region to a [`RenderFrame`].
//! * [`VoxelStreamer::land_all`] is a capture's: it streams within
//!   `client.voxel.captureRadius` under both ceilings and returns once everything in
//!   range is meshed.

mod queue;
mod source;

pub use super::place::box_distance;
pub use queue::urgency;
pub use source::{
    CachedChunk, CellCache, CellOrigin, ChunkWindow, OpenPayload, OwnedPayload, PalletPayload,
    PayloadBytes, VolumeCells,
};

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use dh_content::voxel::blocks::{BlockTables, PlatformPallet};
use dh_content::voxel::payload::UpAxis;
use dh_gpu::render::frame::{Material, MeshAsset, MeshInstance, RenderFrame};
use glam::{DAffine3, DVec3, Vec3};

use super::gpu_mesh::{region_asset, volume_materials, UnresolvedUvs};
use super::light::ChunkLight;
use super::{
    mesh_region, FluidTable, LightField, MeshContext, MeshOptions, MeshScratch, PalletLight,
    Placement, VoxelLooks, BRICK, BRICK_CELLS,
};
use queue::{Done, LightJob, OpenJob, Pending, Queue, Shared, Task};

/// The high bits every streamed region's [`MeshAsset::key`] carries (`VX`), so voxel keys
/// never collide with other assets'; the low bits are a ticket unique per (volume, region,
/// mesh generation) for the streamer's life.
pub const KEY_TAG: u64 = 0x5658_0000_0000_0000;

/// The streaming preferences (`client.voxel.*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamConfig {
    /// `streamRadius`: meters from the camera regions load within.
    pub stream_radius: f32,
    /// `unloadMargin`: meters past the radius a loaded region is kept.
    pub unload_margin: f32,
    /// `workers`: streaming threads; 0 runs no thread (the caller works the queue with
    /// [`VoxelStreamer::work_one`]; tests and tools).
    pub workers: usize,
    /// `regionChunks`: chunks along each side of a region, read when a volume opens.
    pub region_chunks: usize,
    /// `behindWeight`: how much farther a region straight behind the camera counts.
    pub behind_weight: f32,
    /// `maxMeshes`: regions meshing or resident, every volume together.
    pub max_meshes: usize,
    /// `captureRadius`: meters a capture streams within.
    pub capture_radius: f32,
    /// `meshBudgetMb` in bytes: vertex and index buffers of every volume together.
    pub mesh_budget_bytes: usize,
    /// `cellCacheMb` in bytes: decoded cells each volume keeps.
    pub cell_cache_bytes: usize,
    /// `idleFrames`: frames an undrawn volume stays open.
    pub idle_frames: u64,
    /// `opaqueLeaves`: Minecraft's Fast leaves.
    pub opaque_leaves: bool,
    /// `lightBudgetMb`: light each volume may hold, MiB (0 computes none).
    pub light_budget_mb: usize,
    /// `lightSliceMs`: how long one light job lights before handing its thread back.
    pub light_slice: Duration,
    /// `client.voxel.emissiveIntensity`: the gain on a glowing tile's glow levels.
    pub emissive_intensity: f32,
    /// `client.voxel.emissiveFloor`: the least a glowing tile glows by.
    pub emissive_floor: f32,
}

impl Default for StreamConfig {
    /// The spec's defaults.
    fn default() -> Self {
        StreamConfig {
            stream_radius: 128.0,
            unload_margin: 32.0,
            workers: 2,
            region_chunks: 2,
            behind_weight: 3.0,
            max_meshes: 1500,
            capture_radius: 384.0,
            mesh_budget_bytes: 512 << 20,
            cell_cache_bytes: 64 << 20,
            idle_frames: 120,
            opaque_leaves: true,
            light_budget_mb: 96,
            light_slice: Duration::from_millis(4),
            emissive_intensity: 2.5,
            emissive_floor: 0.75,
        }
    }
}

impl StreamConfig {
    /// The preferences in force (each falls back to its default when unreadable).
    pub fn from_prefs(prefs: &crate::prefs::Prefs) -> StreamConfig {
        let d = StreamConfig::default();
        let f = |k: &str, v: f32| prefs.float32(&format!("client.voxel.{k}"), v);
        let i = |k: &str, v: i64| prefs.int(&format!("client.voxel.{k}")).unwrap_or(v);
        let mb = |v: i64| (v.max(0) as usize).saturating_mul(1 << 20);
        StreamConfig {
            stream_radius: f("streamRadius", d.stream_radius),
            unload_margin: f("unloadMargin", d.unload_margin),
            workers: i("workers", 2).clamp(1, 64) as usize,
            region_chunks: i("regionChunks", 2).clamp(1, 16) as usize,
            behind_weight: f("behindWeight", d.behind_weight).max(1.0),
            max_meshes: i("maxMeshes", 1500).max(1) as usize,
            capture_radius: f("captureRadius", d.capture_radius),
            mesh_budget_bytes: mb(i("meshBudgetMb", 512)),
            cell_cache_bytes: mb(i("cellCacheMb", 64)),
            idle_frames: i("idleFrames", 120).max(0) as u64,
            opaque_leaves: prefs.bool("client.voxel.opaqueLeaves").unwrap_or(true),
            light_budget_mb: i("lightBudgetMb", 96).max(0) as usize,
            light_slice: Duration::from_secs_f32(f("lightSliceMs", 4.0).max(0.0) / 1000.0),
            emissive_intensity: f("emissiveIntensity", d.emissive_intensity).max(0.0),
            emissive_floor: f("emissiveFloor", d.emissive_floor).clamp(0.0, 1.0),
        }
    }
}

/// Where the camera stands and looks.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CameraView {
    /// Meters.
    pub position: Vec3,
    /// The direction it looks (need not be unit; zero weighs nothing as behind).
    pub forward: Vec3,
}

/// A volume's id in a [`VoxelStreamer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VolumeId(pub u32);

/// A region of a volume: (volume, region coordinates = chunk / regionChunks).
pub type RegionKey = (VolumeId, [i32; 3]);

/// What resolves a payload's looks when it opens.
#[derive(Clone, Default)]
pub struct LookInputs {
    /// The block tables in force; `None` for the built-in ones.
    pub tables: Option<Arc<BlockTables>>,
    /// The platform pallet, when the workspace has it.
    pub pallet: Option<Arc<dyn PlatformPallet + Send + Sync>>,
    /// The platform's fluids, when its pallet declares them.
    pub fluids: Option<FluidTable>,
    /// What the platform pallet's blocks state about light (`lightEmission` by state,
    /// light colors, `lightShape`, opacity), read over the built-in levels
    /// ([`VoxelLooks::resolve_lit`]); `None` keeps the built-in levels alone.
    pub light: Option<Arc<dyn PalletLight + Send + Sync>>,
    /// The looks the grids of one container share (spec `dh.voxel`, "Models in the chunk
    /// mesh": the volume resolves its palette once, and the same container placed to show
    /// different grids reuses it): the first grid to open resolves them and logs the one
    /// line; `None` resolves for this grid alone.
    pub shared: Option<Arc<SharedLooks>>,
    /// The platform pallet's blocks, read for the models they define (over `pallet` and
    /// `light`, which then go unread): entries it models are drawn from their models.
    pub platform: Option<Arc<super::PlatformBlocks>>,
    /// Palettes kept across opens and map loads, with this volume's key in it
    /// ([`super::PaletteCache::key`]); `None` resolves at every open.
    pub cache: Option<(Arc<super::PaletteCache>, String)>,
}

/// A container's looks, resolved by whichever of its grids opens first.
#[derive(Debug, Default)]
pub struct SharedLooks {
    /// The volume's name, for the log line.
    pub volume: String,
    looks: std::sync::OnceLock<Arc<VoxelLooks>>,
}

impl SharedLooks {
    /// Looks not resolved yet, for the grids of volume `volume`.
    pub fn new(volume: &str) -> SharedLooks {
        SharedLooks {
            volume: volume.to_string(),
            looks: std::sync::OnceLock::new(),
        }
    }
}

impl std::fmt::Debug for LookInputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LookInputs")
            .field("tables", &self.tables.is_some())
            .field("pallet", &self.pallet.as_ref().map(|p| p.id().to_owned()))
            .field("fluids", &self.fluids)
            .field("light", &self.light.is_some())
            .field("shared", &self.shared)
            .field("platform", &self.platform)
            .field("cache", &self.cache.as_ref().map(|c| &c.1))
            .finish()
    }
}

/// Where a volume's cells come from.
pub enum VolumeSource {
    /// A placed container's payload, read by range: grid `grid`, placed by the entity's
    /// `pose` (row-major 3×4; `None` the identity), its looks resolved from `looks`.
    Payload {
        /// The payload's bytes.
        bytes: Arc<dyn PayloadBytes>,
        /// The grid drawn.
        grid: u32,
        /// The entity's pose.
        pose: Option<DAffine3>,
        /// What its looks resolve from.
        looks: LookInputs,
    },
    /// Chunks already decoded (tools, tests, an editor's working copy), cells `[min,
    /// max)`, placed by `placement`, with their looks resolved.
    Chunks {
        /// The chunks (a Y-up grid when a light field is computed).
        chunks: Arc<dyn super::ChunkSource + Send + Sync>,
        /// The cells it holds, `[min, max)`.
        cells: [[i32; 3]; 2],
        /// Cells to meters.
        placement: Placement,
        /// Its looks.
        looks: Arc<VoxelLooks>,
    },
}

/// A volume as [`VoxelStreamer::add_volume`] takes it.
pub struct StreamVolume {
    /// The volume's name, for logs.
    pub name: String,
    /// Its cells.
    pub source: VolumeSource,
    /// Whether its lighting mode computes a light field
    /// ([`super::resolve_lighting`]'s `light_field`).
    pub light_field: bool,
}

/// A volume's description, shared with the thread that opens it.
pub(crate) type VolumeSpec = StreamVolume;

/// An open volume, shared by its meshing and light jobs.
pub struct OpenVolume {
    id: VolumeId,
    name: String,
    cells: VolumeCells,
    looks: Arc<VoxelLooks>,
    unresolved: UnresolvedUvs,
    placement: Placement,
    inverse: Placement,
    options: MeshOptions,
    /// Half extents of a region's world box.
    half: DVec3,
    /// Regions `[min, max]` inclusive (empty when min > max on an axis).
    regions: [[i32; 3]; 2],
    /// Cells along a region's edge.
    region_cells: i32,
    /// The volume's origin in meters.
    origin: DVec3,
    light: Option<Mutex<LightField>>,
    materials: [Material; 2],
    /// Lines for the log when it opens.
    notes: Vec<String>,
}

impl std::fmt::Debug for OpenVolume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenVolume")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("regions", &self.regions)
            .finish_non_exhaustive()
    }
}

impl OpenVolume {
    /// The world box (center, half extents) of region `r`.
    fn region_box(&self, r: [i32; 3]) -> (DVec3, DVec3) {
        let s = f64::from(self.region_cells);
        let mid = r.map(|c| (f64::from(c) + 0.5) * s);
        (self.placement.point(DVec3::from_array(mid)), self.half)
    }

    /// The light field's brick columns region `r` stands in, with the ring around them.
    fn light_columns(&self, r: [i32; 3]) -> Vec<[i32; 2]> {
        let s = self.region_cells;
        let b = BRICK as i32;
        let x0 = (r[0] * s).div_euclid(b) - 1;
        let x1 = (r[0] * s + s - 1).div_euclid(b) + 1;
        let z0 = (r[2] * s).div_euclid(b) - 1;
        let z1 = (r[2] * s + s - 1).div_euclid(b) + 1;
        let mut v = Vec::new();
        for z in z0..=z1 {
            for x in x0..=x1 {
                v.push([x, z]);
            }
        }
        v
    }
}

/// What one region holds.
#[derive(Debug, Clone)]
enum RegionState {
    /// Queued, or taken by a thread, under this ticket.
    Queued(u64),
    /// Drawing.
    Resident { asset: Arc<MeshAsset>, bytes: usize },
    /// Meshed to nothing (air, or stone buried on every side): no slot.
    Empty,
    /// Dropped for `meshBudgetMb`: not queued again until the budget frees.
    OverBudget,
}

enum VolumeState {
    Closed,
    Opening(u64),
    Open(Arc<OpenVolume>),
    /// It failed to open; the error was logged and it is not tried again.
    Failed,
}

struct LightBook {
    lit: HashSet<[i32; 2]>,
    /// Columns a light job was handed and has not answered for.
    asked: HashSet<[i32; 2]>,
    /// Bytes the field held at its last job.
    bytes: usize,
    /// The ticket of the light job queued or running.
    running: Option<u64>,
    /// Columns a light job could not light (the budget was spent): not asked again until
    /// a column is forgotten.
    refused: HashSet<[i32; 2]>,
}

struct VolumeEntry {
    spec: Arc<VolumeSpec>,
    state: VolumeState,
    last_drawn: u64,
    /// The resolved looks, kept across closes.
    looks: Option<Arc<VoxelLooks>>,
    light: LightBook,
}

/// What the streamer holds and did; for the frame timer and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Volumes open.
    pub volumes_open: usize,
    /// Regions drawing (each one mesh).
    pub resident: usize,
    /// Regions meshed to nothing.
    pub empty: usize,
    /// Regions waiting in the queue.
    pub queued: usize,
    /// Regions taken by a thread and not yet taken in by the frame.
    pub meshing: usize,
    /// Bytes of vertex and index buffers resident, every volume together.
    pub bytes: usize,
    /// Regions dropped for `meshBudgetMb` since the streamer started.
    pub dropped_by_budget: usize,
    /// Regions unloaded while queued, never meshed, since the streamer started.
    pub dropped_unmeshed: usize,
    /// Regions meshed since the streamer started.
    pub meshed: usize,
    /// Light brick columns lit, every volume together.
    pub light_columns: usize,
    /// Bytes of light held, every volume together.
    pub light_bytes: usize,
    /// Bytes of decoded cells cached, every volume together.
    pub cell_cache_bytes: usize,
}

/// What [`VoxelStreamer::work_one`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Opened a volume (or failed to).
    Opened(VolumeId),
    /// Meshed a region.
    Meshed(RegionKey),
    /// Ran a light slice for a volume.
    Lit(VolumeId),
}

/// Streams voxel volumes' regions around the camera (see the module docs).
pub struct VoxelStreamer {
    config: StreamConfig,
    shared: Arc<Shared>,
    driver: Option<JoinHandle<()>>,
    volumes: BTreeMap<VolumeId, VolumeEntry>,
    next_volume: u32,
    regions: BTreeMap<RegionKey, RegionState>,
    next_ticket: u64,
    frame: u64,
    bytes: usize,
    resident: usize,
    last_scan: Option<CameraView>,
    dirty: bool,
    /// A capture's radius in place of the stream radius.
    radius_override: Option<f32>,
    warned_budget: bool,
    warned_max: bool,
    log: Vec<String>,
    dropped_by_budget: usize,
    dropped_unmeshed: usize,
    meshed: usize,
    materials_generation: u64,
    /// Regions streamed in or out, or a light job answered, since light was last queued.
    light_dirty: bool,
}

impl std::fmt::Debug for VoxelStreamer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoxelStreamer")
            .field("config", &self.config)
            .field("volumes", &self.volumes.len())
            .field("regions", &self.regions.len())
            .finish_non_exhaustive()
    }
}

/// How far the camera moves before the regions around it are looked at again, meters.
pub const RESCAN_STEP: f32 = 0.5;

fn run_task(task: Task) -> Done {
    match task {
        Task::Open {
            id,
            ticket,
            spec,
            config,
            looks,
        } => Done::Opened {
            id,
            ticket,
            result: open_volume(id, &spec, &config, looks).map(Arc::new),
        },
        Task::Mesh {
            key,
            ticket,
            volume,
        } => {
            thread_local! {
                static SCRATCH: std::cell::RefCell<MeshScratch> = std::cell::RefCell::default();
            }
            let rc = volume.options.region_chunks as i32;
            let r = key.1;
            let lo = r.map(|c| c * rc - 1);
            let hi = r.map(|c| c * rc + rc);
            let window = ChunkWindow::new(&volume.cells, lo, hi);
            let ctx = MeshContext::new(&volume.looks, &volume.placement, &volume.options);
            let mesh = SCRATCH.with(|s| match s.try_borrow_mut() {
                Ok(mut scratch) => mesh_region(&window, &ctx, r, &mut scratch),
                Err(_) => mesh_region(&window, &ctx, r, &mut MeshScratch::default()),
            });
            let asset = region_asset(&mesh, &volume.unresolved, KEY_TAG | ticket).map(Arc::new);
            Done::Meshed { key, ticket, asset }
        }
        Task::Light { id, job } => {
            let mut lit = Vec::new();
            let mut left = Vec::new();
            let mut forgot = Vec::new();
            let mut bytes = 0;
            if let Some(field) = &job.volume.light {
                if let Ok(mut field) = field.lock() {
                    for c in &job.forget {
                        field.forget_column(*c);
                        forgot.push(*c);
                    }
                    if !job.columns.is_empty() {
                        let e = job.volume.cells.edge.max(1) as i32;
                        let b = BRICK as i32;
                        let x0 = job.columns.iter().map(|c| c[0]).min().unwrap_or(0);
                        let x1 = job.columns.iter().map(|c| c[0]).max().unwrap_or(0);
                        let z0 = job.columns.iter().map(|c| c[1]).min().unwrap_or(0);
                        let z1 = job.columns.iter().map(|c| c[1]).max().unwrap_or(0);
                        let y0 = field.y_min();
                        let y1 = y0 + field.height() as i32 - 1;
                        let lo = [
                            (x0 * b).div_euclid(e),
                            y0.div_euclid(e),
                            (z0 * b).div_euclid(e),
                        ];
                        let hi = [
                            (x1 * b + b - 1).div_euclid(e),
                            y1.div_euclid(e),
                            (z1 * b + b - 1).div_euclid(e),
                        ];
                        let window = ChunkWindow::new(&job.volume.cells, lo, hi);
                        let world = ChunkLight::new(&window, &job.volume.looks);
                        let slice = (job.slice > Duration::ZERO).then_some(job.slice);
                        field.light_columns(&world, &job.columns, slice);
                        for c in &job.columns {
                            if field.is_lit(*c) {
                                lit.push(*c);
                            } else {
                                left.push(*c);
                            }
                        }
                    }
                    bytes = field.stats().bytes;
                }
            }
            Done::Lit {
                id,
                ticket: job.ticket,
                lit,
                left,
                forgot,
                bytes,
            }
        }
    }
}

/// Opens a volume: reads what it needs, resolves its looks (unless `looks` is given),
/// places it and sizes its light field.
fn open_volume(
    id: VolumeId,
    spec: &VolumeSpec,
    config: &StreamConfig,
    looks: Option<Arc<VoxelLooks>>,
) -> Result<OpenVolume, String> {
    let name = spec.name.clone();
    let mut notes = Vec::new();
    let (cells, looks, placement, bounds, y_up) = match &spec.source {
        VolumeSource::Payload {
            bytes,
            grid,
            pose,
            looks: inputs,
        } => {
            let payload = Arc::new(OpenPayload::open(bytes.clone()).map_err(|e| e.to_string())?);
            let r = payload.reader();
            let header = r.header();
            let grids = r.grids();
            let info = grids.get(*grid as usize).ok_or_else(|| {
                format!(
                    "{}: grid {grid} does not exist; the payload has {} grids",
                    r.name(),
                    grids.len()
                )
            })?;
            let placement =
                Placement::new(header, grids, *grid as usize, *pose).ok_or_else(|| {
                    format!(
                    "{}: grid {grid}'s parent chain does not lead to a root through earlier grids",
                    r.name()
                )
                })?;
            let lo = info.bounds_min;
            let hi = [0, 1, 2].map(|a| lo[a].saturating_add(info.bounds_size[a]));
            // The looks and their log line.
            let resolve = || -> Result<(Arc<VoxelLooks>, String), String> {
                let builtin;
                let tables: &BlockTables = match &inputs.tables {
                    Some(t) => t,
                    None => {
                        builtin = BlockTables::builtin().map_err(|e| e.to_string())?;
                        builtin
                    }
                };
                let platform = (!header.platform.is_empty()).then_some(header.platform.as_str());
                let volume = inputs.shared.as_ref().map_or(name.as_str(), |s| &s.volume);
                // The platform pallet as it is now: read again when it was rebuilt.
                let mut reopened = None;
                let blocks = match &inputs.platform {
                    Some(p) if p.current_stamps() != *p.stamps() => match p.reopen() {
                        Ok(again) => {
                            reopened = Some(Arc::new(again));
                            reopened.clone()
                        }
                        Err(e) => {
                            return Err(format!(
                                "voxel volume '{volume}': the platform pallet changed and does not read again: {e}"
                            ))
                        }
                    },
                    other => other.clone(),
                };
                let stamps = blocks
                    .as_ref()
                    .map(|b| b.stamps().clone())
                    .unwrap_or_default();
                if let Some((cache, key)) = &inputs.cache {
                    if let Some(kept) = cache.get(key, &stamps) {
                        let line = format!(
                            "voxel volume '{volume}': its {} palette entries reused as resolved before (the platform pallet's files are unchanged)",
                            kept.len()
                        );
                        return Ok((kept, line));
                    }
                }
                let t = std::time::Instant::now();
                let looks = match &blocks {
                    Some(b) => VoxelLooks::resolve_platform(
                        r.palette(),
                        tables,
                        platform,
                        b,
                        inputs.fluids.as_ref(),
                        None,
                    ),
                    None => VoxelLooks::resolve_lit(
                        r.palette(),
                        tables,
                        platform,
                        inputs.pallet.as_deref().map(|p| p as &dyn PlatformPallet),
                        inputs.fluids.as_ref(),
                        inputs.light.as_deref().map(|l| l as &dyn PalletLight),
                    ),
                };
                let ms = t.elapsed().as_secs_f64() * 1e3;
                let mut line = match &blocks {
                    Some(b) => {
                        looks.resolve_line_found(volume, ms, (b.id(), b.searched, b.search_ms))
                    }
                    None => looks.resolve_line(volume, ms),
                };
                for n in looks.notes() {
                    line.push('\n');
                    line.push_str(n);
                }
                let looks = Arc::new(looks);
                if let Some((cache, key)) = &inputs.cache {
                    cache.put(key, stamps, looks.clone());
                }
                drop(reopened);
                Ok((looks, line))
            };
            let looks = match (looks, &inputs.shared) {
                (Some(l), _) => l,
                (None, Some(shared)) => match shared.looks.get() {
                    Some(l) => l.clone(),
                    None => {
                        // Two grids opening at once both resolve; only the one kept logs.
                        let (mine, line) = resolve()?;
                        let kept = shared.looks.get_or_init(|| mine.clone()).clone();
                        if Arc::ptr_eq(&kept, &mine) {
                            notes.extend(line.split('\n').map(str::to_string));
                        }
                        kept
                    }
                },
                (None, None) => {
                    let (looks, line) = resolve()?;
                    notes.extend(line.split('\n').map(str::to_string));
                    looks
                }
            };
            let edge = header.chunk_edge as usize;
            let y_up = header.axes.up == UpAxis::Y;
            let origin = CellOrigin::Payload {
                payload: payload.clone(),
                grid: *grid,
            };
            (
                VolumeCells::new(origin, edge, config.cell_cache_bytes),
                looks,
                placement,
                [lo, hi],
                y_up,
            )
        }
        VolumeSource::Chunks {
            chunks,
            cells,
            placement,
            looks,
        } => {
            let edge = chunks.edge();
            (
                VolumeCells::new(
                    CellOrigin::Chunks(chunks.clone()),
                    edge,
                    config.cell_cache_bytes,
                ),
                looks.clone(),
                *placement,
                *cells,
                true,
            )
        }
    };
    if !(1..=64).contains(&cells.edge) {
        return Err(format!(
            "{name}: a chunk edge of {} cells is not drawn",
            cells.edge
        ));
    }
    let inverse = placement
        .inverse()
        .ok_or_else(|| format!("{name}: its placement is singular (a zero scale)"))?;
    let rc = config.region_chunks.max(1);
    let region_cells = (rc * cells.edge) as i32;
    let [lo, hi] = bounds;
    let regions = [
        lo.map(|c| c.div_euclid(region_cells)),
        [0, 1, 2].map(|a| (hi[a] - 1).div_euclid(region_cells)),
    ];
    let h = f64::from(region_cells) * 0.5;
    let half = placement.box_half(h);
    let origin = match &spec.source {
        VolumeSource::Payload { pose, .. } => match pose {
            Some(p) => p.translation,
            None => DVec3::ZERO,
        },
        VolumeSource::Chunks { placement, .. } => placement.point(DVec3::ZERO),
    };
    let light =
        (spec.light_field && y_up && config.light_budget_mb > 0 && hi[1] > lo[1]).then(|| {
            Mutex::new(LightField::new(
                lo[1],
                (hi[1] - lo[1]) as usize,
                config.light_budget_mb,
            ))
        });
    if spec.light_field && !y_up {
        notes.push(format!(
            "voxel volume '{name}': no light field is computed for a grid whose up axis is not Y yet; it is shaded without one"
        ));
    }
    let materials = volume_materials(&looks, config.emissive_intensity, config.emissive_floor);
    Ok(OpenVolume {
        notes,
        id,
        name,
        unresolved: UnresolvedUvs::of(&looks),
        cells,
        looks,
        placement,
        inverse,
        options: MeshOptions {
            opaque_leaves: config.opaque_leaves,
            region_chunks: rc,
        },
        half,
        regions,
        region_cells,
        origin,
        light,
        materials,
    })
}

impl VoxelStreamer {
    /// A streamer with no volumes. Its threads (`config.workers`, none when 0) start
    /// here and wait for work.
    pub fn new(config: StreamConfig) -> VoxelStreamer {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::new(config.max_meshes.max(1), config.behind_weight)),
            work: Condvar::new(),
            finished: Condvar::new(),
        });
        let driver = (config.workers > 0)
            .then(|| {
                let (shared, workers) = (shared.clone(), config.workers);
                std::thread::Builder::new()
                    .name("voxel-stream".into())
                    .spawn(move || queue::drive(shared, workers, run_task))
                    .ok()
            })
            .flatten();
        VoxelStreamer {
            config,
            shared,
            driver,
            volumes: BTreeMap::new(),
            next_volume: 0,
            regions: BTreeMap::new(),
            next_ticket: 1,
            frame: 0,
            bytes: 0,
            resident: 0,
            last_scan: None,
            dirty: true,
            radius_override: None,
            warned_budget: false,
            warned_max: false,
            log: Vec::new(),
            dropped_by_budget: 0,
            dropped_unmeshed: 0,
            meshed: 0,
            materials_generation: 0,
            light_dirty: false,
        }
    }

    /// The preferences in force.
    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Changes the preferences. The radii, the margin, `behindWeight`, both ceilings and
    /// `idleFrames` apply from the next update; a change of `opaqueLeaves`,
    /// `regionChunks`, `lightBudgetMb` or `lightSliceMs` opens every volume again (its
    /// looks are kept, so nothing resolves again); `workers` and `cellCacheMb` are read
    /// when the streamer starts and when a volume opens.
    pub fn set_config(&mut self, config: StreamConfig) {
        let reopen = config.opaque_leaves != self.config.opaque_leaves
            || config.region_chunks != self.config.region_chunks
            || config.light_budget_mb != self.config.light_budget_mb
            || config.light_slice != self.config.light_slice;
        let workers = self.config.workers;
        self.config = StreamConfig { workers, ..config };
        {
            let mut q = self.shared.lock();
            q.max_meshes = config.max_meshes.max(1);
            q.behind_weight = config.behind_weight;
            q.horizon = None;
            q.invalidate();
        }
        let over: Vec<RegionKey> = self
            .regions
            .iter()
            .filter(|(_, s)| matches!(s, RegionState::OverBudget))
            .map(|(k, _)| *k)
            .collect();
        for k in over {
            self.regions.remove(&k);
        }
        if reopen {
            let ids: Vec<VolumeId> = self.volumes.keys().copied().collect();
            for id in ids {
                self.close(id);
            }
        }
        self.dirty = true;
    }

    /// Adds a volume, closed: it opens the first frame it is [drawn](Self::draw).
    pub fn add_volume(&mut self, volume: StreamVolume) -> VolumeId {
        let id = VolumeId(self.next_volume);
        self.next_volume += 1;
        let looks = match &volume.source {
            VolumeSource::Chunks { looks, .. } => Some(looks.clone()),
            VolumeSource::Payload { .. } => None,
        };
        self.volumes.insert(
            id,
            VolumeEntry {
                spec: Arc::new(volume),
                state: VolumeState::Closed,
                last_drawn: 0,
                looks,
                light: LightBook {
                    lit: HashSet::new(),
                    asked: HashSet::new(),
                    bytes: 0,
                    running: None,
                    refused: HashSet::new(),
                },
            },
        );
        id
    }

    /// Removes a volume and everything it holds.
    pub fn remove_volume(&mut self, id: VolumeId) {
        self.close(id);
        self.volumes.remove(&id);
    }

    /// Forgets every volume and starts a new map: the budget warnings may fire again.
    pub fn new_map(&mut self) {
        let ids: Vec<VolumeId> = self.volumes.keys().copied().collect();
        for id in ids {
            self.remove_volume(id);
        }
        self.warned_budget = false;
        self.warned_max = false;
        self.shared.lock().horizon = None;
    }

    /// Marks a volume drawn this frame: the host calls it for every volume it draws. A
    /// closed volume starts opening on a streaming thread.
    pub fn draw(&mut self, id: VolumeId) {
        // The frame the next update runs.
        let frame = self.frame + 1;
        let Some(v) = self.volumes.get_mut(&id) else {
            return;
        };
        v.last_drawn = frame;
        if matches!(v.state, VolumeState::Closed) {
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            v.state = VolumeState::Opening(ticket);
            let job = OpenJob {
                id,
                ticket,
                spec: v.spec.clone(),
                config: self.config,
                looks: v.looks.clone(),
            };
            self.shared.lock().opens.push_back(job);
            self.shared.work.notify_all();
        }
    }

    /// Whether a volume is open.
    pub fn is_open(&self, id: VolumeId) -> bool {
        matches!(
            self.volumes.get(&id).map(|v| &v.state),
            Some(VolumeState::Open(_))
        )
    }

    /// Closes a volume: its regions, light and cells are dropped; its looks are kept.
    fn close(&mut self, id: VolumeId) {
        let keys: Vec<RegionKey> = self
            .regions
            .range((id, [i32::MIN; 3])..=(id, [i32::MAX; 3]))
            .map(|(k, _)| *k)
            .collect();
        {
            let mut q = self.shared.lock();
            for k in &keys {
                q.pending.remove(k);
            }
            q.lights.retain(|(v, _)| *v != id);
            q.opens.retain(|o| o.id != id);
            q.focus.remove(&id);
        }
        for k in keys {
            self.unload(k, false);
        }
        if let Some(v) = self.volumes.get_mut(&id) {
            v.state = VolumeState::Closed;
            v.light.lit.clear();
            v.light.asked.clear();
            v.light.bytes = 0;
            v.light.running = None;
            v.light.refused.clear();
        }
        self.materials_generation += 1;
    }

    /// Drops a region's state; `count_unmeshed` counts a queued one as dropped unmeshed.
    fn unload(&mut self, key: RegionKey, count_unmeshed: bool) -> bool {
        self.light_dirty = true;
        match self.regions.remove(&key) {
            Some(RegionState::Resident { bytes, .. }) => {
                self.bytes -= bytes;
                self.resident -= 1;
                self.shared.lock().resident = self.resident;
                true
            }
            Some(RegionState::Queued(_)) => {
                let removed = self.shared.lock().pending.remove(&key).is_some();
                if removed && count_unmeshed {
                    self.dropped_unmeshed += 1;
                }
                false
            }
            _ => false,
        }
    }

    fn open_of(&self, id: VolumeId) -> Option<&Arc<OpenVolume>> {
        match self.volumes.get(&id).map(|v| &v.state) {
            Some(VolumeState::Open(o)) => Some(o),
            _ => None,
        }
    }

    fn camera_for(&self, camera: &CameraView, focus_origin: bool, v: &OpenVolume) -> CameraView {
        if focus_origin {
            CameraView {
                position: v.origin.as_vec3(),
                forward: Vec3::ZERO,
            }
        } else {
            *camera
        }
    }

    fn radius(&self) -> f32 {
        self.radius_override.unwrap_or(self.config.stream_radius)
    }

    /// One frame: takes in what the threads finished, closes volumes undrawn for
    /// `idleFrames`, queues the regions within the stream radius of `camera` and unloads
    /// those past the radius plus the margin, applies both ceilings and queues light.
    /// Never waits on a thread.
    pub fn update(&mut self, camera: CameraView) -> StreamStats {
        self.frame += 1;
        self.step(camera, false);
        self.stats()
    }

    fn step(&mut self, camera: CameraView, focus_origin: bool) {
        self.take_done(&camera, focus_origin);
        // Idle volumes close.
        let idle: Vec<VolumeId> = self
            .volumes
            .iter()
            .filter(|(_, v)| {
                !matches!(v.state, VolumeState::Closed | VolumeState::Failed)
                    && self.frame.saturating_sub(v.last_drawn) > self.config.idle_frames
            })
            .map(|(id, _)| *id)
            .collect();
        for id in idle {
            self.close(id);
            self.dirty = true;
        }
        let moved = match &self.last_scan {
            None => true,
            Some(c) => c.position.distance_squared(camera.position) >= RESCAN_STEP * RESCAN_STEP,
        };
        if self.dirty || moved {
            self.dirty = false;
            self.last_scan = Some(camera);
            self.scan(&camera, focus_origin);
        }
        self.settle_max_meshes(&camera, focus_origin);
        self.queue_light(&camera, focus_origin);
        {
            let mut q = self.shared.lock();
            let mut focus = std::collections::HashMap::new();
            if focus_origin {
                for (id, v) in &self.volumes {
                    if let VolumeState::Open(o) = &v.state {
                        focus.insert(*id, self.camera_for(&camera, true, o));
                    }
                }
            }
            if q.camera != camera || q.focus != focus {
                q.camera = camera;
                q.focus = focus;
                q.invalidate();
            }
            q.resident = self.resident;
        }
        self.shared.work.notify_all();
    }

    /// Takes in what the threads finished.
    fn take_done(&mut self, camera: &CameraView, focus_origin: bool) {
        let done = std::mem::take(&mut self.shared.lock().done);
        for d in done {
            match d {
                Done::Opened { id, ticket, result } => {
                    let Some(v) = self.volumes.get_mut(&id) else {
                        continue;
                    };
                    if !matches!(v.state, VolumeState::Opening(t) if t == ticket) {
                        continue;
                    }
                    match result {
                        Ok(open) => {
                            self.log.extend(open.notes.iter().cloned());
                            v.looks = Some(open.looks.clone());
                            v.state = VolumeState::Open(open);
                            self.materials_generation += 1;
                            self.dirty = true;
                        }
                        Err(e) => {
                            self.log
                                .push(format!("voxel volume '{}': {e}", v.spec.name));
                            v.state = VolumeState::Failed;
                        }
                    }
                }
                Done::Meshed { key, ticket, asset } => {
                    {
                        let mut q = self.shared.lock();
                        q.meshing = q.meshing.saturating_sub(1);
                    }
                    if !matches!(self.regions.get(&key), Some(RegionState::Queued(t)) if *t == ticket)
                    {
                        continue;
                    }
                    self.meshed += 1;
                    self.light_dirty = true;
                    match asset {
                        None => {
                            self.regions.insert(key, RegionState::Empty);
                        }
                        Some(asset) => self.admit(key, asset, camera, focus_origin),
                    }
                }
                Done::Lit {
                    id,
                    ticket,
                    lit,
                    left,
                    forgot,
                    bytes,
                } => {
                    self.shared.lock().lights_running.remove(&id);
                    self.light_dirty = true;
                    if let Some(v) = self.volumes.get_mut(&id) {
                        if v.light.running != Some(ticket) {
                            continue;
                        }
                        v.light.running = None;
                        for c in &forgot {
                            v.light.lit.remove(c);
                        }
                        if !forgot.is_empty() {
                            v.light.refused.clear();
                        }
                        let none_lit = lit.is_empty();
                        for c in lit {
                            v.light.asked.remove(&c);
                            v.light.lit.insert(c);
                        }
                        for c in left {
                            v.light.asked.remove(&c);
                            if none_lit {
                                // Nothing lit at all: the budget is spent.
                                v.light.refused.insert(c);
                            }
                        }
                        v.light.bytes = bytes;
                    }
                }
            }
        }
        // Decoding errors, reported once a volume.
        for v in self.volumes.values() {
            if let VolumeState::Open(o) = &v.state {
                if let Some(e) = o.cells.error.lock().ok().and_then(|mut s| s.take()) {
                    self.log.push(format!("voxel volume '{}': {e}", o.name));
                }
            }
        }
    }

    /// The distance of region `key` from the camera (its volume's stand-in for a capture
    /// naming none).
    fn distance(&self, key: RegionKey, camera: &CameraView, focus_origin: bool) -> f64 {
        match self.open_of(key.0) {
            Some(o) => {
                let (c, h) = o.region_box(key.1);
                let cam = self.camera_for(camera, focus_origin, o);
                box_distance(cam.position.as_dvec3(), c, h)
            }
            None => f64::INFINITY,
        }
    }

    /// Takes a finished mesh in under `meshBudgetMb`: spent nearest first, so farther
    /// resident regions make way for it, and it is dropped when only nearer ones hold
    /// the budget.
    fn admit(
        &mut self,
        key: RegionKey,
        asset: Arc<MeshAsset>,
        camera: &CameraView,
        focus_origin: bool,
    ) {
        let bytes = asset.byte_size();
        let budget = self.config.mesh_budget_bytes;
        if self.bytes + bytes > budget {
            let d = self.distance(key, camera, focus_origin);
            let mut farther: Vec<(f64, RegionKey, usize)> = self
                .regions
                .iter()
                .filter_map(|(k, s)| match s {
                    RegionState::Resident { bytes, .. } => {
                        Some((self.distance(*k, camera, focus_origin), *k, *bytes))
                    }
                    _ => None,
                })
                .filter(|(dk, _, _)| *dk > d)
                .collect();
            farther.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
            let freeable: usize = farther.iter().map(|f| f.2).sum();
            let mut horizon = d;
            if self.bytes - freeable.min(self.bytes) + bytes > budget {
                // Even without every farther region it does not fit: it is dropped.
                self.regions.insert(key, RegionState::OverBudget);
                self.dropped_by_budget += 1;
            } else {
                for (dk, k, _) in farther {
                    if self.bytes + bytes <= budget {
                        break;
                    }
                    self.unload(k, false);
                    self.regions.insert(k, RegionState::OverBudget);
                    self.dropped_by_budget += 1;
                    horizon = dk;
                }
                self.bytes += bytes;
                self.resident += 1;
                self.regions
                    .insert(key, RegionState::Resident { asset, bytes });
            }
            let mut q = self.shared.lock();
            q.horizon = Some(q.horizon.map_or(horizon, |h| h.min(horizon)));
            q.resident = self.resident;
            drop(q);
            if !self.warned_budget {
                self.warned_budget = true;
                self.log.push(format!(
                    "voxel meshes reached client.voxel.meshBudgetMb ({} MB): the farthest regions are dropped and nothing farther streams in; raise client.voxel.meshBudgetMb to see farther",
                    budget >> 20
                ));
            }
            return;
        }
        self.bytes += bytes;
        self.resident += 1;
        self.shared.lock().resident = self.resident;
        self.regions
            .insert(key, RegionState::Resident { asset, bytes });
    }

    /// Looks at the regions around the camera again: queues what is within the radius
    /// and has no state, unloads what is past the radius plus the margin.
    fn scan(&mut self, camera: &CameraView, focus_origin: bool) {
        let want_r = f64::from(self.radius());
        let keep_r = want_r + f64::from(self.config.unload_margin);
        let mut keep: HashSet<RegionKey> = HashSet::new();
        let mut wanted: Vec<(RegionKey, DVec3, DVec3)> = Vec::new();
        let mut open: Vec<Arc<OpenVolume>> = Vec::new();
        for v in self.volumes.values() {
            if let VolumeState::Open(o) = &v.state {
                open.push(o.clone());
            }
        }
        for o in &open {
            let cam = self.camera_for(camera, focus_origin, o);
            let p = cam.position.as_dvec3();
            let mut lo = DVec3::INFINITY;
            let mut hi = DVec3::NEG_INFINITY;
            for corner in 0..8 {
                let w = DVec3::from_array([0, 1, 2].map(|a| {
                    if corner >> a & 1 == 1 {
                        p[a] + keep_r
                    } else {
                        p[a] - keep_r
                    }
                }));
                let c = o.inverse.point(w);
                for a in 0..3 {
                    lo[a] = lo[a].min(c[a]);
                    hi[a] = hi[a].max(c[a]);
                }
            }
            let s = f64::from(o.region_cells);
            let rlo: [i32; 3] =
                [0, 1, 2].map(|a| ((lo[a] / s).floor().max(-1e9) as i32).max(o.regions[0][a]));
            let rhi: [i32; 3] =
                [0, 1, 2].map(|a| ((hi[a] / s).floor().min(1e9) as i32).min(o.regions[1][a]));
            for z in rlo[2]..=rhi[2] {
                for y in rlo[1]..=rhi[1] {
                    for x in rlo[0]..=rhi[0] {
                        let (c, h) = o.region_box([x, y, z]);
                        let d = box_distance(p, c, h);
                        if d > keep_r {
                            continue;
                        }
                        let key = (o.id, [x, y, z]);
                        keep.insert(key);
                        if d <= want_r {
                            wanted.push((key, c, h));
                        }
                    }
                }
            }
        }
        // Past the radius plus the margin: unloaded (a queued one dropped unmeshed).
        let gone: Vec<RegionKey> = self
            .regions
            .keys()
            .filter(|k| !keep.contains(k))
            .copied()
            .collect();
        let mut freed = false;
        for k in gone {
            freed |= self.unload(k, true);
        }
        if freed {
            // The budget freed: what it dropped may stream in again.
            let over: Vec<RegionKey> = self
                .regions
                .iter()
                .filter(|(_, s)| matches!(s, RegionState::OverBudget))
                .map(|(k, _)| *k)
                .collect();
            for k in over {
                self.regions.remove(&k);
            }
            self.shared.lock().horizon = None;
        } else if self.shared.lock().horizon.is_some() {
            // The budget still holds: what is drawn now reaches as far as its farthest
            // region, and a dropped region nearer than that (the camera moved) streams in
            // again, making way for itself by dropping the farthest.
            let p = |o: &OpenVolume| self.camera_for(camera, focus_origin, o).position;
            let mut far = 0.0f64;
            let mut over = Vec::new();
            for (k, st) in &self.regions {
                let Some(o) = open.iter().find(|o| o.id == k.0) else {
                    continue;
                };
                let (c, h) = o.region_box(k.1);
                let d = box_distance(p(o).as_dvec3(), c, h);
                match st {
                    RegionState::Resident { .. } => far = far.max(d),
                    RegionState::OverBudget => over.push((k, d)),
                    _ => {}
                }
            }
            let again: Vec<RegionKey> = over
                .into_iter()
                .filter(|(_, d)| *d < far)
                .map(|(k, _)| *k)
                .collect();
            for k in again {
                self.regions.remove(&k);
            }
            self.shared.lock().horizon = Some(far);
        }
        // Within the radius, with no state: queued.
        let mut q = self.shared.lock();
        q.invalidate();
        for (key, center, half) in wanted {
            if self.regions.contains_key(&key) {
                continue;
            }
            let Some(o) = open.iter().find(|o| o.id == key.0) else {
                continue;
            };
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            self.regions.insert(key, RegionState::Queued(ticket));
            q.pending.insert(
                key,
                Pending {
                    ticket,
                    volume: o.clone(),
                    center,
                    half,
                },
            );
        }
    }

    /// `maxMeshes`: when every slot is taken and a queued region is nearer than the
    /// farthest resident one, the farthest makes way (it is queued again if still
    /// wanted). Warns once a map the first time the ceiling holds a region back.
    fn settle_max_meshes(&mut self, camera: &CameraView, focus_origin: bool) {
        loop {
            let (full, nearest_pending) = {
                let q = self.shared.lock();
                let full = q.meshing + q.resident >= q.max_meshes;
                let near = if full {
                    q.pending
                        .keys()
                        .map(|k| (self.distance(*k, camera, focus_origin), *k))
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                } else {
                    None
                };
                (full, near)
            };
            let Some((dn, _)) = nearest_pending else {
                return;
            };
            if !full {
                return;
            }
            if !self.warned_max {
                self.warned_max = true;
                self.log.push(format!(
                    "voxel meshes reached client.voxel.maxMeshes ({}): the farthest regions wait; raise client.voxel.maxMeshes to see farther",
                    self.config.max_meshes
                ));
            }
            let farthest = self
                .regions
                .iter()
                .filter(|(_, s)| matches!(s, RegionState::Resident { .. }))
                .map(|(k, _)| (self.distance(*k, camera, focus_origin), *k))
                .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            match farthest {
                Some((df, k)) if df > dn => {
                    self.unload(k, false);
                    self.dirty = true;
                }
                _ => return,
            }
        }
    }

    /// Queues each lit volume's next light job: the brick columns its streamed-in
    /// regions stand in and the ring around them, nearest first; columns no region needs
    /// any more are forgotten.
    fn queue_light(&mut self, camera: &CameraView, focus_origin: bool) {
        if !std::mem::take(&mut self.light_dirty) {
            return;
        }
        let mut jobs = Vec::new();
        for (id, v) in &self.volumes {
            let VolumeState::Open(o) = &v.state else {
                continue;
            };
            if o.light.is_none() {
                continue;
            }
            {
                let q = self.shared.lock();
                if q.lights_running.contains(id) || q.lights.iter().any(|(l, _)| l == id) {
                    continue;
                }
            }
            let mut need: HashSet<[i32; 2]> = HashSet::new();
            for (k, s) in self
                .regions
                .range((*id, [i32::MIN; 3])..=(*id, [i32::MAX; 3]))
            {
                if matches!(s, RegionState::Resident { .. } | RegionState::Empty) {
                    need.extend(o.light_columns(k.1));
                }
            }
            let cam = self.camera_for(camera, focus_origin, o);
            let inv = o.inverse.point(cam.position.as_dvec3());
            let mut cols: Vec<[i32; 2]> = need
                .iter()
                .filter(|c| {
                    !v.light.lit.contains(*c)
                        && !v.light.asked.contains(*c)
                        && !v.light.refused.contains(*c)
                })
                .copied()
                .collect();
            let b = BRICK as f64;
            cols.sort_by(|a, c| {
                let da = (f64::from(a[0]) * b + b / 2.0 - inv[0]).powi(2)
                    + (f64::from(a[1]) * b + b / 2.0 - inv[2]).powi(2);
                let dc = (f64::from(c[0]) * b + b / 2.0 - inv[0]).powi(2)
                    + (f64::from(c[1]) * b + b / 2.0 - inv[2]).powi(2);
                da.total_cmp(&dc).then(a.cmp(c))
            });
            let forget: Vec<[i32; 2]> = v
                .light
                .lit
                .iter()
                .filter(|c| !need.contains(*c))
                .copied()
                .collect();
            if cols.is_empty() && forget.is_empty() {
                continue;
            }
            jobs.push((*id, o.clone(), cols, forget));
        }
        for (id, o, cols, forget) in jobs {
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            if let Some(v) = self.volumes.get_mut(&id) {
                v.light.asked.extend(cols.iter().copied());
                v.light.running = Some(ticket);
            }
            self.shared.lock().lights.push((
                id,
                LightJob {
                    ticket,
                    volume: o,
                    columns: cols,
                    forget,
                    slice: self.config.light_slice,
                },
            ));
        }
    }

    /// Runs one task of the queue on the calling thread, as a streaming thread would
    /// (with `workers` 0 this is how the queue is worked); its result is taken in by the
    /// next [`update`](Self::update). `None` when no task may run now.
    pub fn work_one(&self) -> Option<Work> {
        let task = self.shared.lock().take()?;
        let what = match &task {
            Task::Open { id, .. } => Work::Opened(*id),
            Task::Mesh { key, .. } => Work::Meshed(*key),
            Task::Light { id, .. } => Work::Lit(*id),
        };
        let done = run_task(task);
        self.shared.lock().done.push(done);
        self.shared.finished.notify_all();
        Some(what)
    }

    /// Whether streaming has settled: nothing opening, meshing or lighting, and nothing
    /// queued that a thread may take.
    fn settled(&self) -> bool {
        let mut q = self.shared.lock();
        let opening = self
            .volumes
            .values()
            .any(|v| matches!(v.state, VolumeState::Opening(_)));
        !opening
            && q.meshing == 0
            && q.lights.is_empty()
            && q.lights_running.is_empty()
            && q.done.is_empty()
            && q.opens.is_empty()
            && q.best_region().is_none()
    }

    /// A capture's streaming: opens every volume and streams around `camera` (each
    /// volume's origin when `None`) within `capture_radius` (`client.voxel.captureRadius`)
    /// under both ceilings, and returns once everything in range is meshed and lit. The
    /// live radius is restored afterwards; the regions stay resident for the capture to
    /// draw.
    pub fn land_all(&mut self, camera: Option<CameraView>, capture_radius: f32) -> StreamStats {
        self.radius_override = Some(capture_radius);
        self.dirty = true;
        let ids: Vec<VolumeId> = self.volumes.keys().copied().collect();
        let focus_origin = camera.is_none();
        let cam = camera.unwrap_or_default();
        loop {
            self.frame += 1;
            for &id in &ids {
                self.draw(id);
            }
            self.step(cam, focus_origin);
            if self.settled() {
                // One more step takes in anything the last one queued.
                self.step(cam, focus_origin);
                if self.settled() {
                    break;
                }
            }
            if self.driver.is_some() {
                let q = self.shared.lock();
                if q.done.is_empty() {
                    let _ = self
                        .shared
                        .finished
                        .wait_timeout(q, Duration::from_millis(20));
                }
            } else {
                while self.work_one().is_some() {}
            }
        }
        self.radius_override = None;
        self.last_scan = Some(cam);
        self.stats()
    }

    /// What is held now.
    pub fn stats(&self) -> StreamStats {
        let q = self.shared.lock();
        let mut s = StreamStats {
            resident: self.resident,
            queued: q.pending.len(),
            meshing: q.meshing,
            bytes: self.bytes,
            dropped_by_budget: self.dropped_by_budget,
            dropped_unmeshed: self.dropped_unmeshed,
            meshed: self.meshed,
            ..StreamStats::default()
        };
        drop(q);
        s.empty = self
            .regions
            .values()
            .filter(|r| matches!(r, RegionState::Empty))
            .count();
        for v in self.volumes.values() {
            if let VolumeState::Open(o) = &v.state {
                s.volumes_open += 1;
                s.cell_cache_bytes += o.cells.cache.bytes();
                s.light_columns += v.light.lit.len();
                s.light_bytes += v.light.bytes;
            }
        }
        s
    }

    /// Lines for the log since the last call: open failures, decoding errors, and the
    /// one warning a map for each ceiling.
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    /// The resident regions' keys, in order.
    pub fn resident_regions(&self) -> Vec<RegionKey> {
        self.regions
            .iter()
            .filter(|(_, s)| matches!(s, RegionState::Resident { .. }))
            .map(|(k, _)| *k)
            .collect()
    }

    /// Regions meshed to nothing, in order.
    pub fn empty_regions(&self) -> Vec<RegionKey> {
        self.regions
            .iter()
            .filter(|(_, s)| matches!(s, RegionState::Empty))
            .map(|(k, _)| *k)
            .collect()
    }

    /// Regions queued or meshing, in order.
    pub fn queued_regions(&self) -> Vec<RegionKey> {
        self.regions
            .iter()
            .filter(|(_, s)| matches!(s, RegionState::Queued(_)))
            .map(|(k, _)| *k)
            .collect()
    }

    /// A resident region's mesh.
    pub fn region_mesh(&self, key: RegionKey) -> Option<&Arc<MeshAsset>> {
        match self.regions.get(&key) {
            Some(RegionState::Resident { asset, .. }) => Some(asset),
            _ => None,
        }
    }

    /// The light of one cell of a volume (`SSSS RRRR GGGG BBBB`), where its field is lit
    /// (spec `VoxelVolumeStreamer.LightAt`). `None` while the light job holds the field.
    pub fn light_at(&self, id: VolumeId, cell: [i32; 3]) -> Option<u16> {
        let o = self.open_of(id)?;
        let field = o.light.as_ref()?.try_lock().ok()?;
        field.light_at(cell)
    }

    /// Copies the light of a window of `bricks` bricks of volume `id`, brick `min` (cell
    /// / 16 in light space) at its low corner, into `out` under one lock: brick after
    /// brick, x fastest, then y, then z, and inside a brick `x + 16 (y + 16 z)`, each cell
    /// as [`light_at`](Self::light_at) answers it. The bricks of a column the field has
    /// not lit, and every brick where `out` is too short, are left as they are.
    /// Returns `false` (writing nothing) while the light job holds the field; a volume
    /// that is not open or keeps no field writes nothing and returns `true`.
    pub fn copy_light_bricks(
        &self,
        id: VolumeId,
        min: [i32; 3],
        bricks: [u32; 3],
        out: &mut [u16],
    ) -> bool {
        let Some(field) = self.open_of(id).and_then(|o| o.light.as_ref()) else {
            return true;
        };
        let Ok(field) = field.try_lock() else {
            return false;
        };
        let n = bricks.map(|v| v as usize);
        for bz in 0..n[2] {
            for by in 0..n[1] {
                for bx in 0..n[0] {
                    let b = [bx, by, bz].map(|v| v as i64);
                    let at = [0, 1, 2].map(|a| {
                        (i64::from(min[a]) + b[a]).clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                            as i32
                    });
                    let start = (bx + n[0] * (by + n[1] * bz)) * BRICK_CELLS;
                    let Some(dst) = out.get_mut(start..start + BRICK_CELLS) else {
                        continue;
                    };
                    if let Some(view) = field.brick(at) {
                        view.copy_to(dst);
                    }
                }
            }
        }
        true
    }

    /// Changes with every volume that opens or closes: when it differs from the last
    /// frame's, the materials [`fill_frame`](Self::fill_frame) appends changed.
    pub fn materials_generation(&self) -> u64 {
        self.materials_generation
    }

    /// Each open volume's two materials, in volume order: its palette atlas (slot 0 of its
    /// instances) and the missingMaterial checker (slot 1).
    pub fn materials(&self) -> Vec<Material> {
        self.volumes
            .values()
            .filter_map(|v| match &v.state {
                VolumeState::Open(o) => Some(o.materials.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// One instance per resident region, in (volume, region) order, at the identity (its
    /// positions are world meters), casting shadows; materials index
    /// [`materials`](Self::materials) placed at `material_base` in the frame's list.
    pub fn instances(&self, material_base: u32) -> Vec<MeshInstance> {
        let mut out = Vec::with_capacity(self.resident);
        let mut slot = material_base;
        for (id, v) in &self.volumes {
            if !matches!(v.state, VolumeState::Open(_)) {
                continue;
            }
            for (_, s) in self
                .regions
                .range((*id, [i32::MIN; 3])..=(*id, [i32::MAX; 3]))
            {
                if let RegionState::Resident { asset, .. } = s {
                    out.push(MeshInstance {
                        mesh: asset.clone(),
                        world: glam::Mat4::IDENTITY,
                        materials: vec![slot, slot + 1],
                        casts_shadows: true,
                    });
                }
            }
            slot += 2;
        }
        out
    }

    /// Appends [`materials`](Self::materials) and [`instances`](Self::instances) to
    /// `frame`. The renderer frees a region's GPU copy once no frame names its key.
    pub fn fill_frame(&self, frame: &mut RenderFrame) {
        let base = frame.materials.len() as u32;
        frame.materials.extend(self.materials());
        frame.meshes.extend(self.instances(base));
    }
}

impl Drop for VoxelStreamer {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        if let Some(h) = self.driver.take() {
            let _ = h.join();
        }
    }
}
