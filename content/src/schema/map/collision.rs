//! `autoCollision` and `hullOptions`: how the world model becomes collision for a part that
//! authors no `dh.collider` (spec: dh.map, "Automatic collision", "hullOptions").

use crate::jsonc::{Kind, Value};
use crate::read::{unknown_token_message, Cx, FromJson, ToJson};

/// The values `autoCollision` takes, as written, for messages.
pub const AUTO_COLLISION_VALUES: &[&str] = &["\"mesh\"", "\"boxes\"", "\"hulls\"", "false"];

/// `autoCollision`: `"mesh" | "boxes" | "hulls" | false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AutoCollision {
    /// `"mesh"`: true-to-shape concave collision cooked from the visual triangles (the
    /// default, used when the field is absent).
    #[default]
    Mesh,
    /// `"boxes"`: one oriented bounding box per mesh node, baked at compile time.
    Boxes,
    /// `"hulls"`: a convex decomposition of each mesh node, baked at compile time.
    Hulls,
    /// `false`: no automatic collision; a part collides only if it authors a `dh.collider`.
    Off,
}

impl AutoCollision {
    /// The default when the member is absent: `"mesh"`.
    pub const DEFAULT: AutoCollision = AutoCollision::Mesh;

    /// Whether the mode bakes shapes at compile time (`"boxes"` and `"hulls"`).
    pub fn bakes_shapes(self) -> bool {
        matches!(self, AutoCollision::Boxes | AutoCollision::Hulls)
    }
}

impl FromJson for AutoCollision {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::String(s) => match s.as_str() {
                "mesh" => Some(AutoCollision::Mesh),
                "boxes" => Some(AutoCollision::Boxes),
                "hulls" => Some(AutoCollision::Hulls),
                other => {
                    let msg = unknown_token_message("autoCollision", other, AUTO_COLLISION_VALUES);
                    cx.error(v.span, msg);
                    None
                }
            },
            Kind::Bool(false) => Some(AutoCollision::Off),
            Kind::Bool(true) => {
                cx.error(
                    v.span,
                    format!(
                        "'true' is not a valid autoCollision; expected one of: {} (omit the member for the default \"mesh\")",
                        AUTO_COLLISION_VALUES.join(", ")
                    ),
                );
                None
            }
            _ => {
                cx.expected("\"mesh\", \"boxes\", \"hulls\" or false (autoCollision)", v);
                None
            }
        }
    }
}

impl ToJson for AutoCollision {
    fn to_json(&self) -> Value {
        Value::synthetic(match self {
            AutoCollision::Mesh => Kind::String("mesh".into()),
            AutoCollision::Boxes => Kind::String("boxes".into()),
            AutoCollision::Hulls => Kind::String("hulls".into()),
            AutoCollision::Off => Kind::Bool(false),
        })
    }
}

block! {
    /// `hullOptions`: tuning for the `autoCollision: "hulls"` convex decomposition (ignored
    /// in `"boxes"` mode). Every field is optional; an omitted one takes the decomposition's
    /// default.
    pub struct HullOptions = "hullOptions" {
        /// Upper bound on the hulls produced per mesh node; an int > 0, default 64.
        opt max_convex_hulls: i64 = "maxConvexHulls",
        /// Voxelization budget (total voxels); an int > 0, default 400000.
        opt resolution: i64 = "resolution",
        /// Maximum vertices in each output hull, 4–255, default 64.
        opt max_vertices_per_hull: i64 = "maxVerticesPerHull",
        /// Volume-error convergence threshold in percent; a number > 0, default 1.0.
        opt min_volume_percent_error: f64 = "minVolumePercentError",
    }
}

impl HullOptions {
    /// `maxConvexHulls` when omitted.
    pub const DEFAULT_MAX_CONVEX_HULLS: i64 = 64;
    /// `resolution` when omitted.
    pub const DEFAULT_RESOLUTION: i64 = 400_000;
    /// `maxVerticesPerHull` when omitted.
    pub const DEFAULT_MAX_VERTICES_PER_HULL: i64 = 64;
    /// The fewest vertices a hull can have.
    pub const MIN_VERTICES_PER_HULL: i64 = 4;
    /// The physics backend's hull vertex limit.
    pub const MAX_VERTICES_PER_HULL: i64 = 255;
    /// `minVolumePercentError` when omitted.
    pub const DEFAULT_MIN_VOLUME_PERCENT_ERROR: f64 = 1.0;

    /// `maxConvexHulls`, or its default.
    pub fn max_convex_hulls(&self) -> i64 {
        self.max_convex_hulls
            .unwrap_or(Self::DEFAULT_MAX_CONVEX_HULLS)
    }
    /// `resolution`, or its default.
    pub fn resolution(&self) -> i64 {
        self.resolution.unwrap_or(Self::DEFAULT_RESOLUTION)
    }
    /// `maxVerticesPerHull`, or its default.
    pub fn max_vertices_per_hull(&self) -> i64 {
        self.max_vertices_per_hull
            .unwrap_or(Self::DEFAULT_MAX_VERTICES_PER_HULL)
    }
    /// `minVolumePercentError`, or its default.
    pub fn min_volume_percent_error(&self) -> f64 {
        self.min_volume_percent_error
            .unwrap_or(Self::DEFAULT_MIN_VOLUME_PERCENT_ERROR)
    }

    /// The compile-time range checks ("Values are validated at compile time").
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if let Some(n) = self.max_convex_hulls {
            if n <= 0 {
                cx.error_at(
                    at,
                    at.field("maxConvexHulls"),
                    format!(
                        "hullOptions.maxConvexHulls must be an integer greater than 0, found {n}"
                    ),
                );
            }
        }
        if let Some(n) = self.resolution {
            if n <= 0 {
                cx.error_at(
                    at,
                    at.field("resolution"),
                    format!("hullOptions.resolution must be an integer greater than 0, found {n}"),
                );
            }
        }
        if let Some(n) = self.max_vertices_per_hull {
            if !(Self::MIN_VERTICES_PER_HULL..=Self::MAX_VERTICES_PER_HULL).contains(&n) {
                cx.error_at(
                    at,
                    at.field("maxVerticesPerHull"),
                    format!(
                        "hullOptions.maxVerticesPerHull must be in 4–255 (at least 4, a hull's minimum, and at most the physics backend's 255-vertex hull limit), found {n}"
                    ),
                );
            }
        }
        if let Some(x) = self.min_volume_percent_error {
            if x <= 0.0 {
                cx.error_at(
                    at,
                    at.field("minVolumePercentError"),
                    format!("hullOptions.minVolumePercentError must be a number greater than 0, found {x}"),
                );
            }
        }
    }
}
