//! Meshes as the engine draws them (spec: runtime assets, "Mesh vertex format" and "GPU
//! vertex streams"): the fixed 72-byte [`MeshVertex`] CPU record, and its split into the GPU
//! streams every pipeline names through one [`MeshVertexLayout`] description: position
//! (12 B), the octahedral basis (8 B), the four UV sets (32 B), and the optional lightmap
//! coordinate (8 B) and vertex colors (12 B), back to back in one buffer on 16-byte
//! boundaries.
//!
//! The octahedral packing ([`encode_octahedral`] / [`decode_octahedral`]) is the encoder and
//! the reference decode the shaders' decode is pinned against; its worst-case direction error
//! over the sphere is under a twentieth of a degree (tested).

mod streams;
mod vertex;

pub use streams::{
    pack_basis, pack_streams, unpack_basis, AttributeDesc, MeshVertexLayout, PackError, PackedMesh,
    StreamDesc, StreamKind, VertexColor, VertexFormat, ATTRIBUTES_STRIDE, BASIS_STRIDE,
    COLOR_STRIDE, LIGHTMAP_STRIDE, POSITION_STRIDE, STREAM_ALIGN,
};
pub use vertex::{
    box_mesh, decode_octahedral, encode_octahedral, octahedral_from_u16, octahedral_to_u16,
    BoxMesh, MeshVertex, BOX_FACE_COUNT, MESH_VERTEX_SIZE,
};
