//! GPU skinning throughput (issue 17): CesiumMan (its clip at 0.5 s) skinned by
//! `render::skin` for N instances, one dispatch each and one barrier, as the renderer
//! records them; skinned vertices a second from the median of `--rounds` timed submits
//! (each waited for). `cargo bench --workspace --bench skinning -- --instances 1,16,64
//! --rounds 15`. The device is the backend's choice (`DH_GPU_DEVICE`, or
//! `VK_DRIVER_FILES` naming lavapipe's ICD for a smoke figure; lavapipe runs the compute on
//! the CPU cores). Reads `../shared/fixtures/gltf/CesiumMan.glb`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dh_content::gltf::{import_glb_with, sample_clip, ImportOptions, Purpose, Skeleton};
use dh_content::mesh::pack_streams;
use dh_gpu::render::skin::{rig_bytes, skinning_stream, SkinInstance, Skinner};
use dh_gpu::{vk, BufferDesc, Gpu, GpuDesc, MemoryLocation};

fn main() {
    let mut instances = vec![1usize, 16, 64];
    let mut rounds = 15usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--instances" => {
                instances = it
                    .next()
                    .map(|v| v.split(',').filter_map(|n| n.parse().ok()).collect())
                    .unwrap_or_default();
            }
            "--rounds" => rounds = it.next().and_then(|v| v.parse().ok()).unwrap_or(rounds),
            "--quick" => {
                instances = vec![1, 4];
                rounds = 3;
            }
            _ => {}
        }
    }
    if let Err(e) = run(&instances, rounds.max(1)) {
        eprintln!("skinning: {e}");
        std::process::exit(1);
    }
}

fn run(counts: &[usize], rounds: usize) -> Result<(), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/gltf/CesiumMan.glb");
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let opts = ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    };
    let model = import_glb_with(&bytes, "CesiumMan.glb", &opts).map_err(|e| e.to_string())?;
    let node = model
        .nodes
        .iter()
        .position(|n| n.skin.is_some() && n.mesh.is_some())
        .ok_or("CesiumMan has no skinned mesh")?;
    let skin = model.nodes[node].skin.ok_or("no skin")?;
    let prim = model.meshes[model.nodes[node].mesh.ok_or("no mesh")?]
        .primitives
        .first()
        .ok_or("no primitive")?;
    let sk = Skeleton::new(&model);
    let mut locals = sk.rest();
    if let Some(clip) = model.animations.first() {
        sample_clip(clip, 0.5, &mut locals, &mut HashMap::new());
    }
    let palette = sk.palette(&model, skin, node, &sk.world(&locals));

    let gpu = Gpu::new(&GpuDesc {
        app_name: "dh skinning bench".to_owned(),
        ..GpuDesc::default()
    })
    .map_err(|e| e.to_string())?;
    let skinner = Skinner::new(&gpu).map_err(|e| e.to_string())?;
    let packed = pack_streams(&prim.vertices, None, None).map_err(|e| e.to_string())?;
    let stream = prim
        .skin
        .as_ref()
        .and_then(|s| skinning_stream(&[s]))
        .ok_or("no skinning stream")?;
    let n = prim.vertices.len();
    let (rb, s, m) = rig_bytes(n, Some(&stream), &prim.targets)?;
    let rig = skinner
        .rig(n as u32, &rb, s, m, prim.targets.len())
        .map_err(|e| e.to_string())?;
    let mut mesh = gpu
        .create_buffer(&BufferDesc {
            name: "bench mesh",
            size: packed.bytes.len() as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })
        .map_err(|e| e.to_string())?;
    mesh.mapped_slice_mut().ok_or("unmapped")?[..packed.bytes.len()].copy_from_slice(&packed.bytes);
    let report = gpu.report();
    let device = report
        .adapters
        .get(report.selected)
        .map_or("?", |a| a.name.as_str());
    println!("device: {device}");
    println!(
        "CesiumMan: {n} vertices, {} joints; {rounds} rounds",
        palette.len()
    );
    println!("instances  vertices/dispatch-set  median ms  skinned vertices/s");
    for &count in counts {
        let mut insts: Vec<SkinInstance> = Vec::with_capacity(count);
        for _ in 0..count {
            let mut i = skinner
                .instance(&mesh, &packed, &rig, palette.len())
                .map_err(|e| e.to_string())?;
            i.set_pose(&palette, &[]);
            insts.push(i);
        }
        let refs: Vec<&SkinInstance> = insts.iter().collect();
        // One submit, waited for: its wall time.
        let submit = || -> Result<Duration, String> {
            let start = Instant::now();
            let (_, v) = gpu
                .immediate(|_, cmd| {
                    skinner.record(cmd, &refs);
                    Ok(())
                })
                .map_err(|e| e.to_string())?;
            gpu.wait_for(v, Duration::from_secs(600))
                .map_err(|e| e.to_string())?;
            Ok(start.elapsed())
        };
        // One untimed warm-up (pipeline and shader cache).
        submit()?;
        let mut times: Vec<Duration> = (0..rounds).map(|_| submit()).collect::<Result<_, _>>()?;
        times.sort();
        let median = times[times.len() / 2].as_secs_f64();
        let verts = (count * n) as f64;
        println!(
            "{count:>9}  {:>21}  {:>9.3}  {:>18.3e}",
            count * n,
            median * 1e3,
            verts / median
        );
        drop(refs);
        drop(insts);
        gpu.collect_garbage().map_err(|e| e.to_string())?;
    }
    Ok(())
}
