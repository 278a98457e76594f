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

// Cut-out depth (the prepass and the cascades): the full layout's position and UV0, the
// base color's alpha (material alpha x texel alpha) tested at 0.5, as box_lit.wgsl's
// fs_cutout tests it.

struct Material {
    // rgb linear tint, w shading.
    base_color: vec4<f32>,
    // rgb emissive, w 1 when it has a base color texture.
    emissive: vec4<f32>,
    // xy uvScale, z alpha.
    uv_scale: vec4<f32>,
    // rgb the detail layer's linear color.
    detail_color: vec4<f32>,
    // The COLOR_1 channel the detail layer reads, one-hot, scaled by the layer's alpha
    // (zero without a layer).
    detail_weight: vec4<f32>,
}

@group(0) @binding(4) var<storage, read> materials: array<Material>;
@group(1) @binding(0) var base_texture: texture_2d<f32>;
@group(1) @binding(1) var base_sampler: sampler;

struct CutoutOut {
    @invariant @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_cutout(@location(0) position: vec3<f32>, @location(3) uv0: vec2<f32>) -> CutoutOut {
    var out: CutoutOut;
    out.position = draw.clip_from_local * vec4<f32>(position, 1.0);
    out.uv = uv0 * materials[draw.material.x].uv_scale.xy;
    return out;
}

@fragment
fn fs_cutout(in: CutoutOut) {
    let material = materials[draw.material.x];
    let texel = textureSample(base_texture, base_sampler, in.uv);
    var alpha = material.uv_scale.z;
    if material.emissive.w > 0.5 {
        alpha = alpha * texel.a;
    }
    // The missingMaterial is never cut.
    if material.base_color.w < 1.5 && alpha < 0.5 {
        discard;
    }
}
