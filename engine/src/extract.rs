//! Extraction: the installed simulation world and the map's settings as a
//! [`dh_gpu::render::RenderFrame`] (ARCHITECTURE.md: the renderer never reads the ECS).
//!
//! * Boxes: every `dh.box` and box brush that is enabled; a box something carries (a mover
//!   above it or on it, a light's fixture, a physics prop) is live, drawn at this frame's
//!   pose, and every other box goes in the static batch.
//! * Materials: each slot's `dh.material` (tint sRGB → linear, `shader` lit/unlit, `uvScale`,
//!   emission × intensity, its `detail` layer (the COLOR_1 channel `vertexWeight` names and
//!   the layer's `tint`), and its `baseColor` PNG or JPEG decoded to sRGB texels, at most
//!   [`Texture::MAX_EDGE`] on a side, once per [`ExtractCache`]); a slot whose material cannot
//!   be read draws the missingMaterial, and a base color that cannot be read or decoded is
//!   noted and the material draws its tint alone.
//! * COLOR_1 (spec 001, "Vertex colors"): a map's geometry reads it only when a material of
//!   the map's table has a `detail.vertexWeight` ([`map_keeps_color1`], decided once at the
//!   map's first extraction, before its geometry is read); an object's parts always do.
//! * Mip chains: each decoded base color gets its full chain, reduced with the filter its
//!   material needs (`alphaMode: "mask"` keeps its coverage at `alphaCutoff`, default 0.5;
//!   every other mode the linear-light box, [`dh_content::mips`]), through the on-disk cache
//!   ([`crate::mip_cache`], persisted only while `client.cache.mipmaps` is on, read at each
//!   extraction so a change is observed at the next texture). `client.display.mipmaps` off
//!   samples the top level alone ([`Mipmaps::Off`]); the chains stay, so turning it on again
//!   needs no reload.
//! * Physics props stand where the solver carried them, turned as it turned them
//!   ([`Host::prop_pose`]).
//! * The static batch's generation is a hash of the static boxes and the materials, so the
//!   renderer rebuilds its batch only when either changes.
//! * Lights: each `dh.light` that is on and realtime or mixed, with the session's patch
//!   (`lights.set`), its falloff resolved against the world's.
//! * Settings: each `world.*` value resolves in the spec's order (000:1651-1653): for the
//!   render values, this machine's `client.render.*` counterpart when it is set; else the
//!   `world.*` value when it was set on the console or command line ([`Prefs::is_set`], not
//!   "differs from the default"); else the map's own field, else its look's, else the engine
//!   default. The `client.render.lightCluster*` preferences shape the clusters.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use dh_content::jsonc::Value;
use dh_content::schema::components::light::{Falloff as MapFalloff, LightKind as MapLightKind};
use dh_content::schema::components::view::{CameraRole, Projection as MapProjection};
use dh_content::schema::map::lighting::{AmbientMode, LightFalloff};
use dh_content::schema::map::render::{classify_look, LookRef, LookSeed, Tonemap as MapTonemap};
use dh_content::schema::map::Map;
use dh_gpu::render::frame::{
    Ambient, Bloom, BoxInstance, ClusterConfig, DetailLayer, Falloff, Light, LightKind, Lighting,
    Material, MeshInstance, Mipmaps, Post, Projection, RenderFrame, Shading, Sky, Texture, View,
};
use dh_gpu::render::math::{normalize_or, rotate, srgb_to_linear, trs};
use dh_gpu::render::tonemap::{Hable, Tonemap};
use dh_sims::{
    Body, Camera, DhBox, Disabled, Light as SimLight, ModelPart, Mover, Name, PartRenderer,
    PhysicsProp, RecordId,
};
use glam::{DVec3, Vec3};

use crate::catalog::Found;
use crate::mip_cache::MipCache;
use crate::models::ModelCache;
use dh_content::mips::MipFilter;
use dh_gpu::render::skin::SkinnedMesh;

use crate::catalog::Catalog;
use crate::host::Host;
use crate::prefs::{PrefValue, Prefs};

/// A named camera of the map, ready to shoot.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedCamera {
    /// The object's name (the shot's name).
    pub name: String,
    /// The object's id.
    pub id: String,
    /// The viewpoint.
    pub view: View,
    /// A stated `w:h` aspect (`None`: the viewport's).
    pub aspect: Option<f32>,
    /// Whether it carries `"role": "mapThumbnail"`.
    pub thumbnail: bool,
    /// Its `thumbnailSize`.
    pub thumbnail_size: [u32; 2],
}

/// What a missing material logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingMaterial {
    /// The slot's name.
    pub slot: String,
    /// Its reference (empty for a model slot the map's `materials` table has no entry for).
    pub reference: String,
    /// For a model slot: the mesh that draws it and the model's pallet (`mesh 'Cube' of
    /// dev.example:meshes/yard.glb`); empty for a slot of the table itself.
    pub mesh: String,
}

impl MissingMaterial {
    /// The console line: one per missing slot, naming the slot, the mesh and the pallet
    /// (spec: runtime assets, "Missing material").
    pub fn line(&self) -> String {
        match (self.reference.is_empty(), self.mesh.is_empty()) {
            (true, false) => format!(
                "material slot '{}' ({}) has no entry in the map's materials table; it draws the missingMaterial",
                self.slot, self.mesh
            ),
            (_, true) => format!(
                "material slot '{}' ({}) could not be read; it draws the missingMaterial",
                self.slot, self.reference
            ),
            (false, false) => format!(
                "material slot '{}' ({}, {}) could not be read; it draws the missingMaterial",
                self.slot, self.reference, self.mesh
            ),
        }
    }
}

/// The frame and the cameras.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// What to draw.
    pub frame: RenderFrame,
    /// The map's named cameras in author order.
    pub cameras: Vec<NamedCamera>,
    /// Slots drawn with the missingMaterial, one line each.
    pub missing: Vec<MissingMaterial>,
    /// Notes for the log (an unsupported look asset, ...).
    pub notes: Vec<String>,
}

fn f3(v: &Value) -> Option<DVec3> {
    let a = v.as_array()?;
    if a.len() != 3 {
        return None;
    }
    Some(DVec3::new(a[0].as_f64()?, a[1].as_f64()?, a[2].as_f64()?))
}

/// An sRGB color to linear, each channel clamped to 0..1 first (`f64::clamp`, which keeps
/// a NaN where glam's clamp would not).
fn srgb3(c: DVec3) -> Vec3 {
    Vec3::from_array(
        c.to_array()
            .map(|v| srgb_to_linear(v.clamp(0.0, 1.0) as f32)),
    )
}

/// A `dh.material`'s compiled JSON as a renderer material.
pub fn material_from_json(v: &Value) -> Material {
    let shading = match v.get("shader").and_then(Value::as_str) {
        Some("unlit") => Shading::Unlit,
        _ => Shading::Lit,
    };
    let tint = v.get("tint").and_then(f3).map_or(Vec3::ONE, srgb3);
    let uv = v
        .get("uvScale")
        .and_then(Value::as_array)
        .and_then(|a| match a {
            [u, v] => Some([u.as_f64()? as f32, v.as_f64()? as f32]),
            _ => None,
        })
        .unwrap_or([1.0, 1.0]);
    let intensity = v
        .get("emissiveIntensity")
        .and_then(Value::as_f64)
        .unwrap_or(1.0) as f32;
    let emissive = v
        .get("emissiveColor")
        .and_then(f3)
        .map_or(Vec3::ZERO, |c| srgb3(c) * intensity);
    Material {
        shading,
        base_color: tint,
        uv_scale: uv,
        emissive,
        base_color_texture: None,
        detail: v.get("detail").and_then(detail_from_json),
        ..Material::default()
    }
}

/// A `dh.material` `detail` block as the renderer's layer: the COLOR_1 channel its
/// `vertexWeight` names and its `tint` (sRGB to linear, its alpha kept as written; white
/// when left out). `None` for a block without a channel the schema knows (the compiler
/// refuses one, so only a hand-damaged pallet has it).
fn detail_from_json(d: &Value) -> Option<DetailLayer> {
    let channel = match d.get("vertexWeight").and_then(Value::as_str)? {
        "r" => 0,
        "g" => 1,
        "b" => 2,
        "a" => 3,
        _ => return None,
    };
    let color = match d.get("tint").and_then(Value::as_array) {
        Some(a) if a.len() == 3 || a.len() == 4 => {
            let c = |i: usize| a.get(i).and_then(Value::as_f64);
            let rgb = srgb3(DVec3::new(c(0)?, c(1)?, c(2)?));
            let alpha = c(3).unwrap_or(1.0).clamp(0.0, 1.0) as f32;
            rgb.extend(alpha)
        }
        _ => glam::Vec4::ONE,
    };
    Some(DetailLayer { channel, color })
}

/// Whether a map keeps COLOR_1 (spec 001, "Vertex colors": "A map keeps COLOR_1 only when a
/// material in its materials table reads it through detail.vertexWeight"): `materials` is
/// the table resolved with the map's sibling pallets, slot for slot.
pub fn map_keeps_color1(materials: &[Material]) -> bool {
    materials.iter().any(|m| m.detail.is_some())
}

/// The value `name` was set to on the console or command line, when it was set.
fn set_value<'a>(p: &'a Prefs, name: &str) -> Option<&'a PrefValue> {
    if p.is_set(name) {
        p.get(name)
    } else {
        None
    }
}

/// The override of world value `name`: for a `world.render.*` value, this machine's
/// `client.render.*` counterpart when set (spec 000:1653), else the `world.*` value when
/// set; `None` when neither is.
fn override_of<'a>(p: &'a Prefs, name: &str) -> Option<&'a PrefValue> {
    if let Some(rest) = name.strip_prefix("world.render.") {
        if let Some(v) = set_value(p, &format!("client.render.{rest}")) {
            return Some(v);
        }
    }
    set_value(p, name)
}

/// A number: its override, else `map`, else `look`, else the table's default.
fn world_f(p: &Prefs, name: &str, map: Option<f64>, look: Option<f64>) -> f32 {
    match override_of(p, name) {
        Some(PrefValue::Float(v)) => *v as f32,
        _ => map.or(look).unwrap_or_else(|| p.float(name).unwrap_or(0.0)) as f32,
    }
}

fn world_set(p: &Prefs, name: &str) -> bool {
    override_of(p, name).is_some()
}

fn world_v3(p: &Prefs, name: &str, map: Option<DVec3>) -> DVec3 {
    let three = |v: &[f64]| match *v {
        [x, y, z] => Some(DVec3::new(x, y, z)),
        _ => None,
    };
    if let Some(PrefValue::Floats(v)) = override_of(p, name) {
        if let Some(c) = three(v) {
            return c;
        }
    }
    map.or_else(|| p.floats(name).ok().and_then(three))
        .unwrap_or(DVec3::ZERO)
}

fn world_b(p: &Prefs, name: &str, map: Option<bool>) -> bool {
    match override_of(p, name) {
        Some(PrefValue::Bool(b)) => *b,
        _ => map.unwrap_or_else(|| p.bool(name).unwrap_or(false)),
    }
}

fn world_token(p: &Prefs, name: &str) -> Option<&'static str> {
    match override_of(p, name) {
        Some(PrefValue::Token(t)) => Some(t),
        _ => None,
    }
}

fn tonemap_of(t: MapTonemap) -> Tonemap {
    match t {
        MapTonemap::ReinhardWhite => Tonemap::ReinhardWhite,
        MapTonemap::Aces => Tonemap::Aces,
        MapTonemap::Reinhard => Tonemap::Reinhard,
        MapTonemap::Hable => Tonemap::Hable,
        MapTonemap::None => Tonemap::None,
    }
}

/// The look the map adopts (a built-in slug), and a note for one it names that this host
/// cannot read yet.
pub fn look_seed(map: &Map, notes: &mut Vec<String>) -> LookSeed {
    match map.look.as_deref().map(classify_look) {
        Some(LookRef::Builtin(b)) => b.seed(),
        Some(LookRef::Asset(a)) => {
            notes.push(format!("look '{a}': dh.look assets are not read by the renderer yet; the engine defaults apply"));
            LookSeed::default()
        }
        Some(LookRef::Unknown) | None => LookSeed::default(),
    }
}

/// Resolves the world's lighting, sky, render and look settings.
pub fn settings(
    map: &Map,
    p: &Prefs,
    notes: &mut Vec<String>,
) -> (Lighting, Post, Falloff, ClusterConfig) {
    let look = look_seed(map, notes);
    let l = map.lighting.clone().unwrap_or_default();
    let r = map.render.clone().unwrap_or_default();
    let v3 = |v: Option<dh_content::schema::common::Vec3>| v.map(|x| DVec3::from_array(x.0));
    let sun_dir = world_v3(p, "world.sun.direction", v3(l.sun_direction));
    let sun_color = world_v3(p, "world.sun.color", v3(l.sun_color));
    let sun_intensity = world_f(p, "world.sun.intensity", l.sun_intensity, None);
    let amb_sky = world_v3(p, "world.ambient.sky", v3(l.ambient_sky));
    let amb_ground = world_v3(p, "world.ambient.ground", v3(l.ambient_ground));
    let amb_intensity = world_f(p, "world.ambient.intensity", l.ambient_intensity, None);
    let half_lambert = world_f(
        p,
        "world.lighting.halfLambert",
        l.half_lambert,
        look.half_lambert,
    );
    let falloff = match world_token(p, "world.lighting.falloff") {
        Some("unity") => Falloff::Unity,
        Some(_) => Falloff::Physical,
        None => match l.falloff.or(look.falloff) {
            Some(LightFalloff::Unity) => Falloff::Unity,
            _ => Falloff::Physical,
        },
    };
    let sky_on = world_b(p, "world.sky.enabled", l.sky);
    let angular = world_f(
        p,
        "world.sky.sunAngularDiameter",
        l.sky_sun_angular_diameter,
        None,
    );
    let sky = Sky {
        rayleigh: world_f(p, "world.sky.rayleigh", l.sky_rayleigh, None),
        mie: world_f(p, "world.sky.mie", l.sky_mie, None),
        mie_anisotropy: world_f(p, "world.sky.mieAnisotropy", l.sky_mie_anisotropy, None),
        horizon_softness: world_f(p, "world.sky.horizonSoftness", l.sky_horizon_softness, None),
        intensity: world_f(p, "world.sky.intensity", l.sky_intensity, None),
        sun_disc: world_f(p, "world.sky.sunDisc", l.sky_sun_disc, None),
        ground: world_v3(p, "world.sky.ground", v3(l.sky_ground)).as_vec3(),
        ground_blend: world_f(p, "world.sky.groundBlend", l.sky_ground_blend, None),
    };
    // ambientMode (000:1421-1427): a stored console value first, `auto` included (rule 1: it
    // "overrules everything", so a console `auto` sets aside the map's explicit mode too);
    // then the map's explicit mode; auto takes the sky's harmonics only with the sky on and
    // no authored ambient colors; sky off: hemisphere.
    let mode = match world_token(p, "world.ambient.mode") {
        Some("sky") => AmbientMode::Sky,
        Some("hemisphere") => AmbientMode::Hemisphere,
        stored => {
            let console_sky = world_set(p, "world.sky.enabled");
            let console_auto = stored == Some("auto");
            if console_sky || console_auto {
                let mut l2 = l.clone();
                if console_sky {
                    l2.sky = Some(sky_on);
                }
                if console_auto {
                    l2.ambient_mode = Some(AmbientMode::Auto);
                }
                l2.resolved_ambient()
            } else {
                l.resolved_ambient()
            }
        }
    };
    let ambient = if mode == AmbientMode::Sky && sky_on {
        Ambient::Sky {
            intensity: amb_intensity,
        }
    } else {
        Ambient::Hemisphere {
            sky: srgb3(amb_sky) * amb_intensity,
            ground: srgb3(amb_ground) * amb_intensity,
        }
    };
    let lighting = Lighting {
        sun_direction: normalize_or(sun_dir.as_vec3(), Vec3::NEG_Y),
        sun_radiance: srgb3(sun_color) * sun_intensity,
        sun_angular_diameter: angular,
        ambient,
        half_lambert: half_lambert.clamp(0.0, 1.0),
        sky: sky_on.then_some(sky),
    };
    let tonemap = match world_token(p, "world.render.tonemap") {
        Some(t) => MapTonemap::parse(t).map_or(Tonemap::ReinhardWhite, tonemap_of),
        None => tonemap_of(r.tonemap.or(look.tonemap).unwrap_or_default()),
    };
    let hc = r.hable_curve();
    let hable = Hable {
        a: world_f(
            p,
            "world.render.hableShoulderStrength",
            Some(hc.shoulder_strength),
            None,
        ),
        b: world_f(
            p,
            "world.render.hableLinearStrength",
            Some(hc.linear_strength),
            None,
        ),
        c: world_f(
            p,
            "world.render.hableLinearAngle",
            Some(hc.linear_angle),
            None,
        ),
        d: world_f(
            p,
            "world.render.hableToeStrength",
            Some(hc.toe_strength),
            None,
        ),
        e: world_f(
            p,
            "world.render.hableToeNumerator",
            Some(hc.toe_numerator),
            None,
        ),
        f: world_f(
            p,
            "world.render.hableToeDenominator",
            Some(hc.toe_denominator),
            None,
        ),
        w: world_f(
            p,
            "world.render.hableWhitePoint",
            Some(hc.white_point),
            None,
        ),
    };
    let bloom_on = world_b(p, "world.render.bloom", r.bloom);
    let bloom = bloom_on.then(|| Bloom {
        intensity: world_f(p, "world.render.bloomIntensity", r.bloom_intensity, None),
        threshold: world_f(
            p,
            "world.render.bloomThreshold",
            r.bloom_threshold,
            look.bloom_threshold,
        ),
        soft_knee: world_f(
            p,
            "world.render.bloomSoftKnee",
            r.bloom_soft_knee,
            look.bloom_soft_knee,
        ),
        diffusion: world_f(
            p,
            "world.render.bloomDiffusion",
            r.bloom_diffusion,
            look.bloom_diffusion,
        ),
        anamorphic: world_f(
            p,
            "world.render.bloomAnamorphic",
            r.bloom_anamorphic,
            look.bloom_anamorphic,
        ),
    });
    let post = Post {
        exposure: world_f(p, "world.render.exposure", r.exposure, look.exposure),
        tonemap,
        hable,
        bloom,
    };
    let clusters = ClusterConfig {
        columns: p
            .int("client.render.lightClusterColumns")
            .unwrap_or(16)
            .max(1) as u32,
        rows: p.int("client.render.lightClusterRows").unwrap_or(8).max(1) as u32,
        slices: p
            .int("client.render.lightClusterSlices")
            .unwrap_or(8)
            .max(1) as u32,
        far: p.float("client.render.lightClusterFar").unwrap_or(120.0) as f32,
        enabled: p.bool("client.render.lightClusters").unwrap_or(true),
    };
    (lighting, post, falloff, clusters)
}

/// What extraction keeps from frame to frame: the decoded base color textures, with their
/// mip chains, by barcode and mip filter (each image is read, decoded and reduced once; a
/// failure is kept too, so it is noted each frame without reading again).
///
/// It also holds the session's model geometry ([`ModelCache`]): each placed model's GLB is
/// imported once however many placements and frames draw it, and the on-disk mip chain
/// cache ([`MipCache`]). A map switch drops the textures and models
/// ([`ExtractCache::map_switched`]).
#[derive(Debug)]
pub struct ExtractCache {
    textures: HashMap<(String, Vec<u8>), Result<Arc<Texture>, String>>,
    /// Each material slot's reference read once: the material its JSON gives (without its
    /// texture) and where its base color texture is, so a frame neither parses nor folds a
    /// material again (the catalog's pallets do not change under a cache).
    materials: HashMap<String, Result<SlotMaterial, ()>>,
    models: ModelCache,
    /// Whether the map keeps COLOR_1 ([`map_keeps_color1`]), decided once at the first
    /// extraction of the map, before any of its geometry is read; a map switch asks again.
    map_color1: Option<bool>,
    mips: MipCache,
    /// `client.cache.mipmaps` as the current extraction read it.
    persist_mips: bool,
}

impl Default for ExtractCache {
    fn default() -> ExtractCache {
        ExtractCache::with_mip_cache(MipCache::new())
    }
}

impl ExtractCache {
    /// An empty cache whose mip chains go through the engine's user cache folder
    /// ([`crate::mip_cache::user_cache_dir`]).
    pub fn new() -> ExtractCache {
        ExtractCache::default()
    }

    /// An empty cache whose mip chains go through `mips`.
    pub fn with_mip_cache(mips: MipCache) -> ExtractCache {
        ExtractCache {
            textures: HashMap::new(),
            materials: HashMap::new(),
            models: ModelCache::default(),
            map_color1: None,
            mips,
            persist_mips: true,
        }
    }

    /// Textures decoded (or refused) so far.
    pub fn textures(&self) -> usize {
        self.textures.len()
    }

    /// The mip chain cache (its counters say what was read, written and generated).
    pub fn mip_cache(&self) -> &MipCache {
        &self.mips
    }

    /// The model geometry cache.
    pub fn models(&self) -> &ModelCache {
        &self.models
    }

    /// Whether the map's geometry keeps COLOR_1, once the first extraction decided it
    /// (`None` before).
    pub fn map_keeps_color1(&self) -> Option<bool> {
        self.map_color1
    }

    /// Drops everything: a map switch (no entity survives it, so every entry is dead
    /// weight).
    pub fn map_switched(&mut self) {
        self.textures.clear();
        self.materials.clear();
        self.models.clear();
        self.map_color1 = None;
    }
}

/// The mip filter a material's textures need: coverage kept at its `alphaCutoff` (default
/// 0.5) under `alphaMode: "mask"`, else the box.
pub fn mip_filter(json: &Value) -> MipFilter {
    match json.get("alphaMode").and_then(Value::as_str) {
        Some("mask") => MipFilter::Coverage {
            cutoff: json
                .get("alphaCutoff")
                .and_then(Value::as_f64)
                .unwrap_or(dh_content::schema::material::Material::DEFAULT_ALPHA_CUTOFF)
                .clamp(0.0, 1.0) as f32,
        },
        _ => MipFilter::Box,
    }
}

/// The base color texture a material names (`baseColor`, a reference relative to the
/// material's own file), decoded and given its mip chain once per cache; `None` with a
/// note when it cannot be read.
/// A material slot's reference as frames draw it, read once ([`ExtractCache`]).
#[derive(Debug, Clone)]
struct SlotMaterial {
    /// The material, its base color texture attached when it has one that decodes.
    material: Material,
    /// What each frame notes about it: a base color that does not resolve or decode.
    note: Option<String>,
}

/// Material `reference` as a frame draws it, its base color texture attached, read once
/// per reference into `cache` (and each texture once however many materials name it);
/// its note, if any, is pushed every frame. `None` when the catalog has no readable
/// material there.
fn slot_material_with_texture(
    catalog: &Catalog,
    reference: &str,
    cache: &mut ExtractCache,
    notes: &mut Vec<String>,
) -> Option<Material> {
    if !cache.materials.contains_key(reference) {
        let slot = match catalog.object_json(reference) {
            Ok(json) => {
                let mut material = material_from_json(&json);
                let mut first = Vec::new();
                let note = match texture_key(catalog, reference, &json) {
                    None => None,
                    Some(Err(note)) => Some(note),
                    Some(Ok(key)) => {
                        match base_color_texture(
                            catalog,
                            &key,
                            mip_filter(&json),
                            cache,
                            &mut first,
                        ) {
                            Ok(t) => {
                                material.base_color_texture = Some(t);
                                None
                            }
                            Err(e) => Some(format!(
                                "material {reference}: baseColor {}: {e}; it draws its tint",
                                key.0
                            )),
                        }
                    }
                };
                // What reducing the chain said the first time is said once, as before.
                notes.append(&mut first);
                Ok(SlotMaterial { material, note })
            }
            Err(_) => Err(()),
        };
        cache.materials.insert(reference.to_string(), slot);
    }
    let slot = cache.materials.get(reference)?.as_ref().ok()?;
    if let Some(note) = &slot.note {
        notes.push(note.clone());
    }
    Some(slot.material.clone())
}

/// Where material `material`'s base color texture is: the texture cache's key (barcode,
/// mip filter bytes), or the note a reference that does not resolve gives; `None` for no
/// `baseColor`.
fn texture_key(
    catalog: &Catalog,
    material: &str,
    json: &Value,
) -> Option<Result<(String, Vec<u8>), String>> {
    let reference = json.get("baseColor").and_then(Value::as_str)?;
    let (pallet, path) = material.split_once(':')?;
    Some(
        match dh_content::refs::resolve(reference, pallet, path, &catalog.dependencies(pallet)) {
            Ok(b) => Ok((b.to_string(), mip_filter(json).key_bytes())),
            Err(e) => Err(format!(
                "material {material}: baseColor '{reference}': {e}; it draws its tint"
            )),
        },
    )
}

/// The base color texture at `key` (barcode, mip filter bytes), read, decoded and
/// reduced the first time any material names it, and kept (a failure too).
fn base_color_texture(
    catalog: &Catalog,
    key: &(String, Vec<u8>),
    filter: MipFilter,
    cache: &mut ExtractCache,
    notes: &mut Vec<String>,
) -> Result<Arc<Texture>, String> {
    if !cache.textures.contains_key(key) {
        let decoded = (|| {
            let (pallet, path) = key.0.split_once(':').ok_or_else(|| key.0.clone())?;
            let found = Found {
                pallet: pallet.to_string(),
                path: path.to_string(),
            };
            let bytes = catalog.read(&found).map_err(|e| e.to_string())?;
            let mut t = Texture::decode(&found.path, &bytes).map_err(|e| e.to_string())?;
            t.mips = cache.mips.chain(
                t.width,
                t.height,
                &t.rgba,
                filter,
                cache.persist_mips,
                notes,
            );
            Ok(Arc::new(t))
        })();
        cache.textures.insert(key.clone(), decoded);
    }
    match cache.textures.get(key) {
        Some(r) => r.clone(),
        None => Err(format!("{} was not kept", key.0)),
    }
}

/// The static batch's generation: a hash of the static boxes and the materials (never 0).
fn static_generation(frame: &RenderFrame) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for b in &frame.static_boxes {
        let (position, rotation, size) = (
            b.position.to_array(),
            b.rotation.to_array(),
            b.size.to_array(),
        );
        for v in position.iter().chain(&rotation).chain(&size) {
            v.to_bits().hash(&mut h);
        }
        b.material.hash(&mut h);
    }
    frame.materials.len().hash(&mut h);
    for m in &frame.materials {
        std::mem::discriminant(&m.shading).hash(&mut h);
        m.detail
            .map(|d| (d.channel, d.color.to_array().map(f32::to_bits)))
            .hash(&mut h);
        let (base_color, emissive) = (m.base_color.to_array(), m.emissive.to_array());
        for v in base_color.iter().chain(&m.uv_scale).chain(&emissive) {
            v.to_bits().hash(&mut h);
        }
        m.base_color_texture
            .as_ref()
            .map(|t| Arc::as_ptr(t) as usize)
            .hash(&mut h);
    }
    h.finish().max(1)
}

/// Stamps `frame`'s static generation again after the voxel volumes joined it
/// ([`crate::voxel::draw::VoxelDraw`] appends each open volume's two materials and one
/// mesh instance per resident region): the hash of its boxes and materials, the
/// streamer's `materials_generation` mixed in, so the renderer rebuilds its static batch
/// exactly when a volume opens or closes (never 0).
pub fn stamp_voxel_materials(frame: &mut RenderFrame, voxel_materials_generation: u64) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    static_generation(frame).hash(&mut h);
    voxel_materials_generation.hash(&mut h);
    frame.static_generation = h.finish().max(1);
}

/// Extracts the frame from a running host (a fresh [`ExtractCache`]: textures are decoded
/// anew; a caller extracting every frame keeps one and calls [`extract_with`]).
pub fn extract(host: &Host, catalog: &Catalog, map: &Map) -> Extracted {
    extract_with(host, catalog, map, &mut ExtractCache::new())
}

/// Extracts the frame from a running host, with the textures `cache` holds.
pub fn extract_with(
    host: &Host,
    catalog: &Catalog,
    map: &Map,
    cache: &mut ExtractCache,
) -> Extracted {
    let sim = host.sim();
    let mut notes = Vec::new();
    cache.persist_mips = host.prefs.bool("client.cache.mipmaps").unwrap_or(true);
    let (lighting, post, world_falloff, clusters) = settings(map, &host.prefs, &mut notes);
    // Materials, slot for slot.
    let table = sim.materials();
    let mut materials = Vec::with_capacity(table.references.len());
    let mut missing = Vec::new();
    for (i, reference) in table.references.iter().enumerate() {
        match slot_material_with_texture(catalog, reference, cache, &mut notes) {
            Some(m) => materials.push(m),
            None => {
                missing.push(MissingMaterial {
                    slot: table.names.get(i).cloned().unwrap_or_default(),
                    reference: reference.clone(),
                    mesh: String::new(),
                });
                materials.push(Material::missing());
            }
        }
    }
    let mut frame = RenderFrame {
        materials,
        lighting,
        post,
        clusters,
        mipmaps: if host.prefs.bool("client.display.mipmaps").unwrap_or(true) {
            Mipmaps::On
        } else {
            Mipmaps::Off
        },
        ..RenderFrame::default()
    };
    let mut cameras = Vec::new();
    let world = sim.world();
    for &e in sim.records() {
        if world.get::<&Disabled>(e).is_ok() {
            continue;
        }
        let Some(pose) = sim.world_pose(e) else {
            continue;
        };
        let light = sim.get::<SimLight>(e);
        if let Some(b) = sim.get::<DhBox>(e) {
            let carried = sim.get::<Body>(e).is_some_and(|b| b.carried)
                || sim.get::<Mover>(e).is_some()
                || sim.get::<PhysicsProp>(e).is_some()
                || light.is_some();
            let material = light
                .as_ref()
                .and_then(|l| l.effective().fixture_material)
                .unwrap_or(b.material);
            // A prop stands where the solver carried it, turned as the solver turned it.
            let (position, rotation) = match host.prop_pose(e) {
                Some(p) => (p.position, p.rotation),
                None => (pose.position, pose.rotation),
            };
            let inst = BoxInstance {
                position,
                rotation,
                size: b.size * pose.scale.abs(),
                material: u32::from(material.0),
            };
            if carried {
                frame.live_boxes.push(inst);
            } else {
                frame.static_boxes.push(inst);
            }
        }
        if let Some(l) = light {
            let eff = l.effective();
            let kind = match eff.kind {
                MapLightKind::Point => Some(LightKind::Point),
                MapLightKind::Spot => Some(LightKind::Spot),
                MapLightKind::Directional => Some(LightKind::Directional),
                MapLightKind::None => None,
            };
            // A `"baked"` light leaves the live list only for a lightmap that holds it
            // (000:1307). The engine reads no lightmap yet, so every map is lit in real time,
            // as one with no readable sidecar is (000:1303): a baked lamp is lit live rather
            // than vanishing (the load log says once that the lightmap is not drawn). Ditto
            // `bakeSun`: the sun resolves to zero only under a loaded lightmap.
            if let (Some(kind), true) = (kind, eff.on) {
                let offset = l.offset;
                frame.lights.push(Light {
                    kind,
                    position: pose.position + offset,
                    direction: normalize_or(rotate(pose.rotation, Vec3::NEG_Y), Vec3::NEG_Y),
                    radiance: eff.color * eff.intensity,
                    range: eff.range,
                    falloff: match eff.falloff {
                        Some(MapFalloff::Unity) => Falloff::Unity,
                        Some(MapFalloff::Physical) => Falloff::Physical,
                        None => world_falloff,
                    },
                    inner_cone: eff.inner_cone.to_radians(),
                    outer_cone: eff.outer_cone.to_radians(),
                });
            }
        }
        if let Some(c) = sim.get::<Camera>(e) {
            let projection = match c.projection {
                MapProjection::Orthographic => Projection::Orthographic {
                    half_height: c.ortho_size.unwrap_or(10.0),
                },
                MapProjection::Perspective => Projection::Perspective { fov_y: c.fov },
            };
            cameras.push(NamedCamera {
                name: sim.get::<Name>(e).map(|n| n.0).unwrap_or_default(),
                id: sim
                    .get::<RecordId>(e)
                    .map(|r| r.0.to_string())
                    .unwrap_or_default(),
                view: View {
                    position: pose.position,
                    rotation: pose.rotation,
                    projection,
                    near: c.near.unwrap_or(dh_gpu::render::camera::DEFAULT_NEAR),
                    far: c.far,
                },
                aspect: c.aspect,
                thumbnail: c.role == CameraRole::MapThumbnail,
                thumbnail_size: c.thumbnail_size,
            });
        }
    }
    // The keep rule for the map's COLOR_1, taken once, before the first read of its geometry
    // (a live edit that adds a vertexWeight takes effect on the next load of the map).
    let map_color1 = *cache
        .map_color1
        .get_or_insert_with(|| map_keeps_color1(&frame.materials));
    model_parts(
        sim,
        catalog,
        cache,
        map_color1,
        &mut frame,
        &mut missing,
        &mut notes,
    );
    frame.static_generation = static_generation(&frame);
    Extracted {
        frame,
        cameras,
        missing,
        notes,
    }
}

/// Every drawn model part in the world as a [`MeshInstance`] at its pose this frame, its
/// slots bound by name (spec: dh.map, "Materials"; runtime assets, "Missing material" and
/// "The object loader"):
///
/// * a slot bound to a material draws it (the map's table slot when the reference is one of
///   the table's, else the material read here and added to the frame);
/// * a map's slot the `materials` table has no entry for draws the missingMaterial, with one
///   [`MissingMaterial`] line per slot name (however many parts draw it);
/// * an object's slot no `dh.renderer` binds, and a primitive with no material at all, draw
///   [`Material::flat_white`].
///
/// A model that cannot be read or imported is one note per model, and its parts draw
/// nothing. A map's part reads its model's COLOR_1 only when `map_color1` (the map's keep
/// rule); an object's part always does, since its materials are bound per part.
fn model_parts(
    sim: &dh_sims::SimWorld,
    catalog: &Catalog,
    cache: &mut ExtractCache,
    map_color1: bool,
    frame: &mut RenderFrame,
    missing: &mut Vec<MissingMaterial>,
    notes: &mut Vec<String>,
) {
    let parts = sim.parts();
    if parts.is_empty() {
        return;
    }
    let table = sim.materials();
    let mut flat_white: Option<u32> = None;
    let mut missing_index: Option<u32> = None;
    let mut added: HashMap<String, u32> = HashMap::new();
    let mut noted_models: Vec<String> = Vec::new();
    let push = |frame: &mut RenderFrame, m: Material| -> u32 {
        frame.materials.push(m);
        (frame.materials.len() - 1) as u32
    };
    for &e in parts {
        if !sim.in_world(e) {
            continue;
        }
        let (Some(part), Some(renderer), Some(pose)) = (
            sim.get::<ModelPart>(e),
            sim.get::<PartRenderer>(e),
            sim.world_pose(e),
        ) else {
            continue;
        };
        let color1 = map_color1 || !renderer.map_slots;
        // An object's part reads its model the object loader's way (skinned meshes kept).
        let object = !renderer.map_slots;
        let geometry = match cache.models.get(catalog, &part.model, color1, object) {
            Ok(g) => g,
            Err(err) => {
                if !noted_models.contains(&part.model) {
                    noted_models.push(part.model.clone());
                    notes.push(format!("{err}; its parts draw nothing"));
                }
                continue;
            }
        };
        let Some(mesh_index) = geometry.mesh_of(&part.path) else {
            continue;
        };
        let mesh = match geometry.mesh(mesh_index) {
            Some(Ok(m)) => m,
            Some(Err(err)) => {
                let key = format!("{}#{mesh_index}", part.model);
                if !noted_models.contains(&key) {
                    noted_models.push(key);
                    notes.push(format!("{err}; it draws nothing"));
                }
                continue;
            }
            None => continue,
        };
        // A skinned mesh stands at its rest pose: its joint palette from the model's rest
        // transforms (no clip plays at run time yet; said once per model).
        let skinned = match &mesh.rig {
            Some(rig) => {
                let palette = geometry.rest_palette(&part.path);
                if palette.is_some() && !geometry.model().animations.is_empty() {
                    let key = format!("{}#animations", part.model);
                    if !noted_models.contains(&key) {
                        noted_models.push(key);
                        let placed = sim.name_of(part.instance).unwrap_or_default();
                        notes.push(format!(
                            "object '{placed}': model {} is skinned and drawn at its rest pose; its {} animation clip(s) are not played at run time yet",
                            part.model,
                            geometry.model().animations.len()
                        ));
                    }
                }
                match palette {
                    Some(p) => Some((Arc::clone(rig), p.as_ref().clone())),
                    // Morphed only: no joints to pose.
                    None if rig.skinning.is_none() => Some((Arc::clone(rig), Vec::new())),
                    // Joints with no skin to bind them: drawn at its bind pose unskinned.
                    None => None,
                }
            }
            None => None,
        };
        let mut materials = Vec::with_capacity(mesh.slots.len());
        for slot in &mesh.slots {
            let Some(slot) = slot else {
                materials
                    .push(*flat_white.get_or_insert_with(|| push(frame, Material::flat_white())));
                continue;
            };
            let index = match renderer.bound(slot) {
                Some(reference) => {
                    let in_table = table
                        .slot(slot)
                        .filter(|s| {
                            table.references.get(s.0 as usize).map(String::as_str)
                                == Some(reference)
                        })
                        .or_else(|| {
                            table
                                .references
                                .iter()
                                .position(|r| r == reference)
                                .map(|i| dh_sims::MaterialSlot(i as u16))
                        });
                    match in_table {
                        Some(s) => u32::from(s.0),
                        None => match added.get(reference) {
                            Some(&i) => i,
                            None => {
                                let m = match slot_material_with_texture(
                                    catalog, reference, cache, notes,
                                ) {
                                    Some(m) => m,
                                    None => {
                                        missing.push(MissingMaterial {
                                            slot: slot.clone(),
                                            reference: reference.to_string(),
                                            mesh: format!("mesh '{}' of {}", mesh.name, part.model),
                                        });
                                        Material::missing()
                                    }
                                };
                                let i = push(frame, m);
                                added.insert(reference.to_string(), i);
                                i
                            }
                        },
                    }
                }
                None if renderer.map_slots => {
                    if !missing
                        .iter()
                        .any(|m| m.reference.is_empty() && m.slot == *slot)
                    {
                        missing.push(MissingMaterial {
                            slot: slot.clone(),
                            reference: String::new(),
                            mesh: format!("mesh '{}' of {}", mesh.name, part.model),
                        });
                    }
                    *missing_index.get_or_insert_with(|| push(frame, Material::missing()))
                }
                None => *flat_white.get_or_insert_with(|| push(frame, Material::flat_white())),
            };
            materials.push(index);
        }
        if let Some((rig, palette)) = skinned {
            frame.skinned.push(SkinnedMesh {
                instance: frame.meshes.len(),
                // One skinned buffer per drawn part, kept across frames.
                id: e.to_bits().get(),
                rig,
                palette,
                weights: mesh.weights.clone(),
            });
        }
        frame.meshes.push(MeshInstance {
            mesh: Arc::clone(&mesh.asset),
            world: trs(pose.position, pose.rotation, pose.scale),
            materials,
            casts_shadows: true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post_of(p: &Prefs) -> Post {
        let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
        // render-eval authors "tonemap": "none" and "bloom": true.
        let (_, map) = catalog
            .load_map("render-eval")
            .unwrap_or_else(|e| panic!("{e}"));
        settings(&map, p, &mut Vec::new()).1
    }

    /// spec 000:1421-1427 rule 1: a stored console `world.ambient.mode` overrules the map's
    /// explicit `ambientMode`, `auto` included; rule 3 then picks the sky's harmonics (sky
    /// on, no authored ambient colours). Worked out from the rules, not from the code.
    #[test]
    fn a_console_auto_overrules_the_maps_explicit_ambient_mode() {
        let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
        let (_, mut map) = catalog
            .load_map("render-eval")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut l = map.lighting.clone().unwrap_or_default();
        l.sky = Some(true);
        l.ambient_mode = Some(AmbientMode::Hemisphere);
        l.ambient_sky = None;
        l.ambient_ground = None;
        map.lighting = Some(l);
        let is_sky = |p: &Prefs| {
            matches!(
                settings(&map, p, &mut Vec::new()).0.ambient,
                Ambient::Sky { .. }
            )
        };
        let mut p = Prefs::new();
        assert!(
            !is_sky(&p),
            "rule 2: the map's explicit hemisphere is honoured"
        );
        p.set("world.ambient.mode", "auto")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            is_sky(&p),
            "rule 1 then 3: the console's auto takes the sky's harmonics"
        );
        p.set("world.sky.enabled", "false")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!is_sky(&p), "rule 4: with the sky off, the hemisphere");
        p.unset("world.sky.enabled")
            .unwrap_or_else(|e| panic!("{e}"));
        p.set("world.ambient.mode", "hemisphere")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!is_sky(&p));
        p.set("world.ambient.mode", "sky")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(is_sky(&p));
    }

    #[test]
    fn client_render_over_world_over_map_by_what_is_set() {
        let mut p = Prefs::new();
        assert_eq!(post_of(&p).tonemap, Tonemap::None, "the map's own field");
        assert!(post_of(&p).bloom.is_some());
        // Set on the console to its default value: still set, so it beats the map.
        p.set("world.render.tonemap", "reinhardWhite")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).tonemap, Tonemap::ReinhardWhite);
        // This machine's counterpart sits on top.
        p.set("client.render.tonemap", "hable")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).tonemap, Tonemap::Hable);
        p.set("client.render.bloom", "false")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).bloom, None);
        p.set("client.render.exposure", "2")
            .unwrap_or_else(|e| panic!("{e}"));
        p.set("world.render.exposure", "3")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).exposure, 2.0);
        // Unset again, the client value follows the world.
        p.unset("client.render.tonemap")
            .unwrap_or_else(|e| panic!("{e}"));
        p.unset("client.render.exposure")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).tonemap, Tonemap::ReinhardWhite);
        assert_eq!(post_of(&p).exposure, 3.0);
        p.unset("world.render.tonemap")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(post_of(&p).tonemap, Tonemap::None);
    }
}
