//! Preferences: one table of every `world.*` and `client.*` name the spec states, with its
//! type, default and range (ARCHITECTURE.md, "Names and habits": "Preferences are one table
//! with the spec's names, types, defaults and ranges; set from the command line
//! (`--set client.voxel.streamRadius=64`) and the console").
//!
//! Every entry cites where the spec states it (`spec FFF:LINE`, FFF the first three digits
//! of the spec file's name: 000 dh.map, 001 dh.object, 003 runtime assets, 004 dh.voxel).
//! Where the spec names a preference but states no default or no range, the entry says
//! `ours:` and what we chose; those choices are ours to revise, never the spec's word.
//! Where the spec names no preference at all (the physics world's gravity and pawn size,
//! `world.gravity` and `world.pawn.*`), the entry cites `ours` and its default is dh-sims'
//! `PhysicsParams` default.
//!
//! `world.*` values are the world's (server-authoritative, seeded by a map where the spec
//! says so); `client.*` values are this machine's. Both live in one [`Prefs`] here because a
//! headless host is its own server and client.

use std::fmt;

/// What a preference holds, and the values it accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PrefType {
    /// `true`/`false` (also `1`/`0`, `on`/`off`).
    Bool,
    /// A whole number in `min..=max`.
    Int {
        /// The least value accepted.
        min: i64,
        /// The greatest value accepted.
        max: i64,
    },
    /// A number in the range; an infinite bound is no bound.
    Float {
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
        /// Whether `min` itself is refused (`> min` rather than `≥ min`).
        min_open: bool,
        /// Whether `max` itself is refused.
        max_open: bool,
    },
    /// One of a fixed set of tokens, matched case-insensitively.
    Token(&'static [&'static str]),
    /// `len` numbers, each in `min..=max` (a direction, a color).
    Floats {
        /// How many numbers.
        len: usize,
        /// The least value of each.
        min: f64,
        /// The greatest value of each.
        max: f64,
    },
}

impl PrefType {
    /// The accepted range or values in words, as errors and `help` print them.
    pub fn describe(&self) -> String {
        match *self {
            PrefType::Bool => "true or false (1 or 0, on or off)".into(),
            PrefType::Int { min, max } => format!("a whole number from {min} to {max}"),
            PrefType::Float {
                min,
                max,
                min_open,
                max_open,
            } => describe_float_range(min, max, min_open, max_open),
            PrefType::Token(tokens) => format!("one of {}", tokens.join(", ")),
            PrefType::Floats { len, min, max } => {
                format!("{len} numbers, each from {} to {}", num(min), num(max))
            }
        }
    }
}

fn num(v: f64) -> String {
    format!("{v}")
}

fn describe_float_range(min: f64, max: f64, min_open: bool, max_open: bool) -> String {
    let lo = min.is_finite();
    let hi = max.is_finite();
    match (lo, hi) {
        (false, false) => "any finite number".into(),
        (true, false) if min_open => format!("a number above {}", num(min)),
        (true, false) => format!("a number of at least {}", num(min)),
        (false, true) if max_open => format!("a number below {}", num(max)),
        (false, true) => format!("a number of at most {}", num(max)),
        (true, true) => format!(
            "a number from {}{} to {}{}",
            if min_open { "above " } else { "" },
            num(min),
            if max_open { "below " } else { "" },
            num(max)
        ),
    }
}

/// One preference's definition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrefDef {
    /// The spec's name, e.g. `client.voxel.streamRadius`.
    pub name: &'static str,
    /// What it holds.
    pub ty: PrefType,
    /// The default, written as a console value (parsed by the same rules as `set`).
    pub default: &'static str,
    /// Where the spec states it (`FFF:LINE`), the design document, or `ours` where the spec
    /// names no such preference.
    pub spec: &'static str,
    /// What it means, in a few words (the spec's own where it has a table row).
    pub doc: &'static str,
}

const fn b(
    name: &'static str,
    default: &'static str,
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Bool,
        default,
        spec,
        doc,
    }
}

#[allow(clippy::too_many_arguments)]
const fn f(
    name: &'static str,
    default: &'static str,
    min: f64,
    max: f64,
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Float {
            min,
            max,
            min_open: false,
            max_open: false,
        },
        default,
        spec,
        doc,
    }
}

/// A float whose lower bound is exclusive (`> min`).
const fn fpos(
    name: &'static str,
    default: &'static str,
    min: f64,
    max: f64,
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Float {
            min,
            max,
            min_open: true,
            max_open: false,
        },
        default,
        spec,
        doc,
    }
}

const fn i(
    name: &'static str,
    default: &'static str,
    min: i64,
    max: i64,
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Int { min, max },
        default,
        spec,
        doc,
    }
}

const fn t(
    name: &'static str,
    default: &'static str,
    tokens: &'static [&'static str],
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Token(tokens),
        default,
        spec,
        doc,
    }
}

const fn v(
    name: &'static str,
    default: &'static str,
    len: usize,
    min: f64,
    max: f64,
    spec: &'static str,
    doc: &'static str,
) -> PrefDef {
    PrefDef {
        name,
        ty: PrefType::Floats { len, min, max },
        default,
        spec,
        doc,
    }
}

const INF: f64 = f64::INFINITY;

/// `world.tickRate`: simulation ticks per second.
pub const TICK_RATE: &str = "world.tickRate";
/// `world.stepHeight`: the tallest step a pawn climbs, meters.
pub const STEP_HEIGHT: &str = "world.stepHeight";
/// `world.spawn.distance`: meters along the view ray a `spawn` with no position places at.
pub const SPAWN_DISTANCE: &str = "world.spawn.distance";
/// `world.spawn.height`: vertical offset after the forward step.
pub const SPAWN_HEIGHT: &str = "world.spawn.height";
/// `world.noclipAllowed`: whether `noclip` is allowed.
pub const NOCLIP_ALLOWED: &str = "world.noclipAllowed";
/// `world.gravity` (ours): downward acceleration, m/s².
pub const GRAVITY: &str = "world.gravity";
/// `world.pawn.radius` (ours): the pawn capsule's radius, meters.
pub const PAWN_RADIUS: &str = "world.pawn.radius";
/// `world.pawn.height` (ours): the pawn capsule's full height, meters.
pub const PAWN_HEIGHT: &str = "world.pawn.height";
/// `world.pawn.eyeHeight` (ours): the eye's height above the feet, meters.
pub const PAWN_EYE_HEIGHT: &str = "world.pawn.eyeHeight";
/// `world.pawn.walkSpeed` (ours): walking speed, m/s.
pub const PAWN_WALK_SPEED: &str = "world.pawn.walkSpeed";
/// `world.pawn.jumpSpeed` (ours): a jump's starting upward speed, m/s.
pub const PAWN_JUMP_SPEED: &str = "world.pawn.jumpSpeed";
/// `world.pawn.maxSlope` (ours): the steepest walkable slope, degrees.
pub const PAWN_MAX_SLOPE: &str = "world.pawn.maxSlope";
/// `world.pawn.skin` (ours): the gap a pawn keeps from the world, meters.
pub const PAWN_SKIN: &str = "world.pawn.skin";

/// `world.prop.pushSpeed`: the fastest a pawn's shove drives a prop, m/s.
pub const PROP_PUSH_SPEED: &str = "world.prop.pushSpeed";
/// `world.prop.pushResponse`: the share of the pawn's walking speed a shove passes on.
pub const PROP_PUSH_RESPONSE: &str = "world.prop.pushResponse";
/// `world.prop.pushReach`: how far past the capsule a prop still counts as touched, meters.
pub const PROP_PUSH_REACH: &str = "world.prop.pushReach";
/// `world.prop.friction`: the multiplier on the grip a prop takes from the surface under it.
pub const PROP_FRICTION: &str = "world.prop.friction";
/// `world.prop.groundProbe`: how far under a prop the surface probe reaches, meters.
pub const PROP_GROUND_PROBE: &str = "world.prop.groundProbe";
/// `world.water.samples`: buoyancy sample points on a body's ring.
pub const WATER_SAMPLES: &str = "world.water.samples";
/// `world.water.footprint`: how far past the hull the buoyancy ring spreads, meters.
pub const WATER_FOOTPRINT: &str = "world.water.footprint";
/// `world.water.linearDamping`: linear damping while any buoyancy point is wet.
pub const WATER_LINEAR_DAMPING: &str = "world.water.linearDamping";
/// `world.water.angularDamping`: angular damping while any buoyancy point is wet.
pub const WATER_ANGULAR_DAMPING: &str = "world.water.angularDamping";
/// `world.water.maxRollRate`: the roll rate past which angular damping scales up, rad/s.
pub const WATER_MAX_ROLL_RATE: &str = "world.water.maxRollRate";
/// `world.water.centerOfMassDrop`: a prop's center-of-mass drop, a share of its half-height.
pub const WATER_CENTER_OF_MASS_DROP: &str = "world.water.centerOfMassDrop";

/// The preferences the physics world is built from (besides `world.tickRate`): a `set` of
/// any of them reaches the running physics world.
pub const PHYSICS_PREFS: &[&str] = &[
    STEP_HEIGHT,
    GRAVITY,
    PAWN_RADIUS,
    PAWN_HEIGHT,
    PAWN_EYE_HEIGHT,
    PAWN_WALK_SPEED,
    PAWN_JUMP_SPEED,
    PAWN_MAX_SLOPE,
    PAWN_SKIN,
    PROP_PUSH_SPEED,
    PROP_PUSH_RESPONSE,
    PROP_PUSH_REACH,
    PROP_FRICTION,
    PROP_GROUND_PROBE,
    WATER_SAMPLES,
    WATER_FOOTPRINT,
    WATER_LINEAR_DAMPING,
    WATER_ANGULAR_DAMPING,
    WATER_MAX_ROLL_RATE,
    WATER_CENTER_OF_MASS_DROP,
    "world.swim.drag",
    "world.swim.drift",
    "world.swim.floatDepth",
    "world.swim.pawnDensity",
    "world.swim.stroke",
    "world.swim.verticalStroke",
];

/// The names the engine reads today; a test checks each is in [`TABLE`] with the type its
/// reader expects.
pub const READ_BY_ENGINE: &[(&str, &str)] = &[
    (TICK_RATE, "int"),
    (STEP_HEIGHT, "float"),
    (NOCLIP_ALLOWED, "bool"),
    (GRAVITY, "float"),
    (PAWN_RADIUS, "float"),
    (PAWN_HEIGHT, "float"),
    (PAWN_EYE_HEIGHT, "float"),
    (PAWN_WALK_SPEED, "float"),
    (PAWN_JUMP_SPEED, "float"),
    (PAWN_MAX_SLOPE, "float"),
    (PAWN_SKIN, "float"),
    (PROP_PUSH_SPEED, "float"),
    (PROP_PUSH_RESPONSE, "float"),
    (PROP_PUSH_REACH, "float"),
    (PROP_FRICTION, "float"),
    (PROP_GROUND_PROBE, "float"),
    (WATER_SAMPLES, "int"),
    (WATER_FOOTPRINT, "float"),
    (WATER_LINEAR_DAMPING, "float"),
    (WATER_ANGULAR_DAMPING, "float"),
    (WATER_MAX_ROLL_RATE, "float"),
    (WATER_CENTER_OF_MASS_DROP, "float"),
    ("world.swim.drag", "float"),
    ("world.swim.drift", "float"),
    ("world.swim.floatDepth", "float"),
    ("world.swim.pawnDensity", "float"),
    ("world.swim.stroke", "float"),
    ("world.swim.verticalStroke", "float"),
];

const FALLOFFS: &[&str] = &["physical", "unity"];
const AMBIENT_MODES: &[&str] = &["auto", "hemisphere", "sky"];
const TONEMAPS: &[&str] = &["reinhardWhite", "aces", "reinhard", "hable", "none"];
const STAND_IN_ANIMATIONS: &[&str] = &["none", "pulse", "shift", "sweep", "shimmer"];
const BAKE_PACES: &[&str] = &["Gentle", "Full"];
const DEBUG_VIEWS: &[&str] = &["none", "lightmap", "lightmapTexels"];

/// `client.render.msaa`'s values (dh-gpu's `MSAA_COUNTS`, as tokens).
const MSAA_COUNTS: &[&str] = &["1", "2", "4", "8"];

/// Every preference, sorted by name (a test checks the order, so lookups binary-search).
#[rustfmt::skip]
pub static TABLE: &[PrefDef] = &[
    // spec 001:524 "at most client.anim.springCollisionPasses times (default 4)"; ours: 1–64.
    i("client.anim.springCollisionPasses", "4", 1, 64, "001:524", "Push-and-restore passes a spring chain runs against its colliders per tick"),
    // spec 001:524 "client.anim.springSweep (default on)".
    b("client.anim.springSweep", "true", "001:524", "A collider crossing a slot within one tick leaves it on the side it entered"),
    // spec 003:128 "client.cache.collision, on by default".
    b("client.cache.collision", "true", "003:128", "Persist cooked collision in the on-disk cache"),
    // spec 003:114 "client.cache.mipmaps, on by default".
    b("client.cache.mipmaps", "true", "003:114", "Persist mip chains in the on-disk cache"),
    // spec 004:313 names it; ours: off by default, as every debug overlay.
    b("client.debug.colliderGizmo", "false", "004:313", "Draw each chunk's and map mesh's collision as a wireframe"),
    // spec 004:313 names it; ours: off by default.
    b("client.debug.contacts", "false", "004:313", "Name what the player touched"),
    // spec 000:1657 "client.debug.entityGizmos (off by default; client.debug.entityGizmos 1 in the console)".
    b("client.debug.entityGizmos", "false", "000:1657", "The logic overlay (dots, labels, wiring) during play"),
    // spec 003:217 table row: default 0; 003:238 "gives each barcode a fixed place in [0, 1)".
    f("client.debug.holdObjectLoads", "0", 0.0, 1.0, "003:217", "Fraction of objects, by barcode, whose model is held back (dev tool)"),
    // spec 000:517 "switch on client.debug.hud 1"; ours: off by default.
    b("client.debug.hud", "false", "000:517", "The position readout"),
    // spec 000:1659 names it; ours: off by default, as every debug overlay.
    b("client.debug.lights", "false", "000:1659", "Draw each lit light's influence volume"),
    // spec 004:376 "client.display.mipmaps turns the chain off with every other texture's"; ours: on.
    b("client.display.mipmaps", "true", "004:376", "Sample textures through their mip chains"),
    // spec 000:1340/1343 table row: default 262144; ours: 1 to 2^24.
    i("client.editor.bakeDispatchInvocations", "262144", 1, 16_777_216, "000:1343", "The most samples or probes one GPU bake dispatch runs"),
    // spec 000:1325 "client.editor.bakeLock (on by default)".
    b("client.editor.bakeLock", "true", "000:1325", "Take the machine-wide GPU bake lock"),
    // spec 000:1332 table row: Gentle, "Gentle or Full".
    t("client.editor.bakePace", "Gentle", BAKE_PACES, "000:1332", "The pace every bake runs at"),
    // spec 000:1335 table row: 0.5, "the share of the logical cores"; ours: above 0, at most 1.
    fpos("client.editor.gentleBakeCores", "0.5", 0.0, 1.0, "000:1335", "Share of the logical cores a gentle bake's parallel loops use"),
    // spec 000:1333 table row: 4 (ms); ours: above 0.
    fpos("client.editor.gentleBakeDispatchMs", "4", 0.0, INF, "000:1333", "The GPU time one gentle dispatch aims at, ms"),
    // spec 000:1336 table row: true.
    b("client.editor.gentleBakeLowPriority", "true", "000:1336", "Run a gentle bake at below-normal priority"),
    // spec 000:1334 table row: 1, a multiple of the dispatch's time; ours: at least 0.
    f("client.editor.gentleBakeRest", "1", 0.0, INF, "000:1334", "Idle gap after each gentle dispatch, as a multiple of its time"),
    // spec 000:713 names it; ours: 8 px, 1–64.
    i("client.editor.giProbes.pickPx", "8", 1, 64, "000:713", "Pixels from a probe dot a click selects it within"),
    // spec 000:1657 "client.editor.gizmoLabelDistance (30 m by default)"; ours: at least 0.
    f("client.editor.gizmoLabelDistance", "30", 0.0, INF, "000:1657", "Meters a gizmo label reaches"),
    // spec 000:1338 "client.editor.lightmapBakeDispatchMs (40 ms)"; ours: above 0.
    fpos("client.editor.lightmapBakeDispatchMs", "40", 0.0, INF, "000:1338", "The GPU time one full-pace dispatch aims at, ms"),
    // spec 000:1323 "client.editor.lightmapBakeMemoryMb (default 6144; 0 is none)"; ours: up to 1 TiB.
    i("client.editor.lightmapBakeMemoryMb", "6144", 0, 1_048_576, "000:1323", "Memory ceiling of a bake, MB; 0 is none"),
    // spec 000:572 "the client.fov default of 90", vertical degrees; ours: 10–170.
    f("client.fov", "90", 10.0, 170.0, "000:572", "Vertical field of view, degrees"),
    // spec 003:209 table row: sweep; "none, pulse, shift, sweep or shimmer".
    t("client.loading.standInAnimation", "sweep", STAND_IN_ANIMATIONS, "003:209", "How a stand-in moves"),
    // spec 003:210 table row: 0.3, "0 to 1".
    f("client.loading.standInAnimationAmplitude", "0.3", 0.0, 1.0, "003:210", "How strongly a stand-in moves"),
    // spec 003:211 table row: 0.625 cycles or steps a second; ours: at least 0.
    f("client.loading.standInAnimationSpeed", "0.625", 0.0, INF, "003:211", "Cycles (pulse, sweep) or steps (shift, shimmer) per second"),
    // spec 003:212 table row: 2 m; ours: above 0.
    fpos("client.loading.standInBandMeters", "2", 0.0, INF, "003:212", "Meters between the sweep's bands"),
    // spec 003:213 table row: 0.15, a fraction of its gray; ours: 0–1.
    f("client.loading.standInGlow", "0.15", 0.0, 1.0, "003:213", "The fraction of its gray a stand-in emits"),
    // spec 003:208 table row: 0.55; ours: 0–1.
    f("client.loading.standInOpacity", "0.55", 0.0, 1.0, "003:208", "A stand-in's opacity at rest and at the top of its pulse"),
    // spec 003:216 table row: 30; ours: 1–240.
    i("client.loading.standInPreviewFps", "30", 1, 240, "003:216", "Redraws a second of the Options preview"),
    // spec 003:215 table row: 160; ours: 1–4096.
    i("client.loading.standInPreviewHeight", "160", 1, 4096, "003:215", "Height of the Options preview, logical pixels"),
    // spec 003:214 table row: 320; ours: 1–4096.
    i("client.loading.standInPreviewWidth", "320", 1, 4096, "003:214", "Width of the Options preview, logical pixels"),
    // spec 003:207 table row: 0.4, a linear gray; ours: 0–1.
    f("client.loading.standInShade", "0.4", 0.0, 1.0, "003:207", "The linear gray a stand-in is shaded with"),
    // spec 003:206 table row: true.
    b("client.loading.standIns", "true", "003:206", "Draw stand-ins; off draws the placeholder cube"),
    // spec 004:435 "client.render.ao, off by default".
    b("client.render.ao", "false", "004:435", "Screen-space ambient occlusion"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloom's (000:1630).
    b("client.render.bloom", "true", "000:1653", "This machine's bloom on/off over the world's; unset follows world.render.bloom"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloomAnamorphic's (000:1630).
    f("client.render.bloomAnamorphic", "-0.24", -1.0, 1.0, "000:1653", "This machine's aspect distortion; unset follows world.render.bloomAnamorphic"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloomDiffusion's (000:1630).
    f("client.render.bloomDiffusion", "10", 1.0, 10.0, "000:1653", "This machine's bloom spread, pyramid levels; unset follows world.render.bloomDiffusion"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloomIntensity's (000:1630).
    f("client.render.bloomIntensity", "0.3", 0.0, INF, "000:1653", "This machine's bloom intensity; unset follows world.render.bloomIntensity"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloomSoftKnee's (000:1630).
    f("client.render.bloomSoftKnee", "0.5", 0.0, 1.0, "000:1653", "This machine's bloom knee; unset follows world.render.bloomSoftKnee"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.bloomThreshold's (000:1630).
    f("client.render.bloomThreshold", "1.721", 0.0, INF, "000:1653", "This machine's bloom threshold, linear; unset follows world.render.bloomThreshold"),
    // spec 000:1313 "client.render.debugView lightmap ... lightmapTexels"; ours: `none` for no debug view.
    t("client.render.debugView", "none", DEBUG_VIEWS, "000:1313", "A debug view of the frame"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.exposure's (000:1630).
    fpos("client.render.exposure", "1", 0.0, INF, "000:1653", "This machine's exposure; unset follows world.render.exposure"),
    // spec 000:1573 table row: 1, "in cells, 0–4".
    f("client.render.giBoundaryFade", "1", 0.0, 4.0, "000:1573", "How far in from a region's faces its fill ramps up, cells"),
    // spec 000:1577 table row: 0.25, "0.05–1".
    f("client.render.giDepthSoftness", "0.25", 0.05, 1.0, "000:1577", "How far past a probe's free distance its depth weight fades, cells"),
    // spec 000:1576 table row: true.
    b("client.render.giDepthWeight", "true", "000:1576", "Weight each corner by whether it sees the lookup"),
    // spec 000:1578 table row: 0.05, "in meters, 0–0.5".
    f("client.render.giGroupNormalBias", "0.05", 0.0, 0.5, "000:1578", "How far a probe group lookup moves along the normal, meters"),
    // spec 000:1579 table row: 0.0254, "in meters, 0.001–4".
    f("client.render.giGroupSoftness", "0.0254", 0.001, 4.0, "000:1579", "Softening distance of a group's inverse-square weighting, meters"),
    // spec 000:1572 table row: 1, a multiplier; ours: at least 0.
    f("client.render.giIntensity", "1", 0.0, INF, "000:1572", "A local multiplier on the sampled volume"),
    // spec 000:1574 table row: 0.3, "in cells, 0–1".
    f("client.render.giNormalBias", "0.3", 0.0, 1.0, "000:1574", "How far the probe lookup moves along the normal, cells"),
    // spec 000:1580 table row: true.
    b("client.render.giPerPixel", "true", "000:1580", "A group blends its cell's probes at every pixel"),
    // spec 000:1575 table row: 0.1, "in cells, 0–1".
    f("client.render.giViewBias", "0.1", 0.0, 1.0, "000:1575", "How far the probe lookup moves toward the eye, cells"),
    // spec 000:1571 table row: true.
    b("client.render.giVolume", "true", "000:1571", "Sample baked volumes at all"),
    // spec 003:58/60 "what client.render.gpuSkinning turns off"; ours: on by default.
    b("client.render.gpuSkinning", "true", "003:60", "Skin on the GPU"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableLinearAngle's (000:1631).
    f("client.render.hableLinearAngle", "0.1", 0.0, INF, "000:1653", "This machine's Hable C; unset follows world.render.hableLinearAngle"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableLinearStrength's (000:1631).
    fpos("client.render.hableLinearStrength", "0.5", 0.0, INF, "000:1653", "This machine's Hable B; unset follows world.render.hableLinearStrength"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableShoulderStrength's (000:1631).
    fpos("client.render.hableShoulderStrength", "0.15", 0.0, INF, "000:1653", "This machine's Hable A; unset follows world.render.hableShoulderStrength"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableToeDenominator's (000:1631).
    fpos("client.render.hableToeDenominator", "0.3", 0.0, INF, "000:1653", "This machine's Hable F; unset follows world.render.hableToeDenominator"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableToeNumerator's (000:1631).
    f("client.render.hableToeNumerator", "0.02", 0.0, INF, "000:1653", "This machine's Hable E; unset follows world.render.hableToeNumerator"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableToeStrength's (000:1631).
    fpos("client.render.hableToeStrength", "0.2", 0.0, INF, "000:1653", "This machine's Hable D; unset follows world.render.hableToeStrength"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.hableWhitePoint's (000:1631).
    fpos("client.render.hableWhitePoint", "11.2", 0.0, INF, "000:1653", "This machine's Hable W; unset follows world.render.hableWhitePoint"),
    // spec 000:1118 "client.render.lightClusterColumns × client.render.lightClusterRows screen tiles (16 × 8)"; ours: 1–1024.
    i("client.render.lightClusterColumns", "16", 1, 1024, "000:1118", "Screen tiles across"),
    // spec 000:1118 "out to client.render.lightClusterFar (120 m ...)"; ours: above 0.
    fpos("client.render.lightClusterFar", "120", 0.0, INF, "000:1118", "Meters where the last depth slice begins"),
    // spec 000:1118 "(16 × 8)"; ours: 1–1024.
    i("client.render.lightClusterRows", "8", 1, 1024, "000:1118", "Screen tiles down"),
    // spec 000:1118 "client.render.lightClusterSlices depth slices (8)"; ours: 1–1024.
    i("client.render.lightClusterSlices", "8", 1, 1024, "000:1118", "Depth slices"),
    // spec 000:1118 "client.render.lightClusters (on)".
    b("client.render.lightClusters", "true", "000:1118", "Bin lights into screen clusters"),
    // spec 000:1313 "0 switches it off entirely"; ours: default 1, at least 0.
    f("client.render.lightmapIntensity", "1", 0.0, INF, "000:1313", "Scales the baked contribution"),
    // spec 000:1217 "client.render.lightmapNonLinearSh (on by default)".
    b("client.render.lightmapNonLinearSh", "true", "000:1217", "Evaluate the lightmap's harmonics non-linearly"),
    // spec 000:1361 "client.render.lightmapOcclusion (0–1, default 1)".
    f("client.render.lightmapOcclusion", "1", 0.0, 1.0, "000:1361", "Fades baked occlusion toward none"),
    // spec 000:1213 "client.render.lightmapSpecular, on by default".
    b("client.render.lightmapSpecular", "true", "000:1213", "Shade a baked highlight from the dominant direction"),
    // ours: the spec names no anti-aliasing preference; the forward passes' MSAA samples, 1, 2, 4 or 8, default 4 (lowered to what the device's framebuffers take, logged once).
    t("client.render.msaa", "4", MSAA_COUNTS, "ours", "Samples the forward passes take (MSAA), resolved before post"),
    // spec 000:739 "client.render.reflectionProbeMaxEdge (default 128, applies on the next load)"; ours: 1–2048.
    i("client.render.reflectionProbeMaxEdge", "128", 1, 2048, "000:739", "The widest reflection probe edge kept, pixels"),
    // spec 000:739 "client.render.reflectionProbes (default 1024, 0 mirrors the sky alone)", at most 1024 per map.
    i("client.render.reflectionProbes", "1024", 0, 1024, "000:739", "How many reflection probes are kept"),
    // spec 000:1653 "A player's own client.render.* counterpart then sits on top of that, locally only. Every one of them is unset by default"; default and range: world.render.tonemap's (000:1630).
    t("client.render.tonemap", "reinhardWhite", TONEMAPS, "000:1653", "This machine's tonemap; unset follows world.render.tonemap"),
    // spec 000:1231 names it ("takes this path on any device"); ours: off by default.
    b("client.render.vramDecodeLightmaps", "false", "000:1231", "Decode lightmaps on the CPU on any device"),
    // spec 003:147 table row: 0.5; ours: above 0.
    fpos("client.spawn.placeholderSize", "0.5", 0.0, INF, "003:147", "Half-extent of the placeholder cube"),
    // spec 003:80 "at most client.ui.mapThumbnailReaders at a time"; ours: default 2, 1–64.
    i("client.ui.mapThumbnailReaders", "2", 1, 64, "003:80", "Map pictures read at a time"),
    // spec 003:78 "client.ui.mapThumbnailRefresh seconds — zero never checks"; ours: default 2, at least 0.
    f("client.ui.mapThumbnailRefresh", "2", 0.0, INF, "003:78", "Seconds between checks for a rebuilt map picture; 0 never checks"),
    // spec 004:215 table row: 3; "1 orders by distance alone"; ours: at least 1.
    f("client.voxel.behindWeight", "3", 1.0, INF, "004:215", "How much later a region behind the camera meshes"),
    // spec 004:443 table row: 1; ours: at least 0.
    f("client.voxel.blockLightIntensity", "1", 0.0, INF, "004:443", "The gain on the block-light fill"),
    // spec 004:442 table row: [255, 214, 170, 255], sRGB bytes.
    v("client.voxel.blockLightTint", "255 214 170 255", 4, 0.0, 255.0, "004:442", "The fill's color, sRGB bytes"),
    // spec 004:218 table row: 384 m; ours: above 0.
    fpos("client.voxel.captureRadius", "384", 0.0, INF, "004:218", "Meters from its camera an offscreen capture streams within"),
    // spec 004:220 table row: 64 MB; ours: 0–65536.
    i("client.voxel.cellCacheMb", "64", 0, 65536, "004:220", "Decoded cells each volume keeps for meshing neighbors, MB"),
    // spec 004:295 table row: 16 MB; ours: 0–65536.
    i("client.voxel.collisionCellCacheMb", "16", 0, 65536, "004:295", "Decoded cells each volume keeps for the prediction's cooks, MB"),
    // spec 004:292 table row: 16 m; ours: at least 0.
    f("client.voxel.collisionMargin", "16", 0.0, INF, "004:292", "Meters past the radius a predicted chunk keeps its body"),
    // spec 004:291 table row: 32 m; ours: at least 0.
    f("client.voxel.collisionRadius", "32", 0.0, INF, "004:291", "Meters from the local player the prediction keeps chunks solid"),
    // spec 004:293 table row: 4 m; ours: at least 0.
    f("client.voxel.collisionUrgent", "4", 0.0, INF, "004:293", "Meters a predicted chunk is cooked on the spot within"),
    // spec 004:294 table row: 1; ours: 1–64.
    i("client.voxel.collisionWorkers", "1", 1, 64, "004:294", "Threads that cook the prediction's chunks"),
    // spec 004:225 table row: 0.75, "0 to 1".
    f("client.voxel.emissiveFloor", "0.75", 0.0, 1.0, "004:225", "The least a glowing block glows by"),
    // spec 004:224 table row: 2.5; ours: at least 0.
    f("client.voxel.emissiveIntensity", "2.5", 0.0, INF, "004:224", "How bright a glowing block glows"),
    // spec 004:221 table row: 120 frames; ours: 0–1000000.
    i("client.voxel.idleFrames", "120", 0, 1_000_000, "004:221", "Frames an undrawn volume stays loaded"),
    // spec 004:441 table row: 0.5, "0 (Moody) to 1 (Bright)".
    f("client.voxel.lightBrightness", "0.5", 0.0, 1.0, "004:441", "Minecraft's brightness slider"),
    // spec 004:407 table row: 96 MB, "0 computes none"; ours: up to 65536.
    i("client.voxel.lightBudgetMb", "96", 0, 65536, "004:407", "Megabytes of light each volume may hold; 0 computes none"),
    // spec 004:446 table row: 8 cells; ours: 0–64.
    i("client.voxel.lightEdgeFade", "8", 0, 64, "004:446", "Cells the light field fades out over at its window's edge"),
    // spec 004:408 table row: 4 ms; ours: above 0.
    fpos("client.voxel.lightSliceMs", "4", 0.0, INF, "004:408", "How long one light job lights before handing its thread back, ms"),
    // spec 004:409 table row: 1024 KB, 8 KiB a brick; ours: 8–1048576.
    i("client.voxel.lightUploadKb", "1024", 8, 1_048_576, "004:409", "Kilobytes of light one frame may write to the GPU"),
    // spec 004:217 table row: 1500; ours: 1–1000000.
    i("client.voxel.maxMeshes", "1500", 1, 1_000_000, "004:217", "Most region meshes resident or meshing"),
    // spec 004:219 table row: 512 MB; ours: 1–1048576.
    i("client.voxel.meshBudgetMb", "512", 1, 1_048_576, "004:219", "Megabytes of mesh buffers every volume together may hold"),
    // spec 004:444 table row: 0.2, "0 to 1/3".
    f("client.voxel.occlusionStep", "0.2", 0.0, 1.0 / 3.0, "004:444", "The ambient a face corner loses for each cell hiding it"),
    // spec 004:223 table row: true.
    b("client.voxel.opaqueLeaves", "true", "004:223", "Draw leaves solid (Minecraft's Fast)"),
    // spec 004:214 table row: 2; "1 draws every chunk on its own"; ours: up to 16.
    i("client.voxel.regionChunks", "2", 1, 16, "004:214", "Chunks along each side of a draw region"),
    // spec 004:222 table row: 0.9; ours: 0–1 (a roughness).
    f("client.voxel.roughness", "0.9", 0.0, 1.0, "004:222", "Roughness of the built-in colors"),
    // spec 004:445 table row: false.
    b("client.voxel.screenOcclusion", "false", "004:445", "Lit voxel faces also take the screen-space occlusion"),
    // spec 004:211 table row: 128 m; ours: above 0.
    fpos("client.voxel.streamRadius", "128", 0.0, INF, "004:211", "Meters from the camera chunks load within"),
    // spec 004:226 table row: 1.2; ours: at least 0.
    f("client.voxel.translucentCoverage", "1.2", 0.0, INF, "004:226", "The gain on a blended face's coverage"),
    // spec 004:212 table row: 32 m; ours: at least 0.
    f("client.voxel.unloadMargin", "32", 0.0, INF, "004:212", "Meters past the radius a loaded chunk is kept"),
    // spec 004:216 table row: 2 ms; ours: at least 0.
    f("client.voxel.uploadBudgetMs", "2", 0.0, INF, "004:216", "Milliseconds a frame may spend uploading meshes"),
    // spec 004:213 table row: 2; ours: 1–64.
    i("client.voxel.workers", "2", 1, 64, "004:213", "Threads that decode and mesh chunks"),
    // spec 000:1179 seeded from lighting.ambientGround (sRGB, [0, 1], 000:1175); default: the spec's lighting block (000:1165).
    v("world.ambient.ground", "0.618 0.601 0.584", 3, 0.0, 1.0, "000:1179", "Hemisphere fill from below, sRGB"),
    // spec 000:1179 seeded from lighting.ambientIntensity (linear, unbounded); default: the spec's lighting block (000:1166).
    f("world.ambient.intensity", "0.35", 0.0, INF, "000:1179", "Scales whichever ambient fill is active"),
    // spec 000:1415/1425 seeded from lighting.ambientMode: auto, hemisphere or sky; default auto (000:1392).
    t("world.ambient.mode", "auto", AMBIENT_MODES, "000:1415", "Where the ambient fill comes from"),
    // spec 000:1179 seeded from lighting.ambientSky (sRGB, [0, 1]); default: the spec's lighting block (000:1164).
    v("world.ambient.sky", "0.68 0.715 0.786", 3, 0.0, 1.0, "000:1179", "Hemisphere fill from above, sRGB"),
    // ours: the spec names no preference for gravity; default 9.81 m/s² (dh-sims' PhysicsParams), at least 0; read when a map installs and live.
    f("world.gravity", "9.81", 0.0, INF, "ours", "Downward acceleration of pawns and props, m/s²"),
    // spec 000:1179 seeded from lighting.falloff: physical or unity (000:1089); physical is the engine default.
    t("world.lighting.falloff", "physical", FALLOFFS, "000:1179", "The distance curve point and spot lights take by default"),
    // spec 000:1179 seeded from lighting.halfLambert: "0 is a hard Lambert terminator, 1 the full Source wrap" (000:1171); default 1.0 (000:1168).
    f("world.lighting.halfLambert", "1", 0.0, 1.0, "000:1179", "The diffuse wrap"),
    // spec 003:149 "noclip ... answers to world.noclipAllowed"; ours: default false (a world opts in).
    b("world.noclipAllowed", "false", "003:149", "Whether noclip is allowed"),
    // ours: the spec names no preference for the pawn's eye; default 1.6 m (dh-sims' PhysicsParams), 0–10, at most world.pawn.height.
    f("world.pawn.eyeHeight", "1.6", 0.0, 10.0, "ours", "Eye height above the feet, where the view and the Use ray start, meters"),
    // ours: the spec names no preference for the pawn's size; default 1.8 m (dh-sims' PhysicsParams), above 0, at most 10, above twice world.pawn.radius.
    fpos("world.pawn.height", "1.8", 0.0, 10.0, "ours", "The pawn capsule's full height, feet to crown, meters"),
    // ours: the spec names no preference for it; default 4.5 m/s (dh-sims' PhysicsParams: a jump about 1 m high), at least 0.
    f("world.pawn.jumpSpeed", "4.5", 0.0, INF, "ours", "The upward speed a jump starts with, m/s"),
    // ours: the spec names no preference for it; default 45 degrees (dh-sims' PhysicsParams), above 0, below 90.
    PrefDef {
        name: "world.pawn.maxSlope",
        ty: PrefType::Float { min: 0.0, max: 90.0, min_open: true, max_open: true },
        default: "45",
        spec: "ours",
        doc: "The steepest slope a pawn walks up, degrees",
    },
    // ours: the spec names no preference for the pawn's size; default 0.3 m (dh-sims' PhysicsParams), above 0, at most 5.
    fpos("world.pawn.radius", "0.3", 0.0, 5.0, "ours", "The pawn capsule's radius, meters"),
    // ours: the spec names no preference for it; default 0.01 m (dh-sims' PhysicsParams), above 0, at most 0.1, below world.pawn.radius.
    fpos("world.pawn.skin", "0.01", 0.0, 0.1, "ours", "The gap a pawn keeps from the world; a standing pawn floats this far above the floor, meters"),
    // ours: the spec names no preference for it; default 4 m/s (dh-sims' PhysicsParams; noclip flies as fast), at least 0.
    f("world.pawn.walkSpeed", "4", 0.0, INF, "ours", "Walking speed, m/s"),
    // spec 000:1048 names it; ours: default 1 (a multiplier on the surface's grip), at least 0.
    f("world.prop.friction", "1", 0.0, INF, "000:1048", "Multiplier on the grip a prop takes from the surface under it"),
    // spec 000:1048 names it; ours: default 0.1 m, 0–2.
    f("world.prop.groundProbe", "0.1", 0.0, 2.0, "000:1048", "How far under a prop the surface probe reaches, meters"),
    // spec 000:1048 names it; ours (as dh-sims' PhysicsParams): default 0.05 m, 0–1.
    f("world.prop.pushReach", "0.05", 0.0, 1.0, "000:1048", "How far past the capsule a prop still counts as touched, meters"),
    // spec 000:1048 names it; ours (as dh-sims' PhysicsParams): default 1, 0–1.
    f("world.prop.pushResponse", "1", 0.0, 1.0, "000:1048", "The share of the pawn's walking speed a shove passes on"),
    // spec 000:1048 names it; ours (as dh-sims' PhysicsParams): default 2.5 m/s, at least 0.
    f("world.prop.pushSpeed", "2.5", 0.0, INF, "000:1048", "The fastest a pawn's shove drives a prop, m/s"),
    // spec 000:1630 render table: bloom, on/off, default true; seeded 000:1651.
    b("world.render.bloom", "true", "000:1630", "Whether this world's bright areas bloom at all"),
    // spec 000:1630 render table: bloomAnamorphic, -1–1, default -0.24.
    f("world.render.bloomAnamorphic", "-0.24", -1.0, 1.0, "000:1630", "Aspect distortion of the glow"),
    // spec 000:1630 render table: bloomDiffusion, 1–10, default 10.
    f("world.render.bloomDiffusion", "10", 1.0, 10.0, "000:1630", "How far the bloom spreads, pyramid levels"),
    // spec 000:1630 render table: bloomIntensity, ≥ 0, default 0.30.
    f("world.render.bloomIntensity", "0.3", 0.0, INF, "000:1630", "Linear multiplier the bloom is added back with"),
    // spec 000:1630 render table: bloomSoftKnee, 0–1, default 0.5.
    f("world.render.bloomSoftKnee", "0.5", 0.0, 1.0, "000:1630", "Width of the knee below the threshold, as a fraction of it"),
    // spec 000:1630 render table: bloomThreshold, ≥ 0, default 1.721.
    f("world.render.bloomThreshold", "1.721", 0.0, INF, "000:1630", "Linear radiance above which a pixel blooms"),
    // spec 000:1630 render table: exposure, > 0, default 1.
    fpos("world.render.exposure", "1", 0.0, INF, "000:1630", "Linear multiplier on scene radiance before the tonemap"),
    // spec 000:1631/1651 "the seven world.render.hable* values": Hable's published curve; ranges as dh-content's render.hable (≥ 0).
    f("world.render.hableLinearAngle", "0.1", 0.0, INF, "000:1631", "Hable C: linear angle"),
    // spec 000:1631: Hable B, > 0.
    fpos("world.render.hableLinearStrength", "0.5", 0.0, INF, "000:1631", "Hable B: linear strength"),
    // spec 000:1631: Hable A, > 0.
    fpos("world.render.hableShoulderStrength", "0.15", 0.0, INF, "000:1631", "Hable A: shoulder strength"),
    // spec 000:1631: Hable F, > 0.
    fpos("world.render.hableToeDenominator", "0.3", 0.0, INF, "000:1631", "Hable F: toe denominator"),
    // spec 000:1631: Hable E, ≥ 0.
    f("world.render.hableToeNumerator", "0.02", 0.0, INF, "000:1631", "Hable E: toe numerator"),
    // spec 000:1631: Hable D, > 0.
    fpos("world.render.hableToeStrength", "0.2", 0.0, INF, "000:1631", "Hable D: toe strength"),
    // spec 000:1631: Hable W, > 0.
    fpos("world.render.hableWhitePoint", "11.2", 0.0, INF, "000:1631", "Hable W: the linear white point"),
    // spec 000:1630 render table: tonemap, default "reinhardWhite"; reinhardWhite, aces, reinhard, hable or none.
    t("world.render.tonemap", "reinhardWhite", TONEMAPS, "000:1630", "The tonemap curve"),
    // spec 000:1395 "sky ... Default off"; seeded 000:1415.
    b("world.sky.enabled", "false", "000:1415", "Draw the procedural sky"),
    // spec 000:1388 lighting.skyGround, linear RGB albedo; default the spec's sky block; ours: 0–1.
    v("world.sky.ground", "0.22 0.2 0.18", 3, 0.0, 1.0, "000:1415", "Linear RGB albedo of the ground below the horizon"),
    // spec 000:1389 lighting.skyGroundBlend, named at 000:1415; default 0.01; ours: 0–1.
    f("world.sky.groundBlend", "0.01", 0.0, 1.0, "000:1415", "Width of the band the sky fades into the ground across"),
    // spec 000:1386 lighting.skyHorizonSoftness; default 0.15; ours: above 0.
    fpos("world.sky.horizonSoftness", "0.15", 0.0, INF, "000:1415", "How fast the air mass grows toward the horizon"),
    // spec 000:1456 seeded from skyImage.exposure, "Default 1.0"; ours: at least 0.
    f("world.sky.imageExposure", "1", 0.0, INF, "000:1456", "Linear multiplier on the sky image's radiance"),
    // spec 000:1456 seeded from skyImage.rotation, "Default 0", degrees.
    f("world.sky.imageRotation", "0", -360.0, 360.0, "000:1456", "Yaw of the sky image about the up axis, degrees"),
    // spec 000:1387 lighting.skyIntensity; default 1.0; ours: at least 0.
    f("world.sky.intensity", "1", 0.0, INF, "000:1415", "Overall multiplier on the sky's radiance"),
    // spec 000:1384 lighting.skyMie; default 1.0; ours: at least 0.
    f("world.sky.mie", "1", 0.0, INF, "000:1415", "Aerosol (haze) density"),
    // spec 000:1385 lighting.skyMieAnisotropy, "[0, 1)"; default 0.76.
    PrefDef {
        name: "world.sky.mieAnisotropy",
        ty: PrefType::Float {
            min: 0.0,
            max: 1.0,
            min_open: false,
            max_open: true,
        },
        default: "0.76",
        spec: "000:1415",
        doc: "The haze lobe's forward bias",
    },
    // spec 000:1383 lighting.skyRayleigh, "1 is Earth's atmosphere"; default 1.0; ours: at least 0.
    f("world.sky.rayleigh", "1", 0.0, INF, "000:1415", "Molecular scattering density"),
    // spec 000:1413 "world.sky.sunAngularDiameter ... At the default 0.53"; ours: above 0, below 180.
    fpos("world.sky.sunAngularDiameter", "0.53", 0.0, 180.0, "000:1413", "The sun disc's angular diameter, degrees"),
    // spec 000:1387 lighting.skySunDisc; default 30; ours: at least 0.
    f("world.sky.sunDisc", "30", 0.0, INF, "000:1415", "Brightness of the solar disc"),
    // spec 003:145 table row: 2.5 m; ours: at least 0.
    f("world.spawn.distance", "2.5", 0.0, INF, "003:145", "Meters along the view ray from the eye"),
    // spec 003:146 table row: 0.
    f("world.spawn.height", "0", f64::NEG_INFINITY, INF, "003:146", "Vertical offset applied after the forward step"),
    // spec 004:324 "the default world.stepHeight (0.5 m)"; ours: 0–2 m.
    f("world.stepHeight", "0.5", 0.0, 2.0, "004:324", "The tallest step a pawn climbs at full speed, meters"),
    // spec 000:1179 seeded from lighting.sunColor (sRGB, [0, 1]); default: the spec's lighting block (000:1162).
    v("world.sun.color", "1 1 1", 3, 0.0, 1.0, "000:1179", "The sun's color, sRGB"),
    // spec 000:1179 seeded from lighting.sunDirection, the direction sunlight travels; default the spec's lighting block (000:1161).
    v("world.sun.direction", "-0.35 -0.85 -0.4", 3, -1.0, 1.0, "000:1179", "The direction sunlight travels"),
    // spec 000:1179 seeded from lighting.sunIntensity (linear, unbounded); default 1.0 (000:1163).
    f("world.sun.intensity", "1", 0.0, INF, "000:1179", "The sun's linear intensity"),
    // ours: spec 004:485 names "the world's swim drag" (multiplied by a medium's viscosity) and states no value; default 4 per second, at least 0.
    f("world.swim.drag", "4", 0.0, INF, "ours", "How fast a swimmer's velocity closes on the one it strokes for, per second"),
    // ours: spec 004:485 names "the buoyant drift" (divided by a medium's viscosity) and states no value; default 1 m/s, at least 0.
    f("world.swim.drift", "1", 0.0, INF, "ours", "The speed buoyancy carries a swimmer up, or down, m/s"),
    // ours: the spec states where no swimmer floats; default 0.3 m (the surface at a 1.8 m pawn's chest), above 0, at most 5.
    fpos("world.swim.floatDepth", "0.3", 0.0, 5.0, "ours", "How deep under the surface a floating pawn's middle rests, meters"),
    // ours: spec 004:485 "its density decides whether a swimmer sinks or floats"; default 985 kg/m³ (a body with air in its lungs), above 0.
    fpos("world.swim.pawnDensity", "985", 0.0, INF, "ours", "A pawn's density: a denser medium floats it, a lighter one sinks it, kg/m³"),
    // ours: spec 004:485 names "the stroke" (divided by a medium's viscosity) and states no value; default 3 m/s, at least 0.
    f("world.swim.stroke", "3", 0.0, INF, "ours", "Swimming speed along the view, m/s"),
    // ours: spec 004:485 names "the vertical stroke" (divided by a medium's viscosity) and states no value; default 3 m/s, at least 0.
    f("world.swim.verticalStroke", "3", 0.0, INF, "ours", "The upward speed a jump press gives a swimmer, m/s"),
    // ARCHITECTURE.md "One frame": "fixed ticks (world.tickRate, 64 Hz)"; spec 003:252 "a fixed 1/64 s tick";
    // ours: 1–1024; read when a map installs.
    i("world.tickRate", "64", 1, 1024, "ARCHITECTURE.md", "Simulation ticks per second, read when a map installs"),
    // spec 004:290 table row: 16 MB; ours: 0–65536.
    i("world.voxel.collisionCellCacheMb", "16", 0, 65536, "004:290", "Decoded cells each volume keeps for the server's cooks, MB"),
    // spec 004:287 table row: 16 m; ours: at least 0.
    f("world.voxel.collisionMargin", "16", 0.0, INF, "004:287", "Meters past the radius a chunk keeps its body"),
    // spec 004:286 table row: 48 m; ours: at least 0.
    f("world.voxel.collisionRadius", "48", 0.0, INF, "004:286", "Meters from each player the server keeps chunks solid within"),
    // spec 004:288 table row: 4 m; ours: at least 0.
    f("world.voxel.collisionUrgent", "4", 0.0, INF, "004:288", "Meters from a player a chunk is cooked on the spot"),
    // spec 004:289 table row: 1; ours: 1–64.
    i("world.voxel.collisionWorkers", "1", 1, 64, "004:289", "Threads that cook the server's chunks"),
    // spec 000:1050 names it; ours: default 1 per second, at least 0.
    f("world.water.angularDamping", "1", 0.0, INF, "000:1050", "Angular damping while any buoyancy point is wet"),
    // spec 000:1050 "dropped to world.water.centerOfMassDrop of its box half-height"; ours: default 0.5, 0–1.
    f("world.water.centerOfMassDrop", "0.5", 0.0, 1.0, "000:1050", "Center-of-mass drop, as a fraction of the box half-height"),
    // spec 000:1050 "spread past the hull by world.water.footprint"; ours: default 0.1 m, 0–2.
    f("world.water.footprint", "0.1", 0.0, 2.0, "000:1050", "How far past the hull the buoyancy ring spreads, meters"),
    // spec 000:1050 names it; ours: default 1 per second, at least 0.
    f("world.water.linearDamping", "1", 0.0, INF, "000:1050", "Linear damping while any buoyancy point is wet"),
    // spec 000:1050 names it; ours: default 3 rad/s, above 0.
    fpos("world.water.maxRollRate", "3", 0.0, INF, "000:1050", "Roll rate past which angular damping scales up, rad/s"),
    // spec 000:1050 "four to eight points ... world.water.samples, default 8".
    i("world.water.samples", "8", 4, 8, "000:1050", "Buoyancy sample points on a body's ring"),
];

/// A preference's value.
#[derive(Debug, Clone, PartialEq)]
pub enum PrefValue {
    /// A [`PrefType::Bool`].
    Bool(bool),
    /// A [`PrefType::Int`].
    Int(i64),
    /// A [`PrefType::Float`].
    Float(f64),
    /// A [`PrefType::Token`], in the table's spelling.
    Token(&'static str),
    /// A [`PrefType::Floats`].
    Floats(Vec<f64>),
}

impl fmt::Display for PrefValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrefValue::Bool(v) => write!(f, "{v}"),
            PrefValue::Int(v) => write!(f, "{v}"),
            PrefValue::Float(v) => write!(f, "{v}"),
            PrefValue::Token(v) => f.write_str(v),
            PrefValue::Floats(v) => {
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{x}")?;
                }
                Ok(())
            }
        }
    }
}

/// Why a preference could not be set or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrefError {
    /// No preference has that name.
    #[error("unknown preference '{name}'{}", suggestion_text(.suggestions))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The nearest names in the table, nearest first (at most three).
        suggestions: Vec<&'static str>,
    },
    /// The value is not of the preference's type.
    #[error("{name}: '{value}' is not {expected}")]
    BadValue {
        /// The preference.
        name: &'static str,
        /// The value given.
        value: String,
        /// What it takes, in words.
        expected: String,
    },
    /// The value is of the right type but outside the range.
    #[error("{name}: {value} is out of range: it takes {range}")]
    OutOfRange {
        /// The preference.
        name: &'static str,
        /// The value given.
        value: String,
        /// The range, in words.
        range: String,
    },
    /// A `--set` argument without `=`.
    #[error("--set takes name=value, got '{0}'")]
    BadSetArgument(String),
    /// A preference read as a type it is not (a bug in the reader, not in the input).
    #[error("{name} is {actual}, not {wanted}")]
    WrongType {
        /// The preference.
        name: &'static str,
        /// What the reader asked for.
        wanted: &'static str,
        /// What it is.
        actual: &'static str,
    },
}

fn suggestion_text(s: &[&'static str]) -> String {
    match s {
        [] => "; `help prefs` lists every preference".to_string(),
        [one] => format!("; did you mean {one}?"),
        many => format!("; did you mean one of {}?", many.join(", ")),
    }
}

/// The table's definition of `name`, if it has one.
pub fn definition(name: &str) -> Option<&'static PrefDef> {
    TABLE
        .binary_search_by(|d| d.name.cmp(name))
        .ok()
        .and_then(|i| TABLE.get(i))
}

fn index_of(name: &str) -> Option<usize> {
    TABLE.binary_search_by(|d| d.name.cmp(name)).ok()
}

/// The names nearest to `name` (case-insensitive edit distance over the whole name, and
/// over its last segment), nearest first, at most three
/// ([`dh_content::diag::nearest_dotted`], the suggester the content diagnostics share).
pub fn nearest_names(name: &str) -> Vec<&'static str> {
    dh_content::diag::nearest_dotted(name, TABLE.iter().map(|d| d.name), 3)
}

fn parse_number(def: &'static PrefDef, text: &str, expected: &str) -> Result<f64, PrefError> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(PrefError::BadValue {
            name: def.name,
            value: text.to_string(),
            expected: expected.to_string(),
        }),
    }
}

fn in_float_range(v: f64, min: f64, max: f64, min_open: bool, max_open: bool) -> bool {
    let lo = if min_open { v > min } else { v >= min };
    let hi = if max_open { v < max } else { v <= max };
    lo && hi
}

/// Parses `text` as a value of `def`, checking its range.
pub fn parse_value(def: &'static PrefDef, text: &str) -> Result<PrefValue, PrefError> {
    let trimmed = text.trim();
    let out_of_range = || PrefError::OutOfRange {
        name: def.name,
        value: trimmed.to_string(),
        range: def.ty.describe(),
    };
    match def.ty {
        PrefType::Bool => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "1" | "on" => Ok(PrefValue::Bool(true)),
            "false" | "0" | "off" => Ok(PrefValue::Bool(false)),
            _ => Err(PrefError::BadValue {
                name: def.name,
                value: trimmed.to_string(),
                expected: def.ty.describe(),
            }),
        },
        PrefType::Int { min, max } => {
            let v = trimmed.parse::<i64>().map_err(|_| PrefError::BadValue {
                name: def.name,
                value: trimmed.to_string(),
                expected: "a whole number".into(),
            })?;
            if v < min || v > max {
                return Err(out_of_range());
            }
            Ok(PrefValue::Int(v))
        }
        PrefType::Float {
            min,
            max,
            min_open,
            max_open,
        } => {
            let v = parse_number(def, trimmed, "a number")?;
            if !in_float_range(v, min, max, min_open, max_open) {
                return Err(out_of_range());
            }
            Ok(PrefValue::Float(v))
        }
        PrefType::Token(tokens) => tokens
            .iter()
            .find(|t| t.eq_ignore_ascii_case(trimmed))
            .map(|t| PrefValue::Token(t))
            .ok_or_else(|| PrefError::BadValue {
                name: def.name,
                value: trimmed.to_string(),
                expected: def.ty.describe(),
            }),
        PrefType::Floats { len, min, max } => {
            let inner = trimmed
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .unwrap_or(trimmed);
            let parts: Vec<&str> = inner
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .collect();
            let expected = format!("{len} numbers");
            if parts.len() != len {
                return Err(PrefError::BadValue {
                    name: def.name,
                    value: trimmed.to_string(),
                    expected,
                });
            }
            let mut out = Vec::with_capacity(len);
            for p in parts {
                let v = parse_number(def, p, &expected).map_err(|_| PrefError::BadValue {
                    name: def.name,
                    value: trimmed.to_string(),
                    expected: expected.clone(),
                })?;
                if v < min || v > max {
                    return Err(out_of_range());
                }
                out.push(v);
            }
            Ok(PrefValue::Floats(out))
        }
    }
}

/// Splits a `--set` argument, `name=value`, into its halves.
pub fn split_set_argument(arg: &str) -> Result<(&str, &str), PrefError> {
    match arg.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim(), value.trim())),
        _ => Err(PrefError::BadSetArgument(arg.to_string())),
    }
}

/// The live preferences: every table entry's current value, and whether it was set (on the
/// command line or the console) rather than left at its default. "Set" is what the world.* /
/// client.* resolution order asks (spec 000:1653: a client.render.* counterpart is unset by
/// default, and an unset one follows the world), not "differs from the default": setting a
/// value to its default still sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefs {
    values: Vec<PrefValue>,
    set: Vec<bool>,
}

/// The `world.render.*` preference a `client.render.*` one overrides on this machine (spec
/// 000:1653), when it has one.
pub fn world_counterpart(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("client.render.")?;
    TABLE
        .iter()
        .find(|d| d.name.strip_prefix("world.render.") == Some(rest))
        .map(|d| d.name)
}

impl Default for Prefs {
    fn default() -> Self {
        Self::new()
    }
}

impl Prefs {
    /// Every preference at its default.
    pub fn new() -> Prefs {
        let values = TABLE
            .iter()
            .map(|d| match parse_value(d, d.default) {
                Ok(v) => v,
                // A default that does not parse is a bug in TABLE, which the
                // `every_default_parses_and_is_in_range` test rules out.
                Err(e) => panic!("preference table: {e}"),
            })
            .collect();
        Prefs {
            values,
            set: vec![false; TABLE.len()],
        }
    }

    /// Sets `name` from its console text.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), PrefError> {
        let Some(index) = index_of(name) else {
            return Err(PrefError::Unknown {
                name: name.to_string(),
                suggestions: nearest_names(name),
            });
        };
        let def = &TABLE[index];
        let v = parse_value(def, value)?;
        self.values[index] = v;
        self.set[index] = true;
        Ok(())
    }

    /// Whether `name` was set (command line or console) since start or its last
    /// [`Prefs::unset`]; false for an unknown name.
    pub fn is_set(&self, name: &str) -> bool {
        index_of(name).is_some_and(|i| self.set[i])
    }

    /// Returns `name` to its default and to unset (a `client.render.*` override follows the
    /// world again).
    pub fn unset(&mut self, name: &str) -> Result<(), PrefError> {
        let Some(index) = index_of(name) else {
            return Err(PrefError::Unknown {
                name: name.to_string(),
                suggestions: nearest_names(name),
            });
        };
        let def = &TABLE[index];
        self.values[index] = parse_value(def, def.default)?;
        self.set[index] = false;
        Ok(())
    }

    /// Every preference that is set, in table order.
    pub fn set_names(&self) -> Vec<&'static str> {
        TABLE
            .iter()
            .zip(&self.set)
            .filter(|(_, s)| **s)
            .map(|(d, _)| d.name)
            .collect()
    }

    /// Applies a `--set name=value` argument.
    pub fn apply_set_argument(&mut self, arg: &str) -> Result<(), PrefError> {
        let (name, value) = split_set_argument(arg)?;
        self.set(name, value)
    }

    /// The current value of `name`.
    pub fn get(&self, name: &str) -> Option<&PrefValue> {
        index_of(name).and_then(|i| self.values.get(i))
    }

    /// Every preference whose value differs from its default, in table order.
    pub fn changed(&self) -> Vec<(&'static str, &PrefValue)> {
        TABLE
            .iter()
            .zip(&self.values)
            .filter(|(d, v)| parse_value(d, d.default).ok().as_ref() != Some(*v))
            .map(|(d, v)| (d.name, v))
            .collect()
    }

    fn lookup(&self, name: &str) -> Result<(&'static PrefDef, &PrefValue), PrefError> {
        let i = index_of(name).ok_or_else(|| PrefError::Unknown {
            name: name.to_string(),
            suggestions: nearest_names(name),
        })?;
        Ok((&TABLE[i], &self.values[i]))
    }

    fn wrong(def: &'static PrefDef, wanted: &'static str, v: &PrefValue) -> PrefError {
        PrefError::WrongType {
            name: def.name,
            wanted,
            actual: match v {
                PrefValue::Bool(_) => "bool",
                PrefValue::Int(_) => "int",
                PrefValue::Float(_) => "float",
                PrefValue::Token(_) => "token",
                PrefValue::Floats(_) => "floats",
            },
        }
    }

    /// A boolean preference.
    pub fn bool(&self, name: &str) -> Result<bool, PrefError> {
        match self.lookup(name)? {
            (_, PrefValue::Bool(b)) => Ok(*b),
            (d, v) => Err(Self::wrong(d, "bool", v)),
        }
    }

    /// A whole-number preference.
    pub fn int(&self, name: &str) -> Result<i64, PrefError> {
        match self.lookup(name)? {
            (_, PrefValue::Int(x)) => Ok(*x),
            (d, v) => Err(Self::wrong(d, "int", v)),
        }
    }

    /// A number preference (a whole-number one reads as a number too).
    pub fn float(&self, name: &str) -> Result<f64, PrefError> {
        match self.lookup(name)? {
            (_, PrefValue::Float(x)) => Ok(*x),
            (_, PrefValue::Int(x)) => Ok(*x as f64),
            (d, v) => Err(Self::wrong(d, "float", v)),
        }
    }

    /// A token preference, in the table's spelling.
    pub fn token(&self, name: &str) -> Result<&'static str, PrefError> {
        match self.lookup(name)? {
            (_, PrefValue::Token(x)) => Ok(x),
            (d, v) => Err(Self::wrong(d, "token", v)),
        }
    }

    /// A list-of-numbers preference.
    pub fn floats(&self, name: &str) -> Result<&[f64], PrefError> {
        match self.lookup(name)? {
            (_, PrefValue::Floats(x)) => Ok(x),
            (d, v) => Err(Self::wrong(d, "floats", v)),
        }
    }

    /// `world.tickRate`, ticks per second.
    pub fn tick_rate(&self) -> u32 {
        // In the table as an int in 1..=1024 (checked by a test), so the fallback is unreachable.
        self.int(TICK_RATE)
            .ok()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(64)
    }

    /// `world.stepHeight`, meters.
    pub fn step_height(&self) -> f32 {
        self.float(STEP_HEIGHT).unwrap_or(0.5) as f32
    }

    /// `world.spawn.distance`, meters.
    pub fn spawn_distance(&self) -> f32 {
        self.float(SPAWN_DISTANCE).unwrap_or(2.5) as f32
    }

    /// `world.spawn.height`, meters.
    pub fn spawn_height(&self) -> f32 {
        self.float(SPAWN_HEIGHT).unwrap_or(0.0) as f32
    }

    /// `world.noclipAllowed`.
    pub fn noclip_allowed(&self) -> bool {
        self.bool(NOCLIP_ALLOWED).unwrap_or(false)
    }

    /// A number preference the table holds as a float, as `f32`; `fallback` only if the
    /// name were missing from the table (a test rules that out for every name read).
    pub fn float32(&self, name: &str, fallback: f32) -> f32 {
        self.float(name).map_or(fallback, |v| v as f32)
    }
}

/// The table as `help prefs` prints it: name, type and range, default, spec line.
pub fn help_text() -> String {
    let mut out = String::new();
    for d in TABLE {
        let default = match world_counterpart(d.name) {
            Some(w) => format!("unset: follows {w}"),
            None => format!("default {}", d.default),
        };
        out.push_str(&format!(
            "{}  ({}; {}) [spec {}]\n    {}\n",
            d.name,
            default,
            d.ty.describe(),
            d.spec,
            d.doc
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msaa_takes_1_2_4_or_8_and_refuses_the_rest() {
        let mut p = Prefs::new();
        // Ours: default 4 (the forward passes' samples).
        assert_eq!(p.token("client.render.msaa").ok(), Some("4"));
        for n in ["1", "2", "4", "8"] {
            p.set("client.render.msaa", n)
                .unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(p.token("client.render.msaa").ok(), Some(n));
        }
        for bad in ["0", "3", "16", "-4", "4.0", "many"] {
            let e = p
                .set("client.render.msaa", bad)
                .err()
                .unwrap_or_else(|| panic!("{bad} was taken"));
            assert_eq!(
                e.to_string(),
                format!("client.render.msaa: '{bad}' is not one of 1, 2, 4, 8"),
            );
        }
        // A refused value leaves the last good one.
        assert_eq!(p.token("client.render.msaa").ok(), Some("8"));
    }

    #[test]
    fn table_is_sorted_and_unique() {
        for w in TABLE.windows(2) {
            assert!(
                w[0].name < w[1].name,
                "{} must sort before {}",
                w[0].name,
                w[1].name
            );
        }
    }

    #[test]
    fn every_default_parses_and_is_in_range() {
        for d in TABLE {
            assert!(
                d.name.starts_with("world.") || d.name.starts_with("client."),
                "{}",
                d.name
            );
            assert!(
                !d.spec.is_empty() && !d.doc.is_empty(),
                "{} needs a citation and a doc",
                d.name
            );
            if let Err(e) = parse_value(d, d.default) {
                panic!("{}: default {} does not parse: {e}", d.name, d.default);
            }
        }
    }

    #[test]
    fn spec_defaults_written_by_hand() {
        let p = Prefs::new();
        assert_eq!(p.tick_rate(), 64);
        assert_eq!(p.step_height(), 0.5);
        assert_eq!(p.spawn_distance(), 2.5);
        assert_eq!(p.spawn_height(), 0.0);
        assert_eq!(p.float("client.voxel.streamRadius"), Ok(128.0));
        assert_eq!(p.int("client.voxel.maxMeshes"), Ok(1500));
        assert_eq!(p.bool("client.voxel.opaqueLeaves"), Ok(true));
        assert_eq!(p.token("client.loading.standInAnimation"), Ok("sweep"));
        assert_eq!(p.token("world.render.tonemap"), Ok("reinhardWhite"));
        assert_eq!(p.float("world.render.bloomThreshold"), Ok(1.721));
        assert_eq!(p.int("world.water.samples"), Ok(8));
        assert_eq!(
            p.floats("client.voxel.blockLightTint"),
            Ok(&[255.0, 214.0, 170.0, 255.0][..])
        );
        assert_eq!(p.float("client.render.giGroupSoftness"), Ok(0.0254));
        assert_eq!(p.int("client.editor.lightmapBakeMemoryMb"), Ok(6144));
        assert_eq!(p.float("client.fov"), Ok(90.0));
    }

    #[test]
    fn physics_defaults_are_dh_sims_defaults() {
        // Ours, not the spec's: the values dh-sims' PhysicsParams documents (9.81 m/s²,
        // a 0.3 m × 1.8 m capsule, eyes at 1.6 m, 4 m/s, 4.5 m/s, 45°, 0.01 m).
        let p = Prefs::new();
        assert_eq!(p.float(GRAVITY), Ok(9.81));
        assert_eq!(p.float(PAWN_RADIUS), Ok(0.3));
        assert_eq!(p.float(PAWN_HEIGHT), Ok(1.8));
        assert_eq!(p.float(PAWN_EYE_HEIGHT), Ok(1.6));
        assert_eq!(p.float(PAWN_WALK_SPEED), Ok(4.0));
        assert_eq!(p.float(PAWN_JUMP_SPEED), Ok(4.5));
        assert_eq!(p.float(PAWN_MAX_SLOPE), Ok(45.0));
        assert_eq!(p.float(PAWN_SKIN), Ok(0.01));
        let d = dh_sims::physics::PhysicsParams::default();
        assert_eq!(
            [d.gravity, d.pawn_radius, d.pawn_height, d.eye_height],
            [9.81, 0.3, 1.8, 1.6]
        );
        assert_eq!(
            [d.walk_speed, d.jump_speed, d.max_slope_degrees, d.skin],
            [4.0, 4.5, 45.0, 0.01]
        );
        for name in PHYSICS_PREFS {
            assert!(definition(name).is_some(), "{name}");
        }
        let mut p = Prefs::new();
        assert_eq!(
            p.set(PAWN_MAX_SLOPE, "90").unwrap_err().to_string(),
            "world.pawn.maxSlope: 90 is out of range: it takes a number from above 0 to below 90"
        );
    }

    #[test]
    fn names_the_code_reads_are_in_the_table() {
        for (name, ty) in READ_BY_ENGINE {
            let d = definition(name).unwrap_or_else(|| panic!("{name} is not in the table"));
            let actual = match d.ty {
                PrefType::Bool => "bool",
                PrefType::Int { .. } => "int",
                PrefType::Float { .. } => "float",
                PrefType::Token(_) => "token",
                PrefType::Floats { .. } => "floats",
            };
            assert_eq!(actual, *ty, "{name}");
        }
    }

    #[test]
    fn set_means_set_even_at_the_default() {
        let mut p = Prefs::new();
        assert!(!p.is_set("client.render.exposure"));
        assert!(!p.is_set("world.render.exposure"));
        p.set("world.render.exposure", "1")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            p.is_set("world.render.exposure"),
            "set to its default is still set"
        );
        assert!(
            p.changed().is_empty(),
            "it does not differ from the default"
        );
        assert_eq!(p.set_names(), vec!["world.render.exposure"]);
        p.unset("world.render.exposure")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.is_set("world.render.exposure"));
        assert!(p.unset("client.render.nope").is_err());
    }

    #[test]
    fn every_world_render_value_has_a_client_counterpart() {
        // spec 000:1651-1653: exposure, tonemap, the seven hable* and the six bloom* values.
        let world: Vec<&str> = TABLE
            .iter()
            .map(|d| d.name)
            .filter(|n| n.starts_with("world.render."))
            .collect();
        assert_eq!(world.len(), 15, "{world:?}");
        for w in world {
            let client = w.replacen("world.", "client.", 1);
            let c = definition(&client).unwrap_or_else(|| panic!("{client} is missing"));
            let d = definition(w).unwrap_or_else(|| panic!("{w}"));
            assert_eq!(world_counterpart(&client), Some(w));
            assert_eq!((c.ty, c.default), (d.ty, d.default), "{client}");
            assert_eq!(c.spec, "000:1653");
        }
        assert_eq!(world_counterpart("client.render.lightClusters"), None);
        assert!(
            help_text().contains("client.render.tonemap  (unset: follows world.render.tonemap;")
        );
    }

    #[test]
    fn set_and_read_back() {
        let mut p = Prefs::new();
        p.set("client.voxel.streamRadius", "64")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.float("client.voxel.streamRadius"), Ok(64.0));
        p.apply_set_argument("world.tickRate=32")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.tick_rate(), 32);
        p.set("client.debug.entityGizmos", "1")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.bool("client.debug.entityGizmos"), Ok(true));
        p.set("world.render.tonemap", "ACES")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.token("world.render.tonemap"), Ok("aces"));
        p.set("world.sun.direction", "[0, -1, 0]")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.floats("world.sun.direction"), Ok(&[0.0, -1.0, 0.0][..]));
        let changed: Vec<&str> = p.changed().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            changed,
            vec![
                "client.debug.entityGizmos",
                "client.voxel.streamRadius",
                "world.render.tonemap",
                "world.sun.direction",
                "world.tickRate"
            ]
        );
    }

    #[test]
    fn unknown_name_suggests_the_nearest() {
        let mut p = Prefs::new();
        let e = p.set("world.tickrate", "32").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown preference 'world.tickrate'; did you mean world.tickRate?"
        );
        let e = p.set("client.voxel.streamRadus", "32").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown preference 'client.voxel.streamRadus'; did you mean client.voxel.streamRadius?"
        );
        let e = p.set("nothing.like.it.at.all", "1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown preference 'nothing.like.it.at.all'; `help prefs` lists every preference"
        );
    }

    #[test]
    fn out_of_range_states_the_range() {
        let mut p = Prefs::new();
        assert_eq!(
            p.set("world.tickRate", "0").unwrap_err().to_string(),
            "world.tickRate: 0 is out of range: it takes a whole number from 1 to 1024"
        );
        assert_eq!(
            p.set("client.render.giNormalBias", "1.5")
                .unwrap_err()
                .to_string(),
            "client.render.giNormalBias: 1.5 is out of range: it takes a number from 0 to 1"
        );
        assert_eq!(
            p.set("world.render.exposure", "0").unwrap_err().to_string(),
            "world.render.exposure: 0 is out of range: it takes a number above 0"
        );
        assert_eq!(
            p.set("world.water.samples", "9").unwrap_err().to_string(),
            "world.water.samples: 9 is out of range: it takes a whole number from 4 to 8"
        );
        assert_eq!(
            p.set("world.stepHeight", "tall").unwrap_err().to_string(),
            "world.stepHeight: 'tall' is not a number"
        );
        assert_eq!(
            p.set("world.noclipAllowed", "maybe")
                .unwrap_err()
                .to_string(),
            "world.noclipAllowed: 'maybe' is not true or false (1 or 0, on or off)"
        );
        assert_eq!(
            p.set("client.loading.standInAnimation", "wobble").unwrap_err().to_string(),
            "client.loading.standInAnimation: 'wobble' is not one of none, pulse, shift, sweep, shimmer"
        );
        assert_eq!(
            p.set("world.sun.color", "1 1").unwrap_err().to_string(),
            "world.sun.color: '1 1' is not 3 numbers"
        );
        // Nothing was stored by a refused set.
        assert_eq!(p, Prefs::new());
    }

    #[test]
    fn set_argument_needs_equals() {
        assert_eq!(
            split_set_argument("world.tickRate")
                .unwrap_err()
                .to_string(),
            "--set takes name=value, got 'world.tickRate'"
        );
        assert_eq!(split_set_argument("a.b = 3"), Ok(("a.b", "3")));
    }
}
