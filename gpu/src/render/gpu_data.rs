//! Every block the renderer uploads, as `#[repr(C)]` [`bytemuck::Pod`] structs laid out
//! exactly as the WGSL declares them (std140/std430 on 16-byte vectors: every member here is
//! a `vec4` or a `mat4x4`, so no hidden padding; integer vectors are `[u32; 4]` / `[i32; 4]`). They go to the GPU through
//! [`bytemuck::bytes_of`] / [`bytemuck::cast_slice`]; the layout tests below pin each one's
//! size and member offsets to the shader's struct through naga's reflection, so a shader and
//! its struct cannot drift.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};

/// The draw push constant: `struct Draw` in `box_lit.wgsl` and `depth.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct DrawPush {
    /// Clip from local.
    pub clip_from_local: Mat4,
    /// World from local's first row: xyz the rotation row, w the translation.
    pub world_row0: Vec4,
    /// Its second row.
    pub world_row1: Vec4,
    /// Its third row.
    pub world_row2: Vec4,
    /// x the material index; y flags (bit 0: shaded by the voxel light field).
    pub material: [u32; 4],
}

/// The frame uniform block: `struct Frame` in `box_lit.wgsl` and `sky.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct FrameUniform {
    /// World to clip.
    pub view_proj: Mat4,
    /// World to view.
    pub view: Mat4,
    /// Clip to world.
    pub inv_view_proj: Mat4,
    /// Each cascade's world to shadow clip.
    pub cascades: [Mat4; 4],
    /// The view depth where each cascade ends.
    pub cascade_splits: Vec4,
    /// Meters per shadow texel in each cascade.
    pub cascade_texel: Vec4,
    /// xyz the eye; w 1 when orthographic.
    pub camera: Vec4,
    /// xyz the direction sunlight travels; w the half-Lambert wrap.
    pub sun_direction: Vec4,
    /// rgb the sun's color × intensity.
    pub sun_radiance: Vec4,
    /// rgb the hemisphere sky; w 1 when the harmonics are the fill.
    pub ambient_sky: Vec4,
    /// rgb the hemisphere ground; w the harmonics' intensity.
    pub ambient_ground: Vec4,
    /// The sky's order-2 harmonics, rgb.
    pub sh: [Vec4; 9],
    /// Columns, rows, slices, light count.
    pub cluster_dims: [u32; 4],
    /// near, far (where the last slice begins), ln(far / near), 1 when clusters are on.
    pub cluster_params: Vec4,
    /// width, height, 1 / width, 1 / height.
    pub viewport: Vec4,
    /// rayleigh, mie, mie anisotropy, horizon softness.
    pub sky0: Vec4,
    /// intensity, sun disc, ground blend, angular diameter (degrees).
    pub sky1: Vec4,
    /// rgb the ground albedo; w 1 when the sky is drawn.
    pub sky_ground: Vec4,
    /// rgb the flat clear color when there is no sky.
    pub clear_color: Vec4,
}

/// One ranked light: `struct Light` in `box_lit.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct LightData {
    /// xyz position, w range.
    pub position_range: Vec4,
    /// xyz direction travelled, w kind (0 point, 1 spot, 2 directional).
    pub direction_kind: Vec4,
    /// rgb color × intensity, w falloff (0 physical, 1 unity).
    pub radiance_falloff: Vec4,
    /// cos inner, cos outer.
    pub cone: Vec4,
}

/// One material: `struct Material` in `box_lit.wgsl` and `depth.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MaterialData {
    /// rgb the linear tint, w shading (0 lit, 1 unlit, 2 missing).
    pub base_color: Vec4,
    /// rgb emissive × intensity, w 1 when it has a base color texture.
    pub emissive: Vec4,
    /// xy uvScale, z the base color's alpha (a gain past 1 is clamped in the shader after
    /// the texel's alpha multiplies it), w the glow texture's gain (0 without one).
    pub uv_scale: Vec4,
    /// rgb the detail layer's linear color.
    pub detail_color: Vec4,
    /// The COLOR_1 channel the detail layer reads, as a one-hot mask scaled by the layer's
    /// alpha (zero without a layer): the weight is `dot(COLOR_1, detail_weight)`.
    pub detail_weight: Vec4,
}

/// The light field block's header: `struct VoxelLight` in `box_lit.wgsl` up to its runtime
/// `cells` array, which follows it in the buffer (light_window.rs).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct VoxelLightHeader {
    /// World to light-space cells.
    pub world_to_light: Mat4,
    /// xyz the low corner's cell.
    pub origin: [i32; 4],
    /// Bricks along x, y, z; w 1 when there is a window.
    pub dims: [u32; 4],
    /// occlusionStep, blockLightIntensity, edge fade (cells).
    pub params: Vec4,
    /// The sky gate per level, four to a vector.
    pub gate: [Vec4; 4],
    /// The fill's linear color per level.
    pub fill: [Vec4; 16],
}

/// The resolve's push constant: `struct Params` in `post.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PostParams {
    /// x exposure, y bloom intensity (0: no bloom), z tonemap index, w hable A.
    pub a: Vec4,
    /// hable B, C, D, E.
    pub b: Vec4,
    /// hable F, W; z the bloom tent's sample scale.
    pub c: Vec4,
}

/// A bloom pass's push constant: `struct Params` in `bloom.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct BloomParams {
    /// xy the source's texel size; z the tent's sample scale; w exposure.
    pub a: Vec4,
    /// x threshold; y soft knee (fraction of the threshold).
    pub b: Vec4,
}

/// Bytes of the push-constant range the screen passes (post, bloom) share.
pub const SCREEN_PUSH_BYTES: usize = std::mem::size_of::<PostParams>();

const _: () = {
    assert!(std::mem::size_of::<DrawPush>() == 128);
    assert!(std::mem::size_of::<MaterialData>() == 80);
    assert!(std::mem::size_of::<FrameUniform>() == 816);
    assert!(std::mem::size_of::<VoxelLightHeader>() == 432);
    assert!(std::mem::size_of::<BloomParams>() <= SCREEN_PUSH_BYTES);
};

#[cfg(test)]
mod tests {
    //! Each struct against the shader that reads it, through naga's reflection of the WGSL.
    use super::*;
    use core::mem::{offset_of, size_of};

    /// `(member name, offset)` of WGSL struct `name` in `shader`, and its span.
    fn wgsl_layout(shader: &str, name: &str) -> (Vec<(String, u32)>, u32) {
        let path = format!("{}/shaders/{shader}", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{path}: {}", e.emit_to_string(&source)));
        // naga's WGSL front end lays every struct out (offsets, span) as the shader sees it.
        for (_, ty) in module.types.iter() {
            if ty.name.as_deref() != Some(name) {
                continue;
            }
            if let naga::TypeInner::Struct { members, span } = &ty.inner {
                let fields = members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect();
                return (fields, *span);
            }
        }
        panic!("{shader} declares no struct {name}");
    }

    /// Asserts the Rust struct's size and offsets equal the WGSL struct's (members named
    /// alike, in order). `header`: the WGSL struct ends in a runtime array past the Rust one,
    /// which then ends where that array begins.
    macro_rules! same_layout {
        ($shader:literal, $wgsl:literal, $ty:ty, [$($field:ident),+ $(,)?] $(, then $rest:literal)?) => {{
            let (fields, span) = wgsl_layout($shader, $wgsl);
            let rust: Vec<(&str, usize)> = vec![$((stringify!($field), offset_of!($ty, $field))),+];
            let mut wgsl = fields.iter();
            for (name, offset) in &rust {
                let (w_name, w_offset) = wgsl.next().unwrap_or_else(|| {
                    panic!("{}: {} has no member for {name}", $shader, $wgsl)
                });
                assert_eq!(w_name, name, "{}: {} member order", $shader, $wgsl);
                assert_eq!(*w_offset as usize, *offset, "{}: {}.{name} offset", $shader, $wgsl);
            }
            #[allow(unused_mut, unused_assignments)]
            let mut tail: Option<&str> = None;
            $(tail = Some($rest);)?
            match tail {
                None => {
                    assert!(wgsl.next().is_none(), "{}: {} has more members", $shader, $wgsl);
                    assert_eq!(span as usize, size_of::<$ty>(), "{}: {} size", $shader, $wgsl);
                }
                Some(rest) => {
                    let (w_name, w_offset) = wgsl.next().unwrap_or_else(|| {
                        panic!("{}: {} has no {rest}", $shader, $wgsl)
                    });
                    assert_eq!(w_name, rest);
                    assert_eq!(*w_offset as usize, size_of::<$ty>(), "{}: {} header", $shader, $wgsl);
                    assert!(wgsl.next().is_none());
                }
            }
        }};
    }

    #[test]
    fn draw_push_matches_both_shaders() {
        for_draw("box_lit.wgsl");
        for_draw("depth.wgsl");
        fn for_draw(shader: &str) {
            let (fields, span) = wgsl_layout(shader, "Draw");
            let rust = [
                ("clip_from_local", offset_of!(DrawPush, clip_from_local)),
                ("world_row0", offset_of!(DrawPush, world_row0)),
                ("world_row1", offset_of!(DrawPush, world_row1)),
                ("world_row2", offset_of!(DrawPush, world_row2)),
                ("material", offset_of!(DrawPush, material)),
            ];
            let wgsl: Vec<(&str, usize)> = fields
                .iter()
                .map(|(n, o)| (n.as_str(), *o as usize))
                .collect();
            assert_eq!(wgsl, rust, "{shader}: Draw");
            assert_eq!(span as usize, size_of::<DrawPush>(), "{shader}: Draw size");
        }
    }

    #[test]
    fn frame_uniform_matches_box_lit_and_sky() {
        macro_rules! frame {
            ($shader:literal) => {
                same_layout!(
                    $shader,
                    "Frame",
                    FrameUniform,
                    [
                        view_proj,
                        view,
                        inv_view_proj,
                        cascades,
                        cascade_splits,
                        cascade_texel,
                        camera,
                        sun_direction,
                        sun_radiance,
                        ambient_sky,
                        ambient_ground,
                        sh,
                        cluster_dims,
                        cluster_params,
                        viewport,
                        sky0,
                        sky1,
                        sky_ground,
                        clear_color,
                    ]
                )
            };
        }
        frame!("box_lit.wgsl");
        frame!("sky.wgsl");
    }

    #[test]
    fn light_and_material_match() {
        same_layout!(
            "box_lit.wgsl",
            "Light",
            LightData,
            [position_range, direction_kind, radiance_falloff, cone]
        );
        same_layout!(
            "box_lit.wgsl",
            "Material",
            MaterialData,
            [base_color, emissive, uv_scale, detail_color, detail_weight]
        );
        same_layout!(
            "depth.wgsl",
            "Material",
            MaterialData,
            [base_color, emissive, uv_scale, detail_color, detail_weight]
        );
    }

    #[test]
    fn voxel_light_header_ends_where_the_cells_begin() {
        same_layout!(
            "box_lit.wgsl",
            "VoxelLight",
            VoxelLightHeader,
            [world_to_light, origin, dims, params, gate, fill],
            then "cells"
        );
    }

    #[test]
    fn screen_params_match() {
        same_layout!("post.wgsl", "Params", PostParams, [a, b, c]);
        same_layout!("bloom.wgsl", "Params", BloomParams, [a, b]);
    }
}
