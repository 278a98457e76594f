//! Where a grid's cells land in the world (spec `dh.voxel`, "Placing it in a map").

use dh_content::voxel::payload::{GridInfo, PayloadHeader, UpAxis};

/// An affine map from one grid's cells to meters: the grid's transforms composed under
/// their parents', the origin cell moved to zero, cells scaled to meters at `voxelSize`,
/// the source's up axis turned into the engine's Y (a left-handed source mirrored), then
/// the entity's pose. Row-major 3×4: `p' = M·p + t` with `t` the last column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// The 3×4 row-major matrix.
    pub m: [[f64; 4]; 3],
}

fn mul(a: &[[f64; 4]; 3], b: &[[f64; 4]; 3]) -> [[f64; 4]; 3] {
    let mut o = [[0.0; 4]; 3];
    for r in 0..3 {
        for c in 0..4 {
            let mut v = if c == 3 { a[r][3] } else { 0.0 };
            for k in 0..3 {
                v += a[r][k] * b[k][c];
            }
            o[r][c] = v;
        }
    }
    o
}

const IDENTITY: [[f64; 4]; 3] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

impl Placement {
    /// The identity: cells are meters, Y up.
    pub fn identity() -> Self {
        Placement { m: IDENTITY }
    }

    /// The placement of grid `grid` of a container with `header` and `grids`, under the
    /// entity's `pose` (row-major 3×4, `None` for the identity). `None` when the grid
    /// index, or a parent chain (which must point to earlier grids), is out of range.
    ///
    /// The axes: Y up is kept; Z up (MagicaVoxel's z-up-right) becomes X = x, Y = z,
    /// Z = -y; X up becomes X = z, Y = x, Z = y; each keeps a right-handed source
    /// right-handed, and a left-handed source is then mirrored along Z, so it comes out
    /// as it looks in its own game.
    pub fn new(
        header: &PayloadHeader,
        grids: &[GridInfo],
        grid: usize,
        pose: Option<[[f64; 4]; 3]>,
    ) -> Option<Placement> {
        let mut m = IDENTITY;
        let mut at = grid;
        let mut steps = 0;
        loop {
            let g = grids.get(at)?;
            let t = g.transform.map(|r| r.map(f64::from));
            m = mul(&t, &m);
            match g.parent {
                None => break,
                Some(p) if (p as usize) < at && steps < grids.len() => {
                    at = p as usize;
                    steps += 1;
                }
                Some(_) => return None,
            }
        }
        let o = header.origin.map(f64::from);
        let s = header.voxel_size;
        let scale = [
            [s, 0.0, 0.0, -s * o[0]],
            [0.0, s, 0.0, -s * o[1]],
            [0.0, 0.0, s, -s * o[2]],
        ];
        m = mul(&scale, &m);
        let mut axes = match header.axes.up {
            UpAxis::Y => IDENTITY,
            UpAxis::Z => [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, -1.0, 0.0, 0.0],
            ],
            UpAxis::X => [
                [0.0, 0.0, 1.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
            ],
        };
        if header.axes.left_handed {
            for v in axes[2].iter_mut() {
                *v = -*v;
            }
        }
        m = mul(&axes, &m);
        if let Some(p) = pose {
            m = mul(&p, &m);
        }
        Some(Placement { m })
    }

    /// A placement from a matrix.
    pub fn from_matrix(m: [[f64; 4]; 3]) -> Self {
        Placement { m }
    }

    /// A point through the map.
    pub fn point(&self, p: [f64; 3]) -> [f64; 3] {
        let m = &self.m;
        [0, 1, 2].map(|r| m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3])
    }

    /// A direction through the linear part.
    pub fn vector(&self, v: [f64; 3]) -> [f64; 3] {
        let m = &self.m;
        [0, 1, 2].map(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
    }

    /// The determinant of the linear part.
    pub fn determinant(&self) -> f64 {
        let m = &self.m;
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    /// Whether the map mirrors (a negative determinant): the mesher then reverses every
    /// triangle's winding so faces stay outward.
    pub fn mirrors(&self) -> bool {
        self.determinant() < 0.0
    }

    /// A face normal through the map: the inverse transpose of the linear part (the
    /// cofactor matrix divided by the determinant), normalized, so a face's outward
    /// normal stays outward under any invertible map, a mirror included.
    pub fn normal(&self, n: [f64; 3]) -> [f64; 3] {
        let m = &self.m;
        let c = |r0: usize, r1: usize, c0: usize, c1: usize| {
            m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
        };
        // Cofactor matrix (the inverse transpose times the determinant).
        let cof = [
            [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
            [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
            [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
        ];
        let d = self.determinant();
        let s = if d < 0.0 { -1.0 } else { 1.0 };
        let v = [0, 1, 2].map(|r| s * (cof[r][0] * n[0] + cof[r][1] * n[1] + cof[r][2] * n[2]));
        normalize(v)
    }
}

pub(crate) fn normalize(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 0.0 && l.is_finite() {
        v.map(|c| c / l)
    } else {
        [0.0, 1.0, 0.0]
    }
}
