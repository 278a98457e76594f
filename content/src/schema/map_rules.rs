//! The map-wide build-time rules over a map's records: the ones no single block can check.
//!
//! [`validate_records`] runs them all, after reading, on the typed records:
//!
//! * ids: present (a missing one's error offers a freshly minted GUID to paste), not the
//!   all-zeros GUID, unique within the map;
//! * parents: naming a record of the map, never the record itself, never a loop;
//! * the transform: no zero scale axis;
//! * what an owner carries: one of each component type, one presentation component per
//!   object, at most four replicated sections; then every component's own rules and the
//!   object-level logic rules (bodies, a bodiless mover carrying something, a teleport's
//!   destination);
//! * instances: a source that is an object or a model, no connections on a model instance,
//!   and each part override addressed (`id` or `path`), filed under a folder or an object of
//!   the map, carrying only a `dh.collider` and a `dh.bake`;
//! * names: logic entities named and map-unique, cameras named uniquely among cameras, one
//!   `mapThumbnail` camera;
//! * the wiring validator: every connection's output declared by a component of its object
//!   (plain or qualified, per the signal-naming rule), every call's target an entity of the
//!   map, its input declared by a component of the target, its `param` and `value` of the
//!   shape the input takes, and every `setBakeSet` naming a zone and set the map declares.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::common::{Guid, Vec3};
use super::components::logic::{validate_object_logic, ObjectLogicCx};
use super::components::signals::{check_args, resolve_input, resolve_output};
use super::components::{validate_components, ComponentCx, MapComponent, MAX_REPLICATED_SECTIONS};
use super::object_components::{self, Layer, ObjectComponent, Owner, OwnerCx};
use super::records::{
    Action, Call, Connection, InstanceRecord, PartOverride, Record, SetBakeSet, SourceKind,
};
use crate::read::{At, Cx};

/// One bake zone of the map's `lighting.bakeZones`, as the wiring validator needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BakeZoneInfo {
    /// The zone's id.
    pub id: String,
    /// Its sets' names (`default`, the authored state, is always valid and need not be
    /// listed).
    pub sets: Vec<String>,
}

/// What the record rules need to know about the map around its records (filled from the
/// map's other members by the map's own validation).
#[derive(Debug, Clone, Default)]
pub struct MapInfo {
    /// The map's material slot names (the keys of `materials`).
    pub material_slots: Vec<String>,
    /// Whether `lighting.lightmap` is enabled.
    pub lightmap_enabled: bool,
    /// The zones of `lighting.bakeZones`.
    pub bake_zones: Vec<BakeZoneInfo>,
    /// For an object placement's `source` (as written), the component types its object's
    /// root carries once resolved (`dh.mover`, ...): what makes the instance a logic
    /// entity and what it may fire and be called with. A source not listed contributes
    /// nothing beyond the instance's own components.
    pub source_root_components: Vec<(String, Vec<String>)>,
    /// The records the map inherits (spec, dh.map "Inheritance"): its parents' records,
    /// root first, each read from its own parent's file with its references as barcodes
    /// and its path naming that parent (`objects[3] of 'p:maps/base.dh-map'`). A wire, a
    /// `parent`, a part override's `parent`, a teleport's destination and a renderer's
    /// `reflectionProbe` may name one; the inherited records themselves are checked in
    /// their own maps, never here. The slots and zones above are then the folded chain's.
    pub inherited: Vec<Record>,
    /// Whether the chain goes on into a pallet this build has not mounted. A name, an id,
    /// a slot or a zone the map states that nothing the build can see declares is then
    /// not refused (it may be the unseen parent's): the build says once that the
    /// dependency is absent, and the whole is checked where it is loaded.
    pub chain_open: bool,
}

/// The block name a record's diagnostics use (`object record`).
fn block_name(r: &Record) -> &'static str {
    match r {
        Record::Folder(_) => "folder record",
        Record::Object(_) => "object record",
        Record::Instance(_) => "instance record",
        Record::BoxBrush(_) => "boxBrush record",
    }
}

/// `objects[3]`: how a message names another record.
fn place(r: &Record, index: usize) -> String {
    let path = &r.at().path;
    if path.is_empty() {
        format!("objects[{index}]")
    } else {
        path.clone()
    }
}

/// Runs every map-wide rule over `records` (a map's `objects`), reporting each failure.
/// The records the map inherits ([`MapInfo::inherited`]) stand before them for every
/// lookup (a parent, a wire's target, a destination); only the map's own are checked.
pub fn validate_records(cx: &mut Cx, records: &[Record], info: &MapInfo) {
    let base = info.inherited.len();
    // The folded chain's records, parents first (spec: "The parent's records come first,
    // in its order, then the child's own"); `all[base + i]` is `records[i]`.
    let all: Cow<[Record]> = if base == 0 {
        Cow::Borrowed(records)
    } else {
        Cow::Owned(info.inherited.iter().chain(records).cloned().collect())
    };
    let own_ids = check_ids(cx, records);
    // Every id of the chain, to its first record in `all`: an inherited id first (a child
    // record restating one is the chain check's to report).
    let mut ids: HashMap<Guid, usize> = HashMap::new();
    for (k, r) in info.inherited.iter().enumerate() {
        if let Some(id) = r.id() {
            ids.entry(id).or_insert(k);
        }
    }
    for (id, i) in own_ids {
        ids.entry(id).or_insert(base + i);
    }
    check_parents(cx, &all, base, &ids, info.chain_open);
    let types = component_types(&all, info);
    // The ids something rides: a record's parent, or a model part override's.
    let carried: HashSet<Guid> = all
        .iter()
        .filter_map(Record::parent)
        .chain(all.iter().flat_map(|r| match r {
            Record::Instance(inst) => inst.children.iter().filter_map(|p| p.parent).collect(),
            _ => Vec::new(),
        }))
        .collect();
    for (i, r) in records.iter().enumerate() {
        check_scale(cx, r);
        check_owner(cx, i, r.at(), r.components());
        let at = Indexed {
            entity: i,
            index: base + i,
        };
        validate_record_components(cx, &all, &ids, &carried, at, r, info);
        if let Record::Instance(inst) = r {
            check_instance(cx, &all, &ids, at, inst, info);
        }
    }
    check_logic_names(cx, records, types.get(base..).unwrap_or(&[]));
    check_cameras(cx, records);
    check_wiring(cx, &all, base, &types, info);
}

/// A record of the map's own: its index in the map's `objects` (the spec's "Map entity
/// #N", as the map's own file numbers it) and in the folded chain's records.
#[derive(Debug, Clone, Copy)]
struct Indexed {
    entity: usize,
    index: usize,
}

// ---- Ids and parents --------------------------------------------------------------------

/// Checks every id; returns the index of the first record holding each id.
fn check_ids(cx: &mut Cx, records: &[Record]) -> HashMap<Guid, usize> {
    let mut ids: HashMap<Guid, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let at = r.at();
        let Some(id) = r.id() else {
            // A malformed id was reported when read; only a missing one is ours.
            if !at.has("id") {
                cx.error_at(
                    at,
                    at.span,
                    format!(
                        "{} has no 'id': ids are authored, not generated; paste this freshly minted one: \"id\": \"{}\"",
                        block_name(r),
                        Guid::mint()
                    ),
                );
            }
            continue;
        };
        if id.is_nil() {
            cx.error_at(
                at,
                at.field("id"),
                format!(
                    "'id' must not be the all-zeros Guid; paste this freshly minted one: \"id\": \"{}\"",
                    Guid::mint()
                ),
            );
            continue;
        }
        match ids.get(&id) {
            Some(&first) => {
                let other = records
                    .get(first)
                    .map(|f| place(f, first))
                    .unwrap_or_default();
                cx.error_at(
                    at,
                    at.field("id"),
                    format!(
                        "duplicate id {id}: {other} already has it; a record's id must be unique within the map"
                    ),
                );
            }
            None => {
                ids.insert(id, i);
            }
        }
    }
    ids
}

/// Each of the map's own records (`all[base..]`) names, as its parent, a record of the
/// folded chain other than itself, and no parent chain loops. An inherited record's parent
/// is its own map's to check.
fn check_parents(
    cx: &mut Cx,
    all: &[Record],
    base: usize,
    ids: &HashMap<Guid, usize>,
    chain_open: bool,
) {
    // The parent index of each record whose parent resolves to another record.
    let mut up: Vec<Option<usize>> = vec![None; all.len()];
    for (i, r) in all.iter().enumerate() {
        let Some(parent) = r.parent() else { continue };
        let own = i >= base;
        let at = r.at();
        if r.id() == Some(parent) {
            if own {
                cx.error_at(
                    at,
                    at.field("parent"),
                    format!("a record cannot be its own parent: 'parent' names this record's own id {parent}"),
                );
            }
            continue;
        }
        match ids.get(&parent) {
            Some(&p) => up[i] = Some(p),
            // ours: with the chain cut short, the parent may be a record the build cannot
            // see; it is checked at load.
            None if !own || chain_open => {}
            None => cx.error_at(
                at,
                at.field("parent"),
                format!("'parent' names {parent}, which is not the id of any record in the map"),
            ),
        }
    }
    // A loop is reported once, at its first record in map order. Each record is walked
    // once: 1 marks the walk in progress, 2 a record already settled. A loop among
    // inherited records alone is its own map's fault, reported there.
    let mut state = vec![0u8; all.len()];
    for start in base..all.len() {
        let mut walk: Vec<usize> = Vec::new();
        let mut cur = start;
        loop {
            match state.get(cur).copied() {
                Some(0) => {}
                Some(1) => {
                    let from = walk.iter().position(|&w| w == cur).unwrap_or(0);
                    let cycle = walk.get(from..).unwrap_or(&[]);
                    report_loop(cx, all, base, cycle);
                    break;
                }
                _ => break,
            }
            state[cur] = 1;
            walk.push(cur);
            match up.get(cur).copied().flatten() {
                Some(next) => cur = next,
                None => break,
            }
        }
        for w in walk {
            state[w] = 2;
        }
    }
}

/// Reports a parent loop (`cycle` in parent order) at its first own record (`>= base`) in
/// map order.
fn report_loop(cx: &mut Cx, records: &[Record], base: usize, cycle: &[usize]) {
    let Some(first) = cycle
        .iter()
        .enumerate()
        .filter(|(_, &r)| r >= base)
        .min_by_key(|(_, &r)| r)
        .map(|(k, _)| k)
    else {
        return;
    };
    let order: Vec<usize> = cycle[first..]
        .iter()
        .chain(&cycle[..first])
        .copied()
        .collect();
    let mut names: Vec<String> = order
        .iter()
        .filter_map(|&c| records.get(c).map(|r| place(r, c)))
        .collect();
    if let Some(head) = names.first().cloned() {
        names.push(head);
    }
    if let Some(r) = order.first().and_then(|&k| records.get(k)) {
        cx.error_at(
            r.at(),
            r.at().field("parent"),
            format!("the parent chain loops: {}", names.join(" → ")),
        );
    }
}

// ---- The transform ----------------------------------------------------------------------

fn check_scale(cx: &mut Cx, r: &Record) {
    let Some(Vec3(s)) = r.scale() else { return };
    let zero: Vec<&str> = ["x", "y", "z"]
        .iter()
        .zip(s)
        .filter(|(_, v)| *v == 0.0)
        .map(|(a, _)| *a)
        .collect();
    let axes = match zero.as_slice() {
        [] => return,
        [one] => format!("a zero {one} axis"),
        [init @ .., last] => format!("zero {} and {last} axes", init.join(", ")),
    };
    let at = r.at();
    cx.error_at(
        at,
        at.field("scale"),
        format!(
            "'scale' has {axes}: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted"
        ),
    );
}

// ---- What an owner carries --------------------------------------------------------------

fn component_at(c: &MapComponent) -> Option<&At> {
    let at = match c {
        MapComponent::Box(x) => &x.at,
        MapComponent::Bake(x) => &x.at,
        MapComponent::Collider(x) => &x.at,
        MapComponent::SpawnPoint(x) => &x.at,
        MapComponent::Camera(x) => &x.at,
        MapComponent::LightProbeVolume(x) => &x.at,
        MapComponent::LightProbeGroup(x) => &x.at,
        MapComponent::ReflectionProbe(x) => &x.at,
        MapComponent::Button(x) => &x.at,
        MapComponent::Mover(x) => &x.at,
        MapComponent::PressurePlate(x) => &x.at,
        MapComponent::Trigger(x) => &x.at,
        MapComponent::Teleport(x) => &x.at,
        MapComponent::Timer(x) => &x.at,
        MapComponent::MapStart(x) => &x.at,
        MapComponent::AndGate(x) => &x.at,
        MapComponent::OrGate(x) => &x.at,
        MapComponent::NotGate(x) => &x.at,
        MapComponent::PhysicsProp(x) => &x.at,
        MapComponent::Light(x) => &x.at,
        MapComponent::VoxelVolume(x) => &x.at,
        MapComponent::Unknown(_) => return None,
    };
    Some(at)
}

/// Reports at component `c` (its own location when it has one, else the owner's).
fn error_at_component(cx: &mut Cx, owner: &At, c: &MapComponent, msg: String) {
    match component_at(c) {
        Some(at) => cx.error_at(at, at.span, msg),
        None => cx.error_at(owner, owner.field("components"), msg),
    }
}

/// One of each type, one presentation component, at most four replicated sections.
fn check_owner(cx: &mut Cx, entity: usize, owner: &At, components: &[MapComponent]) {
    for (k, c) in components.iter().enumerate() {
        if matches!(c, MapComponent::Unknown(_)) {
            continue;
        }
        if components[..k].iter().any(|p| p.tag() == c.tag()) {
            let msg = format!(
                "Map entity #{entity} carries more than one '{}': an owner holds one of each type",
                c.tag()
            );
            error_at_component(cx, owner, c, msg);
        }
    }
    let mut first: Option<&MapComponent> = None;
    for c in components.iter().filter(|c| c.is_presentation()) {
        match first {
            None => first = Some(c),
            Some(p) if p.tag() != c.tag() => {
                let msg = format!(
                    "Map entity #{entity} carries both '{}' and '{}': one presentation component per object, so the second goes on an object of its own",
                    p.tag(),
                    c.tag()
                );
                error_at_component(cx, owner, c, msg);
            }
            Some(_) => {}
        }
    }
    let replicated: Vec<&str> = components
        .iter()
        .filter(|c| c.is_replicated_section())
        .map(|c| c.tag())
        .collect();
    if replicated.len() > MAX_REPLICATED_SECTIONS {
        cx.error_at(
            owner,
            owner.field("components"),
            format!(
                "Map entity #{entity}'s components would replicate {} sections ({}), more than four",
                replicated.len(),
                replicated.join(", ")
            ),
        );
    }
}

/// The authored components of a record: a brush's generated collider is the compiler's.
fn authored(components: &[MapComponent]) -> Vec<MapComponent> {
    components
        .iter()
        .filter(|c| !matches!(c, MapComponent::Collider(col) if col.is_generated()))
        .cloned()
        .collect()
}

fn component_cx(i: usize, r: &Record, kind: &str, info: &MapInfo) -> ComponentCx {
    let (rotation, scale) = match r {
        Record::Object(o) => (o.rotation, o.scale),
        Record::BoxBrush(b) => (b.object.rotation, b.object.scale),
        Record::Instance(x) => (x.rotation, x.scale),
        Record::Folder(_) => (None, None),
    };
    ComponentCx {
        entity: i,
        record_kind: kind.to_string(),
        material_slots: info.material_slots.clone(),
        lightmap_enabled: info.lightmap_enabled,
        name: r.name().map(str::to_string),
        record_at: r.at().clone(),
        rotation,
        scale,
        bake_zones: info.bake_zones.iter().map(|z| z.id.clone()).collect(),
        chain_open: info.chain_open,
    }
}

/// A record's components by their own rules and the object-level logic rules; `all` is
/// the folded chain's records (a teleport's destination may be inherited).
fn validate_record_components(
    cx: &mut Cx,
    all: &[Record],
    ids: &HashMap<Guid, usize>,
    carried: &HashSet<Guid>,
    at: Indexed,
    r: &Record,
    info: &MapInfo,
) {
    if matches!(r, Record::Folder(_)) {
        return;
    }
    let components = authored(r.components());
    let ccx = component_cx(at.entity, r, r.kind(), info);
    validate_components(cx, &ccx, &components);
    if r.object().is_none() {
        return; // an instance's components are departures; its object's build checks them
    }
    let carries_something = r.id().is_some_and(|id| carried.contains(&id));
    // ours: with the chain cut short, a name nothing visible has may be the unseen
    // parent's, so it counts as an object.
    let object_named = |name: &str| info.chain_open || all.iter().any(|o| o.name() == Some(name));
    let local_position_of = |name: &str| local_position(all, ids, at.index, name);
    let lcx = ObjectLogicCx {
        carries_something,
        object_named: &object_named,
        local_position_of: &local_position_of,
    };
    validate_object_logic(cx, &components, &ccx, &lcx);
}

// ---- Instances and part overrides -------------------------------------------------------

/// An instance's own rules; `all` is the folded chain's records (a part may be filed under
/// an inherited folder, a renderer may name an inherited probe).
fn check_instance(
    cx: &mut Cx,
    all: &[Record],
    ids: &HashMap<Guid, usize>,
    me: Indexed,
    inst: &InstanceRecord,
    info: &MapInfo,
) {
    let i = me.entity;
    let at = &inst.at;
    let kind = inst.source_kind();
    if kind.is_none() && at.has("source") {
        cx.error_at(
            at,
            at.field("source"),
            format!(
                "'{}' is not something an instance places: its source is an object (a .dh-obj or .dh-avatar) or a model (a .glb, an .fbx or a folder of .glb pieces)",
                inst.source
            ),
        );
    }
    if kind == Some(SourceKind::Model) && !inst.connections.is_empty() {
        cx.error_at(
            at,
            at.field("connections"),
            "a model instance's connections are refused: its parts are map geometry, not logic, so wire an object instead",
        );
    }
    if kind == Some(SourceKind::Model) && !inst.components.is_empty() {
        cx.error_at(
            at,
            at.field("components"),
            "a model instance takes no components of its own: components on a root are an object placement's; a model's parts take theirs in their overrides in 'children'",
        );
    }
    if kind == Some(SourceKind::Object) {
        let root = OwnerCx {
            owner: Owner::Root,
            layer: Layer::Override,
            has_skeleton: carries_skeleton(&inst.components),
            label: format!("Map entity #{i} (instance)"),
        };
        cx.at_path(&at.field_path("components"), |cx| {
            object_components::validate_components(cx, &root, &inst.components)
        });
        check_reflection_probes(cx, all, &inst.components, info.chain_open);
        for (k, p) in inst.object_children.iter().enumerate() {
            check_reflection_probes(cx, all, &p.components, info.chain_open);
            let part = OwnerCx {
                owner: Owner::Part,
                layer: Layer::Override,
                has_skeleton: carries_skeleton(&p.components),
                label: format!("Map entity #{i} (instance part '{}')", p.path),
            };
            let path = format!("{}[{k}].components", at.field_path("children"));
            cx.at_path(&path, |cx| {
                object_components::validate_components(cx, &part, &p.components)
            });
        }
    }
    if kind != Some(SourceKind::Model) {
        return;
    }
    for p in &inst.children {
        check_override(cx, all, ids, me, inst, p, info);
    }
}

/// A renderer's `reflectionProbe` names exactly one probe of the map: the name of one
/// object carrying a `dh.reflectionProbe`.
fn check_reflection_probes(
    cx: &mut Cx,
    records: &[Record],
    components: &[ObjectComponent],
    chain_open: bool,
) {
    for c in components {
        let ObjectComponent::Renderer(r) = c else {
            continue;
        };
        let Some(name) = r.reflection_probe.as_deref() else {
            continue;
        };
        let probes = records
            .iter()
            .filter(|o| {
                o.name() == Some(name)
                    && o.components()
                        .iter()
                        .any(|c| matches!(c, MapComponent::ReflectionProbe(_)))
            })
            .count();
        // ours: with the chain cut short, an unseen parent may hold the probe.
        if probes != 1 && !(probes == 0 && chain_open) {
            cx.error_at(
                &r.at,
                r.at.field("reflectionProbe"),
                format!(
                    "'reflectionProbe' names '{name}', which is not exactly one probe of the map: {probes} objects of that name carry a 'dh.reflectionProbe'"
                ),
            );
        }
    }
}

fn carries_skeleton(components: &[ObjectComponent]) -> bool {
    components
        .iter()
        .any(|c| matches!(c, ObjectComponent::Skeleton(_)) && !c.is_removed())
}

fn check_override(
    cx: &mut Cx,
    records: &[Record],
    ids: &HashMap<Guid, usize>,
    me: Indexed,
    inst: &InstanceRecord,
    p: &PartOverride,
    info: &MapInfo,
) {
    let at = &p.at;
    if p.id.is_none() && p.path.is_none() && !at.has("id") {
        cx.error_at(
            at,
            at.span,
            "a part override names its part by 'id' or by 'path': one of them is required",
        );
    }
    if let Some(parent) = p.parent {
        match ids.get(&parent).map(|&k| (k, records.get(k))) {
            None | Some((_, None)) if info.chain_open => {}
            None | Some((_, None)) => cx.error_at(
                at,
                at.field("parent"),
                format!("'parent' names {parent}, which is not the id of any record in the map"),
            ),
            Some((k, _)) if k == me.index || inst.id == Some(parent) => cx.error_at(
                at,
                at.field("parent"),
                "'parent' names this override's own instance: a part is filed under another record of the map (a folder or an object)",
            ),
            Some((k, Some(r @ Record::Instance(_)))) => cx.error_at(
                at,
                at.field("parent"),
                format!(
                    "'parent' names {}, an instance: a part is filed under a folder or an object",
                    place(r, k)
                ),
            ),
            Some(_) => {}
        }
    }
    for (k, c) in p.components.iter().enumerate() {
        if !matches!(c, MapComponent::Collider(_) | MapComponent::Bake(_)) {
            error_at_component(
                cx,
                at,
                c,
                format!(
                    "a part override takes only a 'dh.collider' and a 'dh.bake'; '{}' is not one of them",
                    c.tag()
                ),
            );
        } else if p.components[..k].iter().any(|o| o.tag() == c.tag()) {
            error_at_component(
                cx,
                at,
                c,
                format!(
                    "a part override carries more than one '{}': it takes one of each",
                    c.tag()
                ),
            );
        }
    }
    let mut ccx = component_cx(me.entity, &records[me.index], "part", info);
    ccx.name = p.name.clone();
    ccx.record_at = at.clone();
    ccx.rotation = p.rotation;
    ccx.scale = p.scale.map(|s| s.axes());
    let own: Vec<MapComponent> = p
        .components
        .iter()
        .filter(|c| matches!(c, MapComponent::Collider(_) | MapComponent::Bake(_)))
        .cloned()
        .collect();
    validate_components(cx, &ccx, &own);
}

// ---- Names ------------------------------------------------------------------------------

/// The component types each record carries, an object placement's resolved source root
/// included.
fn component_types(records: &[Record], info: &MapInfo) -> Vec<Vec<String>> {
    records
        .iter()
        .map(|r| {
            let mut t: Vec<String> = r
                .component_types()
                .into_iter()
                .map(str::to_string)
                .collect();
            if let Record::Instance(inst) = r {
                if let Some((_, more)) = info
                    .source_root_components
                    .iter()
                    .find(|(s, _)| *s == inst.source)
                {
                    for m in more {
                        if !t.contains(m) {
                            t.push(m.clone());
                        }
                    }
                }
            }
            t
        })
        .collect()
}

const LOGIC_TYPES: &[&str] = &[
    "dh.button",
    "dh.mover",
    "dh.pressurePlate",
    "dh.trigger",
    "dh.teleport",
    "dh.timer",
    "dh.mapStart",
    "dh.andGate",
    "dh.orGate",
    "dh.notGate",
    "dh.physicsProp",
];
const NODE_PRESENTATION: &[&str] = &[
    "dh.light",
    "dh.lightProbeVolume",
    "dh.lightProbeGroup",
    "dh.voxelVolume",
];

fn is_logic_entity(types: &[String]) -> bool {
    types.iter().any(|t| LOGIC_TYPES.contains(&t.as_str()))
}

fn has_logic_node(types: &[String]) -> bool {
    is_logic_entity(types)
        || types
            .iter()
            .any(|t| NODE_PRESENTATION.contains(&t.as_str()))
}

fn check_logic_names(cx: &mut Cx, records: &[Record], types: &[Vec<String>]) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, (r, t)) in records.iter().zip(types).enumerate() {
        if matches!(r, Record::Folder(_)) {
            continue;
        }
        let at = r.at();
        let name = r.name().filter(|n| !n.trim().is_empty());
        if is_logic_entity(t) && name.is_none() {
            let logic: Vec<&str> = t
                .iter()
                .map(String::as_str)
                .filter(|t| LOGIC_TYPES.contains(t))
                .collect();
            cx.error_at(
                at,
                at.field("name"),
                format!(
                    "Map entity #{i} carries {} and so is a logic entity, which needs a name: required and map-unique, since a connection targets one by name",
                    logic.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        if !has_logic_node(t) {
            continue;
        }
        let Some(name) = name else { continue };
        match seen.get(name) {
            Some(&first) => {
                let other = place(&records[first], first);
                cx.error_at(
                    at,
                    at.field("name"),
                    format!(
                        "two logic entities are named '{name}' ({other} and {}): a logic entity's name must be unique in the map, since a connection targets one by name",
                        place(r, i)
                    ),
                );
            }
            None => {
                seen.insert(name, i);
            }
        }
    }
}

fn check_cameras(cx: &mut Cx, records: &[Record]) {
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut thumbnail: Option<usize> = None;
    for (i, r) in records.iter().enumerate() {
        let Some(cam) = r.components().iter().find_map(|c| match c {
            MapComponent::Camera(cam) => Some(cam),
            _ => None,
        }) else {
            continue;
        };
        let at = r.at();
        // A blank name is the camera's own rule; a repeated one is the map's.
        if let Some(name) = r.name().filter(|n| !n.trim().is_empty()) {
            match names.get(name) {
                Some(&first) => cx.error_at(
                    at,
                    at.field("name"),
                    format!(
                        "two cameras are named '{name}' ({} and {}): a camera's name is its shot's name and must be unique among the map's cameras",
                        place(&records[first], first),
                        place(r, i)
                    ),
                ),
                None => {
                    names.insert(name, i);
                }
            }
        }
        if cam.claims_thumbnail() {
            match thumbnail {
                Some(first) => cx.error_at(
                    &cam.at,
                    cam.at.field("role"),
                    format!(
                        "a second camera claims \"role\": \"mapThumbnail\" ({} already does): at most one camera per map may carry it",
                        place(&records[first], first)
                    ),
                ),
                None => thumbnail = Some(i),
            }
        }
    }
}

// ---- Wiring -----------------------------------------------------------------------------

/// Every record (not a folder) by name, in map order.
type NameIndex<'r> = HashMap<&'r str, Vec<usize>>;

/// Every connection of the map's own records (`all[base..]`) against the folded chain's
/// records: a call may target a logic record the map inherits.
fn check_wiring(cx: &mut Cx, all: &[Record], base: usize, types: &[Vec<String>], info: &MapInfo) {
    let mut names: NameIndex = HashMap::new();
    for (i, r) in all.iter().enumerate() {
        if let (false, Some(n)) = (matches!(r, Record::Folder(_)), r.name()) {
            names.entry(n).or_default().push(i);
        }
    }
    for (r, t) in all.iter().zip(types).skip(base) {
        if matches!(r, Record::Instance(i) if i.source_kind() == Some(SourceKind::Model)) {
            continue; // refused whole with the instance
        }
        let own: Vec<&str> = t.iter().map(String::as_str).collect();
        for c in r.connections() {
            check_connection(cx, &names, types, &own, c, info);
        }
    }
}

fn check_connection(
    cx: &mut Cx,
    names: &NameIndex,
    types: &[Vec<String>],
    own: &[&str],
    c: &Connection,
    info: &MapInfo,
) {
    if c.at.has("output") {
        if let Err(msg) = resolve_output(own, &c.output) {
            cx.error_at(&c.at, c.at.field("output"), msg);
        }
    }
    for a in &c.actions {
        match a {
            Action::Call(call) => check_call_action(cx, names, types, call, info.chain_open),
            Action::Delay(d) => {
                if d.seconds < 0.0 {
                    cx.error_at(
                        &d.at,
                        d.at.field("seconds"),
                        format!(
                            "a delay's 'seconds' must not be negative, found {}",
                            d.seconds
                        ),
                    );
                }
            }
            Action::SetBakeSet(s) => check_set_bake_set(cx, s, info),
        }
    }
}

fn check_call_action(
    cx: &mut Cx,
    names: &NameIndex,
    types: &[Vec<String>],
    call: &Call,
    chain_open: bool,
) {
    if !call.at.has("target") || !call.at.has("input") {
        return; // reported missing when read
    }
    let named: &[usize] = names.get(call.target.as_str()).map_or(&[], Vec::as_slice);
    // A logic entity of that name, else whatever record has it (which then declares no
    // input the call can reach).
    let target = named
        .iter()
        .copied()
        .find(|&i| types.get(i).is_some_and(|t| has_logic_node(t)))
        .or_else(|| named.first().copied());
    let Some(target) = target else {
        if chain_open {
            return; // ours: it may be a record of the parent this build cannot see
        }
        cx.error_at(
            &call.at,
            call.at.field("target"),
            format!(
                "call target '{}' names no entity in the map: a call targets a logic entity by its map-unique name",
                call.target
            ),
        );
        return;
    };
    let target_types: Vec<&str> = types
        .get(target)
        .map(|t| t.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let inputs = match resolve_input(&target_types, &call.input) {
        Ok(inputs) => inputs,
        Err(msg) => {
            cx.error_at(
                &call.at,
                call.at.field("input"),
                format!("call to '{}': {msg}", call.target),
            );
            return;
        }
    };
    if let Err(msg) = check_args(&call.input, &inputs, call.param, call.value.as_ref()) {
        let span = if call.at.has("value") {
            call.at.field("value")
        } else if call.at.has("param") {
            call.at.field("param")
        } else {
            call.at.field("input")
        };
        cx.error_at(&call.at, span, format!("call to '{}': {msg}", call.target));
    }
}

fn check_set_bake_set(cx: &mut Cx, s: &SetBakeSet, info: &MapInfo) {
    if let Some(fade) = s.fade.filter(|f| *f < 0.0) {
        cx.error_at(
            &s.at,
            s.at.field("fade"),
            format!("setBakeSet 'fade' must not be negative, found {fade}"),
        );
    }
    if !s.at.has("zone") || !s.at.has("set") {
        return;
    }
    let Some(zone) = info.bake_zones.iter().find(|z| z.id == s.zone) else {
        if info.chain_open {
            return; // ours: the unseen parent may declare it
        }
        let zones: Vec<&str> = info.bake_zones.iter().map(|z| z.id.as_str()).collect();
        cx.error_at(
            &s.at,
            s.at.field("zone"),
            format!(
                "setBakeSet names bake zone '{}', which the map does not declare; {}",
                s.zone,
                if zones.is_empty() {
                    "lighting.bakeZones declares none".to_string()
                } else {
                    format!("lighting.bakeZones declares: {}", zones.join(", "))
                }
            ),
        );
        return;
    };
    if s.set != "default" && !zone.sets.contains(&s.set) && !info.chain_open {
        let mut sets = vec!["default"];
        sets.extend(zone.sets.iter().map(String::as_str));
        cx.error_at(
            &s.at,
            s.at.field("set"),
            format!(
                "setBakeSet names set '{}', which bake zone '{}' does not declare; its sets are: {}",
                s.set,
                zone.id,
                sets.join(", ")
            ),
        );
    }
}

// ---- Poses ------------------------------------------------------------------------------

/// An affine transform: a 3x3 linear part (rows) and a translation.
#[derive(Debug, Clone, Copy)]
struct Affine {
    m: [[f64; 3]; 3],
    t: [f64; 3],
}

impl Affine {
    const IDENTITY: Affine = Affine {
        m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// Translation · rotation (euler degrees `[pitch, yaw, roll]`: roll about Z first,
    /// then pitch about X, then yaw about Y, as `CreateFromYawPitchRoll`) · scale.
    fn from_pose(position: Vec3, rotation: Vec3, scale: Vec3) -> Affine {
        let [p, y, r] = rotation.0.map(f64::to_radians);
        let rx = [
            [1.0, 0.0, 0.0],
            [0.0, p.cos(), -p.sin()],
            [0.0, p.sin(), p.cos()],
        ];
        let ry = [
            [y.cos(), 0.0, y.sin()],
            [0.0, 1.0, 0.0],
            [-y.sin(), 0.0, y.cos()],
        ];
        let rz = [
            [r.cos(), -r.sin(), 0.0],
            [r.sin(), r.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let rot = mul3(&mul3(&ry, &rx), &rz);
        let mut m = rot;
        for row in m.iter_mut() {
            for (v, s) in row.iter_mut().zip(scale.0) {
                *v *= s;
            }
        }
        Affine { m, t: position.0 }
    }

    fn then_local(&self, local: &Affine) -> Affine {
        Affine {
            m: mul3(&self.m, &local.m),
            t: self.apply(local.t),
        }
    }

    fn apply(&self, v: [f64; 3]) -> [f64; 3] {
        let mut out = self.t;
        for (o, row) in out.iter_mut().zip(self.m) {
            *o += row[0] * v[0] + row[1] * v[1] + row[2] * v[2];
        }
        out
    }

    /// `self⁻¹ · point`, `None` when the linear part is singular.
    fn inverse_apply(&self, point: [f64; 3]) -> Option<[f64; 3]> {
        let m = &self.m;
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if !det.is_finite() || det.abs() < 1e-12 {
            return None;
        }
        let d = [
            point[0] - self.t[0],
            point[1] - self.t[1],
            point[2] - self.t[2],
        ];
        // Cramer's rule.
        let solve = |col: usize| {
            let mut n = *m;
            for (row, v) in n.iter_mut().zip(d) {
                row[col] = v;
            }
            (n[0][0] * (n[1][1] * n[2][2] - n[1][2] * n[2][1])
                - n[0][1] * (n[1][0] * n[2][2] - n[1][2] * n[2][0])
                + n[0][2] * (n[1][0] * n[2][1] - n[1][1] * n[2][0]))
                / det
        };
        Some([solve(0), solve(1), solve(2)])
    }
}

fn mul3(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

fn local_pose(r: &Record) -> Affine {
    let (p, q, s) = match r {
        Record::Folder(_) => return Affine::IDENTITY,
        Record::Object(o) => (o.position, o.rotation, o.scale),
        Record::BoxBrush(b) => (b.object.position, b.object.rotation, b.object.scale),
        Record::Instance(x) => (x.position, x.rotation, x.scale),
    };
    Affine::from_pose(
        p.unwrap_or(Vec3::ZERO),
        q.unwrap_or(Vec3::ZERO),
        s.unwrap_or(Vec3::ONE),
    )
}

/// A record's world transform, composed down its parent chain (`None` on a loop).
fn world_pose(records: &[Record], ids: &HashMap<Guid, usize>, index: usize) -> Option<Affine> {
    let mut chain = vec![index];
    let mut cur = index;
    while let Some(p) = records
        .get(cur)?
        .parent()
        .and_then(|g| ids.get(&g).copied())
    {
        if chain.contains(&p) {
            return None;
        }
        chain.push(p);
        cur = p;
    }
    let mut world = Affine::IDENTITY;
    for &k in chain.iter().rev() {
        world = world.then_local(&local_pose(records.get(k)?));
    }
    Some(world)
}

/// Where the record named `name` stands, in record `index`'s own frame.
fn local_position(
    records: &[Record],
    ids: &HashMap<Guid, usize>,
    index: usize,
    name: &str,
) -> Option<Vec3> {
    let target = records.iter().position(|r| r.name() == Some(name))?;
    let point = world_pose(records, ids, target)?.apply([0.0; 3]);
    world_pose(records, ids, index)?
        .inverse_apply(point)
        .map(Vec3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_compose_and_invert() {
        // A parent at x=10 turned 90° about +Y: its local +Z... is world +X.
        let parent = Affine::from_pose(Vec3([10.0, 0.0, 0.0]), Vec3([0.0, 90.0, 0.0]), Vec3::ONE);
        let p = parent.apply([0.0, 0.0, 1.0]);
        assert!(
            (p[0] - 11.0).abs() < 1e-9 && p[1].abs() < 1e-9 && p[2].abs() < 1e-9,
            "{p:?}"
        );
        let back = parent.inverse_apply([11.0, 0.0, 0.0]).unwrap();
        assert!(
            (back[2] - 1.0).abs() < 1e-9 && back[0].abs() < 1e-9,
            "{back:?}"
        );
        let flat = Affine::from_pose(Vec3::ZERO, Vec3::ZERO, Vec3([1.0, 0.0, 1.0]));
        assert!(flat.inverse_apply([0.0, 1.0, 0.0]).is_none());
    }
}
