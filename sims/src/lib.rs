//! The simulation world: runtime components, the logic graph, movers, physics, pawns.
//!
//! * [`SimWorld::install`] puts a map into a hecs world: one entity per record in author
//!   order, every `dh.*` component in a flat runtime form ([`components`]), the hierarchy,
//!   logic nodes by name, object placements resolved through the one merge rule.
//! * [`SimWorld::tick`] runs one fixed logic tick ([`logic`]) at the world's rate
//!   (`world.tickRate`, 64 Hz by default; [`SimWorld::install_at`] takes another): movers,
//!   the carry resolver ([`carry`]), then every event in one defined order, with a trace.
//! * [`Input::SetEnabled`] switches a record, and everything filed under it, out of the world
//!   and back ([`SimWorld::in_world`]); the host takes their bodies out of physics with them.
//! * [`SimWorld::lights_set`] and friends are the `lights.*` console verbs' state.
#![warn(missing_docs)]

pub mod carry;
pub mod components;
pub mod install;
pub mod lights;
pub mod logic;
pub mod math;
pub mod parallel;
pub mod physics;
pub mod world;

pub use components::*;
pub use install::{InstallError, MapContext, MaterialTable, ResolvedObject};
pub use lights::LightsError;
pub use logic::{
    quantize_ticks, Input, NoPawns, OverlapSource, TeleportEvent, Teleported, TickEvents,
    TraceLine, BUTTON_COOLDOWN_TICKS, MAX_CALL_DEPTH,
};
pub use math::{Pose, Quat, Rigid, SpecQuat, Vec3};
pub use parallel::{Parallel, Serial};
pub use world::{BakeSetState, SimWorld, TICK_RATE};

/// A player pawn (ids count up from 1 in spawn order and are never reused, so id order is
/// spawn order). The physics world's pawns and the logic runtime's activators are named by
/// the same id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PawnId(pub u32);

impl std::fmt::Display for PawnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pawn {}", self.0)
    }
}
