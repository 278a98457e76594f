//! The debug overlays' content, extracted from the running host for the renderer's overlay
//! passes (`dh_gpu::render::overlay`).
//!
//! Drawn: `client.debug.lights` (000:1659): each lit light's influence volume in the
//! depth-tested line pass, tinted with that light's own colour — a range sphere (three
//! great circles) for a point light, the outer cone (its rim at the range and four edges
//! from the apex) for a spot; a light switched off is not drawn, nor a directional light
//! (no bounded volume).
//!
//! Not drawn yet, said once per run by [`not_drawn`]: `client.debug.entityGizmos` (dots,
//! labels, wiring lines), `client.debug.colliderGizmo`, and `client.debug.hud` (the
//! position readout and the axis gizmo).

use dh_content::schema::components::light::LightKind as MapLightKind;
use dh_gpu::render::math::rotate;
use dh_gpu::render::Overlay;
use dh_sims::{Disabled, Light as SimLight};
use glam::{Quat, Vec3};

use crate::host::Host;
use crate::prefs::Prefs;

/// Segments per circle of a range sphere or a cone's rim.
pub const CIRCLE_SEGMENTS: usize = 32;

/// One light's influence volume, as the overlay draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightVolume {
    /// A point light's sphere (`outer_cone` unused) or a spot's cone.
    pub spot: bool,
    /// Where it sits, meters.
    pub position: Vec3,
    /// The direction a spot points (unit).
    pub direction: Vec3,
    /// Its range, meters.
    pub range: f32,
    /// A spot's outer cone, full angle in degrees.
    pub outer_cone: f32,
    /// Its colour, linear.
    pub color: Vec3,
    /// Whether it is switched on.
    pub on: bool,
}

/// The lights of the host's world, on or off (disabled records left out); directional
/// lights and `none` have no volume and are left out.
pub fn light_volumes(host: &Host) -> Vec<LightVolume> {
    let sim = host.sim();
    let world = sim.world();
    let mut out = Vec::new();
    for &e in sim.records() {
        if world.get::<&Disabled>(e).is_ok() {
            continue;
        }
        let (Some(pose), Some(l)) = (sim.world_pose(e), sim.get::<SimLight>(e)) else {
            continue;
        };
        let eff = l.effective();
        let spot = match eff.kind {
            MapLightKind::Point => false,
            MapLightKind::Spot => true,
            MapLightKind::Directional | MapLightKind::None => continue,
        };
        out.push(LightVolume {
            spot,
            position: pose.position + l.offset,
            direction: rotate(pose.rotation, Vec3::NEG_Y).normalize_or(Vec3::NEG_Y),
            range: eff.range,
            outer_cone: eff.outer_cone,
            color: eff.color,
            on: eff.on,
        });
    }
    out
}

/// A linear colour as sRGB bytes, scaled so its brightest channel is full (a dim lamp's
/// volume stays readable), opaque.
pub fn tint(color: Vec3) -> [u8; 4] {
    let m = color.max_element();
    let c = if m > 0.0 { color / m } else { Vec3::ONE };
    let enc = |v: f32| {
        let v = v.clamp(0.0, 1.0);
        let s = if v <= 0.003_130_8 {
            v * 12.92
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    [enc(c.x), enc(c.y), enc(c.z), 255]
}

/// A circle of `radius` around `center` in the plane spanned by `u` and `v` (unit, normal
/// to each other).
fn circle(o: &mut Overlay, center: Vec3, u: Vec3, v: Vec3, radius: f32, color: [u8; 4]) {
    let at = |i: usize| {
        let a = i as f32 / CIRCLE_SEGMENTS as f32 * std::f32::consts::TAU;
        center + (u * a.cos() + v * a.sin()) * radius
    };
    for i in 0..CIRCLE_SEGMENTS {
        o.line(at(i), at(i + 1), color);
    }
}

/// Adds the influence volumes of the lights that are on.
pub fn light_lines(o: &mut Overlay, lights: &[LightVolume]) {
    for l in lights.iter().filter(|l| l.on && l.range > 0.0) {
        let color = tint(l.color);
        if !l.spot {
            circle(o, l.position, Vec3::X, Vec3::Y, l.range, color);
            circle(o, l.position, Vec3::Y, Vec3::Z, l.range, color);
            circle(o, l.position, Vec3::Z, Vec3::X, l.range, color);
            continue;
        }
        let d = l.direction.normalize_or(Vec3::NEG_Y);
        let half = (l.outer_cone * 0.5).clamp(0.0, 89.0).to_radians();
        let (u, v) = d.any_orthonormal_pair();
        let rim = l.position + d * l.range * half.cos();
        let r = l.range * half.sin();
        circle(o, rim, u, v, r, color);
        for k in 0..4 {
            let q = Quat::from_axis_angle(d, k as f32 * std::f32::consts::FRAC_PI_2);
            o.line(l.position, rim + q * u * r, color);
        }
    }
}

/// The overlay the prefs ask for from `host`'s world (empty when none is on).
pub fn overlay(host: &Host, prefs: &Prefs) -> Overlay {
    let mut o = Overlay::default();
    if prefs.bool("client.debug.lights").unwrap_or(false) {
        light_lines(&mut o, &light_volumes(host));
    }
    o
}

/// One line per overlay pref that is on but not drawn yet, naming it.
pub fn not_drawn(prefs: &Prefs) -> Vec<String> {
    [
        (
            "client.debug.entityGizmos",
            "the entity gizmos (dots, labels, wiring lines)",
        ),
        ("client.debug.colliderGizmo", "the collider wireframes"),
        (
            "client.debug.hud",
            "the position readout and the axis gizmo",
        ),
    ]
    .iter()
    .filter(|(p, _)| prefs.bool(p).unwrap_or(false))
    .map(|(p, what)| format!("{p} is on: {what} are not drawn yet"))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(on: bool) -> LightVolume {
        LightVolume {
            spot: false,
            position: Vec3::new(1.0, 2.0, 3.0),
            direction: Vec3::NEG_Y,
            range: 4.0,
            outer_cone: 0.0,
            color: Vec3::new(1.0, 0.5, 0.0),
            on,
        }
    }

    #[test]
    fn an_off_light_draws_no_sphere_and_a_lit_one_three_circles_at_its_range() {
        let mut o = Overlay::default();
        light_lines(&mut o, &[point(false)]);
        assert!(o.is_empty(), "a switched-off light is not drawn");
        light_lines(&mut o, &[point(true)]);
        assert_eq!(o.lines.len(), 3 * CIRCLE_SEGMENTS * 2);
        for v in &o.lines {
            let r = (Vec3::from(v.position) - Vec3::new(1.0, 2.0, 3.0)).length();
            assert!((r - 4.0).abs() < 1e-4, "on the range sphere: {r}");
            // Orange at full brightness: sRGB (255, 188, 0).
            assert_eq!(v.color, [255, 188, 0, 255]);
        }
    }

    #[test]
    fn a_spot_draws_its_outer_cone_rim_at_the_range() {
        let mut o = Overlay::default();
        let spot = LightVolume {
            spot: true,
            outer_cone: 90.0,
            ..point(true)
        };
        light_lines(&mut o, &[spot]);
        assert_eq!(o.lines.len(), (CIRCLE_SEGMENTS + 4) * 2);
        // The rim lies at 45° from the axis, 4 m from the apex.
        let apex = Vec3::new(1.0, 2.0, 3.0);
        for v in &o.lines[..CIRCLE_SEGMENTS * 2] {
            let p = Vec3::from(v.position) - apex;
            assert!((p.length() - 4.0).abs() < 1e-4);
            assert!((p.normalize().dot(Vec3::NEG_Y) - 45f32.to_radians().cos()).abs() < 1e-4);
        }
    }
}
