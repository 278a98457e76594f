// The procedural sky behind the geometry: a fullscreen triangle at the far plane, drawn
// where the depth prepass left nothing. Each pixel's view ray through the Rayleigh + Mie
// single-scattering model of render/sky.rs (sky_radiance), line for line, sun disc
// included. Without a sky the same pass paints the flat clear color.

struct Frame {
    view_proj: mat4x4<f32>,
    view: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    cascades: array<mat4x4<f32>, 4>,
    // View depth where each cascade ends.
    cascade_splits: vec4<f32>,
    // Meters per shadow texel in each cascade.
    cascade_texel: vec4<f32>,
    // xyz eye; w 1 when orthographic.
    camera: vec4<f32>,
    // xyz the direction sunlight travels; w the half-Lambert wrap.
    sun_direction: vec4<f32>,
    // rgb sun color x intensity.
    sun_radiance: vec4<f32>,
    // rgb hemisphere sky (x intensity); w 1 when the harmonics are the fill.
    ambient_sky: vec4<f32>,
    // rgb hemisphere ground (x intensity); w the harmonics' intensity.
    ambient_ground: vec4<f32>,
    sh: array<vec4<f32>, 9>,
    // columns, rows, slices, light count.
    cluster_dims: vec4<u32>,
    // near, far (where the last slice begins), ln(far / near), 1 when clusters are on.
    cluster_params: vec4<f32>,
    // width, height, 1 / width, 1 / height.
    viewport: vec4<f32>,
    // rayleigh, mie, mie anisotropy, horizon softness.
    sky0: vec4<f32>,
    // intensity, sun disc, ground blend, angular diameter (degrees).
    sky1: vec4<f32>,
    // rgb ground albedo, w 1 when the sky is drawn.
    sky_ground: vec4<f32>,
    // rgb the flat clear color when there is no sky.
    clear_color: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOut;
    out.ndc = uv * 2.0 - 1.0;
    out.position = vec4<f32>(out.ndc, 1.0, 1.0);
    return out;
}

const PI: f32 = 3.14159265;
const RAYLEIGH_DEPTH: vec3<f32> = vec3<f32>(0.0464, 0.108, 0.265);
const MIE_DEPTH: f32 = 0.0252;
const SKY_SCALE: f32 = 6.0;

fn air_mass(mu: f32, softness: f32) -> f32 {
    let s = max(softness, 1e-3);
    return (1.0 + s) / (max(mu, 0.0) + s);
}

fn transmittance(mass: f32) -> vec3<f32> {
    return exp(-(RAYLEIGH_DEPTH * frame.sky0.x + vec3<f32>(MIE_DEPTH * frame.sky0.y)) * mass);
}

fn sky_radiance(dir: vec3<f32>) -> vec3<f32> {
    let to_sun = -normalize(frame.sun_direction.xyz);
    let sun = frame.sun_radiance.rgb;
    let mu = dir.y;
    let mu_sun = to_sun.y;
    let c = clamp(dot(dir, to_sun), -1.0, 1.0);
    let t_view = transmittance(air_mass(mu, frame.sky0.w));
    let t_sun = transmittance(air_mass(mu_sun, frame.sky0.w));
    let sun_up = clamp((mu_sun + 0.1) / 0.2, 0.0, 1.0);
    let br = RAYLEIGH_DEPTH * frame.sky0.x;
    let bm = MIE_DEPTH * frame.sky0.y;
    let g = clamp(frame.sky0.z, 0.0, 0.999);
    let g2 = g * g;
    let phase_r = 3.0 / (16.0 * PI) * (1.0 + c * c);
    let phase_m = 3.0 / (8.0 * PI) * (1.0 - g2) * (1.0 + c * c)
        / ((2.0 + g2) * pow(max(1.0 + g2 - 2.0 * g * c, 1e-6), 1.5));
    let scatter = (br * phase_r + vec3<f32>(bm * phase_m)) / max(br + vec3<f32>(bm), vec3<f32>(1e-8));
    var out = scatter * (vec3<f32>(1.0) - t_view) * t_sun * sun * (sun_up * SKY_SCALE);
    let radius = radians(max(frame.sky1.w, 0.0) * 0.5);
    let angle = acos(c);
    let edge = max(radius * 0.1, 1e-5);
    let inside = clamp((radius + edge - angle) / (2.0 * edge), 0.0, 1.0);
    out = out + sun * frame.sky1.y * t_view * inside;
    let ground_light = sun * t_sun * (max(mu_sun, 0.0) * sun_up) + sun * (0.1 * sun_up);
    let ground = frame.sky_ground.rgb * ground_light / PI;
    let blend = max(frame.sky1.z, 1e-4);
    let gb = clamp((blend - mu) / (2.0 * blend), 0.0, 1.0);
    return (out * (1.0 - gb) + ground * gb) * frame.sky1.x;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    if frame.sky_ground.w < 0.5 {
        return vec4<f32>(frame.clear_color.rgb, 1.0);
    }
    let far = frame.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let near = frame.inv_view_proj * vec4<f32>(in.ndc, 0.0, 1.0);
    var dir: vec3<f32>;
    if frame.camera.w > 0.5 {
        dir = normalize(far.xyz / far.w - near.xyz / near.w);
    } else {
        dir = normalize(near.xyz / near.w - frame.camera.xyz);
    }
    return vec4<f32>(sky_radiance(dir), 1.0);
}
