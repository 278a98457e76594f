//! Installing maps: object placements through the merge rule, placed logic entities, the
//! hierarchy's errors, and switching records off and on.

mod common;

use common::*;
use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::read::parse_source;
use dh_sims::{
    Body, BodyRole, Collider, ColliderShape, DhBox, Input, InstallError, Mover, ObjectInstance,
    PawnId, PhysicsProp, RecordIndex, ResolvedObject, SimWorld,
};

fn json(text: &str) -> dh_content::jsonc::Value {
    let file = SourceFile::new("object.dh-obj", text);
    let mut diags = Diagnostics::new();
    parse_source(&file, &mut diags).expect("the object parses")
}

/// A door object (a slide mover with a button on its root and a box body) and a crate.
fn objects(source: &str) -> Option<ResolvedObject> {
    let text = if source.ends_with("door.dh-obj") {
        r#"{ "components": [
              { "$type": "dh.box", "size": [1, 2, 0.2], "material": "/materials/door.dh-mat" },
              { "$type": "dh.mover", "direction": [1, 0, 0], "distance": 1, "duration": 0.25 },
              { "$type": "dh.button" },
              { "$type": "dh.renderer" } ] }"#
    } else if source.ends_with("crate.dh-obj") {
        r#"{ "components": [
              { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate.dh-mat" },
              { "$type": "dh.collider" },
              { "$type": "dh.physicsProp", "mass": 30 } ] }"#
    } else {
        return None;
    };
    Some(ResolvedObject::from_object_json(
        format!("test:{}", source.trim_start_matches('/')),
        &json(text),
    ))
}

const MAP: &str = r#"{
  "materials": { "m": "/materials/m.dh-mat", "blue": "/materials/crate-blue.dh-mat" },
  "objects": [
    { "$type": "instance", "id": "00000000-0000-4000-8000-000000000001", "name": "doorA", "source": "/objects/door.dh-obj",
      "position": [0, 1, 0],
      "connections": [ { "output": "onPressed", "actions": [ { "call": { "target": "doorA", "input": "mover.toggle" } } ] } ] },
    { "$type": "instance", "id": "00000000-0000-4000-8000-000000000002", "name": "doorB", "source": "/objects/door.dh-obj",
      "position": [5, 1, 0], "components": [ { "$type": "dh.mover", "distance": 2 } ] },
    { "$type": "instance", "id": "00000000-0000-4000-8000-000000000003", "name": "scenery", "source": "/objects/crate.dh-obj",
      "position": [0, 0.25, 3],
      "components": [ { "$type": "dh.physicsProp", "removed": true }, { "$type": "dh.box", "material": "/materials/crate-blue.dh-mat" } ] },
    { "$type": "instance", "id": "00000000-0000-4000-8000-000000000004", "name": "crate", "source": "/objects/crate.dh-obj",
      "position": [2, 0.25, 3], "components": [ { "$type": "dh.physicsProp", "mass": 12 } ] }
  ]
}"#;

#[test]
fn placements_merge_their_components_over_the_object() {
    let sim = SimWorld::install(&map_from("test.dh-map", MAP), &objects).unwrap();
    // The instance's mover states only its distance; the rest is the object's.
    let b = sim.get_named::<Mover>("doorB").unwrap();
    match b.motion {
        dh_sims::Motion::Slide {
            direction,
            distance,
        } => {
            assert_eq!(direction.to_array(), [1.0, 0.0, 0.0]);
            assert_eq!(distance, 2.0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(b.duration, 0.25);
    // removed: true drops the prop; the box keeps its size and takes the blue material,
    // which the map's own "blue" slot references.
    assert!(sim.get_named::<PhysicsProp>("scenery").is_none());
    let bx = sim.get_named::<DhBox>("scenery").unwrap();
    assert_eq!(bx.size.to_array(), [0.5, 0.5, 0.5]);
    assert_eq!(bx.material, sim.materials().slot("blue").unwrap());
    assert_eq!(
        sim.get_named::<Body>("scenery").unwrap().role,
        BodyRole::Static
    );
    // The crate keeps its prop at the placement's mass; its empty collider is its box.
    assert_eq!(
        sim.get_named::<PhysicsProp>("crate").unwrap().mass,
        Some(12.0)
    );
    let col = sim.get_named::<Collider>("crate").unwrap();
    match col.shapes.as_slice() {
        [ColliderShape::Box { half_extents, .. }] => assert_eq!(half_extents.to_array(), [0.25; 3]),
        other => panic!("{other:?}"),
    }
    // An object's material that no slot references becomes a slot of its own.
    let door_box = sim.get_named::<DhBox>("doorA").unwrap();
    assert_eq!(
        sim.materials().name(door_box.material),
        Some("/materials/door.dh-mat")
    );
    // What the simulation has no form for is kept for the systems that read it.
    let inst = sim.get_named::<ObjectInstance>("doorA").unwrap();
    assert_eq!(inst.source, "test:objects/door.dh-obj");
    assert_eq!(inst.other_components.len(), 1);
}

#[test]
fn a_placed_door_is_its_own_node_wired_by_its_own_name() {
    let mut sim = SimWorld::install(&map_from("test.dh-map", MAP), &objects).unwrap();
    let pawns = FakePawns::new();
    let a = sim.entity_named("doorA").unwrap();
    sim.tick(
        &[Input::Use {
            pawn: PawnId(1),
            target_entity: a,
        }],
        &pawns,
    );
    assert_eq!(
        lines_at(&sim, 0),
        ["doorA fired onPressed -> doorA.mover.toggle"]
    );
    // 0.25 s is 16 ticks: 1/16 m a tick along +X. Only the pressed copy moves.
    for _ in 0..8 {
        sim.tick(&[], &pawns);
    }
    assert_eq!(
        sim.pose_of("doorA").unwrap().position.to_array(),
        [0.5, 1.0, 0.0]
    );
    assert_eq!(
        sim.pose_of("doorB").unwrap().position.to_array(),
        [5.0, 1.0, 0.0]
    );
}

#[test]
fn install_errors_name_the_record() {
    let missing = r#"{ "objects": [
        { "$type": "instance", "id": "00000000-0000-4000-8000-000000000001", "source": "/objects/ghost.dh-obj" } ] }"#;
    assert_eq!(
        SimWorld::install(&map_from("a.dh-map", missing), &objects).unwrap_err(),
        InstallError::UnresolvedSource {
            entity: 0,
            placed: "/objects/ghost.dh-obj".to_string()
        }
    );
    let cycle = r#"{ "objects": [
        { "$type": "folder", "id": "00000000-0000-4000-8000-000000000001", "parent": "00000000-0000-4000-8000-000000000002" },
        { "$type": "folder", "id": "00000000-0000-4000-8000-000000000002", "parent": "00000000-0000-4000-8000-000000000001" } ] }"#;
    assert_eq!(
        SimWorld::install(&map_from("b.dh-map", cycle), &objects).unwrap_err(),
        InstallError::ParentCycle(0)
    );
    let twice = r#"{ "objects": [
        { "$type": "folder", "id": "00000000-0000-4000-8000-000000000001" },
        { "$type": "folder", "id": "00000000-0000-4000-8000-000000000001" } ] }"#;
    let e = SimWorld::install(&map_from("c.dh-map", twice), &objects).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Map entity #1 repeats the id 00000000-0000-4000-8000-000000000001 of entity #0"
    );
}

#[test]
fn records_keep_author_order() {
    let sim = install_logic_map();
    for (i, &e) in sim.records().iter().enumerate() {
        assert_eq!(sim.get::<RecordIndex>(e), Some(RecordIndex(i as u32)));
    }
    assert_eq!(sim.name_of(sim.records()[0]).as_deref(), Some("floor"));
}

#[test]
fn a_switched_off_plate_drains_and_comes_back_as_authored() {
    let mut sim = install_logic_map();
    let pawns = FakePawns::new();
    pawns.put(1, [4.0, 0.3, -9.0]);
    let plate = sim.entity_named("liftPlate").unwrap();
    let lift = sim.entity_named("liftPlatform").unwrap();
    sim.tick(&[], &pawns);
    // Tick 1: the plate is switched off with the pawn on it: it drains.
    sim.tick(
        &[Input::SetEnabled {
            entity: plate,
            enabled: false,
        }],
        &pawns,
    );
    assert_eq!(
        lines_at(&sim, 1),
        [
            "liftPlate switched off",
            "liftPlate fired onEndTouch -> liftPlatform.close",
        ]
    );
    // Off, it measures nothing. The lift, opened on tick 0, rose one tick (tick 1) before
    // the close, so it is home on tick 2.
    sim.tick(&[], &pawns);
    assert_eq!(lines_at(&sim, 2), ["liftPlatform fired onClosed"]);
    // Switching the lift off and on brings it back closed, as authored.
    sim.tick(
        &[Input::SetEnabled {
            entity: lift,
            enabled: false,
        }],
        &pawns,
    );
    sim.tick(
        &[Input::SetEnabled {
            entity: lift,
            enabled: true,
        }],
        &pawns,
    );
    assert_near(y_of(&sim, "liftPlatform"), 0.1, "the lift as authored");
    // The plate back on finds the pawn standing there.
    sim.tick(
        &[Input::SetEnabled {
            entity: plate,
            enabled: true,
        }],
        &pawns,
    );
    assert_eq!(
        lines_at(&sim, 5),
        [
            "liftPlate switched on",
            "liftPlate fired onStartTouch -> liftPlatform.open",
        ]
    );
}
