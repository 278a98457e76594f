//! The renderer on lavapipe with validation: a floor, a box casting a shadow, a point
//! light, the sky; every pass runs and the picture shows what the frame describes.

use dh_gpu::render::frame::{
    Ambient, Bloom, BoxInstance, Falloff, Light, LightKind, Lighting, Material, Post, Projection,
    RenderFrame, Shading, Sky, View,
};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::Renderer;
use dh_gpu::testing;
use glam::{Quat, Vec3};

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

fn yaw_pitch(yaw: f32, pitch: f32) -> Quat {
    // yaw about +Y, then pitch about the local X.
    let (sy, cy) = (yaw.to_radians() * 0.5).sin_cos();
    let (sp, cp) = (pitch.to_radians() * 0.5).sin_cos();
    Quat::from_xyzw(cy * sp, sy * cp, -sy * sp, cy * cp)
}

pub fn scene() -> (RenderFrame, View) {
    let frame = RenderFrame {
        materials: vec![
            lit(Vec3::new(0.5, 0.5, 0.5)),
            lit(Vec3::new(0.9, 0.3, 0.1)),
            Material::missing(),
        ],
        static_boxes: vec![
            BoxInstance {
                position: Vec3::new(0.0, -0.25, 0.0),
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                size: Vec3::new(20.0, 0.5, 20.0),
                material: 0,
            },
            BoxInstance {
                position: Vec3::new(-3.0, 0.5, -2.0),
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                size: Vec3::new(1.0, 1.0, 1.0),
                material: 2,
            },
        ],
        live_boxes: vec![BoxInstance {
            position: Vec3::new(0.0, 1.0, -3.0),
            rotation: Quat::from_xyzw(0.0, 0.3826834, 0.0, 0.9238795),
            size: Vec3::new(2.0, 2.0, 2.0),
            material: 1,
        }],
        lights: vec![Light {
            kind: LightKind::Point,
            position: Vec3::new(3.0, 1.0, 0.0),
            direction: Vec3::new(0.0, -1.0, 0.0),
            radiance: Vec3::new(20.0, 15.0, 8.0),
            range: 6.0,
            falloff: Falloff::Physical,
            inner_cone: 0.5,
            outer_cone: 0.8,
        }],
        lighting: Lighting {
            sun_direction: Vec3::new(-0.35, -0.85, -0.4),
            sun_radiance: Vec3::splat(1.0),
            ambient: Ambient::Sky { intensity: 0.35 },
            sky: Some(Sky::default()),
            ..Lighting::default()
        },
        post: Post {
            exposure: 1.0,
            tonemap: Tonemap::ReinhardWhite,
            hable: Hable::PUBLISHED,
            bloom: Some(Bloom::default()),
        },
        ..RenderFrame::default()
    };
    let view = View {
        position: Vec3::new(0.0, 3.0, 6.0),
        rotation: yaw_pitch(0.0, -20.0),
        projection: Projection::Perspective { fov_y: 60.0 },
        near: 0.05,
        far: None,
    };
    (frame, view)
}

#[test]
fn renders_a_lit_scene_without_validation_errors() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (frame, view) = scene();
        let out = r
            .render(&frame, &view, 320, 180)
            .unwrap_or_else(|e| panic!("{e}"));
        if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
            let _ = out
                .image
                .write_png(&std::path::Path::new(&dir).join("smoke.png"));
        }
        // The sky at the top is blue-ish, the floor below is gray-ish and lit.
        let top = out.image.pixel(160, 2).unwrap_or([0; 4]);
        assert!(top[2] > top[0], "sky {top:?}");
        let floor = out.image.pixel(160, 170).unwrap_or([0; 4]);
        assert!(floor[0] > 40, "floor {floor:?}");
        assert_eq!(out.lights, 1);
    }
    testing::finish(gpu);
}

#[test]
fn each_light_source_shows_in_the_picture() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (frame, view) = scene();
        let luma = |img: &dh_gpu::RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32| -> f64 {
            let mut s = 0.0;
            for y in y0..y1 {
                for x in x0..x1 {
                    let p = img.pixel(x, y).unwrap_or([0; 4]);
                    s += f64::from(p[0]) + f64::from(p[1]) + f64::from(p[2]);
                }
            }
            s / f64::from((x1 - x0) * (y1 - y0) * 3)
        };
        let mut shot = |f: &RenderFrame| {
            r.render(f, &view, 320, 180)
                .unwrap_or_else(|e| panic!("{e}"))
                .image
        };
        let all = shot(&frame);
        // The point light's pool on the floor (right of center, near the camera).
        let mut no_light = frame.clone();
        no_light.lights.clear();
        let dark = shot(&no_light);
        assert!(luma(&all, 200, 120, 280, 170) > luma(&dark, 200, 120, 280, 170) + 15.0);
        // The sun: without it the floor away from the lamp is far darker (only the lamp).
        let mut no_sun = frame.clone();
        no_sun.lighting.sun_radiance = Vec3::splat(0.0);
        let night = shot(&no_sun);
        assert!(luma(&dark, 20, 140, 80, 175) > luma(&night, 20, 140, 80, 175) + 40.0);
        // Bloom off is exactly the pre-bloom image: no glow around the missing checker.
        let mut no_bloom = frame.clone();
        no_bloom.post.bloom = None;
        let crisp = shot(&no_bloom);
        assert!(luma(&all, 60, 60, 80, 70) > luma(&crisp, 60, 60, 80, 70));
        if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
            for (n, i) in [
                ("all", &all),
                ("nolight", &dark),
                ("nosun", &night),
                ("nobloom", &crisp),
            ] {
                let _ = i.write_png(&std::path::Path::new(&dir).join(format!("smoke-{n}.png")));
            }
        }
    }
    testing::finish(gpu);
}
