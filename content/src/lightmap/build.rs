//! What `dh build` does with a map's lightmap sidecar (spec 000 "Where a bake lives", "An
//! imported lightmap"): it packages the sidecar as it stands and never bakes. A map that asks
//! for a lightmap with no sidecar, one this build cannot read, or one baked for different
//! geometry (the sidecar's geometry hash against the map's, [`super::sidecar::geometry_hash`])
//! ships lit in real time with a warning naming the file, and never fails the build. An
//! imported lightmap is packed through `LightmapPageFit` ([`super::sidecar::fit_pages`]).

use super::sidecar::{fit_pages, Lightmap, Origin};

/// What ships for a map's lightmap.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The sidecar ships: `bytes` replaces it where the build rewrote it (page fitting),
    /// `notes` are warnings that do not stop it shipping.
    Ships {
        /// The sidecar as packed, where it differs from the source's.
        bytes: Option<Vec<u8>>,
        /// Warnings (a declared bake set the bake does not hold).
        notes: Vec<String>,
    },
    /// No lightmap ships; the map lights live. Why, naming the file.
    Live(String),
}

/// The sidecar beside a map source: `<map>.dh-lightmap`.
pub fn sidecar_path(map_path: &str) -> String {
    format!("{map_path}.dh-lightmap")
}

fn short(h: &[u8; 32]) -> String {
    h[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks the sidecar `file` (its bytes, if there is one) against the map: `geometry` is the
/// hash of the geometry the map places now (or why it cannot be known), `origin` the map's
/// `lighting.lightmap.origin`, `sets` every `(zone id, set name)` its bake zones declare.
pub fn check(
    file: &str,
    bytes: Option<&[u8]>,
    geometry: Result<[u8; 32], String>,
    origin: Origin,
    sets: &[(String, String)],
) -> Verdict {
    let Some(bytes) = bytes else {
        return Verdict::Live(format!(
            "there is no lightmap '{file}' beside it (bake one to ship it)"
        ));
    };
    let mut lm = match Lightmap::read(file, bytes) {
        Ok(lm) => lm,
        Err(e) => {
            return Verdict::Live(format!(
                "this build cannot read the lightmap '{file}' beside it ({e})"
            ))
        }
    };
    let geometry = match geometry {
        Ok(h) => h,
        Err(why) => {
            return Verdict::Live(format!(
                "the lightmap '{file}' cannot be checked against the map's geometry ({why})"
            ))
        }
    };
    if lm.geometry_hash != geometry {
        return Verdict::Live(format!(
            "the lightmap '{file}' is stale: it was baked for different geometry (its geometry hash {}…, the map's {}…; rebake it)",
            short(&lm.geometry_hash),
            short(&geometry)
        ));
    }
    let mut notes = Vec::new();
    for (zone, set) in sets {
        let held = lm.sets.iter().any(|s| {
            &s.name == set && lm.zones.get(usize::from(s.zone)).is_some_and(|z| z == zone)
        });
        if !held {
            notes.push(format!(
                "bake zone '{zone}' declares the set '{set}' and the lightmap '{file}' does not hold it (added since the last bake): the zone shows its default set until the next bake"
            ));
        }
    }
    let bytes = (origin == Origin::Imported && fit_pages(&mut lm) > 0).then(|| lm.write());
    Verdict::Ships { bytes, notes }
}
