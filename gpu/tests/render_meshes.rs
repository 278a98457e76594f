//! Mesh instances on lavapipe with validation: a box built as a mesh draws what the box
//! draws, a nearest-sampled palette atlas shows its exact texels, cut-out texels leave what
//! is behind, translucent instances blend back to front whatever their frame order, a
//! mirroring world is not culled away, residency frees unnamed meshes after the keep window
//! and spreads uploads over frames while a capture lands everything, a meshes scene
//! matches its golden, the block atlas's sampler is point within a level and linear between
//! levels, a glow texture adds over the lighting while a coverage gain clamps, and a tile
//! write lands inline over its rect alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use dh_content::mesh::{box_mesh, pack_streams, MeshVertex, VertexColor};
use dh_gpu::render::compare::{compare, decode_png};
use dh_gpu::render::frame::{
    Ambient, BoxInstance, Lighting, Material, MeshAsset, MeshInstance, Post, Projection,
    RenderFrame, Sampling, Shading, SubMesh, Surface, Texture, View, VoxelLightWindow,
};
use dh_gpu::render::math;
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_gpu::render::{Renderer, RendererDesc, ScopedThreads};
use dh_gpu::{testing, RgbaImage, StagingConfig};
use glam::{Mat4, Quat, Vec3};

const IDENTITY_Q: Quat = Quat::IDENTITY;

fn material(shading: Shading, c: Vec3) -> Material {
    Material {
        shading,
        base_color: c,
        ..Material::flat_white()
    }
}

/// No curve, exposure 1, no bloom: a pixel is its linear color sRGB-encoded.
fn plain_post() -> Post {
    Post {
        exposure: 1.0,
        tonemap: Tonemap::None,
        hable: Hable::PUBLISHED,
        bloom: None,
    }
}

/// No sun, no fill, no sky: a black clear color, unlit materials as they are.
fn dark() -> Lighting {
    Lighting {
        sun_radiance: Vec3::splat(0.0),
        ambient: Ambient::Hemisphere {
            sky: Vec3::splat(0.0),
            ground: Vec3::splat(0.0),
        },
        sky: None,
        ..Lighting::default()
    }
}

/// An orthographic camera at the origin looking down -Z, `half_height` meters up and down.
fn ortho(half_height: f32) -> View {
    View {
        position: Vec3::splat(0.0),
        rotation: IDENTITY_Q,
        projection: Projection::Orthographic { half_height },
        near: 0.1,
        far: Some(100.0),
    }
}

/// The sRGB encoding of a linear value as a byte (IEC 61966-2-1), written out here.
fn srgb_byte(linear: f64) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

fn close(got: [u8; 4], want: [u8; 3], tol: u8, what: &str) {
    for k in 0..3 {
        assert!(
            got[k].abs_diff(want[k]) <= tol,
            "{what}: got {got:?}, want {want:?} ± {tol}"
        );
    }
}

fn px(img: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.pixel(x, y)
        .unwrap_or_else(|| panic!("({x}, {y}) outside {}x{}", img.width, img.height))
}

/// A mesh asset from vertices and a triangle list, one sub-mesh in `surface` on slot 0.
fn asset(key: u64, vertices: &[MeshVertex], indices: Vec<u32>, surface: Surface) -> MeshAsset {
    let packed = pack_streams(vertices, None, None).unwrap_or_else(|e| panic!("{e}"));
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for v in vertices {
        for k in 0..3 {
            lo[k] = lo[k].min(v.position[k]);
            hi[k] = hi[k].max(v.position[k]);
        }
    }
    MeshAsset {
        key,
        packed,
        submeshes: vec![SubMesh {
            first_index: 0,
            index_count: indices.len() as u32,
            slot: 0,
            surface,
        }],
        indices,
        bounds: (Vec3::from_array(lo), Vec3::from_array(hi)),
    }
}

/// `box_mesh(size)` as a mesh asset.
fn box_asset(key: u64, size: [f32; 3]) -> MeshAsset {
    let b = box_mesh(size);
    let indices = b.indices.iter().map(|&i| u32::from(i)).collect();
    asset(key, &b.vertices, indices, Surface::Opaque)
}

/// A `w × h` quad in the XY plane facing +Z, centered on the origin, UV0 from (0, 0) at
/// its top-left to (1, 1) at its bottom-right, counter-clockwise seen from +Z.
fn quad(key: u64, w: f32, h: f32, surface: Surface) -> MeshAsset {
    quad_occluded(key, w, h, surface, 0.0)
}

/// [`quad`] with UV2.x (the corner occlusion count) `occlusion` at every corner.
fn quad_occluded(key: u64, w: f32, h: f32, surface: Surface, occlusion: f32) -> MeshAsset {
    let corners = [
        ([-w / 2.0, -h / 2.0], [0.0, 1.0]),
        ([w / 2.0, -h / 2.0], [1.0, 1.0]),
        ([w / 2.0, h / 2.0], [1.0, 0.0]),
        ([-w / 2.0, h / 2.0], [0.0, 0.0]),
    ];
    let vertices: Vec<MeshVertex> = corners
        .iter()
        .map(|(p, uv)| MeshVertex {
            position: [p[0], p[1], 0.0],
            normal: [0.0, 0.0, 1.0],
            tangent: [1.0, 0.0, 0.0, 1.0],
            uv0: *uv,
            uv2: [occlusion, 0.0],
            ..MeshVertex::default()
        })
        .collect();
    asset(key, &vertices, vec![0, 1, 2, 0, 2, 3], surface)
}

fn instance(mesh: &Arc<MeshAsset>, world: Mat4, material: u32) -> MeshInstance {
    MeshInstance {
        mesh: Arc::clone(mesh),
        world,
        materials: vec![material],
        casts_shadows: true,
    }
}

fn at(p: Vec3) -> Mat4 {
    math::trs(p, IDENTITY_Q, Vec3::splat(1.0))
}

fn texture(width: u32, texels: &[[u8; 4]]) -> Arc<Texture> {
    Arc::new(Texture {
        width,
        height: texels.len() as u32 / width,
        rgba: texels.iter().flatten().copied().collect(),
        mips: Vec::new(),
    })
}

fn shoot(r: &mut Renderer, frame: &RenderFrame, view: &View, w: u32, h: u32) -> RgbaImage {
    let out = r
        .render(frame, view, w, h)
        .unwrap_or_else(|e| panic!("{e}"));
    out.image
}

#[test]
fn a_box_mesh_draws_what_the_box_draws() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let rotation = Quat::from_xyzw(0.0, 0.382_683_4, 0.0, 0.923_879_5);
        let (position, size) = (Vec3::new(0.5, 1.0, -3.0), Vec3::new(2.0, 1.5, 1.0));
        let floor = BoxInstance {
            position: Vec3::new(0.0, -0.25, 0.0),
            rotation: IDENTITY_Q,
            size: Vec3::new(20.0, 0.5, 20.0),
            material: 0,
        };
        let boxes = RenderFrame {
            materials: vec![
                material(Shading::Lit, Vec3::new(0.5, 0.5, 0.5)),
                material(Shading::Lit, Vec3::new(0.9, 0.3, 0.1)),
            ],
            static_boxes: vec![floor],
            live_boxes: vec![BoxInstance {
                position,
                rotation,
                size,
                material: 1,
            }],
            lighting: Lighting::default(),
            post: Post {
                tonemap: Tonemap::ReinhardWhite,
                ..plain_post()
            },
            ..RenderFrame::default()
        };
        let mut meshes = boxes.clone();
        meshes.live_boxes.clear();
        let mesh = Arc::new(box_asset(7, size.to_array()));
        meshes.meshes = vec![instance(
            &mesh,
            math::trs(position, rotation, Vec3::splat(1.0)),
            1,
        )];
        let view = View {
            position: Vec3::new(0.0, 3.0, 6.0),
            rotation: Quat::from_xyzw(-0.173_648_2, 0.0, 0.0, 0.984_807_7),
            projection: Projection::Perspective { fov_y: 60.0 },
            near: 0.05,
            far: None,
        };
        let a = shoot(&mut r, &boxes, &view, 160, 90);
        let out = r
            .render(&meshes, &view, 160, 90)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.mesh_draws, 1);
        assert_eq!(out.draws, 1, "the floor alone");
        let diff = compare(&a, &out.image).unwrap_or_else(|| panic!("sizes differ"));
        assert!(diff.within(0.002, 2.0 / 255.0), "{diff:?}");
        // The box is in the picture at all (its orange against the gray floor).
        let c = px(&out.image, 88, 38);
        assert!(c[0] > c[2] + 40, "box {c:?}");
    }
    testing::finish(gpu);
}

#[test]
fn a_nearest_palette_atlas_shows_exact_texels() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let texels = [
            [200, 30, 40, 255],
            [10, 220, 90, 255],
            [60, 70, 250, 255],
            [255, 255, 255, 255],
        ];
        let atlas = texture(4, &texels);
        let palette = Material {
            shading: Shading::Unlit,
            base_color_texture: Some(atlas),
            sampling: Sampling::Nearest,
            ..Material::flat_white()
        };
        // 64 x 32 pixels over a 4 x 2 m view: the quad fills it, 16 columns a texel.
        let mesh = Arc::new(quad(1, 4.0, 2.0, Surface::Opaque));
        let frame = RenderFrame {
            materials: vec![palette],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        let img = shoot(&mut r, &frame, &ortho(1.0), 64, 32);
        for y in [0, 16, 31] {
            for x in 0..64 {
                // The texel a pixel center falls in: u = (x + 0.5) / 64 over 4 texels.
                let t = texels[(x / 16) as usize];
                close(
                    px(&img, x, y),
                    [t[0], t[1], t[2]],
                    1,
                    &format!("pixel ({x}, {y})"),
                );
            }
        }
    }
    testing::finish(gpu);
}

#[test]
fn translucent_instances_blend_back_to_front() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let glass = |c: Vec3| Material {
            shading: Shading::Unlit,
            base_color: c,
            alpha: 0.5,
            ..Material::flat_white()
        };
        let mesh = Arc::new(quad(3, 2.0, 2.0, Surface::Translucent));
        // Listed near first: the order drawn must come from the distances.
        let near = instance(&mesh, at(Vec3::new(0.5, 0.0, -4.0)), 1);
        let far = instance(&mesh, at(Vec3::new(-0.5, 0.0, -6.0)), 0);
        let frame = RenderFrame {
            materials: vec![
                glass(Vec3::new(1.0, 0.0, 0.0)),
                glass(Vec3::new(0.0, 0.0, 1.0)),
            ],
            meshes: vec![near, far],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        let img = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        // 16 pixels a meter; x = 32 + 16·wx, y = 32 − 16·wy. The overlap is wx in
        // [−0.5, 0.5]; the red (far) quad alone is wx < −0.5, the blue (near) alone > 0.5.
        // Over black: red alone a·(1, 0, 0) = (0.5, 0, 0); blue over it
        // a·(0, 0, 1) + (1 − a)·(0.5, 0, 0) = (0.25, 0, 0.5).
        let (half, quarter) = (srgb_byte(0.5), srgb_byte(0.25));
        close(px(&img, 32, 32), [quarter, 0, half], 2, "overlap");
        close(px(&img, 20, 32), [half, 0, 0], 2, "far alone");
        close(px(&img, 44, 32), [0, 0, half], 2, "near alone");
        close(px(&img, 2, 2), [0, 0, 0], 0, "background");
        // The other order would have given (0.5, 0, 0.25) in the overlap.
        assert_ne!(srgb_byte(0.5), srgb_byte(0.25));
    }
    testing::finish(gpu);
}

/// [`quad`] (`w` = `h` = 1) with a color run: COLOR_0 `color0` at every corner, COLOR_1 zero.
fn painted_quad(key: u64, surface: Surface, color0: [f32; 4]) -> MeshAsset {
    let mut a = quad(key, 1.0, 1.0, surface);
    let n = a.packed.vertex_count as usize;
    let vertices: Vec<MeshVertex> = (0..n)
        .map(|i| {
            let x = if i == 1 || i == 2 { 0.5 } else { -0.5 };
            let y = if i >= 2 { 0.5 } else { -0.5 };
            MeshVertex {
                position: [x, y, 0.0],
                normal: [0.0, 0.0, 1.0],
                tangent: [1.0, 0.0, 0.0, 1.0],
                ..MeshVertex::default()
            }
        })
        .collect();
    let colors = vec![
        VertexColor {
            color0,
            color1: [0.0; 4],
        };
        n
    ];
    a.packed = pack_streams(&vertices, None, Some(&colors)).unwrap_or_else(|e| panic!("{e}"));
    a
}

/// Spec 001, "Vertex colors": COLOR_0 multiplies the surface's base color, RGB always and
/// alpha on a blended surface only; its alpha never cuts a mask surface; a mesh without
/// it draws white (its base color alone). Four unit quads in a row, unlit over black, no
/// curve, so a pixel is its linear color sRGB-encoded (values worked out by hand):
/// * opaque, base (1, 0.5, 1), COLOR_0 (0.5, 1, 0.25, 0.2): (0.5, 0.5, 0.25), alpha unused;
/// * cutout, base white, COLOR_0 (0, 1, 0, 0.2): kept (0.2 < 0.5 would cut if it counted);
/// * translucent, base white alpha 1, COLOR_0 (1, 0, 0, 0.5): over black (0.5, 0, 0);
/// * opaque, base (1, 0.5, 1), no color run: (1, 0.5, 1).
#[test]
fn color0_multiplies_the_base_color_and_its_alpha_only_blends() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let unlit = |c: Vec3| material(Shading::Unlit, c);
        let pink = Vec3::new(1.0, 0.5, 1.0);
        let a = Arc::new(painted_quad(41, Surface::Opaque, [0.5, 1.0, 0.25, 0.2]));
        let b = Arc::new(painted_quad(42, Surface::Cutout, [0.0, 1.0, 0.0, 0.2]));
        let c = Arc::new(painted_quad(43, Surface::Translucent, [1.0, 0.0, 0.0, 0.5]));
        let d = Arc::new(quad(44, 1.0, 1.0, Surface::Opaque));
        let frame = RenderFrame {
            materials: vec![unlit(pink), unlit(Vec3::splat(1.0))],
            meshes: vec![
                instance(&a, at(Vec3::new(-1.5, 0.0, -5.0)), 0),
                instance(&b, at(Vec3::new(-0.5, 0.0, -5.0)), 1),
                instance(&c, at(Vec3::new(0.5, 0.0, -5.0)), 1),
                instance(&d, at(Vec3::new(1.5, 0.0, -5.0)), 0),
            ],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        // 32 pixels a meter: quad centers at x = 64 + 32·wx = 16, 48, 80, 112; y = 32.
        let img = shoot(&mut r, &frame, &ortho(1.0), 128, 64);
        let (half, quarter) = (srgb_byte(0.5), srgb_byte(0.25));
        close(
            px(&img, 16, 32),
            [half, half, quarter],
            2,
            "opaque, painted",
        );
        close(
            px(&img, 48, 32),
            [0, 255, 0],
            1,
            "cutout, alpha 0.2 does not cut",
        );
        close(
            px(&img, 80, 32),
            [half, 0, 0],
            2,
            "translucent, alpha 0.5 blends",
        );
        close(
            px(&img, 112, 32),
            [255, half, 255],
            1,
            "no color run: the base color",
        );
        close(px(&img, 2, 2), [0, 0, 0], 0, "background");
    }
    testing::finish(gpu);
}

#[test]
fn cutout_texels_under_half_alpha_leave_the_background() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let leaf = Material {
            shading: Shading::Unlit,
            base_color_texture: Some(texture(2, &[[255, 255, 255, 0], [0, 255, 0, 255]])),
            sampling: Sampling::Nearest,
            ..Material::flat_white()
        };
        let mesh = Arc::new(quad(4, 4.0, 2.0, Surface::Cutout));
        let frame = RenderFrame {
            materials: vec![leaf],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        let out = r
            .render(&frame, &ortho(1.0), 64, 32)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.mesh_draws, 1);
        for x in [0, 15, 31] {
            close(px(&out.image, x, 16), [0, 0, 0], 0, "cut out");
        }
        for x in [32, 48, 63] {
            close(px(&out.image, x, 16), [0, 255, 0], 1, "kept");
        }
    }
    testing::finish(gpu);
}

#[test]
fn a_mirroring_world_is_not_culled_away() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        // A lit quad facing the camera with the sun behind the camera: mirrored in X it is
        // the same quad, so it must draw the same picture (not be culled, not shade inside
        // out).
        let mesh = Arc::new(quad(5, 2.0, 2.0, Surface::Opaque));
        let mut frame = RenderFrame {
            materials: vec![material(Shading::Lit, Vec3::new(0.8, 0.8, 0.8))],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: Lighting {
                sun_direction: Vec3::new(0.0, 0.0, -1.0),
                sun_radiance: Vec3::splat(1.0),
                ambient: Ambient::Hemisphere {
                    sky: Vec3::splat(0.0),
                    ground: Vec3::splat(0.0),
                },
                half_lambert: 0.0,
                sky: None,
                ..Lighting::default()
            },
            post: plain_post(),
            ..RenderFrame::default()
        };
        let plain = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        frame.meshes[0].world = math::trs(
            Vec3::new(0.0, 0.0, -5.0),
            IDENTITY_Q,
            Vec3::new(-1.0, 1.0, 1.0),
        );
        assert!(frame.meshes[0].is_mirrored());
        let mirrored = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        // Lit head-on by a unit sun: 0.8 of white.
        close(px(&plain, 32, 32), [srgb_byte(0.8); 3], 2, "plain");
        let diff = compare(&plain, &mirrored).unwrap_or_else(|| panic!("sizes differ"));
        assert!(diff.max <= 1.0 / 255.0, "{diff:?}");
    }
    testing::finish(gpu);
}

/// `n` cubes in a row, one mesh of `cubes` boxes each, keys from `first_key`.
fn cube_rows(n: usize, cubes: usize, first_key: u64) -> Vec<Arc<MeshAsset>> {
    (0..n)
        .map(|i| {
            let mut vertices = Vec::new();
            let mut indices = Vec::new();
            for c in 0..cubes {
                let b = box_mesh([0.3, 0.3, 0.3]);
                let base = vertices.len() as u32;
                vertices.extend(b.vertices.iter().map(|v| MeshVertex {
                    position: [v.position[0], v.position[1] + c as f32 * 0.4, v.position[2]],
                    ..*v
                }));
                indices.extend(b.indices.iter().map(|&k| base + u32::from(k)));
            }
            Arc::new(asset(
                first_key + i as u64,
                &vertices,
                indices,
                Surface::Opaque,
            ))
        })
        .collect()
}

fn rows_frame(assets: &[Arc<MeshAsset>]) -> RenderFrame {
    RenderFrame {
        materials: vec![material(Shading::Unlit, Vec3::new(1.0, 1.0, 1.0))],
        meshes: assets
            .iter()
            .enumerate()
            .map(|(i, m)| instance(m, at(Vec3::new(i as f32 * 0.5 - 2.0, -1.5, -5.0)), 0))
            .collect(),
        lighting: dark(),
        post: plain_post(),
        ..RenderFrame::default()
    }
}

#[test]
fn an_unnamed_mesh_is_freed_after_the_keep_window() {
    let gpu = testing::test_gpu();
    {
        let desc = RendererDesc {
            mesh_keep_frames: 2,
            ..RendererDesc::default()
        };
        let mut r = Renderer::with_desc(&gpu, &desc).unwrap_or_else(|e| panic!("{e}"));
        let assets = cube_rows(2, 1, 100);
        let frame = rows_frame(&assets);
        let view = ortho(2.0);
        let first = r
            .render_frame(&frame, &view, 32, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.meshes_uploaded, 2, "both fit the default budget");
        assert_eq!(first.mesh_draws, 0, "drawn from the frame after they land");
        assert_eq!(first.mesh_skipped_draws, 2);
        let bytes: u64 = assets.iter().map(|a| a.byte_size() as u64).sum();
        assert_eq!(first.mesh_bytes_resident, bytes);
        let second = r
            .render_frame(&frame, &view, 32, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((second.mesh_draws, second.meshes_uploaded), (2, 0));
        // One instance goes away: its mesh stays two frames, then is freed.
        let mut one = frame.clone();
        one.meshes.truncate(1);
        let mut freed = Vec::new();
        let mut deferred = Vec::new();
        for _ in 0..4 {
            let before = gpu.deferred_len();
            let rep = r
                .render_frame(&one, &view, 32, 32, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rep.mesh_draws, 1);
            freed.push(rep.meshes_freed);
            deferred.push(gpu.deferred_len() >= before + 2 * rep.meshes_freed);
        }
        assert_eq!(freed, vec![0, 0, 1, 0]);
        assert!(deferred.iter().all(|d| *d), "its two buffers were retired");
        assert_eq!(r.mesh_count(), 1);
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}

#[test]
fn mesh_uploads_spread_over_frames_and_a_capture_lands_them() {
    let gpu = testing::test_gpu();
    {
        let budget = 40 << 10;
        let desc = RendererDesc {
            staging: StagingConfig {
                capacity: 1 << 20,
                frame_byte_budget: budget,
                frame_time_budget: Duration::from_secs(1),
            },
            mesh_upload_budget: Duration::from_secs(1),
            ..RendererDesc::default()
        };
        let mut r = Renderer::with_desc(&gpu, &desc).unwrap_or_else(|e| panic!("{e}"));
        // Eight meshes of eight cubes: 8 × 8 × (24 × 52 + 36 × 4) bytes = 89 KiB.
        let assets = cube_rows(8, 8, 200);
        let total: u64 = assets.iter().map(|a| a.byte_size() as u64).sum();
        assert_eq!(total, 8 * 8 * (24 * 52 + 36 * 4));
        let frame = rows_frame(&assets);
        let view = ortho(2.0);
        let mut landed = 0;
        let mut frames = 0;
        let mut drawn = Vec::new();
        loop {
            let rep = r
                .render_frame(&frame, &view, 32, 32, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(rep.uploaded <= budget, "{} > {budget}", rep.uploaded);
            assert_eq!(rep.mesh_draws + rep.mesh_skipped_draws, 8);
            landed += rep.meshes_uploaded;
            drawn.push(rep.mesh_draws);
            frames += 1;
            if rep.mesh_draws == 8 {
                assert_eq!(rep.mesh_bytes_resident, total);
                assert_eq!(rep.mesh_bytes_left, 0);
                break;
            }
            assert!(frames < 100, "the uploads never finish: {drawn:?}");
        }
        assert_eq!(landed, 8);
        assert!(
            frames >= 4,
            "89 KiB at under 40 KiB a frame took {frames} frames"
        );
        assert!(drawn.windows(2).all(|w| w[0] <= w[1]), "{drawn:?}");

        // With no mesh time budget nothing lands live, but a capture lands everything.
        let mut r = Renderer::with_desc(&gpu, &desc).unwrap_or_else(|e| panic!("{e}"));
        r.set_mesh_upload_budget(Duration::ZERO);
        for _ in 0..3 {
            let rep = r
                .render_frame(&frame, &view, 32, 32, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((rep.mesh_draws, rep.meshes_uploaded), (0, 0));
            assert_eq!(rep.mesh_bytes_left, total);
        }
        let out = r
            .render(&frame, &view, 32, 32)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.mesh_draws, 8);
        // The first column of cubes (x = -2 ± 0.15 m: 8 pixels a meter from x = 16, so
        // pixel 0, centered at -1.94 m) shows white.
        let lit = (0..32).any(|y| px(&out.image, 0, y)[0] == 255);
        let column: Vec<u8> = (0..32).map(|y| px(&out.image, 0, y)[0]).collect();
        assert!(lit, "the captured cubes are in the picture: {column:?}");
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}

/// Mean error allowed against a golden (as engine/tests/render_golden.rs).
const MEAN: f64 = 0.02;
/// 99th-percentile error allowed.
const P99: f64 = 0.12;

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

fn check_golden(name: &str, image: &RgbaImage) {
    let path = golden_path(name);
    if let Ok(dir) = std::env::var("DH_RENDER_OUT") {
        let _ = image.write_png(&Path::new(&dir).join(format!("{name}.png")));
    }
    match std::fs::read(&path) {
        Ok(bytes) => {
            let golden = decode_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let diff = compare(image, &golden).unwrap_or_else(|| panic!("{name}: sizes differ"));
            assert!(
                diff.within(MEAN, P99),
                "{name}: differs from {}: {diff:?}",
                path.display()
            );
        }
        Err(_) => {
            image.write_png(&path).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("{name}: no golden; wrote {}", path.display());
        }
    }
}

#[test]
fn a_meshes_scene_matches_its_golden() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let leaves = texture(
            2,
            &[
                [40, 160, 50, 255],
                [0, 0, 0, 0],
                [0, 0, 0, 0],
                [40, 160, 50, 255],
            ],
        );
        let cube = Arc::new(box_asset(10, [1.0, 1.0, 1.0]));
        let pane = Arc::new(quad(11, 2.0, 2.0, Surface::Translucent));
        let hedge = Arc::new(quad(12, 2.0, 2.0, Surface::Cutout));
        let frame = RenderFrame {
            materials: vec![
                material(Shading::Lit, Vec3::new(0.5, 0.5, 0.5)),
                material(Shading::Lit, Vec3::new(0.9, 0.3, 0.1)),
                Material {
                    alpha: 0.4,
                    ..material(Shading::Lit, Vec3::new(0.2, 0.4, 0.9))
                },
                Material {
                    base_color_texture: Some(leaves),
                    sampling: Sampling::Nearest,
                    ..material(Shading::Lit, Vec3::new(1.0, 1.0, 1.0))
                },
            ],
            static_boxes: vec![BoxInstance {
                position: Vec3::new(0.0, -0.25, 0.0),
                rotation: IDENTITY_Q,
                size: Vec3::new(20.0, 0.5, 20.0),
                material: 0,
            }],
            meshes: vec![
                // A cube, a stretched cube, a mirrored cube with a slot past its list
                // (flat white), a leaf quad cut out, a blue pane in front of it all.
                instance(&cube, at(Vec3::new(-2.0, 0.5, -3.0)), 1),
                instance(
                    &cube,
                    math::trs(
                        Vec3::new(0.0, 1.0, -4.0),
                        Quat::from_xyzw(0.0, 0.382_683_4, 0.0, 0.923_879_5),
                        Vec3::new(1.0, 2.0, 0.5),
                    ),
                    1,
                ),
                MeshInstance {
                    materials: vec![],
                    ..instance(
                        &cube,
                        math::trs(
                            Vec3::new(2.0, 0.5, -3.0),
                            IDENTITY_Q,
                            Vec3::new(-1.0, 1.0, 1.0),
                        ),
                        0,
                    )
                },
                instance(&hedge, at(Vec3::new(1.0, 1.0, -5.0)), 3),
                instance(&pane, at(Vec3::new(-1.0, 1.0, -1.0)), 2),
            ],
            lighting: Lighting::default(),
            post: Post {
                tonemap: Tonemap::ReinhardWhite,
                ..plain_post()
            },
            ..RenderFrame::default()
        };
        let view = View {
            position: Vec3::new(0.0, 2.5, 4.0),
            rotation: Quat::from_xyzw(-0.173_648_2, 0.0, 0.0, 0.984_807_7),
            projection: Projection::Perspective { fov_y: 60.0 },
            near: 0.05,
            far: None,
        };
        let out = r
            .render(&frame, &view, 160, 90)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.mesh_draws, 5);
        // What the scene describes: the pane tints what is behind it blue.
        let mut no_pane = frame.clone();
        no_pane.meshes.pop();
        let behind = shoot(&mut r, &no_pane, &view, 160, 90);
        let (x, y) = (56, 45);
        let (with, without) = (px(&out.image, x, y), px(&behind, x, y));
        assert!(
            i32::from(with[2]) - i32::from(with[0]) > i32::from(without[2]) - i32::from(without[0]),
            "the pane tints blue: {with:?} against {without:?}"
        );
        check_golden("meshes-scene", &out.image);
    }
    testing::finish(gpu);
}

/// Minecraft's curve written out: `c = v / (4 − 3v)`, lifted toward `1 − (1 − c)⁴` by the
/// brightness.
fn curve(level: u8, brightness: f64) -> f64 {
    let v = f64::from(level) / 15.0;
    let c = v / (4.0 - 3.0 * v);
    c + (1.0 - (1.0 - c).powi(4) - c) * brightness
}

/// One brick of light, every cell `sky << 12 | block gray`, around a 4 × 2 m quad at
/// z = −5 (light space: the world moved by (8, 8, 13), so the quad's front cells are
/// x 6–9, y 7–8, z 8, far from the window's edge).
fn lit_quad(sky: u16, block: u16, occlusion: f32, listed: bool) -> RenderFrame {
    // One key per geometry: the renderer keeps one copy per key.
    let key = 20 + occlusion as u64;
    let mesh = Arc::new(quad_occluded(key, 4.0, 2.0, Surface::Opaque, occlusion));
    let (sky_gate, fill) = VoxelLightWindow::tables(0.5, [255, 255, 255]);
    let cell = (sky << 12) | (block << 8) | (block << 4) | block;
    RenderFrame {
        materials: vec![material(Shading::Lit, Vec3::new(0.8, 0.8, 0.8))],
        meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
        lighting: Lighting {
            sun_radiance: Vec3::splat(0.0),
            ambient: Ambient::Hemisphere {
                sky: Vec3::splat(0.5),
                ground: Vec3::splat(0.5),
            },
            sky: None,
            ..Lighting::default()
        },
        post: plain_post(),
        voxel_light: Some(VoxelLightWindow {
            world_to_light: at(Vec3::new(8.0, 8.0, 13.0)),
            origin: [0, 0, 0],
            bricks: [1, 1, 1],
            cells: vec![cell; 4096],
            brick_versions: Vec::new(),
            upload_kb: dh_gpu::render::light_window::DEFAULT_LIGHT_UPLOAD_KB,
            sky_gate,
            fill,
            occlusion_step: 0.2,
            block_light_intensity: 1.0,
            edge_fade: 2.0,
            lit_instances: if listed { vec![0] } else { vec![] },
        }),
        ..RenderFrame::default()
    }
}

#[test]
fn hybrid_shading_gates_the_ambient_by_sky_light() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let view = ortho(1.0);
        let mut shot = |f: &RenderFrame| shoot(&mut r, f, &view, 64, 32);
        // Albedo 0.8 under an ambient of 0.5, no sun: 0.4 where the sky is open.
        let open = shot(&lit_quad(15, 0, 0.0, true));
        close(px(&open, 32, 16), [srgb_byte(0.4); 3], 1, "sky 15");
        // A sealed cave: the ambient is gone.
        let cave = shot(&lit_quad(0, 0, 0.0, true));
        close(px(&cave, 32, 16), [0; 3], 0, "sky 0");
        // An instance the field does not shade keeps the plain ambient.
        let outside = shot(&lit_quad(0, 0, 0.0, false));
        close(px(&outside, 32, 16), [srgb_byte(0.4); 3], 1, "not listed");
        // Sky 7 at brightness 0.5: the ambient times the curve.
        let dim = shot(&lit_quad(7, 0, 0.0, true));
        let want = srgb_byte(0.4 * curve(7, 0.5));
        close(px(&dim, 32, 16), [want; 3], 1, "sky 7");
        // Three hiding cells at every corner: the ambient keeps 1 − 3 × 0.2.
        let tucked = shot(&lit_quad(15, 0, 3.0, true));
        close(
            px(&tucked, 32, 16),
            [srgb_byte(0.4 * 0.4); 3],
            1,
            "occluded",
        );
        // The smooth corner rule: sky 3 in the cells x ≤ 7, 15 from x = 8. In the front
        // cell x = 8 the two corners toward x = 7 average (15 + 3 + 15 + 3) / 4 = 9 and the
        // two away from it 15, so along the face the level runs 9 + 6u. Pixel 39's center
        // is world x (39.5 − 32) / 16, light x 8 + that.
        let mut edge = lit_quad(15, 0, 0.0, true);
        if let Some(w) = edge.voxel_light.as_mut() {
            for (i, c) in w.cells.iter_mut().enumerate() {
                if i % 16 <= 7 {
                    *c = 3 << 12;
                }
            }
        }
        let ramp = shot(&edge);
        let u = (39.5 - 32.0) / 16.0;
        let level = 9.0 + 6.0 * u;
        let (lo, t) = (level as u8, level - f64::from(level as u8));
        let gate = curve(lo, 0.5) * (1.0 - t) + curve(lo + 1, 0.5) * t;
        close(
            px(&ramp, 39, 16),
            [srgb_byte(0.4 * gate); 3],
            1,
            "corner ramp",
        );
        // Deep in the dim cells (x = 6, all neighbors 3): level 3.
        close(
            px(&ramp, 1, 16),
            [srgb_byte(0.4 * curve(3, 0.5)); 3],
            1,
            "dim cell",
        );
        // Block light 15 in a cave, white tint, gain 1: the fill is the albedo.
        let torch = shot(&lit_quad(0, 15, 0.0, true));
        close(px(&torch, 32, 16), [srgb_byte(0.8); 3], 1, "block 15");
    }
    testing::finish(gpu);
}

/// The cave of [`lit_quad`] (sky 0, no block light) in a window of 4 × 2 × 4 = 32 bricks,
/// `upload_kb` KiB a frame.
fn cave_window(upload_kb: u32) -> RenderFrame {
    let mut f = lit_quad(0, 0, 0.0, true);
    if let Some(w) = f.voxel_light.as_mut() {
        w.bricks = [4, 2, 4];
        w.cells = vec![0; 32 * 4096];
        w.upload_kb = upload_kb;
    }
    f
}

#[test]
fn the_light_window_stays_resident_and_writes_only_changed_bricks() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let view = ortho(1.0);
        // 16 KiB a frame at 8 KiB a brick: 2 bricks a frame, so 32 bricks take 16 frames.
        let mut frame = cave_window(16);
        for n in 1..=16usize {
            let rep = r
                .render_frame(&frame, &view, 64, 32, &ScopedThreads)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rep.light_bricks_written, 2, "frame {n}");
            assert_eq!(rep.light_bricks_pending, 32 - 2 * n, "frame {n}");
        }
        // Resident and unchanged: nothing written.
        let rep = r
            .render_frame(&frame, &view, 64, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((rep.light_bricks_written, rep.light_bricks_pending), (0, 0));
        // One cell of brick 5 changes: exactly that brick is written.
        if let Some(w) = frame.voxel_light.as_mut() {
            w.cells[5 * 4096 + 100] = 15 << 12;
        }
        let rep = r
            .render_frame(&frame, &view, 64, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((rep.light_bricks_written, rep.light_bricks_pending), (1, 0));
        // Versions the engine supplies replace the content hashes: new versions for every
        // brick make all 32 changed again though no cell did (2 written, 30 left), and
        // keeping them (the frames after) writes only what is left.
        if let Some(w) = frame.voxel_light.as_mut() {
            w.brick_versions = (0..32).collect();
        }
        let rep = r
            .render_frame(&frame, &view, 64, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (rep.light_bricks_written, rep.light_bricks_pending),
            (2, 30)
        );
        let rep = r
            .render_frame(&frame, &view, 64, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (rep.light_bricks_written, rep.light_bricks_pending),
            (2, 28)
        );
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    {
        // A capture writes everything before its shot, whatever the budget: the quad in the
        // sealed cave is black (the ambient 0.4 without the field), and the next frame has
        // nothing left to write.
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let view = ortho(1.0);
        let frame = cave_window(16);
        let img = shoot(&mut r, &frame, &view, 64, 32);
        close(px(&img, 32, 16), [0; 3], 0, "captured cave");
        let rep = r
            .render_frame(&frame, &view, 64, 32, &ScopedThreads)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((rep.light_bricks_written, rep.light_bricks_pending), (0, 0));
        r.finish().unwrap_or_else(|e| panic!("{e}"));
    }
    testing::finish(gpu);
}

/// A texture of `edge`² texels of `top` with its full chain below, every level `below`.
fn chained(edge: u32, top: [u8; 4], below: [u8; 4]) -> Arc<Texture> {
    let levels = dh_content::mips::level_count(edge, edge);
    Arc::new(Texture {
        width: edge,
        height: edge,
        rgba: top.repeat((edge * edge) as usize),
        mips: (1..levels)
            .map(|l| {
                let (w, h) = dh_content::mips::level_size(edge, edge, l);
                below.repeat((w * h) as usize)
            })
            .collect(),
    })
}

/// The block atlas's sampler (`Sampling::NearestMipLinear`): point within a level, so a
/// magnified red/green checker shows pure texels where bilinear would blend (1.5 px from a
/// texel edge of 8 px, bilinear gives 0.31 of the neighbour); linear between levels, so a
/// 64-texel texture drawn over 45 px (LOD 0.5) mixes its red top with its green level 1;
/// with `client.display.mipmaps` off the top level alone.
#[test]
fn block_atlas_sampling_is_point_within_and_linear_between_levels() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let (red, green) = ([255, 0, 0, 255], [0, 255, 0, 255]);
        let checker: Vec<[u8; 4]> = (0..16)
            .map(|i| if (i % 4 + i / 4) % 2 == 0 { red } else { green })
            .collect();
        let unlit = |t: Arc<Texture>, sampling| Material {
            shading: Shading::Unlit,
            base_color_texture: Some(t),
            sampling,
            ..Material::flat_white()
        };
        let mesh = Arc::new(quad(91, 2.0, 2.0, Surface::Opaque));
        let near = RenderFrame {
            materials: vec![unlit(texture(4, &checker), Sampling::NearestMipLinear)],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        // 16 px a meter: the quad spans px 16 to 48, a texel 8 px.
        let img = shoot(&mut r, &near, &ortho(2.0), 64, 64);
        close(
            px(&img, 22, 20),
            [255, 0, 0],
            0,
            "texel 0 near its right edge",
        );
        close(
            px(&img, 25, 20),
            [0, 255, 0],
            0,
            "texel 1 near its left edge",
        );
        let far_mesh = Arc::new(quad(92, 2.828_427, 2.828_427, Surface::Opaque));
        let far = |sampling, mipmaps| RenderFrame {
            materials: vec![unlit(chained(64, red, green), sampling)],
            meshes: vec![instance(&far_mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            mipmaps,
            ..RenderFrame::default()
        };
        use dh_gpu::render::frame::Mipmaps;
        let mixed = px(
            &shoot(
                &mut r,
                &far(Sampling::NearestMipLinear, Mipmaps::On),
                &ortho(2.0),
                64,
                64,
            ),
            32,
            32,
        );
        // Half and half in linear light is sRGB 188 each; the LOD a rasterizer computes
        // may stray, so both levels must show, neither alone.
        assert!(
            mixed[0] > 100 && mixed[1] > 100,
            "between levels: {mixed:?}"
        );
        let top = px(
            &shoot(
                &mut r,
                &far(Sampling::NearestMipLinear, Mipmaps::Off),
                &ortho(2.0),
                64,
                64,
            ),
            32,
            32,
        );
        close(top, [255, 0, 0], 0, "mipmaps off: the top level");
    }
    testing::finish(gpu);
}

/// A glow texture adds its color times its gain over the lighting: in the dark a lit white
/// quad is black but for its glow, whose left texels (sRGB 188, linear 0.5) at a gain of
/// 1.5 draw linear 0.75 and whose right texels (black) draw nothing. A translucent face's
/// alpha past 1 (translucentCoverage) is clamped after the texel's: red 0.5 over blue 0.5
/// at alpha 1.2 × texel 1 is red 0.5 (not 0.6), and × texel 0.5 (128) is 0.6·red + 0.4·blue.
#[test]
fn a_glow_texture_adds_over_the_lighting_and_coverage_clamps() {
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let half = [188, 188, 188, 255];
        let black = [0, 0, 0, 255];
        let glow = texture(2, &[half, black, half, black]);
        let lit = Material {
            base_color_texture: Some(texture(1, &[[255, 255, 255, 255]])),
            sampling: Sampling::NearestMipLinear,
            emissive_texture: Some(dh_gpu::render::frame::EmissiveTexture {
                texture: glow,
                intensity: 1.5,
            }),
            ..material(Shading::Lit, Vec3::ONE)
        };
        let mesh = Arc::new(quad(93, 2.0, 2.0, Surface::Opaque));
        let frame = RenderFrame {
            materials: vec![lit],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        // Drawn once for the uploads to land, then read.
        let _ = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        let img = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        let v = srgb_byte(0.5 * 1.5);
        close(px(&img, 20, 32), [v, v, v], 2, "glowing texel");
        close(px(&img, 44, 32), [0, 0, 0], 0, "dark texel");

        let blue_bg = Arc::new(quad(94, 4.0, 4.0, Surface::Opaque));
        let glass = Arc::new(quad(95, 2.0, 2.0, Surface::Translucent));
        let clear = [255, 255, 255, 128];
        let frame = RenderFrame {
            materials: vec![
                material(Shading::Unlit, Vec3::new(0.0, 0.0, 0.5)),
                Material {
                    alpha: 1.2,
                    base_color_texture: Some(texture(2, &[[255; 4], clear, [255; 4], clear])),
                    sampling: Sampling::Nearest,
                    ..material(Shading::Unlit, Vec3::new(0.5, 0.0, 0.0))
                },
            ],
            meshes: vec![
                instance(&blue_bg, at(Vec3::new(0.0, 0.0, -8.0)), 0),
                instance(&glass, at(Vec3::new(0.0, 0.0, -5.0)), 1),
            ],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        let _ = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        let img = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        close(
            px(&img, 20, 32),
            [srgb_byte(0.5), 0, 0],
            2,
            "alpha 1.2 clamped",
        );
        let a = 1.2 * 128.0 / 255.0;
        close(
            px(&img, 44, 32),
            [srgb_byte(0.5 * a), 0, srgb_byte(0.5 * (1.0 - a))],
            2,
            "alpha 1.2 × 0.5",
        );
    }
    testing::finish(gpu);
}

/// A tile write lands over its rect and nothing else: a 4x4 red texture drawn over a 2 m
/// quad (8 px a texel), then a write of green over its left two columns and blue over its
/// bottom-right texel; the next frame shows them, the frame after with no write keeps
/// them, and an inconsistent write (its bytes one short) is refused whole.
#[test]
fn a_tile_write_lands_inline_over_its_rect() {
    use dh_gpu::render::frame::{TileRect, TileWrite};
    let gpu = testing::test_gpu();
    {
        let mut r = Renderer::new(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let red = [255, 0, 0, 255];
        let atlas = texture(4, &[red; 16]);
        let mesh = Arc::new(quad(96, 2.0, 2.0, Surface::Opaque));
        let mut frame = RenderFrame {
            materials: vec![Material {
                shading: Shading::Unlit,
                base_color_texture: Some(Arc::clone(&atlas)),
                sampling: Sampling::Nearest,
                ..Material::flat_white()
            }],
            meshes: vec![instance(&mesh, at(Vec3::new(0.0, 0.0, -5.0)), 0)],
            lighting: dark(),
            post: plain_post(),
            ..RenderFrame::default()
        };
        let before = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        close(px(&before, 20, 20), [255, 0, 0], 0, "before");
        let rect = |x, y, width, height| TileRect {
            level: 0,
            x,
            y,
            width,
            height,
        };
        let mut bytes = [0u8, 255, 0, 255].repeat(8);
        bytes.extend_from_slice(&[0, 0, 255, 255]);
        frame.tile_writes = vec![TileWrite {
            texture: Arc::clone(&atlas),
            rects: vec![rect(0, 0, 2, 4), rect(3, 3, 1, 1)],
            bytes,
        }];
        let after = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        // Texel (i, j) covers px 16 + 8i .. 24 + 8i across, the same down.
        close(px(&after, 20, 20), [0, 255, 0], 0, "texel (0, 0)");
        close(px(&after, 28, 44), [0, 255, 0], 0, "texel (1, 3)");
        close(px(&after, 36, 20), [255, 0, 0], 0, "texel (2, 0) untouched");
        close(px(&after, 44, 44), [0, 0, 255], 0, "texel (3, 3)");
        close(px(&after, 36, 44), [255, 0, 0], 0, "texel (2, 3) untouched");
        frame.tile_writes.clear();
        let kept = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        assert_eq!(
            kept.pixels, after.pixels,
            "a write stays without being sent again"
        );
        frame.tile_writes = vec![TileWrite {
            texture: Arc::clone(&atlas),
            rects: vec![rect(2, 0, 2, 1)],
            bytes: vec![255; 15],
        }];
        let refused = shoot(&mut r, &frame, &ortho(2.0), 64, 64);
        assert_eq!(refused.pixels, after.pixels, "a short write is refused");
    }
    testing::finish(gpu);
}
