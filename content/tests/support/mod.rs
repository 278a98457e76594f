//! What the content tests share: the tiny GLB writer, the shared fixtures, and a source
//! pallet on disk that builds and removes itself. Each test file that needs it says
//! `mod support;`; not every file uses every helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, BuildOutput, CompileOptions};

/// The `pallet.dh` of the model test pallets.
pub const MODELS_MANIFEST: &[u8] =
    b"{ \"id\": \"dev.example.models\", \"name\": \"Models\", \"version\": \"1.0.0\" }";

/// A GLB of `json` and the binary chunk `bin`, each padded to four bytes (JSON with
/// spaces, BIN with zeros).
pub fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() & 3 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() & 3 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(0x4E4F534Au32.to_le_bytes());
    out.extend(j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend(0x004E4942u32.to_le_bytes());
    out.extend(b);
    out
}

/// The bytes of `rel` under the shared fixtures (`../shared/fixtures` from the repository
/// root), or `None` (with a line saying so) when it is absent.
pub fn fixture(rel: &str) -> Option<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let p = root.join("../../shared/fixtures").join(rel);
    let alt = root.join("../shared/fixtures").join(rel);
    match std::fs::read(&p).or_else(|_| std::fs::read(&alt)) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

/// A fresh, empty temporary folder named for `tag` (and this process).
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-content-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A source pallet in a temporary folder, removed when dropped.
pub struct Pallet {
    /// Its folder.
    pub dir: PathBuf,
}

impl Pallet {
    /// An empty source pallet but for [`MODELS_MANIFEST`].
    pub fn new(tag: &str) -> Pallet {
        let p = Pallet { dir: temp_dir(tag) };
        p.write("pallet.dh", MODELS_MANIFEST);
        p
    }

    /// A source pallet of [`MODELS_MANIFEST`] and `files`.
    pub fn with_files<B: AsRef<[u8]>>(tag: &str, files: &[(&str, B)]) -> Pallet {
        let p = Pallet::new(tag);
        for (rel, b) in files {
            p.write(rel, b.as_ref());
        }
        p
    }

    /// Writes `bytes` at `rel`, making its folders.
    pub fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new("."))).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    /// The text at `rel`, when there is one.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join(rel)).ok()
    }

    /// `dh build`: compiles and writes.
    pub fn build(&self) -> BuildOutput {
        compile(
            &self.dir,
            &CompileOptions {
                write: true,
                progress: None,
            },
        )
    }

    /// `dh check`: compiles, writes nothing.
    pub fn check(&self) -> BuildOutput {
        compile(
            &self.dir,
            &CompileOptions {
                write: false,
                progress: None,
            },
        )
    }
}

impl Drop for Pallet {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
