//! Model geometry for drawing placed models (spec: runtime assets, "Loading" — "Geometry is
//! cached by barcode for the lifetime of the session, with no eviction ... A map switch or a
//! disconnect drops the whole cache"; dh.map, "Placing models" — "A model placed twice with
//! the same removals is decoded once at run time").
//!
//! [`ModelCache`] reads a model's GLB out of its mounted pallet and imports it once per
//! barcode, however many placements name it; each distinct glTF mesh becomes one shared
//! [`MeshAsset`] the first time a drawn part needs it (packed into the GPU streams with
//! [`pack_streams`], one [`SubMesh`] per primitive, its slot the primitive's material slot
//! among the mesh's distinct slots). A mesh only removed parts wear is never packed, so it
//! never reaches the renderer. A model that cannot be read or imported is one error kept in
//! the cache, so it is reported once and not read again.
//!
//! COLOR_1 (spec 001, "Vertex colors") is read only where it is kept: a map's geometry keeps
//! it only when a material in the map's materials table reads it through
//! `detail.vertexWeight` (the caller decides, before the geometry is read, and asks with
//! `color1: false` otherwise, so the set is never decoded or allocated); an object's parts
//! always keep it. A model imported both ways is two entries. The color run packs COLOR_0 as
//! four unorm16 and COLOR_1 as four unorm8 (spec 003, "GPU vertex streams").
//!
//! An object's model is imported the object loader's way (spec 003, "What the map importer
//! leaves out"): skinned and morphed meshes are kept at their bind pose, each packing its
//! rig (the skinning stream and morph targets) beside its streams, and a skinned node's
//! joint palette at the rest pose is made once ([`ModelGeometry::rest_palette`]). A map's
//! geometry is imported the map's way (skinned nodes left out); a model imported both ways
//! is two entries.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use dh_content::gltf::{
    import_glb_with, import_pieces, ImportOptions, Model, MorphTarget, Piece, Purpose, Skeleton,
};
use dh_content::mesh::{pack_streams, MeshVertex, VertexColor};
use dh_gpu::render::frame::{MeshAsset, SubMesh, Surface};
use dh_gpu::render::skin::{skinning_stream, SkinRigAsset};
use glam::Mat4;

use crate::catalog::{Catalog, Found};

/// Why a model's geometry is not available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The barcode is not `pallet:path`.
    #[error("model '{0}' is not a barcode (pallet:path)")]
    NotABarcode(String),
    /// The pallet entry could not be read.
    #[error("model {barcode}: {message}")]
    Read {
        /// The model.
        barcode: String,
        /// Why.
        message: String,
    },
    /// The GLB does not import.
    #[error("model {barcode} does not import: {message}")]
    Import {
        /// The model.
        barcode: String,
        /// The importer's error.
        message: String,
    },
    /// A mesh that does not pack into the GPU streams.
    #[error("model {barcode}, mesh #{mesh}: {message}")]
    Pack {
        /// The model.
        barcode: String,
        /// The glTF mesh index.
        mesh: usize,
        /// Why.
        message: String,
    },
}

/// One drawable mesh of a model: the shared asset and the name of each of its slots
/// (`None` for a primitive with no material).
#[derive(Debug, Clone)]
pub struct ModelMesh {
    /// The geometry, shared by every instance that draws it.
    pub asset: Arc<MeshAsset>,
    /// The glTF mesh's name.
    pub name: String,
    /// Each sub-mesh slot's material slot name, indexed by [`SubMesh::slot`].
    pub slots: Vec<Option<String>>,
    /// The mesh's rig (its skinning stream and morph targets, spec 003, "GPU vertex
    /// streams"), for a mesh an object import found skinned or morphed; `None` otherwise.
    pub rig: Option<Arc<SkinRigAsset>>,
    /// The mesh's default morph weights, one per target.
    pub weights: Vec<f32>,
}

/// One model, imported once: its nodes by path and its meshes, packed on first use.
#[derive(Debug)]
pub struct ModelGeometry {
    barcode: String,
    /// A hash of the GLB's bytes: the assets' keys fold it in, so a rebuilt pallet's model
    /// never shares a key with the old one.
    content: u64,
    model: Model,
    by_path: HashMap<String, usize>,
    packed: Vec<Option<Result<ModelMesh, ModelError>>>,
    /// Every node's world matrix at the rest pose, for the joint palettes of a model with
    /// skins (empty for one without).
    rest_world: Vec<Mat4>,
    /// Each skinned node's joint palette at the rest pose, by node, made on first use.
    palettes: HashMap<usize, Arc<Vec<Mat4>>>,
}

impl ModelGeometry {
    /// Imports `bytes` as the model `barcode`, reading its COLOR_1 when `color1` (see the
    /// module's docs: a map whose materials read no `detail.vertexWeight` asks without), the
    /// object loader's way when `object` (skinned and morphed meshes kept at their bind pose,
    /// their joints, inverse bind matrices and morph targets read: spec 003, "What the map
    /// importer leaves out"), else the map's (skinned nodes left out).
    pub fn import(
        barcode: &str,
        bytes: &[u8],
        color1: bool,
        object: bool,
    ) -> Result<ModelGeometry, ModelError> {
        let opts = import_options(color1, object);
        let model = import_glb_with(bytes, barcode, &opts).map_err(|e| ModelError::Import {
            barcode: barcode.to_string(),
            message: e.to_string(),
        })?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        Ok(ModelGeometry::from_model(barcode, model, h.finish()))
    }

    /// An imported model as `barcode`, `content` a hash of the bytes it came from.
    fn from_model(barcode: &str, model: Model, content: u64) -> ModelGeometry {
        let by_path = model
            .node_paths()
            .into_iter()
            .enumerate()
            .map(|(n, p)| (p, n))
            .collect();
        let packed = vec![None; model.meshes.len()];
        let rest_world = if model.skins.is_empty() {
            Vec::new()
        } else {
            let sk = Skeleton::new(&model);
            sk.world(&sk.rest())
        };
        ModelGeometry {
            barcode: barcode.to_string(),
            content,
            model,
            by_path,
            packed,
            rest_world,
            palettes: HashMap::new(),
        }
    }

    /// The joint palette at the rest pose (`inverse(world(mesh node)) · world(joint) ·
    /// inverseBind` per joint) of the skinned node at `path`; `None` for a node with no
    /// skin. There is no animation at run time yet: every instance stands at the rest pose.
    pub fn rest_palette(&mut self, path: &str) -> Option<Arc<Vec<Mat4>>> {
        let n = *self.by_path.get(path)?;
        let skin = self.model.nodes.get(n)?.skin?;
        if let Some(p) = self.palettes.get(&n) {
            return Some(Arc::clone(p));
        }
        let sk = Skeleton::new(&self.model);
        let palette = Arc::new(sk.palette(&self.model, skin, n, &self.rest_world));
        self.palettes.insert(n, Arc::clone(&palette));
        Some(palette)
    }

    /// The model's barcode.
    pub fn barcode(&self) -> &str {
        &self.barcode
    }

    /// The imported model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The glTF mesh the node at `path` draws, if it draws one.
    pub fn mesh_of(&self, path: &str) -> Option<usize> {
        let n = *self.by_path.get(path)?;
        self.model.nodes.get(n)?.mesh
    }

    /// The drawable form of glTF mesh `mesh`, packed the first time it is asked for; `None`
    /// for a mesh index the model does not have or a mesh with no triangles.
    pub fn mesh(&mut self, mesh: usize) -> Option<Result<ModelMesh, ModelError>> {
        let slot = self.packed.get_mut(mesh)?;
        if slot.is_none() {
            let source = self.model.meshes.get(mesh)?;
            *slot = Some(pack_mesh(&self.barcode, self.content, mesh, source));
        }
        match slot.as_ref()? {
            Ok(m) if m.asset.indices.is_empty() => None,
            other => Some(other.clone()),
        }
    }

    /// How many of its meshes have been packed so far.
    pub fn packed_meshes(&self) -> usize {
        self.packed.iter().filter(|p| p.is_some()).count()
    }
}

/// Packs one glTF mesh: its primitives' vertices one after another, one sub-mesh each, a
/// slot per distinct material name in order of first use (a primitive with no material gets
/// a slot of its own, `None`).
fn pack_mesh(
    barcode: &str,
    content: u64,
    index: usize,
    mesh: &dh_content::gltf::Mesh,
) -> Result<ModelMesh, ModelError> {
    let err = |message: String| ModelError::Pack {
        barcode: barcode.to_string(),
        mesh: index,
        message,
    };
    let vertex_total: usize = mesh.primitives.iter().map(|p| p.vertices.len()).sum();
    let index_total: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
    let mut vertices: Vec<MeshVertex> = Vec::with_capacity(vertex_total);
    let mut indices: Vec<u32> = Vec::with_capacity(index_total);
    // The color run (spec 003, "GPU vertex streams": COLOR_0 as four unorm16, then COLOR_1 as
    // four unorm8, allocated only on a mesh that authored a vertex color off its default). A
    // COLOR_1 the caller did not keep was never read, so it is absent here (spec 001, "Vertex
    // colors").
    let any_color = mesh
        .primitives
        .iter()
        .any(|p| p.color0.is_some() || p.color1.is_some());
    let mut colors: Vec<VertexColor> = Vec::new();
    let mut slots: Vec<Option<String>> = Vec::new();
    let mut submeshes = Vec::with_capacity(mesh.primitives.len());
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &mesh.primitives {
        let base = u32::try_from(vertices.len())
            .map_err(|_| err(format!("{vertex_total} vertices is more than a mesh holds")))?;
        let first_index = u32::try_from(indices.len())
            .map_err(|_| err(format!("{index_total} indices is more than a mesh holds")))?;
        let slot = match &p.material {
            Some(name) => match slots.iter().position(|s| s.as_deref() == Some(name)) {
                Some(k) => k,
                None => {
                    slots.push(Some(name.clone()));
                    slots.len() - 1
                }
            },
            None => {
                slots.push(None);
                slots.len() - 1
            }
        };
        for v in &p.vertices {
            for k in 0..3 {
                lo[k] = lo[k].min(v.position[k]);
                hi[k] = hi[k].max(v.position[k]);
            }
        }
        vertices.extend_from_slice(&p.vertices);
        if any_color {
            match p.vertex_colors() {
                Some(c) => colors.extend(c),
                None => colors.extend(std::iter::repeat_n(
                    VertexColor {
                        color0: [1.0; 4],
                        color1: [0.0; 4],
                    },
                    p.vertices.len(),
                )),
            }
        }
        // The importer checked every index against its primitive's vertices.
        indices.extend(p.indices.iter().map(|i| i.saturating_add(base)));
        let count = u32::try_from(p.indices.len())
            .map_err(|_| err(format!("{index_total} indices is more than a mesh holds")))?;
        if count > 0 {
            submeshes.push(SubMesh {
                first_index,
                index_count: count,
                slot: slot as u32,
                surface: Surface::Opaque,
            });
        }
    }
    let packed = pack_streams(&vertices, None, any_color.then_some(colors.as_slice()))
        .map_err(|e| err(e.to_string()))?;
    if vertices.is_empty() {
        lo = [0.0; 3];
        hi = [0.0; 3];
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    barcode.hash(&mut h);
    content.hash(&mut h);
    index.hash(&mut h);
    let key = h.finish();
    let rig = mesh_rig(key, mesh, vertices.len()).map_err(err)?;
    Ok(ModelMesh {
        rig,
        weights: mesh.weights.clone(),
        asset: Arc::new(MeshAsset {
            key,
            packed,
            indices,
            submeshes,
            bounds: (glam::Vec3::from_array(lo), glam::Vec3::from_array(hi)),
        }),
        name: mesh.name.clone(),
        slots,
    })
}

/// The rig of `mesh` (its primitives' vertices one after another, `vertex_count` in all):
/// the skinning stream when every primitive with vertices carries JOINTS_0 / WEIGHTS_0, and
/// the morph targets when every such primitive has the same number of them (a primitive's
/// absent normal deltas are zero). `None` for a mesh neither skinned nor morphed (as a map
/// import reads every mesh).
fn mesh_rig(
    key: u64,
    mesh: &dh_content::gltf::Mesh,
    vertex_count: usize,
) -> Result<Option<Arc<SkinRigAsset>>, String> {
    let prims: Vec<_> = mesh
        .primitives
        .iter()
        .filter(|p| !p.vertices.is_empty())
        .collect();
    let skins: Option<Vec<_>> = prims.iter().map(|p| p.skin.as_ref()).collect();
    let stream = match skins {
        Some(s) if !s.is_empty() => Some(skinning_stream(&s).ok_or_else(|| {
            "its joints and weights do not pack into the skinning stream".to_string()
        })?),
        _ => None,
    };
    let targets = prims.first().map_or(0, |p| p.targets.len());
    if prims.iter().any(|p| p.targets.len() != targets) {
        return Err("its primitives have different numbers of morph targets".into());
    }
    if stream.is_none() && targets == 0 {
        return Ok(None);
    }
    let any_normal = prims
        .iter()
        .any(|p| p.targets.iter().any(|t| t.normal.is_some()));
    let morphs: Vec<MorphTarget> = (0..targets)
        .map(|k| {
            let mut position = Vec::with_capacity(vertex_count);
            let mut normal = any_normal.then(|| Vec::with_capacity(vertex_count));
            for p in &prims {
                let t = &p.targets[k];
                position.extend_from_slice(&t.position);
                if let Some(n) = normal.as_mut() {
                    match &t.normal {
                        Some(d) => n.extend_from_slice(d),
                        None => n.extend(std::iter::repeat_n([0.0; 3], p.vertices.len())),
                    }
                }
            }
            MorphTarget { position, normal }
        })
        .collect();
    let rig = SkinRigAsset::new(key ^ 0x5ca1_ab1e, vertex_count, stream.as_deref(), &morphs)?;
    Ok(Some(Arc::new(rig)))
}

/// The importer's options for a map's geometry or an object's model.
fn import_options(color1: bool, object: bool) -> ImportOptions {
    ImportOptions {
        color1,
        purpose: if object {
            Purpose::Object
        } else {
            Purpose::Map
        },
        ..ImportOptions::default()
    }
}

/// The session's model geometry, by barcode: each model read and imported once, however
/// many placements (and however many frames) draw it. Dropped whole on a map switch
/// ([`ModelCache::clear`]).
#[derive(Debug, Default)]
pub struct ModelCache {
    /// By barcode, whether COLOR_1 was kept and whether it was imported as an object's.
    models: HashMap<(String, bool, bool), Result<ModelGeometry, ModelError>>,
    decodes: usize,
}

impl ModelCache {
    /// An empty cache.
    pub fn new() -> ModelCache {
        ModelCache::default()
    }

    /// The model `barcode` (`pallet:path`), read from `catalog` and imported the first time
    /// it is asked for, its COLOR_1 read when `color1` (a map's geometry whose materials read
    /// no `detail.vertexWeight` asks without; an object's parts always with), the object
    /// loader's way when `object` (see [`ModelGeometry::import`]); an error is kept, so it is
    /// not read again.
    pub fn get(
        &mut self,
        catalog: &Catalog,
        barcode: &str,
        color1: bool,
        object: bool,
    ) -> Result<&mut ModelGeometry, ModelError> {
        let key = (barcode.to_string(), color1, object);
        if !self.models.contains_key(&key) {
            let loaded = load(catalog, barcode, color1, object);
            if !matches!(
                loaded,
                Err(ModelError::NotABarcode(_)) | Err(ModelError::Read { .. })
            ) {
                self.decodes += 1;
            }
            self.models.insert(key.clone(), loaded);
        }
        match self.models.get_mut(&key) {
            Some(Ok(g)) => Ok(g),
            Some(Err(e)) => Err(e.clone()),
            None => Err(ModelError::Read {
                barcode: barcode.to_string(),
                message: "not cached".into(),
            }),
        }
    }

    /// How many GLBs have been imported (decoded) since the cache was made or cleared.
    pub fn decodes(&self) -> usize {
        self.decodes
    }

    /// How many models the cache holds (imported or refused).
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Drops every model: a map switch or a disconnect (no entity survives either, so every
    /// entry is dead weight).
    pub fn clear(&mut self) {
        self.models.clear();
        self.decodes = 0;
    }
}

/// Reads and imports `barcode`: a `.glb`, or a folder of `.glb` pieces (a path with no
/// extension: every `.glb` directly in it, joined in path order as one model, spec: dh.map,
/// "A folder of pieces").
fn load(
    catalog: &Catalog,
    barcode: &str,
    color1: bool,
    object: bool,
) -> Result<ModelGeometry, ModelError> {
    let (pallet, path) = barcode
        .split_once(':')
        .ok_or_else(|| ModelError::NotABarcode(barcode.to_string()))?;
    let read = |path: &str| {
        catalog
            .read(&Found {
                pallet: pallet.to_string(),
                path: path.to_string(),
            })
            .map_err(|e| ModelError::Read {
                barcode: barcode.to_string(),
                message: e.to_string(),
            })
    };
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.contains('.') {
        let bytes = read(path)?;
        return ModelGeometry::import(barcode, &bytes, color1, object);
    }
    let prefix = format!("{}/", path.trim_end_matches('/'));
    let mut names: Vec<String> = catalog
        .all(".glb")
        .into_iter()
        .filter(|f| f.pallet == pallet)
        .filter(|f| {
            f.path
                .strip_prefix(&prefix)
                .is_some_and(|rest| !rest.contains('/'))
        })
        .map(|f| f.path)
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(ModelError::Read {
            barcode: barcode.to_string(),
            message: "the folder holds no .glb piece".into(),
        });
    }
    let mut bytes = Vec::with_capacity(names.len());
    for n in &names {
        bytes.push(read(n)?.into_owned());
    }
    let pieces: Vec<Piece<'_>> = names
        .iter()
        .zip(&bytes)
        .map(|(name, b)| Piece { name, bytes: b })
        .collect();
    let opts = import_options(color1, object);
    let model = import_pieces(path, &pieces, &opts).map_err(|e| ModelError::Import {
        barcode: barcode.to_string(),
        message: e.to_string(),
    })?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for b in &bytes {
        b.hash(&mut h);
    }
    Ok(ModelGeometry::from_model(barcode, model, h.finish()))
}

/// Model scene graphs for installing objects' parts (spec: runtime assets, "The object
/// loader"): each model's GLB read once per barcode, its JSON alone
/// ([`dh_content::gltf::read_scene`]: nodes, transforms and material slots, no geometry
/// decoded — drawing decodes it once, in [`ModelCache`]), read the object loader's way, so
/// skinned nodes keep their meshes and install as parts. A folder of pieces is joined
/// whole. A model that cannot be read is the reader's reason (the install warns once per
/// placement, with it) and is not read again.
pub struct SceneTrees<'a> {
    catalog: &'a Catalog,
    trees: std::cell::RefCell<HashMap<String, Result<Arc<Model>, String>>>,
}

impl<'a> SceneTrees<'a> {
    /// An empty set over `catalog`'s pallets.
    pub fn new(catalog: &'a Catalog) -> SceneTrees<'a> {
        SceneTrees {
            catalog,
            trees: std::cell::RefCell::new(HashMap::new()),
        }
    }

    /// The scene graph of model `barcode` (`pallet:path`), read the first time it is
    /// asked for; or why it cannot be read (the reader's error).
    pub fn tree(&self, barcode: &str) -> Result<Arc<Model>, String> {
        if let Some(t) = self.trees.borrow().get(barcode) {
            return t.clone();
        }
        let tree = read_tree(self.catalog, barcode).map(Arc::new);
        self.trees
            .borrow_mut()
            .insert(barcode.to_string(), tree.clone());
        tree
    }

    /// How many models have been asked for (read or refused).
    pub fn len(&self) -> usize {
        self.trees.borrow().len()
    }

    /// Whether no model has been asked for.
    pub fn is_empty(&self) -> bool {
        self.trees.borrow().is_empty()
    }
}

fn read_tree(catalog: &Catalog, barcode: &str) -> Result<Model, String> {
    let (pallet, path) = barcode
        .split_once(':')
        .ok_or_else(|| ModelError::NotABarcode(barcode.to_string()).to_string())?;
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.contains('.') {
        let bytes = catalog
            .read(&Found {
                pallet: pallet.to_string(),
                path: path.to_string(),
            })
            .map_err(|e| e.to_string())?;
        // The warning names the model already: the reason is the reader's alone.
        return dh_content::gltf::read_scene(&bytes, barcode, &import_options(false, true))
            .map_err(|e| e.kind.to_string());
    }
    // The scene graph alone: no COLOR_1 is needed to install parts.
    load(catalog, barcode, false, true)
        .map(|g| g.model)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dh_content::gltf::{Mesh, Primitive};
    use dh_content::mesh::{MeshVertex, COLOR_STRIDE};

    /// One triangle, `color0` / `color1` its three vertices' sets.
    fn triangle(color0: Option<[f32; 4]>, color1: Option<[f32; 4]>) -> Mesh {
        let v = |x: f32| MeshVertex {
            position: [x, 0.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            tangent: [1.0, 0.0, 0.0, 1.0],
            uv0: [0.0; 2],
            uv1: [0.0; 2],
            uv2: [0.0; 2],
            uv3: [0.0; 2],
        };
        Mesh {
            name: "tri".into(),
            primitives: vec![Primitive {
                vertices: vec![v(0.0), v(1.0), v(2.0)],
                indices: vec![0, 1, 2],
                color0: color0.map(|c| vec![c; 3]),
                color1: color1.map(|c| vec![c; 3]),
                ..Primitive::default()
            }],
            ..Mesh::default()
        }
    }

    /// Spec 003, "GPU vertex streams": the color run is COLOR_0 as four unorm16, then
    /// COLOR_1 as four unorm8 (12 B a vertex), allocated when either set is present (an
    /// absent set at its default: COLOR_0 white, COLOR_1 zero); a mesh with neither ships
    /// none.
    #[test]
    fn color1_packs_as_four_unorm8_after_color0() {
        let run = |m: &ModelMesh| -> Vec<(Vec<u16>, Vec<u8>)> {
            let p = &m.asset.packed;
            let o = p
                .color_offset
                .unwrap_or_else(|| panic!("a vertex color ships a color run"));
            (0..3)
                .map(|i| {
                    let e = &p.bytes[o + i * COLOR_STRIDE as usize..][..COLOR_STRIDE as usize];
                    let c0 = (0..4)
                        .map(|k| u16::from_le_bytes([e[2 * k], e[2 * k + 1]]))
                        .collect();
                    (c0, e[8..12].to_vec())
                })
                .collect()
        };
        // COLOR_1 alone: COLOR_0 at its white, COLOR_1 red and opaque.
        let only1 = pack_mesh("p:m.glb", 0, 0, &triangle(None, Some([1.0, 0.0, 0.0, 1.0])))
            .unwrap_or_else(|e| panic!("{e}"));
        for (i, (c0, c1)) in run(&only1).into_iter().enumerate() {
            assert_eq!(c0, vec![65535; 4], "vertex {i} COLOR_0");
            assert_eq!(c1, vec![255, 0, 0, 255], "vertex {i} COLOR_1");
        }

        let both = pack_mesh(
            "p:m.glb",
            0,
            0,
            &triangle(Some([0.5, 0.25, 1.0, 1.0]), Some([0.2, 0.6, 1.0, 0.0])),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for (i, (c0, c1)) in run(&both).into_iter().enumerate() {
            // 0.5 * 65535 = 32767.5 rounds to 32768; 0.25 * 65535 = 16383.75 to 16384.
            assert_eq!(c0, vec![32768, 16384, 65535, 65535], "vertex {i} COLOR_0");
            // 0.2 * 255 = 51; 0.6 * 255 = 153.
            assert_eq!(c1, vec![51, 153, 255, 0], "vertex {i} COLOR_1");
        }

        let plain =
            pack_mesh("p:m.glb", 0, 0, &triangle(None, None)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plain.asset.packed.color_offset, None);
    }
}
