//! The map inheritance fold (spec, dh.map "Inheritance"), the chain checks a build runs
//! inside one pallet, and object variants resolved into the compiled object's `resolved`
//! member. Expected values are written by hand from the spec.

use dh_content::diag::{Severity, SourceFile};
use dh_content::fold::{
    check_map_chain, fold_map, fold_map_chain, fold_rule, resolve_object, resolve_object_chain,
    ChainProblem, ChainScope, FoldError, FoldRule, Folded, Level, Looks, MAP_FOLD_RULES,
};
use dh_content::jsonc::{self, Value};
use dh_content::read::Block;
use dh_content::refs::Barcode;
use dh_content::schema::map::{GiVolume, Hable, HullOptions, Lighting, Lightmap, Map, Render};

fn v(text: &str) -> Value {
    match jsonc::parse(text) {
        Ok(v) => v,
        Err(e) => panic!("test JSON does not parse: {} at {}", e.message, e.offset),
    }
}

fn bc(pallet: &str, path: &str) -> Barcode {
    Barcode {
        pallet: pallet.into(),
        path: path.into(),
    }
}

fn level(pallet: &str, path: &str, deps: &[&str], json: &str) -> Level {
    Level::new(
        bc(pallet, path),
        v(json),
        deps.iter().map(|d| d.to_string()).collect(),
    )
}

fn lookup(levels: &[Level]) -> impl Fn(&Barcode) -> Option<Level> + '_ {
    move |b: &Barcode| levels.iter().find(|l| &l.barcode == b).cloned()
}

fn no_asset_looks(_: &Barcode) -> Option<Value> {
    None
}

const NO_LOOKS: Looks<'static> = Looks {
    pallet_default: None,
    asset: &no_asset_looks,
};

fn fold(levels: &[Level]) -> Folded {
    match fold_map_chain(levels, &NO_LOOKS) {
        Ok(f) => f,
        Err(e) => panic!("fold refused: {e}"),
    }
}

fn assert_json(got: &Value, expected: &str) {
    assert_eq!(got.to_json(), v(expected).to_json());
}

fn messages(problems: &[ChainProblem]) -> Vec<String> {
    problems.iter().map(|p| p.message.clone()).collect()
}

// ---------------------------------------------------------------------------------------
// The rules table

#[test]
fn every_authored_member_has_a_fold_rule() {
    // Every authored member of a map, and of every block folded per field, from the typed
    // schema's own field lists.
    let blocks: &[(&str, &[&str])] = &[
        ("", <Map as Block>::FIELDS),
        ("hullOptions", <HullOptions as Block>::FIELDS),
        ("lighting", <Lighting as Block>::FIELDS),
        ("lighting.lightmap", <Lightmap as Block>::FIELDS),
        ("lighting.giVolume", <GiVolume as Block>::FIELDS),
        ("render", <Render as Block>::FIELDS),
        ("render.hable", <Hable as Block>::FIELDS),
    ];
    let path = |prefix: &str, f: &str| {
        if prefix.is_empty() {
            f.to_string()
        } else {
            format!("{prefix}.{f}")
        }
    };
    let mut missing = Vec::new();
    for (prefix, fields) in blocks {
        for f in fields.iter() {
            let p = path(prefix, f);
            if fold_rule(&p).is_none() {
                missing.push(p);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "members without a fold rule: {missing:?}"
    );
    // A block folded per field has its members enumerated above.
    for (p, rule) in MAP_FOLD_RULES {
        if *rule == FoldRule::PerField {
            assert!(
                blocks.iter().any(|(prefix, _)| prefix == p),
                "'{p}' folds per field, so its members must be enumerated by this test"
            );
        }
    }
    // Every rule names a member the schema has (cookedCollision is a companion the build
    // generates, named by the spec's table).
    for (p, _) in MAP_FOLD_RULES {
        if *p == "cookedCollision" {
            continue;
        }
        let known = blocks
            .iter()
            .any(|(prefix, fields)| fields.iter().any(|f| path(prefix, f) == *p));
        assert!(known, "the rule for '{p}' names no member of the schema");
    }
}

#[test]
fn the_table_states_the_specs_rules() {
    assert_eq!(fold_rule("name"), Some(FoldRule::NotInherited));
    assert_eq!(fold_rule("description"), Some(FoldRule::NotInherited));
    assert_eq!(fold_rule("lighting"), Some(FoldRule::PerField));
    assert_eq!(fold_rule("render"), Some(FoldRule::PerField));
    assert_eq!(fold_rule("hullOptions"), Some(FoldRule::PerField));
    assert_eq!(fold_rule("lighting.lightmap"), Some(FoldRule::PerField));
    assert_eq!(fold_rule("lighting.giVolume"), Some(FoldRule::PerField));
    assert_eq!(fold_rule("lighting.skyImage"), Some(FoldRule::Whole));
    assert_eq!(fold_rule("backdrop"), Some(FoldRule::Whole));
    assert_eq!(fold_rule("autoCollision"), Some(FoldRule::Whole));
    assert_eq!(fold_rule("lighting.sunDirection"), Some(FoldRule::Whole));
    assert_eq!(fold_rule("materials"), Some(FoldRule::PerSlot));
    assert_eq!(fold_rule("lighting.bakeZones"), Some(FoldRule::PerZone));
    assert_eq!(fold_rule("look"), Some(FoldRule::LookLevels));
    assert_eq!(fold_rule("objects"), Some(FoldRule::AddedTo));
    assert_eq!(fold_rule("cookedCollision"), Some(FoldRule::Never));
    assert_eq!(fold_rule("lighting.nope"), None);
}

// ---------------------------------------------------------------------------------------
// The fold, rule by rule

const ENV: &str = "com.mojang.minecraft";
const CITY: &str = "io.mltn.tests.minecraft-worlds";

fn env_template() -> Level {
    level(
        ENV,
        "maps/environment.dh-map",
        &[],
        r#"{
          "name": "Minecraft environment",
          "description": "The look every imported world reads.",
          "materials": { "water": "/materials/water.dh-mat", "leaves": "/materials/leaves.dh-mat" },
          "autoCollision": "boxes",
          "hullOptions": { "maxConvexHulls": 32, "maxVerticesPerHull": 48 },
          "lighting": {
            "sunDirection": [-0.35, -0.85, -0.4],
            "sunColor": [1, 0.95, 0.9],
            "sunIntensity": 2.2,
            "skyImage": { "path": "/textures/skies/environment.hdr", "exposure": 0.5, "rotation": 225 },
            "lightmap": { "enabled": true, "texelDensity": 4, "samples": 2 },
            "giVolume": { "probeSpacing": 4, "samples": 256 }
          },
          "render": { "exposure": 1.2, "tonemap": "aces", "hable": { "whitePoint": 8, "toeStrength": 0.3 } },
          "backdrop": { "anchor": [0, 100, 0], "scale": 16, "parts": ["backdrop"] }
        }"#,
    )
}

#[test]
fn the_specs_environment_template_example() {
    // io.mltn.tests.minecraft-worlds/maps/mltn-city.dh-map: "The world's own sky ... and
    // where its sun stands. The sun's color and intensity, and anything else the template
    // states, read through."
    let child = level(
        CITY,
        "maps/mltn-city.dh-map",
        &[ENV],
        r#"{
          "name": "mltn city (Minecraft)",
          "inherits": "com.mojang.minecraft:maps/environment.dh-map",
          "lighting": {
            // The world's own sky (its biome, its time of day) and where its sun stands.
            "skyImage": { "path": "/textures/skies/mltn-city.hdr" },
            "sunDirection": [-0.866, -0.499, 0]
          },
          "objects": [ /* the spawn, the volume and the cameras, as before */ ]
        }"#,
    );
    let folded = fold(&[env_template(), child]);
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{
          "name": "mltn city (Minecraft)",
          "materials": { "water": "com.mojang.minecraft:materials/water.dh-mat", "leaves": "com.mojang.minecraft:materials/leaves.dh-mat" },
          "autoCollision": "boxes",
          "hullOptions": { "maxConvexHulls": 32, "maxVerticesPerHull": 48 },
          "lighting": {
            "sunDirection": [-0.866, -0.499, 0],
            "sunColor": [1, 0.95, 0.9],
            "sunIntensity": 2.2,
            "skyImage": { "path": "/textures/skies/mltn-city.hdr" },
            "lightmap": { "enabled": true, "texelDensity": 4, "samples": 2 },
            "giVolume": { "probeSpacing": 4, "samples": 256 }
          },
          "render": { "exposure": 1.2, "tonemap": "aces", "hable": { "whitePoint": 8, "toeStrength": 0.3 } },
          "backdrop": { "anchor": [0, 100, 0], "scale": 16, "parts": ["backdrop"] },
          "inherits": "com.mojang.minecraft:maps/environment.dh-map",
          "objects": []
        }"#,
    );
}

#[test]
fn name_and_description_are_not_inherited() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "name": "Base", "description": "The base." }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map" }"#,
    );
    assert_json(
        &fold(&[parent.clone(), child]).value,
        r#"{ "inherits": "base.dh-map" }"#,
    );
    let named = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "name": "Child" }"#,
    );
    assert_json(
        &fold(&[parent, named]).value,
        r#"{ "name": "Child", "inherits": "base.dh-map" }"#,
    );
}

#[test]
fn lighting_render_and_hull_options_fold_per_field() {
    let child = level(
        CITY,
        "maps/a.dh-map",
        &[ENV],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map",
             "hullOptions": { "maxConvexHulls": 16, "resolution": 100000 },
             "lighting": { "sunIntensity": 1.5, "ambientIntensity": 0.35,
                           "lightmap": { "texelDensity": 6 }, "giVolume": { "samples": 512 } },
             "render": { "tonemap": "reinhardWhite", "hable": { "whitePoint": 4 }, "bloom": false } }"#,
    );
    let folded = fold(&[env_template(), child]);
    let get = |k: &str| folded.value.get(k).map(Value::to_json).unwrap_or_default();
    assert_eq!(
        get("hullOptions"),
        v(r#"{ "maxConvexHulls": 16, "maxVerticesPerHull": 48, "resolution": 100000 }"#).to_json()
    );
    assert_eq!(
        get("lighting"),
        v(r#"{ "sunDirection": [-0.35, -0.85, -0.4], "sunColor": [1, 0.95, 0.9], "sunIntensity": 1.5,
               "skyImage": { "path": "com.mojang.minecraft:textures/skies/environment.hdr", "exposure": 0.5, "rotation": 225 },
               "lightmap": { "enabled": true, "texelDensity": 6, "samples": 2 },
               "giVolume": { "probeSpacing": 4, "samples": 512 },
               "ambientIntensity": 0.35 }"#)
        .to_json()
    );
    assert_eq!(
        get("render"),
        v(r#"{ "exposure": 1.2, "tonemap": "reinhardWhite", "hable": { "whitePoint": 4, "toeStrength": 0.3 }, "bloom": false }"#)
            .to_json()
    );
}

#[test]
fn a_sky_image_is_one_picture() {
    // "a child's new path does not keep the parent's rotation"
    let child = level(
        CITY,
        "maps/a.dh-map",
        &[ENV],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map",
             "lighting": { "skyImage": { "path": "/textures/skies/mltn-city.hdr", "exposure": 2 } } }"#,
    );
    let folded = fold(&[env_template(), child]);
    let sky = folded.value.get("lighting").and_then(|l| l.get("skyImage"));
    assert_eq!(
        sky.map(Value::to_json),
        Some(v(r#"{ "path": "/textures/skies/mltn-city.hdr", "exposure": 2 }"#).to_json())
    );
}

#[test]
fn backdrop_and_auto_collision_fold_whole() {
    let child = level(
        CITY,
        "maps/a.dh-map",
        &[ENV],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map",
             "autoCollision": false,
             "backdrop": { "anchor": [1, 2, 3], "fog": { "color": [0.5, 0.6, 0.7], "start": 0, "end": 100 } } }"#,
    );
    let folded = fold(&[env_template(), child]);
    assert_eq!(
        folded
            .value
            .get("autoCollision")
            .map(Value::to_json)
            .as_deref(),
        Some("false")
    );
    assert_eq!(
        folded.value.get("backdrop").map(Value::to_json),
        Some(v(r#"{ "anchor": [1, 2, 3], "fog": { "color": [0.5, 0.6, 0.7], "start": 0, "end": 100 } }"#).to_json())
    );
}

#[test]
fn materials_fold_per_slot() {
    // "A child rebinds one slot and keeps the rest."
    let parent = level(
        "dev.example.maps",
        "maps/base.dh-map",
        &[],
        r#"{ "materials": { "grid": "/materials/dev-grid.dh-mat", "orange": "/materials/dev-orange.dh-mat",
                            "proto": "core:materials/dev-grid-white.dh-mat" } }"#,
    );
    let child = level(
        "dev.example.maps",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "materials": { "orange": "/materials/red.dh-mat", "sky": "materials/sky.dh-mat", "grid": null } }"#,
    );
    let folded = fold(&[parent, child]);
    assert_eq!(
        folded.value.get("materials").map(Value::to_json),
        Some(
            v(r#"{ "grid": "dev.example.maps:materials/dev-grid.dh-mat", "orange": "/materials/red.dh-mat",
                   "proto": "core:materials/dev-grid-white.dh-mat", "sky": "materials/sky.dh-mat" }"#)
            .to_json()
        )
    );
}

#[test]
fn bake_zones_fold_per_zone_set_and_key() {
    // "Per zone id, a zone's sets per set name, a set's lights and emission per key."
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "lighting": { "bakeZones": [
              { "id": "room", "name": "Room", "texelDensity": 6,
                "sets": [
                  { "name": "off", "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "enabled": false } } },
                  { "name": "red",
                    "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "color": [1, 0.1, 0.05], "intensity": 25 } },
                    "emission": { "yard/roomPanel": { "color": [1, 0, 0] } } }
                ] },
              { "id": "underground", "name": "Underground" } ] } }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "lighting": { "bakeZones": [
              { "id": "attic", "name": "Attic" },
              { "id": "room", "texelDensity": 8,
                "sets": [
                  { "name": "red",
                    "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "intensity": 10 },
                                "0b7c4d2e-1111-4e1b-9d8a-5a2dc121ecd5": { "enabled": false } } },
                  { "name": "blue", "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "color": [0, 0, 1] } } }
                ] } ] } }"#,
    );
    let folded = fold(&[parent, child]);
    let zones = folded
        .value
        .get("lighting")
        .and_then(|l| l.get("bakeZones"));
    assert_eq!(
        zones.map(Value::to_json),
        Some(
            v(r#"[
              { "id": "room", "name": "Room", "texelDensity": 8,
                "sets": [
                  { "name": "off", "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "enabled": false } } },
                  { "name": "red",
                    "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "intensity": 10 },
                                "0b7c4d2e-1111-4e1b-9d8a-5a2dc121ecd5": { "enabled": false } },
                    "emission": { "yard/roomPanel": { "color": [1, 0, 0] } } },
                  { "name": "blue", "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "color": [0, 0, 1] } } }
                ] },
              { "id": "underground", "name": "Underground" },
              { "id": "attic", "name": "Attic" } ]"#)
            .to_json()
        )
    );
}

#[test]
fn objects_are_added_to_parent_first() {
    // "The parent's records come first, in its order, then the child's own."
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [
              { "$type": "folder", "id": "a0000000-0000-4000-8000-000000000001", "name": "lamps" },
              { "$type": "object", "id": "a0000000-0000-4000-8000-000000000002", "name": "sun" } ] }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "objects": [
              { "$type": "object", "id": "b0000000-0000-4000-8000-000000000001", "name": "spawn",
                "components": [ { "$type": "dh.spawnPoint" } ] } ] }"#,
    );
    let folded = fold(&[parent, child]);
    assert_eq!(
        folded.value.get("objects").map(Value::to_json),
        Some(
            v(r#"[
              { "$type": "folder", "id": "a0000000-0000-4000-8000-000000000001", "name": "lamps" },
              { "$type": "object", "id": "a0000000-0000-4000-8000-000000000002", "name": "sun" },
              { "$type": "object", "id": "b0000000-0000-4000-8000-000000000001", "name": "spawn",
                "components": [ { "$type": "dh.spawnPoint" } ] } ]"#)
            .to_json()
        )
    );
}

#[test]
fn a_record_restating_an_inherited_id_is_left_out_at_load() {
    // "A child record whose id a parent already holds ... is left out with a warning at load."
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "object", "id": "a0000000-0000-4000-8000-000000000002", "name": "sun" } ] }"#,
    );
    let child = level(
        "q",
        "maps/child.dh-map",
        &["p"],
        r#"{ "inherits": "p:maps/base.dh-map", "objects": [
              { "$type": "object", "id": "A0000000-0000-4000-8000-000000000002", "name": "moon" },
              { "$type": "object", "id": "b0000000-0000-4000-8000-000000000001", "name": "spawn" } ] }"#,
    );
    let folded = fold(&[parent, child]);
    assert_eq!(
        folded.value.get("objects").map(Value::to_json),
        Some(
            v(r#"[ { "$type": "object", "id": "a0000000-0000-4000-8000-000000000002", "name": "sun" },
                   { "$type": "object", "id": "b0000000-0000-4000-8000-000000000001", "name": "spawn" } ]"#)
            .to_json()
        )
    );
    assert_eq!(folded.problems.len(), 1);
    let p = &folded.problems[0];
    assert_eq!(p.severity, Severity::Warning);
    assert_eq!(p.at, bc("q", "maps/child.dh-map"));
    assert_eq!(p.path, "objects[0].id");
    assert_eq!(
        p.message,
        "record 'A0000000-0000-4000-8000-000000000002' has the id of an inherited record and is left out: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)"
    );
}

#[test]
fn a_null_the_child_writes_reads_through() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "autoCollision": "hulls", "lighting": { "sky": true } }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "autoCollision": null, "lighting": { "sky": null, "skyMie": 2 } }"#,
    );
    assert_json(
        &fold(&[parent, child]).value,
        r#"{ "autoCollision": "hulls", "lighting": { "sky": true, "skyMie": 2 }, "inherits": "base.dh-map" }"#,
    );
}

#[test]
fn a_chain_of_three_folds_root_first() {
    let root = level(
        "p",
        "maps/root.dh-map",
        &[],
        r#"{ "lighting": { "sunIntensity": 1, "sunColor": [1, 1, 1] }, "objects": [ { "$type": "folder", "id": "r", "name": "r" } ] }"#,
    );
    let mid = level(
        "p",
        "maps/mid.dh-map",
        &[],
        r#"{ "inherits": "root.dh-map", "lighting": { "sunIntensity": 2 }, "objects": [ { "$type": "folder", "id": "m", "name": "m" } ] }"#,
    );
    let leaf = level(
        "p",
        "maps/leaf.dh-map",
        &[],
        r#"{ "inherits": "mid.dh-map", "lighting": { "sunColor": [1, 0, 0] }, "objects": [ { "$type": "folder", "id": "l", "name": "l" } ] }"#,
    );
    let all = [root, mid, leaf.clone()];
    let folded = match fold_map(leaf, &NO_LOOKS, lookup(&all)) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{ "lighting": { "sunIntensity": 2, "sunColor": [1, 0, 0] },
             "objects": [ { "$type": "folder", "id": "r", "name": "r" }, { "$type": "folder", "id": "m", "name": "m" },
                          { "$type": "folder", "id": "l", "name": "l" } ],
             "inherits": "mid.dh-map" }"#,
    );
}

// ---------------------------------------------------------------------------------------
// Looks, level by level

fn look_fold(levels: &[Level], pallet_default: Option<&str>) -> Folded {
    let night = |b: &Barcode| -> Option<Value> {
        (b == &bc("dev.example.looks", "looks/night.dh-look"))
            .then(|| v(r#"{ "render": { "exposure": 0.5, "tonemap": "aces" }, "lighting": { "halfLambert": 0.25 } }"#))
    };
    let looks = Looks {
        pallet_default,
        asset: &night,
    };
    match fold_map_chain(levels, &looks) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_child_adopting_unity_gets_unitys_curve_even_where_its_parent_pinned_aces() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "render": { "tonemap": "aces", "exposure": 1.5 } }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "look": "unity" }"#,
    );
    let folded = look_fold(&[parent, child], None);
    // Unity: "no tone curve ..., plain Lambert shading (halfLambert 0), its legacy light
    // attenuation (falloff "unity"), and the PPv2 bloom shape — threshold 1.721, knee 0.5,
    // diffusion 6.2, anamorphic -0.24". The parent's exposure reads through.
    assert_json(
        &folded.value,
        r#"{ "render": { "tonemap": "none", "exposure": 1.5, "bloomThreshold": 1.721, "bloomSoftKnee": 0.5,
                         "bloomDiffusion": 6.2, "bloomAnamorphic": -0.24 },
             "lighting": { "halfLambert": 0, "falloff": "unity" },
             "inherits": "base.dh-map",
             "look": "unity" }"#,
    );
}

#[test]
fn fields_a_replaced_look_set_and_the_new_one_does_not_keep_their_values() {
    // Parent adopts source (halfLambert 1); the child adopts filmic (tonemap hable only).
    let parent = level("p", "maps/base.dh-map", &[], r#"{ "look": "source" }"#);
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "look": "filmic" }"#,
    );
    let folded = look_fold(&[parent, child], None);
    assert_json(
        &folded.value,
        r#"{ "lighting": { "halfLambert": 1 }, "look": "filmic", "render": { "tonemap": "hable" }, "inherits": "base.dh-map" }"#,
    );
}

#[test]
fn a_look_is_a_seed_never_a_lock() {
    // ""look": "unity", "render": { "exposure": 2.0 }" is the Unity look at your exposure;
    // and the child's own fields beat its own look.
    let map = level(
        "p",
        "maps/a.dh-map",
        &[],
        r#"{ "look": "unity", "render": { "exposure": 2.0, "bloomDiffusion": 8 } }"#,
    );
    let folded = look_fold(&[map], None);
    assert_json(
        &folded.value,
        r#"{ "render": { "tonemap": "none", "bloomThreshold": 1.721, "bloomSoftKnee": 0.5, "bloomDiffusion": 8,
                         "bloomAnamorphic": -0.24, "exposure": 2 },
             "lighting": { "halfLambert": 0, "falloff": "unity" },
             "look": "unity" }"#,
    );
}

#[test]
fn the_pallet_default_look_sits_below_the_parents_look() {
    // Weakest to strongest: the child's pallet's default look, the parent's look, the
    // parent's fields, the child's look, the child's fields.
    let parent = level(
        "dev.example.looks",
        "maps/base.dh-map",
        &[],
        r#"{ "look": "source", "lighting": { "sunIntensity": 3 } }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &["dev.example.looks"],
        r#"{ "inherits": "dev.example.looks:maps/base.dh-map", "lighting": { "falloff": "physical" } }"#,
    );
    // pallet.dh names a dh.look of a dependency; source then lays halfLambert 1 over the
    // look's 0.25, the parent's and the child's fields over both.
    let folded = look_fold(
        &[parent, child],
        Some("dev.example.looks:looks/night.dh-look"),
    );
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{ "render": { "exposure": 0.5, "tonemap": "aces" },
             "lighting": { "halfLambert": 1, "sunIntensity": 3, "falloff": "physical" },
             "look": "source",
             "inherits": "dev.example.looks:maps/base.dh-map" }"#,
    );
}

#[test]
fn a_parents_look_asset_is_read_in_the_parents_pallet() {
    // The parent names its look relative to its own folder; the fold rewrites it to a
    // barcode in the parent's pallet before it is asked for.
    let parent = level(
        "dev.example.looks",
        "looks-demo/base.dh-map",
        &[],
        r#"{ "look": "../looks/night.dh-look" }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &["dev.example.looks"],
        r#"{ "inherits": "dev.example.looks:looks-demo/base.dh-map" }"#,
    );
    let folded = look_fold(&[parent, child], None);
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{ "render": { "exposure": 0.5, "tonemap": "aces" },
             "lighting": { "halfLambert": 0.25 },
             "look": "dev.example.looks:looks/night.dh-look",
             "inherits": "dev.example.looks:looks-demo/base.dh-map" }"#,
    );
}

#[test]
fn a_look_that_names_nothing_is_reported() {
    let map = level(
        "p",
        "maps/a.dh-map",
        &[],
        r#"{ "look": "looks/missing.dh-look" }"#,
    );
    let folded = look_fold(&[map], None);
    assert_eq!(
        messages(&folded.problems),
        vec!["look 'looks/missing.dh-look' names no look this build can find"]
    );
    assert_eq!(folded.problems[0].severity, Severity::Error);
}

// ---------------------------------------------------------------------------------------
// References mean what their own file meant

#[test]
fn a_parents_references_are_rewritten_to_barcodes_in_its_pallet() {
    let parent = level(
        ENV,
        "maps/environment.dh-map",
        &["dev.example.props"],
        r#"{
          "materials": { "grid": "materials/dev-grid.dh-mat", "proto": "core:materials/dev-grid-white.dh-mat" },
          "lighting": { "skyImage": { "path": "/textures/skies/environment.hdr" } },
          "objects": [
            { "$type": "object", "id": "o1", "name": "lamp",
              "components": [ { "$type": "dh.box", "size": [1, 1, 1], "material": "grid" } ] },
            { "$type": "object", "id": "o2", "name": "world-volume",
              "components": [ { "$type": "dh.voxelVolume", "volume": "../voxels/village.dh-vox" } ] },
            { "$type": "object", "id": "o3", "name": "probes",
              "components": [ { "$type": "dh.lightProbeGroup", "probes": "maps/environment.dh-probegroup" } ] },
            { "$type": "instance", "id": "o4", "name": "placedCrate", "source": "dev.example.props:objects/crate.dh-obj",
              "components": [
                { "$type": "dh.box", "material": "/materials/crate-blue.dh-mat" },
                { "$type": "dh.renderer", "materials": { "Wood": "wood.dh-mat" } } ] },
            { "$type": "instance", "id": "o5", "name": "bench", "source": "props/bench.dh-obj",
              "components": [ { "$type": "dh.box", "material": "grid" } ] }
          ]
        }"#,
    );
    let child = level(
        CITY,
        "maps/mltn-city.dh-map",
        &[ENV],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map",
             "materials": { "city": "materials/city.dh-mat" } }"#,
    );
    let folded = fold(&[parent, child]);
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{
          "materials": { "grid": "com.mojang.minecraft:maps/materials/dev-grid.dh-mat", "proto": "core:materials/dev-grid-white.dh-mat",
                         "city": "materials/city.dh-mat" },
          "lighting": { "skyImage": { "path": "com.mojang.minecraft:textures/skies/environment.hdr" } },
          "objects": [
            { "$type": "object", "id": "o1", "name": "lamp",
              "components": [ { "$type": "dh.box", "size": [1, 1, 1], "material": "grid" } ] },
            { "$type": "object", "id": "o2", "name": "world-volume",
              "components": [ { "$type": "dh.voxelVolume", "volume": "com.mojang.minecraft:voxels/village.dh-vox" } ] },
            { "$type": "object", "id": "o3", "name": "probes",
              "components": [ { "$type": "dh.lightProbeGroup", "probes": "com.mojang.minecraft:maps/environment.dh-probegroup" } ] },
            { "$type": "instance", "id": "o4", "name": "placedCrate", "source": "dev.example.props:objects/crate.dh-obj",
              "components": [
                { "$type": "dh.box", "material": "com.mojang.minecraft:materials/crate-blue.dh-mat" },
                { "$type": "dh.renderer", "materials": { "Wood": "com.mojang.minecraft:maps/wood.dh-mat" } } ] },
            { "$type": "instance", "id": "o5", "name": "bench", "source": "com.mojang.minecraft:maps/props/bench.dh-obj",
              "components": [ { "$type": "dh.box", "material": "grid" } ] }
          ],
          "inherits": "com.mojang.minecraft:maps/environment.dh-map"
        }"#,
    );
}

#[test]
fn a_parent_reference_that_does_not_resolve_is_an_error() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "materials": { "grid": "dev.other:materials/x.dh-mat" } }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map" }"#,
    );
    let folded = fold(&[parent, child]);
    assert_eq!(
        messages(&folded.problems),
        vec!["'grid': 'dev.other:materials/x.dh-mat' names pallet 'dev.other', which this pallet does not declare in its dependencies"]
    );
    assert_eq!(folded.problems[0].path, "materials.grid");
    assert_eq!(folded.problems[0].at, bc("p", "maps/base.dh-map"));
}

// ---------------------------------------------------------------------------------------
// Chain checks

fn check(leaf: &Level, all: &[Level], scope: ChainScope) -> Vec<ChainProblem> {
    check_map_chain(leaf, scope, lookup(all))
}

#[test]
fn a_circular_chain_is_an_error() {
    let a = level("p", "maps/a.dh-map", &[], r#"{ "inherits": "b.dh-map" }"#);
    let b = level(
        "p",
        "maps/b.dh-map",
        &[],
        r#"{ "inherits": "/maps/a.dh-map" }"#,
    );
    let all = [a.clone(), b];
    let problems = check(&a, &all, ChainScope::Pallet);
    assert_eq!(
        messages(&problems),
        vec!["circular inherits chain: p:maps/a.dh-map -> p:maps/b.dh-map -> p:maps/a.dh-map"]
    );
    // Located at the link that closes the circle, in b.
    assert_eq!(problems[0].at, bc("p", "maps/b.dh-map"));
    assert_eq!(problems[0].path, "inherits");
    // A map naming itself.
    let me = level("p", "maps/me.dh-map", &[], r#"{ "inherits": "me.dh-map" }"#);
    assert_eq!(
        messages(&check(&me, std::slice::from_ref(&me), ChainScope::Pallet)),
        vec!["circular inherits chain: p:maps/me.dh-map -> p:maps/me.dh-map"]
    );
}

#[test]
fn a_parent_that_is_not_a_map_is_an_error() {
    let door = level("p", "objects/door.dh-obj", &[], r#"{ "name": "Door" }"#);
    let child = level(
        "p",
        "maps/a.dh-map",
        &[],
        r#"{ "inherits": "/objects/door.dh-obj" }"#,
    );
    let problems = check(&child, &[door], ChainScope::Pallet);
    assert_eq!(
        messages(&problems),
        vec!["'inherits' names 'p:objects/door.dh-obj', which is not a dh.map"]
    );
    // A .dh-map file whose $type says otherwise.
    let odd = level("p", "maps/odd.dh-map", &[], r#"{ "$type": "dh.object" }"#);
    let child = level("p", "maps/b.dh-map", &[], r#"{ "inherits": "odd.dh-map" }"#);
    assert_eq!(
        messages(&check(&child, &[odd], ChainScope::Pallet)),
        vec!["'inherits' names 'p:maps/odd.dh-map', which is not a dh.map"]
    );
}

#[test]
fn a_parent_that_cannot_be_found_or_is_undeclared_is_an_error() {
    let child = level(
        "p",
        "maps/a.dh-map",
        &[],
        r#"{ "inherits": "missing.dh-map" }"#,
    );
    assert_eq!(
        messages(&check(&child, &[], ChainScope::Pallet)),
        vec!["'inherits' names 'p:maps/missing.dh-map', which this build cannot find"]
    );
    // "the build refuses an inherits into a pallet it does not [declare]"
    let child = level(
        "p",
        "maps/a.dh-map",
        &[],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map" }"#,
    );
    assert_eq!(
        messages(&check(&child, &[env_template()], ChainScope::Pallet)),
        vec!["'inherits': 'com.mojang.minecraft:maps/environment.dh-map' names pallet 'com.mojang.minecraft', which this pallet does not declare in its dependencies"]
    );
}

#[test]
fn a_build_checks_only_the_parents_in_its_own_pallet() {
    // "A parent in another pallet is checked where it lives": the build does not even ask
    // for it.
    let child = level(
        CITY,
        "maps/a.dh-map",
        &[ENV],
        r#"{ "inherits": "com.mojang.minecraft:maps/environment.dh-map",
             "objects": [ { "$type": "instance", "id": "w", "name": "world", "source": "/meshes/city.glb" } ] }"#,
    );
    let panicking = |b: &Barcode| -> Option<Level> { panic!("looked up {b}") };
    assert!(check_map_chain(&child, ChainScope::Pallet, panicking).is_empty());
}

#[test]
fn inherited_geometry_is_refused() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/debug-map.glb" } ] }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map" }"#,
    );
    let expected = "parent 'p:maps/base.dh-map' places a model ('/meshes/debug-map.glb', 'world'): inheriting geometry is not built yet; the parts, their ids, the cook and the bakes of an inherited model belong to a later lane. Inherit a map that places none, or place the model in the child";
    // At build...
    let problems = check(&child, std::slice::from_ref(&parent), ChainScope::Pallet);
    assert_eq!(messages(&problems), vec![expected]);
    assert_eq!(problems[0].at, bc("p", "maps/child.dh-map"));
    // ...and at load.
    match fold_map_chain(&[parent, child], &NO_LOOKS) {
        Err(FoldError::InheritedGeometry(p)) => assert_eq!(p.message, expected),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A parent placing objects (not models) is fine, and so is a folder of pieces refused.
    let objects = level(
        "p",
        "maps/objs.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "instance", "id": "c", "name": "crate", "source": "core:objects/physicsCube.dh-obj" } ] }"#,
    );
    let child = level(
        "p",
        "maps/c2.dh-map",
        &[],
        r#"{ "inherits": "objs.dh-map" }"#,
    );
    assert!(check(&child, &[objects], ChainScope::Pallet).is_empty());
    let pieces = level(
        "p",
        "maps/pieces.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "instance", "id": "w", "name": "world", "source": "/meshes/de_ancient" } ] }"#,
    );
    let child = level(
        "p",
        "maps/c3.dh-map",
        &[],
        r#"{ "inherits": "pieces.dh-map" }"#,
    );
    assert_eq!(check(&child, &[pieces], ChainScope::Pallet).len(), 1);
}

#[test]
fn a_record_whose_id_a_parent_holds_is_refused_at_build() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "name": "spawnA" } ] }"#,
    );
    let text = r#"{ "inherits": "base.dh-map",
  "objects": [ { "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "name": "spawnB" } ] }"#;
    let child = level("p", "maps/child.dh-map", &[], text);
    let problems = check(&child, std::slice::from_ref(&parent), ChainScope::Pallet);
    assert_eq!(
        messages(&problems),
        vec!["record '10cd5fc6-fa9f-4faf-a968-6e159ccede2e' has the id of a record parent 'p:maps/base.dh-map' already holds: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)"]
    );
    assert_eq!(problems[0].severity, Severity::Error);
    let d = problems[0].to_diagnostic(Some(&SourceFile::new("maps/child.dh-map", text)));
    assert_eq!(
        d.to_string(),
        "maps/child.dh-map:2:43: error: objects[0].id: record '10cd5fc6-fa9f-4faf-a968-6e159ccede2e' has the id of a record parent 'p:maps/base.dh-map' already holds: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)"
    );
    // At load, a warning: the record is left out.
    let problems = check(&child, &[parent], ChainScope::Whole);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].severity, Severity::Warning);
    assert!(problems[0].message.ends_with("; the record is left out"));
}

#[test]
fn a_record_or_camera_name_that_repeats_a_parents_is_an_error() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [
              { "$type": "object", "id": "a1", "name": "doorButton", "components": [ { "$type": "dh.button" } ] },
              { "$type": "object", "id": "a2", "name": "skyline", "components": [ { "$type": "dh.camera", "fov": 60 } ] } ] }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "objects": [
              { "$type": "object", "id": "b1", "name": "doorButton" },
              { "$type": "object", "id": "b2", "name": "skyline", "components": [ { "$type": "dh.camera", "fov": 40 } ] },
              { "$type": "object", "id": "b3", "name": "fresh" } ] }"#,
    );
    let problems = check(&child, &[parent], ChainScope::Pallet);
    assert_eq!(
        messages(&problems),
        vec![
            "record name 'doorButton' repeats a record of parent 'p:maps/base.dh-map'",
            "camera name 'skyline' repeats a camera of parent 'p:maps/base.dh-map'",
        ]
    );
    assert_eq!(problems[1].path, "objects[1].name");
}

#[test]
fn a_second_camera_claiming_map_thumbnail_is_an_error() {
    let parent = level(
        "p",
        "maps/base.dh-map",
        &[],
        r#"{ "objects": [ { "$type": "object", "id": "a1", "name": "overview",
              "components": [ { "$type": "dh.camera", "fov": 60, "role": "mapThumbnail", "thumbnailSize": [1024, 1024] } ] } ] }"#,
    );
    let child = level(
        "p",
        "maps/child.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "objects": [ { "$type": "object", "id": "b1", "name": "atrium",
              "components": [ { "$type": "dh.camera", "role": "mapThumbnail" } ] } ] }"#,
    );
    let problems = check(&child, std::slice::from_ref(&parent), ChainScope::Pallet);
    assert_eq!(
        messages(&problems),
        vec!["a second camera claims mapThumbnail: 'atrium' here and 'overview' in parent 'p:maps/base.dh-map'; at most one camera per map may carry it"]
    );
    assert_eq!(problems[0].path, "objects[0].components[0].role");
    // A camera with no role is fine.
    let plain = level(
        "p",
        "maps/plain.dh-map",
        &[],
        r#"{ "inherits": "base.dh-map", "objects": [ { "$type": "object", "id": "b1", "name": "atrium",
              "components": [ { "$type": "dh.camera", "role": "none" } ] } ] }"#,
    );
    assert!(check(&plain, &[parent], ChainScope::Pallet).is_empty());
}

// ---------------------------------------------------------------------------------------
// Object variants and the `resolved` member

fn resolved(levels: &[Level]) -> Folded {
    match resolve_object(levels) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn an_interactive_door_varies_the_door() {
    let door = level(
        "core",
        "objects/base/door.dh-obj",
        &[],
        r#"{ "name": "Door", "components": [
              { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 } ] }"#,
    );
    let interactive = level(
        "core",
        "objects/interactive-door.dh-obj",
        &[],
        r#"{ "name": "Interactive Door", "inherits": "/objects/base/door.dh-obj", "components": [
              { "$type": "dh.button" },
              { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
    );
    let all = [door, interactive.clone()];
    let folded = match resolve_object_chain(interactive, lookup(&all)) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{ "name": "Interactive Door", "components": [
              { "$type": "dh.mover", "motion": "rotate", "axis": [0, 1, 0], "angle": 90, "duration": 0.01 },
              { "$type": "dh.button" },
              { "$type": "dh.collider", "shapes": [ { "type": "box", "halfExtents": [0.5, 1, 0.1] } ] } ] }"#,
    );
}

#[test]
fn a_variant_replacing_the_model_keeps_every_inherited_override() {
    let base = level(
        "io.mltn.avatars.mltn-taidum",
        "mltn-taidum.dh-avatar",
        &[],
        r#"{ "name": "Taidum", "model": "models/taidum.fbx",
             "components": [ { "$type": "dh.skeleton", "rig": "rigs/taidum.dh-rig" } ],
             "children": [ { "path": "Armature/Body", "components": [
                 { "$type": "dh.renderer", "materials": { "Fur": "materials/main-fur.dh-mat" } } ] } ] }"#,
    );
    let variant = level(
        "io.mltn.avatars.lf",
        "avatars/taidum-lf.dh-avatar",
        &["io.mltn.avatars.mltn-taidum"],
        r#"{ "inherits": "io.mltn.avatars.mltn-taidum:mltn-taidum.dh-avatar", "model": "models/taidum-lf-f.fbx" }"#,
    );
    assert_json(
        &resolved(&[base, variant]).value,
        r#"{ "name": "Taidum", "model": "io.mltn.avatars.lf:avatars/models/taidum-lf-f.fbx",
             "components": [ { "$type": "dh.skeleton", "rig": "io.mltn.avatars.mltn-taidum:rigs/taidum.dh-rig" } ],
             "children": [ { "path": "Armature/Body", "components": [
                 { "$type": "dh.renderer", "materials": { "Fur": "io.mltn.avatars.mltn-taidum:materials/main-fur.dh-mat" } } ] } ] }"#,
    );
}

#[test]
fn added_records_are_included_and_every_reference_is_a_barcode() {
    let base = level(
        "io.mltn.avatars.base",
        "avatars/base.dh-avatar",
        &["io.mltn.avatars.mltn-shared"],
        r#"{ "model": "models/base.glb",
             "components": [
               { "$type": "dh.reaction", "on": "dying", "actions": [ { "$type": "dh.speakSound", "clips": ["sounds/cry.ogg"] } ] },
               { "$type": "dh.box", "size": [1, 1, 1], "material": "/materials/crate-orange.dh-mat" } ],
             "objects": [
               { "$type": "instance", "id": "glasses", "name": "Glasses",
                 "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj",
                 "position": [0, 0.15, -0.03] },
               { "$type": "instance", "id": "hat", "source": "hats/hat.dh-obj" } ] }"#,
    );
    let variant = level(
        "dev.pitr",
        "avatars/variant.dh-avatar",
        &["io.mltn.avatars.base"],
        r#"{ "inherits": "io.mltn.avatars.base:avatars/base.dh-avatar",
             "objects": [
               { "id": "glasses", "position": [0, 0.16, -0.03],
                 "children": [ { "path": "Lens", "components": [ { "$type": "dh.renderer", "materials": { "Glass": "../materials/tinted.dh-mat" } } ] } ] },
               { "id": "hat", "removed": true },
               { "$type": "instance", "id": "outfit", "source": "/clothes/outfit.dh-obj",
                 "components": [ { "$type": "dh.armatureLink", "target": "" } ] } ] }"#,
    );
    let folded = resolved(&[base, variant]);
    assert!(folded.problems.is_empty(), "{:?}", folded.problems);
    assert_json(
        &folded.value,
        r#"{ "model": "io.mltn.avatars.base:avatars/models/base.glb",
             "components": [
               { "$type": "dh.reaction", "on": "dying", "actions": [ { "$type": "dh.speakSound", "clips": ["io.mltn.avatars.base:avatars/sounds/cry.ogg"] } ] },
               { "$type": "dh.box", "size": [1, 1, 1], "material": "io.mltn.avatars.base:materials/crate-orange.dh-mat" } ],
             "objects": [
               { "$type": "instance", "id": "glasses", "name": "Glasses",
                 "source": "io.mltn.avatars.mltn-shared:accessories/round-glasses/round-glasses.dh-obj",
                 "position": [0, 0.16, -0.03],
                 "children": [ { "path": "Lens", "components": [ { "$type": "dh.renderer", "materials": { "Glass": "dev.pitr:materials/tinted.dh-mat" } } ] } ] },
               { "$type": "instance", "id": "outfit", "source": "dev.pitr:clothes/outfit.dh-obj",
                 "components": [ { "$type": "dh.armatureLink", "target": "" } ] } ] }"#,
    );
}

#[test]
fn a_circular_variant_chain_is_reported() {
    let a = level(
        "p",
        "objects/a.dh-obj",
        &[],
        r#"{ "inherits": "b.dh-obj", "name": "A" }"#,
    );
    let b = level(
        "p",
        "objects/b.dh-obj",
        &[],
        r#"{ "inherits": "a.dh-obj" }"#,
    );
    let all = [a.clone(), b];
    let folded = match resolve_object_chain(a, lookup(&all)) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        messages(&folded.problems),
        vec!["circular inherits chain: p:objects/a.dh-obj -> p:objects/b.dh-obj -> p:objects/a.dh-obj"]
    );
    // A base that is not an object.
    let v2 = level(
        "p",
        "objects/v.dh-obj",
        &[],
        r#"{ "inherits": "/maps/a.dh-map" }"#,
    );
    let map = level("p", "maps/a.dh-map", &[], r#"{ "name": "A map" }"#);
    let folded = match resolve_object_chain(v2, lookup(&[map])) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        messages(&folded.problems),
        vec!["'inherits' names 'p:maps/a.dh-map', which is not a dh.object"]
    );
}
