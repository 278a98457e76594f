//! Voxel collision (spec `dh.voxel`, "Collision", "What is solid", "Surfaces",
//! "Streaming, and never falling through", "What it costs").
//!
//! * [`CollisionPalette::resolve`] reads each palette entry's row once: whether it is
//!   solid and which surface preset it is made of (the same record the drawing reads, so
//!   drawing and collision cannot disagree).
//! * [`cook_chunk`] is the drawing's face pass run over solidity instead of look: a face
//!   shows between a solid cell and a passable one and nowhere else, across chunk borders
//!   included. It works a row at a time on bitmasks (an 18-bit row of solidity per (y, z)
//!   for 16-cell chunks, its six face masks by shifts and and-nots), then merges each
//!   slice's faces greedily across cells of the same surface into quads, and writes one
//!   triangle list per surface. It allocates nothing per cell: its buffers live in a
//!   reused [`CookScratch`] and [`CookedChunk`].
//! * [`CollisionStreamer`] keeps one static body per chunk (through
//!   [`PhysicsWorld::add_voxel_chunk`], one triangle-mesh collider per surface, each with
//!   its preset's grip and internal-edge handling) around every pawn within
//!   `world.voxel.collisionRadius`, drops a chunk's body past the radius plus
//!   `world.voxel.collisionMargin`, cooks the rest on `world.voxel.collisionWorkers`
//!   threads, and cooks a chunk within `world.voxel.collisionUrgent` of a pawn on the
//!   spot, inside [`CollisionStreamer::update`], which the tick calls before it moves
//!   anyone. The queued cooks run on the streamer's own threads, not as dh-jobs
//!   `Background` jobs: the scheduler runs scoped work that ends inside the call that
//!   spawned it, and a cook must outlive the tick that queued it (the tick never waits
//!   on one); the spec counts these threads itself (`collisionWorkers`).
//!
//! * [`RangeCells`] is where a placed grid's cells come from (spec "A payload is read by
//!   range"): the payload opened by range ([`OpenPayload`]: its header and region index),
//!   each chunk a cook reads found through its region's chunk table and decoded from its
//!   own record into a least-recently-used cache of `world.voxel.collisionCellCacheMb`,
//!   so installing a map decodes no chunk and a pawn walking across a big world holds at
//!   most the cache. A cook reads its chunk and six neighbors through a [`CookWindow`];
//!   the water query a column through [`RangeCells::column_window`]. A chunk that does not
//!   decode is logged once ([`CollisionStreamer::take_log`]) and is not solid.
//!   [`CollisionVolume`] takes chunks already decoded (tests, tools, an editor).
//!
//! * Block shapes (spec "Block shapes"): where the workspace has the volume's platform
//!   pallet, [`CollisionPalette::resolve_shaped`] reads each solid entry's shape once
//!   per palette through [`super::shapes::PalletShapes`] (its `dh.block` collision: boxes,
//!   the model's elements turned by the drawn model's rule, a cube, or none), with
//!   `collisionHeight` raising every box's top. A whole-block shape stays on the cube
//!   fast path, merged with its neighbors; every other shaped cell's box faces are cooked
//!   in the same call by [`cook_chunk`]'s shape pass, one quad a face into its block's
//!   surface part, a face on the block's boundary hidden only where the block it touches
//!   is a whole solid cube. Without the pallet every solid block is a whole cube.

use std::collections::HashMap as StdHashMap;
use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dh_content::schema::surface::{surface_preset, SURFACE_PRESETS};
use dh_content::voxel::blocks::{resolve_entry, BlockLook, BlockTables, EntryKey, PlatformPallet};
use dh_content::voxel::payload::{ChunkKey, PaletteEntry, PayloadError, PropValue};
use dh_sims::physics::{BodyHandle, PhysicsError, PhysicsWorld, VoxelPart};
use glam::{DVec3, UVec3, Vec3};

use super::place::{box_distance, Placement};
use super::shapes::{BlockShape, PalletShapes, ShapeBox};
use super::stream::OpenPayload;
use super::{ChunkSource, ChunkView};

/// A multiply-rotate hasher for the streamer's small integer keys (chunk coordinates,
/// body handles): the scan looks up every chunk around every pawn, where SipHash costs
/// more than the rest of the look.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_i32(&mut self, i: i32) {
        self.write_u64(u64::from(i as u32));
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The most cells along a chunk's edge the cooker takes (a padded row fits a `u64`).
pub const MAX_COOK_EDGE: usize = 32;

/// A palette entry's collision: passable, or solid and made of a surface preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockCollision {
    /// Whether it collides.
    pub solid: bool,
    /// Its surface preset, an index into [`SURFACE_PRESETS`].
    pub surface: u8,
}

/// A volume's palette as collision reads it: per global palette index, 0 for passable or
/// for a shaped block, 1 + the surface preset's index for a solid whole cube (the cube
/// fast path reads only these codes). A shaped block (a slab, a stair, a fence from the
/// platform pallet) names its shape in `shape_of` (0: none, `k`: `shapes[k - 1]`). An
/// index past the palette is the unresolved block: solid stone.
#[derive(Debug, Clone, PartialEq)]
pub struct CollisionPalette {
    codes: Vec<u8>,
    shape_of: Vec<u16>,
    shapes: Vec<CellShape>,
    unresolved: u8,
    surface_base: u32,
}

/// A shaped block's collision: its surface code (1 + preset) and its boxes.
#[derive(Debug, Clone, PartialEq)]
struct CellShape {
    code: u8,
    boxes: Vec<ShapeBox>,
}

fn preset_index(name: &str) -> u8 {
    SURFACE_PRESETS
        .iter()
        .position(|p| p.name == name)
        .unwrap_or(0) as u8
}

fn own_color(e: &PaletteEntry) -> Option<[u8; 4]> {
    e.properties
        .iter()
        .find(|p| p.key == "color")
        .and_then(|p| match &p.value {
            PropValue::String(s) => dh_content::voxel::blocks::parse_color(s),
            _ => None,
        })
}

impl CollisionPalette {
    /// Resolves every entry of `palette` as the drawing does (the platform pallet when it
    /// draws the block, else the block tables, else the unresolved look), keeping only
    /// what collision reads: solidity and surface, both always the table's. Entry 0, when
    /// it is `dh:empty`, is the table's `dh:empty` row. `surface_base` is where the
    /// presets start in the scene's one surface table (after the map's own material
    /// slots), so each triangle's slot is `surface_base` + its preset's index.
    pub fn resolve(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        pallet: Option<&dyn PlatformPallet>,
        surface_base: u32,
    ) -> CollisionPalette {
        Self::resolve_shaped(palette, tables, platform, pallet, None, surface_base)
    }

    /// [`CollisionPalette::resolve`] with the block shapes of the volume's platform pallet
    /// (spec "Block shapes"), read once here for the whole palette: a solid entry the
    /// pallet gives boxes collides as those boxes, one it calls empty is passable, and a
    /// whole-block shape (or a block the pallet does not name) stays a cube. `shapes` is
    /// used only when it is the volume's platform's pallet; solidity stays the table's.
    pub fn resolve_shaped(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        pallet: Option<&dyn PlatformPallet>,
        mut shapes: Option<&mut PalletShapes<'_>>,
        surface_base: u32,
    ) -> CollisionPalette {
        let ours = match (&shapes, platform) {
            (Some(s), Some(pl)) => s.pallet_id() == pl,
            _ => false,
        };
        if !ours {
            shapes = None;
        }
        let mut shape_of = Vec::new();
        let mut cell_shapes: Vec<CellShape> = Vec::new();
        let mut seen: StdHashMap<(u8, Vec<[u32; 6]>), usize> = StdHashMap::new();
        let codes = palette
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let look = if i == 0 && e.is_empty_entry() {
                    tables
                        .lookup("dh", "empty", platform, None)
                        .unwrap_or_else(BlockLook::unresolved)
                } else {
                    let key = EntryKey {
                        namespace: &e.ns,
                        id: &e.id,
                        color: own_color(e),
                    };
                    resolve_entry(tables, key, platform, pallet)
                };
                if !look.solid {
                    return 0;
                }
                let code = 1 + preset_index(look.surface);
                let shape = match shapes.as_deref_mut() {
                    Some(s) if !(i == 0 && e.is_empty_entry()) => s.shape(e),
                    _ => None,
                };
                match shape {
                    None | Some(BlockShape::Cube) => code,
                    Some(BlockShape::Empty) => 0,
                    Some(BlockShape::Boxes(boxes)) => {
                        let key: (u8, Vec<[u32; 6]>) =
                            (code, boxes.iter().map(|b| b.map(f32::to_bits)).collect());
                        let k = *seen.entry(key).or_insert_with(|| {
                            cell_shapes.push(CellShape { code, boxes });
                            cell_shapes.len() - 1
                        });
                        match u16::try_from(k + 1) {
                            Ok(k) => {
                                shape_of.resize(i, 0);
                                shape_of.push(k);
                                0
                            }
                            // Past 65,535 distinct shapes a palette's further ones are cubes.
                            Err(_) => code,
                        }
                    }
                }
            })
            .collect();
        CollisionPalette {
            codes,
            shape_of,
            shapes: cell_shapes,
            unresolved: 1 + preset_index(BlockLook::unresolved().surface),
            surface_base,
        }
    }

    /// A palette from explicit rows (tests and tools); past its end, solid stone.
    pub fn from_blocks(blocks: &[BlockCollision], surface_base: u32) -> CollisionPalette {
        CollisionPalette {
            codes: blocks
                .iter()
                .map(|b| {
                    if b.solid {
                        1 + b.surface.min(SURFACE_PRESETS.len() as u8 - 1)
                    } else {
                        0
                    }
                })
                .collect(),
            shape_of: Vec::new(),
            shapes: Vec::new(),
            unresolved: 1 + preset_index("stone"),
            surface_base,
        }
    }

    /// What palette index `index` collides as (a shaped block is solid).
    pub fn block(&self, index: u32) -> BlockCollision {
        let c = match self.shape(index) {
            Some(s) => s.code,
            None => self.code(index),
        };
        BlockCollision {
            solid: c != 0,
            surface: c.saturating_sub(1),
        }
    }

    /// The boxes palette index `index` collides as, in block units, when it is a shaped
    /// block (`None` for a cube, a passable block, or one past the palette).
    pub fn shape_boxes(&self, index: u32) -> Option<&[ShapeBox]> {
        self.shape(index).map(|s| s.boxes.as_slice())
    }

    /// Palette entries that collide as boxes rather than as cubes.
    pub fn shaped_entries(&self) -> usize {
        self.shape_of.iter().filter(|&&k| k != 0).count()
    }

    #[inline]
    fn shape(&self, index: u32) -> Option<&CellShape> {
        let k = *self.shape_of.get(index as usize)?;
        self.shapes.get(usize::from(k).checked_sub(1)?)
    }

    /// Where the surface presets start in the scene's surface table.
    pub fn surface_base(&self) -> u32 {
        self.surface_base
    }

    /// Palette entries (not counting the unresolved block past the end).
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Whether the palette is empty.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    #[inline]
    fn code(&self, index: u32) -> u8 {
        self.codes
            .get(index as usize)
            .copied()
            .unwrap_or(self.unresolved)
    }
}

/// One surface's triangles of a cooked chunk, in the body's frame (meters, world axes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CookedPart {
    /// The surface preset, an index into [`SURFACE_PRESETS`].
    pub surface: u8,
    /// The triangles' slot in the scene's surface table
    /// ([`CollisionPalette::surface_base`] + `surface`).
    pub slot: u32,
    /// The preset's grip.
    pub grip: f32,
    /// Vertex positions relative to [`CookedChunk::origin`].
    pub vertices: Vec<Vec3>,
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// One chunk's collision, ready to attach: its triangles grouped by surface.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CookedChunk {
    /// The chunk (cell / edge on each axis, rounded down).
    pub chunk: [i32; 3],
    /// Where the chunk's origin cell lands, in meters: the body's position.
    pub origin: Vec3,
    /// Merged quads (two triangles each).
    pub quads: usize,
    /// One part per surface with triangles, in the order first met.
    pub parts: Vec<CookedPart>,
}

impl CookedChunk {
    /// Triangles over every part.
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(|p| p.triangles.len()).sum()
    }

    /// Whether the chunk has no faces (air, or buried on every side): no body.
    pub fn is_empty(&self) -> bool {
        self.quads == 0
    }

    /// The scene surface slot of triangle `triangle` of the body's collider `part` (the
    /// order [`PhysicsWorld::add_voxel_chunk`] was given them in).
    pub fn triangle_slot(&self, part: usize, triangle: usize) -> Option<u32> {
        let p = self.parts.get(part)?;
        (triangle < p.triangles.len()).then_some(p.slot)
    }

    /// Bytes the cooked triangles hold (vertices and indices).
    pub fn byte_size(&self) -> usize {
        self.parts
            .iter()
            .map(|p| p.vertices.len() * 12 + p.triangles.len() * 12)
            .sum()
    }

    /// Attaches the chunk as one static body; `None` when it has no faces.
    pub fn attach(&self, physics: &mut PhysicsWorld) -> Result<Option<BodyHandle>, PhysicsError> {
        if self.is_empty() {
            return Ok(None);
        }
        let parts: Vec<VoxelPart<'_>> = self
            .parts
            .iter()
            .filter(|p| !p.triangles.is_empty())
            .map(|p| VoxelPart {
                vertices: &p.vertices,
                triangles: &p.triangles,
                grip: p.grip,
            })
            .collect();
        physics.add_voxel_chunk(self.origin, &parts).map(Some)
    }

    fn begin(&mut self, chunk: [i32; 3], origin: Vec3) {
        self.chunk = chunk;
        self.origin = origin;
        self.quads = 0;
        for p in &mut self.parts {
            p.vertices.clear();
            p.triangles.clear();
        }
    }
}

/// The cooker's reusable buffers: sized for the largest chunk edge once, then reused.
#[derive(Debug, Clone, Default)]
pub struct CookScratch {
    /// Solidity rows of the padded chunk: bit `x + 1` of row `(y + 1) + P·(z + 1)`.
    rows: Vec<u64>,
    /// The collision code of each of the chunk's cells.
    codes: Vec<u8>,
    /// Face masks per direction: `[dir][layer·E + v]`, bits along u.
    slices: Vec<u64>,
    /// Part index per code (255: none yet).
    part_of: [u8; 32],
}

/// Face directions: +X, -X, +Y, -Y, +Z, -Z. The slice axes per direction: (layer, u, v).
const DIR_AXES: [(usize, usize, usize); 6] = [
    (0, 1, 2),
    (0, 1, 2),
    (1, 0, 2),
    (1, 0, 2),
    (2, 0, 1),
    (2, 0, 1),
];

#[inline]
fn view_code(view: &ChunkView<'_>, pal: &CollisionPalette, i: usize) -> u8 {
    match view {
        ChunkView::Empty => pal.code(0),
        ChunkView::Uniform(v) => pal.code(*v),
        ChunkView::Cells(c) => pal.code(c.get(i).copied().unwrap_or(0)),
    }
}

/// Cooks chunk `chunk` of `src` into `out`: the solid/passable face pass over the chunk
/// and its six neighbors' touching layers, greedy merging per slice across cells of the
/// same surface, and the quads through `placement` (vertices relative to the chunk's
/// origin cell, which lands at [`CookedChunk::origin`]; a mirroring placement reverses
/// the winding so faces stay outward). A chunk edge past [`MAX_COOK_EDGE`] cooks nothing.
pub fn cook_chunk(
    src: &(impl ChunkSource + ?Sized),
    pal: &CollisionPalette,
    placement: &Placement,
    chunk: [i32; 3],
    scratch: &mut CookScratch,
    out: &mut CookedChunk,
) {
    let e = src.edge();
    let base = chunk.map(|c| f64::from(c) * e as f64);
    let o = placement.point(DVec3::from_array(base));
    out.begin(chunk, o.as_vec3());
    if e == 0 || e > MAX_COOK_EDGE {
        return;
    }
    let center = src.chunk(chunk);
    if center == ChunkView::Empty && pal.code(0) == 0 && pal.shape(0).is_none() {
        return;
    }
    let p = e + 2;
    let n = e * e * e;
    scratch.rows.clear();
    scratch.rows.resize(p * p, 0);
    scratch.codes.clear();
    scratch.codes.resize(n, 0);
    let full: u64 = (1u64 << e) - 1;
    let row_at = |y: usize, z: usize| (y + 1) + p * (z + 1);

    // The center: codes and rows.
    let mut any_solid = false;
    let mut one_surface = true;
    match center {
        ChunkView::Empty | ChunkView::Uniform(_) => {
            let c = view_code(&center, pal, 0);
            if c != 0 {
                any_solid = true;
                scratch.codes.fill(c);
                for z in 0..e {
                    for y in 0..e {
                        scratch.rows[row_at(y, z)] = full << 1;
                    }
                }
            }
        }
        ChunkView::Cells(cells) => {
            let mut first_code = 0u8;
            let codes = &mut scratch.codes;
            for z in 0..e {
                for y in 0..e {
                    let start = e * (y + e * z);
                    let mut row = 0u64;
                    for x in 0..e {
                        let c = pal.code(cells.get(start + x).copied().unwrap_or(0));
                        codes[start + x] = c;
                        if c != 0 {
                            row |= 1 << (x + 1);
                            if first_code == 0 {
                                first_code = c;
                            } else if c != first_code {
                                one_surface = false;
                            }
                        }
                    }
                    any_solid |= row != 0;
                    scratch.rows[row_at(y, z)] = row;
                }
            }
        }
    }
    if !any_solid {
        cook_shapes(src, pal, placement, chunk, &scratch.codes, out);
        out.parts.retain(|p| !p.triangles.is_empty());
        return;
    }

    // The six neighbors' touching layers.
    let idx = |x: usize, y: usize, z: usize| x + e * (y + e * z);
    let nb = |d: [i32; 3]| src.chunk([chunk[0] + d[0], chunk[1] + d[1], chunk[2] + d[2]]);
    let solid_in = |v: &ChunkView<'_>, i: usize| view_code(v, pal, i) != 0;
    {
        let (mx, px) = (nb([-1, 0, 0]), nb([1, 0, 0]));
        for z in 0..e {
            for y in 0..e {
                let r = &mut scratch.rows[row_at(y, z)];
                if solid_in(&mx, idx(e - 1, y, z)) {
                    *r |= 1;
                }
                if solid_in(&px, idx(0, y, z)) {
                    *r |= 1 << (e + 1);
                }
            }
        }
        let layer_row = |v: &ChunkView<'_>, start: usize, step: usize| -> u64 {
            match v {
                ChunkView::Empty | ChunkView::Uniform(_) => {
                    if view_code(v, pal, 0) != 0 {
                        full << 1
                    } else {
                        0
                    }
                }
                ChunkView::Cells(_) => {
                    let mut row = 0u64;
                    for x in 0..e {
                        if solid_in(v, start + x * step) {
                            row |= 1 << (x + 1);
                        }
                    }
                    row
                }
            }
        };
        let (my, py) = (nb([0, -1, 0]), nb([0, 1, 0]));
        let (mz, pz) = (nb([0, 0, -1]), nb([0, 0, 1]));
        for z in 0..e {
            scratch.rows[z * p + p] = layer_row(&my, idx(0, e - 1, z), 1);
            scratch.rows[(e + 1) + p * (z + 1)] = layer_row(&py, idx(0, 0, z), 1);
        }
        for y in 0..e {
            scratch.rows[y + 1] = layer_row(&mz, idx(0, y, e - 1), 1);
            scratch.rows[(y + 1) + p * (e + 1)] = layer_row(&pz, idx(0, y, 0), 1);
        }
    }

    // Face masks per direction, laid out per slice.
    scratch.slices.clear();
    scratch.slices.resize(6 * e * e, 0);
    let rows = &scratch.rows;
    let slices = &mut scratch.slices;
    let ee = e * e;
    for z in 0..e {
        for y in 0..e {
            let c = rows[row_at(y, z)];
            if c == 0 {
                continue;
            }
            // ±Y and ±Z: rows against the rows beside them.
            slices[2 * ee + y * e + z] = ((c & !rows[row_at(y, z) + 1]) >> 1) & full;
            slices[3 * ee + y * e + z] = ((c & !rows[row_at(y, z) - 1]) >> 1) & full;
            slices[4 * ee + z * e + y] = ((c & !rows[row_at(y, z) + p]) >> 1) & full;
            slices[5 * ee + z * e + y] = ((c & !rows[row_at(y, z) - p]) >> 1) & full;
            // ±X: along the row, then transposed into x slices (bits along y).
            let mut fp = ((c & !(c >> 1)) >> 1) & full;
            while fp != 0 {
                let x = fp.trailing_zeros() as usize;
                fp &= fp - 1;
                slices[x * e + z] |= 1 << y;
            }
            let mut fm = ((c & !(c << 1)) >> 1) & full;
            while fm != 0 {
                let x = fm.trailing_zeros() as usize;
                fm &= fm - 1;
                slices[ee + x * e + z] |= 1 << y;
            }
        }
    }

    // Parts for the surfaces already held by `out`.
    scratch.part_of = [u8::MAX; 32];
    for (i, part) in out.parts.iter().enumerate().take(31) {
        if let Some(slot) = scratch.part_of.get_mut(part.surface as usize + 1) {
            *slot = i as u8;
        }
    }

    // The placement's linear part in f32 (cells are small integers, exact). glam's
    // matrix-vector product sums row r as m[r][0]·x + m[r][1]·y + m[r][2]·z, in that order.
    let lin = placement.linear().as_mat3();
    let mirrors = placement.mirrors();
    let xf = |v: [u32; 3]| -> Vec3 { lin * UVec3::from_array(v).as_vec3() };

    let codes = &scratch.codes;
    let part_of = &mut scratch.part_of;
    let mut mask = [0u64; MAX_COOK_EDGE];
    for dir in 0..6 {
        let (la, ua, va) = DIR_AXES[dir];
        let positive = dir % 2 == 0;
        // U×V is +X for X, -Y for Y, +Z for Z: flip where it is not the outward normal.
        let flip = natural_winding(dir) == mirrors;
        for layer in 0..e {
            let sl = &slices[dir * ee + layer * e..dir * ee + layer * e + e];
            if sl.iter().all(|&r| r == 0) {
                continue;
            }
            mask[..e].copy_from_slice(sl);
            let cell_code = |u: usize, v: usize| -> u8 {
                let mut c = [0usize; 3];
                c[la] = layer;
                c[ua] = u;
                c[va] = v;
                codes[idx(c[0], c[1], c[2])]
            };
            let plane = (if positive { layer + 1 } else { layer }) as u32;
            for v0 in 0..e {
                while mask[v0] != 0 {
                    let u0 = mask[v0].trailing_zeros() as usize;
                    let code = cell_code(u0, v0);
                    let mut w = (!(mask[v0] >> u0)).trailing_zeros() as usize;
                    if !one_surface {
                        let mut k = 1;
                        while k < w && cell_code(u0 + k, v0) == code {
                            k += 1;
                        }
                        w = k;
                    }
                    let run = (if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }) << u0;
                    let mut h = 1;
                    while v0 + h < e && mask[v0 + h] & run == run {
                        if !one_surface && (u0..u0 + w).any(|u| cell_code(u, v0 + h) != code) {
                            break;
                        }
                        h += 1;
                    }
                    for m in &mut mask[v0..v0 + h] {
                        *m &= !run;
                    }
                    // Emit the quad into its surface's part.
                    let Some(slot) = part_of.get_mut(code as usize) else {
                        continue;
                    };
                    if *slot == u8::MAX {
                        let surface = code - 1;
                        out.parts.push(CookedPart {
                            surface,
                            slot: pal.surface_base + u32::from(surface),
                            grip: SURFACE_PRESETS
                                .get(surface as usize)
                                .map_or(0.9, |s| s.grip),
                            vertices: Vec::new(),
                            triangles: Vec::new(),
                        });
                        *slot = (out.parts.len() - 1) as u8;
                    }
                    let Some(part) = out.parts.get_mut(*slot as usize) else {
                        continue;
                    };
                    let mut a = [0u32; 3];
                    a[la] = plane;
                    a[ua] = u0 as u32;
                    a[va] = v0 as u32;
                    let mut b = a;
                    b[ua] += w as u32;
                    let mut c = b;
                    c[va] += h as u32;
                    let mut d = a;
                    d[va] += h as u32;
                    let i0 = part.vertices.len() as u32;
                    part.vertices
                        .extend_from_slice(&[xf(a), xf(b), xf(c), xf(d)]);
                    if flip {
                        part.triangles
                            .extend_from_slice(&[[i0, i0 + 2, i0 + 1], [i0, i0 + 3, i0 + 2]]);
                    } else {
                        part.triangles
                            .extend_from_slice(&[[i0, i0 + 1, i0 + 2], [i0, i0 + 2, i0 + 3]]);
                    }
                    out.quads += 1;
                }
            }
        }
    }
    cook_shapes(src, pal, placement, chunk, &scratch.codes, out);
    out.parts.retain(|p| !p.triangles.is_empty());
}

/// Whether U×V of direction `dir`'s slice axes is its outward normal (+X, −Y, +Z).
#[inline]
fn natural_winding(dir: usize) -> bool {
    matches!(dir, 0 | 3 | 4)
}

/// The shaped blocks' pass (spec "Block shapes", "One pass"): every box face of every
/// shaped cell of the chunk, each face on the block's boundary hidden where the block it
/// touches (across a chunk border included) is a whole solid cube and shown against
/// anything else, one quad a face into its block's surface part. Whole cubes are the
/// cube pass's; a palette without shapes costs nothing here. `codes` are the chunk's
/// cube codes as the cube pass read them.
fn cook_shapes(
    src: &(impl ChunkSource + ?Sized),
    pal: &CollisionPalette,
    placement: &Placement,
    chunk: [i32; 3],
    codes: &[u8],
    out: &mut CookedChunk,
) {
    if pal.shapes.is_empty() {
        return;
    }
    let e = src.edge();
    let n = e * e * e;
    let center = src.chunk(chunk);
    if let ChunkView::Empty | ChunkView::Uniform(_) = center {
        let v = match center {
            ChunkView::Uniform(v) => v,
            _ => 0,
        };
        if pal.shape(v).is_none() {
            return;
        }
    }
    // The neighbor across each face direction (+X, -X, +Y, -Y, +Z, -Z).
    let nbs: [ChunkView<'_>; 6] = [0usize, 1, 2, 3, 4, 5].map(|dir| {
        let mut c = chunk;
        c[dir / 2] += if dir % 2 == 0 { 1 } else { -1 };
        src.chunk(c)
    });
    let idx = |c: [usize; 3]| c[0] + e * (c[1] + e * c[2]);
    let lin = placement.linear().as_mat3();
    let mirrors = placement.mirrors();
    let mut last: Option<(u8, usize)> = None;
    for i in 0..n {
        let index = match &center {
            ChunkView::Empty => 0,
            ChunkView::Uniform(v) => *v,
            ChunkView::Cells(c) => c.get(i).copied().unwrap_or(0),
        };
        let Some(shape) = pal.shape(index) else {
            continue;
        };
        let cell = [i % e, (i / e) % e, i / (e * e)];
        let at = Vec3::new(cell[0] as f32, cell[1] as f32, cell[2] as f32);
        let part = match last {
            Some((code, p)) if code == shape.code => p,
            _ => {
                let surface = shape.code - 1;
                let p = match out.parts.iter().position(|p| p.surface == surface) {
                    Some(p) => p,
                    None => {
                        out.parts.push(CookedPart {
                            surface,
                            slot: pal.surface_base + u32::from(surface),
                            grip: SURFACE_PRESETS
                                .get(surface as usize)
                                .map_or(0.9, |s| s.grip),
                            vertices: Vec::new(),
                            triangles: Vec::new(),
                        });
                        out.parts.len() - 1
                    }
                };
                last = Some((shape.code, p));
                p
            }
        };
        for b in &shape.boxes {
            for (dir, &(la, ua, va)) in DIR_AXES.iter().enumerate() {
                let positive = dir % 2 == 0;
                let plane = if positive { b[3 + la] } else { b[la] };
                let bound = if positive { plane == 1.0 } else { plane == 0.0 };
                if bound {
                    // The block this face touches: a whole solid cube hides it.
                    let mut c = cell;
                    let inside = if positive {
                        c[la] += 1;
                        c[la] < e
                    } else if c[la] > 0 {
                        c[la] -= 1;
                        true
                    } else {
                        false
                    };
                    let code = if inside {
                        codes.get(idx(c)).copied().unwrap_or(0)
                    } else {
                        c[la] = if positive { 0 } else { e - 1 };
                        view_code(&nbs[dir], pal, idx(c))
                    };
                    if code != 0 {
                        continue;
                    }
                }
                let mut a = Vec3::ZERO;
                a[la] = plane;
                a[ua] = b[ua];
                a[va] = b[va];
                let mut bb = a;
                bb[ua] = b[3 + ua];
                let mut c = bb;
                c[va] = b[3 + va];
                let mut d = a;
                d[va] = b[3 + va];
                let Some(p) = out.parts.get_mut(part) else {
                    continue;
                };
                let i0 = p.vertices.len() as u32;
                p.vertices.extend_from_slice(&[
                    lin * (at + a),
                    lin * (at + bb),
                    lin * (at + c),
                    lin * (at + d),
                ]);
                if natural_winding(dir) == mirrors {
                    p.triangles
                        .extend_from_slice(&[[i0, i0 + 2, i0 + 1], [i0, i0 + 3, i0 + 2]]);
                } else {
                    p.triangles
                        .extend_from_slice(&[[i0, i0 + 1, i0 + 2], [i0, i0 + 2, i0 + 3]]);
                }
                out.quads += 1;
            }
        }
    }
}

// ── Streaming ───────────────────────────────────────────────────────────

/// The streaming preferences of one side (`world.voxel.collision*` for the server,
/// `client.voxel.collision*` for the prediction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollisionConfig {
    /// Meters from each pawn chunks are kept solid within (`collisionRadius`).
    pub radius: f32,
    /// Meters past the radius a chunk keeps its body (`collisionMargin`).
    pub margin: f32,
    /// Meters from a pawn a chunk is cooked on the spot (`collisionUrgent`).
    pub urgent: f32,
    /// Threads that cook queued chunks (`collisionWorkers`); 0 cooks every wanted chunk
    /// on the spot inside [`CollisionStreamer::update`] (deterministic tests and tools).
    pub workers: usize,
    /// Bytes of decoded cells each volume read by range keeps for the cooks
    /// (`collisionCellCacheMb` × 2²⁰), shared by its shown grids.
    pub cell_cache_bytes: usize,
}

impl Default for CollisionConfig {
    /// The server's defaults: 48, 16, 4, one worker, 16 MB of decoded cells.
    fn default() -> Self {
        CollisionConfig {
            radius: 48.0,
            margin: 16.0,
            urgent: 4.0,
            workers: 1,
            cell_cache_bytes: 16 << 20,
        }
    }
}

impl CollisionConfig {
    /// The server's (`world.voxel.*`) or the prediction's (`client.voxel.*`) preferences.
    pub fn from_prefs(prefs: &crate::prefs::Prefs, client: bool) -> CollisionConfig {
        let side = if client { "client" } else { "world" };
        let d = CollisionConfig::default();
        let f = |k: &str, fallback: f32| {
            prefs
                .float(&format!("{side}.voxel.{k}"))
                .map_or(fallback, |v| v as f32)
        };
        let workers = prefs
            .int(&format!("{side}.voxel.collisionWorkers"))
            .map_or(1, |v| v.clamp(1, 64) as usize);
        let cache_mb = prefs
            .int(&format!("{side}.voxel.collisionCellCacheMb"))
            .map_or(16, |v| v.max(0) as usize);
        CollisionConfig {
            radius: f("collisionRadius", if client { 32.0 } else { d.radius }),
            margin: f("collisionMargin", d.margin),
            urgent: f("collisionUrgent", d.urgent),
            workers,
            cell_cache_bytes: cache_mb.saturating_mul(1 << 20),
        }
    }
}

/// A volume the streamer keeps solid, as [`CollisionStreamer::add_volume`] takes it.
pub struct CollisionVolume {
    /// The volume's name, for contacts and logs.
    pub name: String,
    /// The decoded chunks of the grid's `blocks` layer (the collision cell cache).
    pub source: Arc<dyn ChunkSource + Send + Sync>,
    /// Its palette as collision reads it.
    pub palette: Arc<CollisionPalette>,
    /// Cells to meters.
    pub placement: Placement,
    /// The cells it holds, `[min, max)`; chunks outside are never cooked.
    pub cells: [[i32; 3]; 2],
}

/// The most lines a [`RangeCells`] logs for chunks that do not decode; one more says
/// that further ones are not logged.
pub const MAX_CHUNK_ERRORS_LOGGED: usize = 32;

/// One chunk as a [`RangeCells`] cache holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellChunk {
    /// Not stored, or every cell `dh:empty`.
    Empty,
    /// Every cell holds this global palette index.
    Uniform(u32),
    /// edge³ global palette indices, X fastest, then Y, then Z.
    Cells(Vec<u32>),
}

impl CellChunk {
    /// Bytes it counts against the cache: its cells, plus 16 for the entry.
    pub fn bytes(&self) -> usize {
        match self {
            CellChunk::Empty | CellChunk::Uniform(_) => 16,
            CellChunk::Cells(c) => c.len() * 4 + 16,
        }
    }

    /// The chunk as the cooker reads it.
    pub fn view(&self) -> ChunkView<'_> {
        match self {
            CellChunk::Empty => ChunkView::Empty,
            CellChunk::Uniform(v) => ChunkView::Uniform(*v),
            CellChunk::Cells(c) => ChunkView::Cells(c),
        }
    }
}

/// The least-recently-used order of a [`RangeCells`] cache.
#[derive(Default)]
struct CellLru {
    map: HashMap<[i32; 3], (Arc<CellChunk>, u64)>,
    order: BTreeMap<u64, [i32; 3]>,
    clock: u64,
    bytes: usize,
}

/// One grid's `blocks` layer read by range (spec `dh.voxel`: "A payload is read by
/// range"): nothing is decoded when it opens; each chunk a cook (or the water query)
/// reads is found through its region's chunk table, decoded from its own record and
/// kept in a decoded-cell cache of at most `cache_bytes` (`collisionCellCacheMb`), the
/// least recently used chunk first out. A chunk that does not decode is logged once and
/// read as empty: nothing of it is solid, and nothing panics.
pub struct RangeCells {
    name: String,
    payload: Arc<OpenPayload>,
    grid: u32,
    edge: usize,
    /// The grid's chunks, `[min, max]` inclusive.
    chunks: [[i32; 3]; 2],
    cache: Mutex<CellLru>,
    capacity: usize,
    empty: Arc<CellChunk>,
    decoded: AtomicU64,
    errors: Mutex<ChunkErrors>,
}

#[derive(Default)]
struct ChunkErrors {
    seen: HashSet<[i32; 3]>,
    lines: Vec<String>,
}

impl std::fmt::Debug for RangeCells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeCells")
            .field("name", &self.name)
            .field("grid", &self.grid)
            .field("edge", &self.edge)
            .field("cache_bytes", &self.cache_bytes())
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// Why a grid cannot be read by range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeCellsError {
    /// The payload has no such grid.
    #[error("payload {payload}: grid {grid} does not exist (it has {count})")]
    NoGrid {
        /// The payload's entry.
        payload: String,
        /// The grid asked for.
        grid: u32,
        /// Grids it has.
        count: usize,
    },
    /// The `blocks` layer is not at the payload's chunk edge.
    #[error("payload {payload}: layer 0 ('blocks') has {found} cells a chunk edge, expected the chunk edge {expected}")]
    LayerEdge {
        /// The payload's entry.
        payload: String,
        /// Cells along its chunks' edge.
        found: usize,
        /// The header's chunk edge.
        expected: usize,
    },
}

impl RangeCells {
    /// Grid `grid` of the open payload `payload`, for volume `name` (what its log lines
    /// call it), with a decoded-cell cache of `cache_bytes`. Reads nothing past what
    /// [`OpenPayload::open`] read (the header and the region index).
    pub fn new(
        name: &str,
        payload: Arc<OpenPayload>,
        grid: u32,
        cache_bytes: usize,
    ) -> Result<RangeCells, RangeCellsError> {
        let r = payload.reader();
        let info = r
            .grids()
            .get(grid as usize)
            .ok_or_else(|| RangeCellsError::NoGrid {
                payload: r.name().to_string(),
                grid,
                count: r.grids().len(),
            })?;
        let expected = usize::from(r.header().chunk_edge);
        let found = r.layer_edge(0).unwrap_or(0);
        if found != expected || found == 0 {
            return Err(RangeCellsError::LayerEdge {
                payload: r.name().to_string(),
                found,
                expected,
            });
        }
        let e = found as i32;
        let lo = info.bounds_min;
        let hi = [0, 1, 2].map(|a| lo[a].saturating_add(info.bounds_size[a].max(1)) - 1);
        let chunks = [lo.map(|c| c.div_euclid(e)), hi.map(|c| c.div_euclid(e))];
        Ok(RangeCells {
            name: name.to_string(),
            payload,
            grid,
            edge: found,
            chunks,
            cache: Mutex::new(CellLru::default()),
            capacity: cache_bytes,
            empty: Arc::new(CellChunk::Empty),
            decoded: AtomicU64::new(0),
            errors: Mutex::new(ChunkErrors::default()),
        })
    }

    /// Cells along a chunk's edge.
    pub fn edge(&self) -> usize {
        self.edge
    }

    /// The grid read.
    pub fn grid(&self) -> u32 {
        self.grid
    }

    /// The grid's chunks, `[min, max]` inclusive (from its bounds).
    pub fn chunk_bounds(&self) -> [[i32; 3]; 2] {
        self.chunks
    }

    /// Bytes of decoded cells the cache holds (never more than its capacity once a
    /// read returns).
    pub fn cache_bytes(&self) -> usize {
        self.cache.lock().map_or(0, |l| l.bytes)
    }

    /// Chunks the cache holds.
    pub fn cached_chunks(&self) -> usize {
        self.cache.lock().map_or(0, |l| l.map.len())
    }

    /// The cache's capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Chunk records decoded since it opened (misses of the cache that found a stored
    /// chunk).
    pub fn chunks_decoded(&self) -> u64 {
        self.decoded.load(Ordering::Relaxed)
    }

    /// The log lines of chunks that did not decode since the last call.
    pub fn take_log(&self) -> Vec<String> {
        self.errors
            .lock()
            .map(|mut e| std::mem::take(&mut e.lines))
            .unwrap_or_default()
    }

    fn report(&self, chunk: [i32; 3], e: &PayloadError) {
        let Ok(mut errors) = self.errors.lock() else {
            return;
        };
        if errors.seen.len() > MAX_CHUNK_ERRORS_LOGGED || !errors.seen.insert(chunk) {
            return;
        }
        let line = if errors.seen.len() > MAX_CHUNK_ERRORS_LOGGED {
            format!(
                "voxel volume '{}': grid {}: more chunks do not decode; they are not solid and are not logged",
                self.name, self.grid
            )
        } else {
            format!(
                "voxel volume '{}': grid {} chunk {chunk:?} does not decode and is not solid: {e}",
                self.name, self.grid
            )
        };
        errors.lines.push(line);
    }

    fn decode(&self, chunk: [i32; 3]) -> CellChunk {
        let r = self.payload.reader();
        let n = self.edge * self.edge * self.edge;
        let read = r
            .find_chunk(self.grid, ChunkKey { layer: 0, chunk })
            .and_then(|found| match found {
                None => Ok(None),
                Some((region, index)) => {
                    self.decoded.fetch_add(1, Ordering::Relaxed);
                    let mut cells = Vec::new();
                    r.read_chunk_into(region, index, &mut cells)
                        .map(|_| Some(cells))
                }
            });
        match read {
            Ok(None) => CellChunk::Empty,
            Ok(Some(cells)) if cells.len() == n => {
                // One value throughout is kept as that value (all `dh:empty` as not
                // stored), as a whole decode's compaction does.
                let first = cells.first().copied().unwrap_or(0);
                if cells.iter().all(|&c| c == first) {
                    if first == 0 {
                        CellChunk::Empty
                    } else {
                        CellChunk::Uniform(first)
                    }
                } else {
                    CellChunk::Cells(cells)
                }
            }
            Ok(Some(cells)) => {
                self.report(
                    chunk,
                    &PayloadError::OutOfRange {
                        file: r.name().to_string(),
                        what: format!("cells of chunk {chunk:?} (expected {n})"),
                        index: cells.len(),
                        count: n,
                    },
                );
                CellChunk::Empty
            }
            Err(e) => {
                self.report(chunk, &e);
                CellChunk::Empty
            }
        }
    }

    /// The chunk at `chunk`, from the cache or decoded into it (outside the lock, so two
    /// cooks may decode the same chunk at once; the second result is kept). Outside the
    /// grid's bounds nothing is stored: empty, without a look.
    pub fn chunk(&self, chunk: [i32; 3]) -> Arc<CellChunk> {
        if (0..3).any(|a| chunk[a] < self.chunks[0][a] || chunk[a] > self.chunks[1][a]) {
            return self.empty.clone();
        }
        if let Ok(mut l) = self.cache.lock() {
            l.clock += 1;
            let now = l.clock;
            if let Some((c, stamp)) = l.map.get_mut(&chunk) {
                let old = std::mem::replace(stamp, now);
                let c = c.clone();
                l.order.remove(&old);
                l.order.insert(now, chunk);
                return c;
            }
        }
        let c = Arc::new(self.decode(chunk));
        if let Ok(mut l) = self.cache.lock() {
            l.clock += 1;
            let now = l.clock;
            if let Some((gone, old)) = l.map.insert(chunk, (c.clone(), now)) {
                l.order.remove(&old);
                l.bytes = l.bytes.saturating_sub(gone.bytes());
            }
            l.order.insert(now, chunk);
            l.bytes += c.bytes();
            while l.bytes > self.capacity {
                let Some((_, key)) = l.order.pop_first() else {
                    break;
                };
                if let Some((gone, _)) = l.map.remove(&key) {
                    l.bytes = l.bytes.saturating_sub(gone.bytes());
                }
            }
        }
        c
    }

    /// The chunks `lo ..= hi` as one [`ChunkSource`], each read through the cache the
    /// first time it is asked for and held by the window for its life (so an eviction
    /// meanwhile cannot take it away); chunks outside read as empty.
    pub fn window(&self, lo: [i32; 3], hi: [i32; 3]) -> RangeWindow<'_> {
        let size =
            [0, 1, 2].map(|a| (i64::from(hi[a]) - i64::from(lo[a]) + 1).clamp(0, 64) as usize);
        let n = size[0] * size[1] * size[2];
        RangeWindow {
            cells: self,
            lo,
            size,
            slots: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// What a cook of `chunk` reads: the chunk and its six face neighbors, each read
    /// through the cache the first time the cook asks for it; any other chunk reads as
    /// empty.
    pub fn cook_window(&self, chunk: [i32; 3]) -> CookWindow<'_> {
        CookWindow {
            cells: self,
            center: chunk,
            slots: Default::default(),
        }
    }

    /// What the water query at cell `cell` reads: the column of chunks through the
    /// cell on axis 1 (a fluid's run is followed up and down), within the grid's bounds
    /// and at most 32 chunks either way, and one chunk either side on the other two axes
    /// (the surface's corner heights read the neighbours).
    pub fn column_window(&self, cell: [i32; 3]) -> RangeWindow<'_> {
        let e = self.edge as i32;
        let c = cell.map(|v| v.div_euclid(e));
        let y_lo = c[1].saturating_sub(31).max(self.chunks[0][1]);
        let y_hi = c[1].saturating_add(32).min(self.chunks[1][1]);
        self.window(
            [c[0].saturating_sub(1), y_lo, c[2].saturating_sub(1)],
            [c[0].saturating_add(1), y_hi, c[2].saturating_add(1)],
        )
    }
}

/// A window of chunks of a [`RangeCells`], as the cooker and the water query read them
/// ([`RangeCells::window`]).
pub struct RangeWindow<'a> {
    cells: &'a RangeCells,
    lo: [i32; 3],
    size: [usize; 3],
    slots: Vec<OnceLock<Arc<CellChunk>>>,
}

impl RangeWindow<'_> {
    fn index(&self, chunk: [i32; 3]) -> Option<usize> {
        let mut i = 0;
        for a in (0..3).rev() {
            let d = i64::from(chunk[a]) - i64::from(self.lo[a]);
            if d < 0 || d as usize >= self.size[a] {
                return None;
            }
            i = i * self.size[a] + d as usize;
        }
        Some(i)
    }
}

impl ChunkSource for RangeWindow<'_> {
    fn edge(&self) -> usize {
        self.cells.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        match self.index(chunk).and_then(|i| self.slots.get(i)) {
            Some(slot) => slot.get_or_init(|| self.cells.chunk(chunk)).view(),
            None => ChunkView::Empty,
        }
    }
}

/// The chunks one cook reads ([`RangeCells::cook_window`]): the chunk and its six face
/// neighbors, held for the cook's life.
pub struct CookWindow<'a> {
    cells: &'a RangeCells,
    center: [i32; 3],
    slots: [OnceLock<Arc<CellChunk>>; 7],
}

impl ChunkSource for CookWindow<'_> {
    fn edge(&self) -> usize {
        self.cells.edge
    }

    fn chunk(&self, chunk: [i32; 3]) -> ChunkView<'_> {
        let d = [0, 1, 2].map(|a| i64::from(chunk[a]) - i64::from(self.center[a]));
        let slot = match d {
            [0, 0, 0] => 0,
            [1, 0, 0] => 1,
            [-1, 0, 0] => 2,
            [0, 1, 0] => 3,
            [0, -1, 0] => 4,
            [0, 0, 1] => 5,
            [0, 0, -1] => 6,
            _ => return ChunkView::Empty,
        };
        match self.slots.get(slot) {
            Some(s) => s.get_or_init(|| self.cells.chunk(chunk)).view(),
            None => ChunkView::Empty,
        }
    }
}

/// Where a collision volume's cells come from.
#[derive(Clone)]
pub enum CollisionCells {
    /// Chunks already decoded in memory (tests, tools, an editor's working copy).
    Chunks(Arc<dyn ChunkSource + Send + Sync>),
    /// A payload's grid read by range through its bounded cache.
    Range(Arc<RangeCells>),
}

impl std::fmt::Debug for CollisionCells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CollisionCells::Chunks(c) => f.debug_tuple("Chunks").field(&c.edge()).finish(),
            CollisionCells::Range(r) => f.debug_tuple("Range").field(r).finish(),
        }
    }
}

impl CollisionCells {
    /// Cells along a chunk's edge.
    pub fn edge(&self) -> usize {
        match self {
            CollisionCells::Chunks(c) => c.edge(),
            CollisionCells::Range(r) => r.edge(),
        }
    }

    /// [`cook_chunk`] over these cells (a range-read grid through a
    /// [`RangeCells::cook_window`]).
    pub fn cook(
        &self,
        pal: &CollisionPalette,
        placement: &Placement,
        chunk: [i32; 3],
        scratch: &mut CookScratch,
        out: &mut CookedChunk,
    ) {
        match self {
            CollisionCells::Chunks(c) => {
                cook_chunk(c.as_ref(), pal, placement, chunk, scratch, out)
            }
            CollisionCells::Range(r) => {
                cook_chunk(&r.cook_window(chunk), pal, placement, chunk, scratch, out)
            }
        }
    }
}

/// A grid read by range, as [`CollisionStreamer::add_range_volume`] takes it.
pub struct RangeVolume {
    /// The volume's name, for contacts and logs.
    pub name: String,
    /// The grid's cells, read by range.
    pub cells: Arc<RangeCells>,
    /// Its palette as collision reads it.
    pub palette: Arc<CollisionPalette>,
    /// Cells to meters.
    pub placement: Placement,
}

/// A volume's id in a [`CollisionStreamer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VolumeId(pub u32);

struct VolumeState {
    shared: Arc<VolumeShared>,
    /// Chunk range, `[min, max]` inclusive.
    chunks: [[i32; 3]; 2],
    /// The inverse placement (world to cells).
    inverse: Placement,
    /// Half extents of a chunk's world box (|L|·E/2).
    half: DVec3,
}

struct VolumeShared {
    name: String,
    source: CollisionCells,
    palette: Arc<CollisionPalette>,
    placement: Placement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// Sent to a worker with this ticket.
    Queued(u64),
    /// Attached.
    Body(BodyHandle, u32),
    /// Cooked to nothing.
    Empty,
}

type Key = (VolumeId, [i32; 3]);

struct Job {
    key: Key,
    ticket: u64,
    volume: Arc<VolumeShared>,
}

struct Done {
    key: Key,
    ticket: u64,
    cooked: CookedChunk,
}

/// What one [`CollisionStreamer::update`] did, and what is alive after it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CollisionStats {
    /// Chunk bodies alive.
    pub bodies: usize,
    /// Triangles over every alive body.
    pub triangles: usize,
    /// Chunks cooked on the spot this update (urgent, or every one without workers).
    pub cooked_now: usize,
    /// Worker cooks attached this update.
    pub attached: usize,
    /// Chunks sent to the workers this update.
    pub queued: usize,
    /// Chunks waiting on a worker.
    pub pending: usize,
    /// Bodies removed this update.
    pub removed: usize,
    /// Time spent cooking on the spot this update.
    pub cook_time: Duration,
}

/// How far a pawn moves before the chunks around it are looked at again, in meters; the
/// urgent radius is widened by as much so nothing within it is missed between looks.
pub const RESCAN_STEP: f32 = 1.0;

/// Keeps chunk bodies around pawns (spec "Streaming, and never falling through").
pub struct CollisionStreamer {
    config: CollisionConfig,
    volumes: Vec<(VolumeId, VolumeState)>,
    next_volume: u32,
    chunks: HashMap<Key, ChunkState>,
    by_body: HashMap<BodyHandle, Key>,
    triangles: usize,
    next_ticket: u64,
    jobs: Option<Sender<Job>>,
    done: Option<Receiver<Done>>,
    workers: Vec<JoinHandle<()>>,
    scratch: CookScratch,
    cooked: CookedChunk,
    last_scan: Vec<Vec3>,
    dirty: bool,
    /// Wanted chunks of the last scan with their distance to the nearest pawn.
    wanted: Vec<(f32, Key)>,
    keep: HashMap<Key, ()>,
    worker_cook_time: Arc<Mutex<Duration>>,
}

impl std::fmt::Debug for CollisionStreamer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CollisionStreamer")
            .field("config", &self.config)
            .field("volumes", &self.volumes.len())
            .field("chunks", &self.chunks.len())
            .field("bodies", &self.by_body.len())
            .finish()
    }
}

fn worker_loop(jobs: Arc<Mutex<Receiver<Job>>>, done: Sender<Done>, time: Arc<Mutex<Duration>>) {
    let mut scratch = CookScratch::default();
    loop {
        let job = {
            let Ok(rx) = jobs.lock() else { return };
            match rx.recv() {
                Ok(j) => j,
                Err(_) => return,
            }
        };
        let t = Instant::now();
        let mut cooked = CookedChunk::default();
        let v = &job.volume;
        v.source.cook(
            &v.palette,
            &v.placement,
            job.key.1,
            &mut scratch,
            &mut cooked,
        );
        if let Ok(mut total) = time.lock() {
            *total += t.elapsed();
        }
        if done
            .send(Done {
                key: job.key,
                ticket: job.ticket,
                cooked,
            })
            .is_err()
        {
            return;
        }
    }
}

impl CollisionStreamer {
    /// A streamer with no volumes; its worker threads start here.
    pub fn new(config: CollisionConfig) -> CollisionStreamer {
        let mut s = CollisionStreamer {
            config,
            volumes: Vec::new(),
            next_volume: 0,
            chunks: HashMap::default(),
            by_body: HashMap::default(),
            triangles: 0,
            next_ticket: 1,
            jobs: None,
            done: None,
            workers: Vec::new(),
            scratch: CookScratch::default(),
            cooked: CookedChunk::default(),
            last_scan: Vec::new(),
            dirty: true,
            wanted: Vec::new(),
            keep: HashMap::default(),
            worker_cook_time: Arc::new(Mutex::new(Duration::ZERO)),
        };
        if config.workers > 0 {
            let (jtx, jrx) = channel::<Job>();
            let (dtx, drx) = channel::<Done>();
            let jrx = Arc::new(Mutex::new(jrx));
            for i in 0..config.workers {
                let (jrx, dtx, time) = (jrx.clone(), dtx.clone(), s.worker_cook_time.clone());
                if let Ok(h) = std::thread::Builder::new()
                    .name(format!("voxel-collision-{i}"))
                    .spawn(move || worker_loop(jrx, dtx, time))
                {
                    s.workers.push(h);
                }
            }
            if !s.workers.is_empty() {
                s.jobs = Some(jtx);
                s.done = Some(drx);
            }
        }
        s
    }

    /// The preferences in force.
    pub fn config(&self) -> &CollisionConfig {
        &self.config
    }

    /// Adds a volume; its chunks near pawns become solid on the next update. `None` when
    /// its placement is singular (a zero scale), which nothing can stand on.
    pub fn add_volume(&mut self, volume: CollisionVolume) -> Option<VolumeId> {
        self.add_cells(
            volume.name,
            CollisionCells::Chunks(volume.source),
            volume.palette,
            volume.placement,
            volume.cells,
        )
    }

    /// Adds a grid read by range (its cells are its bounds); as [`Self::add_volume`].
    pub fn add_range_volume(&mut self, volume: RangeVolume) -> Option<VolumeId> {
        let e = volume.cells.edge() as i32;
        let [lo, hi] = volume.cells.chunk_bounds();
        let cells = [
            lo.map(|c| c.saturating_mul(e)),
            hi.map(|c| c.saturating_add(1).saturating_mul(e)),
        ];
        self.add_cells(
            volume.name,
            CollisionCells::Range(volume.cells),
            volume.palette,
            volume.placement,
            cells,
        )
    }

    fn add_cells(
        &mut self,
        name: String,
        source: CollisionCells,
        palette: Arc<CollisionPalette>,
        placement: Placement,
        cells: [[i32; 3]; 2],
    ) -> Option<VolumeId> {
        let inverse = placement.inverse()?;
        let e = source.edge().max(1) as i32;
        let [lo, hi] = cells;
        let chunks = [
            lo.map(|c| c.div_euclid(e)),
            [0, 1, 2].map(|a| (hi[a] - 1).max(lo[a]).div_euclid(e)),
        ];
        let h = e as f64 * 0.5;
        let half = placement.box_half(h);
        let id = VolumeId(self.next_volume);
        self.next_volume += 1;
        self.volumes.push((
            id,
            VolumeState {
                shared: Arc::new(VolumeShared {
                    name,
                    source,
                    palette,
                    placement,
                }),
                chunks,
                inverse,
                half,
            },
        ));
        self.dirty = true;
        Some(id)
    }

    /// Bytes of decoded cells the range-read volumes' caches hold together.
    pub fn cell_cache_bytes(&self) -> usize {
        self.volumes
            .iter()
            .map(|(_, v)| match &v.shared.source {
                CollisionCells::Range(r) => r.cache_bytes(),
                CollisionCells::Chunks(_) => 0,
            })
            .sum()
    }

    /// Chunk records the range-read volumes have decoded since they were added.
    pub fn chunks_decoded(&self) -> u64 {
        self.volumes
            .iter()
            .map(|(_, v)| match &v.shared.source {
                CollisionCells::Range(r) => r.chunks_decoded(),
                CollisionCells::Chunks(_) => 0,
            })
            .sum()
    }

    /// The log lines of chunks that did not decode since the last call (each once).
    pub fn take_log(&mut self) -> Vec<String> {
        self.volumes
            .iter()
            .flat_map(|(_, v)| match &v.shared.source {
                CollisionCells::Range(r) => r.take_log(),
                CollisionCells::Chunks(_) => Vec::new(),
            })
            .collect()
    }

    /// Removes a volume and its bodies (a volume turned off or deleted; a moved one is
    /// removed and added again where it now stands).
    pub fn remove_volume(&mut self, physics: &mut PhysicsWorld, id: VolumeId) {
        self.volumes.retain(|(v, _)| *v != id);
        let keys: Vec<Key> = self.chunks.keys().filter(|k| k.0 == id).copied().collect();
        for k in keys {
            self.drop_chunk(physics, k);
        }
        self.dirty = true;
    }

    /// The volume's name.
    pub fn volume_name(&self, id: VolumeId) -> Option<&str> {
        self.volumes
            .iter()
            .find(|(v, _)| *v == id)
            .map(|(_, s)| s.shared.name.as_str())
    }

    /// Chunk bodies alive.
    pub fn body_count(&self) -> usize {
        self.by_body.len()
    }

    /// Triangles over every alive body.
    pub fn triangle_count(&self) -> usize {
        self.triangles
    }

    /// The volume and chunk a body belongs to (for naming a contact).
    pub fn chunk_of_body(&self, body: BodyHandle) -> Option<(VolumeId, [i32; 3])> {
        self.by_body.get(&body).copied()
    }

    /// Every chunk body alive, in volume and chunk order: its volume, its chunk, its body
    /// and its triangles (what `client.debug.colliderGizmo` draws).
    pub fn bodies(&self) -> Vec<(VolumeId, [i32; 3], BodyHandle, u32)> {
        let mut out: Vec<(VolumeId, [i32; 3], BodyHandle, u32)> = self
            .chunks
            .iter()
            .filter_map(|(k, s)| match s {
                ChunkState::Body(b, tris) => Some((k.0, k.1, *b, *tris)),
                _ => None,
            })
            .collect();
        out.sort_by_key(|&(v, c, _, _)| (v, c));
        out
    }

    /// The triangles of a chunk body (`None` for a body that is no chunk's).
    pub fn body_triangles(&self, body: BodyHandle) -> Option<u32> {
        match self.chunks.get(self.by_body.get(&body)?) {
            Some(ChunkState::Body(_, tris)) => Some(*tris),
            _ => None,
        }
    }

    /// The body of a volume's chunk, when it has one.
    pub fn body_of_chunk(&self, volume: VolumeId, chunk: [i32; 3]) -> Option<BodyHandle> {
        match self.chunks.get(&(volume, chunk)) {
            Some(ChunkState::Body(b, _)) => Some(*b),
            _ => None,
        }
    }

    /// Whether a volume's chunk is waiting on a worker.
    pub fn is_queued(&self, volume: VolumeId, chunk: [i32; 3]) -> bool {
        matches!(
            self.chunks.get(&(volume, chunk)),
            Some(ChunkState::Queued(_))
        )
    }

    /// Time the workers have spent cooking since the streamer started.
    pub fn worker_cook_time(&self) -> Duration {
        self.worker_cook_time.lock().map_or(Duration::ZERO, |t| *t)
    }

    fn drop_chunk(&mut self, physics: &mut PhysicsWorld, key: Key) -> bool {
        match self.chunks.remove(&key) {
            Some(ChunkState::Body(b, tris)) => {
                self.by_body.remove(&b);
                self.triangles -= tris as usize;
                let _ = physics.remove_body(b);
                true
            }
            _ => false,
        }
    }

    fn attach(&mut self, physics: &mut PhysicsWorld, key: Key, cooked: &CookedChunk) {
        let state = match cooked.attach(physics) {
            Ok(Some(b)) => {
                let tris = cooked.triangle_count() as u32;
                self.by_body.insert(b, key);
                self.triangles += tris as usize;
                ChunkState::Body(b, tris)
            }
            // A chunk the solver refuses (it cannot: the cooker writes finite, in-range
            // triangles) is left without a body rather than retried every tick.
            Ok(None) | Err(_) => ChunkState::Empty,
        };
        self.chunks.insert(key, state);
    }

    fn cook_now(&mut self, physics: &mut PhysicsWorld, key: Key, stats: &mut CollisionStats) {
        let Some(v) = self
            .volumes
            .iter()
            .find(|(id, _)| *id == key.0)
            .map(|(_, s)| s.shared.clone())
        else {
            return;
        };
        let t = Instant::now();
        let mut cooked = std::mem::take(&mut self.cooked);
        v.source.cook(
            &v.palette,
            &v.placement,
            key.1,
            &mut self.scratch,
            &mut cooked,
        );
        stats.cook_time += t.elapsed();
        stats.cooked_now += 1;
        self.attach(physics, key, &cooked);
        self.cooked = cooked;
    }

    /// Looks at the chunks around every pawn again: what is wanted (within the radius,
    /// nearest first), what is kept (within the radius plus the margin) and what is
    /// urgent.
    fn scan(&mut self, pawns: &[Vec3]) -> Vec<Key> {
        self.wanted.clear();
        self.keep.clear();
        let mut urgent = Vec::new();
        let keep_r = f64::from(self.config.radius + self.config.margin);
        let want_r = f64::from(self.config.radius);
        let urgent_r = f64::from(self.config.urgent + RESCAN_STEP);
        let mut best: HashMap<Key, f32> = HashMap::default();
        for (id, vs) in &self.volumes {
            let e = vs.shared.source.edge().max(1) as f64;
            let pl = &vs.shared.placement;
            for p in pawns {
                let p = p.as_dvec3();
                // The world box around the pawn, in cells, then in chunks.
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
                    let c = vs.inverse.point(w);
                    for a in 0..3 {
                        lo[a] = lo[a].min(c[a]);
                        hi[a] = hi[a].max(c[a]);
                    }
                }
                let clo: [i32; 3] =
                    [0, 1, 2].map(|a| ((lo[a] / e).floor().max(-1e9) as i32).max(vs.chunks[0][a]));
                let chi: [i32; 3] =
                    [0, 1, 2].map(|a| ((hi[a] / e).floor().min(1e9) as i32).min(vs.chunks[1][a]));
                for cz in clo[2]..=chi[2] {
                    for cy in clo[1]..=chi[1] {
                        for cx in clo[0]..=chi[0] {
                            let mid = [cx, cy, cz].map(|c| (f64::from(c) + 0.5) * e);
                            let wc = pl.point(DVec3::from_array(mid));
                            let d = box_distance(p, wc, vs.half);
                            if d > keep_r {
                                continue;
                            }
                            let key = (*id, [cx, cy, cz]);
                            self.keep.insert(key, ());
                            if d <= want_r {
                                let b = best.entry(key).or_insert(f32::INFINITY);
                                *b = b.min(d as f32);
                            }
                        }
                    }
                }
            }
        }
        for (key, d) in best {
            if f64::from(d) <= urgent_r {
                urgent.push(key);
            }
            self.wanted.push((d, key));
        }
        self.wanted
            .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1 .1.cmp(&b.1 .1)));
        urgent.sort_by_key(|k| (k.0, k.1));
        urgent
    }

    /// One update, before the tick moves anyone: attaches what the workers finished,
    /// cooks on the spot every chunk within the urgent radius of a pawn that has no body
    /// yet, queues the rest within the radius nearest first, and removes the bodies of
    /// chunks past the radius plus the margin. `pawns` are the pawns' feet in meters.
    pub fn update(&mut self, physics: &mut PhysicsWorld, pawns: &[Vec3]) -> CollisionStats {
        let mut stats = CollisionStats::default();
        // 1. What the workers finished.
        let done: Vec<Done> = self
            .done
            .as_ref()
            .map(|rx| rx.try_iter().collect())
            .unwrap_or_default();
        for d in done {
            if self.chunks.get(&d.key) == Some(&ChunkState::Queued(d.ticket)) {
                self.attach(physics, d.key, &d.cooked);
                stats.attached += 1;
            }
        }
        // 2. Look again when a pawn moved far enough (or came, or went).
        let moved = self.last_scan.len() != pawns.len()
            || self
                .last_scan
                .iter()
                .zip(pawns)
                .any(|(a, b)| a.distance_squared(*b) >= RESCAN_STEP * RESCAN_STEP);
        if self.dirty || moved {
            self.dirty = false;
            self.last_scan = pawns.to_vec();
            let urgent = self.scan(pawns);
            // 3. Urgent chunks, on the spot.
            for key in urgent {
                match self.chunks.get(&key) {
                    Some(ChunkState::Body(..) | ChunkState::Empty) => {}
                    _ => self.cook_now(physics, key, &mut stats),
                }
            }
            // 4. The rest within the radius: queued nearest first (or cooked now without
            //    workers).
            let wanted = std::mem::take(&mut self.wanted);
            for &(_, key) in &wanted {
                if self.chunks.contains_key(&key) {
                    continue;
                }
                let job = self.jobs.as_ref().and_then(|tx| {
                    let vol = self
                        .volumes
                        .iter()
                        .find(|(id, _)| *id == key.0)
                        .map(|(_, s)| s.shared.clone())?;
                    let ticket = self.next_ticket;
                    tx.send(Job {
                        key,
                        ticket,
                        volume: vol,
                    })
                    .ok()
                    .map(|_| ticket)
                });
                match job {
                    Some(ticket) => {
                        self.next_ticket += 1;
                        self.chunks.insert(key, ChunkState::Queued(ticket));
                        stats.queued += 1;
                    }
                    None => self.cook_now(physics, key, &mut stats),
                }
            }
            self.wanted = wanted;
            // 5. Past the radius plus the margin: no body.
            let gone: Vec<Key> = self
                .chunks
                .keys()
                .filter(|k| !self.keep.contains_key(k))
                .copied()
                .collect();
            for k in gone {
                if self.drop_chunk(physics, k) {
                    stats.removed += 1;
                }
            }
        }
        stats.bodies = self.by_body.len();
        stats.triangles = self.triangles;
        stats.pending = self
            .chunks
            .values()
            .filter(|s| matches!(s, ChunkState::Queued(_)))
            .count();
        stats
    }

    /// Waits for every queued chunk and attaches it (tests, tools, a capture).
    pub fn flush(&mut self, physics: &mut PhysicsWorld) -> CollisionStats {
        let mut stats = CollisionStats::default();
        loop {
            let pending: usize = self
                .chunks
                .values()
                .filter(|s| matches!(s, ChunkState::Queued(_)))
                .count();
            if pending == 0 {
                break;
            }
            let Some(rx) = &self.done else { break };
            let Ok(d) = rx.recv_timeout(Duration::from_secs(30)) else {
                break;
            };
            if self.chunks.get(&d.key) == Some(&ChunkState::Queued(d.ticket)) {
                self.attach(physics, d.key, &d.cooked);
                stats.attached += 1;
            }
        }
        stats.bodies = self.by_body.len();
        stats.triangles = self.triangles;
        stats
    }
}

impl Drop for CollisionStreamer {
    fn drop(&mut self) {
        self.jobs = None;
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

/// The grip of a surface preset by name (stone's when it is not one).
pub fn preset_grip(name: &str) -> f32 {
    surface_preset(name).map_or(0.9, |p| p.grip)
}
