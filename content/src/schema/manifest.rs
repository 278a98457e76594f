//! `pallet.dh`: the manifest at a source pallet's root.

use crate::diag::{Diagnostics, SourceFile};
use crate::read::{parse_source, read_block, Cx, Mode};

/// The id every build can reference without declaring it: the engine's core pallet.
pub const CORE_PALLET_ID: &str = "core";

block! {
    /// The manifest of a source pallet.
    pub struct PalletManifestSource = "pallet.dh" {
        /// Reverse-DNS id (`dev.example.props`); `core` for the engine's core pallet.
        req id: String = "id",
        /// Display name.
        req name: String = "name",
        /// Version, `major.minor.patch`.
        req version: String = "version",
        /// Ids of the pallets this one references.
        list dependencies: String = "dependencies",
        /// The look every map in the pallet picks up (a reference or a built-in slug).
        opt look: String = "look",
        /// A description.
        opt description: String = "description",
    }
}

/// Whether `id` is a valid pallet id: `core`, or two or more dot-separated segments of
/// lowercase letters, digits and `-`, each starting with a letter or digit.
pub fn is_valid_pallet_id(id: &str) -> bool {
    if id == CORE_PALLET_ID {
        return true;
    }
    let segments: Vec<&str> = id.split('.').collect();
    segments.len() >= 2
        && segments.iter().all(|s| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !s.starts_with('-')
        })
}

fn is_valid_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()))
}

impl PalletManifestSource {
    /// Runs the manifest's rules.
    pub fn validate(&self, cx: &mut Cx) {
        let at = self.at.clone();
        if !self.id.is_empty() && !is_valid_pallet_id(&self.id) {
            cx.error_at(
                &at,
                at.field("id"),
                format!(
                    "'{}' is not a pallet id; expected reverse-DNS segments of lowercase letters, digits and '-', e.g. dev.example.props",
                    self.id
                ),
            );
        }
        if !self.version.is_empty() && !is_valid_version(&self.version) {
            cx.error_at(
                &at,
                at.field("version"),
                format!(
                    "'{}' is not a version; expected major.minor.patch, e.g. 1.0.0",
                    self.version
                ),
            );
        }
        for (i, d) in self.dependencies.iter().enumerate() {
            let span = at.field("dependencies");
            if !is_valid_pallet_id(d) {
                cx.error_at(
                    &at,
                    span,
                    format!("dependencies[{i}]: '{d}' is not a pallet id"),
                );
            } else if d == &self.id {
                cx.error_at(
                    &at,
                    span,
                    format!("dependencies[{i}]: a pallet cannot depend on itself ('{d}')"),
                );
            } else if d == CORE_PALLET_ID {
                cx.warning_at(
                    &at,
                    span,
                    format!(
                        "dependencies[{i}]: 'core' is always available and need not be declared"
                    ),
                );
            } else if self.dependencies[..i].contains(d) {
                cx.error_at(
                    &at,
                    span,
                    format!("dependencies[{i}]: '{d}' is listed twice"),
                );
            }
        }
    }

    /// Whether references into pallet `id` are allowed from this pallet.
    pub fn may_reference(&self, id: &str) -> bool {
        id == CORE_PALLET_ID || id == self.id || self.dependencies.iter().any(|d| d == id)
    }
}

/// Reads and checks a `pallet.dh`.
pub fn read_manifest(
    file: &SourceFile,
    diags: &mut Diagnostics,
    mode: Mode,
) -> Option<PalletManifestSource> {
    let v = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let m = read_block::<PalletManifestSource>(&mut cx, &v)?;
    m.validate(&mut cx);
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Vec<String> {
        let f = SourceFile::new("pallet.dh", text);
        let mut d = Diagnostics::new();
        read_manifest(&f, &mut d, Mode::Build);
        d.items.iter().map(|d| d.to_string()).collect()
    }

    #[test]
    fn valid_and_invalid() {
        assert!(check(r#"{"id":"dev.example.props","name":"Props","version":"1.0.0","dependencies":["com.mojang.minecraft"]}"#).is_empty());
        assert!(check(r#"{"id":"core","name":"Core","version":"1.0.0"}"#).is_empty());
        let d = check(r#"{"id":"Props","name":"x","version":"1.0"}"#);
        assert!(d[0].contains("'Props' is not a pallet id"), "{d:?}");
        assert!(d[1].contains("'1.0' is not a version"), "{d:?}");
        let d = check(
            r#"{"id":"a.b","name":"x","version":"1.0.0","dependencies":["a.b","c.d","c.d"]}"#,
        );
        assert!(d[0].contains("cannot depend on itself"), "{d:?}");
        assert!(d[1].contains("'c.d' is listed twice"), "{d:?}");
        let d = check(r#"{"name":"x","version":"1.0.0","ids":[]}"#);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].contains("pallet.dh is missing its required member 'id'"),
            "{d:?}"
        );
        assert!(d[1].contains("unknown member 'ids' in pallet.dh"), "{d:?}");
    }
}
