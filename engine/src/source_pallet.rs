//! `--pallet <folder>`: a source pallet compiled in process, as `dh build` would, so an
//! author edits and runs with no build step between.
//!
//! [`build_folder`] compiles the folder with the compiler behind `dh build` (every
//! diagnostic kept, identity sidecars written back and recorded in
//! `<palletId>.compiler-writes` beside the folder, where `dh build`'s default output puts its
//! record), and keeps the pallet's bytes for the rest of the process keyed by the folder and
//! the size and time of every file in it: a command that mounts the folder twice (`render`
//! mounts the map's pallets for its host and for its shots) compiles once, and an edited
//! folder compiles again. A `.pallet` file is mounted as it always was.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use dh_content::compile::{compile, CompileOptions};
use dh_content::diag::Severity;

/// What compiling a source folder printed and produced.
#[derive(Debug, Clone)]
pub struct FolderBuild {
    /// The pallet's bytes.
    pub bytes: Arc<Vec<u8>>,
    /// Each diagnostic, as `dh build` prints it (warnings only: a build with errors is an
    /// error).
    pub diagnostics: Vec<String>,
    /// What `dh build` says after them: each file written back, then the summary.
    pub notes: Vec<String>,
    /// Whether this call compiled (false: the folder was built before, unchanged).
    pub compiled: bool,
}

/// Why a source folder gave no pallet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {errors} error(s), {warnings} warning(s); the source pallet does not build:{}", .diagnostics.iter().map(|d| format!("\n{d}")).collect::<String>())]
pub struct FolderBuildError {
    /// The folder.
    pub path: String,
    /// Every diagnostic, as `dh build` prints it.
    pub diagnostics: Vec<String>,
    /// How many are errors.
    pub errors: usize,
    /// How many are warnings.
    pub warnings: usize,
}

/// A folder's files, by path, with their sizes and modification times: what a cached build
/// is keyed by.
pub(crate) type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The size and modification time of `path`, or of every file under it when it is a
/// folder, sorted by path: what says a pallet was rebuilt.
pub(crate) fn stamps(path: &Path) -> Fingerprint {
    if path.is_dir() {
        return fingerprint(path);
    }
    match std::fs::metadata(path) {
        Ok(m) => vec![(path.to_path_buf(), m.len(), m.modified().ok())],
        Err(_) => Vec::new(),
    }
}

fn fingerprint(dir: &Path) -> Fingerprint {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in read.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), meta.len(), meta.modified().ok()));
            }
        }
    }
    out.sort();
    out
}

type Cache = Mutex<HashMap<PathBuf, (Fingerprint, Arc<Vec<u8>>)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Whether `path` is a source pallet folder (rather than a `.pallet` file).
pub fn is_source_folder(path: &Path) -> bool {
    path.is_dir()
}

/// Compiles the source pallet folder `dir` as `dh build` would, or hands back the bytes of
/// its last build in this process when no file in it changed since.
pub fn build_folder(dir: &Path) -> Result<FolderBuild, FolderBuildError> {
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let before = fingerprint(&key);
    if let Ok(c) = cache().lock() {
        if let Some((print, bytes)) = c.get(&key) {
            if *print == before {
                return Ok(FolderBuild {
                    bytes: Arc::clone(bytes),
                    diagnostics: Vec::new(),
                    notes: Vec::new(),
                    compiled: false,
                });
            }
        }
    }
    let out = compile(
        &key,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    let diagnostics: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .map(|d| d.to_string())
        .collect();
    let errors = out.diagnostics.error_count();
    let warnings = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let fail = |diagnostics: Vec<String>| FolderBuildError {
        path: dir.display().to_string(),
        diagnostics,
        errors: errors.max(1),
        warnings,
    };
    let bytes = match (&out.pallet, errors) {
        (Some(b), 0) => Arc::new(b.clone()),
        _ => {
            let mut d = diagnostics;
            if errors == 0 {
                d.push("the build produced no pallet".into());
            }
            return Err(fail(d));
        }
    };
    let mut notes = Vec::new();
    if let Some(m) = &out.manifest {
        if out.writes.iter().any(|w| w.written) {
            let record = key
                .parent()
                .unwrap_or(Path::new("."))
                .join(dh_content::compile::compiler_writes_name(&m.id));
            match dh_content::compile::record_compiler_writes(&record, &out.writes) {
                Ok(()) => {
                    for w in out.writes.iter().filter(|w| w.written) {
                        notes.push(format!(
                            "wrote {} (recorded in {})",
                            w.path,
                            record.display()
                        ));
                    }
                }
                Err(e) => notes.push(format!("cannot write {}: {e}", record.display())),
            }
        }
    }
    notes.push(format!(
        "built {} in process ({} entries, {} bytes, {warnings} warning(s))",
        dir.display(),
        out.assets.len(),
        bytes.len()
    ));
    // Keyed by the folder as the build left it: its identity sidecars written.
    if let Ok(mut c) = cache().lock() {
        c.insert(key.clone(), (fingerprint(&key), Arc::clone(&bytes)));
    }
    Ok(FolderBuild {
        bytes,
        diagnostics,
        notes,
        compiled: true,
    })
}

/// Builds every source folder among `pallets` (in order) before a command mounts them,
/// writing what `dh build` would print to `err`: its diagnostics as they are, its notes
/// after `dh-engine: `. A `.pallet` file is left to the mount.
pub fn prebuild(pallets: &[PathBuf], err: &mut dyn std::io::Write) -> Result<(), FolderBuildError> {
    for p in pallets.iter().filter(|p| is_source_folder(p)) {
        let b = build_folder(p)?;
        for d in &b.diagnostics {
            let _ = writeln!(err, "{d}");
        }
        for n in &b.notes {
            let _ = writeln!(err, "dh-engine: {n}");
        }
    }
    Ok(())
}
