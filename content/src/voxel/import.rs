//! `.vox` (MagicaVoxel or Teardown) to the canonical payload, as the spec's "Importing a
//! .vox" says:
//!
//! * Every `nTRN` transform node becomes a grid, so the hierarchy survives (a group node
//!   shared by several transforms is placed once under each). A group's transform carries
//!   its children; a shape's model fills the grid of the transform above it. Grids come in
//!   depth-first order from the root, children in the file's order.
//! * A grid's transform is `R * (cell - pivot) + t`: the rotation byte decoded to its
//!   signed permutation (mirrors included), the pivot `floor(size / 2)` of the model it
//!   holds folded into the translation. A grid holding a group has no pivot.
//! * Axes are recorded as `z-up-right`, never baked into the cells.
//! * The palette keeps all 255 entries, so a global index equals the source index. Each
//!   carries `index` and `color` (`#rrggbbaa`); a `MATL` adds `material` (its `_type`,
//!   without the leading `_`) and the rest of its properties as strings, as written. A
//!   MagicaVoxel entry is `dh:color`; a Teardown entry is `teardown:<material>` by the
//!   spec's table, its color the paint (left out when the file has no `RGBA`, so the
//!   material's own color applies).
//! * A node's layer is kept as grid attributes (`layer`, `layerHidden`), as is a hidden
//!   node (`hidden`); a flag's value is `true`.
//! * Every chunk not read is kept whole as a source extra tagged
//!   `magicavoxel.chunk.<ID>`.
//! * Only frame 0 of a transform or shape is kept (the keyframe at frame 0, else the
//!   earliest), with a warning.
//!
//! A file without a scene graph places each model as its own root grid, centered on its
//! pivot as MagicaVoxel places it. A model no shape uses is kept too, as a hidden root
//! grid, with a warning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::blocks::format_color;
use super::payload::{
    encode, Blob, Extra, ExtraKind, Grid, GridInfo, PaletteEntry, PayloadAxes, PayloadError,
    PayloadHeader, PropValue, Property, UpAxis, VoxelPayload,
};
use super::teardown;
use super::vox::{
    dict_get, read_vox, Rotation, VoxError, VoxFile, VoxFrame, VoxModel, VoxNode, VoxShapeModel,
};
use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{write_string, Kind, Value};
use crate::pallet::voxel_shard_name;
use crate::read::Mode;
use crate::schema::voxel::{payload_path, read_voxel, Platform, MAGICAVOXEL, TEARDOWN};

/// Largest `.vox` file read, in bytes.
pub const MAX_VOX_FILE: u64 = 1 << 28;
/// Most grids one import may place (a shared group is placed once per use).
pub const MAX_IMPORT_GRIDS: usize = 1 << 16;
/// Most voxels one import may place, over every grid.
pub const MAX_IMPORT_VOXELS: u64 = 1 << 27;
/// Deepest scene graph followed: transform and group nodes on one path from the root.
pub const MAX_GRAPH_DEPTH: usize = 256;

/// The tag prefix of a `.vox` chunk kept whole.
pub const CHUNK_TAG_PREFIX: &str = "magicavoxel.chunk.";

/// Whose rules a `.vox` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoxPlatform {
    /// MagicaVoxel (`com.ephtracy.magicavoxel`): a palette index is a color.
    MagicaVoxel,
    /// Teardown (`com.tuxedolabs.teardown`): a palette index is a material.
    Teardown,
}

impl VoxPlatform {
    /// The platform ID.
    pub fn id(self) -> &'static str {
        match self {
            VoxPlatform::MagicaVoxel => MAGICAVOXEL,
            VoxPlatform::Teardown => TEARDOWN,
        }
    }

    /// Reads a written platform: an ID or a built-in alias (`magicavoxel`, `teardown`).
    pub fn from_written(s: &str) -> Option<VoxPlatform> {
        match Platform::resolve(s)?.as_str() {
            MAGICAVOXEL => Some(VoxPlatform::MagicaVoxel),
            TEARDOWN => Some(VoxPlatform::Teardown),
            _ => None,
        }
    }
}

/// An error importing a `.vox`: the file, and what was wrong with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A file could not be read or written.
    #[error("{path}: cannot {action}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What was being attempted.
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than the importer reads.
    #[error("{path}: the file is {len} bytes; a .vox may be at most {cap}")]
    TooLarge {
        /// The file.
        path: String,
        /// Its length.
        len: u64,
        /// The cap.
        cap: u64,
    },
    /// The bytes are not a readable `.vox`.
    #[error("{path}: {source}")]
    Vox {
        /// The file.
        path: String,
        /// Where and what.
        #[source]
        source: Box<VoxError>,
    },
    /// The platform named is not one a `.vox` follows.
    #[error("'{found}' is not a platform a .vox follows; expected MagicaVoxel ({MAGICAVOXEL}, alias magicavoxel) or Teardown ({TEARDOWN}, alias teardown)")]
    Platform {
        /// The platform as written.
        found: String,
    },
    /// The scene graph cannot be placed (a cycle, a missing model, too many grids).
    #[error("{path}: {message}")]
    Scene {
        /// The file.
        path: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// The payload could not be written.
    #[error("{path}: {source}")]
    Payload {
        /// The payload file.
        path: String,
        /// The writer's error.
        #[source]
        source: Box<PayloadError>,
    },
    /// The definition written did not read back clean (a bug, reported rather than shipped).
    #[error("{path}: the definition written does not read back: {message}")]
    Definition {
        /// The definition file.
        path: String,
        /// The diagnostics.
        message: String,
    },
}

/// A `.vox` converted to a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct VoxImport {
    /// The payload.
    pub payload: VoxelPayload,
    /// Whose rules it follows.
    pub platform: VoxPlatform,
    /// Whether the platform was detected (none was named).
    pub platform_detected: bool,
    /// Things the import did not keep as written (animation frames, dropped voxels, ...).
    pub warnings: Vec<String>,
}

/// What [`import_vox`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportReport {
    /// The `.dh-vox` definition.
    pub definition: PathBuf,
    /// The `.dh-vox.bin` payload and its sibling shards (`.1`, ...), in order.
    pub payload: Vec<PathBuf>,
    /// The platform ID it follows.
    pub platform: &'static str,
    /// Whether the platform was detected (none was named).
    pub platform_detected: bool,
    /// Grids written.
    pub grids: usize,
    /// Voxels written, over every grid.
    pub voxels: u64,
    /// Global palette entries (256: `dh:empty` and the 255 source indices).
    pub palette_entries: usize,
    /// Chunks kept whole as extras.
    pub extras: usize,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// Converts a `.vox`'s bytes. `name` is used in messages; `platform` is an ID or alias,
/// or `None` to detect it (Teardown when the file holds a VoxTool `TDCZ` model or a `NOTE`
/// naming Teardown's materials, else MagicaVoxel).
pub fn import_vox_bytes(
    name: &str,
    bytes: &[u8],
    platform: Option<&str>,
) -> Result<VoxImport, ImportError> {
    let chosen = match platform {
        Some(p) => Some(
            VoxPlatform::from_written(p).ok_or_else(|| ImportError::Platform {
                found: p.to_string(),
            })?,
        ),
        None => None,
    };
    let file = read_vox(bytes).map_err(|source| ImportError::Vox {
        path: name.to_string(),
        source: Box::new(source),
    })?;
    let (platform, detected) = match chosen {
        Some(p) => (p, false),
        None if teardown::looks_like_teardown(&file) => (VoxPlatform::Teardown, true),
        None => (VoxPlatform::MagicaVoxel, true),
    };
    let mut import = convert(&file, platform).map_err(|message| ImportError::Scene {
        path: name.to_string(),
        message,
    })?;
    import.platform_detected = detected;
    Ok(import)
}

/// Converts a read `.vox` to a payload following `platform`. The error names what in the
/// scene graph cannot be placed.
pub fn convert(file: &VoxFile, platform: VoxPlatform) -> Result<VoxImport, String> {
    let mut warnings = file.warnings.clone();
    let header = PayloadHeader {
        platform: platform.id().to_string(),
        format: "vox".to_string(),
        platform_version: String::new(),
        voxel_size: 0.1,
        axes: PayloadAxes {
            up: UpAxis::Z,
            left_handed: false,
        },
        origin: [0; 3],
        chunk_edge: super::payload::DEFAULT_CHUNK_EDGE,
        meta: vec![("voxVersion".to_string(), file.version.to_string())],
    };
    let mut payload = VoxelPayload {
        header,
        palette: palette(file, platform),
        ..VoxelPayload::default()
    };

    let mut placer = Placer {
        file,
        payload: &mut payload,
        warnings: &mut warnings,
        voxels: 0,
        used_models: vec![false; file.models.len()],
        layers: file.layers.iter().map(|l| (l.id, &l.attributes)).collect(),
        warned_frames: Vec::new(),
    };
    let graph = match file.nodes.get(&0) {
        Some(VoxNode::Transform(_)) => true,
        Some(_) => {
            placer.warnings.push(
                "node 0 is not a transform (nTRN), so the scene graph has no root; each model is placed on its own".into(),
            );
            false
        }
        None if !file.nodes.is_empty() => {
            placer.warnings.push(
                "the scene graph has no node 0 (its root), so each model is placed on its own"
                    .into(),
            );
            false
        }
        None => false,
    };
    if graph {
        let mut path = Vec::new();
        placer.place_transform(0, None, &mut path)?;
    }
    // Models no shape placed: as MagicaVoxel places a file without a scene graph, or
    // hidden when the graph left them out.
    for m in 0..file.models.len() {
        if !placer.used_models[m] {
            if graph {
                placer.warnings.push(format!(
                    "model {m} is used by no shape; it is kept as a hidden root grid 'model {m}'"
                ));
            }
            let attributes = if graph {
                vec![("hidden".to_string(), "true".to_string())]
            } else {
                Vec::new()
            };
            placer.add_model_grid(
                format!("model {m}"),
                None,
                Rotation::IDENTITY,
                [0; 3],
                m,
                attributes,
            )?;
        }
    }

    for c in &file.extras {
        payload.extras.push(Extra {
            kind: ExtraKind::Source,
            grid: None,
            cell: None,
            blob: Blob {
                format: format!("{CHUNK_TAG_PREFIX}{}", c.id),
                bytes: c.bytes.clone(),
            },
        });
    }
    Ok(VoxImport {
        payload,
        platform,
        platform_detected: false,
        warnings,
    })
}

/// The global palette: `dh:empty`, then one entry per source index 1–255.
fn palette(file: &VoxFile, platform: VoxPlatform) -> Vec<PaletteEntry> {
    let mut materials: HashMap<i32, &Vec<(String, String)>> = HashMap::new();
    for m in &file.materials {
        materials.entry(m.id).or_insert(&m.properties);
    }
    let mut out = Vec::with_capacity(256);
    out.push(PaletteEntry::empty());
    for index in 1..=255u8 {
        let mut e = match platform {
            VoxPlatform::MagicaVoxel => PaletteEntry::new("dh", "color"),
            VoxPlatform::Teardown => {
                PaletteEntry::new(teardown::NAMESPACE, teardown::material_for_index(index))
            }
        };
        e.properties.push(Property {
            key: "index".into(),
            value: PropValue::Int(i32::from(index)),
        });
        if file.has_rgba || platform == VoxPlatform::MagicaVoxel {
            e.properties.push(Property::string(
                "color",
                format_color(file.palette[usize::from(index)]),
            ));
        }
        if let Some(props) = materials.get(&i32::from(index)) {
            if let Some(t) = dict_get(props, "_type") {
                e.properties.push(Property::string(
                    "material",
                    t.strip_prefix('_').unwrap_or(t),
                ));
            }
            for (k, v) in props.iter() {
                let reserved = matches!(k.as_str(), "_type" | "index" | "color" | "material");
                if !reserved && !e.properties.iter().any(|p| &p.key == k) {
                    e.properties.push(Property::string(k.clone(), v.clone()));
                }
            }
        }
        out.push(e);
    }
    out
}

struct Placer<'a> {
    file: &'a VoxFile,
    payload: &'a mut VoxelPayload,
    warnings: &'a mut Vec<String>,
    voxels: u64,
    used_models: Vec<bool>,
    layers: HashMap<i32, &'a Vec<(String, String)>>,
    warned_frames: Vec<i32>,
}

/// The keyframe kept: the one at frame 0, else the earliest.
fn frame_zero(frames: &[VoxFrame]) -> Option<&VoxFrame> {
    frames
        .iter()
        .find(|f| f.frame == 0)
        .or_else(|| frames.iter().min_by_key(|f| f.frame))
}

fn shape_frame_zero(models: &[VoxShapeModel]) -> Option<&VoxShapeModel> {
    models
        .iter()
        .find(|m| m.frame == 0)
        .or_else(|| models.iter().min_by_key(|m| m.frame))
}

/// The 3×4 transform `R * (cell - pivot) + t`.
fn transform(r: Rotation, t: [i32; 3], pivot: [i64; 3]) -> [[f32; 4]; 3] {
    let rp = r.apply(pivot);
    let mut m = [[0f32; 4]; 3];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().take(3).enumerate() {
            *v = f32::from(r.rows[i][j]);
        }
        row[3] = (i64::from(t[i]) - rp[i]) as f32;
    }
    m
}

fn is_true(v: Option<&str>) -> bool {
    matches!(v.map(str::trim), Some("1") | Some("true"))
}

impl Placer<'_> {
    fn place_transform(
        &mut self,
        id: i32,
        parent: Option<u32>,
        path: &mut Vec<i32>,
    ) -> Result<(), String> {
        let Some(VoxNode::Transform(t)) = self.file.nodes.get(&id) else {
            return Ok(());
        };
        if path.contains(&id) {
            return Err(format!(
                "the scene graph has a cycle: node {id} is its own ancestor (path {path:?}); expected a tree of nTRN, nGRP and nSHP nodes"
            ));
        }
        if path.len() >= MAX_GRAPH_DEPTH {
            return Err(format!(
                "the scene graph nests deeper than {MAX_GRAPH_DEPTH} nodes at node {id}"
            ));
        }
        let frame = frame_zero(&t.frames).cloned().unwrap_or_default();
        if t.frames.len() > 1 {
            self.warn_frames(id, t.frames.len(), "transform");
        }
        let name = dict_get(&t.attributes, "_name")
            .map(str::to_string)
            .unwrap_or_else(|| format!("node {id}"));
        let mut attributes = Vec::new();
        if t.layer >= 0 {
            let layer = self.layers.get(&t.layer).copied();
            let layer_name = layer
                .and_then(|a| dict_get(a, "_name"))
                .map(str::to_string)
                .unwrap_or_else(|| t.layer.to_string());
            attributes.push(("layer".to_string(), layer_name));
            if is_true(layer.and_then(|a| dict_get(a, "_hidden"))) {
                attributes.push(("layerHidden".to_string(), "true".to_string()));
            }
        }
        if is_true(dict_get(&t.attributes, "_hidden")) {
            attributes.push(("hidden".to_string(), "true".to_string()));
        }

        path.push(id);
        match self.file.nodes.get(&t.child) {
            Some(VoxNode::Shape(s)) => {
                if s.models.len() > 1 {
                    self.warn_frames(t.child, s.models.len(), "shape");
                }
                let Some(m) = shape_frame_zero(&s.models) else {
                    return Err(format!("shape node {} has no model", t.child));
                };
                let model = usize::try_from(m.model)
                    .ok()
                    .filter(|&i| i < self.file.models.len())
                    .ok_or_else(|| {
                        format!(
                            "shape node {} uses model {}, but the file has {} models (0 to {})",
                            t.child,
                            m.model,
                            self.file.models.len(),
                            self.file.models.len() as i64 - 1
                        )
                    })?;
                self.add_model_grid(
                    name,
                    parent,
                    frame.rotation,
                    frame.translation,
                    model,
                    attributes,
                )?;
            }
            Some(VoxNode::Group(g)) => {
                let grid = self.add_grid(GridInfo {
                    name,
                    parent,
                    transform: transform(frame.rotation, frame.translation, [0; 3]),
                    bounds_min: [0; 3],
                    bounds_size: [0; 3],
                    attributes,
                })?;
                if path.contains(&t.child) {
                    return Err(format!(
                        "the scene graph has a cycle through group node {}",
                        t.child
                    ));
                }
                path.push(t.child);
                for &c in &g.children {
                    match self.file.nodes.get(&c) {
                        Some(VoxNode::Transform(_)) => self.place_transform(c, Some(grid), path)?,
                        Some(_) => self.warnings.push(format!(
                            "group node {} lists node {c}, which is not a transform (nTRN); it was skipped",
                            t.child
                        )),
                        None => self.warnings.push(format!(
                            "group node {} lists node {c}, which the file does not hold; it was skipped",
                            t.child
                        )),
                    }
                }
                path.pop();
            }
            Some(VoxNode::Transform(_)) => {
                // Not what the format allows, but placeable: an empty grid carrying the
                // transform, the child transform under it.
                self.warnings.push(format!(
                    "transform node {id}'s child {} is a transform, not a group or shape",
                    t.child
                ));
                let grid = self.add_grid(GridInfo {
                    name,
                    parent,
                    transform: transform(frame.rotation, frame.translation, [0; 3]),
                    bounds_min: [0; 3],
                    bounds_size: [0; 3],
                    attributes,
                })?;
                self.place_transform(t.child, Some(grid), path)?;
            }
            None => {
                self.warnings.push(format!(
                    "transform node {id}'s child {} is not in the file; its grid is empty",
                    t.child
                ));
                self.add_grid(GridInfo {
                    name,
                    parent,
                    transform: transform(frame.rotation, frame.translation, [0; 3]),
                    bounds_min: [0; 3],
                    bounds_size: [0; 3],
                    attributes,
                })?;
            }
        }
        path.pop();
        Ok(())
    }

    fn warn_frames(&mut self, node: i32, frames: usize, kind: &str) {
        if !self.warned_frames.contains(&node) {
            self.warned_frames.push(node);
            self.warnings.push(format!(
                "{kind} node {node} is animated ({frames} keyframes); only frame 0 is kept"
            ));
        }
    }

    fn add_grid(&mut self, info: GridInfo) -> Result<u32, String> {
        if self.payload.grids.len() >= MAX_IMPORT_GRIDS {
            return Err(format!(
                "placing the scene graph makes more than {MAX_IMPORT_GRIDS} grids"
            ));
        }
        let i = self.payload.grids.len() as u32;
        self.payload.grids.push(Grid::new(info));
        Ok(i)
    }

    fn add_model_grid(
        &mut self,
        name: String,
        parent: Option<u32>,
        rotation: Rotation,
        translation: [i32; 3],
        model: usize,
        attributes: Vec<(String, String)>,
    ) -> Result<(), String> {
        let file = self.file;
        let Some(m) = file.models.get(model) else {
            return Err(format!("model {model} is not in the file"));
        };
        let VoxModel { size, voxels, .. } = m;
        self.voxels += voxels.len() as u64;
        if self.voxels > MAX_IMPORT_VOXELS {
            return Err(format!(
                "placing the scene graph places more than {MAX_IMPORT_VOXELS} voxels"
            ));
        }
        if let Some(u) = self.used_models.get_mut(model) {
            *u = true;
        }
        let pivot = size.map(|s| i64::from(s / 2));
        let grid = self.add_grid(GridInfo {
            name,
            parent,
            transform: transform(rotation, translation, pivot),
            bounds_min: [0; 3],
            bounds_size: size.map(|s| s as i32),
            attributes,
        })? as usize;
        for v in voxels {
            self.payload.set_cell(
                grid,
                0,
                [i32::from(v[0]), i32::from(v[1]), i32::from(v[2])],
                u32::from(v[3]),
            );
        }
        Ok(())
    }
}

/// The `.dh-vox` definition's text for a payload `data` following `platform`.
pub fn definition_text(name: &str, platform: VoxPlatform, data: &str) -> String {
    let mut s = String::from("{\n  \"name\": ");
    write_string(name, &mut s);
    s.push_str(",\n  \"platform\": ");
    write_string(platform.id(), &mut s);
    s.push_str(",\n  \"format\": \"vox\",\n  \"data\": ");
    write_string(data, &mut s);
    s.push_str("\n}\n");
    s
}

/// Imports the `.vox` at `path`: writes `<stem>.dh-vox` (the definition) and its
/// `<stem>.dh-vox.bin` payload (with sibling shards `.1`, ... when it is that large) into
/// `into_dir`, or beside the source when `None`. `platform` is an ID or alias, or `None` to
/// detect it. The definition is read back through the schema before this returns.
pub fn import_vox(
    path: &Path,
    platform: Option<&str>,
    into_dir: Option<&Path>,
) -> Result<ImportReport, ImportError> {
    let shown = path.display().to_string();
    let io = |action: &'static str, p: &Path| {
        let p = p.display().to_string();
        move |source| ImportError::Io {
            path: p,
            action,
            source,
        }
    };
    let len = std::fs::metadata(path).map_err(io("read", path))?.len();
    if len > MAX_VOX_FILE {
        return Err(ImportError::TooLarge {
            path: shown,
            len,
            cap: MAX_VOX_FILE,
        });
    }
    let bytes = std::fs::read(path).map_err(io("read", path))?;
    let import = import_vox_bytes(&shown, &bytes, platform)?;

    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "model".to_string());
    let dir = into_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| path.parent().map(Path::to_path_buf).unwrap_or_default());
    let platform_of = import.platform;
    let written: Written = write_import(&import.payload, &dir, &stem, |data| {
        definition_text(&stem, platform_of, data)
    })?;
    Ok(ImportReport {
        definition: written.definition,
        payload: written.payload,
        platform: import.platform.id(),
        platform_detected: import.platform_detected,
        grids: import.payload.grids.len(),
        voxels: written.voxels,
        palette_entries: import.payload.palette.len(),
        extras: import.payload.extras.len(),
        warnings: import.warnings,
    })
}

/// What [`write_import`] wrote.
pub(crate) struct Written {
    /// The `.dh-vox` definition.
    pub definition: PathBuf,
    /// The payload and its shards, in order.
    pub payload: Vec<PathBuf>,
    /// Non-empty cells of the block layer, over every grid.
    pub voxels: u64,
}

/// How an importer's error type names what [`write_import`] met.
pub(crate) trait WriteErrors {
    /// A file could not be written or a folder created.
    fn io(path: &Path, action: &'static str, source: std::io::Error) -> Self;
    /// The payload could not be encoded.
    fn payload(path: &Path, source: PayloadError) -> Self;
    /// The definition written does not read back clean.
    fn definition(path: &Path, message: String) -> Self;
}

impl WriteErrors for ImportError {
    fn io(path: &Path, action: &'static str, source: std::io::Error) -> Self {
        ImportError::Io {
            path: path.display().to_string(),
            action,
            source,
        }
    }
    fn payload(path: &Path, source: PayloadError) -> Self {
        ImportError::Payload {
            path: path.display().to_string(),
            source: Box::new(source),
        }
    }
    fn definition(path: &Path, message: String) -> Self {
        ImportError::Definition {
            path: path.display().to_string(),
            message,
        }
    }
}

/// The one write-out of every file importer (`.vox`, the Minecraft structures): encodes
/// `payload`, reads the definition `definition_text(data)` back through the schema, and
/// only then writes `<stem>.dh-vox.bin` (with its shards) and `<stem>.dh-vox` into `dir`,
/// so a definition that would not read back leaves nothing behind.
pub(crate) fn write_import<E: WriteErrors>(
    payload: &VoxelPayload,
    dir: &Path,
    stem: &str,
    definition_text: impl FnOnce(&str) -> String,
) -> Result<Written, E> {
    std::fs::create_dir_all(dir).map_err(|e| E::io(dir, "create the folder", e))?;
    let def_name = format!("{stem}.dh-vox");
    let data_name = payload_path(&def_name);
    let def_path = dir.join(&def_name);
    let shards = encode(payload).map_err(|e| E::payload(&dir.join(&data_name), e))?;
    let text = definition_text(&data_name);
    let file = SourceFile::new(def_path.display().to_string(), text.clone());
    let mut diags = Diagnostics::new();
    let read = read_voxel(&file, &mut diags, Mode::Build);
    if read.is_none() || diags.has_errors() {
        let message: Vec<String> = diags.items.iter().map(|d| d.to_string()).collect();
        return Err(E::definition(&def_path, message.join("; ")));
    }
    let mut written = Vec::with_capacity(shards.len());
    for (n, bytes) in shards.iter().enumerate() {
        let p = dir.join(voxel_shard_name(&data_name, n as u16));
        std::fs::write(&p, bytes).map_err(|e| E::io(&p, "write", e))?;
        written.push(p);
    }
    std::fs::write(&def_path, text).map_err(|e| E::io(&def_path, "write", e))?;
    let voxels = payload
        .grids
        .iter()
        .flat_map(|g| g.chunks.iter())
        .filter(|(k, _)| k.layer == 0)
        .map(|(_, c)| c.iter().filter(|&&v| v != 0).count() as u64)
        .sum();
    Ok(Written {
        definition: def_path,
        payload: written,
        voxels,
    })
}

/// The definition value of a written `.dh-vox` (for tools that show it).
pub fn definition_value(name: &str, platform: VoxPlatform, data: &str) -> Value {
    let s = |v: &str| Value::synthetic(Kind::String(v.to_string()));
    let member = |k: &str, v: Value| crate::jsonc::Member {
        key: k.to_string(),
        key_span: Default::default(),
        value: v,
    };
    Value::synthetic(Kind::Object(vec![
        member("name", s(name)),
        member("platform", s(platform.id())),
        member("format", s("vox")),
        member("data", s(data)),
    ]))
}

/// Reads `data` as a `.vox`, converts it as both platforms, resolves every palette entry
/// through the built-in tables, and writes and reads back the payload when it is small.
/// The body of the `vox` cargo-fuzz target: it must never panic, and nothing it allocates
/// is unbounded (the reader's and the importer's caps).
pub(crate) fn fuzz_import(data: &[u8]) {
    let Ok(file) = read_vox(data) else {
        return;
    };
    let _ = teardown::looks_like_teardown(&file);
    for platform in [VoxPlatform::MagicaVoxel, VoxPlatform::Teardown] {
        let Ok(import) = convert(&file, platform) else {
            continue;
        };
        let p = &import.payload;
        if let Ok(tables) = super::blocks::BlockTables::builtin() {
            for e in &p.palette {
                let color = e
                    .properties
                    .iter()
                    .find(|q| q.key == "color")
                    .and_then(|q| match &q.value {
                        PropValue::String(s) => super::blocks::parse_color(s),
                        _ => None,
                    });
                let key = super::blocks::EntryKey {
                    namespace: &e.ns,
                    id: &e.id,
                    color,
                };
                let _ = super::blocks::resolve_entry(tables, key, Some(platform.id()), None);
            }
        }
        if p.stored_cells() <= 1 << 20 {
            let shards = encode(p).expect("an imported payload writes");
            let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
            let back = super::payload::decode_all(&views).expect("a written payload reads back");
            assert!(
                back == p.canonical(),
                "an imported payload read back differs"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_folds_the_pivot_into_the_translation() {
        // A 3x4x1 model's pivot is (1, 2, 0). With R = the format document's example
        // rows (0 1 0), (0 0 -1), (-1 0 0) and t = (10, 20, 30):
        // R * pivot = (2, 0, -1), so the translation is (8, 20, 31).
        let r = Rotation::from_byte(105).unwrap();
        let m = transform(r, [10, 20, 30], [1, 2, 0]);
        assert_eq!(
            m,
            [
                [0.0, 1.0, 0.0, 8.0],
                [0.0, 0.0, -1.0, 20.0],
                [-1.0, 0.0, 0.0, 31.0]
            ]
        );
        // Cell (1, 2, 0), the pivot, lands on t.
        let cell = [1.0f32, 2.0, 0.0];
        let out: Vec<f32> = m
            .iter()
            .map(|row| row[0] * cell[0] + row[1] * cell[1] + row[2] * cell[2] + row[3])
            .collect();
        assert_eq!(out, [10.0, 20.0, 30.0]);
    }

    #[test]
    fn platforms_read_ids_and_aliases() {
        assert_eq!(
            VoxPlatform::from_written("teardown"),
            Some(VoxPlatform::Teardown)
        );
        assert_eq!(
            VoxPlatform::from_written(TEARDOWN),
            Some(VoxPlatform::Teardown)
        );
        assert_eq!(
            VoxPlatform::from_written("magicavoxel"),
            Some(VoxPlatform::MagicaVoxel)
        );
        assert_eq!(VoxPlatform::from_written("minecraft"), None);
        assert_eq!(VoxPlatform::from_written("Not A Platform"), None);
    }

    #[test]
    fn the_definition_reads_back_through_the_schema() {
        let text = definition_text("crate \"x\"", VoxPlatform::Teardown, "crate.dh-vox.bin");
        let file = SourceFile::new("crate.dh-vox", text);
        let mut diags = Diagnostics::new();
        let d = read_voxel(&file, &mut diags, Mode::Build).unwrap();
        assert!(!diags.has_errors(), "{:?}", diags.items);
        assert_eq!(d.name.as_deref(), Some("crate \"x\""));
        assert_eq!(d.platform_id(), Some(TEARDOWN));
        assert_eq!(d.data, "crate.dh-vox.bin");
        let v = definition_value("crate", VoxPlatform::Teardown, "crate.dh-vox.bin");
        assert_eq!(
            v.to_json(),
            "{\"name\":\"crate\",\"platform\":\"com.tuxedolabs.teardown\",\"format\":\"vox\",\"data\":\"crate.dh-vox.bin\"}"
        );
    }
}
