//! The `lighting` block: the world's sun and ambient, the lightmap, bake zones and their
//! sets, the procedural sky, the image sky and the baked indirect-light volume (spec: dh.map,
//! "The world's sun and ambient" through "Baking the probes").

use super::check;
use crate::jsonc::{Kind, Value};
use crate::read::{Cx, FromJson, Table, ToJson};
use crate::schema::common::Vec3;

tokens! {
    /// A light distance curve (`lighting.falloff`, the default every point and spot light
    /// takes unless it names its own).
    pub enum LightFalloff as "falloff" {
        /// `(1 − (d/r)⁴)² / d²`: windowed inverse-square. The engine default.
        #[default]
        Physical = "physical",
        /// Unity's built-in (legacy) attenuation curve.
        Unity = "unity",
    }
}

tokens! {
    /// `lighting.ambientMode`: where the ambient fill comes from.
    pub enum AmbientMode as "ambientMode" {
        /// The sky's harmonics only if a sky is on and the map authored no
        /// `ambientSky` / `ambientGround`; otherwise the hemisphere (what omitting means).
        #[default]
        Auto = "auto",
        /// The two-color hemisphere fill.
        Hemisphere = "hemisphere",
        /// The sky's order-2 harmonics.
        Sky = "sky",
    }
}

tokens! {
    /// `lighting.lightmap.origin`: where the lightmap beside the source came from.
    pub enum LightmapOrigin as "lightmap origin" {
        /// Baked here (what an omitted field means).
        #[default]
        Baked = "baked",
        /// Written by an importer from another engine's own bake; the bake refuses to
        /// overwrite it.
        Imported = "imported",
    }
}

/// `lighting.lightmap.bakeSun`: `false`, `true` or `"mixed"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BakeSun {
    /// `false` (the default): the sun is lit in real time.
    #[default]
    Off,
    /// `true`: the sun is baked and dropped from real-time shading everywhere.
    On,
    /// `"mixed"`: baked, and kept live wherever the lightmap does not cover.
    Mixed,
}

impl FromJson for BakeSun {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Bool(false) => Some(BakeSun::Off),
            Kind::Bool(true) => Some(BakeSun::On),
            Kind::String(s) if s == "mixed" => Some(BakeSun::Mixed),
            Kind::String(s) => {
                cx.error(
                    v.span,
                    format!(
                        "'{s}' is not a valid bakeSun; expected one of: false, true, \"mixed\""
                    ),
                );
                None
            }
            _ => {
                cx.expected("false, true or \"mixed\" (bakeSun)", v);
                None
            }
        }
    }
}

impl ToJson for BakeSun {
    fn to_json(&self) -> Value {
        Value::synthetic(match self {
            BakeSun::Off => Kind::Bool(false),
            BakeSun::On => Kind::Bool(true),
            BakeSun::Mixed => Kind::String("mixed".into()),
        })
    }
}

block! {
    /// `lighting.lightmap`: what to bake into the map's lightmap.
    pub struct Lightmap = "lighting.lightmap" {
        /// Whether the map has a lightmap at all (default false).
        opt enabled: bool = "enabled",
        /// `"baked"` (default) or `"imported"`.
        opt origin: LightmapOrigin = "origin",
        /// Texels per meter of world surface (default 4); must be positive.
        opt texel_density: f64 = "texelDensity",
        /// Gutter in texels between packed charts (default 2).
        opt padding: i64 = "padding",
        /// The largest page edge, a power of two, at most 8192 (default 2048).
        opt max_size: i64 = "maxSize",
        /// The square root of the surface samples per texel, 1–4 (default 2).
        opt samples: i64 = "samples",
        /// Bake the sun: false (default), true or "mixed".
        opt bake_sun: BakeSun = "bakeSun",
        /// Shadow rays per sample across the baked sun's disc, at most 64 (default 16).
        opt sun_samples: i64 = "sunSamples",
        /// Bake the sky into the atlas with occlusion (default false).
        opt bake_ambient: bool = "bakeAmbient",
        /// Hemisphere rays per sample when bakeAmbient is on, at most 256 (default 32).
        opt ambient_samples: i64 = "ambientSamples",
        /// Bounces of baked light, 0–8 (default 3).
        opt bounces: i64 = "bounces",
        /// Gather rays per texel in each bounce pass, at most 1024 (default 64).
        opt bounce_samples: i64 = "bounceSamples",
        /// Shadow rays per sample toward each emissive surface, at most 64 (default 16).
        opt emissive_samples: i64 = "emissiveSamples",
        /// Rays per sample of baked ambient occlusion, at most 256; 0 bakes none (default 16).
        opt ao_samples: i64 = "aoSamples",
        /// How far an occlusion ray looks, in meters; must be positive (default 0.5).
        opt ao_radius: f64 = "aoRadius",
        /// Denoise the finished atlas (default true).
        opt denoise: bool = "denoise",
    }
}

/// A sample-count field of `lighting.lightmap` whose out-of-range value is a warning and
/// a clamp: `(wire name, least, most)`.
const LIGHTMAP_SAMPLE_RANGES: &[(&str, i64, i64)] = &[
    ("samples", 1, 4),
    ("sunSamples", 1, 64),
    ("ambientSamples", 1, 256),
    ("bounceSamples", 1, 1024),
    ("emissiveSamples", 1, 64),
    ("aoSamples", 0, 256),
];

impl Lightmap {
    /// `enabled` when omitted (and when the block itself is omitted).
    pub const DEFAULT_ENABLED: bool = false;
    /// `texelDensity` when omitted.
    pub const DEFAULT_TEXEL_DENSITY: f64 = 4.0;
    /// `padding` when omitted.
    pub const DEFAULT_PADDING: i64 = 2;
    /// `maxSize` when omitted.
    pub const DEFAULT_MAX_SIZE: i64 = 2048;
    /// The largest `maxSize`.
    pub const MAX_MAX_SIZE: i64 = 8192;
    /// `samples` when omitted.
    pub const DEFAULT_SAMPLES: i64 = 2;
    /// `sunSamples` when omitted.
    pub const DEFAULT_SUN_SAMPLES: i64 = 16;
    /// `ambientSamples` when omitted.
    pub const DEFAULT_AMBIENT_SAMPLES: i64 = 32;
    /// `bounces` when omitted.
    pub const DEFAULT_BOUNCES: i64 = 3;
    /// The most `bounces`.
    pub const MAX_BOUNCES: i64 = 8;
    /// `bounceSamples` when omitted.
    pub const DEFAULT_BOUNCE_SAMPLES: i64 = 64;
    /// `emissiveSamples` when omitted.
    pub const DEFAULT_EMISSIVE_SAMPLES: i64 = 16;
    /// `aoSamples` when omitted.
    pub const DEFAULT_AO_SAMPLES: i64 = 16;
    /// `aoRadius` when omitted.
    pub const DEFAULT_AO_RADIUS: f64 = 0.5;
    /// `denoise` when omitted.
    pub const DEFAULT_DENOISE: bool = true;

    /// Whether the lightmap is enabled.
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(Self::DEFAULT_ENABLED)
    }
    /// Where the lightmap came from.
    pub fn origin(&self) -> LightmapOrigin {
        self.origin.unwrap_or_default()
    }
    /// Texels per meter.
    pub fn texel_density(&self) -> f64 {
        self.texel_density.unwrap_or(Self::DEFAULT_TEXEL_DENSITY)
    }
    /// Gutter in texels.
    pub fn padding(&self) -> i64 {
        self.padding.unwrap_or(Self::DEFAULT_PADDING)
    }
    /// The largest page edge.
    pub fn max_size(&self) -> i64 {
        self.max_size.unwrap_or(Self::DEFAULT_MAX_SIZE)
    }
    /// The square root of the samples per texel, clamped to 1–4.
    pub fn samples(&self) -> i64 {
        self.samples.unwrap_or(Self::DEFAULT_SAMPLES).clamp(1, 4)
    }
    /// Whether and how the sun is baked.
    pub fn bake_sun(&self) -> BakeSun {
        self.bake_sun.unwrap_or_default()
    }
    /// Sun shadow rays per sample, clamped to 1–64.
    pub fn sun_samples(&self) -> i64 {
        self.sun_samples
            .unwrap_or(Self::DEFAULT_SUN_SAMPLES)
            .clamp(1, 64)
    }
    /// Whether the sky is baked.
    pub fn bake_ambient(&self) -> bool {
        self.bake_ambient.unwrap_or(false)
    }
    /// Sky rays per sample, clamped to 1–256.
    pub fn ambient_samples(&self) -> i64 {
        self.ambient_samples
            .unwrap_or(Self::DEFAULT_AMBIENT_SAMPLES)
            .clamp(1, 256)
    }
    /// Bounces of baked light.
    pub fn bounces(&self) -> i64 {
        self.bounces.unwrap_or(Self::DEFAULT_BOUNCES)
    }
    /// Gather rays per texel per bounce, clamped to 1–1024.
    pub fn bounce_samples(&self) -> i64 {
        self.bounce_samples
            .unwrap_or(Self::DEFAULT_BOUNCE_SAMPLES)
            .clamp(1, 1024)
    }
    /// Shadow rays per sample toward each emitter, clamped to 1–64.
    pub fn emissive_samples(&self) -> i64 {
        self.emissive_samples
            .unwrap_or(Self::DEFAULT_EMISSIVE_SAMPLES)
            .clamp(1, 64)
    }
    /// Occlusion rays per sample, clamped to 0–256 (0 bakes none).
    pub fn ao_samples(&self) -> i64 {
        self.ao_samples
            .unwrap_or(Self::DEFAULT_AO_SAMPLES)
            .clamp(0, 256)
    }
    /// How far an occlusion ray looks.
    pub fn ao_radius(&self) -> f64 {
        self.ao_radius.unwrap_or(Self::DEFAULT_AO_RADIUS)
    }
    /// Whether the atlas is denoised.
    pub fn denoise(&self) -> bool {
        self.denoise.unwrap_or(Self::DEFAULT_DENOISE)
    }

    /// The lightmap block's rules.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if let Some(d) = self.texel_density {
            if d <= 0.0 {
                cx.error_at(
                    at,
                    at.field("texelDensity"),
                    format!("lighting.lightmap.texelDensity must be positive, found {d}"),
                );
            }
        }
        if let Some(p) = self.padding {
            if p < 0 {
                cx.error_at(
                    at,
                    at.field("padding"),
                    format!("lighting.lightmap.padding is a gutter in texels and cannot be negative, found {p}"),
                );
            }
        }
        if let Some(m) = self.max_size {
            if m <= 0 || m > Self::MAX_MAX_SIZE || (m & (m - 1)) != 0 {
                cx.error_at(
                    at,
                    at.field("maxSize"),
                    format!(
                        "lighting.lightmap.maxSize must be a power of two, at most 8192, found {m}"
                    ),
                );
            }
        }
        if let Some(b) = self.bounces {
            if !(0..=Self::MAX_BOUNCES).contains(&b) {
                cx.error_at(
                    at,
                    at.field("bounces"),
                    format!("lighting.lightmap.bounces must be in 0–8, found {b}"),
                );
            }
        }
        if let Some(r) = self.ao_radius {
            if r <= 0.0 {
                cx.error_at(
                    at,
                    at.field("aoRadius"),
                    format!("lighting.lightmap.aoRadius must be positive, found {r}"),
                );
            }
        }
        for &(name, lo, hi) in LIGHTMAP_SAMPLE_RANGES {
            let value = match name {
                "samples" => self.samples,
                "sunSamples" => self.sun_samples,
                "ambientSamples" => self.ambient_samples,
                "bounceSamples" => self.bounce_samples,
                "emissiveSamples" => self.emissive_samples,
                _ => self.ao_samples,
            };
            if let Some(n) = value {
                if !(lo..=hi).contains(&n) {
                    cx.warning_at(
                        at,
                        at.field(name),
                        format!(
                            "lighting.lightmap.{name} is out of range {lo}–{hi}, found {n}; the bake clamps it to {}",
                            n.clamp(lo, hi)
                        ),
                    );
                }
            }
        }
    }
}

block! {
    /// A baked light's overrides in a bake set, keyed by the id of the object carrying the
    /// `dh.light`.
    pub struct BakeSetLight = "bake set light override" {
        /// `false` leaves the light out of the set.
        opt enabled: bool = "enabled",
        /// Replaces the light's intensity (linear).
        opt intensity: f64 = "intensity",
        /// Replaces the light's color (sRGB, [0, 1]).
        opt color: Vec3 = "color",
    }
}

block! {
    /// Baked emission overrides in a bake set, keyed by a node's path.
    pub struct BakeSetEmission = "bake set emission override" {
        /// `false` leaves the node's emission out of the set.
        opt enabled: bool = "enabled",
        /// Replaces the emission intensity (linear).
        opt intensity: f64 = "intensity",
        /// Replaces the emission color (sRGB, [0, 1]).
        opt color: Vec3 = "color",
    }
}

block! {
    /// One switchable lighting state of a bake zone, beyond its authored `default`.
    pub struct BakeSet = "bake set" {
        /// The set's name: unique in its zone, and never `default`.
        req name: String = "name",
        /// Overrides on baked lights, keyed by the id of the object carrying the dh.light.
        opt lights: Table<BakeSetLight> = "lights",
        /// Overrides on baked emission, keyed by a node's path.
        opt emission: Table<BakeSetEmission> = "emission",
    }
}

impl BakeSet {
    /// The name of the authored state every zone has implicitly.
    pub const DEFAULT_NAME: &'static str = "default";
}

block! {
    /// One entry of `lighting.bakeZones`: a part of the map that packs into atlas pages of
    /// its own.
    pub struct BakeZone = "bake zone" {
        /// The zone's stable id, what a dh.bake's zone names; required and unique in the map.
        req id: String = "id",
        /// What the zone is called, for a person.
        opt name: String = "name",
        /// Texels per meter for the zone's nodes, replacing lighting.lightmap.texelDensity.
        opt texel_density: f64 = "texelDensity",
        /// The zone's switchable lighting states beyond its authored one.
        list sets: BakeSet = "sets",
    }
}

impl BakeZone {
    /// The zone's texel density: its own, else the lightmap's.
    pub fn texel_density(&self, lightmap: Option<&Lightmap>) -> f64 {
        self.texel_density.unwrap_or_else(|| {
            lightmap
                .map(Lightmap::texel_density)
                .unwrap_or(Lightmap::DEFAULT_TEXEL_DENSITY)
        })
    }
}

block! {
    /// `lighting.skyImage`: an equirectangular HDR image drawn as the sky.
    pub struct SkyImage = "lighting.skyImage" {
        /// Path to the equirectangular (lat-long) HDR image (.exr or .hdr).
        req path: String = "path",
        /// Linear multiplier on the image's radiance (default 1.0).
        opt exposure: f64 = "exposure",
        /// Yaw about the up axis, in degrees (default 0).
        opt rotation: f64 = "rotation",
    }
}

impl SkyImage {
    /// `exposure` when omitted.
    pub const DEFAULT_EXPOSURE: f64 = 1.0;
    /// `rotation` when omitted.
    pub const DEFAULT_ROTATION: f64 = 0.0;

    /// The radiance multiplier.
    pub fn exposure(&self) -> f64 {
        self.exposure.unwrap_or(Self::DEFAULT_EXPOSURE)
    }
    /// The yaw in degrees.
    pub fn rotation(&self) -> f64 {
        self.rotation.unwrap_or(Self::DEFAULT_ROTATION)
    }
}

block! {
    /// `lighting.giVolume`: the baked light probe volume that replaces the flat ambient.
    pub struct GiVolume = "lighting.giVolume" {
        /// Whether the volume is baked (default true).
        opt enabled: bool = "enabled",
        /// Distance between adjacent probes in meters, 0.1–64 (default 0.5).
        opt probe_spacing: f64 = "probeSpacing",
        /// How far past the geometry bounds the grid extends, ≥ 0 (default 2).
        opt padding: f64 = "padding",
        /// The gray albedo the CPU reference bake gives every surface, 0–1 (default 0.5).
        opt bounce_albedo: f64 = "bounceAlbedo",
        /// Rays cast per probe, 16–4096 (default 256).
        opt samples: i64 = "samples",
        /// Artistic multiplier on every gathered probe, ≥ 0 (default 1).
        opt intensity: f64 = "intensity",
    }
}

impl GiVolume {
    /// `enabled` when omitted.
    pub const DEFAULT_ENABLED: bool = true;
    /// `probeSpacing` when omitted.
    pub const DEFAULT_PROBE_SPACING: f64 = 0.5;
    /// The least `probeSpacing`.
    pub const MIN_PROBE_SPACING: f64 = 0.1;
    /// The most `probeSpacing`.
    pub const MAX_PROBE_SPACING: f64 = 64.0;
    /// `padding` when omitted.
    pub const DEFAULT_PADDING: f64 = 2.0;
    /// `bounceAlbedo` when omitted.
    pub const DEFAULT_BOUNCE_ALBEDO: f64 = 0.5;
    /// `samples` when omitted.
    pub const DEFAULT_SAMPLES: i64 = 256;
    /// The least `samples`.
    pub const MIN_SAMPLES: i64 = 16;
    /// The most `samples`.
    pub const MAX_SAMPLES: i64 = 4096;
    /// `intensity` when omitted.
    pub const DEFAULT_INTENSITY: f64 = 1.0;

    /// Whether the volume is baked.
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(Self::DEFAULT_ENABLED)
    }
    /// Probe spacing in meters.
    pub fn probe_spacing(&self) -> f64 {
        self.probe_spacing.unwrap_or(Self::DEFAULT_PROBE_SPACING)
    }
    /// Padding in meters.
    pub fn padding(&self) -> f64 {
        self.padding.unwrap_or(Self::DEFAULT_PADDING)
    }
    /// The reference bake's gray albedo.
    pub fn bounce_albedo(&self) -> f64 {
        self.bounce_albedo.unwrap_or(Self::DEFAULT_BOUNCE_ALBEDO)
    }
    /// Rays per probe.
    pub fn samples(&self) -> i64 {
        self.samples.unwrap_or(Self::DEFAULT_SAMPLES)
    }
    /// Multiplier on every probe.
    pub fn intensity(&self) -> f64 {
        self.intensity.unwrap_or(Self::DEFAULT_INTENSITY)
    }

    /// The ranges of the giVolume table.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if let Some(s) = self.probe_spacing {
            if !(Self::MIN_PROBE_SPACING..=Self::MAX_PROBE_SPACING).contains(&s) {
                cx.error_at(
                    at,
                    at.field("probeSpacing"),
                    format!("lighting.giVolume.probeSpacing must be in 0.1–64 meters, found {s}"),
                );
            }
        }
        check::at_least(cx, at, "lighting.giVolume", "padding", self.padding, 0.0);
        check::unit_interval(
            cx,
            at,
            "lighting.giVolume",
            "bounceAlbedo",
            self.bounce_albedo,
        );
        if let Some(n) = self.samples {
            if !(Self::MIN_SAMPLES..=Self::MAX_SAMPLES).contains(&n) {
                cx.error_at(
                    at,
                    at.field("samples"),
                    format!("lighting.giVolume.samples must be in 16–4096, found {n}"),
                );
            }
        }
        check::at_least(
            cx,
            at,
            "lighting.giVolume",
            "intensity",
            self.intensity,
            0.0,
        );
    }
}

block! {
    /// The top-level `lighting` block: what the map is lit by. Every field is optional; an
    /// omitted one keeps the engine default (the `world.*` setting it seeds), or the look's.
    pub struct Lighting = "lighting" {
        /// The direction sunlight travels (an overhead sun is [0, -1, 0]).
        opt sun_direction: Vec3 = "sunDirection",
        /// The sun's color, sRGB in [0, 1].
        opt sun_color: Vec3 = "sunColor",
        /// The sun's linear intensity.
        opt sun_intensity: f64 = "sunIntensity",
        /// The hemisphere fill's sky color, sRGB in [0, 1].
        opt ambient_sky: Vec3 = "ambientSky",
        /// The hemisphere fill's ground color, sRGB in [0, 1].
        opt ambient_ground: Vec3 = "ambientGround",
        /// Scales whichever ambient fill is active.
        opt ambient_intensity: f64 = "ambientIntensity",
        /// The diffuse wrap: 0 a hard Lambert terminator, 1 the full Source wrap.
        opt half_lambert: f64 = "halfLambert",
        /// The default distance curve of every point and spot light (engine default physical).
        opt falloff: LightFalloff = "falloff",
        /// What to bake into the lightmap.
        opt lightmap: Lightmap = "lightmap",
        /// The lightmap's bake zones.
        list bake_zones: BakeZone = "bakeZones",
        /// Draw the procedural sky (default off).
        opt sky: bool = "sky",
        /// Molecular scattering density; 1 is Earth's atmosphere.
        opt sky_rayleigh: f64 = "skyRayleigh",
        /// Aerosol (haze) density.
        opt sky_mie: f64 = "skyMie",
        /// The haze lobe's forward bias, in [0, 1).
        opt sky_mie_anisotropy: f64 = "skyMieAnisotropy",
        /// How fast the air mass grows toward the horizon.
        opt sky_horizon_softness: f64 = "skyHorizonSoftness",
        /// Overall multiplier on the sky's radiance.
        opt sky_intensity: f64 = "skyIntensity",
        /// Brightness of the solar disc on top of the sun's own.
        opt sky_sun_disc: f64 = "skySunDisc",
        /// The sun disc's angular diameter in degrees (default 0.53, the real sun's).
        opt sky_sun_angular_diameter: f64 = "skySunAngularDiameter",
        /// Linear RGB albedo of the ground below the horizon.
        opt sky_ground: Vec3 = "skyGround",
        /// Width of the band the sky fades into the ground across.
        opt sky_ground_blend: f64 = "skyGroundBlend",
        /// Where the ambient fill comes from (default auto).
        opt ambient_mode: AmbientMode = "ambientMode",
        /// An image drawn as the sky instead of the procedural one.
        opt sky_image: SkyImage = "skyImage",
        /// The baked indirect-light probe volume.
        opt gi_volume: GiVolume = "giVolume",
    }
}

impl Lighting {
    /// `sky` when omitted: off.
    pub const DEFAULT_SKY: bool = false;
    /// `skySunAngularDiameter` when omitted: the real sun's 0.53°.
    pub const DEFAULT_SKY_SUN_ANGULAR_DIAMETER: f64 = 0.53;

    /// Whether the procedural sky is drawn.
    pub fn sky(&self) -> bool {
        self.sky.unwrap_or(Self::DEFAULT_SKY)
    }
    /// The map's default light falloff.
    pub fn falloff(&self) -> LightFalloff {
        self.falloff.unwrap_or_default()
    }
    /// The ambient mode.
    pub fn ambient_mode(&self) -> AmbientMode {
        self.ambient_mode.unwrap_or_default()
    }
    /// The sun disc's angular diameter in degrees.
    pub fn sky_sun_angular_diameter(&self) -> f64 {
        self.sky_sun_angular_diameter
            .unwrap_or(Self::DEFAULT_SKY_SUN_ANGULAR_DIAMETER)
    }
    /// Whether either sky (procedural or image) is on: what `ambientMode: auto` means by
    /// "the sky is on".
    pub fn has_sky(&self) -> bool {
        self.sky() || self.sky_image.is_some()
    }
    /// Whether an enabled lightmap is asked for.
    pub fn lightmap_enabled(&self) -> bool {
        self.lightmap.as_ref().is_some_and(Lightmap::enabled)
    }
    /// Which ambient fill the map's own fields select (before any console override):
    /// rules 2–4 of "Sky-derived ambient".
    pub fn resolved_ambient(&self) -> AmbientMode {
        match self.ambient_mode() {
            AmbientMode::Hemisphere => AmbientMode::Hemisphere,
            AmbientMode::Sky => AmbientMode::Sky,
            AmbientMode::Auto => {
                if self.has_sky() && self.ambient_sky.is_none() && self.ambient_ground.is_none() {
                    AmbientMode::Sky
                } else {
                    AmbientMode::Hemisphere
                }
            }
        }
    }
    /// The zone with id `id`.
    pub fn bake_zone(&self, id: &str) -> Option<&BakeZone> {
        self.bake_zones.iter().find(|z| z.id == id)
    }

    /// The lighting block's rules: sRGB colors in [0, 1], sky and skyImage exclusive, the
    /// sky's ranges, and the lightmap, bake zone and giVolume rules.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        for (field, value, pair) in [
            ("sunColor", &self.sun_color, "sunIntensity"),
            ("ambientSky", &self.ambient_sky, "ambientIntensity"),
            ("ambientGround", &self.ambient_ground, "ambientIntensity"),
        ] {
            if let Some(c) = value {
                check::srgb(cx, at, field, c, Some(pair));
            }
        }
        if let Some(g) = self.sky_mie_anisotropy {
            if !(0.0..1.0).contains(&g) {
                cx.error_at(
                    at,
                    at.field("skyMieAnisotropy"),
                    format!("lighting.skyMieAnisotropy must be in [0, 1), found {g}"),
                );
            }
        }
        if self.sky == Some(true) && self.sky_image.is_some() {
            cx.error_at(
                at,
                at.field("skyImage"),
                "skyImage and sky: true cannot both be set: two skies would draw over each other and project two different ambients; remove one (sky: false beside an image is accepted)",
            );
        }
        if let Some(img) = &self.sky_image {
            super::sky_image::check_path(cx, img);
        }
        if let Some(lm) = &self.lightmap {
            lm.validate(cx);
        }
        if let Some(gi) = &self.gi_volume {
            gi.validate(cx);
        }
        self.validate_bake_zones(cx);
    }

    fn validate_bake_zones(&self, cx: &mut Cx) {
        let mut seen: Vec<&str> = Vec::new();
        for zone in &self.bake_zones {
            let zat = &zone.at;
            if zone.id.trim().is_empty() {
                if zat.has("id") {
                    cx.error_at(zat, zat.field("id"), "a bake zone's id must not be empty");
                }
            } else if seen.contains(&zone.id.as_str()) {
                cx.error_at(
                    zat,
                    zat.field("id"),
                    format!(
                        "bake zone id '{}' is used twice; a zone's id must be unique in the map",
                        zone.id
                    ),
                );
            } else {
                seen.push(&zone.id);
            }
            if let Some(d) = zone.texel_density {
                if d <= 0.0 {
                    cx.error_at(
                        zat,
                        zat.field("texelDensity"),
                        format!(
                            "bake zone '{}': texelDensity must be positive, found {d}",
                            zone.id
                        ),
                    );
                }
            }
            let mut names: Vec<&str> = Vec::new();
            for set in &zone.sets {
                let sat = &set.at;
                if set.name == BakeSet::DEFAULT_NAME {
                    cx.error_at(
                        sat,
                        sat.field("name"),
                        format!(
                            "bake set name 'default' is reserved for zone '{}''s authored state; name the set something else",
                            zone.id
                        ),
                    );
                } else if set.name.trim().is_empty() {
                    if sat.has("name") {
                        cx.error_at(
                            sat,
                            sat.field("name"),
                            "a bake set's name must not be empty",
                        );
                    }
                } else if names.contains(&set.name.as_str()) {
                    cx.error_at(
                        sat,
                        sat.field("name"),
                        format!(
                            "bake set '{}' is named twice in zone '{}'; a set's name must be unique in its zone",
                            set.name, zone.id
                        ),
                    );
                } else {
                    names.push(&set.name);
                }
                for (_, _, light) in set.lights.iter().flat_map(|t| t.entries.iter()) {
                    if let Some(c) = &light.color {
                        check::srgb(cx, &light.at, "color", c, Some("intensity"));
                    }
                }
                for (_, _, em) in set.emission.iter().flat_map(|t| t.entries.iter()) {
                    if let Some(c) = &em.color {
                        check::srgb(cx, &em.at, "color", c, Some("intensity"));
                    }
                }
            }
        }
    }
}
