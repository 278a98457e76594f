//! Block light a platform pallet states (spec `dh.voxel`, "Light": a block's
//! `lightEmission` by state; "The light field": per-block light colors, a step losing 1
//! per channel) reaches a streamed volume's light field through [`LookInputs::light`].

use std::sync::Arc;

use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{
    encode, Grid, GridInfo, PaletteEntry, PropValue, Property, VoxelPayload,
};
use dh_engine::voxel::{
    pack_light_rgb, BlockLight, BlockLightTable, CameraView, LookInputs, OwnedPayload, PalletLight,
    StreamConfig, StreamVolume, VolumeSource, VoxelLooks, VoxelStreamer,
};

const STONE: u32 = 1;
const LAMP_ON: u32 = 2;
const LAMP_OFF: u32 = 3;
/// The lit lamp's cell, and the cold one's: 32 steps apart, past any light's reach.
const ON_AT: [i32; 3] = [8, 8, 8];
const OFF_AT: [i32; 3] = [24, 8, 24];

fn entry(id: &str, props: &[(&str, &str)]) -> PaletteEntry {
    let mut e = PaletteEntry::new("minecraft", id);
    e.properties = props
        .iter()
        .map(|(k, v)| Property {
            key: (*k).into(),
            value: PropValue::String((*v).into()),
        })
        .collect();
    e
}

fn palette() -> Vec<PaletteEntry> {
    vec![
        PaletteEntry::empty(),
        entry("stone", &[]),
        entry("redstone_lamp", &[("lit", "true")]),
        entry("redstone_lamp", &[("lit", "false")]),
    ]
}

/// 32 × 16 × 32 cells of air over a stone floor at y = 0, a lit lamp and a cold one.
fn shards() -> Vec<Vec<u8>> {
    let size = [32, 16, 32];
    let mut p = VoxelPayload {
        palette: palette(),
        ..VoxelPayload::default()
    };
    p.header.platform = "com.mojang.minecraft".into();
    p.header.chunk_edge = 16;
    p.grids
        .push(Grid::new(GridInfo::new("blocks", [0, 0, 0], size)));
    for x in 0..size[0] {
        for z in 0..size[2] {
            p.set_cell(0, 0, [x, 0, z], STONE);
        }
    }
    p.set_cell(0, 0, ON_AT, LAMP_ON);
    p.set_cell(0, 0, OFF_AT, LAMP_OFF);
    encode(&p).unwrap_or_else(|e| panic!("{e}"))
}

/// The volume streamed whole and lit, its looks resolved with `light`.
fn stream(light: Option<Arc<dyn PalletLight + Send + Sync>>) -> (VoxelStreamer, StreamIdOf) {
    let mut s = VoxelStreamer::new(StreamConfig {
        workers: 0,
        region_chunks: 1,
        ..StreamConfig::default()
    });
    let id = s.add_volume(StreamVolume {
        name: "lamps".into(),
        source: VolumeSource::Payload {
            bytes: Arc::new(OwnedPayload {
                name: "w/lamps.dh-vox.bin".into(),
                shards: shards(),
            }),
            grid: 0,
            pose: None,
            looks: LookInputs {
                light,
                ..LookInputs::default()
            },
        },
        light_field: true,
    });
    let st = s.land_all(
        Some(CameraView {
            position: glam::Vec3::new(16.0, 8.0, 16.0),
            forward: glam::Vec3::new(1.0, 0.0, 0.0),
        }),
        100.0,
    );
    // 2 × 2 regions stand in brick columns 0..=1; with the ring, -1..=2 each way.
    assert_eq!(st.light_columns, 16);
    (s, id)
}

type StreamIdOf = dh_engine::voxel::StreamVolumeId;

fn at(s: &VoxelStreamer, id: StreamIdOf, c: [i32; 3]) -> u16 {
    s.light_at(id, c)
        .unwrap_or_else(|| panic!("cell {c:?} is not lit"))
}

fn add(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[test]
fn a_stated_colored_emitter_lights_its_neighbours_a_level_a_step_per_channel() {
    // The pallet states: a lit redstone lamp gives 12, colored (255, 0, 128), and cuts no
    // light (opacity 0). Nothing is stated for the cold one.
    let mut table = BlockLightTable::default();
    table.push(
        "minecraft",
        "redstone_lamp",
        &[("lit", "true")],
        BlockLight {
            emission: Some(12),
            color: Some([255, 0, 128]),
            shape: 0,
            opacity: Some(0),
        },
    );
    let (s, id) = stream(Some(Arc::new(table)));
    // By hand: red is the brightest channel, so red = 12; green 0; blue 12 × 128 / 255 =
    // 6.02, so 6. Each step loses 1 per channel, to no less than 0. Every cell here is
    // air or the lamp (opacity 0) under open sky, so sky falls through them at 15.
    let rgb = |d: i32| [12 - d, 0, (6 - d).max(0)].map(|v| v as u8);
    assert_eq!(at(&s, id, ON_AT), pack_light_rgb(15, rgb(0)));
    assert_eq!(at(&s, id, ON_AT), 0xFC06);
    for dir in [
        [1, 0, 0],
        [-1, 0, 0],
        [0, 1, 0],
        [0, -1, 0],
        [0, 0, 1],
        [0, 0, -1],
    ] {
        let one = add(ON_AT, dir);
        assert_eq!(at(&s, id, one), pack_light_rgb(15, rgb(1)), "{one:?}");
        assert_eq!(at(&s, id, one), 0xFB05, "{one:?}");
    }
    // Two steps (straight and diagonal) and three.
    assert_eq!(at(&s, id, add(ON_AT, [2, 0, 0])), 0xFA04);
    assert_eq!(at(&s, id, add(ON_AT, [1, 1, 0])), 0xFA04);
    assert_eq!(at(&s, id, add(ON_AT, [1, -1, 1])), 0xF903);
    // The cold lamp gives nothing, and nothing reaches it: sky alone (it is opaque, so
    // none inside it; open sky above it).
    assert_eq!(at(&s, id, add(OFF_AT, [0, 1, 0])), 0xF000);
}

#[test]
fn without_stated_light_a_lamp_gives_none() {
    // The built-in levels know no redstone lamp, in any state.
    let (s, id) = stream(None);
    assert_eq!(at(&s, id, add(ON_AT, [1, 0, 0])), 0xF000);
    assert_eq!(at(&s, id, add(ON_AT, [0, 1, 0])), 0xF000);
}

#[test]
fn minecrafts_pallet_light_is_read_by_state() {
    // Hand values of Minecraft's own blocks: a lit lamp 15 and a cold one 0, a lit
    // furnace 13, a redstone torch off 0 (the built-in, state-blind level is 7), three lit
    // candles 9, a light block at level 5 gives 5, four waterlogged sea pickles 15, a
    // respawn anchor at 2 charges 7.
    let entries = vec![
        PaletteEntry::empty(),
        entry("redstone_lamp", &[("lit", "true")]),
        entry("redstone_lamp", &[("lit", "false")]),
        entry("furnace", &[("facing", "north"), ("lit", "true")]),
        entry("redstone_torch", &[("lit", "false")]),
        entry("redstone_torch", &[("lit", "true")]),
        entry("candle", &[("candles", "3"), ("lit", "true")]),
        entry("light", &[("level", "5"), ("waterlogged", "false")]),
        entry("sea_pickle", &[("pickles", "4"), ("waterlogged", "true")]),
        entry("respawn_anchor", &[("charges", "2")]),
        entry("glowstone", &[]),
    ];
    let tables = BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"));
    let table = BlockLightTable::minecraft();
    let looks = VoxelLooks::resolve_lit(
        &entries,
        tables,
        Some("com.mojang.minecraft"),
        None,
        None,
        Some(&table),
    );
    let got: Vec<u8> = looks.cells(true)[..entries.len()]
        .iter()
        .map(|c| c.emission)
        .collect();
    assert_eq!(got, vec![0, 15, 0, 13, 0, 7, 9, 5, 15, 7, 15]);
    // Gray: every channel at the level.
    assert_eq!(looks.cells(true)[3].light_rgb, [13, 13, 13]);
}
