//! The `backdrop` block: a small scene drawn behind the world with parallax, Source's 3D
//! skybox (spec: dh.map, "Backdrop").

use super::check;
use crate::read::Cx;
use crate::schema::common::{Guid, Vec3};

block! {
    /// `backdrop.fog`: the backdrop's own linear distance fog, which never reaches the world.
    pub struct BackdropFog = "backdrop.fog" {
        /// The fog color, sRGB in [0, 1].
        req color: Vec3 = "color",
        /// Where the fog starts, in meters from the eye (may be negative).
        req start: f64 = "start",
        /// Where the fog reaches maxDensity, in meters; must exceed start.
        req end: f64 = "end",
        /// The most of the color a surface takes, in [0, 1] (default 1).
        opt max_density: f64 = "maxDensity",
    }
}

impl BackdropFog {
    /// `maxDensity` when omitted.
    pub const DEFAULT_MAX_DENSITY: f64 = 1.0;

    /// The most of the fog color a surface takes.
    pub fn max_density(&self) -> f64 {
        self.max_density.unwrap_or(Self::DEFAULT_MAX_DENSITY)
    }

    /// How much of the fog color a surface at `distance` meters takes:
    /// `clamp((distance - start) / (end - start), 0, maxDensity)`.
    pub fn amount(&self, distance: f64) -> f64 {
        let span = self.end - self.start;
        if span <= 0.0 {
            return 0.0;
        }
        ((distance - self.start) / span).clamp(0.0, self.max_density().max(0.0))
    }

    /// The fog rules: color in [0, 1], maxDensity in [0, 1], end must exceed start.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if at.has("color") {
            check::srgb(cx, at, "color", &self.color, None);
        }
        check::unit_interval(cx, at, "backdrop.fog", "maxDensity", self.max_density);
        if at.has("start") && at.has("end") && self.end <= self.start {
            cx.error_at(
                at,
                at.field("end"),
                format!(
                    "backdrop.fog.end must exceed start, found start {} and end {}",
                    self.start, self.end
                ),
            );
        }
    }
}

block! {
    /// The top-level `backdrop` block.
    pub struct Backdrop = "backdrop" {
        /// The point the eye maps to, in the map's own meters (Valve's sky_camera origin).
        opt anchor: Vec3 = "anchor",
        /// How many times larger than built the backdrop appears (default 16); positive.
        opt scale: f64 = "scale",
        /// Paths of parts of the world instance that belong to the backdrop.
        list parts: String = "parts",
        /// The id of a folder record whose records, at any depth, draw in the backdrop.
        opt folder: Guid = "folder",
        /// The backdrop's own distance fog.
        opt fog: BackdropFog = "fog",
    }
}

impl Backdrop {
    /// `scale` when omitted: Valve's 16.
    pub const DEFAULT_SCALE: f64 = 16.0;

    /// The anchor (the map origin when omitted).
    pub fn anchor(&self) -> Vec3 {
        self.anchor.unwrap_or(Vec3::ZERO)
    }
    /// The parallax scale.
    pub fn scale(&self) -> f64 {
        self.scale.unwrap_or(Self::DEFAULT_SCALE)
    }

    /// The backdrop's own rules: scale positive, part paths not empty, the fog's rules.
    /// That `folder` names a folder record is checked against the records by
    /// [`validate_map`](super::validate_map).
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        check::positive(cx, at, "backdrop", "scale", self.scale);
        if self.parts.iter().any(|p| p.trim().is_empty()) {
            cx.error_at(
                at,
                at.field("parts"),
                "backdrop.parts holds an empty path; each entry is the path of a part of the world instance",
            );
        }
        if let Some(f) = &self.folder {
            if f.is_nil() {
                cx.error_at(
                    at,
                    at.field("folder"),
                    "backdrop.folder is the all-zero GUID, which names no folder",
                );
            }
        }
        if let Some(fog) = &self.fog {
            fog.validate(cx);
        }
    }
}
