//! Normals and tangents a source did not author.
//!
//! A primitive without NORMAL gets flat normals, as glTF asks: its triangles are unwelded
//! so each corner carries its face's normal. A primitive without TANGENT gets tangents
//! derived deterministically from its UV deltas the way MikkTSpace derives them: each
//! triangle's tangent along +U (and its handedness, from the sign of the UV area and the
//! direction of +V) is projected onto each corner's normal plane and weighted by the
//! corner's angle; a vertex sums its corners per handedness and takes the heavier side, so
//! a mirrored UV seam never averages two opposite frames into nothing. The result is
//! orthogonalized against the vertex normal. glTF's V runs down the image, so the
//! bitangent `cross(n, t) · w` points toward decreasing V, the frame Blender (and the glTF
//! sample models) write. A vertex no UV'd triangle reaches gets any unit tangent
//! perpendicular to its normal, `w = 1`.

use crate::mesh::MeshVertex;

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V3) -> Option<V3> {
    let l = dot(a, a).sqrt();
    (l.is_finite() && l > 1e-30).then(|| a.map(|v| v / l))
}
fn f64s3(a: [f32; 3]) -> V3 {
    a.map(f64::from)
}

/// Gives each corner of an unwelded triangle list (vertex `3k + c` is corner `c` of
/// triangle `k`) its triangle's flat normal; a zero-area triangle takes `+Y`.
pub(crate) fn flat_normals(vertices: &mut [MeshVertex]) {
    for tri in vertices.chunks_exact_mut(3) {
        let n = norm(cross(
            sub(f64s3(tri[1].position), f64s3(tri[0].position)),
            sub(f64s3(tri[2].position), f64s3(tri[0].position)),
        ))
        .unwrap_or([0.0, 1.0, 0.0]);
        for c in tri.iter_mut() {
            c.normal = n.map(|x| x as f32);
        }
    }
}

/// `t` made a unit tangent perpendicular to the unit normal `n` (Gram–Schmidt), or any
/// perpendicular when `t` is zero or along `n`.
pub(crate) fn orthonormal_tangent(n: [f32; 3], t: [f32; 3]) -> [f32; 3] {
    let n = norm(f64s3(n)).unwrap_or([0.0, 1.0, 0.0]);
    let t = f64s3(t);
    let r = norm(sub(t, n.map(|v| v * dot(n, t)))).unwrap_or_else(|| perpendicular(n));
    r.map(|v| v as f32)
}

/// `n` at unit length, `+Y` when it has none.
pub(crate) fn unit_normal(n: [f32; 3]) -> [f32; 3] {
    norm(f64s3(n)).unwrap_or([0.0, 1.0, 0.0]).map(|v| v as f32)
}

/// Any unit vector perpendicular to `n`.
fn perpendicular(n: V3) -> V3 {
    let a = if n[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let t = sub(a, n.map(|v| v * dot(a, n)));
    norm(t).unwrap_or([1.0, 0.0, 0.0])
}

/// Fills every vertex's tangent from the UV0 deltas of the triangles that use it.
pub(crate) fn derive_tangents(vertices: &mut [MeshVertex], indices: &[u32]) {
    // Per vertex: the weighted tangent sums for w = +1 and w = -1, and their weights.
    let n = vertices.len();
    let mut pos = vec![[0.0f64; 4]; n];
    let mut neg = vec![[0.0f64; 4]; n];
    for tri in indices.chunks_exact(3) {
        let ix = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        if ix.iter().any(|i| *i >= n) {
            continue;
        }
        let p = ix.map(|i| f64s3(vertices[i].position));
        let t = ix.map(|i| vertices[i].uv0.map(f64::from));
        let e1 = sub(p[1], p[0]);
        let e2 = sub(p[2], p[0]);
        let (du1, dv1) = (t[1][0] - t[0][0], t[1][1] - t[0][1]);
        let (du2, dv2) = (t[2][0] - t[0][0], t[2][1] - t[0][1]);
        let r = du1 * dv2 - du2 * dv1;
        if !(r.is_finite() && r.abs() > 1e-20) {
            continue;
        }
        // ∂p/∂u and ∂p/∂v over the triangle.
        let sdir = [0, 1, 2].map(|k| (e1[k] * dv2 - e2[k] * dv1) / r);
        let tdir = [0, 1, 2].map(|k| (e2[k] * du1 - e1[k] * du2) / r);
        for c in 0..3 {
            let i = ix[c];
            let nrm = norm(f64s3(vertices[i].normal)).unwrap_or([0.0, 1.0, 0.0]);
            let Some(s) = norm(sub(sdir, nrm.map(|v| v * dot(nrm, sdir)))) else {
                continue;
            };
            // The bitangent runs toward decreasing V (glTF's V points down the image).
            let w = if dot(cross(nrm, s), tdir) < 0.0 {
                1.0
            } else {
                -1.0
            };
            let a = sub(p[(c + 1) % 3], p[c]);
            let b = sub(p[(c + 2) % 3], p[c]);
            let angle = match (norm(a), norm(b)) {
                (Some(a), Some(b)) => dot(a, b).clamp(-1.0, 1.0).acos(),
                _ => 0.0,
            };
            if angle <= 0.0 {
                continue;
            }
            let acc = if w > 0.0 { &mut pos[i] } else { &mut neg[i] };
            for k in 0..3 {
                acc[k] += s[k] * angle;
            }
            acc[3] += angle;
        }
    }
    for (i, v) in vertices.iter_mut().enumerate() {
        let nrm = norm(f64s3(v.normal)).unwrap_or([0.0, 1.0, 0.0]);
        let (sum, w) = if pos[i][3] >= neg[i][3] {
            (pos[i], 1.0)
        } else {
            (neg[i], -1.0)
        };
        let s = [sum[0], sum[1], sum[2]];
        let t = norm(sub(s, nrm.map(|c| c * dot(nrm, s))));
        let (t, w) = match t {
            Some(t) if sum[3] > 0.0 => (t, w),
            _ => (perpendicular(nrm), 1.0),
        };
        v.tangent = [t[0] as f32, t[1] as f32, t[2] as f32, w as f32];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vtx(p: [f32; 3], uv: [f32; 2]) -> MeshVertex {
        MeshVertex {
            position: p,
            normal: [0.0, 0.0, 1.0],
            uv0: uv,
            ..MeshVertex::default()
        }
    }

    #[test]
    fn a_quad_facing_z_gets_plus_x_and_a_bitangent_up_the_image() {
        // U grows along +X; V grows down the image, so along -Y.
        let mut v = vec![
            vtx([0.0, 0.0, 0.0], [0.0, 1.0]),
            vtx([1.0, 0.0, 0.0], [1.0, 1.0]),
            vtx([1.0, 1.0, 0.0], [1.0, 0.0]),
            vtx([0.0, 1.0, 0.0], [0.0, 0.0]),
        ];
        derive_tangents(&mut v, &[0, 1, 2, 0, 2, 3]);
        for x in &v {
            assert!((x.tangent[0] - 1.0).abs() < 1e-6, "{:?}", x.tangent);
            // bitangent = cross(n, t) * w = (0,1,0) * w must point toward decreasing V = +Y.
            assert_eq!(x.tangent[3], 1.0);
        }
        // Mirror U: the tangent flips and so does the handedness.
        for x in v.iter_mut() {
            x.uv0[0] = 1.0 - x.uv0[0];
        }
        derive_tangents(&mut v, &[0, 1, 2, 0, 2, 3]);
        for x in &v {
            assert!((x.tangent[0] + 1.0).abs() < 1e-6, "{:?}", x.tangent);
            assert_eq!(x.tangent[3], -1.0);
        }
    }

    #[test]
    fn no_uvs_still_gives_a_unit_perpendicular_tangent() {
        let mut v = vec![
            vtx([0.0, 0.0, 0.0], [0.0, 0.0]),
            vtx([1.0, 0.0, 0.0], [0.0, 0.0]),
            vtx([0.0, 1.0, 0.0], [0.0, 0.0]),
        ];
        derive_tangents(&mut v, &[0, 1, 2]);
        for x in &v {
            let t = x.tangent;
            let l = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            assert!((l - 1.0).abs() < 1e-6);
            assert!(t[2].abs() < 1e-6);
        }
    }
}
