//! The `.dh-model` sidecar applied to an imported model, before any other compile-time
//! pass sees it (spec: dh.object, "Sidecar Files"): drop, rename, transform, reparent
//! (`keepWorldTransform`, default true) and merge.
//!
//! Every target (and a reparent's `parent`, a merge's `with`) is matched against the
//! scene as exported, before any op runs: an exact, case-sensitive node name, or a
//! slash-joined path from a scene root (the part path, Blender-style, or the raw names).
//! A target that matches nothing is a warning naming the entry and the closest existing
//! path; a bare name matching more than one node is an error naming every match; a merge
//! whose nodes do not all draw with the same material is an error. Any error abandons the
//! whole sidecar: the model is left exactly as imported.
//!
//! The ops then run kind by kind — transforms, reparents, merges, renames, drops — so a
//! transform is in the node's authored parent space and a reparent keeps that result's
//! world pose.

use std::collections::BTreeSet;

use glam::{DMat3, DMat4, DVec3};

use super::{Mesh, Model};
use crate::diag::Severity;
use crate::jsonc::Span;
use crate::math;
use crate::schema::model::{ModelSidecar, Op};

/// One diagnostic of a sidecar application, located in the sidecar's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarDiag {
    /// Error (the sidecar is abandoned) or warning.
    pub severity: Severity,
    /// The entry's JSON path (`ops[2]`, `drop[0]`, `ops[4].with[1]`).
    pub path: String,
    /// Where the entry is written.
    pub span: Span,
    /// The message.
    pub message: String,
}

/// What applying a sidecar did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SidecarOutcome {
    /// Whether the ops were applied (false when any error abandoned the sidecar).
    pub applied: bool,
    /// Every warning and error, in op order.
    pub diags: Vec<SidecarDiag>,
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

struct Names {
    /// Blender-style part paths.
    paths: Vec<String>,
    /// Raw names joined by `/`.
    raw: Vec<String>,
}

enum Found {
    One(usize),
    None,
    Many(Vec<usize>),
}

impl Names {
    fn of(model: &Model) -> Names {
        let paths = model.node_paths();
        let mut raw = vec![String::new(); model.nodes.len()];
        for n in model.traversal() {
            raw[n] = match model.nodes[n].parent {
                Some(p) => format!("{}/{}", raw[p], model.nodes[n].name),
                None => model.nodes[n].name.clone(),
            };
        }
        Names { paths, raw }
    }

    fn find(&self, model: &Model, target: &str) -> Found {
        let pick = |v: Vec<usize>| match v.len() {
            0 => Found::None,
            1 => Found::One(v[0]),
            _ => Found::Many(v),
        };
        let order = model.traversal();
        if target.contains('/') {
            let by_path: Vec<usize> = order
                .iter()
                .copied()
                .filter(|n| self.paths[*n] == target)
                .collect();
            if !by_path.is_empty() {
                return pick(by_path);
            }
            return pick(
                order
                    .iter()
                    .copied()
                    .filter(|n| self.raw[*n] == target)
                    .collect(),
            );
        }
        let by_name: Vec<usize> = order
            .iter()
            .copied()
            .filter(|n| model.nodes[*n].name == target)
            .collect();
        if !by_name.is_empty() {
            return pick(by_name);
        }
        // A Blender-style sibling name (`wall.001`) as a bare name.
        pick(
            order
                .iter()
                .copied()
                .filter(|n| self.paths[*n].rsplit('/').next() == Some(target))
                .collect(),
        )
    }

    fn closest(&self, target: &str) -> Option<&str> {
        self.paths
            .iter()
            .filter(|p| !p.is_empty())
            .min_by_key(|p| {
                let leaf = p.rsplit('/').next().unwrap_or(p);
                levenshtein(target, p).min(levenshtein(target, leaf))
            })
            .map(String::as_str)
    }
}

fn kind_name(op: &Op) -> &'static str {
    match op {
        Op::Drop(_) => "drop",
        Op::Rename(_) => "rename",
        Op::Transform(_) => "transform",
        Op::Reparent(_) => "reparent",
        Op::Merge(_) => "merge",
    }
}

fn is_ancestor(model: &Model, a: usize, mut n: usize) -> bool {
    while let Some(p) = model.nodes[n].parent {
        if p == a {
            return true;
        }
        n = p;
    }
    false
}

fn detach(model: &mut Model, n: usize) {
    match model.nodes[n].parent.take() {
        Some(p) => model.nodes[p].children.retain(|c| *c != n),
        None => model.roots.retain(|r| *r != n),
    }
}

fn attach(model: &mut Model, n: usize, parent: usize) {
    model.nodes[n].parent = Some(parent);
    model.nodes[parent].children.push(n);
}

fn world(model: &Model, n: usize) -> DMat4 {
    let mut m = model.nodes[n].local;
    let mut cur = n;
    while let Some(p) = model.nodes[cur].parent {
        m = math::mul(&model.nodes[p].local, &m);
        cur = p;
    }
    m
}

/// The materials a node's primitives draw (`None` for a primitive with none).
fn node_materials(model: &Model, n: usize) -> BTreeSet<Option<String>> {
    model.nodes[n]
        .mesh
        .and_then(|m| model.meshes.get(m))
        .map(|m| m.primitives.iter().map(|p| p.material.clone()).collect())
        .unwrap_or_default()
}

/// Applies `sidecar` to `model`. On any error nothing is changed and
/// [`SidecarOutcome::applied`] is false.
pub fn apply_sidecar(model: &mut Model, sidecar: &ModelSidecar) -> SidecarOutcome {
    let mut out = SidecarOutcome::default();
    let ops = sidecar.all_ops();
    let names = Names::of(model);
    let diag = |out: &mut SidecarOutcome, severity, path: &str, span, message: String| {
        out.diags.push(SidecarDiag {
            severity,
            path: path.to_string(),
            span,
            message,
        })
    };
    // Resolve every name first, against the scene as exported.
    let resolve = |out: &mut SidecarOutcome,
                   path: &str,
                   span: Span,
                   what: &str,
                   name: &str|
     -> Option<usize> {
        match names.find(model, name) {
            Found::One(n) => Some(n),
            Found::Many(v) => {
                let list: Vec<String> =
                    v.iter().map(|n| format!("'{}'", names.paths[*n])).collect();
                out.diags.push(SidecarDiag {
                    severity: Severity::Error,
                    path: path.to_string(),
                    span,
                    message: format!(
                        "{what} '{name}' matches {} nodes: {}; write the slash-joined path of the one meant",
                        v.len(),
                        list.join(", ")
                    ),
                });
                None
            }
            Found::None => {
                let hint = match names.closest(name) {
                    Some(c) => format!("; the closest existing path is '{c}'"),
                    None => "; the model has no nodes".to_string(),
                };
                out.diags.push(SidecarDiag {
                    severity: Severity::Warning,
                    path: path.to_string(),
                    span,
                    message: format!(
                        "{what} '{name}' matches no node, so this entry does nothing{hint}"
                    ),
                });
                None
            }
        }
    };

    struct Plan {
        op: Op,
        target: usize,
        parent: Option<usize>,
        with: Vec<usize>,
    }
    let mut plans = Vec::new();
    for op in ops {
        let at = op.at().clone();
        let kind = kind_name(&op);
        let Some(target) = resolve(
            &mut out,
            &at.path,
            at.field("target"),
            &format!("the {kind} op's target"),
            op.target(),
        ) else {
            continue;
        };
        let mut plan = Plan {
            op: op.clone(),
            target,
            parent: None,
            with: Vec::new(),
        };
        match &op {
            Op::Reparent(r) => {
                let Some(p) = resolve(
                    &mut out,
                    &at.path,
                    at.field("parent"),
                    "the reparent op's parent",
                    &r.parent,
                ) else {
                    continue;
                };
                if p == target || is_ancestor(model, target, p) {
                    diag(
                        &mut out,
                        Severity::Error,
                        &at.path,
                        at.field("parent"),
                        format!(
                            "'{}' cannot be reparented under '{}', which is itself or inside its subtree",
                            names.paths[target], names.paths[p]
                        ),
                    );
                    continue;
                }
                plan.parent = Some(p);
            }
            Op::Merge(m) => {
                for w in &m.with {
                    let Some(n) = resolve(
                        &mut out,
                        &w.path,
                        w.span,
                        "the merge's 'with' entry",
                        &w.name,
                    ) else {
                        continue;
                    };
                    if n == target || is_ancestor(model, n, target) || is_ancestor(model, target, n)
                    {
                        diag(
                            &mut out,
                            Severity::Error,
                            &w.path,
                            w.span,
                            format!(
                                "'{}' cannot be folded into '{}': one holds the other",
                                names.paths[n], names.paths[target]
                            ),
                        );
                        continue;
                    }
                    if !plan.with.contains(&n) {
                        plan.with.push(n);
                    }
                }
                let mut mats = node_materials(model, target);
                for w in &plan.with {
                    mats.extend(node_materials(model, *w));
                }
                if mats.len() > 1 {
                    let list: Vec<String> = mats
                        .iter()
                        .map(|m| match m {
                            Some(s) => format!("'{s}'"),
                            None => "no material".to_string(),
                        })
                        .collect();
                    diag(
                        &mut out,
                        Severity::Error,
                        &at.path,
                        at.span,
                        format!(
                            "the merge into '{}' draws {} materials ({}); a merge's nodes must all draw with the same material",
                            names.paths[target],
                            mats.len(),
                            list.join(", ")
                        ),
                    );
                }
            }
            _ => {}
        }
        plans.push(plan);
    }
    // A node folded by two merges.
    let mut folded: Vec<(usize, String)> = Vec::new();
    for p in &plans {
        for w in &p.with {
            if let Some((_, first)) = folded.iter().find(|(n, _)| n == w) {
                let at = p.op.at();
                let msg = format!(
                    "'{}' is folded by two merges ({first} and {}); keep it in one",
                    names.paths[*w], at.path
                );
                diag(&mut out, Severity::Error, &at.path, at.span, msg);
            } else {
                folded.push((*w, p.op.at().path.clone()));
            }
        }
    }
    if out.diags.iter().any(|d| d.severity == Severity::Error) {
        return out;
    }

    let mut m = model.clone();
    let rank = |op: &Op| match op {
        Op::Transform(_) => 0,
        Op::Reparent(_) => 1,
        Op::Merge(_) => 2,
        Op::Rename(_) => 3,
        Op::Drop(_) => 4,
    };
    plans.sort_by_key(|p| rank(&p.op));
    let mut gone = vec![false; m.nodes.len()];
    for p in &plans {
        let at = p.op.at();
        if gone[p.target] {
            diag(
                &mut out,
                Severity::Warning,
                &at.path,
                at.span,
                format!(
                    "'{}' was folded into another node by a merge, so this {} op does nothing",
                    names.paths[p.target],
                    kind_name(&p.op)
                ),
            );
            continue;
        }
        match &p.op {
            Op::Transform(t) => {
                let d = math::decompose(&m.nodes[p.target].local);
                let tr = t.position.map_or(d.translation, |v| DVec3::from_array(v.0));
                let rot = t.rotation.map_or(d.rotation, |v| {
                    math::quat_from_euler_degrees(DVec3::from_array(v.0))
                });
                let sc = t
                    .scale
                    .map_or(d.scale, |s| DVec3::from_array(s.to_vec3().0));
                m.nodes[p.target].local = math::from_trs(tr, rot, sc);
            }
            Op::Reparent(r) => {
                let Some(parent) = p.parent else { continue };
                let w = world(&m, p.target);
                detach(&mut m, p.target);
                attach(&mut m, p.target, parent);
                if r.keeps_world_transform() {
                    match math::inverse(&world(&m, parent)) {
                        Some(inv) => m.nodes[p.target].local = math::mul(&inv, &w),
                        None => {
                            diag(
                                &mut out,
                                Severity::Error,
                                &at.path,
                                at.field("parent"),
                                format!(
                                    "'{}' has a zero scale axis, so nothing under it can keep its world pose; set keepWorldTransform: false or pick another parent",
                                    names.paths[parent]
                                ),
                            );
                            return SidecarOutcome {
                                applied: false,
                                diags: out.diags,
                            };
                        }
                    }
                }
            }
            Op::Merge(_) => {
                let tw = world(&m, p.target);
                let Some(inv) = math::inverse(&tw) else {
                    diag(
                        &mut out,
                        Severity::Error,
                        &at.path,
                        at.field("target"),
                        format!(
                            "'{}' has a zero scale axis, so nothing can be folded into its space",
                            names.paths[p.target]
                        ),
                    );
                    return SidecarOutcome {
                        applied: false,
                        diags: out.diags,
                    };
                };
                let mut mesh = match m.nodes[p.target].mesh.and_then(|i| m.meshes.get(i)) {
                    Some(x) => x.clone(),
                    None => Mesh {
                        name: m.nodes[p.target].name.clone(),
                        ..Mesh::default()
                    },
                };
                for w in &p.with {
                    let into = math::mul(&inv, &world(&m, *w));
                    if let Some(src) = m.nodes[*w].mesh.and_then(|i| m.meshes.get(i)) {
                        for prim in &src.primitives {
                            mesh.primitives.push(transform_primitive(prim, &into));
                        }
                    }
                    let kids = m.nodes[*w].children.clone();
                    for c in kids {
                        let cw = world(&m, c);
                        detach(&mut m, c);
                        attach(&mut m, c, p.target);
                        m.nodes[c].local = math::mul(&inv, &cw);
                    }
                    detach(&mut m, *w);
                    gone[*w] = true;
                }
                m.meshes.push(mesh);
                m.nodes[p.target].mesh = Some(m.meshes.len() - 1);
                m.nodes[p.target].source_mesh = None;
            }
            Op::Rename(r) => m.nodes[p.target].name = r.name.clone(),
            Op::Drop(_) => detach(&mut m, p.target),
        }
    }
    m.compact();
    *model = m;
    out.applied = true;
    out
}

/// A primitive carried by `m` (positions, normals by the inverse transpose, tangents by
/// the linear part; a mirroring `m` flips the tangents' handedness and the winding).
fn transform_primitive(p: &super::Primitive, m: &DMat4) -> super::Primitive {
    // Normals go by the inverse transpose of the linear part.
    let nm = math::inverse(m).map_or(*m, |inv| {
        DMat4::from_mat3(DMat3::from_mat4(inv).transpose())
    });
    let det = {
        let (x, y, z) = (
            m.x_axis.truncate(),
            m.y_axis.truncate(),
            m.z_axis.truncate(),
        );
        x.dot(y.cross(z))
    };
    let mut out = p.clone();
    for v in out.vertices.iter_mut() {
        let f = |a: [f32; 3]| DVec3::from_array(a.map(f64::from));
        v.position = m.transform_point3(f(v.position)).as_vec3().to_array();
        let n = super::tangent::unit_normal(nm.transform_vector3(f(v.normal)).as_vec3().to_array());
        v.normal = n;
        let t = m
            .transform_vector3(f([v.tangent[0], v.tangent[1], v.tangent[2]]))
            .as_vec3()
            .to_array();
        let t = super::tangent::orthonormal_tangent(n, t);
        let w = if det < 0.0 {
            -v.tangent[3]
        } else {
            v.tangent[3]
        };
        v.tangent = [t[0], t[1], t[2], w];
    }
    if det < 0.0 {
        for tri in out.indices.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
    out
}
