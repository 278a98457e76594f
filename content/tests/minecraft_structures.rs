//! The Minecraft structure importers (`.schem`, `.litematic`, `.nbt`, `.schematic`): every
//! fixture under `../shared/fixtures/minecraft/{schem,litematic,structure,schematic}`
//! imports (read in place; skipped with a line when absent), and each is checked against
//! counts computed here by a second, minimal reading path: a small NBT parser of this
//! file's own (over `miniz_oxide`'s inflate), its own varint, bit-unpacking and legacy id
//! decoding, never the importer's or `nbt.rs`. Then crafted bad files, and `dh build`.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use dh_content::voxel::minecraft::{
    import_bytes, release_for_data_version, Limits, MinecraftError, StructureFormat,
};
use dh_content::voxel::payload::{decode_all, encode, ExtraKind, PropValue, VoxelPayload};

// ---------------------------------------------------------------------------------------
// A second, minimal NBT reader (recursive, trusting: fixtures only).

#[derive(Debug, Clone)]
#[allow(dead_code)] // F's value is read by Debug only
enum V {
    I(i64),
    F(f64),
    Bytes(Vec<u8>),
    S(String),
    L(Vec<V>),
    /// Entries, and the body's span (first entry through the closing End).
    C(Vec<(String, V)>, (usize, usize)),
    Ia(Vec<i32>),
    La(Vec<i64>),
}

impl V {
    fn get(&self, k: &str) -> Option<&V> {
        match self {
            V::C(e, _) => e.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v),
            _ => None,
        }
    }
    fn at(&self, k: &str) -> &V {
        self.get(k).unwrap_or_else(|| panic!("no {k}"))
    }
    fn i(&self) -> i64 {
        match self {
            V::I(v) => *v,
            other => panic!("not an int: {other:?}"),
        }
    }
    fn s(&self) -> &str {
        match self {
            V::S(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    fn list(&self) -> &[V] {
        match self {
            V::L(l) => l,
            other => panic!("not a list: {other:?}"),
        }
    }
    fn entries(&self) -> &[(String, V)] {
        match self {
            V::C(e, _) => e,
            other => panic!("not a compound: {other:?}"),
        }
    }
    fn span(&self) -> (usize, usize) {
        match self {
            V::C(_, s) => *s,
            other => panic!("not a compound: {other:?}"),
        }
    }
    fn ints(&self) -> Vec<i64> {
        match self {
            V::Ia(a) => a.iter().map(|&v| i64::from(v)).collect(),
            V::L(l) => l.iter().map(V::i).collect(),
            other => panic!("not ints: {other:?}"),
        }
    }
    fn bytes(&self) -> &[u8] {
        match self {
            V::Bytes(b) => b,
            other => panic!("not bytes: {other:?}"),
        }
    }
    fn longs(&self) -> &[i64] {
        match self {
            V::La(a) => a,
            other => panic!("not longs: {other:?}"),
        }
    }
}

struct P<'a> {
    b: &'a [u8],
    p: usize,
}

impl P<'_> {
    fn n(&mut self, k: usize) -> &[u8] {
        let s = &self.b[self.p..self.p + k];
        self.p += k;
        s
    }
    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.n(4).try_into().unwrap())
    }
    fn str(&mut self) -> String {
        let n = u16::from_be_bytes(self.n(2).try_into().unwrap()) as usize;
        String::from_utf8_lossy(self.n(n)).into_owned()
    }
    fn tag(&mut self, t: u8) -> V {
        match t {
            1 => V::I(self.n(1)[0] as i8 as i64),
            2 => V::I(i16::from_be_bytes(self.n(2).try_into().unwrap()) as i64),
            3 => V::I(self.i32() as i64),
            4 => V::I(i64::from_be_bytes(self.n(8).try_into().unwrap())),
            5 => V::F(f32::from_be_bytes(self.n(4).try_into().unwrap()) as f64),
            6 => V::F(f64::from_be_bytes(self.n(8).try_into().unwrap())),
            7 => {
                let n = self.i32() as usize;
                V::Bytes(self.n(n).to_vec())
            }
            8 => V::S(self.str()),
            9 => {
                let et = self.n(1)[0];
                let n = self.i32() as usize;
                V::L((0..n).map(|_| self.tag(et)).collect())
            }
            10 => {
                let start = self.p;
                let mut e = Vec::new();
                loop {
                    let t = self.n(1)[0];
                    if t == 0 {
                        break;
                    }
                    let name = self.str();
                    let v = self.tag(t);
                    e.push((name, v));
                }
                V::C(e, (start, self.p))
            }
            11 => {
                let n = self.i32() as usize;
                V::Ia((0..n).map(|_| self.i32()).collect())
            }
            12 => {
                let n = self.i32() as usize;
                V::La(
                    (0..n)
                        .map(|_| i64::from_be_bytes(self.n(8).try_into().unwrap()))
                        .collect(),
                )
            }
            t => panic!("tag {t}"),
        }
    }
}

/// gunzip (one member) with miniz_oxide's raw inflate.
fn gunzip(b: &[u8]) -> Vec<u8> {
    assert_eq!(&b[..3], &[0x1f, 0x8b, 8]);
    let flg = b[3];
    let mut p = 10;
    if flg & 4 != 0 {
        p += 2 + u16::from_le_bytes([b[p], b[p + 1]]) as usize;
    }
    for bit in [8, 16] {
        if flg & bit != 0 {
            while b[p] != 0 {
                p += 1;
            }
            p += 1;
        }
    }
    if flg & 2 != 0 {
        p += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&b[p..]).unwrap()
}

/// The inflated bytes and the root compound.
fn parse(file: &[u8]) -> (Vec<u8>, V) {
    let raw = gunzip(file);
    let mut p = P { b: &raw, p: 0 };
    assert_eq!(p.n(1)[0], 10);
    let _name = p.str();
    let v = p.tag(10);
    (raw, v)
}

// ---------------------------------------------------------------------------------------
// Shared expectations.

const AIRS: [&str; 3] = ["minecraft:air", "minecraft:cave_air", "minecraft:void_air"];
const VOID: &str = "minecraft:structure_void";

/// A state's key as the importer should intern it: the name (with `minecraft:` when bare)
/// and its properties sorted.
fn state_key(name: &str, props: &[(String, String)]) -> String {
    let name = if name.contains(':') {
        name.to_string()
    } else {
        format!("minecraft:{name}")
    };
    let mut p = props.to_vec();
    p.sort();
    let inner: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}[{}]", inner.join(","))
}

fn key_of_string(s: &str) -> (String, String) {
    let (name, props) = match s.find('[') {
        Some(i) => (&s[..i], &s[i + 1..s.len() - 1]),
        None => (s, ""),
    };
    let props: Vec<(String, String)> = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    let name = if name.contains(':') {
        name.to_string()
    } else {
        format!("minecraft:{name}")
    };
    (state_key(&name, &props), name)
}

fn key_of_compound(c: &V) -> (String, String) {
    let name = c.at("Name").s().to_string();
    let props: Vec<(String, String)> = c
        .get("Properties")
        .map(|p| {
            p.entries()
                .iter()
                .map(|(k, v)| (k.clone(), v.s().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let name = if name.contains(':') {
        name
    } else {
        format!("minecraft:{name}")
    };
    (state_key(&name, &props), name)
}

/// The payload's key for palette entry `i`, as [`state_key`] writes it.
fn payload_key(p: &VoxelPayload, i: usize) -> String {
    let e = &p.palette[i];
    let props: Vec<(String, String)> = e
        .properties
        .iter()
        .map(|q| {
            let v = match &q.value {
                PropValue::String(s) => s.clone(),
                PropValue::Int(n) => n.to_string(),
                PropValue::Bool(b) => b.to_string(),
            };
            (q.key.clone(), v)
        })
        .collect();
    state_key(&format!("{}:{}", e.ns, e.id), &props)
}

/// Per grid: cells stored (not `dh:empty`) and cells that are neither empty nor air, in
/// the blocks layer.
fn payload_counts(p: &VoxelPayload) -> Vec<(u64, u64)> {
    let air: Vec<bool> = p
        .palette
        .iter()
        .map(|e| e.ns == "minecraft" && AIRS.contains(&format!("minecraft:{}", e.id).as_str()))
        .collect();
    p.grids
        .iter()
        .map(|g| {
            let mut stored = 0;
            let mut solid = 0;
            for (k, c) in &g.chunks {
                if k.layer != 0 {
                    continue;
                }
                for &v in c {
                    if v != 0 {
                        stored += 1;
                        if !air[v as usize] {
                            solid += 1;
                        }
                    }
                }
            }
            (stored, solid)
        })
        .collect()
}

fn extras_of(p: &VoxelPayload, kind: ExtraKind) -> Vec<&dh_content::voxel::payload::Extra> {
    p.extras.iter().filter(|e| e.kind == kind).collect()
}

fn meta<'a>(p: &'a VoxelPayload, key: &str) -> Option<&'a str> {
    p.header
        .meta
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Imports a fixture, checks the payload writes and reads back the same, and returns it.
fn import_fixture(rel: &str, format: StructureFormat) -> Option<(Vec<u8>, VoxelPayload)> {
    let file = support::fixture(&format!("minecraft/{rel}"))?;
    let imp = import_bytes(rel, &file, format, &Limits::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    let shards = encode(&imp.payload).unwrap();
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let back = decode_all(&views).unwrap();
    assert!(back == imp.payload.canonical(), "{rel}: read back differs");
    assert_eq!(imp.payload.header.platform, "com.mojang.minecraft");
    assert_eq!(imp.payload.header.format, format.name());
    assert!(imp.payload.palette[0].is_empty_entry());
    Some((file, imp.payload))
}

/// Every extra's bytes are the source compound's, byte for byte, as a root compound
/// with an empty name.
fn check_extra_bytes(raw: &[u8], sources: &[&V], extras: &[&dh_content::voxel::payload::Extra]) {
    assert_eq!(sources.len(), extras.len());
    for (s, e) in sources.iter().zip(extras) {
        let (a, b) = s.span();
        assert_eq!(e.blob.format, "nbt-java");
        assert_eq!(&e.blob.bytes[..3], &[10, 0, 0]);
        assert_eq!(&e.blob.bytes[3..], &raw[a..b]);
    }
}

fn varints(b: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut v, mut s) = (0u32, 0);
    for &x in b {
        v |= u32::from(x & 0x7f) << s;
        if x & 0x80 == 0 {
            out.push(v);
            v = 0;
            s = 0;
        } else {
            s += 7;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// .schem

fn check_schem(rel: &str, expect_size: [i32; 3], expect_dv: i64) {
    let Some((file, p)) = import_fixture(rel, StructureFormat::Schem) else {
        return;
    };
    let (raw, root) = parse(&file);
    let s = root.get("Schematic").unwrap_or(&root);
    let version = s.at("Version").i();
    let size = [
        s.at("Width").i() as u16 as i32,
        s.at("Height").i() as u16 as i32,
        s.at("Length").i() as u16 as i32,
    ];
    assert_eq!(size, expect_size, "{rel}: size");
    assert_eq!(p.grids.len(), 1);
    assert_eq!(p.grids[0].info.bounds_size, size);
    assert_eq!(p.grids[0].info.bounds_min, [0; 3]);
    let (pal, data, bes) = if version >= 3 {
        let b = s.at("Blocks");
        (b.at("Palette"), b.at("Data"), b.get("BlockEntities"))
    } else {
        (s.at("Palette"), s.at("BlockData"), s.get("BlockEntities"))
    };
    // Palette: local index → (key, name).
    let mut local: BTreeMap<i64, (String, String)> = BTreeMap::new();
    for (k, v) in pal.entries() {
        local.insert(v.i(), key_of_string(k));
    }
    let cells = varints(data.bytes());
    let volume = size.iter().map(|&v| v as usize).product::<usize>();
    assert_eq!(cells.len(), volume, "{rel}: varint count");
    let mut stored = 0u64;
    let mut solid = 0u64;
    for &c in &cells {
        let (_, name) = &local[&i64::from(c)];
        if name != VOID {
            stored += 1;
            if !AIRS.contains(&name.as_str()) {
                solid += 1;
            }
        }
    }
    assert_eq!(payload_counts(&p), vec![(stored, solid)], "{rel}: cells");
    // Palette entries: dh:empty, each distinct state but structure void, each biome.
    let mut keys: BTreeSet<String> = local
        .values()
        .filter(|(_, n)| n != VOID)
        .map(|(k, _)| k.clone())
        .collect();
    let mut biome_keys = BTreeSet::new();
    if version == 3 {
        if let Some(b) = s.get("Biomes") {
            for (k, _) in b.at("Palette").entries() {
                biome_keys.insert(k.clone());
            }
        }
    }
    if version == 2 {
        if let Some(b) = s.get("BiomePalette") {
            for (k, _) in b.entries() {
                biome_keys.insert(k.clone());
            }
        }
    }
    let biome_entries = biome_keys.len();
    keys.extend(biome_keys.into_iter().map(|k| format!("{k}[]")));
    assert_eq!(p.palette.len(), keys.len() + 1, "{rel}: palette entries");
    let got: BTreeSet<String> = (1..p.palette.len()).map(|i| payload_key(&p, i)).collect();
    assert_eq!(got, keys, "{rel}: palette states");
    assert_eq!(p.layers.len(), if biome_entries > 0 { 2 } else { 1 });
    // Block entities and entities, byte for byte, at their Pos.
    let be_src: Vec<&V> = bes.map(|l| l.list().iter().collect()).unwrap_or_default();
    let be = extras_of(&p, ExtraKind::BlockEntity);
    check_extra_bytes(&raw, &be_src, &be);
    for (s, e) in be_src.iter().zip(&be) {
        let pos = s.at("Pos").ints();
        assert_eq!(e.cell, Some([pos[0] as i32, pos[1] as i32, pos[2] as i32]));
        assert_eq!(e.grid, Some(0));
    }
    let en_src: Vec<&V> = s
        .get("Entities")
        .map(|l| l.list().iter().collect())
        .unwrap_or_default();
    check_extra_bytes(&raw, &en_src, &extras_of(&p, ExtraKind::Entity));
    // The meta.
    assert_eq!(
        meta(&p, "dataVersion"),
        Some(expect_dv.to_string().as_str())
    );
    assert_eq!(
        p.header.platform_version,
        release_for_data_version(expect_dv as i32).unwrap_or("")
    );
    let off = s.at("Offset").ints();
    assert_eq!(
        meta(&p, "offset"),
        Some(format!("[{}, {}, {}]", off[0], off[1], off[2]).as_str())
    );
    assert_eq!(meta(&p, "dropped"), Some(""));
    println!(
        "{rel}: {size:?}, {stored} cells ({solid} not air), {} palette entries, {} block entities, {} entities",
        p.palette.len(),
        be.len(),
        en_src.len()
    );
}

#[test]
fn sponge_v2_smallhouse_imports() {
    check_schem("schem/smallhouse1.schem", [21, 28, 20], 2584);
    let Some((_, p)) = import_fixture("schem/smallhouse1.schem", StructureFormat::Schem) else {
        return;
    };
    // By hand, from the fixtures' README: 173 palette entries (none is structure void,
    // so 174 with dh:empty) and 72 block entities; 2584 is 1.16.4.
    assert_eq!(p.palette.len(), 174);
    assert_eq!(extras_of(&p, ExtraKind::BlockEntity).len(), 72);
    assert_eq!(p.header.platform_version, "1.16.4");
    assert_eq!(meta(&p, "metadata.WEOffsetX"), Some("-10"));
    assert_eq!(meta(&p, "spongeVersion"), Some("2"));
    assert_eq!(p.grids[0].info.name, "smallhouse1");
}

#[test]
fn sponge_v2_test01_imports() {
    check_schem("schem/test01.schem", [6, 7, 5], 3465);
}

#[test]
fn sponge_v3_worldedit_imports() {
    check_schem("schem/spongeV3_worldedit.schem", [13, 7, 14], 3955);
    let Some((_, p)) = import_fixture("schem/spongeV3_worldedit.schem", StructureFormat::Schem)
    else {
        return;
    };
    assert_eq!(p.header.platform_version, "1.21.1");
    assert_eq!(
        meta(&p, "metadata.WorldEdit.Origin"),
        Some("[-571, 2, -189]")
    );
    assert_eq!(meta(&p, "metadata.Date"), Some("1729058252175"));
    assert_eq!(meta(&p, "offset"), Some("[-6, -1, -5]"));
    assert_eq!(extras_of(&p, ExtraKind::BlockEntity).len(), 1);
}

#[test]
fn sponge_v3_full_blocks_imports() {
    check_schem("schem/full-blocks-1.20.2.schem", [311, 2, 313], 3578);
    let Some((_, p)) = import_fixture("schem/full-blocks-1.20.2.schem", StructureFormat::Schem)
    else {
        return;
    };
    // From the README: 24276 palette entries, 3389 block entities.
    let void = p.palette.iter().any(|e| e.id == "structure_void");
    assert!(!void, "structure void became an entry");
    assert_eq!(extras_of(&p, ExtraKind::BlockEntity).len(), 3389);
    assert_eq!(p.header.platform_version, "1.20.2");
}

// ---------------------------------------------------------------------------------------
// .litematic

fn check_litematic(rel: &str, expect_regions: usize) {
    let Some((file, p)) = import_fixture(rel, StructureFormat::Litematic) else {
        return;
    };
    let (raw, root) = parse(&file);
    let regions = root.at("Regions").entries();
    assert_eq!(regions.len(), expect_regions, "{rel}: regions");
    assert_eq!(p.grids.len(), regions.len());
    let counts = payload_counts(&p);
    let mut keys = BTreeSet::new();
    let mut be_src = Vec::new();
    let mut en_src = Vec::new();
    for (g, (name, r)) in regions.iter().enumerate() {
        let info = &p.grids[g].info;
        assert_eq!(&info.name, name);
        let pos: Vec<i64> = ["x", "y", "z"]
            .iter()
            .map(|k| r.at("Position").at(k).i())
            .collect();
        let size: Vec<i64> = ["x", "y", "z"]
            .iter()
            .map(|k| r.at("Size").at(k).i())
            .collect();
        let abs: Vec<i64> = size.iter().map(|s| s.abs()).collect();
        assert_eq!(
            info.bounds_size,
            [abs[0] as i32, abs[1] as i32, abs[2] as i32]
        );
        for a in 0..3 {
            let min = if size[a] < 0 {
                pos[a] + size[a] + 1
            } else {
                pos[a]
            };
            assert_eq!(info.transform[a][3], min as f32, "{rel}: {name} axis {a}");
        }
        let pal: Vec<(String, String)> = r
            .at("BlockStatePalette")
            .list()
            .iter()
            .map(key_of_compound)
            .collect();
        let bits = (64 - ((pal.len() as u64) - 1).leading_zeros()).max(2) as u64;
        let longs = r.at("BlockStates").longs();
        let volume = (abs[0] * abs[1] * abs[2]) as u64;
        let (mut stored, mut solid) = (0u64, 0u64);
        for i in 0..volume {
            // Bit by bit, the slow way.
            let mut v = 0usize;
            for b in 0..bits {
                let bit = i * bits + b;
                let word = longs[(bit / 64) as usize] as u64;
                if (word >> (bit % 64)) & 1 == 1 {
                    v |= 1 << b;
                }
            }
            let name = &pal[v].1;
            if name != VOID {
                stored += 1;
                if !AIRS.contains(&name.as_str()) {
                    solid += 1;
                }
            }
        }
        assert_eq!(counts[g], (stored, solid), "{rel}: region {name} cells");
        keys.extend(pal.into_iter().filter(|(_, n)| n != VOID).map(|(k, _)| k));
        be_src.extend(r.at("TileEntities").list().iter());
        en_src.extend(r.at("Entities").list().iter());
    }
    assert_eq!(p.palette.len(), keys.len() + 1, "{rel}: palette entries");
    let got: BTreeSet<String> = (1..p.palette.len()).map(|i| payload_key(&p, i)).collect();
    assert_eq!(got, keys);
    check_extra_bytes(&raw, &be_src, &extras_of(&p, ExtraKind::BlockEntity));
    check_extra_bytes(&raw, &en_src, &extras_of(&p, ExtraKind::Entity));
    let dv = root.at("MinecraftDataVersion").i();
    assert_eq!(meta(&p, "dataVersion"), Some(dv.to_string().as_str()));
    assert_eq!(
        meta(&p, "dropped"),
        Some("PendingBlockTicks,PendingFluidTicks")
    );
    assert_eq!(
        meta(&p, "metadata.Author"),
        Some(root.at("Metadata").at("Author").s())
    );
    println!(
        "{rel}: {} regions, {} palette entries, {} tile entities, {} entities",
        regions.len(),
        p.palette.len(),
        be_src.len(),
        en_src.len()
    );
}

#[test]
fn litematic_test01_imports() {
    check_litematic("litematic/test01.litematic", 1);
    let Some((_, p)) = import_fixture("litematic/test01.litematic", StructureFormat::Litematic)
    else {
        return;
    };
    // By hand: a 1x19x1 column, Metadata says TotalBlocks 18 (the one air is not a block).
    assert_eq!(p.grids[0].info.bounds_size, [1, 19, 1]);
    assert_eq!(payload_counts(&p), vec![(19, 18)]);
    assert_eq!(p.header.platform_version, "1.20.1");
}

#[test]
fn litematic_multi_region_imports() {
    check_litematic("litematic/multi-region01.litematic", 22);
    let Some((_, p)) = import_fixture(
        "litematic/multi-region01.litematic",
        StructureFormat::Litematic,
    ) else {
        return;
    };
    // Metadata: TotalBlocks 43286 over the 22 regions.
    let solid: u64 = payload_counts(&p).iter().map(|c| c.1).sum();
    assert_eq!(solid, 43286);
}

#[test]
fn litematic_full_blocks_imports() {
    check_litematic("litematic/full-blocks-1.20.2.litematic", 1);
}

// ---------------------------------------------------------------------------------------
// .nbt structures

fn check_structure(rel: &str, expect_size: [i32; 3], expect_dv: i64) -> Option<VoxelPayload> {
    let (file, p) = import_fixture(rel, StructureFormat::Nbt)?;
    let (raw, root) = parse(&file);
    let size = root.at("size").ints();
    assert_eq!(size, expect_size.map(i64::from).to_vec());
    let palettes: Vec<Vec<(String, String)>> = match root.get("palettes") {
        Some(ps) => ps
            .list()
            .iter()
            .map(|p| p.list().iter().map(key_of_compound).collect())
            .collect(),
        None => vec![root
            .at("palette")
            .list()
            .iter()
            .map(key_of_compound)
            .collect()],
    };
    assert_eq!(p.grids.len(), palettes.len());
    let blocks = root.at("blocks").list();
    let counts = payload_counts(&p);
    let mut keys = BTreeSet::new();
    for (g, pal) in palettes.iter().enumerate() {
        // Listed positions, the last listing winning.
        let mut at: BTreeMap<Vec<i64>, usize> = BTreeMap::new();
        for b in blocks {
            at.insert(b.at("pos").ints(), b.at("state").i() as usize);
        }
        let (mut stored, mut solid) = (0u64, 0u64);
        for &s in at.values() {
            let name = &pal[s].1;
            if name != VOID {
                stored += 1;
                if !AIRS.contains(&name.as_str()) {
                    solid += 1;
                }
            }
        }
        assert_eq!(counts[g], (stored, solid), "{rel}: palette {g}");
        assert_eq!(p.grids[g].info.bounds_size, expect_size);
        assert_eq!(p.grids[g].info.attribute("hidden").is_some(), g > 0);
        keys.extend(
            pal.iter()
                .filter(|(_, n)| n != VOID)
                .map(|(k, _)| k.clone()),
        );
    }
    assert_eq!(p.palette.len(), keys.len() + 1, "{rel}: palette entries");
    let be_src: Vec<&V> = blocks.iter().filter_map(|b| b.get("nbt")).collect();
    let be = extras_of(&p, ExtraKind::BlockEntity);
    check_extra_bytes(&raw, &be_src, &be);
    assert!(be.iter().all(|e| e.grid == Some(0)));
    let en_src: Vec<&V> = root
        .get("entities")
        .map(|l| l.list().iter().collect())
        .unwrap_or_default();
    let en = extras_of(&p, ExtraKind::Entity);
    check_extra_bytes(&raw, &en_src, &en);
    for (s, e) in en_src.iter().zip(&en) {
        let bp = s.at("blockPos").ints();
        assert_eq!(e.cell, Some([bp[0] as i32, bp[1] as i32, bp[2] as i32]));
    }
    assert_eq!(
        meta(&p, "dataVersion"),
        Some(expect_dv.to_string().as_str())
    );
    println!(
        "{rel}: {} grids, {:?}, {} palette entries, {} block entities, {} entities",
        p.grids.len(),
        counts,
        p.palette.len(),
        be.len(),
        en.len()
    );
    Some(p)
}

#[test]
fn structure_fabric_test_structure_imports() {
    let Some(p) = check_structure("structure/test_structure.nbt", [8, 8, 8], 3218) else {
        return;
    };
    // From the README: a 6-entry palette and 5 entities; 3218 is 1.19.3.
    assert_eq!(p.palette.len(), 7);
    assert_eq!(extras_of(&p, ExtraKind::Entity).len(), 5);
    assert_eq!(p.header.platform_version, "1.19.3");
}

#[test]
fn structure_test01_imports() {
    let Some(p) = check_structure("structure/test01.nbt", [10, 10, 10], 3465) else {
        return;
    };
    assert_eq!(extras_of(&p, ExtraKind::Entity).len(), 3);
    // Every one of the 1000 cells is listed.
    let stored: u64 = payload_counts(&p).iter().map(|c| c.0).sum();
    assert!(stored <= 1000);
}

// ---------------------------------------------------------------------------------------
// .schematic

fn check_schematic(rel: &str, expect_size: [i32; 3]) -> Option<VoxelPayload> {
    let (file, p) = import_fixture(rel, StructureFormat::Schematic)?;
    let (raw, root) = parse(&file);
    let size = [
        root.at("Width").i() as i32,
        root.at("Height").i() as i32,
        root.at("Length").i() as i32,
    ];
    assert_eq!(size, expect_size);
    let blocks = root.at("Blocks").bytes();
    let data = root.at("Data").bytes();
    let add = root.get("AddBlocks").map(V::bytes);
    let mut distinct = BTreeSet::new();
    let (mut stored, mut solid) = (0u64, 0u64);
    for i in 0..blocks.len() {
        let mut id = u16::from(blocks[i]);
        if let Some(a) = add {
            let nib = if i % 2 == 0 {
                a[i / 2] & 15
            } else {
                a[i / 2] >> 4
            };
            id |= u16::from(nib) << 8;
        }
        let d = data[i] & 15;
        if id == 217 {
            continue; // structure void
        }
        distinct.insert((id, d));
        stored += 1;
        if id != 0 {
            solid += 1;
        }
    }
    assert_eq!(payload_counts(&p), vec![(stored, solid)], "{rel}: cells");
    assert_eq!(
        p.palette.len(),
        distinct.len() + 1,
        "{rel}: palette entries"
    );
    // Every entry keeps its id:data raw.
    let raws: BTreeSet<String> = p.palette[1..]
        .iter()
        .map(|e| {
            let r = e.raw.as_ref().unwrap();
            assert_eq!(r.format, "minecraft-legacy");
            String::from_utf8(r.bytes.clone()).unwrap()
        })
        .collect();
    let want: BTreeSet<String> = distinct.iter().map(|(i, d)| format!("{i}:{d}")).collect();
    assert_eq!(raws, want);
    let be_src: Vec<&V> = root.at("TileEntities").list().iter().collect();
    let be = extras_of(&p, ExtraKind::BlockEntity);
    check_extra_bytes(&raw, &be_src, &be);
    for (s, e) in be_src.iter().zip(&be) {
        let c = [s.at("x").i(), s.at("y").i(), s.at("z").i()].map(|v| v as i32);
        assert_eq!(e.cell, Some(c));
    }
    let en_src: Vec<&V> = root.at("Entities").list().iter().collect();
    check_extra_bytes(&raw, &en_src, &extras_of(&p, ExtraKind::Entity));
    assert_eq!(meta(&p, "dataVersion"), None);
    assert_eq!(p.header.platform_version, "");
    println!(
        "{rel}: {size:?}, {stored} cells ({solid} not air), {} palette entries, {} tile entities, {} entities",
        p.palette.len(),
        be.len(),
        en_src.len()
    );
    Some(p)
}

/// The entry whose raw blob is `id:data`.
fn legacy<'a>(
    p: &'a VoxelPayload,
    raw: &str,
) -> Option<&'a dh_content::voxel::payload::PaletteEntry> {
    p.palette
        .iter()
        .find(|e| e.raw.as_ref().is_some_and(|r| r.bytes == raw.as_bytes()))
}

#[test]
fn schematic_viking_house_imports() {
    let Some(p) = check_schematic("schematic/viking-house1.schematic", [23, 35, 23]) else {
        return;
    };
    assert_eq!(meta(&p, "offset"), Some("[-11, -1, -3]"));
    assert_eq!(meta(&p, "metadata.WEOrigin"), Some("[138, 3, 1030]"));
    // The first block is 2:0, grass: a common block, flattened.
    let grass = legacy(&p, "2:0").unwrap();
    assert_eq!(
        (grass.ns.as_str(), grass.id.as_str()),
        ("minecraft", "grass_block")
    );
}

#[test]
fn schematic_super_market_imports() {
    let Some(p) = check_schematic("schematic/legacy_super-market.schematic", [49, 16, 30]) else {
        return;
    };
    // From the README: 52 entities and 142 tile entities.
    assert_eq!(extras_of(&p, ExtraKind::Entity).len(), 52);
    assert_eq!(extras_of(&p, ExtraKind::BlockEntity).len(), 142);
}

#[test]
fn schematic_full_blocks_imports() {
    let Some(p) = check_schematic("schematic/full-blocks-1.12.2.schematic", [147, 2, 149]) else {
        return;
    };
    assert_eq!(extras_of(&p, ExtraKind::BlockEntity).len(), 690);
    // Orientation-free blocks flatten; the rest stay numbers, never a guessed facing.
    for (raw, ns, id) in [
        ("1:0", "minecraft", "stone"),
        ("35:14", "minecraft", "red_wool"),
        ("17:4", "minecraft", "oak_log"),
        ("159:0", "minecraft", "white_terracotta"),
        ("53:0", "minecraft-legacy", "53"),
    ] {
        if let Some(e) = legacy(&p, raw) {
            assert_eq!((e.ns.as_str(), e.id.as_str()), (ns, id), "{raw}");
        } else {
            panic!("{raw} is not in the file's palette");
        }
    }
    let log = legacy(&p, "17:4").unwrap();
    assert_eq!(log.properties[0].value, PropValue::String("x".into()));
    let stairs = legacy(&p, "53:0").unwrap();
    assert_eq!(stairs.properties.len(), 1);
    assert_eq!(stairs.properties[0].key, "data");
    assert_eq!(stairs.properties[0].value, PropValue::Int(0));
}

/// The count of fixtures the tests above read: all twelve structure files.
#[test]
fn every_structure_fixture_is_covered() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/minecraft");
    if !root.is_dir() {
        println!("skipped: {} is absent", root.display());
        return;
    }
    let mut n = 0;
    for sub in ["schem", "litematic", "structure", "schematic"] {
        for e in std::fs::read_dir(root.join(sub)).unwrap().flatten() {
            let p = e.path();
            let name = p.to_string_lossy().into_owned();
            let f = StructureFormat::of_data(&name).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            import_bytes(&name, &bytes, f, &Limits::default()).unwrap();
            n += 1;
        }
    }
    assert_eq!(n, 12);
}

// ---------------------------------------------------------------------------------------
// Crafted files: a small NBT writer of the test's own.

#[derive(Clone)]
enum N {
    S(i16),
    I(i32),
    D(f64),
    Str(String),
    Bytes(Vec<u8>),
    Ints(Vec<i32>),
    Longs(Vec<i64>),
    L(u8, Vec<N>),
    C(Vec<(String, N)>),
}

fn c(entries: Vec<(&str, N)>) -> N {
    N::C(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}
fn st(s: &str) -> N {
    N::Str(s.to_string())
}

impl N {
    fn id(&self) -> u8 {
        match self {
            N::S(_) => 2,
            N::I(_) => 3,
            N::D(_) => 6,
            N::Bytes(_) => 7,
            N::Str(_) => 8,
            N::L(..) => 9,
            N::C(_) => 10,
            N::Ints(_) => 11,
            N::Longs(_) => 12,
        }
    }
    fn put(&self, o: &mut Vec<u8>) {
        match self {
            N::S(v) => o.extend(v.to_be_bytes()),
            N::I(v) => o.extend(v.to_be_bytes()),
            N::D(v) => o.extend(v.to_be_bytes()),
            N::Bytes(b) => {
                o.extend((b.len() as i32).to_be_bytes());
                o.extend(b);
            }
            N::Str(s) => {
                o.extend((s.len() as u16).to_be_bytes());
                o.extend(s.as_bytes());
            }
            N::L(t, items) => {
                o.push(*t);
                o.extend((items.len() as i32).to_be_bytes());
                for i in items {
                    i.put(o);
                }
            }
            N::C(e) => {
                for (k, v) in e {
                    o.push(v.id());
                    N::Str(k.clone()).put(o);
                    v.put(o);
                }
                o.push(0);
            }
            N::Ints(a) => {
                o.extend((a.len() as i32).to_be_bytes());
                for v in a {
                    o.extend(v.to_be_bytes());
                }
            }
            N::Longs(a) => {
                o.extend((a.len() as i32).to_be_bytes());
                for v in a {
                    o.extend(v.to_be_bytes());
                }
            }
        }
    }
}

/// A gzip file holding `root` as a root compound named `name`.
fn file(name: &str, root: &N) -> Vec<u8> {
    let mut raw = vec![10];
    N::Str(name.to_string()).put(&mut raw);
    root.put(&mut raw);
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(&raw, 6));
    out.extend(crc32fast::hash(&raw).to_le_bytes());
    out.extend((raw.len() as u32).to_le_bytes());
    out
}

fn err(name: &str, bytes: &[u8], format: StructureFormat) -> String {
    match import_bytes(name, bytes, format, &Limits::default()) {
        Ok(_) => panic!("{name} imported"),
        Err(e) => e.to_string(),
    }
}

/// A Sponge v2 schematic of `size` with `palette` (state → index) and `data` (varints).
fn schem_v2(
    size: [i16; 3],
    palette: &[(&str, i32)],
    data: Vec<u8>,
    extra: Vec<(&str, N)>,
) -> Vec<u8> {
    let mut e = vec![
        ("Version", N::I(2)),
        ("DataVersion", N::I(3465)),
        ("Width", N::S(size[0])),
        ("Height", N::S(size[1])),
        ("Length", N::S(size[2])),
        (
            "Palette",
            c(palette.iter().map(|(k, v)| (*k, N::I(*v))).collect()),
        ),
        ("BlockData", N::Bytes(data)),
    ];
    e.extend(extra);
    file("Schematic", &c(e))
}

#[test]
fn a_type_mismatch_names_the_file_and_the_path() {
    let bad = file(
        "Schematic",
        &c(vec![
            ("Version", N::I(2)),
            ("DataVersion", N::I(3465)),
            ("Width", st("wide")),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
        ]),
    );
    assert_eq!(
        err("house.schem", &bad, StructureFormat::Schem),
        "house.schem: Schematic.Width: expected Int, found String"
    );
    let bad = file("", &c(vec![("size", st("8 8 8"))]));
    assert_eq!(
        err("s.nbt", &bad, StructureFormat::Nbt),
        "s.nbt: size: expected IntArray, found String"
    );
    let bad = file("", &c(vec![("Regions", N::L(10, vec![]))]));
    assert_eq!(
        err("r.litematic", &bad, StructureFormat::Litematic),
        "r.litematic: Regions: expected Compound, found List"
    );
    let bad = file(
        "Schematic",
        &c(vec![
            ("Width", N::S(1)),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
            ("Blocks", N::I(3)),
        ]),
    );
    assert_eq!(
        err("old.schematic", &bad, StructureFormat::Schematic),
        "old.schematic: Schematic.Blocks: expected ByteArray, found Int"
    );
}

#[test]
fn a_palette_index_past_the_palette_is_an_error() {
    // .schem: cell 1 is index 9, which no entry names.
    let bad = schem_v2([2, 1, 1], &[("minecraft:stone", 0)], vec![0, 9], vec![]);
    assert_eq!(
        err("p.schem", &bad, StructureFormat::Schem),
        "p.schem: Schematic.BlockData: cell 1 is palette index 9, which no palette entry names (1 entries)"
    );
    // .litematic: 2 entries at 2 bits; the packed value 3 is past them.
    let region = c(vec![
        (
            "Position",
            c(vec![("x", N::I(0)), ("y", N::I(0)), ("z", N::I(0))]),
        ),
        (
            "Size",
            c(vec![("x", N::I(2)), ("y", N::I(1)), ("z", N::I(1))]),
        ),
        (
            "BlockStatePalette",
            N::L(
                10,
                vec![
                    c(vec![("Name", st("minecraft:air"))]),
                    c(vec![("Name", st("minecraft:stone"))]),
                ],
            ),
        ),
        ("BlockStates", N::Longs(vec![0b1101])),
    ]);
    let bad = file(
        "",
        &c(vec![
            ("MinecraftDataVersion", N::I(3465)),
            ("Regions", c(vec![("r", region)])),
        ]),
    );
    assert_eq!(
        err("l.litematic", &bad, StructureFormat::Litematic),
        "l.litematic: Regions.r.BlockStates: block (1, 0, 0) is palette index 3, past the palette's 2 entries"
    );
    // .nbt: state 5 of a 1-entry palette.
    let bad = file(
        "",
        &c(vec![
            ("DataVersion", N::I(3465)),
            ("size", N::L(3, vec![N::I(1), N::I(1), N::I(1)])),
            (
                "palette",
                N::L(10, vec![c(vec![("Name", st("minecraft:stone"))])]),
            ),
            (
                "blocks",
                N::L(
                    10,
                    vec![c(vec![
                        ("state", N::I(5)),
                        ("pos", N::L(3, vec![N::I(0), N::I(0), N::I(0)])),
                    ])],
                ),
            ),
        ]),
    );
    assert_eq!(
        err("s.nbt", &bad, StructureFormat::Nbt),
        "s.nbt: blocks[0].state: palette index 5 is past the 1 entries of palette"
    );
}

#[test]
fn truncated_and_short_files_are_errors() {
    let good = schem_v2([2, 1, 1], &[("minecraft:stone", 0)], vec![0, 0], vec![]);
    assert!(import_bytes(
        "ok.schem",
        &good,
        StructureFormat::Schem,
        &Limits::default()
    )
    .is_ok());
    for cut in [5, 12, good.len() / 2, good.len() - 3] {
        let e = err("cut.schem", &good[..cut], StructureFormat::Schem);
        assert!(e.starts_with("cut.schem: "), "{e}");
        assert!(e.contains("gzip"), "{e}");
    }
    // Inflated whole, but the varints stop early.
    let short = schem_v2([3, 1, 1], &[("minecraft:stone", 0)], vec![0, 0], vec![]);
    assert_eq!(
        err("short.schem", &short, StructureFormat::Schem),
        "short.schem: Schematic.BlockData: 2 bytes hold at most 2 varints; the schematic has 3 cells"
    );
    // A varint cut in the middle.
    let cut = schem_v2([2, 1, 1], &[("minecraft:stone", 0)], vec![0, 0x80], vec![]);
    assert_eq!(
        err("v.schem", &cut, StructureFormat::Schem),
        "v.schem: Schematic.BlockData: the varints end inside cell 1 of 2 (byte 2)"
    );
    // Litematica states too short for the region.
    let region = c(vec![
        (
            "Position",
            c(vec![("x", N::I(0)), ("y", N::I(0)), ("z", N::I(0))]),
        ),
        (
            "Size",
            c(vec![("x", N::I(8)), ("y", N::I(8)), ("z", N::I(8))]),
        ),
        (
            "BlockStatePalette",
            N::L(10, vec![c(vec![("Name", st("minecraft:air"))])]),
        ),
        ("BlockStates", N::Longs(vec![0; 3])),
    ]);
    let bad = file("", &c(vec![("Regions", c(vec![("r", region)]))]));
    assert_eq!(
        err("t.litematic", &bad, StructureFormat::Litematic),
        "t.litematic: Regions.r.BlockStates: 3 longs; a region of 8x8x8 blocks at 2 bits a block needs 16"
    );
    // Schematic Data shorter than Blocks.
    let bad = file(
        "Schematic",
        &c(vec![
            ("Width", N::S(2)),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
            ("Blocks", N::Bytes(vec![1, 1])),
            ("Data", N::Bytes(vec![0])),
        ]),
    );
    assert_eq!(
        err("d.schematic", &bad, StructureFormat::Schematic),
        "d.schematic: Schematic.Data: 1 bytes; a 2x1x1 schematic has 2 blocks"
    );
}

#[test]
fn bombs_stop_at_the_caps() {
    // 64 MiB of a Schematic's zeros (a ByteArray the size of a huge BlockData) inflated
    // under a 1 MiB cap.
    let mut raw = vec![10, 0, 9];
    raw.extend(b"Schematic");
    raw.extend([7, 0, 1, b'B']);
    raw.extend((64i32 << 20).to_be_bytes());
    raw.resize(raw.len() + (64 << 20), 0);
    raw.push(0);
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    gz.extend(miniz_oxide::deflate::compress_to_vec(&raw, 9));
    gz.extend(crc32fast::hash(&raw).to_le_bytes());
    gz.extend((raw.len() as u32).to_le_bytes());
    assert!(gz.len() < 1 << 20);
    let limits = Limits {
        max_inflated: 1 << 20,
        ..Limits::default()
    };
    match import_bytes("bomb.schem", &gz, StructureFormat::Schem, &limits) {
        Err(MinecraftError::Nbt { path, source }) => {
            assert_eq!(path, "bomb.schem");
            assert!(
                source.to_string().contains("inflates past 1048576 bytes"),
                "{source}"
            );
        }
        other => panic!("expected the inflate cap, got {other:?}"),
    }
    // A schematic claiming 65535 x 65535 x 65535 blocks stops at the cell cap before
    // anything is read or allocated.
    let huge = schem_v2([-1, -1, -1], &[("minecraft:stone", 0)], vec![0], vec![]);
    let e = err("huge.schem", &huge, StructureFormat::Schem);
    assert!(
        e.starts_with(
            "huge.schem: Schematic: a structure of 65535x65535x65535 blocks takes the import past"
        ),
        "{e}"
    );
}

#[test]
fn shared_rules_hold_on_a_crafted_schematic() {
    // Two spellings of one state (property order), structure void, waterlogged kept,
    // a bare id read as minecraft's, and air as an entry.
    let f = schem_v2(
        [5, 1, 1],
        &[
            ("minecraft:oak_stairs[waterlogged=true,facing=east]", 0),
            ("minecraft:oak_stairs[facing=east,waterlogged=true]", 1),
            ("minecraft:structure_void", 2),
            ("stone", 3),
            ("minecraft:air", 4),
        ],
        vec![0, 1, 2, 3, 4],
        vec![(
            "BlockEntities",
            N::L(
                10,
                vec![c(vec![
                    ("Id", st("minecraft:chest")),
                    ("Pos", N::Ints(vec![4, 0, 0])),
                ])],
            ),
        )],
    );
    let p = import_bytes(
        "crafted.schem",
        &f,
        StructureFormat::Schem,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    let keys: Vec<String> = (0..p.palette.len()).map(|i| payload_key(&p, i)).collect();
    assert_eq!(
        keys,
        [
            "dh:empty[]",
            "minecraft:oak_stairs[facing=east,waterlogged=true]",
            "minecraft:stone[]",
            "minecraft:air[]",
        ]
    );
    let cells: Vec<u32> = (0..5).map(|x| p.cell(0, 0, [x, 0, 0]).unwrap()).collect();
    assert_eq!(cells, [1, 1, 0, 2, 3]);
    let be = extras_of(&p, ExtraKind::BlockEntity);
    assert_eq!(be.len(), 1);
    assert_eq!(be[0].cell, Some([4, 0, 0]));
    // The chest's compound as written: Id, then Pos, then End.
    let mut want = vec![10, 0, 0];
    c(vec![
        ("Id", st("minecraft:chest")),
        ("Pos", N::Ints(vec![4, 0, 0])),
    ])
    .put(&mut want);
    assert_eq!(be[0].blob.bytes, want);
    assert_eq!(p.header.platform_version, "1.20.1");
}

#[test]
fn sponge_v1_reads_tile_entities_offset_and_metadata() {
    // A version 1 file, as WorldEdit wrote it before 1.13's DataVersion: the root named
    // `Schematic`, `Palette` + `PaletteMax` + `BlockData` at the root, block entities
    // under `TileEntities` (v1's name), no DataVersion. 3 x 2 x 2, index
    // x + z * W + y * W * L; index 130 takes two varint bytes (0x82 0x01).
    //   y0 z0: stone stone log    y0 z1: air stone air
    //   y1 z0: log   air   air    y1 z1: air air   stone
    let chest = c(vec![
        ("Id", st("minecraft:chest")),
        ("Pos", N::Ints(vec![1, 0, 1])),
        ("Items", N::L(10, vec![])),
    ]);
    let f = file(
        "Schematic",
        &c(vec![
            ("Version", N::I(1)),
            ("Width", N::S(3)),
            ("Height", N::S(2)),
            ("Length", N::S(2)),
            ("Offset", N::Ints(vec![-5, 64, 10])),
            (
                "Metadata",
                c(vec![("Name", st("hut")), ("Author", st("someone"))]),
            ),
            ("PaletteMax", N::I(131)),
            (
                "Palette",
                c(vec![
                    ("minecraft:air", N::I(0)),
                    ("minecraft:stone", N::I(1)),
                    ("minecraft:oak_log[axis=x]", N::I(130)),
                ]),
            ),
            (
                "BlockData",
                N::Bytes(vec![1, 1, 0x82, 0x01, 0, 1, 0, 0x82, 0x01, 0, 0, 0, 0, 1]),
            ),
            ("TileEntities", N::L(10, vec![chest.clone()])),
        ]),
    );
    let imp = import_bytes("v1.schem", &f, StructureFormat::Schem, &Limits::default()).unwrap();
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    let p = imp.payload;
    assert_eq!(p.grids.len(), 1);
    assert_eq!(p.grids[0].info.name, "v1");
    assert_eq!(p.grids[0].info.bounds_min, [0, 0, 0]);
    assert_eq!(p.grids[0].info.bounds_size, [3, 2, 2]);
    let keys: Vec<String> = (0..p.palette.len()).map(|i| payload_key(&p, i)).collect();
    assert_eq!(
        keys,
        [
            "dh:empty[]",
            "minecraft:air[]",
            "minecraft:stone[]",
            "minecraft:oak_log[axis=x]",
        ]
    );
    let at = |x, y, z| keys[p.cell(0, 0, [x, y, z]).unwrap() as usize].clone();
    let want = [
        ([0, 0, 0], "minecraft:stone[]"),
        ([1, 0, 0], "minecraft:stone[]"),
        ([2, 0, 0], "minecraft:oak_log[axis=x]"),
        ([0, 0, 1], "minecraft:air[]"),
        ([1, 0, 1], "minecraft:stone[]"),
        ([2, 0, 1], "minecraft:air[]"),
        ([0, 1, 0], "minecraft:oak_log[axis=x]"),
        ([1, 1, 0], "minecraft:air[]"),
        ([2, 1, 0], "minecraft:air[]"),
        ([0, 1, 1], "minecraft:air[]"),
        ([1, 1, 1], "minecraft:air[]"),
        ([2, 1, 1], "minecraft:stone[]"),
    ];
    for ([x, y, z], name) in want {
        assert_eq!(at(x, y, z), name, "cell ({x}, {y}, {z})");
    }
    // The chest: one block entity in the cell of its Pos, its compound byte for byte.
    let be = extras_of(&p, ExtraKind::BlockEntity);
    assert_eq!(be.len(), 1);
    assert_eq!(be[0].cell, Some([1, 0, 1]));
    assert_eq!(be[0].grid, Some(0));
    assert_eq!(be[0].blob.format, "nbt-java");
    let mut bytes = vec![10, 0, 0];
    chest.put(&mut bytes);
    assert_eq!(be[0].blob.bytes, bytes);
    assert!(extras_of(&p, ExtraKind::Entity).is_empty());
    // Offset and Metadata into the meta; no DataVersion, so no version either.
    assert_eq!(meta(&p, "spongeVersion"), Some("1"));
    assert_eq!(meta(&p, "offset"), Some("[-5, 64, 10]"));
    assert_eq!(meta(&p, "metadata.Name"), Some("hut"));
    assert_eq!(meta(&p, "metadata.Author"), Some("someone"));
    assert_eq!(meta(&p, "dataVersion"), None);
    assert_eq!(p.header.platform_version, "");
    assert_eq!(p.header.format, "schem");
}

#[test]
fn sponge_biomes_fill_the_biome_layer() {
    // Version 2: per column, 2 x 2 x 2 with two biomes.
    let f = schem_v2(
        [2, 2, 2],
        &[("minecraft:stone", 0)],
        vec![0; 8],
        vec![
            (
                "BiomePalette",
                c(vec![
                    ("minecraft:plains", N::I(0)),
                    ("minecraft:desert", N::I(1)),
                ]),
            ),
            // columns (x, z): (0,0) plains, (1,0) desert, (0,1) desert, (1,1) plains.
            ("BiomeData", N::Bytes(vec![0, 1, 1, 0])),
        ],
    );
    let p = import_bytes("b.schem", &f, StructureFormat::Schem, &Limits::default())
        .unwrap()
        .payload;
    assert_eq!(p.layers.len(), 2);
    assert_eq!(
        (p.layers[1].name.as_str(), p.layers[1].cell_scale),
        ("biome", 1)
    );
    let name = |v: u32| p.palette[v as usize].id.clone();
    for y in 0..2 {
        assert_eq!(name(p.cell(0, 1, [0, y, 0]).unwrap()), "plains");
        assert_eq!(name(p.cell(0, 1, [1, y, 0]).unwrap()), "desert");
        assert_eq!(name(p.cell(0, 1, [0, y, 1]).unwrap()), "desert");
        assert_eq!(name(p.cell(0, 1, [1, y, 1]).unwrap()), "plains");
    }
    // Version 3: per block, index x + z * W + y * W * L.
    let f = file(
        "",
        &c(vec![(
            "Schematic",
            c(vec![
                ("Version", N::I(3)),
                ("DataVersion", N::I(3955)),
                ("Width", N::S(2)),
                ("Height", N::S(2)),
                ("Length", N::S(1)),
                (
                    "Blocks",
                    c(vec![
                        ("Palette", c(vec![("minecraft:dirt", N::I(0))])),
                        ("Data", N::Bytes(vec![0; 4])),
                    ]),
                ),
                (
                    "Biomes",
                    c(vec![
                        (
                            "Palette",
                            c(vec![
                                ("minecraft:plains", N::I(0)),
                                ("minecraft:ocean", N::I(1)),
                            ]),
                        ),
                        ("Data", N::Bytes(vec![0, 0, 1, 0])),
                    ]),
                ),
            ]),
        )]),
    );
    let p = import_bytes("b3.schem", &f, StructureFormat::Schem, &Limits::default())
        .unwrap()
        .payload;
    let name = |v: u32| p.palette[v as usize].id.clone();
    assert_eq!(name(p.cell(0, 1, [0, 1, 0]).unwrap()), "ocean");
    assert_eq!(name(p.cell(0, 1, [1, 1, 0]).unwrap()), "plains");
    assert_eq!(name(p.cell(0, 1, [0, 0, 0]).unwrap()), "plains");
    assert_eq!(p.header.platform_version, "1.21.1");
}

#[test]
fn a_negative_litematic_size_moves_the_region_to_its_minimum_corner() {
    // Size x = -3 from Position x = 10: the region covers x 8..=10, its cell 0 at 8.
    // 3 blocks at 2 bits: stone, air, stone → 0b01_00_01 with palette [air, stone].
    let region = c(vec![
        (
            "Position",
            c(vec![("x", N::I(10)), ("y", N::I(5)), ("z", N::I(-2))]),
        ),
        (
            "Size",
            c(vec![("x", N::I(-3)), ("y", N::I(1)), ("z", N::I(-1))]),
        ),
        (
            "BlockStatePalette",
            N::L(
                10,
                vec![
                    c(vec![("Name", st("minecraft:air"))]),
                    c(vec![("Name", st("minecraft:stone"))]),
                ],
            ),
        ),
        ("BlockStates", N::Longs(vec![0b01_00_01])),
        (
            "TileEntities",
            N::L(
                10,
                vec![c(vec![
                    ("x", N::I(2)),
                    ("y", N::I(0)),
                    ("z", N::I(0)),
                    ("id", st("minecraft:chest")),
                ])],
            ),
        ),
        (
            "Entities",
            N::L(
                10,
                vec![c(vec![(
                    "Pos",
                    N::L(6, vec![N::D(1.5), N::D(0.0), N::D(0.25)]),
                )])],
            ),
        ),
        ("PendingBlockTicks", N::L(0, vec![])),
    ]);
    let f = file(
        "",
        &c(vec![
            ("MinecraftDataVersion", N::I(3578)),
            ("Regions", c(vec![("left", region)])),
        ]),
    );
    let p = import_bytes(
        "n.litematic",
        &f,
        StructureFormat::Litematic,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    let g = &p.grids[0].info;
    assert_eq!(g.name, "left");
    assert_eq!(g.bounds_size, [3, 1, 1]);
    assert_eq!(
        [g.transform[0][3], g.transform[1][3], g.transform[2][3]],
        [8.0, 5.0, -2.0]
    );
    let ids: Vec<String> = (0..3)
        .map(|x| {
            p.palette[p.cell(0, 0, [x, 0, 0]).unwrap() as usize]
                .id
                .clone()
        })
        .collect();
    assert_eq!(ids, ["stone", "air", "stone"]);
    assert_eq!(
        extras_of(&p, ExtraKind::BlockEntity)[0].cell,
        Some([2, 0, 0])
    );
    assert_eq!(extras_of(&p, ExtraKind::Entity)[0].cell, Some([1, 0, 0]));
    assert_eq!(meta(&p, "dropped"), Some("PendingBlockTicks"));
    assert_eq!(p.header.platform_version, "1.20.2");
}

#[test]
fn litematic_states_span_two_longs() {
    // 5 entries: 3 bits a block. 22 blocks: block 21 starts at bit 63 and spans both longs.
    let pal: Vec<N> = ["air", "stone", "dirt", "sand", "glass"]
        .iter()
        .map(|n| c(vec![("Name", st(&format!("minecraft:{n}")))]))
        .collect();
    let values: Vec<u64> = (0..22).map(|i| (i % 5) as u64).collect();
    let mut longs = [0u64; 2];
    for (i, v) in values.iter().enumerate() {
        for b in 0..3 {
            if v >> b & 1 == 1 {
                let bit = i * 3 + b;
                longs[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    let region = c(vec![
        (
            "Position",
            c(vec![("x", N::I(0)), ("y", N::I(0)), ("z", N::I(0))]),
        ),
        (
            "Size",
            c(vec![("x", N::I(22)), ("y", N::I(1)), ("z", N::I(1))]),
        ),
        ("BlockStatePalette", N::L(10, pal)),
        (
            "BlockStates",
            N::Longs(longs.iter().map(|&l| l as i64).collect()),
        ),
    ]);
    let f = file("", &c(vec![("Regions", c(vec![("r", region)]))]));
    let p = import_bytes(
        "s.litematic",
        &f,
        StructureFormat::Litematic,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    let names = ["air", "stone", "dirt", "sand", "glass"];
    for (x, v) in values.iter().enumerate() {
        let got = &p.palette[p.cell(0, 0, [x as i32, 0, 0]).unwrap() as usize].id;
        assert_eq!(got, names[*v as usize], "block {x}");
    }
}

#[test]
fn structure_palettes_become_hidden_grids() {
    let pal = |name: &str| {
        N::L(
            10,
            vec![
                c(vec![("Name", st(name))]),
                c(vec![("Name", st("minecraft:air"))]),
            ],
        )
    };
    let pos = |x: i32| N::L(3, vec![N::I(x), N::I(0), N::I(0)]);
    let f = file(
        "",
        &c(vec![
            ("DataVersion", N::I(3218)),
            ("size", N::L(3, vec![N::I(3), N::I(1), N::I(1)])),
            (
                "palettes",
                N::L(
                    9,
                    vec![pal("minecraft:oak_planks"), pal("minecraft:spruce_planks")],
                ),
            ),
            (
                "blocks",
                N::L(
                    10,
                    vec![
                        c(vec![
                            ("state", N::I(0)),
                            ("pos", pos(0)),
                            ("nbt", c(vec![("id", st("minecraft:sign"))])),
                        ]),
                        c(vec![("state", N::I(1)), ("pos", pos(2))]),
                    ],
                ),
            ),
            ("entities", N::L(0, vec![])),
        ]),
    );
    let p = import_bytes("ship.nbt", &f, StructureFormat::Nbt, &Limits::default())
        .unwrap()
        .payload;
    assert_eq!(p.grids.len(), 2);
    assert_eq!(p.grids[0].info.name, "palette 0");
    assert_eq!(p.grids[1].info.name, "palette 1");
    assert_eq!(p.grids[0].info.attribute("hidden"), None);
    assert_eq!(p.grids[1].info.attribute("hidden"), Some("true"));
    let id = |g: usize, x: i32| {
        p.palette[p.cell(g, 0, [x, 0, 0]).unwrap() as usize]
            .id
            .clone()
    };
    assert_eq!(
        (id(0, 0), id(0, 1), id(0, 2)),
        ("oak_planks".into(), "empty".into(), "air".into())
    );
    assert_eq!(id(1, 0), "spruce_planks");
    // The block entity once, on the first grid.
    let be = extras_of(&p, ExtraKind::BlockEntity);
    assert_eq!(be.len(), 1);
    assert_eq!((be[0].grid, be[0].cell), (Some(0), Some([0, 0, 0])));
    // A single palette names its grid for the file.
    let single = file(
        "",
        &c(vec![
            ("size", N::L(3, vec![N::I(1), N::I(1), N::I(1)])),
            (
                "palette",
                N::L(10, vec![c(vec![("Name", st("minecraft:stone"))])]),
            ),
            (
                "blocks",
                N::L(
                    10,
                    vec![c(vec![
                        ("state", N::I(0)),
                        ("pos", N::L(3, vec![N::I(0), N::I(0), N::I(0)])),
                    ])],
                ),
            ),
        ]),
    );
    let p = import_bytes(
        "dir/tower.nbt",
        &single,
        StructureFormat::Nbt,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    assert_eq!(p.grids[0].info.name, "tower");
}

#[test]
fn add_blocks_and_add_reach_past_255() {
    // Two blocks: id 1 and id 0x2A1 (673). AddBlocks: block 0's nibble is the low one.
    let f = file(
        "Schematic",
        &c(vec![
            ("Width", N::S(2)),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
            ("Materials", st("Alpha")),
            ("Blocks", N::Bytes(vec![1, 0xA1])),
            ("Data", N::Bytes(vec![0, 3])),
            ("AddBlocks", N::Bytes(vec![0x20])),
        ]),
    );
    let p = import_bytes(
        "a.schematic",
        &f,
        StructureFormat::Schematic,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    let e = &p.palette[p.cell(0, 0, [1, 0, 0]).unwrap() as usize];
    assert_eq!((e.ns.as_str(), e.id.as_str()), ("minecraft-legacy", "673"));
    assert_eq!(e.properties[0].value, PropValue::Int(3));
    assert_eq!(e.raw.as_ref().unwrap().bytes, b"673:3");
    let stone = &p.palette[p.cell(0, 0, [0, 0, 0]).unwrap() as usize];
    assert_eq!(
        (stone.ns.as_str(), stone.id.as_str()),
        ("minecraft", "stone")
    );
    assert_eq!(stone.raw.as_ref().unwrap().bytes, b"1:0");
    // Schematica's Add: a whole byte of high bits per block.
    let f = file(
        "Schematic",
        &c(vec![
            ("Width", N::S(1)),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
            ("Blocks", N::Bytes(vec![0x10])),
            ("Data", N::Bytes(vec![0])),
            ("Add", N::Bytes(vec![0x11])),
        ]),
    );
    let p = import_bytes(
        "b.schematic",
        &f,
        StructureFormat::Schematic,
        &Limits::default(),
    )
    .unwrap()
    .payload;
    let e = &p.palette[p.cell(0, 0, [0, 0, 0]).unwrap() as usize];
    assert_eq!(e.id, (0x1110).to_string());
    // Materials other than Alpha are refused by name.
    let f = file(
        "Schematic",
        &c(vec![
            ("Materials", st("Classic")),
            ("Width", N::S(1)),
            ("Height", N::S(1)),
            ("Length", N::S(1)),
        ]),
    );
    assert!(
        err("c.schematic", &f, StructureFormat::Schematic).contains("'Classic'; expected Alpha")
    );
}

#[test]
fn the_release_table_knows_releases_and_not_snapshots() {
    assert_eq!(release_for_data_version(2584), Some("1.16.4"));
    assert_eq!(release_for_data_version(3465), Some("1.20.1"));
    assert_eq!(release_for_data_version(3955), Some("1.21.1"));
    assert_eq!(release_for_data_version(1343), Some("1.12.2"));
    // 3464 is 1.20.1-rc1; 2825 a 1.18 snapshot.
    assert_eq!(release_for_data_version(3464), None);
    assert_eq!(release_for_data_version(2825), None);
    assert_eq!(release_for_data_version(-1), None);
}
