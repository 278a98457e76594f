//! The identity sidecar (`<model>.dh-ids`, spec: dh.map, "The identity sidecar"): a
//! model's memory of its parts' local ids, re-matched against the scene on every compile
//! so a part keeps its id across a rename or a re-parent.
//!
//! The file is JSON written by the compiler (stable order, one entry per line group):
//!
//! ```json
//! {
//!   "version": 1,
//!   "model": "dev.example:meshes/city.glb",
//!   "parts": [
//!     { "id": "…", "path": "buildings/block03/wall_north", "name": "wall_north",
//!       "parent": "buildings/block03", "sibling": 2, "hash": "9f1c…" },
//!     { "id": "…", "path": "old/shed", "name": "shed", "parent": "old", "sibling": 0,
//!       "hash": "…", "orphan": true, "retarget": "new/shed" }
//!   ]
//! }
//! ```
//!
//! `hash` is the part's content digest (empty on a structural part, which has no
//! geometry); `orphan` marks an identity whose node is gone (kept, so re-adding the node
//! restores it); `retarget` is the one field a person writes: the live path this orphan's
//! id moves to, honored before every tier and cleared once honored.

use crate::jsonc::{Kind, Member, Span, Value};
use crate::schema::common::Guid;

/// The format version this compiler writes and reads.
pub const IDS_VERSION: u32 = 1;

/// The most entries a sidecar may hold.
pub const MAX_IDS_ENTRIES: usize = 1 << 22;

/// One recorded identity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdsEntry {
    /// The local id.
    pub id: Guid,
    /// The part's path when last seen.
    pub path: String,
    /// The node's own name when last seen.
    pub name: String,
    /// Its parent's path (empty for a scene root).
    pub parent: String,
    /// Its position among its siblings.
    pub sibling: u32,
    /// Its content digest (hex), empty on a structural part.
    pub hash: String,
    /// Whether the node was gone at the last compile.
    pub orphan: bool,
    /// The live path a person asked this identity to move to.
    pub retarget: Option<String>,
}

/// A whole identity sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdsFile {
    /// The model's barcode (`<palletId>:<path>`) when written.
    pub model: String,
    /// Live identities first (in part order), then orphans.
    pub parts: Vec<IdsEntry>,
}

/// Why an identity sidecar could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: expected {expected}")]
pub struct IdsError {
    /// Where (`parts[3].id`), or `line:col` for a syntax error.
    pub place: String,
    /// What was expected there.
    pub expected: String,
}

fn err(place: impl Into<String>, expected: impl Into<String>) -> IdsError {
    IdsError {
        place: place.into(),
        expected: expected.into(),
    }
}

fn s(v: &Value, key: &str, place: &str, required: bool) -> Result<Option<String>, IdsError> {
    match v.get(key) {
        None if required => Err(err(format!("{place}.{key}"), "a string")),
        None => Ok(None),
        Some(x) => x
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| err(format!("{place}.{key}"), "a string")),
    }
}

impl IdsFile {
    /// Reads a sidecar's text.
    pub fn parse(text: &str) -> Result<IdsFile, IdsError> {
        let v =
            crate::jsonc::parse(text).map_err(|e| err(format!("byte {}", e.offset), e.message))?;
        if v.as_object().is_none() {
            return Err(err("the file", "a JSON object"));
        }
        match v.get("version").and_then(Value::as_f64) {
            Some(n) if n == f64::from(IDS_VERSION) => {}
            Some(n) => {
                return Err(err(
                    "version",
                    format!("{IDS_VERSION} (this compiler's format), found {n}"),
                ))
            }
            None => return Err(err("version", "a number")),
        }
        let model = s(&v, "model", "", false)?.unwrap_or_default();
        let items = match v.get("parts") {
            None => &[][..],
            Some(p) => p.as_array().ok_or_else(|| err("parts", "an array"))?,
        };
        if items.len() > MAX_IDS_ENTRIES {
            return Err(err(
                "parts",
                format!("at most {MAX_IDS_ENTRIES} entries, found {}", items.len()),
            ));
        }
        let mut parts = Vec::with_capacity(items.len());
        for (i, e) in items.iter().enumerate() {
            let place = format!("parts[{i}]");
            let id_text = s(e, "id", &place, true)?.unwrap_or_default();
            let id = Guid::parse(&id_text)
                .filter(|g| !g.is_nil())
                .ok_or_else(|| err(format!("{place}.id"), "a non-nil GUID"))?;
            let sibling = match e.get("sibling") {
                None => 0,
                Some(x) => match x.as_f64() {
                    Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
                    _ => return Err(err(format!("{place}.sibling"), "a non-negative integer")),
                },
            };
            let orphan = match e.get("orphan").map(|x| &x.kind) {
                None => false,
                Some(Kind::Bool(b)) => *b,
                Some(_) => return Err(err(format!("{place}.orphan"), "true or false")),
            };
            parts.push(IdsEntry {
                id,
                path: s(e, "path", &place, true)?.unwrap_or_default(),
                name: s(e, "name", &place, false)?.unwrap_or_default(),
                parent: s(e, "parent", &place, false)?.unwrap_or_default(),
                sibling,
                hash: s(e, "hash", &place, false)?.unwrap_or_default(),
                orphan,
                retarget: s(e, "retarget", &place, false)?.filter(|r| !r.is_empty()),
            });
        }
        Ok(IdsFile { model, parts })
    }

    /// The sidecar's text: stable, one part per line, ending in a newline.
    pub fn to_text(&self) -> String {
        let str_v = |s: &str| Value::synthetic(Kind::String(s.to_string()));
        let mem = |k: &str, v: Value| Member {
            key: k.to_string(),
            key_span: Span::default(),
            value: v,
        };
        let mut out = String::from("{\n  \"version\": ");
        out.push_str(&IDS_VERSION.to_string());
        out.push_str(",\n  \"model\": ");
        out.push_str(&str_v(&self.model).to_json());
        out.push_str(",\n  \"parts\": [");
        for (i, e) in self.parts.iter().enumerate() {
            let mut m = vec![
                mem("id", str_v(&e.id.to_string())),
                mem("path", str_v(&e.path)),
                mem("name", str_v(&e.name)),
                mem("parent", str_v(&e.parent)),
                mem(
                    "sibling",
                    Value::synthetic(Kind::Number(f64::from(e.sibling))),
                ),
                mem("hash", str_v(&e.hash)),
            ];
            if e.orphan {
                m.push(mem("orphan", Value::synthetic(Kind::Bool(true))));
            }
            if let Some(r) = &e.retarget {
                m.push(mem("retarget", str_v(r)));
            }
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&Value::synthetic(Kind::Object(m)).to_json());
        }
        if !self.parts.is_empty() {
            out.push_str("\n  ");
        }
        out.push_str("]\n}\n");
        out
    }
}
