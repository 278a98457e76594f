//! Every logic component's behaviour, on small maps written inline, tick by tick.

mod common;

use common::*;
use dh_content::schema::components::signals::CallValue;
use dh_sims::Vec3;
use dh_sims::{
    quantize_ticks, Input, LightProbeVolume, NotGate, PawnId, SimWorld, TickEvents, Trigger,
    TICK_RATE,
};

/// A map around `objects` (a JSON list body), with one material slot `m` and a bake zone
/// `hall` with a set `night`.
fn map_with(objects: &str) -> SimWorld {
    install_text(&format!(
        r#"{{
  "materials": {{ "m": "/materials/m.dh-mat" }},
  "lighting": {{ "bakeZones": [ {{ "id": "hall", "sets": [ {{ "name": "night" }} ] }} ] }},
  "objects": [ {objects} ]
}}"#
    ))
}

/// `{ "call": { "target": T, "input": I } }` and friends.
fn call(target: &str, input: &str) -> String {
    format!(r#"{{ "call": {{ "target": "{target}", "input": "{input}" }} }}"#)
}

fn call_param(target: &str, input: &str, param: bool) -> String {
    format!(r#"{{ "call": {{ "target": "{target}", "input": "{input}", "param": {param} }} }}"#)
}

fn delay(seconds: f64) -> String {
    format!(r#"{{ "delay": {{ "seconds": {seconds} }} }}"#)
}

fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// An object record `name` with `components` and `connections` (JSON list bodies).
fn object(n: u32, name: &str, position: [f64; 3], components: &str, connections: &str) -> String {
    format!(
        r#"{{ "$type": "object", "id": "{}", "name": "{name}", "position": [{}, {}, {}],
             "components": [ {components} ], "connections": [ {connections} ] }}"#,
        id(n),
        position[0],
        position[1],
        position[2]
    )
}

fn wire(output: &str, actions: &[String]) -> String {
    format!(
        r#"{{ "output": "{output}", "actions": [ {} ] }}"#,
        actions.join(", ")
    )
}

const BUTTON: &str =
    r#"{ "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "m" }, { "$type": "dh.button" }"#;
const LAMP: &str = r#"{ "$type": "dh.light", "startOn": false }"#;

fn press(sim: &SimWorld, name: &str, pawn: u32) -> Input {
    Input::Use {
        pawn: PawnId(pawn),
        target_entity: sim.entity_named(name).unwrap(),
    }
}

fn ext(target: &str, input: &str, param: Option<bool>) -> Input {
    Input::Call {
        target: target.to_string(),
        input: input.to_string(),
        param,
        value: None,
        activator: None,
    }
}

/// Runs ticks up to and including `last`, feeding `inputs(t)` and applying teleports.
fn run(
    sim: &mut SimWorld,
    pawns: &FakePawns,
    last: u64,
    inputs: &dyn Fn(&SimWorld, u64) -> Vec<Input>,
) -> Vec<TickEvents> {
    let mut out = Vec::new();
    while sim.tick_count() <= last {
        let t = sim.tick_count();
        let i = inputs(sim, t);
        let ev = sim.tick(&i, pawns);
        pawns.apply(&ev);
        out.push(ev);
    }
    out
}

#[test]
fn delays_are_quantized_up_to_whole_ticks() {
    assert_eq!(quantize_ticks(1.5, TICK_RATE), 96);
    assert_eq!(quantize_ticks(0.01, TICK_RATE), 1); // 0.64 ticks
    assert_eq!(quantize_ticks(0.1, TICK_RATE), 7); // 6.4 ticks
    assert_eq!(quantize_ticks(1.0 / 64.0, TICK_RATE), 1);
    assert_eq!(quantize_ticks(0.0, TICK_RATE), 0);
    let mut sim = map_with(
        &[
            object(
                1,
                "go",
                [0.0; 3],
                BUTTON,
                &wire(
                    "onPressed",
                    &[
                        call("a", "turnOn"),
                        delay(0.01),
                        call("b", "turnOn"),
                        delay(0.1),
                        call("c", "turnOn"),
                    ],
                ),
            ),
            object(2, "a", [0.0; 3], LAMP, ""),
            object(3, "b", [0.0; 3], LAMP, ""),
            object(4, "c", [0.0; 3], LAMP, ""),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    run(&mut sim, &pawns, 20, &|s, t| {
        if t == 2 {
            vec![press(s, "go", 4)]
        } else {
            vec![]
        }
    });
    assert_eq!(
        all_lines(&sim),
        [
            "[2] go fired onPressed -> a.turnOn",
            "[2] go fired onPressed: delay 0.01 s (1 ticks)",
            "[3] go fired onPressed -> b.turnOn",
            "[3] go fired onPressed: delay 0.1 s (7 ticks)",
            "[10] go fired onPressed -> c.turnOn",
        ]
    );
    assert_eq!(sim.light_on("c"), Some(true));
}

#[test]
fn a_wiring_cycle_stops_at_the_call_depth_cap() {
    // A not gate wired to flip its own input on every edge: each call causes the next.
    let mut sim = map_with(
        &[
            object(
                1,
                "kick",
                [0.0; 3],
                BUTTON,
                &wire("onPressed", &[call_param("osc", "setA", true)]),
            ),
            object(
                2,
                "osc",
                [0.0; 3],
                r#"{ "$type": "dh.notGate" }"#,
                &[
                    wire("onFalse", &[call_param("osc", "setA", false)]),
                    wire("onTrue", &[call_param("osc", "setA", true)]),
                ]
                .join(","),
            ),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    run(&mut sim, &pawns, 3, &|s, t| {
        if t == 0 {
            vec![press(s, "kick", 1)]
        } else {
            vec![]
        }
    });
    assert_eq!(
        lines_at(&sim, 0),
        [
            "kick fired onPressed -> osc.setA(true)",
            "osc fired onFalse -> osc.setA(false)",
            "osc fired onTrue -> osc.setA(true)",
            "osc fired onFalse -> osc.setA(false)",
            "osc fired onTrue -> osc.setA(true)",
            "osc fired onFalse -> osc.setA(false)",
            "osc fired onTrue -> osc.setA(true)",
            "osc fired onFalse -> osc.setA(false)",
            "osc fired onTrue -> osc.setA(true) dropped: the call-depth cap (8) is reached",
        ]
    );
    // Eight calls ran: the last one set A false again.
    assert!(!sim.get_named::<NotGate>("osc").unwrap().a);
    assert_eq!(sim.trace().len(), 9, "nothing carries over to later ticks");
}

#[test]
fn overlapping_timer_fires_schedule_independently_and_keep_their_activator() {
    let mut sim = map_with(
        &[
            object(
                1,
                "go",
                [0.0; 3],
                BUTTON,
                &wire("onPressed", &[call("t", "fire")]),
            ),
            object(
                2,
                "t",
                [0.0; 3],
                r#"{ "$type": "dh.timer", "delaySeconds": 1 }"#,
                &wire(
                    "onTimer",
                    &[call("lamp", "toggle"), call("pad", "teleport")],
                ),
            ),
            object(3, "lamp", [0.0; 3], LAMP, ""),
            object(
                4,
                "pad",
                [5.0, 0.0, 0.0],
                r#"{ "$type": "dh.teleport" }"#,
                "",
            ),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    let evs = run(&mut sim, &pawns, 90, &|s, t| match t {
        0 => vec![press(s, "go", 1)],
        20 => vec![press(s, "go", 2)],
        _ => vec![],
    });
    assert_eq!(lines_at(&sim, 64)[0], "t fired onTimer -> lamp.toggle");
    assert_eq!(lines_at(&sim, 84)[0], "t fired onTimer -> lamp.toggle");
    // On at 64, off again at 84.
    assert_eq!(evs[64].lights.len(), 1);
    assert_eq!(evs[84].lights.len(), 1);
    assert_eq!(sim.light_on("lamp"), Some(false));
    // The presser's id crossed the delay: each fire teleports its own presser.
    assert_eq!(evs[64].teleports.len(), 1);
    assert_eq!(evs[64].teleports[0].pawn, PawnId(1));
    assert_eq!(evs[84].teleports[0].pawn, PawnId(2));
    assert_eq!(
        evs[84].teleports[0].destination.position.to_array(),
        [5.0, 0.0, 0.0]
    );
}

#[test]
fn gates_fire_on_edges_only() {
    let wires = [
        wire("onTrue", &[call("lamp", "turnOn")]),
        wire("onFalse", &[call("lamp", "turnOff")]),
    ]
    .join(",");
    let mut sim = map_with(
        &[
            object(1, "and", [0.0; 3], r#"{ "$type": "dh.andGate" }"#, &wires),
            object(
                2,
                "not",
                [0.0; 3],
                r#"{ "$type": "dh.notGate" }"#,
                &wire("onFalse", &[call("lamp2", "turnOn")]),
            ),
            object(3, "lamp", [0.0; 3], LAMP, ""),
            object(4, "lamp2", [0.0; 3], LAMP, ""),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    run(&mut sim, &pawns, 10, &|_, t| match t {
        1 => vec![ext("and", "setA", Some(true))],
        2 => vec![ext("and", "setB", Some(true))],
        3 => vec![ext("and", "setB", Some(true))],
        4 => vec![ext("and", "setA", Some(false))],
        5 => vec![
            ext("and", "setA", Some(false)),
            ext("not", "setA", Some(false)),
        ],
        6 => vec![ext("not", "setA", Some(true))],
        7 => vec![ext("not", "setA", Some(true))],
        _ => vec![],
    });
    assert_eq!(lines_at(&sim, 1), ["call and.setA(true)"]);
    assert_eq!(
        lines_at(&sim, 2),
        ["call and.setB(true)", "and fired onTrue -> lamp.turnOn"]
    );
    assert_eq!(lines_at(&sim, 3), ["call and.setB(true)"]);
    assert_eq!(
        lines_at(&sim, 4),
        ["call and.setA(false)", "and fired onFalse -> lamp.turnOff"]
    );
    assert_eq!(
        lines_at(&sim, 5),
        ["call and.setA(false)", "call not.setA(false)"]
    );
    assert_eq!(
        lines_at(&sim, 6),
        ["call not.setA(true)", "not fired onFalse -> lamp2.turnOn"]
    );
    assert_eq!(lines_at(&sim, 7), ["call not.setA(true)"]);
}

#[test]
fn trigger_enable_disable_and_toggle() {
    let zone = r#"{ "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
                  { "$type": "dh.trigger", "enabled": false }"#;
    let mut sim = map_with(
        &[
            object(
                1,
                "zone",
                [0.0, 1.0, 0.0],
                zone,
                &[
                    wire("onStartTouch", &[call("lamp", "turnOn")]),
                    wire("onEndTouch", &[call("lamp", "turnOff")]),
                ]
                .join(","),
            ),
            object(2, "lamp", [0.0; 3], LAMP, ""),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    pawns.put(1, [0.0, 0.0, 0.0]);
    let script = |_: &SimWorld, t: u64| match t {
        5 => vec![ext("zone", "enable", None)],
        10 => vec![ext("zone", "disable", None)],
        15 => vec![ext("zone", "toggle", None)],
        _ => vec![],
    };
    // Off: not measured at all.
    run(&mut sim, &pawns, 4, &script);
    assert!(sim.trace().is_empty());
    // Enabling counts whoever is inside as entering, on the same tick's scan.
    run(&mut sim, &pawns, 5, &script);
    assert_eq!(
        lines_at(&sim, 5),
        ["call zone.enable", "zone fired onStartTouch -> lamp.turnOn"]
    );
    // Disabling forgets them with no onEndTouch.
    run(&mut sim, &pawns, 10, &script);
    assert_eq!(lines_at(&sim, 10), ["call zone.disable"]);
    assert!(sim.get_named::<Trigger>("zone").unwrap().inside.is_empty());
    // Toggling it back on finds them standing there and fires again.
    run(&mut sim, &pawns, 15, &script);
    assert_eq!(
        lines_at(&sim, 15),
        ["call zone.toggle", "zone fired onStartTouch -> lamp.turnOn"]
    );
    // Per toucher: a second pawn entering fires again; the first leaving fires its own end.
    pawns.put(2, [0.5, 0.0, 0.0]);
    run(&mut sim, &pawns, 16, &script);
    assert_eq!(
        lines_at(&sim, 16),
        ["zone fired onStartTouch -> lamp.turnOn"]
    );
    pawns.remove(1);
    run(&mut sim, &pawns, 17, &script);
    assert_eq!(
        lines_at(&sim, 17),
        ["zone fired onEndTouch -> lamp.turnOff"]
    );
    assert_eq!(
        sim.get_named::<Trigger>("zone").unwrap().inside,
        [PawnId(2)]
    );
}

#[test]
fn a_teleport_with_no_activator_does_nothing_and_chains_on_the_next_tick() {
    let booth = |dest: &str| {
        format!(
            r#"{{ "$type": "dh.collider", "state": "trigger", "shapes": [ {{ "type": "box", "halfExtents": [1, 1, 1] }} ] }},
               {{ "$type": "dh.trigger" }}, {{ "$type": "dh.teleport", "destination": "{dest}", "velocity": "zero" }}"#
        )
    };
    let mut sim = map_with(&[
        object(1, "start", [0.0; 3], r#"{ "$type": "dh.mapStart" }"#, &wire("onMapStart", &[call("boothA", "teleport")])),
        object(2, "boothA", [0.0, 1.0, 0.0], &booth("exitA"), &wire("onStartTouch", &[call("boothA", "teleport")])),
        // exitA stands inside boothB, which sends the pawn on to exitB.
        object(3, "exitA", [20.0, 0.0, 0.0], "", ""),
        object(4, "boothB", [20.0, 1.0, 0.0], &booth("exitB"), &wire("onStartTouch", &[call("boothB", "teleport")])),
        format!(
            r#"{{ "$type": "object", "id": "{}", "name": "exitB", "position": [40, 0, 0], "rotation": [0, 90, 0] }}"#,
            id(5)
        ),
    ]
    .join(","));
    let pawns = FakePawns::new();
    // Tick 0: the map start reaches the teleport with no activator.
    let ev = sim.tick(&[], &pawns);
    assert!(ev.teleports.is_empty());
    assert_eq!(
        lines_at(&sim, 0),
        [
            "start fired onMapStart -> boothA.teleport",
            "boothA.teleport: no activator, no teleport",
        ]
    );
    // Tick 1: a pawn steps into boothA and is sent to exitA.
    pawns.put(9, [0.0, 0.0, 0.0]);
    let ev = sim.tick(&[], &pawns);
    assert_eq!(ev.teleports.len(), 1);
    assert_eq!(ev.teleports[0].pawn, PawnId(9));
    assert_eq!(
        ev.teleports[0].destination.position.to_array(),
        [20.0, 0.0, 0.0]
    );
    pawns.apply(&ev);
    // Tick 2: exitA is inside boothB, so the chain goes on to exitB.
    let ev = sim.tick(&[], &pawns);
    assert_eq!(
        lines_at(&sim, 2),
        [
            "boothA fired onEndTouch",
            "boothB fired onStartTouch -> boothB.teleport",
            "boothB teleports pawn 9 to exitB",
        ]
    );
    let t = ev.teleports[0];
    assert_eq!(t.destination.position.to_array(), [40.0, 0.0, 0.0]);
    // Facing "destination": exitB's yaw 90; velocity "zero".
    let moved = t.apply(
        Vec3::new(20.0, 0.0, 0.0),
        0.0,
        10.0,
        Vec3::new(3.0, 0.0, 0.0),
    );
    assert_eq!(moved.position.to_array(), [40.0, 0.0, 0.0]);
    assert_near(moved.yaw, 90.0, "yaw");
    assert_near(moved.pitch, 0.0, "pitch");
    assert_eq!(moved.velocity.to_array(), [0.0; 3]);
}

#[test]
fn a_spin_reaches_its_rate_and_its_angle_wraps() {
    // A fan spinning at 90 degrees a second about +Y, up to speed over 1 s; a blade 1 m out
    // along +X rides it.
    let mut sim = map_with(&[
        object(1, "start", [0.0; 3], r#"{ "$type": "dh.mapStart" }"#, &wire("onMapStart", &[call("fan", "open")])),
        object(2, "fan", [2.0, 1.0, 0.0], r#"{ "$type": "dh.mover", "motion": "spin", "rate": 90, "duration": 1 }"#, ""),
        format!(
            r#"{{ "$type": "boxBrush", "id": "{}", "name": "blade", "parent": "{}", "position": [3, 1, 0], "size": [0.2, 0.2, 0.2], "material": "m" }}"#,
            id(3),
            id(2)
        ),
    ]
    .join(","));
    let pawns = FakePawns::new();
    let fan = sim.entity_named("fan").unwrap();
    let angle = |sim: &SimWorld| {
        sim.get::<dh_sims::Mover>(fan)
            .unwrap()
            .spin_angle(sim.tick_count() - 1, TICK_RATE)
    };
    // Half a second in: 0.5 · 90 · 0.5² = 11.25 degrees.
    run(&mut sim, &pawns, 32, &|_, _| vec![]);
    assert!((angle(&sim) - 11.25).abs() < 1e-9, "{}", angle(&sim));
    // One second in: up to speed (onOpened), 45 degrees turned.
    run(&mut sim, &pawns, 64, &|_, _| vec![]);
    assert_eq!(lines_at(&sim, 64), ["fan fired onOpened"]);
    assert!((angle(&sim) - 45.0).abs() < 1e-9);
    // The blade swung 45 degrees about the fan's origin: +X turns toward -Z.
    let blade = sim.pose_of("blade").unwrap().position;
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_near(blade[0], 2.0 + h, "blade x");
    assert_near(blade[1], 1.0, "blade y");
    assert_near(blade[2], -h, "blade z");
    // Four seconds later it has turned 360 more and reads 45 again: wrapped.
    run(&mut sim, &pawns, 320, &|_, _| vec![]);
    assert!((angle(&sim) - 45.0).abs() < 1e-9, "{}", angle(&sim));
    // 2 hours of ticks later (460,800 ticks = 7200 s at 90/s: 648,000 degrees, 1800 turns).
    let m = sim.get::<dh_sims::Mover>(fan).unwrap();
    assert!((m.spin_angle(320 + 460_800, TICK_RATE) - 45.0).abs() < 1e-6);
    // Close spins it down over 1 s, 45 more degrees, then onClosed.
    run(&mut sim, &pawns, 330, &|_, t| {
        if t == 330 {
            vec![ext("fan", "close", None)]
        } else {
            vec![]
        }
    });
    run(&mut sim, &pawns, 394, &|_, _| vec![]);
    assert_eq!(lines_at(&sim, 394), ["fan fired onClosed"]);
    // 45 + 90·(10/64) at the close, plus the 45-degree spin-down.
    let expected = (45.0 + 90.0 * 10.0 / 64.0 + 45.0f64).rem_euclid(360.0);
    assert!(
        (angle(&sim) - expected).abs() < 1e-9,
        "{} vs {expected}",
        angle(&sim)
    );
}

#[test]
fn a_rotating_door_swings_what_it_carries_and_start_open_spawns_open() {
    let mut sim = map_with(&[
        // A hinge at the origin turning 90 degrees about +Y over 1 s, with a panel 1 m out on +X
        // under a folder under it.
        object(1, "hinge", [0.0; 3], r#"{ "$type": "dh.mover", "motion": "rotate", "angle": 90, "duration": 1 }"#, ""),
        format!(r#"{{ "$type": "folder", "id": "{}", "parent": "{}" }}"#, id(2), id(1)),
        format!(
            r#"{{ "$type": "boxBrush", "id": "{}", "name": "panel", "parent": "{}", "position": [1, 0, 0], "size": [0.1, 1, 1], "material": "m" }}"#,
            id(3),
            id(2)
        ),
        // A door riding the panel: its slide adds to the swing.
        format!(
            r#"{{ "$type": "object", "id": "{}", "name": "rider", "parent": "{}", "position": [1, 0, 0],
                 "components": [ {{ "$type": "dh.box", "material": "m" }}, {{ "$type": "dh.mover", "distance": 2, "duration": 0.5, "startOpen": true }} ] }}"#,
            id(4),
            id(3)
        ),
    ]
    .join(","));
    // startOpen: the rider already stands 2 m up, with nothing fired.
    let rider = sim.pose_of("rider").unwrap().position;
    assert_eq!(rider.to_array(), [1.0, 2.0, 0.0]);
    let pawns = FakePawns::new();
    run(&mut sim, &pawns, 64, &|_, t| {
        if t == 0 {
            vec![ext("hinge", "open", None)]
        } else {
            vec![]
        }
    });
    assert_eq!(lines_at(&sim, 64), ["hinge fired onOpened"]);
    // +X swung 90 degrees about +Y: to -Z.
    let panel = sim.pose_of("panel").unwrap().position;
    assert_near(panel[0], 0.0, "panel x");
    assert_near(panel[2], -1.0, "panel z");
    let rider = sim.pose_of("rider").unwrap().position;
    assert_near(rider[0], 0.0, "rider x");
    assert_near(rider[1], 2.0, "rider y: its own slide, carried");
    assert_near(rider[2], -1.0, "rider z");
    // Closing the rider (a startOpen mover) slides it home under the swing.
    // Called on tick 65, it moves on ticks 66 to 97 (0.5 s is 32 ticks).
    run(&mut sim, &pawns, 96, &|_, t| {
        if t == 65 {
            vec![ext("rider", "close", None)]
        } else {
            vec![]
        }
    });
    assert_near(
        sim.pose_of("rider").unwrap().position[1],
        2.0 / 32.0,
        "one tick from home",
    );
    run(&mut sim, &pawns, 97, &|_, _| vec![]);
    assert_eq!(lines_at(&sim, 97), ["rider fired onClosed"]);
    assert_near(sim.pose_of("rider").unwrap().position[1], 0.0, "rider home");
}

#[test]
fn probe_volumes_switch_and_grade_and_bake_sets_are_held() {
    let mut sim = map_with(&[
        object(
            1,
            "go",
            [0.0; 3],
            BUTTON,
            &wire(
                "onPressed",
                &[
                    r#"{ "call": { "target": "room", "input": "setTint", "value": [1, 0.5, 0] } }"#.to_string(),
                    r#"{ "call": { "target": "room", "input": "setIntensity", "value": 0.5 } }"#.to_string(),
                    call("room", "toggle"),
                    r#"{ "setBakeSet": { "zone": "hall", "set": "night", "fade": 2 } }"#.to_string(),
                ],
            ),
        ),
        format!(
            r#"{{ "$type": "object", "id": "{}", "name": "room", "scale": [4, 3, 4], "components": [ {{ "$type": "dh.lightProbeVolume" }} ] }}"#,
            id(2)
        ),
    ]
    .join(","));
    assert_eq!(sim.bake_set("hall").unwrap().set, "default");
    let pawns = FakePawns::new();
    let evs = run(&mut sim, &pawns, 3, &|s, t| {
        if t == 3 {
            vec![press(s, "go", 1)]
        } else {
            vec![]
        }
    });
    let v = sim.get_named::<LightProbeVolume>("room").unwrap();
    assert!(!v.switch.on);
    assert_eq!(v.switch.tint_srgb, [1.0, 0.5, 0.0]);
    assert_near(v.switch.tint[1], 0.214_041, "tint green, linear");
    assert_eq!(v.switch.intensity, 0.5);
    let b = sim.bake_set("hall").unwrap();
    assert_eq!((b.set.as_str(), b.fade, b.since_tick), ("night", 2.0, 3));
    assert_eq!(evs[3].bake_sets, ["hall"]);
    assert_eq!(evs[3].probes.len(), 1);
    assert_eq!(
        lines_at(&sim, 3),
        [
            "go fired onPressed -> room.setTint([1, 0.5, 0])",
            "go fired onPressed -> room.setIntensity(0.5)",
            "go fired onPressed -> room.toggle",
            "go fired onPressed -> setBakeSet hall night",
        ]
    );
}

#[test]
fn calls_from_outside_are_checked_like_wires() {
    let mut sim = map_with(&object(1, "lamp", [0.0; 3], LAMP, ""));
    assert!(sim.check_call("lamp", "turnOn", None, None).is_ok());
    let e = sim.check_call("lamp", "open", None, None).unwrap_err();
    assert!(e.contains("input 'open' is not declared"), "{e}");
    let e = sim.check_call("nobody", "turnOn", None, None).unwrap_err();
    assert_eq!(e, "no logic entity is named 'nobody'");
    let pawns = FakePawns::new();
    sim.tick(
        &[Input::Call {
            target: "lamp".into(),
            input: "light.turnOn".into(),
            param: None,
            value: Some(CallValue::Number(1.0)),
            activator: None,
        }],
        &pawns,
    );
    assert_eq!(
        lines_at(&sim, 0),
        ["call lamp.light.turnOn refused: input 'light.turnOn' takes no 'value'; only an input that takes a number or a color does"]
    );
    assert_eq!(sim.light_on("lamp"), Some(false));
}

#[test]
fn lights_set_patches_and_reset_reverts() {
    let mut sim = map_with(
        &[
            object(
                1,
                "lampA",
                [0.0; 3],
                r#"{ "$type": "dh.light", "light": "spot", "intensity": 10 }"#,
                "",
            ),
            object(2, "lampB", [0.0; 3], r#"{ "$type": "dh.light" }"#, ""),
            object(3, "street", [0.0; 3], r#"{ "$type": "dh.light" }"#, ""),
        ]
        .join(","),
    );
    assert_eq!(
        sim.lights_set("lamp*", "intensity", &["5"]).unwrap(),
        "lights.set: intensity -> 5 on 2 lights"
    );
    assert_eq!(
        sim.get_named::<dh_sims::Light>("lampA")
            .unwrap()
            .effective()
            .intensity,
        5.0
    );
    assert_eq!(
        sim.lights_set("street", "color", &["1", "0", "0"]).unwrap(),
        "lights.set: color -> 1 0 0 (sRGB) on street"
    );
    // Back to exactly the authored value drops out of the patch.
    sim.lights_set("lampA", "intensity", &["10"]).unwrap();
    assert!(sim
        .get_named::<dh_sims::Light>("lampA")
        .unwrap()
        .patch
        .is_empty());
    // An inner cone past the outer re-clamps the outer.
    sim.lights_set("lampA", "innerCone", &["50"]).unwrap();
    let e = sim
        .get_named::<dh_sims::Light>("lampA")
        .unwrap()
        .effective();
    assert_eq!((e.inner_cone, e.outer_cone), (50.0, 51.0));
    assert_eq!(
        sim.lights_reset("*").unwrap(),
        "lights.reset: reverted 3 of 3 lights"
    );
    assert_eq!(
        sim.lights_set("nope*", "range", &["3"])
            .unwrap_err()
            .to_string(),
        "no light matches 'nope*'"
    );
    assert!(sim.lights_set("lampA", "glow", &["3"]).is_err());
    assert!(sim.lights_set("lampA", "range", &["0"]).is_err());
    let list = sim.lights_list();
    assert_eq!(
        list[0],
        "lampA: spot on color 1 1 1 intensity 10 range 10 mode realtime"
    );
}

/// Runs every item in reverse index order: a stand-in for another thread layout.
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
fn the_passes_give_the_same_world_whatever_order_they_run_in() {
    let mut a = install_logic_map();
    let mut b = install_logic_map();
    let pawns = FakePawns::new();
    let door = a.entity_named("doorButton").unwrap();
    for t in 0..300u64 {
        let inputs = if t == 7 {
            vec![Input::Use {
                pawn: PawnId(1),
                target_entity: door,
            }]
        } else {
            vec![]
        };
        a.tick(&inputs, &pawns);
        b.tick_with(&inputs, &pawns, &Reversed);
    }
    assert_eq!(a.trace_text(), b.trace_text());
    for name in ["platform", "slidingDoor", "liftPlate"] {
        assert_eq!(a.pose_of(name), b.pose_of(name), "{name}");
    }
}

#[test]
fn a_trigger_switched_by_an_earlier_sensor_is_measured_in_its_turn() {
    // Four triggers over one spot, in author order: `early` (off), `first` (on), `late`
    // (off) and `doomed` (on). `first` switches the other three as a pawn enters it.
    let zone = |on: bool| {
        format!(
            r#"{{ "$type": "dh.collider", "state": "trigger", "shapes": [ {{ "type": "box", "halfExtents": [1, 1, 1] }} ] }},
               {{ "$type": "dh.trigger", "enabled": {on} }}"#
        )
    };
    let lamp_on = |name: &str| wire("onStartTouch", &[call(name, "turnOn")]);
    let map = [
        object(
            1,
            "early",
            [0.0, 1.0, 0.0],
            &zone(false),
            &lamp_on("lampEarly"),
        ),
        object(
            2,
            "first",
            [0.0, 1.0, 0.0],
            &zone(true),
            &wire(
                "onStartTouch",
                &[
                    call("early", "enable"),
                    call("late", "enable"),
                    call("doomed", "disable"),
                ],
            ),
        ),
        object(
            3,
            "late",
            [0.0, 1.0, 0.0],
            &zone(false),
            &lamp_on("lampLate"),
        ),
        object(
            4,
            "doomed",
            [0.0, 1.0, 0.0],
            &zone(true),
            &lamp_on("lampDoomed"),
        ),
        object(5, "lampEarly", [0.0; 3], LAMP, ""),
        object(6, "lampLate", [0.0; 3], LAMP, ""),
        object(7, "lampDoomed", [0.0; 3], LAMP, ""),
    ]
    .join(",");
    let pawns = FakePawns::new();
    pawns.put(1, [0.0, 0.0, 0.0]);
    // Measured serially or all at once in any order: the same story.
    let mut serial = map_with(&map);
    let mut spread = map_with(&map);
    for _ in 0..3 {
        serial.tick(&[], &pawns);
        spread.tick_with(&[], &pawns, &Reversed);
    }
    for sim in [&serial, &spread] {
        // Tick 0: `first` switches the others; `late`, whose turn comes after, is on by then
        // and finds the pawn inside; `doomed` is off by its turn and fires nothing.
        assert_eq!(
            lines_at(sim, 0),
            [
                "first fired onStartTouch -> early.enable",
                "first fired onStartTouch -> late.enable",
                "first fired onStartTouch -> doomed.disable",
                "late fired onStartTouch -> lampLate.turnOn",
            ]
        );
        // Tick 1: `early`'s turn had passed; it finds the pawn now.
        assert_eq!(
            lines_at(sim, 1),
            ["early fired onStartTouch -> lampEarly.turnOn"]
        );
        assert!(lines_at(sim, 2).is_empty());
        assert_eq!(sim.light_on("lampDoomed"), Some(false));
        assert_eq!(sim.light_on("lampLate"), Some(true));
    }
}

/// Spec dh.trigger `touchedBy`: only players are measured today, so a trigger for props
/// alone sees no player; "everything" does.
#[test]
fn a_props_trigger_sees_no_player() {
    let zone = |by: &str| {
        format!(
            r#"{{ "$type": "dh.collider", "state": "trigger", "shapes": [ {{ "type": "box", "halfExtents": [1, 1, 1] }} ] }},
               {{ "$type": "dh.trigger", "touchedBy": "{by}" }}"#
        )
    };
    let mut sim = map_with(
        &[
            object(
                1,
                "props",
                [0.0, 1.0, 0.0],
                &zone("props"),
                &wire("onStartTouch", &[call("lamp", "turnOn")]),
            ),
            object(
                2,
                "all",
                [0.0, 1.0, 0.0],
                &zone("everything"),
                &wire("onStartTouch", &[call("lamp", "turnOff")]),
            ),
            object(3, "lamp", [0.0; 3], LAMP, ""),
        ]
        .join(","),
    );
    let pawns = FakePawns::new();
    pawns.put(1, [0.0, 0.0, 0.0]);
    run(&mut sim, &pawns, 3, &|_: &SimWorld, _| vec![]);
    let fired: Vec<String> = sim.trace().iter().map(|l| l.text.clone()).collect();
    assert_eq!(
        fired,
        ["all fired onStartTouch -> lamp.turnOff"],
        "{fired:?}"
    );
    assert!(sim.get_named::<Trigger>("props").unwrap().inside.is_empty());
    assert_eq!(sim.get_named::<Trigger>("all").unwrap().inside, [PawnId(1)]);
}
