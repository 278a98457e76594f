//! Physics: pawns against static and kinematic bodies, plates' overlap, the Use ray, props,
//! spawn selection and determinism. Expected values are worked out by hand from the geometry
//! (default parameters: capsule radius 0.3 m, height 1.8 m, eye 1.6 m, skin 0.01 m, walk
//! 4 m/s, world.stepHeight 0.5 m, world.tickRate 64).

use dh_sims::physics::{
    select_spawn, BodyHandle, PawnId, PawnInput, PhysicsError, PhysicsParams, PhysicsWorld, Pose,
    SpawnPose, SpawnRng, TeleportVelocity,
};

use glam::{Quat, Vec2, Vec3};

const TICK: f32 = 1.0 / 64.0;

/// A world whose floor's top is at y = 0, 40 m across.
fn world_with_floor() -> (PhysicsWorld, BodyHandle) {
    let mut w = PhysicsWorld::new(PhysicsParams::default()).expect("default params are valid");
    let floor = w
        .add_static_box(
            Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
            Vec3::new(20.0, 0.5, 20.0),
            0.8,
        )
        .expect("floor");
    (w, floor)
}

fn run(w: &mut PhysicsWorld, ticks: u32) {
    for _ in 0..ticks {
        w.step();
    }
}

fn feet(w: &PhysicsWorld, id: PawnId) -> Vec3 {
    w.pawn_state(id).expect("pawn").feet
}

fn walk(w: &mut PhysicsWorld, id: PawnId, yaw: f32, forward: f32) {
    w.set_pawn_input(
        id,
        PawnInput {
            move_local: Vec2::new(0.0, forward),
            yaw,
            pitch: 0.0,
            jump: false,
        },
    )
    .expect("input");
}

fn near(actual: f32, expected: f32, tolerance: f32, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: expected {expected} ± {tolerance}, got {actual}"
    );
}

fn yaw_quat(degrees: f32) -> Quat {
    let half = degrees.to_radians() * 0.5;
    Quat::from_xyzw(0.0, half.sin(), 0.0, half.cos())
}

#[test]
fn a_pawn_falls_and_lands_on_the_floor() {
    let (mut w, floor) = world_with_floor();
    let p = w.spawn_pawn(Vec3::new(0.0, 2.0, 0.0), 0.0).unwrap();
    // Ten ticks of free fall from rest: v_n = -g·n·dt, so the drop is g·dt²·(1+…+10)
    // = 9.81 / 4096 × 55 = 0.1317 m.
    run(&mut w, 10);
    let s = w.pawn_state(p).unwrap();
    near(s.feet[1], 2.0 - 0.1317, 0.002, "feet after 10 ticks");
    near(
        s.velocity[1],
        -9.81 * 10.0 * TICK,
        1.0e-4,
        "fall speed after 10 ticks",
    );
    assert!(!s.grounded);
    // 2 m takes about 0.64 s (41 ticks); two seconds is plenty.
    run(&mut w, 118);
    let s = w.pawn_state(p).unwrap();
    assert!(s.grounded, "landed");
    near(s.feet[1], 0.0, 0.05, "feet on the floor's top");
    near(s.feet[0], 0.0, 1.0e-4, "no drift in x");
    near(s.feet[2], 0.0, 1.0e-4, "no drift in z");
    assert_eq!(s.velocity[1], 0.0, "a standing pawn does not keep falling");
    assert_eq!(s.ground, Some(floor));
}

#[test]
fn a_pawn_walks_into_a_wall_and_stops() {
    let (mut w, _) = world_with_floor();
    // A wall whose face is at x = 2.
    w.add_static_box(
        Pose::from_position(Vec3::new(2.5, 1.5, 0.0)),
        Vec3::new(0.5, 1.5, 5.0),
        0.8,
    )
    .unwrap();
    // Yaw -90 faces +X.
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
    walk(&mut w, p, -90.0, 1.0);
    run(&mut w, 16);
    // Spawned standing, it walks at 4 m/s from its first tick: 16 ticks × 4/64 = 1 m.
    near(feet(&w, p)[0], 1.0, 0.01, "walking at 4 m/s");
    run(&mut w, 112);
    let s = w.pawn_state(p).unwrap();
    // The capsule (radius 0.3) stops the controller's gap (half the 0.01 skin) short of the
    // face: 2 - 0.305 = 1.695.
    near(s.feet[0], 1.695, 0.005, "stopped at the wall");
    near(s.feet[2], 0.0, 0.01, "no sideways slide on a square hit");
    near(s.feet[1], 0.0, 0.05, "still on the floor");
    assert!(s.grounded);
}

#[test]
fn a_pawn_climbs_a_04_m_step_but_not_a_06_m_one() {
    for (height, climbs) in [(0.4f32, true), (0.6f32, false)] {
        let (mut w, _) = world_with_floor();
        // The step's near face is at x = 1.5, its top at `height`.
        let step = w
            .add_static_box(
                Pose::from_position(Vec3::new(3.0, height / 2.0, 0.0)),
                Vec3::new(1.5, height / 2.0, 5.0),
                0.8,
            )
            .unwrap();
        let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
        walk(&mut w, p, -90.0, 1.0);
        // 48 ticks at 4 m/s is 3 m of walking: past the face if it climbs.
        run(&mut w, 48);
        let s = w.pawn_state(p).unwrap();
        if climbs {
            near(s.feet[1], height, 0.05, "standing on the 0.4 m step");
            assert!(s.feet[0] > 2.0, "walked onto the step, x = {}", s.feet[0]);
            assert_eq!(s.ground, Some(step));
        } else {
            near(
                s.feet[1],
                0.0,
                0.05,
                "still on the floor below the 0.6 m step",
            );
            near(
                s.feet[0],
                1.5 - 0.305,
                0.005,
                "stopped at the 0.6 m step's face",
            );
        }
        assert!(s.grounded);
    }
}

#[test]
fn a_pawn_walks_down_a_04_m_ledge_without_leaving_the_ground() {
    let (mut w, _) = world_with_floor();
    // A 0.4 m high platform ending at x = 1.5.
    w.add_static_box(
        Pose::from_position(Vec3::new(-3.0, 0.2, 0.0)),
        Vec3::new(4.5, 0.2, 5.0),
        0.8,
    )
    .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.4, 0.0), -90.0).unwrap();
    run(&mut w, 2);
    walk(&mut w, p, -90.0, 1.0);
    let mut airborne = 0;
    for _ in 0..48 {
        w.step();
        if !w.pawn_state(p).unwrap().grounded {
            airborne += 1;
        }
    }
    let s = w.pawn_state(p).unwrap();
    near(s.feet[1], 0.0, 0.05, "down on the floor");
    assert!(
        s.feet[0] > 2.5,
        "walked on past the ledge, x = {}",
        s.feet[0]
    );
    assert_eq!(airborne, 0, "world.stepHeight snaps it down a 0.4 m ledge");
}

#[test]
fn a_pawn_jumps_about_a_meter_and_lands() {
    let (mut w, _) = world_with_floor();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0).unwrap();
    run(&mut w, 1);
    w.set_pawn_input(
        p,
        PawnInput {
            jump: true,
            ..PawnInput::default()
        },
    )
    .unwrap();
    // Each tick takes g·dt = 9.81/64 = 0.15328 m/s off the 4.5 m/s start before moving, so it
    // rises for 29 ticks: (29 × 4.5 - 0.15328 × (1 + … + 29)) / 64 = (130.5 - 66.68) / 64
    // = 0.9972 m.
    let mut apex = 0.0f32;
    for _ in 0..40 {
        w.step();
        apex = apex.max(feet(&w, p)[1]);
    }
    near(apex, 0.9972, 0.002, "jump apex");
    // The press was taken once: it comes down and stays down.
    run(&mut w, 60);
    let s = w.pawn_state(p).unwrap();
    assert!(s.grounded);
    near(s.feet[1], 0.0, 0.001, "landed");
}

#[test]
fn walking_on_the_specs_500_m_ground_box_stays_level() {
    // The spec's ground collider: a box 1000 m across whose top is y = 0.
    let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap();
    w.add_static_box(
        Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
        Vec3::new(500.0, 0.5, 500.0),
        0.8,
    )
    .unwrap();
    let p = w.spawn_pawn(Vec3::new(3.3, 0.0, -7.1), 0.0).unwrap();
    w.set_pawn_input(
        p,
        PawnInput {
            move_local: Vec2::new(0.6, 0.8),
            yaw: 33.0,
            pitch: 0.0,
            jump: false,
        },
    )
    .unwrap();
    for _ in 0..640 {
        w.step();
        let s = w.pawn_state(p).unwrap();
        assert!(s.grounded, "never leaves the ground");
        near(s.feet[1], 0.0, 0.001, "level");
    }
    // Spawned standing, it walks from its first tick: 640 ticks × 4/64 m = 40 m.
    let f = feet(&w, p);
    let d = ((f[0] - 3.3).powi(2) + (f[2] + 7.1).powi(2)).sqrt();
    near(d, 40.0, 0.01, "distance walked");
}

#[test]
fn a_pawn_walks_up_and_down_a_stair_without_leaving_it() {
    let (mut w, _) = world_with_floor();
    // Ten 0.25 m risers on 0.3 m treads from x = 1, the top at 2.5 m.
    for k in 0..10 {
        let h = 0.25 * (k + 1) as f32;
        let front = 1.0 + 0.3 * k as f32;
        w.add_static_box(
            Pose::from_position(Vec3::new(front + 5.0, h / 2.0, 0.0)),
            Vec3::new(5.0, h / 2.0, 2.0),
            0.8,
        )
        .unwrap();
    }
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
    walk(&mut w, p, -90.0, 1.0);
    for _ in 0..128 {
        w.step();
        assert!(w.pawn_state(p).unwrap().grounded, "airborne on the way up");
    }
    let top = feet(&w, p);
    near(top[1], 2.5, 0.01, "at the top");
    // 128 ticks of walking is 8 m: the stair does not slow it.
    near(top[0], 8.0, 0.01, "full speed up");
    walk(&mut w, p, 90.0, 1.0);
    for _ in 0..128 {
        w.step();
        assert!(
            w.pawn_state(p).unwrap().grounded,
            "airborne on the way down"
        );
    }
    near(feet(&w, p)[1], 0.0, 0.01, "back down");
}

#[test]
fn a_pawn_rides_a_kinematic_platform_up_and_down() {
    let (mut w, _) = world_with_floor();
    // The lift: 3 × 0.2 × 3 at y 0.1 (top 0.2), rising 2 m at 1/64 m a tick.
    let lift = w
        .add_kinematic_box(
            Pose::from_position(Vec3::new(0.0, 0.1, 0.0)),
            Vec3::new(1.5, 0.1, 1.5),
            0.8,
        )
        .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.2, 0.0), 0.0).unwrap();
    run(&mut w, 8);
    let s = w.pawn_state(p).unwrap();
    near(s.feet[1], 0.2, 0.02, "standing on the lift");
    assert_eq!(s.ground, Some(lift));
    for i in 1..=128 {
        let center = 0.1 + i as f32 / 64.0;
        w.set_kinematic_target(lift, Pose::from_position(Vec3::new(0.0, center, 0.0)))
            .unwrap();
        w.step();
        let s = w.pawn_state(p).unwrap();
        near(
            s.feet[1],
            center + 0.1,
            0.05,
            "riding up with the lift's top",
        );
        assert!(s.grounded, "grounded on the way up, tick {i}");
    }
    near(
        w.body_pose(lift).unwrap().position[1],
        2.1,
        1.0e-4,
        "lift at the top",
    );
    run(&mut w, 8);
    let s = w.pawn_state(p).unwrap();
    near(s.feet[1], 2.2, 0.05, "feet on the lift's top at 2.2");
    near(s.feet[0], 0.0, 0.01, "no drift riding up");
    assert_eq!(
        s.velocity,
        Vec3::new(0.0, 0.0, 0.0),
        "the lift's speed is not the pawn's"
    );
    for i in (0..128).rev() {
        let center = 0.1 + i as f32 / 64.0;
        w.set_kinematic_target(lift, Pose::from_position(Vec3::new(0.0, center, 0.0)))
            .unwrap();
        w.step();
        let s = w.pawn_state(p).unwrap();
        near(
            s.feet[1],
            center + 0.1,
            0.05,
            "riding down with the lift's top",
        );
    }
    near(feet(&w, p)[1], 0.2, 0.05, "home again");
}

#[test]
fn a_pawn_rides_a_sliding_platform_and_turns_with_a_spinning_one() {
    // Sliding 2 m along +X over 128 ticks.
    let (mut w, _) = world_with_floor();
    let slider = w
        .add_kinematic_box(
            Pose::from_position(Vec3::new(0.0, 0.1, 0.0)),
            Vec3::new(1.5, 0.1, 1.5),
            0.8,
        )
        .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.2, 0.0), 0.0).unwrap();
    run(&mut w, 8);
    for i in 1..=128 {
        let x = 2.0 * i as f32 / 128.0;
        w.set_kinematic_target(slider, Pose::from_position(Vec3::new(x, 0.1, 0.0)))
            .unwrap();
        w.step();
    }
    run(&mut w, 4);
    let s = w.pawn_state(p).unwrap();
    near(s.feet[0], 2.0, 0.05, "carried 2 m along +X");
    near(s.feet[2], 0.0, 0.02, "not carried along z");
    near(s.feet[1], 0.2, 0.05, "still on top");

    // Turning 90° about +Y over 64 ticks carries a rider at (1, 0.2, 0) to (0, 0.2, -1)
    // (R_y(90°) takes +X to -Z) and turns its yaw from 0 to 90.
    let (mut w, _) = world_with_floor();
    let turntable = w
        .add_kinematic_box(
            Pose::from_position(Vec3::new(0.0, 0.1, 0.0)),
            Vec3::new(2.0, 0.1, 2.0),
            0.8,
        )
        .unwrap();
    let p = w.spawn_pawn(Vec3::new(1.0, 0.2, 0.0), 0.0).unwrap();
    run(&mut w, 8);
    for i in 1..=64 {
        let pose = Pose::new(Vec3::new(0.0, 0.1, 0.0), yaw_quat(90.0 * i as f32 / 64.0));
        w.set_kinematic_target(turntable, pose).unwrap();
        w.step();
    }
    run(&mut w, 4);
    let s = w.pawn_state(p).unwrap();
    near(s.feet[0], 0.0, 0.05, "turned to x 0");
    near(s.feet[2], -1.0, 0.05, "turned to z -1");
    near(s.yaw, 90.0, 0.5, "the pawn turned with it");
}

#[test]
fn plates_find_the_pawns_standing_on_them_in_id_order() {
    let (mut w, _) = world_with_floor();
    let on = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0).unwrap();
    let beside = w.spawn_pawn(Vec3::new(3.0, 0.0, 0.0), 0.0).unwrap();
    let corner = w.spawn_pawn(Vec3::new(0.5, 0.0, 0.5), 0.0).unwrap();
    // The capsule plates measure is the pawn's grown by the 0.01 skin: radius 0.31, its
    // bottom sphere centered 0.31 above the feet. At the plate's top (0.1 above the feet) that
    // sphere is sqrt(0.31² - 0.21²) = 0.228 wide, so a pawn touches the 1.4 m plate while its
    // axis is within 0.7 + 0.228 = 0.928 of the center line.
    let edge_in = w.spawn_pawn(Vec3::new(-0.9, 0.0, 0.0), 0.0).unwrap();
    let edge_out = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.95), 0.0).unwrap();
    run(&mut w, 4);
    // A plate's volume: 1.4 × 0.1 × 1.4 on the floor (not a body: it blocks nothing).
    let plate = Pose::from_position(Vec3::new(0.0, 0.05, 0.0));
    let half = [0.7, 0.05, 0.7];
    assert_eq!(
        w.pawns_overlapping_box(plate, Vec3::from_array(half))
            .unwrap(),
        vec![on, corner, edge_in]
    );
    let moved = Pose::from_position(Vec3::new(3.0, 0.05, 0.0));
    assert_eq!(
        w.pawns_overlapping_box(moved, Vec3::from_array(half))
            .unwrap(),
        vec![beside]
    );
    // A volume high overhead touches no one.
    let high = Pose::from_position(Vec3::new(0.0, 3.0, 0.0));
    assert!(w
        .pawns_overlapping_box(high, Vec3::from_array(half))
        .unwrap()
        .is_empty());
    assert!(!w
        .pawns_overlapping_box(plate, Vec3::from_array(half))
        .unwrap()
        .contains(&edge_out));
}

#[test]
fn the_use_ray_hits_the_button_in_front() {
    let (mut w, _) = world_with_floor();
    // A button at eye height 1.5 m ahead (-Z): its front face is at z -1.35.
    let high = w
        .add_static_box(
            Pose::from_position(Vec3::new(0.0, 1.6, -1.5)),
            Vec3::new(0.25, 0.25, 0.15),
            0.8,
        )
        .unwrap();
    // A lower one, 1 m ahead at y 1 (0.75..1.25): its front face is at z -0.75.
    let low = w
        .add_static_box(
            Pose::from_position(Vec3::new(0.0, 1.0, -1.0)),
            Vec3::new(0.25, 0.25, 0.25),
            0.8,
        )
        .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0).unwrap();
    run(&mut w, 2);
    let ray = w.eye_ray(p).unwrap();
    near(ray.origin[1], 1.6, 0.02, "the eye is 1.6 m above the feet");
    near(ray.direction[2], -1.0, 1.0e-6, "yaw 0 looks along -Z");
    let hit = w.cast_eye_ray(p, 2.0).unwrap().expect("a hit");
    assert_eq!(hit.body, high);
    near(hit.distance, 1.35, 0.02, "distance to the front face");
    assert_eq!(w.use_target(p, 2.0).unwrap(), Some(high));
    assert_eq!(w.use_target(p, 1.0).unwrap(), None, "out of reach");
    // Looking down 31°: the ray reaches z -0.75 at y 1.6 - 0.75 × tan 31° = 1.15.
    w.set_pawn_input(
        p,
        PawnInput {
            move_local: Vec2::new(0.0, 0.0),
            yaw: 0.0,
            pitch: -31.0,
            jump: false,
        },
    )
    .unwrap();
    assert_eq!(w.use_target(p, 2.0).unwrap(), Some(low));
    // Turned around, nothing is there.
    w.set_pawn_input(
        p,
        PawnInput {
            yaw: 180.0,
            ..PawnInput::default()
        },
    )
    .unwrap();
    assert_eq!(w.use_target(p, 2.0).unwrap(), None);
}

#[test]
fn props_fall_settle_and_are_shoved() {
    let (mut w, _) = world_with_floor();
    // A 0.5 m crate dropped tilted from 2 m lands on a face: center 0.25 above the floor.
    let dropped = w
        .add_dynamic_box(
            Pose::new(
                Vec3::new(0.0, 2.0, 4.0),
                Quat::from_xyzw(0.2, 0.3, 0.1, 0.927),
            ),
            Vec3::new(0.25, 0.25, 0.25),
            30.0,
            0.6,
        )
        .unwrap();
    // A crate resting 2 m ahead of a pawn facing +X.
    let crate_ = w
        .add_dynamic_box(
            Pose::from_position(Vec3::new(2.0, 0.25, 0.0)),
            Vec3::new(0.25, 0.25, 0.25),
            30.0,
            0.6,
        )
        .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
    run(&mut w, 256);
    near(
        w.body_pose(dropped).unwrap().position[1],
        0.25,
        0.02,
        "dropped crate at rest",
    );
    near(
        w.body_pose(crate_).unwrap().position[0],
        2.0,
        0.01,
        "untouched crate stays",
    );
    walk(&mut w, p, -90.0, 1.0);
    run(&mut w, 64);
    let pos = w.body_pose(crate_).unwrap().position;
    assert!(
        pos[0] > 2.5,
        "walked into, the crate moved along +X: {pos:?}"
    );
    near(pos[2], 0.0, 0.3, "shoved along the walk");
}

#[test]
fn spawn_selection_follows_the_spec() {
    // No spawn authored: the origin.
    let mut rng = SpawnRng::new(7);
    assert_eq!(
        select_spawn(&[], 0.7, |_| false, &mut rng),
        SpawnPose::ORIGIN
    );

    // SplitMix64's reference: seed 0 gives 0xE220A8397B1DCDAF first.
    assert_eq!(SpawnRng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);

    // A single spawn spreads players: the spawn itself, then 0.7 m to its right (+X at yaw 0),
    // then 60° on toward its back: (0.7 cos 60°, 0, 0.7 sin 60°) = (0.35, 0, 0.606).
    let (mut w, _) = world_with_floor();
    let only = [SpawnPose {
        feet: Vec3::new(0.0, 0.0, 0.0),
        yaw: 0.0,
    }];
    let expected = [[0.0, 0.0, 0.0], [0.7, 0.0, 0.0], [0.35, 0.0, 0.606]];
    let mut placed = Vec::new();
    for (i, e) in expected.iter().enumerate() {
        let s = w.select_spawn(&only, &mut rng);
        near(s.feet[0], e[0], 0.001, &format!("spread {i} x"));
        near(s.feet[2], e[2], 0.001, &format!("spread {i} z"));
        assert_eq!(s.yaw, 0.0);
        placed.push(w.spawn_pawn(s.feet, s.yaw).unwrap());
    }
    for _ in 0..12 {
        let s = w.select_spawn(&only, &mut rng);
        placed.push(w.spawn_pawn(s.feet, s.yaw).unwrap());
    }
    let feet: Vec<Vec3> = placed.iter().map(|&p| feet(&w, p)).collect();
    for (i, a) in feet.iter().enumerate() {
        for b in &feet[i + 1..] {
            let d = ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            assert!(d >= 0.6, "spread pawns overlap: {a:?} and {b:?}");
        }
    }

    // The spread turns with the spawn: at yaw 90 its right is -Z.
    let (mut w2, _) = world_with_floor();
    let turned = [SpawnPose {
        feet: Vec3::new(5.0, 0.0, 5.0),
        yaw: 90.0,
    }];
    let first = w2.select_spawn(&turned, &mut rng);
    w2.spawn_pawn(first.feet, first.yaw).unwrap();
    let second = w2.select_spawn(&turned, &mut rng);
    near(second.feet[0], 5.0, 0.001, "yaw 90 spread x");
    near(second.feet[2], 4.3, 0.001, "yaw 90 spread z");

    // A spread slot inside a wall is skipped: a post over slot 1 (x 0.7..1.1) sends the second
    // player to slot 2.
    let (mut w, _) = world_with_floor();
    w.add_static_box(
        Pose::from_position(Vec3::new(0.9, 1.0, 0.0)),
        Vec3::new(0.2, 1.0, 0.2),
        0.8,
    )
    .unwrap();
    let s0 = w.select_spawn(&only, &mut rng);
    w.spawn_pawn(s0.feet, s0.yaw).unwrap();
    let s1 = w.select_spawn(&only, &mut rng);
    near(s1.feet[0], 0.35, 0.001, "slot 2 x");
    near(s1.feet[2], 0.606, 0.001, "slot 2 z");

    // Several spawns: a random free one; one with a pawn on it is never picked.
    let a = SpawnPose {
        feet: Vec3::new(0.0, 0.0, 0.0),
        yaw: 0.0,
    };
    let b = SpawnPose {
        feet: Vec3::new(10.0, 0.0, 10.0),
        yaw: 45.0,
    };
    let (mut w, _) = world_with_floor();
    let mut seen = [false, false];
    for seed in 0..64 {
        let s = w.select_spawn(&[a, b], &mut SpawnRng::new(seed));
        let again = w.select_spawn(&[a, b], &mut SpawnRng::new(seed));
        assert_eq!(s, again, "one seed, one choice");
        seen[usize::from(s == b)] = true;
    }
    assert_eq!(seen, [true, true], "both free spawns get chosen");
    w.spawn_pawn(a.feet, a.yaw).unwrap();
    for seed in 0..64 {
        assert_eq!(w.select_spawn(&[a, b], &mut SpawnRng::new(seed)), b);
    }
    // Every spawn taken: stacking on one of them.
    w.spawn_pawn(b.feet, b.yaw).unwrap();
    for seed in 0..16 {
        let s = w.select_spawn(&[a, b], &mut SpawnRng::new(seed));
        assert!(s == a || s == b);
    }
}

#[test]
fn teleport_applies_the_velocity_rule_and_clears_the_ground() {
    for (rule, expected) in [
        (TeleportVelocity::Keep, [4.0, 0.0, 0.0]),
        (TeleportVelocity::Zero, [0.0, 0.0, 0.0]),
        // R_y(90°) takes +X to -Z.
        (TeleportVelocity::Turn(yaw_quat(90.0)), [0.0, 0.0, -4.0]),
    ] {
        let (mut w, _) = world_with_floor();
        let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
        walk(&mut w, p, -90.0, 1.0);
        run(&mut w, 4);
        near(w.pawn_state(p).unwrap().velocity[0], 4.0, 1.0e-4, "walking");
        w.teleport_pawn(p, Vec3::new(0.0, 5.0, 0.0), 30.0, 10.0, rule)
            .unwrap();
        let s = w.pawn_state(p).unwrap();
        for (axis, (&v, &e)) in s
            .velocity
            .to_array()
            .iter()
            .zip(expected.iter())
            .enumerate()
        {
            near(v, e, 1.0e-4, &format!("velocity {rule:?} axis {axis}"));
        }
        assert_eq!(s.feet, Vec3::new(0.0, 5.0, 0.0));
        assert_eq!((s.yaw, s.pitch), (30.0, 10.0));
        assert!(!s.grounded);
        assert_eq!(s.ground, None);
    }
}

#[test]
fn hulls_and_meshes_collide_and_bad_input_is_refused() {
    // A hull whose top face is at y 0 and a mesh floor at y 0: a pawn lands on each.
    let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap();
    let corners: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -3.0 } else { 3.0 },
                if i & 2 == 0 { -1.0 } else { 0.0 },
                if i & 4 == 0 { -3.0 } else { 3.0 },
            )
        })
        .collect();
    w.add_static_hull(Pose::IDENTITY, &corners, 0.8).unwrap();
    let verts = [
        Vec3::new(10.0, 0.0, -3.0),
        Vec3::new(16.0, 0.0, -3.0),
        Vec3::new(16.0, 0.0, 3.0),
        Vec3::new(10.0, 0.0, 3.0),
    ];
    w.add_static_mesh(Pose::IDENTITY, &verts, &[[0, 2, 1], [0, 3, 2]], 0.8)
        .unwrap();
    let on_hull = w.spawn_pawn(Vec3::new(0.0, 1.0, 0.0), 0.0).unwrap();
    let on_mesh = w.spawn_pawn(Vec3::new(13.0, 1.0, 0.0), 0.0).unwrap();
    run(&mut w, 64);
    near(feet(&w, on_hull)[1], 0.0, 0.05, "landed on the hull");
    near(feet(&w, on_mesh)[1], 0.0, 0.05, "landed on the mesh");

    assert!(matches!(
        w.add_static_box(Pose::IDENTITY, Vec3::new(1.0, 0.0, 1.0), 0.8),
        Err(PhysicsError::InvalidShape { shape: "box", .. })
    ));
    assert_eq!(
        w.add_static_hull(
            Pose::IDENTITY,
            &[
                Vec3::splat(0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0)
            ],
            0.8
        ),
        Err(PhysicsError::DegenerateHull { count: 3 })
    );
    assert!(matches!(
        w.add_static_mesh(Pose::IDENTITY, &verts, &[[0, 1, 9]], 0.8),
        Err(PhysicsError::InvalidMesh(_))
    ));
    assert!(matches!(
        w.add_static_capsule(Pose::IDENTITY, 0.5, 0.8, 0.8),
        Err(PhysicsError::InvalidShape {
            shape: "capsule",
            ..
        })
    ));
    assert_eq!(
        w.add_dynamic_box(Pose::IDENTITY, Vec3::splat(0.25), 0.0, 0.6),
        Err(PhysicsError::InvalidMass(0.0))
    );
    let wall = w.add_static_sphere(Pose::IDENTITY, 1.0, 0.8).unwrap();
    assert_eq!(
        w.set_kinematic_target(wall, Pose::IDENTITY),
        Err(PhysicsError::NotKinematic(wall))
    );
    assert!(matches!(
        w.add_static_box(
            Pose::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            Vec3::splat(1.0),
            0.8
        ),
        Err(PhysicsError::NonFinite { .. })
    ));
    w.remove_pawn(on_mesh).unwrap();
    assert_eq!(
        w.pawn_state(on_mesh),
        Err(PhysicsError::UnknownPawn(on_mesh))
    );
    w.remove_body(wall).unwrap();
    assert_eq!(w.remove_body(wall), Err(PhysicsError::UnknownBody(wall)));
    let bad = PhysicsParams {
        step_height: -1.0,
        ..PhysicsParams::default()
    };
    assert!(matches!(
        PhysicsWorld::new(bad),
        Err(PhysicsError::InvalidParam {
            name: "step height",
            ..
        })
    ));
}

/// One busy scene: steps, a bouncing platform, falling crates, three pawns walking, turning
/// and jumping. Returns every pawn's and prop's state each tick, as bits.
fn busy_run() -> Vec<u32> {
    let (mut w, _) = world_with_floor();
    w.add_static_box(
        Pose::from_position(Vec3::new(4.0, 0.2, 0.0)),
        Vec3::new(1.0, 0.2, 3.0),
        0.8,
    )
    .unwrap();
    let platform = w
        .add_kinematic_box(
            Pose::from_position(Vec3::new(-4.0, 0.1, 0.0)),
            Vec3::new(1.5, 0.1, 1.5),
            0.8,
        )
        .unwrap();
    let mut props = Vec::new();
    for i in 0..4 {
        let x = -1.0 + i as f32 * 0.6;
        props.push(
            w.add_dynamic_box(
                Pose::new(
                    Vec3::new(x, 1.0 + i as f32 * 0.7, 2.0),
                    Quat::from_xyzw(0.1, 0.2, 0.0, 0.975),
                ),
                Vec3::splat(0.25),
                30.0,
                0.6,
            )
            .unwrap(),
        );
    }
    let walker = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap();
    let rider = w.spawn_pawn(Vec3::new(-4.0, 0.2, 0.0), 0.0).unwrap();
    let jumper = w.spawn_pawn(Vec3::new(0.0, 0.0, 2.0), -90.0).unwrap();
    let mut out = Vec::new();
    for tick in 0u32..320 {
        let phase = (tick % 256) as f32;
        let y = 0.1 + if phase < 128.0 { phase } else { 256.0 - phase } / 64.0;
        w.set_kinematic_target(platform, Pose::from_position(Vec3::new(-4.0, y, 0.0)))
            .unwrap();
        w.set_pawn_input(
            walker,
            PawnInput {
                move_local: Vec2::new(0.3, 1.0),
                yaw: -90.0 + tick as f32 * 0.5,
                pitch: 0.0,
                jump: false,
            },
        )
        .unwrap();
        w.set_pawn_input(
            jumper,
            PawnInput {
                move_local: Vec2::new(0.0, 0.7),
                yaw: -90.0,
                pitch: 0.0,
                jump: tick % 40 == 0,
            },
        )
        .unwrap();
        w.step();
        for id in [walker, rider, jumper] {
            let s = w.pawn_state(id).unwrap();
            out.extend(
                s.feet
                    .to_array()
                    .iter()
                    .chain(s.velocity.to_array().iter())
                    .map(|v| v.to_bits()),
            );
            out.push(s.yaw.to_bits());
            out.push(u32::from(s.grounded));
        }
        for &b in &props {
            let pose = w.body_pose(b).unwrap();
            out.extend(
                pose.position
                    .to_array()
                    .iter()
                    .chain(pose.rotation.to_array().iter())
                    .map(|v| v.to_bits()),
            );
        }
    }
    out
}

#[test]
fn two_identical_runs_agree_bit_for_bit() {
    let first = busy_run();
    let second = busy_run();
    assert_eq!(first.len(), 320 * (3 * 8 + 4 * 7));
    assert!(first == second, "two runs of one script diverged");
}

#[test]
fn a_jump_on_the_very_first_tick_is_taken() {
    // A pawn spawned standing on the floor is grounded at once (its spawn finds the ground
    // under it), so a jump pressed before its first tick is taken by that tick: the same
    // 0.9972 m apex as a jump from a pawn that has stood a tick (see above).
    let (mut w, floor) = world_with_floor();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0).unwrap();
    let s = w.pawn_state(p).unwrap();
    assert!(s.grounded, "spawned standing");
    assert_eq!(s.ground, Some(floor));
    w.set_pawn_input(
        p,
        PawnInput {
            jump: true,
            ..PawnInput::default()
        },
    )
    .unwrap();
    w.step();
    // The first tick: 4.5 - 9.81/64 = 4.34672 m/s up, 0.067917 m risen.
    let s = w.pawn_state(p).unwrap();
    near(
        s.velocity[1],
        4.5 - 9.81 * TICK,
        1.0e-4,
        "rising after tick 1",
    );
    near(
        s.feet[1],
        (4.5 - 9.81 * TICK) * TICK,
        1.0e-4,
        "risen after tick 1",
    );
    let mut apex = s.feet[1];
    for _ in 0..39 {
        w.step();
        apex = apex.max(feet(&w, p)[1]);
    }
    near(apex, 0.9972, 0.002, "jump apex");
    // A walk on the first tick walks too: 4 m/s for one tick is 1/16 m.
    let q = w.spawn_pawn(Vec3::new(5.0, 0.0, 0.0), 0.0).unwrap();
    walk(&mut w, q, 0.0, 1.0);
    w.step();
    near(
        feet(&w, q)[2],
        -4.0 * TICK,
        1.0e-4,
        "walked on its first tick",
    );
    // Spawned in the air, it is not grounded and falls.
    let r = w.spawn_pawn(Vec3::new(-5.0, 1.0, 0.0), 0.0).unwrap();
    assert!(!w.pawn_state(r).unwrap().grounded);
}

#[test]
fn a_noclip_pawn_flies_through_walls_along_its_view() {
    let (mut w, _) = world_with_floor();
    // A wall 1 m in front (-Z), 0.2 m thick, 3 m tall.
    w.add_static_box(
        Pose::from_position(Vec3::new(0.0, 1.5, -1.5)),
        Vec3::new(5.0, 1.5, 0.1),
        0.8,
    )
    .unwrap();
    let p = w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0).unwrap();
    w.set_pawn_noclip(p, true).unwrap();
    assert!(w.pawn_state(p).unwrap().noclip);
    // Looking 30 degrees up, walking forward: 4 m/s along the view, so per tick
    // 4/64·cos 30 = 0.054127 m toward -Z and 4/64·sin 30 = 0.03125 m up; no gravity.
    w.set_pawn_input(
        p,
        PawnInput {
            move_local: Vec2::new(0.0, 1.0),
            yaw: 0.0,
            pitch: 30.0,
            jump: false,
        },
    )
    .unwrap();
    run(&mut w, 64);
    let s = w.pawn_state(p).unwrap();
    let step = 4.0 * TICK;
    near(
        s.feet[2],
        -64.0 * step * 0.866_025_4,
        1.0e-3,
        "through the wall",
    );
    near(s.feet[1], 64.0 * step * 0.5, 1.0e-3, "up along the view");
    near(s.feet[0], 0.0, 1.0e-5, "straight ahead");
    assert!(!s.grounded);
    // Looking 90 degrees down with noclip: it sinks through the floor.
    w.set_pawn_input(
        p,
        PawnInput {
            move_local: Vec2::new(0.0, 1.0),
            yaw: 0.0,
            pitch: -90.0,
            jump: false,
        },
    )
    .unwrap();
    run(&mut w, 64);
    near(feet(&w, p)[1], 2.0 - 4.0, 1.0e-3, "through the floor");
    // Standing still, it hovers: no gravity.
    walk(&mut w, p, 0.0, 0.0);
    run(&mut w, 10);
    near(feet(&w, p)[1], -2.0, 1.0e-5, "hovers");

    // Without noclip the same walk stops at the wall: its face is at z = -1.4, the capsule's
    // radius 0.3 keeps the feet at z -1.1 or short of it.
    let q = w.spawn_pawn(Vec3::new(3.0, 0.0, 0.0), 0.0).unwrap();
    walk(&mut w, q, 0.0, 1.0);
    run(&mut w, 64);
    assert!(feet(&w, q)[2] > -1.11, "{:?}", feet(&w, q));

    // Noclip off above the floor: it stops, at rest, and falls back down.
    w.teleport_pawn(
        p,
        Vec3::new(0.0, 1.0, 0.0),
        0.0,
        0.0,
        TeleportVelocity::Zero,
    )
    .unwrap();
    w.set_pawn_noclip(p, false).unwrap();
    walk(&mut w, p, 0.0, 0.0);
    run(&mut w, 64);
    let s = w.pawn_state(p).unwrap();
    assert!(s.grounded && !s.noclip);
    near(s.feet[1], 0.0, 0.001, "landed");
}

/// A world with no bodies: its pawns stand exactly where they were spawned until a step.
fn bare_world() -> PhysicsWorld {
    PhysicsWorld::new(PhysicsParams::default()).expect("default params are valid")
}

#[test]
fn binned_overlaps_give_the_hand_worked_answers() {
    let mut w = bare_world();
    // Feet on y = 0, so (as above) the measured capsule's bottom sphere, radius 0.31, is
    // centered 0.31 up and reaches 0.228 from the axis at the top of a 0.1 m volume.
    let spawn =
        |w: &mut PhysicsWorld, x: f32, z: f32| w.spawn_pawn(Vec3::new(x, 0.0, z), 0.0).unwrap();
    // On both sides of the grid's cell edges at x = -4 and 4 (cells are 4 m).
    let a = spawn(&mut w, -4.1, 0.0);
    let b = spawn(&mut w, -3.9, 0.0);
    let c = spawn(&mut w, 3.9, 0.0);
    let d = spawn(&mut w, 4.1, 0.0);
    // Along +X from the origin, and on the line x = -z.
    let e = spawn(&mut w, 0.3, 0.0);
    let f = spawn(&mut w, 0.5, 0.0);
    let g = spawn(&mut w, 1.2, 0.0);
    let h = spawn(&mut w, 1.0, -1.0);
    // Far off: in no box below but the largest.
    let far = spawn(&mut w, 1000.0, 1000.0);
    let bins = w.pawn_overlaps();
    assert_eq!(bins.len(), 9);
    for (pose, half, expected, what) in [
        // A strip 0.1 wide across each cell edge: the pawns 0.1 from its center line are
        // 0.05 from its sides, within 0.228.
        (
            Pose::from_position(Vec3::new(4.0, 0.05, 0.0)),
            [0.05, 0.05, 0.7],
            vec![c, d],
            "the strip at x 4",
        ),
        (
            Pose::from_position(Vec3::new(-4.0, 0.05, 0.0)),
            [0.05, 0.05, 0.7],
            vec![a, b],
            "the strip at x -4",
        ),
        // A bar 4 m long and 0.1 wide turned 45° about +Y, so it lies along x = -z. A pawn
        // at (x, 0) has its axis x / sqrt 2 from that line: 0.212 - 0.05 = 0.162 for e
        // (touches), 0.354 - 0.05 = 0.304 for f (does not), 0.849 - 0.05 = 0.799 for g
        // (does not, though its bounds and the bar's, 1.45 either side, overlap); h stands
        // on the line, 1.41 along the bar.
        (
            Pose::from_position_yaw(Vec3::new(0.0, 0.05, 0.0), 45.0),
            [2.0, 0.05, 0.05],
            vec![e, h],
            "the turned bar",
        ),
        // The same bar raised to the sphere's center (0.31): there it reaches 0.31 from the
        // axis, so f (0.304) touches too.
        (
            Pose::from_position_yaw(Vec3::new(0.0, 0.31, 0.0), 45.0),
            [2.0, 0.05, 0.05],
            vec![e, f, h],
            "the raised bar",
        ),
        // 3 m above the feet: the capsule's top is at 1.81.
        (
            Pose::from_position(Vec3::new(0.0, 3.0, 0.0)),
            [10.0, 0.5, 10.0],
            vec![],
            "high overhead",
        ),
        // A box over everything: every pawn, in id order.
        (
            Pose::from_position(Vec3::new(0.0, 0.5, 0.0)),
            [2000.0, 0.5, 2000.0],
            vec![a, b, c, d, e, f, g, h, far],
            "the whole world",
        ),
        // A point-sized box on a pawn's axis.
        (
            Pose::from_position(Vec3::new(1000.0, 1.0, 1000.0)),
            [0.0, 0.0, 0.0],
            vec![far],
            "a point",
        ),
    ] {
        assert_eq!(
            bins.pawns_overlapping_box(pose, Vec3::from_array(half))
                .unwrap(),
            expected,
            "binned: {what}"
        );
        assert_eq!(
            w.pawns_overlapping_box(pose, Vec3::from_array(half))
                .unwrap(),
            expected,
            "the world: {what}"
        );
    }
    // Refused alike.
    assert!(matches!(
        bins.pawns_overlapping_box(
            Pose::from_position(Vec3::splat(0.0)),
            Vec3::new(-1.0, 1.0, 1.0)
        ),
        Err(PhysicsError::InvalidShape { .. })
    ));
    assert!(matches!(
        bins.pawns_overlapping_box(
            Pose::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            Vec3::splat(1.0)
        ),
        Err(PhysicsError::NonFinite { .. })
    ));
    // A copy: a pawn that moves later is not seen, one that is spawned later neither.
    w.teleport_pawn(
        e,
        Vec3::new(50.0, 0.0, 50.0),
        0.0,
        0.0,
        TeleportVelocity::Zero,
    )
    .unwrap();
    let late = spawn(&mut w, 0.0, 0.0);
    let bar = Pose::from_position_yaw(Vec3::new(0.0, 0.05, 0.0), 45.0);
    assert_eq!(
        bins.pawns_overlapping_box(bar, Vec3::new(2.0, 0.05, 0.05))
            .unwrap(),
        vec![e, h]
    );
    assert_eq!(
        w.pawn_overlaps()
            .pawns_overlapping_box(bar, Vec3::new(2.0, 0.05, 0.05))
            .unwrap(),
        vec![h, late]
    );
}

/// The exact test alone, pawn by pawn: parry's capsule (the pawn's, grown by the 0.01 skin,
/// centered 0.91 above the feet) against the box, each number rounded as the physics world
/// rounds it (pairs that touch within a rounding go either way).
fn exact_overlaps(pawns: &[(PawnId, [f32; 3])], pose: Pose, half: [f32; 3]) -> Vec<PawnId> {
    use rapier3d::glamx::Quat;
    use rapier3d::math::{Pose as RPose, Vector};
    use rapier3d::parry::query::intersection_test;
    use rapier3d::parry::shape::{Capsule, Cuboid};
    let (radius, height, skin) = (0.3f32, 1.8f32, 0.01f32);
    let capsule = Capsule::new_y(height * 0.5 - radius, radius + skin);
    let q = pose.rotation;
    let raw = Quat::from_xyzw(q.x, q.y, q.z, q.w);
    let rotation = raw / raw.length();
    let p = pose.position;
    let box_pose = RPose::from_parts(Vector::new(p[0], p[1], p[2]), rotation);
    let cuboid = Cuboid::new(Vector::new(half[0], half[1], half[2]));
    pawns
        .iter()
        .filter(|(_, f)| {
            let feet = Vector::new(f[0], f[1], f[2]);
            let center = RPose::from_translation(feet + Vector::Y * (skin + height * 0.5));
            intersection_test(&center, &capsule, &box_pose, &cuboid).is_ok_and(|r| r.intersecting)
        })
        .map(|(id, _)| *id)
        .collect()
}

#[test]
fn binned_overlaps_agree_with_the_exact_test_everywhere() {
    // A small LCG (Knuth's MMIX constants): positions and boxes the same on every run.
    let mut state: u64 = 0x5eed;
    let mut next = move |lo: f32, hi: f32| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((state >> 40) as f32 / (1u64 << 24) as f32)
    };
    let mut w = bare_world();
    let mut pawns = Vec::new();
    for _ in 0..200 {
        let feet = [next(-30.0, 30.0), next(-2.0, 2.0), next(-30.0, 30.0)];
        pawns.push((w.spawn_pawn(Vec3::from_array(feet), 0.0).unwrap(), feet));
    }
    // Some on exact cell edges and corners.
    for feet in [[8.0, 0.0, -8.0], [-0.31, 0.0, 4.31], [0.0, 0.0, 0.0]] {
        pawns.push((w.spawn_pawn(Vec3::from_array(feet), 0.0).unwrap(), feet));
    }
    let bins = w.pawn_overlaps();
    let mut hits = 0;
    for i in 0..3000 {
        let position = [next(-32.0, 32.0), next(-2.5, 3.0), next(-32.0, 32.0)];
        let axis = [next(-1.0, 1.0), next(-1.0, 1.0), next(-1.0, 1.0)];
        let angle = next(0.0, std::f32::consts::PI);
        let len = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
        let s = (angle * 0.5).sin() / len.max(1.0e-6);
        let rotation = [axis[0] * s, axis[1] * s, axis[2] * s, (angle * 0.5).cos()];
        let scale = if i % 10 == 0 { 20.0 } else { 2.0 };
        let half = [next(0.0, scale), next(0.0, 1.0), next(0.0, scale)];
        let pose = Pose::new(Vec3::from_array(position), Quat::from_array(rotation));
        let expected = exact_overlaps(&pawns, pose, half);
        hits += expected.len();
        assert_eq!(
            bins.pawns_overlapping_box(pose, Vec3::from_array(half))
                .unwrap(),
            expected,
            "binned, box {i} at {position:?}"
        );
        assert_eq!(
            w.pawns_overlapping_box(pose, Vec3::from_array(half))
                .unwrap(),
            expected,
            "the world, box {i} at {position:?}"
        );
    }
    // The boxes do find pawns (the comparison is not all empty lists).
    assert!(hits > 300, "{hits} hits");
}

/// Runs the items on two threads, the second half first on its own thread: a stand-in for
/// the job system.
struct TwoThreads;

impl dh_sims::Parallel for TwoThreads {
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        let mid = items.len() / 2;
        let (a, b) = items.split_at_mut(mid);
        let f = &f;
        std::thread::scope(|s| {
            s.spawn(move || {
                for (i, item) in b.iter_mut().enumerate().rev() {
                    f(mid + i, item);
                }
            });
            for (i, item) in a.iter_mut().enumerate() {
                f(i, item);
            }
        });
    }
}

/// Every pawn's state and every prop's pose and velocity, as bits.
fn snapshot(w: &PhysicsWorld, pawns: &[PawnId], props: &[BodyHandle]) -> Vec<u32> {
    let mut out = Vec::new();
    for &p in pawns {
        let s = w.pawn_state(p).unwrap();
        out.extend(
            s.feet
                .to_array()
                .iter()
                .chain(&s.velocity.to_array())
                .map(|v| v.to_bits()),
        );
        out.extend([s.yaw.to_bits(), s.pitch.to_bits(), u32::from(s.grounded)]);
    }
    for &b in props {
        let pose = w.body_pose(b).unwrap();
        let v = w.body_velocity(b).unwrap();
        out.extend(
            pose.position
                .to_array()
                .iter()
                .chain(&pose.rotation.to_array())
                .chain(&v.to_array())
                .map(|x| x.to_bits()),
        );
    }
    out
}

#[test]
fn pawns_moved_side_by_side_end_where_one_after_another_would() {
    // Two pawns walk into one crate from both sides (their shoves meet on it, so their order
    // matters), two more side by side into a second crate (yaw 90 faces -X; pawns pass
    // through each other, so the second's shove finds the crate already moving), one rides a platform
    // sliding along +X, one walks into a wall.
    let build = || {
        let (mut w, _) = world_with_floor();
        let mut props = Vec::new();
        for x in [2.0, -3.0] {
            props.push(
                w.add_dynamic_box(
                    Pose::from_position(Vec3::new(x, 0.25, 0.0)),
                    Vec3::splat(0.25),
                    30.0,
                    0.6,
                )
                .unwrap(),
            );
        }
        let platform = w
            .add_kinematic_box(
                Pose::from_position(Vec3::new(0.0, 0.1, 6.0)),
                Vec3::new(1.0, 0.1, 1.0),
                0.8,
            )
            .unwrap();
        w.add_static_box(
            Pose::from_position(Vec3::new(0.0, 1.0, -6.0)),
            Vec3::new(3.0, 1.0, 0.2),
            0.8,
        )
        .unwrap();
        let mut pawns = Vec::new();
        for (feet, yaw) in [
            ([0.8, 0.0, 0.0], -90.0),
            ([3.2, 0.0, 0.0], 90.0),
            ([-1.6, 0.0, 0.0], 90.0),
            ([-1.6, 0.0, 0.1], 90.0),
            ([0.0, 0.2, 6.0], 0.0),
            ([0.0, 0.0, -4.0], 0.0),
        ] {
            let p = w.spawn_pawn(Vec3::from_array(feet), yaw).unwrap();
            pawns.push(p);
        }
        for (i, &p) in pawns.iter().enumerate() {
            let yaw = w.pawn_state(p).unwrap().yaw;
            walk(&mut w, p, yaw, if i == 4 { 0.0 } else { 1.0 });
        }
        (w, pawns, props, platform)
    };
    let (mut one, pawns, props, platform) = build();
    let (mut two, _, _, _) = build();
    let (mut rev, _, _, _) = build();
    for t in 0..96 {
        let target = Pose::from_position(Vec3::new(t as f32 * 0.02, 0.1, 6.0));
        for w in [&mut one, &mut two, &mut rev] {
            w.set_kinematic_target(platform, target).unwrap();
        }
        one.step();
        two.step_with(&TwoThreads);
        rev.step_with(&Reversed);
        let expected = snapshot(&one, &pawns, &props);
        assert_eq!(
            snapshot(&two, &pawns, &props),
            expected,
            "two threads, tick {t}"
        );
        assert_eq!(
            snapshot(&rev, &pawns, &props),
            expected,
            "reversed, tick {t}"
        );
    }
    // The scene did what it says: the crates moved, the rider rode.
    let crate_a = one.body_pose(props[0]).unwrap().position;
    let crate_b = one.body_pose(props[1]).unwrap().position;
    assert!(
        crate_a[0] != 2.0 && crate_b[0] < -3.0,
        "{crate_a:?} {crate_b:?}"
    );
    assert!(feet(&one, pawns[4])[0] > 1.0, "{:?}", feet(&one, pawns[4]));
}

/// Runs every item in reverse index order.
struct Reversed;

impl dh_sims::Parallel for Reversed {
    fn for_each_mut<T, F>(&self, items: &mut [T], f: F)
    where
        T: Send,
        F: Fn(usize, &mut T) + Sync,
    {
        for (i, item) in items.iter_mut().enumerate().rev() {
            f(i, item);
        }
    }
}

#[test]
fn a_second_pawn_shoving_the_same_way_adds_nothing() {
    // A shove brings a prop up to the walker's push speed and no further, so a second pawn
    // walking the same way through the same spot in the same tick finds the crate already
    // moving at it (to a rounding): the crate moves as it does for one pawn, not twice as
    // fast, moved side by side or not.
    let crate_after = |walkers: usize, par: bool| {
        let (mut w, _) = world_with_floor();
        let crate_ = w
            .add_dynamic_box(
                Pose::from_position(Vec3::new(2.0, 0.25, 0.0)),
                Vec3::splat(0.25),
                30.0,
                0.6,
            )
            .unwrap();
        let mut pawns = Vec::new();
        for _ in 0..walkers {
            pawns.push(w.spawn_pawn(Vec3::new(0.0, 0.0, 0.0), -90.0).unwrap());
        }
        run(&mut w, 8);
        for &p in &pawns {
            walk(&mut w, p, -90.0, 1.0);
        }
        let mut track = Vec::new();
        for _ in 0..48 {
            if par {
                w.step_with(&TwoThreads);
            } else {
                w.step();
            }
            track.push(w.body_velocity(crate_).unwrap());
        }
        track
    };
    let one = crate_after(1, false);
    assert!(
        one.iter().any(|v| v[0] > 0.5),
        "the crate was shoved: {one:?}"
    );
    let serial = crate_after(2, false);
    for (t, (two, one)) in serial.iter().zip(&one).enumerate() {
        for axis in 0..3 {
            near(
                two[axis],
                one[axis],
                1.0e-4,
                &format!("tick {t} axis {axis}"),
            );
        }
    }
    assert_eq!(crate_after(2, true), serial);
}
