//! Cooked mesh collision for model parts (runtime assets, "Cooked map collision"): a
//! `mesh` shape on a part's `dh.collider` (what autoCollision's default mode makes)
//! stands as the triangles the build cooked into the map's `.dh-colcook` companion,
//! found by the part's `objectId` and the shape's index. A map whose pallet ships no
//! companion (or one that does not read) is cooked at load from the placed models, once
//! per placement, through the on-disk cache.

use std::collections::HashMap;

use dh_content::colcook::{self, Colcook, CookCache, CookedMesh};
use dh_content::refs;
use dh_content::schema::common::Guid;
use dh_content::schema::map::Map;
use dh_content::schema::records::{Record, SourceKind};

use crate::catalog::{Catalog, Found};

/// Every cooked mesh a map's parts stand as.
#[derive(Debug, Default)]
pub struct MeshColliders {
    /// The map's companion, when its pallet ships one that reads.
    companion: Option<Colcook>,
    /// Load-time cooks, one per model placement the companion does not cover.
    loaded: Vec<Colcook>,
    /// What the log should say (a companion that does not read, a model that does not
    /// import), one line each.
    notes: Vec<String>,
}

impl MeshColliders {
    /// Reads `map`'s companion from the pallet `found` names, and cooks at load every
    /// placement with a part whose `mesh` shape the companion does not hold.
    pub fn open(catalog: &Catalog, found: &Found, map: &Map) -> MeshColliders {
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
        let cache = CookCache::default_root().map(CookCache::new);
        for (i, record) in map.objects.iter().enumerate() {
            let Record::Instance(inst) = record else {
                continue;
            };
            if inst.source_kind() != Some(SourceKind::Model) {
                continue;
            }
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
            let imported = catalog
                .read(&model)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    dh_content::gltf::import_glb(&bytes, &model.barcode())
                        .map_err(|e| e.to_string())
                });
            match imported {
                Ok(m) => {
                    let pose = worlds
                        .get(i)
                        .copied()
                        .unwrap_or(dh_content::gltf::math::IDENTITY);
                    out.loaded.push(colcook::cook_at_load(
                        &m,
                        &pose,
                        &inst.parts,
                        cache.as_ref(),
                    ));
                }
                Err(e) => out.notes.push(format!(
                    "warning: {}: its mesh collision cannot be cooked at load: {e}",
                    model.barcode()
                )),
            }
        }
        out
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

    /// Placements cooked at load.
    pub fn loaded(&self) -> usize {
        self.loaded.len()
    }

    /// The log lines, taken.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
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
pub fn scaled(mesh: &CookedMesh, scale: [f32; 3]) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let v = mesh
        .vertices
        .iter()
        .map(|p| [p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]])
        .collect();
    (v, mesh.triangles.clone())
}

/// `(objectId, shape)` pairs cooked, for tests and logs: each map entry's mesh, by id.
pub fn entries(c: &Colcook) -> HashMap<(Guid, u32), usize> {
    c.entries
        .iter()
        .map(|e| ((e.object_id, e.shape), e.mesh as usize))
        .collect()
}
