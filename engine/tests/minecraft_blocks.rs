//! The engine reads the Minecraft platform pallet (issue 14 items 2 and 3; spec `dh.voxel`
//! "How a block is drawn", "Models in the chunk mesh", "Textures, transparency and
//! tint"): the project's own test pack (`content/tests/mc_platform_pack`, shared by
//! `#[path]`) imported into `com.mojang.minecraft`, mounted beside a scene's pallet, and
//! its blocks drawn from their models.
//!
//! * `the_test_pack_scene_draws_from_its_models_and_matches_its_golden`: slabs, stairs,
//!   a fence, a poppy, glass, a torch, leaves, grass and planks on a stone floor (stone
//!   is not in the pack: the colour table), captured on lavapipe, compared with
//!   `gpu/tests/golden/voxel-minecraft-blocks.png`.
//! * `the_resolve_line_counts_entries_tiles_and_pallets`: the load log's line.
//! * `an_unchanged_pallet_reuses_the_palette_and_a_touched_one_resolves_again`.
//! * `a_bottom_slab_hides_its_underside_on_stone_and_shows_the_stones_underside`: the
//!   mesh's faces, counted by hand.

#[path = "../../content/tests/mc_platform_pack/mod.rs"]
mod mc_platform_pack;
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dh_content::pallet::Pallet;
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::minecraft::platform::{import_platform, PlatformOptions};
use dh_content::voxel::payload::{
    encode, Grid, GridInfo, PaletteEntry, PropValue, Property, VoxelPayload,
};
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_engine::voxel::draw::VoxelDraw;
use dh_engine::voxel::{
    mesh_region, MapChunks, MeshContext, MeshOptions, MeshScratch, Placement, PlatformBlocks,
    Surface, VoxelLooks,
};
use dh_gpu::render::camera::output_size;
use dh_gpu::render::Renderer;
use dh_gpu::{testing, RgbaImage};
use mc_platform_pack as pack;
use support::check_golden;

const MC: &str = "com.mojang.minecraft";
const WIDTH: u32 = 320;

/// A temporary folder removed when the test ends.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The test pack imported into `<dir>/com.mojang.minecraft` (a source pallet folder).
fn platform(tag: &str) -> (Cleanup, PathBuf) {
    let dir = pack::temp(&format!("engine-{tag}"));
    let jar = pack::client_jar(&dir, &[]);
    let into = dir.join(MC);
    import_platform(&jar, &into, &PlatformOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    (Cleanup(dir), into)
}

fn entry(id: &str, props: &[(&str, &str)]) -> PaletteEntry {
    let mut e = PaletteEntry::new("minecraft", id);
    e.properties = props
        .iter()
        .map(|(k, v)| Property {
            key: k.to_string(),
            value: PropValue::String(v.to_string()),
        })
        .collect();
    e
}

/// The scene's palette: index 1 stone (the colour table's), then the pack's blocks.
fn scene_palette() -> Vec<PaletteEntry> {
    vec![
        PaletteEntry::empty(),
        entry("stone", &[]),
        entry("oak_slab", &[("type", "bottom"), ("waterlogged", "false")]),
        entry(
            "oak_stairs",
            &[
                ("facing", "east"),
                ("half", "bottom"),
                ("shape", "straight"),
                ("waterlogged", "false"),
            ],
        ),
        entry(
            "oak_fence",
            &[
                ("north", "false"),
                ("east", "true"),
                ("south", "false"),
                ("west", "true"),
                ("waterlogged", "false"),
            ],
        ),
        entry("poppy", &[]),
        entry("glass", &[]),
        entry("torch", &[]),
        entry(
            "oak_leaves",
            &[
                ("distance", "7"),
                ("persistent", "true"),
                ("waterlogged", "false"),
            ],
        ),
        entry("grass_block", &[("snowy", "false")]),
        entry("oak_planks", &[]),
        entry(
            "oak_stairs",
            &[
                ("facing", "south"),
                ("half", "bottom"),
                ("shape", "straight"),
                ("waterlogged", "false"),
            ],
        ),
    ]
}

/// (cell, palette index) of the scene: a 12 × 1 × 8 stone floor at y 0, and on it a row
/// of each block (x 1..=10 at z 3), a grass patch and a slab under a stone block.
fn scene_cells() -> Vec<([i32; 3], u32)> {
    let mut out = Vec::new();
    for x in 0..12 {
        for z in 0..8 {
            out.push(([x, 0, z], 1));
        }
    }
    // The row: slab, stairs (east), fence (arms east and west) ×3, poppy, glass, torch,
    // leaves, planks, stairs (south).
    let row = [2, 3, 4, 4, 4, 5, 6, 7, 8, 10, 11];
    for (k, &v) in row.iter().enumerate() {
        out.push(([k as i32, 1, 3], v));
    }
    // Grass in front.
    for x in 0..12 {
        out.push(([x, 0, 6], 9));
        out.push(([x, 0, 7], 9));
    }
    // A slab with a stone block on it, at the back.
    out.push(([2, 1, 1], 2));
    out.push(([2, 2, 1], 1));
    out
}

/// A pallet `test.<id>` holding the scene volume and a map seeing it from `eye`.
fn scene_pallet(dir: &Path, id: &str, eye: [f32; 3], rotation: [f32; 3]) -> PathBuf {
    let mut p = VoxelPayload::default();
    p.header.platform = MC.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = scene_palette();
    p.grids = vec![Grid::new(GridInfo::new("overworld", [0, 0, 0], [12, 4, 8]))];
    for (c, v) in scene_cells() {
        assert!(p.set_cell(0, 0, c, v));
    }
    let shards = encode(&p).unwrap_or_else(|e| panic!("{e}"));
    let def = format!(r#"{{ "platform": "{MC}", "data": "scene.dh-vox.bin" }}"#);
    let map = format!(
        r#"{{
  "name": "Minecraft blocks",
  "lighting": {{ "sunDirection": [-0.4, -0.8, -0.45], "sunIntensity": 2, "ambientIntensity": 0.5 }},
  "objects": [
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5c01", "name": "scene", "position": [0, 0, 0], "rotation": [0, 0, 0],
      "components": [ {{ "$type": "dh.voxelVolume", "volume": "/voxels/scene.dh-vox", "lighting": "dh" }} ] }},
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5c02", "name": "camera", "position": {eye:?}, "rotation": {rotation:?},
      "components": [ {{ "$type": "dh.camera", "fov": 60, "aspect": "16:9" }} ] }}
  ]
}}"#
    );
    let manifest = format!(
        r#"{{ "id": "test.{id}", "name": "Minecraft blocks", "version": "1.0.0", "dependencies": ["{MC}"] }}"#
    );
    support::memory_pallet(
        dir,
        &format!("{id}.pallet"),
        &manifest,
        vec![
            ("voxels/scene.dh-vox", def.into_bytes()),
            (
                "voxels/scene.dh-vox.bin",
                shards.into_iter().next().unwrap_or_default(),
            ),
            ("maps/scene.dh-map", map.into_bytes()),
        ],
    )
}

fn host(pallets: &[&Path], map: &str) -> Host {
    Host::start(&HostOptions {
        map: map.into(),
        pallets: pallets.iter().map(|p| p.to_path_buf()).collect(),
        sets: Vec::new(),
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Lands the host's volumes through `draw` and returns its log.
fn land(
    host: &Host,
    draw: &mut VoxelDraw,
    pallets: &[&Path],
    map: &str,
) -> (
    Vec<String>,
    dh_gpu::render::frame::RenderFrame,
    dh_gpu::render::frame::View,
    [u32; 2],
) {
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    for p in pallets {
        catalog.mount_file(p).unwrap_or_else(|e| panic!("{e}"));
    }
    let (_, m) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(host, &catalog, &m);
    assert!(x.missing.is_empty(), "{:?}", x.missing);
    let cam = x
        .cameras
        .iter()
        .find(|c| c.name == "camera")
        .unwrap_or_else(|| panic!("no camera"));
    let size = output_size(cam.aspect, Some([WIDTH, WIDTH * 9 / 16]), None);
    let mut frame = x.frame;
    let view = cam.view;
    let stats = draw.capture(host, Some(&view), &mut frame);
    let log = draw.take_log();
    assert!(stats.instances > 0, "nothing landed: {stats:?} {log:?}");
    (log, frame, view, size)
}

fn render(
    frame: &dh_gpu::render::frame::RenderFrame,
    view: &dh_gpu::render::frame::View,
    size: [u32; 2],
) -> RgbaImage {
    let gpu = testing::test_gpu();
    let image = {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        renderer
            .render(frame, view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image
    };
    testing::finish(gpu);
    image
}

#[test]
fn the_test_pack_scene_draws_from_its_models_and_matches_its_golden() {
    let (_clean, mc) = platform("golden");
    let dir = mc
        .parent()
        .unwrap_or_else(|| panic!("no parent"))
        .to_path_buf();
    let scene = scene_pallet(&dir, "mcblocks", [5.5, 3.6, 8.2], [-30.0, 0.0, 0.0]);
    let pallets = [mc.as_path(), scene.as_path()];
    let host = host(&pallets, "scene");
    let mut draw = VoxelDraw::new(&host.prefs);
    let (log, frame, view, size) = land(&host, &mut draw, &pallets, "scene");
    assert!(
        log.iter()
            .any(|l| l.contains("drawn by the platform pallet")),
        "{log:?}"
    );
    let image = render(&frame, &view, size);
    if let Ok(d) = std::env::var("DH_RENDER_OUT") {
        let _ = image.write_png(&Path::new(&d).join("minecraft-blocks.png"));
    }
    check_golden("voxel-minecraft-blocks", &image);
}

#[test]
fn the_resolve_line_counts_entries_tiles_and_pallets() {
    let (_clean, mc) = platform("line");
    let dir = mc
        .parent()
        .unwrap_or_else(|| panic!("no parent"))
        .to_path_buf();
    let scene = scene_pallet(&dir, "mcline", [6.0, 5.5, 12.5], [-28.0, 0.0, 0.0]);
    let pallets = [mc.as_path(), scene.as_path()];
    let host = host(&pallets, "scene");
    let mut draw = VoxelDraw::new(&host.prefs);
    let (log, ..) = land(&host, &mut draw, &pallets, "scene");
    let line = log
        .iter()
        .find(|l| l.contains("palette entries resolved"))
        .unwrap_or_else(|| panic!("no resolve line: {log:?}"));
    // 12 entries: dh:empty and stone from the table, the other ten from the pallet.
    // Tiles by hand, from the pack's models: slab, stairs and planks all draw
    // oak_planks (1); the fence oak_planks too; poppy 1, glass 1, torch 1, leaves 1
    // (tinted foliage), grass: top (tinted grass), side, dirt = 3. Eight.
    assert!(
        line.starts_with("voxel volume 'scene': 12 palette entries resolved in "),
        "{line}"
    );
    assert!(
        line.contains(" ms: 10 drawn by the platform pallet (8 atlas tiles), 2 from a block table, none wears the unresolved checker; platform pallet 'com.mojang.minecraft' found among 2 pallets opened in "),
        "{line}"
    );
    // The plains note, once.
    let plains = log.iter().filter(|l| l.contains("plains' colours")).count();
    assert_eq!(plains, 1, "{log:?}");
}

#[test]
fn an_unchanged_pallet_reuses_the_palette_and_a_touched_one_resolves_again() {
    let (_clean, mc) = platform("reuse");
    let dir = mc
        .parent()
        .unwrap_or_else(|| panic!("no parent"))
        .to_path_buf();
    let scene = scene_pallet(&dir, "mcreuse", [6.0, 5.5, 12.5], [-28.0, 0.0, 0.0]);
    let pallets = [mc.as_path(), scene.as_path()];
    let first = host(&pallets, "scene");
    let mut draw = VoxelDraw::new(&first.prefs);
    let (log, ..) = land(&first, &mut draw, &pallets, "scene");
    assert!(
        log.iter().any(|l| l.contains("palette entries resolved")),
        "{log:?}"
    );
    assert_eq!(draw.palette_cache().counts(), (1, 0));
    // The same map loaded again (a new host: new volumes, a map swap): reused.
    let again = host(&pallets, "scene");
    let (log, ..) = land(&again, &mut draw, &pallets, "scene");
    assert_eq!(draw.palette_cache().counts(), (1, 1), "{log:?}");
    assert!(
        log.iter().any(|l| l
            == "voxel volume 'scene': its 12 palette entries reused as resolved before (the platform pallet's files are unchanged)"),
        "{log:?}"
    );
    // Touch one block file (same bytes, a later write time): resolved afresh.
    let slab = mc.join("blocks/oak_slab.dh-block");
    let f = std::fs::File::options()
        .append(true)
        .open(&slab)
        .unwrap_or_else(|e| panic!("{e}"));
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    f.set_modified(later).unwrap_or_else(|e| panic!("{e}"));
    drop(f);
    let third = host(&pallets, "scene");
    let (log, ..) = land(&third, &mut draw, &pallets, "scene");
    assert_eq!(draw.palette_cache().counts(), (2, 1), "{log:?}");
    assert!(
        log.iter().any(|l| l.contains("palette entries resolved")),
        "{log:?}"
    );
}

/// The scene palette resolved through the imported pallet, compiled in process.
fn looks_of(mc: &Path, palette: &[PaletteEntry]) -> VoxelLooks {
    let built = dh_engine::source_pallet::build_folder(mc).unwrap_or_else(|e| panic!("{e}"));
    let pallet = Pallet::from_bytes(built.bytes.as_ref().clone()).unwrap_or_else(|e| panic!("{e}"));
    let blocks = PlatformBlocks::new(Arc::new(pallet), None);
    let tables = BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"));
    VoxelLooks::resolve_platform(palette, tables, Some(MC), &blocks, None, None)
}

/// The quads of `mesh`'s surface `s` whose four corners lie on plane `axis = at` with
/// normal sign `sign` along it.
fn quads_on(
    m: &dh_engine::voxel::RegionMesh,
    s: Surface,
    axis: usize,
    at: f32,
    sign: f32,
) -> usize {
    let v = m.surface(s).to_vertices();
    let sm = m.surface(s);
    (0..sm.quad_count())
        .filter(|&q| {
            let ix = &sm.indices[q * 6..q * 6 + 6];
            ix.iter().all(|&i| {
                let p = v[i as usize];
                (p.position[axis] - at).abs() < 1e-5 && p.normal[axis] * sign > 0.9
            })
        })
        .count()
}

#[test]
fn a_bottom_slab_hides_its_underside_on_stone_and_shows_the_stones_underside() {
    let (_clean, mc) = platform("slab");
    let palette = scene_palette();
    let looks = looks_of(&mc, &palette);
    // A column at (0, y, 0): stone at y 0, a bottom slab at y 1, stone at y 2.
    let mut chunks = MapChunks::new(16);
    chunks.set([0, 0, 0], 1);
    chunks.set([0, 1, 0], 2);
    chunks.set([0, 2, 0], 1);
    let placement = Placement::identity();
    let ctx = MeshContext::new(&looks, &placement, &MeshOptions::default());
    let m = mesh_region(&chunks, &ctx, [0, 0, 0], &mut MeshScratch::default());
    // By hand: the slab's underside (y = 1, facing down) is culled by the stone under it
    // and the stone's top (y = 1, facing up) is covered by the slab's bottom: none.
    assert_eq!(quads_on(&m, Surface::Opaque, 1, 1.0, -1.0), 0);
    assert_eq!(quads_on(&m, Surface::Opaque, 1, 1.0, 1.0), 0);
    // The slab's open top at y = 1.5 draws, and the upper stone's underside at y = 2
    // shows above it.
    assert_eq!(quads_on(&m, Surface::Opaque, 1, 1.5, 1.0), 1);
    assert_eq!(quads_on(&m, Surface::Opaque, 1, 2.0, -1.0), 1);
    // The slab's four sides (half height) and each stone's four sides: 12 side quads,
    // plus the bottom stone's underside, the top stone's top: 6 + 4 + 4 + ... counted:
    // stone 0: 4 sides + down = 5; slab: 4 sides + top = 5; stone 2: 4 sides + up + down
    // = 6. Sixteen in all.
    assert_eq!(m.surface(Surface::Opaque).quad_count(), 16);
}

#[test]
fn the_fixture_house_draws_with_the_test_pack() {
    // smallhouse1.schem is MIT (prismarine-schematic), read where the fixtures are.
    let Some(house) = support::fixture_path("minecraft/schem/smallhouse1.schem") else {
        println!("skipped: ../shared/fixtures/minecraft/schem/smallhouse1.schem is absent");
        return;
    };
    let bytes = std::fs::read(&house).unwrap_or_else(|e| panic!("{}: {e}", house.display()));
    let (_clean, mc) = platform("house");
    let dir = mc
        .parent()
        .unwrap_or_else(|| panic!("no parent"))
        .to_path_buf();
    let map = r#"{
  "name": "House",
  "lighting": { "sunDirection": [-0.4, -0.8, -0.45], "sunIntensity": 2, "ambientIntensity": 0.5 },
  "objects": [
    { "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5d01", "name": "house", "position": [0, 0, 0], "rotation": [0, 0, 0],
      "components": [ { "$type": "dh.voxelVolume", "volume": "/voxels/house.dh-vox", "lighting": "dh" } ] },
    { "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5d02", "name": "camera", "position": [31, 16, 34], "rotation": [-8, 42, 0],
      "components": [ { "$type": "dh.camera", "fov": 60, "aspect": "16:9" } ] }
  ]
}"#;
    let manifest = format!(
        r#"{{ "id": "test.mchouse", "name": "House", "version": "1.0.0", "dependencies": ["{MC}"] }}"#
    );
    let scene = support::memory_pallet(
        &dir,
        "mchouse.pallet",
        &manifest,
        vec![
            (
                "voxels/house.dh-vox",
                br#"{ "data": "house.schem" }"#.to_vec(),
            ),
            ("voxels/house.schem", bytes),
            ("maps/house.dh-map", map.as_bytes().to_vec()),
        ],
    );
    let pallets = [mc.as_path(), scene.as_path()];
    let host = host(&pallets, "house");
    let mut draw = VoxelDraw::new(&host.prefs);
    let (log, frame, view, size) = land(&host, &mut draw, &pallets, "house");
    // The house's 174 entries: the pack's blocks from their models, the rest from the
    // colour table (its planks, stairs and glass among the pack's).
    let line = log
        .iter()
        .find(|l| l.contains("palette entries resolved"))
        .unwrap_or_else(|| panic!("no resolve line: {log:?}"));
    println!("{line}");
    assert!(
        line.contains("voxel volume 'house': 174 palette entries"),
        "{line}"
    );
    assert!(!line.contains(" 0 drawn by the platform pallet"), "{line}");
    assert!(line.contains("none wears the unresolved checker"), "{line}");
    let image = render(&frame, &view, size);
    if let Ok(d) = std::env::var("DH_RENDER_OUT") {
        let _ = image.write_png(&Path::new(&d).join("minecraft-house.png"));
    }
    check_golden("voxel-minecraft-house", &image);
}
