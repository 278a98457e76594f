//! The runtime form of every map record and every `dh.*` component: one flat hecs component
//! type each, with references resolved to barcodes, material names resolved to slots
//! ([`MaterialSlot`]), sRGB colors linearized and defaults applied, so nothing downstream
//! reads the source schema again.
//!
//! Identity and hierarchy: [`RecordId`], [`RecordIndex`] (author order), [`Name`],
//! [`Parent`], [`LocalTransform`] (the authored pose) and [`WorldTransform`] (the authored
//! pose carried by every mover above, written each tick by the carry resolver). A logic
//! node is an entity carrying [`LogicNode`]; its live state lives in its components
//! (a [`Mover`]'s [`MoverState`], a [`Light`]'s switch, a [`Trigger`]'s touchers).

use dh_content::jsonc::Value;
use dh_content::schema::common::Guid;
use dh_content::schema::components::geometry::{ColliderState, PhysicsSim};
use dh_content::schema::components::light::{Falloff, LightKind, LightMode};
use dh_content::schema::components::logic::{Facing, TeleportVelocity, TouchedBy};
use dh_content::schema::components::probes::{ProbeContents, ReflectionProjection};
use dh_content::schema::components::view::{CameraRole, Projection};
use dh_content::schema::components::voxel_volume::VoxelLighting;

use crate::logic::Wire;
use crate::math::{DVec3, Pose, Quat, Vec3};
use crate::PawnId;

// ---- Identity and hierarchy ----------------------------------------------------------------

/// The record's stable id, as authored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordId(pub Guid);

/// The record's place in the map's `objects` list: author order, the order every pass that
/// must be deterministic walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordIndex(pub u32);

/// The record's `name` (absent when it writes none or an empty one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name(pub String);

/// The record this one is filed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parent(pub hecs::Entity);

/// The record's authored pose. Positions are authored world poses: a parented record is
/// written where it stands, and its parents only carry it (see [`WorldTransform`]). A
/// folder's is the identity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalTransform(pub Pose);

/// Where the record stands this tick: its authored pose carried by every mover above it
/// (and by its own mover), composed by the one carry resolver. A physics prop and a light
/// probe volume that is not `dynamic` keep their authored pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldTransform(pub Pose);

/// A record switched off (`"enabled": false`): not drawn, not solid, and its logic node,
/// if it has one, absent (a call naming it does nothing and logs nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disabled;

/// A record out of the world: [`Disabled`] itself, or filed under a record that is (by any
/// path). Kept by the install and by every switch; the per-tick passes skip these, and the
/// host takes their bodies out of the physics world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfWorld;

/// What kind of record an entity was installed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// `folder`: a label with no transform.
    Folder,
    /// `object`.
    Object,
    /// `boxBrush`: an object holding a `dh.box`, written as sugar.
    BoxBrush,
    /// `instance` of a `dh.object` (or avatar).
    ObjectInstance,
    /// `instance` of a model: map geometry, never a logic node.
    ModelInstance,
}

/// An object placement: what it places (a barcode when the install knew the map's pallet,
/// else the source as written). Its root's components are installed on the same entity.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectInstance {
    /// The placed object.
    pub source: String,
    /// The root components the simulation has no runtime form for (`dh.renderer`,
    /// `dh.skeleton`, ...), merged and kept as JSON for the systems that read them.
    pub other_components: Vec<Value>,
}

/// A model placement (the map's world or another model): its parts are map geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInstance {
    /// The model (a barcode when the install knew the map's pallet).
    pub source: String,
    /// How many part entries the compiler wrote into it.
    pub part_count: usize,
}

/// A component the build does not know, kept whole as its JSON (spec: an unknown
/// component still loads).
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownComponents(pub Vec<Value>);

/// An index into the installed map's material table ([`crate::MaterialTable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialSlot(pub u16);

// ---- Geometry ------------------------------------------------------------------------------

/// `dh.box`: a solid box in its owner's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DhBox {
    /// Full extents in meters, before the owner's scale.
    pub size: Vec3,
    /// The material its faces wear (a fixture's lit look).
    pub material: MaterialSlot,
}

/// `dh.bake`'s emission block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BakeEmission {
    /// Linear color; `None` takes the material's emissive color.
    pub color: Option<Vec3>,
    /// Linear intensity; `None` takes the material's.
    pub intensity: Option<f32>,
    /// Shadow rays per sample; `None` takes the map's.
    pub samples: Option<u32>,
}

/// `dh.bake`: how the owner takes part in the lightmap bake (static).
#[derive(Debug, Clone, PartialEq)]
pub struct Bake {
    /// Makes the owner light the bake.
    pub emission: Option<BakeEmission>,
    /// Texel density multiple (1 by default).
    pub lightmap_scale: f32,
    /// The bake zone's id.
    pub zone: Option<String>,
}

/// One shape of a [`Collider`], in the owner's frame (before its scale).
#[derive(Debug, Clone, PartialEq)]
pub enum ColliderShape {
    /// An oriented box.
    Box {
        /// Center.
        center: Vec3,
        /// Orientation.
        rotation: Quat,
        /// Half extents.
        half_extents: Vec3,
        /// The shape's own surface, if it names one.
        material: Option<MaterialSlot>,
    },
    /// A sphere.
    Sphere {
        /// Center.
        center: Vec3,
        /// Radius.
        radius: f32,
        /// The shape's own surface.
        material: Option<MaterialSlot>,
    },
    /// A capsule along its local Y.
    Capsule {
        /// Center.
        center: Vec3,
        /// Orientation.
        rotation: Quat,
        /// Radius.
        radius: f32,
        /// Full height, tip to tip.
        height: f32,
        /// The shape's own surface.
        material: Option<MaterialSlot>,
    },
    /// The convex hull of points.
    Hull {
        /// The points.
        points: Vec<Vec3>,
        /// The shape's own surface.
        material: Option<MaterialSlot>,
    },
    /// Cooked triangles, keyed by the part's scene id and this shape's index.
    Mesh {
        /// The shape's index in its collider.
        index: u32,
        /// The shape's own surface.
        material: Option<MaterialSlot>,
    },
}

impl ColliderShape {
    /// The shape's own surface, if it names one.
    pub fn material(&self) -> Option<MaterialSlot> {
        match self {
            ColliderShape::Box { material, .. }
            | ColliderShape::Sphere { material, .. }
            | ColliderShape::Capsule { material, .. }
            | ColliderShape::Hull { material, .. }
            | ColliderShape::Mesh { material, .. } => *material,
        }
    }
}

/// `dh.collider`: what collides. An owner holding a `dh.box` and no collider of its own is
/// given the compiler's exact box over it (marked `generated`), and an `auto` shape beside a
/// box is that box.
#[derive(Debug, Clone, PartialEq)]
pub struct Collider {
    /// Solid, off or trigger.
    pub state: ColliderState,
    /// The bodies' surface.
    pub material: Option<MaterialSlot>,
    /// The shapes.
    pub shapes: Vec<ColliderShape>,
    /// Whether the compiler made it.
    pub generated: bool,
}

/// What body an object's collider becomes (spec, "Bodies"): one table, read by the physics
/// install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRole {
    /// Static map geometry.
    Static,
    /// Moved by the carry every tick with a real velocity: a mover's body, and every
    /// collider under a mover (a logic body under one included).
    Kinematic,
    /// Measures overlap and blocks nothing: a plate's or a trigger's volume.
    Sensor,
    /// The solver's: a physics prop.
    Dynamic,
    /// A `"trigger"` collider with no logic measuring it: blocks nothing (water reads it).
    Passable,
    /// A collider whose state is `"off"`: no body.
    None,
}

/// The body an entity's collider stands as, and whether it is a logic component's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Body {
    /// The role.
    pub role: BodyRole,
    /// Whether a button, a mover, a plate, a trigger or a physics prop owns it.
    pub logic: bool,
    /// Whether it rides a mover (it is on one or under one).
    pub carried: bool,
}

/// `dh.physicsProp`: a rigid body the solver owns. It is neither carried nor carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhysicsProp {
    /// Kilograms; `None` takes the box material's density.
    pub mass: Option<f32>,
    /// Which machine simulates it.
    pub sim: PhysicsSim,
}

// ---- Presentation --------------------------------------------------------------------------

/// `dh.spawnPoint`: a spawn's feet at the position, facing its yaw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnPoint;

/// `dh.camera`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Vertical field of view, degrees.
    pub fov: f32,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// An orthographic camera's half height.
    pub ortho_size: Option<f32>,
    /// Near plane, when stated.
    pub near: Option<f32>,
    /// Far plane, when stated.
    pub far: Option<f32>,
    /// Width over height, `None` for the viewport's.
    pub aspect: Option<f32>,
    /// Its role.
    pub role: CameraRole,
    /// The map thumbnail's size in pixels.
    pub thumbnail_size: [u32; 2],
}

/// The fields `lights.set` retunes for a session, as a sparse patch over the authored
/// values: `None` is "as authored".
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LightPatch {
    /// `color`, sRGB as typed.
    pub color: Option<[f64; 3]>,
    /// `intensity`.
    pub intensity: Option<f32>,
    /// `range`.
    pub range: Option<f32>,
    /// `falloff`.
    pub falloff: Option<Falloff>,
    /// `innerCone` (degrees).
    pub inner_cone: Option<f32>,
    /// `outerCone` (degrees).
    pub outer_cone: Option<f32>,
    /// `mode`.
    pub mode: Option<LightMode>,
    /// `kind`.
    pub kind: Option<LightKind>,
}

impl LightPatch {
    /// Whether nothing is patched.
    pub fn is_empty(&self) -> bool {
        *self == LightPatch::default()
    }
}

/// `dh.light`: an analytic light and, with a box beside it, a fixture. Its authored fields
/// are the base; [`patch`](Light::patch) is the session's `lights.set` edits; `on` is the
/// one replicated bit.
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    /// What it emits.
    pub kind: LightKind,
    /// The authored color, sRGB (what `lights.list` prints).
    pub color_srgb: [f64; 3],
    /// The authored color, linear.
    pub color: Vec3,
    /// Linear intensity.
    pub intensity: f32,
    /// Influence radius, meters.
    pub range: f32,
    /// The distance curve; `None` follows the world's default.
    pub falloff: Option<Falloff>,
    /// Emission point relative to the position, world axes.
    pub offset: Vec3,
    /// Spot inner half-angle, degrees.
    pub inner_cone: f32,
    /// Spot outer half-angle, degrees.
    pub outer_cone: f32,
    /// Realtime, baked or mixed.
    pub mode: LightMode,
    /// Baked emitter radius, meters.
    pub radius: f32,
    /// Baked directional angular diameter, degrees.
    pub angular_diameter: f32,
    /// Baked shadow rays per sample.
    pub shadow_samples: u32,
    /// The fixture's material while lit (its box's), when it has a box.
    pub material_on: Option<MaterialSlot>,
    /// The fixture's material while off; `None` wears `material_on` either way.
    pub material_off: Option<MaterialSlot>,
    /// Whether it started lit (what a node that comes back starts from).
    pub starts_on: bool,
    /// Whether it is lit now: the replicated bit.
    pub on: bool,
    /// The session's live tuning.
    pub patch: LightPatch,
}

/// A light's values with the session's patch applied: what the renderer draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectiveLight {
    /// What it emits.
    pub kind: LightKind,
    /// Linear color (not yet multiplied by intensity).
    pub color: Vec3,
    /// Linear intensity.
    pub intensity: f32,
    /// Range.
    pub range: f32,
    /// Falloff (`None`: the world's).
    pub falloff: Option<Falloff>,
    /// Inner cone.
    pub inner_cone: f32,
    /// Outer cone.
    pub outer_cone: f32,
    /// Mode.
    pub mode: LightMode,
    /// Whether it is lit.
    pub on: bool,
    /// The material its fixture wears now.
    pub fixture_material: Option<MaterialSlot>,
}

impl Light {
    /// The light as drawn now: the authored values under the session's patch.
    pub fn effective(&self) -> EffectiveLight {
        let p = &self.patch;
        EffectiveLight {
            kind: p.kind.unwrap_or(self.kind),
            color: p
                .color
                .map(crate::math::srgb3_to_linear)
                .unwrap_or(self.color),
            intensity: p.intensity.unwrap_or(self.intensity),
            range: p.range.unwrap_or(self.range),
            falloff: p.falloff.or(self.falloff),
            inner_cone: p.inner_cone.unwrap_or(self.inner_cone),
            outer_cone: p.outer_cone.unwrap_or(self.outer_cone),
            mode: p.mode.unwrap_or(self.mode),
            on: self.on,
            fixture_material: if self.on {
                self.material_on
            } else {
                self.material_off.or(self.material_on)
            },
        }
    }
}

/// A probe volume's or group's live switch and grade (spec, "Switching and moving a
/// volume").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeSwitch {
    /// Whether it lights anything.
    pub on: bool,
    /// The tint as last set, sRGB.
    pub tint_srgb: [f64; 3],
    /// The tint, linear: what its baked light is multiplied by.
    pub tint: Vec3,
    /// What its baked light is scaled by.
    pub intensity: f32,
}

impl Default for ProbeSwitch {
    fn default() -> Self {
        ProbeSwitch {
            on: true,
            tint_srgb: [1.0; 3],
            tint: Vec3::ONE,
            intensity: 1.0,
        }
    }
}

/// `dh.lightProbeVolume`: a box of baked probes (its transform is the box).
#[derive(Debug, Clone, PartialEq)]
pub struct LightProbeVolume {
    /// Probe spacing; `None` inherits `lighting.giVolume.probeSpacing`.
    pub probe_spacing: Option<f32>,
    /// Probes at cell centers.
    pub inset_probes: bool,
    /// The bake zone its probes switch with.
    pub bake_zone: Option<String>,
    /// Whether it rides what carries it.
    pub dynamic: bool,
    /// Its live switch and grade.
    pub switch: ProbeSwitch,
}

/// `dh.lightProbeGroup`: imported probes at arbitrary points.
#[derive(Debug, Clone, PartialEq)]
pub struct LightProbeGroup {
    /// The `.dh-probegroup` file (a barcode when the install knew the map's pallet).
    pub probes: String,
    /// What light the probes hold.
    pub contents: ProbeContents,
    /// The bake zone.
    pub bake_zone: Option<String>,
    /// Gather again at a probe bake (not built yet).
    pub bake: bool,
    /// Whether it rides what carries it.
    pub dynamic: bool,
    /// Its live switch and grade.
    pub switch: ProbeSwitch,
}

/// `dh.reflectionProbe`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReflectionProbe {
    /// Capture offset from the position; `None` is the box center.
    pub capture_point: Option<Vec3>,
    /// Parallax-correct against the box.
    pub box_projection: bool,
    /// Cube face size.
    pub resolution: u32,
    /// Overlap tie-break.
    pub importance: i32,
    /// Blend distance, meters.
    pub blend_distance: f32,
    /// Box or none.
    pub projection: ReflectionProjection,
}

/// `dh.voxelVolume`: a placement of a voxel container.
#[derive(Debug, Clone, PartialEq)]
pub struct VoxelVolume {
    /// The container (a barcode when the install knew the map's pallet).
    pub volume: String,
    /// The lighting mode, `None` for the container's own.
    pub lighting: Option<VoxelLighting>,
    /// Grids shown (`true`) or hidden (`false`) by name or `#index`, in written order.
    pub grids: Vec<(String, bool)>,
}

// ---- Logic ---------------------------------------------------------------------------------

/// Marks an entity as a logic node: what a call can reach by the object's name. `types`
/// are the component type ids on it, in order (what signal names resolve against).
#[derive(Debug, Clone, PartialEq)]
pub struct LogicNode {
    /// The component types the node carries (`dh.button`, `dh.mover`, ...).
    pub types: Vec<&'static str>,
}

/// The object's outbound wiring, resolved: each output bound to its action list.
#[derive(Debug, Clone)]
pub struct Connections(pub std::sync::Arc<[Wire]>);

/// A logic component's body box, in the owner's frame (before its scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyBox {
    /// Center.
    pub center: Vec3,
    /// Half extents.
    pub half_extents: Vec3,
}

impl BodyBox {
    /// The box as it stands under `pose`: its center's pose (rotation of the owner, no scale)
    /// and its half extents scaled by the owner's scale.
    pub fn world(&self, pose: &Pose) -> (Pose, Vec3) {
        let center = pose.apply(self.center);
        let half = self.half_extents * pose.scale.abs();
        (
            Pose {
                position: center,
                rotation: pose.rotation,
                scale: Vec3::ONE,
            },
            half,
        )
    }
}

/// `dh.button`: Use on its object fires `onPressed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Button {
    /// The first tick a press is taken again (the per-button cooldown).
    pub ready_at: u64,
    /// The replicated pressed latch: set by a press, released when the cooldown ends.
    pub latch: bool,
}

/// How a mover moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Motion {
    /// A straight line.
    Slide {
        /// Unit direction, world axes.
        direction: DVec3,
        /// Travel, meters.
        distance: f64,
    },
    /// A turn about the object's origin.
    Rotate {
        /// Unit axis, world axes (the authored axis turned by the object's rotation).
        axis: DVec3,
        /// Degrees from closed to open.
        angle: f64,
    },
    /// An endless turn about the object's origin.
    Spin {
        /// Unit axis, world axes.
        axis: DVec3,
        /// Degrees a second once up to speed.
        rate: f64,
    },
}

/// Which end a mover heads for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heading {
    /// Closed (the authored pose).
    Closed,
    /// Open.
    Open,
}

/// A spin's motion since its last start or stop: its angle and speed are pure functions of
/// the tick ([`Mover::spin_angle`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpinSegment {
    /// The tick the segment began.
    pub start_tick: u64,
    /// The angle then, degrees in [0, 360).
    pub start_angle: f64,
    /// The speed then, degrees a second.
    pub start_speed: f64,
    /// The speed it heads for.
    pub target_speed: f64,
    /// The change of speed, degrees a second per second (signed).
    pub accel: f64,
}

impl SpinSegment {
    /// Seconds from the segment's start until it reaches its target speed.
    pub fn seconds_to_target(&self) -> f64 {
        if self.accel == 0.0 {
            0.0
        } else {
            ((self.target_speed - self.start_speed) / self.accel).max(0.0)
        }
    }

    /// The speed `t` seconds into the segment.
    pub fn speed_at(&self, t: f64) -> f64 {
        if t >= self.seconds_to_target() {
            self.target_speed
        } else {
            self.start_speed + self.accel * t
        }
    }

    /// The angle `t` seconds into the segment, wrapped to [0, 360).
    pub fn angle_at(&self, t: f64) -> f64 {
        let reach = self.seconds_to_target();
        let ramp = t.min(reach);
        let mut angle = self.start_angle + self.start_speed * ramp + 0.5 * self.accel * ramp * ramp;
        if t > reach {
            angle = angle.rem_euclid(360.0) + (self.target_speed * (t - reach)).rem_euclid(360.0);
        }
        angle.rem_euclid(360.0)
    }
}

/// A mover's live state: what replicates (its open fraction and rate, or a spin's angle and
/// speeds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoverState {
    /// Ticks of travel from closed (slide and rotate), in `[0, sweep_ticks]`.
    pub progress: f64,
    /// Ticks one full sweep takes (`duration × tickRate`).
    pub sweep_ticks: f64,
    /// Which end it heads for.
    pub heading: Heading,
    /// Whether it is on its way (a slide or rotate between its ends).
    pub moving: bool,
    /// A spin's current segment.
    pub spin: SpinSegment,
    /// Whether a spin has reported reaching its segment's target speed.
    pub spin_settled: bool,
    /// A spin's speed at the last tick, degrees a second.
    pub speed: f64,
}

/// `dh.mover`: its authored motion and its live state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mover {
    /// The motion.
    pub motion: Motion,
    /// Seconds one full sweep takes (a spin's spin-up and spin-down).
    pub duration: f64,
    /// Whether it spawned open.
    pub start_open: bool,
    /// The object's authored origin: a rotate's and a spin's hinge.
    pub hinge: Vec3,
    /// The live state.
    pub state: MoverState,
}

impl Mover {
    /// The open fraction in [0, 1] (a spin: its speed over its rate).
    pub fn open_fraction(&self) -> f64 {
        match self.motion {
            Motion::Spin { rate, .. } => (self.state.speed / rate).abs().min(1.0),
            _ => {
                if self.state.sweep_ticks <= 0.0 {
                    1.0
                } else {
                    (self.state.progress / self.state.sweep_ticks).clamp(0.0, 1.0)
                }
            }
        }
    }

    /// A spin's angle at `tick`, degrees in [0, 360): a pure function of the tick and its
    /// segment. Zero for a slide or a rotate.
    pub fn spin_angle(&self, tick: u64, tick_rate: f64) -> f64 {
        match self.motion {
            Motion::Spin { .. } => {
                let s = &self.state.spin;
                let t = tick.saturating_sub(s.start_tick) as f64 / tick_rate;
                s.angle_at(t)
            }
            _ => 0.0,
        }
    }

    /// A spin's speed at `tick`, degrees a second.
    pub fn spin_speed(&self, tick: u64, tick_rate: f64) -> f64 {
        let s = &self.state.spin;
        let t = tick.saturating_sub(s.start_tick) as f64 / tick_rate;
        s.speed_at(t)
    }
}

/// `dh.pressurePlate`: fires on its occupancy edges.
#[derive(Debug, Clone, PartialEq)]
pub struct PressurePlate {
    /// Its volume.
    pub body: BodyBox,
    /// The pawns on it at the last scan, ascending (the occupancy count replicates).
    pub occupants: Vec<PawnId>,
}

/// `dh.trigger`: per-toucher edges while on.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    /// Its volume.
    pub body: BodyBox,
    /// Whether it is on now.
    pub enabled: bool,
    /// Whether it started on.
    pub starts_enabled: bool,
    /// Who sets it off.
    pub touched_by: TouchedBy,
    /// The pawns inside at the last scan, ascending.
    pub inside: Vec<PawnId>,
}

/// `dh.teleport`: moves the activator to where an object stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Teleport {
    /// The destination's name; `None` is this object.
    pub destination: Option<String>,
    /// The landmark's name; `None` keeps no offset.
    pub landmark: Option<String>,
    /// Where the subject looks on arriving.
    pub facing: Facing,
    /// What its velocity becomes.
    pub velocity: TeleportVelocity,
    /// A named subject (reserved for physics props); `None` is the activator.
    pub subject: Option<String>,
}

/// `dh.timer`: `fire` waits, then fires `onTimer` with the activator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timer {
    /// The authored delay, seconds.
    pub delay_seconds: f64,
    /// The delay quantized up to whole ticks.
    pub delay_ticks: u64,
}

/// `dh.mapStart`: fires `onMapStart` on the first logic tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapStart;

/// `dh.andGate`: levels A and B; fires on an edge of A AND B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AndGate {
    /// Level A.
    pub a: bool,
    /// Level B.
    pub b: bool,
}

/// `dh.orGate`: levels A and B; fires on an edge of A OR B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OrGate {
    /// Level A.
    pub a: bool,
    /// Level B.
    pub b: bool,
}

/// `dh.notGate`: level A; fires on an edge of NOT A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NotGate {
    /// Level A.
    pub a: bool,
}

// ---- Model parts ---------------------------------------------------------------------------

/// One part of a model placement, installed as an entity of its own (spec: dh.map, "Parts"
/// and "Placing models"): filed under its placement (or the nearest part above it in the
/// model, or the record its override names), standing at its compiled world pose with its
/// override's delta, drawn through its [`PartRenderer`] and solid through its [`Collider`].
/// Parts are not records: they have no [`RecordIndex`], and
/// [`SimWorld::parts`](crate::SimWorld::parts) lists them in part-table order.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPart {
    /// The placement (the model instance record) the part belongs to.
    pub instance: hecs::Entity,
    /// The placed model (a barcode when the install knew the map's pallet).
    pub model: String,
    /// The part's map-wide id (the part table's `id`).
    pub id: u32,
    /// Its slot in its own model: the id less its placement's first.
    pub slot: u32,
    /// Its identity inside the model (`localId`).
    pub local_id: Option<Guid>,
    /// Its scene-object id (`objectId`).
    pub object_id: Option<Guid>,
    /// The node's own name, or the override's display name.
    pub name: String,
    /// The node's path in the model (`buildings/block03/wall_north`).
    pub path: String,
    /// A mesh-less group.
    pub structural: bool,
}

/// What a drawn part wears: its `dh.renderer` slots in the order the compiler wrote them,
/// each slot's name with the `dh.material` reference bound to it (empty where nothing binds
/// the slot).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartRenderer {
    /// `(slot name, reference)`, one per slot the part's primitives draw.
    pub materials: Vec<(String, String)>,
    /// Whether a map binds the slots (a map's generated renderer: an unbound slot is the
    /// missingMaterial) or an object's renderer does (an unbound slot is flat white).
    pub map_slots: bool,
}

impl PartRenderer {
    /// The reference bound to `slot` (`None` when the slot is not listed or bound to
    /// nothing).
    pub fn bound(&self, slot: &str) -> Option<&str> {
        self.materials
            .iter()
            .find(|(s, _)| s == slot)
            .map(|(_, r)| r.as_str())
            .filter(|r| !r.is_empty())
    }
}
