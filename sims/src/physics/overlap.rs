//! The broad phase of the plate and trigger overlap queries: every pawn's measured capsule
//! bounded by an axis-aligned box, and those boxes binned on a grid once a tick, so a
//! sensor's query runs the exact capsule-against-box test only on the pawns near it.
//!
//! The answers are exactly [`PhysicsWorld::pawns_overlapping_box`]'s: a pawn is left out
//! only when its bounds miss the box's bounds by more than a margin (a centimeter plus 1e-3 of
//! the box's largest coordinate), far beyond the exact test's rounding, and every pawn that is not left out goes through the same exact test, in
//! id order.

use rapier3d::math::{Pose as RPose, Vector};
use rapier3d::parry::query::intersection_test;
use rapier3d::parry::shape::{Capsule, Cuboid};

use super::pawn;
use super::types::{PawnId, PhysicsError, Pose};
use super::world::{to_rapier, PhysicsWorld};

/// The grid's cell edge, meters (on X and Z; Y is not binned). Several pawn widths, so a
/// pawn lands in one to four cells and a plate's query visits a handful.
pub const OVERLAP_CELL: f32 = 4.0;

/// An axis-aligned box: its least and greatest corners.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bounds {
    min: Vector,
    max: Vector,
}

impl Bounds {
    fn finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// Whether the two boxes share a point (touching counts).
    fn meets(&self, other: &Bounds) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }
}

/// How far a pawn's bounds must stay from a box's before the pair is left out without the
/// exact test: a centimeter plus 1e-3 of the box's largest coordinate. The exact test (GJK)
/// calls a pair touching only within its rounding, about 1e-7 of the coordinates involved;
/// a pawn whose coordinates are far larger than the box's is as far from it.
fn margin(b: &Bounds) -> f32 {
    let big = b.min.abs().max_element().max(b.max.abs().max_element());
    1.0e-2 + 1.0e-3 * big
}

/// A box query's pose and shape, checked, and its world bounds grown by [`margin`]: a pawn
/// whose bounds miss these cannot touch the box.
struct BoxQuery {
    pose: RPose,
    cuboid: Cuboid,
    reach: Bounds,
}

impl BoxQuery {
    fn new(pose: Pose, half_extents: Vector) -> Result<BoxQuery, PhysicsError> {
        let box_pose = to_rapier(&pose, "an overlap box's pose")?;
        if !(half_extents.is_finite() && half_extents.cmpge(Vector::ZERO).all()) {
            return Err(PhysicsError::InvalidShape {
                shape: "box",
                reason: format!(
                    "needs half extents of at least zero, got [{}, {}, {}]",
                    half_extents[0], half_extents[1], half_extents[2]
                ),
            });
        }
        let h = half_extents;
        let r = box_pose.rotation;
        // The rotated box's reach along each world axis.
        let reach =
            (r * Vector::X).abs() * h.x + (r * Vector::Y).abs() * h.y + (r * Vector::Z).abs() * h.z;
        let c = box_pose.translation;
        let bounds = Bounds {
            min: c - reach,
            max: c + reach,
        };
        let m = Vector::splat(margin(&bounds));
        Ok(BoxQuery {
            pose: box_pose,
            cuboid: Cuboid::new(h),
            reach: Bounds {
                min: bounds.min - m,
                max: bounds.max + m,
            },
        })
    }
}

/// The pawns' measured capsules at one moment, in id order.
struct Capsules {
    capsule: Capsule,
    ids: Vec<PawnId>,
    centers: Vec<RPose>,
    bounds: Vec<Bounds>,
}

impl Capsules {
    fn of(world: &PhysicsWorld) -> Capsules {
        let params = &world.params;
        let capsule = pawn::measured_capsule(params);
        let radius = capsule.radius;
        let reach = Vector::new(radius, capsule.half_height().abs() + radius, radius);
        let mut out = Capsules {
            capsule,
            ids: Vec::with_capacity(world.pawns.len()),
            centers: Vec::with_capacity(world.pawns.len()),
            bounds: Vec::with_capacity(world.pawns.len()),
        };
        for (&id, p) in &world.pawns {
            let center = pawn::capsule_pose(params, p.feet);
            let c = center.translation;
            out.ids.push(id);
            out.centers.push(center);
            out.bounds.push(Bounds {
                min: c - reach,
                max: c + reach,
            });
        }
        out
    }

    /// The broad test then the exact one for pawn `i`.
    fn hit(&self, i: usize, q: &BoxQuery) -> bool {
        let b = &self.bounds[i];
        if b.finite() && !b.meets(&q.reach) {
            return false;
        }
        intersection_test(&self.centers[i], &self.capsule, &q.pose, &q.cuboid)
            .is_ok_and(|r| r.intersecting)
    }
}

/// Every pawn whose measured capsule overlaps the box, in id order, testing each pawn (the
/// bounds first, then the exact test): [`PhysicsWorld::pawns_overlapping_box`].
pub(crate) fn overlapping_box(
    world: &PhysicsWorld,
    pose: Pose,
    half_extents: Vector,
) -> Result<Vec<PawnId>, PhysicsError> {
    let q = BoxQuery::new(pose, half_extents)?;
    let pawns = Capsules::of(world);
    Ok((0..pawns.ids.len())
        .filter(|&i| pawns.hit(i, &q))
        .map(|i| pawns.ids[i])
        .collect())
}

/// A grid cell's key: its X and Z cell numbers, each moved by 2^31 so the keys sort as
/// (x, z) do, and one column's cells are one run of keys.
fn cell_key(x: i32, z: i32) -> u64 {
    (u64::from((x as u32) ^ 0x8000_0000) << 32) | u64::from((z as u32) ^ 0x8000_0000)
}

/// A coordinate's cell number (saturating far away, which keeps the order).
fn cell_of(v: f32) -> i32 {
    (v / OVERLAP_CELL).floor() as i32
}

/// The pawns of a [`PhysicsWorld`] at one moment, binned for box queries: what plates and
/// triggers measure against in one tick ([`PhysicsWorld::pawn_overlaps`]).
///
/// Built once after the pawns have moved (a copy: the world may change afterwards without
/// changing its answers), then queried from any number of threads: each
/// [`PawnOverlaps::pawns_overlapping_box`] gives exactly what the world's own
/// [`PhysicsWorld::pawns_overlapping_box`] gave when it was built.
pub struct PawnOverlaps {
    pawns: Capsules,
    /// (cell key, pawn index) for every cell a pawn's bounds touch, sorted.
    cells: Vec<(u64, u32)>,
    /// Pawns whose bounds are not finite: tested by every query.
    loose: Vec<u32>,
}

impl std::fmt::Debug for PawnOverlaps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PawnOverlaps")
            .field("pawns", &self.pawns.ids.len())
            .field("cells", &self.cells.len())
            .field("loose", &self.loose.len())
            .finish()
    }
}

impl PawnOverlaps {
    pub(crate) fn of(world: &PhysicsWorld) -> PawnOverlaps {
        let pawns = Capsules::of(world);
        let mut cells = Vec::with_capacity(pawns.ids.len() * 2);
        let mut loose = Vec::new();
        for (i, b) in pawns.bounds.iter().enumerate() {
            let i = i as u32;
            let (x0, x1, z0, z1) = (
                cell_of(b.min.x),
                cell_of(b.max.x),
                cell_of(b.min.z),
                cell_of(b.max.z),
            );
            let span = (i64::from(x1) - i64::from(x0) + 1) * (i64::from(z1) - i64::from(z0) + 1);
            if !b.finite() || span > 64 {
                loose.push(i);
                continue;
            }
            for x in x0..=x1 {
                for z in z0..=z1 {
                    cells.push((cell_key(x, z), i));
                }
            }
        }
        cells.sort_unstable();
        PawnOverlaps {
            pawns,
            cells,
            loose,
        }
    }

    /// How many pawns it holds.
    pub fn len(&self) -> usize {
        self.pawns.ids.len()
    }

    /// Whether it holds no pawns.
    pub fn is_empty(&self) -> bool {
        self.pawns.ids.is_empty()
    }

    /// The pawns whose capsule overlapped the box when this was built, in id order:
    /// exactly [`PhysicsWorld::pawns_overlapping_box`]'s answer and errors then.
    pub fn pawns_overlapping_box(
        &self,
        pose: Pose,
        half_extents: Vector,
    ) -> Result<Vec<PawnId>, PhysicsError> {
        let q = BoxQuery::new(pose, half_extents)?;
        let n = self.pawns.ids.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        // The cells of the query's grown bounds: a pawn's bounds that meet those share a
        // point with them, and so a cell (the cell numbers keep the order of coordinates).
        let (x0, x1, z0, z1) = (
            cell_of(q.reach.min.x),
            cell_of(q.reach.max.x),
            cell_of(q.reach.min.z),
            cell_of(q.reach.max.z),
        );
        let columns = i64::from(x1) - i64::from(x0) + 1;
        let rows = i64::from(z1) - i64::from(z0) + 1;
        let mut candidates: Vec<u32> = if columns.saturating_mul(rows) > 4 * n as i64 + 16 {
            // A box wider than the pawns are many: every pawn.
            (0..n as u32).collect()
        } else {
            let mut c = self.loose.clone();
            for x in x0..=x1 {
                let lo = cell_key(x, z0);
                let hi = cell_key(x, z1);
                let start = self.cells.partition_point(|&(k, _)| k < lo);
                let end = self.cells.partition_point(|&(k, _)| k <= hi);
                c.extend(self.cells[start..end].iter().map(|&(_, i)| i));
            }
            c.sort_unstable();
            c.dedup();
            c
        };
        candidates.retain(|&i| self.pawns.hit(i as usize, &q));
        Ok(candidates
            .into_iter()
            .map(|i| self.pawns.ids[i as usize])
            .collect())
    }
}
