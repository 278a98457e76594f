//! The `.dh-model` sidecar: the spec's two complete examples (the ops list and the short
//! drop form) parse as written, and one test per rule (dh.object spec, Sidecar Files).

use dh_content::diag::{Diagnostic, Diagnostics, Severity, SourceFile};
use dh_content::read::{Mode, ToJson};
use dh_content::schema::common::Vec3;
use dh_content::schema::model::{read_model_sidecar, ModelSidecar, Op, OpScale};

fn run(text: &str) -> (Option<ModelSidecar>, Vec<Diagnostic>) {
    let file = SourceFile::new("models/robot.fbx.dh-model", text);
    let mut diags = Diagnostics::new();
    let s = read_model_sidecar(&file, &mut diags, Mode::Build);
    (s, diags.items)
}

fn errors(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn clean(text: &str) -> ModelSidecar {
    let (s, d) = run(text);
    assert!(d.is_empty(), "{d:#?}");
    s.expect("a sidecar")
}

fn one_error(text: &str) -> String {
    let (_, d) = run(text);
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{d:#?}");
    e.into_iter().next().unwrap_or_default()
}

/// `(kind, target)` of every op, short-form drops included.
fn pairs(s: &ModelSidecar) -> Vec<(String, String)> {
    s.all_ops()
        .iter()
        .map(|o| (o.tag().to_string(), o.target().to_string()))
        .collect()
}

// ---- The spec's complete examples --------------------------------------------------------

const SPEC_OPS: &str = r#"{
  "ops": [
    { "kind": "drop", "target": "CollisionProxy" },
    { "kind": "rename", "target": "mesh_001", "name": "Hull" },
    { "kind": "transform", "target": "Antenna", "position": [0, 1.2, 0], "rotation": [0, 45, 0], "scale": 2 },
    { "kind": "reparent", "target": "Antenna", "parent": "Head" },
    { "kind": "merge", "target": "TreeA", "with": ["TreeB", "TreeC"] }
  ]
}"#;

#[test]
fn spec_example_ops_list() {
    let s = clean(SPEC_OPS);
    assert_eq!(
        pairs(&s),
        vec![
            ("drop".to_string(), "CollisionProxy".to_string()),
            ("rename".to_string(), "mesh_001".to_string()),
            ("transform".to_string(), "Antenna".to_string()),
            ("reparent".to_string(), "Antenna".to_string()),
            ("merge".to_string(), "TreeA".to_string()),
        ]
    );
    let [_, Op::Rename(r), Op::Transform(t), Op::Reparent(p), Op::Merge(m)] = &s.ops[..] else {
        panic!("unexpected ops {:?}", s.ops);
    };
    assert_eq!(r.name, "Hull");
    assert_eq!(t.position, Some(Vec3([0.0, 1.2, 0.0])));
    assert_eq!(t.rotation, Some(Vec3([0.0, 45.0, 0.0])));
    assert_eq!(t.scale, Some(OpScale::Uniform(2.0)));
    assert_eq!(t.scale.unwrap().to_vec3(), Vec3([2.0; 3]));
    assert_eq!(p.parent, "Head");
    assert!(
        p.keeps_world_transform(),
        "keepWorldTransform defaults to true"
    );
    let with: Vec<&str> = m.with.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(with, ["TreeB", "TreeC"]);
    assert_eq!(
        s.to_json().to_json(),
        r#"{"ops":[{"kind":"drop","target":"CollisionProxy"},{"kind":"rename","target":"mesh_001","name":"Hull"},{"kind":"transform","target":"Antenna","position":[0,1.2,0],"rotation":[0,45,0],"scale":2},{"kind":"reparent","target":"Antenna","parent":"Head"},{"kind":"merge","target":"TreeA","with":["TreeB","TreeC"]}]}"#
    );
}

#[test]
fn spec_example_short_drop_form() {
    let s = clean(
        r#"{
  "drop": ["LOD1", "LOD2", "CollisionProxy"]
}"#,
    );
    // Exactly one drop op per entry.
    assert_eq!(
        pairs(&s),
        vec![
            ("drop".to_string(), "LOD1".to_string()),
            ("drop".to_string(), "LOD2".to_string()),
            ("drop".to_string(), "CollisionProxy".to_string()),
        ]
    );
    assert_eq!(s.all_ops()[2].at().path, "drop[2]");
    assert_eq!(
        s.to_json().to_json(),
        r#"{"drop":["LOD1","LOD2","CollisionProxy"]}"#
    );
}

// ---- The set keyed by (kind, target) -----------------------------------------------------

#[test]
fn duplicate_kind_and_target_names_both_entries() {
    let text = "{\n  \"ops\": [\n    { \"kind\": \"drop\", \"target\": \"CollisionProxy\" },\n    { \"kind\": \"rename\", \"target\": \"CollisionProxy\", \"name\": \"Proxy\" },\n    { \"kind\": \"drop\", \"target\": \"CollisionProxy\" }\n  ]\n}";
    let (_, d) = run(text);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].to_string(),
        "models/robot.fbx.dh-model:5:5: error: ops[2]: ops[2] and ops[0] (line 3, column 5) are both a 'drop' op on 'CollisionProxy'; the ops list is a set keyed by kind and target, so keep one entry"
    );
}

#[test]
fn duplicate_in_the_short_form() {
    assert_eq!(
        one_error(r#"{ "drop": ["LOD1", "LOD2", "LOD1"] }"#),
        "drop[2] and drop[0] (line 1, column 12) are both a 'drop' op on 'LOD1'; the ops list is a set keyed by kind and target, so keep one entry"
    );
}

#[test]
fn different_kinds_may_share_a_target() {
    // The spec's transform and reparent both act on Antenna.
    clean(
        r#"{ "ops": [
          { "kind": "transform", "target": "Antenna", "scale": [1, 2, 1] },
          { "kind": "reparent", "target": "Antenna", "parent": "Head", "keepWorldTransform": false },
          { "kind": "rename", "target": "Antenna", "name": "Mast" } ] }"#,
    );
    // Targets are case-sensitive: these are two nodes.
    clean(r#"{ "drop": ["lod1", "LOD1"] }"#);
}

// ---- The ops' closed blocks and discriminator ---------------------------------------------

#[test]
fn unknown_kind_lists_the_kinds() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "delete", "target": "A" } ] }"#),
        "'delete' is not a valid sidecar op; expected one of: drop, rename, transform, reparent, merge"
    );
}

#[test]
fn an_op_names_its_kind() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "target": "A" } ] }"#),
        "a sidecar op needs a 'kind' member; expected one of: drop, rename, transform, reparent, merge"
    );
}

#[test]
fn each_op_is_a_closed_block() {
    let (_, d) =
        run("{ \"ops\": [\n  { \"kind\": \"drop\", \"target\": \"A\", \"name\": \"B\" } ] }");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].to_string(),
        "models/robot.fbx.dh-model:2:36: error: ops[0]: unknown member 'name' in drop op; the fields of drop op are: target"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": 1, "translate": [0, 0, 0] } ] }"#),
        "unknown member 'translate' in transform op; the fields of transform op are: target, position, rotation, scale"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "reparent", "target": "A", "parent": "B", "keepWorld": true } ] }"#),
        "unknown member 'keepWorld' in reparent op; the fields of reparent op are: target, parent, keepWorldTransform; did you mean `keepWorldTransform`?"
    );
}

#[test]
fn required_members_of_each_op() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "drop" } ] }"#),
        "drop op is missing its required member 'target'"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "rename", "target": "A" } ] }"#),
        "rename op is missing its required member 'name'"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "reparent", "target": "A" } ] }"#),
        "reparent op is missing its required member 'parent'"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "merge", "target": "A" } ] }"#),
        "merge op is missing its required member 'with'"
    );
}

#[test]
fn the_sidecar_is_a_closed_block() {
    assert_eq!(
        one_error(r#"{ "ops": [], "rename": {} }"#),
        "unknown member 'rename' in .dh-model sidecar; the fields of .dh-model sidecar are: ops, drop"
    );
}

#[test]
fn type_is_optional_and_must_be_dh_model() {
    clean(r#"{ "$type": "dh.model", "drop": ["A"] }"#);
    assert_eq!(
        one_error(r#"{ "$type": "dh.object", "drop": ["A"] }"#),
        "'$type' must be \"dh.model\" in this file (the type follows the file's extension)"
    );
}

#[test]
fn ops_and_the_short_form_are_not_mixed() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "rename", "target": "A", "name": "B" } ], "drop": ["C"] }"#),
        "a sidecar states either 'ops' or the short form 'drop', not both; write these drops as { \"kind\": \"drop\", \"target\": ... } entries of 'ops'"
    );
}

// ---- Targets -------------------------------------------------------------------------------

#[test]
fn a_target_is_a_name_or_a_path_from_a_scene_root() {
    clean(r#"{ "ops": [ { "kind": "drop", "target": "Robot/Arm/Hand" } ] }"#);
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "drop", "target": "" } ] }"#),
        "'target' must name a node (an exact node name, or a slash-joined path from a scene root), found an empty string"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "drop", "target": "/Robot/Arm" } ] }"#),
        "'target' \"/Robot/Arm\" is not a node name or a slash-joined path from a scene root: it has an empty segment"
    );
    assert_eq!(
        one_error(r#"{ "drop": ["Robot//Arm"] }"#),
        "'drop' \"Robot//Arm\" is not a node name or a slash-joined path from a scene root: it has an empty segment"
    );
    assert_eq!(
        one_error(r#"{ "drop": [3] }"#),
        "expected a string (a node name or a slash-joined path), found a number"
    );
}

// ---- Per-op rules --------------------------------------------------------------------------

#[test]
fn rename_needs_a_node_name() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "rename", "target": "A", "name": "" } ] }"#),
        "'name' must be a node name, found an empty string"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "rename", "target": "A", "name": "Arm/Hand" } ] }"#),
        "'name' \"Arm/Hand\" holds '/', which joins a path; a node name cannot hold it"
    );
}

#[test]
fn transform_scale_takes_one_number_or_three() {
    let s = clean(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": [1, 2, 3] } ] }"#);
    let Some(Op::Transform(t)) = s.ops.first() else {
        panic!("{:?}", s.ops)
    };
    assert_eq!(t.scale, Some(OpScale::Axes(Vec3([1.0, 2.0, 3.0]))));
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": [1, 2] } ] }"#),
        "expected exactly three numbers, found 2 items"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": "big" } ] }"#),
        "expected one number or three ([x, y, z]), found a string"
    );
}

#[test]
fn transform_position_and_rotation_are_three_numbers() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "rotation": [0, 45] } ] }"#),
        "expected exactly three numbers, found 2 items"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "position": 1 } ] }"#),
        "expected an array of exactly three numbers, found a number"
    );
}

#[test]
fn transform_scale_has_no_zero_axis() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": 0 } ] }"#),
        "'scale' must not be zero on any axis"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "transform", "target": "A", "scale": [1, 0, 1] } ] }"#),
        "'scale' must not be zero on any axis"
    );
}

#[test]
fn transform_that_sets_nothing_warns() {
    let (_, d) = run(r#"{ "ops": [ { "kind": "transform", "target": "A" } ] }"#);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(
        d[0].message,
        "this transform op sets none of position, rotation, scale, so it leaves 'A' as it is"
    );
}

#[test]
fn reparent_rules() {
    let s = clean(
        r#"{ "ops": [ { "kind": "reparent", "target": "A", "parent": "B", "keepWorldTransform": false } ] }"#,
    );
    let Some(Op::Reparent(p)) = s.ops.first() else {
        panic!("{:?}", s.ops)
    };
    assert!(!p.keeps_world_transform());
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "reparent", "target": "Head", "parent": "Head" } ] }"#),
        "'Head' cannot be reparented under itself"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "reparent", "target": "Head", "parent": "Body/" } ] }"#),
        "'parent' \"Body/\" is not a node name or a slash-joined path from a scene root: it has an empty segment"
    );
}

#[test]
fn merge_with_lists_siblings() {
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "merge", "target": "TreeA", "with": [] } ] }"#),
        "'with' must list at least one sibling node to fold into the target"
    );
    let (_, d) =
        run(r#"{ "ops": [ { "kind": "merge", "target": "TreeA", "with": ["TreeB", "TreeA"] } ] }"#);
    assert_eq!(
        errors(&d),
        vec!["'TreeA' is the merge's target; a node cannot be folded into itself"]
    );
    assert_eq!(d[0].path, "ops[0].with[1]");
    assert_eq!(
        one_error(
            r#"{ "ops": [ { "kind": "merge", "target": "TreeA", "with": ["TreeB", "TreeB"] } ] }"#
        ),
        "'with' lists 'TreeB' twice (first at ops[0].with[0])"
    );
    assert_eq!(
        one_error(r#"{ "ops": [ { "kind": "merge", "target": "TreeA", "with": ["TreeB", ""] } ] }"#),
        "'with' must name a node (an exact node name, or a slash-joined path from a scene root), found an empty string"
    );
}

#[test]
fn all_errors_are_reported() {
    let (_, d) = run(
        r#"{ "ops": [ { "kind": "drop", "target": "" }, { "kind": "nope" }, { "kind": "rename", "target": "A" },
                   { "kind": "merge", "target": "M", "with": [] } ], "extra": 1 }"#,
    );
    assert_eq!(errors(&d).len(), 5, "{d:#?}");
}

#[test]
fn not_an_object() {
    assert_eq!(
        one_error(r#"["A"]"#),
        "expected an object (.dh-model sidecar), found an array"
    );
}
