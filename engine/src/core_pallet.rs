//! The embedded core pallet. Its sources (`content/core/`) are embedded in the binary and
//! compiled when first asked for, so the engine runs with no pallet on disk.
//!
//! Why sources and not a pre-built pallet: compiling the core pallet in `build.rs` would
//! build dh-content a second time for the build script on every clean build (minutes on
//! two cores), while compiling the embedded sources at start-up costs milliseconds (see
//! docs/PERFORMANCE.md, "core pallet at start-up").

use std::sync::OnceLock;

use dh_content::compile::{compile_sources, AssetKind, CompileOptions, SourceData, SourceEntry};
use dh_content::pallet::Pallet;

include!(concat!(env!("OUT_DIR"), "/core_sources.rs"));

/// Why the core pallet could not be made (a broken source in this build of the engine).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the embedded core pallet does not compile:\n{0}")]
pub struct CorePalletError(pub String);

/// Compiles the embedded core pallet's sources into pallet bytes.
pub fn compile_core_pallet() -> Result<Vec<u8>, CorePalletError> {
    let mut manifest = None;
    let mut sources = Vec::new();
    for (path, bytes) in CORE_SOURCES {
        if *path == "pallet.dh" {
            manifest = std::str::from_utf8(bytes).ok();
            continue;
        }
        match AssetKind::of(path) {
            Ok(Some(kind)) => sources.push(SourceEntry {
                path: (*path).to_string(),
                kind,
                data: SourceData::Memory(bytes),
            }),
            Ok(None) => {}
            Err(e) => return Err(CorePalletError(format!("{path}: {e}"))),
        }
    }
    let out = compile_sources(
        manifest,
        sources,
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    if out.diagnostics.has_errors() || manifest.is_none() {
        return Err(CorePalletError(out.diagnostics.to_string()));
    }
    out.pallet
        .ok_or_else(|| CorePalletError("the build produced no pallet".into()))
}

/// The core pallet, compiled once per process.
pub fn core_pallet() -> Result<&'static Pallet, CorePalletError> {
    static CORE: OnceLock<Result<Pallet, CorePalletError>> = OnceLock::new();
    CORE.get_or_init(|| {
        let bytes = compile_core_pallet()?;
        Pallet::from_bytes(bytes).map_err(|e| CorePalletError(e.to_string()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_pallet_compiles_and_is_deterministic() {
        let a = compile_core_pallet().unwrap_or_else(|e| panic!("{e}"));
        let b = compile_core_pallet().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a, b);
        let p = Pallet::from_bytes(a).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.manifest().id, "core");
        assert!(p.entry("maps/logic-map.dh-map").is_some());
        assert!(p.entry("objects/physicsCube.dh-obj").is_some());
    }
}
