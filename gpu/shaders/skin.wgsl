// GPU skinning (spec: runtime assets, "GPU vertex streams"): one invocation per vertex reads
// the mesh's bind-pose position and basis streams, the skinning stream (four unorm16
// weights that sum to 65535, then four u8 joint indices) and the morph target deltas,
// applies the morph weights, then blends the instance's joint palette, and writes plain
// position and basis streams at the same offsets of the instance's own buffer, which the
// ordinary pipelines bind unchanged.
//
// Buffers are read as words, so any stream offset works (each is a multiple of 4 bytes);
// the offsets below are in words.

struct Params {
    vertex_count: u32,
    // The bind-pose streams in the mesh buffer.
    src_position: u32,
    src_basis: u32,
    // In the rig buffer: the skinning stream (3 words a vertex) and the morph deltas
    // (target-major, 6 floats a vertex: position xyz, normal xyz).
    skinning: u32,
    morph: u32,
    targets: u32,
    // 1 when the mesh has a skinning stream (else only the morph applies).
    skinned: u32,
    // In the pose buffer: the palette at word 0 (16 a joint), the morph weights here.
    joints: u32,
    weights: u32,
    // The streams written in the instance buffer.
    dst_position: u32,
    dst_basis: u32,
    // Where this frame's section of the pose buffer starts (one section per frame in
    // flight, so a frame never rewrites a pose an earlier frame may still read).
    pose_base: u32,
}

var<immediate> params: Params;
@group(0) @binding(0) var<storage, read> mesh: array<u32>;
@group(0) @binding(1) var<storage, read> rig: array<u32>;
@group(0) @binding(2) var<storage, read> pose: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

// content::mesh::decode_octahedral, line for line.
fn decode_octahedral(e: vec2<f32>) -> vec3<f32> {
    var n = vec3<f32>(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if n.z < 0.0 {
        let a = n.xy;
        let s = select(vec2<f32>(-1.0), vec2<f32>(1.0), a >= vec2<f32>(0.0));
        n = vec3<f32>((vec2<f32>(1.0) - abs(a.yx)) * s, n.z);
    }
    return normalize(n);
}

// content::mesh::encode_octahedral.
fn encode_octahedral(d: vec3<f32>) -> vec2<f32> {
    let l1 = abs(d.x) + abs(d.y) + abs(d.z);
    if !(l1 > 0.0) {
        return vec2<f32>(0.0);
    }
    let p = d / l1;
    if p.z < 0.0 {
        let s = select(vec2<f32>(-1.0), vec2<f32>(1.0), p.xy >= vec2<f32>(0.0));
        return (vec2<f32>(1.0) - abs(p.yx)) * s;
    }
    return p.xy;
}

fn quantize(v: f32, max_value: f32) -> u32 {
    return u32(round((clamp(v, -1.0, 1.0) * 0.5 + 0.5) * max_value));
}

fn palette(j: u32) -> mat4x4<f32> {
    let b = params.pose_base + j * 16u;
    return mat4x4<f32>(
        vec4<f32>(pose[b], pose[b + 1u], pose[b + 2u], pose[b + 3u]),
        vec4<f32>(pose[b + 4u], pose[b + 5u], pose[b + 6u], pose[b + 7u]),
        vec4<f32>(pose[b + 8u], pose[b + 9u], pose[b + 10u], pose[b + 11u]),
        vec4<f32>(pose[b + 12u], pose[b + 13u], pose[b + 14u], pose[b + 15u]),
    );
}

fn rig_vec3(at: u32) -> vec3<f32> {
    return vec3<f32>(bitcast<f32>(rig[at]), bitcast<f32>(rig[at + 1u]), bitcast<f32>(rig[at + 2u]));
}

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    if v >= params.vertex_count {
        return;
    }
    let pa = params.src_position + v * 3u;
    var p = vec3<f32>(bitcast<f32>(mesh[pa]), bitcast<f32>(mesh[pa + 1u]), bitcast<f32>(mesh[pa + 2u]));
    let n_word = mesh[params.src_basis + v * 2u];
    let t_word = mesh[params.src_basis + v * 2u + 1u];
    let nq = vec2<u32>(n_word & 0xffffu, n_word >> 16u);
    var n = decode_octahedral(vec2<f32>(nq) / 65535.0 * 2.0 - 1.0);
    let tx = f32(t_word & 0xffffu) / 65535.0 * 2.0 - 1.0;
    let ty = f32(t_word >> 17u) / 32767.0 * 2.0 - 1.0;
    var t = decode_octahedral(vec2<f32>(tx, ty));
    let handed = (t_word >> 16u) & 1u;

    for (var k = 0u; k < params.targets; k = k + 1u) {
        let w = pose[params.pose_base + params.weights + k];
        if w != 0.0 {
            let at = params.morph + (k * params.vertex_count + v) * 6u;
            p = p + rig_vec3(at) * w;
            n = n + rig_vec3(at + 3u) * w;
        }
    }

    if params.skinned == 1u {
        let s = params.skinning + v * 3u;
        let w01 = rig[s];
        let w23 = rig[s + 1u];
        let j = rig[s + 2u];
        let w = vec4<f32>(f32(w01 & 0xffffu), f32(w01 >> 16u), f32(w23 & 0xffffu), f32(w23 >> 16u)) / 65535.0;
        let last = max(params.joints, 1u) - 1u;
        let m = palette(min(j & 0xffu, last)) * w.x
            + palette(min((j >> 8u) & 0xffu, last)) * w.y
            + palette(min((j >> 16u) & 0xffu, last)) * w.z
            + palette(min(j >> 24u, last)) * w.w;
        p = (m * vec4<f32>(p, 1.0)).xyz;
        let b = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
        n = b * n;
        t = b * t;
    }

    let o = params.dst_position + v * 3u;
    dst[o] = bitcast<u32>(p.x);
    dst[o + 1u] = bitcast<u32>(p.y);
    dst[o + 2u] = bitcast<u32>(p.z);
    let ne = encode_octahedral(n);
    let te = encode_octahedral(t);
    let nb = quantize(ne.x, 65535.0) | (quantize(ne.y, 65535.0) << 16u);
    let tb = quantize(te.x, 65535.0) | (((quantize(te.y, 32767.0) << 1u) | handed) << 16u);
    dst[params.dst_basis + v * 2u] = nb;
    dst[params.dst_basis + v * 2u + 1u] = tb;
}
