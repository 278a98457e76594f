//! `dh import gltf` end to end (issue 18 item 5): the `dh` binary imports BoxTextured, Duck
//! and CesiumMilkTruck (read in place from `../shared/fixtures/gltf`; each test skips with a
//! line when they are absent) into a fresh source pallet, the instance records it prints
//! are pasted into a map, `dh build` builds it, and `dh-engine render` (its library) draws
//! the three textured with no missing-material line. A re-run leaves a hand-edited
//! `.dh-mat` alone and says so, a re-run on unchanged input writes nothing, and a bad GLB
//! is refused naming the file.

#[path = "../../engine/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dh() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dh"))
}

/// A fresh source pallet `<temp>/dh-import-gltf-<tag>-<pid>/src` (its `pallet.dh` written)
/// and the folder above it.
fn fresh_pallet(tag: &str) -> support::SourcePallet {
    let p = support::SourcePallet::fresh("dh-import-gltf", tag);
    p.manifest("dev.example.imported", "Imported");
    p
}

/// `dh import gltf <file> --into <into>`.
fn import(file: &Path, into: &Path) -> Output {
    dh().args(["import", "gltf"])
        .arg(file)
        .arg("--into")
        .arg(into)
        .output()
        .expect("dh runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The three fixtures, or `None` (with a line) when one is absent.
fn models() -> Option<Vec<PathBuf>> {
    ["BoxTextured", "Duck", "CesiumMilkTruck"]
        .iter()
        .map(|m| support::fixture_path(&format!("gltf/{m}.glb")))
        .collect()
}

/// The instance record `dh import gltf` printed (`dh: place it in a map with: {...}`).
fn instance_line(err: &str) -> String {
    err.lines()
        .find_map(|l| l.strip_prefix("dh: place it in a map with: "))
        .unwrap_or_else(|| panic!("no instance record printed:\n{err}"))
        .to_string()
}

/// Imports the three into `models/`, checks what each run says, and writes a map from the
/// printed instance records (each moved to its own spot) and a camera looking at them.
fn import_three(p: &support::SourcePallet) -> Option<()> {
    let glbs = models()?;
    let into = p.src.join("models");
    let mut records = Vec::new();
    // Where each goes: the box on the left, the duck on the right, the truck behind.
    let spots = ["[-2.2, 0.5, 1]", "[2.2, 0, 1]", "[0, 0, -2.5]"];
    for (glb, spot) in glbs.iter().zip(spots) {
        let r = import(glb, &into);
        let err = stderr(&r);
        assert!(r.status.success(), "{err}");
        let stem = glb.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        // Every file is new: the model, the object, one material per glTF material and
        // each image; nothing is skipped.
        for f in [format!("{stem}.glb"), format!("{stem}.dh-obj")] {
            assert!(
                err.contains(&format!("dh: wrote {}", into.join(&f).display())),
                "{f}:\n{err}"
            );
        }
        assert!(!err.contains("dh: skipped"), "{err}");
        assert!(
            err.contains(&format!(
                "dh: imported {} as {}: ",
                glb.display(),
                into.join(format!("{stem}.dh-obj")).display()
            )),
            "{err}"
        );
        assert!(err.contains(" 0 unchanged, 0 skipped"), "{err}");
        let record = instance_line(&err);
        assert!(
            record.contains(&format!("\"source\": \"/models/{stem}.dh-obj\"")),
            "{record}"
        );
        let placed = record
            .strip_suffix(" }")
            .map(|r| format!("{r}, \"position\": {spot} }}"))
            .unwrap_or_else(|| panic!("not one record: {record}"));
        records.push(placed);
    }
    // By the fixtures' documents: BoxTextured's one material 'Texture' (a PNG), Duck's
    // 'blinn3-fx' (a PNG), CesiumMilkTruck's 'truck' and 'wheels' (one JPEG), 'glass' and
    // 'window_trim' (factors only).
    for (mat, image) in [
        ("BoxTextured/Texture.dh-mat", Some("BoxTextured-image0.png")),
        ("Duck/blinn3-fx.dh-mat", Some("Duck-image0.png")),
        ("CesiumMilkTruck/truck.dh-mat", Some("CesiumMilkTruck.jpg")),
        ("CesiumMilkTruck/wheels.dh-mat", Some("CesiumMilkTruck.jpg")),
        ("CesiumMilkTruck/glass.dh-mat", None),
        ("CesiumMilkTruck/window_trim.dh-mat", None),
    ] {
        let text = std::fs::read_to_string(into.join(mat)).unwrap_or_else(|e| panic!("{mat}: {e}"));
        match image {
            Some(i) => {
                assert!(
                    text.contains(&format!("\"baseColor\": \"{i}\"")),
                    "{mat}:\n{text}"
                );
                let folder = Path::new(mat).parent().unwrap_or(Path::new(""));
                assert!(into.join(folder).join(i).is_file(), "{i} extracted");
            }
            None => assert!(!text.contains("baseColor"), "{mat}:\n{text}"),
        }
    }
    let map = format!(
        r#"// Three models placed by the records `dh import gltf` printed.
{{
  "name": "Imported",
  "materials": {{ "floor": "/materials/floor.dh-mat" }},
  "lighting": {{ "sunDirection": [-0.35, -0.85, -0.4], "sunIntensity": 1.0, "ambientIntensity": 0.4, "sky": true }},
  "render": {{ "bloom": false }},
  "objects": [
    {{ "$type": "boxBrush", "id": "4d1f6a80-2c3e-4b71-9d0a-1e2f3a4b5c01", "name": "floor", "position": [0, -0.25, 0], "size": [14, 0.5, 14], "material": "floor" }},
    {},
    {{ "$type": "object", "id": "4d1f6a80-2c3e-4b71-9d0a-1e2f3a4b5c02", "name": "front", "position": [0, 2.2, 6], "rotation": [-12, 0, 0],
      "components": [ {{ "$type": "dh.camera", "fov": 60 }} ] }}
  ]
}}
"#,
        records.join(",\n    ")
    );
    p.write(
        "materials/floor.dh-mat",
        br#"{ "tint": [0.55, 0.6, 0.55] }"#,
    );
    p.write("maps/imported.dh-map", map.as_bytes());
    Some(())
}

/// BoxTextured, Duck and CesiumMilkTruck through `dh import gltf`, placed by the records it
/// printed: `dh build` builds with no error (its warnings are the truck's animation and the
/// models-without-a-world-instance rule, neither about materials), and the render draws
/// the three textured — the golden `import-gltf-three` — with no missing-material line.
#[test]
fn three_models_imported_build_and_draw_as_themselves() {
    let p = fresh_pallet("three");
    if import_three(&p).is_none() {
        return;
    }
    let pallet = p.dir.join("imported.pallet");
    let r = dh()
        .arg("build")
        .arg(&p.src)
        .arg("-o")
        .arg(&pallet)
        .output()
        .expect("dh runs");
    let out = format!("{}{}", String::from_utf8_lossy(&r.stdout), stderr(&r));
    assert!(r.status.success(), "{out}");
    assert!(!out.contains(": error:"), "{out}");
    for bad in [
        "missingMaterial",
        "materials' entry",
        "baseColor",
        "not a readable",
    ] {
        assert!(!out.contains(bad), "the build says '{bad}':\n{out}");
    }
    if !support::vulkan_named() {
        return;
    }
    let (outcome, out, err) = support::render_captured(&dh_engine::render_cmd::RenderOptions {
        outdir: p.dir.join("shots"),
        pallets: vec![pallet],
        map: "dev.example.imported:maps/imported".into(),
        camera: Some("front".into()),
        size: Some([240, 160]),
        ..Default::default()
    });
    assert_eq!(outcome, dh_engine::run::Outcome::Done, "{out}\n{err}");
    for bad in [
        "missingMaterial",
        "could not be read",
        "not a readable",
        "draws nothing",
    ] {
        assert!(!err.contains(bad), "the render says '{bad}':\n{err}");
    }
    let bytes = std::fs::read(p.dir.join("shots/front.png")).unwrap_or_else(|e| panic!("{e}"));
    let image = dh_gpu::render::compare::decode_png(&bytes).unwrap_or_else(|e| panic!("{e}"));
    support::check_golden("import-gltf-three", &image);
    let _ = std::fs::remove_dir_all(&p.dir);
}

/// The modification time of every file under `dir`, by path.
fn stamps(dir: &Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
        {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let t = e.metadata().and_then(|m| m.modified());
                out.push((path, t.unwrap_or_else(|e| panic!("{e}"))));
            }
        }
    }
    out.sort();
    out
}

/// A second import of unchanged input writes nothing (no file's bytes or time changes)
/// and says so; after a hand edit of a `.dh-mat`, a third leaves that file alone, names it
/// with the reason, and still leaves the rest as they were.
#[test]
fn a_rerun_writes_nothing_and_leaves_a_hand_edit_alone() {
    let Some(glb) = support::fixture_path("gltf/CesiumMilkTruck.glb") else {
        return;
    };
    let p = fresh_pallet("rerun");
    let into = p.src.join("models");
    let r = import(&glb, &into);
    assert!(r.status.success(), "{}", stderr(&r));
    // 1 model + 1 object + 4 materials + 1 image (shared by truck and wheels) = 7 files.
    assert!(
        stderr(&r).contains("; 7 file(s) written, 0 unchanged, 0 skipped"),
        "{}",
        stderr(&r)
    );
    let before = stamps(&p.src);
    std::thread::sleep(std::time::Duration::from_millis(20));

    let r = import(&glb, &into);
    let err = stderr(&r);
    assert!(r.status.success(), "{err}");
    assert!(
        !err.contains("dh: wrote") && !err.contains("dh: updated"),
        "{err}"
    );
    assert!(
        err.contains("; 0 file(s) written, 7 unchanged, 0 skipped"),
        "{err}"
    );
    assert_eq!(
        stamps(&p.src),
        before,
        "an unchanged re-import touched a file"
    );

    // A hand edit: the truck's material made red.
    let mat = into.join("CesiumMilkTruck/truck.dh-mat");
    let edited = "// mine\n{ \"shader\": \"lit\", \"tint\": [1, 0, 0] }\n";
    std::fs::write(&mat, edited).unwrap_or_else(|e| panic!("{e}"));
    for round in 0..2 {
        let r = import(&glb, &into);
        let err = stderr(&r);
        assert!(r.status.success(), "{err}");
        assert!(
            err.contains(&format!(
                "dh: skipped {}: edited since the last import; left as it is",
                mat.display()
            )),
            "round {round}:\n{err}"
        );
        assert!(
            err.contains("; 0 file(s) written, 6 unchanged, 1 skipped"),
            "round {round}:\n{err}"
        );
        assert_eq!(std::fs::read_to_string(&mat).unwrap_or_default(), edited);
    }
    // A file of the same name that no import wrote is not the importer's to replace.
    let fresh = fresh_pallet("foreign");
    let mine = "{ \"tint\": [0, 1, 0] }\n";
    fresh.write("models/CesiumMilkTruck/glass.dh-mat", mine.as_bytes());
    let r = import(&glb, &fresh.src.join("models"));
    let err = stderr(&r);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains(
            "glass.dh-mat: not written by dh import (no import record names it); left as it is"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(fresh.src.join("models/CesiumMilkTruck/glass.dh-mat"))
            .unwrap_or_default(),
        mine
    );
    let _ = std::fs::remove_dir_all(&p.dir);
    let _ = std::fs::remove_dir_all(&fresh.dir);
}

/// A bad GLB (BoxTextured cut short, and bytes that are no glTF at all) is refused with
/// exit 1 and a message naming the file; nothing is written. An `--into` outside any source
/// pallet is refused naming the folder and the fix.
#[test]
fn a_bad_glb_or_destination_is_refused_naming_it() {
    let Some(glb) = support::fixture_path("gltf/BoxTextured.glb") else {
        return;
    };
    let p = fresh_pallet("bad");
    let bytes = std::fs::read(&glb).unwrap_or_else(|e| panic!("{e}"));
    let cut = p.save("cut.glb", &bytes[..bytes.len() / 2]);
    let junk = p.save("junk.glb", b"this is not a model, only text\n");
    for bad in [&cut, &junk] {
        let r = import(bad, &p.src.join("models"));
        let err = stderr(&r);
        assert_eq!(r.status.code(), Some(1), "{err}");
        let line = err.lines().next().unwrap_or_default();
        assert!(
            line.starts_with(&format!("dh: {}", bad.display())),
            "the error names the file: {err}"
        );
        assert!(
            !p.src.join("models").exists(),
            "a refused import wrote files"
        );
    }
    // Not a pallet: the temp folder above the sources holds no pallet.dh.
    let outside = p.dir.join("loose");
    let r = import(&glb, &outside);
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "dh: {}: not inside a source pallet",
            outside.display()
        )),
        "{err}"
    );
    // Not a glTF file name.
    let vox = p.save("model.vox", b"VOX ");
    let r = import(&vox, &p.src);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("expected a glTF model: a .glb (binary glTF) or a .gltf"),
        "{}",
        stderr(&r)
    );
    let _ = std::fs::remove_dir_all(&p.dir);
}

/// A `.gltf` is packed into one `.glb` (the engine reads binary glTF): BoxTextured taken
/// apart by hand into `BoxTextured.gltf` and the `BoxTextured.bin` its buffer names comes
/// back as one self-contained model whose image is the original's byte for byte, and the
/// pallet builds. A buffer URI that climbs out of the model's folder is refused, naming it.
#[test]
fn a_gltf_with_its_bin_beside_it_is_packed_into_one_glb() {
    let Some(glb) = support::fixture_path("gltf/BoxTextured.glb") else {
        return;
    };
    let bytes = std::fs::read(&glb).unwrap_or_else(|e| panic!("{e}"));
    let u32_at = |at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
    };
    let json_len = u32_at(12);
    let json = std::str::from_utf8(&bytes[20..20 + json_len]).unwrap_or_else(|e| panic!("{e}"));
    let bin_len = u32_at(20 + json_len);
    let bin = &bytes[28 + json_len..28 + json_len + bin_len];
    // The fixture's one buffer is `{"byteLength":5176}`; as a .gltf it names its file.
    let with_uri = json.replace(
        r#""buffers":[{"byteLength":5176}]"#,
        r#""buffers":[{"byteLength":5176,"uri":"BoxTextured.bin"}]"#,
    );
    assert_ne!(
        with_uri, json,
        "the fixture's buffer is as this test expects"
    );
    let p = fresh_pallet("gltf");
    let src = p.dir.join("export");
    std::fs::create_dir_all(&src).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(src.join("BoxTextured.gltf"), with_uri.trim_end())
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(src.join("BoxTextured.bin"), bin).unwrap_or_else(|e| panic!("{e}"));
    let into = p.src.join("models");
    let r = import(&src.join("BoxTextured.gltf"), &into);
    assert!(r.status.success(), "{}", stderr(&r));
    let packed = std::fs::read(into.join("BoxTextured.glb")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&packed[..4], b"glTF");
    let png = std::fs::read(into.join("BoxTextured/BoxTextured-image0.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    // The original's image: buffer view 3 of the fixture, as its document gives it.
    let doc = dh_content::jsonc::parse(json).unwrap_or_else(|e| panic!("{e:?}"));
    let view = doc
        .get("bufferViews")
        .and_then(|v| v.as_array()?.get(3))
        .expect("buffer view 3");
    let at = |k: &str| view.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0) as usize;
    assert_eq!(
        png,
        &bin[at("byteOffset")..at("byteOffset") + at("byteLength")]
    );
    let r = dh().arg("build").arg(&p.src).output().expect("dh runs");
    assert!(r.status.success(), "{}", stderr(&r));

    let escaping = with_uri.replace(
        "\"uri\":\"BoxTextured.bin\"",
        "\"uri\":\"../BoxTextured.bin\"",
    );
    std::fs::write(src.join("Escaping.gltf"), escaping).unwrap_or_else(|e| panic!("{e}"));
    let r = import(&src.join("Escaping.gltf"), &into);
    let err = stderr(&r);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "dh: {}: buffers[0].uri is '../BoxTextured.bin', which is not a file beside the model",
            src.join("Escaping.gltf").display()
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&p.dir);
}
