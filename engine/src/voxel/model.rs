//! Block models baked to faces (spec `dh.voxel`, "Models in the chunk mesh"): each
//! choice of a platform pallet's `dh.block` rule is baked once, when the volume's palette
//! resolves, to faces in the block's own space (0 to 1 on each axis), and the mesher
//! copies them into the chunk mesh at each cell that shows the block.
//!
//! What a choice bakes (Minecraft's rules, as its block models state them):
//!
//! * an element's `from` and `to` in 1/16 block, turned by its own rotation (axis, angle
//!   about its origin; `rescale` stretches the two other axes by 1 / cos(angle), so a
//!   cross plant's 45° planes reach the block's corners);
//! * then the choice's turns: `x` first, then `y`, each clockwise seen from the axis's
//!   positive end (Minecraft's `x: 90` turns the top to the north, `y: 90` turns north to
//!   east), about the block's centre;
//! * each face's four corners in Minecraft's order (counter-clockwise seen from outside),
//!   its `uv` (`[u0, v0, u1, v1]` in 1/16 of the texture) and `rotation` (the corners take
//!   the UV corner `rotation / 90` steps on); with `uvlock` every corner's UV is instead
//!   Minecraft's default-UV projection of its turned position onto the face's turned
//!   direction, so the texture stays fixed to the world while the block turns;
//! * the `cullFace`, `tintIndex` and `shade` of each face, the cull side turned with the
//!   model.
//!
//! [`BakedModel::covers`] is read off the baked faces: a side is covered when faces
//! lying on it, facing out, cover its whole 1×1 square (only a model drawn opaque covers
//! anything; the resolver passes that in).

use dh_content::schema::block::{Axis, Choice, Direction, Model};
use glam::{DMat3, DVec3};

/// Index of a direction in [`super::FACE_DIRS`] (+X east, −X west, +Y up, −Y down, +Z
/// south, −Z north).
pub fn dir_index(d: Direction) -> usize {
    match d {
        Direction::East => 0,
        Direction::West => 1,
        Direction::Up => 2,
        Direction::Down => 3,
        Direction::South => 4,
        Direction::North => 5,
    }
}

/// The unit normal of direction index `d` (see [`dir_index`]).
pub fn dir_normal(d: usize) -> DVec3 {
    match d {
        0 => DVec3::X,
        1 => DVec3::NEG_X,
        2 => DVec3::Y,
        3 => DVec3::NEG_Y,
        4 => DVec3::Z,
        _ => DVec3::NEG_Z,
    }
}

/// The direction index nearest `n`.
pub fn nearest_dir(n: DVec3) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for d in 0..6 {
        let dot = n.dot(dir_normal(d));
        if dot > best.1 + 1e-9 {
            best = (d, dot);
        }
    }
    best.0
}

/// The direction opposite `d`.
pub fn opposite(d: usize) -> usize {
    d ^ 1
}

/// One baked face of a model, in block space (0 to 1 a side).
#[derive(Debug, Clone, PartialEq)]
pub struct BakedFace {
    /// The four corners, counter-clockwise seen from outside.
    pub corners: [DVec3; 4],
    /// Each corner's texture coordinate, 0 to 1 across the texture (u right, v down).
    pub uvs: [[f32; 2]; 4],
    /// The unit normal, turned with the model.
    pub normal: DVec3,
    /// The direction index nearest the normal ([`dir_index`]).
    pub dir: usize,
    /// The side it is culled against, turned with the model (a direction index).
    pub cull: Option<usize>,
    /// The texture, a pallet path.
    pub texture: String,
    /// Tinted by the block's `tint`.
    pub tint: bool,
    /// Takes directional shading (the element's `shade`, default true).
    pub shade: bool,
    /// The light the element's faces glow by (its `lightEmission`), 0 to 15.
    pub emission: u8,
}

/// A choice baked: its faces and the sides it covers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BakedModel {
    /// The faces, element by element, in the order down, up, north, south, west, east.
    pub faces: Vec<BakedFace>,
    /// Sides covered whole by faces on them facing out, one bit per direction index
    /// (set only when baked as opaque).
    pub covers: u8,
    /// Whether it is a whole cube: one face on each side covering it whole, each culled
    /// against its own side (such a block stays on the mesher's fast cube path).
    pub cube: bool,
}

/// Why a model does not bake.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BakeError {
    /// A turn that is not a right angle.
    #[error("a turn of {0}° is not 0, 90, 180 or 270")]
    Turn(i32),
    /// A coordinate that is not a finite number.
    #[error("element {element} has a coordinate that is not a finite number")]
    NotFinite {
        /// The element's index.
        element: usize,
    },
}

/// A turn of `deg` degrees about `axis` (right-handed: counter-clockwise seen from the
/// axis's positive end).
fn turn(axis: DVec3, deg: f64) -> DMat3 {
    DMat3::from_axis_angle(axis, deg.to_radians())
}

/// Snaps values within 1e-9 of a multiple of 1/1024 to it, so 90° turns land exactly.
fn snap(v: DVec3) -> DVec3 {
    v.to_array()
        .map(|c| {
            let r = (c * 1024.0).round() / 1024.0;
            if (c - r).abs() < 1e-9 {
                r
            } else {
                c
            }
        })
        .into()
}

/// Minecraft's corners of face `d` of box `[lo, hi]`, counter-clockwise from outside,
/// corner 0 at the texture's (u0, v0).
fn face_corners(d: Direction, lo: DVec3, hi: DVec3) -> [DVec3; 4] {
    let p = DVec3::new;
    match d {
        Direction::Down => [
            p(lo.x, lo.y, hi.z),
            p(lo.x, lo.y, lo.z),
            p(hi.x, lo.y, lo.z),
            p(hi.x, lo.y, hi.z),
        ],
        Direction::Up => [
            p(lo.x, hi.y, lo.z),
            p(lo.x, hi.y, hi.z),
            p(hi.x, hi.y, hi.z),
            p(hi.x, hi.y, lo.z),
        ],
        Direction::North => [
            p(hi.x, hi.y, lo.z),
            p(hi.x, lo.y, lo.z),
            p(lo.x, lo.y, lo.z),
            p(lo.x, hi.y, lo.z),
        ],
        Direction::South => [
            p(lo.x, hi.y, hi.z),
            p(lo.x, lo.y, hi.z),
            p(hi.x, lo.y, hi.z),
            p(hi.x, hi.y, hi.z),
        ],
        Direction::West => [
            p(lo.x, hi.y, lo.z),
            p(lo.x, lo.y, lo.z),
            p(lo.x, lo.y, hi.z),
            p(lo.x, hi.y, hi.z),
        ],
        Direction::East => [
            p(hi.x, hi.y, hi.z),
            p(hi.x, lo.y, hi.z),
            p(hi.x, lo.y, lo.z),
            p(hi.x, hi.y, lo.z),
        ],
    }
}

/// Minecraft's default UV of a point `p` (1/16 block) on a face of direction index `d`:
/// up `(x, z)`, down `(x, 16 − z)`, north `(16 − x, 16 − y)`, south `(x, 16 − y)`, west
/// `(z, 16 − y)`, east `(16 − z, 16 − y)`.
pub fn default_uv(d: usize, p: DVec3) -> [f64; 2] {
    match d {
        2 => [p.x, p.z],
        3 => [p.x, 16.0 - p.z],
        5 => [16.0 - p.x, 16.0 - p.y],
        4 => [p.x, 16.0 - p.y],
        1 => [p.z, 16.0 - p.y],
        _ => [16.0 - p.z, 16.0 - p.y],
    }
}

/// Bakes `model` as `choice` turns it. `opaque`: whether the block draws opaque (only
/// then do its faces cover sides).
pub fn bake(model: &Model, choice: &Choice, opaque: bool) -> Result<BakedModel, BakeError> {
    let (x, y) = (choice.x.unwrap_or(0), choice.y.unwrap_or(0));
    for t in [x, y] {
        if !matches!(t, 0 | 90 | 180 | 270) {
            return Err(BakeError::Turn(t));
        }
    }
    // Clockwise seen from +X then from +Y: a right-handed turn by minus the angle.
    let block = turn(DVec3::Y, -f64::from(y)) * turn(DVec3::X, -f64::from(x));
    let center = DVec3::splat(8.0);
    let uvlock = choice.uvlock == Some(true);
    let mut faces = Vec::new();
    for (ei, e) in model.elements.iter().enumerate() {
        let lo = DVec3::from_array(e.from.0);
        let hi = DVec3::from_array(e.to.0);
        if !lo.is_finite() || !hi.is_finite() {
            return Err(BakeError::NotFinite { element: ei });
        }
        // The element's own turn (and rescale), about its origin.
        let own = e.rotation.as_ref().map(|r| {
            let axis = match r.axis {
                Axis::X => DVec3::X,
                Axis::Y => DVec3::Y,
                Axis::Z => DVec3::Z,
            };
            let m = turn(axis, r.angle);
            let scale = if r.rescale == Some(true) && r.angle.abs() > 1e-9 {
                let s = 1.0 / r.angle.to_radians().cos().abs();
                DVec3::ONE + (DVec3::splat(s) - DVec3::ONE) * (DVec3::ONE - axis)
            } else {
                DVec3::ONE
            };
            (DVec3::from_array(r.origin.0), m, scale)
        });
        let place = |p: DVec3| -> DVec3 {
            let p = match &own {
                Some((o, m, s)) => *o + (*m * (p - *o)) * *s,
                None => p,
            };
            snap(center + block * (p - center))
        };
        let normal_of = |n: DVec3| -> DVec3 {
            let n = match &own {
                Some((_, m, _)) => *m * n,
                None => n,
            };
            snap(block * n).normalize_or_zero()
        };
        let Some(fs) = &e.faces else { continue };
        for (d, f) in fs.iter() {
            let di = dir_index(d);
            let raw = face_corners(d, lo, hi);
            let corners16 = raw.map(place);
            let normal = normal_of(dir_normal(di));
            let dir = nearest_dir(normal);
            let uvs16: [[f64; 2]; 4] = if uvlock {
                corners16.map(|p| default_uv(dir, p))
            } else {
                let [u0, v0, u1, v1] = f.uv.0;
                let table = [[u0, v0], [u0, v1], [u1, v1], [u1, v0]];
                let r = usize::from(f.rotation.unwrap_or(0) / 90) % 4;
                [0, 1, 2, 3].map(|i| table[(i + r) % 4])
            };
            let cull = f
                .cull_face
                .map(|c| nearest_dir(snap(block * dir_normal(dir_index(c)))));
            faces.push(BakedFace {
                corners: corners16.map(|p| p / 16.0),
                uvs: uvs16.map(|[u, v]| [(u / 16.0) as f32, (v / 16.0) as f32]),
                normal,
                dir,
                cull,
                texture: f.texture.clone(),
                tint: f.tint_index.is_some_and(|t| t >= 0),
                shade: e.shade.unwrap_or(true),
                emission: e.light_emission.unwrap_or(0).min(15),
            });
        }
    }
    let covers = if opaque { covered_sides(&faces) } else { 0 };
    let cube = is_cube(&faces);
    Ok(BakedModel {
        faces,
        covers,
        cube,
    })
}

/// The two axes of a side's plane (the axes other than the side's own).
fn plane_axes(d: usize) -> (usize, usize) {
    match d / 2 {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

const EPS: f64 = 1e-6;

/// The rectangle `[a0, b0, a1, b1]` a face covers on side `d`, when it lies on that side
/// facing out and is axis-aligned.
fn side_rect(f: &BakedFace, d: usize) -> Option<[f64; 4]> {
    if f.normal.dot(dir_normal(d)) < 1.0 - EPS {
        return None;
    }
    let axis = d / 2;
    let at = if d.is_multiple_of(2) { 1.0 } else { 0.0 };
    if f.corners.iter().any(|c| (c[axis] - at).abs() > EPS) {
        return None;
    }
    let (a, b) = plane_axes(d);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for c in &f.corners {
        for (k, ax) in [a, b].into_iter().enumerate() {
            lo[k] = lo[k].min(c[ax]);
            hi[k] = hi[k].max(c[ax]);
        }
    }
    Some([lo[0], lo[1], hi[0], hi[1]])
}

/// Whether rectangles `rects` cover the unit square whole (each cell of the grid their
/// edges cut the square into lies inside one of them).
fn covers_unit(rects: &[[f64; 4]]) -> bool {
    if rects.is_empty() {
        return false;
    }
    let mut xs: Vec<f64> = vec![0.0, 1.0];
    let mut ys: Vec<f64> = vec![0.0, 1.0];
    for r in rects {
        xs.extend([r[0].clamp(0.0, 1.0), r[2].clamp(0.0, 1.0)]);
        ys.extend([r[1].clamp(0.0, 1.0), r[3].clamp(0.0, 1.0)]);
    }
    xs.sort_by(f64::total_cmp);
    ys.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < EPS);
    ys.dedup_by(|a, b| (*a - *b).abs() < EPS);
    for w in xs.windows(2) {
        for h in ys.windows(2) {
            let (cx, cy) = ((w[0] + w[1]) * 0.5, (h[0] + h[1]) * 0.5);
            let inside = rects.iter().any(|r| {
                r[0] - EPS <= cx && cx <= r[2] + EPS && r[1] - EPS <= cy && cy <= r[3] + EPS
            });
            if !inside {
                return false;
            }
        }
    }
    true
}

/// The sides faces cover whole, one bit per direction index.
pub fn covered_sides(faces: &[BakedFace]) -> u8 {
    let mut bits = 0;
    for d in 0..6 {
        let rects: Vec<[f64; 4]> = faces.iter().filter_map(|f| side_rect(f, d)).collect();
        if covers_unit(&rects) {
            bits |= 1 << d;
        }
    }
    bits
}

/// Whether `faces` are a whole cube: six faces, one on each side covering it whole,
/// each culled against its own side.
fn is_cube(faces: &[BakedFace]) -> bool {
    faces.len() == 6
        && (0..6).all(|d| {
            faces.iter().filter(|f| f.dir == d).count() == 1
                && faces.iter().any(|f| {
                    f.dir == d
                        && f.cull == Some(d)
                        && side_rect(f, d).is_some_and(|r| covers_unit(&[r]))
                })
        })
}

/// A cell's hash, for the weighted pick: the same cell always gives the same number.
pub fn cell_hash(cell: [i64; 3]) -> u32 {
    // SplitMix64 over the three coordinates.
    let mut z = (cell[0] as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((cell[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add((cell[2] as u64).wrapping_mul(0x1656_67B1_9E37_79F9));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// Picks among choices of weights `weights` (each ≥ 1) by `hash`: the index whose
/// running weight first passes `hash mod total`.
pub fn pick(weights: &[u32], hash: u32) -> usize {
    let total: u64 = weights.iter().map(|&w| u64::from(w.max(1))).sum();
    if total == 0 {
        return 0;
    }
    let mut at = u64::from(hash) % total;
    for (i, &w) in weights.iter().enumerate() {
        let w = u64::from(w.max(1));
        if at < w {
            return i;
        }
        at -= w;
    }
    weights.len().saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dh_content::schema::block::parse_block_def;

    /// Reads a block whose only model is `model_json` under key `m`.
    fn model(model_json: &str) -> Model {
        let text = format!(
            r#"{{"id":"minecraft:t","rules":[{{"apply":[{{"model":"m"}}]}}],"models":{{"m":{model_json}}}}}"#
        );
        let b = parse_block_def("blocks/t.dh-block", &text).unwrap_or_else(|d| panic!("{d}"));
        b.models
            .as_ref()
            .and_then(|m| m.iter().next().map(|(_, m)| m.clone()))
            .unwrap_or_else(|| panic!("no model"))
    }

    fn choice(x: i32, y: i32, uvlock: bool) -> Choice {
        let text = format!(
            r#"{{"id":"minecraft:t","rules":[{{"apply":[{{"model":"m","x":{x},"y":{y},"uvlock":{uvlock}}}]}}],"models":{{"m":{{"elements":[]}}}}}}"#
        );
        let b = parse_block_def("blocks/t.dh-block", &text).unwrap_or_else(|d| panic!("{d}"));
        b.rules[0].apply[0].clone()
    }

    fn face(m: &BakedModel, dir: usize) -> Vec<&BakedFace> {
        m.faces.iter().filter(|f| f.dir == dir).collect()
    }

    const ALL: u8 = 0b11_1111;

    /// Minecraft's bottom slab (`block/slab`): one element 0,0,0 to 16,8,16, each face's
    /// UV its default (the sides' v runs 8 to 16: the lower half of the texture).
    const SLAB: &str = r#"{"elements":[{"from":[0,0,0],"to":[16,8,16],"faces":{
        "down":{"uv":[0,0,16,16],"texture":"/b.png","cullFace":"down"},
        "up":{"uv":[0,0,16,16],"texture":"/t.png"},
        "north":{"uv":[0,8,16,16],"texture":"/s.png","cullFace":"north"},
        "south":{"uv":[0,8,16,16],"texture":"/s.png","cullFace":"south"},
        "west":{"uv":[0,8,16,16],"texture":"/s.png","cullFace":"west"},
        "east":{"uv":[0,8,16,16],"texture":"/s.png","cullFace":"east"}}}]}"#;

    #[test]
    fn a_bottom_slab_covers_its_underside_only() {
        let m = bake(&model(SLAB), &choice(0, 0, false), true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.faces.len(), 6);
        // Down, the only covered side: bit 3.
        assert_eq!(m.covers, 1 << 3);
        assert!(!m.cube);
        // The top is at half height, unculled; corners (0,.5,0) (0,.5,1) (1,.5,1) (1,.5,0).
        let up = face(&m, 2);
        assert_eq!(up.len(), 1);
        assert_eq!(up[0].cull, None);
        assert_eq!(
            up[0].corners,
            [
                DVec3::new(0.0, 0.5, 0.0),
                DVec3::new(0.0, 0.5, 1.0),
                DVec3::new(1.0, 0.5, 1.0),
                DVec3::new(1.0, 0.5, 0.0)
            ]
        );
        // North: corner 0 is (1, .5, 0) at uv (0, .5), corner 2 (0, 0, 0) at (1, 1).
        let n = face(&m, 5);
        assert_eq!(n[0].cull, Some(5));
        assert_eq!(n[0].corners[0], DVec3::new(1.0, 0.5, 0.0));
        assert_eq!(n[0].uvs[0], [0.0, 0.5]);
        assert_eq!(n[0].corners[2], DVec3::new(0.0, 0.0, 0.0));
        assert_eq!(n[0].uvs[2], [1.0, 1.0]);
        // Baked as cutout, it covers nothing.
        let cut = bake(&model(SLAB), &choice(0, 0, false), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cut.covers, 0);
    }

    /// Minecraft's stairs (`block/stairs`), facing east: the bottom half whole and the
    /// step 8,8,0 to 16,16,16 at the east.
    const STAIRS: &str = r#"{"elements":[
        {"from":[0,0,0],"to":[16,8,16],"faces":{
          "down":{"uv":[0,0,16,16],"texture":"/p.png","cullFace":"down"},
          "up":{"uv":[0,0,16,16],"texture":"/p.png"},
          "north":{"uv":[0,8,16,16],"texture":"/p.png","cullFace":"north"},
          "south":{"uv":[0,8,16,16],"texture":"/p.png","cullFace":"south"},
          "west":{"uv":[0,8,16,16],"texture":"/p.png","cullFace":"west"},
          "east":{"uv":[0,8,16,16],"texture":"/p.png","cullFace":"east"}}},
        {"from":[8,8,0],"to":[16,16,16],"faces":{
          "up":{"uv":[8,0,16,16],"texture":"/p.png","cullFace":"up"},
          "north":{"uv":[0,0,8,8],"texture":"/p.png","cullFace":"north"},
          "south":{"uv":[8,0,16,8],"texture":"/p.png","cullFace":"south"},
          "west":{"uv":[0,0,16,8],"texture":"/p.png"},
          "east":{"uv":[0,0,16,8],"texture":"/p.png","cullFace":"east"}}}]}"#;

    #[test]
    fn a_stair_turned_y_90_covers_the_south_and_the_bottom() {
        let m = bake(&model(STAIRS), &choice(0, 0, false), true).unwrap_or_else(|e| panic!("{e}"));
        // Unturned: the east side whole (the bottom half's east and the step's east), and
        // the bottom. East 0, down 3.
        assert_eq!(m.covers, 1 | 1 << 3);
        let t = bake(&model(STAIRS), &choice(0, 90, false), true).unwrap_or_else(|e| panic!("{e}"));
        // y = 90 turns east to south: south 4, down 3.
        assert_eq!(t.covers, 1 << 4 | 1 << 3);
        // The step's riser (its west face, unculled) now faces north at z = .5, from
        // y .5 to 1 and x 0 to 1.
        let risers: Vec<&BakedFace> = t
            .faces
            .iter()
            .filter(|f| f.dir == 5 && f.cull.is_none())
            .collect();
        assert_eq!(risers.len(), 1);
        for c in risers[0].corners {
            assert_eq!(c.z, 0.5);
            assert!(c.y == 0.5 || c.y == 1.0, "{c}");
        }
        // The step's culled east face turned to the south: culled against south.
        assert!(t
            .faces
            .iter()
            .any(|f| f.dir == 4 && f.cull == Some(4) && f.corners.iter().all(|c| c.y >= 0.5)));
        // Cull sides turned: the old north faces (bottom's, step's) cull east, the old
        // east ones south, south ones west, the bottom's west one north; up and down stay.
        let culls: Vec<usize> = (0..6)
            .map(|d| t.faces.iter().filter(|f| f.cull == Some(d)).count())
            .collect();
        assert_eq!(culls, vec![2, 2, 1, 1, 2, 1]);
    }

    /// `block/cube_column` as a log: the ends on up and down, the bark on the sides.
    const LOG: &str = r#"{"elements":[{"from":[0,0,0],"to":[16,16,16],"faces":{
        "down":{"uv":[0,0,16,16],"texture":"/end.png","cullFace":"down"},
        "up":{"uv":[0,0,16,16],"texture":"/end.png","cullFace":"up"},
        "north":{"uv":[0,0,16,16],"texture":"/side.png","cullFace":"north"},
        "south":{"uv":[0,0,16,16],"texture":"/side.png","cullFace":"south"},
        "west":{"uv":[0,0,16,16],"texture":"/side.png","cullFace":"west"},
        "east":{"uv":[0,0,16,16],"texture":"/side.png","cullFace":"east"}}}]}"#;

    #[test]
    fn uvlock_keeps_an_x_90_logs_textures_fixed_to_the_world() {
        let plain =
            bake(&model(LOG), &choice(90, 0, false), true).unwrap_or_else(|e| panic!("{e}"));
        let locked =
            bake(&model(LOG), &choice(90, 0, true), true).unwrap_or_else(|e| panic!("{e}"));
        assert!(plain.cube && locked.cube);
        assert_eq!(plain.covers, ALL);
        // x = 90 turns the top to the north: the end texture faces north and south.
        let north = face(&plain, 5);
        assert_eq!(north[0].texture, "/end.png");
        assert_eq!(north[0].cull, Some(5));
        assert_eq!(face(&plain, 2)[0].texture, "/side.png");
        // The old south face is the top now. Without uvlock its corners keep their
        // UVs: old corner 0 (0, 1, 1) at uv (0, 0) turns to (0, 1, 0).
        let top = face(&plain, 2)[0];
        assert_eq!(top.corners[0], DVec3::new(0.0, 1.0, 0.0));
        assert_eq!(top.uvs[0], [0.0, 0.0]);
        assert_eq!(top.corners[1], DVec3::new(0.0, 1.0, 1.0));
        assert_eq!(top.uvs[1], [0.0, 1.0]);
        // The west face turned in place: old corner 0 (0, 1, 0) at uv (0, 0) is now
        // (0, 0, 0), so the texture's top is at the bottom... turned a quarter.
        let west = face(&plain, 1)[0];
        assert_eq!(west.corners[0], DVec3::new(0.0, 0.0, 0.0));
        assert_eq!(west.uvs[0], [0.0, 0.0]);
        // With uvlock the west face reads the world's default west UV (z, 16 − y): the
        // corner at (0, 0, 0) takes (0, 1), the texture upright.
        let lw = face(&locked, 1)[0];
        assert_eq!(lw.corners[0], DVec3::new(0.0, 0.0, 0.0));
        assert_eq!(lw.uvs[0], [0.0, 1.0]);
        for (c, uv) in lw.corners.iter().zip(lw.uvs) {
            assert_eq!(uv, [c.z as f32, 1.0 - c.y as f32]);
        }
    }

    /// `block/cross`: two planes turned 45° about Y with rescale.
    const CROSS: &str = r#"{"elements":[
        {"from":[0.8,0,8],"to":[15.2,16,8],"rotation":{"origin":[8,8,8],"axis":"y","angle":45,"rescale":true},"shade":false,"faces":{
          "north":{"uv":[0,0,16,16],"texture":"/p.png"},"south":{"uv":[0,0,16,16],"texture":"/p.png"}}},
        {"from":[8,0,0.8],"to":[8,16,15.2],"rotation":{"origin":[8,8,8],"axis":"y","angle":45,"rescale":true},"shade":false,"faces":{
          "west":{"uv":[0,0,16,16],"texture":"/p.png"},"east":{"uv":[0,0,16,16],"texture":"/p.png"}}}]}"#;

    #[test]
    fn a_cross_plant_reaches_the_corners_with_rescale() {
        let m = bake(&model(CROSS), &choice(0, 0, false), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.faces.len(), 4);
        assert_eq!(m.covers, 0);
        assert!(!m.cube);
        // The first plane's x runs 0.8 to 15.2 at z = 8: relative to the origin (−7.2, 0)
        // to (7.2, 0). Turned 45° counter-clockwise seen from +Y, (−7.2, 0) goes to
        // (−7.2 cos 45, +7.2 sin 45) = (−5.091, 5.091); the rescale 1 / cos 45 = √2 on
        // X and Z makes it (−7.2, 7.2): the point (0.8, ·, 15.2), 0.05 from the corner.
        let south = &m.faces[1];
        assert!(!south.shade);
        let want = [(0.05, 0.95), (0.05, 0.95), (0.95, 0.05), (0.95, 0.05)];
        for (c, (x, z)) in south.corners.iter().zip(want) {
            assert!((c.x - x).abs() < 1e-9 && (c.z - z).abs() < 1e-9, "{c}");
        }
        // Its normal, +Z turned 45°: (sin 45, 0, cos 45).
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!(
            (south.normal - DVec3::new(h, 0.0, h)).length() < 1e-9,
            "{}",
            south.normal
        );
    }

    #[test]
    fn a_weighted_pick_is_the_same_for_the_same_cell() {
        let w = [1, 1, 1, 1];
        let a = pick(&w, cell_hash([3, 64, -7]));
        assert_eq!(a, pick(&w, cell_hash([3, 64, -7])));
        // Over a patch, every one of four equal weights is picked.
        let mut seen = [false; 4];
        for x in 0..8 {
            for z in 0..8 {
                seen[pick(&w, cell_hash([x, 0, z]))] = true;
            }
        }
        assert_eq!(seen, [true; 4]);
        // Weights 3 and 1 over hash values 0..4: three to the first.
        let picks: Vec<usize> = (0..4).map(|h| pick(&[3, 1], h)).collect();
        assert_eq!(picks, vec![0, 0, 0, 1]);
    }
}
