// Depth-only: the depth prepass and the sun's shadow cascades. Reads the position stream
// alone (MeshVertexLayout::PositionOnly). The position is computed exactly as box_lit.wgsl
// computes it (same push constant, same expression, @invariant), so the lit pass can test
// LESS_OR_EQUAL against the prepass without z-fighting.

struct Draw {
    clip_from_local: mat4x4<f32>,
    // World from local as three rows (a rigid 3 x 4): xyz the rotation row, w the
    // translation.
    world_row0: vec4<f32>,
    world_row1: vec4<f32>,
    world_row2: vec4<f32>,
    material: vec4<u32>,
}

var<immediate> draw: Draw;

struct Out {
    @invariant @builtin(position) position: vec4<f32>,
}

@vertex
fn vs_main(@location(0) position: vec3<f32>) -> Out {
    var out: Out;
    out.position = draw.clip_from_local * vec4<f32>(position, 1.0);
    return out;
}
