//! Runs the committed `mc_assets` fuzz corpus (fuzz/corpus/mc_assets) through its
//! target's entry point, so every seed and every crash ever found stays a regression.

use std::path::PathBuf;

#[test]
fn mc_assets_corpus_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/mc_assets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "the mc_assets corpus has only {} files",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_mc_assets(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

/// The seeds that must be refused are refused with the error they were written for.
#[test]
fn the_crafted_seeds_meet_their_errors() {
    use dh_content::voxel::minecraft::platform::{source, Limits};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/mc_assets");
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap_or_else(|e| panic!("{n}: {e}"));
    let e = source::read_jar(
        "tiny_with_dotdot.jar",
        &read("tiny_with_dotdot.jar"),
        &Limits::default(),
    )
    .err()
    .map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some("tiny_with_dotdot.jar!/assets/minecraft/textures/../evil.png: the entry's name is refused: it holds a '..' or '.' segment; a jar's entries are relative paths")
    );
    let a = source::read_jar("tiny.jar", &read("tiny.jar"), &Limits::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.files.len(), 3);
    assert_eq!(
        source::png_size(&read("png_100000.png"), 4096),
        Err(
            "the PNG claims 100000x100000 texels; a block texture may be at most 4096 a side"
                .into()
        )
    );
}
