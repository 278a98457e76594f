//! Voxel water (spec `dh.voxel`, "Swimming"): whether a point is in a fluid, read from the
//! grid itself, no trigger shapes.
//!
//! A point is in a fluid when its cell holds one (a fluid block, or a block standing in a
//! source of it, as a waterlogged stair does), or when the cell under it does, so a point
//! just over a surface still reads the surface beneath it and is dry. The surface over the
//! point is the one the mesher draws: the corner heights above, read across the cell, on
//! top of the highest cell of the same fluid in its column run. The floor is the lowest
//! cell of the run. A cave under a lake is dry, since the query is by cell and not by
//! column. The point is carried into the grid's cells by the volume's placement, so a
//! turned or scaled volume answers in its own space and hands back world heights.
//!
//! Which medium a fluid swims as (its density, viscosity, fog) is the platform pallet's
//! fluid block's; the sample names the fluid ([`WaterSample::fluid`], an index into the
//! volume's [`FluidTable`], and [`WaterSample::block`]) for the caller to resolve. Until
//! platform pallets carry media, [`medium_of`] is the built-in stand-in: Minecraft's water
//! and lava ([`MEDIA`]).

use glam::DVec3;

use super::cell::CellLook;
use super::fluid::{corner_heights, FluidTable};
use super::looks::VoxelLooks;
use super::place::Placement;
use super::{cell_of, ChunkSource};

/// What a fluid swims as: the medium's density and viscosity (what a map water material's
/// `water` block states).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Medium {
    /// The fluid's block (`water`, `lava`).
    pub block: &'static str,
    /// Density in kg/m³: whether a swimmer sinks or floats.
    pub density: f32,
    /// Viscosity: multiplies the world's swim drag, divides the stroke, the vertical stroke
    /// and the buoyant drift.
    pub viscosity: f32,
}

/// The built-in media (ours: the spec leaves them to the platform pallet's medium
/// materials and states no numbers). Water is a map water material's defaults (density
/// 1000, viscosity 1); lava is "thick, slow" (spec "Swimming"): molten rock's density,
/// 3100 kg/m³, and four times water's drag.
pub const MEDIA: &[Medium] = &[
    Medium {
        block: "water",
        density: 1000.0,
        viscosity: 1.0,
    },
    Medium {
        block: "lava",
        density: 3100.0,
        viscosity: 4.0,
    },
];

/// The medium a fluid whose look is block `block` swims as; `None` for a fluid that names
/// no medium, which nothing swims in.
pub fn medium_of(block: &str) -> Option<&'static Medium> {
    MEDIA.iter().find(|m| m.block == block)
}

/// The most cells a column run is followed up or down.
pub const MAX_RUN: i32 = 4096;

/// One volume's fluids as the water query reads them.
#[derive(Debug, Clone)]
pub struct FluidField {
    cells: Vec<CellLook>,
    fluids: FluidTable,
    placement: Placement,
    inverse: Placement,
}

/// The fluid a point reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterSample<'a> {
    /// The fluid, an index into the volume's [`FluidTable`].
    pub fluid: usize,
    /// The fluid's block (`water`, `lava`).
    pub block: &'a str,
    /// Whether the point is under the surface.
    pub submerged: bool,
    /// The surface's height over the point, in world meters.
    pub surface: f64,
    /// The floor of the run (the bottom of its lowest cell), in world meters.
    pub floor: f64,
    /// Meters from the point up to the surface (negative above it).
    pub depth: f64,
    /// The top cell of the run.
    pub top_cell: [i32; 3],
}

impl FluidField {
    /// The field of a volume resolved to `looks`, placed by `placement`; `None` when the
    /// placement is singular.
    pub fn new(looks: &VoxelLooks, placement: Placement) -> Option<FluidField> {
        Some(FluidField {
            cells: looks.cells(true).to_vec(),
            fluids: looks.fluids().clone(),
            inverse: placement.inverse()?,
            placement,
        })
    }

    #[inline]
    fn look(&self, src: &(impl ChunkSource + ?Sized), cell: [i32; 3]) -> &CellLook {
        let v = cell_of(src, cell) as usize;
        let last = self.cells.len() - 1;
        &self.cells[v.min(last)]
    }

    /// The fluid at world point `point`, or `None` when neither its cell nor the one under
    /// it holds a fluid.
    pub fn water_at(
        &self,
        src: &(impl ChunkSource + ?Sized),
        point: DVec3,
    ) -> Option<WaterSample<'_>> {
        let c = self.inverse.point(point);
        if !(c.is_finite() && c.abs().cmplt(DVec3::splat(1e9)).all()) {
            return None;
        }
        let mut cell = c.floor().as_ivec3().to_array();
        let mut fluid = self.look(src, cell).fluid;
        if fluid == 0 {
            cell[1] -= 1;
            fluid = self.look(src, cell).fluid;
            if fluid == 0 {
                return None;
            }
        }
        let mut top = cell;
        for _ in 0..MAX_RUN {
            let up = [top[0], top[1] + 1, top[2]];
            if self.look(src, up).fluid != fluid {
                break;
            }
            top = up;
        }
        let mut bottom = cell;
        for _ in 0..MAX_RUN {
            let down = [bottom[0], bottom[1] - 1, bottom[2]];
            if self.look(src, down).fluid != fluid {
                break;
            }
            bottom = down;
        }
        let nb =
            |dx: i32, dy: i32, dz: i32| self.look(src, [top[0] + dx, top[1] + dy, top[2] + dz]);
        let h = corner_heights(&nb);
        let fx = (c.x - f64::from(cell[0])).clamp(0.0, 1.0);
        let fz = (c.z - f64::from(cell[2])).clamp(0.0, 1.0);
        let h = f64::from(h[0]) * (1.0 - fx) * (1.0 - fz)
            + f64::from(h[1]) * fx * (1.0 - fz)
            + f64::from(h[2]) * (1.0 - fx) * fz
            + f64::from(h[3]) * fx * fz;
        let surface_cells = f64::from(top[1]) + h;
        let surface = self.placement.point(DVec3::new(c.x, surface_cells, c.z)).y;
        let floor = self
            .placement
            .point(DVec3::new(c.x, f64::from(bottom[1]), c.z))
            .y;
        let index = usize::from(fluid) - 1;
        Some(WaterSample {
            fluid: index,
            block: self
                .fluids
                .fluids
                .get(index)
                .map_or("", |f| f.block.as_str()),
            submerged: c.y < surface_cells,
            surface,
            floor,
            depth: surface - point.y,
            top_cell: top,
        })
    }

    /// Whether world point `point` is under a fluid's surface.
    pub fn is_water(&self, src: &(impl ChunkSource + ?Sized), point: DVec3) -> bool {
        self.water_at(src, point).is_some_and(|s| s.submerged)
    }
}
