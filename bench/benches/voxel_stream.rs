//! The voxel streamer on the spec's synthetic world (runtime assets, "Voxel volumes"):
//! 512 × 128 × 512 blocks chunked at 16, the camera 2 m over the middle.
//!
//! `cargo bench -p dh-bench --bench voxel_stream`. It prints one table:
//!
//! * a capture (`land_all`) within 128 m from in-memory chunks and from the encoded
//!   payload read by range through the decoded-cell cache (64 MiB), on 1 and 2 streaming
//!   threads: wall ms (best of 3), regions resident and empty, MiB of vertex and index
//!   buffers, MiB of cells cached;
//! * a flight across the world at 1.2 m a frame with 2 threads, the live radius (128 m):
//!   what `update` costs the frame (median and worst µs; it never waits on a thread) and
//!   how many regions were resident at the end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dh_bench::terrain::{self, Terrain, TORCH};
use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{encode, Grid, GridInfo, VoxelPayload};
use dh_engine::voxel::{
    CameraView, LookInputs, MapChunks, OwnedPayload, Placement, StreamConfig, StreamStats,
    StreamVolume, VolumeSource, VoxelLooks, VoxelStreamer,
};

const SIZE: [i32; 3] = [512, 128, 512];

fn world() -> MapChunks {
    terrain::world(&Terrain {
        size: SIZE,
        base: 44.0,
        hills: (24.0, 96),
        bumps: (4.0, 24),
    })
}

fn payload(w: &MapChunks) -> Vec<Vec<u8>> {
    let mut p = VoxelPayload {
        palette: terrain::palette(TORCH),
        ..VoxelPayload::default()
    };
    p.header.platform = "com.mojang.minecraft".into();
    p.header.chunk_edge = 16;
    p.grids
        .push(Grid::new(GridInfo::new("overworld", [0, 0, 0], SIZE)));
    for x in 0..SIZE[0] {
        for y in 0..SIZE[1] {
            for z in 0..SIZE[2] {
                let v = w.get([x, y, z]);
                if v != 0 {
                    p.set_cell(0, 0, [x, y, z], v);
                }
            }
        }
    }
    encode(&p).unwrap_or_else(|e| panic!("{e}"))
}

fn chunks_volume(w: &Arc<MapChunks>, looks: &Arc<VoxelLooks>) -> StreamVolume {
    StreamVolume {
        name: "synthetic".into(),
        source: VolumeSource::Chunks {
            chunks: w.clone(),
            cells: [[0, 0, 0], SIZE],
            placement: Placement::identity(),
            looks: looks.clone(),
        },
        light_field: false,
    }
}

fn payload_volume(shards: &[Vec<u8>]) -> StreamVolume {
    StreamVolume {
        name: "synthetic".into(),
        source: VolumeSource::Payload {
            bytes: Arc::new(OwnedPayload {
                name: "synthetic.dh-vox.bin".into(),
                shards: shards.to_vec(),
            }),
            grid: 0,
            pose: None,
            looks: LookInputs::default(),
        },
        light_field: false,
    }
}

fn capture(workers: usize, make: &dyn Fn() -> StreamVolume) -> (Duration, StreamStats) {
    let camera = CameraView {
        position: glam::Vec3::new(256.0, 74.0, 256.0),
        forward: glam::Vec3::new(0.0, 0.0, -1.0),
    };
    let mut best = Duration::MAX;
    let mut stats = StreamStats::default();
    for _ in 0..3 {
        let mut s = VoxelStreamer::new(StreamConfig {
            workers,
            ..StreamConfig::default()
        });
        s.add_volume(make());
        let t = Instant::now();
        stats = s.land_all(Some(camera), 128.0);
        best = best.min(t.elapsed());
    }
    (best, stats)
}

fn mib(b: usize) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn main() {
    let w = Arc::new(world());
    let tables = BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"));
    let looks = Arc::new(VoxelLooks::resolve(
        &terrain::palette(TORCH),
        tables,
        Some("com.mojang.minecraft"),
        None,
        None,
    ));
    let shards = payload(&w);
    println!("| what | threads | wall ms | resident | empty | MiB buffers | MiB cells cached |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for workers in [1, 2] {
        let (t, s) = capture(workers, &|| chunks_volume(&w, &looks));
        println!(
            "| capture 128 m, in-memory chunks | {workers} | {:.1} | {} | {} | {:.1} | - |",
            t.as_secs_f64() * 1e3,
            s.resident,
            s.empty,
            mib(s.bytes)
        );
        let (t, s) = capture(workers, &|| payload_volume(&shards));
        println!(
            "| capture 128 m, payload by range | {workers} | {:.1} | {} | {} | {:.1} | {:.1} |",
            t.as_secs_f64() * 1e3,
            s.resident,
            s.empty,
            mib(s.bytes),
            mib(s.cell_cache_bytes)
        );
    }
    // The frame's own share: the same flight with no thread, one task worked between
    // frames outside the timing.
    let mut s = VoxelStreamer::new(StreamConfig {
        workers: 0,
        ..StreamConfig::default()
    });
    let id = s.add_volume(payload_volume(&shards));
    let mut times = Vec::new();
    for f in 0..400 {
        let x = 20.0 + (f as f32 * 1.2) % 470.0;
        s.draw(id);
        let t = Instant::now();
        s.update(CameraView {
            position: glam::Vec3::new(x, 74.0, 256.0),
            forward: glam::Vec3::new(1.0, 0.0, 0.0),
        });
        times.push(t.elapsed());
        for _ in 0..2 {
            s.work_one();
        }
    }
    times.sort();
    let us = |q: usize| times[(times.len() - 1) * q / 100].as_secs_f64() * 1e6;
    println!();
    println!(
        "flight, 400 frames, no thread (update alone): median {:.0} µs, p90 {:.0} µs, p99 {:.0} µs, worst {:.0} µs",
        us(50),
        us(90),
        us(99),
        us(100)
    );
    // A flight: 1.2 m a frame along X at 74 m, 2 threads, a frame every 4 ms.
    let mut s = VoxelStreamer::new(StreamConfig {
        workers: 2,
        ..StreamConfig::default()
    });
    let id = s.add_volume(payload_volume(&shards));
    let mut times = Vec::new();
    for f in 0..400 {
        let x = 20.0 + (f as f32 * 1.2) % 470.0;
        s.draw(id);
        let t = Instant::now();
        s.update(CameraView {
            position: glam::Vec3::new(x, 74.0, 256.0),
            forward: glam::Vec3::new(1.0, 0.0, 0.0),
        });
        times.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(4));
    }
    times.sort();
    let st = s.stats();
    println!();
    let us = |q: usize| times[(times.len() - 1) * q / 100].as_secs_f64() * 1e6;
    println!(
        "flight, 400 frames, 2 threads: update median {:.0} µs, p90 {:.0} µs, p99 {:.0} µs, worst {:.0} µs; {} resident, {} meshed, {} dropped unmeshed",
        us(50),
        us(90),
        us(99),
        us(100),
        st.resident,
        st.meshed,
        st.dropped_unmeshed
    );
}
