//! The on-disk mip chain cache: hit on a second load, never touched with
//! `client.cache.mipmaps` off, a damaged file regenerated with one note.

use dh_content::mips::{generate_chain, MipFilter};
use dh_engine::mip_cache::{MipCache, MipCacheStats};

fn texture() -> (u32, u32, Vec<u8>) {
    let (w, h) = (16u32, 8u32);
    let rgba = (0..w * h)
        .flat_map(|i| [(i * 13) as u8, (i * 7) as u8, (i * 3) as u8, 255])
        .collect();
    (w, h, rgba)
}

fn temp_root(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dh-mip-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn files(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root.join("mipmaps"))
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_second_load_reads_the_chain_back() {
    let root = temp_root("hit");
    let (w, h, rgba) = texture();
    let want = generate_chain(w, h, &rgba, MipFilter::Box);
    let mut notes = Vec::new();
    let first = MipCache::at(&root);
    assert_eq!(
        first.chain(w, h, &rgba, MipFilter::Box, true, &mut notes),
        want
    );
    assert_eq!(
        first.stats(),
        MipCacheStats {
            reads: 0,
            writes: 1,
            generated: 1,
            refused: 0
        }
    );
    let on_disk = files(&root);
    assert_eq!(on_disk.len(), 1, "{on_disk:?}");
    let name = on_disk[0]
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    assert!(name.ends_with(".dhmip") && name.len() == 64 + 6, "{name}");
    // A new run: a fresh cache over the same folder.
    let second = MipCache::at(&root);
    assert_eq!(
        second.chain(w, h, &rgba, MipFilter::Box, true, &mut notes),
        want
    );
    assert_eq!(
        second.stats(),
        MipCacheStats {
            reads: 1,
            writes: 0,
            generated: 0,
            refused: 0
        }
    );
    // Another filter is another entry.
    let mask = MipFilter::Coverage { cutoff: 0.5 };
    second.chain(w, h, &rgba, mask, true, &mut notes);
    assert_eq!(second.stats().writes, 1);
    assert_eq!(files(&root).len(), 2);
    assert!(notes.is_empty(), "{notes:?}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn persistence_off_never_touches_the_disk() {
    let root = temp_root("off");
    let (w, h, rgba) = texture();
    let cache = MipCache::at(&root);
    let mut notes = Vec::new();
    let levels = cache.chain(w, h, &rgba, MipFilter::Box, false, &mut notes);
    assert_eq!(levels, generate_chain(w, h, &rgba, MipFilter::Box));
    assert_eq!(levels.len(), 4, "16x8 has levels 8x4, 4x2, 2x1, 1x1");
    assert_eq!(
        cache.stats(),
        MipCacheStats {
            reads: 0,
            writes: 0,
            generated: 1,
            refused: 0
        }
    );
    assert!(!root.exists(), "the folder was made with persistence off");
    // Observed live: on again, the next chain is written.
    cache.chain(w, h, &rgba, MipFilter::Box, true, &mut notes);
    assert_eq!(cache.stats().writes, 1);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_damaged_file_is_regenerated_with_one_note() {
    let root = temp_root("bad");
    let (w, h, rgba) = texture();
    let mut notes = Vec::new();
    MipCache::at(&root).chain(w, h, &rgba, MipFilter::Box, true, &mut notes);
    let path = files(&root).remove(0);
    let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    bytes[0] = b'X';
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let cache = MipCache::at(&root);
    let levels = cache.chain(w, h, &rgba, MipFilter::Box, true, &mut notes);
    assert_eq!(levels, generate_chain(w, h, &rgba, MipFilter::Box));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains(".dhmip")
            && notes[0].contains("magic")
            && notes[0].ends_with("regenerated"),
        "{}",
        notes[0]
    );
    assert_eq!(cache.stats().refused, 1);
    assert_eq!(cache.stats().writes, 1);
    // Rewritten whole: the next run reads it.
    let again = MipCache::at(&root);
    again.chain(w, h, &rgba, MipFilter::Box, true, &mut notes);
    assert_eq!(again.stats().reads, 1);
    assert_eq!(notes.len(), 1);
    let _ = std::fs::remove_dir_all(&root);
}
