//! The dh.map top-level members: every complete JSON example of the spec's dh.map page for
//! them, copied verbatim, and one test per rule.
//!
//! Examples that are member fragments (`"lighting": { ... }`, `"look": "unity"`) are not
//! JSON documents on their own; each is wrapped in the braces of the map (or of the block
//! it belongs to) and otherwise kept verbatim. Examples whose record ids are elided as
//! `"…"` are valid JSON but name no real GUID: those are read in full and must give no
//! diagnostic outside `objects`, where the elided ids are (the records' own rules refuse
//! them, as they should). The Inheritance example's `/* the spawn, the volume and the
//! cameras, as before */` is a JSONC comment inside an array, so it reads as written.

use dh_content::diag::{Diagnostics, Severity, SourceFile};
use dh_content::read::{parse_source, Cx, FromJson, Mode, ToJson};
use dh_content::schema::map::sky_image::{self, SkyImageFormat};
use dh_content::schema::map::{
    read_map, validate_map, AmbientMode, AutoCollision, Backdrop, BakeSun, BuiltinLook, GiVolume,
    HableCurve, HullOptions, LightFalloff, Lighting, Lightmap, LightmapOrigin, LookRef, Map,
    Render, SkyImage, Tonemap,
};

// ---- helpers ----------------------------------------------------------------------------

fn read(text: &str) -> (Option<Map>, Diagnostics) {
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut d = Diagnostics::new();
    let m = read_map(&file, &mut d, Mode::Build);
    (m, d)
}

/// Reads and validates a whole map.
fn check(text: &str) -> (Option<Map>, Diagnostics) {
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut d = Diagnostics::new();
    let m = read_map(&file, &mut d, Mode::Build);
    if let Some(m) = &m {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        validate_map(&mut cx, m);
    }
    (m, d)
}

/// Reads a block `T` from `text` (a fragment wrapped in braces).
fn read_block<T: FromJson>(text: &str) -> (Option<T>, Diagnostics) {
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut d = Diagnostics::new();
    let v = parse_source(&file, &mut d).expect("example parses as JSONC");
    let r = {
        let mut cx = Cx::new(&file, &mut d, Mode::Build);
        T::from_json(&mut cx, &v)
    };
    (r, d)
}

fn errors(d: &Diagnostics) -> Vec<String> {
    d.items
        .iter()
        .filter(|x| x.severity == Severity::Error)
        .map(|x| x.to_string())
        .collect()
}

fn warnings(d: &Diagnostics) -> Vec<String> {
    d.items
        .iter()
        .filter(|x| x.severity == Severity::Warning)
        .map(|x| x.to_string())
        .collect()
}

fn assert_clean(d: &Diagnostics) {
    assert!(d.items.is_empty(), "expected no diagnostics, got:\n{d}");
}

/// Exactly one error, whose message contains `needle`.
fn assert_one_error(d: &Diagnostics, needle: &str) {
    let e = errors(d);
    assert_eq!(
        e.len(),
        1,
        "expected one error containing {needle:?}, got:\n{d}"
    );
    assert!(e[0].contains(needle), "expected {needle:?} in {:?}", e[0]);
}

/// No diagnostic outside `objects` (where the spec's elided `"…"` ids are).
fn assert_clean_outside_objects(d: &Diagnostics) {
    let outside: Vec<String> = d
        .items
        .iter()
        .filter(|x| !x.path.starts_with("objects"))
        .map(|x| x.to_string())
        .collect();
    assert!(outside.is_empty(), "unexpected diagnostics: {outside:#?}");
}

const LAMP_ID: &str = "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5";

// ---- the spec's examples, verbatim -------------------------------------------------------

#[test]
fn full_example_debug_map() {
    let text = r#"{
  "name": "Debug Map",
  "description": "A 32x32 m arena floor enclosed by 3 m walls, with a raised platform and a low step.",
  "materials": {
    "grid": "/materials/dev-grid.dh-mat",
    "orange": "/materials/dev-orange.dh-mat"
  },
  "objects": [
    { "$type": "object", "id": "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60", "name": "collision", "components": [
      { "$type": "dh.collider", "shapes": [
        { "type": "box", "center": [0, -0.5, 0],    "halfExtents": [16.5, 0.5, 16.5] },
        { "type": "box", "center": [0, 1.5, -16.25], "halfExtents": [16.5, 1.5, 0.25] },
        { "type": "box", "center": [5, 0.5, 5],      "halfExtents": [2, 0.5, 2] }
      ] }
    ] },
    { "$type": "instance", "id": "db71e214-0d00-4fde-b8e1-cd4ef06288bf", "name": "world", "source": "/meshes/debug-map.glb" },
    { "$type": "object", "id": "10cd5fc6-fa9f-4faf-a968-6e159ccede2e", "position": [0, 0, 0],   "rotation": [0, 0, 0],  "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "object", "id": "9f417a74-9e0c-4fbc-8c41-4668d17fd49d", "position": [10, 0, 10], "rotation": [0, 45, 0], "components": [ { "$type": "dh.spawnPoint" } ] },
    { "$type": "boxBrush", "id": "a320bba5-ffa1-40e3-a87b-c7aef971daed", "position": [8, 0.75, 0], "size": [1.5, 1.5, 1.5], "rotation": [0, 30, 0], "material": "orange" }
  ]
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let m = m.unwrap();
    assert_eq!(m.name.as_deref(), Some("Debug Map"));
    assert_eq!(
        m.description.as_deref(),
        Some("A 32x32 m arena floor enclosed by 3 m walls, with a raised platform and a low step.")
    );
    assert_eq!(
        m.material_slots(),
        vec!["grid".to_string(), "orange".to_string()]
    );
    assert_eq!(
        m.materials
            .as_ref()
            .unwrap()
            .get("orange")
            .map(String::as_str),
        Some("/materials/dev-orange.dh-mat")
    );
    assert_eq!(m.objects.len(), 5);
    assert_eq!(m.auto_collision(), AutoCollision::Mesh);
    assert!(!m.lightmap_enabled());
}

#[test]
fn inheritance_example_mltn_city() {
    let text = r#"{
  "name": "mltn city (Minecraft)",
  "inherits": "com.mojang.minecraft:maps/environment.dh-map",
  "lighting": {
    // The world's own sky (its biome, its time of day) and where its sun stands. The sun's color and
    // intensity, and anything else the template states, read through.
    "skyImage": { "path": "/textures/skies/mltn-city.hdr" },
    "sunDirection": [-0.866, -0.499, 0]
  },
  "objects": [ /* the spawn, the volume and the cameras, as before */ ]
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let m = m.unwrap();
    assert_eq!(
        m.inherits.as_deref(),
        Some("com.mojang.minecraft:maps/environment.dh-map")
    );
    let l = m.lighting.as_ref().unwrap();
    let img = l.sky_image.as_ref().unwrap();
    assert_eq!(img.path, "/textures/skies/mltn-city.hdr");
    assert_eq!(img.exposure(), 1.0);
    assert_eq!(img.rotation(), 0.0);
    assert_eq!(l.sun_direction.unwrap().0, [-0.866, -0.499, 0.0]);
    assert!(l.sun_color.is_none());
    assert!(m.objects.is_empty());
}

#[test]
fn materials_example() {
    // A member fragment, wrapped in the map's braces.
    let text = r#"{
"materials": {
  "grid": "materials/dev-grid.dh-mat",              // same-pallet material
  "sky":  "materials/sky.dh-mat",                   // an unlit, tinted sky slot
  "proto": "core:materials/dev-grid-white.dh-mat"     // a cross-pallet material (engine core)
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    assert_eq!(
        m.unwrap().material_slots(),
        vec!["grid".to_string(), "sky".to_string(), "proto".to_string()]
    );
}

#[test]
fn auto_collision_omitted_example() {
    // Record ids elided as "…": only the top level must be clean.
    let text = r#"{
  // autoCollision omitted — defaults to "mesh": the whole city is solid to its own triangles
  "objects": [
    { "$type": "instance", "id": "…", "name": "world", "source": "/meshes/city.glb" },
    { "$type": "object", "id": "…", "name": "ground", "components": [   // still installed, on top of the cooked mesh
      { "$type": "dh.collider", "shapes": [ { "type": "box", "center": [0, -0.5, 0], "halfExtents": [500, 0.5, 500] } ] }
    ] }
  ]
}"#;
    let (m, d) = check(text);
    assert_clean_outside_objects(&d);
    let m = m.unwrap();
    assert!(m.auto_collision.is_none());
    assert_eq!(m.auto_collision(), AutoCollision::Mesh);
}

#[test]
fn hull_options_example() {
    let text = r#"{
  "objects": [ { "$type": "instance", "id": "…", "name": "world", "source": "/meshes/city.glb" } ],
  "autoCollision": "hulls",
  "hullOptions": {
    "maxConvexHulls": 32,       // fewer, coarser hulls per node
    "maxVerticesPerHull": 48
  }
}"#;
    let (m, d) = check(text);
    assert_clean_outside_objects(&d);
    let m = m.unwrap();
    assert_eq!(m.auto_collision(), AutoCollision::Hulls);
    let h = m.hull_options.unwrap();
    assert_eq!(h.max_convex_hulls(), 32);
    assert_eq!(h.max_vertices_per_hull(), 48);
    assert_eq!(h.resolution(), 400_000);
    assert_eq!(h.min_volume_percent_error(), 1.0);
}

#[test]
fn sun_and_ambient_example() {
    let text = r#"{
"lighting": {
  "sunDirection": [-0.35, -0.85, -0.4],
  "sunColor": [1, 1, 1],
  "sunIntensity": 1.0,
  "ambientSky": [0.68, 0.715, 0.786],
  "ambientGround": [0.618, 0.601, 0.584],
  "ambientIntensity": 0.35,
  "halfLambert": 1.0,
  "falloff": "physical"
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let l = m.unwrap().lighting.unwrap();
    assert_eq!(l.ambient_sky.unwrap().0, [0.68, 0.715, 0.786]);
    assert_eq!(l.ambient_intensity, Some(0.35));
    assert_eq!(l.half_lambert, Some(1.0));
    assert_eq!(l.falloff(), LightFalloff::Physical);
}

#[test]
fn lightmap_example() {
    let text = r#"{
"lighting": {
  "sunDirection": [-0.45, -0.8, -0.4],
  "sunIntensity": 2.2,
  "lightmap": { "enabled": true, "texelDensity": 4, "samples": 2, "bakeSun": false }
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let m = m.unwrap();
    assert!(m.lightmap_enabled());
    let lm = m.lighting.unwrap().lightmap.unwrap();
    assert_eq!(lm.texel_density(), 4.0);
    assert_eq!(lm.samples(), 2);
    assert_eq!(lm.bake_sun(), BakeSun::Off);
    assert_eq!(lm.origin(), LightmapOrigin::Baked);
}

#[test]
fn bake_zones_example() {
    let text = r#"{
"lighting": {
  "lightmap": { "enabled": true, "texelDensity": 4, "maxSize": 4096 },
  "bakeZones": [
    { "id": "underground", "name": "Underground", "texelDensity": 6 }
  ]
},
"objects": [
  { "$type": "instance", "id": "…", "name": "world", "source": "meshes/mltnCity.glb",
    "children": [
      { "path": "__Areas/__mltn_tower/__Underground_Facility", "components": [ { "$type": "dh.bake", "zone": "underground" } ] }
    ] }
]
}"#;
    let (m, d) = check(text);
    assert_clean_outside_objects(&d);
    let m = m.unwrap();
    assert_eq!(m.bake_zone_ids(), vec!["underground"]);
    let l = m.lighting.as_ref().unwrap();
    let z = l.bake_zone("underground").unwrap();
    assert_eq!(z.name.as_deref(), Some("Underground"));
    assert_eq!(z.texel_density(l.lightmap.as_ref()), 6.0);
    assert_eq!(l.lightmap.as_ref().unwrap().max_size(), 4096);
}

#[test]
fn bake_sets_example() {
    // A `lighting` member fragment, read as the lighting block it belongs to.
    let text = r#"{
"bakeZones": [
  { "id": "room", "name": "Room",
    "sets": [
      { "name": "off", "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "enabled": false } } },
      { "name": "red",
        "lights": { "8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5": { "color": [1, 0.1, 0.05], "intensity": 25 } },
        "emission": { "yard/roomPanel": { "color": [1, 0, 0] } } }
    ] }
]
}"#;
    let (l, d) = read_block::<Lighting>(text);
    assert_clean(&d);
    let l = l.unwrap();
    let file = SourceFile::new("maps/test.dh-map", text);
    let mut d = Diagnostics::new();
    l.validate(&mut Cx::new(&file, &mut d, Mode::Build));
    assert_clean(&d);
    let sets = &l.bake_zones[0].sets;
    assert_eq!(sets[0].name, "off");
    assert_eq!(
        sets[0]
            .lights
            .as_ref()
            .unwrap()
            .get(LAMP_ID)
            .unwrap()
            .enabled,
        Some(false)
    );
    let red = sets[1].lights.as_ref().unwrap().get(LAMP_ID).unwrap();
    assert_eq!(red.color.unwrap().0, [1.0, 0.1, 0.05]);
    assert_eq!(red.intensity, Some(25.0));
    let em = sets[1]
        .emission
        .as_ref()
        .unwrap()
        .get("yard/roomPanel")
        .unwrap();
    assert_eq!(em.color.unwrap().0, [1.0, 0.0, 0.0]);
}

#[test]
fn procedural_sky_example() {
    let text = r#"{
"lighting": {
  "sky": true,
  "skyRayleigh": 1.0,
  "skyMie": 1.0,
  "skyMieAnisotropy": 0.76,
  "skyHorizonSoftness": 0.15,
  "skyIntensity": 1.0,
  "skySunDisc": 30,
  "skySunAngularDiameter": 0.53,
  "skyGround": [0.22, 0.20, 0.18],
  "skyGroundBlend": 0.01,
  "ambientMode": "auto"
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let l = m.unwrap().lighting.unwrap();
    assert!(l.sky());
    assert_eq!(l.sky_mie_anisotropy, Some(0.76));
    assert_eq!(l.sky_sun_disc, Some(30.0));
    assert_eq!(l.sky_ground.unwrap().0, [0.22, 0.20, 0.18]);
    assert_eq!(l.ambient_mode(), AmbientMode::Auto);
    // Auto with the sky on and no authored ambient colors: the sky's harmonics.
    assert_eq!(l.resolved_ambient(), AmbientMode::Sky);
}

#[test]
fn image_sky_example() {
    let text = r#"{
"lighting": {
  "skyImage": {
    "path": "textures/nightSky.exr",
    "exposure": 0.1,
    "rotation": 225.0
  },
  "ambientMode": "auto"
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let l = m.unwrap().lighting.unwrap();
    let img = l.sky_image.as_ref().unwrap();
    assert_eq!(img.path, "textures/nightSky.exr");
    assert_eq!(img.exposure(), 0.1);
    assert_eq!(img.rotation(), 225.0);
    assert!(l.has_sky());
}

#[test]
fn gi_volume_example() {
    let text = r#"{
"lighting": {
  "giVolume": {
    "enabled": true,
    "probeSpacing": 4.0,
    "padding": 2.0,
    "bounceAlbedo": 0.5,
    "samples": 256,
    "intensity": 1.0
  }
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let gi = m.unwrap().lighting.unwrap().gi_volume.unwrap();
    assert!(gi.enabled());
    assert_eq!(gi.probe_spacing(), 4.0);
    assert_eq!(gi.samples(), 256);
}

#[test]
fn look_by_slug_example() {
    let (m, d) = check("{\n\"look\": \"unity\"\n}");
    assert_clean(&d);
    assert_eq!(
        m.unwrap().look_ref(),
        Some(LookRef::Builtin(BuiltinLook::Unity))
    );
}

#[test]
fn look_asset_reference_examples() {
    for (line, expected) in [
        (
            r#""look": "looks/night.dh-look"          // a look in this pallet, read from the map's own folder"#,
            "looks/night.dh-look",
        ),
        (
            r#""look": "/looks/night.dh-look"         // the same path read from the pallet root instead"#,
            "/looks/night.dh-look",
        ),
        (
            r#""look": "dev.example.looks:looks/night.dh-look"   // one from a dependency"#,
            "dev.example.looks:looks/night.dh-look",
        ),
    ] {
        let (m, d) = check(&format!("{{\n{line}\n}}"));
        assert_clean(&d);
        assert_eq!(m.unwrap().look_ref(), Some(LookRef::Asset(expected)));
    }
}

#[test]
fn look_is_a_seed_example() {
    let text = "{\n\"look\": \"unity\",\n\"render\": { \"exposure\": 2.0 }\n}";
    let (m, d) = check(text);
    assert_clean(&d);
    let m = m.unwrap();
    assert_eq!(m.render.unwrap().exposure(), 2.0);
    assert_eq!(m.look.as_deref(), Some("unity"));
}

#[test]
fn render_example() {
    let text = r#"{
"render": {
  "exposure": 2.0,
  "tonemap": "reinhardWhite",
  "bloom": true,
  "bloomIntensity": 0.30,
  "bloomThreshold": 1.721,
  "bloomSoftKnee": 0.5,
  "bloomDiffusion": 10,
  "bloomAnamorphic": -0.24
}
}"#;
    let (m, d) = check(text);
    assert_clean(&d);
    let r = m.unwrap().render.unwrap();
    assert_eq!(r.tonemap(), Tonemap::ReinhardWhite);
    assert_eq!(r.bloom_diffusion(), 10.0);
    assert_eq!(r.bloom_anamorphic(), -0.24);
}

#[test]
fn backdrop_example() {
    // The example's folder id names a folder record of the map it came from; here it is
    // read with that folder present so the cross-record rule is satisfied.
    let fragment = r#""backdrop": {
  "anchor": [-41.783, 279.1765, 36.2712],
  "scale": 16,
  "parts": ["backdrop"],
  "folder": "b3f85aaa-4c02-0457-92cf-e60e783d2e3f",
  "fog": { "color": [0.5569, 0.6431, 0.698], "start": -101.6, "end": 8128, "maxDensity": 1 }
}"#;
    let text = format!(
        "{{\n{fragment},\n\"objects\": [ {{ \"$type\": \"folder\", \"id\": \"b3f85aaa-4c02-0457-92cf-e60e783d2e3f\", \"name\": \"skybox\" }} ]\n}}"
    );
    let (m, d) = check(&text);
    assert_clean(&d);
    let b = m.unwrap().backdrop.unwrap();
    assert_eq!(b.anchor().0, [-41.783, 279.1765, 36.2712]);
    assert_eq!(b.scale(), 16.0);
    assert_eq!(b.parts, vec!["backdrop".to_string()]);
    let fog = b.fog.unwrap();
    assert_eq!(fog.start, -101.6);
    assert_eq!(fog.end, 8128.0);
    assert_eq!(fog.max_density(), 1.0);
    // clamp((distance - start) / (end - start), 0, maxDensity): halfway is 0.5.
    assert!((fog.amount((-101.6 + 8128.0) / 2.0) - 0.5).abs() < 1e-12);
}

// ---- closed field sets -------------------------------------------------------------------

#[test]
fn unknown_top_level_member_names_block_member_and_fields() {
    let (_, d) = read("{\n  \"name\": \"x\",\n  \"skybox\": true\n}");
    assert_eq!(
        errors(&d),
        vec![
            "maps/test.dh-map:3:3: error: unknown member 'skybox' in dh.map; the fields of dh.map are: $type, name, description, inherits, look, materials, autoCollision, hullOptions, lighting, render, backdrop, objects"
        ]
    );
}

#[test]
fn every_block_is_closed_and_named() {
    for (text, path, block) in [
        (
            r#"{"hullOptions": {"fill": 1}}"#,
            "hullOptions",
            "hullOptions",
        ),
        (r#"{"lighting": {"fog": 1}}"#, "lighting", "lighting"),
        (
            r#"{"lighting": {"lightmap": {"size": 1}}}"#,
            "lighting.lightmap",
            "lighting.lightmap",
        ),
        (
            r#"{"lighting": {"giVolume": {"origin": 1}}}"#,
            "lighting.giVolume",
            "lighting.giVolume",
        ),
        (
            r#"{"lighting": {"skyImage": {"path": "a.exr", "yaw": 1}}}"#,
            "lighting.skyImage",
            "lighting.skyImage",
        ),
        (
            r#"{"lighting": {"bakeZones": [{"id": "a", "x": 1}]}}"#,
            "lighting.bakeZones[0]",
            "bake zone",
        ),
        (
            r#"{"lighting": {"bakeZones": [{"id": "a", "sets": [{"name": "b", "x": 1}]}]}}"#,
            "lighting.bakeZones[0].sets[0]",
            "bake set",
        ),
        (r#"{"render": {"gamma": 2.2}}"#, "render", "render"),
        (
            r#"{"render": {"hable": {"A": 0.15}}}"#,
            "render.hable",
            "render.hable",
        ),
        (r#"{"backdrop": {"camera": 1}}"#, "backdrop", "backdrop"),
        (
            r#"{"backdrop": {"fog": {"color": [0,0,0], "start": 0, "end": 1, "density": 1}}}"#,
            "backdrop.fog",
            "backdrop.fog",
        ),
    ] {
        let (_, d) = read(text);
        let e: Vec<_> = d.errors().collect();
        assert_eq!(e.len(), 1, "{text}: {d}");
        assert_eq!(e[0].path, path, "{text}");
        assert!(
            e[0].message.starts_with("unknown member '")
                && e[0]
                    .message
                    .contains(&format!(" in {block}; the fields of {block} are: ")),
            "{text}: {}",
            e[0].message
        );
    }
}

#[test]
fn backdrop_fog_lists_its_fields() {
    let (_, d) =
        read(r#"{"backdrop": {"fog": {"color": [0,0,0], "start": 0, "end": 1, "density": 1}}}"#);
    assert_eq!(
        d.items[0].message,
        "unknown member 'density' in backdrop.fog; the fields of backdrop.fog are: color, start, end, maxDensity"
    );
}

#[test]
fn lightmap_lists_its_fields() {
    let (_, d) = read(r#"{"lighting": {"lightmap": {"atlasSize": 4096}}}"#);
    assert_eq!(
        d.items[0].message,
        "unknown member 'atlasSize' in lighting.lightmap; the fields of lighting.lightmap are: enabled, origin, texelDensity, padding, maxSize, samples, bakeSun, sunSamples, bakeAmbient, ambientSamples, bounces, bounceSamples, emissiveSamples, aoSamples, aoRadius, denoise"
    );
}

#[test]
fn map_wide_colliders_is_an_error_naming_dh_collider() {
    let (_, d) = read("{\n  \"colliders\": []\n}");
    assert_eq!(d.items.len(), 1, "{d}");
    let e = &d.items[0];
    assert_eq!((e.line, e.col), (2, 3));
    assert!(e
        .message
        .starts_with("unknown member 'colliders' in dh.map"));
    assert!(e.message.contains("collision is the dh.collider component"));
}

#[test]
fn type_may_be_written_and_must_be_dh_map() {
    let (m, d) = check(r#"{"$type": "dh.map", "name": "a"}"#);
    assert_clean(&d);
    assert!(m.unwrap().type_id.is_some());
    let (_, d) = read(r#"{"$type": "dh.object"}"#);
    assert_one_error(
        &d,
        "'dh.object' is not a valid map $type; expected one of: dh.map",
    );
}

#[test]
fn a_top_level_that_is_not_an_object_is_reported() {
    let (m, d) = read("[1, 2]");
    assert!(m.is_none());
    assert_one_error(&d, "expected an object (dh.map), found an array");
}

#[test]
fn all_errors_of_a_map_are_reported() {
    let (_, d) = check(
        r#"{"render": {"exposure": 0, "bloomSoftKnee": 2}, "look": "moody", "hullOptions": {"resolution": 0}}"#,
    );
    assert_eq!(errors(&d).len(), 4, "{d}");
}

// ---- members and their shapes -----------------------------------------------------------

#[test]
fn auto_collision_takes_mesh_boxes_hulls_or_false() {
    for (v, expected) in [
        ("\"mesh\"", AutoCollision::Mesh),
        ("\"boxes\"", AutoCollision::Boxes),
        ("\"hulls\"", AutoCollision::Hulls),
        ("false", AutoCollision::Off),
    ] {
        let (m, d) = check(&format!("{{\"autoCollision\": {v}}}"));
        assert_clean(&d);
        assert_eq!(m.unwrap().auto_collision(), expected);
    }
    let (_, d) = read(r#"{"autoCollision": "convex"}"#);
    assert_one_error(
        &d,
        "'convex' is not a valid autoCollision; expected one of: \"mesh\", \"boxes\", \"hulls\", false",
    );
    let (_, d) = read(r#"{"autoCollision": true}"#);
    assert_one_error(&d, "'true' is not a valid autoCollision");
}

#[test]
fn material_slot_must_reference_a_dh_material() {
    // The Breaking change: the former "slot": "textures/foo.png" shorthand was removed.
    let (_, d) = check("{\n  \"materials\": {\n    \"foo\": \"textures/foo.png\"\n  }\n}");
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{d}");
    assert!(e[0].starts_with("maps/test.dh-map:3:5: error: materials: material slot 'foo' must reference a dh.material asset (.dh-mat), found 'textures/foo.png'"), "{}", e[0]);
}

#[test]
fn unknown_look_lists_the_valid_ones() {
    let (_, d) = check("{\n  \"look\": \"cinematic\"\n}");
    assert_eq!(
        errors(&d),
        vec!["maps/test.dh-map:2:11: error: unknown look 'cinematic'; the valid looks are: neutral, unity, source, filmic, or a reference to a dh.look asset (a .dh-look path or barcode)"]
    );
    // Slugs are case-sensitive tokens; "Unity" is not one.
    let (_, d) = check(r#"{"look": "Unity"}"#);
    assert_one_error(&d, "unknown look 'Unity'");
    for slug in ["neutral", "unity", "source", "filmic"] {
        let (_, d) = check(&format!("{{\"look\": \"{slug}\"}}"));
        assert_clean(&d);
    }
}

#[test]
fn built_in_looks_seed_the_response_chain() {
    let u = BuiltinLook::Unity.seed();
    assert_eq!(u.tonemap, Some(Tonemap::None));
    assert_eq!(u.half_lambert, Some(0.0));
    assert_eq!(u.falloff, Some(LightFalloff::Unity));
    assert_eq!(u.bloom_threshold, Some(1.721));
    assert_eq!(u.bloom_soft_knee, Some(0.5));
    assert_eq!(u.bloom_diffusion, Some(6.2));
    assert_eq!(u.bloom_anamorphic, Some(-0.24));
    assert_eq!(BuiltinLook::Source.seed().half_lambert, Some(1.0));
    let f = BuiltinLook::Filmic.seed();
    assert_eq!(f.tonemap, Some(Tonemap::Hable));
    assert_eq!(f.exposure, None);
    assert_eq!(BuiltinLook::Neutral.seed(), Default::default());
}

// ---- hullOptions ----------------------------------------------------------------------------

#[test]
fn hull_options_max_convex_hulls_positive() {
    let (_, d) = check(r#"{"hullOptions": {"maxConvexHulls": 0}}"#);
    assert_one_error(
        &d,
        "hullOptions.maxConvexHulls must be an integer greater than 0, found 0",
    );
}

#[test]
fn hull_options_resolution_positive() {
    let (_, d) = check(r#"{"hullOptions": {"resolution": -5}}"#);
    assert_one_error(
        &d,
        "hullOptions.resolution must be an integer greater than 0, found -5",
    );
}

#[test]
fn hull_options_max_vertices_per_hull_4_to_255() {
    for bad in [3, 256] {
        let (_, d) = check(&format!(
            "{{\"hullOptions\": {{\"maxVerticesPerHull\": {bad}}}}}"
        ));
        assert_one_error(&d, &format!("hullOptions.maxVerticesPerHull must be in 4–255 (at least 4, a hull's minimum, and at most the physics backend's 255-vertex hull limit), found {bad}"));
    }
    for good in [4, 255] {
        let (_, d) = check(&format!(
            "{{\"hullOptions\": {{\"maxVerticesPerHull\": {good}}}}}"
        ));
        assert_clean(&d);
    }
}

#[test]
fn hull_options_min_volume_percent_error_positive() {
    let (_, d) = check(r#"{"hullOptions": {"minVolumePercentError": 0}}"#);
    assert_one_error(
        &d,
        "hullOptions.minVolumePercentError must be a number greater than 0, found 0",
    );
}

#[test]
fn hull_options_ints_are_whole_numbers() {
    let (_, d) = read(r#"{"hullOptions": {"maxConvexHulls": 2.5}}"#);
    assert_one_error(&d, "expected a whole number");
}

// ---- render ---------------------------------------------------------------------------------

#[test]
fn render_exposure_must_be_positive() {
    let (_, d) = check("{\n  \"render\": { \"exposure\": 0 }\n}");
    assert_eq!(
        errors(&d),
        vec!["maps/test.dh-map:2:27: error: render: render.exposure must be positive, found 0"]
    );
}

#[test]
fn render_bloom_ranges() {
    for (field, bad, msg) in [
        (
            "bloomIntensity",
            "-0.1",
            "render.bloomIntensity must be ≥ 0, found -0.1",
        ),
        (
            "bloomThreshold",
            "-1",
            "render.bloomThreshold must be ≥ 0, found -1",
        ),
        (
            "bloomSoftKnee",
            "1.5",
            "render.bloomSoftKnee must be in 0–1, found 1.5",
        ),
        (
            "bloomDiffusion",
            "0.5",
            "render.bloomDiffusion must be in 1–10, found 0.5",
        ),
        (
            "bloomDiffusion",
            "11",
            "render.bloomDiffusion must be in 1–10, found 11",
        ),
        (
            "bloomAnamorphic",
            "-1.5",
            "render.bloomAnamorphic must be in -1–1, found -1.5",
        ),
    ] {
        let (_, d) = check(&format!("{{\"render\": {{\"{field}\": {bad}}}}}"));
        assert_one_error(&d, msg);
    }
    // The ends of each range are inside it.
    let (_, d) = check(
        r#"{"render": {"bloomIntensity": 0, "bloomThreshold": 0, "bloomSoftKnee": 1, "bloomDiffusion": 1, "bloomAnamorphic": 1}}"#,
    );
    assert_clean(&d);
}

#[test]
fn tonemap_is_case_insensitive_and_closed() {
    let (m, d) = check(r#"{"render": {"tonemap": "ACES"}}"#);
    assert_clean(&d);
    let r = m.unwrap().render.unwrap();
    assert_eq!(r.tonemap(), Tonemap::Aces);
    assert_eq!(r.to_json().to_json(), r#"{"tonemap":"aces"}"#);
    let (_, d) = read(r#"{"render": {"tonemap": "filmic"}}"#);
    assert_one_error(
        &d,
        "'filmic' is not a valid tonemap; expected one of: reinhardWhite, aces, reinhard, hable, none",
    );
}

#[test]
fn hable_defaults_to_the_published_curve() {
    let (m, d) = check(r#"{"render": {"tonemap": "hable", "hable": {"whitePoint": 8}}}"#);
    assert_clean(&d);
    let c = m.unwrap().render.unwrap().hable_curve();
    assert_eq!(c.white_point, 8.0);
    assert_eq!(c.shoulder_strength, 0.15);
    assert_eq!(c.linear_strength, 0.50);
    assert_eq!(c.linear_angle, 0.10);
    assert_eq!(c.toe_strength, 0.20);
    assert_eq!(c.toe_numerator, 0.02);
    assert_eq!(c.toe_denominator, 0.30);
    assert_eq!(HableCurve::PUBLISHED.white_point, 11.2);
    assert_eq!(Render::default().hable_curve(), HableCurve::PUBLISHED);
}

#[test]
fn hable_ranges() {
    for (field, bad, msg) in [
        (
            "shoulderStrength",
            "0",
            "render.hable.shoulderStrength must be positive, found 0",
        ),
        (
            "linearStrength",
            "-1",
            "render.hable.linearStrength must be positive, found -1",
        ),
        (
            "toeStrength",
            "0",
            "render.hable.toeStrength must be positive, found 0",
        ),
        (
            "toeDenominator",
            "0",
            "render.hable.toeDenominator must be positive, found 0",
        ),
        (
            "whitePoint",
            "0",
            "render.hable.whitePoint must be positive, found 0",
        ),
        (
            "linearAngle",
            "-0.1",
            "render.hable.linearAngle must be ≥ 0, found -0.1",
        ),
        (
            "toeNumerator",
            "-0.1",
            "render.hable.toeNumerator must be ≥ 0, found -0.1",
        ),
    ] {
        let (_, d) = check(&format!(
            "{{\"render\": {{\"hable\": {{\"{field}\": {bad}}}}}}}"
        ));
        assert_one_error(&d, msg);
    }
    // A toe that lifts black above the white point cannot be normalized.
    let (_, d) = check(r#"{"render": {"hable": {"toeNumerator": 5}}}"#);
    assert_one_error(&d, "cannot be normalized to white");
}

#[test]
fn render_defaults() {
    let r = Render::default();
    assert_eq!(r.exposure(), 1.0);
    assert_eq!(r.tonemap(), Tonemap::ReinhardWhite);
    assert!(r.bloom());
    assert_eq!(r.bloom_intensity(), 0.30);
    assert_eq!(r.bloom_threshold(), 1.721);
    assert_eq!(r.bloom_soft_knee(), 0.5);
    assert_eq!(r.bloom_diffusion(), 10.0);
    assert_eq!(r.bloom_anamorphic(), -0.24);
}

// ---- lighting: colors and the sky ----------------------------------------------------------

#[test]
fn lighting_colors_are_srgb_at_most_one() {
    let (_, d) = check("{\"lighting\": {\n  \"sunColor\": [1, 2, 1]\n}}");
    assert_eq!(
        errors(&d),
        vec!["maps/test.dh-map:2:15: error: lighting: 'sunColor' is an sRGB color in [0, 1] and a component above 1 is a compile error, found [1, 2, 1]; 1 already is white, so put the brightness in 'sunIntensity'"]
    );
    let (_, d) = check(r#"{"lighting": {"ambientSky": [1.2, 1, 1]}}"#);
    assert_one_error(
        &d,
        "'ambientSky' is an sRGB color in [0, 1] and a component above 1 is a compile error",
    );
    let (_, d) = check(r#"{"lighting": {"ambientGround": [-0.1, 0, 0]}}"#);
    assert_one_error(&d, "'ambientGround' is an sRGB color in [0, 1]");
}

#[test]
fn sky_and_sky_image_are_exclusive() {
    let (_, d) = check(r#"{"lighting": {"sky": true, "skyImage": {"path": "sky.exr"}}}"#);
    assert_one_error(&d, "skyImage and sky: true cannot both be set");
    // sky: false beside an image is redundant but accepted.
    let (_, d) = check(r#"{"lighting": {"sky": false, "skyImage": {"path": "sky.exr"}}}"#);
    assert_clean(&d);
}

#[test]
fn sky_mie_anisotropy_is_below_one() {
    let (_, d) = check(r#"{"lighting": {"skyMieAnisotropy": 1}}"#);
    assert_one_error(&d, "lighting.skyMieAnisotropy must be in [0, 1), found 1");
    let (_, d) = check(r#"{"lighting": {"skyMieAnisotropy": 0}}"#);
    assert_clean(&d);
}

#[test]
fn sky_image_path_is_required() {
    let (_, d) = read(r#"{"lighting": {"skyImage": {"exposure": 2}}}"#);
    assert_one_error(
        &d,
        "lighting.skyImage is missing its required member 'path'",
    );
}

#[test]
fn eight_bit_sky_image_path_is_rejected() {
    for (path, fmt) in [("sky.png", "PNG"), ("sky.JPG", "JPEG"), ("sky.tga", "TGA")] {
        let (_, d) = check(&format!(
            "{{\"lighting\": {{\"skyImage\": {{\"path\": \"{path}\"}}}}}}"
        ));
        assert_one_error(
            &d,
            &format!("sky image '{path}' is an 8-bit {fmt} image; .exr and .hdr are accepted and an 8-bit format is rejected, because a sky's bright values are many times white and an 8-bit encoding cannot hold them at all"),
        );
    }
    let (_, d) = check(r#"{"lighting": {"skyImage": {"path": "sky.ktx2"}}}"#);
    assert_one_error(&d, "sky image 'sky.ktx2' is not an .exr or .hdr image");
    for ok in ["sky.EXR", "/textures/skies/a.hdr", "core:skies/b.exr"] {
        let (_, d) = check(&format!(
            "{{\"lighting\": {{\"skyImage\": {{\"path\": \"{ok}\"}}}}}}"
        ));
        assert_clean(&d);
    }
}

/// A minimal EXR header: magic, version, the given attributes, and the terminating NUL.
fn exr(width: i32, height: i32, compression: u8, pixel_type: i32) -> Vec<u8> {
    let mut b = vec![0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0];
    let mut attr = |name: &str, ty: &str, value: &[u8]| {
        b.extend_from_slice(name.as_bytes());
        b.push(0);
        b.extend_from_slice(ty.as_bytes());
        b.push(0);
        b.extend_from_slice(&(value.len() as i32).to_le_bytes());
        b.extend_from_slice(value);
    };
    let mut ch = Vec::new();
    for c in ["B", "G", "R"] {
        ch.extend_from_slice(c.as_bytes());
        ch.push(0);
        ch.extend_from_slice(&pixel_type.to_le_bytes());
        ch.extend_from_slice(&[0, 0, 0, 0]);
        ch.extend_from_slice(&1i32.to_le_bytes());
        ch.extend_from_slice(&1i32.to_le_bytes());
    }
    ch.push(0);
    attr("channels", "chlist", &ch);
    attr("compression", "compression", &[compression]);
    let mut win = Vec::new();
    for v in [0, 0, width - 1, height - 1] {
        win.extend_from_slice(&v.to_le_bytes());
    }
    attr("dataWindow", "box2i", &win);
    b.push(0);
    b
}

fn png(bit_depth: u8) -> Vec<u8> {
    let mut b = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&2048u32.to_be_bytes());
    b.extend_from_slice(&1024u32.to_be_bytes());
    b.extend_from_slice(&[bit_depth, 2, 0, 0, 0]);
    b
}

fn sky(path: &str) -> SkyImage {
    let (s, d) = read_block::<SkyImage>(&format!("{{\"path\": \"{path}\"}}"));
    assert_clean(&d);
    s.unwrap()
}

fn check_sky_file(path: &str, bytes: &[u8]) -> Diagnostics {
    let file = SourceFile::new("maps/test.dh-map", "");
    let mut d = Diagnostics::new();
    sky_image::check_file(&mut Cx::new(&file, &mut d, Mode::Build), &sky(path), bytes);
    d
}

#[test]
fn sky_image_formats_by_their_bytes() {
    let i = sky_image::inspect(&exr(4096, 2048, 3, 1));
    assert_eq!(i.format, SkyImageFormat::Exr);
    assert_eq!(i.size, Some((4096, 2048)));
    assert!(!i.piz_float);
    let i = sky_image::inspect(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 512 +X 1024\n");
    assert_eq!(i.format, SkyImageFormat::RadianceHdr);
    assert_eq!(i.size, Some((1024, 512)));
    assert_eq!(
        sky_image::inspect(&png(8)).format,
        SkyImageFormat::Png { bit_depth: 8 }
    );
    assert!(sky_image::inspect(&png(8)).format.is_eight_bit());
    // A 16-bit PNG is not 8-bit, but it is no HDR format either.
    let p16 = sky_image::inspect(&png(16)).format;
    assert!(!p16.is_eight_bit() && !p16.is_hdr());
    assert_eq!(
        sky_image::inspect(&[0xff, 0xd8, 0xff, 0xe0]).format,
        SkyImageFormat::Jpeg
    );
    assert_eq!(sky_image::inspect(b"GIF89a").format, SkyImageFormat::Gif);
    assert_eq!(sky_image::inspect(b"BM....").format, SkyImageFormat::Bmp);
    assert_eq!(
        sky_image::inspect(b"RIFF\0\0\0\0WEBPVP8 ").format,
        SkyImageFormat::Webp
    );
    assert_eq!(sky_image::inspect(b"").format, SkyImageFormat::Unknown);
    // Truncated headers never panic.
    let full = exr(8, 4, 4, 2);
    for n in 0..full.len() {
        let _ = sky_image::inspect(&full[..n]);
    }
}

#[test]
fn eight_bit_sky_image_bytes_are_rejected() {
    // An 8-bit PNG renamed .hdr is still 8-bit.
    let d = check_sky_file("sky.hdr", &png(8));
    assert_one_error(&d, "sky image 'sky.hdr' is an 8-bit PNG image; .exr and .hdr are accepted and an 8-bit format is rejected");
    let d = check_sky_file("sky.exr", &png(16));
    assert_one_error(
        &d,
        "sky image 'sky.exr' holds 16-bit PNG image data, not EXR or Radiance HDR",
    );
    assert_clean(&check_sky_file("sky.exr", &exr(4096, 2048, 3, 1)));
}

#[test]
fn sky_image_not_two_to_one_is_a_warning() {
    let d = check_sky_file("sky.exr", &exr(1000, 1000, 3, 1));
    assert!(errors(&d).is_empty(), "{d}");
    let w = warnings(&d);
    assert_eq!(w.len(), 1, "{d}");
    assert!(
        w[0].contains("sky image 'sky.exr' is 1000×1000, not 2:1"),
        "{}",
        w[0]
    );
}

#[test]
fn piz_compressed_32_bit_exr_is_refused() {
    let d = check_sky_file("sky.exr", &exr(2048, 1024, 4, 2));
    assert_one_error(&d, "sky image 'sky.exr' is a 32-bit PIZ-compressed EXR, which the decoder reads only at half precision; re-save it with ZIP compression (or at half precision) and build again");
    // PIZ at half precision reads as-is.
    assert_clean(&check_sky_file("sky.exr", &exr(2048, 1024, 4, 1)));
}

#[test]
fn ambient_mode_resolution() {
    let (l, _) = read_block::<Lighting>(r#"{"sky": true, "ambientSky": [0.5, 0.5, 0.5]}"#);
    assert_eq!(l.unwrap().resolved_ambient(), AmbientMode::Hemisphere);
    let (l, _) = read_block::<Lighting>(r#"{"ambientMode": "sky"}"#);
    assert_eq!(l.unwrap().resolved_ambient(), AmbientMode::Sky);
    let (l, _) = read_block::<Lighting>(r#"{}"#);
    assert_eq!(l.unwrap().resolved_ambient(), AmbientMode::Hemisphere);
    let (_, d) = read_block::<Lighting>(r#"{"ambientMode": "probes"}"#);
    assert_one_error(
        &d,
        "'probes' is not a valid ambientMode; expected one of: auto, hemisphere, sky",
    );
}

// ---- lighting.lightmap ----------------------------------------------------------------------

#[test]
fn lightmap_defaults() {
    let lm = Lightmap::default();
    assert!(!lm.enabled());
    assert_eq!(lm.origin(), LightmapOrigin::Baked);
    assert_eq!(lm.texel_density(), 4.0);
    assert_eq!(lm.padding(), 2);
    assert_eq!(lm.max_size(), 2048);
    assert_eq!(lm.samples(), 2);
    assert_eq!(lm.bake_sun(), BakeSun::Off);
    assert_eq!(lm.sun_samples(), 16);
    assert!(!lm.bake_ambient());
    assert_eq!(lm.ambient_samples(), 32);
    assert_eq!(lm.bounces(), 3);
    assert_eq!(lm.bounce_samples(), 64);
    assert_eq!(lm.emissive_samples(), 16);
    assert_eq!(lm.ao_samples(), 16);
    assert_eq!(lm.ao_radius(), 0.5);
    assert!(lm.denoise());
}

#[test]
fn lightmap_block_absent_or_disabled_is_no_lightmap() {
    assert!(!Map::default().lightmap_enabled());
    let (m, _) = check(r#"{"lighting": {"lightmap": {"texelDensity": 8}}}"#);
    assert!(!m.unwrap().lightmap_enabled());
    let (m, _) = check(r#"{"lighting": {"lightmap": {"enabled": true}}}"#);
    assert!(m.unwrap().lightmap_enabled());
}

#[test]
fn lightmap_origin_is_baked_or_imported() {
    let (m, d) = check(r#"{"lighting": {"lightmap": {"origin": "imported"}}}"#);
    assert_clean(&d);
    assert_eq!(
        m.unwrap().lighting.unwrap().lightmap.unwrap().origin(),
        LightmapOrigin::Imported
    );
    let (_, d) = read(r#"{"lighting": {"lightmap": {"origin": "unity"}}}"#);
    assert_one_error(
        &d,
        "'unity' is not a valid lightmap origin; expected one of: baked, imported",
    );
}

#[test]
fn lightmap_texel_density_must_be_positive() {
    let (_, d) = check(r#"{"lighting": {"lightmap": {"texelDensity": 0}}}"#);
    assert_one_error(
        &d,
        "lighting.lightmap.texelDensity must be positive, found 0",
    );
}

#[test]
fn lightmap_max_size_power_of_two_at_most_8192() {
    for bad in [3000, 16384, 0] {
        let (_, d) = check(&format!(
            "{{\"lighting\": {{\"lightmap\": {{\"maxSize\": {bad}}}}}}}"
        ));
        assert_one_error(
            &d,
            &format!("lighting.lightmap.maxSize must be a power of two, at most 8192, found {bad}"),
        );
    }
    let (_, d) = check(r#"{"lighting": {"lightmap": {"maxSize": 8192}}}"#);
    assert_clean(&d);
}

#[test]
fn lightmap_padding_not_negative() {
    let (_, d) = check(r#"{"lighting": {"lightmap": {"padding": -1}}}"#);
    assert_one_error(
        &d,
        "lighting.lightmap.padding is a gutter in texels and cannot be negative, found -1",
    );
}

#[test]
fn lightmap_bounces_0_to_8() {
    let (_, d) = check(r#"{"lighting": {"lightmap": {"bounces": 9}}}"#);
    assert_one_error(&d, "lighting.lightmap.bounces must be in 0–8, found 9");
    let (_, d) = check(r#"{"lighting": {"lightmap": {"bounces": 0}}}"#);
    assert_clean(&d);
}

#[test]
fn lightmap_ao_radius_must_be_positive() {
    let (_, d) = check(r#"{"lighting": {"lightmap": {"aoRadius": 0}}}"#);
    assert_one_error(&d, "lighting.lightmap.aoRadius must be positive, found 0");
}

#[test]
fn lightmap_sample_counts_out_of_range_warn_and_clamp() {
    let (m, d) = check(
        r#"{"lighting": {"lightmap": {"samples": 5, "sunSamples": 65, "ambientSamples": 300, "bounceSamples": 2000, "emissiveSamples": 100, "aoSamples": 257}}}"#,
    );
    assert!(errors(&d).is_empty(), "{d}");
    let w = warnings(&d);
    assert_eq!(w.len(), 6, "{d}");
    assert!(w[2].contains("lighting.lightmap.ambientSamples is out of range 1–256, found 300; the bake clamps it to 256"), "{}", w[2]);
    let lm = m.unwrap().lighting.unwrap().lightmap.unwrap();
    assert_eq!(lm.samples(), 4);
    assert_eq!(lm.sun_samples(), 64);
    assert_eq!(lm.ambient_samples(), 256);
    assert_eq!(lm.bounce_samples(), 1024);
    assert_eq!(lm.emissive_samples(), 64);
    assert_eq!(lm.ao_samples(), 256);
    // aoSamples 0 bakes no occlusion and is in range.
    let (_, d) = check(r#"{"lighting": {"lightmap": {"aoSamples": 0}}}"#);
    assert_clean(&d);
}

#[test]
fn lightmap_bake_sun_false_true_or_mixed() {
    for (v, expected) in [
        ("false", BakeSun::Off),
        ("true", BakeSun::On),
        ("\"mixed\"", BakeSun::Mixed),
    ] {
        let (m, d) = check(&format!(
            "{{\"lighting\": {{\"lightmap\": {{\"bakeSun\": {v}}}}}}}"
        ));
        assert_clean(&d);
        assert_eq!(
            m.unwrap().lighting.unwrap().lightmap.unwrap().bake_sun(),
            expected
        );
    }
    let (_, d) = read(r#"{"lighting": {"lightmap": {"bakeSun": "partial"}}}"#);
    assert_one_error(
        &d,
        "'partial' is not a valid bakeSun; expected one of: false, true, \"mixed\"",
    );
}

// ---- bake zones and sets --------------------------------------------------------------------

#[test]
fn bake_zone_id_is_required() {
    let (_, d) = read(r#"{"lighting": {"bakeZones": [{"name": "Room"}]}}"#);
    assert_one_error(&d, "bake zone is missing its required member 'id'");
}

#[test]
fn bake_zone_id_is_unique() {
    let (_, d) =
        check(r#"{"lighting": {"bakeZones": [{"id": "room"}, {"id": "yard"}, {"id": "room"}]}}"#);
    let e: Vec<_> = d.errors().collect();
    assert_eq!(e.len(), 1, "{d}");
    assert_eq!(e[0].path, "lighting.bakeZones[2]");
    assert_eq!(
        e[0].message,
        "bake zone id 'room' is used twice; a zone's id must be unique in the map"
    );
}

#[test]
fn bake_zone_texel_density_must_be_positive() {
    let (_, d) = check(r#"{"lighting": {"bakeZones": [{"id": "room", "texelDensity": -2}]}}"#);
    assert_one_error(
        &d,
        "bake zone 'room': texelDensity must be positive, found -2",
    );
}

#[test]
fn bake_zone_inherits_the_lightmap_texel_density() {
    let (m, _) =
        check(r#"{"lighting": {"lightmap": {"texelDensity": 3}, "bakeZones": [{"id": "a"}]}}"#);
    let l = m.unwrap().lighting.unwrap();
    assert_eq!(l.bake_zones[0].texel_density(l.lightmap.as_ref()), 3.0);
    assert_eq!(l.bake_zones[0].texel_density(None), 4.0);
}

#[test]
fn bake_set_is_never_named_default() {
    let (_, d) =
        check(r#"{"lighting": {"bakeZones": [{"id": "room", "sets": [{"name": "default"}]}]}}"#);
    assert_one_error(&d, "bake set name 'default' is reserved");
}

#[test]
fn bake_set_name_is_unique_in_its_zone() {
    let (_, d) = check(
        r#"{"lighting": {"bakeZones": [{"id": "room", "sets": [{"name": "off"}, {"name": "off"}]}, {"id": "yard", "sets": [{"name": "off"}]}]}}"#,
    );
    assert_one_error(
        &d,
        "bake set 'off' is named twice in zone 'room'; a set's name must be unique in its zone",
    );
}

#[test]
fn bake_set_override_colors_are_srgb() {
    let (_, d) = check(
        r#"{"lighting": {"bakeZones": [{"id": "room", "sets": [{"name": "hot", "emission": {"yard/panel": {"color": [3, 0, 0]}}}]}]}}"#,
    );
    assert_one_error(
        &d,
        "'color' is an sRGB color in [0, 1] and a component above 1 is a compile error",
    );
}

fn map_with_lamp(mode: &str, key: &str) -> String {
    format!(
        r#"{{
  "lighting": {{
    "lightmap": {{ "enabled": true }},
    "bakeZones": [ {{ "id": "room", "sets": [ {{ "name": "off", "lights": {{
      "{key}": {{ "enabled": false }} }} }} ] }} ]
  }},
  "objects": [
    {{ "$type": "object", "id": "{LAMP_ID}", "name": "lamp", "position": [0, 2, 0],
      "components": [ {{ "$type": "dh.light", "mode": "{mode}" }} ] }}
  ]
}}"#
    )
}

#[test]
fn bake_set_light_key_must_name_a_light_entity() {
    let (_, d) = check(&map_with_lamp("baked", LAMP_ID));
    assert_clean(&d);
    let (_, d) = check(&map_with_lamp(
        "baked",
        "0c3a5e7d-41b2-4f6a-9d8e-2b7c1f0a6e35",
    ));
    let e: Vec<_> = d.errors().collect();
    assert_eq!(e.len(), 1, "{d}");
    assert_eq!(e[0].path, "lighting.bakeZones[0].sets[0].lights");
    assert_eq!((e[0].line, e[0].col), (5, 7));
    assert_eq!(
        e[0].message,
        "bake set 'off' of zone 'room' overrides light '0c3a5e7d-41b2-4f6a-9d8e-2b7c1f0a6e35', but no object with that id carries a dh.light"
    );
}

#[test]
fn bake_set_naming_a_realtime_light_is_a_warning() {
    let (_, d) = check(&map_with_lamp("realtime", LAMP_ID));
    assert!(errors(&d).is_empty(), "{d}");
    let w = warnings(&d);
    assert_eq!(w.len(), 1, "{d}");
    assert!(
        w[0].contains("which is a realtime light: a set changes only what is baked"),
        "{}",
        w[0]
    );
    // A mixed light is baked too.
    let (_, d) = check(&map_with_lamp("mixed", LAMP_ID));
    assert_clean(&d);
}

#[test]
fn has_bake_set_knows_the_default_set() {
    let (m, _) =
        check(r#"{"lighting": {"bakeZones": [{"id": "room", "sets": [{"name": "red"}]}]}}"#);
    let m = m.unwrap();
    assert!(m.has_bake_set("room", "default"));
    assert!(m.has_bake_set("room", "red"));
    assert!(!m.has_bake_set("room", "blue"));
    assert!(!m.has_bake_set("yard", "default"));
}

// ---- lighting.giVolume ----------------------------------------------------------------------

#[test]
fn gi_volume_defaults() {
    let g = GiVolume::default();
    assert!(g.enabled());
    assert_eq!(g.probe_spacing(), 0.5);
    assert_eq!(g.padding(), 2.0);
    assert_eq!(g.bounce_albedo(), 0.5);
    assert_eq!(g.samples(), 256);
    assert_eq!(g.intensity(), 1.0);
}

#[test]
fn gi_volume_probe_spacing_0_1_to_64() {
    for bad in ["0.05", "64.5"] {
        let (_, d) = check(&format!(
            "{{\"lighting\": {{\"giVolume\": {{\"probeSpacing\": {bad}}}}}}}"
        ));
        assert_one_error(
            &d,
            &format!("lighting.giVolume.probeSpacing must be in 0.1–64 meters, found {bad}"),
        );
    }
    let (_, d) = check(r#"{"lighting": {"giVolume": {"probeSpacing": 0.1}}}"#);
    assert_clean(&d);
}

#[test]
fn gi_volume_padding_not_negative() {
    let (_, d) = check(r#"{"lighting": {"giVolume": {"padding": -1}}}"#);
    assert_one_error(&d, "lighting.giVolume.padding must be ≥ 0, found -1");
}

#[test]
fn gi_volume_bounce_albedo_0_to_1() {
    let (_, d) = check(r#"{"lighting": {"giVolume": {"bounceAlbedo": 1.5}}}"#);
    assert_one_error(
        &d,
        "lighting.giVolume.bounceAlbedo must be in 0–1, found 1.5",
    );
}

#[test]
fn gi_volume_samples_16_to_4096() {
    for bad in [8, 5000] {
        let (_, d) = check(&format!(
            "{{\"lighting\": {{\"giVolume\": {{\"samples\": {bad}}}}}}}"
        ));
        assert_one_error(
            &d,
            &format!("lighting.giVolume.samples must be in 16–4096, found {bad}"),
        );
    }
}

#[test]
fn gi_volume_intensity_not_negative() {
    let (_, d) = check(r#"{"lighting": {"giVolume": {"intensity": -0.5}}}"#);
    assert_one_error(&d, "lighting.giVolume.intensity must be ≥ 0, found -0.5");
}

// ---- backdrop -------------------------------------------------------------------------------

#[test]
fn backdrop_defaults() {
    let b = Backdrop::default();
    assert_eq!(b.scale(), 16.0);
    assert_eq!(b.anchor().0, [0.0, 0.0, 0.0]);
}

#[test]
fn backdrop_scale_must_be_positive() {
    let (_, d) = check(r#"{"backdrop": {"scale": 0}}"#);
    assert_one_error(&d, "backdrop.scale must be positive, found 0");
}

#[test]
fn backdrop_fog_end_must_exceed_start() {
    let (_, d) =
        check(r#"{"backdrop": {"fog": {"color": [0.5, 0.5, 0.5], "start": 100, "end": 100}}}"#);
    assert_one_error(
        &d,
        "backdrop.fog.end must exceed start, found start 100 and end 100",
    );
    // start may be negative.
    let (_, d) =
        check(r#"{"backdrop": {"fog": {"color": [0.5, 0.5, 0.5], "start": -50, "end": 10}}}"#);
    assert_clean(&d);
}

#[test]
fn backdrop_fog_max_density_0_to_1() {
    let (_, d) = check(
        r#"{"backdrop": {"fog": {"color": [0, 0, 0], "start": 0, "end": 1, "maxDensity": 1.2}}}"#,
    );
    assert_one_error(&d, "backdrop.fog.maxDensity must be in 0–1, found 1.2");
}

#[test]
fn backdrop_fog_color_is_srgb() {
    let (_, d) = check(r#"{"backdrop": {"fog": {"color": [0, 1.5, 0], "start": 0, "end": 1}}}"#);
    assert_one_error(
        &d,
        "'color' is an sRGB color in [0, 1] and a component above 1 is a compile error",
    );
}

#[test]
fn backdrop_fog_needs_color_start_and_end() {
    let (_, d) = read(r#"{"backdrop": {"fog": {"maxDensity": 1}}}"#);
    let e = errors(&d);
    assert_eq!(e.len(), 3, "{d}");
    assert!(e[0].contains("backdrop.fog is missing its required member 'color'"));
}

#[test]
fn backdrop_folder_must_name_a_folder_record() {
    let (_, d) = check(r#"{"backdrop": {"folder": "b3f85aaa-4c02-0457-92cf-e60e783d2e3f"}}"#);
    assert_one_error(&d, "backdrop.folder 'b3f85aaa-4c02-0457-92cf-e60e783d2e3f' names no folder record: no record has that id");
    let (_, d) = check(
        r#"{"backdrop": {"folder": "b3f85aaa-4c02-0457-92cf-e60e783d2e3f"},
            "objects": [ { "$type": "object", "id": "b3f85aaa-4c02-0457-92cf-e60e783d2e3f", "name": "hills" } ]}"#,
    );
    assert_one_error(&d, "names no folder record: it names a object record");
}

#[test]
fn backdrop_parts_are_not_empty() {
    let (_, d) = check(r#"{"backdrop": {"parts": ["hills", ""]}}"#);
    assert_one_error(&d, "backdrop.parts holds an empty path");
}

// ---- writing back ---------------------------------------------------------------------------

#[test]
fn top_level_members_write_back() {
    let text = r#"{"name":"a","look":"filmic","materials":{"grid":"grid.dh-mat"},"autoCollision":false,"hullOptions":{"resolution":100},"lighting":{"sunColor":[1,0.9,0.8],"lightmap":{"enabled":true,"bakeSun":"mixed"},"bakeZones":[{"id":"z","sets":[{"name":"off","lights":{"8396fd1c-95f8-4e1b-9d8a-5a2dc121ecd5":{"enabled":false}}}]}],"skyImage":{"path":"s.hdr","rotation":90},"giVolume":{"samples":64}},"render":{"tonemap":"hable","hable":{"whitePoint":4}},"backdrop":{"scale":8,"fog":{"color":[0,0,0],"start":0,"end":10}}}"#;
    let (m, d) = read(text);
    assert_clean(&d);
    assert_eq!(m.unwrap().to_json().to_json(), text);
}

#[test]
fn hull_options_defaults() {
    let h = HullOptions::default();
    assert_eq!(h.max_convex_hulls(), 64);
    assert_eq!(h.resolution(), 400_000);
    assert_eq!(h.max_vertices_per_hull(), 64);
    assert_eq!(h.min_volume_percent_error(), 1.0);
}

#[test]
fn map_members_are_listed_for_the_fold() {
    assert_eq!(
        Map::MEMBERS,
        &[
            "$type",
            "name",
            "description",
            "inherits",
            "look",
            "materials",
            "autoCollision",
            "hullOptions",
            "lighting",
            "render",
            "backdrop",
            "objects"
        ]
    );
}

// ---- the closed-field-set "Wrong" example, through the map entry point ----------------------

#[test]
fn wrong_yaw_example_is_a_build_error() {
    // The record is the spec's verbatim (its id elided as "…"), placed in a map's objects.
    let wrong = r#"{ "$type": "object", "id": "…", "position": [0, 0, 0], "yaw": 90, "components": [ { "$type": "dh.spawnPoint" } ] }"#;
    let (_, d) = check(&format!("{{ \"objects\": [\n{wrong}\n] }}"));
    let yaw: Vec<_> = d
        .errors()
        .filter(|e| {
            e.message.starts_with(
                "unknown member 'yaw' in object record; the fields of object record are: ",
            )
        })
        .collect();
    assert_eq!(yaw.len(), 1, "{d}");
    assert_eq!((yaw[0].line, yaw[0].col), (2, 56));
    assert_eq!(yaw[0].path, "objects[0]");
}

#[test]
fn no_truncation_of_a_map_panics() {
    let text = r#"{"name":"a","look":"unity","materials":{"g":"g.dh-mat"},"autoCollision":"hulls","hullOptions":{"resolution":5},"lighting":{"sky":true,"skyImage":{"path":"s.png"},"lightmap":{"enabled":true,"maxSize":3},"bakeZones":[{"id":"z","sets":[{"name":"default","lights":{"x":{"color":[2,0,0]}}}]}],"giVolume":{"samples":1}},"render":{"tonemap":"HABLE","hable":{"toeDenominator":0}},"backdrop":{"folder":"b3f85aaa-4c02-0457-92cf-e60e783d2e3f","fog":{"color":[0,0,0],"start":5,"end":1}},"objects":[{"$type":"folder","id":"b3f85aaa-4c02-0457-92cf-e60e783d2e3f"}]}"#;
    for n in 0..=text.len() {
        if text.is_char_boundary(n) {
            let _ = check(&text[..n]);
        }
    }
}
