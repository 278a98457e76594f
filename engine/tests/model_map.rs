//! Models placed in a map, end to end: a pallet holding a small GLB built here (so every
//! number below is known by construction) and a map placing it twice is compiled with
//! `dh build`'s compiler, mounted, installed, extracted and stood on.
//!
//! The model (`meshes/yard.glb`), in glTF's own frame:
//!
//! * `group` (no mesh) at `[2, 0, 0]`, holding
//!   * `slab` at `[0, 0.5, 0]` drawing mesh 0: a 4 × 1 × 4 box, material `stone`;
//!   * `post` at `[1, 2, 0]`, turned 90° about +Y, drawing mesh 1: a 0.5 × 2 × 0.5 box whose
//!     top and two X faces are material `wood` and whose other three have no material;
//! * `lamp` (a root) at `[-3, 1, 0]`, drawing mesh 1 too.
//!
//! The map binds `stone` only. Placement `yard` stands at the origin, moves `group/post` up
//! 1 m, switches `lamp` off and gives `group/slab` a box collider; placement `yard2` stands
//! at `[10, 0, 0]` turned 90° (yaw) and removes `lamp`.

mod support;

use std::path::PathBuf;

use dh_engine::catalog::Catalog;
use dh_engine::extract::{self, ExtractCache};
use dh_engine::host::{Host, HostOptions};
use dh_gpu::render::frame::{Material, Shading};
use dh_sims::{Collider, Disabled, ModelPart, Parent, PartRenderer, SimWorld};
use support::{
    angle, box_geometry, drop_pawn, near3, pallet_bytes, without_companions, GlbBuilder,
    SourcePallet,
};

// ---- The model (written by support's GLB writer, independent of the importer) -----------

/// The yard model described at the top of the file.
fn yard_glb() -> Vec<u8> {
    let mut g = GlbBuilder::new();
    let (slab_v, slab_i) = box_geometry([4.0, 1.0, 4.0]);
    let (post_v, post_i) = box_geometry([0.5, 2.0, 0.5]);
    let slab_pos = g.positions(&slab_v);
    let slab_idx = g.indices(&slab_i);
    let post_pos = g.positions(&post_v);
    let post_a = g.indices(&post_i[..18]);
    let post_b = g.indices(&post_i[18..]);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let rest = format!(
        r#""materials":[{{"name":"stone"}},{{"name":"wood"}}],
"meshes":[
 {{"name":"SlabMesh","primitives":[{{"attributes":{{"POSITION":{slab_pos}}},"indices":{slab_idx},"material":0}}]}},
 {{"name":"PostMesh","primitives":[{{"attributes":{{"POSITION":{post_pos}}},"indices":{post_a},"material":1}},{{"attributes":{{"POSITION":{post_pos}}},"indices":{post_b}}}]}}
],
"nodes":[
 {{"name":"group","translation":[2,0,0],"children":[1,2]}},
 {{"name":"slab","translation":[0,0.5,0],"mesh":0}},
 {{"name":"post","translation":[1,2,0],"rotation":[0,{s},0,{s}],"mesh":1}},
 {{"name":"lamp","translation":[-3,1,0],"mesh":1}}
],
"scenes":[{{"nodes":[0,3]}}],"scene":0"#
    );
    g.finish(&rest)
}

// ---- The pallet -------------------------------------------------------------------------------

const YARD: &str = "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a51";
const YARD2: &str = "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a52";

fn map_text() -> String {
    format!(
        r#"{{
  "name": "Yard",
  "materials": {{ "stone": "/materials/stone.dh-mat" }},
  "autoCollision": false,
  "objects": [
    {{ "$type": "instance", "id": "{YARD}", "name": "yard", "source": "/meshes/yard.glb",
       "children": [
         {{ "path": "group/post", "position": [0, 1, 0] }},
         {{ "path": "lamp", "enabled": false }},
         {{ "path": "group/slab", "components": [
           {{ "$type": "dh.collider", "shapes": [ {{ "type": "box", "halfExtents": [2, 0.5, 2] }} ] }} ] }}
       ] }},
    {{ "$type": "instance", "id": "{YARD2}", "name": "yard2", "source": "/meshes/yard.glb",
       "position": [10, 0, 0], "rotation": [0, 90, 0],
       "children": [ {{ "path": "lamp", "removed": true }} ] }},
    {{ "$type": "object", "id": "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a53", "name": "spawn",
       "position": [2, 3, 0], "components": [ {{ "$type": "dh.spawnPoint" }} ] }},
    {{ "$type": "object", "id": "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a54", "name": "top",
       "position": [2, 10, 0], "rotation": [-90, 0, 0], "components": [ {{ "$type": "dh.camera" }} ] }}
  ]
}}
"#
    )
}

const RENAMED: &str = "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a55";

/// A map placing the renamed yard once at the origin, moving the renamed `group/pillar` up
/// 1 m by its new path.
fn renamed_map_text() -> String {
    format!(
        r#"{{
  "name": "Renamed",
  "materials": {{ "stone": "/materials/stone.dh-mat" }},
  "autoCollision": false,
  "objects": [
    {{ "$type": "instance", "id": "{RENAMED}", "name": "renamed", "source": "/meshes/yard-renamed.glb",
       "children": [ {{ "path": "group/pillar", "position": [0, 1, 0] }} ] }}
  ]
}}
"#
    )
}

const WORLD: &str = "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a56";

/// A map whose `world` instance places the yard at the origin with automatic collision in
/// `mode`, overriding two parts: `lamp` removed, `group/post` moved up 1 m.
fn world_map_text(mode: &str) -> String {
    format!(
        r#"{{
  "name": "World",
  "materials": {{ "stone": "/materials/stone.dh-mat", "wood": "/materials/stone.dh-mat" }},
  "autoCollision": {mode},
  "objects": [
    {{ "$type": "instance", "id": "{WORLD}", "name": "world", "source": "/meshes/yard.glb",
       "children": [
         {{ "path": "lamp", "removed": true }},
         {{ "path": "group/post", "position": [0, 1, 0] }}
       ] }},
    {{ "$type": "object", "id": "0a3c5e70-1b2d-4f60-8a9b-0c1d2e3f4a57", "name": "top",
       "position": [2, 10, 0], "rotation": [-90, 0, 0], "components": [ {{ "$type": "dh.camera" }} ] }}
  ]
}}
"#
    )
}

/// Builds the pallet into a file under the temp dir (unique per test) and returns its path.
fn build_pallet(tag: &str) -> PathBuf {
    build_pallet_with(tag, false)
}

/// [`build_pallet`]; `drop_companions` packs the build again without its maps'
/// `.dh-colcook` companions, so the host must cook their mesh collision at load.
fn build_pallet_with(tag: &str, drop_companions: bool) -> PathBuf {
    let pallet = SourcePallet::fresh("dh-model-map", tag);
    let write = |rel: &str, b: &[u8]| pallet.write(rel, b);
    pallet.manifest("dev.example.yard", "Yard");
    write("meshes/yard.glb", &yard_glb());
    write("materials/stone.dh-mat", b"{ \"tint\": [0.5, 0.5, 0.5] }");
    write("maps/yard.dh-map", map_text().as_bytes());
    // The same model again, its `post` renamed `pillar` by a sidecar, placed by a second map.
    write("meshes/yard-renamed.glb", &yard_glb());
    write(
        "meshes/yard-renamed.glb.dh-model",
        br#"{ "ops": [ { "kind": "rename", "target": "post", "name": "pillar" } ] }"#,
    );
    write("maps/renamed.dh-map", renamed_map_text().as_bytes());
    write(
        "maps/world-boxes.dh-map",
        world_map_text("\"boxes\"").as_bytes(),
    );
    write(
        "maps/world-mesh.dh-map",
        world_map_text("\"mesh\"").as_bytes(),
    );
    let out = pallet.compile(true, "yard");
    let bytes = if drop_companions {
        without_companions(&out)
    } else {
        pallet_bytes(&out)
    };
    pallet.save("yard.pallet", &bytes)
}

fn start(tag: &str) -> (Host, Catalog, dh_content::schema::map::Map) {
    start_map(tag, "dev.example.yard:maps/yard")
}

fn start_map(tag: &str, map: &str) -> (Host, Catalog, dh_content::schema::map::Map) {
    let pallet = build_pallet(tag);
    let host = Host::start(&HostOptions {
        map: map.into(),
        pallets: vec![pallet.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    catalog
        .mount_file(&pallet)
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, map) = catalog.load_map(map).unwrap_or_else(|e| panic!("{e}"));
    (host, catalog, map)
}

/// Photographs `map` from its `top` camera at 128 × 128 through `dh-engine render`
/// (lavapipe): the picture and what the command logged; `None` (with a skip line) when no
/// Vulkan driver is named.
fn capture_top(tag: &str, map: &str) -> Option<(dh_gpu::render::frame::Texture, String)> {
    if std::env::var_os("VK_DRIVER_FILES").is_none()
        && std::env::var_os("VK_ICD_FILENAMES").is_none()
    {
        println!(
            "skipping: no Vulkan driver named (VK_DRIVER_FILES); scripts/test.sh names lavapipe"
        );
        return None;
    }
    let pallet = build_pallet(tag);
    let outdir = pallet.with_file_name("shots");
    let _ = std::fs::remove_dir_all(&outdir);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let outcome = dh_engine::render_cmd::render(
        &dh_engine::render_cmd::RenderOptions {
            outdir: outdir.clone(),
            pallets: vec![pallet],
            map: map.into(),
            camera: Some("top".into()),
            size: Some([128, 128]),
            ..Default::default()
        },
        &mut out,
        &mut err,
    );
    let err = String::from_utf8_lossy(&err).into_owned();
    assert_eq!(outcome, dh_engine::run::Outcome::Done, "{err}");
    let png = std::fs::read(outdir.join("top.png")).unwrap_or_else(|e| panic!("{e}: {err}"));
    let img =
        dh_gpu::render::frame::Texture::decode("top.png", &png).unwrap_or_else(|e| panic!("{e}"));
    Some((img, err))
}

/// The RGB of pixel `(x, y)`.
fn pixel(img: &dh_gpu::render::frame::Texture, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
}

/// The pixels the missingMaterial's red covers.
fn red_pixels(img: &dh_gpu::render::frame::Texture) -> usize {
    img.rgba
        .chunks_exact(4)
        .filter(|p| p[0] > 60 && u16::from(p[0]) > 2 * u16::from(p[1]) + 20)
        .count()
}

/// Asserts the slab (left of the picture's center) is gray and not the background.
fn assert_gray_slab(img: &dh_gpu::render::frame::Texture) {
    let slab = pixel(img, img.width / 2 - 10, img.height / 2);
    assert!(
        slab.iter().all(|&c| c > 8)
            && slab[0].abs_diff(slab[1]) < 12
            && slab[1].abs_diff(slab[2]) < 12,
        "the slab is gray: {slab:?}"
    );
    assert_ne!(slab, pixel(img, 2, 2), "the slab is not the background");
}

// ---- Checks ----------------------------------------------------------------------------------

fn part_named(sim: &SimWorld, instance: &str, path: &str) -> Option<hecs::Entity> {
    let inst = sim.entity_named(instance)?;
    sim.parts().iter().copied().find(|&e| {
        sim.get::<ModelPart>(e)
            .is_some_and(|p| p.instance == inst && p.path == path)
    })
}

#[test]
fn each_placement_installs_its_parts_at_their_world_poses() {
    let (host, _, _) = start("install");
    let sim = host.sim();
    // yard: group, slab, post, lamp (lamp switched off); yard2: group, slab, post (lamp
    // removed, never installed).
    assert_eq!(sim.parts().len(), 7);
    assert!(
        part_named(sim, "yard2", "lamp").is_none(),
        "a removed part is not installed"
    );
    let yard = sim.entity_named("yard").unwrap();
    let yard2 = sim.entity_named("yard2").unwrap();

    // Part-table ids: mesh parts first in traversal order (slab, post, lamp), then the
    // structural group; the second placement counts on from 4.
    let ids: Vec<(String, u32, u32)> = sim
        .parts()
        .iter()
        .map(|&e| {
            let p = sim.get::<ModelPart>(e).unwrap();
            (
                format!("{}:{}", sim.name_of(p.instance).unwrap(), p.path),
                p.id,
                p.slot,
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("yard:group/slab".to_string(), 0, 0),
            ("yard:group/post".to_string(), 1, 1),
            ("yard:lamp".to_string(), 2, 2),
            ("yard:group".to_string(), 3, 3),
            ("yard2:group/slab".to_string(), 4, 0),
            ("yard2:group/post".to_string(), 5, 1),
            ("yard2:group".to_string(), 7, 3),
        ]
    );

    // Hierarchy: slab and post under the group part, the group and lamp under the placement.
    let group = part_named(sim, "yard", "group").unwrap();
    let slab = part_named(sim, "yard", "group/slab").unwrap();
    let post = part_named(sim, "yard", "group/post").unwrap();
    let lamp = part_named(sim, "yard", "lamp").unwrap();
    assert_eq!(sim.get::<Parent>(slab), Some(Parent(group)));
    assert_eq!(sim.get::<Parent>(post), Some(Parent(group)));
    assert_eq!(sim.get::<Parent>(group), Some(Parent(yard)));
    assert_eq!(sim.get::<Parent>(lamp), Some(Parent(yard)));
    assert!(sim.get::<Disabled>(lamp).is_some() && !sim.in_world(lamp));
    assert!(sim.in_world(slab) && sim.in_world(post));

    // World poses, by hand. yard at the origin: group [2,0,0]; slab [2,0.5,0];
    // post [1,2,0] + [2,0,0] = [3,2,0], moved up 1 m by its override; lamp [-3,1,0].
    let q90 = [
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
        0.0,
        std::f32::consts::FRAC_1_SQRT_2,
    ];
    let pose = |e| sim.world_pose(e).unwrap();
    near3(
        pose(group).position.to_array(),
        [2.0, 0.0, 0.0],
        "yard group",
    );
    near3(pose(slab).position.to_array(), [2.0, 0.5, 0.0], "yard slab");
    near3(
        pose(post).position.to_array(),
        [3.0, 3.0, 0.0],
        "yard post (moved up)",
    );
    assert!(
        angle(pose(post).rotation.to_array(), q90) < 0.05,
        "the post's turn: {:?}",
        pose(post).rotation
    );
    near3(
        pose(lamp).position.to_array(),
        [-3.0, 1.0, 0.0],
        "yard lamp",
    );
    // yard2 at [10,0,0] turned +90° about +Y, which takes +X to -Z: group [10,0,-2];
    // slab [10,0.5,-2]; post (3,2,0) -> (0,2,-3) -> [10,2,-3], turned 180° in all.
    let g2 = part_named(sim, "yard2", "group").unwrap();
    let s2 = part_named(sim, "yard2", "group/slab").unwrap();
    let p2 = part_named(sim, "yard2", "group/post").unwrap();
    assert_eq!(sim.get::<Parent>(g2), Some(Parent(yard2)));
    near3(
        pose(g2).position.to_array(),
        [10.0, 0.0, -2.0],
        "yard2 group",
    );
    near3(
        pose(s2).position.to_array(),
        [10.0, 0.5, -2.0],
        "yard2 slab",
    );
    near3(
        pose(p2).position.to_array(),
        [10.0, 2.0, -3.0],
        "yard2 post",
    );
    assert!(
        angle(pose(p2).rotation.to_array(), [0.0, 1.0, 0.0, 0.0]) < 0.05,
        "the post turned twice"
    );

    // The override's collider is the slab's; nothing else collides (autoCollision false).
    let c = sim.get::<Collider>(slab).expect("the slab's collider");
    assert_eq!(c.shapes.len(), 1);
    assert!(sim.get::<Collider>(post).is_none() && sim.get::<Collider>(s2).is_none());
    // The generated renderer: stone bound, wood not.
    let r = sim.get::<PartRenderer>(post).unwrap();
    assert!(r.map_slots && r.bound("wood").is_none());
    assert_eq!(
        sim.get::<PartRenderer>(slab).unwrap().bound("stone"),
        Some("dev.example.yard:materials/stone.dh-mat")
    );
    assert!(
        sim.get::<PartRenderer>(group).is_none(),
        "a group draws nothing"
    );
}

#[test]
fn extraction_draws_each_drawn_part_with_its_slots_bound_by_name() {
    let (host, catalog, map) = start("extract");
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    // Drawn: yard's slab and post (its lamp is off), yard2's slab and post.
    assert_eq!(x.frame.meshes.len(), 4, "{:?}", x.notes);
    // One GLB import for both placements, and again none on the next frame.
    assert_eq!(cache.models().decodes(), 1);
    let again = extract::extract_with(&host, &catalog, &map, &mut cache);
    assert_eq!(cache.models().decodes(), 1);
    assert_eq!(again.frame.meshes.len(), 4);

    let m = &x.frame.materials;
    let stone = host.sim().materials().slot("stone").unwrap().0 as usize;
    // Stone's tint, 0.5 sRGB: ((0.5 + 0.055) / 1.055)^2.4 linear.
    let lin = ((0.5f64 + 0.055) / 1.055).powf(2.4) as f32;
    assert!(
        m[stone]
            .base_color
            .to_array()
            .iter()
            .all(|c| (c - lin).abs() < 1e-5),
        "{:?}",
        m[stone]
    );
    // Slab (by position): one slot, stone.
    let at = |p: [f32; 3]| {
        x.frame
            .meshes
            .iter()
            .find(|i| (0..3).all(|k| (i.world.w_axis[k] - p[k]).abs() < 1e-5))
            .unwrap_or_else(|| panic!("no mesh at {p:?}"))
    };
    let slab = at([2.0, 0.5, 0.0]);
    assert_eq!(slab.materials, [stone as u32]);
    assert_eq!(slab.mesh.submeshes.len(), 1);
    assert_eq!(slab.mesh.indices.len(), 36);
    assert_eq!(
        (slab.mesh.bounds.0.to_array(), slab.mesh.bounds.1.to_array()),
        ([-2.0, -0.5, -2.0], [2.0, 0.5, 2.0])
    );
    // Post: wood has no table entry (the missingMaterial), the second primitive has no
    // material (flat white).
    let post = at([3.0, 3.0, 0.0]);
    assert_eq!(post.mesh.submeshes.len(), 2);
    assert_eq!(post.materials.len(), 2);
    assert_eq!(m[post.materials[0] as usize].shading, Shading::Missing);
    assert_eq!(m[post.materials[1] as usize], Material::flat_white());
    // Both posts share one asset; the slabs another.
    let post2 = at([10.0, 2.0, -3.0]);
    assert!(std::sync::Arc::ptr_eq(&post.mesh, &post2.mesh));
    assert_eq!(post2.materials, post.materials);
    assert_eq!(at([10.0, 0.5, -2.0]).mesh.key, slab.mesh.key);
    assert_ne!(slab.mesh.key, post.mesh.key);
    // Exactly one line for the unmapped slot, however many parts draw it.
    let lines: Vec<String> = x.missing.iter().map(|m| m.line()).collect();
    assert_eq!(
        lines,
        ["material slot 'wood' (mesh 'PostMesh' of dev.example.yard:meshes/yard.glb) has no entry in the map's materials table; it draws the missingMaterial"]
    );
    // The post's world matrix carries its quarter turn: its local +X points along world -Z.
    let w = post.world.to_cols_array_2d();
    near3(
        [w[0][0], w[0][1], w[0][2]],
        [0.0, 0.0, -1.0],
        "the post's X axis",
    );

    // A map switch drops the geometry.
    cache.map_switched();
    assert_eq!(cache.models().decodes(), 0);
    assert!(cache.models().is_empty());
}

#[test]
fn a_pawn_dropped_above_the_slab_stands_on_its_box() {
    let (mut host, _, _) = start("stand");
    let s = drop_pawn(&mut host, [2.0, 3.0, 0.0]);
    // The slab's box: centered at [2, 0.5, 0], half extents [2, 0.5, 2]: its top is y = 1.
    assert!(s.grounded && (s.feet[1] - 1.0).abs() < 0.05, "{s:?}");
    near3(
        [s.feet[0], 0.0, s.feet[2]],
        [2.0, 0.0, 0.0],
        "it fell straight down",
    );
}

/// The yard photographed from 10 m straight above the slab's center (lavapipe): the slab
/// fills the middle of the picture in its gray stone, and the post standing on it (1 m
/// toward +X, its top 6 m under the camera) shows the missingMaterial's red.
#[test]
fn the_yard_renders_in_a_capture() {
    let Some((img, err)) = capture_top("capture", "dev.example.yard:maps/yard") else {
        return;
    };
    assert!(
        err.contains("material slot 'wood' (mesh 'PostMesh' of dev.example.yard:meshes/yard.glb) has no entry")
            || err.contains("'wood'"),
        "the unmapped slot is named once: {err}"
    );
    // Left of the center: slab top only (the post stands to the right).
    assert_gray_slab(&img);
    let red = red_pixels(&img);
    assert!(
        red > 20,
        "the post's unmapped slot draws the red missingMaterial ({red} px)"
    );
}

/// A part a `.dh-model` sidecar renamed draws: the pallet ships the edited GLB, so the
/// renamed path the compiled parts table names is a node of the model the renderer reads.
#[test]
fn a_part_renamed_by_a_sidecar_draws_under_its_new_name() {
    let (host, catalog, map) = start_map("renamed", "dev.example.yard:maps/renamed");
    let sim = host.sim();
    let pillar = part_named(sim, "renamed", "group/pillar").expect("the renamed part");
    assert!(part_named(sim, "renamed", "group/post").is_none());
    // [1,2,0] under the group at [2,0,0], moved up 1 m by the override on its new path.
    near3(
        sim.world_pose(pillar).unwrap().position.to_array(),
        [3.0, 3.0, 0.0],
        "the pillar",
    );
    let mut cache = ExtractCache::new();
    let x = extract::extract_with(&host, &catalog, &map, &mut cache);
    // slab, pillar and lamp draw.
    assert_eq!(x.frame.meshes.len(), 3, "{:?}", x.notes);
    let drawn = x
        .frame
        .meshes
        .iter()
        .find(|i| (0..3).all(|k| (i.world.w_axis[k] - [3.0, 3.0, 0.0][k]).abs() < 1e-5))
        .expect("the pillar draws where its part stands");
    // The post's mesh: 36 indices over two primitives (wood, and no material).
    assert_eq!(drawn.mesh.indices.len(), 36);
    assert_eq!(drawn.mesh.submeshes.len(), 2);
    assert_eq!(
        x.frame.materials[drawn.materials[1] as usize],
        Material::flat_white()
    );
    assert_eq!(cache.models().decodes(), 1);
}

/// The issue's "done when": a map built around the model, with part overrides and
/// autoCollision boxes. Its slab stands as a box over its own triangles (4 x 1 x 4 about
/// the node at [2, 0.5, 0]: top at y = 1); the post, moved up 1 m by its override, stands
/// as a 0.5 x 2 x 0.5 box about [3, 3, 0] (top at y = 4); the removed lamp stands as
/// nothing.
#[test]
fn autocollision_boxes_hold_a_pawn_on_the_overridden_model() {
    let pallet = build_pallet("boxes-world");
    let mut host = Host::start(&HostOptions {
        map: "dev.example.yard:maps/world-boxes".into(),
        pallets: vec![pallet.clone()],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let sim = host.sim();
    let slab = part_named(sim, "world", "group/slab").expect("the slab");
    let c = sim
        .get::<Collider>(slab)
        .expect("the slab's generated collider");
    assert_eq!(c.shapes.len(), 1, "one box per node");
    assert!(
        part_named(sim, "world", "lamp").is_none(),
        "the lamp is removed"
    );
    let s = drop_pawn(&mut host, [1.0, 3.0, 0.5]);
    assert!(
        s.grounded && (s.feet[1] - 1.0).abs() < 0.05,
        "on the slab: {s:?}"
    );
    let mut host = Host::start(&HostOptions {
        map: "dev.example.yard:maps/world-boxes".into(),
        pallets: vec![pallet],
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let s = drop_pawn(&mut host, [3.0, 6.0, 0.0]);
    assert!(
        s.grounded && (s.feet[1] - 4.0).abs() < 0.05,
        "on the moved post's top: {s:?}"
    );
}

/// autoCollision's default, `mesh`: the build cooks each distinct mesh into the map's
/// `.dh-colcook` companion, and the host stands the slab's mesh shape as those triangles
/// (top at y = 1). Packed again without the companion, the host cooks at load and the pawn
/// stands the same.
#[test]
fn autocollision_mesh_holds_a_pawn_from_the_companion_and_from_a_load_cook() {
    for (tag, drop_companions) in [("mesh-companion", false), ("mesh-load", true)] {
        let pallet = build_pallet_with(tag, drop_companions);
        let mut host = Host::start(&HostOptions {
            map: "dev.example.yard:maps/world-mesh".into(),
            pallets: vec![pallet],
            ..HostOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let s = drop_pawn(&mut host, [1.0, 3.0, 0.5]);
        assert!(
            s.grounded && (s.feet[1] - 1.0).abs() < 0.05,
            "{tag}: on the slab's cooked triangles: {s:?}"
        );
        // The post, moved up 1 m by its override: its cooked triangles follow it (top at
        // y = 4).
        let pallet = build_pallet_with(&format!("{tag}-post"), drop_companions);
        let mut host = Host::start(&HostOptions {
            map: "dev.example.yard:maps/world-mesh".into(),
            pallets: vec![pallet],
            ..HostOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let s = drop_pawn(&mut host, [3.0, 6.0, 0.0]);
        assert!(
            s.grounded && (s.feet[1] - 4.0).abs() < 0.05,
            "{tag}: on the moved post's cooked top: {s:?}"
        );
    }
}

/// The done-when capture: the boxes world photographed from above renders the slab in
/// stone gray (both slots bound), with no missingMaterial red.
#[test]
fn the_boxes_world_renders_in_a_capture() {
    let Some((img, _)) = capture_top("boxes-capture", "dev.example.yard:maps/world-boxes") else {
        return;
    };
    assert_gray_slab(&img);
    assert_eq!(
        red_pixels(&img),
        0,
        "every slot is bound: no missingMaterial"
    );
}

/// `client.debug.colliderGizmo` on a map's mesh collision (spec 004:313: a voxel chunk is
/// drawn "the same way it draws a map's mesh collision"): each part's cooked triangles'
/// edges, once each, at the part's live pose, from the companion and from a load cook
/// alike. The slab (4 × 1 × 4, x 0..4, y 0..1, z -2..2) and the moved post (0.5 × 2 × 0.5
/// about (3, 3, 0)) are each a box of twelve triangles: the box's twelve edges and a
/// diagonal across each of its six faces, 18 edges each.
#[test]
fn the_collider_gizmo_draws_each_mesh_parts_cooked_triangle_edges() {
    for (tag, drop_companions) in [("gizmo-companion", false), ("gizmo-load", true)] {
        let pallet = build_pallet_with(tag, drop_companions);
        let host = Host::start(&HostOptions {
            map: "dev.example.yard:maps/world-mesh".into(),
            pallets: vec![pallet],
            ..HostOptions::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let mut o = dh_gpu::render::Overlay::default();
        let counts = dh_engine::gizmos::collider_lines(&mut o, &host);
        assert_eq!((counts.drawn, counts.skipped), (2, 0), "{tag}: {counts:?}");
        assert_eq!(
            (counts.lines, counts.left_out),
            (36, 0),
            "{tag}: {counts:?}"
        );
        assert_eq!(o.lines.len(), 36 * 2, "{tag}");
        let on = |p: glam::Vec3, lo: glam::Vec3, hi: glam::Vec3| {
            (0..3).all(|a| (p[a] - lo[a]).abs() < 1e-4 || (p[a] - hi[a]).abs() < 1e-4)
        };
        let slab = (
            glam::Vec3::new(0.0, 0.0, -2.0),
            glam::Vec3::new(4.0, 1.0, 2.0),
        );
        let post = (
            glam::Vec3::new(2.75, 2.0, -0.25),
            glam::Vec3::new(3.25, 4.0, 0.25),
        );
        let (mut on_slab, mut on_post) = (0, 0);
        for pair in o.lines.chunks(2) {
            let (a, b) = (
                glam::Vec3::from(pair[0].position),
                glam::Vec3::from(pair[1].position),
            );
            if on(a, slab.0, slab.1) && on(b, slab.0, slab.1) {
                on_slab += 1;
            } else if on(a, post.0, post.1) && on(b, post.0, post.1) {
                on_post += 1;
            } else {
                panic!("{tag}: {a} {b} is on neither box");
            }
        }
        assert_eq!((on_slab, on_post), (18, 18), "{tag}");
    }
}
