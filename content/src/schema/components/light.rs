//! `dh.light`: an analytic light and, with a `dh.box` beside it, a fixture that swaps the
//! box's material with the light's on/off state.

use super::ComponentCx;
use crate::read::Cx;
use crate::schema::common::Vec3;

tokens! {
    /// What a light emits.
    pub enum LightKind as "light kind" {
        /// From a point, in every direction (the default).
        #[default]
        Point = "point",
        /// A cone down the object's local -Y.
        Spot = "spot",
        /// A sun down the object's local -Y, with no distance term.
        Directional = "directional",
        /// Nothing: a pure material-swap prop.
        None = "none",
    }
}

tokens! {
    /// A light's distance curve.
    pub enum Falloff as "light falloff" {
        /// Inverse-square windowed to zero at range (the engine default).
        #[default]
        Physical = "physical",
        /// Unity's built-in pipeline's bounded curve.
        Unity = "unity",
    }
}

tokens! {
    /// Where a light is evaluated.
    pub enum LightMode as "light mode" {
        /// Shaded every frame from the runtime light list (the default).
        #[default]
        Realtime = "realtime",
        /// Baked into the lightmap; needs an enabled `lighting.lightmap`.
        Baked = "baked",
        /// Baked where the lightmap covers, live everywhere else.
        Mixed = "mixed",
    }
}

tokens! {
    /// A field the `lights.set` console command retunes for a session (a scene field edit
    /// of the light's own member).
    pub enum LightTuning as "light field" {
        /// `color`, three sRGB numbers (first, hence `Default`).
        #[default]
        Color = "color",
        /// `intensity`.
        Intensity = "intensity",
        /// `range`.
        Range = "range",
        /// `falloff`, a falloff token.
        Falloff = "falloff",
        /// `innerConeDegrees`.
        InnerCone = "innerCone",
        /// `outerConeDegrees`.
        OuterCone = "outerCone",
        /// `mode`, a mode token.
        Mode = "mode",
        /// `light`: point, spot or directional.
        Kind = "kind",
    }
}

impl LightTuning {
    /// The `dh.light` member the console token edits (`innerCone` edits
    /// `innerConeDegrees`, `kind` edits `light`).
    pub fn member(self) -> &'static str {
        match self {
            LightTuning::Color => "color",
            LightTuning::Intensity => "intensity",
            LightTuning::Range => "range",
            LightTuning::Falloff => "falloff",
            LightTuning::InnerCone => "innerConeDegrees",
            LightTuning::OuterCone => "outerConeDegrees",
            LightTuning::Mode => "mode",
            LightTuning::Kind => "light",
        }
    }
}

block! {
    /// `dh.light`.
    pub struct Light = "dh.light" {
        /// `point` (default), `spot`, `directional` or `none`.
        opt light: LightKind = "light",
        /// sRGB face values in [0, 1], hue only; `[1, 1, 1]` when left out.
        opt color: Vec3 = "color",
        /// Linear, unbounded brightness; 25 when left out.
        opt intensity: f64 = "intensity",
        /// Influence radius in meters; 10 when left out. Unused by directional.
        opt range: f64 = "range",
        /// `physical` or `unity`; the world's default when left out.
        opt falloff: Falloff = "falloff",
        /// Emission point relative to the position, world axes.
        opt offset: Vec3 = "offset",
        /// Spot only: the fully-lit half-angle; 30 when left out.
        opt inner_cone_degrees: f64 = "innerConeDegrees",
        /// Spot only: the half-angle the light reaches zero at; 45 when left out. Must
        /// exceed the inner one.
        opt outer_cone_degrees: f64 = "outerConeDegrees",
        /// `realtime` (default), `baked` or `mixed`.
        opt mode: LightMode = "mode",
        /// A baked point or spot light's emitter radius in meters; 0.05 when left out.
        opt radius: f64 = "radius",
        /// A baked directional light's angular diameter in degrees; 0.53 when left out.
        opt angular_diameter: f64 = "angularDiameter",
        /// Shadow rays per lightmap sample across the radius, at most 64; 8 when left out.
        opt shadow_samples: u32 = "shadowSamples",
        /// Whether the light starts lit. Unset: a fixture starts off, a bare emitter on.
        opt start_on: bool = "startOn",
        /// A fixture's material slot while the light is off.
        opt material_off: String = "materialOff",
    }
}

/// A light's intensity when it states none.
pub const DEFAULT_INTENSITY: f64 = 25.0;
/// A light's range when it states none, in meters.
pub const DEFAULT_RANGE: f64 = 10.0;
/// A spot's inner cone half-angle when it states none, in degrees.
pub const DEFAULT_INNER_CONE: f64 = 30.0;
/// A spot's outer cone half-angle when it states none, in degrees.
pub const DEFAULT_OUTER_CONE: f64 = 45.0;
/// A baked light's emitter radius when it states none, in meters.
pub const DEFAULT_RADIUS: f64 = 0.05;
/// A baked directional light's angular diameter when it states none, in degrees.
pub const DEFAULT_ANGULAR_DIAMETER: f64 = 0.53;
/// A baked light's shadow rays per sample when it states none.
pub const DEFAULT_SHADOW_SAMPLES: u32 = 8;
/// The most shadow rays per sample a baked light may spend.
pub const MAX_SHADOW_SAMPLES: u32 = 64;

impl Light {
    /// What it emits: `light`, or point.
    pub fn kind_or_default(&self) -> LightKind {
        self.light.unwrap_or_default()
    }

    /// Its color: `color`, or white.
    pub fn color_or_default(&self) -> Vec3 {
        self.color.unwrap_or(Vec3::ONE)
    }

    /// Its mode: `mode`, or realtime.
    pub fn mode_or_default(&self) -> LightMode {
        self.mode.unwrap_or_default()
    }

    /// The cone half-angles `(inner, outer)` in degrees, defaults filled in.
    pub fn cones(&self) -> (f64, f64) {
        (
            self.inner_cone_degrees.unwrap_or(DEFAULT_INNER_CONE),
            self.outer_cone_degrees.unwrap_or(DEFAULT_OUTER_CONE),
        )
    }

    /// Whether the light starts lit: `startOn`, else off for a fixture (`has_box`: a
    /// `dh.box` beside it) and on for a bare emitter.
    pub fn starts_on(&self, has_box: bool) -> bool {
        self.start_on.unwrap_or(!has_box)
    }

    /// Runs this component's build-time rules: a color of sRGB values in [0, 1], no
    /// negative `intensity` or `range`, an outer cone past the inner one, `mode: baked` only with an enabled lightmap, at most 64
    /// shadow samples, and a `materialOff` that is one of the map's slots. (An unknown
    /// `light`, `falloff` or `mode` is refused when read, listing the tokens.)
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.light");
        if let Some(c) = self.color {
            if c.0.iter().any(|v| !(0.0..=1.0).contains(v)) {
                cx.error_at(
                    &self.at,
                    self.at.field("color"),
                    format!(
                        "{label} 'color' must be sRGB face values in [0, 1], found [{}, {}, {}]: 1 already is white, so brightness belongs in 'intensity'",
                        c.x(),
                        c.y(),
                        c.z()
                    ),
                );
            }
        }
        // Ours (the spec is silent): a negative brightness or radius means nothing, so it
        // is refused like a negative emission intensity.
        for (field, value) in [("intensity", self.intensity), ("range", self.range)] {
            if let Some(v) = value.filter(|v| *v < 0.0) {
                cx.error_at(
                    &self.at,
                    self.at.field(field),
                    format!("{label} '{field}' must not be negative, found {v}"),
                );
            }
        }
        let (inner, outer) = self.cones();
        if outer <= inner {
            let field = if self.at.has("outerConeDegrees") {
                "outerConeDegrees"
            } else {
                "innerConeDegrees"
            };
            cx.error_at(
                &self.at,
                self.at.field(field),
                format!(
                    "{label} 'outerConeDegrees' ({outer}) must exceed 'innerConeDegrees' ({inner})"
                ),
            );
        }
        if self.mode_or_default() == LightMode::Baked && !ccx.lightmap_enabled {
            cx.error_at(
                &self.at,
                self.at.field("mode"),
                format!(
                    "{label} 'mode' \"baked\" needs an enabled lighting.lightmap block: without one the light would vanish from the map; enable the lightmap or use \"realtime\" or \"mixed\""
                ),
            );
        }
        if let Some(n) = self.shadow_samples {
            if n > MAX_SHADOW_SAMPLES {
                cx.error_at(
                    &self.at,
                    self.at.field("shadowSamples"),
                    format!(
                        "{label} 'shadowSamples' must be at most {MAX_SHADOW_SAMPLES}, found {n}"
                    ),
                );
            }
        }
        if let Some(m) = &self.material_off {
            ccx.check_material(cx, &self.at, "materialOff", "dh.light", m);
        }
    }
}
