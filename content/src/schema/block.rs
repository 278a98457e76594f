//! `dh.block` (`blocks/<id>.dh-block`): one block of a platform pallet, the way the
//! engine draws it, lights it and collides with it (spec dh.voxel, "How a block is
//! drawn", "Models in the chunk mesh", "Light", "Block shapes", "Fluids"). The spec
//! names the type, its place and what it supplies (models and materials picked by a
//! rule table from the entry's properties, `lightEmission` by state, `lightShape`, a
//! fluid, a collision shape, an `inherits` chain) but gives no field table: the field
//! set below is ours. It is closed: an unknown member is an error listing the fields.
//!
//! ```jsonc
//! {
//!   "$type": "dh.block",
//!   "id": "minecraft:oak_slab",
//!   // Rules are tried in order: the first whose `when` holds applies, or with
//!   // "multipart": true every one that holds (a fence's post and arms).
//!   "rules": [
//!     { "when": { "type": "bottom" }, "apply": [ { "model": "minecraft:block/oak_slab" } ] },
//!     { "when": { "type": "top|double" }, "apply": [ { "model": "minecraft:block/oak_slab_top", "x": 180, "uvlock": true, "weight": 1 } ] }
//!   ],
//!   // Baked models, folded: the parent chain resolved, every texture a pallet path.
//!   "models": { "minecraft:block/oak_slab": { "elements": [ {
//!     "from": [0, 0, 0], "to": [16, 8, 16],
//!     "faces": { "up": { "uv": [0, 0, 16, 16], "texture": "/textures/block/oak_planks.png", "cullFace": "up" } } } ] } },
//!   "alphaMode": "opaque", "surface": "wood",
//!   "lightEmission": { "level": 0, "byState": [ { "when": { "lit": "true" }, "level": 13 } ] },
//!   "lightShape": true,
//!   "collision": "model"
//! }
//! ```
//!
//! | member | type | meaning (all ours) |
//! | --- | --- | --- |
//! | `id` | string, required | the block, `namespace:id` |
//! | `inherits` | string | another `.dh-block` whose members this one reads where it states none (a member stated replaces the parent's whole); the importer writes none, everything folded |
//! | `multipart` | bool | every matching rule applies (Minecraft's multipart), not only the first |
//! | `rules` | list of `{ when, apply }` | `when` a condition (below; absent: always); `apply` the weighted choices, one picked by the cell's position |
//! | choice | `{ model, x, y, uvlock, weight }` | a key of `models`; x and y turns in degrees (0, 90, 180, 270); uvlock keeps textures unturned; weight ≥ 1 (default 1) |
//! | `models` | `{ key: { ambientOcclusion, elements } }` | each model baked: elements `{ from, to, rotation, shade, lightEmission, faces }` in 1/16 block, faces `down up north south west east` of `{ uv, texture, cullFace, rotation, tintIndex }` |
//! | `alphaMode` | `opaque`, `mask`, `blend` | the material's surface, as a dh.material says it: opaque, cutout, translucent |
//! | `surface` | surface preset | what footsteps, grip and impacts read |
//! | `tint` | string | what a face with a `tintIndex` is tinted by: `grass`, `foliage`, `water` (by the cell's biome), `redstone` (by power), `stem` (by age), or a fixed `#rrggbb` |
//! | `lightEmission` | `{ level, byState }` | the light it gives, 0 to 15: the first `byState` row whose `when` holds, else `level` (default 0) |
//! | `lightShape` | bool | the sides its model covers stop light (a bottom slab passes light up and sideways, not down) |
//! | `fluid` | `{ name, levelProperty, loggedProperty, still, flow }` | drawn from its level as a fluid, not from its model |
//! | `collision` | `cube`, `none`, `model` or boxes | what a solid block collides as: a whole cube, nothing, the model's elements turned by the same rule, or boxes `[x0, y0, z0, x1, y1, z1]` in 1/16 block |
//! | `collisionHeight` | number | every collision box stands up to this height, in 1/16 block (a fence's 24: a block and a half) |
//!
//! A condition is an object of `property: "value"` pairs (every pair must hold; `a|b`
//! holds for either), or `{ "OR": [conditions] }` or `{ "AND": [conditions] }`, as
//! Minecraft's blockstates write them. An entry lacking a property fails a pair on it.

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Kind, Member, Span, Value};
use crate::read::{member, parse_source, read_block, Cx, FromJson, Mode, Table, ToJson};
use crate::schema::common::Vec3;
use crate::schema::material::{strip_type, AlphaMode};
use crate::schema::surface::{surface_names, surface_preset};

/// The `$type` of a block definition.
pub const TYPE_ID: &str = "dh.block";
/// The extension of a block definition.
pub const EXTENSION: &str = ".dh-block";

/// A rule's condition on an entry's properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Condition {
    /// Every `(property, values)` pair holds; `values` may hold `|`-separated
    /// alternatives. Empty: always.
    All(Vec<(String, String)>),
    /// Any one holds.
    Or(Vec<Condition>),
    /// Every one holds.
    And(Vec<Condition>),
    /// Unread (a condition that failed to read); never holds.
    #[default]
    Invalid,
}

impl Condition {
    /// Whether the condition holds for an entry whose property `k` reads `prop(k)`.
    pub fn holds(&self, prop: &dyn Fn(&str) -> Option<String>) -> bool {
        match self {
            Condition::All(pairs) => pairs
                .iter()
                .all(|(k, vs)| prop(k).is_some_and(|v| vs.split('|').any(|alt| alt == v))),
            Condition::Or(cs) => cs.iter().any(|c| c.holds(prop)),
            Condition::And(cs) => cs.iter().all(|c| c.holds(prop)),
            Condition::Invalid => false,
        }
    }
}

impl FromJson for Condition {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Kind::Object(members) = &v.kind else {
            cx.expected("an object (a condition: property values, OR or AND)", v);
            return None;
        };
        if let [m] = members.as_slice() {
            if m.key == "OR" || m.key == "AND" {
                let list: Vec<Condition> = cx.at_key(&m.key, |cx| Vec::from_json(cx, &m.value))?;
                return Some(if m.key == "OR" {
                    Condition::Or(list)
                } else {
                    Condition::And(list)
                });
            }
        }
        let mut pairs = Vec::new();
        for m in members {
            if m.key == "OR" || m.key == "AND" {
                cx.error(
                    m.key_span,
                    format!(
                        "'{}' must be a condition's only member; write {{ \"{}\": [ ... ] }} around the property values",
                        m.key, m.key
                    ),
                );
                return None;
            }
            match m.value.as_str() {
                Some(s) if !s.is_empty() => pairs.push((m.key.clone(), s.to_string())),
                _ => {
                    cx.at_key(&m.key, |cx| {
                        cx.expected(
                            "a non-empty string (a value, or values joined by |)",
                            &m.value,
                        )
                    });
                    return None;
                }
            }
        }
        Some(Condition::All(pairs))
    }
}

impl ToJson for Condition {
    fn to_json(&self) -> Value {
        let obj = |members: Vec<Member>| Value::synthetic(Kind::Object(members));
        match self {
            Condition::All(pairs) => obj(pairs
                .iter()
                .map(|(k, v)| member(k, Value::synthetic(Kind::String(v.clone()))))
                .collect()),
            Condition::Or(cs) => obj(vec![member("OR", cs.to_json())]),
            Condition::And(cs) => obj(vec![member("AND", cs.to_json())]),
            Condition::Invalid => Value::synthetic(Kind::Null),
        }
    }
    fn is_unset(&self) -> bool {
        matches!(self, Condition::Invalid)
    }
}

/// Four numbers: a face's `[u0, v0, u1, v1]` in 1/16 of its texture.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Uv(pub [f64; 4]);

impl FromJson for Uv {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        crate::schema::common::Vec4::from_json(cx, v).map(|q| Uv(q.0))
    }
}

impl ToJson for Uv {
    fn to_json(&self) -> Value {
        crate::schema::common::Vec4(self.0).to_json()
    }
}

tokens! {
    /// A face of a block, or the side a face is culled against.
    pub enum Direction as "face direction" {
        /// −Y.
        #[default]
        Down = "down",
        /// +Y.
        Up = "up",
        /// −Z.
        North = "north",
        /// +Z.
        South = "south",
        /// −X.
        West = "west",
        /// +X.
        East = "east",
    }
}

tokens! {
    /// The axis an element turns about.
    pub enum Axis as "rotation axis" {
        /// X.
        X = "x",
        /// Y.
        #[default]
        Y = "y",
        /// Z.
        Z = "z",
    }
}

block! {
    /// One weighted choice of a rule: a model and how it is turned.
    pub struct Choice = "dh.block choice" {
        /// A key of the block's `models`.
        req model: String = "model",
        /// Turn about X in degrees (0, 90, 180, 270).
        opt x: i32 = "x",
        /// Turn about Y in degrees (0, 90, 180, 270).
        opt y: i32 = "y",
        /// Textures stay unturned with the block.
        opt uvlock: bool = "uvlock",
        /// Relative weight, ≥ 1 (default 1).
        opt weight: u32 = "weight",
    }
}

block! {
    /// A rule: when its condition holds, one of its choices applies.
    pub struct Rule = "dh.block rule" {
        /// The condition (absent: always).
        opt when: Condition = "when",
        /// The weighted choices.
        list apply: Choice = "apply",
    }
}

block! {
    /// One face of an element.
    pub struct Face = "dh.block face" {
        /// `[u0, v0, u1, v1]` in 1/16 of the texture.
        req uv: Uv = "uv",
        /// The texture, a pallet path (`/textures/block/stone.png`).
        req texture: String = "texture",
        /// Hidden when the neighbour on this side covers it whole.
        opt cull_face: Direction = "cullFace",
        /// The texture's turn on the face in degrees (0, 90, 180, 270).
        opt rotation: u16 = "rotation",
        /// Tinted by the block's `tint` when set.
        opt tint_index: i32 = "tintIndex",
    }
}

block! {
    /// An element's faces.
    pub struct Faces = "dh.block faces" {
        /// −Y.
        opt down: Face = "down",
        /// +Y.
        opt up: Face = "up",
        /// −Z.
        opt north: Face = "north",
        /// +Z.
        opt south: Face = "south",
        /// −X.
        opt west: Face = "west",
        /// +X.
        opt east: Face = "east",
    }
}

impl Faces {
    /// The faces present, with their directions, in the order down, up, north, south,
    /// west, east.
    pub fn iter(&self) -> impl Iterator<Item = (Direction, &Face)> {
        [
            (Direction::Down, &self.down),
            (Direction::Up, &self.up),
            (Direction::North, &self.north),
            (Direction::South, &self.south),
            (Direction::West, &self.west),
            (Direction::East, &self.east),
        ]
        .into_iter()
        .filter_map(|(d, f)| f.as_ref().map(|f| (d, f)))
    }
}

block! {
    /// An element's own turn.
    pub struct ElementRotation = "dh.block element rotation" {
        /// The point it turns about, in 1/16 block.
        req origin: Vec3 = "origin",
        /// The axis.
        req axis: Axis = "axis",
        /// Degrees.
        req angle: f64 = "angle",
        /// Scales the faces back across the whole block (a cross plant's 45°).
        opt rescale: bool = "rescale",
    }
}

block! {
    /// A box of a model.
    pub struct Element = "dh.block element" {
        /// Minimum corner, 1/16 block.
        req from: Vec3 = "from",
        /// Maximum corner, 1/16 block.
        req to: Vec3 = "to",
        /// Its own turn.
        opt rotation: ElementRotation = "rotation",
        /// Whether its faces take directional shading (default true).
        opt shade: bool = "shade",
        /// The light its faces glow by, 0 to 15.
        opt light_emission: u8 = "lightEmission",
        /// Its faces.
        opt faces: Faces = "faces",
    }
}

block! {
    /// A baked model.
    pub struct Model = "dh.block model" {
        /// Whether faces take corner occlusion (default true).
        opt ambient_occlusion: bool = "ambientOcclusion",
        /// Its boxes.
        list elements: Element = "elements",
    }
}

block! {
    /// A `byState` row of `lightEmission`.
    pub struct LightState = "dh.block lightEmission row" {
        /// The condition.
        req when: Condition = "when",
        /// The level, 0 to 15.
        req level: u8 = "level",
    }
}

block! {
    /// The light a block gives, by state.
    pub struct LightEmission = "dh.block lightEmission" {
        /// The level where no row holds (default 0).
        opt level: u8 = "level",
        /// Rows tried in order.
        list by_state: LightState = "byState",
    }
}

impl LightEmission {
    /// The level for an entry whose property `k` reads `prop(k)`.
    pub fn level_for(&self, prop: &dyn Fn(&str) -> Option<String>) -> u8 {
        self.by_state
            .iter()
            .find(|r| r.when.holds(prop))
            .map(|r| r.level)
            .unwrap_or(self.level.unwrap_or(0))
    }
}

block! {
    /// A fluid block: drawn from its level.
    pub struct Fluid = "dh.block fluid" {
        /// The fluid (`water`, `lava`): cells of one name are one body.
        req name: String = "name",
        /// The property holding the level (default `level`).
        opt level_property: String = "levelProperty",
        /// The property that stands a source of it in another block's cell
        /// (`waterlogged`).
        opt logged_property: String = "loggedProperty",
        /// The still texture, a pallet path.
        req still: String = "still",
        /// The flowing texture, a pallet path.
        req flow: String = "flow",
    }
}

/// What a solid block collides as.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Collision {
    /// A whole cube (the default).
    #[default]
    Cube,
    /// Nothing: not solid after all.
    None,
    /// The model's elements, turned by the same rule as the drawn model.
    Model,
    /// Boxes `[x0, y0, z0, x1, y1, z1]` in 1/16 block.
    Boxes(Vec<[f64; 6]>),
}

impl FromJson for Collision {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::String(s) => match s.as_str() {
                "cube" => Some(Collision::Cube),
                "none" => Some(Collision::None),
                "model" => Some(Collision::Model),
                other => {
                    let msg = crate::read::unknown_token_message(
                        "collision",
                        other,
                        &["cube", "none", "model", "a list of boxes"],
                    );
                    cx.error(v.span, msg);
                    None
                }
            },
            Kind::Array(items) => {
                let mut boxes = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let b = cx.at_index(i, |cx| {
                        let Kind::Array(n) = &item.kind else {
                            cx.expected("a box: six numbers [x0, y0, z0, x1, y1, z1]", item);
                            return None;
                        };
                        let nums: Vec<f64> = n.iter().filter_map(Value::as_f64).collect();
                        if nums.len() != 6 || n.len() != 6 || nums.iter().any(|x| !x.is_finite()) {
                            cx.expected("a box: six numbers [x0, y0, z0, x1, y1, z1]", item);
                            return None;
                        }
                        Some([nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]])
                    })?;
                    boxes.push(b);
                }
                Some(Collision::Boxes(boxes))
            }
            _ => {
                cx.expected(
                    "\"cube\", \"none\", \"model\" or a list of boxes [x0, y0, z0, x1, y1, z1]",
                    v,
                );
                None
            }
        }
    }
}

impl ToJson for Collision {
    fn to_json(&self) -> Value {
        let s = |t: &str| Value::synthetic(Kind::String(t.to_string()));
        match self {
            Collision::Cube => s("cube"),
            Collision::None => s("none"),
            Collision::Model => s("model"),
            Collision::Boxes(b) => Value::synthetic(Kind::Array(
                b.iter()
                    .map(|b| {
                        Value::synthetic(Kind::Array(
                            b.iter()
                                .map(|x| Value::synthetic(Kind::Number(*x)))
                                .collect(),
                        ))
                    })
                    .collect(),
            )),
        }
    }
}

block! {
    /// `dh.block`: one block of a platform pallet (see the module doc).
    pub struct BlockDef = "dh.block" {
        /// `namespace:id`.
        req id: String = "id",
        /// Another `.dh-block` read where this one states nothing.
        opt inherits: String = "inherits",
        /// Every matching rule applies.
        opt multipart: bool = "multipart",
        /// The rule table.
        list rules: Rule = "rules",
        /// The baked models the rules name.
        opt models: Table<Model> = "models",
        /// opaque, mask (cutout) or blend (translucent).
        opt alpha_mode: AlphaMode = "alphaMode",
        /// The surface preset.
        opt surface: String = "surface",
        /// What tinted faces are tinted by.
        opt tint: String = "tint",
        /// The light it gives, by state.
        opt light_emission: LightEmission = "lightEmission",
        /// The sides its model covers stop light.
        opt light_shape: bool = "lightShape",
        /// Drawn as a fluid.
        opt fluid: Fluid = "fluid",
        /// What a solid block collides as.
        opt collision: Collision = "collision",
        /// Collision boxes stand up to this height, 1/16 block.
        opt collision_height: f64 = "collisionHeight",
    }
}

/// The tints a `tint` may name besides a fixed `#rrggbb`.
pub const TINTS: &[&str] = &["grass", "foliage", "water", "redstone", "stem"];

fn right_angle(d: i32) -> bool {
    matches!(d, 0 | 90 | 180 | 270)
}

impl BlockDef {
    /// The rules that apply to an entry whose property `k` reads `prop(k)`: the first
    /// that holds, or every one for a multipart block.
    pub fn matching(&self, prop: &dyn Fn(&str) -> Option<String>) -> Vec<&Rule> {
        let holds = |r: &&Rule| r.when.as_ref().is_none_or(|c| c.holds(prop));
        if self.multipart == Some(true) {
            self.rules.iter().filter(holds).collect()
        } else {
            self.rules.iter().find(holds).into_iter().collect()
        }
    }

    /// Runs the definition's rules: the id, model keys, turns, weights, levels, the
    /// surface and the tint.
    pub fn validate(&self, cx: &mut Cx) {
        let at = self.at.clone();
        if at.has("id") && !self.id.contains(':') {
            cx.error_at(
                &at,
                at.field("id"),
                format!(
                    "'id' must be namespace:id, such as minecraft:stone; found '{}'",
                    self.id
                ),
            );
        }
        let keys: Vec<&str> = self
            .models
            .as_ref()
            .map(|m| m.iter().map(|(k, _)| k).collect())
            .unwrap_or_default();
        for rule in &self.rules {
            let rat = rule.at.clone();
            if rule.apply.is_empty() {
                cx.error_at(&rat, rat.span, "a rule must apply at least one choice");
            }
            for c in &rule.apply {
                let cat = &c.at;
                if cat.has("model") && !keys.contains(&c.model.as_str()) {
                    cx.error_at(
                        cat,
                        cat.field("model"),
                        format!("'model' '{}' is not a key of this block's models", c.model),
                    );
                }
                for (name, v) in [("x", c.x), ("y", c.y)] {
                    if let Some(d) = v {
                        if !right_angle(d) {
                            cx.error_at(
                                cat,
                                cat.field(name),
                                format!("'{name}' must be 0, 90, 180 or 270, found {d}"),
                            );
                        }
                    }
                }
                if c.weight == Some(0) {
                    cx.error_at(cat, cat.field("weight"), "'weight' must be at least 1");
                }
            }
        }
        if let Some(models) = &self.models {
            for (_, model) in models.iter() {
                for e in &model.elements {
                    for (_, f) in e.faces.iter().flat_map(|f| f.iter()) {
                        if let Some(r) = f.rotation {
                            if !right_angle(i32::from(r)) {
                                cx.error_at(
                                    &f.at,
                                    f.at.field("rotation"),
                                    format!("'rotation' must be 0, 90, 180 or 270, found {r}"),
                                );
                            }
                        }
                    }
                    if e.light_emission.is_some_and(|l| l > 15) {
                        cx.error_at(
                            &e.at,
                            e.at.field("lightEmission"),
                            "'lightEmission' must be 0 to 15",
                        );
                    }
                }
            }
        }
        if let Some(l) = &self.light_emission {
            let levels = l
                .level
                .into_iter()
                .chain(l.by_state.iter().map(|r| r.level));
            if levels.into_iter().any(|v| v > 15) {
                cx.error_at(&l.at, l.at.span, "light levels must be 0 to 15");
            }
        }
        if let Some(s) = &self.surface {
            if surface_preset(s).is_none() {
                cx.error_at(
                    &at,
                    at.field("surface"),
                    format!(
                        "'{s}' is not a surface preset; expected one of {}",
                        surface_names().join(", ")
                    ),
                );
            }
        }
        if let Some(t) = &self.tint {
            let fixed =
                t.len() == 7 && t.starts_with('#') && t[1..].chars().all(|c| c.is_ascii_hexdigit());
            if !fixed && !TINTS.contains(&t.as_str()) {
                cx.error_at(
                    &at,
                    at.field("tint"),
                    format!(
                        "'{t}' is not a tint; expected one of {}, or #rrggbb",
                        TINTS.join(", ")
                    ),
                );
            }
        }
    }

    /// The references this block states, as `(what, reference, span)`: its `inherits`,
    /// every face's texture (each once) and its fluid's textures.
    pub fn references(&self) -> Vec<(String, &str, Span)> {
        let mut out: Vec<(String, &str, Span)> = Vec::new();
        if let Some(i) = &self.inherits {
            out.push(("'inherits'".into(), i.as_str(), self.at.field("inherits")));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some(models) = &self.models {
            for (key, model) in models.iter() {
                for e in &model.elements {
                    for (d, f) in e.faces.iter().flat_map(|f| f.iter()) {
                        if seen.insert(f.texture.as_str()) {
                            out.push((
                                format!("model '{key}' face {d}'s texture"),
                                f.texture.as_str(),
                                f.at.field("texture"),
                            ));
                        }
                    }
                }
            }
        }
        if let Some(fl) = &self.fluid {
            for (name, t) in [("still", &fl.still), ("flow", &fl.flow)] {
                out.push((
                    format!("the fluid's '{name}' texture"),
                    t.as_str(),
                    fl.at.field(name),
                ));
            }
        }
        out
    }
}

/// Reads and validates a `.dh-block` source (`$type` is allowed and must be `dh.block`).
pub fn read_block_def(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<BlockDef> {
    let v = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let v = strip_type(&mut cx, v, TYPE_ID)?;
    let d = read_block::<BlockDef>(&mut cx, &v)?;
    d.validate(&mut cx);
    Some(d)
}

/// Reads a `.dh-block` from its text, `None` with the diagnostics when it does not read
/// clean (the importer's read-back, and the engine's reader).
pub fn parse_block_def(path: &str, text: &str) -> Result<BlockDef, Diagnostics> {
    let file = SourceFile::new(path.to_string(), text.to_string());
    let mut diags = Diagnostics::new();
    let d = read_block_def(&file, &mut diags, Mode::Build);
    match d {
        Some(d) if !diags.has_errors() => Ok(d),
        _ => Err(diags),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        match parse_block_def("blocks/x.dh-block", text) {
            Ok(_) => Vec::new(),
            Err(d) => d.items.iter().map(|d| d.message.clone()).collect(),
        }
    }

    #[test]
    fn a_block_reads_and_writes_back() {
        let text = r##"{"id":"minecraft:oak_slab","multipart":true,"rules":[{"when":{"OR":[{"type":"bottom"},{"AND":[{"a":"1|2"}]}]},"apply":[{"model":"m","x":180,"y":90,"uvlock":true,"weight":3}]}],"models":{"m":{"ambientOcclusion":false,"elements":[{"from":[0,0,0],"to":[16,8,16],"rotation":{"origin":[8,8,8],"axis":"y","angle":45,"rescale":true},"shade":false,"lightEmission":3,"faces":{"up":{"uv":[0,0,16,16],"texture":"/t.png","cullFace":"up","rotation":90,"tintIndex":0}}}]}},"alphaMode":"mask","surface":"wood","tint":"#619961","lightEmission":{"level":1,"byState":[{"when":{"lit":"true"},"level":13}]},"lightShape":true,"fluid":{"name":"water","levelProperty":"level","loggedProperty":"waterlogged","still":"/s.png","flow":"/f.png"},"collision":[[0,0,0,16,8,16]],"collisionHeight":24}"##;
        let b = parse_block_def("blocks/oak_slab.dh-block", text).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(crate::read::ToJson::to_json(&b).to_json(), text);
        assert_eq!(
            b.collision,
            Some(Collision::Boxes(vec![[0.0, 0.0, 0.0, 16.0, 8.0, 16.0]]))
        );
        let l = b
            .light_emission
            .as_ref()
            .map(|l| l.level_for(&|k| (k == "lit").then(|| "true".into())));
        assert_eq!(l, Some(13));
        // The OR's AND branch holds for a=2; neither holds for a=3.
        let when = b.rules[0].when.as_ref().map(|c| {
            (
                c.holds(&|k| (k == "a").then(|| "2".into())),
                c.holds(&|k| (k == "a").then(|| "3".into())),
            )
        });
        assert_eq!(when, Some((true, false)));
    }

    #[test]
    fn the_field_set_is_closed_and_the_rules_are_checked() {
        let e = errors(r#"{"id":"minecraft:a","colour":"red"}"#);
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("unknown member 'colour' in dh.block; the fields of dh.block are: id, inherits, multipart, rules, models"), "{e:?}");
        let e = errors(
            r#"{"id":"a","rules":[{"apply":[{"model":"nope","y":45,"weight":0}]}],"surface":"lava","tint":"blue","collision":"solid"}"#,
        );
        assert_eq!(
            e,
            vec![
                "'solid' is not a valid collision; expected one of: cube, none, model, a list of boxes".to_string(),
                "'id' must be namespace:id, such as minecraft:stone; found 'a'".to_string(),
                "'model' 'nope' is not a key of this block's models".to_string(),
                "'y' must be 0, 90, 180 or 270, found 45".to_string(),
                "'weight' must be at least 1".to_string(),
                format!("'lava' is not a surface preset; expected one of {}", surface_names().join(", ")),
                "'blue' is not a tint; expected one of grass, foliage, water, redstone, stem, or #rrggbb"
                    .to_string(),
            ]
        );
        let e = errors(r#"{"id":"minecraft:a","rules":[{"when":{"a":"1","OR":[]},"apply":[]}]}"#);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].starts_with("'OR' must be a condition's only member"),
            "{e:?}"
        );
        assert_eq!(e[1], "a rule must apply at least one choice");
    }
}
