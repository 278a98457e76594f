//! The on-disk cook caches (spec: runtime assets, "On-disk cache" and "Cooked map
//! collision"), both under `collision/` in the engine's cache folder, `<key>.dhcol` each:
//!
//! * The **load cache** ([`load_key`], [`cook_placement_at_load`]): what a map whose
//!   pallet ships no `.dh-colcook` companion cooks at load, one entry per model (the
//!   geometry entry the map's instance places), keyed by a SHA-256 over the cook format
//!   version, the model's path in its pallet and the pallet file table's content signature
//!   for it (folded CRC32 and exact uncompressed length). A hit therefore reads neither the
//!   model nor anything but the entry. The entry holds the geometry half of the cook only
//!   ([`GeometryEntry`]: welded vertices, the culled triangles, per-triangle slots, slot
//!   names, and the node paths they came from); the objectId each part's shape is attached
//!   by is re-resolved from the map on every load, so editing the map never invalidates a
//!   geometry cook.
//! * The **build cache** ([`mesh_key`], [`CookCache::read`]): one cooked mesh per file,
//!   keyed by a SHA-256 over the cook format version and the triangles that went in
//!   (spec: dh.map, "Mesh (the default)": "cached by the triangles").
//!
//! A missing, truncated or inconsistent entry reads as a miss; entries are written to a
//! temporary file and renamed, so a reader never sees half of one. Everything is gated by
//! [`CookCache::enabled`] (`client.cache.collision`): off, cooks run in memory only.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::cook::{self, is_sky_material, CookedMesh};
use super::format::{
    decode_geometry_head, decode_geometry_mesh, decode_geometry_rows, decode_mesh, encode_geometry,
    encode_mesh, geometry_mesh_key, leaf_tree, Colcook, CookEntry, GeometryEntry, GeometryMesh,
    GeometryRow, FORMAT_VERSION, GEOMETRY_HEAD_BYTES,
};
use crate::gltf::{Mesh, Model};
use crate::hash::hex;
use crate::math;
use crate::schema::common::Guid;
use crate::schema::components::geometry::{ColliderState, Shape};
use crate::schema::object_components::ObjectComponent;
use crate::schema::records::Part;
use glam::DMat4 as Mat4;
use sha2::{Digest, Sha256};

/// The load cache's key of a model (spec: runtime assets, "Cooked map collision": "a
/// SHA-256 over a cook format version, the geometry entry's path, and the compiler's
/// recorded content signature for that entry (its CRC32 and its exact uncompressed
/// length)"): SHA-256 over, little-endian,
///
/// | bytes | field |
/// | --- | --- |
/// | 4 | [`FORMAT_VERSION`] (`u32`) |
/// | 8 | the path's byte length (`u64`) |
/// | n | the model's path in its pallet, UTF-8 (`meshes/city.glb`) |
/// | 4 | the entry's CRC32 as the pallet's file table records it (the folded CRC32) |
/// | 8 | the entry's uncompressed length (`u64`) |
///
/// Both halves of the signature come from the file table
/// (`dh_content::pallet::EntryRef::signature`), so computing it reads nothing.
pub fn load_key(path: &str, crc32: u32, raw_len: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(FORMAT_VERSION.to_le_bytes());
    h.update((path.len() as u64).to_le_bytes());
    h.update(path.as_bytes());
    h.update(crc32.to_le_bytes());
    h.update(raw_len.to_le_bytes());
    h.finalize().into()
}

/// The cache key of one cook: SHA-256 over the format version, the part-frame transform
/// (when there is one), and every non-sky primitive's material slot, positions and
/// indices — exactly what [`super::cook::extract`] reads, so equal keys cook equal meshes.
pub fn mesh_key(mesh: &Mesh, transform: Option<&Mat4>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dh-colcook mesh\0");
    h.update(FORMAT_VERSION.to_le_bytes());
    match transform {
        None => h.update([0]),
        Some(m) => {
            h.update([1]);
            for c in m.to_cols_array() {
                h.update(c.to_le_bytes());
            }
        }
    }
    let mut buf = Vec::new();
    for p in &mesh.primitives {
        if p.material.as_deref().is_some_and(is_sky_material) {
            continue;
        }
        buf.clear();
        match &p.material {
            None => buf.push(0),
            Some(m) => {
                buf.push(1);
                buf.extend_from_slice(&(m.len() as u64).to_le_bytes());
                buf.extend_from_slice(m.as_bytes());
            }
        }
        buf.extend_from_slice(&(p.vertices.len() as u64).to_le_bytes());
        buf.reserve(p.vertices.len() * 12 + p.indices.len() * 4 + 8);
        for v in &p.vertices {
            for c in v.position {
                buf.extend_from_slice(&c.to_le_bytes());
            }
        }
        buf.extend_from_slice(&(p.indices.len() as u64).to_le_bytes());
        for i in &p.indices {
            buf.extend_from_slice(&i.to_le_bytes());
        }
        h.update(&buf);
    }
    h.finalize().into()
}

/// A key as the file stem it is stored under.
pub fn key_hex(key: &[u8; 32]) -> String {
    hex(key)
}

/// Where cooked meshes persist: `<root>/collision/<key>.dhcol`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookCache {
    /// The cache root (the engine's cache folder; always safe to wipe).
    pub root: PathBuf,
    /// Whether entries are read and written (`client.cache.collision`); off, every cook
    /// runs in memory and nothing touches the disk.
    pub enabled: bool,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl CookCache {
    /// A cache rooted at `root`, enabled.
    pub fn new(root: impl Into<PathBuf>) -> CookCache {
        CookCache {
            root: root.into(),
            enabled: true,
        }
    }

    /// The platform's cache root: `%LocalAppData%\DigitalHeaven\Engine\cache` on Windows,
    /// `$XDG_CACHE_HOME/DigitalHeaven/Engine/cache` (or `~/.cache/…`) elsewhere; `None`
    /// when the environment names no home.
    pub fn default_root() -> Option<PathBuf> {
        let base = if cfg!(windows) {
            std::env::var_os("LOCALAPPDATA").map(PathBuf::from)
        } else {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        }?;
        Some(base.join("DigitalHeaven").join("Engine").join("cache"))
    }

    /// The file an entry lives in.
    pub fn path(&self, key: &[u8; 32]) -> PathBuf {
        self.root
            .join("collision")
            .join(format!("{}.dhcol", key_hex(key)))
    }

    /// The raw bytes of entry `key`, when present and a well-formed mesh cooked under
    /// that very key; anything else is a miss.
    pub fn read_bytes(&self, key: &[u8; 32]) -> Option<Vec<u8>> {
        if !self.enabled {
            return None;
        }
        let bytes = std::fs::read(self.path(key)).ok()?;
        let mesh = decode_mesh(&bytes, "cache entry").ok()?;
        (mesh.key == *key).then_some(bytes)
    }

    /// Entry `key` decoded, or `None` on a miss (see [`CookCache::read_bytes`]).
    pub fn read(&self, key: &[u8; 32]) -> Option<CookedMesh> {
        if !self.enabled {
            return None;
        }
        let bytes = std::fs::read(self.path(key)).ok()?;
        decode_mesh(&bytes, "cache entry")
            .ok()
            .filter(|m| m.key == *key)
    }

    /// The load-cache entry `key` ([`load_key`]), when present, well-formed and written
    /// under that very key; anything else is a miss. The entry is streamed: its head and
    /// rows, then each mesh through one reused buffer, so reading it allocates only what it
    /// returns.
    pub fn read_geometry(&self, key: &[u8; 32]) -> Option<GeometryEntry> {
        if !self.enabled {
            return None;
        }
        let path = self.path(key);
        let file = std::fs::File::open(&path).ok()?;
        let total = file.metadata().ok()?.len();
        let name = path.display().to_string();
        read_geometry_from(file, total, key, &name)
    }

    /// Stores a load-cache entry under its key: written to a temporary file beside the
    /// entry, then renamed over it. Does nothing when the cache is off.
    pub fn write_geometry(&self, entry: &GeometryEntry) -> std::io::Result<()> {
        if !self.enabled {
            return Ok(());
        }
        self.write_file(&entry.key, &encode_geometry(entry))
    }

    fn write_file(&self, key: &[u8; 32], bytes: &[u8]) -> std::io::Result<()> {
        let path = self.path(key);
        let dir = self.root.join("collision");
        std::fs::create_dir_all(&dir)?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{}.{}.{n}.tmp", key_hex(key), std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Stores `mesh` under its key: written to a temporary file beside the entry, then
    /// renamed over it. Does nothing when the cache is off.
    pub fn write(&self, mesh: &CookedMesh) -> std::io::Result<()> {
        if !self.enabled {
            return Ok(());
        }
        self.write_file(&mesh.key, &encode_mesh(mesh))
    }
}

/// Reads a geometry entry of `total` bytes from `src` (see [`CookCache::read_geometry`]);
/// `None` unless it is exactly one well-formed entry written under `key`.
pub fn read_geometry_from(
    mut src: impl Read,
    total: u64,
    key: &[u8; 32],
    name: &str,
) -> Option<GeometryEntry> {
    let mut head = [0u8; GEOMETRY_HEAD_BYTES];
    src.read_exact(&mut head).ok()?;
    let h = decode_geometry_head(&head, total, name).ok()?;
    if h.key != *key {
        return None;
    }
    // The head bounded every count by `total`, so every buffer is bounded by the file.
    // Each read takes one section and the next mesh's length prefix with it: one read per
    // mesh, straight into the buffer it is decoded from.
    let mut left = total.checked_sub(GEOMETRY_HEAD_BYTES as u64)?;
    let prefix = |more: bool| if more { 8 } else { 0 };
    let mut buf: Vec<u8> = Vec::new();
    let mut take = |buf: &mut Vec<u8>, len: u64, more: bool| -> Option<()> {
        let want = len.checked_add(prefix(more))?;
        left = left.checked_sub(want)?;
        buf.clear();
        buf.resize(usize::try_from(want).ok()?, 0);
        src.read_exact(buf).ok()
    };
    let next_len = |buf: &[u8], at: usize| -> Option<u64> {
        let b = buf.get(at..at + 8)?;
        Some(u64::from_le_bytes(<[u8; 8]>::try_from(b).ok()?))
    };
    take(&mut buf, h.rows_len as u64, h.meshes > 0)?;
    let rows_bytes = buf.get(..h.rows_len)?;
    let rows = decode_geometry_rows(rows_bytes, &h, GEOMETRY_HEAD_BYTES as u64, name).ok()?;
    let mut len = if h.meshes > 0 {
        next_len(&buf, h.rows_len)?
    } else {
        0
    };
    let mut at = (GEOMETRY_HEAD_BYTES + h.rows_len + 8) as u64;
    let mut meshes = Vec::with_capacity(h.meshes);
    for i in 0..h.meshes {
        let more = i + 1 < h.meshes;
        take(&mut buf, len, more)?;
        let n = usize::try_from(len).ok()?;
        meshes.push(decode_geometry_mesh(buf.get(..n)?, key, at, name).ok()?);
        at += len + 8;
        if more {
            len = next_len(&buf, n)?;
        }
    }
    // Exactly the file: nothing left over, and nothing past the length it had when opened.
    if left != 0 || src.read(&mut [0u8; 1]).ok()? != 0 {
        return None;
    }
    Some(GeometryEntry {
        key: *key,
        rows,
        meshes,
    })
}

/// What a load-time cook of one placement did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// The model was not read: every part was answered from the cache entry (or none asked
    /// for a cooked mesh).
    pub hit: bool,
    /// Meshes cooked by this load.
    pub cooked: usize,
    /// Meshes a re-cook took from an existing entry instead of cooking them again.
    pub reused: usize,
    /// Triangles in the placement's cook.
    pub triangles: usize,
}

/// A placement cooked at load.
#[derive(Debug, Clone, Default)]
pub struct LoadedCook {
    /// The cook: an entry per solid mesh shape (by objectId and shape index) whose mesh has
    /// triangles, and the meshes they name. Its `key` is the load key.
    pub cook: Colcook,
    /// What the load did.
    pub stats: LoadStats,
    /// A cache entry that could not be written, never an error.
    pub warnings: Vec<String>,
}

/// A part's solid `mesh` shape indices, counted within each solid collider's shapes.
fn solid_mesh_shapes(part: &Part) -> Vec<u32> {
    let mut out = Vec::new();
    for c in &part.components {
        if let ObjectComponent::Collider(c) = c {
            if matches!(c.inner.state, None | Some(ColliderState::Solid)) {
                for (i, s) in c.inner.shapes.iter().flatten().enumerate() {
                    if matches!(s, Shape::Mesh(_)) {
                        out.push(i as u32);
                    }
                }
            }
        }
    }
    out
}

/// The part-frame transform of a node at `world` (model frame) placed at `pose`: what the
/// node's world matrix leaves past its own decomposed frame (the identity but for a
/// dropped shear), as [`super::cook_at_load`] computes it. `Some(None)` for the identity,
/// `None` when the frame has no inverse (the part cooks nothing).
pub fn part_transform(pose: &Mat4, world: &Mat4) -> Option<Option<Mat4>> {
    let w = math::mul(pose, world);
    let d = math::decompose(&w);
    let frame = math::from_trs(d.translation, d.rotation, d.scale);
    let inv = math::inverse(&frame)?;
    let m = math::mul(&inv, &w);
    Some((!super::near_identity(&m)).then_some(m))
}

/// A transform as bits, for exact comparison and hashing.
fn bits(t: Option<&Mat4>) -> Option<[u64; 16]> {
    t.map(|m| m.to_cols_array().map(f64::to_bits))
}

/// The geometry of `model`'s mesh `source` carried by `transform`: extracted, welded and
/// culled ([`cook::extract`], [`cook::weld`]), with a one-leaf tree.
pub fn cook_geometry(
    model: &Model,
    source: u32,
    transform: Option<&Mat4>,
    entry_key: &[u8; 32],
) -> GeometryMesh {
    let soup = model
        .meshes
        .get(source as usize)
        .map(|m| cook::extract(m, transform))
        .unwrap_or_default();
    let welded = cook::weld(&soup);
    let nodes = leaf_tree(&welded.vertices, welded.triangles.len());
    GeometryMesh {
        source,
        transform: transform.copied(),
        mesh: CookedMesh {
            key: geometry_mesh_key(entry_key, source, transform),
            vertices: welded.vertices,
            triangles: welded.triangles,
            materials: welded.materials,
            slots: soup.slots,
            nodes,
        },
    }
}

/// A part the load must answer: its scene id, its solid mesh shapes, its node path.
struct Wanted<'a> {
    object_id: Guid,
    shapes: Vec<u32>,
    path: &'a str,
}

/// The load-time cook of one model placement (spec: runtime assets, "Cooked map
/// collision": a map whose pallet ships no cook "is cooked at load"), through the load
/// cache: `key` is the model's [`load_key`], `pose` the placement's world matrix, `parts`
/// its compiled parts table (colliders explicit). Every part with a solid `mesh` shape is
/// looked up by its node path in the entry; when every one is there (and the placement
/// asks for the transforms the entry was cooked with), the cook is the entry's and
/// `import` is never called. Otherwise the model is imported, every asked-for node is
/// cooked (reusing the entry's cooks that still apply), and the entry is written again with
/// this load's rows first and the old entry's other rows after. The cook matches
/// [`super::cook_at_load`]'s shape for shape, less its tree (see [`GeometryMesh`]).
pub fn cook_placement_at_load<M: std::borrow::Borrow<Model>, E>(
    cache: Option<&CookCache>,
    key: &[u8; 32],
    pose: &Mat4,
    parts: &[Part],
    import: impl FnOnce() -> Result<M, E>,
) -> Result<LoadedCook, E> {
    let wanted: Vec<Wanted<'_>> = parts
        .iter()
        .filter_map(|p| {
            let object_id = p.object_id?;
            let path = p.path.as_deref()?;
            math::inverse(&super::part_frame(p))?;
            let shapes = solid_mesh_shapes(p);
            (!shapes.is_empty()).then_some(Wanted {
                object_id,
                shapes,
                path,
            })
        })
        .collect();
    if wanted.is_empty() {
        // Nothing asks for a cooked mesh: nothing to read, cook or write.
        return Ok(LoadedCook {
            cook: Colcook {
                key: *key,
                ..Colcook::default()
            },
            stats: LoadStats {
                hit: true,
                ..LoadStats::default()
            },
            warnings: Vec::new(),
        });
    }
    let old = cache.and_then(|c| c.read_geometry(key));
    // The warm path: every wanted part answered by a row whose cook still applies.
    let warm = old.as_ref().and_then(|entry| {
        let rows: HashMap<&str, &GeometryRow> =
            entry.rows.iter().map(|r| (r.path.as_str(), r)).collect();
        let answer = |w: &Wanted<'_>| -> Option<Option<u32>> {
            let row = rows.get(w.path)?;
            let Some(m) = row.mesh else {
                return Some(None);
            };
            let g = entry.meshes.get(m as usize)?;
            match part_transform(pose, &row.world) {
                None => Some(None),
                Some(t) => (bits(t.as_ref()) == bits(g.transform.as_ref())).then_some(Some(m)),
            }
        };
        wanted
            .iter()
            .map(answer)
            .collect::<Option<Vec<Option<u32>>>>()
    });
    let old = match (warm, old) {
        (Some(answers), Some(entry)) => {
            let cook = assemble(*key, &wanted, &answers, entry.meshes);
            let triangles = cook.meshes.iter().map(|m| m.triangles.len()).sum();
            return Ok(LoadedCook {
                cook,
                stats: LoadStats {
                    hit: true,
                    triangles,
                    ..LoadStats::default()
                },
                warnings: Vec::new(),
            });
        }
        (_, old) => old,
    };
    // The cold path: import the model and cook what this placement asks for.
    let model = import()?;
    let model: &Model = model.borrow();
    let paths = model.node_paths();
    let by_path: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let worlds = model.world_matrices();
    let mut stats = LoadStats::default();
    let (mut old_rows, mut old_meshes): (Vec<GeometryRow>, Vec<Option<GeometryMesh>>) = match old {
        Some(e) => (e.rows, e.meshes.into_iter().map(Some).collect()),
        None => (Vec::new(), Vec::new()),
    };
    let old_ids: Vec<(u32, Option<[u64; 16]>)> = old_meshes
        .iter()
        .flatten()
        .map(|g| (g.source, bits(g.transform.as_ref())))
        .collect();
    let mut old_by_cook: HashMap<(u32, Option<[u64; 16]>), usize> =
        old_ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut meshes: Vec<GeometryMesh> = Vec::new();
    let mut by_cook: HashMap<(u32, Option<[u64; 16]>), u32> = HashMap::new();
    let mut rows: Vec<GeometryRow> = Vec::new();
    let mut row_of: HashMap<&str, Option<u32>> = HashMap::new();
    let mut answers = Vec::with_capacity(wanted.len());
    for w in &wanted {
        if let Some(a) = row_of.get(w.path) {
            answers.push(*a);
            continue;
        }
        let node = by_path.get(w.path).copied();
        let source = node
            .and_then(|n| model.nodes.get(n))
            .and_then(|n| n.mesh)
            .filter(|m| *m < model.meshes.len());
        let world = node
            .and_then(|n| worlds.get(n).copied())
            .unwrap_or(Mat4::IDENTITY);
        let answer = match source {
            None => {
                rows.push(GeometryRow {
                    path: w.path.to_string(),
                    world,
                    mesh: None,
                });
                None
            }
            Some(source) => match part_transform(pose, &world) {
                // A frame with no inverse cooks nothing and leaves no row (it depends on
                // the pose, not on the model).
                None => None,
                Some(t) => {
                    let source = source as u32;
                    let id = (source, bits(t.as_ref()));
                    let m = match by_cook.get(&id) {
                        Some(m) => *m,
                        None => {
                            let reused = old_by_cook
                                .remove(&id)
                                .and_then(|i| old_meshes.get_mut(i)?.take());
                            let g = match reused {
                                Some(g) => {
                                    stats.reused += 1;
                                    g
                                }
                                None => {
                                    stats.cooked += 1;
                                    cook_geometry(model, source, t.as_ref(), key)
                                }
                            };
                            let m = meshes.len() as u32;
                            meshes.push(g);
                            by_cook.insert(id, m);
                            m
                        }
                    };
                    rows.push(GeometryRow {
                        path: w.path.to_string(),
                        world,
                        mesh: Some(m),
                    });
                    Some(m)
                }
            },
        };
        row_of.insert(w.path, answer);
        answers.push(answer);
    }
    // The old entry's other rows follow, with the cooks they name.
    for mut r in std::mem::take(&mut old_rows) {
        if row_of.contains_key(r.path.as_str()) {
            continue;
        }
        if let Some(i) = r.mesh {
            let Some(id) = old_ids.get(i as usize).copied() else {
                continue;
            };
            r.mesh = match by_cook.get(&id) {
                Some(m) => Some(*m),
                None => old_meshes
                    .get_mut(i as usize)
                    .and_then(Option::take)
                    .map(|g| {
                        let m = meshes.len() as u32;
                        meshes.push(g);
                        by_cook.insert(id, m);
                        m
                    }),
            };
            if r.mesh.is_none() {
                continue;
            }
        }
        rows.push(r);
    }
    let entry = GeometryEntry {
        key: *key,
        rows,
        meshes,
    };
    let mut warnings = Vec::new();
    if let Some(c) = cache {
        if let Err(e) = c.write_geometry(&entry) {
            warnings.push(format!(
                "autoCollision: the collision cache entry {} could not be written ({e}); the map cooks at load again next time",
                c.path(key).display()
            ));
        }
    }
    let cook = assemble(*key, &wanted, &answers, entry.meshes);
    stats.triangles = cook.meshes.iter().map(|m| m.triangles.len()).sum();
    Ok(LoadedCook {
        cook,
        stats,
        warnings,
    })
}

/// The placement's cook from the entry's meshes and each wanted part's answer: an entry per
/// solid mesh shape whose mesh has triangles, and only the meshes some entry names.
fn assemble(
    key: [u8; 32],
    wanted: &[Wanted<'_>],
    answers: &[Option<u32>],
    meshes: Vec<GeometryMesh>,
) -> Colcook {
    let mut remap: Vec<Option<u32>> = vec![None; meshes.len()];
    let mut slots: Vec<Option<GeometryMesh>> = meshes.into_iter().map(Some).collect();
    let mut out = Colcook {
        key,
        ..Colcook::default()
    };
    for (w, a) in wanted.iter().zip(answers) {
        let Some(m) = a.map(|m| m as usize) else {
            continue;
        };
        let idx = match remap.get(m).copied().flatten() {
            Some(i) => i,
            None => {
                let Some(g) = slots.get_mut(m).and_then(Option::take) else {
                    continue;
                };
                if g.mesh.triangles.is_empty() {
                    continue;
                }
                let i = out.meshes.len() as u32;
                out.meshes.push(g.mesh);
                if let Some(r) = remap.get_mut(m) {
                    *r = Some(i);
                }
                i
            }
        };
        for s in &w.shapes {
            out.entries.push(CookEntry {
                object_id: w.object_id,
                shape: *s,
                mesh: idx,
            });
        }
    }
    out
}
