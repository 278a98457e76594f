//! Texture images: what a material's `baseColor` and `emissiveTexture` may name, decoded to
//! RGBA8 texels. PNG (the `png` crate) and JPEG (`zune-jpeg`; models carry JPEG base
//! colours, CesiumMilkTruck's among them) are read; every other format is named, so a build
//! can say what a file is when it is not a texture the engine reads.
//!
//! Untrusted bytes: the header is read first and each edge checked against [`MAX_EDGE`]
//! before a texel is allocated; PNG's decoder is further capped at the largest texture's
//! bytes, and JPEG's at [`MAX_EDGE`] a side and [`MAX_JPEG_SCANS`] progressive scans.
//! Nothing here panics on any input (the `image` fuzz target, `fuzz/corpus/image/`).

use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

/// The widest or tallest texture taken (the renderer's limit too).
pub const MAX_EDGE: u32 = 4096;

/// The most scans a progressive JPEG may take (ours: real encoders write about ten; a
/// hostile file could otherwise ask for thousands over one image).
pub const MAX_JPEG_SCANS: usize = 64;

/// An image format the engine reads as a texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG, any colour type and depth.
    Png,
    /// Baseline or progressive JPEG (grey, YCbCr, CMYK).
    Jpeg,
}

impl ImageFormat {
    /// The format's name as messages print it.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
        }
    }
}

/// What a file's bytes are, read from their first bytes (and, for text, the file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identified {
    /// An image format the engine reads.
    Texture(ImageFormat),
    /// An image format the engine does not read as a texture (e.g. "an OpenEXR image").
    OtherImage(&'static str),
    /// Not an image at all (e.g. "a GLB model (glTF binary)").
    NotAnImage(&'static str),
}

/// Says what `bytes` are; `path` (the file's name) tells text formats apart.
pub fn identify(path: &str, bytes: &[u8]) -> Identified {
    use Identified::{NotAnImage, OtherImage, Texture};
    let starts = |m: &[u8]| bytes.starts_with(m);
    let riff = |kind: &[u8]| starts(b"RIFF") && bytes.get(8..12) == Some(kind);
    let lower = path.to_ascii_lowercase();
    if starts(b"\x89PNG\r\n\x1a\n") {
        Texture(ImageFormat::Png)
    } else if starts(&[0xFF, 0xD8, 0xFF]) {
        Texture(ImageFormat::Jpeg)
    } else if starts(b"\xABKTX 20\xBB\r\n\x1a\n") {
        OtherImage("a KTX2 texture")
    } else if starts(b"\xABKTX 11\xBB\r\n\x1a\n") {
        OtherImage("a KTX texture")
    } else if starts(&[0x76, 0x2F, 0x31, 0x01]) {
        OtherImage("an OpenEXR image")
    } else if starts(b"#?RADIANCE") || starts(b"#?RGBE") {
        OtherImage("a Radiance HDR image")
    } else if riff(b"WEBP") {
        OtherImage("a WebP image")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        OtherImage("a GIF image")
    } else if starts(b"BM") && bytes.len() >= 26 {
        OtherImage("a BMP image")
    } else if starts(b"II*\0") || starts(b"MM\0*") {
        OtherImage("a TIFF image")
    } else if starts(b"DDS ") {
        OtherImage("a DDS texture")
    } else if starts(b"8BPS") {
        OtherImage("a Photoshop document")
    } else if starts(b"glTF") {
        NotAnImage("a GLB model (glTF binary)")
    } else if starts(b"Kaydara FBX Binary") {
        NotAnImage("an FBX model")
    } else if starts(b"VOX ") {
        NotAnImage("a MagicaVoxel .vox model")
    } else if starts(b"DHPALLET") {
        NotAnImage("a compiled .pallet")
    } else if starts(b"OggS") {
        NotAnImage("an Ogg audio file")
    } else if riff(b"WAVE") {
        NotAnImage("a WAV audio file")
    } else if starts(b"PK\x03\x04") {
        NotAnImage("a ZIP archive")
    } else if lower.ends_with(".gltf") {
        NotAnImage("a glTF JSON model")
    } else if lower.rsplit('/').next().is_some_and(|n| n.contains(".dh-")) {
        NotAnImage("a DigitalHeaven JSON asset")
    } else if lower.ends_with(".svg") {
        OtherImage("an SVG drawing")
    } else if std::str::from_utf8(bytes).is_ok() {
        NotAnImage("a text file")
    } else {
        NotAnImage("a file whose bytes match no image format")
    }
}

/// An image decoded to RGBA8, rows top to bottom, read as sRGB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
    /// What it was decoded from.
    pub format: ImageFormat,
}

/// Why bytes did not decode as a texture.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// An image format the engine does not read.
    #[error("{what}, which the engine does not read as a texture (it reads PNG and JPEG)")]
    Unsupported {
        /// What the bytes are.
        what: &'static str,
    },
    /// Not an image.
    #[error("{what}, not an image (a texture is a PNG or a JPEG)")]
    NotAnImage {
        /// What the bytes are.
        what: &'static str,
    },
    /// A PNG or JPEG that does not decode.
    #[error("not a readable {}: {message}", .format.name())]
    Decode {
        /// The format its signature claims.
        format: ImageFormat,
        /// The decoder's reason.
        message: String,
    },
    /// An edge past [`MAX_EDGE`], or zero.
    #[error("a {} of {width}x{height} pixels: each edge must be 1 to {MAX_EDGE}", .format.name())]
    Size {
        /// The format.
        format: ImageFormat,
        /// Width its header states.
        width: u32,
        /// Height its header states.
        height: u32,
    },
}

/// Decodes a PNG or a JPEG (told apart by their signatures) into RGBA8 texels, refusing any
/// edge past [`MAX_EDGE`] before the texels are allocated. `path` names the file only for
/// [`identify`] when the bytes are neither.
pub fn decode(path: &str, bytes: &[u8]) -> Result<Image, ImageError> {
    match identify(path, bytes) {
        Identified::Texture(ImageFormat::Png) => decode_png(bytes),
        Identified::Texture(ImageFormat::Jpeg) => decode_jpeg(bytes),
        Identified::OtherImage(what) => Err(ImageError::Unsupported { what }),
        Identified::NotAnImage(what) => Err(ImageError::NotAnImage { what }),
    }
}

fn check_edges(format: ImageFormat, width: u32, height: u32) -> Result<(), ImageError> {
    if (1..=MAX_EDGE).contains(&width) && (1..=MAX_EDGE).contains(&height) {
        Ok(())
    } else {
        Err(ImageError::Size {
            format,
            width,
            height,
        })
    }
}

/// Decodes a PNG (any colour type and depth: palettes and greys expand, 16-bit strips to 8).
pub fn decode_png(bytes: &[u8]) -> Result<Image, ImageError> {
    let format = ImageFormat::Png;
    let fail = |message: String| ImageError::Decode { format, message };
    let max = MAX_EDGE as usize;
    let limits = png::Limits {
        bytes: max * max * 8,
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| fail(e.to_string()))?;
    let (width, height) = reader.info().size();
    check_edges(format, width, height)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| fail("the image is too large".into()))?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| fail(e.to_string()))?;
    let texels = width as usize * height as usize;
    let line = info.line_size;
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(fail("a palette was not expanded".into())),
    };
    if info.bit_depth != png::BitDepth::Eight || line < width as usize * channels {
        return Err(fail(format!(
            "{:?} at {:?} bits after expansion",
            info.color_type, info.bit_depth
        )));
    }
    let mut rgba = Vec::with_capacity(texels * 4);
    for row in buf.chunks(line).take(height as usize) {
        for px in row.chunks_exact(channels).take(width as usize) {
            rgba.extend_from_slice(&match *px {
                [g] => [g, g, g, 255],
                [g, a] => [g, g, g, a],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0, 0, 0, 255],
            });
        }
    }
    if rgba.len() != texels * 4 {
        return Err(fail("the image data is short".into()));
    }
    Ok(Image {
        width,
        height,
        rgba,
        format,
    })
}

/// Decodes a baseline or progressive JPEG to RGBA8 (alpha 255).
pub fn decode_jpeg(bytes: &[u8]) -> Result<Image, ImageError> {
    let format = ImageFormat::Jpeg;
    // zune-jpeg's messages come quoted.
    let fail = |message: String| ImageError::Decode {
        format,
        message: message.trim_matches('"').to_string(),
    };
    // Its own size limit is lifted to JPEG's (16-bit edges), so the edge check below
    // answers with the size: reading the header allocates nothing by the image's size.
    let options = DecoderOptions::default()
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX))
        .jpeg_set_max_scans(MAX_JPEG_SCANS)
        .jpeg_set_out_colorspace(ColorSpace::RGBA);
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().map_err(|e| fail(e.to_string()))?;
    let (width, height) = decoder
        .dimensions()
        .ok_or_else(|| fail("the header states no size".into()))?;
    let (width, height) = (width as u32, height as u32);
    check_edges(format, width, height)?;
    let out = decoder
        .output_colorspace()
        .ok_or_else(|| fail("the header states no colour space".into()))?;
    if out != ColorSpace::RGBA {
        return Err(fail(format!("decodes to {out:?}, not RGBA")));
    }
    let size = decoder
        .output_buffer_size()
        .ok_or_else(|| fail("the image is too large".into()))?;
    if size != width as usize * height as usize * 4 {
        return Err(fail(format!(
            "{size} output bytes for {width}x{height} RGBA pixels"
        )));
    }
    let mut rgba = vec![0u8; size];
    decoder
        .decode_into(&mut rgba)
        .map_err(|e| fail(e.to_string()))?;
    Ok(Image {
        width,
        height,
        rgba,
        format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, width, height);
            e.set_color(color);
            e.set_depth(png::BitDepth::Eight);
            let mut w = e.write_header().unwrap_or_else(|e| panic!("{e}"));
            w.write_image_data(data).unwrap_or_else(|e| panic!("{e}"));
        }
        out
    }

    #[test]
    fn pngs_decode_to_rgba8() {
        let rgb = png(2, 1, png::ColorType::Rgb, &[255, 0, 0, 0, 0, 255]);
        let t = decode("a.png", &rgb).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((t.width, t.height, t.format), (2, 1, ImageFormat::Png));
        assert_eq!(t.rgba, vec![255, 0, 0, 255, 0, 0, 255, 255]);
        let gray = png(1, 2, png::ColorType::GrayscaleAlpha, &[10, 20, 30, 40]);
        let t = decode("a.png", &gray).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.rgba, vec![10, 10, 10, 20, 30, 30, 30, 40]);
    }

    #[test]
    fn bad_and_oversized_pngs_are_refused() {
        assert!(matches!(
            decode("a.png", b"\x89PNG\r\n\x1a\n-- cut short"),
            Err(ImageError::Decode { .. })
        ));
        // A header claiming 4097 x 1: refused before the texels are read.
        let wide = png(MAX_EDGE + 1, 1, png::ColorType::Grayscale, &[0; 4097]);
        assert_eq!(
            decode("a.png", &wide),
            Err(ImageError::Size {
                format: ImageFormat::Png,
                width: 4097,
                height: 1
            })
        );
    }

    #[test]
    fn other_files_are_named() {
        let cases: [(&str, &[u8], &str); 5] = [
            (
                "m/truck.glb",
                b"glTF\x02\0\0\0",
                "a GLB model (glTF binary), not an image (a texture is a PNG or a JPEG)",
            ),
            (
                "t/sky.exr",
                &[0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0],
                "an OpenEXR image, which the engine does not read as a texture (it reads PNG and JPEG)",
            ),
            (
                "m/a.dh-mat",
                b"{ \"shader\": \"lit\" }",
                "a DigitalHeaven JSON asset, not an image (a texture is a PNG or a JPEG)",
            ),
            (
                "t/a.png",
                b"hello",
                "a text file, not an image (a texture is a PNG or a JPEG)",
            ),
            (
                "t/a.png",
                &[0, 159, 146, 150],
                "a file whose bytes match no image format, not an image (a texture is a PNG or a JPEG)",
            ),
        ];
        for (path, bytes, want) in cases {
            match decode(path, bytes) {
                Err(e) => assert_eq!(e.to_string(), want, "{path}"),
                Ok(_) => panic!("{path} decoded"),
            }
        }
    }
}
