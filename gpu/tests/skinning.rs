//! GPU skinning (`shaders/skin.wgsl`, `render::skin`) on lavapipe with validation: the
//! skinned streams read back and matched per vertex against the CPU reference
//! (`dh_content::gltf::skin_reference`) on CesiumMan posed by its clip, and against values
//! worked by hand on a two-joint mesh.

use dh_content::gltf::{
    import_glb_with, sample_clip, skin_reference, ImportOptions, Model, Purpose, Skeleton,
    SkinWeights,
};
use dh_content::mesh::{pack_streams, unpack_basis, MeshVertex, PackedMesh};
use dh_gpu::render::skin::{rig_bytes, skinning_stream, SkinInstance, Skinner};
use dh_gpu::{testing, vk, Buffer, BufferDesc, Gpu, MemoryLocation};
use glam::{Mat4, Vec3};
use std::collections::HashMap;

fn fixture(name: &str) -> Option<Vec<u8>> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/gltf")
        .join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

fn mesh_buffer(gpu: &Gpu, packed: &PackedMesh) -> Buffer {
    let mut b = gpu
        .create_buffer(&BufferDesc {
            name: "test mesh",
            size: packed.bytes.len() as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })
        .unwrap();
    b.mapped_slice_mut().unwrap()[..packed.bytes.len()].copy_from_slice(&packed.bytes);
    b
}

/// Dispatches `inst` once and reads back its positions and bases.
fn skin_and_read(
    gpu: &Gpu,
    skinner: &Skinner,
    inst: &SkinInstance,
    packed: &PackedMesh,
) -> (Vec<[f32; 3]>, Vec<[u16; 4]>) {
    let size = packed.bytes.len() as u64;
    let readback = gpu
        .create_buffer(&BufferDesc {
            name: "skin readback",
            size,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        })
        .unwrap();
    let (_, value) = gpu
        .immediate(|gpu, cmd| {
            skinner.record_init(cmd, inst);
            skinner.record(cmd, &[inst]);
            let region = [vk::BufferCopy::default().size(size)];
            // SAFETY: `cmd` is recording; both buffers are live until the wait below.
            unsafe {
                gpu.device()
                    .cmd_copy_buffer(cmd, inst.buffer().raw(), readback.raw(), &region);
                let host = [vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                    .dst_access_mask(vk::AccessFlags2::HOST_READ)];
                gpu.device().cmd_pipeline_barrier2(
                    cmd,
                    &vk::DependencyInfo::default().memory_barriers(&host),
                );
            }
            Ok(())
        })
        .unwrap();
    gpu.wait_for(value, std::time::Duration::from_secs(120))
        .unwrap();
    let bytes = readback.mapped_slice().unwrap();
    let n = packed.vertex_count as usize;
    let pos: &[[f32; 3]] =
        bytemuck::cast_slice(&bytes[packed.position_offset..packed.position_offset + n * 12]);
    let basis: &[[u16; 4]] =
        bytemuck::cast_slice(&bytes[packed.basis_offset..packed.basis_offset + n * 8]);
    (pos.to_vec(), basis.to_vec())
}

/// Two vertices, two joints, values worked by hand: joint 1 lifts by 2 m and turns 90°
/// about Z; a vertex half on each at (1, 0, 0) lands at the average of (1, 0, 0) and
/// (0, 1, 0) + (0, 2, 0) = (0.5, 1.5, 0); one whole on joint 1 at (0, 0, 1) lands at
/// (0, 2, 1). A morph target moves vertex 0 by +1 m in X at weight 0.25 first:
/// (1.25, 0, 0) → half of (1.25, 0, 0) and (0, 3.25, 0) = (0.625, 1.625, 0) — but the
/// halves quantize to 32768 and 32767 of 65535 (largest remainder, a tie to the lower lane),
/// so exactly 1.25 · 32768/65535 = 0.6250095 and 3.25 · 32767/65535 = 1.6249752.
#[test]
fn two_joints_skin_to_the_hand_worked_positions() {
    let gpu = testing::test_gpu();
    let skinner = Skinner::new(&gpu).unwrap();
    let v = |p: [f32; 3]| MeshVertex {
        position: p,
        normal: [1.0, 0.0, 0.0],
        tangent: [0.0, 1.0, 0.0, 1.0],
        ..MeshVertex::default()
    };
    let vertices = vec![v([1.0, 0.0, 0.0]), v([0.0, 0.0, 1.0])];
    let packed = pack_streams(&vertices, None, None).unwrap();
    let skin = SkinWeights {
        joints: vec![[0, 1, 0, 0], [1, 0, 0, 0]],
        weights: vec![[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
    };
    let stream = skinning_stream(&[&skin]).unwrap();
    let target = dh_content::gltf::MorphTarget {
        position: vec![[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        normal: None,
    };
    let (bytes, s, m) = rig_bytes(2, Some(&stream), std::slice::from_ref(&target)).unwrap();
    let rig = skinner.rig(2, &bytes, s, m, 1).unwrap();
    let mesh = mesh_buffer(&gpu, &packed);
    let mut inst = skinner.instance(&mesh, &packed, &rig, 2).unwrap();
    let lift = Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0))
        * Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
    inst.set_pose(&[Mat4::IDENTITY, lift], &[0.25]);
    let (pos, basis) = skin_and_read(&gpu, &skinner, &inst, &packed);
    let want = [[0.625_009_5f32, 1.624_975_2, 0.0], [0.0, 2.0, 1.0]];
    for (got, want) in pos.iter().zip(want) {
        let d = Vec3::from_array(*got) - Vec3::from_array(want);
        assert!(d.length() < 1e-6, "{got:?} vs {want:?}");
    }
    // Vertex 1's normal (+X) turns with joint 1 to +Y; its tangent (+Y) to −X.
    let (n, t) = unpack_basis(basis[1]);
    assert!((Vec3::from_array(n) - Vec3::Y).length() < 1e-3, "{n:?}");
    assert!(
        (Vec3::new(t[0], t[1], t[2]) + Vec3::X).length() < 1e-3,
        "{t:?}"
    );
    assert_eq!(t[3], 1.0);
    drop(inst);
    drop(rig);
    drop(mesh);
    drop(skinner);
    testing::finish(gpu);
}

fn cesium_man() -> Option<Model> {
    let bytes = fixture("CesiumMan.glb")?;
    let opts = ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    };
    Some(import_glb_with(&bytes, "CesiumMan.glb", &opts).unwrap_or_else(|e| panic!("{e}")))
}

/// CesiumMan posed by its clip at t = 0.5 s: the GPU's skinned positions match the CPU
/// reference per vertex within 1e-4 m, and its normals within 0.5°.
#[test]
fn cesium_man_skins_on_the_gpu_as_the_cpu_reference_does() {
    let Some(model) = cesium_man() else { return };
    let node = model
        .nodes
        .iter()
        .position(|n| n.skin.is_some() && n.mesh.is_some())
        .expect("CesiumMan has a skinned mesh node");
    let skin = model.nodes[node].skin.unwrap();
    let mesh = &model.meshes[model.nodes[node].mesh.unwrap()];
    assert_eq!(
        model.skins[skin].joints.len(),
        19,
        "CesiumMan binds 19 joints"
    );
    assert_eq!(model.animations.len(), 1);
    let sk = Skeleton::new(&model);
    let mut locals = sk.rest();
    let mut weights = HashMap::new();
    assert!(!sample_clip(
        &model.animations[0],
        0.5,
        &mut locals,
        &mut weights
    ));
    let world = sk.world(&locals);
    let palette = sk.palette(&model, skin, node, &world);

    let gpu = testing::test_gpu();
    let skinner = Skinner::new(&gpu).unwrap();
    let mut checked = 0;
    let mut moved = 0.0f32;
    for prim in &mesh.primitives {
        let packed = pack_streams(&prim.vertices, None, None).unwrap();
        let stream = skinning_stream(&[prim.skin.as_ref().unwrap()]).unwrap();
        let n = prim.vertices.len();
        let (bytes, s, m) = rig_bytes(n, Some(&stream), &prim.targets).unwrap();
        let rig = skinner
            .rig(n as u32, &bytes, s, m, prim.targets.len())
            .unwrap();
        let buffer = mesh_buffer(&gpu, &packed);
        let mut inst = skinner
            .instance(&buffer, &packed, &rig, palette.len())
            .unwrap();
        inst.set_pose(&palette, &[]);
        let (pos, basis) = skin_and_read(&gpu, &skinner, &inst, &packed);
        let want = skin_reference(prim, &palette, &[]);
        for (i, (w, (p, b))) in want.iter().zip(pos.iter().zip(&basis)).enumerate() {
            let d = (Vec3::from_array(*p) - Vec3::from_array(w.0)).length();
            assert!(d <= 1e-4, "vertex {i}: GPU {p:?}, CPU {:?} ({d} m)", w.0);
            let (gn, _) = unpack_basis(*b);
            let cos = Vec3::from_array(gn).dot(Vec3::from_array(w.1));
            assert!(
                cos > 0.5f32.to_radians().cos(),
                "vertex {i}: normal off by {}°",
                cos.acos().to_degrees()
            );
            moved = moved
                .max((Vec3::from_array(*p) - Vec3::from_array(prim.vertices[i].position)).length());
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        mesh.primitives
            .iter()
            .map(|p| p.vertices.len())
            .sum::<usize>()
    );
    // The pose is not the bind pose: the test would see a skinner that did nothing.
    assert!(
        moved > 0.05,
        "the walk at 0.5 s moved no vertex more than {moved} m"
    );
    drop(skinner);
    testing::finish(gpu);
}

// ---------------------------------------------------------------------------------------
// Goldens: skinned models drawn by the renderer (every pass reads the skinned streams).

use dh_content::gltf::{Pose, Trs};
use dh_gpu::render::compare::{compare, decode_png};
use dh_gpu::render::frame::{
    BoxInstance, Lighting, Material, MeshAsset, MeshInstance, Post, Projection, RenderFrame,
    Shading, SubMesh, Surface, View,
};
use dh_gpu::render::skin::{SkinRigAsset, SkinnedMesh};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::Renderer;
use dh_gpu::RgbaImage;
use glam::{Mat3, Quat};
use std::path::Path;
use std::sync::Arc;

/// Mean error allowed against a golden (as render_meshes.rs).
const MEAN: f64 = 0.02;
/// 99th-percentile error allowed.
const P99: f64 = 0.12;

fn check_golden(name: &str, image: &RgbaImage) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"));
    match std::fs::read(&path) {
        Ok(bytes) => {
            let golden = decode_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let diff = compare(image, &golden).unwrap_or_else(|| panic!("{name}: sizes differ"));
            assert!(
                diff.within(MEAN, P99),
                "{name}: differs from {}: {diff:?}",
                path.display()
            );
        }
        Err(_) => {
            image.write_png(&path).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("{name}: no golden; wrote {}", path.display());
        }
    }
}

/// The frame drawing `model` at `locals` (morph weights by node in `morph`): one mesh
/// instance per primitive of each drawn node, skinned through the renderer, on a floor
/// under its posed bounds; and a camera looking at those bounds from direction `from`.
fn model_frame(
    model: &Model,
    locals: &[Trs],
    morph: &HashMap<usize, Vec<f32>>,
    from: Vec3,
) -> (RenderFrame, View) {
    let sk = Skeleton::new(model);
    let world = sk.world(locals);
    let mut frame = RenderFrame {
        materials: vec![
            Material {
                shading: Shading::Lit,
                base_color: Vec3::new(0.8, 0.55, 0.3),
                ..Material::flat_white()
            },
            Material {
                shading: Shading::Lit,
                base_color: Vec3::new(0.45, 0.5, 0.55),
                ..Material::flat_white()
            },
        ],
        lighting: Lighting::default(),
        post: Post {
            exposure: 1.0,
            tonemap: Tonemap::ReinhardWhite,
            hable: Hable::PUBLISHED,
            bloom: None,
        },
        ..RenderFrame::default()
    };
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for (n, node) in model.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        let mesh = &model.meshes[m];
        let palette = node
            .skin
            .map(|s| sk.palette(model, s, n, &world))
            .unwrap_or_default();
        let weights = morph
            .get(&n)
            .cloned()
            .unwrap_or_else(|| mesh.weights.clone());
        for (k, prim) in mesh.primitives.iter().enumerate() {
            if prim.indices.is_empty() {
                continue;
            }
            let packed = pack_streams(&prim.vertices, None, None).unwrap();
            let key = (n as u64) << 16 | k as u64;
            let skinned = skin_reference(prim, &palette, &weights);
            for v in &skinned {
                let p = world[n].transform_point3(Vec3::from_array(v.0));
                lo = lo.min(p);
                hi = hi.max(p);
            }
            let mut blo = Vec3::INFINITY;
            let mut bhi = Vec3::NEG_INFINITY;
            for v in &prim.vertices {
                blo = blo.min(Vec3::from_array(v.position));
                bhi = bhi.max(Vec3::from_array(v.position));
            }
            let asset = Arc::new(MeshAsset {
                key,
                packed,
                indices: prim.indices.clone(),
                submeshes: vec![SubMesh {
                    first_index: 0,
                    index_count: prim.indices.len() as u32,
                    slot: 0,
                    surface: Surface::Opaque,
                }],
                bounds: (blo, bhi),
            });
            let instance = frame.meshes.len();
            frame.meshes.push(MeshInstance {
                mesh: asset,
                world: world[n],
                materials: vec![0],
                casts_shadows: true,
            });
            if node.skin.is_some() || !prim.targets.is_empty() {
                let stream = node
                    .skin
                    .and(prim.skin.as_ref())
                    .and_then(|s| skinning_stream(&[s]));
                let rig =
                    SkinRigAsset::new(key, prim.vertices.len(), stream.as_deref(), &prim.targets)
                        .unwrap();
                frame.skinned.push(SkinnedMesh {
                    instance,
                    id: key,
                    rig: Arc::new(rig),
                    palette: palette.clone(),
                    weights: weights.clone(),
                });
            }
        }
    }
    let size = (hi - lo).max_element();
    frame.static_boxes.push(BoxInstance {
        position: Vec3::new((lo.x + hi.x) * 0.5, lo.y - size * 0.05, (lo.z + hi.z) * 0.5),
        rotation: Quat::IDENTITY,
        size: Vec3::new(size * 3.0, size * 0.1, size * 3.0),
        material: 1,
    });
    let center = (lo + hi) * 0.5;
    let back = from.normalize();
    let position = center + back * size * 1.6;
    let right = Vec3::Y.cross(back).normalize();
    let up = back.cross(right);
    let view = View {
        position,
        rotation: Quat::from_mat3(&Mat3::from_cols(right, up, back)),
        projection: Projection::Perspective { fov_y: 45.0 },
        near: size * 0.01,
        far: None,
    };
    (frame, view)
}

fn object(name: &str) -> Option<Model> {
    let bytes = fixture(name)?;
    let opts = ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    };
    Some(import_glb_with(&bytes, name, &opts).unwrap_or_else(|e| panic!("{e}")))
}

/// Renders `frame` twice (the second frame re-skins from the pose sections), checking the
/// skinned draws are drawn.
fn render(r: &mut Renderer, frame: &RenderFrame, view: &View) -> RgbaImage {
    let _ = r
        .render(frame, view, 160, 120)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = r
        .render(frame, view, 160, 120)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.mesh_draws, frame.meshes.len());
    out.image
}

/// The fraction of pixels that differ between two pictures by more than a few levels.
fn changed(a: &RgbaImage, b: &RgbaImage) -> f64 {
    let n = (a.width * a.height) as usize;
    let d = (0..a.height)
        .flat_map(|y| (0..a.width).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let (p, q) = (a.pixel(x, y).unwrap(), b.pixel(x, y).unwrap());
            (0..3).any(|k| p[k].abs_diff(q[k]) > 8)
        })
        .count();
    d as f64 / n as f64
}

#[test]
fn skinned_models_match_their_goldens() {
    let (Some(man), Some(fox), Some(rig)) = (
        object("CesiumMan.glb"),
        object("Fox.glb"),
        object("RiggedSimple.glb"),
    ) else {
        return;
    };
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let none = HashMap::new();
        // CesiumMan at rest, seen from the front-right.
        let side = Vec3::new(0.6, 0.35, 1.0);
        let sk = Skeleton::new(&man);
        let rest = sk.rest();
        let (frame, view) = model_frame(&man, &rest, &none, side);
        let bind = render(&mut r, &frame, &view);
        check_golden("skin-cesium-man-bind", &bind);
        // Its walk at 0.5 s, framed by the same camera.
        let mut walk = sk.rest();
        let mut w = HashMap::new();
        sample_clip(&man.animations[0], 0.5, &mut walk, &mut w);
        let (mut posed, _) = model_frame(&man, &walk, &none, side);
        posed.static_boxes = frame.static_boxes.clone();
        let walking = render(&mut r, &posed, &view);
        assert!(
            changed(&bind, &walking) > 0.005,
            "the walk moves the body in the picture"
        );
        check_golden("skin-cesium-man-walk", &walking);

        // The fox, by its Walk clip at 0.5 s, from its left side.
        let fsk = Skeleton::new(&fox);
        let clip = fox.animations.iter().find(|a| a.name == "Walk").unwrap();
        let mut l = fsk.rest();
        sample_clip(clip, 0.5, &mut l, &mut w);
        let (frame, view) = model_frame(&fox, &l, &none, Vec3::new(1.0, 0.3, 0.2));
        check_golden("skin-fox-walk", &render(&mut r, &frame, &view));

        // RiggedSimple with its upper bone bent 60° about X, against it straight.
        let rsk = Skeleton::new(&rig);
        let straight_l = rsk.rest();
        let mut bent_l = rsk.rest();
        let pose = Pose {
            rotations: [(
                "Bone.001".to_string(),
                Quat::from_rotation_x(60f32.to_radians()),
            )]
            .into(),
        };
        assert!(rsk.apply_pose(&pose, &mut bent_l).is_empty());
        let from = Vec3::new(0.1, 0.2, 1.0);
        let (frame, view) = model_frame(&rig, &straight_l, &none, from);
        let straight = render(&mut r, &frame, &view);
        let (mut bent_frame, _) = model_frame(&rig, &bent_l, &none, from);
        bent_frame.static_boxes = frame.static_boxes.clone();
        let bent = render(&mut r, &bent_frame, &view);
        assert!(changed(&straight, &bent) > 0.005, "the bend shows");
        check_golden("skin-rigged-simple-bent", &bent);
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}
