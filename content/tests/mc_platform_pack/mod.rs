//! The project's own Minecraft test pack (issue 14 item 6): the JSON committed under
//! `content/tests/data/mcpack/` in a client jar's exact layout (`assets/minecraft/...`),
//! the textures made here, and the two zipped into a fake `client.jar`. Nothing of it is
//! Mojang's: every model, blockstate and texel is ours. Shared by the content and tools
//! tests (`#[path]`).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The committed pack's root (the folder holding `assets/`).
pub fn pack_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/tests/data/mcpack")
}

/// The textures the pack draws with: (path under `assets/minecraft/`, width, height).
/// Animated ones are frames stacked downwards.
pub const TEXTURES: &[(&str, u32, u32)] = &[
    ("textures/block/furnace_front.png", 16, 16),
    ("textures/block/furnace_front_on.png", 16, 16),
    ("textures/block/furnace_side.png", 16, 16),
    ("textures/block/furnace_top.png", 16, 16),
    ("textures/block/oak_planks.png", 16, 16),
    ("textures/block/grass_block_top.png", 16, 16),
    ("textures/block/grass_block_side.png", 16, 16),
    ("textures/block/grass_block_snow.png", 16, 16),
    ("textures/block/dirt.png", 16, 16),
    ("textures/block/oak_leaves.png", 16, 16),
    ("textures/block/poppy.png", 16, 16),
    ("textures/block/glass.png", 16, 16),
    ("textures/block/torch.png", 16, 16),
    ("textures/block/lava_still.png", 16, 64),
    ("textures/block/lava_flow.png", 32, 64),
    ("textures/block/water_still.png", 16, 32),
    ("textures/block/water_flow.png", 32, 32),
    ("textures/colormap/grass.png", 256, 256),
    ("textures/colormap/foliage.png", 256, 256),
];

/// A texture's RGBA8 texels: a two-tone checker of 4-texel squares whose colours come
/// from the name's bytes, with holes (alpha 0) in every other square of the cut-out
/// textures (leaves, poppy, torch, glass's inside at alpha 96).
pub fn texels(name: &str, w: u32, h: u32) -> Vec<u8> {
    let sum = name
        .bytes()
        .fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)));
    let a = [
        (sum & 0xff) as u8,
        ((sum >> 8) & 0xff) as u8,
        ((sum >> 16) & 0xff) as u8,
    ];
    let b = a.map(|c| c / 2 + 32);
    let holes = ["oak_leaves", "poppy", "torch"]
        .iter()
        .any(|k| name.contains(k));
    let glass = name.contains("glass");
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let odd = ((x / 4) + (y / 4)) % 2 == 1;
            let c = if odd { b } else { a };
            let alpha = if holes && odd {
                0
            } else if glass && (1..w - 1).contains(&x) && (1..h - 1).contains(&y) {
                96
            } else {
                255
            };
            out.extend_from_slice(&[c[0], c[1], c[2], alpha]);
        }
    }
    out
}

/// A PNG of `rgba`.
pub fn png(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().unwrap_or_else(|e| panic!("{e}"));
        wr.write_image_data(rgba).unwrap_or_else(|e| panic!("{e}"));
    }
    out
}

/// The pack's files as a jar's entries, sorted: the committed JSON and `.mcmeta`, the
/// textures made here, a `version.json` naming `26.1`, and a class file the importer
/// must skip.
pub fn entries() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let root = pack_dir();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap_or_else(|e| panic!("{e}")).path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap_or_else(|e| panic!("{e}"))
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap_or_else(|e| panic!("{e}"))));
            }
        }
    }
    for (t, w, h) in TEXTURES {
        out.push((
            format!("assets/minecraft/{t}"),
            png(*w, *h, &texels(t, *w, *h)),
        ));
    }
    out.push((
        "version.json".into(),
        br#"{ "id": "26.1", "name": "26.1", "world_version": 4000 }"#.to_vec(),
    ));
    out.push((
        "net/minecraft/Main.class".into(),
        vec![0xca, 0xfe, 0xba, 0xbe],
    ));
    out.sort();
    out
}

/// Zips `entries` (deflated) into `path`.
pub fn write_jar(path: &Path, entries: &[(String, Vec<u8>)]) {
    let f = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut z = zip::ZipWriter::new(f);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        z.start_file(name.as_str(), opts)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        z.write_all(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    z.finish().unwrap_or_else(|e| panic!("{e}"));
}

/// A fresh temporary folder.
pub fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dh-mcplat-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

/// The pack zipped into `<dir>/client.jar`, with `extra` entries added (or replacing
/// one of the same name).
pub fn client_jar(dir: &Path, extra: &[(&str, Vec<u8>)]) -> PathBuf {
    let mut e = entries();
    for (name, bytes) in extra {
        e.retain(|(n, _)| n != name);
        e.push((name.to_string(), bytes.clone()));
    }
    let jar = dir.join("client.jar");
    write_jar(&jar, &e);
    jar
}
