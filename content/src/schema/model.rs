//! The `.dh-model` sidecar (`robot.fbx.dh-model`): a list of edits to a model's scene
//! graph (drop, rename, transform, reparent, merge), each naming its kind and its target
//! node, or the short form `{ "drop": [...] }`, exactly one drop op per entry.
//!
//! The list is a set keyed by kind and target: a second entry for the same pair is an error
//! naming both entries. Matching targets against a scene is the model compiler's business;
//! this module reads and checks the sidecar itself.

use std::collections::HashMap;

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Kind, Span, Value};
use crate::read::{parse_source, read_block, At, Cx, FromJson, Mode, ToJson};
use crate::schema::common::Vec3;
use crate::schema::material::strip_type;

/// The `$type` a compiled sidecar carries.
pub const TYPE_ID: &str = "dh.model";

/// A node name or path as written, with where it was written (a short-form drop entry,
/// an entry of a merge's `with`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeName {
    /// The name or slash-joined path.
    pub name: String,
    /// Where it is written.
    pub span: Span,
    /// Its JSON path (`drop[2]`).
    pub path: String,
}

impl FromJson for NodeName {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a string (a node name or a slash-joined path)", v);
            return None;
        };
        Some(NodeName {
            name: s.to_string(),
            span: v.span,
            path: cx.path().to_string(),
        })
    }
}

impl ToJson for NodeName {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::String(self.name.clone()))
    }
}

/// A transform op's `scale`: one number or three.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OpScale {
    /// The same scale on every axis.
    Uniform(f64),
    /// `[x, y, z]`.
    Axes(Vec3),
}

impl Default for OpScale {
    fn default() -> Self {
        OpScale::Uniform(1.0)
    }
}

impl OpScale {
    /// The scale per axis.
    pub fn to_vec3(self) -> Vec3 {
        match self {
            OpScale::Uniform(s) => Vec3([s; 3]),
            OpScale::Axes(v) => v,
        }
    }
}

impl FromJson for OpScale {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Number(_) => f64::from_json(cx, v).map(OpScale::Uniform),
            Kind::Array(_) => Vec3::from_json(cx, v).map(OpScale::Axes),
            _ => {
                cx.expected("one number or three ([x, y, z])", v);
                None
            }
        }
    }
}

impl ToJson for OpScale {
    fn to_json(&self) -> Value {
        match self {
            OpScale::Uniform(s) => s.to_json(),
            OpScale::Axes(v) => v.to_json(),
        }
    }
}

block! {
    /// `drop`: severs the target and its whole subtree from the scene graph.
    pub struct DropOp = "drop op" {
        /// The node acted on: an exact name, or a slash-joined path from a scene root.
        req target: String = "target",
    }
}

block! {
    /// `rename`: gives the target a new node name; its subtree stays attached.
    pub struct RenameOp = "rename op" {
        /// The node acted on.
        req target: String = "target",
        /// Its new name.
        req name: String = "name",
    }
}

block! {
    /// `transform`: overrides the named components of the target's local transform, in the
    /// model's own space; components left out keep their authored value.
    pub struct TransformOp = "transform op" {
        /// The node acted on.
        req target: String = "target",
        /// Local position.
        opt position: Vec3 = "position",
        /// `[x, y, z]` degrees in DigitalHeaven's euler order.
        opt rotation: Vec3 = "rotation",
        /// One number or three.
        opt scale: OpScale = "scale",
    }
}

block! {
    /// `reparent`: moves the target under another node.
    pub struct ReparentOp = "reparent op" {
        /// The node acted on.
        req target: String = "target",
        /// Its new parent.
        req parent: String = "parent",
        /// Recompute the local transform so the geometry does not move (default `true`).
        opt keep_world_transform: bool = "keepWorldTransform",
    }
}

impl ReparentOp {
    /// `keepWorldTransform`, `true` when left out.
    pub fn keeps_world_transform(&self) -> bool {
        self.keep_world_transform.unwrap_or(true)
    }
}

block! {
    /// `merge`: folds the listed sibling nodes into the target, which survives.
    pub struct MergeOp = "merge op" {
        /// The node that survives.
        req target: String = "target",
        /// The sibling nodes folded into it.
        req with: Vec<NodeName> = "with",
    }
}

tagged! {
    /// One op of a sidecar, discriminated by `kind`.
    pub enum Op by "kind" as "sidecar op" {
        /// Severs the target's subtree.
        "drop" => Drop(DropOp),
        /// Renames the target.
        "rename" => Rename(RenameOp),
        /// Overrides parts of the target's local transform.
        "transform" => Transform(TransformOp),
        /// Moves the target under another node.
        "reparent" => Reparent(ReparentOp),
        /// Folds siblings into the target.
        "merge" => Merge(MergeOp),
    }
}

impl Op {
    /// The node the op acts on.
    pub fn target(&self) -> &str {
        match self {
            Op::Drop(o) => &o.target,
            Op::Rename(o) => &o.target,
            Op::Transform(o) => &o.target,
            Op::Reparent(o) => &o.target,
            Op::Merge(o) => &o.target,
        }
    }

    /// Where the op was read from.
    pub fn at(&self) -> &At {
        match self {
            Op::Drop(o) => &o.at,
            Op::Rename(o) => &o.at,
            Op::Transform(o) => &o.at,
            Op::Reparent(o) => &o.at,
            Op::Merge(o) => &o.at,
        }
    }

    /// Runs the rules of one op.
    pub fn validate(&self, cx: &mut Cx) {
        let at = self.at();
        if at.has("target") {
            check_node(cx, at, at.field("target"), "target", self.target());
        }
        match self {
            Op::Drop(_) => {}
            Op::Rename(o) => {
                if o.at.has("name") {
                    if o.name.is_empty() {
                        cx.error_at(
                            at,
                            at.field("name"),
                            "'name' must be a node name, found an empty string",
                        );
                    } else if o.name.contains('/') {
                        cx.error_at(
                            at,
                            at.field("name"),
                            format!(
                                "'name' \"{}\" holds '/', which joins a path; a node name cannot hold it",
                                o.name
                            ),
                        );
                    }
                }
            }
            Op::Transform(o) => {
                if o.position.is_none() && o.rotation.is_none() && o.scale.is_none() {
                    cx.warning_at(
                        at,
                        at.span,
                        format!(
                            "this transform op sets none of position, rotation, scale, so it leaves '{}' as it is",
                            o.target
                        ),
                    );
                }
                if let Some(s) = o.scale {
                    if s.to_vec3().0.contains(&0.0) {
                        cx.error_at(
                            at,
                            at.field("scale"),
                            "'scale' must not be zero on any axis",
                        );
                    }
                }
            }
            Op::Reparent(o) => {
                if o.at.has("parent") {
                    check_node(cx, at, at.field("parent"), "parent", &o.parent);
                    if !o.parent.is_empty() && o.parent == o.target {
                        cx.error_at(
                            at,
                            at.field("parent"),
                            format!("'{}' cannot be reparented under itself", o.target),
                        );
                    }
                }
            }
            Op::Merge(o) => {
                if o.at.has("with") && o.with.is_empty() {
                    cx.error_at(
                        at,
                        at.field("with"),
                        "'with' must list at least one sibling node to fold into the target",
                    );
                }
                let mut seen: Vec<&NodeName> = Vec::new();
                for n in &o.with {
                    cx.at_path(&n.path, |cx| {
                        if let Some(msg) = node_problem("with", &n.name) {
                            cx.error(n.span, msg);
                        } else if n.name == o.target {
                            cx.error(
                                n.span,
                                format!("'{}' is the merge's target; a node cannot be folded into itself", n.name),
                            );
                        } else if let Some(first) = seen.iter().find(|f| f.name == n.name) {
                            cx.error(
                                n.span,
                                format!("'with' lists '{}' twice (first at {})", n.name, first.path),
                            );
                        }
                    });
                    seen.push(n);
                }
            }
        }
    }
}

/// Why `name` is not a node name or a slash-joined path, if it is not.
fn node_problem(member: &str, name: &str) -> Option<String> {
    if name.is_empty() {
        Some(format!("'{member}' must name a node (an exact node name, or a slash-joined path from a scene root), found an empty string"))
    } else if name.split('/').any(str::is_empty) {
        Some(format!(
            "'{member}' \"{name}\" is not a node name or a slash-joined path from a scene root: it has an empty segment"
        ))
    } else {
        None
    }
}

fn check_node(cx: &mut Cx, at: &At, span: Span, member: &str, name: &str) {
    if let Some(msg) = node_problem(member, name) {
        cx.error_at(at, span, msg);
    }
}

block! {
    /// A `.dh-model` sidecar: the ops list, or the short form that only drops nodes.
    pub struct ModelSidecar = ".dh-model sidecar" {
        /// The edits, each naming its kind and its target.
        list ops: Op = "ops",
        /// The short form: exactly one drop op per entry.
        list drop: NodeName = "drop",
    }
}

impl ModelSidecar {
    /// Every op the sidecar states, the short form's entries as drop ops, in written order.
    pub fn all_ops(&self) -> Vec<Op> {
        let mut out = self.ops.clone();
        out.extend(self.drop.iter().map(|n| {
            Op::Drop(DropOp {
                target: n.name.clone(),
                at: At {
                    span: n.span,
                    path: n.path.clone(),
                    fields: vec![("target", n.span)],
                },
            })
        }));
        out
    }

    /// Runs the sidecar's rules: each op's own, the short form used alone, and no two
    /// entries for the same (kind, target) pair.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if at.has("ops") && at.has("drop") {
            cx.error_at(
                at,
                at.field("drop"),
                "a sidecar states either 'ops' or the short form 'drop', not both; write these drops as { \"kind\": \"drop\", \"target\": ... } entries of 'ops'",
            );
        }
        for op in &self.ops {
            op.validate(cx);
        }
        for n in &self.drop {
            if let Some(msg) = node_problem("drop", &n.name) {
                cx.at_path(&n.path, |cx| cx.error(n.span, msg));
            }
        }
        let mut first: HashMap<(&str, String), (String, Span)> = HashMap::new();
        for op in self.all_ops() {
            let a = op.at();
            if op.target().is_empty() {
                continue;
            }
            let key = (kind_of(&op), op.target().to_string());
            match first.get(&key) {
                Some((path, span)) => {
                    let (line, col) = cx.file.line_col(span.start);
                    let msg = format!(
                        "{} and {} (line {line}, column {col}) are both a '{}' op on '{}'; the ops list is a set keyed by kind and target, so keep one entry",
                        a.path, path, key.0, key.1
                    );
                    cx.error_at(a, a.span, msg);
                }
                None => {
                    first.insert(key, (a.path.clone(), a.span));
                }
            }
        }
    }
}

fn kind_of(op: &Op) -> &'static str {
    match op {
        Op::Drop(_) => "drop",
        Op::Rename(_) => "rename",
        Op::Transform(_) => "transform",
        Op::Reparent(_) => "reparent",
        Op::Merge(_) => "merge",
    }
}

/// Reads and validates a `.dh-model` sidecar (an optional `$type` must be `dh.model`).
pub fn read_model_sidecar(
    file: &SourceFile,
    diags: &mut Diagnostics,
    mode: Mode,
) -> Option<ModelSidecar> {
    let v = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let v = strip_type(&mut cx, v, TYPE_ID)?;
    let s = read_block::<ModelSidecar>(&mut cx, &v)?;
    s.validate(&mut cx);
    Some(s)
}
