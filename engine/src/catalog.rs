//! The mounted pallets: the embedded core pallet always, plus every `--pallet` file, and
//! finding a map or an object in them by the spec's short-first ladder ("a bare leaf name
//! (crate), the pallet-relative path (props/crate), or the full barcode
//! (dev.example.props:props/crate.dh-obj) all resolve", spec 003:138, "the same short-first
//! ladder the map command uses").

use std::borrow::Cow;
use std::path::Path;

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::pallet::Pallet;
use dh_content::read::parse_source;
use dh_content::read::Mode;
use dh_content::schema::map::{read_map, Map};

use crate::core_pallet::core_pallet;

/// Why a pallet could not be mounted or an asset found or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// The embedded core pallet is broken (a build of the engine with bad sources).
    #[error("{0}")]
    Core(String),
    /// A `--pallet` file that does not open.
    #[error("cannot open pallet {path}: {message}")]
    Open {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// Two mounted pallets with one id.
    #[error("pallet {path} has id '{id}', which is already mounted")]
    DuplicateId {
        /// The second file.
        path: String,
        /// The id.
        id: String,
    },
    /// Nothing answers to the name.
    #[error("no {kind} named '{name}'; the {kind}s are: {}", .available.join(", "))]
    NotFound {
        /// `map` or `object`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// Every barcode of that kind, sorted.
        available: Vec<String>,
    },
    /// More than one asset answers to a short name.
    #[error("'{name}' names more than one {kind}: {}; write more of its path", .matches.join(", "))]
    Ambiguous {
        /// `map` or `object`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The barcodes it could mean.
        matches: Vec<String>,
    },
    /// A `--pallet` source folder that does not build.
    #[error(transparent)]
    Build(#[from] crate::source_pallet::FolderBuildError),
    /// An entry that does not read or parse.
    #[error("{barcode}: {message}")]
    Read {
        /// The asset.
        barcode: String,
        /// Why.
        message: String,
    },
}

enum Mounted {
    Static(&'static Pallet),
    Owned(Box<Pallet>),
}

impl Mounted {
    fn pallet(&self) -> &Pallet {
        match self {
            Mounted::Static(p) => p,
            Mounted::Owned(p) => p,
        }
    }
}

/// The pallets a run has mounted, core first.
pub struct Catalog {
    pallets: Vec<Mounted>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

/// An asset found in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The pallet's id.
    pub pallet: String,
    /// The pallet-relative path.
    pub path: String,
}

impl Found {
    /// `pallet:path`.
    pub fn barcode(&self) -> String {
        format!("{}:{}", self.pallet, self.path)
    }
}

impl Catalog {
    /// The core pallet alone.
    pub fn with_core() -> Result<Catalog, CatalogError> {
        let core = core_pallet().map_err(|e| CatalogError::Core(e.to_string()))?;
        Ok(Catalog {
            pallets: vec![Mounted::Static(core)],
        })
    }

    /// Mounts a pallet file, or a source pallet folder compiled in process as `dh build`
    /// would ([`crate::source_pallet::build_folder`]; its warnings are the caller's to print,
    /// [`crate::source_pallet::prebuild`]).
    pub fn mount_file(&mut self, path: &Path) -> Result<(), CatalogError> {
        if crate::source_pallet::is_source_folder(path) {
            let built = crate::source_pallet::build_folder(path)?;
            let pallet = Pallet::from_bytes(built.bytes.as_ref().clone()).map_err(|e| {
                CatalogError::Open {
                    path: path.display().to_string(),
                    message: e.to_string(),
                }
            })?;
            return self.mount(pallet, &path.display().to_string());
        }
        let pallet = Pallet::open(path).map_err(|e| CatalogError::Open {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.mount(pallet, &path.display().to_string())
    }

    /// Mounts an opened pallet (`label` names it in errors).
    pub fn mount(&mut self, pallet: Pallet, label: &str) -> Result<(), CatalogError> {
        let id = pallet.manifest().id.clone();
        if self.ids().any(|m| m == id) {
            return Err(CatalogError::DuplicateId {
                path: label.to_string(),
                id,
            });
        }
        self.pallets.push(Mounted::Owned(Box::new(pallet)));
        Ok(())
    }

    /// The mounted pallets' ids, core first.
    pub fn ids(&self) -> impl Iterator<Item = String> + '_ {
        self.pallets
            .iter()
            .map(|m| m.pallet().manifest().id.clone())
    }

    fn by_id(&self, id: &str) -> Option<&Pallet> {
        self.pallets
            .iter()
            .map(Mounted::pallet)
            .find(|p| p.manifest().id == id)
    }

    /// The mounted pallet `id` (a voxel payload is read from it by range).
    pub fn pallet(&self, id: &str) -> Option<&Pallet> {
        self.by_id(id)
    }

    /// The pallet `id`'s declared dependencies.
    pub fn dependencies(&self, id: &str) -> Vec<String> {
        self.by_id(id)
            .map(|p| p.manifest().dependencies.clone())
            .unwrap_or_default()
    }

    /// Every asset whose path ends in `ext`, as barcodes, sorted.
    pub fn all(&self, ext: &str) -> Vec<Found> {
        let mut out: Vec<Found> = self
            .pallets
            .iter()
            .map(Mounted::pallet)
            .flat_map(|p| {
                let id = p.manifest().id.clone();
                p.entries()
                    .filter(|e| e.path.ends_with(ext))
                    .map(move |e| Found {
                        pallet: id.clone(),
                        path: e.path.to_string(),
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        out.sort_by_key(Found::barcode);
        out
    }

    /// Finds an asset of `kind` (`map` / `object`, with extension `ext`) by the short-first
    /// ladder: `pallet:path`, a pallet-relative path, or a bare leaf name; the extension may
    /// be left off each.
    pub fn find(&self, kind: &'static str, ext: &str, name: &str) -> Result<Found, CatalogError> {
        let all = self.all(ext);
        let with_ext = |s: &str| {
            if s.ends_with(ext) {
                s.to_string()
            } else {
                format!("{s}{ext}")
            }
        };
        let matches: Vec<&Found> = if let Some((pallet, path)) = name.split_once(':') {
            let path = with_ext(path.trim_start_matches('/'));
            all.iter()
                .filter(|f| f.pallet == pallet && f.path == path)
                .collect()
        } else if name.contains('/') {
            let path = with_ext(name.trim_start_matches('/'));
            all.iter().filter(|f| f.path == path).collect()
        } else {
            let leaf = with_ext(name);
            all.iter()
                .filter(|f| f.path.rsplit('/').next() == Some(leaf.as_str()))
                .collect()
        };
        match matches.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(CatalogError::NotFound {
                kind,
                name: name.to_string(),
                available: all.iter().map(Found::barcode).collect(),
            }),
            many => Err(CatalogError::Ambiguous {
                kind,
                name: name.to_string(),
                matches: many.iter().map(|f| f.barcode()).collect(),
            }),
        }
    }

    /// An entry's bytes.
    pub fn read(&self, found: &Found) -> Result<Cow<'_, [u8]>, CatalogError> {
        let p = self
            .by_id(&found.pallet)
            .ok_or_else(|| CatalogError::Read {
                barcode: found.barcode(),
                message: "its pallet is not mounted".into(),
            })?;
        p.read(&found.path).map_err(|e| CatalogError::Read {
            barcode: found.barcode(),
            message: e.to_string(),
        })
    }

    fn text(&self, found: &Found) -> Result<SourceFile, CatalogError> {
        let bytes = self.read(found)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| CatalogError::Read {
            barcode: found.barcode(),
            message: "not UTF-8".into(),
        })?;
        Ok(SourceFile::new(found.barcode(), text))
    }

    /// Finds and reads a map (`read_map` in load mode).
    pub fn load_map(&self, name: &str) -> Result<(Found, Map), CatalogError> {
        let found = self.find("map", ".dh-map", name)?;
        let file = self.text(&found)?;
        let mut diags = Diagnostics::new();
        match read_map(&file, &mut diags, Mode::Load) {
            Some(map) if !diags.has_errors() => Ok((found, map)),
            _ => Err(CatalogError::Read {
                barcode: found.barcode(),
                message: diags.to_string(),
            }),
        }
    }

    /// A compiled object's JSON by barcode (`pallet:path`), for the install's resolver.
    pub fn object_json(&self, barcode: &str) -> Result<dh_content::jsonc::Value, CatalogError> {
        let (pallet, path) = barcode.split_once(':').ok_or_else(|| CatalogError::Read {
            barcode: barcode.to_string(),
            message: "not a barcode (pallet:path)".into(),
        })?;
        let found = Found {
            pallet: pallet.to_string(),
            path: path.to_string(),
        };
        let file = self.text(&found)?;
        let mut diags = Diagnostics::new();
        parse_source(&file, &mut diags).ok_or_else(|| CatalogError::Read {
            barcode: barcode.to_string(),
            message: diags.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core() -> Catalog {
        Catalog::with_core().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_ladder_finds_a_map_by_every_spelling() {
        let c = core();
        let want = Found {
            pallet: "core".into(),
            path: "maps/logic-map.dh-map".into(),
        };
        for name in [
            "logic-map",
            "logic-map.dh-map",
            "maps/logic-map",
            "/maps/logic-map.dh-map",
            "core:maps/logic-map",
            "core:maps/logic-map.dh-map",
        ] {
            assert_eq!(c.find("map", ".dh-map", name), Ok(want.clone()), "{name}");
        }
    }

    #[test]
    fn an_unknown_map_lists_the_maps() {
        let e = core().find("map", ".dh-map", "logic").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no map named 'logic'; the maps are: core:maps/debug-map.dh-map, core:maps/logic-map.dh-map, core:maps/physics-eval.dh-map, core:maps/render-eval.dh-map"
        );
        assert!(matches!(
            core().find("map", ".dh-map", "other:maps/logic-map"),
            Err(CatalogError::NotFound { .. })
        ));
    }

    #[test]
    fn loads_the_logic_map_and_its_crate() {
        let c = core();
        let (found, map) = c.load_map("logic-map").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.barcode(), "core:maps/logic-map.dh-map");
        assert!(!map.objects.is_empty());
        let obj = c
            .object_json("core:objects/physicsCube.dh-obj")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(obj.get("components").is_some() || obj.get("resolved").is_some());
    }
}
