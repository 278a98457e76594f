//! The compile pipeline behind `dh build` and `dh check`: discover a source pallet's
//! files, read and validate every asset (all errors collected), resolve references,
//! check what spans files, and write a deterministic `.pallet`.
//!
//! Determinism: files are discovered in sorted order, each compiled entry is the typed
//! asset written back as canonical JSON, the pallet writer sorts entries by path, and
//! nothing reads the clock. The same sources give a byte-identical pallet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Kind, Value};
use crate::pallet::{CodecChoice, EntryMeta, Manifest, PalletWriter};
use crate::read::{member, Cx, Mode, ToJson};
use crate::refs::{self, Barcode};
use crate::schema::manifest::{read_manifest, PalletManifestSource};

pub mod dependencies;
pub mod platforms;
mod thumbnails;
pub use dependencies::{Dependencies, DependencySearch};
use thumbnails::{ship_thumbnails, ThumbCx, ThumbMap};

/// The largest source file a build reads whole (a JSON asset); larger binary files are
/// still packed, up to the pallet's entry cap.
pub const MAX_JSON_SOURCE: u64 = 64 << 20;

/// What kind of file a source is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AssetKind {
    /// `.dh-map`
    Map,
    /// `.dh-obj`
    Object,
    /// `.dh-avatar`: a dh.object extended (spec 001 line 8, "dh.avatar extends this
    /// type"), read and checked as one.
    Avatar,
    /// `.dh-rig`: the rig a `dh.skeleton` names (001 "dh.skeleton").
    Rig,
    /// `.dh-mat`
    Material,
    /// `.dh-vox`
    Voxel,
    /// `.dh-model`, a model's sidecar
    ModelSidecar,
    /// `.dh-block`, a platform pallet's block (dh.block)
    Block,
    /// Any other packed file (models, textures, sounds, lightmap sidecars, payloads).
    Raw,
}

impl AssetKind {
    /// The kind of `path`, or `None` for files a build ignores (`pallet.dh`, identity
    /// sidecars, documentation, hidden files) and `Err` for an unknown `.dh-` asset type.
    pub fn of(path: &str) -> Result<Option<AssetKind>, String> {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name.starts_with('.') || path == "pallet.dh" || name.ends_with(".md") {
            return Ok(None);
        }
        // The identity sidecar is build input, never shipped content.
        if name.ends_with(".dh-ids") {
            return Ok(None);
        }
        let ext = match name.rfind('.') {
            Some(i) => &name[i..],
            None => return Ok(Some(AssetKind::Raw)),
        };
        Ok(Some(match ext {
            ".dh-map" => AssetKind::Map,
            ".dh-obj" => AssetKind::Object,
            ".dh-avatar" => AssetKind::Avatar,
            ".dh-rig" => AssetKind::Rig,
            ".dh-mat" => AssetKind::Material,
            ".dh-vox" => AssetKind::Voxel,
            ".dh-model" => AssetKind::ModelSidecar,
            ".dh-block" => AssetKind::Block,
            // Packed as they stand: a bake's lightmap sidecar, a voxel payload.
            // A probe group's file ships byte for byte (000, dh.lightProbeGroup).
            ".dh-lightmap" | ".bin" | ".dh-colcook" | ".dh-probegroup" | ".dh-mapthumb" => {
                AssetKind::Raw
            }
            e if e.starts_with(".dh-") => {
                return Err(format!(
                    "'{e}' is not an asset type this compiler knows; expected one of: .dh-map, .dh-obj, .dh-avatar, .dh-rig, .dh-mat, .dh-vox, .dh-model, .dh-block"
                ))
            }
            _ => AssetKind::Raw,
        }))
    }

    /// The `$type` a compiled JSON asset of this kind carries.
    pub fn type_id(self) -> Option<&'static str> {
        match self {
            AssetKind::Map => Some("dh.map"),
            AssetKind::Object => Some("dh.object"),
            AssetKind::Avatar => Some(crate::schema::object::AVATAR_TYPE),
            AssetKind::Rig => Some(crate::schema::rig::RIG_TYPE),
            AssetKind::Material => Some("dh.material"),
            AssetKind::Voxel => Some("dh.voxel"),
            AssetKind::ModelSidecar => Some("dh.model"),
            AssetKind::Block => Some(crate::schema::block::TYPE_ID),
            AssetKind::Raw => None,
        }
    }
}

/// The MIME type a packed file's entry records, by extension.
pub fn mime_of(path: &str) -> &'static str {
    if crate::pallet::is_voxel_payload(path) {
        return "application/vnd.dh.voxel-payload";
    }
    let ext = path.rsplit('.').next().unwrap_or("");
    match ext {
        "dh-map" => "application/vnd.dh.map+json",
        "dh-obj" => "application/vnd.dh.object+json",
        "dh-avatar" => "application/vnd.dh.avatar+json",
        "dh-rig" => "application/vnd.dh.rig+json",
        "dh-mat" => "application/vnd.dh.material+json",
        "dh-vox" => "application/vnd.dh.voxel+json",
        "dh-model" => "application/vnd.dh.model+json",
        "dh-block" => "application/vnd.dh.block+json",
        "dh-colcook" => "application/vnd.dh.colcook",
        "dh-mapthumb" => "application/vnd.dh.mapthumb",
        "dh-probegroup" => "application/vnd.dh.probegroup",
        "glb" => "model/gltf-binary",
        "gltf" => "model/gltf+json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "hdr" => "image/vnd.radiance",
        "exr" => "image/x-exr",
        "ktx2" => "image/ktx2",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// One discovered source file.
#[derive(Debug, Clone)]
pub struct SourceEntry {
    /// Path relative to the pallet root, `/`-separated.
    pub path: String,
    /// Its kind.
    pub kind: AssetKind,
    /// Where its bytes are.
    pub data: SourceData,
}

/// Where a source file's bytes are: on disk, or embedded in the binary (the engine's
/// core pallet).
#[derive(Debug, Clone)]
pub enum SourceData {
    /// A file on disk.
    Disk(PathBuf),
    /// Bytes in memory.
    Memory(&'static [u8]),
}

impl SourceData {
    fn len(&self) -> std::io::Result<u64> {
        match self {
            SourceData::Disk(p) => std::fs::metadata(p).map(|m| m.len()),
            SourceData::Memory(b) => Ok(b.len() as u64),
        }
    }

    fn read(&self) -> std::io::Result<Vec<u8>> {
        match self {
            SourceData::Disk(p) => std::fs::read(p),
            SourceData::Memory(b) => Ok(b.to_vec()),
        }
    }
}

/// Lists a source pallet's files, sorted by path. Unknown `.dh-` types are reported.
pub fn discover(root: &Path, diags: &mut Diagnostics) -> Vec<SourceEntry> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let read = match std::fs::read_dir(&dir) {
            Ok(r) => r,
            Err(e) => {
                diags.file_error(
                    &dir.display().to_string(),
                    format!("cannot read the folder: {e}"),
                );
                continue;
            }
        };
        let mut names: Vec<(String, PathBuf, bool)> = Vec::new();
        for entry in read.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                diags.file_error(
                    &entry.path().display().to_string(),
                    "the file name is not UTF-8; pallet paths must be",
                );
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            names.push((name, entry.path(), is_dir));
        }
        names.sort();
        for (name, disk, is_dir) in names {
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if is_dir {
                // A Minecraft save (a folder with level.dat) never ships, nor does
                // anything under it (spec dh.voxel, Worlds: Never shipped).
                if !disk.join("level.dat").is_file() {
                    stack.push((disk, path));
                }
                continue;
            }
            // Nor does any Minecraft region or oversized-chunk file.
            let lower = name.to_ascii_lowercase();
            if lower.ends_with(".mca") || lower.ends_with(".mcc") {
                continue;
            }
            match AssetKind::of(&path) {
                Ok(Some(kind)) => out.push(SourceEntry {
                    path,
                    kind,
                    data: SourceData::Disk(disk),
                }),
                Ok(None) => {}
                Err(msg) => diags.file_error(&path, msg),
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// One compiled asset, before packing.
#[derive(Debug, Clone)]
pub struct CompiledAsset {
    /// Pallet path.
    pub path: String,
    /// Kind.
    pub kind: AssetKind,
    /// The compiled bytes (canonical JSON for JSON assets, the file itself otherwise).
    pub bytes: Vec<u8>,
}

/// What a check or build produced.
#[derive(Debug, Default)]
pub struct BuildOutput {
    /// Every error and warning, sorted by file and position.
    pub diagnostics: Diagnostics,
    /// The manifest, when `pallet.dh` read.
    pub manifest: Option<PalletManifestSource>,
    /// The compiled assets, sorted by path.
    pub assets: Vec<CompiledAsset>,
    /// The pallet's bytes, when building and there were no errors.
    pub pallet: Option<Vec<u8>>,
    /// What the build writes back into the source pallet (identity sidecars whose
    /// identities changed), each marked once written: only a build that produced its
    /// pallet writes.
    pub writes: Vec<CompilerWrite>,
}

/// Options for [`compile`].
#[derive(Default)]
pub struct CompileOptions<'a> {
    /// Write the `.pallet` bytes (a build) or only check.
    pub write: bool,
    /// Called as each file is compiled: `(done, total)`.
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
}

/// A source asset read and checked on its own, before the pallet-wide checks.
struct ReadAsset {
    path: String,
    kind: AssetKind,
    /// The compiled JSON (without `$type`), for JSON assets.
    json: Option<Value>,
    /// Raw bytes for packed files.
    raw: Option<Vec<u8>>,
    /// References this asset states: (member path for messages, reference, span).
    references: Vec<StatedRef>,
    file: Option<SourceFile>,
    diags: Diagnostics,
    /// The source as parsed (spans kept), for the chain checks and object resolution.
    source: Option<Value>,
    /// A map, read but not yet validated: its record rules need what the pallet's objects
    /// resolve to.
    map: Option<crate::schema::map::Map>,
    /// Whether the compiled asset ships in the pallet (a `.dh-model` sidecar is build
    /// input only).
    ship: bool,
    /// Where the source lies on disk (`None` for one embedded in a binary): a model's
    /// identity sidecar is read from beside it.
    disk: Option<PathBuf>,
}

/// What a referenced file's bytes must be: `Err` says what the file is instead.
pub type ContentCheck = fn(&[u8]) -> Result<(), String>;

/// A reference an asset states, to be resolved against the pallet.
#[derive(Debug, Clone)]
pub struct StatedRef {
    /// What the reference is for, e.g. `material slot 'grid'`.
    pub what: String,
    /// The JSON path of the member.
    pub path: String,
    /// The reference as written.
    pub reference: String,
    /// Where it is written.
    pub span: crate::jsonc::Span,
    /// The extensions it must name (`[".dh-mat"]`), or empty for any file.
    pub expect: &'static [&'static str],
    /// Whether it is read from the pallet root (a probe group's `probes`, "the
    /// pallet-relative path") rather than from the stating file's folder.
    pub rooted: bool,
    /// What the named file's bytes must be, where it names a binary of one kind (a probe
    /// group's `.dh-probegroup`): `Err` says what the file is instead.
    pub content: Option<ContentCheck>,
}

/// Compiles the source pallet at `root`: reads `pallet.dh`, every asset, resolves
/// references, and (with `write`) produces the pallet bytes when there are no errors. No
/// dependency pallet is mounted ([`compile_with`] mounts them).
pub fn compile(root: &Path, opts: &CompileOptions) -> BuildOutput {
    compile_with(root, opts, &DependencySearch::default())
}

/// [`compile`], mounting the compiled pallets of the source pallet's dependencies that
/// `search` finds ([`Dependencies::find`]), so inheritance chains that reach into them
/// are folded and checked at build: a map inheriting a parent in a dependency, an object
/// varying a base there (whose `resolved` member the build then writes). A dependency a
/// chain needs that is not found is said once, naming it, and what can be checked is.
pub fn compile_with(root: &Path, opts: &CompileOptions, search: &DependencySearch) -> BuildOutput {
    compile_with_thumbnails(root, opts, search, None)
}

/// [`compile_with`], photographing each map's thumbnail camera through the engine
/// `thumbnails` names when it is `Some` (what `dh build` does; see [`crate::thumbnail`]
/// for the fallback ladder). With `None` no engine is started: each thumbnail map packs
/// the PNG beside it as it is, or the CPU plan when there is none.
pub fn compile_with_thumbnails(
    root: &Path,
    opts: &CompileOptions,
    search: &DependencySearch,
    thumbnails: Option<&crate::thumbnail::ThumbnailOptions>,
) -> BuildOutput {
    let mut diags = Diagnostics::new();
    let manifest_path = root.join("pallet.dh");
    let manifest = match std::fs::read_to_string(&manifest_path) {
        Ok(text) => Some(text),
        Err(e) => {
            diags.file_error(
                "pallet.dh",
                format!(
                    "cannot read the pallet manifest {}: {e}; a source pallet needs a pallet.dh at its root with id, name and version",
                    manifest_path.display()
                ),
            );
            None
        }
    };
    let sources = discover(root, &mut diags);
    let mut out = compile_inner(
        manifest.as_deref(),
        sources,
        opts,
        Mounts::Search(search),
        thumbnails,
    );
    out.diagnostics.extend(diags);
    out.diagnostics.sort();
    out
}

/// Compiles sources already listed (by [`discover`], or embedded in a binary), given the
/// text of `pallet.dh` (`None` when it could not be read; reported by the caller).
pub fn compile_sources(
    manifest_text: Option<&str>,
    sources: Vec<SourceEntry>,
    opts: &CompileOptions,
) -> BuildOutput {
    compile_inner(
        manifest_text,
        sources,
        opts,
        Mounts::Given(&Dependencies::none()),
        None,
    )
}

/// [`compile_sources`] with dependency pallets already mounted.
pub fn compile_sources_with(
    manifest_text: Option<&str>,
    sources: Vec<SourceEntry>,
    opts: &CompileOptions,
    dependencies: &Dependencies,
) -> BuildOutput {
    compile_inner(
        manifest_text,
        sources,
        opts,
        Mounts::Given(dependencies),
        None,
    )
}

/// Where a build's dependency pallets come from.
enum Mounts<'a> {
    /// Found by a search once the manifest names the dependencies.
    Search(&'a DependencySearch),
    /// Mounted by the caller.
    Given(&'a Dependencies),
}

fn compile_inner(
    manifest_text: Option<&str>,
    sources: Vec<SourceEntry>,
    opts: &CompileOptions,
    mounts: Mounts,
    thumbnails: Option<&crate::thumbnail::ThumbnailOptions>,
) -> BuildOutput {
    let mut out = BuildOutput::default();
    let manifest = manifest_text.and_then(|text| {
        let file = SourceFile::new("pallet.dh", text);
        read_manifest(&file, &mut out.diagnostics, Mode::Build)
    });
    let found;
    let deps: &Dependencies = match (mounts, &manifest) {
        (Mounts::Given(d), _) => d,
        (Mounts::Search(search), Some(m)) => {
            found = Dependencies::find(search, &m.id, &m.dependencies, &mut out.diagnostics);
            &found
        }
        (Mounts::Search(_), None) => {
            found = Dependencies::none();
            &found
        }
    };
    let total = sources.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut read: Vec<ReadAsset> = sources
        .par_iter()
        .map(|s| {
            let r = read_asset(s);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Some(p) = opts.progress {
                p(n, total);
            }
            r
        })
        .collect();
    read.sort_by(|a, b| a.path.cmp(&b.path));
    // A map's photograph (`<map>.thumbnail.png`) is no texture of its own: it ships only
    // packed into the map's companion.
    let map_paths: std::collections::BTreeSet<String> = read
        .iter()
        .filter(|r| r.kind == AssetKind::Map)
        .map(|r| crate::thumbnail::png_path(&r.path))
        .collect();
    let mut photos: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for r in &mut read {
        if map_paths.contains(&r.path) {
            r.ship = false;
            if let Some(raw) = &r.raw {
                photos.insert(r.path.clone(), raw.clone());
            }
        }
    }

    let mut generated = Vec::new();
    let mut thumb_maps = Vec::new();
    let mut writes = Vec::new();
    let mut reach = Reach::default();
    if let Some(manifest) = &manifest {
        generated = convert_voxel_sources(manifest, &mut read);
        let roots = resolve_objects(manifest, &mut read, deps, &mut reach);
        check_material_chains(manifest, &mut read, deps);
        let (w, companions, t) = check_maps(manifest, &mut read, &roots, deps, &mut reach);
        writes = w;
        thumb_maps = t;
        generated.extend(companions);
        check_references(manifest, &mut read, deps);
        check_renderer_slots(manifest, &mut read);
        generated.extend(platforms::platform_companions(manifest, &read, deps));
        reach.report(manifest, deps, &mut out.diagnostics);
    }
    for r in &mut read {
        out.diagnostics.extend(std::mem::take(&mut r.diags));
    }

    for r in read {
        if !r.ship {
            continue;
        }
        let bytes = match (r.json, r.raw) {
            (Some(json), _) => {
                let mut v = json;
                if let (Kind::Object(members), Some(t)) = (&mut v.kind, r.kind.type_id()) {
                    members.retain(|m| m.key != "$type");
                    members.insert(
                        0,
                        member("$type", Value::synthetic(Kind::String(t.to_string()))),
                    );
                }
                v.to_json().into_bytes()
            }
            (None, Some(raw)) => raw,
            (None, None) => continue,
        };
        out.assets.push(CompiledAsset {
            path: r.path,
            kind: r.kind,
            bytes,
        });
    }
    out.assets.extend(generated);
    out.assets.sort_by(|a, b| a.path.cmp(&b.path));
    out.diagnostics.sort();
    out.manifest = manifest;
    if let Some(m) = &out.manifest {
        let ok = opts.write && !out.diagnostics.has_errors();
        let cx = ThumbCx {
            manifest: m,
            capture: thumbnails.filter(|_| ok),
            write: ok,
            dependencies: deps.files(),
            used: reach.used(m, deps),
        };
        let (companions, thumb_writes) =
            ship_thumbnails(&cx, &thumb_maps, &photos, &out.assets, &mut out.diagnostics);
        out.assets.extend(companions);
        out.assets.sort_by(|a, b| a.path.cmp(&b.path));
        writes.extend(thumb_writes);
        out.diagnostics.sort();
    }
    if opts.write && !out.diagnostics.has_errors() {
        if let Some(m) = &out.manifest {
            match pack_using(m, &out.assets, &reach.used(m, deps)) {
                Ok(bytes) => out.pallet = Some(bytes),
                Err(e) => out.diagnostics.file_error("", e.to_string()),
            }
        }
    }
    // A build that produced its pallet writes back what it owes the sources (identity
    // sidecars); a check, or a failed build, writes nothing.
    if out.pallet.is_some() {
        perform_writes(&mut writes, &mut out.diagnostics);
        out.diagnostics.sort();
    }
    out.writes = writes;
    out
}

/// Packs compiled `assets` under the manifest `m` into `.pallet` bytes (what a build
/// writes; a tool that rewrites a build's asset list packs it again through here).
pub fn pack(
    m: &PalletManifestSource,
    assets: &[CompiledAsset],
) -> Result<Vec<u8>, crate::pallet::PalletError> {
    pack_using(m, assets, &[])
}

/// [`pack`], recording `used` among the dependencies the build resolved into.
fn pack_using(
    m: &PalletManifestSource,
    assets: &[CompiledAsset],
    used: &[crate::pallet::UsedDependency],
) -> Result<Vec<u8>, crate::pallet::PalletError> {
    let mut manifest = Manifest::new(m.id.clone(), m.name.clone(), m.version.clone());
    manifest.dependencies = m.dependencies.clone();
    manifest.used_dependencies = used.to_vec();
    manifest.default_look = m.look.clone();
    let mut w = PalletWriter::new(manifest)?;
    for a in assets {
        w.add(
            &a.path,
            a.bytes.clone(),
            EntryMeta::mime(mime_of(&a.path)),
            CodecChoice::Auto,
        )?;
    }
    w.finish()
}

fn read_asset(s: &SourceEntry) -> ReadAsset {
    let mut r = ReadAsset {
        path: s.path.clone(),
        kind: s.kind,
        json: None,
        raw: None,
        references: Vec::new(),
        file: None,
        diags: Diagnostics::new(),
        source: None,
        map: None,
        ship: s.kind != AssetKind::ModelSidecar,
        disk: match &s.data {
            SourceData::Disk(p) => Some(p.clone()),
            SourceData::Memory(_) => None,
        },
    };
    if s.kind == AssetKind::Raw {
        match s.data.read() {
            Ok(b) => r.raw = Some(b),
            Err(e) => r
                .diags
                .file_error(&s.path, format!("cannot read the file: {e}")),
        }
        return r;
    }
    let size = s.data.len().unwrap_or(0);
    if size > MAX_JSON_SOURCE {
        r.diags.file_error(
            &s.path,
            format!("the source is {size} bytes; a JSON asset may hold at most {MAX_JSON_SOURCE}"),
        );
        return r;
    }
    let text = match s.data.read().map(String::from_utf8) {
        Ok(Ok(t)) => t,
        Ok(Err(_)) => {
            r.diags
                .file_error(&s.path, "the file is not UTF-8 text; JSON sources must be");
            return r;
        }
        Err(e) => {
            r.diags
                .file_error(&s.path, format!("cannot read the file as UTF-8 text: {e}"));
            return r;
        }
    };
    let file = SourceFile::new(s.path.clone(), text);
    if s.kind == AssetKind::Map {
        // Read now; validated in the pallet-wide pass, once objects are resolved.
        r.source = crate::jsonc::parse(&file.text).ok();
        if let Some(map) = crate::schema::map::read_map(&file, &mut r.diags, Mode::Build) {
            r.references = map_references(&map);
            r.map = Some(map);
        }
    } else {
        if matches!(
            s.kind,
            AssetKind::Object | AssetKind::Avatar | AssetKind::Voxel | AssetKind::Material
        ) {
            r.source = crate::jsonc::parse(&file.text).ok();
        }
        let (json, refs) = read_typed(s.kind, &file, &mut r.diags);
        r.json = json;
        r.references = refs;
    }
    r.file = Some(file);
    r
}

/// Reads and checks one JSON source on its own (no pallet-wide checks): the entry point
/// the fuzz target and editors use. Returns the compiled JSON, when it read.
pub fn check_source(kind: AssetKind, file: &SourceFile, diags: &mut Diagnostics) -> Option<Value> {
    read_typed(kind, file, diags).0
}

/// Reads one JSON asset into its typed form, validates it, and returns the compiled JSON
/// and the references it states.
fn read_typed(
    kind: AssetKind,
    file: &SourceFile,
    diags: &mut Diagnostics,
) -> (Option<Value>, Vec<StatedRef>) {
    match kind {
        AssetKind::Material => {
            let Some(m) = crate::schema::material::read_material(file, diags, Mode::Build) else {
                return (None, Vec::new());
            };
            let refs = m
                .references()
                .into_iter()
                .map(|(member_name, reference)| StatedRef {
                    what: format!("'{member_name}'"),
                    path: member_name.to_string(),
                    reference: reference.to_string(),
                    span: m.at.field(member_name),
                    expect: if member_name == "inherits" {
                        &[".dh-mat"]
                    } else {
                        &[]
                    },
                    rooted: false,
                    content: None,
                })
                .collect();
            (Some(m.to_json()), refs)
        }
        AssetKind::Object | AssetKind::Avatar => {
            let before = diags.items.len();
            let obj = crate::schema::object::read_object(file, diags, Mode::Build);
            if kind == AssetKind::Avatar {
                // A member dh.object does not have is told why (001 line 8).
                let unknown = "unknown member '";
                let at_top = format!(" in {}; ", crate::schema::object::OBJECT_TYPE);
                for d in diags.items.iter_mut().skip(before) {
                    if d.path.is_empty()
                        && d.message.starts_with(unknown)
                        && d.message.contains(&at_top)
                    {
                        d.message = format!(
                            "{}; {}",
                            d.message,
                            crate::schema::object::AVATAR_MEMBERS_DEFERRED
                        );
                    }
                }
            }
            let Some(obj) = obj else {
                return (None, Vec::new());
            };
            let mut cx = Cx::new(file, diags, Mode::Build);
            let type_id = kind.type_id().unwrap_or(crate::schema::object::OBJECT_TYPE);
            crate::schema::object::validate_object_as(&mut cx, &obj, type_id);
            let refs = object_references(&obj);
            (Some(obj.to_json()), refs)
        }
        AssetKind::Rig => {
            let Some(rig) = crate::schema::rig::read_rig(file, diags, Mode::Build) else {
                return (None, Vec::new());
            };
            let mut cx = Cx::new(file, diags, Mode::Build);
            rig.validate(&mut cx);
            (Some(rig.to_json()), Vec::new())
        }
        AssetKind::Map => {
            let Some(map) = crate::schema::map::read_map(file, diags, Mode::Build) else {
                return (None, Vec::new());
            };
            let mut cx = Cx::new(file, diags, Mode::Build);
            crate::schema::map::validate_map(&mut cx, &map);
            let refs = map_references(&map);
            (Some(map.to_json()), refs)
        }
        AssetKind::Voxel => {
            let Some(def) = crate::schema::voxel::read_voxel(file, diags, Mode::Build) else {
                return (None, Vec::new());
            };
            let world = def.data_kind() == crate::schema::voxel::DataKind::World;
            let refs = def
                .references()
                .into_iter()
                .filter(|_| !world) // a world is a folder, converted by the importer
                .map(|(member_name, reference, span)| StatedRef {
                    what: format!("'{member_name}'"),
                    path: member_name.to_string(),
                    reference: reference.to_string(),
                    span,
                    expect: &[],
                    rooted: false,
                    content: None,
                })
                .collect();
            (Some(def.to_json()), refs)
        }
        AssetKind::ModelSidecar => {
            let sidecar = crate::schema::model::read_model_sidecar(file, diags, Mode::Build);
            (sidecar.map(|s| s.to_json()), Vec::new())
        }
        AssetKind::Block => {
            let Some(b) = crate::schema::block::read_block_def(file, diags, Mode::Build) else {
                return (None, Vec::new());
            };
            let refs = b
                .references()
                .into_iter()
                .map(|(what, reference, span)| StatedRef {
                    path: if what == "'inherits'" {
                        "inherits".into()
                    } else {
                        String::new()
                    },
                    expect: if what == "'inherits'" {
                        &[".dh-block"]
                    } else {
                        &[]
                    },
                    what,
                    reference: reference.to_string(),
                    span,
                    rooted: false,
                    content: None,
                })
                .collect();
            (Some(b.to_json()), refs)
        }
        AssetKind::Raw => (None, Vec::new()),
    }
}

/// Converts every dh.voxel definition whose `data` names a `.vox` or a Minecraft
/// structure (`.schem`, `.litematic`, `.nbt`, `.schematic`) in this pallet: the source is
/// imported into a `.dh-vox.bin` payload (with its shards) that ships in its
/// place, and the compiled definition's `data` points at the payload. The source itself
/// never ships.
fn convert_voxel_sources(
    manifest: &PalletManifestSource,
    read: &mut [ReadAsset],
) -> Vec<CompiledAsset> {
    use crate::schema::voxel::{payload_path, DataKind};
    let mut out = Vec::new();
    let mut consumed = Vec::new();
    for i in 0..read.len() {
        if read[i].kind != AssetKind::Voxel || read[i].diags.has_errors() {
            continue;
        }
        let Some(json) = &read[i].json else { continue };
        let Some(data) = json
            .get("data")
            .and_then(|d| d.as_str())
            .map(str::to_string)
        else {
            continue;
        };
        let kind = DataKind::of(&data);
        let structure = crate::voxel::minecraft::StructureFormat::of_data(&data);
        if kind == DataKind::World {
            convert_world_source(manifest, &mut read[i], &data, &mut out);
            continue;
        }
        if kind != DataKind::Vox && structure.is_none() {
            continue;
        }
        let platform = json
            .get("platform")
            .and_then(|p| p.as_str())
            .map(str::to_string);
        let authored_version = json
            .get("platformVersion")
            .and_then(|p| p.as_str())
            .map(str::to_string);
        let def_path = read[i].path.clone();
        let span = read[i]
            .source
            .as_ref()
            .and_then(|v| v.get("data"))
            .map(|v| v.span)
            .unwrap_or_default();
        let Ok(b) = refs::resolve(&data, &manifest.id, &def_path, &manifest.dependencies) else {
            continue; // reported by the reference check
        };
        let Some(src) = read
            .iter()
            .position(|r| r.path == b.path && b.pallet == manifest.id)
        else {
            continue; // reported by the reference check
        };
        let Some(bytes) = read[src].raw.clone() else {
            continue;
        };
        let r = &mut read[i];
        let converted = match structure {
            None => crate::voxel::import::import_vox_bytes(&b.path, &bytes, platform.as_deref())
                .map(|imp| (imp.payload, imp.warnings))
                .map_err(|e| e.to_string()),
            Some(format) => crate::voxel::minecraft::import_bytes(
                &b.path,
                &bytes,
                format,
                &crate::voxel::minecraft::Limits::default(),
            )
            .map(|mut imp| {
                // An authored platformVersion wins over the release table's.
                if let Some(v) = &authored_version {
                    imp.payload.header.platform_version = v.clone();
                }
                (imp.payload, imp.warnings)
            })
            .map_err(|e| e.to_string()),
        };
        let platform_version = converted
            .as_ref()
            .ok()
            .map(|(p, _)| p.header.platform_version.clone())
            .filter(|v| !v.is_empty());
        let result = converted.and_then(|(payload, warnings)| {
            crate::voxel::payload::encode(&payload)
                .map(|shards| (warnings, shards))
                .map_err(|e| e.to_string())
        });
        match result {
            Ok((warnings, shards)) => {
                let payload = payload_path(&def_path);
                for w in warnings {
                    if let Some(file) = &r.file {
                        r.diags
                            .warning(file, span, "data", format!("{}: {w}", b.path));
                    }
                }
                for (n, shard) in shards.into_iter().enumerate() {
                    let path = crate::pallet::voxel_shard_name(&payload, n as u16);
                    out.push(CompiledAsset {
                        path,
                        kind: AssetKind::Raw,
                        bytes: shard,
                    });
                }
                point_at_payload(r, &payload, kind, platform_version);
                consumed.push(src);
            }
            Err(e) => {
                if let Some(file) = &r.file {
                    r.diags
                        .error(file, span, "data", format!("'{data}' does not import: {e}"));
                }
            }
        }
    }
    for src in consumed {
        read[src].ship = false;
    }
    out
}

/// Points a converted definition's compiled `data` at its payload, and fills `format`
/// and (for a Minecraft source, unless authored) `platformVersion`.
fn point_at_payload(
    r: &mut ReadAsset,
    payload: &str,
    kind: crate::schema::voxel::DataKind,
    platform_version: Option<String>,
) {
    let Some(Value {
        kind: Kind::Object(members),
        ..
    }) = &mut r.json
    else {
        return;
    };
    for m in members.iter_mut() {
        if m.key == "data" {
            let leaf = payload.rsplit('/').next().unwrap_or(payload);
            m.value = Value::synthetic(Kind::String(leaf.to_string()));
        }
    }
    if !members.iter().any(|m| m.key == "format") {
        let format = kind.format().unwrap_or("vox");
        members.push(member(
            "format",
            Value::synthetic(Kind::String(format.into())),
        ));
    }
    // A Minecraft source fills platformVersion from its data version.
    if let Some(v) = platform_version {
        if !members.iter().any(|m| m.key == "platformVersion") {
            members.push(member("platformVersion", Value::synthetic(Kind::String(v))));
        }
    }
}

/// Converts a definition whose `data` names a Java world folder of this pallet (spec
/// dh.voxel, "Worlds"): the save is read from disk region by region into the payload,
/// which ships beside the definition; the folder itself never ships ([`discover`] leaves
/// it out). A chunk that does not read is a warning naming it, and the rest converts.
fn convert_world_source(
    manifest: &PalletManifestSource,
    r: &mut ReadAsset,
    data: &str,
    out: &mut Vec<CompiledAsset>,
) {
    use crate::schema::voxel::{payload_path, DataKind};
    use crate::voxel::minecraft::world;
    let span = r
        .source
        .as_ref()
        .and_then(|v| v.get("data"))
        .map(|v| v.span)
        .unwrap_or_default();
    let Some(file) = r.file.clone() else { return };
    let authored_version = r
        .json
        .as_ref()
        .and_then(|j| j.get("platformVersion"))
        .and_then(|p| p.as_str())
        .map(str::to_string);
    let def_path = r.path.clone();
    let fail = |r: &mut ReadAsset, msg: String| r.diags.error(&file, span, "data", msg);
    let b = match refs::resolve(data, &manifest.id, &def_path, &manifest.dependencies) {
        Ok(b) => b,
        Err(e) => return fail(r, format!("'{data}': {e}")),
    };
    if b.pallet != manifest.id {
        return fail(
            r,
            format!(
                "'{data}' is a Java world folder of pallet {}; a world converts from a folder of the pallet being built",
                b.pallet
            ),
        );
    }
    // The pallet's root on disk: the definition's file less its pallet path.
    let root = r.disk.as_ref().and_then(|d| {
        let depth = def_path.split('/').count();
        d.ancestors().nth(depth).map(Path::to_path_buf)
    });
    let Some(root) = root else {
        return fail(
            r,
            format!("'{data}' is a Java world folder; a world is read from disk, and this build's sources are not on disk"),
        );
    };
    let folder = root.join(&b.path);
    if !folder.is_dir() {
        return fail(
            r,
            format!(
                "'{data}' names no folder ({}); expected {} of this pallet, or a file ending in .vox, .schem, .litematic, .nbt, .schematic or .dh-vox.bin",
                folder.display(),
                DataKind::World.describe()
            ),
        );
    }
    let converted = world::save::discover(&folder)
        .map_err(|e| e.to_string())
        .and_then(|save| {
            world::convert_world(&save, &world::WorldOptions::default()).map_err(|e| e.to_string())
        });
    let (shards, report) = match converted {
        Ok(c) => c,
        Err(e) => return fail(r, format!("'{data}' does not import: {e}")),
    };
    for w in report.warnings.iter().chain(&report.chunk_errors) {
        r.diags
            .warning(&file, span, "data", format!("{}: {w}", b.path));
    }
    let payload = payload_path(&def_path);
    for (n, shard) in shards.into_iter().enumerate() {
        out.push(CompiledAsset {
            path: crate::pallet::voxel_shard_name(&payload, n as u16),
            kind: AssetKind::Raw,
            bytes: shard,
        });
    }
    let version = authored_version
        .is_none()
        .then(|| report.level.platform_version())
        .filter(|v| !v.is_empty());
    point_at_payload(r, &payload, DataKind::World, version);
}

/// What the build's inheritance chains reached in other pallets: the pallets a map's
/// parent or an object's base lives in (recorded among the ones the pallet uses, spec
/// dh.map "Inheritance"), and the ones a chain needed that are not mounted (said once
/// each, naming the assets whose chains stop there).
#[derive(Debug, Default)]
struct Reach {
    reached: std::collections::BTreeSet<String>,
    absent: BTreeMap<String, Vec<String>>,
    /// Per absent pallet, the assets of it that the chains name (`pallet:path`), sorted.
    wanted: BTreeMap<String, std::collections::BTreeSet<String>>,
}

impl Reach {
    /// A chain of `asset` reached into pallet `pallet` (another than the build's own).
    fn note(&mut self, pallet: &str, asset: &str, deps: &Dependencies) {
        self.reached.insert(pallet.to_string());
        if !deps.contains(pallet) {
            let list = self.absent.entry(pallet.to_string()).or_default();
            if !list.iter().any(|a| a == asset) {
                list.push(asset.to_string());
            }
        }
    }

    /// A chain of `asset` stops at `missing`, an asset of a pallet that is not mounted.
    fn note_cut(&mut self, missing: &Barcode, asset: &str, deps: &Dependencies) {
        self.note(&missing.pallet, asset, deps);
        if !deps.contains(&missing.pallet) {
            self.wanted
                .entry(missing.pallet.clone())
                .or_default()
                .insert(missing.to_string());
        }
    }

    /// The declared dependencies a chain reached, with the checksum each mounted one has
    /// (empty for one that is not mounted).
    fn used(
        &self,
        m: &PalletManifestSource,
        deps: &Dependencies,
    ) -> Vec<crate::pallet::UsedDependency> {
        self.reached
            .iter()
            .filter(|id| m.dependencies.contains(id))
            .map(|id| crate::pallet::UsedDependency {
                id: id.clone(),
                content_checksum: deps.content_checksum(id).unwrap_or_default().to_string(),
            })
            .collect()
    }

    /// One warning per dependency a chain needed that is not mounted. The core pallet is
    /// left out: the engine always mounts it, so its chains are always folded where they
    /// load (ours; `--pallet` a compiled core pallet to check them at build).
    fn report(&self, m: &PalletManifestSource, deps: &Dependencies, diags: &mut Diagnostics) {
        for (id, assets) in &self.absent {
            if id == crate::schema::manifest::CORE_PALLET_ID {
                continue;
            }
            let unreadable: Vec<String> = deps
                .unreadable()
                .iter()
                .map(|(f, e)| format!("{f} beside it does not open: {e}"))
                .collect();
            let unreadable = if unreadable.is_empty() {
                String::new()
            } else {
                format!(" ({})", unreadable.join("; "))
            };
            let mut assets: Vec<&str> = assets.iter().map(String::as_str).collect();
            assets.sort_unstable();
            let shown: Vec<&str> = assets.iter().take(3).copied().collect();
            let more = if assets.len() > shown.len() {
                format!(" and {} more", assets.len() - shown.len())
            } else {
                String::new()
            };
            // What the chains name there: the missing template (or base), by name.
            let wanted = self.wanted.get(id).map_or(String::new(), |w| {
                let w: Vec<&str> = w.iter().map(String::as_str).collect();
                format!(" (they need {})", w.join(", "))
            });
            // The Minecraft platform pallet holds the environment template every imported
            // world inherits; this toolchain does not make it yet.
            let platform = if id == crate::schema::voxel::MINECRAFT {
                "; the Minecraft platform pallet, which holds that template, is not made by this toolchain yet"
            } else {
                ""
            };
            diags.items.push(crate::diag::Diagnostic {
                severity: crate::diag::Severity::Warning,
                file: "pallet.dh".to_string(),
                line: 0,
                col: 0,
                path: "dependencies".to_string(),
                message: format!(
                    "dependency '{id}' is not mounted: no compiled pallet with that id lies beside the source folder and no --pallet names one{unreadable}, so the inheritance chains of {}{more}{wanted} are checked only as far as pallet '{}' goes (the whole is checked where they load); build '{id}' beside this folder or pass --pallet to check them whole{platform}",
                    shown.join(", "),
                    m.id
                ),
            });
        }
    }
}

/// Resolves every object of the pallet whose variant chain the build can follow to its
/// root — inside the pallet, or into the mounted dependencies: adds the compiled object's
/// `resolved` member and returns, per object barcode, the component types its resolved
/// root carries. A chain that reaches into a pallet that is not mounted is resolved at
/// load, where that pallet is mounted (and the build says once that it is absent).
fn resolve_objects(
    manifest: &PalletManifestSource,
    read: &mut [ReadAsset],
    deps: &Dependencies,
    reach: &mut Reach,
) -> BTreeMap<String, Vec<String>> {
    use crate::fold::{cut_before, gather_chain_within, resolve_object, ChainKind, Level};
    let levels: BTreeMap<String, Level> = read
        .iter()
        .filter(|r| matches!(r.kind, AssetKind::Object | AssetKind::Avatar))
        .filter_map(|r| {
            let json = r.source.clone()?;
            let barcode = Barcode {
                pallet: manifest.id.clone(),
                path: r.path.clone(),
            };
            Some((
                r.path.clone(),
                Level::new(barcode, json, manifest.dependencies.clone()),
            ))
        })
        .collect();
    let within = |p: &str| p == manifest.id || deps.contains(p);
    // The pallet's rigs that read, by path: what the resolved rules that read a rig ask.
    let rigs: BTreeMap<String, crate::schema::rig::DhRig> = read
        .iter()
        .filter(|r| r.kind == AssetKind::Rig && !r.diags.has_errors())
        .filter_map(|r| Some((r.path.clone(), rig_of_json(&r.path, r.json.as_ref()?)?)))
        .collect();
    let mut roots = BTreeMap::new();
    for r in read.iter_mut() {
        if !matches!(r.kind, AssetKind::Object | AssetKind::Avatar) || r.diags.has_errors() {
            continue;
        }
        let Some(leaf) = levels.get(&r.path).cloned() else {
            continue;
        };
        let lookup = |b: &Barcode| {
            if b.pallet == manifest.id {
                levels.get(&b.path).cloned()
            } else {
                deps.level(b)
            }
        };
        let (chain, problems) = gather_chain_within(leaf, ChainKind::Object, &within, lookup);
        for level in chain.iter().filter(|l| l.barcode.pallet != manifest.id) {
            reach.note(&level.barcode.pallet, &r.path, deps);
        }
        let cut = cut_before(&chain);
        if let Some(b) = cut.as_ref().filter(|b| !within(&b.pallet)) {
            reach.note_cut(b, &r.path, deps);
        }
        for p in &problems {
            r.diags.items.push(p.to_diagnostic(r.file.as_ref()));
        }
        if !problems.is_empty() || cut.is_some() {
            continue;
        }
        match resolve_object(&chain) {
            Ok(folded) => {
                for p in &folded.problems {
                    // A problem located in a level of another pallet is that pallet's
                    // (reported by its own build), not this file's.
                    if p.at.pallet == manifest.id {
                        r.diags.items.push(p.to_diagnostic(r.file.as_ref()));
                    }
                }
                // The rules held against the whole inherits chain (spec 001 lines 470,
                // 574), on the chain as resolved.
                if let (Some(leaf), Some(file)) = (&r.source, &r.file) {
                    let rig_of = |b: &str| rig_at(manifest, &rigs, deps, b);
                    for p in crate::schema::object::validate_resolved_object(
                        leaf,
                        &folded.value,
                        &rig_of,
                    ) {
                        r.diags.push(p.severity, file, p.span, &p.path, p.message);
                    }
                }
                roots.insert(
                    format!("{}:{}", manifest.id, r.path),
                    root_component_types(&folded.value),
                );
                if let Some(Value {
                    kind: Kind::Object(members),
                    ..
                }) = &mut r.json
                {
                    members.retain(|m| m.key != "resolved");
                    members.push(member("resolved", folded.value));
                }
            }
            Err(e) => r.diags.file_error(&r.path, e.to_string()),
        }
    }
    roots
}

/// Checks each material's `inherits` chain inside the pallet and into the mounted
/// dependencies ([`crate::fold::resolve_material_chain`]'s walk): a circular chain or a
/// parent that is not a dh.material is an error at the material whose `inherits` states
/// the faulty link (the engine folds the chain at load, where every pallet is mounted).
fn check_material_chains(
    manifest: &PalletManifestSource,
    read: &mut [ReadAsset],
    deps: &Dependencies,
) {
    use crate::fold::{gather_chain_within, ChainKind, Level};
    let levels: BTreeMap<String, Level> = read
        .iter()
        .filter(|r| r.kind == AssetKind::Material)
        .filter_map(|r| {
            let json = r.source.clone()?;
            let barcode = Barcode {
                pallet: manifest.id.clone(),
                path: r.path.clone(),
            };
            Some((
                r.path.clone(),
                Level::new(barcode, json, manifest.dependencies.clone()),
            ))
        })
        .collect();
    let within = |p: &str| p == manifest.id || deps.contains(p);
    let lookup = |b: &Barcode| {
        if b.pallet == manifest.id {
            levels.get(&b.path).cloned()
        } else {
            deps.level(b)
        }
    };
    // Each faulty link once, at the material that states it (a loop is met from each of
    // its materials, at a different link each time).
    let mut found: BTreeMap<(String, String), crate::fold::ChainProblem> = BTreeMap::new();
    for r in read.iter() {
        if r.kind != AssetKind::Material || r.diags.has_errors() {
            continue;
        }
        let Some(leaf) = levels.get(&r.path).cloned() else {
            continue;
        };
        if leaf.json.get("inherits").is_none() {
            continue;
        }
        let (_, problems) = gather_chain_within(leaf, ChainKind::Material, &within, lookup);
        // A link to a file that is not a `.dh-mat` is the reference check's to report.
        let names_material = |p: &crate::fold::ChainProblem| {
            levels
                .get(&p.at.path)
                .and_then(|l| Some(l.resolve(l.json.get("inherits")?.as_str()?).ok()?.path))
                .is_none_or(|path| path.ends_with(".dh-mat"))
        };
        for p in problems
            .into_iter()
            .filter(|p| p.at.pallet == manifest.id && names_material(p))
        {
            let key = (p.at.path.clone(), p.message.clone());
            found.entry(key).or_insert(p);
        }
    }
    for ((path, _), p) in found {
        if let Some(r) = read.iter_mut().find(|r| r.path == path) {
            r.diags.items.push(p.to_diagnostic(r.file.as_ref()));
        }
    }
}

/// A rig held as compiled JSON, read in load mode (its own build checked it).
fn rig_of_json(label: &str, json: &Value) -> Option<crate::schema::rig::DhRig> {
    let file = SourceFile::new(label, json.to_json());
    let mut scratch = Diagnostics::new();
    crate::schema::rig::read_rig(&file, &mut scratch, Mode::Load)
}

/// The rig `barcode` names: one of this pallet's (`rigs`), or one of a mounted dependency.
fn rig_at(
    manifest: &PalletManifestSource,
    rigs: &BTreeMap<String, crate::schema::rig::DhRig>,
    deps: &Dependencies,
    barcode: &str,
) -> Option<crate::schema::rig::DhRig> {
    let (pallet, path) = refs::split_barcode(barcode)?;
    if pallet == manifest.id {
        return rigs.get(path).cloned();
    }
    let b = Barcode {
        pallet: pallet.to_string(),
        path: path.to_string(),
    };
    rig_of_json(barcode, &deps.json(&b)?)
}

/// Warns on every `dh.renderer` slot an object binds that its model does not have (spec:
/// dh.object, dh.renderer — "Materials bind by slot name"; a name that binds nothing would
/// leave its slot drawing flat white): the warning names the part and the slot and lists
/// the mesh's slots, with the nearest as "did you mean". Checked on the resolved object,
/// so a renderer a variant inherits is checked against the model the variant places
/// ("Replacing an inherited model"), warned at the variant's `inherits` when the variant
/// writes its own `model` (else the renderer's own file warns); a renderer on the
/// root binds the slots of every part, so it is checked against all of them. Only where
/// the build knows the slots: the object's resolved model is a `.glb` of this pallet, read
/// for its scene graph alone, its `.dh-model` sidecar's ops applied when it has one. A
/// `#index` key is checked against the number of slots (on a part only).
fn check_renderer_slots(manifest: &PalletManifestSource, read: &mut [ReadAsset]) {
    use crate::gltf::{read_scene, ImportOptions, Purpose};
    let mut models: BTreeMap<String, Option<crate::gltf::Model>> = BTreeMap::new();
    let rigs: BTreeMap<String, crate::schema::rig::DhRig> = read
        .iter()
        .filter(|r| r.kind == AssetKind::Rig && !r.diags.has_errors())
        .filter_map(|r| Some((r.path.clone(), rig_of_json(&r.path, r.json.as_ref()?)?)))
        .collect();
    for i in 0..read.len() {
        let r = &read[i];
        if !matches!(r.kind, AssetKind::Object | AssetKind::Avatar) || r.diags.has_errors() {
            continue;
        }
        let (Some(file), Some(source)) = (r.file.clone(), r.source.clone()) else {
            continue;
        };
        let Some(resolved) = r.json.as_ref().and_then(|j| j.get("resolved")).cloned() else {
            continue;
        };
        let Some(path) = resolved
            .get("model")
            .and_then(Value::as_str)
            .and_then(|b| b.strip_prefix(manifest.id.as_str()))
            .and_then(|p| p.strip_prefix(':'))
            .map(str::to_string)
        else {
            continue;
        };
        if !path.to_ascii_lowercase().ends_with(".glb") {
            continue;
        }
        let model = models.entry(path.clone()).or_insert_with(|| {
            let bytes = read
                .iter()
                .find(|x| x.path == path && x.kind == AssetKind::Raw)
                .and_then(|x| x.raw.as_deref())?;
            let opts = ImportOptions {
                purpose: Purpose::Object,
                ..ImportOptions::default()
            };
            let mut model = read_scene(bytes, &path, &opts).ok()?;
            // The sidecar's ops (renames, drops) come before the renderers bind.
            let sidecar = format!("{path}.dh-model");
            if let Some(x) = read.iter().find(|x| x.path == sidecar) {
                let (Some(f), false) = (&x.file, x.diags.has_errors()) else {
                    return None;
                };
                let mut scratch = Diagnostics::new();
                let ops = crate::schema::model::read_model_sidecar(f, &mut scratch, Mode::Build)?;
                crate::gltf::apply_sidecar(&mut model, &ops);
            }
            Some(model)
        });
        let Some(model) = model.as_ref() else {
            continue;
        };
        let mut found = Diagnostics::new();
        if let Some(resolved) = r.json.as_ref().and_then(|j| j.get("resolved")) {
            let rig_of = |b: &str| {
                b.strip_prefix(manifest.id.as_str())
                    .and_then(|p| p.strip_prefix(':'))
                    .and_then(|p| rigs.get(p))
            };
            check_collider_bones(resolved, &source, &rig_of, model, &path, &file, &mut found);
        }
        let paths = model.node_paths();
        let slots_of = |mesh: &crate::gltf::Mesh| {
            let mut slots: Vec<String> = Vec::new();
            for p in &mesh.primitives {
                if let Some(m) = p.material.as_deref() {
                    if !slots.iter().any(|s| s == m) {
                        slots.push(m.to_string());
                    }
                }
            }
            slots
        };
        // An inherited renderer is this file's to warn on only where this file replaces
        // the model it lands on; otherwise its own file warns.
        let inherits = source
            .get("model")
            .and(source.get("inherits"))
            .and_then(|v| v.as_str().map(|b| (b, v.span)));
        let list = |v: &Value, key: &str| -> Vec<Value> {
            v.get(key)
                .and_then(Value::as_array)
                .map(<[Value]>::to_vec)
                .unwrap_or_default()
        };
        let own_children = list(&source, "children");
        // Where a slot key is written: in this file (its span and JSON path), else
        // inherited (at `inherits`).
        let locate = |components: &[Value], prefix: &str, key: &str| {
            for (k, c) in components.iter().enumerate() {
                if c.get("$type").and_then(Value::as_str) != Some("dh.renderer") {
                    continue;
                }
                if let Some(Kind::Object(members)) = c.get("materials").map(|m| &m.kind) {
                    if let Some(m) = members.iter().find(|m| m.key == key) {
                        return Some((m.key_span, format!("{prefix}components[{k}].materials")));
                    }
                }
            }
            None
        };
        let mut warn = |at: Option<(crate::jsonc::Span, String)>, message: String| {
            let (span, at, message) = match (at, inherits) {
                (Some((span, at)), _) => (span, at, message),
                (None, Some((base, span))) => (
                    span,
                    "inherits".to_string(),
                    format!("{message} (the renderer is inherited from '{base}')"),
                ),
                (None, None) => return,
            };
            found.warning(&file, span, &at, message);
        };
        let listed = |slots: &[String], whose: &str| {
            if slots.is_empty() {
                format!("{whose} has no named slots")
            } else {
                format!("the slots of {whose} are: {}", slots.join(", "))
            }
        };
        for child in list(&resolved, "children") {
            let Some(part) = child.get("path").and_then(Value::as_str) else {
                continue;
            };
            let Some(mesh) = paths
                .iter()
                .position(|p| p == part)
                .and_then(|n| model.nodes.get(n))
                .and_then(|n| n.mesh)
                .and_then(|m| model.meshes.get(m))
            else {
                continue;
            };
            let slots = slots_of(mesh);
            let own = own_children
                .iter()
                .enumerate()
                .find(|(_, c)| c.get("path").and_then(Value::as_str) == Some(part));
            for c in list(&child, "components") {
                if c.get("$type").and_then(Value::as_str) != Some("dh.renderer") {
                    continue;
                }
                let Some(Kind::Object(members)) = c.get("materials").map(|m| &m.kind) else {
                    continue;
                };
                for m in members {
                    let key = m.key.as_str();
                    let bound = match key.strip_prefix('#') {
                        Some(n) => n.parse::<usize>().is_ok_and(|n| n < mesh.primitives.len()),
                        None => slots.iter().any(|s| s == key),
                    };
                    if bound {
                        continue;
                    }
                    let at = own.and_then(|(ci, oc)| {
                        locate(&list(oc, "components"), &format!("children[{ci}]."), key)
                    });
                    warn(
                        at,
                        format!(
                            "part '{part}': dh.renderer slot '{key}' is not a slot of the model '{path}' at this part, so it binds nothing; {}{}",
                            listed(&slots, "its mesh"),
                            crate::diag::did_you_mean(key, slots.iter().map(String::as_str))
                        ),
                    );
                }
            }
        }
        // A renderer on the root binds the slots of every part.
        let mut all: Vec<String> = Vec::new();
        for mesh in model
            .nodes
            .iter()
            .filter_map(|n| n.mesh)
            .filter_map(|m| model.meshes.get(m))
        {
            for s in slots_of(mesh) {
                if !all.contains(&s) {
                    all.push(s);
                }
            }
        }
        for c in list(&resolved, "components") {
            if c.get("$type").and_then(Value::as_str) != Some("dh.renderer") {
                continue;
            }
            let Some(Kind::Object(members)) = c.get("materials").map(|m| &m.kind) else {
                continue;
            };
            for m in members {
                let key = m.key.as_str();
                if key.starts_with('#') || all.iter().any(|s| s == key) {
                    continue;
                }
                warn(
                    locate(&list(&source, "components"), "", key),
                    format!(
                        "the root's dh.renderer slot '{key}' is not a slot of any part of the model '{path}', so it binds nothing; {}{}",
                        listed(&all, "the model"),
                        crate::diag::did_you_mean(key, all.iter().map(String::as_str))
                    ),
                );
            }
        }
        read[i].diags.extend(found);
    }
}

/// Refuses a resolved root spring collider whose role the rig maps to a bone the model
/// does not have (spec 001 line 574: "Against the avatar's whole inherits chain it also
/// refuses ... a mapped bone the model does not have"). The bone is found by name anywhere
/// in the model (003 line 249: "Model bone names resolve by recursive name search"). Only
/// where the build reads the model (see [`check_renderer_slots`]) and the rig is this
/// pallet's (`rig_of`); reported at the leaf's own collider of that id, as the other
/// resolved rules are.
fn check_collider_bones<'r>(
    resolved: &Value,
    leaf: &Value,
    rig_of: &dyn Fn(&str) -> Option<&'r crate::schema::rig::DhRig>,
    model: &crate::gltf::Model,
    model_path: &str,
    file: &SourceFile,
    found: &mut Diagnostics,
) {
    let is = |c: &Value, t: &str| c.get("$type").and_then(Value::as_str) == Some(t);
    let str_of = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
    let root = resolved
        .get("components")
        .and_then(Value::as_array)
        .unwrap_or(&[]);
    let Some(barcode) = root
        .iter()
        .find(|c| is(c, "dh.skeleton"))
        .and_then(|c| str_of(c, "rig"))
    else {
        return;
    };
    let Some(rig) = rig_of(&barcode) else {
        return;
    };
    let leaf_root = leaf
        .get("components")
        .and_then(Value::as_array)
        .unwrap_or(&[]);
    let names: Vec<&str> = model.nodes.iter().map(|n| n.name.as_str()).collect();
    for c in root.iter().filter(|c| is(c, "dh.springCollider")) {
        let (Some(id), Some(role)) = (str_of(c, "id"), str_of(c, "bone")) else {
            continue;
        };
        // A role the rig does not map is the resolved rules' to report.
        let Some(bone) = rig.bone_of(&role) else {
            continue;
        };
        if names.contains(&bone) {
            continue;
        }
        let Some((k, own)) = leaf_root.iter().enumerate().find(|(_, l)| {
            is(l, "dh.springCollider") && str_of(l, "id").as_deref() == Some(id.as_str())
        }) else {
            continue;
        };
        found.error(
            file,
            own.span,
            &format!("components[{k}]"),
            format!(
                "spring collider '{id}' hangs on the role '{role}', which its rig '{barcode}' maps to the bone '{bone}', and the model '{model_path}' has no bone of that name{}",
                crate::diag::did_you_mean(bone, names.iter().copied())
            ),
        );
    }
}

/// The component types a resolved object root carries (`dh.mover`, ...), in order.
fn root_component_types(resolved: &Value) -> Vec<String> {
    resolved
        .get("components")
        .and_then(|c| c.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|c| c.get("$type").and_then(|t| t.as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The component types the root of object `b` in a mounted dependency carries once
/// resolved: its compiled `resolved` member, or (an object that varies nothing) its own
/// components. `None` when it is not mounted, or is a variant its build could not resolve.
fn mounted_root_types(deps: &Dependencies, b: &Barcode) -> Option<Vec<String>> {
    let json = deps.json(b)?;
    match json.get("resolved") {
        Some(resolved) => Some(root_component_types(resolved)),
        None if json.get("inherits").is_none() => Some(root_component_types(&json)),
        None => None,
    }
}

/// Validates every map with what the pallet knows: the inheritance chain inside the pallet
/// (cycles, parents, repeated names, thumbnails, inherited geometry and records), and the
/// record rules with the component types each object placement's source resolves to.
/// Returns the identity sidecars the models it imported need written back, and each map's
/// cooked-collision companion (`<map>.dh-colcook`, autoCollision's mesh shapes).
fn check_maps(
    manifest: &PalletManifestSource,
    read: &mut [ReadAsset],
    roots: &BTreeMap<String, Vec<String>>,
    deps: &Dependencies,
    reach: &mut Reach,
) -> (Vec<CompilerWrite>, Vec<CompiledAsset>, Vec<ThumbMap>) {
    use crate::fold::{check_map_chain_mounted, Level};
    let mut thumb_maps = Vec::new();
    let barcode = |path: &str| Barcode {
        pallet: manifest.id.clone(),
        path: path.to_string(),
    };
    // Every JSON asset by path, so a parent that is not a map is seen as one.
    let levels: BTreeMap<String, Level> = read
        .iter()
        .filter_map(|r| {
            let json = r.source.clone().or_else(|| r.json.clone())?;
            Some((
                r.path.clone(),
                Level::new(barcode(&r.path), json, manifest.dependencies.clone()),
            ))
        })
        .collect();
    let sources: BTreeMap<String, SourceFile> = read
        .iter()
        .filter_map(|r| Some((r.path.clone(), r.file.clone()?)))
        .collect();
    let mut models = ModelCache::default();
    let mut companions = Vec::new();
    for i in 0..read.len() {
        let (Some(mut map), Some(file)) = (read[i].map.take(), read[i].file.clone()) else {
            continue;
        };
        let mut baked = Diagnostics::new();
        let companion = bake_model_instances(
            manifest,
            read,
            &read[i].path,
            &mut map,
            &file,
            &mut baked,
            &mut models,
        );
        companions.extend(companion.map(|c| CompiledAsset {
            path: c.path,
            kind: AssetKind::Raw,
            bytes: c.bytes,
        }));
        let r = &mut read[i];
        r.diags.extend(baked);
        let lookup = |b: &Barcode| {
            if b.pallet == manifest.id {
                levels.get(&b.path).cloned()
            } else {
                deps.level(b)
            }
        };
        let types_of = |b: &Barcode| {
            if b.pallet == manifest.id {
                roots.get(&b.to_string()).cloned()
            } else {
                mounted_root_types(deps, b)
            }
        };
        let mut info = map.map_info();
        if let Some(leaf) = levels.get(&r.path) {
            inherit_info(manifest, leaf, deps, &lookup, &mut info, reach, &r.path);
        }
        for record in info.inherited.iter().chain(&map.objects) {
            if let crate::schema::records::Record::Instance(inst) = record {
                // An inherited record's source is a barcode already (its parent's pallet
                // may declare what this one does not).
                let b = refs::resolve(&inst.source, &manifest.id, &r.path, &manifest.dependencies)
                    .ok()
                    .or_else(|| {
                        refs::split_barcode(&inst.source).map(|(pallet, path)| Barcode {
                            pallet: pallet.to_string(),
                            path: path.to_string(),
                        })
                    });
                if let Some(b) = b {
                    if let Some(types) = types_of(&b) {
                        info.source_root_components
                            .push((inst.source.clone(), types));
                    }
                }
            }
        }
        {
            let mut cx = Cx::new(&file, &mut r.diags, Mode::Build);
            crate::schema::map::validate_map_with(&mut cx, &map, &info);
        }
        // What the map ships lit by is said of a map that ships: one with errors does not.
        if info.lightmap_enabled && !r.diags.has_errors() {
            let path = r.path.clone();
            let verdict = lightmap_verdict(manifest, read, &map, &info, &path);
            let sidecar = crate::lightmap::build::sidecar_path(&path);
            if let Some(s) = read.iter_mut().find(|s| s.path == sidecar) {
                match &verdict {
                    crate::lightmap::build::Verdict::Live(_) => s.ship = false,
                    crate::lightmap::build::Verdict::Ships {
                        bytes: Some(fitted),
                        ..
                    } => s.raw = Some(fitted.clone()),
                    crate::lightmap::build::Verdict::Ships { .. } => {}
                }
            }
            let r = &mut read[i];
            let mut cx = Cx::new(&file, &mut r.diags, Mode::Build);
            lit_in_real_time(&mut cx, &map, verdict);
        }
        let r = &mut read[i];
        warn_no_surfaces(&mut r.diags, &file, &map, &info);
        if let Some(leaf) = levels.get(&r.path) {
            let within = |p: &str| deps.contains(p);
            for p in check_map_chain_mounted(leaf, &within, lookup) {
                let src = sources
                    .get(&p.at.path)
                    .filter(|_| p.at.pallet == manifest.id);
                r.diags.items.push(p.to_diagnostic(src));
            }
        }
        if let Some(source) = &r.source {
            name_records(&mut r.diags, &file.path, source);
        }
        if !r.diags.has_errors() {
            let records = || info.inherited.iter().chain(&map.objects);
            let camera = records().find_map(|rec| {
                rec.components().iter().find_map(|c| match c {
                    crate::schema::components::MapComponent::Camera(c) if c.claims_thumbnail() => {
                        Some(c)
                    }
                    _ => None,
                })
            });
            if let Some(c) = camera {
                thumb_maps.push(ThumbMap {
                    path: r.path.clone(),
                    disk: r.disk.clone(),
                    size: c.thumbnail_size_or_default(),
                    auto_capture: c.auto_capture_or_default(),
                    boxes: crate::thumbnail::plan_boxes(records()),
                });
            }
        }
        let mut json = map.to_json();
        if let Some(source) = &r.source {
            keep_overrides_as_written(&mut json, source);
        }
        r.json = Some(json);
    }
    ship_converted(manifest, read, &mut models);
    let writes = identity_writes(read, &models);
    for (i, d) in models.sidecar_diags {
        if let Some(r) = read.get_mut(i) {
            r.diags.extend(d);
        }
    }
    (writes, companions, thumb_maps)
}

/// A map whose folded chain enables `lighting.lightmap` ships lit in real time when no
/// lightmap it can use lies beside it (spec 000:1303: "A map that asks for a lightmap with
/// no sidecar, one this build cannot read, or one baked for different geometry ... ships lit
/// in real time with a build warning naming the file — it never fails the build"): one
/// warning, naming the file, why, and what is lit instead (every light, `"baked"` ones
/// included, is lit live, so a baked lamp never vanishes). A sidecar that ships may still
/// carry notes (a declared bake set the bake does not hold).
fn lit_in_real_time(
    cx: &mut Cx,
    map: &crate::schema::map::Map,
    verdict: crate::lightmap::build::Verdict,
) {
    let (at, span) = match map.lighting.as_ref().and_then(|l| l.lightmap.as_ref()) {
        Some(lm) => (lm.at.clone(), lm.at.span),
        None => (map.at.clone(), map.at.span),
    };
    match verdict {
        crate::lightmap::build::Verdict::Live(why) => cx.warning_at(
            &at,
            span,
            format!("lighting.lightmap is enabled and {why}: the map ships lit in real time, every light (\"baked\" ones included) lit live and the sun live whatever bakeSun says"),
        ),
        crate::lightmap::build::Verdict::Ships { notes, .. } => {
            for n in notes {
                cx.warning_at(&at, span, n);
            }
        }
    }
}

/// What ships for a map's lightmap: its sidecar read and checked against the geometry the
/// map places now (every model instance, inherited ones first, by its source's bytes in this
/// pallet and its pose; [`crate::lightmap::sidecar::geometry_hash`]).
fn lightmap_verdict(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
    map: &crate::schema::map::Map,
    info: &crate::schema::map_rules::MapInfo,
    path: &str,
) -> crate::lightmap::build::Verdict {
    use crate::lightmap::sidecar::{geometry_hash, GeometryPlacement, Origin};
    use crate::schema::map::LightmapOrigin;
    use crate::schema::records::{Record, SourceKind};
    let sidecar = crate::lightmap::build::sidecar_path(path);
    let bytes = read
        .iter()
        .find(|r| r.path == sidecar)
        .and_then(|r| r.raw.as_deref());
    let lighting = map.lighting.as_ref();
    let origin = match lighting
        .and_then(|l| l.lightmap.as_ref())
        .map(|l| l.origin())
    {
        Some(LightmapOrigin::Imported) => Origin::Imported,
        _ => Origin::Baked,
    };
    let sets: Vec<(String, String)> = lighting
        .map(|l| {
            l.bake_zones
                .iter()
                .flat_map(|z| z.sets.iter().map(|s| (z.id.clone(), s.name.clone())))
                .collect()
        })
        .unwrap_or_default();
    // Each placement: its key, its model's bytes, its pose.
    type Placed<'a> = (String, &'a [u8], [[f32; 3]; 3]);
    let mut models: Vec<Placed> = Vec::new();
    let mut unknown = None;
    for record in info.inherited.iter().chain(&map.objects) {
        let Record::Instance(inst) = record else {
            continue;
        };
        if inst.source_kind() != Some(SourceKind::Model) {
            continue;
        }
        let model = refs::resolve(&inst.source, &manifest.id, path, &manifest.dependencies)
            .ok()
            .filter(|b| b.pallet == manifest.id)
            .and_then(|b| read.iter().find(|r| r.path == b.path))
            .and_then(|r| r.raw.as_deref());
        let Some(model) = model else {
            unknown.get_or_insert_with(|| {
                format!("the model '{}' is not a file of this pallet", inst.source)
            });
            continue;
        };
        let v = |v: Option<&crate::schema::common::Vec3>, d: f32| {
            v.map_or([d; 3], |v| v.0.map(|c| c as f32))
        };
        let key = inst.id.as_ref().map(|g| g.to_string()).unwrap_or_default();
        models.push((
            key,
            model,
            [
                v(inst.position.as_ref(), 0.0),
                v(inst.rotation.as_ref(), 0.0),
                v(inst.scale.as_ref(), 1.0),
            ],
        ));
    }
    let geometry = match unknown {
        Some(why) => Err(why),
        None => {
            let placements: Vec<GeometryPlacement> = models
                .iter()
                .map(|(key, model, pose)| GeometryPlacement {
                    key,
                    model,
                    pose: *pose,
                })
                .collect();
            Ok(geometry_hash(&placements))
        }
    };
    crate::lightmap::build::check(&sidecar, bytes, geometry, origin, &sets)
}

/// The one warning a map with neither a world nor a single brush logs (spec 000 "Placing
/// models", line 401: "A map with neither a world nor a single brush logs one warning
/// saying so and draws its sky; it is never an error"). Its own records and the ones it
/// inherits are read, so a child of a map with a world is silent; a chain that goes on
/// into a pallet this build has not mounted, and a map with errors, are not judged. Ours:
/// "a world" is any model instance (000 line 375: "The world is the map's first model
/// instance"), and "a brush" is a boxBrush record or the object it is sugar for, one
/// holding a dh.box (000 line 363).
fn warn_no_surfaces(
    diags: &mut Diagnostics,
    file: &SourceFile,
    map: &crate::schema::map::Map,
    info: &crate::schema::map_rules::MapInfo,
) {
    use crate::schema::components::MapComponent;
    use crate::schema::records::{Record, SourceKind};
    // A map the build refuses is reported for its errors alone (ours): what it would draw
    // is moot until they are fixed.
    if info.chain_open || diags.has_errors() {
        return;
    }
    let surfaces = info.inherited.iter().chain(&map.objects).any(|r| match r {
        Record::BoxBrush(_) => true,
        Record::Object(o) => o
            .components
            .iter()
            .any(|c| matches!(c, MapComponent::Box(_))),
        Record::Instance(inst) => inst.source_kind() == Some(SourceKind::Model),
        Record::Folder(_) => false,
    });
    if !surfaces {
        diags.warning(
            file,
            map.at.span,
            "objects",
            "the map has neither a world (a model instance) nor a single brush (a boxBrush, or an object holding a dh.box), so it draws its sky alone; that is never an error (dh.map, Placing models)",
        );
    }
}

/// Names the record each diagnostic of map `file` is about (its JSON path starts at
/// `objects[N]`) by its `name` as well as its path: the message gains ` (objects[N]
/// "Door")`, the one form every diagnostic about a named record takes. The name is read
/// from the map's source (`source`), so a record that failed to read is named too; a
/// record with no name, or an empty one, is named by its path alone.
fn name_records(diags: &mut Diagnostics, file: &str, source: &Value) {
    let Some(objects) = source.get("objects").and_then(Value::as_array) else {
        return;
    };
    for d in diags.items.iter_mut().filter(|d| d.file == file) {
        let Some(index) = record_index(&d.path) else {
            continue;
        };
        let Some(name) = objects
            .get(index)
            .and_then(|o| o.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        let mut quoted = String::new();
        crate::jsonc::write_string(name, &mut quoted);
        let tag = format!("(objects[{index}] {quoted})");
        if !d.message.ends_with(&tag) {
            d.message = format!("{} {tag}", d.message);
        }
    }
}

/// The record index a JSON path starts at (`objects[8].components[0]` is 8).
fn record_index(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("objects[")?;
    let (n, after) = rest.split_once(']')?;
    if !(after.is_empty() || after.starts_with('.') || after.starts_with('[')) {
        return None;
    }
    n.parse().ok()
}

/// Fills what the record rules need from a map's inheritance chain (spec, dh.map
/// "Inheritance": every check that reads the map's records, slots or zones reads the
/// folded chain): the chain is gathered through this pallet and the mounted dependencies,
/// folded, and `info` gets the folded material slots, lightmap switch and bake zones, and
/// the parents' records ([`MapInfo::inherited`](crate::schema::map_rules::MapInfo)), each
/// read from its parent's file with its references rewritten to barcodes. A chain that
/// goes on into a pallet that is not mounted (or stops at a fault the chain check reports)
/// leaves `info.chain_open` set. A map that inherits nothing leaves `info` as it was.
fn inherit_info(
    manifest: &PalletManifestSource,
    leaf: &crate::fold::Level,
    deps: &Dependencies,
    lookup: &dyn Fn(&Barcode) -> Option<crate::fold::Level>,
    info: &mut crate::schema::map_rules::MapInfo,
    reach: &mut Reach,
    asset: &str,
) {
    use crate::fold::{cut_before, fold_map_chain, gather_chain_within, ChainKind, Looks};
    use crate::schema::records::Record;
    if leaf.json.get("inherits").is_none() {
        return;
    }
    let within = |p: &str| p == manifest.id || deps.contains(p);
    let (chain, problems) = gather_chain_within(leaf.clone(), ChainKind::Map, &within, lookup);
    for level in chain.iter().filter(|l| l.barcode.pallet != manifest.id) {
        reach.note(&level.barcode.pallet, asset, deps);
    }
    let cut = cut_before(&chain);
    if let Some(b) = cut.as_ref().filter(|b| !within(&b.pallet)) {
        reach.note_cut(b, asset, deps);
    }
    info.chain_open = cut.is_some() || !problems.is_empty();
    let Some((_, parents)) = chain.split_last() else {
        return;
    };
    if parents.is_empty() {
        return;
    }
    // The folded chain's slots, lightmap and zones. The looks play no part in them.
    let no_looks = |_: &Barcode| Some(Value::synthetic(Kind::Object(Vec::new())));
    let looks = Looks {
        pallet_default: None,
        asset: &no_looks,
    };
    if let Ok(folded) = fold_map_chain(&chain, &looks) {
        if let Some(m) = read_map_value(&leaf.barcode.to_string(), &folded.value) {
            let folded_info = m.map_info();
            info.material_slots = folded_info.material_slots;
            info.lightmap_enabled = folded_info.lightmap_enabled;
            info.bake_zones = folded_info.bake_zones;
        }
    }
    // The parents' records, root first, an id a nearer level repeats left out as the
    // fold leaves it out (the chain check reports it).
    let mut seen = std::collections::HashSet::new();
    for level in parents {
        let (json, _) = crate::fold::rewrite_map_refs(level);
        let Some(objects) = json.get("objects") else {
            continue;
        };
        let label = format!("{} objects", level.barcode);
        let text = objects.to_json();
        let file = SourceFile::new(level.barcode.to_string(), text);
        let mut scratch = Diagnostics::new();
        let Ok(value) = crate::jsonc::parse(&file.text) else {
            continue;
        };
        let records: Vec<Record> = {
            let mut cx = Cx::new(&file, &mut scratch, Mode::Load);
            cx.at_path(&label, |cx| {
                <Vec<Record> as crate::read::FromJson>::from_json(cx, &value)
            })
            .unwrap_or_default()
        };
        for rec in records {
            if let Some(id) = rec.id() {
                if !seen.insert(id) {
                    continue;
                }
            }
            info.inherited.push(rec);
        }
    }
}

/// A map held as a JSON value, read in load mode (its diagnostics dropped: each level of a
/// chain is checked in its own file).
fn read_map_value(label: &str, value: &Value) -> Option<crate::schema::map::Map> {
    let file = SourceFile::new(label, value.to_json());
    let mut scratch = Diagnostics::new();
    crate::schema::map::read_map(&file, &mut scratch, Mode::Load)
}

/// The references a map states: material slots, its look asset, its sky image, and what
/// its instances place (its parent is checked with its chain).
fn map_references(map: &crate::schema::map::Map) -> Vec<StatedRef> {
    use crate::schema::records::Record;
    let mut out = Vec::new();
    if let Some(materials) = &map.materials {
        for (slot, span, reference) in &materials.entries {
            out.push(StatedRef {
                what: format!("material slot '{slot}'"),
                path: format!("materials.{slot}"),
                reference: reference.clone(),
                span: *span,
                expect: &[".dh-mat"],
                rooted: false,
                content: None,
            });
        }
    }
    if let Some(look) = &map.look {
        if look.ends_with(".dh-look") {
            out.push(StatedRef {
                what: "'look'".into(),
                path: "look".into(),
                reference: look.clone(),
                span: map.at.field("look"),
                expect: &[".dh-look"],
                rooted: false,
                content: None,
            });
        }
    }
    if let Some(sky) = map.lighting.as_ref().and_then(|l| l.sky_image.as_ref()) {
        out.push(StatedRef {
            what: "'skyImage.path'".into(),
            path: "lighting.skyImage.path".into(),
            reference: sky.path.clone(),
            span: sky.at.field("path"),
            expect: &[],
            rooted: false,
            content: None,
        });
    }
    for (i, record) in map.objects.iter().enumerate() {
        if let Record::Instance(inst) = record {
            out.push(StatedRef {
                what: "instance 'source'".into(),
                path: format!("objects[{i}]"),
                reference: inst.source.clone(),
                span: inst.at.field("source"),
                expect: &[],
                rooted: false,
                content: None,
            });
        }
        // A probe group's file: "The pallet-relative path of the group's .dh-probegroup
        // file ... A file that is missing, unreadable or another version is a build
        // error" (000, dh.lightProbeGroup).
        for (k, c) in record.components().iter().enumerate() {
            let crate::schema::components::MapComponent::LightProbeGroup(g) = c else {
                continue;
            };
            if g.probes.trim().is_empty() {
                continue; // refused by the component's own rules
            }
            out.push(StatedRef {
                what: "dh.lightProbeGroup 'probes'".into(),
                path: format!("objects[{i}].components[{k}].probes"),
                reference: g.probes.clone(),
                span: g.at.field("probes"),
                expect: &[PROBE_GROUP_EXTENSION],
                rooted: true,
                content: Some(probe_group_header),
            });
        }
    }
    out
}

/// The extension of a probe group's file.
pub const PROBE_GROUP_EXTENSION: &str = ".dh-probegroup";

/// The magic a `.dh-probegroup` file starts with (000, dh.lightProbeGroup: "The file
/// (DHPG, version 1, ...)").
pub const PROBE_GROUP_MAGIC: &[u8; 4] = b"DHPG";

/// The length of a `.dh-probegroup` file's header ("a 64-byte header").
pub const PROBE_GROUP_HEADER_LEN: usize = 64;

/// Whether `bytes` can be a probe group's file: the `DHPG` magic and a whole 64-byte
/// header. The spec names the version (1) but not where in the header it lies, so the
/// version is read where the file is loaded, not here (ours).
fn probe_group_header(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(PROBE_GROUP_MAGIC) {
        let head: String = bytes
            .iter()
            .take(4)
            .map(|b| {
                if b.is_ascii_graphic() {
                    char::from(*b).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect();
        return Err(format!(
            "not a probe group file: it starts '{head}' where a .dh-probegroup starts 'DHPG'"
        ));
    }
    if bytes.len() < PROBE_GROUP_HEADER_LEN {
        return Err(format!(
            "cut short: {} bytes, where a .dh-probegroup's header alone is {PROBE_GROUP_HEADER_LEN}",
            bytes.len()
        ));
    }
    Ok(())
}

/// The references an object states: its model and what its added records place (its
/// parent is checked with its chain).
fn object_references(obj: &crate::schema::object::DhObject) -> Vec<StatedRef> {
    let mut out = Vec::new();
    if let Some(model) = &obj.model {
        out.push(StatedRef {
            what: "'model'".into(),
            path: "model".into(),
            reference: model.clone(),
            span: obj.at.field("model"),
            expect: &[],
            rooted: false,
            content: None,
        });
    }
    component_references(&obj.components, "components", &mut out);
    for (ci, child) in obj.children.iter().enumerate() {
        component_references(
            &child.components,
            &format!("children[{ci}].components"),
            &mut out,
        );
    }
    for (i, record) in obj.objects.iter().enumerate() {
        if let Some(source) = &record.source {
            out.push(StatedRef {
                what: "added record 'source'".into(),
                path: format!("objects[{i}]"),
                reference: source.clone(),
                span: record.at.field("source"),
                expect: &[],
                rooted: false,
                content: None,
            });
        }
        component_references(
            &record.components,
            &format!("objects[{i}].components"),
            &mut out,
        );
        for (ci, child) in record.children.iter().enumerate() {
            component_references(
                &child.components,
                &format!("objects[{i}].children[{ci}].components"),
                &mut out,
            );
        }
    }
    out
}

/// The assets an object's components name, each of which must be a file of the pallet or
/// of a mounted dependency (spec 001 line 262: "The compiler refuses a material that does
/// not resolve"; line 360: "a clip that is not a stored audio file ... here or in a
/// declared dependency"): every slot of a dh.renderer, a dh.box's material, a
/// dh.collider's and its shapes' materials (an object owns no slot table, so each names an
/// asset, 001 line 589), every clip of a dh.reaction's sound actions, and a dh.skeleton's
/// rig (001 line 271), which must be a `.dh-rig`. A value whose
/// extension is wrong is refused by the component's own rules and not listed again.
fn component_references(
    components: &[crate::schema::object_components::ObjectComponent],
    list_path: &str,
    out: &mut Vec<StatedRef>,
) {
    use crate::schema::object_components::{
        is_material_asset, ObjectComponent, ReactionAction, AUDIO_EXTENSIONS,
    };
    let material = |what: String, path: String, reference: &str, span| StatedRef {
        what,
        path,
        reference: reference.to_string(),
        span,
        expect: &[".dh-mat"],
        rooted: false,
        content: None,
    };
    for (k, c) in components.iter().enumerate() {
        let at = format!("{list_path}[{k}]");
        match c {
            ObjectComponent::Renderer(r) => {
                for (slot, span, m) in r.materials.iter().flat_map(|t| t.entries.iter()) {
                    if is_material_asset(m) {
                        out.push(material(
                            format!("dh.renderer slot '{slot}'"),
                            format!("{at}.materials.{slot}"),
                            m,
                            *span,
                        ));
                    }
                }
            }
            ObjectComponent::Skeleton(sk) => {
                // 001 line 271: "rig: The rig definition, relative or a barcode".
                if let Some(rig) = &sk.rig {
                    out.push(StatedRef {
                        what: "dh.skeleton 'rig'".into(),
                        path: format!("{at}.rig"),
                        reference: rig.clone(),
                        span: sk.at.field("rig"),
                        expect: &[crate::schema::rig::RIG_EXTENSION],
                        rooted: false,
                        content: None,
                    });
                }
            }
            ObjectComponent::Box(b) => {
                if let Some(m) = b.inner.material.as_deref().filter(|m| is_material_asset(m)) {
                    out.push(material(
                        "dh.box 'material'".into(),
                        format!("{at}.material"),
                        m,
                        b.at.field("material"),
                    ));
                }
            }
            ObjectComponent::Collider(col) => {
                if let Some(m) = col
                    .inner
                    .material
                    .as_deref()
                    .filter(|m| is_material_asset(m))
                {
                    out.push(material(
                        "dh.collider 'material'".into(),
                        format!("{at}.material"),
                        m,
                        col.at.field("material"),
                    ));
                }
                for (si, shape) in col.inner.shapes.iter().flatten().enumerate() {
                    if let Some(m) = shape.material().filter(|m| is_material_asset(m)) {
                        out.push(material(
                            format!("dh.collider shapes[{si}] 'material'"),
                            format!("{at}.shapes[{si}].material"),
                            m,
                            shape.at().field("material"),
                        ));
                    }
                }
            }
            ObjectComponent::Reaction(r) => {
                for (ai, a) in r.actions.iter().flatten().enumerate() {
                    let (tag, clips, a_at) = match a {
                        ReactionAction::PlaySound(p) => ("dh.playSound", &p.clips, &p.at),
                        ReactionAction::SpeakSound(p) => ("dh.speakSound", &p.clips, &p.at),
                    };
                    for (ci, clip) in clips.iter().enumerate() {
                        let lower = clip.to_ascii_lowercase();
                        if !AUDIO_EXTENSIONS.iter().any(|e| lower.ends_with(e)) {
                            continue;
                        }
                        out.push(StatedRef {
                            what: format!("{tag} clip"),
                            path: format!("{at}.actions[{ai}].clips[{ci}]"),
                            reference: clip.clone(),
                            span: a_at.field("clips"),
                            expect: AUDIO_EXTENSIONS,
                            rooted: false,
                            content: None,
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// Resolves every stated reference against the pallet's files and its declared
/// dependencies. A miss in this pallet is an error that offers the `/`-form when the pallet
/// root holds a file of that name, else the nearest file of the kind it must name ("did
/// you mean"); a miss in a dependency the build has mounted is an error the same way (one
/// that is not mounted is checked where it loads). A file that must be of one binary kind
/// (a probe group's) is read and refused when it is not.
fn check_references(manifest: &PalletManifestSource, read: &mut [ReadAsset], deps: &Dependencies) {
    let paths: BTreeMap<String, ()> = read.iter().map(|r| (r.path.clone(), ())).collect();
    let textures = check_textures(manifest, read);
    let contents = check_contents(manifest, read);
    for r in read.iter_mut() {
        let Some(file) = &r.file else { continue };
        for s in &r.references {
            let mut cx = Cx::new(file, &mut r.diags, Mode::Build);
            let from = if s.rooted { "" } else { r.path.as_str() };
            match refs::resolve(&s.reference, &manifest.id, from, &manifest.dependencies) {
                Err(e) => cx.at_path(&s.path, |cx| cx.error(s.span, format!("{}: {e}", s.what))),
                Ok(Barcode { pallet, path }) => {
                    if !s.expect.is_empty() && !s.expect.iter().any(|e| path.ends_with(e)) {
                        cx.at_path(&s.path, |cx| {
                            cx.error(
                                s.span,
                                format!(
                                    "{}: '{}' must name a {} file",
                                    s.what,
                                    s.reference,
                                    s.expect.join(" or ")
                                ),
                            )
                        });
                        continue;
                    }
                    if pallet != manifest.id {
                        if let Some(message) = missing_in_dependency(s, deps, &pallet, &path) {
                            cx.at_path(&s.path, |cx| cx.error(s.span, message));
                        }
                        continue; // otherwise checked where it lives, and where it is loaded
                    }
                    if let Some(Err(why)) = textures
                        .get(&path)
                        .filter(|_| names_texture(r.kind, &s.path))
                    {
                        cx.at_path(&s.path, |cx| {
                            cx.error(s.span, format!("{}: '{}' is {why}", s.what, s.reference))
                        });
                        continue;
                    }
                    if paths.contains_key(&path) || holds_pieces(&paths, &path) {
                        if let Some(Err(why)) = contents.get(&path).filter(|_| s.content.is_some())
                        {
                            cx.at_path(&s.path, |cx| {
                                cx.error(s.span, format!("{}: '{}' is {why}", s.what, s.reference))
                            });
                        }
                        continue;
                    }
                    // "when the pallet root holds a file of that name the error offers
                    // the explicit /-form": the reference read from the root instead.
                    let from_root = refs::resolve(
                        &refs::rooted_form(&s.reference),
                        &manifest.id,
                        &r.path,
                        &manifest.dependencies,
                    );
                    let offer = match from_root {
                        Ok(b) if !s.rooted && paths.contains_key(&b.path) => format!(
                            "; the pallet root holds that file: write '{}'",
                            refs::rooted_form(&b.path)
                        ),
                        _ => nearest_file(s, &path, paths.keys().map(String::as_str)),
                    };
                    cx.at_path(&s.path, |cx| {
                        cx.error(
                            s.span,
                            format!(
                                "{}: '{}' resolves to {}:{}, which is not in this pallet{offer}",
                                s.what, s.reference, pallet, path
                            ),
                        )
                    });
                }
            }
        }
    }
}

/// "; did you mean `/materials/fur.dh-mat`?" with the file of `files` nearest to `path`
/// among those of the kind `s` must name (any file when it names no kind), written the
/// way `s` is read (a rooted reference as its pallet path, any other from the root), or ""
/// when none is near.
fn nearest_file<'a>(s: &StatedRef, path: &str, files: impl Iterator<Item = &'a str>) -> String {
    let kind: Vec<&str> = files
        .filter(|f| s.expect.is_empty() || s.expect.iter().any(|e| f.ends_with(e)))
        .collect();
    match closest_by_name(path, &kind) {
        Some(c) if s.rooted => format!("; did you mean `{c}`?"),
        Some(c) => format!("; did you mean `{}`?", refs::rooted_form(c)),
        None => String::new(),
    }
}

/// The error for a reference into pallet `pallet` that is mounted but holds no `path`,
/// with the nearest of its files of the right kind; `None` when it holds it, when the
/// pallet is not mounted (checked where it loads), or when `path` names no file (a folder
/// of pieces is told by its contents).
fn missing_in_dependency(
    s: &StatedRef,
    deps: &Dependencies,
    pallet: &str,
    path: &str,
) -> Option<String> {
    let mounted = deps.pallet(pallet)?;
    let file = path.rsplit('/').next().unwrap_or(path);
    if !file.contains('.') || mounted.entry(path).is_some() {
        return None;
    }
    let names: Vec<String> = mounted
        .entries()
        .map(|e| format!("{pallet}:{}", e.path))
        .filter(|n| s.expect.is_empty() || s.expect.iter().any(|e| n.ends_with(e)))
        .collect();
    let wanted = format!("{pallet}:{path}");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let offer = closest_by_name(&wanted, &names)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default();
    Some(format!(
        "{}: '{}' resolves to {wanted}, which the mounted pallet '{pallet}' does not hold{offer}",
        s.what, s.reference
    ))
}

/// The file of `files` whose name (the last `/` segment) is nearest to `path`'s
/// ([`crate::diag::closest`]), so a folder's long shared prefix never makes two unrelated
/// names look alike.
fn closest_by_name<'a>(path: &str, files: &[&'a str]) -> Option<&'a str> {
    let name_of = |p: &'a str| p.rsplit(['/', ':']).next().unwrap_or(p);
    let names: Vec<&str> = files.iter().map(|f| name_of(f)).collect();
    let near = crate::diag::closest(name_of_str(path), names.iter().copied())?;
    files.iter().copied().find(|f| name_of(f) == near)
}

fn name_of_str(p: &str) -> &str {
    p.rsplit(['/', ':']).next().unwrap_or(p)
}

/// Reads, once each, every file of this pallet a reference says must be of one binary
/// kind ([`StatedRef::content`]), by pallet path: `Ok`, or what the file is instead.
fn check_contents(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
) -> BTreeMap<String, Result<(), String>> {
    let mut out = BTreeMap::new();
    for r in read {
        for s in &r.references {
            let Some(check) = s.content else { continue };
            let from = if s.rooted { "" } else { r.path.as_str() };
            let Ok(b) = refs::resolve(&s.reference, &manifest.id, from, &manifest.dependencies)
            else {
                continue;
            };
            if b.pallet != manifest.id || out.contains_key(&b.path) {
                continue;
            }
            let Some(target) = read.iter().find(|t| t.path == b.path) else {
                continue;
            };
            let verdict = match &target.raw {
                Some(bytes) => check(bytes),
                None => Err("not a binary file the build could read".to_string()),
            };
            out.insert(b.path, verdict);
        }
    }
    out
}

/// Whether the member `member` of an asset of `kind` names a texture: a material's
/// `baseColor` and `emissiveTexture`.
fn names_texture(kind: AssetKind, member: &str) -> bool {
    kind == AssetKind::Material && matches!(member, "baseColor" | "emissiveTexture")
}

/// Decodes, once each and in parallel, every file of this pallet a material names as a
/// texture, so an image the engine cannot read (a JPEG cut short, an EXR, a GLB named as a
/// `baseColor`) is a build error naming the file and what it is rather than a white
/// material at run time. By pallet path: `Ok` with the image's size, or why it is refused.
fn check_textures(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
) -> BTreeMap<String, Result<(u32, u32), String>> {
    let mut wanted = std::collections::BTreeSet::new();
    for r in read {
        for s in r
            .references
            .iter()
            .filter(|s| names_texture(r.kind, &s.path))
        {
            if let Ok(b) =
                refs::resolve(&s.reference, &manifest.id, &r.path, &manifest.dependencies)
            {
                if b.pallet == manifest.id {
                    wanted.insert(b.path);
                }
            }
        }
    }
    let by_path: BTreeMap<&str, &ReadAsset> = read.iter().map(|r| (r.path.as_str(), r)).collect();
    // A JSON asset has no raw bytes: it is told by its name.
    let targets: Vec<(&str, &[u8])> = wanted
        .iter()
        .filter_map(|p| {
            let r = by_path.get(p.as_str())?;
            Some((p.as_str(), r.raw.as_deref().unwrap_or(&[])))
        })
        .collect();
    targets
        .par_iter()
        .map(|(path, bytes)| {
            let r = crate::texture::decode(path, bytes).map(|img| (img.width, img.height));
            (path.to_string(), r.map_err(|e| e.to_string()))
        })
        .collect()
}

/// Whether `path` (a model source with no extension) names a folder of pieces: a folder
/// of the pallet holding at least one `.glb` directly. A folder with none is a missing
/// geometry, reported as a missing file.
fn holds_pieces(paths: &BTreeMap<String, ()>, path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    if path.is_empty() || file.contains('.') {
        return false;
    }
    let prefix = format!("{path}/");
    paths
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .any(|(p, _)| {
            p.get(prefix.len()..).is_some_and(|rest| {
                !rest.contains('/') && rest.to_ascii_lowercase().ends_with(".glb")
            })
        })
}

/// A model the build imported for its instances, shared by every placement of it.
struct ImportedModel {
    /// The model, its `.dh-model` sidecar applied.
    model: crate::gltf::Model,
    /// Its part identities, matched once against its `.dh-ids`.
    ids: crate::parts::ModelIds,
    /// For an FBX source, the GLB Blender converted it to: what the pallet packages at
    /// the FBX's path, so every loader reads the same model the build read.
    converted: Option<Vec<u8>>,
}

/// Why a model gave no parts table.
enum ImportFailure {
    /// The GLB (or a piece of the folder) did not import.
    Glb(crate::gltf::GlbError),
    /// An FBX could not be converted to glTF.
    Convert(crate::gltf::FbxError),
}

/// What one model's import gave: the model, or why it did not import; and the warnings
/// that belong to the model rather than to a map (identity sidecar notes), said once.
struct ModelImport {
    result: Result<ImportedModel, ImportFailure>,
    notes: Vec<String>,
    /// Whether an identity sidecar lies beside the model that this build could not read:
    /// it is never overwritten.
    ids_unreadable: bool,
}

/// The models imported so far, by path in the pallet (`None`: nothing to import, e.g. a
/// missing file, reported elsewhere), and the diagnostics that belong on `.dh-model`
/// sidecar files (by index into the read assets).
#[derive(Default)]
struct ModelCache {
    models: BTreeMap<String, Option<ModelImport>>,
    sidecar_diags: Vec<(usize, Diagnostics)>,
}

/// A file the build writes into the source pallet beside what it compiles (a model's
/// `.dh-ids` identity sidecar), which the next build and the editors must not read as a
/// person's edit: `dh build` records each in `<palletId>.compiler-writes` beside the built
/// pallet ([`record_compiler_writes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerWrite {
    /// The file's path in the source pallet (`meshes/city.glb.dh-ids`).
    pub path: String,
    /// Where it lies on disk.
    pub disk: PathBuf,
    /// Its new bytes.
    pub bytes: Vec<u8>,
    /// Whether the build wrote it (a check never writes; a build writes only when it
    /// produced a pallet, and a write that fails is a warning).
    pub written: bool,
}

/// The file name `dh build` records its writes in, beside the built pallet.
pub fn compiler_writes_name(pallet_id: &str) -> String {
    format!("{pallet_id}.compiler-writes")
}

/// Records `writes` (those [`CompilerWrite::written`]) in the file at `record`: a JSON
/// object `{ "version": 1, "writes": [ { "path": …, "sha1": … } ] }`, one entry per source
/// file, sorted by path. Entries for files this build did not write are kept, so the
/// record always names the bytes the compiler last wrote to each file. Nothing is written
/// when no write happened and the record already exists.
pub fn record_compiler_writes(record: &Path, writes: &[CompilerWrite]) -> std::io::Result<()> {
    let mut entries: BTreeMap<String, String> = BTreeMap::new();
    let existing = std::fs::read_to_string(record).ok();
    if let Some(v) = existing
        .as_deref()
        .and_then(|t| crate::jsonc::parse(t).ok())
    {
        for e in v
            .get("writes")
            .and_then(Value::as_array)
            .unwrap_or(&[])
            .iter()
        {
            if let (Some(p), Some(h)) = (
                e.get("path").and_then(Value::as_str),
                e.get("sha1").and_then(Value::as_str),
            ) {
                entries.insert(p.to_string(), h.to_string());
            }
        }
    }
    let mut any = false;
    for w in writes.iter().filter(|w| w.written) {
        let hex = crate::hash::hex(&crate::parts::sha1(&w.bytes));
        entries.insert(w.path.clone(), hex);
        any = true;
    }
    if !any && existing.is_some() {
        return Ok(());
    }
    let list: Vec<Value> = entries
        .into_iter()
        .map(|(p, h)| {
            Value::synthetic(Kind::Object(vec![
                member("path", Value::synthetic(Kind::String(p))),
                member("sha1", Value::synthetic(Kind::String(h))),
            ]))
        })
        .collect();
    let doc = Value::synthetic(Kind::Object(vec![
        member("version", Value::synthetic(Kind::Number(1.0))),
        member("writes", Value::synthetic(Kind::Array(list))),
    ]));
    std::fs::write(record, doc.to_json_pretty())
}

/// Writes each of `writes` to disk (whole, through a temporary file renamed over it),
/// marking the ones written; a failure is a warning on the file, never a failed build.
fn perform_writes(writes: &mut [CompilerWrite], diags: &mut Diagnostics) {
    for w in writes {
        let mut tmp = w.disk.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        match std::fs::write(&tmp, &w.bytes).and_then(|_| std::fs::rename(&tmp, &w.disk)) {
            Ok(()) => w.written = true,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                diags.items.push(crate::diag::Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    file: w.path.clone(),
                    line: 0,
                    col: 0,
                    path: String::new(),
                    message: format!(
                        "the identity sidecar could not be written to {} ({e}); the parts keep the ids this build gave them, and the next build matches them again",
                        w.disk.display()
                    ),
                });
            }
        }
    }
}

/// The identity sidecars the models this build imported need written back: every model
/// whose identities changed (new parts got ids, orphans kept, a retarget honored), whose
/// sources lie on disk, and whose existing sidecar (if any) read.
fn identity_writes(read: &[ReadAsset], cache: &ModelCache) -> Vec<CompilerWrite> {
    let mut out = Vec::new();
    for (path, import) in &cache.models {
        let Some(import) = import else { continue };
        let Ok(m) = &import.result else { continue };
        if !m.ids.changed || import.ids_unreadable {
            continue;
        }
        let rel = crate::parts::ids_path(path);
        let Some(disk) = disk_path_of(read, &rel) else {
            continue;
        };
        out.push(CompilerWrite {
            path: rel,
            disk,
            bytes: m.ids.file.to_text().into_bytes(),
            written: false,
        });
    }
    out
}

/// Packages every model the pallet ships other than as its source bytes, at the model's
/// own path (so whatever names it reads the model the build read; spec: dh.object,
/// "Sidecar Files" — "The ops apply to the packaged GLB"):
///
/// * a `.glb` or `.fbx` with a `.dh-model` sidecar ships the GLB [`crate::gltf::write_glb`]
///   writes of it with the sidecar's ops applied. A model no map placed (an object's, or
///   one nothing names yet) is imported here for it, its sidecar's diagnostics reported
///   like a placed one's; one that does not import is an error on the sidecar, since its
///   edits cannot reach the pallet;
/// * an FBX with no sidecar ships the GLB Blender converted it to, as converted: one a map
///   places, and one only objects name (converted here; a conversion that fails is an
///   error on the first object naming it).
///
/// The rewritten GLB ([`crate::gltf::rewrite_glb`]) differs from its source only in its
/// scene graph: skins, animations, morph targets and images ship as they were.
fn ship_converted(manifest: &PalletManifestSource, read: &mut [ReadAsset], cache: &mut ModelCache) {
    // Every model with a sidecar, by the sidecar's index.
    let edited: Vec<(usize, String)> = read
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == AssetKind::ModelSidecar && !r.diags.has_errors())
        .filter_map(|(i, r)| Some((i, r.path.strip_suffix(".dh-model")?.to_string())))
        .filter(|(_, model)| {
            let lower = model.to_ascii_lowercase();
            (lower.ends_with(".glb") || lower.ends_with(".fbx"))
                && read
                    .iter()
                    .any(|r| r.path == *model && r.kind == AssetKind::Raw)
        })
        .collect();
    // Imported here: kept apart from the placed models, which owe identity sidecars.
    let mut own: BTreeMap<String, Option<ModelImport>> = BTreeMap::new();
    for (_, path) in &edited {
        if !cache.models.contains_key(path) {
            let imported = import_model(manifest, read, path, &mut cache.sidecar_diags);
            own.insert(path.clone(), imported);
        }
    }
    let mut ship: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, path) in &edited {
        let placed = cache.models.contains_key(path);
        let import = cache
            .models
            .get(path)
            .or_else(|| own.get(path))
            .and_then(Option::as_ref);
        let Some(file) = read.get(*i).and_then(|r| r.file.clone()) else {
            continue;
        };
        // A model read from one GLB (or the GLB Blender converted) is rewritten in place,
        // only its scene graph edited; a folder of pieces is written whole.
        let written = match import.map(|m| &m.result) {
            Some(Ok(m)) => {
                let source = m.converted.as_deref().or_else(|| {
                    read.iter()
                        .find(|r| r.path == *path && r.kind == AssetKind::Raw)
                        .and_then(|r| r.raw.as_deref())
                });
                Some(match source {
                    Some(src) => crate::gltf::rewrite_glb(src, &m.model),
                    None => crate::gltf::write_glb(&m.model),
                })
            }
            _ => None,
        };
        let diags = &mut read[*i].diags;
        if let Some(written) = written {
            match written {
                Ok(bytes) => ship.push((path.clone(), bytes)),
                Err(e) => diags.error(
                    &file,
                    crate::jsonc::Span::default(),
                    "",
                    format!("the edited model cannot be packaged: {e}"),
                ),
            }
            continue;
        }
        match import.map(|m| &m.result) {
            Some(Ok(_)) => {}
            // A placed model's failure is the instance's error already.
            Some(Err(_)) if placed => {}
            Some(Err(ImportFailure::Glb(e))) => diags.error(
                &file,
                crate::jsonc::Span::default(),
                "",
                format!("'{path}' does not import ({e}); this sidecar's ops cannot reach the packaged model"),
            ),
            Some(Err(ImportFailure::Convert(e))) => diags.error(
                &file,
                crate::jsonc::Span::default(),
                "",
                format!("{e}; this sidecar's ops cannot reach the packaged model"),
            ),
            None => {}
        }
    }
    for (path, import) in &cache.models {
        let Some(Ok(m)) = import.as_ref().map(|i| &i.result) else {
            continue;
        };
        let Some(glb) = &m.converted else { continue };
        if !ship.iter().any(|(p, _)| p == path) {
            ship.push((path.clone(), glb.clone()));
        }
    }
    // An FBX only objects name (their model, or an added record's source) converts too.
    for (i, path) in object_fbx(manifest, read) {
        if cache.models.contains_key(&path) || own.contains_key(&path) {
            continue;
        }
        let imported = import_model(manifest, read, &path, &mut cache.sidecar_diags);
        let object = &read[i].path;
        let message = match imported.map(|m| m.result) {
            Some(Ok(ImportedModel {
                converted: Some(glb),
                ..
            })) => {
                ship.push((path.clone(), glb));
                None
            }
            Some(Ok(_)) | None => None,
            Some(Err(ImportFailure::Convert(e))) => Some(e.to_string()),
            Some(Err(ImportFailure::Glb(e))) => Some(format!(
                "'{path}' does not import once converted ({e}); the object's model cannot load"
            )),
        };
        if let Some(message) = message {
            let object = object.clone();
            read[i].diags.file_error(&object, message);
        }
    }
    for (path, bytes) in ship {
        if let Some(r) = read
            .iter_mut()
            .find(|r| r.path == path && r.kind == AssetKind::Raw)
        {
            r.raw = Some(bytes);
        }
    }
}

/// Every `.fbx` of this pallet a compiled object names (its resolved `model`, or an added
/// record's `source`) that no sidecar edits, each once, with the first object naming it (by
/// index into the read assets).
fn object_fbx(manifest: &PalletManifestSource, read: &[ReadAsset]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, r) in read.iter().enumerate() {
        if !matches!(r.kind, AssetKind::Object | AssetKind::Avatar) || r.diags.has_errors() {
            continue;
        }
        let Some(resolved) = r.json.as_ref().and_then(|j| j.get("resolved")) else {
            continue;
        };
        let named = resolved.get("model").into_iter().chain(
            resolved
                .get("objects")
                .and_then(Value::as_array)
                .unwrap_or(&[])
                .iter()
                .filter_map(|o| o.get("source")),
        );
        for barcode in named.filter_map(Value::as_str) {
            let Some(path) = barcode
                .strip_prefix(manifest.id.as_str())
                .and_then(|p| p.strip_prefix(':'))
            else {
                continue;
            };
            let sidecar = format!("{path}.dh-model");
            if crate::gltf::fbx::is_fbx(path)
                && read
                    .iter()
                    .any(|x| x.path == path && x.kind == AssetKind::Raw)
                && !read.iter().any(|x| x.path == sidecar)
                && !out.iter().any(|(_, p)| p == path)
            {
                out.push((i, path.to_string()));
            }
        }
    }
    out
}

/// Where pallet path `path` lies on disk, when the pallet's sources are on disk: the
/// pallet root is found from any source read from disk.
fn disk_path_of(read: &[ReadAsset], path: &str) -> Option<PathBuf> {
    let (asset, disk) = read.iter().find_map(|r| r.disk.as_ref().map(|d| (r, d)))?;
    let depth = asset.path.split('/').count();
    let root = disk.ancestors().nth(depth)?;
    Some(path.split('/').fold(root.to_path_buf(), |p, c| p.join(c)))
}

/// Imports the model at pallet path `path` (a `.glb`, an `.fbx` converted through
/// Blender, or a folder of `.glb` pieces): applies its `.dh-model` sidecar first, then
/// matches its identities against its `.dh-ids` (read from disk beside it; embedded
/// sources have none). `None` when there is nothing here to import.
fn import_model(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
    path: &str,
    sidecar_diags: &mut Vec<(usize, Diagnostics)>,
) -> Option<ModelImport> {
    use crate::gltf::{apply_sidecar, import_glb, import_pieces, ImportOptions, Piece};
    let file_name = path.rsplit('/').next().unwrap_or(path);
    let failed = |f: ImportFailure| {
        Some(ModelImport {
            result: Err(f),
            notes: Vec::new(),
            ids_unreadable: false,
        })
    };
    let raw_of = |p: &str| {
        read.iter()
            .find(|r| r.path == p && r.kind == AssetKind::Raw)
            .and_then(|r| r.raw.as_deref())
    };
    let mut converted = None;
    let imported = if crate::gltf::fbx::is_fbx(path) {
        let bytes = raw_of(path)?;
        let Some(blender) = crate::gltf::find_blender(std::env::var_os("PATH").as_deref()) else {
            return failed(ImportFailure::Convert(crate::gltf::FbxError::NoBlender {
                file: path.to_string(),
            }));
        };
        match crate::gltf::convert_fbx(&blender, path, bytes) {
            Ok(glb) => {
                let model = import_glb(&glb, path);
                converted = Some(glb);
                model
            }
            Err(e) => return failed(ImportFailure::Convert(e)),
        }
    } else if file_name.contains('.') {
        if !file_name.to_ascii_lowercase().ends_with(".glb") {
            return None; // not a model this compiler reads; the map rules name the source
        }
        import_glb(raw_of(path)?, path)
    } else {
        let prefix = format!("{path}/");
        let pieces: Vec<Piece<'_>> = read
            .iter()
            .filter(|r| r.kind == AssetKind::Raw)
            .filter(|r| {
                r.path.strip_prefix(&prefix).is_some_and(|rest| {
                    !rest.contains('/') && rest.to_ascii_lowercase().ends_with(".glb")
                })
            })
            .filter_map(|r| {
                Some(Piece {
                    name: &r.path,
                    bytes: r.raw.as_deref()?,
                })
            })
            .collect();
        if pieces.is_empty() {
            return None; // a missing geometry: the reference check reports it
        }
        import_pieces(path, &pieces, &ImportOptions::default())
    };
    let mut model = match imported {
        Ok(m) => m,
        Err(e) => return failed(ImportFailure::Glb(e)),
    };
    // The sidecar's ops come before anything else sees the model.
    let sidecar_path = format!("{path}.dh-model");
    if let Some((i, sidecar_asset)) = read
        .iter()
        .enumerate()
        .find(|(_, r)| r.path == sidecar_path && r.kind == AssetKind::ModelSidecar)
    {
        if let (Some(file), false) = (&sidecar_asset.file, sidecar_asset.diags.has_errors()) {
            // Read again for its typed form; its own diagnostics were reported when read.
            let mut scratch = Diagnostics::new();
            if let Some(sidecar) =
                crate::schema::model::read_model_sidecar(file, &mut scratch, Mode::Build)
            {
                let outcome = apply_sidecar(&mut model, &sidecar);
                let mut d = Diagnostics::new();
                for sd in outcome.diags {
                    d.push(sd.severity, file, sd.span, &sd.path, sd.message);
                }
                sidecar_diags.push((i, d));
            }
        }
    }
    let mut notes = Vec::new();
    let mut ids_unreadable = false;
    let ids_rel = crate::parts::ids_path(path);
    let ids_file = match disk_path_of(read, &ids_rel) {
        None => None,
        Some(disk) => match std::fs::read_to_string(&disk) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                ids_unreadable = true;
                notes.push(format!(
                    "identity sidecar '{ids_rel}' cannot be read ({e}); every part of '{path}' gets a fresh id, and the file is left as it is"
                ));
                None
            }
            Ok(text) => match crate::parts::IdsFile::parse(&text) {
                Ok(f) => Some(f),
                Err(e) => {
                    ids_unreadable = true;
                    notes.push(format!(
                        "identity sidecar '{ids_rel}' does not read ({e}); every part of '{path}' gets a fresh id, and the file is left as it is (mend it, or delete it to have the build write a new one)"
                    ));
                    None
                }
            },
        },
    };
    let ids = crate::parts::match_identities(
        &model,
        &format!("{}:{path}", manifest.id),
        ids_file.as_ref(),
    );
    notes.extend(ids.warnings.iter().map(|w| format!("{path}: {w}")));
    Some(ModelImport {
        result: Ok(ImportedModel {
            model,
            ids,
            converted,
        }),
        notes,
        ids_unreadable,
    })
}

/// Every record's world pose: its own transform (a folder has none) composed under its
/// parent's, up the parent chain. A parent the map lacks, and a chain that loops, are the
/// map rules' errors; here such a record stands as a root.
pub fn record_worlds(objects: &[crate::schema::records::Record]) -> Vec<glam::DMat4> {
    use crate::math::mul;
    use glam::DMat4;
    const IDENTITY: DMat4 = DMat4::IDENTITY;
    use crate::parts::instance_pose;
    use crate::schema::records::Record;
    let local = |r: &Record| match r {
        Record::Folder(_) => IDENTITY,
        Record::Object(o) => instance_pose(o.position, o.rotation, o.scale),
        Record::BoxBrush(b) => instance_pose(b.object.position, b.object.rotation, b.object.scale),
        Record::Instance(i) => instance_pose(i.position, i.rotation, i.scale),
    };
    let index: BTreeMap<crate::schema::common::Guid, usize> = objects
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.id().map(|id| (id, i)))
        .collect();
    let parent_of = |k: usize| objects[k].parent().and_then(|p| index.get(&p)).copied();
    let mut worlds: Vec<Option<DMat4>> = vec![None; objects.len()];
    let mut on_chain = vec![false; objects.len()];
    for start in 0..objects.len() {
        if worlds[start].is_some() {
            continue;
        }
        // Walk up to a record already placed (or a root), then place the chain downward.
        let mut chain = vec![start];
        on_chain[start] = true;
        let mut looped = false;
        let mut top = start;
        while let Some(p) = parent_of(top) {
            if worlds[p].is_some() {
                break;
            }
            if on_chain[p] {
                looped = true;
                break;
            }
            on_chain[p] = true;
            chain.push(p);
            top = p;
        }
        let mut above = match parent_of(top) {
            Some(p) if !looped => worlds[p].unwrap_or(IDENTITY),
            _ => IDENTITY,
        };
        for &k in chain.iter().rev() {
            on_chain[k] = false;
            let w = mul(&above, &local(&objects[k]));
            worlds[k] = Some(w);
            above = w;
        }
    }
    worlds.into_iter().map(|w| w.unwrap_or(IDENTITY)).collect()
}

/// Bakes the parts table of every model instance of `map` whose model is in this pallet,
/// in map order (ids counted map-wide), and reports what the map importer would say about
/// each model's geometry at the first instance placing it. A model's own notes (identity
/// sidecar) are said once, at the first instance that imported it.
///
/// Per instance: the table is baked at the instance's world pose (its parent records'
/// transforms composed in), then its part overrides are laid over it; what is left in
/// `table` after [`crate::parts::apply_overrides`] is the instance's final part list.
fn bake_model_instances(
    manifest: &PalletManifestSource,
    read: &[ReadAsset],
    map_path: &str,
    map: &mut crate::schema::map::Map,
    file: &SourceFile,
    diags: &mut Diagnostics,
    cache: &mut ModelCache,
) -> Option<crate::colcook::Companion> {
    use crate::schema::records::{Record, SourceKind};
    use std::collections::BTreeSet;
    let materials: BTreeMap<String, String> = map
        .materials
        .as_ref()
        .map(|t| {
            t.entries
                .iter()
                .map(|(slot, _, reference)| (slot.clone(), reference.clone()))
                .collect()
        })
        .unwrap_or_default();
    let bound: BTreeSet<String> = materials.keys().cloned().collect();
    let worlds = record_worlds(&map.objects);
    let mut reported = BTreeSet::new();
    let mut next_id = 0u32;
    // autoCollision: a map without a world instance (a model instance named `world`) has
    // no automatic collision; it still keeps authored colliders and names collapsed
    // subtrees.
    let has_world = map.objects.iter().any(|r| {
        matches!(r, Record::Instance(inst)
            if inst.source_kind() == Some(SourceKind::Model)
                && inst.name.as_deref() == Some("world"))
    });
    let mode = if has_world {
        map.auto_collision()
    } else {
        crate::schema::map::AutoCollision::Off
    };
    // Said once per map (ours; the rule is 000 "autoCollision"): models placed with no
    // world instance are walked through unless a part authors a dh.collider.
    if !has_world && map.auto_collision() != crate::schema::map::AutoCollision::Off {
        let placed: Vec<usize> = map
            .objects
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                matches!(r, Record::Instance(inst) if inst.source_kind() == Some(SourceKind::Model))
            })
            .map(|(i, _)| i)
            .collect();
        if let Some(&first) = placed.first() {
            let span = match &map.objects[first] {
                Record::Instance(inst) => inst.at.field("name"),
                _ => map.at.span,
            };
            diags.warning(
                file,
                span,
                &format!("objects[{first}]"),
                format!(
                    "the map places {} model instance(s) but none is named 'world', so none is given collision: a map without a world instance has no automatic collision (dh.map, autoCollision); name the ground's instance \"world\", or author a dh.collider on the parts that should be solid",
                    placed.len()
                ),
            );
        }
    }
    let mut collision = crate::colcook::MapCollision::new(
        mode,
        map.hull_options.as_ref(),
        crate::colcook::CookCache::default_root().map(crate::colcook::CookCache::new),
    );
    let map_span = map.at.span;
    for (i, record) in map.objects.iter_mut().enumerate() {
        let Record::Instance(inst) = record else {
            continue;
        };
        if inst.source_kind() != Some(SourceKind::Model) {
            continue;
        }
        let Ok(b) = refs::resolve(&inst.source, &manifest.id, map_path, &manifest.dependencies)
        else {
            continue; // reported by the reference check
        };
        if b.pallet != manifest.id {
            continue; // imported where it lives, and where it is loaded
        }
        let span = inst.at.field("source");
        let at = format!("objects[{i}].source");
        let fresh = !cache.models.contains_key(&b.path);
        if fresh {
            let imported = import_model(manifest, read, &b.path, &mut cache.sidecar_diags);
            cache.models.insert(b.path.clone(), imported);
        }
        let Some(Some(imported)) = cache.models.get(&b.path) else {
            continue;
        };
        if fresh {
            for note in &imported.notes {
                diags.warning(file, span, &at, note.clone());
            }
        }
        if reported.insert(b.path.clone()) {
            match &imported.result {
                Err(ImportFailure::Convert(e)) => diags.error(file, span, &at, e.to_string()),
                Err(ImportFailure::Glb(e)) => {
                    let lines = crate::gltf::geometry_report(Err(e), &bound);
                    if lines.is_empty() {
                        // Not even a container the report reads: still no parts table.
                        diags.error(
                            file,
                            span,
                            &at,
                            format!("'{}' does not import: {e}", inst.source),
                        );
                    }
                    for (severity, line) in lines {
                        diags.push(severity, file, span, &at, line);
                    }
                }
                Ok(m) => {
                    for (severity, line) in crate::gltf::geometry_report(Ok(&m.model), &bound) {
                        diags.push(severity, file, span, &at, line);
                    }
                }
            }
        }
        let (Ok(m), Some(instance_id)) = (&imported.result, inst.id) else {
            continue; // an import error stops here; a missing id is a map rule error
        };
        let placement = crate::parts::Placement {
            instance_id,
            pose: worlds.get(i).copied().unwrap_or(glam::DMat4::IDENTITY),
            first_id: next_id,
            materials: &materials,
        };
        let mut table = crate::parts::bake_parts_table(&m.model, &m.ids, &placement);
        for w in std::mem::take(&mut table.warnings) {
            diags.warning(file, span, &at, format!("{}: {w}", b.path));
        }
        let applied =
            crate::parts::apply_overrides(&m.model, &m.ids, &b.path, &mut table, &inst.children);
        for note in applied.notes {
            match inst.children.get(note.index) {
                Some(o) => diags.warning(
                    file,
                    o.at.span,
                    &format!("objects[{i}].children[{}]", note.index),
                    note.message,
                ),
                None => diags.warning(file, span, &at, note.message),
            }
        }
        // The instance's parts are final here: `table.parts` (entries, overrides laid
        // over them) and `table.worlds` (each part's world matrix, for its vertices).
        let states = crate::colcook::part_states(&table.parts, &inst.children);
        let cooked = collision.bake_instance(&m.model, &table, &placement, &states);
        cooked.apply(&mut table.parts);
        for w in cooked.warnings {
            diags.warning(file, span, &at, w);
        }
        next_id = table.next_id;
        inst.parts = table.parts;
    }
    let done = collision.finish(map_path);
    for w in done.warnings {
        diags.warning(file, map_span, "", w);
    }
    done.companion
}

/// Puts each model instance's `children` (its part overrides) into the compiled map
/// exactly as the source wrote them: every member, in the order written, nothing
/// normalized. A stale or orphan override applies nothing and is kept byte for byte; the
/// others travel beside the parts table they were applied to.
fn keep_overrides_as_written(compiled: &mut Value, source: &Value) {
    let Some(written) = source.get("objects").and_then(Value::as_array) else {
        return;
    };
    let Kind::Object(members) = &mut compiled.kind else {
        return;
    };
    let Some(Kind::Array(objects)) = members
        .iter_mut()
        .find(|m| m.key == "objects")
        .map(|m| &mut m.value.kind)
    else {
        return;
    };
    for (c, s) in objects.iter_mut().zip(written) {
        // The same record (by id) in the same place, placing a model.
        let same = c.get("id").and_then(Value::as_str).is_some()
            && c.get("id").and_then(Value::as_str) == s.get("id").and_then(Value::as_str);
        let model = c
            .get("source")
            .and_then(Value::as_str)
            .and_then(crate::schema::records::SourceKind::of)
            == Some(crate::schema::records::SourceKind::Model);
        let Some(children) = s.get("children").filter(|_| same && model) else {
            continue;
        };
        if let Kind::Object(fields) = &mut c.kind {
            if let Some(m) = fields.iter_mut().find(|m| m.key == "children") {
                m.value = children.clone();
            }
        }
    }
}
