//! Scripts: line-based console commands, so a headless run can be driven and checked.
//!
//! One command a line; `#` starts a comment (to the end of the line); blank lines are
//! skipped. The verbs:
//!
//! | verb | what it does |
//! | --- | --- |
//! | `set <name> <value>` | sets a preference (the [`crate::prefs`] table) |
//! | `wait <N> ticks` / `wait <S> seconds` | lets N ticks pass (seconds are quantized up to whole ticks at `world.tickRate`, as a logic `delay` is) |
//! | `spawn <pawn> [x y z [yaw]]` | adds a pawn named `<pawn>`: at the feet position given, or by spawn selection |
//! | `move <pawn> <forward> <right> [ticks]` | holds a walk input, each axis -1 to 1 of walking speed, for `ticks` ticks (or until the next `move`) |
//! | `turn <pawn> <yaw> [pitch]` | faces the pawn (degrees; yaw 0 faces -Z, 90 faces -X) |
//! | `jump <pawn>` | a jump press, taken by the next tick |
//! | `use <pawn>` | presses Use: the pawn's use ray picks what it looks at |
//! | `teleport <pawn> x y z` | moves the pawn's feet there |
//! | `noclip <pawn> [on\|off]` | toggles or sets noclip (needs `world.noclipAllowed`) |
//! | `lights.list [pattern]` | lists lights (spec: "Tuning lights live") |
//! | `lights.set <pattern> <field> <value...>` | retunes lights for the session |
//! | `lights.reset <pattern>` | reverts lights' session edits |
//! | `scene.enable <name>` / `scene.disable <name>` | switches a record on or off for the session |
//! | `expect <entity>.<property> <op> <value> [within <tolerance>]` | fails the run unless it holds; `op` is one of `==`, `!=`, `<`, `<=`, `>`, `>=` |
//! | `print <entity>.<property>` | prints a value |
//!
//! A pattern takes one `*` (spec: "target also accepts a single * — at the start, middle, or
//! end of the token"); an exact name always wins first.
//!
//! Time: the commands due at tick `t` run before tick `t` simulates, so an `expect` sees the
//! world as the ticks before it left it. `use p; wait 1 ticks; expect door.moving == true`
//! checks the tick the press was taken in. A script lasts until its last line has run and
//! its last `wait` has passed: one ending in `wait 100 ticks` runs those 100 ticks.
//!
//! A failed `expect` does not stop the script (ours): the run prints it where it failed,
//! checks the rest, and its last line counts them (`1 of 3 expects failed: ...`).

use std::fmt;

use glam::Vec3;

/// A value an `expect` compares, or a query answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// Anything else: a token or a name.
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

impl Value {
    /// Reads a script token: `true`/`false`, a number, else text.
    pub fn parse(token: &str) -> Value {
        match token {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => match token.parse::<f64>() {
                Ok(n) if n.is_finite() => Value::Number(n),
                _ => Value::Text(token.to_string()),
            },
        }
    }

    fn as_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Text(_) => None,
        }
    }
}

/// An `expect` comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==` (numbers within the tolerance).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "==" => Op::Eq,
            "!=" => Op::Ne,
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            _ => return None,
        })
    }

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// The tolerance `==` and `!=` compare numbers with when a line states none: positions are
/// single-precision, so a door's 1 + 80/32 may land a few ulps off 3.5.
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// Compares `actual` with `expected`. Numbers compare as numbers (a bool reads as 1 or 0
/// against a number); text compares exactly, and only with `==` / `!=`.
pub fn compare(actual: &Value, op: Op, expected: &Value, tolerance: f64) -> Result<bool, String> {
    if let (Some(a), Some(e)) = (actual.as_number(), expected.as_number()) {
        let eq = (a - e).abs() <= tolerance;
        return Ok(match op {
            Op::Eq => eq,
            Op::Ne => !eq,
            Op::Lt => a < e,
            Op::Le => a <= e || eq,
            Op::Gt => a > e,
            Op::Ge => a >= e || eq,
        });
    }
    match op {
        Op::Eq => Ok(actual == expected),
        Op::Ne => Ok(actual != expected),
        _ => Err(format!(
            "{} compares numbers only, and {actual} against {expected} is not two numbers",
            op.as_str()
        )),
    }
}

/// How long a `wait` lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wait {
    /// Whole ticks.
    Ticks(u64),
    /// Seconds, quantized up to whole ticks when the wait starts.
    Seconds(f64),
}

impl Wait {
    /// The wait in ticks at `tick_rate`: seconds quantized up to whole ticks.
    pub fn ticks(self, tick_rate: u32) -> u64 {
        match self {
            Wait::Ticks(n) => n,
            Wait::Seconds(s) => {
                let t = s * f64::from(tick_rate);
                // Quantized up, with a hair of slack so 1.0 s at 64 Hz is 64 ticks, not 65.
                let whole = (t - 1e-9).ceil();
                if whole <= 0.0 {
                    0
                } else {
                    whole as u64
                }
            }
        }
    }
}

/// One parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `set <name> <value>`.
    Set {
        /// The preference.
        name: String,
        /// Its value, as written (the rest of the line).
        value: String,
    },
    /// `wait N ticks|seconds`.
    Wait(Wait),
    /// `spawn <pawn> [x y z [yaw]]`.
    Spawn {
        /// The pawn's script name.
        pawn: String,
        /// Feet position, or spawn selection when absent.
        at: Option<Vec3>,
        /// Facing in degrees, when given.
        yaw: Option<f32>,
    },
    /// `move <pawn> <forward> <right> [ticks]`.
    Move {
        /// The pawn.
        pawn: String,
        /// Forward axis, -1 to 1.
        forward: f32,
        /// Right axis, -1 to 1.
        right: f32,
        /// How many ticks the input is held; until the next `move` when absent.
        ticks: Option<u64>,
    },
    /// `turn <pawn> <yaw> [pitch]`.
    Turn {
        /// The pawn.
        pawn: String,
        /// Yaw in degrees.
        yaw: f32,
        /// Pitch in degrees, when given.
        pitch: Option<f32>,
    },
    /// `jump <pawn>`.
    Jump {
        /// The pawn.
        pawn: String,
    },
    /// `use <pawn>`.
    Use {
        /// The pawn.
        pawn: String,
    },
    /// `teleport <pawn> x y z`.
    Teleport {
        /// The pawn.
        pawn: String,
        /// Feet position.
        to: Vec3,
    },
    /// `noclip <pawn> [on|off]`.
    Noclip {
        /// The pawn.
        pawn: String,
        /// On, off, or a toggle when absent.
        on: Option<bool>,
    },
    /// `lights.list [pattern]`.
    LightsList {
        /// The lights to list; all when absent.
        pattern: Option<String>,
    },
    /// `lights.set <pattern> <field> <value...>`.
    LightsSet {
        /// Which lights.
        pattern: String,
        /// The field token.
        field: String,
        /// The value tokens.
        value: Vec<String>,
    },
    /// `lights.reset <pattern>`.
    LightsReset {
        /// Which lights.
        pattern: String,
    },
    /// `scene.enable <name>` / `scene.disable <name>`.
    Scene {
        /// The record's name.
        name: String,
        /// Enable or disable.
        enabled: bool,
    },
    /// `expect <entity>.<property> <op> <value> [within <tolerance>]`.
    Expect {
        /// The entity (a record name or a pawn name).
        entity: String,
        /// The property.
        property: String,
        /// The comparison.
        op: Op,
        /// The value compared against.
        value: Value,
        /// Numbers within this compare equal.
        tolerance: f64,
    },
    /// `print <entity>.<property>`.
    Print {
        /// The entity.
        entity: String,
        /// The property.
        property: String,
    },
}

/// A parsed line.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// The line's text without its comment, trimmed.
    pub text: String,
    /// The command.
    pub command: Command,
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The file name errors print.
    pub file: String,
    /// The commands, in order.
    pub lines: Vec<ScriptLine>,
}

/// One line that did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// Why a script could not be parsed or failed while it ran.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScriptError {
    /// Lines that do not parse, every one of them.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Parse(Vec<ParseError>),
    /// A command that could not be carried out (an unknown pawn, a bad preference value).
    #[error("{file}:{line}: {text}: {message}")]
    Command {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The command as written.
        text: String,
        /// What went wrong.
        message: String,
    },
    /// An `expect` that did not hold.
    #[error("{file}:{line}: expectation failed at tick {tick}: {text} (actual {actual})")]
    ExpectFailed {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The `expect` as written.
        text: String,
        /// The tick it was checked before.
        tick: u64,
        /// What the property was.
        actual: String,
    },
}

impl ScriptError {
    /// Whether this is a failed `expect` (exit code 1) rather than a broken script.
    pub fn is_expectation(&self) -> bool {
        matches!(self, ScriptError::ExpectFailed { .. })
    }
}

fn usage(verb: &str) -> &'static str {
    match verb {
        "set" => "set <name> <value>",
        "wait" => "wait <N> ticks|seconds",
        "spawn" => "spawn <pawn> [x y z [yaw]]",
        "move" => "move <pawn> <forward> <right> [ticks]",
        "turn" => "turn <pawn> <yaw> [pitch]",
        "jump" => "jump <pawn>",
        "use" => "use <pawn>",
        "teleport" => "teleport <pawn> x y z",
        "noclip" => "noclip <pawn> [on|off]",
        "lights.list" => "lights.list [pattern]",
        "lights.set" => "lights.set <pattern> <field> <value...>",
        "lights.reset" => "lights.reset <pattern>",
        "scene.enable" => "scene.enable <name>",
        "scene.disable" => "scene.disable <name>",
        "expect" => "expect <entity>.<property> <op> <value> [within <tolerance>]",
        "print" => "print <entity>.<property>",
        _ => "",
    }
}

/// What `dh-engine help script` prints.
pub const HELP: &str = "\
A script is one console command a line; # starts a comment. The commands due at a tick run
before it simulates, so an expect sees the world as the ticks before it left it.

  set <name> <value>                 sets a preference (dh-engine help prefs)
  wait <N> ticks | wait <S> seconds  lets time pass (seconds round up to whole ticks)
  spawn <pawn> [x y z [yaw]]         adds a pawn at its feet position, or by spawn selection
  move <pawn> <forward> <right> [ticks]
                                     holds a walk, each axis -1 to 1 of walking speed, for
                                     ticks ticks (or until the next move)
  turn <pawn> <yaw> [pitch]          faces the pawn (degrees; yaw 0 faces -Z, 90 faces -X)
  jump <pawn>                        a jump press
  use <pawn>                         presses Use on what the pawn looks at
  teleport <pawn> x y z              moves the pawn's feet there
  noclip <pawn> [on|off]             noclip (needs world.noclipAllowed)
  lights.list [pattern]              lists the lights
  lights.set <pattern> <field> <value...>
                                     retunes lights: color, intensity, range, falloff,
                                     innerCone, outerCone, mode or kind
  lights.reset <pattern>             reverts lights' edits
  scene.enable <name> | scene.disable <name>
                                     switches a record on or off
  expect <entity>.<property> <op> <value> [within <tolerance>]
                                     fails the run unless it holds; op is ==, !=, <, <=, >, >=
  print <entity>.<property>          prints a value

A run lasts until the script's last line has run and its last wait has passed. A failed
expect is printed where it fails and the script goes on; the run's last line counts them
(`1 of 3 expects failed: ...`) and it exits 1.
A pattern takes one * (lamp*, *Door, f*r); an exact name wins first.
Properties: a pawn has x, y, z (feet), yaw, pitch, vx, vy, vz, grounded; a record has x, y, z,
open (a mover's open fraction, 0 to 1), moving, opening, on (a light), pressed (a button),
occupancy (a plate), enabled, a, b (a gate's levels).
";

/// Every verb a script takes, for messages and `help`.
pub const VERBS: &[&str] = &[
    "set",
    "wait",
    "spawn",
    "move",
    "turn",
    "jump",
    "use",
    "teleport",
    "noclip",
    "lights.list",
    "lights.set",
    "lights.reset",
    "scene.enable",
    "scene.disable",
    "expect",
    "print",
];

fn number<T: std::str::FromStr>(token: &str, what: &str) -> Result<T, String> {
    token
        .parse::<T>()
        .map_err(|_| format!("{what} must be a number, got '{token}'"))
}

fn finite(token: &str, what: &str) -> Result<f32, String> {
    let v: f32 = number(token, what)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} must be a finite number, got '{token}'"))
    }
}

fn axis(token: &str, what: &str) -> Result<f32, String> {
    let v = finite(token, what)?;
    if (-1.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{what} must be from -1 to 1, got {v}"))
    }
}

fn entity_property(token: &str) -> Result<(String, String), String> {
    match token.rsplit_once('.') {
        Some((e, p)) if !e.is_empty() && !p.is_empty() => Ok((e.to_string(), p.to_string())),
        _ => Err(format!("expected <entity>.<property>, got '{token}'")),
    }
}

/// Parses one line's text (comment already removed, non-empty).
pub fn parse_command(text: &str) -> Result<Command, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some((&verb, args)) = words.split_first() else {
        return Err("empty command".into());
    };
    let wrong = || format!("usage: {}", usage(verb));
    let cmd = match verb {
        "set" => {
            if args.len() < 2 {
                return Err(wrong());
            }
            // The value is the rest of the line (a color is three numbers).
            let after_verb = text.trim_start()[verb.len()..].trim_start();
            let value = after_verb[args[0].len()..].trim().to_string();
            Command::Set {
                name: args[0].to_string(),
                value,
            }
        }
        "wait" => {
            let [n, unit] = args else {
                return Err(wrong());
            };
            match *unit {
                "tick" | "ticks" => Command::Wait(Wait::Ticks(
                    number::<u64>(n, "the tick count")
                        .map_err(|_| format!("the tick count must be a whole number, got '{n}'"))?,
                )),
                "second" | "seconds" => {
                    let s: f64 = number(n, "the seconds")?;
                    if !(s.is_finite() && s >= 0.0) {
                        return Err(format!("the seconds must be at least 0, got '{n}'"));
                    }
                    Command::Wait(Wait::Seconds(s))
                }
                other => return Err(format!("wait takes ticks or seconds, got '{other}'")),
            }
        }
        "spawn" => match args {
            [pawn] => Command::Spawn {
                pawn: pawn.to_string(),
                at: None,
                yaw: None,
            },
            [pawn, x, y, z] | [pawn, x, y, z, _] => Command::Spawn {
                pawn: pawn.to_string(),
                at: Some(Vec3::new(finite(x, "x")?, finite(y, "y")?, finite(z, "z")?)),
                yaw: match args.get(4) {
                    Some(yaw) => Some(finite(yaw, "yaw")?),
                    None => None,
                },
            },
            _ => return Err(wrong()),
        },
        "move" => match args {
            [pawn, fwd, right] | [pawn, fwd, right, _] => Command::Move {
                pawn: pawn.to_string(),
                forward: axis(fwd, "forward")?,
                right: axis(right, "right")?,
                ticks: match args.get(3) {
                    Some(t) => Some(t.parse::<u64>().map_err(|_| {
                        format!("the tick count must be a whole number, got '{t}'")
                    })?),
                    None => None,
                },
            },
            _ => return Err(wrong()),
        },
        "turn" => match args {
            [pawn, yaw] | [pawn, yaw, _] => Command::Turn {
                pawn: pawn.to_string(),
                yaw: finite(yaw, "yaw")?,
                pitch: match args.get(2) {
                    Some(p) => Some(finite(p, "pitch")?),
                    None => None,
                },
            },
            _ => return Err(wrong()),
        },
        "jump" | "use" => {
            let [pawn] = args else {
                return Err(wrong());
            };
            let pawn = pawn.to_string();
            if verb == "jump" {
                Command::Jump { pawn }
            } else {
                Command::Use { pawn }
            }
        }
        "teleport" => {
            let [pawn, x, y, z] = args else {
                return Err(wrong());
            };
            Command::Teleport {
                pawn: pawn.to_string(),
                to: Vec3::new(finite(x, "x")?, finite(y, "y")?, finite(z, "z")?),
            }
        }
        "noclip" => match args {
            [pawn] => Command::Noclip {
                pawn: pawn.to_string(),
                on: None,
            },
            [pawn, state] => Command::Noclip {
                pawn: pawn.to_string(),
                on: Some(match *state {
                    "on" | "1" | "true" => true,
                    "off" | "0" | "false" => false,
                    other => return Err(format!("noclip takes on or off, got '{other}'")),
                }),
            },
            _ => return Err(wrong()),
        },
        "lights.list" => match args {
            [] => Command::LightsList { pattern: None },
            [p] => Command::LightsList {
                pattern: Some(p.to_string()),
            },
            _ => return Err(wrong()),
        },
        "lights.set" => {
            if args.len() < 3 {
                return Err(wrong());
            }
            check_pattern(args[0])?;
            Command::LightsSet {
                pattern: args[0].to_string(),
                field: args[1].to_string(),
                value: args[2..].iter().map(|s| s.to_string()).collect(),
            }
        }
        "lights.reset" => {
            let [p] = args else {
                return Err(wrong());
            };
            check_pattern(p)?;
            Command::LightsReset {
                pattern: p.to_string(),
            }
        }
        "scene.enable" | "scene.disable" => {
            let [name] = args else {
                return Err(wrong());
            };
            Command::Scene {
                name: name.to_string(),
                enabled: verb == "scene.enable",
            }
        }
        "expect" => {
            let (target, op, value, tolerance) = match args {
                [t, op, v] => (t, op, v, DEFAULT_TOLERANCE),
                [t, op, v, within, tol] if *within == "within" => {
                    let tol: f64 = number(tol, "the tolerance")?;
                    if !(tol.is_finite() && tol >= 0.0) {
                        return Err(format!("the tolerance must be at least 0, got {tol}"));
                    }
                    (t, op, v, tol)
                }
                _ => return Err(wrong()),
            };
            let (entity, property) = entity_property(target)?;
            let op = Op::parse(op).ok_or_else(|| {
                format!("expect compares with ==, !=, <, <=, > or >=, got '{op}'")
            })?;
            Command::Expect {
                entity,
                property,
                op,
                value: Value::parse(value),
                tolerance,
            }
        }
        "print" => {
            let [t] = args else {
                return Err(wrong());
            };
            let (entity, property) = entity_property(t)?;
            Command::Print { entity, property }
        }
        other => {
            return Err(format!(
                "unknown command '{other}'; the verbs are {}{}",
                VERBS.join(", "),
                dh_content::diag::did_you_mean(other, VERBS.iter().copied())
            ))
        }
    };
    Ok(cmd)
}

fn check_pattern(p: &str) -> Result<(), String> {
    if p.matches('*').count() > 1 {
        Err(format!("a pattern takes a single *, got '{p}'"))
    } else {
        Ok(())
    }
}

/// Parses a whole script; every line that does not parse is reported, as `file:line`.
pub fn parse(file: &str, text: &str) -> Result<Script, ScriptError> {
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let code = raw.split_once('#').map_or(raw, |(c, _)| c).trim();
        if code.is_empty() {
            continue;
        }
        match parse_command(code) {
            Ok(command) => lines.push(ScriptLine {
                line: i + 1,
                text: code.to_string(),
                command,
            }),
            Err(message) => errors.push(ParseError {
                file: file.to_string(),
                line: i + 1,
                message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(Script {
            file: file.to_string(),
            lines,
        })
    } else {
        Err(ScriptError::Parse(errors))
    }
}

/// Which of `names` a console target picks: the exact name first (so a light literally
/// named `*` is never shadowed), else every name the single `*` fits, in `names`' order.
pub fn match_pattern<'a>(
    pattern: &str,
    names: impl IntoIterator<Item = &'a str> + Clone,
) -> Vec<&'a str> {
    if let Some(exact) = names.clone().into_iter().find(|n| *n == pattern) {
        return vec![exact];
    }
    let Some((prefix, suffix)) = pattern.split_once('*') else {
        return Vec::new();
    };
    names
        .into_iter()
        .filter(|n| {
            n.len() >= prefix.len() + suffix.len() && n.starts_with(prefix) && n.ends_with(suffix)
        })
        .collect()
}

/// What a script drives: the engine host in a run, a mock in tests. Errors are messages
/// the runner prefixes with the line.
pub trait ScriptHost {
    /// `world.tickRate` as installed.
    fn tick_rate(&self) -> u32;
    /// `set`.
    fn set_pref(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// `spawn`.
    fn spawn(&mut self, pawn: &str, at: Option<Vec3>, yaw: Option<f32>) -> Result<(), String>;
    /// `move`.
    fn move_pawn(
        &mut self,
        pawn: &str,
        forward: f32,
        right: f32,
        ticks: Option<u64>,
    ) -> Result<(), String>;
    /// `turn`.
    fn turn(&mut self, pawn: &str, yaw: f32, pitch: Option<f32>) -> Result<(), String>;
    /// `jump`.
    fn jump(&mut self, pawn: &str) -> Result<(), String>;
    /// `use`.
    fn use_key(&mut self, pawn: &str) -> Result<(), String>;
    /// `teleport`.
    fn teleport(&mut self, pawn: &str, to: Vec3) -> Result<(), String>;
    /// `noclip`; returns the line to print.
    fn noclip(&mut self, pawn: &str, on: Option<bool>) -> Result<String, String>;
    /// `lights.list`; returns the listing.
    fn lights_list(&mut self, pattern: Option<&str>) -> Result<String, String>;
    /// `lights.set`; returns the report line.
    fn lights_set(
        &mut self,
        pattern: &str,
        field: &str,
        value: &[String],
    ) -> Result<String, String>;
    /// `lights.reset`; returns the report line.
    fn lights_reset(&mut self, pattern: &str) -> Result<String, String>;
    /// `scene.enable` / `scene.disable`; returns the report line.
    fn scene_enable(&mut self, name: &str, enabled: bool) -> Result<String, String>;
    /// A property's current value, for `expect` and `print`.
    fn query(&self, entity: &str, property: &str) -> Result<Value, String>;
    /// Output (a report line, a listing).
    fn print(&mut self, text: &str);
}

/// Runs a script tick by tick.
///
/// A failed `expect` does not stop the script (ours): it is kept, handed out once by
/// [`ScriptRunner::take_failures`] so the run prints it where it happened, and summed up
/// by [`ScriptRunner::summary`] for the last line a run prints.
#[derive(Debug, Clone)]
pub struct ScriptRunner {
    script: Script,
    next: usize,
    resume_at: u64,
    /// `expect` lines checked so far.
    expects: usize,
    /// Every failed `expect`, in order.
    failures: Vec<ScriptError>,
    /// How many of `failures` [`ScriptRunner::take_failures`] has handed out.
    reported: usize,
    /// The `wait` line last started (where a script ending in a wait stands).
    last_wait: Option<usize>,
}

/// How many failures [`ScriptRunner::summary`] spells out before it counts the rest.
const SUMMARY_SHOWN: usize = 3;

impl ScriptRunner {
    /// A runner at the script's first line.
    pub fn new(script: Script) -> ScriptRunner {
        ScriptRunner {
            script,
            next: 0,
            resume_at: 0,
            expects: 0,
            failures: Vec::new(),
            reported: 0,
            last_wait: None,
        }
    }

    /// Whether the script has ended once `tick` ticks have simulated (the host's tick
    /// count): every line has run and the last `wait` has passed, so a script that ends in
    /// `wait 100 ticks` lasts those 100 ticks.
    pub fn finished(&self, tick: u64) -> bool {
        self.next >= self.script.lines.len() && tick >= self.resume_at
    }

    /// The failed `expect`s not handed out before, in order.
    pub fn take_failures(&mut self) -> Vec<ScriptError> {
        let new = self.failures[self.reported..].to_vec();
        self.reported = self.failures.len();
        new
    }

    /// Whether any `expect` failed.
    pub fn failed(&self) -> bool {
        !self.failures.is_empty()
    }

    /// The last line of a run whose `expect`s failed: `1 of 3 expects failed: t.dhs:2:
    /// ...`, the first few failures spelled out, and the `expect` lines a shortened run
    /// never reached; `None` when every `expect` held.
    pub fn summary(&self) -> Option<String> {
        if self.failures.is_empty() {
            return None;
        }
        let shown: Vec<String> = self
            .failures
            .iter()
            .take(SUMMARY_SHOWN)
            .map(|e| e.to_string())
            .collect();
        let mut line = format!(
            "{} of {} expect{} failed: {}",
            self.failures.len(),
            self.expects,
            if self.expects == 1 { "" } else { "s" },
            shown.join("; ")
        );
        if self.failures.len() > SUMMARY_SHOWN {
            line.push_str(&format!(
                "; and {} more",
                self.failures.len() - SUMMARY_SHOWN
            ));
        }
        let unreached = self.script.lines[self.next.min(self.script.lines.len())..]
            .iter()
            .filter(|l| matches!(l.command, Command::Expect { .. }))
            .count();
        if unreached > 0 {
            line.push_str(&format!(" ({unreached} more never reached)"));
        }
        Some(line)
    }

    /// The line the runner stands at, when it has not finished (`file:line: text`): the
    /// next line to run, or the closing `wait` it is inside.
    pub fn position(&self) -> Option<String> {
        self.script
            .lines
            .get(self.next)
            .or_else(|| self.last_wait.and_then(|i| self.script.lines.get(i)))
            .map(|l| format!("{}:{}: {}", self.script.file, l.line, l.text))
    }

    /// Runs every command due before tick `tick` simulates, up to the next `wait` that
    /// reaches past it. Call with ticks in order, once each.
    pub fn run_due(&mut self, host: &mut dyn ScriptHost, tick: u64) -> Result<(), ScriptError> {
        if tick < self.resume_at {
            return Ok(());
        }
        while let Some(line) = self.script.lines.get(self.next) {
            self.next += 1;
            let fail = |message: String| ScriptError::Command {
                file: self.script.file.clone(),
                line: line.line,
                text: line.text.clone(),
                message,
            };
            match &line.command {
                Command::Wait(w) => {
                    let n = w.ticks(host.tick_rate());
                    if n > 0 {
                        self.resume_at = tick + n;
                        self.last_wait = Some(self.next - 1);
                        return Ok(());
                    }
                }
                Command::Set { name, value } => host.set_pref(name, value).map_err(fail)?,
                Command::Spawn { pawn, at, yaw } => host.spawn(pawn, *at, *yaw).map_err(fail)?,
                Command::Move {
                    pawn,
                    forward,
                    right,
                    ticks,
                } => host
                    .move_pawn(pawn, *forward, *right, *ticks)
                    .map_err(fail)?,
                Command::Turn { pawn, yaw, pitch } => {
                    host.turn(pawn, *yaw, *pitch).map_err(fail)?
                }
                Command::Jump { pawn } => host.jump(pawn).map_err(fail)?,
                Command::Use { pawn } => host.use_key(pawn).map_err(fail)?,
                Command::Teleport { pawn, to } => host.teleport(pawn, *to).map_err(fail)?,
                Command::Noclip { pawn, on } => {
                    let out = host.noclip(pawn, *on).map_err(fail)?;
                    host.print(&out);
                }
                Command::LightsList { pattern } => {
                    let out = host.lights_list(pattern.as_deref()).map_err(fail)?;
                    host.print(&out);
                }
                Command::LightsSet {
                    pattern,
                    field,
                    value,
                } => {
                    let out = host.lights_set(pattern, field, value).map_err(fail)?;
                    host.print(&out);
                }
                Command::LightsReset { pattern } => {
                    let out = host.lights_reset(pattern).map_err(fail)?;
                    host.print(&out);
                }
                Command::Scene { name, enabled } => {
                    let out = host.scene_enable(name, *enabled).map_err(fail)?;
                    host.print(&out);
                }
                Command::Print { entity, property } => {
                    let v = host.query(entity, property).map_err(fail)?;
                    host.print(&format!("tick {tick}: {entity}.{property} = {v}"));
                }
                Command::Expect {
                    entity,
                    property,
                    op,
                    value,
                    tolerance,
                } => {
                    let actual = host.query(entity, property).map_err(fail)?;
                    let ok = compare(&actual, *op, value, *tolerance).map_err(fail)?;
                    self.expects += 1;
                    if !ok {
                        self.failures.push(ScriptError::ExpectFailed {
                            file: self.script.file.clone(),
                            line: line.line,
                            text: line.text.clone(),
                            tick,
                            actual: format!("{entity}.{property} = {actual}"),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Command {
        parse_command(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn err(text: &str) -> String {
        match parse_command(text) {
            Ok(c) => panic!("{text} parsed as {c:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn parses_every_verb() {
        assert_eq!(
            one("set world.tickRate 32"),
            Command::Set {
                name: "world.tickRate".into(),
                value: "32".into()
            }
        );
        assert_eq!(
            one("set world.sun.color 1 0.5 0"),
            Command::Set {
                name: "world.sun.color".into(),
                value: "1 0.5 0".into()
            }
        );
        assert_eq!(one("wait 80 ticks"), Command::Wait(Wait::Ticks(80)));
        assert_eq!(one("wait 1 tick"), Command::Wait(Wait::Ticks(1)));
        assert_eq!(one("wait 1.5 seconds"), Command::Wait(Wait::Seconds(1.5)));
        assert_eq!(
            one("spawn p1"),
            Command::Spawn {
                pawn: "p1".into(),
                at: None,
                yaw: None
            }
        );
        assert_eq!(
            one("spawn p1 -3 0 1.5 180"),
            Command::Spawn {
                pawn: "p1".into(),
                at: Some(Vec3::new(-3.0, 0.0, 1.5)),
                yaw: Some(180.0)
            }
        );
        assert_eq!(
            one("move p1 1 -0.5 64"),
            Command::Move {
                pawn: "p1".into(),
                forward: 1.0,
                right: -0.5,
                ticks: Some(64)
            }
        );
        assert_eq!(
            one("turn p1 90 -10"),
            Command::Turn {
                pawn: "p1".into(),
                yaw: 90.0,
                pitch: Some(-10.0)
            }
        );
        assert_eq!(one("use p1"), Command::Use { pawn: "p1".into() });
        assert_eq!(one("jump p1"), Command::Jump { pawn: "p1".into() });
        assert_eq!(
            one("teleport p1 4 0.2 -9"),
            Command::Teleport {
                pawn: "p1".into(),
                to: Vec3::new(4.0, 0.2, -9.0)
            }
        );
        assert_eq!(
            one("noclip p1 on"),
            Command::Noclip {
                pawn: "p1".into(),
                on: Some(true)
            }
        );
        assert_eq!(one("lights.list"), Command::LightsList { pattern: None });
        assert_eq!(
            one("lights.set lamp* color 1 0.6 0.2"),
            Command::LightsSet {
                pattern: "lamp*".into(),
                field: "color".into(),
                value: vec!["1".into(), "0.6".into(), "0.2".into()]
            }
        );
        assert_eq!(
            one("lights.reset *"),
            Command::LightsReset {
                pattern: "*".into()
            }
        );
        assert_eq!(
            one("scene.disable slidingDoor"),
            Command::Scene {
                name: "slidingDoor".into(),
                enabled: false
            }
        );
        assert_eq!(
            one("expect slidingDoor.open == 1"),
            Command::Expect {
                entity: "slidingDoor".into(),
                property: "open".into(),
                op: Op::Eq,
                value: Value::Number(1.0),
                tolerance: DEFAULT_TOLERANCE
            }
        );
        assert_eq!(
            one("expect lamp.on == true"),
            Command::Expect {
                entity: "lamp".into(),
                property: "on".into(),
                op: Op::Eq,
                value: Value::Bool(true),
                tolerance: DEFAULT_TOLERANCE
            }
        );
        assert_eq!(
            one("expect pawn1.y > 2.4 within 0.05"),
            Command::Expect {
                entity: "pawn1".into(),
                property: "y".into(),
                op: Op::Gt,
                value: Value::Number(2.4),
                tolerance: 0.05
            }
        );
        assert_eq!(
            one("print lamp.on"),
            Command::Print {
                entity: "lamp".into(),
                property: "on".into()
            }
        );
    }

    #[test]
    fn each_verb_reports_its_usage() {
        assert_eq!(err("set world.tickRate"), "usage: set <name> <value>");
        assert_eq!(err("wait 5"), "usage: wait <N> ticks|seconds");
        assert_eq!(
            err("wait 5 minutes"),
            "wait takes ticks or seconds, got 'minutes'"
        );
        assert_eq!(
            err("wait 1.5 ticks"),
            "the tick count must be a whole number, got '1.5'"
        );
        assert_eq!(
            err("wait -1 seconds"),
            "the seconds must be at least 0, got '-1'"
        );
        assert_eq!(err("spawn p1 1 2"), "usage: spawn <pawn> [x y z [yaw]]");
        assert_eq!(err("spawn p1 1 two 3"), "y must be a number, got 'two'");
        assert_eq!(
            err("move p1 1"),
            "usage: move <pawn> <forward> <right> [ticks]"
        );
        assert_eq!(err("move p1 2 0"), "forward must be from -1 to 1, got 2");
        assert_eq!(err("turn p1"), "usage: turn <pawn> <yaw> [pitch]");
        assert_eq!(err("use"), "usage: use <pawn>");
        assert_eq!(err("jump a b"), "usage: jump <pawn>");
        assert_eq!(err("teleport p1 1 2"), "usage: teleport <pawn> x y z");
        assert_eq!(
            err("noclip p1 maybe"),
            "noclip takes on or off, got 'maybe'"
        );
        assert_eq!(err("lights.list a b"), "usage: lights.list [pattern]");
        assert_eq!(
            err("lights.set lamp color"),
            "usage: lights.set <pattern> <field> <value...>"
        );
        assert_eq!(
            err("lights.set *a* intensity 5"),
            "a pattern takes a single *, got '*a*'"
        );
        assert_eq!(err("lights.reset"), "usage: lights.reset <pattern>");
        assert_eq!(err("scene.enable"), "usage: scene.enable <name>");
        assert_eq!(
            err("expect door == 1"),
            "expected <entity>.<property>, got 'door'"
        );
        assert_eq!(
            err("expect door.open =< 1"),
            "expect compares with ==, !=, <, <=, > or >=, got '=<'"
        );
        assert_eq!(
            err("expect door.open == 1 within"),
            "usage: expect <entity>.<property> <op> <value> [within <tolerance>]"
        );
        assert_eq!(
            err("print door"),
            "expected <entity>.<property>, got 'door'"
        );
        assert!(err("fly p1").starts_with("unknown command 'fly'; the verbs are set, wait, spawn"));
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let text =
            "# a comment\nspawn p1 0 0 0   # trailing comment\n\nwait 5\nmove p1 0 0\nbogus\n";
        let e = parse("demo.dhs", text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "demo.dhs:4: usage: wait <N> ticks|seconds\ndemo.dhs:6: unknown command 'bogus'; the verbs are set, wait, spawn, move, turn, jump, use, teleport, noclip, lights.list, lights.set, lights.reset, scene.enable, scene.disable, expect, print"
        );
        let ok = parse("demo.dhs", "# c\nspawn p1 0 0 0 # c\n\nwait 2 ticks\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ok.lines.len(), 2);
        assert_eq!(ok.lines[0].line, 2);
        assert_eq!(ok.lines[0].text, "spawn p1 0 0 0");
        assert_eq!(ok.lines[1].line, 4);
    }

    #[test]
    fn seconds_quantize_up_to_whole_ticks() {
        assert_eq!(Wait::Seconds(1.0).ticks(64), 64);
        assert_eq!(Wait::Seconds(1.25).ticks(64), 80);
        assert_eq!(Wait::Seconds(0.01).ticks(64), 1);
        assert_eq!(Wait::Seconds(0.0).ticks(64), 0);
        assert_eq!(Wait::Seconds(0.02).ticks(100), 2);
        assert_eq!(Wait::Ticks(7).ticks(64), 7);
    }

    #[test]
    fn patterns_match_as_the_spec_says() {
        let names = ["lamp", "lampPost", "frontDoor", "backDoor", "*", "hall"];
        let it = || names.iter().copied();
        assert_eq!(match_pattern("lamp", it()), vec!["lamp"]);
        assert_eq!(match_pattern("lamp*", it()), vec!["lamp", "lampPost"]);
        assert_eq!(match_pattern("*Door", it()), vec!["frontDoor", "backDoor"]);
        assert_eq!(match_pattern("f*r", it()), vec!["frontDoor"]);
        // An exact name wins first: a light literally named * is never shadowed.
        assert_eq!(match_pattern("*", it()), vec!["*"]);
        assert_eq!(match_pattern("nothing*", it()), Vec::<&str>::new());
        assert_eq!(match_pattern("nothing", it()), Vec::<&str>::new());
        let no_star = ["a", "b"];
        assert_eq!(match_pattern("*", no_star.iter().copied()), vec!["a", "b"]);
    }

    #[test]
    fn compare_numbers_bools_and_text() {
        let t = DEFAULT_TOLERANCE;
        assert_eq!(
            compare(&Value::Number(3.49999), Op::Eq, &Value::Number(3.5), t),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Number(3.4), Op::Eq, &Value::Number(3.5), t),
            Ok(false)
        );
        assert_eq!(
            compare(&Value::Number(3.4), Op::Eq, &Value::Number(3.5), 0.2),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Bool(true), Op::Eq, &Value::Number(1.0), t),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Number(2.5), Op::Gt, &Value::Number(2.4), t),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Number(2.4), Op::Ge, &Value::Number(2.4), t),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Number(2.4), Op::Lt, &Value::Number(2.4), t),
            Ok(false)
        );
        assert_eq!(
            compare(
                &Value::Text("idle".into()),
                Op::Eq,
                &Value::Text("idle".into()),
                t
            ),
            Ok(true)
        );
        assert_eq!(
            compare(&Value::Text("idle".into()), Op::Lt, &Value::Number(1.0), t),
            Err("< compares numbers only, and idle against 1 is not two numbers".into())
        );
    }

    /// A host that records calls and answers queries from a table.
    #[derive(Default)]
    struct Mock {
        calls: Vec<String>,
        door_y: f64,
        out: Vec<String>,
    }

    impl ScriptHost for Mock {
        fn tick_rate(&self) -> u32 {
            64
        }
        fn set_pref(&mut self, name: &str, value: &str) -> Result<(), String> {
            let mut p = crate::prefs::Prefs::new();
            p.set(name, value).map_err(|e| e.to_string())?;
            self.calls.push(format!("set {name} {value}"));
            Ok(())
        }
        fn spawn(&mut self, pawn: &str, at: Option<Vec3>, _: Option<f32>) -> Result<(), String> {
            let at = at.map(|v| v.to_array());
            self.calls.push(format!("spawn {pawn} {at:?}"));
            Ok(())
        }
        fn move_pawn(&mut self, pawn: &str, f: f32, r: f32, t: Option<u64>) -> Result<(), String> {
            if pawn != "p1" {
                return Err(format!("no pawn named '{pawn}'"));
            }
            self.calls.push(format!("move {pawn} {f} {r} {t:?}"));
            Ok(())
        }
        fn turn(&mut self, _: &str, _: f32, _: Option<f32>) -> Result<(), String> {
            Ok(())
        }
        fn jump(&mut self, _: &str) -> Result<(), String> {
            Ok(())
        }
        fn use_key(&mut self, pawn: &str) -> Result<(), String> {
            self.calls.push(format!("use {pawn}"));
            Ok(())
        }
        fn teleport(&mut self, _: &str, _: Vec3) -> Result<(), String> {
            Ok(())
        }
        fn noclip(&mut self, _: &str, _: Option<bool>) -> Result<String, String> {
            Err("noclip is not allowed on this world (world.noclipAllowed is false)".into())
        }
        fn lights_list(&mut self, _: Option<&str>) -> Result<String, String> {
            Ok("lamp".into())
        }
        fn lights_set(&mut self, _: &str, _: &str, _: &[String]) -> Result<String, String> {
            Ok("set".into())
        }
        fn lights_reset(&mut self, _: &str) -> Result<String, String> {
            Ok("reset".into())
        }
        fn scene_enable(&mut self, _: &str, _: bool) -> Result<String, String> {
            Ok("scene".into())
        }
        fn query(&self, entity: &str, property: &str) -> Result<Value, String> {
            match (entity, property) {
                ("door", "y") => Ok(Value::Number(self.door_y)),
                _ => Err(format!("no entity named '{entity}'")),
            }
        }
        fn print(&mut self, text: &str) {
            self.out.push(text.to_string());
        }
    }

    #[test]
    fn runner_waits_and_checks() {
        let script = parse(
            "t.dhs",
            "spawn p1 0 0 0\nuse p1\nwait 2 ticks\nexpect door.y == 1\nmove p1 1 0 5\nwait 1 seconds\nexpect door.y > 2\nprint door.y\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut r = ScriptRunner::new(script);
        let mut m = Mock {
            door_y: 1.0,
            ..Mock::default()
        };
        r.run_due(&mut m, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.calls, vec!["spawn p1 Some([0.0, 0.0, 0.0])", "use p1"]);
        r.run_due(&mut m, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.calls.len(), 2, "tick 1 is inside the wait");
        r.run_due(&mut m, 2).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.calls.len(), 3);
        assert_eq!(m.calls[2], "move p1 1 0 Some(5)");
        for t in 3..66 {
            r.run_due(&mut m, t).unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(!r.finished(66));
        assert_eq!(r.position().as_deref(), Some("t.dhs:7: expect door.y > 2"));
        m.door_y = 2.5;
        r.run_due(&mut m, 66).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.finished(66));
        assert_eq!(m.out, vec!["tick 66: door.y = 2.5"]);
    }

    #[test]
    fn a_failed_expect_names_the_line_and_the_actual_value() {
        let script =
            parse("t.dhs", "# check\nexpect door.y == 3.5\n").unwrap_or_else(|e| panic!("{e}"));
        let mut r = ScriptRunner::new(script);
        let mut m = Mock {
            door_y: 3.25,
            ..Mock::default()
        };
        r.run_due(&mut m, 7).unwrap_or_else(|e| panic!("{e}"));
        let failures = r.take_failures();
        assert_eq!(failures.len(), 1);
        assert!(failures[0].is_expectation());
        assert_eq!(
            failures[0].to_string(),
            "t.dhs:2: expectation failed at tick 7: expect door.y == 3.5 (actual door.y = 3.25)"
        );
        // Handed out once.
        assert!(r.take_failures().is_empty());
        assert!(r.failed());
    }

    /// Regression (issue 19): a script ending in `wait 100 ticks` ended after one tick,
    /// because the runner counted itself finished once the wait line was read.
    #[test]
    fn a_closing_wait_lasts_its_ticks() {
        let script =
            parse("t.dhs", "print door.y\nwait 100 ticks\n").unwrap_or_else(|e| panic!("{e}"));
        let mut r = ScriptRunner::new(script);
        let mut m = Mock::default();
        assert!(!r.finished(0));
        let mut tick = 0;
        while !r.finished(tick) {
            r.run_due(&mut m, tick).unwrap_or_else(|e| panic!("{e}"));
            tick += 1;
            assert!(tick <= 1000, "the wait never ends");
        }
        assert_eq!(tick, 100, "the wait spans ticks 0 to 99");
        assert!(r.finished(100));
        assert_eq!(r.position().as_deref(), Some("t.dhs:2: wait 100 ticks"));
        // An empty script has nothing to wait for.
        let empty =
            ScriptRunner::new(parse("e.dhs", "# nothing\n").unwrap_or_else(|e| panic!("{e}")));
        assert!(empty.finished(0));
    }

    /// Regression (issue 19): a failed `expect` scrolled away above the frame timer; the
    /// run now goes on and its last line counts the failures (ours: every `expect` is
    /// checked, the first three spelled out, the unreached counted).
    #[test]
    fn failed_expects_are_summed_up() {
        let script = parse(
            "t.dhs",
            "expect door.y == 1\nexpect door.y == 2\nwait 1 ticks\nexpect door.y > 0\nwait 5 ticks\nexpect door.y == 9\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut r = ScriptRunner::new(script);
        let mut m = Mock {
            door_y: 1.0,
            ..Mock::default()
        };
        assert_eq!(r.summary(), None);
        r.run_due(&mut m, 0).unwrap_or_else(|e| panic!("{e}"));
        r.run_due(&mut m, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.take_failures().len(), 1);
        assert_eq!(
            r.summary().as_deref(),
            Some("1 of 3 expects failed: t.dhs:2: expectation failed at tick 0: expect door.y == 2 (actual door.y = 1) (1 more never reached)")
        );
        for t in 2..=6 {
            r.run_due(&mut m, t).unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(r.finished(7));
        assert_eq!(
            r.summary().as_deref(),
            Some("2 of 4 expects failed: t.dhs:2: expectation failed at tick 0: expect door.y == 2 (actual door.y = 1); t.dhs:6: expectation failed at tick 6: expect door.y == 9 (actual door.y = 1)")
        );
    }

    #[test]
    fn command_errors_name_the_line() {
        let mut m = Mock::default();
        let cases = [
            ("move p2 1 0", "t.dhs:1: move p2 1 0: no pawn named 'p2'"),
            (
                "set world.tickRate 0",
                "t.dhs:1: set world.tickRate 0: world.tickRate: 0 is out of range: it takes a whole number from 1 to 1024",
            ),
            (
                "set world.tickrate 64",
                "t.dhs:1: set world.tickrate 64: unknown preference 'world.tickrate'; did you mean world.tickRate?",
            ),
            ("expect lamp.on == true", "t.dhs:1: expect lamp.on == true: no entity named 'lamp'"),
            (
                "noclip p1",
                "t.dhs:1: noclip p1: noclip is not allowed on this world (world.noclipAllowed is false)",
            ),
        ];
        for (text, want) in cases {
            let script = parse("t.dhs", text).unwrap_or_else(|e| panic!("{e}"));
            let e = ScriptRunner::new(script).run_due(&mut m, 0).unwrap_err();
            assert!(!e.is_expectation());
            assert_eq!(e.to_string(), want);
        }
    }
}
