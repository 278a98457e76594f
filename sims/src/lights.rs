//! The state behind the `lights.*` console verbs (spec, dh.map "Tuning lights live"): a
//! sparse patch over each light's authored fields, set and reset by name or by a pattern
//! with one `*`, listed back in the map's own (sRGB) terms.

use dh_content::schema::components::light::{Falloff, LightKind, LightMode, LightTuning};
use hecs::Entity;

use crate::components::{Light, LightPatch, Name};
use crate::world::SimWorld;

/// The least gap kept between a spot's inner and outer cone when one end is retuned past
/// the other, in degrees, so the beam never inverts.
pub const MIN_CONE_GAP: f32 = 1.0;

/// Why a `lights.*` command was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LightsError {
    /// No light matches the name or pattern.
    #[error("no light matches '{0}'")]
    NotFound(String),
    /// The field token is not one `lights.set` takes.
    #[error("'{0}' is not a light field; the fields are: color, intensity, range, falloff, innerCone, outerCone, mode, kind")]
    UnknownField(String),
    /// The value does not fit the field.
    #[error("lights.set {field}: {message}")]
    BadValue {
        /// The field token.
        field: String,
        /// What was wrong.
        message: String,
    },
}

/// Whether `name` fits `pattern`, which holds exactly one `*` (at the start, the middle or
/// the end).
fn fits(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((head, tail)) if !tail.contains('*') => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
        _ => false,
    }
}

fn number(field: &str, args: &[&str]) -> Result<f32, LightsError> {
    let bad = |message: String| LightsError::BadValue {
        field: field.to_string(),
        message,
    };
    match args {
        [one] => one
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(format!("'{one}' is not a number"))),
        _ => Err(bad(format!(
            "takes one number, found {} values",
            args.len()
        ))),
    }
}

/// Formats a number the way the map writes it (`60`, `0.88`).
fn num(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    format!("{r}")
}

impl SimWorld {
    /// The lights a `lights.*` target names: an exact name first, else every light whose
    /// name fits a pattern with one `*`, in author order.
    pub fn lights_matching(&self, target: &str) -> Vec<(Entity, String)> {
        let mut all: Vec<(u32, Entity, String)> = self
            .world
            .query::<(Entity, &crate::components::RecordIndex, &Name, &Light)>()
            .iter()
            .map(|(e, r, n, _)| (r.0, e, n.0.clone()))
            .collect();
        all.sort_by_key(|a| a.0);
        let exact: Vec<(Entity, String)> = all
            .iter()
            .filter(|a| a.2 == target)
            .map(|a| (a.1, a.2.clone()))
            .collect();
        if !exact.is_empty() {
            return exact;
        }
        all.into_iter()
            .filter(|a| fits(target, &a.2))
            .map(|a| (a.1, a.2))
            .collect()
    }

    /// `lights.list`: one line per light in author order, with its live values (a color in
    /// sRGB, as the map writes it).
    pub fn lights_list(&self) -> Vec<String> {
        self.lights_matching("*")
            .into_iter()
            .filter_map(|(e, name)| {
                let l = self.world.get::<&Light>(e).ok()?;
                let eff = l.effective();
                let color = l.patch.color.unwrap_or(l.color_srgb);
                Some(format!(
                    "{name}: {} {} color {} {} {} intensity {} range {} mode {}{}",
                    eff.kind.as_str(),
                    if eff.on { "on" } else { "off" },
                    num(color[0]),
                    num(color[1]),
                    num(color[2]),
                    num(eff.intensity as f64),
                    num(eff.range as f64),
                    eff.mode.as_str(),
                    if l.patch.is_empty() { "" } else { " (edited)" }
                ))
            })
            .collect()
    }

    /// `lights.set <target> <field> <values…>`: retunes every matching light for the
    /// session. Returns the line the console prints.
    pub fn lights_set(
        &mut self,
        target: &str,
        field: &str,
        args: &[&str],
    ) -> Result<String, LightsError> {
        let tuning = LightTuning::parse(field)
            .ok_or_else(|| LightsError::UnknownField(field.to_string()))?;
        let bad = |message: String| LightsError::BadValue {
            field: field.to_string(),
            message,
        };
        // Parse once, then apply to each light.
        enum V {
            Color([f64; 3]),
            Num(f32),
            Falloff(Falloff),
            Mode(LightMode),
            Kind(LightKind),
        }
        let v = match tuning {
            LightTuning::Color => {
                let c: Vec<f64> = args.iter().filter_map(|a| a.parse::<f64>().ok()).collect();
                match c.as_slice() {
                    [r, g, b] if args.len() == 3 && c.iter().all(|x| (0.0..=1.0).contains(x)) => {
                        V::Color([*r, *g, *b])
                    }
                    _ => {
                        return Err(bad(
                            "takes three sRGB values in [0, 1]: lights.set <light> color r g b"
                                .to_string(),
                        ))
                    }
                }
            }
            LightTuning::Intensity => {
                let n = number(field, args)?;
                if n < 0.0 {
                    return Err(bad(format!("must not be negative, found {n}")));
                }
                V::Num(n)
            }
            LightTuning::Range => {
                let n = number(field, args)?;
                if n <= 0.0 {
                    return Err(bad(format!("must be above zero, found {n}")));
                }
                V::Num(n)
            }
            LightTuning::InnerCone | LightTuning::OuterCone => {
                let n = number(field, args)?;
                if !(0.0..180.0).contains(&n) {
                    return Err(bad(format!(
                        "is a half-angle in [0, 180) degrees, found {n}"
                    )));
                }
                V::Num(n)
            }
            LightTuning::Falloff => match args {
                [t] => V::Falloff(Falloff::parse(t).ok_or_else(|| {
                    bad(format!(
                        "'{t}' is not a falloff; the falloffs are: physical, unity"
                    ))
                })?),
                _ => return Err(bad("takes one falloff: physical or unity".to_string())),
            },
            LightTuning::Mode => match args {
                [t] => V::Mode(LightMode::parse(t).ok_or_else(|| {
                    bad(format!(
                        "'{t}' is not a mode; the modes are: realtime, baked, mixed"
                    ))
                })?),
                _ => return Err(bad("takes one mode: realtime, baked or mixed".to_string())),
            },
            LightTuning::Kind => match args {
                [t] => match LightKind::parse(t) {
                    Some(k) if k != LightKind::None => V::Kind(k),
                    _ => {
                        return Err(bad(format!(
                            "'{t}' is not a kind; the kinds are: point, spot, directional"
                        )))
                    }
                },
                _ => return Err(bad("takes one kind: point, spot or directional".to_string())),
            },
        };
        let hits = self.lights_matching(target);
        if hits.is_empty() {
            return Err(LightsError::NotFound(target.to_string()));
        }
        for (e, _) in &hits {
            let Ok(mut l) = self.world.get::<&mut Light>(*e) else {
                continue;
            };
            let l: &mut Light = &mut l;
            match (&v, tuning) {
                (V::Color(c), _) => l.patch.color = (*c != l.color_srgb).then_some(*c),
                (V::Num(n), LightTuning::Intensity) => {
                    l.patch.intensity = (*n != l.intensity).then_some(*n)
                }
                (V::Num(n), LightTuning::Range) => l.patch.range = (*n != l.range).then_some(*n),
                (V::Num(n), LightTuning::InnerCone) => {
                    l.patch.inner_cone = (*n != l.inner_cone).then_some(*n);
                    let outer = l.patch.outer_cone.unwrap_or(l.outer_cone);
                    if outer < *n + MIN_CONE_GAP {
                        let o = *n + MIN_CONE_GAP;
                        l.patch.outer_cone = (o != l.outer_cone).then_some(o);
                    }
                }
                (V::Num(n), LightTuning::OuterCone) => {
                    l.patch.outer_cone = (*n != l.outer_cone).then_some(*n);
                    let inner = l.patch.inner_cone.unwrap_or(l.inner_cone);
                    if inner > *n - MIN_CONE_GAP {
                        let i = (*n - MIN_CONE_GAP).max(0.0);
                        l.patch.inner_cone = (i != l.inner_cone).then_some(i);
                    }
                }
                (V::Falloff(f), _) => l.patch.falloff = (Some(*f) != l.falloff).then_some(*f),
                (V::Mode(m), _) => l.patch.mode = (*m != l.mode).then_some(*m),
                (V::Kind(k), _) => l.patch.kind = (*k != l.kind).then_some(*k),
                _ => {}
            }
        }
        let shown = match &v {
            V::Color(_) => format!("{} (sRGB)", args.join(" ")),
            _ => args.join(" "),
        };
        let on = match hits.as_slice() {
            [(_, name)] => name.clone(),
            many => format!("{} lights", many.len()),
        };
        Ok(format!(
            "lights.set: {} -> {shown} on {on}",
            tuning.as_str()
        ))
    }

    /// `lights.reset <target>`: drops every matching light's session edits.
    pub fn lights_reset(&mut self, target: &str) -> Result<String, LightsError> {
        let hits = self.lights_matching(target);
        if hits.is_empty() {
            return Err(LightsError::NotFound(target.to_string()));
        }
        let mut reverted = 0;
        for (e, _) in &hits {
            if let Ok(mut l) = self.world.get::<&mut Light>(*e) {
                if !l.patch.is_empty() {
                    reverted += 1;
                    l.patch = LightPatch::default();
                }
            }
        }
        Ok(match hits.as_slice() {
            [(_, name)] if reverted == 1 => format!("lights.reset: reverted {name}"),
            [(_, name)] => format!("lights.reset: {name} has no edits"),
            many => format!("lights.reset: reverted {reverted} of {} lights", many.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::fits;

    #[test]
    fn one_star_patterns() {
        assert!(fits("lamp*", "lamp"));
        assert!(fits("lamp*", "lampPost"));
        assert!(fits("*Door", "mainDoor"));
        assert!(fits("a*c", "abc"));
        assert!(!fits("a*c", "ac_"));
        assert!(!fits("ab*ba", "aba"));
        assert!(!fits("a**", "abc"));
        assert!(!fits("lamp", "lamp"));
    }
}
