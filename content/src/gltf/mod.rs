//! GLB import (spec: runtime assets, "Mesh vertex format" through "What the map importer
//! leaves out"; dh.map, "Geometry" and "A folder of pieces"): a binary glTF 2.0 file, or a
//! folder of them joined as one, read into a DH-owned [`Model`] — a node hierarchy whose
//! meshes are lists of [`Primitive`]s of 72-byte [`MeshVertex`] records. The JSON is read
//! by `gltf-json` (the container, its chunk lengths and every accessor range are checked
//! here first, so untrusted sizes never reach an allocation unchecked).
//!
//! * Positions, normals, tangents and the four UV sets land in their `MeshVertex` lanes;
//!   TEXCOORD_0..3 are read verbatim and [`Primitive::uv_sets`] records how many the
//!   source authored. A missing NORMAL becomes flat normals; a missing TANGENT is derived
//!   from the UV deltas ([`tangent`]).
//! * COLOR_0 / COLOR_1 are read in every encoding glTF allows (VEC3 or VEC4; float,
//!   unorm8, unorm16); a set whose every value is its default (white, zero) is absent.
//! * For a map ([`Purpose::Map`]) skinned nodes are left out, morph targets are ignored
//!   (the base shape draws) and animations are read past, each with one
//!   [`ImportWarning`] naming every node or track. A map left with only skinned nodes is
//!   an error.
//! * Refused: compressed or quantized geometry, a primitive that is not TRIANGLES, a
//!   missing POSITION, attribute counts that disagree with POSITION, indices past the
//!   vertices, no scene ([`GlbErrorKind`]).
//!
//! [`apply_sidecar`] applies a `.dh-model` sidecar; [`geometry_report`] is `dh build`'s
//! `geometry:` lines; [`import_pieces`] joins a folder of pieces; [`rewrite_glb`] writes a
//! sidecar-edited model back into its source GLB (only the scene graph changes) for the
//! pallet to ship, and [`write_glb`] writes a model no single file holds (a folder's pieces).
//!
//! [`MeshVertex`]: crate::mesh::MeshVertex

mod error;
pub mod fbx;
mod glb;
mod import;
pub mod pallet_import;
mod pieces;
mod pose;
mod report;
mod rewrite;
mod sidecar;
mod skin;
mod tangent;
mod write;

pub use error::{GlbError, GlbErrorKind, ImportWarning};
pub use fbx::{convert_fbx, find_blender, FbxError};
pub use import::{import_glb, import_glb_with, read_scene};
pub use pallet_import::{import_gltf, GltfImportError, GltfImported};
pub use pieces::{import_pieces, Piece};
pub use pose::{
    sample_clip, shape_weights, skin_reference, unknown_shape_warning, Pose, Skeleton, Trs,
};
pub use report::{geometry_report, DEGENERATE_MIN_SHARE, DEGENERATE_MIN_TRIANGLES, REPORT_NAMES};
pub use rewrite::rewrite_glb;
pub use sidecar::{apply_sidecar, SidecarDiag, SidecarOutcome};
pub use skin::{
    pack_skinning, Animation, Channel, ChannelPath, Interpolation, MorphTarget, Skin, SkinWeights,
    MAX_GPU_JOINTS, SKINNING_STRIDE,
};
pub use write::{write_glb, WriteError};

use crate::mesh::{MeshVertex, VertexColor};
use glam::DMat4;

/// What the model is imported for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Purpose {
    /// A map's geometry: skinned nodes are left out of the build.
    #[default]
    Map,
    /// An object's or avatar's model: skinned meshes are kept at their bind pose.
    Object,
}

/// The importer's settings and caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOptions {
    /// Map or object.
    pub purpose: Purpose,
    /// The most vertices the whole model may decode to.
    pub max_vertices: usize,
    /// The most indices the whole model may decode to.
    pub max_indices: usize,
    /// The most nodes a file may declare.
    pub max_nodes: usize,
    /// Whether COLOR_1 is read (spec 001, "Vertex colors": a map keeps COLOR_1 only when a
    /// material in its materials table reads it through `detail.vertexWeight`, decided
    /// before the geometry is read). `false` leaves the attribute unread, so the set is never
    /// decoded or allocated; `true` (the default) reads it as COLOR_0 is read.
    pub color1: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            purpose: Purpose::Map,
            max_vertices: 1 << 25,
            max_indices: 3 << 26,
            max_nodes: 1 << 20,
            color1: true,
        }
    }
}

/// One node of the model's hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's own name (empty when the file gives none).
    pub name: String,
    /// Its parent, `None` for a scene root.
    pub parent: Option<usize>,
    /// Its children, in the file's order.
    pub children: Vec<usize>,
    /// Its local transform (column-major; a `matrix` as written, or `T · R · S`).
    pub local: DMat4,
    /// The mesh it draws, if any (a skinned node in a map build draws none).
    pub mesh: Option<usize>,
    /// Whether it carries a camera.
    pub camera: bool,
    /// Whether it carries a punctual light (`KHR_lights_punctual`).
    pub light: bool,
    /// Whether it is skinned (a `skin`, or JOINTS_n / WEIGHTS_n on its primitives).
    pub skinned: bool,
    /// Whether its mesh has morph targets (a map build ignores them: the base shape draws).
    pub morph: bool,
    /// The skin (an index into [`Model::skins`]) that deforms its mesh; only an object
    /// import reads skins.
    pub skin: Option<usize>,
    /// The node's index in the file it was read from (`None` for a node no single file
    /// numbers, such as a folder's joined pieces): what [`rewrite_glb`] edits.
    pub source: Option<usize>,
    /// The file's mesh the node draws there, kept through a map build that draws none of a
    /// skinned node; `None` once a merge gave it a new mesh (or when it draws none).
    pub source_mesh: Option<usize>,
}

impl Node {
    /// A plain node: no mesh, identity transform.
    pub fn new(name: impl Into<String>) -> Node {
        Node {
            name: name.into(),
            parent: None,
            children: Vec::new(),
            local: DMat4::IDENTITY,
            mesh: None,
            camera: false,
            light: false,
            skinned: false,
            morph: false,
            skin: None,
            source: None,
            source_mesh: None,
        }
    }

    /// Whether the node is a part of the part table: it draws a mesh, or it is a
    /// structural group (no mesh, and not a camera, a light or a skinned node).
    pub fn is_part(&self) -> bool {
        !self.skinned && (self.mesh.is_some() || !(self.camera || self.light))
    }
}

/// A mesh: its primitives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// The glTF mesh's name (empty when the file gives none).
    pub name: String,
    /// Its primitives, in the file's order.
    pub primitives: Vec<Primitive>,
    /// The authored morph target weights (`mesh.weights`), one per target; empty when the
    /// mesh has no targets or the import did not read them (a map build).
    pub weights: Vec<f32>,
    /// The morph targets' names (`mesh.extras.targetNames`), one per target when authored,
    /// else empty.
    pub target_names: Vec<String>,
}

impl Mesh {
    /// Triangles over every primitive.
    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(|p| p.indices.len() / 3).sum()
    }
}

/// One triangle list with one material.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Primitive {
    /// The vertices, in the mesh's own space.
    pub vertices: Vec<MeshVertex>,
    /// A triangle list over `vertices` (every index in range).
    pub indices: Vec<u32>,
    /// How many TEXCOORD sets the source authored (0–4; a fifth and beyond are not read).
    pub uv_sets: u8,
    /// Whether NORMAL was authored (else flat normals were made).
    pub normals_authored: bool,
    /// Whether TANGENT was authored (else tangents were derived).
    pub tangents_authored: bool,
    /// COLOR_0 per vertex, linear RGBA; `None` when absent or white everywhere.
    pub color0: Option<Vec<[f32; 4]>>,
    /// COLOR_1 per vertex, RGBA; `None` when absent or zero everywhere.
    pub color1: Option<Vec<[f32; 4]>>,
    /// The material slot: the glTF material's name, `#index` for an unnamed one, `None`
    /// for a primitive with no material.
    pub material: Option<String>,
    /// The reflection probe its `extras.dh.reflectionProbe` names.
    pub reflection_probe: Option<String>,
    /// JOINTS_0 / WEIGHTS_0 per vertex (an object import only; `None` for a rigid mesh).
    pub skin: Option<SkinWeights>,
    /// Its morph targets' displacements (an object import only), in the file's order.
    pub targets: Vec<MorphTarget>,
}

impl Primitive {
    /// The color stream to pack ([`crate::mesh::pack_streams`]): one entry per vertex,
    /// an absent set at its default (COLOR_0 white, COLOR_1 zero); `None` when the
    /// primitive has neither set.
    pub fn vertex_colors(&self) -> Option<Vec<VertexColor>> {
        if self.color0.is_none() && self.color1.is_none() {
            return None;
        }
        Some(
            (0..self.vertices.len())
                .map(|i| VertexColor {
                    color0: self
                        .color0
                        .as_ref()
                        .and_then(|c| c.get(i).copied())
                        .unwrap_or([1.0; 4]),
                    color1: self
                        .color1
                        .as_ref()
                        .and_then(|c| c.get(i).copied())
                        .unwrap_or([0.0; 4]),
                })
                .collect(),
        )
    }
}

/// An imported model: the scene's node hierarchy and the meshes it draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// The model's display name (as given to the importer).
    pub name: String,
    /// Every node the scene reaches.
    pub nodes: Vec<Node>,
    /// The scene's root nodes, in order.
    pub roots: Vec<usize>,
    /// The meshes the nodes name.
    pub meshes: Vec<Mesh>,
    /// What the import left out or read past, one warning per concern.
    pub warnings: Vec<ImportWarning>,
    /// The skins the nodes name (an object import only).
    pub skins: Vec<Skin>,
    /// The animation clips (an object import only).
    pub animations: Vec<Animation>,
}

impl Model {
    /// Every node the roots reach, depth first, parents before children, siblings in order
    /// (the order the runtime mesh loader assigns node slots in).
    pub fn traversal(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            if n >= self.nodes.len() || seen[n] {
                continue;
            }
            seen[n] = true;
            out.push(n);
            stack.extend(self.nodes[n].children.iter().rev().copied());
        }
        out
    }

    /// The world matrix of every node (identity for a node the roots do not reach).
    pub fn world_matrices(&self) -> Vec<DMat4> {
        let mut w = vec![DMat4::IDENTITY; self.nodes.len()];
        for n in self.traversal() {
            let node = &self.nodes[n];
            w[n] = match node.parent {
                Some(p) if p < w.len() => crate::math::mul(&w[p], &node.local),
                _ => node.local,
            };
        }
        w
    }

    /// Each node's path from its scene root: names joined by `/`, siblings that share a
    /// name disambiguated Blender-style (`wall`, `wall.001`, `wall.002`), an unnamed node
    /// written `#N` (its position among its siblings).
    pub fn node_paths(&self) -> Vec<String> {
        let mut paths = vec![String::new(); self.nodes.len()];
        let mut segs = vec![String::new(); self.nodes.len()];
        let assign = |list: &[usize], segs: &mut Vec<String>| {
            for (n, s) in list.iter().zip(sibling_names(self, list)) {
                if let Some(slot) = segs.get_mut(*n) {
                    *slot = s;
                }
            }
        };
        assign(&self.roots, &mut segs);
        for n in self.traversal() {
            assign(&self.nodes[n].children, &mut segs);
        }
        for n in self.traversal() {
            paths[n] = match self.nodes[n].parent {
                Some(p) if p < paths.len() => format!("{}/{}", paths[p], segs[n]),
                _ => segs[n].clone(),
            };
        }
        paths
    }

    /// Triangles over every node that draws, counting a mesh once per node that draws it.
    pub fn triangle_count(&self) -> usize {
        self.traversal()
            .into_iter()
            .filter_map(|n| self.nodes[n].mesh)
            .filter_map(|m| self.meshes.get(m))
            .map(Mesh::triangle_count)
            .sum()
    }

    /// The material slots the drawn nodes use, in order of first use.
    pub fn material_slots(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in self.traversal() {
            if let Some(m) = self.nodes[n].mesh.and_then(|m| self.meshes.get(m)) {
                for p in &m.primitives {
                    if let Some(s) = &p.material {
                        if !out.contains(s) {
                            out.push(s.clone());
                        }
                    }
                }
            }
        }
        out
    }

    /// Drops every node the roots no longer reach and every mesh no node names, and
    /// renumbers what remains (traversal order is kept).
    pub fn compact(&mut self) {
        let order = self.traversal();
        let mut remap = vec![usize::MAX; self.nodes.len()];
        for (new, old) in order.iter().enumerate() {
            remap[*old] = new;
        }
        let mut mesh_map = vec![usize::MAX; self.meshes.len()];
        let mut meshes = Vec::new();
        let mut nodes = Vec::with_capacity(order.len());
        for old in &order {
            let mut n = self.nodes[*old].clone();
            n.parent = n
                .parent
                .and_then(|p| remap.get(p).copied())
                .filter(|p| *p != usize::MAX);
            n.children = n
                .children
                .iter()
                .filter_map(|c| remap.get(*c).copied())
                .filter(|c| *c != usize::MAX)
                .collect();
            if let Some(m) = n.mesh {
                if let Some(slot) = mesh_map.get_mut(m) {
                    if *slot == usize::MAX {
                        *slot = meshes.len();
                        meshes.push(self.meshes[m].clone());
                    }
                    n.mesh = Some(*slot);
                } else {
                    n.mesh = None;
                }
            }
            nodes.push(n);
        }
        self.roots = self
            .roots
            .iter()
            .filter_map(|r| remap.get(*r).copied())
            .filter(|r| *r != usize::MAX)
            .collect();
        self.nodes = nodes;
        self.meshes = meshes;
        let live = |n: &usize| remap.get(*n).copied().filter(|n| *n != usize::MAX);
        for skin in &mut self.skins {
            // A joint the roots no longer reach keeps its slot (the palette's numbering is
            // the vertices'), at its inverse bind matrix's rest: `None`.
            skin.joints = skin
                .joints
                .iter()
                .map(|j| j.and_then(|j| live(&j)))
                .collect();
            skin.skeleton = skin.skeleton.and_then(|s| live(&s));
        }
        for anim in &mut self.animations {
            anim.channels.retain_mut(|c| match live(&c.node) {
                Some(n) => {
                    c.node = n;
                    true
                }
                None => false,
            });
        }
    }
}

/// The Blender-style names of one list of siblings: the first of each name keeps it, a
/// later one takes the lowest free `name.NNN`.
fn sibling_names(model: &Model, list: &[usize]) -> Vec<String> {
    use std::collections::{HashMap, HashSet};
    let raw: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, n)| match model.nodes.get(*n) {
            Some(node) if !node.name.is_empty() => node.name.clone(),
            _ => format!("#{i}"),
        })
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut firsts: HashSet<&str> = HashSet::new();
    let mut is_first = vec![false; raw.len()];
    for (i, r) in raw.iter().enumerate() {
        if firsts.insert(r.as_str()) {
            is_first[i] = true;
            taken.insert(r.clone());
        }
    }
    // The next suffix to try per name, so many same-named siblings stay linear.
    let mut next: HashMap<&str, u64> = HashMap::new();
    raw.iter()
        .zip(is_first)
        .map(|(r, first)| {
            if first {
                return r.clone();
            }
            let k = next.entry(r.as_str()).or_insert(1);
            loop {
                let cand = format!("{r}.{:03}", *k);
                *k += 1;
                if taken.insert(cand.clone()) {
                    return cand;
                }
            }
        })
        .collect()
}
