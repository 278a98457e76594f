//! The NBT reader (`dh_content::voxel::minecraft::nbt`): every tag type, the three
//! containers, the bounds (depth, lengths, inflated size), paths in errors, and every
//! Minecraft fixture read in place. The NBT inputs are written here by a small encoder of
//! the test's own, never by the reader.

use std::path::PathBuf;

use dh_content::voxel::minecraft::nbt::{
    self, detect, inflate, read, read_unnamed, read_with, Compression, List, NbtError, Tag, TagId,
    MAX_DEPTH,
};

/// A minimal big-endian NBT writer for building inputs.
#[derive(Default)]
struct W(Vec<u8>);

impl W {
    fn named(&mut self, id: u8, name: &str) -> &mut Self {
        self.0.push(id);
        self.str(name)
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.0.extend_from_slice(&(s.len() as u16).to_be_bytes());
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.raw(&v.to_be_bytes())
    }
    fn end(&mut self) -> &mut Self {
        self.0.push(0);
        self
    }
}

/// One tag of every type inside a root compound named `root`.
fn every_tag() -> Vec<u8> {
    let mut w = W::default();
    w.named(10, "root");
    w.named(1, "b").raw(&[0xfe]);
    w.named(2, "s").raw(&(-300i16).to_be_bytes());
    w.named(3, "i").i32(-70000);
    w.named(4, "l").raw(&(-(1i64 << 40)).to_be_bytes());
    w.named(5, "f").raw(&1.5f32.to_be_bytes());
    w.named(6, "d").raw(&(-2.25f64).to_be_bytes());
    w.named(7, "ba").i32(3).raw(&[1, 2, 255]);
    w.named(8, "str").str("minecraft:stone");
    w.named(9, "li").raw(&[3]).i32(3).i32(10).i32(-20).i32(30);
    w.named(9, "ls").raw(&[8]).i32(2).str("a").str("bc");
    w.named(9, "lc").raw(&[10]).i32(2);
    w.named(3, "x").i32(1).end();
    w.end();
    w.named(9, "empty").raw(&[0]).i32(0);
    w.named(10, "c");
    w.named(8, "Name").str("minecraft:chest");
    w.named(11, "ia").i32(2).i32(7).i32(-8);
    w.named(12, "la")
        .i32(2)
        .raw(&1i64.to_be_bytes())
        .raw(&(-1i64).to_be_bytes());
    w.end();
    w.end();
    w.0
}

#[test]
fn every_tag_type_reads() {
    let bytes = every_tag();
    assert_eq!(detect(&bytes), Compression::None);
    let root = read(&bytes).unwrap();
    assert_eq!(root.len, bytes.len());
    assert!(root.name.is("root"));
    let at = root.at();
    assert_eq!(at.get("b").unwrap().as_byte().unwrap(), -2);
    assert_eq!(at.get("s").unwrap().as_short().unwrap(), -300);
    assert_eq!(at.get("i").unwrap().as_i32().unwrap(), -70000);
    assert_eq!(at.get("l").unwrap().as_i64().unwrap(), -(1i64 << 40));
    assert_eq!(at.get("f").unwrap().as_f64().unwrap(), 1.5);
    assert_eq!(at.get("d").unwrap().as_f64().unwrap(), -2.25);
    assert_eq!(at.get("ba").unwrap().as_bytes().unwrap(), &[1, 2, 255]);
    assert_eq!(at.get("str").unwrap().as_str().unwrap(), "minecraft:stone");
    assert_eq!(
        at.get("li").unwrap().as_ints().unwrap().to_vec(),
        vec![10, -20, 30]
    );
    let ls = at.get("ls").unwrap();
    let strings: Vec<String> = ls
        .items()
        .unwrap()
        .map(|s| s.as_str().unwrap().into_owned())
        .collect();
    assert_eq!(strings, ["a", "bc"]);
    let lc = at.get("lc").unwrap();
    let items: Vec<_> = lc.items().unwrap().collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].get("x").unwrap().as_i32().unwrap(), 1);
    assert!(items[1].opt("x").unwrap().is_none());
    assert_eq!(at.get("empty").unwrap().list().unwrap(), &List::Empty);
    let c = at.get("c").unwrap();
    assert_eq!(c.get("Name").unwrap().as_str().unwrap(), "minecraft:chest");
    let ia = c.get("ia").unwrap().as_ints().unwrap();
    assert_eq!(
        (ia.len(), ia.get(0), ia.get(1), ia.get(2)),
        (2, Some(7), Some(-8), None)
    );
    assert_eq!(
        c.get("la").unwrap().as_longs().unwrap().to_vec(),
        vec![1, -1]
    );
    // The typed getter widens only losslessly.
    assert_eq!(at.get("b").unwrap().as_i32().unwrap(), -2);
    assert!(at.get("l").unwrap().as_i32().is_err());
}

#[test]
fn unnamed_roots_read() {
    let mut w = W::default();
    w.raw(&[10]);
    w.named(3, "v").i32(5).end();
    let root = read_unnamed(&w.0).unwrap();
    assert!(root.name.as_bytes().is_empty());
    assert_eq!(root.at().get("v").unwrap().as_i32().unwrap(), 5);
    // Read as named, the same bytes are a compound named "\u{3}\0..." that runs short.
    assert!(read(&w.0).is_err());
}

#[test]
fn type_errors_name_the_path() {
    let mut w = W::default();
    w.named(10, "Schematic");
    w.named(10, "Palette");
    w.named(8, "minecraft:stone").str("oops").end();
    w.named(9, "Regions").raw(&[10]).i32(1);
    w.named(3, "y").i32(1).end();
    w.end();
    let root = read(&w.0).unwrap();
    let at = root.at();
    let pal = at.get("Palette").unwrap();
    let (_, stone) = pal.entries().unwrap().next().unwrap();
    let e = stone.as_i32().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Schematic.Palette.minecraft:stone: expected Int, found String"
    );
    let e = at.get("Width").unwrap_err();
    assert_eq!(e.to_string(), "Schematic.Width: missing; expected a tag");
    let regions = at.get("Regions").unwrap();
    let first = regions.items().unwrap().next().unwrap();
    let e = first.get("y").unwrap().as_str().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Schematic.Regions[0].y: expected String, found Int"
    );
    // An empty root name is left out of paths.
    let mut w = W::default();
    w.named(10, "");
    w.named(10, "Schematic")
        .named(2, "Width")
        .raw(&[0, 1])
        .end();
    w.end();
    let root = read(&w.0).unwrap();
    let root_at = root.at();
    let s = root_at.get("Schematic").unwrap();
    let e = s.get("Width").unwrap().as_str().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Schematic.Width: expected String, found Short"
    );
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = every_tag();
    for n in 0..bytes.len() {
        let r = read(&bytes[..n]);
        assert!(r.is_err(), "a {n}-byte prefix of {} read", bytes.len());
    }
}

#[test]
fn depth_is_capped_at_512() {
    // n nested compounds: the root is depth 1.
    let nested = |n: usize| {
        let mut w = W::default();
        w.named(10, "");
        for _ in 1..n {
            w.named(10, "c");
        }
        for _ in 0..n {
            w.end();
        }
        w.0
    };
    assert!(read(&nested(MAX_DEPTH)).is_ok());
    match read(&nested(MAX_DEPTH + 1)) {
        Err(NbtError::TooDeep { max, .. }) => assert_eq!(max, MAX_DEPTH),
        other => panic!("expected TooDeep, got {other:?}"),
    }
    // Lists of lists count too, and a deep input far past the cap stops at it.
    let mut w = W::default();
    w.named(9, "");
    for _ in 0..100_000 {
        w.raw(&[9]).i32(1);
    }
    w.raw(&[0]).i32(0);
    assert!(matches!(read(&w.0), Err(NbtError::TooDeep { .. })));
    assert!(read_with(&nested(10), true, 9).is_err());
    assert!(read_with(&nested(10), true, 10).is_ok());
}

#[test]
fn lengths_are_checked_before_allocating() {
    // A list claiming 2^31-1 compounds in 9 bytes.
    let mut w = W::default();
    w.named(9, "").raw(&[10]).i32(i32::MAX);
    assert!(matches!(read(&w.0), Err(NbtError::Truncated { .. })));
    // A long array claiming 2^31-1 longs.
    let mut w = W::default();
    w.named(12, "").i32(i32::MAX).raw(&[0; 16]);
    assert!(matches!(read(&w.0), Err(NbtError::Truncated { .. })));
    // Negative lengths.
    let mut w = W::default();
    w.named(7, "").i32(-1);
    assert!(matches!(
        read(&w.0),
        Err(NbtError::NegativeLength { len: -1, .. })
    ));
    let mut w = W::default();
    w.named(9, "").raw(&[3]).i32(-5);
    assert!(matches!(read(&w.0), Err(NbtError::NegativeLength { .. })));
    // A list of End tags that is not empty (the game refuses it: no element type).
    let mut w = W::default();
    w.named(9, "").raw(&[0]).i32(1_000_000);
    assert!(matches!(read(&w.0), Err(NbtError::ListOfEnd { .. })));
    // A type byte past 12.
    let mut w = W::default();
    w.named(10, "").named(13, "x").end();
    assert!(matches!(
        read(&w.0),
        Err(NbtError::BadTagType { id: 13, .. })
    ));
    // An End root.
    assert!(matches!(read(&[0]), Err(NbtError::EmptyRoot)));
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend(crc32fast::hash(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

#[test]
fn gzip_and_zlib_are_detected_and_inflated() {
    let raw = every_tag();
    let gz = gzip(&raw);
    assert_eq!(detect(&gz), Compression::Gzip);
    assert_eq!(&*inflate(&gz, 1 << 20).unwrap(), raw.as_slice());
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
    assert_eq!(detect(&z), Compression::Zlib);
    assert_eq!(&*inflate(&z, 1 << 20).unwrap(), raw.as_slice());
    assert!(matches!(
        inflate(&raw, 1 << 20).unwrap(),
        std::borrow::Cow::Borrowed(_)
    ));
    // Two gzip members back to back read as their concatenation.
    let mut two = gzip(&raw[..10]);
    two.extend(gzip(&raw[10..]));
    assert_eq!(&*inflate(&two, 1 << 20).unwrap(), raw.as_slice());
    // A gzip header with a file name and a comment.
    let mut named = vec![0x1f, 0x8b, 8, 8 | 16, 0, 0, 0, 0, 0, 255];
    named.extend(b"a.nbt\0comment\0");
    named.extend(&gz[10..]);
    assert_eq!(&*inflate(&named, 1 << 20).unwrap(), raw.as_slice());
}

#[test]
fn corrupt_streams_are_errors() {
    let raw = every_tag();
    let mut gz = gzip(&raw);
    let n = gz.len();
    gz[n - 8] ^= 1; // the CRC
    let e = inflate(&gz, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("CRC-32"), "{e}");
    let gz = gzip(&raw);
    for cut in [3, 10, gz.len() / 2, gz.len() - 4] {
        assert!(inflate(&gz[..cut], 1 << 20).is_err(), "cut at {cut}");
    }
    let mut z = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
    let n = z.len();
    z[n - 1] ^= 0x55; // the Adler-32
    let e = inflate(&z, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("Adler-32"), "{e}");
}

#[test]
fn bombs_stop_at_the_cap() {
    let zeros = vec![0u8; 8 << 20];
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 9);
    assert!(z.len() < 64 << 10);
    match inflate(&z, 1 << 20) {
        Err(NbtError::InflatedTooLarge { cap, container }) => {
            assert_eq!((cap, container), (1 << 20, "zlib"));
        }
        other => panic!(
            "expected InflatedTooLarge, got {:?}",
            other.map(|b| b.len())
        ),
    }
    let gz = gzip(&zeros);
    assert!(matches!(
        inflate(&gz, 1 << 20),
        Err(NbtError::InflatedTooLarge {
            container: "gzip",
            ..
        })
    ));
    // Exactly at the cap is fine.
    assert_eq!(inflate(&z, 8 << 20).unwrap().len(), 8 << 20);
}

#[test]
fn modified_utf8_strings_decode() {
    // "a\0b" with NUL as c0 80, and U+1F600 as its surrogate pair.
    let mut w = W::default();
    w.named(10, "");
    w.named(8, "nul").raw(&[0, 4, b'a', 0xc0, 0x80, b'b']);
    w.named(8, "emoji")
        .raw(&[0, 6, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]);
    w.named(8, "bad").raw(&[0, 2, 0xc0, 0x41]);
    w.end();
    let root = read(&w.0).unwrap();
    let at = root.at();
    assert_eq!(at.get("nul").unwrap().as_str().unwrap(), "a\0b");
    assert_eq!(at.get("emoji").unwrap().as_str().unwrap(), "\u{1F600}");
    assert!(at.get("nul").unwrap().as_raw_str().unwrap().is("a\0b"));
    let e = at.get("bad").unwrap().as_str().unwrap_err();
    assert_eq!(e.to_string(), "bad: the string is not valid modified UTF-8");
}

#[test]
fn a_compound_keeps_its_source_bytes() {
    let bytes = every_tag();
    let root = read(&bytes).unwrap();
    let Tag::Compound(c) = &root.tag else {
        panic!("not a compound")
    };
    // Everything after the root's type and name ("root": 2 + 4 bytes).
    assert_eq!(c.body, &bytes[7..]);
    let rb = c.root_bytes();
    assert_eq!(&rb[..3], &[10, 0, 0]);
    let again = read(&rb).unwrap();
    assert_eq!(again.tag, root.tag);
    let inner = c.get("c").unwrap();
    let Tag::Compound(inner) = inner else {
        panic!("c is not a compound")
    };
    assert_eq!(inner.entries.len(), 3);
    assert_eq!(inner.entries[0].0.as_bytes(), b"Name");
    assert_eq!(*inner.body.last().unwrap(), 0);
    assert_eq!(root.tag.id(), TagId::Compound);
}

fn fixtures() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/minecraft");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: the Minecraft fixtures folder {} is absent",
            dir.display()
        );
        None
    }
}

/// Every structure fixture and level.dat inflates and reads whole, with the root the
/// fixtures' README describes (gzip everywhere; v2 `.schem` roots named `Schematic`).
#[test]
fn every_fixture_reads() {
    let Some(dir) = fixtures() else { return };
    let mut read_files = 0;
    for (sub, ext) in [
        ("schem", "schem"),
        ("litematic", "litematic"),
        ("structure", "nbt"),
        ("schematic", "schematic"),
        ("region/1.20.1-paper", "dat"),
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            println!("skipped: {sub} is absent");
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()) != Some(ext) {
                continue;
            }
            let file = std::fs::read(&p).unwrap();
            assert_eq!(detect(&file), Compression::Gzip, "{}", p.display());
            let bytes = inflate(&file, 64 << 20).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let root = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!(root.len, bytes.len(), "{}", p.display());
            assert_eq!(root.tag.id(), TagId::Compound, "{}", p.display());
            read_files += 1;
        }
    }
    // 4 .schem, 3 .litematic, 2 .nbt, 3 .schematic and level.dat.
    assert_eq!(read_files, 13);
    // Facts from the README, checked through the tree.
    let file = std::fs::read(dir.join("schem/smallhouse1.schem")).unwrap();
    let bytes = inflate(&file, 1 << 24).unwrap();
    let root = read(&bytes).unwrap();
    assert!(root.name.is("Schematic"));
    let at = root.at();
    let dims: Vec<i32> = ["Width", "Height", "Length"]
        .iter()
        .map(|k| at.get(k).unwrap().as_i32().unwrap())
        .collect();
    assert_eq!(dims, [21, 28, 20]);
    assert_eq!(at.get("DataVersion").unwrap().as_i32().unwrap(), 2584);
    assert_eq!(at.get("Palette").unwrap().entries().unwrap().len(), 173);
    assert_eq!(at.get("BlockEntities").unwrap().items().unwrap().len(), 72);
    let file = std::fs::read(dir.join("region/1.20.1-paper/level.dat")).unwrap();
    let bytes = inflate(&file, 1 << 24).unwrap();
    let root = read(&bytes).unwrap();
    let at = root.at();
    let data = at.get("Data").unwrap();
    assert_eq!(data.get("DataVersion").unwrap().as_i32().unwrap(), 3465);
    let version = data.get("Version").unwrap();
    assert_eq!(version.get("Name").unwrap().as_str().unwrap(), "1.20.1");
}

#[test]
fn the_fuzz_entry_point_takes_the_fixtures() {
    let Some(dir) = fixtures() else { return };
    for f in ["structure/test_structure.nbt", "schem/test01.schem"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        dh_content::fuzzing::fuzz_nbt(&bytes);
    }
    dh_content::fuzzing::fuzz_nbt(&every_tag());
    let _ = nbt::inflate(&[], 1);
}

/// Every structure fixture, read in place (the copyleft ones are never copied into the
/// corpus), through the fuzz entry point whole, inflated, and inflated then cut short
/// or with a byte changed at a spread of places.
#[test]
fn nbt_fixtures_never_panic() {
    let Some(dir) = fixtures() else { return };
    for sub in ["schem", "litematic", "structure", "schematic"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            println!("skipped: {sub} is absent");
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let file = std::fs::read(&p).unwrap();
            dh_content::fuzzing::fuzz_nbt(&file);
            let bytes = inflate(&file, 64 << 20).unwrap().into_owned();
            // 31 places in the small files, 3 in the megabyte ones (a debug build walks a
            // few megabytes of tags slowly).
            let places = if bytes.len() <= 200_000 { 31 } else { 3 };
            let step = (bytes.len() / places).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                assert!(
                    read(&bytes[..cut]).is_err(),
                    "{} cut at {cut} read",
                    p.display()
                );
                let mut changed = bytes.clone();
                changed[cut] ^= 0xa5;
                let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_nbt(&changed));
                assert!(
                    r.is_ok(),
                    "{} with byte {cut} changed panicked",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn one_thread_inflates_after_a_failed_stream() {
    // The inflater's state is kept a thread and reset per stream: a stream that failed
    // (cut short, bad checksum, a bomb) must leave nothing behind for the next one.
    let raw = every_tag();
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
    let gz = gzip(&raw);
    let mut bad = z.clone();
    let n = bad.len();
    bad[n - 1] ^= 0x55;
    let bomb = miniz_oxide::deflate::compress_to_vec_zlib(&vec![0u8; 4 << 20], 9);
    for failing in [&z[..z.len() / 2], &bad[..], &bomb[..], &gz[..gz.len() / 2]] {
        assert!(inflate(failing, 1 << 20).is_err());
        assert_eq!(&*inflate(&z, 1 << 20).unwrap(), raw.as_slice());
        assert_eq!(&*inflate(&gz, 1 << 20).unwrap(), raw.as_slice());
    }
}
