//! The probe components: `dh.lightProbeVolume` (a box the indirect-light bake fills),
//! `dh.lightProbeGroup` (imported probes at arbitrary points) and `dh.reflectionProbe`
//! (a captured cubemap). Each is a presentation component whose object's transform is
//! its box.

use super::{ComponentCx, MapComponent};
use crate::read::Cx;
use crate::schema::common::Vec3;

block! {
    /// `dh.lightProbeVolume`: a box of probes. The object's position is its center and its
    /// scale its full extents; its rotation must stay `[0, 0, 0]`.
    pub struct LightProbeVolume = "dh.lightProbeVolume" {
        /// Meters between adjacent probes, in 0.1–64; `lighting.giVolume.probeSpacing` when
        /// left out.
        opt probe_spacing: f64 = "probeSpacing",
        /// Probes at cell centers (default `true`) or on the faces (`false`).
        opt inset_probes: bool = "insetProbes",
        /// The bake zone whose sets this box's probes switch with.
        opt bake_zone: String = "bakeZone",
        /// Whether the box rides what carries it (default `false`).
        opt dynamic: bool = "dynamic",
    }
}

tokens! {
    /// What light a probe group holds.
    pub enum ProbeContents as "probe group contents" {
        /// Sky and bounce (the default).
        #[default]
        Indirect = "indirect",
        /// The lamps too.
        Full = "full",
    }
}

block! {
    /// `dh.lightProbeGroup`: probes at arbitrary points, read from a `.dh-probegroup` file.
    /// The object's transform is a translation only.
    pub struct LightProbeGroup = "dh.lightProbeGroup" {
        /// The pallet-relative path of the group's `.dh-probegroup` file.
        req probes: String = "probes",
        /// `indirect` (default) or `full`.
        opt contents: ProbeContents = "contents",
        /// The bake zone the group belongs to.
        opt bake_zone: String = "bakeZone",
        /// Gather the group's light again at a probe bake. Not built yet.
        opt bake: bool = "bake",
        /// Whether the group rides what carries it (default `false`).
        opt dynamic: bool = "dynamic",
    }
}

tokens! {
    /// What a reflection probe is projected onto.
    pub enum ReflectionProjection as "reflection probe projection" {
        /// Its transform is a box the surfaces inside reflect (the default).
        #[default]
        Box = "box",
        /// Source's env_cubemap: a point, reflected by the surfaces bound to it.
        None = "none",
    }
}

block! {
    /// `dh.reflectionProbe`: a cubemap captured inside the object's box, named by the
    /// object's name.
    pub struct ReflectionProbe = "dh.reflectionProbe" {
        /// Where the cube is captured, an offset in meters from the position; the box center
        /// when left out.
        opt capture_point: Vec3 = "capturePoint",
        /// Parallax-correct the lookup against the box (default `false`).
        opt box_projection: bool = "boxProjection",
        /// Cube face size in pixels: 64, 128 (default), 256 or 512.
        opt resolution: u32 = "resolution",
        /// Overlap tie-break; the highest wins outright (default 0).
        opt importance: i32 = "importance",
        /// How far inside the box the weight eases in, meters over 0–64 (default 1).
        opt blend_distance: f64 = "blendDistance",
        /// `box` (default) or `none`.
        opt projection: ReflectionProjection = "projection",
    }
}

/// The closest probe spacing a volume may author, in meters.
pub const MIN_PROBE_SPACING: f64 = 0.1;
/// The widest probe spacing a volume may author, in meters.
pub const MAX_PROBE_SPACING: f64 = 64.0;
/// The most probe regions (volumes and the group) one map may hold.
pub const MAX_PROBE_REGIONS: usize = 32;
/// The most probe groups one map may hold.
pub const MAX_PROBE_GROUPS: usize = 1;
/// The cube face sizes a reflection probe may bake at.
pub const REFLECTION_RESOLUTIONS: [u32; 4] = [64, 128, 256, 512];
/// A reflection probe's face size when it states none.
pub const DEFAULT_REFLECTION_RESOLUTION: u32 = 128;
/// The widest blend distance a reflection probe may author, in meters.
pub const MAX_BLEND_DISTANCE: f64 = 64.0;
/// The most reflection probes one map may hold (Source's MAX_MAP_CUBEMAPSAMPLES).
pub const MAX_REFLECTION_PROBES: usize = 1024;

fn vec_text(v: Vec3) -> String {
    format!("[{}, {}, {}]", v.x(), v.y(), v.z())
}

/// Reports a record scale with an axis that is not above zero: a box's extents.
fn check_positive_scale(cx: &mut Cx, ccx: &ComponentCx, component: &str) {
    if let Some(scale) = ccx.scale {
        if scale.0.iter().any(|a| *a <= 0.0) {
            cx.error_at(
                &ccx.record_at,
                ccx.record_at.field("scale"),
                format!(
                    "{} 'scale' is the box's full extents in meters and must be positive on every axis, found {}",
                    ccx.label(component),
                    vec_text(scale)
                ),
            );
        }
    }
}

impl LightProbeVolume {
    /// Probes sit at cell centers unless `insetProbes` is `false`.
    pub fn inset_probes_or_default(&self) -> bool {
        self.inset_probes.unwrap_or(true)
    }

    /// Runs this component's build-time rules: a `probeSpacing` in 0.1–64, a known
    /// `bakeZone`, an object rotation of `[0, 0, 0]`, and a scale positive on every axis.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.lightProbeVolume");
        if let Some(s) = self.probe_spacing {
            if !(MIN_PROBE_SPACING..=MAX_PROBE_SPACING).contains(&s) {
                cx.error_at(
                    &self.at,
                    self.at.field("probeSpacing"),
                    format!("{label} 'probeSpacing' must be in 0.1–64 meters, found {s}"),
                );
            }
        }
        if let Some(zone) = &self.bake_zone {
            ccx.check_bake_zone(cx, &self.at, "bakeZone", "dh.lightProbeVolume", zone);
        }
        Self::validate_transform(cx, ccx);
    }

    /// The rules a probe volume puts on its object's transform: `rotation` must stay
    /// `[0, 0, 0]` (probes land on an axis-aligned lattice) and `scale`, the box's
    /// extents, must be positive on every axis. Reads `ccx.rotation` and `ccx.scale` and
    /// reports at `ccx.record_at`.
    pub fn validate_transform(cx: &mut Cx, ccx: &ComponentCx) {
        if let Some(rot) = ccx.rotation.filter(|r| *r != Vec3::ZERO) {
            cx.error_at(
                &ccx.record_at,
                ccx.record_at.field("rotation"),
                format!(
                    "{} 'rotation' must stay [0, 0, 0], found {}: probes land on an axis-aligned lattice, so a turned box would bake somewhere other than where it is drawn",
                    ccx.label("dh.lightProbeVolume"),
                    vec_text(rot)
                ),
            );
        }
        check_positive_scale(cx, ccx, "dh.lightProbeVolume");
    }
}

impl LightProbeGroup {
    /// The group's contents: `contents`, or indirect.
    pub fn contents_or_default(&self) -> ProbeContents {
        self.contents.unwrap_or_default()
    }

    /// Runs this component's build-time rules: a non-empty `probes` path, a known
    /// `bakeZone`, a warning for `bake: true` (not built yet), and a transform that is a
    /// translation only.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.lightProbeGroup");
        if self.at.has("probes") && self.probes.trim().is_empty() {
            cx.error_at(
                &self.at,
                self.at.field("probes"),
                format!("{label} 'probes' must name the group's .dh-probegroup file"),
            );
        }
        if let Some(zone) = &self.bake_zone {
            ccx.check_bake_zone(cx, &self.at, "bakeZone", "dh.lightProbeGroup", zone);
        }
        if self.bake == Some(true) {
            cx.warning_at(
                &self.at,
                self.at.field("bake"),
                format!(
                    "{label} 'bake': true is not built yet: the group keeps the light its file carries"
                ),
            );
        }
        Self::validate_transform(cx, ccx);
    }

    /// The rule a probe group puts on its object's transform: a translation only, so a
    /// `rotation` other than `[0, 0, 0]` and a `scale` other than `[1, 1, 1]` are build
    /// errors (the probes belong to the geometry they were lit in).
    pub fn validate_transform(cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.lightProbeGroup");
        if let Some(rot) = ccx.rotation.filter(|r| *r != Vec3::ZERO) {
            cx.error_at(
                &ccx.record_at,
                ccx.record_at.field("rotation"),
                format!(
                    "{label} is placed by a translation only; 'rotation' must be [0, 0, 0], found {}: the probes belong to the geometry they were lit in",
                    vec_text(rot)
                ),
            );
        }
        if let Some(scale) = ccx.scale.filter(|s| *s != Vec3::ONE) {
            cx.error_at(
                &ccx.record_at,
                ccx.record_at.field("scale"),
                format!(
                    "{label} is placed by a translation only; 'scale' must be [1, 1, 1], found {}: the probes belong to the geometry they were lit in",
                    vec_text(scale)
                ),
            );
        }
    }
}

impl ReflectionProbe {
    /// The cube face size: `resolution`, or 128.
    pub fn resolution_or_default(&self) -> u32 {
        self.resolution.unwrap_or(DEFAULT_REFLECTION_RESOLUTION)
    }

    /// The projection: `projection`, or box.
    pub fn projection_or_default(&self) -> ReflectionProjection {
        self.projection.unwrap_or_default()
    }

    /// Runs this component's build-time rules: a `resolution` of 64, 128, 256 or 512, a
    /// `blendDistance` over 0–64, no `boxProjection` under `"projection": "none"`, and (for
    /// a box) a scale positive on every axis.
    pub fn validate(&self, cx: &mut Cx, ccx: &ComponentCx) {
        let label = ccx.label("dh.reflectionProbe");
        if let Some(r) = self.resolution {
            if !REFLECTION_RESOLUTIONS.contains(&r) {
                cx.error_at(
                    &self.at,
                    self.at.field("resolution"),
                    format!("{label} 'resolution' must be one of 64, 128, 256, 512, found {r}"),
                );
            }
        }
        if let Some(d) = self.blend_distance {
            if !(0.0..=MAX_BLEND_DISTANCE).contains(&d) {
                cx.error_at(
                    &self.at,
                    self.at.field("blendDistance"),
                    format!("{label} 'blendDistance' must be in 0–64 meters, found {d}"),
                );
            }
        }
        match self.projection_or_default() {
            ReflectionProjection::None => {
                if self.box_projection == Some(true) {
                    cx.error_at(
                        &self.at,
                        self.at.field("boxProjection"),
                        format!(
                            "{label} takes no 'boxProjection' under \"projection\": \"none\": a point probe has no box and reflects along the plain mirror direction"
                        ),
                    );
                }
            }
            ReflectionProjection::Box => check_positive_scale(cx, ccx, "dh.reflectionProbe"),
        }
    }
}

/// The map-wide probe caps, over every component of every record in the map: at most 32
/// probe regions (light probe volumes and the group share the cap), one light probe group,
/// and at most 1024 reflection probes. Each component past a cap is reported where it was
/// read. Call once per map with all the map's components, in author order.
pub fn check_map_probes<'a>(cx: &mut Cx, components: impl IntoIterator<Item = &'a MapComponent>) {
    let mut regions = 0usize;
    let mut groups = 0usize;
    let mut reflections = 0usize;
    for c in components {
        match c {
            MapComponent::LightProbeVolume(v) => {
                regions += 1;
                if regions > MAX_PROBE_REGIONS {
                    cx.error_at(
                        &v.at,
                        v.at.span,
                        format!(
                            "at most {MAX_PROBE_REGIONS} light probe boxes a map (volumes and the group together); this is number {regions}. Merge neighbors into one larger box"
                        ),
                    );
                }
            }
            MapComponent::LightProbeGroup(g) => {
                regions += 1;
                groups += 1;
                if groups > MAX_PROBE_GROUPS {
                    cx.error_at(
                        &g.at,
                        g.at.span,
                        "one 'dh.lightProbeGroup' a map: this is a second",
                    );
                } else if regions > MAX_PROBE_REGIONS {
                    cx.error_at(
                        &g.at,
                        g.at.span,
                        format!(
                            "at most {MAX_PROBE_REGIONS} light probe boxes a map (volumes and the group together); this is number {regions}"
                        ),
                    );
                }
            }
            MapComponent::ReflectionProbe(r) => {
                reflections += 1;
                if reflections > MAX_REFLECTION_PROBES {
                    cx.error_at(
                        &r.at,
                        r.at.span,
                        format!(
                            "at most {MAX_REFLECTION_PROBES} reflection probes a map; this is number {reflections}"
                        ),
                    );
                }
            }
            _ => {}
        }
    }
}
