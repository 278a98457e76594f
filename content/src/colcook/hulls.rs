//! `autoCollision: "hulls"`: a node's welded triangles convex-decomposed (V-HACD, parry's
//! implementation, always flood-filled) under the map's `hullOptions`.
//!
//! How each option lands on the decomposition:
//!
//! * `maxConvexHulls` caps the pieces: V-HACD's split depth follows it (`max_convex_hulls`),
//!   and the pieces it leaves are then merged, cheapest first (the pair whose joint hull
//!   adds the least volume), until there are at most that many.
//! * `resolution` is a budget of voxels in all: the voxel edge is chosen so that the
//!   node's bounds hold about that many, and the longest side's count of them is parry's
//!   per-axis `resolution` (a flat node's thin side counts as at least 1/64 of its longest,
//!   so a plane does not take the whole budget along one axis).
//! * `minVolumePercentError` is the concavity a piece may keep, as a fraction of its
//!   volume (`concavity = percent / 100`; the default 1 % is parry's own 0.01); the merge
//!   also joins any two pieces whose joint hull adds no more than that share of its volume,
//!   so a convex node split by the voxel noise comes back as one hull.
//! * `maxVerticesPerHull` bounds each hull's points: a hull with more keeps the points a
//!   farthest-point sweep picks (starting from its extremes), and is rebuilt as their hull.

use parry3d::math::Vector;
use parry3d::transformation::vhacd::{VHACDParameters, VHACD};
use parry3d::transformation::voxelization::FillMode;

use crate::schema::map::HullOptions;

/// The longest per-axis voxel count a decomposition may ask for.
pub const MAX_AXIS_RESOLUTION: u32 = 1024;

/// The per-axis resolution (voxels along the longest side) that spends about `budget`
/// voxels on bounds of `extent`.
pub fn axis_resolution(extent: [f64; 3], budget: i64) -> u32 {
    let longest = extent.iter().copied().fold(0.0f64, f64::max);
    if !(longest.is_finite() && longest > 0.0) || budget <= 0 {
        return 1;
    }
    let e = extent.map(|x| x.max(longest / 64.0));
    let volume = e[0] * e[1] * e[2];
    let edge = (volume / budget as f64).cbrt();
    let n = (longest / edge).round();
    if n.is_finite() {
        (n as u32).clamp(1, MAX_AXIS_RESOLUTION)
    } else {
        1
    }
}

/// The V-HACD parameters `options` stand for, for a node whose bounds measure `extent`.
pub fn parameters(options: &HullOptions, extent: [f64; 3]) -> VHACDParameters {
    VHACDParameters {
        resolution: axis_resolution(extent, options.resolution()),
        concavity: (options.min_volume_percent_error() / 100.0) as f32,
        max_convex_hulls: u32::try_from(options.max_convex_hulls().max(1)).unwrap_or(u32::MAX),
        fill_mode: FillMode::FloodFill {
            detect_cavities: false,
        },
        ..VHACDParameters::default()
    }
}

/// The convex pieces of a welded triangle set: each hull's points (at least four, at most
/// `maxVerticesPerHull`). A piece whose hull is flat or fails is left out.
pub fn decompose(
    vertices: &[[f32; 3]],
    triangles: &[[u32; 3]],
    options: &HullOptions,
) -> Vec<Vec<[f32; 3]>> {
    if triangles.is_empty() || vertices.len() < 4 {
        return Vec::new();
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in vertices {
        for a in 0..3 {
            lo[a] = lo[a].min(f64::from(v[a]));
            hi[a] = hi[a].max(f64::from(v[a]));
        }
    }
    let extent = [0, 1, 2].map(|a| hi[a] - lo[a]);
    let params = parameters(options, extent);
    let points: Vec<Vector> = vertices
        .iter()
        .map(|v| Vector::new(v[0], v[1], v[2]))
        .collect();
    let vhacd = VHACD::decompose(&params, &points, triangles, true);
    let max_points = usize::try_from(options.max_vertices_per_hull())
        .unwrap_or(HullOptions::DEFAULT_MAX_VERTICES_PER_HULL as usize)
        .clamp(
            HullOptions::MIN_VERTICES_PER_HULL as usize,
            HullOptions::MAX_VERTICES_PER_HULL as usize,
        );
    let pieces: Vec<Piece> = vhacd
        .compute_exact_convex_hulls(&points, triangles)
        .into_iter()
        .filter_map(|(pts, _)| Piece::of(&pts))
        .collect();
    let max_hulls = usize::try_from(options.max_convex_hulls().max(1)).unwrap_or(usize::MAX);
    merge_pieces(
        pieces,
        max_hulls,
        options.min_volume_percent_error() / 100.0,
    )
    .into_iter()
    .filter_map(|p| limit_points(&p.points, max_points))
    .collect()
}

/// One convex piece: its hull's vertices, volume and bounds.
#[derive(Debug, Clone)]
pub struct Piece {
    /// The hull's vertices.
    pub points: Vec<Vector>,
    /// The hull's volume.
    pub volume: f64,
    min: [f32; 3],
    max: [f32; 3],
}

impl Piece {
    /// The convex hull of `points` as a piece; `None` when it is flat or fails.
    pub fn of(points: &[Vector]) -> Option<Piece> {
        let (pts, tris) = parry3d::transformation::try_convex_hull(points).ok()?;
        if pts.len() < 4 {
            return None;
        }
        let mut six_v = 0.0f64;
        for t in &tris {
            let p = |i: u32| pts.get(i as usize).copied().unwrap_or(Vector::ZERO);
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            let cr = b.cross(c);
            six_v += f64::from(a.x) * f64::from(cr.x)
                + f64::from(a.y) * f64::from(cr.y)
                + f64::from(a.z) * f64::from(cr.z);
        }
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in &pts {
            for (a, c) in [p.x, p.y, p.z].into_iter().enumerate() {
                min[a] = min[a].min(c);
                max[a] = max[a].max(c);
            }
        }
        Some(Piece {
            points: pts,
            volume: (six_v / 6.0).abs(),
            min,
            max,
        })
    }

    fn touches(&self, o: &Piece, slack: f32) -> bool {
        (0..3).all(|a| self.min[a] <= o.max[a] + slack && o.min[a] <= self.max[a] + slack)
    }
}

/// What joining two pieces costs: their joint hull, and the volume it adds to theirs.
fn join(a: &Piece, b: &Piece) -> Option<(Piece, f64)> {
    let mut pts = a.points.clone();
    pts.extend_from_slice(&b.points);
    let j = Piece::of(&pts)?;
    let added = j.volume - a.volume - b.volume;
    Some((j, added))
}

/// Merges `pieces`, cheapest pair first, while there are more than `max` or the cheapest
/// joint hull adds at most `error` of its own volume. Only pieces whose bounds touch are
/// paired while that suffices to get under `max`; each pair's cost is worked out once.
pub fn merge_pieces(pieces: Vec<Piece>, max: usize, error: f64) -> Vec<Piece> {
    use std::collections::BTreeMap;
    let max = max.max(1);
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &pieces {
        for a in 0..3 {
            lo[a] = lo[a].min(p.min[a]);
            hi[a] = hi[a].max(p.max[a]);
        }
    }
    let slack = (0..3).map(|a| hi[a] - lo[a]).fold(0.0f32, f32::max) * 0.01;
    let mut slots: Vec<Option<Piece>> = pieces.into_iter().map(Some).collect();
    let mut alive = slots.len();
    // (i, j) with i < j → the volume their joint hull adds; None when it cannot be built.
    let mut costs: BTreeMap<(usize, usize), Option<f64>> = BTreeMap::new();
    let mut all_pairs = false;
    let fill = |slots: &[Option<Piece>],
                costs: &mut BTreeMap<(usize, usize), Option<f64>>,
                all_pairs: bool,
                only: Option<usize>| {
        for i in 0..slots.len() {
            for j in i + 1..slots.len() {
                if only.is_some_and(|o| o != i && o != j) || costs.contains_key(&(i, j)) {
                    continue;
                }
                let (Some(a), Some(b)) = (&slots[i], &slots[j]) else {
                    continue;
                };
                if all_pairs || a.touches(b, slack) {
                    costs.insert((i, j), join(a, b).map(|(_, added)| added));
                }
            }
        }
    };
    fill(&slots, &mut costs, all_pairs, None);
    while alive > 1 {
        let best = costs
            .iter()
            .filter_map(|(k, c)| c.map(|c| (*k, c)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some(((i, j), added)) = best else {
            if alive > max && !all_pairs {
                all_pairs = true;
                fill(&slots, &mut costs, all_pairs, None);
                continue;
            }
            break;
        };
        let joined = match (&slots[i], &slots[j]) {
            (Some(a), Some(b)) => join(a, b).map(|(p, _)| p),
            _ => None,
        };
        let Some(joined) = joined else {
            costs.insert((i, j), None);
            continue;
        };
        if alive <= max && added > error * joined.volume {
            break;
        }
        slots[i] = Some(joined);
        slots[j] = None;
        alive -= 1;
        costs.retain(|(a, b), _| *a != i && *b != i && *a != j && *b != j);
        fill(&slots, &mut costs, all_pairs, Some(i));
    }
    slots.into_iter().flatten().collect()
}

/// The hull of `points` with at most `max` vertices: the hull's own vertices when they are
/// few enough, else the hull of the ones a farthest-point sweep keeps. `None` for a flat
/// or failed hull (fewer than four vertices).
pub fn limit_points(points: &[Vector], max: usize) -> Option<Vec<[f32; 3]>> {
    let (hull, _) = parry3d::transformation::try_convex_hull(points).ok()?;
    let hull = if hull.len() > max {
        let picked = farthest_points(&hull, max);
        parry3d::transformation::try_convex_hull(&picked).ok()?.0
    } else {
        hull
    };
    (hull.len() >= 4 && hull.len() <= max).then(|| hull.iter().map(|p| [p.x, p.y, p.z]).collect())
}

/// `max` of `points`: the one farthest along +X first, then each time the point farthest
/// from every one kept so far.
fn farthest_points(points: &[Vector], max: usize) -> Vec<Vector> {
    let Some(start) = points
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.x.total_cmp(&b.1.x))
        .map(|(i, _)| i)
    else {
        return Vec::new();
    };
    let mut kept = vec![points[start]];
    let mut dist: Vec<f32> = points
        .iter()
        .map(|p| (*p - points[start]).length_squared())
        .collect();
    while kept.len() < max {
        let Some((i, d)) = dist
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, d)| (i, *d))
        else {
            break;
        };
        if d <= 0.0 {
            break;
        }
        kept.push(points[i]);
        for (k, p) in points.iter().enumerate() {
            dist[k] = dist[k].min((*p - points[i]).length_squared());
        }
    }
    kept
}
