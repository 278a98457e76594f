//! The GLB writer: an imported (and sidecar-edited) [`Model`] serialized whole as a binary
//! glTF 2.0 file. The pallet ships it for a model no single source file holds (a folder of
//! pieces, which carry no skins, animations or images); a model read from one GLB ships
//! that GLB edited in place instead ([`super::rewrite_glb`]), so nothing of it is lost.
//!
//! What is written, per node: its name, its children, its local transform (nothing for the
//! identity, `translation` / `rotation` / `scale` when the matrix takes apart into them
//! exactly, else `matrix`) and its mesh. Per mesh: its name and one TRIANGLES primitive per
//! [`Primitive`], each with POSITION (with `min` / `max`), NORMAL, TANGENT, the
//! TEXCOORD sets the source authored, COLOR_0 / COLOR_1 where present (linear RGBA
//! floats), `uint32` indices, its material by slot name and its
//! `extras.dh.reflectionProbe`. Materials are written by name only, in order of first use,
//! a slot `#N` (an unnamed source material) under that very name, so every slot reads back
//! as the same name: a material binds by slot name and nothing else of the source's material
//! is read by the engine.
//!
//! A node that carries a camera, a punctual light, or a skin the map build left out keeps
//! that role through `extras.dh` (`camera`, `light`, `skinned`: `true`), which the importer
//! reads back; the camera's projection, the light's parameters, skins, morph targets,
//! animations and images are not carried (the importer keeps none of them in a [`Model`]).
//!
//! The output is deterministic: the same model gives the same bytes. Every offset and
//! length is checked against the 32-bit fields glTF gives them.

use glam::{DMat4, DQuat, DVec3};

use super::{Model, Primitive};
use crate::jsonc::{write_number, write_string};
use crate::math;

/// Why a model could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The binary chunk (or the whole file) would pass the 4 GiB a GLB's 32-bit lengths
    /// can state.
    #[error("model '{model}': {what} would take {bytes} bytes; a GLB holds at most 4294967295")]
    TooLarge {
        /// The model's name.
        model: String,
        /// What overflowed (`the BIN chunk`, `the file`).
        what: String,
        /// How many bytes it would take.
        bytes: u64,
    },
    /// A node names a mesh the model does not have, or a child / root index past its
    /// nodes (a model the importer did not make).
    #[error("model '{model}': {place} names index {index}, but there are only {count}")]
    BadIndex {
        /// The model's name.
        model: String,
        /// Where (`nodes[3].mesh`).
        place: String,
        /// The index named.
        index: usize,
        /// How many there are.
        count: usize,
    },
}

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;

/// The binary chunk under construction and the JSON of its views and accessors.
pub(super) struct Bin {
    pub(super) bytes: Vec<u8>,
    pub(super) views: Vec<String>,
    pub(super) accessors: Vec<String>,
}

impl Bin {
    /// An empty chunk.
    pub(super) fn new() -> Bin {
        Bin {
            bytes: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    pub(super) fn align(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
    }

    fn view(&mut self, data: &[u8], target: u32) -> usize {
        self.align();
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.views.push(format!(
            "{{\"buffer\":0,\"byteOffset\":{offset},\"byteLength\":{},\"target\":{target}}}",
            data.len()
        ));
        self.views.len() - 1
    }

    /// A float accessor of `width` components per element over `values` (`count × width`).
    fn floats(&mut self, values: &[f32], width: usize, bounds: bool) -> usize {
        let ty = match width {
            2 => "VEC2",
            3 => "VEC3",
            _ => "VEC4",
        };
        let data: Vec<u8> = values.iter().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&data, ARRAY_BUFFER);
        let count = values.len() / width;
        let mut json = format!(
            "{{\"bufferView\":{view},\"componentType\":{FLOAT},\"count\":{count},\"type\":\"{ty}\""
        );
        if bounds && count > 0 && values.iter().all(|v| v.is_finite()) {
            let mut lo = vec![f32::INFINITY; width];
            let mut hi = vec![f32::NEG_INFINITY; width];
            for e in values.chunks_exact(width) {
                for (k, v) in e.iter().enumerate() {
                    lo[k] = lo[k].min(*v);
                    hi[k] = hi[k].max(*v);
                }
            }
            json.push_str(",\"min\":");
            numbers(
                &lo.iter().map(|v| f64::from(*v)).collect::<Vec<_>>(),
                &mut json,
            );
            json.push_str(",\"max\":");
            numbers(
                &hi.iter().map(|v| f64::from(*v)).collect::<Vec<_>>(),
                &mut json,
            );
        }
        json.push('}');
        self.accessors.push(json);
        self.accessors.len() - 1
    }

    fn indices(&mut self, indices: &[u32]) -> usize {
        let data: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.view(&data, ELEMENT_ARRAY_BUFFER);
        self.accessors.push(format!(
            "{{\"bufferView\":{view},\"componentType\":{UNSIGNED_INT},\"count\":{},\"type\":\"SCALAR\"}}",
            indices.len()
        ));
        self.accessors.len() - 1
    }
}

fn numbers(values: &[f64], out: &mut String) {
    out.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_number(*v, out);
    }
    out.push(']');
}

/// A node's transform members by name (`matrix`, or `translation` / `rotation` / `scale`).
pub(super) type Members = Vec<(&'static str, Vec<f64>)>;

/// The node's transform members, none for the identity: `translation` / `rotation` /
/// `scale` when the matrix takes apart into them exactly, else `matrix`.
pub(super) fn transform_members(local: &DMat4) -> Members {
    const EXACT: f64 = 1e-12;
    if *local == DMat4::IDENTITY {
        return Vec::new();
    }
    let d = math::decompose(local);
    let back = math::from_trs(d.translation, d.rotation, d.scale).to_cols_array();
    let m = local.to_cols_array();
    let scale_of = m.iter().map(|v| v.abs()).fold(1.0f64, |a, b| a.max(b));
    let clean = !d.sheared
        && d.scale.to_array().iter().all(|s| s.is_finite() && *s > 0.0)
        && local.row(3) == glam::DVec4::W
        && back
            .iter()
            .zip(m)
            .all(|(a, b)| (a - b).abs() <= EXACT * scale_of);
    if !clean {
        return vec![("matrix", m.to_vec())];
    }
    let mut out = Vec::new();
    if d.translation != DVec3::ZERO {
        out.push(("translation", d.translation.to_array().to_vec()));
    }
    if d.rotation != DQuat::IDENTITY {
        out.push(("rotation", d.rotation.to_array().to_vec()));
    }
    if d.scale != DVec3::ONE {
        out.push(("scale", d.scale.to_array().to_vec()));
    }
    out
}

/// The node's transform members (with a leading comma), empty for the identity.
fn transform(local: &DMat4) -> String {
    let mut out = String::new();
    for (key, values) in transform_members(local) {
        out.push_str(&format!(",\"{key}\":"));
        numbers(&values, &mut out);
    }
    out
}

/// One primitive's JSON, its data appended to `bin`.
pub(super) fn primitive(p: &Primitive, materials: &[String], bin: &mut Bin) -> String {
    let v = &p.vertices;
    let flat = |f: &dyn Fn(&crate::mesh::MeshVertex) -> Vec<f32>| -> Vec<f32> {
        v.iter().flat_map(f).collect()
    };
    let pos = bin.floats(&flat(&|x| x.position.to_vec()), 3, true);
    let nrm = bin.floats(&flat(&|x| x.normal.to_vec()), 3, false);
    let tan = bin.floats(&flat(&|x| x.tangent.to_vec()), 4, false);
    let mut attrs = format!("\"POSITION\":{pos},\"NORMAL\":{nrm},\"TANGENT\":{tan}");
    for k in 0..usize::from(p.uv_sets.min(4)) {
        let uv = bin.floats(
            &flat(&|x| match k {
                0 => x.uv0.to_vec(),
                1 => x.uv1.to_vec(),
                2 => x.uv2.to_vec(),
                _ => x.uv3.to_vec(),
            }),
            2,
            false,
        );
        attrs.push_str(&format!(",\"TEXCOORD_{k}\":{uv}"));
    }
    for (key, set) in [("COLOR_0", &p.color0), ("COLOR_1", &p.color1)] {
        if let Some(c) = set {
            let values: Vec<f32> = c.iter().flatten().copied().collect();
            let acc = bin.floats(&values, 4, false);
            attrs.push_str(&format!(",\"{key}\":{acc}"));
        }
    }
    let idx = bin.indices(&p.indices);
    let mut json = format!("{{\"attributes\":{{{attrs}}},\"indices\":{idx},\"mode\":4");
    if let Some(m) = p
        .material
        .as_ref()
        .and_then(|name| materials.iter().position(|s| s == name))
    {
        json.push_str(&format!(",\"material\":{m}"));
    }
    if let Some(probe) = &p.reflection_probe {
        json.push_str(",\"extras\":{\"dh\":{\"reflectionProbe\":");
        write_string(probe, &mut json);
        json.push_str("}}");
    }
    json.push('}');
    json
}

/// Refuses a model whose nodes name meshes, children or roots it does not have.
pub(super) fn check_indices(model: &Model) -> Result<(), WriteError> {
    let bad = |place: String, index: usize, count: usize| WriteError::BadIndex {
        model: model.name.clone(),
        place,
        index,
        count,
    };
    for (i, n) in model.nodes.iter().enumerate() {
        if let Some(m) = n.mesh.filter(|m| *m >= model.meshes.len()) {
            return Err(bad(format!("nodes[{i}].mesh"), m, model.meshes.len()));
        }
        if let Some(c) = n.children.iter().find(|c| **c >= model.nodes.len()) {
            return Err(bad(format!("nodes[{i}].children"), *c, model.nodes.len()));
        }
    }
    if let Some(r) = model.roots.iter().find(|r| **r >= model.nodes.len()) {
        return Err(bad("the scene's roots".into(), *r, model.nodes.len()));
    }
    Ok(())
}

/// Serializes `model` as a GLB 2.0 file (see the module docs for what is carried).
pub fn write_glb(model: &Model) -> Result<Vec<u8>, WriteError> {
    check_indices(model)?;

    // Material slots, in order of first use over the meshes.
    let mut materials: Vec<String> = Vec::new();
    for m in &model.meshes {
        for p in &m.primitives {
            if let Some(s) = &p.material {
                if !materials.contains(s) {
                    materials.push(s.clone());
                }
            }
        }
    }

    let mut bin = Bin::new();
    let mut meshes = Vec::with_capacity(model.meshes.len());
    for m in &model.meshes {
        let prims: Vec<String> = m
            .primitives
            .iter()
            .map(|p| primitive(p, &materials, &mut bin))
            .collect();
        let mut json = String::from("{");
        if !m.name.is_empty() {
            json.push_str("\"name\":");
            write_string(&m.name, &mut json);
            json.push(',');
        }
        json.push_str(&format!("\"primitives\":[{}]}}", prims.join(",")));
        meshes.push(json);
    }
    bin.align();

    let mut nodes = Vec::with_capacity(model.nodes.len());
    for n in &model.nodes {
        let mut json = String::from("{");
        let mut first = true;
        let mut sep = |json: &mut String| {
            if !first {
                json.push(',');
            }
            first = false;
        };
        if !n.name.is_empty() {
            sep(&mut json);
            json.push_str("\"name\":");
            write_string(&n.name, &mut json);
        }
        if !n.children.is_empty() {
            sep(&mut json);
            json.push_str("\"children\":");
            numbers(
                &n.children.iter().map(|c| *c as f64).collect::<Vec<_>>(),
                &mut json,
            );
        }
        let t = transform(&n.local);
        if !t.is_empty() {
            sep(&mut json);
            json.push_str(&t[1..]);
        }
        if let Some(m) = n.mesh {
            sep(&mut json);
            json.push_str(&format!("\"mesh\":{m}"));
        }
        let roles: Vec<&str> = [
            ("camera", n.camera),
            ("light", n.light),
            ("skinned", n.skinned && n.mesh.is_none()),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(k, _)| k)
        .collect();
        if !roles.is_empty() {
            sep(&mut json);
            let inner: Vec<String> = roles.iter().map(|k| format!("\"{k}\":true")).collect();
            json.push_str(&format!("\"extras\":{{\"dh\":{{{}}}}}", inner.join(",")));
        }
        json.push('}');
        nodes.push(json);
    }

    let mut json = String::from("{\"asset\":{\"version\":\"2.0\",\"generator\":\"dh build\"}");
    json.push_str(",\"scene\":0,\"scenes\":[{\"nodes\":");
    numbers(
        &model.roots.iter().map(|r| *r as f64).collect::<Vec<_>>(),
        &mut json,
    );
    json.push_str("}]");
    json.push_str(&format!(",\"nodes\":[{}]", nodes.join(",")));
    if !meshes.is_empty() {
        json.push_str(&format!(",\"meshes\":[{}]", meshes.join(",")));
    }
    if !materials.is_empty() {
        let list: Vec<String> = materials
            .iter()
            .map(|m| {
                let mut s = String::from("{\"name\":");
                write_string(m, &mut s);
                s.push('}');
                s
            })
            .collect();
        json.push_str(&format!(",\"materials\":[{}]", list.join(",")));
    }
    if !bin.accessors.is_empty() && bin.bytes.is_empty() {
        // Only empty primitives: their accessors still need a buffer to name (glTF wants
        // a buffer of at least one byte).
        bin.bytes.extend_from_slice(&[0; 4]);
    }
    if !bin.bytes.is_empty() {
        json.push_str(&format!(
            ",\"buffers\":[{{\"byteLength\":{}}}],\"bufferViews\":[{}],\"accessors\":[{}]",
            bin.bytes.len(),
            bin.views.join(","),
            bin.accessors.join(",")
        ));
    }
    json.push('}');
    assemble(&model.name, json, &bin.bytes)
}

/// The GLB file of a JSON chunk (padded here with spaces) and a BIN chunk (padded with
/// zeros; none when empty), its lengths checked against glTF's 32-bit fields.
pub(super) fn assemble(model: &str, mut json: String, bin: &[u8]) -> Result<Vec<u8>, WriteError> {
    while !json.len().is_multiple_of(4) {
        json.push(' ');
    }
    let bin_padded = bin.len().div_ceil(4) * 4;
    let too_large = |what: &str, bytes: u64| WriteError::TooLarge {
        model: model.to_string(),
        what: what.to_string(),
        bytes,
    };
    let bin_len =
        u32::try_from(bin_padded).map_err(|_| too_large("the BIN chunk", bin_padded as u64))?;
    let json_len =
        u32::try_from(json.len()).map_err(|_| too_large("the JSON chunk", json.len() as u64))?;
    let total = 12u64
        + 8
        + u64::from(json_len)
        + if bin.is_empty() {
            0
        } else {
            8 + u64::from(bin_len)
        };
    let total32 = u32::try_from(total).map_err(|_| too_large("the file", total))?;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&json_len.to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json.as_bytes());
    if !bin.is_empty() {
        out.extend_from_slice(&bin_len.to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(out.len() + (bin_padded - bin.len()), 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gltf::{import_glb, Mesh, Node};
    use crate::mesh::MeshVertex;

    fn tri() -> Mesh {
        let v = |p: [f32; 3]| MeshVertex {
            position: p,
            normal: [0.0, 0.0, 1.0],
            tangent: [1.0, 0.0, 0.0, -1.0],
            uv0: [p[0], p[1]],
            uv1: [0.25, 0.75],
            ..MeshVertex::default()
        };
        Mesh {
            name: String::new(),
            primitives: vec![Primitive {
                vertices: vec![v([0.0, 0.0, 0.0]), v([1.0, 0.0, 0.0]), v([0.0, 1.0, 0.0])],
                indices: vec![0, 1, 2],
                uv_sets: 2,
                normals_authored: true,
                tangents_authored: true,
                color0: None,
                color1: Some(vec![[0.5, 0.0, 0.0, 0.0]; 3]),
                material: Some("#7".into()),
                reflection_probe: Some("probe \"a\"".into()),
                ..Primitive::default()
            }],
            ..Mesh::default()
        }
    }

    /// Regression (fuzz `glb_rewrite`): a model whose only primitive is empty wrote its
    /// accessors into no buffer, and the written GLB did not import.
    #[test]
    fn a_model_of_empty_primitives_writes_a_glb_that_imports() {
        let mut mesh = tri();
        mesh.primitives[0].vertices.clear();
        mesh.primitives[0].indices.clear();
        mesh.primitives[0].color1 = None;
        let mut node = Node::new("n");
        node.mesh = Some(0);
        let model = Model {
            name: "m".into(),
            nodes: vec![node],
            roots: vec![0],
            meshes: vec![mesh],
            warnings: Vec::new(),
            ..Model::default()
        };
        let bytes = write_glb(&model).unwrap();
        let back = import_glb(&bytes, "m").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.meshes.len(), 1);
        assert!(back.meshes[0].primitives[0].vertices.is_empty());
    }

    /// Regression (fuzz `glb_rewrite`): a source authoring TEXCOORD_3 alone counted one set,
    /// so the writer wrote TEXCOORD_0 (zeros) and lost the authored lane. The authored count
    /// reaches the highest lane filled: four sets here, and lane 3 survives a rewrite.
    #[test]
    fn a_lone_texcoord_3_survives_a_rewrite() {
        let mut mesh = tri();
        for (k, v) in mesh.primitives[0].vertices.iter_mut().enumerate() {
            v.uv0 = [0.0; 2];
            v.uv1 = [0.0; 2];
            v.uv3 = [0.5, k as f32];
        }
        mesh.primitives[0].uv_sets = 4;
        let mut node = Node::new("n");
        node.mesh = Some(0);
        let model = Model {
            name: "m".into(),
            nodes: vec![node],
            roots: vec![0],
            meshes: vec![mesh],
            warnings: Vec::new(),
            ..Model::default()
        };
        // The same primitive as a source writes it: TEXCOORD_3 alone. Blank the other
        // three sets out of the JSON chunk with spaces (its length stays).
        let mut bytes = write_glb(&model).unwrap();
        for k in 0..3 {
            let key = format!("\"TEXCOORD_{k}\":");
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let at = text.find(&key).unwrap();
            let end = at + text[at..].find(',').unwrap() + 1;
            bytes[at..end].fill(b' ');
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.contains("\"TEXCOORD_3\"") && !text.contains("\"TEXCOORD_0\""));
        let back = import_glb(&bytes, "m").unwrap_or_else(|e| panic!("{e}"));
        let p = &back.meshes[0].primitives[0];
        assert_eq!(p.uv_sets, 4);
        let lane3: Vec<[f32; 2]> = p.vertices.iter().map(|v| v.uv3).collect();
        assert_eq!(lane3, [[0.5, 0.0], [0.5, 1.0], [0.5, 2.0]]);
    }

    /// A sheared node goes out as its matrix, a camera and a left-out skin keep their roles,
    /// and an unnamed material slot keeps its `#N` name: the import reads back what was
    /// written, element for element.
    #[test]
    fn a_written_model_reads_back_as_it_was() {
        let mut sheared = Node::new("shear");
        // X kept, Y leaning into X: not a rotation times a scale.
        sheared.local = DMat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 3.0, 4.0, 1.0,
        ]);
        sheared.mesh = Some(0);
        let mut cam = Node::new("eye");
        cam.camera = true;
        cam.parent = Some(0);
        sheared.children = vec![1];
        let mut skin = Node::new("");
        skin.skinned = true;
        let model = Model {
            name: "m".into(),
            nodes: vec![sheared, cam, skin],
            roots: vec![0, 2],
            meshes: vec![tri()],
            warnings: Vec::new(),
            ..Model::default()
        };
        let bytes = write_glb(&model).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("\"matrix\":[1,0,0,0,0.5,1,0,0,0,0,1,0,2,3,4,1]"));
        let back = import_glb(&bytes, "m").unwrap();
        assert_eq!(back.nodes[0].local, model.nodes[0].local);
        assert!(back.nodes[1].camera && !back.nodes[1].is_part());
        assert!(back.nodes[2].skinned && back.nodes[2].name.is_empty());
        assert_eq!(back.node_paths(), ["shear", "shear/eye", "#1"]);
        let p = &back.meshes[0].primitives[0];
        let q = &model.meshes[0].primitives[0];
        assert_eq!(p.vertices, q.vertices);
        assert_eq!(p.indices, q.indices);
        assert_eq!(p.uv_sets, 2);
        assert_eq!(p.color1, q.color1);
        assert_eq!(p.color0, None);
        assert_eq!(p.material.as_deref(), Some("#7"));
        assert_eq!(p.reflection_probe.as_deref(), Some("probe \"a\""));
        assert_eq!(write_glb(&back).unwrap(), bytes, "writing is deterministic");
        // The scene alone: the same tree and slots, no geometry read.
        let scene = crate::gltf::read_scene(&bytes, "m", &Default::default()).unwrap();
        assert_eq!(scene.nodes, back.nodes);
        assert_eq!(scene.roots, back.roots);
        let sp = &scene.meshes[0].primitives[0];
        assert!(sp.vertices.is_empty() && sp.indices.is_empty());
        assert_eq!(sp.material.as_deref(), Some("#7"));
        assert_eq!(sp.reflection_probe, p.reflection_probe);
    }

    #[test]
    fn a_mesh_index_past_the_meshes_is_refused() {
        let mut n = Node::new("a");
        n.mesh = Some(3);
        let model = Model {
            name: "bad".into(),
            nodes: vec![n],
            roots: vec![0],
            ..Model::default()
        };
        assert_eq!(
            write_glb(&model),
            Err(WriteError::BadIndex {
                model: "bad".into(),
                place: "nodes[0].mesh".into(),
                index: 3,
                count: 0,
            })
        );
    }
}
