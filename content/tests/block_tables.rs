//! The built-in block tables (`minecraft.blocks`, `teardown.blocks`, `dh.blocks`) and look
//! resolution, checked against what the spec states block by block: what is drawn how,
//! what is solid, and which surface each is made of.

use dh_content::voxel::blocks::{
    parse_color, resolve_entry, BlockLook, BlockTable, BlockTables, DrawAs, EntryKey, LookSource,
    PlatformPallet,
};
use dh_content::voxel::import::import_vox_bytes;
use dh_content::voxel::payload::PropValue;

const MC: &str = "com.mojang.minecraft";
const TD: &str = "com.tuxedolabs.teardown";
const MV: &str = "com.ephtracy.magicavoxel";

fn tables() -> &'static BlockTables {
    BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"))
}

fn mc(id: &str) -> BlockLook {
    tables()
        .lookup("minecraft", id, Some(MC), None)
        .unwrap_or_else(|| panic!("minecraft:{id} has no row"))
}

#[test]
fn the_builtin_tables_load_once() {
    let t = tables();
    let names: Vec<(&str, &str)> = t
        .tables()
        .iter()
        .map(|t| (t.name(), t.namespace()))
        .collect();
    assert_eq!(
        names,
        [
            ("minecraft.blocks", "minecraft"),
            ("teardown.blocks", "teardown"),
            ("dh.blocks", "dh")
        ]
    );
    assert!(
        std::ptr::eq(t, tables()),
        "parsed once, the same tables after"
    );
    // "About 300 common blocks by id" (patterns cover the dyed families and shapes).
    let exact = t.tables()[0].exact_ids().count();
    assert!((280..=400).contains(&exact), "{exact} exact ids");
}

#[test]
fn minecraft_draws_as_the_spec_says() {
    for id in [
        "air",
        "cave_air",
        "void_air",
        "structure_void",
        "barrier",
        "light",
    ] {
        assert_eq!(mc(id).draw, DrawAs::Empty, "{id} is not drawn");
    }
    for id in [
        "glass",
        "ice",
        "water",
        "slime_block",
        "honey_block",
        "red_stained_glass",
    ] {
        assert_eq!(mc(id).draw, DrawAs::Translucent, "{id}");
    }
    for id in [
        "oak_leaves",
        "cherry_leaves",
        "poppy",
        "wheat",
        "short_grass",
        "fern",
        "oak_sapling",
    ] {
        assert_eq!(mc(id).draw, DrawAs::Cutout, "{id}");
    }
    for id in [
        "stone",
        "oak_planks",
        "red_wool",
        "white_concrete",
        "iron_ore",
        "lava",
    ] {
        assert_eq!(mc(id).draw, DrawAs::Opaque, "{id}");
    }
    let leaves = mc("oak_leaves");
    assert!(leaves.inner && leaves.leaves && leaves.solid);
}

#[test]
fn minecraft_collides_as_the_spec_says() {
    let solid = [
        "stone",
        "glass",
        "ice",
        "slime_block",
        "honey_block",
        "oak_leaves",
        "barrier",
        "oak_stairs",
        "red_wool",
        "iron_door",
    ];
    for id in solid {
        assert!(mc(id).solid, "{id} is solid");
    }
    let passable = [
        "air",
        "cave_air",
        "void_air",
        "structure_void",
        "light",
        "water",
        "lava",
        "bubble_column",
        "powder_snow",
        "poppy",
        "dandelion",
        "wheat",
        "carrots",
        "oak_sapling",
        "short_grass",
        "tall_grass",
        "fern",
        "vine",
        "tube_coral",
        "brain_coral_fan",
        "torch",
        "wall_torch",
        "rail",
        "powered_rail",
        "redstone_wire",
        "oak_button",
        "stone_button",
        "oak_pressure_plate",
        "heavy_weighted_pressure_plate",
        "oak_sign",
        "oak_wall_sign",
        "red_banner",
        "red_wall_banner",
    ];
    for id in passable {
        assert!(!mc(id).solid, "{id} is passable");
    }
    // An unknown block is unresolved, and solid.
    assert!(tables()
        .lookup("minecraft", "not_a_block", Some(MC), None)
        .is_none());
    let l = resolve_entry(
        tables(),
        EntryKey {
            namespace: "minecraft",
            id: "not_a_block",
            color: None,
        },
        Some(MC),
        None,
    );
    assert!(l.is_unresolved() && l.solid && l.surface == "stone");
}

#[test]
fn minecraft_surfaces_as_the_spec_says() {
    let expect = [
        ("grass_block", "grass"),
        ("mycelium", "grass"),
        ("moss_block", "grass"),
        ("hay_block", "grass"),
        ("birch_leaves", "grass"),
        ("cactus", "grass"),
        ("poppy", "grass"),
        ("dirt", "dirt"),
        ("coarse_dirt", "dirt"),
        ("podzol", "dirt"),
        ("mud", "dirt"),
        ("clay", "dirt"),
        ("soul_soil", "dirt"),
        ("oak_log", "wood"),
        ("stripped_spruce_log", "wood"),
        ("dark_oak_wood", "wood"),
        ("crimson_hyphae", "wood"),
        ("birch_planks", "wood"),
        ("oak_stairs", "wood"),
        ("spruce_fence_gate", "wood"),
        ("jungle_trapdoor", "wood"),
        ("bamboo_block", "wood"),
        ("pumpkin", "wood"),
        ("bookshelf", "wood"),
        ("chest", "wood"),
        ("torch", "wood"),
        ("sand", "sand"),
        ("red_sand", "sand"),
        ("soul_sand", "sand"),
        ("lime_concrete_powder", "sand"),
        ("gravel", "gravel"),
        ("iron_block", "metal"),
        ("gold_block", "metal"),
        ("copper_block", "metal"),
        ("iron_door", "metal"),
        ("iron_trapdoor", "metal"),
        ("rail", "metal"),
        ("lantern", "metal"),
        ("glass", "glass"),
        ("tinted_glass", "glass"),
        ("blue_stained_glass_pane", "glass"),
        ("glowstone", "glass"),
        ("sea_lantern", "glass"),
        ("ice", "ice"),
        ("packed_ice", "ice"),
        ("blue_ice", "ice"),
        ("snow", "snow"),
        ("snow_block", "snow"),
        ("powder_snow", "snow"),
        ("white_wool", "fabric"),
        ("red_carpet", "fabric"),
        ("cyan_bed", "fabric"),
        ("sponge", "fabric"),
        ("cobweb", "fabric"),
        ("tnt", "fabric"),
        ("terracotta", "ceramic"),
        ("orange_glazed_terracotta", "ceramic"),
        ("purple_shulker_box", "plastic"),
        ("honey_block", "plastic"),
        ("slime_block", "flesh"),
        ("stone", "stone"),
        ("deepslate_bricks", "stone"),
        ("diamond_ore", "stone"),
        ("obsidian", "stone"),
        ("red_concrete", "stone"),
        ("quartz_block", "stone"),
        ("bedrock", "stone"),
    ];
    for (id, surface) in expect {
        assert_eq!(mc(id).surface, surface, "{id}");
    }
}

#[test]
fn shapes_and_families_wear_their_block() {
    let color = |id: &str| mc(id).color;
    assert_eq!(color("oak_stairs"), color("oak_planks"));
    assert_eq!(color("oak_button"), color("oak_planks"));
    assert_eq!(color("stone_brick_stairs"), color("stone_bricks"));
    assert_eq!(color("quartz_slab"), color("quartz_block"));
    assert_eq!(color("cobblestone_wall"), color("cobblestone"));
    assert_eq!(color("nether_brick_fence"), color("nether_bricks"));
    assert_eq!(color("waxed_cut_copper_stairs"), color("cut_copper"));
    assert_eq!(color("waxed_oxidized_copper"), color("oxidized_copper"));
    assert_eq!(color("oak_wood"), color("oak_log"));
    assert_eq!(color("stripped_oak_log"), color("oak_planks"));
    assert_eq!(color("deepslate_diamond_ore"), color("deepslate"));
    assert_eq!(color("gold_ore"), color("stone"));
    assert_eq!(color("nether_gold_ore"), color("netherrack"));
    assert_eq!(color("potted_poppy"), color("flower_pot"));
    // The dyed families wear their dye: the set's red is a02d28.
    assert_eq!(color("red_wool"), Some([0xa0, 0x2d, 0x28, 0xff]));
    assert_eq!(color("red_concrete"), color("red_wool"));
    assert_eq!(color("red_carpet"), color("red_wool"));
    // A stained glass is its dye at alpha 90.
    assert_eq!(color("red_stained_glass"), Some([0xa0, 0x2d, 0x28, 0x90]));
    // Terracotta is the dye at shade 0.72: 0xa0 * 0.72 = 115.2 -> 115 (0x73).
    assert_eq!(color("red_terracotta").map(|c| c[0]), Some(0x73));
    // A button built on planks keeps wood, says passable itself.
    let b = mc("oak_button");
    assert_eq!((b.surface, b.solid), ("wood", false));
    // Every wildcard and shape row resolves to a color (nothing built on a colorless row).
    for id in [
        "light_blue_wool",
        "light_gray_shulker_box",
        "tube_coral_block",
        "dead_horn_coral_fan",
    ] {
        assert!(color(id).is_some(), "{id}");
    }
}

#[test]
fn teardown_materials_keep_their_paint() {
    let t = tables();
    let td = |id: &str, own: Option<[u8; 4]>| {
        t.lookup("teardown", id, Some(TD), own)
            .unwrap_or_else(|| panic!("teardown:{id}"))
    };
    // Painted: the paint. Unpainted: the table's own color.
    assert_eq!(td("wood", Some([1, 2, 3, 255])).color, Some([1, 2, 3, 255]));
    assert_eq!(td("wood", None).color, Some([0x9b, 0x70, 0x47, 0xff]));
    assert_eq!(td("glass", None).draw, DrawAs::Translucent);
    assert_eq!(
        td("glass", Some([200, 220, 230, 255])).draw,
        DrawAs::Translucent
    );
    assert_eq!(td("rock", Some([9, 9, 9, 255])).draw, DrawAs::Opaque);
    let surfaces = [
        ("glass", "glass"),
        ("grass", "grass"),
        ("dirt", "dirt"),
        ("wood", "wood"),
        ("weak_metal", "metal"),
        ("heavy_metal", "metal"),
        ("hard_metal", "metal"),
        ("plastic", "plastic"),
        ("rock", "stone"),
        ("concrete", "stone"),
        ("brick", "stone"),
        ("plaster", "stone"),
        ("hard_masonry", "stone"),
        ("reserved", "stone"),
    ];
    for (m, s) in surfaces {
        let l = td(m, None);
        assert_eq!(l.surface, s, "{m}");
        assert!(l.solid, "{m} is solid");
        // Solid even painted fully transparent.
        assert!(td(m, Some([0, 0, 0, 0])).solid, "{m} painted clear");
    }
    assert!(!td("unphysical", None).solid);
}

#[test]
fn magicavoxel_colors_are_the_data() {
    let t = tables();
    let c = |rgba: [u8; 4]| t.lookup("dh", "color", Some(MV), Some(rgba)).unwrap();
    let opaque = c([10, 20, 30, 255]);
    assert_eq!(
        (opaque.color, opaque.draw, opaque.solid, opaque.surface),
        (Some([10, 20, 30, 255]), DrawAs::Opaque, true, "stone")
    );
    let see_through = c([10, 20, 30, 128]);
    assert_eq!(
        (see_through.draw, see_through.solid),
        (DrawAs::Translucent, true)
    );
    let gone = c([10, 20, 30, 0]);
    assert_eq!((gone.draw, gone.solid), (DrawAs::Empty, false));
    for id in ["empty", "erase"] {
        let l = t.lookup("dh", id, None, None).unwrap();
        assert_eq!((l.draw, l.solid), (DrawAs::Empty, false), "dh:{id}");
    }
}

struct FakePallet;

impl PlatformPallet for FakePallet {
    fn id(&self) -> &str {
        MC
    }
    fn namespace(&self) -> &str {
        "minecraft"
    }
    fn has_block(&self, id: &str) -> bool {
        id == "oak_stairs" || id == "modded_thing"
    }
}

#[test]
fn resolution_order_is_pallet_then_table_then_unresolved() {
    let t = tables();
    let key = |id| EntryKey {
        namespace: "minecraft",
        id,
        color: None,
    };
    // The pallet draws it; solidity and surface still the table's.
    let l = resolve_entry(t, key("oak_stairs"), Some(MC), Some(&FakePallet));
    assert_eq!(
        l.source,
        LookSource::Pallet {
            block: "blocks/oak_stairs.dh-block".into()
        }
    );
    assert_eq!((l.solid, l.surface), (true, "wood"));
    // The pallet names a block the table does not: drawn by the pallet, solid stone.
    let l = resolve_entry(t, key("modded_thing"), Some(MC), Some(&FakePallet));
    assert!(matches!(l.source, LookSource::Pallet { .. }));
    assert_eq!((l.solid, l.surface), (true, "stone"));
    // Not in the pallet: the table.
    let l = resolve_entry(t, key("stone"), Some(MC), Some(&FakePallet));
    assert!(matches!(l.source, LookSource::Table { ref table, .. } if table == "minecraft.blocks"));
    // No pallet: the table; nothing: unresolved.
    let l = resolve_entry(t, key("oak_stairs"), Some(MC), None);
    assert!(matches!(l.source, LookSource::Table { .. }));
    assert!(resolve_entry(t, key("modded_thing"), Some(MC), None).is_unresolved());
    // A pallet for another platform is not read.
    let l = resolve_entry(t, key("oak_stairs"), Some(TD), Some(&FakePallet));
    assert!(!matches!(l.source, LookSource::Pallet { .. }));
    // A table bound to a platform does not answer for another; one with no platform does.
    assert!(t.lookup("minecraft", "stone", Some(TD), None).is_none());
    assert!(t.lookup("minecraft", "stone", None, None).is_some());
    assert!(t
        .lookup("dh", "color", Some(TD), Some([1, 1, 1, 255]))
        .is_some());
}

#[test]
fn a_table_in_front_wins() {
    let mut t = tables().clone();
    let front = BlockTable::parse(
        "pallet.blocks",
        "namespace minecraft\nplatform com.mojang.minecraft\nstone ff0000 surface=rubber\n",
    )
    .unwrap();
    t.push_front(front);
    let stone = t.lookup("minecraft", "stone", Some(MC), None).unwrap();
    assert_eq!(
        (stone.color, stone.surface),
        (Some([0xff, 0, 0, 0xff]), "rubber")
    );
    // Rows the front table lacks fall through to the built-in one.
    assert!(t.lookup("minecraft", "dirt", Some(MC), None).is_some());
}

#[test]
fn a_table_naming_an_unknown_surface_fails_to_load() {
    let e = BlockTable::parse(
        "typo.blocks",
        "namespace minecraft\n\nstone 808080 surface=stoen\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 3);
    assert!(
        e.to_string().starts_with(
            "typo.blocks:3: surface 'stoen' is not a surface preset; expected one of stone, grass, dirt"
        ),
        "{e}"
    );
}

#[test]
fn every_imported_fixture_entry_resolves() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    for dir in ["vox", "teardown"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            println!(
                "skipping: the fixture folder {}/{dir} is absent",
                root.display()
            );
            continue;
        };
        for f in rd.flatten().map(|e| e.path()) {
            let bytes = std::fs::read(&f).unwrap();
            let imp = import_vox_bytes(&f.display().to_string(), &bytes, None).unwrap();
            let platform = imp.payload.header.platform.clone();
            for e in &imp.payload.palette {
                let color = e
                    .properties
                    .iter()
                    .find(|p| p.key == "color")
                    .and_then(|p| match &p.value {
                        PropValue::String(s) => parse_color(s),
                        _ => None,
                    });
                let l = resolve_entry(
                    tables(),
                    EntryKey {
                        namespace: &e.ns,
                        id: &e.id,
                        color,
                    },
                    Some(&platform),
                    None,
                );
                assert!(
                    !l.is_unresolved(),
                    "{}: {}:{} is unresolved",
                    f.display(),
                    e.ns,
                    e.id
                );
                if e.ns == "teardown" && e.id != "unphysical" {
                    assert!(l.solid, "{}:{}", e.ns, e.id);
                }
            }
        }
    }
}

#[test]
fn every_exact_row_and_many_shapes_resolve_quickly() {
    let t = tables();
    let mc_table = &t.tables()[0];
    let ids: Vec<String> = mc_table.exact_ids().map(str::to_string).collect();
    let start = std::time::Instant::now();
    let mut n = 0;
    for id in &ids {
        for suffix in [
            "",
            "_stairs",
            "_slab",
            "_wall",
            "_button",
            "_no_such_suffix",
        ] {
            let _ = t.lookup("minecraft", &format!("{id}{suffix}"), Some(MC), None);
            n += 1;
        }
        assert!(t.lookup("minecraft", id, Some(MC), None).is_some(), "{id}");
    }
    let took = start.elapsed();
    // A generous bound for a debug build on a shared machine: lookups are once per
    // palette entry, and a world palette has thousands.
    assert!(took.as_secs_f64() < 20.0, "{n} lookups took {took:?}");
}

#[test]
fn blocks_corpus_never_panics() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/blocks");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "the blocks corpus has only {} files",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_blocks(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}
