//! The fallback picture when nothing can be photographed (spec: dh.map, "The map's
//! thumbnail", rung 3): a plain top-down plan of the box brushes, drawn on the CPU. It is
//! deliberately plain: each box's footprint in its material's color, higher boxes over
//! lower ones, with a darker outline, on a pale ground.

use super::frame::{RenderFrame, Shading};
use glam::Vec3;

use super::math::{self, linear_to_srgb};
use crate::RgbaImage;

/// The note that goes with a plan, wherever it is written.
pub const PLAN_NOTE: &str =
    "drawn, not taken: a plain top-down plan of the box brushes, drawn on the CPU because this machine could not photograph the map";

/// Draws the plan of `frame`'s boxes at `width × height`, north (-Z) up.
pub fn top_down_plan(frame: &RenderFrame, width: u32, height: u32) -> RgbaImage {
    let (w, h) = (width.max(1), height.max(1));
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    for p in pixels.chunks_exact_mut(4) {
        p.copy_from_slice(&[236, 232, 222, 255]);
    }
    let mut boxes: Vec<_> = frame.static_boxes.iter().chain(&frame.live_boxes).collect();
    // Footprints: the top face's four corners on the XZ plane; drawn low to high.
    boxes.sort_by(|a, b| {
        (a.position[1] + a.size[1] * 0.5).total_cmp(&(b.position[1] + b.size[1] * 0.5))
    });
    let footprint = |b: &super::frame::BoxInstance| -> [[f32; 2]; 4] {
        let hs = b.size.map(|s| s.abs() * 0.5);
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(sx, sz)| {
            let p = b.position + math::rotate(b.rotation, Vec3::new(hs[0] * sx, hs[1], hs[2] * sz));
            [p[0], p[2]]
        })
    };
    let prints: Vec<[[f32; 2]; 4]> = boxes.iter().map(|b| footprint(b)).collect();
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for c in prints.iter().flatten() {
        for k in 0..2 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    if prints.is_empty() {
        return RgbaImage {
            width: w,
            height: h,
            pixels,
        };
    }
    let margin = 0.05;
    let span = [(hi[0] - lo[0]).max(1e-3), (hi[1] - lo[1]).max(1e-3)];
    let scale = ((w as f32) * (1.0 - 2.0 * margin) / span[0])
        .min((h as f32) * (1.0 - 2.0 * margin) / span[1]);
    let center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
    let to_px = |c: [f32; 2]| {
        [
            (c[0] - center[0]) * scale + w as f32 * 0.5,
            (c[1] - center[1]) * scale + h as f32 * 0.5,
        ]
    };
    for (b, print) in boxes.iter().zip(&prints) {
        let quad = print.map(to_px);
        let color =
            frame
                .materials
                .get(b.material as usize)
                .map_or(Vec3::new(1.0, 0.0, 0.0), |m| match m.shading {
                    Shading::Missing => Vec3::new(1.0, 0.0, 0.0),
                    _ => m.base_color,
                });
        let fill = color
            .to_array()
            .map(|c| (linear_to_srgb(c) * 255.0).round() as u8);
        let edge = fill.map(|c| (f32::from(c) * 0.45) as u8);
        let (mut x0, mut y0, mut x1, mut y1) = (
            f32::INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
        );
        for q in &quad {
            x0 = x0.min(q[0]);
            y0 = y0.min(q[1]);
            x1 = x1.max(q[0]);
            y1 = y1.max(q[1]);
        }
        let xs = (x0.floor().max(0.0) as u32)..(x1.ceil().min(w as f32) as u32);
        let ys = (y0.floor().max(0.0) as u32)..(y1.ceil().min(h as f32) as u32);
        for y in ys {
            for x in xs.clone() {
                let p = [x as f32 + 0.5, y as f32 + 0.5];
                // Signed distance inside the convex quad (either winding).
                let mut inside = f32::INFINITY;
                let mut sign = 0.0f32;
                for i in 0..4 {
                    let a = quad[i];
                    let c = quad[(i + 1) % 4];
                    let e = [c[0] - a[0], c[1] - a[1]];
                    let len = (e[0] * e[0] + e[1] * e[1]).sqrt().max(1e-6);
                    let d = ((p[0] - a[0]) * e[1] - (p[1] - a[1]) * e[0]) / len;
                    if sign == 0.0 && d.abs() > 1e-6 {
                        sign = d.signum();
                    }
                    inside = inside.min(d * if sign == 0.0 { 1.0 } else { sign });
                }
                if inside >= 0.0 {
                    let i = (y as usize * w as usize + x as usize) * 4;
                    let rgb = if inside < 1.0 { edge } else { fill };
                    pixels[i..i + 3].copy_from_slice(&rgb);
                }
            }
        }
    }
    RgbaImage {
        width: w,
        height: h,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::frame::{BoxInstance, Material};
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn the_plan_shows_each_box_in_its_color() {
        let mut m = Material::missing();
        m.shading = Shading::Lit;
        m.base_color = Vec3::new(0.0, 0.0, 1.0);
        let frame = RenderFrame {
            materials: vec![m, Material::missing()],
            static_boxes: vec![
                BoxInstance {
                    position: Vec3::new(0.0, -0.5, 0.0),
                    rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                    size: Vec3::new(10.0, 1.0, 10.0),
                    material: 0,
                },
                BoxInstance {
                    position: Vec3::new(2.5, 0.5, 2.5),
                    rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
                    size: Vec3::new(2.0, 1.0, 2.0),
                    material: 1,
                },
            ],
            ..RenderFrame::default()
        };
        let img = top_down_plan(&frame, 100, 100);
        let px = |x, y| img.pixel(x, y).unwrap_or([0; 4]);
        assert_eq!(px(30, 30), [0, 0, 255, 255], "the floor, blue");
        // +X right, +Z down: the red box sits in the lower-right quadrant.
        assert_eq!(px(74, 74), [255, 0, 0, 255]);
        assert_eq!(px(2, 2), [236, 232, 222, 255], "the margin");
    }
}
