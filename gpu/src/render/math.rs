//! The little linear algebra the renderer needs: column-major 4×4 matrices in Vulkan's clip
//! space (x right, y down, depth 0 at the near plane to 1 at the far), right-handed world
//! (Y up, -Z forward).

/// A 3-vector.
pub type Vec3 = [f32; 3];

/// A column-major 4×4 matrix: `m[c][r]`.
pub type Mat4 = [[f32; 4]; 4];

/// The identity.
pub const IDENTITY: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

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
/// `a · b`.
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
/// `a × b`.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// `|a|`.
pub fn length(a: Vec3) -> f32 {
    dot(a, a).sqrt()
}
/// `a / |a|`, or `fallback` when `a` has no length.
pub fn normalize_or(a: Vec3, fallback: Vec3) -> Vec3 {
    let l = length(a);
    if l.is_finite() && l > 1e-12 {
        scale(a, 1.0 / l)
    } else {
        fallback
    }
}

/// `v` rotated by the unit quaternion `q` (`[x, y, z, w]`).
pub fn rotate(q: [f32; 4], v: Vec3) -> Vec3 {
    let u = [q[0], q[1], q[2]];
    let t = scale(cross(u, v), 2.0);
    add(add(v, scale(t, q[3])), cross(u, t))
}

/// `a · b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0f32; 4]; 4];
    for (c, col) in out.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    out
}

/// The determinant of `m`'s upper-left 3 × 3 (negative when `m` mirrors).
pub fn determinant3(m: &Mat4) -> f32 {
    let c = |i: usize| [m[i][0], m[i][1], m[i][2]];
    dot(c(0), cross(c(1), c(2)))
}

/// `m · (p, 1)`, divided by w.
pub fn transform_point(m: &Mat4, p: Vec3) -> Vec3 {
    let v = transform4(m, [p[0], p[1], p[2], 1.0]);
    let w = if v[3].abs() > 1e-20 { v[3] } else { 1.0 };
    [v[0] / w, v[1] / w, v[2] / w]
}

/// `m · v`.
pub fn transform4(m: &Mat4, v: [f32; 4]) -> [f32; 4] {
    let mut o = [0.0f32; 4];
    for (r, out) in o.iter_mut().enumerate() {
        *out = (0..4).map(|c| m[c][r] * v[c]).sum();
    }
    o
}

/// The affine matrix of position, rotation (unit quaternion) and per-axis scale.
pub fn trs(position: Vec3, rotation: [f32; 4], scl: Vec3) -> Mat4 {
    let x = scale(rotate(rotation, [1.0, 0.0, 0.0]), scl[0]);
    let y = scale(rotate(rotation, [0.0, 1.0, 0.0]), scl[1]);
    let z = scale(rotate(rotation, [0.0, 0.0, 1.0]), scl[2]);
    [
        [x[0], x[1], x[2], 0.0],
        [y[0], y[1], y[2], 0.0],
        [z[0], z[1], z[2], 0.0],
        [position[0], position[1], position[2], 1.0],
    ]
}

/// The view matrix of an eye at `eye` turned by `rotation`: it looks down its rotated -Z
/// with its rotated +Y up. View space is right-handed, -Z forward.
pub fn view_from_pose(eye: Vec3, rotation: [f32; 4]) -> Mat4 {
    let r = rotate(rotation, [1.0, 0.0, 0.0]);
    let u = rotate(rotation, [0.0, 1.0, 0.0]);
    let b = rotate(rotation, [0.0, 0.0, 1.0]);
    [
        [r[0], u[0], b[0], 0.0],
        [r[1], u[1], b[1], 0.0],
        [r[2], u[2], b[2], 0.0],
        [-dot(r, eye), -dot(u, eye), -dot(b, eye), 1.0],
    ]
}

/// A view matrix looking from `eye` along `forward` with `up` as near to up as it can be.
pub fn look_to(eye: Vec3, forward: Vec3, up: Vec3) -> Mat4 {
    let f = normalize_or(forward, [0.0, 0.0, -1.0]);
    let mut r = cross(f, up);
    if length(r) < 1e-4 {
        r = cross(f, [1.0, 0.0, 0.0]);
    }
    let r = normalize_or(r, [1.0, 0.0, 0.0]);
    let u = cross(r, f);
    let b = scale(f, -1.0);
    [
        [r[0], u[0], b[0], 0.0],
        [r[1], u[1], b[1], 0.0],
        [r[2], u[2], b[2], 0.0],
        [-dot(r, eye), -dot(u, eye), -dot(b, eye), 1.0],
    ]
}

/// A perspective projection to Vulkan clip space (y down, depth 0 near to 1 far): vertical
/// field of view `fov_y` radians, `aspect` width over height. With `far` `None` the far
/// plane is at infinity.
pub fn perspective(fov_y: f32, aspect: f32, near: f32, far: Option<f32>) -> Mat4 {
    let f = 1.0 / (fov_y * 0.5).tan();
    let (a, b) = match far {
        Some(far) => (far / (near - far), near * far / (near - far)),
        None => (-1.0, -near),
    };
    [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, -f, 0.0, 0.0],
        [0.0, 0.0, a, -1.0],
        [0.0, 0.0, b, 0.0],
    ]
}

/// An orthographic projection of the view box `[l, r] × [b, t]` and view depths
/// `[near, far]` (positive distances along -Z) to Vulkan clip space.
pub fn orthographic(l: f32, r: f32, b: f32, t: f32, near: f32, far: f32) -> Mat4 {
    [
        [2.0 / (r - l), 0.0, 0.0, 0.0],
        [0.0, -2.0 / (t - b), 0.0, 0.0],
        [0.0, 0.0, -1.0 / (far - near), 0.0],
        [
            -(r + l) / (r - l),
            (t + b) / (t - b),
            -near / (far - near),
            1.0,
        ],
    ]
}

/// The inverse of a matrix, or `None` when it is singular.
pub fn inverse(m: &Mat4) -> Option<Mat4> {
    // Gauss-Jordan on the row-major transpose, in f64.
    let mut a = [[0.0f64; 8]; 4];
    for r in 0..4 {
        for c in 0..4 {
            a[r][c] = f64::from(m[c][r]);
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
    Some(out)
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
        let n = transform_point(&p, [0.0, 0.0, -0.1]);
        let f = transform_point(&p, [0.0, 0.0, -100.0]);
        assert!((n[2]).abs() < 1e-5 && (f[2] - 1.0).abs() < 1e-5);
        // Up in view space is up on screen: negative clip y (Vulkan's y points down).
        let up = transform_point(&p, [0.0, 1.0, -1.0]);
        assert!((up[1] + 1.0).abs() < 1e-5);
        let right = transform_point(&p, [2.0, 0.0, -1.0]);
        assert!((right[0] - 1.0).abs() < 1e-5);
    }

    #[test]
    fn ortho_box_maps_to_the_unit_cube() {
        let o = orthographic(-2.0, 2.0, -1.0, 1.0, 0.5, 10.5);
        assert!(close(
            transform_point(&o, [-2.0, 1.0, -0.5]),
            [-1.0, -1.0, 0.0]
        ));
        assert!(close(
            transform_point(&o, [2.0, -1.0, -10.5]),
            [1.0, 1.0, 1.0]
        ));
    }

    #[test]
    fn view_and_inverse_round_trip() {
        let q = [0.2f32, 0.3, -0.1, 0.927];
        let l = (q.iter().map(|v| v * v).sum::<f32>()).sqrt();
        let q = q.map(|v| v / l);
        let v = view_from_pose([1.0, 2.0, 3.0], q);
        let inv = inverse(&v).unwrap_or(IDENTITY);
        assert!(close(
            transform_point(&inv, [0.0, 0.0, 0.0]),
            [1.0, 2.0, 3.0]
        ));
        let fwd = sub(transform_point(&inv, [0.0, 0.0, -1.0]), [1.0, 2.0, 3.0]);
        assert!(close(fwd, rotate(q, [0.0, 0.0, -1.0])));
        let m = mul(&v, &inv);
        for (c, col) in m.iter().enumerate() {
            for (r, v) in col.iter().enumerate() {
                let e = if c == r { 1.0 } else { 0.0 };
                assert!((v - e).abs() < 1e-5);
            }
        }
        assert!(inverse(&[[0.0; 4]; 4]).is_none());
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
