//! Realtime lights' CPU reference (spec: dh.map, dh.light): the two distance curves, the
//! spot cone, the per-frame ranking to [`MAX_LIGHTS`], and the binning into screen clusters
//! (columns × rows tiles × slices spaced evenly in the logarithm of view depth out to
//! `lightClusterFar`, where the last slice begins and runs to infinity).

use super::frame::{ClusterConfig, Falloff, Light, LightKind};
use glam::{Mat4, Vec3, Vec4};

use super::math;

/// The most lights the GPU shades in a frame.
pub const MAX_LIGHTS: usize = 64;
/// The most clusters a view has.
pub const MAX_CLUSTERS: u32 = 1024;

/// The distance term of a light at distance `d` with range `r`.
pub fn falloff(curve: Falloff, d: f32, r: f32) -> f32 {
    if r <= 0.0 || d >= r {
        return 0.0;
    }
    match curve {
        Falloff::Physical => {
            let q = d / r;
            let w = (1.0 - q * q * q * q).clamp(0.0, 1.0);
            w * w / (d * d).max(1e-4)
        }
        Falloff::Unity => {
            let q = d / r;
            ((1.0 / (1.0 + 25.0 * q * q) - 1.0 / 26.0) * 26.0 / 25.0).max(0.0)
        }
    }
}

/// The spot cone's term for a ray leaving the light at angle `angle` (radians) from its
/// axis: 1 inside the inner half-angle, 0 past the outer, smooth between.
pub fn spot_cone(angle_cos: f32, inner: f32, outer: f32) -> f32 {
    let (ci, co) = (inner.cos(), outer.cos());
    let t = ((angle_cos - co) / (ci - co).max(1e-4)).clamp(0.0, 1.0);
    t * t
}

/// What a light delivers at `p` before the surface's cosine: radiance × distance term ×
/// cone, and the unit direction from `p` toward the light.
pub fn light_at(light: &Light, p: Vec3) -> (Vec3, Vec3) {
    match light.kind {
        LightKind::Directional => (light.radiance, (light.direction * (-1.0))),
        LightKind::Point | LightKind::Spot => {
            let to = light.position - p;
            let d = to.length();
            let l = math::normalize_or(to, Vec3::new(0.0, 1.0, 0.0));
            let mut k = falloff(light.falloff, d, light.range);
            if light.kind == LightKind::Spot {
                let c = -l.dot(light.direction);
                k *= spot_cone(c, light.inner_cone, light.outer_cone);
            }
            ((light.radiance * k), l)
        }
    }
}

/// A view's frustum for ranking and binning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewVolume {
    /// World to view.
    pub view: Mat4,
    /// View to clip (Vulkan).
    pub projection: Mat4,
    /// The eye, world.
    pub eye: Vec3,
    /// Near plane distance.
    pub near: f32,
    /// Whether the projection is orthographic.
    pub orthographic: bool,
}

impl ViewVolume {
    /// Whether a sphere can touch the frustum (a conservative test against the four side
    /// planes and the near plane, in view space).
    pub fn sphere_visible(&self, center: Vec3, radius: f32) -> bool {
        let c = math::transform_point(&self.view, center);
        let depth = -c[2];
        if depth + radius < self.near {
            return false;
        }
        // Side planes from the projection: |x_clip| <= w, |y_clip| <= w.
        let p = &self.projection;
        let (sx, sy) = (p.x_axis.x.abs(), p.y_axis.y.abs());
        if self.orthographic {
            let hx = 1.0 / sx.max(1e-6);
            let hy = 1.0 / sy.max(1e-6);
            return c[0].abs() <= hx + radius && c[1].abs() <= hy + radius;
        }
        // Plane through the eye with normal (1, 0, sx)/|..|: x·1 + depth... distance of the
        // center outside each side plane.
        let nx = (1.0 + sx * sx).sqrt();
        let ny = (1.0 + sy * sy).sqrt();
        let out_x = (c[0].abs() * sx - depth) / nx;
        let out_y = (c[1].abs() * sy - depth) / ny;
        out_x <= radius && out_y <= radius
    }
}

fn luminance(c: Vec3) -> f32 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

/// Ranks `lights` against the view and keeps at most [`MAX_LIGHTS`]: every light within
/// reach of the eye (its range can touch what the view sees; a directional light always can)
/// before any that is not, and brightest-nearest first inside each group (luminance over
/// squared distance past the range's edge), ties in author order. Returns indices into
/// `lights`, in rank order.
pub fn rank_lights(lights: &[Light], view: &ViewVolume) -> Vec<usize> {
    let mut keyed: Vec<(bool, f32, usize)> = lights
        .iter()
        .enumerate()
        .filter(|(_, l)| luminance(l.radiance) > 0.0)
        .map(|(i, l)| {
            let lum = luminance(l.radiance);
            match l.kind {
                LightKind::Directional => (true, f32::INFINITY, i),
                _ => {
                    let d = (l.position - view.eye).length();
                    let reach = view.sphere_visible(l.position, l.range);
                    let gap = (d - l.range).max(0.0);
                    (reach, lum / (1.0 + d * d + gap * gap), i)
                }
            }
        })
        .collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    keyed.truncate(MAX_LIGHTS);
    keyed.into_iter().map(|(_, _, i)| i).collect()
}

/// The clusters' shape, clamped to the spec's limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterGrid {
    /// Tiles across.
    pub columns: u32,
    /// Tiles down.
    pub rows: u32,
    /// Depth slices.
    pub slices: u32,
    /// View depth of slice 0's start (the near plane).
    pub near: f32,
    /// View depth where the last slice begins.
    pub far: f32,
}

impl ClusterGrid {
    /// The grid for a config and a near plane; at most [`MAX_CLUSTERS`] (slices give way
    /// first, then rows, then columns).
    pub fn new(config: &ClusterConfig, near: f32) -> ClusterGrid {
        let mut c = config.columns.max(1);
        let mut r = config.rows.max(1);
        let mut s = config.slices.max(1);
        while c * r * s > MAX_CLUSTERS {
            if s > 1 {
                s -= 1;
            } else if r > 1 {
                r -= 1;
            } else {
                c -= 1;
            }
        }
        let near = near.max(1e-3);
        ClusterGrid {
            columns: c,
            rows: r,
            slices: s,
            near,
            far: config.far.max(near * 1.001),
        }
    }

    /// Clusters in the grid.
    pub fn count(&self) -> u32 {
        self.columns * self.rows * self.slices
    }

    /// The slice a view depth falls in: slice `k < slices - 1` spans
    /// `[near·(far/near)^(k/(slices-1)), near·(far/near)^((k+1)/(slices-1)))`, and the last
    /// begins at `far`.
    pub fn slice_of(&self, depth: f32) -> u32 {
        if self.slices <= 1 {
            return 0;
        }
        if depth <= self.near {
            return 0;
        }
        let t = (depth / self.near).ln() / (self.far / self.near).ln();
        let k = (t * (self.slices - 1) as f32).floor();
        (k.max(0.0) as u32).min(self.slices - 1)
    }

    /// Where slice `k` begins.
    pub fn slice_start(&self, k: u32) -> f32 {
        if self.slices <= 1 || k == 0 {
            return if k == 0 { 0.0 } else { self.far };
        }
        self.near * (self.far / self.near).powf(k as f32 / (self.slices - 1) as f32)
    }

    /// The cluster of a pixel at `(x, y)` of a `width × height` frame, at view depth `depth`.
    pub fn cluster_of(&self, x: f32, y: f32, width: u32, height: u32, depth: f32) -> u32 {
        let tx = ((x / width.max(1) as f32) * self.columns as f32).floor() as i64;
        let ty = ((y / height.max(1) as f32) * self.rows as f32).floor() as i64;
        let tx = tx.clamp(0, i64::from(self.columns) - 1) as u32;
        let ty = ty.clamp(0, i64::from(self.rows) - 1) as u32;
        (self.slice_of(depth) * self.rows + ty) * self.columns + tx
    }
}

/// Lights binned into a view's clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clusters {
    /// Per cluster: offset into `indices` and count.
    pub ranges: Vec<[u32; 2]>,
    /// Light indices (into the ranked list), ascending inside each cluster.
    pub indices: Vec<u32>,
}

/// Bins `lights` (already ranked; indices are positions in this slice) into `grid` for the
/// view: a light goes into every cluster its range sphere's box can project into; a
/// directional light into every cluster.
pub fn bin_lights(lights: &[Light], view: &ViewVolume, grid: &ClusterGrid) -> Clusters {
    let n = grid.count() as usize;
    let mut per: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (li, l) in lights.iter().enumerate() {
        let all = |per: &mut Vec<Vec<u32>>| {
            for c in per.iter_mut() {
                c.push(li as u32);
            }
        };
        if l.kind == LightKind::Directional {
            all(&mut per);
            continue;
        }
        let c = math::transform_point(&view.view, l.position);
        let r = l.range;
        let (dmin, dmax) = (-c[2] - r, -c[2] + r);
        if dmax < view.near {
            continue;
        }
        let s0 = grid.slice_of(dmin);
        let s1 = grid.slice_of(dmax);
        // The box's screen extent: its corners projected, depth clamped to the near plane
        // (a box reaching behind the eye covers the whole screen across).
        let (mut x0, mut y0, mut x1, mut y1) = (
            f32::INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
        );
        for k in 0..8 {
            let mut p = [
                c[0] + if k & 1 == 0 { -r } else { r },
                c[1] + if k & 2 == 0 { -r } else { r },
                c[2] + if k & 4 == 0 { -r } else { r },
            ];
            if !view.orthographic && -p[2] < view.near {
                p[2] = -view.near;
            }
            let clip = view.projection * Vec4::from_array([p[0], p[1], p[2], 1.0]);
            let w = if view.orthographic {
                1.0
            } else {
                clip[3].max(1e-6)
            };
            let (nx, ny) = (clip[0] / w, clip[1] / w);
            x0 = x0.min(nx);
            x1 = x1.max(nx);
            y0 = y0.min(ny);
            y1 = y1.max(ny);
        }
        if !view.orthographic && dmin < view.near {
            // The sphere reaches past the near plane: its box projects unboundedly across
            // any axis the eye sits inside of.
            if c[0].abs() <= r {
                x0 = -1.0;
                x1 = 1.0;
            }
            if c[1].abs() <= r {
                y0 = -1.0;
                y1 = 1.0;
            }
        }
        if x1 < -1.0 || x0 > 1.0 || y1 < -1.0 || y0 > 1.0 {
            continue;
        }
        let tile = |v: f32, cells: u32| -> u32 {
            let t = ((v * 0.5 + 0.5) * cells as f32).floor();
            (t.max(0.0) as u32).min(cells - 1)
        };
        let (tx0, tx1) = (tile(x0, grid.columns), tile(x1, grid.columns));
        let (ty0, ty1) = (tile(y0, grid.rows), tile(y1, grid.rows));
        for s in s0..=s1 {
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    per[((s * grid.rows + ty) * grid.columns + tx) as usize].push(li as u32);
                }
            }
        }
    }
    let mut ranges = Vec::with_capacity(n);
    let mut indices = Vec::new();
    for c in per {
        ranges.push([indices.len() as u32, c.len() as u32]);
        indices.extend(c);
    }
    Clusters { ranges, indices }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::math::{perspective, view_from_pose};
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    fn point(p: Vec3, range: f32, intensity: f32) -> Light {
        Light {
            kind: LightKind::Point,
            position: p,
            direction: Vec3::new(0.0, -1.0, 0.0),
            radiance: Vec3::splat(intensity),
            range,
            falloff: Falloff::Physical,
            inner_cone: 0.5,
            outer_cone: 0.8,
        }
    }

    fn view() -> ViewVolume {
        ViewVolume {
            view: view_from_pose(
                Vec3::new(0.0, 0.0, 0.0),
                Quat::from_xyzw(0.0, 0.0, 0.0, 1.0),
            ),
            projection: perspective(60f32.to_radians(), 2.0, 0.1, None),
            eye: Vec3::ZERO,
            near: 0.1,
            orthographic: false,
        }
    }

    #[test]
    fn physical_falloff_is_inverse_square_windowed_to_zero() {
        assert_eq!(falloff(Falloff::Physical, 10.0, 10.0), 0.0);
        assert_eq!(falloff(Falloff::Physical, 12.0, 10.0), 0.0);
        // Near the bulb it is inverse-square: doubling the distance quarters the light.
        let a = falloff(Falloff::Physical, 0.5, 100.0);
        let b = falloff(Falloff::Physical, 1.0, 100.0);
        assert!((a / b - 4.0).abs() < 1e-3);
        // At a twentieth of the range physical is past 4 (r = 10: d = 0.5).
        assert!(falloff(Falloff::Physical, 0.5, 10.0) > 3.99);
    }

    #[test]
    fn unity_falloff_is_bounded_and_flat() {
        assert!((falloff(Falloff::Unity, 0.0, 10.0) - 1.0).abs() < 1e-6);
        assert_eq!(falloff(Falloff::Unity, 10.0, 10.0), 0.0);
        let twentieth = falloff(Falloff::Unity, 0.5, 10.0);
        assert!((twentieth - 0.94).abs() < 0.01, "{twentieth}");
        let fifth = falloff(Falloff::Unity, 2.0, 10.0);
        assert!((fifth - 0.5).abs() < 0.03, "{fifth}");
    }

    #[test]
    fn spot_cone_is_full_inside_and_zero_outside() {
        let (i, o) = (30f32.to_radians(), 45f32.to_radians());
        assert_eq!(spot_cone(1.0, i, o), 1.0);
        assert_eq!(spot_cone(50f32.to_radians().cos(), i, o), 0.0);
        let mid = spot_cone(37f32.to_radians().cos(), i, o);
        assert!(mid > 0.0 && mid < 1.0);
    }

    #[test]
    fn ranking_keeps_sixty_four_reachable_brightest_nearest_first() {
        let mut lights = Vec::new();
        // 70 dim lights in front of the eye, one bright one, and one behind (out of reach).
        for i in 0..70 {
            lights.push(point(Vec3::new(0.0, 0.0, -5.0 - i as f32), 3.0, 1.0));
        }
        lights.push(point(Vec3::new(0.0, 0.0, -20.0), 3.0, 100.0));
        lights.push(point(Vec3::new(0.0, 0.0, 50.0), 3.0, 1000.0));
        let ranked = rank_lights(&lights, &view());
        assert_eq!(ranked.len(), MAX_LIGHTS);
        assert_eq!(ranked[0], 70, "the bright one first");
        assert_eq!(ranked[1], 0, "then the nearest");
        assert!(!ranked.contains(&71), "out of reach goes last, so is cut");
        // Fewer than the cap: the out-of-reach light is kept, after the reachable ones.
        let few = rank_lights(&lights[65..], &view());
        assert_eq!(few.last(), Some(&6));
    }

    #[test]
    fn slices_are_logarithmic_and_the_last_runs_to_infinity() {
        let g = ClusterGrid::new(&ClusterConfig::default(), 0.1);
        assert_eq!(g.count(), 1024);
        assert_eq!(g.slice_of(0.05), 0);
        assert_eq!(g.slice_of(119.0), 6);
        assert_eq!(g.slice_of(120.0), 7);
        assert_eq!(g.slice_of(1e6), 7);
        // Evenly spaced in log depth: each slice's start is a constant ratio from the last.
        let r1 = g.slice_start(2) / g.slice_start(1);
        let r2 = g.slice_start(5) / g.slice_start(4);
        assert!((r1 - r2).abs() < 1e-3);
        assert!((g.slice_start(7) - 120.0).abs() < 1e-3);
        // Too many clusters are cut to 1024.
        let big = ClusterGrid::new(
            &ClusterConfig {
                columns: 32,
                rows: 16,
                slices: 8,
                ..ClusterConfig::default()
            },
            0.1,
        );
        assert!(big.count() <= MAX_CLUSTERS);
    }

    #[test]
    fn binning_matches_the_full_loop() {
        // A light reaches a pixel only through its cluster: every (pixel, depth) sample
        // the light lights must find the light in its cluster.
        let v = view();
        let g = ClusterGrid::new(&ClusterConfig::default(), v.near);
        let lights = vec![
            point(Vec3::new(3.0, 1.0, -8.0), 4.0, 10.0),
            point(Vec3::new(-6.0, -2.0, -30.0), 10.0, 10.0),
            point(Vec3::new(0.0, 0.0, -0.5), 2.0, 10.0),
            point(Vec3::new(0.0, 0.0, 30.0), 2.0, 10.0),
        ];
        let bins = bin_lights(&lights, &v, &g);
        let (w, h) = (320u32, 160u32);
        let inv = crate::render::math::inverse(&v.projection).unwrap_or(Mat4::IDENTITY);
        let mut checked = 0;
        for py in (0..h).step_by(7) {
            for px in (0..w).step_by(7) {
                for depth in [0.3f32, 1.0, 3.0, 8.0, 20.0, 35.0, 150.0] {
                    let ndc = [
                        (px as f32 + 0.5) / w as f32 * 2.0 - 1.0,
                        (py as f32 + 0.5) / h as f32 * 2.0 - 1.0,
                    ];
                    let dir = math::transform_point(&inv, Vec3::new(ndc[0], ndc[1], 0.5));
                    let p = dir * (depth / -dir[2]);
                    let cl = g.cluster_of(px as f32 + 0.5, py as f32 + 0.5, w, h, depth);
                    let [o, n] = bins.ranges[cl as usize];
                    let list = &bins.indices[o as usize..(o + n) as usize];
                    for (i, l) in lights.iter().enumerate() {
                        if (p - l.position).length() < l.range {
                            assert!(
                                list.contains(&(i as u32)),
                                "light {i} missing at {px},{py} depth {depth}"
                            );
                            checked += 1;
                        }
                    }
                    assert!(list.windows(2).all(|w| w[0] < w[1]), "ascending");
                }
            }
        }
        assert!(checked > 100, "{checked}");
        // The light behind the eye is in no cluster.
        assert!(!bins.indices.contains(&3));
    }
}
