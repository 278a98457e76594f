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

/// The GLB importer (both purposes, and as a one-piece folder), the geometry report, the
/// part table and identity matching, and stream packing of whatever imports, under caps
/// small enough for a fuzzer's memory limit.
pub fn fuzz_glb(data: &[u8]) {
    use crate::gltf::{self, ImportOptions, Purpose};
    for purpose in [Purpose::Map, Purpose::Object] {
        let opts = ImportOptions {
            purpose,
            max_vertices: 1 << 16,
            max_indices: 1 << 18,
            max_nodes: 1 << 12,
        };
        let r = gltf::import_glb_with(data, "fuzz.glb", &opts);
        let _ = gltf::geometry_report(r.as_ref(), &Default::default());
        let Ok(model) = r else { continue };
        for w in &model.warnings {
            let _ = w.to_string();
        }
        let ids = crate::parts::match_identities(&model, "fuzz:fuzz.glb", None);
        let again = crate::parts::match_identities(&model, "fuzz:fuzz.glb", Some(&ids.file));
        let _ = crate::parts::IdsFile::parse(&again.file.to_text());
        let materials = Default::default();
        let placement = crate::parts::Placement {
            instance_id: crate::schema::common::Guid([7; 16]),
            pose: gltf::math::IDENTITY,
            first_id: 0,
            materials: &materials,
        };
        let _ = crate::parts::bake_parts_table(&model, &ids, &placement);
        for p in model.meshes.iter().flat_map(|m| &m.primitives) {
            let colors = p.vertex_colors();
            let _ = crate::mesh::pack_streams(&p.vertices, None, colors.as_deref());
        }
        if purpose == Purpose::Map {
            let _ = gltf::import_pieces(
                "fuzz",
                &[gltf::Piece {
                    name: "a.glb",
                    bytes: data,
                }],
                &opts,
            );
        }
    }
}
