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

use glam::{DVec3, Vec3};

use crate::mesh::MeshVertex;

// The vector steps are glam's (`-`, `dot`, `cross`, `/`), whose f64 operations are the ones
// this module always did, in the same order: the bits are unchanged.
fn norm(a: DVec3) -> Option<DVec3> {
    let l = a.dot(a).sqrt();
    (l.is_finite() && l > 1e-30).then(|| a / l)
}
fn f64s3(a: [f32; 3]) -> DVec3 {
    Vec3::from_array(a).as_dvec3()
}
fn f32s3(a: DVec3) -> [f32; 3] {
    a.as_vec3().to_array()
}

/// Gives each corner of an unwelded triangle list (vertex `3k + c` is corner `c` of
/// triangle `k`) its triangle's flat normal; a zero-area triangle takes `+Y`.
pub(crate) fn flat_normals(vertices: &mut [MeshVertex]) {
    for tri in vertices.chunks_exact_mut(3) {
        let n = norm(
            (f64s3(tri[1].position) - f64s3(tri[0].position))
                .cross(f64s3(tri[2].position) - f64s3(tri[0].position)),
        )
        .unwrap_or(DVec3::Y);
        for c in tri.iter_mut() {
            c.normal = f32s3(n);
        }
    }
}

/// `t` made a unit tangent perpendicular to the unit normal `n` (Gram–Schmidt), or any
/// perpendicular when `t` is zero or along `n`.
pub(crate) fn orthonormal_tangent(n: [f32; 3], t: [f32; 3]) -> [f32; 3] {
    let n = norm(f64s3(n)).unwrap_or(DVec3::Y);
    let t = f64s3(t);
    let r = norm(t - n * n.dot(t)).unwrap_or_else(|| perpendicular(n));
    f32s3(r)
}

/// `n` at unit length, `+Y` when it has none.
pub(crate) fn unit_normal(n: [f32; 3]) -> [f32; 3] {
    f32s3(norm(f64s3(n)).unwrap_or(DVec3::Y))
}

/// Any unit vector perpendicular to `n`.
fn perpendicular(n: DVec3) -> DVec3 {
    let a = if n.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
    let t = a - n * a.dot(n);
    norm(t).unwrap_or(DVec3::X)
}

/// Fills every vertex's tangent by MikkTSpace from its position, normal and `uv0`; when the
/// primitive has no TEXCOORD_0 (`has_uv0` false), every vertex gets the default space.
/// `indices` are triangles (a trailing partial one is ignored) into `vertices`.
pub(crate) fn derive_tangents(vertices: &mut [MeshVertex], indices: &[u32], has_uv0: bool) {
    let default = |v: &MeshVertex| {
        let t = f32s3(perpendicular(norm(f64s3(v.normal)).unwrap_or(DVec3::Y)));
        [t[0], t[1], t[2], 1.0]
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
                s.tangent.extend(w).to_array()
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
fn is_unit(t: Vec3) -> bool {
    let l = t.dot(t);
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
