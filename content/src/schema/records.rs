//! Map records: the entries of a map's `objects` list.
//!
//! Three record types and one piece of sugar, discriminated by `$type`:
//!
//! * `folder`: a label that groups other records, with no transform;
//! * `object`: a posed record owning components and connections;
//! * `instance`: a placement of a source (a `dh.object`, an avatar, or a model whose parts
//!   become its children, overridden by [`PartOverride`]s); the compiler writes a model
//!   instance's [`Part`] table into it, and reading compiled output recognizes it;
//! * `boxBrush`: sugar for an object holding a `dh.box`. It reads into the object it stands
//!   for ([`BoxBrush::object`]) and remembers it was sugar, so it writes back the same way.
//!
//! Every block is closed. The build-time rules that need the whole list (ids, parents,
//! wiring, ...) are in [`map_rules`](super::map_rules).

use super::common::{Guid, Vec3, Vec4};
pub use super::components::signals::CallValue;
use super::components::MapComponent;
use super::object;
use super::object_components::ObjectComponent;
use crate::diag::Diagnostics;
use crate::jsonc::{Kind, Member, Value};
use crate::read::{
    member, unknown_member_message, unknown_token_message, At, Block, Cx, FromJson, ObjReader,
    ToJson,
};

// ---- Records ----------------------------------------------------------------------------

block! {
    /// A folder: an id, a name and an optional parent, grouping other records. It has no
    /// transform, so it can never be wired into a field that wants something to move.
    pub struct FolderRecord = "folder record" {
        /// The record's stable identity (authored; required, checked by the map rules).
        opt id: Guid = "id",
        /// The folder's label in the editor's hierarchy.
        opt name: String = "name",
        /// The id of another record of the map; absent makes the record a root.
        opt parent: Guid = "parent",
        /// Whether the record is in the world at all (default true).
        opt enabled: bool = "enabled",
        /// Whether the record counts as static for baking (default true).
        opt is_static: bool = "static",
    }
}

block! {
    /// An object: the plain posed record, with the shared fields, the transform,
    /// connections and components.
    pub struct ObjectRecord = "object record" {
        /// The record's stable identity (authored; required, checked by the map rules).
        opt id: Guid = "id",
        /// Display name; required and map-unique for logic entities and cameras.
        opt name: String = "name",
        /// The id of another record of the map; absent makes the record a root.
        opt parent: Guid = "parent",
        /// Whether the record is in the world at all (default true).
        opt enabled: bool = "enabled",
        /// Whether the record counts as static for baking (default true).
        opt is_static: bool = "static",
        /// Position in meters (default `[0, 0, 0]`).
        opt position: Vec3 = "position",
        /// Euler degrees `[pitch, yaw, roll]`, applied Z·Y·X (default `[0, 0, 0]`).
        opt rotation: Vec3 = "rotation",
        /// Per-axis scale; no axis may be zero (default `[1, 1, 1]`).
        opt scale: Vec3 = "scale",
        /// The object's outbound wiring: output to ordered actions.
        list connections: Connection = "connections",
        /// The state the object owns, one entry per component.
        list components: MapComponent = "components",
    }
}

/// An instance: a placement of a source, a `dh.object` (or avatar) or a model (a `.glb`,
/// an `.fbx` or a folder of `.glb` pieces), with its own pose.
///
/// Read by hand: `object` (the old `objectInstance` field) is refused naming `source`, and
/// the generated `parts` table is recognized in compiled output ([`Mode::Load`]) and
/// refused in a source ([`Mode::Build`]).
///
/// [`Mode::Load`]: crate::read::Mode::Load
/// [`Mode::Build`]: crate::read::Mode::Build
#[derive(Debug, Clone, Default)]
pub struct InstanceRecord {
    /// The record's stable identity (authored; required, checked by the map rules).
    pub id: Option<Guid>,
    /// Display name. The map's world is the model instance named `world`.
    pub name: Option<String>,
    /// The id of another record of the map; absent makes the record a root.
    pub parent: Option<Guid>,
    /// Whether the record is in the world at all (default true).
    pub enabled: Option<bool>,
    /// Whether the record counts as static for baking (default true).
    pub is_static: Option<bool>,
    /// Position in meters.
    pub position: Option<Vec3>,
    /// Euler degrees `[pitch, yaw, roll]`.
    pub rotation: Option<Vec3>,
    /// Per-axis scale; no axis may be zero.
    pub scale: Option<Vec3>,
    /// What is placed: an object's reference or a model's path. Its extension decides which
    /// ([`SourceKind::of`]).
    pub source: String,
    /// An object placement's components on its root, over its source's (the components an
    /// object's root takes, each of which may say `"removed": true`).
    pub components: Vec<ObjectComponent>,
    /// A model instance's part overrides (its `children`).
    pub children: Vec<PartOverride>,
    /// An object placement's overrides of its object's parts (its `children`, in the
    /// object's own part-override shape: by path, filed by path).
    pub object_children: Vec<object::PartOverride>,
    /// An object placement's wiring (a model instance's is refused).
    pub connections: Vec<Connection>,
    /// The compiler's part table (compiled output only).
    pub parts: Vec<Part>,
    /// Where the record was read from.
    pub at: At,
}

/// What an instance's `source` places, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A `.dh-obj` or `.dh-avatar`: an object placement.
    Object,
    /// A `.glb`, an `.fbx`, or a folder of `.glb` pieces (a path with no extension): a
    /// model instance, whose parts become its children.
    Model,
}

impl SourceKind {
    /// The kind of `source` (relative, `/`-rooted or a `palletId:path` barcode), or `None`
    /// when its extension names neither an object nor a model.
    pub fn of(source: &str) -> Option<SourceKind> {
        let path = source.rsplit_once(':').map_or(source, |(_, p)| p);
        let file = path.rsplit('/').next().unwrap_or(path);
        let Some((stem, ext)) = file.rsplit_once('.') else {
            return Some(SourceKind::Model);
        };
        if stem.is_empty() && ext.is_empty() {
            return None;
        }
        match ext.to_ascii_lowercase().as_str() {
            "dh-obj" | "dh-avatar" => Some(SourceKind::Object),
            "glb" | "fbx" => Some(SourceKind::Model),
            _ => None,
        }
    }
}

impl InstanceRecord {
    /// What the source places, `None` when its extension names neither kind.
    pub fn source_kind(&self) -> Option<SourceKind> {
        SourceKind::of(&self.source)
    }
}

const INSTANCE_SPECIAL: &[(&str, &str)] = &[(
    "object",
    "'object' is not read on an instance (the old objectInstance field): name what it places with 'source'",
)];

impl Block for InstanceRecord {
    const BLOCK: &'static str = "instance record";
    const FIELDS: &'static [&'static str] = &[
        "id",
        "name",
        "parent",
        "enabled",
        "static",
        "position",
        "rotation",
        "scale",
        "source",
        "components",
        "children",
        "connections",
        "parts",
    ];

    fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self {
        let parts = match o.member("parts") {
            Some(m) if cx.mode == crate::read::Mode::Build => {
                cx.error(
                    m.key_span,
                    "'parts' is generated by the compiler, not authored: a parts list written in a source file is a build error",
                );
                Vec::new()
            }
            _ => o.list(cx, "parts"),
        };
        // The source's extension decides the shape of the children.
        let placement = o
            .member("source")
            .and_then(|m| m.value.as_str())
            .and_then(SourceKind::of)
            == Some(SourceKind::Object);
        InstanceRecord {
            id: o.opt(cx, "id"),
            name: o.opt(cx, "name"),
            parent: o.opt(cx, "parent"),
            enabled: o.opt(cx, "enabled"),
            is_static: o.opt(cx, "static"),
            position: o.opt(cx, "position"),
            rotation: o.opt(cx, "rotation"),
            scale: o.opt(cx, "scale"),
            source: o.req(cx, "source"),
            components: o.list(cx, "components"),
            children: if placement {
                Vec::new()
            } else {
                o.list(cx, "children")
            },
            object_children: if placement {
                o.list(cx, "children")
            } else {
                Vec::new()
            },
            connections: o.list(cx, "connections"),
            parts,
            at: o.at(),
        }
    }

    fn write_fields(&self, out: &mut Vec<Member>) {
        push(out, "id", &self.id);
        push(out, "name", &self.name);
        push(out, "parent", &self.parent);
        push(out, "enabled", &self.enabled);
        push(out, "static", &self.is_static);
        push(out, "position", &self.position);
        push(out, "rotation", &self.rotation);
        push(out, "scale", &self.scale);
        push(out, "source", &self.source);
        push(out, "components", &self.components);
        push(out, "children", &self.children);
        push(out, "children", &self.object_children);
        push(out, "connections", &self.connections);
        push(out, "parts", &self.parts);
    }
}

impl FromJson for InstanceRecord {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        read_closed(cx, v, None, INSTANCE_SPECIAL)
    }
}
impl ToJson for InstanceRecord {
    fn to_json(&self) -> Value {
        crate::read::write_block(self)
    }
}

/// A box brush: sugar for an object holding a `dh.box`. Its top-level `size` and
/// `material` are read as the `dh.box`, first in the object's components, and the
/// components it authors follow. It writes back as sugar while its object's first
/// component is still a `dh.box`; once the box is taken out it writes back as the plain
/// object it stood for.
#[derive(Debug, Clone, Default)]
pub struct BoxBrush {
    /// The object the sugar stands for, its `dh.box` first in `components`.
    pub object: ObjectRecord,
    /// Where the record was read from.
    pub at: At,
}

impl BoxBrush {
    /// Whether the record still writes back as sugar: its first component is a `dh.box`.
    pub fn is_sugar(&self) -> bool {
        matches!(self.object.components.first(), Some(MapComponent::Box(_)))
    }
}

impl Block for BoxBrush {
    const BLOCK: &'static str = "boxBrush record";
    const FIELDS: &'static [&'static str] = &[
        "id",
        "name",
        "parent",
        "enabled",
        "static",
        "position",
        "rotation",
        "scale",
        "size",
        "material",
        "connections",
        "components",
    ];

    fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self {
        let at = o.at();
        let mut object = ObjectRecord {
            id: o.opt(cx, "id"),
            name: o.opt(cx, "name"),
            parent: o.opt(cx, "parent"),
            enabled: o.opt(cx, "enabled"),
            is_static: o.opt(cx, "static"),
            position: o.opt(cx, "position"),
            rotation: o.opt(cx, "rotation"),
            scale: o.opt(cx, "scale"),
            connections: o.list(cx, "connections"),
            components: Vec::new(),
            at: at.clone(),
        };
        if let Some(b) = read_brush_box(cx, o) {
            object.components.push(b);
        }
        object
            .components
            .extend(o.list::<MapComponent>(cx, "components"));
        // With no collider authored, the compiler's solid one over the exact box.
        if let Some(c) = MapComponent::generated_collider_for(&object.components) {
            object.components.push(MapComponent::Collider(c));
        }
        BoxBrush { object, at }
    }

    fn write_fields(&self, out: &mut Vec<Member>) {
        let o = &self.object;
        push(out, "id", &o.id);
        push(out, "name", &o.name);
        push(out, "parent", &o.parent);
        push(out, "enabled", &o.enabled);
        push(out, "static", &o.is_static);
        push(out, "position", &o.position);
        push(out, "rotation", &o.rotation);
        push(out, "scale", &o.scale);
        let rest = match o.components.split_first() {
            Some((b @ MapComponent::Box(_), rest)) => {
                if let Kind::Object(members) = b.to_json().kind {
                    out.extend(members.into_iter().filter(|m| m.key != "$type"));
                }
                rest
            }
            _ => &o.components[..],
        };
        push(out, "connections", &o.connections);
        // The generated collider is the compiler's, made again on every read.
        let authored: Vec<MapComponent> = rest
            .iter()
            .filter(|c| !matches!(c, MapComponent::Collider(c) if c.is_generated()))
            .cloned()
            .collect();
        push(out, "components", &authored);
    }
}

/// Reads a brush's top-level `size` and `material` as a `dh.box`, so the box's own rules
/// and its spans (`size` pointing at the brush's `size`) are the component's.
fn read_brush_box(cx: &mut Cx, o: &ObjReader) -> Option<MapComponent> {
    let mut members = vec![member(
        "$type",
        Value::synthetic(Kind::String("dh.box".to_string())),
    )];
    members.extend(
        ["size", "material"]
            .iter()
            .filter_map(|k| o.member(k))
            .cloned(),
    );
    let value = Value {
        kind: Kind::Object(members),
        span: o.value.span,
    };
    let path = cx.path().to_string();
    let mut local = Diagnostics::new();
    let read = {
        let mut sub = Cx::new(cx.file, &mut local, cx.mode);
        sub.at_path(&path, |sub| MapComponent::from_json(sub, &value))
    };
    for mut d in local.items {
        // The box's members are the brush's own: say so in the brush's words.
        if let Some(rest) = d
            .message
            .strip_prefix("dh.box is missing its required member")
        {
            d.message = format!("{} is missing its required member{rest}", BoxBrush::BLOCK);
        }
        cx.diags.items.push(d);
    }
    read
}

// ---- The record union -------------------------------------------------------------------

/// A map record, discriminated by `$type`.
#[derive(Debug, Clone)]
pub enum Record {
    /// `folder`
    Folder(FolderRecord),
    /// `object`
    Object(ObjectRecord),
    /// `instance`
    Instance(InstanceRecord),
    /// `boxBrush`, read as the object it stands for.
    BoxBrush(BoxBrush),
}

impl Record {
    /// The tag member's name.
    pub const TAG: &'static str = "$type";
    /// Every record type, in the spec's order.
    pub const TAGS: &'static [&'static str] = &["folder", "object", "instance", "boxBrush"];

    /// The record's `$type` as it was written (`folder`, `object`, `instance`, `boxBrush`).
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Folder(_) => "folder",
            Record::Object(_) => "object",
            Record::Instance(_) => "instance",
            Record::BoxBrush(_) => "boxBrush",
        }
    }

    /// Where the record was read from.
    pub fn at(&self) -> &At {
        match self {
            Record::Folder(r) => &r.at,
            Record::Object(r) => &r.at,
            Record::Instance(r) => &r.at,
            Record::BoxBrush(r) => &r.at,
        }
    }

    /// The record's id, if written.
    pub fn id(&self) -> Option<Guid> {
        match self {
            Record::Folder(r) => r.id,
            Record::Object(r) => r.id,
            Record::Instance(r) => r.id,
            Record::BoxBrush(r) => r.object.id,
        }
    }

    /// The record's name, if written.
    pub fn name(&self) -> Option<&str> {
        match self {
            Record::Folder(r) => r.name.as_deref(),
            Record::Object(r) => r.name.as_deref(),
            Record::Instance(r) => r.name.as_deref(),
            Record::BoxBrush(r) => r.object.name.as_deref(),
        }
    }

    /// The record's parent id, if written.
    pub fn parent(&self) -> Option<Guid> {
        match self {
            Record::Folder(r) => r.parent,
            Record::Object(r) => r.parent,
            Record::Instance(r) => r.parent,
            Record::BoxBrush(r) => r.object.parent,
        }
    }

    /// The object an `object` or a `boxBrush` record is.
    pub fn object(&self) -> Option<&ObjectRecord> {
        match self {
            Record::Object(r) => Some(r),
            Record::BoxBrush(r) => Some(&r.object),
            _ => None,
        }
    }

    /// The map components of an object or a brush (a brush's box first); a folder has none,
    /// and an instance's are object components ([`InstanceRecord::components`]).
    pub fn components(&self) -> &[MapComponent] {
        match self {
            Record::Folder(_) | Record::Instance(_) => &[],
            Record::Object(r) => &r.components,
            Record::BoxBrush(r) => &r.object.components,
        }
    }

    /// The component types the record itself carries, in order: an object's or a brush's,
    /// or an instance's own root components that are not `"removed": true`.
    pub fn component_types(&self) -> Vec<&str> {
        match self {
            Record::Instance(r) => r
                .components
                .iter()
                .filter(|c| !c.is_removed())
                .map(|c| c.tag())
                .collect(),
            _ => self.components().iter().map(|c| c.tag()).collect(),
        }
    }

    /// The record's outbound wiring (a folder has none).
    pub fn connections(&self) -> &[Connection] {
        match self {
            Record::Folder(_) => &[],
            Record::Object(r) => &r.connections,
            Record::Instance(r) => &r.connections,
            Record::BoxBrush(r) => &r.object.connections,
        }
    }

    /// The record's `scale`, if written (a folder has no transform).
    pub fn scale(&self) -> Option<Vec3> {
        match self {
            Record::Folder(_) => None,
            Record::Object(r) => r.scale,
            Record::Instance(r) => r.scale,
            Record::BoxBrush(r) => r.object.scale,
        }
    }
}

impl FromJson for Record {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(tag_value) = v.get(Record::TAG) else {
            if v.as_object().is_none() {
                cx.expected("an object (record)", v);
            } else {
                cx.error(
                    v.span,
                    format!(
                        "a record needs a '$type' member; expected one of: {}",
                        Record::TAGS.join(", ")
                    ),
                );
            }
            return None;
        };
        let Some(tag) = tag_value.as_str() else {
            cx.expected("a string naming the record's type", tag_value);
            return None;
        };
        match tag {
            "folder" => read_closed(cx, v, Some(Record::TAG), &[]).map(Record::Folder),
            "object" => read_closed(cx, v, Some(Record::TAG), &[]).map(Record::Object),
            "instance" => {
                read_closed(cx, v, Some(Record::TAG), INSTANCE_SPECIAL).map(Record::Instance)
            }
            "boxBrush" => read_closed(cx, v, Some(Record::TAG), &[]).map(Record::BoxBrush),
            other => {
                let mut msg = unknown_token_message("record", other, Record::TAGS);
                if other == "objectInstance" {
                    msg.push_str(
                        " (the old objectInstance type is not read: an object placement is an 'instance' whose 'source' names the object)",
                    );
                }
                cx.error(tag_value.span, msg);
                None
            }
        }
    }
}

impl ToJson for Record {
    fn to_json(&self) -> Value {
        let tagged = |tag: &str, write: &dyn Fn(&mut Vec<Member>)| {
            let mut members = vec![member(
                Record::TAG,
                Value::synthetic(Kind::String(tag.to_string())),
            )];
            write(&mut members);
            Value::synthetic(Kind::Object(members))
        };
        match self {
            Record::Folder(r) => tagged("folder", &|m| r.write_fields(m)),
            Record::Object(r) => tagged("object", &|m| r.write_fields(m)),
            Record::Instance(r) => tagged("instance", &|m| r.write_fields(m)),
            Record::BoxBrush(r) if r.is_sugar() => tagged("boxBrush", &|m| r.write_fields(m)),
            // A sugar record whose box was taken out is the plain object it stood for (and
            // the box's generated collider goes with the box).
            Record::BoxBrush(r) => {
                let mut plain = r.object.clone();
                plain
                    .components
                    .retain(|c| !matches!(c, MapComponent::Collider(c) if c.is_generated()));
                tagged("object", &|m| plain.write_fields(m))
            }
        }
    }
}

// ---- Connections ------------------------------------------------------------------------

block! {
    /// One entry of an object's `connections`: an output bound to an ordered action list.
    pub struct Connection = "connection" {
        /// The output that runs the list, plain (`onTrue`) or qualified (`andGate.onTrue`).
        req output: String = "output",
        /// The actions, run top to bottom with serial, blocking semantics.
        list actions: Action = "actions",
    }
}

block! {
    /// A `call` action: invokes `input` on the logic entity named `target`.
    pub struct Call = "call" {
        /// The map-unique name of the logic entity called.
        req target: String = "target",
        /// The input, plain (`open`) or qualified (`mover.open`).
        req input: String = "input",
        /// The boolean level, for an input that takes one.
        opt param: bool = "param",
        /// The number or color, for an input that takes one.
        opt value: CallValue = "value",
    }
}

block! {
    /// A `delay` action: blocks the rest of the list for `seconds`.
    pub struct Delay = "delay" {
        /// Seconds, quantized up to whole simulation ticks.
        req seconds: f64 = "seconds",
    }
}

block! {
    /// A `setBakeSet` action: switches a bake zone's baked lighting to one of its sets.
    pub struct SetBakeSet = "setBakeSet" {
        /// The bake zone's id.
        req zone: String = "zone",
        /// The set's name (`default` is the authored state).
        req set: String = "set",
        /// Crossfade seconds (default 0: at once).
        opt fade: f64 = "fade",
    }
}

/// One action of a connection's list, discriminated by its single wrapper key.
#[derive(Debug, Clone)]
pub enum Action {
    /// `{ "call": { ... } }`
    Call(Call),
    /// `{ "delay": { ... } }`
    Delay(Delay),
    /// `{ "setBakeSet": { ... } }`
    SetBakeSet(SetBakeSet),
}

impl Action {
    /// The wrapper keys, one per action kind.
    pub const KINDS: &'static [&'static str] = &["call", "delay", "setBakeSet"];

    /// The action's wrapper key.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Call(_) => "call",
            Action::Delay(_) => "delay",
            Action::SetBakeSet(_) => "setBakeSet",
        }
    }
}

impl FromJson for Action {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(members) = v.as_object() else {
            cx.expected(
                "an object (action) holding one of: call, delay, setBakeSet",
                v,
            );
            return None;
        };
        match members {
            [m] => match m.key.as_str() {
                "call" => cx
                    .at_key("call", |cx| Call::from_json(cx, &m.value))
                    .map(Action::Call),
                "delay" => cx
                    .at_key("delay", |cx| Delay::from_json(cx, &m.value))
                    .map(Action::Delay),
                "setBakeSet" => cx
                    .at_key("setBakeSet", |cx| SetBakeSet::from_json(cx, &m.value))
                    .map(Action::SetBakeSet),
                other => {
                    let msg = unknown_token_message("action", other, Action::KINDS);
                    cx.error(m.key_span, msg);
                    None
                }
            },
            [] => {
                cx.error(
                    v.span,
                    "an action holds exactly one of: call, delay, setBakeSet; this one holds none",
                );
                None
            }
            [_, second, ..] => {
                let keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
                cx.error(
                    second.key_span,
                    format!(
                        "an action holds exactly one of: call, delay, setBakeSet; this one holds {} ({})",
                        members.len(),
                        keys.join(", ")
                    ),
                );
                None
            }
        }
    }
}

impl ToJson for Action {
    fn to_json(&self) -> Value {
        let (key, body) = match self {
            Action::Call(a) => ("call", a.to_json()),
            Action::Delay(a) => ("delay", a.to_json()),
            Action::SetBakeSet(a) => ("setBakeSet", a.to_json()),
        };
        Value::synthetic(Kind::Object(vec![member(key, body)]))
    }
}

// ---- Part overrides and the part table --------------------------------------------------

/// A scale written as one number (uniform) or as three; written back the way it was read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScaleValue {
    /// One number: uniform.
    Uniform(f64),
    /// Per axis.
    Axes(Vec3),
}

impl ScaleValue {
    /// The scale per axis.
    pub fn axes(&self) -> Vec3 {
        match self {
            ScaleValue::Uniform(s) => Vec3([*s; 3]),
            ScaleValue::Axes(v) => *v,
        }
    }
}

impl FromJson for ScaleValue {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Number(_) => f64::from_json(cx, v).map(ScaleValue::Uniform),
            Kind::Array(_) => Vec3::from_json(cx, v).map(ScaleValue::Axes),
            _ => {
                cx.expected("a number or exactly three numbers", v);
                None
            }
        }
    }
}
impl ToJson for ScaleValue {
    fn to_json(&self) -> Value {
        match self {
            ScaleValue::Uniform(n) => n.to_json(),
            ScaleValue::Axes(v) => v.to_json(),
        }
    }
}

/// A model part's override, in a model instance's `children`: the departures of one part
/// from the model, laid over it by the one merge rule. The transform is a delta.
///
/// Read by hand: the fields the old `dh.editNode` patch and the old bake fields spelled
/// are refused naming their replacement.
#[derive(Debug, Clone, Default)]
pub struct PartOverride {
    /// The part's `localId` (what the editor's Save writes).
    pub id: Option<Guid>,
    /// The part's path when the override was written; the anchor when `id` names no part.
    pub path: Option<String>,
    /// A display name shown in place of the model's node name.
    pub name: Option<String>,
    /// World-space displacement in meters.
    pub position: Option<Vec3>,
    /// Euler rotation delta in degrees, about the compiled pivot.
    pub rotation: Option<Vec3>,
    /// Scale multiplier about the compiled pivot; one number is uniform.
    pub scale: Option<ScaleValue>,
    /// Whether the part is in the world (only `false` is written).
    pub enabled: Option<bool>,
    /// Whether the part takes part in the bakes (only `false` is written).
    pub is_static: Option<bool>,
    /// `true` takes the part out of the instance; the only thing that removes.
    pub removed: Option<bool>,
    /// Another record of the map (a folder or an object) to file the part under.
    pub parent: Option<Guid>,
    /// The part's `dh.collider` and `dh.bake`, one of each.
    pub components: Vec<MapComponent>,
    /// Where the override was read from.
    pub at: At,
}

const OVERRIDE_SPECIAL: &[(&str, &str)] = &[
    (
        "offset",
        "'offset' is not a part override field (the old dh.editNode spelling): it is 'position'",
    ),
    (
        "rename",
        "'rename' is not a part override field (the old dh.editNode spelling): it is 'name'",
    ),
    (
        "target",
        "'target' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
    ),
    (
        "manifestHash",
        "'manifestHash' is gone (the old dh.editNode spelling): a part is addressed by 'id' and 'path'",
    ),
    (
        "bakeEmission",
        "'bakeEmission' is not a part override field: it is 'emission' in the part's dh.bake",
    ),
    (
        "lightmapScale",
        "'lightmapScale' is not a part override field: it is 'lightmapScale' in the part's dh.bake",
    ),
    (
        "bakeZone",
        "'bakeZone' is not a part override field: it is 'zone' in the part's dh.bake",
    ),
];

impl Block for PartOverride {
    const BLOCK: &'static str = "part override";
    const FIELDS: &'static [&'static str] = &[
        "id",
        "path",
        "name",
        "position",
        "rotation",
        "scale",
        "enabled",
        "static",
        "removed",
        "parent",
        "components",
    ];

    fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self {
        PartOverride {
            id: o.opt(cx, "id"),
            path: o.opt(cx, "path"),
            name: o.opt(cx, "name"),
            position: o.opt(cx, "position"),
            rotation: o.opt(cx, "rotation"),
            scale: o.opt(cx, "scale"),
            enabled: o.opt(cx, "enabled"),
            is_static: o.opt(cx, "static"),
            removed: o.opt(cx, "removed"),
            parent: o.opt(cx, "parent"),
            components: o.list(cx, "components"),
            at: o.at(),
        }
    }

    fn write_fields(&self, out: &mut Vec<Member>) {
        push(out, "id", &self.id);
        push(out, "path", &self.path);
        push(out, "name", &self.name);
        push(out, "position", &self.position);
        push(out, "rotation", &self.rotation);
        push(out, "scale", &self.scale);
        push(out, "enabled", &self.enabled);
        push(out, "static", &self.is_static);
        push(out, "removed", &self.removed);
        push(out, "parent", &self.parent);
        push(out, "components", &self.components);
    }
}

impl FromJson for PartOverride {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        read_closed(cx, v, None, OVERRIDE_SPECIAL)
    }
}
impl ToJson for PartOverride {
    fn to_json(&self) -> Value {
        crate::read::write_block(self)
    }
}

block! {
    /// A world-space bounding box.
    pub struct Aabb = "aabb" {
        /// The low corner.
        req min: Vec3 = "min",
        /// The high corner.
        req max: Vec3 = "max",
    }
}

block! {
    /// One entry of a model instance's part table: generated by the compiler, recognized
    /// when compiled output is read back, refused in a source.
    pub struct Part = "part" {
        /// Stable index in scene-traversal order (mesh parts first), counted map-wide.
        req id: u32 = "id",
        /// The part's identity inside its model (from the identity sidecar).
        opt local_id: Guid = "localId",
        /// The part's scene-object identity, in the records' id space.
        opt object_id: Guid = "objectId",
        /// The node's own name (empty for an unnamed node).
        opt name: String = "name",
        /// The node's slash-separated path from the scene root.
        opt path: String = "path",
        /// `true` on a mesh-less node, a group.
        opt structural: bool = "structural",
        /// The node's world-space translation.
        opt pivot: Vec3 = "pivot",
        /// The node's world rotation as a quaternion `[x, y, z, w]` (absent at identity).
        opt rotation: Vec4 = "rotation",
        /// The node's world scale (absent at one).
        opt scale: Vec3 = "scale",
        /// The record an override files the part under.
        opt parent: Guid = "parent",
        /// `false` when an override switched the part off (absent: in the world).
        opt enabled: bool = "enabled",
        /// `false` when an override took the part out of the bakes (absent: static).
        opt is_static: bool = "static",
        /// `true` when an override removed the part: it keeps its entry (and every other
        /// part its id) but no load decodes it.
        opt removed: bool = "removed",
        /// What the part carries, resolved (its collider, bake and generated renderer).
        list components: ObjectComponent = "components",
        /// The node's world-space vertex bounds (absent on a structural part).
        opt aabb: Aabb = "aabb",
    }
}

// ---- Reading helpers --------------------------------------------------------------------

/// Reads `v` as block `T` (with `tag` allowed beside its fields), then reports every
/// member the block does not define; a member in `special` is reported with its own
/// message (an old spelling naming its replacement) instead of the closed-set one.
fn read_closed<T: Block>(
    cx: &mut Cx,
    v: &Value,
    tag: Option<&'static str>,
    special: &[(&str, &str)],
) -> Option<T> {
    let o = ObjReader::open_tagged(cx, v, T::BLOCK, T::FIELDS, tag)?;
    let r = T::read_fields(cx, &o);
    for m in o.value.as_object().unwrap_or(&[]) {
        let key = m.key.as_str();
        if T::FIELDS.contains(&key) || Some(key) == tag {
            continue;
        }
        let msg = match special.iter().find(|(k, _)| *k == key) {
            Some((_, msg)) => msg.to_string(),
            None => unknown_member_message(T::BLOCK, key, T::FIELDS),
        };
        cx.error(m.key_span, msg);
    }
    Some(r)
}

/// Appends member `key` unless `value` is unset.
fn push<T: ToJson>(out: &mut Vec<Member>, key: &str, value: &T) {
    if !value.is_unset() {
        out.push(member(key, value.to_json()));
    }
}
