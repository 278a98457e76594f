//! Voxel chunk bodies (spec `dh.voxel`, "Collision"): one static body per chunk, its
//! triangles grouped by the surface they are made of, each group one triangle-mesh
//! collider carrying that surface's grip, cooked with internal-edge handling so a body
//! sliding across the seams between merged quads does not catch on them.
//!
//! [`PhysicsWorld::add_voxel_chunk`] is what the engine's collision streamer attaches;
//! [`PhysicsWorld::add_voxel_cells`] builds the same chunk as parry's `Voxels` shapes,
//! kept for the measurement that chose the triangle mesh (see `docs/PERFORMANCE.md`,
//! "Voxel collision").
//!
//! Swimming (spec `dh.voxel`, "Swimming"): [`PhysicsWorld::set_pawn_water`] hands a pawn
//! the water the world's water query found at its middle this tick ([`PawnWater`]: the
//! surface, the medium's density and viscosity, the world's [`SwimParams`]); the pawn's
//! move then swims while its middle is under the surface.

use rapier3d::math::Vector;
use rapier3d::parry::math::IVector;
use rapier3d::parry::shape::TriMeshFlags;
use rapier3d::prelude::{ColliderBuilder, ColliderHandle, RigidBodyBuilder, SharedShape};

use super::types::{BodyHandle, PawnId, PhysicsError};
use super::world::{from_rb, world_groups, PhysicsWorld};

/// One surface's triangles of a voxel chunk body, in the body's frame.
#[derive(Debug, Clone, Copy)]
pub struct VoxelPart<'a> {
    /// Vertex positions in meters, relative to the body's position.
    pub vertices: &'a [Vector],
    /// Triangles as indices into `vertices`, wound counter-clockwise seen from outside.
    pub triangles: &'a [[u32; 3]],
    /// The surface's grip (its preset's friction coefficient).
    pub grip: f32,
}

/// One surface's solid cells of a voxel chunk, for [`PhysicsWorld::add_voxel_cells`].
#[derive(Debug, Clone, Copy)]
pub struct VoxelCellPart<'a> {
    /// Cell coordinates relative to the body's position, in cells.
    pub cells: &'a [IVector],
    /// The surface's grip.
    pub grip: f32,
}

fn check_position(position: Vector) -> Result<Vector, PhysicsError> {
    if position.is_finite() {
        Ok(position)
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
        position: Vector,
        parts: &[VoxelPart<'_>],
    ) -> Result<BodyHandle, PhysicsError> {
        let t = check_position(position)?;
        let mut shapes = Vec::with_capacity(parts.len());
        for part in parts {
            check_grip(part.grip)?;
            if part.triangles.is_empty() {
                continue;
            }
            if part.vertices.iter().any(|v| !v.is_finite()) {
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
            let shape = SharedShape::trimesh_with_flags(
                part.vertices.to_vec(),
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
        position: Vector,
        cell_size: Vector,
        parts: &[VoxelCellPart<'_>],
    ) -> Result<BodyHandle, PhysicsError> {
        let t = check_position(position)?;
        if !(cell_size.is_finite() && cell_size.cmpgt(Vector::ZERO).all()) {
            return Err(PhysicsError::InvalidShape {
                shape: "voxels",
                reason: format!(
                    "needs a cell size above zero, got {:?}",
                    cell_size.to_array()
                ),
            });
        }
        let mut shapes = Vec::with_capacity(parts.len());
        for part in parts {
            check_grip(part.grip)?;
            if part.cells.is_empty() {
                continue;
            }
            shapes.push((SharedShape::voxels(cell_size, part.cells), part.grip));
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
                .user_data(super::water::grip_data(grip))
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

// ── Swimming ────────────────────────────────────────────────────────────

/// The world's swimming parameters (`world.swim.*`; the spec names the swim drag, the
/// stroke, the vertical stroke and the buoyant drift and states no values, so every
/// default is ours).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwimParams {
    /// How fast a swimmer's velocity closes on the one it strokes for, per second
    /// (`world.swim.drag`, 4); multiplied by the medium's viscosity.
    pub drag: f32,
    /// Swimming speed along the view in m/s (`world.swim.stroke`, 3); divided by the
    /// medium's viscosity.
    pub stroke: f32,
    /// The upward speed a jump press gives a swimmer in m/s (`world.swim.verticalStroke`,
    /// 3); divided by the medium's viscosity.
    pub vertical_stroke: f32,
    /// The speed buoyancy carries a swimmer up (or down) at, m/s (`world.swim.drift`, 1);
    /// divided by the medium's viscosity.
    pub drift: f32,
    /// The pawn's density in kg/m³ (`world.swim.pawnDensity`, 985): a denser medium floats
    /// it, a lighter one sinks it.
    pub pawn_density: f32,
    /// How deep under the surface a floating pawn's middle rests, in meters
    /// (`world.swim.floatDepth`, 0.3).
    pub float_depth: f32,
}

impl Default for SwimParams {
    fn default() -> Self {
        SwimParams {
            drag: 4.0,
            stroke: 3.0,
            vertical_stroke: 3.0,
            drift: 1.0,
            pawn_density: 985.0,
            float_depth: 0.3,
        }
    }
}

/// The water a pawn is in this tick: what the world's water query answered at the
/// pawn's middle (its capsule's center) before the tick moved it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PawnWater {
    /// The height of the surface over the pawn, in world meters. The pawn swims while its
    /// middle is under it.
    pub surface: f32,
    /// The medium's density in kg/m³ (water 1000).
    pub density: f32,
    /// The medium's viscosity (water 1): it multiplies the drag and divides the stroke,
    /// the vertical stroke and the drift.
    pub viscosity: f32,
    /// The world's swimming parameters.
    pub swim: SwimParams,
}

impl PawnWater {
    fn check(&self) -> Result<(), PhysicsError> {
        let s = &self.swim;
        let named = [
            ("surface", self.surface, f32::NEG_INFINITY, false),
            ("density", self.density, 0.0, true),
            ("viscosity", self.viscosity, 0.0, true),
            ("swim drag", s.drag, 0.0, false),
            ("swim stroke", s.stroke, 0.0, false),
            ("swim vertical stroke", s.vertical_stroke, 0.0, false),
            ("swim drift", s.drift, 0.0, false),
            ("pawn density", s.pawn_density, 0.0, true),
            ("float depth", s.float_depth, 0.0, true),
        ];
        for (name, v, min, open) in named {
            if !v.is_finite() || v < min || (open && v <= min) {
                return Err(PhysicsError::InvalidParam {
                    name,
                    value: v,
                    expected: if open { "above 0" } else { "at least 0" },
                });
            }
        }
        Ok(())
    }
}

impl PhysicsWorld {
    /// Sets the water pawn `id` is in for its next moves (`None`: dry). The host asks the
    /// world's water query once a tick, at the pawn's middle, and hands the answer here
    /// before the step. Refused when a number is not finite or out of range.
    pub fn set_pawn_water(
        &mut self,
        id: PawnId,
        water: Option<PawnWater>,
    ) -> Result<(), PhysicsError> {
        if let Some(w) = &water {
            w.check()?;
        }
        let pawn = self
            .pawns
            .get_mut(&id)
            .ok_or(PhysicsError::UnknownPawn(id))?;
        pawn.water = water;
        Ok(())
    }

    /// The water pawn `id` was last given.
    pub fn pawn_water(&self, id: PawnId) -> Result<Option<PawnWater>, PhysicsError> {
        let pawn = self.pawns.get(&id).ok_or(PhysicsError::UnknownPawn(id))?;
        Ok(pawn.water)
    }

    /// Whether pawn `id` swam in its last move (its middle was under the surface).
    pub fn pawn_swimming(&self, id: PawnId) -> Result<bool, PhysicsError> {
        let pawn = self.pawns.get(&id).ok_or(PhysicsError::UnknownPawn(id))?;
        Ok(pawn.swimming)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::{PawnInput, PhysicsParams, Pose};
    use glam::{Vec2, Vec3};

    /// A floor whose top is at y = 0 with a pawn standing on it, and water whose surface
    /// is at y = 5.
    fn pool(density: f32, viscosity: f32) -> (PhysicsWorld, PawnId, PawnWater) {
        let mut w = PhysicsWorld::new(PhysicsParams::default()).unwrap_or_else(|e| panic!("{e}"));
        w.add_static_box(
            Pose::from_position(Vec3::new(0.0, -0.5, 0.0)),
            Vec3::new(4.0, 0.5, 4.0),
            0.9,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let id = w
            .spawn_pawn(Vec3::new(0.0, 0.0, 0.0), 0.0)
            .unwrap_or_else(|e| panic!("{e}"));
        let water = PawnWater {
            surface: 5.0,
            density,
            viscosity,
            swim: SwimParams::default(),
        };
        w.set_pawn_water(id, Some(water))
            .unwrap_or_else(|e| panic!("{e}"));
        (w, id, water)
    }

    fn vy(w: &PhysicsWorld, id: PawnId) -> f32 {
        w.pawn_state(id).map(|s| s.velocity[1]).unwrap_or(f32::NAN)
    }

    #[test]
    fn the_drift_eases_to_rest_at_the_float_depth() {
        let w = PawnWater {
            surface: 0.0,
            density: 1000.0,
            viscosity: 2.0,
            swim: SwimParams::default(),
        };
        // drift / viscosity = 0.5 m/s; full below 2 × 0.3 m, none at 0.3 m, full down at 0.
        assert_eq!(super::super::pawn::buoyant_drift(&w, 1.0), 0.5);
        assert_eq!(super::super::pawn::buoyant_drift(&w, 0.3), 0.0);
        assert!((super::super::pawn::buoyant_drift(&w, 0.45) - 0.25).abs() < 1e-6);
        assert_eq!(super::super::pawn::buoyant_drift(&w, 0.0), -0.5);
        let sinking = PawnWater {
            density: 900.0,
            ..w
        };
        assert_eq!(super::super::pawn::buoyant_drift(&sinking, 3.0), -0.5);
        let even = PawnWater {
            density: 985.0,
            ..w
        };
        assert_eq!(super::super::pawn::buoyant_drift(&even, 3.0), 0.0);
    }

    #[test]
    fn a_floater_rises_at_the_drift_over_the_viscosity() {
        let (mut w, id, _) = pool(1000.0, 2.0);
        for _ in 0..64 {
            w.step();
        }
        // Target 1 / 2 m/s, closed at drag × viscosity = 8 a second: after 64 ticks the
        // gap is e^-8 of it.
        let want = 0.5 * (1.0 - (-8.0f32).exp());
        assert!((vy(&w, id) - want).abs() < 1e-3, "{} vs {want}", vy(&w, id));
        assert_eq!(w.pawn_swimming(id), Ok(true));
    }

    #[test]
    fn a_swimmer_strokes_along_its_view_and_a_jump_strokes_up() {
        let (mut w, id, _) = pool(985.0, 1.0);
        // Facing -Z (yaw 0), level: forward is -Z at the stroke, 3 m/s.
        w.set_pawn_input(
            id,
            PawnInput {
                move_local: Vec2::new(0.0, 1.0),
                ..PawnInput::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..32 {
            w.step();
        }
        let v = w.pawn_state(id).map(|s| s.velocity).unwrap_or_default();
        let want = 3.0 * (1.0 - (-4.0f32 * 32.0 / 64.0).exp());
        assert!((v[2] + want).abs() < 1e-3, "{v:?} vs -{want}");
        assert!(v[0].abs() < 1e-4 && v[1].abs() < 1e-4, "{v:?}");
        w.set_pawn_input(
            id,
            PawnInput {
                jump: true,
                ..PawnInput::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        w.step();
        assert!(vy(&w, id) >= 3.0 - 1e-4, "{}", vy(&w, id));
    }

    #[test]
    fn a_dry_pawn_and_a_wading_one_walk() {
        let (mut w, id, water) = pool(1000.0, 1.0);
        // The surface under its middle (0.9 m over its feet at 0): wading.
        w.set_pawn_water(
            id,
            Some(PawnWater {
                surface: 0.8,
                ..water
            }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        w.step();
        assert_eq!(w.pawn_swimming(id), Ok(false));
        assert!(w.pawn_state(id).map(|s| s.grounded).unwrap_or(false));
        w.set_pawn_water(id, None).unwrap_or_else(|e| panic!("{e}"));
        w.step();
        assert_eq!(w.pawn_swimming(id), Ok(false));
        assert_eq!(w.pawn_water(id), Ok(None));
    }

    #[test]
    fn bad_water_is_refused() {
        let (mut w, id, water) = pool(1000.0, 1.0);
        for bad in [
            PawnWater {
                surface: f32::NAN,
                ..water
            },
            PawnWater {
                viscosity: 0.0,
                ..water
            },
            PawnWater {
                density: -1.0,
                ..water
            },
        ] {
            assert!(w.set_pawn_water(id, Some(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(w.pawn_water(id), Ok(Some(water)));
    }
}
