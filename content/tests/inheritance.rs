//! Map inheritance and object variants checked at build (spec, dh.map "Inheritance" and
//! "How each member folds"; dh.object `inherits` and `resolved`), on the two source pallets
//! under `tests/data/inheritance/`: `env` (an environment template and a child beside it)
//! and `worlds` (children of the template in another pallet, a variant of its crate).
//!
//! Every check that reads a map's records, slots or zones reads the folded chain; a chain
//! into another pallet is followed through the compiled dependency pallets a build mounts
//! (beside the source folder, or named by `--pallet`), and where one is absent the build
//! says so once, naming it, and checks what it can.

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, compile_with, BuildOutput, CompileOptions, DependencySearch};
use dh_content::diag::Severity;
use dh_content::jsonc::{self, Value};
use dh_content::pallet::Pallet;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/inheritance")
        .join(name)
}

fn opts() -> CompileOptions<'static> {
    CompileOptions {
        write: true,
        progress: None,
    }
}

/// A fresh temporary folder for `tag`.
fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-inheritance-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

/// Copies the source pallet `name` into `into/name`, returning its folder.
fn copy_pallet(name: &str, into: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        for e in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
            let e = e.unwrap_or_else(|e| panic!("{e}"));
            let dest = to.join(e.file_name());
            if e.path().is_dir() {
                copy(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), &dest).unwrap_or_else(|err| panic!("{err}"));
            }
        }
    }
    let dest = into.join(name);
    copy(&data(name), &dest);
    dest
}

/// Builds the template pallet and writes it as `into/env.pallet` (where `dh build env`
/// writes it by default, beside the source folder), returning its bytes.
fn build_env_into(into: &Path) -> Vec<u8> {
    let out = compile(&data("env"), &opts());
    assert_no_errors(&out);
    let bytes = out.pallet.unwrap_or_else(|| panic!("env built no pallet"));
    std::fs::write(into.join("env.pallet"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    bytes
}

fn lines(out: &BuildOutput) -> String {
    out.diagnostics
        .items
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[track_caller]
fn assert_no_errors(out: &BuildOutput) {
    assert!(
        !out.diagnostics.has_errors(),
        "expected no errors, got:\n{}",
        lines(out)
    );
}

fn warnings(out: &BuildOutput) -> Vec<String> {
    out.diagnostics
        .items
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect()
}

fn asset_json(out: &BuildOutput, path: &str) -> Value {
    let a = out
        .assets
        .iter()
        .find(|a| a.path == path)
        .unwrap_or_else(|| panic!("no compiled {path}"));
    let text = std::str::from_utf8(&a.bytes).unwrap_or_else(|e| panic!("{e}"));
    jsonc::parse(text).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

fn search_beside(dir: &Path) -> DependencySearch {
    DependencySearch {
        pallets: Vec::new(),
        beside: Some(dir.to_path_buf()),
    }
}

#[test]
fn a_child_reads_its_parents_records_slots_and_zones_in_one_pallet() {
    // evening.dh-map wires its lever to the inherited gate, files it under the inherited
    // folder and puts its box on the inherited "gate" slot: all valid.
    let out = compile(&data("env"), &opts());
    assert_no_errors(&out);
    assert!(out.pallet.is_some());
    let evening: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.file.contains("evening"))
        // The template enables a lightmap and ships no bake, so the child inherits the
        // spec's one "ships lit in real time" warning (000:1303); nothing else is said.
        .filter(|d| !d.message.contains("ships lit in real time"))
        .map(|d| d.to_string())
        .collect();
    assert!(evening.is_empty(), "{evening:?}");
    // The compiled child keeps its own JSON and its inherits (folded at load).
    let child = asset_json(&out, "maps/evening.dh-map");
    assert_eq!(
        child.get("inherits").and_then(Value::as_str),
        Some("template.dh-map")
    );
    assert_eq!(
        child
            .get("objects")
            .and_then(Value::as_array)
            .map(<[Value]>::len),
        Some(1)
    );
}

#[test]
fn overriding_an_inherited_record_stays_refused_and_a_missing_name_is_still_an_error() {
    let root = temp("refused");
    let env = copy_pallet("env", &root);
    std::fs::write(
        env.join("maps/evening.dh-map"),
        r#"{
  "inherits": "template.dh-map",
  "objects": [
    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a06", "name": "gate2", "position": [0, 0, 0] },
    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9b01", "name": "lever", "parent": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9fff", "position": [-2, 1, 2],
      "components": [ { "$type": "dh.box", "size": [0.3, 0.5, 0.3], "material": "nowhere" }, { "$type": "dh.button" }, { "$type": "dh.bake", "zone": "attic" } ],
      "connections": [ { "output": "onPressed", "actions": [
        { "call": { "target": "gateway", "input": "toggle" } },
        { "setBakeSet": { "zone": "yard", "set": "noon" } }
      ] } ] }
  ]
}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = compile(&env, &opts());
    let text = lines(&out);
    let _ = std::fs::remove_dir_all(&root);
    for needle in [
        // "A child record whose id a parent already holds is a build error for a parent in
        // the same pallet."
        "objects[0].id: record '6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a06' has the id of a record parent 'dev.example.env:maps/template.dh-map' already holds",
        "'parent' names 6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9fff, which is not the id of any record in the map",
        "call target 'gateway' names no entity in the map",
        "'material' names 'nowhere', which is not one of the map's material slots; the slots are: grid, wall, gate",
        "'zone' names bake zone 'attic', which lighting.bakeZones lacks; lighting.bakeZones defines: yard",
        "setBakeSet names set 'noon', which bake zone 'yard' does not declare; its sets are: default, dusk",
    ] {
        assert!(
            text.contains(needle),
            "missing {needle:?} in:\n{text}"
        );
    }
    assert!(out.pallet.is_none());
}

#[test]
fn a_child_across_pallets_is_checked_whole_when_its_dependency_is_mounted() {
    let root = temp("mounted");
    let env_bytes = build_env_into(&root);
    let out = compile_with(&data("worlds"), &opts(), &search_beside(&root));
    let _ = std::fs::remove_dir_all(&root);
    assert_no_errors(&out);
    assert!(
        warnings(&out).iter().all(|w| !w.contains("is not mounted")),
        "{:?}",
        warnings(&out)
    );
    // The variant of the template's crate gets its resolved member: the base's size,
    // collider and sim, the variant's mass and material, every reference a barcode.
    let crate_json = asset_json(&out, "objects/blue-crate.dh-obj");
    let resolved = crate_json
        .get("resolved")
        .unwrap_or_else(|| panic!("no resolved member: {}", crate_json.to_json()));
    assert_eq!(
        resolved.to_json(),
        r#"{"name":"Crate","components":[{"$type":"dh.box","size":[0.5,0.5,0.5],"material":"dev.example.env:materials/gate.dh-mat"},{"$type":"dh.collider"},{"$type":"dh.physicsProp","mass":8,"sim":"server"}]}"#
    );
    // The template's pallet is recorded among the ones the child uses, with its checksum.
    let env = Pallet::from_bytes(env_bytes).unwrap_or_else(|e| panic!("{e}"));
    let worlds =
        Pallet::from_bytes(out.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let used = &worlds.manifest().used_dependencies;
    assert_eq!(used.len(), 1, "{used:?}");
    assert_eq!(used[0].id, "dev.example.env");
    assert_eq!(
        used[0].content_checksum,
        env.manifest().build_info.content_checksum
    );
}

#[test]
fn a_mounted_chain_still_refuses_what_no_level_declares() {
    let root = temp("mounted-strict");
    build_env_into(&root);
    let worlds = copy_pallet("worlds", &root);
    std::fs::write(
        worlds.join("maps/night.dh-map"),
        r#"{
  "inherits": "dev.example.env:maps/template.dh-map",
  "objects": [
    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a07", "name": "spawn2", "position": [0, 0, 0] },
    { "$type": "object", "id": "0c2d9e4f-7a31-4b6c-8e05-3f1a2b4c5d01", "name": "gateButton", "position": [2, 1, 2],
      "components": [ { "$type": "dh.box", "size": [0.5, 0.5, 0.3], "material": "gates" }, { "$type": "dh.button" } ],
      "connections": [ { "output": "onPressed", "actions": [ { "call": { "target": "gateway", "input": "toggle" } } ] } ] },
    { "$type": "object", "id": "0c2d9e4f-7a31-4b6c-8e05-3f1a2b4c5d03", "name": "gate", "position": [0, 0, 3] }
  ]
}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // `dh build worlds` from inside `root`: env.pallet lies beside the source folder.
    let out = compile_with(
        &worlds,
        &opts(),
        &DependencySearch::for_source(&worlds, &[]),
    );
    let text = lines(&out);
    let _ = std::fs::remove_dir_all(&root);
    for needle in [
        "call target 'gateway' names no entity in the map",
        "'material' names 'gates', which is not one of the map's material slots; the slots are: grid, wall, gate",
        // A name that repeats a parent's in another pallet is checked when it is mounted.
        "record name 'gate' repeats a record of parent 'dev.example.env:maps/template.dh-map'",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // An id a parent in another pallet holds is left out at load: a warning at build.
    let repeated = out
        .diagnostics
        .items
        .iter()
        .find(|d| d.message.contains("6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a07"))
        .unwrap_or_else(|| panic!("no repeated-id diagnostic in:\n{text}"));
    assert_eq!(repeated.severity, Severity::Warning, "{repeated}");
    assert!(
        repeated
            .message
            .ends_with("; the record is left out at load (objects[0] \"spawn2\")"),
        "{repeated}"
    );
}

#[test]
fn a_dependency_named_by_pallet_flag_is_mounted() {
    let root = temp("flag");
    build_env_into(&root);
    let moved = root.join("elsewhere.pallet");
    std::fs::rename(root.join("env.pallet"), &moved).unwrap_or_else(|e| panic!("{e}"));
    let out = compile_with(
        &data("worlds"),
        &opts(),
        &DependencySearch {
            pallets: vec![moved],
            beside: None,
        },
    );
    let _ = std::fs::remove_dir_all(&root);
    assert_no_errors(&out);
    assert!(asset_json(&out, "objects/blue-crate.dh-obj")
        .get("resolved")
        .is_some());
}

#[test]
fn an_absent_dependency_is_said_once_and_what_can_be_checked_is() {
    let root = temp("absent");
    let out = compile_with(&data("worlds"), &opts(), &search_beside(&root));
    let _ = std::fs::remove_dir_all(&root);
    // The wires, the folder, the slot and the zone of night.dh-map may all be the unseen
    // template's: nothing is refused, and the build says once which pallet it lacks.
    assert_no_errors(&out);
    let absent: Vec<String> = warnings(&out)
        .into_iter()
        .filter(|w| w.contains("is not mounted"))
        .collect();
    assert_eq!(
        absent,
        vec!["pallet.dh: warning: dependencies: dependency 'dev.example.env' is not mounted: no compiled pallet with that id lies beside the source folder and no --pallet names one, so the inheritance chains of maps/night.dh-map, objects/blue-crate.dh-obj (they need dev.example.env:maps/template.dh-map, dev.example.env:objects/crate.dh-obj) are checked only as far as pallet 'dev.example.worlds' goes (the whole is checked where they load); build 'dev.example.env' beside this folder or pass --pallet to check them whole"],
    );
    // The variant is resolved at load, where its base is mounted: no resolved member now.
    assert!(asset_json(&out, "objects/blue-crate.dh-obj")
        .get("resolved")
        .is_none());
    // The template's pallet is still recorded as used (its checksum unknown).
    let worlds =
        Pallet::from_bytes(out.pallet.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
    let used = &worlds.manifest().used_dependencies;
    assert_eq!(used.len(), 1, "{used:?}");
    assert_eq!(used[0].id, "dev.example.env");
    assert_eq!(used[0].content_checksum, "");
}

#[test]
fn a_pallet_flag_that_is_no_dependency_is_not_mounted() {
    let root = temp("stranger");
    build_env_into(&root);
    // env depends on nothing: mounting worlds' own dependency into env's build is refused.
    let out = compile_with(
        &data("env"),
        &opts(),
        &DependencySearch {
            pallets: vec![root.join("env.pallet")],
            beside: None,
        },
    );
    let _ = std::fs::remove_dir_all(&root);
    assert_no_errors(&out);
    let w = warnings(&out);
    assert!(
        w.iter()
            .any(|w| w.contains("is this pallet itself ('dev.example.env')")),
        "{w:?}"
    );
}

#[test]
fn a_teleport_a_backdrop_and_a_bake_set_may_name_what_the_parent_holds() {
    let root = temp("named");
    let env = copy_pallet("env", &root);
    // The template gains a baked lamp; the child names it from its own bake set, files a
    // backdrop under the inherited folder and sends a teleport to the inherited spawn.
    let template =
        std::fs::read_to_string(env.join("maps/template.dh-map")).unwrap_or_else(|e| panic!("{e}"));
    let template = template.replace(
        r#"    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a08""#,
        r#"    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a09", "name": "lamp", "position": [0, 3, 0],
      "components": [ { "$type": "dh.light", "light": "point", "mode": "baked", "intensity": 10, "range": 6 } ] },
    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a08""#,
    );
    assert!(template.contains("\"lamp\""));
    std::fs::write(env.join("maps/template.dh-map"), template).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        env.join("maps/evening.dh-map"),
        r#"{
  "inherits": "template.dh-map",
  "lighting": { "bakeZones": [ { "id": "yard", "sets": [ { "name": "dusk",
    "lights": { "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a09": { "enabled": false } } } ] } ] },
  "backdrop": { "anchor": [0, 0, 0], "scale": 16, "folder": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9a01" },
  "objects": [
    { "$type": "object", "id": "6a0f3c1e-52b4-4d8e-9d61-0c7b1f2e9b02", "name": "booth", "position": [4, 1, 0],
      "components": [
        { "$type": "dh.collider", "state": "trigger", "shapes": [ { "type": "box", "halfExtents": [1, 1, 1] } ] },
        { "$type": "dh.trigger" },
        { "$type": "dh.teleport", "destination": "spawn", "velocity": "zero" } ],
      "connections": [ { "output": "onStartTouch", "actions": [ { "call": { "target": "booth", "input": "teleport" } } ] } ] }
  ]
}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = compile(&env, &opts());
    let _ = std::fs::remove_dir_all(&root);
    assert_no_errors(&out);
    let evening: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.file.contains("evening"))
        // The template enables a lightmap and ships no bake, so the child inherits the
        // spec's one "ships lit in real time" warning (000:1303); nothing else is said.
        .filter(|d| !d.message.contains("ships lit in real time"))
        .map(|d| d.to_string())
        .collect();
    assert!(evening.is_empty(), "{evening:?}");
}
