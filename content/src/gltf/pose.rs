//! Skeletons on the CPU (spec: runtime assets, "Posing a spawned rig"): a model's node
//! hierarchy evaluated to world matrices from its rest pose, a [`Pose`] of per-bone local
//! rotations applied over it, an animation clip sampled at a time, and the joint palette a
//! skin deforms by (glTF: `inverse(world(mesh node)) · world(joint) · inverseBind`, so the
//! skinned vertices land in the mesh node's own space and the draw keeps its node's
//! transform). The cached model is never mutated: every solve writes caller-owned locals.
//!
//! [`skin_reference`] is the CPU reference skinning (morph targets, then the four weighted
//! joints), what the GPU skinner is checked against.

use super::skin::{Animation, ChannelPath, Interpolation};
use super::{Model, Primitive};
use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use std::collections::HashMap;

/// A node's local transform as translation, rotation and scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale.
    pub scale: Vec3,
}

impl Trs {
    /// `T · R · S`.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// Per-bone local rotations, applied over the rest (or clip) pose in the bone's parent
/// frame, keyed by node name or node path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pose {
    /// Bone name (or path) to rotation.
    pub rotations: HashMap<String, Quat>,
}

impl Pose {
    /// The pose with each key that is a humanoid role (`Head`, `LeftUpperArm`, ...) the rig's
    /// bone map (`dh.skeleton`'s rig `bones`: role to the model's bone name) maps replaced by
    /// that bone's name; other keys are node names or paths and stay. Returns the roles the
    /// map does not map, for the caller to report once (the bone stays at rest).
    pub fn resolve_humanoid(&self, bones: &HashMap<String, String>) -> (Pose, Vec<String>) {
        let roles = crate::schema::object_components::HUMANOID_ROLES;
        let mut out = Pose::default();
        let mut unmapped = Vec::new();
        let mut keys: Vec<&String> = self.rotations.keys().collect();
        keys.sort();
        for k in keys {
            let q = self.rotations[k];
            match bones.get(k) {
                Some(bone) => {
                    out.rotations.insert(bone.clone(), q);
                }
                None if roles.contains(&k.as_str()) => unmapped.push(k.clone()),
                None => {
                    out.rotations.insert(k.clone(), q);
                }
            }
        }
        (out, unmapped)
    }
}

/// A mesh's morph weights with a `dh.renderer`'s `shapes` applied (spec 001, dh.renderer:
/// "A weight per blendshape, keyed by its name"): the authored weights, each named target
/// set to its shape's weight. A name is a target's name (`extras.targetNames`) or `#index`.
/// Returns the weights and the names the mesh does not have (the spec's warning: "a
/// blendshape the mesh does not have"; the weight is not applied).
pub fn shape_weights<'a>(
    mesh: &super::Mesh,
    shapes: impl IntoIterator<Item = (&'a str, f64)>,
) -> (Vec<f32>, Vec<String>) {
    let targets = mesh
        .primitives
        .iter()
        .map(|p| p.targets.len())
        .max()
        .unwrap_or(0);
    let mut w = mesh.weights.clone();
    w.resize(targets, 0.0);
    let mut unknown = Vec::new();
    for (name, weight) in shapes {
        let index = mesh
            .target_names
            .iter()
            .position(|n| n == name)
            .or_else(|| name.strip_prefix('#').and_then(|i| i.parse::<usize>().ok()))
            .filter(|i| *i < targets);
        match index {
            Some(i) => w[i] = weight as f32,
            None => unknown.push(name.to_string()),
        }
    }
    (w, unknown)
}

/// The warning for a `shapes` name the mesh does not have.
pub fn unknown_shape_warning(mesh: &str, name: &str) -> String {
    format!("dh.renderer shapes: '{name}' is a blendshape mesh '{mesh}' does not have; its weight is not applied")
}

/// A model's skeleton: every node's rest transform, its parent, and the evaluation order.
#[derive(Debug, Clone)]
pub struct Skeleton {
    rest: Vec<Trs>,
    parents: Vec<Option<usize>>,
    order: Vec<usize>,
    names: Vec<String>,
    paths: Vec<String>,
}

impl Skeleton {
    /// The skeleton of `model`: each node's local matrix as its rest TRS.
    pub fn new(model: &Model) -> Skeleton {
        let rest = model
            .nodes
            .iter()
            .map(|n| {
                let (s, r, t) = n.local.as_mat4().to_scale_rotation_translation();
                Trs {
                    translation: t,
                    rotation: r.normalize(),
                    scale: s,
                }
            })
            .collect();
        Skeleton {
            rest,
            parents: model.nodes.iter().map(|n| n.parent).collect(),
            order: model.traversal(),
            names: model.nodes.iter().map(|n| n.name.clone()).collect(),
            paths: model.node_paths(),
        }
    }

    /// The rest pose's locals (a caller's scratch to pose and sample into).
    pub fn rest(&self) -> Vec<Trs> {
        self.rest.clone()
    }

    /// Applies `pose` to `locals` (each rotation pre-multiplied, so it turns the bone in its
    /// parent's frame about its own origin). Returns the names that matched no node, for the
    /// caller to report once.
    pub fn apply_pose(&self, pose: &Pose, locals: &mut [Trs]) -> Vec<String> {
        let mut missing = Vec::new();
        let mut names: Vec<&String> = pose.rotations.keys().collect();
        names.sort();
        for name in names {
            let q = pose.rotations[name];
            let hit = self
                .paths
                .iter()
                .position(|p| p == name)
                .or_else(|| self.names.iter().position(|n| n == name));
            match hit.and_then(|n| locals.get_mut(n)) {
                Some(l) => l.rotation = (q * l.rotation).normalize(),
                None => missing.push(name.clone()),
            }
        }
        missing
    }

    /// World matrices from `locals` (one per node).
    pub fn world(&self, locals: &[Trs]) -> Vec<Mat4> {
        let mut w = vec![Mat4::IDENTITY; self.rest.len()];
        for &n in &self.order {
            let local = locals.get(n).unwrap_or(&self.rest[n]).matrix();
            w[n] = match self.parents[n] {
                Some(p) if p < w.len() => w[p] * local,
                _ => local,
            };
        }
        w
    }

    /// The joint palette of skin `skin` for the mesh drawn at node `mesh_node`:
    /// `inverse(world(mesh node)) · world(joint) · inverseBind` per joint (a joint the
    /// import dropped holds its bind: the inverse of its inverse bind matrix).
    pub fn palette(
        &self,
        model: &Model,
        skin: usize,
        mesh_node: usize,
        world: &[Mat4],
    ) -> Vec<Mat4> {
        let Some(s) = model.skins.get(skin) else {
            return Vec::new();
        };
        let to_mesh = world.get(mesh_node).map_or(Mat4::IDENTITY, |m| m.inverse());
        s.joints
            .iter()
            .zip(&s.inverse_bind)
            .map(|(j, ibm)| {
                let ibm = ibm.as_mat4();
                match j.and_then(|j| world.get(j)) {
                    Some(w) => to_mesh * *w * ibm,
                    None => Mat4::IDENTITY,
                }
            })
            .collect()
    }
}

/// Samples `clip` at `time` seconds (clamped to its keys) into `locals` and `weights`
/// (morph weights by node). Returns whether a cubic-spline channel was met: those are
/// sampled at their keys' values, linearly (not yet spline-interpolated).
pub fn sample_clip(
    clip: &Animation,
    time: f32,
    locals: &mut [Trs],
    weights: &mut HashMap<usize, Vec<f32>>,
) -> bool {
    let mut cubic = false;
    for c in &clip.channels {
        let Some(local) = locals.get_mut(c.node) else {
            continue;
        };
        if c.times.is_empty() {
            continue;
        }
        let keys = c.times.len();
        let per_key = if c.interpolation == Interpolation::CubicSpline {
            cubic = true;
            3
        } else {
            1
        };
        let width = c.values.len() / (keys * per_key);
        let need = match c.path {
            ChannelPath::Translation | ChannelPath::Scale => 3,
            ChannelPath::Rotation => 4,
            ChannelPath::Weights => 1,
        };
        // A channel the importer did not build (values short of its keys) is skipped.
        if width < need || c.values.len() < keys * per_key * width {
            continue;
        }
        // The value of key k (a cubic spline's middle element: the value itself).
        let value = |k: usize| -> &[f32] {
            let at = (k * per_key + usize::from(per_key == 3)) * width;
            &c.values[at..at + width]
        };
        // The keys around `time` and the blend between them.
        let (a, b, f) = match c.times.iter().position(|t| *t > time) {
            Some(0) => (0, 0, 0.0),
            None => (keys - 1, keys - 1, 0.0),
            Some(k) => {
                let (t0, t1) = (c.times[k - 1], c.times[k]);
                let f = if t1 > t0 {
                    (time - t0) / (t1 - t0)
                } else {
                    0.0
                };
                (k - 1, k, f)
            }
        };
        let f = if c.interpolation == Interpolation::Step {
            0.0
        } else {
            f
        };
        let (va, vb) = (value(a), value(b));
        match c.path {
            ChannelPath::Translation | ChannelPath::Scale => {
                let v = Vec3::from_slice(va).lerp(Vec3::from_slice(vb), f);
                if c.path == ChannelPath::Translation {
                    local.translation = v;
                } else {
                    local.scale = v;
                }
            }
            ChannelPath::Rotation => {
                let qa = Quat::from_slice(va).normalize();
                let qb = Quat::from_slice(vb).normalize();
                local.rotation = qa.slerp(qb, f).normalize();
            }
            ChannelPath::Weights => {
                let w = va.iter().zip(vb).map(|(x, y)| x + (y - x) * f).collect();
                weights.insert(c.node, w);
            }
        }
    }
    cubic
}

/// The CPU reference skinning of one primitive: each vertex's morph displacement
/// (`Σ weight · delta`), then `Σ wᵢ · palette[jointᵢ]` over its four joints with the weights
/// normalized to sum to one (a zero-sum vertex binds its first joint). Positions in the
/// mesh node's space; normals and tangents by the blended matrix's upper 3×3, renormalized.
/// A primitive without JOINTS/WEIGHTS only takes its morph.
pub fn skin_reference(
    prim: &Primitive,
    palette: &[Mat4],
    morph_weights: &[f32],
) -> Vec<([f32; 3], [f32; 3], [f32; 4])> {
    let mut out = Vec::with_capacity(prim.vertices.len());
    for (i, v) in prim.vertices.iter().enumerate() {
        let mut p = Vec3::from_array(v.position);
        let mut n = Vec3::from_array(v.normal);
        for (t, w) in prim.targets.iter().zip(morph_weights) {
            if let Some(d) = t.position.get(i) {
                p += Vec3::from_array(*d) * *w;
            }
            if let Some(d) = t.normal.as_ref().and_then(|d| d.get(i)) {
                n += Vec3::from_array(*d) * *w;
            }
        }
        let m = match &prim.skin {
            Some(s) => {
                let (Some(&j), Some(&w)) = (s.joints.get(i), s.weights.get(i)) else {
                    out.push((v.position, v.normal, v.tangent));
                    continue;
                };
                let w = w.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
                let sum: f32 = w.iter().sum();
                let mut m = Mat4::ZERO;
                if sum > 0.0 {
                    for k in 0..4 {
                        let pm = palette
                            .get(usize::from(j[k]))
                            .copied()
                            .unwrap_or(Mat4::IDENTITY);
                        m += pm * (w[k] / sum);
                    }
                } else {
                    m = palette
                        .get(usize::from(j[0]))
                        .copied()
                        .unwrap_or(Mat4::IDENTITY);
                }
                m
            }
            None => Mat4::IDENTITY,
        };
        let p = m * Vec4::new(p.x, p.y, p.z, 1.0);
        let basis = Mat3::from_mat4(m);
        let n = (basis * n).normalize_or_zero();
        let t = (basis * Vec3::new(v.tangent[0], v.tangent[1], v.tangent[2])).normalize_or_zero();
        out.push(([p.x, p.y, p.z], n.to_array(), [t.x, t.y, t.z, v.tangent[3]]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gltf::{Channel, Node};
    use glam::DMat4;

    #[test]
    fn shapes_set_weights_by_name_and_humanoid_roles_map_to_bones() {
        let mesh = crate::gltf::Mesh {
            primitives: vec![Primitive {
                targets: vec![Default::default(), Default::default()],
                ..Primitive::default()
            }],
            weights: vec![0.25, 0.5],
            target_names: vec!["Smile".into(), "Blink".into()],
            ..Default::default()
        };
        let (w, unknown) = shape_weights(&mesh, [("Blink", 1.0), ("#0", 0.75), ("Frown", 1.0)]);
        assert_eq!(w, vec![0.75, 1.0]);
        assert_eq!(unknown, vec!["Frown".to_string()]);
        assert_eq!(
            unknown_shape_warning("Body", "Frown"),
            "dh.renderer shapes: 'Frown' is a blendshape mesh 'Body' does not have; its weight is not applied"
        );
        let q = Quat::from_rotation_x(0.5);
        let pose = Pose {
            rotations: [
                ("Head".to_string(), q),
                ("LeftHand".to_string(), q),
                ("tail_01".to_string(), q),
            ]
            .into(),
        };
        let bones: HashMap<String, String> = [("Head".to_string(), "J_Head".to_string())].into();
        let (p, unmapped) = pose.resolve_humanoid(&bones);
        assert_eq!(unmapped, vec!["LeftHand".to_string()]);
        let mut keys: Vec<&String> = p.rotations.keys().collect();
        keys.sort();
        assert_eq!(keys, ["J_Head", "tail_01"]);
    }

    /// Two bones along +Y, a clip turning the lower one: by hand, the child's world origin.
    #[test]
    fn a_clip_and_a_pose_turn_the_chain_as_worked_by_hand() {
        let mut root = Node::new("root");
        root.children = vec![1];
        let mut arm = Node::new("arm");
        arm.parent = Some(0);
        arm.local = DMat4::from_translation(glam::DVec3::new(0.0, 1.0, 0.0));
        arm.children = vec![2];
        let mut hand = Node::new("hand");
        hand.parent = Some(1);
        hand.local = DMat4::from_translation(glam::DVec3::new(0.0, 1.0, 0.0));
        let model = Model {
            nodes: vec![root, arm, hand],
            roots: vec![0],
            ..Model::default()
        };
        let sk = Skeleton::new(&model);
        let mut l = sk.rest();
        // 90° about Z on `arm` at t = 1 (keys at 0 and 2: half-way is 45°).
        let q90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let clip = Animation {
            name: "bend".into(),
            channels: vec![Channel {
                node: 1,
                path: ChannelPath::Rotation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 2.0],
                values: [Quat::IDENTITY.to_array(), q90.to_array()].concat(),
            }],
        };
        let mut w = HashMap::new();
        assert!(!sample_clip(&clip, 1.0, &mut l, &mut w));
        let world = sk.world(&l);
        // hand at arm origin (0,1,0) + (−sin45, cos45, 0).
        let h = world[2].w_axis.truncate();
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert!((h - Vec3::new(-s, 1.0 + s, 0.0)).length() < 1e-6, "{h}");
        // Then a pose of another 45° on "arm" by name: 90° in all, hand at (−1, 1, 0).
        let pose = Pose {
            rotations: [
                (
                    "arm".to_string(),
                    Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
                ),
                ("nobody".to_string(), Quat::IDENTITY),
            ]
            .into(),
        };
        assert_eq!(sk.apply_pose(&pose, &mut l), vec!["nobody".to_string()]);
        let h = sk.world(&l)[2].w_axis.truncate();
        assert!((h - Vec3::new(-1.0, 1.0, 0.0)).length() < 1e-6, "{h}");
        // Step holds the first key until the second.
        let mut step = clip.clone();
        step.channels[0].interpolation = Interpolation::Step;
        let mut l = sk.rest();
        sample_clip(&step, 1.9, &mut l, &mut w);
        assert_eq!(l[1].rotation, Quat::IDENTITY);
    }
}
