//! The core pallet's dev texture, `core/textures/dev-measure.png`, and the generator that
//! makes it (this file: `DH_RECORD_DEV_TEXTURES=1 cargo test --workspace --test
//! dev_textures` writes it; every other run checks the committed file decodes to exactly
//! these texels, so the PNG in the repo is always this code's output).
//!
//! A Source-style measure grid, 128 × 128 texels for one metre (boxes map UV in metres, so
//! with `uvScale` [1, 1] a 4 m wall shows four tiles):
//! - the base, light grey (sRGB 224), so each dev material's `tint` reads as its colour;
//! - 1 m lines, sRGB 72, six texels wide, centred on the tile's edge (three texels each
//!   side of the repeat seam);
//! - 0.25 m subdivisions, sRGB 136, two texels wide, centred on texels 32, 64 and 96;
//! - a "1M" label in the top-left quarter, sRGB 72, a 5 × 7 bitmap font of our own at
//!   twice its size, 5 texels in from the lines.
//!
//! Grey throughout: the colours are the materials' tints (dev-grid gray, dev-grid-white,
//! dev-orange, dev-red, dev-blue, dev-yellow, dev-green), each a labelled grid of its own.

use std::path::PathBuf;

const EDGE: u32 = 128;
const BASE: u8 = 224;
const METER: u8 = 72;
const QUARTER: u8 = 136;

/// 5 × 7 glyphs, a row a byte, bit 4 the leftmost column.
const GLYPH_1: [u8; 7] = [
    0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
];
const GLYPH_M: [u8; 7] = [
    0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001,
];

/// The grey of texel (x, y).
fn texel(x: u32, y: u32) -> u8 {
    // The repeat seam lies between texels 127 and 0.
    let meter = |c: u32| !(3..EDGE - 3).contains(&c);
    let quarter = |c: u32| [32, 64, 96].iter().any(|&q| c == q - 1 || c == q);
    if meter(x) || meter(y) {
        return METER;
    }
    // The label: "1M" at twice the font's size from (8, 8), one column between glyphs.
    let (lx, ly) = (8u32, 8u32);
    if (lx..lx + 2 * 11).contains(&x) && (ly..ly + 2 * 7).contains(&y) {
        let (gx, gy) = ((x - lx) / 2, (y - ly) / 2);
        let row = |g: &[u8; 7], col: u32| (g[gy as usize] >> (4 - col)) & 1 == 1;
        let on = match gx {
            0..=4 => row(&GLYPH_1, gx),
            6..=10 => row(&GLYPH_M, gx - 6),
            _ => false,
        };
        if on {
            return METER;
        }
    }
    if quarter(x) || quarter(y) {
        return QUARTER;
    }
    BASE
}

/// The texture's RGBA8 sRGB texels, rows top to bottom.
fn measure_grid() -> Vec<u8> {
    (0..EDGE * EDGE)
        .flat_map(|i| {
            let v = texel(i % EDGE, i / EDGE);
            [v, v, v, 255]
        })
        .collect()
}

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("core/textures/dev-measure.png")
}

fn encode(rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, EDGE, EDGE);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap_or_else(|e| panic!("{e}"));
        w.write_image_data(rgba).unwrap_or_else(|e| panic!("{e}"));
    }
    out
}

#[test]
fn the_committed_measure_grid_is_the_generators_output() {
    let want = measure_grid();
    if std::env::var_os("DH_RECORD_DEV_TEXTURES").is_some() {
        std::fs::write(path(), encode(&want)).unwrap_or_else(|e| panic!("{e}"));
    }
    let bytes = std::fs::read(path()).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (DH_RECORD_DEV_TEXTURES=1 writes it)",
            path().display()
        )
    });
    let img =
        dh_content::texture::decode("dev-measure.png", &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((img.width, img.height), (EDGE, EDGE));
    assert!(
        img.rgba == want,
        "{} is not the generator's output; DH_RECORD_DEV_TEXTURES=1 rewrites it",
        path().display()
    );
}

/// The layout by hand: a line at the seam on both edges, the quarter lines, the label's
/// first stroke, the base elsewhere.
#[test]
fn the_grid_has_its_lines_where_the_metres_fall() {
    assert_eq!(texel(0, 50), METER);
    assert_eq!(texel(127, 50), METER);
    assert_eq!(texel(125, 50), METER);
    assert_eq!(texel(124, 50), BASE, "just inside the line");
    assert_eq!(texel(50, 2), METER);
    assert_eq!(texel(50, 3), BASE);
    assert_eq!(texel(31, 50), QUARTER);
    assert_eq!(texel(32, 50), QUARTER);
    assert_eq!(texel(33, 50), BASE);
    assert_eq!(texel(50, 96), QUARTER);
    // "1": its top stroke is column 2 of row 0 of the glyph, texels (12..14, 8..10).
    assert_eq!(texel(12, 8), METER);
    assert_eq!(texel(10, 8), BASE);
    // "M": column 0 of every row, texels (20..22, 8..22).
    assert_eq!(texel(20, 21), METER);
    assert_eq!(texel(50, 50), BASE);
    let g = measure_grid();
    assert_eq!(g.len(), (EDGE * EDGE * 4) as usize);
    // Tiling: the left and right columns match as the seam's two sides.
    for y in 0..EDGE {
        assert_eq!(texel(0, y), texel(EDGE - 1, y), "row {y}");
    }
}
