//! Every component a map record can carry, as one discriminated union on `$type`, and the
//! per-component build-time rules.

pub mod geometry;
pub mod light;
pub mod logic;
pub mod probes;
pub mod signals;
pub mod view;
pub mod voxel_volume;

pub use geometry::{Bake, Collider, DhBox, PhysicsProp};
pub use light::Light;
pub use logic::{
    AndGate, Button, MapStart, Mover, NotGate, OrGate, PressurePlate, Teleport, Timer, Trigger,
};
pub use probes::{LightProbeGroup, LightProbeVolume, ReflectionProbe};
pub use view::{Camera, SpawnPoint};
pub use voxel_volume::VoxelVolume;

tagged! {
    /// A component on a map record, discriminated by `$type`.
    pub enum MapComponent by "$type" as "component" {
        /// `dh.box`
        "dh.box" => Box(DhBox),
        /// `dh.bake`
        "dh.bake" => Bake(Bake),
        /// `dh.collider`
        "dh.collider" => Collider(Collider),
        /// `dh.spawnPoint`
        "dh.spawnPoint" => SpawnPoint(SpawnPoint),
        /// `dh.camera`
        "dh.camera" => Camera(Camera),
        /// `dh.lightProbeVolume`
        "dh.lightProbeVolume" => LightProbeVolume(LightProbeVolume),
        /// `dh.lightProbeGroup`
        "dh.lightProbeGroup" => LightProbeGroup(LightProbeGroup),
        /// `dh.reflectionProbe`
        "dh.reflectionProbe" => ReflectionProbe(ReflectionProbe),
        /// `dh.button`
        "dh.button" => Button(Button),
        /// `dh.mover`
        "dh.mover" => Mover(Mover),
        /// `dh.pressurePlate`
        "dh.pressurePlate" => PressurePlate(PressurePlate),
        /// `dh.trigger`
        "dh.trigger" => Trigger(Trigger),
        /// `dh.teleport`
        "dh.teleport" => Teleport(Teleport),
        /// `dh.timer`
        "dh.timer" => Timer(Timer),
        /// `dh.mapStart`
        "dh.mapStart" => MapStart(MapStart),
        /// `dh.andGate`
        "dh.andGate" => AndGate(AndGate),
        /// `dh.orGate`
        "dh.orGate" => OrGate(OrGate),
        /// `dh.notGate`
        "dh.notGate" => NotGate(NotGate),
        /// `dh.physicsProp`
        "dh.physicsProp" => PhysicsProp(PhysicsProp),
        /// `dh.light`
        "dh.light" => Light(Light),
        /// `dh.voxelVolume`
        "dh.voxelVolume" => VoxelVolume(VoxelVolume),
    } unknown Unknown
}

use crate::read::{At, Cx};
use crate::schema::common::Vec3;

/// What a component's rules need to know about the record and map around it.
///
/// The records engineer fills one per record and passes it to [`MapComponent::validate`]
/// (one component) or [`validate_components`] (a record's whole list, with the rules that
/// look at a component's neighbors). Every field has a meaningful default, so a caller may
/// write `ComponentCx { entity: 3, record_kind: "object".into(), ..Default::default() }`.
#[derive(Debug, Clone, Default)]
pub struct ComponentCx {
    /// The record's index in the map's `objects` list (the spec's "Map entity #N").
    pub entity: usize,
    /// The record's kind as the spec names it in messages (`object`, `boxBrush`, ...).
    pub record_kind: String,
    /// The map's material slot names (the keys of its `materials`).
    pub material_slots: Vec<String>,
    /// Whether the map's lighting has an enabled lightmap.
    pub lightmap_enabled: bool,
    /// The record's `name` as written (`None` when absent). A camera's shot is named by it.
    pub name: Option<String>,
    /// Where the record itself was read from, so a rule about its transform (a probe
    /// volume's rotation, a camera's pitch) points at the record's `rotation` or `scale`.
    pub record_at: At,
    /// The record's `rotation` as written (`None` when absent, meaning `[0, 0, 0]`).
    pub rotation: Option<Vec3>,
    /// The record's `scale` as written (`None` when absent, meaning `[1, 1, 1]`).
    pub scale: Option<Vec3>,
    /// The ids of the map's `lighting.bakeZones`, which a `dh.bake`'s `zone` and a probe's
    /// `bakeZone` must name.
    pub bake_zones: Vec<String>,
    /// Whether the map's inheritance chain goes on into a pallet the build has not mounted:
    /// a material slot or a bake zone the build cannot see may then be the unseen
    /// parent's, so neither is refused (the build says once that the dependency is absent;
    /// the whole is checked at load). The slots and zones above are the folded chain's.
    pub chain_open: bool,
}

impl ComponentCx {
    /// How the spec names a component in its messages: `Map entity #3 (object dh.box)`.
    pub fn label(&self, component: &str) -> String {
        let kind = if self.record_kind.is_empty() {
            "object"
        } else {
            self.record_kind.as_str()
        };
        format!("Map entity #{} ({kind} {component})", self.entity)
    }

    /// Whether the record's components are one layer of overrides over a source's (an
    /// `instance`): members it leaves out inherit, and a material may name an asset
    /// (`/materials/crate-blue.dh-mat`) rather than a slot, resolved where it is placed.
    pub fn is_override_layer(&self) -> bool {
        self.record_kind == "instance"
    }

    /// Reports `material` (written as member `field` of `at`) unless it is one of the map's
    /// material slots — the folded chain's, an inherited slot included — (or, on an
    /// instance's override layer, an asset reference).
    pub fn check_material(
        &self,
        cx: &mut Cx,
        at: &At,
        field: &str,
        component: &str,
        material: &str,
    ) {
        if self.material_slots.iter().any(|s| s == material) || self.chain_open {
            return;
        }
        if self.is_override_layer() && is_asset_reference(material) {
            return;
        }
        let slots = if self.material_slots.is_empty() {
            "the map's materials table is empty".to_string()
        } else {
            format!(
                "the slots are: {}{}",
                self.material_slots.join(", "),
                crate::diag::did_you_mean(material, self.material_slots.iter().map(String::as_str))
            )
        };
        cx.error_at(
            at,
            at.field(field),
            format!(
                "{} '{field}' names '{material}', which is not one of the map's material slots; {slots}",
                self.label(component)
            ),
        );
    }

    /// Reports `zone` (member `field` of `at`) unless `lighting.bakeZones` defines it (the
    /// folded chain's: a zone the parent defines counts).
    pub fn check_bake_zone(&self, cx: &mut Cx, at: &At, field: &str, component: &str, zone: &str) {
        if self.bake_zones.iter().any(|z| z == zone) || self.chain_open {
            return;
        }
        let zones = if self.bake_zones.is_empty() {
            "the map's lighting.bakeZones defines none".to_string()
        } else {
            format!("lighting.bakeZones defines: {}", self.bake_zones.join(", "))
        };
        cx.error_at(
            at,
            at.field(field),
            format!(
                "{} '{field}' names bake zone '{zone}', which lighting.bakeZones lacks; {zones}",
                self.label(component)
            ),
        );
    }
}

/// Whether a material string is an asset reference (a path or `palletId:path`) rather than
/// a slot key.
fn is_asset_reference(s: &str) -> bool {
    s.contains('/') || s.contains(':') || s.ends_with(".dh-mat")
}

/// What part a component plays on its object, which decides how many of it an object may
/// carry (spec, Components).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentRole {
    /// What the object is made of: `dh.box`, `dh.collider`, `dh.bake`. At most one of each.
    Geometry,
    /// A logic component: `dh.button`, `dh.mover`, `dh.pressurePlate`, `dh.trigger`,
    /// `dh.teleport`, `dh.timer`, `dh.mapStart`, the gates and `dh.physicsProp`. They
    /// combine freely, one of each type.
    Logic,
    /// A presentation component: `dh.light`, `dh.camera`, `dh.spawnPoint`,
    /// `dh.reflectionProbe`, `dh.lightProbeVolume`, `dh.lightProbeGroup`,
    /// `dh.voxelVolume`. One per object.
    Presentation,
    /// A component this build does not know (kept whole at load).
    Unknown,
}

/// The most replicated sections one object's components may add up to.
pub const MAX_REPLICATED_SECTIONS: usize = 4;

impl MapComponent {
    /// What part the component plays on its object.
    pub fn role(&self) -> ComponentRole {
        match self {
            MapComponent::Box(_) | MapComponent::Bake(_) | MapComponent::Collider(_) => {
                ComponentRole::Geometry
            }
            MapComponent::Button(_)
            | MapComponent::Mover(_)
            | MapComponent::PressurePlate(_)
            | MapComponent::Trigger(_)
            | MapComponent::Teleport(_)
            | MapComponent::Timer(_)
            | MapComponent::MapStart(_)
            | MapComponent::AndGate(_)
            | MapComponent::OrGate(_)
            | MapComponent::NotGate(_)
            | MapComponent::PhysicsProp(_) => ComponentRole::Logic,
            MapComponent::SpawnPoint(_)
            | MapComponent::Camera(_)
            | MapComponent::LightProbeVolume(_)
            | MapComponent::LightProbeGroup(_)
            | MapComponent::ReflectionProbe(_)
            | MapComponent::Light(_)
            | MapComponent::VoxelVolume(_) => ComponentRole::Presentation,
            MapComponent::Unknown(_) => ComponentRole::Unknown,
        }
    }

    /// Whether this is a presentation component: an object carries at most one, and a
    /// second is refused naming both (`carries both 'dh.light' and 'dh.camera'`).
    pub fn is_presentation(&self) -> bool {
        self.role() == ComponentRole::Presentation
    }

    /// Whether this is a logic component type: an object carries any set of them, one of
    /// each type (`carries more than one 'dh.timer'`).
    pub fn is_logic(&self) -> bool {
        self.role() == ComponentRole::Logic
    }

    /// Whether this component replicates a section of its own (an object may add up to at
    /// most [`MAX_REPLICATED_SECTIONS`]). What the spec says replicates: a button's
    /// pressed latch, a mover's open fraction, a plate's occupancy, a server-simulated
    /// physics prop's pose (a `"sim": "client"` one is not on the wire at all), a light's
    /// on/off bit, a light probe volume's and group's switch and grade, and a voxel
    /// volume. A box, a bake, a collider, a spawn point, a camera, a reflection probe, a
    /// trigger, a teleport, a timer, a map start and the gates replicate nothing.
    pub fn is_replicated_section(&self) -> bool {
        match self {
            MapComponent::Button(_)
            | MapComponent::Mover(_)
            | MapComponent::PressurePlate(_)
            | MapComponent::Light(_)
            | MapComponent::LightProbeVolume(_)
            | MapComponent::LightProbeGroup(_)
            | MapComponent::VoxelVolume(_) => true,
            MapComponent::PhysicsProp(p) => p.sim_or_default() == geometry::PhysicsSim::Server,
            _ => false,
        }
    }

    /// Whether the component joins its object's logic node (a call can reach the object
    /// through it): every logic component, and the presentation components with a node,
    /// `dh.light`, `dh.lightProbeVolume`, `dh.lightProbeGroup` and `dh.voxelVolume`.
    pub fn has_logic_node(&self) -> bool {
        self.is_logic()
            || matches!(
                self,
                MapComponent::Light(_)
                    | MapComponent::LightProbeVolume(_)
                    | MapComponent::LightProbeGroup(_)
                    | MapComponent::VoxelVolume(_)
            )
    }

    /// Runs the component's own build-time rules.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        match self {
            MapComponent::Box(c) => c.validate(cx, ccx),
            MapComponent::Bake(c) => c.validate(cx, ccx),
            MapComponent::Collider(c) => c.validate(cx, ccx),
            MapComponent::SpawnPoint(c) => c.validate(cx, ccx),
            MapComponent::Camera(c) => c.validate(cx, ccx),
            MapComponent::LightProbeVolume(c) => c.validate(cx, ccx),
            MapComponent::LightProbeGroup(c) => c.validate(cx, ccx),
            MapComponent::ReflectionProbe(c) => c.validate(cx, ccx),
            MapComponent::Button(c) => c.validate(cx, ccx),
            MapComponent::Mover(c) => c.validate(cx, ccx),
            MapComponent::PressurePlate(c) => c.validate(cx, ccx),
            MapComponent::Trigger(c) => c.validate(cx, ccx),
            MapComponent::Teleport(c) => c.validate(cx, ccx),
            MapComponent::Timer(c) => c.validate(cx, ccx),
            MapComponent::MapStart(c) => c.validate(cx, ccx),
            MapComponent::AndGate(c) => c.validate(cx, ccx),
            MapComponent::OrGate(c) => c.validate(cx, ccx),
            MapComponent::NotGate(c) => c.validate(cx, ccx),
            MapComponent::PhysicsProp(c) => c.validate(cx, ccx),
            MapComponent::Light(c) => c.validate(cx, ccx),
            MapComponent::VoxelVolume(c) => c.validate(cx, ccx),
            MapComponent::Unknown(_) => {}
        }
    }

    /// The collider the compiler gives an owner holding a `dh.box` and no `dh.collider`:
    /// its exact box, wearing the box's material, marked `"generated": true`. `None` when
    /// the owner authors a collider or holds no box.
    pub fn generated_collider_for(components: &[MapComponent]) -> Option<Collider> {
        if components
            .iter()
            .any(|c| matches!(c, MapComponent::Collider(_)))
        {
            return None;
        }
        components.iter().find_map(|c| match c {
            MapComponent::Box(b) => Some(b.generated_collider()),
            _ => None,
        })
    }
}

/// Runs every component's own rules ([`MapComponent::validate`]) and then the rules that
/// read a component against its neighbors on the same record: a physics prop's body
/// (a `dh.box`, exactly one box shape on the origin, no mover, button or plate beside it)
/// and a `dh.bake`'s place beside a box. The counting rules (one presentation component,
/// one of each logic type, replicated sections) are the records engineer's, from
/// [`MapComponent::role`] and [`MapComponent::is_replicated_section`].
pub fn validate_components(cx: &mut Cx, ccx: &ComponentCx, components: &[MapComponent]) {
    for c in components {
        c.validate(cx, ccx);
    }
    for c in components {
        match c {
            MapComponent::PhysicsProp(p) => p.validate_owner(cx, ccx, components),
            MapComponent::Bake(b) => b.validate_owner(cx, ccx, components),
            _ => {}
        }
    }
}
