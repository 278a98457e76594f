//! The content crate's math on glam's f64 types (`DVec3`, `DQuat`, `DMat4`), holding only
//! what is the spec's own convention or what must keep the bits the compiled pallets were
//! written with:
//!
//! * [`quat_from_euler_degrees`]: euler degrees `[pitch, yaw, roll]` applied Z·Y·X (spec:
//!   dh.map, "Transforms": "rotation: euler degrees [x, y, z] … applied in Z·Y·X order").
//! * [`decompose`]: a world matrix taken apart into translation, rotation and scale the way
//!   the parts table states it (spec: dh.map, "Parts": "a sheared node keeps its
//!   decomposition and is named once"; X kept, Y and Z made orthogonal).
//! * [`quat_normalize`], [`from_trs`], [`mul`] and [`inverse`]: glam has each, but with
//!   other floating-point bits (a reciprocal multiply, sums seeded differently, another
//!   cofactor order); pallets, cache keys and parts tables are hashed and compared byte
//!   for byte, so these keep the project's formulas, each noted "bit identity".
//!
//! Everything else (points, directions, dot and cross products) is glam's own:
//! `DMat4::transform_point3` and `DVec3::dot` / `cross` give the same bits as the
//! formulas they replace (the same products summed in the same order).

use glam::{DMat3, DMat4, DQuat, DVec3, DVec4};

/// `q` scaled to unit length; a zero or non-finite quaternion becomes the identity.
///
/// Bit identity: divides each component by the length (glam's `normalize` multiplies by
/// its reciprocal).
pub fn quat_normalize(q: DQuat) -> DQuat {
    let l = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
    if l.is_finite() && l > 0.0 {
        DQuat::from_xyzw(q.x / l, q.y / l, q.z / l, q.w / l)
    } else {
        DQuat::IDENTITY
    }
}

/// Euler degrees `[x, y, z]` (pitch, yaw, roll) in DigitalHeaven's order, applied Z·Y·X
/// the way every record's rotation is (spec: dh.map, "Transforms"): roll about Z first,
/// then pitch about X, then yaw about Y.
pub fn quat_from_euler_degrees(e: DVec3) -> DQuat {
    let [pitch, yaw, roll] = e.to_array().map(|d| d.to_radians() * 0.5);
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    let (sr, cr) = roll.sin_cos();
    DQuat::from_xyzw(
        cy * sp * cr + sy * cp * sr,
        sy * cp * cr - cy * sp * sr,
        cy * cp * sr - sy * sp * cr,
        cy * cp * cr + sy * sp * sr,
    )
}

/// The rotation matrix of a quaternion (normalized first; a zero quaternion is the
/// identity).
///
/// Bit identity: `2·(a·b + c·d)` as written, where glam doubles an operand first (equal
/// but for products that underflow).
pub fn quat_to_mat3(q: DQuat) -> DMat3 {
    let DQuat { x, y, z, w } = quat_normalize(q);
    DMat3::from_cols_array(&[
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + z * w),
        2.0 * (x * z - y * w),
        2.0 * (x * y - z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + x * w),
        2.0 * (x * z + y * w),
        2.0 * (y * z - x * w),
        1.0 - 2.0 * (x * x + y * y),
    ])
}

/// The matrix of translation `t`, rotation `q` and scale `s` (`T · R · S`).
pub fn from_trs(t: DVec3, q: DQuat, s: DVec3) -> DMat4 {
    let r = quat_to_mat3(q);
    DMat4::from_cols(
        (r.x_axis * s.x).extend(0.0),
        (r.y_axis * s.y).extend(0.0),
        (r.z_axis * s.z).extend(0.0),
        t.extend(1.0),
    )
}

/// `a · b` (`b` applied first).
///
/// Bit identity: each element sums its four products from `+0.0` in order (glam's product
/// starts from the first product, which keeps a `-0.0` this sum turns to `+0.0`; the
/// matrices are hashed into cache keys).
pub fn mul(a: &DMat4, b: &DMat4) -> DMat4 {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    let mut out = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            let mut s = 0.0;
            for k in 0..4 {
                s += a[k * 4 + r] * b[c * 4 + k];
            }
            out[c * 4 + r] = s;
        }
    }
    DMat4::from_cols_array(&out)
}

/// The quaternion of an orthonormal, right-handed rotation matrix, with `w >= 0` so equal
/// rotations compare equal.
pub fn mat3_to_quat(m: &DMat3) -> DQuat {
    let (m00, m10, m20) = (m.x_axis.x, m.x_axis.y, m.x_axis.z);
    let (m01, m11, m21) = (m.y_axis.x, m.y_axis.y, m.y_axis.z);
    let (m02, m12, m22) = (m.z_axis.x, m.z_axis.y, m.z_axis.z);
    let tr = m00 + m11 + m22;
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    let q = quat_normalize(DQuat::from_array(q));
    if q.w < 0.0 {
        -q
    } else {
        q
    }
}

/// A matrix taken apart: translation, rotation, scale, and whether a shear had to be
/// dropped to get there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decomposed {
    /// The translation.
    pub translation: DVec3,
    /// The rotation, a unit quaternion with `w >= 0`.
    pub rotation: DQuat,
    /// The scale per axis; a mirrored matrix takes its mirror on X.
    pub scale: DVec3,
    /// Whether the basis was not orthogonal (a shear), which the decomposition dropped.
    pub sheared: bool,
}

/// Takes `m` apart into `T · R · S`. Scale is each basis column's length; the rotation is
/// the Gram–Schmidt orthonormalization of the columns (X kept, Y then Z made orthogonal),
/// so a sheared matrix keeps the rotation and scale it decomposes to and reports
/// `sheared`. A zero axis gives a zero scale on it and an identity rotation part there.
pub fn decompose(m: &DMat4) -> Decomposed {
    let (x, y, z) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let mut s = DVec3::new(x.length(), y.length(), z.length());
    let translation = m.w_axis.truncate();
    if s.to_array().iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Decomposed {
            translation,
            rotation: DQuat::IDENTITY,
            scale: DVec3::from_array(s.to_array().map(|v| if v.is_finite() { v } else { 0.0 })),
            sheared: false,
        };
    }
    if x.cross(y).dot(z) < 0.0 {
        // Mirrored: the handedness rides the X scale.
        s.x = -s.x;
    }
    let nx = x / s.x;
    let ny0 = y / s.y;
    let nz0 = z / s.z;
    let tol = 1e-6;
    let sheared = nx.dot(ny0).abs() > tol || nx.dot(nz0).abs() > tol || ny0.dot(nz0).abs() > tol;
    // Gram–Schmidt: X kept, Y made orthogonal to it, Z completing a right-handed frame.
    let d = ny0.dot(nx);
    let mut ry = ny0 - nx * d;
    let l = ry.length();
    if l > 0.0 {
        ry /= l;
    }
    let rz = nx.cross(ry);
    Decomposed {
        translation,
        rotation: mat3_to_quat(&DMat3::from_cols(nx, ry, rz)),
        scale: s,
        sheared,
    }
}

/// The inverse of an affine matrix, or `None` when it has none (a zero axis).
///
/// Bit identity: the 3×3 block's cofactors in the project's order, and `None` below a
/// determinant of `1e-300` (glam's `inverse` works on the full 4×4 and never refuses).
pub fn inverse(m: &DMat4) -> Option<DMat4> {
    let a = |c: usize, r: usize| m.col(c)[r];
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(2, 1) * a(1, 2))
        - a(1, 0) * (a(0, 1) * a(2, 2) - a(2, 1) * a(0, 2))
        + a(2, 0) * (a(0, 1) * a(1, 2) - a(1, 1) * a(0, 2));
    if !(det.is_finite() && det.abs() > 1e-300) {
        return None;
    }
    let inv_det = 1.0 / det;
    let mut r3 = [[0.0f64; 3]; 3];
    for (c, col) in r3.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            // The cofactor of element (row c, column r) of the original, transposed.
            let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
            let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
            *v = (a(c1, r1) * a(c2, r2) - a(c2, r1) * a(c1, r2)) * inv_det;
        }
    }
    let t = m.w_axis.truncate();
    let col = |c: usize| DVec4::new(r3[c][0], r3[c][1], r3[c][2], 0.0);
    let w = |r: usize| -(r3[0][r] * t.x + r3[1][r] * t.y + r3[2][r] * t.z);
    Some(DMat4::from_cols(
        col(0),
        col(1),
        col(2),
        DVec4::new(w(0), w(1), w(2), 1.0),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The array formulas the pallets, cache keys and parts tables were first built with
    /// (the importer's old `gltf::math`), frozen here so the glam versions above are held
    /// to their bits.
    #[allow(dead_code)]
    mod arrays {
        /// A column-major 4×4 matrix, as glTF writes `node.matrix`.
        pub type Mat4 = [f64; 16];

        /// The identity matrix.
        pub const IDENTITY: Mat4 = [
            1.0, 0.0, 0.0, 0.0, //
            0.0, 1.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0,
        ];

        /// The identity rotation.
        pub const QUAT_IDENTITY: [f64; 4] = [0.0, 0.0, 0.0, 1.0];

        /// `a · b` (`b` applied first).
        pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
            let mut out = [0.0; 16];
            for c in 0..4 {
                for r in 0..4 {
                    let mut s = 0.0;
                    for k in 0..4 {
                        s += a[k * 4 + r] * b[c * 4 + k];
                    }
                    out[c * 4 + r] = s;
                }
            }
            out
        }

        /// The matrix of translation `t`, rotation `q` and scale `s` (`T · R · S`).
        pub fn from_trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat4 {
            let r = quat_to_mat3(q);
            [
                r[0] * s[0],
                r[1] * s[0],
                r[2] * s[0],
                0.0,
                r[3] * s[1],
                r[4] * s[1],
                r[5] * s[1],
                0.0,
                r[6] * s[2],
                r[7] * s[2],
                r[8] * s[2],
                0.0,
                t[0],
                t[1],
                t[2],
                1.0,
            ]
        }

        /// The rotation matrix of a quaternion, column-major 3×3 (normalized first; a zero
        /// quaternion is the identity).
        pub fn quat_to_mat3(q: [f64; 4]) -> [f64; 9] {
            let q = quat_normalize(q);
            let [x, y, z, w] = q;
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y + z * w),
                2.0 * (x * z - y * w),
                2.0 * (x * y - z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z + x * w),
                2.0 * (x * z + y * w),
                2.0 * (y * z - x * w),
                1.0 - 2.0 * (x * x + y * y),
            ]
        }

        /// `q` scaled to unit length; a zero or non-finite quaternion becomes the identity.
        pub fn quat_normalize(q: [f64; 4]) -> [f64; 4] {
            let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
            if l.is_finite() && l > 0.0 {
                q.map(|c| c / l)
            } else {
                QUAT_IDENTITY
            }
        }

        /// The Hamilton product `a · b` (`b` applied first).
        pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
            let [ax, ay, az, aw] = a;
            let [bx, by, bz, bw] = b;
            [
                aw * bx + ax * bw + ay * bz - az * by,
                aw * by - ax * bz + ay * bw + az * bx,
                aw * bz + ax * by - ay * bx + az * bw,
                aw * bw - ax * bx - ay * by - az * bz,
            ]
        }

        /// Euler degrees `[x, y, z]` (pitch, yaw, roll) in DigitalHeaven's order, applied Z·Y·X
        /// the way every record's rotation is: roll about Z first, then pitch about X, then yaw
        /// about Y.
        pub fn quat_from_euler_degrees(e: [f64; 3]) -> [f64; 4] {
            let [pitch, yaw, roll] = e.map(|d| d.to_radians() * 0.5);
            let (sp, cp) = pitch.sin_cos();
            let (sy, cy) = yaw.sin_cos();
            let (sr, cr) = roll.sin_cos();
            [
                cy * sp * cr + sy * cp * sr,
                sy * cp * cr - cy * sp * sr,
                cy * cp * sr - sy * sp * cr,
                cy * cp * cr + sy * sp * sr,
            ]
        }

        /// The quaternion of an orthonormal, right-handed column-major 3×3 rotation.
        pub fn mat3_to_quat(m: [f64; 9]) -> [f64; 4] {
            let (m00, m10, m20) = (m[0], m[1], m[2]);
            let (m01, m11, m21) = (m[3], m[4], m[5]);
            let (m02, m12, m22) = (m[6], m[7], m[8]);
            let tr = m00 + m11 + m22;
            let q = if tr > 0.0 {
                let s = (tr + 1.0).sqrt() * 2.0;
                [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
            } else if m00 > m11 && m00 > m22 {
                let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
                [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
            } else if m11 > m22 {
                let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
                [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
            } else {
                let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
                [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
            };
            let q = quat_normalize(q);
            // One sign for one rotation: w non-negative, so equal rotations compare equal.
            if q[3] < 0.0 {
                q.map(|c| -c)
            } else {
                q
            }
        }

        /// A matrix taken apart: translation, rotation, scale, and whether a shear had to be
        /// dropped to get there.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct Decomposed {
            /// The translation.
            pub translation: [f64; 3],
            /// The rotation, a unit quaternion with `w >= 0`.
            pub rotation: [f64; 4],
            /// The scale per axis; a mirrored matrix takes its mirror on X.
            pub scale: [f64; 3],
            /// Whether the basis was not orthogonal (a shear), which the decomposition dropped.
            pub sheared: bool,
        }

        fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
            a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
        }

        fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        }

        fn len3(a: [f64; 3]) -> f64 {
            dot3(a, a).sqrt()
        }

        /// Takes `m` apart into `T · R · S`. Scale is each basis column's length; the rotation is
        /// the Gram–Schmidt orthonormalization of the columns (X kept, Y then Z made orthogonal),
        /// so a sheared matrix keeps the rotation and scale it decomposes to and reports
        /// `sheared`. A zero axis gives a zero scale on it and an identity rotation part there.
        pub fn decompose(m: &Mat4) -> Decomposed {
            let c = |i: usize| [m[i * 4], m[i * 4 + 1], m[i * 4 + 2]];
            let (x, y, z) = (c(0), c(1), c(2));
            let mut s = [len3(x), len3(y), len3(z)];
            let translation = [m[12], m[13], m[14]];
            if s.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
                return Decomposed {
                    translation,
                    rotation: QUAT_IDENTITY,
                    scale: s.map(|v| if v.is_finite() { v } else { 0.0 }),
                    sheared: false,
                };
            }
            let det = dot3(cross3(x, y), z);
            if det < 0.0 {
                // Mirrored: the handedness rides the X scale.
                s[0] = -s[0];
            }
            let nx = x.map(|v| v / s[0]);
            let ny0 = y.map(|v| v / s[1]);
            let nz0 = z.map(|v| v / s[2]);
            let tol = 1e-6;
            let sheared = dot3(nx, ny0).abs() > tol
                || dot3(nx, nz0).abs() > tol
                || dot3(ny0, nz0).abs() > tol;
            // Gram–Schmidt: X kept, Y made orthogonal to it, Z completing a right-handed frame.
            let d = dot3(ny0, nx);
            let mut ry = [ny0[0] - nx[0] * d, ny0[1] - nx[1] * d, ny0[2] - nx[2] * d];
            let l = len3(ry);
            if l > 0.0 {
                ry = ry.map(|v| v / l);
            }
            let rx = nx;
            let rz = cross3(rx, ry);
            let rotation = mat3_to_quat([
                rx[0], rx[1], rx[2], ry[0], ry[1], ry[2], rz[0], rz[1], rz[2],
            ]);
            Decomposed {
                translation,
                rotation,
                scale: s,
                sheared,
            }
        }

        /// The inverse of an affine matrix, or `None` when it has none (a zero axis).
        pub fn inverse(m: &Mat4) -> Option<Mat4> {
            let a = |c: usize, r: usize| m[c * 4 + r];
            let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(2, 1) * a(1, 2))
                - a(1, 0) * (a(0, 1) * a(2, 2) - a(2, 1) * a(0, 2))
                + a(2, 0) * (a(0, 1) * a(1, 2) - a(1, 1) * a(0, 2));
            if !(det.is_finite() && det.abs() > 1e-300) {
                return None;
            }
            let inv_det = 1.0 / det;
            // Inverse of the 3×3 block, column-major: inv[c][r].
            let mut r3 = [[0.0f64; 3]; 3];
            for (c, col) in r3.iter_mut().enumerate() {
                for (r, v) in col.iter_mut().enumerate() {
                    // cofactor of element (row c, column r) of the original, transposed.
                    let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
                    let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
                    *v = (a(c1, r1) * a(c2, r2) - a(c2, r1) * a(c1, r2)) * inv_det;
                }
            }
            let t = [m[12], m[13], m[14]];
            let mut out = IDENTITY;
            for c in 0..3 {
                for r in 0..3 {
                    out[c * 4 + r] = r3[c][r];
                }
            }
            for r in 0..3 {
                out[12 + r] = -(r3[0][r] * t[0] + r3[1][r] * t[1] + r3[2][r] * t[2]);
            }
            Some(out)
        }

        /// `m` applied to the point `p`.
        pub fn transform_point(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
            [
                m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
                m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
                m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
            ]
        }

        /// `m`'s linear part applied to the direction `d`.
        pub fn transform_dir(m: &Mat4, d: [f64; 3]) -> [f64; 3] {
            [
                m[0] * d[0] + m[4] * d[1] + m[8] * d[2],
                m[1] * d[0] + m[5] * d[1] + m[9] * d[2],
                m[2] * d[0] + m[6] * d[1] + m[10] * d[2],
            ]
        }

        /// The matrix that carries normals under `m` (the inverse transpose of its linear part),
        /// or `None` when `m` has no inverse.
        pub fn normal_matrix(m: &Mat4) -> Option<Mat4> {
            let inv = inverse(m)?;
            let mut out = IDENTITY;
            for c in 0..3 {
                for r in 0..3 {
                    out[c * 4 + r] = inv[r * 4 + c];
                }
            }
            Some(out)
        }
    }

    fn bits(m: &DMat4) -> Vec<u64> {
        m.to_cols_array().iter().map(|v| v.to_bits()).collect()
    }

    fn inputs() -> Vec<(DVec3, DVec3, DVec3)> {
        let mut out = Vec::new();
        let mut k = 1u64;
        let mut next = || {
            k = k
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((k >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for _ in 0..400 {
            let t = DVec3::new(next() * 50.0, next() * 50.0, next() * 50.0);
            let e = DVec3::new(next() * 180.0, next() * 180.0, next() * 180.0);
            let s = DVec3::new(next() * 4.0, next() * 4.0, next() * 4.0);
            out.push((t, e, s));
        }
        out.push((DVec3::ZERO, DVec3::new(0.0, 90.0, 0.0), DVec3::ONE));
        out.push((
            DVec3::ZERO,
            DVec3::new(-0.0, 180.0, -0.0),
            DVec3::new(-1.0, 2.0, 0.0),
        ));
        out
    }

    /// Every function here gives the bits of the array formulas the pallets were built with.
    #[test]
    fn bits_equal_the_array_formulas() {
        let mut prev = DMat4::IDENTITY;
        for (t, e, s) in inputs() {
            let q = quat_from_euler_degrees(e);
            let qa = arrays::quat_from_euler_degrees(e.to_array());
            assert_eq!(q.to_array().map(f64::to_bits), qa.map(f64::to_bits));
            let m = from_trs(t, q, s);
            let ma = arrays::from_trs(t.to_array(), qa, s.to_array());
            assert_eq!(bits(&m), ma.map(f64::to_bits).to_vec());
            let p = mul(&prev, &m);
            let pa = arrays::mul(&prev.to_cols_array(), &ma);
            assert_eq!(bits(&p), pa.map(f64::to_bits).to_vec());
            match (inverse(&p), arrays::inverse(&pa)) {
                (Some(i), Some(ia)) => {
                    assert_eq!(bits(&i), ia.map(f64::to_bits).to_vec());
                    // The sidecar's normal matrix: the inverse's linear part, transposed.
                    let n = DMat4::from_mat3(DMat3::from_mat4(i).transpose());
                    let na = arrays::normal_matrix(&pa).map(|m| m.map(f64::to_bits).to_vec());
                    assert_eq!(Some(bits(&n)), na);
                }
                (None, None) => {}
                other => panic!("inverse disagrees: {other:?}"),
            }
            let d = decompose(&p);
            let da = arrays::decompose(&pa);
            assert_eq!(
                d.translation.to_array().map(f64::to_bits),
                da.translation.map(f64::to_bits)
            );
            assert_eq!(
                d.rotation.to_array().map(f64::to_bits),
                da.rotation.map(f64::to_bits)
            );
            assert_eq!(
                d.scale.to_array().map(f64::to_bits),
                da.scale.map(f64::to_bits)
            );
            assert_eq!(d.sheared, da.sheared);
            // glam's own point and direction transforms are the same sums.
            let v = DVec3::new(t.y, -e.z / 7.0, s.x * 3.0);
            assert_eq!(
                p.transform_point3(v).to_array().map(f64::to_bits),
                arrays::transform_point(&pa, v.to_array()).map(f64::to_bits)
            );
            assert_eq!(
                p.transform_vector3(v).to_array().map(f64::to_bits),
                arrays::transform_dir(&pa, v.to_array()).map(f64::to_bits)
            );
            prev = if prev.to_cols_array().iter().all(|v| v.abs() < 1e6) {
                p
            } else {
                DMat4::IDENTITY
            };
        }
    }

    #[test]
    fn yaw_ninety_turns_minus_z_to_minus_x() {
        let q = quat_from_euler_degrees(DVec3::new(0.0, 90.0, 0.0));
        let r = from_trs(DVec3::ZERO, q, DVec3::ONE).transform_vector3(DVec3::NEG_Z);
        assert!((r - DVec3::NEG_X).length() < 1e-12, "{r:?}");
    }

    fn close(a: &DMat4, b: &DMat4) -> bool {
        a.abs_diff_eq(*b, 1e-9)
    }

    #[test]
    fn trs_round_trips_through_decompose() {
        let q = quat_normalize(DQuat::from_xyzw(0.1, 0.7, -0.2, 0.6));
        let m = from_trs(DVec3::new(1.0, 2.0, 3.0), q, DVec3::new(2.0, 0.5, 3.0));
        let d = decompose(&m);
        assert!(!d.sheared);
        assert!(d.translation.abs_diff_eq(DVec3::new(1.0, 2.0, 3.0), 1e-9));
        assert!(d.scale.abs_diff_eq(DVec3::new(2.0, 0.5, 3.0), 1e-9));
        let q = if q.w < 0.0 { -q } else { q };
        assert!(d.rotation.abs_diff_eq(q, 1e-9), "{:?} vs {q:?}", d.rotation);
        let back = from_trs(d.translation, d.rotation, d.scale);
        assert!(close(&back, &m));
    }

    #[test]
    fn mirrored_matrix_decomposes_to_a_negative_x_scale() {
        let m = from_trs(
            DVec3::ZERO,
            quat_from_euler_degrees(DVec3::new(0.0, 30.0, 0.0)),
            DVec3::new(-1.0, 2.0, 1.0),
        );
        let d = decompose(&m);
        assert!(close(&from_trs(d.translation, d.rotation, d.scale), &m));
        assert!(d.scale.x < 0.0);
    }

    #[test]
    fn shear_is_reported() {
        let mut m = DMat4::IDENTITY;
        m.y_axis.x = 0.5; // Y column leans along X.
        assert!(decompose(&m).sheared);
        assert!(!decompose(&DMat4::IDENTITY).sheared);
    }

    #[test]
    fn inverse_inverts() {
        let m = from_trs(
            DVec3::new(3.0, -1.0, 2.0),
            quat_from_euler_degrees(DVec3::new(10.0, 20.0, 30.0)),
            DVec3::new(1.0, 2.0, 4.0),
        );
        let i = inverse(&m).unwrap();
        assert!(close(&mul(&m, &i), &DMat4::IDENTITY));
        let mut z = DMat4::IDENTITY;
        z.x_axis.x = 0.0;
        assert!(inverse(&z).is_none());
    }
}
