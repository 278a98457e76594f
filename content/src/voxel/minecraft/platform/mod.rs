//! `dh import minecraft <client.jar | assets folder> --into <dir>`: the platform pallet
//! `com.mojang.minecraft`, generated on the user's machine from their own game files
//! (spec dh.voxel, "How a block is drawn": DH never ships it, since Mojang's assets are
//! not DH's to redistribute).
//!
//! Reading ([`source`]): a client jar (a zip) or an unpacked `assets/` folder, bounded
//! by [`Limits`]: the entry count, each asset's inflated size (a zip bomb's entry stops
//! at the cap, whatever its header says), the total inflated, and every entry's name
//! (nothing absolute, no `..`). Only `assets/minecraft/blockstates/*.json`,
//! `models/**/*.json`, `textures/**/*.png` (+ `.mcmeta`) and `version.json` are inflated.
//!
//! Folding ([`model`], [`blockstate`]): every blockstate's rules (variants with
//! property-string keys, `""` included, or multipart with `when`, `OR` and `AND`; weighted
//! lists; x and y turns; uvlock), each model's parent chain folded (textures child over
//! parent, the nearest elements; a loop or a chain deeper than
//! [`model::MAX_PARENT_DEPTH`] is an error naming the model), every face's texture
//! variable resolved to a pallet path and its default UV filled in. PNG headers are
//! checked ([`Limits::max_texture_side`], 4096 a side).
//!
//! Writing, into `<dir>` (every file compared before it is written, so a rerun on an
//! unchanged source writes nothing; bytes are deterministic):
//!
//! * `pallet.dh`: id `com.mojang.minecraft`, the game's version as `major.minor.patch`
//!   (`0.0.0` for a snapshot or none), no dependencies;
//! * `blocks/<id>.dh-block`, one per blockstate that draws something (a block whose
//!   models have no elements, a chest or a sign, is drawn by game code and left to the
//!   colour table; a fluid is written whatever its model): the rules, the models folded,
//!   `alphaMode` and `surface` from the built-in block table (`minecraft.blocks`), and
//!   the game-code facts of [`game`]: `lightEmission` by state, `lightShape`, `tint`,
//!   the fluid, and `collision` (`none` where the table says passable, `cube` for a whole
//!   cube, else `model`, with `collisionHeight` 24 on fences and walls). A `.dh-block`
//!   in `blocks/` that this import did not write is removed (the folder is the
//!   importer's);
//! * the textures the blocks name, the fluids' and the grass and foliage colormaps,
//!   copied as they are under `textures/`, each with its `.mcmeta` when it has one;
//! * `maps/environment.dh-map`: the environment template imported worlds inherit
//!   (sun, procedural sky, look);
//! * `blocks.fingerprint`: the fingerprint of the block definitions, the lowercase hex
//!   SHA-256 over every written `.dh-block` in path order, each as its path, a NUL, its
//!   length (u64 little-endian) and its bytes ("ours": the spec names a fingerprint of
//!   the block definitions, not its bytes).

pub mod blockstate;
pub mod game;
pub mod model;
pub mod source;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::jsonc::{Kind, Member, Value};
use crate::read::member;
use crate::schema::block::{parse_block_def, Condition};
use crate::schema::voxel::MINECRAFT;
use crate::voxel::blocks::{BlockTables, DrawAs};

use blockstate::{read_blockstate, RawChoice};
use model::{BakedModel, Models};
use source::{png_size, Assets};

/// The fingerprint file's name.
pub const FINGERPRINT_FILE: &str = "blocks.fingerprint";
/// The environment template's path in the pallet.
pub const ENVIRONMENT_MAP: &str = "maps/environment.dh-map";
/// The colormaps copied beside the block textures.
pub const COLORMAPS: [&str; 2] = [
    "textures/colormap/grass.png",
    "textures/colormap/foliage.png",
];

/// What one import may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Entries in the jar (files and folders in a folder).
    pub max_entries: usize,
    /// Inflated bytes of one asset.
    pub max_entry_bytes: u64,
    /// Inflated bytes of every asset read together.
    pub max_total_bytes: u64,
    /// Texels along a texture's side.
    pub max_texture_side: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_entries: 200_000,
            max_entry_bytes: 16 << 20,
            max_total_bytes: 1 << 30,
            max_texture_side: 4096,
        }
    }
}

/// An error importing the platform pallet: the file (a jar entry as `jar!/entry`) and
/// what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlatformError {
    /// A file could not be read or written.
    #[error("{path}: cannot {action}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What was being attempted.
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The input is neither a jar nor an assets folder.
    #[error("{path}: not a client jar or an assets folder: {why}")]
    NotAssets {
        /// The input.
        path: String,
        /// Why.
        why: String,
    },
    /// The jar as a whole is unreadable or too large.
    #[error("{jar}: {message}")]
    Jar {
        /// The jar.
        jar: String,
        /// What and why.
        message: String,
    },
    /// One entry of the jar (or file of the folder) is refused.
    #[error("{file}: {message}")]
    Entry {
        /// The entry, `jar!/name`.
        file: String,
        /// What and why.
        message: String,
    },
    /// An asset (a model, a blockstate, a texture) is malformed.
    #[error("{file}: {message}")]
    Asset {
        /// The asset, `jar!/assets/minecraft/...`.
        file: String,
        /// Where and what.
        message: String,
    },
    /// A written block did not read back clean (a bug, reported rather than shipped).
    #[error("{path}: the block written does not read back: {message}")]
    Definition {
        /// The block's path.
        path: String,
        /// The diagnostics.
        message: String,
    },
}

/// Options for [`import_platform`].
#[derive(Default)]
pub struct PlatformOptions<'a> {
    /// What may be read.
    pub limits: Limits,
    /// Called as blockstates are folded: `(done, total)`.
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlatformReport {
    /// Blockstates read.
    pub blockstates: usize,
    /// Blocks written (`.dh-block` files), changed or not.
    pub blocks: usize,
    /// Blockstates left to the colour table (no model elements: drawn by game code).
    pub skipped: Vec<String>,
    /// Models folded.
    pub models: usize,
    /// Textures copied (each `.mcmeta` counted with its PNG).
    pub textures: usize,
    /// Files written (new or changed).
    pub written: Vec<PathBuf>,
    /// Files already as they would be written.
    pub unchanged: usize,
    /// Stale `.dh-block` files removed.
    pub removed: Vec<PathBuf>,
    /// The fingerprint of the block definitions (lowercase hex SHA-256).
    pub fingerprint: String,
    /// The game's version, when the source says.
    pub version: Option<String>,
    /// What the import worked around.
    pub warnings: Vec<String>,
}

/// Reads `input` (a `.jar`, or a folder) under `limits`.
pub fn read_source(input: &Path, limits: &Limits) -> Result<Assets, PlatformError> {
    let shown = input.display().to_string();
    if input.is_dir() {
        return source::read_folder(input, limits);
    }
    let meta = std::fs::metadata(input).map_err(|source| PlatformError::Io {
        path: shown.clone(),
        action: "read",
        source,
    })?;
    // A jar is read whole: its central directory is at its end.
    if meta.len() > limits.max_total_bytes {
        return Err(PlatformError::Jar {
            jar: shown,
            message: format!(
                "the jar is {} bytes; the importer reads at most {}",
                meta.len(),
                limits.max_total_bytes
            ),
        });
    }
    let bytes = std::fs::read(input).map_err(|source| PlatformError::Io {
        path: shown.clone(),
        action: "read",
        source,
    })?;
    source::read_jar(&shown, &bytes, limits)
}

fn s(v: &str) -> Value {
    Value::synthetic(Kind::String(v.to_string()))
}
fn n(v: f64) -> Value {
    Value::synthetic(Kind::Number(v))
}
fn b(v: bool) -> Value {
    Value::synthetic(Kind::Bool(v))
}
fn obj(m: Vec<Member>) -> Value {
    Value::synthetic(Kind::Object(m))
}
fn arr(v: Vec<Value>) -> Value {
    Value::synthetic(Kind::Array(v))
}
fn nums(v: &[f64]) -> Value {
    arr(v.iter().map(|x| n(*x)).collect())
}

fn condition_json(c: &Condition) -> Value {
    crate::read::ToJson::to_json(c)
}

fn choice_json(c: &RawChoice) -> Value {
    let mut m = vec![member("model", s(&c.model))];
    if c.x != 0 {
        m.push(member("x", n(f64::from(c.x))));
    }
    if c.y != 0 {
        m.push(member("y", n(f64::from(c.y))));
    }
    if c.uvlock {
        m.push(member("uvlock", b(true)));
    }
    if c.weight != 1 {
        m.push(member("weight", n(f64::from(c.weight))));
    }
    obj(m)
}

fn model_json(m: &BakedModel) -> Value {
    let mut out = Vec::new();
    if !m.ambient_occlusion {
        out.push(member("ambientOcclusion", b(false)));
    }
    let elements: Vec<Value> = m
        .elements
        .iter()
        .map(|e| {
            let mut em = vec![member("from", nums(&e.from)), member("to", nums(&e.to))];
            if let Some(r) = &e.rotation {
                let mut rm = vec![
                    member("origin", nums(&r.origin)),
                    member("axis", s(r.axis.as_str())),
                    member("angle", n(r.angle)),
                ];
                if r.rescale {
                    rm.push(member("rescale", b(true)));
                }
                em.push(member("rotation", obj(rm)));
            }
            if !e.shade {
                em.push(member("shade", b(false)));
            }
            if let Some(l) = e.light_emission {
                em.push(member("lightEmission", n(f64::from(l))));
            }
            // Faces in the schema's order.
            let mut faces: Vec<&(crate::schema::block::Direction, model::BakedFace)> =
                e.faces.iter().collect();
            faces.sort_by_key(|(d, _)| *d);
            let fm: Vec<Member> = faces
                .into_iter()
                .map(|(d, f)| {
                    let mut m = vec![member("uv", nums(&f.uv)), member("texture", s(&f.texture))];
                    if let Some(c) = f.cull {
                        m.push(member("cullFace", s(c.as_str())));
                    }
                    if f.rotation != 0 {
                        m.push(member("rotation", n(f64::from(f.rotation))));
                    }
                    if let Some(t) = f.tint {
                        m.push(member("tintIndex", n(f64::from(t))));
                    }
                    member(d.as_str(), obj(m))
                })
                .collect();
            if !fm.is_empty() {
                em.push(member("faces", obj(fm)));
            }
            obj(em)
        })
        .collect();
    if !elements.is_empty() {
        out.push(member("elements", arr(elements)));
    }
    obj(out)
}

/// The `.dh-block` text of one blockstate, with the textures it names (paths under
/// `assets/minecraft/`); `None` when it draws nothing and is no fluid.
fn block_text(
    id: &str,
    file: &str,
    bytes: &[u8],
    models: &mut Models<'_>,
    tables: Option<&BlockTables>,
) -> Result<Option<(String, Vec<String>)>, PlatformError> {
    let state = read_blockstate(file, bytes)?;
    let mut used: BTreeMap<String, BakedModel> = BTreeMap::new();
    for r in &state.rules {
        for c in &r.apply {
            if !used.contains_key(&c.model) {
                let m = models.bake(&c.model, file)?.clone();
                used.insert(c.model.clone(), m);
            }
        }
    }
    let fluid = game::fluid(id);
    let draws = used
        .values()
        .any(|m| m.elements.iter().any(|e| !e.faces.is_empty()));
    if !draws && fluid.is_none() {
        return Ok(None);
    }
    let look = tables.and_then(|t| t.lookup("minecraft", id, Some(MINECRAFT), None));
    let mut textures: Vec<String> = Vec::new();
    let mut tinted = false;
    for m in used.values() {
        for e in &m.elements {
            for (_, f) in &e.faces {
                textures.push(f.texture_file.clone());
                tinted |= f.tint.is_some();
            }
        }
    }

    let mut top = vec![
        member("$type", s(crate::schema::block::TYPE_ID)),
        member("id", s(&format!("minecraft:{id}"))),
    ];
    if state.multipart {
        top.push(member("multipart", b(true)));
    }
    let rules: Vec<Value> = state
        .rules
        .iter()
        .map(|r| {
            let mut m = Vec::new();
            if let Some(w) = &r.when {
                m.push(member("when", condition_json(w)));
            }
            m.push(member(
                "apply",
                arr(r.apply.iter().map(choice_json).collect()),
            ));
            obj(m)
        })
        .collect();
    top.push(member("rules", arr(rules)));
    top.push(member(
        "models",
        obj(used.iter().map(|(k, m)| member(k, model_json(m))).collect()),
    ));
    let alpha = match look.as_ref().map(|l| l.draw) {
        Some(DrawAs::Cutout) => "mask",
        Some(DrawAs::Translucent) => "blend",
        _ => "opaque",
    };
    top.push(member("alphaMode", s(alpha)));
    let surface = look
        .as_ref()
        .map_or(crate::schema::surface::DEFAULT_SURFACE, |l| l.surface);
    top.push(member("surface", s(surface)));
    if tinted || fluid.is_some_and(|f| f.0 == "water") {
        if let Some(t) = game::tint(id) {
            top.push(member("tint", s(t)));
        }
    }
    let (level, rows) = game::light(id);
    if level > 0 || rows.iter().any(|r| r.1 > 0) {
        let mut lm = vec![member("level", n(f64::from(level)))];
        if !rows.is_empty() {
            lm.push(member(
                "byState",
                arr(rows
                    .iter()
                    .map(|(when, l)| {
                        obj(vec![
                            member(
                                "when",
                                obj(when.iter().map(|(k, v)| member(k, s(v))).collect()),
                            ),
                            member("level", n(f64::from(*l))),
                        ])
                    })
                    .collect()),
            ));
        }
        top.push(member("lightEmission", obj(lm)));
    }
    if game::light_shape(id) {
        top.push(member("lightShape", b(true)));
    }
    if let Some((name, logged, still, flow)) = fluid {
        let mut fm = vec![member("name", s(name)), member("levelProperty", s("level"))];
        if let Some(l) = logged {
            fm.push(member("loggedProperty", s(l)));
        }
        fm.push(member("still", s(&format!("/{still}"))));
        fm.push(member("flow", s(&format!("/{flow}"))));
        top.push(member("fluid", obj(fm)));
        textures.push(still.to_string());
        textures.push(flow.to_string());
    }
    let solid = look.as_ref().is_none_or(|l| l.solid);
    let full = used.values().all(BakedModel::is_full_cube);
    let collision = if !solid {
        "none"
    } else if full {
        "cube"
    } else {
        "model"
    };
    top.push(member("collision", s(collision)));
    if solid && !full {
        if let Some(h) = game::collision_height(id) {
            top.push(member("collisionHeight", n(h)));
        }
    }
    Ok(Some((obj(top).to_json_pretty(), textures)))
}

/// The pallet's version from the game's: `1.21.4` as is, `26.1` as `26.1.0`, anything
/// else (a snapshot, none) `0.0.0`.
pub fn pallet_version(game: Option<&str>) -> String {
    let Some(v) = game else {
        return "0.0.0".into();
    };
    let parts: Vec<&str> = v.split('.').collect();
    let numeric = !parts.is_empty()
        && parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|c| c.is_ascii_digit()));
    if !numeric {
        return "0.0.0".into();
    }
    let mut p: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
    while p.len() < 3 {
        p.push("0".into());
    }
    p.join(".")
}

fn pallet_text(version: Option<&str>) -> String {
    let shown = version.map_or("an unknown version".to_string(), |v| {
        format!("Minecraft {v}")
    });
    format!(
        "// Generated by `dh import minecraft` from this machine's own game files ({shown}).\n// Mojang's assets: never ship or commit this pallet. Run the import again to refresh it.\n{{\n  \"id\": \"{MINECRAFT}\",\n  \"name\": \"Minecraft\",\n  \"version\": \"{}\",\n  \"dependencies\": []\n}}\n",
        pallet_version(version)
    )
}

/// The environment template's text: a sun, the procedural sky and a look.
pub fn environment_text() -> String {
    "// The Minecraft environment every imported world inherits: a sun, the procedural sky and\n// the look. Written by `dh import minecraft`; a world's own map states where it departs.\n{\n  \"name\": \"Minecraft environment\",\n  \"description\": \"The sun, sky and look imported Minecraft worlds inherit.\",\n  \"look\": \"neutral\",\n  \"lighting\": {\n    \"sunDirection\": [-0.35, -0.85, -0.4],\n    \"sunColor\": [1, 0.96, 0.9],\n    \"sunIntensity\": 2.2,\n    \"sky\": true,\n    \"ambientIntensity\": 0.6\n  },\n  \"render\": {\n    \"tonemap\": \"aces\",\n    \"exposure\": 1\n  }\n}\n".to_string()
}

/// The fingerprint of block definitions given as `(path, bytes)` in path order (see the
/// module doc).
pub fn fingerprint<'a>(blocks: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut h = Sha256::new();
    for (p, bytes) in blocks {
        h.update(p.as_bytes());
        h.update([0u8]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Everything an import writes, by path in the pallet, before anything is written.
#[derive(Debug, Default)]
pub struct PlatformFiles {
    /// Path → bytes, sorted.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The report so far (counts, warnings, fingerprint).
    pub report: PlatformReport,
}

/// Folds `assets` into the pallet's files (nothing is written).
pub fn build_files(
    assets: &Assets,
    options: &PlatformOptions<'_>,
) -> Result<PlatformFiles, PlatformError> {
    let tables = BlockTables::builtin().ok();
    let mut out = PlatformFiles::default();
    let states: Vec<(&String, &Vec<u8>)> = assets
        .files
        .iter()
        .filter(|(k, _)| k.starts_with("blockstates/") && !k[12..].contains('/'))
        .collect();
    let total = states.len();
    let mut models = Models::new(assets);
    let mut textures: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (i, (rel, bytes)) in states.iter().enumerate() {
        let id = &rel["blockstates/".len()..rel.len() - ".json".len()];
        let file = assets.name(rel);
        let valid_id = !id.is_empty()
            && id.bytes().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-' | b'.')
            });
        if !valid_id {
            out.report.warnings.push(format!(
                "{file}: '{id}' is not a block id (lowercase letters, digits, _ - .); left out"
            ));
            continue;
        }
        match block_text(id, &file, bytes, &mut models, tables)? {
            Some((text, used)) => {
                let path = crate::voxel::blocks::block_path(id);
                if let Err(d) = parse_block_def(&path, &text) {
                    return Err(PlatformError::Definition {
                        path,
                        message: d.to_string(),
                    });
                }
                textures.extend(used);
                out.files.insert(path, text.into_bytes());
                out.report.blocks += 1;
            }
            None => out.report.skipped.push(format!("minecraft:{id}")),
        }
        if let Some(p) = options.progress {
            p(i + 1, total);
        }
    }
    out.report.blockstates = total;
    out.report.models = models.baked_count();
    out.report.warnings.append(&mut models.warnings);
    for c in COLORMAPS {
        if assets.files.contains_key(c) {
            textures.insert(c.to_string());
        }
    }
    for t in &textures {
        let Some(bytes) = assets.files.get(t) else {
            out.report.warnings.push(format!(
                "{}: not in the source; a fluid's texture is missing",
                assets.name(t)
            ));
            continue;
        };
        png_size(bytes, options.limits.max_texture_side).map_err(|message| {
            PlatformError::Asset {
                file: assets.name(t),
                message,
            }
        })?;
        out.files.insert(t.clone(), bytes.clone());
        let meta = format!("{t}.mcmeta");
        if let Some(m) = assets.files.get(&meta) {
            if model::parse_json(&assets.name(&meta), m).is_err() {
                out.report.warnings.push(format!(
                    "{}: not JSON; copied as it is, and the engine will read it as absent",
                    assets.name(&meta)
                ));
            }
            out.files.insert(meta, m.clone());
        }
        out.report.textures += 1;
    }
    out.report.fingerprint = fingerprint(
        out.files
            .iter()
            .filter(|(k, _)| k.starts_with("blocks/") && k.ends_with(".dh-block"))
            .map(|(k, v)| (k.as_str(), v.as_slice())),
    );
    out.files.insert(
        FINGERPRINT_FILE.to_string(),
        format!("{}\n", out.report.fingerprint).into_bytes(),
    );
    out.files.insert(
        "pallet.dh".into(),
        pallet_text(assets.version.as_deref()).into_bytes(),
    );
    out.files
        .insert(ENVIRONMENT_MAP.into(), environment_text().into_bytes());
    out.report.version = assets.version.clone();
    Ok(out)
}

/// Imports `input` (a client jar or an assets folder) into the pallet folder `into` (see
/// the module doc).
pub fn import_platform(
    input: &Path,
    into: &Path,
    options: &PlatformOptions<'_>,
) -> Result<PlatformReport, PlatformError> {
    let assets = read_source(input, &options.limits)?;
    let built = build_files(&assets, options)?;
    let mut report = built.report;
    for (rel, bytes) in &built.files {
        let path = into.join(rel);
        if std::fs::read(&path).is_ok_and(|old| old == *bytes) {
            report.unchanged += 1;
            continue;
        }
        let io = |action: &'static str| {
            let p = path.display().to_string();
            move |source| PlatformError::Io {
                path: p,
                action,
                source,
            }
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io("create the folder for"))?;
        }
        let tmp = path.with_extension("dh-import-tmp");
        std::fs::write(&tmp, bytes).map_err(io("write"))?;
        std::fs::rename(&tmp, &path).map_err(io("write"))?;
        report.written.push(path);
    }
    // A block this import did not write is stale.
    let blocks = into.join("blocks");
    if let Ok(rd) = std::fs::read_dir(&blocks) {
        let mut stale: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "dh-block")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_none_or(|n| !built.files.contains_key(&format!("blocks/{n}")))
            })
            .collect();
        stale.sort();
        for p in stale {
            std::fs::remove_file(&p).map_err(|source| PlatformError::Io {
                path: p.display().to_string(),
                action: "remove the stale block",
                source,
            })?;
            report.removed.push(p);
        }
    }
    Ok(report)
}

/// Reads `data` as a model (with itself as a parent chain's only file), as a blockstate,
/// as a jar and as a PNG header, under small caps. The body of the `mc_assets`
/// cargo-fuzz target: it must never panic.
pub(crate) fn fuzz_assets(data: &[u8]) {
    let mut assets = Assets {
        origin: "fuzz!/".into(),
        ..Assets::default()
    };
    assets
        .files
        .insert("models/block/fuzz.json".into(), data.to_vec());
    assets
        .files
        .insert("models/block/parent.json".into(), data.to_vec());
    assets
        .files
        .insert("blockstates/fuzz.json".into(), data.to_vec());
    assets
        .files
        .insert("textures/block/fuzz.png".into(), data.to_vec());
    let mut models = Models::new(&assets);
    let _ = models.bake("minecraft:block/fuzz", "fuzz");
    let _ = models.bake("block/parent", "fuzz");
    let limits = Limits {
        max_entries: 64,
        max_entry_bytes: 1 << 16,
        max_total_bytes: 1 << 18,
        max_texture_side: 4096,
    };
    if let Ok(files) = build_files(
        &assets,
        &PlatformOptions {
            limits,
            progress: None,
        },
    ) {
        for (p, b) in &files.files {
            if p.ends_with(".dh-block") {
                let text = String::from_utf8_lossy(b);
                assert!(
                    parse_block_def(p, &text).is_ok(),
                    "a written block reads back"
                );
            }
        }
    }
    if let Ok(a) = source::read_jar("fuzz.jar", data, &limits) {
        let _ = build_files(
            &a,
            &PlatformOptions {
                limits,
                progress: None,
            },
        );
    }
    let _ = png_size(data, 4096);
}
