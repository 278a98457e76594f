//! Cooked mesh collision for model parts (runtime assets, "Cooked map collision"): a
//! `mesh` shape on a part's `dh.collider` (what autoCollision's default mode makes)
//! stands as the triangles the build cooked into the map's `.dh-colcook` companion,
//! found by the part's `objectId` and the shape's index.
//!
//! A map whose pallet ships no companion (or one that does not read) is cooked at load,
//! once per model placement, through the load cache
//! ([`dh_content::colcook::cache::cook_placement_at_load`]): the entry is keyed by the
//! model's path and its content signature in the pallet's file table
//! ([`dh_content::colcook::cache::load_key`]), so a warm load reads the entry alone, never
//! the model. The cache lives under the platform's cache root
//! ([`CookCache::default_root`]) and is gated by `client.cache.collision`; off, the cook
//! runs in memory every load. Each cook at load logs one line: what, and how long.
//!
//! A trigger part's `mesh` shapes are left out of every cook (spec `dh.map` 000:209: "A
//! trigger node is left out of the cook entirely"), but a trigger whose material is water is
//! a water body the mover swims in, and a water body needs its triangles: so each placement
//! with a trigger `mesh` shape is imported once at load and those shapes cooked in memory
//! (never into the load cache, which holds the solid cook) as the solid ones are
//! ([`MeshColliders::water_mesh`]). The host makes water of those whose material is water.
//!
//! A mesh that comes from the load cache (or is cooked for it) carries a one-leaf tree:
//! the spec's cache holds the geometry half of the cook only, and the physics backend
//! builds its own tree from the triangles.

use std::time::Instant;

use dh_content::colcook::cache::{cook_placement_at_load, load_key, LoadStats};
use dh_content::colcook::{self, Colcook, CookCache, CookedMesh};
use dh_content::refs;
use dh_content::schema::common::Guid;
use dh_content::schema::map::Map;
use dh_content::schema::records::{Record, SourceKind};

use crate::catalog::{Catalog, Found};
use crate::prefs::Prefs;

/// Every cooked mesh a map's parts stand as.
#[derive(Debug, Default)]
pub struct MeshColliders {
    /// The map's companion, when its pallet ships one that reads.
    companion: Option<Colcook>,
    /// Load-time cooks, one per model placement the companion does not cover.
    loaded: Vec<Colcook>,
    /// Load-time cooks of trigger parts' mesh shapes (what a water body stands as), one per
    /// placement that has any.
    triggers: Vec<Colcook>,
    /// What each load-time cook did, aligned with `loaded`.
    stats: Vec<LoadStats>,
    /// What the log should say (a companion that does not read, a model that does not
    /// import, a cook at load and how long it took), one line each.
    notes: Vec<String>,
}

impl MeshColliders {
    /// Reads `map`'s companion from the pallet `found` names, and cooks at load every
    /// placement with a part whose `mesh` shape the companion does not hold, through the
    /// load cache under the platform's cache root when `client.cache.collision` is on.
    pub fn open(catalog: &Catalog, found: &Found, map: &Map, prefs: &Prefs) -> MeshColliders {
        let enabled = prefs.bool("client.cache.collision").unwrap_or(true);
        let cache = CookCache::default_root().map(|root| CookCache { root, enabled });
        MeshColliders::open_with(catalog, found, map, cache.as_ref())
    }

    /// [`MeshColliders::open`] with the load cache named (`None`: no cache at all).
    pub fn open_with(
        catalog: &Catalog,
        found: &Found,
        map: &Map,
        cache: Option<&CookCache>,
    ) -> MeshColliders {
        let mut out = MeshColliders::default();
        let companion = Found {
            pallet: found.pallet.clone(),
            path: colcook::companion_path(&found.path),
        };
        if let Ok(bytes) = catalog.read(&companion) {
            match colcook::decode_companion(&bytes, &companion.barcode()) {
                Ok(c) => out.companion = Some(c),
                Err(e) => out.notes.push(format!(
                    "warning: {e}; the map's mesh collision is cooked at load instead"
                )),
            }
        }
        let worlds = dh_content::compile::record_worlds(&map.objects);
        let dependencies = catalog.dependencies(&found.pallet);
        for (i, record) in map.objects.iter().enumerate() {
            let Record::Instance(inst) = record else {
                continue;
            };
            if inst.source_kind() != Some(SourceKind::Model) {
                continue;
            }
            out.cook_triggers(catalog, found, &dependencies, inst, &worlds, i);
            let missing = inst.parts.iter().any(|p| {
                mesh_shapes(p).any(|k| {
                    p.object_id
                        .is_some_and(|id| out.companion_mesh(id, k).is_none())
                })
            });
            if !missing {
                continue;
            }
            let Ok(b) = refs::resolve(&inst.source, &found.pallet, &found.path, &dependencies)
            else {
                continue;
            };
            let model = Found {
                pallet: b.pallet.clone(),
                path: b.path.clone(),
            };
            // The model's content signature, from its pallet's file table: no read.
            let Some((crc32, raw_len)) = catalog
                .pallet(&model.pallet)
                .and_then(|p| p.entry(&model.path))
                .map(|e| e.signature())
            else {
                out.notes.push(format!(
                    "warning: {}: its mesh collision cannot be cooked at load: no such entry in its pallet",
                    model.barcode()
                ));
                continue;
            };
            let key = load_key(&model.path, crc32, raw_len);
            let pose = worlds.get(i).copied().unwrap_or(glam::DMat4::IDENTITY);
            let started = Instant::now();
            let loaded = cook_placement_at_load(cache, &key, &pose, &inst.parts, || {
                catalog
                    .read(&model)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| {
                        dh_content::gltf::import_glb(&bytes, &model.barcode())
                            .map_err(|e| e.to_string())
                    })
            });
            match loaded {
                Ok(l) => {
                    if !l.stats.hit {
                        let ms = started.elapsed().as_secs_f64() * 1000.0;
                        let stored = match cache {
                            Some(c) if !c.enabled => {
                                "not cached (client.cache.collision is off)".to_string()
                            }
                            Some(c) if l.warnings.is_empty() => {
                                format!("cached as {}", c.path(&key).display())
                            }
                            Some(_) => "not cached (the entry could not be written)".to_string(),
                            None => "not cached (no cache folder: no home directory)".to_string(),
                        };
                        out.notes.push(format!(
                            "note: {}: mesh collision cooked at load in {ms:.1} ms: {} mesh(es) cooked, {} reused, {} triangle(s); {stored}",
                            model.barcode(),
                            l.stats.cooked,
                            l.stats.reused,
                            l.stats.triangles
                        ));
                    }
                    out.notes
                        .extend(l.warnings.into_iter().map(|w| format!("warning: {w}")));
                    out.loaded.push(l.cook);
                    out.stats.push(l.stats);
                }
                Err(e) => out.notes.push(format!(
                    "warning: {}: its mesh collision cannot be cooked at load: {e}",
                    model.barcode()
                )),
            }
        }
        out
    }

    /// Cooks placement `inst`'s trigger parts' `mesh` shapes in memory (see the module's
    /// docs), the model imported once; nothing when it has none.
    fn cook_triggers(
        &mut self,
        catalog: &Catalog,
        found: &Found,
        dependencies: &[String],
        inst: &dh_content::schema::records::InstanceRecord,
        worlds: &[glam::DMat4],
        i: usize,
    ) {
        let parts: Vec<dh_content::schema::records::Part> =
            inst.parts.iter().filter_map(trigger_as_solid).collect();
        if parts.is_empty() {
            return;
        }
        let Ok(b) = refs::resolve(&inst.source, &found.pallet, &found.path, dependencies) else {
            return;
        };
        let model = Found {
            pallet: b.pallet.clone(),
            path: b.path.clone(),
        };
        let pose = worlds.get(i).copied().unwrap_or(glam::DMat4::IDENTITY);
        let key = load_key(&model.path, 0, 0);
        let cooked = cook_placement_at_load(None, &key, &pose, &parts, || {
            catalog
                .read(&model)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    dh_content::gltf::import_glb(&bytes, &model.barcode())
                        .map_err(|e| e.to_string())
                })
        });
        match cooked {
            Ok(l) => self.triggers.push(l.cook),
            Err(e) => self.notes.push(format!(
                "warning: {}: its trigger parts' mesh shapes cannot be cooked at load, so they are no water: {e}",
                model.barcode()
            )),
        }
    }

    /// The triangles trigger part `object_id`'s `mesh` shape `shape` stands as (cooked at
    /// load; `None` when the part is no trigger or its mesh has no triangles).
    pub fn water_mesh(&self, object_id: Guid, shape: u32) -> Option<&CookedMesh> {
        self.triggers
            .iter()
            .find_map(|c| c.mesh_for(object_id, shape))
    }

    fn companion_mesh(&self, object_id: Guid, shape: u32) -> Option<&CookedMesh> {
        self.companion.as_ref()?.mesh_for(object_id, shape)
    }

    /// The cooked mesh part `object_id`'s shape `shape` stands as: the companion's, else
    /// the load-time cook's.
    pub fn mesh(&self, object_id: Guid, shape: u32) -> Option<&CookedMesh> {
        self.companion_mesh(object_id, shape).or_else(|| {
            self.loaded
                .iter()
                .find_map(|c| c.mesh_for(object_id, shape))
        })
    }

    /// Whether the map's pallet shipped a companion that reads.
    pub fn has_companion(&self) -> bool {
        self.companion.is_some()
    }

    /// Placements cooked at load (whether from the load cache or not).
    pub fn loaded(&self) -> usize {
        self.loaded.len()
    }

    /// Placements answered wholly from the load cache (the model not read).
    pub fn cache_hits(&self) -> usize {
        self.stats.iter().filter(|s| s.hit).count()
    }

    /// Meshes cooked at load (not read from the load cache).
    pub fn cooked(&self) -> usize {
        self.stats.iter().map(|s| s.cooked).sum()
    }

    /// The log lines, taken.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

/// `part` with only its `"trigger"` colliders that hold a `mesh` shape, stated solid, so
/// the load-time cook (which cooks solid mesh shapes alone) cooks them; `None` when it has
/// none. The shapes keep their indices, which is how the host finds them again.
fn trigger_as_solid(
    part: &dh_content::schema::records::Part,
) -> Option<dh_content::schema::records::Part> {
    use dh_content::schema::components::geometry::{ColliderState, Shape};
    use dh_content::schema::object_components::ObjectComponent;
    let mut components = Vec::new();
    for c in &part.components {
        if let ObjectComponent::Collider(c) = c {
            let meshes = c
                .inner
                .shapes
                .iter()
                .flatten()
                .any(|s| matches!(s, Shape::Mesh(_)));
            if c.inner.state == Some(ColliderState::Trigger) && meshes {
                let mut solid = c.clone();
                solid.inner.state = Some(ColliderState::Solid);
                components.push(ObjectComponent::Collider(solid));
            }
        }
    }
    if components.is_empty() {
        return None;
    }
    let mut p = part.clone();
    p.components = components;
    Some(p)
}

/// The indices of `part`'s solid `mesh` shapes.
fn mesh_shapes(part: &dh_content::schema::records::Part) -> impl Iterator<Item = u32> + '_ {
    use dh_content::schema::components::geometry::{ColliderState, Shape};
    use dh_content::schema::object_components::ObjectComponent;
    part.components
        .iter()
        .filter_map(|c| match c {
            ObjectComponent::Collider(c)
                if matches!(c.inner.state, None | Some(ColliderState::Solid)) =>
            {
                Some(c.inner.shapes.as_deref().unwrap_or(&[]))
            }
            _ => None,
        })
        .flat_map(|shapes| {
            shapes
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, Shape::Mesh(_)))
                .map(|(k, _)| k as u32)
        })
}

/// A cooked mesh as `(vertices, indices)` scaled by `scale` (the part's pose carries its
/// rotation and position; the cook is in the part's own frame).
pub fn scaled(mesh: &CookedMesh, scale: glam::Vec3) -> (Vec<glam::Vec3>, Vec<[u32; 3]>) {
    let v = mesh
        .vertices
        .iter()
        .map(|&p| glam::Vec3::from_array(p) * scale)
        .collect();
    (v, mesh.triangles.clone())
}
