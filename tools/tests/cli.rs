//! The `dh` binary end to end: build, check, inspect, exit codes and `--json`.

use std::path::PathBuf;
use std::process::Command;

fn dh() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dh"))
}

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn build_twice_is_byte_identical_and_inspect_lists_entries() {
    let dir = temp_dir("build");
    let a = dir.join("a.pallet");
    let b = dir.join("b.pallet");
    for out in [&a, &b] {
        let r = dh()
            .arg("build")
            .arg(repo("content/core"))
            .arg("-o")
            .arg(out)
            .output()
            .expect("dh runs");
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    let (a_bytes, b_bytes) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(a_bytes == b_bytes, "two builds differ");

    let r = dh().arg("inspect").arg(&a).output().expect("dh runs");
    assert!(r.status.success());
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.starts_with("pallet   core (DigitalHeaven Core) 1.0.0"),
        "{text}"
    );
    assert!(text.contains("maps/logic-map.dh-map"), "{text}");

    let r = dh()
        .arg("inspect")
        .arg(&a)
        .arg("--json")
        .output()
        .expect("dh runs");
    let v = dh_content::jsonc::parse(&String::from_utf8_lossy(&r.stdout))
        .expect("inspect --json is JSON");
    assert_eq!(v.get("id").and_then(|v| v.as_str()), Some("core"));
    assert!(v
        .get("entries")
        .and_then(|e| e.as_array())
        .is_some_and(|e| e.len() > 10));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_on_broken_sources_exits_1_and_prints_locations() {
    let r = dh()
        .arg("check")
        .arg(repo("content/tests/data/broken-pallet"))
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(1));
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        out.contains("maps/rules.dh-map:13:52: error: objects[4].components[0]: Map entity #4 (object dh.box) 'size' must be positive"),
        "{out}"
    );
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("error(s)") && err.contains("nothing written"),
        "{err}"
    );
}

#[test]
fn json_diagnostics_are_one_object_per_line() {
    let r = dh()
        .arg("check")
        .arg(repo("content/tests/data/broken-pallet"))
        .arg("--json")
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(1));
    let out = String::from_utf8_lossy(&r.stdout);
    let mut n = 0;
    for line in out.lines() {
        let v = dh_content::jsonc::parse(line).expect("each line is JSON");
        assert_eq!(v.get("severity").and_then(|s| s.as_str()), Some("error"));
        assert!(v
            .get("line")
            .and_then(|l| l.as_f64())
            .is_some_and(|l| l > 0.0));
        n += 1;
    }
    assert!(n >= 20, "{n} diagnostics");
}

#[test]
fn usage_errors_exit_2() {
    let r = dh().arg("frobnicate").output().expect("dh runs");
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("unknown command 'frobnicate'"));
    // The list names every command, `new` and `completions` included.
    assert!(
        String::from_utf8_lossy(&r.stderr)
            .contains("expected build, check, inspect, import, new, completions or help"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let r = dh().arg("build").output().expect("dh runs");
    assert_eq!(r.status.code(), Some(2));
    let r = dh()
        .arg("check")
        .arg("/nonexistent/folder")
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("is not a folder"));
    let r = dh().arg("help").output().expect("dh runs");
    assert!(r.status.success() && String::from_utf8_lossy(&r.stdout).contains("dh build <dir>"));
}

/// `../shared/fixtures/vox`, or `None` (with a printed line) where that folder is absent.
fn vox_fixtures() -> Option<PathBuf> {
    let dir = repo("../shared/fixtures/vox");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: {} is absent", dir.display());
        None
    }
}

#[test]
fn import_vox_then_build_ships_the_payload_not_the_source() {
    let Some(fixtures) = vox_fixtures() else {
        return;
    };
    let dir = temp_dir("import");
    std::fs::create_dir_all(dir.join("voxels")).expect("folder");
    std::fs::write(
        dir.join("pallet.dh"),
        r#"{ "id": "dev.test.vox", "name": "Vox", "version": "1.0.0" }"#,
    )
    .expect("manifest");
    // `dh import vox` writes a definition and its payload.
    let r = dh()
        .args(["import", "vox"])
        .arg(fixtures.join("vox_character.vox"))
        .arg("--into")
        .arg(dir.join("voxels"))
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(dir.join("voxels/vox_character.dh-vox").is_file());
    assert!(dir.join("voxels/vox_character.dh-vox.bin").is_file());
    // A definition naming a .vox in the pallet: the build converts it.
    std::fs::copy(fixtures.join("axes.vox"), dir.join("voxels/axes.vox")).expect("copy");
    std::fs::write(
        dir.join("voxels/axes.dh-vox"),
        r#"{ "platform": "magicavoxel", "data": "axes.vox" }"#,
    )
    .expect("definition");
    let out = dir.join("vox.pallet");
    let r = dh()
        .arg("build")
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    let p = dh_content::pallet::Pallet::open(&out).expect("pallet opens");
    let paths: Vec<&str> = p.entries().map(|e| e.path).collect();
    assert_eq!(
        paths,
        [
            "voxels/axes.dh-vox",
            "voxels/axes.dh-vox.bin",
            "voxels/vox_character.dh-vox",
            "voxels/vox_character.dh-vox.bin"
        ]
    );
    let def = p.read("voxels/axes.dh-vox").expect("definition reads");
    let v = dh_content::jsonc::parse(std::str::from_utf8(&def).expect("UTF-8")).expect("JSON");
    assert_eq!(
        v.get("data").and_then(|d| d.as_str()),
        Some("axes.dh-vox.bin")
    );
    // Payloads are stored, so the engine reads them by range.
    assert!(p.range("voxels/axes.dh-vox.bin").is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sums the voxel counts of every XYZI chunk of a .vox, walking the chunks independently
/// of the importer (each chunk: 4-byte id, u32 content size, u32 children size).
fn xyzi_total(bytes: &[u8]) -> u64 {
    let u32_at = |i: usize| {
        u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize
    };
    let mut total = 0u64;
    // "VOX " + version, then the MAIN chunk header (12 bytes); its children follow.
    let mut i = 8 + 12;
    while i + 12 <= bytes.len() {
        let id = &bytes[i..i + 4];
        let content = u32_at(i + 4);
        let children = u32_at(i + 8);
        if id == b"XYZI" {
            total += u32_at(i + 12) as u64;
        }
        i += 12 + content + children;
    }
    total
}

#[test]
fn inspect_a_payload_counts_every_cell() {
    let Some(fixtures) = vox_fixtures() else {
        return;
    };
    let dir = temp_dir("inspect");
    let src = fixtures.join("vox_character.vox");
    let r = dh()
        .args(["import", "vox"])
        .arg(&src)
        .arg("--into")
        .arg(&dir)
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let r = dh()
        .arg("inspect")
        .arg(dir.join("vox_character.dh-vox.bin"))
        .arg("--json")
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v = dh_content::jsonc::parse(&String::from_utf8_lossy(&r.stdout)).expect("JSON");
    let expected = xyzi_total(&std::fs::read(&src).expect("fixture"));
    assert!(expected > 0);
    assert_eq!(
        v.get("totalCells").and_then(|t| t.as_f64()),
        Some(expected as f64)
    );
    let grid_sum: f64 = v
        .get("grids")
        .and_then(|g| g.as_array())
        .expect("grids")
        .iter()
        .filter_map(|g| g.get("cells").and_then(|c| c.as_f64()))
        .sum();
    assert_eq!(grid_sum, expected as f64);
    // The text form names the same total.
    let r = dh()
        .arg("inspect")
        .arg(dir.join("vox_character.dh-vox.bin"))
        .output()
        .expect("dh runs");
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains(&format!("{expected} non-empty cells")),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One triangle drawing `grid`, in a node `wall` under a group `base`.
fn tiny_glb() -> Vec<u8> {
    let bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}],"materials":[{"name":"grid"}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],"nodes":[{"name":"base","children":[1]},{"name":"wall","mesh":0}],"scenes":[{"nodes":[0]}]}"#.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((json.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}

#[test]
fn build_writes_the_identity_sidecar_and_records_it_beside_the_pallet() {
    let dir = temp_dir("ids");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("meshes")).unwrap();
    std::fs::create_dir_all(src.join("maps")).unwrap();
    std::fs::write(
        src.join("pallet.dh"),
        r#"{ "id": "dev.example.ids", "name": "Ids", "version": "1.0.0" }"#,
    )
    .unwrap();
    std::fs::write(src.join("meshes/yard.glb"), tiny_glb()).unwrap();
    std::fs::write(
        src.join("maps/yard.dh-map"),
        r#"{ "name": "Yard", "objects": [ { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/yard.glb" } ] }"#,
    )
    .unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let (a, b) = (out.join("a.pallet"), out.join("b.pallet"));
    let run = |target: &PathBuf| {
        let r = dh()
            .arg("build")
            .arg(&src)
            .arg("-o")
            .arg(target)
            .output()
            .expect("dh runs");
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8_lossy(&r.stderr).into_owned()
    };
    let first = run(&a);
    assert!(first.contains("wrote meshes/yard.glb.dh-ids"), "{first}");
    let sidecar = std::fs::read_to_string(src.join("meshes/yard.glb.dh-ids")).unwrap();
    let record = out.join("dev.example.ids.compiler-writes");
    let v = dh_content::jsonc::parse(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let writes = v.get("writes").and_then(|w| w.as_array()).unwrap();
    assert_eq!(writes.len(), 1);
    assert_eq!(
        writes[0].get("path").and_then(|p| p.as_str()),
        Some("meshes/yard.glb.dh-ids")
    );
    let digest: String = dh_content::parts::sha1(sidecar.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        writes[0].get("sha1").and_then(|p| p.as_str()),
        Some(digest.as_str())
    );
    // The second build reads the sidecar back, writes nothing and packs the same bytes.
    let second = run(&b);
    assert!(!second.contains("wrote"), "{second}");
    assert_eq!(
        std::fs::read_to_string(src.join("meshes/yard.glb.dh-ids")).unwrap(),
        sidecar
    );
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_mounts_a_dependency_named_by_pallet_and_says_once_when_one_is_absent() {
    let dir = temp_dir("inherit");
    let env = dir.join("env.pallet");
    let r = dh()
        .arg("build")
        .arg(repo("content/tests/data/inheritance/env"))
        .arg("-o")
        .arg(&env)
        .arg("--quiet")
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    // Mounted by --pallet: the world's chain into the template is checked whole.
    let r = dh()
        .arg("build")
        .arg(repo("content/tests/data/inheritance/worlds"))
        .arg("-o")
        .arg(dir.join("worlds.pallet"))
        .arg("--pallet")
        .arg(&env)
        .output()
        .expect("dh runs");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{out}");
    assert!(!out.contains("is not mounted"), "{out}");
    // Without it (nothing beside the source folder in the repository is dev.example.env),
    // the build still succeeds and says so once.
    let r = dh()
        .arg("build")
        .arg(repo("content/tests/data/inheritance/worlds"))
        .arg("-o")
        .arg(dir.join("worlds-alone.pallet"))
        .output()
        .expect("dh runs");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{out}");
    assert_eq!(
        out.matches("dependency 'dev.example.env' is not mounted")
            .count(),
        1,
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn import_minecraft_writes_the_definition_and_its_payload() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/schem/smallhouse1.schem");
    if !src.is_file() {
        println!("skipped: {} is absent", src.display());
        return;
    }
    let dir = temp_dir("import-minecraft");
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&src)
        .arg("--into")
        .arg(dir.join("voxels"))
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let said = String::from_utf8_lossy(&r.stderr);
    // smallhouse1: 1 grid, 173 palette entries and dh:empty, 72 block entities.
    assert!(said.contains("(com.mojang.minecraft): 1 grid(s)"), "{said}");
    assert!(
        said.contains("174 palette entries, 72 block entities and entities"),
        "{said}"
    );
    let def = std::fs::read_to_string(dir.join("voxels/smallhouse1.dh-vox")).expect("definition");
    assert!(def.contains("\"format\": \"schem\""), "{def}");
    assert!(dir.join("voxels/smallhouse1.dh-vox.bin").is_file());
    // --platform is a .vox's.
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&src)
        .args(["--platform", "teardown"])
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_a_world_import_and_writes_nothing() {
    let save = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/region/1.20.1-paper");
    if !save.is_dir() {
        println!("skipping: the fixture {} is absent", save.display());
        return;
    }
    let into = std::env::temp_dir().join(format!("dh-cli-ctrl-c-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&into);
    std::fs::create_dir_all(&into).unwrap();
    std::fs::write(
        into.join("pallet.dh"),
        r#"{ "id": "dev.example.world", "name": "W", "version": "1.0.0" }"#,
    )
    .unwrap();
    let child = dh()
        .args(["import", "minecraft-world"])
        .arg(&save)
        .arg("--into")
        .arg(&into)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dh runs");
    // The region takes seconds to convert in a debug build; Ctrl+C lands while it reads.
    std::thread::sleep(std::time::Duration::from_millis(400));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let out = child.wait_with_output().expect("dh ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let left: Vec<String> = std::fs::read_dir(&into)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let _ = std::fs::remove_dir_all(&into);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the conversion was cancelled; nothing was written"),
        "{stderr}"
    );
    assert_eq!(left, ["pallet.dh"], "{stderr}");
}

/// The flags `dh <command> --help` lists (clap's "Options:" section, `--help` left out):
/// what the top-level help has to name for that command.
fn flags_of(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_options = false;
    for line in help.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            in_options = line.trim_end() == "Options:";
            continue;
        }
        if !in_options || !line.trim_start().starts_with('-') {
            continue;
        }
        for word in line.split([' ', ',']) {
            if let Some(name) = word.strip_prefix("--") {
                if !name.is_empty() && name != "help" {
                    out.push(format!("--{name}"));
                }
            }
        }
    }
    out
}

/// The parts of `dh help` about `command`: each block that opens with a synopsis line
/// `    dh <command>` and runs up to the next synopsis line or the options.
fn sections_of(usage: &str, command: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in usage.lines() {
        if line.starts_with("    dh ") {
            inside = line.starts_with(&format!("    dh {command} "))
                || line.trim_end() == format!("    dh {command}");
        } else if !line.starts_with(' ') && !line.is_empty() {
            inside = false;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Regression (issue 19 item 5): `dh help` names every flag of every command in that
/// command's own synopsis (before, `dh check`, `dh import` and `dh new` took `--quiet`
/// and their synopses did not say so). The flags are read from each command's own
/// `--help`, so a flag added later must be added to the help as well.
#[test]
fn help_lists_every_flag_of_every_command() {
    let r = dh().arg("help").output().expect("dh runs");
    assert!(r.status.success());
    let usage = String::from_utf8_lossy(&r.stdout).into_owned();
    for command in ["build", "check", "inspect", "import", "new", "completions"] {
        let r = dh().args([command, "--help"]).output().expect("dh runs");
        assert!(r.status.success(), "{command} --help");
        let help = String::from_utf8_lossy(&r.stdout).into_owned();
        let section = sections_of(&usage, command);
        assert!(
            !section.is_empty(),
            "`dh help` has no synopsis of {command}"
        );
        let flags = flags_of(&help);
        for flag in &flags {
            assert!(
                section.contains(flag.as_str()),
                "`dh help` does not name {command}'s {flag}:\n{section}"
            );
            // And the options list says what it does.
            assert!(
                usage
                    .lines()
                    .any(|l| l.trim_start().starts_with(flag.as_str())
                        || l.trim_start().starts_with(&format!("-q, {flag}"))
                        || l.trim_start().starts_with(&format!("-o, {flag}"))),
                "`dh help` does not describe {flag}"
            );
        }
        // Every option clap lists has help (a doc line on the flag): beside it, or on the
        // next line in the long form `--help` prints.
        let lines: Vec<&str> = help.lines().collect();
        for (k, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with('-') {
                continue;
            }
            let beside = line.split("  ").filter(|w| !w.trim().is_empty()).count() >= 2;
            let below = lines
                .get(k + 1)
                .is_some_and(|n| !n.trim().is_empty() && !n.trim_start().starts_with('-'));
            assert!(beside || below, "{command}: '{line}' has no help line");
        }
    }
    // Hand-checked: build takes -o/--output, --pallet, --engine, --json and -q/--quiet.
    assert_eq!(
        flags_of(&String::from_utf8_lossy(
            &dh()
                .args(["build", "--help"])
                .output()
                .expect("dh runs")
                .stdout
        )),
        ["--output", "--pallet", "--engine", "--json", "--quiet"]
    );
}

#[test]
fn a_world_import_prints_its_progress_and_inspect_shows_the_world() {
    let save = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/minecraft/region/1.20.1-paper");
    if !save.is_dir() {
        println!("skipped: the fixture {} is absent", save.display());
        return;
    }
    // The fixture's counts as content/tests/minecraft_world.rs reads them by its second
    // path (fastanvil and fastnbt, never the importer): 195 full chunks, 438 still
    // generating, 4680 sections, 648 block entities, 408 block states and biomes beside
    // dh:empty; level.dat says DataVersion 3465 (1.20.1), LevelName "world", spawn
    // (0, 110, 0).
    let into = temp_dir("world-inspect");
    std::fs::write(
        into.join("pallet.dh"),
        r#"{ "id": "dev.example.world", "name": "W", "version": "1.0.0", "dependencies": { "com.mojang.minecraft": "*" } }"#,
    )
    .unwrap();
    let r = dh()
        .args(["import", "minecraft-world"])
        .arg(&save)
        .arg("--into")
        .arg(&into)
        .output()
        .expect("dh runs");
    let said = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{said}");
    // Not a terminal: plain progress lines, the last for the last region, of the form
    // `dh: <done>/<total> regions, <chunks> chunks, <rate> chunks/s`.
    let progress: Vec<&str> = said
        .lines()
        .filter(|l| l.contains(" regions, ") && l.ends_with(" chunks/s"))
        .collect();
    let last = progress
        .last()
        .unwrap_or_else(|| panic!("no progress line:\n{said}"));
    let rate = last
        .strip_prefix("dh: 1/1 regions, 195 chunks, ")
        .and_then(|s| s.strip_suffix(" chunks/s"))
        .unwrap_or_else(|| panic!("{last}"));
    assert!(rate.parse::<u64>().is_ok(), "{last}");
    assert!(!said.contains('\r'), "a bar drawn off a terminal:\n{said}");
    assert!(
        said.contains("1 dimension(s) (minecraft:overworld), 195 chunks, 438 skipped (not full), 409 palette entries, 648 block entities, 0 entities"),
        "{said}"
    );
    let payloads: Vec<PathBuf> = std::fs::read_dir(&into)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".dh-vox.bin"))
        .collect();
    assert_eq!(payloads.len(), 1, "{payloads:?}");

    let r = dh()
        .arg("inspect")
        .arg(&payloads[0])
        .output()
        .expect("dh runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = String::from_utf8_lossy(&r.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let has = |want: &str| {
        assert!(
            lines.iter().any(|l| l.trim_end() == want),
            "no line `{want}` in:\n{text}"
        )
    };
    has("         platform com.mojang.minecraft  format anvil  voxel 1 m  chunk edge 16  origin [0, 0, 0]");
    has("meta     dataVersion = 3465");
    has("meta     chunkDataVersions = 3465-3465");
    has("meta     skippedChunks = 438");
    has("meta     levelName = world");
    has("meta     spawn = 0 110 0");
    // The derived data left out, as the spec's "Derived data is dropped" lists it (no
    // numeric biomes: every chunk is 1.20's).
    has("meta     dropped = light (BlockLight, SkyLight), heightmaps, scheduled ticks (block_ticks, fluid_ticks), PostProcessing, structures, CarvingMasks, blending_data, InhabitedTime, LastUpdate");
    has("layers   blocks (cell scale 1), biome (cell scale 4)");
    has("grids    1");
    // Every one of the 4680 sections stores its 4096 block cells and its 64 biome cells,
    // none dh:empty: 4680 * 4160.
    has(&format!(
        "  #0    {:>12} cells  parent -     minecraft:overworld",
        4680u64 * 4160
    ));
    has(&format!("  total {:>12} non-empty cells", 4680u64 * 4160));
    let palette = lines
        .iter()
        .find(|l| l.starts_with("palette  "))
        .unwrap_or_else(|| panic!("no palette line:\n{text}"));
    assert!(
        palette.starts_with("palette  409 entries: dh:empty, minecraft:")
            && palette.ends_with(", and 397 more"),
        "{palette}"
    );
    // Sections are chunks: each section's blocks and its biomes.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("regions  1 in 1 shard(s); chunks 9360 (")),
        "{text}"
    );

    // --json carries the same.
    let r = dh()
        .arg("inspect")
        .arg(&payloads[0])
        .arg("--json")
        .output()
        .expect("dh runs");
    let v = dh_content::jsonc::parse(&String::from_utf8_lossy(&r.stdout)).expect("JSON");
    assert_eq!(v.get("palette").and_then(|p| p.as_f64()), Some(409.0));
    assert_eq!(
        v.get("meta")
            .and_then(|m| m.get("skippedChunks"))
            .and_then(|s| s.as_str()),
        Some("438")
    );
    let _ = std::fs::remove_dir_all(&into);
}
