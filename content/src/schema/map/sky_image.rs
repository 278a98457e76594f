//! What the compiler accepts as a `lighting.skyImage` source: an equirectangular HDR image,
//! `.exr` or `.hdr`. An 8-bit format is rejected, "because a sky's bright values are many
//! times white and an 8-bit encoding cannot hold them at all"; a source that is not 2:1 is
//! a warning; a 32-bit PIZ-compressed EXR is refused with a note to re-save it.
//!
//! The formats counted as 8-bit are the ones that store at most eight integer bits a
//! channel: PNG at a bit depth of 8 or less, JPEG, BMP, GIF, TGA and WebP. A 16-bit PNG is
//! not 8-bit, but it is still an integer encoding that stops at white, so it is refused
//! too: the spec accepts `.exr` and `.hdr` only.

use super::lighting::SkyImage;
use crate::read::Cx;

/// What a sky image's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkyImageFormat {
    /// OpenEXR (accepted).
    Exr,
    /// Radiance RGBE `.hdr` (accepted).
    RadianceHdr,
    /// PNG, with its bit depth per channel.
    Png {
        /// Bits per channel (1, 2, 4, 8 or 16).
        bit_depth: u8,
    },
    /// JPEG (8-bit).
    Jpeg,
    /// BMP (8-bit).
    Bmp,
    /// GIF (8-bit).
    Gif,
    /// WebP (8-bit).
    Webp,
    /// TGA (8-bit; recognized by extension only, since TGA has no leading magic).
    Tga,
    /// Anything else.
    Unknown,
}

impl SkyImageFormat {
    /// Whether the compiler accepts it as a sky (EXR or Radiance HDR).
    pub fn is_hdr(self) -> bool {
        matches!(self, SkyImageFormat::Exr | SkyImageFormat::RadianceHdr)
    }

    /// Whether it is an 8-bit format (at most eight integer bits a channel).
    pub fn is_eight_bit(self) -> bool {
        match self {
            SkyImageFormat::Png { bit_depth } => bit_depth <= 8,
            SkyImageFormat::Jpeg
            | SkyImageFormat::Bmp
            | SkyImageFormat::Gif
            | SkyImageFormat::Webp
            | SkyImageFormat::Tga => true,
            SkyImageFormat::Exr | SkyImageFormat::RadianceHdr | SkyImageFormat::Unknown => false,
        }
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            SkyImageFormat::Exr => "EXR",
            SkyImageFormat::RadianceHdr => "Radiance HDR",
            SkyImageFormat::Png { bit_depth } if bit_depth > 8 => "16-bit PNG",
            SkyImageFormat::Png { .. } => "PNG",
            SkyImageFormat::Jpeg => "JPEG",
            SkyImageFormat::Bmp => "BMP",
            SkyImageFormat::Gif => "GIF",
            SkyImageFormat::Webp => "WebP",
            SkyImageFormat::Tga => "TGA",
            SkyImageFormat::Unknown => "unrecognized",
        }
    }

    /// The format a path's extension names (case-insensitive); `None` when the extension
    /// is not an image format this module knows.
    pub fn from_extension(path: &str) -> Option<SkyImageFormat> {
        let name = path.rsplit(['/', ':']).next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "exr" => SkyImageFormat::Exr,
            "hdr" => SkyImageFormat::RadianceHdr,
            "png" => SkyImageFormat::Png { bit_depth: 8 },
            "jpg" | "jpeg" => SkyImageFormat::Jpeg,
            "bmp" => SkyImageFormat::Bmp,
            "gif" => SkyImageFormat::Gif,
            "webp" => SkyImageFormat::Webp,
            "tga" => SkyImageFormat::Tga,
            _ => return None,
        })
    }
}

/// What the compiler learns from a sky image's leading bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkyImageInfo {
    /// The format the bytes are.
    pub format: SkyImageFormat,
    /// Width and height, when the header says (EXR's dataWindow, a Radiance resolution
    /// line, a PNG's IHDR).
    pub size: Option<(u32, u32)>,
    /// An EXR that is PIZ-compressed with 32-bit float channels, which the decoder reads
    /// only at half precision.
    pub piz_float: bool,
}

/// Reads what a sky image is from its bytes (the header is enough; a whole file works).
/// Never panics on any input.
pub fn inspect(bytes: &[u8]) -> SkyImageInfo {
    let mut info = SkyImageInfo {
        format: SkyImageFormat::Unknown,
        size: None,
        piz_float: false,
    };
    if bytes.starts_with(&[0x76, 0x2f, 0x31, 0x01]) {
        info.format = SkyImageFormat::Exr;
        let (size, piz_float) = exr_header(bytes);
        info.size = size;
        info.piz_float = piz_float;
    } else if bytes.starts_with(b"#?") {
        info.format = SkyImageFormat::RadianceHdr;
        info.size = radiance_size(bytes);
    } else if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]) {
        let bit_depth = bytes.get(24).copied().unwrap_or(8);
        info.format = SkyImageFormat::Png { bit_depth };
        if let (Some(w), Some(h)) = (be_u32(bytes, 16), be_u32(bytes, 20)) {
            info.size = Some((w, h));
        }
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        info.format = SkyImageFormat::Jpeg;
    } else if bytes.starts_with(b"BM") {
        info.format = SkyImageFormat::Bmp;
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        info.format = SkyImageFormat::Gif;
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        info.format = SkyImageFormat::Webp;
    }
    info
}

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn le_i32(b: &[u8], at: usize) -> Option<i32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A NUL-terminated string starting at `at`: `(text, offset past the NUL)`.
fn cstr(b: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let rest = b.get(at..)?;
    let len = rest.iter().position(|c| *c == 0)?;
    Some((rest.get(..len)?, at + len + 1))
}

/// The EXR header's dataWindow size and whether it is PIZ with FLOAT channels.
fn exr_header(b: &[u8]) -> (Option<(u32, u32)>, bool) {
    const PIZ: u8 = 4;
    const FLOAT: i32 = 2;
    let mut size = None;
    let mut compression = None;
    let mut has_float = false;
    let mut pos = 8; // magic + version
                     // Each attribute: name\0 type\0 size(i32) value; the header ends with an empty name.
    for _ in 0..1024 {
        let Some((name, after_name)) = cstr(b, pos) else {
            break;
        };
        if name.is_empty() {
            break;
        }
        let Some((ty, after_ty)) = cstr(b, after_name) else {
            break;
        };
        let Some(len) = le_i32(b, after_ty).and_then(|l| usize::try_from(l).ok()) else {
            break;
        };
        let start = after_ty + 4;
        let Some(value) = start.checked_add(len).and_then(|end| b.get(start..end)) else {
            break;
        };
        match (name, ty) {
            (b"dataWindow", b"box2i") => {
                if let (Some(x0), Some(y0), Some(x1), Some(y1)) = (
                    le_i32(value, 0),
                    le_i32(value, 4),
                    le_i32(value, 8),
                    le_i32(value, 12),
                ) {
                    let w = i64::from(x1) - i64::from(x0) + 1;
                    let h = i64::from(y1) - i64::from(y0) + 1;
                    if let (Ok(w), Ok(h)) = (u32::try_from(w), u32::try_from(h)) {
                        size = Some((w, h));
                    }
                }
            }
            (b"compression", b"compression") => compression = value.first().copied(),
            (b"channels", b"chlist") => {
                // name\0 pixelType(i32) pLinear(u8) reserved(3) xSampling(i32) ySampling(i32)
                let mut p = 0;
                while let Some((ch, after)) = cstr(value, p) {
                    if ch.is_empty() {
                        break;
                    }
                    if le_i32(value, after) == Some(FLOAT) {
                        has_float = true;
                    }
                    p = after + 16;
                }
            }
            _ => {}
        }
        pos = start + len;
    }
    (size, compression == Some(PIZ) && has_float)
}

/// The size on a Radiance header's resolution line (`-Y h +X w`, after the blank line).
fn radiance_size(b: &[u8]) -> Option<(u32, u32)> {
    let head = b.get(..b.len().min(64 * 1024))?;
    let blank = head.windows(2).position(|w| w == b"\n\n")?;
    let rest = head.get(blank + 2..)?;
    let line_end = rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len());
    let line = std::str::from_utf8(rest.get(..line_end)?).ok()?;
    let parts: Vec<&str> = line.split_whitespace().collect();
    let [ya, yn, xa, xn] = parts.as_slice() else {
        return None;
    };
    let (h, w) = if ya.ends_with('Y') && xa.ends_with('X') {
        (yn.parse().ok()?, xn.parse().ok()?)
    } else if ya.ends_with('X') && xa.ends_with('Y') {
        // A column-major image: the first pair is X.
        (xn.parse().ok()?, yn.parse().ok()?)
    } else {
        return None;
    };
    Some((w, h))
}

/// The 8-bit rejection's message.
pub fn eight_bit_message(path: &str, format: SkyImageFormat) -> String {
    format!(
        "sky image '{path}' is an 8-bit {} image; .exr and .hdr are accepted and an 8-bit format is rejected, because a sky's bright values are many times white and an 8-bit encoding cannot hold them at all",
        format.name()
    )
}

/// Checks `skyImage.path` by its extension (no file needed): `.exr` and `.hdr` pass, an
/// 8-bit format is rejected, anything else is not an accepted sky format.
pub fn check_path(cx: &mut Cx, img: &SkyImage) {
    let at = &img.at;
    if !at.has("path") {
        return; // reading already said it is missing
    }
    let path = img.path.as_str();
    match SkyImageFormat::from_extension(path) {
        Some(f) if f.is_hdr() => {}
        Some(f) if f.is_eight_bit() => {
            cx.error_at(at, at.field("path"), eight_bit_message(path, f));
        }
        _ => {
            cx.error_at(
                at,
                at.field("path"),
                format!(
                    "sky image '{path}' is not an .exr or .hdr image; a sky image is an equirectangular HDR picture and .exr and .hdr are accepted"
                ),
            );
        }
    }
}

/// Checks a sky image file's bytes, which the compiler reads once the path resolves: the
/// content must be EXR or Radiance HDR (an 8-bit image renamed `.hdr` is still 8-bit), a
/// 32-bit PIZ EXR is refused, and a source that is not 2:1 is a warning. A path whose
/// extension [`check_path`] already refused is not reported again.
pub fn check_file(cx: &mut Cx, img: &SkyImage, bytes: &[u8]) -> SkyImageInfo {
    let info = inspect(bytes);
    let at = &img.at;
    let path = img.path.as_str();
    if !SkyImageFormat::from_extension(path).is_some_and(SkyImageFormat::is_hdr) {
        return info;
    }
    let span = at.field("path");
    match info.format {
        SkyImageFormat::Exr | SkyImageFormat::RadianceHdr => {}
        f if f.is_eight_bit() => {
            cx.error_at(at, span, eight_bit_message(path, f));
            return info;
        }
        f => {
            cx.error_at(
                at,
                span,
                format!(
                    "sky image '{path}' holds {} data, not EXR or Radiance HDR; .exr and .hdr are accepted",
                    match f {
                        SkyImageFormat::Unknown => "unrecognized".to_string(),
                        other => format!("{} image", other.name()),
                    }
                ),
            );
            return info;
        }
    }
    if info.piz_float {
        cx.error_at(
            at,
            span,
            format!(
                "sky image '{path}' is a 32-bit PIZ-compressed EXR, which the decoder reads only at half precision; re-save it with ZIP compression (or at half precision) and build again"
            ),
        );
    }
    if let Some((w, h)) = info.size {
        if u64::from(w) != 2 * u64::from(h) {
            cx.warning_at(
                at,
                span,
                format!(
                    "sky image '{path}' is {w}×{h}, not 2:1; it still maps as an equirectangular sky, it just stretches"
                ),
            );
        }
    }
    info
}
