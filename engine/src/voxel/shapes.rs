//! Block shapes for collision (spec `dh.voxel`, "Block shapes"): what a solid block of
//! the workspace's platform pallet collides as, read from its `blocks/<id>.dh-block`.
//!
//! * `collision: "cube"` (or a shape whose one box is the whole block): a whole cube,
//!   left on the cooker's cube fast path;
//! * `collision: "none"`: not solid after all;
//! * boxes `[x0, y0, z0, x1, y1, z1]` in 1/16 block: those boxes;
//! * `collision: "model"`, or no `collision` at all (the spec's "the model's elements
//!   where it states none"): the elements of the model the entry's rules pick, turned by
//!   the same rule the drawn model is: the first rule whose `when` holds (every one that
//!   holds for a multipart block), each rule's first choice (collision takes no weighted
//!   pick: the choices of one rule are the same shape in every pallet we know, and a
//!   cell's collision must not depend on a hash), its `x` turn and then its `y` turn, as
//!   Minecraft turns a variant ([`turn_box`]). An element's own rotation is taken as the
//!   axis-aligned box around the turned element.
//!
//! `collisionHeight` then raises every box's top to that height (a fence post and its
//! arms stand a block and a half). Solid or not is still the block table's: the shape of
//! a block the table calls passable is never read.
//!
//! The reader is ours, small and separate from the drawing's model baker on purpose (the
//! two are folded together at merge); it parses each block once per palette resolve.

use std::collections::HashMap;

use dh_content::pallet::Pallet;
use dh_content::schema::block::{parse_block_def, Axis, BlockDef, Collision, Element};
use dh_content::voxel::blocks::block_path;
use dh_content::voxel::payload::PaletteEntry;

/// The most boxes one block's shape keeps (Minecraft's largest, a wall with four arms,
/// has five; the cap bounds what a hostile pallet can make one cell cost).
pub const MAX_SHAPE_BOXES: usize = 64;

/// One collision box in block units (`0..1` is the cell), `[x0, y0, z0, x1, y1, z1]`.
pub type ShapeBox = [f32; 6];

/// What a solid block of the pallet collides as.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockShape {
    /// A whole cube: the cube fast path.
    Cube,
    /// Nothing: the pallet says it is not solid after all.
    Empty,
    /// These boxes (never empty, at most [`MAX_SHAPE_BOXES`]).
    Boxes(Vec<ShapeBox>),
}

/// Turns a box given in 1/16 block by a blockstate choice's `x` then `y` turn (degrees,
/// multiples of 90), about the block's middle, as Minecraft turns a variant: `x` 90 takes
/// north (−Z) to down (−Y), `y` 90 takes north to east (+X), east to south (+Z). Any other
/// angle turns nothing (the schema refuses them).
pub fn turn_box(b: [f64; 6], x: i32, y: i32) -> [f64; 6] {
    let mut lo = [b[0], b[1], b[2]];
    let mut hi = [b[3], b[4], b[5]];
    let quarter = |deg: i32| deg.rem_euclid(360) / 90;
    // About X: (y, z) -> (z, 16 - y), once per quarter.
    for _ in 0..quarter(x) {
        let (l, h) = (lo, hi);
        lo = [l[0], l[2], 16.0 - h[1]];
        hi = [h[0], h[2], 16.0 - l[1]];
    }
    // About Y: (x, z) -> (16 - z, x), once per quarter.
    for _ in 0..quarter(y) {
        let (l, h) = (lo, hi);
        lo = [16.0 - h[2], l[1], l[0]];
        hi = [16.0 - l[2], h[1], h[0]];
    }
    [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
}

/// An element's box in 1/16 block: `from`..`to`, or for an element with its own turn the
/// axis-aligned box around its turned corners.
pub fn element_box(e: &Element) -> [f64; 6] {
    let (f, t) = (e.from.0, e.to.0);
    let mut lo = [f[0].min(t[0]), f[1].min(t[1]), f[2].min(t[2])];
    let mut hi = [f[0].max(t[0]), f[1].max(t[1]), f[2].max(t[2])];
    let Some(r) = &e.rotation else {
        return [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
    };
    let a = r.angle.to_radians();
    if a == 0.0 || !a.is_finite() {
        return [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
    }
    let (s, c) = a.sin_cos();
    let o = r.origin.0;
    let (i, j) = match r.axis {
        Axis::X => (1, 2),
        Axis::Y => (2, 0),
        Axis::Z => (0, 1),
    };
    let corners: Vec<[f64; 3]> = (0..8)
        .map(|k| {
            let p = [0, 1, 2].map(|ax| if k >> ax & 1 == 1 { hi[ax] } else { lo[ax] });
            let (u, v) = (p[i] - o[i], p[j] - o[j]);
            let mut q = p;
            q[i] = o[i] + u * c - v * s;
            q[j] = o[j] + u * s + v * c;
            q
        })
        .collect();
    for ax in 0..3 {
        lo[ax] = corners.iter().map(|p| p[ax]).fold(f64::INFINITY, f64::min);
        hi[ax] = corners
            .iter()
            .map(|p| p[ax])
            .fold(f64::NEG_INFINITY, f64::max);
    }
    [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
}

/// Boxes in 1/16 block to [`BlockShape`]: each raised to `height` (when given), clamped
/// to Minecraft's element range (−16..32), degenerate ones dropped; one box that is the
/// whole block is the cube.
pub fn shape_of_boxes(boxes: &[[f64; 6]], height: Option<f64>) -> BlockShape {
    let mut out: Vec<ShapeBox> = Vec::new();
    for b in boxes.iter().take(MAX_SHAPE_BOXES) {
        let mut b = b.map(|v| {
            if v.is_finite() {
                v.clamp(-16.0, 32.0)
            } else {
                0.0
            }
        });
        if let Some(h) = height.filter(|h| h.is_finite()) {
            b[4] = b[4].max(h.clamp(-16.0, 32.0));
        }
        if b[3] <= b[0] || b[4] <= b[1] || b[5] <= b[2] {
            continue;
        }
        out.push(b.map(|v| (v / 16.0) as f32));
    }
    if out.is_empty() {
        return BlockShape::Empty;
    }
    if out.contains(&[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]) {
        return BlockShape::Cube;
    }
    BlockShape::Boxes(out)
}

/// The shape `def` gives an entry whose property `k` reads `prop(k)`.
pub fn block_shape(def: &BlockDef, prop: &dyn Fn(&str) -> Option<String>) -> BlockShape {
    let height = def.collision_height;
    match def.collision.as_ref() {
        Some(Collision::Cube) => match height {
            Some(_) => shape_of_boxes(&[[0.0, 0.0, 0.0, 16.0, 16.0, 16.0]], height),
            None => BlockShape::Cube,
        },
        Some(Collision::None) => BlockShape::Empty,
        Some(Collision::Boxes(b)) => shape_of_boxes(b, height),
        Some(Collision::Model) | None => {
            let mut boxes = Vec::new();
            for rule in def.matching(prop) {
                let Some(choice) = rule.apply.first() else {
                    continue;
                };
                let Some(model) = def.models.as_ref().and_then(|m| m.get(&choice.model)) else {
                    continue;
                };
                for e in &model.elements {
                    let b = element_box(e);
                    boxes.push(turn_box(b, choice.x.unwrap_or(0), choice.y.unwrap_or(0)));
                }
            }
            shape_of_boxes(&boxes, height)
        }
    }
}

/// The platform pallet's shapes, as collision reads them: each block's definition parsed
/// once (on first use) and kept for the palette's resolve.
pub struct PalletShapes<'a> {
    pallet: &'a Pallet,
    namespace: String,
    defs: HashMap<String, Option<BlockDef>>,
    notes: Vec<String>,
}

impl<'a> PalletShapes<'a> {
    /// Shapes from `pallet`, answering for entries of `namespace` (`minecraft`).
    pub fn new(pallet: &'a Pallet, namespace: &str) -> PalletShapes<'a> {
        PalletShapes {
            pallet,
            namespace: namespace.to_string(),
            defs: HashMap::new(),
            notes: Vec::new(),
        }
    }

    /// The pallet's id.
    pub fn pallet_id(&self) -> &str {
        &self.pallet.manifest().id
    }

    /// The shape of `entry`, or `None` when the pallet does not name the block (it is a
    /// whole cube, as without the pallet). A definition that does not read is noted once
    /// ([`PalletShapes::take_notes`]) and collides as a cube.
    pub fn shape(&mut self, entry: &PaletteEntry) -> Option<BlockShape> {
        if entry.ns != self.namespace {
            return None;
        }
        if !self.defs.contains_key(&entry.id) {
            let def = self.read(&entry.id);
            self.defs.insert(entry.id.clone(), def);
        }
        let def = self.defs.get(&entry.id)?.as_ref()?;
        let prop = |k: &str| {
            entry
                .properties
                .iter()
                .find(|p| p.key == k)
                .map(|p| super::cell::prop_text(&p.value))
        };
        Some(block_shape(def, &prop))
    }

    fn read(&mut self, id: &str) -> Option<BlockDef> {
        let path = block_path(id);
        self.pallet.entry(&path)?;
        let who = format!("{}:{path}", self.pallet.manifest().id);
        let bytes = match self.pallet.read(&path) {
            Ok(b) => b,
            Err(e) => {
                self.notes
                    .push(format!("{who}: does not read ({e}); it collides as a cube"));
                return None;
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            self.notes
                .push(format!("{who}: is not UTF-8 text; it collides as a cube"));
            return None;
        };
        match parse_block_def(&path, text) {
            Ok(d) => Some(d),
            Err(d) => {
                self.notes.push(format!(
                    "{who}: does not read as a dh.block ({d}); it collides as a cube"
                ));
                None
            }
        }
    }

    /// What went wrong reading definitions since the last call (each block once).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

// ── The server's pallet rule ────────────────────────────────────────────

/// What the server's build recorded of one platform pallet (its map's `.platforms`
/// companion, [`dh_content::compile::platforms`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerPallet {
    /// The map records nothing of it (an older build): the client keeps its own.
    Unnamed,
    /// The server had no such pallet: its blocks are whole cubes.
    None,
    /// The server read a pallet of this block fingerprint.
    Blocks(String),
}

/// A fingerprint as the log shows it: its first four hex digits and an ellipsis.
pub fn short_fingerprint(hex: &str) -> String {
    let head: String = hex.chars().take(4).collect();
    format!("{head}...")
}

/// A platform pallet's version as the log shows it: the game's own (`26.1.0` is `26.1`,
/// as the importer writes a two-part game version with a `.0` patch; `1.21.4` as is).
pub fn shown_version(manifest_version: &str) -> &str {
    match manifest_version.strip_suffix(".0") {
        Some(v) if manifest_version.split('.').count() == 3 => v,
        _ => manifest_version,
    }
}

/// Whether this machine's platform pallet `local` (its id, shown version, fingerprint,
/// display name) shapes collision under the server's record, and the line the load log
/// says (spec "The server's pallet rules"): a fingerprint that differs is said loudly and
/// the client's own pallet predicts anyway; a server with no pallet has whole cubes, so
/// the client sets its own aside and predicts cubes, and says so; a record naming nothing
/// keeps the client's own, silently.
pub fn pallet_rule(
    id: &str,
    name: &str,
    version: &str,
    local_blocks: &str,
    server: &ServerPallet,
) -> (bool, Option<String>) {
    let ours = format!(
        "this machine's '{id}' pallet ({}) (blocks {})",
        shown_version(version),
        short_fingerprint(local_blocks)
    );
    match server {
        ServerPallet::Unnamed => (true, None),
        ServerPallet::None => (
            false,
            Some(format!(
                "PLATFORM PALLET SET ASIDE: the server has no '{id}' pallet, so its blocks are whole cubes; {ours} is set aside and every solid block predicts as a whole cube here too"
            )),
        ),
        ServerPallet::Blocks(theirs) if theirs.eq_ignore_ascii_case(local_blocks) => (true, None),
        ServerPallet::Blocks(theirs) => (
            true,
            Some(format!(
                "PLATFORM PALLET MISMATCH: {ours} differs from the server's (blocks {}): block shapes may predict differently here, and the server's win. Generate both from the same {name} version",
                short_fingerprint(theirs)
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_cases_of_the_servers_pallet_rule() {
        let local = "3f2a9d00";
        // The spec's own line, word for word, from its own numbers.
        let (own, line) = pallet_rule(
            "com.mojang.minecraft",
            "Minecraft",
            "26.1.0",
            local,
            &ServerPallet::Blocks("9c41ee11".into()),
        );
        assert!(own);
        assert_eq!(
            line.as_deref(),
            Some("PLATFORM PALLET MISMATCH: this machine's 'com.mojang.minecraft' pallet (26.1) (blocks 3f2a...) differs from the server's (blocks 9c41...): block shapes may predict differently here, and the server's win. Generate both from the same Minecraft version")
        );
        let same = ServerPallet::Blocks(local.into());
        assert_eq!(pallet_rule("p", "P", "1.21.4", local, &same), (true, None));
        let (own, line) = pallet_rule("p", "P", "1.21.4", local, &ServerPallet::None);
        assert!(!own);
        assert!(line.is_some_and(|l| l.contains("'p' pallet (1.21.4)") && l.contains("whole cube")));
        assert_eq!(
            pallet_rule("p", "P", "1.0.0", local, &ServerPallet::Unnamed),
            (true, None)
        );
    }

    // Expected boxes worked by hand from the rule in the doc: x 90 sends (y, z) to
    // (z, 16 - y); y 90 sends (x, z) to (16 - z, x).

    #[test]
    fn a_stair_turned_by_y_sends_its_upper_step_east_to_south_west_north() {
        // The straight stair's upper step stands on the east half.
        let step = [8.0, 8.0, 0.0, 16.0, 16.0, 16.0];
        assert_eq!(turn_box(step, 0, 0), step);
        // y 90: east -> south (z 8..16).
        assert_eq!(turn_box(step, 0, 90), [0.0, 8.0, 8.0, 16.0, 16.0, 16.0]);
        // y 180: west (x 0..8).
        assert_eq!(turn_box(step, 0, 180), [0.0, 8.0, 0.0, 8.0, 16.0, 16.0]);
        // y 270: north (z 0..8).
        assert_eq!(turn_box(step, 0, 270), [0.0, 8.0, 0.0, 16.0, 16.0, 8.0]);
    }

    #[test]
    fn x_turns_send_north_down_and_180_turns_a_bottom_slab_into_a_top_one() {
        let bottom = [0.0, 0.0, 0.0, 16.0, 8.0, 16.0];
        assert_eq!(turn_box(bottom, 180, 0), [0.0, 8.0, 0.0, 16.0, 16.0, 16.0]);
        // A plate on the north side (z 0..2) goes to the bottom (y 0..2) under x 90.
        let north = [0.0, 0.0, 0.0, 16.0, 16.0, 2.0];
        assert_eq!(turn_box(north, 90, 0), [0.0, 0.0, 0.0, 16.0, 2.0, 16.0]);
        // x 90 then y 90: a box low in the west (x 0..4, y 0..4, z 0..16) goes to
        // x 0..4, y 0..16, z 12..16 after x, then to x 0..4, z 0..4 after y.
        let b = [0.0, 0.0, 0.0, 4.0, 4.0, 16.0];
        assert_eq!(turn_box(b, 90, 0), [0.0, 0.0, 12.0, 4.0, 16.0, 16.0]);
        assert_eq!(turn_box(b, 90, 90), [0.0, 0.0, 0.0, 4.0, 16.0, 4.0]);
        // Four quarters are none; -90 is 270.
        assert_eq!(turn_box(b, 360, 0), b);
        assert_eq!(turn_box(b, 0, -90), turn_box(b, 0, 270));
    }

    #[test]
    fn collision_height_raises_every_top_and_a_whole_box_is_the_cube() {
        let post = [6.0, 0.0, 6.0, 10.0, 16.0, 10.0];
        let arm = [7.0, 12.0, 0.0, 9.0, 15.0, 9.0];
        assert_eq!(
            shape_of_boxes(&[post, arm], Some(24.0)),
            BlockShape::Boxes(vec![
                [0.375, 0.0, 0.375, 0.625, 1.5, 0.625],
                [0.4375, 0.75, 0.0, 0.5625, 1.5, 0.5625],
            ])
        );
        assert_eq!(
            shape_of_boxes(&[[0.0, 0.0, 0.0, 16.0, 16.0, 16.0]], None),
            BlockShape::Cube
        );
        assert_eq!(
            shape_of_boxes(&[[0.0, 0.0, 0.0, 0.0, 16.0, 16.0]], None),
            BlockShape::Empty
        );
    }
}
