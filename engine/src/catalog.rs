//! The mounted pallets: the embedded core pallet always, plus every `--pallet` file, and
//! finding a map or an object in them by the spec's short-first ladder ("a bare leaf name
//! (crate), the pallet-relative path (props/crate), or the full barcode
//! (dev.example.props:props/crate.dh-obj) all resolve", spec 003:138, "the same short-first
//! ladder the map command uses").

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dh_content::diag::{Diagnostics, Severity, SourceFile};
use dh_content::fold::{
    fold_map_chain, gather_chain, resolve_material_chain, resolve_object, ChainKind, ChainScope,
    Level, Looks,
};
use dh_content::jsonc::{Kind, Member, Span, Value};
use dh_content::pallet::Pallet;
use dh_content::read::parse_source;
use dh_content::read::Mode;
use dh_content::refs::Barcode;
use dh_content::schema::map::{classify_look, read_map, LookRef, Map};

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
    #[error("no {kind} named '{name}'; the {kind}s are: {}{}", .available.join(", "), .suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    NotFound {
        /// `map` or `object`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// Every barcode of that kind, sorted.
        available: Vec<String>,
        /// The nearest asset, written the way `name` was (a leaf, a path or a barcode,
        /// with or without the extension), when one is near.
        suggestion: Option<String>,
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

/// The asset of `all` nearest to `name` (one that [`Catalog::find`] did not find), in the
/// form `name` was written: a barcode, a pallet-relative path or a bare leaf, with the
/// extension `ext` only when `name` carried it.
fn suggest_asset(all: &[Found], ext: &str, name: &str) -> Option<String> {
    let keep_ext = name.ends_with(ext);
    let strip = |s: String| match s.strip_suffix(ext) {
        Some(bare) if !keep_ext => bare.to_string(),
        _ => s,
    };
    let forms: Vec<String> = all
        .iter()
        .map(|f| {
            if name.contains(':') {
                strip(f.barcode())
            } else if name.contains('/') {
                let lead = if name.starts_with('/') { "/" } else { "" };
                format!("{lead}{}", strip(f.path.clone()))
            } else {
                strip(f.path.rsplit('/').next().unwrap_or(&f.path).to_string())
            }
        })
        .collect();
    dh_content::diag::closest(name, forms.iter().map(String::as_str)).map(str::to_string)
}

enum Mounted {
    Static(&'static Pallet),
    /// A mounted pallet, shared with the threads that read it (a platform pallet's
    /// blocks are read on a streaming thread), and the file or source folder it was
    /// mounted from, when it was.
    Owned(Arc<Pallet>, Option<PathBuf>),
}

impl Mounted {
    fn pallet(&self) -> &Pallet {
        match self {
            Mounted::Static(p) => p,
            Mounted::Owned(p, _) => p,
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

/// A map as a run loads it: its inheritance chain folded into one map (spec, dh.map
/// "Inheritance": "the chain is folded at load").
#[derive(Debug, Clone)]
pub struct LoadedMap {
    /// The map asked for (the chain's leaf).
    pub found: Found,
    /// The folded map.
    pub map: Map,
    /// The chain's maps, root first, the leaf last (the leaf alone when it inherits
    /// nothing).
    pub chain: Vec<String>,
    /// The pallets the folded map's references may name: every pallet of the chain and
    /// every dependency each declares (a parent's references are barcodes in its own
    /// pallet, which may name a pallet the leaf's does not declare).
    pub dependencies: Vec<String>,
    /// What the fold says for the load log, once each: a record restating an inherited
    /// id, left out; a look this host does not read yet.
    pub notes: Vec<String>,
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
            self.mount(pallet, &path.display().to_string())?;
            self.set_origin(path);
            return Ok(());
        }
        let pallet = Pallet::open(path).map_err(|e| CatalogError::Open {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.mount(pallet, &path.display().to_string())?;
        self.set_origin(path);
        Ok(())
    }

    /// Records where the pallet mounted last came from.
    fn set_origin(&mut self, path: &Path) {
        if let Some(Mounted::Owned(_, origin)) = self.pallets.last_mut() {
            *origin = Some(path.to_path_buf());
        }
    }

    /// The mounted pallet `id`, shared (a streaming thread reads a platform pallet's
    /// blocks while the catalog lives on); `None` for the core pallet or an id not
    /// mounted.
    pub fn pallet_shared(&self, id: &str) -> Option<Arc<Pallet>> {
        self.pallets.iter().find_map(|m| match m {
            Mounted::Owned(p, _) if p.manifest().id == id => Some(p.clone()),
            _ => None,
        })
    }

    /// The file or source folder pallet `id` was mounted from (`None` for one mounted
    /// from memory, and for the core pallet).
    pub fn origin(&self, id: &str) -> Option<&Path> {
        self.pallets.iter().find_map(|m| match m {
            Mounted::Owned(p, o) if p.manifest().id == id => o.as_deref(),
            _ => None,
        })
    }

    /// How many pallets are mounted, core included.
    pub fn len(&self) -> usize {
        self.pallets.len()
    }

    /// Whether no pallet is mounted (never, once built: the core is always there).
    pub fn is_empty(&self) -> bool {
        self.pallets.is_empty()
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
        self.pallets.push(Mounted::Owned(Arc::new(pallet), None));
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
                suggestion: suggest_asset(&all, ext, name),
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

    /// Finds and reads a map (`read_map` in load mode), its inheritance chain folded
    /// ([`Catalog::load_map_folded`]).
    pub fn load_map(&self, name: &str) -> Result<(Found, Map), CatalogError> {
        self.load_map_folded(name).map(|l| (l.found, l.map))
    }

    /// Finds a map and folds its inheritance chain at load (spec, dh.map "Inheritance"
    /// and "How each member folds"): every parent is read from the mounted pallets, its
    /// references rewritten to barcodes in its own pallet, and the levels folded by the
    /// one rules table ([`dh_content::fold::MAP_FOLD_RULES`]) over the leaf pallet's
    /// default look (`pallet.dh`'s `look`). A parent that is not mounted, a circular
    /// chain, a parent that is not a map and a parent that places a model are errors; a
    /// record whose id a parent already holds is left out with the spec's warning (in
    /// [`LoadedMap::notes`]).
    pub fn load_map_folded(&self, name: &str) -> Result<LoadedMap, CatalogError> {
        let found = self.find("map", ".dh-map", name)?;
        let file = self.text(&found)?;
        let read_err = |found: &Found, diags: &Diagnostics| CatalogError::Read {
            barcode: found.barcode(),
            message: diags.to_string(),
        };
        let mut diags = Diagnostics::new();
        let Some(json) = parse_source(&file, &mut diags) else {
            return Err(read_err(&found, &diags));
        };
        let pallet_default = self
            .by_id(&found.pallet)
            .and_then(|p| p.manifest().default_look.clone());
        let inherits = json.get("inherits").is_some_and(|v| v.as_str().is_some());
        let own_deps = self.dependencies(&found.pallet);
        if !inherits && pallet_default.is_none() {
            return match read_map(&file, &mut diags, Mode::Load) {
                Some(map) if !diags.has_errors() => Ok(LoadedMap {
                    chain: vec![found.barcode()],
                    found,
                    map,
                    dependencies: own_deps,
                    notes: Vec::new(),
                }),
                _ => Err(read_err(&found, &diags)),
            };
        }
        let leaf = Level::new(
            Barcode {
                pallet: found.pallet.clone(),
                path: found.path.clone(),
            },
            without_type(json),
            own_deps,
        );
        let (chain, problems) =
            gather_chain(leaf, ChainKind::Map, ChainScope::Whole, |b| self.level(b));
        let fatal = errors_of(&problems);
        if !fatal.is_empty() {
            return Err(CatalogError::Read {
                barcode: found.barcode(),
                message: format!("its inheritance chain does not fold: {}", fatal.join("; ")),
            });
        }
        // dh.look assets are not read yet: a look asset adds no values (the renderer's
        // note names the map's own; the pallet default's is noted here).
        let no_values = |_: &Barcode| Some(Value::synthetic(Kind::Object(Vec::new())));
        let looks = Looks {
            pallet_default: pallet_default.as_deref(),
            asset: &no_values,
        };
        let folded = fold_map_chain(&chain, &looks).map_err(|e| CatalogError::Read {
            barcode: found.barcode(),
            message: e.to_string(),
        })?;
        let mut notes: Vec<String> = problems
            .iter()
            .chain(&folded.problems)
            .map(|p| {
                let path = if p.path.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", p.path)
                };
                format!("{}: {}: {path}{}", p.severity.as_str(), p.at, p.message)
            })
            .collect();
        if let Some(look) = &pallet_default {
            if matches!(classify_look(look), LookRef::Asset(_)) {
                notes.push(format!(
                    "warning: {}: the pallet's default look '{look}': dh.look assets are not read by the renderer yet; the engine defaults apply",
                    found.barcode()
                ));
            }
        }
        let mut dependencies: Vec<String> = Vec::new();
        for level in &chain {
            for id in std::iter::once(&level.barcode.pallet).chain(&level.dependencies) {
                if !dependencies.contains(id) {
                    dependencies.push(id.clone());
                }
            }
        }
        let folded_file = SourceFile::new(found.barcode(), folded.value.to_json());
        let mut diags = Diagnostics::new();
        match read_map(&folded_file, &mut diags, Mode::Load) {
            Some(map) if !diags.has_errors() => Ok(LoadedMap {
                chain: chain.iter().map(|l| l.barcode.to_string()).collect(),
                found,
                map,
                dependencies,
                notes,
            }),
            _ => Err(CatalogError::Read {
                barcode: found.barcode(),
                message: format!("the folded map does not read: {diags}"),
            }),
        }
    }

    /// Asset `b` of a mounted pallet as a level of an inheritance chain: its compiled JSON
    /// (less the `$type` the compiler added) with its pallet's declared dependencies.
    fn level(&self, b: &Barcode) -> Option<Level> {
        let found = Found {
            pallet: b.pallet.clone(),
            path: b.path.clone(),
        };
        let file = self.text(&found).ok()?;
        let mut diags = Diagnostics::new();
        let json = parse_source(&file, &mut diags)?;
        Some(Level::new(
            b.clone(),
            without_type(json),
            self.dependencies(&b.pallet),
        ))
    }

    /// A compiled object's JSON by barcode (`pallet:path`), for the install's resolver.
    ///
    /// A variant (`.dh-obj` or `.dh-avatar` stating `inherits`) whose build could not
    /// resolve it — its base lives in a pallet that build did not mount — has its chain
    /// resolved here, through the mounted pallets, and gets the `resolved` member a build
    /// would have written (spec, dh.object: the compiler adds "a resolved member holding
    /// the whole object as the compiler resolved it"). A chain that does not resolve (a
    /// base that is not mounted) is an error: the thin variant is never installed alone.
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
        let json = parse_source(&file, &mut diags).ok_or_else(|| CatalogError::Read {
            barcode: barcode.to_string(),
            message: diags.to_string(),
        })?;
        if path.ends_with(".dh-mat") && json.get("inherits").is_some() {
            return self.resolve_material(&found, json);
        }
        let is_object = path.ends_with(".dh-obj") || path.ends_with(".dh-avatar");
        if !is_object || json.get("resolved").is_some() || json.get("inherits").is_none() {
            return Ok(json);
        }
        self.resolve_variant(&found, json)
    }

    /// Folds a material's `inherits` chain through the mounted pallets
    /// ([`dh_content::fold::resolve_material_chain`]): what every reader of a material (the
    /// renderer, water, surfaces, the COLOR_1 keep rule) sees is the folded material, its
    /// inherited references rebased to barcodes. A chain that does not resolve is an error,
    /// so the slot draws the missing material and says why.
    fn resolve_material(&self, found: &Found, json: Value) -> Result<Value, CatalogError> {
        let leaf = Level::new(
            Barcode {
                pallet: found.pallet.clone(),
                path: found.path.clone(),
            },
            without_type(json),
            self.dependencies(&found.pallet),
        );
        let folded =
            resolve_material_chain(leaf, |b| self.level(b)).map_err(|e| CatalogError::Read {
                barcode: found.barcode(),
                message: e.to_string(),
            })?;
        let fatal = errors_of(&folded.problems);
        if !fatal.is_empty() {
            return Err(CatalogError::Read {
                barcode: found.barcode(),
                message: format!("its inherits chain does not resolve: {}", fatal.join("; ")),
            });
        }
        Ok(folded.value)
    }

    /// Resolves a variant's chain at load (see [`Catalog::object_json`]).
    fn resolve_variant(&self, found: &Found, json: Value) -> Result<Value, CatalogError> {
        let leaf = Level::new(
            Barcode {
                pallet: found.pallet.clone(),
                path: found.path.clone(),
            },
            without_type(json.clone()),
            self.dependencies(&found.pallet),
        );
        let (chain, problems) = gather_chain(leaf, ChainKind::Object, ChainScope::Whole, |b| {
            self.level(b)
        });
        let fatal = errors_of(&problems);
        if !fatal.is_empty() {
            return Err(CatalogError::Read {
                barcode: found.barcode(),
                message: format!(
                    "a variant whose chain does not resolve is not installed alone: {}",
                    fatal.join("; ")
                ),
            });
        }
        let resolved = resolve_object(&chain).map_err(|e| CatalogError::Read {
            barcode: found.barcode(),
            message: e.to_string(),
        })?;
        let mut out = json;
        if let Kind::Object(members) = &mut out.kind {
            members.retain(|m| m.key != "resolved");
            members.push(Member {
                key: "resolved".to_string(),
                key_span: Span::default(),
                value: resolved.value,
            });
        }
        Ok(out)
    }
}

/// A chain's errors, each as `barcode: message` (its warnings are not in the way).
fn errors_of(problems: &[dh_content::fold::ChainProblem]) -> Vec<String> {
    problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| format!("{}: {}", p.at, p.message))
        .collect()
}

/// `json` less its top-level `$type` (a compiled asset's, the compiler's addition).
fn without_type(mut json: Value) -> Value {
    if let Kind::Object(members) = &mut json.kind {
        members.retain(|m| m.key != "$type");
    }
    json
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
            "no map named 'logic'; the maps are: core:maps/debug-map.dh-map, core:maps/logic-map.dh-map, core:maps/physics-eval.dh-map, core:maps/render-eval.dh-map, core:maps/vertex-color-eval.dh-map; did you mean `logic-map`?"
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
