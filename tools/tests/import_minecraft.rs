//! `dh import minecraft <client.jar | assets folder> --into <dir>` end to end: the
//! project's own test pack zipped into a fake client jar, imported by the binary, the
//! result built with `dh build`, and a rerun that writes nothing.

#[path = "../../content/tests/mc_platform_pack/mod.rs"]
mod mc_platform_pack;

use std::process::Command;

use mc_platform_pack as pack;

fn dh() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dh"))
}

#[test]
fn a_client_jar_imports_builds_and_reimports_as_nothing() {
    let dir = pack::temp("cli");
    let jar = pack::client_jar(&dir, &[]);
    let into = dir.join("com.mojang.minecraft");
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&jar)
        .arg("--into")
        .arg(&into)
        .output()
        .expect("dh runs");
    let said = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{said}");
    // 13 blockstates, the chest left to the colour table; 19 textures.
    assert!(
        said.contains("(com.mojang.minecraft, 26.1): 12 of 13 blockstates as blocks (1 left to the colour table)"),
        "{said}"
    );
    assert!(said.contains("19 textures;"), "{said}");
    assert!(into.join("blocks/oak_stairs.dh-block").is_file());

    let out = dir.join("mc.pallet");
    let b = dh()
        .arg("build")
        .arg(&into)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("dh runs");
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert!(out.is_file());

    let again = dh()
        .args(["import", "minecraft"])
        .arg(&jar)
        .arg("--into")
        .arg(&into)
        .output()
        .expect("dh runs");
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{said}");
    assert!(said.contains("; 0 file(s) written,"), "{said}");

    // A platform import needs --into, and --platform is a .vox's.
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&jar)
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("needs --into"));
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&jar)
        .args(["--into", "x", "--platform", "teardown"])
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(2));

    // A refused jar exits 1 naming the entry.
    let bad = pack::temp("cli-bad");
    let jar = pack::client_jar(
        &bad,
        &[("assets/minecraft/textures/../../evil.png", vec![0])],
    );
    let r = dh()
        .args(["import", "minecraft"])
        .arg(&jar)
        .arg("--into")
        .arg(bad.join("out"))
        .output()
        .expect("dh runs");
    assert_eq!(r.status.code(), Some(1));
    let said = String::from_utf8_lossy(&r.stderr);
    assert!(
        said.contains(
            "client.jar!/assets/minecraft/textures/../../evil.png: the entry's name is refused"
        ),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bad);
}
