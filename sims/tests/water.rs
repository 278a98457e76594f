//! Props on the surfaces under them and in water (spec `dh.map`, "Physics props": "Surface
//! friction" and "Buoyancy", 000:1044 and 000:1050), and the map's own water bodies (000:209,
//! 000:464, 000:539). Every expected value is worked out by hand from the spec's rules in
//! the comments beside it; default parameters (`world.prop.friction` 1,
//! `world.prop.groundProbe` 0.1 m, `world.water.samples` 8, gravity 9.81 m/s², 64 Hz).

mod common;

use dh_sims::physics::{
    BodyHandle, ColliderShape, NoWater, PhysicsError, PhysicsParams, PhysicsWorld, Pose, WaterAt,
    WaterMedium, WaterQuery,
};
use glam::{Quat, Vec3};

const G: f32 = 9.81;
/// The surface presets' grips (content's surface table): ice, stone, wood.
const ICE: f32 = 0.12;
const STONE: f32 = 0.9;
const WOOD: f32 = 0.75;

fn near(actual: f32, expected: f32, tolerance: f32, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: expected {expected} ± {tolerance}, got {actual}"
    );
}

fn run(w: &mut PhysicsWorld, ticks: u32) {
    for _ in 0..ticks {
        w.step();
    }
}

/// A world with a 40 m floor of `grip` whose top is at y = 0, and a 0.5 m wooden crate of
/// 30 kg resting on it at the origin.
fn floor_and_crate(params: PhysicsParams, grip: f32) -> (PhysicsWorld, BodyHandle) {
    let mut w = PhysicsWorld::new(params).unwrap_or_else(|e| panic!("{e}"));
    w.add_static_box(
        Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
        Vec3::new(20.0, 0.5, 20.0),
        grip,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(0.0, 0.25, 0.0)),
            Vec3::splat(0.25),
            30.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    (w, c)
}

/// How far the crate slides on a floor of `grip` from 2 m/s along +X.
fn slide(params: PhysicsParams, grip: f32) -> f32 {
    let (mut w, c) = floor_and_crate(params, grip);
    run(&mut w, 16);
    let start = w.body_pose(c).map(|p| p.position.x).unwrap_or(f32::NAN);
    w.set_body_velocity(c, Vec3::new(2.0, 0.0, 0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 320);
    let v = w.body_velocity(c).unwrap_or_else(|e| panic!("{e}"));
    assert!(v.length() < 1e-3, "it came to rest: {v:?}");
    w.body_pose(c).map(|p| p.position.x).unwrap_or(f32::NAN) - start
}

#[test]
fn a_crate_slides_farther_on_ice_than_on_stone_by_the_probed_grip() {
    let p = PhysicsParams::default();
    // Spec 000:1044: the probe re-tunes the crate's friction to world.prop.friction (1) ×
    // the grip under it, and the solver averages it with the floor's own: on ice
    // μ = (0.12 + 0.12) / 2 = 0.12, on stone 0.9 (the crate's own wood, 0.75, no longer
    // counts; without the probe ice would give (0.75 + 0.12) / 2 = 0.435 and 0.47 m).
    // Sliding from v0 = 2 m/s decelerates at μ·g: d = v0² / (2 μ g).
    let ice = slide(p, ICE);
    let stone = slide(p, STONE);
    let d_ice = 4.0 / (2.0 * ICE * G); // 1.699 m
    let d_stone = 4.0 / (2.0 * STONE * G); // 0.227 m
    near(ice, d_ice, 0.03 * d_ice, "slide on ice");
    near(stone, d_stone, 0.03 * d_stone, "slide on stone");
    assert!(ice > 5.0 * stone, "ice {ice} vs stone {stone}");
}

#[test]
fn world_prop_friction_scales_the_probed_grip() {
    // world.prop.friction 2 on ice: the crate takes 2 × 0.12 = 0.24, averaged with the
    // floor's 0.12: μ = 0.18, so d = 4 / (2 × 0.18 × 9.81) = 1.133 m.
    let p = PhysicsParams {
        prop_friction: 2.0,
        ..PhysicsParams::default()
    };
    let d = slide(p, ICE);
    let want = 4.0 / (2.0 * 0.18 * G);
    near(
        d,
        want,
        0.03 * want,
        "slide on ice at world.prop.friction 2",
    );
}

#[test]
fn the_probe_reads_the_surface_under_the_prop_and_over_nothing_keeps_its_own() {
    let (mut w, c) = floor_and_crate(PhysicsParams::default(), ICE);
    w.step();
    assert_eq!(w.body_friction(c), Ok(ICE), "1 × the ice under it");
    // Dropped from 3 m: nothing within the probe (0.1 m past its bottom) under it.
    let high = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(5.0, 3.0, 0.0)),
            Vec3::splat(0.25),
            30.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    w.step();
    assert_eq!(w.body_friction(high), Ok(WOOD), "its own grip in the air");
    // A crate stacked on the first reads the first's own grip (wood), not what the probe
    // made of it.
    let top = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(0.0, 0.76, 0.0)),
            Vec3::splat(0.25),
            30.0,
            STONE,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    w.step();
    assert_eq!(w.body_friction(top), Ok(WOOD));
    let floor_only = w.add_static_box(Pose::IDENTITY, Vec3::splat(1.0), 0.5);
    let floor_only = floor_only.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        w.body_friction(floor_only),
        Err(PhysicsError::NotDynamic(floor_only))
    );
}

/// A pool: water (`medium`) in a box 8 m across from y = -2 up to its surface at y = 0, on
/// a stone floor whose top is at y = -2.
fn pool(medium: WaterMedium) -> PhysicsWorld {
    let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"));
    w.add_static_box(
        Pose::from_position(Vec3::new(0.0, -2.5, 0.0)),
        Vec3::new(6.0, 0.5, 6.0),
        STONE,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    w.add_water_body(
        Pose::from_position(Vec3::new(0.0, -1.0, 0.0)),
        &[(
            Pose::IDENTITY,
            ColliderShape::Box {
                half_extents: Vec3::new(4.0, 1.0, 4.0),
            },
        )],
        medium,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    w
}

#[test]
fn a_water_box_answers_inside_with_its_top_and_is_dry_outside() {
    let mut w = pool(WaterMedium::default());
    let water = w.map_water_at(Vec3::new(1.0, -1.5, 2.0));
    assert_eq!(
        water,
        Some(WaterAt {
            surface: 0.0,
            medium: WaterMedium {
                density: 1000.0,
                viscosity: 1.0
            }
        })
    );
    assert_eq!(w.map_water_at(Vec3::new(1.0, 0.1, 2.0)), None, "over it");
    assert_eq!(w.map_water_at(Vec3::new(4.5, -1.0, 0.0)), None, "beside it");
    // Turned 90° about X, a 1 × 2 × 0.5 (half) box at y = 5 stands 2 m tall in Z and 1 m
    // tall in Y: its top is at 5.5 over every point inside.
    let turned = w
        .add_water_body(
            Pose::new(
                Vec3::new(20.0, 5.0, 0.0),
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            ),
            &[(
                Pose::IDENTITY,
                ColliderShape::Box {
                    half_extents: Vec3::new(1.0, 2.0, 0.5),
                },
            )],
            WaterMedium::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let s = w
        .map_water_at(Vec3::new(20.5, 4.8, 1.5))
        .map(|a| a.surface)
        .unwrap_or(f32::NAN);
    near(s, 5.5, 1e-4, "turned box's top");
    w.remove_water_body(turned)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(w.map_water_at(Vec3::new(20.5, 4.8, 1.5)), None);
    assert_eq!(
        w.remove_water_body(turned),
        Err(PhysicsError::UnknownWater(turned))
    );
    // A mesh with no triangles, or an index past its vertices, is refused; a medium must
    // be above zero.
    for mesh in [
        ColliderShape::Mesh {
            vertices: vec![Vec3::ZERO, Vec3::X, Vec3::Z],
            indices: vec![],
        },
        ColliderShape::Mesh {
            vertices: vec![Vec3::ZERO, Vec3::X, Vec3::Z],
            indices: vec![[0, 1, 3]],
        },
    ] {
        assert!(w
            .add_water_body(
                Pose::IDENTITY,
                &[(Pose::IDENTITY, mesh)],
                WaterMedium::default()
            )
            .is_err());
    }
    let bad = WaterMedium {
        density: 0.0,
        viscosity: 1.0,
    };
    let unit = ColliderShape::Box {
        half_extents: Vec3::ONE,
    };
    assert!(w
        .add_water_body(Pose::IDENTITY, &[(Pose::IDENTITY, unit)], bad)
        .is_err());
}

#[test]
fn a_raft_lighter_than_water_floats_at_the_level_its_density_gives() {
    let mut w = pool(WaterMedium::default());
    // A 1 m × 0.2 m × 1 m raft of 50 kg: 0.2 m³, so 250 kg/m³. Spec 000:1050: it settles
    // where the displaced weight matches its own, 1000 × 0.2 × s × g = 50 × g, so
    // s = 0.25 of its height is under: its bottom 0.05 m under the surface (y = 0), its
    // center 0.05 m over it. One dropped level from 0.5 m over the surface, one tilted
    // 10° about Z from 0.3 m, which the ring's points right.
    let level = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(-2.0, 0.5, 0.0)),
            Vec3::new(0.5, 0.1, 0.5),
            50.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let tilted = w
        .add_dynamic_box(
            Pose::new(
                Vec3::new(2.0, 0.3, 0.0),
                Quat::from_rotation_z(10f32.to_radians()),
            ),
            Vec3::new(0.5, 0.1, 0.5),
            50.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 16);
    assert_eq!(w.body_wet(level), Ok(false), "still falling");
    run(&mut w, 1024);
    let before = [level, tilted].map(|b| w.body_pose(b).map(|p| p.position.y));
    run(&mut w, 64);
    for (i, raft) in [level, tilted].into_iter().enumerate() {
        let pose = w.body_pose(raft).unwrap_or_else(|e| panic!("{e}"));
        near(pose.position.y, 0.05, 0.01, "the raft's center");
        let up = pose.rotation * Vec3::Y;
        assert!(up.y > 0.9999, "raft {i} floats level: up {up:?}");
        assert_eq!(w.body_wet(raft), Ok(true));
        let was = before[i].clone().unwrap_or(f32::NAN);
        assert!((pose.position.y - was).abs() < 1e-3, "raft {i} at rest");
    }
}

#[test]
fn a_crate_denser_than_water_sinks_to_the_floor() {
    let mut w = pool(WaterMedium::default());
    // A 0.5 m stone crate: 2500 kg/m³ × 0.125 m³ = 312.5 kg, denser than the water, so it
    // sinks (spec 000:1050) and rests on the pool's floor: its center at -2 + 0.25.
    let c = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
            Vec3::splat(0.25),
            312.5,
            STONE,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 16);
    assert_eq!(w.body_wet(c), Ok(true));
    // Sinking, the water holds it back: after 16 ticks it has fallen less than a free
    // body's g (dt/4)² × 64 × 65 / 2 = 0.311 m (rapier's 4 substeps, as in the free fall
    // below).
    let y = w.body_pose(c).map(|p| p.position.y).unwrap_or(f32::NAN);
    assert!(
        y < -0.5 && y > -0.5 - 0.311,
        "sinking slower than free fall: {y}"
    );
    run(&mut w, 640);
    let y = w.body_pose(c).map(|p| p.position.y).unwrap_or(f32::NAN);
    near(y, -1.75, 0.02, "the crate on the pool's floor");
}

#[test]
fn a_pawn_in_a_water_box_swims_and_floats_at_the_float_depth() {
    let mut w = pool(WaterMedium::default());
    // Feet just over the pool's floor: its middle (0.9 m up) is 1.0 m under the surface.
    let id = w
        .spawn_pawn(Vec3::new(0.0, -1.9, 0.0), 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 40);
    assert_eq!(w.pawn_swimming(id), Ok(true));
    // As in voxel water (sims' voxel tests): rising at the drift (1 m/s, viscosity 1)
    // from rest, closing at the drag (4 a second): vy = 1 - e^(-4 × 40 / 64) while deeper
    // than twice the float depth. The map's water is read before the pawns move, so it
    // swam all 40 ticks.
    let vy = w.pawn_state(id).map(|s| s.velocity.y).unwrap_or(f32::NAN);
    let want = 1.0 - (-4.0f32 * 40.0 / 64.0).exp();
    near(vy, want, 2e-3, "rising at the drift");
    run(&mut w, 600);
    // At rest with its middle the float depth (0.3 m) under the surface: feet at
    // 0 - 0.3 - 0.9.
    let feet = w.pawn_state(id).map(|s| s.feet.y).unwrap_or(f32::NAN);
    near(feet, -1.2, 0.01, "floating pawn's feet");
    assert_eq!(w.pawn_swimming(id), Ok(true));
    // Beside the pool, on dry ground: walking.
    let dry = w
        .spawn_pawn(Vec3::new(5.0, -2.0, 0.0), 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 8);
    assert_eq!(w.pawn_swimming(dry), Ok(false));
}

/// Water the host knows and the world does not (voxel water): a sea whose surface is at
/// y = 0 everywhere below it.
struct Sea;

impl WaterQuery for Sea {
    fn water_at(&self, point: Vec3) -> Option<WaterAt> {
        (point.y < 0.0).then_some(WaterAt {
            surface: 0.0,
            medium: WaterMedium::default(),
        })
    }
}

#[test]
fn props_float_in_the_hosts_water_as_in_the_maps() {
    // The same raft as in the pool, in water only the host's query knows: the same level.
    let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"));
    let raft = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(0.0, 0.5, 0.0)),
            Vec3::new(0.5, 0.1, 0.5),
            50.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..1040 {
        w.step_with_water(&dh_sims::Serial, &Sea);
    }
    let y = w.body_pose(raft).map(|p| p.position.y).unwrap_or(f32::NAN);
    near(y, 0.05, 0.01, "the raft's center");
    // Without the host's water it falls as an untouched body does: free fall from rest.
    // rapier steps in 4 substeps (its default num_solver_iterations), each a symplectic
    // Euler step, so after n ticks of dt it has fallen g (dt/4)² × 4n(4n + 1)/2.
    let mut dry = PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"));
    let b = dry
        .add_dynamic_box(
            Pose::from_position(Vec3::new(0.0, 10.0, 0.0)),
            Vec3::new(0.5, 0.1, 0.5),
            50.0,
            WOOD,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..32 {
        dry.step_with_water(&dh_sims::Serial, &NoWater);
    }
    let h = 1.0 / 256.0;
    let fallen = G * h * h * (128.0 * 129.0) / 2.0;
    let y = dry.body_pose(b).map(|p| p.position.y).unwrap_or(f32::NAN);
    near(y, 10.0 - fallen, 1e-3, "free fall");
}

#[test]
fn water_shapes_are_a_trigger_or_box_whose_material_is_water() {
    // Spec 000:209 and 000:539: a trigger collider is what a water body reads; 000:464: a
    // box "is water where its material is"; an "off" collider takes the collision, and
    // here the water, away.
    let sim = common::install_text(
        r#"{
  "materials": { "water": "/materials/water.dh-mat", "stone": "/materials/stone.dh-mat" },
  "objects": [
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a1", "name": "pool",
      "components": [ { "$type": "dh.box", "size": [4, 2, 4], "material": "water" },
                      { "$type": "dh.collider", "state": "trigger" } ] },
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a2", "name": "bare",
      "components": [ { "$type": "dh.box", "size": [2, 2, 2], "material": "water" } ] },
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a3", "name": "dry",
      "components": [ { "$type": "dh.box", "size": [2, 2, 2], "material": "stone" },
                      { "$type": "dh.collider", "state": "trigger" } ] },
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a4", "name": "off",
      "components": [ { "$type": "dh.box", "size": [2, 2, 2], "material": "water" },
                      { "$type": "dh.collider", "state": "off" } ] },
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a5", "name": "ball",
      "components": [ { "$type": "dh.collider", "state": "trigger", "shapes": [
        { "type": "sphere", "radius": 1.5, "material": "water" },
        { "type": "box", "halfExtents": [1, 1, 1], "material": "stone" } ] } ] },
    { "$type": "object", "id": "00000000-0000-4000-8000-0000000000a6", "name": "gone",
      "enabled": false,
      "components": [ { "$type": "dh.box", "size": [2, 2, 2], "material": "water" },
                      { "$type": "dh.collider", "state": "trigger" } ] }
  ]
}"#,
    );
    let water = sim.materials().slot("water");
    let is_water = |slot: dh_sims::MaterialSlot| (Some(slot) == water).then_some("water");
    let shapes = |name: &str| {
        let e = sim
            .entity_named(name)
            .unwrap_or_else(|| panic!("no record {name}"));
        sim.water_shapes(e, is_water)
    };
    let pool = shapes("pool");
    assert_eq!(pool.len(), 1);
    assert!(
        matches!(pool[0].0, dh_sims::ColliderShape::Box { half_extents, .. }
            if half_extents == Vec3::new(2.0, 1.0, 2.0)),
        "{pool:?}"
    );
    assert_eq!(shapes("bare").len(), 1, "a box with no collider is its box");
    assert!(shapes("dry").is_empty(), "stone is not water");
    assert!(shapes("off").is_empty(), "an off collider is nothing");
    let ball = shapes("ball");
    assert_eq!(
        ball.len(),
        1,
        "only the sphere's material is water: {ball:?}"
    );
    assert!(matches!(ball[0].0, dh_sims::ColliderShape::Sphere { radius, .. } if radius == 1.5));
    assert!(shapes("gone").is_empty(), "not in the world");
}

#[test]
fn a_props_mass_reads_before_the_first_step() {
    // The mass is the prop's own from the moment it is minted (its center of mass
    // dropped does not change it): 30 kg.
    let (w, c) = floor_and_crate(PhysicsParams::default(), STONE);
    let mass = w.body_mass(c).unwrap_or_else(|e| panic!("{e}"));
    near(mass, 30.0, 1e-4, "mass before a step");
}

/// An L-shaped basin of water as one closed mesh wound outward (a trigger part's own
/// triangles, spec 000:209: "a water node marked "trigger" becomes a water body the mover
/// swims in"): the L's footprint is x, z in [-2, 2] less the notch x, z in [0, 2], from the
/// pool's floor (y = -2) to its surface at y = 0. Each triangle is turned to face the way
/// its face looks out (the caps up and down, the sides out of the L), so the winding is
/// right by construction.
fn l_basin() -> ColliderShape {
    // The outline (x, z), around the L.
    let outline = [
        (-2.0, -2.0),
        (2.0, -2.0),
        (2.0, 0.0),
        (0.0, 0.0),
        (0.0, 2.0),
        (-2.0, 2.0),
    ];
    let (bottom, top) = (-2.0, 0.0);
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let mut tri = |a: Vec3, b: Vec3, c: Vec3, out: Vec3| {
        let n = (b - a).cross(c - a);
        let k = vertices.len() as u32;
        vertices.extend([a, b, c]);
        indices.push(if n.dot(out) > 0.0 {
            [k, k + 1, k + 2]
        } else {
            [k, k + 2, k + 1]
        });
    };
    let at = |(x, z): (f32, f32), y: f32| Vec3::new(x, y, z);
    // The caps: a fan from the outer corner, which sees the whole L.
    for i in 1..outline.len() - 1 {
        let (p, q, r) = (outline[0], outline[i], outline[i + 1]);
        tri(at(p, top), at(q, top), at(r, top), Vec3::Y);
        tri(at(p, bottom), at(q, bottom), at(r, bottom), -Vec3::Y);
    }
    // The sides: out of the L is away from a point just inside it beside the edge's middle.
    for i in 0..outline.len() {
        let (p, q) = (outline[i], outline[(i + 1) % outline.len()]);
        let edge = Vec3::new(q.0 - p.0, 0.0, q.1 - p.1);
        let mut out = edge.cross(Vec3::Y).normalize();
        let mid = Vec3::new((p.0 + q.0) * 0.5, -1.0, (p.1 + q.1) * 0.5);
        let probe = mid - out * 0.1;
        let in_l = probe.x.abs() < 2.0 && probe.z.abs() < 2.0 && !(probe.x > 0.0 && probe.z > 0.0);
        if !in_l {
            out = -out;
        }
        tri(at(p, bottom), at(q, bottom), at(q, top), out);
        tri(at(p, bottom), at(q, top), at(p, top), out);
    }
    ColliderShape::Mesh { vertices, indices }
}

#[test]
fn a_pawn_in_a_mesh_water_body_swims_and_not_in_its_notch() {
    let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"));
    w.add_static_box(
        Pose::from_position(Vec3::new(0.0, -2.5, 0.0)),
        Vec3::new(6.0, 0.5, 6.0),
        STONE,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let medium = WaterMedium {
        density: 1000.0,
        viscosity: 2.0,
    };
    w.add_water_body(Pose::IDENTITY, &[(Pose::IDENTITY, l_basin())], medium)
        .unwrap_or_else(|e| panic!("{e}"));
    // In both arms of the L: water, its surface the L's top.
    for p in [
        Vec3::new(-1.0, -1.0, 1.0),
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(-1.5, -0.1, -1.5),
    ] {
        assert_eq!(
            w.map_water_at(p),
            Some(WaterAt {
                surface: 0.0,
                medium
            }),
            "{p} is in the L"
        );
    }
    // The notch is inside the mesh's bounds and dry; so is over the surface and beside it.
    for p in [
        Vec3::new(1.0, -1.0, 1.0),
        Vec3::new(-1.0, 0.1, 1.0),
        Vec3::new(2.5, -1.0, -1.0),
    ] {
        assert_eq!(w.map_water_at(p), None, "{p} is out of the L");
    }
    // A pawn in an arm, its middle (0.9 m over its feet) 1 m under the surface, swims; one
    // standing in the notch walks.
    let wet = w
        .spawn_pawn(Vec3::new(-1.0, -1.9, 1.0), 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    let dry = w
        .spawn_pawn(Vec3::new(1.0, -2.0, 1.0), 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    run(&mut w, 40);
    assert_eq!(w.pawn_swimming(wet), Ok(true));
    assert_eq!(w.pawn_swimming(dry), Ok(false));
    assert_eq!(
        w.pawn_map_water(wet).map(|a| a.medium),
        Some(medium),
        "the L's medium"
    );
    assert_eq!(w.pawn_map_water(dry), None);
}
