//! A `"baked"` light under a lightmap the engine has not loaded is lit live (spec 000:1303:
//! a map with no readable lightmap "ships lit in real time"; 000:1307: a baked light leaves
//! the live list because the atlas holds it). The engine reads no lightmap yet, so a baked
//! lamp must stay in the frame's light list rather than vanish; the load log says once that
//! the lightmap is not drawn (engine/src/load_log.rs).

use dh_engine::extract;

mod support;

const MANIFEST: &str =
    r#"{ "id": "test.baked", "name": "Baked", "version": "1.0.0", "dependencies": [] }"#;

#[test]
fn a_baked_light_with_no_loaded_lightmap_is_lit_live() {
    let map = r#"{
  "name": "Baked",
  "lighting": { "lightmap": { "enabled": true, "bakeSun": true } },
  "objects": [
    { "$type": "object", "id": "5b1c0d22-0000-4000-8000-000000000001", "name": "lamp",
      "position": [0, 3, 0],
      "components": [ { "$type": "dh.light", "light": "point", "mode": "baked",
                        "color": [1, 1, 1], "intensity": 8, "range": 6 } ] },
    { "$type": "object", "id": "5b1c0d22-0000-4000-8000-000000000002", "name": "live",
      "position": [4, 3, 0],
      "components": [ { "$type": "dh.light", "light": "point", "intensity": 2, "range": 3 } ] }
  ]
}"#;
    let dir = std::env::temp_dir().join(format!("dh-baked-lights-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pallet = support::memory_pallet(
        &dir,
        "baked.pallet",
        MANIFEST,
        vec![("maps/baked.dh-map", map.as_bytes().to_vec())],
    );
    let (host, catalog, m) = support::host_and_map(&[pallet], "baked");
    let x = extract::extract(&host, &catalog, &m);
    let _ = std::fs::remove_dir_all(&dir);
    let lights = &x.frame.lights;
    assert_eq!(
        lights.len(),
        2,
        "both lamps are in the live list: {lights:?}"
    );
    // The baked lamp: radiance = colour (white, the same in sRGB and linear) × intensity
    // = [8, 8, 8], range 6, at its pose.
    let baked = lights
        .iter()
        .find(|l| (l.range - 6.0).abs() < 1e-6)
        .unwrap_or_else(|| panic!("the baked lamp vanished: {lights:?}"));
    assert!((baked.radiance - glam::Vec3::splat(8.0)).length() < 1e-4);
    assert!((baked.position - glam::Vec3::new(0.0, 3.0, 0.0)).length() < 1e-4);
    // bakeSun: true zeroes the sun only under a loaded lightmap; none is, so the sun is lit.
    assert!(
        x.frame.lighting.sun_radiance.length() > 0.0,
        "the sun stays live with no lightmap loaded"
    );
}
