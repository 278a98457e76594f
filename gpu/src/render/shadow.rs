//! The sun's cascaded shadow maps' CPU side: split distances (the practical scheme, a blend
//! of logarithmic and uniform splits) and each cascade's light-space projection, a
//! texel-snapped orthographic box around the bounding sphere of its slice of the view
//! frustum, so shadows do not swim as the camera turns.

use glam::{Mat4, Vec3};

use super::math;

/// Cascades the sun renders.
pub const CASCADES: usize = 4;
/// How far from the eye the sun's shadows reach, meters (ours: the spec states none).
pub const SHADOW_DISTANCE: f32 = 80.0;
/// The blend between logarithmic (1) and uniform (0) splits.
pub const SPLIT_LAMBDA: f32 = 0.75;

/// The far distance of each cascade, from `near` out to `far`.
pub fn split_distances(near: f32, far: f32, lambda: f32) -> [f32; CASCADES] {
    let near = near.max(1e-3);
    let far = far.max(near * 1.01);
    let mut out = [0.0f32; CASCADES];
    for (i, o) in out.iter_mut().enumerate() {
        let p = (i + 1) as f32 / CASCADES as f32;
        let log = near * (far / near).powf(p);
        let uni = near + (far - near) * p;
        *o = lambda * log + (1.0 - lambda) * uni;
    }
    out[CASCADES - 1] = far;
    out
}

/// One cascade: its world-to-shadow-clip matrix and where its slice ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cascade {
    /// World to the cascade's clip space (Vulkan: depth 0–1, y down).
    pub view_projection: Mat4,
    /// The view depth where this cascade ends.
    pub split: f32,
    /// World meters per shadow texel (for the normal-offset bias).
    pub texel_size: f32,
}

/// The cascades for a view. `corners(d0, d1)` gives the eight world-space corners of the view
/// frustum between view depths `d0` and `d1`; `scene` bounds everything that casts, so the
/// boxes reach back to it toward the sun. `resolution` is one cascade's edge in texels.
pub fn cascades(
    sun_direction: Vec3,
    near: f32,
    splits: &[f32; CASCADES],
    corners: impl Fn(f32, f32) -> [Vec3; 8],
    scene: Option<(Vec3, Vec3)>,
    resolution: u32,
) -> [Cascade; CASCADES] {
    let dir = math::normalize_or(sun_direction, Vec3::new(0.0, -1.0, 0.0));
    let mut out = [Cascade {
        view_projection: Mat4::IDENTITY,
        split: 0.0,
        texel_size: 1.0,
    }; CASCADES];
    let mut start = near;
    for (i, c) in out.iter_mut().enumerate() {
        let pts = corners(start, splits[i]);
        let mut center = Vec3::ZERO;
        for p in &pts {
            center += *p * (1.0 / 8.0);
        }
        let mut radius = pts
            .iter()
            .map(|p| ((*p) - center).length())
            .fold(0.0f32, f32::max);
        radius = (radius * 16.0).ceil() / 16.0;
        let texel = 2.0 * radius / resolution.max(1) as f32;
        // Light space with the sun looking along `dir`; snap the center to whole texels.
        let light_view = math::look_to(Vec3::ZERO, dir, Vec3::new(0.0, 1.0, 0.0));
        let mut lc = math::transform_point(&light_view, center);
        lc[0] = (lc[0] / texel).floor() * texel;
        lc[1] = (lc[1] / texel).floor() * texel;
        // Depth: from the far side of the scene toward the sun to past the sphere.
        let mut back = radius;
        if let Some((lo, hi)) = scene {
            for k in 0..8 {
                let p = Vec3::new(
                    if k & 1 == 0 { lo[0] } else { hi[0] },
                    if k & 2 == 0 { lo[1] } else { hi[1] },
                    if k & 4 == 0 { lo[2] } else { hi[2] },
                );
                let lp = math::transform_point(&light_view, p);
                // View space looks down -Z: nearer the sun is larger z.
                back = back.max(lp[2] - lc[2]);
            }
        }
        let near_d = -lc[2] - back - 1.0;
        let far_d = -lc[2] + radius + 1.0;
        let proj = math::orthographic(
            lc[0] - radius,
            lc[0] + radius,
            lc[1] - radius,
            lc[1] + radius,
            near_d,
            far_d,
        );
        *c = Cascade {
            view_projection: (proj * light_view),
            split: splits[i],
            texel_size: texel,
        };
        start = splits[i];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::math::{inverse, perspective, transform_point, view_from_pose};
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn splits_rise_to_the_shadow_distance() {
        let s = split_distances(0.1, SHADOW_DISTANCE, SPLIT_LAMBDA);
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
        assert_eq!(s[CASCADES - 1], SHADOW_DISTANCE);
        // Logarithmic-leaning: the first cascade is much shorter than a uniform quarter.
        assert!(s[0] < SHADOW_DISTANCE / 4.0 * 0.5, "{s:?}");
        let uniform = split_distances(0.1, 80.0, 0.0);
        assert!((uniform[0] - (0.1 + 79.9 / 4.0)).abs() < 1e-3);
    }

    #[test]
    fn each_cascade_contains_its_slice() {
        let view = view_from_pose(
            Vec3::new(3.0, 2.0, 5.0),
            Quat::from_xyzw(0.0, 0.38268343, 0.0, 0.9238795),
        );
        let proj = perspective(75f32.to_radians(), 16.0 / 9.0, 0.1, None);
        let inv_view = inverse(&view).unwrap_or(Mat4::IDENTITY);
        let inv_proj = inverse(&proj).unwrap_or(Mat4::IDENTITY);
        let corners = |d0: f32, d1: f32| -> [Vec3; 8] {
            let mut out = [Vec3::ZERO; 8];
            for (k, o) in out.iter_mut().enumerate() {
                let d = if k & 4 == 0 { d0 } else { d1 };
                let x = if k & 1 == 0 { -1.0 } else { 1.0 };
                let y = if k & 2 == 0 { -1.0 } else { 1.0 };
                let dir = transform_point(&inv_proj, Vec3::new(x, y, 0.5));
                let p = dir * (d / -dir[2]);
                *o = transform_point(&inv_view, p);
            }
            out
        };
        let splits = split_distances(0.1, SHADOW_DISTANCE, SPLIT_LAMBDA);
        let cs = cascades(
            Vec3::new(-0.35, -0.85, -0.4),
            0.1,
            &splits,
            corners,
            None,
            1024,
        );
        let mut start = 0.1;
        for c in &cs {
            for p in corners(start, c.split) {
                let q = transform_point(&c.view_projection, p);
                assert!(q[0].abs() <= 1.0001 && q[1].abs() <= 1.0001, "{q:?}");
                assert!((-1e-4..=1.0001).contains(&q[2]), "{q:?}");
            }
            start = c.split;
        }
        assert!(cs[0].texel_size < cs[3].texel_size);
    }
}
