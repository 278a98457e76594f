//! The engine host, headless: mounts the pallets, installs a map into the simulation world,
//! builds its physics world, and runs fixed ticks.
//!
//! One tick (ARCHITECTURE.md, "One frame": "script/console ─► fixed ticks (world.tickRate,
//! 64 Hz)"), each phase a frame-timer scope:
//!
//! 1. `script`: the script's commands due this tick (pawn inputs, Use presses, `expect`s).
//! 2. `logic`: [`SimWorld::tick_with`]: movers and the carry (spread over the job system),
//!    then every event in the one defined order; plates and triggers measure the pawns where
//!    the last physics step left them (binned once a tick, every sensor measured over the
//!    job system before the edges apply in author order).
//! 3. `physics`: kinematic bodies are sent to their carried poses, then the solver steps
//!    (props), and the pawns move, riding what they stand on, over the job system
//!    ([`PhysicsWorld::step_with`]); the logic's teleports then apply.
//!
//! Before the logic tick, `voxel collision` keeps the map's voxel volumes solid around the
//! pawns ([`CollisionStreamer::update`]: what the collision workers finished is attached,
//! chunks within `world.voxel.collisionUrgent` of a pawn are cooked on the spot, the rest
//! within `world.voxel.collisionRadius` are queued for the `world.voxel.collisionWorkers`
//! threads, which never hold the tick up) and asks the water query at each pawn's middle,
//! so the physics step moves nobody over a floor still in the queue, and swims whoever is
//! under a surface. The urgent cooks' own time is also the `voxel cook` phase.
//!
//! A drawing streamer (the renderer's `VoxelStreamer`) takes the same opened volumes from
//! [`Host::voxel_volumes`]: see the `VOXEL DRAWING HOOK` note on it.
//!
//! `logic` and `physics` run as two jobs of one dh-jobs graph, `physics` after `logic`.
//! Nothing reads a clock inside a tick, and every list is walked in author or id order, so
//! one script gives one trace.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use dh_content::schema::components::geometry::DEFAULT_PROP_MASS;
use dh_content::schema::surface::surface_preset;
use dh_jobs::{FrameTimer, JobGraph, Lane, Scheduler};
use dh_sims::physics::{
    self, BodyHandle, BodyKind, PawnInput, PawnWater, PhysicsParams, PhysicsWorld, ShapeSpec,
    SpawnPose, SpawnRng, SwimParams, TeleportVelocity, WaterAt, WaterHandle, WaterMedium,
    WaterParams, WaterQuery,
};
use dh_sims::{
    Body, BodyRole, Button, Collider, ColliderShape, Input, Light, MapContext, Mover, Name,
    OverlapSource, PawnId, PhysicsProp, PressurePlate, ResolvedObject, SimWorld, SpawnPoint,
    SpecQuat, TraceLine, Trigger, Vec3,
};
use glam::Vec2;

use crate::catalog::{Catalog, CatalogError};
use crate::prefs::{PrefError, Prefs};
use crate::script::{ScriptError, ScriptHost, ScriptRunner, Value};
use crate::voxel::collision::{
    CollisionConfig, CollisionPalette, CollisionStats, CollisionStreamer, RangeCells, RangeVolume,
    VolumeId,
};
use crate::voxel::volume::{open_volume, pose_matrix, GridWater, OpenedVolume};
use crate::voxel::water::{medium_of, FluidField};
use crate::voxel::{FluidTable, VoxelLooks};

/// How far a pawn's Use reaches from its eye, in meters. Ours: the spec states no reach
/// (Source's is 72 to 80 units, about 2 m).
pub const USE_REACH: f32 = 2.0;

/// The spawn-selection seed: fixed, so a run is reproducible.
pub const SPAWN_SEED: u64 = 0x5eed_d1ce;

/// Why a host could not start or a tick failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A pallet or the map could not be found or read.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// A `--set` that was refused.
    #[error(transparent)]
    Pref(#[from] PrefError),
    /// The map did not install.
    #[error("{map}: {message}")]
    Install {
        /// The map's barcode.
        map: String,
        /// Why.
        message: String,
    },
    /// The physics world refused something.
    #[error("physics: {0}")]
    Physics(String),
    /// The job system failed.
    #[error("jobs: {0}")]
    Jobs(String),
    /// Physics preferences that are each in range but do not fit together (a pawn
    /// narrower than its skin, say).
    #[error("the physics preferences do not fit together: {0}")]
    Params(String),
    /// The script failed (a command, or an `expect`).
    #[error(transparent)]
    Script(#[from] ScriptError),
}

/// What a host is started with.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// The map, by any rung of the ladder (`logic-map`, `core:maps/logic-map.dh-map`).
    pub map: String,
    /// Pallet files to mount beside the core pallet.
    pub pallets: Vec<PathBuf>,
    /// `--set name=value` arguments, applied before the map installs.
    pub sets: Vec<String>,
}

/// A pawn's held walk input.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Held {
    forward: f32,
    right: f32,
    /// Ticks left; `None` holds until the next `move`.
    left: Option<u64>,
}

/// The sims world's overlap queries answered by the physics world: its pawns binned once a
/// tick ([`PhysicsWorld::pawn_overlaps`]), so the logic tick's plates and triggers, measured
/// from every worker at once, each test only the pawns near them.
struct Overlaps(physics::PawnOverlaps);

impl OverlapSource for Overlaps {
    fn pawns_in_box(&self, pose: &dh_sims::Pose, half_extents: Vec3) -> Vec<PawnId> {
        self.0
            .pawns_overlapping_box(pose.into(), half_extents)
            .unwrap_or_default()
    }
}

/// The job system's parallel-for as the sims world's [`dh_sims::Parallel`].
pub struct JobsParallel<'a>(pub &'a Scheduler);

impl dh_sims::Parallel for JobsParallel<'_> {
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        self.0.parallel_for_mut(items, 0, f);
    }
}

/// Every physics body the host built, by the record that owns it, and back.
#[derive(Debug, Default)]
struct Bodies {
    /// Each record's bodies.
    of: HashMap<hecs::Entity, Vec<BodyHandle>>,
    /// Each body's record: what a Use ray's hit maps back to.
    owners: HashMap<BodyHandle, hecs::Entity>,
    /// Each body's colliders' material slots, in the order the physics world was given
    /// them: what a contact's surface is read from.
    slots: HashMap<BodyHandle, Vec<Option<dh_sims::MaterialSlot>>>,
    /// Kinematic bodies, in author order: moved to their records' carried poses each tick.
    kinematic: Vec<(hecs::Entity, BodyHandle)>,
    /// Each record's water bodies (spec `dh.map` 000:209, 000:464: its shapes whose
    /// material has a `water` block).
    water: HashMap<hecs::Entity, Vec<WaterHandle>>,
    /// What each material slot is as water, read once from its material.
    water_media: Vec<Option<WaterMedium>>,
}

/// The physics world's parameters as the preferences set them: `world.tickRate`,
/// `world.stepHeight`, `world.prop.*`, `world.water.*`, `world.swim.*`, and ours,
/// `world.gravity` and `world.pawn.*`. Refused, as [`HostError::Params`], when they do
/// not fit together.
pub fn physics_params(prefs: &Prefs, tick_rate: u32) -> Result<PhysicsParams, HostError> {
    use crate::prefs::*;
    let d = PhysicsParams::default();
    let dw = WaterParams::default();
    let water = WaterParams {
        samples: prefs
            .int(WATER_SAMPLES)
            .ok()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(dw.samples),
        footprint: prefs.float32(WATER_FOOTPRINT, dw.footprint),
        linear_damping: prefs.float32(WATER_LINEAR_DAMPING, dw.linear_damping),
        angular_damping: prefs.float32(WATER_ANGULAR_DAMPING, dw.angular_damping),
        max_roll_rate: prefs.float32(WATER_MAX_ROLL_RATE, dw.max_roll_rate),
        center_of_mass_drop: prefs.float32(WATER_CENTER_OF_MASS_DROP, dw.center_of_mass_drop),
    };
    let params = PhysicsParams {
        tick_rate: tick_rate as f32,
        step_height: prefs.step_height(),
        gravity: prefs.float32(GRAVITY, d.gravity),
        pawn_radius: prefs.float32(PAWN_RADIUS, d.pawn_radius),
        pawn_height: prefs.float32(PAWN_HEIGHT, d.pawn_height),
        eye_height: prefs.float32(PAWN_EYE_HEIGHT, d.eye_height),
        walk_speed: prefs.float32(PAWN_WALK_SPEED, d.walk_speed),
        jump_speed: prefs.float32(PAWN_JUMP_SPEED, d.jump_speed),
        max_slope_degrees: prefs.float32(PAWN_MAX_SLOPE, d.max_slope_degrees),
        skin: prefs.float32(PAWN_SKIN, d.skin),
        prop_push_speed: prefs.float32(PROP_PUSH_SPEED, d.prop_push_speed),
        prop_push_response: prefs.float32(PROP_PUSH_RESPONSE, d.prop_push_response),
        prop_push_reach: prefs.float32(PROP_PUSH_REACH, d.prop_push_reach),
        prop_friction: prefs.float32(PROP_FRICTION, d.prop_friction),
        prop_ground_probe: prefs.float32(PROP_GROUND_PROBE, d.prop_ground_probe),
        water,
        swim: swim_params(prefs),
    };
    params
        .validate()
        .map_err(|e| HostError::Params(e.to_string()))?;
    Ok(params)
}

/// One placed `dh.voxelVolume`, opened.
struct VoxelRecord {
    /// The record carrying it.
    entity: hecs::Entity,
    /// The container, its palette and its shown grids.
    opened: Arc<OpenedVolume>,
    /// Its palette as collision reads it.
    palette: Arc<CollisionPalette>,
    /// Each shown grid's cells read by range, as collision and the water query read
    /// them (sharing `world.voxel.collisionCellCacheMb`).
    cells: Vec<Arc<RangeCells>>,
    /// Each shown grid's fluids (empty without a platform that declares fluids).
    water: Vec<GridWater>,
    /// Its grids in the collision streamer while the record is in the world, each with
    /// its position in `opened.grids` (and `cells`).
    ids: Vec<(VolumeId, usize)>,
}

/// The map's voxel volumes: the server's collision streamer and the water query.
struct Voxels {
    streamer: CollisionStreamer,
    records: Vec<VoxelRecord>,
    /// What the last update did.
    last: CollisionStats,
}

impl Voxels {
    /// Adds record `r`'s grids to the streamer (it is in the world).
    fn add(streamer: &mut CollisionStreamer, r: &mut VoxelRecord) {
        for (k, (g, cells)) in r.opened.grids.iter().zip(&r.cells).enumerate() {
            let volume = RangeVolume {
                name: r.opened.name.clone(),
                cells: cells.clone(),
                palette: r.palette.clone(),
                placement: g.placement,
            };
            // A singular placement (a zero scale) has nothing to stand on.
            if let Some(id) = streamer.add_range_volume(volume) {
                r.ids.push((id, k));
            }
        }
    }

    /// Brings the streamer in line with the records after a switch: a record that left
    /// the world loses its bodies, one that came back is solid again.
    fn sync(&mut self, sim: &SimWorld, physics: &mut PhysicsWorld) {
        for r in &mut self.records {
            let in_world = sim.in_world(r.entity);
            if !in_world && !r.ids.is_empty() {
                for (id, _) in r.ids.drain(..) {
                    self.streamer.remove_volume(physics, id);
                }
            } else if in_world && r.ids.is_empty() {
                Self::add(&mut self.streamer, r);
            }
        }
    }

    /// The water at world point `point`: the first volume in the world (author order)
    /// whose fluids answer there, as a pawn swims in it.
    fn water_at(&self, sim: &SimWorld, point: Vec3, swim: SwimParams) -> Option<PawnWater> {
        let w = VoxelWater {
            records: &self.records,
            sim,
        }
        .water_at(point)?;
        Some(PawnWater {
            surface: w.surface,
            density: w.medium.density,
            viscosity: w.medium.viscosity,
            swim,
        })
    }
}

/// The voxel volumes' fluids as the physics world's water query (spec `dh.voxel` 004:481:
/// "a crate floats in it"): what the props' buoyancy reads where the map's own water
/// bodies hold none.
struct VoxelWater<'a> {
    records: &'a [VoxelRecord],
    sim: &'a SimWorld,
}

impl WaterQuery for VoxelWater<'_> {
    /// The first volume in the world (author order) whose fluids answer at `point`.
    fn water_at(&self, point: Vec3) -> Option<WaterAt> {
        let p = point.as_dvec3();
        for r in self.records {
            if !self.sim.in_world(r.entity) {
                continue;
            }
            for w in &r.water {
                let Some(sample) = w.water_at(p) else {
                    continue;
                };
                let medium = medium_of(sample.block)?;
                return Some(WaterAt {
                    surface: sample.surface as f32,
                    medium: WaterMedium {
                        density: medium.density,
                        viscosity: medium.viscosity,
                    },
                });
            }
        }
        None
    }
}

/// The world's swimming parameters as the preferences set them (`world.swim.*`).
pub fn swim_params(prefs: &Prefs) -> SwimParams {
    let d = SwimParams::default();
    let f = |name: &str, fallback: f32| prefs.float(name).map_or(fallback, |v| v as f32);
    SwimParams {
        drag: f("world.swim.drag", d.drag),
        stroke: f("world.swim.stroke", d.stroke),
        vertical_stroke: f("world.swim.verticalStroke", d.vertical_stroke),
        drift: f("world.swim.drift", d.drift),
        pawn_density: f("world.swim.pawnDensity", d.pawn_density),
        float_depth: f("world.swim.floatDepth", d.float_depth),
    }
}

/// A running map.
pub struct Host {
    /// The preferences.
    pub prefs: Prefs,
    catalog: Catalog,
    map: String,
    tick_rate: u32,
    sim: SimWorld,
    physics: PhysicsWorld,
    bodies: Bodies,
    /// Every `dh.spawnPoint` record and its pose; one not in the world when a pawn
    /// spawns is never used (spec `dh.map`, `enabled`).
    spawns: Vec<(hecs::Entity, SpawnPose)>,
    rng: SpawnRng,
    pawns: BTreeMap<String, PawnId>,
    names: BTreeMap<PawnId, String>,
    inputs: BTreeMap<PawnId, PawnInput>,
    held: BTreeMap<PawnId, Held>,
    pending: Vec<Input>,
    output: Vec<String>,
    tick: u64,
    voxels: Voxels,
    /// The cooked triangles model parts' `mesh` shapes stand as.
    mesh_colliders: crate::mesh_colliders::MeshColliders,
    /// The pawns' contacts last tick, for `client.debug.contacts`.
    contacts: crate::contacts::ContactLog,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("map", &self.map)
            .field("tick", &self.tick)
            .field("pawns", &self.pawns)
            .finish()
    }
}

/// The block shapes of platform `platform`'s pallet, when `catalog` mounts it and a block
/// table answers for the platform's namespace.
fn platform_shapes<'a>(
    catalog: &'a Catalog,
    platform: &str,
    tables: &dh_content::voxel::blocks::BlockTables,
) -> Option<crate::voxel::shapes::PalletShapes<'a>> {
    let pallet = catalog.pallet(platform)?;
    let namespace = tables
        .tables()
        .iter()
        .find(|t| t.platforms().iter().any(|p| p == platform))?
        .namespace();
    Some(crate::voxel::shapes::PalletShapes::new(pallet, namespace))
}

/// The surface preset a material slot is made of: its material's `surface`, stone where it
/// names none (or one that is no preset) or cannot be read, as [`grip_of`] reads it.
fn surface_of(catalog: &Catalog, sim: &SimWorld, slot: Option<dh_sims::MaterialSlot>) -> String {
    slot.and_then(|slot| sim.materials().references.get(slot.0 as usize))
        .and_then(|reference| catalog.object_json(reference).ok())
        .and_then(|json| {
            json.get("surface")
                .and_then(|v| v.as_str())
                .and_then(surface_preset)
                .map(|p| p.name.to_string())
        })
        .unwrap_or_else(|| "stone".to_string())
}

fn grip_of(catalog: &Catalog, sim: &SimWorld, slot: Option<dh_sims::MaterialSlot>) -> f32 {
    // A surface's grip comes from its material's `surface` preset; stone where the material
    // names none or cannot be read.
    let stone = surface_preset("stone").map_or(1.0, |s| s.grip);
    let Some(slot) = slot else { return stone };
    let Some(reference) = sim.materials().references.get(slot.0 as usize) else {
        return stone;
    };
    let Ok(json) = catalog.object_json(reference) else {
        return stone;
    };
    match json.get("surface").and_then(|v| v.as_str()) {
        Some(name) => surface_preset(name).map_or(stone, |s| s.grip),
        None => stone,
    }
}

/// The water a material slot is (spec `dh.map` 000:464: "water where its material is"):
/// its material's `water` block, with content's defaults (density 1000, viscosity 1) for
/// what it leaves out; `None` for a material with no `water` block or one that cannot be
/// read.
fn water_of(catalog: &Catalog, sim: &SimWorld, slot: dh_sims::MaterialSlot) -> Option<WaterMedium> {
    let reference = sim.materials().references.get(slot.0 as usize)?;
    let json = catalog.object_json(reference).ok()?;
    let block = json.get("water")?;
    let d = WaterMedium::default();
    let read = |name: &str, fallback: f32| {
        block
            .get(name)
            .and_then(|v| v.as_f64())
            .map_or(fallback, |v| v as f32)
    };
    Some(WaterMedium {
        density: read("density", d.density),
        viscosity: read("viscosity", d.viscosity),
    })
}

/// Adds record `e`'s water bodies, if it is in the world and has any: one per medium its
/// water shapes are made of, scaled by its pose. A mesh shape stands as the triangles
/// cooked at load for the trigger part ([`crate::mesh_colliders::MeshColliders::water_mesh`]);
/// one with none cooked (a collider that is not a trigger, a mesh with no triangles) is no
/// water.
fn add_water(
    catalog: &Catalog,
    meshes: &crate::mesh_colliders::MeshColliders,
    sim: &SimWorld,
    physics: &mut PhysicsWorld,
    bodies: &mut Bodies,
    e: hecs::Entity,
) -> Result<(), HostError> {
    if bodies.water.contains_key(&e) {
        return Ok(());
    }
    let slots = sim.materials().references.len();
    if bodies.water_media.len() != slots {
        bodies.water_media = (0..slots)
            .map(|i| water_of(catalog, sim, dh_sims::MaterialSlot(i as u16)))
            .collect();
    }
    let media = &bodies.water_media;
    let shapes = sim.water_shapes(e, |slot| media.get(slot.0 as usize).copied().flatten());
    if shapes.is_empty() {
        return Ok(());
    }
    let Some(pose) = sim.world_pose(e) else {
        return Ok(());
    };
    // One body per medium, in the order the shapes first name it.
    let mut groups: Vec<(WaterMedium, Vec<(physics::Pose, physics::ColliderShape)>)> = Vec::new();
    for (shape, medium) in shapes {
        let cooked = match &shape {
            ColliderShape::Mesh { index, .. } => {
                let cooked = sim
                    .get::<dh_sims::ModelPart>(e)
                    .and_then(|p| p.object_id)
                    .and_then(|id| meshes.water_mesh(id, *index));
                if cooked.is_none() {
                    continue;
                }
                cooked
            }
            _ => None,
        };
        let Some(spec) = shape_spec(&shape, pose.scale, 0.0, cooked) else {
            continue;
        };
        match groups.iter_mut().find(|(m, _)| *m == medium) {
            Some((_, list)) => list.push((spec.local, spec.shape)),
            None => groups.push((medium, vec![(spec.local, spec.shape)])),
        }
    }
    let mut handles = Vec::new();
    for (medium, list) in groups {
        let h = physics
            .add_water_body((&pose).into(), &list, medium)
            .map_err(|err| {
                HostError::Physics(format!(
                    "{}: its water: {err}",
                    sim.name_of(e).unwrap_or_else(|| "a record".into())
                ))
            })?;
        handles.push(h);
    }
    if !handles.is_empty() {
        bodies.water.insert(e, handles);
    }
    Ok(())
}

/// A prop's mass (spec `dh.map`, `dh.physicsProp`): its own `mass`, else its box
/// material's surface density times its body's volume, else [`DEFAULT_PROP_MASS`] where
/// that material names no surface (so no density) or cannot be read.
fn prop_mass(catalog: &Catalog, sim: &SimWorld, e: hecs::Entity, shapes: &[ShapeSpec]) -> f32 {
    if let Some(mass) = sim.get::<PhysicsProp>(e).and_then(|p| p.mass) {
        return mass;
    }
    let default = DEFAULT_PROP_MASS as f32;
    let Some(slot) = sim.get::<dh_sims::DhBox>(e).map(|b| b.material) else {
        return default;
    };
    let Some(reference) = sim.materials().references.get(slot.0 as usize) else {
        return default;
    };
    let Ok(json) = catalog.object_json(reference) else {
        return default;
    };
    let Some(density) = json
        .get("surface")
        .and_then(|v| v.as_str())
        .and_then(surface_preset)
        .map(|s| s.density)
    else {
        return default;
    };
    // The body is its collider's box shape(s), already scaled by the owner's scale.
    let volume: f32 = shapes
        .iter()
        .map(|s| match &s.shape {
            physics::ColliderShape::Box { half_extents } => {
                8.0 * half_extents.x * half_extents.y * half_extents.z
            }
            _ => 0.0,
        })
        .sum();
    let mass = density * volume;
    // The solver takes at least 0.001 kg, as an authored mass must be.
    if mass.is_finite() && mass >= 0.001 {
        mass
    } else {
        default
    }
}

fn shape_spec(
    shape: &ColliderShape,
    scale: Vec3,
    grip: f32,
    cooked: Option<&dh_content::colcook::CookedMesh>,
) -> Option<ShapeSpec> {
    let s = |v: Vec3| v * scale;
    let a = |v: Vec3| v * scale.abs();
    let max_scale = scale.to_array().iter().fold(0.0f32, |m, v| m.max(v.abs()));
    Some(match shape {
        ColliderShape::Box {
            center,
            rotation,
            half_extents,
            ..
        } => ShapeSpec {
            local: physics::Pose::new(s(*center), *rotation),
            shape: physics::ColliderShape::Box {
                half_extents: a(*half_extents),
            },
            grip,
        },
        ColliderShape::Sphere { center, radius, .. } => ShapeSpec {
            local: physics::Pose::from_position(s(*center)),
            shape: physics::ColliderShape::Sphere {
                radius: radius * max_scale,
            },
            grip,
        },
        ColliderShape::Capsule {
            center,
            rotation,
            radius,
            height,
            ..
        } => ShapeSpec {
            local: physics::Pose::new(s(*center), *rotation),
            shape: physics::ColliderShape::Capsule {
                radius: radius * max_scale,
                height: height * max_scale,
            },
            grip,
        },
        ColliderShape::Hull { points, .. } => ShapeSpec {
            local: physics::Pose::IDENTITY,
            shape: physics::ColliderShape::Hull {
                points: points.iter().map(|p| s(*p)).collect(),
            },
            grip,
        },
        // A mesh shape stands as the triangles cooked for it (the map's companion, or the
        // load-time cook), in the part's own frame; none cooked: no body.
        ColliderShape::Mesh { .. } => {
            let (vertices, triangles) = crate::mesh_colliders::scaled(cooked?, scale);
            if triangles.is_empty() {
                return None;
            }
            ShapeSpec {
                local: physics::Pose::IDENTITY,
                shape: physics::ColliderShape::Mesh {
                    vertices,
                    indices: triangles,
                },
                grip,
            }
        }
    })
}

/// Builds the bodies of record `e`, if it stands as any and is in the world: one body of
/// its collider's shapes, static, kinematic (on or under a mover) or a prop.
fn add_bodies(
    catalog: &Catalog,
    meshes: &crate::mesh_colliders::MeshColliders,
    sim: &SimWorld,
    physics: &mut PhysicsWorld,
    bodies: &mut Bodies,
    e: hecs::Entity,
) -> Result<(), HostError> {
    if sim.in_world(e) {
        add_water(catalog, meshes, sim, physics, bodies, e)?;
    }
    let (Some(body), Some(collider)) = (sim.get::<Body>(e), sim.get::<Collider>(e)) else {
        return Ok(());
    };
    let dynamic = match body.role {
        BodyRole::Static | BodyRole::Kinematic => false,
        BodyRole::Dynamic => true,
        BodyRole::Sensor | BodyRole::Passable | BodyRole::None => return Ok(()),
    };
    if !sim.in_world(e) || bodies.of.contains_key(&e) {
        return Ok(());
    }
    let Some(pose) = sim.world_pose(e) else {
        return Ok(());
    };
    let mut slots = Vec::new();
    let shapes: Vec<ShapeSpec> = collider
        .shapes
        .iter()
        .filter_map(|s| {
            let slot = match s {
                ColliderShape::Box { material, .. }
                | ColliderShape::Sphere { material, .. }
                | ColliderShape::Capsule { material, .. }
                | ColliderShape::Hull { material, .. }
                | ColliderShape::Mesh { material, .. } => material.or(collider.material),
            };
            let cooked = match s {
                ColliderShape::Mesh { index, .. } => sim
                    .get::<dh_sims::ModelPart>(e)
                    .and_then(|p| p.object_id)
                    .and_then(|id| meshes.mesh(id, *index)),
                _ => None,
            };
            let spec = shape_spec(s, pose.scale, grip_of(catalog, sim, slot), cooked)?;
            slots.push(slot);
            Some(spec)
        })
        .collect();
    if shapes.is_empty() {
        return Ok(());
    }
    let kind = match body.role {
        BodyRole::Kinematic => BodyKind::Kinematic,
        _ if dynamic => BodyKind::Dynamic {
            mass: prop_mass(catalog, sim, e, &shapes),
        },
        _ => BodyKind::Static,
    };
    let handle = physics
        .add_body(kind, (&pose).into(), &shapes)
        .map_err(|err| {
            HostError::Physics(format!(
                "{}: {err}",
                sim.name_of(e).unwrap_or_else(|| "a record".into())
            ))
        })?;
    if matches!(kind, BodyKind::Kinematic) {
        // In author order when built in author order; a switch re-sorts (`sync_bodies`).
        bodies.kinematic.push((e, handle));
    }
    bodies.of.entry(e).or_default().push(handle);
    bodies.owners.insert(handle, e);
    bodies.slots.insert(handle, slots);
    Ok(())
}

/// Takes record `e`'s bodies out of the physics world (a pawn standing on one falls).
fn remove_bodies(physics: &mut PhysicsWorld, bodies: &mut Bodies, e: hecs::Entity) {
    for h in bodies.water.remove(&e).unwrap_or_default() {
        // Every handle here was added and never removed, so this cannot refuse.
        let _ = physics.remove_water_body(h);
    }
    let Some(handles) = bodies.of.remove(&e) else {
        return;
    };
    for h in handles {
        // Every handle here was added and never removed, so this cannot refuse.
        let _ = physics.remove_body(h);
        bodies.owners.remove(&h);
        bodies.slots.remove(&h);
    }
    bodies.kinematic.retain(|(k, _)| *k != e);
}

/// Brings the bodies of `root` and everything under it in line with the sims world after a
/// switch: what left the world loses its bodies, what came back gets them, built where it
/// stands now.
fn sync_bodies(
    catalog: &Catalog,
    mesh_colliders: &crate::mesh_colliders::MeshColliders,
    sim: &SimWorld,
    physics: &mut PhysicsWorld,
    bodies: &mut Bodies,
    root: hecs::Entity,
) -> Result<(), HostError> {
    for e in sim.subtree(root) {
        if sim.in_world(e) {
            add_bodies(catalog, mesh_colliders, sim, physics, bodies, e)?;
        } else {
            remove_bodies(physics, bodies, e);
        }
    }
    bodies
        .kinematic
        .sort_by_key(|(e, _)| sim.get::<dh_sims::RecordIndex>(*e).map(|r| r.0));
    Ok(())
}

impl Host {
    /// The pallets this host mounted, core first (the voxel drawer finds the platform
    /// pallet among them).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Mounts the pallets, reads and installs the map, and builds its physics world.
    pub fn start(options: &HostOptions) -> Result<Host, HostError> {
        let mut prefs = Prefs::new();
        for s in &options.sets {
            prefs.apply_set_argument(s)?;
        }
        let mut catalog = Catalog::with_core()?;
        for p in &options.pallets {
            catalog.mount_file(p)?;
        }
        // The map's inheritance chain is folded here, at load (spec, dh.map "Inheritance").
        let loaded = catalog.load_map_folded(&options.map)?;
        let (found, map) = (loaded.found, loaded.map);
        let ctx = MapContext {
            pallet: found.pallet.clone(),
            path: found.path.clone(),
            dependencies: loaded.dependencies,
        };
        let resolver = |barcode: &str| -> Option<ResolvedObject> {
            let json = catalog.object_json(barcode).ok()?;
            let root = json.get("resolved").unwrap_or(&json);
            Some(ResolvedObject::from_object_json(barcode, root))
        };
        // The logic ticks and the physics steps at one rate: delays, timers and mover
        // durations are quantized at it, and one physics step is 1 / rate seconds.
        let tick_rate = prefs.tick_rate();
        let params = physics_params(&prefs, tick_rate)?;
        // Objects that place a model install its parts from its scene graph.
        let trees = crate::models::SceneTrees::new(&catalog);
        let models = |barcode: &str| trees.tree(barcode);
        let sim =
            SimWorld::install_with_models(&map, &ctx, &resolver, &models, f64::from(tick_rate))
                .map_err(|e| HostError::Install {
                    map: found.barcode(),
                    message: crate::load_log::name_records(&e.to_string(), &map),
                })?;
        let physics = PhysicsWorld::new(params).map_err(|e| HostError::Params(e.to_string()))?;
        let mut warnings = loaded.notes;
        warnings.extend(sim.install_warnings().iter().cloned());
        warnings.extend(crate::load_log::map_notes(
            &found.barcode(),
            &map,
            &sim,
            &catalog,
        ));
        warnings.extend(crate::load_log::thumbnail_note(&catalog, &found));
        let mut mesh_colliders =
            crate::mesh_colliders::MeshColliders::open(&catalog, &found, &map, &prefs);
        warnings.extend(mesh_colliders.take_notes());
        let collision = CollisionConfig::from_prefs(&prefs, false);
        let mut host = Host {
            prefs,
            catalog,
            map: found.barcode(),
            tick_rate,
            sim,
            physics,
            bodies: Bodies::default(),
            spawns: Vec::new(),
            rng: SpawnRng::new(SPAWN_SEED),
            pawns: BTreeMap::new(),
            names: BTreeMap::new(),
            inputs: BTreeMap::new(),
            held: BTreeMap::new(),
            pending: Vec::new(),
            // What the map asks for that this run does not model prints before tick 0.
            output: warnings,
            tick: 0,
            voxels: Voxels {
                streamer: CollisionStreamer::new(collision),
                records: Vec::new(),
                last: CollisionStats::default(),
            },
            mesh_colliders,
            contacts: crate::contacts::ContactLog::default(),
        };
        host.build_physics()?;
        host.open_voxels()?;
        Ok(host)
    }

    /// Opens every placed `dh.voxelVolume` (spec `dh.voxel`, "Placing it in a map"): its
    /// definition and payload from the mounted pallets, each shown grid placed under the
    /// record's pose and added to the collision streamer (when the record is in the
    /// world), and its fluids for the water query when its platform declares fluids
    /// (Minecraft's water and lava; without them nothing swims, as the spec has it
    /// without a platform pallet).
    fn open_voxels(&mut self) -> Result<(), HostError> {
        let tables =
            dh_content::voxel::blocks::BlockTables::builtin().map_err(|e| HostError::Install {
                map: self.map.clone(),
                message: format!("the built-in block tables do not load: {e}"),
            })?;
        // The map's own material slots come first in the scene's surface table, the
        // presets after them.
        let surface_base = self.sim.materials().references.len() as u32;
        let records: Vec<hecs::Entity> = self.sim.records().to_vec();
        let mut said = HashSet::new();
        for e in records {
            let Some(v) = self.sim.get::<dh_sims::VoxelVolume>(e) else {
                continue;
            };
            let name = self.sim.name_of(e).unwrap_or_else(|| v.volume.clone());
            let pose = self.sim.world_pose(e).unwrap_or_default();
            let m = pose_matrix(pose.position, pose.rotation, pose.scale);
            let opened =
                open_volume(&self.catalog, &name, &v.volume, m, &v.grids).map_err(|err| {
                    HostError::Install {
                        map: self.map.clone(),
                        message: err.to_string(),
                    }
                })?;
            let platform = opened.platform.as_deref();
            let own = platform.is_some_and(|p| self.platform_rule(p, &mut said));
            let mut shapes = match platform {
                Some(p) if own => platform_shapes(&self.catalog, p, tables),
                _ => None,
            };
            let palette = Arc::new(CollisionPalette::resolve_shaped(
                &opened.palette,
                tables,
                platform,
                None,
                shapes.as_mut(),
                surface_base,
            ));
            if let Some(s) = shapes.as_mut() {
                let notes = s.take_notes();
                self.output.extend(notes);
            }
            // The volume's cell cache is shared out evenly among its shown grids.
            let cache = self.voxels.streamer.config().cell_cache_bytes / opened.grids.len().max(1);
            let mut cells = Vec::with_capacity(opened.grids.len());
            for g in &opened.grids {
                let c = RangeCells::new(&name, opened.payload.clone(), g.index as u32, cache)
                    .map_err(|err| HostError::Install {
                        map: self.map.clone(),
                        message: format!("voxel volume '{name}': {err}"),
                    })?;
                cells.push(Arc::new(c));
            }
            let fluids = (platform == Some(dh_content::schema::voxel::MINECRAFT))
                .then(FluidTable::minecraft);
            let water = match &fluids {
                Some(ft) => {
                    let looks =
                        VoxelLooks::resolve(&opened.palette, tables, platform, None, Some(ft));
                    opened
                        .grids
                        .iter()
                        .zip(&cells)
                        .filter_map(|(g, c)| {
                            let f = FluidField::new(&looks, g.placement)?;
                            GridWater::new(f, c.clone(), &g.placement)
                        })
                        .collect()
                }
                None => Vec::new(),
            };
            let mut r = VoxelRecord {
                entity: e,
                opened: Arc::new(opened),
                palette,
                cells,
                water,
                ids: Vec::new(),
            };
            if self.sim.in_world(e) {
                Voxels::add(&mut self.voxels.streamer, &mut r);
            }
            self.voxels.records.push(r);
        }
        Ok(())
    }

    /// Whether the prediction reads platform `platform`'s own pallet for block shapes
    /// under the server's pallet rule (spec `dh.voxel`, "The server's pallet rules",
    /// [`crate::voxel::shapes::pallet_rule`]), its line said to the load log once per
    /// platform (`said`). `false` where this workspace does not mount the pallet.
    fn platform_rule(&mut self, platform: &str, said: &mut HashSet<String>) -> bool {
        let Some(pallet) = self.catalog.pallet(platform) else {
            return false;
        };
        let m = pallet.manifest();
        let local = dh_content::compile::platforms::pallet_fingerprint(pallet).unwrap_or_default();
        let server = self.server_pallet(platform);
        let (own, line) =
            crate::voxel::shapes::pallet_rule(&m.id, &m.name, &m.version, &local, &server);
        if let Some(line) = line {
            if said.insert(platform.to_string()) {
                self.output.push(line);
            }
        }
        own
    }

    /// What the map's build recorded of platform `platform`'s pallet (its `.platforms`
    /// companion, [`dh_content::compile::platforms`]).
    fn server_pallet(&self, platform: &str) -> crate::voxel::shapes::ServerPallet {
        use crate::voxel::shapes::ServerPallet;
        let Some((pallet, path)) = self.map.split_once(':') else {
            return ServerPallet::Unnamed;
        };
        let companion = format!("{path}{}", dh_content::compile::platforms::PLATFORMS_SUFFIX);
        let Some(p) = self.catalog.pallet(pallet) else {
            return ServerPallet::Unnamed;
        };
        if p.entry(&companion).is_none_or(|e| e.raw_len > 1 << 20) {
            return ServerPallet::Unnamed;
        }
        let text = p
            .read(&companion)
            .ok()
            .and_then(|b| String::from_utf8(b.into_owned()).ok());
        let read = text
            .as_deref()
            .map(dh_content::compile::platforms::read_platforms);
        match read {
            Some(Ok(records)) => match records.get(platform) {
                None => ServerPallet::Unnamed,
                Some(None) => ServerPallet::None,
                Some(Some(r)) => ServerPallet::Blocks(r.blocks.clone()),
            },
            _ => ServerPallet::Unnamed,
        }
    }

    /// The map's placed voxel volumes, opened (author order): each shown grid's decoded
    /// cells, palette and placement.
    ///
    /// VOXEL DRAWING HOOK: [`crate::voxel::draw::VoxelDraw`] owns the renderer's
    /// `VoxelStreamer` and adds each shown grid once, as `StreamVolume { name, source:
    /// VolumeSource::Chunks { chunks: grid.chunks.clone(), cells: grid.cells, placement:
    /// grid.placement, looks }, .. }`, lit as [`Host::voxel_volume_lighting`] resolves;
    /// then once a rendered frame (not once a tick: drawing follows the camera, collision
    /// follows the pawns) it calls `draw(id)` for each volume whose record is in the world
    /// ([`Host::voxel_volume_in_world`]), `update(camera)` and joins the frame.
    pub fn voxel_volumes(&self) -> Vec<Arc<OpenedVolume>> {
        self.voxels
            .records
            .iter()
            .map(|r| r.opened.clone())
            .collect()
    }

    /// Whether the record carrying voxel volume `index` (of [`Host::voxel_volumes`]) is in
    /// the world now.
    pub fn voxel_volume_in_world(&self, index: usize) -> bool {
        self.voxels
            .records
            .get(index)
            .is_some_and(|r| self.sim.in_world(r.entity))
    }

    /// The lighting mode the placement of voxel volume `index` (of [`Host::voxel_volumes`])
    /// asks for (`None`: the container's own, else its platform's default).
    pub fn voxel_volume_lighting(
        &self,
        index: usize,
    ) -> Option<dh_content::schema::components::voxel_volume::VoxelLighting> {
        let r = self.voxels.records.get(index)?;
        self.sim
            .get::<dh_sims::VoxelVolume>(r.entity)
            .and_then(|v| v.lighting)
    }

    /// What the last tick's voxel collision update did, and what is alive after it.
    pub fn voxel_collision_stats(&self) -> CollisionStats {
        self.voxels.last
    }

    /// The collision streamer (its bodies, chunks and worker time).
    pub fn voxel_collision(&self) -> &CollisionStreamer {
        &self.voxels.streamer
    }

    /// Waits for every queued voxel chunk and attaches it (tests and tools that want the
    /// whole radius solid before they look).
    pub fn flush_voxel_collision(&mut self) -> CollisionStats {
        self.voxels.streamer.flush(&mut self.physics)
    }

    /// Keeps voxel chunks solid around every pawn and gives each pawn the water at its
    /// middle: before the tick moves anyone.
    fn update_voxels(&mut self, timer: &FrameTimer) -> Result<(), HostError> {
        if self.voxels.records.is_empty() {
            return Ok(());
        }
        let ids: Vec<PawnId> = self.pawns.values().copied().collect();
        let mut feet = Vec::with_capacity(ids.len());
        for &id in &ids {
            let s = self
                .physics
                .pawn_state(id)
                .map_err(|e| HostError::Physics(e.to_string()))?;
            feet.push(s.feet);
        }
        {
            let _s = timer.scope("voxel collision");
            let stats = self.voxels.streamer.update(&mut self.physics, &feet);
            if stats.cooked_now > 0 {
                timer.add_phase_time("voxel cook", stats.cook_time);
            }
            self.voxels.last = stats;
            // A chunk that does not decode is not solid, and says so once.
            self.output.extend(self.voxels.streamer.take_log());
        }
        if self.voxels.records.iter().all(|r| r.water.is_empty()) {
            return Ok(());
        }
        let _s = timer.scope("voxel water");
        let swim = swim_params(&self.prefs);
        let half = self.physics.params().pawn_height * 0.5;
        for (&id, f) in ids.iter().zip(&feet) {
            let middle = Vec3::new(f.x, f.y + half, f.z);
            let water = self.voxels.water_at(&self.sim, middle, swim);
            self.physics
                .set_pawn_water(id, water)
                .map_err(|e| HostError::Physics(e.to_string()))?;
        }
        Ok(())
    }

    /// One body per collider that stands as one, in author order, then the model parts'
    /// in part-table order; the spawns.
    fn build_physics(&mut self) -> Result<(), HostError> {
        let records: Vec<hecs::Entity> = self
            .sim
            .records()
            .iter()
            .chain(self.sim.parts())
            .copied()
            .collect();
        for e in records {
            if self.sim.get::<SpawnPoint>(e).is_some() {
                if let Some(p) = self.sim.world_pose(e) {
                    let (yaw, _) = p.rotation.yaw_pitch_degrees();
                    self.spawns.push((
                        e,
                        SpawnPose {
                            feet: p.position,
                            yaw,
                        },
                    ));
                }
            }
            add_bodies(
                &self.catalog,
                &self.mesh_colliders,
                &self.sim,
                &mut self.physics,
                &mut self.bodies,
                e,
            )?;
        }
        Ok(())
    }

    /// The map's barcode.
    pub fn map(&self) -> &str {
        &self.map
    }

    /// The next tick to run.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The installed tick rate.
    pub fn tick_rate(&self) -> u32 {
        self.tick_rate
    }

    /// The simulation world.
    pub fn sim(&self) -> &SimWorld {
        &self.sim
    }

    /// The physics world.
    pub fn physics(&self) -> &PhysicsWorld {
        &self.physics
    }

    /// Where the solver has carried record `e` when it is a physics prop: its body's
    /// position and rotation (`None` for any other record). What extraction draws a prop at.
    pub fn prop_pose(&self, e: hecs::Entity) -> Option<physics::Pose> {
        self.sim.get::<PhysicsProp>(e)?;
        let h = self.bodies.of.get(&e)?.first()?;
        self.physics.body_pose(*h).ok()
    }

    /// The solver's mass of record `e`'s body in kilograms when it is a physics prop
    /// (`None` for any other record, or one that stands as no body).
    pub fn prop_mass(&self, e: hecs::Entity) -> Option<f32> {
        self.sim.get::<PhysicsProp>(e)?;
        let h = self.bodies.of.get(&e)?.first()?;
        self.physics.body_mass(*h).ok()
    }

    /// Whether the solver has put record `e`'s body to sleep when it is a physics prop: the
    /// "moving/resting" readout the entity-gizmo overlay shows (spec 000:1046); `None` for
    /// any other record, or one that stands as no body.
    pub fn prop_sleeping(&self, e: hecs::Entity) -> Option<bool> {
        self.sim.get::<PhysicsProp>(e)?;
        let h = self.bodies.of.get(&e)?.first()?;
        self.physics.body_sleeping(*h).ok()
    }

    /// Output the script produced since the last call (`print`, `lights.list`, reports).
    pub fn take_output(&mut self) -> Vec<String> {
        std::mem::take(&mut self.output)
    }

    fn pawn(&self, name: &str) -> Result<PawnId, String> {
        self.pawns.get(name).copied().ok_or_else(|| {
            if self.pawns.is_empty() {
                format!("no pawn named '{name}' (no pawn is spawned)")
            } else {
                format!(
                    "no pawn named '{name}'; the pawns are {}",
                    self.pawns.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            }
        })
    }

    /// Runs one tick: the script's due commands, the logic tick and the physics step.
    /// Returns the tick's trace lines.
    pub fn step(
        &mut self,
        script: Option<&mut ScriptRunner>,
        scheduler: &Scheduler,
        timer: &FrameTimer,
    ) -> Result<Vec<TraceLine>, HostError> {
        let tick = self.tick;
        if let Some(runner) = script {
            let _s = timer.scope("script");
            runner.run_due(self, tick)?;
        }
        {
            let _s = timer.scope("input");
            // Held walks count down; every pawn's input goes to the physics world.
            // A walk held for n ticks moves the pawn in n ticks and stops it in the next.
            let mut ended = Vec::new();
            for (&id, held) in self.held.iter_mut() {
                let input = self.inputs.entry(id).or_default();
                match held.left {
                    Some(0) => {
                        input.move_local = Vec2::ZERO;
                        ended.push(id);
                    }
                    Some(ref mut n) => {
                        input.move_local = Vec2::new(held.right, held.forward);
                        *n -= 1;
                    }
                    None => input.move_local = Vec2::new(held.right, held.forward),
                }
            }
            for id in ended {
                self.held.remove(&id);
            }
            for (&id, input) in self.inputs.iter_mut() {
                self.physics
                    .set_pawn_input(id, *input)
                    .map_err(|e| HostError::Physics(e.to_string()))?;
                input.jump = false;
            }
        }
        self.update_voxels(timer)?;
        let inputs = std::mem::take(&mut self.pending);
        // Records switched this tick: their bodies follow once the logic has switched them.
        let switched: Vec<hecs::Entity> = inputs
            .iter()
            .filter_map(|i| match i {
                Input::SetEnabled { entity, .. } => Some(*entity),
                _ => None,
            })
            .collect();
        let sim = Mutex::new(&mut self.sim);
        let phys = Mutex::new(&mut self.physics);
        let bodies = Mutex::new(&mut self.bodies);
        let catalog = &self.catalog;
        let mesh_colliders = &self.mesh_colliders;
        let voxel_records = &self.voxels.records[..];
        let events = Mutex::new(None);
        let failed: Mutex<Option<HostError>> = Mutex::new(None);
        {
            let mut graph = JobGraph::new();
            let logic = graph.add(Lane::Critical, "logic", || {
                let (Ok(mut sim), Ok(phys)) = (sim.lock(), phys.lock()) else {
                    return;
                };
                let overlaps = Overlaps(phys.pawn_overlaps());
                let ev = sim.tick_with(&inputs, &overlaps, &JobsParallel(scheduler));
                if let Ok(mut slot) = events.lock() {
                    *slot = Some(ev);
                }
            });
            let step = graph.add(Lane::Critical, "physics", || {
                let (Ok(sim), Ok(mut phys), Ok(mut bodies)) =
                    (sim.lock(), phys.lock(), bodies.lock())
                else {
                    return;
                };
                for &root in &switched {
                    if let Err(e) =
                        sync_bodies(catalog, mesh_colliders, &sim, &mut phys, &mut bodies, root)
                    {
                        if let Ok(mut slot) = failed.lock() {
                            slot.get_or_insert(e);
                        }
                    }
                }
                let targets: HashMap<hecs::Entity, dh_sims::Pose> =
                    sim.kinematic_targets().into_iter().collect();
                for (e, body) in &bodies.kinematic {
                    if let Some(p) = targets.get(e) {
                        // A body whose target is refused keeps its last pose.
                        let _ = phys.set_kinematic_target(*body, p.into());
                    }
                }
                // Props float in voxel water as in the map's own (spec 004:481).
                let water = VoxelWater {
                    records: voxel_records,
                    sim: &sim,
                };
                phys.step_with_water(&JobsParallel(scheduler), &water);
            });
            graph
                .depend(step, logic)
                .map_err(|e| HostError::Jobs(e.to_string()))?;
            scheduler
                .run_graph_timed(&mut graph, timer)
                .map_err(|e| HostError::Jobs(e.to_string()))?;
        }
        if let Some(e) = failed.into_inner().ok().flatten() {
            return Err(e);
        }
        if !switched.is_empty() {
            // A voxel volume switched off loses its bodies; one switched on is solid from
            // the next update.
            self.voxels.sync(&self.sim, &mut self.physics);
        }
        let events =
            events.into_inner().ok().flatten().ok_or_else(|| {
                HostError::Jobs(format!("tick {tick}: the logic job did not finish"))
            })?;
        {
            let _s = timer.scope("teleports");
            for t in &events.teleports {
                let Ok(state) = self.physics.pawn_state(t.pawn) else {
                    continue;
                };
                let moved = t.apply(state.feet, state.yaw, state.pitch, state.velocity);
                use dh_content::schema::components::logic::TeleportVelocity as Authored;
                let velocity = match t.velocity {
                    Authored::Keep => TeleportVelocity::Keep,
                    Authored::Zero => TeleportVelocity::Zero,
                    Authored::Turn => TeleportVelocity::Turn(t.frame_change()),
                };
                self.physics
                    .teleport_pawn(t.pawn, moved.position, moved.yaw, moved.pitch, velocity)
                    .map_err(|e| HostError::Physics(e.to_string()))?;
            }
        }
        self.log_contacts()?;
        self.tick += 1;
        Ok(self.sim.take_trace())
    }

    /// `client.debug.contacts`: each pawn's contacts that began or ended this tick, one
    /// line each ([`crate::contacts`]); nothing (and nothing remembered) while it is off.
    fn log_contacts(&mut self) -> Result<(), HostError> {
        if !self.prefs.bool("client.debug.contacts").unwrap_or(false) {
            self.contacts.clear();
            return Ok(());
        }
        let pawns: Vec<(PawnId, String)> =
            self.names.iter().map(|(id, n)| (*id, n.clone())).collect();
        let mut log = std::mem::take(&mut self.contacts);
        for (id, name) in &pawns {
            let now = self
                .physics
                .pawn_contacts(*id)
                .map_err(|e| HostError::Physics(e.to_string()))?;
            let lines = log.update(*id, name, &now, |c| self.contact_name(c));
            self.output.extend(lines);
        }
        log.retain(|id| self.names.contains_key(&id));
        self.contacts = log;
        Ok(())
    }

    /// What a contact line calls the body `contact` touches: a voxel chunk by its volume,
    /// grid, chunk, triangles and the cell, block and surface touched; any other body by
    /// its record and the surface of the collider touched.
    pub fn contact_name(&self, contact: &dh_sims::physics::PawnContact) -> String {
        if let Some(v) = self.voxel_contact(contact) {
            return v.describe();
        }
        let Some(&e) = self.bodies.owners.get(&contact.body) else {
            return "a body no record owns".to_string();
        };
        let name = self
            .sim
            .name_of(e)
            .map_or_else(|| "(unnamed)".to_string(), |n| format!("'{n}'"));
        let at = match (
            self.sim.get::<dh_sims::ModelPart>(e),
            self.sim.get::<dh_sims::RecordIndex>(e),
        ) {
            (Some(part), _) => format!(
                "part {} of {}",
                part.id,
                self.sim
                    .name_of(part.instance)
                    .map_or_else(|| "a placement".to_string(), |n| format!("'{n}'"))
            ),
            (None, Some(i)) => format!("objects[{}]", i.0),
            (None, None) => "a record".to_string(),
        };
        let slot = self
            .bodies
            .slots
            .get(&contact.body)
            .and_then(|s| s.get(contact.collider))
            .copied()
            .flatten();
        let surface = surface_of(&self.catalog, &self.sim, slot);
        format!("{name} ({at}) | surface {surface}")
    }

    /// The voxel chunk a contact touches, named (`None` when its body is no chunk's).
    pub fn voxel_contact(
        &self,
        contact: &dh_sims::physics::PawnContact,
    ) -> Option<crate::contacts::VoxelContact> {
        let streamer = &self.voxels.streamer;
        let (volume, chunk) = streamer.chunk_of_body(contact.body)?;
        let (r, k) = self.voxels.records.iter().find_map(|r| {
            r.ids
                .iter()
                .find(|(id, _)| *id == volume)
                .map(|&(_, k)| (r, k))
        })?;
        let grid = r.opened.grids.get(k)?;
        let cells = r.cells.get(k)?;
        // The cell just inside the surface at the contact point, in the grid's cells; where
        // that one is not solid (the point on an edge or a corner), the first solid one of
        // the eight the point touches.
        let inverse = grid.placement.inverse()?;
        let at = inverse.point(contact.point.as_dvec3());
        let inward = inverse
            .vector(contact.normal.as_dvec3())
            .normalize_or_zero();
        let e = cells.edge() as i32;
        let index_at = |cell: [i32; 3]| {
            let window = cells.window(cell.map(|c| c.div_euclid(e)), cell.map(|c| c.div_euclid(e)));
            crate::voxel::cell_of(&window, cell)
        };
        let floor = |p: glam::DVec3| [p.x, p.y, p.z].map(|c| c.floor() as i32);
        let first = floor(at - inward * 0.25);
        let mut found = (first, index_at(first));
        if !r.palette.block(found.1).solid {
            for corner in 0..8 {
                let off = glam::DVec3::new(
                    if corner & 1 == 0 { -0.5 } else { 0.5 },
                    if corner & 2 == 0 { -0.5 } else { 0.5 },
                    if corner & 4 == 0 { -0.5 } else { 0.5 },
                );
                let c = floor(at + off);
                let i = index_at(c);
                if r.palette.block(i).solid {
                    found = (c, i);
                    break;
                }
            }
        }
        let (cell, index) = found;
        let block = r.opened.palette.get(index as usize).map_or_else(
            || "(unresolved)".to_string(),
            |p| format!("{}:{}", p.ns, p.id),
        );
        let surface = dh_content::schema::surface::SURFACE_PRESETS
            .get(r.palette.block(index).surface as usize)
            .map_or("stone", |p| p.name);
        Some(crate::contacts::VoxelContact {
            volume: r.opened.name.clone(),
            grid: grid.index,
            grid_name: grid.name.clone(),
            chunk,
            triangles: streamer.body_triangles(contact.body).unwrap_or(0),
            cell,
            block,
            surface: surface.to_string(),
        })
    }

    /// The cooked triangles model part `e`'s `mesh` shape `index` stands as, in the part's
    /// own frame, unscaled: the solid cook's, else the trigger cook's (what a trigger that
    /// stands as no body is drawn as); `None` for a record that is no model part or a
    /// shape with none.
    pub fn cooked_mesh(
        &self,
        e: hecs::Entity,
        index: u32,
    ) -> Option<&dh_content::colcook::CookedMesh> {
        let id = self.sim.get::<dh_sims::ModelPart>(e)?.object_id?;
        self.mesh_colliders
            .mesh(id, index)
            .or_else(|| self.mesh_colliders.water_mesh(id, index))
    }

    /// The bodies record `e` stands as (empty when it stands as none).
    pub fn bodies_of(&self, e: hecs::Entity) -> &[BodyHandle] {
        self.bodies.of.get(&e).map_or(&[], |v| v.as_slice())
    }

    /// The map's voxel volumes' chunk bodies alive, each with the name of its volume (its
    /// record's), in volume and chunk order: what `client.debug.colliderGizmo` draws.
    pub fn voxel_bodies(&self) -> Vec<(String, [i32; 3], BodyHandle, u32)> {
        let streamer = &self.voxels.streamer;
        streamer
            .bodies()
            .into_iter()
            .filter_map(|(v, chunk, b, tris)| {
                let name = streamer.volume_name(v)?.to_string();
                Some((name, chunk, b, tris))
            })
            .collect()
    }

    fn entity(&self, name: &str) -> Result<hecs::Entity, String> {
        self.sim
            .entity_named(name)
            .ok_or_else(|| format!("no pawn or record named '{name}'"))
    }
}

fn bool_value(b: bool) -> Value {
    Value::Bool(b)
}

impl ScriptHost for Host {
    fn tick_rate(&self) -> u32 {
        self.tick_rate
    }

    fn set_pref(&mut self, name: &str, value: &str) -> Result<(), String> {
        let before = self.prefs.clone();
        self.prefs.set(name, value).map_err(|e| e.to_string())?;
        if crate::prefs::PHYSICS_PREFS.contains(&name) {
            // Live: the physics world takes the new parameters from the next tick, or
            // refuses them whole, and then the preference keeps its old value.
            let applied = physics_params(&self.prefs, self.tick_rate).and_then(|p| {
                self.physics
                    .set_params(p)
                    .map_err(|e| HostError::Params(e.to_string()))
            });
            if let Err(e) = applied {
                self.prefs = before;
                return Err(e.to_string());
            }
        } else if name == crate::prefs::TICK_RATE {
            self.prefs = before;
            return Err(format!(
                "world.tickRate is read when a map installs; this world runs at {} Hz (--set world.tickRate=N on the command line)",
                self.tick_rate
            ));
        }
        Ok(())
    }

    fn spawn(&mut self, pawn: &str, at: Option<Vec3>, yaw: Option<f32>) -> Result<(), String> {
        if self.pawns.contains_key(pawn) {
            return Err(format!("a pawn named '{pawn}' is already spawned"));
        }
        if self.sim.entity_named(pawn).is_some() {
            return Err(format!(
                "the map has a record named '{pawn}'; give the pawn another name"
            ));
        }
        let (feet, facing) = match at {
            Some(p) => (p, yaw.unwrap_or(0.0)),
            None => {
                let live: Vec<SpawnPose> = self
                    .spawns
                    .iter()
                    .filter(|(e, _)| self.sim.in_world(*e))
                    .map(|(_, p)| *p)
                    .collect();
                let s = self.physics.select_spawn(&live, &mut self.rng);
                (s.feet, yaw.unwrap_or(s.yaw))
            }
        };
        let id = self
            .physics
            .spawn_pawn(feet, facing)
            .map_err(|e| e.to_string())?;
        self.pawns.insert(pawn.to_string(), id);
        self.names.insert(id, pawn.to_string());
        self.inputs.insert(
            id,
            PawnInput {
                yaw: facing,
                ..PawnInput::default()
            },
        );
        Ok(())
    }

    fn move_pawn(
        &mut self,
        pawn: &str,
        forward: f32,
        right: f32,
        ticks: Option<u64>,
    ) -> Result<(), String> {
        let id = self.pawn(pawn)?;
        self.held.insert(
            id,
            Held {
                forward,
                right,
                left: ticks,
            },
        );
        Ok(())
    }

    fn turn(&mut self, pawn: &str, yaw: f32, pitch: Option<f32>) -> Result<(), String> {
        let id = self.pawn(pawn)?;
        let input = self.inputs.entry(id).or_default();
        input.yaw = yaw;
        if let Some(p) = pitch {
            input.pitch = p;
        }
        Ok(())
    }

    fn jump(&mut self, pawn: &str) -> Result<(), String> {
        let id = self.pawn(pawn)?;
        self.inputs.entry(id).or_default().jump = true;
        Ok(())
    }

    fn use_key(&mut self, pawn: &str) -> Result<(), String> {
        let id = self.pawn(pawn)?;
        // The physics world answers with the pose the last step left; the script's `turn`
        // this tick reaches it first.
        if let Some(input) = self.inputs.get(&id) {
            self.physics
                .set_pawn_input(id, *input)
                .map_err(|e| e.to_string())?;
        }
        let hit = self
            .physics
            .use_target(id, USE_REACH)
            .map_err(|e| e.to_string())?;
        if let Some(target_entity) = hit.and_then(|b| self.bodies.owners.get(&b).copied()) {
            self.pending.push(Input::Use {
                pawn: id,
                target_entity,
            });
        }
        Ok(())
    }

    fn teleport(&mut self, pawn: &str, to: Vec3) -> Result<(), String> {
        let id = self.pawn(pawn)?;
        let state = self.physics.pawn_state(id).map_err(|e| e.to_string())?;
        self.physics
            .teleport_pawn(id, to, state.yaw, state.pitch, TeleportVelocity::Zero)
            .map_err(|e| e.to_string())
    }

    fn noclip(&mut self, pawn: &str, on: Option<bool>) -> Result<String, String> {
        let id = self.pawn(pawn)?;
        if !self.prefs.noclip_allowed() {
            return Err(
                "noclip is not allowed on this world (world.noclipAllowed is false)".into(),
            );
        }
        let now = self
            .physics
            .pawn_state(id)
            .map_err(|e| e.to_string())?
            .noclip;
        let on = on.unwrap_or(!now);
        self.physics
            .set_pawn_noclip(id, on)
            .map_err(|e| e.to_string())?;
        Ok(format!("{pawn}: noclip {}", if on { "on" } else { "off" }))
    }

    fn lights_list(&mut self, pattern: Option<&str>) -> Result<String, String> {
        let lines = self.sim.lights_list();
        let names: Vec<String> = match pattern {
            Some(p) => self
                .sim
                .lights_matching(p)
                .into_iter()
                .map(|(_, n)| n)
                .collect(),
            None => Vec::new(),
        };
        if pattern.is_some() && names.is_empty() {
            return Err(format!(
                "lights.list: no light matches '{}'",
                pattern.unwrap_or("")
            ));
        }
        Ok(lines
            .into_iter()
            .filter(|l| pattern.is_none() || names.iter().any(|n| l.starts_with(&format!("{n}:"))))
            .collect::<Vec<_>>()
            .join("\n"))
    }

    fn lights_set(
        &mut self,
        pattern: &str,
        field: &str,
        value: &[String],
    ) -> Result<String, String> {
        let args: Vec<&str> = value.iter().map(String::as_str).collect();
        self.sim
            .lights_set(pattern, field, &args)
            .map_err(|e| e.to_string())
    }

    fn lights_reset(&mut self, pattern: &str) -> Result<String, String> {
        self.sim.lights_reset(pattern).map_err(|e| e.to_string())
    }

    fn scene_enable(&mut self, name: &str, enabled: bool) -> Result<String, String> {
        let entity = self.entity(name)?;
        let word = if enabled { "on" } else { "off" };
        let own = self.sim.world().get::<&dh_sims::Disabled>(entity).is_err();
        let queued = self.pending.iter().rev().find_map(|i| match i {
            Input::SetEnabled { entity: e, enabled } if *e == entity => Some(*enabled),
            _ => None,
        });
        if queued.unwrap_or(own) == enabled {
            return Ok(format!("{name} is already switched {word}"));
        }
        // The logic tick switches it (draining plates and triggers, resetting nodes), then
        // its bodies, and those of everything under it, leave or rejoin the physics world.
        self.pending.push(Input::SetEnabled { entity, enabled });
        let under = self.sim.subtree(entity).len().saturating_sub(1);
        Ok(match under {
            0 => format!("{name} switches {word} in tick {}", self.tick),
            n => format!(
                "{name} switches {word} in tick {}, with the {n} record(s) under it",
                self.tick
            ),
        })
    }

    fn query(&self, entity: &str, property: &str) -> Result<Value, String> {
        if let Some(&id) = self.pawns.get(entity) {
            let s = self.physics.pawn_state(id).map_err(|e| e.to_string())?;
            let n = |v: f32| Ok(Value::Number(f64::from(v)));
            return match property {
                "x" => n(s.feet[0]),
                "y" => n(s.feet[1]),
                "z" => n(s.feet[2]),
                "yaw" => n(s.yaw),
                "pitch" => n(s.pitch),
                "vx" => n(s.velocity[0]),
                "vy" => n(s.velocity[1]),
                "vz" => n(s.velocity[2]),
                "grounded" => Ok(bool_value(s.grounded)),
                "noclip" => Ok(bool_value(s.noclip)),
                "swimming" => Ok(bool_value(
                    self.physics.pawn_swimming(id).map_err(|e| e.to_string())?,
                )),
                _ => Err(format!(
                    "a pawn has no property '{property}'; it has x, y, z, yaw, pitch, vx, vy, vz, grounded, noclip, swimming"
                )),
            };
        }
        let e = self.entity(entity)?;
        let sim = &self.sim;
        // A prop's pose is the solver's; everything else stands where the sims world put it.
        let pose = || -> Option<Vec3> {
            if let Some(h) = self.bodies.of.get(&e).and_then(|b| b.first()) {
                if sim.get::<PhysicsProp>(e).is_some() {
                    return self.physics.body_pose(*h).ok().map(|p| p.position);
                }
            }
            sim.world_pose(e).map(|p| p.position)
        };
        let num = |v: f64| Ok(Value::Number(v));
        let missing = |what: &str| Err(format!("{entity} has no {what}, so no '{property}'"));
        match property {
            "x" | "y" | "z" => {
                let p = pose().ok_or_else(|| format!("{entity} has no position"))?;
                let i = match property {
                    "x" => 0,
                    "y" => 1,
                    _ => 2,
                };
                num(f64::from(p[i]))
            }
            "open" | "moving" | "opening" => match sim.get::<Mover>(e) {
                Some(m) => match property {
                    "open" => num(m.open_fraction()),
                    "moving" => Ok(bool_value(m.state.moving)),
                    _ => Ok(bool_value(m.state.heading == dh_sims::Heading::Open)),
                },
                None => missing("dh.mover"),
            },
            "on" => match sim.get::<Light>(e) {
                Some(l) => Ok(bool_value(l.on)),
                None => missing("dh.light"),
            },
            "pressed" => match sim.get::<Button>(e) {
                Some(b) => Ok(bool_value(b.latch)),
                None => missing("dh.button"),
            },
            "occupancy" => match (sim.get::<PressurePlate>(e), sim.get::<Trigger>(e)) {
                (Some(p), _) => num(p.occupants.len() as f64),
                _ => missing("dh.pressurePlate"),
            },
            // A trigger's own on/off while it is in the world; otherwise whether the record
            // is in the world at all.
            "enabled" => match sim.get::<Trigger>(e) {
                Some(t) if sim.in_world(e) => Ok(bool_value(t.enabled)),
                _ => Ok(bool_value(sim.in_world(e))),
            },
            "solid" => Ok(bool_value(self.bodies.of.contains_key(&e))),
            "a" | "b" => {
                let a = property == "a";
                if let Some(g) = sim.get::<dh_sims::AndGate>(e) {
                    Ok(bool_value(if a { g.a } else { g.b }))
                } else if let Some(g) = sim.get::<dh_sims::OrGate>(e) {
                    Ok(bool_value(if a { g.a } else { g.b }))
                } else if let (true, Some(g)) = (a, sim.get::<dh_sims::NotGate>(e)) {
                    Ok(bool_value(g.a))
                } else {
                    missing("gate")
                }
            }
            "name" => Ok(Value::Text(
                sim.get::<Name>(e).map(|n| n.0).unwrap_or_default(),
            )),
            _ => Err(format!(
                "unknown property '{property}'; a record has x, y, z, open, moving, opening, on, pressed, occupancy, enabled, solid, a, b"
            )),
        }
    }

    fn print(&mut self, text: &str) {
        self.output.push(text.to_string());
    }
}
