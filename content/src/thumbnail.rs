//! Map thumbnails (spec: dh.map, "The map's thumbnail"; runtime assets, "A map's
//! thumbnail"): the `<map>.dh-map.dh-mapthumb` companion a map with a `mapThumbnail`
//! camera ships, the photograph it packs, and how `dh build` gets one.
//!
//! # The picture
//!
//! The photograph is a source asset: `maps/atrium.dh-map` is photographed to
//! `maps/atrium.thumbnail.png` ([`png_path`]), which is committed with the map, may be
//! replaced by hand, and never ships as a texture of its own. The build packs whatever is
//! there into the companion ([`encode`]).
//!
//! # The companion, `DHMTHUMB`
//!
//! Little-endian, [`HEADER_BYTES`] of header then the PNG, nothing after it:
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `DHMTHUMB` |
//! | 4 | [`FORMAT_VERSION`] (`u32`) |
//! | 4 | width the PNG's own IHDR declares (`u32`) |
//! | 4 | height the PNG's own IHDR declares (`u32`) |
//! | 32 | [`map_hash`]: SHA-256 of the map document the picture ships with |
//! | 8 | the PNG's byte length (`u64`), at most [`MAX_PNG_BYTES`] |
//! | n | the PNG |
//!
//! The size is what is packed, not what the camera asked for: a hand-replaced picture is
//! one somebody chose at the size they chose. "The map document" is the compiled map entry
//! as it ships in the pallet (its canonical JSON), which the reader at load has in hand;
//! it carries the camera's pose and its `thumbnailSize`. The same PNG with the same map
//! packs to the same bytes.
//!
//! # Reading it
//!
//! [`read_for_map`] checks the magic, the version, the length, that the PNG declares the
//! size the header says, and the hash against the map document; any disagreement is a
//! [`ThumbError`] that costs the picture and nothing else.
//!
//! # Taking it: the fallback ladder
//!
//! For each map with a thumbnail camera, a build with [`ThumbnailOptions`]:
//!
//! 1. When `autoCapture` is on and the capture key ([`capture_key`]: the map document's
//!    hash, the size asked for, the container version; never the engine binary) is not in
//!    the cache, or there is no PNG, it runs the engine named by `enginePath`:
//!    `<engine> render <dir> --pallet <path>… --map <pallet>:<map> --captureMapThumbnails
//!    --thumbnailPng <png>`, against the pallet it has just packed (written to a run
//!    folder of its own). A capture is recorded in the cache and as a compiler write.
//! 2. Otherwise the last PNG stands, with a warning naming why there was no capture:
//!    enginePath unset, enginePath naming nothing, or the render's own stderr tail.
//! 3. Only when there is no PNG at all (or the one there is the build's own plan), a plain
//!    top-down plan of the box brushes drawn on the CPU ([`draw_plan`]) is written beside
//!    the map, with a warning saying it was drawn rather than taken ([`PLAN_NOTE`]). The
//!    plan carries a `tEXt` chunk (`dh-thumbnail` = `plan`), so a later build knows it for
//!    its own drawing and the first real capture replaces it.
//!
//! A cache hit never overwrites the PNG, which is what lets a retouched picture survive.
//! `autoCapture: false` starts no engine and packs the file as it is. A build never fails
//! for a thumbnail. A compile without [`ThumbnailOptions`] (the engine's in-process build
//! of a source folder) takes no photograph and says nothing about it: it packs what is
//! there, or the plan.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use glam::DVec3;
use sha2::{Digest, Sha256};

use crate::hash::hex;
use crate::math;
use crate::schema::common::Guid;
use crate::schema::components::MapComponent;
use crate::schema::records::Record;

/// The companion's magic.
pub const MAGIC: [u8; 8] = *b"DHMTHUMB";
/// The companion's format version ("the container version" the capture key folds).
pub const FORMAT_VERSION: u32 = 1;
/// The header's length in bytes.
pub const HEADER_BYTES: usize = 8 + 4 + 4 + 4 + 32 + 8;
/// The largest PNG a companion packs (a 4096 × 4096 RGBA picture stored uncompressed is
/// 64 MiB and a little more; no thumbnail needs more).
pub const MAX_PNG_BYTES: u64 = 80 << 20;
/// The largest edge a packed PNG may declare (the texture decoder's bound).
pub const MAX_PNG_EDGE: u32 = crate::texture::MAX_EDGE;
/// The note that goes with a plan: it was drawn, not taken.
pub const PLAN_NOTE: &str = "drawn, not taken: a plain top-down plan of the box brushes, drawn on the CPU because this machine could not photograph the map; the first real capture replaces it";
/// The `tEXt` keyword a plan PNG carries (value [`PLAN_TEXT_VALUE`]).
pub const PLAN_TEXT_KEYWORD: &str = "dh-thumbnail";
/// The `tEXt` value a plan PNG carries.
pub const PLAN_TEXT_VALUE: &str = "plan";
/// How long a build waits for the engine's render before it gives up on it.
pub const DEFAULT_ENGINE_TIMEOUT: Duration = Duration::from_secs(600);

/// The companion of the map at `map_path`: `maps/x.dh-map` -> `maps/x.dh-map.dh-mapthumb`.
pub fn companion_path(map_path: &str) -> String {
    format!("{map_path}.dh-mapthumb")
}

/// The photograph of the map at `map_path`, at the map's name with its extension replaced:
/// `maps/atrium.dh-map` -> `maps/atrium.thumbnail.png`.
pub fn png_path(map_path: &str) -> String {
    let stem = map_path.strip_suffix(".dh-map").unwrap_or(map_path);
    format!("{stem}.thumbnail.png")
}

/// The hash a companion carries of the map document it ships with: SHA-256 of the compiled
/// map entry's bytes.
pub fn map_hash(document: &[u8]) -> [u8; 32] {
    Sha256::digest(document).into()
}

/// The capture's content address: SHA-256 over, little-endian, `"dh-mapthumb capture\0"`,
/// [`FORMAT_VERSION`] (`u32`), the map document's hash (32 bytes), and the size asked for
/// (`u32` width, `u32` height). The engine binary is deliberately not in it.
pub fn capture_key(map_hash: &[u8; 32], size: [u32; 2]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dh-mapthumb capture\0");
    h.update(FORMAT_VERSION.to_le_bytes());
    h.update(map_hash);
    h.update(size[0].to_le_bytes());
    h.update(size[1].to_le_bytes());
    h.finalize().into()
}

/// Why a companion, or the PNG in it, does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThumbError {
    /// Shorter than the header.
    #[error("{file}: {len} bytes is shorter than the {HEADER_BYTES}-byte DHMTHUMB header")]
    Short {
        /// The companion's name.
        file: String,
        /// Its length.
        len: usize,
    },
    /// Not a thumbnail companion.
    #[error("{file}: the magic is not DHMTHUMB")]
    Magic {
        /// The companion's name.
        file: String,
    },
    /// Another format version.
    #[error("{file}: format version {found}; this engine reads version {FORMAT_VERSION}")]
    Version {
        /// The companion's name.
        file: String,
        /// The version it states.
        found: u32,
    },
    /// The stated PNG length is not what follows, or is past the bound.
    #[error("{file}: the header states {stated} PNG bytes but {actual} follow (at most {MAX_PNG_BYTES})")]
    Length {
        /// The companion's name.
        file: String,
        /// What the header states.
        stated: u64,
        /// What follows the header.
        actual: u64,
    },
    /// The packed bytes are not a PNG the reader accepts.
    #[error("{file}: the picture is not a PNG this engine reads: {why}")]
    Png {
        /// The companion's (or the PNG's) name.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// The header's size is not the PNG's own.
    #[error("{file}: the header says {header:?} but the PNG declares {png:?}")]
    Size {
        /// The companion's name.
        file: String,
        /// The header's `[width, height]`.
        header: [u32; 2],
        /// The PNG's.
        png: [u32; 2],
    },
    /// Taken from another version of the map.
    #[error("{file}: stale: taken from a map document hashing {packed}, but the map now hashes {current}")]
    Stale {
        /// The companion's name.
        file: String,
        /// The hash in the header, hex.
        packed: String,
        /// The map document's, hex.
        current: String,
    },
}

/// A companion, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapThumb<'a> {
    /// The size the PNG declares, `[width, height]`.
    pub size: [u32; 2],
    /// The hash of the map document it was packed with.
    pub map_hash: [u8; 32],
    /// The PNG's bytes.
    pub png: &'a [u8],
}

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// The size a PNG declares in its IHDR, `[width, height]`, each edge in
/// `1..=`[`MAX_PNG_EDGE`]; `Err` says what is wrong. Reads the first 33 bytes only.
pub fn png_size(png: &[u8]) -> Result<[u32; 2], String> {
    if png.len() < 33 || png[..8] != PNG_SIGNATURE {
        return Err("it does not start with the PNG signature".into());
    }
    let be = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    if be(8) != 13 || &png[12..16] != b"IHDR" {
        return Err("its first chunk is not a 13-byte IHDR".into());
    }
    let size = [be(16), be(20)];
    if !size.iter().all(|e| (1..=MAX_PNG_EDGE).contains(e)) {
        return Err(format!(
            "it declares {}x{}; each edge must be in [1, {MAX_PNG_EDGE}]",
            size[0], size[1]
        ));
    }
    Ok(size)
}

/// Whether `png` is a plan a build drew ([`draw_plan`]): it carries the `tEXt` chunk
/// `dh-thumbnail` = `plan`. Walks the chunk list up to the first `IDAT` (bounded by the
/// bytes given).
pub fn is_plan(png: &[u8]) -> bool {
    if png.len() < 8 || png[..8] != PNG_SIGNATURE {
        return false;
    }
    let mut at = 8usize;
    let wanted = format!("{PLAN_TEXT_KEYWORD}\0{PLAN_TEXT_VALUE}");
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        let kind = &png[at + 4..at + 8];
        let Some(end) = (at + 8).checked_add(len) else {
            return false;
        };
        if end > png.len() || kind == b"IDAT" {
            return false;
        }
        if kind == b"tEXt" && &png[at + 8..end] == wanted.as_bytes() {
            return true;
        }
        at = end + 4;
    }
    false
}

/// Packs `png` (checked: its IHDR must declare a bounded size) for the map document whose
/// hash is `map_hash`. `Err` says what is wrong with the PNG.
pub fn encode(png: &[u8], map_hash: &[u8; 32]) -> Result<Vec<u8>, String> {
    let size = png_size(png)?;
    if png.len() as u64 > MAX_PNG_BYTES {
        return Err(format!(
            "it is {} bytes; a thumbnail packs at most {MAX_PNG_BYTES}",
            png.len()
        ));
    }
    let mut out = Vec::with_capacity(HEADER_BYTES + png.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&size[0].to_le_bytes());
    out.extend_from_slice(&size[1].to_le_bytes());
    out.extend_from_slice(map_hash);
    out.extend_from_slice(&(png.len() as u64).to_le_bytes());
    out.extend_from_slice(png);
    Ok(out)
}

/// Reads a companion's header and checks its structure (magic, version, length, and that
/// the PNG declares the size the header states); the map hash is not compared (see
/// [`read_for_map`]). `file` names it in errors.
pub fn decode<'a>(bytes: &'a [u8], file: &str) -> Result<MapThumb<'a>, ThumbError> {
    let file_s = || file.to_string();
    if bytes.len() < HEADER_BYTES {
        return Err(ThumbError::Short {
            file: file_s(),
            len: bytes.len(),
        });
    }
    if bytes[..8] != MAGIC {
        return Err(ThumbError::Magic { file: file_s() });
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(ThumbError::Version {
            file: file_s(),
            found: version,
        });
    }
    let size = [u32_at(12), u32_at(16)];
    let mut hash = [0u8; 32];
    hash.copy_from_slice(&bytes[20..52]);
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[52..60]);
    let stated = u64::from_le_bytes(len);
    let actual = (bytes.len() - HEADER_BYTES) as u64;
    if stated != actual || stated > MAX_PNG_BYTES {
        return Err(ThumbError::Length {
            file: file_s(),
            stated,
            actual,
        });
    }
    let png = &bytes[HEADER_BYTES..];
    let declared = png_size(png).map_err(|why| ThumbError::Png {
        file: file_s(),
        why,
    })?;
    if declared != size {
        return Err(ThumbError::Size {
            file: file_s(),
            header: size,
            png: declared,
        });
    }
    Ok(MapThumb {
        size,
        map_hash: hash,
        png,
    })
}

/// [`decode`], then the hash against `map_document` (the compiled map entry's bytes): a
/// companion packed with another version of the map is [`ThumbError::Stale`].
pub fn read_for_map<'a>(
    bytes: &'a [u8],
    file: &str,
    map_document: &[u8],
) -> Result<MapThumb<'a>, ThumbError> {
    let thumb = decode(bytes, file)?;
    let current = map_hash(map_document);
    if thumb.map_hash != current {
        return Err(ThumbError::Stale {
            file: file.to_string(),
            packed: hex(&thumb.map_hash),
            current: hex(&current),
        });
    }
    Ok(thumb)
}

/// One box brush as the plan draws it: its world-space center and its three half-edge
/// vectors (rotation and scale applied), and the material key it wears.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanBox {
    /// The box's center, world space.
    pub center: DVec3,
    /// The half-edge vectors along the box's own x, y and z.
    pub half: [DVec3; 3],
    /// The `materials` key the box wears (colors the footprint).
    pub material: String,
}

/// The box brushes of `records` (every object or `boxBrush` record carrying a `dh.box`,
/// posed through its parents), for [`draw_plan`]. A disabled record, or one under a
/// disabled parent, is left out; a parent chain that loops or names nothing stops there.
pub fn plan_boxes<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<PlanBox> {
    let records: Vec<&Record> = records.into_iter().collect();
    let by_id: std::collections::HashMap<Guid, &Record> =
        records.iter().filter_map(|r| Some((r.id()?, *r))).collect();
    let local = |r: &Record| -> (glam::DMat4, bool) {
        let (p, q, s, enabled) = match r {
            Record::Folder(f) => (None, None, None, f.enabled),
            Record::Object(o) => (o.position, o.rotation, o.scale, o.enabled),
            Record::BoxBrush(b) => (
                b.object.position,
                b.object.rotation,
                b.object.scale,
                b.object.enabled,
            ),
            Record::Instance(i) => (i.position, i.rotation, i.scale, i.enabled),
        };
        let v = |x: Option<crate::schema::common::Vec3>, d: f64| {
            x.map_or(DVec3::splat(d), |v| DVec3::from_array(v.0))
        };
        let m = math::from_trs(
            v(p, 0.0),
            math::quat_from_euler_degrees(v(q, 0.0)),
            v(s, 1.0),
        );
        (m, enabled.unwrap_or(true))
    };
    let mut out = Vec::new();
    for r in &records {
        let Some(dh_box) = r.components().iter().find_map(|c| match c {
            MapComponent::Box(b) => Some(b),
            _ => None,
        }) else {
            continue;
        };
        let (mut world, mut enabled) = local(r);
        let mut parent = r.parent();
        let mut steps = 0;
        while let (Some(pid), true) = (parent, steps < 256) {
            let Some(p) = by_id.get(&pid) else { break };
            let (m, e) = local(p);
            world = math::mul(&m, &world);
            enabled &= e;
            parent = p.parent();
            steps += 1;
        }
        if !enabled {
            continue;
        }
        let size = dh_box.size.map_or(DVec3::ONE, |s| DVec3::from_array(s.0));
        let half = size * 0.5;
        let axis = |k: usize, h: f64| world.col(k).truncate() * h;
        out.push(PlanBox {
            center: world.col(3).truncate(),
            half: [axis(0, half.x), axis(1, half.y), axis(2, half.z)],
            material: dh_box.material.clone().unwrap_or_default(),
        });
    }
    out
}

/// A plain top-down plan of `boxes` at `size` (north, -Z, up), as PNG bytes: each box's
/// footprint filled in a muted tone its material key picks, lightened with its height,
/// higher boxes over lower ones, with a darker outline, on a pale ground. The PNG carries
/// the plan's `tEXt` chunk ([`is_plan`]). The same boxes always give the same bytes.
pub fn draw_plan(boxes: &[PlanBox], size: [u32; 2]) -> Vec<u8> {
    let (w, h) = (
        size[0].clamp(1, MAX_PNG_EDGE),
        size[1].clamp(1, MAX_PNG_EDGE),
    );
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    for p in rgb.chunks_exact_mut(3) {
        p.copy_from_slice(&[236, 232, 222]);
    }
    // Each box as its footprint on the XZ plane (the hull of its eight corners' shadows,
    // which for a box is the parallelogram-sum of its three axes) and its top height.
    struct Print {
        corners: Vec<[f64; 2]>,
        top: f64,
        tone: [u8; 3],
    }
    let mut prints: Vec<Print> = boxes
        .iter()
        .filter(|b| b.center.is_finite() && b.half.iter().all(|a| a.is_finite()))
        .map(|b| {
            let mut pts = Vec::with_capacity(8);
            let mut top = f64::NEG_INFINITY;
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        let p = b.center + b.half[0] * sx + b.half[1] * sy + b.half[2] * sz;
                        top = top.max(p.y);
                        pts.push([p.x, p.z]);
                    }
                }
            }
            Print {
                corners: convex_hull(pts),
                top,
                tone: tone_of(&b.material),
            }
        })
        .collect();
    if !prints.is_empty() {
        prints.sort_by(|a, b| a.top.total_cmp(&b.top));
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for c in prints.iter().flat_map(|p| &p.corners) {
            for k in 0..2 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        let (ylo, yhi) = (prints[0].top, prints[prints.len() - 1].top);
        let margin = 0.05;
        let span = [(hi[0] - lo[0]).max(1e-3), (hi[1] - lo[1]).max(1e-3)];
        let scale = (f64::from(w) * (1.0 - 2.0 * margin) / span[0])
            .min(f64::from(h) * (1.0 - 2.0 * margin) / span[1]);
        let center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
        for p in &prints {
            let quad: Vec<[f64; 2]> = p
                .corners
                .iter()
                .map(|c| {
                    [
                        (c[0] - center[0]) * scale + f64::from(w) * 0.5,
                        (c[1] - center[1]) * scale + f64::from(h) * 0.5,
                    ]
                })
                .collect();
            let lift = if yhi > ylo {
                (p.top - ylo) / (yhi - ylo)
            } else {
                1.0
            };
            let shade = 0.72 + 0.28 * lift;
            let fill = p.tone.map(|c| (f64::from(c) * shade).round() as u8);
            let edge = fill.map(|c| (f64::from(c) * 0.45) as u8);
            fill_polygon(&mut rgb, w, h, &quad, fill, edge);
        }
    }
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        e.set_compression(png::Compression::default());
        // Writing into a Vec cannot fail but for a malformed text chunk, which these
        // constant Latin-1 words are not.
        let _ = e.add_text_chunk(PLAN_TEXT_KEYWORD.into(), PLAN_TEXT_VALUE.into());
        if let Ok(mut wr) = e.write_header() {
            let _ = wr.write_image_data(&rgb);
        }
    }
    out
}

/// A muted tone picked by `key` (FNV-1a over its bytes): the same key, the same tone.
fn tone_of(key: &str) -> [u8; 3] {
    const TONES: [[u8; 3]; 8] = [
        [150, 150, 150],
        [176, 140, 110],
        [120, 150, 170],
        [140, 165, 120],
        [180, 160, 110],
        [160, 125, 150],
        [110, 160, 150],
        [175, 120, 115],
    ];
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    TONES[(h % TONES.len() as u32) as usize]
}

/// The convex hull of `pts`, counter-clockwise (Andrew's monotone chain).
fn convex_hull(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(pts.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Fills the convex polygon `poly` (pixel space) into `rgb`, with a one-pixel `edge`.
fn fill_polygon(rgb: &mut [u8], w: u32, h: u32, poly: &[[f64; 2]], fill: [u8; 3], edge: [u8; 3]) {
    if poly.len() < 3 {
        return;
    }
    let (mut x0, mut y0, mut x1, mut y1) = (
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    );
    for p in poly {
        x0 = x0.min(p[0]);
        y0 = y0.min(p[1]);
        x1 = x1.max(p[0]);
        y1 = y1.max(p[1]);
    }
    let xa = x0.floor().max(0.0) as u32;
    let ya = y0.floor().max(0.0) as u32;
    let xb = (x1.ceil().max(0.0) as u32).min(w);
    let yb = (y1.ceil().max(0.0) as u32).min(h);
    // Signed distance of a point inside every edge (the hull is counter-clockwise).
    let inside = |x: f64, y: f64| -> f64 {
        let mut d = f64::INFINITY;
        for i in 0..poly.len() {
            let a = poly[i];
            let b = poly[(i + 1) % poly.len()];
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len = (ex * ex + ey * ey).sqrt();
            if len < 1e-9 {
                continue;
            }
            d = d.min((ex * (y - a[1]) - ey * (x - a[0])) / len);
        }
        d
    };
    for y in ya..yb {
        for x in xa..xb {
            let d = inside(f64::from(x) + 0.5, f64::from(y) + 0.5);
            if d < 0.0 {
                continue;
            }
            let c = if d < 1.0 { edge } else { fill };
            let i = (y as usize * w as usize + x as usize) * 3;
            rgb[i..i + 3].copy_from_slice(&c);
        }
    }
}

/// Where a build finds the engine that photographs maps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineSetting {
    /// No `enginePath` is configured.
    Unset,
    /// `enginePath` names `path`; `from` says where it was set (`dh-config.jsonc` at a
    /// path, or `--engine`).
    Named {
        /// The engine binary.
        path: PathBuf,
        /// Where the setting came from, for messages.
        from: String,
    },
}

/// What a build that photographs maps needs (`dh build`; the engine's in-process compile
/// passes none and takes no photograph).
#[derive(Debug, Clone)]
pub struct ThumbnailOptions {
    /// The engine to run.
    pub engine: EngineSetting,
    /// The cache root (the engine's cache folder); captures are recorded under
    /// `thumbnails/<key>.dhthumb`. `None`: nothing is cached, so every build with
    /// `autoCapture` photographs again.
    pub cache_root: Option<PathBuf>,
    /// How long to wait for one render.
    pub timeout: Duration,
}

impl ThumbnailOptions {
    /// `engine`, cached in the platform's cache folder, with the default timeout.
    pub fn new(engine: EngineSetting) -> ThumbnailOptions {
        ThumbnailOptions {
            engine,
            cache_root: crate::colcook::CookCache::default_root(),
            timeout: DEFAULT_ENGINE_TIMEOUT,
        }
    }

    fn marker(&self, key: &[u8; 32]) -> Option<PathBuf> {
        Some(
            self.cache_root
                .as_ref()?
                .join("thumbnails")
                .join(format!("{}.dhthumb", hex(key))),
        )
    }

    /// Whether a capture under `key` was taken before.
    pub fn cached(&self, key: &[u8; 32]) -> bool {
        self.marker(key).is_some_and(|p| p.is_file())
    }

    /// Records a capture under `key` (the marker holds the SHA-256 of the PNG taken).
    pub fn remember(&self, key: &[u8; 32], png: &[u8]) -> std::io::Result<()> {
        let Some(path) = self.marker(key) else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".{}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, format!("{}\n", hex(&Sha256::digest(png))))?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

/// What one engine run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderOutcome {
    /// It photographed the map and wrote the PNG.
    Captured,
    /// It ran but could not photograph (no device): it drew its own plan, or kept the
    /// last PNG; `why` is its reason.
    NotTaken {
        /// Why (the engine's own words).
        why: String,
    },
    /// It did not run, or failed; `why` names the cause (the stderr tail).
    Failed {
        /// Why.
        why: String,
    },
}

/// The last `lines` non-empty lines of `text`, joined by ` | `.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = all.len().saturating_sub(lines);
    all[from..].join(" | ")
}

/// Runs `engine render <run_dir> --pallet <p>… --map <barcode> --captureMapThumbnails
/// --thumbnailPng <png>`, its output kept in `run_dir`, waiting at most `timeout`.
pub fn run_engine(
    engine: &Path,
    run_dir: &Path,
    pallets: &[PathBuf],
    barcode: &str,
    png: &Path,
    timeout: Duration,
) -> RenderOutcome {
    let failed = |why: String| RenderOutcome::Failed { why };
    if let Err(e) = std::fs::create_dir_all(run_dir) {
        return failed(format!(
            "cannot create the run folder {}: {e}",
            run_dir.display()
        ));
    }
    let (out_path, err_path) = (run_dir.join("engine.stdout"), run_dir.join("engine.stderr"));
    let (Ok(out), Ok(err)) = (
        std::fs::File::create(&out_path),
        std::fs::File::create(&err_path),
    ) else {
        return failed(format!(
            "cannot create the engine's log files in {}",
            run_dir.display()
        ));
    };
    let mut cmd = Command::new(engine);
    cmd.arg("render").arg(run_dir);
    for p in pallets {
        cmd.arg("--pallet").arg(p);
    }
    cmd.arg("--map")
        .arg(barcode)
        .arg("--captureMapThumbnails")
        .arg("--thumbnailPng")
        .arg(png)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return failed(format!(
                "the engine {} did not start: {e}",
                engine.display()
            ))
        }
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return failed(format!(
                    "the engine's render did not finish in {} s and was stopped",
                    timeout.as_secs()
                ));
            }
            Err(e) => return failed(format!("waiting for the engine: {e}")),
        }
    };
    let mut stderr = String::new();
    if let Ok(f) = std::fs::File::open(&err_path) {
        let _ = f.take(1 << 20).read_to_string(&mut stderr);
    }
    if !status.success() {
        let t = tail(&stderr, 3);
        return failed(format!(
            "the engine's render failed ({status}): {}",
            if t.is_empty() {
                "it printed nothing"
            } else {
                &t
            }
        ));
    }
    // The engine says it drew rather than took the picture in plan.note.txt.
    if let Ok(note) = std::fs::read_to_string(run_dir.join("plan.note.txt")) {
        let why = note
            .lines()
            .find_map(|l| l.strip_prefix("why: "))
            .unwrap_or("the engine drew a plan")
            .to_string();
        return RenderOutcome::NotTaken { why };
    }
    RenderOutcome::Captured
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        let mut wr = e.write_header().unwrap();
        wr.write_image_data(&vec![200u8; (w * h * 3) as usize])
            .unwrap();
        drop(wr);
        out
    }

    #[test]
    fn paths_follow_the_map_name() {
        assert_eq!(png_path("maps/atrium.dh-map"), "maps/atrium.thumbnail.png");
        assert_eq!(
            companion_path("maps/atrium.dh-map"),
            "maps/atrium.dh-map.dh-mapthumb"
        );
    }

    #[test]
    fn a_companion_round_trips_and_checks_its_map() {
        let p = png(40, 24);
        let doc = br#"{"$type":"dh.map"}"#;
        let bytes = encode(&p, &map_hash(doc)).unwrap();
        assert_eq!(&bytes[..8], b"DHMTHUMB");
        assert_eq!(bytes.len(), HEADER_BYTES + p.len());
        let t = read_for_map(&bytes, "m", doc).unwrap();
        assert_eq!(t.size, [40, 24]);
        assert_eq!(t.png, &p[..]);
        assert!(matches!(
            read_for_map(&bytes, "m", b"{}"),
            Err(ThumbError::Stale { .. })
        ));
        let mut old = bytes.clone();
        old[8] = 0;
        assert!(matches!(
            decode(&old, "m"),
            Err(ThumbError::Version { found: 0, .. })
        ));
        let mut lied = bytes.clone();
        lied[12] = 41;
        assert!(matches!(decode(&lied, "m"), Err(ThumbError::Size { .. })));
        assert!(matches!(
            decode(&bytes[..bytes.len() - 1], "m"),
            Err(ThumbError::Length { .. })
        ));
        assert!(matches!(
            decode(&bytes[..10], "m"),
            Err(ThumbError::Short { .. })
        ));
        assert!(encode(b"not a png at all, really not one", &[0; 32]).is_err());
    }

    #[test]
    fn a_plan_knows_itself_and_a_photograph_is_not_one() {
        let boxes = [PlanBox {
            center: DVec3::ZERO,
            half: [DVec3::X * 4.0, DVec3::Y, DVec3::Z * 2.0],
            material: "floor".into(),
        }];
        let plan = draw_plan(&boxes, [64, 32]);
        assert_eq!(png_size(&plan).unwrap(), [64, 32]);
        assert!(is_plan(&plan));
        assert!(!is_plan(&png(8, 8)));
        assert_eq!(plan, draw_plan(&boxes, [64, 32]));
        let img = crate::texture::decode_png(&plan).unwrap();
        // The ground at a corner, the box's fill at the middle.
        assert_eq!(&img.rgba[..3], &[236, 232, 222]);
        let mid = (16 * 64 + 32) * 4;
        assert_ne!(&img.rgba[mid..mid + 3], &[236, 232, 222]);
    }
}
