//! dh.object (`.dh-obj`): every complete JSON example of the spec's dh.object page parses as
//! written, and one test per build-time rule of the object, its children, its added
//! records and every component an object takes.

use dh_content::diag::{Diagnostic, Diagnostics, Severity, SourceFile};
use dh_content::read::{parse_source, Cx, FromJson, Mode, ToJson};
use dh_content::schema::object::{read_object, validate_object, DhObject, Scale};
use dh_content::schema::object_components::{ObjectComponent, SpringCollider};

/// Reads and validates `text` as a `.dh-obj` in `mode`; returns the object and every
/// diagnostic.
fn run(text: &str, mode: Mode) -> (Option<DhObject>, Vec<Diagnostic>) {
    let file = SourceFile::new("objects/test.dh-obj", text);
    let mut diags = Diagnostics::new();
    let obj = read_object(&file, &mut diags, mode);
    if let Some(o) = &obj {
        let mut cx = Cx::new(&file, &mut diags, mode);
        validate_object(&mut cx, o);
    }
    (obj, diags.items)
}

fn build(text: &str) -> Vec<Diagnostic> {
    run(text, Mode::Build).1
}

fn messages(d: &[Diagnostic]) -> Vec<String> {
    d.iter().map(|d| d.message.clone()).collect()
}

fn errors(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn warnings(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.message.clone())
        .collect()
}

/// Asserts `text` builds with no diagnostic at all.
fn clean(text: &str) {
    let d = build(text);
    assert!(d.is_empty(), "expected no diagnostics, got:\n{}", lines(&d));
}

fn lines(d: &[Diagnostic]) -> String {
    d.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts exactly one error, and that it says `expected`.
fn one_error(text: &str, expected: &str) -> Diagnostic {
    let d = build(text);
    let errs: Vec<&Diagnostic> = d.iter().filter(|d| d.severity == Severity::Error).collect();
    assert_eq!(errs.len(), 1, "expected one error, got:\n{}", lines(&d));
    assert_eq!(errs[0].message, expected, "\n{}", lines(&d));
    errs[0].clone()
}

/// An object whose one part `Armature/Tail` carries `components`.
fn on_part(components: &str) -> String {
    format!(
        r#"{{ "model": "models/m.glb", "children": [ {{ "path": "Armature/Tail", "components": [ {components} ] }} ] }}"#
    )
}

/// An object whose root carries `components`.
fn on_root(components: &str) -> String {
    format!(r#"{{ "model": "models/m.glb", "components": [ {components} ] }}"#)
}

// ---- Every complete example of the page, verbatim ------------------------------------------

#[test]
fn example_cat_ears() {
    let text = r#"{
  "name": "Cat Ears",
  "model": "models/ears.glb",
  "children": [
    {
      "path": "Ears",
      "components": [
        { "$type": "dh.renderer", "materials": { "Fur": "materials/fur.dh-mat" } }
      ]
    }
  ]
}"#;
    let (obj, d) = run(text, Mode::Build);
    assert!(d.is_empty(), "{}", lines(&d));
    let obj = obj.unwrap();
    assert_eq!(obj.name.as_deref(), Some("Cat Ears"));
    assert_eq!(obj.children[0].path, "Ears");
    let ObjectComponent::Renderer(r) = &obj.children[0].components[0] else {
        panic!("expected a renderer");
    };
    assert_eq!(
        r.materials.as_ref().unwrap().get("Fur").map(String::as_str),
        Some("materials/fur.dh-mat")
    );
}

#[test]
fn example_replacing_an_inherited_model() {
    let text = r#"{
  "inherits": "io.mltn.avatars.mltn-taidum:mltn-taidum.dh-avatar",
  "model": "models/taidum-lf-f.fbx"
}"#;
    let (obj, d) = run(text, Mode::Build);
    assert!(d.is_empty(), "{}", lines(&d));
    assert!(obj.unwrap().is_variant());
}

#[test]
fn example_children() {
    clean(
        r#"{ "model": "models/m.glb",
"children": [
  { "path": "Armature/Body", "parent": "", "first": true },
  { "path": "Armature/MuzzleBone", "removed": true },
  {
    "path": "Armature/Hips/TailCaddy/TailRoot",
    "components": [ { "$type": "dh.springBone", "pull": 0.55, "damping": 0.4, "gravity": 0.1 } ]
  }
]
}"#,
    );
}

#[test]
fn example_objects_glasses() {
    let text = r#"{ "model": "models/m.glb",
"objects": [
  {
    "$type": "instance",
    "id": "glasses",
    "name": "Glasses",
    "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj",
    "position": [0, 0.15, -0.03],
    "components": [ { "$type": "dh.armatureLink", "target": "", "bone": "Head", "align": false } ]
  }
]
}"#;
    let (obj, d) = run(text, Mode::Build);
    assert!(d.is_empty(), "{}", lines(&d));
    let r = &obj.unwrap().objects[0];
    assert_eq!(r.id, "glasses");
    assert_eq!(r.position.unwrap().0, [0.0, 0.15, -0.03]);
}

#[test]
fn example_renderer() {
    clean(
        r#"{ "model": "models/m.glb", "children": [
{
  "path": "Armature/Body",
  "components": [
    {
      "$type": "dh.renderer",
      "materials": { "Fur": "materials/main-fur.dh-mat", "Eye Background": "materials/eye.dh-mat" },
      "shapes": { "Cat_Eyes": 0.9, "Eyelashes": 1 }
    }
  ]
}
] }"#,
    );
}

#[test]
fn example_skeleton() {
    clean(
        r#"{ "model": "models/m.glb",
"components": [ { "$type": "dh.skeleton", "rig": "rigs/taidum.dh-rig" } ]
}"#,
    );
}

#[test]
fn example_eyes_personality_and_closed_for_good() {
    clean(
        r#"{ "model": "models/m.glb",
"components": [
  { "$type": "dh.eyes", "look": { "confidence": 0.4, "activity": 0.9 }, "blink": { "rate": 12 } }
]
}"#,
    );
    clean(
        r#"{ "inherits": "avatars/base.dh-avatar",
"components": [
  { "$type": "dh.eyes", "look": { "enabled": false }, "blink": { "enabled": false } }
]
}"#,
    );
}

#[test]
fn example_reaction() {
    clean(&on_root(
        r#"{
  "$type": "dh.reaction",
  "on": "damaged",
  "tier": "big",
  "actions": [
    { "$type": "dh.speakSound", "clips": ["sounds/growl-1.mp3", "sounds/growl-2.mp3"] }
  ]
}"#,
    ));
    clean(
        r#"{ "inherits": "avatars/base.dh-avatar",
"components": [
  { "$type": "dh.reaction", "on": "dying", "actions": [ { "$type": "dh.speakSound", "clips": ["dev.pitr:sounds/hiss.ogg"] } ] },
  { "$type": "dh.reaction", "on": "jumped", "removed": true }
]
}"#,
    );
}

#[test]
fn example_armature_links() {
    // Bone-to-bone, on an added outfit.
    clean(
        r#"{ "model": "models/m.glb", "objects": [
{
  "$type": "instance", "id": "outfit", "source": "clothes/outfit.dh-obj",
  "components": [ { "$type": "dh.armatureLink", "target": "" } ]
}
] }"#,
    );
    // Single-bone attachment, on a part of the model.
    clean(
        r#"{ "model": "models/m.glb", "children": [
{
  "path": "Backpack",
  "components": [ { "$type": "dh.armatureLink", "target": "Armature", "bone": "Chest", "align": false } ]
}
] }"#,
    );
    clean(&on_root(
        r#"{ "$type": "dh.armatureLink", "target": "", "bone": "Head", "keepWorldTransform": true }"#,
    ));
    // Grafting, on an accessory's added record (its rig is its source's).
    clean(
        r#"{ "model": "models/m.glb", "objects": [ { "id": "collar", "source": "collar.dh-obj", "components": [
{ "$type": "dh.armatureLink", "target": "", "graft": { "CollarRoot": "Neck" } }
] } ] }"#,
    );
}

#[test]
fn example_spring_bones() {
    clean(
        r#"{ "model": "models/m.glb", "children": [
{
  "path": "Body/Armature/Tail1",
  "components": [ { "$type": "dh.springBone", "pull": 0.2, "gravity": 0.3, "gravityFalloff": 0.5 } ]
}
] }"#,
    );
    clean(
        r#"{ "model": "models/m.glb", "children": [
{
  "path": "Body/Armature/Tail1",
  "components": [
    { "$type": "dh.springBone", "mode": "physBones", "pull": 0.2, "spring": 0.3, "immobile": 0.6, "immobileFrame": "parent" }
  ]
}
] }"#,
    );
    clean(
        r#"{ "model": "models/m.glb",
"children": [
  { "path": "Body/Armature/Tail1", "components": [ { "$type": "dh.springBone", "pull": 0.2, "gravity": 0.3 } ] },
  { "path": "Body/Armature/EarL1", "components": [ { "$type": "dh.springBone" } ] },
  { "path": "Body/Armature/EarR1", "components": [ { "$type": "dh.springBone" } ] }
]
}"#,
    );
    clean(&on_part(
        r#"{ "$type": "dh.springBone", "ignore": ["Tail_IK_Target", "Tail_Collider"] }"#,
    ));
    clean(
        r#"{ "model": "models/m.glb", "children": [
{
  "path": "Armature/Hips/Tail Root",
  "components": [
    {
      "$type": "dh.springBone",
      "pull": 0.2,
      "radius": 0.02,
      "colliders": ["hips", "spine", "leftUpperLeg", "rightUpperLeg", "leftLowerLeg", "rightLowerLeg"]
    }
  ]
}
] }"#,
    );
    clean(&on_part(
        r#"{
  "$type": "dh.springBone",
  "radius": 0.03,
  "maxStretch": 0.1,
  "colliders": ["spine", "leftUpperLeg", "rightUpperLeg", "leftLowerLeg", "rightLowerLeg"],
  "allowCollision": "both",
  "allowGrabbing": "both",
  "allowPosing": "both"
}"#,
    ));
}

#[test]
fn example_spring_colliders() {
    clean(&on_root(
        r#"{ "$type": "dh.springCollider", "id": "chest", "bone": "Chest",
  "shape": "capsule", "offset": [0, 0.02, 0.01], "tail": [0, 0.17, 0.02], "radius": 0.11 }"#,
    ));
    clean(&on_root(
        r#"{ "$type": "dh.springCollider", "id": "chest", "radius": 0.14 }"#,
    ));
}

#[test]
fn example_physics_cube() {
    let text = r#"{
  "name": "Physics Cube",
  "components": [
    { "$type": "dh.box", "size": [0.5, 0.5, 0.5], "material": "/materials/crate-orange.dh-mat" },
    { "$type": "dh.collider" },
    { "$type": "dh.physicsProp", "mass": 30, "sim": "server" }
  ]
}"#;
    let (obj, d) = run(text, Mode::Build);
    assert!(d.is_empty(), "{}", lines(&d));
    let obj = obj.unwrap();
    let ObjectComponent::PhysicsProp(p) = &obj.components[2] else {
        panic!("expected a physics prop");
    };
    assert_eq!(p.inner.mass, Some(30.0));
}

#[test]
fn example_doors() {
    clean(
        r#"{ "name": "Door", "components": [
  { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 } ] }"#,
    );
    clean(
        r#"{ "name": "Interactive Door", "inherits": "/objects/base/door.dh-obj", "components": [
  { "$type": "dh.button" },
  { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
    );
}

#[test]
fn example_voxel_block_door() {
    clean(
        r#"{ "name": "Door", "components": [
  { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 },
  { "$type": "dh.voxelBlock" },
  { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0.40625, 1, 0], "halfExtents": [0.5, 1, 0.09375] } ] } ] }"#,
    );
}

// ---- The object's own members -----------------------------------------------------------

#[test]
fn unknown_member_names_block_member_and_fields() {
    let d = build("{\n  \"model\": \"models/m.glb\",\n  \"offset\": [0, 0, 0]\n}");
    assert_eq!(d.len(), 1, "{}", lines(&d));
    assert_eq!(
        d[0].to_string(),
        "objects/test.dh-obj:3:3: error: unknown member 'offset' in dh.object; the fields of dh.object are: $type, name, description, model, inherits, position, rotation, scale, static, components, children, objects, resolved"
    );
}

#[test]
fn unknown_members_in_part_record_and_component_are_errors() {
    let d = build(
        r#"{ "children": [ { "path": "A", "offset": 1 } ],
  "objects": [ { "id": "a", "source": "a.dh-obj", "object": "x" } ],
  "components": [ { "$type": "dh.eyes", "look": { "shy": 1 } } ] }"#,
    );
    let m = errors(&d);
    assert_eq!(m.len(), 3, "{}", lines(&d));
    // Read in field order: components, children, objects.
    assert!(m[0].starts_with("unknown member 'shy' in dh.eyes look; the fields of dh.eyes look are: enabled, confidence,"));
    assert!(m[1].starts_with("unknown member 'offset' in part override; the fields of part override are: path, id, name, parent, first,"));
    assert!(m[2].starts_with(
        "unknown member 'object' in added record; the fields of added record are: $type, id,"
    ));
    assert_eq!(d[0].path, "components[0].look");
    assert_eq!(d[1].path, "children[0]");
    assert_eq!(d[2].path, "objects[0]");
}

#[test]
fn wrong_type_id_is_refused() {
    one_error(
        r#"{ "$type": "dh.map" }"#,
        "'$type' is 'dh.map', but this is a 'dh.object'",
    );
    clean(r#"{ "$type": "dh.object" }"#);
}

#[test]
fn a_source_never_states_resolved() {
    one_error(
        r#"{ "inherits": "a.dh-obj", "resolved": { "model": "m.glb" } }"#,
        "a source never states 'resolved': the compiler adds it, holding the whole object as it resolved it",
    );
}

#[test]
fn resolved_is_read_back_at_load() {
    let (obj, d) = run(
        r#"{ "$type": "dh.object", "inherits": "a.dh-obj", "model": "n.glb",
  "resolved": { "model": "n.glb", "components": [ { "$type": "dh.skeleton", "rig": "pallet:rigs/r.dh-rig" } ] } }"#,
        Mode::Load,
    );
    assert!(d.is_empty(), "{}", lines(&d));
    let r = obj.unwrap().resolved.unwrap();
    assert_eq!(r.model.as_deref(), Some("n.glb"));
    assert!(matches!(r.components[0], ObjectComponent::Skeleton(_)));
}

#[test]
fn a_resolved_object_inherits_nothing() {
    let (_, d) = run(r#"{ "resolved": { "inherits": "a.dh-obj" } }"#, Mode::Load);
    assert_eq!(
        errors(&d),
        vec!["a resolved object has its inheritance folded in: it states no 'inherits'"]
    );
}

#[test]
fn model_must_be_a_glb_or_fbx() {
    one_error(
        r#"{ "model": "models/ears.obj" }"#,
        "'model' names 'models/ears.obj', which is not a model: a model is a .glb or .fbx",
    );
}

#[test]
fn inherits_must_name_an_object() {
    one_error(
        r#"{ "inherits": "models/ears.glb" }"#,
        "'inherits' names 'models/ears.glb', which is not an object: a variant inherits a .dh-obj or .dh-avatar",
    );
}

/// The root's own transform is ordinary data (spec 001 line 18): a placement lays its
/// transform over it member by member (001 lines 58-62; sims' install does the same), so
/// an object posing its root builds with no diagnostic at all. Before, each member was a
/// warning claiming every placement discards it.
#[test]
fn posing_the_root_is_ordinary_data() {
    clean(r#"{ "position": [0, 1, 0] }"#);
    clean(r#"{ "rotation": [0, 90, 0] }"#);
    clean(r#"{ "scale": 2 }"#);
    clean(r#"{ "position": [1, 2, 3], "rotation": [10, 20, 30], "scale": [1, 2, 3] }"#);
}

#[test]
fn scale_takes_one_number_or_three_and_writes_back_the_same() {
    let (obj, _) = run(r#"{ "scale": 2 }"#, Mode::Build);
    let obj = obj.unwrap();
    assert_eq!(obj.scale, Some(Scale::Uniform(2.0)));
    assert_eq!(obj.to_json().to_json(), r#"{"scale":2}"#);
    let (obj, _) = run(r#"{ "scale": [1, 2, 3] }"#, Mode::Build);
    assert_eq!(obj.unwrap().scale.unwrap().axes().0, [1.0, 2.0, 3.0]);
    let d = build(r#"{ "scale": [1, 2] }"#);
    assert_eq!(
        errors(&d),
        vec!["expected exactly three numbers, found 2 items"]
    );
    let d = build(r#"{ "scale": "big" }"#);
    assert_eq!(
        errors(&d),
        vec!["expected a number or an array of exactly three numbers, found a string"]
    );
}

#[test]
fn no_scale_axis_may_be_zero() {
    let msg = "'scale' [1, 0, 1] has a zero axis: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted";
    let d = build(r#"{ "children": [ { "path": "A", "scale": [1, 0, 1] } ] }"#);
    assert_eq!(errors(&d), vec![msg]);
    let d = build(r#"{ "objects": [ { "id": "a", "source": "a.dh-obj", "scale": [1, 0, 1] } ] }"#);
    assert_eq!(errors(&d), vec![msg]);
    let d = build(r#"{ "scale": 0 }"#);
    assert_eq!(
        errors(&d),
        vec!["'scale' [0, 0, 0] has a zero axis: no axis may be zero, since a zero-scaled axis collapses the object and cannot be inverted"]
    );
}

#[test]
fn vectors_are_three_finite_numbers() {
    let d = build(r#"{ "children": [ { "path": "A", "position": [0, 1, 2, 3] } ] }"#);
    assert_eq!(
        errors(&d),
        vec!["expected exactly three numbers, found 4 items"]
    );
}

// ---- children ---------------------------------------------------------------------------

#[test]
fn part_override_needs_a_path() {
    one_error(
        r#"{ "children": [ { "name": "Body" } ] }"#,
        "part override is missing its required member 'path'",
    );
    one_error(
        r#"{ "children": [ { "path": "" } ] }"#,
        "a part override's 'path' names a part; \"\" is the object's root, which the object's own members override",
    );
}

#[test]
fn one_override_per_part() {
    let d = one_error(
        "{ \"children\": [\n { \"path\": \"A/B\" },\n { \"path\": \"A/B\", \"removed\": true } ] }",
        "children[0] already overrides the part 'A/B': children holds one entry per part",
    );
    assert_eq!((d.line, d.col), (3, 12));
    assert_eq!(d.path, "children[1]");
}

#[test]
fn part_ids_are_guids_not_all_zero_and_unique() {
    let d = build(
        r#"{ "children": [ { "path": "A", "id": "00000000-0000-0000-0000-000000000000" } ] }"#,
    );
    let e = errors(&d);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("a part's id must not be the all-zeros Guid; a fresh one to paste: "),
        "{e:?}"
    );
    one_error(
        r#"{ "children": [
  { "path": "A", "id": "6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1" },
  { "path": "B", "id": "6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1" } ] }"#,
        "children[0] already names the part id 6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1: a part has one id",
    );
    let d = build(r#"{ "children": [ { "path": "A", "id": "not-a-guid" } ] }"#);
    assert!(errors(&d)[0].starts_with("'not-a-guid' is not a GUID;"));
}

#[test]
fn first_acts_only_with_parent() {
    one_error(
        r#"{ "children": [ { "path": "Armature/Body", "first": true } ] }"#,
        "'first' acts only with 'parent': it makes the part its new parent's first child",
    );
}

#[test]
fn a_part_is_not_filed_under_itself() {
    one_error(
        r#"{ "children": [ { "path": "A", "parent": "A" } ] }"#,
        "the part 'A' cannot be filed under itself",
    );
}

#[test]
fn a_parent_chain_that_loops_is_refused() {
    // Filed under its own child, by the model's hierarchy.
    one_error(
        r#"{ "children": [ { "path": "Armature/Hips", "parent": "Armature/Hips/Spine" } ] }"#,
        "filing the part 'Armature/Hips' under 'Armature/Hips/Spine' makes a parent chain that loops: 'Armature/Hips/Spine' lies under 'Armature/Hips'",
    );
    // Two overrides filing each part under the other.
    let d = build(
        r#"{ "children": [ { "path": "A", "parent": "B" }, { "path": "B", "parent": "A" } ] }"#,
    );
    assert_eq!(errors(&d).len(), 2, "{}", lines(&d));
    // A chain that ends at the root is fine.
    clean(r#"{ "children": [ { "path": "A", "parent": "B" }, { "path": "B", "parent": "" } ] }"#);
}

// ---- objects ----------------------------------------------------------------------------

#[test]
fn record_ids_are_camel_case() {
    one_error(
        r#"{ "objects": [ { "id": "Round Glasses", "source": "g.dh-obj" } ] }"#,
        "'Round Glasses' is not a camelCase id: an added record's id starts with a lowercase letter and holds only letters and digits",
    );
}

#[test]
fn record_ids_are_at_most_64_characters() {
    let id = "a".repeat(65);
    one_error(
        &format!(r#"{{ "objects": [ {{ "id": "{id}", "source": "g.dh-obj" }} ] }}"#),
        &format!("an added record's id is at most 64 characters; '{id}' has 65"),
    );
    let id = "a".repeat(64);
    clean(&format!(
        r#"{{ "objects": [ {{ "id": "{id}", "source": "g.dh-obj" }} ] }}"#
    ));
}

#[test]
fn record_ids_are_unique() {
    one_error(
        r#"{ "objects": [ { "id": "glasses", "source": "g.dh-obj" }, { "id": "glasses", "source": "h.dh-obj" } ] }"#,
        "objects[0] already has the id 'glasses': an id is unique among the object's records",
    );
}

#[test]
fn record_id_is_required() {
    one_error(
        r#"{ "objects": [ { "source": "g.dh-obj" } ] }"#,
        "added record is missing its required member 'id'",
    );
}

#[test]
fn record_source_is_required_unless_a_variant_overrides() {
    one_error(
        r#"{ "objects": [ { "id": "glasses" } ] }"#,
        "added record is missing its required member 'source'",
    );
    clean(
        r#"{ "inherits": "base.dh-obj", "objects": [ { "id": "glasses", "position": [0, 0.2, 0] } ] }"#,
    );
    clean(r#"{ "inherits": "base.dh-obj", "objects": [ { "id": "glasses", "removed": true } ] }"#);
}

#[test]
fn record_source_is_an_object_avatar_or_model() {
    one_error(
        r#"{ "objects": [ { "id": "lamp", "source": "maps/city.dh-map" } ] }"#,
        "'source' names 'maps/city.dh-map': an added record places a .dh-obj, a .dh-avatar, or a .glb / .fbx model",
    );
    clean(
        r#"{ "objects": [ { "id": "a", "source": "a.dh-avatar" }, { "id": "b", "source": "b.FBX" }, { "id": "c", "source": "c.glb" } ] }"#,
    );
}

#[test]
fn removed_record_needs_something_inherited() {
    one_error(
        r#"{ "objects": [ { "id": "glasses", "removed": true } ] }"#,
        "'removed' removes an inherited record, and this object inherits none (it states no 'inherits')",
    );
}

#[test]
fn instance_is_the_only_record_type() {
    one_error(
        r#"{ "objects": [ { "$type": "folder", "id": "a", "source": "a.dh-obj" } ] }"#,
        "'folder' is not a valid record type an object adds; expected one of: instance",
    );
}

// ---- Components: the union, owners, one per key -----------------------------------------

#[test]
fn unknown_component_type_lists_the_known_ones() {
    one_error(
        &on_root(r#"{ "$type": "dh.example" }"#),
        "'dh.example' is not a valid object component; expected one of: dh.renderer, dh.skeleton, dh.eyes, dh.springBone, dh.springCollider, dh.armatureLink, dh.reaction, dh.box, dh.collider, dh.physicsProp, dh.mover, dh.button, dh.pressurePlate, dh.voxelBlock, dh.bake, dh.lod",
    );
}

#[test]
fn unknown_component_at_load_is_kept_and_warned_once_per_type() {
    let text = r#"{ "components": [ { "$type": "dh.example", "x": 1 }, { "$type": "dh.example" } ],
  "children": [ { "path": "A", "components": [ { "$type": "dh.other" } ] } ] }"#;
    let (obj, d) = run(text, Mode::Load);
    assert_eq!(
        messages(&d),
        vec![
            "'dh.example' is not a component this build knows; skipped.",
            "'dh.other' is not a component this build knows; skipped.",
        ]
    );
    assert!(d.iter().all(|d| d.severity == Severity::Warning));
    let obj = obj.unwrap();
    assert_eq!(
        obj.components[0].to_json().to_json(),
        r#"{"$type":"dh.example","x":1}"#
    );
}

#[test]
fn lod_is_refused_as_deferred() {
    one_error(
        &on_root(r#"{ "$type": "dh.lod" }"#),
        "'dh.lod' is reserved and deferred. Level-of-detail data is not designed yet, and an object carrying dh.lod is a compile error",
    );
}

#[test]
fn root_only_components_are_refused_on_a_part() {
    for c in [
        "dh.eyes",
        "dh.springCollider",
        "dh.reaction",
        "dh.box",
        "dh.mover",
        "dh.button",
        "dh.pressurePlate",
        "dh.voxelBlock",
    ] {
        // The members each requires wherever it stands.
        let id = match c {
            "dh.springCollider" => r#", "id": "x""#,
            "dh.reaction" => r#", "on": "died", "actions": []"#,
            _ => "",
        };
        let d = build(&on_part(&format!(r#"{{ "$type": "{c}"{id} }}"#)));
        assert_eq!(errors(&d).len(), 1, "{}", lines(&d));
        assert_eq!(
            errors(&d)[0],
            format!("A part does not take '{c}' ('{c}' goes on the object's root); a part takes: dh.renderer, dh.skeleton, dh.springBone, dh.armatureLink, dh.collider, dh.physicsProp, dh.bake"),
            "{c}"
        );
    }
}

#[test]
fn part_only_components_are_refused_on_the_root() {
    for c in ["dh.springBone", "dh.bake"] {
        one_error(
            &on_root(&format!(r#"{{ "$type": "{c}" }}"#)),
            &format!("The object's root does not take '{c}' ('{c}' goes on a part); the object's root takes: dh.renderer, dh.skeleton, dh.eyes, dh.springCollider, dh.armatureLink, dh.reaction, dh.box, dh.collider, dh.physicsProp, dh.mover, dh.button, dh.pressurePlate, dh.voxelBlock"),
        );
    }
}

#[test]
fn components_both_owners_take() {
    for c in [
        r#"{ "$type": "dh.renderer" }"#,
        r#"{ "$type": "dh.skeleton", "rig": "r.dh-rig" }"#,
        r#"{ "$type": "dh.armatureLink", "target": "", "bone": "Head" }"#,
        r#"{ "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": 0.5 } ] }"#,
    ] {
        clean(&on_root(c));
        clean(&on_part(c));
    }
}

#[test]
fn an_added_records_root_takes_what_a_root_takes() {
    one_error(
        r#"{ "objects": [ { "id": "a", "source": "a.dh-obj", "components": [ { "$type": "dh.springBone" } ] } ] }"#,
        "The object's root does not take 'dh.springBone' ('dh.springBone' goes on a part); the object's root takes: dh.renderer, dh.skeleton, dh.eyes, dh.springCollider, dh.armatureLink, dh.reaction, dh.box, dh.collider, dh.physicsProp, dh.mover, dh.button, dh.pressurePlate, dh.voxelBlock",
    );
    clean(
        r#"{ "objects": [ { "id": "a", "source": "a.dh-obj", "children": [ { "path": "Tail", "components": [ { "$type": "dh.springBone" } ] } ] } ] }"#,
    );
}

#[test]
fn one_of_each_type_per_owner() {
    one_error(
        &on_part(r#"{ "$type": "dh.renderer" }, { "$type": "dh.renderer" }"#),
        "carries more than one 'dh.renderer'; an owner holds one of each type",
    );
}

#[test]
fn spring_colliders_are_one_per_id() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.springCollider", "id": "chest", "radius": 0.1 }, { "$type": "dh.springCollider", "id": "chest", "radius": 0.2 }"#,
        ),
        "carries more than one 'dh.springCollider' with id 'chest'; an owner holds one of each type per key",
    );
    clean(&on_root(
        r#"{ "$type": "dh.springCollider", "id": "chest", "radius": 0.1 }, { "$type": "dh.springCollider", "id": "head", "radius": 0.2 }"#,
    ));
}

#[test]
fn reactions_are_one_per_on_and_tier() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.reaction", "on": "damaged", "tier": "big", "actions": [] },
               { "$type": "dh.reaction", "on": "damaged", "tier": "big", "actions": [] }"#,
        ),
        "carries more than one 'dh.reaction' with on 'damaged' tier 'big'; an owner holds one of each type per key",
    );
    clean(&on_root(
        r#"{ "$type": "dh.reaction", "on": "damaged", "tier": "big", "actions": [] },
           { "$type": "dh.reaction", "on": "damaged", "tier": "small", "actions": [] },
           { "$type": "dh.reaction", "on": "damaged", "actions": [] }"#,
    ));
}

#[test]
fn removed_is_taken_by_every_component() {
    let (obj, d) = run(
        r#"{ "inherits": "core:objects/physicsCube.dh-obj", "components": [
  { "$type": "dh.physicsProp", "removed": true }, { "$type": "dh.box", "removed": true },
  { "$type": "dh.renderer", "removed": true }, { "$type": "dh.eyes", "removed": true } ] }"#,
        Mode::Build,
    );
    assert!(d.is_empty(), "{}", lines(&d));
    let obj = obj.unwrap();
    assert!(obj.components.iter().all(|c| c.is_removed()));
    assert_eq!(
        obj.components[0].to_json().to_json(),
        r#"{"$type":"dh.physicsProp","removed":true}"#
    );
}

// ---- dh.renderer ------------------------------------------------------------------------

#[test]
fn renderer_generated_mark_is_the_compilers_alone() {
    one_error(
        &on_part(r#"{ "$type": "dh.renderer", "generated": true }"#),
        "'generated' is the compiler's mark alone: a source stating it is a build error",
    );
    let (_, d) = run(
        &on_part(r#"{ "$type": "dh.renderer", "generated": true }"#),
        Mode::Load,
    );
    assert!(d.is_empty(), "{}", lines(&d));
}

#[test]
fn renderer_materials_name_dh_materials() {
    let d = one_error(
        &on_part(r#"{ "$type": "dh.renderer", "materials": { "Fur": "textures/fur.png", "Eye": "eye.dh-mat" } }"#),
        "slot 'Fur' names 'textures/fur.png', which is not a dh.material; a renderer binds a .dh-mat per slot",
    );
    assert_eq!(d.path, "children[0].components[0].materials");
}

#[test]
fn renderer_shapes_are_numbers() {
    let d = build(&on_part(
        r#"{ "$type": "dh.renderer", "shapes": { "Blink": "full" } }"#,
    ));
    assert_eq!(errors(&d), vec!["expected a number, found a string"]);
    assert_eq!(d[0].path, "children[0].components[0].shapes.Blink");
}

// ---- dh.eyes ----------------------------------------------------------------------------

#[test]
fn eyes_axes_and_shares_are_within_0_and_1() {
    let d = build(&on_root(
        r#"{ "$type": "dh.eyes", "look": { "confidence": 1.5, "activity": -0.1, "faceGazeShare": 2, "breakOnMutualGaze": 1.01, "aversionDownBias": -1 }, "blink": { "depthMin": 1.2 } }"#,
    ));
    assert_eq!(
        errors(&d),
        vec![
            "'confidence' must be from 0 to 1, found 1.5",
            "'activity' must be from 0 to 1, found -0.1",
            "'faceGazeShare' must be from 0 to 1, found 2",
            "'breakOnMutualGaze' must be from 0 to 1, found 1.01",
            "'aversionDownBias' must be from 0 to 1, found -1",
            "'depthMin' must be from 0 to 1, found 1.2",
        ]
    );
}

#[test]
fn eyes_times_and_rate_are_not_negative() {
    let d = build(&on_root(
        r#"{ "$type": "dh.eyes", "look": { "faceDwellMean": -1, "idleHoldMean": -2, "microSaccadeInterval": -3 },
             "blink": { "rate": -17, "minInterval": -1, "closeTime": -0.08, "holdTime": -0.02, "openTime": -0.16 } }"#,
    ));
    assert_eq!(
        errors(&d),
        vec![
            "'faceDwellMean' must not be negative, found -1",
            "'idleHoldMean' must not be negative, found -2",
            "'microSaccadeInterval' must not be negative, found -3",
            "'rate' must not be negative, found -17",
            "'minInterval' must not be negative, found -1",
            "'closeTime' must not be negative, found -0.08",
            "'holdTime' must not be negative, found -0.02",
            "'openTime' must not be negative, found -0.16",
        ]
    );
    clean(&on_root(
        r#"{ "$type": "dh.eyes", "look": { "confidence": 0, "activity": 1 }, "blink": { "rate": 0, "closeTime": 0 } }"#,
    ));
}

// ---- dh.springBone ----------------------------------------------------------------------

#[test]
fn spring_bone_jiggle_refuses_spring() {
    one_error(
        &on_part(r#"{ "$type": "dh.springBone", "pull": 0.2, "spring": 0.3 }"#),
        "'spring' is a physBones field, and this chain's mode is 'jiggle': authoring a field from the other mode is a compile error (jiggle authors 'damping')",
    );
}

#[test]
fn spring_bone_phys_bones_refuses_damping() {
    one_error(
        &on_part(r#"{ "$type": "dh.springBone", "mode": "physBones", "damping": 0.7 }"#),
        "'damping' is a jiggle field, and this chain's mode is 'physBones': authoring a field from the other mode is a compile error (physBones authors 'spring')",
    );
}

#[test]
fn spring_bone_variant_with_unset_mode_inherits_it() {
    // The inherited chain may be physBones: the resolved chain is checked, not this layer.
    clean(
        r#"{ "inherits": "base.dh-avatar", "children": [ { "path": "Tail", "components": [ { "$type": "dh.springBone", "spring": 0.5 } ] } ] }"#,
    );
}

#[test]
fn spring_bone_mode_tokens() {
    one_error(
        &on_part(r#"{ "$type": "dh.springBone", "mode": "physbones" }"#),
        "'physbones' is not a valid spring bone mode; expected one of: jiggle, physBones; did you mean `physBones`?",
    );
    one_error(
        &on_part(r#"{ "$type": "dh.springBone", "limitType": "cone" }"#),
        "'cone' is not a valid limitType; expected one of: none, angle, hinge, polar",
    );
    one_error(
        &on_part(r#"{ "$type": "dh.springBone", "immobileFrame": "world" }"#),
        "'world' is not a valid immobileFrame; expected one of: none, parent, sceneRoot, node",
    );
}

#[test]
fn spring_bone_lists_at_most_32_colliders() {
    let ids = |n: usize| {
        (0..n)
            .map(|i| format!("\"c{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    one_error(
        &on_part(&format!(
            r#"{{ "$type": "dh.springBone", "colliders": [{}] }}"#,
            ids(33)
        )),
        "'colliders' lists 33 ids; a chain lists at most 32",
    );
    clean(&on_part(&format!(
        r#"{{ "$type": "dh.springBone", "colliders": [{}] }}"#,
        ids(32)
    )));
}

#[test]
fn spring_bone_hand_tokens_name_the_field() {
    let d = build(&on_part(
        r#"{ "$type": "dh.springBone", "allowCollision": "all", "allowGrabbing": "mine", "allowPosing": "anyone" }"#,
    ));
    assert_eq!(
        errors(&d),
        vec![
            "'all' is not a valid 'allowCollision' token; expected one of: none, self, others, both",
            "'mine' is not a valid 'allowGrabbing' token; expected one of: none, self, others, both",
            "'anyone' is not a valid 'allowPosing' token; expected one of: none, self, others, both",
        ]
    );
}

#[test]
fn spring_bone_posing_a_hand_that_may_not_grab_warns() {
    let d = build(&on_part(
        r#"{ "$type": "dh.springBone", "allowGrabbing": "self", "allowPosing": "both" }"#,
    ));
    assert!(errors(&d).is_empty());
    assert_eq!(
        warnings(&d),
        vec!["'allowPosing' admits everyone else's ('others') hands, which 'allowGrabbing' does not let grab; only a hand allowGrabbing admits can pose"]
    );
    // Unset allowGrabbing is none on the lowest layer.
    let d = build(&on_part(
        r#"{ "$type": "dh.springBone", "allowPosing": "self" }"#,
    ));
    assert_eq!(warnings(&d).len(), 1);
}

// ---- dh.springCollider ------------------------------------------------------------------

#[test]
fn spring_collider_id_is_required_and_camel_case() {
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "radius": 0.1 }"#),
        "dh.springCollider is missing its required member 'id'",
    );
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "id": "Left Hand", "radius": 0.1 }"#),
        "'Left Hand' is not a camelCase id: a spring collider's id starts with a lowercase letter and holds only letters and digits",
    );
}

#[test]
fn spring_collider_refuses_both_bone_and_node() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.springCollider", "id": "chest", "bone": "Chest", "node": "Armature/Chest" }"#,
        ),
        "a spring collider hangs on 'bone' or 'node', not both: they are one anchor",
    );
}

#[test]
fn spring_collider_bone_is_a_humanoid_role() {
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "id": "tail", "bone": "Tail" }"#),
        "'Tail' is not a humanoid role; a bone the rig does not map is named by its path in 'node'",
    );
    clean(&on_root(
        r#"{ "$type": "dh.springCollider", "id": "tail", "node": "Armature/Hips/Tail" }"#,
    ));
}

#[test]
fn spring_collider_refuses_reserved_and_unknown_shapes() {
    for reserved in ["plane", "insideSphere", "insideCapsule"] {
        one_error(
            &on_root(&format!(
                r#"{{ "$type": "dh.springCollider", "id": "floor", "shape": "{reserved}" }}"#
            )),
            &format!("'{reserved}' is a reserved spring collider shape and is refused; expected one of: sphere, capsule"),
        );
    }
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "id": "floor", "shape": "box" }"#),
        "'box' is not a valid spring collider shape; expected one of: sphere, capsule",
    );
}

#[test]
fn spring_collider_refuses_a_negative_radius() {
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "id": "chest", "radius": -0.1 }"#),
        "'radius' must not be negative, found -0.1",
    );
}

#[test]
fn spring_collider_refuses_a_malformed_point() {
    one_error(
        &on_root(r#"{ "$type": "dh.springCollider", "id": "chest", "offset": [0, 0.02] }"#),
        "expected exactly three numbers, found 2 items",
    );
}

#[test]
fn resolved_spring_collider_needs_anchor_shape_radius_and_a_capsules_tail() {
    let read = |text: &str| {
        let file = SourceFile::new("t.dh-obj", text);
        let mut diags = Diagnostics::new();
        let v = parse_source(&file, &mut diags).unwrap();
        {
            let mut cx = Cx::new(&file, &mut diags, Mode::Build);
            let c = SpringCollider::from_json(&mut cx, &v).unwrap();
            c.validate_resolved(&mut cx);
        }
        messages(&diags.items)
    };
    assert_eq!(
        read(r#"{ "id": "chest" }"#),
        vec![
            "spring collider 'chest' has no anchor: no layer sets 'bone' or 'node'",
            "spring collider 'chest' has no shape: no layer sets 'shape'",
            "spring collider 'chest' has no radius: no layer sets 'radius'",
        ]
    );
    assert_eq!(
        read(r#"{ "id": "chest", "bone": "Chest", "shape": "capsule", "radius": 0.1 }"#),
        vec!["spring collider 'chest' is a capsule with no tail: a capsule needs 'tail', its second end"]
    );
    assert!(
        read(r#"{ "id": "chest", "bone": "Chest", "shape": "sphere", "radius": 0.1 }"#).is_empty()
    );
}

// ---- dh.armatureLink --------------------------------------------------------------------

#[test]
fn armature_link_graft_is_bone_to_bone_only() {
    let d = build(
        r#"{ "objects": [ { "id": "collar", "source": "collar.dh-obj", "components": [
  { "$type": "dh.armatureLink", "target": "", "bone": "Neck", "keepWorldTransform": true, "graft": { "CollarRoot": "Neck" } } ] } ] }"#,
    );
    assert_eq!(
        errors(&d),
        vec![
            "'graft' is bone-to-bone mode and 'bone' single-bone mode; one link cannot state both",
            "'graft' is bone-to-bone mode and 'keepWorldTransform' single-bone mode; one link cannot state both",
        ]
    );
}

#[test]
fn armature_link_on_a_rigless_owner_requires_bone() {
    one_error(
        &on_part(r#"{ "$type": "dh.armatureLink", "target": "Armature" }"#),
        "this owner carries no 'dh.skeleton', so its link is a single-bone attachment, which requires 'bone'",
    );
    // With its own rig it links bone to bone.
    clean(&on_part(
        r#"{ "$type": "dh.skeleton", "rig": "rigs/clothes.dh-rig" }, { "$type": "dh.armatureLink", "target": "Armature" }"#,
    ));
}

// ---- dh.reaction ------------------------------------------------------------------------

#[test]
fn reaction_refuses_an_unknown_event_or_tier() {
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "on": "sneezed", "actions": [] }"#),
        "'sneezed' is not a valid reaction event; expected one of: died, revived, dying, jumped, footstep, landedHard, damaged",
    );
    one_error(
        &on_root(
            r#"{ "$type": "dh.reaction", "on": "footstep", "tier": "sprint", "actions": [] }"#,
        ),
        "'sprint' is not a valid reaction tier; expected one of: walk, run, small, big",
    );
}

#[test]
fn reaction_tier_must_be_one_of_its_events() {
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "on": "footstep", "tier": "big", "actions": [] }"#),
        "'big' is not a tier of 'footstep'; its tiers are: walk, run",
    );
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "on": "died", "tier": "small", "actions": [] }"#),
        "'small' is not a tier of 'died', which has no tiers",
    );
}

#[test]
fn reaction_requires_on_and_actions_unless_removed() {
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "actions": [] }"#),
        "dh.reaction is missing its required member 'on'",
    );
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "on": "jumped" }"#),
        "dh.reaction is missing its required member 'actions'",
    );
}

#[test]
fn reaction_actions_are_the_two_sounds() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.reaction", "on": "jumped", "actions": [ { "$type": "dh.mover" } ] }"#,
        ),
        "'dh.mover' is not a valid reaction action; expected one of: dh.playSound, dh.speakSound",
    );
    clean(&on_root(
        r#"{ "$type": "dh.reaction", "on": "footstep", "tier": "run", "actions": [ { "$type": "dh.playSound", "clips": ["sounds/bell.wav"], "bone": "Neck" } ] }"#,
    ));
}

#[test]
fn reaction_clips_are_stored_audio_files() {
    one_error(
        &on_root(r#"{ "$type": "dh.reaction", "on": "jumped", "actions": [ { "$type": "dh.playSound", "clips": ["sounds/hop.ogg", "sounds/hop.txt"] } ] }"#),
        "clip 'sounds/hop.txt' is not a stored audio file; a clip is a .wav, .ogg, .mp3, .flac, .aif",
    );
    clean(&on_root(
        r#"{ "$type": "dh.reaction", "on": "jumped", "actions": [ { "$type": "dh.speakSound", "clips": ["a.WAV", "b.flac", "c.aif", "d.mp3", "e.ogg"], "mouth": false } ] }"#,
    ));
}

#[test]
fn reaction_sound_with_no_clips_warns() {
    let d = build(&on_root(
        r#"{ "$type": "dh.reaction", "on": "jumped", "actions": [ { "$type": "dh.speakSound", "clips": [] } ] }"#,
    ));
    assert!(errors(&d).is_empty(), "{}", lines(&d));
    assert_eq!(
        warnings(&d),
        vec!["'dh.speakSound' has no clips, so it plays nothing"]
    );
    one_error(
        &on_root(
            r#"{ "$type": "dh.reaction", "on": "jumped", "actions": [ { "$type": "dh.speakSound" } ] }"#,
        ),
        "dh.speakSound is missing its required member 'clips'",
    );
}

// ---- dh.voxelBlock ----------------------------------------------------------------------

#[test]
fn voxel_block_is_empty_on_a_pallet_object() {
    one_error(
        &on_root(r#"{ "$type": "dh.voxelBlock", "placement": "0:50,14,27" }"#),
        "a pallet object carries 'dh.voxelBlock' empty: its placement is generated at load, never saved",
    );
    let (_, d) = run(
        &on_root(r#"{ "$type": "dh.voxelBlock", "placement": "0:50,14,27" }"#),
        Mode::Load,
    );
    assert!(d.is_empty(), "{}", lines(&d));
}

#[test]
fn voxel_block_placement_is_grid_and_cell() {
    let (_, d) = run(
        &on_root(r#"{ "$type": "dh.voxelBlock", "placement": "0:50,14" }"#),
        Mode::Load,
    );
    assert_eq!(
        errors(&d),
        vec!["'0:50,14' is not a voxel placement; expected grid:x,y,z (e.g. 0:50,14,27)"]
    );
}

// ---- The shared map components on an object ---------------------------------------------

#[test]
fn box_material_names_an_asset_not_a_slot() {
    one_error(
        &on_root(r#"{ "$type": "dh.box", "material": "orange" }"#),
        "'material' names 'orange', which is not a dh.material: an object owns no map and therefore no material slot table, so it names a .dh-mat asset",
    );
}

#[test]
fn box_material_is_required_with_nothing_beneath() {
    one_error(
        &on_root(r#"{ "$type": "dh.box", "size": [1, 1, 1] }"#),
        "dh.box is missing its required member 'material': with nothing beneath it to inherit from, a box names the .dh-mat its faces render with",
    );
    // A placement or variant states only what departs.
    clean(
        r#"{ "inherits": "core:objects/physicsCube.dh-obj", "components": [ { "$type": "dh.box", "material": "/materials/crate-blue.dh-mat" }, { "$type": "dh.physicsProp", "mass": 20 } ] }"#,
    );
}

#[test]
fn box_size_must_be_positive_named_by_owner() {
    one_error(
        &on_root(r#"{ "$type": "dh.box", "size": [1, 0, 1], "material": "m.dh-mat" }"#),
        "object root (dh.box) 'size' must be positive",
    );
}

#[test]
fn collider_shape_rules_apply_on_parts() {
    let d = build(&on_part(
        r#"{ "$type": "dh.collider", "shapes": [ { "type": "sphere", "radius": 0 } ] }"#,
    ));
    assert_eq!(
        errors(&d),
        vec!["part 'Armature/Tail' (dh.collider) shapes[0] (sphere) 'radius' must be above zero, found 0"]
    );
}

#[test]
fn collider_material_names_an_asset() {
    one_error(
        &on_part(r#"{ "$type": "dh.collider", "material": "metal" }"#),
        "'material' names 'metal', which is not a dh.material: an object owns no map and therefore no material slot table, so it names a .dh-mat asset",
    );
}

#[test]
fn a_button_or_plate_needs_its_body() {
    one_error(
        &on_root(r#"{ "$type": "dh.button" }"#),
        "'dh.button' has no body: its object carries neither a 'dh.box' nor a 'dh.collider' holding one box shape",
    );
    one_error(
        &on_root(r#"{ "$type": "dh.pressurePlate" }"#),
        "'dh.pressurePlate' has no body: its object carries neither a 'dh.box' nor a 'dh.collider' holding one box shape",
    );
    clean(&on_root(
        r#"{ "$type": "dh.button" }, { "$type": "dh.box", "size": [0.2, 0.2, 0.1], "material": "/materials/button.dh-mat" }"#,
    ));
}

#[test]
fn a_collider_with_no_shapes_beside_a_box_is_the_box() {
    clean(&on_root(
        r#"{ "$type": "dh.button" }, { "$type": "dh.collider" }, { "$type": "dh.box", "material": "/materials/b.dh-mat" }"#,
    ));
    one_error(
        &on_root(r#"{ "$type": "dh.button" }, { "$type": "dh.collider" }"#),
        "'dh.button' needs exactly one shape in its object's 'dh.collider', which holds 0",
    );
}

#[test]
fn the_roots_collider_holds_exactly_one_box_shape() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.mover" }, { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] }, { "type": "box", "halfExtents": [1, 1, 1] } ] }"#,
        ),
        "'dh.mover' needs exactly one shape in its object's 'dh.collider', which holds 2",
    );
}

#[test]
fn a_bodiless_mover_is_allowed_on_an_object() {
    clean(&on_root(
        r#"{ "$type": "dh.mover", "motion": "slide", "distance": 3 }"#,
    ));
}

#[test]
fn mover_rules_apply_on_an_object() {
    let d = build(&on_root(
        r#"{ "$type": "dh.mover", "motion": "rotate", "angle": 0 }"#,
    ));
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{}", lines(&d));
    assert!(e[0].contains("object root (dh.mover)"), "{e:?}");
    assert!(e[0].contains("'angle'"), "{e:?}");
}

#[test]
fn a_physics_prop_needs_a_box() {
    one_error(
        &on_root(r#"{ "$type": "dh.physicsProp", "mass": 30 }"#),
        "'dh.physicsProp' needs a 'dh.box' on its object: the box is what the prop looks like and what its material weighs",
    );
}

#[test]
fn a_physics_prop_does_not_share_its_object_with_logic() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.box", "material": "c.dh-mat" }, { "$type": "dh.physicsProp" }, { "$type": "dh.button" }"#,
        ),
        "'dh.physicsProp' cannot share its object with a 'dh.button': the body is the solver's alone",
    );
}

#[test]
fn physics_prop_mass_rule_applies() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.box", "material": "c.dh-mat" }, { "$type": "dh.physicsProp", "mass": 0 }"#,
        ),
        "object root (dh.physicsProp) 'mass' must be at least 0.001 kg, found 0",
    );
}

#[test]
fn physics_prop_sim_tokens() {
    one_error(
        &on_root(
            r#"{ "$type": "dh.box", "material": "c.dh-mat" }, { "$type": "dh.physicsProp", "sim": "both" }"#,
        ),
        "'both' is not a valid physics prop sim; expected one of: server, client",
    );
}

#[test]
fn bake_on_a_part_is_read_and_checked() {
    clean(&on_part(
        r#"{ "$type": "dh.bake", "zone": "underground", "lightmapScale": 0.5 }"#,
    ));
    one_error(
        &on_part(r#"{ "$type": "dh.bake", "lightmapScale": -1 }"#),
        "part 'Armature/Tail' (dh.bake) 'lightmapScale' must not be negative, found -1; 0 takes the owner out of the atlas",
    );
}

#[test]
fn every_error_of_a_file_is_reported() {
    let d = build(
        r#"{ "model": "m.obj", "objects": [ { "id": "A", "source": "a.dh-obj" } ],
  "children": [ { "path": "B", "first": true, "components": [ { "$type": "dh.eyes" } ] } ],
  "components": [ { "$type": "dh.lod" } ] }"#,
    );
    assert_eq!(errors(&d).len(), 5, "{}", lines(&d));
}
