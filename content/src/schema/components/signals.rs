//! The signal table: for every component type that can be a wire source or a wire target,
//! the outputs it fires and the inputs it takes (with what each input takes from its call),
//! and the signal-naming rule that turns a name written in a map into the components it
//! reaches.
//!
//! # Using it from the wiring validator
//!
//! A connection `{ "output": O, "actions": [ { "call": { "target": T, "input": I,
//! "param"?: bool, "value"?: number | [r, g, b] } } ] }` on an object is checked like this:
//!
//! 1. Take the component types the SOURCE object carries (for a map record,
//!    [`component_types`] over its components; for an instance, the components the loader
//!    resolves onto it) and call [`resolve_output`]`(&types, O)`. `Ok` names the one
//!    component that fires it; `Err` is the whole diagnostic message (unknown output,
//!    ambiguous plain name with the qualified forms named, qualified name naming a component
//!    the object does not carry).
//! 2. Find the object named `T` (the "target exists" rule is the caller's: only it knows
//!    the map). Take its component types and call [`check_call`]`(&types, I, param, value)`,
//!    which resolves `I` ([`resolve_input`]: a plain input reaches every component that
//!    declares it, a qualified `mover.open` the mover alone) and then checks the call's
//!    arguments against what the input takes ([`check_args`]: a boolean `param` exactly when
//!    the input takes a level, a `value` exactly when it takes a number or a color, and of
//!    that shape). `Err` is again the whole message.
//!
//! [`CallValue`] is the call action's `value` member as a type (a bare number or an
//! `[r, g, b]` color), ready to use as that member's type in the record schema. Every
//! message here is complete and names the signal as written; the caller reports it at the
//! member it came from (`connections[0].output`, `connections[0].actions[1].call.input`).
//!
//! Names are spelled plain (`open`) or qualified by the component type without its `dh.`
//! (`mover.open`). Component types this table does not list (`dh.box`, `dh.collider`,
//! `dh.voxelBlock`, an unknown type kept whole) declare no signals.

use super::MapComponent;
use crate::jsonc::{Kind, Value};
use crate::read::{Cx, FromJson, ToJson};
use crate::schema::common::read_numbers;

/// What an input takes from the call that invokes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Takes {
    /// Nothing: the call carries neither `param` nor `value`.
    Nothing,
    /// A level: the call carries a boolean `param` (a gate's `setA`).
    Level,
    /// A number: the call carries `value` as a bare number (`setIntensity`).
    Number,
    /// A color: the call carries `value` as three sRGB values `[r, g, b]` in [0, 1]
    /// (`setTint`).
    Color,
}

impl Takes {
    /// How the argument is described in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Takes::Nothing => "nothing",
            Takes::Level => "a level (a boolean 'param')",
            Takes::Number => "a number (a 'value' that is one number)",
            Takes::Color => "a color (a 'value' of three sRGB values [r, g, b] in [0, 1])",
        }
    }
}

/// One input a component declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    /// The input's name (`open`, `setTint`).
    pub name: &'static str,
    /// What a call passes it.
    pub takes: Takes,
}

const fn plain(name: &'static str) -> Input {
    Input {
        name,
        takes: Takes::Nothing,
    }
}

const fn level(name: &'static str) -> Input {
    Input {
        name,
        takes: Takes::Level,
    }
}

/// The signals one component type declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComponentSignals {
    /// The component's type id (`dh.mover`).
    pub component: &'static str,
    /// The inputs a call can invoke on it.
    pub inputs: &'static [Input],
    /// The outputs it fires.
    pub outputs: &'static [&'static str],
}

impl ComponentSignals {
    /// The name a qualified signal uses for this component: its type id without `dh.`
    /// (`mover` for `dh.mover`).
    pub fn qualifier(&self) -> &'static str {
        qualifier_of(self.component)
    }

    /// The input named `name`, if this component declares it.
    pub fn input(&self, name: &str) -> Option<&'static Input> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// The output named `name`, if this component declares it.
    pub fn output(&self, name: &str) -> Option<&'static str> {
        self.outputs.iter().copied().find(|o| *o == name)
    }
}

const SWITCH: &[Input] = &[plain("turnOn"), plain("turnOff"), plain("toggle")];
const VOLUME: &[Input] = &[
    plain("turnOn"),
    plain("turnOff"),
    plain("toggle"),
    Input {
        name: "setTint",
        takes: Takes::Color,
    },
    Input {
        name: "setIntensity",
        takes: Takes::Number,
    },
];
const GATE_OUTPUTS: &[&str] = &["onTrue", "onFalse"];
const TOUCH_OUTPUTS: &[&str] = &["onStartTouch", "onEndTouch"];

/// Every component type with a logic node and the signals it declares, as the spec's
/// entity-kinds table states them. A button is pressed with Use, not by a wire, so it
/// declares no input; a physics prop and a voxel volume are logic nodes with no signals.
pub const SIGNAL_TABLE: &[ComponentSignals] = &[
    ComponentSignals {
        component: "dh.button",
        inputs: &[],
        outputs: &["onPressed"],
    },
    ComponentSignals {
        component: "dh.mover",
        inputs: &[plain("open"), plain("close"), plain("toggle")],
        outputs: &["onOpened", "onClosed"],
    },
    ComponentSignals {
        component: "dh.pressurePlate",
        inputs: &[],
        outputs: TOUCH_OUTPUTS,
    },
    ComponentSignals {
        component: "dh.trigger",
        inputs: &[plain("enable"), plain("disable"), plain("toggle")],
        outputs: TOUCH_OUTPUTS,
    },
    ComponentSignals {
        component: "dh.mapStart",
        inputs: &[],
        outputs: &["onMapStart"],
    },
    ComponentSignals {
        component: "dh.teleport",
        inputs: &[plain("teleport")],
        outputs: &[],
    },
    ComponentSignals {
        component: "dh.timer",
        inputs: &[plain("fire")],
        outputs: &["onTimer"],
    },
    ComponentSignals {
        component: "dh.andGate",
        inputs: &[level("setA"), level("setB")],
        outputs: GATE_OUTPUTS,
    },
    ComponentSignals {
        component: "dh.orGate",
        inputs: &[level("setA"), level("setB")],
        outputs: GATE_OUTPUTS,
    },
    ComponentSignals {
        component: "dh.notGate",
        inputs: &[level("setA")],
        outputs: GATE_OUTPUTS,
    },
    ComponentSignals {
        component: "dh.physicsProp",
        inputs: &[],
        outputs: &[],
    },
    ComponentSignals {
        component: "dh.light",
        inputs: SWITCH,
        outputs: &[],
    },
    ComponentSignals {
        component: "dh.lightProbeVolume",
        inputs: VOLUME,
        outputs: &[],
    },
    ComponentSignals {
        component: "dh.lightProbeGroup",
        inputs: VOLUME,
        outputs: &[],
    },
    ComponentSignals {
        component: "dh.voxelVolume",
        inputs: &[],
        outputs: &[],
    },
];

/// The signals component type `component` declares (`None` for a type with no logic node:
/// `dh.box`, `dh.collider`, an unknown type).
pub fn signals_of(component: &str) -> Option<&'static ComponentSignals> {
    SIGNAL_TABLE.iter().find(|s| s.component == component)
}

/// A component type's qualifier: the type id without `dh.` (`mover`).
pub fn qualifier_of(component: &str) -> &str {
    component.strip_prefix("dh.").unwrap_or(component)
}

/// The component types of a map record's components, in order (unknown components by
/// their `$type`), for [`resolve_output`] and [`resolve_input`].
pub fn component_types(components: &[MapComponent]) -> Vec<&str> {
    components.iter().map(|c| c.tag()).collect()
}

/// An output a name resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputRef {
    /// The component that fires it (`dh.orGate`).
    pub component: &'static str,
    /// The output (`onTrue`).
    pub output: &'static str,
}

/// An input a name resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRef {
    /// The component that takes it (`dh.mover`).
    pub component: &'static str,
    /// The input.
    pub input: &'static Input,
}

/// The signal components among `types`, each once, in the order carried.
fn carried(types: &[&str]) -> Vec<&'static ComponentSignals> {
    let mut out: Vec<&'static ComponentSignals> = Vec::new();
    for t in types {
        if let Some(s) = signals_of(t) {
            if !out.iter().any(|o| o.component == s.component) {
                out.push(s);
            }
        }
    }
    out
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'` (or with `or`).
fn join_quoted<S: AsRef<str>>(items: &[S], last: &str) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{}'", s.as_ref())).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((only, [])) => only.clone(),
        Some((tail, head)) => format!("{} {last} {tail}", head.join(", ")),
    }
}

fn carries_list(types: &[&str]) -> String {
    if types.is_empty() {
        "no components".to_string()
    } else {
        types.join(", ")
    }
}

/// What an old door spelled, and what it is now.
const LEGACY_OUTPUTS: &[(&str, &str)] =
    &[("onFullyOpen", "onOpened"), ("onFullyClosed", "onClosed")];

/// Splits `mover.open` into `(Some("mover"), "open")`, `open` into `(None, "open")`.
fn split_name(name: &str) -> (Option<&str>, &str) {
    match name.split_once('.') {
        Some((q, s)) => (Some(q), s),
        None => (None, name),
    }
}

/// Resolves an output name written on an object carrying component types `types`.
///
/// A plain name is valid when exactly one carried component declares it; when several do,
/// the error names the qualified forms (`Qualify it with the component that fires it:
/// 'andGate.onTrue' or 'orGate.onTrue'`). A qualified name must name a carried component
/// that declares the signal.
pub fn resolve_output(types: &[&str], name: &str) -> Result<OutputRef, String> {
    let comps = carried(types);
    let (qualifier, signal) = split_name(name);
    if let Some(q) = qualifier {
        let Some(c) = comps.iter().find(|c| c.qualifier() == q) else {
            return Err(format!(
                "output '{name}' names the component 'dh.{q}', which this object does not carry \
                 (it carries {}){}",
                carries_list(types),
                outputs_sentence(&comps)
            ));
        };
        return match c.output(signal) {
            Some(output) => Ok(OutputRef {
                component: c.component,
                output,
            }),
            None => Err(format!(
                "output '{name}': '{}' declares no output '{signal}'{}",
                c.component,
                declared_list(" its outputs are: ", c.outputs, "; it fires no outputs")
            )),
        };
    }
    let hits: Vec<OutputRef> = comps
        .iter()
        .filter_map(|c| {
            c.output(name).map(|output| OutputRef {
                component: c.component,
                output,
            })
        })
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(unknown_output(types, &comps, name)),
        many => {
            let components: Vec<&str> = many.iter().map(|h| h.component).collect();
            let forms: Vec<String> = many
                .iter()
                .map(|h| format!("{}.{name}", qualifier_of(h.component)))
                .collect();
            let by = if many.len() == 2 {
                format!("both {}", join_quoted(&components, "and"))
            } else {
                join_quoted(&components, "and")
            };
            Err(format!(
                "output '{name}' is declared by {by} on this object. Qualify it with the \
                 component that fires it: {}",
                join_quoted(&forms, "or")
            ))
        }
    }
}

fn declared_list(lead: &str, names: &[&str], none: &str) -> String {
    if names.is_empty() {
        none.to_string()
    } else {
        format!(";{lead}{}", names.join(", "))
    }
}

/// `; its outputs are: a, b` over every carried component (qualified where ambiguous).
fn outputs_sentence(comps: &[&'static ComponentSignals]) -> String {
    let names = wireable_outputs_of(comps);
    if names.is_empty() {
        "; it fires no outputs".to_string()
    } else {
        format!("; its outputs are: {}", names.join(", "))
    }
}

fn unknown_output(types: &[&str], comps: &[&'static ComponentSignals], name: &str) -> String {
    let mut msg = format!(
        "output '{name}' is not declared by any component of this object (it carries {})",
        carries_list(types)
    );
    msg.push_str(&outputs_sentence(comps));
    let elsewhere: Vec<&str> = SIGNAL_TABLE
        .iter()
        .filter(|c| c.output(name).is_some())
        .map(|c| c.component)
        .collect();
    if !elsewhere.is_empty() {
        msg.push_str(&format!(
            "; '{name}' is fired by {}, which the object does not carry",
            join_quoted(&elsewhere, "or")
        ));
    }
    if let Some((_, now)) = LEGACY_OUTPUTS.iter().find(|(old, _)| *old == name) {
        msg.push_str(&format!("; a door's '{name}' is a mover's '{now}' now"));
    }
    msg
}

/// The outputs an object carrying `types` can be wired from, spelled the way a wire must
/// spell them: plain where one component declares the name, qualified (`andGate.onTrue`)
/// where several do. This is what an editor offers, and exactly what
/// [`resolve_output`] accepts without qualification.
pub fn wireable_outputs(types: &[&str]) -> Vec<String> {
    wireable_outputs_of(&carried(types))
}

fn wireable_outputs_of(comps: &[&'static ComponentSignals]) -> Vec<String> {
    let mut out = Vec::new();
    for c in comps {
        for o in c.outputs {
            let shared = comps.iter().filter(|d| d.output(o).is_some()).count() > 1;
            if shared {
                out.push(format!("{}.{o}", c.qualifier()));
            } else {
                out.push((*o).to_string());
            }
        }
    }
    out
}

/// The inputs a target carrying `types` can be called with (plain names, each once).
pub fn callable_inputs(types: &[&str]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for c in carried(types) {
        for i in c.inputs {
            if !out.contains(&i.name) {
                out.push(i.name);
            }
        }
    }
    out
}

fn inputs_sentence(types: &[&str]) -> String {
    let names = callable_inputs(types);
    if names.is_empty() {
        "; it takes no inputs, so no call can reach it".to_string()
    } else {
        format!("; its inputs are: {}", names.join(", "))
    }
}

/// Resolves an input name written in a call whose target carries component types `types`.
///
/// A plain input reaches every carried component that declares it (a `toggle` on an object
/// carrying a light and a mover toggles both); a qualified one (`mover.toggle`) reaches the
/// named component alone, which the target must carry and which must declare the input.
pub fn resolve_input(types: &[&str], name: &str) -> Result<Vec<InputRef>, String> {
    let comps = carried(types);
    let (qualifier, signal) = split_name(name);
    if let Some(q) = qualifier {
        let Some(c) = comps.iter().find(|c| c.qualifier() == q) else {
            return Err(format!(
                "input '{name}' names the component 'dh.{q}', which the target does not carry \
                 (it carries {}){}",
                carries_list(types),
                inputs_sentence(types)
            ));
        };
        return match c.input(signal) {
            Some(input) => Ok(vec![InputRef {
                component: c.component,
                input,
            }]),
            None => {
                let names: Vec<&str> = c.inputs.iter().map(|i| i.name).collect();
                Err(format!(
                    "input '{name}': '{}' declares no input '{signal}'{}",
                    c.component,
                    declared_list(" its inputs are: ", &names, "; it takes no inputs")
                ))
            }
        };
    }
    let hits: Vec<InputRef> = comps
        .iter()
        .filter_map(|c| {
            c.input(name).map(|input| InputRef {
                component: c.component,
                input,
            })
        })
        .collect();
    if !hits.is_empty() {
        return Ok(hits);
    }
    let mut msg = format!(
        "input '{name}' is not declared by any component of the target (it carries {}){}",
        carries_list(types),
        inputs_sentence(types)
    );
    let elsewhere: Vec<&str> = SIGNAL_TABLE
        .iter()
        .filter(|c| c.input(name).is_some())
        .map(|c| c.component)
        .collect();
    if !elsewhere.is_empty() {
        msg.push_str(&format!(
            "; '{name}' is taken by {}, which the target does not carry",
            join_quoted(&elsewhere, "or")
        ));
    }
    Err(msg)
}

/// A call action's `value`: a bare number or a color `[r, g, b]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallValue {
    /// A bare number (`setIntensity`).
    Number(f64),
    /// Three sRGB values (`setTint`); [`check_args`] holds each to [0, 1].
    Color([f64; 3]),
}

impl CallValue {
    fn describe(self) -> &'static str {
        match self {
            CallValue::Number(_) => "a number",
            CallValue::Color(_) => "a color [r, g, b]",
        }
    }
}

impl FromJson for CallValue {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Number(n) if n.is_finite() => Some(CallValue::Number(*n)),
            Kind::Array(_) => read_numbers::<3>(cx, v).map(CallValue::Color),
            _ => {
                cx.expected("a number or a color [r, g, b]", v);
                None
            }
        }
    }
}

impl ToJson for CallValue {
    fn to_json(&self) -> Value {
        match self {
            CallValue::Number(n) => n.to_json(),
            CallValue::Color(c) => Value::synthetic(Kind::Array(
                c.iter()
                    .map(|x| Value::synthetic(Kind::Number(*x)))
                    .collect(),
            )),
        }
    }
}

/// Checks a call's `param` and `value` against the inputs `name` resolved to: a boolean
/// `param` is present exactly when the input takes a level, and a `value` exactly when it
/// takes a number or a color, of that shape (a color's three values in [0, 1]).
pub fn check_args(
    name: &str,
    inputs: &[InputRef],
    param: Option<bool>,
    value: Option<&CallValue>,
) -> Result<(), String> {
    let Some(first) = inputs.first() else {
        return Err(format!("input '{name}' reaches no component"));
    };
    let takes = first.input.takes;
    if let Some(other) = inputs.iter().find(|i| i.input.takes != takes) {
        return Err(format!(
            "input '{name}' reaches '{}', which takes {}, and '{}', which takes {}; qualify it \
             with the component it is for: '{}.{name}' or '{}.{name}'",
            first.component,
            takes.describe(),
            other.component,
            other.input.takes.describe(),
            qualifier_of(first.component),
            qualifier_of(other.component)
        ));
    }
    match (takes, param) {
        (Takes::Level, None) => {
            return Err(format!(
                "input '{name}' takes a level: the call needs a boolean 'param' (true or false)"
            ))
        }
        (Takes::Nothing | Takes::Number | Takes::Color, Some(_)) => {
            return Err(format!(
                "input '{name}' takes no 'param'; only an input that takes a level does"
            ))
        }
        _ => {}
    }
    match (takes, value) {
        (Takes::Nothing | Takes::Level, Some(_)) => Err(format!(
            "input '{name}' takes no 'value'; only an input that takes a number or a color does"
        )),
        (Takes::Number, None) => Err(format!(
            "input '{name}' takes a number: the call needs a 'value' that is one number"
        )),
        (Takes::Color, None) => Err(format!(
            "input '{name}' takes a color: the call needs a 'value' of three sRGB values \
             [r, g, b] in [0, 1]"
        )),
        (Takes::Number, Some(v @ CallValue::Color(_))) => Err(format!(
            "input '{name}' takes a number as its 'value', not {}",
            v.describe()
        )),
        (Takes::Color, Some(v @ CallValue::Number(_))) => Err(format!(
            "input '{name}' takes a color [r, g, b] as its 'value', not {}",
            v.describe()
        )),
        (Takes::Color, Some(CallValue::Color(c))) => {
            match c.iter().find(|x| !(0.0..=1.0).contains(*x)) {
                Some(bad) => Err(format!(
                    "input '{name}' takes a color of three sRGB values in [0, 1]; its 'value' \
                     holds {bad}"
                )),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// Resolves `input` on a target carrying `types` and checks the call's arguments: the
/// whole input side of one call. `Ok` lists every component the call reaches.
pub fn check_call(
    types: &[&str],
    input: &str,
    param: Option<bool>,
    value: Option<&CallValue>,
) -> Result<Vec<InputRef>, String> {
    let inputs = resolve_input(types, input)?;
    check_args(input, &inputs, param, value)?;
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_quoted_forms() {
        assert_eq!(join_quoted(&["a"], "or"), "'a'");
        assert_eq!(join_quoted(&["a", "b"], "or"), "'a' or 'b'");
        assert_eq!(join_quoted(&["a", "b", "c"], "and"), "'a', 'b' and 'c'");
    }

    #[test]
    fn every_table_entry_is_a_dh_type_listed_once() {
        for (i, s) in SIGNAL_TABLE.iter().enumerate() {
            assert!(s.component.starts_with("dh."), "{}", s.component);
            assert!(
                !SIGNAL_TABLE[..i].iter().any(|t| t.component == s.component),
                "{} listed twice",
                s.component
            );
        }
    }
}
