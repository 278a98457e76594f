//! Buffers and images with gpu-allocator memory. Both are RAII: dropping one retires
//! it against [`crate::Gpu::pending_value`], so it outlives every frame that may use it.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::device::Gpu;
use crate::error::{invalid, GpuError, Result, VkContext};
use crate::retire::Retired;

/// How to create a [`Buffer`].
#[derive(Clone, Copy, Debug)]
pub struct BufferDesc<'a> {
    /// Debug name (allocator and debug utils).
    pub name: &'a str,
    /// Size in bytes (> 0).
    pub size: u64,
    /// Usage flags. `SHADER_DEVICE_ADDRESS` needs [`crate::OptionalFeatures::buffer_device_address`].
    pub usage: vk::BufferUsageFlags,
    /// Where the memory lives: `GpuOnly`, `CpuToGpu` (mapped, for uploads),
    /// `GpuToCpu` (mapped, for readback).
    pub location: MemoryLocation,
}

/// A buffer with its memory; host-visible ones stay mapped for their whole life.
pub struct Buffer {
    gpu: Gpu,
    raw: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    usage: vk::BufferUsageFlags,
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("raw", &self.raw)
            .field("size", &self.size)
            .finish()
    }
}

impl Gpu {
    /// Creates a buffer and binds fresh memory to it.
    pub fn create_buffer(&self, desc: &BufferDesc<'_>) -> Result<Buffer> {
        if desc.size == 0 {
            return Err(invalid("buffer", format!("{:?} has size 0", desc.name)));
        }
        if desc
            .usage
            .contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS)
            && !self.features().buffer_device_address
        {
            return Err(invalid(
                "buffer",
                format!(
                    "{:?} wants a device address; the device has none",
                    desc.name
                ),
            ));
        }
        let info = vk::BufferCreateInfo::default()
            .size(desc.size)
            .usage(desc.usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let device = self.device();
        // SAFETY: a valid device and a valid create info.
        let raw = unsafe { device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        // SAFETY: `raw` was just created by this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        let allocation = self.with_allocator(|a| {
            a.allocate(&AllocationCreateDesc {
                name: desc.name,
                requirements,
                location: desc.location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
        });
        let allocation = match allocation {
            Ok(a) => a,
            Err(source) => {
                // SAFETY: unused, unbound buffer created above.
                unsafe { device.destroy_buffer(raw, None) };
                return Err(GpuError::Alloc {
                    name: desc.name.to_owned(),
                    source,
                });
            }
        };
        let buffer = Buffer {
            gpu: self.clone(),
            raw,
            allocation: Some(allocation),
            size: desc.size,
            usage: desc.usage,
        };
        let (memory, offset) = match &buffer.allocation {
            // SAFETY (for the accessors): the allocation is live.
            Some(a) => unsafe { (a.memory(), a.offset()) },
            None => return Err(invalid("buffer", "allocation vanished")),
        };
        // SAFETY: memory from the allocator satisfies `requirements`; the buffer is
        // unbound. On error the Buffer's Drop retires both.
        unsafe { device.bind_buffer_memory(raw, memory, offset) }.vk("vkBindBufferMemory")?;
        self.set_object_name(raw, desc.name);
        Ok(buffer)
    }
}

impl Buffer {
    /// The buffer.
    pub fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Its usage flags.
    pub fn usage(&self) -> vk::BufferUsageFlags {
        self.usage
    }

    /// The mapped bytes of a host-visible buffer (coherent: no flush needed).
    pub fn mapped_slice(&self) -> Option<&[u8]> {
        self.allocation.as_ref()?.mapped_slice()
    }

    /// The mapped bytes of a host-visible buffer, writable.
    pub fn mapped_slice_mut(&mut self) -> Option<&mut [u8]> {
        self.allocation.as_mut()?.mapped_slice_mut()
    }

    /// The buffer's device address, when it was created with
    /// `SHADER_DEVICE_ADDRESS` on a device that has the feature.
    pub fn device_address(&self) -> Option<u64> {
        if !self
            .usage
            .contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS)
        {
            return None;
        }
        let info = vk::BufferDeviceAddressInfo::default().buffer(self.raw);
        // SAFETY: the buffer has the usage flag, which create_buffer allows only with
        // bufferDeviceAddress enabled.
        Some(unsafe { self.gpu.device().get_buffer_device_address(&info) })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.gpu
            .retire_pending(Retired::Buffer(self.raw, self.allocation.take()));
    }
}

/// How to create an [`Image`] (and its default view).
#[derive(Clone, Copy, Debug)]
pub struct ImageDesc<'a> {
    /// Debug name.
    pub name: &'a str,
    /// Format.
    pub format: vk::Format,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Mip levels (>= 1).
    pub mip_levels: u32,
    /// Array layers (>= 1; 6 with `cube` for a cube map).
    pub array_layers: u32,
    /// Sample count.
    pub samples: vk::SampleCountFlags,
    /// Usage flags.
    pub usage: vk::ImageUsageFlags,
    /// Cube compatible; the default view is a cube (6 layers) or cube array.
    pub cube: bool,
}

impl<'a> ImageDesc<'a> {
    /// A single-mip, single-layer, single-sample 2D image.
    pub fn new_2d(
        name: &'a str,
        format: vk::Format,
        width: u32,
        height: u32,
        usage: vk::ImageUsageFlags,
    ) -> Self {
        Self {
            name,
            format,
            width,
            height,
            mip_levels: 1,
            array_layers: 1,
            samples: vk::SampleCountFlags::TYPE_1,
            usage,
            cube: false,
        }
    }
}

/// The aspect flags of a format (depth, stencil, both, or color).
pub fn format_aspect(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D32_SFLOAT => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::S8_UINT => vk::ImageAspectFlags::STENCIL,
        vk::Format::D16_UNORM_S8_UINT
        | vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// A 2D image (optionally layered or cube) with device-local memory and a view of
/// every mip and layer.
pub struct Image {
    gpu: Gpu,
    raw: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
    format: vk::Format,
    extent: vk::Extent2D,
    mip_levels: u32,
    array_layers: u32,
    aspect: vk::ImageAspectFlags,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("raw", &self.raw)
            .field("format", &self.format)
            .field("extent", &self.extent)
            .finish()
    }
}

impl Gpu {
    /// Creates an image in device-local memory and its default view.
    pub fn create_image(&self, desc: &ImageDesc<'_>) -> Result<Image> {
        if desc.width == 0 || desc.height == 0 || desc.mip_levels == 0 || desc.array_layers == 0 {
            return Err(invalid(
                "image",
                format!("{:?}: zero extent, mips or layers", desc.name),
            ));
        }
        if desc.cube && desc.array_layers.checked_rem(6) != Some(0) {
            return Err(invalid(
                "image",
                format!("{:?}: a cube needs a multiple of 6 layers", desc.name),
            ));
        }
        let flags = if desc.cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(vk::ImageType::TYPE_2D)
            .format(desc.format)
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: 1,
            })
            .mip_levels(desc.mip_levels)
            .array_layers(desc.array_layers)
            .samples(desc.samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(desc.usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let device = self.device();
        // SAFETY: valid device and create info.
        let raw = unsafe { device.create_image(&info, None) }.vk("vkCreateImage")?;
        // SAFETY: `raw` was just created by this device.
        let requirements = unsafe { device.get_image_memory_requirements(raw) };
        let allocation = self.with_allocator(|a| {
            a.allocate(&AllocationCreateDesc {
                name: desc.name,
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
        });
        let allocation = match allocation {
            Ok(a) => a,
            Err(source) => {
                // SAFETY: unused, unbound image created above.
                unsafe { device.destroy_image(raw, None) };
                return Err(GpuError::Alloc {
                    name: desc.name.to_owned(),
                    source,
                });
            }
        };
        let aspect = format_aspect(desc.format);
        let mut image = Image {
            gpu: self.clone(),
            raw,
            view: vk::ImageView::null(),
            allocation: Some(allocation),
            format: desc.format,
            extent: vk::Extent2D {
                width: desc.width,
                height: desc.height,
            },
            mip_levels: desc.mip_levels,
            array_layers: desc.array_layers,
            aspect,
        };
        let (memory, offset) = match &image.allocation {
            // SAFETY (for the accessors): the allocation is live.
            Some(a) => unsafe { (a.memory(), a.offset()) },
            None => return Err(invalid("image", "allocation vanished")),
        };
        // SAFETY: memory satisfies the image's requirements; the image is unbound.
        unsafe { device.bind_image_memory(raw, memory, offset) }.vk("vkBindImageMemory")?;
        let view_type = match (desc.cube, desc.array_layers) {
            (true, 6) => vk::ImageViewType::CUBE,
            (true, _) => vk::ImageViewType::CUBE_ARRAY,
            (false, 1) => vk::ImageViewType::TYPE_2D,
            (false, _) => vk::ImageViewType::TYPE_2D_ARRAY,
        };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(view_type)
            .format(desc.format)
            .subresource_range(image.full_range());
        // SAFETY: the image is bound to memory and the range lies within it.
        image.view =
            unsafe { device.create_image_view(&view_info, None) }.vk("vkCreateImageView")?;
        self.set_object_name(raw, desc.name);
        self.set_object_name(image.view, desc.name);
        Ok(image)
    }
}

impl Image {
    /// The image.
    pub fn raw(&self) -> vk::Image {
        self.raw
    }

    /// The default view (every mip and layer).
    pub fn view(&self) -> vk::ImageView {
        self.view
    }

    /// Its format.
    pub fn format(&self) -> vk::Format {
        self.format
    }

    /// Its size in texels.
    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }

    /// Mip levels.
    pub fn mip_levels(&self) -> u32 {
        self.mip_levels
    }

    /// Array layers.
    pub fn array_layers(&self) -> u32 {
        self.array_layers
    }

    /// The format's aspect flags.
    pub fn aspect(&self) -> vk::ImageAspectFlags {
        self.aspect
    }

    /// Every mip and layer.
    pub fn full_range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspect,
            base_mip_level: 0,
            level_count: self.mip_levels,
            base_array_layer: 0,
            layer_count: self.array_layers,
        }
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        let views = if self.view == vk::ImageView::null() {
            Vec::new()
        } else {
            vec![self.view]
        };
        self.gpu
            .retire_pending(Retired::Image(self.raw, views, self.allocation.take()));
    }
}
