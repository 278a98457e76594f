//! The hybrid light window kept resident on the GPU (spec `dh.voxel`, "The light field":
//! `client.voxel.lightUploadKb`).
//!
//! One device buffer per window layout (its bricks along x, y and z) holds the light block
//! exactly as `box_lit.wgsl` reads it: the 432-byte header, then every brick's cells two to
//! a 32-bit word, 8 KiB a brick. Each frame the header is written whole (it is small and
//! carries the tables and the origin), and of the bricks only those whose version differs
//! from the one the GPU holds for that slot, nearest the camera first, at most
//! [`VoxelLightWindow::upload_kb`] KiB of them; the rest wait for later frames. A capture
//! writes every changed brick before its shot. A new layout starts a new buffer (the old
//! one is retired through deferred destruction) with nothing held.
//!
//! The writes go through the staging ring and are copied in the frame's upload command
//! buffer, whose barriers order them after every earlier frame's reads.

use ash::vk;

use super::frame::{VoxelLightWindow, LIGHT_BRICK, LIGHT_BRICK_CELLS};
use glam::Vec3;

use crate::{Buffer, BufferDesc, Gpu, MemoryLocation, Result, StagingRing};

/// Bytes one brick takes on the GPU (4096 cells of 16 bits).
pub const LIGHT_BRICK_BYTES: usize = LIGHT_BRICK_CELLS * 2;
/// `client.voxel.lightUploadKb`'s default.
pub const DEFAULT_LIGHT_UPLOAD_KB: u32 = 1024;

/// The bricks a frame may write under `upload_kb` KiB: 8 KiB a brick, at least one so the
/// window always makes progress.
pub fn bricks_per_frame(upload_kb: u32) -> usize {
    (upload_kb as usize)
        .saturating_mul(1024)
        .checked_div(LIGHT_BRICK_BYTES)
        .unwrap_or(0)
        .max(1)
}

/// A 64-bit content hash of one brick's cells (FNV-1a over the cells' little-endian
/// bytes, four cells a step): the version a window without its own
/// [`VoxelLightWindow::brick_versions`] gets per brick, and one an engine may supply.
pub fn brick_hash(cells: &[u16]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in cells.chunks(4) {
        let mut word = 0u64;
        for (i, c) in chunk.iter().enumerate() {
            word |= u64::from(*c) << (16 * i);
        }
        h ^= word;
        h = h.wrapping_mul(PRIME);
        h ^= h >> 29;
    }
    h ^ (cells.len() as u64)
}

/// Packs one brick's cells two to a 32-bit word, the even cell low (the cells' own bytes
/// on a little-endian host, as every Vulkan target here is), an odd last cell padded by a
/// zero.
pub fn pack_cells(cells: &[u16]) -> Vec<u8> {
    let mut o = bytemuck::cast_slice::<u16, u8>(cells).to_vec();
    o.resize(cells.len().div_ceil(2) * 4, 0);
    o
}

/// Every brick's version: the window's own when it names one per brick, else each brick's
/// [`brick_hash`].
pub fn brick_versions(window: &VoxelLightWindow) -> Vec<u64> {
    let count = window.cells.len() / LIGHT_BRICK_CELLS;
    if window.brick_versions.len() == count {
        return window.brick_versions.clone();
    }
    window
        .cells
        .chunks(LIGHT_BRICK_CELLS)
        .take(count)
        .map(brick_hash)
        .collect()
}

/// The light-space center of brick `index` of `window` (bricks x fastest, then y, then z).
fn brick_center(window: &VoxelLightWindow, index: usize) -> [f64; 3] {
    let [bx, by, _] = window.bricks.map(|b| b.max(1) as usize);
    let b = [index % bx, (index / bx) % by, index / (bx * by)];
    let edge = f64::from(LIGHT_BRICK);
    [0, 1, 2].map(|a| f64::from(window.origin[a]) + (b[a] as f64 + 0.5) * edge)
}

/// `eye` (world) in `window`'s light-space cells.
fn eye_in_light(window: &VoxelLightWindow, eye: Vec3) -> [f64; 3] {
    let m = &window.world_to_light;
    [0, 1, 2].map(|r| {
        (0..3)
            .map(|c| f64::from(m.col(c)[r]) * f64::from(eye[c]))
            .sum::<f64>()
            + f64::from(m.col(3)[r])
    })
}

/// The bricks of `window` whose version differs from `held`, nearest `eye` first (ties by
/// index).
pub fn changed_nearest_first(
    window: &VoxelLightWindow,
    versions: &[u64],
    held: &[Option<u64>],
    eye: Vec3,
) -> Vec<usize> {
    let e = eye_in_light(window, eye);
    let mut changed: Vec<(f64, usize)> = versions
        .iter()
        .enumerate()
        .filter(|(i, v)| held.get(*i).copied().flatten() != Some(**v))
        .map(|(i, _)| {
            let c = brick_center(window, i);
            let d: f64 = (0..3).map(|a| (c[a] - e[a]).powi(2)).sum();
            (if d.is_finite() { d } else { f64::MAX }, i)
        })
        .collect();
    changed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    changed.into_iter().map(|(_, i)| i).collect()
}

/// What one frame wrote of the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LightWrites {
    /// Bricks written this frame.
    pub written: usize,
    /// Bricks whose contents the GPU does not hold yet (later frames write them).
    pub pending: usize,
}

/// The resident window: its buffer, its layout and the version held per brick.
#[derive(Default)]
pub(crate) struct LightResidency {
    buffer: Option<Buffer>,
    bricks: [u32; 3],
    held: Vec<Option<u64>>,
}

impl LightResidency {
    /// Stages `header` and the changed bricks of `window` (all of them when `budget` is
    /// `None`, else at most that many) and queues their copies into the resident buffer,
    /// made for this layout when it is new. Returns the buffer to bind and what was
    /// written. `window` must be consistent.
    pub(crate) fn stage(
        &mut self,
        gpu: &Gpu,
        staging: &mut StagingRing,
        window: &VoxelLightWindow,
        header: &[u8],
        eye: Vec3,
        budget: Option<usize>,
    ) -> Result<(vk::Buffer, LightWrites)> {
        let count = window.cells.len() / LIGHT_BRICK_CELLS;
        let size = (header.len() + count * LIGHT_BRICK_BYTES) as u64;
        if self.bricks != window.bricks
            || self.held.len() != count
            || self.buffer.as_ref().is_none_or(|b| b.size() < size)
        {
            self.buffer = Some(gpu.create_buffer(&BufferDesc {
                name: "voxel light window",
                size: size.max(64),
                usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            })?);
            self.bricks = window.bricks;
            self.held = vec![None; count];
        }
        let buffer =
            self.buffer
                .as_ref()
                .map(Buffer::raw)
                .ok_or_else(|| crate::GpuError::Invalid {
                    what: "voxel light window",
                    reason: "no buffer".into(),
                })?;
        let header_slice =
            staging
                .stage_unbudgeted(header)
                .ok_or_else(|| crate::GpuError::Invalid {
                    what: "staging ring",
                    reason: format!(
                        "no room for the light window's {}-byte header",
                        header.len()
                    ),
                })?;
        staging.copy_to_buffer(header_slice, buffer, 0);
        let versions = brick_versions(window);
        let order = changed_nearest_first(window, &versions, &self.held, eye);
        let limit = budget.unwrap_or(usize::MAX);
        let mut written = 0;
        for &i in &order {
            if written >= limit {
                break;
            }
            let Some(cells) = window
                .cells
                .get(i * LIGHT_BRICK_CELLS..(i + 1) * LIGHT_BRICK_CELLS)
            else {
                break;
            };
            let Some(slice) = staging.stage_unbudgeted(&pack_cells(cells)) else {
                // The ring is full of frames in flight: the rest waits.
                break;
            };
            let offset = (header.len() + i * LIGHT_BRICK_BYTES) as u64;
            staging.copy_to_buffer(slice, buffer, offset);
            if let (Some(h), Some(v)) = (self.held.get_mut(i), versions.get(i)) {
                *h = Some(*v);
            }
            written += 1;
        }
        Ok((
            buffer,
            LightWrites {
                written,
                pending: order.len() - written,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};
    const IDENTITY: Mat4 = Mat4::IDENTITY;

    fn window(bricks: [u32; 3]) -> VoxelLightWindow {
        let n = (bricks[0] * bricks[1] * bricks[2]) as usize;
        let (sky_gate, fill) = VoxelLightWindow::tables(0.0, [255, 255, 255]);
        VoxelLightWindow {
            world_to_light: IDENTITY,
            origin: [0, 0, 0],
            bricks,
            cells: (0..n * LIGHT_BRICK_CELLS)
                .map(|i| (i / 4096) as u16)
                .collect(),
            brick_versions: Vec::new(),
            upload_kb: DEFAULT_LIGHT_UPLOAD_KB,
            sky_gate,
            fill,
            occlusion_step: 0.2,
            block_light_intensity: 1.0,
            edge_fade: 8.0,
            lit_instances: Vec::new(),
        }
    }

    #[test]
    fn the_budget_is_eight_kib_a_brick() {
        // 1024 KiB / 8 KiB = 128 bricks; 16 KiB = 2; under one brick still writes one.
        assert_eq!(bricks_per_frame(1024), 128);
        assert_eq!(bricks_per_frame(16), 2);
        assert_eq!(bricks_per_frame(20), 2);
        assert_eq!(bricks_per_frame(0), 1);
    }

    #[test]
    fn cells_pack_two_to_a_word_even_low() {
        assert_eq!(
            pack_cells(&[0x1234, 0xABCD, 0x0001]),
            vec![0x34, 0x12, 0xCD, 0xAB, 0x01, 0x00, 0x00, 0x00]
        );
    }

    #[test]
    fn versions_come_from_the_window_or_a_content_hash() {
        let mut w = window([2, 1, 1]);
        let v = brick_versions(&w);
        assert_eq!(v.len(), 2);
        // Brick 0 holds zeros, brick 1 ones: different contents, different hashes.
        assert_ne!(v[0], v[1]);
        assert_eq!(v[0], brick_hash(&[0; LIGHT_BRICK_CELLS]));
        w.brick_versions = vec![7, 9];
        assert_eq!(brick_versions(&w), vec![7, 9]);
        // The wrong count falls back to hashing.
        w.brick_versions = vec![7];
        assert_eq!(brick_versions(&w), v);
    }

    #[test]
    fn changed_bricks_go_nearest_the_eye_first() {
        // 4 × 1 × 1 bricks; centers at x = 8, 24, 40, 56. The eye at x = 45 is nearest
        // brick 2 (5 cells), then 3 (11), then 1 (21), then 0 (37).
        let w = window([4, 1, 1]);
        let versions = brick_versions(&w);
        let none = vec![None; 4];
        assert_eq!(
            changed_nearest_first(&w, &versions, &none, Vec3::new(45.0, 8.0, 8.0)),
            vec![2, 3, 1, 0]
        );
        // Bricks held at their version are not listed.
        let held = vec![Some(versions[0]), None, Some(versions[2]), Some(0xdead)];
        assert_eq!(
            changed_nearest_first(&w, &versions, &held, Vec3::new(45.0, 8.0, 8.0)),
            vec![3, 1]
        );
    }
}
