//! The renderer's asset uploads (the static batch, live box meshes, base color textures,
//! and, in a queue of their own under a time budget, mesh assets)
//! through the [`StagingRing`] under its per-frame byte and time budget. Each upload is a job
//! in a FIFO queue; [`UploadQueue::pump`] stages as much of the queue as this frame's budget
//! and the ring's free space allow, in chunks, and queues the copies. What does not fit waits
//! for the next frame; nothing blocks. A resource is drawn only once its job has left the
//! queue (its last chunk is copied in the frame that finished it, before that frame's passes).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;

use super::frame::{MeshAsset, Texture};
use crate::{ImageUpload, StagingRing};

/// The largest chunk one stage copies (a large upload goes in pieces, so the time budget
/// is checked between them and no single copy needs the whole ring).
pub const CHUNK_BYTES: u64 = 1 << 20;

enum Source {
    Bytes(Vec<u8>),
    Texture(Arc<Texture>),
    /// A mesh's packed streams, read in place (no copy of the asset's bytes).
    Streams(Arc<MeshAsset>),
}

impl Source {
    /// The bytes of level `level` (a buffer's source has only level 0).
    fn bytes(&self, level: u32) -> &[u8] {
        match self {
            Source::Bytes(b) if level == 0 => b,
            Source::Streams(m) if level == 0 => &m.packed.bytes,
            Source::Texture(t) => t.level(level).map_or(&[][..], |(_, _, b)| b),
            _ => &[],
        }
    }
}

enum Dest {
    Buffer(vk::Buffer),
    /// An RGBA8 image of this top-level width and height and this many mip levels, filled
    /// level by level from the top (rows go in whole).
    Image(vk::Image, u32, u32, u32),
}

struct Job {
    id: u64,
    dest: Dest,
    source: Source,
    /// The image level being staged (0 for a buffer).
    level: u32,
    /// Bytes (buffers) or rows of `level` (images) already staged.
    done: u64,
}

impl Job {
    /// Bytes not yet staged.
    fn bytes_left(&self) -> u64 {
        match self.dest {
            Dest::Buffer(_) => self.source.bytes(0).len() as u64 - self.done,
            Dest::Image(_, w, h, levels) => (self.level..levels)
                .map(|l| {
                    let (lw, lh) = dh_content::mips::level_size(w, h, l);
                    let rows = u64::from(lh) - if l == self.level { self.done } else { 0 };
                    u64::from(lw) * 4 * rows
                })
                .sum(),
        }
    }
}

/// Pending uploads, oldest first.
#[derive(Default)]
pub struct UploadQueue {
    jobs: VecDeque<Job>,
    next_id: u64,
}

impl std::fmt::Debug for UploadQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UploadQueue")
            .field("jobs", &self.jobs.len())
            .field("bytes_left", &self.bytes_left())
            .finish()
    }
}

/// What one [`UploadQueue::pump`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pumped {
    /// Bytes staged.
    pub bytes: u64,
    /// Jobs finished (their last chunk staged).
    pub finished: usize,
}

impl UploadQueue {
    fn push(&mut self, dest: Dest, source: Source) -> u64 {
        self.next_id += 1;
        self.jobs.push_back(Job {
            id: self.next_id,
            dest,
            source,
            level: 0,
            done: 0,
        });
        self.next_id
    }

    /// Queues `bytes` for `buffer` (from offset 0); returns the job's id.
    pub fn push_buffer(&mut self, buffer: vk::Buffer, bytes: Vec<u8>) -> u64 {
        self.push(Dest::Buffer(buffer), Source::Bytes(bytes))
    }

    /// Queues `mesh`'s packed streams for `buffer` (from offset 0), read from the shared
    /// asset when staged; returns the job's id.
    pub fn push_streams(&mut self, buffer: vk::Buffer, mesh: Arc<MeshAsset>) -> u64 {
        self.push(Dest::Buffer(buffer), Source::Streams(mesh))
    }

    /// Queues `texture` for `image` (RGBA8, the texture's size, one level for the top and
    /// each of its mip chain's, [`Texture::level_count`]), level by level from the top, each
    /// level left in `SHADER_READ_ONLY_OPTIMAL`; returns the job's id (the job leaves the
    /// queue once its last level is staged).
    pub fn push_texture(&mut self, image: vk::Image, texture: Arc<Texture>) -> u64 {
        let (w, h, levels) = (texture.width, texture.height, texture.level_count());
        self.push(Dest::Image(image, w, h, levels), Source::Texture(texture))
    }

    /// Drops a job (its destination is going away).
    pub fn cancel(&mut self, id: u64) {
        self.jobs.retain(|j| j.id != id);
    }

    /// Whether job `id` still has bytes to stage.
    pub fn is_pending(&self, id: u64) -> bool {
        self.jobs.iter().any(|j| j.id == id)
    }

    /// Jobs waiting.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Bytes not yet staged.
    pub fn bytes_left(&self) -> u64 {
        self.jobs.iter().map(Job::bytes_left).sum()
    }

    /// Stages as much as this frame's budget and the ring allow, oldest job first, and
    /// queues the copies on `staging` (recorded by its next flush).
    pub fn pump(&mut self, staging: &mut StagingRing) -> Pumped {
        self.pump_within(staging, None)
    }

    /// [`UploadQueue::pump`], stopping too once `time` has passed since the call began
    /// (checked before each chunk, so a zero time stages nothing): a budget of its own on
    /// top of the ring's.
    pub fn pump_within(&mut self, staging: &mut StagingRing, time: Option<Duration>) -> Pumped {
        let started = Instant::now();
        let mut out = Pumped::default();
        let chunk = CHUNK_BYTES.min((staging.config().capacity / 2).max(StagingRing::ALIGN));
        while let Some(job) = self.jobs.front_mut() {
            if time.is_some_and(|t| started.elapsed() >= t) {
                break;
            }
            let left = staging.budget_left();
            if left == 0 {
                break;
            }
            let bytes = job.source.bytes(job.level);
            let complete = match job.dest {
                Dest::Buffer(buffer) => {
                    let total = bytes.len() as u64;
                    let n = (total - job.done).min(left).min(chunk);
                    let (a, b) = (job.done as usize, (job.done + n) as usize);
                    let Some(slice) = bytes.get(a..b).and_then(|s| staging.stage(s)) else {
                        break;
                    };
                    staging.copy_to_buffer(slice, buffer, job.done);
                    job.done += n;
                    out.bytes += n;
                    job.done >= total
                }
                Dest::Image(image, top_w, top_h, levels) => {
                    let (w, h) = dh_content::mips::level_size(top_w, top_h, job.level);
                    let row = u64::from(w) * 4;
                    let rows_left = u64::from(h) - job.done;
                    // Whole rows; at least one (a row wider than a chunk goes alone).
                    let rows = (left.min(chunk) / row).max(1).min(rows_left);
                    if rows * row > left {
                        break;
                    }
                    let a = (job.done * row) as usize;
                    let b = a + (rows * row) as usize;
                    let Some(slice) = bytes.get(a..b).and_then(|s| staging.stage(s)) else {
                        break;
                    };
                    staging.copy_to_image(
                        slice,
                        ImageUpload {
                            image,
                            aspect: vk::ImageAspectFlags::COLOR,
                            mip_level: job.level,
                            base_layer: 0,
                            layer_count: 1,
                            offset: vk::Offset3D {
                                x: 0,
                                y: job.done as i32,
                                z: 0,
                            },
                            extent: vk::Extent3D {
                                width: w,
                                height: rows as u32,
                                depth: 1,
                            },
                            row_length: 0,
                            // A level's first chunk discards; later ones keep the rows
                            // before.
                            old_layout: if job.done == 0 {
                                vk::ImageLayout::UNDEFINED
                            } else {
                                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                            },
                            new_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                        },
                    );
                    job.done += rows;
                    out.bytes += rows * row;
                    if job.done >= u64::from(h) {
                        job.level += 1;
                        job.done = 0;
                    }
                    job.level >= levels
                }
            };
            if complete {
                self.jobs.pop_front();
                out.finished += 1;
            }
        }
        out
    }
}
