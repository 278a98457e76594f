//! `dh-engine light-check`: agreement figures on a crafted save whose saved light is set
//! by hand, so the expected counts follow from the light rules alone (open sky is 15 all
//! the way down through air; stone holds no light), and on the region fixtures when
//! `../shared/fixtures` is present.
//!
//! The NBT is written by a small writer of this test's own, not by the code under test.

use std::path::PathBuf;

use dh_content::voxel::minecraft::world::region::build_region;
use dh_engine::light_check::check_save;

/// A tag of this test's NBT writer.
enum T {
    B(i8),
    I(i32),
    S(&'static str),
    Ba(Vec<u8>),
    L(Vec<T>),
    C(Vec<(&'static str, T)>),
}

fn id(t: &T) -> u8 {
    match t {
        T::B(_) => 1,
        T::I(_) => 3,
        T::Ba(_) => 7,
        T::S(_) => 8,
        T::L(_) => 9,
        T::C(_) => 10,
    }
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    out.extend((s.len() as u16).to_be_bytes());
    out.extend(s.as_bytes());
}

fn payload(t: &T, out: &mut Vec<u8>) {
    match t {
        T::B(v) => out.push(*v as u8),
        T::I(v) => out.extend(v.to_be_bytes()),
        T::S(s) => put_str(s, out),
        T::Ba(v) => {
            out.extend((v.len() as i32).to_be_bytes());
            out.extend(v);
        }
        T::L(items) => {
            out.push(items.first().map_or(0, id));
            out.extend((items.len() as i32).to_be_bytes());
            for i in items {
                payload(i, out);
            }
        }
        T::C(entries) => {
            for (k, v) in entries {
                out.push(id(v));
                put_str(k, out);
                payload(v, out);
            }
            out.push(0);
        }
    }
}

fn root(t: T) -> Vec<u8> {
    let mut out = vec![10, 0, 0];
    payload(&t, &mut out);
    out
}

/// A nibble array (2048 bytes, cell i = y·256 + z·16 + x, low nibble first) holding
/// `base` everywhere but the cells given.
fn nibbles(base: u8, set: &[(std::ops::Range<usize>, u8)]) -> Vec<u8> {
    let mut v = vec![base; 4096];
    for (r, level) in set {
        v[r.clone()].fill(*level);
    }
    v.chunks(2).map(|p| p[0] | (p[1] << 4)).collect()
}

/// A section at `y` of one block everywhere, with the saved arrays given.
fn section(y: i8, block: Option<&'static str>, bl: Option<Vec<u8>>, sl: Option<Vec<u8>>) -> T {
    let mut c = vec![("Y", T::B(y))];
    if let Some(name) = block {
        c.push((
            "block_states",
            T::C(vec![(
                "palette",
                T::L(vec![T::C(vec![("Name", T::S(name))])]),
            )]),
        ));
    }
    if let Some(b) = bl {
        c.push(("BlockLight", T::Ba(b)));
    }
    if let Some(s) = sl {
        c.push(("SkyLight", T::Ba(s)));
    }
    T::C(c)
}

fn chunk(x: i32, z: i32, sections: Vec<T>) -> Vec<u8> {
    root(T::C(vec![
        ("DataVersion", T::I(3465)),
        ("xPos", T::I(x)),
        ("zPos", T::I(z)),
        ("yPos", T::I(0)),
        ("Status", T::S("minecraft:full")),
        ("sections", T::L(sections)),
    ]))
}

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 3 × 3 chunks, each stone at section 0 and air at section 1: only the middle one is
/// interior. Its saved light, set by hand against what the rules give (stone: block 0 and
/// sky 0; open air under the sky: block 0, sky 15):
///
/// * section 0: BlockLight all 0 (4096 equal), no SkyLight (4096 not compared);
/// * section 1: BlockLight 1 in 10 cells (within ±1) and 5 in 20 cells (off by 5), 0
///   elsewhere; SkyLight 14 in 40 cells (within ±1) and 0 in 50 cells, 15 elsewhere;
/// * section 2: light only (no blocks, above the field): not counted.
#[test]
fn agreement_on_a_crafted_save() {
    let dir = std::env::temp_dir().join(format!("dh-light-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("region")).unwrap();
    let _tmp = Tmp(dir.clone());
    let mut chunks = Vec::new();
    for z in 0..3 {
        for x in 0..3 {
            let middle = x == 1 && z == 1;
            let sections = if middle {
                vec![
                    section(0, Some("minecraft:stone"), Some(nibbles(0, &[])), None),
                    section(
                        1,
                        Some("minecraft:air"),
                        Some(nibbles(0, &[(0..10, 1), (10..30, 5)])),
                        Some(nibbles(15, &[(100..140, 14), (200..250, 0)])),
                    ),
                    section(2, None, Some(nibbles(7, &[])), Some(nibbles(3, &[]))),
                ]
            } else {
                vec![
                    section(0, Some("minecraft:stone"), None, None),
                    section(1, Some("minecraft:air"), None, None),
                ]
            };
            // Compression 3: uncompressed.
            chunks.push(([x, z], 3u8, chunk(x, z, sections)));
        }
    }
    std::fs::write(dir.join("region/r.0.0.mca"), build_region(&chunks)).unwrap();

    let r = check_save(&dir).unwrap();
    print!("{r}");
    assert_eq!(r.regions, 1);
    assert_eq!(r.chunks, 9);
    assert_eq!(r.interior, 1);
    assert!(r.unreadable.is_empty(), "{:?}", r.unreadable);
    assert_eq!(r.y_range, (0, 32));

    assert_eq!(r.block.cells, 8192);
    assert_eq!(r.block.equal, 8192 - 30);
    assert_eq!(r.block.within_one, 8192 - 20);
    assert_eq!(r.block.diff_sum, -(10 + 20 * 5));
    assert_eq!(r.block.not_compared, 0);
    assert_eq!(r.sky.cells, 4096);
    assert_eq!(r.sky.equal, 4096 - 90);
    assert_eq!(r.sky.within_one, 4096 - 50);
    assert_eq!(r.sky.diff_sum, 40 + 50 * 15);
    assert_eq!(r.sky.not_compared, 4096);
    assert!((r.block.equal_pct() - 100.0 * 8162.0 / 8192.0).abs() < 1e-9);

    // Air holds every disagreement; stone agrees everywhere.
    assert_eq!(r.ids.len(), 2);
    assert_eq!(r.ids[0].id, "minecraft:air");
    assert_eq!(r.ids[0].block.cells, 4096);
    assert_eq!(r.ids[0].block.equal, 4096 - 30);
    assert_eq!(r.ids[0].sky.equal, 4096 - 90);
    assert_eq!(r.ids[1].id, "minecraft:stone");
    assert_eq!(r.ids[1].block.cells, 4096);
    assert_eq!(r.ids[1].block.equal, 4096);
    assert_eq!(r.ids[1].sky.cells, 0);
}

/// Both region fixtures light and compare: every chunk reads, some are interior, and
/// most cells agree (the figures themselves are in docs/PERFORMANCE.md, Issue 13).
#[test]
fn region_fixtures_compare() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/minecraft/region");
    if !root.is_dir() {
        println!("skipped: {} is absent", root.display());
        return;
    }
    for name in ["1.20.1-paper", "1.21.1"] {
        let r = check_save(&root.join(name)).unwrap();
        print!("{r}");
        assert!(r.unreadable.is_empty(), "{name}: {:?}", r.unreadable);
        assert!(r.interior > 0, "{name}: no interior chunk");
        assert!(r.block.cells > 0 && r.sky.cells > 0, "{name}");
        assert!(r.block.equal <= r.block.within_one && r.block.within_one <= r.block.cells);
        assert!(r.sky.equal <= r.sky.within_one && r.sky.within_one <= r.sky.cells);
    }
}
