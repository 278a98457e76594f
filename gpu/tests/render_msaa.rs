//! Multisampling on lavapipe with validation (`client.render.msaa`, ours: 1, 2, 4 or 8, default
//! 4): the forward passes draw into a multisampled HDR frame that is resolved before bloom and
//! the tonemap, so a capture's silhouette edges carry blended pixels; at one sample they are
//! stair-stepped, every pixel either the surface or the background.

use dh_gpu::render::frame::{
    Ambient, BoxInstance, Lighting, Material, Post, Projection, RenderFrame, Shading, View,
};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::{msaa_samples, Renderer, RendererDesc, DEFAULT_MSAA};
use dh_gpu::{testing, RgbaImage};
use glam::{Quat, Vec3};

const W: u32 = 96;
const H: u32 = 64;

/// One unlit white box turned 30° about the view axis on a black clear color, no sun, no
/// fill, no curve, no bloom: a covered pixel is 255, an uncovered one 0, and only coverage
/// can put anything in between.
fn tilted_box() -> (RenderFrame, View) {
    let frame = RenderFrame {
        materials: vec![Material {
            shading: Shading::Unlit,
            base_color: Vec3::ONE,
            ..Material::flat_white()
        }],
        static_boxes: vec![BoxInstance {
            position: Vec3::new(0.0, 0.0, -5.0),
            rotation: Quat::from_rotation_z(30f32.to_radians()),
            size: Vec3::new(2.0, 1.2, 1.0),
            material: 0,
        }],
        lighting: Lighting {
            sun_radiance: Vec3::ZERO,
            ambient: Ambient::Hemisphere {
                sky: Vec3::ZERO,
                ground: Vec3::ZERO,
            },
            sky: None,
            ..Lighting::default()
        },
        post: Post {
            exposure: 1.0,
            tonemap: Tonemap::None,
            hable: Hable::PUBLISHED,
            bloom: None,
        },
        static_generation: 1,
        ..RenderFrame::default()
    };
    let view = View {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        projection: Projection::Orthographic { half_height: 1.5 },
        near: 0.1,
        far: Some(20.0),
    };
    (frame, view)
}

/// `(covered, background, between)`: pixels whose channels are all above 250, all below 5,
/// and the rest.
fn census(img: &RgbaImage) -> (usize, usize, usize) {
    let (mut covered, mut background, mut between) = (0, 0, 0);
    for y in 0..img.height {
        for x in 0..img.width {
            let p = img.pixel(x, y).unwrap_or([0; 4]);
            if p[..3].iter().all(|&c| c > 250) {
                covered += 1;
            } else if p[..3].iter().all(|&c| c < 5) {
                background += 1;
            } else {
                between += 1;
            }
        }
    }
    (covered, background, between)
}

#[test]
fn an_edge_is_blended_at_four_samples_and_stepped_at_one() {
    let gpu = testing::test_gpu();
    {
        let (frame, view) = tilted_box();
        let mut r = Renderer::with_desc(
            &gpu,
            &RendererDesc {
                msaa: 4,
                ..RendererDesc::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // Lavapipe's framebuffers take 4 samples (and the spec-free default is 4, ours).
        assert_eq!(r.msaa(), 4);
        assert_eq!(r.msaa_lowered(), None);
        let four = r
            .render(&frame, &view, W, H)
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        // The same renderer at one sample: pipelines and targets rebuilt.
        r.set_msaa(1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.msaa(), 1);
        let one = r
            .render(&frame, &view, W, H)
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        let (c4, b4, m4) = census(&four);
        let (c1, b1, m1) = census(&one);
        eprintln!("msaa 4: {c4} covered, {b4} background, {m4} between; msaa 1: {c1}, {b1}, {m1}");
        // The box is 2 × 1.2 m in a 3 m tall view of 64 pixels: about 42 × 26 pixels, so
        // hundreds of covered pixels and a perimeter of about 136 pixels, most of them cut
        // by a 30° edge.
        assert!(
            c1 > 500 && b1 > 2000,
            "one sample: {c1} covered, {b1} background"
        );
        assert_eq!(
            m1, 0,
            "one sample: every pixel is the box or the background"
        );
        assert!(
            m4 >= 60,
            "four samples: only {m4} blended pixels along the edges"
        );
        // Blending never invents coverage: the interior and the background stay as they were.
        assert!(
            c4 + 2 * m4 >= c1 && c4 <= c1,
            "{c4} covered at 4 against {c1} at 1"
        );
        // Back to four: the blend returns.
        r.set_msaa(4).unwrap_or_else(|e| panic!("{e}"));
        let again = r
            .render(&frame, &view, W, H)
            .unwrap_or_else(|e| panic!("{e}"))
            .image;
        assert_eq!(census(&again).2, m4);
    }
    testing::finish(gpu);
}

#[test]
fn the_asked_samples_are_lowered_to_what_the_device_takes() {
    use ash::vk::SampleCountFlags as S;
    // Worked by hand: the most of 1, 2, 4, 8 at or below the asked count the flags hold.
    let lavapipe = S::TYPE_1 | S::TYPE_4;
    assert_eq!(msaa_samples(lavapipe, 8), 4);
    assert_eq!(msaa_samples(lavapipe, 4), 4);
    assert_eq!(msaa_samples(lavapipe, 2), 1);
    assert_eq!(msaa_samples(lavapipe, 1), 1);
    let all = S::TYPE_1 | S::TYPE_2 | S::TYPE_4 | S::TYPE_8 | S::TYPE_16;
    assert_eq!(msaa_samples(all, 8), 8);
    assert_eq!(msaa_samples(all, 2), 2);
    assert_eq!(msaa_samples(S::TYPE_1, 8), 1);
    assert_eq!(DEFAULT_MSAA, 4);

    let gpu = testing::test_gpu();
    {
        // Asked 8: taken as the device allows, and said so when that is fewer.
        let r = Renderer::with_desc(
            &gpu,
            &RendererDesc {
                msaa: 8,
                ..RendererDesc::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!([1, 2, 4, 8].contains(&r.msaa()), "{}", r.msaa());
        match r.msaa_lowered() {
            Some((asked, taken)) => assert_eq!((asked, taken), (8, r.msaa())),
            None => assert_eq!(r.msaa(), 8),
        }
        // A count that is not 1, 2, 4 or 8 is refused, naming the preference.
        let e = Renderer::with_desc(
            &gpu,
            &RendererDesc {
                msaa: 3,
                ..RendererDesc::default()
            },
        )
        .err()
        .unwrap_or_else(|| panic!("3 samples were taken"));
        let text = e.to_string();
        assert!(
            text.contains("client.render.msaa") && text.contains("expected 1, 2, 4 or 8"),
            "{text}"
        );
    }
    testing::finish(gpu);
}
