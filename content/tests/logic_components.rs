//! The logic components (dh.button, dh.mover, dh.pressurePlate, dh.trigger, dh.teleport,
//! dh.timer, dh.mapStart and the gates): their closed schemas and defaults, their
//! build-time rules, the signal table and the signal-naming rule, and the spec's examples.
//!
//! Expected messages are written by hand from the spec; where it quotes one, the quote is
//! asserted verbatim.

use dh_content::diag::{Diagnostic, Diagnostics, Severity, SourceFile};
use dh_content::jsonc::Value;
use dh_content::read::{parse_source, Cx, FromJson, Mode, ToJson};
use dh_content::schema::common::Vec3;
use dh_content::schema::components::logic::{
    validate_object_logic, Body, BodyProblem, Facing, Motion, ObjectLogicCx, TeleportVelocity,
    TouchedBy,
};
use dh_content::schema::components::signals::{
    check_args, check_call, component_types, resolve_input, resolve_output, signals_of,
    wireable_outputs, CallValue, InputRef, Takes,
};
use dh_content::schema::components::{ComponentCx, MapComponent, Mover, Teleport, Timer, Trigger};

// ---- helpers -----------------------------------------------------------------------------

/// Reads `text` as one `T` in build mode.
fn read<T: FromJson>(text: &str) -> (Option<T>, Diagnostics) {
    let file = SourceFile::new("t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse_source(&file, &mut d).expect("test text parses");
    let r = {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        T::from_json(&mut cx, &v)
    };
    (r, d)
}

fn messages(d: &Diagnostics) -> Vec<String> {
    d.items.iter().map(|i| i.message.clone()).collect()
}

fn only(d: &Diagnostics) -> &Diagnostic {
    assert_eq!(d.items.len(), 1, "expected one diagnostic, got:\n{d}");
    &d.items[0]
}

/// Reads one component and runs its own `validate` as record #`entity` of kind `object`.
fn validate_component(text: &str, entity: usize) -> Diagnostics {
    let file = SourceFile::new("t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse_source(&file, &mut d).expect("test text parses");
    {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        let c = MapComponent::from_json(&mut cx, &v).expect("component reads");
        let ccx = ComponentCx {
            entity,
            record_kind: "object".into(),
            ..ComponentCx::default()
        };
        c.validate(&mut cx, &ccx);
    }
    d
}

/// What [`check_records`] found besides diagnostics.
#[derive(Default, Debug)]
struct Checked {
    diags: Diagnostics,
    /// Call targets the text does not hold (the map-wide validator's "target exists" rule,
    /// which this file does not own).
    absent_targets: Vec<String>,
    /// Every call that resolved: (target, input as written, components reached).
    calls: Vec<(String, String, Vec<&'static str>)>,
}

/// Reads a list of object records written as the spec writes them (records separated by
/// commas, no brackets): each record's components, each component's own rules, the
/// object-level logic rules, and every connection through the signal table.
fn check_records(records: &str) -> Checked {
    let text = format!("[{records}]");
    let file = SourceFile::new("t.dh-map", text);
    let mut out = Checked::default();
    let root = parse_source(&file, &mut out.diags).expect("records parse");
    let records: Vec<Value> = root.as_array().expect("a list").to_vec();
    let names: Vec<String> = records
        .iter()
        .filter_map(|r| r.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .collect();
    let mut cx = Cx::new(&file, &mut out.diags, Mode::Build);
    // Components of every record first, so wires can look their targets up.
    let mut comps: Vec<Vec<MapComponent>> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let list = cx.at_index(i, |cx| {
            cx.at_key("components", |cx| match r.get("components") {
                Some(v) => Vec::<MapComponent>::from_json(cx, v).unwrap_or_default(),
                None => Vec::new(),
            })
        });
        comps.push(list);
    }
    for (i, r) in records.iter().enumerate() {
        let ccx = ComponentCx {
            entity: i,
            record_kind: "object".into(),
            // The slots the examples' boxes name (their map's materials table).
            material_slots: ["button", "door", "plate", "m"].map(String::from).to_vec(),
            ..ComponentCx::default()
        };
        for c in &comps[i] {
            c.validate(&mut cx, &ccx);
        }
        let id = r.get("id").and_then(|v| v.as_str());
        let carries = records
            .iter()
            .any(|o| id.is_some() && o.get("parent").and_then(|p| p.as_str()) == id);
        let named = |n: &str| names.iter().any(|m| m == n);
        let lcx = ObjectLogicCx {
            carries_something: carries,
            object_named: &named,
            local_position_of: &|_| None,
        };
        validate_object_logic(&mut cx, &comps[i], &ccx, &lcx);

        let types = component_types(&comps[i]);
        let Some(conns) = r.get("connections").and_then(|c| c.as_array()) else {
            continue;
        };
        for conn in conns {
            let output = conn.get("output").and_then(|o| o.as_str()).unwrap_or("");
            if let Err(m) = resolve_output(&types, output) {
                cx.error(conn.span, m);
            }
            for action in conn
                .get("actions")
                .and_then(|a| a.as_array())
                .unwrap_or(&[])
            {
                let Some(call) = action.get("call") else {
                    continue;
                };
                let target = call.get("target").and_then(|t| t.as_str()).unwrap_or("");
                let input = call.get("input").and_then(|t| t.as_str()).unwrap_or("");
                let param = call.get("param").and_then(|p| match p.kind {
                    dh_content::jsonc::Kind::Bool(b) => Some(b),
                    _ => None,
                });
                let value = call
                    .get("value")
                    .and_then(|v| CallValue::from_json(&mut cx, v));
                let Some(t) = records
                    .iter()
                    .position(|o| o.get("name").and_then(|n| n.as_str()) == Some(target))
                else {
                    out.absent_targets.push(target.to_string());
                    continue;
                };
                let ttypes = component_types(&comps[t]);
                match check_call(&ttypes, input, param, value.as_ref()) {
                    Ok(reached) => out.calls.push((
                        target.to_string(),
                        input.to_string(),
                        reached.iter().map(|r| r.component).collect(),
                    )),
                    Err(m) => cx.error(call.span, m),
                }
            }
        }
    }
    drop(cx);
    out
}

fn reached(types: &[&str], input: &str) -> Vec<&'static str> {
    resolve_input(types, input)
        .expect("input resolves")
        .iter()
        .map(|r| r.component)
        .collect()
}

// ---- the spec's examples, verbatim -------------------------------------------------------

/// Entity kinds: a button that toggles a sliding door.
#[test]
fn spec_example_door_button_and_sliding_door() {
    let c = check_records(
        r#"{ "$type": "object", "id": "abf7be4d-39ee-446d-b516-d75f5e630959", "name": "doorButton", "position": [-3, 1, 3],
  "components": [ { "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "button" }, { "$type": "dh.button" } ],
  "connections": [
    { "output": "onPressed", "actions": [ { "call": { "target": "slidingDoor", "input": "toggle" } } ] }
  ]
},
{ "$type": "object", "id": "83b16719-721a-41b9-a6da-95ffa14c09c8", "name": "slidingDoor", "position": [-3, 1, 7],
  "components": [ { "$type": "dh.box", "size": [2, 2, 0.3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.2, "duration": 1.2 } ] }"#,
    );
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    assert_eq!(
        c.calls,
        vec![(
            "slidingDoor".to_string(),
            "toggle".to_string(),
            vec!["dh.mover"]
        )]
    );
}

/// dh.trigger: a disabled trigger pad wired to a door.
#[test]
fn spec_example_lobby_pad_trigger() {
    let c = check_records(
        r#"{ "$type": "object", "id": "6b1f0e42-3ac9-4d58-9e07-2f5b8c1a4d33", "name": "lobbyPad", "position": [0, 0.05, 6],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1.5, 0.05, 1.5] } ] },
    { "$type": "dh.trigger", "enabled": false } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "lobbyDoor", "input": "open" } } ] },
    { "output": "onEndTouch",   "actions": [ { "delay": { "seconds": 2 } },
                                             { "call": { "target": "lobbyDoor", "input": "close" } } ] }
  ] }"#,
    );
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    // lobbyDoor is not in the example; the map-wide validator owns "target exists".
    assert_eq!(c.absent_targets, vec!["lobbyDoor", "lobbyDoor"]);
    // And open / close are a mover's inputs, so a door with a mover takes them.
    assert_eq!(reached(&["dh.box", "dh.mover"], "open"), vec!["dh.mover"]);
    assert_eq!(reached(&["dh.box", "dh.mover"], "close"), vec!["dh.mover"]);
}

/// dh.teleport: a trigger teleporter wired to its own teleport.
#[test]
fn spec_example_booth_teleporter() {
    let text = r#"{ "$type": "object", "id": "c0a5a1de-4f2b-4c0e-8e54-1d1b0b7f9a10", "name": "booth", "position": [0, 1, 0],
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
    { "$type": "dh.trigger" },
    { "$type": "dh.teleport", "destination": "boothExit", "velocity": "zero" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "booth", "input": "teleport" } } ] } ] }"#;
    // The example names boothExit, which a map around it holds: add one.
    let c = check_records(&format!(
        "{text},\n{{ \"$type\": \"object\", \"id\": \"0d8a3c61-2b7e-4f1a-9c55-3e6f7a8b9c0d\", \"name\": \"boothExit\" }}"
    ));
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    assert_eq!(
        c.calls,
        vec![(
            "booth".to_string(),
            "teleport".to_string(),
            vec!["dh.teleport"]
        )]
    );
    // Alone, the build refuses the destination that matches no object.
    let c = check_records(text);
    assert_eq!(
        messages(&c.diags),
        vec!["Map entity #0 (object dh.teleport) 'destination' names no object in the map: 'boothExit'"]
    );
}

/// Riding a door: a lift and the plate riding it.
#[test]
fn spec_example_lift_platform_and_plate() {
    let c = check_records(
        r#"{ "$type": "object", "id": "d620412a-45f8-4552-a3bb-f26ed646a774", "name": "liftPlatform", "position": [4, 0.1, -9],
  "components": [ { "$type": "dh.box", "size": [3, 0.2, 3], "material": "door" },
                  { "$type": "dh.mover", "direction": [0, 1, 0], "distance": 2.5, "duration": 2.5 } ] },
{ "$type": "object", "id": "5d3ee3d8-df8d-4499-9c58-8203745e3cdf", "name": "liftPlate",
  "parent": "d620412a-45f8-4552-a3bb-f26ed646a774", "position": [4, 0.25, -9],
  "components": [ { "$type": "dh.box", "size": [1.4, 0.1, 1.4], "material": "plate" }, { "$type": "dh.pressurePlate" } ],
  "connections": [
    { "output": "onStartTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "open" } } ] },
    { "output": "onEndTouch", "actions": [ { "call": { "target": "liftPlatform", "input": "close" } } ] }
  ] }"#,
    );
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    assert_eq!(c.calls.len(), 2);
}

/// Connections and the action list: the connections example, against a door with a mover
/// and a lamp with a light.
#[test]
fn spec_example_connections_action_list() {
    let (v, d) = read::<Value>(
        r#"{ "connections": [
  { "output": "onPressed", "actions": [
    { "call": { "target": "mainDoor", "input": "open" } },
    { "delay": { "seconds": 1.5 } },
    { "call": { "target": "lamp", "input": "turnOn" } }
  ] }
] }"#,
    );
    assert!(d.items.is_empty());
    let v = v.unwrap();
    let conn = &v.get("connections").unwrap().as_array().unwrap()[0];
    assert_eq!(
        resolve_output(
            &["dh.box", "dh.button"],
            conn.get("output").unwrap().as_str().unwrap()
        )
        .unwrap()
        .component,
        "dh.button"
    );
    let actions = conn.get("actions").unwrap().as_array().unwrap();
    let open = actions[0]
        .get("call")
        .unwrap()
        .get("input")
        .unwrap()
        .as_str()
        .unwrap();
    let turn_on = actions[2]
        .get("call")
        .unwrap()
        .get("input")
        .unwrap()
        .as_str()
        .unwrap();
    assert_eq!(
        check_call(&["dh.box", "dh.mover"], open, None, None)
            .unwrap()
            .iter()
            .map(|r| r.component)
            .collect::<Vec<_>>(),
        vec!["dh.mover"]
    );
    assert_eq!(
        check_call(&["dh.box", "dh.light"], turn_on, None, None)
            .unwrap()
            .iter()
            .map(|r| r.component)
            .collect::<Vec<_>>(),
        vec!["dh.light"]
    );
}

/// Switching and moving a volume: setTint with a color, setIntensity with a number.
#[test]
fn spec_example_probe_volume_tint_and_intensity() {
    let (v, d) = read::<Value>(
        r#"{ "output": "onPressed", "actions": [
  { "call": { "target": "roomProbes", "input": "setTint", "value": [1, 0.4, 0.4] } },
  { "call": { "target": "roomProbes", "input": "setIntensity", "value": 0.5 } }
] }"#,
    );
    assert!(d.items.is_empty());
    let v = v.unwrap();
    for (i, action) in v
        .get("actions")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let call = action.get("call").unwrap();
        let input = call.get("input").unwrap().as_str().unwrap();
        let (value, d) = read::<CallValue>(&call.get("value").unwrap().to_json());
        assert!(d.items.is_empty());
        let value = value.unwrap();
        assert_eq!(
            value,
            if i == 0 {
                CallValue::Color([1.0, 0.4, 0.4])
            } else {
                CallValue::Number(0.5)
            }
        );
        for volume in ["dh.lightProbeVolume", "dh.lightProbeGroup"] {
            let reached = check_call(&[volume], input, None, Some(&value)).unwrap();
            assert_eq!(reached[0].component, volume);
        }
    }
}

/// The object page: a door, a button and a plate as an object (their dh.mover and
/// dh.button entries read as the map's own components do).
#[test]
fn spec_example_object_door_movers_and_button() {
    let examples = [
        r#"{ "name": "Door", "components": [
  { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 } ] }"#,
        r#"{ "name": "Interactive Door", "inherits": "/objects/base/door.dh-obj", "components": [
  { "$type": "dh.button" },
  { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
        r#"{ "name": "Door", "components": [
  { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 },
  { "$type": "dh.voxelBlock" },
  { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0.40625, 1, 0], "halfExtents": [0.5, 1, 0.09375] } ] } ] }"#,
        r#"{ "$type": "instance", "name": "world/0:50,14,27", "parent": "<the volume's id>",
  "source": "com.mojang.minecraft:objects/oak_door.dh-obj",
  "components": [ { "$type": "dh.voxelBlock", "placement": "0:50,14,27" }, { "$type": "dh.mover", "angle": -90 } ],
  "connections": [ { "output": "onPressed", "actions": [ { "call": { "target": "world/0:50,14,27", "input": "mover.toggle" } } ] } ] }"#,
    ];
    let mut movers = Vec::new();
    for text in examples {
        let (v, d) = read::<Value>(text);
        assert!(d.items.is_empty());
        let v = v.unwrap();
        for c in v.get("components").unwrap().as_array().unwrap() {
            let ty = c.get("$type").unwrap().as_str().unwrap();
            if ty == "dh.mover" || ty == "dh.button" {
                let (comp, d) = read::<MapComponent>(&c.to_json());
                assert!(d.items.is_empty(), "{d}");
                let d = validate_component(&c.to_json(), 0);
                assert!(d.items.is_empty(), "{d}");
                if let Some(MapComponent::Mover(m)) = comp {
                    movers.push(m);
                }
            }
        }
    }
    assert_eq!(movers.len(), 3);
    assert_eq!(movers[0].motion(), Motion::Rotate);
    assert_eq!(movers[0].duration(), 0.01);
    assert_eq!(movers[2].motion(), Motion::Slide); // a delta: the source says rotate
    assert_eq!(movers[2].angle(), -90.0);
    // The generated instance's own toggle, qualified to its mover.
    assert_eq!(
        reached(&["dh.voxelBlock", "dh.mover"], "mover.toggle"),
        vec!["dh.mover"]
    );
}

// ---- schemas and defaults ----------------------------------------------------------------

#[test]
fn mover_defaults() {
    let (m, d) = read::<Mover>("{}");
    assert!(d.items.is_empty());
    let m = m.unwrap();
    assert_eq!(m.motion(), Motion::Slide);
    assert_eq!(m.direction(), Vec3([0.0, 1.0, 0.0]));
    assert_eq!(m.distance(), 2.0);
    assert_eq!(m.axis(), Vec3([0.0, 1.0, 0.0]));
    assert_eq!(m.angle(), 90.0);
    assert_eq!(m.rate(), 90.0);
    assert_eq!(m.duration(), 1.0);
    assert!(!m.start_open());
}

#[test]
fn mover_reads_every_field_and_writes_back() {
    let text = r#"{"$type":"dh.mover","motion":"spin","direction":[0,0,2],"distance":3,"axis":[1,0,0],"angle":-45,"rate":-30,"duration":2,"startOpen":true}"#;
    let (c, d) = read::<MapComponent>(text);
    assert!(d.items.is_empty(), "{d}");
    let c = c.unwrap();
    let MapComponent::Mover(m) = &c else {
        panic!("not a mover")
    };
    assert_eq!(m.motion(), Motion::Spin);
    assert_eq!(m.direction_normalized(), Some(Vec3([0.0, 0.0, 1.0])));
    assert_eq!(m.distance(), 3.0);
    assert_eq!(m.axis_normalized(), Some(Vec3([1.0, 0.0, 0.0])));
    assert_eq!(m.angle(), -45.0);
    assert_eq!(m.rate(), -30.0);
    assert_eq!(m.duration(), 2.0);
    assert!(m.start_open());
    assert_eq!(c.to_json().to_json(), text);
}

#[test]
fn mover_field_set_is_closed() {
    // The old door's field names are not a mover's.
    let (_, d) = read::<MapComponent>(r#"{"$type":"dh.mover","moveDistance":2}"#);
    assert_eq!(
        only(&d).message,
        "unknown member 'moveDistance' in dh.mover; the fields of dh.mover are: motion, direction, distance, axis, angle, rate, duration, startOpen"
    );
}

#[test]
fn mover_motion_unknown_lists_the_motions() {
    let (_, d) = read::<MapComponent>(r#"{"$type":"dh.mover","motion":"swing"}"#);
    let e = only(&d);
    assert_eq!(
        e.message,
        "'swing' is not a valid mover motion; expected one of: slide, rotate, spin"
    );
    assert_eq!((e.line, e.col), (1, 30));
}

#[test]
fn fieldless_components_hold_no_fields_at_all() {
    for ty in [
        "dh.button",
        "dh.pressurePlate",
        "dh.mapStart",
        "dh.andGate",
        "dh.orGate",
        "dh.notGate",
    ] {
        let (c, d) = read::<MapComponent>(&format!(r#"{{"$type":"{ty}"}}"#));
        assert!(d.items.is_empty() && c.is_some(), "{ty}: {d}");
        let (_, d) = read::<MapComponent>(&format!(r#"{{"$type":"{ty}","cooldown":0.5}}"#));
        assert_eq!(
            only(&d).message,
            format!("unknown member 'cooldown' in {ty}: {ty} holds no fields at all")
        );
    }
}

#[test]
fn trigger_fields_defaults_and_tokens() {
    let (t, d) = read::<Trigger>("{}");
    assert!(d.items.is_empty());
    let t = t.unwrap();
    assert!(t.enabled());
    assert_eq!(t.touched_by(), TouchedBy::Players);
    let (t, d) = read::<Trigger>(r#"{"enabled":false,"touchedBy":"everything"}"#);
    assert!(d.items.is_empty());
    let t = t.unwrap();
    assert!(!t.enabled());
    assert_eq!(t.touched_by(), TouchedBy::Everything);
    let (_, d) = read::<Trigger>(r#"{"touchedBy":"npcs"}"#);
    assert_eq!(
        only(&d).message,
        "'npcs' is not a valid trigger touchedBy; expected one of: players, props, everything"
    );
    let (_, d) = read::<MapComponent>(r#"{"$type":"dh.trigger","radius":1}"#);
    assert_eq!(
        only(&d).message,
        "unknown member 'radius' in dh.trigger; the fields of dh.trigger are: enabled, touchedBy"
    );
}

#[test]
fn teleport_fields_defaults_and_tokens() {
    let (t, d) = read::<Teleport>("{}");
    assert!(d.items.is_empty());
    let t = t.unwrap();
    assert_eq!(t.destination(), None);
    assert_eq!(t.landmark(), None);
    assert_eq!(t.subject(), None);
    assert_eq!(t.facing(), Facing::Destination);
    assert_eq!(t.velocity(), TeleportVelocity::Keep);
    let (t, d) = read::<Teleport>(
        r#"{"destination":"exit","landmark":"entry","facing":"turn","velocity":"turn","subject":""}"#,
    );
    assert!(d.items.is_empty());
    let t = t.unwrap();
    assert_eq!(t.destination(), Some("exit"));
    assert_eq!(t.landmark(), Some("entry"));
    assert_eq!(t.subject(), None);
    assert_eq!(t.facing(), Facing::Turn);
    assert_eq!(t.velocity(), TeleportVelocity::Turn);
    let (_, d) = read::<Teleport>(r#"{"facing":"north","velocity":"stop"}"#);
    assert_eq!(
        messages(&d),
        vec![
            "'north' is not a valid teleport facing; expected one of: destination, keep, turn",
            "'stop' is not a valid teleport velocity; expected one of: keep, zero, turn",
        ]
    );
    let (_, d) = read::<MapComponent>(r#"{"$type":"dh.teleport","target":"x"}"#);
    assert_eq!(
        only(&d).message,
        "unknown member 'target' in dh.teleport; the fields of dh.teleport are: destination, landmark, facing, velocity, subject"
    );
}

#[test]
fn timer_default_and_field_set() {
    let (t, d) = read::<Timer>("{}");
    assert!(d.items.is_empty());
    assert_eq!(t.unwrap().delay_seconds(), 1.0);
    let (t, _) = read::<Timer>(r#"{"delaySeconds":0.25}"#);
    assert_eq!(t.unwrap().delay_seconds(), 0.25);
    let (_, d) = read::<MapComponent>(r#"{"$type":"dh.timer","delay":1}"#);
    assert_eq!(
        only(&d).message,
        "unknown member 'delay' in dh.timer; the fields of dh.timer are: delaySeconds; did you mean `delaySeconds`?"
    );
}

// ---- the components' own rules -----------------------------------------------------------

#[test]
fn mover_zero_direction_is_refused() {
    let d = validate_component(r#"{"$type":"dh.mover","direction":[0,0,0]}"#, 3);
    let e = only(&d);
    assert_eq!(
        e.message,
        "Map entity #3 (object dh.mover) 'direction' must not be zero (a slide's direction is normalized when read)"
    );
    assert_eq!((e.line, e.col), (1, 33));
    assert!(
        validate_component(r#"{"$type":"dh.mover","direction":[0,0,-5]}"#, 3)
            .items
            .is_empty()
    );
}

#[test]
fn mover_zero_axis_is_refused() {
    let d = validate_component(
        r#"{"$type":"dh.mover","motion":"rotate","axis":[0,0,0]}"#,
        2,
    );
    assert_eq!(
        only(&d).message,
        "Map entity #2 (object dh.mover) 'axis' must not be zero (the axis is normalized when read)"
    );
}

#[test]
fn mover_distance_must_be_above_zero() {
    for bad in ["0", "-1"] {
        let d = validate_component(&format!(r#"{{"$type":"dh.mover","distance":{bad}}}"#), 1);
        assert_eq!(
            only(&d).message,
            format!("Map entity #1 (object dh.mover) 'distance' must be above zero, found {bad}")
        );
    }
    assert!(
        validate_component(r#"{"$type":"dh.mover","distance":0.01}"#, 1)
            .items
            .is_empty()
    );
}

#[test]
fn mover_zero_angle_is_refused_negative_turns_the_other_way() {
    let d = validate_component(r#"{"$type":"dh.mover","motion":"rotate","angle":0}"#, 5);
    assert_eq!(
        only(&d).message,
        "Map entity #5 (object dh.mover) 'angle' must not be zero (a negative angle turns the other way)"
    );
    assert!(
        validate_component(r#"{"$type":"dh.mover","motion":"rotate","angle":-90}"#, 5)
            .items
            .is_empty()
    );
}

#[test]
fn mover_zero_rate_is_refused_negative_turns_the_other_way() {
    let d = validate_component(r#"{"$type":"dh.mover","motion":"spin","rate":0}"#, 0);
    assert_eq!(
        only(&d).message,
        "Map entity #0 (object dh.mover) 'rate' must not be zero (a negative rate turns the other way)"
    );
    assert!(
        validate_component(r#"{"$type":"dh.mover","motion":"spin","rate":-360}"#, 0)
            .items
            .is_empty()
    );
}

#[test]
fn mover_duration_must_be_above_zero() {
    let d = validate_component(r#"{"$type":"dh.mover","duration":0}"#, 4);
    let e = only(&d);
    assert_eq!(
        e.message,
        "Map entity #4 (object dh.mover) 'duration' must be above zero, found 0"
    );
    assert_eq!(e.path, "");
    assert_eq!((e.line, e.col), (1, 32));
}

#[test]
fn timer_negative_delay_is_refused() {
    let d = validate_component(r#"{"$type":"dh.timer","delaySeconds":-1}"#, 6);
    assert_eq!(
        only(&d).message,
        "Map entity #6 (object dh.timer) 'delaySeconds' must be zero or more, found -1"
    );
    assert!(
        validate_component(r#"{"$type":"dh.timer","delaySeconds":0}"#, 6)
            .items
            .is_empty()
    );
}

// ---- bodies ------------------------------------------------------------------------------

const MOVER_ID: &str = "11111111-2222-4333-8444-555555555555";

#[test]
fn mover_collider_with_two_shapes_is_refused_by_name() {
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "door",
  "components": [
    { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [1, 1, 0.1] },
                                        { "type": "box", "halfExtents": [0.1, 1, 1] } ] },
    { "$type": "dh.mover" } ] }"#,
    );
    let e = only(&c.diags);
    assert_eq!(
        e.message,
        "'dh.mover' needs exactly one shape in its object's 'dh.collider', which holds 2"
    );
    assert_eq!(e.path, "[0].components[1]");
    assert_eq!((e.line, e.col), (5, 5));
}

#[test]
fn button_on_a_sphere_is_refused() {
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "knob",
  "components": [
    { "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": 0.2 } ] },
    { "$type": "dh.button" } ] }"#,
    );
    assert_eq!(
        messages(&c.diags),
        vec!["'dh.button' needs a box shape in its object's 'dh.collider', which holds a sphere"]
    );
}

#[test]
fn plate_and_trigger_with_empty_collider_are_refused() {
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "pad",
  "components": [
    { "$type": "dh.collider", "state": "trigger", "shapes": [] },
    { "$type": "dh.pressurePlate" }, { "$type": "dh.trigger" } ] }"#,
    );
    assert_eq!(
        messages(&c.diags),
        vec![
            "'dh.pressurePlate' needs exactly one shape in its object's 'dh.collider', which holds 0",
            "'dh.trigger' needs exactly one shape in its object's 'dh.collider', which holds 0",
        ]
    );
}

#[test]
fn bodiless_mover_carrying_nothing_is_refused() {
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "hinge",
  "components": [ { "$type": "dh.mover", "motion": "rotate" } ] }"#,
    );
    let e = only(&c.diags);
    assert_eq!(e.message, "'dh.mover' has no body and carries nothing");
    assert_eq!(e.severity, Severity::Error);
}

#[test]
fn bodiless_mover_carrying_a_child_is_valid_but_a_button_beside_it_needs_a_body() {
    let child = format!(
        r#"{{ "$type": "object", "id": "aaaaaaaa-2222-4333-8444-555555555555", "name": "doorBrush", "parent": "{MOVER_ID}",
  "components": [ {{ "$type": "dh.box", "size": [2, 2, 0.2], "material": "door" }} ] }}"#
    );
    let c = check_records(&format!(
        r#"{{ "$type": "object", "id": "{MOVER_ID}", "name": "hinge",
  "components": [ {{ "$type": "dh.mover", "motion": "rotate" }} ] }},
{child}"#
    ));
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    let c = check_records(&format!(
        r#"{{ "$type": "object", "id": "{MOVER_ID}", "name": "hinge",
  "components": [ {{ "$type": "dh.mover", "motion": "rotate" }}, {{ "$type": "dh.button" }} ] }},
{child}"#
    ));
    assert_eq!(
        messages(&c.diags),
        vec!["'dh.button' has no body: its object carries neither a 'dh.box' nor a 'dh.collider' holding one box shape"]
    );
}

#[test]
fn a_box_gives_its_logic_the_exact_body_and_an_auto_shape_stands_as_it() {
    // dh.box alone: the generated exact box.
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "b",
  "components": [ { "$type": "dh.box", "size": [1, 2, 4], "material": "m" }, { "$type": "dh.button" } ] }"#,
    );
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    // A collider that writes no shapes beside a box stands as the box itself.
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "pad",
  "components": [ { "$type": "dh.box", "size": [1, 0.1, 1], "material": "m" },
                  { "$type": "dh.collider", "state": "trigger" }, { "$type": "dh.trigger" } ] }"#,
    );
    assert!(c.diags.items.is_empty(), "{}", c.diags);
    // An auto shape beside a box is that box; with no box it stands as nothing.
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "b",
  "components": [ { "$type": "dh.collider", "shapes": [ { "type": "auto" } ] }, { "$type": "dh.pressurePlate" } ] }"#,
    );
    assert_eq!(
        messages(&c.diags),
        vec!["'dh.pressurePlate' needs a box shape in its object's 'dh.collider', which holds an auto shape with no 'dh.box' beside it to stand as"]
    );
}

#[test]
fn body_one_box_reads_the_shapes() {
    let (b, _) = read::<Value>(r#"{"size":[2,4,6]}"#);
    let (c, _) =
        read::<Value>(r#"{"shapes":[{"type":"box","center":[0,1,0],"halfExtents":[1,1,1]}]}"#);
    let (b, c) = (b.unwrap(), c.unwrap());
    assert_eq!(
        Body::from_json(Some(&b), None).one_box(),
        Ok((Vec3::ZERO, Vec3([1.0, 2.0, 3.0])))
    );
    assert_eq!(
        Body::from_json(Some(&b), Some(&c)).one_box(),
        Ok((Vec3([0.0, 1.0, 0.0]), Vec3::ONE))
    );
    let (caps, _) = read::<Value>(r#"{"shapes":[{"type":"capsule"}]}"#);
    assert_eq!(
        Body::from_json(None, caps.as_ref()).one_box(),
        Err(BodyProblem::NotABox("capsule".into()))
    );
}

// ---- teleport rules ----------------------------------------------------------------------

fn teleporter(components: &str, located: Option<Vec3>, known: &[&str]) -> Diagnostics {
    let text = format!("[{components}]");
    let file = SourceFile::new("t.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse_source(&file, &mut d).unwrap();
    {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        let comps = Vec::<MapComponent>::from_json(&mut cx, &v).unwrap();
        let ccx = ComponentCx {
            entity: 7,
            record_kind: "object".into(),
            ..ComponentCx::default()
        };
        let named = |n: &str| known.contains(&n);
        let at = move |_: &str| located;
        let lcx = ObjectLogicCx {
            carries_something: false,
            object_named: &named,
            local_position_of: &at,
        };
        validate_object_logic(&mut cx, &comps, &ccx, &lcx);
    }
    d
}

#[test]
fn teleport_destination_matching_no_object_is_refused() {
    let d = teleporter(
        r#"{ "$type": "dh.teleport", "destination": "nowhere" }"#,
        None,
        &[],
    );
    let e = only(&d);
    assert_eq!(
        e.message,
        "Map entity #7 (object dh.teleport) 'destination' names no object in the map: 'nowhere'"
    );
    assert_eq!(e.severity, Severity::Error);
    assert_eq!(e.path, "[0]");
    assert_eq!((e.line, e.col), (1, 43));
    assert!(teleporter(
        r#"{ "$type": "dh.teleport", "destination": "exit" }"#,
        None,
        &["exit"]
    )
    .items
    .is_empty());
}

#[test]
fn teleport_landmark_or_subject_matching_no_object_is_warned() {
    let d = teleporter(
        r#"{ "$type": "dh.teleport", "landmark": "gone", "subject": "crate" }"#,
        None,
        &[],
    );
    assert_eq!(
        messages(&d),
        vec![
            "Map entity #7 (object dh.teleport) 'landmark' names no object in the map: 'gone'",
            "Map entity #7 (object dh.teleport) 'subject' names no object in the map: 'crate'",
        ]
    );
    assert!(d.items.iter().all(|i| i.severity == Severity::Warning));
}

#[test]
fn teleport_destination_inside_its_own_trigger_is_warned() {
    let pad = r#"{ "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
    { "$type": "dh.trigger" },"#;
    // The destination stands half a meter off the pad's center: inside.
    let d = teleporter(
        &format!(r#"{pad} {{ "$type": "dh.teleport", "destination": "exit" }}"#),
        Some(Vec3([0.5, 0.0, 0.0])),
        &["exit"],
    );
    let e = only(&d);
    assert_eq!(e.severity, Severity::Warning);
    assert_eq!(
        e.message,
        "Map entity #7 (object dh.teleport) destination 'exit' lies inside the teleporter's own trigger volume, which is a loop on every tick"
    );
    // Outside: nothing.
    assert!(teleporter(
        &format!(r#"{pad} {{ "$type": "dh.teleport", "destination": "exit" }}"#),
        Some(Vec3([0.0, 5.0, 0.0])),
        &["exit"],
    )
    .items
    .is_empty());
    // Empty destination is this object: its own origin, inside its own pad.
    let d = teleporter(&format!(r#"{pad} {{ "$type": "dh.teleport" }}"#), None, &[]);
    assert_eq!(
        only(&d).message,
        "Map entity #7 (object dh.teleport) destination (empty: this object) lies inside the teleporter's own trigger volume, which is a loop on every tick"
    );
    // A teleport with no trigger of its own has no volume to loop in.
    assert!(teleporter(r#"{ "$type": "dh.teleport" }"#, None, &[])
        .items
        .is_empty());
}

// ---- the signal table --------------------------------------------------------------------

#[test]
fn signal_table_states_the_entity_kinds_table() {
    let io = |t: &str| {
        let s = signals_of(t).unwrap();
        (
            s.inputs
                .iter()
                .map(|i| (i.name, i.takes))
                .collect::<Vec<_>>(),
            s.outputs.to_vec(),
        )
    };
    use Takes::*;
    assert_eq!(io("dh.button"), (vec![], vec!["onPressed"]));
    assert_eq!(
        io("dh.mover"),
        (
            vec![("open", Nothing), ("close", Nothing), ("toggle", Nothing)],
            vec!["onOpened", "onClosed"]
        )
    );
    assert_eq!(
        io("dh.pressurePlate"),
        (vec![], vec!["onStartTouch", "onEndTouch"])
    );
    assert_eq!(
        io("dh.trigger"),
        (
            vec![
                ("enable", Nothing),
                ("disable", Nothing),
                ("toggle", Nothing)
            ],
            vec!["onStartTouch", "onEndTouch"]
        )
    );
    assert_eq!(io("dh.mapStart"), (vec![], vec!["onMapStart"]));
    assert_eq!(io("dh.teleport"), (vec![("teleport", Nothing)], vec![]));
    assert_eq!(io("dh.timer"), (vec![("fire", Nothing)], vec!["onTimer"]));
    for gate in ["dh.andGate", "dh.orGate"] {
        assert_eq!(
            io(gate),
            (
                vec![("setA", Level), ("setB", Level)],
                vec!["onTrue", "onFalse"]
            )
        );
    }
    assert_eq!(
        io("dh.notGate"),
        (vec![("setA", Level)], vec!["onTrue", "onFalse"])
    );
    assert_eq!(io("dh.physicsProp"), (vec![], vec![]));
    assert_eq!(
        io("dh.light"),
        (
            vec![
                ("turnOn", Nothing),
                ("turnOff", Nothing),
                ("toggle", Nothing)
            ],
            vec![]
        )
    );
    for volume in ["dh.lightProbeVolume", "dh.lightProbeGroup"] {
        assert_eq!(
            io(volume),
            (
                vec![
                    ("turnOn", Nothing),
                    ("turnOff", Nothing),
                    ("toggle", Nothing),
                    ("setTint", Color),
                    ("setIntensity", Number)
                ],
                vec![]
            )
        );
    }
    assert_eq!(io("dh.voxelVolume"), (vec![], vec![]));
    assert!(signals_of("dh.box").is_none());
    assert!(signals_of("dh.collider").is_none());
}

#[test]
fn plain_output_declared_twice_is_refused_with_the_qualified_forms() {
    let types = ["dh.andGate", "dh.orGate"];
    let err = resolve_output(&types, "onTrue").unwrap_err();
    assert_eq!(
        err,
        "output 'onTrue' is declared by both 'dh.andGate' and 'dh.orGate' on this object. Qualify it with the component that fires it: 'andGate.onTrue' or 'orGate.onTrue'"
    );
    assert!(err.contains(
        "Qualify it with the component that fires it: 'andGate.onTrue' or 'orGate.onTrue'"
    ));
    let r = resolve_output(&types, "orGate.onTrue").unwrap();
    assert_eq!((r.component, r.output), ("dh.orGate", "onTrue"));
    let r = resolve_output(&types, "andGate.onFalse").unwrap();
    assert_eq!((r.component, r.output), ("dh.andGate", "onFalse"));
    assert_eq!(
        wireable_outputs(&types),
        vec![
            "andGate.onTrue",
            "andGate.onFalse",
            "orGate.onTrue",
            "orGate.onFalse"
        ]
    );
}

#[test]
fn plain_output_declared_once_resolves_and_may_also_be_qualified() {
    let types = ["dh.box", "dh.button", "dh.mover"];
    let r = resolve_output(&types, "onPressed").unwrap();
    assert_eq!((r.component, r.output), ("dh.button", "onPressed"));
    let r = resolve_output(&types, "mover.onOpened").unwrap();
    assert_eq!((r.component, r.output), ("dh.mover", "onOpened"));
    assert_eq!(
        wireable_outputs(&types),
        vec!["onPressed", "onOpened", "onClosed"]
    );
}

#[test]
fn output_no_component_declares_is_refused_naming_who_fires_it() {
    // A box whose collider is a trigger declares nothing: wiring it names dh.trigger.
    let err = resolve_output(&["dh.box", "dh.collider"], "onStartTouch").unwrap_err();
    assert_eq!(
        err,
        "output 'onStartTouch' is not declared by any component of this object (it carries dh.box, dh.collider); it fires no outputs; 'onStartTouch' is fired by 'dh.pressurePlate' or 'dh.trigger', which the object does not carry"
    );
    let err = resolve_output(&["dh.box", "dh.mover"], "onFullyOpen").unwrap_err();
    assert_eq!(
        err,
        "output 'onFullyOpen' is not declared by any component of this object (it carries dh.box, dh.mover); its outputs are: onOpened, onClosed; a door's 'onFullyOpen' is a mover's 'onOpened' now"
    );
}

#[test]
fn qualified_output_naming_a_missing_component_or_signal_is_refused() {
    let types = ["dh.box", "dh.button"];
    assert_eq!(
        resolve_output(&types, "mover.onOpened").unwrap_err(),
        "output 'mover.onOpened' names the component 'dh.mover', which this object does not carry (it carries dh.box, dh.button); its outputs are: onPressed"
    );
    assert_eq!(
        resolve_output(&types, "button.onReleased").unwrap_err(),
        "output 'button.onReleased': 'dh.button' declares no output 'onReleased'; its outputs are: onPressed"
    );
}

#[test]
fn plain_input_reaches_every_component_that_declares_it() {
    // lamp.toggle on an object carrying a light and a mover toggles both.
    assert_eq!(
        reached(&["dh.box", "dh.light", "dh.mover"], "toggle"),
        vec!["dh.light", "dh.mover"]
    );
    // lamp.mover.toggle reaches the mover alone.
    assert_eq!(
        reached(&["dh.box", "dh.light", "dh.mover"], "mover.toggle"),
        vec!["dh.mover"]
    );
}

#[test]
fn input_the_target_does_not_declare_is_refused() {
    assert_eq!(
        resolve_input(&["dh.box", "dh.mover"], "turnOn").unwrap_err(),
        "input 'turnOn' is not declared by any component of the target (it carries dh.box, dh.mover); its inputs are: open, close, toggle; 'turnOn' is taken by 'dh.light', 'dh.lightProbeVolume' or 'dh.lightProbeGroup', which the target does not carry"
    );
    assert_eq!(
        resolve_input(&["dh.box", "dh.button"], "press").unwrap_err(),
        "input 'press' is not declared by any component of the target (it carries dh.box, dh.button); it takes no inputs, so no call can reach it"
    );
    assert_eq!(
        resolve_input(&["dh.light"], "mover.toggle").unwrap_err(),
        "input 'mover.toggle' names the component 'dh.mover', which the target does not carry (it carries dh.light); its inputs are: turnOn, turnOff, toggle"
    );
    assert_eq!(
        resolve_input(&["dh.mover"], "mover.turnOn").unwrap_err(),
        "input 'mover.turnOn': 'dh.mover' declares no input 'turnOn'; its inputs are: open, close, toggle"
    );
}

#[test]
fn level_input_needs_a_param_and_others_refuse_one() {
    assert_eq!(
        check_call(&["dh.andGate"], "setA", None, None).unwrap_err(),
        "input 'setA' takes a level: the call needs a boolean 'param' (true or false)"
    );
    assert!(check_call(&["dh.andGate"], "setB", Some(false), None).is_ok());
    assert_eq!(
        check_call(&["dh.mover"], "open", Some(true), None).unwrap_err(),
        "input 'open' takes no 'param'; only an input that takes a level does"
    );
}

#[test]
fn value_inputs_need_a_value_of_their_shape() {
    let v = ["dh.lightProbeVolume"];
    assert_eq!(
        check_call(&v, "setIntensity", None, None).unwrap_err(),
        "input 'setIntensity' takes a number: the call needs a 'value' that is one number"
    );
    assert_eq!(
        check_call(&v, "setTint", None, None).unwrap_err(),
        "input 'setTint' takes a color: the call needs a 'value' of three sRGB values [r, g, b] in [0, 1]"
    );
    assert_eq!(
        check_call(&v, "setTint", None, Some(&CallValue::Number(0.5))).unwrap_err(),
        "input 'setTint' takes a color [r, g, b] as its 'value', not a number"
    );
    assert_eq!(
        check_call(
            &v,
            "setIntensity",
            None,
            Some(&CallValue::Color([1.0, 1.0, 1.0]))
        )
        .unwrap_err(),
        "input 'setIntensity' takes a number as its 'value', not a color [r, g, b]"
    );
    assert_eq!(
        check_call(
            &v,
            "setTint",
            None,
            Some(&CallValue::Color([1.0, 1.5, 0.0]))
        )
        .unwrap_err(),
        "input 'setTint' takes a color of three sRGB values in [0, 1]; its 'value' holds 1.5"
    );
    assert_eq!(
        check_call(&["dh.light"], "toggle", None, Some(&CallValue::Number(1.0))).unwrap_err(),
        "input 'toggle' takes no 'value'; only an input that takes a number or a color does"
    );
    assert_eq!(
        check_call(
            &v,
            "setIntensity",
            Some(true),
            Some(&CallValue::Number(2.0))
        )
        .unwrap_err(),
        "input 'setIntensity' takes no 'param'; only an input that takes a level does"
    );
}

#[test]
fn check_args_refuses_a_plain_name_reaching_inputs_of_different_shapes() {
    // No two inputs of one name differ in the spec's table; the rule still has to hold.
    let level = signals_of("dh.andGate").unwrap().input("setA").unwrap();
    let color = signals_of("dh.lightProbeVolume")
        .unwrap()
        .input("setTint")
        .unwrap();
    let refs = [
        InputRef {
            component: "dh.andGate",
            input: level,
        },
        InputRef {
            component: "dh.lightProbeVolume",
            input: color,
        },
    ];
    let err = check_args("x", &refs, Some(true), None).unwrap_err();
    assert!(
        err.ends_with(
            "qualify it with the component it is for: 'andGate.x' or 'lightProbeVolume.x'"
        ),
        "{err}"
    );
}

#[test]
fn call_value_reads_a_number_or_a_color() {
    let (v, d) = read::<CallValue>("0.5");
    assert!(d.items.is_empty());
    assert_eq!(v, Some(CallValue::Number(0.5)));
    let (v, _) = read::<CallValue>("[1, 0.4, 0.4]");
    let v = v.unwrap();
    assert_eq!(v, CallValue::Color([1.0, 0.4, 0.4]));
    assert_eq!(v.to_json().to_json(), "[1,0.4,0.4]");
    let (_, d) = read::<CallValue>("[1, 0.4]");
    assert_eq!(
        only(&d).message,
        "expected exactly three numbers, found 2 items"
    );
    let (_, d) = read::<CallValue>(r#""red""#);
    assert_eq!(
        only(&d).message,
        "expected a number or a color [r, g, b], found a string"
    );
}

#[test]
fn a_wire_in_a_map_is_checked_end_to_end() {
    // An and gate and an or gate on one object: a plain onTrue is refused at the wire.
    let c = check_records(
        r#"{ "$type": "object", "id": "11111111-2222-4333-8444-555555555555", "name": "logic",
  "components": [ { "$type": "dh.andGate" }, { "$type": "dh.orGate" } ],
  "connections": [
    { "output": "onTrue", "actions": [ { "call": { "target": "logic", "input": "setA" } } ] },
    { "output": "orGate.onTrue", "actions": [ { "call": { "target": "logic", "input": "orGate.setB", "param": true } } ] }
  ] }"#,
    );
    assert_eq!(
        messages(&c.diags),
        vec![
            "output 'onTrue' is declared by both 'dh.andGate' and 'dh.orGate' on this object. Qualify it with the component that fires it: 'andGate.onTrue' or 'orGate.onTrue'",
            "input 'setA' takes a level: the call needs a boolean 'param' (true or false)",
        ]
    );
    assert_eq!(c.diags.items[0].line, 4);
    assert_eq!(
        c.calls,
        vec![(
            "logic".to_string(),
            "orGate.setB".to_string(),
            vec!["dh.orGate"]
        )]
    );
}
