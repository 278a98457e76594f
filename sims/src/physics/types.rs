//! The plain types at the physics boundary: poses, handles, shapes, parameters, pawn state
//! and the error type, on glam's [`Vec3`] and [`Quat`] (rapier's own math types, so nothing
//! is converted on the way in or out). Nothing here names a rapier type.

use std::fmt;

use glam::{Quat, Vec2, Vec3};

use super::voxel::SwimParams;
use super::water::WaterParams;

/// A rigid pose: a position in meters and a unit quaternion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// World (or owner-frame) position in meters.
    pub position: Vec3,
    /// Orientation; normalized when read.
    pub rotation: Quat,
}

impl Pose {
    /// The identity pose: at the origin, unrotated.
    pub const IDENTITY: Pose = Pose {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// A pose from a position and a rotation.
    pub fn new(position: Vec3, rotation: Quat) -> Pose {
        Pose { position, rotation }
    }

    /// An unrotated pose at `position`.
    pub fn from_position(position: Vec3) -> Pose {
        Pose {
            position,
            rotation: Quat::IDENTITY,
        }
    }

    /// A pose at `position` turned by `yaw_degrees` about +Y (yaw 0 faces -Z, yaw 90 faces -X).
    pub fn from_position_yaw(position: Vec3, yaw_degrees: f32) -> Pose {
        Pose {
            position,
            rotation: Quat::from_rotation_y(yaw_degrees.to_radians()),
        }
    }
}

impl From<&crate::math::Pose> for Pose {
    /// A simulation pose's position and rotation (its scale is the shapes' business: the
    /// host scales them before they get here).
    fn from(pose: &crate::math::Pose) -> Pose {
        Pose::new(pose.position, pose.rotation)
    }
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

/// A body in the physics world: what `add_*` returns and what a Use ray reports. The logic
/// runtime maps it back to its entity. Handles of removed bodies are never handed out again
/// for a live body (the generation changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BodyHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl BodyHandle {
    /// The body's slot number (what a log names it by, `body #12`); a slot freed by a
    /// removed body is reused by a later one, under another generation.
    pub fn index(&self) -> u32 {
        self.index
    }
}

impl fmt::Display for BodyHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "body #{}.{}", self.index, self.generation)
    }
}

/// A player pawn: the crate's one pawn id (ids count up from 1 in spawn order and are never
/// reused, so id order is spawn order).
pub use crate::PawnId;

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyKind {
    /// Never moves: the map's static colliders, a button's body.
    Static,
    /// Moved by the carry each tick through [`super::PhysicsWorld::set_kinematic_target`],
    /// with a real velocity: movers and everything they carry.
    Kinematic,
    /// The solver's alone: a `dh.physicsProp`. `mass` in kilograms (at least 0.001).
    Dynamic {
        /// The body's mass in kilograms.
        mass: f32,
    },
}

/// The geometry of one collider shape, in its own frame (see [`ShapeSpec::local`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ColliderShape {
    /// A box by its half extents (a collider box's `halfExtents`).
    Box {
        /// Half the box's extents on each axis, every axis above zero.
        half_extents: Vec3,
    },
    /// A sphere.
    Sphere {
        /// Radius in meters, above zero.
        radius: f32,
    },
    /// A capsule along its local Y: a cylinder capped by two hemispheres.
    Capsule {
        /// Radius in meters, above zero.
        radius: f32,
        /// Full height, cap tip to cap tip, at least twice the radius.
        height: f32,
    },
    /// The convex hull of a point cloud (a `hull` shape's points; at least four, not flat).
    Hull {
        /// The points, in the shape's frame.
        points: Vec<Vec3>,
    },
    /// A triangle mesh (a `mesh` shape's cooked triangles). Static and kinematic bodies only.
    Mesh {
        /// Vertex positions, in the shape's frame.
        vertices: Vec<Vec3>,
        /// Triangles as indices into `vertices`.
        indices: Vec<[u32; 3]>,
    },
}

impl ColliderShape {
    /// The shape's name as the spec spells it, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            ColliderShape::Box { .. } => "box",
            ColliderShape::Sphere { .. } => "sphere",
            ColliderShape::Capsule { .. } => "capsule",
            ColliderShape::Hull { .. } => "hull",
            ColliderShape::Mesh { .. } => "mesh",
        }
    }
}

/// One shape of a body: where it sits in the body's frame, what it is and how it grips.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeSpec {
    /// The shape's pose in the body's frame (a shape's `center` and `rotation`).
    pub local: Pose,
    /// The geometry.
    pub shape: ColliderShape,
    /// The surface's grip: the friction coefficient (a surface block's `grip`). Two touching
    /// bodies combine their grips the way the solver combines any contact pair (the average).
    pub grip: f32,
}

impl ShapeSpec {
    /// A shape centered on its body, unrotated.
    pub fn centered(shape: ColliderShape, grip: f32) -> ShapeSpec {
        ShapeSpec {
            local: Pose::IDENTITY,
            shape,
            grip,
        }
    }
}

/// The world's physics parameters. Names in brackets are the spec's preferences; the rest are
/// ours (the spec names no preference for them) and documented with their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhysicsParams {
    /// Fixed ticks a second (`world.tickRate`, 64). One [`super::PhysicsWorld::step`] is one tick.
    pub tick_rate: f32,
    /// The highest ledge a pawn walks up, and down, at full speed (`world.stepHeight`, 0.5 m).
    pub step_height: f32,
    /// Downward acceleration in m/s² for pawns and props ("the world's gravity"; 9.81).
    pub gravity: f32,
    /// The pawn capsule's radius in meters (0.3).
    pub pawn_radius: f32,
    /// The pawn capsule's full height, feet to crown, in meters (1.8).
    pub pawn_height: f32,
    /// The eye's height above the feet in meters: where a Use ray starts (1.6).
    pub eye_height: f32,
    /// Walking speed in m/s (4.0).
    pub walk_speed: f32,
    /// The upward speed a jump starts with, in m/s (4.5: a jump about 1 m high).
    pub jump_speed: f32,
    /// The steepest slope a pawn walks up, in degrees (45).
    pub max_slope_degrees: f32,
    /// The gap the character controller keeps between a pawn and the world, in meters (0.01).
    /// A standing pawn's capsule floats this far above the floor; its feet are reported on it.
    pub skin: f32,
    /// The fastest a pawn's shove drives a prop, in m/s (`world.prop.pushSpeed`; ours: 5, above the walking
    /// speed so a walking pawn never passes through a crate).
    pub prop_push_speed: f32,
    /// The share of the pawn's walking speed a shove passes on, 0 to 1
    /// (`world.prop.pushResponse`; ours: 1).
    pub prop_push_response: f32,
    /// How far past the capsule a prop still counts as touched, in meters
    /// (`world.prop.pushReach`; ours: 0.05).
    pub prop_push_reach: f32,
    /// The multiplier on the grip a prop takes from the surface under it
    /// (`world.prop.friction`; ours: 1). Spec `dh.map` "Surface friction" (000:1044): each
    /// tick the prop's friction is re-tuned to this times the probed surface's grip.
    pub prop_friction: f32,
    /// How far under a prop's lowest point the surface probe reaches, in meters
    /// (`world.prop.groundProbe`; ours: 0.1).
    pub prop_ground_probe: f32,
    /// Buoyancy (`world.water.*`, spec 000:1050).
    pub water: WaterParams,
    /// Swimming in the map's own water bodies (`world.swim.*`).
    pub swim: SwimParams,
}

impl Default for PhysicsParams {
    fn default() -> Self {
        PhysicsParams {
            tick_rate: 64.0,
            step_height: 0.5,
            gravity: 9.81,
            pawn_radius: 0.3,
            pawn_height: 1.8,
            eye_height: 1.6,
            walk_speed: 4.0,
            jump_speed: 4.5,
            max_slope_degrees: 45.0,
            skin: 0.01,
            prop_push_speed: 5.0,
            prop_push_response: 1.0,
            prop_push_reach: 0.05,
            prop_friction: 1.0,
            prop_ground_probe: 0.1,
            water: WaterParams::default(),
            swim: SwimParams::default(),
        }
    }
}

impl PhysicsParams {
    /// Seconds per tick.
    pub fn dt(&self) -> f32 {
        1.0 / self.tick_rate
    }

    /// Checks every parameter's range; the first one out of range is the error.
    pub fn validate(&self) -> Result<(), PhysicsError> {
        fn check(
            name: &'static str,
            value: f32,
            ok: bool,
            expected: &'static str,
        ) -> Result<(), PhysicsError> {
            if value.is_finite() && ok {
                Ok(())
            } else {
                Err(PhysicsError::InvalidParam {
                    name,
                    value,
                    expected,
                })
            }
        }
        let p = self;
        check("tick rate", p.tick_rate, p.tick_rate > 0.0, "above 0")?;
        check("gravity", p.gravity, p.gravity >= 0.0, "at least 0")?;
        check("pawn radius", p.pawn_radius, p.pawn_radius > 0.0, "above 0")?;
        check(
            "pawn height",
            p.pawn_height,
            p.pawn_height > 2.0 * p.pawn_radius,
            "above twice the pawn radius",
        )?;
        check(
            "step height",
            p.step_height,
            p.step_height >= 0.0 && p.step_height < p.pawn_height,
            "at least 0 and below the pawn height",
        )?;
        check(
            "eye height",
            p.eye_height,
            p.eye_height >= 0.0 && p.eye_height <= p.pawn_height,
            "between 0 and the pawn height",
        )?;
        check(
            "walk speed",
            p.walk_speed,
            p.walk_speed >= 0.0,
            "at least 0",
        )?;
        check(
            "jump speed",
            p.jump_speed,
            p.jump_speed >= 0.0,
            "at least 0",
        )?;
        check(
            "max slope",
            p.max_slope_degrees,
            p.max_slope_degrees > 0.0 && p.max_slope_degrees < 90.0,
            "between 0 and 90 degrees",
        )?;
        check(
            "skin",
            p.skin,
            p.skin > 0.0 && p.skin < p.pawn_radius,
            "above 0 and below the pawn radius",
        )?;
        check(
            "prop push speed",
            p.prop_push_speed,
            p.prop_push_speed >= 0.0,
            "at least 0",
        )?;
        check(
            "prop push response",
            p.prop_push_response,
            (0.0..=1.0).contains(&p.prop_push_response),
            "between 0 and 1",
        )?;
        check(
            "prop push reach",
            p.prop_push_reach,
            p.prop_push_reach >= 0.0,
            "at least 0",
        )?;
        check(
            "prop friction",
            p.prop_friction,
            p.prop_friction >= 0.0,
            "at least 0",
        )?;
        check(
            "prop ground probe",
            p.prop_ground_probe,
            p.prop_ground_probe >= 0.0,
            "at least 0",
        )?;
        p.water.validate()?;
        let s = &p.swim;
        for (name, value, open) in [
            ("swim drag", s.drag, false),
            ("swim stroke", s.stroke, false),
            ("swim vertical stroke", s.vertical_stroke, false),
            ("swim drift", s.drift, false),
            ("pawn density", s.pawn_density, true),
            ("float depth", s.float_depth, true),
        ] {
            let ok = if open { value > 0.0 } else { value >= 0.0 };
            check(name, value, ok, if open { "above 0" } else { "at least 0" })?;
        }
        Ok(())
    }
}

/// What a pawn is asked to do, held from tick to tick until set again.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PawnInput {
    /// The wished walk in the pawn's own frame, `[right, forward]`; a length above 1 is
    /// scaled down to 1 (walking speed).
    pub move_local: Vec2,
    /// The facing in degrees about +Y (0 faces -Z, 90 faces -X).
    pub yaw: f32,
    /// The view's pitch in degrees, positive looking up; clamped to [-90, 90].
    pub pitch: f32,
    /// A jump press: taken by the next tick (a grounded pawn jumps) and then cleared.
    pub jump: bool,
}

/// A pawn as the simulation sees it after the last tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PawnState {
    /// The feet: the bottom of the capsule, less the controller's skin, in meters.
    pub feet: Vec3,
    /// The pawn's own velocity in m/s, without the velocity of what it stands on (Source's
    /// base velocity is added for the move and taken back off).
    pub velocity: Vec3,
    /// Facing in degrees about +Y, normalized to (-180, 180].
    pub yaw: f32,
    /// View pitch in degrees, positive up.
    pub pitch: f32,
    /// Whether it stood on something at the end of the tick.
    pub grounded: bool,
    /// The body it stands on, when grounded on one.
    pub ground: Option<BodyHandle>,
    /// Whether it flies through everything (`noclip`).
    pub noclip: bool,
}

/// What a teleport does to the subject's velocity (`dh.teleport`'s `velocity`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TeleportVelocity {
    /// Leaves the velocity as it is in world space.
    Keep,
    /// Stops it.
    Zero,
    /// Turns it by the frame change.
    Turn(Quat),
}

/// Where a ray from a pawn's eye stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The body hit.
    pub body: BodyHandle,
    /// Meters from the eye.
    pub distance: f32,
    /// The world point hit.
    pub point: Vec3,
}

/// A ray: an origin and a unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EyeRay {
    /// Where it starts, in meters.
    pub origin: Vec3,
    /// Its unit direction.
    pub direction: Vec3,
}

/// Everything the physics world refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhysicsError {
    /// A parameter out of its range.
    #[error("physics parameter '{name}' is {value}, but it must be {expected}")]
    InvalidParam {
        /// Which parameter.
        name: &'static str,
        /// The value given.
        value: f32,
        /// The range it must fall in.
        expected: &'static str,
    },
    /// A pose, vector or quaternion with a NaN or infinite component, or a zero quaternion.
    #[error("{what} is not a finite {kind}")]
    NonFinite {
        /// What was given.
        what: &'static str,
        /// "pose", "vector", "quaternion", ...
        kind: &'static str,
    },
    /// A shape whose dimensions are out of range.
    #[error("a {shape} shape {reason}")]
    InvalidShape {
        /// The shape's type name.
        shape: &'static str,
        /// What is wrong, as a sentence tail.
        reason: String,
    },
    /// Hull points that span no volume.
    #[error("a hull shape's {count} points span no volume, so they have no convex hull")]
    DegenerateHull {
        /// How many points were given.
        count: usize,
    },
    /// A triangle mesh the solver refuses.
    #[error("a mesh shape is refused: {0}")]
    InvalidMesh(String),
    /// A body with no shapes.
    #[error("a body needs at least one shape")]
    NoShapes,
    /// A dynamic body's mass below the minimum.
    #[error("a physics prop's mass must be at least 0.001 kg, got {0}")]
    InvalidMass(f32),
    /// A dynamic body given a shape with no volume.
    #[error("a physics prop cannot take a mesh shape: it has no volume to weigh")]
    DynamicMesh,
    /// A body handle that names no live body.
    #[error("no such body: {0}")]
    UnknownBody(BodyHandle),
    /// A kinematic target for a body that is not kinematic.
    #[error("{0} is not kinematic, so it has no target to move to")]
    NotKinematic(BodyHandle),
    /// A pawn id that names no live pawn.
    #[error("no such pawn: {0}")]
    UnknownPawn(PawnId),
    /// A water handle that names no live water body.
    #[error("no such water body: {0}")]
    UnknownWater(super::water::WaterHandle),
    /// A prop's request for a body that is not a prop.
    #[error("{0} is not a physics prop")]
    NotDynamic(BodyHandle),
}

/// Normalizes an angle in degrees to (-180, 180].
pub fn normalize_degrees(angle: f32) -> f32 {
    let r = angle.rem_euclid(360.0);
    if r > 180.0 {
        r - 360.0
    } else {
        r
    }
}
