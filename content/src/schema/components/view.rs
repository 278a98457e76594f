//! The components that are a viewpoint: `dh.spawnPoint` (where a player stands and
//! faces) and `dh.camera` (a named fixed shot, and the map's thumbnail).

use super::ComponentCx;
use crate::jsonc::{Kind, Value};
use crate::read::{Cx, FromJson, ToJson};
use crate::schema::common::Vec2;

block! {
    /// `dh.spawnPoint`: the object's pose is the spawn (position the feet, the rotation's
    /// yaw the facing). The component holds no fields at all.
    pub struct SpawnPoint = "dh.spawnPoint" {}
}

tokens! {
    /// How a camera's shot projects.
    pub enum Projection as "camera projection" {
        /// A pinhole (the default).
        #[default]
        Perspective = "perspective",
        /// A parallel projection framed by `orthoSize`.
        Orthographic = "orthographic",
    }
}

tokens! {
    /// What the build does with a camera.
    pub enum CameraRole as "camera role" {
        /// Nothing (the default).
        #[default]
        None = "none",
        /// The map's thumbnail: the shot the build renders and ships beside the map.
        MapThumbnail = "mapThumbnail",
    }
}

/// A camera's `aspect`: `"viewport"` or a `"w:h"` pair of positive numbers.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Aspect {
    /// Whatever the output is (the default).
    #[default]
    Viewport,
    /// A stated frame shape, kept with the text it was written as (`"2.39:1"`).
    Ratio {
        /// Width part.
        w: f64,
        /// Height part.
        h: f64,
        /// As written.
        text: String,
    },
}

impl Aspect {
    /// Parses `"viewport"` or `"w:h"` with two positive finite numbers.
    pub fn parse(s: &str) -> Option<Aspect> {
        if s == "viewport" {
            return Some(Aspect::Viewport);
        }
        let (w, h) = s.split_once(':')?;
        let w: f64 = w.trim().parse().ok()?;
        let h: f64 = h.trim().parse().ok()?;
        if w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0 {
            Some(Aspect::Ratio {
                w,
                h,
                text: s.to_string(),
            })
        } else {
            None
        }
    }

    /// Width over height, or `None` for the viewport's own.
    pub fn ratio(&self) -> Option<f64> {
        match self {
            Aspect::Viewport => None,
            Aspect::Ratio { w, h, .. } => Some(w / h),
        }
    }
}

impl FromJson for Aspect {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a string (camera aspect: \"viewport\" or \"w:h\")", v);
            return None;
        };
        match Aspect::parse(s) {
            Some(a) => Some(a),
            None => {
                cx.error(
                    v.span,
                    format!(
                        "'{s}' is not a valid camera aspect; expected \"viewport\" or a w:h pair of positive numbers such as \"16:9\", \"4:3\" or \"1:1\""
                    ),
                );
                None
            }
        }
    }
}

impl ToJson for Aspect {
    fn to_json(&self) -> Value {
        let s = match self {
            Aspect::Viewport => "viewport".to_string(),
            Aspect::Ratio { text, .. } => text.clone(),
        };
        Value::synthetic(Kind::String(s))
    }
}

block! {
    /// `dh.camera`: a named fixed viewpoint. The object's name is the shot's name and its
    /// pose the camera's.
    pub struct Camera = "dh.camera" {
        /// Vertical field of view in degrees, in (0, 179]; 75 when left out.
        opt fov: f64 = "fov",
        /// `perspective` (default) or `orthographic`.
        opt projection: Projection = "projection",
        /// Half-height of the view box in meters; required under `orthographic`, rejected
        /// under `perspective`.
        opt ortho_size: f64 = "orthoSize",
        /// Near plane override, meters.
        opt near: f64 = "near",
        /// Far plane override, meters; greater than `near`.
        opt far: f64 = "far",
        /// `"viewport"` (default) or `"w:h"`.
        opt aspect: Aspect = "aspect",
        /// `none` (default) or `mapThumbnail`.
        opt role: CameraRole = "role",
        /// The thumbnail's pixel size `[width, height]`, each edge in [16, 4096];
        /// `[512, 512]` when left out. Only under the `mapThumbnail` role.
        opt thumbnail_size: Vec2 = "thumbnailSize",
        /// Whether a build re-renders the thumbnail when the map changed; `true` when left
        /// out. Read only under the `mapThumbnail` role.
        opt auto_capture: bool = "autoCapture",
    }
}

/// A camera's field of view when it authors none, in degrees.
pub const DEFAULT_FOV: f64 = 75.0;
/// The widest field of view a camera may author, in degrees.
pub const MAX_FOV: f64 = 179.0;
/// The thumbnail size when a thumbnail camera states none.
pub const DEFAULT_THUMBNAIL_SIZE: [u32; 2] = [512, 512];
/// The smallest edge of a thumbnail, in pixels.
pub const MIN_THUMBNAIL_EDGE: f64 = 16.0;
/// The largest edge of a thumbnail, in pixels.
pub const MAX_THUMBNAIL_EDGE: f64 = 4096.0;
/// The steepest pitch a camera may look, up or down, in degrees.
pub const MAX_PITCH: f64 = 90.0;

impl Camera {
    /// The field of view: `fov`, or 75.
    pub fn fov_or_default(&self) -> f64 {
        self.fov.unwrap_or(DEFAULT_FOV)
    }

    /// The projection: `projection`, or perspective.
    pub fn projection_or_default(&self) -> Projection {
        self.projection.unwrap_or_default()
    }

    /// The role: `role`, or none.
    pub fn role_or_default(&self) -> CameraRole {
        self.role.unwrap_or_default()
    }

    /// Whether this camera claims the map's thumbnail (`"role": "mapThumbnail"`); at most
    /// one camera per map may, which the map-wide check counts.
    pub fn claims_thumbnail(&self) -> bool {
        self.role_or_default() == CameraRole::MapThumbnail
    }

    /// The thumbnail's pixel size: `thumbnailSize` (whole numbers once validated), or
    /// 512 x 512.
    pub fn thumbnail_size_or_default(&self) -> [u32; 2] {
        match self.thumbnail_size {
            Some(Vec2([w, h])) => [w as u32, h as u32],
            None => DEFAULT_THUMBNAIL_SIZE,
        }
    }

    /// Whether a build re-renders the thumbnail when the map changed: `autoCapture`, or
    /// true.
    pub fn auto_capture_or_default(&self) -> bool {
        self.auto_capture.unwrap_or(true)
    }

    /// The shot's name: the owning record's name, when it is not blank. Cameras have their
    /// own name space, unique among the map's cameras (checked map-wide).
    pub fn shot_name(ccx: &ComponentCx) -> Option<&str> {
        ccx.name.as_deref().filter(|n| !n.trim().is_empty())
    }

    /// Runs this component's build-time rules: a non-blank name, a pitch within ±90, a fov
    /// in (0, 179], an `orthoSize` present and above zero under `orthographic` and absent
    /// under `perspective`, a `far` past `near`, and a `thumbnailSize` of whole edges in
    /// [16, 4096] stated only under the `mapThumbnail` role. (An unknown projection, role
    /// or aspect is refused when read.)
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.camera");
        if Camera::shot_name(ccx).is_none() {
            let span = ccx.record_at.field("name");
            cx.error_at(
                &ccx.record_at,
                span,
                format!(
                    "{label} needs a name: the object's name is the shot's name, required, non-empty and unique among the map's cameras"
                ),
            );
        }
        if let Some(rot) = ccx.rotation {
            let pitch = rot.x();
            if pitch.abs() > MAX_PITCH {
                cx.error_at(
                    &ccx.record_at,
                    ccx.record_at.field("rotation"),
                    format!(
                        "{label} pitch (the first slot of 'rotation') must be within ±90 degrees, found {pitch}"
                    ),
                );
            }
        }
        if let Some(fov) = self.fov {
            if !(fov > 0.0 && fov <= MAX_FOV) {
                cx.error_at(
                    &self.at,
                    self.at.field("fov"),
                    format!("{label} 'fov' must be in (0, 179], found {fov}"),
                );
            }
        }
        match (self.projection_or_default(), self.ortho_size) {
            (Projection::Orthographic, None) => cx.error_at(
                &self.at,
                self.at.field("projection"),
                format!(
                    "{label} 'orthoSize' is required under \"orthographic\": the half-height of the view box in meters"
                ),
            ),
            (Projection::Orthographic, Some(size)) if size <= 0.0 => cx.error_at(
                &self.at,
                self.at.field("orthoSize"),
                format!("{label} 'orthoSize' must be above zero, found {size}"),
            ),
            (Projection::Perspective, Some(_)) => cx.error_at(
                &self.at,
                self.at.field("orthoSize"),
                format!(
                    "{label} 'orthoSize' is rejected under \"perspective\": it frames an orthographic shot only; set \"projection\": \"orthographic\" or remove it"
                ),
            ),
            _ => {}
        }
        if let (Some(near), Some(far)) = (self.near, self.far) {
            if far <= near {
                cx.error_at(
                    &self.at,
                    self.at.field("far"),
                    format!("{label} 'far' ({far}) must be greater than 'near' ({near})"),
                );
            }
        }
        if let Some(Vec2([w, h])) = self.thumbnail_size {
            if !self.claims_thumbnail() {
                cx.error_at(
                    &self.at,
                    self.at.field("thumbnailSize"),
                    format!(
                        "{label} 'thumbnailSize' is rejected outside the \"mapThumbnail\" role"
                    ),
                );
            }
            let bad = |e: f64| {
                e.fract() != 0.0 || !(MIN_THUMBNAIL_EDGE..=MAX_THUMBNAIL_EDGE).contains(&e)
            };
            if bad(w) || bad(h) {
                cx.error_at(
                    &self.at,
                    self.at.field("thumbnailSize"),
                    format!(
                        "{label} 'thumbnailSize' edges must be whole pixels in [16, 4096], found [{w}, {h}]"
                    ),
                );
            }
        }
    }
}

impl SpawnPoint {
    /// A spawn point has no fields and no rules of its own: its pose is the spawn, and its
    /// pitch and roll are simply not read (a player spawns level). Kept for the dispatcher.
    pub fn validate(&self, _cx: &mut Cx, _ccx: &ComponentCx) {}
}
