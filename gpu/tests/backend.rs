//! The Vulkan backend on Mesa lavapipe with the Khronos validation layer, with its
//! synchronization validation on: every test ends with `testing::finish`, which fails
//! on any error-severity message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dh_gpu::testing;
use dh_gpu::{
    shaders, vk, BufferDesc, CaptureTarget, ColorTarget, CommandPool, DeviceKind, DeviceSelector,
    FrameRing, Gpu, GpuDesc, GpuError, GpuTimer, GraphicsPipelineDesc, MemoryLocation, Pipeline,
    PipelineLayout, PipelineLayoutDesc, RenderingFormats, Retired, RgbaImage, ShaderEntry,
    StagingConfig, StagingRing, Timeline, Validation, CAPTURE_FORMAT,
};

const MINUTE: Duration = Duration::from_secs(60);

/// Lavapipe, validation and synchronization validation.
fn test_gpu() -> Gpu {
    testing::lavapipe_env();
    Gpu::new(&GpuDesc {
        app_name: "dh-gpu backend tests".to_owned(),
        validation: Validation::Required,
        sync_validation: true,
        ..GpuDesc::default()
    })
    .unwrap_or_else(|e| panic!("cannot create the test device: {e}"))
}

fn srgb_encode(linear: f32) -> f32 {
    if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

fn srgb_byte(linear: f32) -> u8 {
    (srgb_encode(linear.clamp(0.0, 1.0)) * 255.0).round() as u8
}

fn out_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// UNDEFINED → COLOR_ATTACHMENT_OPTIMAL.
fn to_color_attachment(gpu: &Gpu, cmd: vk::CommandBuffer, target: &CaptureTarget) {
    let barrier = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::NONE)
        .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
        .dst_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(target.image().raw())
        .subresource_range(target.image().full_range())];
    // SAFETY: `cmd` is recording; the image is live.
    unsafe {
        gpu.device().cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().image_memory_barriers(&barrier),
        )
    };
}

fn begin_rendering(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    target: &CaptureTarget,
    flags: vk::RenderingFlags,
) {
    let extent = target.extent();
    let color = [vk::RenderingAttachmentInfo::default()
        .image_view(target.image().view())
        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue {
            color: vk::ClearColorValue {
                float32: [0.0, 0.0, 0.0, 1.0],
            },
        })];
    let info = vk::RenderingInfo::default()
        .flags(flags)
        .render_area(vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        })
        .layer_count(1)
        .color_attachments(&color);
    // SAFETY: `cmd` is recording, the view is in COLOR_ATTACHMENT_OPTIMAL.
    unsafe { gpu.device().cmd_begin_rendering(cmd, &info) };
}

fn gradient_pipeline(gpu: &Gpu) -> Pipeline {
    let layout = PipelineLayout::new(
        gpu,
        &PipelineLayoutDesc {
            name: "fullscreen test",
            push_constants: vec![vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::FRAGMENT,
                offset: 0,
                size: 8,
            }],
            ..Default::default()
        },
    )
    .expect("layout");
    let mut desc = GraphicsPipelineDesc::new(
        "fullscreen test",
        &layout,
        ShaderEntry::new(&shaders::FULLSCREEN_TEST, "vs_main"),
        Some(ShaderEntry::new(&shaders::FULLSCREEN_TEST, "fs_main")),
    );
    desc.color_targets.push(ColorTarget {
        format: CAPTURE_FORMAT,
        blend: None,
    });
    Pipeline::graphics(gpu, &desc).expect("pipeline")
}

/// Binds the gradient pipeline, full viewport, `scissor`, blue = `blue`, and draws.
fn draw_gradient(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    pipeline: &Pipeline,
    extent: vk::Extent2D,
    scissor: vk::Rect2D,
    blue: f32,
) {
    pipeline.bind(cmd);
    let viewport = vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: extent.width as f32,
        height: extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let push = [blue, 1.0f32];
    // SAFETY: `cmd` is recording inside a rendering pass compatible with the pipeline.
    unsafe {
        let d = gpu.device();
        d.cmd_set_viewport(cmd, 0, &[viewport]);
        d.cmd_set_scissor(cmd, 0, &[scissor]);
        d.cmd_push_constants(
            cmd,
            pipeline.layout().raw(),
            vk::ShaderStageFlags::FRAGMENT,
            0,
            bytemuck::bytes_of(&push),
        );
        d.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

/// Mean and 99th-percentile absolute channel error against `expected(x, y)`.
fn image_error(image: &RgbaImage, expected: impl Fn(u32, u32) -> [u8; 4]) -> (f64, u8) {
    let mut errors = Vec::with_capacity(image.pixels.len());
    for y in 0..image.height {
        for x in 0..image.width {
            let got = image.pixel(x, y).expect("in range");
            let want = expected(x, y);
            for c in 0..4 {
                errors.push(got[c].abs_diff(want[c]));
            }
        }
    }
    let mean = errors.iter().map(|&e| f64::from(e)).sum::<f64>() / errors.len() as f64;
    errors.sort_unstable();
    let p99 = errors[(errors.len() * 99 / 100).min(errors.len() - 1)];
    (mean, p99)
}

fn gradient_expected(
    width: u32,
    height: u32,
    blue: impl Fn(u32) -> f32,
) -> impl Fn(u32, u32) -> [u8; 4] {
    move |x, y| {
        [
            srgb_byte((x as f32 + 0.5) / width as f32),
            srgb_byte((y as f32 + 0.5) / height as f32),
            srgb_byte(blue(x)),
            255,
        ]
    }
}

#[test]
fn device_creation_selects_lavapipe_and_logs_features() {
    let gpu = test_gpu();
    let report = gpu.report();
    let text = report.to_string();
    println!("{text}");
    let selected = &report.adapters[report.selected];
    assert_eq!(selected.kind, DeviceKind::Cpu, "{text}");
    assert!(selected.name.contains("llvmpipe"), "{text}");
    assert!(selected.rejected.is_none());
    let f = gpu.features();
    assert!(f.validation && f.debug_utils, "{text}");
    assert!(f.timestamps, "lavapipe has timestamps: {text}");
    assert!(!report.heaps.is_empty());
    for needle in [
        "selected",
        "buffer device address",
        "descriptor indexing",
        "memory budget",
        "async transfer queue",
    ] {
        assert!(text.contains(needle), "report lacks {needle:?}: {text}");
    }
    assert_eq!(gpu.last_submitted(), 0);
    assert_eq!(gpu.completed_value().expect("counter"), 0);

    // Overrides by name and index pick the same device; a bad name says what exists.
    for selector in [
        DeviceSelector::Name("LLVMPIPE".into()),
        DeviceSelector::Index(selected.index),
    ] {
        let other = Gpu::new(&GpuDesc {
            device: selector,
            validation: Validation::Required,
            ..GpuDesc::default()
        })
        .expect("override");
        assert_eq!(other.report().selected, report.selected);
        testing::finish(other);
    }
    let err = Gpu::new(&GpuDesc {
        device: DeviceSelector::Name("no such device".into()),
        ..GpuDesc::default()
    })
    .expect_err("no match");
    assert!(matches!(err, GpuError::DeviceNotFound { .. }), "{err}");
    assert!(err.to_string().contains("llvmpipe"), "{err}");
    testing::finish(gpu);
}

#[test]
fn staging_ring_refuses_past_budget_and_wraps_around() {
    let gpu = test_gpu();
    let mut ring = StagingRing::new(
        &gpu,
        StagingConfig {
            capacity: 1024,
            frame_byte_budget: 512,
            frame_time_budget: MINUTE,
        },
    )
    .expect("ring");
    let dst = gpu
        .create_buffer(&BufferDesc {
            name: "staging dst",
            size: 2048,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        })
        .expect("dst");
    let gate = Timeline::new(&gpu, 0, "gate").expect("gate");
    let mut pool = CommandPool::new(&gpu, "staging test").expect("pool");
    let bytes =
        |seed: u8, n: usize| -> Vec<u8> { (0..n).map(|i| seed.wrapping_add(i as u8)).collect() };

    // Frame 1: the byte budget refuses the third stage; the time budget is not hit.
    ring.begin_frame(gpu.completed_value().expect("value"));
    let a = ring.stage(&bytes(1, 384)).expect("a fits");
    assert_eq!(a.offset, 0);
    assert!(ring.stage(&bytes(2, 129)).is_none(), "512-byte budget");
    assert_eq!(ring.stats().refused, 1);
    assert_eq!(ring.stats().bytes, 384);
    ring.copy_to_buffer(a, dst.raw(), 0);
    let cmd = pool.begin_primary().expect("cmd");
    assert_eq!(ring.flush(&gpu, cmd), 1);
    pool.end(cmd).expect("end");
    let v1 = gpu
        .submit(
            &[cmd],
            &[gate.wait_info(1, vk::PipelineStageFlags2::ALL_COMMANDS)],
        )
        .expect("submit 1");
    ring.submitted(v1);

    // Frame 2: frame 1 still holds [0, 384); this one takes [384, 768).
    ring.begin_frame(gpu.completed_value().expect("value"));
    let b = ring.stage(&bytes(3, 384)).expect("b fits");
    assert_eq!(b.offset, 384);
    ring.copy_to_buffer(b, dst.raw(), 512);
    let cmd = pool.begin_primary().expect("cmd");
    ring.flush(&gpu, cmd);
    pool.end(cmd).expect("end");
    let v2 = gpu
        .submit(
            &[cmd],
            &[gate.wait_info(2, vk::PipelineStageFlags2::ALL_COMMANDS)],
        )
        .expect("submit 2");
    ring.submitted(v2);

    // Frame 3: 256 bytes left at the end, nothing free at the start: refused.
    ring.begin_frame(gpu.completed_value().expect("value"));
    assert!(
        ring.stage(&bytes(4, 384)).is_none(),
        "ring full while frames 1-2 run"
    );
    assert_eq!(ring.used(), 768);

    // Frame 1 completes: its space returns and the next stage wraps to offset 0.
    gate.signal(1).expect("signal");
    gpu.wait_for(v1, MINUTE).expect("v1");
    assert!(gpu.completed_value().expect("value") < v2);
    ring.begin_frame(gpu.completed_value().expect("value"));
    let c = ring.stage(&bytes(5, 384)).expect("wraps");
    assert_eq!(c.offset, 0, "wrapped to the start");
    ring.copy_to_buffer(c, dst.raw(), 1024);
    let cmd = pool.begin_primary().expect("cmd");
    ring.flush(&gpu, cmd);
    pool.end(cmd).expect("end");
    let v3 = gpu.submit(&[cmd], &[]).expect("submit 3");
    ring.submitted(v3);
    gate.signal(2).expect("signal");
    gpu.wait_for(v3, MINUTE).expect("v3");

    let got = dst.mapped_slice().expect("mapped");
    assert_eq!(&got[..384], &bytes(1, 384)[..]);
    assert_eq!(&got[512..896], &bytes(3, 384)[..]);
    assert_eq!(&got[1024..1408], &bytes(5, 384)[..], "the wrapped copy");

    // A spent time budget refuses everything.
    ring.begin_frame(gpu.completed_value().expect("value"));
    assert_eq!(ring.used(), 0);
    ring.set_budgets(512, Duration::ZERO);
    assert!(ring.stage(&bytes(6, 16)).is_none(), "time budget");
    ring.set_budgets(512, MINUTE);
    assert!(ring.stage(&bytes(6, 16)).is_some());

    drop((ring, dst, gate, pool));
    testing::finish(gpu);
}

#[test]
fn deferred_destruction_frees_only_after_the_value_is_reached() {
    let gpu = test_gpu();
    let gate = Timeline::new(&gpu, 0, "gate").expect("gate");
    let buffer = gpu
        .create_buffer(&BufferDesc {
            name: "in use",
            size: 256,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuOnly,
        })
        .expect("buffer");
    let mut pool = CommandPool::new(&gpu, "deferred test").expect("pool");
    let cmd = pool.begin_primary().expect("cmd");
    // SAFETY: recording; the buffer is live until retired below.
    unsafe {
        gpu.device()
            .cmd_fill_buffer(cmd, buffer.raw(), 0, vk::WHOLE_SIZE, 7)
    };
    pool.end(cmd).expect("end");
    let v = gpu
        .submit(
            &[cmd],
            &[gate.wait_info(1, vk::PipelineStageFlags2::ALL_COMMANDS)],
        )
        .expect("submit");
    assert_eq!(gpu.last_submitted(), v);

    let freed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&freed);
    gpu.retire(
        v,
        Retired::Custom(Box::new(move |_| flag.store(true, Ordering::SeqCst))),
    );
    drop(buffer); // retired against v + 1, the next submit
    let before = gpu.deferred_len();
    assert_eq!(
        gpu.collect_garbage().expect("collect"),
        0,
        "the GPU still waits on the gate"
    );
    assert!(!freed.load(Ordering::SeqCst));
    assert_eq!(gpu.deferred_len(), before);
    assert!(gpu.completed_value().expect("value") < v);

    gate.signal(1).expect("signal");
    gpu.wait_for(v, MINUTE).expect("wait");
    let n = gpu.collect_garbage().expect("collect");
    assert!(n >= 1, "the item retired at {v} goes");
    assert!(freed.load(Ordering::SeqCst));
    assert!(
        gpu.deferred_len() >= 1,
        "the buffer waits for the next submit"
    );

    let v2 = gpu.submit(&[], &[]).expect("empty submit");
    assert_eq!(v2, v + 1, "one value per submit");
    gpu.wait_for(v2, MINUTE).expect("wait");
    gpu.collect_garbage().expect("collect");
    drop((gate, pool));
    assert!(
        gpu.deferred_len() >= 2,
        "gate and pool retired against the next value"
    );
    testing::finish(gpu);
}

#[test]
fn parallel_recording_on_two_threads() {
    let gpu = test_gpu();
    let target = CaptureTarget::new(&gpu, 64, 32, "parallel").expect("target");
    let pipeline = gradient_pipeline(&gpu);
    let mut frames = FrameRing::new(&gpu, 2, 2).expect("ring");
    let extent = target.extent();
    let formats = RenderingFormats {
        color: vec![CAPTURE_FORMAT],
        ..Default::default()
    };
    let blues = [0.25f32, 0.75];
    let mut last = None;
    for _ in 0..3 {
        let mut frame = frames.begin_frame().expect("frame");
        let (main_pool, worker_pool) = frame.pools().split_at_mut(1);
        let main_pool = &mut main_pool[0];
        let worker_pool = &mut worker_pool[0];
        let primary = main_pool.begin_primary().expect("primary");
        to_color_attachment(&gpu, primary, &target);
        begin_rendering(
            &gpu,
            primary,
            &target,
            vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS,
        );
        // Worker 0 draws the left half, worker 1 the right half, each on its own
        // thread with its own pool.
        let record = |pool: &mut CommandPool, half: u32| -> vk::CommandBuffer {
            let cmd = pool.begin_secondary(&formats).expect("secondary");
            let scissor = vk::Rect2D {
                offset: vk::Offset2D {
                    x: (half * extent.width / 2) as i32,
                    y: 0,
                },
                extent: vk::Extent2D {
                    width: extent.width / 2,
                    height: extent.height,
                },
            };
            gpu.cmd_begin_label(cmd, if half == 0 { "left" } else { "right" });
            draw_gradient(&gpu, cmd, &pipeline, extent, scissor, blues[half as usize]);
            gpu.cmd_end_label(cmd);
            pool.end(cmd).expect("end");
            cmd
        };
        let (left, right) = std::thread::scope(|s| {
            let worker = s.spawn(|| record(worker_pool, 1));
            let left_thread = s.spawn(|| {
                // The main pool records on another thread too: both pools are Send.
                record(main_pool, 0)
            });
            (
                left_thread.join().expect("left"),
                worker.join().expect("right"),
            )
        });
        let cmd = frames_primary_finish(&gpu, primary, &[left, right], &target);
        frame.pool(0).expect("pool").end(cmd).expect("end");
        let value = frame.submit(&[cmd], &[]).expect("submit");
        last = Some(value);
    }
    gpu.wait_for(last.expect("submitted"), MINUTE)
        .expect("wait");
    let image = target.read().expect("read");
    image.write_png(&out_path("parallel.png")).expect("png");
    let half = extent.width / 2;
    let expected = gradient_expected(extent.width, extent.height, |x| blues[(x >= half) as usize]);
    let (mean, p99) = image_error(&image, expected);
    assert!(mean < 1.0 && p99 <= 2, "mean {mean}, p99 {p99}");
    drop((target, pipeline, frames));
    testing::finish(gpu);
}

/// Executes the secondaries, ends rendering and records the readback.
fn frames_primary_finish(
    gpu: &Gpu,
    primary: vk::CommandBuffer,
    secondaries: &[vk::CommandBuffer],
    target: &CaptureTarget,
) -> vk::CommandBuffer {
    // SAFETY: `primary` is recording inside a pass begun with secondary contents.
    unsafe {
        gpu.device().cmd_execute_commands(primary, secondaries);
        gpu.device().cmd_end_rendering(primary);
    }
    target.record_readback(
        gpu,
        primary,
        vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
        vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
    );
    primary
}

#[test]
fn clear_capture_writes_an_srgb_png() {
    let gpu = test_gpu();
    let target = CaptureTarget::new(&gpu, 16, 8, "clear").expect("target");
    let linear = [0.5f32, 0.25, 1.0, 1.0];
    gpu.immediate(|gpu, cmd| {
        let range = target.image().full_range();
        let barrier = [vk::ImageMemoryBarrier2::default()
            .dst_stage_mask(vk::PipelineStageFlags2::CLEAR)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(target.image().raw())
            .subresource_range(range)];
        // SAFETY: recording; the image is live and moved to TRANSFER_DST first.
        unsafe {
            gpu.device().cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&barrier),
            );
            gpu.device().cmd_clear_color_image(
                cmd,
                target.image().raw(),
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue { float32: linear },
                &[range],
            );
        }
        target.record_readback(
            gpu,
            cmd,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::PipelineStageFlags2::CLEAR,
            vk::AccessFlags2::TRANSFER_WRITE,
        );
        Ok(())
    })
    .expect("clear");
    let image = target.read().expect("read");
    let path = out_path("clear.png");
    image.write_png(&path).expect("write");

    let file = std::fs::File::open(&path).expect("open");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("png header");
    assert!(reader.info().srgb.is_some(), "the PNG has an sRGB chunk");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!((info.width, info.height), (16, 8));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let want = [srgb_byte(0.5), srgb_byte(0.25), 255, 255];
    assert_eq!(want, [188, 137, 255, 255]);
    for px in buf[..info.buffer_size()].chunks_exact(4) {
        for c in 0..4 {
            assert!(px[c].abs_diff(want[c]) <= 1, "pixel {px:?}, want {want:?}");
        }
    }
    drop(target);
    testing::finish(gpu);
}

#[test]
fn fullscreen_gradient_matches_within_tolerance() {
    let gpu = test_gpu();
    let target = CaptureTarget::new(&gpu, 64, 48, "gradient").expect("target");
    let pipeline = gradient_pipeline(&gpu);
    let mut frames = FrameRing::new(&gpu, 2, 1).expect("ring");
    let mut timer = GpuTimer::new(&gpu, 2, 4)
        .expect("timer")
        .expect("lavapipe has timestamps");
    let extent = target.extent();
    let mut timings = Vec::new();
    for _ in 0..4 {
        let mut frame = frames.begin_frame().expect("frame");
        if let Some(t) = timer.begin_frame(frame.slot()).expect("timings") {
            timings.push(t);
        }
        let pass = timer.pass("gradient");
        let pool = frame.pool(0).expect("pool");
        let cmd = pool.begin_primary().expect("cmd");
        gpu.cmd_begin_label_color(cmd, "gradient", [1.0, 0.5, 0.0, 1.0]);
        if let Some(p) = &pass {
            p.begin(&gpu, cmd);
        }
        to_color_attachment(&gpu, cmd, &target);
        begin_rendering(&gpu, cmd, &target, vk::RenderingFlags::empty());
        let full = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        };
        draw_gradient(&gpu, cmd, &pipeline, extent, full, 0.5);
        // SAFETY: recording inside the pass begun above.
        unsafe { gpu.device().cmd_end_rendering(cmd) };
        if let Some(p) = &pass {
            p.end(&gpu, cmd);
        }
        gpu.cmd_end_label(cmd);
        target.record_readback(
            &gpu,
            cmd,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
        );
        pool.end(cmd).expect("end");
        let value = frame.submit(&[cmd], &[]).expect("submit");
        timer.submitted(value);
    }
    gpu.wait_idle().expect("idle");
    let image = target.read().expect("read");
    image.write_png(&out_path("gradient.png")).expect("png");
    let (mean, p99) = image_error(
        &image,
        gradient_expected(extent.width, extent.height, |_| 0.5),
    );
    assert!(mean < 1.0 && p99 <= 2, "mean {mean}, p99 {p99}");
    // Corners: top-left dark red/green, bottom-right bright (no Y flip).
    let tl = image.pixel(0, 0).expect("pixel");
    let br = image.pixel(63, 47).expect("pixel");
    assert!(
        tl[0] < 40 && tl[1] < 40 && br[0] > 250 && br[1] > 250,
        "{tl:?} {br:?}"
    );

    // Timestamps come back frames later; lavapipe's are CPU time, so smoke only.
    assert!(timings.len() >= 2, "frames 0 and 1 read back: {timings:?}");
    for t in timings.iter().flatten() {
        assert_eq!(t.name, "gradient");
        assert!(t.ms.is_finite() && t.ms >= 0.0, "{t:?}");
    }
    drop((target, pipeline, frames, timer));
    testing::finish(gpu);
}

#[test]
fn validation_errors_are_collected() {
    let gpu = test_gpu();
    let log = gpu.validation_log();
    let info = vk::BufferCreateInfo::default()
        .size(64)
        .usage(vk::BufferUsageFlags::empty())
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: deliberately invalid (no usage bits) to provoke the layer; the driver
    // accepts it and the buffer is destroyed at once, unused.
    unsafe {
        if let Ok(buffer) = gpu.device().create_buffer(&info, None) {
            gpu.device().destroy_buffer(buffer, None);
        }
    }
    let errors = log.errors();
    assert!(
        errors
            .iter()
            .any(|e| e.id.contains("VkBufferCreateInfo-usage")),
        "the layer's error reached the log: {errors:?}"
    );
    assert!(log.check().is_err());
    let caught = std::panic::catch_unwind(|| testing::assert_no_validation_errors(&log));
    assert!(caught.is_err(), "the test helper fails on it");
    drop(gpu);
}

#[test]
fn sync_validation_reports_a_missing_barrier() {
    let gpu = test_gpu();
    let log = gpu.validation_log();
    let buffer = gpu
        .create_buffer(&BufferDesc {
            name: "hazard",
            size: 256,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuOnly,
        })
        .expect("buffer");
    gpu.immediate(|gpu, cmd| {
        // SAFETY: recording; two transfer writes to one buffer with no barrier
        // between them: a write-after-write hazard on purpose.
        unsafe {
            gpu.device().cmd_fill_buffer(cmd, buffer.raw(), 0, 256, 1);
            gpu.device().cmd_fill_buffer(cmd, buffer.raw(), 0, 256, 2);
        }
        Ok(())
    })
    .expect("submit");
    let errors = log.errors();
    assert!(
        errors.iter().any(|e| e.id.contains("SYNC-HAZARD")),
        "synchronization validation is on: {errors:?}"
    );
    drop(buffer);
    drop(gpu);
}

/// Run by `missing_driver_error_names_the_packages` in a child process whose
/// environment points the loader at no driver.
#[test]
#[ignore = "run in a child process by missing_driver_error_names_the_packages"]
fn child_without_a_driver() {
    let err = Gpu::new(&GpuDesc::default()).expect_err("no driver, no device");
    println!("CHILD-ERROR: {err}");
}

#[test]
fn missing_driver_error_names_the_packages() {
    let exe = std::env::current_exe().expect("test binary");
    let missing = out_path("no-such-icd.json");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "child_without_a_driver",
            "--ignored",
            "--nocapture",
        ])
        .env("VK_DRIVER_FILES", &missing)
        .env("VK_ICD_FILENAMES", &missing)
        .env_remove("VK_ADD_DRIVER_FILES")
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("CHILD-ERROR: "))
        .unwrap_or_else(|| panic!("child printed no error: {stdout}"));
    assert!(line.contains("libvulkan1 mesa-vulkan-drivers"), "{line}");
}
