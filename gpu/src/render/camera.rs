//! A named camera as a view (spec: dh.map, dh.camera): its projection, the near and far
//! planes (an orthographic camera with no far derives one from the map bounds and says so),
//! and the frame's shape (the aspect rules).

use super::frame::{Projection, View};
use super::lights::ViewVolume;
use glam::{Mat4, Vec3};

use super::math;

/// The engine's default near plane, meters (ours).
pub const DEFAULT_NEAR: f32 = 0.05;
/// The margin an orthographic camera's derived far plane is given past the furthest
/// geometry, meters.
pub const ORTHO_FAR_MARGIN: f32 = 1.0;
/// The output height a render takes when neither `--size` nor the camera states one.
pub const DEFAULT_HEIGHT: u32 = 720;
/// The output width a render takes for a "viewport" camera with no `--size`.
pub const DEFAULT_WIDTH: u32 = 1280;

/// The output size for a camera: a thumbnail takes its `thumbnail_size`; a `--size` is
/// honored on its width with the height following a stated aspect (or taken as is under
/// "viewport"); with no size, 720 rows at the stated aspect, else 1280 × 720.
pub fn output_size(
    aspect: Option<f32>,
    requested: Option<[u32; 2]>,
    thumbnail: Option<[u32; 2]>,
) -> [u32; 2] {
    if let Some(t) = thumbnail {
        return t;
    }
    match (aspect, requested) {
        (None, Some(s)) => s,
        (None, None) => [DEFAULT_WIDTH, DEFAULT_HEIGHT],
        (Some(a), Some([w, _])) => [w, ((w as f32 / a).round() as u32).max(1)],
        (Some(a), None) => [
            ((DEFAULT_HEIGHT as f32 * a).round() as u32).max(1),
            DEFAULT_HEIGHT,
        ],
    }
}

/// A view resolved for a frame size: its matrices and planes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewSetup {
    /// World to view.
    pub view: Mat4,
    /// View to clip.
    pub projection: Mat4,
    /// Near plane.
    pub near: f32,
    /// Far plane (perspective: `None`, infinite).
    pub far: Option<f32>,
    /// The eye.
    pub eye: Vec3,
    /// Whether it is orthographic.
    pub orthographic: bool,
    /// A derived orthographic far plane, to log.
    pub derived_far: Option<f32>,
}

impl ViewSetup {
    /// The volume the light ranking and binning read.
    pub fn volume(&self) -> ViewVolume {
        ViewVolume {
            view: self.view,
            projection: self.projection,
            eye: self.eye,
            near: self.near,
            orthographic: self.orthographic,
        }
    }

    /// The eight world corners of the frustum between view depths `d0` and `d1`.
    pub fn corners(&self, d0: f32, d1: f32) -> [Vec3; 8] {
        let inv_view = math::inverse(&self.view).unwrap_or(Mat4::IDENTITY);
        let inv_proj = math::inverse(&self.projection).unwrap_or(Mat4::IDENTITY);
        let mut out = [Vec3::ZERO; 8];
        for (k, o) in out.iter_mut().enumerate() {
            let d = if k & 4 == 0 { d0 } else { d1 };
            let x = if k & 1 == 0 { -1.0 } else { 1.0 };
            let y = if k & 2 == 0 { -1.0 } else { 1.0 };
            let p = if self.orthographic {
                let q = math::transform_point(&inv_proj, Vec3::new(x, y, 0.0));
                Vec3::new(q[0], q[1], -d)
            } else {
                let dir = math::transform_point(&inv_proj, Vec3::new(x, y, 0.5));
                dir * (d / -dir[2])
            };
            *o = math::transform_point(&inv_view, p);
        }
        out
    }
}

/// Resolves `view` for a `width × height` frame. `bounds` (the map's geometry) derives an
/// orthographic far plane when the camera states none: the furthest corner along the view
/// direction plus [`ORTHO_FAR_MARGIN`].
pub fn setup(view: &View, width: u32, height: u32, bounds: Option<(Vec3, Vec3)>) -> ViewSetup {
    let aspect = width.max(1) as f32 / height.max(1) as f32;
    let near = view.near.max(1e-4);
    let v = math::view_from_pose(view.position, view.rotation);
    match view.projection {
        Projection::Perspective { fov_y } => ViewSetup {
            view: v,
            projection: math::perspective(
                fov_y.clamp(0.01, 179.0).to_radians(),
                aspect,
                near,
                view.far,
            ),
            near,
            far: view.far,
            eye: view.position,
            orthographic: false,
            derived_far: None,
        },
        Projection::Orthographic { half_height } => {
            let (far, derived) = match view.far {
                Some(f) => (f, None),
                None => {
                    let fwd = math::rotate(view.rotation, Vec3::new(0.0, 0.0, -1.0));
                    let mut furthest = near + 1.0;
                    if let Some((lo, hi)) = bounds {
                        for k in 0..8 {
                            let p = Vec3::new(
                                if k & 1 == 0 { lo[0] } else { hi[0] },
                                if k & 2 == 0 { lo[1] } else { hi[1] },
                                if k & 4 == 0 { lo[2] } else { hi[2] },
                            );
                            furthest = furthest.max((p - view.position).dot(fwd));
                        }
                    }
                    let f = furthest + ORTHO_FAR_MARGIN;
                    (f, Some(f))
                }
            };
            let h = half_height.max(1e-3);
            let w = h * aspect;
            ViewSetup {
                view: v,
                projection: math::orthographic(-w, w, -h, h, near, far),
                near,
                far: Some(far),
                eye: view.position,
                orthographic: true,
                derived_far: derived,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use glam::{Mat4, Quat, Vec3};

    #[test]
    fn aspect_rules() {
        assert_eq!(output_size(None, None, None), [1280, 720]);
        assert_eq!(output_size(None, Some([640, 480]), None), [640, 480]);
        assert_eq!(output_size(Some(16.0 / 9.0), None, None), [1280, 720]);
        assert_eq!(output_size(Some(1.0), Some([300, 500]), None), [300, 300]);
        assert_eq!(
            output_size(Some(4.0 / 3.0), None, Some([512, 512])),
            [512, 512]
        );
    }

    #[test]
    fn ortho_far_is_derived_from_the_bounds() {
        // Straight down from 20 m over a floor at y in [-1, 0]: the far plane is 21 m + margin.
        let down = {
            let h = (-45f32).to_radians();
            Quat::from_xyzw(h.sin(), 0.0, 0.0, h.cos())
        };
        let v = View {
            position: Vec3::new(0.0, 20.0, 0.0),
            rotation: down,
            projection: Projection::Orthographic { half_height: 10.0 },
            near: 0.05,
            far: None,
        };
        let s = setup(
            &v,
            100,
            100,
            Some((Vec3::new(-5.0, -1.0, -5.0), Vec3::new(5.0, 0.0, 5.0))),
        );
        let f = s.derived_far.unwrap_or(0.0);
        assert!((f - (21.0 + ORTHO_FAR_MARGIN)).abs() < 1e-3, "{f}");
        // The floor's center lands mid-frame inside depth [0, 1].
        let clip = math::transform_point(&(s.projection * s.view), Vec3::new(0.0, 0.0, 0.0));
        assert!(clip[0].abs() < 1e-4 && clip[1].abs() < 1e-4 && clip[2] > 0.0 && clip[2] < 1.0);
        // A stated far is kept and not logged.
        let s2 = setup(
            &View {
                far: Some(50.0),
                ..v
            },
            100,
            100,
            None,
        );
        assert_eq!((s2.far, s2.derived_far), (Some(50.0), None));
    }
}
