//! A volume's resolved palette: what each global palette entry draws as, what it hides,
//! where its color sits in the palette atlas, and what it does to light.

use std::collections::HashMap;
use std::sync::Arc;

use dh_content::voxel::blocks::{
    parse_color, resolve_entry, BlockLook, BlockTables, DrawAs, EntryKey, LookSource,
    PlatformPallet,
};
use dh_content::voxel::payload::{PaletteEntry, PropValue};

use dh_content::schema::block::BlockDef;
use dh_content::schema::material::AlphaMode;
use glam::Vec3;

use super::atlas::{TileAtlas, TileId, TileKey};
use super::atlas_chain::TileSurface;
use super::cell::{builtin_light_shape, light_props_for, prop_text};
use super::cell::{
    CellLook, Surface, FLAG_DRAW, FLAG_FLUID, FLAG_MODEL, FLAG_OPAQUE, FLAG_SEE_THROUGH,
};
use super::fluid::FluidTable;
use super::mesh::cube_corner;
use super::model::{bake, BakedModel};
use super::platform::PlatformBlocks;

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

/// One face of a modeled palette entry as the mesher copies it (block space, its UV0
/// already in the volume's atlas).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshFace {
    /// The corners, block space (0 to 1), counter-clockwise seen from outside.
    pub corners: [Vec3; 4],
    /// Each corner's atlas coordinate (UV0).
    pub uv0: [[f32; 2]; 4],
    /// The unit normal, block space.
    pub normal: Vec3,
    /// The unit direction the texture's u runs along, block space.
    pub tangent: Vec3,
    /// The direction index ([`super::FACE_DIRS`]) nearest the normal.
    pub dir: u8,
    /// The side it is culled against, a direction index; `None` always draws.
    pub cull: Option<u8>,
}

/// One baked choice of a modeled entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshModel {
    /// Its faces.
    pub faces: Vec<MeshFace>,
    /// The sides its opaque faces cover whole, one bit per direction index.
    pub covers: u8,
    /// For a whole cube, per direction, the atlas UV0 at each of the mesher's four
    /// corners of that face (the cube path's order).
    pub cube_uv: Option<[[[f32; 2]; 4]; 6]>,
}

/// One matching rule of a modeled entry: its weighted choices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelPart {
    /// Each choice's weight (≥ 1).
    pub weights: Vec<u32>,
    /// The choices, baked.
    pub choices: Vec<MeshModel>,
}

/// A modeled palette entry: every rule that applies to its state (one, or every match of
/// a multipart block).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntryModel {
    /// The parts, each drawn.
    pub parts: Vec<ModelPart>,
    /// Whether it is one part whose every choice is a whole cube: it stays on the cube
    /// path with per-face UVs.
    pub cube: bool,
}

/// The plains colours a biome tint reads until biome colormaps are drawn (spec: "A cell
/// with no biome, and a container with no biome layer, reads as plains").
pub const PLAINS_GRASS: [u8; 3] = [0x91, 0xbd, 0x59];
/// Plains' foliage colour.
pub const PLAINS_FOLIAGE: [u8; 3] = [0x77, 0xab, 0x2f];
/// Plains' water colour.
pub const PLAINS_WATER: [u8; 3] = [0x3f, 0x76, 0xe4];

/// The colour a block's `tint` gives its tinted faces: a fixed `#rrggbb`, or plains'
/// colour for a biome tint; `None` for `redstone` and `stem` (drawn untinted yet).
pub fn tint_color(tint: &str) -> Option<[u8; 3]> {
    match tint {
        "grass" => Some(PLAINS_GRASS),
        "foliage" => Some(PLAINS_FOLIAGE),
        "water" => Some(PLAINS_WATER),
        t if t.len() == 7 && t.starts_with('#') => {
            let v = u32::from_str_radix(&t[1..], 16).ok()?;
            Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])
        }
        _ => None,
    }
}

/// A baked choice and each of its faces' tile.
type PreChoice = (Arc<BakedModel>, Vec<TileId>);

/// An entry's models before the atlas is laid out: per part, its weights and choices.
struct PreModel {
    def: Arc<BlockDef>,
    parts: Vec<(Vec<u32>, Vec<PreChoice>)>,
}

/// What the pre-pass found of a palette's pallet blocks.
#[derive(Default)]
struct PrePass {
    entries: Vec<Option<PreModel>>,
    tiles: TileAtlas,
    notes: Vec<String>,
}

fn surface_of_alpha(a: Option<AlphaMode>) -> DrawAs {
    match a {
        Some(AlphaMode::Mask) => DrawAs::Cutout,
        Some(AlphaMode::Blend) => DrawAs::Translucent,
        _ => DrawAs::Opaque,
    }
}

/// Bakes every palette entry the platform pallet defines a model for, requesting its
/// faces' tiles.
fn pre_pass(palette: &[PaletteEntry], blocks: &PlatformBlocks) -> PrePass {
    let mut out = PrePass {
        entries: Vec::with_capacity(palette.len()),
        ..PrePass::default()
    };
    type BakeKey = (String, String, i32, i32, bool, bool);
    let mut baked: HashMap<BakeKey, Option<Arc<BakedModel>>> = HashMap::new();
    let mut biome_tint = false;
    let mut other_tint: Vec<String> = Vec::new();
    let mut unshaded = false;
    let mut fluid_blocks: Vec<String> = Vec::new();
    for (i, e) in palette.iter().enumerate() {
        let skip = (i == 0 && e.is_empty_entry()) || e.ns != blocks.namespace();
        let def = if skip { None } else { blocks.block(&e.id) };
        if let Some(d) = def.as_ref().filter(|d| d.fluid.is_some()) {
            if !fluid_blocks.contains(&d.id) {
                fluid_blocks.push(d.id.clone());
            }
        }
        let Some(def) = def.filter(|d| d.fluid.is_none()) else {
            out.entries.push(None);
            continue;
        };
        let prop = |k: &str| {
            e.properties
                .iter()
                .find(|p| p.key == k)
                .map(|p| prop_text(&p.value))
        };
        let opaque = surface_of_alpha(def.alpha_mode) == DrawAs::Opaque;
        let tile_surface = match surface_of_alpha(def.alpha_mode) {
            DrawAs::Cutout => TileSurface::Cutout { dark_cutout: false },
            DrawAs::Translucent => TileSurface::Translucent,
            _ => TileSurface::Opaque,
        };
        let glow = def
            .light_emission
            .as_ref()
            .map_or(0, |le| le.level_for(&prop).min(15));
        let tint = def.tint.as_deref().and_then(tint_color);
        if let Some(t) = def.tint.as_deref() {
            if matches!(t, "grass" | "foliage" | "water") {
                biome_tint = true;
            } else if tint.is_none() && !other_tint.iter().any(|o| o == t) {
                other_tint.push(t.to_string());
            }
        }
        let mut parts = Vec::new();
        for rule in def.matching(&prop) {
            let mut weights = Vec::new();
            let mut choices = Vec::new();
            for c in &rule.apply {
                let key = (
                    e.id.clone(),
                    c.model.clone(),
                    c.x.unwrap_or(0),
                    c.y.unwrap_or(0),
                    c.uvlock == Some(true),
                    opaque,
                );
                let m = baked
                    .entry(key)
                    .or_insert_with(|| {
                        let model = def.models.as_ref()?.get(&c.model)?;
                        bake(model, c, opaque).ok().map(Arc::new)
                    })
                    .clone();
                let Some(m) = m else { continue };
                unshaded |= m.faces.iter().any(|f| !f.shade);
                let tiles = m
                    .faces
                    .iter()
                    .map(|f| {
                        out.tiles.request(TileKey {
                            texture: f.texture.clone(),
                            tint: if f.tint { tint } else { None },
                            glow,
                            surface: tile_surface,
                        })
                    })
                    .collect();
                weights.push(c.weight.unwrap_or(1).max(1));
                choices.push((m, tiles));
            }
            if !choices.is_empty() {
                parts.push((weights, choices));
            }
        }
        if parts.is_empty() {
            out.entries.push(None);
        } else {
            out.entries.push(Some(PreModel { def, parts }));
        }
    }
    if biome_tint {
        out.notes.push(format!(
            "platform pallet '{}': biome tints are drawn in plains' colours (grass #91bd59, foliage #77ab2f, water #3f76e4); the biome layer's colormaps are not read yet",
            blocks.id()
        ));
    }
    if !other_tint.is_empty() {
        out.notes.push(format!(
            "platform pallet '{}': the '{}' tint is not drawn yet; those faces are untinted",
            blocks.id(),
            other_tint.join("', '")
        ));
    }
    if unshaded {
        out.notes.push(format!(
            "platform pallet '{}': an element's 'shade' (false) is not drawn yet; its faces are lit like the others",
            blocks.id()
        ));
    }
    if !fluid_blocks.is_empty() {
        out.notes.push(format!(
            "platform pallet '{}': the 'fluid' member of {} is not read yet; fluids are drawn from the built-in fluid table in the block table's colour, not from their still and flow textures",
            blocks.id(),
            fluid_blocks.join(", ")
        ));
    }
    out.notes.push(format!(
        "platform pallet '{}': block textures are drawn at their first frame (animations are not drawn yet) and blended faces at their texels' own coverage (client.voxel.translucentCoverage is not applied yet)",
        blocks.id()
    ));
    out
}

/// The unit direction texture u runs along on a face of corners `p` and UVs `uv`.
fn face_tangent(p: &[glam::DVec3; 4], uv: &[[f32; 2]; 4], normal: Vec3) -> Vec3 {
    let e1 = (p[1] - p[0]).as_vec3();
    let e2 = (p[3] - p[0]).as_vec3();
    let (du1, dv1) = (uv[1][0] - uv[0][0], uv[1][1] - uv[0][1]);
    let (du2, dv2) = (uv[3][0] - uv[0][0], uv[3][1] - uv[0][1]);
    let det = du1 * dv2 - du2 * dv1;
    let t = if det.abs() > 1e-12 {
        (e1 * dv2 - e2 * dv1) / det
    } else {
        e2
    };
    let t = t - normal * normal.dot(t);
    let t = t.normalize_or_zero();
    if t == Vec3::ZERO {
        normal.any_orthonormal_vector()
    } else {
        t
    }
}

/// A baked choice with its faces' atlas UVs: `unresolved` is the checker's UV for a face
/// whose tile has no texels.
fn mesh_model(
    m: &BakedModel,
    tiles: &[TileId],
    atlas: &TileAtlas,
    unresolved: [f32; 2],
) -> MeshModel {
    let faces: Vec<MeshFace> = m
        .faces
        .iter()
        .zip(tiles)
        .map(|(f, &t)| {
            let uv0 = match atlas.uv_rect(t) {
                Some([u0, v0, u1, v1]) => {
                    f.uvs.map(|[u, v]| [u0 + (u1 - u0) * u, v0 + (v1 - v0) * v])
                }
                None => [unresolved; 4],
            };
            let normal = f.normal.as_vec3();
            MeshFace {
                corners: f.corners.map(|c| c.as_vec3()),
                uv0,
                normal,
                tangent: face_tangent(&f.corners, &f.uvs, normal),
                dir: f.dir as u8,
                cull: f.cull.map(|c| c as u8),
            }
        })
        .collect();
    let cube_uv = m.cube.then(|| {
        let mut out = [[[0.0f32; 2]; 4]; 6];
        for (d, o) in out.iter_mut().enumerate() {
            for (k, uv) in o.iter_mut().enumerate() {
                let want = cube_corner(d, k).as_vec3();
                *uv = faces
                    .iter()
                    .filter(|f| usize::from(f.dir) == d)
                    .flat_map(|f| f.corners.iter().zip(f.uv0))
                    .find(|(c, _)| (**c - want).length() < 1e-4)
                    .map_or(unresolved, |(_, uv)| uv);
            }
        }
        out
    });
    MeshModel {
        faces,
        covers: m.covers,
        cube_uv,
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
    fast_pass: Vec<u8>,
    fancy_pass: Vec<u8>,
    atlas: PaletteAtlas,
    fluids: FluidTable,
    resolved: usize,
    from_pallet: usize,
    from_table: usize,
    /// The `namespace:id` of each entry that wears the checker, in palette order, each
    /// once.
    unresolved_ids: Vec<String>,
    /// The modeled entries' models; a cell's [`CellLook::model`] is 1 + an index here.
    models: Vec<EntryModel>,
    /// Atlas tiles laid out with texels.
    tiles: usize,
    /// The model faces' tiles, placed below the palette.
    block_tiles: TileAtlas,
    /// What the load log says once about the platform pallet's blocks.
    notes: Vec<String>,
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
        Self::resolve_all(palette, tables, platform, pallet, fluids, light, None)
    }

    /// Resolves every entry of `palette` through the platform pallet `blocks` (spec
    /// `dh.voxel`, "How a block is drawn", "Models in the chunk mesh"): each entry its
    /// block's `dh.block` defines models for is drawn from them (its rules applied to the
    /// entry's properties: the first match, or every match for a multipart block; each
    /// choice baked once, its faces' textures packed into the volume's atlas below the
    /// palette colours), its surface from the block's `alphaMode`, its light from its
    /// `lightEmission` by state (`light`, when given, is read instead) and its
    /// `lightShape` from the sides its model covers; every other entry as
    /// [`VoxelLooks::resolve_lit`] resolves it.
    pub fn resolve_platform(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        blocks: &PlatformBlocks,
        fluids: Option<&FluidTable>,
        light: Option<&dyn PalletLight>,
    ) -> VoxelLooks {
        let light = light.unwrap_or(blocks as &dyn PalletLight);
        Self::resolve_all(
            palette,
            tables,
            platform,
            Some(blocks as &dyn PlatformPallet),
            fluids,
            Some(light),
            Some(blocks),
        )
    }

    fn resolve_all(
        palette: &[PaletteEntry],
        tables: &BlockTables,
        platform: Option<&str>,
        pallet: Option<&dyn PlatformPallet>,
        fluids: Option<&FluidTable>,
        light: Option<&dyn PalletLight>,
        blocks: Option<&PlatformBlocks>,
    ) -> VoxelLooks {
        let fluids = fluids.cloned().unwrap_or_default();
        let n = palette.len();
        let slots = n + 1 + fluids.fluids.len();
        // The pallet's models first: their tiles decide the atlas's size.
        let mut pre = blocks.map(|b| pre_pass(palette, b)).unwrap_or_default();
        let load = |p: &str| blocks.and_then(|b| b.texture(p));
        let (width, height) = pre.tiles.build(slots, ATLAS_WIDTH, &load);
        let mut notes = std::mem::take(&mut pre.notes);
        for e in pre.tiles.errors() {
            notes.push(format!(
                "platform pallet '{}': {e}; its faces wear the unresolved checker",
                blocks.map_or("", |b| b.id())
            ));
        }
        if let Some(b) = blocks {
            notes.extend(b.take_errors());
        }
        let mut atlas = PaletteAtlas {
            width,
            height,
            texels: vec![[0, 0, 0, 0]; width * height],
        };
        let unresolved_uv = atlas.uv(n);
        let mut models: Vec<EntryModel> = Vec::new();
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
            // A block the pallet models: drawn from its models, its surface its
            // alphaMode's.
            let mut draw = look.draw;
            let mut model_only = false;
            if let Some(pm) = pre.entries.get(i).and_then(Option::as_ref) {
                let parts: Vec<ModelPart> = pm
                    .parts
                    .iter()
                    .map(|(weights, choices)| ModelPart {
                        weights: weights.clone(),
                        choices: choices
                            .iter()
                            .map(|(m, tiles)| mesh_model(m, tiles, &pre.tiles, unresolved_uv))
                            .collect(),
                    })
                    .collect();
                let cube = parts.len() == 1 && parts[0].choices.iter().all(|c| c.cube_uv.is_some());
                let covers = parts.iter().fold(0u8, |acc, p| {
                    acc | p.choices.iter().fold(63u8, |a, c| a & c.covers)
                });
                draw = surface_of_alpha(pm.def.alpha_mode);
                model_only = !cube;
                base.covers = if cube { 0 } else { covers };
                if pm.def.light_shape == Some(true) && stated.shape == 0 {
                    base.light_shape = covers & 63;
                }
                models.push(EntryModel { parts, cube });
                base.model = models.len() as u32;
            }
            let mut block_drawn = draw != DrawAs::Empty;
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
                // A model that is not a whole cube is drawn cell by cell, face by
                // face: it hides nothing on the cube path.
                if model_only && block_drawn {
                    c.flags = FLAG_MODEL
                        | if fluid != 0 {
                            FLAG_SEE_THROUGH | fluid
                        } else {
                            0
                        };
                }
                c
            };
            fancy.push(cell(draw));
            let fast_draw = if look.leaves && draw != DrawAs::Empty {
                DrawAs::Opaque
            } else {
                draw
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
        let tiles = pre.tiles.built_count();
        let pass = |cells: &[CellLook]| -> Vec<u8> {
            cells
                .iter()
                .map(|c| {
                    if c.flags & FLAG_MODEL != 0 {
                        (c.flags | FLAG_FLUID) & !FLAG_MODEL
                    } else {
                        c.flags
                    }
                })
                .collect()
        };
        let (fast_pass, fancy_pass) = (pass(&fast), pass(&fancy));
        VoxelLooks {
            fast,
            fancy,
            fast_flags,
            fancy_flags,
            fast_pass,
            fancy_pass,
            atlas,
            fluids,
            resolved,
            from_pallet,
            from_table,
            unresolved_ids,
            models,
            tiles,
            block_tiles: pre.tiles,
            notes,
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
        let tiles = if self.tiles > 0 || !self.models.is_empty() {
            format!(" ({} atlas tiles)", self.tiles)
        } else {
            String::new()
        };
        format!(
            "voxel volume '{name}': {n} palette entries resolved in {ms:.1} ms: {} drawn by the platform pallet{tiles}, {} from a block table, {checker}{ids}",
            self.from_pallet, self.from_table
        )
    }

    /// [`VoxelLooks::resolve_line`] with where the platform pallet was found: `pallet`'s
    /// id, how many mounted pallets were looked at to find it and in how many
    /// milliseconds (spec: "how many pallets it opened, and in how long, to find the
    /// platform's").
    pub fn resolve_line_found(&self, name: &str, ms: f64, pallet: (&str, usize, f64)) -> String {
        let (id, searched, found_ms) = pallet;
        let s = if searched == 1 { "" } else { "s" };
        format!(
            "{}; platform pallet '{id}' found among {searched} pallet{s} opened in {found_ms:.1} ms",
            self.resolve_line(name, ms)
        )
    }

    /// The modeled entries' models (a cell's [`CellLook::model`] is 1 + an index).
    pub fn models(&self) -> &[EntryModel] {
        &self.models
    }

    /// Atlas tiles the modeled faces took (laid out with texels).
    pub fn tile_count(&self) -> usize {
        self.tiles
    }

    /// What the load log says once about what the pallet's blocks draw and do not yet.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The flags the face pass reads per cell: [`VoxelLooks::flags`] with
    /// [`FLAG_FLUID`] also set on a modeled cell that is not a whole cube, which the pass
    /// lists cell by cell with the fluids.
    pub fn pass_flags(&self, opaque_leaves: bool) -> &[u8] {
        if opaque_leaves {
            &self.fast_pass
        } else {
            &self.fancy_pass
        }
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

    /// The block atlas's tiles (the model faces' textures), laid out below the palette:
    /// [`TileAtlas::lay_out`] it over [`VoxelLooks::atlas`] for the whole chain.
    pub fn block_tiles(&self) -> &TileAtlas {
        &self.block_tiles
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
