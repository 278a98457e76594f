//! Every component a `dh.object` carries (spec, dh.object "Components"), as one
//! discriminated union on `$type`, with which owner (the object's root or a part) takes
//! which, and each component's build-time rules.
//!
//! The components an object shares with a map (`dh.box`, `dh.collider`, `dh.physicsProp`,
//! `dh.mover`, `dh.button`, `dh.pressurePlate`, `dh.bake`) are the map's own types, wrapped
//! in [`Shared`] so that they also take the one member every object component takes,
//! `"removed": true`, and so that a member a layer of overrides leaves out inherits rather
//! than failing as a missing required member.

use crate::jsonc::{Member, Value};
use crate::read::{At, Block, Cx, FromJson, Mode, ObjReader, Table, ToJson};
use crate::schema::common::Vec3;
use crate::schema::components::{
    Bake, Button, Collider, ComponentCx, DhBox, Mover, PhysicsProp, PressurePlate,
};

// ---- Shared map components -------------------------------------------------------------

/// A map component as an object's component: the map's own block, plus `removed`, and the
/// required members this layer left out (which inherit on an override layer and are
/// reported by [`Shared::report_missing`] where nothing lies underneath).
#[derive(Debug, Clone, Default)]
pub struct Shared<T> {
    /// The map component's own fields.
    pub inner: T,
    /// `"removed": true` drops the component an inherited layer states.
    pub removed: Option<bool>,
    /// Required members of the map component this layer did not write.
    pub missing: Vec<&'static str>,
    /// Where the component was read from.
    pub at: At,
}

impl<T> Shared<T> {
    /// Whether this entry removes the component it names.
    pub fn is_removed(&self) -> bool {
        self.removed == Some(true)
    }
}

impl<T: Block> Shared<T> {
    /// Reads the map component's members, taking `removed` beside them and keeping the
    /// "missing its required member" errors back as [`missing`](Shared::missing).
    fn read_shared(cx: &mut Cx, o: &ObjReader) -> Self {
        let before = cx.diags.items.len();
        let inner = T::read_fields(cx, o);
        let mut missing = Vec::new();
        let mut i = before;
        while i < cx.diags.items.len() {
            let hit = cx.diags.items.get(i).and_then(|d| {
                T::FIELDS.iter().copied().find(|f| {
                    d.message == format!("{} is missing its required member '{f}'", T::BLOCK)
                })
            });
            match hit {
                Some(f) => {
                    missing.push(f);
                    cx.diags.items.remove(i);
                }
                None => i += 1,
            }
        }
        let removed = if T::FIELDS.contains(&"removed") {
            None
        } else {
            o.opt(cx, "removed")
        };
        Shared {
            inner,
            removed,
            missing,
            at: o.at(),
        }
    }

    fn write_shared(&self, out: &mut Vec<Member>) {
        let start = out.len();
        self.inner.write_fields(out);
        // A required member this layer left out is not written back as its default.
        let mut i = start;
        while i < out.len() {
            if out
                .get(i)
                .is_some_and(|m| self.missing.contains(&m.key.as_str()))
            {
                out.remove(i);
            } else {
                i += 1;
            }
        }
        if let Some(r) = self.removed {
            out.push(crate::read::member("removed", r.to_json()));
        }
    }

    /// Reports every required member this entry left out, as the reader would have: for a
    /// component with nothing beneath it to inherit from.
    pub fn report_missing(&self, cx: &mut Cx) {
        for f in &self.missing {
            cx.error_at(
                &self.at,
                self.at.span,
                format!("{} is missing its required member '{f}'", T::BLOCK),
            );
        }
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn has_removed(fields: &[&str]) -> bool {
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i], "removed") {
            return true;
        }
        i += 1;
    }
    false
}

/// The length of a map component's field set with `removed` added.
const fn with_removed_len(fields: &[&str]) -> usize {
    if has_removed(fields) {
        fields.len()
    } else {
        fields.len() + 1
    }
}

/// A map component's field set with `removed` added (once).
const fn with_removed<const N: usize>(fields: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < fields.len() {
        out[i] = fields[i];
        i += 1;
    }
    if i < N {
        out[i] = "removed";
    }
    out
}

macro_rules! shared_component {
    ($(#[$meta:meta])* $alias:ident = $t:ty, $fields:ident) => {
        const $fields: [&str; with_removed_len(<$t as Block>::FIELDS)] =
            with_removed::<{ with_removed_len(<$t as Block>::FIELDS) }>(<$t as Block>::FIELDS);

        $(#[$meta])*
        pub type $alias = Shared<$t>;

        impl Block for Shared<$t> {
            const BLOCK: &'static str = <$t as Block>::BLOCK;
            const FIELDS: &'static [&'static str] = &$fields;
            fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self {
                Shared::<$t>::read_shared(cx, o)
            }
            fn write_fields(&self, out: &mut Vec<Member>) {
                self.write_shared(out)
            }
        }

        impl FromJson for Shared<$t> {
            fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
                crate::read::read_block::<Shared<$t>>(cx, v)
            }
        }

        impl ToJson for Shared<$t> {
            fn to_json(&self) -> Value {
                crate::read::write_block(self)
            }
        }
    };
}

shared_component!(
    /// `dh.box` on an object's root: its size and material (an asset: an object owns no
    /// material slot table).
    ObjectBox = DhBox, BOX_FIELDS
);
shared_component!(
    /// `dh.collider` on an object's root or a part.
    ObjectCollider = Collider, COLLIDER_FIELDS
);
shared_component!(
    /// `dh.physicsProp` on an object's root or a part.
    ObjectPhysicsProp = PhysicsProp, PHYSICS_PROP_FIELDS
);
shared_component!(
    /// `dh.mover` on an object's root.
    ObjectMover = Mover, MOVER_FIELDS
);
shared_component!(
    /// `dh.button` on an object's root.
    ObjectButton = Button, BUTTON_FIELDS
);
shared_component!(
    /// `dh.pressurePlate` on an object's root.
    ObjectPressurePlate = PressurePlate, PRESSURE_PLATE_FIELDS
);
shared_component!(
    /// `dh.bake` on a part.
    ObjectBake = Bake, BAKE_FIELDS
);

// ---- dh.renderer, dh.skeleton ----------------------------------------------------------

block! {
    /// `dh.renderer`: what a drawn part wears, a material per slot, a weight per
    /// blendshape, and the reflection probe it samples.
    pub struct Renderer = "dh.renderer" {
        /// A dh.material per slot, keyed by the slot's material name (`#index` for a slot
        /// whose name is missing or shared). Merges key by key.
        opt materials: Table<String> = "materials",
        /// A weight per blendshape, keyed by its name. Merges key by key.
        opt shapes: Table<f64> = "shapes",
        /// The `name` of the map object carrying the reflection probe this part samples.
        opt reflection_probe: String = "reflectionProbe",
        /// The compiler's mark on a renderer a map writes into its part table; a source
        /// stating it is a build error.
        opt generated: bool = "generated",
        /// `true` drops an inherited renderer.
        opt removed: bool = "removed",
    }
}

block! {
    /// `dh.skeleton`: the dh.rig an armature is described by (on a part, that armature;
    /// on the root, the whole model).
    pub struct Skeleton = "dh.skeleton" {
        /// The rig definition, relative or a barcode.
        opt rig: String = "rig",
        /// The path of the skinned mesh visemes and eyelid blendshapes are read from.
        opt mesh: String = "mesh",
        /// Where the view sits, in the armature's frame, over the rig's own.
        opt view_position: Vec3 = "viewPosition",
        /// `true` drops an inherited skeleton.
        opt removed: bool = "removed",
    }
}

// ---- dh.eyes ---------------------------------------------------------------------------

block! {
    /// `dh.eyes.look`: whether the eyes move, and their personality.
    pub struct EyesLook = "dh.eyes look" {
        /// Whether the eyes move at all (default `true`).
        opt enabled: bool = "enabled",
        /// 0 shy to 1 confident (default 0.5).
        opt confidence: f64 = "confidence",
        /// 0 calm to 1 excited (default 0.5).
        opt activity: f64 = "activity",
        /// Share of attention faces draw, 0 to 1 (default from `confidence`).
        opt face_gaze_share: f64 = "faceGazeShare",
        /// Mean seconds on a face (default from `confidence`).
        opt face_dwell_mean: f64 = "faceDwellMean",
        /// Chance of looking away when a face looks back, 0 to 1.
        opt break_on_mutual_gaze: f64 = "breakOnMutualGaze",
        /// Chance a look-away goes down rather than sideways, 0 to 1.
        opt aversion_down_bias: f64 = "aversionDownBias",
        /// Mean seconds an idle point holds (default from `activity`).
        opt idle_hold_mean: f64 = "idleHoldMean",
        /// Mean seconds between small saccades within one target.
        opt micro_saccade_interval: f64 = "microSaccadeInterval",
    }
}

block! {
    /// `dh.eyes.blink`: procedural blinks.
    pub struct EyesBlink = "dh.eyes blink" {
        /// Whether procedural blinks run (default `true`).
        opt enabled: bool = "enabled",
        /// Spontaneous blinks per minute at rest (default 17).
        opt rate: f64 = "rate",
        /// The shallowest blink, 0 to 1 (default 0.85).
        opt depth_min: f64 = "depthMin",
        /// The shortest seconds between two blinks (default 1).
        opt min_interval: f64 = "minInterval",
        /// Seconds the lids take to close (default 0.08).
        opt close_time: f64 = "closeTime",
        /// Seconds they stay closed (default 0.02).
        opt hold_time: f64 = "holdTime",
        /// Seconds they take to open (default 0.16).
        opt open_time: f64 = "openTime",
    }
}

block! {
    /// `dh.eyes`: how the avatar's eyes look around and blink.
    pub struct Eyes = "dh.eyes" {
        /// Eye look: on/off and personality.
        opt look: EyesLook = "look",
        /// Procedural blinks: on/off and timing.
        opt blink: EyesBlink = "blink",
        /// `true` drops every inherited `dh.eyes`, returning the eyes to the defaults.
        opt removed: bool = "removed",
    }
}

impl EyesLook {
    /// `enabled`, default `true`.
    pub fn enabled_or_default(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
    /// `confidence`, default 0.5.
    pub fn confidence_or_default(&self) -> f64 {
        self.confidence.unwrap_or(0.5)
    }
    /// `activity`, default 0.5.
    pub fn activity_or_default(&self) -> f64 {
        self.activity.unwrap_or(0.5)
    }
}

impl EyesBlink {
    /// `enabled`, default `true`.
    pub fn enabled_or_default(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
    /// `rate`, default 17 per minute.
    pub fn rate_or_default(&self) -> f64 {
        self.rate.unwrap_or(17.0)
    }
    /// `depthMin`, default 0.85.
    pub fn depth_min_or_default(&self) -> f64 {
        self.depth_min.unwrap_or(0.85)
    }
    /// `minInterval`, default 1 s.
    pub fn min_interval_or_default(&self) -> f64 {
        self.min_interval.unwrap_or(1.0)
    }
    /// `closeTime`, default 0.08 s.
    pub fn close_time_or_default(&self) -> f64 {
        self.close_time.unwrap_or(0.08)
    }
    /// `holdTime`, default 0.02 s.
    pub fn hold_time_or_default(&self) -> f64 {
        self.hold_time.unwrap_or(0.02)
    }
    /// `openTime`, default 0.16 s.
    pub fn open_time_or_default(&self) -> f64 {
        self.open_time.unwrap_or(0.16)
    }
}

fn check_unit(cx: &mut Cx, at: &At, field: &str, v: Option<f64>) {
    if let Some(v) = v {
        if !(0.0..=1.0).contains(&v) {
            cx.error_at(
                at,
                at.field(field),
                format!("'{field}' must be from 0 to 1, found {v}"),
            );
        }
    }
}

fn check_non_negative(cx: &mut Cx, at: &At, field: &str, v: Option<f64>) {
    if let Some(v) = v {
        if v < 0.0 {
            cx.error_at(
                at,
                at.field(field),
                format!("'{field}' must not be negative, found {v}"),
            );
        }
    }
}

impl Eyes {
    /// The compiler refuses an axis or share outside 0 to 1 and a negative time or rate.
    pub fn validate(&self, cx: &mut Cx) {
        if let Some(l) = &self.look {
            check_unit(cx, &l.at, "confidence", l.confidence);
            check_unit(cx, &l.at, "activity", l.activity);
            check_unit(cx, &l.at, "faceGazeShare", l.face_gaze_share);
            check_unit(cx, &l.at, "breakOnMutualGaze", l.break_on_mutual_gaze);
            check_unit(cx, &l.at, "aversionDownBias", l.aversion_down_bias);
            check_non_negative(cx, &l.at, "faceDwellMean", l.face_dwell_mean);
            check_non_negative(cx, &l.at, "idleHoldMean", l.idle_hold_mean);
            check_non_negative(cx, &l.at, "microSaccadeInterval", l.micro_saccade_interval);
        }
        if let Some(b) = &self.blink {
            check_unit(cx, &b.at, "depthMin", b.depth_min);
            check_non_negative(cx, &b.at, "rate", b.rate);
            check_non_negative(cx, &b.at, "minInterval", b.min_interval);
            check_non_negative(cx, &b.at, "closeTime", b.close_time);
            check_non_negative(cx, &b.at, "holdTime", b.hold_time);
            check_non_negative(cx, &b.at, "openTime", b.open_time);
        }
    }
}

// ---- dh.springBone ---------------------------------------------------------------------

tokens! {
    /// Which solver model a spring chain's numbers are authored for.
    pub enum SpringMode as "spring bone mode" {
        /// Authors what a frame loses (`damping`).
        #[default]
        Jiggle = "jiggle",
        /// Authors what a frame keeps (`spring`), as VRChat's PhysBones do.
        PhysBones = "physBones",
    }
}

tokens! {
    /// Whose motion `immobile` cancels.
    pub enum ImmobileFrame as "immobileFrame" {
        /// None.
        #[default]
        None = "none",
        /// The chain root's parent.
        Parent = "parent",
        /// The scene root.
        SceneRoot = "sceneRoot",
        /// A node.
        Node = "node",
    }
}

tokens! {
    /// The shape of the cone each bone may swing inside.
    pub enum LimitType as "limitType" {
        /// No limit (costs nothing).
        #[default]
        None = "none",
        /// A circular cone of `maxAngleX`.
        Angle = "angle",
        /// One plane, swinging inside `maxAngleX`.
        Hinge = "hinge",
        /// An elliptical cone, `maxAngleX` by `maxAngleZ`.
        Polar = "polar",
    }
}

/// Whose hands: the common meaning of `allowCollision`, `allowGrabbing` and `allowPosing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hands {
    /// Nobody's.
    #[default]
    None,
    /// The wearer's own.
    Own,
    /// Everyone else's.
    Others,
    /// Either.
    Both,
}

impl Hands {
    /// Whether the wearer's own hands are admitted.
    pub fn own(self) -> bool {
        matches!(self, Hands::Own | Hands::Both)
    }
    /// Whether everyone else's hands are admitted.
    pub fn others(self) -> bool {
        matches!(self, Hands::Others | Hands::Both)
    }
}

macro_rules! hand_tokens {
    ($(#[$meta:meta])* $name:ident = $what:literal) => {
        tokens! {
            $(#[$meta])*
            pub enum $name as $what {
                /// Nobody's hands.
                #[default]
                None = "none",
                /// The wearer's own hands.
                Own = "self",
                /// Everyone else's hands.
                Others = "others",
                /// Either.
                Both = "both",
            }
        }
        impl $name {
            /// The common meaning.
            pub fn hands(self) -> Hands {
                match self {
                    $name::None => Hands::None,
                    $name::Own => Hands::Own,
                    $name::Others => Hands::Others,
                    $name::Both => Hands::Both,
                }
            }
        }
    };
}

hand_tokens!(
    /// `allowCollision`: whose hands push the chain.
    AllowCollision = "'allowCollision' token"
);
hand_tokens!(
    /// `allowGrabbing`: whose hands may grab a bone of the chain.
    AllowGrabbing = "'allowGrabbing' token"
);
hand_tokens!(
    /// `allowPosing`: whose hands may leave a grabbed chain posed.
    AllowPosing = "'allowPosing' token"
);

/// The most spring colliders one chain may list (VRChat's per-PhysBone cap).
pub const MAX_SPRING_COLLIDERS: usize = 32;

block! {
    /// `dh.springBone`: spring physics on the bone chain its part roots. Every field is
    /// optional; an unset one inherits, then takes its default.
    pub struct SpringBone = "dh.springBone" {
        /// Child bone names excluded (with their descendants).
        opt ignore: Vec<String> = "ignore",
        /// Which solver model the numbers are authored for (default `jiggle`).
        opt mode: SpringMode = "mode",
        /// Pull toward the animated pose (default 0.3).
        opt pull: f64 = "pull",
        /// `jiggle` only: oscillation decay (default 0.7).
        opt damping: f64 = "damping",
        /// `physBones` only: bounciness (default 0.3).
        opt spring: f64 = "spring",
        /// Downward pull in world space (default 0).
        opt gravity: f64 = "gravity",
        /// How much of `gravity` the root is spared (default 0).
        opt gravity_falloff: f64 = "gravityFalloff",
        /// How much of the reference frame's motion the chain does not feel (default 0).
        opt immobile: f64 = "immobile",
        /// Whose motion `immobile` cancels (default `none`).
        opt immobile_frame: ImmobileFrame = "immobileFrame",
        /// The swing limit's shape (default `none`).
        opt limit_type: LimitType = "limitType",
        /// Half-angle in degrees across the limit frame's X axis (default 90).
        opt max_angle_x: f64 = "maxAngleX",
        /// Half-angle in degrees across the limit frame's Z axis (default 90).
        opt max_angle_z: f64 = "maxAngleZ",
        /// Euler degrees tilting the limit frame (default `[0, 0, 0]`).
        opt limit_rotation: Vec3 = "limitRotation",
        /// A virtual segment past every tip, in the tip's local space (default none).
        opt endpoint_position: Vec3 = "endpointPosition",
        /// How far past its rest length a segment may be pulled (default 0).
        opt max_stretch: f64 = "maxStretch",
        /// How far under its rest length a segment may be pushed (default 0).
        opt max_squish: f64 = "maxSquish",
        /// The radius every bone collides with, object-space meters (default 0).
        opt radius: f64 = "radius",
        /// The spring collider ids the chain collides with, in order. At most 32.
        opt colliders: Vec<String> = "colliders",
        /// Whose hands push the chain (default `none`).
        opt allow_collision: AllowCollision = "allowCollision",
        /// Whose hands may grab a bone (default `none`).
        opt allow_grabbing: AllowGrabbing = "allowGrabbing",
        /// Whose hands may leave a grabbed chain posed (default `none`).
        opt allow_posing: AllowPosing = "allowPosing",
        /// 0: a held bone is carried by the chain's pull; 1: at once (default 0.5).
        opt grab_movement: f64 = "grabMovement",
        /// Whether a held bone moves onto the palm (default `false`).
        opt snap_to_hand: bool = "snapToHand",
        /// `true` drops an inherited chain.
        opt removed: bool = "removed",
    }
}

impl SpringBone {
    /// `mode`, default `jiggle`.
    pub fn mode_or_default(&self) -> SpringMode {
        self.mode.unwrap_or_default()
    }
    /// `pull`, default 0.3.
    pub fn pull_or_default(&self) -> f64 {
        self.pull.unwrap_or(0.3)
    }
    /// `damping`, default 0.7.
    pub fn damping_or_default(&self) -> f64 {
        self.damping.unwrap_or(0.7)
    }
    /// `spring`, default 0.3.
    pub fn spring_or_default(&self) -> f64 {
        self.spring.unwrap_or(0.3)
    }
    /// `maxAngleX`, default 90.
    pub fn max_angle_x_or_default(&self) -> f64 {
        self.max_angle_x.unwrap_or(90.0)
    }
    /// `maxAngleZ`, default 90.
    pub fn max_angle_z_or_default(&self) -> f64 {
        self.max_angle_z.unwrap_or(90.0)
    }
    /// `grabMovement`, default 0.5.
    pub fn grab_movement_or_default(&self) -> f64 {
        self.grab_movement.unwrap_or(0.5)
    }

    /// The chain's rules: a field from the other mode is a compile error (`mode` unset on
    /// an override layer inherits, so the check waits for the resolved chain), at most 32
    /// colliders, and a posing hand that may not grab is a warning.
    pub fn validate(&self, cx: &mut Cx, layer: Layer) {
        let mode = match (self.mode, layer) {
            (Some(m), _) => Some(m),
            (None, Layer::Base) => Some(SpringMode::Jiggle),
            (None, Layer::Override) => None,
        };
        match mode {
            Some(SpringMode::Jiggle) if self.spring.is_some() => cx.error_at(
                &self.at,
                self.at.field("spring"),
                "'spring' is a physBones field, and this chain's mode is 'jiggle': authoring a field from the other mode is a compile error (jiggle authors 'damping')",
            ),
            Some(SpringMode::PhysBones) if self.damping.is_some() => cx.error_at(
                &self.at,
                self.at.field("damping"),
                "'damping' is a jiggle field, and this chain's mode is 'physBones': authoring a field from the other mode is a compile error (physBones authors 'spring')",
            ),
            _ => {}
        }
        if let Some(c) = &self.colliders {
            if c.len() > MAX_SPRING_COLLIDERS {
                cx.error_at(
                    &self.at,
                    self.at.field("colliders"),
                    format!(
                        "'colliders' lists {} ids; a chain lists at most {MAX_SPRING_COLLIDERS}",
                        c.len()
                    ),
                );
            }
        }
        let grab = match (self.allow_grabbing, layer) {
            (Some(g), _) => Some(g.hands()),
            (None, Layer::Base) => Some(Hands::None),
            (None, Layer::Override) => None,
        };
        if let (Some(pose), Some(grab)) = (self.allow_posing.map(|p| p.hands()), grab) {
            let mut lost = Vec::new();
            if pose.own() && !grab.own() {
                lost.push("the wearer's ('self')");
            }
            if pose.others() && !grab.others() {
                lost.push("everyone else's ('others')");
            }
            if !lost.is_empty() {
                cx.warning_at(
                    &self.at,
                    self.at.field("allowPosing"),
                    format!(
                        "'allowPosing' admits {} hands, which 'allowGrabbing' does not let grab; only a hand allowGrabbing admits can pose",
                        lost.join(" and ")
                    ),
                );
            }
        }
    }
}

impl SpringBone {
    /// The rule held against the whole inherits chain, on the chain as resolved (every
    /// layer merged field by field): authoring a field from the other mode is a compile
    /// error (spec 001 line 470), whichever layer wrote the field and whichever the mode
    /// (unset on every layer: `jiggle`, line 445).
    pub fn validate_resolved(&self, cx: &mut Cx) {
        match self.mode_or_default() {
            SpringMode::Jiggle if self.spring.is_some() => cx.error_at(
                &self.at,
                self.at.field("spring"),
                "'spring' is a physBones field, and this chain's mode as its inherits chain resolves it is 'jiggle': authoring a field from the other mode is a compile error (jiggle authors 'damping')",
            ),
            SpringMode::PhysBones if self.damping.is_some() => cx.error_at(
                &self.at,
                self.at.field("damping"),
                "'damping' is a jiggle field, and this chain's mode as its inherits chain resolves it is 'physBones': authoring a field from the other mode is a compile error (physBones authors 'spring')",
            ),
            _ => {}
        }
    }
}

// ---- dh.springCollider -----------------------------------------------------------------

/// A spring collider's shape. `plane`, `insideSphere` and `insideCapsule` are reserved
/// names and refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpringColliderShape {
    /// A sphere around `offset`.
    #[default]
    Sphere,
    /// A capsule from `offset` to `tail`.
    Capsule,
}

impl SpringColliderShape {
    /// The valid shapes.
    pub const TOKENS: &'static [&'static str] = &["sphere", "capsule"];
    /// The reserved names, refused.
    pub const RESERVED: &'static [&'static str] = &["plane", "insideSphere", "insideCapsule"];

    /// The token as written.
    pub fn as_str(self) -> &'static str {
        match self {
            SpringColliderShape::Sphere => "sphere",
            SpringColliderShape::Capsule => "capsule",
        }
    }
}

impl FromJson for SpringColliderShape {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a string (spring collider shape)", v);
            return None;
        };
        match s {
            "sphere" => Some(SpringColliderShape::Sphere),
            "capsule" => Some(SpringColliderShape::Capsule),
            _ if Self::RESERVED.contains(&s) => {
                cx.error(
                    v.span,
                    format!(
                        "'{s}' is a reserved spring collider shape and is refused; expected one of: {}",
                        Self::TOKENS.join(", ")
                    ),
                );
                None
            }
            _ => {
                let msg =
                    crate::read::unknown_token_message("spring collider shape", s, Self::TOKENS);
                cx.error(v.span, msg);
                None
            }
        }
    }
}

impl ToJson for SpringColliderShape {
    fn to_json(&self) -> Value {
        Value::synthetic(crate::jsonc::Kind::String(self.as_str().to_string()))
    }
}

/// The humanoid roles a `bone` may name (the standard humanoid bone set).
pub const HUMANOID_ROLES: &[&str] = &[
    "Hips",
    "LeftUpperLeg",
    "RightUpperLeg",
    "LeftLowerLeg",
    "RightLowerLeg",
    "LeftFoot",
    "RightFoot",
    "Spine",
    "Chest",
    "UpperChest",
    "Neck",
    "Head",
    "LeftShoulder",
    "RightShoulder",
    "LeftUpperArm",
    "RightUpperArm",
    "LeftLowerArm",
    "RightLowerArm",
    "LeftHand",
    "RightHand",
    "LeftToes",
    "RightToes",
    "LeftEye",
    "RightEye",
    "Jaw",
    "LeftThumbProximal",
    "LeftThumbIntermediate",
    "LeftThumbDistal",
    "LeftIndexProximal",
    "LeftIndexIntermediate",
    "LeftIndexDistal",
    "LeftMiddleProximal",
    "LeftMiddleIntermediate",
    "LeftMiddleDistal",
    "LeftRingProximal",
    "LeftRingIntermediate",
    "LeftRingDistal",
    "LeftLittleProximal",
    "LeftLittleIntermediate",
    "LeftLittleDistal",
    "RightThumbProximal",
    "RightThumbIntermediate",
    "RightThumbDistal",
    "RightIndexProximal",
    "RightIndexIntermediate",
    "RightIndexDistal",
    "RightMiddleProximal",
    "RightMiddleIntermediate",
    "RightMiddleDistal",
    "RightRingProximal",
    "RightRingIntermediate",
    "RightRingDistal",
    "RightLittleProximal",
    "RightLittleIntermediate",
    "RightLittleDistal",
];

/// Whether `s` is a camelCase id: a lowercase ASCII letter, then ASCII letters and digits.
pub fn is_camel_case(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

block! {
    /// `dh.springCollider`: a sphere or capsule hung on a bone, which every chain listing
    /// its id is pushed out of. Keyed by `id`; every other field inherits.
    pub struct SpringCollider = "dh.springCollider" {
        /// The collider's camelCase id, which chains list and overrides name.
        req id: String = "id",
        /// The humanoid role it hangs on (`Chest`). One of `bone` and `node`.
        opt bone: String = "bone",
        /// A bone the rig does not map, by its path. One of `bone` and `node`.
        opt node: String = "node",
        /// `sphere` or `capsule` (yes, or inherited).
        opt shape: SpringColliderShape = "shape",
        /// The sphere's center or the capsule's first end, object-space meters at bind
        /// pose relative to the bone's rest position.
        opt offset: Vec3 = "offset",
        /// The capsule's second end.
        opt tail: Vec3 = "tail",
        /// Meters (yes, or inherited).
        opt radius: f64 = "radius",
        /// `true` drops a collider an inherited layer authored.
        opt removed: bool = "removed",
    }
}

impl SpringCollider {
    /// The rules one layer can be held to: a malformed id, both `bone` and `node`, a bone
    /// that is not a humanoid role, and a negative radius. (A reserved or unknown shape
    /// and a malformed point are refused while reading.)
    pub fn validate(&self, cx: &mut Cx) {
        if !is_camel_case(&self.id) && self.at.has("id") {
            cx.error_at(
                &self.at,
                self.at.field("id"),
                format!(
                    "'{}' is not a camelCase id: a spring collider's id starts with a lowercase letter and holds only letters and digits",
                    self.id
                ),
            );
        }
        if self.bone.is_some() && self.node.is_some() {
            cx.error_at(
                &self.at,
                self.at.field("node"),
                "a spring collider hangs on 'bone' or 'node', not both: they are one anchor",
            );
        }
        if let Some(bone) = &self.bone {
            if !HUMANOID_ROLES.contains(&bone.as_str()) {
                cx.error_at(
                    &self.at,
                    self.at.field("bone"),
                    format!(
                        "'{bone}' is not a humanoid role; a bone the rig does not map is named by its path in 'node'"
                    ),
                );
            }
        }
        if let Some(r) = self.radius {
            if r < 0.0 {
                cx.error_at(
                    &self.at,
                    self.at.field("radius"),
                    format!("'radius' must not be negative, found {r}"),
                );
            }
        }
    }

    /// The rules held against the whole inherits chain, on the collider as resolved (every
    /// layer merged): a collider with no anchor or no shape, and a capsule with no tail.
    pub fn validate_resolved(&self, cx: &mut Cx) {
        if self.bone.is_none() && self.node.is_none() {
            cx.error_at(
                &self.at,
                self.at.span,
                format!(
                    "spring collider '{}' has no anchor: no layer sets 'bone' or 'node'",
                    self.id
                ),
            );
        }
        match self.shape {
            None => cx.error_at(
                &self.at,
                self.at.span,
                format!("spring collider '{}' has no shape: no layer sets 'shape'", self.id),
            ),
            Some(SpringColliderShape::Capsule) if self.tail.is_none() => cx.error_at(
                &self.at,
                self.at.field("shape"),
                format!(
                    "spring collider '{}' is a capsule with no tail: a capsule needs 'tail', its second end",
                    self.id
                ),
            ),
            _ => {}
        }
        if self.radius.is_none() {
            cx.error_at(
                &self.at,
                self.at.span,
                format!(
                    "spring collider '{}' has no radius: no layer sets 'radius'",
                    self.id
                ),
            );
        }
    }
}

// ---- dh.armatureLink -------------------------------------------------------------------

block! {
    /// `dh.armatureLink`: links its owner (an added record, or a part) to an armature of
    /// the object it belongs to, bone to bone (the owner has a rig) or onto one bone.
    pub struct ArmatureLink = "dh.armatureLink" {
        /// The path of the armature to link to (it must have a `dh.skeleton`); `""` is the
        /// object's root.
        opt target: String = "target",
        /// The bone a rigless owner hangs on.
        opt bone: String = "bone",
        /// Whether a rigless owner is reset onto its bone (default `true`).
        opt align: bool = "align",
        /// Keep the owner where it stands (default `false`). Single-bone mode; takes
        /// precedence over `align`.
        opt keep_world_transform: bool = "keepWorldTransform",
        /// Bone-to-bone mode: `{ chainRoot: bone }`, the base bone an unmatched chain hangs
        /// from.
        opt graft: Table<String> = "graft",
        /// `true` drops an inherited link.
        opt removed: bool = "removed",
    }
}

impl ArmatureLink {
    /// `align`, default `true`.
    pub fn align_or_default(&self) -> bool {
        self.align.unwrap_or(true)
    }
    /// `keepWorldTransform`, default `false`.
    pub fn keep_world_transform_or_default(&self) -> bool {
        self.keep_world_transform.unwrap_or(false)
    }

    /// The link's rules: `graft` is bone-to-bone mode and `bone` / `keepWorldTransform`
    /// single-bone mode, so one link cannot state both; and on a layer with nothing
    /// beneath it, a rigless owner (one carrying no `dh.skeleton`) requires `bone`.
    pub fn validate(&self, cx: &mut Cx, layer: Layer, owner_has_skeleton: bool) {
        if self.graft.is_some() {
            for single in ["bone", "keepWorldTransform"] {
                if self.at.has(single) {
                    cx.error_at(
                        &self.at,
                        self.at.field("graft"),
                        format!(
                            "'graft' is bone-to-bone mode and '{single}' single-bone mode; one link cannot state both"
                        ),
                    );
                }
            }
        }
        if layer == Layer::Base && !owner_has_skeleton && self.bone.is_none() && !self.is_removed()
        {
            cx.error_at(
                &self.at,
                self.at.span,
                "this owner carries no 'dh.skeleton', so its link is a single-bone attachment, which requires 'bone'",
            );
        }
    }

    /// Whether this entry removes an inherited link.
    pub fn is_removed(&self) -> bool {
        self.removed == Some(true)
    }
}

// ---- dh.reaction, dh.playSound, dh.speakSound ------------------------------------------

tokens! {
    /// A game event a reaction answers.
    pub enum ReactionEvent as "reaction event" {
        /// `died`
        #[default]
        Died = "died",
        /// `revived`
        Revived = "revived",
        /// `dying`
        Dying = "dying",
        /// `jumped`
        Jumped = "jumped",
        /// `footstep` (tiers `walk`, `run`)
        Footstep = "footstep",
        /// `landedHard`
        LandedHard = "landedHard",
        /// `damaged` (tiers `small`, `big`)
        Damaged = "damaged",
    }
}

tokens! {
    /// A tier narrowing a reaction.
    pub enum ReactionTier as "reaction tier" {
        /// `footstep`'s walk.
        #[default]
        Walk = "walk",
        /// `footstep`'s run.
        Run = "run",
        /// `damaged`'s small.
        Small = "small",
        /// `damaged`'s big.
        Big = "big",
    }
}

impl ReactionEvent {
    /// The tiers this event has (none for most).
    pub fn tiers(self) -> &'static [ReactionTier] {
        match self {
            ReactionEvent::Footstep => &[ReactionTier::Walk, ReactionTier::Run],
            ReactionEvent::Damaged => &[ReactionTier::Small, ReactionTier::Big],
            _ => &[],
        }
    }
}

/// The extensions of a stored audio file a clip may name.
pub const AUDIO_EXTENSIONS: &[&str] = &[".wav", ".ogg", ".mp3", ".flac", ".aif"];

block! {
    /// `dh.playSound`: a sound from the avatar's body, never the mouth.
    pub struct PlaySound = "dh.playSound" {
        /// Stored audio files; one is picked at random each time.
        req clips: Vec<String> = "clips",
        /// The bone the sound comes from; unset, the avatar's center.
        opt bone: String = "bone",
    }
}

block! {
    /// `dh.speakSound`: a sound from the avatar's mouth, positioned at the head.
    pub struct SpeakSound = "dh.speakSound" {
        /// Stored audio files; one is picked at random each time.
        req clips: Vec<String> = "clips",
        /// Whether the clip's amplitude drives the mouth (default `true`).
        opt mouth: bool = "mouth",
    }
}

impl SpeakSound {
    /// `mouth`, default `true`.
    pub fn mouth_or_default(&self) -> bool {
        self.mouth.unwrap_or(true)
    }
}

tagged! {
    /// An action a reaction runs: one of the two sounds.
    pub enum ReactionAction by "$type" as "reaction action" {
        /// `dh.playSound`
        "dh.playSound" => PlaySound(PlaySound),
        /// `dh.speakSound`
        "dh.speakSound" => SpeakSound(SpeakSound),
    }
}

impl ReactionAction {
    fn clips_at(&self) -> (&[String], &At) {
        match self {
            ReactionAction::PlaySound(s) => (&s.clips, &s.at),
            ReactionAction::SpeakSound(s) => (&s.clips, &s.at),
        }
    }

    /// A clip that is not a stored audio file is refused; a sound with no clips warns.
    pub fn validate(&self, cx: &mut Cx) {
        let (clips, at) = self.clips_at();
        if clips.is_empty() && at.has("clips") {
            cx.warning_at(
                at,
                at.field("clips"),
                format!("'{}' has no clips, so it plays nothing", self.tag()),
            );
        }
        for clip in clips {
            let lower = clip.to_ascii_lowercase();
            if !AUDIO_EXTENSIONS.iter().any(|e| lower.ends_with(e)) {
                cx.error_at(
                    at,
                    at.field("clips"),
                    format!(
                        "clip '{clip}' is not a stored audio file; a clip is a {}",
                        AUDIO_EXTENSIONS.join(", ")
                    ),
                );
            }
        }
    }
}

block! {
    /// `dh.reaction`: what the avatar does when a game reports an event about it. Keyed
    /// by `on` and `tier`.
    pub struct Reaction = "dh.reaction" {
        /// The event.
        req on: ReactionEvent = "on",
        /// Narrows the reaction to one tier of the event.
        opt tier: ReactionTier = "tier",
        /// What runs at the event, in order. A list: restated, it replaces whole.
        opt actions: Vec<ReactionAction> = "actions",
        /// `true` drops the inherited reaction with this key.
        opt removed: bool = "removed",
    }
}

impl Reaction {
    /// Whether this entry removes an inherited reaction.
    pub fn is_removed(&self) -> bool {
        self.removed == Some(true)
    }

    /// A tier its event does not have is refused, `actions` is required unless the entry
    /// removes the reaction, and each action's own rules.
    pub fn validate(&self, cx: &mut Cx) {
        if let Some(tier) = self.tier {
            let tiers = self.on.tiers();
            if self.at.has("on") && !tiers.contains(&tier) {
                let msg = if tiers.is_empty() {
                    format!(
                        "'{tier}' is not a tier of '{}', which has no tiers",
                        self.on
                    )
                } else {
                    let names: Vec<&str> = tiers.iter().map(|t| t.as_str()).collect();
                    format!(
                        "'{tier}' is not a tier of '{}'; its tiers are: {}",
                        self.on,
                        names.join(", ")
                    )
                };
                cx.error_at(&self.at, self.at.field("tier"), msg);
            }
        }
        if self.actions.is_none() && !self.is_removed() {
            cx.error_at(
                &self.at,
                self.at.span,
                "dh.reaction is missing its required member 'actions'",
            );
        }
        for a in self.actions.iter().flatten() {
            a.validate(cx);
        }
    }

    /// The reaction's key, `on` and `tier`, as messages name it.
    pub fn key(&self) -> String {
        match self.tier {
            Some(t) => format!("on '{}' tier '{t}'", self.on),
            None => format!("on '{}'", self.on),
        }
    }
}

// ---- dh.voxelBlock, dh.lod -------------------------------------------------------------

block! {
    /// `dh.voxelBlock`: the object is drawn as the voxel cells it stands for.
    pub struct VoxelBlock = "dh.voxelBlock" {
        /// The volume placement it stands for, `grid:x,y,z`. Empty on a pallet object.
        opt placement: String = "placement",
        /// `true` drops an inherited voxelBlock.
        opt removed: bool = "removed",
    }
}

/// Parses a voxel placement `grid:x,y,z` into its grid and keying cell.
pub fn parse_placement(s: &str) -> Option<(&str, [i64; 3])> {
    let (grid, cell) = s.rsplit_once(':')?;
    if grid.is_empty() {
        return None;
    }
    let mut out = [0i64; 3];
    let mut parts = cell.split(',');
    for slot in out.iter_mut() {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some((grid, out))
}

impl VoxelBlock {
    /// A pallet object carries it empty (the placement is generated at load, never
    /// saved); a placement that is written must be `grid:x,y,z`.
    pub fn validate(&self, cx: &mut Cx) {
        let Some(p) = self.placement.as_deref().filter(|p| !p.is_empty()) else {
            return;
        };
        if parse_placement(p).is_none() {
            cx.error_at(
                &self.at,
                self.at.field("placement"),
                format!("'{p}' is not a voxel placement; expected grid:x,y,z (e.g. 0:50,14,27)"),
            );
        } else if cx.mode == Mode::Build {
            cx.error_at(
                &self.at,
                self.at.field("placement"),
                "a pallet object carries 'dh.voxelBlock' empty: its placement is generated at load, never saved",
            );
        }
    }
}

block! {
    /// `dh.lod`: reserved and deferred. The type parses so that an object carrying it
    /// gets the deferral's sentence rather than an unknown-component error.
    pub struct Lod = "dh.lod" {}
}

/// The error an object carrying `dh.lod` gets.
pub const LOD_DEFERRED: &str =
    "'dh.lod' is reserved and deferred. Level-of-detail data is not designed yet, and an object carrying dh.lod is a compile error";

// ---- The union -------------------------------------------------------------------------

tagged! {
    /// A component on an object's root, a part's override or an added record's root,
    /// discriminated by `$type`.
    pub enum ObjectComponent by "$type" as "object component" {
        /// `dh.renderer`
        "dh.renderer" => Renderer(Renderer),
        /// `dh.skeleton`
        "dh.skeleton" => Skeleton(Skeleton),
        /// `dh.eyes`
        "dh.eyes" => Eyes(Eyes),
        /// `dh.springBone`
        "dh.springBone" => SpringBone(SpringBone),
        /// `dh.springCollider`
        "dh.springCollider" => SpringCollider(SpringCollider),
        /// `dh.armatureLink`
        "dh.armatureLink" => ArmatureLink(ArmatureLink),
        /// `dh.reaction`
        "dh.reaction" => Reaction(Reaction),
        /// `dh.box`
        "dh.box" => Box(ObjectBox),
        /// `dh.collider`
        "dh.collider" => Collider(ObjectCollider),
        /// `dh.physicsProp`
        "dh.physicsProp" => PhysicsProp(ObjectPhysicsProp),
        /// `dh.mover`
        "dh.mover" => Mover(ObjectMover),
        /// `dh.button`
        "dh.button" => Button(ObjectButton),
        /// `dh.pressurePlate`
        "dh.pressurePlate" => PressurePlate(ObjectPressurePlate),
        /// `dh.voxelBlock`
        "dh.voxelBlock" => VoxelBlock(VoxelBlock),
        /// `dh.bake`
        "dh.bake" => Bake(ObjectBake),
        /// `dh.lod` (reserved; refused)
        "dh.lod" => Lod(Lod),
    } unknown Unknown
}

/// Who owns a components list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// The object's root, or an added record's root.
    Root,
    /// A part's override.
    Part,
}

/// Whether a layer has anything beneath it to inherit from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The lowest layer (an object with no `inherits`): a member it leaves out takes its
    /// default, and a required member is required.
    Base,
    /// A layer of overrides (a variant, an added record over its source): a member it
    /// leaves out inherits.
    Override,
}

/// The components an object's root takes, in the spec's order.
pub const ROOT_TAKES: &[&str] = &[
    "dh.renderer",
    "dh.skeleton",
    "dh.eyes",
    "dh.springCollider",
    "dh.armatureLink",
    "dh.reaction",
    "dh.box",
    "dh.collider",
    "dh.physicsProp",
    "dh.mover",
    "dh.button",
    "dh.pressurePlate",
    "dh.voxelBlock",
];

/// The components a part takes, in the spec's order.
pub const PART_TAKES: &[&str] = &[
    "dh.renderer",
    "dh.skeleton",
    "dh.springBone",
    "dh.armatureLink",
    "dh.collider",
    "dh.physicsProp",
    "dh.bake",
];

impl Owner {
    /// The components this owner takes.
    pub fn takes(self) -> &'static [&'static str] {
        match self {
            Owner::Root => ROOT_TAKES,
            Owner::Part => PART_TAKES,
        }
    }

    /// How messages name the owner.
    pub fn describe(self) -> &'static str {
        match self {
            Owner::Root => "the object's root",
            Owner::Part => "a part",
        }
    }
}

/// What a component's rules need to know about its owner.
#[derive(Debug, Clone)]
pub struct OwnerCx {
    /// Root or part.
    pub owner: Owner,
    /// Base or override layer.
    pub layer: Layer,
    /// Whether the owner's own list carries a `dh.skeleton` (an armature link's mode).
    pub has_skeleton: bool,
    /// How the shared map components' messages name the owner, in place of the map's
    /// `Map entity #N (object dh.box)`: e.g. `object root`, `part 'Armature/Body'`.
    pub label: String,
}

impl ObjectComponent {
    /// Whether this entry says `"removed": true`.
    pub fn is_removed(&self) -> bool {
        let r = match self {
            ObjectComponent::Renderer(c) => c.removed,
            ObjectComponent::Skeleton(c) => c.removed,
            ObjectComponent::Eyes(c) => c.removed,
            ObjectComponent::SpringBone(c) => c.removed,
            ObjectComponent::SpringCollider(c) => c.removed,
            ObjectComponent::ArmatureLink(c) => c.removed,
            ObjectComponent::Reaction(c) => c.removed,
            ObjectComponent::Box(c) => c.removed,
            ObjectComponent::Collider(c) => c.removed,
            ObjectComponent::PhysicsProp(c) => c.removed,
            ObjectComponent::Mover(c) => c.removed,
            ObjectComponent::Button(c) => c.removed,
            ObjectComponent::PressurePlate(c) => c.removed,
            ObjectComponent::VoxelBlock(c) => c.removed,
            ObjectComponent::Bake(c) => c.removed,
            ObjectComponent::Lod(_) => None,
            ObjectComponent::Unknown(v) => v.get("removed").and_then(|r| match r.kind {
                crate::jsonc::Kind::Bool(b) => Some(b),
                _ => None,
            }),
        };
        r == Some(true)
    }

    /// Where the component was read from (`None` for one kept whole as JSON).
    pub fn at(&self) -> Option<&At> {
        Some(match self {
            ObjectComponent::Renderer(c) => &c.at,
            ObjectComponent::Skeleton(c) => &c.at,
            ObjectComponent::Eyes(c) => &c.at,
            ObjectComponent::SpringBone(c) => &c.at,
            ObjectComponent::SpringCollider(c) => &c.at,
            ObjectComponent::ArmatureLink(c) => &c.at,
            ObjectComponent::Reaction(c) => &c.at,
            ObjectComponent::Box(c) => &c.at,
            ObjectComponent::Collider(c) => &c.at,
            ObjectComponent::PhysicsProp(c) => &c.at,
            ObjectComponent::Mover(c) => &c.at,
            ObjectComponent::Button(c) => &c.at,
            ObjectComponent::PressurePlate(c) => &c.at,
            ObjectComponent::VoxelBlock(c) => &c.at,
            ObjectComponent::Bake(c) => &c.at,
            ObjectComponent::Lod(c) => &c.at,
            ObjectComponent::Unknown(_) => return None,
        })
    }

    /// The key the merge rule matches this component by, beside its type: a
    /// springCollider's id, a reaction's `on` and `tier`; `None` for a type with no key.
    pub fn key(&self) -> Option<String> {
        match self {
            ObjectComponent::SpringCollider(c) => Some(format!("id '{}'", c.id)),
            ObjectComponent::Reaction(r) => Some(r.key()),
            _ => None,
        }
    }

    /// The component's own rules, given its owner. Which owner takes it and the one of
    /// each type per key rule are the owner list's ([`validate_components`]).
    pub fn validate(&self, cx: &mut Cx, ocx: &OwnerCx) {
        match self {
            ObjectComponent::Renderer(r) => {
                check_object_materials(cx, self);
                if r.generated.is_some() && cx.mode == Mode::Build {
                    cx.error_at(
                        &r.at,
                        r.at.field("generated"),
                        "'generated' is the compiler's mark alone: a source stating it is a build error",
                    );
                }
            }
            ObjectComponent::Skeleton(_) => {}
            ObjectComponent::Eyes(e) => e.validate(cx),
            ObjectComponent::SpringBone(s) => s.validate(cx, ocx.layer),
            ObjectComponent::SpringCollider(s) => s.validate(cx),
            ObjectComponent::ArmatureLink(l) => l.validate(cx, ocx.layer, ocx.has_skeleton),
            ObjectComponent::Reaction(r) => r.validate(cx),
            ObjectComponent::VoxelBlock(v) => v.validate(cx),
            ObjectComponent::Lod(l) => cx.error_at(&l.at, l.at.span, LOD_DEFERRED),
            ObjectComponent::Box(b) => {
                check_object_materials(cx, self);
                if ocx.layer == Layer::Base && b.inner.material.is_none() && !b.is_removed() {
                    cx.error_at(
                        &b.at,
                        b.at.span,
                        "dh.box is missing its required member 'material': with nothing beneath it to inherit from, a box names the .dh-mat its faces render with",
                    );
                }
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::Collider(b) => {
                check_object_materials(cx, self);
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::PhysicsProp(b) => {
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::Mover(b) => {
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::Button(b) => {
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::PressurePlate(b) => {
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::Bake(b) => {
                shared_validate(cx, ocx, self, b, |c, cx, ccx| c.validate(cx, ccx))
            }
            ObjectComponent::Unknown(_) => {}
        }
    }
}

/// The [`ComponentCx`] the shared map components' rules run under on an object: an
/// override layer (a member left out inherits, as on a map instance). An object owns no
/// map, so the names its components give a material or a bake zone are taken as known
/// here (the map's slot and zone tables do not apply) and checked by
/// [`check_object_materials`] instead.
pub fn object_component_cx(c: &ObjectComponent) -> ComponentCx {
    let mut ccx = ComponentCx {
        entity: 0,
        record_kind: "instance".to_string(),
        ..Default::default()
    };
    match c {
        ObjectComponent::Box(b) => ccx.material_slots.extend(b.inner.material.clone()),
        ObjectComponent::Collider(col) => {
            ccx.material_slots.extend(col.inner.material.clone());
            for s in col.inner.shapes.iter().flatten() {
                ccx.material_slots.extend(s.material().map(str::to_string));
            }
        }
        ObjectComponent::Bake(b) => ccx.bake_zones.extend(b.inner.zone.clone()),
        _ => {}
    }
    ccx
}

/// Whether `s` names a dh.material asset (relative, `/`-rooted or `palletId:path`).
pub fn is_material_asset(s: &str) -> bool {
    s.ends_with(".dh-mat")
}

fn check_material_asset(cx: &mut Cx, at: &At, field: &str, material: &str) {
    if !is_material_asset(material) {
        cx.error_at(
            at,
            at.field(field),
            format!(
                "'{field}' names '{material}', which is not a dh.material: an object owns no map and therefore no material slot table, so it names a .dh-mat asset"
            ),
        );
    }
}

/// An object's materials name assets: a box's, a collider's and its shapes', and every
/// slot of a renderer.
pub fn check_object_materials(cx: &mut Cx, c: &ObjectComponent) {
    match c {
        ObjectComponent::Box(b) => {
            if let Some(m) = &b.inner.material {
                check_material_asset(cx, &b.at, "material", m);
            }
        }
        ObjectComponent::Collider(col) => {
            if let Some(m) = &col.inner.material {
                check_material_asset(cx, &col.at, "material", m);
            }
            for s in col.inner.shapes.iter().flatten() {
                if let Some(m) = s.material() {
                    check_material_asset(cx, s.at(), "material", m);
                }
            }
        }
        ObjectComponent::Renderer(r) => {
            for (slot, span, m) in r.materials.iter().flat_map(|t| t.entries.iter()) {
                if !is_material_asset(m) {
                    let at = At {
                        span: *span,
                        path: r.at.field_path("materials"),
                        fields: Vec::new(),
                    };
                    cx.error_at(
                        &at,
                        *span,
                        format!(
                            "slot '{slot}' names '{m}', which is not a dh.material; a renderer binds a .dh-mat per slot"
                        ),
                    );
                }
            }
        }
        _ => {}
    }
}

/// Runs a shared map component's own rules, reporting its messages against the object's
/// owner rather than a map entity; on a base layer, reports the required members it
/// left out.
fn shared_validate<T: Block>(
    cx: &mut Cx,
    ocx: &OwnerCx,
    whole: &ObjectComponent,
    c: &Shared<T>,
    rules: impl FnOnce(&T, &mut Cx, &ComponentCx),
) {
    if c.is_removed() {
        return;
    }
    if ocx.layer == Layer::Base {
        c.report_missing(cx);
    }
    let ccx = object_component_cx(whole);
    let map_label = ccx.label(T::BLOCK);
    let before = cx.diags.items.len();
    rules(&c.inner, cx, &ccx);
    let ours = format!("{} ({})", ocx.label, T::BLOCK);
    for d in cx.diags.items.iter_mut().skip(before) {
        if d.message.contains(&map_label) {
            d.message = d.message.replace(&map_label, &ours);
        }
    }
}

/// The rules of one owner's components list: each component's own rules, which owner takes
/// which ("a component on an owner that does not take it is a build error naming what that
/// owner takes"), and one of each type per key.
pub fn validate_components(cx: &mut Cx, ocx: &OwnerCx, components: &[ObjectComponent]) {
    let mut seen: Vec<(String, Option<String>)> = Vec::new();
    for c in components {
        let Some(at) = c.at() else {
            continue;
        };
        let tag = c.tag();
        if matches!(c, ObjectComponent::Lod(_)) {
            c.validate(cx, ocx);
            continue;
        }
        if !ocx.owner.takes().contains(&tag) {
            let other = match ocx.owner {
                Owner::Root => Owner::Part,
                Owner::Part => Owner::Root,
            };
            let hint = if other.takes().contains(&tag) {
                format!(" ('{tag}' goes on {})", other.describe())
            } else {
                String::new()
            };
            cx.error_at(
                at,
                at.span,
                format!(
                    "{} does not take '{tag}'{hint}; {} takes: {}",
                    capitalize(ocx.owner.describe()),
                    ocx.owner.describe(),
                    ocx.owner.takes().join(", ")
                ),
            );
            continue;
        }
        let key = c.key();
        if seen.iter().any(|(t, k)| t == tag && *k == key) {
            let msg = match &key {
                Some(k) => format!("carries more than one '{tag}' with {k}; an owner holds one of each type per key"),
                None => format!("carries more than one '{tag}'; an owner holds one of each type"),
            };
            cx.error_at(at, at.span, msg);
        } else {
            seen.push((tag.to_string(), key));
        }
        c.validate(cx, ocx);
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};
    use crate::read::parse_source;

    block! {
        /// A map component with a required member, to exercise [`Shared`].
        pub struct Needy = "dh.needy" {
            /// Required.
            req level: f64 = "level",
            /// Optional.
            opt note: String = "note",
        }
    }
    shared_component!(
        /// The object form of [`Needy`].
        ObjectNeedy = Needy, NEEDY_FIELDS
    );

    fn read_needy(text: &str) -> (Option<ObjectNeedy>, Diagnostics) {
        let file = SourceFile::new("t.dh-obj", text);
        let mut d = Diagnostics::new();
        let v = parse_source(&file, &mut d).unwrap();
        let r = {
            let mut cx = Cx::new(&file, &mut d, Mode::Build);
            ObjectNeedy::from_json(&mut cx, &v)
        };
        (r, d)
    }

    #[test]
    fn shared_field_sets_gain_removed_once() {
        assert_eq!(
            <ObjectBox as Block>::FIELDS,
            &["size", "material", "removed"]
        );
        assert_eq!(<ObjectButton as Block>::FIELDS, &["removed"]);
        assert_eq!(
            <ObjectNeedy as Block>::FIELDS,
            &["level", "note", "removed"]
        );
        assert_eq!(with_removed_len(&["a", "removed"]), 2);
        assert_eq!(with_removed::<2>(&["a", "removed"]), ["a", "removed"]);
    }

    #[test]
    fn shared_keeps_a_missing_required_member_for_the_layer_to_decide() {
        let (n, d) = read_needy(r#"{ "note": "x", "removed": true }"#);
        assert!(d.items.is_empty(), "{d}");
        let n = n.unwrap();
        assert_eq!(n.missing, vec!["level"]);
        assert!(n.is_removed());
        assert_eq!(n.to_json().to_json(), r#"{"note":"x","removed":true}"#);

        // With nothing beneath it, the layer reports it as the reader would have.
        let file = SourceFile::new("t.dh-obj", "{}");
        let mut d = Diagnostics::new();
        n.report_missing(&mut Cx::new(&file, &mut d, Mode::Build));
        assert_eq!(
            d.items[0].message,
            "dh.needy is missing its required member 'level'"
        );

        // Other errors are left where they are.
        let (_, d) = read_needy(r#"{ "level": "high", "extra": 1 }"#);
        let m: Vec<&str> = d.items.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            m,
            vec![
                "expected a number, found a string",
                "unknown member 'extra' in dh.needy; the fields of dh.needy are: level, note, removed",
            ]
        );
    }

    #[test]
    fn camel_case_ids() {
        assert!(is_camel_case("chest"));
        assert!(is_camel_case("leftUpperLeg2"));
        assert!(!is_camel_case("Chest"));
        assert!(!is_camel_case("left_upper"));
        assert!(!is_camel_case(""));
        assert!(!is_camel_case("9lives"));
    }

    #[test]
    fn placements_parse_grid_and_cell() {
        assert_eq!(parse_placement("0:50,14,27"), Some(("0", [50, 14, 27])));
        assert_eq!(
            parse_placement("minecraft:the_nether:-3,64,-7"),
            Some(("minecraft:the_nether", [-3, 64, -7]))
        );
        assert_eq!(parse_placement("0:50,14"), None);
        assert_eq!(parse_placement(":1,2,3"), None);
        assert_eq!(parse_placement("0:1,2,3,4"), None);
        assert_eq!(parse_placement("0:1,x,3"), None);
    }

    #[test]
    fn reaction_tiers_by_event() {
        assert_eq!(
            ReactionEvent::Footstep.tiers(),
            &[ReactionTier::Walk, ReactionTier::Run]
        );
        assert_eq!(
            ReactionEvent::Damaged.tiers(),
            &[ReactionTier::Small, ReactionTier::Big]
        );
        assert!(ReactionEvent::LandedHard.tiers().is_empty());
    }

    #[test]
    fn humanoid_roles_are_the_55_standard_bones() {
        assert_eq!(HUMANOID_ROLES.len(), 55);
        assert!(HUMANOID_ROLES.contains(&"Chest"));
        assert!(HUMANOID_ROLES.contains(&"RightLittleDistal"));
    }
}
