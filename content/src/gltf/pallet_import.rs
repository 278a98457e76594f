//! `dh import gltf`: a glTF model brought into a source pallet so that, placed, it draws as
//! itself. The model is copied (a `.gltf` is packed into one `.glb` first: the engine reads
//! binary glTF), one `dh.material` is written per glTF material from its PBR values, its
//! images are extracted beside them, and a `dh.object` binds every drawn part's slots.
//!
//! What a glTF material becomes (ours: the spec names `dh.material` without defining its
//! bytes; ARCHITECTURE.md fixes the closed field set this writes from):
//!
//! * `pbrMetallicRoughness.baseColorFactor` (linear RGBA) → `tint` (sRGB, the alpha kept
//!   when it is not 1); `baseColorTexture` → `baseColor`.
//! * `alphaMode` `OPAQUE` / `MASK` / `BLEND` → `opaque` / `mask` / `blend`; under `mask`,
//!   `alphaCutoff` (glTF's default 0.5 written out).
//! * `emissiveFactor` (linear) → `emissiveColor` (sRGB), `emissiveTexture` →
//!   `emissiveTexture`, `KHR_materials_emissive_strength` → `emissiveIntensity`.
//! * `doubleSided` → `renderFace` (`both` / `front`); `KHR_materials_unlit` → `shader`
//!   `unlit`, else `lit`.
//! * What `dh.material` has no member for (metallic-roughness, normal and occlusion
//!   textures, a texture read through a UV set other than 0, `KHR_texture_transform`, other
//!   material extensions) is named in the import's notes, never dropped silently.
//!
//! Images keep their own bytes: PNG as PNG and JPEG as JPEG, since the engine reads both
//! (`crate::texture`); each is decoded once here, under the texture module's bounds, so a
//! material never names an image `dh build` would refuse. Any other image (WebP, KTX2) is
//! not written and its materials draw their tint alone, with a note saying so.
//!
//! Slot names are exactly the engine's: the glTF material's name, `#<index>` for an unnamed
//! one (the importer's `material_slot`), keyed per drawn part (the node path
//! [`super::Model::node_paths`] gives) in the `.dh-obj`'s `children`.
//!
//! Re-running: every file written is recorded with its SHA-256 in a hidden import record
//! beside the model (`.<name>.dh-import`, which `dh build` skips like every hidden file). A
//! file whose bytes still match the record is the importer's own and is rewritten; one that
//! differs (edited by hand) or that no record names (someone else's) is left alone and
//! reported as skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gltf_json as json;
use json::Value as J;
use sha2::{Digest, Sha256};

use super::glb::{self, Document};
use super::{import_glb_with, GlbError, ImportOptions, Purpose};
use crate::jsonc::{Kind, Member, Span, Value};
use crate::texture::{self, Identified, ImageFormat};

/// The largest model file read (a GLB's own length field is 32 bits).
pub const MAX_MODEL_BYTES: u64 = 1 << 30;

/// The largest import record read back.
const MAX_RECORD_BYTES: u64 = 4 << 20;

/// The import record's extension.
pub const RECORD_EXTENSION: &str = ".dh-import";

/// Why a glTF import failed.
#[derive(Debug, thiserror::Error)]
pub enum GltfImportError {
    /// A file could not be read or written.
    #[error("{}: {what}: {message}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done (`cannot read`, `cannot write`).
        what: &'static str,
        /// The system's reason.
        message: String,
    },
    /// The model does not read: the importer's reason, naming the file.
    #[error(transparent)]
    Model(#[from] GlbError),
    /// The input or the destination is not what the import takes.
    #[error("{}: {message}", .path.display())]
    Refused {
        /// The file or folder.
        path: PathBuf,
        /// What was wrong and what was expected.
        message: String,
    },
}

/// What became of one file the import writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOutcome {
    /// It did not exist and was written.
    Written,
    /// The last import wrote it, it was untouched since, and it changed.
    Updated,
    /// Already exactly what the import writes.
    Unchanged,
    /// Left alone: the reason (edited since the last import, or not the importer's).
    Skipped(String),
}

/// One file of the import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedFile {
    /// Its path.
    pub path: PathBuf,
    /// What happened to it.
    pub outcome: FileOutcome,
}

/// A slot the `.dh-obj` binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotBinding {
    /// The part's node path (as `children[].path` names it).
    pub part: String,
    /// The slot name (the glTF material's name, `#<index>` for an unnamed one).
    pub slot: String,
    /// The material file, relative to the `.dh-obj`'s folder.
    pub material: String,
}

/// What `dh import gltf` did.
#[derive(Debug, Clone)]
pub struct GltfImported {
    /// The copied (or packed) model.
    pub model: PathBuf,
    /// The `.dh-obj` placing it with every slot bound.
    pub object: PathBuf,
    /// The import record.
    pub record: PathBuf,
    /// Every file the import writes, in the order written, with its outcome.
    pub files: Vec<ImportedFile>,
    /// Every binding the object makes.
    pub slots: Vec<SlotBinding>,
    /// The materials written (one per glTF material).
    pub materials: usize,
    /// The images extracted.
    pub images: usize,
    /// What the materials could not carry, and other things a person should know.
    pub notes: Vec<String>,
    /// A map instance record placing the object (root-relative, with a fresh id).
    pub instance: String,
    /// A map `materials` table binding the same slots, for placing the `.glb` itself.
    pub table: String,
}

/// A file the import means to write: its path relative to `into`, and its bytes.
struct Planned {
    rel: String,
    bytes: Vec<u8>,
}

fn io<'a>(
    path: &'a Path,
    what: &'static str,
) -> impl FnOnce(std::io::Error) -> GltfImportError + 'a {
    move |e| GltfImportError::Io {
        path: path.to_path_buf(),
        what,
        message: e.to_string(),
    }
}

fn refused(path: &Path, message: impl Into<String>) -> GltfImportError {
    GltfImportError::Refused {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Reads at most `cap` bytes of `path`, refusing a longer file.
fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, GltfImportError> {
    let len = std::fs::metadata(path)
        .map_err(io(path, "cannot read"))?
        .len();
    if len > cap {
        return Err(refused(
            path,
            format!("{what} of {len} bytes is larger than the {cap} bytes an import reads"),
        ));
    }
    std::fs::read(path).map_err(io(path, "cannot read"))
}

/// A file-name-safe form of `name`: ASCII letters, digits, `-`, `_` and `.` kept, anything
/// else `_`; never empty, never hidden.
fn file_safe(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    while s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    if s.is_empty() {
        s.push('_');
    }
    s
}

/// `base`, or `base-2`, `base-3`… the first not yet in `taken` (compared case-blind, as
/// some file systems do).
fn unique(base: &str, ext: &str, taken: &mut Vec<String>) -> String {
    let mut n = 1;
    loop {
        let name = if n == 1 {
            format!("{base}{ext}")
        } else {
            format!("{base}-{n}{ext}")
        };
        if !taken.iter().any(|t| t.eq_ignore_ascii_case(&name)) {
            taken.push(name.clone());
            return name;
        }
        n += 1;
    }
}

/// A linear channel as sRGB, rounded to six places.
fn to_srgb(c: f64) -> f64 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 1e6).round() / 1e6
}

fn num(n: f64) -> Value {
    Value::synthetic(Kind::Number(n))
}

fn string(s: &str) -> Value {
    Value::synthetic(Kind::String(s.to_string()))
}

fn object(members: Vec<(&str, Value)>) -> Value {
    Value::synthetic(Kind::Object(
        members
            .into_iter()
            .map(|(k, v)| Member {
                key: k.to_string(),
                key_span: Span::default(),
                value: v,
            })
            .collect(),
    ))
}

fn numbers(v: &[f64]) -> Value {
    Value::synthetic(Kind::Array(v.iter().map(|n| num(*n)).collect()))
}

/// Reads numbers `[a, b, ...]` of length `n` from a glTF member.
fn factor(v: Option<&J>, n: usize) -> Option<Vec<f64>> {
    let a = v?.as_array()?;
    if a.len() != n {
        return None;
    }
    a.iter()
        .map(|x| x.as_f64().filter(|f| f.is_finite()))
        .collect()
}

/// The pallet root `dir` sits in: it or the nearest folder above holding `pallet.dh`.
fn pallet_root(dir: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(dir).ok()?;
    abs.ancestors()
        .find(|d| d.join("pallet.dh").is_file())
        .map(Path::to_path_buf)
}

/// An image of the document: where it is, and the bytes once read.
struct Extracted {
    /// The file written beside the materials (its name only).
    file: String,
}

/// Imports `file` (a `.glb` or `.gltf`) into the source pallet folder `into` (the pallet's
/// root or a folder in it; default the file's own folder). See the module docs.
pub fn import_gltf(file: &Path, into: Option<&Path>) -> Result<GltfImported, GltfImportError> {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| refused(file, "the file name is not UTF-8"))?;
    let lower = name.to_ascii_lowercase();
    let source_dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let (stem, glb_bytes) = if let Some(stem) = lower.strip_suffix(".glb") {
        let bytes = read_capped(file, MAX_MODEL_BYTES, "a model")?;
        (&name[..stem.len()], bytes)
    } else if let Some(stem) = lower.strip_suffix(".gltf") {
        let text = read_capped(file, glb::MAX_JSON as u64, "a glTF document")?;
        (&name[..stem.len()], pack_gltf(file, &source_dir, &text)?)
    } else {
        return Err(refused(
            file,
            "expected a glTF model: a .glb (binary glTF) or a .gltf",
        ));
    };
    let display = file.display().to_string();
    // The engine's own reads: the model must draw (geometry read as an object reads it,
    // bounded by the importer's caps), and its scene graph names the parts and slots.
    let opts = ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    };
    let model = import_glb_with(&glb_bytes, &display, &opts)?;
    let container = glb::split(&glb_bytes).map_err(|kind| GlbError {
        model: display.clone(),
        kind,
    })?;
    let doc = Document::open(&container, opts.max_vertices.saturating_mul(64)).map_err(|kind| {
        GlbError {
            model: display.clone(),
            kind,
        }
    })?;
    let raw: J = json::deserialize::from_str(container.json).map_err(|e| GlbError {
        model: display.clone(),
        kind: super::GlbErrorKind::Json {
            offset: 0,
            message: e.to_string(),
        },
    })?;

    // Where it goes.
    let into = into.map_or_else(|| source_dir.clone(), Path::to_path_buf);
    if into.exists() && !into.is_dir() {
        return Err(refused(&into, "--into must name a folder"));
    }
    let Some(root) = pallet_root(&into) else {
        return Err(refused(
            &into,
            "not inside a source pallet: neither it nor a folder above it holds pallet.dh (`dh new pallet <dir>` makes one)",
        ));
    };
    let into_abs = std::path::absolute(&into).map_err(io(&into, "cannot resolve"))?;
    let rel_dir = into_abs
        .strip_prefix(&root)
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default();
    let stem = file_safe(stem);
    let model_file = format!("{stem}.glb");
    let object_file = format!("{stem}.dh-obj");
    let record_file = format!(".{stem}{RECORD_EXTENSION}");
    let folder = stem.clone();

    let mut notes: Vec<String> = Vec::new();
    let mut planned: Vec<Planned> = vec![Planned {
        rel: model_file.clone(),
        bytes: glb_bytes.clone(),
    }];

    // Images, read on first use.
    let images = raw
        .get("images")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    let textures = raw
        .get("textures")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    let mut taken: Vec<String> = Vec::new();
    let mut extracted: BTreeMap<usize, Option<Extracted>> = BTreeMap::new();
    let mut image_for = |tex: usize,
                         whose: &str,
                         planned: &mut Vec<Planned>,
                         notes: &mut Vec<String>,
                         taken: &mut Vec<String>|
     -> Option<String> {
        let Some(t) = textures.get(tex) else {
            notes.push(format!(
                "{whose}: texture {tex} does not exist (the file has {}); it is left out",
                textures.len()
            ));
            return None;
        };
        let Some(img) = t.get("source").and_then(J::as_u64).map(|i| i as usize) else {
            notes.push(format!(
                "{whose}: texture {tex} has no core 'source' image (only an extension's, e.g. WebP or KTX2), which the engine does not read; it is left out"
            ));
            return None;
        };
        if let Some(done) = extracted.get(&img) {
            return done.as_ref().map(|e| e.file.clone());
        }
        let result = read_image(&doc, &images, img, &source_dir).and_then(|bytes| {
            let ext = match texture::identify("", &bytes) {
                Identified::Texture(ImageFormat::Png) => ".png",
                Identified::Texture(ImageFormat::Jpeg) => ".jpg",
                Identified::OtherImage(what) | Identified::NotAnImage(what) => {
                    return Err(format!(
                        "{what}, which the engine does not read as a texture (it reads PNG and JPEG)"
                    ))
                }
            };
            texture::decode("", &bytes).map_err(|e| e.to_string())?;
            Ok((ext, bytes))
        });
        let out = match result {
            Ok((ext, bytes)) => {
                let base = images
                    .get(img)
                    .and_then(|i| i.get("name"))
                    .and_then(J::as_str)
                    .filter(|n| !n.is_empty())
                    .map(|n| {
                        let n = n.rsplit_once('.').map_or(n, |(b, _)| b);
                        file_safe(n)
                    })
                    .unwrap_or_else(|| format!("{stem}-image{img}"));
                let file = unique(&base, ext, taken);
                planned.push(Planned {
                    rel: format!("{folder}/{file}"),
                    bytes,
                });
                Some(Extracted { file })
            }
            Err(why) => {
                notes.push(format!(
                    "image {img} is {why}; it is not extracted, so {whose} draws without it"
                ));
                None
            }
        };
        let file = out.as_ref().map(|e| e.file.clone());
        extracted.insert(img, out);
        file
    };

    // Materials: one file each, named after the slot.
    let materials = raw
        .get("materials")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    let mut not_carried: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut slot_files: BTreeMap<String, String> = BTreeMap::new();
    for (i, m) in materials.iter().enumerate() {
        let slot = match m.get("name").and_then(J::as_str) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("#{i}"),
        };
        let base = if slot.starts_with('#') {
            format!("material-{i}")
        } else {
            file_safe(&slot)
        };
        let mat_file = unique(&base, ".dh-mat", &mut taken);
        let whose = format!("material {i} '{slot}'");
        let mut miss = |what: &str| {
            not_carried
                .entry(what.to_string())
                .or_default()
                .push(slot.clone())
        };
        let pbr = m.get("pbrMetallicRoughness");
        let ext = m.get("extensions");
        let mut members: Vec<(&str, Value)> = Vec::new();
        let unlit = ext.and_then(|e| e.get("KHR_materials_unlit")).is_some();
        members.push(("shader", string(if unlit { "unlit" } else { "lit" })));
        let texture_of = |t: Option<&J>, member: &str, miss: &mut dyn FnMut(&str)| {
            let t = t?;
            if t.get("texCoord").and_then(J::as_u64).unwrap_or(0) != 0 {
                miss(&format!("{member} read through a UV set other than TEXCOORD_0 (the texture is still bound, on UV 0)"));
            }
            if t.get("extensions")
                .and_then(|e| e.get("KHR_texture_transform"))
                .is_some()
            {
                miss(&format!("KHR_texture_transform on {member}"));
            }
            t.get("index").and_then(J::as_u64).map(|i| i as usize)
        };
        if let Some(tex) = texture_of(
            pbr.and_then(|p| p.get("baseColorTexture")),
            "baseColorTexture",
            &mut miss,
        ) {
            if let Some(img) = image_for(tex, &whose, &mut planned, &mut notes, &mut taken) {
                members.push(("baseColor", string(&img)));
            }
        }
        let base =
            factor(pbr.and_then(|p| p.get("baseColorFactor")), 4).unwrap_or_else(|| vec![1.0; 4]);
        let mut tint: Vec<f64> = base[..3].iter().map(|c| to_srgb(*c)).collect();
        let alpha = (base[3].clamp(0.0, 1.0) * 1e6).round() / 1e6;
        if alpha != 1.0 {
            tint.push(alpha);
        }
        members.push(("tint", numbers(&tint)));
        let mode = match m.get("alphaMode").and_then(J::as_str) {
            Some("MASK") => "mask",
            Some("BLEND") => "blend",
            _ => "opaque",
        };
        members.push(("alphaMode", string(mode)));
        if mode == "mask" {
            let cutoff = m
                .get("alphaCutoff")
                .and_then(J::as_f64)
                .filter(|c| c.is_finite())
                .unwrap_or(0.5)
                .clamp(0.0, 1.0);
            members.push(("alphaCutoff", num(cutoff)));
        }
        let double = m.get("doubleSided").and_then(J::as_bool).unwrap_or(false);
        members.push(("renderFace", string(if double { "both" } else { "front" })));
        let emissive = factor(m.get("emissiveFactor"), 3).unwrap_or_else(|| vec![0.0; 3]);
        let emissive_tex = texture_of(m.get("emissiveTexture"), "emissiveTexture", &mut miss)
            .and_then(|tex| image_for(tex, &whose, &mut planned, &mut notes, &mut taken));
        if emissive.iter().any(|c| *c > 0.0) || emissive_tex.is_some() {
            let c: Vec<f64> = emissive.iter().map(|c| to_srgb(*c)).collect();
            members.push(("emissiveColor", numbers(&c)));
            if let Some(t) = &emissive_tex {
                members.push(("emissiveTexture", string(t)));
            }
            if let Some(s) = ext
                .and_then(|e| e.get("KHR_materials_emissive_strength"))
                .and_then(|e| e.get("emissiveStrength"))
                .and_then(J::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
            {
                members.push(("emissiveIntensity", num(s)));
            }
        }
        for (key, what) in [
            ("normalTexture", "normalTexture"),
            ("occlusionTexture", "occlusionTexture"),
        ] {
            if m.get(key).is_some() {
                miss(what);
            }
        }
        if pbr
            .and_then(|p| p.get("metallicRoughnessTexture"))
            .is_some()
        {
            miss("metallicRoughnessTexture");
        }
        if let Some(J::Object(e)) = ext {
            for k in e.keys() {
                if k != "KHR_materials_unlit" && k != "KHR_materials_emissive_strength" {
                    miss(k);
                }
            }
        }
        let header = format!(
            "// Written by `dh import gltf` from {name}, {whose}: its glTF PBR values as a\n\
             // dh.material. Edit freely: a re-import leaves an edited file alone.\n"
        );
        let text = format!("{header}{}", object(members).to_json_pretty());
        planned.push(Planned {
            rel: format!("{folder}/{mat_file}"),
            bytes: text.into_bytes(),
        });
        if let Some(prev) = slot_files.get(&slot) {
            notes.push(format!(
                "{whose} shares its name with an earlier material: the engine keys both as one slot '{slot}', so both wear {prev}"
            ));
        } else {
            slot_files.insert(slot.clone(), format!("{folder}/{mat_file}"));
        }
    }
    for (what, slots) in &not_carried {
        notes.push(format!(
            "{what} of {} material(s) ({}) is not carried: dh.material has no member for it",
            slots.len(),
            slots.join(", ")
        ));
    }

    // The object: every drawn part with its slots bound.
    let paths = model.node_paths();
    let mut slots: Vec<SlotBinding> = Vec::new();
    let mut children: Vec<Value> = Vec::new();
    for (n, node) in model.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| model.meshes.get(m)) else {
            continue;
        };
        let mut bound: Vec<(&str, Value)> = Vec::new();
        for p in &mesh.primitives {
            let Some(slot) = p.material.as_deref() else {
                continue;
            };
            if bound.iter().any(|(s, _)| *s == slot) {
                continue;
            }
            let Some(file) = slot_files.get(slot) else {
                continue;
            };
            let part = paths.get(n).cloned().unwrap_or_default();
            slots.push(SlotBinding {
                part,
                slot: slot.to_string(),
                material: file.clone(),
            });
            bound.push((slot, string(file)));
        }
        if bound.is_empty() {
            continue;
        }
        let renderer = object(vec![
            ("$type", string("dh.renderer")),
            ("materials", object(bound)),
        ]);
        children.push(object(vec![
            ("path", string(paths.get(n).map_or("", String::as_str))),
            ("components", Value::synthetic(Kind::Array(vec![renderer]))),
        ]));
    }
    let display_name = stem.replace(['_', '-'], " ");
    let obj = object(vec![
        ("name", string(&display_name)),
        ("model", string(&model_file)),
        ("children", Value::synthetic(Kind::Array(children))),
    ]);
    let obj_text = format!(
        "// Written by `dh import gltf` from {name}: the model with every drawn part's material\n\
         // slots bound to the materials beside it in {folder}/. A map places it with an\n\
         // instance record whose source names this file. Edit freely: a re-import leaves an\n\
         // edited file alone.\n{}",
        obj.to_json_pretty()
    );
    planned.insert(
        1,
        Planned {
            rel: object_file.clone(),
            bytes: obj_text.into_bytes(),
        },
    );

    // Write, leaving hand edits alone.
    std::fs::create_dir_all(&into).map_err(io(&into, "cannot create"))?;
    let record_path = into.join(&record_file);
    let (recorded, record_note) = read_record(&record_path);
    if let Some(n) = record_note {
        notes.push(n);
    }
    let mut files = Vec::new();
    let mut record: BTreeMap<String, String> = BTreeMap::new();
    for p in &planned {
        let path = into.join(&p.rel);
        let new_hash = sha256(&p.bytes);
        let outcome = match std::fs::read(&path) {
            Ok(old) if old == p.bytes => FileOutcome::Unchanged,
            Ok(old) => {
                let old_hash = sha256(&old);
                match recorded.get(&p.rel) {
                    Some(h) if *h == old_hash => FileOutcome::Updated,
                    Some(h) => {
                        record.insert(p.rel.clone(), h.clone());
                        FileOutcome::Skipped("edited since the last import".into())
                    }
                    None => FileOutcome::Skipped(
                        "not written by dh import (no import record names it)".into(),
                    ),
                }
            }
            Err(_) => FileOutcome::Written,
        };
        if matches!(outcome, FileOutcome::Written | FileOutcome::Updated) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(io(dir, "cannot create"))?;
            }
            std::fs::write(&path, &p.bytes).map_err(io(&path, "cannot write"))?;
        }
        if !matches!(outcome, FileOutcome::Skipped(_)) {
            record.insert(p.rel.clone(), new_hash);
        }
        files.push(ImportedFile { path, outcome });
    }
    write_record(&record_path, name, &record)?;

    let at = |rel: &str| {
        if rel_dir.is_empty() {
            format!("/{rel}")
        } else {
            format!("/{rel_dir}/{rel}")
        }
    };
    let instance = format!(
        "{{ \"$type\": \"instance\", \"id\": \"{}\", \"name\": {}, \"source\": {} }}",
        crate::schema::common::Guid::mint(),
        json_text(&stem),
        json_text(&at(&object_file)),
    );
    let mut seen: Vec<&str> = Vec::new();
    let mut table: Vec<(&str, Value)> = Vec::new();
    for s in &slots {
        if !seen.contains(&s.slot.as_str()) {
            seen.push(&s.slot);
            table.push((&s.slot, string(&at(&s.material))));
        }
    }
    let table = object(table).to_json();
    let images = planned
        .iter()
        .filter(|p| p.rel.ends_with(".png") || p.rel.ends_with(".jpg"))
        .count();
    Ok(GltfImported {
        model: into.join(&model_file),
        object: into.join(&object_file),
        record: record_path,
        files,
        slots,
        materials: materials.len(),
        images,
        notes,
        instance,
        table,
    })
}

fn json_text(s: &str) -> String {
    let mut out = String::new();
    crate::jsonc::write_string(s, &mut out);
    out
}

fn sha256(bytes: &[u8]) -> String {
    crate::hash::hex(&Sha256::digest(bytes))
}

/// The files an import record names with their hashes; a note when one exists but does not
/// read (every existing file then counts as not the importer's).
fn read_record(path: &Path) -> (BTreeMap<String, String>, Option<String>) {
    let mut out = BTreeMap::new();
    let Ok(meta) = std::fs::metadata(path) else {
        return (out, None);
    };
    let bad = |why: &str| {
        Some(format!(
            "{}: the import record {why}; every existing file is left alone",
            path.display()
        ))
    };
    if meta.len() > MAX_RECORD_BYTES {
        return (out, bad("is too large to be one"));
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return (out, bad("cannot be read"));
    };
    let Ok(v) = crate::jsonc::parse(&text) else {
        return (out, bad("is not JSON"));
    };
    let Some(files) = v.get("files").and_then(Value::as_object) else {
        return (out, bad("has no 'files' object"));
    };
    for m in files {
        if let Some(h) = m.value.as_str() {
            out.insert(m.key.clone(), h.to_string());
        }
    }
    (out, None)
}

fn write_record(
    path: &Path,
    source: &str,
    files: &BTreeMap<String, String>,
) -> Result<(), GltfImportError> {
    let v = object(vec![
        ("source", string(source)),
        (
            "files",
            object(files.iter().map(|(k, h)| (k.as_str(), string(h))).collect()),
        ),
    ]);
    let text = format!(
        "// dh import gltf's record: each file it wrote with its SHA-256, so a re-import knows\n\
         // an edited file (its bytes no longer match) and leaves it alone.\n{}",
        v.to_json_pretty()
    );
    std::fs::write(path, text).map_err(io(path, "cannot write"))
}

/// The bytes of image `i`: its buffer view, a `data:` URI, or a file beside the model.
fn read_image(doc: &Document, images: &[J], i: usize, dir: &Path) -> Result<Vec<u8>, String> {
    let img = images
        .get(i)
        .ok_or_else(|| format!("missing (the file has {} images)", images.len()))?;
    if let Some(v) = img.get("bufferView").and_then(J::as_u64) {
        let (bytes, _) = doc
            .view(v as usize, &format!("images[{i}].bufferView"))
            .map_err(|e| e.to_string())?;
        return Ok(bytes.to_vec());
    }
    let uri = img
        .get("uri")
        .and_then(J::as_str)
        .ok_or_else(|| "neither a bufferView nor a uri".to_string())?;
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, b64) = rest
            .split_once(";base64,")
            .ok_or_else(|| "a data URI that is not base64".to_string())?;
        return glb::base64(b64).ok_or_else(|| "a data URI whose base64 is invalid".into());
    }
    let path = external(dir, uri)?;
    read_capped(&path, MAX_MODEL_BYTES, "an image").map_err(|e| e.to_string())
}

/// A relative URI's file beside the model: percent-decoded, never absolute, never above
/// the model's folder.
fn external(dir: &Path, uri: &str) -> Result<PathBuf, String> {
    let mut decoded = Vec::new();
    let b = uri.as_bytes();
    let mut k = 0;
    while k < b.len() {
        if b[k] == b'%' && k + 2 < b.len() {
            let hex = std::str::from_utf8(&b[k + 1..k + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                decoded.push(v);
                k += 3;
                continue;
            }
        }
        decoded.push(b[k]);
        k += 1;
    }
    let rel = String::from_utf8(decoded).map_err(|_| format!("'{uri}' is not UTF-8"))?;
    let p = Path::new(&rel);
    if rel.contains(':')
        || p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(format!(
            "'{uri}', which is not a file beside the model (a relative path inside its folder)"
        ));
    }
    Ok(dir.join(p))
}

/// Packs a `.gltf` document and the files it names into one GLB: every buffer (a file
/// beside it, or a `data:` URI) joined into the BIN chunk, and every image named by URI
/// moved into a buffer view, so the pallet ships one self-contained model.
fn pack_gltf(file: &Path, dir: &Path, text: &[u8]) -> Result<Vec<u8>, GltfImportError> {
    let bad = |m: String| refused(file, m);
    let text =
        std::str::from_utf8(text).map_err(|_| bad("the glTF document is not UTF-8".into()))?;
    let mut root: J = json::deserialize::from_str(text)
        .map_err(|e| bad(format!("the glTF document does not parse: {e}")))?;
    let Some(doc) = root.as_object_mut() else {
        return Err(bad(
            "expected a JSON object at the top of the glTF document".into(),
        ));
    };
    let mut bin: Vec<u8> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let buffers = doc
        .get("buffers")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    let cap = MAX_MODEL_BYTES as usize;
    for (i, b) in buffers.iter().enumerate() {
        let uri = b.get("uri").and_then(J::as_str).ok_or_else(|| {
            bad(format!(
                "buffers[{i}]: expected a uri (a .gltf carries no BIN chunk)"
            ))
        })?;
        let bytes = if let Some(rest) = uri.strip_prefix("data:") {
            let (_, b64) = rest
                .split_once(";base64,")
                .ok_or_else(|| bad(format!("buffers[{i}].uri: expected a base64 data URI")))?;
            if b64.len() / 4 * 3 > cap {
                return Err(bad(format!("buffers[{i}]: larger than {cap} bytes")));
            }
            glb::base64(b64).ok_or_else(|| bad(format!("buffers[{i}].uri: invalid base64")))?
        } else {
            let path = external(dir, uri).map_err(|e| bad(format!("buffers[{i}].uri is {e}")))?;
            read_capped(&path, MAX_MODEL_BYTES, "a buffer")?
        };
        let len = b.get("byteLength").and_then(J::as_u64).unwrap_or(0) as usize;
        if bytes.len() < len {
            return Err(bad(format!(
                "buffers[{i}]: byteLength {len} but its data holds {} bytes",
                bytes.len()
            )));
        }
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        starts.push(bin.len());
        bin.extend_from_slice(&bytes[..len]);
        if bin.len() > cap {
            return Err(bad(format!("the buffers hold more than {cap} bytes")));
        }
    }
    let mut views = doc
        .get("bufferViews")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    for (k, v) in views.iter_mut().enumerate() {
        let b = v.get("buffer").and_then(J::as_u64).unwrap_or(u64::MAX) as usize;
        let start = *starts.get(b).ok_or_else(|| {
            bad(format!(
                "bufferViews[{k}].buffer: expected a buffer index below {}",
                starts.len()
            ))
        })?;
        let off = v.get("byteOffset").and_then(J::as_u64).unwrap_or(0) as usize;
        if let Some(o) = v.as_object_mut() {
            o.insert("buffer".into(), J::from(0u64));
            o.insert("byteOffset".into(), J::from((start + off) as u64));
        }
    }
    let mut images = doc
        .get("images")
        .and_then(J::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, img) in images.iter_mut().enumerate() {
        let Some(uri) = img.get("uri").and_then(J::as_str).map(str::to_string) else {
            continue;
        };
        let bytes = if let Some(rest) = uri.strip_prefix("data:") {
            rest.split_once(";base64,")
                .and_then(|(_, b)| glb::base64(b))
                .ok_or_else(|| bad(format!("images[{i}].uri: expected a base64 data URI")))?
        } else {
            let path = external(dir, &uri).map_err(|e| bad(format!("images[{i}].uri is {e}")))?;
            read_capped(&path, MAX_MODEL_BYTES, "an image")?
        };
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let view = J::Object(
            [
                ("buffer".to_string(), J::from(0u64)),
                ("byteOffset".to_string(), J::from(bin.len() as u64)),
                ("byteLength".to_string(), J::from(bytes.len() as u64)),
            ]
            .into_iter()
            .collect(),
        );
        bin.extend_from_slice(&bytes);
        if bin.len() > cap {
            return Err(bad(format!(
                "the buffers and images hold more than {cap} bytes"
            )));
        }
        views.push(view);
        if let Some(o) = img.as_object_mut() {
            o.remove("uri");
            o.insert("bufferView".into(), J::from((views.len() - 1) as u64));
            if !o.contains_key("mimeType") {
                let mime = match texture::identify(&uri, &bytes) {
                    Identified::Texture(ImageFormat::Jpeg) => "image/jpeg",
                    _ => "image/png",
                };
                o.insert("mimeType".into(), J::from(mime));
            }
        }
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    if !buffers.is_empty() || !bin.is_empty() {
        doc.insert(
            "buffers".into(),
            J::Array(vec![J::Object(
                [("byteLength".to_string(), J::from(bin.len() as u64))]
                    .into_iter()
                    .collect(),
            )]),
        );
    }
    if !views.is_empty() {
        doc.insert("bufferViews".into(), J::Array(views));
    }
    if !images.is_empty() {
        doc.insert("images".into(), J::Array(images));
    }
    let mut json = json::serialize::to_string(&root)
        .map_err(|e| bad(format!("the packed document does not serialize: {e}")))?;
    while json.len() % 4 != 0 {
        json.push(' ');
    }
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total32 = u32::try_from(total).map_err(|_| {
        bad(format!(
            "the packed model of {total} bytes does not fit a GLB"
        ))
    })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json.as_bytes());
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_to_srgb_by_the_formula() {
        // By hand: 0.5 linear is 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357.
        assert_eq!(to_srgb(0.5), 0.735357);
        assert_eq!(to_srgb(0.0), 0.0);
        assert_eq!(to_srgb(1.0), 1.0);
        assert_eq!(to_srgb(0.002), 0.02584);
    }

    #[test]
    fn names_are_file_safe_and_unique() {
        assert_eq!(file_safe("m0% r/1"), "m0__r_1");
        assert_eq!(file_safe(".hidden"), "_hidden");
        assert_eq!(file_safe(""), "_");
        let mut taken = Vec::new();
        assert_eq!(unique("a", ".dh-mat", &mut taken), "a.dh-mat");
        assert_eq!(unique("A", ".dh-mat", &mut taken), "A-2.dh-mat");
    }

    #[test]
    fn external_uris_stay_beside_the_model() {
        let d = Path::new("/m");
        assert_eq!(external(d, "a%20b.png").unwrap(), Path::new("/m/a b.png"));
        assert!(external(d, "../x.png").is_err());
        assert!(external(d, "/etc/passwd").is_err());
        assert!(external(d, "http://x/y.png").is_err());
        assert!(external(d, "%").is_ok());
    }
}
