//! What the debug overlays read from the physics world (spec `dh.voxel` 004:313,
//! "Seeing it"): the edges of a body's triangle-mesh and hull colliders, for
//! `client.debug.colliderGizmo`, and the bodies a pawn touches, for
//! `client.debug.contacts`.

use rapier3d::math::Vector;
use rapier3d::parry::query;
use rapier3d::parry::shape::{Capsule, ConvexPolyhedron};
use rapier3d::prelude::QueryFilter;

use super::pawn;
use super::types::{BodyHandle, PawnId, PhysicsError};
use super::world::{from_rb, pawn_world_filter, to_rb, PhysicsWorld, GROUND_PROBE};

/// One body a pawn touches ([`PhysicsWorld::pawn_contacts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PawnContact {
    /// The body.
    pub body: BodyHandle,
    /// Which of the body's colliders is nearest: its index in the order the body's shapes
    /// were given (for a voxel chunk, its part).
    pub collider: usize,
    /// The nearest point of that collider to the pawn's capsule, on its surface, world
    /// meters.
    pub point: Vector,
    /// The unit normal at `point`, out of the body toward the pawn.
    pub normal: Vector,
    /// The gap between the pawn's capsule and the body, meters (negative: overlapping).
    pub distance: f32,
}

/// The edges of a hull's polygonal faces, each once (an edge between two coplanar
/// triangles of the hull is no face's and is left out), mapped by `at`.
fn polyhedron_edges(
    hull: &ConvexPolyhedron,
    at: impl Fn(Vector) -> Vector,
    out: &mut Vec<[Vector; 2]>,
) {
    let v = hull.points();
    let (edges, adjacent) = (hull.edges(), hull.edges_adj_to_face());
    let mut seen = vec![false; edges.len()];
    for f in hull.faces() {
        let first = f.first_vertex_or_edge as usize;
        let n = f.num_vertices_or_edges as usize;
        for &id in adjacent.get(first..first + n).unwrap_or(&[]) {
            let id = id as usize;
            let (Some(e), Some(false)) = (edges.get(id), seen.get(id).copied()) else {
                continue;
            };
            seen[id] = true;
            let (Some(&a), Some(&b)) =
                (v.get(e.vertices[0] as usize), v.get(e.vertices[1] as usize))
            else {
                continue;
            };
            out.push([at(a), at(b)]);
        }
    }
}

/// The edges of the convex hull of `points` (each once, coplanar faces merged), in the
/// points' frame: what a hull shape on a record that stands as no body (a trigger's)
/// is drawn as. Empty when the points have no hull with a volume (fewer than four, or
/// all in a plane).
pub fn hull_edges(points: &[Vector]) -> Vec<[Vector; 2]> {
    let mut out = Vec::new();
    if points.len() < 4 || points.iter().any(|p| !p.is_finite()) {
        return out;
    }
    if let Some(hull) = ConvexPolyhedron::from_convex_hull(points) {
        polyhedron_edges(&hull, |p| p, &mut out);
    }
    out
}

impl PhysicsWorld {
    /// Adds the edges of body `body`'s triangle-mesh colliders (every triangle's three
    /// edges; a voxel chunk's or a map mesh's) and hull colliders (the edges of the hull's
    /// polygonal faces, each once: coplanar triangles merged) to
    /// `out`, in world meters at the body's pose now, collider by collider in the order
    /// they were added. Box, sphere and capsule colliders add nothing (the overlay draws
    /// them from their own measures). An edge two triangles share is added twice; the
    /// caller deduplicates. Returns how many edges it added.
    pub fn body_wire_edges(
        &self,
        body: BodyHandle,
        out: &mut Vec<[Vector; 2]>,
    ) -> Result<usize, PhysicsError> {
        let rb = self
            .rapier
            .bodies
            .get(to_rb(body))
            .ok_or(PhysicsError::UnknownBody(body))?;
        let before = out.len();
        for &ch in rb.colliders() {
            let Some(co) = self.rapier.colliders.get(ch) else {
                continue;
            };
            let pose = co.position();
            let shape = co.shape();
            if let Some(mesh) = shape.as_trimesh() {
                let v = mesh.vertices();
                for t in mesh.indices() {
                    let p = t.map(|i| v.get(i as usize).copied());
                    let [Some(a), Some(b), Some(c)] = p else {
                        continue;
                    };
                    let [a, b, c] = [a, b, c].map(|p| pose.transform_point(p));
                    out.extend([[a, b], [b, c], [c, a]]);
                }
            } else if let Some(hull) = shape.as_convex_polyhedron() {
                polyhedron_edges(hull, |p| pose.transform_point(p), out);
            }
        }
        Ok(out.len() - before)
    }

    /// The bodies pawn `id` touches now, one contact each (its nearest collider), in body
    /// handle order: every static and kinematic body within `skin` plus the ground probe
    /// of its collision capsule (ours: the reach within which the ground under a pawn is
    /// still its support, so a pawn resting on its ground, a whole `skin` above it, touches
    /// it). Props and other pawns are never contacts (the pawn does not collide with
    /// them); a noclip pawn touches nothing.
    pub fn pawn_contacts(&self, id: PawnId) -> Result<Vec<PawnContact>, PhysicsError> {
        let pawn = self.pawns.get(&id).ok_or(PhysicsError::UnknownPawn(id))?;
        if pawn.noclip {
            return Ok(Vec::new());
        }
        let p = &self.params;
        let reach = p.skin + GROUND_PROBE;
        let capsule = pawn::collision_capsule(p);
        let grown = Capsule::new_y(capsule.half_height(), capsule.radius + reach);
        let pose = pawn::capsule_pose(p, pawn.feet);
        let filter = QueryFilter::default().groups(pawn_world_filter());
        let mut found: Vec<PawnContact> = Vec::new();
        for (ch, co) in self.rapier.intersect_shape(pose, &grown, filter) {
            let Some(parent) = co.parent() else {
                continue;
            };
            let Ok(Some(c)) = query::contact(&pose, &capsule, co.position(), co.shape(), reach)
            else {
                continue;
            };
            let collider = self
                .rapier
                .bodies
                .get(parent)
                .and_then(|rb| rb.colliders().iter().position(|&h| h == ch))
                .unwrap_or(0);
            let contact = PawnContact {
                body: from_rb(parent),
                collider,
                point: c.point2,
                normal: c.normal2,
                distance: c.dist,
            };
            match found.iter_mut().find(|f| f.body == contact.body) {
                Some(f) => {
                    if (contact.distance, contact.collider) < (f.distance, f.collider) {
                        *f = contact;
                    }
                }
                None => found.push(contact),
            }
        }
        found.sort_by_key(|c| c.body);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::{PhysicsParams, Pose};
    use glam::Vec3;

    fn world() -> PhysicsWorld {
        PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_mesh_gives_each_triangles_edges_at_the_bodys_pose_and_a_box_none() {
        let mut w = world();
        // One triangle in the body's frame, the body 10 m up +X.
        let mesh = w
            .add_static_mesh(
                Pose::from_position(Vec3::new(10.0, 0.0, 0.0)),
                &[Vec3::ZERO, Vec3::X, Vec3::Z],
                &[[0, 1, 2]],
                0.9,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let boxed = w
            .add_static_box(Pose::IDENTITY, Vec3::ONE, 0.9)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut out = Vec::new();
        assert_eq!(w.body_wire_edges(boxed, &mut out), Ok(0));
        assert_eq!(w.body_wire_edges(mesh, &mut out), Ok(3));
        let (a, b, c) = (
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::new(11.0, 0.0, 0.0),
            Vec3::new(10.0, 0.0, 1.0),
        );
        assert_eq!(out, vec![[a, b], [b, c], [c, a]]);
    }

    #[test]
    fn a_cube_hull_gives_its_twelve_edges_once_each() {
        let mut w = world();
        // The hull of a 2 m cube's corners, around (0, 5, 0): six square faces, so twelve
        // edges (the triangles' diagonals across each face are no face's edges).
        let corners: Vec<Vec3> = (0..8)
            .map(|k| {
                Vec3::new(
                    if k & 1 == 0 { -1.0 } else { 1.0 },
                    if k & 2 == 0 { -1.0 } else { 1.0 },
                    if k & 4 == 0 { -1.0 } else { 1.0 },
                )
            })
            .collect();
        let hull = w
            .add_static_hull(Pose::from_position(Vec3::new(0.0, 5.0, 0.0)), &corners, 0.9)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut out = Vec::new();
        assert_eq!(w.body_wire_edges(hull, &mut out), Ok(12));
        // The same hull with no body, in the points' own frame: the same twelve, 5 m lower.
        let free = hull_edges(&corners);
        assert_eq!(free.len(), 12);
        for [a, b] in &free {
            let up = Vec3::new(0.0, 5.0, 0.0);
            assert!(out
                .iter()
                .any(|[c, d]| (*a + up - *c).length() < 1e-4 && (*b + up - *d).length() < 1e-4));
        }
        assert!(
            hull_edges(&corners[..3]).is_empty(),
            "three points have no hull"
        );
        for [a, b] in &out {
            let d = *a - *b;
            // Along one axis, 2 m long, between two corners.
            assert!((d.length() - 2.0).abs() < 1e-4, "{a} {b}");
            assert_eq!(d.to_array().iter().filter(|c| c.abs() > 1e-4).count(), 1);
            for p in [a, b] {
                let q = *p - Vec3::new(0.0, 5.0, 0.0);
                assert!((q.abs() - Vec3::ONE).length() < 1e-4, "{p}");
            }
        }
    }

    #[test]
    fn a_standing_pawn_touches_its_floor_and_a_far_wall_is_no_contact() {
        let mut w = world();
        // A floor whose top is at y = 0, and a wall 3 m away.
        let floor = w
            .add_static_box(
                Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
                Vec3::new(4.0, 0.5, 4.0),
                0.9,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        w.add_static_box(
            Pose::from_position(Vec3::new(3.5, 1.0, 0.0)),
            Vec3::new(0.5, 1.0, 4.0),
            0.9,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let id = w
            .spawn_pawn(Vec3::new(0.5, 0.0, -0.25), 0.0)
            .unwrap_or_else(|e| panic!("{e}"));
        w.step();
        let c = w.pawn_contacts(id).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].body, floor);
        assert_eq!(c[0].collider, 0);
        // Straight under the capsule, on the floor's top, a skin (0.01 m) below it.
        assert!(
            (c[0].point - Vec3::new(0.5, 0.0, -0.25)).length() < 1e-3,
            "{c:?}"
        );
        assert!((c[0].normal - Vec3::Y).length() < 1e-3, "{c:?}");
        assert!((c[0].distance - 0.01).abs() < 1e-3, "{c:?}");
        // Flying, it touches nothing.
        w.set_pawn_noclip(id, true)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.pawn_contacts(id), Ok(Vec::new()));
    }
}
