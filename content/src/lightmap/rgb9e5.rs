//! Shared-exponent texels (`RGB9E5`, Vulkan's `E5B9G9R9_UFLOAT_PACK32`): what an exception
//! block and an imported lightmap store L0 as. Nine bits of mantissa per channel under one
//! five-bit exponent (bias 15), as `EXT_texture_shared_exponent` defines the packing; red in
//! the low bits.

use glam::Vec3;

const MANTISSA_BITS: i32 = 9;
const BIAS: i32 = 15;
/// The largest value a channel holds: 511/512 · 2^16.
pub const MAX: f32 = 65408.0;

/// Packs a linear colour (negative and NaN channels read as 0, past [`MAX`] as `MAX`).
pub fn pack(rgb: Vec3) -> u32 {
    let clamp = |c: f32| if c.is_nan() { 0.0 } else { c.clamp(0.0, MAX) };
    let (r, g, b) = (clamp(rgb.x), clamp(rgb.y), clamp(rgb.z));
    let max = r.max(g).max(b);
    // floor(log2(max)), at least -BIAS - 1 (read off the f32's exponent bits: exact).
    let floor_log2 = if max < f32::MIN_POSITIVE {
        -BIAS - 1
    } else {
        ((max.to_bits() >> 23) & 0xff) as i32 - 127
    }
    .max(-BIAS - 1);
    let mut exp = floor_log2 + 1 + BIAS;
    let scale = |e: i32| 2f64.powi(e - BIAS - MANTISSA_BITS);
    let max_s = (f64::from(max) / scale(exp) + 0.5).floor();
    if max_s >= f64::from(1u32 << MANTISSA_BITS) {
        exp += 1;
    }
    let s = scale(exp);
    let q = |c: f32| ((f64::from(c) / s + 0.5).floor() as u32).min(511);
    q(r) | (q(g) << 9) | (q(b) << 18) | ((exp as u32) << 27)
}

/// Unpacks a shared-exponent texel.
pub fn unpack(v: u32) -> Vec3 {
    let exp = (v >> 27) as i32;
    let s = 2f32.powi(exp - BIAS - MANTISSA_BITS);
    Vec3::new(
        (v & 511) as f32 * s,
        ((v >> 9) & 511) as f32 * s,
        ((v >> 18) & 511) as f32 * s,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: (1, 0, 0) has floor(log2 1) = 0, so the exponent is 0 + 1 + 15 = 16
    /// and a step is 2^(16-15-9) = 1/256: red 256, and 16 << 27 = 0x8000_0000.
    /// (0.5, 0.25, 0.125): exponent 15, step 1/512: 256, 128, 64.
    #[test]
    fn packs_values_worked_by_hand() {
        assert_eq!(pack(Vec3::new(1.0, 0.0, 0.0)), 0x8000_0100);
        assert_eq!(
            pack(Vec3::new(0.5, 0.25, 0.125)),
            256 | (128 << 9) | (64 << 18) | (15 << 27)
        );
        assert_eq!(pack(Vec3::ZERO), 0);
        assert_eq!(unpack(0x8000_0100), Vec3::new(1.0, 0.0, 0.0));
        // 511.9 rounds up past nine bits at exponent 24, so it takes exponent 25: step 2,
        // 511.9 / 2 + 0.5 = 256.45 -> 256, read back 512.
        assert_eq!(unpack(pack(Vec3::new(511.9, 0.0, 0.0))).x, 512.0);
        assert_eq!(unpack(pack(Vec3::splat(1e9))), Vec3::splat(MAX));
        assert_eq!(pack(Vec3::new(f32::NAN, -1.0, 0.0)), 0);
    }

    #[test]
    fn round_trips_within_half_a_step_of_the_largest_channel() {
        for &c in &[
            Vec3::new(0.001, 0.5, 3.0),
            Vec3::new(100.0, 1.0, 0.01),
            Vec3::new(7.25, 7.25, 7.25),
        ] {
            let back = unpack(pack(c));
            let step = c.max_element() / 256.0;
            assert!((back - c).abs().max_element() <= step, "{c:?} -> {back:?}");
        }
    }
}
