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
