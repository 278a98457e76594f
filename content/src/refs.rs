//! References and barcodes. One rule for every reference an asset states: relative to the
//! folder of the file that states it, `/` for the pallet root, `palletId:path` across
//! pallets (the pallet must be a declared dependency), and `core:` always available.

use std::fmt;

use crate::schema::manifest::CORE_PALLET_ID;

/// A resolved reference: a pallet id and a normalized path inside it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Barcode {
    /// The pallet's id.
    pub pallet: String,
    /// `/`-separated, no leading `/`, no `.` or `..` segments.
    pub path: String,
}

impl fmt::Display for Barcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.pallet, self.path)
    }
}

/// Why a reference does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// Empty string.
    #[error("an empty reference")]
    Empty,
    /// `..` above the pallet root.
    #[error("'{0}' climbs above the pallet root")]
    AboveRoot(String),
    /// Backslashes, empty segments and the like.
    #[error(
        "'{0}' is not a valid path; use '/'-separated names without empty segments or backslashes"
    )]
    BadPath(String),
    /// A pallet the file's pallet does not declare.
    #[error("'{reference}' names pallet '{pallet}', which this pallet does not declare in its dependencies")]
    Undeclared {
        /// The reference as written.
        reference: String,
        /// Its pallet id.
        pallet: String,
    },
}

/// Resolves `reference`, stated in the file at `from_file` (a pallet-relative path) of
/// pallet `pallet`, whose declared dependencies are `dependencies`.
pub fn resolve(
    reference: &str,
    pallet: &str,
    from_file: &str,
    dependencies: &[String],
) -> Result<Barcode, RefError> {
    if reference.is_empty() {
        return Err(RefError::Empty);
    }
    if reference.contains('\\') {
        return Err(RefError::BadPath(reference.to_string()));
    }
    if let Some((id, path)) = split_barcode(reference) {
        if id != CORE_PALLET_ID && id != pallet && !dependencies.iter().any(|d| d == id) {
            return Err(RefError::Undeclared {
                reference: reference.to_string(),
                pallet: id.to_string(),
            });
        }
        let path = normalize(&[], path.trim_start_matches('/'), reference)?;
        return Ok(Barcode {
            pallet: id.to_string(),
            path,
        });
    }
    let path = if let Some(rooted) = reference.strip_prefix('/') {
        normalize(&[], rooted, reference)?
    } else {
        let folder: Vec<&str> = match from_file.rfind('/') {
            Some(i) => from_file[..i].split('/').collect(),
            None => Vec::new(),
        };
        normalize(&folder, reference, reference)?
    };
    Ok(Barcode {
        pallet: pallet.to_string(),
        path,
    })
}

/// Splits `id:path` when the part before the first `:` is a pallet id (`core`, or
/// dot-separated segments).
pub fn split_barcode(reference: &str) -> Option<(&str, &str)> {
    let (id, path) = reference.split_once(':')?;
    let valid = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    valid.then_some((id, path))
}

fn normalize(base: &[&str], rel: &str, original: &str) -> Result<String, RefError> {
    let mut out: Vec<&str> = base.to_vec();
    for seg in rel.split('/') {
        match seg {
            "" => return Err(RefError::BadPath(original.to_string())),
            "." => {}
            ".." => {
                if out.pop().is_none() {
                    return Err(RefError::AboveRoot(original.to_string()));
                }
            }
            s => out.push(s),
        }
    }
    if out.is_empty() {
        return Err(RefError::BadPath(original.to_string()));
    }
    Ok(out.join("/"))
}

/// The `/`-form of a pallet path, offered when a relative reference misses but the pallet
/// root holds the file.
pub fn rooted_form(path: &str) -> String {
    format!("/{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(reference: &str, from: &str) -> Result<String, RefError> {
        resolve(
            reference,
            "dev.example.maps",
            from,
            &["com.mojang.minecraft".to_string()],
        )
        .map(|b| b.to_string())
    }

    #[test]
    fn the_one_rule() {
        assert_eq!(
            r("grid.dh-mat", "maps/lobby.dh-map").unwrap(),
            "dev.example.maps:maps/grid.dh-mat"
        );
        assert_eq!(
            r("/materials/grid.dh-mat", "maps/lobby.dh-map").unwrap(),
            "dev.example.maps:materials/grid.dh-mat"
        );
        assert_eq!(
            r("../materials/grid.dh-mat", "maps/lobby.dh-map").unwrap(),
            "dev.example.maps:materials/grid.dh-mat"
        );
        assert_eq!(
            r("materials/dev-grid.dh-mat", "debug.dh-map").unwrap(),
            "dev.example.maps:materials/dev-grid.dh-mat"
        );
        assert_eq!(
            r("core:materials/dev-grid-white.dh-mat", "maps/a.dh-map").unwrap(),
            "core:materials/dev-grid-white.dh-mat"
        );
        assert_eq!(
            r(
                "com.mojang.minecraft:maps/environment.dh-map",
                "maps/a.dh-map"
            )
            .unwrap(),
            "com.mojang.minecraft:maps/environment.dh-map"
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(
            r("../../x.dh-mat", "maps/a.dh-map"),
            Err(RefError::AboveRoot("../../x.dh-mat".into()))
        );
        assert_eq!(
            r("dev.other:materials/x.dh-mat", "maps/a.dh-map"),
            Err(RefError::Undeclared {
                reference: "dev.other:materials/x.dh-mat".into(),
                pallet: "dev.other".into()
            })
        );
        assert!(matches!(r("a//b", "x"), Err(RefError::BadPath(_))));
        assert!(matches!(r("a\\b", "x"), Err(RefError::BadPath(_))));
        assert_eq!(r("", "x"), Err(RefError::Empty));
        assert_eq!(
            RefError::Undeclared {
                reference: "a.b:x".into(),
                pallet: "a.b".into()
            }
            .to_string(),
            "'a.b:x' names pallet 'a.b', which this pallet does not declare in its dependencies"
        );
    }
}
