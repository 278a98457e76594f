//! Part overrides laid over one placement's parts table (spec: dh.map, "Part overrides",
//! "The merge rule", "How an override finds its part", "Collider, static and enabled", "A
//! removed part").
//!
//! [`apply_overrides`] runs once per model instance, after [`bake_parts_table`]:
//!
//! * each override finds its part by `id` (a live part's local id) first, then by `path`
//!   when it has no id or its id names no live part; two overrides naming one part leave
//!   one answer, the last;
//! * one that resolves to nothing is a warning and does nothing; one whose id is an orphan
//!   of the model's identity sidecar is warned with the path the part was last seen at. The
//!   override itself is never touched: the compiled map carries it as written;
//! * the transform is a delta: `position` is a world-space displacement, `rotation` an
//!   euler delta (degrees, Z·Y·X) and `scale` a multiplier, both turning and scaling the
//!   part about its compiled pivot. In matrices, with `W` the part's compiled world matrix
//!   (placement included): `W' = T(position) · W · R(rotation) · S(scale)` — the
//!   placement's pose times the part's compiled pose times its override, the displacement
//!   taken in world space;
//! * `enabled: false`, `static: false` and `removed: true` are marked on the part's entry
//!   (a removed part keeps its entry, so every other part keeps its id); `parent` files the
//!   part under another record (it keeps where it stands); the override's `dh.collider` and
//!   `dh.bake` become the part's, ahead of its generated `dh.renderer`.
//!
//! [`bake_parts_table`]: super::bake_parts_table

use std::collections::HashMap;

use super::{ModelIds, PartsTable};
use glam::{DMat4, DQuat, DVec3};

use crate::gltf::Model;
use crate::math;
use crate::schema::common::{Guid, Vec3, Vec4};
use crate::schema::components::MapComponent;
use crate::schema::object_components::{ObjectComponent, Shared};
use crate::schema::records::{Aabb, Part, PartOverride};

/// Something applying an instance's overrides has to say, about one override.
#[derive(Debug, Clone, PartialEq)]
pub struct OverrideNote {
    /// The override's index in the instance's `children`.
    pub index: usize,
    /// The warning.
    pub message: String,
}

/// How one override resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// It names the part at this index of the table (by id or by path).
    Part(usize),
    /// It names no live part, and its id is an orphan of the identity sidecar.
    Orphan,
    /// It names nothing at all (stale).
    Stale,
}

/// What [`apply_overrides`] did.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// How each override resolved, aligned with the instance's `children`.
    pub resolutions: Vec<Resolution>,
    /// The warnings: stale and orphan overrides, and parts an override's transform shears.
    pub notes: Vec<OverrideNote>,
}

const EPS: f64 = 1e-9;

/// Lays `overrides` (a model instance's `children`) over `table`, the placement's parts
/// table baked from `model` with identities `ids`. `model_path` names the model in the
/// warnings. The table's entries and [`PartsTable::worlds`] are final afterwards.
pub fn apply_overrides(
    model: &Model,
    ids: &ModelIds,
    model_path: &str,
    table: &mut PartsTable,
    overrides: &[PartOverride],
) -> Applied {
    let by_local: HashMap<Guid, usize> = table
        .parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.local_id.map(|l| (l, i)))
        .collect();
    let by_path: HashMap<&str, usize> = table
        .parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.path.as_deref().map(|s| (s, i)))
        .collect();
    let orphans: HashMap<Guid, &str> = ids
        .file
        .parts
        .iter()
        .filter(|e| e.orphan)
        .map(|e| (e.id, e.path.as_str()))
        .collect();
    let ids_file = super::ids_path(model_path);

    let mut out = Applied::default();
    // The last override naming a part is its answer.
    let mut chosen: Vec<Option<usize>> = vec![None; table.parts.len()];
    for (k, o) in overrides.iter().enumerate() {
        let hit =
            o.id.and_then(|id| by_local.get(&id).copied())
                .or_else(|| o.path.as_deref().and_then(|p| by_path.get(p).copied()));
        let resolution = match hit {
            Some(i) => {
                if let Some(slot) = chosen.get_mut(i) {
                    *slot = Some(k);
                }
                Resolution::Part(i)
            }
            None => match o.id.and_then(|id| orphans.get(&id).map(|seen| (id, *seen))) {
                Some((id, seen)) => {
                    out.notes.push(OverrideNote {
                        index: k,
                        message: format!(
                            "part override: {id} is an orphan in the identity sidecar '{ids_file}' (the part was last seen at '{seen}'){}; it is kept as written, applies nothing, and applies again when the part comes back",
                            match &o.path {
                                Some(p) => format!(" and its path '{p}' names no live part of '{model_path}'"),
                                None => String::new(),
                            }
                        ),
                    });
                    Resolution::Orphan
                }
                None => {
                    let names = match (&o.id, &o.path) {
                        (Some(id), Some(p)) => format!("its id {id} and its path '{p}' name"),
                        (Some(id), None) => format!("its id {id} names"),
                        (None, Some(p)) => format!("its path '{p}' names"),
                        (None, None) => "it names".to_string(),
                    };
                    out.notes.push(OverrideNote {
                        index: k,
                        message: format!(
                            "part override: {names} no part of '{model_path}'; it does nothing and is kept as written"
                        ),
                    });
                    Resolution::Stale
                }
            },
        };
        out.resolutions.push(resolution);
    }

    let mut sheared = Vec::new();
    for (i, k) in chosen.iter().enumerate() {
        let Some(o) = k.and_then(|k| overrides.get(k)) else {
            continue;
        };
        let node = table.nodes.get(i).copied();
        let Some(part) = table.parts.get_mut(i) else {
            continue;
        };
        if let Some(world) = table.worlds.get_mut(i) {
            if o.position.is_some() || o.rotation.is_some() || o.scale.is_some() {
                let moved = delta_world(world, o);
                if set_pose(part, &moved, node.and_then(|n| model.nodes.get(n)), model) {
                    sheared.push(part.path.clone().unwrap_or_default());
                }
                *world = moved;
            }
        }
        if o.enabled == Some(false) {
            part.enabled = Some(false);
        }
        if o.is_static == Some(false) {
            part.is_static = Some(false);
        }
        if o.removed == Some(true) {
            part.removed = Some(true);
        }
        if let Some(parent) = o.parent {
            part.parent = Some(parent);
        }
        let mut own = part_components(&o.components);
        if !own.is_empty() {
            own.append(&mut part.components);
            part.components = own;
        }
    }
    if !sheared.is_empty() {
        out.notes.push(OverrideNote {
            index: overrides.len(),
            message: format!(
                "part overrides: {} part(s) of '{model_path}' turned or scaled by their override have a sheared world matrix; each keeps the rotation and scale it decomposes to and the shear is dropped: {}",
                sheared.len(),
                sheared
                    .iter()
                    .map(|p| format!("'{p}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    out
}

/// `T(position) · W · R(rotation) · S(scale)`: the override's delta laid over world matrix
/// `w` (a member left out is its identity).
pub fn delta_world(w: &DMat4, o: &PartOverride) -> DMat4 {
    let r = o.rotation.map_or(DQuat::IDENTITY, |r| {
        math::quat_from_euler_degrees(DVec3::from_array(r.0))
    });
    let s = o
        .scale
        .map_or(DVec3::ONE, |s| DVec3::from_array(s.axes().0));
    let local = math::from_trs(DVec3::ZERO, r, s);
    let d = o.position.map_or(DVec3::ZERO, |p| DVec3::from_array(p.0));
    let shift = math::from_trs(d, DQuat::IDENTITY, DVec3::ONE);
    math::mul(&shift, &math::mul(w, &local))
}

/// Writes world matrix `w` into `part`'s pivot, rotation, scale and (for a mesh part) its
/// bounds; `true` when `w` carries a shear that was dropped.
fn set_pose(part: &mut Part, w: &DMat4, node: Option<&crate::gltf::Node>, model: &Model) -> bool {
    let d = math::decompose(w);
    let rot_identity = d
        .rotation
        .to_array()
        .iter()
        .zip(DQuat::IDENTITY.to_array())
        .all(|(a, b)| (a - b).abs() < EPS);
    let scale_one = d.scale.to_array().iter().all(|s| (s - 1.0).abs() < EPS);
    part.pivot = Some(Vec3(d.translation.to_array()));
    part.rotation = (!rot_identity).then_some(Vec4(d.rotation.to_array()));
    part.scale = (!scale_one).then_some(Vec3(d.scale.to_array()));
    if let Some(mesh) = node.and_then(|n| n.mesh).and_then(|m| model.meshes.get(m)) {
        part.aabb = super::mesh_bounds(mesh, w).map(|(lo, hi)| Aabb {
            min: Vec3(lo),
            max: Vec3(hi),
            ..Aabb::default()
        });
    }
    d.sheared
}

/// An override's `dh.collider` and `dh.bake` as the part's components (collider first),
/// one of each; any other entry was refused by the map rules.
fn part_components(list: &[MapComponent]) -> Vec<ObjectComponent> {
    let collider = list.iter().find_map(|c| match c {
        MapComponent::Collider(c) => Some(ObjectComponent::Collider(Shared {
            inner: c.clone(),
            removed: None,
            missing: Vec::new(),
            at: c.at.clone(),
        })),
        _ => None,
    });
    let bake = list.iter().find_map(|c| match c {
        MapComponent::Bake(b) => Some(ObjectComponent::Bake(Shared {
            inner: b.clone(),
            removed: None,
            missing: Vec::new(),
            at: b.at.clone(),
        })),
        _ => None,
    });
    collider.into_iter().chain(bake).collect()
}
