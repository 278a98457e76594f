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

/// The texture decoders: the bytes as a material's file (told apart by signature), and as
/// a PNG and a JPEG outright, so either decoder meets every input. None may panic or
/// allocate past the edge cap.
pub fn fuzz_image(data: &[u8]) {
    let _ = crate::texture::identify("fuzz", data);
    for r in [
        crate::texture::decode("fuzz", data),
        crate::texture::decode_png(data),
        crate::texture::decode_jpeg(data),
    ] {
        match r {
            Ok(img) => assert_eq!(
                img.rgba.len(),
                img.width as usize * img.height as usize * 4,
                "an image's texels are width x height x 4 bytes"
            ),
            Err(e) => {
                let _ = e.to_string();
            }
        }
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

/// The Java NBT reader: inflating (gzip, zlib, stored) under a cap, named and unnamed
/// roots, every tag walked with its path (see
/// `dh_content::voxel::minecraft::nbt::fuzz_read`).
pub fn fuzz_nbt(data: &[u8]) {
    crate::voxel::minecraft::nbt::fuzz_read(data);
}

/// The Anvil region reader and the world chunk decoder (see
/// `dh_content::voxel::minecraft::world::fuzz_region`).
pub fn fuzz_region(data: &[u8]) {
    crate::voxel::minecraft::world::fuzz_region(data);
}

/// The Minecraft structure importers (`.schem`, `.litematic`, `.nbt`, `.schematic`) over
/// one input, each under small caps, and what converts written and read back (see
/// `dh_content::voxel::minecraft::fuzz_import`).
pub fn fuzz_minecraft(data: &[u8]) {
    crate::voxel::minecraft::fuzz_import(data);
}

/// The platform pallet importer's readers: Minecraft JSON models (a parent chain through
/// itself), blockstates, a jar's entries and PNG headers, under small caps (see
/// `dh_content::voxel::minecraft::platform::fuzz_assets`).
pub fn fuzz_mc_assets(data: &[u8]) {
    crate::voxel::minecraft::platform::fuzz_assets(data);
}

/// A map's `.platforms` record, the server's pallet rule (see
/// `dh_content::compile::platforms::read_platforms`), and a platform pallet's
/// `blocks.fingerprint` as the engine reads it, from a pallet holding the input.
pub fn fuzz_platforms(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::compile::platforms::read_platforms(text);
    }
    let manifest = crate::pallet::Manifest::new("com.mojang.minecraft", "Minecraft", "26.1.0");
    let Ok(mut w) = crate::pallet::PalletWriter::new(manifest) else {
        return;
    };
    if w.add(
        crate::compile::platforms::FINGERPRINT_ENTRY,
        data.to_vec(),
        crate::pallet::EntryMeta::default(),
        crate::pallet::CodecChoice::Auto,
    )
    .is_err()
    {
        return;
    }
    if let Ok(bytes) = w.finish() {
        if let Ok(p) = crate::pallet::Pallet::from_bytes(bytes) {
            let _ = crate::compile::platforms::pallet_fingerprint(&p);
        }
    }
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
            ..ImportOptions::default()
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
            pose: glam::DMat4::IDENTITY,
            first_id: 0,
            materials: &materials,
        };
        let _ = crate::parts::bake_parts_table(&model, &ids, &placement);
        for p in model.meshes.iter().flat_map(|m| &m.primitives) {
            let colors = p.vertex_colors();
            let _ = crate::mesh::pack_streams(&p.vertices, None, colors.as_deref());
        }
        // An object's skins, targets and clips: the skeleton, each clip sampled mid-way,
        // each skin's palette, the skinning stream and the reference skinning.
        if purpose == Purpose::Object {
            let sk = gltf::Skeleton::new(&model);
            let mut locals = sk.rest();
            let mut weights = std::collections::HashMap::new();
            for clip in &model.animations {
                gltf::sample_clip(clip, clip.duration() * 0.5, &mut locals, &mut weights);
            }
            let world = sk.world(&locals);
            for (n, node) in model.nodes.iter().enumerate() {
                let Some(mesh) = node.mesh.and_then(|m| model.meshes.get(m)) else {
                    continue;
                };
                let palette = node
                    .skin
                    .map(|s| sk.palette(&model, s, n, &world))
                    .unwrap_or_default();
                let w = weights.get(&n).unwrap_or(&mesh.weights);
                for p in &mesh.primitives {
                    if let Some(s) = &p.skin {
                        let _ = gltf::pack_skinning(s);
                    }
                    let _ = gltf::skin_reference(p, &palette, w);
                }
            }
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

/// The cooked-collision readers (`.dh-colcook` companion and `.dhcol` mesh): the first
/// byte picks which, the rest is the file. Whatever reads must write back to the same
/// bytes, and a ray cast through every mesh read must return.
pub fn fuzz_colcook(data: &[u8]) {
    use crate::colcook::{decode_companion, decode_mesh, encode_companion, encode_mesh};
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let meshes = if selector & 1 == 0 {
        let Ok(c) = decode_companion(rest, "fuzz.dh-colcook") else {
            return;
        };
        assert_eq!(
            encode_companion(&c),
            rest,
            "a companion read back differently"
        );
        c.meshes
    } else {
        let Ok(m) = decode_mesh(rest, "fuzz.dhcol") else {
            return;
        };
        assert_eq!(encode_mesh(&m), rest, "a mesh read back differently");
        vec![m]
    };
    for m in &meshes {
        let _ = m.ray_cast([0.0, 10.0, 0.0], [0.0, -1.0, 0.0], 100.0);
    }
}

/// The collision load cache's entry reader (`collision/<key>.dhcol`, magic `DHCOLGEO`):
/// whatever reads writes back to the same bytes, the streamed reader agrees with the slice
/// decoder, and a ray cast through every mesh read returns.
pub fn fuzz_colcook_geometry(data: &[u8]) {
    use crate::colcook::cache::read_geometry_from;
    use crate::colcook::format::{decode_geometry, encode_geometry};
    let streamed = |key: &[u8; 32]| read_geometry_from(data, data.len() as u64, key, "fuzz.dhcol");
    let Ok(e) = decode_geometry(data, "fuzz.dhcol") else {
        let key = data
            .get(16..48)
            .and_then(|k| <[u8; 32]>::try_from(k).ok())
            .unwrap_or([0; 32]);
        assert!(
            streamed(&key).is_none(),
            "the streamed reader took what the slice decoder refused"
        );
        return;
    };
    assert_eq!(encode_geometry(&e), data, "an entry read back differently");
    assert_eq!(
        streamed(&e.key).as_ref(),
        Some(&e),
        "the streamed read differs"
    );
    for g in &e.meshes {
        let _ = g.mesh.ray_cast([0.0, 10.0, 0.0], [0.0, -1.0, 0.0], 100.0);
    }
}

/// The identity sidecar reader (`<model>.dh-ids`): whatever reads writes back to text that
/// reads as the same file, and matching a small model against it (retargets, the four
/// tiers, orphans) never panics and writes back a file that reads.
pub fn fuzz_ids(data: &[u8]) {
    use crate::gltf::{Model, Node};
    use crate::parts::{match_identities, IdsFile};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = IdsFile::parse(text) else {
        return;
    };
    let again = IdsFile::parse(&file.to_text());
    assert_eq!(again.as_ref(), Ok(&file), "a sidecar read back differently");
    // base ─ wall, wall (two structural nodes of one name), post.
    let mut nodes = vec![
        Node::new("base"),
        Node::new("wall"),
        Node::new("wall"),
        Node::new("post"),
    ];
    nodes[0].children = vec![1, 2, 3];
    for n in &mut nodes[1..] {
        n.parent = Some(0);
    }
    let model = Model {
        name: "fuzz".into(),
        nodes,
        roots: vec![0],
        ..Model::default()
    };
    let ids = match_identities(&model, "fuzz:fuzz.glb", Some(&file));
    assert!(IdsFile::parse(&ids.file.to_text()).is_ok());
}

/// The scene-only GLB reader, the GLB writer and the sidecar writer: whatever imports reads
/// back as a scene with the same nodes, and writing it (twice, the same bytes) — whole, or
/// edited in place into its source — gives a GLB that imports to the same node tree, the
/// same meshes' positions, UVs and indices bit for bit, and the same material slots.
/// Panics (what the fuzzer reports) when a property fails.
pub fn fuzz_glb_rewrite(data: &[u8]) {
    use crate::gltf::{self, ImportOptions};
    let opts = ImportOptions {
        max_vertices: 1 << 16,
        max_indices: 1 << 18,
        max_nodes: 1 << 12,
        ..ImportOptions::default()
    };
    let scene = gltf::read_scene(data, "fuzz.glb", &opts);
    let Ok(model) = gltf::import_glb_with(data, "fuzz.glb", &opts) else {
        return;
    };
    let scene = scene.unwrap_or_else(|e| panic!("imports but its scene does not read: {e}"));
    assert_eq!(
        scene.nodes, model.nodes,
        "the scene reads the importer's nodes"
    );
    let Ok(bytes) = gltf::write_glb(&model) else {
        return;
    };
    let back = gltf::import_glb_with(&bytes, "fuzz.glb", &opts)
        .unwrap_or_else(|e| panic!("the written GLB does not import: {e}"));
    assert_eq!(
        gltf::write_glb(&model).ok(),
        Some(bytes),
        "writing is deterministic"
    );
    assert_eq!(back.node_paths(), model.node_paths());
    assert_eq!(back.meshes.len(), model.meshes.len());
    let bits = |p: &gltf::Primitive| -> (Vec<u32>, Vec<u32>, Option<String>) {
        let v = p
            .vertices
            .iter()
            .flat_map(|v| {
                v.position
                    .into_iter()
                    .chain(v.uv0)
                    .chain(v.uv1)
                    .chain(v.uv2)
                    .chain(v.uv3)
            })
            .map(f32::to_bits)
            .collect();
        (v, p.indices.clone(), p.material.clone())
    };
    for (a, b) in back.meshes.iter().zip(&model.meshes) {
        let a: Vec<_> = a.primitives.iter().map(bits).collect();
        let b: Vec<_> = b.primitives.iter().map(bits).collect();
        for (pa, pb) in a.iter().zip(&b) {
            let at = pa.0.iter().zip(&pb.0).position(|(x, y)| x != y);
            assert!(
                pa == pb,
                "the written meshes read back as they were: {} vs {} values, first differing \
                 at {at:?} ({:?} vs {:?}); indices equal: {}, material {:?} vs {:?}",
                pa.0.len(),
                pb.0.len(),
                at.and_then(|i| pa.0.get(i)).map(|v| f32::from_bits(*v)),
                at.and_then(|i| pb.0.get(i)).map(|v| f32::from_bits(*v)),
                pa.1 == pb.1,
                pa.2,
                pb.2
            );
        }
        assert_eq!(a.len(), b.len(), "the written meshes keep their primitives");
    }
    // The sidecar writer, with no op applied: the source edited in place imports to the
    // same node tree and the same geometry, deterministically.
    let Ok(edited) = gltf::rewrite_glb(data, &model) else {
        return;
    };
    let again = gltf::import_glb_with(&edited, "fuzz.glb", &opts)
        .unwrap_or_else(|e| panic!("the rewritten GLB does not import: {e}"));
    assert_eq!(
        gltf::rewrite_glb(data, &model).ok(),
        Some(edited),
        "rewriting is deterministic"
    );
    assert_eq!(again.node_paths(), model.node_paths());
    assert_eq!(again.meshes.len(), model.meshes.len());
    for (a, b) in again.meshes.iter().zip(&model.meshes) {
        let a: Vec<_> = a.primitives.iter().map(bits).collect();
        let b: Vec<_> = b.primitives.iter().map(bits).collect();
        assert!(a == b, "the rewritten meshes read back as they were");
    }
}

/// The map-thumbnail companion reader: a companion that reads re-encodes to the very same
/// bytes, and the plan-chunk scan and the IHDR reader never panic on any input.
pub fn fuzz_mapthumb(data: &[u8]) {
    use crate::thumbnail::{decode, encode, is_plan, png_size, read_for_map};
    let _ = png_size(data);
    let _ = is_plan(data);
    if let Ok(t) = decode(data, "fuzz.dh-mapthumb") {
        let again = encode(t.png, &t.map_hash).expect("a companion that reads packs again");
        assert_eq!(again, data, "a companion read back differently");
        let _ = read_for_map(data, "fuzz.dh-mapthumb", b"{}");
    }
}

/// The `.dhmip` reader: any bytes as a cached mip chain. A chain it takes must have the
/// full level count for its size, each level its size's bytes, and encode back to the
/// same bytes. None may panic or allocate past the largest chain.
pub fn fuzz_dhmip(data: &[u8]) {
    match crate::mips::decode_dhmip(data) {
        Ok(d) => {
            let count = crate::mips::level_count(d.width, d.height);
            assert_eq!(d.levels.len() as u32 + 1, count, "a full chain");
            for (i, l) in d.levels.iter().enumerate() {
                let (w, h) = crate::mips::level_size(d.width, d.height, i as u32 + 1);
                assert_eq!(l.len(), w as usize * h as usize * 4, "a level's bytes");
            }
            assert_eq!(
                crate::mips::encode_dhmip(d.width, d.height, &d.levels),
                data,
                "a chain read encodes back to its bytes"
            );
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// The lightmap sidecar reader (`<map>.dh-map.dh-lightmap`): a sidecar that reads writes back
/// to the very same bytes, its pages decode (the CPU path) and page fitting leaves a sidecar
/// that reads again. Reading never panics or allocates past what the bytes hold.
pub fn fuzz_lightmap(data: &[u8]) {
    use crate::lightmap::codec::{decode_page, decode_texels, EncodedPage};
    use crate::lightmap::sidecar::{fit_pages, Lightmap, PageData};
    let lm = match Lightmap::read("fuzz.dh-lightmap", data) {
        Ok(lm) => lm,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    assert_eq!(lm.write(), data, "a sidecar read back differently");
    if lm.texels() <= 1 << 20 {
        for (i, p) in lm.pages.iter().enumerate() {
            match &p.data {
                PageData::Blocks { bc6h, planes } => {
                    let ex: Vec<_> = lm
                        .exceptions
                        .iter()
                        .filter(|e| e.page as usize == i)
                        .copied()
                        .collect();
                    let page = EncodedPage {
                        width: p.width,
                        height: p.height,
                        bc6h: bc6h.clone(),
                        planes: planes.clone(),
                    };
                    assert_eq!(decode_page(&page, &ex).len(), (p.width * p.height) as usize);
                }
                PageData::Texels { l0, planes } => {
                    assert_eq!(decode_texels(l0, planes).len(), l0.len());
                }
            }
        }
    }
    let mut fitted = lm.clone();
    fit_pages(&mut fitted);
    let again = fitted.write();
    if let Err(e) = Lightmap::read("fuzz.dh-lightmap", &again) {
        panic!("a fitted sidecar does not read: {e}");
    }
}

/// The `.mcmeta` animation reader ([`crate::voxel::animation::parse_mcmeta`]): the first
/// two bytes are the image's width and height (1 to 64 texels each), the rest the file. An
/// animation it takes has frames that tile the image, a non-empty order of frames inside
/// it, and composes a tile of one frame's size at any tick. None may panic or allocate
/// past its bounds.
pub fn fuzz_mcmeta(data: &[u8]) {
    use crate::voxel::animation::{dark_cutout, parse_mcmeta};
    let (Some(&w), Some(&h)) = (data.first(), data.get(1)) else {
        return;
    };
    // The same file's `texture.mipmap_strategy`: an answer or a named error, never a panic.
    let _ = dark_cutout("fuzz.mcmeta", &data[2..]);
    let (w, h) = (u32::from(w % 64) + 1, u32::from(h % 64) + 1);
    let Ok(Some(a)) = parse_mcmeta("fuzz.mcmeta", &data[2..], w, h) else {
        return;
    };
    assert!(!a.frames.is_empty(), "an order of frames");
    assert_eq!(
        (w % a.frame_width, h % a.frame_height),
        (0, 0),
        "frames tile it"
    );
    let count = (w / a.frame_width) * (h / a.frame_height);
    assert!(a.frames.iter().all(|f| f.index < count && f.time >= 1));
    let image = vec![7u8; (w * h * 4) as usize];
    for tick in [0, 1, 7, a.cycle_ticks(), u64::MAX] {
        let t = a.compose(&image, tick).expect("a tile");
        assert_eq!(t.len(), (a.frame_width * a.frame_height * 4) as usize);
    }
}
