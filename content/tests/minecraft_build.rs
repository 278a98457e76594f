//! `dh build` converts Minecraft structures as it converts `.vox`: the payload ships in
//! the source's place, the definition's `data` points at it and gains its `format` and
//! `platformVersion`, bad sources fail naming the file and the place, and a world folder
//! of the pallet converts from disk the same way. Also `import_file` (`dh import minecraft`).

mod support;

use dh_content::voxel::minecraft::{import_file, StructureFormat};
use dh_content::voxel::payload::decode_all;
use support::{fixture, temp_dir, Pallet};

/// A gzip file of an uncompressed NBT root (built by hand here: type, empty-ish name,
/// payload).
fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(raw, 6));
    out.extend(crc32fast::hash(raw).to_le_bytes());
    out.extend((raw.len() as u32).to_le_bytes());
    out
}

fn named(id: u8, name: &str) -> Vec<u8> {
    let mut v = vec![id];
    v.extend((name.len() as u16).to_be_bytes());
    v.extend(name.as_bytes());
    v
}

/// A 2x1x1 Sponge v2 schematic: stone, then oak planks. `width` replaces the Width tag.
fn schem(width: Vec<u8>) -> Vec<u8> {
    let mut r = named(10, "Schematic");
    r.extend(named(3, "Version"));
    r.extend(2i32.to_be_bytes());
    r.extend(named(3, "DataVersion"));
    r.extend(3465i32.to_be_bytes());
    r.extend(width);
    r.extend(named(2, "Height"));
    r.extend(1i16.to_be_bytes());
    r.extend(named(2, "Length"));
    r.extend(1i16.to_be_bytes());
    r.extend(named(10, "Palette"));
    r.extend(named(3, "minecraft:stone"));
    r.extend(0i32.to_be_bytes());
    r.extend(named(3, "minecraft:oak_planks"));
    r.extend(1i32.to_be_bytes());
    r.push(0);
    r.extend(named(7, "BlockData"));
    r.extend(2i32.to_be_bytes());
    r.extend([0, 1]);
    r.push(0);
    gzip(&r)
}

fn width(w: i16) -> Vec<u8> {
    let mut v = named(2, "Width");
    v.extend(w.to_be_bytes());
    v
}

fn asset<'a>(out: &'a dh_content::compile::BuildOutput, path: &str) -> Option<&'a [u8]> {
    out.assets
        .iter()
        .find(|a| a.path == path)
        .map(|a| a.bytes.as_slice())
}

#[test]
fn a_schem_builds_into_its_payload() {
    let p = Pallet::with_files(
        "mc-build",
        &[
            (
                "voxels/house.dh-vox",
                b"{ \"data\": \"house.schem\" }".to_vec(),
            ),
            ("voxels/house.schem", schem(width(2))),
        ],
    );
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
    assert!(
        asset(&out, "voxels/house.schem").is_none(),
        "the source shipped"
    );
    let def = String::from_utf8(asset(&out, "voxels/house.dh-vox").unwrap().to_vec()).unwrap();
    assert!(def.contains("\"data\":\"house.dh-vox.bin\""), "{def}");
    assert!(def.contains("\"format\":\"schem\""), "{def}");
    assert!(def.contains("\"platformVersion\":\"1.20.1\""), "{def}");
    let bin = asset(&out, "voxels/house.dh-vox.bin").unwrap();
    let payload = decode_all(&[bin]).unwrap();
    assert_eq!(payload.header.format, "schem");
    assert_eq!(payload.header.platform_version, "1.20.1");
    let id = |x| {
        payload.palette[payload.cell(0, 0, [x, 0, 0]).unwrap() as usize]
            .id
            .clone()
    };
    assert_eq!(
        (id(0), id(1)),
        ("stone".to_string(), "oak_planks".to_string())
    );
    // The same sources build the same bytes.
    let again = p.build();
    assert_eq!(again.pallet, out.pallet);
}

#[test]
fn an_authored_platform_version_wins() {
    let p = Pallet::with_files(
        "mc-version",
        &[
            (
                "voxels/house.dh-vox",
                b"{ \"data\": \"house.schem\", \"platformVersion\": \"26.2\" }".to_vec(),
            ),
            ("voxels/house.schem", schem(width(2))),
        ],
    );
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let payload = decode_all(&[asset(&out, "voxels/house.dh-vox.bin").unwrap()]).unwrap();
    assert_eq!(payload.header.platform_version, "26.2");
    // The data version stays in the meta.
    assert!(payload
        .header
        .meta
        .contains(&("dataVersion".to_string(), "3465".to_string())));
}

#[test]
fn a_bad_structure_fails_naming_the_file_and_the_place() {
    let mut w = named(8, "Width");
    w.extend(4u16.to_be_bytes());
    w.extend(b"wide");
    let p = Pallet::with_files(
        "mc-bad",
        &[
            ("voxels/bad.dh-vox", b"{ \"data\": \"bad.schem\" }".to_vec()),
            ("voxels/bad.schem", schem(w)),
        ],
    );
    let out = p.build();
    let errors: Vec<String> = out.diagnostics.errors().map(|d| d.to_string()).collect();
    assert_eq!(
        errors,
        ["voxels/bad.dh-vox:1:11: error: data: 'bad.schem' does not import: voxels/bad.schem: Schematic.Width: expected Int, found String"],
    );
    assert!(out.pallet.is_none());
}

#[test]
fn a_world_folder_builds_into_its_payload() {
    // The Paper region fixture (MIT) copied into a pallet as a save: level.dat beside
    // region/r.0.0.mca.
    let (Some(level), Some(region)) = (
        fixture("minecraft/region/1.20.1-paper/level.dat"),
        fixture("minecraft/region/1.20.1-paper/r.0.0.mca"),
    ) else {
        return;
    };
    let p = Pallet::with_files(
        "mc-world",
        &[
            ("worlds/spawn.dh-vox", b"{ \"data\": \"spawn\" }".to_vec()),
            ("worlds/spawn/level.dat", level),
            ("worlds/spawn/region/r.0.0.mca", region),
        ],
    );
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    // Nothing under the save ships; the payload does, in its place.
    assert!(
        out.assets
            .iter()
            .all(|a| !a.path.starts_with("worlds/spawn/")),
        "{:?}",
        out.assets.iter().map(|a| &a.path).collect::<Vec<_>>()
    );
    let bin = asset(&out, "worlds/spawn.dh-vox.bin").expect("the payload ships");
    let def = String::from_utf8(asset(&out, "worlds/spawn.dh-vox").unwrap().to_vec()).unwrap();
    assert!(def.contains("\"data\":\"spawn.dh-vox.bin\""), "{def}");
    assert!(def.contains("\"format\":\"anvil\""), "{def}");
    assert!(def.contains("\"platformVersion\":\"1.20.1\""), "{def}");
    // The build's payload is the importer's on the same save, shard for shard.
    let save =
        dh_content::voxel::minecraft::world::save::discover(&p.dir.join("worlds/spawn")).unwrap();
    let (shards, _) = dh_content::voxel::minecraft::world::convert_world(
        &save,
        &dh_content::voxel::minecraft::world::WorldOptions::default(),
    )
    .unwrap();
    assert_eq!(bin, shards[0].as_slice());
    for (n, shard) in shards.iter().enumerate().skip(1) {
        let name = format!("worlds/spawn.dh-vox.bin.{n}");
        assert_eq!(asset(&out, &name), Some(shard.as_slice()), "{name}");
    }
}

#[test]
fn a_world_folder_that_is_no_save_fails_by_name() {
    let p = Pallet::with_files(
        "mc-world-bad",
        &[
            ("worlds/spawn.dh-vox", b"{ \"data\": \"spawn\" }".to_vec()),
            ("worlds/spawn/level.dat", gzip(&[10, 0, 0, 0])),
            ("worlds/gone.dh-vox", b"{ \"data\": \"gone\" }".to_vec()),
        ],
    );
    let out = p.check();
    let errors: Vec<String> = out.diagnostics.errors().map(|d| d.to_string()).collect();
    assert!(
        errors.iter().any(|e| e
            .starts_with("worlds/spawn.dh-vox:1:11: error: data: 'spawn' does not import: ")
            && e.contains("no Minecraft Java world here")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("worlds/gone.dh-vox:1:11: error: data: 'gone' names no folder")),
        "{errors:?}"
    );
}

/// Each structure format builds from a real fixture copied into a temporary pallet.
#[test]
fn every_format_builds_from_a_fixture() {
    let cases = [
        ("schem/smallhouse1.schem", "house.schem", "schem", 174usize),
        (
            "litematic/test01.litematic",
            "tower.litematic",
            "litematic",
            0,
        ),
        ("structure/test_structure.nbt", "frame.nbt", "nbt", 7),
        (
            "schematic/viking-house1.schematic",
            "viking.schematic",
            "schematic",
            0,
        ),
    ];
    for (rel, name, format, palette) in cases {
        let Some(bytes) = fixture(&format!("minecraft/{rel}")) else {
            continue;
        };
        let stem = name.split('.').next().unwrap();
        let def = format!("{{ \"data\": \"{name}\" }}");
        let p = Pallet::with_files(
            &format!("mc-fixture-{format}"),
            &[
                (format!("voxels/{stem}.dh-vox").as_str(), def.into_bytes()),
                (format!("voxels/{name}").as_str(), bytes),
            ],
        );
        let out = p.build();
        assert!(!out.diagnostics.has_errors(), "{rel}: {}", out.diagnostics);
        assert!(asset(&out, &format!("voxels/{name}")).is_none());
        let payload =
            decode_all(&[asset(&out, &format!("voxels/{stem}.dh-vox.bin")).unwrap()]).unwrap();
        assert_eq!(payload.header.format, format, "{rel}");
        if palette > 0 {
            assert_eq!(payload.palette.len(), palette, "{rel}");
        }
    }
}

#[test]
fn import_file_writes_the_definition_and_its_payload() {
    let dir = temp_dir("mc-import");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("cabin.schem");
    std::fs::write(&src, schem(width(2))).unwrap();
    let into = dir.join("pallet/voxels");
    let r = import_file(&src, Some(&into)).unwrap();
    assert_eq!(r.definition, into.join("cabin.dh-vox"));
    assert_eq!(r.payload, vec![into.join("cabin.dh-vox.bin")]);
    assert_eq!((r.grids, r.voxels, r.palette_entries), (1, 2, 3));
    let def = std::fs::read_to_string(&r.definition).unwrap();
    assert_eq!(
        def,
        "{\n  \"name\": \"cabin\",\n  \"platform\": \"com.mojang.minecraft\",\n  \"format\": \"schem\",\n  \"data\": \"cabin.dh-vox.bin\"\n}\n"
    );
    let bin = std::fs::read(&r.payload[0]).unwrap();
    assert_eq!(decode_all(&[&bin]).unwrap().header.format, "schem");
    // Not a structure: refused by name.
    let e = import_file(&dir.join("x.mca"), None).unwrap_err();
    assert!(e.to_string().contains("not a Minecraft structure"), "{e}");
    assert_eq!(
        StructureFormat::of_data("a/b.litematic"),
        Some(StructureFormat::Litematic)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_imported_world_builds_with_one_warning_naming_the_missing_template() {
    // `dh import minecraft-world` writes a map inheriting the Minecraft environment
    // template, which the platform pallet will make; until it exists the pallet builds
    // with one warning that names it (issue 13).
    let Some(dir) = fixture_dir("minecraft/region/1.21.1") else {
        return;
    };
    let p = Pallet::new("mc-import-build");
    p.write(
        "pallet.dh",
        b"{ \"id\": \"dev.example.mcworld\", \"name\": \"World\", \"version\": \"1.0.0\", \"dependencies\": [\"com.mojang.minecraft\"] }",
    );
    dh_content::voxel::minecraft::world::import::import_world(
        &dir,
        &p.dir,
        &dh_content::voxel::minecraft::world::WorldOptions::default(),
    )
    .unwrap();
    let out = p.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    // The map's thumbnail, drawn as a plan on a build with no engine, is a note, not a
    // warning (000 "The map's thumbnail", third rung).
    let warnings: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.severity == dh_content::diag::Severity::Warning)
        .map(|d| d.to_string())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("com.mojang.minecraft:maps/environment.dh-map"),
        "{warnings:?}"
    );
    assert!(out.pallet.is_some());
}

/// The folder `rel` under the shared fixtures, or `None` (with a line) when absent.
fn fixture_dir(rel: &str) -> Option<std::path::PathBuf> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(rel);
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipping: the fixture {} is absent", p.display());
        None
    }
}
