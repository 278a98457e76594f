//! Physics for headless runs (rapier3d): the map's static colliders, kinematic movers, physics
//! props and player pawns, plus the overlap queries plates and triggers measure, the Use ray
//! and spawn selection.
//!
//! Engine-agnostic at the boundary: positions are glam [`Vec3`](glam::Vec3) meters, rotations
//! glam [`Quat`](glam::Quat)s (rapier's own math types, so nothing is converted on the way),
//! angles degrees. Yaw turns about +Y with 0 facing -Z and 90 facing -X,
//! normalized to (-180, 180]; pitch above 0 looks up. Nothing here reads a clock: one
//! [`PhysicsWorld::step`] is one fixed tick of `1 / tick_rate` seconds, and the same calls in
//! the same order give the same results bit for bit (rapier runs single-threaded; pawns move
//! side by side, each reading only what the solver left, and their shoves apply in id order).
//!
//! # API
//!
//! ```text
//! PhysicsWorld::new(params: PhysicsParams) -> Result<PhysicsWorld, PhysicsError>
//! world.params() / set_params(params)                       // live preference edits
//!
//! // Bodies. Shapes are in the body's frame; grip is the surface's friction coefficient.
//! add_body(kind: BodyKind, pose: Pose, shapes: &[ShapeSpec]) -> Result<BodyHandle, _>
//! add_static_box(pose, half_extents: Vec3, grip) -> Result<BodyHandle, _>
//! add_static_sphere(pose, radius, grip) / add_static_capsule(pose, radius, height, grip)
//! add_static_hull(pose, points: &[Vec3], grip)              // convex hull of a point cloud
//! add_static_mesh(pose, vertices: &[Vec3], indices: &[[u32; 3]], grip)
//! add_kinematic_box(pose, half_extents, grip) -> Result<BodyHandle, _>
//! set_kinematic_target(body, pose)                          // where the next step moves it
//! add_dynamic_box(pose, half_extents, mass_kg, grip)        // a dh.physicsProp
//! remove_body(body) / body_pose(body) / body_velocity(body) / body_sleeping(body)
//! set_body_velocity(prop, v) / body_friction(prop) / body_wet(prop)
//!
//! // Water: a trigger collider's or a box's shapes whose material has a `water` block.
//! add_water_body(pose, shapes: &[(Pose, ColliderShape)], WaterMedium) -> Result<WaterHandle, _>
//! remove_water_body(handle) / map_water_at(point) -> Option<WaterAt { surface, medium }>
//!
//! // Pawns: upright capsules under gravity, moved by rapier's KinematicCharacterController.
//! spawn_pawn(feet: Vec3, yaw) -> Result<PawnId, _>       // PawnId is the crate's own
//! set_pawn_input(pawn, PawnInput { move_local: Vec2(right, forward), yaw, pitch, jump })
//! teleport_pawn(pawn, feet, yaw, pitch, TeleportVelocity::{Keep | Zero | Turn(Quat)})
//! set_pawn_noclip(pawn, on)                               // flies through everything
//! pawn_state(pawn) -> Result<PawnState { feet, velocity, yaw, pitch, grounded, ground,
//!                                        noclip }, _>
//! remove_pawn(pawn) / pawn_ids()
//!
//! // The tick.
//! step()
//! step_with(par: &impl Parallel)        // the pawns' moves side by side; the same result
//! step_with_water(par, water: &impl WaterQuery)  // props also float in the host's water
//!
//! // Queries.
//! pawns_overlapping_box(pose, half_extents) -> Result<Vec<PawnId>, _>   // id order
//! pawn_overlaps() -> PawnOverlaps       // the pawns binned once; Sync, same answers
//! eye_ray(pawn) -> Result<EyeRay, _>
//! cast_eye_ray(pawn, max_distance) -> Result<Option<RayHit { body, distance, point }>, _>
//! use_target(pawn, max_distance) -> Result<Option<BodyHandle>, _>        // what Use hits
//! pawn_at(feet) / blocked_at(feet) -> bool
//!
//! // Debug overlays.
//! body_wire_edges(body, &mut Vec<[Vec3; 2]>) -> Result<usize, _>  // mesh and hull edges, world
//! pawn_contacts(pawn) -> Result<Vec<PawnContact { body, collider, point, normal, distance }>, _>
//! hull_edges(points) -> Vec<[Vec3; 2]>                          // free function: a bodiless hull
//!
//! // Spawns.
//! select_spawn(spawns: &[SpawnPose], spacing, occupied: Fn(SpawnCandidate) -> bool,
//!              rng: &mut SpawnRng) -> SpawnPose                           // free function
//! world.select_spawn(spawns, rng) -> SpawnPose        // occupancy from the world's pawns
//! ```
//!
//! # One tick
//!
//! 0. Each awake prop's friction is re-tuned from the surface under it
//!    (`world.prop.friction` × its grip), and each prop touching water is pushed up at its
//!    buoyancy points and damped (spec 000:1044, 000:1050; see `water.rs`).
//! 1. The solver steps: each kinematic body moves to the target set since the last step, with
//!    the velocity that takes it there (so a prop on it rides by friction); props fall under
//!    gravity, land, tumble, slide by grip and sleep.
//! 2. Each pawn finds the map's water at its middle (the host's voxel water, given through
//!    `set_pawn_water`, wins where it answers); then each pawn (a noclip pawn just flies
//!    along its view at `walk_speed`, through everything, and does none of the rest), in
//!    id order or side by side
//!    ([`PhysicsWorld::step_with`]: a move reads the world and writes only its pawn):
//!    * is carried by the body it stood on at the end of its last move: that body's motion
//!      since then, applied at the feet (a spin turns the pawn's yaw with it), blocked by the
//!      rest of the world. This is Source's base velocity: added for the move, never kept in
//!      the pawn's own velocity. The controller's own platform handling is bypassed (its
//!      queries see no bodies), so the motion is added exactly once;
//!    * walks (its input, at `walk_speed`, when grounded; an airborne pawn keeps its horizontal
//!      velocity), jumps, and falls under gravity while airborne, through rapier's
//!      `KinematicCharacterController`: it collides with static and kinematic bodies (never
//!      props, never other pawns), slides along walls and climbs slopes up to
//!      `max_slope_degrees`;
//!    * steps: a standing pawn whose walk is cut short tries it again raised by
//!      `world.stepHeight` and dropped onto what it walked onto (Source's step move), so a
//!      0.4 m step is walked up at full speed and a 0.6 m one is a wall;
//!    * finds its ground: a standing pawn follows walkable ground down as far as
//!      `world.stepHeight` (stairs and ledges at full speed, down as well as up), a falling
//!      one lands, and either rests exactly `skin` above it; that ground is what carries it
//!      next tick;
//!    * shoves the props its capsule walks into along its walking motion, capped at
//!      `world.prop.pushSpeed`; the shoves apply after every move, in id order, each
//!      reading the props' velocities as the shoves before it left them.
//!
//! Two things work around the shape casts of parry 0.31 (rapier's geometry), which lose
//! accuracy near contact: against a box tens of meters across a capsule resting within the
//! controller's gap is sometimes missed, and the pawn sinks. So the controller only ever sees
//! the world near the pawn with long boxes cropped to a few meters (exactly, in the box's own
//! frame), and a resting pawn floats a whole `skin` above its ground, twice the controller's
//! gap, so its casts start clear of it. rapier's own autostep and snap cast from that gap, so
//! the step and the ground are done here with casts that start clear.
//!
//! Plates and triggers are not bodies here: their volumes block nothing, so the logic runtime
//! measures them with [`PhysicsWorld::pawns_overlapping_box`] at their pose each tick.
//!
//! # Spawns
//!
//! [`select_spawn`] follows the spec's dh.spawnPoint: a random spawn no one is standing on
//! (stacking only when all are taken), a deterministic spread around a single spawn, the
//! origin when none is authored.

mod debug;
mod overlap;
mod pawn;
mod spawn;
mod types;
mod voxel;
mod water;
mod world;

pub use debug::{hull_edges, PawnContact};
pub use overlap::{PawnOverlaps, OVERLAP_CELL};
pub use spawn::{select_spawn, spread_slot, SpawnCandidate, SpawnPose, SpawnRng, SPREAD_RINGS};
pub use types::{
    normalize_degrees, BodyHandle, BodyKind, ColliderShape, EyeRay, PawnId, PawnInput, PawnState,
    PhysicsError, PhysicsParams, Pose, RayHit, ShapeSpec, TeleportVelocity,
};
pub use voxel::{PawnWater, SwimParams, VoxelCellPart, VoxelPart};
pub use water::{NoWater, WaterAt, WaterHandle, WaterMedium, WaterParams, WaterQuery};
pub use world::PhysicsWorld;
