//! Voxel chunk bodies (spec `dh.voxel`, "Collision"): one static body per chunk, its
//! triangles grouped by the surface they are made of, each group one triangle-mesh
//! collider carrying that surface's grip, cooked with internal-edge handling so a body
//! sliding across the seams between merged quads does not catch on them.
//!
//! [`PhysicsWorld::add_voxel_chunk`] is what the engine's collision streamer attaches;
//! [`PhysicsWorld::add_voxel_cells`] builds the same chunk as parry's `Voxels` shapes,
//! kept for the measurement that chose the triangle mesh (see `docs/PERFORMANCE.md`,
//! "Voxel collision").

use rapier3d::math::Vector;
use rapier3d::parry::math::IVector;
use rapier3d::parry::shape::TriMeshFlags;
use rapier3d::prelude::{ColliderBuilder, ColliderHandle, RigidBodyBuilder, SharedShape};

use super::types::{BodyHandle, PhysicsError};
use super::world::{from_rb, world_groups, PhysicsWorld};

/// One surface's triangles of a voxel chunk body, in the body's frame.
#[derive(Debug, Clone, Copy)]
pub struct VoxelPart<'a> {
    /// Vertex positions in meters, relative to the body's position.
    pub vertices: &'a [[f32; 3]],
    /// Triangles as indices into `vertices`, wound counter-clockwise seen from outside.
    pub triangles: &'a [[u32; 3]],
    /// The surface's grip (its preset's friction coefficient).
    pub grip: f32,
}

/// One surface's solid cells of a voxel chunk, for [`PhysicsWorld::add_voxel_cells`].
#[derive(Debug, Clone, Copy)]
pub struct VoxelCellPart<'a> {
    /// Cell coordinates relative to the body's position, in cells.
    pub cells: &'a [[i32; 3]],
    /// The surface's grip.
    pub grip: f32,
}

fn check_position(position: [f32; 3]) -> Result<Vector, PhysicsError> {
    if position.iter().all(|c| c.is_finite()) {
        Ok(Vector::new(position[0], position[1], position[2]))
    } else {
        Err(PhysicsError::NonFinite {
            what: "a voxel chunk's position",
            kind: "vector",
        })
    }
}

fn check_grip(grip: f32) -> Result<(), PhysicsError> {
    if grip.is_finite() && grip >= 0.0 {
        Ok(())
    } else {
        Err(PhysicsError::InvalidParam {
            name: "grip",
            value: grip,
            expected: "at least 0",
        })
    }
}

impl PhysicsWorld {
    /// Adds one voxel chunk as a static body at `position` (unrotated: the chunk's
    /// vertices are already turned, scaled and mirrored into world axes): one
    /// triangle-mesh collider per part, each with its part's grip and internal-edge
    /// handling. Refused, and nothing added, when there are no triangles, a vertex is not
    /// finite or an index is past its part's vertices.
    pub fn add_voxel_chunk(
        &mut self,
        position: [f32; 3],
        parts: &[VoxelPart<'_>],
    ) -> Result<BodyHandle, PhysicsError> {
        let t = check_position(position)?;
        let mut shapes = Vec::with_capacity(parts.len());
        for part in parts {
            check_grip(part.grip)?;
            if part.triangles.is_empty() {
                continue;
            }
            if part.vertices.iter().flatten().any(|c| !c.is_finite()) {
                return Err(PhysicsError::NonFinite {
                    what: "a voxel chunk vertex",
                    kind: "vector",
                });
            }
            let count = part.vertices.len();
            if let Some(bad) = part
                .triangles
                .iter()
                .flatten()
                .find(|&&i| i as usize >= count)
            {
                return Err(PhysicsError::InvalidMesh(format!(
                    "voxel chunk index {bad} is past its {count} vertices"
                )));
            }
            let verts: Vec<Vector> = part
                .vertices
                .iter()
                .map(|v| Vector::new(v[0], v[1], v[2]))
                .collect();
            let shape = SharedShape::trimesh_with_flags(
                verts,
                part.triangles.to_vec(),
                TriMeshFlags::FIX_INTERNAL_EDGES,
            )
            .map_err(|e| PhysicsError::InvalidMesh(format!("voxel chunk: {e}")))?;
            shapes.push((shape, part.grip));
        }
        if shapes.is_empty() {
            return Err(PhysicsError::InvalidMesh(
                "a voxel chunk with no triangles".into(),
            ));
        }
        Ok(self.insert_voxel_body(t, shapes))
    }

    /// Adds one voxel chunk as parry `Voxels` shapes (one per part), each cell
    /// `cell_size` meters, at `position`. The alternative to
    /// [`PhysicsWorld::add_voxel_chunk`] the benchmark measures; it only fits an unturned
    /// placement.
    pub fn add_voxel_cells(
        &mut self,
        position: [f32; 3],
        cell_size: [f32; 3],
        parts: &[VoxelCellPart<'_>],
    ) -> Result<BodyHandle, PhysicsError> {
        let t = check_position(position)?;
        if !cell_size.iter().all(|c| c.is_finite() && *c > 0.0) {
            return Err(PhysicsError::InvalidShape {
                shape: "voxels",
                reason: format!("needs a cell size above zero, got {cell_size:?}"),
            });
        }
        let size = Vector::new(cell_size[0], cell_size[1], cell_size[2]);
        let mut shapes = Vec::with_capacity(parts.len());
        let mut coords: Vec<IVector> = Vec::new();
        for part in parts {
            check_grip(part.grip)?;
            if part.cells.is_empty() {
                continue;
            }
            coords.clear();
            coords.extend(part.cells.iter().map(|c| IVector::new(c[0], c[1], c[2])));
            shapes.push((SharedShape::voxels(size, &coords), part.grip));
        }
        if shapes.is_empty() {
            return Err(PhysicsError::InvalidShape {
                shape: "voxels",
                reason: "a voxel chunk with no cells".into(),
            });
        }
        Ok(self.insert_voxel_body(t, shapes))
    }

    fn insert_voxel_body(&mut self, t: Vector, shapes: Vec<(SharedShape, f32)>) -> BodyHandle {
        let rb = self
            .rapier
            .insert_body(RigidBodyBuilder::fixed().translation(t));
        let mut colliders: Vec<ColliderHandle> = Vec::with_capacity(shapes.len());
        for (shape, grip) in shapes {
            // A static body needs no mass: density 0 skips computing the mesh's mass
            // properties, a tenth of the attach.
            let co = ColliderBuilder::new(shape)
                .density(0.0)
                .friction(grip)
                .collision_groups(world_groups());
            colliders.push(self.rapier.insert_collider(co, Some(rb)));
        }
        // Queries between now and the next step see the new body at once.
        let params = &self.rapier.integration_parameters;
        for &ch in &colliders {
            if let Some(co) = self.rapier.colliders.get(ch) {
                let aabb = co.compute_broad_phase_aabb(params, &self.rapier.bodies);
                self.rapier.broad_phase.set_aabb(params, ch, aabb);
            }
        }
        from_rb(rb)
    }
}
