//! A blockstate file (`blockstates/<id>.json`): `variants` (property-string keys, `""`
//! for every state, each a choice or a weighted list) or `multipart` (parts with a
//! `when` of property values, `OR` or `AND`, each applying a choice or a weighted list).

use crate::jsonc::{Kind, Value};
use crate::schema::block::Condition;

use super::model::{model_id, parse_json, Json};
use super::PlatformError;

/// Most rules one blockstate may hold.
pub const MAX_RULES: usize = 8192;
/// Deepest `OR` / `AND` nesting read.
pub const MAX_CONDITION_DEPTH: usize = 16;

/// One weighted choice.
#[derive(Debug, Clone, PartialEq)]
pub struct RawChoice {
    /// `minecraft:block/oak_stairs`.
    pub model: String,
    /// X turn.
    pub x: i32,
    /// Y turn.
    pub y: i32,
    /// uvlock.
    pub uvlock: bool,
    /// Weight ≥ 1.
    pub weight: u32,
}

/// One rule.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRule {
    /// `None`: always.
    pub when: Option<Condition>,
    /// The choices.
    pub apply: Vec<RawChoice>,
}

/// A blockstate read.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockState {
    /// Multipart.
    pub multipart: bool,
    /// Its rules in file order.
    pub rules: Vec<RawRule>,
}

fn choice(j: &Json, v: &Value) -> Result<RawChoice, PlatformError> {
    if v.as_object().is_none() {
        return Err(j.err(v, "a choice must be an object with a 'model'"));
    }
    let m = v
        .get("model")
        .ok_or_else(|| j.err(v, "a choice needs 'model'"))?;
    let turn = |k: &str| -> Result<i32, PlatformError> {
        match v.get(k) {
            None => Ok(0),
            Some(t) => {
                let n = j.int(t, k, 0, 270)?;
                if n % 90 != 0 {
                    return Err(j.err(t, format!("'{k}' must be 0, 90, 180 or 270")));
                }
                Ok(n as i32)
            }
        }
    };
    Ok(RawChoice {
        model: model_id(j.string(m, "model")?),
        x: turn("x")?,
        y: turn("y")?,
        uvlock: v
            .get("uvlock")
            .map(|b| j.boolean(b, "uvlock"))
            .transpose()?
            .unwrap_or(false),
        weight: v
            .get("weight")
            .map(|w| j.int(w, "weight", 1, i32::MAX as i64).map(|n| n as u32))
            .transpose()?
            .unwrap_or(1),
    })
}

fn choices(j: &Json, v: &Value) -> Result<Vec<RawChoice>, PlatformError> {
    match &v.kind {
        Kind::Array(items) => {
            if items.is_empty() {
                return Err(j.err(v, "a weighted list must hold at least one choice"));
            }
            items.iter().map(|i| choice(j, i)).collect()
        }
        _ => Ok(vec![choice(j, v)?]),
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match &v.kind {
        Kind::String(s) => Some(s.clone()),
        Kind::Bool(b) => Some(b.to_string()),
        Kind::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Some(format!("{}", *n as i64)),
        _ => None,
    }
}

fn condition(j: &Json, v: &Value, depth: usize) -> Result<Condition, PlatformError> {
    if depth > MAX_CONDITION_DEPTH {
        return Err(j.err(
            v,
            format!("conditions nest deeper than {MAX_CONDITION_DEPTH}"),
        ));
    }
    let members = v
        .as_object()
        .ok_or_else(|| j.err(v, "'when' must be an object"))?;
    if let [m] = members {
        if m.key == "OR" || m.key == "AND" {
            let items = m.value.as_array().ok_or_else(|| {
                j.err(
                    &m.value,
                    format!("'{}' must be a list of conditions", m.key),
                )
            })?;
            let list = items
                .iter()
                .map(|c| condition(j, c, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(if m.key == "OR" {
                Condition::Or(list)
            } else {
                Condition::And(list)
            });
        }
    }
    let mut pairs = Vec::with_capacity(members.len());
    for m in members {
        let s = scalar_text(&m.value)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                j.err(
                    &m.value,
                    format!("'{}' must be a value or values joined by |", m.key),
                )
            })?;
        pairs.push((m.key.clone(), s));
    }
    Ok(Condition::All(pairs))
}

/// A variant key (`facing=east,half=bottom`, `""`, `normal`) as a condition; `None`
/// for every state.
fn variant_key(j: &Json, key: &str, at: &Value) -> Result<Option<Condition>, PlatformError> {
    if key.is_empty() || key == "normal" {
        return Ok(None);
    }
    let mut pairs = Vec::new();
    for kv in key.split(',') {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| {
                j.err(
                    at,
                    format!("the variant key '{key}' is not property=value pairs joined by commas"),
                )
            })?;
        pairs.push((k.to_string(), v.to_string()));
    }
    Ok(Some(Condition::All(pairs)))
}

/// Reads a blockstate file's bytes (`file` names it).
pub fn read_blockstate(file: &str, bytes: &[u8]) -> Result<BlockState, PlatformError> {
    let (text, v) = parse_json(file, bytes)?;
    let j = Json { file, text: &text };
    if v.as_object().is_none() {
        return Err(j.err(&v, "a blockstate must be a JSON object"));
    }
    let mut rules = Vec::new();
    let multipart = match (v.get("variants"), v.get("multipart")) {
        (Some(vs), None) => {
            let members = vs
                .as_object()
                .ok_or_else(|| j.err(vs, "'variants' must be an object"))?;
            for m in members {
                rules.push(RawRule {
                    when: variant_key(&j, &m.key, &m.value)?,
                    apply: choices(&j, &m.value)?,
                });
            }
            false
        }
        (None, Some(parts)) => {
            let items = parts
                .as_array()
                .ok_or_else(|| j.err(parts, "'multipart' must be a list of parts"))?;
            for p in items {
                if p.as_object().is_none() {
                    return Err(j.err(p, "a part must be an object with 'apply'"));
                }
                let apply = p
                    .get("apply")
                    .ok_or_else(|| j.err(p, "a part needs 'apply'"))?;
                rules.push(RawRule {
                    when: p.get("when").map(|w| condition(&j, w, 0)).transpose()?,
                    apply: choices(&j, apply)?,
                });
            }
            true
        }
        (Some(_), Some(_)) => {
            return Err(j.err(&v, "a blockstate holds 'variants' or 'multipart', not both"))
        }
        (None, None) => return Err(j.err(&v, "a blockstate needs 'variants' or 'multipart'")),
    };
    if rules.len() > MAX_RULES {
        return Err(j.err(
            &v,
            format!(
                "{} rules; a blockstate may hold at most {MAX_RULES}",
                rules.len()
            ),
        ));
    }
    Ok(BlockState { multipart, rules })
}
