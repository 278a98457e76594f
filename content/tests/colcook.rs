//! autoCollision for model instances and the `.dh-colcook` companion (spec: dh.map,
//! "Automatic collision", "Nodes the bake skips", "hullOptions"; runtime assets, "Cooked
//! map collision"). Expected values are worked out by hand from the models built here.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use dh_content::colcook::{
    cook, cook_at_load, decode_companion, decode_mesh, encode_companion, encode_mesh, CookCache,
    InstanceCollision, MapCollision, MapCollisionOutput, PartState, NO_MATERIAL,
};
use dh_content::gltf::{Mesh, Model, Node, Primitive};
use dh_content::math;
use dh_content::mesh::MeshVertex;
use dh_content::parts::{self, PartsTable, Placement};
use dh_content::schema::common::{Guid, Vec3};
use dh_content::schema::components::geometry::{BoxShape, ColliderState, Shape};
use dh_content::schema::components::Collider;
use dh_content::schema::map::{AutoCollision, HullOptions};
use dh_content::schema::object_components::ObjectComponent;
use glam::{DMat4 as Mat4, DQuat, DVec3};
use support::temp_dir;

// ---- Model builders ---------------------------------------------------------------------

fn vertex(p: [f32; 3]) -> MeshVertex {
    MeshVertex {
        position: p,
        ..MeshVertex::default()
    }
}

/// An axis-aligned box as 6 faces of 4 corners each (24 vertices, 12 triangles), the way
/// exporters write a flat-shaded cube.
fn box_primitive(center: [f32; 3], half: [f32; 3], material: &str) -> Primitive {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = vertices.len() as u32;
            for (su, sv) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = center;
                p[axis] += sign * half[axis];
                p[u] += su * half[u];
                p[v] += sv * half[v];
                vertices.push(vertex(p));
            }
            indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    Primitive {
        vertices,
        indices,
        material: Some(material.to_string()),
        ..Primitive::default()
    }
}

fn mesh_of(primitives: Vec<Primitive>) -> Mesh {
    Mesh {
        name: String::new(),
        primitives,
        ..Mesh::default()
    }
}

/// A model whose roots are `nodes` (name, local TRS, mesh index) and meshes `meshes`.
fn flat_model(nodes: &[(&str, Mat4, Option<usize>)], meshes: Vec<Mesh>) -> Model {
    let mut m = Model {
        name: "test".into(),
        meshes,
        ..Model::default()
    };
    for (i, (name, local, mesh)) in nodes.iter().enumerate() {
        let mut n = Node::new(*name);
        n.local = *local;
        n.mesh = *mesh;
        m.nodes.push(n);
        m.roots.push(i);
    }
    m
}

fn unit_cube_model() -> Model {
    flat_model(
        &[("cube", Mat4::IDENTITY, Some(0))],
        vec![mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")])],
    )
}

const INSTANCE: Guid = Guid([0x11; 16]);

fn materials(slots: &[&str]) -> BTreeMap<String, String> {
    slots
        .iter()
        .map(|s| (s.to_string(), format!("{s}.dh-mat")))
        .collect()
}

struct Baked {
    table: PartsTable,
    out: InstanceCollision,
    done: MapCollisionOutput,
}

fn bake_with(
    model: &Model,
    mode: AutoCollision,
    hull: Option<&HullOptions>,
    pose: Mat4,
    states: &[PartState],
    mats: &BTreeMap<String, String>,
    cache: Option<CookCache>,
) -> Baked {
    let ids = parts::match_identities(model, "test:model.glb", None);
    let placement = Placement {
        instance_id: INSTANCE,
        pose,
        first_id: 0,
        materials: mats,
    };
    let table = parts::bake_parts_table(model, &ids, &placement);
    let mut col = MapCollision::new(mode, hull, cache);
    let out = col.bake_instance(model, &table, &placement, states);
    let done = col.finish("maps/test.dh-map");
    Baked { table, out, done }
}

fn bake(model: &Model, mode: AutoCollision) -> Baked {
    bake_with(
        model,
        mode,
        None,
        Mat4::IDENTITY,
        &[],
        &materials(&["concrete", "stone", "metal"]),
        None,
    )
}

fn part_index(b: &Baked, name: &str) -> usize {
    b.table
        .parts
        .iter()
        .position(|p| p.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no part named {name}"))
}

fn shapes_of(b: &Baked, name: &str) -> Vec<Shape> {
    b.out.colliders[part_index(b, name)]
        .as_ref()
        .and_then(|c| c.shapes.clone())
        .unwrap_or_default()
}

fn corners(half: f32) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for x in [-half, half] {
        for y in [-half, half] {
            for z in [-half, half] {
                out.push([x, y, z]);
            }
        }
    }
    out
}

fn sorted(mut v: Vec<[f32; 3]>) -> Vec<[f32; 3]> {
    v.sort_by(|a, b| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .fold(std::cmp::Ordering::Equal, |o, c| o.then(c))
    });
    v
}

// ---- mesh mode --------------------------------------------------------------------------

#[test]
fn unit_cube_cooks_to_twelve_triangles_over_eight_welded_vertices() {
    let model = unit_cube_model();
    let b = bake(&model, AutoCollision::Mesh);
    assert!(b.out.warnings.is_empty(), "{:?}", b.out.warnings);
    // One generated collider holding one mesh shape.
    let c = b.out.colliders[0].as_ref().expect("a generated collider");
    assert_eq!(c.generated, Some(true));
    assert_eq!(c.state, None);
    let shapes = c.shapes.as_ref().expect("shapes");
    assert_eq!(shapes.len(), 1);
    assert!(matches!(&shapes[0], Shape::Mesh(m) if m.auto.is_none()));
    // The companion: one mesh, one entry naming the part's objectId and shape 0.
    let comp = b.done.companion.as_ref().expect("a companion");
    assert_eq!(comp.path, "maps/test.dh-map.dh-colcook");
    let cook = decode_companion(&comp.bytes, &comp.path).expect("decodes");
    assert_eq!(cook.meshes.len(), 1);
    assert_eq!(cook.entries.len(), 1);
    assert_eq!(Some(cook.entries[0].object_id), b.table.parts[0].object_id);
    assert_eq!(cook.entries[0].shape, 0);
    let m = &cook.meshes[0];
    assert_eq!(m.triangles.len(), 12);
    assert_eq!(m.vertices.len(), 8);
    assert_eq!(sorted(m.vertices.clone()), sorted(corners(0.5)));
    assert_eq!(m.slots, vec!["concrete".to_string()]);
    assert!(m.materials.iter().all(|s| *s == 0));
    // Every face of the cube is two triangles of area 1/2: the cook keeps all 6 m².
    let area: f64 = m
        .triangles
        .iter()
        .map(|t| {
            cook::twice_area(
                m.vertices[t[0] as usize],
                m.vertices[t[1] as usize],
                m.vertices[t[2] as usize],
            ) / 2.0
        })
        .sum();
    assert!((area - 6.0).abs() < 1e-9, "{area}");
}

#[test]
fn degenerate_triangles_are_dropped_and_counted() {
    let mut p = box_primitive([0.0; 3], [0.5; 3], "concrete");
    // A triangle repeating a corner, and one whose corners lie on a line.
    let n = p.vertices.len() as u32;
    p.vertices.push(vertex([2.0, 0.0, 0.0]));
    p.vertices.push(vertex([3.0, 0.0, 0.0]));
    p.vertices.push(vertex([4.0, 0.0, 0.0]));
    p.indices.extend_from_slice(&[0, 0, 1, n, n + 1, n + 2]);
    let soup = cook::extract(&mesh_of(vec![p]), None);
    assert_eq!(soup.triangles.len(), 14);
    let w = cook::weld(&soup);
    assert_eq!(w.stats.triangles_in, 14);
    assert_eq!(w.stats.degenerate, 2);
    assert_eq!(w.triangles.len(), 12);
    // The collinear points are used by no surviving triangle, so they are not kept.
    assert_eq!(w.vertices.len(), 8);
}

#[test]
fn a_mesh_shared_by_two_nodes_and_two_placements_cooks_once() {
    let t = |x: f64| math::from_trs(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE);
    let model = flat_model(
        &[("a", t(0.0), Some(0)), ("b", t(5.0), Some(0))],
        vec![mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")])],
    );
    let mats = materials(&["concrete"]);
    let ids = parts::match_identities(&model, "test:model.glb", None);
    let mut col = MapCollision::new(AutoCollision::Mesh, None, None);
    let mut first = 0;
    for (k, instance) in [Guid([1; 16]), Guid([2; 16])].into_iter().enumerate() {
        let placement = Placement {
            instance_id: instance,
            pose: t(100.0 * k as f64),
            first_id: first,
            materials: &mats,
        };
        let table = parts::bake_parts_table(&model, &ids, &placement);
        first = table.next_id;
        let out = col.bake_instance(&model, &table, &placement, &[]);
        assert_eq!(out.colliders.iter().flatten().count(), 2);
    }
    assert_eq!(col.stats.cooked, 1);
    assert_eq!(col.stats.shared, 3);
    let done = col.finish("m.dh-map");
    assert_eq!(done.cook.meshes.len(), 1);
    assert_eq!(done.cook.entries.len(), 4);
    let ids: std::collections::BTreeSet<Guid> =
        done.cook.entries.iter().map(|e| e.object_id).collect();
    assert_eq!(ids.len(), 4, "each placement's parts are their own");
}

#[test]
fn sky_triangles_are_dropped_before_cooking() {
    let model = flat_model(
        &[
            ("dome", Mat4::IDENTITY, Some(0)),
            ("ground", Mat4::IDENTITY, Some(1)),
        ],
        vec![
            mesh_of(vec![box_primitive([0.0; 3], [50.0; 3], "SkyDome_mat")]),
            mesh_of(vec![
                box_primitive([0.0; 3], [0.5; 3], "concrete"),
                box_primitive([3.0, 0.0, 0.0], [0.5; 3], "Night_SKY"),
            ]),
        ],
    );
    let b = bake(&model, AutoCollision::Mesh);
    assert!(b.out.warnings.is_empty(), "skipping the sky is silent");
    assert!(b.out.colliders[part_index(&b, "dome")].is_none());
    let cook = &b.done.cook;
    assert_eq!(cook.meshes.len(), 1);
    assert_eq!(cook.meshes[0].triangles.len(), 12, "only the concrete box");
    assert_eq!(cook.meshes[0].slots, vec!["concrete".to_string()]);
}

#[test]
fn triggers_switched_off_parts_and_authored_colliders() {
    let t = |x: f64| math::from_trs(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE);
    let model = flat_model(
        &[
            ("water", t(0.0), Some(0)),
            ("hidden", t(3.0), Some(0)),
            ("railing", t(6.0), Some(0)),
            ("crate", t(9.0), Some(0)),
            ("ghost", t(12.0), Some(0)),
        ],
        vec![mesh_of(vec![box_primitive(
            [0.0; 3],
            [0.5, 0.25, 0.5],
            "concrete",
        )])],
    );
    let authored_box = Shape::Box(BoxShape {
        half_extents: Vec3([1.0, 2.0, 3.0]),
        ..BoxShape::default()
    });
    let states = vec![
        // water: a trigger with no shapes asks for the mode's shapes.
        PartState {
            enabled: true,
            collider: Some(Collider {
                state: Some(ColliderState::Trigger),
                ..Collider::default()
            }),
        },
        PartState {
            enabled: false,
            collider: None,
        },
        PartState {
            enabled: true,
            collider: Some(Collider {
                state: Some(ColliderState::Off),
                shapes: Some(vec![Shape::Auto(Default::default())]),
                ..Collider::default()
            }),
        },
        PartState {
            enabled: true,
            collider: Some(Collider {
                shapes: Some(vec![authored_box.clone()]),
                ..Collider::default()
            }),
        },
        PartState {
            enabled: true,
            collider: Some(Collider {
                shapes: Some(vec![]),
                ..Collider::default()
            }),
        },
    ];
    let b = bake_with(
        &model,
        AutoCollision::Mesh,
        None,
        Mat4::IDENTITY,
        &states,
        &materials(&["concrete"]),
        None,
    );
    // Nothing is cooked: the trigger, the switched-off part, the "off" railing, the
    // authored box and the empty collider all stay out of the cook.
    assert!(b.done.companion.is_none());
    assert!(b.done.cook.meshes.is_empty());
    let water = b.out.colliders[0]
        .as_ref()
        .expect("the trigger keeps its collider");
    assert_eq!(water.state, Some(ColliderState::Trigger));
    assert_eq!(water.generated, None);
    match water.shapes.as_deref() {
        Some([Shape::Box(bx)]) => {
            assert_eq!(bx.half_extents, Vec3([0.5, 0.25, 0.5]));
            assert_eq!(bx.auto, Some(true));
            assert_eq!(bx.material.as_deref(), Some("concrete"));
        }
        other => panic!("the trigger stands as its box: {other:?}"),
    }
    assert!(
        b.out.colliders[1].is_none(),
        "switched off: nothing generated"
    );
    let railing = b.out.colliders[2].as_ref().expect("kept");
    assert_eq!(railing.state, Some(ColliderState::Off));
    assert!(matches!(railing.shapes.as_deref(), Some([Shape::Box(bx)]) if bx.auto == Some(true)));
    let crate_ = b.out.colliders[3].as_ref().expect("kept");
    assert_eq!(
        format!("{:?}", crate_.shapes),
        format!("{:?}", Some(vec![authored_box]))
    );
    assert_eq!(crate_.generated, None);
    let ghost = b.out.colliders[4].as_ref().expect("kept");
    assert!(ghost.shapes.as_ref().is_some_and(Vec::is_empty));
}

#[test]
fn part_states_read_overrides_by_id_then_path() {
    use dh_content::schema::components::MapComponent;
    use dh_content::schema::records::PartOverride;
    let t = |x: f64| math::from_trs(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE);
    let model = flat_model(
        &[
            ("a", t(0.0), Some(0)),
            ("b", t(3.0), Some(0)),
            ("c", t(6.0), Some(0)),
        ],
        vec![mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")])],
    );
    let b = bake(&model, AutoCollision::Mesh);
    let parts = &b.table.parts;
    let overrides = vec![
        // By id: a's localId, switched off.
        PartOverride {
            id: parts[0].local_id,
            path: Some("somewhere/else".into()),
            enabled: Some(false),
            ..PartOverride::default()
        },
        // By path: b, made a trigger.
        PartOverride {
            path: Some("b".into()),
            components: vec![MapComponent::Collider(Collider {
                state: Some(ColliderState::Trigger),
                ..Collider::default()
            })],
            ..PartOverride::default()
        },
    ];
    let states = dh_content::colcook::part_states(parts, &overrides);
    assert_eq!(states.len(), 3);
    assert!(!states[0].enabled && states[0].collider.is_none());
    assert!(states[1].enabled);
    assert_eq!(
        states[1].collider.as_ref().and_then(|c| c.state),
        Some(ColliderState::Trigger)
    );
    assert!(states[2].enabled && states[2].collider.is_none());
}

#[test]
fn an_authored_auto_shape_in_mesh_mode_becomes_a_cooked_mesh_shape() {
    let model = unit_cube_model();
    let states = vec![PartState {
        enabled: true,
        collider: Some(Collider {
            material: Some("metal".into()),
            shapes: Some(vec![
                Shape::Box(BoxShape {
                    half_extents: Vec3([1.0; 3]),
                    ..BoxShape::default()
                }),
                Shape::Auto(Default::default()),
            ]),
            ..Collider::default()
        }),
    }];
    let b = bake_with(
        &model,
        AutoCollision::Mesh,
        None,
        Mat4::IDENTITY,
        &states,
        &materials(&["concrete", "metal"]),
        None,
    );
    let c = b.out.colliders[0].as_ref().expect("kept");
    assert_eq!(c.material.as_deref(), Some("metal"));
    let shapes = c.shapes.as_ref().expect("shapes");
    assert_eq!(shapes.len(), 2);
    assert!(matches!(&shapes[1], Shape::Mesh(m) if m.auto == Some(true)));
    // The entry names the shape's index, 1.
    assert_eq!(b.done.cook.entries.len(), 1);
    assert_eq!(b.done.cook.entries[0].shape, 1);
}

// ---- boxes mode ------------------------------------------------------------------------

#[test]
fn boxes_mode_gives_the_unit_cube_half_extents_one_half_posed_by_its_part() {
    let model = unit_cube_model();
    let pose = math::from_trs(
        DVec3::new(10.0, 2.0, -3.0),
        math::quat_from_euler_degrees(DVec3::new(0.0, 90.0, 0.0)),
        DVec3::ONE,
    );
    let b = bake_with(
        &model,
        AutoCollision::Boxes,
        None,
        pose,
        &[],
        &materials(&["concrete"]),
        None,
    );
    assert!(b.done.companion.is_none(), "boxes ship no cook");
    let c = b.out.colliders[0].as_ref().expect("generated");
    assert_eq!(c.generated, Some(true));
    match c.shapes.as_deref() {
        Some([Shape::Box(bx)]) => {
            assert_eq!(bx.half_extents, Vec3([0.5, 0.5, 0.5]));
            assert_eq!(bx.center, None, "centered on the part");
            assert_eq!(bx.rotation, None, "the part's own rotation orients it");
            assert_eq!(bx.material.as_deref(), Some("concrete"));
        }
        other => panic!("one box: {other:?}"),
    }
    // The part carries the pose: pivot at the placement, yawed 90° (quaternion
    // [0, sin 45°, 0, cos 45°]).
    let part = &b.table.parts[0];
    assert_eq!(part.pivot, Some(Vec3([10.0, 2.0, -3.0])));
    let q = part.rotation.expect("rotated").0;
    let h = std::f64::consts::FRAC_1_SQRT_2;
    for (a, e) in q.iter().zip([0.0, h, 0.0, h]) {
        assert!((a - e).abs() < 1e-9, "{q:?}");
    }
}

#[test]
fn boxes_mode_centers_an_offset_mesh_and_keeps_the_node_scale_out_of_the_shape() {
    let local = math::from_trs(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(2.0, 3.0, 4.0));
    let model = flat_model(
        &[("slab", local, Some(0))],
        vec![mesh_of(vec![box_primitive(
            [1.0, 2.0, 3.0],
            [0.5, 0.25, 1.0],
            "stone",
        )])],
    );
    let b = bake(&model, AutoCollision::Boxes);
    match shapes_of(&b, "slab").as_slice() {
        [Shape::Box(bx)] => {
            assert_eq!(bx.center, Some(Vec3([1.0, 2.0, 3.0])));
            assert_eq!(bx.half_extents, Vec3([0.5, 0.25, 1.0]));
            assert_eq!(bx.material.as_deref(), Some("stone"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(b.table.parts[0].scale, Some(Vec3([2.0, 3.0, 4.0])));
}

#[test]
fn the_dominant_material_is_weighted_by_area_not_by_triangle_count() {
    // "metal": one 4 m × 4 m quad, 2 triangles, 16 m². "stone": a 1 m cube, 12 triangles,
    // 6 m². By count stone wins; by area metal does.
    let quad = Primitive {
        vertices: vec![
            vertex([-2.0, 0.0, -2.0]),
            vertex([2.0, 0.0, -2.0]),
            vertex([2.0, 0.0, 2.0]),
            vertex([-2.0, 0.0, 2.0]),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some("metal".into()),
        ..Primitive::default()
    };
    let model = flat_model(
        &[
            ("mixed", Mat4::IDENTITY, Some(0)),
            ("unmapped", Mat4::IDENTITY, Some(1)),
        ],
        vec![
            mesh_of(vec![
                box_primitive([0.0, 0.5, 0.0], [0.5; 3], "stone"),
                quad,
            ]),
            mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "chalk")]),
        ],
    );
    let soup = cook::extract(&model.meshes[0], None);
    assert_eq!(
        dh_content::colcook::dominant_material(&soup, [1.0; 3]).as_deref(),
        Some("metal")
    );
    // Stretched 100× in Y, the quad (flat in Y) keeps its 16 m² while the cube's four
    // upright faces grow to 100 m² each: 402 m² of stone.
    assert_eq!(
        dh_content::colcook::dominant_material(&soup, [1.0, 100.0, 1.0]).as_deref(),
        Some("stone")
    );
    let b = bake(&model, AutoCollision::Boxes);
    match shapes_of(&b, "mixed").as_slice() {
        [Shape::Box(bx)] => assert_eq!(bx.material.as_deref(), Some("metal")),
        other => panic!("{other:?}"),
    }
    // A slot the map's table does not name bakes with none.
    match shapes_of(&b, "unmapped").as_slice() {
        [Shape::Box(bx)] => assert_eq!(bx.material, None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn size_guards_and_the_sky_skip_nodes_silently_in_boxes_and_hulls() {
    let model = flat_model(
        &[
            ("sheet", Mat4::IDENTITY, Some(0)),
            ("thin", Mat4::IDENTITY, Some(1)),
            ("huge", Mat4::IDENTITY, Some(2)),
            ("sky", Mat4::IDENTITY, Some(3)),
            ("wall", Mat4::IDENTITY, Some(4)),
            (
                "shrunk",
                math::from_trs(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 0.001, 1.0)),
                Some(4),
            ),
        ],
        vec![
            // 0.5 mm thick, thinner than 1 mm.
            mesh_of(vec![box_primitive(
                [0.0; 3],
                [1.0, 0.00025, 1.0],
                "concrete",
            )]),
            // 2 mm thick: kept.
            mesh_of(vec![box_primitive([0.0; 3], [1.0, 0.001, 1.0], "concrete")]),
            // 1000 m long, larger than 900 m.
            mesh_of(vec![box_primitive([0.0; 3], [500.0, 1.0, 1.0], "concrete")]),
            mesh_of(vec![box_primitive([0.0; 3], [1.0; 3], "skybox")]),
            mesh_of(vec![box_primitive([0.0; 3], [1.0; 3], "concrete")]),
        ],
    );
    for mode in [AutoCollision::Boxes, AutoCollision::Hulls] {
        let b = bake(&model, mode);
        assert!(b.out.warnings.is_empty(), "{mode:?}: {:?}", b.out.warnings);
        for skipped in ["sheet", "huge", "sky"] {
            assert!(
                b.out.colliders[part_index(&b, skipped)].is_none(),
                "{mode:?}: '{skipped}' is skipped"
            );
        }
        // Posed: a 2 m wall scaled to 2 mm in Y is still inside the guard; not below it.
        for kept in ["thin", "wall", "shrunk"] {
            assert!(
                b.out.colliders[part_index(&b, kept)].is_some(),
                "{mode:?}: '{kept}' is baked"
            );
        }
        // Skipped parts keep their table entries.
        assert_eq!(b.table.parts.len(), 6);
    }
    // The guards are the baking modes' own: mesh mode cooks the sheet and the huge node.
    let b = bake(&model, AutoCollision::Mesh);
    for cooked in ["sheet", "huge", "thin", "wall"] {
        assert!(
            b.out.colliders[part_index(&b, cooked)].is_some(),
            "{cooked}"
        );
    }
    assert!(b.out.colliders[part_index(&b, "sky")].is_none());
}

// ---- hulls mode ------------------------------------------------------------------------

#[test]
fn the_hull_of_a_cube_is_its_eight_corners() {
    let model = unit_cube_model();
    let b = bake(&model, AutoCollision::Hulls);
    let c = b.out.colliders[0].as_ref().expect("generated");
    assert_eq!(c.generated, Some(true));
    let shapes = c.shapes.as_ref().expect("shapes");
    assert_eq!(shapes.len(), 1, "a cube is convex: one piece");
    let Shape::Hull(h) = &shapes[0] else {
        panic!("a hull: {:?}", shapes[0]);
    };
    assert_eq!(h.material.as_deref(), Some("concrete"));
    let pts: Vec<[f32; 3]> = h.points.iter().map(|p| p.0.map(|c| c as f32)).collect();
    assert_eq!(sorted(pts), sorted(corners(0.5)));
}

#[test]
fn an_l_shaped_wall_keeps_its_notch() {
    // Two boxes: [0, 2] x [0, 1] and [0, 1] x [1, 2] (1 m deep): an L whose notch is the
    // empty square [1, 2] x [1, 2]. One hull over both arms would fill it.
    let model = flat_model(
        &[("wall", Mat4::IDENTITY, Some(0))],
        vec![mesh_of(vec![
            box_primitive([1.0, 0.5, 0.5], [1.0, 0.5, 0.5], "stone"),
            box_primitive([0.5, 1.5, 0.5], [0.5, 0.5, 0.5], "stone"),
        ])],
    );
    let b = bake(&model, AutoCollision::Hulls);
    let shapes = shapes_of(&b, "wall");
    assert!(shapes.len() >= 2, "{} hull(s)", shapes.len());
    for s in &shapes {
        let Shape::Hull(h) = s else { panic!("{s:?}") };
        let far_x = h.points.iter().any(|p| p.0[0] > 1.25);
        let far_y = h.points.iter().any(|p| p.0[1] > 1.25);
        assert!(!(far_x && far_y), "a hull spans the notch: {:?}", h.points);
    }
}

/// A UV sphere: `rings` bands of `segments` quads, poles shared.
fn sphere_primitive(radius: f32, segments: u32, rings: u32) -> Primitive {
    let mut vertices = vec![vertex([0.0, radius, 0.0])];
    for r in 1..rings {
        let phi = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let th = std::f32::consts::TAU * s as f32 / segments as f32;
            vertices.push(vertex([
                radius * phi.sin() * th.cos(),
                radius * phi.cos(),
                radius * phi.sin() * th.sin(),
            ]));
        }
    }
    let bottom = vertices.len() as u32;
    vertices.push(vertex([0.0, -radius, 0.0]));
    let ring = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
    let mut indices = Vec::new();
    for s in 0..segments {
        indices.extend_from_slice(&[0, ring(1, s + 1), ring(1, s)]);
        indices.extend_from_slice(&[bottom, ring(rings - 1, s), ring(rings - 1, s + 1)]);
        for r in 1..rings - 1 {
            let (a, b, c, d) = (
                ring(r, s),
                ring(r, s + 1),
                ring(r + 1, s + 1),
                ring(r + 1, s),
            );
            indices.extend_from_slice(&[a, b, c, a, c, d]);
        }
    }
    Primitive {
        vertices,
        indices,
        material: Some("stone".into()),
        ..Primitive::default()
    }
}

#[test]
fn max_vertices_per_hull_bounds_every_hull() {
    let model = flat_model(
        &[("ball", Mat4::IDENTITY, Some(0))],
        vec![mesh_of(vec![sphere_primitive(1.0, 16, 8)])],
    );
    // 16 × 7 ring vertices + 2 poles = 114 points on the sphere, all on its hull.
    assert_eq!(model.meshes[0].primitives[0].vertices.len(), 114);
    let opts = HullOptions {
        max_vertices_per_hull: Some(16),
        max_convex_hulls: Some(4),
        resolution: Some(50_000),
        ..HullOptions::default()
    };
    let b = bake_with(
        &model,
        AutoCollision::Hulls,
        Some(&opts),
        Mat4::IDENTITY,
        &[],
        &materials(&["stone"]),
        None,
    );
    let shapes = shapes_of(&b, "ball");
    assert!(!shapes.is_empty() && shapes.len() <= 4, "{}", shapes.len());
    for s in &shapes {
        let Shape::Hull(h) = s else { panic!("{s:?}") };
        assert!((4..=16).contains(&h.points.len()), "{}", h.points.len());
        // Every kept point is a point of the sphere's surface.
        for p in &h.points {
            let r = (p.0[0] * p.0[0] + p.0[1] * p.0[1] + p.0[2] * p.0[2]).sqrt();
            assert!(r <= 1.0 + 1e-5, "{r}");
        }
    }
}

#[test]
fn hull_options_map_onto_the_decomposition() {
    use dh_content::colcook::hulls::{axis_resolution, parameters};
    // 400 000 voxels in a cube: 73.7 per side, rounded to 74.
    assert_eq!(axis_resolution([1.0, 1.0, 1.0], 400_000), 74);
    // A 4 × 1 × 1 box: edge = cbrt(4 / 400000) ≈ 0.021544, 4 / edge ≈ 185.7 → 186.
    assert_eq!(axis_resolution([4.0, 1.0, 1.0], 400_000), 186);
    let p = parameters(&HullOptions::default(), [1.0; 3]);
    assert_eq!(p.max_convex_hulls, 64);
    assert!((p.concavity - 0.01).abs() < 1e-9);
    let p = parameters(
        &HullOptions {
            min_volume_percent_error: Some(5.0),
            max_convex_hulls: Some(3),
            ..HullOptions::default()
        },
        [1.0; 3],
    );
    assert_eq!(p.max_convex_hulls, 3);
    assert!((p.concavity - 0.05).abs() < 1e-9);
}

// ---- false, collapsed subtrees -----------------------------------------------------------

fn collapsed_model() -> Model {
    let zero_x = math::from_trs(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(0.0, 1.0, 1.0));
    let zero_y = math::from_trs(
        DVec3::new(5.0, 0.0, 0.0),
        DQuat::IDENTITY,
        DVec3::new(1.0, 0.0, 1.0),
    );
    let mut m = flat_model(
        &[
            ("templates", zero_x, None),
            ("prop", Mat4::IDENTITY, Some(0)),
            ("marker", Mat4::IDENTITY, None),
            ("parked", zero_y, Some(0)),
            ("floor", Mat4::IDENTITY, Some(0)),
        ],
        vec![mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")])],
    );
    // prop and marker live under templates.
    m.roots = vec![0, 3, 4];
    m.nodes[0].children = vec![1, 2];
    m.nodes[1].parent = Some(0);
    m.nodes[2].parent = Some(0);
    m
}

const COLLAPSED: &str = "autoCollision: collapsed subtree: 2 subtree(s), 4 node(s) in all, have a world transform with no inverse (an exactly zero scale axis) and bake no collision; they keep their part entries: 'templates', 'parked'";

#[test]
fn collapsed_subtrees_are_named_once_in_every_mode() {
    let model = collapsed_model();
    for mode in [
        AutoCollision::Mesh,
        AutoCollision::Boxes,
        AutoCollision::Hulls,
        AutoCollision::Off,
    ] {
        let b = bake(&model, mode);
        assert_eq!(b.out.warnings, vec![COLLAPSED.to_string()], "{mode:?}");
        assert_eq!(b.table.parts.len(), 5, "collapsed parts keep their entries");
        for gone in ["templates", "prop", "marker", "parked"] {
            assert!(
                b.out.colliders[part_index(&b, gone)].is_none(),
                "{mode:?} {gone}"
            );
        }
        let floor = b.out.colliders[part_index(&b, "floor")].is_some();
        assert_eq!(floor, mode != AutoCollision::Off, "{mode:?}");
    }
}

#[test]
fn false_generates_nothing_and_cooks_nothing() {
    let b = bake(&unit_cube_model(), AutoCollision::Off);
    assert!(b.out.colliders.iter().all(Option::is_none));
    assert!(b.out.warnings.is_empty());
    assert!(b.done.companion.is_none());
}

#[test]
fn apply_puts_the_collider_first_and_replaces_an_old_one() {
    let mut b = bake(&unit_cube_model(), AutoCollision::Mesh);
    b.out.apply(&mut b.table.parts);
    b.out.apply(&mut b.table.parts);
    let comps = &b.table.parts[0].components;
    let colliders = comps
        .iter()
        .filter(|c| matches!(c, ObjectComponent::Collider(_)))
        .count();
    assert_eq!(colliders, 1);
    assert!(matches!(&comps[0], ObjectComponent::Collider(c) if c.inner.generated == Some(true)));
    assert!(matches!(comps.get(1), Some(ObjectComponent::Renderer(_))));
}

// ---- the companion's bytes ---------------------------------------------------------------

fn cube_companion() -> Vec<u8> {
    bake(&unit_cube_model(), AutoCollision::Mesh)
        .done
        .companion
        .expect("a companion")
        .bytes
}

#[test]
fn the_companion_round_trips() {
    let bytes = cube_companion();
    let cook = decode_companion(&bytes, "x").expect("decodes");
    assert_eq!(encode_companion(&cook), bytes);
    let mesh_bytes = encode_mesh(&cook.meshes[0]);
    assert_eq!(
        decode_mesh(&mesh_bytes, "m").expect("decodes"),
        cook.meshes[0]
    );
    // The header as the format says: magic, version 5, reserved zero, key, two counts.
    assert_eq!(&bytes[0..8], b"DHCOLCOK");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 5);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 0);
    assert_eq!(u64::from_le_bytes(bytes[48..56].try_into().unwrap()), 1);
    assert_eq!(u64::from_le_bytes(bytes[56..64].try_into().unwrap()), 1);
    // One mesh: 64 header + 24 entry + 8 length + a mesh of 80 header, one 8-byte slot
    // name ("concrete") with its 4-byte length, 8 × 12 vertices, 12 × 14 triangles, and
    // its BVH nodes at 32 bytes each.
    let nodes = cook.meshes[0].nodes.len();
    assert_eq!(bytes.len(), 64 + 24 + 8 + 80 + 12 + 96 + 168 + 32 * nodes);
}

#[test]
fn a_companion_truncated_at_every_byte_is_refused() {
    let bytes = cube_companion();
    for n in 0..bytes.len() {
        assert!(
            decode_companion(&bytes[..n], "cut").is_err(),
            "a companion cut to {n} bytes read"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    let e = decode_companion(&long, "long.dh-colcook").expect_err("trailing byte");
    assert!(
        e.to_string().starts_with("long.dh-colcook: end at byte"),
        "{e}"
    );
}

#[test]
fn every_single_bit_flip_is_refused_or_reads_back_to_the_same_bytes() {
    let bytes = cube_companion();
    let mut read = Vec::new();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            if let Ok(c) = decode_companion(&b, "flip") {
                // A flip in a float or a key can still be a valid file; then it is that file.
                assert_eq!(encode_companion(&c), b, "byte {i} bit {bit}");
                read.push(i);
            }
        }
    }
    // Magic, version and reserved word (bytes 0..16) and the two counts (48..64) refuse
    // every flip; so does the entry's mesh index (84..88: 64 + 16 + 4).
    for i in &read {
        assert!(
            !(0..16).contains(i) && !(48..64).contains(i) && !(84..88).contains(i),
            "a flip at byte {i} read"
        );
    }
}

#[test]
fn inconsistent_meshes_are_refused_naming_the_place() {
    let cook = decode_companion(&cube_companion(), "x").expect("decodes");
    let good = encode_mesh(&cook.meshes[0]);
    let tri_at = 80 + 12 + 96;
    // A triangle index past the 8 vertices.
    let mut bad = good.clone();
    bad[tri_at..tri_at + 4].copy_from_slice(&8u32.to_le_bytes());
    let e = decode_mesh(&bad, "bad.dhcol").expect_err("out of range");
    assert_eq!(e.place, "triangle 0");
    assert_eq!(e.offset, tri_at as u64);
    // The root's child pointing at itself.
    let nodes_at = tri_at + 12 * 14;
    let mut bad = good.clone();
    if cook.meshes[0].nodes[0].count == 0 {
        bad[nodes_at + 24..nodes_at + 28].copy_from_slice(&0u32.to_le_bytes());
        let e = decode_mesh(&bad, "bad.dhcol").expect_err("a cycle");
        assert_eq!(e.place, "BVH node 0");
    }
    // A vertex count no file of this length can hold.
    let mut bad = good.clone();
    bad[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = decode_mesh(&bad, "bad.dhcol").expect_err("huge count");
    assert_eq!(e.place, "vertex count");
    // A wrong version.
    let mut bad = good;
    bad[8] = 4;
    assert_eq!(
        decode_mesh(&bad, "bad.dhcol").expect_err("version").place,
        "version"
    );
}

// ---- the BVH ---------------------------------------------------------------------------

/// An independent ray/triangle test in f64 (Möller–Trumbore), for the brute-force side.
fn brute_hit(v: &[[f32; 3]], t: &[u32; 3], o: [f64; 3], d: [f64; 3]) -> Option<f64> {
    let p = |i: u32| v[i as usize].map(f64::from);
    let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
    let sub = |x: [f64; 3], y: [f64; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let cross = |x: [f64; 3], y: [f64; 3]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (e1, e2) = (sub(b, a), sub(c, a));
    let h = cross(d, e2);
    let det = dot(e1, h);
    if det.abs() < 1e-15 {
        return None;
    }
    let s = sub(o, a);
    let u = dot(s, h) / det;
    let q = cross(s, e1);
    let w = dot(d, q) / det;
    let dist = dot(e2, q) / det;
    (u >= 0.0 && w >= 0.0 && u + w <= 1.0 && dist >= 0.0).then_some(dist)
}

#[test]
fn bvh_ray_casts_agree_with_brute_force() {
    // A 40 × 40 terrain of quads with a bumpy height, plus the cube floating above it.
    let n = 40u32;
    let mut verts = Vec::new();
    for z in 0..=n {
        for x in 0..=n {
            let (fx, fz) = (x as f32 * 0.5, z as f32 * 0.5);
            verts.push(vertex([fx, (fx * 0.7).sin() + (fz * 1.3).cos() * 0.5, fz]));
        }
    }
    let mut indices = Vec::new();
    for z in 0..n {
        for x in 0..n {
            let i = z * (n + 1) + x;
            indices.extend_from_slice(&[i, i + 1, i + n + 2, i, i + n + 2, i + n + 1]);
        }
    }
    let terrain = Primitive {
        vertices: verts,
        indices,
        material: Some("grass".into()),
        ..Primitive::default()
    };
    let mesh = mesh_of(vec![
        terrain,
        box_primitive([10.0, 4.0, 10.0], [1.0; 3], "rock"),
    ]);
    let (m, stats) = cook::cook(&cook::extract(&mesh, None), [0; 32]);
    assert_eq!(stats.triangles_in, 2 * 40 * 40 + 12);
    assert_eq!(m.triangles.len(), stats.triangles_in - stats.degenerate);
    assert!(m.nodes.len() > 1);
    // Every triangle keeps its material through the BVH's reordering: the rock's 12.
    let rock = m.slots.iter().position(|s| s == "rock").unwrap() as u16;
    assert_eq!(m.materials.iter().filter(|s| **s == rock).count(), 12);
    assert!(m.materials.iter().all(|s| *s != NO_MATERIAL));
    let mut checked = 0;
    for k in 0..400u32 {
        let o = [(k % 20) as f32 + 0.37, 12.0, (k / 20) as f32 + 0.11];
        let d = [
            0.05 * ((k % 7) as f32 - 3.0),
            -1.0,
            0.03 * ((k % 5) as f32 - 2.0),
        ];
        let bvh = m.ray_cast(o, d, 100.0).map(|h| h.0 as f64);
        let brute = m
            .triangles
            .iter()
            .filter_map(|t| brute_hit(&m.vertices, t, o.map(f64::from), d.map(f64::from)))
            .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.min(x))));
        match (bvh, brute) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-3, "ray {k}: {a} vs {b}"),
            (None, None) => {}
            other => panic!("ray {k}: {other:?}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 400);
}

// ---- the cache and the load-time cook ----------------------------------------------------

#[test]
fn a_cache_hit_returns_identical_bytes() {
    let dir = temp_dir("hit");
    let model = unit_cube_model();
    let mats = materials(&["concrete"]);
    let run = || {
        let ids = parts::match_identities(&model, "test:model.glb", None);
        let placement = Placement {
            instance_id: INSTANCE,
            pose: glam::DMat4::IDENTITY,
            first_id: 0,
            materials: &mats,
        };
        let table = parts::bake_parts_table(&model, &ids, &placement);
        let mut col = MapCollision::new(AutoCollision::Mesh, None, Some(CookCache::new(&dir)));
        let _ = col.bake_instance(&model, &table, &placement, &[]);
        let stats = col.stats;
        (stats, col.finish("m.dh-map"))
    };
    let (cold, first) = run();
    assert_eq!((cold.cooked, cold.cache_hits), (1, 0));
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let key = first.cook.meshes[0].key;
    let cache = CookCache::new(&dir);
    let entry = std::fs::read(cache.path(&key)).expect("the entry was written");
    assert_eq!(entry, encode_mesh(&first.cook.meshes[0]));
    let (warm, second) = run();
    assert_eq!((warm.cooked, warm.cache_hits), (0, 1));
    assert_eq!(
        second.companion.as_ref().map(|c| &c.bytes),
        first.companion.as_ref().map(|c| &c.bytes)
    );
    assert_eq!(cache.read_bytes(&key), Some(entry.clone()));
    // A truncated entry reads as a miss, and the next cook writes it whole again.
    std::fs::write(cache.path(&key), &entry[..entry.len() - 1]).unwrap();
    assert_eq!(cache.read(&key), None);
    let (again, _) = run();
    assert_eq!((again.cooked, again.cache_hits), (1, 0));
    assert_eq!(std::fs::read(cache.path(&key)).unwrap(), entry);
    // Switched off, the cache neither reads nor writes.
    let off = CookCache {
        enabled: false,
        ..CookCache::new(&dir)
    };
    assert_eq!(off.read(&key), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_load_time_cook_matches_the_shipped_one() {
    let t = |x: f64| math::from_trs(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE);
    let model = flat_model(
        &[
            ("a", t(0.0), Some(0)),
            ("b", t(4.0), Some(1)),
            ("c", t(8.0), Some(0)),
        ],
        vec![
            mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")]),
            mesh_of(vec![sphere_primitive(1.0, 8, 4)]),
        ],
    );
    let pose = math::from_trs(
        DVec3::new(1.0, 2.0, 3.0),
        math::quat_from_euler_degrees(DVec3::new(0.0, 30.0, 0.0)),
        DVec3::ONE,
    );
    let mut b = bake_with(
        &model,
        AutoCollision::Mesh,
        None,
        pose,
        &[],
        &materials(&["concrete", "stone"]),
        None,
    );
    b.out.apply(&mut b.table.parts);
    let loaded = cook_at_load(&model, &pose, &b.table.parts, None);
    assert_eq!(loaded.entries, b.done.cook.entries);
    assert_eq!(loaded.meshes, b.done.cook.meshes);
    assert_eq!(loaded.meshes.len(), 2);
    let a = b.table.parts[part_index(&b, "a")].object_id.unwrap();
    assert_eq!(loaded.mesh_for(a, 0).map(|m| m.triangles.len()), Some(12));
}

// ---- a real fixture ------------------------------------------------------------------------

#[test]
fn box_glb_cooks_to_twelve_triangles_over_eight_vertices() {
    let Some(bytes) = support::fixture("gltf/Box.glb") else {
        println!("skipped: ../shared/fixtures/gltf/Box.glb is absent");
        return;
    };
    let model = dh_content::gltf::import_glb(&bytes, "Box.glb").expect("imports");
    let b = bake(&model, AutoCollision::Mesh);
    let cook = &b.done.cook;
    assert_eq!(cook.meshes.len(), 1);
    // The Khronos Box: 24 vertices (4 per face), 12 triangles, a 1 m cube.
    assert_eq!(cook.meshes[0].triangles.len(), 12);
    assert_eq!(cook.meshes[0].vertices.len(), 8);
    assert_eq!(
        sorted(cook.meshes[0].vertices.clone()),
        sorted(corners(0.5))
    );
    let b = bake(&model, AutoCollision::Boxes);
    let boxes: Vec<&BoxShape> = b
        .out
        .colliders
        .iter()
        .flatten()
        .flat_map(|c| c.shapes.iter().flatten())
        .filter_map(|s| match s {
            Shape::Box(bx) => Some(bx),
            _ => None,
        })
        .collect();
    assert_eq!(boxes.len(), 1);
    for (a, e) in boxes[0].half_extents.0.iter().zip([0.5; 3]) {
        assert!((a - e).abs() < 1e-6, "{:?}", boxes[0].half_extents);
    }
}

// ---- fuzz corpus -----------------------------------------------------------------------

#[test]
fn colcook_corpus_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/colcook");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "the colcook corpus has {} files",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_colcook(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

/// Writes the corpus seeds (run with `--ignored` after a format change).
#[test]
#[ignore]
fn write_colcook_corpus_seeds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/colcook");
    std::fs::create_dir_all(&dir).unwrap();
    let companion = cube_companion();
    let cook = decode_companion(&companion, "x").unwrap();
    let mesh = encode_mesh(&cook.meshes[0]);
    let write = |name: &str, selector: u8, body: &[u8]| {
        let mut b = vec![selector];
        b.extend_from_slice(body);
        std::fs::write(dir.join(name), b).unwrap();
    };
    write("cube-companion", 0, &companion);
    write("cube-mesh", 1, &mesh);
    write("cube-companion-cut", 0, &companion[..companion.len() / 2]);
    let empty = encode_mesh(&dh_content::colcook::CookedMesh::default());
    write("empty-mesh", 1, &empty);
}

// ---- the load cache (runtime assets, "Cooked map collision") -------------------------------

use dh_content::colcook::cache::{
    cook_placement_at_load, load_key, read_geometry_from, LoadedCook,
};
use dh_content::colcook::format::{decode_geometry, encode_geometry, GeometryEntry};
use dh_content::schema::records::Part;

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: an independent
/// reference for the pallet's checksums.
fn crc32_reference(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The folded CRC32 the pallet's file table records for an entry with only a MIME type
/// (`pallet` module docs, "Checksums"): CRC32 of the raw bytes ‖ `"DHPF"` ‖ u32 formula
/// version 1 ‖ u8 filter 0 ‖ u8 wrap 0 ‖ u8 color space 0 ‖ u16 MIME length ‖ MIME.
fn folded_reference(raw: &[u8], mime: &str) -> u32 {
    let mut b = raw.to_vec();
    b.extend_from_slice(b"DHPF");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[0, 0, 0]);
    b.extend_from_slice(&(mime.len() as u16).to_le_bytes());
    b.extend_from_slice(mime.as_bytes());
    crc32_reference(&b)
}

fn unhex(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[i * 2..i * 2 + 2], 16).unwrap();
    }
    out
}

/// The key's preimage is the format version (u32 5), the path's length (u64) and bytes, the
/// CRC32 (u32) and the length (u64), little-endian. The digests were computed outside this
/// code (Python's `hashlib.sha256` over those bytes).
#[test]
fn the_load_key_is_sha256_over_version_path_crc_and_length() {
    assert_eq!(dh_content::colcook::FORMAT_VERSION, 5);
    assert_eq!(
        load_key("meshes/city.glb", 0xCBF4_3926, 9),
        unhex("413773376025357c526354a222393fcee354246d7fd40372c2282268b07a5ec2")
    );
    // Each ingredient changes it.
    let k = load_key("meshes/city.glb", 0xCBF4_3926, 9);
    assert_ne!(k, load_key("meshes/city2.glb", 0xCBF4_3926, 9));
    assert_ne!(k, load_key("meshes/city.glb", 0xCBF4_3927, 9));
    assert_ne!(k, load_key("meshes/city.glb", 0xCBF4_3926, 10));
}

/// The signature is the pallet file table's: the folded CRC32 and the uncompressed length,
/// read without touching the entry's bytes.
#[test]
fn the_load_key_signature_is_the_pallet_file_tables() {
    use dh_content::pallet::{CodecChoice, EntryMeta, Manifest, Pallet, PalletWriter};
    let mime = "model/gltf-binary";
    let mut w = PalletWriter::new(Manifest::new("dev.example.keys", "Keys", "1.0.0")).unwrap();
    w.add(
        "meshes/a.glb",
        b"123456789".to_vec(),
        EntryMeta::mime(mime),
        CodecChoice::Stored,
    )
    .unwrap();
    let zeros = vec![0u8; 4096];
    w.add(
        "meshes/zeros.glb",
        zeros.clone(),
        EntryMeta::mime(mime),
        CodecChoice::Auto,
    )
    .unwrap();
    let p = Pallet::from_bytes(w.finish().unwrap()).unwrap();
    // CRC32("123456789") is the standard check value 0xCBF43926; folded, 0x66878632.
    assert_eq!(crc32_reference(b"123456789"), 0xCBF4_3926);
    assert_eq!(folded_reference(b"123456789", mime), 0x6687_8632);
    let a = p.entry("meshes/a.glb").unwrap();
    assert_eq!(a.signature(), (0x6687_8632, 9));
    assert_eq!(
        load_key(a.path, a.signature().0, a.signature().1),
        unhex("a8249dfb12d436ae68d88aaac710f7708f42bbeb6f5981aa3a2f33164d4afba8")
    );
    // A compressed entry signs with its uncompressed length.
    let z = p.entry("meshes/zeros.glb").unwrap();
    assert!(z.stored_len < 4096, "the zeros compress: {}", z.stored_len);
    assert_eq!(z.signature(), (folded_reference(&zeros, mime), 4096));
}

/// Nodes `a`, `b`, `c` along X (`a` and `c` share a box mesh, `b` a sphere), `d` turned
/// 45° about Y drawing the box, `e` drawing nothing; placed turned 30° and stretched 2×
/// along its X, so `d`'s triangles carry a shear into its part frame and the others none.
/// The compiled parts (colliders explicit), plus one part whose path names no node.
fn load_fixture() -> (Model, Mat4, Vec<Part>) {
    let t = |x: f64| math::from_trs(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY, DVec3::ONE);
    let d = math::from_trs(
        DVec3::new(12.0, 0.0, 0.0),
        math::quat_from_euler_degrees(DVec3::new(0.0, 45.0, 0.0)),
        DVec3::ONE,
    );
    let model = flat_model(
        &[
            ("a", t(0.0), Some(0)),
            ("b", t(4.0), Some(1)),
            ("c", t(8.0), Some(0)),
            ("d", d, Some(0)),
            ("e", t(16.0), None),
        ],
        vec![
            mesh_of(vec![box_primitive([0.0; 3], [0.5; 3], "concrete")]),
            mesh_of(vec![sphere_primitive(1.0, 8, 4)]),
        ],
    );
    let pose = math::from_trs(
        DVec3::new(1.0, 2.0, 3.0),
        math::quat_from_euler_degrees(DVec3::new(0.0, 30.0, 0.0)),
        DVec3::new(2.0, 1.0, 1.0),
    );
    let mut b = bake_with(
        &model,
        AutoCollision::Mesh,
        None,
        pose,
        &[],
        &materials(&["concrete", "stone"]),
        None,
    );
    b.out.apply(&mut b.table.parts);
    let mut parts = b.table.parts.clone();
    let mut ghost = parts[part_index(&b, "a")].clone();
    ghost.path = Some("nowhere".into());
    ghost.object_id = Some(Guid([0x99; 16]));
    parts.push(ghost);
    (model, pose, parts)
}

fn load(
    cache: Option<&CookCache>,
    key: &[u8; 32],
    pose: &Mat4,
    parts: &[Part],
    model: Option<&Model>,
) -> LoadedCook {
    cook_placement_at_load(cache, key, pose, parts, || {
        model.ok_or("the model was read")
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_warm_load_reads_the_entry_alone_and_equals_the_cold_cook_byte_for_byte() {
    let dir = temp_dir("load-warm");
    let cache = CookCache::new(&dir);
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 0x1234_5678, 4321);
    let cold = load(Some(&cache), &key, &pose, &parts, Some(&model));
    // a and c share a cook, b has its own, d (sheared) its own: three meshes.
    assert!(!cold.stats.hit);
    assert_eq!((cold.stats.cooked, cold.stats.reused), (3, 0));
    assert!(cold.warnings.is_empty(), "{:?}", cold.warnings);
    assert_eq!(cold.cook.meshes.len(), 3);
    assert_eq!(cold.cook.key, key);
    let file = std::fs::read(cache.path(&key)).expect("the entry was written");
    assert_eq!(&file[..8], b"DHCOLGEO");
    let entry = decode_geometry(&file, "entry").expect("the entry decodes");
    assert_eq!(encode_geometry(&entry), file);
    // Rows: a, b, c, d, and `nowhere` (no mesh).
    let mut rows: Vec<(&str, bool)> = entry
        .rows
        .iter()
        .map(|r| (r.path.as_str(), r.mesh.is_some()))
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("a", true),
            ("b", true),
            ("c", true),
            ("d", true),
            ("nowhere", false)
        ]
    );
    // The warm load never calls the import (it would fail the load).
    let warm = load(Some(&cache), &key, &pose, &parts, None);
    assert!(warm.stats.hit);
    assert_eq!((warm.stats.cooked, warm.stats.reused), (0, 0));
    assert_eq!(warm.stats.triangles, cold.stats.triangles);
    assert_eq!(warm.cook, cold.cook);
    assert_eq!(encode_companion(&warm.cook), encode_companion(&cold.cook));
    // The leaf trees read back as valid trees: the companion decodes.
    let bytes = encode_companion(&warm.cook);
    assert_eq!(decode_companion(&bytes, "x").unwrap(), warm.cook);
    // The entry was not rewritten by the hit.
    assert_eq!(std::fs::read(cache.path(&key)).unwrap(), file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_load_cook_matches_cook_at_load_shape_for_shape() {
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 1, 2);
    let ours = load(None, &key, &pose, &parts, Some(&model)).cook;
    let theirs = cook_at_load(&model, &pose, &parts, None);
    assert_eq!(ours.entries.len(), theirs.entries.len());
    assert_eq!(ours.entries.len(), 4, "a, b, c, d: one mesh shape each");
    type Tri = ([[u32; 3]; 3], u16);
    let tris = |m: &dh_content::colcook::CookedMesh| -> Vec<Tri> {
        let mut v: Vec<Tri> = m
            .triangles
            .iter()
            .zip(&m.materials)
            .map(|(t, mat)| (t.map(|i| m.vertices[i as usize].map(f32::to_bits)), *mat))
            .collect();
        v.sort();
        v
    };
    for e in &theirs.entries {
        let a = ours.mesh_for(e.object_id, e.shape).expect("the same entry");
        let b = theirs.mesh_for(e.object_id, e.shape).unwrap();
        assert_eq!(a.vertices, b.vertices);
        assert_eq!(a.slots, b.slots);
        assert_eq!(tris(a), tris(b));
        // One leaf over every triangle.
        assert_eq!(a.nodes.len(), 1);
        assert_eq!(
            (a.nodes[0].first, a.nodes[0].count),
            (0, a.triangles.len() as u32)
        );
    }
}

#[test]
fn a_changed_signature_misses_and_cooks_again() {
    let dir = temp_dir("load-changed");
    let cache = CookCache::new(&dir);
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 7, 100);
    let _ = load(Some(&cache), &key, &pose, &parts, Some(&model));
    // The model edited: its CRC32 (or only its length) changed, so the key did.
    for changed in [
        load_key("meshes/test.glb", 8, 100),
        load_key("meshes/test.glb", 7, 101),
        load_key("meshes/other.glb", 7, 100),
    ] {
        assert_ne!(changed, key);
        assert!(cache.read_geometry(&changed).is_none());
        // An entry copied under another key's name is a miss too (it names its own key).
        std::fs::copy(cache.path(&key), cache.path(&changed)).unwrap();
        assert!(cache.read_geometry(&changed).is_none());
        let again = load(Some(&cache), &changed, &pose, &parts, Some(&model));
        assert!(!again.stats.hit);
        assert_eq!(again.stats.cooked, 3);
        assert!(cache.read_geometry(&changed).is_some());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_or_inconsistent_entry_misses_and_is_written_whole_again() {
    let dir = temp_dir("load-truncated");
    let cache = CookCache::new(&dir);
    let model = unit_cube_model();
    let mut b = bake(&model, AutoCollision::Mesh);
    b.out.apply(&mut b.table.parts);
    let parts = b.table.parts.clone();
    let key = load_key("meshes/cube.glb", 1, 1);
    let pose = Mat4::IDENTITY;
    let cold = load(Some(&cache), &key, &pose, &parts, Some(&model));
    let entry = std::fs::read(cache.path(&key)).unwrap();
    for cut in 0..entry.len() {
        std::fs::write(cache.path(&key), &entry[..cut]).unwrap();
        assert!(cache.read_geometry(&key).is_none(), "cut at {cut}");
        assert!(decode_geometry(&entry[..cut], "x").is_err(), "cut at {cut}");
    }
    // One byte too many, a wrong version, a reserved byte set, a vertex made NaN.
    let mut padded = entry.clone();
    padded.push(0);
    let mut version = entry.clone();
    version[8] = 4;
    let mut reserved = entry.clone();
    reserved[12] = 1;
    let mut nan = entry.clone();
    let cube = &cold.cook.meshes[0];
    let first_vertex = nan.len() - cube.triangles.len() * (3 * 2 + 1) - cube.vertices.len() * 12;
    nan[first_vertex..first_vertex + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    for bad in [&padded, &version, &reserved, &nan] {
        std::fs::write(cache.path(&key), bad).unwrap();
        assert!(cache.read_geometry(&key).is_none());
        let again = load(Some(&cache), &key, &pose, &parts, Some(&model));
        assert!(!again.stats.hit);
        assert_eq!(again.stats.cooked, 1);
        assert_eq!(std::fs::read(cache.path(&key)).unwrap(), entry);
    }
    // Regression (fuzz `colcook_geometry`): a NaN in a row's world matrix or a mesh's
    // transform read as a matrix, and an entry holding one never compares equal to itself.
    let good = decode_geometry(&entry, "x").unwrap();
    let mut row = good.clone();
    row.rows[0].world.w_axis.x = f64::NAN;
    assert!(decode_geometry(&encode_geometry(&row), "x").is_err());
    let mut transform = good.clone();
    transform.meshes[0].transform = Some(Mat4::from_cols_array(&[f64::INFINITY; 16]));
    assert!(decode_geometry(&encode_geometry(&transform), "x").is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_part_the_entry_lacks_cooks_only_its_mesh_and_keeps_the_other_rows() {
    let dir = temp_dir("load-partial");
    let cache = CookCache::new(&dir);
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 3, 3);
    let path_is = |p: &Part, name: &str| p.path.as_deref() == Some(name);
    let only_a: Vec<Part> = parts.iter().filter(|p| path_is(p, "a")).cloned().collect();
    let first = load(Some(&cache), &key, &pose, &only_a, Some(&model));
    assert_eq!((first.stats.cooked, first.stats.reused), (1, 0));
    // b joins: the box is reused from the entry, the sphere cooked.
    let a_b: Vec<Part> = parts
        .iter()
        .filter(|p| path_is(p, "a") || path_is(p, "b"))
        .cloned()
        .collect();
    let second = load(Some(&cache), &key, &pose, &a_b, Some(&model));
    assert!(!second.stats.hit);
    assert_eq!((second.stats.cooked, second.stats.reused), (1, 1));
    // Both are now answered from the entry, and so is `a` alone.
    assert!(load(Some(&cache), &key, &pose, &a_b, None).stats.hit);
    assert!(load(Some(&cache), &key, &pose, &only_a, None).stats.hit);
    // `d` (turned 45° under a stretched placement) cooks with a shear; a placement
    // stretched another way needs another cook of its mesh, a miss.
    let only_d: Vec<Part> = parts.iter().filter(|p| path_is(p, "d")).cloned().collect();
    let d1 = load(Some(&cache), &key, &pose, &only_d, Some(&model));
    assert_eq!((d1.stats.cooked, d1.stats.reused), (1, 0));
    assert!(load(Some(&cache), &key, &pose, &only_d, None).stats.hit);
    let stretched = math::from_trs(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(1.0, 1.0, 3.0));
    let d2 = load(Some(&cache), &key, &stretched, &only_d, Some(&model));
    assert!(
        !d2.stats.hit,
        "the entry's transform for `d` no longer applies"
    );
    assert_eq!(d2.stats.cooked, 1);
    // `a` and `b` kept their rows through all of it.
    assert!(load(Some(&cache), &key, &pose, &a_b, None).stats.hit);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_the_cache_off_nothing_is_read_or_written() {
    let dir = temp_dir("load-off");
    let on = CookCache::new(&dir);
    let off = CookCache {
        enabled: false,
        ..CookCache::new(&dir)
    };
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 5, 5);
    let a = load(Some(&off), &key, &pose, &parts, Some(&model));
    assert!(!a.stats.hit);
    assert!(!on.path(&key).exists(), "nothing written");
    let _ = load(Some(&on), &key, &pose, &parts, Some(&model));
    assert!(on.path(&key).exists());
    let b = load(Some(&off), &key, &pose, &parts, Some(&model));
    assert!(!b.stats.hit, "nothing read");
    // The cook is the same either way.
    assert_eq!(a.cook, b.cook);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_streamed_reader_agrees_with_the_slice_decoder() {
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 9, 9);
    let dir = temp_dir("load-stream");
    let cache = CookCache::new(&dir);
    let _ = load(Some(&cache), &key, &pose, &parts, Some(&model));
    let bytes = std::fs::read(cache.path(&key)).unwrap();
    let sliced = decode_geometry(&bytes, "x").unwrap();
    let streamed = read_geometry_from(&bytes[..], bytes.len() as u64, &key, "x").unwrap();
    assert_eq!(sliced, streamed);
    // A length that disagrees with the bytes, or another key, is refused.
    assert!(read_geometry_from(&bytes[..], bytes.len() as u64 - 1, &key, "x").is_none());
    assert!(read_geometry_from(&bytes[..], bytes.len() as u64, &[0; 32], "x").is_none());
    // An empty entry round-trips.
    let empty = GeometryEntry {
        key,
        ..GeometryEntry::default()
    };
    let e = encode_geometry(&empty);
    assert_eq!(e.len(), 8 + 4 + 4 + 32 + 24);
    assert_eq!(decode_geometry(&e, "x").unwrap(), empty);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn colcook_geometry_corpus_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/colcook_geometry");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() >= 3, "the corpus has {} files", files.len());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_colcook_geometry(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

/// Writes the geometry corpus seeds (run with `--ignored` after a format change).
#[test]
#[ignore]
fn write_colcook_geometry_corpus_seeds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/colcook_geometry");
    std::fs::create_dir_all(&dir).unwrap();
    let (model, pose, parts) = load_fixture();
    let key = load_key("meshes/test.glb", 9, 9);
    let cook_dir = temp_dir("seeds");
    let cache = CookCache::new(&cook_dir);
    let _ = load(Some(&cache), &key, &pose, &parts, Some(&model));
    let bytes = std::fs::read(cache.path(&key)).unwrap();
    std::fs::write(dir.join("fixture-entry"), &bytes).unwrap();
    std::fs::write(dir.join("fixture-entry-cut"), &bytes[..bytes.len() / 2]).unwrap();
    let empty = encode_geometry(&GeometryEntry {
        key,
        ..GeometryEntry::default()
    });
    std::fs::write(dir.join("empty-entry"), empty).unwrap();
    let _ = std::fs::remove_dir_all(&cook_dir);
}

/// Every single-bit flip of an entry is refused or reads back to the very same bytes, and
/// the streamed reader agrees with the slice decoder on each (`fuzz_colcook_geometry`).
#[test]
fn every_bit_flip_of_an_entry_is_refused_or_reads_back_the_same() {
    let bytes = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/corpus/colcook_geometry/fixture-entry"),
    )
    .expect("the corpus seed");
    assert!(decode_geometry(&bytes, "x").is_ok());
    for i in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[i / 8] ^= 1 << (i % 8);
        dh_content::fuzzing::fuzz_colcook_geometry(&b);
    }
}
