//! `dh new` end to end: the starter files it writes build clean, carry freshly minted ids,
//! and nothing is ever overwritten.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dh_content::schema::common::Guid;

fn dh() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dh"))
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-new-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    dh().args(args).output().expect("dh runs")
}

fn stderr(r: &Output) -> String {
    String::from_utf8_lossy(&r.stderr).into_owned()
}

/// `dh build <dir> --json -o <out>`: asserts exit 0 and not one diagnostic (a warning
/// included), and returns the pallet's entry paths as `dh inspect --json` lists them.
fn build_clean(dir: &Path, out: &Path) -> Vec<String> {
    let r = run(&[
        "build".as_ref(),
        dir.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let diags = String::from_utf8_lossy(&r.stdout);
    assert!(diags.trim().is_empty(), "diagnostics: {diags}");
    let r = run(&["inspect".as_ref(), out.as_os_str(), "--json".as_ref()]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let v = dh_content::jsonc::parse(&String::from_utf8_lossy(&r.stdout)).expect("inspect JSON");
    v.get("entries")
        .and_then(|e| e.as_array())
        .expect("entries")
        .iter()
        .filter_map(|e| e.get("path").and_then(|p| p.as_str()).map(str::to_string))
        .collect()
}

/// The ids of a map's records, each checked to be a GUID that is not the nil one.
fn record_ids(map: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(map).expect("map written");
    let v = dh_content::jsonc::parse(&text).expect("the map is JSONC");
    let ids: Vec<String> = v
        .get("objects")
        .and_then(|o| o.as_array())
        .expect("objects")
        .iter()
        .map(|o| {
            o.get("id")
                .and_then(|i| i.as_str())
                .expect("id")
                .to_string()
        })
        .collect();
    for id in &ids {
        let g = Guid::parse(id).unwrap_or_else(|| panic!("'{id}' is not a GUID"));
        assert!(g != Guid::NIL, "nil id");
    }
    ids
}

/// The `$type`s of a map's records and of their components.
fn record_types(map: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(map).expect("map written");
    let v = dh_content::jsonc::parse(&text).expect("the map is JSONC");
    let mut types = Vec::new();
    for o in v
        .get("objects")
        .and_then(|o| o.as_array())
        .expect("objects")
    {
        types.extend(o.get("$type").and_then(|t| t.as_str()).map(str::to_string));
        for c in o
            .get("components")
            .and_then(|c| c.as_array())
            .unwrap_or(&[])
        {
            types.extend(c.get("$type").and_then(|t| t.as_str()).map(str::to_string));
        }
    }
    types
}

#[test]
fn new_pallet_builds_clean_and_holds_its_map() {
    let root = temp_dir("pallet");
    let dir = root.join("starter");
    let r = run(&["new".as_ref(), "pallet".as_ref(), dir.as_os_str()]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(stderr(&r).contains("local.starter"), "{}", stderr(&r));

    let manifest = std::fs::read_to_string(dir.join("pallet.dh")).expect("pallet.dh");
    assert!(manifest.contains("\"id\": \"local.starter\""), "{manifest}");
    assert!(manifest.contains("//"), "the manifest is commented");

    let map = dir.join("maps/main.dh-map");
    let types = record_types(&map);
    for t in ["boxBrush", "dh.spawnPoint", "dh.camera"] {
        assert!(types.iter().any(|x| x == t), "no {t} in {types:?}");
    }
    let ids = record_ids(&map);
    assert_eq!(ids.len(), 3, "{ids:?}");
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 3, "repeated ids: {ids:?}");
    let text = std::fs::read_to_string(&map).expect("map");
    assert!(text.contains("\"lighting\"") && text.contains("\"sky\": true"));

    let entries = build_clean(&dir, &root.join("starter.pallet"));
    assert!(
        entries.iter().any(|e| e == "maps/main.dh-map"),
        "{entries:?}"
    );

    // `dh check` agrees: exit 0 and no diagnostics.
    let r = run(&["check".as_ref(), dir.as_os_str(), "--json".as_ref()]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    assert!(String::from_utf8_lossy(&r.stdout).trim().is_empty());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn new_map_and_object_join_a_pallet_and_it_rebuilds_clean() {
    let root = temp_dir("assets");
    let dir = root.join("game");
    let r = run(&[
        "new".as_ref(),
        "pallet".as_ref(),
        dir.as_os_str(),
        "--barcode".as_ref(),
        "dev.example.game".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let manifest = std::fs::read_to_string(dir.join("pallet.dh")).expect("pallet.dh");
    assert!(
        manifest.contains("\"id\": \"dev.example.game\""),
        "{manifest}"
    );

    // The extension is added when the path has none, and folders are made.
    let r = run(&[
        "new".as_ref(),
        "map".as_ref(),
        dir.join("maps/levels/arena").as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let arena = dir.join("maps/levels/arena.dh-map");
    assert!(arena.is_file());
    let r = run(&[
        "new".as_ref(),
        "object".as_ref(),
        dir.join("objects/crate.dh-obj").as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let object = std::fs::read_to_string(dir.join("objects/crate.dh-obj")).expect("object");
    let v = dh_content::jsonc::parse(&object).expect("the object is JSONC");
    let types: Vec<&str> = v
        .get("components")
        .and_then(|c| c.as_array())
        .expect("components")
        .iter()
        .filter_map(|c| c.get("$type").and_then(|t| t.as_str()))
        .collect();
    assert_eq!(types, ["dh.box", "dh.collider"]);

    // The new map's ids are its own, not the starter map's.
    let main = record_ids(&dir.join("maps/main.dh-map"));
    let more = record_ids(&arena);
    assert!(
        main.iter().all(|id| !more.contains(id)),
        "{main:?} {more:?}"
    );

    let entries = build_clean(&dir, &root.join("game.pallet"));
    for e in [
        "maps/main.dh-map",
        "maps/levels/arena.dh-map",
        "objects/crate.dh-obj",
    ] {
        assert!(entries.iter().any(|x| x == e), "no {e} in {entries:?}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn two_new_pallets_get_different_ids() {
    let root = temp_dir("twice");
    let (a, b) = (root.join("a"), root.join("b"));
    for d in [&a, &b] {
        let r = run(&["new".as_ref(), "pallet".as_ref(), d.as_os_str()]);
        assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    }
    let ids_a = record_ids(&a.join("maps/main.dh-map"));
    let ids_b = record_ids(&b.join("maps/main.dh-map"));
    assert_eq!(ids_a.len(), ids_b.len());
    assert!(
        ids_a.iter().all(|id| !ids_b.contains(id)),
        "{ids_a:?} {ids_b:?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn new_refuses_existing_files_and_folders_outside_a_pallet() {
    let root = temp_dir("refuse");
    let dir = root.join("p");
    let r = run(&["new".as_ref(), "pallet".as_ref(), dir.as_os_str()]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let map = dir.join("maps/main.dh-map");
    let before = std::fs::read(&map).expect("map");

    // A second pallet into the same folder: refused, and the map is untouched.
    let r = run(&["new".as_ref(), "pallet".as_ref(), dir.as_os_str()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains("pallet.dh already exists; dh new never overwrites a file"),
        "{}",
        stderr(&r)
    );
    // An existing map.
    let r = run(&["new".as_ref(), "map".as_ref(), map.as_os_str()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains("main.dh-map already exists; dh new never overwrites a file"),
        "{}",
        stderr(&r)
    );
    assert_eq!(std::fs::read(&map).expect("map"), before, "the map changed");

    // A folder with no pallet.dh in it or above it.
    let loose = root.join("loose/room.dh-map");
    let r = run(&["new".as_ref(), "map".as_ref(), loose.as_os_str()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains(
            "is not inside a source pallet: no pallet.dh in its folder or any folder above it"
        ),
        "{}",
        stderr(&r)
    );
    assert!(!loose.exists());
    let r = run(&[
        "new".as_ref(),
        "object".as_ref(),
        root.join("loose/thing").as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains("is not inside a source pallet"),
        "{}",
        stderr(&r)
    );

    // Another extension.
    let r = run(&[
        "new".as_ref(),
        "map".as_ref(),
        dir.join("maps/notes.txt").as_os_str(),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains("does not end in .dh-map; a map is a .dh-map file"),
        "{}",
        stderr(&r)
    );
    // A bad --barcode.
    let r = run(&[
        "new".as_ref(),
        "pallet".as_ref(),
        root.join("q").as_os_str(),
        "--barcode".as_ref(),
        "Props".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(
        stderr(&r).contains("'Props' is not a pallet id"),
        "{}",
        stderr(&r)
    );
    assert!(!root.join("q/pallet.dh").exists());
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn new_usage_errors_exit_2() {
    let r = run(&["new".as_ref()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("`dh new` needs what to write"),
        "{}",
        stderr(&r)
    );
    let r = run(&["new".as_ref(), "level".as_ref(), "x".as_ref()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains(
            "`dh new level` is not something dh new writes; expected pallet, map or object"
        ),
        "{}",
        stderr(&r)
    );
    let r = run(&["new".as_ref(), "map".as_ref()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("`dh new` needs the path to write"),
        "{}",
        stderr(&r)
    );
    let r = run(&[
        "new".as_ref(),
        "map".as_ref(),
        "x".as_ref(),
        "--barcode".as_ref(),
        "a.b".as_ref(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("it is for `dh new pallet`"),
        "{}",
        stderr(&r)
    );
    let r = run(&["new".as_ref(), "--help".as_ref()]);
    assert_eq!(r.status.code(), Some(0));
    let help = String::from_utf8_lossy(&r.stdout);
    assert!(help.contains("--barcode"), "{help}");
    let r = run(&["help".as_ref()]);
    assert!(String::from_utf8_lossy(&r.stdout).contains("dh new pallet <dir>"));
}
