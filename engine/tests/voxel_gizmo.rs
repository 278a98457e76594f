//! The voxel half of the debug overlays (spec `dh.voxel` 004:313–315, "Seeing it"):
//! `client.debug.colliderGizmo` draws each chunk body's triangle edges, labeled with the
//! volume's name, and `client.debug.contacts` names what the player mover touches.
//!
//! The container, 1 m voxels, Y up, 16-cell chunks, one grid `overworld` of 32 × 32 × 16
//! cells: a slab of grass blocks at cells x 16..20, y 20, z 0..4, all in chunk (1, 1, 0).
//! The record places the container at (-18, -21, -2), so by hand the slab is the world box
//! x -2..2, y -1..0, z -2..2, its top at y = 0. A floor brush's top is at y = -3.
//!
//! The slab's collision, worked out by hand: every one of its six faces borders air and is
//! one rectangle of one surface, so the greedy cook makes six quads, twelve triangles. Their
//! edges, each drawn once: the box's twelve edges and one diagonal across each face, 18.

mod support;
use support::{check_golden, Run};

use std::path::{Path, PathBuf};

use dh_content::voxel::payload::{encode, Grid, GridInfo, PaletteEntry, VoxelPayload};
use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::gizmos::{self, ColliderCounts, STATIC_COLLIDER_COLOR};
use dh_engine::host::{Host, HostOptions};
use dh_engine::script::ScriptHost;
use dh_engine::voxel::draw::VoxelDraw;
use dh_gpu::render::camera::output_size;
use dh_gpu::render::{Overlay, Renderer};
use dh_gpu::testing;
use glam::Vec3;

const MC: &str = "com.mojang.minecraft";
/// Where the record places the container's origin cell.
const AT: [f32; 3] = [-18.0, -21.0, -2.0];

/// The slab; with `extras`, also a stone run west of it into chunk (0, 1, 0) (cells x
/// 12..16, y 20, z 0..4) and a stone pillar on it (cell x 17, y 21..24, z 1), for the
/// golden.
fn payload(extras: bool) -> VoxelPayload {
    let mut p = VoxelPayload::default();
    p.header.platform = MC.into();
    p.header.voxel_size = 1.0;
    p.header.chunk_edge = 16;
    p.palette = vec![
        PaletteEntry::empty(),
        PaletteEntry::new("minecraft", "grass_block"),
        PaletteEntry::new("minecraft", "stone"),
    ];
    p.grids = vec![Grid::new(GridInfo::new(
        "overworld",
        [0, 0, 0],
        [32, 32, 16],
    ))];
    for z in 0..4 {
        for x in 16..20 {
            assert!(p.set_cell(0, 0, [x, 20, z], 1));
        }
        if extras {
            for x in 12..16 {
                assert!(p.set_cell(0, 0, [x, 20, z], 2));
            }
        }
    }
    if extras {
        for y in 21..24 {
            assert!(p.set_cell(0, 0, [17, y, 1], 2));
        }
    }
    p
}

fn build_pallet(dir: &Path, extras: bool) -> PathBuf {
    let shards = encode(&payload(extras)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shards.len(), 1);
    let manifest = r#"{ "id": "test.voxelgizmo", "name": "Voxel gizmo", "version": "1.0.0", "dependencies": [] }"#;
    let def = format!(r#"{{ "platform": "{MC}", "data": "ground.dh-vox.bin" }}"#);
    let map = format!(
        r#"{{
  "name": "Voxel gizmo",
  "materials": {{ "floor": "/materials/floor.dh-mat" }},
  "lighting": {{ "sunDirection": [-0.4, -0.8, -0.45], "sunIntensity": 2, "ambientIntensity": 0.5 }},
  "objects": [
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5c01", "name": "ground", "position": {AT:?}, "rotation": [0, 0, 0],
      "components": [ {{ "$type": "dh.voxelVolume", "volume": "/voxels/ground.dh-vox" }} ] }},
    {{ "$type": "boxBrush", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5c02", "name": "floor", "position": [0, -3.5, 0], "size": [40, 1, 40], "material": "floor" }},
    {{ "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5c03", "name": "camera", "position": [5, 4.5, 7], "rotation": [-24, 38, 0],
      "components": [ {{ "$type": "dh.camera", "fov": 60, "aspect": "16:9" }} ] }}
  ]
}}"#
    );
    let sources: Vec<(&str, Vec<u8>)> = vec![
        ("voxels/ground.dh-vox", def.into_bytes()),
        (
            "voxels/ground.dh-vox.bin",
            shards.into_iter().next().unwrap_or_default(),
        ),
        (
            "materials/floor.dh-mat",
            br#"{ "shader": "lit", "tint": [0.55, 0.55, 0.55] }"#.to_vec(),
        ),
        ("maps/voxel-gizmo.dh-map", map.into_bytes()),
    ];
    support::memory_pallet(dir, "voxelgizmo.pallet", manifest, sources)
}

/// A folder of its own for one test (the tests of this file run side by side).
fn temp_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dh-voxel-gizmo-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// The map started with `sets`, and the pallet's path (in a folder the caller removes).
fn start(extras: bool, sets: &[&str]) -> (Run, PathBuf, PathBuf) {
    let dir = temp_dir();
    let pallet = build_pallet(&dir, extras);
    let host = Host::start(&HostOptions {
        map: "voxel-gizmo".into(),
        pallets: vec![pallet.clone()],
        sets: sets.iter().map(|s| s.to_string()).collect(),
    })
    .unwrap_or_else(|e| panic!("{e}"));
    (Run::new(host), pallet, dir)
}

/// The slab's corners: x -2 or 2, y -1 or 0, z -2 or 2.
fn slab_corner(p: Vec3) -> bool {
    let near = |v: f32, a: f32, b: f32| (v - a).abs() < 1e-4 || (v - b).abs() < 1e-4;
    near(p.x, -2.0, 2.0) && near(p.y, -1.0, 0.0) && near(p.z, -2.0, 2.0)
}

/// The overlay's segments as end pairs.
fn segments(o: &Overlay) -> Vec<(Vec3, Vec3, [u8; 4])> {
    o.lines
        .chunks(2)
        .map(|p| {
            (
                Vec3::from(p[0].position),
                Vec3::from(p[1].position),
                p[0].color,
            )
        })
        .collect()
}

#[test]
fn the_collider_gizmo_draws_a_chunk_bodys_triangle_edges_once_each() {
    let (mut run, _, dir) = start(false, &["client.debug.colliderGizmo=1"]);
    let _ = std::fs::remove_dir_all(&dir);
    // A pawn on the slab: its chunk is cooked on the spot, before the first move.
    run.host
        .spawn("p", Some(Vec3::new(0.5, 0.0, 0.5)), Some(0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(1);
    let bodies = run.host.voxel_bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert_eq!(bodies[0].0, "ground");
    assert_eq!(bodies[0].1, [1, 1, 0]);
    assert_eq!(bodies[0].3, 12, "six quads, twelve triangles");

    let mut o = Overlay::default();
    let counts = gizmos::collider_lines(&mut o, &run.host);
    // The floor brush's box, and the chunk body.
    assert_eq!(
        counts,
        ColliderCounts {
            drawn: 1,
            skipped: 0,
            chunk_bodies: 1,
            lines: 18,
            left_out: 0,
        }
    );
    let segs = segments(&o);
    // The floor box's twelve edges come first, then the slab's 18.
    assert_eq!(segs.len(), 12 + 18);
    let slab: Vec<_> = segs[12..].to_vec();
    let mut axis = 0;
    let mut diagonal = 0;
    for (a, b, color) in &slab {
        assert_eq!(*color, STATIC_COLLIDER_COLOR, "drawn as static collision");
        assert!(slab_corner(*a) && slab_corner(*b), "{a} {b}");
        // A box edge changes one coordinate, a face's diagonal two; none changes three.
        let changed = (*a - *b)
            .to_array()
            .iter()
            .filter(|d| d.abs() > 1e-4)
            .count();
        match changed {
            1 => axis += 1,
            2 => diagonal += 1,
            _ => panic!("{a} {b} crosses the box"),
        }
    }
    assert_eq!((axis, diagonal), (12, 6));
    // No edge twice, either way round.
    for (i, (a, b, _)) in slab.iter().enumerate() {
        for (c, d, _) in &slab[i + 1..] {
            let same = (*a - *c).length() < 1e-4 && (*b - *d).length() < 1e-4;
            let swapped = (*a - *d).length() < 1e-4 && (*b - *c).length() < 1e-4;
            assert!(!same && !swapped, "{a} {b} twice");
        }
    }
    // One label for the volume, over the slab's top centre.
    assert_eq!(
        gizmos::voxel_labels(&run.host),
        vec![(
            Vec3::new(0.0, 0.0, 0.0),
            vec![
                "voxel volume 'ground'".to_string(),
                "1 chunk bodies, 12 triangles".to_string()
            ]
        )]
    );
    // Nothing is left undrawn.
    assert_eq!(gizmos::not_drawn(&run.host.prefs), Vec::<String>::new());
}

#[test]
fn with_no_pawn_near_the_volume_there_is_no_chunk_body_and_the_overlay_says_so() {
    let (run, _, dir) = start(false, &["client.debug.colliderGizmo=1"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run.host.voxel_bodies().is_empty());
    let view = dh_gpu::render::frame::View {
        position: Vec3::new(0.0, 5.0, 10.0),
        rotation: glam::Quat::IDENTITY,
        projection: dh_gpu::render::frame::Projection::Perspective { fov_y: 60.0 },
        near: 0.1,
        far: None,
    };
    let (o, notes) = gizmos::overlay_with_notes(&run.host, &run.host.prefs, &view, [64, 36]);
    // The floor brush's box alone.
    assert_eq!(o.lines.len(), 12 * 2);
    assert_eq!(notes, vec![gizmos::NO_CHUNK_BODIES.to_string()]);
}

#[test]
fn a_collider_budget_that_is_hit_draws_that_many_and_says_how_many_were_left_out() {
    let (mut run, _, dir) = start(false, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    run.host
        .spawn("p", Some(Vec3::new(0.5, 0.0, 0.5)), Some(0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(1);
    let mut o = Overlay::default();
    let counts = gizmos::collider_lines_within(&mut o, &run.host, Vec3::ZERO, 10);
    // 18 slab edges, 10 fit: 8 left out. The floor's box is not budgeted.
    assert_eq!((counts.lines, counts.left_out), (10, 8));
    assert_eq!(o.lines.len(), (12 + 10) * 2);
    assert_eq!(
        counts.budget_note(10).as_deref(),
        Some("client.debug.colliderGizmo: 8 collider edge(s) past the budget of 10 are not drawn (the farthest)")
    );
    let mut all = Overlay::default();
    let full = gizmos::collider_lines_within(&mut all, &run.host, Vec3::ZERO, 18);
    assert_eq!((full.lines, full.left_out), (18, 0));
    assert_eq!(full.budget_note(18), None);
}

fn contact_lines(run: &mut Run) -> Vec<String> {
    run.host
        .take_output()
        .into_iter()
        .filter(|l| l.starts_with("player mover contact"))
        .collect()
}

#[test]
fn a_pawn_landing_on_the_slab_and_walking_off_it_logs_one_enter_and_one_exit() {
    let (mut run, _, dir) = start(false, &["client.debug.contacts=1"]);
    let _ = std::fs::remove_dir_all(&dir);
    // 1 m over cell (18, 20, 2) (world x 0.5 is cell 16 + 2.5, z 0.5 is cell 2.5), facing
    // +X (yaw -90).
    run.host
        .spawn("p", Some(Vec3::new(0.5, 1.0, 0.5)), Some(-90.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(64);
    assert!(run.flag("p", "grounded"));
    assert!(run.num("p", "y").abs() < 1e-3, "{}", run.num("p", "y"));
    let bodies = run.host.voxel_bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let chunk_body = bodies[0].2.index();
    let name = "voxel volume 'ground' | grid 0 'overworld' chunk (1, 1, 0) | 12 triangles | cell (18, 20, 2) minecraft:grass_block | surface grass";
    assert_eq!(
        contact_lines(&mut run),
        vec![format!(
            "player mover contact ENTER — body #{chunk_body}: {name} | contact (0.50, 0.00, 0.50) normal (0.00, 1.00, 0.00) | pawn 'p'"
        )]
    );
    // Standing still: nothing more.
    run.ticks(32);
    assert_eq!(contact_lines(&mut run), Vec::<String>::new());
    // Walk 2 s at 4 m/s: off the slab's east edge (x 2), down 3 m onto the floor.
    run.host
        .move_pawn("p", 1.0, 0.0, Some(128))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(192);
    assert!(run.num("p", "x") > 6.0, "{}", run.num("p", "x"));
    assert!(
        (run.num("p", "y") + 3.0).abs() < 1e-3,
        "{}",
        run.num("p", "y")
    );
    let lines = contact_lines(&mut run);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    let exit = format!("player mover contact EXIT — body #{chunk_body}: {name} | contact (");
    assert!(lines[0].starts_with(&exit), "{}", lines[0]);
    assert!(lines[0].ends_with("| pawn 'p'"), "{}", lines[0]);
    // The floor brush is record 1; its material names no surface: stone.
    assert!(
        lines[1].starts_with("player mover contact ENTER — body #")
            && lines[1].contains(": 'floor' (objects[1]) | surface stone | contact (")
            && lines[1].ends_with(", -3.00, 0.50) normal (0.00, 1.00, 0.00) | pawn 'p'"),
        "{}",
        lines[1]
    );
}

#[test]
fn contacts_are_not_logged_while_the_preference_is_off() {
    let (mut run, _, dir) = start(false, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    run.host
        .spawn("p", Some(Vec3::new(0.5, 1.0, 0.5)), Some(0.0))
        .unwrap_or_else(|e| panic!("{e}"));
    run.ticks(64);
    assert!(run.flag("p", "grounded"));
    assert_eq!(contact_lines(&mut run), Vec::<String>::new());
}

#[test]
fn the_collider_gizmo_draws_the_chunk_bodies_over_the_voxel_map() {
    let gpu = testing::test_gpu();
    {
        let mut renderer = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (mut run, pallet, dir) = start(true, &["client.debug.colliderGizmo=1"]);
        run.host
            .spawn("p", Some(Vec3::new(0.5, 0.0, 0.5)), Some(0.0))
            .unwrap_or_else(|e| panic!("{e}"));
        run.ticks(1);
        run.host.flush_voxel_collision();
        let bodies = run.host.voxel_bodies();
        let chunks: Vec<[i32; 3]> = bodies.iter().map(|b| b.1).collect();
        assert_eq!(
            chunks,
            vec![[0, 1, 0], [1, 1, 0]],
            "the run west and the slab"
        );
        let mut catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
        catalog
            .mount_file(&pallet)
            .unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        let (_, m) = catalog
            .load_map("voxel-gizmo")
            .unwrap_or_else(|e| panic!("{e}"));
        let x = extract::extract(&run.host, &catalog, &m);
        let cam = x
            .cameras
            .iter()
            .find(|c| c.name == "camera")
            .unwrap_or_else(|| panic!("no camera"));
        let size = output_size(cam.aspect, Some([480, 270]), None);
        let mut frame = x.frame.clone();
        let mut draw = VoxelDraw::new(&run.host.prefs);
        let stats = draw.capture(&run.host, Some(&cam.view), &mut frame);
        assert!(stats.instances > 0, "{stats:?}");
        let (overlay, notes) =
            gizmos::overlay_with_notes(&run.host, &run.host.prefs, &cam.view, size);
        assert!(notes.is_empty(), "{notes:?}");
        assert!(!overlay.lines.is_empty());
        renderer.set_overlay(Overlay::default());
        let plain = renderer
            .render(&frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        renderer.set_overlay(overlay);
        let with = renderer
            .render(&frame, &cam.view, size[0], size[1])
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        assert_ne!(plain.pixels, with.pixels, "the wireframe shows");
        check_golden("voxel-gizmo-colliders", &with);
    }
    testing::finish(gpu);
}
