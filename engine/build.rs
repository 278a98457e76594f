//! Embeds the core pallet's sources (`content/core/`) in the engine binary: writes a
//! table of `(path, include_bytes!(...))` that the engine compiles at start-up.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(root: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) {
    let dir = if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            walk(root, &path, out);
        } else {
            out.push((path, e.path()));
        }
    }
}

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let core = manifest_dir.join("../content/core");
    println!("cargo:rerun-if-changed={}", core.display());
    let mut files = Vec::new();
    walk(&core, "", &mut files);
    files.sort();
    let mut src = String::from("/// The core pallet's source files: `(pallet path, bytes)`, sorted by path.\npub static CORE_SOURCES: &[(&str, &[u8])] = &[\n");
    for (path, disk) in &files {
        println!("cargo:rerun-if-changed={}", disk.display());
        let abs = disk.canonicalize().unwrap_or_else(|_| disk.clone());
        let _ = writeln!(
            src,
            "    ({path:?}, include_bytes!({:?})),",
            abs.display().to_string()
        );
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("core_sources.rs");
    std::fs::write(out, src).expect("write core_sources.rs");
}
