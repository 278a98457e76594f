//! `dh import minecraft <client.jar | assets folder>`: the platform pallet
//! `com.mojang.minecraft` from the project's own test pack (`mc_platform_pack`), zipped
//! into a fake `client.jar`. Expected values are worked out by hand from the pack's JSON
//! (content/tests/data/mcpack) and Minecraft's default-UV rule, never read back from the
//! importer's own tables.

mod mc_platform_pack;

use std::path::Path;

use dh_content::compile::{compile, CompileOptions};
use dh_content::schema::block::{parse_block_def, BlockDef, Collision, Condition, Direction};
use dh_content::voxel::minecraft::platform::{import_platform, PlatformOptions, PlatformReport};
use mc_platform_pack as pack;
use sha2::{Digest, Sha256};

fn import(jar: &Path, into: &Path) -> PlatformReport {
    import_platform(jar, into, &PlatformOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn block(into: &Path, id: &str) -> BlockDef {
    let path = into.join(format!("blocks/{id}.dh-block"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_block_def(&format!("blocks/{id}.dh-block"), &text).unwrap_or_else(|d| panic!("{d}"))
}

fn props<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        pairs
            .iter()
            .find(|(p, _)| *p == k)
            .map(|(_, v)| v.to_string())
    }
}

fn pairs(c: &Condition) -> Vec<(String, String)> {
    match c {
        Condition::All(p) => p.clone(),
        other => panic!("expected property pairs, found {other:?}"),
    }
}

/// A temporary folder removed when the test ends.
struct Cleanup(std::path::PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn imported(tag: &str) -> (Cleanup, std::path::PathBuf, PlatformReport) {
    let dir = pack::temp(tag);
    let jar = pack::client_jar(&dir, &[]);
    let into = dir.join("com.mojang.minecraft");
    let r = import(&jar, &into);
    (Cleanup(dir), into, r)
}

#[test]
fn the_pack_imports_every_drawn_block_and_leaves_the_chest_to_the_colour_table() {
    let (_dir, into, r) = imported("report");
    // 13 blockstates; the chest's model has no elements (game code draws it).
    assert_eq!(r.blockstates, 13);
    assert_eq!(r.blocks, 12);
    assert_eq!(r.skipped, vec!["minecraft:chest".to_string()]);
    // 13 face textures, the four fluid textures, two colormaps.
    assert_eq!(r.textures, 19);
    assert_eq!(r.version.as_deref(), Some("26.1"));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(r.removed.is_empty());
    let pallet = std::fs::read_to_string(into.join("pallet.dh")).unwrap_or_default();
    assert!(
        pallet.contains("\"id\": \"com.mojang.minecraft\""),
        "{pallet}"
    );
    assert!(pallet.contains("\"version\": \"26.1.0\""), "{pallet}");
    assert!(!into.join("blocks/chest.dh-block").exists());
    // The class file and the models are not copied; the textures are, with .mcmeta.
    assert!(!into.join("net").exists());
    assert!(!into.join("models").exists());
    let meta = std::fs::read(into.join("textures/block/oak_leaves.png.mcmeta")).unwrap_or_default();
    let committed = std::fs::read(
        pack::pack_dir().join("assets/minecraft/textures/block/oak_leaves.png.mcmeta"),
    )
    .unwrap_or_default();
    assert!(
        !meta.is_empty() && meta == committed,
        "the leaves' .mcmeta is copied as it is"
    );
    assert!(into.join("textures/colormap/grass.png").is_file());
    assert!(into.join("textures/colormap/foliage.png").is_file());
    assert!(into.join("textures/block/lava_still.png.mcmeta").is_file());
}

#[test]
fn stairs_have_a_rule_per_facing_half_and_shape_with_their_turns() {
    let (_dir, into, _) = imported("stairs");
    let b = block(&into, "oak_stairs");
    assert_eq!(b.id, "minecraft:oak_stairs");
    assert_eq!(b.multipart, None);
    assert_eq!(b.rules.len(), 40, "4 facings x 2 halves x 5 shapes");
    let mut seen = std::collections::BTreeSet::new();
    for r in &b.rules {
        let p = pairs(r.when.as_ref().unwrap_or(&Condition::Invalid));
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["facing", "half", "shape"]);
        seen.insert((p[0].1.clone(), p[1].1.clone(), p[2].1.clone()));
        assert_eq!(r.apply.len(), 1);
    }
    assert_eq!(seen.len(), 40);
    // The pack's turns: y from the facing (east 0, south 90, west 180, north 270), a
    // bottom left corner 270 more, a top half x 180 and its right corner 90 more.
    let pick = |f: &str, h: &str, s: &str| {
        let st = [("facing", f), ("half", h), ("shape", s)];
        let m = b.matching(&props(&st));
        assert_eq!(m.len(), 1, "{f} {h} {s}");
        let c = &m[0].apply[0];
        (c.model.clone(), c.x, c.y, c.uvlock)
    };
    assert_eq!(
        pick("east", "bottom", "straight"),
        ("minecraft:block/oak_stairs".into(), None, None, None)
    );
    assert_eq!(
        pick("south", "bottom", "straight"),
        (
            "minecraft:block/oak_stairs".into(),
            None,
            Some(90),
            Some(true)
        )
    );
    assert_eq!(
        pick("west", "bottom", "inner_left"),
        (
            "minecraft:block/oak_inner_stairs".into(),
            None,
            Some(90),
            Some(true)
        )
    );
    assert_eq!(
        pick("north", "top", "outer_right"),
        (
            "minecraft:block/oak_outer_stairs".into(),
            Some(180),
            None,
            Some(true)
        )
    );
    assert_eq!(
        pick("north", "top", "straight"),
        (
            "minecraft:block/oak_stairs".into(),
            Some(180),
            Some(270),
            Some(true)
        )
    );
    // The straight model, folded: two elements, default UVs from their extents.
    let models = b.models.as_ref().expect("models");
    assert_eq!(models.len(), 3);
    let m = models
        .get("minecraft:block/oak_stairs")
        .expect("the straight model");
    assert_eq!(m.elements.len(), 2);
    let low = &m.elements[0];
    assert_eq!((low.from.0, low.to.0), ([0.0; 3], [16.0, 8.0, 16.0]));
    let faces = low.faces.as_ref().expect("faces");
    let down = faces.down.as_ref().expect("down");
    assert_eq!(down.uv.0, [0.0, 0.0, 16.0, 16.0]);
    assert_eq!(down.texture, "/textures/block/oak_planks.png");
    assert_eq!(down.cull_face, Some(Direction::Down));
    // north: [16 - to.x, 16 - to.y, 16 - from.x, 16 - from.y].
    assert_eq!(
        faces.north.as_ref().expect("north").uv.0,
        [0.0, 8.0, 16.0, 16.0]
    );
    assert_eq!(
        faces.up.as_ref().expect("up").cull_face,
        None,
        "the low half's top is open"
    );
    let step = &m.elements[1];
    let f = step.faces.as_ref().expect("faces");
    // up: [from.x, from.z, to.x, to.z]; east: [16 - to.z, 16 - to.y, 16 - from.z, 16 - from.y];
    // west: [from.z, 16 - to.y, to.z, 16 - from.y].
    assert_eq!(f.up.as_ref().expect("up").uv.0, [8.0, 0.0, 16.0, 16.0]);
    assert_eq!(f.east.as_ref().expect("east").uv.0, [0.0, 0.0, 16.0, 8.0]);
    assert_eq!(f.west.as_ref().expect("west").uv.0, [0.0, 0.0, 16.0, 8.0]);
    assert!(f.down.is_none());
    assert_eq!(b.collision, Some(Collision::Model));
    assert_eq!(b.collision_height, None);
    assert_eq!(b.light_shape, Some(true));
    assert_eq!(
        b.surface.as_deref(),
        Some("wood"),
        "stairs wear their planks' row"
    );
}

#[test]
fn the_fence_is_multipart_and_every_matching_part_applies() {
    let (_dir, into, _) = imported("fence");
    let b = block(&into, "oak_fence");
    assert_eq!(b.multipart, Some(true));
    assert_eq!(b.rules.len(), 6);
    assert!(b.rules[0].when.is_none(), "the post always stands");
    assert_eq!(
        pairs(b.rules[2].when.as_ref().expect("when")),
        vec![("east".to_string(), "true".to_string())]
    );
    let side = &b.rules[2].apply[0];
    assert_eq!(
        (side.model.as_str(), side.y, side.uvlock),
        ("minecraft:block/oak_fence_side", Some(90), Some(true))
    );
    let count = |st: &[(&str, &str)]| b.matching(&props(st)).len();
    // north only: the post and the north arm; the OR fails (north is true, south false).
    assert_eq!(
        count(&[
            ("north", "true"),
            ("east", "false"),
            ("south", "false"),
            ("west", "false")
        ]),
        2
    );
    // nothing connected: the post, and the OR's first branch (north and east false).
    assert_eq!(
        count(&[
            ("north", "false"),
            ("east", "false"),
            ("south", "false"),
            ("west", "false")
        ]),
        2
    );
    // north, east and south: the post, three arms, and the OR's AND (south true, west
    // false is one of true|false).
    assert_eq!(
        count(&[
            ("north", "true"),
            ("east", "true"),
            ("south", "true"),
            ("west", "false")
        ]),
        5
    );
    match b.rules[5].when.as_ref().expect("when") {
        Condition::Or(branches) => {
            assert_eq!(branches.len(), 2);
            assert!(matches!(&branches[1], Condition::And(a) if a.len() == 2));
        }
        other => panic!("expected OR, found {other:?}"),
    }
    let models = b.models.as_ref().expect("models");
    let arm = &models
        .get("minecraft:block/oak_fence_side")
        .expect("side")
        .elements[0];
    let north = arm
        .faces
        .as_ref()
        .and_then(|f| f.north.as_ref())
        .expect("north");
    assert_eq!(north.uv.0, [7.0, 1.0, 9.0, 4.0]);
    assert_eq!(north.cull_face, Some(Direction::North));
    assert_eq!(b.collision, Some(Collision::Model));
    assert_eq!(
        b.collision_height,
        Some(24.0),
        "a fence stands a block and a half"
    );
}

#[test]
fn the_grass_block_has_four_weighted_turns_and_a_tinted_top() {
    let (_dir, into, _) = imported("grass");
    let b = block(&into, "grass_block");
    assert_eq!(b.rules.len(), 2);
    let r = &b.rules[0];
    assert_eq!(
        pairs(r.when.as_ref().expect("when")),
        vec![("snowy".to_string(), "false".to_string())]
    );
    let turns: Vec<(Option<i32>, Option<u32>)> = r.apply.iter().map(|c| (c.y, c.weight)).collect();
    assert_eq!(
        turns,
        vec![
            (None, None),
            (Some(90), None),
            (Some(180), Some(2)),
            (Some(270), None)
        ]
    );
    assert!(r
        .apply
        .iter()
        .all(|c| c.model == "minecraft:block/grass_block"));
    assert_eq!(b.tint.as_deref(), Some("grass"));
    let m = b
        .models
        .as_ref()
        .and_then(|m| m.get("minecraft:block/grass_block"))
        .expect("model");
    let f = m.elements[0].faces.as_ref().expect("faces");
    let up = f.up.as_ref().expect("up");
    assert_eq!(
        (up.texture.as_str(), up.tint_index),
        ("/textures/block/grass_block_top.png", Some(0))
    );
    assert_eq!(f.north.as_ref().expect("north").tint_index, None);
    assert_eq!(
        f.down.as_ref().expect("down").texture,
        "/textures/block/dirt.png"
    );
    assert_eq!(b.surface.as_deref(), Some("grass"));
    assert_eq!(b.collision, Some(Collision::Cube));
}

#[test]
fn the_furnace_folds_its_parent_chain_and_glows_when_lit() {
    let (_dir, into, _) = imported("furnace");
    let b = block(&into, "furnace");
    assert_eq!(b.rules.len(), 8);
    let lit = [("facing", "east"), ("lit", "true")];
    let m = b.matching(&props(&lit));
    assert_eq!(
        (m[0].apply[0].model.as_str(), m[0].apply[0].y),
        ("minecraft:block/furnace_on", Some(90))
    );
    // furnace -> orientable -> cube: the cube's #north is orientable's #front, which is
    // the furnace's block/furnace_front; #down is #top; #east is #side.
    let models = b.models.as_ref().expect("models");
    let tex = |model: &str, d: Direction| {
        let f = models.get(model).expect("model").elements[0]
            .faces
            .as_ref()
            .expect("faces");
        f.iter()
            .find(|(dir, _)| *dir == d)
            .map(|(_, f)| f.texture.clone())
    };
    let cold = "minecraft:block/furnace";
    assert_eq!(
        tex(cold, Direction::North).as_deref(),
        Some("/textures/block/furnace_front.png")
    );
    assert_eq!(
        tex(cold, Direction::Down).as_deref(),
        Some("/textures/block/furnace_top.png")
    );
    assert_eq!(
        tex(cold, Direction::Up).as_deref(),
        Some("/textures/block/furnace_top.png")
    );
    assert_eq!(
        tex(cold, Direction::East).as_deref(),
        Some("/textures/block/furnace_side.png")
    );
    assert_eq!(
        tex("minecraft:block/furnace_on", Direction::North).as_deref(),
        Some("/textures/block/furnace_front_on.png")
    );
    let cube = &models.get(cold).expect("model").elements[0];
    assert_eq!(cube.faces.as_ref().expect("faces").iter().count(), 6);
    // Lit 13, unlit 0 (the game's furnace).
    let light = b.light_emission.as_ref().expect("lightEmission");
    assert_eq!(light.level_for(&props(&lit)), 13);
    assert_eq!(
        light.level_for(&props(&[("facing", "east"), ("lit", "false")])),
        0
    );
    assert_eq!(b.collision, Some(Collision::Cube));
    assert_eq!(b.surface.as_deref(), Some("stone"));
}

#[test]
fn plants_leaves_glass_torches_and_fluids_take_the_tables_and_the_games_facts() {
    let (_dir, into, _) = imported("misc");
    let leaves = block(&into, "oak_leaves");
    assert_eq!(leaves.alpha_mode.map(|a| a.as_str()), Some("mask"));
    assert_eq!(leaves.tint.as_deref(), Some("foliage"));
    let lm = leaves
        .models
        .as_ref()
        .and_then(|m| m.get("minecraft:block/oak_leaves"))
        .expect("model");
    assert_eq!(lm.ambient_occlusion, Some(false));
    assert_eq!(leaves.collision, Some(Collision::Cube), "leaves are solid");

    let poppy = block(&into, "poppy");
    assert_eq!(
        poppy.collision,
        Some(Collision::None),
        "plants are passable"
    );
    let pm = poppy
        .models
        .as_ref()
        .and_then(|m| m.get("minecraft:block/poppy"))
        .expect("model");
    let rot = pm.elements[0].rotation.as_ref().expect("rotation");
    assert_eq!(
        (rot.angle, rot.rescale, rot.origin.0),
        (45.0, Some(true), [8.0; 3])
    );
    assert_eq!(pm.elements[0].shade, Some(false));

    let glass = block(&into, "glass");
    assert_eq!(glass.alpha_mode.map(|a| a.as_str()), Some("blend"));
    assert_eq!(glass.surface.as_deref(), Some("glass"));
    assert_eq!(glass.collision, Some(Collision::Cube));

    let torch = block(&into, "torch");
    assert_eq!(
        torch.light_emission.as_ref().and_then(|l| l.level),
        Some(14)
    );
    assert_eq!(torch.collision, Some(Collision::None));
    let tm = torch
        .models
        .as_ref()
        .and_then(|m| m.get("minecraft:block/torch"))
        .expect("model");
    let down = tm.elements[0]
        .faces
        .as_ref()
        .and_then(|f| f.down.as_ref())
        .expect("down");
    assert_eq!(down.uv.0, [7.0, 13.0, 9.0, 15.0], "an explicit uv is kept");

    let lava = block(&into, "lava");
    let fl = lava.fluid.as_ref().expect("fluid");
    assert_eq!(
        (
            fl.name.as_str(),
            fl.still.as_str(),
            fl.flow.as_str(),
            fl.logged_property.as_deref()
        ),
        (
            "lava",
            "/textures/block/lava_still.png",
            "/textures/block/lava_flow.png",
            None
        )
    );
    assert_eq!(lava.light_emission.as_ref().and_then(|l| l.level), Some(15));
    assert_eq!(lava.collision, Some(Collision::None));

    let water = block(&into, "water");
    let fw = water.fluid.as_ref().expect("fluid");
    assert_eq!(fw.logged_property.as_deref(), Some("waterlogged"));
    assert_eq!(fw.level_property.as_deref(), Some("level"));
    assert_eq!(water.tint.as_deref(), Some("water"));
    assert_eq!(water.alpha_mode.map(|a| a.as_str()), Some("blend"));

    let slab = block(&into, "oak_slab");
    let top = slab.matching(&props(&[("type", "top")]));
    assert_eq!(top[0].apply[0].model, "minecraft:block/oak_slab_top");
    let double = slab.matching(&props(&[("type", "double")]));
    assert_eq!(double[0].apply[0].model, "minecraft:block/oak_planks");
    assert_eq!(slab.collision, Some(Collision::Model));
    assert_eq!(slab.light_shape, Some(true));
}

#[test]
fn the_written_pallet_builds_and_a_rerun_writes_nothing() {
    let (dir, into, first) = imported("build");
    assert!(!first.written.is_empty());
    let out = compile(
        &into,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
    assert!(
        out.assets
            .iter()
            .any(|a| a.path == "blocks/oak_stairs.dh-block"),
        "the compiled pallet holds the blocks"
    );
    let jar = dir.0.join("client.jar");
    let again = import(&jar, &into);
    assert!(again.written.is_empty(), "{:?}", again.written);
    assert_eq!(again.unchanged, first.written.len());
    assert_eq!(again.fingerprint, first.fingerprint);

    // The fingerprint, by hand: SHA-256 over each block's path, NUL, length (u64 LE) and
    // bytes, in path order.
    let mut names: Vec<String> = std::fs::read_dir(into.join("blocks"))
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 12);
    let mut h = Sha256::new();
    for n in &names {
        let bytes = std::fs::read(into.join("blocks").join(n)).unwrap_or_default();
        let p = format!("blocks/{n}");
        h.update(p.as_bytes());
        h.update([0u8]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(first.fingerprint, hex);
    let file = std::fs::read_to_string(into.join("blocks.fingerprint")).unwrap_or_default();
    assert_eq!(file, format!("{hex}\n"));

    // A stale block (one the jar no longer has) is removed on the next run.
    std::fs::write(into.join("blocks/gone.dh-block"), "{}").unwrap_or_else(|e| panic!("{e}"));
    let third = import(&jar, &into);
    assert_eq!(third.removed, vec![into.join("blocks/gone.dh-block")]);
    assert!(third.written.is_empty());
}

#[test]
fn an_unpacked_assets_folder_imports_to_the_same_bytes_as_the_jar() {
    let (dir, from_jar, _) = imported("folder");
    let unpacked = dir.0.join("unpacked");
    for (name, bytes) in pack::entries() {
        let p = unpacked.join(&name);
        std::fs::create_dir_all(p.parent().unwrap_or(&unpacked)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    let into = dir.0.join("from-folder");
    // The assets/ folder itself.
    let r = import(&unpacked.join("assets"), &into);
    assert_eq!(r.blocks, 12);
    let list = |root: &Path| {
        let mut v = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p
                        .strip_prefix(root)
                        .map(|r| r.to_path_buf())
                        .unwrap_or_default();
                    v.push((rel, std::fs::read(&p).unwrap_or_default()));
                }
            }
        }
        v.sort();
        v
    };
    let a = list(&from_jar);
    let b = list(&into);
    assert_eq!(
        a.iter().map(|x| &x.0).collect::<Vec<_>>(),
        b.iter().map(|x| &x.0).collect::<Vec<_>>()
    );
    // Byte for byte, pallet.dh included: its version comes from the version.json beside
    // assets/, as the jar's does from its root.
    assert!(a == b, "the folder's pallet differs from the jar's");
}

fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(b"IHDR");
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let crc = crc32(&ihdr);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend_from_slice(&13u32.to_be_bytes());
    out.extend_from_slice(&ihdr);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

fn crc32(b: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &x in b {
        c ^= u32::from(x);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn refused(tag: &str, extra: &[(&str, Vec<u8>)]) -> String {
    let dir = Cleanup(pack::temp(tag));
    let jar = pack::client_jar(&dir.0, extra);
    let into = dir.0.join("out");
    let e = import_platform(&jar, &into, &PlatformOptions::default())
        .err()
        .unwrap_or_else(|| panic!("{tag}: the import went through"));
    assert!(!into.exists(), "{tag}: a refused import writes nothing");
    e.to_string()
        .replace(&format!("{}", jar.display()), "client.jar")
}

#[test]
fn a_parent_loop_is_an_error_naming_the_model() {
    let e = refused(
        "loop",
        &[
            (
                "assets/minecraft/blockstates/loopy.json",
                br#"{ "variants": { "": { "model": "block/loop_a" } } }"#.to_vec(),
            ),
            (
                "assets/minecraft/models/block/loop_a.json",
                br#"{ "parent": "block/loop_b" }"#.to_vec(),
            ),
            (
                "assets/minecraft/models/block/loop_b.json",
                br#"{ "parent": "minecraft:block/loop_a" }"#.to_vec(),
            ),
        ],
    );
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/models/block/loop_a.json: its parent chain loops: minecraft:block/loop_a → minecraft:block/loop_b → minecraft:block/loop_a"
    );
}

#[test]
fn a_zip_bomb_entry_is_refused_at_the_cap() {
    // 17 MiB of zeros deflates to a few KiB; an asset may inflate to 16 MiB.
    let e = refused(
        "bomb",
        &[(
            "assets/minecraft/textures/block/bomb.png",
            vec![0u8; 17 << 20],
        )],
    );
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/textures/block/bomb.png: it inflates to 17825792 bytes; an asset may be at most 16777216"
    );
}

#[test]
fn a_png_claiming_100000_texels_a_side_is_refused() {
    let e = refused(
        "huge",
        &[(
            "assets/minecraft/textures/block/glass.png",
            png_header(100_000, 100_000),
        )],
    );
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/textures/block/glass.png: the PNG claims 100000x100000 texels; a block texture may be at most 4096 a side"
    );
}

#[test]
fn an_entry_named_with_dot_dot_is_refused() {
    let e = refused(
        "dotdot",
        &[(
            "assets/minecraft/textures/block/../../../../evil.png",
            vec![1, 2, 3],
        )],
    );
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/textures/block/../../../../evil.png: the entry's name is refused: it holds a '..' or '.' segment; a jar's entries are relative paths"
    );
}

#[test]
fn a_malformed_model_names_the_file_line_and_column() {
    let e = refused(
        "badmodel",
        &[(
            "assets/minecraft/models/block/torch.json",
            b"{\n  \"elements\": [ { \"from\": [0, 0], \"to\": [16, 16, 16] } ]\n}\n".to_vec(),
        )],
    );
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/models/block/torch.json: 2:27: 'from' must be 3 numbers"
    );
}

/// Where `DH_MINECRAFT_JAR` names a real client jar, it imports whole and the pallet
/// builds.
#[test]
fn a_real_client_jar_imports_whole_when_one_is_named() {
    let Some(jar) = std::env::var_os("DH_MINECRAFT_JAR") else {
        println!("skipped: DH_MINECRAFT_JAR names no client jar");
        return;
    };
    let dir = pack::temp("real");
    let into = dir.join("com.mojang.minecraft");
    let r = import(Path::new(&jar), &into);
    println!(
        "imported {} blocks of {} blockstates, {} models, {} textures; {} warnings",
        r.blocks,
        r.blockstates,
        r.models,
        r.textures,
        r.warnings.len()
    );
    assert!(r.blocks > 500, "{r:?}");
    let out = compile(
        &into,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The compiler reads `.dh-block` through the schema: an unknown member and a face whose
/// texture is not in the pallet are build errors naming the file.
#[test]
fn the_compiler_refuses_a_broken_block_naming_it() {
    let (_dir, into, _) = imported("broken");
    let path = into.join("blocks/glass.dh-block");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let broken = text
        .replace("/textures/block/glass.png", "/textures/block/nope.png")
        .replacen("\"id\":", "\"colour\": \"red\",\n  \"id\":", 1);
    std::fs::write(&path, broken).unwrap_or_else(|e| panic!("{e}"));
    let out = compile(
        &into,
        &CompileOptions {
            write: false,
            progress: None,
        },
    );
    let msgs: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.file == "blocks/glass.dh-block")
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].starts_with("unknown member 'colour' in dh.block"),
        "{msgs:?}"
    );
    assert!(msgs[1].contains("/textures/block/nope.png"), "{msgs:?}");
}

/// A bomb whose headers lie (they declare 1000 bytes for 17 MiB of deflated zeros) is
/// still stopped: inflating is capped whatever the header says.
#[test]
fn a_zip_bomb_with_a_lying_header_is_stopped_too() {
    let dir = Cleanup(pack::temp("liar"));
    let name = "assets/minecraft/textures/block/liar.png";
    let jar = pack::client_jar(&dir.0, &[(name, vec![0u8; 17 << 20])]);
    let mut bytes = std::fs::read(&jar).unwrap_or_else(|e| panic!("{e}"));
    // Patch the uncompressed size of the entry in its local header (offset 22) and in the
    // central directory (offset 24), found by the name that follows each header.
    let mut patched = 0;
    for (sig, name_at, size_at) in [(b"PK\x03\x04", 30usize, 22usize), (b"PK\x01\x02", 46, 24)] {
        let mut i = 0;
        while let Some(p) = bytes[i..].windows(4).position(|w| w == sig) {
            let at = i + p;
            if bytes.get(at + name_at..at + name_at + name.len()) == Some(name.as_bytes()) {
                bytes[at + size_at..at + size_at + 4].copy_from_slice(&1000u32.to_le_bytes());
                patched += 1;
            }
            i = at + 4;
        }
    }
    assert_eq!(patched, 2, "both headers found");
    std::fs::write(&jar, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let e = import_platform(&jar, &dir.0.join("out"), &PlatformOptions::default())
        .err()
        .map(|e| {
            e.to_string()
                .replace(&jar.display().to_string(), "client.jar")
        })
        .unwrap_or_default();
    // The zip reader stops at the declared size and says so; past a truthful header
    // the importer's own cap would.
    assert_eq!(
        e,
        "client.jar!/assets/minecraft/textures/block/liar.png: cannot be inflated: File is larger than its declared uncompressed size"
    );
    assert!(!dir.0.join("out").exists());
}

#[test]
fn progress_counts_every_blockstate() {
    let dir = Cleanup(pack::temp("progress"));
    let jar = pack::client_jar(&dir.0, &[]);
    let calls = std::sync::Mutex::new(Vec::new());
    let progress = |done: usize, total: usize| {
        if let Ok(mut c) = calls.lock() {
            c.push((done, total));
        }
    };
    let opts = PlatformOptions {
        progress: Some(&progress),
        ..PlatformOptions::default()
    };
    import_platform(&jar, &dir.0.join("out"), &opts).unwrap_or_else(|e| panic!("{e}"));
    let c = calls.into_inner().unwrap_or_default();
    assert_eq!(c.len(), 13);
    assert_eq!(c.first(), Some(&(1, 13)));
    assert_eq!(c.last(), Some(&(13, 13)));
}

/// A hand-written block may inherit another: the reference resolves in the pallet, and
/// one naming no block is a build error.
#[test]
fn inherits_names_another_block_of_the_pallet() {
    let (_dir, into, _) = imported("inherits");
    std::fs::write(
        into.join("blocks/tinted_glass.dh-block"),
        r#"{ "id": "minecraft:tinted_glass", "inherits": "glass.dh-block", "surface": "glass" }"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = compile(
        &into,
        &CompileOptions {
            write: false,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    std::fs::write(
        into.join("blocks/tinted_glass.dh-block"),
        r#"{ "id": "minecraft:tinted_glass", "inherits": "nope.dh-block" }"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = compile(
        &into,
        &CompileOptions {
            write: false,
            progress: None,
        },
    );
    let msgs: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.file == "blocks/tinted_glass.dh-block")
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].contains("nope.dh-block"), "{msgs:?}");
}
