//! The components that give an object a body and a surface: `dh.box`, `dh.bake`,
//! `dh.collider` (with its shapes) and `dh.physicsProp`.

use super::{ComponentCx, MapComponent};
use crate::read::{At, Cx};
use crate::schema::common::Vec3;

block! {
    /// `dh.box`: a solid, textured box drawn in its owner's frame. Static: it never
    /// replicates.
    pub struct DhBox = "dh.box" {
        /// Full extents (edge-to-edge) in meters before the owner's scale; `[1, 1, 1]` when
        /// left out. Every axis must be above zero.
        opt size: Vec3 = "size",
        /// A key into the map's `materials` table. Required on a map record; an instance's
        /// override layer may leave it to its source, or name an asset.
        opt material: String = "material",
    }
}

block! {
    /// `dh.bake`: how a rendered owner takes part in the lightmap bake. Static.
    pub struct Bake = "dh.bake" {
        /// Makes the owner's triangles light the bake (Bakery's light mesh). Its presence is
        /// the switch.
        opt emission: BakeEmission = "emission",
        /// The owner's texel density as a multiple of its zone's; `1` when left out, `0`
        /// takes it out of the atlas. Never negative.
        opt lightmap_scale: f64 = "lightmapScale",
        /// The id of the bake zone the owner and everything under it bake in.
        opt zone: String = "zone",
    }
}

block! {
    /// A `dh.bake`'s `emission`.
    pub struct BakeEmission = "dh.bake emission" {
        /// sRGB in [0, 1]; the material's emissive color when left out.
        opt color: Vec3 = "color",
        /// Linear; the material's `emissiveIntensity` when left out.
        opt intensity: f64 = "intensity",
        /// Shadow rays per sample; the map's `emissiveSamples` when left out, at most 64.
        opt samples: u32 = "samples",
    }
}

tokens! {
    /// A collider's state.
    pub enum ColliderState as "collider state" {
        /// Blocks (the default).
        #[default]
        Solid = "solid",
        /// No collision at all; the owner is still drawn and lit.
        Off = "off",
        /// Keeps the shape, blocks nothing: water reads it, a `dh.trigger` measures it.
        Trigger = "trigger",
    }
}

block! {
    /// `dh.collider`: what collides, in the owner's frame.
    pub struct Collider = "dh.collider" {
        /// `solid` (default), `off` or `trigger`.
        opt state: ColliderState = "state",
        /// One of the map's material slots: the bodies' surface identity.
        opt material: String = "material",
        /// The shapes. Absent on an owner holding a `dh.box`: the box itself (as one `auto`
        /// shape). `[]` collides with nothing.
        opt shapes: Vec<Shape> = "shapes",
        /// Written by the compiler on a collider it made for an owner that authored none.
        opt generated: bool = "generated",
        /// Only beside `"state": "off"`: whether the collider was a trigger before it was
        /// turned off, so turning it back on restores that (000, "Collider, static and
        /// enabled"). Beside `solid` or `trigger` it is refused.
        opt was_trigger: bool = "wasTrigger",
    }
}

block! {
    /// A `box` collider shape.
    pub struct BoxShape = "box shape" {
        /// Center in the owner's frame; `[0, 0, 0]` when left out.
        opt center: Vec3 = "center",
        /// Orientation in the owner's frame, euler degrees `[pitch, yaw, roll]`; `[0, 0, 0]`
        /// when left out (a `"boxes"` bake writes oriented boxes).
        opt rotation: Vec3 = "rotation",
        /// Half the box's extents on each axis; every axis above zero.
        req half_extents: Vec3 = "halfExtents",
        /// The shape's own surface, a material slot (a baked box takes its node's).
        opt material: String = "material",
        /// Written by the compiler on what an authored `auto` shape became.
        opt auto: bool = "auto",
    }
}

block! {
    /// A `sphere` collider shape.
    pub struct SphereShape = "sphere shape" {
        /// Center in the owner's frame; `[0, 0, 0]` when left out.
        opt center: Vec3 = "center",
        /// Radius in meters, above zero.
        req radius: f64 = "radius",
        /// The shape's own surface, a material slot.
        opt material: String = "material",
        /// Written by the compiler on what an authored `auto` shape became.
        opt auto: bool = "auto",
    }
}

block! {
    /// A `capsule` collider shape: a cylinder capped by two hemispheres, along its local Y.
    pub struct CapsuleShape = "capsule shape" {
        /// Center in the owner's frame; `[0, 0, 0]` when left out.
        opt center: Vec3 = "center",
        /// Orientation in the owner's frame, euler degrees; `[0, 0, 0]` stands it upright.
        opt rotation: Vec3 = "rotation",
        /// Radius in meters, above zero.
        req radius: f64 = "radius",
        /// Full height, cap tip to cap tip, in meters; at least twice the radius.
        req height: f64 = "height",
        /// The shape's own surface, a material slot.
        opt material: String = "material",
        /// Written by the compiler on what an authored `auto` shape became.
        opt auto: bool = "auto",
    }
}

block! {
    /// A `hull` collider shape: the convex hull of its points.
    pub struct HullShape = "hull shape" {
        /// The hull's points in the owner's frame; at least four.
        list points: Vec3 = "points",
        /// The shape's own surface, a material slot (a baked hull takes its node's).
        opt material: String = "material",
        /// Written by the compiler on what an authored `auto` shape became.
        opt auto: bool = "auto",
    }
}

block! {
    /// A `mesh` collider shape: the part's own triangles, which ship in the cook keyed by
    /// the part's scene id and the shape's index.
    pub struct MeshShape = "mesh shape" {
        /// The shape's own surface, a material slot.
        opt material: String = "material",
        /// Written by the compiler on what an authored `auto` shape became.
        opt auto: bool = "auto",
    }
}

block! {
    /// An `auto` collider shape: whatever the compiler makes of the owner (a brush's or a
    /// box's exact box; a part's shapes by `autoCollision`). Replaced in the output by what
    /// it produced, marked `"auto": true`.
    pub struct AutoShape = "auto shape" {}
}

tagged! {
    /// One shape of a `dh.collider`, discriminated by `type`.
    pub enum Shape by "type" as "collider shape" {
        /// `box`
        "box" => Box(BoxShape),
        /// `sphere`
        "sphere" => Sphere(SphereShape),
        /// `capsule`
        "capsule" => Capsule(CapsuleShape),
        /// `hull`
        "hull" => Hull(HullShape),
        /// `mesh`
        "mesh" => Mesh(MeshShape),
        /// `auto`
        "auto" => Auto(AutoShape),
    }
}

tokens! {
    /// Which machine simulates a physics prop.
    pub enum PhysicsSim as "physics prop sim" {
        /// The server's solver; the pose replicates (the default).
        #[default]
        Server = "server",
        /// Each client runs its own; nothing about it is on the wire.
        Client = "client",
    }
}

block! {
    /// `dh.physicsProp`: a rigid body the solver owns, on an object with a `dh.box`.
    pub struct PhysicsProp = "dh.physicsProp" {
        /// Kilograms, at least 0.001; from the box material's density when left out.
        opt mass: f64 = "mass",
        /// `server` (default) or `client`.
        opt sim: PhysicsSim = "sim",
    }
}

/// The smallest mass a physics prop may author, in kilograms.
pub const MIN_PROP_MASS: f64 = 0.001;

/// The mass of a prop whose box material names no density, in kilograms.
pub const DEFAULT_PROP_MASS: f64 = 35.0;

/// The most shadow rays per sample a `dh.bake` emission may spend.
pub const MAX_EMISSION_SAMPLES: u32 = 64;

fn vec_text(v: Vec3) -> String {
    format!("[{}, {}, {}]", v.x(), v.y(), v.z())
}

impl DhBox {
    /// The box's full extents: `size`, or `[1, 1, 1]` when left out.
    pub fn size_or_default(&self) -> Vec3 {
        self.size.unwrap_or(Vec3::ONE)
    }

    /// The box shape that stands for this box exactly: centered on the owner, half its size
    /// on each axis.
    pub fn exact_shape(&self) -> BoxShape {
        let s = self.size_or_default();
        BoxShape {
            half_extents: Vec3([s.x() / 2.0, s.y() / 2.0, s.z() / 2.0]),
            ..BoxShape::default()
        }
    }

    /// What an authored `auto` shape on this box's owner becomes: the exact box, marked
    /// `"auto": true`.
    pub fn auto_shape(&self) -> BoxShape {
        BoxShape {
            auto: Some(true),
            ..self.exact_shape()
        }
    }

    /// The collider the compiler gives an owner holding this box and no `dh.collider` of
    /// its own: one solid shape over the exact box, wearing the box's material, marked
    /// `"generated": true`.
    pub fn generated_collider(&self) -> Collider {
        Collider {
            state: None,
            material: self.material.clone(),
            shapes: Some(vec![Shape::Box(self.exact_shape())]),
            generated: Some(true),
            was_trigger: None,
            at: At::default(),
        }
    }

    /// Runs this component's build-time rules: every axis of `size` above zero, and a
    /// `material` that names one of the map's slots.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        if let Some(size) = self.size {
            if size.0.iter().any(|a| *a <= 0.0) {
                cx.error_at(
                    &self.at,
                    self.at.field("size"),
                    format!("{} 'size' must be positive", ccx.label("dh.box")),
                );
            }
        }
        match &self.material {
            Some(m) => ccx.check_material(cx, &self.at, "material", "dh.box", m),
            None if ccx.is_override_layer() => {}
            None => cx.error_at(
                &self.at,
                self.at.span,
                format!(
                    "{} 'material' is required: a key into the map's materials table",
                    ccx.label("dh.box")
                ),
            ),
        }
    }
}

impl Bake {
    /// The owner's lightmap scale: `lightmapScale`, or 1.
    pub fn lightmap_scale_or_default(&self) -> f64 {
        self.lightmap_scale.unwrap_or(1.0)
    }

    /// Runs this component's build-time rules: `lightmapScale` never negative, a `zone`
    /// that `lighting.bakeZones` defines, and an emission color in [0, 1].
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        if let Some(scale) = self.lightmap_scale {
            if scale < 0.0 {
                cx.error_at(
                    &self.at,
                    self.at.field("lightmapScale"),
                    format!(
                        "{} 'lightmapScale' must not be negative, found {scale}; 0 takes the owner out of the atlas",
                        ccx.label("dh.bake")
                    ),
                );
            }
        }
        if let Some(zone) = &self.zone {
            ccx.check_bake_zone(cx, &self.at, "zone", "dh.bake", zone);
        }
        if let Some(e) = &self.emission {
            if let Some(c) = e.color {
                if c.0.iter().any(|v| !(0.0..=1.0).contains(v)) {
                    cx.error_at(
                        &e.at,
                        e.at.field("color"),
                        format!(
                            "{} emission 'color' must be sRGB values in [0, 1], found {}; brightness belongs in 'intensity'",
                            ccx.label("dh.bake"),
                            vec_text(c)
                        ),
                    );
                }
            }
            if let Some(i) = e.intensity {
                if i < 0.0 {
                    cx.error_at(
                        &e.at,
                        e.at.field("intensity"),
                        format!(
                            "{} emission 'intensity' must not be negative, found {i}",
                            ccx.label("dh.bake")
                        ),
                    );
                }
            }
            if let Some(n) = e.samples {
                if n > MAX_EMISSION_SAMPLES {
                    cx.warning_at(
                        &e.at,
                        e.at.field("samples"),
                        format!(
                            "{} emission 'samples' is {n}, past the most of {MAX_EMISSION_SAMPLES}; the bake clamps it to {MAX_EMISSION_SAMPLES}",
                            ccx.label("dh.bake")
                        ),
                    );
                }
            }
        }
    }

    /// The rules that read the bake against its neighbors: on an object, a `dh.bake` goes
    /// beside a `dh.box`; and a box is not in the bake yet, so its `emission` and
    /// `lightmapScale` bake nothing (a warning; only its `zone` acts).
    pub fn validate_owner(&self, cx: &mut Cx, ccx: &ComponentCx, components: &[MapComponent]) {
        if !matches!(ccx.record_kind.as_str(), "object" | "boxBrush" | "") {
            return;
        }
        let has_box = components.iter().any(|c| matches!(c, MapComponent::Box(_)));
        if !has_box {
            cx.error_at(
                &self.at,
                self.at.span,
                format!(
                    "{} needs a 'dh.box' beside it: a plain object takes a 'dh.bake' only beside a box",
                    ccx.label("dh.bake")
                ),
            );
            return;
        }
        for field in ["emission", "lightmapScale"] {
            if self.at.has(field) {
                cx.warning_at(
                    &self.at,
                    self.at.field(field),
                    format!(
                        "{} '{field}' bakes nothing yet: a box is not in the bake (it is lit from the probes); only its 'zone' acts",
                        ccx.label("dh.bake")
                    ),
                );
            }
        }
    }
}

impl Shape {
    /// The shape's name as its `type` member writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Box(_) => "box",
            Shape::Sphere(_) => "sphere",
            Shape::Capsule(_) => "capsule",
            Shape::Hull(_) => "hull",
            Shape::Mesh(_) => "mesh",
            Shape::Auto(_) => "auto",
        }
    }

    /// Where the shape was read from.
    pub fn at(&self) -> &At {
        match self {
            Shape::Box(s) => &s.at,
            Shape::Sphere(s) => &s.at,
            Shape::Capsule(s) => &s.at,
            Shape::Hull(s) => &s.at,
            Shape::Mesh(s) => &s.at,
            Shape::Auto(s) => &s.at,
        }
    }

    /// The shape's own material slot, if it names one.
    pub fn material(&self) -> Option<&str> {
        match self {
            Shape::Box(s) => s.material.as_deref(),
            Shape::Sphere(s) => s.material.as_deref(),
            Shape::Capsule(s) => s.material.as_deref(),
            Shape::Hull(s) => s.material.as_deref(),
            Shape::Mesh(s) => s.material.as_deref(),
            Shape::Auto(_) => None,
        }
    }
}

/// The least number of points a hull shape holds.
pub const MIN_HULL_POINTS: usize = 4;

impl Collider {
    /// The collider's state: `state`, or `solid`.
    pub fn state_or_default(&self) -> ColliderState {
        self.state.unwrap_or_default()
    }

    /// Whether the compiler made this collider (`"generated": true`).
    pub fn is_generated(&self) -> bool {
        self.generated == Some(true)
    }

    /// How many shapes the collider holds as written (an absent list holds none).
    pub fn shape_count(&self) -> usize {
        self.shapes.as_ref().map_or(0, Vec::len)
    }

    /// Runs this component's build-time rules: the collider's and every shape's material a
    /// known slot, and each shape's dimensions: a box's half extents and a sphere's or
    /// capsule's radius above zero, a capsule at least as tall as it is wide, a hull of at
    /// least four points.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.collider");
        if self.was_trigger.is_some() && self.state_or_default() != ColliderState::Off {
            cx.error_at(
                &self.at,
                self.at.field("wasTrigger"),
                format!(
                    "{label} 'wasTrigger' is only for \"state\": \"off\" (it remembers what turning the collider back on restores); \"{}\" already says its own trigger-ness",
                    self.state_or_default().as_str()
                ),
            );
        }
        if let Some(m) = &self.material {
            ccx.check_material(cx, &self.at, "material", "dh.collider", m);
        }
        for (i, shape) in self.shapes.iter().flatten().enumerate() {
            let at = shape.at();
            if let Some(m) = shape.material() {
                ccx.check_material(cx, at, "material", "dh.collider", m);
            }
            let kind = shape.kind();
            match shape {
                Shape::Box(b) => {
                    if b.at.has("halfExtents") && b.half_extents.0.iter().any(|a| *a <= 0.0) {
                        cx.error_at(
                            at,
                            at.field("halfExtents"),
                            format!(
                                "{label} shapes[{i}] ({kind}) 'halfExtents' must be positive on every axis, found {}",
                                vec_text(b.half_extents)
                            ),
                        );
                    }
                }
                Shape::Sphere(s) => {
                    if s.at.has("radius") && s.radius <= 0.0 {
                        cx.error_at(
                            at,
                            at.field("radius"),
                            format!(
                                "{label} shapes[{i}] ({kind}) 'radius' must be above zero, found {}",
                                s.radius
                            ),
                        );
                    }
                }
                Shape::Capsule(c) => {
                    if c.at.has("radius") && c.radius <= 0.0 {
                        cx.error_at(
                            at,
                            at.field("radius"),
                            format!(
                                "{label} shapes[{i}] ({kind}) 'radius' must be above zero, found {}",
                                c.radius
                            ),
                        );
                    } else if c.at.has("height") && c.height < 2.0 * c.radius {
                        cx.error_at(
                            at,
                            at.field("height"),
                            format!(
                                "{label} shapes[{i}] ({kind}) 'height' is the full height, cap to cap, and must be at least twice the radius ({}), found {}",
                                2.0 * c.radius,
                                c.height
                            ),
                        );
                    }
                }
                Shape::Hull(h) => {
                    if h.points.len() < MIN_HULL_POINTS {
                        cx.error_at(
                            at,
                            at.field("points"),
                            format!(
                                "{label} shapes[{i}] ({kind}) needs at least {MIN_HULL_POINTS} 'points', found {}",
                                h.points.len()
                            ),
                        );
                    }
                }
                Shape::Mesh(_) | Shape::Auto(_) => {}
            }
        }
    }
}

impl PhysicsProp {
    /// Which machine simulates the prop: `sim`, or the server.
    pub fn sim_or_default(&self) -> PhysicsSim {
        self.sim.unwrap_or_default()
    }

    /// Runs this component's own build-time rule: a `mass` of at least 0.001 kg.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        if let Some(mass) = self.mass {
            if mass < MIN_PROP_MASS {
                cx.error_at(
                    &self.at,
                    self.at.field("mass"),
                    format!(
                        "{} 'mass' must be at least {MIN_PROP_MASS} kg, found {mass}",
                        ccx.label("dh.physicsProp")
                    ),
                );
            }
        }
    }

    /// The rules that read the prop against its object, each a build error saying the
    /// body is the solver's: a prop with no `dh.box`, a collider that is not exactly one box
    /// shape, a box shape moved or turned off the object's origin, and a prop sharing its
    /// object with a `dh.mover`, a `dh.button` or a `dh.pressurePlate`. Checked on map
    /// objects and brushes; an instance's components are departures from its source, whose
    /// body the object's own build checks.
    pub fn validate_owner(&self, cx: &mut Cx, ccx: &ComponentCx, components: &[MapComponent]) {
        if !matches!(ccx.record_kind.as_str(), "object" | "boxBrush" | "") {
            return;
        }
        let span = self.at.span;
        if !components.iter().any(|c| matches!(c, MapComponent::Box(_))) {
            cx.error_at(
                &self.at,
                span,
                "'dh.physicsProp' needs a 'dh.box' on its object: the box is what the prop looks like and what its material weighs",
            );
        }
        for c in components {
            let other = match c {
                MapComponent::Mover(_) => "dh.mover",
                MapComponent::Button(_) => "dh.button",
                MapComponent::PressurePlate(_) => "dh.pressurePlate",
                _ => continue,
            };
            cx.error_at(
                &self.at,
                span,
                format!(
                    "'dh.physicsProp' cannot share its object with a '{other}': the body is the solver's alone"
                ),
            );
        }
        let Some(collider) = components.iter().find_map(|c| match c {
            MapComponent::Collider(c) => Some(c),
            _ => None,
        }) else {
            return; // the compiler gives the box its exact collider
        };
        let Some(shapes) = &collider.shapes else {
            return; // no shapes written: the object's box itself
        };
        if shapes.len() != 1 {
            cx.error_at(
                &collider.at,
                collider.at.field("shapes"),
                format!(
                    "'dh.physicsProp' needs exactly one shape in its object's 'dh.collider', which holds {}",
                    shapes.len()
                ),
            );
            return;
        }
        match shapes.first() {
            Some(Shape::Box(b)) => {
                for (field, value) in [("center", b.center), ("rotation", b.rotation)] {
                    if let Some(v) = value.filter(|v| *v != Vec3::ZERO) {
                        cx.error_at(
                            &b.at,
                            b.at.field(field),
                            format!(
                                "'dh.physicsProp' needs its box shape on the object's origin: the solver poses the object by its body, so the shape's '{field}' must be [0, 0, 0], found {}",
                                vec_text(v)
                            ),
                        );
                    }
                }
            }
            Some(Shape::Auto(_)) | None => {}
            Some(other) => cx.error_at(
                other.at(),
                other.at().span,
                format!(
                    "'dh.physicsProp' needs exactly one box shape in its object's 'dh.collider', which holds a {}",
                    other.kind()
                ),
            ),
        }
    }
}
