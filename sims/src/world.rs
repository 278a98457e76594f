//! The simulation world: the hecs world the map was installed into, with the flat arrays the
//! per-tick passes run over and the logic runtime's own state.

use std::collections::{BTreeMap, HashMap};

use hecs::{Entity, World};

use crate::carry::{HierSlot, Hierarchy};
use crate::components::*;
use crate::install::MaterialTable;
use crate::logic::{Scheduled, TraceLine};
use crate::math::Pose;
use crate::parallel::Parallel;

/// The default fixed tick rate (`world.tickRate`'s default), ticks a second: what
/// [`SimWorld::install`] and [`SimWorld::install_in`] install at. A world installed at
/// another rate ([`SimWorld::install_at`]) reads its own from [`SimWorld::tick_rate`].
pub const TICK_RATE: f64 = 64.0;

/// The logic entities the per-tick passes visit, each list in author order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lists {
    pub map_starts: Vec<Entity>,
    pub plates: Vec<Entity>,
    pub triggers: Vec<Entity>,
    pub buttons: Vec<Entity>,
    pub carried_bodies: Vec<Entity>,
    /// Plates and triggers together, each once, in author order.
    pub sensors: Vec<Entity>,
}

impl Lists {
    pub fn note(&mut self, e: Entity, types: &[&'static str]) {
        for t in types {
            match *t {
                "dh.mapStart" => self.map_starts.push(e),
                "dh.pressurePlate" => self.plates.push(e),
                "dh.trigger" => self.triggers.push(e),
                "dh.button" => self.buttons.push(e),
                _ => {}
            }
        }
        if types
            .iter()
            .any(|t| matches!(*t, "dh.pressurePlate" | "dh.trigger"))
        {
            self.sensors.push(e);
        }
    }
}

/// A bake zone's shown set, held by the server and followed by every client.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeSetState {
    /// The set shown (or being faded to).
    pub set: String,
    /// The crossfade, seconds.
    pub fade: f64,
    /// The tick the switch happened.
    pub since_tick: u64,
}

/// A map installed for simulation: the hecs world of flat runtime components, the
/// hierarchy and its carries, and the logic runtime.
pub struct SimWorld {
    pub(crate) world: World,
    pub(crate) records: Vec<Entity>,
    /// Every installed model part, in part-table order (map-wide part id).
    pub(crate) parts: Vec<Entity>,
    pub(crate) names: HashMap<String, Entity>,
    pub(crate) nodes: HashMap<String, Entity>,
    pub(crate) materials: MaterialTable,
    pub(crate) hierarchy: Hierarchy,
    pub(crate) lists: Lists,
    pub(crate) tick: u64,
    pub(crate) schedule: BTreeMap<(u64, u64), Scheduled>,
    pub(crate) next_seq: u64,
    pub(crate) trace: Vec<TraceLine>,
    pub(crate) bake_sets: BTreeMap<String, BakeSetState>,
    /// Ticks a second: delays and durations were quantized at this rate.
    pub(crate) tick_rate: f64,
    /// What the install could read but the headless runtime does not model, one line each.
    pub(crate) warnings: Vec<String>,
}

impl std::fmt::Debug for SimWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimWorld")
            .field("records", &self.records.len())
            .field("tick", &self.tick)
            .field("scheduled", &self.schedule.len())
            .finish()
    }
}

impl SimWorld {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        mut world: World,
        records: Vec<Entity>,
        names: HashMap<String, Entity>,
        nodes: HashMap<String, Entity>,
        materials: MaterialTable,
        hierarchy: Hierarchy,
        lists: Lists,
        tick_rate: f64,
    ) -> SimWorld {
        for (slot, &e) in hierarchy.entity.iter().enumerate() {
            let _ = world.insert_one(e, HierSlot(slot as u32));
        }
        // A record is out of the world when it or anything above it is switched off.
        // Slots run parents before children, so one pass settles every depth.
        let mut out = vec![false; hierarchy.entity.len()];
        for (slot, &e) in hierarchy.entity.iter().enumerate() {
            let own = world.get::<&Disabled>(e).is_ok();
            let above = hierarchy.parent[slot]
                .and_then(|p| out.get(p as usize).copied())
                .unwrap_or(false);
            out[slot] = own || above;
        }
        for (slot, &e) in hierarchy.entity.iter().enumerate() {
            if out[slot] {
                let _ = world.insert_one(e, OutOfWorld);
            }
        }
        SimWorld {
            world,
            records,
            parts: Vec::new(),
            names,
            nodes,
            materials,
            hierarchy,
            lists,
            tick: 0,
            schedule: BTreeMap::new(),
            next_seq: 0,
            trace: Vec::new(),
            bake_sets: BTreeMap::new(),
            tick_rate,
            warnings: Vec::new(),
        }
    }

    /// Ticks a second this world was installed at (`world.tickRate`): every delay, timer and
    /// mover duration was quantized at it, and a spin's angle is a function of the tick and
    /// it.
    pub fn tick_rate(&self) -> f64 {
        self.tick_rate
    }

    /// What the map asks for that the headless runtime does not model (model parts filed
    /// under a mover, say), one line each, in author order; empty when everything is modelled.
    pub fn install_warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether the record is in the world: neither it nor anything above it is switched off
    /// (authored `"enabled": false`, or [`crate::Input::SetEnabled`]).
    pub fn in_world(&self, e: Entity) -> bool {
        self.world.contains(e) && self.world.get::<&OutOfWorld>(e).is_err()
    }

    /// The record and everything filed under it, by any path, in author order, then the
    /// model parts under it in part-table order.
    pub fn subtree(&self, root: Entity) -> Vec<Entity> {
        let limit = self.records.len() + self.parts.len();
        self.records
            .iter()
            .chain(&self.parts)
            .copied()
            .filter(|&e| {
                let mut at = Some(e);
                let mut steps = 0;
                while let Some(x) = at {
                    if x == root {
                        return true;
                    }
                    steps += 1;
                    if steps > limit {
                        break;
                    }
                    at = self.world.get::<&Parent>(x).ok().map(|p| p.0);
                }
                false
            })
            .collect()
    }

    /// Every installed model part's entity ([`ModelPart`]), in part-table order: the parts
    /// of each model placement, placements in author order. Not records.
    pub fn parts(&self) -> &[Entity] {
        &self.parts
    }

    /// The hecs world holding every record's flat components.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Every record's entity, in author order (index = [`RecordIndex`]).
    pub fn records(&self) -> &[Entity] {
        &self.records
    }

    /// The first record (in author order) named `name`.
    pub fn entity_named(&self, name: &str) -> Option<Entity> {
        self.names.get(name).copied()
    }

    /// The logic node named `name`: what a call's target reaches.
    pub fn node_named(&self, name: &str) -> Option<Entity> {
        self.nodes.get(name).copied()
    }

    /// The entity's name, if it has one.
    pub fn name_of(&self, e: Entity) -> Option<String> {
        self.world.get::<&Name>(e).ok().map(|n| n.0.clone())
    }

    /// The shapes of `e` that are water, each with the medium `water_of` gives its surface
    /// (spec `dh.map` 000:209, 000:464, 000:539: a trigger collider "a water body reads",
    /// and a box that "is water where its material is"): each shape of its collider whose
    /// surface (the shape's own material, else the collider's, else its `dh.box`'s: the
    /// box a collider over it stands as) `water_of` calls water,
    /// unless the collider is `"off"`; a `dh.box` with no collider, its exact box where its
    /// material is water. Shapes are in the owner's frame, unscaled. Empty when `e` is not
    /// in the world.
    pub fn water_shapes<M>(
        &self,
        e: Entity,
        water_of: impl Fn(MaterialSlot) -> Option<M>,
    ) -> Vec<(ColliderShape, M)> {
        if !self.in_world(e) {
            return Vec::new();
        }
        if let Some(collider) = self.get::<Collider>(e) {
            if collider.state == dh_content::schema::components::geometry::ColliderState::Off {
                return Vec::new();
            }
            let fallback = collider
                .material
                .or_else(|| self.get::<DhBox>(e).map(|b| b.material));
            return collider
                .shapes
                .iter()
                .filter_map(|shape| {
                    let slot = shape.material().or(fallback)?;
                    water_of(slot).map(|m| (shape.clone(), m))
                })
                .collect();
        }
        match self.get::<DhBox>(e) {
            Some(b) => water_of(b.material)
                .map(|m| {
                    (
                        ColliderShape::Box {
                            center: crate::Vec3::ZERO,
                            rotation: crate::Quat::IDENTITY,
                            half_extents: b.size * 0.5,
                            material: Some(b.material),
                        },
                        m,
                    )
                })
                .into_iter()
                .collect(),
            None => Vec::new(),
        }
    }

    /// The installed material table.
    pub fn materials(&self) -> &MaterialTable {
        &self.materials
    }

    /// How many logic ticks have run; the next [`tick`](SimWorld::tick) is this number.
    pub fn tick_count(&self) -> u64 {
        self.tick
    }

    /// Where the entity stands now.
    pub fn world_pose(&self, e: Entity) -> Option<Pose> {
        self.world.get::<&WorldTransform>(e).ok().map(|t| t.0)
    }

    /// Where the record named `name` stands now.
    pub fn pose_of(&self, name: &str) -> Option<Pose> {
        self.entity_named(name).and_then(|e| self.world_pose(e))
    }

    /// A copy of one component of `e`.
    pub fn get<T: hecs::Component + Clone>(&self, e: Entity) -> Option<T> {
        self.world.get::<&T>(e).ok().map(|c| (*c).clone())
    }

    /// A copy of one component of the record named `name`.
    pub fn get_named<T: hecs::Component + Clone>(&self, name: &str) -> Option<T> {
        self.entity_named(name).and_then(|e| self.get::<T>(e))
    }

    /// Whether the light named `name` is lit.
    pub fn light_on(&self, name: &str) -> Option<bool> {
        self.get_named::<Light>(name).map(|l| l.on)
    }

    /// The set bake zone `zone` shows.
    pub fn bake_set(&self, zone: &str) -> Option<&BakeSetState> {
        self.bake_sets.get(zone)
    }

    /// Every bake zone's shown set, by zone id.
    pub fn bake_sets(&self) -> &BTreeMap<String, BakeSetState> {
        &self.bake_sets
    }

    /// How many delayed runs and timer fires are waiting.
    pub fn scheduled_count(&self) -> usize {
        self.schedule.len()
    }

    /// Every collider body on or under a mover, with its carried pose this tick: what the
    /// physics world moves its kinematic bodies to (a logic body under a mover included), in
    /// author order.
    pub fn kinematic_targets(&self) -> Vec<(Entity, Pose)> {
        self.lists
            .carried_bodies
            .iter()
            .filter(|&&e| self.world.get::<&OutOfWorld>(e).is_err())
            .filter_map(|&e| self.world_pose(e).map(|p| (e, p)))
            .collect()
    }

    /// Recomputes every mover's motion at the current tick (without advancing it), the
    /// carries and every world transform.
    pub(crate) fn resolve_poses<P: Parallel + ?Sized>(&mut self, par: &P) {
        let tick = self.tick;
        let rate = self.tick_rate;
        for (slot, m) in self.world.query_mut::<(&HierSlot, &Mover)>() {
            if let Some(d) = self.hierarchy.delta.get_mut(slot.0 as usize) {
                *d = crate::carry::motion_delta(m, tick, rate);
            }
        }
        self.carry_and_place(par);
    }

    /// The carry pass and the world-transform pass.
    pub(crate) fn carry_and_place<P: Parallel + ?Sized>(&mut self, par: &P) {
        self.hierarchy.resolve(par);
        let carry = &self.hierarchy.carry[..];
        let follows = &self.hierarchy.follows[..];
        let mut items: Vec<(&HierSlot, &LocalTransform, &mut WorldTransform)> = self
            .world
            .query_mut::<(&HierSlot, &LocalTransform, &mut WorldTransform)>()
            .into_iter()
            .collect();
        par.for_each_mut(&mut items, |_, (slot, local, world)| {
            let s = slot.0 as usize;
            world.0 = match (follows.get(s), carry.get(s)) {
                (Some(true), Some(c)) => c.apply_pose(&local.0),
                _ => local.0,
            };
        });
    }
}
