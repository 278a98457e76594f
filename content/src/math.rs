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
    use crate::gltf::math as arrays;

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
                (Some(i), Some(ia)) => assert_eq!(bits(&i), ia.map(f64::to_bits).to_vec()),
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
}
