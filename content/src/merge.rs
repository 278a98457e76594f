//! The one merge rule (spec, dh.object "Records and overrides"; dh.map "The merge rule").
//!
//! Every override layer — a variant over its base object, an added record over its
//! source, a map instance over the object it places, a part override over its part — is
//! laid over the layer beneath it by one rule, on JSON values:
//!
//! * a map (JSON object) merges key by key, and a record nested inside one merges
//!   recursively: a renderer's `materials` naming one slot keeps every other slot;
//! * a scalar replaces, and a list replaces whole: a reaction's `actions` restated is the
//!   whole new list;
//! * unset or `null` inherits;
//! * `"removed": true` removes, and nothing else does: on a part's override it drops the
//!   part, on an added record the record, on a component the component it names.
//!
//! Three lists of a record are not plain lists but sets of entries matched to the ones
//! they override ([`KEYED_LISTS`]): `components` by type and key ([`component_key`]),
//! `children` by the part they name ([`part_key`]) and `objects` by record id.
//!
//! Within one layer two entries that name the same thing leave one answer, and it is the
//! last (spec, "How an override finds its part"); for components and added records a
//! second entry is also a build error, which the schema's validators report using
//! [`component_key`] and [`duplicate_keys`].

use crate::jsonc::{Kind, Member, Value};

/// The lists of a record whose entries are matched to the entries they override rather
/// than replaced whole, with what matches them.
pub const KEYED_LISTS: &[(&str, ListKey)] = &[
    ("components", ListKey::Component),
    ("children", ListKey::Part),
    ("objects", ListKey::RecordId),
];

/// How the entries of a keyed list are matched across layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKey {
    /// Components: by `$type`, and by the type's key fields where it has some
    /// ([`COMPONENT_KEYS`]). A removed component is dropped.
    Component,
    /// Part overrides: by `id` where both entries carry one, else by `path`. A removed
    /// part's override is kept (with `"removed": true`), since the part it drops lives in
    /// the model, not in the layer beneath.
    Part,
    /// Added records: by `id`. A removed record is dropped.
    RecordId,
}

/// The component types that are keyed beyond their type, and by which fields: an owner
/// holds one of each type per key (spec: "a dh.springCollider by its id, a dh.reaction by
/// its on and tier").
pub const COMPONENT_KEYS: &[(&str, &[&str])] = &[
    ("dh.springCollider", &["id"]),
    ("dh.reaction", &["on", "tier"]),
];

/// Fields of a component that are one anchor: a layer that states any of them replaces
/// them all (spec, dh.springCollider: "bone and node are one anchor: a collider that sets
/// either replaces both").
pub const ANCHOR_GROUPS: &[(&str, &[&str])] = &[("dh.springCollider", &["bone", "node"])];

/// What a component is matched by: its type and the values of its key fields (a key field
/// left unset is `None`, which is a key of its own: a `dh.reaction` with no `tier` is not
/// the one with `"tier": "big"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentKey {
    /// The component's `$type`.
    pub type_name: String,
    /// The key fields' values as canonical JSON, in [`COMPONENT_KEYS`] order.
    pub key: Vec<Option<String>>,
}

/// The key a component entry is matched by, or `None` when it states no `$type` string
/// (such an entry matches nothing and is kept as written).
pub fn component_key(component: &Value) -> Option<ComponentKey> {
    let type_name = component.get("$type")?.as_str()?.to_string();
    let fields = COMPONENT_KEYS
        .iter()
        .find(|(t, _)| *t == type_name)
        .map(|(_, f)| *f)
        .unwrap_or(&[]);
    let key = fields
        .iter()
        .map(|f| non_null(component.get(f)).map(Value::to_json))
        .collect();
    Some(ComponentKey { type_name, key })
}

/// How a part override names its part: its `id` (compared without regard to ASCII case, as
/// GUIDs are) and its `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartKey {
    /// The part's recorded id, lower-cased.
    pub id: Option<String>,
    /// The part's path in the model.
    pub path: Option<String>,
}

impl PartKey {
    /// Whether two overrides name the same part: by id where both carry one, else by
    /// path (spec: "id is tried first; path is the anchor when the override has no id").
    pub fn same_part(&self, other: &PartKey) -> bool {
        match (&self.id, &other.id) {
            (Some(a), Some(b)) => a == b,
            _ => matches!((&self.path, &other.path), (Some(a), Some(b)) if a == b),
        }
    }
}

/// The part a part override names, or `None` when it states neither `id` nor `path`.
pub fn part_key(entry: &Value) -> Option<PartKey> {
    let id = non_null(entry.get("id"))
        .and_then(Value::as_str)
        .map(|s| s.to_ascii_lowercase());
    let path = non_null(entry.get("path"))
        .and_then(Value::as_str)
        .map(str::to_string);
    if id.is_none() && path.is_none() {
        return None;
    }
    Some(PartKey { id, path })
}

/// Whether an entry states `"removed": true`.
pub fn is_removed(entry: &Value) -> bool {
    matches!(
        entry.get("removed").map(|v| &v.kind),
        Some(Kind::Bool(true))
    )
}

/// The indices of entries of one layer's keyed list that repeat an earlier entry's key,
/// each paired with the index of the first entry holding that key. For `components` and
/// `objects` each pair is a build error ("an owner holds one of each type per key").
pub fn duplicate_keys(list_name: &str, entries: &[Value]) -> Vec<(usize, usize)> {
    let Some(kind) = list_kind(list_name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(first) =
            (0..i).find(|&j| entries.get(j).is_some_and(|p| same_entry(kind, p, e)))
        {
            out.push((i, first));
        }
    }
    out
}

/// Lays `over` over `base` by the one merge rule and returns the result. Deterministic:
/// members keep `base`'s order, and members `over` adds follow in `over`'s order; in a
/// keyed list, `base`'s entries keep their places and `over`'s new entries follow.
pub fn merge(base: &Value, over: &Value) -> Value {
    match (&base.kind, &over.kind) {
        (_, Kind::Null) => strip_nulls(base),
        (Kind::Object(b), Kind::Object(o)) => Value {
            kind: Kind::Object(merge_members(b, o)),
            span: over.span,
        },
        // An object over anything else merges over nothing.
        (_, Kind::Object(o)) => Value {
            kind: Kind::Object(merge_members(&[], o)),
            span: over.span,
        },
        _ => over.clone(),
    }
}

/// Merges a list of layers, weakest first (the root source first, the outermost layer
/// last). No layers is `null`.
pub fn merge_all<'a>(layers: impl IntoIterator<Item = &'a Value>) -> Value {
    let mut acc: Option<Value> = None;
    for layer in layers {
        acc = Some(match acc {
            None => merge(&Value::synthetic(Kind::Object(Vec::new())), layer),
            Some(a) => merge(&a, layer),
        });
    }
    acc.unwrap_or_else(|| Value::synthetic(Kind::Null))
}

/// Merges one keyed list (`components`, `children` or `objects`) of a layer over the same
/// list beneath it. A `list_name` that is not a keyed list replaces whole.
pub fn merge_list(list_name: &str, base: &[Value], over: &[Value]) -> Vec<Value> {
    match list_kind(list_name) {
        Some(kind) => merge_keyed(kind, base, over),
        None => over.iter().map(strip_nulls).collect(),
    }
}

fn list_kind(name: &str) -> Option<ListKey> {
    KEYED_LISTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
}

fn non_null(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !matches!(v.kind, Kind::Null))
}

fn merge_members(base: &[Member], over: &[Member]) -> Vec<Member> {
    let mut out: Vec<Member> = Vec::with_capacity(base.len() + over.len());
    for b in base {
        if matches!(b.value.kind, Kind::Null) {
            continue;
        }
        match over.iter().rev().find(|o| o.key == b.key) {
            Some(o) if !matches!(o.value.kind, Kind::Null) => out.push(Member {
                key: b.key.clone(),
                key_span: o.key_span,
                value: merge_member(&b.key, &b.value, &o.value),
            }),
            _ => out.push(strip_member(b)),
        }
    }
    for o in over {
        if matches!(o.value.kind, Kind::Null)
            || base.iter().any(|b| b.key == o.key)
            || out.iter().any(|m| m.key == o.key)
        {
            continue;
        }
        // A member `over` adds merges over nothing: nulls inside it inherit nothing, and a
        // keyed list's removed entries have nothing to remove.
        let value = match (list_kind(&o.key), &o.value.kind) {
            (Some(kind), Kind::Array(items)) => Value {
                kind: Kind::Array(merge_keyed(kind, &[], items)),
                span: o.value.span,
            },
            _ => strip_nulls(&o.value),
        };
        out.push(Member {
            key: o.key.clone(),
            key_span: o.key_span,
            value,
        });
    }
    out
}

fn merge_member(key: &str, base: &Value, over: &Value) -> Value {
    match (list_kind(key), &base.kind, &over.kind) {
        (Some(kind), Kind::Array(b), Kind::Array(o)) => Value {
            kind: Kind::Array(merge_keyed(kind, b, o)),
            span: over.span,
        },
        _ => merge(base, over),
    }
}

fn strip_member(m: &Member) -> Member {
    Member {
        key: m.key.clone(),
        key_span: m.key_span,
        value: strip_nulls(&m.value),
    }
}

/// A copy of `v` with every `null` object member left out (unset inherits, and over
/// nothing there is nothing to inherit). Lists are copied as written.
fn strip_nulls(v: &Value) -> Value {
    match &v.kind {
        Kind::Object(members) => Value {
            kind: Kind::Object(
                members
                    .iter()
                    .filter(|m| !matches!(m.value.kind, Kind::Null))
                    .map(strip_member)
                    .collect(),
            ),
            span: v.span,
        },
        _ => v.clone(),
    }
}

fn same_entry(kind: ListKey, a: &Value, b: &Value) -> bool {
    match kind {
        ListKey::Component => match (component_key(a), component_key(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
        ListKey::Part => match (part_key(a), part_key(b)) {
            (Some(x), Some(y)) => x.same_part(&y),
            _ => false,
        },
        ListKey::RecordId => match (
            non_null(a.get("id")).and_then(Value::as_str),
            non_null(b.get("id")).and_then(Value::as_str),
        ) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// One layer's entries with repeats resolved: an entry naming what an earlier one named
/// takes that entry's place (the last is the answer).
fn last_of_each(kind: ListKey, entries: &[Value]) -> Vec<&Value> {
    let mut out: Vec<&Value> = Vec::with_capacity(entries.len());
    for e in entries {
        match out.iter().position(|p| same_entry(kind, p, e)) {
            Some(i) => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = e;
                }
            }
            None => out.push(e),
        }
    }
    out
}

fn merge_keyed(kind: ListKey, base: &[Value], over: &[Value]) -> Vec<Value> {
    let over = last_of_each(kind, over);
    let mut used = vec![false; over.len()];
    let mut out: Vec<Value> = Vec::with_capacity(base.len() + over.len());
    for b in base {
        let hit = over
            .iter()
            .enumerate()
            .find(|(i, o)| !used.get(*i).copied().unwrap_or(true) && same_entry(kind, b, o));
        let merged = match hit {
            Some((i, o)) => {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                merge_entry(kind, b, o)
            }
            None => strip_nulls(b),
        };
        out.push(merged);
    }
    for (i, o) in over.iter().enumerate() {
        if !used.get(i).copied().unwrap_or(true) {
            out.push(merge_entry(
                kind,
                &Value::synthetic(Kind::Object(Vec::new())),
                o,
            ));
        }
    }
    out.retain(|e| kind == ListKey::Part || !is_removed(e));
    out
}

fn merge_entry(kind: ListKey, base: &Value, over: &Value) -> Value {
    if kind == ListKey::Component {
        if let Some(t) = over.get("$type").and_then(Value::as_str) {
            if let Some((_, group)) = ANCHOR_GROUPS.iter().find(|(ty, _)| *ty == t) {
                if group.iter().any(|f| non_null(over.get(f)).is_some()) {
                    let trimmed = without_members(base, group);
                    return merge(&trimmed, over);
                }
            }
        }
    }
    merge(base, over)
}

fn without_members(v: &Value, keys: &[&str]) -> Value {
    match &v.kind {
        Kind::Object(members) => Value {
            kind: Kind::Object(
                members
                    .iter()
                    .filter(|m| !keys.contains(&m.key.as_str()))
                    .cloned()
                    .collect(),
            ),
            span: v.span,
        },
        _ => v.clone(),
    }
}
