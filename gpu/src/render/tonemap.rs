//! The resolve's CPU reference (spec: dh.map, "The world's look"): exposure, the five
//! tonemap curves, the bloom prefilter's threshold and knee, and the bloom pyramid's shape
//! (diffusion in levels, the anamorphic ratio). `shaders/post.wgsl` is these functions.

/// A tonemap curve, as the renderer takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tonemap {
    /// Extended Reinhard reaching white at linear [`REINHARD_WHITE`]: the default.
    #[default]
    ReinhardWhite,
    /// The ACES filmic fit (Narkowicz).
    Aces,
    /// Plain Reinhard, `x / (1 + x)`.
    Reinhard,
    /// Hable's Uncharted 2 curve, normalized to its white point.
    Hable,
    /// No curve: the value clamped to [0, 1].
    None,
}

impl Tonemap {
    /// The index the shader switches on.
    pub fn index(self) -> u32 {
        match self {
            Tonemap::ReinhardWhite => 0,
            Tonemap::Aces => 1,
            Tonemap::Reinhard => 2,
            Tonemap::Hable => 3,
            Tonemap::None => 4,
        }
    }
}

/// Where reinhardWhite reaches exactly white: linear 4.
pub const REINHARD_WHITE: f32 = 4.0;

/// The seven numbers of the hable curve: A shoulder strength, B linear strength, C linear
/// angle, D toe strength, E toe numerator, F toe denominator, W white point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hable {
    /// A.
    pub a: f32,
    /// B.
    pub b: f32,
    /// C.
    pub c: f32,
    /// D.
    pub d: f32,
    /// E.
    pub e: f32,
    /// F.
    pub f: f32,
    /// W.
    pub w: f32,
}

impl Default for Hable {
    fn default() -> Self {
        Hable::PUBLISHED
    }
}

impl Hable {
    /// Hable's published coefficients.
    pub const PUBLISHED: Hable = Hable {
        a: 0.15,
        b: 0.50,
        c: 0.10,
        d: 0.20,
        e: 0.02,
        f: 0.30,
        w: 11.2,
    };

    /// The unnormalized curve.
    pub fn partial(&self, x: f32) -> f32 {
        let Hable {
            a, b, c, d, e, f, ..
        } = *self;
        ((x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f)) - e / f
    }

    /// The curve normalized so `w` maps to white.
    pub fn apply(&self, x: f32) -> f32 {
        let white = self.partial(self.w);
        if white > 0.0 {
            self.partial(x) / white
        } else {
            0.0
        }
    }
}

/// One channel through `curve` (after exposure), clamped to [0, 1].
pub fn tonemap(curve: Tonemap, hable: &Hable, x: f32) -> f32 {
    let x = x.max(0.0);
    let y = match curve {
        Tonemap::ReinhardWhite => x * (1.0 + x / (REINHARD_WHITE * REINHARD_WHITE)) / (1.0 + x),
        Tonemap::Aces => (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14),
        Tonemap::Reinhard => x / (1.0 + x),
        Tonemap::Hable => hable.apply(x),
        Tonemap::None => x,
    };
    y.clamp(0.0, 1.0)
}

/// The bloom prefilter (spec 000:1635 "Linear radiance above which a pixel blooms, tested on
/// its brightest channel", 000:1636 "Width of the quadratic knee below the threshold, as a
/// fraction of it"): how much of a pixel of linear `color` (after exposure) blooms. With
/// `k = soft_knee × threshold` and `b` the brightest channel, the knee is
/// `q = clamp(b − threshold + k, 0, 2k)² / 4k` and the pixel is scaled by
/// `max(q, b − threshold) / b` — Unity PPv2's `QuadraticThreshold` (0 is a hard cut).
pub fn bloom_prefilter(color: [f32; 3], threshold: f32, soft_knee: f32) -> [f32; 3] {
    let br = color[0].max(color[1]).max(color[2]);
    let knee = threshold * soft_knee;
    let mut rq = (br - threshold + knee).clamp(0.0, 2.0 * knee);
    rq = rq * rq / (4.0 * knee + 1e-5);
    let contrib = rq.max(br - threshold) / br.max(1e-5);
    color.map(|c| c * contrib.max(0.0))
}

/// The largest number of pyramid levels bloom builds (PPv2's `k_MaxPyramidSize`).
pub const MAX_BLOOM_LEVELS: u32 = 16;

/// The bloom pyramid's shape for a `width × height` frame (Unity PPv2's `BloomRenderer`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BloomPlan {
    /// The prefiltered base's size: the frame halved, less on the axis the anamorphic ratio
    /// stretches.
    pub base: [u32; 2],
    /// Pyramid levels, the prefiltered base included (PPv2's iteration count, at least 1):
    /// level 0 is the base, each next one halves the last (never below one texel).
    pub levels: u32,
    /// The upsample tent's radius, in source texels.
    pub sample_scale: f32,
}

impl BloomPlan {
    /// The size of pyramid level `i` (0: the base), each halving the last, at least 1.
    pub fn level_size(&self, i: u32) -> [u32; 2] {
        let half = |v: u32| v.checked_shr(i).unwrap_or(0).max(1);
        [half(self.base[0]), half(self.base[1])]
    }
}

/// The pyramid for a frame, as PPv2 sizes it: the base is `floor(width / (2 − rw)) ×
/// floor(height / (2 − rh))` (the anamorphic ratio `anamorphic`, -1–1, keeps `rw = −ratio`
/// more horizontal resolution when negative, so the glow reads tall, and `rh = ratio` more
/// vertical when positive); `logs = log2(max(base)) + diffusion − 10` (diffusion 1–10, spec
/// 000:1637 "At the default it saturates against the pyramid's level cap"), the levels are
/// `floor(logs)` (1 to [`MAX_BLOOM_LEVELS`], and never more than halvings of the shorter
/// side leave a texel for) and the tent's sample scale `0.5 + logs − floor(logs)`.
pub fn bloom_plan(width: u32, height: u32, diffusion: f32, anamorphic: f32) -> BloomPlan {
    let ratio = anamorphic.clamp(-1.0, 1.0);
    let rw = if ratio < 0.0 { -ratio } else { 0.0 };
    let rh = if ratio > 0.0 { ratio } else { 0.0 };
    let tw = ((width as f32 / (2.0 - rw)).floor() as u32).max(1);
    let th = ((height as f32 / (2.0 - rh)).floor() as u32).max(1);
    let s = tw.max(th) as f32;
    let logs = s.log2() + diffusion.clamp(1.0, 10.0) - 10.0;
    let logs_i = logs.floor();
    // Never more levels than the shorter side has halvings with a texel left (its bit length).
    let fit = 32 - tw.min(th).max(1).leading_zeros();
    let levels = (logs_i as i64).clamp(1, i64::from(MAX_BLOOM_LEVELS.min(fit.max(1)))) as u32;
    BloomPlan {
        base: [tw, th],
        levels,
        sample_scale: 0.5 + logs - logs_i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reinhard_white_is_white_at_four_and_gentle_in_the_darks() {
        let h = Hable::PUBLISHED;
        assert!((tonemap(Tonemap::ReinhardWhite, &h, 4.0) - 1.0).abs() < 1e-6);
        let g = tonemap(Tonemap::ReinhardWhite, &h, 0.02) / 0.02;
        assert!((0.97..0.99).contains(&g), "gain {g}");
        assert_eq!(tonemap(Tonemap::ReinhardWhite, &h, 100.0), 1.0);
    }

    #[test]
    fn aces_has_its_toe_and_unity_points() {
        let h = Hable::PUBLISHED;
        for x in [0.0622f32, 0.728] {
            assert!((tonemap(Tonemap::Aces, &h, x) - x).abs() < 2e-3, "{x}");
        }
        // Darks are darkened, midtones lifted (spec: "aces will read a dark material as black").
        assert!(tonemap(Tonemap::Aces, &h, 0.02) < 0.02 * 0.6);
        assert!(tonemap(Tonemap::Aces, &h, 0.3) > 0.3 * 1.35);
    }

    #[test]
    fn reinhard_and_none() {
        let h = Hable::PUBLISHED;
        assert!((tonemap(Tonemap::Reinhard, &h, 1.0) - 0.5).abs() < 1e-6);
        assert_eq!(tonemap(Tonemap::None, &h, 0.25), 0.25);
        assert_eq!(tonemap(Tonemap::None, &h, 5.0), 1.0);
        assert_eq!(tonemap(Tonemap::None, &h, -1.0), 0.0);
    }

    #[test]
    fn hable_is_normalized_to_its_block() {
        let h = Hable::PUBLISHED;
        assert!((tonemap(Tonemap::Hable, &h, 11.2) - 1.0).abs() < 1e-5);
        assert!(tonemap(Tonemap::Hable, &h, 0.0).abs() < 1e-6);
        // A lower white point from the block brightens everything below it.
        let hot = Hable { w: 4.0, ..h };
        assert!((tonemap(Tonemap::Hable, &hot, 4.0) - 1.0).abs() < 1e-5);
        assert!(tonemap(Tonemap::Hable, &hot, 1.0) > tonemap(Tonemap::Hable, &h, 1.0));
        // Monotonic over the range.
        let mut last = -1.0;
        for i in 0..200 {
            let y = tonemap(Tonemap::Hable, &h, i as f32 * 0.06);
            assert!(y >= last);
            last = y;
        }
    }

    #[test]
    fn prefilter_threshold_and_knee() {
        // Far above: everything past the threshold passes.
        let c = bloom_prefilter([5.0, 5.0, 5.0], 1.721, 0.5);
        assert!((c[0] - (5.0 - 1.721)).abs() < 1e-3);
        // Far below the knee: nothing.
        assert_eq!(
            bloom_prefilter([0.5, 0.2, 0.1], 1.721, 0.5),
            [0.0, 0.0, 0.0]
        );
        // Inside the knee: a little, less than a hard cut would give above the threshold.
        let k = bloom_prefilter([1.6, 1.6, 1.6], 1.721, 0.5);
        assert!(k[0] > 0.0 && k[0] < 0.2);
        // A hard cut (knee 0) passes nothing at or below the threshold.
        assert_eq!(
            bloom_prefilter([1.7, 1.0, 1.0], 1.721, 0.0),
            [0.0, 0.0, 0.0]
        );
        // Tested on the brightest channel, hue kept.
        let h = bloom_prefilter([4.0, 2.0, 0.0], 1.0, 0.5);
        assert!((h[0] / h[1] - 2.0).abs() < 1e-4 && h[2] == 0.0);
    }

    #[test]
    fn prefilter_follows_the_soft_knee_curve_worked_by_hand() {
        // The spec's defaults (000:1635-1636): threshold t = 1.721, soft knee 0.5, so the
        // knee k = 0.8605, the curve starts at t − k = 0.8605 and 4k = 3.442. By hand, for a
        // pixel whose brightest channel is b (the others scale alike):
        //   b = 0.8:    b − t + k = −0.061 → clamped to 0 → nothing blooms.
        //   b = 1.2:    q = 0.3395² / 3.442 = 0.115260 / 3.442 = 0.033486; b − t < 0;
        //               factor 0.033486 / 1.2 = 0.027905.
        //   b = 1.5:    q = 0.6395² / 3.442 = 0.408960 / 3.442 = 0.118815; factor 0.079210.
        //   b = 2.0:    q = 1.1395² / 3.442 = 1.298460 / 3.442 = 0.377240 (above b − t =
        //               0.279, the knee still wins); factor 0.188620.
        //   b = 3.0:    b − t + k = 2.1395 → clamped to 2k = 1.721, q = 1.721² / 3.442 =
        //               0.8605 < b − t = 1.279, so the linear part wins; factor 1.279 / 3 =
        //               0.426333.
        //   b = 5.0:    b − t = 3.279; factor 0.6558.
        let cases = [
            (0.8f32, 0.0f32),
            (1.2, 0.027905),
            (1.5, 0.079210),
            (2.0, 0.188620),
            (3.0, 0.426333),
            (5.0, 0.6558),
        ];
        for (b, factor) in cases {
            // Brightest channel red; green and blue at half and a fifth keep the hue.
            let out = bloom_prefilter([b, b * 0.5, b * 0.2], 1.721, 0.5);
            for (k, share) in [1.0f32, 0.5, 0.2].into_iter().enumerate() {
                let want = b * share * factor;
                assert!(
                    (out[k] - want).abs() < 2e-5 + want * 1e-4,
                    "b = {b}, channel {k}: {} against {want}",
                    out[k]
                );
            }
        }
        // Tested on the brightest channel whichever it is: blue at 2.0 passes as red did.
        let blue = bloom_prefilter([0.2, 0.4, 2.0], 1.721, 0.5);
        assert!((blue[2] - 2.0 * 0.188620).abs() < 1e-4, "{blue:?}");
        // The knee is continuous where the quadratic meets the line: at b = t + k = 2.5815
        // the knee gives (2k)² / 4k = k = 0.8605 = b − t.
        let b = 1.721 + 0.8605;
        let at = bloom_prefilter([b, 0.0, 0.0], 1.721, 0.5)[0];
        assert!((at - 0.8605).abs() < 1e-4, "{at}");
    }

    #[test]
    fn the_pyramid_has_ppv2s_iteration_count_base_included() {
        // PPv2 BloomRenderer for a 320 × 180 frame, diffusion 10, no anamorphic ratio: the base
        // is 160 × 90, logs = log2(160) + 10 − 10 = 7.32, so 7 iterations: the prefiltered
        // base and six halvings (160×90, 80×45, 40×22, 20×11, 10×5, 5×2, 2×1), sample scale
        // 0.5 + 0.32 = 0.82.
        let p = bloom_plan(320, 180, 10.0, 0.0);
        assert_eq!(p.base, [160, 90]);
        assert_eq!(p.levels, 7);
        let sizes: Vec<[u32; 2]> = (0..p.levels).map(|i| p.level_size(i)).collect();
        assert_eq!(
            sizes,
            vec![
                [160, 90],
                [80, 45],
                [40, 22],
                [20, 11],
                [10, 5],
                [5, 2],
                [2, 1]
            ]
        );
        assert!((p.sample_scale - 0.8219).abs() < 1e-3, "{}", p.sample_scale);
        // The spec's anamorphic -0.24 (000:1637): the width divides by 1.76, not 2:
        // floor(320 / 1.76) = 181, height 90; log2(181) = 7.50, still 7 levels.
        let a = bloom_plan(320, 180, 10.0, -0.24);
        assert_eq!((a.base, a.levels), ([181, 90], 7));
        // Diffusion 6.2 (the unity look, 000:1590): logs = 7.32 − 3.8 = 3.52, 3 levels.
        assert_eq!(bloom_plan(320, 180, 6.2, 0.0).levels, 3);
    }

    #[test]
    fn pyramid_follows_diffusion_and_anamorphic() {
        let p = bloom_plan(1280, 720, 10.0, 0.0);
        assert_eq!(p.base, [640, 360]);
        assert_eq!(p.levels, 9); // log2(640) floors to 9; 360 also halves 9 times
        let q = bloom_plan(1280, 720, 4.0, 0.0);
        assert!(q.levels < p.levels);
        assert_eq!(bloom_plan(1280, 720, 1.0, 0.0).levels, 1);
        let wide = bloom_plan(1280, 720, 10.0, -0.24);
        assert!(wide.base[0] > 640 && wide.base[1] == 360);
        let tall = bloom_plan(1280, 720, 10.0, 0.5);
        assert!(tall.base[1] > 360 && tall.base[0] == 640);
        assert!(p.sample_scale >= 0.5 && p.sample_scale < 1.5);
    }
}
