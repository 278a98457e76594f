//! The logic components of a map record (and of an object's root): dh.button, dh.mover,
//! dh.pressurePlate, dh.trigger, dh.teleport, dh.timer, dh.mapStart and the gates, with
//! their defaults and their build-time rules.
//!
//! Each component's own rules run from its `validate` method (dispatched by
//! [`MapComponent::validate`]). The rules that need the rest of the object (the body a
//! button, a mover, a plate or a trigger stands as; whether a bodiless mover carries
//! anything; a teleport's destination) run from [`validate_object_logic`], which the
//! record validator calls once per object record. The signals each component fires and
//! takes are in [`super::signals`].

use super::{ComponentCx, MapComponent};
use crate::jsonc::Value;
use crate::read::{At, Cx, ToJson};
use crate::schema::common::Vec3;

/// A vector shorter than this is "zero" (it cannot be normalized).
const ZERO_LENGTH: f64 = 1e-9;

fn length(v: Vec3) -> f64 {
    (v.x() * v.x() + v.y() * v.y() + v.z() * v.z()).sqrt()
}

fn normalized(v: Vec3) -> Option<Vec3> {
    let len = length(v);
    if len.is_finite() && len > ZERO_LENGTH {
        Some(Vec3([v.x() / len, v.y() / len, v.z() / len]))
    } else {
        None
    }
}

// ---- dh.button ---------------------------------------------------------------------------

block! {
    /// `dh.button`: the interactable. It has no fields: Use on its object fires
    /// `onPressed`, and its body is its object's one box.
    pub struct Button = "dh.button" {}
}

impl Button {
    /// A button has no fields, so no rule reads it alone; its body rule needs its object
    /// and runs in [`validate_object_logic`].
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

// ---- dh.mover ----------------------------------------------------------------------------

tokens! {
    /// How a mover moves between closed and open.
    pub enum Motion as "mover motion" {
        /// A straight line along `direction` for `distance` meters.
        #[default]
        Slide = "slide",
        /// A turn of `angle` degrees about `axis` through the object's origin.
        Rotate = "rotate",
        /// An endless turn at `rate` degrees a second about `axis`.
        Spin = "spin",
    }
}

block! {
    /// `dh.mover`: whatever object it sits on slides, turns or spins between its authored
    /// (closed) pose and open. A door is a mover on an object with a dh.box.
    pub struct Mover = "dh.mover" {
        /// `motion`: slide (default), rotate or spin.
        opt motion: Motion = "motion",
        /// `direction`: a slide's direction in world axes, normalized when read; default
        /// `[0, 1, 0]`; zero is refused.
        opt direction: Vec3 = "direction",
        /// `distance`: a slide's travel in meters; default 2; must be above zero.
        opt distance: f64 = "distance",
        /// `axis`: a rotate's or spin's axis in the object's own frame, normalized when
        /// read; default `[0, 1, 0]`; zero is refused.
        opt axis: Vec3 = "axis",
        /// `angle`: a rotate's turn in degrees; default 90; negative turns the other way;
        /// zero is refused.
        opt angle: f64 = "angle",
        /// `rate`: a spin's speed in degrees a second; default 90; negative turns the other
        /// way; zero is refused.
        opt rate: f64 = "rate",
        /// `duration`: seconds one full sweep takes (a spin's spin-up and spin-down);
        /// default 1; must be above zero.
        opt duration: f64 = "duration",
        /// `startOpen`: spawns fully open; default false; a spin ignores it.
        opt start_open: bool = "startOpen",
    }
}

impl Mover {
    /// `motion`'s default.
    pub const DEFAULT_MOTION: Motion = Motion::Slide;
    /// `direction`'s default.
    pub const DEFAULT_DIRECTION: Vec3 = Vec3([0.0, 1.0, 0.0]);
    /// `distance`'s default, meters.
    pub const DEFAULT_DISTANCE: f64 = 2.0;
    /// `axis`'s default.
    pub const DEFAULT_AXIS: Vec3 = Vec3([0.0, 1.0, 0.0]);
    /// `angle`'s default, degrees.
    pub const DEFAULT_ANGLE: f64 = 90.0;
    /// `rate`'s default, degrees a second.
    pub const DEFAULT_RATE: f64 = 90.0;
    /// `duration`'s default, seconds.
    pub const DEFAULT_DURATION: f64 = 1.0;
    /// `startOpen`'s default.
    pub const DEFAULT_START_OPEN: bool = false;

    /// The motion, default applied.
    pub fn motion(&self) -> Motion {
        self.motion.unwrap_or(Self::DEFAULT_MOTION)
    }
    /// The slide direction as written, default applied.
    pub fn direction(&self) -> Vec3 {
        self.direction.unwrap_or(Self::DEFAULT_DIRECTION)
    }
    /// The slide direction normalized, as the runtime reads it (`None` when zero, which
    /// [`validate`](Mover::validate) refuses).
    pub fn direction_normalized(&self) -> Option<Vec3> {
        normalized(self.direction())
    }
    /// The slide distance, default applied.
    pub fn distance(&self) -> f64 {
        self.distance.unwrap_or(Self::DEFAULT_DISTANCE)
    }
    /// The axis as written, default applied.
    pub fn axis(&self) -> Vec3 {
        self.axis.unwrap_or(Self::DEFAULT_AXIS)
    }
    /// The axis normalized (`None` when zero).
    pub fn axis_normalized(&self) -> Option<Vec3> {
        normalized(self.axis())
    }
    /// The rotate angle, default applied.
    pub fn angle(&self) -> f64 {
        self.angle.unwrap_or(Self::DEFAULT_ANGLE)
    }
    /// The spin rate, default applied.
    pub fn rate(&self) -> f64 {
        self.rate.unwrap_or(Self::DEFAULT_RATE)
    }
    /// The sweep duration, default applied.
    pub fn duration(&self) -> f64 {
        self.duration.unwrap_or(Self::DEFAULT_DURATION)
    }
    /// Whether it spawns open, default applied (a spin ignores it).
    pub fn start_open(&self) -> bool {
        self.start_open.unwrap_or(Self::DEFAULT_START_OPEN)
    }

    /// The mover's own rules: a zero direction or axis, a distance or duration not above
    /// zero, and a zero angle or rate are refused. Each rule reads the member as written,
    /// whatever the motion (a delta over an inherited mover may state a field alone). The
    /// motion's tokens are checked when it is read.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let who = ccx.label("dh.mover");
        if let Some(d) = self.direction {
            if normalized(d).is_none() {
                cx.error_at(
                    &self.at,
                    self.at.field("direction"),
                    format!("{who} 'direction' must not be zero (a slide's direction is normalized when read)"),
                );
            }
        }
        if let Some(a) = self.axis {
            if normalized(a).is_none() {
                cx.error_at(
                    &self.at,
                    self.at.field("axis"),
                    format!("{who} 'axis' must not be zero (the axis is normalized when read)"),
                );
            }
        }
        if let Some(d) = self.distance {
            if d <= 0.0 {
                cx.error_at(
                    &self.at,
                    self.at.field("distance"),
                    format!("{who} 'distance' must be above zero, found {d}"),
                );
            }
        }
        if self.angle == Some(0.0) {
            cx.error_at(
                &self.at,
                self.at.field("angle"),
                format!("{who} 'angle' must not be zero (a negative angle turns the other way)"),
            );
        }
        if self.rate == Some(0.0) {
            cx.error_at(
                &self.at,
                self.at.field("rate"),
                format!("{who} 'rate' must not be zero (a negative rate turns the other way)"),
            );
        }
        if let Some(d) = self.duration {
            if d <= 0.0 {
                cx.error_at(
                    &self.at,
                    self.at.field("duration"),
                    format!("{who} 'duration' must be above zero, found {d}"),
                );
            }
        }
    }
}

// ---- dh.pressurePlate --------------------------------------------------------------------

block! {
    /// `dh.pressurePlate`: a non-solid detector with no fields; its volume is its body's
    /// box, and it fires on its occupancy going 0 to 1 and back.
    pub struct PressurePlate = "dh.pressurePlate" {}
}

impl PressurePlate {
    /// A plate has no fields, so no rule reads it alone; its body rule needs its object and
    /// runs in [`validate_object_logic`].
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

// ---- dh.trigger --------------------------------------------------------------------------

tokens! {
    /// Who sets a trigger off.
    pub enum TouchedBy as "trigger touchedBy" {
        /// Player pawns (the only ones measured today).
        #[default]
        Players = "players",
        /// Physics props (measured once props can touch triggers).
        Props = "props",
        /// Both.
        Everything = "everything",
    }
}

block! {
    /// `dh.trigger`: the one way a volume fires touch edges, per toucher. Its volume is its
    /// body's box.
    pub struct Trigger = "dh.trigger" {
        /// `enabled`: whether it starts on; default true.
        opt enabled: bool = "enabled",
        /// `touchedBy`: players (default), props or everything.
        opt touched_by: TouchedBy = "touchedBy",
    }
}

impl Trigger {
    /// `enabled`'s default.
    pub const DEFAULT_ENABLED: bool = true;
    /// `touchedBy`'s default.
    pub const DEFAULT_TOUCHED_BY: TouchedBy = TouchedBy::Players;

    /// Whether it starts on, default applied.
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(Self::DEFAULT_ENABLED)
    }
    /// Who sets it off, default applied.
    pub fn touched_by(&self) -> TouchedBy {
        self.touched_by.unwrap_or(Self::DEFAULT_TOUCHED_BY)
    }

    /// A trigger's fields are a bool and a token, both checked when read; its body rule
    /// needs its object and runs in [`validate_object_logic`].
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

// ---- dh.teleport -------------------------------------------------------------------------

tokens! {
    /// Where a teleported subject looks on arriving.
    pub enum Facing as "teleport facing" {
        /// The destination's yaw and pitch.
        #[default]
        Destination = "destination",
        /// The subject's own view, unchanged.
        Keep = "keep",
        /// The subject's view turned by the frame change.
        Turn = "turn",
    }
}

tokens! {
    /// What a teleported subject's velocity becomes.
    pub enum TeleportVelocity as "teleport velocity" {
        /// Unchanged in world space (Source's rule).
        #[default]
        Keep = "keep",
        /// Stopped.
        Zero = "zero",
        /// Turned by the frame change.
        Turn = "turn",
    }
}

block! {
    /// `dh.teleport`: moves the activator to where an object stands. Its one input is
    /// `teleport`; it fires nothing.
    pub struct Teleport = "dh.teleport" {
        /// `destination`: the name of the object it arrives at; empty (default) means this
        /// object.
        opt destination: String = "destination",
        /// `landmark`: the name of an object the subject keeps its offset from; empty
        /// (default) keeps none.
        opt landmark: String = "landmark",
        /// `facing`: destination (default), keep or turn.
        opt facing: Facing = "facing",
        /// `velocity`: keep (default), zero or turn.
        opt velocity: TeleportVelocity = "velocity",
        /// `subject`: who moves; empty (default) is the activator, a name is that object
        /// (reserved for physics props).
        opt subject: String = "subject",
    }
}

impl Teleport {
    /// `facing`'s default.
    pub const DEFAULT_FACING: Facing = Facing::Destination;
    /// `velocity`'s default.
    pub const DEFAULT_VELOCITY: TeleportVelocity = TeleportVelocity::Keep;

    /// The destination's name, `None` when empty or unset (this object).
    pub fn destination(&self) -> Option<&str> {
        self.destination.as_deref().filter(|s| !s.is_empty())
    }
    /// The landmark's name, `None` when empty or unset (no offset kept).
    pub fn landmark(&self) -> Option<&str> {
        self.landmark.as_deref().filter(|s| !s.is_empty())
    }
    /// The subject's name, `None` when empty or unset (the activator).
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref().filter(|s| !s.is_empty())
    }
    /// The facing rule, default applied.
    pub fn facing(&self) -> Facing {
        self.facing.unwrap_or(Self::DEFAULT_FACING)
    }
    /// The velocity rule, default applied.
    pub fn velocity(&self) -> TeleportVelocity {
        self.velocity.unwrap_or(Self::DEFAULT_VELOCITY)
    }

    /// A teleport's tokens are checked when read; its name rules (a destination that
    /// matches no object, a destination inside its own trigger) need the map and run in
    /// [`validate_object_logic`].
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

// ---- dh.timer ----------------------------------------------------------------------------

block! {
    /// `dh.timer`: `fire` waits `delaySeconds`, then fires `onTimer` with the activator.
    pub struct Timer = "dh.timer" {
        /// `delaySeconds`: seconds between a fire and its onTimer; default 1.
        opt delay_seconds: f64 = "delaySeconds",
    }
}

impl Timer {
    /// `delaySeconds`' default.
    pub const DEFAULT_DELAY_SECONDS: f64 = 1.0;

    /// The delay, default applied.
    pub fn delay_seconds(&self) -> f64 {
        self.delay_seconds.unwrap_or(Self::DEFAULT_DELAY_SECONDS)
    }

    /// A delay is a span of time: a negative one is refused.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        if let Some(d) = self.delay_seconds {
            if d < 0.0 {
                cx.error_at(
                    &self.at,
                    self.at.field("delaySeconds"),
                    format!(
                        "{} 'delaySeconds' must be zero or more, found {d}",
                        ccx.label("dh.timer")
                    ),
                );
            }
        }
    }
}

// ---- dh.mapStart and the gates -----------------------------------------------------------

block! {
    /// `dh.mapStart`: no fields; fires `onMapStart` once, on the map's first logic tick.
    pub struct MapStart = "dh.mapStart" {}
}

impl MapStart {
    /// A map start has no fields, so it has no rules.
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

block! {
    /// `dh.andGate`: no fields; levels `setA`, `setB`; fires on an edge of A AND B.
    pub struct AndGate = "dh.andGate" {}
}

impl AndGate {
    /// A gate has no fields, so it has no rules.
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

block! {
    /// `dh.orGate`: no fields; levels `setA`, `setB`; fires on an edge of A OR B.
    pub struct OrGate = "dh.orGate" {}
}

impl OrGate {
    /// A gate has no fields, so it has no rules.
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

block! {
    /// `dh.notGate`: no fields; level `setA`; fires on an edge of NOT A.
    pub struct NotGate = "dh.notGate" {}
}

impl NotGate {
    /// A gate has no fields, so it has no rules.
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}

// ---- Bodies ------------------------------------------------------------------------------

/// One shape of a collider, as the body rules read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeInfo {
    /// The shape's `type` (`box`, `sphere`, `capsule`, `hull`, `mesh`, `auto`).
    pub kind: String,
    /// A box's center in the owner's frame (`[0, 0, 0]` unless written).
    pub center: Vec3,
    /// A box's half extents (`None` for another shape, or a box written without them).
    pub half_extents: Option<Vec3>,
    /// Whether the shape states a rotation other than `[0, 0, 0]`.
    pub rotated: bool,
}

/// What an object's logic stands as: its dh.collider, or the exact box the compiler gives
/// a dh.box that has none, or nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Neither a dh.box nor a dh.collider.
    Nothing,
    /// A dh.box with no dh.collider: the compiler's exact box over it (half its size,
    /// centered on the object).
    GeneratedBox {
        /// Half the box's size.
        half_extents: Vec3,
    },
    /// An authored dh.collider.
    Collider {
        /// Its shapes, in order.
        shapes: Vec<ShapeInfo>,
        /// Half the size of the dh.box beside it, which an `auto` shape stands as.
        box_half_extents: Option<Vec3>,
    },
}

/// Why a body is not one box, as the spec refuses it.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyProblem {
    /// No dh.box and no dh.collider.
    NoBody,
    /// A collider holding this many shapes (not one).
    ShapeCount(usize),
    /// A collider whose one shape is this kind (not a box).
    NotABox(String),
    /// A collider whose one shape is `auto` with no dh.box beside it to stand as.
    AutoWithoutBox,
}

fn vec3_of(v: Option<&Value>) -> Option<Vec3> {
    let items = v?.as_array()?;
    match items {
        [x, y, z] => Some(Vec3([x.as_f64()?, y.as_f64()?, z.as_f64()?])),
        _ => None,
    }
}

impl Body {
    /// The body of an object whose components are `components`.
    pub fn of(components: &[MapComponent]) -> Body {
        let box_json = components.iter().find_map(|c| match c {
            MapComponent::Box(b) => Some(b.to_json()),
            _ => None,
        });
        let collider_json = components.iter().find_map(|c| match c {
            MapComponent::Collider(b) => Some(b.to_json()),
            _ => None,
        });
        Body::from_json(box_json.as_ref(), collider_json.as_ref())
    }

    /// The body from the JSON of an owner's dh.box and dh.collider (each as written back),
    /// for owners whose component list is not a map record's (an object's root).
    pub fn from_json(dh_box: Option<&Value>, collider: Option<&Value>) -> Body {
        let box_half = dh_box.map(|b| {
            let size = vec3_of(b.get("size")).unwrap_or(Vec3::ONE);
            Vec3([size.x() / 2.0, size.y() / 2.0, size.z() / 2.0])
        });
        match (collider, box_half) {
            // A collider that writes no shapes beside a dh.box stands as the box itself,
            // one auto shape; with no box beside it, it holds none.
            (Some(c), Some(_)) if c.get("shapes").is_none() => Body::Collider {
                shapes: vec![ShapeInfo {
                    kind: "auto".to_string(),
                    center: Vec3::ZERO,
                    half_extents: None,
                    rotated: false,
                }],
                box_half_extents: box_half,
            },
            (Some(c), _) => Body::Collider {
                shapes: c
                    .get("shapes")
                    .and_then(|s| s.as_array())
                    .unwrap_or(&[])
                    .iter()
                    .map(|s| ShapeInfo {
                        kind: s
                            .get("type")
                            .and_then(|t| t.as_str())
                            .unwrap_or("")
                            .to_string(),
                        center: vec3_of(s.get("center")).unwrap_or(Vec3::ZERO),
                        half_extents: vec3_of(s.get("halfExtents")),
                        rotated: vec3_of(s.get("rotation")).is_some_and(|r| r != Vec3::ZERO)
                            || s.get("rotation")
                                .is_some_and(|r| vec3_of(Some(r)).is_none()),
                    })
                    .collect(),
                box_half_extents: box_half,
            },
            (None, Some(half_extents)) => Body::GeneratedBox { half_extents },
            (None, None) => Body::Nothing,
        }
    }

    /// Whether the object has nothing of its own to stand as (no dh.box, no dh.collider).
    pub fn is_nothing(&self) -> bool {
        matches!(self, Body::Nothing)
    }

    /// The one box the body is, as `(center, half extents)` in the owner's frame, or why it
    /// is not one. A shape with a rotation still counts as a box; `rotated` on the shape
    /// says so.
    pub fn one_box(&self) -> Result<(Vec3, Vec3), BodyProblem> {
        match self {
            Body::Nothing => Err(BodyProblem::NoBody),
            Body::GeneratedBox { half_extents } => Ok((Vec3::ZERO, *half_extents)),
            Body::Collider {
                shapes,
                box_half_extents,
            } => match shapes.as_slice() {
                [one] => match one.kind.as_str() {
                    "box" => Ok((one.center, one.half_extents.unwrap_or(Vec3::ZERO))),
                    "auto" => match box_half_extents {
                        Some(h) => Ok((Vec3::ZERO, *h)),
                        None => Err(BodyProblem::AutoWithoutBox),
                    },
                    other => Err(BodyProblem::NotABox(other.to_string())),
                },
                many => Err(BodyProblem::ShapeCount(many.len())),
            },
        }
    }
}

/// The message refusing `component`'s body, in the spec's words where it quotes them
/// (`'dh.mover' needs exactly one shape in its object's 'dh.collider', which holds 2`).
pub fn body_problem_message(component: &str, problem: &BodyProblem) -> String {
    match problem {
        BodyProblem::NoBody => format!(
            "'{component}' has no body: its object carries neither a 'dh.box' nor a \
             'dh.collider' holding one box shape"
        ),
        BodyProblem::ShapeCount(n) => format!(
            "'{component}' needs exactly one shape in its object's 'dh.collider', which holds {n}"
        ),
        BodyProblem::NotABox(kind) => {
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            format!(
                "'{component}' needs a box shape in its object's 'dh.collider', which holds \
                 {article} {kind}"
            )
        }
        BodyProblem::AutoWithoutBox => format!(
            "'{component}' needs a box shape in its object's 'dh.collider', which holds an auto \
             shape with no 'dh.box' beside it to stand as"
        ),
    }
}

/// The spec's message for a bodiless mover nothing rides.
pub const BODILESS_MOVER_CARRIES_NOTHING: &str = "'dh.mover' has no body and carries nothing";

/// The body rules for one owner: each of a button, a mover, a plate and a trigger (the
/// `(type, where)` pairs in `logic`) must stand as exactly one box shape. A mover with no
/// body at all (neither a dh.box nor a dh.collider) is valid while `carries_something`;
/// without it, it is refused (`'dh.mover' has no body and carries nothing`). A button, a
/// plate or a trigger beside it still needs its body.
pub fn check_bodies(cx: &mut Cx, body: &Body, logic: &[(&str, &At)], carries_something: bool) {
    for (component, at) in logic {
        if !matches!(
            *component,
            "dh.button" | "dh.mover" | "dh.pressurePlate" | "dh.trigger"
        ) {
            continue;
        }
        let Err(problem) = body.one_box() else {
            continue;
        };
        if *component == "dh.mover" && problem == BodyProblem::NoBody {
            if !carries_something {
                cx.error_at(at, at.span, BODILESS_MOVER_CARRIES_NOTHING);
            }
            continue;
        }
        cx.error_at(at, at.span, body_problem_message(component, &problem));
    }
}

// ---- The object-level rules --------------------------------------------------------------

fn always_named(_: &str) -> bool {
    true
}

fn never_located(_: &str) -> Option<Vec3> {
    None
}

/// What the object-level logic rules need to know about the map around one object record.
pub struct ObjectLogicCx<'a> {
    /// Whether anything rides this object: a record whose parent is this object's id, or a
    /// model part's override naming it as its parent.
    pub carries_something: bool,
    /// Whether `name` is the name of an object (any record a teleport can arrive at) in the
    /// map.
    pub object_named: &'a dyn Fn(&str) -> bool,
    /// Where the object named `name` stands, as a point in THIS object's own frame (its
    /// world transform, scale included, inverted), when the caller can say; `None` skips the
    /// rule that needs it.
    pub local_position_of: &'a dyn Fn(&str) -> Option<Vec3>,
}

impl ObjectLogicCx<'static> {
    /// A context that knows only whether the object carries something: every name counts
    /// as an object and no position is known, so only the body rules can fire.
    pub fn standalone(carries_something: bool) -> ObjectLogicCx<'static> {
        ObjectLogicCx {
            carries_something,
            object_named: &always_named,
            local_position_of: &never_located,
        }
    }
}

fn component_at(c: &MapComponent) -> Option<(&'static str, &At)> {
    match c {
        MapComponent::Button(b) => Some(("dh.button", &b.at)),
        MapComponent::Mover(b) => Some(("dh.mover", &b.at)),
        MapComponent::PressurePlate(b) => Some(("dh.pressurePlate", &b.at)),
        MapComponent::Trigger(b) => Some(("dh.trigger", &b.at)),
        _ => None,
    }
}

fn inside(point: Vec3, center: Vec3, half: Vec3) -> bool {
    (0..3).all(|i| (point.0[i] - center.0[i]).abs() <= half.0[i])
}

/// The logic rules that read a whole object record's components, beside each component's
/// own `validate`. Call once per object record (a boxBrush's components include the dh.box
/// its sugar stands for):
///
/// - a button, a mover, a plate and a trigger stand as exactly one box shape of the
///   object's dh.collider (or the compiler's box over its dh.box):
///   `'dh.mover' needs exactly one shape in its object's 'dh.collider', which holds 2`;
/// - a mover with no body at all is valid while something rides it, else
///   `'dh.mover' has no body and carries nothing`;
/// - a teleport's destination must name an object in the map (the build refuses a name
///   that matches no object); a landmark or subject that matches no object is warned;
/// - a warning when a teleport's destination lies inside the same object's own trigger
///   volume, which is a loop on every tick.
pub fn validate_object_logic(
    cx: &mut Cx,
    components: &[MapComponent],
    ccx: &ComponentCx,
    lcx: &ObjectLogicCx,
) {
    let body = Body::of(components);
    let logic: Vec<(&str, &At)> = components.iter().filter_map(component_at).collect();
    check_bodies(cx, &body, &logic, lcx.carries_something);

    let Some(teleport) = components.iter().find_map(|c| match c {
        MapComponent::Teleport(t) => Some(t),
        _ => None,
    }) else {
        return;
    };
    let who = ccx.label("dh.teleport");
    let at = &teleport.at;
    let mut destination_exists = true;
    if let Some(name) = teleport.destination() {
        if !(lcx.object_named)(name) {
            destination_exists = false;
            cx.error_at(
                at,
                at.field("destination"),
                format!("{who} 'destination' names no object in the map: '{name}'"),
            );
        }
    }
    for (field, name) in [
        ("landmark", teleport.landmark()),
        ("subject", teleport.subject()),
    ] {
        if let Some(name) = name {
            if !(lcx.object_named)(name) {
                cx.warning_at(
                    at,
                    at.field(field),
                    format!("{who} '{field}' names no object in the map: '{name}'"),
                );
            }
        }
    }

    // The loop warning: a destination inside this object's own trigger volume.
    let has_trigger = components
        .iter()
        .any(|c| matches!(c, MapComponent::Trigger(_)));
    if !has_trigger || !destination_exists {
        return;
    }
    let Ok((center, half)) = body.one_box() else {
        return;
    };
    if let Body::Collider { shapes, .. } = &body {
        if shapes.iter().any(|s| s.rotated) {
            return;
        }
    }
    let (point, said) = match teleport.destination() {
        Some(name) => ((lcx.local_position_of)(name), format!("'{name}'")),
        None => (Some(Vec3::ZERO), "(empty: this object)".to_string()),
    };
    if let Some(p) = point {
        if inside(p, center, half) {
            cx.warning_at(
                at,
                at.field("destination"),
                format!(
                    "{who} destination {said} lies inside the teleporter's own trigger \
                     volume, which is a loop on every tick"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_refuses_zero() {
        assert_eq!(
            normalized(Vec3([0.0, 3.0, 4.0])),
            Some(Vec3([0.0, 0.6, 0.8]))
        );
        assert_eq!(normalized(Vec3::ZERO), None);
    }

    #[test]
    fn body_from_json_reads_the_generated_box() {
        let b = Value::synthetic(crate::jsonc::Kind::Object(vec![]));
        assert_eq!(
            Body::from_json(Some(&b), None).one_box(),
            Ok((Vec3::ZERO, Vec3([0.5, 0.5, 0.5])))
        );
        assert_eq!(
            Body::from_json(None, None).one_box(),
            Err(BodyProblem::NoBody)
        );
    }
}
