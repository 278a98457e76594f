//! Converting the Minecraft region fixtures, side by side with `fastanvil` + `fastnbt`
//! merely decoding the same chunks' block states into a palette array.
//!
//! `cargo bench --workspace --bench minecraft_world`. The fixtures are read from
//! `../shared/fixtures/minecraft/region/` beside the repository; without them a line
//! says so and nothing runs. Per fixture, one warm-up of each side, then five runs of
//! each interleaved (ours, ours on one thread, the peer, and again), the medians printed:
//!
//! * `ours`: `convert_world` on the save (read every chunk, inflate, NBT, palettes,
//!   unpack, block entities, encode and write the payload shards in memory), on the
//!   global rayon pool;
//! * `ours 1 thread`: the same on a one-thread pool;
//! * `fastanvil`: for every chunk of the same region file, `Region::read_chunk` (inflate),
//!   `fastnbt::from_bytes::<CurrentJavaChunk>`, and for every full chunk's sections each
//!   cell's palette index into a 4096-entry array (`try_iter_indices`), on one thread.
//!
//! Both sides run on the system allocator (glibc's). The `dh` binary, whose
//! `dh import minecraft-world` runs `convert_world`, uses mimalloc; under it both sides
//! ran slower here, by about the same share (docs/PERFORMANCE.md).
//!
//! Chunks a second count every chunk in the region file (full or skipped). Peak memory
//! is each side's own run in a child process (`VmHWM`, the resident high-water mark).
//! `DH_MCW_SIDE=dump DH_MCW_DIR=<save> DH_MCW_OUT=<dir>` writes the payload shards of
//! one save instead (to compare their sha256 before and after a change).

use std::path::{Path, PathBuf};
use std::time::Instant;

use dh_content::voxel::minecraft::world::{self, WorldOptions};

fn ours(dir: &Path) -> usize {
    let save = world::save::discover(dir).expect("a save");
    let (shards, _) = world::convert_world(&save, &WorldOptions::default()).expect("converts");
    shards.iter().map(Vec::len).sum()
}

fn peer(dir: &Path) -> u64 {
    use fastanvil::{CurrentJavaChunk, Region};
    let file = std::fs::File::open(dir.join("r.0.0.mca")).expect("region");
    let mut region = Region::from_stream(file).expect("region");
    let mut cells = vec![0u32; 4096];
    let mut sum = 0u64;
    for z in 0..32 {
        for x in 0..32 {
            let Ok(Some(data)) = region.read_chunk(x, z) else {
                continue;
            };
            let Ok(chunk) = fastnbt::from_bytes::<CurrentJavaChunk>(&data) else {
                continue;
            };
            if !chunk.status.ends_with("full") {
                continue;
            }
            let Some(tower) = &chunk.sections else {
                continue;
            };
            for s in tower.sections() {
                match s.block_states.try_iter_indices() {
                    Some(it) => {
                        for (c, i) in cells.iter_mut().zip(it) {
                            *c = i as u32;
                        }
                    }
                    None => cells.fill(0),
                }
                sum += u64::from(cells[4095]) + s.block_states.palette().len() as u64;
            }
        }
    }
    sum
}

fn chunks_in(dir: &Path) -> usize {
    let f = world::region::RegionFile::open(&dir.join("r.0.0.mca")).expect("region");
    f.slots().len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    if let (Ok(side), Ok(dir)) = (std::env::var("DH_MCW_SIDE"), std::env::var("DH_MCW_DIR")) {
        let dir = PathBuf::from(dir);
        match side.as_str() {
            "dump" => {
                // The payload shards written to $DH_MCW_OUT (0, 1, ...), to check with
                // sha256sum that a speed-up left the bytes alone.
                let save = world::save::discover(&dir).expect("a save");
                let (shards, _) =
                    world::convert_world(&save, &WorldOptions::default()).expect("converts");
                let out = PathBuf::from(std::env::var("DH_MCW_OUT").expect("DH_MCW_OUT"));
                for (i, s) in shards.iter().enumerate() {
                    std::fs::write(out.join(i.to_string()), s).expect("written");
                }
                return;
            }
            "ours" => {
                std::hint::black_box(ours(&dir));
            }
            _ => {
                std::hint::black_box(peer(&dir));
            }
        }
        println!("{}", vm_hwm_kib());
        return;
    }
    let fx = dh_bench::minecraft_region_fixtures();
    if fx.is_empty() {
        println!(
            "skipped: the region fixtures under ../shared/fixtures/minecraft/region are absent"
        );
        return;
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    println!("threads: {}", rayon::current_num_threads());
    println!(
        "{:<14} {:>7} {:>14} {:>14} {:>14} {:>10} {:>12} {:>12}",
        "fixture",
        "chunks",
        "ours ms",
        "ours 1t ms",
        "fastanvil ms",
        "1t ratio",
        "ours MiB",
        "peer MiB"
    );
    for (name, dir) in fx {
        let n = chunks_in(&dir);
        let sides: [&dyn Fn(); 3] = [
            &|| {
                std::hint::black_box(ours(&dir));
            },
            &|| {
                one.install(|| {
                    std::hint::black_box(ours(&dir));
                })
            },
            &|| {
                std::hint::black_box(peer(&dir));
            },
        ];
        for f in sides {
            f();
        }
        // Interleaved, so that a change in the machine's load falls on every side.
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..5 {
            for (f, t) in sides.iter().zip(&mut times) {
                let start = Instant::now();
                f();
                t.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let [a, b, c] = times.map(median);
        let mem = |side: &str| -> f64 {
            let out = std::process::Command::new(std::env::current_exe().expect("exe"))
                .env("DH_MCW_SIDE", side)
                .env("DH_MCW_DIR", &dir)
                .output()
                .expect("child");
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .lines()
                .last()
                .and_then(|l| l.parse::<f64>().ok())
                .unwrap_or(0.0)
                / 1024.0
        };
        println!(
            "{name:<14} {n:>7} {a:>9.1} ({:>5.0}/s) {b:>7.1} ({:>5.0}/s) {c:>7.1} ({:>5.0}/s) {:>9.2}x {:>12.1} {:>12.1}",
            n as f64 / a * 1e3,
            n as f64 / b * 1e3,
            n as f64 / c * 1e3,
            c / b,
            mem("ours"),
            mem("peer"),
        );
    }
}
