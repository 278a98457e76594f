//! The GPU vertex streams (spec: runtime assets, "GPU vertex streams"): one description of
//! the layout ([`MeshVertexLayout`]) that every pipeline names, and the packing of
//! [`MeshVertex`] records into streams laid back to back in one buffer, each on a 16-byte
//! boundary.

use super::vertex::{decode_octahedral, encode_octahedral, octahedral_from_u16, octahedral_to_u16};
use super::MeshVertex;

/// Stride of the position stream (binding 0): float3.
pub const POSITION_STRIDE: u32 = 12;
/// Stride of the basis stream (binding 1): the normal and the tangent, octahedral, two
/// R16G16Uint attributes.
pub const BASIS_STRIDE: u32 = 8;
/// Stride of the attribute stream (binding 2): the four UV sets, a float2 each.
pub const ATTRIBUTES_STRIDE: u32 = 32;
/// Stride of the lightmap stream (binding 3): float2.
pub const LIGHTMAP_STRIDE: u32 = 8;
/// Stride of the color stream (binding 4): COLOR_0 as four unorm16, COLOR_1 as four unorm8.
pub const COLOR_STRIDE: u32 = 12;
/// Every stream starts on this boundary inside the mesh's buffer.
pub const STREAM_ALIGN: usize = 16;

/// A vertex attribute's format, as the pipelines declare it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexFormat {
    /// Three `f32` (`R32G32B32_SFLOAT`).
    Float32x3,
    /// Two `f32` (`R32G32_SFLOAT`).
    Float32x2,
    /// Two `u16`, read as unsigned integers (`R16G16_UINT`).
    Uint16x2,
    /// Four `u16`, normalized (`R16G16B16A16_UNORM`).
    Unorm16x4,
    /// Four `u8`, normalized (`R8G8B8A8_UNORM`).
    Unorm8x4,
}

/// One attribute of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeDesc {
    /// The shader location.
    pub location: u32,
    /// Its format.
    pub format: VertexFormat,
    /// Its offset inside the stream's element.
    pub offset: u32,
}

/// Which stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// Binding 0.
    Position,
    /// Binding 1.
    Basis,
    /// Binding 2.
    Attributes,
    /// Binding 3.
    Lightmap,
    /// Binding 4.
    Color,
}

/// One vertex stream: its binding, stride and attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamDesc {
    /// Which stream.
    pub kind: StreamKind,
    /// The vertex-buffer binding.
    pub binding: u32,
    /// Bytes per vertex.
    pub stride: u32,
    /// Its attributes.
    pub attributes: &'static [AttributeDesc],
}

const POSITION: StreamDesc = StreamDesc {
    kind: StreamKind::Position,
    binding: 0,
    stride: POSITION_STRIDE,
    attributes: &[AttributeDesc {
        location: 0,
        format: VertexFormat::Float32x3,
        offset: 0,
    }],
};
const BASIS: StreamDesc = StreamDesc {
    kind: StreamKind::Basis,
    binding: 1,
    stride: BASIS_STRIDE,
    attributes: &[
        AttributeDesc {
            location: 1,
            format: VertexFormat::Uint16x2,
            offset: 0,
        },
        AttributeDesc {
            location: 2,
            format: VertexFormat::Uint16x2,
            offset: 4,
        },
    ],
};
const ATTRIBUTES: StreamDesc = StreamDesc {
    kind: StreamKind::Attributes,
    binding: 2,
    stride: ATTRIBUTES_STRIDE,
    attributes: &[
        AttributeDesc {
            location: 3,
            format: VertexFormat::Float32x2,
            offset: 0,
        },
        AttributeDesc {
            location: 4,
            format: VertexFormat::Float32x2,
            offset: 8,
        },
        AttributeDesc {
            location: 5,
            format: VertexFormat::Float32x2,
            offset: 16,
        },
        AttributeDesc {
            location: 6,
            format: VertexFormat::Float32x2,
            offset: 24,
        },
    ],
};
const LIGHTMAP: StreamDesc = StreamDesc {
    kind: StreamKind::Lightmap,
    binding: 3,
    stride: LIGHTMAP_STRIDE,
    attributes: &[AttributeDesc {
        location: 7,
        format: VertexFormat::Float32x2,
        offset: 0,
    }],
};
const COLOR: StreamDesc = StreamDesc {
    kind: StreamKind::Color,
    binding: 4,
    stride: COLOR_STRIDE,
    attributes: &[
        AttributeDesc {
            location: 8,
            format: VertexFormat::Unorm16x4,
            offset: 0,
        },
        AttributeDesc {
            location: 9,
            format: VertexFormat::Unorm8x4,
            offset: 8,
        },
    ],
};

/// Which streams a pipeline reads: the one description of the layout every pipeline names,
/// so a pass cannot drift from what the meshes it draws contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshVertexLayout {
    /// Positions only: depth prepasses, shadow cascades, outline masks.
    PositionOnly,
    /// Every stream a shading pass reads: position, basis, attributes, lightmap and color.
    /// A mesh without a lightmap or color stream binds its attribute run in their place
    /// (long enough for any vertex), and the draw says which sets it has.
    Full,
}

impl MeshVertexLayout {
    /// The streams, in binding order.
    pub fn streams(self) -> &'static [StreamDesc] {
        const ONLY: [StreamDesc; 1] = [POSITION];
        const FULL: [StreamDesc; 5] = [POSITION, BASIS, ATTRIBUTES, LIGHTMAP, COLOR];
        match self {
            MeshVertexLayout::PositionOnly => &ONLY,
            MeshVertexLayout::Full => &FULL,
        }
    }
}

/// A vertex's two color sets: COLOR_0 (multiplies albedo in linear light) and COLOR_1 (a
/// blend weight).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexColor {
    /// COLOR_0, linear RGBA in [0, 1].
    pub color0: [f32; 4],
    /// COLOR_1, RGBA in [0, 1].
    pub color1: [f32; 4],
}

/// Why a mesh could not be packed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    /// A companion stream's length disagrees with the vertex count.
    #[error("the {stream} stream has {got} entries for {vertices} vertices")]
    Length {
        /// Which stream.
        stream: &'static str,
        /// Its entries.
        got: usize,
        /// The vertices.
        vertices: usize,
    },
    /// More vertices than a 32-bit index reaches.
    #[error("{0} vertices is more than a mesh holds (2^32 - 1)")]
    TooMany(usize),
}

/// A mesh packed into its streams: one byte run, each stream at its offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedMesh {
    /// The buffer's bytes, little-endian.
    pub bytes: Vec<u8>,
    /// Vertices.
    pub vertex_count: u32,
    /// Byte offset of the position stream.
    pub position_offset: usize,
    /// Byte offset of the basis stream.
    pub basis_offset: usize,
    /// Byte offset of the attribute stream.
    pub attributes_offset: usize,
    /// Byte offset of the lightmap stream, when the mesh has one.
    pub lightmap_offset: Option<usize>,
    /// Byte offset of the color stream, when the mesh has one.
    pub color_offset: Option<usize>,
}

impl PackedMesh {
    /// The byte offset of `kind` to bind, when a draw reads it: a mesh without a lightmap
    /// or color stream binds its attribute run in their place (32 B a vertex covers the
    /// 8 B and 12 B strides).
    pub fn binding_offset(&self, kind: StreamKind) -> usize {
        match kind {
            StreamKind::Position => self.position_offset,
            StreamKind::Basis => self.basis_offset,
            StreamKind::Attributes => self.attributes_offset,
            StreamKind::Lightmap => self.lightmap_offset.unwrap_or(self.attributes_offset),
            StreamKind::Color => self.color_offset.unwrap_or(self.attributes_offset),
        }
    }
}

/// The normal and tangent of one vertex as the 8-byte basis element: the normal's two 16-bit
/// octahedral coordinates, then the tangent's, the tangent's handedness riding the low bit
/// of its second coordinate (set for +1), which costs that coordinate one bit.
pub fn pack_basis(normal: [f32; 3], tangent: [f32; 4]) -> [u16; 4] {
    let n = octahedral_to_u16(normal);
    let t = encode_octahedral([tangent[0], tangent[1], tangent[2]]);
    let tx = ((f64::from(t[0]).clamp(-1.0, 1.0) * 0.5 + 0.5) * 65535.0).round() as u16;
    let ty15 = ((f64::from(t[1]).clamp(-1.0, 1.0) * 0.5 + 0.5) * 32767.0).round() as u16;
    let handed = u16::from(tangent[3] >= 0.0);
    [n[0], n[1], tx, (ty15 << 1) | handed]
}

/// The reference decode of [`pack_basis`]: the unit normal and the unit tangent with its
/// handedness ±1.
pub fn unpack_basis(b: [u16; 4]) -> ([f32; 3], [f32; 4]) {
    let n = octahedral_from_u16([b[0], b[1]]);
    let tx = (f64::from(b[2]) / 65535.0 * 2.0 - 1.0) as f32;
    let ty = (f64::from(b[3] >> 1) / 32767.0 * 2.0 - 1.0) as f32;
    let t = decode_octahedral([tx, ty]);
    let w = if b[3] & 1 == 1 { 1.0 } else { -1.0 };
    (n, [t[0], t[1], t[2], w])
}

// The streams are cast to bytes in the host's order; the GPU reads them little-endian.
const _: () = assert!(
    cfg!(target_endian = "little"),
    "the vertex streams are packed by casting: a little-endian target only"
);

/// One element of the color stream as it lies in the buffer: COLOR_0 as four unorm16 at
/// offset 0, COLOR_1 as four unorm8 at offset 8 ([`COLOR_STRIDE`] bytes).
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct ColorElement {
    color0: [u16; 4],
    color1: [u8; 4],
}

const _: () = assert!(std::mem::size_of::<ColorElement>() == COLOR_STRIDE as usize);
const _: () = assert!(std::mem::size_of::<[u16; 4]>() == BASIS_STRIDE as usize);
const _: () = assert!(std::mem::size_of::<[[f32; 2]; 4]>() == ATTRIBUTES_STRIDE as usize);
const _: () = assert!(std::mem::size_of::<[f32; 2]>() == LIGHTMAP_STRIDE as usize);
const _: () = assert!(std::mem::size_of::<[f32; 3]>() == POSITION_STRIDE as usize);

fn align(v: usize) -> usize {
    v.div_ceil(STREAM_ALIGN) * STREAM_ALIGN
}

fn unorm(v: f32, max: f32) -> f32 {
    (v.clamp(0.0, 1.0) * max).round()
}

/// Packs `vertices` into the streams. `lightmap` and `colors`, when given, must have one
/// entry per vertex; their streams are allocated only then.
pub fn pack_streams(
    vertices: &[MeshVertex],
    lightmap: Option<&[[f32; 2]]>,
    colors: Option<&[VertexColor]>,
) -> Result<PackedMesh, PackError> {
    let n = vertices.len();
    let count = u32::try_from(n)
        .ok()
        .filter(|c| *c != u32::MAX)
        .ok_or(PackError::TooMany(n))?;
    if let Some(l) = lightmap {
        if l.len() != n {
            return Err(PackError::Length {
                stream: "lightmap",
                got: l.len(),
                vertices: n,
            });
        }
    }
    if let Some(c) = colors {
        if c.len() != n {
            return Err(PackError::Length {
                stream: "color",
                got: c.len(),
                vertices: n,
            });
        }
    }
    let position_offset = 0;
    let basis_offset = align(position_offset + n * POSITION_STRIDE as usize);
    let attributes_offset = align(basis_offset + n * BASIS_STRIDE as usize);
    let mut end = align(attributes_offset + n * ATTRIBUTES_STRIDE as usize);
    let lightmap_offset = lightmap.map(|_| {
        let o = end;
        end = align(o + n * LIGHTMAP_STRIDE as usize);
        o
    });
    let color_offset = colors.map(|_| {
        let o = end;
        end = align(o + n * COLOR_STRIDE as usize);
        o
    });
    let mut bytes = vec![0u8; end];
    let mut put = |at: usize, b: &[u8]| bytes[at..at + b.len()].copy_from_slice(b);
    let positions: Vec<[f32; 3]> = vertices.iter().map(|v| v.position).collect();
    put(position_offset, bytemuck::cast_slice(&positions));
    let basis: Vec<[u16; 4]> = vertices
        .iter()
        .map(|v| pack_basis(v.normal, v.tangent))
        .collect();
    put(basis_offset, bytemuck::cast_slice(&basis));
    let attributes: Vec<[[f32; 2]; 4]> = vertices
        .iter()
        .map(|v| [v.uv0, v.uv1, v.uv2, v.uv3])
        .collect();
    put(attributes_offset, bytemuck::cast_slice(&attributes));
    if let (Some(o), Some(l)) = (lightmap_offset, lightmap) {
        put(o, bytemuck::cast_slice(l));
    }
    if let (Some(o), Some(c)) = (color_offset, colors) {
        let packed: Vec<ColorElement> = c
            .iter()
            .map(|col| ColorElement {
                color0: col.color0.map(|v| unorm(v, 65535.0) as u16),
                color1: col.color1.map(|v| unorm(v, 255.0) as u8),
            })
            .collect();
        put(o, bytemuck::cast_slice(&packed));
    }
    Ok(PackedMesh {
        bytes,
        vertex_count: count,
        position_offset,
        basis_offset,
        attributes_offset,
        lightmap_offset,
        color_offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::box_mesh;

    fn angle(a: [f32; 3], b: [f32; 3]) -> f64 {
        let d = f64::from(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
        d.clamp(-1.0, 1.0).acos().to_degrees()
    }

    /// The cast packing against the field-by-field little-endian packing it replaced,
    /// every stream present, byte for byte.
    #[test]
    fn cast_streams_equal_the_little_endian_field_packing() {
        let n = 7;
        let f = |i: usize, k: usize| ((i * 13 + k * 7) % 17) as f32 / 8.0 - 1.0;
        let vertices: Vec<MeshVertex> = (0..n)
            .map(|i| MeshVertex {
                position: [f(i, 0), f(i, 1) * 3.0, f(i, 2) + 0.25],
                normal: [f(i, 3), 1.0, f(i, 4)],
                tangent: [1.0, f(i, 5), 0.0, if i % 2 == 0 { 1.0 } else { -1.0 }],
                uv0: [f(i, 6), f(i, 7)],
                uv1: [f(i, 8), f(i, 9)],
                uv2: [f(i, 10), f(i, 11)],
                uv3: [f(i, 12), f(i, 13)],
            })
            .collect();
        let lightmap: Vec<[f32; 2]> = (0..n).map(|i| [f(i, 14), f(i, 15)]).collect();
        let colors: Vec<VertexColor> = (0..n)
            .map(|i| VertexColor {
                color0: [f(i, 16), f(i, 17), f(i, 18) + 1.0, 0.5],
                color1: [f(i, 19) + 1.0, 0.0, 1.0, f(i, 20)],
            })
            .collect();
        let m = pack_streams(&vertices, Some(&lightmap), Some(&colors)).unwrap();
        let mut want = vec![0u8; m.bytes.len()];
        let mut put = |at: usize, b: &[u8]| want[at..at + b.len()].copy_from_slice(b);
        for (i, v) in vertices.iter().enumerate() {
            for (k, c) in v.position.iter().enumerate() {
                put(m.position_offset + i * 12 + 4 * k, &c.to_le_bytes());
            }
            for (k, q) in pack_basis(v.normal, v.tangent).iter().enumerate() {
                put(m.basis_offset + i * 8 + 2 * k, &q.to_le_bytes());
            }
            for (k, c) in [v.uv0, v.uv1, v.uv2, v.uv3].iter().flatten().enumerate() {
                put(m.attributes_offset + i * 32 + 4 * k, &c.to_le_bytes());
            }
        }
        let lo = m.lightmap_offset.unwrap();
        for (i, uv) in lightmap.iter().enumerate() {
            for (k, c) in uv.iter().enumerate() {
                put(lo + i * 8 + 4 * k, &c.to_le_bytes());
            }
        }
        let co = m.color_offset.unwrap();
        for (i, col) in colors.iter().enumerate() {
            for (k, v) in col.color0.iter().enumerate() {
                put(
                    co + i * 12 + 2 * k,
                    &(unorm(*v, 65535.0) as u16).to_le_bytes(),
                );
            }
            for (k, v) in col.color1.iter().enumerate() {
                put(co + i * 12 + 8 + k, &[unorm(*v, 255.0) as u8]);
            }
        }
        assert_eq!(m.bytes, want);
    }

    #[test]
    fn layouts_match_the_spec_table() {
        let full = MeshVertexLayout::Full.streams();
        let strides: Vec<(u32, u32)> = full.iter().map(|s| (s.binding, s.stride)).collect();
        assert_eq!(strides, vec![(0, 12), (1, 8), (2, 32), (3, 8), (4, 12)]);
        let only = MeshVertexLayout::PositionOnly.streams();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0], full[0]);
        // Locations are unique across the full layout.
        let mut locs: Vec<u32> = full
            .iter()
            .flat_map(|s| s.attributes.iter().map(|a| a.location))
            .collect();
        locs.sort_unstable();
        locs.dedup();
        assert_eq!(locs.len(), 10);
    }

    #[test]
    fn streams_are_aligned_and_hold_the_values() {
        let m = box_mesh([1.0, 2.0, 3.0]);
        let lm: Vec<[f32; 2]> = (0..24).map(|i| [i as f32, 0.5]).collect();
        let cols: Vec<VertexColor> = (0..24)
            .map(|_| VertexColor {
                color0: [1.0, 0.5, 0.0, 1.0],
                color1: [0.0, 1.0, 0.0, 0.0],
            })
            .collect();
        let p = pack_streams(&m.vertices, Some(&lm), Some(&cols)).unwrap_or_else(|e| panic!("{e}"));
        for o in [
            p.position_offset,
            p.basis_offset,
            p.attributes_offset,
            p.lightmap_offset.unwrap_or(1),
            p.color_offset.unwrap_or(1),
        ] {
            assert_eq!(o % STREAM_ALIGN, 0);
        }
        let f = |at: usize| {
            f32::from_le_bytes([
                p.bytes[at],
                p.bytes[at + 1],
                p.bytes[at + 2],
                p.bytes[at + 3],
            ])
        };
        let u = |at: usize| u16::from_le_bytes([p.bytes[at], p.bytes[at + 1]]);
        for (i, v) in m.vertices.iter().enumerate() {
            let pos = [0, 1, 2].map(|k| f(p.position_offset + i * 12 + 4 * k));
            assert_eq!(pos, v.position);
            let b = [0, 1, 2, 3].map(|k| u(p.basis_offset + i * 8 + 2 * k));
            let (n, t) = unpack_basis(b);
            assert!(angle(n, v.normal) < 0.05);
            assert!(
                angle(
                    [t[0], t[1], t[2]],
                    [v.tangent[0], v.tangent[1], v.tangent[2]]
                ) < 0.05
            );
            assert_eq!(t[3], v.tangent[3]);
            assert_eq!(f(p.attributes_offset + i * 32), v.uv0[0]);
            assert_eq!(f(p.attributes_offset + i * 32 + 4), v.uv0[1]);
            assert_eq!(f(p.lightmap_offset.unwrap_or(0) + i * 8), i as f32);
        }
        let c = p.color_offset.unwrap_or(0);
        assert_eq!(u(c + 2), 32768);
        assert_eq!(p.bytes[c + 9], 255);
        assert!(p.bytes.len().is_multiple_of(STREAM_ALIGN));
    }

    #[test]
    fn optional_streams_fall_back_to_the_attribute_run() {
        let m = box_mesh([1.0, 1.0, 1.0]);
        let p = pack_streams(&m.vertices, None, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.lightmap_offset, None);
        assert_eq!(p.binding_offset(StreamKind::Color), p.attributes_offset);
        assert_eq!(p.bytes.len(), 288 + 192 + 768);
        let bad = pack_streams(&m.vertices, Some(&[[0.0, 0.0]]), None);
        assert!(matches!(
            bad,
            Err(PackError::Length {
                stream: "lightmap",
                ..
            })
        ));
    }

    #[test]
    fn tangent_handedness_round_trips_and_error_is_bounded() {
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let n = 50_000;
        let mut worst = 0.0f64;
        for i in 0..n {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - y * y).sqrt();
            let phi = golden * i as f64;
            let d = [(r * phi.cos()) as f32, y as f32, (r * phi.sin()) as f32];
            for w in [-1.0f32, 1.0] {
                let (nn, t) = unpack_basis(pack_basis(d, [d[0], d[1], d[2], w]));
                assert_eq!(t[3], w);
                worst = worst.max(angle(nn, d)).max(angle([t[0], t[1], t[2]], d));
            }
        }
        assert!(worst < 1.0 / 20.0, "worst {worst}");
    }
}
