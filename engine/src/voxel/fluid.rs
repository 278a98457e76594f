//! Fluids drawn from their level (spec `dh.voxel`, "Fluids"): which palette entries hold
//! a fluid, how high it stands, the corner heights of its surface and which faces show.

use dh_content::voxel::payload::{PaletteEntry, PropValue};
use glam::IVec3;

use super::cell::{CellLook, FLAG_DRAW, FLAG_OPAQUE};

/// A fluid's corner height where it meets the same fluid above: a whole block.
pub const FLUID_FULL: f32 = 1.0;

/// One fluid, as a platform pallet's blocks declare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluidDef {
    /// The palette namespace its blocks are in (`minecraft`).
    pub namespace: String,
    /// The block whose look the fluid wears (`water`).
    pub block: String,
    /// Blocks that are this fluid, drawn from their `level` property (`water`,
    /// `flowing_water`).
    pub blocks: Vec<String>,
    /// The state property that holds a block's level.
    pub level_property: String,
    /// The state property that puts a source of this fluid in a block's cell
    /// (`waterlogged`), if any.
    pub logged_property: Option<String>,
    /// Blocks that always stand in a source of it, and whether each still draws its own
    /// model (kelp does; a bubble column draws only its water).
    pub holders: Vec<(String, bool)>,
    /// The light it gives off (lava: 15).
    pub emission: u8,
    /// How much it cuts light passing into it (1: water and lava cut only sky light).
    pub opacity: u8,
}

/// The fluids a volume's platform declares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FluidTable {
    /// The fluids; a cell's [`CellLook::fluid`] is 1 + an index here.
    pub fluids: Vec<FluidDef>,
}

/// One built-in fluid row: its look's block, its blocks, its logged property, its
/// holders (and whether each draws its own model), its emission.
pub type FluidRow = (
    &'static str,
    &'static [&'static str],
    Option<&'static str>,
    &'static [(&'static str, bool)],
    u8,
);

/// Minecraft's two fluids, as the platform pallet's `dh.block` files declare them:
/// water (logged by `waterlogged`, held by kelp, seagrass and bubble columns) and lava
/// (glowing at 15).
pub const MINECRAFT_FLUIDS: &[FluidRow] = &[
    (
        "water",
        &["water", "flowing_water"],
        Some("waterlogged"),
        &[
            ("kelp", true),
            ("kelp_plant", true),
            ("seagrass", true),
            ("tall_seagrass", true),
            ("bubble_column", false),
        ],
        0,
    ),
    ("lava", &["lava", "flowing_lava"], None, &[], 15),
];

impl FluidTable {
    /// [`MINECRAFT_FLUIDS`] as a table.
    pub fn minecraft() -> FluidTable {
        FluidTable {
            fluids: MINECRAFT_FLUIDS
                .iter()
                .map(|(block, blocks, logged, holders, emission)| FluidDef {
                    namespace: "minecraft".into(),
                    block: (*block).into(),
                    blocks: blocks.iter().map(|b| (*b).into()).collect(),
                    level_property: "level".into(),
                    logged_property: logged.map(Into::into),
                    holders: holders.iter().map(|(h, d)| ((*h).into(), *d)).collect(),
                    emission: *emission,
                    opacity: 1,
                })
                .collect(),
        }
    }

    /// The fluid in a palette entry's cell: (fluid index, level, whether the block's own
    /// look still draws), or `None`. A fluid block is drawn from its level (clamped to
    /// 0..=15); a block whose logged property is true, and a holder, stand in a source.
    /// At most 255 fluids are read.
    pub fn classify(&self, e: &PaletteEntry) -> Option<(usize, u8, bool)> {
        for (i, f) in self.fluids.iter().enumerate().take(255) {
            if f.namespace != e.ns {
                continue;
            }
            if f.blocks.contains(&e.id) {
                let level = prop(e, &f.level_property)
                    .and_then(|v| match v {
                        PropValue::Int(i) => Some(i64::from(*i)),
                        PropValue::String(s) => s.parse().ok(),
                        PropValue::Bool(_) => None,
                    })
                    .unwrap_or(0)
                    .clamp(0, 15) as u8;
                return Some((i, level, false));
            }
            if let Some(lp) = &f.logged_property {
                let logged = match prop(e, lp) {
                    Some(PropValue::Bool(b)) => *b,
                    Some(PropValue::String(s)) => s == "true",
                    Some(PropValue::Int(v)) => *v != 0,
                    None => false,
                };
                if logged {
                    return Some((i, 0, true));
                }
            }
            if let Some((_, draws)) = f.holders.iter().find(|(h, _)| *h == e.id) {
                return Some((i, 0, *draws));
            }
        }
        None
    }
}

fn prop<'a>(e: &'a PaletteEntry, key: &str) -> Option<&'a PropValue> {
    e.properties.iter().find(|p| p.key == key).map(|p| &p.value)
}

/// How high a fluid at `level` stands, in blocks: a source (0) and a falling column
/// (8 and up) 8/9, a flow at level n (8 − n)/9.
pub fn fluid_height(level: u8) -> f32 {
    match level {
        1..=7 => f32::from(8 - level) / 9.0,
        _ => 8.0 / 9.0,
    }
}

/// Whether a fluid at `level` is a source or a falling column (what glass and other
/// blended blocks give their face up to).
pub(crate) fn is_source_or_falling(level: u8) -> bool {
    level == 0 || level >= 8
}

/// The height of the surface corner at (`cx`, `cz`) ∈ {0, 1}² of the fluid cell whose
/// neighborhood `nb(dx, dy, dz)` reads: the weighted mean of the four columns sharing the
/// corner (a column of the same fluid counts its height, ten times once it is 0.8 or more;
/// an open one counts 0; a solid one drops out), or [`FLUID_FULL`] when any of those
/// columns has the same fluid above it.
pub(crate) fn corner_height<'a>(
    nb: &impl Fn(i32, i32, i32) -> &'a CellLook,
    fluid: u8,
    own: f32,
    cx: i32,
    cz: i32,
) -> f32 {
    let mut sum = 0.0f32;
    let mut w = 0.0f32;
    for dx in [cx - 1, cx] {
        for dz in [cz - 1, cz] {
            let q = nb(dx, 0, dz);
            if q.fluid == fluid {
                if nb(dx, 1, dz).fluid == fluid {
                    return FLUID_FULL;
                }
                let h = fluid_height(q.fluid_level);
                let k = if h >= 0.8 { 10.0 } else { 1.0 };
                sum += h * k;
                w += k;
            } else if q.flags & FLAG_OPAQUE == 0 {
                w += 1.0;
            }
        }
    }
    if w > 0.0 {
        sum / w
    } else {
        own
    }
}

/// The four surface corner heights of a fluid cell, indexed by `cx + 2 * cz`.
pub(crate) fn corner_heights<'a>(nb: &impl Fn(i32, i32, i32) -> &'a CellLook) -> [f32; 4] {
    let c = nb(0, 0, 0);
    let own = fluid_height(c.fluid_level);
    [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(x, z)| corner_height(nb, c.fluid, own, x, z))
}

/// Whether the fluid of the cell `nb(0, 0, 0)` shows a face toward `dir` (a unit offset):
/// not toward the same fluid, not against a side an opaque block covers, not against its
/// own block where that covers the side, and not up under an opaque block once the
/// surface stands full.
pub(crate) fn fluid_face_shows<'a>(
    nb: &impl Fn(i32, i32, i32) -> &'a CellLook,
    dir: IVec3,
    heights: &[f32; 4],
) -> bool {
    let c = nb(0, 0, 0);
    let o = nb(dir.x, dir.y, dir.z);
    if o.fluid == c.fluid {
        return false;
    }
    if c.flags & (FLAG_OPAQUE | FLAG_DRAW) == FLAG_OPAQUE | FLAG_DRAW {
        return false;
    }
    if o.flags & FLAG_OPAQUE != 0 {
        return dir.y == 1 && heights.iter().any(|&h| h < FLUID_FULL);
    }
    true
}
