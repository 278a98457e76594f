//! Voxel streaming kernels (spec `dh.voxel`: "How the engine draws it", "Corner
//! occlusion" under "Hybrid shading", "Fluids", "The light field", "Lighting modes";
//! runtime assets: "Voxel volumes", "Mesh vertex format", "GPU vertex streams").
//!
//! What the streamer and the renderer call:
//!
//! * [`VoxelLooks::resolve`] once per volume when it opens: every palette entry's
//!   [`CellLook`] (how it draws, what it hides, its palette-atlas texel, its light
//!   opacity and emission, its fluid), for both leaf modes at once, so switching
//!   `client.voxel.opaqueLeaves` live resolves nothing ([`VoxelLooks::cells`]). Its
//!   [`PaletteAtlas`] is the per-volume texture UV0 samples.
//! * [`Placement::new`] composes the grid transforms, the origin, `voxelSize`, `axes` and
//!   the entity's pose into one cell-to-meters map (a mirroring one is turned right way
//!   out by the mesher).
//! * [`mesh_region`] meshes one region (`client.voxel.regionChunks`³ chunks) from a
//!   [`ChunkSource`] into a [`RegionMesh`]: one [`SurfaceMesh`] per surface (opaque,
//!   cutout, translucent), each already in the GPU stream split (position 12 B, basis 8 B,
//!   attributes 32 B, u32 indices) and packable with [`SurfaceMesh::pack`].
//!   [`mesh_regions`] meshes many regions chunk-parallel on a `dh_jobs::Scheduler`.
//! * [`LightField`] keeps block and sky light per cell in 16³ bricks:
//!   [`LightField::light_columns`] lights whole columns as regions stream in (under
//!   `client.voxel.lightSliceMs` and `client.voxel.lightBudgetMb`),
//!   [`LightField::set_cell`] relights one changed cell incrementally,
//!   [`LightField::light_at`] answers any code.
//! * [`resolve_lighting`] turns the placement's, the definition's and the platform's
//!   `lighting` into the mode a volume is shaded with (minecraft is shaded as hybrid,
//!   with its log line).
//! * [`VoxelStreamer`] (module [`stream`]) keeps the regions around the camera meshed:
//!   volumes open on a streaming thread the first frame they are drawn, regions within
//!   `client.voxel.streamRadius` are meshed most urgent first on `client.voxel.workers`
//!   threads under `client.voxel.maxMeshes` and `client.voxel.meshBudgetMb`, lit volumes
//!   are lit column by column, and each resident region is one GPU mesh asset
//!   ([`gpu_mesh`]) the host draws through [`VoxelStreamer::fill_frame`].

pub mod animation;
pub mod atlas;
pub mod atlas_chain;
mod cell;
pub mod collision;
pub mod draw;
mod fluid;
pub mod gpu_mesh;
mod light;
mod looks;
mod mesh;
pub mod model;
mod place;
pub mod platform;
pub mod shapes;
pub mod stream;
pub mod volume;
pub mod water;

pub use cell::{
    light_props_for, CellLook, Surface, FLAG_DRAW, FLAG_FLUID, FLAG_MODEL, FLAG_OPAQUE,
    FLAG_SEE_THROUGH, LIGHT_OPAQUE,
};
pub use fluid::{fluid_height, FluidDef, FluidRow, FluidTable, FLUID_FULL, MINECRAFT_FLUIDS};
pub use light::{
    look_props, pack_light, pack_light_rgb, pack_props, props_from_byte, reference_light,
    unpack_light, BrickView, ChunkLight, LightField, LightStats, LightWorld, BRICK, BRICK_CELLS,
    SHAPE_DOWN, SHAPE_UP,
};
pub use looks::{
    light_rgb, tint_color, BlockLight, BlockLightRow, BlockLightTable, EntryModel, MeshFace,
    MeshModel, ModelPart, PaletteAtlas, PalletLight, VoxelLooks, ATLAS_WIDTH, PLAINS_FOLIAGE,
    PLAINS_GRASS, PLAINS_WATER, UNRESOLVED_COLOR,
};
pub use mesh::{
    find_faces, mesh_chunk_into, mesh_region, mesh_regions, MeshContext, MeshOptions, MeshScratch,
    MeshStats, RegionMesh, SurfaceMesh, FACE_DIRS, VERTEX_BYTES,
};
pub use place::Placement;
pub use platform::{PaletteCache, PlatformBlocks};
pub use stream::{
    CameraView, LookInputs, OwnedPayload, PalletPayload, PayloadBytes, SharedLooks, StreamConfig,
    StreamStats, StreamVolume, VolumeId as StreamVolumeId, VolumeSource, VoxelStreamer,
};

use std::collections::HashMap;

use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::voxel::payload::{ChunkKey, Grid};

/// One chunk's cells as a [`ChunkSource`] hands them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkView<'a> {
    /// Not stored: every cell `dh:empty` (palette index 0).
    Empty,
    /// Every cell holds this global palette index.
    Uniform(u32),
    /// edge³ global palette indices, X fastest, then Y, then Z.
    Cells(&'a [u32]),
}

/// Decoded chunks of one grid's `blocks` layer, addressed by chunk coordinates. The
/// streamer's cell cache implements it; [`MapChunks`] and [`GridChunks`] are the plain
/// forms tests, tools and benchmarks use.
pub trait ChunkSource: Sync {
    /// Cells along a chunk's edge (8, 16 or 32).
    fn edge(&self) -> usize;
    /// The chunk at `chunk` (cell / edge on each axis, rounded down). A `Cells` view
    /// shorter than edge³ is read as empty past its end.
    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_>;
}

/// A chunk store in a hash map: each chunk is uniform or holds its cells.
#[derive(Debug, Clone, Default)]
pub struct MapChunks {
    /// Cells along a chunk's edge.
    pub edge: usize,
    /// The chunks; an absent one is empty.
    pub chunks: HashMap<[i32; 3], StoredChunk>,
}

/// One chunk of a [`MapChunks`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredChunk {
    /// Every cell holds this palette index.
    Uniform(u32),
    /// edge³ palette indices.
    Cells(Vec<u32>),
}

impl MapChunks {
    /// An empty store of `edge`-cell chunks.
    pub fn new(edge: usize) -> Self {
        MapChunks {
            edge,
            chunks: HashMap::new(),
        }
    }

    /// Sets one cell (expanding a uniform or absent chunk to cells).
    pub fn set(&mut self, cell: [i32; 3], value: u32) {
        let e = self.edge as i32;
        let key = cell.map(|c| c.div_euclid(e));
        let l = cell.map(|c| c.rem_euclid(e) as usize);
        let i = l[0] + self.edge * (l[1] + self.edge * l[2]);
        let n = self.edge * self.edge * self.edge;
        let entry = self
            .chunks
            .entry(key)
            .or_insert_with(|| StoredChunk::Uniform(0));
        if let StoredChunk::Uniform(u) = *entry {
            if u == value {
                return;
            }
            *entry = StoredChunk::Cells(vec![u; n]);
        }
        if let StoredChunk::Cells(c) = entry {
            if let Some(v) = c.get_mut(i) {
                *v = value;
            }
        }
    }

    /// The palette index of one cell (0 where nothing is stored).
    pub fn get(&self, cell: [i32; 3]) -> u32 {
        cell_of(self, cell)
    }

    /// Turns every chunk whose cells are all one value into a uniform one, and drops
    /// all-empty chunks.
    pub fn compact(&mut self) {
        self.chunks.retain(|_, c| {
            if let StoredChunk::Cells(v) = c {
                if let Some(&first) = v.first() {
                    if v.iter().all(|&x| x == first) {
                        *c = StoredChunk::Uniform(first);
                    }
                }
            }
            *c != StoredChunk::Uniform(0)
        });
    }
}

impl ChunkSource for MapChunks {
    fn edge(&self) -> usize {
        self.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        match self.chunks.get(&chunk) {
            None => ChunkView::Empty,
            Some(StoredChunk::Uniform(v)) => ChunkView::Uniform(*v),
            Some(StoredChunk::Cells(c)) => ChunkView::Cells(c),
        }
    }
}

/// One grid of an in-memory [`dh_content::voxel::payload::VoxelPayload`] as a
/// [`ChunkSource`] (its `blocks` layer).
#[derive(Debug, Clone, Copy)]
pub struct GridChunks<'a> {
    /// The grid.
    pub grid: &'a Grid,
    /// The payload's chunk edge.
    pub edge: usize,
}

impl ChunkSource for GridChunks<'_> {
    fn edge(&self) -> usize {
        self.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        match self.grid.chunks.get(&ChunkKey { layer: 0, chunk }) {
            None => ChunkView::Empty,
            Some(c) => ChunkView::Cells(c),
        }
    }
}

/// The palette index of one cell of a [`ChunkSource`] (0 where nothing is stored). For
/// tests and slow paths; the kernels read whole chunks.
pub fn cell_of(src: &(impl ChunkSource + ?Sized), cell: [i32; 3]) -> u32 {
    let e = src.edge();
    let ei = e as i32;
    let key = cell.map(|c| c.div_euclid(ei));
    let l = cell.map(|c| c.rem_euclid(ei) as usize);
    match src.chunk(key) {
        ChunkView::Empty => 0,
        ChunkView::Uniform(v) => v,
        ChunkView::Cells(c) => c.get(l[0] + e * (l[1] + e * l[2])).copied().unwrap_or(0),
    }
}

/// How a volume is shaded, resolved from its placement's `lighting`, else its
/// definition's, else its platform's default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LightingChoice {
    /// The mode asked for.
    pub asked: VoxelLighting,
    /// The mode shaded with: `minecraft` is not built yet and is shaded as `hybrid`.
    pub shaded: VoxelLighting,
    /// Whether a light field is computed (every mode but `dh`).
    pub light_field: bool,
    /// The line the volume's log carries when the mode asked for is not the one shaded.
    pub log_line: Option<String>,
}

/// Resolves a volume's lighting mode (spec "Lighting modes"): the placement's, else the
/// definition's, else `platform_default` (the definition's effective lighting already
/// folds its platform in). `volume` names the volume in the log line.
pub fn resolve_lighting(
    volume: &str,
    placement: Option<VoxelLighting>,
    definition: Option<VoxelLighting>,
    platform_default: VoxelLighting,
) -> LightingChoice {
    let asked = placement.or(definition).unwrap_or(platform_default);
    let (shaded, log_line) = match asked {
        VoxelLighting::Minecraft => (
            VoxelLighting::Hybrid,
            Some(format!(
                "voxel volume '{volume}': lighting 'minecraft' is not built yet; shading it as 'hybrid'"
            )),
        ),
        m => (m, None),
    };
    LightingChoice {
        asked,
        shaded,
        light_field: asked != VoxelLighting::Dh,
        log_line,
    }
}
