//! The light field (spec `dh.voxel`, "The light field"): block and sky light per cell,
//! Minecraft's rules, computed while a volume streams and never saved.
//!
//! * Rules: block light loses 1 a step; sky light at 15 falls straight down through
//!   cells of opacity 0 without loss and loses 1 a step sideways and up; a step into a
//!   cell loses max(1, its opacity). A cell's own emission is its floor.
//! * A cell is 16 bits, `SSSS RRRR GGGG BBBB` ([`pack_light_rgb`]): red, green and blue
//!   block light spread apart, each by the rules above, and mix by the larger of each
//!   channel. An emitter gives each channel its own level ([`CellLook::light_rgb`]: its
//!   level on its brightest channel, gray unless its block states a color).
//! * A block with a light shape ([`CellLook::light_shape`]) stops light across the sides
//!   its model covers, in both directions: a bottom slab passes light up and sideways but
//!   not down (nor up into it from below).
//! * Storage: per brick column (16 × 16 cells, the volume's whole height), bricks of 16³
//!   cells, 8 KiB of light each, and a brick whose cells all hold one value stores that
//!   value alone. Beside the light, each brick keeps its cells' opacity and emission
//!   (`OOOO RRRR GGGG BBBB`, 8 KiB, or one value when uniform) and their light shapes
//!   (4 KiB, or one byte), so a relight never reads the world again, and
//!   each cell column keeps its lowest cell sky reaches unhindered.
//! * Computing: increase and decrease queues of packed integers (window index × 16 +
//!   level for sky; block light's red, green and blue move together in one queue) over a
//!   dense window copied out of the bricks and back, its buffers kept from one window to
//!   the next. Whole columns are lit
//!   as they stream in ([`LightField::light_columns`]: sky from each cell column's
//!   sources, then every emitter, then what lit neighbors already hold across the
//!   border), a tile of up to 8 × 8 brick columns a window. A changed cell is relit
//!   incrementally ([`LightField::set_cell_light`]): what it lit is taken back, then what is
//!   brighter around it fills in again. The field is `&mut` while it lights, so it has
//!   one writer and nothing locks: one light job per volume at a time.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::cell::CellLook;
use super::looks::VoxelLooks;
use super::{ChunkSource, ChunkView};

/// Cells along a brick's edge.
pub const BRICK: usize = 16;
/// Cells in a brick.
pub const BRICK_CELLS: usize = BRICK * BRICK * BRICK;

/// A window's wall: opacity 15, no emission, never written.
const PAD: u16 = 0xF000;
/// Brick columns a tile spans on each horizontal axis.
const TILE: i32 = 8;
/// Most cells a window may hold (queue entries carry the index in 28 bits).
const MAX_WINDOW: usize = 1 << 28;

/// Packs sky light and a gray block light into a cell: `SSSS RRRR GGGG BBBB`.
pub fn pack_light(sky: u8, block: u8) -> u16 {
    let b = u16::from(block & 15);
    (u16::from(sky & 15) << 12) | (b << 8) | (b << 4) | b
}

/// Packs sky light and a colored block light into a cell: `SSSS RRRR GGGG BBBB`.
pub fn pack_light_rgb(sky: u8, rgb: [u8; 3]) -> u16 {
    (u16::from(sky & 15) << 12)
        | (u16::from(rgb[0] & 15) << 8)
        | (u16::from(rgb[1] & 15) << 4)
        | u16::from(rgb[2] & 15)
}

/// A cell's light props as the field keeps them, `OOOO RRRR GGGG BBBB`: opacity, then the
/// red, green and blue levels it gives off.
pub fn pack_props(opacity: u8, rgb: [u8; 3]) -> u16 {
    (u16::from(opacity.min(15)) << 12)
        | (u16::from(rgb[0].min(15)) << 8)
        | (u16::from(rgb[1].min(15)) << 4)
        | u16::from(rgb[2].min(15))
}

/// The props of a gray cell from the one-byte form (opacity in the low four bits,
/// emission in the high): all three channels at its level.
pub fn props_from_byte(p: u8) -> u16 {
    let e = p >> 4;
    pack_props(p & 15, [e, e, e])
}

/// The sides of a light shape, one bit per direction of [`super::FACE_DIRS`] (+X, −X,
/// +Y, −Y, +Z, −Z): the side toward −Y of a bottom slab is [`SHAPE_DOWN`].
pub const SHAPE_UP: u8 = 1 << 2;
/// The −Y side of a light shape (a bottom slab's).
pub const SHAPE_DOWN: u8 = 1 << 3;

/// The sky level and the block light's red, green and blue of a cell.
pub fn unpack_light(v: u16) -> (u8, [u8; 3]) {
    (
        (v >> 12) as u8,
        [((v >> 8) & 15) as u8, ((v >> 4) & 15) as u8, (v & 15) as u8],
    )
}

/// The world as light reads it, in the field's light space (the grid's cells with the
/// up axis turned to Y).
pub trait LightWorld: Sync {
    /// Fills `out` (`size[0] * size[1] * size[2]` bytes, X fastest, then Y, then Z) with
    /// the cells of the box at `min`: opacity in the low four bits, emission in the high
    /// (a colored emitter's brightest channel).
    fn props_box(&self, min: [i32; 3], size: [usize; 3], out: &mut [u8]);

    /// The same box in the field's full form ([`pack_props`]: opacity and the red, green
    /// and blue levels given off). By default each cell of [`LightWorld::props_box`] as a
    /// gray emitter.
    fn props_box_rgb(&self, min: [i32; 3], size: [usize; 3], out: &mut [u16]) {
        let mut bytes = vec![0u8; out.len()];
        self.props_box(min, size, &mut bytes);
        for (o, b) in out.iter_mut().zip(bytes) {
            *o = props_from_byte(b);
        }
    }

    /// Fills `out` with the light shapes of the box's cells ([`SHAPE_UP`], [`SHAPE_DOWN`],
    /// a bit a side) and returns whether any is not 0. By default no cell has one.
    fn shapes_box(&self, min: [i32; 3], size: [usize; 3], out: &mut [u8]) -> bool {
        let _ = (min, size);
        out.fill(0);
        false
    }
}

/// A Y-up grid's chunks read through a volume's looks as a [`LightWorld`].
#[derive(Debug, Clone)]
pub struct ChunkLight<'a, S: ChunkSource + ?Sized> {
    src: &'a S,
    props: Vec<u8>,
    rgb: Vec<u16>,
    shapes: Vec<u8>,
    any_shape: bool,
}

/// A look's full light props ([`pack_props`]).
pub fn look_props(c: &CellLook) -> u16 {
    pack_props(c.opacity, c.light_rgb)
}

impl<'a, S: ChunkSource + ?Sized> ChunkLight<'a, S> {
    /// The light world of `src` with each palette index's opacity, emission and light
    /// shape from `looks` (any index past the palette reads as the unresolved look:
    /// opaque).
    pub fn new(src: &'a S, looks: &VoxelLooks) -> Self {
        let cells = looks.cells(true);
        let props = cells
            .iter()
            .map(|c| (c.opacity.min(15)) | (c.emission.min(15) << 4))
            .collect();
        let rgb = cells.iter().map(look_props).collect();
        let shapes: Vec<u8> = cells.iter().map(|c| c.light_shape & 63).collect();
        let any_shape = shapes.iter().any(|&s| s != 0);
        ChunkLight {
            src,
            props,
            rgb,
            shapes,
            any_shape,
        }
    }

    /// The packed props of palette index `id` (one byte: opacity, and the emission's
    /// brightest channel).
    pub fn props_of(&self, id: u32) -> u8 {
        self.props[(id as usize).min(self.props.len() - 1)]
    }

    /// The full props of palette index `id` ([`pack_props`]), for
    /// [`LightField::set_cell_light`].
    pub fn props_rgb_of(&self, id: u32) -> u16 {
        self.rgb[(id as usize).min(self.rgb.len() - 1)]
    }

    /// The light shape of palette index `id`, for [`LightField::set_cell_light`].
    pub fn shape_of(&self, id: u32) -> u8 {
        self.shapes[(id as usize).min(self.shapes.len() - 1)]
    }

    /// Fills `out` with a per-palette-index table's values over the box.
    fn table_box<T: Copy>(&self, table: &[T], min: [i32; 3], size: [usize; 3], out: &mut [T]) {
        let e = self.src.edge();
        if e == 0 {
            return;
        }
        let ei = e as i32;
        let last = table.len() - 1;
        let c0 = min.map(|v| v.div_euclid(ei));
        let c1 = [0, 1, 2].map(|a| (min[a] + size[a] as i32 - 1).div_euclid(ei));
        for cz in c0[2]..=c1[2] {
            for cy in c0[1]..=c1[1] {
                for cx in c0[0]..=c1[0] {
                    let view = self.src.chunk([cx, cy, cz]);
                    let lo = [cx, cy, cz].map(|c| c * ei);
                    let a = [0, 1, 2].map(|k| lo[k].max(min[k]));
                    let b = [0, 1, 2].map(|k| (lo[k] + ei).min(min[k] + size[k] as i32));
                    let nx = (b[0] - a[0]) as usize;
                    for z in a[2]..b[2] {
                        for y in a[1]..b[1] {
                            let o = (a[0] - min[0]) as usize
                                + size[0]
                                    * ((y - min[1]) as usize + size[1] * (z - min[2]) as usize);
                            let Some(row) = out.get_mut(o..o + nx) else {
                                continue;
                            };
                            match view {
                                ChunkView::Empty => row.fill(table[0]),
                                ChunkView::Uniform(v) => row.fill(table[(v as usize).min(last)]),
                                ChunkView::Cells(c) => {
                                    let s = (a[0] - lo[0]) as usize
                                        + e * ((y - lo[1]) as usize + e * (z - lo[2]) as usize);
                                    match c.get(s..s + nx) {
                                        Some(ids) => {
                                            for (r, &id) in row.iter_mut().zip(ids) {
                                                *r = table[(id as usize).min(last)];
                                            }
                                        }
                                        None => {
                                            for (k, r) in row.iter_mut().enumerate() {
                                                let id = c.get(s + k).copied().unwrap_or(0);
                                                *r = table[(id as usize).min(last)];
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

impl<S: ChunkSource + ?Sized> LightWorld for ChunkLight<'_, S> {
    fn props_box(&self, min: [i32; 3], size: [usize; 3], out: &mut [u8]) {
        self.table_box(&self.props, min, size, out);
    }

    fn props_box_rgb(&self, min: [i32; 3], size: [usize; 3], out: &mut [u16]) {
        self.table_box(&self.rgb, min, size, out);
    }

    fn shapes_box(&self, min: [i32; 3], size: [usize; 3], out: &mut [u8]) -> bool {
        if !self.any_shape {
            out.fill(0);
            return false;
        }
        self.table_box(&self.shapes, min, size, out);
        out.iter().any(|&s| s != 0)
    }
}

/// Copies 16 cells, as one fixed-size move when both sides hold 16.
#[inline]
fn copy16<T: Copy>(dst: &mut [T], src: &[T]) {
    match (
        <&mut [T; 16]>::try_from(&mut *dst),
        <&[T; 16]>::try_from(src),
    ) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => dst.copy_from_slice(src),
    }
}

/// The brick of window cells whose lowest corner is at index `o` (`sy` cells a window
/// row, `ny` rows a window layer): one value when every cell holds it (checked before
/// anything is allocated), else its cells.
fn brick_from<T: Copy + PartialEq + Default + Into<u32>>(
    cells: &[T],
    o: usize,
    sy: usize,
    ny: usize,
) -> Brick<T> {
    let row = |y: usize, z: usize| {
        let s = o + sy * (y + ny * z);
        &cells[s..s + BRICK]
    };
    let first = cells[o];
    // A row at a time, each row's differences from the first cell gathered without a
    // branch (one vector compare, not 16 scalar ones), stopping at the first row that
    // differs.
    let f: u32 = first.into();
    let uniform = (0..BRICK * BRICK).all(|k| {
        row(k % BRICK, k / BRICK)
            .iter()
            .fold(0u32, |a, &v| a | (v.into() ^ f))
            == 0
    });
    if uniform {
        return Brick::Uniform(first);
    }
    let mut b = vec![T::default(); BRICK_CELLS].into_boxed_slice();
    for (k, dst) in b.chunks_exact_mut(BRICK).enumerate() {
        copy16(dst, row(k % BRICK, k / BRICK));
    }
    Brick::Cells(b)
}

/// A brick of cells of `T`: one value, or all 4096.
#[derive(Debug, Clone)]
enum Brick<T: Copy> {
    Uniform(T),
    Cells(Box<[T]>),
}

impl<T: Copy + PartialEq> Brick<T> {
    fn get(&self, i: usize) -> T {
        match self {
            Brick::Uniform(v) => *v,
            Brick::Cells(c) => c[i],
        }
    }

    fn cells_mut(&mut self) -> &mut [T] {
        if let Brick::Uniform(v) = *self {
            *self = Brick::Cells(vec![v; BRICK_CELLS].into_boxed_slice());
        }
        match self {
            Brick::Cells(c) => c,
            Brick::Uniform(_) => unreachable!("expanded above"),
        }
    }
}

#[derive(Debug, Clone)]
struct Column {
    light: Vec<Brick<u16>>,
    props: Vec<Brick<u16>>,
    shapes: Vec<Brick<u8>>,
    /// Per cell column (x + 16 z): the lowest cell sky reaches unhindered (the top of
    /// the volume + 1 when sky reaches none).
    sky_floor: Box<[i32]>,
}

impl Column {
    fn bytes(&self) -> usize {
        let l: usize = self
            .light
            .iter()
            .map(|b| match b {
                Brick::Uniform(_) => 2,
                Brick::Cells(_) => BRICK_CELLS * 2,
            })
            .sum();
        let p: usize = self
            .props
            .iter()
            .map(|b| match b {
                Brick::Uniform(_) => 2,
                Brick::Cells(_) => BRICK_CELLS * 2,
            })
            .sum();
        let s: usize = self
            .shapes
            .iter()
            .map(|b| match b {
                Brick::Uniform(_) => 1,
                Brick::Cells(_) => BRICK_CELLS,
            })
            .sum();
        l + p + s + self.sky_floor.len() * 4
    }
}

/// What a light field holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LightStats {
    /// Brick columns lit.
    pub columns: usize,
    /// Light bricks holding all their cells.
    pub bricks: usize,
    /// Light bricks stored as one value.
    pub uniform_bricks: usize,
    /// Bytes held (light, props, light shapes and sky floors).
    pub bytes: usize,
}

/// A dense box of cells copied out of the field: light, props, light shapes (empty when
/// no cell of the box has one), and the bounding box of what was written.
struct Window {
    min: [i32; 3],
    dims: [usize; 3],
    light: Vec<u16>,
    props: Vec<u16>,
    shape: Vec<u8>,
    dirty_lo: [usize; 3],
    dirty_hi: [usize; 3],
}

impl Window {
    fn new(min: [i32; 3], dims: [usize; 3]) -> Window {
        Window::reuse(min, dims, WindowBuffers::default())
    }

    /// A window in `bufs`' memory: light 0, props the wall, no shapes.
    fn reuse(min: [i32; 3], dims: [usize; 3], mut bufs: WindowBuffers) -> Window {
        let n = dims[0] * dims[1] * dims[2];
        bufs.light.clear();
        bufs.light.resize(n, 0);
        bufs.props.clear();
        bufs.props.resize(n, PAD);
        bufs.shape.clear();
        Window {
            min,
            dims,
            light: bufs.light,
            props: bufs.props,
            shape: bufs.shape,
            dirty_lo: dims,
            dirty_hi: [0; 3],
        }
    }

    /// Gives the buffers back for the next window.
    fn into_buffers(self) -> WindowBuffers {
        WindowBuffers {
            light: self.light,
            props: self.props,
            shape: self.shape,
        }
    }

    /// Gives the window its shape layer (all 0) if it has none yet.
    fn with_shapes(&mut self) {
        if self.shape.is_empty() {
            self.shape.resize(self.light.len(), 0);
        }
    }

    /// Whether light cannot step from cell `a` to its neighbor `b` in direction `d`: a
    /// side either cell's shape covers is between them.
    #[inline]
    fn blocked(&self, a: usize, b: usize, d: usize) -> bool {
        !self.shape.is_empty() && (self.shape[a] >> d | self.shape[b] >> (d ^ 1)) & 1 != 0
    }

    fn strides(&self) -> [isize; 6] {
        let sy = self.dims[0] as isize;
        let sz = sy * self.dims[1] as isize;
        [1, -1, sy, -sy, sz, -sz]
    }

    fn index(&self, cell: [i32; 3]) -> usize {
        let l = [0, 1, 2].map(|a| (cell[a] - self.min[a]) as usize);
        l[0] + self.dims[0] * (l[1] + self.dims[1] * l[2])
    }

    #[inline]
    fn mark(&mut self, idx: usize) {
        let x = idx % self.dims[0];
        let r = idx / self.dims[0];
        let y = r % self.dims[1];
        let z = r / self.dims[1];
        for (a, v) in [x, y, z].into_iter().enumerate() {
            self.dirty_lo[a] = self.dirty_lo[a].min(v);
            self.dirty_hi[a] = self.dirty_hi[a].max(v + 1);
        }
    }
}

/// Which channel a pass moves: sky, or block light's red, green or blue. A cell's light
/// and its props keep a channel in the same four bits (the props' top four are its
/// opacity, where the light keeps sky).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Channel {
    Sky,
    Red,
    Green,
    Blue,
}

impl Channel {
    const BLOCK: [Channel; 3] = [Channel::Red, Channel::Green, Channel::Blue];

    #[inline]
    fn shift(self) -> u32 {
        match self {
            Channel::Sky => 12,
            Channel::Red => 8,
            Channel::Green => 4,
            Channel::Blue => 0,
        }
    }

    #[inline]
    fn get(self, v: u16) -> u8 {
        ((v >> self.shift()) & 15) as u8
    }

    #[inline]
    fn set(self, v: u16, l: u8) -> u16 {
        let s = self.shift();
        (v & !(15 << s)) | (u16::from(l & 15) << s)
    }

    /// What a cell of props `p` gives off on this channel (sky: nothing).
    #[inline]
    fn emission(self, p: u16) -> u8 {
        match self {
            Channel::Sky => 0,
            c => c.get(p),
        }
    }
}

/// A cell's opacity from its props.
#[inline]
fn opacity(p: u16) -> u8 {
    (p >> 12) as u8
}

/// The direction index of −Y in the window strides.
const DOWN: usize = 3;

/// The level a step from a cell at `level` into a cell of opacity `op` arrives with,
/// going in direction `d`.
#[inline]
fn step(ch: Channel, d: usize, level: u8, op: u8) -> u8 {
    if ch == Channel::Sky && d == DOWN && level == 15 && op == 0 {
        15
    } else {
        level.saturating_sub(op.max(1))
    }
}

/// Runs the increase queue `q` over window `w`.
fn increase(w: &mut Window, ch: Channel, q: &mut Vec<u32>, track: bool) {
    let s = w.strides();
    let mut head = 0;
    while head < q.len() {
        let v = q[head];
        head += 1;
        let idx = (v >> 4) as usize;
        let level = (v & 15) as u8;
        if ch.get(w.light[idx]) != level {
            continue;
        }
        for (d, off) in s.iter().enumerate() {
            let n = (idx as isize + off) as usize;
            let p = w.props[n];
            if w.blocked(idx, n, d) {
                continue;
            }
            let new = step(ch, d, level, opacity(p));
            let cur = w.light[n];
            if new > ch.get(cur) {
                w.light[n] = ch.set(cur, new);
                if track {
                    w.mark(n);
                }
                if new > 1 {
                    q.push(((n as u32) << 4) | u32::from(new));
                }
            }
        }
    }
    q.clear();
}

/// Runs an increase queue of block light over window `w`, red, green and blue at once
/// (entries: window index × 16; the low four bits are not read): each cell spreads what
/// it holds now on every channel, a neighbor taking the larger of each. The three
/// channels spread as they would apart, in one pass.
fn increase_rgb(w: &mut Window, q: &mut Vec<u32>, track: bool) {
    let s = w.strides();
    let mut head = 0;
    while head < q.len() {
        let idx = (q[head] >> 4) as usize;
        head += 1;
        let v = w.light[idx];
        let (r, g, b) = ((v >> 8) & 15, (v >> 4) & 15, v & 15);
        let top = r.max(g).max(b);
        if top <= 1 {
            continue;
        }
        for (d, off) in s.iter().enumerate() {
            let n = (idx as isize + off) as usize;
            let loss = u16::from(opacity(w.props[n]).max(1));
            if top <= loss || w.blocked(idx, n, d) {
                continue;
            }
            let cur = w.light[n];
            let nr = r.saturating_sub(loss).max((cur >> 8) & 15);
            let ng = g.saturating_sub(loss).max((cur >> 4) & 15);
            let nb = b.saturating_sub(loss).max(cur & 15);
            let new = (cur & 0xF000) | (nr << 8) | (ng << 4) | nb;
            if new != cur {
                w.light[n] = new;
                if track {
                    w.mark(n);
                }
                if nr.max(ng).max(nb) > 1 {
                    q.push((n as u32) << 4);
                }
            }
        }
    }
    q.clear();
}

/// Runs a decrease queue of block light, red, green and blue at once (entries: window
/// index × 4096 + the levels, `RRRR GGGG BBBB`, the cell had on the channels it was
/// cleared on, 0 on the others): on each channel apart, a neighbor lit through the cell
/// is cleared (to its own emission) and queued in turn, and every neighbor that may
/// light the cleared cells again is queued for `iq` (index × 16). Light shapes are not
/// asked, as in [`decrease`].
fn decrease_rgb(w: &mut Window, dq: &mut Vec<u64>, iq: &mut Vec<u32>) {
    let s = w.strides();
    let mut head = 0;
    while head < dq.len() {
        let e = dq[head];
        head += 1;
        let idx = (e >> 12) as usize;
        let levels = (e & 0x0FFF) as u16;
        for off in s {
            let n = (idx as isize + off) as usize;
            let p = w.props[n];
            if p == PAD {
                continue;
            }
            let cur = w.light[n];
            let mut next = cur;
            let mut cleared = 0u16;
            let mut again = false;
            // Each channel apart, without a branch: a lit channel dimmer than the level
            // cleared is cleared to its emission (the props keep it in the same four
            // bits) and queued again if it gives off light; a lit one at least as
            // bright may light the cleared cells again.
            for ch in Channel::BLOCK {
                let m = 15u16 << ch.shift();
                let (nl, lv) = (cur & m, levels & m);
                let clear = nl != 0 && nl < lv;
                let cm = if clear { m } else { 0 };
                next = (next & !cm) | (p & cm);
                cleared |= cur & cm;
                again |= (nl != 0 && !clear) || p & cm != 0;
            }
            if cleared != 0 {
                w.light[n] = next;
                w.mark(n);
                dq.push(((n as u64) << 12) | u64::from(cleared));
            }
            if again {
                iq.push((n as u32) << 4);
            }
        }
    }
    dq.clear();
}

/// Runs the decrease queue `dq` (entries: index × 16 + the level the cell had), clearing
/// what those cells lit and queuing for `iq` every cell that may light the cleared ones
/// again.
fn decrease(w: &mut Window, ch: Channel, dq: &mut Vec<u32>, iq: &mut Vec<u32>) {
    let s = w.strides();
    let mut head = 0;
    while head < dq.len() {
        let v = dq[head];
        head += 1;
        let idx = (v >> 4) as usize;
        let level = (v & 15) as u8;
        for (d, off) in s.iter().enumerate() {
            let n = (idx as isize + off) as usize;
            let p = w.props[n];
            if p == PAD {
                continue;
            }
            let cur = w.light[n];
            let nl = ch.get(cur);
            if nl == 0 {
                continue;
            }
            // Lit through this cell: a dimmer neighbor, or the sky's lossless fall. Light
            // shapes are not asked: a cell cleared that was lit another way is lit again
            // from its brighter neighbors, which are queued as it is cleared.
            let through =
                nl < level || (ch == Channel::Sky && d == DOWN && level == 15 && opacity(p) == 0);
            if through {
                let em = ch.emission(p);
                w.light[n] = ch.set(cur, em);
                w.mark(n);
                dq.push(((n as u32) << 4) | u32::from(nl));
                if em > 0 {
                    iq.push(((n as u32) << 4) | u32::from(em));
                }
            } else {
                iq.push(((n as u32) << 4) | u32::from(nl));
            }
        }
    }
    dq.clear();
}

/// One brick of a light field ([`LightField::brick`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrickView<'a> {
    /// Every cell holds this light.
    Uniform(u16),
    /// The [`BRICK_CELLS`] cells' light, `x + 16 (y + 16 z)`.
    Cells(&'a [u16]),
}

impl BrickView<'_> {
    /// Writes the brick's cells into `out` (its first [`BRICK_CELLS`] cells, in the
    /// brick's order `x + 16 (y + 16 z)`).
    pub fn copy_to(&self, out: &mut [u16]) {
        match self {
            BrickView::Uniform(v) => out.iter_mut().take(BRICK_CELLS).for_each(|c| *c = *v),
            BrickView::Cells(cells) => out
                .iter_mut()
                .zip(cells.iter())
                .take(BRICK_CELLS)
                .for_each(|(o, c)| *o = *c),
        }
    }
}

/// A volume's light field (one grid's light space).
#[derive(Debug, Clone)]
pub struct LightField {
    y_min: i32,
    bricks_y: usize,
    columns: HashMap<[i32; 2], Column>,
    budget: usize,
    bytes: usize,
    /// The last window's buffers, kept for the next one (light, props, shapes).
    spare: WindowBuffers,
}

/// A window's buffers between two windows, so a tile or a relight reuses memory it
/// already touched.
#[derive(Debug, Clone, Default)]
struct WindowBuffers {
    light: Vec<u16>,
    props: Vec<u16>,
    shape: Vec<u8>,
}

impl LightField {
    /// An empty field over the light-space cells `y_min .. y_min + height` (rounded out
    /// to whole bricks), holding at most `budget_mb` MiB (`client.voxel.lightBudgetMb`;
    /// 0 computes none).
    pub fn new(y_min: i32, height: usize, budget_mb: usize) -> LightField {
        let lo = y_min.div_euclid(BRICK as i32);
        let hi = (y_min + height as i32 + BRICK as i32 - 1).div_euclid(BRICK as i32);
        LightField {
            y_min: lo * BRICK as i32,
            bricks_y: (hi - lo).max(0) as usize,
            columns: HashMap::new(),
            budget: budget_mb.saturating_mul(1 << 20),
            bytes: 0,
            spare: WindowBuffers::default(),
        }
    }

    /// The lowest cell the field covers.
    pub fn y_min(&self) -> i32 {
        self.y_min
    }

    /// Cells the field covers from bottom to top.
    pub fn height(&self) -> usize {
        self.bricks_y * BRICK
    }

    /// Whether brick column `col` (cell / 16 on X and Z) is lit.
    pub fn is_lit(&self, col: [i32; 2]) -> bool {
        self.columns.contains_key(&col)
    }

    /// What the field holds.
    pub fn stats(&self) -> LightStats {
        let mut s = LightStats {
            columns: self.columns.len(),
            bytes: self.bytes,
            ..LightStats::default()
        };
        for c in self.columns.values() {
            for b in &c.light {
                match b {
                    Brick::Uniform(_) => s.uniform_bricks += 1,
                    Brick::Cells(_) => s.bricks += 1,
                }
            }
        }
        s
    }

    /// Drops brick column `col` (its region streamed out). Its neighbors keep the light
    /// it gave them until they are lit again.
    pub fn forget_column(&mut self, col: [i32; 2]) {
        if let Some(c) = self.columns.remove(&col) {
            self.bytes = self.bytes.saturating_sub(c.bytes());
        }
    }

    /// The light of one cell (`SSSS RRRR GGGG BBBB`); `None` where the field has no lit
    /// column. Above the field is open sky (15), below it dark.
    pub fn light_at(&self, cell: [i32; 3]) -> Option<u16> {
        let col = [cell[0].div_euclid(16), cell[2].div_euclid(16)];
        let c = self.columns.get(&col)?;
        let y = cell[1] - self.y_min;
        if y < 0 {
            return Some(0);
        }
        let by = y as usize / BRICK;
        let Some(b) = c.light.get(by) else {
            return Some(pack_light(15, 0));
        };
        let l = [cell[0].rem_euclid(16), y % 16, cell[2].rem_euclid(16)].map(|v| v as usize);
        Some(b.get(l[0] + BRICK * (l[1] + BRICK * l[2])))
    }

    /// The light of brick `brick` (cell / 16 on each axis, light space), as
    /// [`LightField::light_at`] answers for each of its cells: `None` where its column is
    /// not lit; below the field dark, above it open sky, both [`BrickView::Uniform`].
    pub fn brick(&self, brick: [i32; 3]) -> Option<BrickView<'_>> {
        let c = self.columns.get(&[brick[0], brick[2]])?;
        let by = i64::from(brick[1]) - i64::from(self.y_min.div_euclid(BRICK as i32));
        if by < 0 {
            return Some(BrickView::Uniform(0));
        }
        let Some(b) = usize::try_from(by).ok().and_then(|by| c.light.get(by)) else {
            return Some(BrickView::Uniform(pack_light(15, 0)));
        };
        Some(match b {
            Brick::Uniform(v) => BrickView::Uniform(*v),
            Brick::Cells(cells) => BrickView::Cells(cells),
        })
    }

    /// The lowest cell sky reaches unhindered in cell column (`x`, `z`) (the top of the
    /// field + 1 when none); `None` where the column is not lit.
    pub fn sky_floor(&self, x: i32, z: i32) -> Option<i32> {
        let c = self.columns.get(&[x.div_euclid(16), z.div_euclid(16)])?;
        let i = x.rem_euclid(16) as usize + 16 * z.rem_euclid(16) as usize;
        c.sky_floor.get(i).copied()
    }

    /// Lights the brick columns in `cols` that are not lit yet, in the order given, a
    /// tile (8 × 8 brick columns) at a time, until the time `slice` is spent
    /// (`client.voxel.lightSliceMs`; checked between tiles, `None` for no limit) or the
    /// budget is: no farther column is lit once the field holds its budget. Returns how
    /// many columns it lit; the caller calls again with what is left.
    pub fn light_columns(
        &mut self,
        world: &impl LightWorld,
        cols: &[[i32; 2]],
        slice: Option<Duration>,
    ) -> usize {
        let start = Instant::now();
        let mut tiles: Vec<([i32; 2], Vec<[i32; 2]>)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for &c in cols {
            if self.columns.contains_key(&c) || !seen.insert(c) {
                continue;
            }
            let t = [c[0].div_euclid(TILE), c[1].div_euclid(TILE)];
            match tiles.iter_mut().find(|(k, _)| *k == t) {
                Some((_, v)) => v.push(c),
                None => tiles.push((t, vec![c])),
            }
        }
        let mut lit = 0;
        for (_, new) in tiles {
            if self.bricks_y == 0 || self.bytes >= self.budget {
                break;
            }
            if let Some(s) = slice {
                if lit > 0 && start.elapsed() >= s {
                    break;
                }
            }
            lit += self.light_tile(world, &new);
        }
        lit
    }

    /// Loads the lit columns' cells inside the window's interior: per brick column and
    /// brick, its three bricks are matched once and its rows copied (or filled) at
    /// offsets stepped row by row.
    fn load(&self, w: &mut Window, with_light: bool) {
        let d = w.dims;
        let lo = [w.min[0] + 1, w.min[1] + 1, w.min[2] + 1];
        let hi = [
            w.min[0] + d[0] as i32 - 1,
            w.min[1] + d[1] as i32 - 1,
            w.min[2] + d[2] as i32 - 1,
        ];
        let ylo = lo[1].max(self.y_min);
        let yhi = hi[1].min(self.y_min + self.height() as i32);
        let sy = d[0];
        for bz in lo[2].div_euclid(16)..=(hi[2] - 1).div_euclid(16) {
            for bx in lo[0].div_euclid(16)..=(hi[0] - 1).div_euclid(16) {
                let Some(col) = self.columns.get(&[bx, bz]) else {
                    continue;
                };
                let x0 = lo[0].max(bx * 16);
                let x1 = hi[0].min(bx * 16 + 16);
                let z0 = lo[2].max(bz * 16);
                let z1 = hi[2].min(bz * 16 + 16);
                if x0 >= x1 || z0 >= z1 {
                    continue;
                }
                let nx = (x1 - x0) as usize;
                let mut y = ylo;
                while y < yhi {
                    let by = ((y - self.y_min) / 16) as usize;
                    let y_end = yhi.min(self.y_min + 16 * (by as i32 + 1));
                    let rows = (y_end - y) as usize;
                    let (props, shapes, light) = (&col.props[by], &col.shapes[by], &col.light[by]);
                    if !matches!(shapes, Brick::Uniform(0)) {
                        w.with_shapes();
                    }
                    for z in z0..z1 {
                        let o0 = w.index([x0, y, z]);
                        let s0 = (x0 - bx * 16) as usize
                            + BRICK
                                * ((y - self.y_min) as usize % 16 + BRICK * (z - bz * 16) as usize);
                        for r in 0..rows {
                            let (o, s) = (o0 + sy * r, s0 + BRICK * r);
                            match props {
                                Brick::Uniform(v) => w.props[o..o + nx].fill(*v),
                                Brick::Cells(c) => copy16(&mut w.props[o..o + nx], &c[s..s + nx]),
                            }
                            match shapes {
                                Brick::Uniform(0) => {}
                                Brick::Uniform(v) => w.shape[o..o + nx].fill(*v),
                                Brick::Cells(c) => copy16(&mut w.shape[o..o + nx], &c[s..s + nx]),
                            }
                            if with_light {
                                match light {
                                    Brick::Uniform(v) => w.light[o..o + nx].fill(*v),
                                    Brick::Cells(c) => {
                                        copy16(&mut w.light[o..o + nx], &c[s..s + nx])
                                    }
                                }
                            }
                        }
                    }
                    y = y_end;
                }
            }
        }
    }

    /// Writes the window's dirty box back into the lit columns (light only).
    fn store_dirty(&mut self, w: &Window) {
        self.store_box(w, w.dirty_lo, w.dirty_hi);
    }

    /// Writes the window's cells `lo .. hi` (window coordinates) back into the lit
    /// columns (light only).
    fn store_box(&mut self, w: &Window, lo: [usize; 3], hi: [usize; 3]) {
        if (0..3).any(|a| lo[a] >= hi[a]) {
            return;
        }
        let lo = [0, 1, 2].map(|a| w.min[a] + lo[a] as i32);
        let hi = [0, 1, 2].map(|a| w.min[a] + hi[a] as i32);
        let ylo = lo[1].max(self.y_min);
        let yhi = hi[1].min(self.y_min + self.height() as i32);
        let mut grown = 0usize;
        for bz in lo[2].div_euclid(16)..=(hi[2] - 1).div_euclid(16) {
            for bx in lo[0].div_euclid(16)..=(hi[0] - 1).div_euclid(16) {
                let y_min = self.y_min;
                let Some(col) = self.columns.get_mut(&[bx, bz]) else {
                    continue;
                };
                let x0 = lo[0].max(bx * 16);
                let x1 = hi[0].min(bx * 16 + 16);
                let z0 = lo[2].max(bz * 16);
                let z1 = hi[2].min(bz * 16 + 16);
                let nx = (x1 - x0) as usize;
                for z in z0..z1 {
                    for y in ylo..yhi {
                        let by = ((y - y_min) / 16) as usize;
                        let s = (x0 - bx * 16) as usize
                            + BRICK * ((y - y_min) as usize % 16 + BRICK * (z - bz * 16) as usize);
                        let o = w.index([x0, y, z]);
                        let src = &w.light[o..o + nx];
                        let brick = &mut col.light[by];
                        if let Brick::Uniform(v) = brick {
                            if src.iter().all(|x| x == v) {
                                continue;
                            }
                            grown += BRICK_CELLS * 2 - 2;
                        }
                        brick.cells_mut()[s..s + nx].copy_from_slice(src);
                    }
                }
            }
        }
        self.bytes += grown;
    }

    /// Lights the new columns `new` (all in one tile).
    fn light_tile(&mut self, world: &impl LightWorld, new: &[[i32; 2]]) -> usize {
        let h = self.height();
        let bx0 = new.iter().map(|c| c[0]).min().unwrap_or(0);
        let bx1 = new.iter().map(|c| c[0]).max().unwrap_or(0);
        let bz0 = new.iter().map(|c| c[1]).min().unwrap_or(0);
        let bz1 = new.iter().map(|c| c[1]).max().unwrap_or(0);
        // The new columns, 15 cells of their neighbors around, and a wall cell. A side
        // with no lit column beside it (its ring row, corners included) gets the wall
        // alone: unlit neighbors load nothing and stay the wall's cells (opacity 15), so
        // light steps no farther there than into the wall, and the window is 9 times
        // smaller for a column lit alone.
        let lit_beside =
            |x: i32, z: i32| !new.contains(&[x, z]) && self.columns.contains_key(&[x, z]);
        let margin = |lit: bool| if lit { 16 } else { 1 };
        let west = margin((bz0 - 1..=bz1 + 1).any(|z| lit_beside(bx0 - 1, z)));
        let east = margin((bz0 - 1..=bz1 + 1).any(|z| lit_beside(bx1 + 1, z)));
        let north = margin((bx0 - 1..=bx1 + 1).any(|x| lit_beside(x, bz0 - 1)));
        let south = margin((bx0 - 1..=bx1 + 1).any(|x| lit_beside(x, bz1 + 1)));
        let min = [bx0 * 16 - west, self.y_min - 1, bz0 * 16 - north];
        let dims = [
            ((bx1 - bx0 + 1) * 16 + west + east) as usize,
            h + 2,
            ((bz1 - bz0 + 1) * 16 + north + south) as usize,
        ];
        if dims[0] * dims[1] * dims[2] >= MAX_WINDOW {
            return 0;
        }
        let mut w = Window::reuse(min, dims, std::mem::take(&mut self.spare));
        self.load(&mut w, true);
        // The new columns' props from the world.
        let mut buf = vec![0u16; BRICK * h * BRICK];
        let mut sbuf = vec![0u8; BRICK * h * BRICK];
        // The cells that give off light, found as the props are copied in.
        let mut emitters: Vec<u32> = Vec::new();
        let sy = dims[0];
        for c in new {
            let at = [c[0] * 16, self.y_min, c[1] * 16];
            world.props_box_rgb(at, [BRICK, h, BRICK], &mut buf);
            if world.shapes_box(at, [BRICK, h, BRICK], &mut sbuf) {
                w.with_shapes();
                for z in 0..BRICK {
                    let o0 = w.index([c[0] * 16, self.y_min, c[1] * 16 + z as i32]);
                    for (y, from) in sbuf[BRICK * h * z..BRICK * h * (z + 1)]
                        .chunks_exact(BRICK)
                        .enumerate()
                    {
                        let o = o0 + sy * y;
                        copy16(&mut w.shape[o..o + BRICK], from);
                    }
                }
            } else if !w.shape.is_empty() {
                for z in 0..BRICK {
                    let o0 = w.index([c[0] * 16, self.y_min, c[1] * 16 + z as i32]);
                    for y in 0..h {
                        let o = o0 + sy * y;
                        w.shape[o..o + BRICK].fill(0);
                    }
                }
            }
            for z in 0..BRICK {
                let o0 = w.index([c[0] * 16, self.y_min, c[1] * 16 + z as i32]);
                for (y, from) in buf[BRICK * h * z..BRICK * h * (z + 1)]
                    .chunks_exact(BRICK)
                    .enumerate()
                {
                    let o = o0 + sy * y;
                    copy16(&mut w.props[o..o + BRICK], from);
                    if from.iter().fold(0, |a, &b| a | b) & 0x0FFF != 0 {
                        for (k, &b) in from.iter().enumerate() {
                            if b & 0x0FFF != 0 {
                                emitters.push((o + k) as u32);
                            }
                        }
                    }
                }
            }
        }
        let is_new = |bx: i32, bz: i32| new.contains(&[bx, bz]);
        let top = self.y_min + h as i32 - 1;
        let mut floors: HashMap<[i32; 2], Vec<i32>> = HashMap::new();
        let mut q: Vec<u32> = Vec::new();
        // Sky: each new cell column's run from the top, a layer of the column at a time
        // (each cell column stops at its first cell of any opacity).
        for c in new {
            let mut fl = vec![top + 1; 256];
            // Per row of the column (lz), a bit per cell (lx): the runs still falling,
            // and those whose lowest cell so far covers its −Y side.
            let mut open = [0xFFFFu16; 16];
            let mut down = [0u16; 16];
            let shaped = !w.shape.is_empty();
            let mut y = top;
            while y >= self.y_min && open.iter().any(|&m| m != 0) {
                for lz in 0..16 {
                    let m = open[lz];
                    if m == 0 {
                        continue;
                    }
                    let o = w.index([c[0] * 16, y, c[1] * 16 + lz as i32]);
                    let props = &w.props[o..o + 16];
                    // A row with no opacity anywhere (air, most rows above the ground)
                    // is found with one vector OR; only other rows are looked at a cell
                    // at a time.
                    let mut stop = if props.iter().fold(0u16, |a, &p| a | p) & 0xF000 == 0 {
                        0
                    } else {
                        props
                            .iter()
                            .enumerate()
                            .fold(0u16, |a, (k, &p)| a | (u16::from(opacity(p) != 0) << k))
                    };
                    let mut covers_down = 0u16;
                    if shaped {
                        for (k, &sh) in w.shape[o..o + 16].iter().enumerate() {
                            stop |= u16::from(sh & SHAPE_UP != 0) << k;
                            covers_down |= u16::from(sh & SHAPE_DOWN != 0) << k;
                        }
                    }
                    // A run does not fall out of a cell covering its −Y side.
                    let blocked_above = down[lz];
                    let stop = (stop | blocked_above) & m;
                    let go = m & !stop;
                    let row = &mut w.light[o..o + 16];
                    if go == 0xFFFF {
                        for v in row.iter_mut() {
                            *v |= 0xF000;
                        }
                    } else {
                        let mut g = go;
                        while g != 0 {
                            let k = g.trailing_zeros() as usize;
                            g &= g - 1;
                            row[k] |= 0xF000;
                        }
                    }
                    let mut st = stop;
                    while st != 0 {
                        let k = st.trailing_zeros() as usize;
                        st &= st - 1;
                        let idx = o + k;
                        let enters = blocked_above & (1 << k) == 0
                            && w.shape.get(idx).is_none_or(|&sh| sh & SHAPE_UP == 0);
                        let l = 15u8.saturating_sub(opacity(w.props[idx]).max(1));
                        if l > 0 && y == top && enters {
                            w.light[idx] = Channel::Sky.set(w.light[idx], l);
                            if l > 1 {
                                q.push(((idx as u32) << 4) | u32::from(l));
                            }
                        }
                        fl[k + 16 * lz] = y + 1;
                    }
                    open[lz] = go;
                    down[lz] = covers_down & go;
                }
                y -= 1;
            }
            for (lz, &m) in open.iter().enumerate() {
                for k in 0..16 {
                    if m & (1 << k) != 0 {
                        fl[k + 16 * lz] = self.y_min;
                    }
                }
            }
            floors.insert(*c, fl);
        }
        // A brick column's sky floors: the new columns' just found, else a lit column's.
        let floors_at = |k: [i32; 2]| -> Option<&[i32]> {
            match floors.get(&k) {
                Some(f) => Some(f.as_slice()),
                None => self.columns.get(&k).map(|c| &c.sky_floor[..]),
            }
        };
        // Seeds: the run cells beside a lower neighbor, and each run's bottom. The five
        // brick columns a column's cells read (its own and its four sides) are looked up
        // once per column, not once per cell.
        const SIDES: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        for c in new {
            let Some(here) = floors_at(*c) else {
                continue;
            };
            let sides = SIDES.map(|(dx, dz)| floors_at([c[0] + dx, c[1] + dz]));
            for lz in 0..16 {
                for lx in 0..16 {
                    let x = c[0] * 16 + lx;
                    let z = c[1] * 16 + lz;
                    let Some(&f) = here.get((lx + 16 * lz) as usize) else {
                        continue;
                    };
                    if f > top {
                        continue;
                    }
                    let mut hi = f + 1;
                    for (&(dx, dz), side) in SIDES.iter().zip(&sides) {
                        let (nx, nz) = (lx + dx, lz + dz);
                        let nf = if (0..16).contains(&nx) && (0..16).contains(&nz) {
                            here.get((nx + 16 * nz) as usize)
                        } else {
                            side.and_then(|f| {
                                f.get((nx.rem_euclid(16) + 16 * nz.rem_euclid(16)) as usize)
                            })
                        };
                        if let Some(&nf) = nf {
                            hi = hi.max(nf.min(top + 1));
                        }
                    }
                    for y in f..hi {
                        let idx = w.index([x, y, z]);
                        q.push(((idx as u32) << 4) | 15);
                    }
                }
            }
        }
        // What lit neighbors hold across the border.
        let mut bq: Vec<u32> = Vec::new();
        for c in new {
            for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (nx, nz) = (c[0] + dx, c[1] + dz);
                if is_new(nx, nz) || !self.columns.contains_key(&[nx, nz]) {
                    continue;
                }
                for k in 0..16 {
                    let (x, z) = match (dx, dz) {
                        (1, _) => (nx * 16, c[1] * 16 + k),
                        (-1, _) => (nx * 16 + 15, c[1] * 16 + k),
                        (_, 1) => (c[0] * 16 + k, nz * 16),
                        _ => (c[0] * 16 + k, nz * 16 + 15),
                    };
                    for y in self.y_min..=top {
                        let idx = w.index([x, y, z]);
                        let v = w.light[idx];
                        let s = Channel::Sky.get(v);
                        if s > 1 {
                            q.push(((idx as u32) << 4) | u32::from(s));
                        }
                        if Channel::BLOCK.iter().any(|ch| ch.get(v) > 1) {
                            bq.push((idx as u32) << 4);
                        }
                    }
                }
            }
        }
        increase(&mut w, Channel::Sky, &mut q, false);
        // Emitters.
        for idx in emitters {
            let idx = idx as usize;
            let mut lit = false;
            for ch in Channel::BLOCK {
                let em = ch.emission(w.props[idx]);
                if em > ch.get(w.light[idx]) {
                    w.light[idx] = ch.set(w.light[idx], em);
                    lit = true;
                }
            }
            if lit {
                bq.push((idx as u32) << 4);
            }
        }
        increase_rgb(&mut w, &mut bq, false);
        // Store the new columns whole.
        for c in new {
            let mut col = Column {
                light: Vec::with_capacity(self.bricks_y),
                props: Vec::with_capacity(self.bricks_y),
                shapes: Vec::with_capacity(self.bricks_y),
                sky_floor: floors
                    .remove(c)
                    .unwrap_or_else(|| vec![top + 1; 256])
                    .into_boxed_slice(),
            };
            for by in 0..self.bricks_y {
                let cy = self.y_min + (by * 16) as i32;
                let o = w.index([c[0] * 16, cy, c[1] * 16]);
                col.light.push(brick_from(&w.light, o, sy, dims[1]));
                col.props.push(brick_from(&w.props, o, sy, dims[1]));
                col.shapes.push(if w.shape.is_empty() {
                    Brick::Uniform(0)
                } else {
                    brick_from(&w.shape, o, sy, dims[1])
                });
            }
            self.bytes += col.bytes();
            self.columns.insert(*c, col);
        }
        // The ring: lit neighbors took light from the new columns.
        self.store_ring(&w, new);
        self.spare = w.into_buffers();
        new.len()
    }

    /// Stores the window's light into the lit columns around `new` (not `new` itself).
    fn store_ring(&mut self, w: &Window, new: &[[i32; 2]]) {
        let mut ring: Vec<[i32; 2]> = Vec::new();
        for c in new {
            for dz in -1..=1 {
                for dx in -1..=1 {
                    let k = [c[0] + dx, c[1] + dz];
                    if !new.contains(&k) && self.columns.contains_key(&k) && !ring.contains(&k) {
                        ring.push(k);
                    }
                }
            }
        }
        for k in ring {
            let mut sub = Window::new([0; 3], [0; 3]);
            // Only the part of the window inside this column.
            for (a, lo, hi) in [
                (0usize, k[0] * 16, k[0] * 16 + 16),
                (2, k[1] * 16, k[1] * 16 + 16),
            ] {
                let wl = w.min[a] + 1;
                let wh = w.min[a] + w.dims[a] as i32 - 1;
                sub.dirty_lo[a] = (lo.max(wl) - w.min[a]).max(0) as usize;
                sub.dirty_hi[a] = (hi.min(wh) - w.min[a]).max(0) as usize;
            }
            sub.dirty_lo[1] = 1;
            sub.dirty_hi[1] = w.dims[1] - 1;
            if sub.dirty_lo[0] >= sub.dirty_hi[0] || sub.dirty_lo[2] >= sub.dirty_hi[2] {
                continue;
            }
            self.store_box(w, sub.dirty_lo, sub.dirty_hi);
        }
    }

    /// Relights after cell `cell` (light space) changed to `props` (opacity in the low
    /// four bits, emission in the high; [`ChunkLight::props_of`] gives a palette entry's),
    /// a gray emitter with no light shape: [`LightField::set_cell_light`].
    pub fn set_cell(&mut self, cell: [i32; 3], props: u8) -> bool {
        self.set_cell_light(cell, props_from_byte(props), 0)
    }

    /// Relights after cell `cell` (light space) changed to `props` ([`pack_props`]:
    /// opacity and the red, green and blue levels it gives off;
    /// [`ChunkLight::props_rgb_of`] gives a palette entry's) and light shape `shape`
    /// ([`ChunkLight::shape_of`]): what the cell lit is taken back, then what is brighter
    /// around it fills in again. Returns false, and changes nothing, when the cell's
    /// column is not lit or the cell is outside the field (the new cell is read when its
    /// column is lit).
    pub fn set_cell_light(&mut self, cell: [i32; 3], props: u16, shape: u8) -> bool {
        let shape = shape & 63;
        let col_key = [cell[0].div_euclid(16), cell[2].div_euclid(16)];
        let y = cell[1] - self.y_min;
        if y < 0 || y as usize >= self.height() {
            return false;
        }
        let by = y as usize / BRICK;
        let li = cell[0].rem_euclid(16) as usize
            + BRICK * (y as usize % 16 + BRICK * cell[2].rem_euclid(16) as usize);
        let Some(col) = self.columns.get_mut(&col_key) else {
            return false;
        };
        let old = col.props[by].get(li);
        let old_shape = col.shapes[by].get(li);
        if old == props && old_shape == shape {
            return true;
        }
        let mut grown = 0;
        if old != props {
            if matches!(col.props[by], Brick::Uniform(_)) {
                grown += 2 * BRICK_CELLS - 2;
            }
            col.props[by].cells_mut()[li] = props;
        }
        if old_shape != shape {
            if matches!(col.shapes[by], Brick::Uniform(_)) {
                grown += BRICK_CELLS - 1;
            }
            col.shapes[by].cells_mut()[li] = shape;
        }
        self.bytes += grown;
        let sky_changes = opacity(old) != opacity(props) || old_shape != shape;
        let top = self.y_min + self.height() as i32 - 1;
        // The window: 15 cells around (and a wall); the whole height below when the
        // opacity or the shape changed, since sky falls without loss.
        let (ylo, yhi) = if sky_changes {
            (self.y_min - 1, (cell[1] + 16).min(top + 1))
        } else {
            (
                (cell[1] - 16).max(self.y_min - 1),
                (cell[1] + 16).min(top + 1),
            )
        };
        let min = [cell[0] - 16, ylo, cell[2] - 16];
        let dims = [33, (yhi - ylo + 1) as usize, 33];
        let mut w = Window::reuse(min, dims, std::mem::take(&mut self.spare));
        self.load(&mut w, true);
        let c = w.index(cell);
        let s = w.strides();
        let mut dq: Vec<u32> = Vec::new();
        let mut iq: Vec<u32> = Vec::new();
        // Block light: red, green and blue taken back together, then spread back in
        // together.
        let mut bdq: Vec<u64> = Vec::new();
        let old_rgb = w.light[c] & 0x0FFF;
        if old_rgb != 0 {
            w.light[c] &= 0xF000;
            w.mark(c);
            bdq.push(((c as u64) << 12) | u64::from(old_rgb));
        }
        decrease_rgb(&mut w, &mut bdq, &mut iq);
        let cur = w.light[c];
        let lit = Channel::BLOCK
            .iter()
            .fold(cur, |v, ch| ch.set(v, ch.get(v).max(ch.emission(props))));
        if lit != cur {
            w.light[c] = lit;
            w.mark(c);
            iq.push((c as u32) << 4);
        }
        for (d, off) in s.into_iter().enumerate() {
            let n = (c as isize + off) as usize;
            let v = w.light[n];
            if Channel::BLOCK.iter().any(|ch| ch.get(v) > 1) && !w.blocked(n, c, d ^ 1) {
                iq.push((n as u32) << 4);
            }
        }
        increase_rgb(&mut w, &mut iq, true);
        if sky_changes {
            let ch = Channel::Sky;
            let cur = w.light[c];
            let old_l = ch.get(cur);
            if old_l > 0 {
                w.light[c] = ch.set(cur, 0);
                w.mark(c);
                dq.push(((c as u32) << 4) | u32::from(old_l));
            }
            decrease(&mut w, ch, &mut dq, &mut iq);
            if cell[1] == top && shape & SHAPE_UP == 0 {
                // The top cell takes the sky straight from above.
                let op = opacity(props);
                let l = if op == 0 {
                    15
                } else {
                    15u8.saturating_sub(op.max(1))
                };
                if l > ch.get(w.light[c]) {
                    w.light[c] = ch.set(w.light[c], l);
                    w.mark(c);
                    if l > 1 {
                        iq.push(((c as u32) << 4) | u32::from(l));
                    }
                }
            }
            for (d, off) in s.into_iter().enumerate() {
                let n = (c as isize + off) as usize;
                let nl = ch.get(w.light[n]);
                if nl > 1 && !w.blocked(n, c, d ^ 1) {
                    iq.push(((n as u32) << 4) | u32::from(nl));
                }
            }
            increase(&mut w, ch, &mut iq, true);
        }
        if sky_changes {
            // The column's sky floor: the run from the top is whole down to the cell (or
            // to the run's bottom just under it), so it is walked again from the cell
            // down; a cell under the run's bottom changes nothing.
            let i = cell[0].rem_euclid(16) as usize + 16 * cell[2].rem_euclid(16) as usize;
            let f = self
                .columns
                .get(&col_key)
                .and_then(|c| c.sky_floor.get(i).copied())
                .unwrap_or(top + 1);
            let nf = if cell[1] >= f - 1 {
                let shape_at = |idx: isize| w.shape.get(idx as usize).copied().unwrap_or(0);
                let mut above = if cell[1] == top {
                    0
                } else {
                    shape_at(c as isize + s[2])
                };
                let mut yy = cell[1];
                let mut idx = c as isize;
                while yy >= self.y_min {
                    let sh = shape_at(idx);
                    let enters = above & SHAPE_DOWN == 0 && sh & SHAPE_UP == 0;
                    if opacity(w.props[idx as usize]) != 0 || !enters {
                        break;
                    }
                    above = sh;
                    yy -= 1;
                    idx -= s[2];
                }
                yy + 1
            } else {
                f
            };
            if let Some(col) = self.columns.get_mut(&col_key) {
                if let Some(fl) = col.sky_floor.get_mut(i) {
                    *fl = nf;
                }
            }
        }
        self.store_dirty(&w);
        self.spare = w.into_buffers();
        true
    }
}

/// A straightforward reference: the light of every cell of the box at `min` of `size`
/// cells (X fastest, then Y, then Z), walls all around and open sky above, found by
/// relaxing every cell against its six neighbors until nothing changes. For tests.
pub fn reference_light(world: &impl LightWorld, min: [i32; 3], size: [usize; 3]) -> Vec<u16> {
    let n = size[0] * size[1] * size[2];
    let mut props = vec![0u8; n];
    world.props_box(min, size, &mut props);
    let idx = |x: usize, y: usize, z: usize| x + size[0] * (y + size[1] * z);
    let mut sky = vec![0u8; n];
    let mut block: Vec<u8> = props.iter().map(|p| p >> 4).collect();
    loop {
        let mut changed = false;
        for z in 0..size[2] {
            for y in (0..size[1]).rev() {
                for x in 0..size[0] {
                    let i = idx(x, y, z);
                    let op = props[i] & 15;
                    let loss = op.max(1);
                    // Sky: from above (or the open sky over the top).
                    let above = if y + 1 == size[1] {
                        15
                    } else {
                        sky[idx(x, y + 1, z)]
                    };
                    let mut s = if above == 15 && op == 0 {
                        15
                    } else {
                        above.saturating_sub(loss)
                    };
                    let mut b = props[i] >> 4;
                    let mut nbs: Vec<usize> = Vec::with_capacity(5);
                    if x > 0 {
                        nbs.push(idx(x - 1, y, z));
                    }
                    if x + 1 < size[0] {
                        nbs.push(idx(x + 1, y, z));
                    }
                    if y > 0 {
                        nbs.push(idx(x, y - 1, z));
                    }
                    if z > 0 {
                        nbs.push(idx(x, y, z - 1));
                    }
                    if z + 1 < size[2] {
                        nbs.push(idx(x, y, z + 1));
                    }
                    if y + 1 < size[1] {
                        b = b.max(block[idx(x, y + 1, z)].saturating_sub(loss));
                    }
                    for j in nbs {
                        s = s.max(sky[j].saturating_sub(loss));
                        b = b.max(block[j].saturating_sub(loss));
                    }
                    if s != sky[i] || b != block[i] {
                        sky[i] = s;
                        block[i] = b;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|i| pack_light(sky[i], block[i])).collect()
}
