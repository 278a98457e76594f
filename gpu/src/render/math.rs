//! The renderer's conventions on glam types: Vulkan's clip space (x right, y down, depth 0
//! at the near plane to 1 at the far), a right-handed world (Y up, -Z forward), and the few
//! formulas kept as ours where glam's would change the numbers the renderer draws.
//! Everything else is glam's own arithmetic.

use glam::{Mat4, Quat, Vec3, Vec4};

/// `a / |a|`, or `fallback` when `a` has no length (ours: the threshold is `|a| > 1e-12`,
/// where glam's `normalize_or` takes anything whose reciprocal is finite).
pub fn normalize_or(a: Vec3, fallback: Vec3) -> Vec3 {
    let l = a.length();
    if l.is_finite() && l > 1e-12 {
        a * (1.0 / l)
    } else {
        fallback
    }
}

/// `v` rotated by the unit quaternion `q`: `v + 2w (u × v) + u × 2(u × v)`. Ours, not
/// glam's `q * v`, for bit identity with the poses the goldens and traces were made from.
pub fn rotate(q: Quat, v: Vec3) -> Vec3 {
    let u = Vec3::new(q.x, q.y, q.z);
    let t = u.cross(v) * 2.0;
    v + t * q.w + u.cross(t)
}

/// The determinant of `m`'s upper-left 3 × 3 (negative when `m` mirrors).
pub fn determinant3(m: &Mat4) -> f32 {
    m.x_axis
        .truncate()
        .dot(m.y_axis.truncate().cross(m.z_axis.truncate()))
}

/// `m · (p, 1)`, divided by w (ours, not glam's `project_point3`: a w of 0 divides by 1).
pub fn transform_point(m: &Mat4, p: Vec3) -> Vec3 {
    let v = *m * p.extend(1.0);
    let w = if v.w.abs() > 1e-20 { v.w } else { 1.0 };
    v.truncate() / w
}

/// The affine matrix of position, rotation (unit quaternion) and per-axis scale: the
/// rotated axes scaled (ours, for bit identity with [`rotate`]; glam's
/// `from_scale_rotation_translation` goes through the rotation matrix).
pub fn trs(position: Vec3, rotation: Quat, scl: Vec3) -> Mat4 {
    let x = rotate(rotation, Vec3::X) * scl.x;
    let y = rotate(rotation, Vec3::Y) * scl.y;
    let z = rotate(rotation, Vec3::Z) * scl.z;
    Mat4::from_cols(
        x.extend(0.0),
        y.extend(0.0),
        z.extend(0.0),
        position.extend(1.0),
    )
}

/// The view matrix from the eye's rotated axes `r`, `u`, `b` (right, up, back) at `eye`.
fn view_from_axes(r: Vec3, u: Vec3, b: Vec3, eye: Vec3) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(r.x, u.x, b.x, 0.0),
        Vec4::new(r.y, u.y, b.y, 0.0),
        Vec4::new(r.z, u.z, b.z, 0.0),
        Vec4::new(-r.dot(eye), -u.dot(eye), -b.dot(eye), 1.0),
    )
}

/// The view matrix of an eye at `eye` turned by `rotation`: it looks down its rotated -Z
/// with its rotated +Y up. View space is right-handed, -Z forward.
pub fn view_from_pose(eye: Vec3, rotation: Quat) -> Mat4 {
    let r = rotate(rotation, Vec3::X);
    let u = rotate(rotation, Vec3::Y);
    let b = rotate(rotation, Vec3::Z);
    view_from_axes(r, u, b, eye)
}

/// A view matrix looking from `eye` along `forward` with `up` as near to up as it can be
/// (ours: glam's `look_to_rh` has no fallback for a forward along `up`).
pub fn look_to(eye: Vec3, forward: Vec3, up: Vec3) -> Mat4 {
    let f = normalize_or(forward, Vec3::NEG_Z);
    let mut r = f.cross(up);
    if r.length() < 1e-4 {
        r = f.cross(Vec3::X);
    }
    let r = normalize_or(r, Vec3::X);
    let u = r.cross(f);
    view_from_axes(r, u, -f, eye)
}

/// A perspective projection to Vulkan clip space (y down, depth 0 near to 1 far): vertical
/// field of view `fov_y` radians, `aspect` width over height. With `far` `None` the far
/// plane is at infinity. Ours: glam's `perspective_rh` / `perspective_infinite_rh` keep y
/// up (OpenGL's and wgpu's clip space), this flips it for Vulkan.
pub fn perspective(fov_y: f32, aspect: f32, near: f32, far: Option<f32>) -> Mat4 {
    let f = 1.0 / (fov_y * 0.5).tan();
    let (a, b) = match far {
        Some(far) => (far / (near - far), near * far / (near - far)),
        None => (-1.0, -near),
    };
    Mat4::from_cols(
        Vec4::new(f / aspect, 0.0, 0.0, 0.0),
        Vec4::new(0.0, -f, 0.0, 0.0),
        Vec4::new(0.0, 0.0, a, -1.0),
        Vec4::new(0.0, 0.0, b, 0.0),
    )
}

/// An orthographic projection of the view box `[l, r] × [b, t]` and view depths
/// `[near, far]` (positive distances along -Z) to Vulkan clip space (ours, y down, for the
/// same reason as [`perspective`]).
pub fn orthographic(l: f32, r: f32, b: f32, t: f32, near: f32, far: f32) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(2.0 / (r - l), 0.0, 0.0, 0.0),
        Vec4::new(0.0, -2.0 / (t - b), 0.0, 0.0),
        Vec4::new(0.0, 0.0, -1.0 / (far - near), 0.0),
        Vec4::new(
            -(r + l) / (r - l),
            (t + b) / (t - b),
            -near / (far - near),
            1.0,
        ),
    )
}

/// The inverse of a matrix, or `None` when it is singular. Ours: Gauss-Jordan in f64 (an
/// infinite perspective's view-projection loses digits in glam's f32 `inverse`, and the
/// singular case is reported rather than returning infinities).
pub fn inverse(m: &Mat4) -> Option<Mat4> {
    // Gauss-Jordan on the row-major transpose, in f64.
    let cols = m.to_cols_array_2d();
    let mut a = [[0.0f64; 8]; 4];
    for r in 0..4 {
        for c in 0..4 {
            a[r][c] = f64::from(cols[c][r]);
        }
        a[r][4 + r] = 1.0;
    }
    for col in 0..4 {
        let pivot = (col..4).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        let p = a[col][col];
        for v in a[col].iter_mut() {
            *v /= p;
        }
        for r in 0..4 {
            if r != col {
                let f = a[r][col];
                if f != 0.0 {
                    let src = a[col];
                    for (v, s) in a[r].iter_mut().zip(src) {
                        *v -= f * s;
                    }
                }
            }
        }
    }
    let mut out = [[0.0f32; 4]; 4];
    for r in 0..4 {
        for c in 0..4 {
            out[c][r] = a[r][4 + c] as f32;
        }
    }
    Some(Mat4::from_cols_array_2d(&out))
}

/// sRGB face value to linear light (the exact piecewise curve).
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light to an sRGB face value.
pub fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-4)
    }

    #[test]
    fn perspective_maps_near_and_far_to_vulkan_depth() {
        let p = perspective(90f32.to_radians(), 2.0, 0.1, Some(100.0));
        let n = transform_point(&p, Vec3::new(0.0, 0.0, -0.1));
        let f = transform_point(&p, Vec3::new(0.0, 0.0, -100.0));
        assert!((n[2]).abs() < 1e-5 && (f[2] - 1.0).abs() < 1e-5);
        // Up in view space is up on screen: negative clip y (Vulkan's y points down).
        let up = transform_point(&p, Vec3::new(0.0, 1.0, -1.0));
        assert!((up[1] + 1.0).abs() < 1e-5);
        let right = transform_point(&p, Vec3::new(2.0, 0.0, -1.0));
        assert!((right[0] - 1.0).abs() < 1e-5);
    }

    #[test]
    fn ortho_box_maps_to_the_unit_cube() {
        let o = orthographic(-2.0, 2.0, -1.0, 1.0, 0.5, 10.5);
        assert!(close(
            transform_point(&o, Vec3::new(-2.0, 1.0, -0.5)),
            Vec3::new(-1.0, -1.0, 0.0)
        ));
        assert!(close(
            transform_point(&o, Vec3::new(2.0, -1.0, -10.5)),
            Vec3::new(1.0, 1.0, 1.0)
        ));
    }

    #[test]
    fn view_and_inverse_round_trip() {
        let q = [0.2f32, 0.3, -0.1, 0.927];
        let l = (q.iter().map(|v| v * v).sum::<f32>()).sqrt();
        let q = Quat::from_array(q.map(|v| v / l));
        let v = view_from_pose(Vec3::new(1.0, 2.0, 3.0), q);
        let inv = inverse(&v).unwrap_or(Mat4::IDENTITY);
        assert!(close(
            transform_point(&inv, Vec3::ZERO),
            Vec3::new(1.0, 2.0, 3.0)
        ));
        let fwd = transform_point(&inv, Vec3::new(0.0, 0.0, -1.0)) - Vec3::new(1.0, 2.0, 3.0);
        assert!(close(fwd, rotate(q, Vec3::new(0.0, 0.0, -1.0))));
        let m = (v * inv).to_cols_array_2d();
        for (c, col) in m.iter().enumerate() {
            for (r, v) in col.iter().enumerate() {
                let e = if c == r { 1.0 } else { 0.0 };
                assert!((v - e).abs() < 1e-5);
            }
        }
        assert!(inverse(&Mat4::ZERO).is_none());
    }

    #[test]
    fn srgb_round_trips() {
        for i in 0..=255 {
            let s = i as f32 / 255.0;
            assert!((linear_to_srgb(srgb_to_linear(s)) - s).abs() < 1e-5);
        }
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-5);
    }
}
