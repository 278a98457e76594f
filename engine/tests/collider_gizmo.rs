//! `client.debug.colliderGizmo` on hull shapes (spec 004:313: it "draws each chunk's body
//! as a wireframe, the same way it draws a map's mesh collision"; ours: every collider,
//! hulls by their faces' edges).
//!
//! The map, by hand:
//!
//! * `rock`, a solid hull of the unit tetrahedron's corners placed at (5, 0, 0): a static
//!   body, drawn from the physics world's hull, four triangular faces and six edges, between
//!   (5, 0, 0), (6, 0, 0), (5, 1, 0) and (5, 0, 1);
//! * `zone`, a trigger hull of a 1 m cube's corners (±0.5) placed at (-5, 1, 0) scaled
//!   [2, 1, 1]: no body (a passable trigger), drawn from the shape at its pose, six square
//!   faces and twelve edges, x -6..-4, y 0.5..1.5, z -0.5..0.5.

mod support;

use dh_engine::gizmos::{self, STATIC_COLLIDER_COLOR, TRIGGER_COLLIDER_COLOR};
use dh_engine::host::{Host, HostOptions};
use dh_gpu::render::Overlay;
use glam::Vec3;

fn start() -> Host {
    let dir = std::env::temp_dir().join(format!("dh-collider-gizmo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let manifest = r#"{ "id": "test.collidergizmo", "name": "Collider gizmo", "version": "1.0.0", "dependencies": [] }"#;
    let map = r#"{
  "name": "Hulls",
  "objects": [
    { "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5d01", "name": "rock", "position": [5, 0, 0],
      "components": [ { "$type": "dh.collider", "state": "solid",
        "shapes": [ { "type": "hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] } ] } ] },
    { "$type": "object", "id": "0b5c1f6e-8a43-4d2e-9f10-3c7d2a9e5d02", "name": "zone", "position": [-5, 1, 0], "scale": [2, 1, 1],
      "components": [ { "$type": "dh.collider", "state": "trigger",
        "shapes": [ { "type": "hull", "points": [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [-0.5, 0.5, -0.5], [0.5, 0.5, -0.5],
                                                 [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5], [-0.5, 0.5, 0.5], [0.5, 0.5, 0.5]] } ] } ] }
  ]
}"#;
    let pallet = support::memory_pallet(
        &dir,
        "collidergizmo.pallet",
        manifest,
        vec![("maps/hulls.dh-map", map.as_bytes().to_vec())],
    );
    let host = Host::start(&HostOptions {
        map: "test.collidergizmo:maps/hulls".into(),
        pallets: vec![pallet],
        sets: vec!["client.debug.colliderGizmo=1".into()],
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    host
}

#[test]
fn a_solid_hull_and_a_trigger_hull_draw_their_faces_edges_at_their_poses() {
    let host = start();
    let mut o = Overlay::default();
    let counts = gizmos::collider_lines(&mut o, &host);
    assert_eq!((counts.drawn, counts.skipped), (2, 0), "{counts:?}");
    assert_eq!((counts.lines, counts.left_out), (6 + 12, 0), "{counts:?}");
    let near = |a: Vec3, b: Vec3| (a - b).length() < 1e-4;
    let tetra = [
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::new(6.0, 0.0, 0.0),
        Vec3::new(5.0, 1.0, 0.0),
        Vec3::new(5.0, 0.0, 1.0),
    ];
    let (mut rock, mut zone) = (0, 0);
    for pair in o.lines.chunks(2) {
        let (a, b) = (Vec3::from(pair[0].position), Vec3::from(pair[1].position));
        if pair[0].color == STATIC_COLLIDER_COLOR {
            // Between two of the tetrahedron's corners.
            assert!(tetra.iter().any(|&c| near(a, c)) && tetra.iter().any(|&c| near(b, c)));
            assert!(!near(a, b));
            rock += 1;
        } else {
            assert_eq!(pair[0].color, TRIGGER_COLLIDER_COLOR);
            // Between two corners of the scaled cube, along one axis.
            for p in [a, b] {
                let q = p - Vec3::new(-5.0, 1.0, 0.0);
                assert!(near(q.abs(), Vec3::new(1.0, 0.5, 0.5)), "{p}");
            }
            let d = (a - b).abs();
            assert!(
                near(d, Vec3::new(2.0, 0.0, 0.0))
                    || near(d, Vec3::new(0.0, 1.0, 0.0))
                    || near(d, Vec3::new(0.0, 0.0, 1.0)),
                "{a} {b}"
            );
            zone += 1;
        }
    }
    assert_eq!((rock, zone), (6, 12));
    assert_eq!(gizmos::not_drawn(&host.prefs), Vec::<String>::new());
}
