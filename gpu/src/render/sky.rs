//! The procedural sky's CPU reference (spec: dh.map, "The procedural sky" and "Sky-derived
//! ambient"): single scattering of the map's sun through Rayleigh and Mie air along an air
//! mass that grows toward the horizon, the sun disc, the ground below the horizon, and the
//! order-2 spherical-harmonic ambient projected from 1024 uniform directions with the disc
//! left out. `shaders/sky.wgsl` evaluates [`sky_radiance`] line for line.

use super::frame::Sky;
use glam::Vec3;

use super::math;

/// Earth's Rayleigh optical depth at the zenith per channel (β_R × 8 km scale height).
pub const RAYLEIGH_DEPTH: Vec3 = Vec3::new(0.0464, 0.108, 0.265);
/// Aerosol optical depth at the zenith (β_M × 1.2 km scale height).
pub const MIE_DEPTH: f32 = 0.0252;
/// The scale from the single-scattering integral to the engine's radiance units, chosen so
/// an overhead sun of intensity 1 gives a zenith of about a fifth of a white surface it
/// lights (ours: the spec gives the model, not its absolute scale).
pub const SKY_SCALE: f32 = 6.0;

/// The air mass along a ray at cosine-elevation `mu`: 1 at the zenith, growing toward the
/// horizon as fast as `softness` lets it (small softness: a hard bright band).
pub fn air_mass(mu: f32, softness: f32) -> f32 {
    let s = softness.max(1e-3);
    (1.0 + s) / (mu.max(0.0) + s)
}

fn phase_rayleigh(c: f32) -> f32 {
    3.0 / (16.0 * std::f32::consts::PI) * (1.0 + c * c)
}

fn phase_mie(c: f32, g: f32) -> f32 {
    // Cornette–Shanks.
    let g2 = g * g;
    3.0 / (8.0 * std::f32::consts::PI) * (1.0 - g2) * (1.0 + c * c)
        / ((2.0 + g2) * (1.0 + g2 - 2.0 * g * c).max(1e-6).powf(1.5))
}

fn transmittance(sky: &Sky, mass: f32) -> Vec3 {
    Vec3::from_array(
        [0, 1, 2].map(|k| (-(RAYLEIGH_DEPTH[k] * sky.rayleigh + MIE_DEPTH * sky.mie) * mass).exp()),
    )
}

/// The sky's radiance seen along unit `dir`, for a sun travelling along `sun_direction`
/// with linear radiance `sun`. `disc` adds the solar disc (`angular_diameter` degrees);
/// the harmonics are projected without it.
pub fn sky_radiance(
    sky: &Sky,
    dir: Vec3,
    sun_direction: Vec3,
    sun: Vec3,
    angular_diameter: f32,
    disc: bool,
) -> Vec3 {
    let to_sun = (math::normalize_or(sun_direction, Vec3::new(0.0, -1.0, 0.0))) * (-1.0);
    let mu = dir[1];
    let mu_sun = to_sun[1];
    let cos_theta = dir.dot(to_sun).clamp(-1.0, 1.0);
    let t_view = transmittance(sky, air_mass(mu, sky.horizon_softness));
    // The sun's light reaching the air: reddened by its own path, fading out as it sets.
    let t_sun = transmittance(sky, air_mass(mu_sun, sky.horizon_softness));
    let sun_up = ((mu_sun + 0.1) / 0.2).clamp(0.0, 1.0);
    let mut out = Vec3::ZERO;
    for k in 0..3 {
        let br = RAYLEIGH_DEPTH[k] * sky.rayleigh;
        let bm = MIE_DEPTH * sky.mie;
        let total = (br + bm).max(1e-8);
        let scatter = (br * phase_rayleigh(cos_theta)
            + bm * phase_mie(cos_theta, sky.mie_anisotropy.clamp(0.0, 0.999)))
            / total;
        let inscatter = scatter * (1.0 - t_view[k]) * t_sun[k] * sun[k] * sun_up * SKY_SCALE;
        out[k] = inscatter;
    }
    if disc {
        let radius = (angular_diameter.max(0.0) * 0.5).to_radians();
        let angle = cos_theta.acos();
        // One-pixel-ish antialiased edge: a tenth of the radius.
        let edge = (radius * 0.1).max(1e-5);
        let inside = ((radius + edge - angle) / (2.0 * edge)).clamp(0.0, 1.0);
        if inside > 0.0 {
            for k in 0..3 {
                out[k] += sun[k] * sky.sun_disc * t_view[k] * inside;
            }
        }
    }
    // Below the horizon: the ground, lit by the sun and a share of the sky, blended in
    // across the horizon band.
    let ground_light: Vec3 = Vec3::from_array(
        [0, 1, 2].map(|k| sun[k] * t_sun[k] * mu_sun.max(0.0) * sun_up + 0.1 * sun[k] * sun_up),
    );
    let ground = [0, 1, 2].map(|k| sky.ground[k] * ground_light[k] / std::f32::consts::PI);
    let blend = sky.ground_blend.max(1e-4);
    let g = ((blend - mu) / (2.0 * blend)).clamp(0.0, 1.0);
    Vec3::from_array([0, 1, 2].map(|k| (out[k] * (1.0 - g) + ground[k] * g) * sky.intensity))
}

/// Nine order-2 harmonic coefficients per channel.
pub type Sh9 = [Vec3; 9];

/// The real SH basis at unit `d`, bands 0–2.
pub fn sh_basis(d: Vec3) -> [f32; 9] {
    let [x, y, z] = d.to_array();
    [
        0.282_095,
        0.488_603 * y,
        0.488_603 * z,
        0.488_603 * x,
        1.092_548 * x * y,
        1.092_548 * y * z,
        0.315_392 * (3.0 * z * z - 1.0),
        1.092_548 * x * z,
        0.546_274 * (x * x - y * y),
    ]
}

/// The directions the projection samples: 1024, uniform over the sphere (Fibonacci).
pub fn sample_directions(n: usize) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let r = (1.0 - y * y).max(0.0).sqrt();
            let phi = golden * i as f32;
            Vec3::new(r * phi.cos(), y, r * phi.sin())
        })
        .collect()
}

/// Projects `radiance` over the sphere into order-2 harmonics and convolves them with the
/// clamped-cosine lobe, divided by π: evaluating the result at a normal gives the fill a
/// surface facing it receives in the same units as the hemisphere fill (a uniform sky of
/// radiance L gives L).
pub fn project_irradiance(radiance: impl Fn(Vec3) -> Vec3) -> Sh9 {
    let dirs = sample_directions(1024);
    let mut sh = [Vec3::ZERO; 9];
    let weight = 4.0 * std::f32::consts::PI / dirs.len() as f32;
    for d in &dirs {
        let l = radiance(*d);
        let b = sh_basis(*d);
        for (i, c) in sh.iter_mut().enumerate() {
            for k in 0..3 {
                c[k] += l[k] * b[i] * weight;
            }
        }
    }
    // Clamped cosine: A0 = π, A1 = 2π/3, A2 = π/4; then / π.
    let band = [
        1.0,
        2.0 / 3.0,
        2.0 / 3.0,
        2.0 / 3.0,
        0.25,
        0.25,
        0.25,
        0.25,
        0.25,
    ];
    for (c, a) in sh.iter_mut().zip(band) {
        *c *= a;
    }
    sh
}

/// The fill at unit normal `n` from projected harmonics, clamped at zero.
pub fn eval_sh(sh: &Sh9, n: Vec3) -> Vec3 {
    let b = sh_basis(n);
    Vec3::from_array([0, 1, 2].map(|k| (0..9).map(|i| sh[i][k] * b[i]).sum::<f32>().max(0.0)))
}

/// The sky's ambient harmonics, the sun disc excluded.
pub fn sky_ambient(sky: &Sky, sun_direction: Vec3, sun: Vec3, angular_diameter: f32) -> Sh9 {
    project_irradiance(|d| sky_radiance(sky, d, sun_direction, sun, angular_diameter, false))
}

/// The sky's ambient harmonics kept between frames: "It is re-projected only when the sky
/// parameters or the sun change, not per frame" (spec 000:1421). The key is every input of
/// [`sky_ambient`], compared exactly, so any change to the sky or the sun projects again.
#[derive(Debug, Clone, Default)]
pub struct SkyAmbientCache {
    key: Option<(Sky, Vec3, Vec3, f32)>,
    sh: Sh9,
    projections: u64,
}

impl SkyAmbientCache {
    /// The harmonics of this sky and sun, projected only when they differ from the last.
    pub fn get(&mut self, sky: &Sky, sun_direction: Vec3, sun: Vec3, angular_diameter: f32) -> Sh9 {
        let key = (*sky, sun_direction, sun, angular_diameter);
        if self.key != Some(key) {
            self.sh = sky_ambient(sky, sun_direction, sun, angular_diameter);
            self.key = Some(key);
            self.projections += 1;
        }
        self.sh
    }

    /// How many projections it has run.
    pub fn projections(&self) -> u64 {
        self.projections
    }
}

#[cfg(test)]
mod tests {

    /// spec 000:1421: the same sky and sun twice is one projection; a moved sun or a
    /// changed sky parameter is another, with the harmonics of the new inputs.
    #[test]
    fn the_sky_ambient_is_projected_only_when_the_sky_or_the_sun_changes() {
        let mut cache = SkyAmbientCache::default();
        let s = Sky::default();
        let sun = Vec3::new(0.3, -0.8, 0.2).normalize();
        let a = cache.get(&s, sun, Vec3::ONE, 0.53);
        let b = cache.get(&s, sun, Vec3::ONE, 0.53);
        assert_eq!(cache.projections(), 1);
        assert_eq!(a, b);
        let moved = Vec3::new(-0.3, -0.8, 0.2).normalize();
        let c = cache.get(&s, moved, Vec3::ONE, 0.53);
        assert_eq!(cache.projections(), 2);
        assert_eq!(c, sky_ambient(&s, moved, Vec3::ONE, 0.53));
        let hazy = Sky { mie: 3.0, ..s };
        cache.get(&hazy, moved, Vec3::ONE, 0.53);
        cache.get(&hazy, moved, Vec3::ONE, 0.53);
        assert_eq!(cache.projections(), 3);
        cache.get(&hazy, moved, Vec3::splat(2.0), 0.53);
        assert_eq!(cache.projections(), 4, "a brighter sun projects again");
    }
    use super::*;
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    const DOWN_SUN: Vec3 = Vec3::new(-0.35, -0.85, -0.4);

    fn lum(c: Vec3) -> f32 {
        0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    }

    #[test]
    fn the_zenith_is_blue_and_the_horizon_whiter() {
        let s = Sky::default();
        let sun = math::normalize_or(DOWN_SUN, Vec3::new(0.0, -1.0, 0.0));
        let up = sky_radiance(&s, Vec3::new(0.0, 1.0, 0.0), sun, Vec3::ONE, 0.53, false);
        assert!(up[2] > up[1] && up[1] > up[0], "zenith {up:?}");
        assert!(lum(up) > 0.03 && lum(up) < 1.0, "zenith {up:?}");
        // Away from the sun at the horizon: brighter and less saturated than the zenith.
        let away = math::normalize_or(Vec3::new(0.35, 0.02, 0.4), Vec3::new(1.0, 0.0, 0.0));
        let h = sky_radiance(&s, away, sun, Vec3::ONE, 0.53, false);
        assert!(lum(h) > lum(up), "horizon {h:?} zenith {up:?}");
        assert!(h[2] / h[0] < up[2] / up[0]);
        // More Rayleigh deepens the blue overhead.
        let deep = Sky { rayleigh: 3.0, ..s };
        let u2 = sky_radiance(&deep, Vec3::new(0.0, 1.0, 0.0), sun, Vec3::ONE, 0.53, false);
        assert!(u2[2] > up[2]);
    }

    #[test]
    fn the_sun_disc_clears_the_bloom_threshold_and_has_its_size() {
        let s = Sky::default();
        let sun = math::normalize_or(DOWN_SUN, Vec3::new(0.0, -1.0, 0.0));
        let to_sun = sun * (-1.0);
        let at = sky_radiance(&s, to_sun, sun, Vec3::ONE, 0.53, true);
        assert!(at[0] > 1.721 && at[1] > 1.721 && at[2] > 1.721, "{at:?}");
        // One degree off the disc's center there is no disc.
        let off = math::normalize_or(to_sun + Vec3::new(0.02, 0.0, 0.0), to_sun);
        let o = sky_radiance(&s, off, sun, Vec3::ONE, 0.53, true);
        assert!(lum(o) < 1.0, "{o:?}");
        // A wider disc covers it.
        let wide = sky_radiance(&s, off, sun, Vec3::ONE, 5.0, true);
        assert!(lum(wide) > 1.721);
    }

    #[test]
    fn the_ground_is_below_the_horizon() {
        let s = Sky::default();
        let sun = math::normalize_or(DOWN_SUN, Vec3::new(0.0, -1.0, 0.0));
        let g = sky_radiance(&s, Vec3::new(0.0, -1.0, 0.0), sun, Vec3::ONE, 0.53, false);
        assert!(g[0] > g[2], "warm ground albedo {g:?}");
    }

    #[test]
    fn a_uniform_sky_projects_to_its_own_value() {
        let sh = project_irradiance(|_| Vec3::new(0.5, 0.25, 1.0));
        for n in [
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.577, -0.577, 0.577),
        ] {
            let e = eval_sh(&sh, n);
            assert!(
                (e[0] - 0.5).abs() < 0.01
                    && (e[1] - 0.25).abs() < 0.01
                    && (e[2] - 1.0).abs() < 0.02,
                "{e:?}"
            );
        }
    }

    #[test]
    fn sky_ambient_is_bluer_up_and_warmer_toward_the_sun_and_excludes_the_disc() {
        let s = Sky::default();
        let sun = math::normalize_or(DOWN_SUN, Vec3::new(0.0, -1.0, 0.0));
        let sh = sky_ambient(&s, sun, Vec3::ONE, 0.53);
        let up = eval_sh(&sh, Vec3::new(0.0, 1.0, 0.0));
        let down = eval_sh(&sh, Vec3::new(0.0, -1.0, 0.0));
        assert!(lum(up) > lum(down), "up {up:?} down {down:?}");
        assert!(up[2] > up[0]);
        let toward = eval_sh(
            &sh,
            (math::normalize_or(Vec3::new(-0.35, 0.0, -0.4), Vec3::new(1.0, 0.0, 0.0))) * (-1.0),
        );
        let away = eval_sh(
            &sh,
            math::normalize_or(Vec3::new(-0.35, 0.0, -0.4), Vec3::new(1.0, 0.0, 0.0)),
        );
        assert!(lum(toward) > lum(away), "toward {toward:?} away {away:?}");
        // The disc never reaches the harmonics: a brighter disc changes nothing.
        let hot = sky_ambient(&Sky { sun_disc: 1e6, ..s }, sun, Vec3::ONE, 0.53);
        assert_eq!(hot, sh);
    }
}
