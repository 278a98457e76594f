//! The parts table a compiled map bakes into every model instance, and the identity
//! sidecar its local ids come from (spec: dh.map, "Parts" and "The identity sidecar").
//!
//! Two steps, because the sidecar belongs to the model and every placement shares it:
//!
//! 1. [`match_identities`] once per model: re-match the model's part nodes against its
//!    `.dh-ids` (retarget first, then the four tiers), mint ids for the rest, keep the
//!    leftovers as orphans, and produce the file to write back. It never fails.
//! 2. [`bake_parts_table`] once per placement: the [`Part`] entries — mesh parts first,
//!    then structural ones, ids counted map-wide from the placement's first, `objectId`
//!    a UUIDv5 of the local id under the instance id, the pose and bounds at the
//!    placement's pose, and the generated `dh.renderer` on every drawn part.

mod hashes;
pub mod ids;
pub mod overrides;

use std::collections::{BTreeMap, HashMap};

pub use hashes::{sha1, uuid_v5};
pub use ids::{IdsEntry, IdsError, IdsFile, IDS_VERSION};
pub use overrides::{apply_overrides, Applied, OverrideNote, Resolution};

use glam::{DMat4, DQuat, DVec3};

use crate::gltf::Model;
use crate::jsonc::Span;
use crate::math;
use crate::read::Table;
use crate::schema::common::{Guid, Vec3, Vec4};
use crate::schema::object_components::{ObjectComponent, Renderer};
use crate::schema::records::{Aabb, Part};

/// The namespace fresh local ids are minted under (`uuid_v5(namespace, barcode#path)`).
pub const LOCAL_ID_NAMESPACE: Guid = Guid([
    0x5d, 0x1e, 0x0a, 0x7c, 0x3b, 0x92, 0x4f, 0x61, 0x9a, 0x0e, 0x27, 0xd4, 0xc1, 0x88, 0x50, 0x3f,
]);

/// The file name of a model's identity sidecar: `.dh-ids` appended to the model's file
/// name (`meshes/city.glb.dh-ids`), or to the folder's for a folder of pieces
/// (`meshes/de_ancient.dh-ids`).
pub fn ids_path(model_path: &str) -> String {
    format!("{}.dh-ids", model_path.trim_end_matches('/'))
}

/// A part's scene-object id: `SceneIds.Child(instance id, localId)`, the UUIDv5 of the
/// local id's 16 bytes under the instance's id.
pub fn object_id(instance: Guid, local: Guid) -> Guid {
    uuid_v5(instance, &local.0)
}

/// A freshly minted local id: the UUIDv5 of `<barcode>#<node path>`.
pub fn mint_local_id(barcode: &str, path: &str) -> Guid {
    uuid_v5(LOCAL_ID_NAMESPACE, format!("{barcode}#{path}").as_bytes())
}

/// The nodes that are parts, in table order: mesh-bearing nodes in traversal order (the
/// runtime loader's slots), then structural ones. Cameras, lights and skinned nodes get
/// no entry.
pub fn part_nodes(model: &Model) -> Vec<usize> {
    let order = model.traversal();
    let mut out: Vec<usize> = order
        .iter()
        .copied()
        .filter(|n| model.nodes[*n].is_part() && model.nodes[*n].mesh.is_some())
        .collect();
    out.extend(
        order
            .iter()
            .copied()
            .filter(|n| model.nodes[*n].is_part() && model.nodes[*n].mesh.is_none()),
    );
    out
}

/// A mesh node's content digest (hex SHA-1 over each primitive's material slot, vertex
/// positions, normals and UV0, and indices, in the mesh's own space); empty for a node
/// with no mesh.
pub fn content_hash(model: &Model, node: usize) -> String {
    let Some(mesh) = model
        .nodes
        .get(node)
        .and_then(|n| n.mesh)
        .and_then(|m| model.meshes.get(m))
    else {
        return String::new();
    };
    use sha1::Digest;
    let mut h = sha1::Sha1::new();
    // One buffer per primitive, so the digest runs over whole blocks.
    let mut buf = Vec::new();
    for p in &mesh.primitives {
        buf.clear();
        buf.push(b'P');
        buf.extend_from_slice(p.material.as_deref().unwrap_or("").as_bytes());
        buf.push(0);
        buf.extend_from_slice(&(p.vertices.len() as u64).to_le_bytes());
        buf.reserve(p.vertices.len() * 32 + p.indices.len() * 4 + 8);
        for v in &p.vertices {
            for c in v.position.iter().chain(&v.normal).chain(&v.uv0) {
                buf.extend_from_slice(&c.to_le_bytes());
            }
        }
        buf.extend_from_slice(&(p.indices.len() as u64).to_le_bytes());
        for i in &p.indices {
            buf.extend_from_slice(&i.to_le_bytes());
        }
        h.update(&buf);
    }
    crate::hash::hex(&h.finalize())
}

/// A model's part identities, matched once and shared by every placement.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelIds {
    /// The part nodes, in table order ([`part_nodes`]).
    pub nodes: Vec<usize>,
    /// The local id of each, aligned with `nodes`.
    pub local_ids: Vec<Guid>,
    /// The sidecar to write back beside the model (live identities, then orphans).
    pub file: IdsFile,
    /// Whether `file` differs from the sidecar read (nothing to write when false).
    pub changed: bool,
    /// Ambiguous matches skipped, orphans kept, retargets that named no part. Never an
    /// error: nothing here fails a build.
    pub warnings: Vec<String>,
}

impl ModelIds {
    /// The local id of model node `node`, if it is a part.
    pub fn local_id(&self, node: usize) -> Option<Guid> {
        self.nodes
            .iter()
            .position(|n| *n == node)
            .and_then(|i| self.local_ids.get(i).copied())
    }
}

/// One live part's matching keys.
struct Live {
    path: String,
    name: String,
    parent: String,
    sibling: u32,
    hash: String,
}

fn names_list(list: &[String]) -> String {
    let mut s: Vec<String> = list.iter().take(12).map(|p| format!("'{p}'")).collect();
    if list.len() > 12 {
        s.push(format!("and {} more", list.len() - 12));
    }
    s.join(", ")
}

/// Re-matches `model`'s parts against its identity sidecar (`None` when the model has
/// none yet): a retarget first, then path plus name; content hash plus parent and sibling
/// position; content hash alone; name plus parent and sibling position. A structural part
/// has an empty hash and skips the hash tiers; a key naming more than one candidate is
/// skipped and warned about; a part no tier matches gets a fresh id minted from
/// `barcode` (`<palletId>:<path in the pallet>`) and its path.
pub fn match_identities(model: &Model, barcode: &str, sidecar: Option<&IdsFile>) -> ModelIds {
    let nodes = part_nodes(model);
    let paths = model.node_paths();
    let live: Vec<Live> = nodes
        .iter()
        .map(|n| {
            let node = &model.nodes[*n];
            let (parent, siblings) = match node.parent {
                Some(p) => (paths[p].clone(), &model.nodes[p].children),
                None => (String::new(), &model.roots),
            };
            Live {
                path: paths[*n].clone(),
                name: node.name.clone(),
                parent,
                sibling: siblings.iter().position(|c| c == n).unwrap_or(0) as u32,
                hash: content_hash(model, *n),
            }
        })
        .collect();
    let empty = IdsFile::default();
    let old = sidecar.unwrap_or(&empty);
    let mut entries = old.parts.clone();
    let mut warnings = Vec::new();
    let mut assigned: Vec<Option<usize>> = vec![None; live.len()];
    let mut used = vec![false; entries.len()];

    // Retarget outranks every tier, and is cleared once honored.
    let by_path: HashMap<&str, usize> = live
        .iter()
        .enumerate()
        .map(|(i, l)| (l.path.as_str(), i))
        .collect();
    for (e, entry) in entries.iter_mut().enumerate() {
        let Some(target) = entry.retarget.clone() else {
            continue;
        };
        match by_path.get(target.as_str()) {
            Some(&i) if assigned[i].is_none() => {
                assigned[i] = Some(e);
                used[e] = true;
                entry.retarget = None;
            }
            Some(_) => warnings.push(format!(
                "identity sidecar: the retarget of {} onto '{target}' is not honored: another identity already retargets onto that part",
                entry.id
            )),
            None => warnings.push(format!(
                "identity sidecar: the orphan {} (last seen at '{}') retargets onto '{target}', which names no part of the model; it stays an orphan",
                entry.id, entry.path
            )),
        }
    }

    type KeyFn = fn(&str, &str, &str, u32, &str) -> Option<String>;
    let tiers: [(&str, KeyFn); 4] = [
        ("path plus name", |path, name, _, _, _| {
            Some(format!("{path}\u{0}{name}"))
        }),
        (
            "content hash plus parent and sibling position",
            |_, _, parent, sib, hash| {
                (!hash.is_empty()).then(|| format!("{hash}\u{0}{parent}\u{0}{sib}"))
            },
        ),
        ("content hash", |_, _, _, _, hash| {
            (!hash.is_empty()).then(|| hash.to_string())
        }),
        (
            "name plus parent and sibling position",
            |_, name, parent, sib, _| Some(format!("{name}\u{0}{parent}\u{0}{sib}")),
        ),
    ];
    for (tier, key) in tiers {
        let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (e, entry) in entries.iter().enumerate() {
            if used[e] {
                continue;
            }
            if let Some(k) = key(
                &entry.path,
                &entry.name,
                &entry.parent,
                entry.sibling,
                &entry.hash,
            ) {
                by_key.entry(k).or_default().push(e);
            }
        }
        let mut live_by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, l) in live.iter().enumerate() {
            if assigned[i].is_some() {
                continue;
            }
            if let Some(k) = key(&l.path, &l.name, &l.parent, l.sibling, &l.hash) {
                live_by_key.entry(k).or_default().push(i);
            }
        }
        // In part order, so the warnings read in a stable order.
        let mut claims: Vec<(usize, &Vec<usize>, &Vec<usize>)> = live_by_key
            .iter()
            .filter_map(|(k, ls)| by_key.get(k).map(|es| (ls[0], ls, es)))
            .collect();
        claims.sort_by_key(|c| c.0);
        for (_, ls, es) in claims {
            if ls.len() == 1 && es.len() == 1 {
                assigned[ls[0]] = Some(es[0]);
                used[es[0]] = true;
            } else {
                let parts: Vec<String> = ls.iter().map(|i| live[*i].path.clone()).collect();
                let ids: Vec<String> = es.iter().map(|e| entries[*e].path.clone()).collect();
                warnings.push(format!(
                    "identity sidecar: matching by {tier} is ambiguous for {} part(s) ({}) against {} recorded identities (last seen at {}); skipped rather than guessed",
                    ls.len(),
                    names_list(&parts),
                    es.len(),
                    names_list(&ids)
                ));
            }
        }
    }

    // Fresh ids, unique against every id the sidecar holds.
    let mut taken: std::collections::HashSet<Guid> = entries.iter().map(|e| e.id).collect();
    let mut local_ids = Vec::with_capacity(live.len());
    for (i, l) in live.iter().enumerate() {
        let id = match assigned[i] {
            Some(e) => entries[e].id,
            None => {
                let mut id = mint_local_id(barcode, &l.path);
                let mut k = 1u32;
                while !taken.insert(id) {
                    id = mint_local_id(barcode, &format!("{}#{k}", l.path));
                    k += 1;
                }
                id
            }
        };
        local_ids.push(id);
    }

    let mut file = IdsFile {
        model: barcode.to_string(),
        parts: Vec::with_capacity(entries.len() + live.len()),
    };
    for (l, id) in live.iter().zip(&local_ids) {
        file.parts.push(IdsEntry {
            id: *id,
            path: l.path.clone(),
            name: l.name.clone(),
            parent: l.parent.clone(),
            sibling: l.sibling,
            hash: l.hash.clone(),
            orphan: false,
            retarget: None,
        });
    }
    let mut orphans = Vec::new();
    for (e, entry) in entries.iter_mut().enumerate() {
        if used[e] {
            continue;
        }
        entry.orphan = true;
        orphans.push(entry.path.clone());
        file.parts.push(entry.clone());
    }
    if !orphans.is_empty() {
        warnings.push(format!(
            "identity sidecar: {} identit{} no longer name a node of the model and are kept as orphans (re-adding the node restores its id; set an orphan's retarget to move it): {}",
            orphans.len(),
            if orphans.len() == 1 { "y does" } else { "ies do" },
            names_list(&orphans)
        ));
    }
    let changed = sidecar.is_none_or(|s| *s != file);
    ModelIds {
        nodes,
        local_ids,
        file,
        changed,
        warnings,
    }
}

/// Where and how one model instance stands in its map.
#[derive(Debug, Clone, Copy)]
pub struct Placement<'a> {
    /// The instance record's id.
    pub instance_id: Guid,
    /// The instance's world pose ([`instance_pose`]).
    pub pose: DMat4,
    /// The map-wide id of this placement's first part (the previous placement's
    /// [`PartsTable::next_id`], 0 for the first).
    pub first_id: u32,
    /// The map's `materials` table: slot name → the `dh.material` reference.
    pub materials: &'a BTreeMap<String, String>,
}

/// The world pose of a record: `T · R · S` from its position, euler degrees (Z·Y·X) and
/// per-axis scale; an absent member is its identity.
pub fn instance_pose(position: Option<Vec3>, rotation: Option<Vec3>, scale: Option<Vec3>) -> DMat4 {
    math::from_trs(
        position.map_or(DVec3::ZERO, |v| DVec3::from_array(v.0)),
        rotation.map_or(DQuat::IDENTITY, |r| {
            math::quat_from_euler_degrees(DVec3::from_array(r.0))
        }),
        scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0)),
    )
}

/// One placement's part table.
#[derive(Debug, Clone, Default)]
pub struct PartsTable {
    /// The entries, mesh parts first.
    pub parts: Vec<Part>,
    /// The model node of each entry.
    pub nodes: Vec<usize>,
    /// The world matrix of each entry (placement included, and once
    /// [`apply_overrides`] ran, its override's delta too): what moves the part's
    /// vertices from the model's mesh space into the map.
    pub worlds: Vec<DMat4>,
    /// The id the next placement's parts count on from.
    pub next_id: u32,
    /// Warnings (one naming every sheared node).
    pub warnings: Vec<String>,
}

const EPS: f64 = 1e-9;

/// The bounds of `mesh`'s vertices under world matrix `w`, `None` when the mesh has no
/// vertex or a bound is not finite.
pub fn mesh_bounds(mesh: &crate::gltf::Mesh, w: &DMat4) -> Option<([f64; 3], [f64; 3])> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in &mesh.primitives {
        for v in &p.vertices {
            let q = w
                .transform_point3(DVec3::from_array(v.position.map(f64::from)))
                .to_array();
            for a in 0..3 {
                lo[a] = lo[a].min(q[a]);
                hi[a] = hi[a].max(q[a]);
            }
        }
    }
    lo.iter()
        .chain(&hi)
        .all(|v| v.is_finite())
        .then_some((lo, hi))
}

/// Bakes the part table of one placement of `model`, its identities from `ids`
/// ([`match_identities`] over the same model).
pub fn bake_parts_table(model: &Model, ids: &ModelIds, placement: &Placement<'_>) -> PartsTable {
    let worlds = model.world_matrices();
    let paths = model.node_paths();
    let mut out = PartsTable::default();
    let mut sheared = Vec::new();
    let mut id = placement.first_id;
    for (k, n) in ids.nodes.iter().enumerate() {
        let Some(node) = model.nodes.get(*n) else {
            continue;
        };
        let local = ids.local_ids.get(k).copied().unwrap_or_default();
        let w = math::mul(&placement.pose, &worlds[*n]);
        let d = math::decompose(&w);
        if d.sheared {
            sheared.push(paths[*n].clone());
        }
        let rot_identity = d
            .rotation
            .to_array()
            .iter()
            .zip(DQuat::IDENTITY.to_array())
            .all(|(a, b)| (a - b).abs() < EPS);
        let scale_one = d.scale.to_array().iter().all(|s| (s - 1.0).abs() < EPS);
        let mesh = node.mesh.and_then(|m| model.meshes.get(m));
        let mut components = Vec::new();
        let mut aabb = None;
        if let Some(mesh) = mesh {
            aabb = mesh_bounds(mesh, &w).map(|(lo, hi)| Aabb {
                min: Vec3(lo),
                max: Vec3(hi),
                ..Aabb::default()
            });
            let mut materials = Table {
                entries: Vec::new(),
            };
            for p in &mesh.primitives {
                if let Some(slot) = &p.material {
                    if materials.get(slot).is_none() {
                        let bound = placement.materials.get(slot).cloned().unwrap_or_default();
                        materials
                            .entries
                            .push((slot.clone(), Span::default(), bound));
                    }
                }
            }
            let probe = mesh
                .primitives
                .first()
                .and_then(|p| p.reflection_probe.clone())
                .filter(|first| {
                    mesh.primitives
                        .iter()
                        .all(|p| p.reflection_probe.as_ref() == Some(first))
                });
            components.push(ObjectComponent::Renderer(Renderer {
                materials: Some(materials),
                reflection_probe: probe,
                generated: Some(true),
                ..Renderer::default()
            }));
        }
        out.parts.push(Part {
            id,
            local_id: Some(local),
            object_id: Some(object_id(placement.instance_id, local)),
            name: Some(node.name.clone()),
            path: Some(paths[*n].clone()),
            structural: mesh.is_none().then_some(true),
            pivot: Some(Vec3(d.translation.to_array())),
            rotation: (!rot_identity).then_some(Vec4(d.rotation.to_array())),
            scale: (!scale_one).then_some(Vec3(d.scale.to_array())),
            parent: None,
            components,
            aabb,
            ..Part::default()
        });
        out.nodes.push(*n);
        out.worlds.push(w);
        id = id.saturating_add(1);
    }
    if !sheared.is_empty() {
        out.warnings.push(format!(
            "parts: {} node(s) have a sheared world matrix; each keeps the rotation and scale it decomposes to and the shear is dropped: {}",
            sheared.len(),
            sheared.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
        ));
    }
    out.next_id = id;
    out
}
