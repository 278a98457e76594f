//! The renderer's frame loop on lavapipe with validation: at most two frames in flight,
//! uploads through the staging ring under its per-frame budget (what does not fit waits, the
//! frame still goes out), the static batch kept across frames and rebuilt only when its
//! generation changes (the old one retired through deferred destruction), passes recorded on
//! two threads matching one, and per-pass timestamps that resolve frames later.

use std::time::Duration;

use dh_gpu::render::frame::{
    BoxInstance, Falloff, Light, LightKind, Lighting, Material, Post, Projection, RenderFrame,
    Shading, View,
};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::{Renderer, RendererDesc, ScopedThreads, Serial};
use dh_gpu::{testing, StagingConfig};
use glam::{Quat, Vec3};

const W: u32 = 160;
const H: u32 = 90;

fn lit(c: Vec3) -> Material {
    Material {
        shading: Shading::Lit,
        base_color: c,
        uv_scale: [1.0, 1.0],
        emissive: Vec3::splat(0.0),
        base_color_texture: None,
        ..Material::default()
    }
}

/// A floor, a `n × n` grid of static boxes in four materials, one live box and a lamp.
fn city(n: usize) -> (RenderFrame, View) {
    let mut static_boxes = vec![BoxInstance {
        position: Vec3::new(0.0, -0.25, 0.0),
        rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
        size: Vec3::new(60.0, 0.5, 60.0),
        material: 0,
    }];
    for i in 0..n {
        for j in 0..n {
            static_boxes.push(BoxInstance {
                position: Vec3::new(
                    i as f32 * 2.0 - n as f32,
                    0.5 + (i + j) as f32 % 3.0 * 0.25,
                    -(j as f32) * 2.0,
                ),
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                size: Vec3::new(1.0, 1.0 + (i * j % 3) as f32 * 0.5, 1.0),
                material: 1 + ((i + j) % 3) as u32,
            });
        }
    }
    let frame = RenderFrame {
        materials: vec![
            lit(Vec3::new(0.5, 0.5, 0.5)),
            lit(Vec3::new(0.8, 0.3, 0.2)),
            lit(Vec3::new(0.2, 0.6, 0.3)),
            lit(Vec3::new(0.2, 0.3, 0.8)),
        ],
        static_boxes,
        live_boxes: vec![BoxInstance {
            position: Vec3::new(0.0, 1.0, 3.0),
            rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
            size: Vec3::new(1.0, 1.0, 1.0),
            material: 1,
        }],
        lights: vec![Light {
            kind: LightKind::Point,
            position: Vec3::new(2.0, 1.5, 2.0),
            direction: Vec3::new(0.0, -1.0, 0.0),
            radiance: Vec3::new(10.0, 8.0, 6.0),
            range: 8.0,
            falloff: Falloff::Physical,
            inner_cone: 0.5,
            outer_cone: 0.8,
        }],
        lighting: Lighting::default(),
        post: Post {
            exposure: 1.0,
            tonemap: Tonemap::ReinhardWhite,
            hable: Hable::PUBLISHED,
            bloom: None,
        },
        static_generation: 7,
        ..RenderFrame::default()
    };
    let view = View {
        position: Vec3::new(0.0, 6.0, 10.0),
        rotation: Quat::from_xyzw(-0.258_819, 0.0, 0.0, 0.965_925_8),
        projection: Projection::Perspective { fov_y: 60.0 },
        near: 0.1,
        far: None,
    };
    (frame, view)
}

fn draws_of(frame: &RenderFrame) -> usize {
    let mut materials: Vec<u32> = frame.static_boxes.iter().map(|b| b.material).collect();
    materials.sort_unstable();
    materials.dedup();
    materials.len() + frame.live_boxes.len()
}

#[test]
fn more_than_two_frames_in_flight_are_refused() {
    let gpu = testing::test_gpu();
    {
        let desc = RendererDesc {
            frames_in_flight: 3,
            ..RendererDesc::default()
        };
        assert!(Renderer::with_desc(&gpu, &desc).is_err());
    }
    testing::finish(gpu);
}

#[test]
fn uploads_wait_for_later_frames_under_the_budget() {
    let gpu = testing::test_gpu();
    {
        let budget = 32 << 10;
        let desc = RendererDesc {
            staging: StagingConfig {
                capacity: 1 << 20,
                frame_byte_budget: budget,
                frame_time_budget: Duration::from_secs(1),
            },
            ..RendererDesc::default()
        };
        let mut r = Renderer::with_desc(&gpu, &desc).unwrap_or_else(|e| panic!("{e}"));
        let (frame, view) = city(12);
        let all = draws_of(&frame);
        let mut left = Vec::new();
        let mut frames = 0;
        loop {
            let rep = r
                .render_frame(&frame, &view, W, H, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(rep.uploaded <= budget, "{} > {budget}", rep.uploaded);
            left.push(rep.upload_bytes_left);
            frames += 1;
            if rep.skipped_draws == 0 {
                assert_eq!(rep.draws, all);
                break;
            }
            assert!(
                rep.draws < all,
                "a draw whose geometry is not resident is skipped"
            );
            assert!(frames < 200, "the uploads never finish: {left:?}");
        }
        assert!(
            frames > 5,
            "the batch took {frames} frames at 32 KB a frame"
        );
        assert!(
            left.windows(2).all(|w| w[1] < w[0] || w[1] == 0),
            "{left:?}"
        );
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}

#[test]
fn the_static_batch_is_kept_until_its_generation_changes() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (mut frame, view) = city(6);
        let first = r
            .render_frame(&frame, &view, W, H, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(first.static_rebuilt && first.uploaded > 0);
        for i in 0..4 {
            // The live box moves; its mesh stays, and nothing else is uploaded.
            frame.live_boxes[0].position[0] = i as f32 * 0.5;
            let rep = r
                .render_frame(&frame, &view, W, H, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(!rep.static_rebuilt);
            assert_eq!(rep.uploaded, 0, "frame {i}: only the frame's own data");
            assert_eq!(rep.draws, draws_of(&frame));
        }
        assert_eq!(r.static_builds(), 1);
        frame.static_boxes.pop();
        frame.static_generation += 1;
        let before = gpu.deferred_len();
        let rep = r
            .render_frame(&frame, &view, W, H, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(rep.static_rebuilt && rep.uploaded > 0);
        assert_eq!(r.static_builds(), 2);
        assert!(
            gpu.deferred_len() > before,
            "the old batch waits for the frames that read it"
        );
        r.finish().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gpu.deferred_len(), 0, "freed once the GPU is done");
    }
    testing::finish(gpu);
}

#[test]
fn two_recording_threads_draw_what_one_draws() {
    let gpu = testing::test_gpu();
    {
        let (frame, view) = city(6);
        let one = RendererDesc {
            workers: 1,
            ..RendererDesc::default()
        };
        let mut serial = Renderer::with_desc(&gpu, &one).unwrap_or_else(|e| panic!("{e}"));
        let a = serial
            .render_with(&frame, &view, W, H, &Serial)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut parallel = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let b = parallel
            .render_with(&frame, &view, W, H, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        let rep = parallel
            .render_frame(&frame, &view, W, H, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rep.workers, 2);
        let diff = dh_gpu::render::compare::compare(&a.image, &b.image)
            .unwrap_or_else(|| panic!("sizes differ"));
        assert!(diff.max <= 1.0 / 255.0, "{diff:?}");
        assert_eq!(a.draws, b.draws);
        parallel.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}

#[test]
fn pass_times_resolve_two_frames_later() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.has_timings(), "lavapipe has timestamps");
        let (frame, view) = city(4);
        let mut got = Vec::new();
        for n in 0..5u64 {
            let rep = r
                .render_frame(&frame, &view, W, H, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rep.frame, n);
            if let Some((f, list)) = rep.resolved {
                assert_eq!(f + 2, n, "a slot's times come back when the slot is reused");
                got.push((f, list));
            }
        }
        got.extend(r.finish().unwrap_or_else(|e| panic!("{e}")));
        let frames: Vec<u64> = got.iter().map(|(f, _)| *f).collect();
        assert_eq!(frames, vec![0, 1, 2, 3, 4]);
        for (_, list) in &got {
            let names: Vec<&str> = list.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "upload",
                    "shadows",
                    "depth prepass",
                    "opaque + sky",
                    "resolve"
                ]
            );
            assert!(list.iter().all(|t| t.ms.is_finite() && t.ms >= 0.0));
        }
    }
    testing::finish(gpu);
}
