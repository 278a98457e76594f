//! Inheritance chains: the map inheritance fold (spec, dh.map "Inheritance"), the chain
//! checks a build runs inside one pallet, and object variants (`inherits` on a dh.object,
//! resolved into the compiled object's `resolved` member).
//!
//! Everything here works on JSON values ([`Value`]), independent of the typed structs.
//!
//! * [`MAP_FOLD_RULES`] is the one table naming how every authored member of a map, and of
//!   every block folded per field, folds ([`FoldRule`]); [`fold_rule`] looks a member up.
//! * [`gather_chain`] follows `inherits` from a map (or an object) to its root, with the
//!   lookup the caller supplies, refusing a circular chain and a parent of the wrong type;
//!   [`gather_chain_within`] stops before a pallet the caller has not mounted, and
//!   [`cut_before`] says where a gathered chain stopped short.
//! * [`check_map_chain`] runs the build's chain checks for one map of a pallet;
//!   [`check_map_chain_mounted`] carries them on through the compiled dependencies a build
//!   has mounted.
//! * [`fold_map_chain`] folds a gathered chain into one map, after rewriting every
//!   reference a parent states to a full barcode.
//! * [`resolve_object`] / [`resolve_object_chain`] lay a variant's layers over its base by
//!   the one merge rule ([`crate::merge`]), every reference a barcode.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Severity, SourceFile};
use crate::jsonc::{Kind, Member, Span, Value};
use crate::merge;
use crate::refs::{self, Barcode, RefError};
use crate::schema::map::render::{BuiltinLook, LookSeed};
use crate::schema::records::SourceKind;

/// How one member of a map folds over the same member of its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldRule {
    /// Not inherited: the map's own value only (`name`, `description`: a map is named
    /// after itself).
    NotInherited,
    /// Per field: each field folds by its own rule (a member of the block with no entry in
    /// the table folds [`Whole`](FoldRule::Whole)). A field the child states wins; one it
    /// leaves out reads through.
    PerField,
    /// Whole: the child's value if it states one, else the parent's. A sky image is one
    /// picture: a child's new path does not keep the parent's rotation.
    Whole,
    /// Per slot: a child rebinds one slot (each key's value whole) and keeps the rest.
    PerSlot,
    /// `lighting.bakeZones`: per zone `id`; a zone's fields whole except its `sets`, per set
    /// `name`; a set's `lights` and `emission` per key (each key's override whole).
    PerZone,
    /// `look`: level by level. Weakest to strongest: the engine defaults, the child's
    /// pallet's default look, the parent's look, the parent's fields, the child's look, the
    /// child's fields. The member itself is the strongest look stated.
    LookLevels,
    /// Added to: the parent's records first, in its order, then the child's own.
    AddedTo,
    /// Never inherited: generated from the map's own geometry.
    Never,
}

/// The one table of map inheritance rules (the spec's `MapMerge.Rules`): every authored
/// member of a map, and of every block folded per field, with its rule. A test enumerates
/// the typed schema's field lists and fails on a member with no entry here.
pub const MAP_FOLD_RULES: &[(&str, FoldRule)] = &[
    ("$type", FoldRule::NotInherited),
    ("name", FoldRule::NotInherited),
    ("description", FoldRule::NotInherited),
    ("inherits", FoldRule::NotInherited),
    ("look", FoldRule::LookLevels),
    ("materials", FoldRule::PerSlot),
    ("autoCollision", FoldRule::Whole),
    ("hullOptions", FoldRule::PerField),
    ("hullOptions.maxConvexHulls", FoldRule::Whole),
    ("hullOptions.resolution", FoldRule::Whole),
    ("hullOptions.maxVerticesPerHull", FoldRule::Whole),
    ("hullOptions.minVolumePercentError", FoldRule::Whole),
    ("lighting", FoldRule::PerField),
    ("lighting.sunDirection", FoldRule::Whole),
    ("lighting.sunColor", FoldRule::Whole),
    ("lighting.sunIntensity", FoldRule::Whole),
    ("lighting.ambientSky", FoldRule::Whole),
    ("lighting.ambientGround", FoldRule::Whole),
    ("lighting.ambientIntensity", FoldRule::Whole),
    ("lighting.halfLambert", FoldRule::Whole),
    ("lighting.falloff", FoldRule::Whole),
    ("lighting.lightmap", FoldRule::PerField),
    ("lighting.lightmap.enabled", FoldRule::Whole),
    ("lighting.lightmap.origin", FoldRule::Whole),
    ("lighting.lightmap.texelDensity", FoldRule::Whole),
    ("lighting.lightmap.padding", FoldRule::Whole),
    ("lighting.lightmap.maxSize", FoldRule::Whole),
    ("lighting.lightmap.samples", FoldRule::Whole),
    ("lighting.lightmap.bakeSun", FoldRule::Whole),
    ("lighting.lightmap.sunSamples", FoldRule::Whole),
    ("lighting.lightmap.bakeAmbient", FoldRule::Whole),
    ("lighting.lightmap.ambientSamples", FoldRule::Whole),
    ("lighting.lightmap.bounces", FoldRule::Whole),
    ("lighting.lightmap.bounceSamples", FoldRule::Whole),
    ("lighting.lightmap.emissiveSamples", FoldRule::Whole),
    ("lighting.lightmap.aoSamples", FoldRule::Whole),
    ("lighting.lightmap.aoRadius", FoldRule::Whole),
    ("lighting.lightmap.denoise", FoldRule::Whole),
    ("lighting.bakeZones", FoldRule::PerZone),
    ("lighting.sky", FoldRule::Whole),
    ("lighting.skyRayleigh", FoldRule::Whole),
    ("lighting.skyMie", FoldRule::Whole),
    ("lighting.skyMieAnisotropy", FoldRule::Whole),
    ("lighting.skyHorizonSoftness", FoldRule::Whole),
    ("lighting.skyIntensity", FoldRule::Whole),
    ("lighting.skySunDisc", FoldRule::Whole),
    ("lighting.skySunAngularDiameter", FoldRule::Whole),
    ("lighting.skyGround", FoldRule::Whole),
    ("lighting.skyGroundBlend", FoldRule::Whole),
    ("lighting.ambientMode", FoldRule::Whole),
    ("lighting.skyImage", FoldRule::Whole),
    ("lighting.giVolume", FoldRule::PerField),
    ("lighting.giVolume.enabled", FoldRule::Whole),
    ("lighting.giVolume.probeSpacing", FoldRule::Whole),
    ("lighting.giVolume.padding", FoldRule::Whole),
    ("lighting.giVolume.bounceAlbedo", FoldRule::Whole),
    ("lighting.giVolume.samples", FoldRule::Whole),
    ("lighting.giVolume.intensity", FoldRule::Whole),
    ("render", FoldRule::PerField),
    ("render.exposure", FoldRule::Whole),
    ("render.tonemap", FoldRule::Whole),
    ("render.hable", FoldRule::PerField),
    ("render.hable.shoulderStrength", FoldRule::Whole),
    ("render.hable.linearStrength", FoldRule::Whole),
    ("render.hable.linearAngle", FoldRule::Whole),
    ("render.hable.toeStrength", FoldRule::Whole),
    ("render.hable.toeNumerator", FoldRule::Whole),
    ("render.hable.toeDenominator", FoldRule::Whole),
    ("render.hable.whitePoint", FoldRule::Whole),
    ("render.bloom", FoldRule::Whole),
    ("render.bloomIntensity", FoldRule::Whole),
    ("render.bloomThreshold", FoldRule::Whole),
    ("render.bloomSoftKnee", FoldRule::Whole),
    ("render.bloomDiffusion", FoldRule::Whole),
    ("render.bloomAnamorphic", FoldRule::Whole),
    ("backdrop", FoldRule::Whole),
    ("objects", FoldRule::AddedTo),
    ("cookedCollision", FoldRule::Never),
];

/// The rule for a member path (`lighting.lightmap`, `render.hable.whitePoint`), if the
/// table names one.
pub fn fold_rule(path: &str) -> Option<FoldRule> {
    MAP_FOLD_RULES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, r)| *r)
}

// ---------------------------------------------------------------------------------------
// Levels, problems and chains

/// How a level's own references are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RefBase {
    /// As in a source: relative to the folder of the file that states them, `/` for the
    /// pallet root, `palletId:path` across pallets.
    #[default]
    File,
    /// As a compiled asset stores them: bare paths from the pallet root ("this pallet"),
    /// or barcodes.
    PalletRoot,
}

/// One asset of an inheritance chain: a map or an object, with what its references are
/// read against.
#[derive(Debug, Clone)]
pub struct Level {
    /// The asset's own barcode: its pallet and its path in the pallet.
    pub barcode: Barcode,
    /// Its JSON.
    pub json: Value,
    /// The dependencies its pallet declares (a `palletId:path` reference must name one).
    pub dependencies: Vec<String>,
    /// How its references are written.
    pub refs: RefBase,
}

/// One map of an inheritance chain.
pub type MapLevel = Level;
/// One object (or avatar) of a variant chain.
pub type ObjectLevel = Level;

impl Level {
    /// A source-form level (references relative to its file).
    pub fn new(barcode: Barcode, json: Value, dependencies: Vec<String>) -> Level {
        Level {
            barcode,
            json,
            dependencies,
            refs: RefBase::File,
        }
    }

    /// Resolves a reference this level states, by the one rule.
    pub fn resolve(&self, reference: &str) -> Result<Barcode, RefError> {
        let from = match self.refs {
            RefBase::File => self.barcode.path.as_str(),
            RefBase::PalletRoot => "",
        };
        refs::resolve(reference, &self.barcode.pallet, from, &self.dependencies)
    }

    /// Resolves a path the spec reads from the pallet root (a probe group's `probes`).
    pub fn resolve_rooted(&self, reference: &str) -> Result<Barcode, RefError> {
        refs::resolve(reference, &self.barcode.pallet, "", &self.dependencies)
    }

    fn inherits(&self) -> Option<&Value> {
        non_null(self.json.get("inherits"))
    }
}

/// A problem with a chain, located in one asset of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainProblem {
    /// Error or warning.
    pub severity: Severity,
    /// The asset the problem is located in.
    pub at: Barcode,
    /// Where in that asset's text (a default span when unknown).
    pub span: Span,
    /// The JSON path (`objects[2].name`, "" at the top).
    pub path: String,
    /// The message.
    pub message: String,
}

impl ChainProblem {
    fn error(at: &Barcode, span: Span, path: impl Into<String>, message: String) -> ChainProblem {
        ChainProblem {
            severity: Severity::Error,
            at: at.clone(),
            span,
            path: path.into(),
            message,
        }
    }

    fn warning(at: &Barcode, span: Span, path: impl Into<String>, message: String) -> ChainProblem {
        ChainProblem {
            severity: Severity::Warning,
            ..ChainProblem::error(at, span, path, message)
        }
    }

    /// The problem as a diagnostic. With the asset's source text, it names its display path
    /// and `line:col`; without, the asset's barcode and no position.
    pub fn to_diagnostic(&self, source: Option<&SourceFile>) -> Diagnostic {
        let (file, line, col) = match source {
            Some(f) => {
                let (l, c) = f.line_col(self.span.start);
                (f.path.clone(), l, c)
            }
            None => (self.at.to_string(), 0, 0),
        };
        Diagnostic {
            severity: self.severity,
            file,
            line,
            col,
            path: self.path.clone(),
            message: self.message.clone(),
        }
    }
}

/// How far a chain is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainScope {
    /// A build: only the parents in the leaf's own pallet. A parent in another pallet is
    /// checked where it lives, so the walk stops before it.
    Pallet,
    /// A load: the whole chain, every pallet.
    Whole,
}

/// What kind of asset a chain links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainKind {
    /// dh.map chains (`.dh-map`).
    Map,
    /// dh.object variants (`.dh-obj`, and `.dh-avatar`, which extends dh.object).
    Object,
    /// dh.material chains (`.dh-mat`; dh.material is ours, ARCHITECTURE "Content").
    Material,
}

impl ChainKind {
    fn accepts(self, barcode: &Barcode, json: &Value) -> bool {
        let ext_ok = match self {
            ChainKind::Map => barcode.path.ends_with(".dh-map"),
            ChainKind::Object => {
                barcode.path.ends_with(".dh-obj") || barcode.path.ends_with(".dh-avatar")
            }
            ChainKind::Material => barcode.path.ends_with(".dh-mat"),
        };
        let type_ok = match non_null(json.get("$type")).map(|t| t.as_str()) {
            None => true,
            Some(Some(t)) => match self {
                ChainKind::Map => t == "dh.map",
                ChainKind::Object => t == "dh.object" || t == "dh.avatar",
                ChainKind::Material => t == "dh.material",
            },
            Some(None) => false,
        };
        ext_ok && type_ok
    }

    fn type_name(self) -> &'static str {
        match self {
            ChainKind::Map => "dh.map",
            ChainKind::Object => "dh.object",
            ChainKind::Material => "dh.material",
        }
    }
}

/// Follows `inherits` from `leaf` to the root of its chain, asking `lookup` for each
/// parent by barcode. Returns the levels found, root first and `leaf` last, and the
/// problems met on the way, each located at the `inherits` of the level that states the
/// faulty link: an `inherits` that does not resolve, a parent that is not of the chain's
/// kind, a parent `lookup` does not know, and a circular chain. The walk stops at the
/// first problem. In [`ChainScope::Pallet`] it also stops, without a problem, before a
/// parent in another pallet.
pub fn gather_chain(
    leaf: Level,
    kind: ChainKind,
    scope: ChainScope,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> (Vec<Level>, Vec<ChainProblem>) {
    let leaf_pallet = leaf.barcode.pallet.clone();
    match scope {
        ChainScope::Pallet => gather_chain_within(leaf, kind, &|p| p == leaf_pallet, lookup),
        ChainScope::Whole => gather_chain_within(leaf, kind, &|_| true, lookup),
    }
}

/// [`gather_chain`] over the pallets `within` accepts (by id): the walk stops, without a
/// problem, before a parent in a pallet `within` refuses. A build passes the pallets it
/// has mounted (its own and the compiled dependencies it found), so a chain reaching into a
/// dependency that is not there is checked as far as the build can see; [`cut_before`]
/// says where it stopped.
pub fn gather_chain_within(
    leaf: Level,
    kind: ChainKind,
    within: &dyn Fn(&str) -> bool,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> (Vec<Level>, Vec<ChainProblem>) {
    let mut problems = Vec::new();
    let mut chain: Vec<Level> = vec![leaf];
    while let Some(current) = chain.last() {
        let Some(inherits) = current.inherits() else {
            break;
        };
        let at = current.barcode.clone();
        let span = inherits.span;
        let Some(reference) = inherits.as_str() else {
            problems.push(ChainProblem::error(
                &at,
                span,
                "inherits",
                format!(
                    "'inherits' must be a string: the barcode of the {} this one varies",
                    kind.type_name()
                ),
            ));
            break;
        };
        let parent = match current.resolve(reference) {
            Ok(b) => b,
            Err(e) => {
                problems.push(ChainProblem::error(
                    &at,
                    span,
                    "inherits",
                    format!("'inherits': {e}"),
                ));
                break;
            }
        };
        if let Some(i) = chain.iter().position(|l| l.barcode == parent) {
            let mut names: Vec<String> = chain
                .iter()
                .skip(i)
                .map(|l| l.barcode.to_string())
                .collect();
            names.push(parent.to_string());
            problems.push(ChainProblem::error(
                &at,
                span,
                "inherits",
                format!("circular inherits chain: {}", names.join(" -> ")),
            ));
            break;
        }
        if kind == ChainKind::Map && !parent.path.ends_with(".dh-map") {
            problems.push(ChainProblem::error(
                &at,
                span,
                "inherits",
                format!("'inherits' names '{parent}', which is not a dh.map"),
            ));
            break;
        }
        if !within(&parent.pallet) {
            break;
        }
        let Some(level) = lookup(&parent) else {
            problems.push(ChainProblem::error(
                &at,
                span,
                "inherits",
                format!("'inherits' names '{parent}', which this build cannot find"),
            ));
            break;
        };
        if !kind.accepts(&parent, &level.json) {
            problems.push(ChainProblem::error(
                &at,
                span,
                "inherits",
                format!(
                    "'inherits' names '{parent}', which is not a {}",
                    kind.type_name()
                ),
            ));
            break;
        }
        chain.push(level);
    }
    chain.reverse();
    (chain, problems)
}

/// Where a gathered chain stops short of its root: the parent its first level names when
/// that level still `inherits` one that resolves (the walk stopped before a pallet it was
/// not given, or at a problem). `None` for a chain that reaches its root.
pub fn cut_before(chain: &[Level]) -> Option<Barcode> {
    let first = chain.first()?;
    let reference = first.inherits()?.as_str()?;
    first.resolve(reference).ok()
}

// ---------------------------------------------------------------------------------------
// Chain checks

/// The build's chain checks for one map of a pallet (spec, "Inside one pallet the build
/// also checks the folded chain"), reported from the map's own side so that checking every
/// map of a pallet reports each fault once:
///
/// * a circular chain, a parent that is not a dh.map, an `inherits` that does not resolve;
/// * inherited geometry: a parent that places a model is refused;
/// * a record whose id a parent already holds (an error in [`ChainScope::Pallet`]; at load,
///   [`ChainScope::Whole`], a warning, and [`fold_map_chain`] leaves the record out);
/// * a record or camera name that repeats a parent's;
/// * a second camera claiming `mapThumbnail` (one of the map's own when a parent already
///   has one).
///
/// `lookup` gives a map by barcode (its JSON, its pallet's dependencies, how its references
/// are written), or `None` when there is no such map.
pub fn check_map_chain(
    leaf: &Level,
    scope: ChainScope,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Vec<ChainProblem> {
    let leaf_pallet = leaf.barcode.pallet.clone();
    match scope {
        ChainScope::Pallet => check_chain(leaf, &|p| p == leaf_pallet, true, lookup),
        ChainScope::Whole => check_chain(leaf, &|_| true, false, lookup),
    }
}

/// The build's chain checks ([`check_map_chain`] in [`ChainScope::Pallet`]) carried on into
/// the compiled dependencies the build has mounted (`mounted` says which pallet ids, by
/// id): the chain is followed through them and checked as a whole. A record whose id a
/// parent in another pallet holds is a warning (it is left out at load), as the spec makes
/// it an error only for a parent in the same pallet; every other fault is an error
/// wherever its parent lives. The walk stops quietly before a pallet that is not mounted.
pub fn check_map_chain_mounted(
    leaf: &Level,
    mounted: &dyn Fn(&str) -> bool,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Vec<ChainProblem> {
    let leaf_pallet = leaf.barcode.pallet.clone();
    check_chain(leaf, &|p| p == leaf_pallet || mounted(p), true, lookup)
}

fn check_chain(
    leaf: &Level,
    within: &dyn Fn(&str) -> bool,
    build: bool,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Vec<ChainProblem> {
    let (chain, mut problems) = gather_chain_within(leaf.clone(), ChainKind::Map, within, lookup);
    let Some((own, parents)) = chain.split_last() else {
        return problems;
    };
    let inherits_span = own.inherits().map(|v| v.span).unwrap_or_default();
    for parent in parents.iter().rev() {
        if let Some(p) = geometry_problem(own, parent, inherits_span) {
            problems.push(p);
        }
    }
    // Parents nearest first: each fault names the nearest parent it repeats.
    let nearest: Vec<ParentIndex> = parents.iter().rev().map(ParentIndex::new).collect();
    let mut thumbnail_reported = false;
    for (i, rec) in records(&own.json).into_iter().enumerate() {
        let base = format!("objects[{i}]");
        if let Some(id) = record_id(rec) {
            let key = id.to_ascii_lowercase();
            if let Some(parent) = nearest.iter().find(|p| p.ids.contains(&key)) {
                let span = rec.get("id").map(|v| v.span).unwrap_or(rec.span);
                let message = format!(
                    "record '{id}' has the id of a record parent '{}' already holds: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)",
                    parent.level.barcode
                );
                let same_pallet = parent.level.barcode.pallet == own.barcode.pallet;
                problems.push(if build && same_pallet {
                    ChainProblem::error(&own.barcode, span, format!("{base}.id"), message)
                } else if build {
                    ChainProblem::warning(
                        &own.barcode,
                        span,
                        format!("{base}.id"),
                        format!("{message}; the record is left out at load"),
                    )
                } else {
                    ChainProblem::warning(
                        &own.barcode,
                        span,
                        format!("{base}.id"),
                        format!("{message}; the record is left out"),
                    )
                });
            }
        }
        if let Some(name) = record_name(rec) {
            let hit = nearest
                .iter()
                .find_map(|p| p.names.get(name).map(|r| (p.level, *r)));
            if let Some((parent, other)) = hit {
                let span = rec.get("name").map(|v| v.span).unwrap_or(rec.span);
                let what = if camera(rec).is_some() && camera(other).is_some() {
                    "camera"
                } else {
                    "record"
                };
                problems.push(ChainProblem::error(
                    &own.barcode,
                    span,
                    format!("{base}.name"),
                    format!(
                        "{what} name '{name}' repeats a {what} of parent '{}'",
                        parent.barcode
                    ),
                ));
            }
        }
        if thumbnail_reported {
            continue;
        }
        if let Some((ci, role_span)) = thumbnail_camera(rec) {
            let hit = nearest
                .iter()
                .find_map(|p| p.thumbnail.map(|r| (p.level, r)));
            if let Some((parent, other)) = hit {
                thumbnail_reported = true;
                problems.push(ChainProblem::error(
                    &own.barcode,
                    role_span,
                    format!("{base}.components[{ci}].role"),
                    format!(
                        "a second camera claims mapThumbnail: {} here and {} in parent '{}'; at most one camera per map may carry it",
                        describe_record(rec),
                        describe_record(other),
                        parent.barcode
                    ),
                ));
            }
        }
    }
    problems
}

/// A parent's records, indexed for the chain checks.
struct ParentIndex<'a> {
    level: &'a Level,
    /// Record ids, lower-cased (GUIDs compare without regard to case).
    ids: HashSet<String>,
    /// Record names, each to its first record.
    names: HashMap<&'a str, &'a Value>,
    /// The first record whose camera claims mapThumbnail.
    thumbnail: Option<&'a Value>,
}

impl<'a> ParentIndex<'a> {
    fn new(level: &'a Level) -> ParentIndex<'a> {
        let recs = records(&level.json);
        let mut names = HashMap::new();
        for r in &recs {
            if let Some(n) = record_name(r) {
                names.entry(n).or_insert(*r);
            }
        }
        ParentIndex {
            level,
            ids: recs
                .iter()
                .filter_map(|r| record_id(r))
                .map(str::to_ascii_lowercase)
                .collect(),
            names,
            thumbnail: recs.iter().copied().find(|r| thumbnail_camera(r).is_some()),
        }
    }
}

/// The refusal of inherited geometry, when `parent` places a model.
fn geometry_problem(own: &Level, parent: &Level, span: Span) -> Option<ChainProblem> {
    let rec = records(&parent.json).into_iter().find(|r| {
        r.get("$type").and_then(Value::as_str) == Some("instance")
            && r.get("source")
                .and_then(Value::as_str)
                .is_some_and(|s| SourceKind::of(s) == Some(SourceKind::Model))
    })?;
    let source = rec
        .get("source")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(ChainProblem::error(
        &own.barcode,
        span,
        "inherits",
        format!(
            "parent '{}' places a model ('{source}', {}): inheriting geometry is not built yet; the parts, their ids, the cook and the bakes of an inherited model belong to a later lane. Inherit a map that places none, or place the model in the child",
            parent.barcode,
            describe_record(rec)
        ),
    ))
}

fn records(map: &Value) -> Vec<&Value> {
    map.get("objects")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

fn record_id(rec: &Value) -> Option<&str> {
    non_null(rec.get("id")).and_then(Value::as_str)
}

fn record_name(rec: &Value) -> Option<&str> {
    non_null(rec.get("name"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn components(rec: &Value) -> &[Value] {
    rec.get("components")
        .and_then(Value::as_array)
        .unwrap_or(&[])
}

fn camera(rec: &Value) -> Option<(usize, &Value)> {
    components(rec)
        .iter()
        .enumerate()
        .find(|(_, c)| c.get("$type").and_then(Value::as_str) == Some("dh.camera"))
}

/// The index of a record's camera claiming `mapThumbnail`, and the span of its `role`.
fn thumbnail_camera(rec: &Value) -> Option<(usize, Span)> {
    let (i, cam) = camera(rec)?;
    let role = cam.get("role")?;
    (role.as_str() == Some("mapThumbnail")).then_some((i, role.span))
}

fn describe_record(rec: &Value) -> String {
    match (record_name(rec), record_id(rec)) {
        (Some(n), _) => format!("'{n}'"),
        (None, Some(id)) => format!("record '{id}'"),
        (None, None) => "an unnamed record".to_string(),
    }
}

fn non_null(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !matches!(v.kind, Kind::Null))
}

// ---------------------------------------------------------------------------------------
// References

/// The shape of an asset reference a component states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefShape {
    /// One reference, by the one rule.
    Path,
    /// One path read from the pallet root (spec: a probe group's "pallet-relative path").
    RootPath,
    /// An object whose every value is a reference (a renderer's `materials` by slot).
    SlotValues,
    /// A material that names an asset on an object or an instance's override layer, and a
    /// slot of the map's materials table on a map's own records (never rewritten there).
    MaterialOrSlot,
    /// A reaction's `actions`, each sound action's `clips` a list of references.
    ActionClips,
}

/// Every asset field of a component, by type: what is rewritten to a barcode before a fold
/// and in an object's `resolved` member.
pub const COMPONENT_REFERENCES: &[(&str, &str, RefShape)] = &[
    ("dh.renderer", "materials", RefShape::SlotValues),
    ("dh.skeleton", "rig", RefShape::Path),
    ("dh.box", "material", RefShape::MaterialOrSlot),
    ("dh.voxelVolume", "volume", RefShape::Path),
    ("dh.lightProbeGroup", "probes", RefShape::RootPath),
    ("dh.reaction", "actions", RefShape::ActionClips),
];

/// How a component's `material` is read where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Materials {
    /// A map's own record: a slot key, never rewritten.
    Slots,
    /// An instance's override layer: a slot key, or an asset reference when it reads as
    /// one (a path or a barcode).
    SlotOrAsset,
    /// An object: always an asset (an object owns no slot table).
    Assets,
}

struct Rewriter<'a> {
    level: &'a Level,
    problems: &'a mut Vec<ChainProblem>,
}

impl Rewriter<'_> {
    fn fix(&mut self, v: &mut Value, path: &str, rooted: bool) {
        let Some(s) = v.as_str() else { return };
        let r = if rooted {
            self.level.resolve_rooted(s)
        } else {
            self.level.resolve(s)
        };
        match r {
            Ok(b) => v.kind = Kind::String(b.to_string()),
            Err(e) => self.problems.push(ChainProblem::error(
                &self.level.barcode,
                v.span,
                path,
                format!("'{}': {e}", last_segment(path)),
            )),
        }
    }

    fn fix_member(&mut self, obj: &mut Value, key: &str, path: &str) {
        if let Some(v) = member_mut(obj, key) {
            self.fix(v, &join(path, key), false);
        }
    }

    fn component(&mut self, c: &mut Value, path: &str, materials: Materials) {
        let Some(t) = c.get("$type").and_then(Value::as_str).map(str::to_string) else {
            return;
        };
        for (_, field, shape) in COMPONENT_REFERENCES.iter().filter(|(ty, _, _)| *ty == t) {
            let fpath = join(path, field);
            let Some(v) = member_mut(c, field) else {
                continue;
            };
            match shape {
                RefShape::Path => self.fix(v, &fpath, false),
                RefShape::RootPath => self.fix(v, &fpath, true),
                RefShape::SlotValues => {
                    if let Kind::Object(members) = &mut v.kind {
                        for m in members.iter_mut() {
                            let p = join(&fpath, &m.key);
                            self.fix(&mut m.value, &p, false);
                        }
                    }
                }
                RefShape::MaterialOrSlot => {
                    let rewrite = match materials {
                        Materials::Slots => false,
                        Materials::Assets => true,
                        Materials::SlotOrAsset => v.as_str().is_some_and(reads_as_asset),
                    };
                    if rewrite {
                        self.fix(v, &fpath, false);
                    }
                }
                RefShape::ActionClips => {
                    if let Kind::Array(actions) = &mut v.kind {
                        for (ai, a) in actions.iter_mut().enumerate() {
                            let apath = format!("{fpath}[{ai}]");
                            if let Some(Value {
                                kind: Kind::Array(clips),
                                ..
                            }) = member_mut(a, "clips")
                            {
                                for (ci, clip) in clips.iter_mut().enumerate() {
                                    self.fix(clip, &format!("{apath}.clips[{ci}]"), false);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn components(&mut self, owner: &mut Value, path: &str, materials: Materials) {
        if let Some(Value {
            kind: Kind::Array(list),
            ..
        }) = member_mut(owner, "components")
        {
            for (i, c) in list.iter_mut().enumerate() {
                self.component(c, &format!("{}[{i}]", join(path, "components")), materials);
            }
        }
    }

    fn children(&mut self, owner: &mut Value, path: &str, materials: Materials) {
        if let Some(Value {
            kind: Kind::Array(list),
            ..
        }) = member_mut(owner, "children")
        {
            for (i, ch) in list.iter_mut().enumerate() {
                self.components(ch, &format!("{}[{i}]", join(path, "children")), materials);
            }
        }
    }

    /// A map's references: its material slots, its look, its sky image, every instance's
    /// source and every asset field of a record's components (and of its part overrides').
    fn map(&mut self, map: &mut Value) {
        if let Some(Value {
            kind: Kind::Object(slots),
            ..
        }) = member_mut(map, "materials")
        {
            for m in slots.iter_mut() {
                let p = format!("materials.{}", m.key);
                self.fix(&mut m.value, &p, false);
            }
        }
        if let Some(look) = member_mut(map, "look") {
            if look
                .as_str()
                .is_some_and(|s| BuiltinLook::parse(s).is_none())
            {
                self.fix(look, "look", false);
            }
        }
        if let Some(lighting) = member_mut(map, "lighting") {
            if let Some(sky) = member_mut(lighting, "skyImage") {
                self.fix_member(sky, "path", "lighting.skyImage");
            }
        }
        if let Some(Value {
            kind: Kind::Array(recs),
            ..
        }) = member_mut(map, "objects")
        {
            for (i, rec) in recs.iter_mut().enumerate() {
                let path = format!("objects[{i}]");
                let instance = rec.get("$type").and_then(Value::as_str) == Some("instance");
                let materials = if instance {
                    self.fix_member(rec, "source", &path);
                    Materials::SlotOrAsset
                } else {
                    Materials::Slots
                };
                self.components(rec, &path, materials);
                self.children(rec, &path, materials);
            }
        }
    }

    /// An object's references: its model, its `inherits`, its root's and its parts'
    /// components, and each added record's source, components and part overrides.
    fn object(&mut self, obj: &mut Value) {
        self.fix_member(obj, "model", "");
        self.fix_member(obj, "inherits", "");
        self.components(obj, "", Materials::Assets);
        self.children(obj, "", Materials::Assets);
        if let Some(Value {
            kind: Kind::Array(recs),
            ..
        }) = member_mut(obj, "objects")
        {
            for (i, rec) in recs.iter_mut().enumerate() {
                let path = format!("objects[{i}]");
                self.fix_member(rec, "source", &path);
                self.components(rec, &path, Materials::Assets);
                self.children(rec, &path, Materials::Assets);
            }
        }
    }
}

/// Whether a material value reads as an asset reference rather than a slot key.
fn reads_as_asset(s: &str) -> bool {
    s.contains('/') || s.contains(':') || s.ends_with(".dh-mat")
}

fn member_mut<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match &mut v.kind {
        Kind::Object(members) => members
            .iter_mut()
            .find(|m| m.key == key)
            .map(|m| &mut m.value),
        _ => None,
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// `level`'s map JSON with every reference it states rewritten to a full barcode in its
/// own pallet (spec: "References mean what their own file meant"), and a problem for each
/// reference that does not resolve (left as written).
pub fn rewrite_map_refs(level: &Level) -> (Value, Vec<ChainProblem>) {
    let mut problems = Vec::new();
    let mut json = level.json.clone();
    Rewriter {
        level,
        problems: &mut problems,
    }
    .map(&mut json);
    (json, problems)
}

/// `level`'s object JSON with every reference it states rewritten to a full barcode.
pub fn rewrite_object_refs(level: &Level) -> (Value, Vec<ChainProblem>) {
    let mut problems = Vec::new();
    let mut json = level.json.clone();
    Rewriter {
        level,
        problems: &mut problems,
    }
    .object(&mut json);
    (json, problems)
}

/// The members of a dh.material that hold a reference (besides `inherits`).
pub const MATERIAL_REFERENCES: &[&str] = &["baseColor", "emissiveTexture"];

/// `level`'s material JSON with every reference it states (`baseColor`, `emissiveTexture`,
/// `inherits`) rewritten to a full barcode, so a member inherited from a parent means what
/// it meant in the parent's file.
pub fn rewrite_material_refs(level: &Level) -> (Value, Vec<ChainProblem>) {
    let mut problems = Vec::new();
    let mut json = level.json.clone();
    let mut w = Rewriter {
        level,
        problems: &mut problems,
    };
    for key in MATERIAL_REFERENCES
        .iter()
        .chain(std::iter::once(&"inherits"))
    {
        w.fix_member(&mut json, key, "");
    }
    (json, problems)
}

/// Folds a material's `inherits` chain, `levels` root first and the material itself last
/// (ours: dh.material is the project's schema, ARCHITECTURE "Content"): every level's
/// references rewritten to barcodes, then each laid over the one beneath by the one merge
/// rule ([`merge::merge`]) — a member the material does not set is its parent's, and a
/// block it restates (`detail`, `water`) merges member by member. `inherits` is left out.
pub fn resolve_material(levels: &[Level]) -> Result<Folded, FoldError> {
    fold_layers(levels, rewrite_material_refs, &["inherits"])
}

/// Gathers a material's chain with `lookup` (every pallet: a parent may live in a declared
/// dependency) and folds it ([`resolve_material`]); the chain's problems (a circular chain,
/// a parent that is not a dh.material or cannot be found) come first.
pub fn resolve_material_chain(
    leaf: Level,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Result<Folded, FoldError> {
    fold_chain(leaf, ChainKind::Material, lookup, resolve_material)
}

/// Every level's references rewritten to barcodes by `rewrite`, then each layer laid over
/// the one beneath by the one merge rule ([`merge::merge`]), outermost last, with the
/// top-level members `drop` names left out: what a variant's `resolved` member and a folded
/// material are.
fn fold_layers(
    levels: &[Level],
    rewrite: fn(&Level) -> (Value, Vec<ChainProblem>),
    drop: &[&str],
) -> Result<Folded, FoldError> {
    if levels.is_empty() {
        return Err(FoldError::Empty);
    }
    let mut problems = Vec::new();
    let mut layers = Vec::with_capacity(levels.len());
    for level in levels {
        let (json, p) = rewrite(level);
        problems.extend(p);
        layers.push(json);
    }
    let merged = merge::merge_all(layers.iter());
    let value = match merged.kind {
        Kind::Object(members) => Value {
            kind: Kind::Object(
                members
                    .into_iter()
                    .filter(|m| !drop.contains(&m.key.as_str()))
                    .collect(),
            ),
            span: merged.span,
        },
        _ => merged,
    };
    Ok(Folded { value, problems })
}

/// Gathers `leaf`'s chain of `kind` across every pallet with `lookup` and folds it with
/// `fold`; the chain's problems come first.
fn fold_chain(
    leaf: Level,
    kind: ChainKind,
    lookup: impl Fn(&Barcode) -> Option<Level>,
    fold: fn(&[Level]) -> Result<Folded, FoldError>,
) -> Result<Folded, FoldError> {
    let (chain, mut problems) = gather_chain(leaf, kind, ChainScope::Whole, lookup);
    let mut folded = fold(&chain)?;
    problems.append(&mut folded.problems);
    folded.problems = problems;
    Ok(folded)
}

// ---------------------------------------------------------------------------------------
// The map fold

/// A look, as a fold level sees it: a built-in slug, or a dh.look asset by barcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookName {
    /// A built-in look (slugs win over any asset).
    Builtin(BuiltinLook),
    /// A dh.look asset.
    Asset(Barcode),
}

/// What the fold needs to lay looks in: the leaf pallet's default look and the values a
/// dh.look asset sets.
pub struct Looks<'a> {
    /// The default look the leaf map's pallet names in its `pallet.dh` (as written there,
    /// read from the pallet root), if any.
    pub pallet_default: Option<&'a str>,
    /// The values a dh.look asset sets, as `{ "render": { ... }, "lighting": { ... } }`
    /// (only those two members are read), or `None` when there is no such look. Built-in
    /// looks are answered from the spec's slug table without asking.
    pub asset: &'a dyn Fn(&Barcode) -> Option<Value>,
}

/// The values a built-in look sets, as a fold level: `{ "render": {...}, "lighting": {...} }`
/// (spec, the slug table: the response chain only).
pub fn builtin_look_values(look: BuiltinLook) -> Value {
    let seed: LookSeed = look.seed();
    let mut render = Vec::new();
    let num = |n: f64| Value::synthetic(Kind::Number(n));
    let string = |s: &str| Value::synthetic(Kind::String(s.to_string()));
    if let Some(x) = seed.exposure {
        render.push(synthetic_member("exposure", num(x)));
    }
    if let Some(t) = seed.tonemap {
        render.push(synthetic_member("tonemap", string(t.as_str())));
    }
    if let Some(x) = seed.bloom_threshold {
        render.push(synthetic_member("bloomThreshold", num(x)));
    }
    if let Some(x) = seed.bloom_soft_knee {
        render.push(synthetic_member("bloomSoftKnee", num(x)));
    }
    if let Some(x) = seed.bloom_diffusion {
        render.push(synthetic_member("bloomDiffusion", num(x)));
    }
    if let Some(x) = seed.bloom_anamorphic {
        render.push(synthetic_member("bloomAnamorphic", num(x)));
    }
    let mut lighting = Vec::new();
    if let Some(x) = seed.half_lambert {
        lighting.push(synthetic_member("halfLambert", num(x)));
    }
    if let Some(f) = seed.falloff {
        lighting.push(synthetic_member("falloff", string(f.as_str())));
    }
    let mut out = Vec::new();
    if !render.is_empty() {
        out.push(synthetic_member(
            "render",
            Value::synthetic(Kind::Object(render)),
        ));
    }
    if !lighting.is_empty() {
        out.push(synthetic_member(
            "lighting",
            Value::synthetic(Kind::Object(lighting)),
        ));
    }
    Value::synthetic(Kind::Object(out))
}

fn synthetic_member(key: &str, value: Value) -> Member {
    Member {
        key: key.to_string(),
        key_span: Span::default(),
        value,
    }
}

/// A folded chain: the result and what was met on the way.
#[derive(Debug, Clone)]
pub struct Folded {
    /// The folded JSON.
    pub value: Value,
    /// Warnings (an inherited record's id restated, left out) and errors (a reference that
    /// does not resolve, a look that names nothing).
    pub problems: Vec<ChainProblem>,
}

/// Why a chain cannot be folded at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FoldError {
    /// No levels.
    #[error("an inheritance chain needs at least one level")]
    Empty,
    /// A parent places a model (refused at build and at load).
    #[error("{}", .0.message)]
    InheritedGeometry(ChainProblem),
}

/// Folds a map chain, `levels` root first and the map being loaded last, into one map.
///
/// Before folding, every reference a parent states is rewritten to a full barcode in the
/// parent's pallet (the last level's references are left as it wrote them). Then the
/// levels fold member by member by [`MAP_FOLD_RULES`], weakest first, with the looks laid
/// in level by level: the leaf pallet's default look, then for each level its look (if it
/// states one) and its own fields. The engine defaults are what stays unset.
///
/// A parent that places a model is refused ([`FoldError::InheritedGeometry`]). A record
/// whose id an earlier level already holds is left out with a warning.
pub fn fold_map_chain(levels: &[MapLevel], looks: &Looks) -> Result<Folded, FoldError> {
    let Some((leaf, parents)) = levels.split_last() else {
        return Err(FoldError::Empty);
    };
    let inherits_span = leaf.inherits().map(|v| v.span).unwrap_or_default();
    for parent in parents {
        if let Some(p) = geometry_problem(leaf, parent, inherits_span) {
            return Err(FoldError::InheritedGeometry(p));
        }
    }
    let mut problems = Vec::new();
    // Layers, weakest first: (the level they speak for, the JSON).
    let mut layers: Vec<(&Level, Value)> = Vec::new();
    if let Some(default) = looks.pallet_default {
        let pallet_root = Level {
            barcode: Barcode {
                pallet: leaf.barcode.pallet.clone(),
                path: "pallet.dh".to_string(),
            },
            json: Value::synthetic(Kind::Null),
            dependencies: leaf.dependencies.clone(),
            refs: RefBase::PalletRoot,
        };
        if let Some(v) = look_layer(
            &pallet_root,
            default,
            looks,
            "look",
            Span::default(),
            &mut problems,
        ) {
            layers.push((leaf, v));
        }
    }
    for (i, level) in levels.iter().enumerate() {
        let json = if i + 1 < levels.len() {
            let (json, p) = rewrite_map_refs(level);
            problems.extend(p);
            json
        } else {
            level.json.clone()
        };
        if let Some(look) = non_null(json.get("look")) {
            match look.as_str() {
                Some(s) => {
                    if let Some(v) = look_layer(level, s, looks, "look", look.span, &mut problems) {
                        layers.push((level, v));
                    }
                }
                None => problems.push(ChainProblem::error(
                    &level.barcode,
                    look.span,
                    "look",
                    "'look' must be a string: a built-in look's slug or a dh.look reference"
                        .to_string(),
                )),
            }
        }
        layers.push((level, json));
    }
    let mut acc = Value::synthetic(Kind::Object(Vec::new()));
    for (level, layer) in &layers {
        let mut cx = FoldCx {
            level,
            problems: &mut problems,
        };
        acc = fold_block("", &acc, layer, &mut cx);
    }
    Ok(Folded {
        value: acc,
        problems,
    })
}

/// Gathers `leaf`'s whole chain with `lookup` and folds it ([`gather_chain`] in
/// [`ChainScope::Whole`], then [`fold_map_chain`]); the chain's problems come first.
pub fn fold_map(
    leaf: MapLevel,
    looks: &Looks,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Result<Folded, FoldError> {
    let (chain, mut problems) = gather_chain(leaf, ChainKind::Map, ChainScope::Whole, lookup);
    let mut folded = fold_map_chain(&chain, looks)?;
    problems.append(&mut folded.problems);
    folded.problems = problems;
    Ok(folded)
}

fn look_layer(
    level: &Level,
    look: &str,
    looks: &Looks,
    path: &str,
    span: Span,
    problems: &mut Vec<ChainProblem>,
) -> Option<Value> {
    let name = match BuiltinLook::parse(look) {
        Some(b) => LookName::Builtin(b),
        None => match level.resolve(look) {
            Ok(b) => LookName::Asset(b),
            Err(e) => {
                problems.push(ChainProblem::error(
                    &level.barcode,
                    span,
                    path,
                    format!("'look': {e}"),
                ));
                return None;
            }
        },
    };
    let values = match &name {
        LookName::Builtin(b) => Some(builtin_look_values(*b)),
        LookName::Asset(b) => (looks.asset)(b),
    };
    let Some(values) = values else {
        problems.push(ChainProblem::error(
            &level.barcode,
            span,
            path,
            format!("look '{look}' names no look this build can find"),
        ));
        return None;
    };
    let kept: Vec<Member> = values
        .as_object()
        .unwrap_or(&[])
        .iter()
        .filter(|m| m.key == "render" || m.key == "lighting")
        .cloned()
        .collect();
    Some(Value::synthetic(Kind::Object(kept)))
}

struct FoldCx<'a> {
    level: &'a Level,
    problems: &'a mut Vec<ChainProblem>,
}

/// Folds `upper` over `lower` per field, the members of the block at `path` each by its
/// rule (a member the table does not name folds whole).
fn fold_block(path: &str, lower: &Value, upper: &Value, cx: &mut FoldCx) -> Value {
    let empty: &[Member] = &[];
    let lo = lower.as_object().unwrap_or(empty);
    let up = upper.as_object().unwrap_or(empty);
    let mut out: Vec<Member> = Vec::with_capacity(lo.len() + up.len());
    let keys = lo.iter().map(|m| m.key.as_str()).chain(
        up.iter()
            .map(|m| m.key.as_str())
            .filter(|k| !lo.iter().any(|m| m.key == *k)),
    );
    let keys: Vec<&str> = keys.collect();
    for key in keys {
        let member_path = join(path, key);
        let rule = fold_rule(&member_path).unwrap_or(FoldRule::Whole);
        let l = non_null(lo.iter().find(|m| m.key == key).map(|m| &m.value));
        let u_member = up.iter().find(|m| m.key == key);
        let u = non_null(u_member.map(|m| &m.value));
        if let Some(v) = fold_member(&member_path, rule, l, u, cx) {
            let key_span = u_member
                .or_else(|| lo.iter().find(|m| m.key == key))
                .map(|m| m.key_span)
                .unwrap_or_default();
            out.push(Member {
                key: key.to_string(),
                key_span,
                value: v,
            });
        }
    }
    Value {
        kind: Kind::Object(out),
        span: upper.span,
    }
}

fn fold_member(
    path: &str,
    rule: FoldRule,
    lower: Option<&Value>,
    upper: Option<&Value>,
    cx: &mut FoldCx,
) -> Option<Value> {
    match rule {
        FoldRule::NotInherited | FoldRule::Never => upper.cloned(),
        FoldRule::Whole | FoldRule::LookLevels => upper.or(lower).cloned(),
        FoldRule::PerField => match (lower, upper) {
            (Some(l), Some(u)) if l.as_object().is_some() && u.as_object().is_some() => {
                Some(fold_block(path, l, u, cx))
            }
            (None, Some(u)) if u.as_object().is_some() => Some(fold_block(
                path,
                &Value::synthetic(Kind::Object(Vec::new())),
                u,
                cx,
            )),
            (l, u) => u.or(l).cloned(),
        },
        FoldRule::PerSlot => match (lower, upper) {
            (Some(l), Some(u)) => Some(per_key(l, u)),
            (l, u) => u.or(l).cloned(),
        },
        FoldRule::PerZone => match (lower, upper) {
            (Some(l), Some(u)) => Some(keyed(l, u, "id", fold_zone)),
            (l, u) => u.or(l).cloned(),
        },
        FoldRule::AddedTo => match (lower, upper) {
            (Some(l), Some(u)) => Some(added_to(l, u, path, cx)),
            (l, u) => u.or(l).cloned(),
        },
    }
}

/// Key by key, each key's value whole: `lower`'s keys in order (replaced where `upper`
/// states them), then `upper`'s new keys. Not both objects: `upper` whole.
fn per_key(lower: &Value, upper: &Value) -> Value {
    let (Some(lo), Some(up)) = (lower.as_object(), upper.as_object()) else {
        return upper.clone();
    };
    let mut out: Vec<Member> = Vec::with_capacity(lo.len() + up.len());
    for m in lo {
        match up
            .iter()
            .find(|u| u.key == m.key && !matches!(u.value.kind, Kind::Null))
        {
            Some(u) => out.push(u.clone()),
            None => out.push(m.clone()),
        }
    }
    for u in up {
        if !matches!(u.value.kind, Kind::Null) && !lo.iter().any(|m| m.key == u.key) {
            out.push(u.clone());
        }
    }
    Value {
        kind: Kind::Object(out),
        span: upper.span,
    }
}

/// Lists whose entries are matched by the string member `key`: `lower`'s entries in order
/// (each folded with `upper`'s entry of the same key), then `upper`'s new entries. Not
/// both lists: `upper` whole.
fn keyed(lower: &Value, upper: &Value, key: &str, fold: fn(&Value, &Value) -> Value) -> Value {
    let (Some(lo), Some(up)) = (lower.as_array(), upper.as_array()) else {
        return upper.clone();
    };
    let key_of = |v: &Value| {
        non_null(v.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut out: Vec<Value> = Vec::with_capacity(lo.len() + up.len());
    for l in lo {
        let k = key_of(l);
        let hit = k
            .as_ref()
            .and_then(|k| up.iter().rev().find(|u| key_of(u).as_ref() == Some(k)));
        out.push(match hit {
            Some(u) => fold(l, u),
            None => l.clone(),
        });
    }
    for (i, u) in up.iter().enumerate() {
        let k = key_of(u);
        let in_lower = k
            .as_ref()
            .is_some_and(|k| lo.iter().any(|l| key_of(l).as_ref() == Some(k)));
        let repeated_later = k
            .as_ref()
            .is_some_and(|k| up.iter().skip(i + 1).any(|v| key_of(v).as_ref() == Some(k)));
        if !in_lower && !repeated_later {
            out.push(u.clone());
        }
    }
    Value {
        kind: Kind::Array(out),
        span: upper.span,
    }
}

/// A bake zone over the parent's zone of the same id: its fields whole, its `sets` per set
/// name.
fn fold_zone(lower: &Value, upper: &Value) -> Value {
    fold_fields(lower, upper, &|key, l, u| match key {
        "sets" => keyed(l, u, "name", fold_set),
        _ => u.clone(),
    })
}

/// A bake set over the parent's set of the same name: `lights` and `emission` per key,
/// other fields whole.
fn fold_set(lower: &Value, upper: &Value) -> Value {
    fold_fields(lower, upper, &|key, l, u| match key {
        "lights" | "emission" => per_key(l, u),
        _ => u.clone(),
    })
}

/// Per field with a rule for members both sides state; a member one side states is kept.
fn fold_fields(
    lower: &Value,
    upper: &Value,
    both: &dyn Fn(&str, &Value, &Value) -> Value,
) -> Value {
    let (Some(lo), Some(up)) = (lower.as_object(), upper.as_object()) else {
        return upper.clone();
    };
    let mut out: Vec<Member> = Vec::with_capacity(lo.len() + up.len());
    for m in lo {
        match up
            .iter()
            .find(|u| u.key == m.key && !matches!(u.value.kind, Kind::Null))
        {
            Some(u) => out.push(Member {
                key: m.key.clone(),
                key_span: u.key_span,
                value: both(&m.key, &m.value, &u.value),
            }),
            None => out.push(m.clone()),
        }
    }
    for u in up {
        if !matches!(u.value.kind, Kind::Null) && !lo.iter().any(|m| m.key == u.key) {
            out.push(u.clone());
        }
    }
    Value {
        kind: Kind::Object(out),
        span: upper.span,
    }
}

/// The parent's records first, in its order, then the child's own; a child record whose id
/// a parent already holds is left out with a warning.
fn added_to(lower: &Value, upper: &Value, path: &str, cx: &mut FoldCx) -> Value {
    let (Some(lo), Some(up)) = (lower.as_array(), upper.as_array()) else {
        return upper.clone();
    };
    let inherited: HashSet<String> = lo
        .iter()
        .filter_map(record_id)
        .map(str::to_ascii_lowercase)
        .collect();
    let mut out: Vec<Value> = lo.to_vec();
    for (i, rec) in up.iter().enumerate() {
        if let Some(id) = record_id(rec) {
            if inherited.contains(&id.to_ascii_lowercase()) {
                let span = rec.get("id").map(|v| v.span).unwrap_or(rec.span);
                cx.problems.push(ChainProblem::warning(
                    &cx.level.barcode,
                    span,
                    format!("{path}[{i}].id"),
                    format!(
                        "record '{id}' has the id of an inherited record and is left out: overriding or removing an inherited record is not built yet (overrides by id arrive with the next inheritance lane)"
                    ),
                ));
                continue;
            }
        }
        out.push(rec.clone());
    }
    Value {
        kind: Kind::Array(out),
        span: upper.span,
    }
}

// ---------------------------------------------------------------------------------------
// Object variants

/// The members a compiled object's `resolved` member leaves out: the chain it was resolved
/// from, and `resolved` itself (a source never states it).
pub const NOT_RESOLVED: &[&str] = &["inherits", "resolved"];

/// Resolves an object's variant chain, `levels` root first and the variant being compiled
/// last, into the compiled object's `resolved` member: every level's references rewritten
/// to barcodes, then each layer laid over the one beneath by the one merge rule
/// ([`merge::merge`]), outermost last. Inherited added records are included (each keeping
/// its source's barcode, never flattened); `inherits` and `resolved` are left out.
pub fn resolve_object(levels: &[ObjectLevel]) -> Result<Folded, FoldError> {
    fold_layers(levels, rewrite_object_refs, NOT_RESOLVED)
}

/// Gathers an object's variant chain with `lookup` (across pallets: a variant's base may
/// live in any declared dependency) and resolves it ([`resolve_object`]); the chain's
/// problems (a circular chain, a base that is not a dh.object) come first.
pub fn resolve_object_chain(
    leaf: ObjectLevel,
    lookup: impl Fn(&Barcode) -> Option<Level>,
) -> Result<Folded, FoldError> {
    fold_chain(leaf, ChainKind::Object, lookup, resolve_object)
}
