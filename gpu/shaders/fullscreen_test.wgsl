// A backend smoke shader: one triangle covering the viewport, shading a gradient.
// Red follows x, green follows y (0 at the top row, no Y flip), blue is a push
// constant. The values are linear; an sRGB target encodes them on store.

struct Params {
    blue: f32,
    alpha: f32,
}

var<immediate> params: Params;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    // (0,0), (2,0), (0,2) in uv: the triangle covers [0,1]^2.
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOut;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(input.uv.x, input.uv.y, params.blue, params.alpha);
}
