// Boxes and meshes, lit and unlit, after the depth prepass: MeshVertexLayout::Full.
// fs_main shades opaque surfaces, fs_cutout discards where the base color's alpha (material
// alpha x texel alpha) is under 0.5, fs_translucent returns that alpha for blending. The sun with
// cascaded shadows and the half-Lambert wrap, the ambient fill (two-color hemisphere or the
// sky's order-2 harmonics), and the ranked realtime lights looked up through the pixel's
// light cluster (16 x 8 tiles x 8 logarithmic depth slices by default). Unlit materials
// are their color; the missingMaterial is a glowing red checkerboard. A mesh's COLOR_0
// (binding 4, location 8; read only when the draw's flag bit 1 says the mesh has a color
// run) multiplies the base color in linear light, RGB always and alpha on a blended surface
// only (spec 001 lines 138 and 143, "Vertex colors"). A material's detail layer paints its
// color over the base color, weighted by the one COLOR_1 channel its `detail.vertexWeight`
// names (location 9; read only when flag bit 2 says the mesh authored COLOR_1, else the
// weight is zero, spec 001 line 139), before COLOR_0 multiplies, lit and unlit alike.
// Output: linear HDR.

struct Draw {
    clip_from_local: mat4x4<f32>,
    // World from local as three rows (a rigid 3 x 4): xyz the rotation row, w the
    // translation.
    world_row0: vec4<f32>,
    world_row1: vec4<f32>,
    world_row2: vec4<f32>,
    // x: material index; y: flags (bit 0: shaded by the voxel light field; bit 1: the
    // mesh authored COLOR_0, so it is read; bit 2: the mesh authored COLOR_1, so the
    // detail layer's weight is read).
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
    // rgb the flat clear color when there is no sky.
    clear_color: vec4<f32>,
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
    // xy uvScale, z the base color's alpha (a gain past 1 is clamped after the texel's),
    // w the glow texture's gain (0 without one).
    uv_scale: vec4<f32>,
    // rgb the detail layer's linear color.
    detail_color: vec4<f32>,
    // The COLOR_1 channel the detail layer reads, one-hot, scaled by the layer's alpha
    // (zero without a layer).
    detail_weight: vec4<f32>,
}

// A window of a voxel volume's light field (render/frame.rs VoxelLightWindow): bricks of
// 16^3 cells, two 16-bit cells (SSSS RRRR GGGG BBBB) to a word, the even cell low.
struct VoxelLight {
    world_to_light: mat4x4<f32>,
    // The low corner's cell.
    origin: vec4<i32>,
    // Bricks along x, y, z; w 1 when there is a window.
    dims: vec4<u32>,
    // occlusionStep, blockLightIntensity, edge fade (cells).
    params: vec4<f32>,
    // The sky gate per level, four to a vector.
    gate: array<vec4<f32>, 4>,
    // The fill's linear color per level.
    fill: array<vec4<f32>, 16>,
    cells: array<u32>,
}

var<immediate> draw: Draw;
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(0) @binding(2) var<storage, read> cluster_ranges: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> cluster_indices: array<u32>;
@group(0) @binding(4) var<storage, read> materials: array<Material>;
@group(0) @binding(5) var shadow_map: texture_depth_2d;
@group(0) @binding(6) var shadow_sampler: sampler_comparison;
@group(0) @binding(7) var<storage, read> voxel: VoxelLight;
@group(1) @binding(0) var base_texture: texture_2d<f32>;
@group(1) @binding(1) var base_sampler: sampler;
// The glow levels (render/frame.rs EmissiveTexture), read at the base color's UV with its
// sampler; white with a gain of 0 when the material has none.
@group(1) @binding(2) var glow_texture: texture_2d<f32>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal_oct: vec2<u32>,
    @location(2) tangent_oct: vec2<u32>,
    @location(3) uv0: vec2<f32>,
    @location(5) uv2: vec2<f32>,
    // COLOR_0 (four unorm16); without the flag the binding aims at the attribute run and
    // this is not read.
    @location(8) color0: vec4<f32>,
    // COLOR_1 (four unorm8), read under the flag's bit 2 alone.
    @location(9) color1: vec4<f32>,
}

struct VertexOut {
    @invariant @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // UV2.x: the corner occlusion count, blended across the face.
    @location(3) occlusion: f32,
    // COLOR_0, linear RGBA; white for a mesh without a color run.
    @location(4) color: vec4<f32>,
    // The detail layer's weight: the material's COLOR_1 channel (x the layer's alpha); 0
    // for a mesh without COLOR_1 or a material without a layer.
    @location(5) layer: f32,
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
    // Normals turn by the inverse transpose of the 3 x 3: its cofactor matrix (rows
    // r1 x r2, r2 x r0, r0 x r1) times the determinant's sign, so a scaled or mirrored
    // world keeps its normals perpendicular and outward (a rigid pose: the 3 x 3 itself).
    let n = unpack_normal(v.normal_oct);
    let r0 = draw.world_row0.xyz;
    let r1 = draw.world_row1.xyz;
    let r2 = draw.world_row2.xyz;
    let c0 = cross(r1, r2);
    let s = select(1.0, -1.0, dot(r0, c0) < 0.0);
    out.normal = vec3<f32>(dot(c0, n), dot(cross(r2, r0), n), dot(cross(r0, r1), n)) * s;
    let material = materials[draw.material.x];
    out.uv = v.uv0 * material.uv_scale.xy;
    out.occlusion = v.uv2.x;
    out.color = select(vec4<f32>(1.0), v.color0, (draw.material.y & 2u) != 0u);
    out.layer = select(0.0, dot(v.color1, material.detail_weight), (draw.material.y & 4u) != 0u);
    return out;
}

// A light-space cell's packed light; 0 outside the window.
fn light_cell(c: vec3<i32>) -> u32 {
    let rel = c - voxel.origin.xyz;
    let size = vec3<i32>(voxel.dims.xyz) * 16;
    if any(rel < vec3<i32>(0)) || any(rel >= size) {
        return 0u;
    }
    let r = vec3<u32>(rel);
    let b = r / 16u;
    let l = r % 16u;
    let brick = b.x + voxel.dims.x * (b.y + voxel.dims.y * b.z);
    let index = brick * 4096u + l.x + 16u * (l.y + 16u * l.z);
    return (voxel.cells[index >> 1u] >> ((index & 1u) * 16u)) & 0xffffu;
}

// The levels (sky, red, green, blue) of a packed cell.
fn light_levels(v: u32) -> vec4<f32> {
    return vec4<f32>(f32((v >> 12u) & 15u), f32((v >> 8u) & 15u), f32((v >> 4u) & 15u), f32(v & 15u));
}

// One face corner: the front cell, its two edge neighbors and the diagonal, averaged; a
// zero neighbor counts as the front cell, and the diagonal behind two dark edges is left
// out (the front cell stands in), so light does not leak around corners.
fn light_corner(f: vec3<i32>, du: vec3<i32>, dv: vec3<i32>, front: u32) -> vec4<f32> {
    let e1 = light_cell(f + du);
    let e2 = light_cell(f + dv);
    var d = light_cell(f + du + dv);
    if e1 == 0u && e2 == 0u {
        d = 0u;
    }
    let lf = light_levels(front);
    let l1 = select(light_levels(e1), lf, e1 == 0u);
    let l2 = select(light_levels(e2), lf, e2 == 0u);
    let ld = select(light_levels(d), lf, d == 0u);
    return (lf + l1 + l2 + ld) * 0.25;
}

// The field's levels at a face point (light space `p`, face normal `n`) by the smooth
// corner rule, blended across the face cell.
fn field_levels(p: vec3<f32>, n: vec3<f32>) -> vec4<f32> {
    let a = abs(n);
    var axis = 0u;
    if a.y >= a.x && a.y >= a.z {
        axis = 1u;
    } else if a.z >= a.x && a.z >= a.y {
        axis = 2u;
    }
    // The face's two in-plane axes.
    let u_axis = (axis + 1u) % 3u;
    let v_axis = (axis + 2u) % 3u;
    let unit = array<vec3<i32>, 3>(vec3<i32>(1, 0, 0), vec3<i32>(0, 1, 0), vec3<i32>(0, 0, 1));
    let eu = unit[u_axis];
    let ev = unit[v_axis];
    // The cell in front of the face: half a cell out along the normal.
    let q = p + sign(n) * select(vec3<f32>(0.0), vec3<f32>(0.5), a == vec3<f32>(max(max(a.x, a.y), a.z)));
    let f = vec3<i32>(floor(q));
    let t = q - floor(q);
    let fu = t[u_axis];
    let fv = t[v_axis];
    let front = light_cell(f);
    let c00 = light_corner(f, -eu, -ev, front);
    let c10 = light_corner(f, eu, -ev, front);
    let c01 = light_corner(f, -eu, ev, front);
    let c11 = light_corner(f, eu, ev, front);
    return mix(mix(c00, c10, fu), mix(c01, c11, fu), fv);
}

fn gate_at(level: u32) -> f32 {
    let l = min(level, 15u);
    return voxel.gate[l / 4u][l % 4u];
}

// The sky gate at a fractional level.
fn sky_gate(s: f32) -> f32 {
    let lo = u32(clamp(floor(s), 0.0, 15.0));
    return mix(gate_at(lo), gate_at(lo + 1u), clamp(s - f32(lo), 0.0, 1.0));
}

// The fill's color channel `k` at a fractional level.
fn fill_at(level: f32, k: u32) -> f32 {
    let lo = u32(clamp(floor(level), 0.0, 15.0));
    let hi = min(lo + 1u, 15u);
    return mix(voxel.fill[lo][k], voxel.fill[hi][k], clamp(level - f32(lo), 0.0, 1.0));
}

// How much of the field applies at light-space `p`: 1 inside, fading to 0 over the edge
// fade at the window's edge, 0 outside.
fn field_weight(p: vec3<f32>) -> f32 {
    let lo = vec3<f32>(voxel.origin.xyz);
    let hi = lo + vec3<f32>(voxel.dims.xyz) * 16.0;
    let d = min(p - lo, hi - p);
    let inside = min(min(d.x, d.y), d.z);
    if inside <= 0.0 {
        return 0.0;
    }
    if voxel.params.z <= 0.0 {
        return 1.0;
    }
    return clamp(inside / voxel.params.z, 0.0, 1.0);
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

// The shaded color and the base color's alpha (1 for the missingMaterial). The detail layer
// is mixed in by its weight and then COLOR_0's RGB multiplies the base color here; its alpha is not in the returned alpha (a mask surface's
// cut never reads vertex color, spec 001 line 143): fs_translucent multiplies it in.
fn shade(in: VertexOut, front: bool) -> vec4<f32> {
    let material = materials[draw.material.x];
    let shading = material.base_color.w;
    // Sampled before any branch (uniform control flow); white when untextured.
    let texel = textureSample(base_texture, base_sampler, in.uv);
    let glow = textureSample(glow_texture, base_sampler, in.uv).rgb * material.uv_scale.w;
    if shading > 1.5 {
        // missingMaterial: half-meter cells in world space, glowing red on near-black.
        let c = floor(in.world * 2.0 + vec3<f32>(1e-3));
        let odd = (i32(c.x) + i32(c.y) + i32(c.z)) & 1;
        let red = select(vec3<f32>(0.05, 0.0, 0.0), vec3<f32>(4.0, 0.0, 0.02), odd == 0);
        return vec4<f32>(red, 1.0);
    }
    var base = material.base_color.rgb;
    var alpha = material.uv_scale.z;
    if material.emissive.w > 0.5 {
        base = base * texel.rgb;
        alpha = alpha * texel.a;
    }
    // A coverage gain (client.voxel.translucentCoverage) leaves a clear texel clear and
    // never takes the alpha past 1.
    alpha = clamp(alpha, 0.0, 1.0);
    base = mix(base, material.detail_color.rgb, clamp(in.layer, 0.0, 1.0));
    base = base * in.color.rgb;
    if shading > 0.5 {
        return vec4<f32>(base + material.emissive.rgb + glow, alpha);
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
    var sun = frame.sun_radiance.rgb * (diffuse(n, l) * visible);
    // The ambient fill.
    var ambient: vec3<f32>;
    if frame.ambient_sky.w > 0.5 {
        ambient = eval_sh(n) * frame.ambient_ground.w;
    } else {
        ambient = mix(frame.ambient_ground.rgb, frame.ambient_sky.rgb, n.y * 0.5 + 0.5);
    }
    // Hybrid shading: the voxel light field gates the ambient (and the sun past the last
    // cascade) by sky light, adds the block-light fill, and takes the corner occlusion
    // off the ambient; all of it fading out at the window's edge.
    var fill = vec3<f32>(0.0);
    if (draw.material.y & 1u) != 0u && voxel.dims.w != 0u {
        let p = (voxel.world_to_light * vec4<f32>(in.world, 1.0)).xyz;
        let w = field_weight(p);
        if w > 0.0 {
            let ln = (voxel.world_to_light * vec4<f32>(n, 0.0)).xyz;
            let levels = field_levels(p, ln);
            let gate = mix(1.0, sky_gate(levels.x), w);
            let occlusion = 1.0 - voxel.params.x * clamp(in.occlusion, 0.0, 3.0);
            ambient = ambient * gate * mix(1.0, occlusion, w);
            if depth >= frame.cascade_splits[3] {
                sun = sun * gate;
            }
            fill = vec3<f32>(fill_at(levels.y, 0u), fill_at(levels.z, 1u), fill_at(levels.w, 2u))
                * (voxel.params.y * w);
        }
    }
    var light = sun + ambient + fill;
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
    return vec4<f32>(base * light + material.emissive.rgb + glow, alpha);
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in, front).rgb, 1.0);
}

@fragment
fn fs_cutout(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let c = shade(in, front);
    if c.a < 0.5 {
        discard;
    }
    return vec4<f32>(c.rgb, 1.0);
}

@fragment
fn fs_translucent(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let c = shade(in, front);
    return vec4<f32>(c.rgb, c.a * in.color.a);
}
