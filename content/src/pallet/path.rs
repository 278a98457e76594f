//! Entry path rules, shared by the writer and the reader.

use super::error::PalletError;
use super::format::MAX_PATH_LEN;

/// Why `path` is not a valid entry path, or `None` if it is.
pub(crate) fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.len() > MAX_PATH_LEN {
        return Some("is longer than 1024 bytes");
    }
    if path.starts_with('/') {
        return Some("starts with `/` (entry paths are relative to the pallet root)");
    }
    if path.contains('\\') {
        return Some("contains a backslash (the separator is `/`)");
    }
    if path.contains(':') {
        return Some("contains `:` (reserved for `palletId:path` references)");
    }
    if path.chars().any(char::is_control) {
        return Some("contains a control character");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Some("has an empty segment (`//` or a trailing `/`)"),
            "." => return Some("has a `.` segment"),
            ".." => return Some("has a `..` segment"),
            _ => {}
        }
    }
    None
}

/// Checks that `path` is a valid entry path: non-empty, at most 1024 bytes, relative,
/// `/`-separated, with no empty, `.` or `..` segment, no backslash, no `:` and no
/// control character.
pub fn check_path(path: &str) -> Result<(), PalletError> {
    match path_problem(path) {
        None => Ok(()),
        Some(reason) => Err(PalletError::InvalidPath {
            path: path.to_owned(),
            reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_paths() {
        for p in [
            "a",
            "maps/atrium.dh-map",
            "textures/dev/grid 1.png",
            "a/b/c.d.e",
            "..a/b..",
        ] {
            assert!(check_path(p).is_ok(), "{p}");
        }
    }

    #[test]
    fn refuses_bad_paths() {
        let long = "a".repeat(1025);
        for p in [
            "",
            "/abs",
            "a//b",
            "a/",
            "a/../b",
            "..",
            "./a",
            "a\\b",
            "C:/x",
            "core:a",
            "a\nb",
            "a\0b",
            long.as_str(),
        ] {
            let err = check_path(p).unwrap_err();
            assert!(matches!(err, PalletError::InvalidPath { .. }), "{p}");
        }
        assert!(check_path(&"a".repeat(1024)).is_ok());
    }
}
