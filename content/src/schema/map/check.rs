//! Small range checks the map's blocks share, each reporting at the member.

use crate::read::{At, Cx};
use crate::schema::common::Vec3;

/// An sRGB face color: every component in [0, 1]. A component above 1 is a compile error
/// ("1 already is white in sRGB"): brightness belongs in the paired linear scalar `pair`, when there is one.
pub(crate) fn srgb(cx: &mut Cx, at: &At, field: &str, c: &Vec3, pair: Option<&str>) {
    if c.0.iter().any(|x| *x > 1.0) {
        let hint = match pair {
            Some(p) => format!("; 1 already is white, so put the brightness in '{p}'"),
            None => "; 1 already is white".to_string(),
        };
        cx.error_at(
            at,
            at.field(field),
            format!(
                "'{field}' is an sRGB color in [0, 1] and a component above 1 is a compile error, found [{}, {}, {}]{hint}",
                c.0[0], c.0[1], c.0[2]
            ),
        );
    } else if c.0.iter().any(|x| *x < 0.0) {
        cx.error_at(
            at,
            at.field(field),
            format!(
                "'{field}' is an sRGB color in [0, 1], found [{}, {}, {}]; a component cannot be negative",
                c.0[0], c.0[1], c.0[2]
            ),
        );
    }
}

/// `value` (when written) is at least `min`.
pub(crate) fn at_least(
    cx: &mut Cx,
    at: &At,
    block: &str,
    field: &str,
    value: Option<f64>,
    min: f64,
) {
    if let Some(v) = value {
        if v < min {
            cx.error_at(
                at,
                at.field(field),
                format!("{block}.{field} must be ≥ {min}, found {v}"),
            );
        }
    }
}

/// `value` (when written) is greater than 0.
pub(crate) fn positive(cx: &mut Cx, at: &At, block: &str, field: &str, value: Option<f64>) {
    if let Some(v) = value {
        if v <= 0.0 {
            cx.error_at(
                at,
                at.field(field),
                format!("{block}.{field} must be positive, found {v}"),
            );
        }
    }
}

/// `value` (when written) is within `lo..=hi`; `range` is how the spec writes the range.
pub(crate) fn within(
    cx: &mut Cx,
    at: &At,
    (block, field): (&str, &str),
    value: Option<f64>,
    (lo, hi, range): (f64, f64, &str),
) {
    if let Some(v) = value {
        if !(lo..=hi).contains(&v) {
            cx.error_at(
                at,
                at.field(field),
                format!("{block}.{field} must be in {range}, found {v}"),
            );
        }
    }
}

/// `value` (when written) is within [0, 1].
pub(crate) fn unit_interval(cx: &mut Cx, at: &At, block: &str, field: &str, value: Option<f64>) {
    within(cx, at, (block, field), value, (0.0, 1.0, "0–1"));
}
