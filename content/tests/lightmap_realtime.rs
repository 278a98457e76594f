//! A map that asks for a lightmap it cannot ship "ships lit in real time with a build
//! warning naming the file — it never fails the build" (spec 000:1303). This build reads no
//! bake yet, so both a missing `<map>.dh-map.dh-lightmap` and one that is there get the one
//! warning; a map whose lightmap is off gets none; a child inheriting an enabled lightmap is
//! warned too (the folded chain decides, 000:67).

mod support;
use support::Pallet;

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
