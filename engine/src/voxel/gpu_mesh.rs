//! What a streamed region hands the renderer (spec runtime assets, "Voxel volumes";
//! `dh.voxel`, "How the engine draws it", "Textures, transparency and tint").
//!
//! * [`region_asset`] turns a [`RegionMesh`] into one [`MeshAsset`]: its three surfaces'
//!   vertex streams back to back in one packed buffer, one [`SubMesh`] per non-empty
//!   surface (opaque, cutout, translucent, slot 0: the volume's palette atlas), and the
//!   faces of cells nothing names a look for split out of the opaque surface into one
//!   more opaque sub-mesh on slot 1, which draws the engine's missingMaterial checker.
//! * [`atlas_material`] is the per-volume palette atlas as a [`Material`]: the atlas
//!   texels as its base color texture, sampled nearest (one texel per color);
//!   [`looks_material`] the block atlas with its mip chain and glow levels where model
//!   faces laid tiles.

use std::collections::HashSet;
use std::sync::Arc;

use dh_gpu::render::frame::{
    EmissiveTexture, Material, MeshAsset, Sampling, Shading, SubMesh, Surface as GpuSurface,
    Texture,
};

use super::cell::Surface;
use super::looks::{PaletteAtlas, VoxelLooks};
use super::mesh::{RegionMesh, SurfaceMesh};

/// The material slot a region's atlas-colored sub-meshes draw with.
pub const SLOT_ATLAS: u32 = 0;
/// The material slot a region's unresolved faces draw with (the missingMaterial).
pub const SLOT_MISSING: u32 = 1;

/// The UV0s of every look that wears the unresolved checker (each such look's atlas
/// texel center), as f32 bit patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnresolvedUvs(HashSet<[u32; 2]>);

impl UnresolvedUvs {
    /// The UV0s of `looks`' unresolved entries (the trailing unresolved look included), in
    /// either leaf mode (the atlas is shared).
    pub fn of(looks: &VoxelLooks) -> UnresolvedUvs {
        UnresolvedUvs(
            looks
                .cells(true)
                .iter()
                .chain(looks.cells(false))
                .filter(|c| c.unresolved)
                .map(|c| c.uv0.map(f32::to_bits))
                .collect(),
        )
    }

    /// Whether a face with this UV0 wears the checker.
    pub fn contains(&self, uv0: [f32; 2]) -> bool {
        self.0.contains(&uv0.map(f32::to_bits))
    }
}

fn gpu_surface(s: Surface) -> GpuSurface {
    match s {
        Surface::Opaque => GpuSurface::Opaque,
        Surface::Cutout => GpuSurface::Cutout,
        Surface::Translucent => GpuSurface::Translucent,
    }
}

/// Appends quads `quads` of `from` (quad indices) to `to`, with their vertices, and
/// returns how many indices were written.
fn append_quads(to: &mut SurfaceMesh, from: &SurfaceMesh, quads: &[usize]) -> u32 {
    let mut written = 0;
    for &q in quads {
        let Some(ix) = from.indices.get(q * 6..q * 6 + 6) else {
            continue;
        };
        // A quad's six indices name its four vertices; copy each once, in first-use order.
        let mut map: [(u32, u32); 4] = [(u32::MAX, 0); 4];
        let mut n = 0;
        let mut out = [0u32; 6];
        for (k, &i) in ix.iter().enumerate() {
            let found = map[..n].iter().find(|(src, _)| *src == i).map(|&(_, d)| d);
            let d = match found {
                Some(d) => d,
                None => {
                    let (Some(p), Some(b), Some(a)) = (
                        from.positions.get(i as usize),
                        from.basis.get(i as usize),
                        from.attributes.get(i as usize),
                    ) else {
                        continue;
                    };
                    let d = to.positions.len() as u32;
                    to.positions.push(*p);
                    to.basis.push(*b);
                    to.attributes.push(*a);
                    if n < 4 {
                        map[n] = (i, d);
                        n += 1;
                    }
                    d
                }
            };
            out[k] = d;
        }
        to.indices.extend_from_slice(&out);
        written += 6;
    }
    written
}

/// Appends a whole surface to `to` (vertices and indices rebased) and returns the
/// indices written.
fn append_all(to: &mut SurfaceMesh, from: &SurfaceMesh) -> u32 {
    let base = to.positions.len() as u32;
    to.positions.extend_from_slice(&from.positions);
    to.basis.extend_from_slice(&from.basis);
    to.attributes.extend_from_slice(&from.attributes);
    to.indices.extend(from.indices.iter().map(|&i| i + base));
    from.indices.len() as u32
}

/// One region's mesh as the renderer takes it, keyed `key`; `None` when it draws
/// nothing. Positions are already in world meters (the mesher applied the placement), so
/// its instance draws at the identity. Sub-meshes: opaque, cutout and translucent on
/// [`SLOT_ATLAS`], in that order, each only when it has faces, then the unresolved faces
/// (taken out of the opaque surface) on [`SLOT_MISSING`].
pub fn region_asset(mesh: &RegionMesh, unresolved: &UnresolvedUvs, key: u64) -> Option<MeshAsset> {
    if mesh.is_empty() {
        return None;
    }
    let mut all = SurfaceMesh::default();
    let mut submeshes = Vec::new();
    let opaque = mesh.surface(Surface::Opaque);
    let (mut checker, mut colored) = (Vec::new(), Vec::new());
    for q in 0..opaque.quad_count() {
        let uv0 = opaque
            .indices
            .get(q * 6)
            .and_then(|&i| opaque.attributes.get(i as usize))
            .map_or([0.0; 2], |a| [a[0], a[1]]);
        if unresolved.contains(uv0) {
            checker.push(q);
        } else {
            colored.push(q);
        }
    }
    let mut push = |count: u32, first: u32, slot: u32, s: GpuSurface| {
        if count > 0 {
            submeshes.push(SubMesh {
                first_index: first,
                index_count: count,
                slot,
                surface: s,
            });
        }
    };
    let first = all.indices.len() as u32;
    let n = if checker.is_empty() {
        append_all(&mut all, opaque)
    } else {
        append_quads(&mut all, opaque, &colored)
    };
    push(n, first, SLOT_ATLAS, GpuSurface::Opaque);
    for s in [Surface::Cutout, Surface::Translucent] {
        let first = all.indices.len() as u32;
        let n = append_all(&mut all, mesh.surface(s));
        push(n, first, SLOT_ATLAS, gpu_surface(s));
    }
    let first = all.indices.len() as u32;
    let n = append_quads(&mut all, opaque, &checker);
    push(n, first, SLOT_MISSING, GpuSurface::Opaque);
    // Per axis with f32::min / max, as the box always was (glam's min / max compare).
    let mut lo = glam::Vec3::INFINITY;
    let mut hi = glam::Vec3::NEG_INFINITY;
    for p in &all.positions {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let packed = all.pack();
    Some(MeshAsset {
        key,
        packed,
        indices: std::mem::take(&mut all.indices),
        submeshes,
        bounds: (lo, hi),
    })
}

/// The palette atlas as a texture: RGBA8 sRGB, rows top to bottom.
pub fn atlas_texture(atlas: &PaletteAtlas) -> Texture {
    let mut rgba = Vec::with_capacity(atlas.texels.len() * 4);
    for t in &atlas.texels {
        rgba.extend_from_slice(t);
    }
    Texture {
        width: atlas.width as u32,
        height: atlas.height as u32,
        rgba,
        // Spec 004:376: "The palette colors need no reduction: a built-in cube samples one
        // texel at a fixed UV and always reads the top level."
        mips: Vec::new(),
    }
}

/// A volume's material: lit, white, its palette atlas as the base color texture sampled
/// nearest (UV0 points at one texel's center).
pub fn atlas_material(atlas: &PaletteAtlas) -> Material {
    Material {
        shading: Shading::Lit,
        base_color: glam::Vec3::ONE,
        uv_scale: [1.0, 1.0],
        emissive: glam::Vec3::ZERO,
        base_color_texture: Some(Arc::new(atlas_texture(atlas))),
        sampling: Sampling::Nearest,
        alpha: 1.0,
        detail: None,
        emissive_texture: None,
    }
}

/// A volume's atlas material. A palette-only volume's is [`atlas_material`]. One whose
/// model faces laid tiles below the palette (spec 004 "Textures, transparency and tint")
/// takes the block atlas with its whole mip chain, sampled point within a level and
/// linear between levels ([`Sampling::NearestMipLinear`]; the palette colours sit at
/// fixed UVs and read the top level), and, where a tile glows (its block's
/// `lightEmission`), the glow levels laid out in the same places as its emissive texture
/// at `emissive_intensity` (`client.voxel.emissiveIntensity`), each glowing tile floored
/// by `emissive_floor` (`client.voxel.emissiveFloor`).
pub fn looks_material(
    looks: &VoxelLooks,
    emissive_intensity: f32,
    emissive_floor: f32,
) -> Material {
    let tiles = looks.block_tiles();
    let Some(img) = tiles.lay_out(looks.atlas()) else {
        return atlas_material(looks.atlas());
    };
    let emissive_texture = tiles.lay_out_glow(emissive_floor).map(|g| EmissiveTexture {
        texture: Arc::new(g.into_texture()),
        intensity: emissive_intensity,
    });
    Material {
        shading: Shading::Lit,
        base_color: glam::Vec3::ONE,
        uv_scale: [1.0, 1.0],
        emissive: glam::Vec3::ZERO,
        base_color_texture: Some(Arc::new(img.into_texture())),
        sampling: Sampling::NearestMipLinear,
        alpha: 1.0,
        detail: None,
        emissive_texture,
    }
}

/// A volume's two material slots: [`SLOT_ATLAS`] its atlas ([`looks_material`]),
/// [`SLOT_MISSING`] the missingMaterial checker.
pub fn volume_materials(
    looks: &VoxelLooks,
    emissive_intensity: f32,
    emissive_floor: f32,
) -> [Material; 2] {
    [
        looks_material(looks, emissive_intensity, emissive_floor),
        Material::missing(),
    ]
}
