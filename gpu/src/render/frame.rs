//! [`RenderFrame`]: everything one frame draws, as plain data. The engine extracts it from
//! its simulation world and resolved settings; the renderer never reads the ECS.

use std::sync::Arc;

use dh_content::mesh::PackedMesh;

use glam::{Mat4, Quat, Vec3};

use super::math;

use super::tonemap::{Hable, Tonemap};

/// How a material shades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shading {
    /// Sun, lights and ambient.
    #[default]
    Lit,
    /// Its color as is.
    Unlit,
    /// The engine's missingMaterial: a glowing red checkerboard, never an authored look.
    Missing,
}

/// An RGBA8 texture in sRGB, decoded, with the levels of its mip chain below the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom.
    pub rgba: Vec<u8>,
    /// Levels 1 to the last of its mip chain ([`dh_content::mips::generate_chain`]), each
    /// half the one above on each edge, rounded down, never below 1, rows top to bottom;
    /// empty for a texture drawn from its top level alone. The renderer uploads them
    /// level by level into an image of [`Texture::level_count`] levels; a chain that is not
    /// the full one for the size is refused there.
    pub mips: Vec<Vec<u8>>,
}

impl Texture {
    /// The widest or tallest texture taken (the renderer's limit too).
    pub const MAX_EDGE: u32 = dh_content::texture::MAX_EDGE;

    /// Decodes a PNG or a JPEG ([`dh_content::texture::decode`]: any PNG colour type and
    /// depth, baseline or progressive JPEG) into RGBA8 texels, read as sRGB. Each edge is
    /// checked against [`Texture::MAX_EDGE`] before any texel is allocated; `path` names
    /// the file when the bytes are neither format.
    pub fn decode(path: &str, bytes: &[u8]) -> Result<Texture, dh_content::texture::ImageError> {
        let img = dh_content::texture::decode(path, bytes)?;
        Ok(Texture {
            width: img.width,
            height: img.height,
            rgba: img.rgba,
            mips: Vec::new(),
        })
    }

    /// Levels in the texture: 1 and its mip chain's.
    pub fn level_count(&self) -> u32 {
        1 + self.mips.len() as u32
    }

    /// The size and texels of level `level` (0 the top), `None` past the last.
    pub fn level(&self, level: u32) -> Option<(u32, u32, &[u8])> {
        let bytes = match level {
            0 => &self.rgba,
            l => self.mips.get(l as usize - 1)?,
        };
        let (w, h) = dh_content::mips::level_size(self.width, self.height, level);
        Some((w, h, bytes))
    }
}

/// A material, resolved: colors linear, emission premultiplied by its intensity.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Lit, unlit or missing.
    pub shading: Shading,
    /// The tint, linear.
    pub base_color: Vec3,
    /// UV0 multiplier.
    pub uv_scale: [f32; 2],
    /// Emissive color × intensity, linear.
    pub emissive: Vec3,
    /// The base color texture, when it has one.
    pub base_color_texture: Option<std::sync::Arc<Texture>>,
    /// How the base color texture is filtered.
    pub sampling: Sampling,
    /// The base color's alpha, multiplied by the texture's: a [`Surface::Cutout`] sub-mesh
    /// keeps the texels where the product reaches 0.5, a [`Surface::Translucent`] one blends
    /// by it; opaque surfaces ignore it. 1 unless a material says otherwise. Past 1 it is a
    /// gain on the texture's coverage (a voxel volume's blended faces carry
    /// `client.voxel.translucentCoverage`, spec 004:374): the product is clamped to 1, so a
    /// clear texel stays clear.
    pub alpha: f32,
    /// The detail layer (`dh.material` `detail`), when the material has one.
    pub detail: Option<DetailLayer>,
    /// A glow texture added over the lighting, when the material has one (a voxel
    /// volume's glow levels, spec 004 "Light").
    pub emissive_texture: Option<EmissiveTexture>,
}

/// A material's glow texture (spec 004 "Light": "a second texture of glow levels, laid out
/// exactly like" the atlas): sampled at the same UV and with the same sampler as the base
/// color texture, its linear color times `intensity` (`client.voxel.emissiveIntensity`) is
/// added over the lighting, lit or unlit, after the base color's alpha is decided (so a
/// cut-out texel stays cut out). Its mip chain follows the same rules as the base color's.
#[derive(Debug, Clone, PartialEq)]
pub struct EmissiveTexture {
    /// The glow levels, RGBA8 sRGB (alpha unread).
    pub texture: Arc<Texture>,
    /// The gain on its color.
    pub intensity: f32,
}

/// A material's detail layer (`dh.material` `detail`): a second color painted over the
/// base color (tint × texture), weighted per vertex by one channel of the mesh's COLOR_1
/// (spec 001, "Vertex colors": COLOR_1 is "the layer weights a material's
/// `detail.vertexWeight` reads one channel of"; without it the weight is zero). The
/// painted base color is `mix(base, color.rgb, weight × color.a)`; COLOR_0 then multiplies
/// it, lit or unlit alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetailLayer {
    /// The COLOR_1 channel that weights the layer: 0 red, 1 green, 2 blue, 3 alpha.
    pub channel: u8,
    /// The layer's color, linear; its alpha scales the weight.
    pub color: glam::Vec4,
}

/// Whether authored textures are sampled through their mip chains
/// (`client.display.mipmaps`, spec 004:376: it "turns the chain off with every other
/// texture's").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mipmaps {
    /// Trilinear: linear within a level and between levels, down the whole chain.
    #[default]
    On,
    /// The top level alone, bilinear (the sampler's maxLod is 0).
    Off,
}

/// How a material's base color texture is filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sampling {
    /// Bilinear, repeating: authored textures.
    #[default]
    Linear,
    /// Nearest texel, clamped: a voxel volume's palette atlas (one texel per color).
    Nearest,
    /// Point within a level and linear between levels, clamped, down the whole chain:
    /// Minecraft's own block sampling, for a voxel volume's block atlas (spec 004:376:
    /// "crisp texels up close, no hard line where one level hands over to the next").
    /// With [`Mipmaps::Off`] the top level alone, point-sampled.
    NearestMipLinear,
}

impl Default for Material {
    /// Flat white, lit: what an unbound model slot draws.
    fn default() -> Material {
        Material::flat_white()
    }
}

impl Material {
    /// Flat white, lit: what a model slot no material is bound to draws.
    pub fn flat_white() -> Material {
        Material {
            shading: Shading::Lit,
            base_color: Vec3::new(1.0, 1.0, 1.0),
            uv_scale: [1.0, 1.0],
            emissive: Vec3::ZERO,
            base_color_texture: None,
            sampling: Sampling::Linear,
            alpha: 1.0,
            detail: None,
            emissive_texture: None,
        }
    }

    /// The missingMaterial.
    pub fn missing() -> Material {
        Material {
            shading: Shading::Missing,
            base_color: Vec3::new(1.0, 0.0, 0.0),
            uv_scale: [1.0, 1.0],
            emissive: Vec3::ZERO,
            base_color_texture: None,
            sampling: Sampling::Linear,
            alpha: 1.0,
            detail: None,
            emissive_texture: None,
        }
    }
}

/// Which pass a sub-mesh draws in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Surface {
    /// Opaque: depth prepass, shadows, the opaque pass.
    #[default]
    Opaque,
    /// Alpha-tested against its base color's alpha (0.5): casts cut-out shadows.
    Cutout,
    /// Blended over what is behind it, sorted back to front by instance; casts no shadow,
    /// writes no depth.
    Translucent,
}

/// One sub-mesh: an index range drawn with one material slot in one surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubMesh {
    /// First index in [`MeshAsset::indices`].
    pub first_index: u32,
    /// Indices (a multiple of 3).
    pub index_count: u32,
    /// The material slot: an index into [`MeshInstance::materials`].
    pub slot: u32,
    /// The pass it draws in.
    pub surface: Surface,
}

/// Geometry in the GPU streams' layout (the 72-byte MeshVertex packed by
/// [`dh_content::mesh::pack_streams`]), shared by every instance that draws it. The renderer
/// keeps one resident copy per [`MeshAsset::key`], uploads it under the per-frame budget the
/// first frame an instance names it, and frees it once no instance has named it for the
/// frames in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshAsset {
    /// Identity for the renderer's cache: two assets with one key must hold the same bytes.
    pub key: u64,
    /// The vertex streams.
    pub packed: PackedMesh,
    /// The triangle list, 32-bit, indexing the streams' vertices.
    pub indices: Vec<u32>,
    /// Its sub-meshes.
    pub submeshes: Vec<SubMesh>,
    /// Local-space axis-aligned bounds `(min, max)`.
    pub bounds: (Vec3, Vec3),
}

impl MeshAsset {
    /// GPU bytes its buffers take (streams and indices).
    pub fn byte_size(&self) -> usize {
        self.packed.bytes.len() + self.indices.len() * 4
    }
}

/// The axis-aligned bounds of the box `(lo, hi)` carried by `world`: its eight corners
/// transformed.
pub fn transform_bounds(world: &Mat4, (lo, hi): (Vec3, Vec3)) -> (Vec3, Vec3) {
    let mut out_lo = Vec3::INFINITY;
    let mut out_hi = Vec3::NEG_INFINITY;
    for corner in 0..8 {
        let local = Vec3::new(
            if corner & 1 == 0 { lo[0] } else { hi[0] },
            if corner & 2 == 0 { lo[1] } else { hi[1] },
            if corner & 4 == 0 { lo[2] } else { hi[2] },
        );
        let p = math::transform_point(world, local);
        for k in 0..3 {
            out_lo[k] = out_lo[k].min(p[k]);
            out_hi[k] = out_hi[k].max(p[k]);
        }
    }
    (out_lo, out_hi)
}

/// One placement of a [`MeshAsset`].
#[derive(Debug, Clone, PartialEq)]
pub struct MeshInstance {
    /// The geometry.
    pub mesh: Arc<MeshAsset>,
    /// Local to world (column-major, may carry scale; a mirroring matrix is drawn with its
    /// winding flipped).
    pub world: Mat4,
    /// Per slot, an index into [`RenderFrame::materials`]; a slot past the end draws
    /// [`Material::flat_white`].
    pub materials: Vec<u32>,
    /// Whether it casts shadows.
    pub casts_shadows: bool,
}

impl MeshInstance {
    /// Its world-space axis-aligned bounds: the mesh's local bounds carried by `world`.
    pub fn world_bounds(&self) -> (Vec3, Vec3) {
        transform_bounds(&self.world, self.mesh.bounds)
    }

    /// Whether `world` mirrors (a negative determinant): drawn with its winding flipped.
    pub fn is_mirrored(&self) -> bool {
        math::determinant3(&self.world) < 0.0
    }
}

/// Cells along a light brick's edge.
pub const LIGHT_BRICK: u32 = 16;
/// Cells in a light brick.
pub const LIGHT_BRICK_CELLS: usize = 4096;
/// Light levels (0 to 15).
pub const LIGHT_LEVELS: usize = 16;

/// Minecraft's light curve at its brightness slider (`client.voxel.lightBrightness`, 0 to
/// 1): `c = v / (4 − 3v)` for `v = level / 15`, lifted toward `1 − (1 − c)⁴` by the
/// brightness. Level 0 is 0 and level 15 is 1 at any brightness.
pub fn light_curve(level: u8, brightness: f32) -> f32 {
    let v = f32::from(level.min(15)) / 15.0;
    let c = v / (4.0 - 3.0 * v);
    let lifted = 1.0 - (1.0 - c).powi(4);
    c + (lifted - c) * brightness.clamp(0.0, 1.0)
}

/// A window of one lit voxel volume's light field for hybrid shading (spec `dh.voxel`,
/// "The light field", "Hybrid shading"), kept resident on the GPU: each frame writes its
/// header and only the bricks that changed, nearest the camera first, under
/// [`VoxelLightWindow::upload_kb`] (render/light_window.rs).
///
/// * **Space** — `world_to_light` maps a world point to light-space cell coordinates: cell
///   `(x, y, z)` is the unit cube `[x, x + 1) × [y, y + 1) × [z, z + 1)`, Y up. It should be
///   rigid (rotation and translation, one cell a unit), as a volume's placement is.
/// * **Bricks** — the window is `bricks[0] × bricks[1] × bricks[2]` bricks of 16³ cells
///   starting at cell `origin`. `cells` holds them brick after brick, x fastest, then y,
///   then z; inside a brick cell `(x, y, z)` is at `x + 16 (y + 16 z)`. A cell is 16 bits,
///   `SSSS RRRR GGGG BBBB`: sky level, then block light's red, green and blue.
/// * **Tables** — `sky_gate[level]` multiplies the ambient (and, past the last shadow
///   cascade, the sun); `fill[level]` is the block-light fill's linear color per level
///   (the tint times the curve, linearized), multiplied by `block_light_intensity`.
///   [`VoxelLightWindow::tables`] fills both from [`light_curve`].
/// * **Shading** — an instance listed in `lit_instances` reads the field at each fragment
///   through the smooth corner rule (the front cell and its edge and corner neighbors
///   averaged per face corner, a zero neighbor standing in for the front cell, a diagonal
///   behind two dark edges left out, blended across the face), gates its ambient and far
///   sun by the sky level, adds `albedo × fill` per block-light channel, and takes
///   `occlusion_step × UV2.x` off its ambient. Within `edge_fade` cells of the window's
///   edge all of it fades back to the plain lighting.
#[derive(Debug, Clone, PartialEq)]
pub struct VoxelLightWindow {
    /// World to light-space cells.
    pub world_to_light: Mat4,
    /// The light-space cell at the window's low corner.
    pub origin: [i32; 3],
    /// Bricks along x, y and z.
    pub bricks: [u32; 3],
    /// Every brick's 4096 cells, in the order above.
    pub cells: Vec<u16>,
    /// One version per brick, in the order above: the renderer keeps the window resident
    /// and writes a brick again only when its version differs from the one the GPU holds
    /// for that brick (a content hash such as
    /// [`super::light_window::brick_hash`], or a change counter). Empty, or of another
    /// length: the renderer hashes each brick's cells itself.
    pub brick_versions: Vec<u64>,
    /// `client.voxel.lightUploadKb`: KiB of bricks one frame may write, 8 KiB a brick (at
    /// least one brick a frame); a capture writes everything.
    /// [`super::light_window::DEFAULT_LIGHT_UPLOAD_KB`] is the spec's default.
    pub upload_kb: u32,
    /// The ambient's gate per sky level.
    pub sky_gate: [f32; LIGHT_LEVELS],
    /// The fill's linear color per block-light level.
    pub fill: [Vec3; LIGHT_LEVELS],
    /// `client.voxel.occlusionStep`: the ambient a face corner loses per hiding cell.
    pub occlusion_step: f32,
    /// `client.voxel.blockLightIntensity`: the gain on the fill.
    pub block_light_intensity: f32,
    /// `client.voxel.lightEdgeFade`: cells the field fades out over at the window's edge.
    pub edge_fade: f32,
    /// Indices into [`RenderFrame::meshes`] of the instances the field shades.
    pub lit_instances: Vec<u32>,
}

impl VoxelLightWindow {
    /// The sky gate and the fill per level from [`light_curve`] at `brightness`
    /// (`client.voxel.lightBrightness`) and the sRGB `tint` (`client.voxel.blockLightTint`):
    /// the gate is the curve, the fill is `linear(tint × curve)` per channel.
    pub fn tables(brightness: f32, tint: [u8; 3]) -> ([f32; LIGHT_LEVELS], [Vec3; LIGHT_LEVELS]) {
        let mut gate = [0.0; LIGHT_LEVELS];
        let mut fill = [Vec3::ZERO; LIGHT_LEVELS];
        for level in 0..LIGHT_LEVELS {
            let c = light_curve(level as u8, brightness);
            gate[level] = c;
            fill[level] = Vec3::from_array(
                tint.map(|t| super::math::srgb_to_linear(f32::from(t) / 255.0 * c)),
            );
        }
        (gate, fill)
    }

    /// Cells the window holds (`bricks` multiplied out × 4096), `None` on overflow.
    pub fn cell_count(&self) -> Option<usize> {
        self.bricks
            .iter()
            .try_fold(LIGHT_BRICK_CELLS, |n, &b| n.checked_mul(b as usize))
    }

    /// Whether `cells` holds exactly the bricks named.
    pub fn is_consistent(&self) -> bool {
        self.cell_count() == Some(self.cells.len())
    }
}

/// One box to draw: its owner's pose and its own full extents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxInstance {
    /// Center, meters.
    pub position: Vec3,
    /// Orientation, unit quaternion `[x, y, z, w]`.
    pub rotation: Quat,
    /// Full extents, meters (the box's size times its owner's scale).
    pub size: Vec3,
    /// Index into [`RenderFrame::materials`].
    pub material: u32,
}

/// A light's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LightKind {
    /// Radiates from a point.
    Point,
    /// A cone down its rotated -Y.
    Spot,
    /// Parallel rays, no distance term.
    Directional,
}

/// A light's distance curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Falloff {
    /// `(1 − (d/r)⁴)² / d²`.
    #[default]
    Physical,
    /// `(1/(1 + 25(d/r)²) − 1/26) · 26/25`.
    Unity,
}

/// A realtime light that is on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// Kind.
    pub kind: LightKind,
    /// Emission point (position plus offset), meters.
    pub position: Vec3,
    /// Unit direction the light travels (spot and directional).
    pub direction: Vec3,
    /// Linear color × intensity.
    pub radiance: Vec3,
    /// Range, meters (point and spot).
    pub range: f32,
    /// Distance curve (resolved against the world default).
    pub falloff: Falloff,
    /// Spot inner half-angle, radians.
    pub inner_cone: f32,
    /// Spot outer half-angle, radians.
    pub outer_cone: f32,
}

/// Where the ambient fill comes from, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ambient {
    /// The two-color hemisphere: sky and ground, linear, already × intensity.
    Hemisphere {
        /// From above.
        sky: Vec3,
        /// From below.
        ground: Vec3,
    },
    /// The sky's order-2 harmonics (projected by the renderer) × this intensity.
    Sky {
        /// `world.ambient.intensity`.
        intensity: f32,
    },
}

/// The procedural sky's parameters (`world.sky.*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    /// Molecular scattering density.
    pub rayleigh: f32,
    /// Aerosol density.
    pub mie: f32,
    /// The haze lobe's forward bias, [0, 1).
    pub mie_anisotropy: f32,
    /// How fast the air mass grows toward the horizon.
    pub horizon_softness: f32,
    /// Overall multiplier.
    pub intensity: f32,
    /// The disc's brightness on top of the sun's.
    pub sun_disc: f32,
    /// Linear ground albedo.
    pub ground: Vec3,
    /// The horizon's blend band.
    pub ground_blend: f32,
}

impl Default for Sky {
    fn default() -> Self {
        Sky {
            rayleigh: 1.0,
            mie: 1.0,
            mie_anisotropy: 0.76,
            horizon_softness: 0.15,
            intensity: 1.0,
            sun_disc: 30.0,
            ground: Vec3::new(0.22, 0.20, 0.18),
            ground_blend: 0.01,
        }
    }
}

/// The world's lighting, resolved (`world.sun.*`, `world.ambient.*`, `world.lighting.*`,
/// `world.sky.*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lighting {
    /// The direction sunlight travels, unit.
    pub sun_direction: Vec3,
    /// The sun's linear color × intensity.
    pub sun_radiance: Vec3,
    /// The sun disc's angular diameter, degrees.
    pub sun_angular_diameter: f32,
    /// The ambient fill.
    pub ambient: Ambient,
    /// The diffuse wrap, 0–1.
    pub half_lambert: f32,
    /// The procedural sky, when it is drawn.
    pub sky: Option<Sky>,
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            sun_direction: math::normalize_or(
                Vec3::new(-0.35, -0.85, -0.4),
                Vec3::new(0.0, -1.0, 0.0),
            ),
            sun_radiance: Vec3::ONE,
            sun_angular_diameter: 0.53,
            ambient: Ambient::Hemisphere {
                sky: Vec3::new(0.68, 0.715, 0.786).map(|c| super::math::srgb_to_linear(c) * 0.35),
                ground: Vec3::new(0.618, 0.601, 0.584)
                    .map(|c| super::math::srgb_to_linear(c) * 0.35),
            },
            half_lambert: 1.0,
            sky: None,
        }
    }
}

/// Bloom, when on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bloom {
    /// Added back with this multiplier.
    pub intensity: f32,
    /// Linear threshold on the brightest channel.
    pub threshold: f32,
    /// Knee as a fraction of the threshold.
    pub soft_knee: f32,
    /// Spread in pyramid levels, 1–10.
    pub diffusion: f32,
    /// Aspect distortion, -1–1.
    pub anamorphic: f32,
}

impl Default for Bloom {
    fn default() -> Self {
        Bloom {
            intensity: 0.30,
            threshold: 1.721,
            soft_knee: 0.5,
            diffusion: 10.0,
            anamorphic: -0.24,
        }
    }
}

/// How light resolves to the screen (`world.render.*` under `client.render.*`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Post {
    /// Linear multiplier before the curve.
    pub exposure: f32,
    /// The curve.
    pub tonemap: Tonemap,
    /// The hable curve's numbers.
    pub hable: Hable,
    /// Bloom; `None` is exactly the pre-bloom image.
    pub bloom: Option<Bloom>,
}

/// The light clusters' shape (`client.render.lightCluster*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusterConfig {
    /// Screen tiles across.
    pub columns: u32,
    /// Screen tiles down.
    pub rows: u32,
    /// Depth slices.
    pub slices: u32,
    /// Where the last slice begins, meters.
    pub far: f32,
    /// Whether lights are binned at all (off: every pixel loops every light).
    pub enabled: bool,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            columns: 16,
            rows: 8,
            slices: 8,
            far: 120.0,
            enabled: true,
        }
    }
}

/// How a view projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// A pinhole: vertical field of view, degrees.
    Perspective {
        /// Degrees.
        fov_y: f32,
    },
    /// Parallel: the view box's half height, meters.
    Orthographic {
        /// Meters.
        half_height: f32,
    },
}

/// A viewpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// The eye, meters.
    pub position: Vec3,
    /// Orientation: it looks down its rotated -Z.
    pub rotation: Quat,
    /// How it projects.
    pub projection: Projection,
    /// Near plane, meters.
    pub near: f32,
    /// Far plane, meters (`None`: infinite for a perspective view; an orthographic view
    /// always has one).
    pub far: Option<f32>,
}

/// Everything one frame draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderFrame {
    /// Materials, indexed by the boxes.
    pub materials: Vec<Material>,
    /// Boxes that never move: drawn from one batch built once.
    pub static_boxes: Vec<BoxInstance>,
    /// Boxes something carries (movers, fixtures, props): drawn at this frame's pose.
    pub live_boxes: Vec<BoxInstance>,
    /// Meshes (model parts, voxel regions), each at its own pose this frame.
    pub meshes: Vec<MeshInstance>,
    /// The skinned or morphed ones among `meshes`, with this frame's pose: each drawn from
    /// its own skinned streams ([`super::skin`]).
    pub skinned: Vec<super::skin::SkinnedMesh>,
    /// Realtime lights that are on, in author order.
    pub lights: Vec<Light>,
    /// The sun, ambient and sky.
    pub lighting: Lighting,
    /// Exposure, curve and bloom.
    pub post: Post,
    /// The clusters' shape.
    pub clusters: ClusterConfig,
    /// Increments whenever `static_boxes` or `materials` change, so the renderer rebuilds
    /// its static batch only then.
    pub static_generation: u64,
    /// The light field window hybrid shading reads (`None`: no instance reads one).
    pub voxel_light: Option<VoxelLightWindow>,
    /// Whether authored textures sample their mip chains.
    pub mipmaps: Mipmaps,
    /// Texels to write over parts of resident textures this frame (a voxel atlas's
    /// animated tiles that changed), inline in the frame's command buffer.
    pub tile_writes: Vec<TileWrite>,
}

/// One rectangle of a [`TileWrite`], in texels of its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    /// The level, 0 the top.
    pub level: u32,
    /// Left texel.
    pub x: u32,
    /// Top texel.
    pub y: u32,
    /// Texels across.
    pub width: u32,
    /// Texels down.
    pub height: u32,
}

/// New texels for parts of a texture a material samples (spec 004: an animated tile
/// "written into its block inline in the frame's command buffer, then copied over its
/// cells at every level"): `bytes` holds each rect's RGBA8 texels in turn, rows top to
/// bottom. The renderer stages them in one piece and records a buffer-to-image copy per
/// rect ahead of the frame's passes; the rest of the texture is untouched. A write for a
/// texture still uploading waits (the latest write for the same texture and rects wins)
/// and lands once the texture is resident; one for a texture no material draws is
/// dropped. A texture that is evicted and uploaded again shows its [`Texture`] texels
/// until the next write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileWrite {
    /// The texture written (the same `Arc` a material names).
    pub texture: Arc<Texture>,
    /// Where, level by level.
    pub rects: Vec<TileRect>,
    /// The texels, each rect's `width × height × 4` bytes in order.
    pub bytes: Vec<u8>,
}

impl TileWrite {
    /// Whether every rect lies inside its level of the texture and `bytes` is exactly
    /// their texels (a write that is not is refused whole).
    pub fn is_consistent(&self) -> bool {
        let mut want = 0usize;
        for r in &self.rects {
            let Some((w, h, _)) = self.texture.level(r.level) else {
                return false;
            };
            let fits = r.width > 0
                && r.height > 0
                && r.x.checked_add(r.width).is_some_and(|e| e <= w)
                && r.y.checked_add(r.height).is_some_and(|e| e <= h);
            if !fits {
                return false;
            }
            want += r.width as usize * r.height as usize * 4;
        }
        !self.rects.is_empty() && want == self.bytes.len()
    }
}

impl RenderFrame {
    /// The axis-aligned bounds of every box and mesh instance, `None` when there is none.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let mut lo = Vec3::INFINITY;
        let mut hi = Vec3::NEG_INFINITY;
        let mut any = false;
        for b in self.static_boxes.iter().chain(&self.live_boxes) {
            let h = b.size.map(|s| s.abs() * 0.5);
            for corner in 0..8 {
                let local = Vec3::new(
                    if corner & 1 == 0 { -h[0] } else { h[0] },
                    if corner & 2 == 0 { -h[1] } else { h[1] },
                    if corner & 4 == 0 { -h[2] } else { h[2] },
                );
                let p = b.position + math::rotate(b.rotation, local);
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
                any = true;
            }
        }
        for m in &self.meshes {
            let (a, b) = m.world_bounds();
            if a.is_finite() && b.is_finite() {
                for k in 0..3 {
                    lo[k] = lo[k].min(a[k]);
                    hi[k] = hi[k].max(b[k]);
                }
                any = true;
            }
        }
        any.then_some((lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn textures_decode_through_the_content_decoder() {
        let png = crate::capture::encode_png(2, 1, &[255, 0, 0, 255, 0, 0, 255, 128])
            .unwrap_or_else(|e| panic!("{e}"));
        let t = Texture::decode("a.png", &png).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((t.width, t.height), (2, 1));
        assert_eq!(t.rgba, vec![255, 0, 0, 255, 0, 0, 255, 128]);
        assert!(Texture::decode("a.png", b"not a png").is_err());
    }

    #[test]
    fn the_light_curve_is_minecrafts() {
        // v / (4 - 3v) at v = 7/15: (7/15) / (4 - 21/15) = 7 / 39.
        assert!((light_curve(7, 0.0) - 7.0 / 39.0).abs() < 1e-6);
        // Fully lifted: 1 - (32/39)^4.
        let lifted = 1.0 - (32.0f64 / 39.0).powi(4);
        assert!((f64::from(light_curve(7, 1.0)) - lifted).abs() < 1e-6);
        for b in [0.0, 0.5, 1.0] {
            assert_eq!(light_curve(0, b), 0.0);
            assert!((light_curve(15, b) - 1.0).abs() < 1e-6);
        }
        let (gate, fill) = VoxelLightWindow::tables(0.0, [255, 0, 255]);
        assert!((gate[7] - 7.0 / 39.0).abs() < 1e-6);
        assert_eq!(fill[15][1], 0.0);
        assert!((fill[15][0] - 1.0).abs() < 1e-6);
    }
}
