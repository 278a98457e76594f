//! The debug overlays' content, extracted from the running host for the renderer's overlay
//! passes (`dh_gpu::render::overlay`).
//!
//! Drawn:
//!
//! * `client.debug.lights` (000:1659): each lit light's influence volume in the
//!   depth-tested line pass, tinted with that light's own colour — a range sphere (three
//!   great circles) for a point light, the outer cone (its rim at the range and four edges
//!   from the apex) for a spot; a light switched off is not drawn, nor a directional light
//!   (no bounded volume).
//! * `client.debug.entityGizmos` (000:1657), on top of the picture: a coloured dot at the
//!   live pivot of every in-view logic entity that replicates ([`entity_gizmos`]: an object
//!   carrying a `dh.button`, `dh.mover`, `dh.pressurePlate`, `dh.light` or `dh.physicsProp`,
//!   and a body-carrying instance), a label above it with its name and its live values one
//!   per component in wire order, and the wiring lines ([`wiring`]) from each output owner
//!   to every positioned entity its wiring reaches, followed through the non-visual
//!   components. Everything fades out with distance ([`fade`]): a dot reaches twice
//!   `client.editor.gizmoLabelDistance`, a label that distance, and a label gives way to a
//!   nearer one it would overlap ([`place_labels`]).
//!
//! * `client.debug.hud` (000:517, 000:1663): the position readout ([`readout`]: `pos` and
//!   `ang` rows in the form a spawn's pose is written, of the view the shot is taken from)
//!   at the top left, and the axis gizmo (the world axes as the view sees them) at the
//!   bottom left.
//!
//! * `client.debug.colliderGizmo` (004:313), in the depth-tested line pass: each collider
//!   standing as a body, at its live pose, coloured by its role ([`collider_lines`]):
//!   boxes, spheres and capsules from their measures, hull and mesh shapes (a map's mesh
//!   collision, cooked) by their edges as the physics world holds them; and each voxel
//!   chunk body alive by its triangles' edges, as a map's mesh collision is drawn, with one
//!   label per volume naming it ([`voxel_labels`]). Mesh edges are drawn once each, and at
//!   most [`COLLIDER_LINE_BUDGET`] segments in all, nearest first; a budget that is hit
//!   says how many were left out ([`overlay_with_notes`]).
//!
//! `client.debug.contacts` is a log, not an overlay: see [`crate::contacts`].
//!
//! A trigger's hull and mesh shapes stand as no body: they are drawn from the shape itself
//! (the hull of its points, the triangles cooked for it at load). [`not_drawn`] names what
//! an overlay pref still leaves undrawn, once per run: nothing now.

use std::collections::BTreeSet;

use dh_content::schema::components::geometry::ColliderState;
use dh_content::schema::components::light::LightKind as MapLightKind;
use dh_gpu::render::camera;
use dh_gpu::render::frame::View;
use dh_gpu::render::math::rotate;
use dh_gpu::render::overlay::GlyphAtlas;
use dh_gpu::render::{Overlay, ScreenItem};
use dh_sims::logic::WireAction;
use dh_sims::physics::BodyHandle;
use dh_sims::{
    Body, BodyRole, Button, Collider, Connections, Disabled, Light as SimLight, LogicNode, Mover,
    PressurePlate, RecordId, RecordKind,
};
use glam::{Mat4, Quat, Vec2, Vec3};

use crate::host::Host;
use crate::prefs::Prefs;

/// Segments per circle of a range sphere or a cone's rim.
pub const CIRCLE_SEGMENTS: usize = 32;

/// One light's influence volume, as the overlay draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightVolume {
    /// A point light's sphere (`outer_cone` unused) or a spot's cone.
    pub spot: bool,
    /// Where it sits, meters.
    pub position: Vec3,
    /// The direction a spot points (unit).
    pub direction: Vec3,
    /// Its range, meters.
    pub range: f32,
    /// A spot's outer cone, full angle in degrees.
    pub outer_cone: f32,
    /// Its colour, linear.
    pub color: Vec3,
    /// Whether it is switched on.
    pub on: bool,
}

/// The lights of the host's world, on or off (disabled records left out); directional
/// lights and `none` have no volume and are left out.
pub fn light_volumes(host: &Host) -> Vec<LightVolume> {
    let sim = host.sim();
    let world = sim.world();
    let mut out = Vec::new();
    for &e in sim.records() {
        if world.get::<&Disabled>(e).is_ok() {
            continue;
        }
        let (Some(pose), Some(l)) = (sim.world_pose(e), sim.get::<SimLight>(e)) else {
            continue;
        };
        let eff = l.effective();
        let spot = match eff.kind {
            MapLightKind::Point => false,
            MapLightKind::Spot => true,
            MapLightKind::Directional | MapLightKind::None => continue,
        };
        out.push(LightVolume {
            spot,
            position: pose.position + l.offset,
            direction: rotate(pose.rotation, Vec3::NEG_Y).normalize_or(Vec3::NEG_Y),
            range: eff.range,
            outer_cone: eff.outer_cone,
            color: eff.color,
            on: eff.on,
        });
    }
    out
}

/// A linear colour as sRGB bytes, scaled so its brightest channel is full (a dim lamp's
/// volume stays readable), opaque.
pub fn tint(color: Vec3) -> [u8; 4] {
    let m = color.max_element();
    let c = if m > 0.0 { color / m } else { Vec3::ONE };
    let enc = |v: f32| {
        let v = v.clamp(0.0, 1.0);
        let s = if v <= 0.003_130_8 {
            v * 12.92
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    [enc(c.x), enc(c.y), enc(c.z), 255]
}

/// A circle of `radius` around `center` in the plane spanned by `u` and `v` (unit, normal
/// to each other).
fn circle(o: &mut Overlay, center: Vec3, u: Vec3, v: Vec3, radius: f32, color: [u8; 4]) {
    let at = |i: usize| {
        let a = i as f32 / CIRCLE_SEGMENTS as f32 * std::f32::consts::TAU;
        center + (u * a.cos() + v * a.sin()) * radius
    };
    for i in 0..CIRCLE_SEGMENTS {
        o.line(at(i), at(i + 1), color);
    }
}

/// Adds the influence volumes of the lights that are on.
pub fn light_lines(o: &mut Overlay, lights: &[LightVolume]) {
    for l in lights.iter().filter(|l| l.on && l.range > 0.0) {
        let color = tint(l.color);
        if !l.spot {
            circle(o, l.position, Vec3::X, Vec3::Y, l.range, color);
            circle(o, l.position, Vec3::Y, Vec3::Z, l.range, color);
            circle(o, l.position, Vec3::Z, Vec3::X, l.range, color);
            continue;
        }
        let d = l.direction.normalize_or(Vec3::NEG_Y);
        let half = (l.outer_cone * 0.5).clamp(0.0, 89.0).to_radians();
        let (u, v) = d.any_orthonormal_pair();
        let rim = l.position + d * l.range * half.cos();
        let r = l.range * half.sin();
        circle(o, rim, u, v, r, color);
        for k in 0..4 {
            let q = Quat::from_axis_angle(d, k as f32 * std::f32::consts::FRAC_PI_2);
            o.line(l.position, rim + q * u * r, color);
        }
    }
}

// ---- Collider wireframes (004:313) -------------------------------------------------------------

/// A static collider's wireframe (ours: every colour of this overlay is).
pub const STATIC_COLLIDER_COLOR: [u8; 4] = [255, 150, 40, 255];
/// A kinematic (carried) collider's wireframe.
pub const KINEMATIC_COLLIDER_COLOR: [u8; 4] = [90, 170, 255, 255];
/// A physics prop's wireframe.
pub const DYNAMIC_COLLIDER_COLOR: [u8; 4] = [90, 235, 120, 255];
/// A sensor's or a passable trigger's wireframe.
pub const TRIGGER_COLLIDER_COLOR: [u8; 4] = [235, 90, 235, 255];

/// The most mesh, hull and voxel chunk edges the collider gizmo draws in one overlay (ours;
/// about eight times the spec's 14,500 triangles around a player at the default radius):
/// past it the rest are left out, farthest first, and the overlay's notes say how many
/// ([`ColliderCounts::budget_note`]).
pub const COLLIDER_LINE_BUDGET: usize = 200_000;

/// What the collider gizmo drew and what it could not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ColliderCounts {
    /// Shapes drawn (boxes, spheres, capsules, and hull and mesh shapes standing as a
    /// body).
    pub drawn: usize,
    /// Hull and mesh shapes with nothing to draw: a hull of points with no volume, or a
    /// mesh with no cooked triangles, on a record that stands as no body.
    pub skipped: usize,
    /// Voxel chunk bodies drawn (wholly or in part).
    pub chunk_bodies: usize,
    /// Mesh, hull and chunk edges drawn (the budgeted segments).
    pub lines: usize,
    /// Mesh, hull and chunk edges left out past the budget.
    pub left_out: usize,
}

impl ColliderCounts {
    /// The log line for a budget that was hit (`None` when everything was drawn).
    pub fn budget_note(&self, budget: usize) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "client.debug.colliderGizmo: {} collider edge(s) past the budget of {budget} are not drawn (the farthest)",
                self.left_out
            )
        })
    }
}

/// Mesh and hull edges, each drawn once (an edge two triangles share, or two chunks, is one
/// line), until the budget runs out.
struct EdgeSink {
    seen: std::collections::HashSet<[i64; 6]>,
    budget: usize,
    lines: usize,
    left_out: usize,
}

/// Edge ends are matched to 1/4096 m.
const EDGE_GRID: f32 = 4096.0;

impl EdgeSink {
    fn new(budget: usize) -> EdgeSink {
        EdgeSink {
            seen: std::collections::HashSet::new(),
            budget,
            lines: 0,
            left_out: 0,
        }
    }

    /// Whether `n` more segments fit.
    fn fits(&self, n: usize) -> bool {
        self.lines + n <= self.budget
    }

    /// Draws `a`–`b` unless it was drawn already; counts it as left out past the budget.
    fn edge(&mut self, o: &mut Overlay, a: Vec3, b: Vec3, color: [u8; 4]) {
        let q = |p: Vec3| (p * EDGE_GRID).round().to_array().map(|c| c as i64);
        let (qa, qb) = (q(a), q(b));
        if qa == qb {
            return;
        }
        let (lo, hi) = if qa <= qb { (qa, qb) } else { (qb, qa) };
        let key = [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
        if !self.seen.insert(key) {
            return;
        }
        if self.lines >= self.budget {
            self.left_out += 1;
            return;
        }
        o.line(a, b, color);
        self.lines += 1;
    }
}

/// [`collider_lines_within`] with [`COLLIDER_LINE_BUDGET`], nearest the origin first.
pub fn collider_lines(o: &mut Overlay, host: &Host) -> ColliderCounts {
    collider_lines_within(o, host, Vec3::ZERO, COLLIDER_LINE_BUDGET)
}

/// Adds the wireframe of every collider in the world that stands as a body (its state is
/// not `"off"`), at its live pose (a prop where the solver has it), in the depth-tested
/// line pass: boxes by their twelve edges, spheres by three great circles, capsules by
/// their end rings, four sides and two end arcs, hull shapes by the hull's edges and mesh
/// shapes (a map's mesh collision, the `.dh-colcook` companion's or the load-time cook's
/// triangles) by their triangles' edges, as the physics world holds them; then each voxel
/// chunk body alive (spec 004:313) by its triangles' edges, in the colour of static
/// collision, as a map's mesh collision is drawn. Mesh and hull edges are drawn once each
/// (deduplicated by their ends). At most `budget` mesh, hull and chunk segments are drawn
/// (boxes, spheres and capsules, a few dozen segments each, are not counted): the records'
/// first, then the chunk bodies nearest `eye` first; what does not fit is counted in
/// [`ColliderCounts::left_out`]. A hull or mesh shape on a record that stands as no body (a
/// trigger) is drawn from the shape itself at the record's pose: the hull of its points, or
/// the triangles cooked for it at load; one with neither is counted in
/// [`ColliderCounts::skipped`].
pub fn collider_lines_within(
    o: &mut Overlay,
    host: &Host,
    eye: Vec3,
    budget: usize,
) -> ColliderCounts {
    let sim = host.sim();
    let world = sim.world();
    let mut counts = ColliderCounts::default();
    let mut sink = EdgeSink::new(budget);
    let mut edges: Vec<[Vec3; 2]> = Vec::new();
    for &e in sim.records().iter().chain(sim.parts()) {
        if !sim.in_world(e) {
            continue;
        }
        let Ok(col) = world.get::<&Collider>(e) else {
            continue;
        };
        if col.state == ColliderState::Off {
            continue;
        }
        let Some(mut pose) = sim.world_pose(e) else {
            continue;
        };
        if let Some(p) = host.prop_pose(e) {
            pose.position = p.position;
            pose.rotation = p.rotation;
        }
        let color = match sim.get::<Body>(e).map(|b| b.role) {
            Some(BodyRole::Kinematic) => KINEMATIC_COLLIDER_COLOR,
            Some(BodyRole::Dynamic) => DYNAMIC_COLLIDER_COLOR,
            Some(BodyRole::Sensor | BodyRole::Passable) => TRIGGER_COLLIDER_COLOR,
            _ if col.state == ColliderState::Trigger => TRIGGER_COLLIDER_COLOR,
            _ => STATIC_COLLIDER_COLOR,
        };
        // Hull and mesh shapes are drawn from the record's bodies, once for all of them.
        let mut body_edges_drawn = false;
        for shape in &col.shapes {
            match shape {
                dh_sims::ColliderShape::Box {
                    center,
                    rotation,
                    half_extents,
                    ..
                } => {
                    let corner = |k: usize| {
                        let s = Vec3::new(
                            if k & 1 == 0 { -1.0 } else { 1.0 },
                            if k & 2 == 0 { -1.0 } else { 1.0 },
                            if k & 4 == 0 { -1.0 } else { 1.0 },
                        );
                        pose.apply(*center + rotate(*rotation, s * *half_extents))
                    };
                    for k in 0..8usize {
                        for bit in [1usize, 2, 4] {
                            if k & bit == 0 {
                                o.line(corner(k), corner(k | bit), color);
                            }
                        }
                    }
                    counts.drawn += 1;
                }
                dh_sims::ColliderShape::Sphere { center, radius, .. } => {
                    let c = pose.apply(*center);
                    let r = radius * pose.scale.abs().max_element();
                    circle(o, c, Vec3::X, Vec3::Y, r, color);
                    circle(o, c, Vec3::Y, Vec3::Z, r, color);
                    circle(o, c, Vec3::Z, Vec3::X, r, color);
                    counts.drawn += 1;
                }
                dh_sims::ColliderShape::Capsule {
                    center,
                    rotation,
                    radius,
                    height,
                    ..
                } => {
                    let s = pose.scale.abs();
                    let r = radius * s.x.max(s.z);
                    let q = pose.rotation * *rotation;
                    let axis = rotate(q, Vec3::Y);
                    let (u, v) = (rotate(q, Vec3::X), rotate(q, Vec3::Z));
                    let c = pose.apply(*center);
                    let half = (height * 0.5 * s.y - r).max(0.0);
                    let (top, bottom) = (c + axis * half, c - axis * half);
                    circle(o, top, u, v, r, color);
                    circle(o, bottom, u, v, r, color);
                    for side in [u, -u, v, -v] {
                        o.line(top + side * r, bottom + side * r, color);
                    }
                    for side in [u, v] {
                        arc(o, top, side, axis, r, color);
                        arc(o, bottom, side, -axis, r, color);
                    }
                    counts.drawn += 1;
                }
                dh_sims::ColliderShape::Hull { .. } | dh_sims::ColliderShape::Mesh { .. } => {
                    let bodies = host.bodies_of(e);
                    if bodies.is_empty() {
                        // No body (a trigger's): from the shape itself, at the pose.
                        edges.clear();
                        match shape {
                            dh_sims::ColliderShape::Hull { points, .. } => {
                                edges.extend(dh_sims::physics::hull_edges(points));
                            }
                            dh_sims::ColliderShape::Mesh { index, .. } => {
                                if let Some(m) = host.cooked_mesh(e, *index) {
                                    let v = |i: u32| {
                                        m.vertices.get(i as usize).copied().map(Vec3::from_array)
                                    };
                                    for t in &m.triangles {
                                        let (Some(a), Some(b), Some(c)) =
                                            (v(t[0]), v(t[1]), v(t[2]))
                                        else {
                                            continue;
                                        };
                                        edges.extend([[a, b], [b, c], [c, a]]);
                                    }
                                }
                            }
                            _ => {}
                        }
                        if edges.is_empty() {
                            counts.skipped += 1;
                            continue;
                        }
                        for [a, z] in &edges {
                            sink.edge(o, pose.apply(*a), pose.apply(*z), color);
                        }
                        counts.drawn += 1;
                        continue;
                    }
                    counts.drawn += 1;
                    if body_edges_drawn {
                        continue;
                    }
                    body_edges_drawn = true;
                    for &b in bodies {
                        edges.clear();
                        if host.physics().body_wire_edges(b, &mut edges).is_ok() {
                            for [a, z] in &edges {
                                sink.edge(o, *a, *z, color);
                            }
                        }
                    }
                }
            }
        }
    }
    // The voxel chunk bodies, nearest the eye first.
    let physics = host.physics();
    let mut chunks: Vec<(f32, BodyHandle)> = host
        .voxel_bodies()
        .into_iter()
        .map(|(_, _, b, _)| {
            let d = physics
                .body_pose(b)
                .map_or(f32::INFINITY, |p| p.position.distance_squared(eye));
            (d, b)
        })
        .collect();
    chunks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (_, b) in chunks {
        edges.clear();
        if physics.body_wire_edges(b, &mut edges).is_err() || edges.is_empty() {
            continue;
        }
        if sink.fits(1) {
            counts.chunk_bodies += 1;
        }
        // Past the budget the sink still matches each edge, so the ones left out are
        // counted once each, as the drawn ones are.
        for [a, z] in &edges {
            sink.edge(o, *a, *z, STATIC_COLLIDER_COLOR);
        }
    }
    counts.lines = sink.lines;
    counts.left_out = sink.left_out;
    counts
}

/// One label per voxel volume with chunk bodies alive (spec 004:313: "labeled with the
/// volume's name"; ours: one per volume, not one per chunk, so a streamed world of a hundred
/// chunks reads as one name): its anchor (the top centre of its bodies' edges' bounds,
/// meters) and its lines (`voxel volume 'name'`, then how many chunk bodies and triangles).
pub fn voxel_labels(host: &Host) -> Vec<(Vec3, Vec<String>)> {
    let physics = host.physics();
    let mut out: Vec<(String, Vec3, Vec3, usize, u64)> = Vec::new();
    let mut edges = Vec::new();
    for (name, _, b, tris) in host.voxel_bodies() {
        edges.clear();
        if physics.body_wire_edges(b, &mut edges).is_err() {
            continue;
        }
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in edges.iter().flatten() {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        if !lo.is_finite() {
            continue;
        }
        match out.iter_mut().find(|v| v.0 == name) {
            Some(v) => {
                v.1 = v.1.min(lo);
                v.2 = v.2.max(hi);
                v.3 += 1;
                v.4 += u64::from(tris);
            }
            None => out.push((name, lo, hi, 1, u64::from(tris))),
        }
    }
    out.into_iter()
        .map(|(name, lo, hi, n, tris)| {
            let anchor = Vec3::new((lo.x + hi.x) * 0.5, hi.y, (lo.z + hi.z) * 0.5);
            (
                anchor,
                vec![
                    format!("voxel volume '{name}'"),
                    format!("{n} chunk bodies, {tris} triangles"),
                ],
            )
        })
        .collect()
}

/// Adds the voxel volumes' labels seen through `screen`, centred above their anchors, each
/// on a backdrop; one whose anchor is behind the eye or off the picture is not drawn.
pub fn voxel_label_items(
    o: &mut Overlay,
    atlas: &GlyphAtlas,
    screen: &Screen,
    labels: &[(Vec3, Vec<String>)],
) {
    for (anchor, lines) in labels {
        let Some(px) = screen.project(*anchor) else {
            continue;
        };
        if !screen.on_screen(px) {
            continue;
        }
        let w = lines
            .iter()
            .map(|l| atlas.text_size(l)[0])
            .fold(0.0, f32::max)
            + 2.0 * LABEL_PAD;
        let h = lines.len() as f32 * atlas.line_height + 2.0 * LABEL_PAD;
        let (x, y) = ((px.x - w * 0.5).round(), (px.y - LABEL_GAP - h).round());
        o.screen.push(ScreenItem::Rect {
            at: [x, y],
            size: [w, h],
            color: LABEL_BACKDROP,
        });
        for (n, line) in lines.iter().enumerate() {
            let tw = atlas.text_size(line)[0];
            o.screen.push(ScreenItem::Text {
                at: [
                    (x + (w - tw) * 0.5).round(),
                    y + LABEL_PAD + n as f32 * atlas.line_height,
                ],
                text: line.clone(),
                color: STATIC_COLLIDER_COLOR,
                backdrop: None,
            });
        }
    }
}

/// The half circle of `radius` around `center` from `u` through `v` to `-u`.
fn arc(o: &mut Overlay, center: Vec3, u: Vec3, v: Vec3, radius: f32, color: [u8; 4]) {
    let n = CIRCLE_SEGMENTS / 2;
    let at = |i: usize| {
        let a = i as f32 / n as f32 * std::f32::consts::PI;
        center + (u * a.cos() + v * a.sin()) * radius
    };
    for i in 0..n {
        o.line(at(i), at(i + 1), color);
    }
}

// ---- The screen ---------------------------------------------------------------------------

/// The view a capture projects the screen-space gizmos through: the renderer's own matrices
/// for the same view and size, so a dot lands on the pixel the line pass would put the
/// point on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    view: Mat4,
    view_proj: Mat4,
    /// The eye, meters.
    pub eye: Vec3,
    near: f32,
    /// Width and height, pixels.
    pub size: Vec2,
}

impl Screen {
    /// `view` shot at `width × height`.
    pub fn new(view: &View, width: u32, height: u32) -> Screen {
        let s = camera::setup(view, width, height, None);
        Screen {
            view: s.view,
            view_proj: s.projection * s.view,
            eye: s.eye,
            near: s.near,
            size: Vec2::new(width.max(1) as f32, height.max(1) as f32),
        }
    }

    /// How far ahead of the eye `p` lies, along the view direction, meters.
    fn depth(&self, p: Vec3) -> f32 {
        -self.view.transform_point3(p).z
    }

    /// The pixel `p` lands on (y down), or `None` when it lies behind the near plane.
    pub fn project(&self, p: Vec3) -> Option<Vec2> {
        if self.depth(p) < self.near {
            return None;
        }
        let c = self.view_proj * p.extend(1.0);
        if c.w <= 0.0 {
            return None;
        }
        let ndc = Vec2::new(c.x, c.y) / c.w;
        Some((ndc + Vec2::ONE) * 0.5 * self.size)
    }

    /// Whether pixel `px` is on the picture.
    pub fn on_screen(&self, px: Vec2) -> bool {
        px.x >= 0.0 && px.y >= 0.0 && px.x <= self.size.x && px.y <= self.size.y
    }

    /// The segment `a`–`b` in pixels, cut at the near plane (`None` when all of it is
    /// behind).
    pub fn segment(&self, a: Vec3, b: Vec3) -> Option<(Vec2, Vec2)> {
        // Cut a hair in front of the plane so the cut end projects.
        let near = self.near * 1.001;
        let (da, db) = (self.depth(a), self.depth(b));
        if da < near && db < near {
            return None;
        }
        let cut = |behind: Vec3, d_behind: f32, ahead: Vec3, d_ahead: f32| {
            behind + (ahead - behind) * ((near - d_behind) / (d_ahead - d_behind))
        };
        let a2 = if da < near { cut(a, da, b, db) } else { a };
        let b2 = if db < near { cut(b, db, a, da) } else { b };
        Some((self.project(a2)?, self.project(b2)?))
    }

    /// Meters from the eye to `p`.
    pub fn distance(&self, p: Vec3) -> f32 {
        (p - self.eye).length()
    }
}

/// The share of a gizmo's reach, at its far end, over which it fades out (ours).
pub const FADE_SHARE: f32 = 0.25;

/// How much of a gizmo `distance` meters away still shows when it reaches `reach` meters:
/// 1 up to the last [`FADE_SHARE`] of the reach, falling linearly to 0 at the reach.
pub fn fade(distance: f32, reach: f32) -> f32 {
    if reach.is_nan() || reach <= 0.0 {
        return 0.0;
    }
    ((reach - distance) / (FADE_SHARE * reach)).clamp(0.0, 1.0)
}

/// `color` with its alpha scaled by `f` in [0, 1].
fn faded(color: [u8; 4], f: f32) -> [u8; 4] {
    let a = (f32::from(color[3]) * f.clamp(0.0, 1.0)).round() as u8;
    [color[0], color[1], color[2], a]
}

// ---- Entity gizmos (000:1657) ---------------------------------------------------------------

/// Dot colours by what the entity is (ours): a button red, a mover blue, a pressure plate
/// yellow, a light its own colour (grey while off), a physics prop and any other
/// body-carrying instance green.
pub const BUTTON_COLOR: [u8; 4] = [235, 64, 52, 255];
/// A mover's dot.
pub const MOVER_COLOR: [u8; 4] = [64, 156, 255, 255];
/// A pressure plate's dot.
pub const PLATE_COLOR: [u8; 4] = [250, 204, 21, 255];
/// A light's dot while it is off.
pub const LIGHT_OFF_COLOR: [u8; 4] = [140, 140, 140, 255];
/// A physics prop's or a body-carrying instance's dot.
pub const BODY_COLOR: [u8; 4] = [72, 220, 110, 255];
/// A wiring line.
pub const WIRE_COLOR: [u8; 4] = [0, 230, 230, 255];
/// A label's text.
pub const LABEL_COLOR: [u8; 4] = [255, 255, 255, 255];
/// A label's backdrop.
pub const LABEL_BACKDROP: [u8; 4] = [0, 0, 0, 170];
/// A dot's radius, pixels (with a 1.5 px dark rim around it).
pub const DOT_RADIUS: f32 = 5.0;
/// A wiring line's width, pixels.
pub const WIRE_WIDTH: f32 = 1.5;
/// How many pieces a wiring line is cut into so that its far end fades with distance.
pub const WIRE_PIECES: usize = 8;
/// Pixels between a dot's top and its label's bottom.
const LABEL_GAP: f32 = 4.0;
/// A label's padding around its text, pixels.
const LABEL_PAD: f32 = 2.0;

/// One logic entity that replicates, as its gizmo shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityGizmo {
    /// The record.
    pub entity: hecs::Entity,
    /// Its name (its id when it has none).
    pub name: String,
    /// Its live pivot: where the carry (or, for a physics prop, the solver) has it now.
    pub pivot: Vec3,
    /// Its live replicated values, one per component in wire order (`open 40%`, `idle`).
    pub values: Vec<String>,
    /// The dot's colour.
    pub color: [u8; 4],
}

impl EntityGizmo {
    /// The label's lines: the name, then the values joined by `, ` (when there are any).
    pub fn label_lines(&self) -> Vec<String> {
        let mut lines = vec![self.name.clone()];
        if !self.values.is_empty() {
            lines.push(self.values.join(", "));
        }
        lines
    }
}

/// A mover's open fraction as the label prints it: whole percent.
fn open_percent(m: &Mover) -> String {
    format!("open {}%", (m.open_fraction() * 100.0).round() as i64)
}

/// Every logic entity in the world that replicates, in author order: an object carrying a
/// `dh.button`, a `dh.mover`, a `dh.pressurePlate`, a `dh.light` or a `dh.physicsProp`, and
/// an instance carrying a body that moves (dynamic or kinematic). The non-visual
/// components (timers, map starts, gates, triggers, teleports) replicate nothing and make
/// none.
pub fn entity_gizmos(host: &Host) -> Vec<EntityGizmo> {
    let sim = host.sim();
    let world = sim.world();
    let mut out = Vec::new();
    for &e in sim.records() {
        if !sim.in_world(e) {
            continue;
        }
        let types = sim.get::<LogicNode>(e).map(|n| n.types).unwrap_or_default();
        let moving_instance = sim.get::<RecordKind>(e) == Some(RecordKind::ObjectInstance)
            && sim
                .get::<Body>(e)
                .is_some_and(|b| matches!(b.role, BodyRole::Dynamic | BodyRole::Kinematic));
        let mut values = Vec::new();
        let mut color = None;
        for t in &types {
            match *t {
                "dh.button" => {
                    let pressed = world.get::<&Button>(e).is_ok_and(|b| b.latch);
                    values.push(if pressed { "pressed" } else { "idle" }.to_string());
                    color.get_or_insert(BUTTON_COLOR);
                }
                "dh.mover" => {
                    if let Ok(m) = world.get::<&Mover>(e) {
                        values.push(open_percent(&m));
                    }
                    color.get_or_insert(MOVER_COLOR);
                }
                "dh.pressurePlate" => {
                    let n = world
                        .get::<&PressurePlate>(e)
                        .map_or(0, |p| p.occupants.len());
                    values.push(format!("occupancy {n}"));
                    color.get_or_insert(PLATE_COLOR);
                }
                "dh.light" => {
                    let eff = world.get::<&SimLight>(e).ok().map(|l| l.effective());
                    let on = eff.as_ref().is_some_and(|l| l.on);
                    values.push(if on { "on" } else { "off" }.to_string());
                    color.get_or_insert(match eff {
                        Some(l) if on => tint(l.color),
                        _ => LIGHT_OFF_COLOR,
                    });
                }
                "dh.physicsProp" => {
                    let resting = host.prop_sleeping(e).unwrap_or(false);
                    values.push(if resting { "resting" } else { "moving" }.to_string());
                    color.get_or_insert(BODY_COLOR);
                }
                _ => {}
            }
        }
        if moving_instance {
            color.get_or_insert(BODY_COLOR);
        }
        let Some(color) = color else {
            continue;
        };
        let pivot = match host.prop_pose(e) {
            Some(p) => p.position,
            None => match sim.world_pose(e) {
                Some(p) => p.position,
                None => continue,
            },
        };
        let name = sim.name_of(e).unwrap_or_else(|| {
            sim.get::<RecordId>(e)
                .map_or_else(|| "(unnamed)".to_string(), |id| id.0.to_string())
        });
        out.push(EntityGizmo {
            entity: e,
            name,
            pivot,
            values,
            color,
        });
    }
    out
}

/// One wiring line: from an output owner to a positioned entity its wiring reaches.
#[derive(Debug, Clone, PartialEq)]
pub struct WireLine {
    /// The output owner.
    pub from: hecs::Entity,
    /// The entity its wiring reaches.
    pub to: hecs::Entity,
    /// Where the line starts (the owner's live pivot, or a trigger brush's authored center).
    pub a: Vec3,
    /// Where it ends.
    pub b: Vec3,
}

/// A `boxBrush` whose collider state is `"trigger"` and that wires something: a wire end,
/// at its authored center (000:1657).
fn trigger_brush_end(host: &Host, e: hecs::Entity) -> Option<Vec3> {
    let sim = host.sim();
    if sim.get::<RecordKind>(e) != Some(RecordKind::BoxBrush) {
        return None;
    }
    let world = sim.world();
    let trigger = world
        .get::<&Collider>(e)
        .is_ok_and(|c| c.state == ColliderState::Trigger);
    let wires = world.get::<&Connections>(e).is_ok_and(|c| !c.0.is_empty());
    let authored = world
        .get::<&dh_sims::LocalTransform>(e)
        .ok()
        .map(|t| t.0.position);
    if trigger && wires {
        authored
    } else {
        None
    }
}

/// The wiring lines (000:1657), in author order of their owners: from each positioned
/// output owner (an entity with a gizmo, or a trigger brush that wires something) to every
/// positioned entity its wiring reaches. A wire into a non-visual component (a timer, a map
/// start, a gate) is followed through that component's own wiring, transitively, to the
/// placeable entities on the far side, so `button → timer → gate → light` is one line from
/// the button to the light. A wire back to its own owner draws nothing, and each
/// owner–target pair draws once.
pub fn wiring(host: &Host, gizmos: &[EntityGizmo]) -> Vec<WireLine> {
    let sim = host.sim();
    let world = sim.world();
    let at = |e: hecs::Entity| -> Option<Vec3> {
        gizmos
            .iter()
            .find(|g| g.entity == e)
            .map(|g| g.pivot)
            .or_else(|| trigger_brush_end(host, e))
    };
    let mut out = Vec::new();
    for &src in sim.records() {
        if !sim.in_world(src) {
            continue;
        }
        let Some(a) = at(src) else {
            continue;
        };
        let mut seen: BTreeSet<u64> = BTreeSet::new();
        let mut reached: BTreeSet<u64> = BTreeSet::new();
        let mut stack = vec![src];
        seen.insert(src.to_bits().get());
        while let Some(node) = stack.pop() {
            let Ok(conns) = world.get::<&Connections>(node) else {
                continue;
            };
            let mut next = Vec::new();
            for wire in conns.0.iter() {
                for action in &wire.actions {
                    let WireAction::Call(call) = action else {
                        continue;
                    };
                    let Some(t) = call.target_entity else {
                        continue;
                    };
                    if !sim.in_world(t) {
                        continue;
                    }
                    match at(t) {
                        Some(b) => {
                            if t != src && reached.insert(t.to_bits().get()) {
                                out.push(WireLine {
                                    from: src,
                                    to: t,
                                    a,
                                    b,
                                });
                            }
                        }
                        None => {
                            if seen.insert(t.to_bits().get()) {
                                next.push(t);
                            }
                        }
                    }
                }
            }
            // Depth-first in authored order.
            stack.extend(next.into_iter().rev());
        }
    }
    out
}

/// A label to place: its lines, the rectangle it would take (x, y, w, h pixels) and how far
/// its entity is.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelBox {
    /// The lines it prints.
    pub lines: Vec<String>,
    /// Top-left corner and size, pixels (backdrop included).
    pub rect: [f32; 4],
    /// Meters from the eye.
    pub distance: f32,
    /// How much of it shows (its fade).
    pub alpha: f32,
}

fn overlaps(a: &[f32; 4], b: &[f32; 4]) -> bool {
    a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
}

/// The labels that show: nearest first (ties in the order given), each kept unless it
/// would overlap one already kept — a label gives way to a nearer one it would overlap
/// (000:1657). Returns the kept labels' indices into `labels`, nearest first.
pub fn place_labels(labels: &[LabelBox]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&i, &j| labels[i].distance.total_cmp(&labels[j].distance));
    let mut kept: Vec<usize> = Vec::new();
    for i in order {
        if kept
            .iter()
            .all(|&k| !overlaps(&labels[i].rect, &labels[k].rect))
        {
            kept.push(i);
        }
    }
    kept
}

/// The label of a gizmo whose dot is at pixel `dot`: centered above the dot.
fn label_box(
    atlas: &GlyphAtlas,
    g: &EntityGizmo,
    dot: Vec2,
    distance: f32,
    alpha: f32,
) -> LabelBox {
    let lines = g.label_lines();
    let w = lines
        .iter()
        .map(|l| atlas.text_size(l)[0])
        .fold(0.0, f32::max)
        + 2.0 * LABEL_PAD;
    let h = lines.len() as f32 * atlas.line_height + 2.0 * LABEL_PAD;
    let x = (dot.x - w * 0.5).round();
    let y = (dot.y - DOT_RADIUS - LABEL_GAP - h).round();
    LabelBox {
        lines,
        rect: [x, y, w, h],
        distance,
        alpha,
    }
}

/// Adds the entity gizmos seen through `screen`: the wiring lines first (beneath), then the
/// dots, then the labels that reach and do not give way. Dots reach `2 × label_distance`
/// meters, labels `label_distance`; both fade out over the last [`FADE_SHARE`] of their
/// reach, and a wiring line fades along its length.
pub fn entity_items(
    o: &mut Overlay,
    atlas: &GlyphAtlas,
    screen: &Screen,
    gizmos: &[EntityGizmo],
    wires: &[WireLine],
    label_distance: f32,
) {
    let dot_reach = 2.0 * label_distance;
    for w in wires {
        for k in 0..WIRE_PIECES {
            let t0 = k as f32 / WIRE_PIECES as f32;
            let t1 = (k + 1) as f32 / WIRE_PIECES as f32;
            let (p0, p1) = (w.a.lerp(w.b, t0), w.a.lerp(w.b, t1));
            let f = fade(screen.distance((p0 + p1) * 0.5), dot_reach);
            if f <= 0.0 {
                continue;
            }
            if let Some((a, b)) = screen.segment(p0, p1) {
                o.screen.push(ScreenItem::Segment {
                    a: a.to_array(),
                    b: b.to_array(),
                    width: WIRE_WIDTH,
                    color: faded(WIRE_COLOR, f),
                });
            }
        }
    }
    let mut labels = Vec::new();
    for g in gizmos {
        let Some(px) = screen.project(g.pivot) else {
            continue;
        };
        if !screen.on_screen(px) {
            continue;
        }
        let d = screen.distance(g.pivot);
        let f = fade(d, dot_reach);
        if f <= 0.0 {
            continue;
        }
        o.screen.push(ScreenItem::Dot {
            center: px.to_array(),
            radius: DOT_RADIUS + 1.5,
            color: faded([0, 0, 0, 200], f),
        });
        o.screen.push(ScreenItem::Dot {
            center: px.to_array(),
            radius: DOT_RADIUS,
            color: faded(g.color, f),
        });
        let lf = fade(d, label_distance);
        if lf > 0.0 {
            labels.push(label_box(atlas, g, px, d, lf));
        }
    }
    for i in place_labels(&labels) {
        let l = &labels[i];
        let [x, y, w, h] = l.rect;
        o.screen.push(ScreenItem::Rect {
            at: [x, y],
            size: [w, h],
            color: faded(LABEL_BACKDROP, l.alpha),
        });
        for (n, line) in l.lines.iter().enumerate() {
            let tw = atlas.text_size(line)[0];
            o.screen.push(ScreenItem::Text {
                at: [
                    (x + (w - tw) * 0.5).round(),
                    y + LABEL_PAD + n as f32 * atlas.line_height,
                ],
                text: line.clone(),
                color: faded(LABEL_COLOR, l.alpha),
                backdrop: None,
            });
        }
    }
}

// ---- The HUD: the position readout and the axis gizmo (000:517, 000:1663) --------------------

/// The readout's two lines for a viewer at `position` turned by `rotation`: `pos x y z`
/// (meters) and `ang p y r` (degrees), each to two decimals, in exactly the form a spawn's
/// `position` and `rotation` arrays take (000:517): the euler angles the engine composes a
/// rotation from (roll about Z, then pitch about X, then yaw about Y), yaw about +Y with 0
/// facing -Z, normalized to (-180, 180]. Pasting the numbers back gives the same pose.
///
/// In a capture the viewer is the camera the shot is taken from (there is no player).
pub fn readout(position: Vec3, rotation: Quat) -> [String; 2] {
    let num = |v: f32| {
        let r = (f64::from(v) * 100.0).round() / 100.0;
        // No "-0.00".
        let r = if r == 0.0 { 0.0 } else { r };
        format!("{r:.2}")
    };
    let (yaw, pitch, roll) = rotation.normalize().to_euler(glam::EulerRot::YXZ);
    let deg = |a: f32| {
        let mut d = (f64::from(a.to_degrees()) * 100.0).round() / 100.0;
        while d <= -180.0 {
            d += 360.0;
        }
        while d > 180.0 {
            d -= 360.0;
        }
        d as f32
    };
    [
        format!(
            "pos {} {} {}",
            num(position.x),
            num(position.y),
            num(position.z)
        ),
        format!(
            "ang {} {} {}",
            num(deg(pitch)),
            num(deg(yaw)),
            num(deg(roll))
        ),
    ]
}

/// The axis gizmo's colours: X red, Y green, Z blue (ours, the usual).
pub const AXIS_COLORS: [[u8; 4]; 3] = [[240, 60, 60, 255], [80, 220, 80, 255], [80, 130, 255, 255]];
/// The axis gizmo's arm length, pixels.
pub const AXIS_LENGTH: f32 = 28.0;
/// Pixels from the picture's bottom-left corner to the axis gizmo's centre.
pub const AXIS_INSET: f32 = 44.0;
/// Pixels from the picture's top-left corner to the readout.
const READOUT_INSET: f32 = 8.0;

/// The world axes as the view turned by `rotation` sees them: for X, Y and Z (in that
/// order) the on-screen direction of the axis, pixels per pixel of arm (y down; shorter
/// than 1 as the axis turns toward or away from the eye), and how far it points away from
/// the eye (view-space depth, for drawing the far ones first).
pub fn axis_directions(rotation: Quat) -> [(Vec2, f32); 3] {
    let inv = rotation.normalize().inverse();
    [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| {
        let v = inv * axis;
        (Vec2::new(v.x, -v.y), -v.z)
    })
}

/// Adds the HUD seen through a view turned by `rotation` from `position` onto a
/// `screen_size` picture: the position readout at the top left, the axis gizmo at the
/// bottom left (over a dark square, an arm per world axis, the far ones drawn first, each
/// lettered at its tip).
pub fn hud_items(
    o: &mut Overlay,
    atlas: &GlyphAtlas,
    position: Vec3,
    rotation: Quat,
    screen_size: Vec2,
) {
    let lines = readout(position, rotation);
    for (n, line) in lines.iter().enumerate() {
        o.screen.push(ScreenItem::Text {
            at: [
                READOUT_INSET,
                READOUT_INSET + n as f32 * (atlas.line_height + 2.0 * LABEL_PAD),
            ],
            text: line.clone(),
            color: LABEL_COLOR,
            backdrop: Some(LABEL_BACKDROP),
        });
    }
    let center = Vec2::new(AXIS_INSET, screen_size.y - AXIS_INSET);
    // A dark square behind the arms, so they read over any picture.
    let half = AXIS_LENGTH + 12.0;
    o.screen.push(ScreenItem::Rect {
        at: (center - Vec2::splat(half)).to_array(),
        size: [2.0 * half, 2.0 * half],
        color: [0, 0, 0, 120],
    });
    let dirs = axis_directions(rotation);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| dirs[b].1.total_cmp(&dirs[a].1));
    for i in order {
        let (d, _) = dirs[i];
        let tip = center + d * AXIS_LENGTH;
        if d.length() > 1e-3 {
            o.screen.push(ScreenItem::Segment {
                a: center.to_array(),
                b: tip.to_array(),
                width: 2.0,
                color: AXIS_COLORS[i],
            });
        }
        let letter = ["X", "Y", "Z"][i];
        let [w, h] = atlas.text_size(letter);
        // The letter just past the tip, centred on the arm's line.
        let at = center + d * (AXIS_LENGTH + 0.5 * w.max(h) + 1.0) - Vec2::new(w, h) * 0.5;
        o.screen.push(ScreenItem::Text {
            at: at.to_array(),
            text: letter.to_string(),
            color: AXIS_COLORS[i],
            backdrop: None,
        });
    }
}

/// The overlay the prefs ask for from `host`'s world, seen from `view` at `size` pixels
/// (empty when none is on).
pub fn overlay(host: &Host, prefs: &Prefs, view: &View, size: [u32; 2]) -> Overlay {
    overlay_with_notes(host, prefs, view, size).0
}

/// What the overlay's notes say when the collider gizmo is on over a map with voxel volumes
/// but no chunk body is alive to draw (spec 004: chunks are solid only around players).
pub const NO_CHUNK_BODIES: &str = "client.debug.colliderGizmo: no voxel chunk body is alive to draw (chunks are solid only around pawns, and no pawn is near a volume)";

/// [`overlay`], and its log lines: the collider gizmo's budget when it was hit, and
/// [`NO_CHUNK_BODIES`].
pub fn overlay_with_notes(
    host: &Host,
    prefs: &Prefs,
    view: &View,
    size: [u32; 2],
) -> (Overlay, Vec<String>) {
    let mut notes = Vec::new();
    let mut o = Overlay::default();
    if prefs.bool("client.debug.lights").unwrap_or(false) {
        light_lines(&mut o, &light_volumes(host));
    }
    if prefs.bool("client.debug.entityGizmos").unwrap_or(false) {
        // The atlas is baked from the bundled font; it cannot fail short of a broken build,
        // and then the renderer has already refused to start.
        if let Ok(atlas) = GlyphAtlas::shared() {
            let screen = Screen::new(view, size[0], size[1]);
            let reach = prefs
                .float("client.editor.gizmoLabelDistance")
                .unwrap_or(30.0) as f32;
            let gizmos = entity_gizmos(host);
            let wires = wiring(host, &gizmos);
            entity_items(&mut o, atlas, &screen, &gizmos, &wires, reach);
        }
    }
    if prefs.bool("client.debug.colliderGizmo").unwrap_or(false) {
        let counts = collider_lines_within(&mut o, host, view.position, COLLIDER_LINE_BUDGET);
        notes.extend(counts.budget_note(COLLIDER_LINE_BUDGET));
        if counts.chunk_bodies == 0 && !host.voxel_volumes().is_empty() {
            notes.push(NO_CHUNK_BODIES.to_string());
        }
        if let Ok(atlas) = GlyphAtlas::shared() {
            let screen = Screen::new(view, size[0], size[1]);
            voxel_label_items(&mut o, atlas, &screen, &voxel_labels(host));
        }
    }
    if prefs.bool("client.debug.hud").unwrap_or(false) {
        if let Ok(atlas) = GlyphAtlas::shared() {
            let screen_size = Vec2::new(size[0].max(1) as f32, size[1].max(1) as f32);
            hud_items(&mut o, atlas, view.position, view.rotation, screen_size);
        }
    }
    (o, notes)
}

/// What each overlay pref still leaves undrawn, as `(pref, what)`: nothing now (every
/// collider, the voxel chunk bodies and the contacts are drawn or logged); a pref that
/// gains an undrawn part names it here.
const NOT_DRAWN: &[(&str, &str)] = &[];

/// One line per overlay pref that is on but not wholly drawn yet, naming what is not
/// (none now: see [`NOT_DRAWN`]).
pub fn not_drawn(prefs: &Prefs) -> Vec<String> {
    NOT_DRAWN
        .iter()
        .filter(|(p, _)| prefs.bool(p).unwrap_or(false))
        .map(|(p, what)| format!("{p} is on: {what}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(on: bool) -> LightVolume {
        LightVolume {
            spot: false,
            position: Vec3::new(1.0, 2.0, 3.0),
            direction: Vec3::NEG_Y,
            range: 4.0,
            outer_cone: 0.0,
            color: Vec3::new(1.0, 0.5, 0.0),
            on,
        }
    }

    #[test]
    fn an_off_light_draws_no_sphere_and_a_lit_one_three_circles_at_its_range() {
        let mut o = Overlay::default();
        light_lines(&mut o, &[point(false)]);
        assert!(o.is_empty(), "a switched-off light is not drawn");
        light_lines(&mut o, &[point(true)]);
        assert_eq!(o.lines.len(), 3 * CIRCLE_SEGMENTS * 2);
        for v in &o.lines {
            let r = (Vec3::from(v.position) - Vec3::new(1.0, 2.0, 3.0)).length();
            assert!((r - 4.0).abs() < 1e-4, "on the range sphere: {r}");
            // Orange at full brightness: sRGB (255, 188, 0).
            assert_eq!(v.color, [255, 188, 0, 255]);
        }
    }

    #[test]
    fn a_spot_draws_its_outer_cone_rim_at_the_range() {
        let mut o = Overlay::default();
        let spot = LightVolume {
            spot: true,
            outer_cone: 90.0,
            ..point(true)
        };
        light_lines(&mut o, &[spot]);
        assert_eq!(o.lines.len(), (CIRCLE_SEGMENTS + 4) * 2);
        // The rim lies at 45° from the axis, 4 m from the apex.
        let apex = Vec3::new(1.0, 2.0, 3.0);
        for v in &o.lines[..CIRCLE_SEGMENTS * 2] {
            let p = Vec3::from(v.position) - apex;
            assert!((p.length() - 4.0).abs() < 1e-4);
            assert!((p.normalize().dot(Vec3::NEG_Y) - 45f32.to_radians().cos()).abs() < 1e-4);
        }
    }
}
