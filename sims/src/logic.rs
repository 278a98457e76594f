//! The logic runtime (spec, dh.map "Logic entities"): outputs fire ordered action lists,
//! calls drive inputs on other nodes, delays and timers wait whole ticks, and every firing
//! is traced.
//!
//! # One tick
//!
//! [`SimWorld::tick`] runs the tick numbered [`SimWorld::tick_count`] in two halves:
//!
//! 1. **Data-parallel passes** over flat slices (see [`Parallel`]): every mover advances one
//!    tick, then the carry resolver composes every carry down the hierarchy and places every
//!    record. Each item is touched by one call, so threads never change the result.
//! 2. **One serial pass** applies events in a fixed order: button latches whose cooldown
//!    ended are released; on tick 0 every `dh.mapStart` fires (author order); delayed runs
//!    and timer fires that are due resume, first by due tick, then in the order they were
//!    scheduled; movers that arrived this tick fire `onOpened` / `onClosed` (author order);
//!    the tick's [`Input`]s apply in the order given; then every plate and trigger is
//!    measured against the [`OverlapSource`] (author order) and fires its edges. An output
//!    runs its connections in written order, each list top to bottom; a call applies at
//!    once, nested inside the run that made it.
//!
//! A mover called this tick starts moving on the next, so a door pressed on tick `P` is
//! fully open on tick `P + sweep` (80 ticks for 1.25 s at 64 Hz), when `onOpened` fires.

use std::fmt;
use std::sync::Arc;

use dh_content::schema::components::logic::TouchedBy;
use dh_content::schema::components::signals::{CallValue, InputRef, OutputRef};
use hecs::Entity;

use crate::carry::{self, HierSlot, MoverCall};
use crate::components::*;
use crate::install::value_text;
use crate::math::{self, DVec3, Pose, Quat, SpecQuat, Vec3};
use crate::parallel::{Parallel, Serial};
use crate::world::{BakeSetState, SimWorld};
use crate::PawnId;

/// How deep calls may nest inside one run: a call that would be the ninth nested one is
/// dropped (and traced), so a wiring cycle can never overflow the stack.
pub const MAX_CALL_DEPTH: u32 = 8;

/// Ticks a button ignores further presses after one (0.25 s at 64 Hz). The spec asks for "a
/// short per-button cooldown" without a number; its pressed latch is held as long.
pub const BUTTON_COOLDOWN_TICKS: u64 = 16;

/// `seconds` quantized up to whole ticks at `tick_rate` (a duration that lands on a tick
/// within 1e-9 of one is that tick). Zero, negative and non-finite delays are zero ticks.
pub fn quantize_ticks(seconds: f64, tick_rate: f64) -> u64 {
    if !(seconds.is_finite() && seconds > 0.0) {
        return 0;
    }
    let t = seconds * tick_rate;
    let r = t.round();
    if (t - r).abs() < 1e-9 {
        r as u64
    } else {
        t.ceil() as u64
    }
}

/// One of an object's connections, resolved: the output it runs on and its actions.
#[derive(Debug, Clone)]
pub struct Wire {
    /// The component and output that runs it.
    pub output: OutputRef,
    /// The output as written (`onTrue` or `orGate.onTrue`).
    pub written: String,
    /// The action list.
    pub actions: Vec<WireAction>,
}

/// One action of a wire.
#[derive(Debug, Clone)]
pub enum WireAction {
    /// Invoke an input on a node.
    Call(WireCall),
    /// Block the rest of the list.
    Delay {
        /// As authored.
        seconds: f64,
        /// Quantized up to whole ticks.
        ticks: u64,
    },
    /// Switch a bake zone's set.
    SetBakeSet {
        /// The zone's id.
        zone: String,
        /// The set's name.
        set: String,
        /// Crossfade seconds.
        fade: f64,
    },
}

/// A call action, resolved against its target.
#[derive(Debug, Clone)]
pub struct WireCall {
    /// The target's name as written.
    pub target: String,
    /// The input as written (`open` or `mover.open`).
    pub input: String,
    /// The node the name reaches (`None`: no node of that name is installed).
    pub target_entity: Option<Entity>,
    /// Every component the input reaches on the target.
    pub inputs: Vec<InputRef>,
    /// The level passed to a level input.
    pub param: Option<bool>,
    /// The number or color passed to a value input.
    pub value: Option<CallValue>,
}

/// What waits for a later tick.
#[derive(Debug, Clone)]
pub(crate) enum Scheduled {
    /// The rest of a run after a delay.
    Resume {
        source: Entity,
        wire: usize,
        next: usize,
        activator: Option<PawnId>,
    },
    /// A timer's `onTimer`.
    TimerFire {
        timer: Entity,
        activator: Option<PawnId>,
    },
}

/// One debug-trace line: what fired or was called, on which tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLine {
    /// The tick it happened on.
    pub tick: u64,
    /// The line, in the spec's words (`doorButton fired onPressed -> slidingDoor.toggle`).
    pub text: String,
}

impl fmt::Display for TraceLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.tick, self.text)
    }
}

/// Something that happens to the simulation from outside during one tick.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A pawn pressed Use on an entity (the physics world's Use ray found its body). A
    /// button fires `onPressed` with the pawn as the activator.
    Use {
        /// Who pressed.
        pawn: PawnId,
        /// What the press hit.
        target_entity: Entity,
    },
    /// A call from outside the wiring (a console verb, an editor card's Open button):
    /// applies like a wire's call, at depth 1.
    Call {
        /// The node's name.
        target: String,
        /// The input, plain or qualified.
        input: String,
        /// A level input's level.
        param: Option<bool>,
        /// A value input's number or color.
        value: Option<CallValue>,
        /// Who the run is for, if anyone.
        activator: Option<PawnId>,
    },
    /// Switches a record on or off for the session (`scene.enable` / `scene.disable`, the
    /// editor's object switch). Off, it is out of the world: a call naming its node does
    /// nothing and logs nothing, and a plate or trigger drains, firing `onEndTouch` for
    /// whoever was inside. Back on, its node starts from the state its record authors.
    SetEnabled {
        /// The record.
        entity: Entity,
        /// On or off.
        enabled: bool,
    },
}

/// Where the pawns are: the physics world's overlap query, which plates and triggers are
/// measured with every tick.
///
/// `Sync`: a tick asks it for every sensor at once, from the threads of its [`Parallel`]
/// (the answers must not depend on which thread asks, or in what order).
pub trait OverlapSource: Sync {
    /// The pawns whose capsules overlap the box standing at `pose` (its center and
    /// orientation; its scale is ignored) with `half_extents`. Called from many threads at
    /// once during a tick, never while the pawns move.
    fn pawns_in_box(&self, pose: &Pose, half_extents: Vec3) -> Vec<PawnId>;
}

/// An [`OverlapSource`] with no pawns at all.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPawns;

impl OverlapSource for NoPawns {
    fn pawns_in_box(&self, _pose: &Pose, _half_extents: Vec3) -> Vec<PawnId> {
        Vec::new()
    }
}

/// A teleport for the engine to apply to the physics world after the tick. Chains follow
/// naturally: a pawn set down inside another enabled teleporter's trigger is measured there
/// on the next tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeleportEvent {
    /// Who moves.
    pub pawn: PawnId,
    /// The teleporter.
    pub teleporter: Entity,
    /// Where the destination stands at the moment of the teleport (its position is the
    /// feet).
    pub destination: Pose,
    /// The frame the subject leaves: the landmark's, else the teleporter's own.
    pub source_frame: Pose,
    /// Whether the subject keeps its offset from the landmark.
    pub keep_offset: bool,
    /// Where the subject looks on arriving.
    pub facing: dh_content::schema::components::logic::Facing,
    /// What its velocity becomes.
    pub velocity: dh_content::schema::components::logic::TeleportVelocity,
}

/// A pawn's state after a teleport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Teleported {
    /// Its feet.
    pub position: Vec3,
    /// Its view yaw, degrees (0 faces -Z).
    pub yaw: f32,
    /// Its view pitch, degrees (positive up).
    pub pitch: f32,
    /// Its velocity.
    pub velocity: Vec3,
}

impl TeleportEvent {
    /// The turn from the source frame to the destination.
    pub fn frame_change(&self) -> Quat {
        self.destination
            .rotation
            .compose(self.source_frame.rotation.inverse())
    }

    /// Applies the landmark, facing and velocity rules to a pawn standing at `position`,
    /// looking along `yaw`/`pitch` (degrees), moving at `velocity`.
    pub fn apply(&self, position: Vec3, yaw: f32, pitch: f32, velocity: Vec3) -> Teleported {
        use dh_content::schema::components::logic::{Facing, TeleportVelocity};
        let turn = self.frame_change();
        let position = if self.keep_offset {
            self.destination.position + turn.rotate(position - self.source_frame.position)
        } else {
            self.destination.position
        };
        let (yaw, pitch) = match self.facing {
            Facing::Destination => self.destination.rotation.yaw_pitch_degrees(),
            Facing::Keep => (yaw, pitch),
            Facing::Turn => turn
                .compose(Quat::from_euler_degrees(DVec3::new(
                    pitch as f64,
                    yaw as f64,
                    0.0,
                )))
                .yaw_pitch_degrees(),
        };
        let velocity = match self.velocity {
            TeleportVelocity::Keep => velocity,
            TeleportVelocity::Zero => Vec3::ZERO,
            TeleportVelocity::Turn => turn.rotate(velocity),
        };
        Teleported {
            position,
            yaw,
            pitch,
            velocity,
        }
    }
}

/// What one tick produced for the rest of the engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TickEvents {
    /// The tick's number.
    pub tick: u64,
    /// Teleports to apply to pawns, in the order they happened.
    pub teleports: Vec<TeleportEvent>,
    /// Lights whose on/off bit changed (each once, in the order first changed).
    pub lights: Vec<Entity>,
    /// Probe volumes and groups whose switch or grade changed.
    pub probes: Vec<Entity>,
    /// Bake zones switched to another set.
    pub bake_sets: Vec<String>,
    /// How many outputs fired this tick.
    pub fired: usize,
}

fn push_once(list: &mut Vec<Entity>, e: Entity) {
    if !list.contains(&e) {
        list.push(e);
    }
}

fn args_text(param: Option<bool>, value: Option<&CallValue>) -> String {
    match (param, value) {
        (Some(p), _) => format!("({p})"),
        (None, Some(v)) => format!("({})", value_text(v)),
        (None, None) => String::new(),
    }
}

impl SimWorld {
    /// Runs one logic tick with every per-tick pass on the calling thread.
    pub fn tick(&mut self, inputs: &[Input], overlaps: &dyn OverlapSource) -> TickEvents {
        self.tick_with(inputs, overlaps, &Serial)
    }

    /// Runs one logic tick, spreading the data-parallel passes with `par`; events still
    /// apply in the one defined order, so the result is the same whatever `par` does.
    pub fn tick_with<P: Parallel + ?Sized>(
        &mut self,
        inputs: &[Input],
        overlaps: &dyn OverlapSource,
        par: &P,
    ) -> TickEvents {
        let tick = self.tick;
        let rate = self.tick_rate;
        let mut ev = TickEvents {
            tick,
            ..TickEvents::default()
        };

        // 1. Movers advance (data-parallel), then the carry and the placement.
        let mut arrivals: Vec<(RecordIndex, Entity, Heading)> = Vec::new();
        {
            let mut items: Vec<(Entity, &RecordIndex, &HierSlot, &mut Mover, Option<carry::MoverStep>)> =
                self.world
                    .query_mut::<hecs::Without<(Entity, &RecordIndex, &HierSlot, &mut Mover), &OutOfWorld>>()
                    .into_iter()
                    .map(|(e, r, s, m)| (e, r, s, m, None))
                    .collect();
            par.for_each_mut(&mut items, |_, item| {
                item.4 = Some(carry::integrate(item.3, tick, rate));
            });
            for (e, rec, slot, _, step) in items {
                let Some(step) = step else { continue };
                if let Some(d) = self.hierarchy.delta.get_mut(slot.0 as usize) {
                    *d = step.delta;
                }
                if let Some(h) = step.arrived {
                    arrivals.push((*rec, e, h));
                }
            }
        }
        arrivals.sort_by_key(|a| a.0);
        self.carry_and_place(par);

        // 2. Events, serially, in the defined order.
        for &b in &self.lists.buttons {
            if let Ok(mut button) = self.world.get::<&mut Button>(b) {
                if button.latch && tick >= button.ready_at {
                    button.latch = false;
                }
            }
        }
        if tick == 0 {
            for e in self.lists.map_starts.clone() {
                if !self.is_disabled(e) {
                    self.fire(e, "dh.mapStart", "onMapStart", None, 0, &mut ev);
                }
            }
        }
        while let Some((&key, _)) = self.schedule.first_key_value() {
            if key.0 > tick {
                break;
            }
            let Some(item) = self.schedule.remove(&key) else {
                break;
            };
            match item {
                Scheduled::Resume {
                    source,
                    wire,
                    next,
                    activator,
                } => {
                    if let Some(wires) = self.wires_of(source) {
                        let src = self.label(source);
                        self.run(source, &src, &wires, wire, next, activator, 0, &mut ev);
                    }
                }
                Scheduled::TimerFire { timer, activator } => {
                    if !self.is_disabled(timer) {
                        self.fire(timer, "dh.timer", "onTimer", activator, 0, &mut ev);
                    }
                }
            }
        }
        for (_, e, heading) in arrivals {
            let output = match heading {
                Heading::Open => "onOpened",
                Heading::Closed => "onClosed",
            };
            self.fire(e, "dh.mover", output, None, 0, &mut ev);
        }
        for input in inputs {
            self.apply_external(input, &mut ev);
        }
        if inputs
            .iter()
            .any(|i| matches!(i, Input::SetEnabled { enabled: true, .. }))
        {
            // What came back stands where its record authors it (carried) from this tick:
            // the scan below and the kinematic targets see it there.
            self.carry_and_place(par);
        }
        self.scan(overlaps, par, &mut ev);

        self.tick += 1;
        ev
    }

    /// Every trace line so far, oldest first.
    pub fn trace(&self) -> &[TraceLine] {
        &self.trace
    }

    /// The trace as text, one `[tick] line` a line.
    pub fn trace_text(&self) -> String {
        let mut s = String::new();
        for l in &self.trace {
            s.push_str(&l.to_string());
            s.push('\n');
        }
        s
    }

    /// Takes the trace lines gathered so far, leaving it empty.
    pub fn take_trace(&mut self) -> Vec<TraceLine> {
        std::mem::take(&mut self.trace)
    }

    /// Checks a call from outside the wiring (what [`Input::Call`] carries) the way the
    /// build checks a wire: the target must be an installed node, and the input and its
    /// arguments must be ones it declares. `Err` is the whole message.
    pub fn check_call(
        &self,
        target: &str,
        input: &str,
        param: Option<bool>,
        value: Option<&CallValue>,
    ) -> Result<Vec<InputRef>, String> {
        let Some(e) = self.node_named(target) else {
            return Err(format!("no logic entity is named '{target}'"));
        };
        let types = self
            .world
            .get::<&LogicNode>(e)
            .map(|n| n.types.clone())
            .unwrap_or_default();
        dh_content::schema::components::signals::check_call(&types, input, param, value)
    }

    pub(crate) fn log(&mut self, text: String) {
        self.trace.push(TraceLine {
            tick: self.tick,
            text,
        });
    }

    pub(crate) fn is_disabled(&self, e: Entity) -> bool {
        self.world.get::<&OutOfWorld>(e).is_ok()
    }

    fn label(&self, e: Entity) -> String {
        match self.world.get::<&Name>(e) {
            Ok(n) => n.0.clone(),
            Err(_) => match self.world.get::<&RecordIndex>(e) {
                Ok(r) => format!("#{}", r.0),
                Err(_) => "?".to_string(),
            },
        }
    }

    fn wires_of(&self, e: Entity) -> Option<Arc<[Wire]>> {
        self.world.get::<&Connections>(e).ok().map(|c| c.0.clone())
    }

    fn schedule_at(&mut self, due: u64, item: Scheduled) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.schedule.insert((due, seq), item);
    }

    /// Fires `output` of `component` on `e`: every connection bound to it runs, in written
    /// order. `depth` is the depth of the call that caused it (0 for an event).
    pub(crate) fn fire(
        &mut self,
        e: Entity,
        component: &'static str,
        output: &'static str,
        activator: Option<PawnId>,
        depth: u32,
        ev: &mut TickEvents,
    ) {
        ev.fired += 1;
        let src = self.label(e);
        let mut any = false;
        if let Some(wires) = self.wires_of(e) {
            for (i, w) in wires.iter().enumerate() {
                if w.output.component == component && w.output.output == output {
                    any = true;
                    self.run(e, &src, &wires, i, 0, activator, depth, ev);
                }
            }
        }
        if !any {
            self.log(format!("{src} fired {output}"));
        }
    }

    /// Runs wire `wire` of `source` from action `start`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        source: Entity,
        src: &str,
        wires: &Arc<[Wire]>,
        wire: usize,
        start: usize,
        activator: Option<PawnId>,
        depth: u32,
        ev: &mut TickEvents,
    ) {
        let Some(w) = wires.get(wire) else { return };
        for (k, action) in w.actions.iter().enumerate().skip(start) {
            match action {
                WireAction::Call(c) => {
                    let text = format!(
                        "{src} fired {} -> {}.{}{}",
                        w.written,
                        c.target,
                        c.input,
                        args_text(c.param, c.value.as_ref())
                    );
                    if depth + 1 > MAX_CALL_DEPTH {
                        self.log(format!(
                            "{text} dropped: the call-depth cap ({MAX_CALL_DEPTH}) is reached"
                        ));
                        continue;
                    }
                    self.log(text);
                    self.call(c, activator, depth + 1, ev);
                }
                WireAction::Delay { seconds, ticks } => {
                    if *ticks == 0 {
                        continue;
                    }
                    self.log(format!(
                        "{src} fired {}: delay {seconds} s ({ticks} ticks)",
                        w.written
                    ));
                    let due = self.tick + ticks;
                    self.schedule_at(
                        due,
                        Scheduled::Resume {
                            source,
                            wire,
                            next: k + 1,
                            activator,
                        },
                    );
                    return;
                }
                WireAction::SetBakeSet { zone, set, fade } => {
                    self.log(format!(
                        "{src} fired {} -> setBakeSet {zone} {set}",
                        w.written
                    ));
                    self.switch_bake_set(zone, set, *fade, ev);
                }
            }
        }
    }

    /// Switches a bake zone's set (nothing when it already shows it).
    pub(crate) fn switch_bake_set(
        &mut self,
        zone: &str,
        set: &str,
        fade: f64,
        ev: &mut TickEvents,
    ) {
        let tick = self.tick;
        let state = self
            .bake_sets
            .entry(zone.to_string())
            .or_insert_with(|| BakeSetState {
                set: dh_content::schema::map::BakeSet::DEFAULT_NAME.to_string(),
                fade: 0.0,
                since_tick: 0,
            });
        if state.set == set {
            return;
        }
        *state = BakeSetState {
            set: set.to_string(),
            fade,
            since_tick: tick,
        };
        if !ev.bake_sets.iter().any(|z| z == zone) {
            ev.bake_sets.push(zone.to_string());
        }
    }

    fn call(&mut self, c: &WireCall, activator: Option<PawnId>, depth: u32, ev: &mut TickEvents) {
        let Some(t) = c.target_entity else { return };
        if self.is_disabled(t) {
            return;
        }
        for inp in &c.inputs {
            self.apply_input(
                t,
                inp.component,
                inp.input.name,
                c.param,
                c.value,
                activator,
                depth,
                ev,
            );
        }
    }

    /// Applies one input of one component on node `t`.
    #[allow(clippy::too_many_arguments)]
    fn apply_input(
        &mut self,
        t: Entity,
        component: &'static str,
        input: &str,
        param: Option<bool>,
        value: Option<CallValue>,
        activator: Option<PawnId>,
        depth: u32,
        ev: &mut TickEvents,
    ) {
        let tick = self.tick;
        let rate = self.tick_rate;
        match component {
            "dh.mover" => {
                let call = match input {
                    "open" => MoverCall::Open,
                    "close" => MoverCall::Close,
                    "toggle" => MoverCall::Toggle,
                    _ => return,
                };
                if let Ok(mut m) = self.world.get::<&mut Mover>(t) {
                    carry::command(&mut m, call, tick, rate);
                }
            }
            "dh.trigger" => {
                if let Ok(mut tr) = self.world.get::<&mut Trigger>(t) {
                    let on = match input {
                        "enable" => true,
                        "disable" => false,
                        "toggle" => !tr.enabled,
                        _ => return,
                    };
                    if on != tr.enabled {
                        tr.enabled = on;
                        // Enabling finds whoever is inside on the next scan; disabling
                        // forgets them without an onEndTouch.
                        tr.inside.clear();
                    }
                }
            }
            "dh.teleport" if input == "teleport" => self.teleport(t, activator, ev),
            "dh.timer" if input == "fire" => {
                let Ok(ticks) = self.world.get::<&Timer>(t).map(|tm| tm.delay_ticks) else {
                    return;
                };
                if ticks == 0 {
                    self.fire(t, "dh.timer", "onTimer", activator, depth, ev);
                } else {
                    self.schedule_at(
                        tick + ticks,
                        Scheduled::TimerFire {
                            timer: t,
                            activator,
                        },
                    );
                }
            }
            "dh.andGate" | "dh.orGate" | "dh.notGate" => {
                let level = param.unwrap_or(false);
                let Some((before, after)) = self.set_gate(t, component, input, level) else {
                    return;
                };
                if before != after {
                    let output = if after { "onTrue" } else { "onFalse" };
                    self.fire(t, component, output, activator, depth, ev);
                }
            }
            "dh.light" => {
                if let Ok(mut l) = self.world.get::<&mut Light>(t) {
                    let on = match input {
                        "turnOn" => true,
                        "turnOff" => false,
                        "toggle" => !l.on,
                        _ => return,
                    };
                    if on != l.on {
                        l.on = on;
                        push_once(&mut ev.lights, t);
                    }
                }
            }
            "dh.lightProbeVolume" => {
                let changed = match self.world.get::<&mut LightProbeVolume>(t) {
                    Ok(mut v) => apply_probe(&mut v.switch, input, value),
                    Err(_) => false,
                };
                if changed {
                    push_once(&mut ev.probes, t);
                }
            }
            "dh.lightProbeGroup" => {
                let changed = match self.world.get::<&mut LightProbeGroup>(t) {
                    Ok(mut g) => apply_probe(&mut g.switch, input, value),
                    Err(_) => false,
                };
                if changed {
                    push_once(&mut ev.probes, t);
                }
            }
            _ => {}
        }
    }

    /// Writes a gate level; returns its result before and after.
    fn set_gate(
        &mut self,
        t: Entity,
        component: &str,
        input: &str,
        level: bool,
    ) -> Option<(bool, bool)> {
        match component {
            "dh.andGate" => {
                let mut g = self.world.get::<&mut AndGate>(t).ok()?;
                let before = g.a && g.b;
                match input {
                    "setA" => g.a = level,
                    "setB" => g.b = level,
                    _ => return None,
                }
                Some((before, g.a && g.b))
            }
            "dh.orGate" => {
                let mut g = self.world.get::<&mut OrGate>(t).ok()?;
                let before = g.a || g.b;
                match input {
                    "setA" => g.a = level,
                    "setB" => g.b = level,
                    _ => return None,
                }
                Some((before, g.a || g.b))
            }
            "dh.notGate" => {
                let mut g = self.world.get::<&mut NotGate>(t).ok()?;
                let before = !g.a;
                match input {
                    "setA" => g.a = level,
                    _ => return None,
                }
                Some((before, !g.a))
            }
            _ => None,
        }
    }

    fn teleport(&mut self, t: Entity, activator: Option<PawnId>, ev: &mut TickEvents) {
        let Some(tp) = self.get::<Teleport>(t) else {
            return;
        };
        let name = self.label(t);
        if tp.subject.is_some() {
            self.log(format!(
                "{name}.teleport: a named subject is reserved for physics props; nothing moves"
            ));
            return;
        }
        let Some(pawn) = activator else {
            self.log(format!("{name}.teleport: no activator, no teleport"));
            return;
        };
        let dest = match &tp.destination {
            Some(n) => self.entity_named(n).filter(|&d| !self.is_disabled(d)),
            None => Some(t),
        };
        let Some(dest) = dest else {
            self.log(format!(
                "warning: {name}.teleport: destination '{}' is missing; the call is dropped",
                tp.destination.clone().unwrap_or_default()
            ));
            return;
        };
        let (Some(destination), Some(own)) = (self.world_pose(dest), self.world_pose(t)) else {
            return;
        };
        let landmark = tp
            .landmark
            .as_deref()
            .and_then(|n| self.entity_named(n))
            .filter(|&l| !self.is_disabled(l))
            .and_then(|l| self.world_pose(l));
        if tp.landmark.is_some() && landmark.is_none() {
            self.log(format!(
                "warning: {name}.teleport: landmark '{}' is missing; no offset is kept",
                tp.landmark.clone().unwrap_or_default()
            ));
        }
        let dest_name = self.label(dest);
        self.log(format!("{name} teleports {pawn} to {dest_name}"));
        ev.teleports.push(TeleportEvent {
            pawn,
            teleporter: t,
            destination,
            source_frame: landmark.unwrap_or(own),
            keep_offset: landmark.is_some(),
            facing: tp.facing,
            velocity: tp.velocity,
        });
    }

    fn apply_external(&mut self, input: &Input, ev: &mut TickEvents) {
        match input {
            Input::Use {
                pawn,
                target_entity,
            } => {
                let e = *target_entity;
                if !self.world.contains(e) || self.is_disabled(e) {
                    return;
                }
                let tick = self.tick;
                let accepted = match self.world.get::<&mut Button>(e) {
                    Ok(mut b) => {
                        if tick >= b.ready_at {
                            b.ready_at = tick + BUTTON_COOLDOWN_TICKS;
                            b.latch = true;
                            Some(true)
                        } else {
                            Some(false)
                        }
                    }
                    Err(_) => None,
                };
                match accepted {
                    Some(true) => self.fire(e, "dh.button", "onPressed", Some(*pawn), 0, ev),
                    Some(false) => {
                        let name = self.label(e);
                        self.log(format!("{name} ignored a press by {pawn}: cooling down"));
                    }
                    None => {}
                }
            }
            Input::Call {
                target,
                input,
                param,
                value,
                activator,
            } => match self.check_call(target, input, *param, value.as_ref()) {
                Ok(inputs) => {
                    self.log(format!(
                        "call {target}.{input}{}",
                        args_text(*param, value.as_ref())
                    ));
                    let c = WireCall {
                        target: target.clone(),
                        input: input.clone(),
                        target_entity: self.node_named(target),
                        inputs,
                        param: *param,
                        value: *value,
                    };
                    self.call(&c, *activator, 1, ev);
                }
                Err(message) => self.log(format!("call {target}.{input} refused: {message}")),
            },
            Input::SetEnabled { entity, enabled } => self.set_enabled(*entity, *enabled, ev),
        }
    }

    /// Switches a record, and with it everything filed under it, out of the world or back.
    fn set_enabled(&mut self, e: Entity, enabled: bool, ev: &mut TickEvents) {
        let own = self.world.get::<&Disabled>(e).is_ok();
        if !self.world.contains(e) || own != enabled {
            return;
        }
        let name = self.label(e);
        let subtree = self.subtree(e);
        if !enabled {
            self.log(format!("{name} switched off"));
            // Everything that was in the world leaves it, in author order, draining.
            for r in subtree {
                if self.is_disabled(r) {
                    continue;
                }
                self.drain(r, ev);
                let _ = self.world.insert_one(r, OutOfWorld);
            }
            let _ = self.world.insert_one(e, Disabled);
            return;
        }
        let _ = self.world.remove_one::<Disabled>(e);
        self.log(format!("{name} switched on"));
        // Whatever is now in the world again (nothing above it, and not itself, switched off)
        // comes back from its record's authored state, in author order.
        for r in subtree {
            if !self.is_disabled(r) || self.switched_off_above(r) {
                continue;
            }
            let _ = self.world.remove_one::<OutOfWorld>(r);
            self.restore(r, ev);
        }
    }

    /// Whether the record or anything above it carries its own switch off.
    fn switched_off_above(&self, e: Entity) -> bool {
        let mut at = Some(e);
        let mut steps = 0;
        while let Some(x) = at {
            if self.world.get::<&Disabled>(x).is_ok() {
                return true;
            }
            steps += 1;
            if steps > self.records.len() + self.parts.len() {
                break;
            }
            at = self.world.get::<&Parent>(x).ok().map(|p| p.0);
        }
        false
    }

    /// A record leaving the world: a plate's occupancy falls to zero, a trigger loses each
    /// toucher, each firing its edges.
    fn drain(&mut self, e: Entity, ev: &mut TickEvents) {
        let occupants = match self.world.get::<&mut PressurePlate>(e) {
            Ok(mut p) => std::mem::take(&mut p.occupants),
            Err(_) => Vec::new(),
        };
        if let Some(&first) = occupants.first() {
            self.fire(e, "dh.pressurePlate", "onEndTouch", Some(first), 0, ev);
        }
        let inside = match self.world.get::<&mut Trigger>(e) {
            Ok(mut t) => std::mem::take(&mut t.inside),
            Err(_) => Vec::new(),
        };
        for p in inside {
            self.fire(e, "dh.trigger", "onEndTouch", Some(p), 0, ev);
        }
    }

    /// A record back in the world, from its record's authored state.
    fn restore(&mut self, e: Entity, ev: &mut TickEvents) {
        if let Ok(mut m) = self.world.get::<&mut Mover>(e) {
            let sweep = m.state.sweep_ticks;
            let open = m.start_open;
            m.state.progress = if open { sweep } else { 0.0 };
            m.state.heading = if open { Heading::Open } else { Heading::Closed };
            m.state.moving = false;
            m.state.spin = SpinSegment {
                start_tick: 0,
                start_angle: 0.0,
                start_speed: 0.0,
                target_speed: 0.0,
                accel: 0.0,
            };
            m.state.spin_settled = true;
            m.state.speed = 0.0;
        }
        if let Ok(mut b) = self.world.get::<&mut Button>(e) {
            *b = Button::default();
        }
        if let Ok(mut t) = self.world.get::<&mut Trigger>(e) {
            t.enabled = t.starts_enabled;
            t.inside.clear();
        }
        if let Ok(mut p) = self.world.get::<&mut PressurePlate>(e) {
            p.occupants.clear();
        }
        if let Ok(mut g) = self.world.get::<&mut AndGate>(e) {
            *g = AndGate::default();
        }
        if let Ok(mut g) = self.world.get::<&mut OrGate>(e) {
            *g = OrGate::default();
        }
        if let Ok(mut g) = self.world.get::<&mut NotGate>(e) {
            *g = NotGate::default();
        }
        let relit = match self.world.get::<&mut Light>(e) {
            Ok(mut l) => {
                let was = l.on;
                l.on = l.starts_on;
                was != l.on
            }
            Err(_) => false,
        };
        if relit {
            push_once(&mut ev.lights, e);
        }
        if let Ok(mut v) = self.world.get::<&mut LightProbeVolume>(e) {
            v.switch = ProbeSwitch::default();
        }
        if let Ok(mut g) = self.world.get::<&mut LightProbeGroup>(e) {
            g.switch = ProbeSwitch::default();
        }
        let (tick, rate) = (self.tick, self.tick_rate);
        if let (Ok(m), Ok(slot)) = (self.world.get::<&Mover>(e), self.world.get::<&HierSlot>(e)) {
            if let Some(d) = self.hierarchy.delta.get_mut(slot.0 as usize) {
                *d = carry::motion_delta(&m, tick, rate);
            }
        }
    }

    /// Measures every plate and trigger and fires their edges.
    ///
    /// The measuring is a data-parallel pass over every sensor in the world (poses were
    /// placed before the event pass and pawns do not move during a tick, so each sensor's
    /// overlap set is a pure function of its box); the edges then apply serially, sensor by
    /// sensor in author order, from the measured sets. A sensor whose box is not the one
    /// measured by then (a trigger switched on by an earlier sensor's edge) is measured
    /// again in its turn, so the result is the serial scan's.
    fn scan<P: Parallel + ?Sized>(
        &mut self,
        overlaps: &dyn OverlapSource,
        par: &P,
        ev: &mut TickEvents,
    ) {
        let mut probes: Vec<Probe> = Vec::with_capacity(self.lists.sensors.len());
        for &e in &self.lists.sensors {
            if self.is_disabled(e) {
                continue;
            }
            let Some(pose) = self.world_pose(e) else {
                continue;
            };
            let plate = self
                .world
                .get::<&PressurePlate>(e)
                .ok()
                .map(|p| Measured::new(p.body.world(&pose)));
            let trigger = self
                .world
                .get::<&Trigger>(e)
                .ok()
                .filter(|t| t.enabled)
                .map(|t| Measured::new(t.body.world(&pose)));
            probes.push(Probe {
                entity: e,
                plate,
                trigger,
            });
        }
        par.for_each_mut(&mut probes, |_, p| {
            for m in [&mut p.plate, &mut p.trigger].into_iter().flatten() {
                m.measure(overlaps);
            }
        });
        let mut probes = probes.into_iter().peekable();
        let sensors = std::mem::take(&mut self.lists.sensors);
        for &e in &sensors {
            let probe = match probes.peek() {
                Some(p) if p.entity == e => probes.next(),
                _ => None,
            };
            let (mut plate_probe, mut trigger_probe) = match probe {
                Some(p) => (p.plate, p.trigger),
                None => (None, None),
            };
            if self.is_disabled(e) {
                continue;
            }
            let Some(pose) = self.world_pose(e) else {
                continue;
            };
            // A plate: occupancy edges.
            let plate = self.world.get::<&PressurePlate>(e).ok().map(|p| p.body);
            if let Some(body) = plate {
                let now = Measured::take(plate_probe.take(), body.world(&pose), overlaps);
                let before = match self.world.get::<&mut PressurePlate>(e) {
                    Ok(mut p) => std::mem::replace(&mut p.occupants, now.clone()),
                    Err(_) => Vec::new(),
                };
                if before.is_empty() && !now.is_empty() {
                    let first = now.first().copied();
                    self.fire(e, "dh.pressurePlate", "onStartTouch", first, 0, ev);
                } else if !before.is_empty() && now.is_empty() {
                    let last = before.first().copied();
                    self.fire(e, "dh.pressurePlate", "onEndTouch", last, 0, ev);
                }
            }
            // A trigger: per-toucher edges while on.
            let trigger = self
                .world
                .get::<&Trigger>(e)
                .ok()
                .filter(|t| t.enabled)
                .map(|t| (t.body, t.touched_by));
            if let Some((body, touched_by)) = trigger {
                // Only players are measured today (spec, dh.trigger `touchedBy`): a
                // trigger for props alone sees no player.
                let measured = Measured::take(trigger_probe.take(), body.world(&pose), overlaps);
                let now = match touched_by {
                    TouchedBy::Props => Vec::new(),
                    TouchedBy::Players | TouchedBy::Everything => measured,
                };
                let before = match self.world.get::<&mut Trigger>(e) {
                    Ok(mut t) => std::mem::replace(&mut t.inside, now.clone()),
                    Err(_) => Vec::new(),
                };
                let left: Vec<PawnId> = before
                    .iter()
                    .filter(|p| !now.contains(p))
                    .copied()
                    .collect();
                let entered: Vec<PawnId> = now
                    .iter()
                    .filter(|p| !before.contains(p))
                    .copied()
                    .collect();
                let edges = left
                    .into_iter()
                    .map(|p| ("onEndTouch", p))
                    .chain(entered.into_iter().map(|p| ("onStartTouch", p)));
                for (output, p) in edges {
                    // A trigger its own wire switched off forgets the rest.
                    let on = self
                        .world
                        .get::<&Trigger>(e)
                        .map(|t| t.enabled)
                        .unwrap_or(false);
                    if !on {
                        break;
                    }
                    self.fire(e, "dh.trigger", output, Some(p), 0, ev);
                }
            }
        }
        self.lists.sensors = sensors;
    }
}

/// One sensor's volumes as the measuring pass found them.
struct Probe {
    entity: Entity,
    plate: Option<Measured>,
    trigger: Option<Measured>,
}

/// A volume in the world and the pawns inside it, ascending.
struct Measured {
    volume: (Pose, Vec3),
    pawns: Vec<PawnId>,
}

impl Measured {
    fn new(volume: (Pose, Vec3)) -> Measured {
        Measured {
            volume,
            pawns: Vec::new(),
        }
    }

    fn measure(&mut self, overlaps: &dyn OverlapSource) {
        let (center, half) = &self.volume;
        self.pawns = overlaps.pawns_in_box(center, *half);
        self.pawns.sort();
        self.pawns.dedup();
    }

    /// The pawns in `volume`: the measured set when it was measured for that very volume,
    /// else measured now.
    fn take(
        measured: Option<Measured>,
        volume: (Pose, Vec3),
        overlaps: &dyn OverlapSource,
    ) -> Vec<PawnId> {
        match measured {
            Some(m) if m.volume == volume => m.pawns,
            _ => {
                let mut m = Measured::new(volume);
                m.measure(overlaps);
                m.pawns
            }
        }
    }
}

/// Applies a probe volume's or group's input; returns whether it changed.
fn apply_probe(s: &mut ProbeSwitch, input: &str, value: Option<CallValue>) -> bool {
    let before = *s;
    match (input, value) {
        ("turnOn", _) => s.on = true,
        ("turnOff", _) => s.on = false,
        ("toggle", _) => s.on = !s.on,
        ("setTint", Some(CallValue::Color(c))) => {
            s.tint_srgb = c;
            s.tint = math::srgb3_to_linear(c);
        }
        ("setIntensity", Some(CallValue::Number(n))) => s.intensity = n as f32,
        _ => {}
    }
    *s != before
}
