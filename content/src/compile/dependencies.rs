//! The compiled pallets a build mounts for the pallets its sources depend on.
//!
//! A map's parent is named by barcode, so it may live in another pallet, and so may an
//! object variant's base (spec, dh.map "Inheritance"; dh.object `inherits`). To fold and
//! check such a chain at build, `dh build` mounts the compiled dependency pallets: the
//! `.pallet` files a `--pallet PATH` names, and the ones lying beside the source pallet's
//! folder (where `dh build` writes each pallet by default, `<dir>.pallet`). A file is
//! matched to a dependency by the id its manifest records, never by its name.
//!
//! What is mounted is every declared dependency that is found, then (transitively) every
//! dependency a mounted pallet declares, and the engine's core pallet when one is found
//! (a chain may reach `core:` without declaring it). A `--pallet` that does not open is an
//! error; one that is not a dependency is a warning and is not mounted. A `.pallet` beside
//! the source that does not open is skipped, and named when a dependency it might have
//! been turns out absent. A dependency that is absent is not a fault on its own: the build
//! says so once, naming it, when a chain needs it (see [`crate::compile`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::diag::Diagnostics;
use crate::fold::Level;
use crate::jsonc::Value;
use crate::pallet::Pallet;
use crate::refs::Barcode;
use crate::schema::manifest::CORE_PALLET_ID;

use super::MAX_JSON_SOURCE;

/// Where a build looks for its dependencies' compiled pallets.
#[derive(Debug, Clone, Default)]
pub struct DependencySearch {
    /// `.pallet` files named on the command line (`dh build --pallet PATH`, repeatable), in
    /// the order given. They win over a file of the same id beside the source.
    pub pallets: Vec<PathBuf>,
    /// A folder whose `.pallet` files are looked through as well: the one the source
    /// pallet's folder sits in.
    pub beside: Option<PathBuf>,
}

impl DependencySearch {
    /// The search `dh build <dir>` makes: `explicit` files, then the `.pallet` files beside
    /// `dir`.
    pub fn for_source(dir: &Path, explicit: &[PathBuf]) -> DependencySearch {
        let beside = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.parent().map(Path::to_path_buf));
        DependencySearch {
            pallets: explicit.to_vec(),
            beside,
        }
    }
}

struct Mounted {
    pallet: Pallet,
    /// Where it came from, for messages.
    file: String,
}

/// The compiled dependency pallets a build has mounted, by id.
#[derive(Default)]
pub struct Dependencies {
    mounted: BTreeMap<String, Mounted>,
    /// `.pallet` files beside the source that did not open: (file, why).
    unreadable: Vec<(String, String)>,
}

impl std::fmt::Debug for Dependencies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.mounted.iter().map(|(id, m)| (id, &m.file)))
            .finish()
    }
}

impl Dependencies {
    /// No dependency mounted.
    pub fn none() -> Dependencies {
        Dependencies::default()
    }

    /// Pallets already opened (an embedder's, or a test's), each mounted under its own id;
    /// a second pallet of one id is left out.
    pub fn from_pallets(pallets: impl IntoIterator<Item = Pallet>) -> Dependencies {
        let mut d = Dependencies::default();
        for pallet in pallets {
            let id = pallet.manifest().id.clone();
            let file = pallet.name().to_string();
            d.mounted.entry(id).or_insert(Mounted { pallet, file });
        }
        d
    }

    /// Finds and mounts what pallet `own_id`, declaring `declared`, depends on, by
    /// `search`. Problems with the search itself go to `diags` (against `pallet.dh`).
    pub fn find(
        search: &DependencySearch,
        own_id: &str,
        declared: &[String],
        diags: &mut Diagnostics,
    ) -> Dependencies {
        let mut out = Dependencies::default();
        // Every candidate by id: the explicit ones first (in order), then the ones beside.
        let mut found: BTreeMap<String, Mounted> = BTreeMap::new();
        let mut explicit_ids: Vec<(String, String)> = Vec::new();
        for path in &search.pallets {
            let file = path.display().to_string();
            match Pallet::open(path) {
                Ok(pallet) => {
                    let id = pallet.manifest().id.clone();
                    explicit_ids.push((id.clone(), file.clone()));
                    found.entry(id).or_insert(Mounted { pallet, file });
                }
                Err(e) => diags.file_error(
                    "pallet.dh",
                    format!("--pallet {file} does not open as a compiled pallet: {e}"),
                ),
            }
        }
        if let Some(dir) = &search.beside {
            for path in pallet_files(dir) {
                let file = path.display().to_string();
                match Pallet::open(&path) {
                    Ok(pallet) => {
                        let id = pallet.manifest().id.clone();
                        if id != own_id {
                            found.entry(id).or_insert(Mounted { pallet, file });
                        }
                    }
                    Err(e) => out.unreadable.push((file, e.to_string())),
                }
            }
        }
        // What is wanted: the declared dependencies, what a mounted one declares, and core.
        let mut queue: Vec<String> = declared.to_vec();
        queue.push(CORE_PALLET_ID.to_string());
        let mut seen: BTreeSet<String> = BTreeSet::new();
        while let Some(id) = queue.pop() {
            if id == own_id || !seen.insert(id.clone()) {
                continue;
            }
            if let Some(m) = found.remove(&id) {
                queue.extend(m.pallet.manifest().dependencies.iter().cloned());
                out.mounted.insert(id, m);
            }
        }
        for (id, file) in explicit_ids {
            if !out.mounted.contains_key(&id) && id != own_id {
                diags.items.push(crate::diag::Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    file: "pallet.dh".to_string(),
                    line: 0,
                    col: 0,
                    path: "dependencies".to_string(),
                    message: format!(
                        "--pallet {file} is pallet '{id}', which this pallet does not depend on (its dependencies: {}); it is not mounted",
                        if declared.is_empty() {
                            "none".to_string()
                        } else {
                            declared.join(", ")
                        }
                    ),
                });
            } else if id == own_id {
                diags.items.push(crate::diag::Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    file: "pallet.dh".to_string(),
                    line: 0,
                    col: 0,
                    path: "dependencies".to_string(),
                    message: format!(
                        "--pallet {file} is this pallet itself ('{id}'); a build reads its own sources, so it is not mounted"
                    ),
                });
            }
        }
        out
    }

    /// The files of the mounted pallets other than core (which the engine embeds), in id
    /// order: what a build hands the engine beside its own pallet when it photographs a map.
    pub fn files(&self) -> Vec<PathBuf> {
        self.mounted
            .iter()
            .filter(|(id, _)| id.as_str() != CORE_PALLET_ID)
            .map(|(_, m)| PathBuf::from(&m.file))
            .filter(|p| p.is_file())
            .collect()
    }

    /// Whether pallet `id` is mounted.
    pub fn contains(&self, id: &str) -> bool {
        self.mounted.contains_key(id)
    }

    /// The mounted pallet `id`.
    pub fn pallet(&self, id: &str) -> Option<&Pallet> {
        self.mounted.get(id).map(|m| &m.pallet)
    }

    /// The file pallet `id` was mounted from.
    pub fn file(&self, id: &str) -> Option<&str> {
        self.mounted.get(id).map(|m| m.file.as_str())
    }

    /// The mounted pallets' ids, sorted.
    pub fn ids(&self) -> impl Iterator<Item = &str> + '_ {
        self.mounted.keys().map(String::as_str)
    }

    /// The `.pallet` files beside the source that did not open, with why.
    pub fn unreadable(&self) -> &[(String, String)] {
        &self.unreadable
    }

    /// The compiled JSON of asset `b` in a mounted pallet, parsed; `None` when its pallet
    /// is not mounted, it has no such entry, or the entry is not JSON text (a compiled
    /// pallet's JSON assets are the build's own canonical JSON).
    pub fn json(&self, b: &Barcode) -> Option<Value> {
        let pallet = self.pallet(&b.pallet)?;
        let entry = pallet.entry(&b.path)?;
        if entry.raw_len > MAX_JSON_SOURCE {
            return None;
        }
        let bytes = pallet.read(&b.path).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        crate::jsonc::parse(text).ok()
    }

    /// Asset `b` as a level of an inheritance chain: its compiled JSON (less the `$type`
    /// the compiler added), read the way its own file states its references, with its
    /// pallet's declared dependencies.
    pub fn level(&self, b: &Barcode) -> Option<Level> {
        let mut json = self.json(b)?;
        // The `$type` a build adds to every compiled asset is the compiler's, not the
        // author's: a level carries what its source stated.
        if let crate::jsonc::Kind::Object(members) = &mut json.kind {
            members.retain(|m| m.key != "$type");
        }
        let dependencies = self.pallet(&b.pallet)?.manifest().dependencies.clone();
        Some(Level::new(b.clone(), json, dependencies))
    }

    /// Pallet `id`'s `buildInfo.contentChecksum`, when mounted.
    pub fn content_checksum(&self, id: &str) -> Option<&str> {
        self.pallet(id)
            .map(|p| p.manifest().build_info.content_checksum.as_str())
    }
}

/// The `.pallet` files directly in `dir`, sorted by name (none when it does not read).
fn pallet_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .flatten()
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pallet"))
        .collect();
    out.sort();
    out
}
