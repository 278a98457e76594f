//! Behaviour of the `.pallet` container: round trips, determinism, checksums, zero-copy
//! reads, corruption handling and writer refusals.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dh_content::pallet::{
    self, check_path, fuzz_read, voxel_shard_name, Codec, CodecChoice, ColorSpace, EntryMeta,
    Filter, Manifest, Pallet, PalletError, PalletWriter, UsedDependency, Wrap, WriteOutcome,
    ALIGNMENT, CHECKSUM_FORMULA_VERSION, HEADER_LEN, MAX_ENTRY_LEN,
};

// ---------------------------------------------------------------------------------------
// Fixtures

fn manifest() -> Manifest {
    Manifest {
        dependencies: vec!["core".into(), "dev.example.base".into()],
        used_dependencies: vec![UsedDependency {
            id: "core".into(),
            content_checksum: "0f".repeat(32),
        }],
        default_look: Some("looks/day.dh-look".into()),
        ..Manifest::new("dev.example.props", "Example props", "1.0.0")
    }
}

fn texture_meta() -> EntryMeta {
    EntryMeta {
        mime: Some("image/png".into()),
        filter: Some(Filter::Trilinear),
        wrap: Some(Wrap::Repeat),
        color_space: Some(ColorSpace::Srgb),
    }
}

/// Incompressible but deterministic bytes.
fn noise(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

fn compressible(len: usize) -> Vec<u8> {
    b"the quick brown fox jumps over the lazy dog. "
        .iter()
        .copied()
        .cycle()
        .take(len)
        .collect()
}

type Spec = (&'static str, Vec<u8>, EntryMeta, CodecChoice);

fn sample_entries() -> Vec<Spec> {
    vec![
        (
            "textures/grid.png",
            noise(300, 1),
            texture_meta(),
            CodecChoice::Auto,
        ),
        (
            "maps/atrium.dh-map",
            compressible(5000),
            EntryMeta::mime("application/json"),
            CodecChoice::Auto,
        ),
        (
            "worlds/w.dh-vox.bin",
            compressible(4000),
            EntryMeta::default(),
            CodecChoice::Auto,
        ),
        (
            "empty.txt",
            Vec::new(),
            EntryMeta::default(),
            CodecChoice::Auto,
        ),
        (
            "models/crate.glb",
            noise(64, 2),
            EntryMeta::mime("model/gltf-binary"),
            CodecChoice::Stored,
        ),
    ]
}

fn build(m: Manifest, entries: &[Spec]) -> Vec<u8> {
    let mut w = PalletWriter::new(m).expect("manifest");
    for (path, bytes, meta, codec) in entries {
        w.add(path, bytes.clone(), meta.clone(), *codec)
            .expect("add");
    }
    w.finish().expect("finish")
}

fn sample() -> Vec<u8> {
    build(manifest(), &sample_entries())
}

fn checksum_of(bytes: Vec<u8>) -> String {
    Pallet::from_bytes(bytes)
        .expect("open")
        .manifest()
        .build_info
        .content_checksum
        .clone()
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Recomputes the header's index CRC after a deliberate edit, so that the deeper checks
/// (not the CRC) are what must catch the corruption.
fn fix_index_crc(b: &mut [u8]) {
    let manifest_len = u32_at(b, 24) as usize;
    let table_len = u64_at(b, 32) as usize;
    let end = (HEADER_LEN + manifest_len)
        .saturating_add(table_len)
        .min(b.len());
    let mut h = crc32fast::Hasher::new();
    h.update(&b[..48]);
    h.update(&b[HEADER_LEN.min(end)..end]);
    let crc = h.finalize();
    b[48..52].copy_from_slice(&crc.to_le_bytes());
}

/// Absolute offset of the entry table.
fn table_start(b: &[u8]) -> usize {
    HEADER_LEN + u32_at(b, 24) as usize
}

/// Absolute offsets of each table record, in order.
fn record_offsets(b: &[u8]) -> Vec<usize> {
    let count = u32_at(b, 28) as usize;
    let mut at = table_start(b);
    let mut out = Vec::new();
    for _ in 0..count {
        out.push(at);
        let path_len = u16::from_le_bytes([b[at], b[at + 1]]) as usize;
        let mime_at = at + 2 + path_len + 4;
        let mime_len = u16::from_le_bytes([b[mime_at], b[mime_at + 1]]) as usize;
        at = mime_at + 2 + mime_len + 32;
    }
    out
}

/// (offset field, stored len field, raw len field) absolute positions in a record.
fn record_fields(b: &[u8], rec: usize) -> (usize, usize, usize) {
    let path_len = u16::from_le_bytes([b[rec], b[rec + 1]]) as usize;
    let mime_at = rec + 2 + path_len + 4;
    let mime_len = u16::from_le_bytes([b[mime_at], b[mime_at + 1]]) as usize;
    let offset_at = mime_at + 2 + mime_len;
    (offset_at, offset_at + 8, offset_at + 16)
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dh-pallet-test-{}-{name}", std::process::id()))
}

fn expect_err(bytes: Vec<u8>) -> PalletError {
    fuzz_read(&bytes);
    match Pallet::from_bytes(bytes) {
        Ok(p) => panic!("expected an error, opened {p:?}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------
// Round trip and determinism

#[test]
fn round_trip() {
    let bytes = sample();
    let p = Pallet::from_bytes(bytes).expect("open");
    let m = p.manifest();
    assert_eq!(m.id, "dev.example.props");
    assert_eq!(m.name, "Example props");
    assert_eq!(m.version, "1.0.0");
    assert_eq!(m.dependencies, ["core", "dev.example.base"]);
    assert_eq!(m.used_dependencies, manifest().used_dependencies);
    assert_eq!(m.default_look.as_deref(), Some("looks/day.dh-look"));
    assert_eq!(m.build_info.formula_version, CHECKSUM_FORMULA_VERSION);
    assert_eq!(m.build_info.content_checksum.len(), 64);
    assert!(m
        .build_info
        .content_checksum
        .bytes()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert!(p.checksums_verified());
    assert_eq!(p.alignment(), ALIGNMENT);

    let specs = sample_entries();
    assert_eq!(p.len(), specs.len());
    let paths: Vec<&str> = p.entries().map(|e| e.path).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "entries come back in path order");

    for (path, bytes, meta, _) in &specs {
        let e = p.entry(path).expect("entry");
        assert_eq!(e.path, *path);
        assert_eq!(e.raw_len, bytes.len() as u64);
        assert_eq!(e.meta, meta);
        assert_eq!(e.raw_crc32, crc32fast::hash(bytes));
        assert_eq!(e.crc32, pallet::fold_crc32(e.raw_crc32, meta));
        assert_eq!(e.signature(), (e.crc32, e.raw_len));
        assert_eq!(e.offset % u64::from(ALIGNMENT), 0, "{path} is aligned");
        assert_eq!(&*p.read(path).expect("read"), bytes.as_slice(), "{path}");
    }
    p.verify_all().expect("verify");
    assert!(p.entry("nope").is_none());
    assert!(matches!(p.read("nope"), Err(PalletError::NotFound { .. })));
}

#[test]
fn empty_pallet_round_trips() {
    let bytes = build(Manifest::new("a.b", "", ""), &[]);
    let p = Pallet::from_bytes(bytes).expect("open");
    assert!(p.is_empty());
    assert_eq!(p.entries().count(), 0);
    assert_eq!(p.manifest().default_look, None);
}

#[test]
fn insertion_order_does_not_change_the_bytes() {
    let specs = sample_entries();
    let reference = build(manifest(), &specs);
    let mut reversed = specs.clone();
    reversed.reverse();
    assert_eq!(build(manifest(), &reversed), reference);
    // Every rotation too.
    for k in 1..specs.len() {
        let mut rotated = specs.clone();
        rotated.rotate_left(k);
        assert_eq!(build(manifest(), &rotated), reference, "rotation {k}");
    }
    // And the used dependencies' order.
    let mut m = manifest();
    m.used_dependencies.push(UsedDependency {
        id: "a.first".into(),
        content_checksum: String::new(),
    });
    let mut m2 = m.clone();
    m2.used_dependencies.reverse();
    assert_eq!(build(m, &specs), build(m2, &specs));
}

#[test]
fn build_info_passed_in_is_ignored() {
    let mut m = manifest();
    m.build_info.content_checksum = "whatever".into();
    m.build_info.formula_version = 99;
    assert_eq!(build(m, &sample_entries()), sample());
}

// ---------------------------------------------------------------------------------------
// Checksums

#[test]
fn content_checksum_is_stable_when_nothing_changed() {
    let a = checksum_of(sample());
    let b = checksum_of(sample());
    assert_eq!(a, b);

    // The writer's preview equals what lands in the file.
    let mut w = PalletWriter::new(manifest()).unwrap();
    for (path, bytes, meta, codec) in sample_entries() {
        w.add(path, bytes, meta, codec).unwrap();
    }
    assert_eq!(w.content_checksum(), a);

    // The blob layout is not covered: forcing codecs differently keeps the value.
    let restored: Vec<Spec> = sample_entries()
        .into_iter()
        .map(|(p, b, m, _)| (p, b, m, CodecChoice::Stored))
        .collect();
    let bytes = build(manifest(), &restored);
    assert_ne!(bytes, sample());
    assert_eq!(checksum_of(bytes), a);
}

#[test]
fn content_checksum_changes_with_any_content() {
    let base = checksum_of(sample());
    let mut variants: Vec<(&str, Vec<u8>)> = Vec::new();

    let mut e = sample_entries();
    e[0].1[10] ^= 1;
    variants.push(("an entry byte", build(manifest(), &e)));

    let mut e = sample_entries();
    e[1].1.push(b'!');
    variants.push(("an entry's length", build(manifest(), &e)));

    let mut e = sample_entries();
    e[0].0 = "textures/grid2.png";
    variants.push(("a path", build(manifest(), &e)));

    let mut e = sample_entries();
    e[0].2.color_space = Some(ColorSpace::Linear);
    variants.push(("a color space", build(manifest(), &e)));

    let mut e = sample_entries();
    e[0].2.filter = Some(Filter::Point);
    variants.push(("a filter", build(manifest(), &e)));

    let mut e = sample_entries();
    e[0].2.wrap = Some(Wrap::Clamp);
    variants.push(("a wrap", build(manifest(), &e)));

    let mut e = sample_entries();
    e[1].2.mime = Some("text/plain".into());
    variants.push(("a MIME type", build(manifest(), &e)));

    let mut e = sample_entries();
    e.push(("new.txt", vec![1], EntryMeta::default(), CodecChoice::Auto));
    variants.push(("an added entry", build(manifest(), &e)));

    let mut e = sample_entries();
    e.pop();
    variants.push(("a removed entry", build(manifest(), &e)));

    let mut m = manifest();
    m.name = "Renamed".into();
    variants.push(("the name", build(m, &sample_entries())));

    let mut m = manifest();
    m.dependencies.pop();
    variants.push(("the dependencies", build(m, &sample_entries())));

    let mut m = manifest();
    m.used_dependencies[0].content_checksum = "1f".repeat(32);
    variants.push(("a used dependency's checksum", build(m, &sample_entries())));

    let mut m = manifest();
    m.default_look = None;
    variants.push(("the default look", build(m, &sample_entries())));

    let mut seen = vec![base];
    for (what, bytes) in variants {
        let c = checksum_of(bytes);
        assert!(
            !seen.contains(&c),
            "changing {what} must change contentChecksum"
        );
        seen.push(c);
    }
}

#[test]
fn folded_crc_changes_with_metadata_but_raw_crc_does_not() {
    let bytes = noise(100, 9);
    let metas = [
        EntryMeta::default(),
        texture_meta(),
        EntryMeta {
            color_space: Some(ColorSpace::Linear),
            ..texture_meta()
        },
        EntryMeta {
            filter: Some(Filter::Bilinear),
            ..texture_meta()
        },
        EntryMeta {
            wrap: Some(Wrap::Mirror),
            ..texture_meta()
        },
        EntryMeta {
            mime: Some("image/jpeg".into()),
            ..texture_meta()
        },
    ];
    let mut folded = Vec::new();
    for meta in &metas {
        let pallet_bytes = build(
            Manifest::new("a.b", "", ""),
            &[("t.png", bytes.clone(), meta.clone(), CodecChoice::Auto)],
        );
        let p = Pallet::from_bytes(pallet_bytes).unwrap();
        let e = p.entry("t.png").unwrap();
        assert_eq!(e.raw_crc32, crc32fast::hash(&bytes));
        assert!(!folded.contains(&e.crc32), "{meta:?}");
        folded.push(e.crc32);
    }
}

// ---------------------------------------------------------------------------------------
// Zero-copy reads, LZ4, voxel payloads, files

#[test]
fn stored_entries_are_borrowed_aligned_ranges_of_the_map() {
    let path = temp_path("zero-copy.pallet");
    let w = {
        let mut w = PalletWriter::new(manifest()).unwrap();
        for (p, b, m, c) in sample_entries() {
            w.add(p, b, m, c).unwrap();
        }
        w
    };
    assert_eq!(w.write_to(&path).unwrap(), WriteOutcome::Written);
    let p = Pallet::open(&path).expect("open");
    assert_eq!(p.path(), Some(path.as_path()));
    let file = p.as_bytes();
    let base = file.as_ptr() as usize;
    assert_eq!(base % 4096, 0, "a map starts on a page");
    for name in [
        "textures/grid.png",
        "worlds/w.dh-vox.bin",
        "models/crate.glb",
    ] {
        let e = p.entry(name).unwrap();
        assert_eq!(e.codec, Codec::Stored, "{name}");
        let range = p.range(name).unwrap();
        assert_eq!(range.as_ptr() as usize, base + e.offset as usize, "{name}");
        assert_eq!(range.as_ptr() as usize % ALIGNMENT as usize, 0, "{name}");
        match p.read(name).unwrap() {
            Cow::Borrowed(b) => assert_eq!(b.as_ptr(), range.as_ptr()),
            Cow::Owned(_) => panic!("{name}: a stored entry must not be copied"),
        }
    }
    drop(p);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn lz4_entries_decompress_and_have_no_range() {
    let p = Pallet::from_bytes(sample()).unwrap();
    let e = p.entry("maps/atrium.dh-map").unwrap();
    assert_eq!(e.codec, Codec::Lz4);
    assert!(e.stored_len < e.raw_len);
    match p.read("maps/atrium.dh-map").unwrap() {
        Cow::Owned(v) => assert_eq!(v, compressible(5000)),
        Cow::Borrowed(_) => panic!("LZ4 entries decode into a new buffer"),
    }
    assert!(matches!(
        p.range("maps/atrium.dh-map"),
        Err(PalletError::NotStored { .. })
    ));

    // Explicit LZ4 even when it does not pay.
    let bytes = build(
        Manifest::new("a.b", "", ""),
        &[(
            "n.bin",
            noise(50, 3),
            EntryMeta::default(),
            CodecChoice::Lz4,
        )],
    );
    let p = Pallet::from_bytes(bytes).unwrap();
    assert_eq!(p.entry("n.bin").unwrap().codec, Codec::Lz4);
    assert_eq!(&*p.read("n.bin").unwrap(), noise(50, 3).as_slice());
}

#[test]
fn auto_stores_what_does_not_shrink_and_every_voxel_payload() {
    let p = Pallet::from_bytes(sample()).unwrap();
    assert_eq!(p.entry("textures/grid.png").unwrap().codec, Codec::Stored);
    assert_eq!(p.entry("empty.txt").unwrap().codec, Codec::Stored);
    // Compressible, but read by range.
    assert_eq!(p.entry("worlds/w.dh-vox.bin").unwrap().codec, Codec::Stored);

    let shard = voxel_shard_name("worlds/w.dh-vox.bin", 1);
    assert_eq!(shard, "worlds/w.dh-vox.bin.1");
    let bytes = build(
        Manifest::new("a.b", "", ""),
        &[(
            Box::leak(shard.clone().into_boxed_str()),
            compressible(4096),
            EntryMeta::default(),
            CodecChoice::Auto,
        )],
    );
    let p = Pallet::from_bytes(bytes).unwrap();
    assert_eq!(p.entry(&shard).unwrap().codec, Codec::Stored);
    assert_eq!(pallet::VOXEL_SHARD_BYTES, 256 << 20);
}

#[test]
fn from_static_reads_without_copying() {
    let bytes: &'static [u8] = Box::leak(sample().into_boxed_slice());
    let p = Pallet::from_static(bytes).unwrap();
    assert_eq!(p.as_bytes().as_ptr(), bytes.as_ptr());
    p.verify_all().unwrap();
    assert_eq!(p.name(), "<embedded pallet>");
}

#[test]
fn write_to_leaves_identical_files_alone() {
    let path = temp_path("unchanged.pallet");
    let writer = |entries: &[Spec]| {
        let mut w = PalletWriter::new(manifest()).unwrap();
        for (p, b, m, c) in entries {
            w.add(p, b.clone(), m.clone(), *c).unwrap();
        }
        w
    };
    assert_eq!(
        writer(&sample_entries()).write_to(&path).unwrap(),
        WriteOutcome::Written
    );
    assert_eq!(
        writer(&sample_entries()).write_to(&path).unwrap(),
        WriteOutcome::Unchanged
    );
    let mut changed = sample_entries();
    changed[0].1[0] ^= 0xff;
    assert_eq!(
        writer(&changed).write_to(&path).unwrap(),
        WriteOutcome::Written
    );
    assert_eq!(std::fs::read(&path).unwrap(), build(manifest(), &changed));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn errors_from_files_name_the_file_and_the_place() {
    let path = temp_path("named-error.pallet");
    let mut bytes = sample();
    bytes[10] = 1; // flags
    std::fs::write(&path, &bytes).unwrap();
    let msg = Pallet::open(&path).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("byte 10"), "{msg}");
    assert!(msg.contains("flags"), "{msg}");

    std::fs::write(&path, &bytes[..20]).unwrap();
    let msg = Pallet::open(&path).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("header"), "{msg}");

    let msg = Pallet::open(temp_path("does-not-exist"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("cannot open"), "{msg}");
    let _ = std::fs::remove_file(&path);
}

// ---------------------------------------------------------------------------------------
// Untrusted bytes

#[test]
fn every_truncation_is_an_error() {
    let bytes = sample();
    for len in 0..bytes.len() {
        let err = expect_err(bytes[..len].to_vec());
        let msg = err.to_string();
        assert!(msg.starts_with("<in-memory pallet>: "), "{len}: {msg}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    expect_err(longer);
}

#[test]
fn every_flipped_index_byte_is_an_error() {
    let bytes = sample();
    let data_offset = u64_at(&bytes, 40) as usize;
    for at in 0..data_offset {
        for bit in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= bit;
            // Padding between the table and the data is not covered by anything.
            let table_end = table_start(&bytes) + u64_at(&bytes, 32) as usize;
            if at >= table_end {
                continue;
            }
            expect_err(b);
        }
    }
}

/// With the index CRC recomputed, a flipped index byte must still never yield wrong
/// bytes for a path: either the open fails, or every read fails or returns the
/// original bytes of that path.
#[test]
fn flipped_index_bytes_behind_a_valid_crc_never_serve_wrong_data() {
    let bytes = sample();
    let expected: BTreeMap<&str, Vec<u8>> = sample_entries()
        .into_iter()
        .map(|(p, b, _, _)| (p, b))
        .collect();
    let table_end = table_start(&bytes) + u64_at(&bytes, 32) as usize;
    let mut opened = 0;
    for at in (0..table_end).filter(|&at| !(48..52).contains(&at)) {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[at] ^= 1 << bit;
            fix_index_crc(&mut b);
            fuzz_read(&b);
            let Ok(p) = Pallet::from_bytes(b) else {
                continue;
            };
            opened += 1;
            for e in p.entries() {
                if let Ok(data) = p.read(e.path) {
                    assert_eq!(
                        Some(&*data),
                        expected.get(e.path).map(Vec::as_slice),
                        "byte {at} bit {bit}: `{}` served wrong data",
                        e.path
                    );
                }
            }
        }
    }
    // Some flips (an offset bit that lands on another aligned slot past the end, a
    // codec flip) open fine and fail on read; that is the point of checking reads.
    assert!(opened < (table_end - 4) * 8);
}

#[test]
fn flipped_data_bytes_fail_the_read_of_that_entry_only() {
    let bytes = sample();
    let p = Pallet::from_bytes(bytes.clone()).unwrap();
    for e in p.entries().filter(|e| e.stored_len > 0) {
        let mut b = bytes.clone();
        b[e.offset as usize + e.stored_len as usize / 2] ^= 0x20;
        let q = Pallet::from_bytes(b).expect("the index is intact");
        let err = q.read(e.path).unwrap_err();
        assert!(
            matches!(
                err,
                PalletError::ChecksumMismatch { .. } | PalletError::Decompress { .. }
            ),
            "{}: {err}",
            e.path
        );
        assert!(err.to_string().contains(e.path), "{err}");
        for other in q.entries().filter(|o| o.path != e.path) {
            q.read(other.path).expect("other entries still read");
        }
        assert!(q.verify_all().is_err());
    }
}

#[test]
fn bogus_header_fields_are_refused() {
    let bytes = sample();
    let cases: Vec<(&str, usize, Vec<u8>)> = vec![
        ("magic", 0, b"DHPALLEX".to_vec()),
        ("format version", 8, 2u16.to_le_bytes().to_vec()),
        ("alignment", 12, 48u32.to_le_bytes().to_vec()),
        ("alignment", 12, 0u32.to_le_bytes().to_vec()),
        ("file length", 16, (1u64 << 40).to_le_bytes().to_vec()),
        ("manifest length", 24, u32::MAX.to_le_bytes().to_vec()),
        ("entry count", 28, u32::MAX.to_le_bytes().to_vec()),
        ("entry count", 28, 1_000_000u32.to_le_bytes().to_vec()),
        ("entry table length", 32, u64::MAX.to_le_bytes().to_vec()),
        ("data offset", 40, 8u64.to_le_bytes().to_vec()),
        ("data offset", 40, u64::MAX.to_le_bytes().to_vec()),
        ("reserved", 52, vec![1]),
    ];
    for (what, at, patch) in cases {
        let mut b = bytes.clone();
        b[at..at + patch.len()].copy_from_slice(&patch);
        fix_index_crc(&mut b);
        let msg = expect_err(b).to_string();
        assert!(msg.contains(what), "{what}: {msg}");
        assert!(msg.contains(&format!("byte {at}")), "{what}: {msg}");
    }
}

#[test]
fn bogus_table_records_are_refused() {
    let bytes = sample();
    let recs = record_offsets(&bytes);
    let p = Pallet::from_bytes(bytes.clone()).unwrap();
    let entries: Vec<_> = p.entries().collect();
    let lz4 = entries.iter().position(|e| e.codec == Codec::Lz4).unwrap();
    let stored = entries
        .iter()
        .position(|e| e.codec == Codec::Stored && e.stored_len > 0)
        .unwrap();

    let patch = |idx: usize, field: usize, v: u64| {
        let mut b = bytes.clone();
        let (off, stored_at, raw_at) = record_fields(&b, recs[idx]);
        let at = [off, stored_at, raw_at][field];
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        fix_index_crc(&mut b);
        b
    };

    let e = &entries[stored];
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "huge stored length",
            patch(stored, 1, u64::MAX),
            "stored length",
        ),
        (
            "over the 1 GiB cap",
            patch(stored, 1, MAX_ENTRY_LEN + 1),
            "1 GiB",
        ),
        (
            "past the end",
            patch(stored, 1, bytes.len() as u64),
            "data range",
        ),
        (
            "offset wraps",
            patch(stored, 0, u64::MAX - 63),
            "data range",
        ),
        (
            "misaligned offset",
            patch(stored, 0, e.offset + 1),
            "data range",
        ),
        ("offset inside the table", patch(stored, 0, 0), "data range"),
        (
            "stored raw length differs",
            patch(stored, 2, e.raw_len + 1),
            "raw length",
        ),
        (
            "LZ4 raw length huge",
            patch(lz4, 2, MAX_ENTRY_LEN),
            "raw length",
        ),
        (
            "LZ4 raw length over cap",
            patch(lz4, 2, u64::MAX),
            "raw length",
        ),
    ];
    for (name, b, needle) in cases {
        let msg = expect_err(b).to_string();
        assert!(msg.contains(needle), "{name}: {msg}");
        assert!(msg.contains("entry `"), "{name}: {msg}");
    }

    // Two entries pointing at the same bytes.
    let other = entries
        .iter()
        .position(|x| x.codec == Codec::Stored && x.stored_len > 0 && x.path != e.path)
        .unwrap();
    let mut b = patch(other, 0, e.offset);
    let (_, stored_at, raw_at) = record_fields(&b, recs[other]);
    b[stored_at..stored_at + 8].copy_from_slice(&e.stored_len.to_le_bytes());
    b[raw_at..raw_at + 8].copy_from_slice(&e.stored_len.to_le_bytes());
    fix_index_crc(&mut b);
    let msg = expect_err(b).to_string();
    assert!(msg.contains("overlapping"), "{msg}");

    // An unknown codec.
    let mut b = bytes.clone();
    let rec = recs[0];
    let path_len = u16::from_le_bytes([b[rec], b[rec + 1]]) as usize;
    b[rec + 2 + path_len] = 7;
    fix_index_crc(&mut b);
    let msg = expect_err(b).to_string();
    assert!(msg.contains("codec"), "{msg}");

    // An unknown color space.
    let mut b = bytes.clone();
    b[rec + 2 + path_len + 3] = 9;
    fix_index_crc(&mut b);
    assert!(expect_err(b).to_string().contains("color space"));
}

#[test]
fn unsorted_duplicate_and_invalid_paths_in_the_table_are_refused() {
    // Same-length paths so that rewriting them in place keeps the layout.
    let entries: Vec<Spec> = ["a/1", "a/2", "a/3"]
        .into_iter()
        .map(|p| (p, vec![1, 2, 3], EntryMeta::default(), CodecChoice::Stored))
        .collect();
    let bytes = build(Manifest::new("a.b", "", ""), &entries);
    let recs = record_offsets(&bytes);
    let set_path = |b: &mut Vec<u8>, idx: usize, path: &[u8; 3]| {
        b[recs[idx] + 2..recs[idx] + 5].copy_from_slice(path);
        fix_index_crc(b);
    };

    let mut b = bytes.clone();
    set_path(&mut b, 0, b"a/9");
    let msg = expect_err(b).to_string();
    assert!(msg.contains("ascending"), "{msg}");

    let mut b = bytes.clone();
    set_path(&mut b, 1, b"a/1");
    let msg = expect_err(b).to_string();
    assert!(msg.contains("ascending"), "{msg}");

    for bad in [b"a//", b"/ab", b"a\\b", b"../", b"a:b"] {
        let mut b = bytes.clone();
        set_path(&mut b, 2, bad);
        let msg = expect_err(b).to_string();
        assert!(msg.contains("the path"), "{msg}");
    }

    let mut b = bytes.clone();
    set_path(&mut b, 2, &[b'a', b'/', 0xff]);
    assert!(expect_err(b).to_string().contains("UTF-8"));
}

#[test]
fn tampered_checksums_behind_a_valid_index_crc_are_refused() {
    let bytes = sample();
    let manifest_end = table_start(&bytes);
    // The last 64 bytes of the manifest are the contentChecksum's hex digits.
    let mut b = bytes.clone();
    b[manifest_end - 1] = if b[manifest_end - 1] == b'0' {
        b'1'
    } else {
        b'0'
    };
    fix_index_crc(&mut b);
    let err = expect_err(b);
    assert!(
        matches!(err, PalletError::ContentChecksumMismatch { .. }),
        "{err}"
    );

    // A folded CRC that does not match its metadata.
    let recs = record_offsets(&bytes);
    let (_, _, raw_at) = record_fields(&bytes, recs[0]);
    let mut b = bytes.clone();
    b[raw_at + 8 + 4] ^= 1;
    fix_index_crc(&mut b);
    assert!(expect_err(b).to_string().contains("folded CRC32"));
}

#[test]
fn another_formula_version_still_opens_unverified() {
    let mut b = sample();
    let manifest_end = table_start(&b);
    let formula_at = manifest_end - 2 - 64 - 4;
    assert_eq!(u32_at(&b, formula_at), CHECKSUM_FORMULA_VERSION);
    b[formula_at..formula_at + 4].copy_from_slice(&7u32.to_le_bytes());
    fix_index_crc(&mut b);
    let p = Pallet::from_bytes(b).expect("opens");
    assert!(!p.checksums_verified());
    assert_eq!(p.manifest().build_info.formula_version, 7);
    p.verify_all().expect("raw CRCs still hold");
}

#[test]
fn hostile_inputs_never_panic() {
    let bytes = sample();
    let mut inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"DHPALLET".to_vec(),
        vec![0xff; 200],
        bytes[..HEADER_LEN].to_vec(),
    ];
    // Every byte of the whole file set to each of a few values, CRC fixed.
    for at in 0..bytes.len() {
        for v in [0x00u8, 0xff, 0x7f] {
            let mut b = bytes.clone();
            b[at] = v;
            fix_index_crc(&mut b);
            inputs.push(b);
        }
    }
    for input in inputs {
        fuzz_read(&input);
        if let Ok(p) = Pallet::from_bytes(input) {
            for e in p.entries() {
                let _ = p.read(e.path);
                let _ = p.range(e.path);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writer refusals

#[test]
fn writer_refuses_bad_paths_and_duplicates() {
    let mut w = PalletWriter::new(manifest()).unwrap();
    for bad in [
        "", "/a", "a//b", "a/", "a/../b", "..", "./a", "a\\b", "core:a",
    ] {
        let err = w
            .add(bad, vec![1], EntryMeta::default(), CodecChoice::Auto)
            .unwrap_err();
        assert!(
            matches!(err, PalletError::InvalidPath { .. }),
            "{bad}: {err}"
        );
        assert!(check_path(bad).is_err());
    }
    w.add("a/b", vec![1], EntryMeta::default(), CodecChoice::Auto)
        .unwrap();
    let err = w
        .add("a/b", vec![2], EntryMeta::default(), CodecChoice::Auto)
        .unwrap_err();
    assert!(matches!(err, PalletError::DuplicatePath { .. }), "{err}");
    assert!(err.to_string().contains("a/b"));
    assert_eq!(w.len(), 1);
}

#[test]
fn writer_refuses_entries_over_the_cap() {
    let mut w = PalletWriter::new(manifest()).unwrap();
    // Zeroed allocation: the pages are never touched, the length is refused first.
    let huge = vec![0u8; MAX_ENTRY_LEN as usize + 1];
    let err = w
        .add("big.bin", huge, EntryMeta::default(), CodecChoice::Auto)
        .unwrap_err();
    assert!(matches!(err, PalletError::EntryTooLarge { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("big.bin") && msg.contains("1 GiB"), "{msg}");
    assert!(w.is_empty());
}

#[test]
fn writer_refuses_lz4_voxel_payloads_bad_meta_and_bad_manifests() {
    let mut w = PalletWriter::new(manifest()).unwrap();
    let err = w
        .add(
            "w/a.dh-vox.bin.2",
            vec![0; 10],
            EntryMeta::default(),
            CodecChoice::Lz4,
        )
        .unwrap_err();
    assert!(matches!(err, PalletError::MustBeStored { .. }), "{err}");

    let err = w
        .add("t.png", vec![0; 10], EntryMeta::mime(""), CodecChoice::Auto)
        .unwrap_err();
    assert!(matches!(err, PalletError::InvalidMeta { .. }), "{err}");

    let bad_manifests = [
        Manifest::new("", "n", "v"),
        Manifest::new("has space", "n", "v"),
        Manifest::new("a:b", "n", "v"),
        Manifest {
            dependencies: vec!["x".into(), "x".into()],
            ..Manifest::new("a.b", "n", "v")
        },
        Manifest {
            dependencies: vec!["a.b".into()],
            ..Manifest::new("a.b", "n", "v")
        },
        Manifest {
            default_look: Some(String::new()),
            ..Manifest::new("a.b", "n", "v")
        },
        Manifest {
            used_dependencies: vec![
                UsedDependency {
                    id: "x".into(),
                    content_checksum: "1".into(),
                },
                UsedDependency {
                    id: "x".into(),
                    content_checksum: "2".into(),
                },
            ],
            ..Manifest::new("a.b", "n", "v")
        },
    ];
    for m in bad_manifests {
        let err = PalletWriter::new(m.clone()).unwrap_err();
        assert!(
            matches!(err, PalletError::InvalidManifest { .. }),
            "{m:?}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Fuzz corpus seeds

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/pallet")
}

/// The seed files: a few small valid pallets and damaged variants.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let small = build(
        Manifest::new("seed.small", "Seed", "1"),
        &[
            (
                "a.txt",
                compressible(300),
                EntryMeta::mime("text/plain"),
                CodecChoice::Auto,
            ),
            ("b.png", noise(40, 5), texture_meta(), CodecChoice::Stored),
            ("c", Vec::new(), EntryMeta::default(), CodecChoice::Auto),
        ],
    );
    let voxel = build(
        Manifest::new("seed.voxel", "Voxel", "1"),
        &[
            (
                "w/a.dh-vox.bin",
                compressible(200),
                EntryMeta::default(),
                CodecChoice::Auto,
            ),
            (
                "w/a.dh-vox.bin.1",
                noise(70, 6),
                EntryMeta::default(),
                CodecChoice::Auto,
            ),
        ],
    );
    let empty = build(Manifest::new("seed.empty", "", ""), &[]);
    let table_end = table_start(&small) + u64_at(&small, 32) as usize;
    let recs = record_offsets(&small);

    let mut corrupt_crc = small.clone();
    corrupt_crc[table_end - 3] ^= 0x10;
    let mut huge_count = small.clone();
    huge_count[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
    fix_index_crc(&mut huge_count);
    let mut huge_len = small.clone();
    let (_, _, raw_at) = record_fields(&small, recs[0]);
    huge_len[raw_at..raw_at + 8].copy_from_slice(&MAX_ENTRY_LEN.to_le_bytes());
    fix_index_crc(&mut huge_len);
    let mut bad_lz4 = small.clone();
    let first = Pallet::from_bytes(small.clone()).unwrap();
    let a = first.entry("a.txt").unwrap();
    assert_eq!(a.codec, Codec::Lz4);
    bad_lz4[a.offset as usize] ^= 0xf0;
    let mut overlap = small.clone();
    let (off_b, _, _) = record_fields(&small, recs[1]);
    overlap[off_b..off_b + 8].copy_from_slice(&a.offset.to_le_bytes());
    fix_index_crc(&mut overlap);

    vec![
        ("valid-small", small.clone()),
        ("valid-voxel", voxel),
        ("valid-empty", empty),
        ("trunc-header", small[..40].to_vec()),
        ("trunc-manifest", small[..HEADER_LEN + 10].to_vec()),
        ("trunc-table", small[..table_end - 5].to_vec()),
        ("trunc-data", small[..small.len() - 1].to_vec()),
        ("corrupt-index-crc", corrupt_crc),
        ("corrupt-entry-count", huge_count),
        ("corrupt-raw-length", huge_len),
        ("corrupt-lz4-data", bad_lz4),
        ("corrupt-overlap", overlap),
    ]
}

/// Run with `DH_WRITE_PALLET_SEEDS=1` to (re)write `fuzz/corpus/pallet/`.
#[test]
fn fuzz_seeds_are_current() {
    let seeds = seeds();
    let dir = corpus_dir();
    if std::env::var_os("DH_WRITE_PALLET_SEEDS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    for (name, bytes) in &seeds {
        fuzz_read(bytes);
        let opened = Pallet::from_bytes(bytes.clone()).and_then(|p| p.verify_all());
        assert_eq!(
            opened.is_ok(),
            name.starts_with("valid-"),
            "{name}: {opened:?}"
        );
        if let Ok(on_disk) = std::fs::read(dir.join(name)) {
            assert_eq!(
                &on_disk, bytes,
                "{name} is stale: rerun with DH_WRITE_PALLET_SEEDS=1"
            );
        }
    }
}

#[test]
fn corpus_files_never_panic() {
    let Ok(dir) = std::fs::read_dir(corpus_dir()) else {
        return;
    };
    for f in dir.flatten() {
        let bytes = std::fs::read(f.path()).unwrap();
        fuzz_read(&bytes);
    }
}

#[test]
fn pallets_and_errors_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Pallet>();
    assert_send_sync::<PalletError>();
    assert_send_sync::<PalletWriter>();
}
