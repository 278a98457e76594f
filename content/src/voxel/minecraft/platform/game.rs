//! What a client jar does not say because it is game code, not assets: the light a
//! block gives by state, what tints it, which shapes stop light, how tall a fence
//! stands, and the two fluids. The values are vanilla's (minecraft.wiki, "Light",
//! "Tint", "Fence"), the same levels the engine's built-in light rows carry.

/// State-blind light levels.
const LIGHT: &[(&str, u8)] = &[
    ("torch", 14),
    ("wall_torch", 14),
    ("soul_torch", 10),
    ("soul_wall_torch", 10),
    ("redstone_torch", 7),
    ("redstone_wall_torch", 7),
    ("lantern", 15),
    ("soul_lantern", 10),
    ("glowstone", 15),
    ("sea_lantern", 15),
    ("shroomlight", 15),
    ("jack_o_lantern", 15),
    ("ochre_froglight", 15),
    ("verdant_froglight", 15),
    ("pearlescent_froglight", 15),
    ("lava", 15),
    ("lava_cauldron", 15),
    ("fire", 15),
    ("soul_fire", 10),
    ("campfire", 15),
    ("soul_campfire", 10),
    ("end_rod", 14),
    ("beacon", 15),
    ("conduit", 15),
    ("end_portal", 15),
    ("end_gateway", 15),
    ("nether_portal", 11),
    ("magma_block", 3),
    ("crying_obsidian", 10),
    ("glow_lichen", 7),
    ("amethyst_cluster", 5),
    ("large_amethyst_bud", 4),
    ("medium_amethyst_bud", 2),
    ("small_amethyst_bud", 1),
    ("sculk_catalyst", 6),
    ("sculk_sensor", 1),
    ("calibrated_sculk_sensor", 1),
    ("brewing_stand", 1),
    ("end_portal_frame", 1),
    ("dragon_egg", 1),
    ("brown_mushroom", 1),
];

/// Dye colours candles are named by.
const DYES: [&str; 16] = [
    "white",
    "orange",
    "magenta",
    "light_blue",
    "yellow",
    "lime",
    "pink",
    "gray",
    "light_gray",
    "cyan",
    "purple",
    "blue",
    "brown",
    "green",
    "red",
    "black",
];

/// One by-state light row: the `(property, value)` pairs the state must hold, and the
/// level.
pub type LightRow = (Vec<(&'static str, String)>, u8);

/// A block's light: the level where no row holds, and rows tried in order.
pub fn light(id: &str) -> (u8, Vec<LightRow>) {
    let base = LIGHT.iter().find(|(i, _)| *i == id).map_or(0, |(_, l)| *l);
    let mut rows: Vec<LightRow> = Vec::new();
    let lit = |rows: &mut Vec<LightRow>, on: u8| {
        rows.push((vec![("lit", "false".to_string())], 0));
        rows.push((vec![("lit", "true".to_string())], on));
    };
    match id {
        "furnace" | "blast_furnace" | "smoker" => lit(&mut rows, 13),
        "redstone_lamp" => lit(&mut rows, 15),
        "redstone_ore" | "deepslate_redstone_ore" => lit(&mut rows, 9),
        "candle_cake" => lit(&mut rows, 3),
        "campfire" | "soul_campfire" | "redstone_torch" | "redstone_wall_torch" => {
            rows.push((vec![("lit", "false".to_string())], 0));
        }
        "light" => {
            for n in 0u8..=15 {
                rows.push((vec![("level", n.to_string())], n));
            }
        }
        "cave_vines" | "cave_vines_plant" => {
            rows.push((vec![("berries", "true".to_string())], 14));
        }
        "sea_pickle" => {
            for n in 1u8..=4 {
                rows.push((
                    vec![
                        ("waterlogged", "true".to_string()),
                        ("pickles", n.to_string()),
                    ],
                    3 + 3 * n,
                ));
            }
        }
        "respawn_anchor" => {
            for n in 0u8..=4 {
                rows.push((vec![("charges", n.to_string())], 15 * n / 4));
            }
        }
        _ => {}
    }
    let candle = id == "candle" || DYES.iter().any(|d| id.strip_suffix("_candle") == Some(d));
    if candle {
        rows.push((vec![("lit", "false".to_string())], 0));
        for n in 1u8..=4 {
            rows.push((
                vec![("lit", "true".to_string()), ("candles", n.to_string())],
                3 * n,
            ));
        }
    }
    (base, rows)
}

/// What a block's tinted faces are tinted by: a biome colormap, water, redstone power,
/// a stem's age, or a fixed colour. `None` for a block the game does not tint.
pub fn tint(id: &str) -> Option<&'static str> {
    Some(match id {
        "spruce_leaves" => "#619961",
        "birch_leaves" => "#80a755",
        "lily_pad" => "#208030",
        "water" | "water_cauldron" | "bubble_column" => "water",
        "redstone_wire" => "redstone",
        "melon_stem" | "pumpkin_stem" | "attached_melon_stem" | "attached_pumpkin_stem" => "stem",
        "grass_block" | "short_grass" | "grass" | "tall_grass" | "fern" | "large_fern"
        | "potted_fern" | "sugar_cane" | "bush" => "grass",
        "vine" => "foliage",
        _ if id.ends_with("_leaves") => "foliage",
        _ => return None,
    })
}

/// Whether the sides a block's model covers stop light (the game's
/// `useShapeForLightOcclusion`): slabs, stairs, snow layers, farmland and paths.
pub fn light_shape(id: &str) -> bool {
    id.ends_with("_slab")
        || id.ends_with("_stairs")
        || matches!(id, "snow" | "farmland" | "dirt_path")
}

/// How tall a block's collision stands, in 1/16 block, where the game raises it past
/// the model: fences, fence gates and walls stand a block and a half.
pub fn collision_height(id: &str) -> Option<f64> {
    (id.ends_with("_fence") || id.ends_with("_fence_gate") || id.ends_with("_wall")).then_some(24.0)
}

/// A fluid block: (name, logged property, still texture, flowing texture).
pub fn fluid(
    id: &str,
) -> Option<(
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
)> {
    match id {
        "water" => Some((
            "water",
            Some("waterlogged"),
            "textures/block/water_still.png",
            "textures/block/water_flow.png",
        )),
        "lava" => Some((
            "lava",
            None,
            "textures/block/lava_still.png",
            "textures/block/lava_flow.png",
        )),
        _ => None,
    }
}
