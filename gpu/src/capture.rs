//! Offscreen captures: an `R8G8B8A8_SRGB` colour target, copied into a host-visible
//! buffer, written as PNG with an sRGB chunk.

use std::io::Write as _;
use std::path::Path;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::device::Gpu;
use crate::error::{invalid, GpuError, Result};
use crate::memory::{Buffer, BufferDesc, Image, ImageDesc};

/// The format every capture renders to.
pub const CAPTURE_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// Tightly packed 8-bit RGBA rows, top row first, sRGB-encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// The pixel at (x, y), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// The PNG bytes (see [`encode_png`]).
    pub fn encode_png(&self) -> Result<Vec<u8>> {
        encode_png(self.width, self.height, &self.pixels)
    }

    /// Writes the PNG to `path`.
    pub fn write_png(&self, path: &Path) -> Result<()> {
        let bytes = self.encode_png()?;
        let io = |source| GpuError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut file = std::fs::File::create(path).map_err(io)?;
        file.write_all(&bytes).map_err(io)?;
        file.sync_all().map_err(io)
    }
}

/// Encodes 8-bit RGBA (sRGB-encoded, top row first) as a PNG with an sRGB chunk
/// (rendering intent: perceptual).
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    let expected = width as usize * height as usize * 4;
    if width == 0 || height == 0 || rgba.len() != expected {
        return Err(invalid(
            "png",
            format!(
                "{width}x{height} needs {expected} bytes, got {}",
                rgba.len()
            ),
        ));
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgba)?;
        writer.finish()?;
    }
    Ok(out)
}

/// A colour target in [`CAPTURE_FORMAT`] and the buffer it is read back through.
pub struct CaptureTarget {
    image: Image,
    readback: Buffer,
}

impl std::fmt::Debug for CaptureTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureTarget")
            .field("image", &self.image)
            .finish()
    }
}

impl CaptureTarget {
    /// A `width` × `height` target (colour attachment, transfer source and
    /// destination, sampled) and its readback buffer.
    pub fn new(gpu: &Gpu, width: u32, height: u32, name: &str) -> Result<Self> {
        if width == 0 || height == 0 {
            return Err(invalid("capture", format!("size {width}x{height}")));
        }
        let image = gpu.create_image(&ImageDesc::new_2d(
            name,
            CAPTURE_FORMAT,
            width,
            height,
            vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::SAMPLED,
        ))?;
        let readback = gpu.create_buffer(&BufferDesc {
            name: &format!("{name} readback"),
            size: u64::from(width) * u64::from(height) * 4,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        })?;
        Ok(Self { image, readback })
    }

    /// The colour image (render into [`Image::view`]).
    pub fn image(&self) -> &Image {
        &self.image
    }

    /// Width and height.
    pub fn extent(&self) -> vk::Extent2D {
        self.image.extent()
    }

    /// Records: barrier from `layout` (after `src_stage`/`src_access`, the last writes)
    /// to TRANSFER_SRC, the copy into the readback buffer, and a barrier that makes
    /// the copy visible to the host. The image is left in TRANSFER_SRC_OPTIMAL.
    pub fn record_readback(
        &self,
        gpu: &Gpu,
        cmd: vk::CommandBuffer,
        layout: vk::ImageLayout,
        src_stage: vk::PipelineStageFlags2,
        src_access: vk::AccessFlags2,
    ) {
        let device = gpu.device();
        let to_src = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(src_stage)
            .src_access_mask(src_access)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(layout)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.image.raw())
            .subresource_range(self.image.full_range())];
        // SAFETY: `cmd` is recording (caller's contract); the image is live.
        unsafe {
            device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&to_src),
            )
        };
        let extent = self.image.extent();
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: extent.width,
                height: extent.height,
                depth: 1,
            },
        };
        // SAFETY: the buffer holds width*height*4 bytes, the image is in
        // TRANSFER_SRC_OPTIMAL after the barrier above.
        unsafe {
            device.cmd_copy_image_to_buffer(
                cmd,
                self.image.raw(),
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                self.readback.raw(),
                &[region],
            )
        };
        let to_host = [vk::BufferMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(self.readback.raw())
            .offset(0)
            .size(vk::WHOLE_SIZE)];
        // SAFETY: as above.
        unsafe {
            device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().buffer_memory_barriers(&to_host),
            )
        };
    }

    /// The captured pixels; call once the submit holding
    /// [`CaptureTarget::record_readback`] has completed.
    pub fn read(&self) -> Result<RgbaImage> {
        let extent = self.image.extent();
        let len = extent.width as usize * extent.height as usize * 4;
        let mapped = self
            .readback
            .mapped_slice()
            .ok_or_else(|| invalid("capture", "readback buffer is not mapped"))?;
        let pixels = mapped
            .get(..len)
            .ok_or_else(|| invalid("capture", "readback buffer too small"))?
            .to_vec();
        Ok(RgbaImage {
            width: extent.width,
            height: extent.height,
            pixels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_with_an_srgb_chunk() {
        let rgba: Vec<u8> = (0..2 * 3 * 4).map(|i| (i * 10) as u8).collect();
        let bytes = encode_png(2, 3, &rgba).map_err(|e| e.to_string());
        let bytes = bytes.as_deref().unwrap_or_default();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = match decoder.read_info() {
            Ok(r) => r,
            Err(e) => panic!("decode: {e}"),
        };
        assert!(reader.info().srgb.is_some(), "sRGB chunk present");
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let info = match reader.next_frame(&mut buf) {
            Ok(i) => i,
            Err(e) => panic!("frame: {e}"),
        };
        assert_eq!((info.width, info.height), (2, 3));
        assert_eq!(&buf[..info.buffer_size()], &rgba[..]);
        assert!(encode_png(2, 3, &rgba[1..]).is_err());
    }
}
