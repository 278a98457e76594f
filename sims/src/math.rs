//! The simulation's math vocabulary is glam's ([`Vec3`], [`Quat`], and [`DVec3`] where a value
//! must not drift before it is stored as `f32`). What stays here is only the spec's own
//! conventions, as small functions on glam types ([`SpecQuat`]), the two component structs
//! built on them ([`Pose`], [`Rigid`]), and the sRGB curve.
//!
//! Conventions (spec 000, dh.map "The object transform", lines 423–434): meters, world axes
//! with +Y up; a rotation is authored as euler degrees `[pitch, yaw, roll]` and means exactly
//! what `Quaternion.CreateFromYawPitchRoll(yaw, pitch, roll)` means: roll about Z first, then
//! pitch about X, then yaw about Y (`q = yaw · pitch · roll`). Yaw 0 faces -Z, yaw 90 faces
//! -X, and a positive pitch looks up.
//!
//! Bit identity: glam's `Quat * Quat` and `Quat * Vec3` sum their terms in another order than
//! the formulas the traces were recorded with, so [`SpecQuat::compose`] and
//! [`SpecQuat::rotate`] keep the project's formulas (on glam's scalar `Vec3`, whose
//! component-wise operations round exactly as before). Do not replace them with `*`.

pub use glam::{DQuat, DVec3, Quat, Vec3};

/// The spec's rotation conventions on glam's [`Quat`] (bring the trait into scope to call
/// `Quat::from_euler_degrees`, `q.rotate(v)` and friends).
pub trait SpecQuat: Sized {
    /// The rotation authored as euler degrees `[pitch, yaw, roll]` (`x` pitch, `y` yaw, `z`
    /// roll): roll about Z, then pitch about X, then yaw about Y (spec 000 line 423, "applied
    /// in Z·Y·X order"; `CreateFromYawPitchRoll`, line 434). Computed in `f64`.
    fn from_euler_degrees(pitch_yaw_roll: DVec3) -> Self;

    /// A turn of `degrees` about the unit `axis` (right-handed), computed in `f64`.
    fn from_axis_angle_degrees(axis: DVec3, degrees: f64) -> Self;

    /// The Hamilton product `self · other`: `other` applied first, then `self`. The project's
    /// formula, not glam's `*` (bit identity: glam associates the sums differently).
    fn compose(self, other: Self) -> Self;

    /// `v` rotated by this quaternion; the identity returns `v` bit for bit. The project's
    /// formula, not glam's `*` (bit identity).
    fn rotate(self, v: Vec3) -> Vec3;

    /// The yaw (about +Y, degrees, 0 facing -Z) and pitch (degrees, positive up) of the
    /// direction this rotation faces (its rotated -Z; spec 000 line 423).
    fn yaw_pitch_degrees(self) -> (f32, f32);
}

impl SpecQuat for Quat {
    fn from_euler_degrees(pitch_yaw_roll: DVec3) -> Quat {
        // The content crate's one Z·Y·X formula, in f64, rounded once to f32.
        dh_content::math::quat_from_euler_degrees(pitch_yaw_roll).as_quat()
    }

    fn from_axis_angle_degrees(axis: DVec3, degrees: f64) -> Quat {
        // glam's from_axis_angle halves the angle and scales the axis as the project did.
        DQuat::from_axis_angle(axis, degrees.to_radians()).as_quat()
    }

    fn compose(self, other: Quat) -> Quat {
        let [ax, ay, az, aw] = self.to_array();
        let [bx, by, bz, bw] = other.to_array();
        Quat::from_xyzw(
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        )
    }

    fn rotate(self, v: Vec3) -> Vec3 {
        let q = self.xyz();
        if q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
            return v;
        }
        let t = q.cross(v) * 2.0;
        v + t * self.w + q.cross(t)
    }

    fn yaw_pitch_degrees(self) -> (f32, f32) {
        let f = self.rotate(Vec3::NEG_Z);
        let yaw = (-f.x).atan2(-f.z).to_degrees();
        let pitch = f.y.clamp(-1.0, 1.0).asin().to_degrees();
        (yaw, pitch)
    }
}

/// A pose: position, rotation and per-axis scale (a point `p` of the owner's frame stands at
/// `position + rotation · (scale ∘ p)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Meters, world axes.
    pub position: Vec3,
    /// The orientation.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose::IDENTITY
    }
}

impl Pose {
    /// At the origin, unturned, unscaled.
    pub const IDENTITY: Pose = Pose {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A record's authored transform (`position`, `rotation` as `[pitch, yaw, roll]`
    /// degrees, `scale`), each defaulting as the spec says.
    pub fn from_authored(position: DVec3, rotation: DVec3, scale: DVec3) -> Pose {
        Pose {
            position: position.as_vec3(),
            rotation: Quat::from_euler_degrees(rotation),
            scale: scale.as_vec3(),
        }
    }

    /// Where point `p` of the owner's frame stands.
    pub fn apply(&self, p: Vec3) -> Vec3 {
        self.position + self.rotation.rotate(self.scale * p)
    }
}

/// A rigid motion (rotation then translation): what a mover's motion and a carry are. A
/// point `p` moves to `rotation · p + translation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rigid {
    /// The turn.
    pub rotation: Quat,
    /// The displacement after the turn.
    pub translation: Vec3,
}

impl Default for Rigid {
    fn default() -> Self {
        Rigid::IDENTITY
    }
}

impl Rigid {
    /// No motion.
    pub const IDENTITY: Rigid = Rigid {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A pure displacement.
    pub fn translation(t: Vec3) -> Rigid {
        Rigid {
            rotation: Quat::IDENTITY,
            translation: t,
        }
    }

    /// A turn `rotation` about the point `pivot`.
    pub fn about(pivot: Vec3, rotation: Quat) -> Rigid {
        Rigid {
            rotation,
            translation: pivot - rotation.rotate(pivot),
        }
    }

    /// Whether this is exactly no motion.
    pub fn is_identity(&self) -> bool {
        *self == Rigid::IDENTITY
    }

    /// `self ∘ inner`: `inner` applied first, then `self`.
    pub fn then_after(&self, inner: &Rigid) -> Rigid {
        if inner.is_identity() {
            return *self;
        }
        if self.is_identity() {
            return *inner;
        }
        Rigid {
            rotation: self.rotation.compose(inner.rotation),
            translation: self.rotation.rotate(inner.translation) + self.translation,
        }
    }

    /// Where point `p` moves.
    pub fn apply_point(&self, p: Vec3) -> Vec3 {
        self.rotation.rotate(p) + self.translation
    }

    /// A pose carried by this motion (its scale is untouched).
    pub fn apply_pose(&self, pose: &Pose) -> Pose {
        if self.is_identity() {
            return *pose;
        }
        Pose {
            position: self.apply_point(pose.position),
            rotation: self.rotation.compose(pose.rotation),
            scale: pose.scale,
        }
    }
}

/// One sRGB channel in [0, 1] converted to linear light (the standard piecewise curve).
pub fn srgb_to_linear(c: f64) -> f32 {
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// An sRGB color converted to linear light.
pub fn srgb3_to_linear(c: [f64; 3]) -> Vec3 {
    Vec3::from_array(c.map(srgb_to_linear))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-6)
    }

    fn euler(pitch: f64, yaw: f64, roll: f64) -> Quat {
        Quat::from_euler_degrees(DVec3::new(pitch, yaw, roll))
    }

    #[test]
    fn yaw_90_faces_minus_x_and_pitch_up_looks_up() {
        let q = euler(0.0, 90.0, 0.0);
        assert!(close(q.rotate(Vec3::NEG_Z), Vec3::NEG_X));
        let q = euler(0.0, 180.0, 0.0);
        assert!(close(q.rotate(Vec3::NEG_Z), Vec3::Z));
        let q = euler(30.0, 0.0, 0.0);
        let f = q.rotate(Vec3::NEG_Z);
        assert!((f[1] - 0.5).abs() < 1e-6, "{f:?}");
    }

    #[test]
    fn roll_applies_before_pitch_before_yaw() {
        // Roll 90 then yaw 90: +X rolls to +Y (about Z), which yaw leaves alone.
        let q = euler(0.0, 90.0, 90.0);
        assert!(close(q.rotate(Vec3::X), Vec3::Y));
        // Pitch 90 then yaw 90: -Z pitches up to +Y; +Y stays. +X yaws to -Z.
        let q = euler(90.0, 90.0, 0.0);
        assert!(close(q.rotate(Vec3::NEG_Z), Vec3::Y));
        assert!(close(q.rotate(Vec3::X), Vec3::NEG_Z));
    }

    #[test]
    fn rigid_about_a_pivot() {
        let r = Rigid::about(Vec3::X, Quat::from_axis_angle_degrees(DVec3::Y, 90.0));
        // A point 1 m along +X of the pivot swings to 1 m along -Z of it.
        assert!(close(
            r.apply_point(Vec3::new(2.0, 0.0, 0.0)),
            Vec3::new(1.0, 0.0, -1.0)
        ));
        assert!(close(r.apply_point(Vec3::X), Vec3::X));
    }

    #[test]
    fn srgb_linearizes() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert_eq!(srgb_to_linear(1.0), 1.0);
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-5);
    }
}
