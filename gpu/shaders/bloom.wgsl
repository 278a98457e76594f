// The bloom pyramid (render/tonemap.rs is the CPU reference): fs_prefilter halves the HDR
// frame (13 taps) after exposure and keeps what clears the threshold (brightest channel,
// quadratic knee); fs_down halves a level (13 taps); fs_up adds a 3 x 3 tent of the level
// below, widened by the sample scale, to this level's own downsample. Linear throughout.

struct Params {
    // xy: the source's texel size; z: the tent's sample scale; w: exposure.
    a: vec4<f32>,
    // x: threshold; y: soft knee (fraction of the threshold).
    b: vec4<f32>,
}

var<immediate> params: Params;
@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var level: texture_2d<f32>;
@group(0) @binding(2) var linear_clamp: sampler;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOut;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
    out.uv = uv;
    return out;
}

fn tap(uv: vec2<f32>) -> vec3<f32> {
    return textureSampleLevel(source, linear_clamp, uv, 0.0).rgb;
}

// Jimenez's 13-tap downsample (Call of Duty: Advanced Warfare).
fn down13(uv: vec2<f32>) -> vec3<f32> {
    let t = params.a.xy;
    let a = tap(uv + t * vec2<f32>(-2.0, -2.0));
    let b = tap(uv + t * vec2<f32>(0.0, -2.0));
    let c = tap(uv + t * vec2<f32>(2.0, -2.0));
    let d = tap(uv + t * vec2<f32>(-1.0, -1.0));
    let e = tap(uv + t * vec2<f32>(1.0, -1.0));
    let f = tap(uv + t * vec2<f32>(-2.0, 0.0));
    let g = tap(uv);
    let h = tap(uv + t * vec2<f32>(2.0, 0.0));
    let i = tap(uv + t * vec2<f32>(-1.0, 1.0));
    let j = tap(uv + t * vec2<f32>(1.0, 1.0));
    let k = tap(uv + t * vec2<f32>(-2.0, 2.0));
    let l = tap(uv + t * vec2<f32>(0.0, 2.0));
    let m = tap(uv + t * vec2<f32>(2.0, 2.0));
    return (d + e + i + j) * 0.125 + (a + b + g + f) * 0.03125 + (b + c + h + g) * 0.03125
        + (f + g + l + k) * 0.03125 + (g + h + m + l) * 0.03125;
}

fn prefilter(c: vec3<f32>) -> vec3<f32> {
    let threshold = params.b.x;
    let knee = threshold * params.b.y;
    let br = max(c.r, max(c.g, c.b));
    var rq = clamp(br - threshold + knee, 0.0, 2.0 * knee);
    rq = rq * rq / (4.0 * knee + 1e-5);
    let contrib = max(rq, br - threshold) / max(br, 1e-5);
    return c * max(contrib, 0.0);
}

@fragment
fn fs_prefilter(in: VertexOut) -> @location(0) vec4<f32> {
    let c = min(down13(in.uv) * params.a.w, vec3<f32>(65000.0));
    return vec4<f32>(prefilter(c), 1.0);
}

@fragment
fn fs_down(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(down13(in.uv), 1.0);
}

@fragment
fn fs_up(in: VertexOut) -> @location(0) vec4<f32> {
    let t = params.a.xy * params.a.z;
    var s = tap(in.uv + t * vec2<f32>(-1.0, -1.0));
    s = s + tap(in.uv + t * vec2<f32>(0.0, -1.0)) * 2.0;
    s = s + tap(in.uv + t * vec2<f32>(1.0, -1.0));
    s = s + tap(in.uv + t * vec2<f32>(-1.0, 0.0)) * 2.0;
    s = s + tap(in.uv) * 4.0;
    s = s + tap(in.uv + t * vec2<f32>(1.0, 0.0)) * 2.0;
    s = s + tap(in.uv + t * vec2<f32>(-1.0, 1.0));
    s = s + tap(in.uv + t * vec2<f32>(0.0, 1.0)) * 2.0;
    s = s + tap(in.uv + t * vec2<f32>(1.0, 1.0));
    let own = textureSampleLevel(level, linear_clamp, in.uv, 0.0).rgb;
    return vec4<f32>(s / 16.0 + own, 1.0);
}
