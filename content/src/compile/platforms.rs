//! The server's pallet rule at build (spec `dh.voxel`, "The server's pallet rules"): a
//! map whose voxel volumes name a platform records, beside the map, the fingerprint of
//! the block definitions of that platform's pallet as this build read it, or that the
//! build had none. Nothing of the pallet travels.
//!
//! The record is ours (the spec names what is recorded, not where): a companion entry
//! `<map path>.platforms` (`maps/world.dh-map.platforms`), a JSON object with one member
//! per platform the map's volumes name, in id order:
//!
//! ```json
//! { "com.mojang.minecraft": { "version": "26.1.0", "blocks": "3f2a…64 hex…" } }
//! { "com.mojang.minecraft": null }
//! ```
//!
//! `version` is the platform pallet's manifest version, `blocks` its `blocks.fingerprint`
//! (the importer's SHA-256 over its block definitions). `null`: the build had no pallet
//! of that id mounted (a dependency beside the source folder or `--pallet`), so the
//! server's blocks are whole cubes. A map naming no platform has no companion; a pallet
//! built before this rule has none either, and the engine then keeps its own pallet.

use std::collections::BTreeMap;

use super::{AssetKind, CompiledAsset, Dependencies, ReadAsset};
use crate::jsonc::{Kind, Value};
use crate::read::member;
use crate::refs;
use crate::schema::manifest::PalletManifestSource;
use crate::schema::voxel::Platform;

/// The companion's suffix, after the map's path.
pub const PLATFORMS_SUFFIX: &str = ".platforms";
/// The platform pallet's entry holding its block fingerprint (the importer writes it).
pub const FINGERPRINT_ENTRY: &str = "blocks.fingerprint";
/// The most bytes of a fingerprint entry read.
const MAX_FINGERPRINT: usize = 256;

/// What one platform pallet a map's volumes name was, where its build read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRecord {
    /// The pallet's manifest version.
    pub version: String,
    /// Its block fingerprint (lowercase hex), empty when it holds none.
    pub blocks: String,
}

/// The block fingerprint a compiled platform pallet holds (`blocks.fingerprint`, trimmed;
/// `None` when it has none or it is not short hex text).
pub fn pallet_fingerprint(p: &crate::pallet::Pallet) -> Option<String> {
    let e = p.entry(FINGERPRINT_ENTRY)?;
    if e.raw_len > MAX_FINGERPRINT as u64 {
        return None;
    }
    let bytes = p.read(FINGERPRINT_ENTRY).ok()?;
    let t = std::str::from_utf8(&bytes).ok()?.trim();
    (!t.is_empty() && t.len() <= 128 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| t.to_ascii_lowercase())
}

/// Reads a `.platforms` companion: each platform id with its record, or `None` where the
/// server had no pallet. An error says what is wrong with the text.
pub fn read_platforms(text: &str) -> Result<BTreeMap<String, Option<PlatformRecord>>, String> {
    let v = crate::jsonc::parse(text).map_err(|e| e.to_string())?;
    let Some(members) = v.as_object() else {
        return Err("expected an object of platform ids".into());
    };
    let mut out = BTreeMap::new();
    for m in members {
        let rec = match &m.value.kind {
            Kind::Null => None,
            Kind::Object(_) => {
                let field = |k: &str| {
                    m.value
                        .get(k)
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                        .ok_or_else(|| format!("'{}': expected a string '{k}'", m.key))
                };
                Some(PlatformRecord {
                    version: field("version")?,
                    blocks: field("blocks")?,
                })
            }
            _ => {
                return Err(format!(
                    "'{}': expected null or {{ version, blocks }}",
                    m.key
                ))
            }
        };
        out.insert(m.key.clone(), rec);
    }
    Ok(out)
}

/// The platforms a compiled map's records' `dh.voxelVolume` components place, resolved
/// through this pallet's definitions and the mounted dependencies.
fn map_platforms(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
    deps: &Dependencies,
    map_path: &str,
    json: &Value,
) -> Vec<String> {
    let mut volumes = Vec::new();
    if let Some(objects) = json.get("objects").and_then(|o| o.as_array()) {
        for o in objects {
            let Some(components) = o.get("components").and_then(|c| c.as_array()) else {
                continue;
            };
            for c in components {
                if c.get("$type").and_then(|t| t.as_str()) == Some("dh.voxelVolume") {
                    if let Some(v) = c.get("volume").and_then(|v| v.as_str()) {
                        volumes.push(v.to_string());
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for v in volumes {
        let Ok(b) = refs::resolve(&v, &manifest.id, map_path, &manifest.dependencies) else {
            continue;
        };
        let def = if b.pallet == manifest.id {
            read.iter()
                .find(|r| r.path == b.path && r.kind == AssetKind::Voxel)
                .and_then(|r| r.json.clone())
        } else {
            deps.json(&b)
        };
        let platform = def
            .as_ref()
            .and_then(|d| d.get("platform"))
            .and_then(|p| p.as_str())
            .and_then(Platform::resolve);
        if let Some(p) = platform {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One `.platforms` companion per map of the pallet whose volumes name a platform.
pub(super) fn platform_companions(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
    deps: &Dependencies,
) -> Vec<CompiledAsset> {
    let mut out = Vec::new();
    for r in read.iter().filter(|r| r.kind == AssetKind::Map && r.ship) {
        let Some(json) = &r.json else { continue };
        let platforms = map_platforms(manifest, read, deps, &r.path, json);
        if platforms.is_empty() {
            continue;
        }
        let members = platforms
            .iter()
            .map(|id| {
                let v = match deps.pallet(id) {
                    Some(p) => Value::synthetic(Kind::Object(vec![
                        member(
                            "version",
                            Value::synthetic(Kind::String(p.manifest().version.clone())),
                        ),
                        member(
                            "blocks",
                            Value::synthetic(Kind::String(
                                pallet_fingerprint(p).unwrap_or_default(),
                            )),
                        ),
                    ])),
                    None => Value::synthetic(Kind::Null),
                };
                member(id, v)
            })
            .collect();
        out.push(CompiledAsset {
            path: format!("{}{PLATFORMS_SUFFIX}", r.path),
            kind: AssetKind::Raw,
            bytes: Value::synthetic(Kind::Object(members))
                .to_json()
                .into_bytes(),
        });
    }
    out
}
