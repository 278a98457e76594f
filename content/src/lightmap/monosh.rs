//! MonoSH: what a lightmap texel holds, how a bake's radiance samples are projected into it,
//! and the CPU reference of how the run time evaluates it (spec 000 "What is stored: MonoSH").
//!
//! # Projection
//!
//! Every light's shadowed arrival and every unblocked sky ray is projected onto the
//! Lambert-convolved first two spherical-harmonic bands over the hemisphere around the
//! surface's geometric normal. With the real SH basis `Y00 = 1/(2√π)`, `Y1m = √3/(2√π)·ω` and
//! the clamped-cosine convolution weights `Â0 = π`, `Â1 = 2π/3`, an arrival of irradiance `E`
//! (face on) from direction `ω` adds, per colour channel,
//!
//! * `L0 += π·Y00²·E = E / 4`
//! * `L1 += (2π/3)·Y1m(ω)·Y1m = E·ω / 2`
//!
//! so the linear evaluation `L0 + n·L1` is `E·(1/4 + n·ω/2)`: three quarters of the clamped
//! cosine straight on, as the spec says. Bakery's MonoSH (the spec's anchor) keeps `L0` per
//! channel and one colourless direction `d` from which the shader rebuilds each channel's L1
//! as `d × L0 × 2`; so `d = L1 / (2·L0)`, taken on the luminance (one light: `d = ω`, of
//! length 1; an even sky over the hemisphere: `d = n/2`; no direction at all: `d = 0`). A
//! sample from below the geometric normal's horizon is outside the hemisphere the bake
//! integrates and adds nothing.
//!
//! The luminance is Rec. 709's (`0.2126 R + 0.7152 G + 0.0722 B`).
//!
//! # Evaluation
//!
//! The run time evaluates non-linearly, with Geomerics' L1 reconstruction as Bakery's
//! non-linear MonoSH does (`shEvaluateDiffuseL1Geomerics`: Geomerics, "Reconstructing Diffuse
//! Lighting from Spherical Harmonic Data", CEDEC 2015,
//! `geomerics.com/wp-content/uploads/2015/08/CEDEC_Geomerics_ReconstructingDiffuseLighting1.pdf`,
//! as it is written in Bakery's Unity shaders):
//!
//! ```text
//! R0 = L0,  R1 = L1 / 2,  r = |R1| / R0
//! q  = (1 + n·R1/|R1|) / 2            (clamped to [0, 1])
//! p  = 1 + 2r                          (1 for light arriving evenly, 3 for one light)
//! a  = (1 - r) / (1 + r)
//! f  = R0 · (a + (1 - a)(p + 1) q^p)
//! ```
//!
//! a `((1 + cos)/2)^p` lobe normalized so its average over every direction is `R0`. The spec
//! takes it on the luminance the stored direction is relative to and scales each channel's
//! L0 alike: `out_c = L0_c · f(lum L0, 2·d·lum L0, n) / lum L0`. A lone light straight on
//! reads its full Lambert (`E`) and nothing behind it; an even sky (`d = 0`) reads `L0`.
//!
//! `bakedWrap` applies the half-Lambert kernel's harmonics: the kernel `((1 + cos)/2)²`
//! convolves band 0 by `4π/3` where the clamped cosine gives `π`, and band 1 by `2π/3`, the
//! same as the clamped cosine. So a wrap `w` lifts L0 by `1 + w/3` before the lobe is taken and
//! leaves L1 as it is (the direction is rescaled so `d × L0 × 2` stays the baked L1).

use glam::Vec3;

/// Rec. 709 luminance weights: what the stored direction is relative to.
pub const LUMINANCE: Vec3 = Vec3::new(0.2126, 0.7152, 0.0722);

/// The luminance of a linear colour.
pub fn luminance(rgb: Vec3) -> f32 {
    rgb.dot(LUMINANCE)
}

/// One lightmap texel as the bake stores it (before compression).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MonoShTexel {
    /// The HDR L0 colour (linear, unbounded, never negative).
    pub l0: Vec3,
    /// The colourless dominant direction, `L1 / (2·L0)` on the luminance; each component in
    /// [-1, 1], its length at most 1.
    pub direction: Vec3,
    /// The baked ambient occlusion: the share of the hemisphere open within `aoRadius`, in
    /// [0, 1] (1 where none is baked).
    pub occlusion: f32,
    /// The share of L0's luminance that arrived indirectly (sky and bounce), in [0, 1].
    pub indirect: f32,
}

/// Accumulates one texel's arrivals into MonoSH: direct and indirect apart, so the indirect
/// share can be recorded.
#[derive(Debug, Clone, Copy)]
pub struct MonoShProjector {
    normal: Vec3,
    /// Per channel L0 of the direct arrivals.
    direct_l0: Vec3,
    /// Per channel L0 of the indirect arrivals.
    indirect_l0: Vec3,
    /// Luminance L1 (the only L1 MonoSH keeps).
    l1: Vec3,
}

impl MonoShProjector {
    /// A projector over the hemisphere around `geometric_normal` (normalized here; a zero
    /// normal takes +Z).
    pub fn new(geometric_normal: Vec3) -> Self {
        MonoShProjector {
            normal: geometric_normal.try_normalize().unwrap_or(Vec3::Z),
            direct_l0: Vec3::ZERO,
            indirect_l0: Vec3::ZERO,
            l1: Vec3::ZERO,
        }
    }

    /// Projects one arrival: `irradiance` is the face-on irradiance (a light's shadowed
    /// arrival, or a sky ray's radiance times its Monte-Carlo solid-angle weight) arriving
    /// from `toward_light` (the unit direction from the surface toward where it came from).
    /// `indirect` marks sky and bounce light. An arrival from below the horizon of the
    /// geometric normal, or one with a non-finite or negative channel, adds nothing.
    pub fn add(&mut self, toward_light: Vec3, irradiance: Vec3, indirect: bool) {
        let Some(w) = toward_light.try_normalize() else {
            return;
        };
        if w.dot(self.normal) <= 0.0 || !irradiance.is_finite() || irradiance.min_element() < 0.0 {
            return;
        }
        let l0 = irradiance * 0.25;
        if indirect {
            self.indirect_l0 += l0;
        } else {
            self.direct_l0 += l0;
        }
        self.l1 += w * (luminance(irradiance) * 0.5);
    }

    /// The texel, with the occlusion measured apart (`1` where none is baked).
    pub fn finish(&self, occlusion: f32) -> MonoShTexel {
        let l0 = self.direct_l0 + self.indirect_l0;
        let lum = luminance(l0);
        let (direction, indirect) = if lum > 0.0 {
            let d = self.l1 / (2.0 * lum);
            // Rounding can leave a lone light a hair past unit length.
            let d = if d.length() > 1.0 { d.normalize() } else { d };
            (d, (luminance(self.indirect_l0) / lum).clamp(0.0, 1.0))
        } else {
            (Vec3::ZERO, 0.0)
        };
        MonoShTexel {
            l0,
            direction,
            occlusion: occlusion.clamp(0.0, 1.0),
            indirect,
        }
    }
}

/// Geomerics' non-linear L1 reconstruction of one channel (`shEvaluateDiffuseL1Geomerics`,
/// see the module doc): `l0` the band-0 value, `l1` the band-1 vector, `n` the unit normal.
/// A zero `l1` (or a zero `l0`) reads `l0`.
pub fn geomerics_l1(l0: f32, l1: Vec3, n: Vec3) -> f32 {
    if l0 <= 0.0 {
        return 0.0;
    }
    let r1 = 0.5 * l1;
    let len = r1.length();
    if len <= l0 * 1e-6 {
        return l0;
    }
    // Past one (more L1 than L0 can carry, which a clamp-free interpolation can give), the
    // lobe is at its most directional.
    let r = (len / l0).min(1.0);
    let q = ((r1 / len).dot(n) * 0.5 + 0.5).clamp(0.0, 1.0);
    let p = 1.0 + 2.0 * r;
    let a = (1.0 - r) / (1.0 + r);
    l0 * (a + (1.0 - a) * (p + 1.0) * q.powf(p))
}

/// How a texel is evaluated: the run-time switches the CPU reference follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// `client.render.lightmapNonLinearSh` (default on): Geomerics' reconstruction, else the
    /// linear `L0 + n·L1`.
    pub non_linear: bool,
    /// The look's `bakedWrap` in [0, 1] (0, the default, is Bakery-exact).
    pub baked_wrap: f32,
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation {
            non_linear: true,
            baked_wrap: 0.0,
        }
    }
}

impl MonoShTexel {
    /// The per-channel L1 the shader rebuilds: `direction × L0 × 2`.
    pub fn l1(&self) -> [Vec3; 3] {
        let d2 = self.direction * 2.0;
        [d2 * self.l0.x, d2 * self.l0.y, d2 * self.l0.z]
    }

    /// The diffuse light this texel gives a surface of unit normal `n` (the albedo-free
    /// value the material's base colour multiplies): the CPU reference of the scene shader's
    /// lightmap read.
    pub fn evaluate(&self, n: Vec3, how: Evaluation) -> Vec3 {
        // bakedWrap lifts L0 by the half-Lambert kernel's band-0 ratio and keeps L1: the
        // direction shrinks by the same factor so `d × L0 × 2` is the baked L1 still.
        let lift = 1.0 + how.baked_wrap.clamp(0.0, 1.0) / 3.0;
        let l0 = self.l0 * lift;
        let d = self.direction / lift;
        if !how.non_linear {
            return l0 * (1.0 + 2.0 * d.dot(n)).max(0.0);
        }
        let lum = luminance(l0);
        if lum <= 0.0 {
            return Vec3::ZERO;
        }
        let f = geomerics_l1(lum, d * (2.0 * lum), n);
        l0 * (f / lum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    /// One directional light of irradiance 2 (white) from straight above a floor: by hand,
    /// L0 = 2/4 = 0.5 per channel, L1 = 2·ω/2 = (0, 0, 1), so d = L1 / (2·0.5) = (0, 0, 1).
    #[test]
    fn a_single_directional_light_projects_to_a_quarter_and_its_own_direction() {
        let mut p = MonoShProjector::new(Vec3::Z);
        p.add(Vec3::Z, Vec3::splat(2.0), false);
        let t = p.finish(1.0);
        assert!(
            (t.l0 - Vec3::splat(0.5)).abs().max_element() < 1e-6,
            "{:?}",
            t.l0
        );
        assert!(
            (t.direction - Vec3::Z).abs().max_element() < 1e-6,
            "{:?}",
            t.direction
        );
        assert_eq!(t.indirect, 0.0);
        assert_eq!(t.occlusion, 1.0);
    }

    /// A red light of irradiance 4 at 60° from the normal, in the x-z plane: L0 = (1, 0, 0);
    /// L1 on the luminance = 0.2126·4·ω/2 = 0.4252·ω and lum L0 = 0.2126, so d = ω =
    /// (sin 60°, 0, cos 60°) = (0.8660, 0, 0.5). Linear evaluation along the normal:
    /// L0·(1 + 2 d·n) = 1·(1 + 2·0.5) = 2, which is E·(1/4 + cos 60°/2) = 4·(0.25 + 0.25).
    #[test]
    fn a_tilted_coloured_light_keeps_its_direction_and_its_linear_value() {
        let w = Vec3::new(60f32.to_radians().sin(), 0.0, 0.5);
        let mut p = MonoShProjector::new(Vec3::Z);
        p.add(w, Vec3::new(4.0, 0.0, 0.0), false);
        let t = p.finish(1.0);
        assert!((t.l0 - Vec3::new(1.0, 0.0, 0.0)).abs().max_element() < 1e-6);
        assert!(
            (t.direction - Vec3::new(0.866_025_4, 0.0, 0.5))
                .abs()
                .max_element()
                < 1e-5
        );
        let lin = t.evaluate(
            Vec3::Z,
            Evaluation {
                non_linear: false,
                baked_wrap: 0.0,
            },
        );
        assert!(close(lin.x, 2.0, 1e-5), "{lin:?}");
    }

    /// A light from below the geometric normal's horizon is outside the hemisphere.
    #[test]
    fn a_light_from_behind_the_surface_adds_nothing() {
        let mut p = MonoShProjector::new(Vec3::Z);
        p.add(-Vec3::Z, Vec3::splat(3.0), false);
        p.add(Vec3::X, Vec3::splat(3.0), false);
        let t = p.finish(1.0);
        assert_eq!(t.l0, Vec3::ZERO);
        assert_eq!(t.direction, Vec3::ZERO);
    }

    /// Indirect share: a direct white light of irradiance 4 and a sky arrival of 4 (white):
    /// L0 = 1 + 1 = 2, half of it indirect.
    #[test]
    fn the_indirect_share_is_the_indirect_part_of_l0() {
        let mut p = MonoShProjector::new(Vec3::Z);
        p.add(Vec3::Z, Vec3::splat(4.0), false);
        p.add(Vec3::new(0.0, 1.0, 1.0), Vec3::splat(4.0), true);
        let t = p.finish(0.25);
        assert!(close(t.l0.x, 2.0, 1e-6));
        assert!(close(t.indirect, 0.5, 1e-6), "{}", t.indirect);
        assert_eq!(t.occlusion, 0.25);
    }

    /// Geomerics by hand for one light of irradiance E = 2 from +Z: L0 = 0.5, L1 = (0, 0, 1).
    /// R1 = (0, 0, 0.5), r = 0.5/0.5 = 1, p = 3, a = 0. Straight on q = 1: f = 0.5·4·1 = 2 =
    /// E, the full Lambert. From behind (n = -Z) q = 0: f = 0. At 90° (n = X) q = 1/2:
    /// f = 0.5·4/8 = 0.25.
    #[test]
    fn geomerics_straight_on_is_the_full_lambert_and_behind_is_nothing() {
        assert!(close(
            geomerics_l1(0.5, Vec3::new(0.0, 0.0, 1.0), Vec3::Z),
            2.0,
            1e-6
        ));
        assert!(close(
            geomerics_l1(0.5, Vec3::new(0.0, 0.0, 1.0), -Vec3::Z),
            0.0,
            1e-6
        ));
        assert!(close(
            geomerics_l1(0.5, Vec3::new(0.0, 0.0, 1.0), Vec3::X),
            0.25,
            1e-6
        ));
        // The same through a projected texel and the per-channel scaling.
        let mut p = MonoShProjector::new(Vec3::Z);
        p.add(Vec3::Z, Vec3::new(2.0, 1.0, 0.5), false);
        let t = p.finish(1.0);
        let on = t.evaluate(Vec3::Z, Evaluation::default());
        assert!(
            (on - Vec3::new(2.0, 1.0, 0.5)).abs().max_element() < 1e-5,
            "{on:?}"
        );
        let behind = t.evaluate(-Vec3::Z, Evaluation::default());
        assert!(behind.abs().max_element() < 1e-6, "{behind:?}");
    }

    /// Half-way directional (r = 1/2, L0 = 1, L1 = (0, 0, 1)): p = 2, a = (1/2)/(3/2) = 1/3.
    /// Straight on q = 1: f = 1/3 + (2/3)·3·1 = 7/3. Behind: f = 1/3. And an even texel
    /// (no direction) reads its L0 at every normal.
    #[test]
    fn geomerics_between_the_extremes_and_with_no_direction() {
        assert!(close(
            geomerics_l1(1.0, Vec3::new(0.0, 0.0, 1.0), Vec3::Z),
            7.0 / 3.0,
            1e-5
        ));
        assert!(close(
            geomerics_l1(1.0, Vec3::new(0.0, 0.0, 1.0), -Vec3::Z),
            1.0 / 3.0,
            1e-5
        ));
        let even = MonoShTexel {
            l0: Vec3::new(0.3, 0.2, 0.1),
            ..Default::default()
        };
        for n in [Vec3::Z, -Vec3::Z, Vec3::X] {
            let v = even.evaluate(n, Evaluation::default());
            assert!((v - even.l0).abs().max_element() < 1e-7, "{v:?}");
        }
    }

    /// The lobe's average over the sphere is L0 (one light, 2000 stratified directions by
    /// z = cos θ: the integrand depends on z alone, and z is uniform on the sphere).
    #[test]
    fn the_lobe_keeps_l0_on_average() {
        let n = 2000;
        let mut sum = 0.0f64;
        for i in 0..n {
            let z = -1.0 + (i as f32 + 0.5) * 2.0 / n as f32;
            let s = (1.0 - z * z).max(0.0).sqrt();
            sum += f64::from(geomerics_l1(0.5, Vec3::Z, Vec3::new(s, 0.0, z)));
        }
        assert!(((sum / n as f64) - 0.5).abs() < 1e-4, "{}", sum / n as f64);
    }

    /// bakedWrap 1 on an even texel of L0 = 0.3: the half-Lambert band 0 is 4/3 of the
    /// clamped cosine's, so it reads 0.4.
    #[test]
    fn baked_wrap_lifts_l0_by_the_half_lambert_band_zero() {
        let even = MonoShTexel {
            l0: Vec3::splat(0.3),
            ..Default::default()
        };
        let v = even.evaluate(
            Vec3::Z,
            Evaluation {
                non_linear: true,
                baked_wrap: 1.0,
            },
        );
        assert!(close(v.x, 0.4, 1e-6), "{v:?}");
    }
}
