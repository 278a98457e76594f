//! Where a Java save keeps its dimensions (spec dh.voxel, "Worlds", Dimensions).
//!
//! * A world folder holds `level.dat`. Its dimensions are read from both layouts: the
//!   current one, `dimensions/<namespace>/<path>/region` (every dimension, as 26.x writes
//!   it; 1.16 to 1.21 put only datapack dimensions there), and the previous one,
//!   `region`, `DIM-1/region` and `DIM1/region` at the root (the overworld, the nether
//!   and the end). Where a save holds both for one dimension, the current one is the
//!   dimension and the earlier folder is listed as superseded: it is what the game
//!   migrated away from.
//! * `minecraft:overworld` comes first, then the rest by id.
//! * Pointing at one dimension's folder (`dimensions/minecraft/the_nether`, `DIM-1`, or
//!   any folder with a `region` folder) imports that one alone; its id comes from where
//!   it sits, and a folder that says nothing is the overworld. The world's `level.dat`
//!   is looked for above it where the folder sits in a world's layout.
//! * A folder that holds `r.<x>.<z>.mca` files itself is read as a region folder (ours:
//!   how a region folder copied on its own, or a save that keeps its overworld regions
//!   beside `level.dat`, reads).
//! * Each dimension's entities (1.17 and later) are in the `entities` folder beside its
//!   `region` folder.

use std::path::{Path, PathBuf};

use super::region::parse_region_name;

/// A dimension's id in the current layout's terms.
pub const OVERWORLD: &str = "minecraft:overworld";
/// The nether's id.
pub const THE_NETHER: &str = "minecraft:the_nether";
/// The end's id.
pub const THE_END: &str = "minecraft:the_end";

/// Which layout a dimension's folder follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `dimensions/<namespace>/<path>`.
    Current,
    /// `region`, `DIM-1`, `DIM1` at the world's root.
    Previous,
    /// A folder pointed at on its own, or region files held directly.
    Folder,
}

/// One dimension of a save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dimension {
    /// Its id (`minecraft:overworld`).
    pub id: String,
    /// The layout it was found in.
    pub layout: Layout,
    /// The folder holding its `r.<x>.<z>.mca` files.
    pub region_dir: PathBuf,
    /// The folder holding its entity regions (1.17 and later), when there is one.
    pub entities_dir: Option<PathBuf>,
    /// Its region files, sorted by region coordinates (x, then z).
    pub regions: Vec<([i32; 2], PathBuf)>,
    /// An earlier layout's folder for the same dimension, which the current one
    /// supersedes and which is not read.
    pub superseded: Option<PathBuf>,
}

/// A save, as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Save {
    /// The folder given.
    pub root: PathBuf,
    /// The world's `level.dat`, when there is one.
    pub level_dat: Option<PathBuf>,
    /// Its dimensions, `minecraft:overworld` first, then by id.
    pub dimensions: Vec<Dimension>,
    /// Files noticed and not read (pre-Anvil `.mcr` regions, ...), each with why.
    pub notes: Vec<String>,
}

/// Why a folder is not a save.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// The folder could not be listed.
    #[error("{path}: cannot read the folder: {source}")]
    Io {
        /// The folder.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// No dimension with a region file was found.
    #[error("{path}: no Minecraft Java world here: expected a folder with level.dat and region files in region/, DIM-1/region, DIM1/region or dimensions/<namespace>/<name>/region, or one dimension's folder{}", if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) })]
    NotASave {
        /// The folder.
        path: String,
        /// What was seen instead.
        notes: Vec<String>,
    },
}

fn list(dir: &Path) -> Result<Vec<(String, PathBuf, bool)>, std::io::Error> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false)
            || (e.file_type().map(|t| t.is_symlink()).unwrap_or(false) && e.path().is_dir());
        out.push((name, e.path(), is_dir));
    }
    out.sort();
    Ok(out)
}

/// The region files directly in `dir`, sorted by coordinates, and notes on files that
/// look like regions and are not read.
fn region_files(dir: &Path, notes: &mut Vec<String>) -> Vec<([i32; 2], PathBuf)> {
    let Ok(entries) = list(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut mcr = 0usize;
    for (name, path, is_dir) in entries {
        if is_dir {
            continue;
        }
        if let Some(c) = parse_region_name(&name) {
            out.push((c, path));
        } else if name.ends_with(".mcr") {
            mcr += 1;
        }
    }
    if mcr > 0 {
        notes.push(format!(
            "{}: {mcr} McRegion file(s) (.mcr, before 1.2) are not read; open the world in a newer Minecraft once to convert it",
            dir.display()
        ));
    }
    out.sort_by_key(|(c, _)| *c);
    out
}

fn dimension(
    id: String,
    layout: Layout,
    folder: &Path,
    region_dir: PathBuf,
    notes: &mut Vec<String>,
) -> Option<Dimension> {
    let regions = region_files(&region_dir, notes);
    if regions.is_empty() {
        return None;
    }
    let entities = folder.join("entities");
    Some(Dimension {
        id,
        layout,
        entities_dir: (entities.is_dir() && entities != region_dir).then_some(entities),
        region_dir,
        regions,
        superseded: None,
    })
}

fn is_dimension_id_part(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-./".contains(&b))
}

/// The dimension a folder pointed at on its own is, from where it sits.
fn id_of_folder(folder: &Path) -> String {
    let name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = folder.parent();
    let grand = parent.and_then(Path::parent);
    let parent_name = parent.and_then(|p| p.file_name()).and_then(|n| n.to_str());
    let grand_name = grand.and_then(|p| p.file_name()).and_then(|n| n.to_str());
    match (name, parent_name, grand_name) {
        ("DIM-1", _, _) => THE_NETHER.to_string(),
        ("DIM1", _, _) => THE_END.to_string(),
        (path, Some(ns), Some("dimensions"))
            if is_dimension_id_part(ns) && is_dimension_id_part(path) =>
        {
            format!("{ns}:{path}")
        }
        _ => OVERWORLD.to_string(),
    }
}

/// The world's `level.dat` for a folder pointed at on its own: in it, or above it where
/// it sits in a world's layout.
fn level_dat_above(folder: &Path) -> Option<PathBuf> {
    let own = folder.join("level.dat");
    if own.is_file() {
        return Some(own);
    }
    let name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let up = match name {
        "DIM-1" | "DIM1" | "region" => folder.parent().map(Path::to_path_buf),
        _ => {
            let grand = folder.parent().and_then(Path::parent);
            let dims =
                grand.filter(|g| g.file_name().and_then(|n| n.to_str()) == Some("dimensions"));
            dims.and_then(Path::parent).map(Path::to_path_buf)
        }
    }?;
    let dat = up.join("level.dat");
    dat.is_file().then_some(dat)
}

/// Finds a save's dimensions at `root`: a world folder (with `level.dat`), or one
/// dimension's folder.
pub fn discover(root: &Path) -> Result<Save, SaveError> {
    let shown = root.display().to_string();
    let entries = list(root).map_err(|source| SaveError::Io {
        path: shown.clone(),
        source,
    })?;
    let mut notes = Vec::new();
    let has_level = root.join("level.dat").is_file();
    let mut dims: Vec<Dimension> = Vec::new();

    // The current layout.
    let dimensions = root.join("dimensions");
    if has_level && dimensions.is_dir() {
        for (ns, ns_path, is_dir) in list(&dimensions).unwrap_or_default() {
            if !is_dir {
                continue;
            }
            // A dimension's path may itself have slashes (`dimensions/ns/a/b`): walk down
            // to every folder holding a `region` folder.
            let mut stack = vec![(ns_path, String::new(), 0usize)];
            while let Some((dir, path, depth)) = stack.pop() {
                for (name, p, is_dir) in list(&dir).unwrap_or_default() {
                    if !is_dir || depth > 8 {
                        continue;
                    }
                    let sub = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}/{name}")
                    };
                    if p.join("region").is_dir() {
                        if let Some(d) = dimension(
                            format!("{ns}:{sub}"),
                            Layout::Current,
                            &p,
                            p.join("region"),
                            &mut notes,
                        ) {
                            dims.push(d);
                        }
                    } else {
                        stack.push((p, sub, depth + 1));
                    }
                }
            }
        }
    }

    // The previous layout (and, ours, region files held at the root itself).
    let mut previous = Vec::new();
    if has_level {
        for (id, folder) in [
            (OVERWORLD, root.to_path_buf()),
            (THE_NETHER, root.join("DIM-1")),
            (THE_END, root.join("DIM1")),
        ] {
            if let Some(d) = dimension(
                id.to_string(),
                Layout::Previous,
                &folder,
                folder.join("region"),
                &mut notes,
            ) {
                previous.push(d);
            }
        }
        if !previous.iter().any(|d| d.id == OVERWORLD) {
            if let Some(d) = dimension(
                OVERWORLD.to_string(),
                Layout::Folder,
                root,
                root.to_path_buf(),
                &mut notes,
            ) {
                previous.push(d);
            }
        }
    }
    for p in previous {
        match dims.iter_mut().find(|d| d.id == p.id) {
            Some(current) => current.superseded = Some(p.region_dir),
            None => dims.push(p),
        }
    }

    // One dimension's folder pointed at on its own.
    if dims.is_empty() {
        let folder_region = root.join("region");
        let id = id_of_folder(root);
        let found = if folder_region.is_dir() {
            dimension(id, Layout::Folder, root, folder_region, &mut notes)
        } else if root.file_name().and_then(|n| n.to_str()) == Some("region") {
            let parent = root.parent().unwrap_or(root);
            dimension(
                id_of_folder(parent),
                Layout::Folder,
                parent,
                root.to_path_buf(),
                &mut notes,
            )
        } else {
            dimension(id, Layout::Folder, root, root.to_path_buf(), &mut notes)
        };
        dims.extend(found);
    }

    if dims.is_empty() {
        if entries.is_empty() {
            notes.push("the folder is empty".into());
        }
        return Err(SaveError::NotASave { path: shown, notes });
    }
    dims.sort_by(|a, b| (a.id != OVERWORLD, &a.id).cmp(&(b.id != OVERWORLD, &b.id)));
    let level_dat = if has_level {
        Some(root.join("level.dat"))
    } else {
        level_dat_above(root)
    };
    Ok(Save {
        root: root.to_path_buf(),
        level_dat,
        dimensions: dims,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tmp(PathBuf);
    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn tmp(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("dh-save-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"").unwrap();
    }

    #[test]
    fn both_layouts_the_current_one_winning() {
        let t = tmp("both");
        let r = &t.0;
        touch(&r.join("level.dat"));
        touch(&r.join("region/r.0.0.mca"));
        touch(&r.join("region/r.-1.0.mca"));
        touch(&r.join("DIM-1/region/r.0.0.mca"));
        touch(&r.join("DIM1/region/r.0.0.mca"));
        touch(&r.join("dimensions/minecraft/the_nether/region/r.5.5.mca"));
        touch(&r.join("dimensions/mymod/deep/caves/region/r.0.0.mca"));
        std::fs::create_dir_all(r.join("entities")).unwrap();
        let s = discover(r).unwrap();
        let ids: Vec<&str> = s.dimensions.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, [OVERWORLD, THE_END, THE_NETHER, "mymod:deep/caves"]);
        let nether = &s.dimensions[2];
        assert_eq!(nether.layout, Layout::Current);
        assert_eq!(nether.regions.len(), 1);
        assert_eq!(nether.regions[0].0, [5, 5]);
        assert_eq!(
            nether.superseded.as_deref(),
            Some(r.join("DIM-1/region").as_path())
        );
        let over = &s.dimensions[0];
        assert_eq!(over.layout, Layout::Previous);
        assert_eq!(
            over.regions.iter().map(|r| r.0).collect::<Vec<_>>(),
            [[-1, 0], [0, 0]]
        );
        assert_eq!(
            over.entities_dir.as_deref(),
            Some(r.join("entities").as_path())
        );
        assert_eq!(s.level_dat.as_deref(), Some(r.join("level.dat").as_path()));
    }

    #[test]
    fn one_dimension_folder_alone() {
        let t = tmp("one");
        let r = &t.0;
        touch(&r.join("level.dat"));
        touch(&r.join("dimensions/minecraft/the_nether/region/r.0.0.mca"));
        touch(&r.join("DIM1/region/r.0.0.mca"));
        let s = discover(&r.join("dimensions/minecraft/the_nether")).unwrap();
        assert_eq!(s.dimensions.len(), 1);
        assert_eq!(s.dimensions[0].id, THE_NETHER);
        assert_eq!(s.level_dat.as_deref(), Some(r.join("level.dat").as_path()));
        let s = discover(&r.join("DIM1")).unwrap();
        assert_eq!(s.dimensions[0].id, THE_END);
        assert_eq!(s.level_dat.as_deref(), Some(r.join("level.dat").as_path()));
    }

    #[test]
    fn region_files_beside_level_dat_and_a_bare_region_folder() {
        let t = tmp("bare");
        let r = &t.0;
        touch(&r.join("w/level.dat"));
        touch(&r.join("w/r.0.0.mca"));
        touch(&r.join("bare/r.2.-3.mca"));
        touch(&r.join("bare/r.0.0.mcr"));
        let s = discover(&r.join("w")).unwrap();
        assert_eq!(s.dimensions.len(), 1);
        assert_eq!(s.dimensions[0].id, OVERWORLD);
        assert_eq!(s.dimensions[0].layout, Layout::Folder);
        let s = discover(&r.join("bare")).unwrap();
        assert_eq!(s.dimensions[0].regions[0].0, [2, -3]);
        assert!(s.level_dat.is_none());
        assert!(s.notes.iter().any(|n| n.contains(".mcr")), "{:?}", s.notes);
    }

    #[test]
    fn a_folder_with_no_regions_is_not_a_save() {
        let t = tmp("none");
        touch(&t.0.join("level.dat"));
        touch(&t.0.join("region/r.0.0.mcr"));
        let e = discover(&t.0).unwrap_err().to_string();
        assert!(
            e.contains("no Minecraft Java world") && e.contains(".mcr"),
            "{e}"
        );
    }
}
