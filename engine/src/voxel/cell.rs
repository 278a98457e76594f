//! What the mesher, the fluids and the light field share about a palette entry: its
//! [`CellLook`], the surface it draws in, its flags, and its built-in light props. The
//! modules that use these ([`super::fluid`], [`super::looks`], [`super::light`]) all
//! import them from here, so none of them imports another in a circle.

use dh_content::voxel::blocks::{BlockLook, DrawAs};

/// The surface a face draws in: one draw per surface per region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Surface {
    /// Opaque (and the unresolved checker).
    #[default]
    Opaque = 0,
    /// Alpha-tested: leaves (fancy), plants.
    Cutout = 1,
    /// Blended: glass, water, ice. Written lowest first.
    Translucent = 2,
}

impl Surface {
    /// The three surfaces, in draw order.
    pub const ALL: [Surface; 3] = [Surface::Opaque, Surface::Cutout, Surface::Translucent];
}

/// Flag: the cell hides everything behind it (opaque or unresolved).
pub const FLAG_OPAQUE: u8 = 1;
/// Flag: the cell is there and see-through (cutout, translucent, or a fluid): it hides
/// only its own kind.
pub const FLAG_SEE_THROUGH: u8 = 2;
/// Flag: the cell's block draws cube faces.
pub const FLAG_DRAW: u8 = 4;
/// Flag: the cell holds a fluid drawn from its level (a fluid block, a waterlogged block
/// or a holder).
pub const FLAG_FLUID: u8 = 8;
/// Flag: the cell's block is drawn from a platform pallet model that is not a whole
/// cube: its faces are copied cell by cell ([`CellLook::model`]), not found by the cube
/// pass, and it hides a neighbour's face only where it covers that whole side
/// ([`CellLook::covers`]).
pub const FLAG_MODEL: u8 = 16;

/// One palette entry as the mesher and the light field read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellLook {
    /// [`FLAG_OPAQUE`], [`FLAG_SEE_THROUGH`], [`FLAG_DRAW`], [`FLAG_FLUID`].
    pub flags: u8,
    /// The surface the block's faces draw in.
    pub surface: Surface,
    /// Its kind: cells of one kind (one block id and color, whatever its other
    /// properties) hide each other when see-through.
    pub kind: u32,
    /// A see-through block that keeps the faces between two cells of its own kind.
    pub inner: bool,
    /// The palette-atlas coordinate of its color (UV0).
    pub uv0: [f32; 2],
    /// How much it cuts light passing into it, 0 to 15.
    pub opacity: u8,
    /// The light level it gives off, 0 to 15 (its light's brightest channel).
    pub emission: u8,
    /// The red, green and blue levels it gives off: gray (all at `emission`) unless its
    /// block states a light color ([`super::BlockLight::color`]).
    pub light_rgb: [u8; 3],
    /// The sides its model covers for light (its block's lightShape), one bit per
    /// direction of [`super::FACE_DIRS`]: light does not cross them either way.
    pub light_shape: u8,
    /// 0 for none, else 1 + the fluid's index in the volume's [`super::FluidTable`].
    pub fluid: u8,
    /// The fluid's level: 0 a source, 1–7 a flow, 8 and up falling.
    pub fluid_level: u8,
    /// The surface the fluid's faces draw in.
    pub fluid_surface: Surface,
    /// The palette-atlas coordinate of the fluid's color.
    pub fluid_uv0: [f32; 2],
    /// Whether it collides.
    pub solid: bool,
    /// Whether nothing names a look for it (the checker).
    pub unresolved: bool,
    /// 0 for none, else 1 + the index of its model in the volume's
    /// [`super::VoxelLooks::models`] (a whole-cube model keeps the cube path and reads
    /// only its per-face UVs from it).
    pub model: u32,
    /// The sides a model that is not a whole cube covers whole with opaque faces (in
    /// every choice), one bit per direction of [`super::FACE_DIRS`].
    pub covers: u8,
}

impl CellLook {
    pub(crate) const EMPTY: CellLook = CellLook {
        flags: 0,
        surface: Surface::Opaque,
        kind: 0,
        inner: false,
        uv0: [0.0, 0.0],
        opacity: 0,
        emission: 0,
        light_rgb: [0, 0, 0],
        light_shape: 0,
        fluid: 0,
        fluid_level: 0,
        fluid_surface: Surface::Opaque,
        fluid_uv0: [0.0, 0.0],
        solid: false,
        unresolved: false,
        model: 0,
        covers: 0,
    };
}

/// The opacity that stops all light.
pub const LIGHT_OPAQUE: u8 = 15;

/// Built-in light levels and opacities of Minecraft blocks that are not the look's
/// default (an opaque block is 15, anything else 0, leaves and fluids 1), as the
/// platform pallet's `dh.block` `lightEmission` states them: (id, emission, opacity).
/// A pallet's own values win when the streamer has them.
const MINECRAFT_LIGHT: &[(&str, u8, u8)] = &[
    ("torch", 14, 0),
    ("wall_torch", 14, 0),
    ("soul_torch", 10, 0),
    ("soul_wall_torch", 10, 0),
    ("redstone_torch", 7, 0),
    ("redstone_wall_torch", 7, 0),
    ("lantern", 15, 0),
    ("soul_lantern", 10, 0),
    ("glowstone", 15, 15),
    ("sea_lantern", 15, 15),
    ("shroomlight", 15, 15),
    ("jack_o_lantern", 15, 15),
    ("ochre_froglight", 15, 15),
    ("verdant_froglight", 15, 15),
    ("pearlescent_froglight", 15, 15),
    ("lava", 15, 1),
    ("fire", 15, 0),
    ("soul_fire", 10, 0),
    ("campfire", 15, 0),
    ("soul_campfire", 10, 0),
    ("end_rod", 14, 0),
    ("beacon", 15, 0),
    ("conduit", 15, 0),
    ("magma_block", 3, 15),
    ("crying_obsidian", 10, 15),
    ("glow_lichen", 7, 0),
    ("amethyst_cluster", 5, 0),
    ("large_amethyst_bud", 4, 0),
    ("medium_amethyst_bud", 2, 0),
    ("small_amethyst_bud", 1, 0),
    // Found by `dh-engine light-check` on the Paper region fixture (every cell of them
    // was darker than the game's saved light): the game's levels, minecraft.wiki "Light".
    ("sculk_catalyst", 6, 15),
    ("sculk_sensor", 1, 0),
    ("calibrated_sculk_sensor", 1, 0),
    ("water", 0, 1),
    ("bubble_column", 0, 1),
    ("ice", 0, 1),
    ("frosted_ice", 0, 1),
    ("cobweb", 0, 1),
    ("slime_block", 0, 1),
    ("honey_block", 0, 1),
];

/// A palette entry's (opacity, emission): the built-in Minecraft row when one names the
/// id, else from the look: not drawn 0, opaque (and unresolved) 15, leaves 1, any other
/// see-through block 0.
pub fn light_props_for(ns: &str, id: &str, look: &BlockLook) -> (u8, u8) {
    if ns == "minecraft" {
        if let Some((_, em, op)) = MINECRAFT_LIGHT.iter().find(|(i, _, _)| *i == id) {
            return (*op, *em);
        }
        // Fences, fence gates, walls and carpets pass light in the game (their shapes are
        // not full, so they propagate sky light down: opacity 0), though they are drawn as
        // cubes here; light-check on the Paper region found their cells unlit. Stairs,
        // slabs, snow layers and the thin blocks get theirs from [`builtin_light_shape`],
        // which the look resolve lays over this.
        if ["_fence", "_fence_gate", "_wall", "_carpet"]
            .iter()
            .any(|s| id.ends_with(s))
        {
            return (0, 0);
        }
    }
    let op = match look.draw {
        DrawAs::Empty => 0,
        DrawAs::Opaque => LIGHT_OPAQUE,
        _ if look.leaves => 1,
        _ => 0,
    };
    (op, 0)
}

/// A property value as the text a block-state condition compares (`"east"`, `"8"`, `"true"`).
pub(crate) fn prop_text(v: &dh_content::voxel::payload::PropValue) -> String {
    use dh_content::voxel::payload::PropValue;
    match v {
        PropValue::String(s) => s.clone(),
        PropValue::Int(i) => i.to_string(),
        PropValue::Bool(b) => b.to_string(),
    }
}

/// Light-shape bits, one per direction of [`super::FACE_DIRS`]: +X (east), −X (west), +Y
/// (up), −Y (down), +Z (south), −Z (north), Minecraft's compass on the grid's own axes.
/// Up and down are the light field's own [`super::light::SHAPE_UP`] and
/// [`super::light::SHAPE_DOWN`].
const EAST: u8 = 1;
const WEST: u8 = 1 << 1;
const UP: u8 = super::light::SHAPE_UP;
const DOWN: u8 = super::light::SHAPE_DOWN;
const SOUTH: u8 = 1 << 4;
const NORTH: u8 = 1 << 5;

/// The built-in light of Minecraft's shape-occluding blocks, standing in for the platform
/// pallet's `lightShape` until the engine reads it (spec dh.voxel "The light field": "A
/// block with lightShape stops light across the sides its model covers: a bottom slab
/// passes light up and sideways but not down"): (opacity, shape bits), or `None` for a
/// block this table does not answer. The game's rule, as light-check against its saved
/// light on the Paper region showed: a block whose shape is not a full cube lets light
/// into its cell (opacity 0, or 1 when waterlogged), and stops it only across the faces
/// its shape covers whole — a slab's bottom or top, a stair's bottom or top and its full
/// back (and a second side for an inner corner), a snow layer's bottom. Comparators,
/// repeaters, pressure plates, trapdoors, chests and skulls cover no face whole.
pub fn builtin_light_shape(entry: &dh_content::voxel::payload::PaletteEntry) -> Option<(u8, u8)> {
    if entry.ns != "minecraft" {
        return None;
    }
    let prop = |key: &str| -> Option<String> {
        entry
            .properties
            .iter()
            .find(|p| p.key == key)
            .map(|p| prop_text(&p.value))
    };
    let opacity = u8::from(prop("waterlogged").as_deref() == Some("true"));
    let id = entry.id.as_str();
    let half = |top: &str| {
        if prop("half").as_deref() == Some(top) {
            UP
        } else {
            DOWN
        }
    };
    if id.ends_with("_slab") {
        return match prop("type").as_deref() {
            Some("top") => Some((opacity, UP)),
            Some("double") => None,
            _ => Some((opacity, DOWN)),
        };
    }
    if id.ends_with("_stairs") {
        let side = |f: &str| match f {
            "east" => EAST,
            "west" => WEST,
            "south" => SOUTH,
            _ => NORTH,
        };
        // Counter-clockwise seen from above: east → north → west → south.
        let ccw = |f: &str| match f {
            "east" => "north",
            "north" => "west",
            "west" => "south",
            _ => "east",
        };
        let cw = |f: &str| match f {
            "east" => "south",
            "south" => "west",
            "west" => "north",
            _ => "east",
        };
        let facing = prop("facing").unwrap_or_else(|| "north".to_string());
        let sides = match prop("shape").as_deref() {
            Some("inner_left") => side(&facing) | side(ccw(&facing)),
            Some("inner_right") => side(&facing) | side(cw(&facing)),
            Some("outer_left") | Some("outer_right") => 0,
            _ => side(&facing),
        };
        return Some((opacity, half("top") | sides));
    }
    if id == "snow" {
        return match prop("layers").as_deref() {
            Some("8") => None,
            _ => Some((0, DOWN)),
        };
    }
    let thin = [
        "comparator",
        "repeater",
        "chest",
        "trapped_chest",
        "ender_chest",
    ];
    if thin.contains(&id)
        || ["_pressure_plate", "_trapdoor", "_skull", "_head"]
            .iter()
            .any(|s| id.ends_with(s))
    {
        return Some((opacity, 0));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, props: &[(&str, &str)]) -> dh_content::voxel::payload::PaletteEntry {
        let mut e = dh_content::voxel::payload::PaletteEntry::new("minecraft", id);
        e.properties = props
            .iter()
            .map(|(k, v)| dh_content::voxel::payload::Property {
                key: (*k).to_string(),
                value: dh_content::voxel::payload::PropValue::String((*v).to_string()),
            })
            .collect();
        e
    }

    #[test]
    fn shaped_blocks_stop_light_only_across_the_faces_they_cover() {
        // Bits by FACE_DIRS: +X east 1, -X west 2, +Y up 4, -Y down 8, +Z south 16,
        // -Z north 32.
        let slab = |t: &str| builtin_light_shape(&entry("oak_slab", &[("type", t)]));
        assert_eq!(
            slab("bottom"),
            Some((0, 8)),
            "a bottom slab stops light down"
        );
        assert_eq!(slab("top"), Some((0, 4)));
        assert_eq!(slab("double"), None, "a full block: the table's opacity");
        let wet = builtin_light_shape(&entry(
            "oak_slab",
            &[("type", "bottom"), ("waterlogged", "true")],
        ));
        assert_eq!(wet, Some((1, 8)), "waterlogged cuts 1 as water does");
        let stairs = |f: &str, h: &str, s: &str| {
            builtin_light_shape(&entry(
                "stone_stairs",
                &[("facing", f), ("half", h), ("shape", s)],
            ))
        };
        // East-facing stairs have their full back on the east: down 8 + east 1.
        assert_eq!(stairs("east", "bottom", "straight"), Some((0, 9)));
        // Upside down, facing north: up 4 + north 32.
        assert_eq!(stairs("north", "top", "straight"), Some((0, 36)));
        // An inner corner adds the side to its left (counter-clockwise): east + north.
        assert_eq!(
            stairs("east", "bottom", "inner_left"),
            Some((0, 8 | 1 | 32))
        );
        assert_eq!(
            stairs("east", "bottom", "inner_right"),
            Some((0, 8 | 1 | 16))
        );
        assert_eq!(stairs("south", "bottom", "outer_left"), Some((0, 8)));
        let snow = |l: &str| builtin_light_shape(&entry("snow", &[("layers", l)]));
        assert_eq!(snow("1"), Some((0, 8)));
        assert_eq!(snow("8"), None);
        assert_eq!(
            builtin_light_shape(&entry("stone_pressure_plate", &[])),
            Some((0, 0))
        );
        assert_eq!(builtin_light_shape(&entry("stone", &[])), None);
    }

    #[test]
    fn the_sculk_blocks_light_as_the_game_does() {
        // The game's light levels (minecraft.wiki "Light"): a catalyst is a full block of
        // level 6, a sensor a half-height block of level 1.
        let look = BlockLook::unresolved();
        assert_eq!(
            light_props_for("minecraft", "sculk_catalyst", &look),
            (15, 6)
        );
        assert_eq!(light_props_for("minecraft", "sculk_sensor", &look), (0, 1));
        assert_eq!(
            light_props_for("minecraft", "calibrated_sculk_sensor", &look),
            (0, 1)
        );
        // Amethyst buds glow as they grow (1, 2, 4).
        assert_eq!(
            light_props_for("minecraft", "small_amethyst_bud", &look),
            (0, 1)
        );
        assert_eq!(
            light_props_for("minecraft", "medium_amethyst_bud", &look),
            (0, 2)
        );
        assert_eq!(
            light_props_for("minecraft", "large_amethyst_bud", &look),
            (0, 4)
        );
        // Fences, gates, walls and carpets pass light; stairs still stop it.
        for id in [
            "dark_oak_fence",
            "oak_fence_gate",
            "polished_deepslate_wall",
            "gray_carpet",
            "moss_carpet",
        ] {
            assert_eq!(light_props_for("minecraft", id, &look), (0, 0), "{id}");
        }
        assert_eq!(
            light_props_for("minecraft", "deepslate_tile_stairs", &look),
            (15, 0)
        );
        // Another namespace's block of that name is not the game's.
        assert_eq!(light_props_for("example", "sculk_catalyst", &look), (15, 0));
    }
}
