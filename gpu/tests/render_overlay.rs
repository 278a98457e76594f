//! The debug overlays' passes on lavapipe with validation (render/overlay.rs): an empty
//! overlay records nothing (the capture is byte-identical to one without it), world lines
//! are depth-tested (the half of a line behind a box is hidden, the half in front is drawn),
//! at one sample and at MSAA (sample 0 of the depth resolved), and text draws ink.

use dh_gpu::render::frame::{
    Ambient, BoxInstance, Lighting, Material, Post, Projection, RenderFrame, Shading, View,
};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::{Overlay, Renderer, RendererDesc, ScreenItem};
use dh_gpu::{testing, RgbaImage};
use glam::{Quat, Vec3};

const W: u32 = 96;
const H: u32 = 64;

/// A unlit dark-grey box at z = -5 (depth 1 m, front face at z = -4.5) filling the middle
/// of an orthographic view, black around it.
fn scene() -> (RenderFrame, View) {
    let frame = RenderFrame {
        materials: vec![Material {
            shading: Shading::Unlit,
            base_color: Vec3::splat(0.2),
            ..Material::flat_white()
        }],
        static_boxes: vec![BoxInstance {
            position: Vec3::new(0.0, 0.0, -5.0),
            rotation: Quat::IDENTITY,
            size: Vec3::new(2.0, 1.0, 1.0),
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

/// Pixels of row `y` whose red channel is above 200 and green below 60 (the line's red).
fn red_in_row(img: &RgbaImage, y: u32, xs: std::ops::Range<u32>) -> usize {
    xs.filter(|&x| {
        let p = img.pixel(x, y).unwrap_or([0; 4]);
        p[0] > 200 && p[1] < 60
    })
    .count()
}

#[test]
fn overlay_lines_are_depth_tested_and_an_empty_overlay_draws_nothing() {
    let gpu = testing::test_gpu();
    for msaa in [1, 4] {
        let mut r = Renderer::with_desc(
            &gpu,
            &RendererDesc {
                msaa,
                ..RendererDesc::default()
            },
        )
        .expect("renderer");
        let (frame, view) = scene();
        let plain = r.render(&frame, &view, W, H).expect("plain").image;
        r.set_overlay(Overlay::default());
        let empty = r.render(&frame, &view, W, H).expect("empty overlay").image;
        assert_eq!(
            plain.pixels, empty.pixels,
            "msaa {msaa}: an empty overlay changes nothing"
        );

        // A horizontal red line across the view: behind the box (z = -6) on the left half
        // of its length and in front (z = -3) on the right, sloped in depth through it.
        let mut o = Overlay::default();
        o.line(
            Vec3::new(-2.0, 0.0, -6.0),
            Vec3::new(0.0, 0.0, -6.0),
            [255, 0, 0, 255],
        );
        o.line(
            Vec3::new(0.0, 0.0, -3.0),
            Vec3::new(2.0, 0.0, -3.0),
            [255, 0, 0, 255],
        );
        r.set_overlay(o);
        let lined = r.render(&frame, &view, W, H).expect("lines").image;
        // Rows crossing the middle: 64 px over 3 m, so the box spans x in [-1, 1] m, pixels
        // 27 to 69; the line runs from pixel 5 to 91.
        let y = H / 2;
        let rows = [y - 1, y, y + 1];
        let hidden: usize = rows.iter().map(|&y| red_in_row(&lined, y, 30..46)).sum();
        let shown: usize = rows.iter().map(|&y| red_in_row(&lined, y, 50..66)).sum();
        let outside: usize = rows.iter().map(|&y| red_in_row(&lined, y, 6..24)).sum();
        assert_eq!(hidden, 0, "msaa {msaa}: the line behind the box is hidden");
        assert!(
            shown >= 14,
            "msaa {msaa}: the line before the box is drawn ({shown} px)"
        );
        assert!(
            outside >= 14,
            "msaa {msaa}: the line past the box's edge is drawn ({outside} px)"
        );

        // Text and a dot draw on top, white over the box.
        let mut o = Overlay::default();
        o.screen.push(ScreenItem::Text {
            at: [4.0, 4.0],
            text: "pos 1 2 3".into(),
            color: [255, 255, 255, 255],
            backdrop: None,
        });
        o.screen.push(ScreenItem::Dot {
            center: [48.0, 32.0],
            radius: 4.0,
            color: [0, 255, 0, 255],
        });
        r.set_overlay(o);
        let text = r.render(&frame, &view, W, H).expect("text").image;
        let ink = (0..20)
            .flat_map(|y| (0..80).map(move |x| (x, y)))
            .filter(|&(x, y)| text.pixel(x, y).is_some_and(|p| p[0] > 200))
            .count();
        assert!(ink > 20, "msaa {msaa}: the text draws ink ({ink} px)");
        assert_eq!(
            text.pixel(48, 32).map(|p| p[1] > 240 && p[0] < 20),
            Some(true)
        );
    }
    testing::finish(gpu);
}
