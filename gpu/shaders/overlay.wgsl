// The debug overlays (render/overlay.rs), drawn into the capture after the resolve:
// world-space lines depth-tested against the scene's depth (single-sample: the forward
// depth itself, or its sample 0 resolved at MSAA), then screen-space quads (glyphs, dots,
// segments, label backdrops) from the baked glyph atlas, on top. Colours arrive as sRGB
// bytes and are written linear to the R8G8B8A8_SRGB capture, which encodes them back.

struct Overlay {
    // World to clip (the scene's).
    view_proj: mat4x4<f32>,
    // width, height, 1 / width, 1 / height.
    viewport: vec4<f32>,
}

var<immediate> overlay: Overlay;
@group(0) @binding(0) var atlas: texture_2d<f32>;
@group(0) @binding(1) var atlas_sampler: sampler;

fn to_linear(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(high, low, c <= vec3<f32>(0.04045));
}

struct LineOut {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> LineOut {
    var out: LineOut;
    out.position = overlay.view_proj * vec4<f32>(position, 1.0);
    out.color = color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return vec4<f32>(to_linear(in.color.rgb), in.color.a);
}

struct QuadOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
}

@vertex
fn vs_quad(
    @location(0) position: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
) -> QuadOut {
    var out: QuadOut;
    // Pixels, y down, to Vulkan's clip space (y down too).
    let ndc = position * overlay.viewport.zw * 2.0 - vec2<f32>(1.0);
    out.position = vec4<f32>(ndc, 0.0, 1.0);
    out.uv = uv;
    out.color = color;
    return out;
}

@fragment
fn fs_quad(in: QuadOut) -> @location(0) vec4<f32> {
    let coverage = textureSample(atlas, atlas_sampler, in.uv).a;
    return vec4<f32>(to_linear(in.color.rgb), in.color.a * coverage);
}
