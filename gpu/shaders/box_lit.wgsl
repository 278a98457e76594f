// Boxes, lit and unlit, after the depth prepass: MeshVertexLayout::Full. The sun with
// cascaded shadows and the half-Lambert wrap, the ambient fill (two-color hemisphere or the
// sky's order-2 harmonics), and the ranked realtime lights looked up through the pixel's
// light cluster (16 x 8 tiles x 8 logarithmic depth slices by default). Unlit materials
// are their color; the missingMaterial is a glowing red checkerboard. Output: linear HDR.

struct Draw {
    clip_from_local: mat4x4<f32>,
    // World from local as three rows (a rigid 3 x 4): xyz the rotation row, w the
    // translation.
    world_row0: vec4<f32>,
    world_row1: vec4<f32>,
    world_row2: vec4<f32>,
    // x: material index.
    material: vec4<u32>,
}

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
    // rgb the backdrop when there is no sky.
    backdrop: vec4<f32>,
}

struct Light {
    // xyz position, w range.
    position_range: vec4<f32>,
    // xyz direction travelled, w kind (0 point, 1 spot, 2 directional).
    direction_kind: vec4<f32>,
    // rgb color x intensity, w falloff (0 physical, 1 unity).
    radiance_falloff: vec4<f32>,
    // cos inner, cos outer.
    cone: vec4<f32>,
}

struct Material {
    // rgb linear tint, w shading (0 lit, 1 unlit, 2 missing).
    base_color: vec4<f32>,
    // rgb emissive x intensity, w 1 when it has a base color texture.
    emissive: vec4<f32>,
    // xy uvScale.
    uv_scale: vec4<f32>,
}

var<immediate> draw: Draw;
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(0) @binding(2) var<storage, read> cluster_ranges: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> cluster_indices: array<u32>;
@group(0) @binding(4) var<storage, read> materials: array<Material>;
@group(0) @binding(5) var shadow_map: texture_depth_2d;
@group(0) @binding(6) var shadow_sampler: sampler_comparison;
@group(1) @binding(0) var base_texture: texture_2d<f32>;
@group(1) @binding(1) var base_sampler: sampler;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal_oct: vec2<u32>,
    @location(2) tangent_oct: vec2<u32>,
    @location(3) uv0: vec2<f32>,
}

struct VertexOut {
    @invariant @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

// The octahedral decode: content::mesh::decode_octahedral, line for line.
fn decode_octahedral(e: vec2<f32>) -> vec3<f32> {
    var n = vec3<f32>(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if n.z < 0.0 {
        let a = n.xy;
        let s = select(vec2<f32>(-1.0), vec2<f32>(1.0), a >= vec2<f32>(0.0));
        n = vec3<f32>((vec2<f32>(1.0) - abs(a.yx)) * s, n.z);
    }
    return normalize(n);
}

fn unpack_normal(q: vec2<u32>) -> vec3<f32> {
    return decode_octahedral(vec2<f32>(q) / 65535.0 * 2.0 - 1.0);
}

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.position = draw.clip_from_local * vec4<f32>(v.position, 1.0);
    let p = vec4<f32>(v.position, 1.0);
    out.world = vec3<f32>(dot(draw.world_row0, p), dot(draw.world_row1, p), dot(draw.world_row2, p));
    // Boxes' poses are rigid (their size is in the vertices), so the 3 x 3 turns normals.
    let n = unpack_normal(v.normal_oct);
    out.normal = vec3<f32>(dot(draw.world_row0.xyz, n), dot(draw.world_row1.xyz, n), dot(draw.world_row2.xyz, n));
    let material = materials[draw.material.x];
    out.uv = v.uv0 * material.uv_scale.xy;
    return out;
}

fn falloff(kind: f32, d: f32, r: f32) -> f32 {
    if d >= r || r <= 0.0 {
        return 0.0;
    }
    let q = d / r;
    if kind < 0.5 {
        let w = clamp(1.0 - q * q * q * q, 0.0, 1.0);
        return w * w / max(d * d, 1e-4);
    }
    return max((1.0 / (1.0 + 25.0 * q * q) - 1.0 / 26.0) * 26.0 / 25.0, 0.0);
}

fn diffuse(n: vec3<f32>, l: vec3<f32>) -> f32 {
    let ndl = dot(n, l);
    let wrap = (ndl * 0.5 + 0.5) * (ndl * 0.5 + 0.5);
    return mix(max(ndl, 0.0), wrap, frame.sun_direction.w);
}

fn sun_shadow(world: vec3<f32>, n: vec3<f32>, view_depth: f32) -> f32 {
    var cascade = 4u;
    for (var i = 0u; i < 4u; i = i + 1u) {
        if view_depth < frame.cascade_splits[i] {
            cascade = i;
            break;
        }
    }
    if cascade >= 4u {
        return 1.0;
    }
    // Normal offset: a texel and a half of this cascade, so a face never shadows itself.
    let offset = n * (1.5 * frame.cascade_texel[cascade]);
    let clip = frame.cascades[cascade] * vec4<f32>(world + offset, 1.0);
    let ndc = clip.xyz / clip.w;
    let uv = ndc.xy * 0.5 + 0.5;
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 {
        return 1.0;
    }
    // The atlas: four cascades in a 2 x 2 grid.
    let tile = vec2<f32>(f32(cascade % 2u), f32(cascade / 2u));
    let atlas_uv = (tile + clamp(uv, vec2<f32>(0.001), vec2<f32>(0.999))) * 0.5;
    let dims = vec2<f32>(textureDimensions(shadow_map));
    let step = 1.0 / dims;
    var lit = 0.0;
    for (var y = -1; y <= 1; y = y + 1) {
        for (var x = -1; x <= 1; x = x + 1) {
            lit = lit + textureSampleCompareLevel(shadow_map, shadow_sampler, atlas_uv + vec2<f32>(f32(x), f32(y)) * step, ndc.z - 0.0005);
        }
    }
    return lit / 9.0;
}

fn eval_sh(n: vec3<f32>) -> vec3<f32> {
    let b0 = 0.282095;
    let b1 = 0.488603 * n.y;
    let b2 = 0.488603 * n.z;
    let b3 = 0.488603 * n.x;
    let b4 = 1.092548 * n.x * n.y;
    let b5 = 1.092548 * n.y * n.z;
    let b6 = 0.315392 * (3.0 * n.z * n.z - 1.0);
    let b7 = 1.092548 * n.x * n.z;
    let b8 = 0.546274 * (n.x * n.x - n.y * n.y);
    let c = frame.sh[0].xyz * b0 + frame.sh[1].xyz * b1 + frame.sh[2].xyz * b2 + frame.sh[3].xyz * b3
        + frame.sh[4].xyz * b4 + frame.sh[5].xyz * b5 + frame.sh[6].xyz * b6 + frame.sh[7].xyz * b7
        + frame.sh[8].xyz * b8;
    return max(c, vec3<f32>(0.0));
}

fn cluster_of(frag: vec2<f32>, depth: f32) -> u32 {
    let dims = frame.cluster_dims;
    let tx = min(u32(max(frag.x * frame.viewport.z * f32(dims.x), 0.0)), dims.x - 1u);
    let ty = min(u32(max(frag.y * frame.viewport.w * f32(dims.y), 0.0)), dims.y - 1u);
    var slice = 0u;
    if dims.z > 1u && depth > frame.cluster_params.x {
        let t = log(depth / frame.cluster_params.x) / frame.cluster_params.z;
        slice = min(u32(max(floor(t * f32(dims.z - 1u)), 0.0)), dims.z - 1u);
    }
    return (slice * dims.y + ty) * dims.x + tx;
}

fn shade_light(light: Light, world: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let kind = light.direction_kind.w;
    if kind > 1.5 {
        return light.radiance_falloff.rgb * diffuse(n, -light.direction_kind.xyz);
    }
    let to = light.position_range.xyz - world;
    let d = length(to);
    let l = to / max(d, 1e-5);
    var k = falloff(light.radiance_falloff.w, d, light.position_range.w);
    if kind > 0.5 {
        let c = dot(-l, light.direction_kind.xyz);
        let t = clamp((c - light.cone.y) / max(light.cone.x - light.cone.y, 1e-4), 0.0, 1.0);
        k = k * t * t;
    }
    return light.radiance_falloff.rgb * (k * diffuse(n, l));
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let material = materials[draw.material.x];
    let shading = material.base_color.w;
    if shading > 1.5 {
        // missingMaterial: half-meter cells in world space, glowing red on near-black.
        let c = floor(in.world * 2.0 + vec3<f32>(1e-3));
        let odd = (i32(c.x) + i32(c.y) + i32(c.z)) & 1;
        let red = select(vec3<f32>(0.05, 0.0, 0.0), vec3<f32>(4.0, 0.0, 0.02), odd == 0);
        return vec4<f32>(red, 1.0);
    }
    var base = material.base_color.rgb;
    if material.emissive.w > 0.5 {
        base = base * textureSample(base_texture, base_sampler, in.uv).rgb;
    }
    if shading > 0.5 {
        return vec4<f32>(base + material.emissive.rgb, 1.0);
    }
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    let view_pos = frame.view * vec4<f32>(in.world, 1.0);
    let depth = -view_pos.z;
    // The sun.
    let l = -frame.sun_direction.xyz;
    let ndl = dot(n, l);
    var visible = 1.0;
    if ndl > -0.2 && dot(frame.sun_radiance.rgb, vec3<f32>(1.0)) > 0.0 {
        visible = mix(1.0, sun_shadow(in.world, n, depth), clamp(ndl * 5.0 + 1.0, 0.0, 1.0));
    }
    var light = frame.sun_radiance.rgb * (diffuse(n, l) * visible);
    // The ambient fill.
    if frame.ambient_sky.w > 0.5 {
        light = light + eval_sh(n) * frame.ambient_ground.w;
    } else {
        light = light + mix(frame.ambient_ground.rgb, frame.ambient_sky.rgb, n.y * 0.5 + 0.5);
    }
    // Realtime lights, through the cluster (or all of them with clusters off).
    let count = frame.cluster_dims.w;
    if frame.cluster_params.w > 0.5 {
        let range = cluster_ranges[cluster_of(in.position.xy, depth)];
        for (var i = 0u; i < range.y; i = i + 1u) {
            let index = cluster_indices[range.x + i];
            light = light + shade_light(lights[index], in.world, n);
        }
    } else {
        for (var i = 0u; i < count; i = i + 1u) {
            light = light + shade_light(lights[i], in.world, n);
        }
    }
    return vec4<f32>(base * light + material.emissive.rgb, 1.0);
}
