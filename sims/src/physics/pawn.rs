//! A pawn's tick: the carry by what it stands on, its own move through rapier's character
//! controller (or its swim, while its middle is under water), its ground, and the props it
//! shoves.

use rapier3d::control::KinematicCharacterController;
use rapier3d::math::{Pose as RPose, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy};
use rapier3d::parry::query::{QueryDispatcher, ShapeCastOptions};
use rapier3d::parry::shape::Capsule;
use rapier3d::prelude::{
    ColliderBuilder, ColliderHandle, ColliderSet, QueryFilter, QueryPipeline, Ray, RigidBodyHandle,
    RigidBodySet, SharedShape,
};

use super::types::{normalize_degrees, PawnInput, PhysicsParams};
use super::voxel::PawnWater;
use super::world::{pawn_prop_filter, pawn_world_filter, GROUND_PROBE};

/// What a pawn stood on at the end of its last move, and where that body stood then.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Support {
    pub(crate) body: RigidBodyHandle,
    pub(crate) pose: RPose,
}

/// A pawn's whole state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pawn {
    /// The feet: the capsule's bottom less the skin.
    pub(crate) feet: Vector,
    /// Its own velocity, without its support's.
    pub(crate) velocity: Vector,
    /// Degrees, normalized to (-180, 180].
    pub(crate) yaw: f32,
    /// Degrees, positive up.
    pub(crate) pitch: f32,
    pub(crate) grounded: bool,
    pub(crate) input: PawnInput,
    pub(crate) support: Option<Support>,
    /// Flying through everything along its view (`noclip`).
    pub(crate) noclip: bool,
    /// The water the host found at its middle this tick (`None`: dry).
    pub(crate) water: Option<PawnWater>,
    /// The map's own water at its middle this tick (read where the host's is `None`).
    pub(crate) map_water: Option<PawnWater>,
    /// Whether its last move swam.
    pub(crate) swimming: bool,
}

/// The capsule a pawn collides as.
pub(crate) fn collision_capsule(p: &PhysicsParams) -> Capsule {
    Capsule::new_y(p.pawn_height * 0.5 - p.pawn_radius, p.pawn_radius)
}

/// The capsule plates and triggers measure: the collision capsule grown by the skin, so its
/// bottom reaches the feet.
pub(crate) fn measured_capsule(p: &PhysicsParams) -> Capsule {
    Capsule::new_y(p.pawn_height * 0.5 - p.pawn_radius, p.pawn_radius + p.skin)
}

/// The capsule's pose for a pawn whose feet are at `feet`.
pub(crate) fn capsule_pose(p: &PhysicsParams, feet: Vector) -> RPose {
    RPose::from_translation(feet + Vector::Y * (p.skin + p.pawn_height * 0.5))
}

/// The unit view direction for a yaw and pitch in degrees (yaw 0 faces -Z, 90 faces -X;
/// pitch above 0 looks up).
pub(crate) fn view_direction(yaw: f32, pitch: f32) -> Vector {
    let (sy, cy) = yaw.to_radians().sin_cos();
    let (sp, cp) = pitch.to_radians().sin_cos();
    Vector::new(-sy * cp, sp, -cy * cp)
}

fn forward_flat(yaw: f32) -> Vector {
    let (s, c) = yaw.to_radians().sin_cos();
    Vector::new(-s, 0.0, -c)
}

fn right_flat(yaw: f32) -> Vector {
    let (s, c) = yaw.to_radians().sin_cos();
    Vector::new(c, 0.0, -s)
}

/// The yaw a direction faces, in degrees; `None` for a vertical direction.
fn yaw_of(v: Vector) -> Option<f32> {
    if v.x * v.x + v.z * v.z < 1.0e-12 {
        None
    } else {
        Some(normalize_degrees((-v.x).atan2(-v.z).to_degrees()))
    }
}

/// Whether standing pawns at `a` and `b` overlap: two upright capsules of the same size.
pub(crate) fn capsules_overlap(p: &PhysicsParams, a: Vector, b: Vector) -> bool {
    let segment = p.pawn_height - 2.0 * p.pawn_radius;
    let dx = a.x - b.x;
    let dz = a.z - b.z;
    let gap = ((a.y - b.y).abs() - segment).max(0.0);
    let d2 = dx * dx + dz * dz + gap * gap;
    let reach = 2.0 * p.pawn_radius;
    d2 < reach * reach
}

/// The world near one pawn, as the character controller queries it: the solid colliders
/// around it, with every box longer than the window cropped to the window (in the box's own
/// frame, so every face near the pawn is exactly where it was).
///
/// Shape casts between support-mapped shapes lose accuracy with the shapes' size: against a
/// 40 m floor box a capsule resting within the controller's skin is sometimes missed or hit
/// centimeters late, and the pawn sinks. Against a box a few meters across they are exact,
/// so the controller only ever sees boxes that size.
struct Local {
    colliders: ColliderSet,
    bvh: Bvh,
    owners: Vec<Option<RigidBodyHandle>>,
}

impl Local {
    /// The colliders within `reach` of `center` (a cube of that half-size), less `exclude`'s.
    fn build(
        rapier: &rapier3d::prelude::PhysicsWorld,
        center: Vector,
        reach: f32,
        exclude: Option<RigidBodyHandle>,
    ) -> Local {
        let window = Aabb::new(center - Vector::splat(reach), center + Vector::splat(reach));
        let filter = QueryFilter::default().groups(pawn_world_filter());
        let mut found: Vec<(ColliderHandle, &rapier3d::prelude::Collider)> = rapier
            .intersect_aabb_conservative(window, filter)
            .filter(|(_, co)| exclude.is_none() || co.parent() != exclude)
            .collect();
        found.sort_by_key(|(h, _)| h.into_raw_parts());
        let mut colliders = ColliderSet::new();
        let mut owners = Vec::with_capacity(found.len());
        let mut leaves = Vec::with_capacity(found.len());
        for (_, co) in found {
            let pose = *co.position();
            let (shape, pose) = match co.shape().as_cuboid() {
                Some(cuboid) => {
                    let local = pose.inverse_transform_point(center);
                    let mut half = cuboid.half_extents;
                    let mut offset = Vector::ZERO;
                    let mut outside = false;
                    for axis in 0..3 {
                        let h = half[axis];
                        if h > reach {
                            let lo = (local[axis] - reach).max(-h);
                            let hi = (local[axis] + reach).min(h);
                            if hi <= lo {
                                outside = true;
                            }
                            half[axis] = (hi - lo) * 0.5;
                            offset[axis] = (hi + lo) * 0.5;
                        }
                    }
                    if outside {
                        continue;
                    }
                    if offset == Vector::ZERO && half == cuboid.half_extents {
                        (co.shared_shape().clone(), pose)
                    } else {
                        let cropped = SharedShape::cuboid(half.x, half.y, half.z);
                        (cropped, pose * RPose::from_translation(offset))
                    }
                }
                None => (co.shared_shape().clone(), pose),
            };
            let proxy = ColliderBuilder::new(shape)
                .position(pose)
                .collision_groups(co.collision_groups())
                .build();
            let aabb = proxy.compute_aabb().loosened(1.0e-3);
            let handle = colliders.insert(proxy);
            leaves.push((handle.into_raw_parts().0 as usize, aabb));
            owners.push(co.parent());
        }
        let bvh = Bvh::from_iter(BvhBuildStrategy::Binned, leaves);
        Local {
            colliders,
            bvh,
            owners,
        }
    }

    fn pipeline<'a>(
        &'a self,
        dispatcher: &'a dyn QueryDispatcher,
        no_bodies: &'a RigidBodySet,
    ) -> QueryPipeline<'a> {
        QueryPipeline {
            dispatcher,
            bvh: &self.bvh,
            bodies: no_bodies,
            colliders: &self.colliders,
            filter: QueryFilter::default(),
        }
    }

    /// The real body a proxy collider stands for.
    fn owner(&self, proxy: ColliderHandle) -> Option<RigidBodyHandle> {
        let index = proxy.into_raw_parts().0 as usize;
        self.owners.get(index).copied().flatten()
    }
}

/// How far from a pawn's capsule center its queries can reach this tick: the capsule, the
/// move, a step up and a snap down, and a margin.
fn reach(params: &PhysicsParams, motion: f32) -> f32 {
    params.pawn_height * 0.5
        + params.pawn_radius
        + motion
        + 2.0 * (params.step_height + params.skin)
        + GROUND_PROBE
        + 0.2
}

/// A plain shape cast: the first contact along `dir` within `max`, from a start clear of
/// everything (no target gap, so no boundary case).
fn cast(
    world: &QueryPipeline,
    shape: &Capsule,
    from: &RPose,
    dir: Vector,
    max: f32,
) -> Option<(ColliderHandle, rapier3d::parry::query::ShapeCastHit)> {
    let options = ShapeCastOptions {
        max_time_of_impact: max,
        target_distance: 0.0,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    world.cast_shape(from, dir, shape, options)
}

/// The height of the ground a downward cast's hit stands a pawn on, or `None` when it is not
/// ground: a surface no steeper than `max_slope_degrees` (the height where the capsule
/// touches it), or the edge of one (the capsule's round bottom meets a step's edge at a
/// slant, so an edge is judged, and measured, by the face a short ray finds just inside it).
/// `center` is the capsule's center at the hit.
fn ground_height(
    params: &PhysicsParams,
    world: &QueryPipeline,
    center: Vector,
    hit: &rapier3d::parry::query::ShapeCastHit,
) -> Option<f32> {
    let min_up = params.max_slope_degrees.to_radians().cos() - 1.0e-3;
    let n = hit.normal1;
    let sphere = center - Vector::Y * (params.pawn_height * 0.5 - params.pawn_radius);
    let contact = sphere - n * params.pawn_radius;
    if n.y >= min_up {
        return Some(contact.y);
    }
    if n.y <= 0.0 {
        return None;
    }
    // Away from the capsule's axis, into what it touches.
    let inward = Vector::new(-n.x, 0.0, -n.z).normalize_or_zero() * EDGE_INSET;
    let origin = contact + inward + Vector::Y * EDGE_RAY;
    let (_, ray) =
        world.cast_ray_and_get_normal(&Ray::new(origin, -Vector::Y), 2.0 * EDGE_RAY, true)?;
    (ray.normal.y >= min_up).then_some(origin.y - ray.time_of_impact)
}

/// How far inside an edge the ray that judges it starts, in meters.
const EDGE_INSET: f32 = 0.02;
/// How far above the edge it starts (and half how far it reaches), in meters.
const EDGE_RAY: f32 = 0.05;

/// Source's step move: when a standing pawn's walk is cut short, try it again raised by
/// world.stepHeight and dropped back onto what it walked onto. Returns the stepped
/// translation when it gets farther and lands on walkable ground no higher than the step.
fn step_up(
    params: &PhysicsParams,
    controller: &KinematicCharacterController,
    world: &QueryPipeline,
    shape: &Capsule,
    start: &RPose,
    desired: Vector,
    moved: Vector,
) -> Option<Vector> {
    let flat = Vector::new(desired.x, 0.0, desired.z);
    let wanted = flat.length();
    let got = Vector::new(moved.x, 0.0, moved.z).length();
    if params.step_height <= 0.0 || wanted < 1.0e-6 || got >= wanted - 1.0e-4 {
        return None;
    }
    let ceiling = cast(
        world,
        shape,
        start,
        Vector::Y,
        params.step_height + params.skin,
    );
    let raise = match ceiling {
        Some((_, hit)) => hit.time_of_impact - params.skin,
        None => params.step_height + params.skin,
    };
    if raise <= params.skin {
        return None;
    }
    let raised = RPose::from_translation(start.translation + Vector::Y * raise);
    let over = controller.move_shape(params.dt(), world, shape, &raised, flat, |_| {});
    let ahead = Vector::new(over.translation.x, 0.0, over.translation.z).length();
    if ahead <= got + 1.0e-4 {
        return None;
    }
    let top = RPose::from_translation(raised.translation + over.translation);
    let (_, land) = cast(world, shape, &top, -Vector::Y, raise + params.skin)?;
    let touch = top.translation - Vector::Y * land.time_of_impact;
    if land.time_of_impact <= 0.0 {
        return None;
    }
    let ground = ground_height(params, world, touch, &land)?;
    let feet = start.translation.y - params.pawn_height * 0.5 - params.skin;
    let end = top.translation - Vector::Y * (land.time_of_impact - params.skin);
    (ground - feet <= params.step_height + 1.0e-3).then_some(end - start.translation)
}

/// Stands the pawn on walkable ground within `reach_down` below its capsule, if there is
/// any: its feet come to rest exactly `skin` above it, it is grounded, and the body under it
/// is its support. Returns whether it found ground (nothing changes when it did not).
fn land(
    params: &PhysicsParams,
    rapier: &rapier3d::prelude::PhysicsWorld,
    world: &QueryPipeline,
    local: &Local,
    pawn: &mut Pawn,
    reach_down: f32,
) -> bool {
    let shape = collision_capsule(params);
    let at = capsule_pose(params, pawn.feet);
    let Some((collider, hit)) = cast(world, &shape, &at, -Vector::Y, reach_down) else {
        return false;
    };
    let touch = at.translation - Vector::Y * hit.time_of_impact;
    if ground_height(params, world, touch, &hit).is_none() {
        return false;
    }
    if hit.time_of_impact > 0.0 {
        pawn.feet.y -= hit.time_of_impact - params.skin;
    }
    pawn.grounded = true;
    pawn.support = local.owner(collider).and_then(|body| {
        let pose = *rapier.bodies.get(body)?.position();
        Some(Support { body, pose })
    });
    true
}

/// Finds the ground a pawn was just put down on (a spawn): walkable ground within the skin
/// and the ground probe under its feet stands it there, grounded, so its first tick walks and
/// jumps like any standing pawn's.
pub(crate) fn find_ground(
    params: &PhysicsParams,
    rapier: &rapier3d::prelude::PhysicsWorld,
    no_bodies: &RigidBodySet,
    pawn: &mut Pawn,
) {
    if pawn.noclip {
        return;
    }
    let dispatcher = rapier.narrow_phase.query_dispatcher();
    let center = capsule_pose(params, pawn.feet).translation;
    let local = Local::build(rapier, center, reach(params, 0.0), None);
    let world = local.pipeline(dispatcher, no_bodies);
    if land(
        params,
        rapier,
        &world,
        &local,
        pawn,
        params.skin + GROUND_PROBE,
    ) {
        pawn.velocity.y = pawn.velocity.y.max(0.0);
    }
}

/// A noclip pawn's tick: it flies along its view at walking speed (forward follows the pitch,
/// right stays level), through everything, under no gravity, carried by nothing; a jump
/// press does nothing. It stands on nothing and shoves nothing.
fn fly(params: &PhysicsParams, pawn: &mut Pawn) {
    let input = pawn.input;
    pawn.input.jump = false;
    let [mx, mz] = input.move_local.to_array();
    let len = (mx * mx + mz * mz).sqrt();
    let scale = if len > 1.0 { 1.0 / len } else { 1.0 };
    let velocity = (right_flat(pawn.yaw) * mx + view_direction(pawn.yaw, pawn.pitch) * mz)
        * (scale * params.walk_speed);
    pawn.feet += velocity * params.dt();
    pawn.velocity = velocity;
    pawn.grounded = false;
    pawn.support = None;
}

/// The props a pawn's capsule walked into this tick, and how it shoves them: each one moving
/// slower than `target` along `dir` is brought up to it. Read against the props' velocities
/// only when the shoves apply, in id order ([`Shove::pushes`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shove {
    dir: Vector,
    target: f32,
    /// Each prop once, in handle order.
    bodies: Vec<RigidBodyHandle>,
}

impl Shove {
    /// The velocity changes the shove gives props moving as they move now, in order.
    pub(crate) fn pushes(
        &self,
        rapier: &rapier3d::prelude::PhysicsWorld,
    ) -> Vec<(RigidBodyHandle, Vector)> {
        let mut pushes = Vec::new();
        for &body in &self.bodies {
            if let Some(rb) = rapier.bodies.get(body) {
                let along = rb.linvel().dot(self.dir);
                if along < self.target {
                    pushes.push((body, self.dir * (self.target - along)));
                }
            }
        }
        pushes
    }
}

/// One pawn's tick. Reads the world and writes only the pawn, so pawns can move side by side;
/// returns the shove it gives props, which must apply in id order ([`Shove::pushes`]).
pub(crate) fn move_pawn(
    params: &PhysicsParams,
    rapier: &rapier3d::prelude::PhysicsWorld,
    no_bodies: &RigidBodySet,
    controller: &KinematicCharacterController,
    pawn: &mut Pawn,
) -> Option<Shove> {
    if pawn.noclip {
        fly(params, pawn);
        return None;
    }
    let dt = params.dt();
    let shape = collision_capsule(params);
    let dispatcher = rapier.narrow_phase.query_dispatcher();

    // 1. The carry: whatever moved under the pawn since its last move takes the pawn with it
    //    (its whole motion at the feet, and its turn about +Y), blocked by the rest of the
    //    world but never by the support itself.
    if let Some(support) = pawn.support {
        if let Some(rb) = rapier.bodies.get(support.body) {
            let now = *rb.position();
            if !rb.is_fixed() && now != support.pose {
                let delta = now * support.pose.inverse();
                if now.rotation != support.pose.rotation {
                    if let Some(yaw) = yaw_of(delta.rotation * forward_flat(pawn.yaw)) {
                        pawn.yaw = yaw;
                        pawn.input.yaw = yaw;
                    }
                }
                let carry = delta.transform_point(pawn.feet) - pawn.feet;
                if carry != Vector::ZERO {
                    let from = capsule_pose(params, pawn.feet);
                    let reach = reach(params, carry.length());
                    let local = Local::build(rapier, from.translation, reach, Some(support.body));
                    let moved = controller.move_shape(
                        dt,
                        &local.pipeline(dispatcher, no_bodies),
                        &shape,
                        &capsule_pose(params, pawn.feet),
                        carry,
                        |_| {},
                    );
                    pawn.feet += moved.translation;
                }
            }
        }
    }

    // 2. Swimming, while its middle is under the water's surface.
    pawn.swimming = false;
    if let Some(water) = pawn.water.or(pawn.map_water) {
        let middle = pawn.feet.y + params.pawn_height * 0.5;
        let depth = water.surface - middle;
        if depth > 0.0 {
            swim(params, rapier, no_bodies, controller, pawn, &water, depth);
            return None;
        }
    }

    // 3. Its own move: walking when grounded (an airborne pawn keeps its horizontal
    //    velocity), a jump press, gravity while airborne. A grounded pawn is not pushed into
    //    its ground: step 4 keeps it there.
    let input = pawn.input;
    pawn.input.jump = false;
    let [mx, mz] = input.move_local.to_array();
    let len = (mx * mx + mz * mz).sqrt();
    let scale = if len > 1.0 { 1.0 / len } else { 1.0 };
    let wish =
        (right_flat(pawn.yaw) * mx + forward_flat(pawn.yaw) * mz) * (scale * params.walk_speed);
    let was_grounded = pawn.grounded;
    let mut velocity = pawn.velocity;
    if was_grounded {
        velocity.x = wish.x;
        velocity.z = wish.z;
        velocity.y = if input.jump { params.jump_speed } else { 0.0 };
    }
    let standing = was_grounded && velocity.y <= 0.0;
    if !standing {
        velocity.y -= params.gravity * dt;
    }
    let desired = velocity * dt;
    let start = capsule_pose(params, pawn.feet);
    let local = Local::build(
        rapier,
        start.translation,
        reach(params, desired.length()),
        None,
    );
    let world = local.pipeline(dispatcher, no_bodies);
    let mut normals = Vec::new();
    let mut moved = controller
        .move_shape(dt, &world, &shape, &start, desired, |hit| {
            normals.push(hit.hit.normal1)
        })
        .translation;
    if standing {
        if let Some(stepped) = step_up(params, controller, &world, &shape, &start, desired, moved) {
            moved = stepped;
        }
    }
    pawn.feet += moved;
    for n in normals {
        if n.y < -0.7 {
            // A ceiling stops the rise.
            velocity.y = velocity.y.min(0.0);
        } else if n.y.abs() < 0.7 {
            // A wall takes the horizontal velocity into it.
            let h = Vector::new(n.x, 0.0, n.z).normalize_or_zero();
            let into = velocity.x * h.x + velocity.z * h.z;
            if into < 0.0 {
                velocity.x -= h.x * into;
                velocity.z -= h.z * into;
            }
        }
    }

    // 4. The ground. A pawn that stood and still stands within world.stepHeight of walkable
    //    ground follows it down (and up, onto the skin); a falling one lands once within the
    //    probe. Either way it rests exactly `skin` above the ground, twice the controller's
    //    gap, so its next move starts clear of the ground rather than on the boundary of the
    //    controller's gap, where shape casts are unreliable.
    pawn.grounded = false;
    pawn.support = None;
    if velocity.y <= 0.0 {
        let reach_down = if standing {
            params.step_height + params.skin
        } else {
            params.skin + GROUND_PROBE
        };
        if land(params, rapier, &world, &local, pawn, reach_down) {
            velocity.y = 0.0;
        }
    }
    pawn.velocity = velocity;

    // 5. Shoving: props the capsule walks into take its walking velocity, capped.
    let walked = Vector::new(moved.x, 0.0, moved.z) / dt;
    let speed = walked.length();
    let target = (speed * params.prop_push_response).min(params.prop_push_speed);
    if speed > 1.0e-4 && target > 0.0 {
        let dir = walked / speed;
        let reach = Capsule::new_y(
            params.pawn_height * 0.5 - params.pawn_radius,
            params.pawn_radius + params.skin + params.prop_push_reach,
        );
        let filter = QueryFilter::default().groups(pawn_prop_filter());
        let mut bodies: Vec<RigidBodyHandle> = rapier
            .intersect_shape(capsule_pose(params, pawn.feet), &reach, filter)
            .filter_map(|(_, co)| co.parent())
            .collect();
        bodies.sort_by_key(|h| h.into_raw_parts());
        bodies.dedup();
        if !bodies.is_empty() {
            return Some(Shove {
                dir,
                target,
                bodies,
            });
        }
    }
    None
}

/// The vertical speed buoyancy drives a swimmer toward, in m/s, `depth` meters under the
/// surface (at its middle): a medium denser than the pawn floats it, rising at the drift
/// while deeper than twice the float depth and easing to rest at the float depth (sinking
/// back to it from above); a lighter medium sinks it at the drift; one as dense holds it.
/// The drift is divided by the medium's viscosity.
pub(crate) fn buoyant_drift(water: &PawnWater, depth: f32) -> f32 {
    let s = &water.swim;
    let drift = s.drift / water.viscosity;
    if water.density > s.pawn_density {
        drift * ((depth - s.float_depth) / s.float_depth).clamp(-1.0, 1.0)
    } else if water.density < s.pawn_density {
        -drift
    } else {
        0.0
    }
}

/// A swimming pawn's move (spec `dh.voxel`, "Swimming": the medium's density decides
/// whether it sinks or floats; its viscosity multiplies the swim drag and divides the
/// stroke, the vertical stroke and the drift). Its velocity closes on the one it strokes
/// for at the drag, `v += (target - v)·(1 - e^(-drag·viscosity·dt))`: the stroke along
/// the view (looking down dives), level to the right, plus the buoyant drift
/// ([`buoyant_drift`]); no gravity. A jump press strokes it up at the vertical stroke at
/// once. It moves through the character controller, walls taking the velocity into them,
/// and a sinking swimmer stands on the floor it reaches. It shoves nothing.
fn swim(
    params: &PhysicsParams,
    rapier: &rapier3d::prelude::PhysicsWorld,
    no_bodies: &RigidBodySet,
    controller: &KinematicCharacterController,
    pawn: &mut Pawn,
    water: &PawnWater,
    depth: f32,
) {
    let dt = params.dt();
    let s = &water.swim;
    let viscosity = water.viscosity;
    let input = pawn.input;
    pawn.input.jump = false;
    let [mx, mz] = input.move_local.to_array();
    let len = (mx * mx + mz * mz).sqrt();
    let scale = if len > 1.0 { 1.0 / len } else { 1.0 };
    let stroke = (right_flat(pawn.yaw) * mx + view_direction(pawn.yaw, pawn.pitch) * mz)
        * (scale * s.stroke / viscosity);
    let target = stroke + Vector::Y * buoyant_drift(water, depth);
    let k = 1.0 - (-s.drag * viscosity * dt).exp();
    let mut velocity = pawn.velocity + (target - pawn.velocity) * k;
    if input.jump {
        velocity.y = velocity.y.max(s.vertical_stroke / viscosity);
    }

    let shape = collision_capsule(params);
    let dispatcher = rapier.narrow_phase.query_dispatcher();
    let desired = velocity * dt;
    let start = capsule_pose(params, pawn.feet);
    let local = Local::build(
        rapier,
        start.translation,
        reach(params, desired.length()),
        None,
    );
    let world = local.pipeline(dispatcher, no_bodies);
    let mut normals = Vec::new();
    let moved = controller
        .move_shape(dt, &world, &shape, &start, desired, |hit| {
            normals.push(hit.hit.normal1)
        })
        .translation;
    pawn.feet += moved;
    for n in normals {
        // Whatever it swims into takes the velocity into it.
        let into = velocity.dot(n);
        if into < 0.0 {
            velocity -= n * into;
        }
    }
    pawn.grounded = false;
    pawn.support = None;
    if velocity.y <= 0.0
        && land(
            params,
            rapier,
            &world,
            &local,
            pawn,
            params.skin + GROUND_PROBE,
        )
    {
        velocity.y = velocity.y.max(0.0);
    }
    pawn.velocity = velocity;
    pawn.swimming = true;
}
