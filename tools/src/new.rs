//! `dh new`: commented starter files with freshly minted ids.
//!
//! `dh new pallet <dir>` writes a source pallet (`pallet.dh` and `maps/main.dh-map`),
//! `dh new map <pallet dir>/<path>` a map and `dh new object <pallet dir>/<path>` an
//! object inside an existing source pallet. Every id is [`Guid::mint`]ed on the spot, and
//! every file builds with no errors and no warnings. Nothing is ever overwritten.
//!
//! The layout (the map at `maps/main.dh-map`, an id derived as `local.<folder>`, the
//! core pallet's dev materials) is ours: the spec names no starter pallet.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use dh_content::schema::common::Guid;
use dh_content::schema::manifest::is_valid_pallet_id;

/// Why `dh new` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// The target file is there already.
    #[error("{0} already exists; dh new never overwrites a file")]
    Exists(PathBuf),
    /// No `pallet.dh` in the folder or any folder above it.
    #[error("{0} is not inside a source pallet: no pallet.dh in its folder or any folder above it; run `dh new pallet <dir>` first")]
    NoPallet(PathBuf),
    /// The file's extension is not the kind's.
    #[error("{path} does not end in .{ext}; a {kind} is a .{ext} file")]
    WrongExtension {
        /// The path given.
        path: PathBuf,
        /// The kind's extension.
        ext: &'static str,
        /// The kind.
        kind: &'static str,
    },
    /// No pallet id could be derived from the folder's name.
    #[error("cannot derive a pallet id from the folder name '{0}'; give one with --barcode <id>, e.g. --barcode dev.example.props")]
    NoBarcode(String),
    /// `--barcode` is not a pallet id.
    #[error("'{0}' is not a pallet id; expected reverse-DNS segments of lowercase letters, digits and '-', e.g. dev.example.props")]
    BadBarcode(String),
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// What was being written.
        path: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
}

/// The pallet id `dh new pallet` gives a folder when `--barcode` is not given (ours): the
/// folder's name when it is already a pallet id, else `local.<name>` with the name
/// lowercased and every character a pallet id does not take made a `-`.
pub fn derive_pallet_id(folder_name: &str) -> Option<String> {
    if is_valid_pallet_id(folder_name) && folder_name != "core" {
        return Some(folder_name.to_string());
    }
    let slug: String = folder_name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-');
    let id = format!("local.{slug}");
    (!slug.is_empty() && is_valid_pallet_id(&id)).then_some(id)
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::new();
    dh_content::jsonc::write_string(s, &mut out);
    out
}

/// The text of a new `pallet.dh`.
fn manifest_text(id: &str, name: &str) -> String {
    format!(
        "\
// The pallet manifest (written by `dh new pallet`). `dh build` reads it first: a source
// pallet is the folder holding this file, and every other file under it is an asset.
{{
  // The pallet's id: reverse-DNS segments of lowercase letters, digits and '-'. Other pallets
  // and `dh-engine --map` reach this pallet's files as <id>:<path>, e.g. {id}:maps/main.dh-map.
  \"id\": {},
  // The name a pallet list shows.
  \"name\": {},
  // major.minor.patch.
  \"version\": \"0.1.0\",
  // Ids of the pallets this one references or inherits from. The engine's core pallet
  // (core:...) is always there and is not listed.
  \"dependencies\": [],
}}
",
        json_str(id),
        json_str(name)
    )
}

/// The text of a new map: a floor, a spawn point, a camera and a sun and sky to see by.
fn map_text(name: &str) -> String {
    let floor = Guid::mint();
    let spawn = Guid::mint();
    let camera = Guid::mint();
    format!(
        "\
// A map (dh.map; written by `dh new map`): a 32 m floor, a spawn point on it, a camera
// and a sun. Every member below is one the spec's dh.map defines; its field sets are closed,
// so a misspelled member is a build error, never a field that quietly does nothing.
{{
  // The display name (spec dh.map, \"Properties\").
  \"name\": {},
  \"description\": \"A starter map: a floor, a spawn point, a camera and a sun.\",
  // Material slots: the names boxes use, each bound to a dh.material (spec dh.map,
  // \"Materials\"). These are the engine core pallet's dev materials, which need no
  // dependency; a material of this pallet is \"/materials/<name>.dh-mat\".
  \"materials\": {{
    \"floor\": \"core:materials/dev-grid.dh-mat\",
    \"accent\": \"core:materials/dev-orange.dh-mat\",
  }},
  // The world's sun and ambient, and the procedural sky (spec dh.map, \"The world's sun
  // and ambient\" and \"Sky\"). Colors are sRGB in [0, 1]; intensities are linear.
  \"lighting\": {{
    // The direction sunlight travels: down, and a little sideways for shading.
    \"sunDirection\": [-0.35, -0.85, -0.4],
    \"sunColor\": [1, 1, 1],
    \"sunIntensity\": 1.0,
    \"ambientIntensity\": 0.35,
    // Draw the sky behind the geometry (off by default).
    \"sky\": true,
  }},
  // The map's records, each with an id unique in the map (spec dh.map, \"Records\").
  // The ids below were minted for this file; mint a new one for each record you add.
  \"objects\": [
    // The floor: a boxBrush is an object holding a dh.box (spec dh.map, \"boxBrush\").
    // position is the box's center and size its full extents in meters, so its top is
    // at y = 0. With no dh.collider authored it collides as its exact box.
    {{ \"$type\": \"boxBrush\", \"id\": \"{floor}\", \"name\": \"floor\", \"position\": [0, -0.5, 0], \"size\": [32, 1, 32], \"material\": \"floor\" }},
    // Where players appear (spec dh.map, \"dh.spawnPoint\"): position is the feet, and
    // rotation [pitch, yaw, roll] in degrees faces them; yaw 0 faces -Z.
    {{ \"$type\": \"object\", \"id\": \"{spawn}\", \"name\": \"spawn\", \"position\": [0, 0, 4], \"rotation\": [0, 0, 0],
      \"components\": [ {{ \"$type\": \"dh.spawnPoint\" }} ] }},
    // A named, repeatable shot (spec dh.map, \"dh.camera\"): the object's pose is the eye,
    // pitch first (negative looks down); fov is the vertical field of view in degrees.
    // `dh-engine render <out> --map <map> --camera overview` renders it.
    {{ \"$type\": \"object\", \"id\": \"{camera}\", \"name\": \"overview\", \"position\": [-12, 8, 12], \"rotation\": [-25, -45, 0],
      \"components\": [ {{ \"$type\": \"dh.camera\", \"fov\": 75 }} ] }},
  ],
}}
",
        json_str(name)
    )
}

/// The text of a new object: a box with a collider.
fn object_text(name: &str) -> String {
    format!(
        "\
// An object (dh.object; written by `dh new object`): a reusable piece a map places with an
// instance record, {{ \"$type\": \"instance\", \"id\": \"<a fresh id>\", \"source\": \"<this file>\" }}
// (spec dh.object, \"Records and overrides\").
{{
  // The display name (spec dh.object, \"Properties\").
  \"name\": {},
  // The root's components (spec dh.object, \"Components\" and \"An object's body\").
  \"components\": [
    // A box in the object's frame: size is its full extents in meters. An object has no
    // material slots, so material names a dh.material asset: here the core pallet's; one of
    // this pallet is \"/materials/<name>.dh-mat\".
    {{ \"$type\": \"dh.box\", \"size\": [0.5, 0.5, 0.5], \"material\": \"core:materials/dev-orange.dh-mat\" }},
    // What collides: with no shapes it stands as the exact box.
    {{ \"$type\": \"dh.collider\" }},
    // Add {{ \"$type\": \"dh.physicsProp\", \"mass\": 30, \"sim\": \"server\" }} to make it a
    // rigid body the players can push.
  ],
}}
",
        json_str(name)
    )
}

/// A display name from a file or folder name: `my-map` reads `My map`.
fn display_name(stem: &str) -> String {
    let spaced: String = stem
        .chars()
        .map(|c| if c == '-' || c == '_' { ' ' } else { c })
        .collect();
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Untitled".to_string(),
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> NewError + '_ {
    move |source| NewError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `text` to `path`, which must not exist yet, making its folders.
fn write_new(path: &Path, text: &str) -> Result<(), NewError> {
    if path.exists() {
        return Err(NewError::Exists(path.to_path_buf()));
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                NewError::Exists(path.to_path_buf())
            } else {
                NewError::Io {
                    path: path.to_path_buf(),
                    source: e,
                }
            }
        })?;
    f.write_all(text.as_bytes()).map_err(io_err(path))
}

/// What `dh new pallet` wrote.
pub struct NewPallet {
    /// The pallet's id.
    pub id: String,
    /// The files written.
    pub files: Vec<PathBuf>,
}

/// `dh new pallet <dir> [--barcode <id>]`.
pub fn new_pallet(dir: &Path, barcode: Option<&str>) -> Result<NewPallet, NewError> {
    let folder = std::path::absolute(dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let id = match barcode {
        Some(b) if is_valid_pallet_id(b) && b != "core" => b.to_string(),
        Some(b) => return Err(NewError::BadBarcode(b.to_string())),
        None => derive_pallet_id(&folder).ok_or_else(|| NewError::NoBarcode(folder.clone()))?,
    };
    let manifest = dir.join("pallet.dh");
    let map = dir.join("maps").join("main.dh-map");
    for p in [&manifest, &map] {
        if p.exists() {
            return Err(NewError::Exists(p.clone()));
        }
    }
    write_new(&manifest, &manifest_text(&id, &display_name(&folder)))?;
    write_new(&map, &map_text("Main"))?;
    Ok(NewPallet {
        id,
        files: vec![manifest, map],
    })
}

/// The source pallet folder `path` sits in: the nearest folder above it holding a
/// `pallet.dh`.
fn pallet_root(path: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(path).ok()?;
    abs.ancestors()
        .skip(1)
        .find(|d| d.join("pallet.dh").is_file())
        .map(Path::to_path_buf)
}

/// `path` with the kind's extension: added when it has none, refused when it has another.
fn with_extension(path: &Path, ext: &'static str, kind: &'static str) -> Result<PathBuf, NewError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with(&format!(".{ext}")) {
        Ok(path.to_path_buf())
    } else if name.is_empty() || name.contains('.') {
        Err(NewError::WrongExtension {
            path: path.to_path_buf(),
            ext,
            kind,
        })
    } else {
        let mut p = path.as_os_str().to_owned();
        p.push(format!(".{ext}"));
        Ok(PathBuf::from(p))
    }
}

/// A new map or object file inside an existing source pallet; returns the file written.
fn new_asset(
    path: &Path,
    ext: &'static str,
    kind: &'static str,
    text: fn(&str) -> String,
) -> Result<PathBuf, NewError> {
    let path = with_extension(path, ext, kind)?;
    if path.exists() {
        return Err(NewError::Exists(path));
    }
    pallet_root(&path).ok_or_else(|| NewError::NoPallet(path.clone()))?;
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.strip_suffix(&format!(".{ext}")).unwrap_or(&stem);
    write_new(&path, &text(&display_name(stem)))?;
    Ok(path)
}

/// `dh new map <pallet dir>/<path>`: `.dh-map` is added when the path has no extension.
pub fn new_map(path: &Path) -> Result<PathBuf, NewError> {
    new_asset(path, "dh-map", "map", map_text)
}

/// `dh new object <pallet dir>/<path>`: `.dh-obj` is added when the path has no extension.
pub fn new_object(path: &Path) -> Result<PathBuf, NewError> {
    new_asset(path, "dh-obj", "object", object_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pallet_ids_derive_from_folder_names() {
        assert_eq!(
            derive_pallet_id("My Game").as_deref(),
            Some("local.my-game")
        );
        assert_eq!(
            derive_pallet_id("dev.example.props").as_deref(),
            Some("dev.example.props")
        );
        assert_eq!(derive_pallet_id("core").as_deref(), Some("local.core"));
        assert_eq!(derive_pallet_id("__"), None);
    }

    #[test]
    fn display_names_read_like_titles() {
        assert_eq!(display_name("my-map"), "My map");
        assert_eq!(display_name(""), "Untitled");
    }
}
