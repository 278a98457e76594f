//! FBX sources (spec: dh.object "model", dh.map "Records": "FBX files are converted to GLB
//! through Blender when the pallet compiles"). The build shells out to Blender the way it
//! shells out to the engine host for a cook or a thumbnail: the FBX is written into a
//! private temporary folder, Blender imports it and exports a binary glTF beside it, and
//! the GLB is imported like any other. With no `blender` executable the model cannot be
//! read, and the build says so naming the file.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python Blender runs: a factory-empty scene, the FBX imported, a GLB exported. The
/// two paths come after `--` on Blender's command line.
const CONVERT_SCRIPT: &str = "import bpy, sys\n\
argv = sys.argv[sys.argv.index('--') + 1:]\n\
bpy.ops.wm.read_factory_settings(use_empty=True)\n\
bpy.ops.import_scene.fbx(filepath=argv[0])\n\
bpy.ops.export_scene.gltf(filepath=argv[1], export_format='GLB')\n";

/// The most bytes of Blender's output a failure quotes (its tail).
const TAIL: usize = 1500;

/// The largest GLB a conversion may hand back (the pallet's own entry cap is the real
/// limit; this keeps one runaway conversion from filling memory).
pub const MAX_CONVERTED_GLB: u64 = 1 << 31;

/// Why an FBX could not be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FbxError {
    /// No Blender to convert with.
    #[error("'{file}' is an FBX model: dh build converts FBX to glTF through Blender, and no 'blender' executable was found on PATH; install Blender (or put it on PATH) and build again, or export the model as .glb")]
    NoBlender {
        /// The model's path in the pallet.
        file: String,
    },
    /// The temporary folder, or a file in it, could not be written or read.
    #[error("'{file}': the FBX conversion could not use its temporary folder {folder}: {message}")]
    Io {
        /// The model's path in the pallet.
        file: String,
        /// The temporary folder.
        folder: String,
        /// The I/O error.
        message: String,
    },
    /// Blender ran and failed, or wrote no GLB.
    #[error("'{file}': Blender ({blender}) could not convert the FBX to glTF ({status}); the end of its output: {tail}")]
    Blender {
        /// The model's path in the pallet.
        file: String,
        /// The Blender executable run.
        blender: String,
        /// How it ended.
        status: String,
        /// The last lines it printed.
        tail: String,
    },
}

/// The `blender` executable on `path_var` (a `PATH`-style list; `None` reads nothing), the
/// first folder holding one winning.
pub fn find_blender(path_var: Option<&OsStr>) -> Option<PathBuf> {
    let names: &[&str] = if cfg!(windows) {
        &["blender.exe", "blender"]
    } else {
        &["blender"]
    };
    std::env::split_paths(path_var?)
        .find_map(|dir| names.iter().map(|n| dir.join(n)).find(|p| p.is_file()))
}

/// Whether `path` names an FBX file (by its extension, any case).
pub fn is_fbx(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .and_then(|f| f.rsplit_once('.'))
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("fbx"))
}

/// Converts the FBX `bytes` (the pallet file `file`) into GLB bytes with `blender`, in a
/// temporary folder of its own that is removed afterwards.
pub fn convert_fbx(blender: &Path, file: &str, bytes: &[u8]) -> Result<Vec<u8>, FbxError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let folder = std::env::temp_dir().join(format!(
        "dh-fbx-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let io = |e: std::io::Error| FbxError::Io {
        file: file.to_string(),
        folder: folder.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(&folder).map_err(io)?;
    let result = (|| {
        let input = folder.join("model.fbx");
        let output = folder.join("model.glb");
        std::fs::write(&input, bytes).map_err(io)?;
        let run = Command::new(blender)
            .arg("--background")
            .arg("--factory-startup")
            .arg("--python-exit-code")
            .arg("1")
            .arg("--python-expr")
            .arg(CONVERT_SCRIPT)
            .arg("--")
            .arg(&input)
            .arg(&output)
            .output()
            .map_err(|e| FbxError::Blender {
                file: file.to_string(),
                blender: blender.display().to_string(),
                status: format!("it did not start: {e}"),
                tail: String::new(),
            })?;
        let size = std::fs::metadata(&output).map(|m| m.len()).ok();
        match (run.status.success(), size) {
            (true, Some(n)) if n <= MAX_CONVERTED_GLB => std::fs::read(&output).map_err(io),
            (ok, size) => {
                let mut text = String::from_utf8_lossy(&run.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&run.stderr));
                let start = text
                    .char_indices()
                    .rev()
                    .nth(TAIL)
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                let status = match (ok, size) {
                    (false, _) => format!("it exited with {}", run.status),
                    (true, None) => "it wrote no GLB".to_string(),
                    (true, Some(n)) => {
                        format!("its GLB is {n} bytes, over the {MAX_CONVERTED_GLB}-byte cap")
                    }
                };
                Err(FbxError::Blender {
                    file: file.to_string(),
                    blender: blender.display().to_string(),
                    status,
                    tail: text[start..].trim().to_string(),
                })
            }
        }
    })();
    let _ = std::fs::remove_dir_all(&folder);
    result
}
