//! A volume's resolved palette: what each global palette entry draws as, what it hides,
//! where its color sits in the palette atlas, and what it does to light.

use std::collections::HashMap;

use dh_content::voxel::blocks::{
    parse_color, resolve_entry, BlockLook, BlockTables, DrawAs, EntryKey, LookSource,
    PlatformPallet,
};
use dh_content::voxel::payload::{PaletteEntry, PropValue};

use super::cell::{builtin_light_shape, light_props_for, prop_text};
use super::cell::{CellLook, Surface, FLAG_DRAW, FLAG_FLUID, FLAG_OPAQUE, FLAG_SEE_THROUGH};
use super::fluid::FluidTable;

/// Texels along the palette atlas's width.
pub const ATLAS_WIDTH: usize = 256;
/// The texel the atlas holds for an entry nothing names a color for (the renderer draws
/// the unresolved checker on these faces; the texel marks them).
pub const UNRESOLVED_COLOR: [u8; 4] = [255, 0, 64, 255];

/// One block's light as its platform pallet's `dh.block` states it (spec `dh.voxel`,
/// "Light": a block's `lightEmission`, by state; "The light field": `lightShape`, and
/// per-block light colors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockLight {
    /// Its `lightEmission` in the entry's state, 0 to 15; `None` where the block states
    /// none (the built-in level, if any, stands).
    pub emission: Option<u8>,
    /// Its light's color, sRGB; `None` for gray. The level is the brightest channel's;
    /// each other channel is the level times its share of the brightest ([`light_rgb`]).
    pub color: Option<[u8; 3]>,
    /// The sides its model covers for light (`lightShape`), one bit per direction of
    /// [`super::FACE_DIRS`] (a bottom slab: −Y, `1 << 3`).
    pub shape: u8,
    /// How much it cuts light passing into it, 0 to 15, where the block states it (a
    /// slab, drawn as a cube of its material, cuts none: its shape stops the light);
    /// `None` keeps the built-in opacity.
    pub opacity: Option<u8>,
}

/// Where a volume's looks read what its platform pallet's blocks say about light: the
/// streamer answers from the pallet's `dh.block`s ([`BlockLightTable`] is the plain form).
pub trait PalletLight {
    /// The light of palette entry `entry`, `None` where the pallet says nothing of it.
    fn block_light(&self, entry: &PaletteEntry) -> Option<BlockLight>;
}

/// A block's light levels per channel: `level` on the brightest channel of `color`, each
/// other channel `level` × its share of the brightest, rounded to nearest; gray (all
/// three at `level`) without a color, and dark for a black one.
pub fn light_rgb(level: u8, color: Option<[u8; 3]>) -> [u8; 3] {
    let level = level.min(15);
    let Some(c) = color else {
        return [level; 3];
    };
    let max = c.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return [0; 3];
    }
    c.map(|v| ((u32::from(level) * u32::from(v) * 2 + u32::from(max)) / (2 * u32::from(max))) as u8)
}

/// Block light stated per block and state, the first row that matches an entry winning:
/// a row names a namespace and id, and the properties (key, value) the entry's state
/// must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockLightTable {
    /// The rows, first match winning.
    pub rows: Vec<BlockLightRow>,
}

/// One row of a [`BlockLightTable`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockLightRow {
    /// The block's namespace (`minecraft`).
    pub namespace: String,
    /// The block's id (`redstone_lamp`).
    pub id: String,
    /// The properties (key, value, as text) the entry's state must hold.
    pub state: Vec<(String, String)>,
    /// The light it gives.
    pub light: BlockLight,
}

impl BlockLightTable {
    /// Adds a row: `ns:id` in a state holding every `(key, value)` of `state` gives
    /// `light`.
    pub fn push(&mut self, ns: &str, id: &str, state: &[(&str, &str)], light: BlockLight) {
        self.rows.push(BlockLightRow {
            namespace: ns.to_string(),
            id: id.to_string(),
            state: state
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            light,
        });
    }
}

/// Dye colors Minecraft's colored candles are named by (`red_candle`).
const CANDLE_DYES: [&str; 16] = [
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

impl BlockLightTable {
    /// The light Minecraft's platform pallet (`com.mojang.minecraft`) states by state,
    /// where it differs from the built-in, state-blind levels
    /// ([`super::light_props_for`]): the block tables carry no light, and the streamer
    /// has no `dh.block` reader, so these rows are the vanilla `lightEmission` values
    /// that `dh import minecraft` writes into each block's `dh.block`, as Minecraft's
    /// own blocks give them:
    ///
    /// * `lit=false` gives nothing: furnace, blast furnace, smoker, campfires,
    ///   redstone torches, redstone ore (both), redstone lamp, candles, candle cake;
    /// * `lit=true`: furnace, blast furnace and smoker 13, redstone lamp 15, redstone ore
    ///   9, candle cake 3, a candle 3 per candle (`candles` 1–4);
    /// * `light` with `level=n` gives n; cave vines with `berries=true` 14, else 0;
    /// * a sea pickle gives 3 + 3 × `pickles` when waterlogged, else 0;
    /// * a respawn anchor gives ⌊15 × `charges` / 4⌋.
    ///
    /// Minecraft's light is gray (no row states a color), and a row states neither a
    /// light shape nor an opacity: those keep the built-in values.
    pub fn minecraft() -> BlockLightTable {
        let mut t = BlockLightTable::default();
        let em = |n: u8| BlockLight {
            emission: Some(n),
            ..BlockLight::default()
        };
        for id in [
            "furnace",
            "blast_furnace",
            "smoker",
            "campfire",
            "soul_campfire",
            "redstone_torch",
            "redstone_wall_torch",
            "redstone_ore",
            "deepslate_redstone_ore",
            "redstone_lamp",
            "candle_cake",
        ] {
            t.push("minecraft", id, &[("lit", "false")], em(0));
        }
        for (id, n) in [
            ("furnace", 13),
            ("blast_furnace", 13),
            ("smoker", 13),
            ("redstone_lamp", 15),
            ("redstone_ore", 9),
            ("deepslate_redstone_ore", 9),
            ("candle_cake", 3),
        ] {
            t.push("minecraft", id, &[("lit", "true")], em(n));
        }
        let candles = std::iter::once("candle".to_string())
            .chain(CANDLE_DYES.iter().map(|d| format!("{d}_candle")));
        for id in candles {
            t.push("minecraft", &id, &[("lit", "false")], em(0));
            for n in 1u8..=4 {
                let c = n.to_string();
                t.push(
                    "minecraft",
                    &id,
                    &[("lit", "true"), ("candles", &c)],
                    em(3 * n),
                );
            }
        }
        for n in 0u8..=15 {
            t.push("minecraft", "light", &[("level", &n.to_string())], em(n));
        }
        for id in ["cave_vines", "cave_vines_plant"] {
            t.push("minecraft", id, &[("berries", "true")], em(14));
            t.push("minecraft", id, &[("berries", "false")], em(0));
        }
        for n in 1u8..=4 {
            let p = n.to_string();
            t.push(
                "minecraft",
                "sea_pickle",
                &[("waterlogged", "true"), ("pickles", &p)],
                em(3 + 3 * n),
            );
        }
        t.push(
            "minecraft",
            "sea_pickle",
            &[("waterlogged", "false")],
            em(0),
        );
        for n in 0u8..=4 {
            t.push(
                "minecraft",
                "respawn_anchor",
                &[("charges", &n.to_string())],
                em(15 * n / 4),
            );
        }
        t
    }
}

impl PalletLight for BlockLightTable {
    fn block_light(&self, entry: &PaletteEntry) -> Option<BlockLight> {
        self.rows
            .iter()
            .find(|r| {
                r.namespace == entry.ns
                    && r.id == entry.id
                    && r.state.iter().all(|(k, v)| {
                        entry
                            .properties
                            .iter()
                            .any(|p| p.key == *k && prop_text(&p.value) == *v)
                    })
            })
            .map(|r| r.light)
    }
}

/// The per-volume palette atlas: one RGBA8 texel per palette entry (row-major,
/// [`ATLAS_WIDTH`] wide), then one per fluid of the volume's fluid table. UV0 points at a
/// texel's center.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteAtlas {
    /// Texels across.
    pub width: usize,
    /// Texel rows.
    pub height: usize,
    /// sRGB RGBA texels, row-major.
    pub texels: Vec<[u8; 4]>,
}

impl PaletteAtlas {
    fn uv(&self, slot: usize) -> [f32; 2] {
        [
            ((slot % self.width) as f32 + 0.5) / self.width as f32,
            ((slot / self.width) as f32 + 0.5) / self.height as f32,
        ]
    }
}

/// A volume's palette resolved once when it opens, for both leaf modes: entry `i` of
/// [`VoxelLooks::cells`] is global palette index `i`; one more entry at the end is the
/// unresolved look, which a kernel reads for any index past the palette.
#[derive(Debug, Clone)]
pub struct VoxelLooks {
    fast: Vec<CellLook>,
    fancy: Vec<CellLook>,
    fast_flags: Vec<u8>,
    fancy_flags: Vec<u8>,
    atlas: PaletteAtlas,
    fluids: FluidTable,
    resolved: usize,
    from_pallet: usize,
    from_table: usize,
    /// The `namespace:id` of each entry that wears the checker, in palette order, each
    /// once.
    unresolved_ids: Vec<String>,
}

/// How many unresolved ids [`VoxelLooks::resolve_line`] names before "and N more" (ours).
pub const UNRESOLVED_NAMED: usize = 5;

fn own_color(e: &PaletteEntry) -> Option<[u8; 4]> {
    e.properties
        .iter()
        .find(|p| p.key == "color")
        .and_then(|p| match &p.value {
            PropValue::String(s) => parse_color(s),
            _ => None,
        })
}

fn surface_of(d: DrawAs) -> Surface {
    match d {
        DrawAs::Cutout => Surface::Cutout,
        DrawAs::Translucent => Surface::Translucent,
        _ => Surface::Opaque,
    }
}

impl VoxelLooks {
    /// Resolves every entry of `palette` through the platform pallet (when given), the
    /// block tables and the unresolved look (spec "How a block is drawn"), and, when
    /// `fluids` is given (the platform pallet's blocks declare fluids), reads each entry's
    /// fluid: a fluid block by its `level`, a block whose state sets the fluid's logged
    /// property, or a holder. Without `fluids`, water is a translucent cube of the table's
    /// color, as the spec has it without the platform pallet.
    pub fn resolve(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        pallet: Option<&dyn PlatformPallet>,
        fluids: Option<&FluidTable>,
    ) -> VoxelLooks {
        Self::resolve_lit(palette, tables, platform, pallet, fluids, None)
    }

    /// [`VoxelLooks::resolve`], with each entry's light read from `light` where it says
    /// something (the platform pallet's `dh.block` `lightEmission` by state, its light
    /// color and `lightShape`), over the built-in levels.
    pub fn resolve_lit(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        pallet: Option<&dyn PlatformPallet>,
        fluids: Option<&FluidTable>,
        light: Option<&dyn PalletLight>,
    ) -> VoxelLooks {
        let fluids = fluids.cloned().unwrap_or_default();
        let n = palette.len();
        let slots = n + 1 + fluids.fluids.len();
        let width = ATLAS_WIDTH;
        let height = slots.div_ceil(width).max(1);
        let mut atlas = PaletteAtlas {
            width,
            height,
            texels: vec![[0, 0, 0, 0]; width * height],
        };
        let mut kinds: HashMap<(String, String, Option<[u8; 4]>), u32> = HashMap::new();
        let mut fast = Vec::with_capacity(n + 1);
        let mut fancy = Vec::with_capacity(n + 1);
        let mut resolved = 0;
        let (mut from_pallet, mut from_table) = (0, 0);
        let mut unresolved_ids: Vec<String> = Vec::new();
        // Each fluid's own look, for the water in a waterlogged cell.
        let mut fluid_looks = Vec::with_capacity(fluids.fluids.len());
        for (fi, f) in fluids.fluids.iter().enumerate() {
            let key = EntryKey {
                namespace: &f.namespace,
                id: f.block.as_str(),
                color: None,
            };
            let look = resolve_entry(tables, key, platform, pallet);
            let slot = n + 1 + fi;
            if let Some(t) = atlas.texels.get_mut(slot) {
                *t = look.color.unwrap_or(UNRESOLVED_COLOR);
            }
            fluid_looks.push((surface_of(look.draw), atlas.uv(slot)));
        }
        for (i, e) in palette.iter().enumerate() {
            let color = own_color(e);
            let key = EntryKey {
                namespace: &e.ns,
                id: &e.id,
                color,
            };
            let look = if i == 0 && e.is_empty_entry() {
                tables
                    .lookup("dh", "empty", platform, None)
                    .unwrap_or_else(BlockLook::unresolved)
            } else {
                resolve_entry(tables, key, platform, pallet)
            };
            match look.source {
                LookSource::Pallet { .. } => from_pallet += 1,
                LookSource::Table { .. } => from_table += 1,
                LookSource::Unresolved => {
                    let id = format!("{}:{}", e.ns, e.id);
                    if !unresolved_ids.contains(&id) {
                        unresolved_ids.push(id);
                    }
                }
            }
            if !look.is_unresolved() {
                resolved += 1;
            }
            let kind_key = (e.ns.clone(), e.id.clone(), look.color);
            let next = kinds.len() as u32 + 1;
            let kind = *kinds.entry(kind_key).or_insert(next);
            let (mut opacity, mut emission) = light_props_for(&e.ns, &e.id, &look);
            let builtin = builtin_light_shape(e);
            if let Some((op, _)) = builtin {
                opacity = op;
            }
            let stated = light.and_then(|l| l.block_light(e)).unwrap_or_default();
            if let Some(em) = stated.emission {
                emission = em.min(15);
            }
            if let Some(op) = stated.opacity {
                opacity = op.min(15);
            }
            let mut base = CellLook {
                kind,
                inner: look.inner,
                uv0: atlas.uv(i),
                opacity,
                emission,
                light_rgb: light_rgb(emission, stated.color),
                light_shape: if stated.shape != 0 {
                    stated.shape & 63
                } else {
                    builtin.map_or(0, |(_, shape)| shape)
                },
                solid: look.solid,
                unresolved: look.is_unresolved(),
                ..CellLook::EMPTY
            };
            let mut block_drawn = look.draw != DrawAs::Empty;
            // Fluids.
            if let Some((fi, level, draws_block)) = fluids.classify(e) {
                if let Some(&(fs, fuv)) = fluid_looks.get(fi) {
                    base.fluid = fi as u8 + 1;
                    base.fluid_level = level;
                    base.fluid_surface = fs;
                    base.fluid_uv0 = fuv;
                    if let Some(f) = fluids.fluids.get(fi) {
                        let fe = f.emission.min(15);
                        base.light_rgb = base.light_rgb.map(|c| c.max(fe));
                        base.emission = base.light_rgb.iter().copied().max().unwrap_or(0);
                        base.opacity = base.opacity.max(f.opacity);
                    }
                    block_drawn &= draws_block;
                }
            }
            let color = look.color.unwrap_or(if look.is_unresolved() {
                UNRESOLVED_COLOR
            } else {
                [0, 0, 0, 0]
            });
            if let Some(t) = atlas.texels.get_mut(i) {
                *t = color;
            }
            let cell = |draw: DrawAs| {
                let mut c = base;
                let fluid = if c.fluid != 0 { FLAG_FLUID } else { 0 };
                match (draw, block_drawn) {
                    (DrawAs::Opaque, true) => {
                        c.flags = FLAG_OPAQUE | FLAG_DRAW | fluid;
                        c.surface = Surface::Opaque;
                    }
                    (DrawAs::Cutout | DrawAs::Translucent, true) => {
                        c.flags = FLAG_SEE_THROUGH | FLAG_DRAW | fluid;
                        c.surface = surface_of(draw);
                    }
                    _ => {
                        c.flags = if fluid != 0 {
                            FLAG_SEE_THROUGH | FLAG_FLUID
                        } else {
                            0
                        };
                        c.surface = Surface::Opaque;
                    }
                }
                c
            };
            fancy.push(cell(look.draw));
            let fast_draw = if look.leaves && look.draw != DrawAs::Empty {
                DrawAs::Opaque
            } else {
                look.draw
            };
            let mut f = cell(fast_draw);
            if look.leaves {
                // Fast leaves: the holes filled, so the color is drawn at full alpha.
                f.inner = false;
            }
            fast.push(f);
        }
        // The unresolved look, for any index past the palette.
        let slot = n;
        if let Some(t) = atlas.texels.get_mut(slot) {
            *t = UNRESOLVED_COLOR;
        }
        let unresolved = CellLook {
            flags: FLAG_OPAQUE | FLAG_DRAW,
            kind: u32::MAX,
            uv0: atlas.uv(slot),
            opacity: 15,
            solid: true,
            unresolved: true,
            ..CellLook::EMPTY
        };
        fast.push(unresolved);
        fancy.push(unresolved);
        let fast_flags = fast.iter().map(|c| c.flags).collect();
        let fancy_flags = fancy.iter().map(|c| c.flags).collect();
        VoxelLooks {
            fast,
            fancy,
            fast_flags,
            fancy_flags,
            atlas,
            fluids,
            resolved,
            from_pallet,
            from_table,
            unresolved_ids,
        }
    }

    /// The load log's one line for volume `name`'s palette, resolved in `ms`
    /// milliseconds (spec `dh.voxel` "Models in the chunk mesh": the log says how many
    /// entries the pallet drew and how long the resolve took): how many entries the
    /// platform pallet drew, how many a block table colored, how many wear the unresolved
    /// checker, and the first [`UNRESOLVED_NAMED`] of those blocks by id.
    pub fn resolve_line(&self, name: &str, ms: f64) -> String {
        let n = self.len();
        let unresolved = n - self.resolved;
        let checker = match unresolved {
            0 => "none wears the unresolved checker".to_string(),
            1 => "1 wears the unresolved checker".to_string(),
            k => format!("{k} wear the unresolved checker"),
        };
        let ids = if self.unresolved_ids.is_empty() {
            String::new()
        } else {
            let named: Vec<&str> = self
                .unresolved_ids
                .iter()
                .take(UNRESOLVED_NAMED)
                .map(String::as_str)
                .collect();
            let more = self.unresolved_ids.len() - named.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(" ({}{more})", named.join(", "))
        };
        format!(
            "voxel volume '{name}': {n} palette entries resolved in {ms:.1} ms: {} drawn by the platform pallet, {} from a block table, {checker}{ids}",
            self.from_pallet, self.from_table
        )
    }

    /// How many palette entries the platform pallet draws (a `dh.block` of its own).
    pub fn from_pallet_count(&self) -> usize {
        self.from_pallet
    }

    /// How many palette entries a block table colors.
    pub fn from_table_count(&self) -> usize {
        self.from_table
    }

    /// The `namespace:id` of every block that wears the unresolved checker, each once, in
    /// palette order.
    pub fn unresolved_ids(&self) -> &[String] {
        &self.unresolved_ids
    }

    /// The looks in force: `opaque_leaves` is `client.voxel.opaqueLeaves` (Minecraft's
    /// Fast leaves when true). One more entry than the palette: the unresolved look.
    pub fn cells(&self, opaque_leaves: bool) -> &[CellLook] {
        if opaque_leaves {
            &self.fast
        } else {
            &self.fancy
        }
    }

    /// Just the flags of [`VoxelLooks::cells`], the table the face pass reads per cell.
    pub fn flags(&self, opaque_leaves: bool) -> &[u8] {
        if opaque_leaves {
            &self.fast_flags
        } else {
            &self.fancy_flags
        }
    }

    /// The palette atlas.
    pub fn atlas(&self) -> &PaletteAtlas {
        &self.atlas
    }

    /// The fluid table the volume was resolved with.
    pub fn fluids(&self) -> &FluidTable {
        &self.fluids
    }

    /// How many palette entries resolved to a look (the rest wear the checker).
    pub fn resolved_count(&self) -> usize {
        self.resolved
    }

    /// Palette entries (not counting the trailing unresolved look).
    pub fn len(&self) -> usize {
        self.fast.len() - 1
    }

    /// Whether the palette is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
