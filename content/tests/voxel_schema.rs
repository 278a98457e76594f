//! dh.voxel (`.dh-vox`): the spec's complete examples parse as written, and one test per
//! rule of the definition (voxel spec, Properties, Platforms, Lighting modes).

use dh_content::diag::{Diagnostic, Diagnostics, Severity, SourceFile};
use dh_content::read::{Mode, ToJson};
use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::schema::voxel::{payload_path, read_voxel, Axes, Cell, DataKind, VoxelDef};

fn run_at(path: &str, text: &str) -> (Option<VoxelDef>, Vec<Diagnostic>) {
    let file = SourceFile::new(path, text);
    let mut diags = Diagnostics::new();
    let d = read_voxel(&file, &mut diags, Mode::Build);
    (d, diags.items)
}

fn run(text: &str) -> (Option<VoxelDef>, Vec<Diagnostic>) {
    run_at("voxels/test.dh-vox", text)
}

fn errors(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn warnings(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.message.clone())
        .collect()
}

/// Reads `text`, expecting no diagnostics at all.
fn clean(text: &str) -> VoxelDef {
    let (d, diags) = run(text);
    assert!(diags.is_empty(), "{diags:#?}");
    d.expect("a definition")
}

/// Reads `text`, expecting exactly one error; returns its message.
fn one_error(text: &str) -> String {
    let (_, d) = run(text);
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{d:#?}");
    e.into_iter().next().unwrap_or_default()
}

// ---- The spec's complete examples --------------------------------------------------------

#[test]
fn spec_example_teardown_crate() {
    let text = r#"{
  "name": "Crate",
  // A Teardown prop: palette index 57 to 72 is wood, whatever color sits there.
  "platform": "com.tuxedolabs.teardown",
  "data": "crate.vox"
}"#;
    let (d, diags) = run_at("props/crate.dh-vox", text);
    assert!(diags.is_empty(), "{diags:#?}");
    let d = d.unwrap();
    assert_eq!(d.name.as_deref(), Some("Crate"));
    assert_eq!(d.data_kind(), DataKind::Vox);
    assert_eq!(d.platform_id(), Some("com.tuxedolabs.teardown"));
    assert_eq!(d.source_format(), Some("vox"));
    assert_eq!(d.effective_voxel_size(), 0.1);
    assert_eq!(d.effective_axes(), Axes::ZUpRight);
    assert_eq!(d.effective_origin(), Cell([0, 0, 0]));
    assert_eq!(d.effective_lighting(), VoxelLighting::Dh);
    assert_eq!(
        d.to_json().to_json(),
        r#"{"name":"Crate","platform":"com.tuxedolabs.teardown","data":"crate.vox"}"#
    );
    // The build converts crate.vox into props/crate.dh-vox.bin.
    assert_eq!(payload_path("props/crate.dh-vox"), "props/crate.dh-vox.bin");
}

#[test]
fn spec_example_minecraft_world() {
    let text = r#"{
  "name": "Spawn",
  // A world folder in this pallet. "spawn/dimensions/minecraft/the_nether" would import the nether alone.
  "data": "spawn"
}"#;
    let (d, diags) = run_at("maps/spawn.dh-vox", text);
    assert!(diags.is_empty(), "{diags:#?}");
    let d = d.unwrap();
    assert_eq!(d.data_kind(), DataKind::World);
    assert_eq!(d.source_format(), Some("anvil"));
    // A Minecraft source implies com.mojang.minecraft, with its defaults.
    assert_eq!(d.platform_id(), Some("com.mojang.minecraft"));
    assert_eq!(d.effective_voxel_size(), 1.0);
    assert_eq!(d.effective_axes(), Axes::YUpRight);
    assert_eq!(d.effective_lighting(), VoxelLighting::Hybrid);
    let refs = d.references();
    assert_eq!(refs.len(), 1);
    assert_eq!((refs[0].0, refs[0].1), ("data", "spawn"));
    let file = SourceFile::new("maps/spawn.dh-vox", text);
    assert_eq!(file.line_col(refs[0].2.start), (4, 11));
}

#[test]
fn nether_folder_is_a_world_too() {
    let d = clean(r#"{ "data": "spawn/dimensions/minecraft/the_nether" }"#);
    assert_eq!(d.data_kind(), DataKind::World);
}

// ---- Closed field set, $type, inherits ---------------------------------------------------

#[test]
fn unknown_field_lists_the_valid_ones() {
    let (_, d) = run("{\n  \"data\": \"a.dh-vox.bin\",\n  \"scale\": 2\n}");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].to_string(),
        "voxels/test.dh-vox:3:3: error: unknown member 'scale' in dh.voxel; the fields of dh.voxel are: name, description, platform, format, platformVersion, voxelSize, axes, origin, data, namespaces, lighting"
    );
}

#[test]
fn type_is_optional_and_must_be_dh_voxel() {
    clean(r#"{ "$type": "dh.voxel", "data": "a.dh-vox.bin" }"#);
    assert_eq!(
        one_error(r#"{ "$type": "dh.object", "data": "a.dh-vox.bin" }"#),
        "'$type' must be \"dh.voxel\" in this file (the type follows the file's extension)"
    );
}

#[test]
fn a_voxel_does_not_take_inherits() {
    let e = one_error(r#"{ "inherits": "base.dh-vox", "data": "a.dh-vox.bin" }"#);
    assert!(
        e.starts_with("unknown member 'inherits' in dh.voxel; the fields of dh.voxel are: name,"),
        "{e}"
    );
    assert!(e.ends_with("; a dh.voxel does not take inherits"), "{e}");
}

#[test]
fn every_field_reads_and_writes_back() {
    let text = r#"{"name":"Village","description":"A village.","platform":"com.mojang.minecraft","format":"schem","platformVersion":"26.2","voxelSize":1,"axes":"y-up-right","origin":[-3,0,7],"data":"village.schem","namespaces":{"minecraft":"com.mojang.minecraft"},"lighting":"dh"}"#;
    let d = clean(text);
    assert_eq!(d.origin, Some(Cell([-3, 0, 7])));
    assert_eq!(d.effective_lighting(), VoxelLighting::Dh);
    assert_eq!(d.to_json().to_json(), text);
}

#[test]
fn all_errors_are_reported() {
    let (_, d) = run(r#"{ "voxelSize": 0, "axes": "up", "lighting": "bright", "color": 1 }"#);
    assert_eq!(errors(&d).len(), 5, "{d:#?}");
}

// ---- data ----------------------------------------------------------------------------------

#[test]
fn data_is_required() {
    assert_eq!(
        one_error(r#"{ "name": "x" }"#),
        "dh.voxel is missing its required member 'data'"
    );
}

#[test]
fn data_must_not_be_empty() {
    assert_eq!(
        one_error(r#"{ "data": "" }"#),
        "'data' must name a .dh-vox.bin or a voxel source in this pallet, found an empty string"
    );
}

#[test]
fn data_is_in_this_pallet() {
    clean(r#"{ "data": "/voxels/castle.dh-vox.bin" }"#);
    clean(r#"{ "data": "../shared/castle.dh-vox.bin" }"#);
    assert_eq!(
        one_error(r#"{ "data": "core:voxels/castle.dh-vox.bin" }"#),
        "'data' must name a file in this pallet (relative to this file, or '/' from the pallet root); 'core:voxels/castle.dh-vox.bin' names pallet 'core'"
    );
    assert!(
        one_error(r#"{ "data": "com.example.other:castle.vox", "platform": "teardown" }"#)
            .ends_with("names pallet 'com.example.other'")
    );
}

#[test]
fn data_kinds_by_extension() {
    for (data, kind, format) in [
        ("castle.dh-vox.bin", DataKind::Payload, None),
        ("castle.schem", DataKind::Schem, Some("schem")),
        ("castle.litematic", DataKind::Litematic, Some("litematic")),
        ("shipwreck.nbt", DataKind::Nbt, Some("nbt")),
        ("old.SCHEMATIC", DataKind::Schematic, Some("schematic")),
        ("saves/world", DataKind::World, Some("anvil")),
    ] {
        let d = clean(&format!(r#"{{ "data": "{data}" }}"#));
        assert_eq!(d.data_kind(), kind, "{data}");
        assert_eq!(d.source_format(), format, "{data}");
    }
}

// ---- platform ------------------------------------------------------------------------------

#[test]
fn platform_is_required_for_a_vox() {
    let (_, d) = run("{\n  \"data\": \"model.vox\"\n}");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        d[0].to_string(),
        "voxels/test.dh-vox:2:11: error: 'platform' is required for a .vox: name MagicaVoxel (com.ephtracy.magicavoxel) or Teardown (com.tuxedolabs.teardown), which read its palette differently"
    );
}

#[test]
fn platform_alias_is_stored_as_the_id() {
    for (alias, id) in [
        ("minecraft", "com.mojang.minecraft"),
        ("teardown", "com.tuxedolabs.teardown"),
        ("magicavoxel", "com.ephtracy.magicavoxel"),
    ] {
        let d = clean(&format!(
            r#"{{ "platform": "{alias}", "data": "a.dh-vox.bin" }}"#
        ));
        let p = d.platform.clone().unwrap();
        assert_eq!((p.id.as_str(), p.written.as_str()), (id, alias));
        assert_eq!(
            d.to_json().to_json(),
            format!(r#"{{"platform":"{id}","data":"a.dh-vox.bin"}}"#)
        );
    }
}

#[test]
fn unknown_platform_still_builds() {
    // The file always wins: an unknown platform, a neutral tool, builds with DH's defaults.
    let d = clean(r#"{ "platform": "org.example.voxeltool", "data": "model.vox" }"#);
    assert_eq!(d.platform_id(), Some("org.example.voxeltool"));
    assert_eq!(d.effective_lighting(), VoxelLighting::Dh);
    assert_eq!(d.effective_voxel_size(), 1.0);
}

#[test]
fn platform_must_be_an_id_or_alias() {
    assert_eq!(
        one_error(r#"{ "platform": "Minecraft", "data": "a.dh-vox.bin" }"#),
        "'Minecraft' is not a platform; expected a publisher-first ID of lowercase dot-separated segments, such as com.mojang.minecraft, or a built-in alias: magicavoxel, teardown, minecraft"
    );
    assert!(
        one_error(r#"{ "platform": "core", "data": "a.dh-vox.bin" }"#)
            .starts_with("'core' is not a platform")
    );
}

#[test]
fn minecraft_source_refuses_another_platform() {
    assert_eq!(
        one_error(r#"{ "platform": "teardown", "data": "castle.schem" }"#),
        "'data' names a .schem, a Minecraft source, which implies platform com.mojang.minecraft; 'platform' names com.tuxedolabs.teardown"
    );
    assert!(
        one_error(r#"{ "platform": "com.example.mod", "data": "saves/world" }"#)
            .starts_with("'data' names a Java world folder, a Minecraft source")
    );
    clean(r#"{ "platform": "minecraft", "data": "castle.litematic" }"#);
    clean(r#"{ "platform": "com.mojang.minecraft", "data": "castle.nbt" }"#);
}

#[test]
fn authored_values_that_disagree_with_the_platform_warn_and_win() {
    let (d, diags) = run(
        r#"{ "platform": "teardown", "voxelSize": 0.05, "axes": "y-up-right", "data": "crate.vox" }"#,
    );
    assert!(errors(&diags).is_empty(), "{diags:#?}");
    assert_eq!(
        warnings(&diags),
        vec![
            "'voxelSize' 0.05 disagrees with Teardown's 0.1 (com.tuxedolabs.teardown); the authored value is kept",
            "'axes' y-up-right disagrees with Teardown's z-up-right (com.tuxedolabs.teardown); the authored value is kept",
        ]
    );
    let d = d.unwrap();
    assert_eq!(d.effective_voxel_size(), 0.05);
    assert_eq!(d.effective_axes(), Axes::YUpRight);
    // Agreeing with the table says nothing.
    clean(
        r#"{ "platform": "teardown", "voxelSize": 0.1, "axes": "z-up-right", "data": "crate.vox" }"#,
    );
}

// ---- format ---------------------------------------------------------------------------------

#[test]
fn format_must_be_the_sources_own() {
    assert_eq!(
        one_error(r#"{ "format": "vox", "data": "castle.schem" }"#),
        "'format' is \"vox\", but 'data' names a .schem, whose format is \"schem\""
    );
    assert_eq!(
        one_error(r#"{ "format": "schem", "data": "saves/world" }"#),
        "'format' is \"schem\", but 'data' names a Java world folder, whose format is \"anvil\""
    );
    clean(r#"{ "format": "anvil", "data": "saves/world" }"#);
    // A payload's header carries the format it arrived in.
    clean(r#"{ "format": "litematic", "data": "castle.dh-vox.bin" }"#);
}

// ---- voxelSize, axes, origin --------------------------------------------------------------

#[test]
fn voxel_size_must_be_positive() {
    assert_eq!(
        one_error(r#"{ "voxelSize": 0, "data": "a.dh-vox.bin" }"#),
        "'voxelSize' must be > 0, found 0"
    );
    assert_eq!(
        one_error(r#"{ "voxelSize": -0.5, "data": "a.dh-vox.bin" }"#),
        "'voxelSize' must be > 0, found -0.5"
    );
}

#[test]
fn axes_are_the_six_tokens() {
    for a in [
        "x-up-right",
        "x-up-left",
        "y-up-right",
        "y-up-left",
        "z-up-right",
        "z-up-left",
    ] {
        clean(&format!(r#"{{ "axes": "{a}", "data": "a.dh-vox.bin" }}"#));
    }
    assert_eq!(
        one_error(r#"{ "axes": "z-up", "data": "a.dh-vox.bin" }"#),
        "'z-up' is not a valid axes value; expected one of: x-up-right, x-up-left, y-up-right, y-up-left, z-up-right, z-up-left"
    );
}

#[test]
fn origin_is_three_whole_numbers() {
    assert_eq!(
        one_error(r#"{ "origin": [0, 1.5, 0], "data": "a.dh-vox.bin" }"#),
        "expected exactly three whole numbers from -2147483648 to 2147483647, found 1.5"
    );
    assert_eq!(
        one_error(r#"{ "origin": [0, 1], "data": "a.dh-vox.bin" }"#),
        "expected exactly three whole numbers, found 2 items"
    );
    assert_eq!(
        one_error(r#"{ "origin": [0, "1", 0], "data": "a.dh-vox.bin" }"#),
        "expected exactly three whole numbers, found a string"
    );
}

// ---- namespaces -----------------------------------------------------------------------------

#[test]
fn namespaces_map_to_pallet_ids() {
    clean(
        r#"{ "namespaces": { "minecraft": "com.mojang.minecraft", "create": "com.simibubi.create" }, "data": "a.dh-vox.bin" }"#,
    );
    let (_, d) = run(r#"{ "namespaces": { "create": "Create Mod" }, "data": "a.dh-vox.bin" }"#);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].path, "namespaces.create");
    assert_eq!(
        d[0].message,
        "namespace 'create' maps to 'Create Mod', which is not a pallet id; expected reverse-DNS segments of lowercase letters, digits and '-', e.g. com.mojang.minecraft"
    );
    assert_eq!(
        one_error(r#"{ "namespaces": { "": "com.example.a" }, "data": "a.dh-vox.bin" }"#),
        "a block namespace must not be empty"
    );
    assert_eq!(
        one_error(r#"{ "namespaces": { "create": 3 }, "data": "a.dh-vox.bin" }"#),
        "expected a string, found a number"
    );
}

// ---- lighting -------------------------------------------------------------------------------

#[test]
fn unknown_lighting_mode_names_the_three() {
    assert_eq!(
        one_error(r#"{ "lighting": "baked", "data": "a.dh-vox.bin" }"#),
        "'baked' is not a valid voxel lighting mode; expected one of: dh, hybrid, minecraft"
    );
}

#[test]
fn lighting_defaults_to_the_platforms() {
    assert_eq!(
        clean(r#"{ "data": "castle.schem" }"#).effective_lighting(),
        VoxelLighting::Hybrid
    );
    assert_eq!(
        clean(r#"{ "platform": "magicavoxel", "data": "m.vox" }"#).effective_lighting(),
        VoxelLighting::Dh
    );
    assert_eq!(
        clean(r#"{ "data": "m.dh-vox.bin" }"#).effective_lighting(),
        VoxelLighting::Dh
    );
    // The definition's own lighting wins over the platform's.
    assert_eq!(
        clean(r#"{ "lighting": "dh", "data": "saves/world" }"#).effective_lighting(),
        VoxelLighting::Dh
    );
    assert_eq!(
        clean(r#"{ "lighting": "hybrid", "platform": "teardown", "data": "m.vox" }"#)
            .effective_lighting(),
        VoxelLighting::Hybrid
    );
}

// ---- Reading robustness --------------------------------------------------------------------

#[test]
fn not_an_object() {
    assert_eq!(
        one_error("[1, 2]"),
        "expected an object (dh.voxel), found an array"
    );
}

#[test]
fn wrong_types_name_what_was_expected() {
    assert_eq!(
        one_error(r#"{ "voxelSize": "big", "data": "a.dh-vox.bin" }"#),
        "expected a number, found a string"
    );
    assert_eq!(
        one_error(r#"{ "platform": 3, "data": "a.dh-vox.bin" }"#),
        "expected a string (a platform ID or a built-in alias), found a number"
    );
}
