//! The voxel streamer (spec `dh.voxel`, the streaming paragraphs and preferences of "How
//! the engine draws it", "The light field"): what loads and unloads, the urgent order,
//! both ceilings, captures, and that the meshes do not depend on the thread count.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{
    encode_with, EncodeOptions, Grid, GridInfo, PaletteEntry, VoxelPayload,
};
use dh_engine::voxel::gpu_mesh::{SLOT_ATLAS, SLOT_MISSING};
use dh_engine::voxel::stream::{RegionKey, Work};
use dh_engine::voxel::{
    unpack_light, CameraView, LookInputs, MapChunks, OwnedPayload, Placement, StreamConfig,
    StreamVolume, VolumeSource, VoxelLooks, VoxelStreamer,
};
use dh_gpu::render::frame::{MeshAsset, RenderFrame, Sampling, Shading, Surface as GpuSurface};
use glam::{DVec3, Vec3};

const STONE: u32 = 1;
const GLASS: u32 = 2;
const UNKNOWN: u32 = 3;
const LEAVES: u32 = 4;

fn palette() -> Vec<PaletteEntry> {
    let mc = |id: &str| PaletteEntry::new("minecraft", id);
    vec![
        PaletteEntry::empty(),
        mc("stone"),
        mc("glass"),
        mc("no_such_block_anywhere"),
        mc("oak_leaves"),
    ]
}

fn looks() -> Arc<VoxelLooks> {
    let tables = BlockTables::builtin().expect("built-in tables load");
    Arc::new(VoxelLooks::resolve(
        &palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        None,
    ))
}

/// A row of `n` 16-cell regions along X (one chunk each, regionChunks 1): a stone floor
/// at y = 0 in every one, so every region draws.
fn row(n: i32) -> MapChunks {
    let mut w = MapChunks::new(16);
    for x in 0..16 * n {
        for z in 0..16 {
            w.set([x, 0, z], STONE);
        }
    }
    w
}

/// Rolling ground over `size` × 32 × `size` cells: stone up to a height that varies,
/// glass and leaves on some columns, an unknown block here and there.
fn terrain(size: i32) -> MapChunks {
    let mut w = MapChunks::new(16);
    for x in 0..size {
        for z in 0..size {
            let h = 3 + (x * 7 + z * 13) % 11 + (x / 9 + z / 7) % 5;
            for y in 0..h {
                w.set([x, y, z], STONE);
            }
            match (x * 31 + z * 17) % 23 {
                0 => w.set([x, h, z], GLASS),
                1 => w.set([x, h, z], LEAVES),
                2 => w.set([x, h, z], UNKNOWN),
                _ => {}
            }
        }
    }
    w.compact();
    w
}

fn volume(w: MapChunks, cells: [[i32; 3]; 2], light: bool) -> StreamVolume {
    StreamVolume {
        name: "test".into(),
        source: VolumeSource::Chunks {
            chunks: Arc::new(w),
            cells,
            placement: Placement::identity(),
            looks: looks(),
        },
        light_field: light,
    }
}

fn config(workers: usize) -> StreamConfig {
    StreamConfig {
        workers,
        region_chunks: 1,
        ..StreamConfig::default()
    }
}

fn cam(x: f32, y: f32, z: f32, forward: [f32; 3]) -> CameraView {
    CameraView {
        position: Vec3::new(x, y, z),
        forward: Vec3::from(forward),
    }
}

/// Works the queue on this thread until nothing is left, taking results in with
/// `update` between tasks; returns what was meshed, in order.
fn drain(
    s: &mut VoxelStreamer,
    camera: CameraView,
    id: dh_engine::voxel::StreamVolumeId,
) -> Vec<RegionKey> {
    let mut meshed = Vec::new();
    loop {
        s.draw(id);
        s.update(camera);
        let mut any = false;
        while let Some(w) = s.work_one() {
            any = true;
            if let Work::Meshed(k) = w {
                meshed.push(k);
            }
        }
        if !any {
            s.draw(id);
            s.update(camera);
            if s.work_one().is_none() {
                return meshed;
            }
        }
    }
}

fn xs(keys: &[RegionKey]) -> Vec<i32> {
    keys.iter().map(|k| k.1[0]).collect()
}

#[test]
fn regions_load_within_the_radius_and_unload_past_the_margin() {
    // Region i spans x 16i..16i+16, y and z 0..16. Radius 40, margin 20.
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 40.0,
        unload_margin: 20.0,
        ..config(0)
    });
    let id = s.add_volume(volume(row(10), [[0, 0, 0], [160, 16, 16]], false));
    // Camera at x 8 (inside region 0): region i is 16i - 8 away, so 0..=3 are within 40.
    let a = cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    drain(&mut s, a, id);
    assert_eq!(xs(&s.resident_regions()), vec![0, 1, 2, 3]);
    // Camera at x 88 (inside region 5): region i is max(16i - 88, 72 - 16i) away, so
    // 2..=8 are within 40, region 1 (56) is kept within 60, region 0 (72) unloads.
    let b = cam(88.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    drain(&mut s, b, id);
    assert_eq!(xs(&s.resident_regions()), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    // Back at x 8: regions 0..=3 are wanted, region 4 (56) is kept, 5.. (72 and up) go.
    drain(&mut s, a, id);
    assert_eq!(xs(&s.resident_regions()), vec![0, 1, 2, 3, 4]);
    let st = s.stats();
    assert_eq!(st.resident, 5);
    assert_eq!((st.queued, st.meshing), (0, 0));
}

#[test]
fn the_nearest_goes_first_and_behind_weighs_behind_weight_times() {
    // Camera at x 96 (the border of regions 5 and 6), looking +X, on the row's axis.
    // Region 4 is behind at 16, region 8 ahead at 32 = 2 × 16: with behindWeight 3 the
    // one behind counts 48 and loses; with 1 it wins. Radius 45 wants regions 3..=8:
    // 3 is behind at 32 (96), 5 and 6 hold the camera (0), 7 is ahead at 16.
    let order = |weight: f32| {
        let mut s = VoxelStreamer::new(StreamConfig {
            stream_radius: 45.0,
            behind_weight: weight,
            ..config(0)
        });
        let id = s.add_volume(volume(row(12), [[0, 0, 0], [192, 16, 16]], false));
        xs(&drain(&mut s, cam(96.0, 8.0, 8.0, [1.0, 0.0, 0.0]), id))
    };
    assert_eq!(order(3.0), vec![5, 6, 7, 8, 4, 3]);
    let plain = order(1.0);
    let at = |r: i32| plain.iter().position(|&x| x == r);
    assert_eq!(plain.len(), 6);
    assert!(
        at(4) < at(8),
        "distance alone: region 4 (16) before region 8 (32): {plain:?}"
    );
    // The camera turned round: now 8 is behind (32 × 3 = 96), 4 ahead (16).
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 45.0,
        ..config(0)
    });
    let id = s.add_volume(volume(row(12), [[0, 0, 0], [192, 16, 16]], false));
    let turned = xs(&drain(&mut s, cam(96.0, 8.0, 8.0, [-1.0, 0.0, 0.0]), id));
    assert_eq!(turned, vec![5, 6, 4, 3, 7, 8]);
}

#[test]
fn a_region_unloaded_while_queued_is_never_meshed() {
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 20.0,
        unload_margin: 0.0,
        ..config(0)
    });
    let id = s.add_volume(volume(row(10), [[0, 0, 0], [160, 16, 16]], false));
    // At x 8: region 0 (0) and region 1 (8) are wanted, region 2 (24) is not.
    let a = cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    s.draw(id);
    s.update(a);
    assert!(matches!(s.work_one(), Some(Work::Opened(_))));
    s.update(a);
    assert_eq!(xs(&s.queued_regions()), vec![0, 1]);
    // One thread meshes region 0; region 1 still waits when the camera leaves.
    assert_eq!(s.work_one(), Some(Work::Meshed((id, [0, 0, 0]))));
    // At x 152 (region 9): regions 8 (8) and 9 (0) are wanted; 0 and 1 are past 20.
    let b = cam(152.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    s.draw(id);
    let st = s.update(b);
    assert_eq!(st.dropped_unmeshed, 1);
    assert_eq!(st.meshed, 1);
    let rest = drain(&mut s, b, id);
    assert_eq!(xs(&rest), vec![9, 8]);
    assert!(!rest.contains(&(id, [1, 0, 0])));
    let st = s.stats();
    assert_eq!(st.meshed, 3);
    assert_eq!(st.dropped_unmeshed, 1);
    assert_eq!(xs(&s.resident_regions()), vec![8, 9]);
}

/// The distance from `p` to region `r`'s box (regions of `e` cells, identity placement),
/// computed here on its own.
fn region_distance(p: [f32; 3], r: [i32; 3], e: f32) -> f32 {
    let mut d2 = 0.0;
    for a in 0..3 {
        let lo = r[a] as f32 * e;
        let hi = lo + e;
        let d = if p[a] < lo {
            lo - p[a]
        } else if p[a] > hi {
            p[a] - hi
        } else {
            0.0
        };
        d2 += d * d;
    }
    d2.sqrt()
}

#[test]
fn the_ceilings_hold_at_every_frame_of_a_flight() {
    let max_meshes = 9;
    let budget = 1_500_000;
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 48.0,
        unload_margin: 16.0,
        max_meshes,
        mesh_budget_bytes: budget,
        ..config(2)
    });
    let id = s.add_volume(volume(terrain(256), [[0, 0, 0], [256, 32, 256]], false));
    // Landed at the start of the path first, so the flight leaves meshed regions behind
    // however slowly the workers keep up (on a loaded machine they may mesh nothing in
    // flight): the regions around the start and the end are disjoint, so the total
    // meshed below exceeds one ceiling's worth whatever the timing.
    let start = s.land_all(Some(cam(20.0, 30.0, 30.0, [1.0, -0.3, 0.9])), 48.0);
    assert!(
        start.resident > 0 && start.resident <= max_meshes,
        "{start:?}"
    );
    let mut log = s.take_log();
    for f in 0..400 {
        let t = f as f32 / 400.0;
        let camera = cam(20.0 + 220.0 * t, 30.0, 30.0 + 200.0 * t, [1.0, -0.3, 0.9]);
        s.draw(id);
        let st = s.update(camera);
        assert!(
            st.meshing + st.resident <= max_meshes,
            "frame {f}: {} meshing + {} resident > {max_meshes}",
            st.meshing,
            st.resident
        );
        assert!(
            st.bytes <= budget,
            "frame {f}: {} bytes > {budget}",
            st.bytes
        );
        let mut frame = RenderFrame::default();
        s.fill_frame(&mut frame);
        let held: usize = frame.meshes.iter().map(|m| m.mesh.byte_size()).sum();
        assert!(held <= budget, "frame {f}: instances hold {held} bytes");
        assert!(frame.meshes.len() <= max_meshes);
        log.extend(s.take_log());
        if f % 40 == 0 {
            std::thread::yield_now();
        }
    }
    // Settled at the end of the path: still under both ceilings.
    let end = cam(240.0, 30.0, 230.0, [1.0, -0.3, 0.9]);
    let st = s.land_all(Some(end), 48.0);
    assert!(st.resident <= max_meshes && st.bytes <= budget);
    assert!(st.resident > 0 && st.meshed > max_meshes, "{st:?}");
    log.extend(s.take_log());
    // The budget held regions back, and said so once, naming the preference.
    let budget_lines = log
        .iter()
        .filter(|l| l.contains("client.voxel.meshBudgetMb"))
        .count();
    let max_lines = log
        .iter()
        .filter(|l| l.contains("client.voxel.maxMeshes"))
        .count();
    assert!(budget_lines <= 1 && max_lines <= 1, "{log:?}");
    assert!(budget_lines + max_lines >= 1, "a ceiling held: {log:?}");
}

#[test]
fn the_budget_is_spent_nearest_first_and_warns_once() {
    // Every region of the row draws the same floor. Measure one region's bytes with a
    // streamer of its own, then give the budget room for three and a half.
    let mut one = VoxelStreamer::new(StreamConfig {
        stream_radius: 1.0,
        ..config(0)
    });
    let id1 = one.add_volume(volume(row(10), [[0, 0, 0], [160, 16, 16]], false));
    one.land_all(Some(cam(88.0, 8.0, 8.0, [1.0, 0.0, 0.0])), 1.0);
    let each = one
        .region_mesh((id1, [5, 0, 0]))
        .map(|m| m.byte_size())
        .unwrap_or_else(|| panic!("region 5 is meshed"));
    assert_eq!(one.resident_regions(), vec![(id1, [5, 0, 0])]);
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 200.0,
        mesh_budget_bytes: each * 7 / 2,
        ..config(0)
    });
    let id = s.add_volume(volume(row(10), [[0, 0, 0], [160, 16, 16]], false));
    // Camera in region 5, facing +X: 5 (0), 6 (8 ahead), 4 (8 behind), ... Three fit.
    let c = cam(88.0, 8.0, 8.0, [0.0, 0.0, 1.0]);
    drain(&mut s, c, id);
    let st = s.stats();
    assert_eq!(st.resident, 3);
    assert!(st.bytes <= each * 7 / 2);
    assert_eq!(xs(&s.resident_regions()), vec![4, 5, 6]);
    assert!(st.dropped_by_budget >= 1);
    let log = s.take_log();
    assert_eq!(
        log.iter()
            .filter(|l| l.contains("client.voxel.meshBudgetMb"))
            .count(),
        1,
        "{log:?}"
    );
    // Flying on drops and loads more, but the warning does not come again this map.
    for x in [100.0, 120.0, 140.0, 60.0, 20.0] {
        drain(&mut s, cam(x, 8.0, 8.0, [0.0, 0.0, 1.0]), id);
        let st = s.stats();
        assert!(st.bytes <= each * 7 / 2);
        // The resident regions are the nearest ones.
        let p = [x, 8.0, 8.0];
        let far = s
            .resident_regions()
            .iter()
            .map(|k| region_distance(p, k.1, 16.0))
            .fold(0.0f32, f32::max);
        for r in 0..10 {
            let d = region_distance(p, [r, 0, 0], 16.0);
            if d < far {
                assert!(
                    s.resident_regions().contains(&(id, [r, 0, 0])),
                    "at x {x}: region {r} ({d} m) is not resident but one {far} m away is"
                );
            }
        }
    }
    assert!(s.take_log().iter().all(|l| !l.contains("meshBudgetMb")));
    // A new map may warn again.
    s.new_map();
    let id = s.add_volume(volume(row(10), [[0, 0, 0], [160, 16, 16]], false));
    drain(&mut s, c, id);
    assert_eq!(
        s.take_log()
            .iter()
            .filter(|l| l.contains("client.voxel.meshBudgetMb"))
            .count(),
        1
    );
}

#[test]
fn max_meshes_counts_drawing_regions_and_keeps_the_nearest() {
    // Rows 0..10 with floors only in even regions: odd ones draw nothing and hold no
    // slot. maxMeshes 3 over a radius wanting every region.
    let mut w = MapChunks::new(16);
    for x in 0..160 {
        if (x / 16) % 2 == 0 {
            for z in 0..16 {
                w.set([x, 0, z], STONE);
            }
        }
    }
    let mut s = VoxelStreamer::new(StreamConfig {
        stream_radius: 500.0,
        max_meshes: 3,
        ..config(0)
    });
    let id = s.add_volume(volume(w, [[0, 0, 0], [160, 16, 16]], false));
    // At x 72 (region 4): even regions by distance: 4 (0), 2 (24) and 6 (24), 8 (56), 0.
    let c = cam(72.0, 8.0, 8.0, [0.0, 0.0, 1.0]);
    drain(&mut s, c, id);
    assert_eq!(xs(&s.resident_regions()), vec![2, 4, 6]);
    // The odd regions within reach were meshed to nothing without taking a slot.
    assert!(s.empty_regions().len() >= 2);
    assert!(s.stats().resident <= 3);
    assert!(s
        .take_log()
        .iter()
        .any(|l| l.contains("client.voxel.maxMeshes")));
}

/// Every region within `radius` of `p` (identity placement, `e`-cell regions) of a
/// volume of `n` regions along X and one deep: the capture's expected set.
fn within(p: [f32; 3], radius: f32, n: i32, e: f32) -> BTreeSet<i32> {
    (0..n)
        .filter(|&r| region_distance(p, [r, 0, 0], e) <= radius)
        .collect()
}

#[test]
fn land_all_meshes_every_region_within_the_capture_radius() {
    for workers in [0, 2] {
        let mut s = VoxelStreamer::new(StreamConfig {
            stream_radius: 10.0,
            ..config(workers)
        });
        let id = s.add_volume(volume(row(20), [[0, 0, 0], [320, 16, 16]], false));
        let p = [100.0, 8.0, 8.0];
        let st = s.land_all(Some(cam(p[0], p[1], p[2], [1.0, 0.0, 0.0])), 70.0);
        let got: BTreeSet<i32> = s.resident_regions().iter().map(|k| k.1[0]).collect();
        assert_eq!(got, within(p, 70.0, 20, 16.0), "workers {workers}");
        assert_eq!((st.queued, st.meshing), (0, 0));
        let _ = id;
        // No camera: outward from the volume's origin (0, 0, 0).
        let mut s = VoxelStreamer::new(config(workers));
        s.add_volume(volume(row(20), [[0, 0, 0], [320, 16, 16]], false));
        s.land_all(None, 50.0);
        let got: BTreeSet<i32> = s.resident_regions().iter().map(|k| k.1[0]).collect();
        assert_eq!(got, within([0.0; 3], 50.0, 20, 16.0), "workers {workers}");
    }
}

fn mesh_set(s: &VoxelStreamer) -> BTreeMap<RegionKey, (Vec<u8>, Vec<u32>, String, String)> {
    s.resident_regions()
        .into_iter()
        .map(|k| {
            let m: &MeshAsset = s.region_mesh(k).unwrap_or_else(|| panic!("resident"));
            (
                k,
                (
                    m.packed.bytes.clone(),
                    m.indices.clone(),
                    format!("{:?}", m.submeshes),
                    format!("{:?}", m.bounds),
                ),
            )
        })
        .collect()
}

#[test]
fn the_meshes_do_not_depend_on_the_worker_count() {
    let c = cam(64.0, 20.0, 64.0, [1.0, 0.0, 0.3]);
    let run = |workers: usize| {
        let mut s = VoxelStreamer::new(StreamConfig {
            region_chunks: 2,
            ..config(workers)
        });
        s.add_volume(volume(terrain(128), [[0, 0, 0], [128, 32, 128]], false));
        s.land_all(Some(c), 60.0);
        mesh_set(&s)
    };
    let serial = run(0);
    assert!(serial.len() >= 4, "{} regions", serial.len());
    assert_eq!(run(1), serial);
    assert_eq!(run(3), serial);
}

fn payload_of(w: &MapChunks, lo: [i32; 3], size: [i32; 3]) -> VoxelPayload {
    let mut p = VoxelPayload {
        palette: palette(),
        ..VoxelPayload::default()
    };
    p.header.platform = "com.mojang.minecraft".into();
    p.header.chunk_edge = 16;
    p.grids.push(Grid::new(GridInfo::new("blocks", lo, size)));
    for x in lo[0]..lo[0] + size[0] {
        for y in lo[1]..lo[1] + size[1] {
            for z in lo[2]..lo[2] + size[2] {
                let v = w.get([x, y, z]);
                if v != 0 {
                    p.set_cell(0, 0, [x, y, z], v);
                }
            }
        }
    }
    p
}

/// [`terrain`] moved by `off` cells on X and Z.
fn terrain_at(size: i32, off: i32) -> MapChunks {
    let t = terrain(size);
    let mut w = MapChunks::new(16);
    for x in 0..size {
        for y in 0..32 {
            for z in 0..size {
                let v = t.get([x, y, z]);
                if v != 0 {
                    w.set([x + off, y, z + off], v);
                }
            }
        }
    }
    w
}

#[test]
fn a_payload_streams_the_same_meshes_through_a_tiny_cell_cache() {
    // 96 cells a side around x = z = 512, where the payload's 32-chunk regions meet, so
    // the payload holds four regions, spread over shards.
    let off = 512 - 48;
    let lo = [off, 0, off];
    let size = [96, 32, 96];
    let w = terrain_at(96, off);
    let shards = encode_with(
        &payload_of(&w, lo, size),
        &EncodeOptions { shard_bytes: 1024 },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(shards.len() > 1, "the payload spans shards");
    let c = cam(off as f32 + 40.0, 20.0, off as f32 + 40.0, [1.0, 0.0, 0.0]);
    let from_payload = |cache: usize| {
        let mut s = VoxelStreamer::new(StreamConfig {
            cell_cache_bytes: cache,
            ..config(2)
        });
        s.add_volume(StreamVolume {
            name: "payload".into(),
            source: VolumeSource::Payload {
                bytes: Arc::new(OwnedPayload {
                    name: "w/test.dh-vox.bin".into(),
                    shards: shards.clone(),
                }),
                grid: 0,
                pose: None,
                looks: LookInputs::default(),
            },
            light_field: false,
        });
        let st = s.land_all(Some(c), 48.0);
        assert!(st.cell_cache_bytes <= cache);
        let log = s.take_log();
        assert_eq!(log.len(), 1, "{log:?}");
        // Every entry but the unknown block resolves (dh:empty included), from the
        // built-in tables: no platform pallet is given.
        assert!(
            log[0].contains(": 5 palette entries resolved in ")
                && log[0].contains(
                    " ms: 0 drawn by the platform pallet, 4 from a block table, 1 wears the unresolved checker ("
                ),
            "{log:?}"
        );
        mesh_set(&s)
    };
    let mut s = VoxelStreamer::new(config(0));
    s.add_volume(volume(w, [lo, [off + 96, 32, off + 96]], false));
    s.land_all(Some(c), 48.0);
    let from_chunks = mesh_set(&s);
    assert!(from_chunks.len() >= 8, "{} regions", from_chunks.len());
    assert_eq!(from_payload(64 << 20), from_chunks);
    // A cache of one chunk still meshes every region the same.
    assert_eq!(from_payload(16 * 16 * 16 * 4 + 16), from_chunks);
}

#[test]
fn a_bad_payload_is_logged_and_draws_nothing() {
    let mut s = VoxelStreamer::new(config(0));
    s.add_volume(StreamVolume {
        name: "broken".into(),
        source: VolumeSource::Payload {
            bytes: Arc::new(OwnedPayload {
                name: "w/broken.dh-vox.bin".into(),
                shards: vec![b"DHVX\x09\x00".to_vec()],
            }),
            grid: 0,
            pose: None,
            looks: LookInputs::default(),
        },
        light_field: false,
    });
    let st = s.land_all(None, 100.0);
    assert_eq!((st.resident, st.volumes_open), (0, 0));
    let log = s.take_log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].starts_with("voxel volume 'broken': "), "{log:?}");
    assert!(log[0].contains("w/broken.dh-vox.bin"), "{log:?}");
}

#[test]
fn a_region_is_one_asset_with_a_sub_mesh_per_surface_and_the_checker() {
    // One region: a stone cell, a glass cell, a leaves cell (fast leaves: opaque) and a
    // cell nothing names, apart from each other.
    let mut w = MapChunks::new(16);
    w.set([1, 1, 1], STONE);
    w.set([5, 1, 1], GLASS);
    w.set([9, 1, 1], UNKNOWN);
    w.set([1, 1, 9], LEAVES);
    let mut s = VoxelStreamer::new(StreamConfig {
        opaque_leaves: false,
        ..config(0)
    });
    let id = s.add_volume(volume(w, [[0, 0, 0], [16, 16, 16]], false));
    s.land_all(Some(cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0])), 10.0);
    let m = s
        .region_mesh((id, [0, 0, 0]))
        .unwrap_or_else(|| panic!("region 0 is meshed"))
        .clone();
    // Six faces a cell: stone opaque, leaves cutout (fancy), glass translucent, the
    // unknown block opaque on the missing slot.
    let subs: Vec<(u32, GpuSurface, u32)> = m
        .submeshes
        .iter()
        .map(|s| (s.slot, s.surface, s.index_count))
        .collect();
    assert_eq!(
        subs,
        vec![
            (SLOT_ATLAS, GpuSurface::Opaque, 36),
            (SLOT_ATLAS, GpuSurface::Cutout, 36),
            (SLOT_ATLAS, GpuSurface::Translucent, 36),
            (SLOT_MISSING, GpuSurface::Opaque, 36),
        ]
    );
    assert_eq!(m.indices.len(), 144);
    assert_eq!(m.packed.vertex_count, 96);
    assert_eq!(
        (m.bounds.0.to_array(), m.bounds.1.to_array()),
        ([1.0, 1.0, 1.0], [10.0, 2.0, 10.0])
    );
    let mut frame = RenderFrame::default();
    s.fill_frame(&mut frame);
    assert_eq!(frame.materials.len(), 2);
    assert_eq!(frame.meshes.len(), 1);
    assert_eq!(frame.meshes[0].materials, vec![0, 1]);
    let atlas = &frame.materials[0];
    assert_eq!(atlas.sampling, Sampling::Nearest);
    assert_eq!(atlas.shading, Shading::Lit);
    let tex = atlas
        .base_color_texture
        .as_ref()
        .unwrap_or_else(|| panic!("an atlas"));
    // The stone's texel is the table's stone color (entry 1: the second texel).
    let stone = BlockTables::builtin()
        .expect("tables")
        .lookup("minecraft", "stone", Some("com.mojang.minecraft"), None)
        .and_then(|l| l.color)
        .unwrap_or_else(|| panic!("stone has a color"));
    assert_eq!(&tex.rgba[4..8], &stone);
    assert_eq!(frame.materials[1].shading, Shading::Missing);
}

#[test]
fn a_lit_volume_lights_its_columns_and_an_idle_one_closes() {
    let mut s = VoxelStreamer::new(StreamConfig {
        idle_frames: 5,
        ..config(0)
    });
    let id = s.add_volume(volume(row(4), [[0, 0, 0], [64, 16, 16]], true));
    let st = s.land_all(Some(cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0])), 100.0);
    assert_eq!(st.resident, 4);
    // Regions 0..=3 stand in brick columns x 0..=3, z 0; with the ring, x -1..=4 and
    // z -1..=1: 18 columns.
    assert_eq!(st.light_columns, 18);
    // Open sky above the floor, and darkness under it (below the field).
    let above = s.light_at(id, [8, 5, 8]).unwrap_or_else(|| panic!("lit"));
    assert_eq!(unpack_light(above).0, 15);
    assert_eq!(s.light_at(id, [8, -1, 8]), Some(0));
    // Undrawn for more than idleFrames frames: it closes and holds nothing.
    let c = cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    for _ in 0..7 {
        s.update(c);
    }
    let st = s.stats();
    assert!(!s.is_open(id));
    assert_eq!((st.resident, st.volumes_open, st.light_columns), (0, 0, 0));
    // Drawn again, it opens again and streams back in.
    let st = s.land_all(Some(c), 100.0);
    assert_eq!(st.resident, 4);
}

#[test]
fn the_streaming_preferences_are_the_specs() {
    // The spec's table: 128, 32, 2, 2, 3, 1500, 384, 512, 64, 120, true; light 96, 4;
    // glow 2.5, floor 0.75 (004:224, 004:225).
    let d = StreamConfig::from_prefs(&dh_engine::prefs::Prefs::new());
    assert_eq!(
        d,
        StreamConfig {
            stream_radius: 128.0,
            unload_margin: 32.0,
            workers: 2,
            region_chunks: 2,
            behind_weight: 3.0,
            max_meshes: 1500,
            capture_radius: 384.0,
            mesh_budget_bytes: 512 * 1024 * 1024,
            cell_cache_bytes: 64 * 1024 * 1024,
            idle_frames: 120,
            opaque_leaves: true,
            light_budget_mb: 96,
            light_slice: std::time::Duration::from_millis(4),
            emissive_intensity: 2.5,
            emissive_floor: 0.75,
        }
    );
    assert_eq!(d, StreamConfig::default());
    let mut p = dh_engine::prefs::Prefs::new();
    for set in [
        "client.voxel.streamRadius=64",
        "client.voxel.maxMeshes=10",
        "client.voxel.meshBudgetMb=3",
        "client.voxel.workers=5",
        "client.voxel.behindWeight=1",
    ] {
        p.apply_set_argument(set).unwrap_or_else(|e| panic!("{e}"));
    }
    let c = StreamConfig::from_prefs(&p);
    assert_eq!(
        (
            c.stream_radius,
            c.max_meshes,
            c.mesh_budget_bytes,
            c.workers,
            c.behind_weight
        ),
        (64.0, 10, 3 * 1024 * 1024, 5, 1.0)
    );
}

#[test]
fn urgency_is_distance_weighed_by_how_far_behind() {
    use dh_engine::voxel::stream::urgency;
    let c = cam(0.0, 0.0, 0.0, [2.0, 0.0, 0.0]);
    let unit = DVec3::splat(0.5);
    // 10.5 to the center, 10 to the box.
    assert_eq!(urgency(&c, DVec3::from([10.5, 0.0, 0.0]), unit, 3.0), 10.0);
    assert_eq!(urgency(&c, DVec3::from([-10.5, 0.0, 0.0]), unit, 3.0), 30.0);
    assert_eq!(urgency(&c, DVec3::from([0.0, 0.0, 10.5]), unit, 3.0), 10.0);
    assert_eq!(urgency(&c, DVec3::from([-10.5, 0.0, 0.0]), unit, 1.0), 10.0);
    // 45° behind: 1 + 2 · cos 45°.
    let d = urgency(&c, DVec3::new(-8.0, 0.0, 8.0), DVec3::ZERO, 3.0);
    let expect = 128f64.sqrt() * (1.0 + 2.0 * 0.5f64.sqrt());
    assert!((d - expect).abs() < 1e-9, "{d} vs {expect}");
    // Inside the box: 0 whatever the weight.
    assert_eq!(urgency(&c, DVec3::from([-0.2, 0.0, 0.0]), unit, 3.0), 0.0);
}

#[test]
fn switching_leaves_opens_the_volume_again() {
    let mut w = MapChunks::new(16);
    w.set([1, 1, 1], LEAVES);
    let mut s = VoxelStreamer::new(config(0));
    let id = s.add_volume(volume(w, [[0, 0, 0], [16, 16, 16]], false));
    let c = cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0]);
    s.land_all(Some(c), 10.0);
    let surfaces = |s: &VoxelStreamer| -> Vec<GpuSurface> {
        s.region_mesh((id, [0, 0, 0]))
            .map(|m| m.submeshes.iter().map(|x| x.surface).collect())
            .unwrap_or_default()
    };
    let first_key = s.region_mesh((id, [0, 0, 0])).map(|m| m.key);
    assert_eq!(surfaces(&s), vec![GpuSurface::Opaque]);
    s.set_config(StreamConfig {
        opaque_leaves: false,
        ..config(0)
    });
    assert!(!s.is_open(id));
    s.land_all(Some(c), 10.0);
    assert_eq!(surfaces(&s), vec![GpuSurface::Cutout]);
    // A new mesh generation: a new key, so the renderer frees the old copy.
    assert_ne!(s.region_mesh((id, [0, 0, 0])).map(|m| m.key), first_key);
}

#[test]
fn a_compiled_pallet_streams_by_range() {
    use dh_content::compile::{
        compile_sources, AssetKind, CompileOptions, SourceData, SourceEntry,
    };
    let size = [48, 32, 48];
    let w = terrain(48);
    let shards = dh_content::voxel::payload::encode(&payload_of(&w, [0, 0, 0], size))
        .unwrap_or_else(|e| panic!("{e}"));
    let manifest = r#"{ "id": "test.voxelstream", "name": "Voxel stream", "version": "1.0.0", "dependencies": [] }"#;
    let mut sources: Vec<(String, Vec<u8>)> = vec![(
        "voxels/ground.dh-vox".into(),
        br#"{ "platform": "com.mojang.minecraft", "data": "ground.dh-vox.bin" }"#.to_vec(),
    )];
    for (n, shard) in shards.into_iter().enumerate() {
        let path = dh_content::pallet::voxel_shard_name("voxels/ground.dh-vox.bin", n as u16);
        sources.push((path, shard));
    }
    let entries = sources
        .into_iter()
        .map(|(path, bytes)| SourceEntry {
            kind: AssetKind::of(&path)
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|| panic!("{path}: not an asset")),
            path,
            data: SourceData::Memory(Box::leak(bytes.into_boxed_slice())),
        })
        .collect();
    let out = compile_sources(
        Some(manifest),
        entries,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    let bytes = out.pallet.unwrap_or_else(|| panic!("no pallet"));
    let pallet = dh_content::pallet::Pallet::from_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
    let c = cam(24.0, 20.0, 24.0, [1.0, 0.0, 0.0]);
    let mut s = VoxelStreamer::new(config(2));
    s.add_volume(StreamVolume {
        name: "ground".into(),
        source: VolumeSource::Payload {
            bytes: Arc::new(dh_engine::voxel::PalletPayload {
                pallet: Arc::new(pallet),
                path: "voxels/ground.dh-vox.bin".into(),
            }),
            grid: 0,
            pose: None,
            looks: LookInputs::default(),
        },
        light_field: true,
    });
    let st = s.land_all(Some(c), 100.0);
    let log = s.take_log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].starts_with("voxel volume 'ground': ")
            && log[0].contains(" palette entries resolved in "),
        "{log:?}"
    );
    let mut r = VoxelStreamer::new(config(0));
    r.add_volume(volume(w, [[0, 0, 0], size], false));
    r.land_all(Some(c), 100.0);
    assert_eq!(mesh_set(&s), mesh_set(&r));
    // 3 × 3 regions on X and Z stand in brick columns 0..=2; with the ring, -1..=3.
    assert_eq!(st.light_columns, 25);
}

#[test]
fn a_chunk_that_does_not_decode_draws_empty_and_is_logged_once() {
    use dh_content::voxel::payload::{ChunkKey, PayloadReader};
    let size = [64, 16, 16];
    let w = row(4);
    let mut shards = dh_content::voxel::payload::encode(&payload_of(&w, [0, 0, 0], size))
        .unwrap_or_else(|e| panic!("{e}"));
    // Chunk (1, 0, 0)'s record: its codec tag set to 7, which no reader knows.
    let at = {
        let slices: Vec<&[u8]> = shards.iter().map(Vec::as_slice).collect();
        let r = PayloadReader::open(&slices).unwrap_or_else(|e| panic!("{e}"));
        let (region, chunk) = r
            .find_chunk(
                0,
                ChunkKey {
                    layer: 0,
                    chunk: [1, 0, 0],
                },
            )
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("chunk 1 is stored"));
        let rec = r
            .chunk_record(region, chunk)
            .unwrap_or_else(|e| panic!("{e}"));
        rec.as_ptr() as usize - slices[0].as_ptr() as usize
    };
    shards[0][at] = 7;
    let mut s = VoxelStreamer::new(config(0));
    let id = s.add_volume(StreamVolume {
        name: "cracked".into(),
        source: VolumeSource::Payload {
            bytes: Arc::new(OwnedPayload {
                name: "w/cracked.dh-vox.bin".into(),
                shards,
            }),
            grid: 0,
            pose: None,
            looks: LookInputs::default(),
        },
        light_field: false,
    });
    s.land_all(Some(cam(8.0, 8.0, 8.0, [1.0, 0.0, 0.0])), 100.0);
    // Regions 0, 2 and 3 draw their floors; region 1 reads as air.
    assert_eq!(xs(&s.resident_regions()), vec![0, 2, 3]);
    assert_eq!(xs(&s.empty_regions()), vec![1]);
    let log: Vec<String> = s
        .take_log()
        .into_iter()
        .filter(|l| !l.contains(" palette entries resolved in "))
        .collect();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].starts_with("voxel volume 'cracked': chunk [1, 0, 0] of grid 0 does not decode and draws as empty: "),
        "{log:?}"
    );
    assert!(log[0].contains("codec tag"), "{log:?}");
    let _ = id;
}
