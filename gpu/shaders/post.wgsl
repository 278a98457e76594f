// The resolve (render/tonemap.rs is the CPU reference): scene radiance x exposure, plus the
// bloom pyramid (upsampled once more through the 3 x 3 tent, as PPv2's uber pass combines it)
// x bloomIntensity, through the tonemap curve (reinhardWhite, aces, reinhard,
// hable normalized to its white point, or none), written linear to an R8G8B8A8_SRGB target
// that encodes on store.

struct Params {
    // x exposure, y bloom intensity (0: no bloom), z tonemap index, w hable A.
    a: vec4<f32>,
    // hable B, C, D, E.
    b: vec4<f32>,
    // hable F, W; z the bloom tent's sample scale.
    c: vec4<f32>,
}

var<immediate> params: Params;
@group(0) @binding(0) var hdr: texture_2d<f32>;
@group(0) @binding(1) var bloom: texture_2d<f32>;
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

fn hable_partial(x: vec3<f32>) -> vec3<f32> {
    let a = params.a.w;
    let b = params.b.x;
    let c = params.b.y;
    let d = params.b.z;
    let e = params.b.w;
    let f = params.c.x;
    return ((x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f)) - e / f;
}

fn tonemap(x_in: vec3<f32>) -> vec3<f32> {
    let x = max(x_in, vec3<f32>(0.0));
    let curve = u32(params.a.z + 0.5);
    var y: vec3<f32>;
    switch curve {
        case 0u: {
            y = x * (vec3<f32>(1.0) + x / 16.0) / (vec3<f32>(1.0) + x);
        }
        case 1u: {
            y = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
        }
        case 2u: {
            y = x / (vec3<f32>(1.0) + x);
        }
        case 3u: {
            let white = hable_partial(vec3<f32>(params.c.y)).x;
            y = select(vec3<f32>(0.0), hable_partial(x) / white, white > 0.0);
        }
        default: {
            y = x;
        }
    }
    return clamp(y, vec3<f32>(0.0), vec3<f32>(1.0));
}

fn bloom_tap(uv: vec2<f32>) -> vec3<f32> {
    return textureSampleLevel(bloom, linear_clamp, uv, 0.0).rgb;
}

// PPv2's UpsampleTent over the resolved pyramid, its texels widened by the sample scale.
fn bloom_tent(uv: vec2<f32>) -> vec3<f32> {
    let t = params.c.z / vec2<f32>(textureDimensions(bloom));
    var s = bloom_tap(uv + t * vec2<f32>(-1.0, -1.0));
    s = s + bloom_tap(uv + t * vec2<f32>(0.0, -1.0)) * 2.0;
    s = s + bloom_tap(uv + t * vec2<f32>(1.0, -1.0));
    s = s + bloom_tap(uv + t * vec2<f32>(-1.0, 0.0)) * 2.0;
    s = s + bloom_tap(uv) * 4.0;
    s = s + bloom_tap(uv + t * vec2<f32>(1.0, 0.0)) * 2.0;
    s = s + bloom_tap(uv + t * vec2<f32>(-1.0, 1.0));
    s = s + bloom_tap(uv + t * vec2<f32>(0.0, 1.0)) * 2.0;
    s = s + bloom_tap(uv + t * vec2<f32>(1.0, 1.0));
    return s / 16.0;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let dims = vec2<i32>(textureDimensions(hdr));
    let p = clamp(vec2<i32>(in.position.xy), vec2<i32>(0), dims - vec2<i32>(1));
    var c = textureLoad(hdr, p, 0).rgb * params.a.x;
    if params.a.y > 0.0 {
        c = c + bloom_tent(in.uv) * params.a.y;
    }
    return vec4<f32>(tonemap(c), 1.0);
}
