//! The one merge rule (spec, dh.object "Records and overrides"; dh.map "The merge rule"):
//! one test per clause, expected values written by hand from the spec's examples.

use dh_content::jsonc::{self, Value};
use dh_content::merge::{component_key, duplicate_keys, merge, merge_all, part_key, ComponentKey};

fn v(text: &str) -> Value {
    match jsonc::parse(text) {
        Ok(v) => v,
        Err(e) => panic!("test JSON does not parse: {} at {}", e.message, e.offset),
    }
}

/// Asserts `merge(base, over)` writes the same canonical JSON as `expected`.
fn check(base: &str, over: &str, expected: &str) {
    let got = merge(&v(base), &v(over)).to_json();
    assert_eq!(got, v(expected).to_json());
}

// ---------------------------------------------------------------------------------------
// "a map merges key by key"

#[test]
fn a_map_merges_key_by_key_keeping_every_other_slot() {
    // dh.renderer: "Both maps merge key by key, so a variant binding one slot keeps every
    // other slot its source binds."
    check(
        r#"{ "$type": "dh.renderer",
             "materials": { "Fur": "materials/main-fur.dh-mat", "Eye Background": "materials/eye.dh-mat" },
             "shapes": { "Cat_Eyes": 0.9, "Eyelashes": 1 } }"#,
        r#"{ "$type": "dh.renderer", "materials": { "Fur": "materials/fur.dh-mat" } }"#,
        r#"{ "$type": "dh.renderer",
             "materials": { "Fur": "materials/fur.dh-mat", "Eye Background": "materials/eye.dh-mat" },
             "shapes": { "Cat_Eyes": 0.9, "Eyelashes": 1 } }"#,
    );
}

#[test]
fn a_record_nested_in_a_map_merges_recursively() {
    // dh.eyes: "A variant whose eyes are closed for good ... keeping the base's personality".
    check(
        r#"{ "$type": "dh.eyes", "look": { "confidence": 0.4, "activity": 0.9 }, "blink": { "rate": 12 } }"#,
        r#"{ "$type": "dh.eyes", "look": { "enabled": false }, "blink": { "enabled": false } }"#,
        r#"{ "$type": "dh.eyes", "look": { "confidence": 0.4, "activity": 0.9, "enabled": false },
             "blink": { "rate": 12, "enabled": false } }"#,
    );
}

#[test]
fn members_keep_the_base_order_and_new_ones_follow() {
    check(
        r#"{ "b": 1, "a": 2 }"#,
        r#"{ "c": 3, "a": 4 }"#,
        r#"{ "b": 1, "a": 4, "c": 3 }"#,
    );
}

// ---------------------------------------------------------------------------------------
// "a scalar replaces, and a list replaces whole"

#[test]
fn a_scalar_replaces() {
    check(
        r#"{ "$type": "dh.physicsProp", "mass": 30, "sim": "server" }"#,
        r#"{ "$type": "dh.physicsProp", "mass": 5 }"#,
        r#"{ "$type": "dh.physicsProp", "mass": 5, "sim": "server" }"#,
    );
}

#[test]
fn a_list_replaces_whole() {
    // "a reaction's actions restated is the whole new list"
    check(
        r#"{ "$type": "dh.reaction", "on": "dying",
             "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/cry-1.ogg", "sounds/cry-2.ogg"] },
                          { "$type": "dh.playSound", "clips": ["sounds/thud.ogg"] } ] }"#,
        r#"{ "$type": "dh.reaction", "on": "dying",
             "actions": [ { "$type": "dh.speakSound", "clips": ["dev.pitr:sounds/hiss.ogg"] } ] }"#,
        r#"{ "$type": "dh.reaction", "on": "dying",
             "actions": [ { "$type": "dh.speakSound", "clips": ["dev.pitr:sounds/hiss.ogg"] } ] }"#,
    );
}

#[test]
fn a_vector_replaces_whole() {
    // "A position replaces the whole vector"; "scale": 2 replaces [1, 1, 3] whole.
    check(
        r#"{ "path": "buildings/block03/wall_north", "position": [1, 2, 3], "scale": [1, 1, 3] }"#,
        r#"{ "path": "buildings/block03/wall_north", "position": [0, 0.5, -2], "scale": 2 }"#,
        r#"{ "path": "buildings/block03/wall_north", "position": [0, 0.5, -2], "scale": 2 }"#,
    );
}

// ---------------------------------------------------------------------------------------
// "unset or null inherits"

#[test]
fn unset_inherits() {
    check(
        r#"{ "position": [1, 2, 3], "rotation": [0, 90, 0] }"#,
        r#"{ "rotation": [0, 45, 0] }"#,
        r#"{ "position": [1, 2, 3], "rotation": [0, 45, 0] }"#,
    );
}

#[test]
fn null_inherits() {
    check(
        r#"{ "position": [1, 2, 3], "materials": { "Fur": "a.dh-mat" } }"#,
        r#"{ "position": null, "materials": { "Fur": null, "Eye": "b.dh-mat" } }"#,
        r#"{ "position": [1, 2, 3], "materials": { "Fur": "a.dh-mat", "Eye": "b.dh-mat" } }"#,
    );
    // Over nothing, a null inherits nothing: it is left out.
    check(
        r#"{}"#,
        r#"{ "name": null, "look": { "a": null, "b": 1 } }"#,
        r#"{ "look": { "b": 1 } }"#,
    );
    // A whole layer of null is no layer.
    check(r#"{ "a": 1 }"#, "null", r#"{ "a": 1 }"#);
}

// ---------------------------------------------------------------------------------------
// "removed": true removes, on a component, a part's override and an added record

#[test]
fn removed_drops_the_component_it_names() {
    // "A placement that should stand still states "removed": true on the dh.physicsProp it
    // inherits."
    check(
        r#"{ "components": [
              { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-orange.dh-mat" },
              { "$type": "dh.collider" },
              { "$type": "dh.physicsProp", "mass": 30, "sim": "server" } ] }"#,
        r#"{ "components": [ { "$type": "dh.physicsProp", "removed": true } ] }"#,
        r#"{ "components": [
              { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-orange.dh-mat" },
              { "$type": "dh.collider" } ] }"#,
    );
}

#[test]
fn removed_on_a_component_with_nothing_beneath_removes_nothing() {
    check(
        r#"{ "components": [ { "$type": "dh.collider" } ] }"#,
        r#"{ "components": [ { "$type": "dh.physicsProp", "removed": true } ] }"#,
        r#"{ "components": [ { "$type": "dh.collider" } ] }"#,
    );
}

#[test]
fn removed_on_a_part_override_is_kept_to_drop_the_part() {
    // The part lives in the model, so the override saying it is removed stays.
    check(
        r#"{ "children": [ { "path": "Armature/MuzzleBone", "position": [0, 1, 0] } ] }"#,
        r#"{ "children": [ { "path": "Armature/MuzzleBone", "removed": true },
                           { "path": "buildings/block03/scaffold", "removed": true } ] }"#,
        r#"{ "children": [ { "path": "Armature/MuzzleBone", "position": [0, 1, 0], "removed": true },
                           { "path": "buildings/block03/scaffold", "removed": true } ] }"#,
    );
}

#[test]
fn removed_drops_an_added_record() {
    check(
        r#"{ "objects": [
              { "$type": "instance", "id": "glasses", "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj" },
              { "$type": "instance", "id": "hat", "source": "hat.dh-obj" } ] }"#,
        r#"{ "objects": [ { "id": "glasses", "removed": true } ] }"#,
        r#"{ "objects": [ { "$type": "instance", "id": "hat", "source": "hat.dh-obj" } ] }"#,
    );
}

#[test]
fn removed_false_is_only_a_field() {
    // Nothing but `"removed": true` removes.
    check(
        r#"{ "components": [ { "$type": "dh.collider", "state": "solid" } ] }"#,
        r#"{ "components": [ { "$type": "dh.collider", "removed": false } ] }"#,
        r#"{ "components": [ { "$type": "dh.collider", "state": "solid", "removed": false } ] }"#,
    );
}

// ---------------------------------------------------------------------------------------
// Components matched by type and key

#[test]
fn a_component_is_matched_by_its_type() {
    // The placed crate: "states only the material of its dh.box and the mass of its
    // dh.physicsProp".
    check(
        r#"{ "name": "Physics Cube", "components": [
              { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-orange.dh-mat" },
              { "$type": "dh.collider" },
              { "$type": "dh.physicsProp", "mass": 30, "sim": "server" } ] }"#,
        r#"{ "components": [
              { "$type": "dh.physicsProp", "mass": 12 },
              { "$type": "dh.box", "material": "/materials/crate-blue.dh-mat" } ] }"#,
        r#"{ "name": "Physics Cube", "components": [
              { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-blue.dh-mat" },
              { "$type": "dh.collider" },
              { "$type": "dh.physicsProp", "mass": 12, "sim": "server" } ] }"#,
    );
}

#[test]
fn a_new_component_type_is_added_after_the_inherited_ones() {
    // "Interactive Door": inherits the door's dh.mover and adds a button and a collider.
    check(
        r#"{ "name": "Door", "components": [
              { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 } ] }"#,
        r#"{ "name": "Interactive Door", "components": [
              { "$type": "dh.button" },
              { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
        r#"{ "name": "Interactive Door", "components": [
              { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 },
              { "$type": "dh.button" },
              { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
    );
}

#[test]
fn a_spring_collider_is_matched_by_its_id() {
    // "A plush variant with a fatter chest writes only what changes."
    check(
        r#"{ "components": [
              { "$type": "dh.springCollider", "id": "chest", "bone": "Chest",
                "shape": "capsule", "offset": [0, 0.02, 0.01], "tail": [0, 0.17, 0.02], "radius": 0.11 },
              { "$type": "dh.springCollider", "id": "head", "bone": "Head", "shape": "sphere", "radius": 0.1 } ] }"#,
        r#"{ "components": [
              { "$type": "dh.springCollider", "id": "chest", "radius": 0.14 },
              { "$type": "dh.springCollider", "id": "hips", "bone": "Hips", "shape": "sphere", "radius": 0.12 } ] }"#,
        r#"{ "components": [
              { "$type": "dh.springCollider", "id": "chest", "bone": "Chest",
                "shape": "capsule", "offset": [0, 0.02, 0.01], "tail": [0, 0.17, 0.02], "radius": 0.14 },
              { "$type": "dh.springCollider", "id": "head", "bone": "Head", "shape": "sphere", "radius": 0.1 },
              { "$type": "dh.springCollider", "id": "hips", "bone": "Hips", "shape": "sphere", "radius": 0.12 } ] }"#,
    );
}

#[test]
fn a_spring_colliders_bone_and_node_are_one_anchor() {
    // "a collider that sets either replaces both"
    check(
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "bone": "Hips", "shape": "sphere", "radius": 0.05 } ] }"#,
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "node": "Armature/Hips/TailCaddy" } ] }"#,
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "shape": "sphere", "radius": 0.05, "node": "Armature/Hips/TailCaddy" } ] }"#,
    );
    // A layer that names no anchor keeps the inherited one.
    check(
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "node": "Armature/Hips/TailCaddy", "radius": 0.05 } ] }"#,
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "radius": 0.06 } ] }"#,
        r#"{ "components": [ { "$type": "dh.springCollider", "id": "tailBase", "node": "Armature/Hips/TailCaddy", "radius": 0.06 } ] }"#,
    );
}

#[test]
fn a_reaction_is_matched_by_on_and_tier() {
    // "A variant replacing the base's dying cry with a clip from a dependency pallet, and
    // silencing its jumps"; a reaction with no tier is not the one with "tier": "big".
    check(
        r#"{ "components": [
              { "$type": "dh.reaction", "on": "damaged", "tier": "big",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/growl-1.mp3", "sounds/growl-2.mp3"] } ] },
              { "$type": "dh.reaction", "on": "damaged",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/ow.mp3"] } ] },
              { "$type": "dh.reaction", "on": "dying",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/cry.ogg"] } ] },
              { "$type": "dh.reaction", "on": "jumped",
                "actions": [ { "$type": "dh.playSound", "clips": ["sounds/hop.ogg"] } ] } ] }"#,
        r#"{ "components": [
              { "$type": "dh.reaction", "on": "dying", "actions": [ { "$type": "dh.speakSound", "clips": ["dev.pitr:sounds/hiss.ogg"] } ] },
              { "$type": "dh.reaction", "on": "jumped", "removed": true },
              { "$type": "dh.reaction", "on": "damaged", "tier": "small",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/eep.mp3"] } ] } ] }"#,
        r#"{ "components": [
              { "$type": "dh.reaction", "on": "damaged", "tier": "big",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/growl-1.mp3", "sounds/growl-2.mp3"] } ] },
              { "$type": "dh.reaction", "on": "damaged",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/ow.mp3"] } ] },
              { "$type": "dh.reaction", "on": "dying",
                "actions": [ { "$type": "dh.speakSound", "clips": ["dev.pitr:sounds/hiss.ogg"] } ] },
              { "$type": "dh.reaction", "on": "damaged", "tier": "small",
                "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/eep.mp3"] } ] } ] }"#,
    );
}

#[test]
fn removed_on_dh_eyes_returns_the_eyes_to_the_defaults() {
    check(
        r#"{ "components": [ { "$type": "dh.eyes", "look": { "confidence": 0.4 } }, { "$type": "dh.skeleton", "rig": "rigs/taidum.dh-rig" } ] }"#,
        r#"{ "components": [ { "$type": "dh.eyes", "removed": true } ] }"#,
        r#"{ "components": [ { "$type": "dh.skeleton", "rig": "rigs/taidum.dh-rig" } ] }"#,
    );
}

#[test]
fn component_keys() {
    let key = |t: &str| component_key(&v(t));
    assert_eq!(
        key(r#"{ "$type": "dh.reaction", "on": "footstep", "tier": "walk" }"#),
        Some(ComponentKey {
            type_name: "dh.reaction".into(),
            key: vec![Some("\"footstep\"".into()), Some("\"walk\"".into())],
        })
    );
    assert_eq!(
        key(r#"{ "$type": "dh.springCollider", "id": "chest", "radius": 1 }"#),
        Some(ComponentKey {
            type_name: "dh.springCollider".into(),
            key: vec![Some("\"chest\"".into())]
        })
    );
    assert_eq!(
        key(r#"{ "$type": "dh.box", "size": [1, 1, 1] }"#),
        Some(ComponentKey {
            type_name: "dh.box".into(),
            key: vec![]
        })
    );
    assert_eq!(key(r#"{ "size": [1, 1, 1] }"#), None);
}

#[test]
fn a_second_component_of_one_key_is_found() {
    // "An owner holds one of each type per key; a second is a build error."
    let list = v(r#"[
        { "$type": "dh.reaction", "on": "footstep", "tier": "walk", "actions": [] },
        { "$type": "dh.reaction", "on": "footstep", "tier": "run", "actions": [] },
        { "$type": "dh.box" },
        { "$type": "dh.reaction", "on": "footstep", "tier": "walk", "actions": [] },
        { "$type": "dh.box" } ]"#);
    let items = list.as_array().unwrap_or(&[]);
    assert_eq!(duplicate_keys("components", items), vec![(3, 0), (4, 2)]);
    let recs = v(r#"[ { "id": "glasses" }, { "id": "hat" }, { "id": "glasses" } ]"#);
    assert_eq!(
        duplicate_keys("objects", recs.as_array().unwrap_or(&[])),
        vec![(2, 0)]
    );
    // Not a keyed list: nothing to find.
    assert_eq!(duplicate_keys("actions", items), vec![]);
}

// ---------------------------------------------------------------------------------------
// Part overrides matched by id, then path

#[test]
fn a_part_override_is_matched_by_id_first() {
    // The same id (GUIDs compare without regard to case) names the same part even where
    // the path was written before a rename.
    check(
        r#"{ "children": [ { "id": "6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1", "path": "buildings/block03/wall_north", "position": [0, 0.5, -2] } ] }"#,
        r#"{ "children": [ { "id": "6F3B21C4-9D0E-5A77-8B12-4C5E7A90D3F1", "path": "buildings/block03/wall_n", "rotation": [0, 90, 0] } ] }"#,
        r#"{ "children": [ { "id": "6F3B21C4-9D0E-5A77-8B12-4C5E7A90D3F1", "path": "buildings/block03/wall_n", "position": [0, 0.5, -2], "rotation": [0, 90, 0] } ] }"#,
    );
    // Two different ids are two parts, whatever their paths.
    check(
        r#"{ "children": [ { "id": "00000000-0000-0000-0000-000000000001", "path": "a", "enabled": false } ] }"#,
        r#"{ "children": [ { "id": "00000000-0000-0000-0000-000000000002", "path": "a", "static": false } ] }"#,
        r#"{ "children": [ { "id": "00000000-0000-0000-0000-000000000001", "path": "a", "enabled": false },
                           { "id": "00000000-0000-0000-0000-000000000002", "path": "a", "static": false } ] }"#,
    );
}

#[test]
fn a_part_override_without_an_id_is_matched_by_path() {
    check(
        r#"{ "children": [
              { "path": "Armature/Body", "parent": "", "first": true },
              { "path": "Armature/Hips/TailCaddy/TailRoot",
                "components": [ { "$type": "dh.springBone", "pull": 0.55, "damping": 0.4, "gravity": 0.1 } ] } ] }"#,
        r#"{ "children": [
              { "path": "Armature/Hips/TailCaddy/TailRoot", "components": [ { "$type": "dh.springBone", "pull": 0.2 } ] } ] }"#,
        r#"{ "children": [
              { "path": "Armature/Body", "parent": "", "first": true },
              { "path": "Armature/Hips/TailCaddy/TailRoot",
                "components": [ { "$type": "dh.springBone", "pull": 0.2, "damping": 0.4, "gravity": 0.1 } ] } ] }"#,
    );
    assert!(part_key(&v(r#"{ "name": "x" }"#)).is_none());
}

#[test]
fn two_overrides_naming_one_part_leave_the_last() {
    // "Two overrides naming one part leave one answer, and it is the last."
    check(
        r#"{ "children": [] }"#,
        r#"{ "children": [ { "path": "a", "position": [1, 0, 0] }, { "path": "b" }, { "path": "a", "rotation": [0, 9, 0] } ] }"#,
        r#"{ "children": [ { "path": "a", "rotation": [0, 9, 0] }, { "path": "b" } ] }"#,
    );
}

// ---------------------------------------------------------------------------------------
// Added records, by id, merging recursively

#[test]
fn an_added_record_is_overridden_by_its_id() {
    check(
        r#"{ "objects": [
              { "$type": "instance", "id": "glasses", "name": "Glasses",
                "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj",
                "position": [0, 0.15, -0.03],
                "components": [ { "$type": "dh.armatureLink", "target": "", "bone": "Head", "align": false } ] } ] }"#,
        r#"{ "objects": [
              { "id": "glasses", "position": [0, 0.16, -0.03],
                "components": [ { "$type": "dh.armatureLink", "keepWorldTransform": true } ] },
              { "$type": "instance", "id": "outfit", "source": "clothes/outfit.dh-obj",
                "components": [ { "$type": "dh.armatureLink", "target": "" } ] } ] }"#,
        r#"{ "objects": [
              { "$type": "instance", "id": "glasses", "name": "Glasses",
                "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj",
                "position": [0, 0.16, -0.03],
                "components": [ { "$type": "dh.armatureLink", "target": "", "bone": "Head", "align": false, "keepWorldTransform": true } ] },
              { "$type": "instance", "id": "outfit", "source": "clothes/outfit.dh-obj",
                "components": [ { "$type": "dh.armatureLink", "target": "" } ] } ] }"#,
    );
}

#[test]
fn layers_rebase_outermost_last() {
    // "resolution walks to the root source and lays each layer over the one beneath,
    // outermost last"
    let root = v(
        r#"{ "model": "models/crate.glb", "components": [ { "$type": "dh.physicsProp", "mass": 30, "sim": "server" } ] }"#,
    );
    let variant =
        v(r#"{ "components": [ { "$type": "dh.physicsProp", "mass": 10, "sim": "server" } ] }"#);
    let placement = v(
        r#"{ "components": [ { "$type": "dh.physicsProp", "sim": "client" } ], "position": [0, 4, 5] }"#,
    );
    let got = merge_all([&root, &variant, &placement]);
    assert_eq!(
        got.to_json(),
        v(r#"{ "model": "models/crate.glb", "components": [ { "$type": "dh.physicsProp", "mass": 10, "sim": "client" } ], "position": [0, 4, 5] }"#).to_json()
    );
    // The same layers in another order give another answer: the order is the rule.
    let got = merge_all([&root, &placement, &variant]);
    assert_eq!(
        got.to_json(),
        v(r#"{ "model": "models/crate.glb", "components": [ { "$type": "dh.physicsProp", "mass": 10, "sim": "server" } ], "position": [0, 4, 5] }"#).to_json()
    );
    assert_eq!(merge_all(std::iter::empty::<&Value>()).to_json(), "null");
}

#[test]
fn merging_is_deterministic() {
    let base = v(
        r#"{ "components": [ { "$type": "dh.box", "size": [1, 1, 1] }, { "$type": "dh.collider" } ], "children": [ { "path": "x" } ] }"#,
    );
    let over = v(
        r#"{ "children": [ { "path": "y", "enabled": false }, { "path": "x", "static": false } ], "components": [ { "$type": "dh.light", "intensity": 3 } ] }"#,
    );
    let a = merge(&base, &over).to_json();
    let b = merge(&base, &over).to_json();
    assert_eq!(a, b);
    assert_eq!(
        a,
        v(r#"{ "components": [ { "$type": "dh.box", "size": [1, 1, 1] }, { "$type": "dh.collider" }, { "$type": "dh.light", "intensity": 3 } ],
               "children": [ { "path": "x", "static": false }, { "path": "y", "enabled": false } ] }"#).to_json()
    );
}
