//! The small amount of 3D math the simulation needs, in `f32` (what every runtime pose is
//! stored as) with the few places that must not drift computed in `f64` first.
//!
//! Conventions (spec, dh.map "The object transform"): meters, world axes with +Y up; a
//! rotation is authored as euler degrees `[pitch, yaw, roll]` and means exactly what
//! `Quaternion.CreateFromYawPitchRoll(yaw, pitch, roll)` means: roll about Z first, then
//! pitch about X, then yaw about Y (`q = yaw · pitch · roll`). Yaw 0 faces -Z, yaw 90 faces
//! -X, and a positive pitch looks up.

/// A vector of three `f32`s.
pub type Vec3 = [f32; 3];

/// `a + b`.
pub fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a - b`.
pub fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a * s`.
pub fn scale(a: Vec3, s: f32) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// Component-wise `a * b`.
pub fn mul(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}

/// `a × b`.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a · b`.
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A rotation as a unit quaternion `[x, y, z, w]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat(pub [f32; 4]);

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    /// No rotation.
    pub const IDENTITY: Quat = Quat([0.0, 0.0, 0.0, 1.0]);

    /// The rotation authored as euler degrees `[pitch, yaw, roll]`: roll about Z, then pitch
    /// about X, then yaw about Y (`CreateFromYawPitchRoll`). Computed in `f64`.
    pub fn from_euler_degrees(pitch_yaw_roll: [f64; 3]) -> Quat {
        let [pitch, yaw, roll] = pitch_yaw_roll.map(|d| d.to_radians() * 0.5);
        let (sp, cp) = pitch.sin_cos();
        let (sy, cy) = yaw.sin_cos();
        let (sr, cr) = roll.sin_cos();
        Quat([
            (cy * sp * cr + sy * cp * sr) as f32,
            (sy * cp * cr - cy * sp * sr) as f32,
            (cy * cp * sr - sy * sp * cr) as f32,
            (cy * cp * cr + sy * sp * sr) as f32,
        ])
    }

    /// A turn of `degrees` about the unit `axis` (right-handed), computed in `f64`.
    pub fn from_axis_angle_degrees(axis: [f64; 3], degrees: f64) -> Quat {
        let half = degrees.to_radians() * 0.5;
        let (s, c) = half.sin_cos();
        Quat([
            (axis[0] * s) as f32,
            (axis[1] * s) as f32,
            (axis[2] * s) as f32,
            c as f32,
        ])
    }

    /// The Hamilton product `self · other`: `other` applied first, then `self` (also
    /// written `self * other`).
    pub fn compose(self, other: Quat) -> Quat {
        let [ax, ay, az, aw] = self.0;
        let [bx, by, bz, bw] = other.0;
        Quat([
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ])
    }

    /// The inverse of a unit quaternion (its conjugate).
    pub fn inverse(self) -> Quat {
        let [x, y, z, w] = self.0;
        Quat([-x, -y, -z, w])
    }

    /// `v` rotated by this quaternion. The identity returns `v` bit for bit.
    pub fn rotate(self, v: Vec3) -> Vec3 {
        let [x, y, z, w] = self.0;
        if x == 0.0 && y == 0.0 && z == 0.0 {
            return v;
        }
        let q = [x, y, z];
        let t = scale(cross(q, v), 2.0);
        add(add(v, scale(t, w)), cross(q, t))
    }

    /// The yaw (about +Y, degrees, 0 facing -Z) and pitch (degrees, positive up) of the
    /// direction this rotation faces (its rotated -Z).
    pub fn yaw_pitch_degrees(self) -> (f32, f32) {
        let f = self.rotate([0.0, 0.0, -1.0]);
        let yaw = (-f[0]).atan2(-f[2]).to_degrees();
        let pitch = f[1].clamp(-1.0, 1.0).asin().to_degrees();
        (yaw, pitch)
    }
}

impl std::ops::Mul for Quat {
    type Output = Quat;
    fn mul(self, other: Quat) -> Quat {
        self.compose(other)
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
        position: [0.0; 3],
        rotation: Quat::IDENTITY,
        scale: [1.0; 3],
    };

    /// A record's authored transform (`position`, `rotation` as `[pitch, yaw, roll]`
    /// degrees, `scale`), each defaulting as the spec says.
    pub fn from_authored(position: [f64; 3], rotation: [f64; 3], scale: [f64; 3]) -> Pose {
        Pose {
            position: position.map(|v| v as f32),
            rotation: Quat::from_euler_degrees(rotation),
            scale: scale.map(|v| v as f32),
        }
    }

    /// Where point `p` of the owner's frame stands.
    pub fn apply(&self, p: Vec3) -> Vec3 {
        add(self.position, self.rotation.rotate(mul(self.scale, p)))
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
        translation: [0.0; 3],
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
            translation: sub(pivot, rotation.rotate(pivot)),
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
            translation: add(self.rotation.rotate(inner.translation), self.translation),
        }
    }

    /// Where point `p` moves.
    pub fn apply_point(&self, p: Vec3) -> Vec3 {
        add(self.rotation.rotate(p), self.translation)
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
pub fn srgb3_to_linear(c: [f64; 3]) -> [f32; 3] {
    c.map(srgb_to_linear)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-6)
    }

    #[test]
    fn yaw_90_faces_minus_x_and_pitch_up_looks_up() {
        let q = Quat::from_euler_degrees([0.0, 90.0, 0.0]);
        assert!(close(q.rotate([0.0, 0.0, -1.0]), [-1.0, 0.0, 0.0]));
        let q = Quat::from_euler_degrees([0.0, 180.0, 0.0]);
        assert!(close(q.rotate([0.0, 0.0, -1.0]), [0.0, 0.0, 1.0]));
        let q = Quat::from_euler_degrees([30.0, 0.0, 0.0]);
        let f = q.rotate([0.0, 0.0, -1.0]);
        assert!((f[1] - 0.5).abs() < 1e-6, "{f:?}");
    }

    #[test]
    fn roll_applies_before_pitch_before_yaw() {
        // Roll 90 then yaw 90: +X rolls to +Y (about Z), which yaw leaves alone.
        let q = Quat::from_euler_degrees([0.0, 90.0, 90.0]);
        assert!(close(q.rotate([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0]));
        // Pitch 90 then yaw 90: -Z pitches up to +Y; +Y stays. +X yaws to -Z.
        let q = Quat::from_euler_degrees([90.0, 90.0, 0.0]);
        assert!(close(q.rotate([0.0, 0.0, -1.0]), [0.0, 1.0, 0.0]));
        assert!(close(q.rotate([1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
    }

    #[test]
    fn rigid_about_a_pivot() {
        let r = Rigid::about(
            [1.0, 0.0, 0.0],
            Quat::from_axis_angle_degrees([0.0, 1.0, 0.0], 90.0),
        );
        // A point 1 m along +X of the pivot swings to 1 m along -Z of it.
        assert!(close(r.apply_point([2.0, 0.0, 0.0]), [1.0, 0.0, -1.0]));
        assert!(close(r.apply_point([1.0, 0.0, 0.0]), [1.0, 0.0, 0.0]));
    }

    #[test]
    fn srgb_linearizes() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert_eq!(srgb_to_linear(1.0), 1.0);
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-5);
    }
}
