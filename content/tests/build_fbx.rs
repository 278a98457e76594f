//! An `.fbx` source through `dh build` with a stand-in `blender` on `PATH`: a shell script
//! that does what the conversion asks of Blender (write a GLB at the last argument), or
//! fails. This test binary holds one test on purpose: it points the process's `PATH` at
//! the stand-in, which no other test may see.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use dh_content::compile::{compile, BuildOutput, CompileOptions};
use dh_content::jsonc::{parse, Value};

const ID: &str = "7d2b1f0c-5a4e-4c3b-9f1d-2e6a8b0c4d11";

/// One triangle drawing `grid` in a node `hull`.
fn tiny_glb() -> Vec<u8> {
    let bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let mut json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}],"materials":[{"name":"grid"}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],"nodes":[{"name":"hull","mesh":0,"translation":[0,2,0]}],"scenes":[{"nodes":[0]}]}"#.to_vec();
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

fn build(dir: &Path) -> BuildOutput {
    compile(
        dir,
        &CompileOptions {
            write: true,
            progress: None,
        },
    )
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn an_fbx_converts_through_blender_and_ships_as_the_glb() {
    let base = std::env::temp_dir().join(format!("dh-build-fbx-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (bin, src) = (base.join("bin"), base.join("src"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(src.join("meshes")).unwrap();
    std::fs::create_dir_all(src.join("maps")).unwrap();
    let glb = tiny_glb();
    let made = base.join("made.glb");
    std::fs::write(&made, &glb).unwrap();
    // What the build hands Blender: `… -- <in.fbx> <out.glb>`; it records its arguments.
    let args = base.join("args.txt");
    let blender = bin.join("blender");
    write_script(
        &blender,
        &format!(
            "printf '%s\\n' \"$@\" > '{}'\nfor last; do :; done\ncp '{}' \"$last\"",
            args.display(),
            made.display()
        ),
    );
    std::fs::write(
        src.join("pallet.dh"),
        r#"{ "id": "dev.example.fbx", "name": "Fbx", "version": "1.0.0" }"#,
    )
    .unwrap();
    std::fs::write(src.join("meshes/robot.fbx"), b"Kaydara FBX Binary  \0").unwrap();
    std::fs::write(
        src.join("maps/robot.dh-map"),
        format!(
            r#"{{ "name": "Robot", "objects": [ {{ "$type": "instance", "id": "{ID}", "name": "world", "source": "/meshes/robot.fbx", "position": [5, 0, 0] }} ] }}"#
        ),
    )
    .unwrap();
    let old_path = std::env::var_os("PATH");
    let mut paths: Vec<PathBuf> = vec![bin.clone()];
    paths.extend(old_path.iter().flat_map(std::env::split_paths));
    std::env::set_var("PATH", std::env::join_paths(paths).unwrap());

    let out = build(&src);
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    // Blender ran headless, its arguments ending in the FBX and the GLB to write.
    let argv = std::fs::read_to_string(&args).unwrap();
    let argv: Vec<&str> = argv.lines().collect();
    assert_eq!(argv.first(), Some(&"--background"));
    let n = argv.len();
    assert!(n >= 3 && argv[n - 3] == "--", "{argv:?}");
    assert!(argv[n - 2].ends_with(".fbx") && argv[n - 1].ends_with(".glb"));
    // The parts table is the converted model's: hull at (0,2,0) placed at (5,0,0).
    let map = out
        .assets
        .iter()
        .find(|a| a.path == "maps/robot.dh-map")
        .unwrap();
    let v = parse(std::str::from_utf8(&map.bytes).unwrap()).unwrap();
    let parts = v.get("objects").and_then(Value::as_array).unwrap()[0]
        .get("parts")
        .and_then(Value::as_array)
        .unwrap()
        .to_vec();
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].get("path").and_then(Value::as_str), Some("hull"));
    let pivot: Vec<f64> = parts[0]
        .get("pivot")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(pivot, [5.0, 2.0, 0.0]);
    // The pallet packages the GLB at the FBX's path, and the sidecar lies beside the FBX.
    let shipped = out
        .assets
        .iter()
        .find(|a| a.path == "meshes/robot.fbx")
        .unwrap();
    assert_eq!(shipped.bytes, glb);
    assert!(src.join("meshes/robot.fbx.dh-ids").is_file());

    // A Blender that fails is an error naming the file, quoting the end of its output.
    write_script(
        &blender,
        "echo 'Error: FBX version 6100 unsupported' >&2\nexit 3",
    );
    let failed = build(&src);
    let errors: Vec<_> = failed.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", failed.diagnostics);
    let m = &errors[0].message;
    assert!(
        m.starts_with("'meshes/robot.fbx': Blender (") && m.contains("exit status: 3"),
        "{m}"
    );
    assert!(m.contains("FBX version 6100 unsupported"), "{m}");
    assert!(failed.pallet.is_none());

    match old_path {
        Some(p) => std::env::set_var("PATH", p),
        None => std::env::remove_var("PATH"),
    }
    let _ = std::fs::remove_dir_all(&base);
}
