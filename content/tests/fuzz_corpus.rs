//! Runs every committed fuzz corpus file through its target's entry point, so the corpus
//! (seeds plus every crash ever found) is an ordinary regression suite.

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, b)
        })
        .collect()
}

#[test]
fn source_corpus_never_panics() {
    let files = corpus("source");
    assert!(
        files.len() >= 5,
        "the source corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_source(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn pallet_corpus_never_panics() {
    let files = corpus("pallet");
    assert!(!files.is_empty(), "the pallet corpus is empty");
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_pallet(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn image_corpus_never_panics() {
    let files = corpus("image");
    assert!(
        files.len() >= 5,
        "the image corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_image(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn nbt_corpus_never_panics() {
    let files = corpus("nbt");
    assert!(
        files.len() >= 10,
        "the nbt corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_nbt(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn minecraft_corpus_never_panics() {
    let files = corpus("minecraft");
    assert!(
        files.len() >= 8,
        "the minecraft corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_minecraft(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn region_corpus_never_panics() {
    let files = corpus("region");
    assert!(
        files.len() >= 5,
        "the region corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_region(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn mapthumb_corpus_never_panics() {
    let files = corpus("mapthumb");
    assert!(
        files.len() >= 5,
        "the mapthumb corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_mapthumb(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn dhmip_corpus_never_panics() {
    let files = corpus("dhmip");
    assert!(
        files.len() >= 5,
        "the dhmip corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_dhmip(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn lightmap_corpus_never_panics() {
    let files = corpus("lightmap");
    assert!(
        files.len() >= 8,
        "the lightmap corpus has only {} files",
        files.len()
    );
    let mut read = 0;
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_lightmap(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
        read += usize::from(dh_content::lightmap::Lightmap::read("seed", &bytes).is_ok());
    }
    // The seeds that are sidecars (blocks, zones, imported, texels) read.
    assert!(read >= 4, "only {read} seed(s) read");
}

#[test]
fn mcmeta_corpus_never_panics() {
    let files = corpus("mcmeta");
    assert!(
        files.len() >= 5,
        "the mcmeta corpus has only {} files",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_mcmeta(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn platforms_corpus_never_panics() {
    let files = corpus("platforms");
    assert!(
        files.len() >= 4,
        "the platforms corpus has only {}",
        files.len()
    );
    for (path, bytes) in files {
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_platforms(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}
