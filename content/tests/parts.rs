//! The `.dh-model` sidecar applied to an imported model, the parts table of a placement,
//! and the identity sidecar's matching (rename, re-parent, orphans, retarget, ambiguity),
//! over hand-built GLBs whose expected poses and ids were worked out by hand (UUIDv5
//! values from Python's `uuid` / `hashlib`, noted beside each).

mod support;

use std::collections::BTreeMap;

use dh_content::diag::{Diagnostics, Severity, SourceFile};
use dh_content::math;
use glam::{DQuat, DVec3};

use dh_content::gltf::{apply_sidecar, import_glb, Model};
use dh_content::parts::{
    bake_parts_table, ids_path, instance_pose, match_identities, mint_local_id, object_id, IdsFile,
    Placement,
};
use dh_content::read::Mode;
use dh_content::schema::common::{Guid, Vec3};
use dh_content::schema::model::{read_model_sidecar, ModelSidecar};
use dh_content::schema::object_components::ObjectComponent;
use support::glb;

// ---- The models ------------------------------------------------------------------------

/// Three meshes, each one triangle of its own shape and size: 0 and 1 draw `grid`, 2 draws
/// `metal` (and names a reflection probe).
fn file(nodes: &str, roots: &str) -> Vec<u8> {
    let tris: [[f32; 9]; 3] = [
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, -3.0],
        [0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5],
    ];
    let bin: Vec<u8> = tris
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":108}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}},{{"buffer":0,"byteOffset":72,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}},{{"bufferView":1,"componentType":5126,"type":"VEC3","count":3}},{{"bufferView":2,"componentType":5126,"type":"VEC3","count":3}}],
        "materials":[{{"name":"grid"}},{{"name":"metal"}}],
        "cameras":[{{"type":"perspective","perspective":{{"yfov":1,"znear":0.1}}}}],
        "meshes":[{{"name":"small","primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}},
                  {{"name":"big","primitives":[{{"attributes":{{"POSITION":1}},"material":0}}]}},
                  {{"name":"tiny","primitives":[{{"attributes":{{"POSITION":2}},"material":1,"extras":{{"dh":{{"reflectionProbe":"cube1"}}}}}}]}}],
        "nodes":[{nodes}],"scenes":[{{"nodes":[{roots}]}}]}}"#
    );
    glb(&json, &bin)
}

/// city (group) ─ wall[0] ─ wall[0] ─ tower[1] ─ antenna[2]; cam; Head (group, turned 90°).
fn city() -> Model {
    let nodes = r#"
        {"name":"city","children":[1,2,3,5]},
        {"name":"wall","mesh":0,"translation":[1,0,0]},
        {"name":"wall","mesh":0,"translation":[2,0,0]},
        {"name":"tower","mesh":1,"translation":[0,5,0],"children":[4]},
        {"name":"antenna","mesh":2,"translation":[0,1,0]},
        {"name":"cam","camera":0},
        {"name":"Head","translation":[10,0,0],"rotation":[0,0.7071067811865476,0,0.7071067811865476]}"#;
    import_glb(&file(nodes, "0,6"), "meshes/city.glb").unwrap()
}

fn sidecar(text: &str) -> ModelSidecar {
    let f = SourceFile::new("meshes/city.glb.dh-model", text);
    let mut d = Diagnostics::new();
    let s = read_model_sidecar(&f, &mut d, Mode::Build).unwrap();
    assert!(!d.has_errors(), "{d}");
    s
}

fn node(m: &Model, path: &str) -> usize {
    m.node_paths()
        .iter()
        .position(|p| p == path)
        .unwrap_or_else(|| panic!("no node {path}: {:?}", m.node_paths()))
}

fn world_of(m: &Model, path: &str) -> [f64; 16] {
    m.world_matrices()[node(m, path)].to_cols_array()
}

fn near(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

// ---- The .dh-model sidecar -------------------------------------------------------------

#[test]
fn paths_are_blender_style() {
    let m = city();
    assert_eq!(
        m.node_paths(),
        [
            "city",
            "city/wall",
            "city/wall.001",
            "city/tower",
            "city/tower/antenna",
            "city/cam",
            "Head"
        ]
    );
}

#[test]
fn drop_rename_and_transform() {
    let mut m = city();
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [
                { "kind": "drop", "target": "antenna" },
                { "kind": "rename", "target": "tower", "name": "keep" },
                { "kind": "transform", "target": "tower", "position": [0, 6, 0] },
                { "kind": "transform", "target": "city/wall.001", "rotation": [0, 90, 0], "scale": 2 }
            ] }"#,
        ),
    );
    assert!(out.applied, "{:?}", out.diags);
    assert!(out.diags.is_empty());
    assert_eq!(
        m.node_paths(),
        [
            "city",
            "city/wall",
            "city/wall.001",
            "city/keep",
            "city/cam",
            "Head"
        ]
    );
    // Position replaced; rotation and scale kept (identity).
    assert!(near(
        &world_of(&m, "city/keep"),
        &math::from_trs(DVec3::new(0.0, 6.0, 0.0), DQuat::IDENTITY, DVec3::ONE).to_cols_array()
    ));
    // Yaw 90 (q = [0, sin45, 0, cos45]) and scale 2 about the authored translation.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert!(near(
        &world_of(&m, "city/wall.001"),
        &math::from_trs(
            DVec3::new(2.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, s, 0.0, s),
            DVec3::splat(2.0),
        )
        .to_cols_array()
    ));
}

#[test]
fn reparent_keeps_the_world_pose_unless_told_not_to() {
    let mut m = city();
    let before = world_of(&m, "city/tower/antenna");
    let out = apply_sidecar(
        &mut m,
        &sidecar(r#"{ "ops": [ { "kind": "reparent", "target": "antenna", "parent": "Head" } ] }"#),
    );
    assert!(out.applied);
    assert!(near(&world_of(&m, "Head/antenna"), &before));
    // Worked by hand: Head is at (10,0,0) turned +90° about Y, the antenna at (0,6,0), so
    // its local translation is R⁻¹·((0,6,0) − (10,0,0)) = (0, 6, −10).
    let local = m.nodes[node(&m, "Head/antenna")].local.to_cols_array();
    assert!(
        near(&local[12..15], &[0.0, 6.0, -10.0]),
        "{:?}",
        &local[12..15]
    );

    let mut m = city();
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [ { "kind": "reparent", "target": "antenna", "parent": "Head", "keepWorldTransform": false } ] }"#,
        ),
    );
    assert!(out.applied);
    let local = m.nodes[node(&m, "Head/antenna")].local.to_cols_array();
    assert!(near(&local[12..15], &[0.0, 1.0, 0.0]));
    // Now it stands at Head's pose plus its old local offset: (10, 1, 0).
    assert!(near(
        &world_of(&m, "Head/antenna")[12..15],
        &[10.0, 1.0, 0.0]
    ));
}

#[test]
fn merge_folds_siblings_into_the_target_in_its_space() {
    let mut m = city();
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [ { "kind": "merge", "target": "city/wall", "with": ["city/wall.001"] } ] }"#,
        ),
    );
    assert!(out.applied, "{:?}", out.diags);
    assert_eq!(
        m.node_paths(),
        [
            "city",
            "city/wall",
            "city/tower",
            "city/tower/antenna",
            "city/cam",
            "Head"
        ]
    );
    let w = &m.nodes[node(&m, "city/wall")];
    let mesh = &m.meshes[w.mesh.unwrap()];
    assert_eq!(mesh.primitives.len(), 2);
    // The folded triangle keeps its world place: it stood at x+2, the target at x+1.
    let p: Vec<[f32; 3]> = mesh.primitives[1]
        .vertices
        .iter()
        .map(|v| v.position)
        .collect();
    assert_eq!(p, [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]);
    // The other wall's mesh was shared: the original is untouched for anyone else.
    assert_eq!(m.meshes.iter().filter(|x| x.name == "small").count(), 1);
}

#[test]
fn errors_abandon_the_whole_sidecar() {
    // A bare name matching two nodes is an error naming every match; the rename beside it
    // is not applied either.
    let mut m = city();
    let before = m.clone();
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [ { "kind": "rename", "target": "tower", "name": "t" }, { "kind": "drop", "target": "wall" } ] }"#,
        ),
    );
    assert!(!out.applied);
    assert_eq!(m, before);
    let e = out
        .diags
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!(e.path, "ops[1]");
    assert!(
        e.message.contains("'city/wall'") && e.message.contains("'city/wall.001'"),
        "{}",
        e.message
    );
    // A merge whose nodes draw different materials.
    let out = apply_sidecar(
        &mut m,
        &sidecar(r#"{ "ops": [ { "kind": "merge", "target": "tower", "with": ["antenna"] } ] }"#),
    );
    assert!(!out.applied);
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [ { "kind": "merge", "target": "city/wall", "with": ["antenna"] } ] }"#,
        ),
    );
    assert!(!out.applied);
    assert!(
        out.diags[0].message.contains("'grid', 'metal'"),
        "{}",
        out.diags[0].message
    );
    // Reparenting under its own subtree.
    let out = apply_sidecar(
        &mut m,
        &sidecar(
            r#"{ "ops": [ { "kind": "reparent", "target": "tower", "parent": "antenna" } ] }"#,
        ),
    );
    assert!(!out.applied);
    assert_eq!(m, before);
}

#[test]
fn a_target_that_matches_nothing_is_a_warning_with_the_closest_path() {
    let mut m = city();
    let out = apply_sidecar(&mut m, &sidecar(r#"{ "drop": ["antena", "tower"] }"#));
    assert!(out.applied);
    assert_eq!(out.diags.len(), 1);
    let d = &out.diags[0];
    assert_eq!(
        (d.severity, d.path.as_str()),
        (Severity::Warning, "drop[0]")
    );
    assert!(
        d.message.contains("'antena' matches no node")
            && d.message.contains("'city/tower/antenna'"),
        "{}",
        d.message
    );
    assert_eq!(
        m.node_paths(),
        ["city", "city/wall", "city/wall.001", "city/cam", "Head"]
    );
}

// ---- The parts table -------------------------------------------------------------------

const INSTANCE: &str = "db71e214-0d00-4fde-b8e1-cd4ef06288bf";
const BARCODE: &str = "dev.test:meshes/city.glb";

#[test]
fn object_ids_and_minted_ids_are_uuid_v5() {
    // hashlib.sha1(UUID(INSTANCE).bytes + UUID(local).bytes), versioned 5.
    let local = Guid::parse("6f3b21c4-9d0e-5a77-8b12-4c5e7a90d3f1").unwrap();
    assert_eq!(
        object_id(Guid::parse(INSTANCE).unwrap(), local).to_string(),
        "10dc6ab3-1607-5ecb-b7a4-2927222c60f3"
    );
    // uuid.uuid5(UUID("5d1e0a7c-3b92-4f61-9a0e-27d4c188503f"), BARCODE + "#city/tower").
    assert_eq!(
        mint_local_id(BARCODE, "city/tower").to_string(),
        "b2dd6d26-b119-5481-bb94-f47536143413"
    );
    assert_eq!(ids_path("meshes/city.glb"), "meshes/city.glb.dh-ids");
    assert_eq!(ids_path("meshes/de_ancient/"), "meshes/de_ancient.dh-ids");
}

#[test]
fn the_table_lists_mesh_parts_first_then_groups() {
    let m = city();
    let ids = match_identities(&m, BARCODE, None);
    let materials: BTreeMap<String, String> =
        [("grid".to_string(), "materials/grid.dh-mat".to_string())].into();
    let inst = Guid::parse(INSTANCE).unwrap();
    let pose = instance_pose(Some(Vec3([100.0, 0.0, 0.0])), None, None);
    let t = bake_parts_table(
        &m,
        &ids,
        &Placement {
            instance_id: inst,
            pose,
            first_id: 7,
            materials: &materials,
        },
    );
    let paths: Vec<&str> = t.parts.iter().map(|p| p.path.as_deref().unwrap()).collect();
    // The camera gets no entry.
    assert_eq!(
        paths,
        [
            "city/wall",
            "city/wall.001",
            "city/tower",
            "city/tower/antenna",
            "city",
            "Head"
        ]
    );
    let idn: Vec<u32> = t.parts.iter().map(|p| p.id).collect();
    assert_eq!(idn, [7, 8, 9, 10, 11, 12]);
    assert_eq!(t.next_id, 13);
    let tower = &t.parts[2];
    assert_eq!(tower.name.as_deref(), Some("tower"));
    assert_eq!(tower.local_id, Some(mint_local_id(BARCODE, "city/tower")));
    assert_eq!(
        tower.object_id,
        Some(object_id(inst, tower.local_id.unwrap()))
    );
    assert_eq!(tower.pivot.unwrap().0, [100.0, 5.0, 0.0]);
    assert!(tower.rotation.is_none() && tower.scale.is_none() && tower.structural.is_none());
    // Its triangle (0,0,0) (2,0,0) (0,0,-3) at (100,5,0).
    let bb = tower.aabb.as_ref().unwrap();
    assert_eq!(
        (bb.min.0, bb.max.0),
        ([100.0, 5.0, -3.0], [102.0, 5.0, 0.0])
    );
    // The generated renderer binds the slot from the map's table.
    let ObjectComponent::Renderer(r) = &tower.components[0] else {
        panic!()
    };
    assert_eq!(r.generated, Some(true));
    assert_eq!(
        r.materials
            .as_ref()
            .unwrap()
            .get("grid")
            .map(String::as_str),
        Some("materials/grid.dh-mat")
    );
    assert!(r.reflection_probe.is_none());
    // The antenna's slot has no entry: bound empty; its one primitive names a probe.
    let ObjectComponent::Renderer(r) = &t.parts[3].components[0] else {
        panic!()
    };
    assert_eq!(
        r.materials
            .as_ref()
            .unwrap()
            .get("metal")
            .map(String::as_str),
        Some("")
    );
    assert_eq!(r.reflection_probe.as_deref(), Some("cube1"));
    // Groups: structural, no aabb, no renderer; Head's rotation is its yaw.
    let head = &t.parts[5];
    assert_eq!(head.structural, Some(true));
    assert!(head.aabb.is_none() && head.components.is_empty());
    let q = head.rotation.unwrap().0;
    assert!(
        near(
            &q,
            &[
                0.0,
                std::f64::consts::FRAC_1_SQRT_2,
                0.0,
                std::f64::consts::FRAC_1_SQRT_2
            ]
        ),
        "{q:?}"
    );
    assert_eq!(head.pivot.unwrap().0, [110.0, 0.0, 0.0]);
    // A second placement: ids count on, scene ids differ, local ids are shared.
    let other = Guid::parse("3e9b07f4-2c51-4d86-a0e7-91b6c8d2f405").unwrap();
    let t2 = bake_parts_table(
        &m,
        &ids,
        &Placement {
            instance_id: other,
            pose: instance_pose(None, None, Some(Vec3([2.0; 3]))),
            first_id: t.next_id,
            materials: &materials,
        },
    );
    assert_eq!(t2.parts[0].id, 13);
    assert_eq!(t2.parts[0].local_id, t.parts[0].local_id);
    assert_ne!(t2.parts[0].object_id, t.parts[0].object_id);
    assert_eq!(t2.parts[0].scale.unwrap().0, [2.0; 3]);
    // The same model bakes the same table.
    let again = bake_parts_table(
        &m,
        &match_identities(&m, BARCODE, None),
        &Placement {
            instance_id: inst,
            pose,
            first_id: 7,
            materials: &materials,
        },
    );
    assert_eq!(format!("{:?}", again.parts), format!("{:?}", t.parts));
}

#[test]
fn a_sheared_node_keeps_its_decomposition_and_is_named_once() {
    let nodes = r#"{"name":"skew","mesh":0,"matrix":[1,0,0,0, 0.5,1,0,0, 0,0,1,0, 0,0,0,1]},{"name":"ok","mesh":0}"#;
    let m = import_glb(&file(nodes, "0,1"), "s.glb").unwrap();
    let ids = match_identities(&m, BARCODE, None);
    let t = bake_parts_table(
        &m,
        &ids,
        &Placement {
            instance_id: Guid([1; 16]),
            pose: glam::DMat4::IDENTITY,
            first_id: 0,
            materials: &BTreeMap::new(),
        },
    );
    assert_eq!(t.warnings.len(), 1);
    assert!(
        t.warnings[0].contains("'skew'") && !t.warnings[0].contains("'ok'"),
        "{}",
        t.warnings[0]
    );
}

// ---- The identity sidecar --------------------------------------------------------------

fn ids_of(
    m: &Model,
    file: Option<&IdsFile>,
) -> (BTreeMap<String, Guid>, dh_content::parts::ModelIds) {
    let ids = match_identities(m, BARCODE, file);
    let paths = m.node_paths();
    let map = ids
        .nodes
        .iter()
        .zip(&ids.local_ids)
        .map(|(n, g)| (paths[*n].clone(), *g))
        .collect();
    (map, ids)
}

#[test]
fn ids_round_trip_through_the_file_unchanged() {
    let m = city();
    let (first, ids) = ids_of(&m, None);
    assert!(ids.changed);
    let text = ids.file.to_text();
    let back = IdsFile::parse(&text).unwrap();
    assert_eq!(back, ids.file);
    let (second, again) = ids_of(&m, Some(&back));
    assert_eq!(first, second);
    assert!(
        !again.changed && again.warnings.is_empty(),
        "{:?}",
        again.warnings
    );
    assert!(IdsFile::parse(r#"{"version": 9, "parts": []}"#).is_err());
    assert!(IdsFile::parse(r#"{"version": 1, "parts": [{"id": "nope", "path": "a"}]}"#).is_err());
}

#[test]
fn identities_survive_a_rename_and_a_reparent() {
    let m = city();
    let (before, ids) = ids_of(&m, None);
    // Rename the tower and move the antenna under Head, by sidecar.
    let mut edited = m.clone();
    let out = apply_sidecar(
        &mut edited,
        &sidecar(
            r#"{ "ops": [ { "kind": "rename", "target": "tower", "name": "spire" }, { "kind": "reparent", "target": "antenna", "parent": "Head" } ] }"#,
        ),
    );
    assert!(out.applied);
    let (after, again) = ids_of(&edited, Some(&ids.file));
    assert_eq!(
        after["city/spire"], before["city/tower"],
        "rename: content hash + parent + sibling"
    );
    assert_eq!(
        after["Head/antenna"], before["city/tower/antenna"],
        "re-parent: content hash alone"
    );
    assert_eq!(after["city/wall"], before["city/wall"]);
    assert_eq!(after["city/wall.001"], before["city/wall.001"]);
    assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    assert!(again.changed);
}

#[test]
fn orphans_are_kept_and_restore_their_id() {
    let m = city();
    let (before, ids) = ids_of(&m, None);
    let mut dropped = m.clone();
    assert!(apply_sidecar(&mut dropped, &sidecar(r#"{ "drop": ["antenna"] }"#)).applied);
    let (_, mid) = ids_of(&dropped, Some(&ids.file));
    let orphan = mid.file.parts.iter().find(|e| e.orphan).unwrap();
    assert_eq!(
        (orphan.path.as_str(), orphan.id),
        ("city/tower/antenna", before["city/tower/antenna"])
    );
    assert_eq!(mid.warnings.len(), 1);
    assert!(
        mid.warnings[0].contains("kept as orphans")
            && mid.warnings[0].contains("'city/tower/antenna'")
    );
    // The node comes back: its id with it.
    let (after, back) = ids_of(&m, Some(&mid.file));
    assert_eq!(after, before);
    assert!(!back.file.parts.iter().any(|e| e.orphan));
}

#[test]
fn retarget_outranks_every_tier_and_is_cleared() {
    let m = city();
    let (before, ids) = ids_of(&m, None);
    // An orphan from a node that was replaced, retargeted by hand onto the tower.
    let mut file = ids.file.clone();
    let old = Guid::parse("11111111-2222-4333-8444-555555555555").unwrap();
    file.parts.push(dh_content::parts::IdsEntry {
        id: old,
        path: "city/old_tower".into(),
        name: "old_tower".into(),
        parent: "city".into(),
        sibling: 2,
        hash: String::new(),
        orphan: true,
        retarget: Some("city/tower".into()),
    });
    let (after, r) = ids_of(&m, Some(&file));
    assert_eq!(after["city/tower"], old);
    // The tower's previous identity is now the orphan.
    let orphan = r.file.parts.iter().find(|e| e.orphan).unwrap();
    assert_eq!(orphan.id, before["city/tower"]);
    assert!(r.file.parts.iter().all(|e| e.retarget.is_none()));
    // A retarget naming nothing is a warning and stays.
    file.parts.last_mut().unwrap().retarget = Some("nowhere".into());
    let (_, r) = ids_of(&m, Some(&file));
    assert!(r.warnings.iter().any(|w| w.contains("'nowhere'")));
    assert!(r
        .file
        .parts
        .iter()
        .any(|e| e.retarget.as_deref() == Some("nowhere")));
}

#[test]
fn an_ambiguous_match_is_skipped_and_warned_never_guessed() {
    // Two walls share one mesh (one content hash). Rename both: tier 1 fails; tier 2 (hash
    // + parent + sibling) still tells them apart.
    let m = city();
    let (before, ids) = ids_of(&m, None);
    let mut r = m.clone();
    for n in r.nodes.iter_mut().filter(|n| n.name == "wall") {
        n.name = "panel".into();
    }
    let (after, res) = ids_of(&r, Some(&ids.file));
    assert_eq!(after["city/panel"], before["city/wall"]);
    assert_eq!(after["city/panel.001"], before["city/wall.001"]);
    assert!(res.warnings.is_empty());
    // Move both under Head too: no positional tier fits, and the hash alone names two
    // candidates for two parts, so it is skipped with a warning and both get fresh ids.
    let mut moved = r.clone();
    let head = node(&moved, "Head");
    let walls: Vec<usize> = (0..moved.nodes.len())
        .filter(|i| moved.nodes[*i].name == "panel")
        .collect();
    for w in &walls {
        let p = moved.nodes[*w].parent.unwrap();
        moved.nodes[p].children.retain(|c| c != w);
        moved.nodes[*w].parent = Some(head);
        moved.nodes[head].children.push(*w);
    }
    let (after, res) = ids_of(&moved, Some(&ids.file));
    assert!(
        res.warnings
            .iter()
            .any(|w| w.contains("ambiguous") && w.contains("content hash")),
        "{:?}",
        res.warnings
    );
    assert_ne!(after["Head/panel"], before["city/wall"]);
    assert_ne!(after["Head/panel.001"], before["city/wall.001"]);
    assert_eq!(res.file.parts.iter().filter(|e| e.orphan).count(), 2);
}

// ---- Part overrides over a placement's table -------------------------------------------

fn override_of(text: &str) -> dh_content::schema::records::PartOverride {
    use dh_content::read::{Cx, FromJson};
    let f = SourceFile::new("o.json", text);
    let v = dh_content::jsonc::parse(&f.text).unwrap();
    let mut d = Diagnostics::new();
    let mut cx = Cx::new(&f, &mut d, Mode::Build);
    let o = dh_content::schema::records::PartOverride::from_json(&mut cx, &v).unwrap();
    assert!(!d.has_errors(), "{d}");
    o
}

#[test]
fn an_override_turning_a_stretched_part_names_its_shear_and_resolutions_are_reported() {
    use dh_content::parts::{apply_overrides, Resolution};
    let m = city();
    let ids = match_identities(&m, BARCODE, None);
    // Placed stretched 3× on Y: city/wall stands at (1,0,0) with scale (1,3,1).
    let t0 = bake_parts_table(
        &m,
        &ids,
        &Placement {
            instance_id: Guid([1; 16]),
            pose: instance_pose(None, None, Some(Vec3([1.0, 3.0, 1.0]))),
            first_id: 0,
            materials: &BTreeMap::new(),
        },
    );
    let mut t = t0.clone();
    let overrides = [
        // Turning it 45° about X in its own frame, after a Y stretch: W·Rx(45) has a shear.
        override_of(r#"{ "path": "city/wall", "rotation": [45, 0, 0] }"#),
        // Turning the other wall 90° about Y: the Y stretch stays on one axis, no shear.
        override_of(r#"{ "path": "city/wall.001", "rotation": [0, 90, 0] }"#),
        override_of(r#"{ "path": "city/nowhere", "enabled": false }"#),
    ];
    let applied = apply_overrides(&m, &ids, "meshes/city.glb", &mut t, &overrides);
    assert_eq!(
        applied.resolutions,
        [Resolution::Part(0), Resolution::Part(1), Resolution::Stale]
    );
    let notes: Vec<(usize, &str)> = applied
        .notes
        .iter()
        .map(|n| (n.index, n.message.as_str()))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0].0, 2);
    assert!(notes[0].1.contains("'city/nowhere'"), "{}", notes[0].1);
    // The shear note comes after the overrides and names only the first wall.
    assert_eq!(notes[1].0, overrides.len());
    assert!(
        notes[1].1.contains("'city/wall'") && !notes[1].1.contains("'city/wall.001'"),
        "{}",
        notes[1].1
    );
    // wall.001 (at (2,0,0), scale (1,3,1)) turned 90° about its own Y: its local X
    // (length 1) now runs along world -Z, its Y still 3 long: decomposed scale (1,3,1),
    // rotation yaw 90, pivot unchanged.
    let p = &t.parts[1];
    assert!(near(&p.pivot.unwrap().0, &[2.0, 0.0, 0.0]));
    assert!(near(&p.scale.unwrap().0, &[1.0, 3.0, 1.0]));
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert!(near(&p.rotation.unwrap().0, &[0.0, h, 0.0, h]));
    // The world matrix handed on is the overridden one; untouched parts keep theirs.
    assert_eq!(t.worlds[2], t0.worlds[2]);
    assert_ne!(t.worlds[1], t0.worlds[1]);
}

#[test]
fn the_ids_fuzz_corpus_never_panics() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/ids");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the ids corpus has {} files", files.len());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_ids(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}
