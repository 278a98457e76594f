//! The 72-byte [`MeshVertex`], the octahedral direction packing and its reference decode,
//! and the box mesh every `dh.box` and box brush is drawn from.

/// The size of one [`MeshVertex`] in bytes.
pub const MESH_VERTEX_SIZE: usize = 72;

/// The fixed CPU vertex record (spec: runtime assets, "Mesh vertex format"): seven
/// attributes, 72 bytes, no format negotiation.
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct MeshVertex {
    /// Meters, world-handed (Y-up, right-handed, -Z forward). Offset 0.
    pub position: [f32; 3],
    /// Unit length. Offset 12.
    pub normal: [f32; 3],
    /// glTF convention: xyz the unit tangent along +U, w the handedness ±1, so the bitangent
    /// is `cross(normal, tangent.xyz) * tangent.w`. Offset 24.
    pub tangent: [f32; 4],
    /// The material UV (TEXCOORD_0). Offset 40.
    pub uv0: [f32; 2],
    /// TEXCOORD_1, zero when the source authored none. Offset 48.
    pub uv1: [f32; 2],
    /// TEXCOORD_2. Offset 56.
    pub uv2: [f32; 2],
    /// TEXCOORD_3. Offset 64.
    pub uv3: [f32; 2],
}

const _: () = assert!(std::mem::size_of::<MeshVertex>() == MESH_VERTEX_SIZE);

fn sign_not_zero(v: f64) -> f64 {
    if v < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// Folds a direction onto the octahedron: a point of `[-1, 1]²`. A zero or non-finite
/// direction folds to `+Z` (`[0, 0]`), so the encoder never produces NaN.
pub fn encode_octahedral(d: [f32; 3]) -> [f32; 2] {
    let [x, y, z] = d.map(f64::from);
    let l1 = x.abs() + y.abs() + z.abs();
    if !(l1.is_finite() && l1 > 0.0) {
        return [0.0, 0.0];
    }
    let (px, py, pz) = (x / l1, y / l1, z / l1);
    let (ox, oy) = if pz < 0.0 {
        (
            (1.0 - py.abs()) * sign_not_zero(px),
            (1.0 - px.abs()) * sign_not_zero(py),
        )
    } else {
        (px, py)
    };
    [ox as f32, oy as f32]
}

/// The reference decode: a point of `[-1, 1]²` back to a unit direction. The shaders'
/// decode (`gpu/shaders/vertex_layout.wgsl`) is this function, line for line.
pub fn decode_octahedral(e: [f32; 2]) -> [f32; 3] {
    let (ex, ey) = (f64::from(e[0]), f64::from(e[1]));
    let mut n = [ex, ey, 1.0 - ex.abs() - ey.abs()];
    if n[2] < 0.0 {
        let (ax, ay) = (n[0], n[1]);
        n[0] = (1.0 - ay.abs()) * sign_not_zero(ax);
        n[1] = (1.0 - ax.abs()) * sign_not_zero(ay);
    }
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    [
        (n[0] / len) as f32,
        (n[1] / len) as f32,
        (n[2] / len) as f32,
    ]
}

/// Quantizes one octahedral coordinate in `[-1, 1]` to `0..=max` (rounded to nearest).
fn quantize(v: f32, max: u32) -> u32 {
    let t = (f64::from(v).clamp(-1.0, 1.0) * 0.5 + 0.5) * f64::from(max);
    t.round() as u32
}

fn dequantize(q: u32, max: u32) -> f32 {
    (f64::from(q) / f64::from(max) * 2.0 - 1.0) as f32
}

/// A direction as two 16-bit octahedral coordinates (the normal's half of the basis).
pub fn octahedral_to_u16(d: [f32; 3]) -> [u16; 2] {
    let e = encode_octahedral(d);
    [quantize(e[0], 65535) as u16, quantize(e[1], 65535) as u16]
}

/// The inverse of [`octahedral_to_u16`].
pub fn octahedral_from_u16(q: [u16; 2]) -> [f32; 3] {
    decode_octahedral([
        dequantize(u32::from(q[0]), 65535),
        dequantize(u32::from(q[1]), 65535),
    ])
}

/// Faces of a box mesh.
pub const BOX_FACE_COUNT: usize = 6;

/// A box's 24 vertices (four per face, so each face has its own normal and tangent) and 36
/// indices, counter-clockwise seen from outside.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMesh {
    /// The vertices, centered on the origin.
    pub vertices: [MeshVertex; 24],
    /// The triangle list.
    pub indices: [u16; 36],
}

/// The box of full extents `size` centered on the origin, as drawn for a `dh.box` or a box
/// brush. Each face's UV0 is its planar coordinate in meters (so a material's `uvScale`
/// repeats per meter whatever the box's size); UV1–UV3 are zero.
pub fn box_mesh(size: [f32; 3]) -> BoxMesh {
    // (normal, tangent): the bitangent cross(n, t) completes a right-handed frame, so the
    // corners (-t,-b) (+t,-b) (+t,+b) (-t,+b) wind counter-clockwise seen along -n.
    const FACES: [([f32; 3], [f32; 3]); BOX_FACE_COUNT] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0]),
    ];
    let h = size.map(|s| s.abs() * 0.5);
    let habs = |axis: [f32; 3]| axis[0].abs() * h[0] + axis[1].abs() * h[1] + axis[2].abs() * h[2];
    let mut vertices = [MeshVertex::default(); 24];
    let mut indices = [0u16; 36];
    for (f, (n, t)) in FACES.iter().enumerate() {
        let b = [
            n[1] * t[2] - n[2] * t[1],
            n[2] * t[0] - n[0] * t[2],
            n[0] * t[1] - n[1] * t[0],
        ];
        let (hn, ht, hb) = (habs(*n), habs(*t), habs(b));
        for (k, (st, sb)) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            let p = [
                n[0] * hn + t[0] * ht * st + b[0] * hb * sb,
                n[1] * hn + t[1] * ht * st + b[1] * hb * sb,
                n[2] * hn + t[2] * ht * st + b[2] * hb * sb,
            ];
            vertices[f * 4 + k] = MeshVertex {
                position: p,
                normal: *n,
                tangent: [t[0], t[1], t[2], 1.0],
                // U runs along the tangent; V runs down the face (glTF's top-left origin).
                uv0: [ht * st + ht, hb - hb * sb],
                ..MeshVertex::default()
            };
        }
        let base = (f * 4) as u16;
        indices[f * 6..f * 6 + 6].copy_from_slice(&[
            base,
            base + 1,
            base + 2,
            base,
            base + 2,
            base + 3,
        ]);
    }
    BoxMesh { vertices, indices }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's table (runtime assets, "Mesh vertex format"): 72 bytes, seven attributes
    /// at fixed offsets; and the byte view of a vertex is its fields in that order.
    #[test]
    fn mesh_vertex_layout_is_the_spec_table() {
        use std::mem::offset_of;
        assert_eq!(std::mem::size_of::<MeshVertex>(), 72);
        assert_eq!(std::mem::align_of::<MeshVertex>(), 4);
        assert_eq!(offset_of!(MeshVertex, position), 0);
        assert_eq!(offset_of!(MeshVertex, normal), 12);
        assert_eq!(offset_of!(MeshVertex, tangent), 24);
        assert_eq!(offset_of!(MeshVertex, uv0), 40);
        assert_eq!(offset_of!(MeshVertex, uv1), 48);
        assert_eq!(offset_of!(MeshVertex, uv2), 56);
        assert_eq!(offset_of!(MeshVertex, uv3), 64);
        let v = MeshVertex {
            position: [1.0, 2.0, 3.0],
            normal: [4.0, 5.0, 6.0],
            tangent: [7.0, 8.0, 9.0, 10.0],
            uv0: [11.0, 12.0],
            uv1: [13.0, 14.0],
            uv2: [15.0, 16.0],
            uv3: [17.0, 18.0],
        };
        let want: Vec<u8> = (1..=18).flat_map(|i| (i as f32).to_le_bytes()).collect();
        assert_eq!(bytemuck::bytes_of(&v), want.as_slice());
    }

    fn angle_degrees(a: [f32; 3], b: [f32; 3]) -> f64 {
        let a = a.map(f64::from);
        let b = b.map(f64::from);
        let la = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let lb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
        let c = [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ];
        let s = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt() / (la * lb);
        let d = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb);
        s.atan2(d).to_degrees()
    }

    /// A dense Fibonacci sphere plus the axes and the octahedron's folds, where the
    /// encoding is hardest.
    fn directions() -> Vec<[f32; 3]> {
        let n = 200_000;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let mut out: Vec<[f32; 3]> = (0..n)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
                let r = (1.0 - y * y).sqrt();
                let phi = golden * i as f64;
                [(r * phi.cos()) as f32, y as f32, (r * phi.sin()) as f32]
            })
            .collect();
        for s in [-1.0f32, 1.0] {
            out.push([s, 0.0, 0.0]);
            out.push([0.0, s, 0.0]);
            out.push([0.0, 0.0, s]);
            for t in [-1.0f32, 1.0] {
                let k = std::f32::consts::FRAC_1_SQRT_2;
                out.push([s * k, t * k, 0.0]);
                out.push([s * k, 0.0, t * k]);
                out.push([0.0, s * k, t * k]);
            }
        }
        out
    }

    #[test]
    fn octahedral_round_trip_float_is_exact_enough() {
        for d in directions().into_iter().step_by(97) {
            let back = decode_octahedral(encode_octahedral(d));
            assert!(angle_degrees(d, back) < 1e-3, "{d:?} -> {back:?}");
        }
    }

    #[test]
    fn quantized_normal_error_is_under_a_twentieth_of_a_degree() {
        let mut worst = 0.0f64;
        for d in directions() {
            let back = octahedral_from_u16(octahedral_to_u16(d));
            worst = worst.max(angle_degrees(d, back));
        }
        assert!(worst < 1.0 / 20.0, "worst-case error {worst} degrees");
        // The bound is not vacuous: a coarse 8-bit packing misses it.
        let mut coarse = 0.0f64;
        for d in directions().into_iter().step_by(13) {
            let e = encode_octahedral(d);
            let q = e.map(|v| ((v * 0.5 + 0.5) * 255.0).round() / 255.0 * 2.0 - 1.0);
            coarse = coarse.max(angle_degrees(d, decode_octahedral(q)));
        }
        assert!(coarse > 1.0 / 20.0, "8-bit error {coarse}");
    }

    #[test]
    fn degenerate_directions_encode_finite() {
        for d in [
            [0.0, 0.0, 0.0],
            [f32::NAN, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0],
        ] {
            let e = encode_octahedral(d);
            assert!(e.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn box_faces_point_outward_and_wind_counter_clockwise() {
        let m = box_mesh([2.0, 4.0, 6.0]);
        for tri in m.indices.chunks(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| m.vertices[i as usize]);
            let e1 = [0, 1, 2].map(|k| b.position[k] - a.position[k]);
            let e2 = [0, 1, 2].map(|k| c.position[k] - a.position[k]);
            let cr = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            let d = cr[0] * a.normal[0] + cr[1] * a.normal[1] + cr[2] * a.normal[2];
            assert!(d > 0.0, "triangle {tri:?} winds clockwise");
            // Every vertex lies on its face's plane, at the half extent.
            let n = a.normal;
            let on = a.position[0] * n[0] + a.position[1] * n[1] + a.position[2] * n[2];
            let h = n[0].abs() * 1.0 + n[1].abs() * 2.0 + n[2].abs() * 3.0;
            assert!((on - h).abs() < 1e-6);
        }
        // UV0 spans the face in meters: the +Y face is 2 x 6.
        let top: Vec<[f32; 2]> = m.vertices[8..12].iter().map(|v| v.uv0).collect();
        let umax = top.iter().fold(0.0f32, |a, v| a.max(v[0]));
        let vmax = top.iter().fold(0.0f32, |a, v| a.max(v[1]));
        assert_eq!((umax, vmax), (2.0, 6.0));
    }
}
