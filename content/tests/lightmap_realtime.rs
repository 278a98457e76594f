//! What `dh build` does with a map's lightmap sidecar (spec 000 "Where a bake lives", "An
//! imported lightmap"): it packages `<map>.dh-map.dh-lightmap` as it stands and never bakes.
//! A map that asks for a lightmap with no sidecar, one this build cannot read, or one baked
//! for different geometry "ships lit in real time with a build warning naming the file — it
//! never fails the build" (000:1303), and the sidecar is then left out of the pallet; a map
//! whose lightmap is off gets no warning; a child inheriting an enabled lightmap is checked
//! too (the folded chain decides, 000:67). An imported lightmap is packed through
//! `LightmapPageFit`.

mod support;
use support::Pallet;

use dh_content::lightmap::codec::PLANES;
use dh_content::lightmap::sidecar::{
    geometry_hash, GeometryPlacement, Lightmap, Origin, Page, PageData, UvSet, BUILT_POSE,
    DEFAULT_ZONE,
};
use sha2::{Digest, Sha256};

const LAMP: &str = r#"{ "$type": "object", "id": "3c9b7a10-0000-4000-8000-00000000000a", "name": "lamp",
      "position": [0, 3, 0],
      "components": [ { "$type": "dh.light", "light": "point", "mode": "baked", "intensity": 5, "range": 6 } ] }"#;

fn map(lightmap: &str) -> String {
    format!(
        r#"{{ "name": "Lit", "lighting": {{ "lightmap": {lightmap} }}, "objects": [ {LAMP} ] }}"#
    )
}

fn lightmap_warnings(p: &Pallet, file: &str) -> Vec<String> {
    let out = p.check();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    out.diagnostics
        .items
        .iter()
        .filter(|d| d.file == file && d.message.contains("ships lit in real time"))
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn an_enabled_lightmap_with_no_sidecar_ships_lit_in_real_time_with_one_warning() {
    let p = Pallet::with_files(
        "lightmap-none",
        &[("maps/lit.dh-map", map(r#"{ "enabled": true }"#))],
    );
    let w = lightmap_warnings(&p, "maps/lit.dh-map");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("no lightmap 'maps/lit.dh-map.dh-lightmap'"),
        "names the file: {}",
        w[0]
    );
    assert!(
        w[0].contains("warning"),
        "a warning, not an error: {}",
        w[0]
    );
}

#[test]
fn a_sidecar_this_build_cannot_read_is_named_too() {
    let p = Pallet::with_files(
        "lightmap-unread",
        &[
            (
                "maps/lit.dh-map",
                map(r#"{ "enabled": true }"#).into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", b"not a bake".to_vec()),
        ],
    );
    let w = lightmap_warnings(&p, "maps/lit.dh-map");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("cannot read the lightmap 'maps/lit.dh-map.dh-lightmap'"),
        "{}",
        w[0]
    );
}

#[test]
fn a_lightmap_that_is_off_says_nothing_and_a_child_of_an_enabled_one_is_warned() {
    // A baked light needs an enabled lightmap (000:1093), so the map without one carries
    // a realtime lamp.
    let off = r#"{ "name": "Off", "lighting": { "lightmap": { "enabled": false } } }"#;
    let child = r#"{ "name": "Child", "inherits": "/maps/lit.dh-map" }"#;
    let p = Pallet::with_files(
        "lightmap-fold",
        &[
            ("maps/off.dh-map", off.to_string()),
            ("maps/lit.dh-map", map(r#"{ "enabled": true }"#)),
            ("maps/child.dh-map", child.to_string()),
        ],
    );
    assert!(lightmap_warnings(&p, "maps/off.dh-map").is_empty());
    assert_eq!(lightmap_warnings(&p, "maps/child.dh-map").len(), 1);
}

/// One triangle drawing `grid` in a node `hull` (the world model of the maps below).
fn tri_glb() -> Vec<u8> {
    let bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    support::glb(
        r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}],"materials":[{"name":"grid"}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],"nodes":[{"name":"hull","mesh":0}],"scenes":[{"nodes":[0]}]}"#,
        &bin,
    )
}

/// A map whose world is `meshes/room.glb` placed where it was built, with `lightmap` and
/// bake zones `zones`.
fn world_map(lightmap: &str, zones: &str) -> String {
    format!(
        r#"{{ "name": "Lit", "lighting": {{ "lightmap": {lightmap}, "bakeZones": {zones} }},
  "objects": [ {{ "$type": "instance", "id": "3c9b7a10-0000-4000-8000-0000000000a1", "name": "world", "source": "/meshes/room.glb" }}, {LAMP} ] }}"#
    )
}

/// A one-page sidecar of `w`×`h` raw texels (texel `i` has L0 bits `i`), three UV
/// coordinates, baked for `hash`.
fn sidecar(origin: Origin, w: u32, h: u32, hash: [u8; 32], uvs: Vec<[f32; 2]>) -> Lightmap {
    let n = (w * h) as usize;
    Lightmap {
        origin,
        page_width: w,
        page_height: h,
        geometry_hash: hash,
        zones: vec![],
        sets: vec![],
        pages: vec![Page {
            zone: DEFAULT_ZONE,
            set: 0,
            width: w,
            height: h,
            data: PageData::Texels {
                l0: (0..n as u32).collect(),
                planes: std::array::from_fn::<_, PLANES, _>(|p| vec![p as u8; n]),
            },
        }],
        exceptions: vec![],
        uv_sets: vec![UvSet {
            key: String::new(),
            coords: uvs,
            copies: vec![],
        }],
    }
}

fn all_warnings(p: &Pallet, file: &str) -> (Vec<String>, dh_content::compile::BuildOutput) {
    let out = p.check();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let w = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.file == file && d.message.contains("lightmap"))
        .map(|d| d.to_string())
        .collect();
    (w, out)
}

fn shipped<'a>(out: &'a dh_content::compile::BuildOutput, path: &str) -> Option<&'a [u8]> {
    out.assets
        .iter()
        .find(|a| a.path == path)
        .map(|a| a.bytes.as_slice())
}

/// The geometry hash of a map with its one model where it was built is the GLB's SHA-256
/// (000 "An imported lightmap": "the hash of that GLB like any other").
#[test]
fn one_model_where_it_was_built_hashes_to_its_glb() {
    let glb = tri_glb();
    let h = geometry_hash(&[GeometryPlacement {
        key: "k",
        model: &glb,
        pose: BUILT_POSE,
    }]);
    assert_eq!(h, <[u8; 32]>::from(Sha256::digest(&glb)));
    let moved = geometry_hash(&[GeometryPlacement {
        key: "k",
        model: &glb,
        pose: [[0.0, 1.0, 0.0], [0.0; 3], [1.0; 3]],
    }]);
    assert_ne!(moved, h, "a moved placement is other geometry");
}

#[test]
fn a_sidecar_baked_for_this_geometry_ships_as_it_stands_and_builds_clean() {
    let glb = tri_glb();
    let lm = sidecar(
        Origin::Baked,
        8,
        8,
        Sha256::digest(&glb).into(),
        vec![[0.5, 0.5]; 3],
    );
    let bytes = lm.write();
    let p = Pallet::with_files(
        "lightmap-ships",
        &[
            ("meshes/room.glb", glb),
            (
                "maps/lit.dh-map",
                world_map(r#"{ "enabled": true }"#, "[]").into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", bytes.clone()),
        ],
    );
    let (w, out) = all_warnings(&p, "maps/lit.dh-map");
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        shipped(&out, "maps/lit.dh-map.dh-lightmap"),
        Some(bytes.as_slice())
    );
}

#[test]
fn a_sidecar_baked_for_other_geometry_is_stale_ships_nothing_and_names_the_file() {
    let glb = tri_glb();
    let lm = sidecar(Origin::Baked, 8, 8, [7; 32], vec![[0.5, 0.5]; 3]);
    let p = Pallet::with_files(
        "lightmap-stale",
        &[
            ("meshes/room.glb", glb),
            (
                "maps/lit.dh-map",
                world_map(r#"{ "enabled": true }"#, "[]").into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", lm.write()),
        ],
    );
    let (w, out) = all_warnings(&p, "maps/lit.dh-map");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("the lightmap 'maps/lit.dh-map.dh-lightmap' is stale")
            && w[0].contains("070707070707")
            && w[0].contains("ships lit in real time"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("warning"), "{}", w[0]);
    assert_eq!(shipped(&out, "maps/lit.dh-map.dh-lightmap"), None);
}

#[test]
fn an_unreadable_sidecar_names_the_file_and_the_place() {
    let glb = tri_glb();
    let mut bytes = sidecar(Origin::Baked, 8, 8, Sha256::digest(&glb).into(), vec![]).write();
    bytes.truncate(bytes.len() - 20);
    let p = Pallet::with_files(
        "lightmap-truncated",
        &[
            ("meshes/room.glb", glb),
            (
                "maps/lit.dh-map",
                world_map(r#"{ "enabled": true }"#, "[]").into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", bytes),
        ],
    );
    let (w, out) = all_warnings(&p, "maps/lit.dh-map");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("cannot read the lightmap 'maps/lit.dh-map.dh-lightmap'")
            && w[0].contains("truncated at byte")
            && w[0].contains("page 0's texels"),
        "{}",
        w[0]
    );
    assert_eq!(shipped(&out, "maps/lit.dh-map.dh-lightmap"), None);
}

/// LightmapPageFit by hand: a 256×256 imported page whose UVs reach x = 0.25 (64 texels)
/// and v = 0.1 (25.6 texels). With two texels of margin that is 66 → 128 wide and 28 → 64
/// (the floor) high; the UVs rescale by 256/128 and 256/64: (0.25, 0.1) → (0.5, 0.4), and
/// texel (x, y) keeps its L0 (bits y·256 + x).
#[test]
fn an_imported_lightmap_is_packed_through_page_fit() {
    let glb = tri_glb();
    let lm = sidecar(
        Origin::Imported,
        256,
        256,
        Sha256::digest(&glb).into(),
        vec![[0.0, 0.0], [0.25, 0.1], [-1.0, -1.0]],
    );
    let p = Pallet::with_files(
        "lightmap-imported",
        &[
            ("meshes/room.glb", glb),
            (
                "maps/lit.dh-map",
                world_map(r#"{ "enabled": true, "origin": "imported" }"#, "[]").into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", lm.write()),
        ],
    );
    let (w, out) = all_warnings(&p, "maps/lit.dh-map");
    assert!(w.is_empty(), "{w:?}");
    let bytes = shipped(&out, "maps/lit.dh-map.dh-lightmap").expect("ships");
    let fitted = Lightmap::read("shipped", bytes).expect("reads");
    let page = &fitted.pages[0];
    assert_eq!((page.width, page.height), (128, 64));
    assert_eq!(
        fitted.uv_sets[0].coords,
        vec![[0.0, 0.0], [0.5, 0.4], [-1.0, -1.0]]
    );
    let PageData::Texels { l0, planes } = &page.data else {
        panic!("texels");
    };
    assert_eq!(l0.len(), 128 * 64);
    assert_eq!(l0[5 * 128 + 100], 5 * 256 + 100);
    assert_eq!(planes[3].len(), 128 * 64);
}

#[test]
fn a_declared_bake_set_the_sidecar_does_not_hold_is_warned_and_the_lightmap_still_ships() {
    let glb = tri_glb();
    let mut lm = sidecar(Origin::Baked, 8, 8, Sha256::digest(&glb).into(), vec![]);
    lm.zones = vec!["room".into()];
    let p = Pallet::with_files(
        "lightmap-sets",
        &[
            ("meshes/room.glb", glb),
            (
                "maps/lit.dh-map",
                world_map(
                    r#"{ "enabled": true }"#,
                    r#"[ { "id": "room", "sets": [ { "name": "red" } ] } ]"#,
                )
                .into_bytes(),
            ),
            ("maps/lit.dh-map.dh-lightmap", lm.write()),
        ],
    );
    let (w, out) = all_warnings(&p, "maps/lit.dh-map");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("bake zone 'room' declares the set 'red'")
            && w[0].contains("'maps/lit.dh-map.dh-lightmap' does not hold it"),
        "{}",
        w[0]
    );
    assert!(shipped(&out, "maps/lit.dh-map.dh-lightmap").is_some());
}
