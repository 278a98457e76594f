//! The `dh.object` source (`.dh-obj`): the model an object places, the components its
//! root carries, overrides of the model's parts (`children`), the records it adds of its
//! own (`objects`), variants (`inherits`), and the compiled object's `resolved` member.
//!
//! [`read_object`] reads a source's shape (closed field sets, tokens, required members);
//! [`validate_object`] runs the build-time rules on what was read.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostics, Severity, SourceFile};
use crate::jsonc::{Kind, Span, Value};
use crate::read::{At, Cx, FromJson, Mode, ToJson};
use crate::schema::common::{Guid, Vec3};
use crate::schema::components::logic::{check_bodies, Body};
use crate::schema::components::{ComponentCx, MapComponent};
use crate::schema::object_components::{
    validate_components, Layer, ObjectComponent, Owner, OwnerCx,
};

/// The type id a compiled object's `$type` states.
pub const OBJECT_TYPE: &str = "dh.object";

/// The type id a compiled avatar's `$type` states: `dh.avatar` extends dh.object (spec
/// 001 line 8) and is read by the same schema.
pub const AVATAR_TYPE: &str = "dh.avatar";

/// What a `.dh-avatar` member dh.object does not have is told beside the closed-field
/// error: the spec says dh.avatar extends dh.object (001 line 8) but defines no member of
/// its own, so it takes dh.object's members alone until it does.
pub const AVATAR_MEMBERS_DEFERRED: &str = "dh.avatar extends dh.object, and the members it adds of its own are not defined by the spec yet, so an avatar takes dh.object's members alone";

/// The longest an added record's id may be.
pub const MAX_RECORD_ID_LEN: usize = 64;

/// A scale: one number for a uniform scale, or `[x, y, z]`. Written back the way it was
/// written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// One number, the same on every axis.
    Uniform(f64),
    /// Per axis.
    Axes(Vec3),
}

impl Scale {
    /// The scale per axis.
    pub fn axes(&self) -> Vec3 {
        match *self {
            Scale::Uniform(s) => Vec3([s; 3]),
            Scale::Axes(v) => v,
        }
    }
}

impl FromJson for Scale {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Number(n) if n.is_finite() => Some(Scale::Uniform(*n)),
            Kind::Array(_) => Vec3::from_json(cx, v).map(Scale::Axes),
            _ => {
                cx.expected("a number or an array of exactly three numbers", v);
                None
            }
        }
    }
}

impl ToJson for Scale {
    fn to_json(&self) -> Value {
        match self {
            Scale::Uniform(s) => s.to_json(),
            Scale::Axes(v) => v.to_json(),
        }
    }
}

tokens! {
    /// The record type an object adds: only `instance`.
    pub enum AddedRecordType as "record type an object adds" {
        /// An instance of another object, avatar or model.
        #[default]
        Instance = "instance",
    }
}

block! {
    /// One entry of `children`: an override of one of the model's parts, stating only what
    /// departs.
    pub struct PartOverride = "part override" {
        /// The part's path in the model, as exported (`Armature/Hips/Spine`).
        req path: String = "path",
        /// The part's recorded id, where an editor wrote one.
        opt id: Guid = "id",
        /// A display name shown in place of the model's node name.
        opt name: String = "name",
        /// The path of another part to file this one under, `""` for the object's root.
        opt parent: String = "parent",
        /// With `parent`: the part becomes its new parent's first child.
        opt first: bool = "first",
        /// The part's local position.
        opt position: Vec3 = "position",
        /// The part's local rotation, euler degrees.
        opt rotation: Vec3 = "rotation",
        /// The part's local scale; one number is uniform.
        opt scale: Scale = "scale",
        /// Whether the part is in the world.
        opt enabled: bool = "enabled",
        /// Whether the part is baked into GI and lightmaps.
        opt is_static: bool = "static",
        /// `true` drops the part and its subtree.
        opt removed: bool = "removed",
        /// The part's components.
        list components: ObjectComponent = "components",
    }
}

block! {
    /// One entry of `objects`: a record the object adds, an instance of another object,
    /// avatar or model, filed under one of its parts. It keeps its source's barcode.
    pub struct AddedRecord = "added record" {
        /// The record type; `instance` is the only one an object adds.
        opt record_type: AddedRecordType = "$type",
        /// The record's minted id: camelCase, at most 64 characters, unique among the
        /// object's records.
        req id: String = "id",
        /// The record's display name.
        opt name: String = "name",
        /// What it places: a `.dh-obj`, a `.dh-avatar`, or a `.glb` / `.fbx`.
        opt source: String = "source",
        /// The path of the part it is filed under; unset is the object's root.
        opt parent: String = "parent",
        /// Its local position.
        opt position: Vec3 = "position",
        /// Its local rotation.
        opt rotation: Vec3 = "rotation",
        /// Its local scale.
        opt scale: Vec3 = "scale",
        /// Components on its root, over its source's.
        list components: ObjectComponent = "components",
        /// Overrides of its source's parts.
        list children: PartOverride = "children",
        /// `true` removes an inherited record.
        opt removed: bool = "removed",
    }
}

block! {
    /// A `dh.object` (`.dh-obj`): a saved instance, the model it places, the components its
    /// root carries, overrides of the model's parts and the records it adds.
    pub struct DhObject = "dh.object" {
        /// `"dh.object"`; inferred from the extension in a source, added by the compiler.
        opt type_id: String = "$type",
        /// Display name.
        opt name: String = "name",
        /// Description.
        opt description: String = "description",
        /// The model whose parts are this object's children: a `.glb` or `.fbx`.
        opt model: String = "model",
        /// Barcode of the object this file varies; everything else is then an override.
        opt inherits: String = "inherits",
        /// The root's own position.
        opt position: Vec3 = "position",
        /// The root's own rotation.
        opt rotation: Vec3 = "rotation",
        /// The root's own scale; one number is uniform.
        opt scale: Scale = "scale",
        /// Whether the object is baked into GI and lightmaps and stands still. Unset
        /// inherits, then `true`.
        opt is_static: bool = "static",
        /// The root's components.
        list components: ObjectComponent = "components",
        /// Overrides of the model's parts, only the departures.
        list children: PartOverride = "children",
        /// Records the object adds.
        list objects: AddedRecord = "objects",
        /// The whole object as the compiler resolved it (inheritance and added records
        /// included, every reference a barcode). Compiled output only; a source never
        /// states it.
        opt resolved: Box<DhObject> = "resolved",
    }
}

impl DhObject {
    /// `static`, default `true`.
    pub fn is_static_or_default(&self) -> bool {
        self.is_static.unwrap_or(true)
    }

    /// Whether this file is a variant of another object (it states `inherits`).
    pub fn is_variant(&self) -> bool {
        self.inherits.is_some()
    }
}

/// Reads a `.dh-obj` source (or a compiled object, in [`Mode::Load`]): its shape only.
/// Run [`validate_object`] on the result for the build-time rules.
pub fn read_object(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<DhObject> {
    let value = crate::read::parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    DhObject::from_json(&mut cx, &value)
}

/// Whether `s` ends with one of `exts` (compared without regard to case).
fn has_extension(s: &str, exts: &[&str]) -> bool {
    let lower = s.to_ascii_lowercase();
    exts.iter().any(|e| lower.ends_with(e))
}

const MODEL_EXTENSIONS: &[&str] = &[".glb", ".fbx"];
const OBJECT_EXTENSIONS: &[&str] = &[".dh-obj", ".dh-avatar"];
const SOURCE_EXTENSIONS: &[&str] = &[".dh-obj", ".dh-avatar", ".glb", ".fbx"];

fn check_zero_scale(cx: &mut Cx, at: &At, scale: Option<Vec3>) {
    if let Some(s) = scale {
        if s.0.contains(&0.0) {
            cx.error_at(
                at,
                at.field("scale"),
                format!(
                    "'scale' [{}, {}, {}] has a zero axis: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted",
                    s.x(),
                    s.y(),
                    s.z()
                ),
            );
        }
    }
}

/// Runs every build-time rule of an object read by [`read_object`].
pub fn validate_object(cx: &mut Cx, obj: &DhObject) {
    validate_object_as(cx, obj, OBJECT_TYPE);
}

/// [`validate_object`] for a file whose type is `type_id`: [`OBJECT_TYPE`] for a
/// `.dh-obj`, [`AVATAR_TYPE`] for a `.dh-avatar` (the `$type` it may state).
pub fn validate_object_as(cx: &mut Cx, obj: &DhObject, type_id: &str) {
    validate_object_inner(cx, obj, false, type_id);
    if cx.mode == Mode::Load {
        warn_unknown_components(cx, obj);
    }
}

fn validate_object_inner(cx: &mut Cx, obj: &DhObject, is_resolved: bool, type_id: &str) {
    let at = &obj.at;
    if let Some(t) = &obj.type_id {
        if t != type_id {
            cx.error_at(
                at,
                at.field("$type"),
                format!("'$type' is '{t}', but this is a '{type_id}'"),
            );
        }
    }
    if let Some(resolved) = &obj.resolved {
        if cx.mode == Mode::Build {
            cx.error_at(
                at,
                at.field("resolved"),
                "a source never states 'resolved': the compiler adds it, holding the whole object as it resolved it",
            );
        } else {
            validate_object_inner(cx, resolved, true, type_id);
        }
    }
    if is_resolved && obj.inherits.is_some() {
        cx.error_at(
            at,
            at.field("inherits"),
            "a resolved object has its inheritance folded in: it states no 'inherits'",
        );
    }
    if let Some(m) = &obj.model {
        if !has_extension(m, MODEL_EXTENSIONS) {
            cx.error_at(
                at,
                at.field("model"),
                format!("'model' names '{m}', which is not a model: a model is a .glb or .fbx"),
            );
        }
    }
    if let Some(i) = &obj.inherits {
        if !has_extension(i, OBJECT_EXTENSIONS) {
            cx.error_at(
                at,
                at.field("inherits"),
                format!(
                    "'inherits' names '{i}', which is not an object: a variant inherits a .dh-obj or .dh-avatar"
                ),
            );
        }
    }
    // The root's own transform is ordinary data (spec 001 line 18: "`position`,
    // `rotation`, `scale` ... The root's own transform"): a placement lays its own
    // transform over it member by member by the one merge rule (001 lines 58-62), so it
    // is neither refused nor warned on.
    check_zero_scale(cx, at, obj.scale.map(|s| s.axes()));

    let layer = if obj.is_variant() {
        Layer::Override
    } else {
        Layer::Base
    };
    validate_root(cx, &obj.components, layer, "object root", at, "components");
    validate_children(cx, &obj.children, layer);
    validate_records(cx, &obj.objects, layer);
}

/// The rules of a root's components (the object's own, or an added record's): the
/// owner's list rules, and on a base layer the body rules: a button, a plate or a
/// physics prop needs its body (the root's dh.collider holding exactly one box shape,
/// or the compiler's box over its dh.box); a mover may have none, since the placement
/// gives it something to carry; and a physics prop's own body rules.
fn validate_root(
    cx: &mut Cx,
    components: &[ObjectComponent],
    layer: Layer,
    label: &str,
    owner_at: &At,
    member: &str,
) {
    let ocx = OwnerCx {
        owner: Owner::Root,
        layer,
        has_skeleton: has_skeleton(components),
        label: label.to_string(),
    };
    cx.at_path(&owner_at.field_path(member), |cx| {
        validate_components(cx, &ocx, components)
    });
    if layer == Layer::Override {
        return;
    }
    let live: Vec<&ObjectComponent> = components.iter().filter(|c| !c.is_removed()).collect();
    let map_list: Vec<MapComponent> = live
        .iter()
        .filter_map(|c| match c {
            ObjectComponent::Box(b) => Some(MapComponent::Box(b.inner.clone())),
            ObjectComponent::Collider(b) => Some(MapComponent::Collider(b.inner.clone())),
            ObjectComponent::PhysicsProp(b) => Some(MapComponent::PhysicsProp(b.inner.clone())),
            ObjectComponent::Mover(b) => Some(MapComponent::Mover(b.inner.clone())),
            ObjectComponent::Button(b) => Some(MapComponent::Button(b.inner.clone())),
            ObjectComponent::PressurePlate(b) => Some(MapComponent::PressurePlate(b.inner.clone())),
            _ => None,
        })
        .collect();
    let body = Body::of(&map_list);
    let logic: Vec<(&str, &At)> = live
        .iter()
        .filter_map(|c| match c {
            ObjectComponent::Mover(b) => Some(("dh.mover", &b.at)),
            ObjectComponent::Button(b) => Some(("dh.button", &b.at)),
            ObjectComponent::PressurePlate(b) => Some(("dh.pressurePlate", &b.at)),
            _ => None,
        })
        .collect();
    // A mover with no body is allowed on an object: the placement gives it something to
    // carry.
    check_bodies(cx, &body, &logic, true);
    let ccx = ComponentCx {
        record_kind: "object".to_string(),
        ..Default::default()
    };
    for c in &map_list {
        if let MapComponent::PhysicsProp(p) = c {
            p.validate_owner(cx, &ccx, &map_list);
        }
    }
}

fn has_skeleton(components: &[ObjectComponent]) -> bool {
    components
        .iter()
        .any(|c| matches!(c, ObjectComponent::Skeleton(_)) && !c.is_removed())
}

/// The parent of a part path in the model (`"A/B"` for `"A/B/C"`, `""` at the top).
fn model_parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

/// The rules of a `children` list: a path naming a part, one override per part and per
/// id, no all-zero id, `first` only with `parent`, no part filed under itself or its own
/// subtree (a parent chain that loops), no zero scale axis, and each part's components.
fn validate_children(cx: &mut Cx, children: &[PartOverride], layer: Layer) {
    let mut paths: HashMap<&str, usize> = HashMap::new();
    let mut ids: HashMap<Guid, usize> = HashMap::new();
    for (i, c) in children.iter().enumerate() {
        let at = &c.at;
        if c.path.is_empty() && at.has("path") {
            cx.error_at(
                at,
                at.field("path"),
                "a part override's 'path' names a part; \"\" is the object's root, which the object's own members override",
            );
        }
        if !c.path.is_empty() {
            if let Some(first) = paths.insert(c.path.as_str(), i) {
                paths.insert(c.path.as_str(), first);
                cx.error_at(
                    at,
                    at.field("path"),
                    format!(
                        "children[{first}] already overrides the part '{}': children holds one entry per part",
                        c.path
                    ),
                );
            }
        }
        if let Some(id) = c.id {
            if id.is_nil() {
                cx.error_at(
                    at,
                    at.field("id"),
                    format!(
                        "a part's id must not be the all-zeros Guid; a fresh one to paste: {}",
                        Guid::mint()
                    ),
                );
            } else if let Some(first) = ids.get(&id) {
                cx.error_at(
                    at,
                    at.field("id"),
                    format!("children[{first}] already names the part id {id}: a part has one id"),
                );
            } else {
                ids.insert(id, i);
            }
        }
        if c.first.is_some() && c.parent.is_none() {
            cx.error_at(
                at,
                at.field("first"),
                "'first' acts only with 'parent': it makes the part its new parent's first child",
            );
        }
        if let Some(p) = &c.parent {
            if *p == c.path && !p.is_empty() {
                cx.error_at(
                    at,
                    at.field("parent"),
                    format!("the part '{p}' cannot be filed under itself"),
                );
            }
        }
        check_zero_scale(cx, at, c.scale.map(|s| s.axes()));
        let ocx = OwnerCx {
            owner: Owner::Part,
            layer,
            has_skeleton: has_skeleton(&c.components),
            label: format!("part '{}'", c.path),
        };
        cx.at_path(&at.field_path("components"), |cx| {
            validate_components(cx, &ocx, &c.components)
        });
    }
    // Loops: follow each part's parent (its override's, else the model's) up to the root.
    let parent_of: HashMap<&str, &str> = children
        .iter()
        .filter_map(|c| c.parent.as_deref().map(|p| (c.path.as_str(), p)))
        .collect();
    for c in children {
        let Some(p) = c.parent.as_deref() else {
            continue;
        };
        if p == c.path {
            continue; // reported above
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut cur = p;
        while !cur.is_empty() && seen.insert(cur) {
            if cur == c.path {
                cx.error_at(
                    &c.at,
                    c.at.field("parent"),
                    format!(
                        "filing the part '{}' under '{p}' makes a parent chain that loops: '{p}' lies under '{}'",
                        c.path, c.path
                    ),
                );
                break;
            }
            cur = parent_of
                .get(cur)
                .copied()
                .unwrap_or_else(|| model_parent(cur));
        }
    }
}

/// The rules of an `objects` list: a camelCase id of at most 64 characters, unique among
/// the object's records; a source (`.dh-obj`, `.dh-avatar`, `.glb` or `.fbx`), which a
/// variant's record may leave to the inherited record it overrides; `removed` only where
/// there is an inherited record to remove; and each record's components and children,
/// which are a layer over its source's.
fn validate_records(cx: &mut Cx, records: &[AddedRecord], layer: Layer) {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let at = &r.at;
        if at.has("id") {
            if !crate::schema::object_components::is_camel_case(&r.id) {
                cx.error_at(
                    at,
                    at.field("id"),
                    format!(
                        "'{}' is not a camelCase id: an added record's id starts with a lowercase letter and holds only letters and digits",
                        r.id
                    ),
                );
            }
            let len = r.id.chars().count();
            if len > MAX_RECORD_ID_LEN {
                cx.error_at(
                    at,
                    at.field("id"),
                    format!(
                        "an added record's id is at most {MAX_RECORD_ID_LEN} characters; '{}' has {len}",
                        r.id
                    ),
                );
            }
            if let Some(first) = ids.get(r.id.as_str()) {
                cx.error_at(
                    at,
                    at.field("id"),
                    format!(
                        "objects[{first}] already has the id '{}': an id is unique among the object's records",
                        r.id
                    ),
                );
            } else {
                ids.insert(r.id.as_str(), i);
            }
        }
        let removes = r.removed == Some(true);
        if removes && layer == Layer::Base {
            cx.error_at(
                at,
                at.field("removed"),
                "'removed' removes an inherited record, and this object inherits none (it states no 'inherits')",
            );
        }
        match &r.source {
            Some(s) if !has_extension(s, SOURCE_EXTENSIONS) => cx.error_at(
                at,
                at.field("source"),
                format!(
                    "'source' names '{s}': an added record places a .dh-obj, a .dh-avatar, or a .glb / .fbx model"
                ),
            ),
            Some(_) => {}
            None if layer == Layer::Base && !removes => cx.error_at(
                at,
                at.span,
                "added record is missing its required member 'source'",
            ),
            None => {}
        }
        check_zero_scale(cx, at, r.scale);
        validate_root(
            cx,
            &r.components,
            Layer::Override,
            &format!("added record '{}'", r.id),
            at,
            "components",
        );
        validate_children(cx, &r.children, Layer::Override);
    }
}

/// At load, an unknown component is kept whole and the loader says so once per type:
/// `'dh.example' is not a component this build knows; skipped.`
fn warn_unknown_components(cx: &mut Cx, obj: &DhObject) {
    fn collect<'a>(obj: &'a DhObject, lists: &mut Vec<&'a [ObjectComponent]>) {
        lists.push(&obj.components);
        for c in &obj.children {
            lists.push(&c.components);
        }
        for r in &obj.objects {
            lists.push(&r.components);
            for c in &r.children {
                lists.push(&c.components);
            }
        }
        if let Some(resolved) = &obj.resolved {
            collect(resolved, lists);
        }
    }
    let mut lists: Vec<&[ObjectComponent]> = Vec::new();
    collect(obj, &mut lists);
    let mut warned: HashSet<String> = HashSet::new();
    for comp in lists.into_iter().flatten() {
        if let ObjectComponent::Unknown(v) = comp {
            let tag = comp.tag().to_string();
            if warned.insert(tag.clone()) {
                cx.warning(
                    v.span,
                    format!("'{tag}' is not a component this build knows; skipped."),
                );
            }
        }
    }
}

/// A rule the resolved object breaks, located in the source of the object being built.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedProblem {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the object's own source (its component that takes part).
    pub span: Span,
    /// The JSON path there (`components[2]`, `children[0].components[1]`).
    pub path: String,
    /// The message.
    pub message: String,
}

/// The rules held against an object's whole inherits chain, run on its `resolved` member
/// (every layer merged by the one merge rule): each root `dh.springCollider` as resolved
/// ([`SpringCollider::validate_resolved`](crate::schema::object_components::SpringCollider::validate_resolved):
/// no anchor, no shape, a capsule with no tail, no radius; spec 001 line 574, "Against
/// the avatar's whole inherits chain it also refuses ... a collider with no anchor or no
/// shape, and a capsule with no tail"), and on a variant each part's `dh.springBone` as
/// resolved (the mode rule, 001 line 470, which a variant leaving `mode` to its base
/// could not be held to alone).
///
/// Where the resolved root carries a `dh.skeleton` whose rig `rig_of` knows (asked with
/// the rig's barcode, as `resolved` states it), the rules that read the rig run too: a
/// collider's `bone` must be a role the rig maps (001 line 574, "Against the avatar's
/// whole inherits chain it also refuses a role the rig does not map"), and a `dh.eyes`
/// warns when the rig has no eyes at all (no eye bone, no eyelid shape), or sets `look`
/// on a rig that cannot turn its eyes (no eye bone) (001 line 331), and a graft of a link
/// to the root must hang its chain from a bone the rig maps (`check_grafts`, 001 line
/// 427).
///
/// `leaf` is the object's own source. A problem is reported at the leaf's component of the
/// same key (a collider by its id, a chain by its part's path, the one `dh.eyes`) and only
/// where the leaf states one: a component a variant inherits untouched is its base's,
/// reported by the base's own build.
pub fn validate_resolved_object(
    leaf: &Value,
    resolved: &Value,
    rig_of: &dyn Fn(&str) -> Option<crate::schema::rig::DhRig>,
) -> Vec<ResolvedProblem> {
    let is_variant = leaf
        .get("inherits")
        .is_some_and(|i| !matches!(i.kind, Kind::Null));
    let file = SourceFile::new("resolved", resolved.to_json());
    let mut out = Vec::new();
    let list = |v: &Value, key: &str| -> Vec<Value> {
        v.get(key)
            .and_then(Value::as_array)
            .map(<[Value]>::to_vec)
            .unwrap_or_default()
    };
    let is = |c: &Value, t: &str| c.get("$type").and_then(Value::as_str) == Some(t);
    let leaf_root = list(leaf, "components");
    let root = list(resolved, "components");
    let rig = root
        .iter()
        .find(|c| is(c, "dh.skeleton"))
        .and_then(|c| c.get("rig"))
        .and_then(Value::as_str)
        .and_then(|b| rig_of(b).map(|r| (b.to_string(), r)));
    let roles_of = |rig: &crate::schema::rig::DhRig| {
        let roles = rig.roles();
        if roles.is_empty() {
            "it maps no humanoid bone".to_string()
        } else {
            format!("the roles it maps are: {}", roles.join(", "))
        }
    };
    for c in root.iter().filter(|c| is(c, "dh.springCollider")) {
        let Some(id) = c.get("id").and_then(Value::as_str) else {
            continue;
        };
        let Some((k, own)) = leaf_root.iter().enumerate().find(|(_, l)| {
            is(l, "dh.springCollider") && l.get("id").and_then(Value::as_str) == Some(id)
        }) else {
            continue;
        };
        let mut scratch = Diagnostics::new();
        let Some(collider) = read_component(&file, c, |c| match c {
            ObjectComponent::SpringCollider(s) => Some(s),
            _ => None,
        }) else {
            continue;
        };
        {
            let mut cx = Cx::new(&file, &mut scratch, Mode::Load);
            collider.validate_resolved(&mut cx);
            if let (Some((barcode, rig)), Some(role)) = (&rig, &collider.bone) {
                let is_role =
                    crate::schema::object_components::HUMANOID_ROLES.contains(&role.as_str());
                if is_role && rig.bone_of(role).is_none() {
                    out.push(ResolvedProblem {
                        severity: Severity::Error,
                        span: own.span,
                        path: format!("components[{k}]"),
                        message: format!(
                            "spring collider '{id}' hangs on the role '{role}', which its rig '{barcode}' does not map; {}",
                            roles_of(rig)
                        ),
                    });
                }
            }
        }
        out.extend(scratch.errors().map(|d| ResolvedProblem {
            severity: Severity::Error,
            span: own.span,
            path: format!("components[{k}]"),
            message: d.message.clone(),
        }));
    }
    if let (Some((barcode, rig)), Some(eyes), Some((k, own))) = (
        &rig,
        root.iter().find(|c| is(c, "dh.eyes")),
        leaf_root.iter().enumerate().find(|(_, l)| is(l, "dh.eyes")),
    ) {
        if let Some(eyes) = read_component(&file, eyes, |c| match c {
            ObjectComponent::Eyes(e) => Some(e),
            _ => None,
        }) {
            let message = if !rig.has_eyes() {
                Some(format!(
                    "the avatar states dh.eyes, but its rig '{barcode}' has no eyes at all: it maps no eye bone (LeftEye, RightEye) and names no eyelids.blink shape"
                ))
            } else if eyes.look.is_some() && !rig.can_turn_eyes() {
                Some(format!(
                    "dh.eyes sets 'look', but its rig '{barcode}' cannot turn its eyes: it maps no eye bone (LeftEye, RightEye)"
                ))
            } else {
                None
            };
            out.extend(message.map(|message| ResolvedProblem {
                severity: Severity::Warning,
                span: own.span,
                path: format!("components[{k}]"),
                message,
            }));
        }
    }
    if let Some((barcode, rig)) = &rig {
        out.extend(check_grafts(leaf, resolved, barcode, rig));
    }
    if !is_variant {
        // A base's chains were held to the mode rule on their own layer.
        return out;
    }
    let leaf_children = list(leaf, "children");
    for part in list(resolved, "children") {
        let Some(path) = part.get("path").and_then(Value::as_str) else {
            continue;
        };
        let Some((ci, own_part)) = leaf_children
            .iter()
            .enumerate()
            .find(|(_, l)| l.get("path").and_then(Value::as_str) == Some(path))
        else {
            continue;
        };
        let own_list = list(own_part, "components");
        let Some((k, own)) = own_list
            .iter()
            .enumerate()
            .find(|(_, l)| is(l, "dh.springBone"))
        else {
            continue;
        };
        for c in list(&part, "components")
            .iter()
            .filter(|c| is(c, "dh.springBone"))
        {
            let mut scratch = Diagnostics::new();
            if let Some(chain) = read_component(&file, c, |c| match c {
                ObjectComponent::SpringBone(s) => Some(s),
                _ => None,
            }) {
                let mut cx = Cx::new(&file, &mut scratch, Mode::Load);
                chain.validate_resolved(&mut cx);
            }
            out.extend(scratch.errors().map(|d| ResolvedProblem {
                severity: Severity::Error,
                span: own.span,
                path: format!("children[{ci}].components[{k}]"),
                message: format!("part '{path}': {}", d.message),
            }));
        }
    }
    out
}

/// The grafts of the armature links that link to the object's root (`target` `""`), on
/// its parts and its added records, as resolved: each base bone must be one the root's rig
/// maps, a standard humanoid name or one of its customBones (001 line 427: "the value is
/// a bone the rig maps ... a base bone the rig does not have, is a build error naming
/// both"). Reported at the leaf's own link (a part's by its path, a record's by its id).
fn check_grafts(
    leaf: &Value,
    resolved: &Value,
    barcode: &str,
    rig: &crate::schema::rig::DhRig,
) -> Vec<ResolvedProblem> {
    let list = |v: &Value, key: &str| -> Vec<Value> {
        v.get(key)
            .and_then(Value::as_array)
            .map(<[Value]>::to_vec)
            .unwrap_or_default()
    };
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let link = |c: &Value| c.get("$type").and_then(Value::as_str) == Some("dh.armatureLink");
    let mut out = Vec::new();
    // (list member, the key an owner is matched by) for parts and added records.
    for (member, key) in [("children", "path"), ("objects", "id")] {
        let own = list(leaf, member);
        for owner in list(resolved, member) {
            let Some(name) = text(&owner, key) else {
                continue;
            };
            let Some((i, own_owner)) = own
                .iter()
                .enumerate()
                .find(|(_, o)| text(o, key).as_deref() == Some(name.as_str()))
            else {
                continue;
            };
            let Some(l) = list(&owner, "components")
                .into_iter()
                .find(|c| link(c) && text(c, "target").as_deref() == Some(""))
            else {
                continue;
            };
            let Some((k, own_link)) = list(own_owner, "components")
                .into_iter()
                .enumerate()
                .find(|(_, c)| link(c))
            else {
                continue;
            };
            let Some(Kind::Object(grafts)) = l.get("graft").map(|g| &g.kind) else {
                continue;
            };
            for g in grafts {
                let Some(base) = g.value.as_str() else {
                    continue;
                };
                if rig.maps_bone(base) {
                    continue;
                }
                out.push(ResolvedProblem {
                    severity: Severity::Error,
                    span: own_link.span,
                    path: format!("{member}[{i}].components[{k}]"),
                    message: format!(
                        "'graft' hangs the chain '{}' from the base bone '{base}', which the rig '{barcode}' does not have: a base bone is a standard humanoid name the rig maps or one of its customBones{}",
                        g.key,
                        crate::diag::did_you_mean(
                            base,
                            rig.roles()
                                .into_iter()
                                .chain(rig.custom_bones_or_default().iter().map(String::as_str))
                        )
                    ),
                });
            }
        }
    }
    out
}

/// One component of a resolved object, read as its type (`pick` keeps the variant wanted);
/// its reading's diagnostics are dropped (every layer was read in its own file).
fn read_component<T>(
    file: &SourceFile,
    v: &Value,
    pick: impl FnOnce(ObjectComponent) -> Option<T>,
) -> Option<T> {
    let mut scratch = Diagnostics::new();
    let mut cx = Cx::new(file, &mut scratch, Mode::Load);
    ObjectComponent::from_json(&mut cx, v).and_then(pick)
}
