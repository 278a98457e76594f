//! Automatic collision for model instances (spec: dh.map, "Colliders", "Automatic
//! collision", "Nodes the bake skips", "hullOptions"; runtime assets, "Cooked map
//! collision"): what `autoCollision` makes of each part of a placed model, materialized as
//! explicit `dh.collider` components, and the `.dh-colcook` companion that carries the
//! cooked triangles of every mesh shape.
//!
//! # The entry point
//!
//! One [`MapCollision`] per compiled map:
//!
//! ```text
//! let mut col = MapCollision::new(map.auto_collision(), map.hull_options.as_ref(), cache);
//! for each model instance (after bake_parts_table):
//!     let out = col.bake_instance(&model, &table, &placement, &states);
//!     out.apply(&mut table.parts);            // the dh.collider goes first in components
//!     warnings += out.warnings;               // at the instance's `source`
//! let done = col.finish(map_path);            // `maps/x.dh-map` -> `maps/x.dh-map.dh-colcook`
//! write done.companion (if any) beside the compiled map; warnings += done.warnings
//! ```
//!
//! A map without a world instance (a model instance named `world`) has no automatic
//! collision regardless: construct its `MapCollision` with [`AutoCollision::Off`], which
//! still names collapsed subtrees and still keeps authored colliders.
//!
//! `states` is one [`PartState`] per part of the table (the part's resolved override:
//! `enabled`, and its authored `dh.collider`); an empty slice means no overrides.
//! [`part_states`] reads them from an instance's `children` (id, then path).
//!
//! # What each part gets
//!
//! * A part that authors a `dh.collider` keeps it (an authored collider always wins). Its
//!   `auto` shapes — and, on a part, a collider whose `shapes` are left out, which asks for
//!   the mode's shapes — are replaced by what the mode makes, marked `"auto": true`.
//! * A part that authors none, is enabled and draws a mesh gets what the mode makes, in a
//!   collider marked `"generated": true`; nothing when the mode makes nothing.
//! * `"mesh"`: one `mesh` shape over the part's own triangles (sky slots dropped), cooked
//!   once per distinct triangle set and attached through the companion by the part's
//!   `objectId` and the shape's index. A part switched off (`"enabled": false`) or whose
//!   collider is `"off"` or `"trigger"` is left out of the cook; an `auto` shape on such a
//!   part stands as the part's box instead, so a trigger keeps a volume to measure.
//! * `"boxes"`: one box over the node's triangles in the part's own frame (the part's pose
//!   orients it), wearing the node's dominant material.
//! * `"hulls"`: the convex pieces of the node ([`hulls`]), each wearing the dominant
//!   material.
//! * `false`: nothing.
//!
//! The cook runs in the build's own process: this crate is the runtime's cooker too
//! ([`cook_at_load`] is the load-time path for a pallet that ships no companion), so the
//! spec's "hand the triangles to the engine named by enginePath" step has nothing to hand
//! off, and a mesh-mode build always ships its companion when any part has a cooked
//! shape. A cache entry that cannot be written is a warning, never an error.
//!
//! In `"boxes"` and `"hulls"`, a node carrying a material named like a sky, one thinner
//! than [`MIN_THICKNESS`] or larger than [`MAX_SIZE`] is skipped silently. In every mode a
//! node whose world transform has no inverse, and all below it, is skipped and named in
//! one `autoCollision: collapsed subtree…` warning; a node whose bake panics is named in
//! one `autoCollision: node failed to bake…` warning. A skipped part keeps its table entry.

pub mod cache;
pub mod cook;
pub mod format;
pub mod hulls;

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use cache::{mesh_key, CookCache};
pub use cook::{BvhNode, CookedMesh, Soup, WeldStats, Welded, NO_MATERIAL};
pub use format::{
    decode_companion, decode_mesh, encode_companion, encode_mesh, Colcook, ColcookError, CookEntry,
    FORMAT_VERSION,
};

use crate::gltf::Model;
use crate::math;
use crate::parts::{PartsTable, Placement};
use crate::schema::common::{Guid, Vec3};
use crate::schema::components::geometry::{
    BoxShape, Collider, ColliderState, HullShape, MeshShape, Shape,
};
use crate::schema::components::MapComponent;
use crate::schema::map::{AutoCollision, HullOptions};
use crate::schema::object_components::{ObjectCollider, ObjectComponent};
use crate::schema::records::{Part, PartOverride};
use glam::{DMat4 as Mat4, DQuat, DVec3};

/// In `"boxes"` and `"hulls"`, a node thinner than this on some axis (meters, posed) is
/// skipped ("thinner than ~1 mm").
pub const MIN_THICKNESS: f64 = 0.001;

/// In `"boxes"` and `"hulls"`, a node larger than this on some axis (meters, posed) is
/// skipped ("larger than 900 m").
pub const MAX_SIZE: f64 = 900.0;

/// How many node paths a warning names before counting the rest.
pub const WARNING_NAMES: usize = 12;

/// The file name of a map's cooked-collision companion: `.dh-colcook` appended to the
/// map's own (`maps/lobby.dh-map` → `maps/lobby.dh-map.dh-colcook`).
pub fn companion_path(map_path: &str) -> String {
    format!("{map_path}.dh-colcook")
}

/// One part's resolved override state, as far as collision reads it.
#[derive(Debug, Clone)]
pub struct PartState {
    /// `false` takes the part out of the world: no generated collider, nothing cooked.
    pub enabled: bool,
    /// The part's authored `dh.collider`, if any (it always wins over the mode).
    pub collider: Option<Collider>,
}

impl Default for PartState {
    fn default() -> Self {
        PartState {
            enabled: true,
            collider: None,
        }
    }
}

/// Each part's [`PartState`] from a model instance's part overrides (its `children`): an
/// override names its part by `id` (the part's `localId`), else by `path`; the first that
/// names a part gives its `enabled` (only `false` switches it off) and its `dh.collider`.
/// A part no override names is enabled with no collider of its own.
pub fn part_states(parts: &[Part], overrides: &[PartOverride]) -> Vec<PartState> {
    parts
        .iter()
        .map(|part| {
            let by_id = overrides
                .iter()
                .find(|o| o.id.is_some() && o.id == part.local_id);
            let found = by_id.or_else(|| {
                overrides
                    .iter()
                    .find(|o| o.path.is_some() && o.path == part.path)
            });
            match found {
                None => PartState::default(),
                Some(o) => PartState {
                    enabled: o.enabled != Some(false),
                    collider: o.components.iter().find_map(|c| match c {
                        MapComponent::Collider(c) => Some(c.clone()),
                        _ => None,
                    }),
                },
            }
        })
        .collect()
}

/// What one placement's parts get.
#[derive(Debug, Clone, Default)]
pub struct InstanceCollision {
    /// One entry per part of the table, aligned with it: the part's resolved `dh.collider`
    /// (authored, rewritten, or generated), `None` for a part with none.
    pub colliders: Vec<Option<Collider>>,
    /// `autoCollision: collapsed subtree…` and `autoCollision: node failed to bake…`,
    /// each at most once.
    pub warnings: Vec<String>,
}

impl InstanceCollision {
    /// Writes each part's collider into its components: any `dh.collider` there is
    /// replaced, and the resolved one goes first.
    pub fn apply(&self, parts: &mut [Part]) {
        for (part, collider) in parts.iter_mut().zip(&self.colliders) {
            part.components
                .retain(|c| !matches!(c, ObjectComponent::Collider(_)));
            if let Some(c) = collider {
                part.components.insert(
                    0,
                    ObjectComponent::Collider(ObjectCollider {
                        inner: c.clone(),
                        ..ObjectCollider::default()
                    }),
                );
            }
        }
    }
}

/// A file the build writes beside the compiled map.
#[derive(Debug, Clone, PartialEq)]
pub struct Companion {
    /// Its path in the pallet ([`companion_path`]).
    pub path: String,
    /// Its bytes ([`encode_companion`]).
    pub bytes: Vec<u8>,
}

/// What a finished map cook leaves.
#[derive(Debug, Clone, Default)]
pub struct MapCollisionOutput {
    /// The `.dh-colcook` companion; `None` when no part has a cooked mesh shape.
    pub companion: Option<Companion>,
    /// The cook itself (what the companion holds).
    pub cook: Colcook,
    /// Warnings for the map (a cache entry that could not be written), never errors.
    pub warnings: Vec<String>,
}

/// Counters of one map's cook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CookStats {
    /// Meshes cooked in this build.
    pub cooked: usize,
    /// Meshes read back from the on-disk cache.
    pub cache_hits: usize,
    /// Mesh shapes that shared a mesh already cooked in this map.
    pub shared: usize,
}

/// One map's automatic collision: feed it every model placement, then
/// [`finish`](MapCollision::finish) it (see the module docs).
#[derive(Debug)]
pub struct MapCollision {
    mode: AutoCollision,
    hull_options: HullOptions,
    cache: Option<CookCache>,
    cook: Colcook,
    by_key: HashMap<[u8; 32], u32>,
    warnings: Vec<String>,
    /// What the cook did so far.
    pub stats: CookStats,
}

/// Quoted names, at most [`WARNING_NAMES`], the rest counted.
fn names(list: &[String]) -> String {
    let mut s: Vec<String> = list
        .iter()
        .take(WARNING_NAMES)
        .map(|p| format!("'{p}'"))
        .collect();
    if list.len() > WARNING_NAMES {
        s.push(format!("and {} more", list.len() - WARNING_NAMES));
    }
    s.join(", ")
}

/// A part whose frame (pivot, rotation, scale) has no inverse: a zero scale axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the part's frame has no inverse (a zero scale axis)")]
pub struct SingularFrame;

/// The frame a part's shapes are in: its pivot, rotation and scale.
pub fn part_frame(part: &Part) -> Mat4 {
    math::from_trs(
        part.pivot.map_or(DVec3::ZERO, |v| DVec3::from_array(v.0)),
        part.rotation
            .map_or(DQuat::IDENTITY, |q| DQuat::from_array(q.0)),
        part.scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0)),
    )
}

/// The matrix from a node's mesh space into its part's frame: the part frame's inverse
/// times the node's world matrix. `Ok(None)` when that is the identity (no shear was
/// dropped), so the mesh's own positions are used bit for bit; `Err` when the part frame
/// has no inverse.
pub fn part_space(part: &Part, node_world: &Mat4) -> Result<Option<Mat4>, SingularFrame> {
    let inv = math::inverse(&part_frame(part)).ok_or(SingularFrame)?;
    let m = math::mul(&inv, node_world);
    Ok((!near_identity(&m)).then_some(m))
}

/// Whether every element of `m` is within `1e-7` (relative) of the identity's.
pub(crate) fn near_identity(m: &Mat4) -> bool {
    m.to_cols_array()
        .iter()
        .zip(Mat4::IDENTITY.to_cols_array())
        .all(|(a, b)| (a - b).abs() <= 1e-7 * (1.0 + b.abs()))
}

/// The collapsed nodes of a placement (world matrix with no inverse), and the warning
/// naming the topmost node of each collapsed subtree; `None` when nothing collapsed.
pub fn collapsed_nodes(model: &Model, pose: &Mat4) -> (Vec<bool>, Option<String>) {
    let worlds = model.world_matrices();
    let paths = model.node_paths();
    let mut collapsed = vec![false; model.nodes.len()];
    let mut tops = Vec::new();
    let mut total = 0usize;
    for n in model.traversal() {
        let w = math::mul(pose, &worlds[n]);
        let parent_collapsed = model.nodes[n]
            .parent
            .and_then(|p| collapsed.get(p).copied())
            .unwrap_or(false);
        if parent_collapsed || math::inverse(&w).is_none() {
            collapsed[n] = true;
            total += 1;
            if !parent_collapsed {
                tops.push(paths[n].clone());
            }
        }
    }
    let warning = (!tops.is_empty()).then(|| {
        format!(
            "autoCollision: collapsed subtree: {} subtree(s), {} node(s) in all, have a world transform with no inverse (an exactly zero scale axis) and bake no collision; they keep their part entries: {}",
            tops.len(),
            total,
            names(&tops)
        )
    });
    (collapsed, warning)
}

/// The slot covering the most area of `soup`'s triangles, with every triangle's area
/// measured after `scale`; ties go to the slot used first. `None` when the largest share
/// has no material.
pub fn dominant_material(soup: &Soup, scale: [f64; 3]) -> Option<String> {
    let mut area: Vec<f64> = vec![0.0; soup.slots.len() + 1];
    let none = soup.slots.len();
    for (t, m) in soup.triangles.iter().zip(&soup.materials) {
        let p = |i: u32| {
            let v = soup.positions.get(i as usize).copied().unwrap_or([0.0; 3]);
            [0, 1, 2].map(|a| (f64::from(v[a]) * scale[a]) as f32)
        };
        let a = cook::twice_area(p(t[0]), p(t[1]), p(t[2]));
        let slot = if *m == NO_MATERIAL { none } else { *m as usize };
        if let Some(s) = area.get_mut(slot) {
            *s += a;
        }
    }
    // The first slot in use order wins a tie; "no material" ranks after every slot.
    let mut best: Option<(usize, f64)> = None;
    for (i, a) in area.iter().enumerate() {
        if *a > 0.0 && best.is_none_or(|b| *a > b.1) {
            best = Some((i, *a));
        }
    }
    best.and_then(|(i, _)| soup.slots.get(i).cloned())
}

/// The box around the triangles of `soup` in its own frame: center and half extents, or
/// `None` when it has no triangles.
pub fn soup_box(soup: &Soup) -> Option<([f64; 3], [f64; 3])> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for t in &soup.triangles {
        for i in t {
            if let Some(v) = soup.positions.get(*i as usize) {
                for a in 0..3 {
                    lo[a] = lo[a].min(f64::from(v[a]));
                    hi[a] = hi[a].max(f64::from(v[a]));
                }
            }
        }
    }
    if !lo.iter().chain(&hi).all(|v| v.is_finite()) {
        return None;
    }
    Some((
        [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a])),
        [0, 1, 2].map(|a| 0.5 * (hi[a] - lo[a])),
    ))
}

/// Whether a box of `half` extents, at `scale`, is inside the size guards.
fn within_guards(half: [f64; 3], scale: [f64; 3]) -> bool {
    let size = [0, 1, 2].map(|a| 2.0 * half[a] * scale[a].abs());
    size.iter().all(|s| *s >= MIN_THICKNESS) && size.iter().all(|s| *s <= MAX_SIZE)
}

/// What the node of one part is, for the shape makers.
struct PartGeometry<'a> {
    mesh: &'a crate::gltf::Mesh,
    transform: Option<Mat4>,
    scale: [f64; 3],
    /// The part's mesh index in the cook, once cooked (so it is keyed once).
    cooked: std::cell::Cell<Option<u32>>,
}

impl MapCollision {
    /// A cook for one map in `mode`, hulls tuned by `hull_options` (defaults when absent),
    /// reading and writing cooked meshes through `cache` when one is given.
    pub fn new(
        mode: AutoCollision,
        hull_options: Option<&HullOptions>,
        cache: Option<CookCache>,
    ) -> MapCollision {
        MapCollision {
            mode,
            hull_options: hull_options.cloned().unwrap_or_default(),
            cache,
            cook: Colcook::default(),
            by_key: HashMap::new(),
            warnings: Vec::new(),
            stats: CookStats::default(),
        }
    }

    /// The mesh index of the cook of `geo`: shared with an equal one already in this map,
    /// read from the cache, or cooked (and stored in the cache).
    fn cook_mesh(&mut self, geo: &PartGeometry<'_>) -> u32 {
        if let Some(i) = geo.cooked.get() {
            return i;
        }
        let key = mesh_key(geo.mesh, geo.transform.as_ref());
        if let Some(i) = self.by_key.get(&key) {
            self.stats.shared += 1;
            geo.cooked.set(Some(*i));
            return *i;
        }
        let cached = self.cache.as_ref().and_then(|c| c.read(&key));
        let mesh = match cached {
            Some(m) => {
                self.stats.cache_hits += 1;
                m
            }
            None => {
                let soup = cook::extract(geo.mesh, geo.transform.as_ref());
                let (m, _) = cook::cook(&soup, key);
                self.stats.cooked += 1;
                if let Some(c) = &self.cache {
                    if let Err(e) = c.write(&m) {
                        self.warnings.push(format!(
                            "autoCollision: the collision cache entry {} could not be written ({e}); the cook is shipped all the same",
                            c.path(&key).display()
                        ));
                    }
                }
                m
            }
        };
        let i = self.cook.meshes.len() as u32;
        self.cook.meshes.push(mesh);
        self.by_key.insert(key, i);
        geo.cooked.set(Some(i));
        i
    }

    /// The shapes the mode makes of one part; `cookable` says whether a `mesh` shape may be
    /// cooked (else such a part stands as its box). `materials` is the map's table.
    fn make_shapes(
        &mut self,
        geo: &PartGeometry<'_>,
        cookable: bool,
        materials: &BTreeMap<String, String>,
    ) -> Vec<Shape> {
        let boxed = |soup: &Soup| -> Vec<Shape> {
            let Some((center, half)) = soup_box(soup) else {
                return Vec::new();
            };
            if !within_guards(half, geo.scale) {
                return Vec::new();
            }
            let material = dominant_material(soup, geo.scale).filter(|m| materials.contains_key(m));
            let zero = center.iter().all(|c| *c == 0.0);
            vec![Shape::Box(BoxShape {
                center: (!zero).then_some(Vec3(center)),
                half_extents: Vec3(half),
                material,
                ..BoxShape::default()
            })]
        };
        let sky = geo
            .mesh
            .primitives
            .iter()
            .any(|p| p.material.as_deref().is_some_and(cook::is_sky_material));
        match self.mode {
            AutoCollision::Off => Vec::new(),
            AutoCollision::Mesh if cookable => {
                let i = self.cook_mesh(geo);
                let has = self
                    .cook
                    .meshes
                    .get(i as usize)
                    .is_some_and(|m| !m.triangles.is_empty());
                if has {
                    vec![Shape::Mesh(MeshShape::default())]
                } else {
                    Vec::new()
                }
            }
            AutoCollision::Mesh => boxed(&cook::extract(geo.mesh, geo.transform.as_ref())),
            _ if sky => Vec::new(),
            AutoCollision::Boxes => boxed(&cook::extract(geo.mesh, geo.transform.as_ref())),
            AutoCollision::Hulls => {
                let soup = cook::extract(geo.mesh, geo.transform.as_ref());
                let Some((_, half)) = soup_box(&soup) else {
                    return Vec::new();
                };
                if !within_guards(half, geo.scale) {
                    return Vec::new();
                }
                let material =
                    dominant_material(&soup, geo.scale).filter(|m| materials.contains_key(m));
                let welded = cook::weld(&soup);
                hulls::decompose(&welded.vertices, &welded.triangles, &self.hull_options)
                    .into_iter()
                    .map(|pts| {
                        Shape::Hull(HullShape {
                            points: pts.iter().map(|p| Vec3(p.map(f64::from))).collect(),
                            material: material.clone(),
                            ..HullShape::default()
                        })
                    })
                    .collect()
            }
        }
    }

    /// Bakes one placement: `model` as imported (sidecar applied), `table` its parts table
    /// for `placement` ([`crate::parts::bake_parts_table`]), `states` one per part (or
    /// empty). See the module docs for what each part gets.
    pub fn bake_instance(
        &mut self,
        model: &Model,
        table: &PartsTable,
        placement: &Placement<'_>,
        states: &[PartState],
    ) -> InstanceCollision {
        let mut out = InstanceCollision::default();
        let pose = placement.pose;
        let (collapsed, warning) = collapsed_nodes(model, &pose);
        out.warnings.extend(warning);
        let worlds = model.world_matrices();
        let paths = model.node_paths();
        let default_state = PartState::default();
        let mut failed: Vec<String> = Vec::new();
        for (k, part) in table.parts.iter().enumerate() {
            let node = table.nodes.get(k).copied().unwrap_or(usize::MAX);
            let state = states.get(k).unwrap_or(&default_state);
            let solid = state
                .collider
                .as_ref()
                .is_none_or(|c| matches!(c.state, None | Some(ColliderState::Solid)));
            let cookable = state.enabled && solid;
            let mesh = model
                .nodes
                .get(node)
                .and_then(|n| n.mesh)
                .and_then(|m| model.meshes.get(m));
            let geo = match (mesh, collapsed.get(node).copied().unwrap_or(true)) {
                (Some(mesh), false) => {
                    // The part's final world matrix (its override's delta included), so
                    // what is baked follows the part where an override moved it.
                    let w = table
                        .worlds
                        .get(k)
                        .copied()
                        .unwrap_or_else(|| math::mul(&pose, &worlds[node]));
                    part_space(part, &w).ok().map(|transform| PartGeometry {
                        mesh,
                        transform,
                        scale: part.scale.map(|s| s.0).unwrap_or([1.0; 3]),
                        cooked: Default::default(),
                    })
                }
                _ => None,
            };
            let mut make = |this: &mut MapCollision| -> Vec<Shape> {
                let Some(geo) = &geo else {
                    return Vec::new();
                };
                match catch_unwind(AssertUnwindSafe(|| {
                    this.make_shapes(geo, cookable, placement.materials)
                })) {
                    Ok(s) => s,
                    Err(_) => {
                        failed.push(paths.get(node).cloned().unwrap_or_default());
                        Vec::new()
                    }
                }
            };
            let collider = match &state.collider {
                None => {
                    if !state.enabled {
                        None
                    } else {
                        let shapes = make(self);
                        (!shapes.is_empty()).then(|| Collider {
                            shapes: Some(shapes),
                            generated: Some(true),
                            ..Collider::default()
                        })
                    }
                }
                Some(authored) => {
                    let mut c = authored.clone();
                    let asked = c
                        .shapes
                        .clone()
                        .unwrap_or_else(|| vec![Shape::Auto(Default::default())]);
                    let mut shapes = Vec::with_capacity(asked.len());
                    let mut made: Option<Vec<Shape>> = None;
                    for s in asked {
                        if matches!(s, Shape::Auto(_)) {
                            let m = made.get_or_insert_with(|| make(self)).clone();
                            shapes.extend(m.into_iter().map(mark_auto));
                        } else {
                            shapes.push(s);
                        }
                    }
                    c.shapes = Some(shapes);
                    Some(c)
                }
            };
            // Every mesh shape of a solid, enabled part ships its triangles in the cook.
            if let (Some(c), Some(geo), Some(object_id), true) =
                (&collider, &geo, part.object_id, cookable)
            {
                self.attach_mesh_shapes(c, geo, object_id, &mut failed, &paths, node);
            }
            out.colliders.push(collider);
        }
        if !failed.is_empty() {
            out.warnings.push(format!(
                "autoCollision: node failed to bake: {} node(s) could not be read and bake no collision; they keep their part entries: {}",
                failed.len(),
                names(&failed)
            ));
        }
        out
    }

    fn attach_mesh_shapes(
        &mut self,
        c: &Collider,
        geo: &PartGeometry<'_>,
        object_id: Guid,
        failed: &mut Vec<String>,
        paths: &[String],
        node: usize,
    ) {
        let Some(shapes) = &c.shapes else { return };
        let mut mesh: Option<u32> = None;
        for (i, s) in shapes.iter().enumerate() {
            if !matches!(s, Shape::Mesh(_)) {
                continue;
            }
            let m = match mesh {
                Some(m) => m,
                None => match catch_unwind(AssertUnwindSafe(|| self.cook_mesh(geo))) {
                    Ok(m) => *mesh.insert(m),
                    Err(_) => {
                        failed.push(paths.get(node).cloned().unwrap_or_default());
                        return;
                    }
                },
            };
            let empty = self
                .cook
                .meshes
                .get(m as usize)
                .is_none_or(|x| x.triangles.is_empty());
            if !empty {
                self.cook.entries.push(CookEntry {
                    object_id,
                    shape: i as u32,
                    mesh: m,
                });
            }
        }
    }

    /// Ends the map: the companion (when any part has a cooked mesh shape), the cook, and
    /// the map's warnings. `map_path` is the map's path in the pallet.
    pub fn finish(mut self, map_path: &str) -> MapCollisionOutput {
        // Only meshes some entry names ship (a cook whose part turned out empty does not).
        let mut used = vec![false; self.cook.meshes.len()];
        for e in &self.cook.entries {
            if let Some(u) = used.get_mut(e.mesh as usize) {
                *u = true;
            }
        }
        let mut remap = vec![u32::MAX; used.len()];
        let mut meshes = Vec::new();
        for (i, m) in std::mem::take(&mut self.cook.meshes)
            .into_iter()
            .enumerate()
        {
            if used[i] {
                remap[i] = meshes.len() as u32;
                meshes.push(m);
            }
        }
        for e in &mut self.cook.entries {
            e.mesh = remap[e.mesh as usize];
        }
        self.cook.meshes = meshes;
        self.cook.key = content_key(&self.cook);
        let companion = (!self.cook.entries.is_empty()).then(|| Companion {
            path: companion_path(map_path),
            bytes: encode_companion(&self.cook),
        });
        MapCollisionOutput {
            companion,
            cook: self.cook,
            warnings: self.warnings,
        }
    }
}

/// A shape the compiler made for an authored `auto`, marked `"auto": true`.
fn mark_auto(s: Shape) -> Shape {
    match s {
        Shape::Box(mut b) => {
            b.auto = Some(true);
            Shape::Box(b)
        }
        Shape::Hull(mut h) => {
            h.auto = Some(true);
            Shape::Hull(h)
        }
        Shape::Mesh(mut m) => {
            m.auto = Some(true);
            Shape::Mesh(m)
        }
        other => other,
    }
}

/// SHA-256 over every mesh's key and every entry.
fn content_key(c: &Colcook) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"dh-colcook companion\0");
    h.update(FORMAT_VERSION.to_le_bytes());
    for m in &c.meshes {
        h.update(m.key);
    }
    for e in &c.entries {
        h.update(e.object_id.0);
        h.update(e.shape.to_le_bytes());
        h.update(e.mesh.to_le_bytes());
    }
    h.finalize().into()
}

impl Colcook {
    /// The cooked mesh a part's mesh shape stands as, by the part's `objectId` and the
    /// shape's index.
    pub fn mesh_for(&self, object_id: Guid, shape: u32) -> Option<&CookedMesh> {
        self.entries
            .iter()
            .find(|e| e.object_id == object_id && e.shape == shape)
            .and_then(|e| self.meshes.get(e.mesh as usize))
    }
}

/// The load-time cook, for a map whose pallet ships no companion (or one refused as
/// stale): every solid `mesh` shape of `parts` (a compiled placement's table, its
/// colliders already explicit) cooked from `model`, the placement at `pose`, one mesh per
/// distinct triangle set, through `cache` when given. A part whose path names no node of
/// the model, or whose frame has no inverse, contributes nothing.
pub fn cook_at_load(
    model: &Model,
    pose: &Mat4,
    parts: &[Part],
    cache: Option<&CookCache>,
) -> Colcook {
    let paths = model.node_paths();
    let by_path: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let worlds = model.world_matrices();
    let mut col = MapCollision::new(AutoCollision::Mesh, None, cache.cloned());
    let mut failed = Vec::new();
    for part in parts {
        let Some(node) = part.path.as_deref().and_then(|p| by_path.get(p).copied()) else {
            continue;
        };
        let Some(mesh) = model.nodes[node].mesh.and_then(|m| model.meshes.get(m)) else {
            continue;
        };
        let Some(object_id) = part.object_id else {
            continue;
        };
        // The compiled part's frame carries its override's delta, the model's node does
        // not: the mesh's place in its part's frame is what the node's own world matrix
        // leaves past its decomposed frame (the identity but for a dropped shear), which a
        // moving override does not change.
        let w = math::mul(pose, &worlds[node]);
        let d = math::decompose(&w);
        let frame = math::from_trs(d.translation, d.rotation, d.scale);
        let Some(inv) = math::inverse(&frame) else {
            continue;
        };
        if part_space(part, &part_frame(part)).is_err() {
            continue;
        }
        let m = math::mul(&inv, &w);
        let transform = (!near_identity(&m)).then_some(m);
        let geo = PartGeometry {
            mesh,
            transform,
            scale: part.scale.map(|s| s.0).unwrap_or([1.0; 3]),
            cooked: Default::default(),
        };
        for c in &part.components {
            if let ObjectComponent::Collider(c) = c {
                if matches!(c.inner.state, None | Some(ColliderState::Solid)) {
                    col.attach_mesh_shapes(&c.inner, &geo, object_id, &mut failed, &paths, node);
                }
            }
        }
    }
    col.finish("").cook
}
