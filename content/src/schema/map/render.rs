//! The `render` block (exposure, tonemap, the hable curve, bloom) and the top-level `look`
//! (spec: dh.map, "Adopting a look by name" and "The world's look").

use super::check;
use super::lighting::LightFalloff;
use crate::jsonc::{Kind, Value};
use crate::read::{unknown_token_message, Cx, FromJson, ToJson};

/// A tonemap curve. Matched case-insensitively when read (`"ACES"` is accepted); written
/// back in its canonical spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tonemap {
    /// `reinhardWhite`: the default; a gain near 0.98 through the darks, white at linear 4.
    #[default]
    ReinhardWhite,
    /// `aces`.
    Aces,
    /// `reinhard`.
    Reinhard,
    /// `hable`: Hable's Uncharted 2 curve, shaped by `render.hable`.
    Hable,
    /// `none`: no tone curve.
    None,
}

impl Tonemap {
    /// Every curve name, canonical spelling.
    pub const TOKENS: &'static [&'static str] =
        &["reinhardWhite", "aces", "reinhard", "hable", "none"];

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Tonemap::ReinhardWhite => "reinhardWhite",
            Tonemap::Aces => "aces",
            Tonemap::Reinhard => "reinhard",
            Tonemap::Hable => "hable",
            Tonemap::None => "none",
        }
    }

    /// Parses a curve name, case-insensitively.
    pub fn parse(s: &str) -> Option<Tonemap> {
        [
            Tonemap::ReinhardWhite,
            Tonemap::Aces,
            Tonemap::Reinhard,
            Tonemap::Hable,
            Tonemap::None,
        ]
        .into_iter()
        .find(|t| t.as_str().eq_ignore_ascii_case(s))
    }
}

impl FromJson for Tonemap {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a string (tonemap)", v);
            return None;
        };
        let t = Tonemap::parse(s);
        if t.is_none() {
            let msg = unknown_token_message("tonemap", s, Self::TOKENS);
            cx.error(v.span, msg);
        }
        t
    }
}

impl ToJson for Tonemap {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::String(self.as_str().to_string()))
    }
}

/// The seven numbers of a hable curve, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HableCurve {
    /// A: shoulder strength.
    pub shoulder_strength: f64,
    /// B: linear strength.
    pub linear_strength: f64,
    /// C: linear angle.
    pub linear_angle: f64,
    /// D: toe strength.
    pub toe_strength: f64,
    /// E: toe numerator.
    pub toe_numerator: f64,
    /// F: toe denominator.
    pub toe_denominator: f64,
    /// W: linear white point.
    pub white_point: f64,
}

impl HableCurve {
    /// Hable's published Uncharted 2 coefficients (A 0.15, B 0.50, C 0.10, D 0.20, E 0.02,
    /// F 0.30, W 11.2): what `render.hable` defaults to.
    pub const PUBLISHED: HableCurve = HableCurve {
        shoulder_strength: 0.15,
        linear_strength: 0.50,
        linear_angle: 0.10,
        toe_strength: 0.20,
        toe_numerator: 0.02,
        toe_denominator: 0.30,
        white_point: 11.2,
    };

    /// The unnormalized curve at linear `x`.
    pub fn partial(&self, x: f64) -> f64 {
        let (a, b, c, d, e, f) = (
            self.shoulder_strength,
            self.linear_strength,
            self.linear_angle,
            self.toe_strength,
            self.toe_numerator,
            self.toe_denominator,
        );
        ((x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f)) - e / f
    }
}

block! {
    /// `render.hable`: the coefficients and white point of the hable curve, each optional
    /// (an omitted one is Hable's published value).
    pub struct Hable = "render.hable" {
        /// A: shoulder strength (> 0).
        opt shoulder_strength: f64 = "shoulderStrength",
        /// B: linear strength (> 0).
        opt linear_strength: f64 = "linearStrength",
        /// C: linear angle (≥ 0).
        opt linear_angle: f64 = "linearAngle",
        /// D: toe strength (> 0).
        opt toe_strength: f64 = "toeStrength",
        /// E: toe numerator (≥ 0).
        opt toe_numerator: f64 = "toeNumerator",
        /// F: toe denominator (> 0).
        opt toe_denominator: f64 = "toeDenominator",
        /// W: the linear white point (> 0).
        opt white_point: f64 = "whitePoint",
    }
}

impl Hable {
    /// The curve with every omitted field at its published value.
    pub fn curve(&self) -> HableCurve {
        let p = HableCurve::PUBLISHED;
        HableCurve {
            shoulder_strength: self.shoulder_strength.unwrap_or(p.shoulder_strength),
            linear_strength: self.linear_strength.unwrap_or(p.linear_strength),
            linear_angle: self.linear_angle.unwrap_or(p.linear_angle),
            toe_strength: self.toe_strength.unwrap_or(p.toe_strength),
            toe_numerator: self.toe_numerator.unwrap_or(p.toe_numerator),
            toe_denominator: self.toe_denominator.unwrap_or(p.toe_denominator),
            white_point: self.white_point.unwrap_or(p.white_point),
        }
    }

    /// The hable ranges: the shoulder, linear and toe strengths, the toe denominator and the
    /// white point positive, the linear angle and toe numerator not negative, and the curve
    /// rising to a white point above its black (so it can be normalized to white).
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        let mut ok = true;
        for (field, v) in [
            ("shoulderStrength", self.shoulder_strength),
            ("linearStrength", self.linear_strength),
            ("toeStrength", self.toe_strength),
            ("toeDenominator", self.toe_denominator),
            ("whitePoint", self.white_point),
        ] {
            if v.is_some_and(|v| v <= 0.0) {
                ok = false;
            }
            check::positive(cx, at, "render.hable", field, v);
        }
        for (field, v) in [
            ("linearAngle", self.linear_angle),
            ("toeNumerator", self.toe_numerator),
        ] {
            if v.is_some_and(|v| v < 0.0) {
                ok = false;
            }
            check::at_least(cx, at, "render.hable", field, v, 0.0);
        }
        if ok {
            let c = self.curve();
            let white = c.partial(c.white_point);
            if !(white.is_finite() && white > 0.0) {
                cx.error_at(
                    at,
                    at.span,
                    format!(
                        "render.hable: the curve at whitePoint {} comes out at {white}, not above black, so it cannot be normalized to white; adjust the coefficients",
                        c.white_point
                    ),
                );
            }
        }
    }
}

block! {
    /// The top-level `render` block: how the map's light resolves to the screen. Every
    /// field is optional; an omitted one keeps the engine default, or the look's.
    pub struct Render = "render" {
        /// Linear multiplier on scene radiance before the tonemap, > 0 (default 1).
        opt exposure: f64 = "exposure",
        /// The tonemap curve (default reinhardWhite).
        opt tonemap: Tonemap = "tonemap",
        /// The hable curve's coefficients.
        opt hable: Hable = "hable",
        /// Whether bright areas bloom at all (default true).
        opt bloom: bool = "bloom",
        /// Linear multiplier the bloom is added back with, ≥ 0 (default 0.30).
        opt bloom_intensity: f64 = "bloomIntensity",
        /// Linear radiance above which a pixel blooms, ≥ 0 (default 1.721).
        opt bloom_threshold: f64 = "bloomThreshold",
        /// The knee below the threshold as a fraction of it, 0–1 (default 0.5).
        opt bloom_soft_knee: f64 = "bloomSoftKnee",
        /// How far the bloom spreads, in pyramid levels, 1–10 (default 10).
        opt bloom_diffusion: f64 = "bloomDiffusion",
        /// Aspect distortion of the glow, -1–1 (default -0.24).
        opt bloom_anamorphic: f64 = "bloomAnamorphic",
    }
}

impl Render {
    /// `exposure` when omitted.
    pub const DEFAULT_EXPOSURE: f64 = 1.0;
    /// `tonemap` when omitted.
    pub const DEFAULT_TONEMAP: Tonemap = Tonemap::ReinhardWhite;
    /// `bloom` when omitted.
    pub const DEFAULT_BLOOM: bool = true;
    /// `bloomIntensity` when omitted.
    pub const DEFAULT_BLOOM_INTENSITY: f64 = 0.30;
    /// `bloomThreshold` when omitted (display-space 1.28 as linear).
    pub const DEFAULT_BLOOM_THRESHOLD: f64 = 1.721;
    /// `bloomSoftKnee` when omitted.
    pub const DEFAULT_BLOOM_SOFT_KNEE: f64 = 0.5;
    /// `bloomDiffusion` when omitted.
    pub const DEFAULT_BLOOM_DIFFUSION: f64 = 10.0;
    /// `bloomAnamorphic` when omitted.
    pub const DEFAULT_BLOOM_ANAMORPHIC: f64 = -0.24;

    /// The exposure.
    pub fn exposure(&self) -> f64 {
        self.exposure.unwrap_or(Self::DEFAULT_EXPOSURE)
    }
    /// The tonemap curve.
    pub fn tonemap(&self) -> Tonemap {
        self.tonemap.unwrap_or(Self::DEFAULT_TONEMAP)
    }
    /// The hable curve, published values where unset.
    pub fn hable_curve(&self) -> HableCurve {
        self.hable
            .as_ref()
            .map(Hable::curve)
            .unwrap_or(HableCurve::PUBLISHED)
    }
    /// Whether bloom is on.
    pub fn bloom(&self) -> bool {
        self.bloom.unwrap_or(Self::DEFAULT_BLOOM)
    }
    /// The bloom intensity.
    pub fn bloom_intensity(&self) -> f64 {
        self.bloom_intensity
            .unwrap_or(Self::DEFAULT_BLOOM_INTENSITY)
    }
    /// The bloom threshold.
    pub fn bloom_threshold(&self) -> f64 {
        self.bloom_threshold
            .unwrap_or(Self::DEFAULT_BLOOM_THRESHOLD)
    }
    /// The bloom soft knee.
    pub fn bloom_soft_knee(&self) -> f64 {
        self.bloom_soft_knee
            .unwrap_or(Self::DEFAULT_BLOOM_SOFT_KNEE)
    }
    /// The bloom diffusion.
    pub fn bloom_diffusion(&self) -> f64 {
        self.bloom_diffusion
            .unwrap_or(Self::DEFAULT_BLOOM_DIFFUSION)
    }
    /// The bloom anamorphic ratio.
    pub fn bloom_anamorphic(&self) -> f64 {
        self.bloom_anamorphic
            .unwrap_or(Self::DEFAULT_BLOOM_ANAMORPHIC)
    }

    /// The render ranges: "A value outside the range above is a compile error, not a
    /// silent clamp".
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        check::positive(cx, at, "render", "exposure", self.exposure);
        check::at_least(
            cx,
            at,
            "render",
            "bloomIntensity",
            self.bloom_intensity,
            0.0,
        );
        check::at_least(
            cx,
            at,
            "render",
            "bloomThreshold",
            self.bloom_threshold,
            0.0,
        );
        check::within(
            cx,
            at,
            ("render", "bloomSoftKnee"),
            self.bloom_soft_knee,
            (0.0, 1.0, "0–1"),
        );
        check::within(
            cx,
            at,
            ("render", "bloomDiffusion"),
            self.bloom_diffusion,
            (1.0, 10.0, "1–10"),
        );
        check::within(
            cx,
            at,
            ("render", "bloomAnamorphic"),
            self.bloom_anamorphic,
            (-1.0, 1.0, "-1–1"),
        );
        if let Some(h) = &self.hable {
            h.validate(cx);
        }
    }
}

tokens! {
    /// A built-in look, adopted by slug.
    pub enum BuiltinLook as "look" {
        /// The engine defaults, stated explicitly.
        #[default]
        Neutral = "neutral",
        /// Unity's built-in pipeline.
        Unity = "unity",
        /// Source-style shading: a full half-Lambert wrap through the default curve.
        Source = "source",
        /// Hable's Uncharted 2 curve with its published coefficients.
        Filmic = "filmic",
    }
}

/// What a look seeds: the response chain only, never a scene's sun, colors or intensity
/// scales. `None` leaves the field to the level below (the engine default).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LookSeed {
    /// `render.exposure`.
    pub exposure: Option<f64>,
    /// `render.tonemap`.
    pub tonemap: Option<Tonemap>,
    /// `render.bloomThreshold`.
    pub bloom_threshold: Option<f64>,
    /// `render.bloomSoftKnee`.
    pub bloom_soft_knee: Option<f64>,
    /// `render.bloomDiffusion`.
    pub bloom_diffusion: Option<f64>,
    /// `render.bloomAnamorphic`.
    pub bloom_anamorphic: Option<f64>,
    /// `lighting.halfLambert`.
    pub half_lambert: Option<f64>,
    /// `lighting.falloff`.
    pub falloff: Option<LightFalloff>,
}

impl BuiltinLook {
    /// What the look sets, per the spec's slug table.
    pub fn seed(self) -> LookSeed {
        match self {
            BuiltinLook::Neutral => LookSeed::default(),
            BuiltinLook::Unity => LookSeed {
                tonemap: Some(Tonemap::None),
                half_lambert: Some(0.0),
                falloff: Some(LightFalloff::Unity),
                bloom_threshold: Some(1.721),
                bloom_soft_knee: Some(0.5),
                bloom_diffusion: Some(6.2),
                bloom_anamorphic: Some(-0.24),
                ..LookSeed::default()
            },
            BuiltinLook::Source => LookSeed {
                half_lambert: Some(1.0),
                ..LookSeed::default()
            },
            BuiltinLook::Filmic => LookSeed {
                tonemap: Some(Tonemap::Hable),
                ..LookSeed::default()
            },
        }
    }
}

/// What a `look` value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookRef<'a> {
    /// A built-in look's slug (slugs win over any asset).
    Builtin(BuiltinLook),
    /// A reference to a dh.look asset (`looks/night.dh-look`, `/looks/night.dh-look`,
    /// `dev.example.looks:looks/night.dh-look`), resolved like any reference.
    Asset(&'a str),
    /// Neither: an unknown look, a compile error.
    Unknown,
}

/// The extension of a dh.look asset.
pub const LOOK_EXTENSION: &str = ".dh-look";

/// Classifies a `look` value.
pub fn classify_look(s: &str) -> LookRef<'_> {
    if let Some(b) = BuiltinLook::parse(s) {
        LookRef::Builtin(b)
    } else if s.len() > LOOK_EXTENSION.len() && s.ends_with(LOOK_EXTENSION) {
        LookRef::Asset(s)
    } else {
        LookRef::Unknown
    }
}

/// The compile error for an unknown look: names it and lists the valid ones.
pub fn unknown_look_message(s: &str) -> String {
    format!(
        "unknown look '{s}'; the valid looks are: {}, or a reference to a dh.look asset (a {LOOK_EXTENSION} path or barcode){}",
        BuiltinLook::TOKENS.join(", "),
        crate::diag::did_you_mean(s, BuiltinLook::TOKENS.iter().copied())
    )
}
