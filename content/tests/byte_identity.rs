//! Byte identity of everything the compiler and the collision cooker write: the core
//! pallet, pallets placing the model fixtures and small GLBs built here (their parts
//! tables, `.dh-colcook` companions in every `autoCollision` mode, the `.dh-ids` identity
//! sidecars the builds write back), and the collision caches' entries and keys. Each
//! output's length and SHA-256 are compared against `tests/data/byte_identity.txt`,
//! recorded from the code before the redesign of issue 11 (glam, bytemuck, the hash
//! crates), so that redesign is proven not to change a byte.
//!
//! A model edited by a `.dh-model` sidecar is left out on purpose: the sidecar writer's
//! output is re-specified by the same issue (it ships every chunk of the source as it was).
//!
//! Re-record (only when a change of bytes is intended):
//! `DH_RECORD_BYTE_IDENTITY=1 cargo test -p dh-content --test byte_identity`.
//! The GLB fixtures come from `../shared/fixtures`; a case whose fixture is absent is
//! skipped with a line, never recorded as different.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use dh_content::colcook::cache::{cook_placement_at_load, load_key};
use dh_content::colcook::{CookCache, MapCollision};
use dh_content::compile::{compile, BuildOutput, CompileOptions};
use dh_content::gltf::import_glb;
use dh_content::parts::{self, instance_pose, Placement};
use dh_content::schema::common::{Guid, Vec3};
use dh_content::schema::map::AutoCollision;
use support::{fixture, glb, Pallet};

const DATA: &str = "tests/data/byte_identity.txt";
const RECORD_ENV: &str = "DH_RECORD_BYTE_IDENTITY";

/// The yard of `parts_overrides.rs`, plus a box mesh so boxes and hulls have a volume:
/// base (group) ─ wall (tri) ─ post (long, turned 90° about +Y) ─ crate (box, turned and
/// scaled) ─ shed (box, sheared by a matrix).
fn yard() -> Vec<u8> {
    let tris: [[f32; 9]; 2] = [
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, -3.0],
    ];
    let mut bin: Vec<u8> = tris
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    // A unit box, 8 corners and 12 triangles.
    let mut corners = Vec::new();
    for x in [-0.5f32, 0.5] {
        for y in [-0.5f32, 0.5] {
            for z in [-0.5f32, 0.5] {
                corners.extend([x, y, z]);
            }
        }
    }
    let faces: [u16; 36] = [
        0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4,
        1, 5, 7, 1, 7, 3,
    ];
    bin.extend(corners.iter().flat_map(|f| f.to_le_bytes()));
    bin.extend(faces.iter().flat_map(|i| i.to_le_bytes()));
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{len}}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}},
                       {{"buffer":0,"byteOffset":72,"byteLength":96}},{{"buffer":0,"byteOffset":168,"byteLength":72}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}},{{"bufferView":1,"componentType":5126,"type":"VEC3","count":3}},
                     {{"bufferView":2,"componentType":5126,"type":"VEC3","count":8}},{{"bufferView":3,"componentType":5123,"type":"SCALAR","count":36}}],
        "materials":[{{"name":"grid"}},{{"name":"metal"}}],
        "meshes":[{{"name":"tri","primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}},
                  {{"name":"long","primitives":[{{"attributes":{{"POSITION":1}},"material":1}}]}},
                  {{"name":"box","primitives":[{{"attributes":{{"POSITION":2}},"indices":3,"material":1}}]}}],
        "nodes":[{{"name":"base","children":[1,2,3,4]}},
            {{"name":"wall","mesh":0,"translation":[1,0,0]}},
            {{"name":"post","mesh":1,"translation":[0,0,2],"rotation":[0,0.7071067811865476,0,0.7071067811865476]}},
            {{"name":"crate","mesh":2,"translation":[-3,0.25,0],"rotation":[0.1,0.3,-0.2,0.9273618495495703],"scale":[1.5,0.5,2]}},
            {{"name":"shed","mesh":2,"matrix":[2,0,0,0, 0.5,1,0,0, 0,0.25,3,0, 4,1,-2,1]}}],
        "scenes":[{{"nodes":[0]}}]}}"#,
        len = bin.len()
    );
    glb(&json, &bin)
}

// ---- Pallets on disk ----------------------------------------------------------------------

/// A temporary source pallet holding `files` and `pallet.dh`, built, its outputs taken,
/// then removed.
fn build_files(tag: &str, files: &[(String, Vec<u8>)]) -> BuildOutput {
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    Pallet::with_files(&format!("byte-identity-{tag}"), &files).build()
}

/// The recorded outputs: `name → (length, SHA-256 hex)`.
#[derive(Default)]
struct Outputs(BTreeMap<String, (usize, String)>);

impl Outputs {
    fn add(&mut self, name: impl Into<String>, bytes: &[u8]) {
        let digest: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = name.into();
        assert!(
            !name.contains(char::is_whitespace),
            "an output name has no whitespace: {name:?}"
        );
        let old = self.0.insert(name.clone(), (bytes.len(), digest));
        assert!(old.is_none(), "{name} recorded twice");
    }

    /// A build's pallet, its `.dh-colcook` companions and the writes it made.
    fn add_build(&mut self, case: &str, out: &BuildOutput) {
        assert!(!out.diagnostics.has_errors(), "{case}: {}", out.diagnostics);
        let pallet = out
            .pallet
            .as_ref()
            .unwrap_or_else(|| panic!("{case}: a pallet"));
        self.add(format!("{case}/pallet"), pallet);
        for a in &out.assets {
            if a.path.ends_with(".dh-colcook") || a.path.ends_with(".dh-map") {
                self.add(format!("{case}/asset/{}", a.path), &a.bytes);
            }
        }
        for w in &out.writes {
            self.add(format!("{case}/write/{}", w.path), &w.bytes);
        }
    }
}

fn read_recorded() -> BTreeMap<String, (usize, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (record it with {RECORD_ENV}=1)", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "a recorded line is `name length sha256`: {l}");
            (f[0].to_string(), (f[1].parse().unwrap(), f[2].to_string()))
        })
        .collect()
}

fn write_recorded(outputs: &Outputs) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let mut text = String::from(
        "# Written by tests/byte_identity.rs (DH_RECORD_BYTE_IDENTITY=1): name, length, SHA-256.\n",
    );
    for (name, (len, digest)) in &outputs.0 {
        text.push_str(&format!("{name} {len} {digest}\n"));
    }
    std::fs::write(&path, text).unwrap();
}

// ---- The cases ------------------------------------------------------------------------------

fn map_text(records: &[String], extra: &str) -> String {
    format!(
        "{{\n  \"name\": \"Yard\",{extra}\n  \"objects\": [\n    {}\n  ]\n}}\n",
        records.join(",\n    ")
    )
}

const WORLD: &str = "db71e214-0d00-4fde-b8e1-cd4ef06288bf";
const CARRIER: &str = "c0000000-0000-4000-8000-0000000000cc";
const FOLDER: &str = "f0000000-0000-4000-8000-0000000000aa";

/// The yard under a turned carrier and a folder, posed, with overrides that move, turn,
/// scale and switch parts, in `mode`.
fn yard_map(mode: &str) -> String {
    let carrier = format!(
        r#"{{ "$type": "object", "id": "{CARRIER}", "name": "carrier", "position": [0, 0, 5], "rotation": [10, 90, -20] }}"#
    );
    let folder = format!(
        r#"{{ "$type": "folder", "id": "{FOLDER}", "name": "props", "parent": "{CARRIER}" }}"#
    );
    let children = r#"
        { "path": "base/post", "position": [0, 0.5, 0], "rotation": [0, 90, 0], "scale": 2 },
        { "path": "base/wall", "rotation": [90, 0, 90], "static": false },
        { "path": "base/crate", "rotation": [33, -12, 71], "scale": [1, 3, 0.5] },
        { "path": "base/shed", "position": [0.125, 0, -1] }"#;
    let inst = format!(
        r#"{{ "$type": "instance", "id": "{WORLD}", "name": "world", "source": "/meshes/yard.glb", "position": [1, 0.5, -2], "rotation": [15, 30, 45], "scale": [1, 2, 1.5], "parent": "{FOLDER}", "children": [{children}] }}"#
    );
    map_text(
        &[carrier, folder, inst],
        &format!(" \"autoCollision\": {mode},"),
    )
}

fn yard_builds(o: &mut Outputs) {
    for (tag, mode) in [
        ("mesh", "\"mesh\""),
        ("boxes", "\"boxes\""),
        ("hulls", "\"hulls\""),
        ("off", "false"),
    ] {
        let out = build_files(
            &format!("yard-{tag}"),
            &[
                ("meshes/yard.glb".into(), yard()),
                ("maps/yard.dh-map".into(), yard_map(mode).into_bytes()),
            ],
        );
        o.add_build(&format!("yard-{tag}"), &out);
    }
}

/// Each model fixture placed as a map's world, posed; in mesh mode and in boxes mode.
fn fixture_builds(o: &mut Outputs) {
    for (name, mode) in [
        ("Box.glb", "\"mesh\""),
        ("BoxTextured.glb", "\"boxes\""),
        ("Duck.glb", "\"mesh\""),
        ("MetalRoughSpheresNoTextures.glb", "\"mesh\""),
        ("VertexColorTest.glb", "\"boxes\""),
        ("CesiumMilkTruck.glb", "\"mesh\""),
        ("SimpleInstancing.glb", "\"boxes\""),
        ("NormalTangentMirrorTest.glb", "\"mesh\""),
    ] {
        let Some(bytes) = fixture(&format!("gltf/{name}")) else {
            println!("skipping {name}: the fixture is absent");
            continue;
        };
        let inst = format!(
            r#"{{ "$type": "instance", "id": "{WORLD}", "name": "world", "source": "/meshes/{name}", "position": [3, -1, 2.5], "rotation": [0, 37, 0], "scale": [1.25, 1.25, 1.25] }}"#
        );
        let out = build_files(
            name,
            &[
                (format!("meshes/{name}"), bytes),
                (
                    "maps/m.dh-map".into(),
                    map_text(&[inst], &format!(" \"autoCollision\": {mode},")).into_bytes(),
                ),
            ],
        );
        o.add_build(&format!("fixture-{name}"), &out);
    }
}

/// The build cache's and the load cache's entries, and the load key, over the yard.
fn cache_entries(o: &mut Outputs) {
    let dir = support::temp_dir("byte-identity-cache");
    let cache = CookCache::new(&dir);
    let model = import_glb(&yard(), "meshes/yard.glb").unwrap();
    let mats: BTreeMap<String, String> = ["grid", "metal"]
        .iter()
        .map(|s| (s.to_string(), format!("{s}.dh-mat")))
        .collect();
    let pose = instance_pose(
        Some(Vec3([1.0, 2.0, 3.0])),
        Some(Vec3([5.0, 30.0, -10.0])),
        Some(Vec3([2.0, 1.0, 1.0])),
    );
    let ids = parts::match_identities(&model, "dev.example.models:meshes/yard.glb", None);
    let placement = Placement {
        instance_id: Guid([0x11; 16]),
        pose,
        first_id: 0,
        materials: &mats,
    };
    let mut table = parts::bake_parts_table(&model, &ids, &placement);
    let mut col = MapCollision::new(AutoCollision::Mesh, None, Some(cache.clone()));
    let out = col.bake_instance(&model, &table, &placement, &[]);
    out.apply(&mut table.parts);
    let done = col.finish("maps/yard.dh-map");
    if let Some(c) = &done.companion {
        o.add("cache/companion", &c.bytes);
    }
    let key = load_key("meshes/yard.glb", 0xCBF4_3926, 1234);
    o.add("cache/load-key", &key);
    let loaded = cook_placement_at_load(Some(&cache), &key, &pose, &table.parts, || {
        Ok::<_, String>(&model)
    })
    .unwrap();
    assert!(!loaded.cook.meshes.is_empty());
    o.add(
        "cache/loaded-companion",
        &dh_content::colcook::encode_companion(&loaded.cook),
    );
    let mut files: Vec<PathBuf> = walk(&dir);
    files.sort();
    for f in files {
        let rel = f
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        o.add(format!("cache/file/{rel}"), &std::fs::read(&f).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The ids and digests the parts module mints, direct.
fn ids(o: &mut Outputs) {
    let model = import_glb(&yard(), "meshes/yard.glb").unwrap();
    for n in 0..model.nodes.len() {
        o.add(
            format!("ids/content-hash/{n}"),
            parts::content_hash(&model, n).as_bytes(),
        );
    }
    let local = parts::mint_local_id("dev.example.models:meshes/yard.glb", "base/wall");
    o.add("ids/local", &local.0);
    o.add("ids/object", &parts::object_id(Guid([0x42; 16]), local).0);
}

#[test]
fn every_output_is_byte_identical_to_the_recording() {
    let mut o = Outputs::default();
    let core = compile(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("core"),
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    o.add_build("core", &core);
    yard_builds(&mut o);
    fixture_builds(&mut o);
    cache_entries(&mut o);
    ids(&mut o);

    if std::env::var_os(RECORD_ENV).is_some() {
        write_recorded(&o);
        println!("recorded {} outputs in {DATA}", o.0.len());
        return;
    }
    let recorded = read_recorded();
    let mut diffs = Vec::new();
    for (name, got) in &o.0 {
        match recorded.get(name) {
            Some(want) if want == got => {}
            Some(want) => diffs.push(format!(
                "{name}: {} bytes {} (recorded {} bytes {})",
                got.0, got.1, want.0, want.1
            )),
            None => diffs.push(format!("{name}: not in the recording")),
        }
    }
    for name in recorded.keys() {
        if !o.0.contains_key(name) {
            let fixture_case = name.starts_with("fixture-");
            if fixture_case {
                println!("not checked (fixture absent): {name}");
            } else {
                diffs.push(format!("{name}: recorded but not produced"));
            }
        }
    }
    assert!(diffs.is_empty(), "outputs differ:\n{}", diffs.join("\n"));
}
