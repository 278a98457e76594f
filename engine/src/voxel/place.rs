//! Where a grid's cells land in the world (spec `dh.voxel`, "Placing it in a map").

use dh_content::voxel::payload::{GridInfo, PayloadHeader, UpAxis};
use glam::{DAffine3, DMat3, DVec3};

/// An affine map from one grid's cells to meters: the grid's transforms composed under
/// their parents', the origin cell moved to zero, cells scaled to meters at `voxelSize`,
/// the source's up axis turned into the engine's Y (a left-handed source mirrored), then
/// the entity's pose: `p' = M·p + t`, in `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// The map: `matrix3` the linear part (its columns the grid's axes in meters),
    /// `translation` where cell zero lands.
    pub affine: DAffine3,
}

/// A row-major 3×4 matrix (the payload's grid transforms and the tables below are written
/// so) as an affine map.
fn affine_from_rows(m: [[f64; 4]; 3]) -> DAffine3 {
    let col = |c: usize| DVec3::new(m[0][c], m[1][c], m[2][c]);
    DAffine3::from_cols(col(0), col(1), col(2), col(3))
}

/// `a ∘ b` (b first), summed in the order the placement has always summed, which glam's
/// product does not keep: each linear entry `0 + a[r][0]·b[0][c] + a[r][1]·b[1][c] +
/// a[r][2]·b[2][c]` (the leading zero turns a negative-zero sum positive) and each
/// translation entry `a[r][3] + a[r][0]·b[0][3] + …` (glam adds `a[r][3]` last), so the
/// bits of every placement stay the same.
fn compose(a: &DAffine3, b: &DAffine3) -> DAffine3 {
    let m = &a.matrix3;
    let f = |start: DVec3, v: DVec3| start + m.x_axis * v.x + m.y_axis * v.y + m.z_axis * v.z;
    let l = &b.matrix3;
    DAffine3::from_cols(
        f(DVec3::ZERO, l.x_axis),
        f(DVec3::ZERO, l.y_axis),
        f(DVec3::ZERO, l.z_axis),
        f(a.translation, b.translation),
    )
}

/// The normalized `v`, `+Y` for a zero or non-finite one. Divides by the length (glam's
/// `normalize_or` multiplies by its reciprocal, which rounds differently).
pub(crate) fn normalize(v: DVec3) -> DVec3 {
    let l = v.length();
    if l > 0.0 && l.is_finite() {
        v / l
    } else {
        DVec3::Y
    }
}

/// Distance from `p` to the box at `center` with half extents `half` (0 inside).
pub fn box_distance(p: DVec3, center: DVec3, half: DVec3) -> f64 {
    ((p - center).abs() - half).max(DVec3::ZERO).length()
}

impl Placement {
    /// The identity: cells are meters, Y up.
    pub fn identity() -> Self {
        Placement {
            affine: DAffine3::IDENTITY,
        }
    }

    /// The placement of grid `grid` of a container with `header` and `grids`, under the
    /// entity's `pose` (`None` for the identity). `None` when the grid index, or a parent
    /// chain (which must point to earlier grids), is out of range.
    ///
    /// The axes: Y up is kept; Z up (MagicaVoxel's z-up-right) becomes X = x, Y = z,
    /// Z = -y; X up becomes X = z, Y = x, Z = y; each keeps a right-handed source
    /// right-handed, and a left-handed source is then mirrored along Z, so it comes out
    /// as it looks in its own game.
    pub fn new(
        header: &PayloadHeader,
        grids: &[GridInfo],
        grid: usize,
        pose: Option<DAffine3>,
    ) -> Option<Placement> {
        let mut m = DAffine3::IDENTITY;
        let mut at = grid;
        let mut steps = 0;
        loop {
            let g = grids.get(at)?;
            // The payload stores each transform row-major 3×4 in f32.
            let t = affine_from_rows(g.transform.map(|r| r.map(f64::from)));
            m = compose(&t, &m);
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
        let scale = affine_from_rows([
            [s, 0.0, 0.0, -s * o[0]],
            [0.0, s, 0.0, -s * o[1]],
            [0.0, 0.0, s, -s * o[2]],
        ]);
        m = compose(&scale, &m);
        let mut axes = match header.axes.up {
            UpAxis::Y => [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
            ],
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
        m = compose(&affine_from_rows(axes), &m);
        if let Some(p) = pose {
            m = compose(&p, &m);
        }
        Some(Placement { affine: m })
    }

    /// A placement from an affine map.
    pub fn from_affine(affine: DAffine3) -> Self {
        Placement { affine }
    }

    /// A placement from a row-major 3×4 matrix (`t` the last column).
    pub fn from_rows(m: [[f64; 4]; 3]) -> Self {
        Placement {
            affine: affine_from_rows(m),
        }
    }

    /// The linear part (its columns the grid's axes in meters).
    pub fn linear(&self) -> DMat3 {
        self.affine.matrix3
    }

    /// Where cell zero lands.
    pub fn translation(&self) -> DVec3 {
        self.affine.translation
    }

    /// Entry (`row`, `col`) of the linear part.
    #[inline]
    fn at(&self, row: usize, col: usize) -> f64 {
        self.affine.matrix3.col(col)[row]
    }

    /// A point through the map (`x·X + y·Y + z·Z + t`, summed in that order).
    pub fn point(&self, p: DVec3) -> DVec3 {
        self.affine.transform_point3(p)
    }

    /// A direction through the linear part.
    pub fn vector(&self, v: DVec3) -> DVec3 {
        self.affine.transform_vector3(v)
    }

    /// The determinant of the linear part (expanded along the first row, as it always
    /// was; glam's expands along a column and can round differently).
    pub fn determinant(&self) -> f64 {
        let a = |r, c| self.at(r, c);
        a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
            - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
            + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0))
    }

    /// Whether the map mirrors (a negative determinant): the mesher then reverses every
    /// triangle's winding so faces stay outward.
    pub fn mirrors(&self) -> bool {
        self.determinant() < 0.0
    }

    /// A face normal through the map: the inverse transpose of the linear part (the
    /// cofactor matrix divided by the determinant), normalized, so a face's outward
    /// normal stays outward under any invertible map, a mirror included.
    pub fn normal(&self, n: DVec3) -> DVec3 {
        let c = |r0: usize, r1: usize, c0: usize, c1: usize| {
            self.at(r0, c0) * self.at(r1, c1) - self.at(r0, c1) * self.at(r1, c0)
        };
        // Cofactor matrix (the inverse transpose times the determinant), written by
        // rows; its product with `n` sums each row left to right, as glam's does.
        let cof = DMat3::from_cols_array_2d(&[
            [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
            [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
            [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
        ])
        .transpose();
        let d = self.determinant();
        let s = if d < 0.0 { -1.0 } else { 1.0 };
        normalize((cof * n) * s)
    }

    /// Half extents of the world box around a cell-aligned cube of half size `h` cells:
    /// `(|X| + |Y| + |Z|)·h` with X, Y, Z the linear part's columns.
    pub fn box_half(&self, h: f64) -> DVec3 {
        let m = &self.affine.matrix3;
        (m.x_axis.abs() + m.y_axis.abs() + m.z_axis.abs()) * h
    }

    /// The inverse map (world meters to cells); `None` when the linear part is singular
    /// (a determinant not finite or within 1e-12 of zero). The adjugate is written out
    /// entry by entry as it always was (glam's inverse forms it from column cross
    /// products, which round differently).
    pub fn inverse(&self) -> Option<Placement> {
        let a = |r, c| self.at(r, c);
        let det = self.determinant();
        if !(det.is_finite() && det.abs() > 1e-12) {
            return None;
        }
        let inv = 1.0 / det;
        let rows = [
            [
                (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) * inv,
                (a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2)) * inv,
                (a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)) * inv,
            ],
            [
                (a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2)) * inv,
                (a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0)) * inv,
                (a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)) * inv,
            ],
            [
                (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0)) * inv,
                (a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)) * inv,
                (a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)) * inv,
            ],
        ];
        let m = DMat3::from_cols_array_2d(&rows).transpose();
        // Each row times t, summed left to right: glam's product sums so.
        let t = -(m * self.affine.translation);
        Some(Placement {
            affine: DAffine3::from_mat3_translation(m, t),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Y-up container of one grid with `transform`, one meter a cell, origin zero.
    fn one_grid(transform: [[f32; 4]; 3]) -> (PayloadHeader, Vec<GridInfo>) {
        let h = PayloadHeader {
            voxel_size: 1.0,
            ..PayloadHeader::default()
        };
        let mut g = GridInfo::new("g", [0, 0, 0], [16, 16, 16]);
        g.transform = transform;
        (h, vec![g])
    }

    #[test]
    fn the_pose_adds_its_translation_first() {
        // Grid moves by (2^53, -2^53, 0); the pose's row 0 is [1, 1, 0 | 1]. Summed as the
        // placement always summed: (1 + 2^53) rounds to 2^53 (ties to even), minus 2^53
        // is 0. Adding the pose's 1 last (glam's affine product) would give 1.
        let big = 2f32.powi(53);
        let (h, grids) = one_grid([
            [1.0, 0.0, 0.0, big],
            [0.0, 1.0, 0.0, -big],
            [0.0, 0.0, 1.0, 0.0],
        ]);
        let pose = Placement::from_rows([
            [1.0, 1.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ]);
        let p = Placement::new(&h, &grids, 0, Some(pose.affine)).expect("a placement");
        assert_eq!(p.point(DVec3::ZERO).x, 0.0);
        assert_eq!(p.translation().y, -(2f64.powi(53)));
    }

    #[test]
    fn a_zero_sum_of_negative_zeros_stays_positive() {
        // The grid's X axis collapses to zero; the pose's row 0 is all -1: each product
        // is -0, and the sum starts from +0, so the entry is +0 (not -0).
        let (h, grids) = one_grid([
            [0.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ]);
        let pose = Placement::from_rows([
            [-1.0, -1.0, -1.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ]);
        let p = Placement::new(&h, &grids, 0, Some(pose.affine)).expect("a placement");
        assert_eq!(p.linear().x_axis.x.to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn the_inverse_undoes_a_turned_scaled_move() {
        // Rows [[0, 0, 2 | 1], [0, 2, 0 | 2], [-2, 0, 0 | 3]]: world (5, 4, 3) is cell
        // (0, 1, 2) by hand (x = (3 - 3) / -2, y = (4 - 2) / 2, z = (5 - 1) / 2).
        let p = Placement::from_rows([
            [0.0, 0.0, 2.0, 1.0],
            [0.0, 2.0, 0.0, 2.0],
            [-2.0, 0.0, 0.0, 3.0],
        ]);
        let inv = p.inverse().expect("invertible");
        assert_eq!(
            inv.point(DVec3::new(5.0, 4.0, 3.0)).abs(),
            DVec3::new(0.0, 1.0, 2.0)
        );
        assert!(Placement::from_rows([[0.0; 4]; 3]).inverse().is_none());
        // Half extents of a 4-cell cube around a cell: (|X| + |Y| + |Z|)·2 = (4, 4, 4).
        assert_eq!(p.box_half(2.0), DVec3::splat(4.0));
        assert_eq!(
            box_distance(DVec3::new(10.0, 0.0, 0.0), DVec3::ZERO, DVec3::splat(4.0)),
            6.0
        );
    }
}
