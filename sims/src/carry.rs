//! Riding: the one carry resolver, and mover integration.
//!
//! Everything under a mover rides it, by any path (spec, "Riding a door"). Each record's
//! frame carries a rigid motion, its *carry*: its parent's carry composed with its own
//! mover's motion (a slide, or a turn about its authored origin). A record stands at its
//! authored pose carried by its own frame's carry, so a lamp on a plate in a folder on a lift
//! goes up with the lift, and a door riding a door adds both. A physics prop is neither
//! carried nor carries (the solver owns it, and what is parented to it keeps its authored
//! pose); a light probe volume or group rides only when it is `dynamic`.
//!
//! The records are laid out by depth (parents before children) so each depth is one flat
//! slice whose carries depend only on the slices before it: a data-parallel pass per depth.

use std::ops::Range;

use hecs::{Entity, World};

use crate::components::{
    Heading, LightProbeGroup, LightProbeVolume, Motion, Mover, PhysicsProp, SpinSegment,
};
use crate::math::{Quat, Rigid, SpecQuat};
use crate::parallel::Parallel;

/// A record's place in the depth-ordered carry arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HierSlot(pub u32);

/// The flat carry arrays, in depth order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hierarchy {
    /// Entity per slot.
    pub entity: Vec<Entity>,
    /// The parent's slot per slot.
    pub parent: Vec<Option<u32>>,
    /// Slot ranges of each depth, root depth first.
    pub levels: Vec<Range<usize>>,
    /// Whether the slot's carry starts over (a physics prop carries nothing).
    pub stops: Vec<bool>,
    /// Whether the record's own pose follows its carry.
    pub follows: Vec<bool>,
    /// Each slot's own mover motion this tick.
    pub delta: Vec<Rigid>,
    /// Each slot's frame's carry this tick.
    pub carry: Vec<Rigid>,
}

impl Hierarchy {
    /// Lays out `records` (author order; `parents` by record index) by depth, stable in
    /// author order within a depth, and tags each entity with its [`HierSlot`].
    pub fn build(world: &World, records: &[Entity], parents: &[Option<usize>]) -> Hierarchy {
        let n = records.len();
        let mut depth = vec![0usize; n];
        for i in 0..n {
            let mut d = 0;
            let mut at = parents[i];
            while let Some(p) = at {
                d += 1;
                at = parents[p];
            }
            depth[i] = d;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (depth[i], i));
        let mut slot_of = vec![0u32; n];
        for (slot, &i) in order.iter().enumerate() {
            slot_of[i] = slot as u32;
        }
        let mut levels: Vec<Range<usize>> = Vec::new();
        for (slot, &i) in order.iter().enumerate() {
            match levels.last_mut() {
                Some(r) if depth[order[r.start]] == depth[i] => r.end = slot + 1,
                _ => levels.push(slot..slot + 1),
            }
        }
        let mut h = Hierarchy {
            entity: order.iter().map(|&i| records[i]).collect(),
            parent: order
                .iter()
                .map(|&i| parents[i].map(|p| slot_of[p]))
                .collect(),
            levels,
            stops: Vec::with_capacity(n),
            follows: Vec::with_capacity(n),
            delta: vec![Rigid::IDENTITY; n],
            carry: vec![Rigid::IDENTITY; n],
        };
        for &e in &h.entity {
            let prop = world.get::<&PhysicsProp>(e).is_ok();
            let static_probes = world
                .get::<&LightProbeVolume>(e)
                .map(|v| !v.dynamic)
                .unwrap_or(false)
                || world
                    .get::<&LightProbeGroup>(e)
                    .map(|g| !g.dynamic)
                    .unwrap_or(false);
            h.stops.push(prop);
            h.follows.push(!prop && !static_probes);
        }
        h
    }

    /// Composes every carry down the hierarchy from this tick's mover motions: one
    /// data-parallel pass per depth.
    pub fn resolve<P: Parallel + ?Sized>(&mut self, par: &P) {
        let Hierarchy {
            parent,
            levels,
            stops,
            delta,
            carry,
            ..
        } = self;
        for level in levels.iter() {
            let (before, rest) = carry.split_at_mut(level.start);
            let current = &mut rest[..level.len()];
            let before: &[Rigid] = before;
            let start = level.start;
            let (parent, stops, delta) = (&parent[..], &stops[..], &delta[..]);
            par.for_each_mut(current, |i, c| {
                let slot = start + i;
                *c = if stops[slot] {
                    Rigid::IDENTITY
                } else {
                    match parent[slot].and_then(|p| before.get(p as usize)) {
                        Some(up) => up.then_after(&delta[slot]),
                        None => delta[slot],
                    }
                };
            });
        }
    }
}

/// What one mover did in one tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MoverStep {
    /// It arrived at an end (fires onOpened or onClosed).
    pub arrived: Option<Heading>,
    /// Its motion from its authored pose now.
    pub delta: Rigid,
}

/// Advances a mover by one tick (the tick numbered `tick`) and returns what it did. A
/// slide or rotate moves one tick of its sweep toward the end it heads for; a spin's speed
/// and angle are read off its segment at `tick`.
pub(crate) fn integrate(m: &mut Mover, tick: u64, tick_rate: f64) -> MoverStep {
    let mut arrived = None;
    match m.motion {
        Motion::Spin { .. } => {
            let s = m.state.spin;
            let t = tick.saturating_sub(s.start_tick) as f64 / tick_rate;
            m.state.speed = s.speed_at(t);
            if !m.state.spin_settled && t >= s.seconds_to_target() {
                m.state.spin_settled = true;
                arrived = Some(if s.target_speed != 0.0 {
                    Heading::Open
                } else {
                    Heading::Closed
                });
            }
        }
        _ => {
            let st = &mut m.state;
            if st.moving {
                match st.heading {
                    Heading::Open => {
                        st.progress += 1.0;
                        if st.progress >= st.sweep_ticks {
                            st.progress = st.sweep_ticks;
                            st.moving = false;
                            arrived = Some(Heading::Open);
                        }
                    }
                    Heading::Closed => {
                        st.progress -= 1.0;
                        if st.progress <= 0.0 {
                            st.progress = 0.0;
                            st.moving = false;
                            arrived = Some(Heading::Closed);
                        }
                    }
                }
            }
        }
    }
    MoverStep {
        arrived,
        delta: motion_delta(m, tick, tick_rate),
    }
}

/// A mover's motion from its authored pose at `tick`.
pub(crate) fn motion_delta(m: &Mover, tick: u64, tick_rate: f64) -> Rigid {
    let fraction = m.open_fraction();
    match m.motion {
        Motion::Slide {
            direction,
            distance,
        } => {
            let d = distance * fraction;
            if d == 0.0 {
                Rigid::IDENTITY
            } else {
                Rigid::translation((direction * d).as_vec3())
            }
        }
        Motion::Rotate { axis, angle } => {
            let a = angle * fraction;
            if a == 0.0 {
                Rigid::IDENTITY
            } else {
                Rigid::about(m.hinge, Quat::from_axis_angle_degrees(axis, a))
            }
        }
        Motion::Spin { axis, .. } => {
            let a = m.spin_angle(tick, tick_rate);
            if a == 0.0 {
                Rigid::IDENTITY
            } else {
                Rigid::about(m.hinge, Quat::from_axis_angle_degrees(axis, a))
            }
        }
    }
}

/// What a call did to a mover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MoverCall {
    /// Open.
    Open,
    /// Close.
    Close,
    /// Whichever it is not heading for.
    Toggle,
}

/// Applies `open`, `close` or `toggle` to a mover at `tick` (the motion starts on the next
/// tick). Returns whether anything changed.
pub(crate) fn command(m: &mut Mover, call: MoverCall, tick: u64, tick_rate: f64) -> bool {
    let want = match call {
        MoverCall::Open => Heading::Open,
        MoverCall::Close => Heading::Closed,
        MoverCall::Toggle => match m.state.heading {
            Heading::Open => Heading::Closed,
            Heading::Closed => Heading::Open,
        },
    };
    match m.motion {
        Motion::Spin { rate, .. } => {
            let target = match want {
                Heading::Open => rate,
                Heading::Closed => 0.0,
            };
            let s = m.state.spin;
            if s.target_speed == target {
                return false;
            }
            let t = tick.saturating_sub(s.start_tick) as f64 / tick_rate;
            let speed = s.speed_at(t);
            let accel = if m.duration > 0.0 {
                (target - speed).signum() * rate.abs() / m.duration
            } else {
                0.0
            };
            m.state.spin = SpinSegment {
                start_tick: tick,
                start_angle: s.angle_at(t),
                start_speed: speed,
                target_speed: target,
                accel,
            };
            m.state.heading = want;
            m.state.spin_settled = false;
            true
        }
        _ => {
            let st = &mut m.state;
            let at_end = match want {
                Heading::Open => st.progress >= st.sweep_ticks,
                Heading::Closed => st.progress <= 0.0,
            };
            if st.heading == want && (st.moving || at_end) {
                return false;
            }
            st.heading = want;
            st.moving = !at_end;
            if at_end {
                // Already standing at that end (reversed before leaving it): nothing moves.
                return false;
            }
            true
        }
    }
}
