//! Normals and tangents a source did not author.
//!
//! A primitive without NORMAL gets flat normals, as glTF asks: its triangles are unwelded
//! so each corner carries its face's normal. A primitive without TANGENT gets the tangents
//! glTF asks for: MikkTSpace ([`mikk`], a port of the reference `mikktspace.c`) over its
//! positions, normals and TEXCOORD_0, the bitangent sign in `w`. MikkTSpace's sign is
//! `+1` when the bitangent `cross(n, t)` runs along +V; glTF's V runs down the image and
//! its bitangent up it (toward decreasing V, the frame Blender writes), so `w` is
//! MikkTSpace's sign negated, as if the V axis were flipped first.
//!
//! MikkTSpace gives a space per face corner; a vertex takes its first corner (in index
//! order) that a group of good triangles derived, so the output stays one tangent per
//! vertex and the vertex count is the source's. A vertex no such corner reaches (only
//! zero-area UVs around it, or used by no triangle) gets MikkTSpace's default space, `+X`
//! with `w = 1`, made perpendicular to its normal (`+Y` when the normal is near `±X`). A
//! primitive without TEXCOORD_0 gets that same default at every vertex.
//!
//! Deterministic: the same vertices and indices give bit-identical tangents (no hashing,
//! no threads, sorts with total orders).

mod mikk;

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

/// Fills every vertex's tangent by MikkTSpace from its position, normal and `uv0`; when the
/// primitive has no TEXCOORD_0 (`has_uv0` false), every vertex gets the default space.
/// `indices` are triangles (a trailing partial one is ignored) into `vertices`.
pub(crate) fn derive_tangents(vertices: &mut [MeshVertex], indices: &[u32], has_uv0: bool) {
    let default = |v: &MeshVertex| {
        let t = perpendicular(norm(f64s3(v.normal)).unwrap_or([0.0, 1.0, 0.0]));
        [t[0] as f32, t[1] as f32, t[2] as f32, 1.0]
    };
    if !has_uv0 {
        for v in vertices.iter_mut() {
            v.tangent = default(v);
        }
        return;
    }
    let spaces = mikk::corner_spaces(vertices, indices);
    // Per vertex, the first derived corner, else the first corner.
    let mut chosen: Vec<Option<mikk::CornerSpace>> = vec![None; vertices.len()];
    for (space, index) in spaces.iter().zip(indices) {
        let Some(slot) = chosen.get_mut(*index as usize) else {
            continue;
        };
        match slot {
            Some(s) if s.derived || !space.derived => {}
            _ => *slot = Some(*space),
        }
    }
    for (v, c) in vertices.iter_mut().zip(chosen) {
        v.tangent = match c {
            Some(s) if s.derived && is_unit(s.tangent) => {
                let w = if s.orient { -1.0 } else { 1.0 };
                [s.tangent[0], s.tangent[1], s.tangent[2], w]
            }
            Some(s) => {
                let t = default(v);
                [t[0], t[1], t[2], if s.orient { -1.0 } else { 1.0 }]
            }
            None => default(v),
        };
    }
}

/// Whether `t` is a finite unit vector (to within what MikkTSpace's normalize leaves).
fn is_unit(t: [f32; 3]) -> bool {
    let l = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    l.is_finite() && (l - 1.0).abs() < 1e-3
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
        derive_tangents(&mut v, &[0, 1, 2, 0, 2, 3], true);
        for x in &v {
            assert!((x.tangent[0] - 1.0).abs() < 1e-6, "{:?}", x.tangent);
            // bitangent = cross(n, t) * w = (0,1,0) * w must point toward decreasing V = +Y.
            assert_eq!(x.tangent[3], 1.0);
        }
        // Mirror U: the tangent flips and so does the handedness.
        for x in v.iter_mut() {
            x.uv0[0] = 1.0 - x.uv0[0];
        }
        derive_tangents(&mut v, &[0, 1, 2, 0, 2, 3], true);
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
        derive_tangents(&mut v, &[0, 1, 2], false);
        for x in &v {
            let t = x.tangent;
            let l = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            assert!((l - 1.0).abs() < 1e-6);
            assert!(t[2].abs() < 1e-6);
        }
    }
}
