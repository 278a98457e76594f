//! The world's tick rate (`world.tickRate` other than 64) and switching records, with
//! everything under them, out of the world and back (`scene.disable` / `scene.enable`).
//! Expected ticks are worked out by hand from the spec's rules: a delay is quantized up to
//! whole ticks at the world's rate, a mover's duration is that many seconds of ticks, and a
//! mover called in tick P moves from P + 1 and arrives in P + sweep.

mod common;

use common::*;
use dh_sims::{Input, MapContext, Mover, PawnId, SimWorld};

fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn install_at(text: &str, rate: f64) -> SimWorld {
    SimWorld::install_at(
        &map_from("test.dh-map", text),
        &MapContext::default(),
        &|_| None,
        rate,
    )
    .expect("the map installs")
}

fn press(sim: &SimWorld, name: &str) -> Input {
    Input::Use {
        pawn: PawnId(1),
        target_entity: sim.entity_named(name).expect("the record exists"),
    }
}

fn switch(sim: &SimWorld, name: &str, enabled: bool) -> Input {
    Input::SetEnabled {
        entity: sim.entity_named(name).expect("the record exists"),
        enabled,
    }
}

/// Ticks until `tick_count` is `until`, feeding `inputs(tick)`.
fn run_to(
    sim: &mut SimWorld,
    pawns: &FakePawns,
    until: u64,
    inputs: &dyn Fn(&SimWorld, u64) -> Vec<Input>,
) {
    while sim.tick_count() < until {
        let t = sim.tick_count();
        let i = inputs(sim, t);
        sim.tick(&i, pawns);
    }
}

#[test]
fn at_128_hz_the_logic_map_door_opens_over_160_ticks() {
    let mut sim = SimWorld::install_at(&logic_map(), &MapContext::default(), &core_resolver, 128.0)
        .expect("the logic map installs at 128 Hz");
    assert_eq!(sim.tick_rate(), 128.0);
    let pawns = FakePawns::new();
    // doorButton and lampButton pressed in tick 2. slidingDoor: 1.25 s is 160 ticks at
    // 128 Hz, so it moves in ticks 3..=162 and fires onOpened in 162; 2.5 m / 160 ticks is
    // 1/64 m a tick. lampTimer: 1 s is 128 ticks, so onTimer in 130. platform: 2 s is
    // 256 ticks, opened in tick 0, so onOpened in 256.
    run_to(&mut sim, &pawns, 263, &|sim, t| {
        if t == 2 {
            vec![press(sim, "doorButton"), press(sim, "lampButton")]
        } else {
            vec![]
        }
    });
    assert_eq!(
        all_lines(&sim),
        [
            "[0] platformStart fired onMapStart -> platform.open",
            "[2] doorButton fired onPressed -> slidingDoor.toggle",
            "[2] lampButton fired onPressed -> lampTimer.fire",
            "[130] lampTimer fired onTimer -> lampOr.setA(true)",
            "[130] lampOr fired onTrue -> lamp.turnOn",
            "[162] slidingDoor fired onOpened",
            "[256] platform fired onOpened -> platform.close",
        ]
    );
    assert_near(y_of(&sim, "slidingDoor"), 3.5, "the door fully open");
}

#[test]
fn at_128_hz_the_door_is_halfway_after_80_ticks_of_travel() {
    let mut sim = SimWorld::install_at(&logic_map(), &MapContext::default(), &core_resolver, 128.0)
        .expect("installs");
    let pawns = FakePawns::new();
    // Pressed in tick 0; ticks 1..=80 are 80 of its 160: 1.25 m up from y 1.
    run_to(&mut sim, &pawns, 81, &|sim, t| {
        if t == 0 {
            vec![press(sim, "doorButton")]
        } else {
            vec![]
        }
    });
    assert_near(y_of(&sim, "slidingDoor"), 2.25, "halfway at 128 Hz");
    let door = sim.get_named::<Mover>("slidingDoor").expect("a mover");
    assert_eq!(door.state.sweep_ticks, 160.0);
}

#[test]
fn a_one_and_a_half_second_delay_is_192_ticks_at_128_hz() {
    let text = format!(
        r#"{{ "materials": {{ "m": "/materials/m.dh-mat" }}, "objects": [
  {{ "$type": "object", "id": "{}", "name": "button", "position": [0, 1, 0],
     "components": [ {{ "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "m" }}, {{ "$type": "dh.button" }} ],
     "connections": [ {{ "output": "onPressed", "actions": [
        {{ "delay": {{ "seconds": 1.5 }} }},
        {{ "call": {{ "target": "lamp", "input": "turnOn" }} }} ] }} ] }},
  {{ "$type": "object", "id": "{}", "name": "lamp", "position": [0, 3, 0],
     "components": [ {{ "$type": "dh.light", "startOn": false }} ] }} ] }}"#,
        id(1),
        id(2)
    );
    for (rate, due) in [(128.0, 192u64), (64.0, 96), (30.0, 45)] {
        let mut sim = install_at(&text, rate);
        let pawns = FakePawns::new();
        run_to(&mut sim, &pawns, due, &|sim, t| {
            if t == 0 {
                vec![press(sim, "button")]
            } else {
                vec![]
            }
        });
        assert_eq!(
            sim.light_on("lamp"),
            Some(false),
            "{rate} Hz: not before {due}"
        );
        sim.tick(&[], &pawns);
        assert_eq!(sim.light_on("lamp"), Some(true), "{rate} Hz: lit in {due}");
        assert_eq!(
            lines_at(&sim, due),
            ["button fired onPressed -> lamp.turnOn"],
            "{rate} Hz"
        );
    }
}

#[test]
fn a_spin_is_a_function_of_the_tick_and_the_rate() {
    // A fan at 90 degrees a second, up to speed over 1 s (45 degrees turned by then), with a
    // blade 1 m out along +X: at 128 Hz it is up to speed in tick 128, not 64.
    let text = format!(
        r#"{{ "materials": {{ "m": "/materials/m.dh-mat" }}, "objects": [
  {{ "$type": "object", "id": "{}", "name": "start", "components": [ {{ "$type": "dh.mapStart" }} ],
     "connections": [ {{ "output": "onMapStart", "actions": [ {{ "call": {{ "target": "fan", "input": "open" }} }} ] }} ] }},
  {{ "$type": "object", "id": "{}", "name": "fan", "position": [2, 1, 0],
     "components": [ {{ "$type": "dh.mover", "motion": "spin", "rate": 90, "duration": 1 }} ] }},
  {{ "$type": "boxBrush", "id": "{}", "name": "blade", "parent": "{}", "position": [3, 1, 0], "size": [0.2, 0.2, 0.2], "material": "m" }} ] }}"#,
        id(1),
        id(2),
        id(3),
        id(2)
    );
    let mut sim = install_at(&text, 128.0);
    let pawns = FakePawns::new();
    run_to(&mut sim, &pawns, 129, &|_, _| vec![]);
    assert_eq!(lines_at(&sim, 64), Vec::<String>::new());
    assert_eq!(lines_at(&sim, 128), ["fan fired onOpened"]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let blade = sim.pose_of("blade").expect("blade").position;
    assert_near(blade[0], 2.0 + h, "blade x");
    assert_near(blade[2], -h, "blade z");
}

#[test]
fn a_bad_tick_rate_is_refused() {
    let err = SimWorld::install_at(&logic_map(), &MapContext::default(), &core_resolver, 0.0)
        .expect_err("0 Hz is refused");
    assert_eq!(
        err.to_string(),
        "the tick rate must be a number above 0, got 0"
    );
}

#[test]
fn switching_a_mover_off_takes_everything_under_it_out_and_back() {
    let mut sim = install_logic_map();
    let pawns = FakePawns::new();
    // The rider stands on liftPlate, which liftPlatform carries.
    pawns.put(1, [4.0, 0.3, -9.0]);
    sim.tick(&[], &pawns);
    assert_eq!(
        lines_at(&sim, 0),
        [
            "platformStart fired onMapStart -> platform.open",
            "liftPlate fired onStartTouch -> liftPlatform.open",
        ]
    );
    let lift = sim.entity_named("liftPlatform").expect("lift");
    let plate = sim.entity_named("liftPlate").expect("plate");
    assert_eq!(sim.subtree(lift), [lift, plate]);
    // Tick 1: the lift goes off, and its plate with it, draining: onEndTouch closes a lift
    // that is out of the world, which does nothing.
    sim.tick(&[switch(&sim, "liftPlatform", false)], &pawns);
    assert_eq!(
        lines_at(&sim, 1),
        [
            "liftPlatform switched off",
            "liftPlate fired onEndTouch -> liftPlatform.close",
        ]
    );
    assert!(!sim.in_world(lift));
    assert!(!sim.in_world(plate), "the plate is under the lift");
    // The lift's and the plate's bodies are gone from the kinematic targets.
    assert!(sim
        .kinematic_targets()
        .iter()
        .all(|(e, _)| *e != lift && *e != plate));
    // Off, the plate measures nobody and the lift stands where it was.
    let y = y_of(&sim, "liftPlatform");
    sim.tick(&[], &pawns);
    sim.tick(&[], &pawns);
    assert_eq!(lines_at(&sim, 2), Vec::<String>::new());
    assert_near(
        y_of(&sim, "liftPlatform"),
        y,
        "a switched-off lift stays put",
    );
    // Tick 4: back on, from the authored state (closed), and the plate finds the rider.
    sim.tick(&[switch(&sim, "liftPlatform", true)], &pawns);
    assert_eq!(
        lines_at(&sim, 4),
        [
            "liftPlatform switched on",
            "liftPlate fired onStartTouch -> liftPlatform.open",
        ]
    );
    assert!(sim.in_world(lift) && sim.in_world(plate));
    assert!(sim.kinematic_targets().iter().any(|(e, _)| *e == lift));
}

#[test]
fn a_record_switched_off_itself_stays_off_when_its_parent_comes_back() {
    let mut sim = install_logic_map();
    let pawns = FakePawns::new();
    pawns.put(1, [4.0, 0.3, -9.0]);
    sim.tick(&[switch(&sim, "liftPlate", false)], &pawns);
    sim.tick(&[switch(&sim, "liftPlatform", false)], &pawns);
    sim.tick(&[switch(&sim, "liftPlatform", true)], &pawns);
    let plate = sim.entity_named("liftPlate").expect("plate");
    assert!(!sim.in_world(plate), "its own switch is still off");
    assert_eq!(lines_at(&sim, 2), ["liftPlatform switched on"]);
    sim.tick(&[switch(&sim, "liftPlate", true)], &pawns);
    assert_eq!(
        lines_at(&sim, 3),
        [
            "liftPlate switched on",
            "liftPlate fired onStartTouch -> liftPlatform.open",
        ]
    );
}

#[test]
fn a_model_part_filed_under_a_mover_is_reported() {
    let text = format!(
        r#"{{ "materials": {{ "m": "/materials/m.dh-mat" }}, "objects": [
  {{ "$type": "object", "id": "{}", "name": "door", "position": [0, 1, 0],
     "components": [ {{ "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2, "duration": 1 }} ] }},
  {{ "$type": "instance", "id": "{}", "name": "world", "source": "/meshes/hall.glb",
     "children": [ {{ "path": "hall/leaf", "parent": "{}" }}, {{ "path": "hall/wall" }} ] }} ] }}"#,
        id(1),
        id(2),
        id(1)
    );
    let sim = install_text(&text);
    assert_eq!(
        sim.install_warnings(),
        ["warning: world: part 'hall/leaf' is filed under 'door', which a mover carries; model parts are not carried and have no bodies in a headless run, so it stays where it was baked and is not solid"]
    );
    assert!(install_logic_map().install_warnings().is_empty());
}
