//! Water and the props' surfaces: the map's own water bodies, the one water query pawns and
//! props ask, buoyancy, and the friction probe.
//!
//! * Water bodies (spec `dh.map` 000:209, 000:464, 000:539): a trigger collider's shapes, or
//!   a box, whose material has a `water` block are water; the host hands them here
//!   ([`PhysicsWorld::add_water_body`]) with their medium. They are not bodies: nothing
//!   collides with them. A point is in one when it is inside one of its shapes; the surface
//!   over it is the top of that shape straight above it. A mesh shape (a trigger part's own
//!   triangles, 000:209: "an imported water surface be water") is taken as a closed surface
//!   wound outward: a point is inside it by the triangles' angle-weighted pseudo-normals
//!   (parry's oriented trimesh), within its bounds, so a concave basin holds water only where
//!   its mesh does; an open or flat mesh holds none beyond its bounds.
//! * [`WaterQuery`] is the seam map water and voxel water answer alike (spec `dh.voxel`
//!   004:481: "one query"): the engine's voxel fluids implement it, and
//!   [`PhysicsWorld::step_with_water`] asks it wherever the map's own bodies hold no water.
//!   A pawn swims in a map body as it does in voxel water (the host's
//!   [`PhysicsWorld::set_pawn_water`] answer wins where it gives one).
//! * Buoyancy (000:1050): each awake prop is sampled at `world.water.samples` points on a ring
//!   around its box, spread `world.water.footprint` past it. Each point stands for an equal
//!   vertical slab of the body (its volume over the sample count, as tall as the box) and
//!   pushes up, at the point, with `density × slab volume × submersion × g`, where the
//!   submersion is the share of the slab under the surface. So a level body lighter than
//!   the water settles with the share `body density / water density` of its height under
//!   the surface, and a denser one sinks. While any point is wet the body takes
//!   `world.water.linearDamping` and `world.water.angularDamping` (the angular term scaled
//!   up by the roll rate over `world.water.maxRollRate` past it); dry, both are cleared.
//!   Its center of mass is dropped `world.water.centerOfMassDrop` of its box half-height
//!   when it is minted.
//! * Friction probe (000:1044, "Surface friction"): every tick, before the solver steps, a
//!   ray straight down from each awake prop's center, reaching `world.prop.groundProbe`
//!   past its lowest point, finds the surface under it; the prop's friction becomes
//!   `world.prop.friction` times that surface's grip, and the solver combines it with the
//!   surface's own (the average, as for any contact pair). Over nothing, a prop keeps its
//!   own surface's grip.
//!
//! The spec's wave surface is flat here: nothing displaces the water yet.

use std::f32::consts::TAU;

use rapier3d::math::{Pose as RPose, Vector};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::shape::TriMeshFlags;
use rapier3d::prelude::{Collider, ColliderHandle, QueryFilter, Ray, SharedShape};

use super::types::{BodyHandle, ColliderShape, PawnId, PhysicsError, Pose};
use super::voxel::PawnWater;
use super::world::{shared_shape, to_rapier, to_rb, PhysicsWorld};

/// Buoyancy's parameters (`world.water.*`, spec 000:1050). The spec names them; every
/// default but the sample count's is ours (the engine's preference table's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterParams {
    /// Sample points on a body's ring, 4 to 8 (`world.water.samples`, 8).
    pub samples: u32,
    /// How far past the box the ring spreads, meters (`world.water.footprint`, 0.1).
    pub footprint: f32,
    /// Linear damping while any point is wet (`world.water.linearDamping`, 1).
    pub linear_damping: f32,
    /// Angular damping while any point is wet (`world.water.angularDamping`, 1).
    pub angular_damping: f32,
    /// The roll rate past which the angular damping scales up, rad/s
    /// (`world.water.maxRollRate`, 3).
    pub max_roll_rate: f32,
    /// How far the center of mass is dropped when a prop is minted, as a share of its box's
    /// half-height (`world.water.centerOfMassDrop`, 0.5).
    pub center_of_mass_drop: f32,
}

impl Default for WaterParams {
    fn default() -> Self {
        WaterParams {
            samples: 8,
            footprint: 0.1,
            linear_damping: 1.0,
            angular_damping: 1.0,
            max_roll_rate: 3.0,
            center_of_mass_drop: 0.5,
        }
    }
}

impl WaterParams {
    /// Checks every parameter's range; the first one out of range is the error.
    pub fn validate(&self) -> Result<(), PhysicsError> {
        if !(4..=8).contains(&self.samples) {
            return Err(PhysicsError::InvalidParam {
                name: "water samples",
                value: self.samples as f32,
                expected: "a whole number from 4 to 8",
            });
        }
        let named = [
            ("water footprint", self.footprint, false, "at least 0"),
            (
                "water linear damping",
                self.linear_damping,
                false,
                "at least 0",
            ),
            (
                "water angular damping",
                self.angular_damping,
                false,
                "at least 0",
            ),
            ("water max roll rate", self.max_roll_rate, true, "above 0"),
        ];
        for (name, value, open, expected) in named {
            let ok = value.is_finite() && if open { value > 0.0 } else { value >= 0.0 };
            if !ok {
                return Err(PhysicsError::InvalidParam {
                    name,
                    value,
                    expected,
                });
            }
        }
        let d = self.center_of_mass_drop;
        if !(d.is_finite() && (0.0..=1.0).contains(&d)) {
            return Err(PhysicsError::InvalidParam {
                name: "water center of mass drop",
                value: d,
                expected: "between 0 and 1",
            });
        }
        Ok(())
    }
}

/// What a body of water is made of: a material's `water` block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterMedium {
    /// Density in kg/m³ (the `water` block's `density`, default 1000).
    pub density: f32,
    /// Viscosity (its `viscosity`, default 1): multiplies the swim drag, divides the stroke.
    pub viscosity: f32,
}

impl Default for WaterMedium {
    /// Water: the `water` block's defaults (content's `dh.material water`).
    fn default() -> Self {
        WaterMedium {
            density: 1000.0,
            viscosity: 1.0,
        }
    }
}

/// The water at a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterAt {
    /// The height of the surface over the point, in world meters.
    pub surface: f32,
    /// What the water is.
    pub medium: WaterMedium,
}

/// The world's water, asked at a point: `None` where the point is dry. The map's own water
/// bodies and the engine's voxel fluids answer through it alike.
pub trait WaterQuery {
    /// The water at world point `point`, or `None`.
    fn water_at(&self, point: Vector) -> Option<WaterAt>;
}

/// A world with no water besides the map's own bodies.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoWater;

impl WaterQuery for NoWater {
    fn water_at(&self, _point: Vector) -> Option<WaterAt> {
        None
    }
}

/// A water body in the physics world, as [`PhysicsWorld::add_water_body`] hands it out.
/// Handles are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WaterHandle(pub(crate) u32);

impl std::fmt::Display for WaterHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "water body #{}", self.0)
    }
}

/// One water body: its shapes where they stand, and its medium.
pub(crate) struct WaterBody {
    shapes: Vec<(RPose, SharedShape, Aabb)>,
    medium: WaterMedium,
}

/// What the buoyancy and the friction probe need of a prop, fixed when it is minted.
#[derive(Debug, Clone)]
pub(crate) struct Prop {
    /// Its colliders.
    pub(crate) colliders: Vec<ColliderHandle>,
    /// Its own surface's grip (its first shape's).
    pub(crate) own_grip: f32,
    /// The center of its shapes' bounds, in the body's frame.
    pub(crate) center: Vector,
    /// Their half extents, in the body's frame.
    pub(crate) half: Vector,
    /// The body's volume, m³.
    pub(crate) volume: f32,
}

/// The grip a collider was made with (kept in its user data: the friction probe re-tunes
/// a prop's friction, never what it stands on for the others).
pub(crate) fn grip_data(grip: f32) -> u128 {
    u128::from(grip.to_bits())
}

fn grip_of(co: &Collider) -> f32 {
    // Every collider of this world is made with its grip's bits (`grip_data`).
    f32::from_bits(co.user_data as u32)
}

/// A prop's mass properties: `mass` spread over its shapes by volume, the center of mass
/// dropped `drop` of the half-height `half_y` (spec 000:1050).
pub(crate) fn prop_mass_properties(
    shapes: &[(RPose, SharedShape)],
    mass: f32,
    volume: f32,
    drop: f32,
    half_y: f32,
) -> MassProperties {
    let density = mass / volume;
    let mut mp = MassProperties::default();
    for (local, shape) in shapes {
        mp += shape.mass_properties(density).transform_by(local);
    }
    mp.local_com.y -= drop * half_y;
    mp
}

/// The bounds of shapes in the body's frame: their center and half extents.
pub(crate) fn local_bounds(shapes: &[(RPose, SharedShape)]) -> (Vector, Vector) {
    let mut it = shapes.iter().map(|(local, s)| s.compute_aabb(local));
    let first = it
        .next()
        .unwrap_or_else(|| Aabb::new(Vector::ZERO, Vector::ZERO));
    let all = it.fold(first, |a, b| a.merged(&b));
    (all.center(), all.half_extents())
}

/// A water body's shape: as a collider's, but a mesh is an oriented trimesh (its vertices
/// merged and its pseudo-normals computed), which is what answers "is this point inside".
fn water_shape(shape: &ColliderShape) -> Result<SharedShape, PhysicsError> {
    let ColliderShape::Mesh { vertices, indices } = shape else {
        return shared_shape(shape);
    };
    // The collider path checks every vertex and index first.
    shared_shape(shape)?;
    SharedShape::trimesh_with_flags(
        vertices.clone(),
        indices.clone(),
        TriMeshFlags::ORIENTED | TriMeshFlags::MERGE_DUPLICATE_VERTICES,
    )
    .map_err(|e| PhysicsError::InvalidMesh(e.to_string()))
}

impl PhysicsWorld {
    // ── Water bodies ─────────────────────────────────────────────────────

    /// Adds a water body at `pose` made of `shapes` (each in the owner's frame: a trigger
    /// collider's shapes, or a box's), of `medium`. Nothing collides with it; pawns swim in
    /// it and props float in it from the next step. A mesh shape is a closed surface wound
    /// outward (see the module's docs). Refused when a shape is out of range (a mesh with no
    /// triangles, a vertex that is not finite or an index past its vertices included), or
    /// the medium is not above zero.
    pub fn add_water_body(
        &mut self,
        pose: Pose,
        shapes: &[(Pose, ColliderShape)],
        medium: WaterMedium,
    ) -> Result<WaterHandle, PhysicsError> {
        let at = to_rapier(&pose, "a water body's pose")?;
        for (name, value) in [
            ("water density", medium.density),
            ("water viscosity", medium.viscosity),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(PhysicsError::InvalidParam {
                    name,
                    value,
                    expected: "above 0",
                });
            }
        }
        if shapes.is_empty() {
            return Err(PhysicsError::NoShapes);
        }
        let mut built = Vec::with_capacity(shapes.len());
        for (local, shape) in shapes {
            let world = at * to_rapier(local, "a water shape's pose")?;
            let s = water_shape(shape)?;
            let aabb = s.compute_aabb(&world);
            built.push((world, s, aabb));
        }
        let handle = WaterHandle(self.next_water);
        self.next_water += 1;
        self.water_bodies.insert(
            handle,
            WaterBody {
                shapes: built,
                medium,
            },
        );
        Ok(handle)
    }

    /// Takes a water body out (its owner switched off).
    pub fn remove_water_body(&mut self, handle: WaterHandle) -> Result<(), PhysicsError> {
        self.water_bodies
            .remove(&handle)
            .map(|_| ())
            .ok_or(PhysicsError::UnknownWater(handle))
    }

    /// How many water bodies the world holds.
    pub fn water_body_count(&self) -> usize {
        self.water_bodies.len()
    }

    /// The map's own water at `point`: the first body (in the order they were added) with a
    /// shape holding the point, and the top of that shape straight over it.
    pub fn map_water_at(&self, point: Vector) -> Option<WaterAt> {
        if !point.is_finite() {
            return None;
        }
        for body in self.water_bodies.values() {
            for (pose, shape, aabb) in &body.shapes {
                if !aabb.contains_local_point(point) || !shape.contains_point(pose, point) {
                    continue;
                }
                let top = aabb.maxs.y + 1.0;
                let ray = Ray::new(Vector::new(point.x, top, point.z), -Vector::Y);
                let surface = match shape.cast_ray(pose, &ray, top - point.y, true) {
                    Some(toi) => top - toi,
                    // Inside, so the ray down to it crosses the top; a miss is rounding at a
                    // face, where the top of the bounds stands for it.
                    None => aabb.maxs.y,
                };
                return Some(WaterAt {
                    surface,
                    medium: body.medium,
                });
            }
        }
        None
    }

    /// The water pawn `id` swims in from the map's own bodies, at its middle as the last
    /// step left it (`None`: dry, or no such pawn).
    pub fn pawn_map_water(&self, id: PawnId) -> Option<WaterAt> {
        let pawn = self.pawns.get(&id)?;
        self.map_water_at(pawn.feet + Vector::Y * (self.params.pawn_height * 0.5))
    }

    /// Each pawn's water from the map's bodies, at its middle, before the pawns move.
    pub(crate) fn update_pawn_map_water(&mut self) {
        let half = self.params.pawn_height * 0.5;
        let swim = self.params.swim;
        let found: Vec<Option<PawnWater>> = self
            .pawns
            .values()
            .map(|p| {
                if self.water_bodies.is_empty() {
                    return None;
                }
                self.map_water_at(p.feet + Vector::Y * half)
                    .map(|w| PawnWater {
                        surface: w.surface,
                        density: w.medium.density,
                        viscosity: w.medium.viscosity,
                        swim,
                    })
            })
            .collect();
        for (pawn, w) in self.pawns.values_mut().zip(found) {
            pawn.map_water = w;
        }
    }

    // ── Props ────────────────────────────────────────────────────────────

    /// Sets a prop's linear velocity in m/s (a push), waking it. Refused for a body that
    /// is not a prop.
    pub fn set_body_velocity(
        &mut self,
        handle: BodyHandle,
        velocity: Vector,
    ) -> Result<(), PhysicsError> {
        if !velocity.is_finite() {
            return Err(PhysicsError::NonFinite {
                what: "a body's velocity",
                kind: "vector",
            });
        }
        if !self.props.contains_key(&handle) {
            return Err(PhysicsError::NotDynamic(handle));
        }
        let rb = self
            .rapier
            .bodies
            .get_mut(to_rb(handle))
            .ok_or(PhysicsError::UnknownBody(handle))?;
        rb.set_linvel(velocity, true);
        Ok(())
    }

    /// A prop's friction coefficient now (what the probe last tuned it to).
    pub fn body_friction(&self, handle: BodyHandle) -> Result<f32, PhysicsError> {
        let prop = self
            .props
            .get(&handle)
            .ok_or(PhysicsError::NotDynamic(handle))?;
        prop.colliders
            .first()
            .and_then(|&c| self.rapier.colliders.get(c))
            .map(|co| co.friction())
            .ok_or(PhysicsError::UnknownBody(handle))
    }

    /// Whether a prop is wet: any of its buoyancy points was under water at the last step.
    pub fn body_wet(&self, handle: BodyHandle) -> Result<bool, PhysicsError> {
        if !self.props.contains_key(&handle) {
            return Err(PhysicsError::NotDynamic(handle));
        }
        Ok(self.wet.contains(&handle))
    }

    /// The friction probe: each awake prop's friction re-tuned from the surface under it.
    pub(crate) fn probe_friction(&mut self) {
        let k = self.params.prop_friction;
        let reach = self.params.prop_ground_probe;
        let mut tuned: Vec<(usize, f32)> = Vec::new();
        for (i, (&h, prop)) in self.props.iter().enumerate() {
            let rbh = to_rb(h);
            let Some(rb) = self.rapier.bodies.get(rbh) else {
                continue;
            };
            if rb.is_sleeping() {
                continue;
            }
            let center = rb.position().transform_point(prop.center);
            let bottom = prop
                .colliders
                .iter()
                .filter_map(|&c| self.rapier.colliders.get(c))
                .map(|co| co.compute_aabb().mins.y)
                .fold(center.y, f32::min);
            let ray = Ray::new(center, -Vector::Y);
            let filter = QueryFilter::default().exclude_rigid_body(rbh);
            let hit = self
                .rapier
                .cast_ray(&ray, center.y - bottom + reach, true, filter);
            let friction = match hit.and_then(|(c, _)| self.rapier.colliders.get(c)) {
                Some(co) => k * grip_of(co),
                None => prop.own_grip,
            };
            tuned.push((i, friction));
        }
        let handles: Vec<Vec<ColliderHandle>> =
            self.props.values().map(|p| p.colliders.clone()).collect();
        for (i, friction) in tuned {
            for &c in &handles[i] {
                if let Some(co) = self.rapier.colliders.get_mut(c) {
                    if co.friction() != friction {
                        co.set_friction(friction);
                    }
                }
            }
        }
    }

    /// Buoyancy: each prop's ring of points asked for water (the map's bodies, else
    /// `external`), the wet ones pushing up, and the water's damping on or off.
    pub(crate) fn apply_buoyancy(&mut self, external: &(impl WaterQuery + ?Sized)) {
        let w = self.params.water;
        let g = self.params.gravity;
        let dt = self.params.dt();
        let n = w.samples.clamp(4, 8);
        let mut updates: Vec<(BodyHandle, Vec<(Vector, Vector)>)> = Vec::new();
        for (&h, prop) in &self.props {
            let Some(rb) = self.rapier.bodies.get(to_rb(h)) else {
                continue;
            };
            // A sleeping prop is dry: a wet one is pushed, so woken, every tick.
            if rb.is_sleeping() {
                continue;
            }
            let pose = *rb.position();
            let hy = prop.half.y.max(1.0e-4);
            let slab = prop.volume / n as f32;
            let mut pushes = Vec::new();
            for k in 0..n {
                let theta = TAU * k as f32 / n as f32;
                let local = prop.center
                    + Vector::new(
                        theta.cos() * (prop.half.x + w.footprint),
                        0.0,
                        theta.sin() * (prop.half.z + w.footprint),
                    );
                let point = pose.transform_point(local);
                // The slab's bottom asks: a point over the surface is dry.
                let bottom = point - Vector::Y * hy;
                let Some(water) = self
                    .map_water_at(bottom)
                    .or_else(|| external.water_at(bottom))
                else {
                    continue;
                };
                let submersion = ((water.surface - bottom.y) / (2.0 * hy)).clamp(0.0, 1.0);
                if submersion <= 0.0 {
                    continue;
                }
                let lift = water.medium.density * slab * submersion * g * dt;
                pushes.push((point, Vector::Y * lift));
            }
            updates.push((h, pushes));
        }
        for (h, pushes) in updates {
            let Some(rb) = self.rapier.bodies.get_mut(to_rb(h)) else {
                continue;
            };
            let wet = !pushes.is_empty();
            // Impulses at the start of the step, not forces: a force the solver spreads
            // over its substeps lags the pose it was measured at, which feeds a floating
            // body's roll faster than the water's damping takes it out.
            for (point, impulse) in pushes {
                rb.apply_impulse_at_point(impulse, point, true);
            }
            if wet {
                let roll = rb.angvel().length();
                let scale = if roll > w.max_roll_rate {
                    roll / w.max_roll_rate
                } else {
                    1.0
                };
                rb.set_linear_damping(w.linear_damping);
                rb.set_angular_damping(w.angular_damping * scale);
                self.wet.insert(h);
            } else if self.wet.remove(&h) {
                // Dry: cleared, so it falls as an untouched body does.
                rb.set_linear_damping(0.0);
                rb.set_angular_damping(0.0);
            }
        }
    }

    /// Records a minted prop.
    pub(crate) fn note_prop(&mut self, handle: BodyHandle, prop: Prop) {
        self.props.insert(handle, prop);
    }

    /// Forgets a removed body's prop record.
    pub(crate) fn forget_prop(&mut self, handle: BodyHandle) {
        self.props.remove(&handle);
        self.wet.remove(&handle);
    }
}
