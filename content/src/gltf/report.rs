//! What `dh build` says about a map's geometry (spec: dh.map, "What the build says about
//! the geometry"): the lines the engine's map importer would report at load, with the same
//! severities — only what the importer refuses is an error, everything it survives is a
//! warning. Each line names one concern; the nodes or slots are listed inside it, up to
//! [`REPORT_NAMES`], the rest counted.

use std::collections::BTreeSet;

use super::error::{GlbError, ImportWarning};
use super::Model;
use crate::diag::Severity;

/// The most names one line lists; the rest are counted.
pub const REPORT_NAMES: usize = 12;
/// A mesh is named for degenerate triangles only with at least this many…
pub const DEGENERATE_MIN_TRIANGLES: usize = 128;
/// …that are also at least this share of its triangles.
pub const DEGENERATE_MIN_SHARE: f64 = 0.02;

fn names(list: &[String]) -> String {
    let shown: Vec<String> = list
        .iter()
        .take(REPORT_NAMES)
        .map(|n| format!("'{n}'"))
        .collect();
    let mut out = shown.join(", ");
    if list.len() > REPORT_NAMES {
        out.push_str(&format!(" and {} more", list.len() - REPORT_NAMES));
    }
    out
}

/// Whether a triangle has (numerically) zero area: a repeated corner, or a cross product
/// of its edges under 1e-12 (squared length, m⁴).
pub fn is_degenerate(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> bool {
    let a = a.map(f64::from);
    let e1 = [0, 1, 2].map(|k| f64::from(b[k]) - a[k]);
    let e2 = [0, 1, 2].map(|k| f64::from(c[k]) - a[k]);
    let x = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let l2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    l2.is_nan() || l2 <= 1e-24
}

/// The `geometry:` lines for a map whose world imported as `import`. `bound_slots` is the
/// set of slots the map's `materials` table binds; the unbound-slot line is reported only
/// once it binds something. A container or JSON chunk that does not parse gives no line
/// (the autoCollision baker reports it).
pub fn geometry_report(
    import: Result<&Model, &GlbError>,
    bound_slots: &BTreeSet<String>,
) -> Vec<(Severity, String)> {
    let model = match import {
        Err(e) => {
            if e.would_fail_load() {
                return vec![(
                    Severity::Error,
                    format!("geometry: this map would fail to load: {e}"),
                )];
            }
            return Vec::new();
        }
        Ok(m) => m,
    };
    let mut out = Vec::new();
    if !bound_slots.is_empty() {
        let unbound: Vec<String> = model
            .material_slots()
            .into_iter()
            .filter(|s| !bound_slots.contains(s))
            .collect();
        if !unbound.is_empty() {
            out.push((
                Severity::Warning,
                format!(
                    "geometry: material slots with no 'materials' entry ({}): {}; each draws the missingMaterial checkerboard and the rest of the map loads",
                    unbound.len(),
                    names(&unbound)
                ),
            ));
        }
    }
    for w in &model.warnings {
        let line = match w {
            ImportWarning::SkinnedLeftOut(n) => format!(
                "geometry: skinned nodes ({}): {}; dropped from the build entirely, so their geometry will be missing",
                n.len(),
                names(n)
            ),
            ImportWarning::MorphTargetsIgnored(n) => format!(
                "geometry: morph targets ({} nodes): {}; loaded at their base shape, the shape keys are not driven",
                n.len(),
                names(n)
            ),
            ImportWarning::AnimationsReadPast(n) => format!(
                "geometry: animation tracks ({}): {}; a static map has nothing to play them with",
                n.len(),
                names(n)
            ),
            ImportWarning::ExtensionsIgnored(n) => format!(
                "geometry: extensions the importer does not read ({}): {}",
                n.len(),
                names(n)
            ),
        };
        out.push((Severity::Warning, line));
    }
    let mut degenerate = Vec::new();
    let mut seen = BTreeSet::new();
    for n in model.traversal() {
        let Some(mi) = model.nodes[n].mesh else {
            continue;
        };
        if !seen.insert(mi) {
            continue;
        }
        let Some(mesh) = model.meshes.get(mi) else {
            continue;
        };
        let (mut bad, mut total) = (0usize, 0usize);
        for p in &mesh.primitives {
            for t in p.indices.chunks_exact(3) {
                total += 1;
                let v = |i: u32| {
                    p.vertices
                        .get(i as usize)
                        .map(|v| v.position)
                        .unwrap_or_default()
                };
                if t[0] == t[1]
                    || t[1] == t[2]
                    || t[0] == t[2]
                    || is_degenerate(v(t[0]), v(t[1]), v(t[2]))
                {
                    bad += 1;
                }
            }
        }
        if bad >= DEGENERATE_MIN_TRIANGLES && (bad as f64) >= DEGENERATE_MIN_SHARE * total as f64 {
            let name = if mesh.name.is_empty() {
                format!("meshes[{mi}]")
            } else {
                mesh.name.clone()
            };
            degenerate.push(format!("{name} ({bad} of {total})"));
        }
    }
    if !degenerate.is_empty() {
        out.push((
            Severity::Warning,
            format!(
                "geometry: degenerate triangles in {} mesh(es): {}; zero-area triangles draw nothing, light nothing and are culled by the collision cook",
                degenerate.len(),
                names(&degenerate)
            ),
        ));
    }
    out
}
