//! [`PhysicsWorld`]: the rapier world, its bodies, its pawns and its queries.

use std::collections::{BTreeMap, BTreeSet};

use rapier3d::control::{CharacterLength, KinematicCharacterController};
use rapier3d::glamx::Quat;
use rapier3d::math::{Pose as RPose, Vector};
use rapier3d::prelude::{
    ColliderBuilder, ColliderHandle, Group, InteractionGroups, InteractionTestMode, QueryFilter,
    Ray, RigidBodyBuilder, RigidBodyHandle, RigidBodySet, SharedShape,
};

use super::overlap::{self, PawnOverlaps};
use super::pawn::{self, Pawn};
use super::spawn::{self, SpawnCandidate, SpawnPose, SpawnRng};
use super::types::{
    normalize_degrees, BodyHandle, BodyKind, ColliderShape, EyeRay, PawnId, PawnInput, PawnState,
    PhysicsError, PhysicsParams, Pose, RayHit, ShapeSpec, TeleportVelocity,
};
use super::water::{self, NoWater, Prop, WaterBody, WaterHandle, WaterQuery};
use crate::parallel::{Parallel, Serial};

/// The collision group of everything a pawn collides with: static and kinematic bodies.
const GROUP_WORLD: Group = Group::GROUP_1;
/// The collision group of physics props.
const GROUP_PROP: Group = Group::GROUP_2;
/// The group pawn queries are made as (pawns have no collider of their own).
const GROUP_PAWN: Group = Group::GROUP_3;

/// The extra distance below a pawn within which the ground under it is still its support.
pub(crate) const GROUND_PROBE: f32 = 0.05;

/// The physics world: static colliders, kinematic movers, physics props and player pawns,
/// stepped one fixed tick at a time. See the module documentation for the API as a whole.
pub struct PhysicsWorld {
    pub(crate) params: PhysicsParams,
    pub(crate) rapier: rapier3d::prelude::PhysicsWorld,
    /// An empty body set: pawn moves query the colliders through it, so the character
    /// controller sees no kinematic parent and adds no platform motion of its own (the carry
    /// does that, exactly once).
    pub(crate) no_bodies: RigidBodySet,
    pub(crate) controller: KinematicCharacterController,
    /// Kinematic and dynamic bodies, whose broad-phase bounds are refreshed after each step.
    moving: BTreeSet<BodyHandle>,
    pub(crate) pawns: BTreeMap<PawnId, Pawn>,
    next_pawn: u32,
    tick: u64,
    /// The map's water bodies, in the order they were added.
    pub(crate) water_bodies: BTreeMap<WaterHandle, WaterBody>,
    pub(crate) next_water: u32,
    /// Every prop, by handle: what buoyancy and the friction probe read.
    pub(crate) props: BTreeMap<BodyHandle, Prop>,
    /// The props wet at the last step (they carry the water's damping).
    pub(crate) wet: BTreeSet<BodyHandle>,
}

impl std::fmt::Debug for PhysicsWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhysicsWorld")
            .field("params", &self.params)
            .field("bodies", &self.rapier.bodies.len())
            .field("pawns", &self.pawns.len())
            .field("tick", &self.tick)
            .finish()
    }
}

pub(crate) fn world_groups() -> InteractionGroups {
    InteractionGroups::new(GROUP_WORLD, Group::ALL, InteractionTestMode::And)
}

fn prop_groups() -> InteractionGroups {
    InteractionGroups::new(GROUP_PROP, Group::ALL, InteractionTestMode::And)
}

/// The groups a pawn's movement queries test against: the world, never props.
pub(crate) fn pawn_world_filter() -> InteractionGroups {
    InteractionGroups::new(GROUP_PAWN, GROUP_WORLD, InteractionTestMode::And)
}

/// The groups a pawn's push queries test against: props alone.
pub(crate) fn pawn_prop_filter() -> InteractionGroups {
    InteractionGroups::new(GROUP_PAWN, GROUP_PROP, InteractionTestMode::And)
}

fn finite3(v: Vector, what: &'static str) -> Result<Vector, PhysicsError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(PhysicsError::NonFinite {
            what,
            kind: "vector",
        })
    }
}

/// `q` normalized, refused when it is not finite or (nearly) zero.
pub(crate) fn quat(q: Quat, what: &'static str) -> Result<Quat, PhysicsError> {
    let len = q.length();
    if q.is_finite() && len.is_finite() && len > 1.0e-6 {
        Ok(q / len)
    } else {
        Err(PhysicsError::NonFinite {
            what,
            kind: "quaternion",
        })
    }
}

pub(crate) fn to_rapier(pose: &Pose, what: &'static str) -> Result<RPose, PhysicsError> {
    let t = finite3(pose.position, what)?;
    let r = quat(pose.rotation, what)?;
    Ok(RPose::from_parts(t, r))
}

pub(crate) fn from_rapier(pose: &RPose) -> Pose {
    Pose::new(pose.translation, pose.rotation)
}

pub(crate) fn to_rb(handle: BodyHandle) -> RigidBodyHandle {
    RigidBodyHandle::from_raw_parts(handle.index, handle.generation)
}

pub(crate) fn from_rb(handle: RigidBodyHandle) -> BodyHandle {
    let (index, generation) = handle.into_raw_parts();
    BodyHandle { index, generation }
}

fn shape_error(shape: &'static str, reason: String) -> PhysicsError {
    PhysicsError::InvalidShape { shape, reason }
}

fn positive(v: f32) -> bool {
    v.is_finite() && v > 0.0
}

/// Builds the solver's shape from a spec, refusing what is out of range.
pub(crate) fn shared_shape(shape: &ColliderShape) -> Result<SharedShape, PhysicsError> {
    let name = shape.type_name();
    match shape {
        ColliderShape::Box { half_extents: h } => {
            if h.to_array().iter().all(|&c| positive(c)) {
                Ok(SharedShape::cuboid(h[0], h[1], h[2]))
            } else {
                Err(shape_error(
                    name,
                    format!(
                        "needs half extents above zero on every axis, got [{}, {}, {}]",
                        h[0], h[1], h[2]
                    ),
                ))
            }
        }
        ColliderShape::Sphere { radius } => {
            if positive(*radius) {
                Ok(SharedShape::ball(*radius))
            } else {
                Err(shape_error(
                    name,
                    format!("needs a radius above zero, got {radius}"),
                ))
            }
        }
        ColliderShape::Capsule { radius, height } => {
            if !positive(*radius) {
                return Err(shape_error(
                    name,
                    format!("needs a radius above zero, got {radius}"),
                ));
            }
            if !(height.is_finite() && *height >= 2.0 * radius) {
                return Err(shape_error(
                    name,
                    format!("needs a height of at least twice its radius {radius}, got {height}"),
                ));
            }
            let half_segment = height * 0.5 - radius;
            if half_segment > 0.0 {
                Ok(SharedShape::capsule_y(half_segment, *radius))
            } else {
                Ok(SharedShape::ball(*radius))
            }
        }
        ColliderShape::Hull { points } => {
            if points.iter().any(|p| !p.is_finite()) {
                return Err(PhysicsError::NonFinite {
                    what: "a hull point",
                    kind: "vector",
                });
            }
            let degenerate = PhysicsError::DegenerateHull {
                count: points.len(),
            };
            if points.len() < 4 {
                return Err(degenerate);
            }
            let hull = SharedShape::convex_hull(points).ok_or(degenerate.clone())?;
            let volume = hull.mass_properties(1.0).mass();
            if volume.is_finite() && volume > 1.0e-9 {
                Ok(hull)
            } else {
                Err(degenerate)
            }
        }
        ColliderShape::Mesh { vertices, indices } => {
            if vertices.iter().any(|p| !p.is_finite()) {
                return Err(PhysicsError::NonFinite {
                    what: "a mesh vertex",
                    kind: "vector",
                });
            }
            if indices.is_empty() {
                return Err(PhysicsError::InvalidMesh("it has no triangles".into()));
            }
            let count = vertices.len();
            if let Some(bad) = indices
                .iter()
                .flatten()
                .find(|&&i| usize::try_from(i).map_or(true, |i| i >= count))
            {
                return Err(PhysicsError::InvalidMesh(format!(
                    "index {bad} is past its {count} vertices"
                )));
            }
            SharedShape::trimesh(vertices.clone(), indices.clone())
                .map_err(|e| PhysicsError::InvalidMesh(e.to_string()))
        }
    }
}

/// The character controller pawns move through: slides along walls and climbs slopes up to
/// `max_slope_degrees`. Steps and the ground are the pawn's own (see `pawn::move_pawn`):
/// rapier's autostep and snap cast from the controller's contact gap, where this version's
/// shape casts are unreliable, so they are left off.
fn make_controller(p: &PhysicsParams) -> KinematicCharacterController {
    KinematicCharacterController {
        up: Vector::Y,
        // Half the skin: a resting pawn floats a whole skin above its ground, clear of the
        // gap the controller's casts keep.
        offset: CharacterLength::Absolute(p.skin * 0.5),
        slide: true,
        autostep: None,
        max_slope_climb_angle: p.max_slope_degrees.to_radians(),
        min_slope_slide_angle: p.max_slope_degrees.to_radians(),
        snap_to_ground: None,
        ..KinematicCharacterController::default()
    }
}

impl PhysicsWorld {
    /// An empty world with these parameters, refused when one is out of range.
    pub fn new(params: PhysicsParams) -> Result<PhysicsWorld, PhysicsError> {
        params.validate()?;
        let mut rapier = rapier3d::prelude::PhysicsWorld::new();
        rapier.gravity = Vector::new(0.0, -params.gravity, 0.0);
        rapier.integration_parameters.dt = params.dt();
        let controller = make_controller(&params);
        Ok(PhysicsWorld {
            params,
            rapier,
            no_bodies: RigidBodySet::new(),
            controller,
            moving: BTreeSet::new(),
            pawns: BTreeMap::new(),
            next_pawn: 1,
            tick: 0,
            water_bodies: BTreeMap::new(),
            next_water: 1,
            props: BTreeMap::new(),
            wet: BTreeSet::new(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &PhysicsParams {
        &self.params
    }

    /// Replaces the parameters live (a console `set world.stepHeight 0.3`); refused, and
    /// nothing changed, when one is out of range. Pawns keep their feet where they stand.
    pub fn set_params(&mut self, params: PhysicsParams) -> Result<(), PhysicsError> {
        params.validate()?;
        self.rapier.gravity = Vector::new(0.0, -params.gravity, 0.0);
        self.rapier.integration_parameters.dt = params.dt();
        self.controller = make_controller(&params);
        self.params = params;
        Ok(())
    }

    /// How many ticks [`PhysicsWorld::step`] has run.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    // ── Bodies ──────────────────────────────────────────────────────────

    /// Adds a body of `kind` at `pose` made of `shapes` (one `dh.collider`'s shapes, each in
    /// the owner's frame). A dynamic body's mass is spread over its shapes by volume.
    pub fn add_body(
        &mut self,
        kind: BodyKind,
        pose: Pose,
        shapes: &[ShapeSpec],
    ) -> Result<BodyHandle, PhysicsError> {
        let pose = to_rapier(&pose, "a body's pose")?;
        if shapes.is_empty() {
            return Err(PhysicsError::NoShapes);
        }
        let mut built = Vec::with_capacity(shapes.len());
        for spec in shapes {
            let local = to_rapier(&spec.local, "a shape's pose")?;
            if !(spec.grip.is_finite() && spec.grip >= 0.0) {
                return Err(PhysicsError::InvalidParam {
                    name: "grip",
                    value: spec.grip,
                    expected: "at least 0",
                });
            }
            if matches!(kind, BodyKind::Dynamic { .. })
                && matches!(spec.shape, ColliderShape::Mesh { .. })
            {
                return Err(PhysicsError::DynamicMesh);
            }
            built.push((local, shared_shape(&spec.shape)?, spec.grip));
        }
        let (body, groups, prop) = match kind {
            BodyKind::Static => (RigidBodyBuilder::fixed(), world_groups(), None),
            BodyKind::Kinematic => (
                RigidBodyBuilder::kinematic_position_based(),
                world_groups(),
                None,
            ),
            BodyKind::Dynamic { mass } => {
                if !(mass.is_finite() && mass >= 0.001) {
                    return Err(PhysicsError::InvalidMass(mass));
                }
                let volume: f32 = built
                    .iter()
                    .map(|(_, s, _)| s.mass_properties(1.0).mass())
                    .sum();
                if !(volume.is_finite() && volume > 0.0) {
                    return Err(PhysicsError::DynamicMesh);
                }
                let placed: Vec<(RPose, SharedShape)> =
                    built.iter().map(|(l, s, _)| (*l, s.clone())).collect();
                let (center, half) = water::local_bounds(&placed);
                // Spec 000:1050: the center of mass is dropped when the body is minted.
                let mprops = water::prop_mass_properties(
                    &placed,
                    mass,
                    volume,
                    self.params.water.center_of_mass_drop,
                    half.y,
                );
                let own_grip = built.first().map_or(0.0, |(_, _, g)| *g);
                (
                    RigidBodyBuilder::dynamic().additional_mass_properties(mprops),
                    prop_groups(),
                    Some((own_grip, center, half, volume)),
                )
            }
        };
        let rb = self.rapier.insert_body(body.pose(pose));
        let mut colliders = Vec::with_capacity(built.len());
        for (local, shape, grip) in built {
            let mut co = ColliderBuilder::new(shape)
                .position(local)
                .friction(grip)
                .user_data(water::grip_data(grip))
                .collision_groups(groups);
            if prop.is_some() {
                // The body's mass properties are its own (the dropped center of mass).
                co = co.density(0.0);
            }
            colliders.push(self.rapier.insert_collider(co, Some(rb)));
        }
        let handle = from_rb(rb);
        if !matches!(kind, BodyKind::Static) {
            self.moving.insert(handle);
        }
        if let Some((own_grip, center, half, volume)) = prop {
            // The mass reads right before the first step (rapier folds the body's own mass
            // properties in when it steps).
            if let Some(body) = self.rapier.bodies.get_mut(rb) {
                body.recompute_mass_properties_from_colliders(&self.rapier.colliders);
            }
            self.note_prop(
                handle,
                Prop {
                    colliders: colliders.clone(),
                    own_grip,
                    center,
                    half,
                    volume,
                },
            );
        }
        // Queries between now and the next step see the new body at once.
        self.refresh_bounds(&colliders);
        Ok(handle)
    }

    /// A static box (a brush, a `dh.collider` box, a button's body).
    pub fn add_static_box(
        &mut self,
        pose: Pose,
        half_extents: Vector,
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Static,
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Box { half_extents },
                grip,
            )],
        )
    }

    /// A static sphere.
    pub fn add_static_sphere(
        &mut self,
        pose: Pose,
        radius: f32,
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Static,
            pose,
            &[ShapeSpec::centered(ColliderShape::Sphere { radius }, grip)],
        )
    }

    /// A static capsule along the pose's Y, `height` tip to tip.
    pub fn add_static_capsule(
        &mut self,
        pose: Pose,
        radius: f32,
        height: f32,
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Static,
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Capsule { radius, height },
                grip,
            )],
        )
    }

    /// A static convex hull of `points` (in the pose's frame).
    pub fn add_static_hull(
        &mut self,
        pose: Pose,
        points: &[Vector],
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Static,
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Hull {
                    points: points.to_vec(),
                },
                grip,
            )],
        )
    }

    /// A static triangle mesh (a `mesh` shape's cooked triangles, in the pose's frame).
    pub fn add_static_mesh(
        &mut self,
        pose: Pose,
        vertices: &[Vector],
        indices: &[[u32; 3]],
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Static,
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Mesh {
                    vertices: vertices.to_vec(),
                    indices: indices.to_vec(),
                },
                grip,
            )],
        )
    }

    /// A kinematic box: a mover's body or a box it carries.
    pub fn add_kinematic_box(
        &mut self,
        pose: Pose,
        half_extents: Vector,
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Kinematic,
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Box { half_extents },
                grip,
            )],
        )
    }

    /// A dynamic box: a `dh.physicsProp`, `mass` kilograms.
    pub fn add_dynamic_box(
        &mut self,
        pose: Pose,
        half_extents: Vector,
        mass: f32,
        grip: f32,
    ) -> Result<BodyHandle, PhysicsError> {
        self.add_body(
            BodyKind::Dynamic { mass },
            pose,
            &[ShapeSpec::centered(
                ColliderShape::Box { half_extents },
                grip,
            )],
        )
    }

    /// Takes a body and its shapes out of the world (an owner switched off, its collider set
    /// off or to a trigger). A pawn standing on it falls.
    pub fn remove_body(&mut self, handle: BodyHandle) -> Result<(), PhysicsError> {
        match self.rapier.remove_body(to_rb(handle)) {
            Some(_) => {
                self.moving.remove(&handle);
                self.forget_prop(handle);
                Ok(())
            }
            None => Err(PhysicsError::UnknownBody(handle)),
        }
    }

    /// Where a kinematic body goes on the next [`PhysicsWorld::step`]. The step moves it there
    /// with the velocity that takes it there in one tick, so a prop on it rides by friction
    /// and a pawn standing on it is carried.
    pub fn set_kinematic_target(
        &mut self,
        handle: BodyHandle,
        pose: Pose,
    ) -> Result<(), PhysicsError> {
        let target = to_rapier(&pose, "a kinematic target")?;
        let rb = self
            .rapier
            .bodies
            .get_mut(to_rb(handle))
            .ok_or(PhysicsError::UnknownBody(handle))?;
        if !rb.is_kinematic() {
            return Err(PhysicsError::NotKinematic(handle));
        }
        rb.set_next_kinematic_position(target);
        Ok(())
    }

    /// A body's pose now (a prop's, for the snapshot and the carry's readers).
    pub fn body_pose(&self, handle: BodyHandle) -> Result<Pose, PhysicsError> {
        self.rapier
            .bodies
            .get(to_rb(handle))
            .map(|rb| from_rapier(rb.position()))
            .ok_or(PhysicsError::UnknownBody(handle))
    }

    /// A body's linear velocity in m/s.
    pub fn body_velocity(&self, handle: BodyHandle) -> Result<Vector, PhysicsError> {
        self.rapier
            .bodies
            .get(to_rb(handle))
            .map(|rb| rb.linvel())
            .ok_or(PhysicsError::UnknownBody(handle))
    }

    /// A body's mass in kilograms (0 for a static or kinematic one).
    pub fn body_mass(&self, handle: BodyHandle) -> Result<f32, PhysicsError> {
        self.rapier
            .bodies
            .get(to_rb(handle))
            .map(|rb| rb.mass())
            .ok_or(PhysicsError::UnknownBody(handle))
    }

    /// Whether a body is asleep (a prop's moving/resting readout).
    pub fn body_sleeping(&self, handle: BodyHandle) -> Result<bool, PhysicsError> {
        self.rapier
            .bodies
            .get(to_rb(handle))
            .map(|rb| rb.is_sleeping())
            .ok_or(PhysicsError::UnknownBody(handle))
    }

    /// How many bodies the world holds.
    pub fn body_count(&self) -> usize {
        self.rapier.bodies.len()
    }

    fn refresh_bounds(&mut self, colliders: &[ColliderHandle]) {
        let params = &self.rapier.integration_parameters;
        for &ch in colliders {
            if let Some(co) = self.rapier.colliders.get(ch) {
                let aabb = co.compute_broad_phase_aabb(params, &self.rapier.bodies);
                self.rapier.broad_phase.set_aabb(params, ch, aabb);
            }
        }
    }

    // ── Pawns ───────────────────────────────────────────────────────────

    /// Spawns a pawn standing at `feet`, facing `yaw` degrees, level, at rest. Walkable ground
    /// within the ground probe under its feet stands it there at once, grounded on that body,
    /// so its very first tick walks and jumps; over nothing it starts falling.
    pub fn spawn_pawn(&mut self, feet: Vector, yaw: f32) -> Result<PawnId, PhysicsError> {
        let feet = finite3(feet, "a pawn's feet")?;
        if !yaw.is_finite() {
            return Err(PhysicsError::NonFinite {
                what: "a pawn's yaw",
                kind: "angle",
            });
        }
        let id = PawnId(self.next_pawn);
        self.next_pawn += 1;
        let yaw = normalize_degrees(yaw);
        let mut pawn = Pawn {
            feet,
            velocity: Vector::ZERO,
            yaw,
            pitch: 0.0,
            grounded: false,
            input: PawnInput {
                yaw,
                ..PawnInput::default()
            },
            support: None,
            noclip: false,
            water: None,
            map_water: None,
            swimming: false,
        };
        pawn::find_ground(&self.params, &self.rapier, &self.no_bodies, &mut pawn);
        self.pawns.insert(id, pawn);
        Ok(id)
    }

    /// Takes a pawn out of the world.
    pub fn remove_pawn(&mut self, id: PawnId) -> Result<(), PhysicsError> {
        self.pawns
            .remove(&id)
            .map(|_| ())
            .ok_or(PhysicsError::UnknownPawn(id))
    }

    /// The live pawns, in id order.
    pub fn pawn_ids(&self) -> Vec<PawnId> {
        self.pawns.keys().copied().collect()
    }

    /// Sets what a pawn does from the next tick on: its walk, facing and pitch now, and a jump
    /// press the next tick takes.
    pub fn set_pawn_input(&mut self, id: PawnId, input: PawnInput) -> Result<(), PhysicsError> {
        if !(input.move_local.is_finite() && input.yaw.is_finite() && input.pitch.is_finite()) {
            return Err(PhysicsError::NonFinite {
                what: "a pawn's input",
                kind: "value",
            });
        }
        let pawn = self
            .pawns
            .get_mut(&id)
            .ok_or(PhysicsError::UnknownPawn(id))?;
        pawn.yaw = normalize_degrees(input.yaw);
        pawn.pitch = input.pitch.clamp(-90.0, 90.0);
        pawn.input = PawnInput {
            yaw: pawn.yaw,
            pitch: pawn.pitch,
            ..input
        };
        Ok(())
    }

    /// Moves a pawn to `feet` facing `yaw` and `pitch` (degrees), applying the velocity rule.
    /// Arriving clears the ground: the pawn stands on nothing until the next tick finds it.
    pub fn teleport_pawn(
        &mut self,
        id: PawnId,
        feet: Vector,
        yaw: f32,
        pitch: f32,
        velocity: TeleportVelocity,
    ) -> Result<(), PhysicsError> {
        let feet = finite3(feet, "a teleport destination")?;
        if !(yaw.is_finite() && pitch.is_finite()) {
            return Err(PhysicsError::NonFinite {
                what: "a teleport facing",
                kind: "angle",
            });
        }
        let turn = match velocity {
            TeleportVelocity::Turn(q) => Some(quat(q, "a teleport's frame change")?),
            _ => None,
        };
        let pawn = self
            .pawns
            .get_mut(&id)
            .ok_or(PhysicsError::UnknownPawn(id))?;
        pawn.feet = feet;
        pawn.yaw = normalize_degrees(yaw);
        pawn.pitch = pitch.clamp(-90.0, 90.0);
        pawn.input.yaw = pawn.yaw;
        pawn.input.pitch = pawn.pitch;
        pawn.velocity = match (velocity, turn) {
            (TeleportVelocity::Zero, _) => Vector::ZERO,
            (TeleportVelocity::Turn(_), Some(q)) => q * pawn.velocity,
            _ => pawn.velocity,
        };
        pawn.grounded = false;
        pawn.support = None;
        Ok(())
    }

    /// Switches a pawn's noclip on or off (the `noclip` command; the caller checks
    /// `world.noclipAllowed`). On, from the next tick the pawn flies along its view at
    /// walking speed (forward follows the pitch), through every body, under no gravity and
    /// carried by nothing. Off, it stops where it is, at rest, and falls or stands as it
    /// finds itself; switching to the state it is in changes nothing.
    pub fn set_pawn_noclip(&mut self, id: PawnId, on: bool) -> Result<(), PhysicsError> {
        let pawn = self
            .pawns
            .get_mut(&id)
            .ok_or(PhysicsError::UnknownPawn(id))?;
        if pawn.noclip == on {
            return Ok(());
        }
        pawn.noclip = on;
        pawn.velocity = Vector::ZERO;
        pawn.grounded = false;
        pawn.support = None;
        if !on {
            pawn::find_ground(&self.params, &self.rapier, &self.no_bodies, pawn);
        }
        Ok(())
    }

    /// A pawn's state after the last tick.
    pub fn pawn_state(&self, id: PawnId) -> Result<PawnState, PhysicsError> {
        let pawn = self.pawns.get(&id).ok_or(PhysicsError::UnknownPawn(id))?;
        Ok(PawnState {
            feet: pawn.feet,
            velocity: pawn.velocity,
            yaw: pawn.yaw,
            pitch: pawn.pitch,
            grounded: pawn.grounded,
            ground: pawn.support.as_ref().map(|s| from_rb(s.body)),
            noclip: pawn.noclip,
        })
    }

    // ── The tick ────────────────────────────────────────────────────────

    /// One fixed tick: kinematic bodies move to their targets with real velocities, props are
    /// simulated, then every pawn in id order is carried by what it stands on, moved by its
    /// input and gravity through the character controller (walls, slopes, steps up to
    /// `world.stepHeight`, snapping down as far), and shoves the props it walks into.
    pub fn step(&mut self) {
        self.step_with(&Serial);
    }

    /// [`PhysicsWorld::step`], moving the pawns side by side with `par`: the same result
    /// whatever `par` does. A pawn's move reads the world as the solver left it and writes
    /// only the pawn (pawns never collide with one another, and a move reads no prop's
    /// velocity), so the moves are one data-parallel pass; the shoves they give props then
    /// apply in id order, each reading the props' velocities as the pawns before it left
    /// them, exactly as one pawn after another would.
    pub fn step_with<P: Parallel + ?Sized>(&mut self, par: &P) {
        self.step_with_water(par, &NoWater);
    }

    /// [`PhysicsWorld::step_with`], with `water` answering wherever the map's own water
    /// bodies hold none (the engine's voxel fluids): the props' buoyancy reads it. Before
    /// the solver steps, each prop's friction is re-tuned from the surface under it and
    /// each wet prop is pushed up (the module `water`); after it, each pawn finds the
    /// map's water at its middle.
    pub fn step_with_water<P: Parallel + ?Sized, W: WaterQuery + ?Sized>(
        &mut self,
        par: &P,
        water: &W,
    ) {
        if !self.props.is_empty() {
            self.probe_friction();
            self.apply_buoyancy(water);
        }
        self.rapier.step();
        // The broad phase was updated at the start of the step; bring the bodies that moved
        // in it up to date so the pawns' queries see where they stand now.
        let moving: Vec<ColliderHandle> = self
            .moving
            .iter()
            .filter_map(|&h| self.rapier.bodies.get(to_rb(h)))
            .flat_map(|rb| rb.colliders().iter().copied())
            .collect();
        self.refresh_bounds(&moving);
        self.update_pawn_map_water();

        let (params, rapier, no_bodies, controller) = (
            &self.params,
            &self.rapier,
            &self.no_bodies,
            &self.controller,
        );
        let mut moves: Vec<(&mut Pawn, Option<pawn::Shove>)> =
            self.pawns.values_mut().map(|p| (p, None)).collect();
        par.for_each_mut(&mut moves, |_, (pawn, shove)| {
            *shove = pawn::move_pawn(params, rapier, no_bodies, controller, pawn);
        });
        let shoves: Vec<pawn::Shove> = moves.into_iter().filter_map(|(_, s)| s).collect();
        for shove in shoves {
            for (body, impulse_velocity) in shove.pushes(&self.rapier) {
                if let Some(rb) = self.rapier.bodies.get_mut(body) {
                    let v = rb.linvel() + impulse_velocity;
                    rb.set_linvel(v, true);
                }
            }
        }
        self.tick += 1;
    }

    // ── Queries ─────────────────────────────────────────────────────────

    /// The pawns whose capsule overlaps a box (a plate's or a trigger's volume, at its pose
    /// now), in id order. The capsule measured is the pawn's, grown by the controller's skin so
    /// a pawn standing on a volume's top face touches it. A pawn whose capsule's bounds miss
    /// the box's by a margin is left out before the exact test; for many boxes against the
    /// same pawns, [`PhysicsWorld::pawn_overlaps`] bins the pawns once.
    pub fn pawns_overlapping_box(
        &self,
        pose: Pose,
        half_extents: Vector,
    ) -> Result<Vec<PawnId>, PhysicsError> {
        overlap::overlapping_box(self, pose, half_extents)
    }

    /// The pawns as they stand now, binned on a grid for box queries: its
    /// [`PawnOverlaps::pawns_overlapping_box`] answers exactly as
    /// [`PhysicsWorld::pawns_overlapping_box`] does now, testing only the pawns near the box,
    /// and can be asked from many threads at once. Build it once after a step (it is a copy:
    /// pawns that move later are not seen).
    pub fn pawn_overlaps(&self) -> PawnOverlaps {
        PawnOverlaps::of(self)
    }

    /// The ray from a pawn's eye (its feet plus the eye height) along its view (yaw and pitch).
    pub fn eye_ray(&self, id: PawnId) -> Result<EyeRay, PhysicsError> {
        let p = self.pawns.get(&id).ok_or(PhysicsError::UnknownPawn(id))?;
        let origin = p.feet + Vector::Y * self.params.eye_height;
        Ok(EyeRay {
            origin,
            direction: pawn::view_direction(p.yaw, p.pitch),
        })
    }

    /// The first solid body along a pawn's eye ray within `max_distance` meters: static,
    /// kinematic or prop. Pawns never block it.
    pub fn cast_eye_ray(
        &self,
        id: PawnId,
        max_distance: f32,
    ) -> Result<Option<RayHit>, PhysicsError> {
        let ray = self.eye_ray(id)?;
        if !(max_distance.is_finite() && max_distance >= 0.0) {
            return Err(PhysicsError::InvalidParam {
                name: "ray distance",
                value: max_distance,
                expected: "at least 0",
            });
        }
        let (origin, dir) = (ray.origin, ray.direction);
        let qp = self
            .rapier
            .query_pipeline_with_filter(QueryFilter::default());
        let hit = qp.cast_ray(&Ray::new(origin, dir), max_distance, true);
        Ok(hit.and_then(|(ch, toi)| {
            let co = self.rapier.colliders.get(ch)?;
            let parent = co.parent()?;
            Some(RayHit {
                body: from_rb(parent),
                distance: toi,
                point: origin + dir * toi,
            })
        }))
    }

    /// What a Use press hits: the body in front of the pawn's eye within `max_distance`.
    pub fn use_target(
        &self,
        id: PawnId,
        max_distance: f32,
    ) -> Result<Option<BodyHandle>, PhysicsError> {
        Ok(self.cast_eye_ray(id, max_distance)?.map(|h| h.body))
    }

    /// Whether a standing pawn's capsule at `feet` would overlap any pawn's.
    pub fn pawn_at(&self, feet: Vector) -> bool {
        let p = &self.params;
        self.pawns
            .values()
            .any(|other| pawn::capsules_overlap(p, feet, other.feet))
    }

    /// Whether a standing pawn's capsule at `feet` would overlap solid world geometry.
    pub fn blocked_at(&self, feet: Vector) -> bool {
        let Ok(feet) = finite3(feet, "feet") else {
            return true;
        };
        let capsule = pawn::collision_capsule(&self.params);
        let pose = pawn::capsule_pose(&self.params, feet);
        let filter = QueryFilter::default().groups(pawn_world_filter());
        let mut hits = self.rapier.intersect_shape(pose, &capsule, filter);
        hits.next().is_some()
    }

    /// Picks where the next player spawns among the map's spawns (see
    /// [`spawn::select_spawn`]): a spawn is taken when a pawn stands on it; a single spawn's
    /// spread slots are spaced a pawn's diameter plus 0.1 m apart and skip slots that are
    /// taken or inside solid geometry.
    pub fn select_spawn(&self, spawns: &[SpawnPose], rng: &mut SpawnRng) -> SpawnPose {
        let spacing = 2.0 * self.params.pawn_radius + 0.1;
        spawn::select_spawn(
            spawns,
            spacing,
            |c: SpawnCandidate| self.pawn_at(c.feet) || (!c.authored && self.blocked_at(c.feet)),
            rng,
        )
    }

    /// The pawn capsule a standing pawn at `feet` occupies, for callers drawing or measuring
    /// it: its center, radius and full height.
    pub fn pawn_capsule(&self, feet: Vector) -> (Vector, f32, f32) {
        let c = pawn::capsule_pose(&self.params, feet);
        (
            c.translation,
            self.params.pawn_radius,
            self.params.pawn_height,
        )
    }
}
