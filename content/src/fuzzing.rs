//! Entry points for the cargo-fuzz targets (`fuzz/`), also run over the committed corpus
//! by the ordinary test suite (`content/tests/fuzz_corpus.rs`). None may panic.

use crate::compile::{check_source, AssetKind};
use crate::diag::{Diagnostics, SourceFile};
use crate::read::Mode;

/// The JSONC reader and every schema reader: the first byte picks the asset kind, the rest
/// is the source text (lossily decoded, so every input reaches the parser).
pub fn fuzz_source(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let kinds = [
        AssetKind::Map,
        AssetKind::Object,
        AssetKind::Material,
        AssetKind::Voxel,
        AssetKind::ModelSidecar,
    ];
    let file = SourceFile::new("fuzz", text.into_owned());
    let mut diags = Diagnostics::new();
    match selector as usize % (kinds.len() + 1) {
        i if i < kinds.len() => {
            if let Some(v) = check_source(kinds[i], &file, &mut diags) {
                // What was written back must read again.
                let _ = crate::jsonc::parse(&v.to_json());
            }
        }
        _ => {
            let _ = crate::schema::manifest::read_manifest(&file, &mut diags, Mode::Build);
        }
    }
    for d in &diags.items {
        let _ = d.to_string();
        let _ = d.to_json();
    }
}

/// The `.pallet` reader.
pub fn fuzz_pallet(data: &[u8]) {
    crate::pallet::fuzz_read(data);
}

/// The `.dh-vox.bin` payload reader and writer (see
/// `dh_content::voxel::payload::split_fuzz_shards` for how the input becomes shards).
pub fn fuzz_payload(data: &[u8]) {
    crate::voxel::payload::fuzz_read(data);
}

/// The `.vox` reader and importer (MagicaVoxel and Teardown) and block-table resolution
/// (see `dh_content::voxel::import::fuzz_import`).
pub fn fuzz_vox(data: &[u8]) {
    crate::voxel::import::fuzz_import(data);
}

/// The block table parser and look resolution (see
/// `dh_content::voxel::blocks::fuzz_table`).
pub fn fuzz_blocks(data: &[u8]) {
    crate::voxel::blocks::fuzz_table(data);
}
