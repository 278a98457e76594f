//! Minecraft Java Edition sources (spec dh.voxel, "Importing Minecraft Java"): the NBT
//! reader they all share, and the structure formats converted into the canonical payload:
//! Sponge `.schem` ([`sponge`]), Litematica `.litematic` ([`litematic`]), vanilla
//! structure-block `.nbt` ([`structure`]) and MCEdit / Schematica `.schematic`
//! ([`legacy`]).
//!
//! What every source shares, here:
//!
//! * [`BlockPalette`]: a block state keeps its native id and its properties as strings,
//!   exactly as Java writes them, `waterlogged` included; equal states share one entry
//!   (properties are sorted by key, as Java's own state strings are, so the same state
//!   read from a `[k=v]` string and from a `Properties` compound is one entry, "ours").
//!   Air is an entry like any other; `minecraft:structure_void` is `dh:empty`.
//! * [`nbt_extra`]: block entities and entities kept as `nbt-java` extras, the source
//!   NBT byte for byte as an uncompressed root compound with an empty name, with their
//!   grid and cell.
//! * [`header`]: `dataVersion` in the meta and `platformVersion` from the Java release
//!   table ([`release_for_data_version`], `data/java_releases.tsv`), empty for a
//!   snapshot; [`finish_meta`] writes `dropped`, the derived data left out.
//!
//! Importing never panics and allocates within bounds on any input: the file's length,
//! the inflated NBT ([`Limits::max_inflated`]) and the cells placed
//! ([`Limits::max_cells`]) are capped, and every error names the file, the place (an NBT
//! path such as `Regions.main.BlockStates`) and what was expected.

pub mod legacy;
pub mod litematic;
pub mod nbt;
pub mod platform;
pub mod sponge;
pub mod structure;
pub mod world;

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use super::import::{write_import, ImportReport, WriteErrors, Written};
use super::payload::{
    encode, Blob, Extra, ExtraKind, PaletteEntry, PayloadAxes, PayloadError, PayloadHeader,
    Property, VoxelPayload, DEFAULT_CHUNK_EDGE,
};
use crate::jsonc::write_string;
use crate::schema::voxel::{DataKind, MINECRAFT};
use nbt::{At, Compound, NbtError};

/// The format tag of a block entity's or entity's source NBT.
pub const NBT_JAVA: &str = "nbt-java";
/// The format tag of a `.schematic` entry's raw `id:data`.
pub const LEGACY_FORMAT: &str = "minecraft-legacy";
/// The namespace of a pre-flattening block that has no flattened mapping.
pub const LEGACY_NAMESPACE: &str = "minecraft-legacy";
/// The biome layer's name.
pub const BIOME_LAYER: &str = "biome";

/// Largest structure file read, in bytes.
pub const MAX_FILE: u64 = 1 << 28;
/// The default cap on inflated NBT.
pub const DEFAULT_MAX_INFLATED: usize = 1 << 29;
/// The default cap on cells one import places, over every grid and layer.
pub const DEFAULT_MAX_CELLS: u64 = super::import::MAX_IMPORT_VOXELS;

/// What one import may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of inflated NBT.
    pub max_inflated: usize,
    /// Cells placed, over every grid and layer (each grid's volume counts whole, since
    /// air is stored).
    pub max_cells: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_inflated: DEFAULT_MAX_INFLATED,
            max_cells: DEFAULT_MAX_CELLS,
        }
    }
}

/// The structure formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructureFormat {
    /// Sponge schematic (WorldEdit), versions 1 to 3.
    Schem,
    /// Litematica.
    Litematic,
    /// Vanilla structure block.
    Nbt,
    /// MCEdit / Schematica (pre-flattening ids).
    Schematic,
}

impl StructureFormat {
    /// The `format` the payload and definition record.
    pub fn name(self) -> &'static str {
        match self {
            StructureFormat::Schem => "schem",
            StructureFormat::Litematic => "litematic",
            StructureFormat::Nbt => "nbt",
            StructureFormat::Schematic => "schematic",
        }
    }

    /// The format a `data` path names, by its extension (`None` for anything else,
    /// a world folder included).
    pub fn of_data(data: &str) -> Option<StructureFormat> {
        match DataKind::of(data) {
            DataKind::Schem => Some(StructureFormat::Schem),
            DataKind::Litematic => Some(StructureFormat::Litematic),
            DataKind::Nbt => Some(StructureFormat::Nbt),
            DataKind::Schematic => Some(StructureFormat::Schematic),
            _ => None,
        }
    }
}

/// An error importing a Minecraft structure: the file, and where and what.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MinecraftError {
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
    #[error("{path}: the file is {len} bytes; a Minecraft structure may be at most {cap}")]
    TooLarge {
        /// The file.
        path: String,
        /// Its length.
        len: u64,
        /// The cap.
        cap: u64,
    },
    /// The NBT is unreadable, or not what the format holds there.
    #[error("{path}: {source}")]
    Nbt {
        /// The file.
        path: String,
        /// Where (an NBT path or a byte offset) and what.
        #[source]
        source: NbtError,
    },
    /// The extension names no structure format.
    #[error(
        "{path}: not a Minecraft structure; expected a .schem, .litematic, .nbt or .schematic"
    )]
    NotAStructure {
        /// The file.
        path: String,
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

/// A structure converted to a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct MinecraftImport {
    /// The payload.
    pub payload: VoxelPayload,
    /// The format it came from.
    pub format: StructureFormat,
    /// Things the import did not keep as written.
    pub warnings: Vec<String>,
}

/// Converts a structure file's bytes (gzip, zlib or stored NBT). `name` is used in
/// messages and names a single-grid structure's grid (its file stem).
pub fn import_bytes(
    name: &str,
    bytes: &[u8],
    format: StructureFormat,
    limits: &Limits,
) -> Result<MinecraftImport, MinecraftError> {
    let wrap = |source| MinecraftError::Nbt {
        path: name.to_string(),
        source,
    };
    let inflated = nbt::inflate(bytes, limits.max_inflated).map_err(wrap)?;
    let root = nbt::read(&inflated).map_err(wrap)?;
    let at = root.at();
    let stem = grid_name(name);
    let mut warnings = Vec::new();
    let payload = match format {
        StructureFormat::Schem => sponge::convert(&at, &stem, limits, &mut warnings),
        StructureFormat::Litematic => litematic::convert(&at, limits, &mut warnings),
        StructureFormat::Nbt => structure::convert(&at, &stem, limits, &mut warnings),
        StructureFormat::Schematic => legacy::convert(&at, &stem, limits, &mut warnings),
    }
    .map_err(wrap)?;
    Ok(MinecraftImport {
        payload,
        format,
        warnings,
    })
}

/// The name a single-grid structure's grid takes: the file's stem.
fn grid_name(path: &str) -> String {
    let leaf = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = leaf.rsplit_once('.').map_or(leaf, |(s, _)| s);
    if stem.is_empty() {
        "structure".to_string()
    } else {
        stem.to_string()
    }
}

/// The `.dh-vox` definition's text for a converted structure: its name, the Minecraft
/// platform, the source's format and the payload `data`.
pub fn definition_text(name: &str, format: StructureFormat, data: &str) -> String {
    let mut s = String::from("{\n  \"name\": ");
    write_string(name, &mut s);
    s.push_str(",\n  \"platform\": ");
    write_string(MINECRAFT, &mut s);
    s.push_str(",\n  \"format\": ");
    write_string(format.name(), &mut s);
    s.push_str(",\n  \"data\": ");
    write_string(data, &mut s);
    s.push_str("\n}\n");
    s
}

/// Imports the structure at `path` (its format from its extension): writes
/// `<stem>.dh-vox` and its `<stem>.dh-vox.bin` payload (with sibling shards when it is
/// that large) into `into_dir`, or beside the source when `None`. The definition is read
/// back through the schema before this returns.
pub fn import_file(path: &Path, into_dir: Option<&Path>) -> Result<ImportReport, MinecraftError> {
    let shown = path.display().to_string();
    let io = |action: &'static str, p: &Path| {
        let p = p.display().to_string();
        move |source| MinecraftError::Io {
            path: p,
            action,
            source,
        }
    };
    let format = StructureFormat::of_data(&shown).ok_or_else(|| MinecraftError::NotAStructure {
        path: shown.clone(),
    })?;
    let len = std::fs::metadata(path).map_err(io("read", path))?.len();
    if len > MAX_FILE {
        return Err(MinecraftError::TooLarge {
            path: shown,
            len,
            cap: MAX_FILE,
        });
    }
    let bytes = std::fs::read(path).map_err(io("read", path))?;
    let import = import_bytes(&shown, &bytes, format, &Limits::default())?;

    let stem = grid_name(&shown);
    let dir = into_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| path.parent().map(Path::to_path_buf).unwrap_or_default());
    let written: Written = write_import(&import.payload, &dir, &stem, |data| {
        definition_text(&stem, format, data)
    })?;
    let blocks = &import.payload;
    Ok(ImportReport {
        definition: written.definition,
        payload: written.payload,
        platform: MINECRAFT,
        platform_detected: false,
        grids: blocks.grids.len(),
        voxels: written.voxels,
        palette_entries: blocks.palette.len(),
        extras: blocks.extras.len(),
        warnings: import.warnings,
    })
}

impl WriteErrors for MinecraftError {
    fn io(path: &Path, action: &'static str, source: std::io::Error) -> Self {
        MinecraftError::Io {
            path: path.display().to_string(),
            action,
            source,
        }
    }
    fn payload(path: &Path, source: PayloadError) -> Self {
        MinecraftError::Payload {
            path: path.display().to_string(),
            source: Box::new(source),
        }
    }
    fn definition(path: &Path, message: String) -> Self {
        MinecraftError::Definition {
            path: path.display().to_string(),
            message,
        }
    }
}

/// The global palette being built: `dh:empty` first, each distinct state once.
#[derive(Debug, Clone)]
pub struct BlockPalette {
    entries: Vec<PaletteEntry>,
    index: HashMap<PaletteEntry, u32>,
}

impl Default for BlockPalette {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockPalette {
    /// A palette holding only `dh:empty` (index 0).
    pub fn new() -> Self {
        let empty = PaletteEntry::empty();
        let mut index = HashMap::new();
        index.insert(empty.clone(), 0);
        BlockPalette {
            entries: vec![empty],
            index,
        }
    }

    /// The index of `entry`, added when new. `dh:empty` is 0.
    pub fn intern(&mut self, entry: PaletteEntry) -> u32 {
        if let Some(&i) = self.index.get(&entry) {
            return i;
        }
        let i = self.entries.len() as u32;
        self.entries.push(entry.clone());
        self.index.insert(entry, i);
        i
    }

    /// The index of the block state `name` (`minecraft:oak_stairs`, or a bare
    /// `oak_stairs`, which is `minecraft`'s) with string `properties`, in any order.
    /// `minecraft:structure_void` is `dh:empty` (0).
    pub fn state(&mut self, name: &str, properties: Vec<(String, String)>) -> u32 {
        match block_entry(name, properties) {
            Some(e) => self.intern(e),
            None => 0,
        }
    }

    /// The index of a state written as a string, `minecraft:chest[facing=north,...]`
    /// (Sponge's palette keys). `None` when the brackets do not close or a property has
    /// no `=`.
    pub fn state_string(&mut self, s: &str) -> Option<u32> {
        let (name, props) = parse_state(s)?;
        Some(self.state(name, props))
    }

    /// Entries so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds only `dh:empty`.
    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[PaletteEntry] {
        &self.entries
    }

    /// The entries, in index order.
    pub fn into_entries(self) -> Vec<PaletteEntry> {
        self.entries
    }
}

/// A namespaced id split at its first `:`; a bare id is `minecraft`'s.
pub fn split_id(name: &str) -> (&str, &str) {
    match name.split_once(':') {
        Some((ns, id)) => (ns, id),
        None => ("minecraft", name),
    }
}

/// A state's palette entry: its namespace, id and string properties sorted by key.
/// `None` for `minecraft:structure_void`, which is `dh:empty`.
pub fn block_entry(name: &str, mut properties: Vec<(String, String)>) -> Option<PaletteEntry> {
    let (ns, id) = split_id(name);
    if ns == "minecraft" && id == "structure_void" {
        return None;
    }
    properties.sort();
    properties.dedup_by(|a, b| a.0 == b.0);
    let mut e = PaletteEntry::new(ns, id);
    e.properties = properties
        .into_iter()
        .map(|(k, v)| Property::string(k, v))
        .collect();
    Some(e)
}

/// Splits `ns:id[k=v,k=v]` into the name and its properties. `None` when the brackets do
/// not close or a property has no `=`.
pub fn parse_state(s: &str) -> Option<(&str, Vec<(String, String)>)> {
    let Some(open) = s.find('[') else {
        return Some((s, Vec::new()));
    };
    let inner = s[open + 1..].strip_suffix(']')?;
    let mut props = Vec::new();
    if !inner.is_empty() {
        for kv in inner.split(',') {
            let (k, v) = kv.split_once('=')?;
            props.push((k.to_string(), v.to_string()));
        }
    }
    Some((&s[..open], props))
}

/// A `Name` + `Properties` compound's state (Litematica's and structures' palettes, and
/// world chunk palettes): the properties read as strings.
pub fn state_of(at: &At<'_, '_>, palette: &mut BlockPalette) -> Result<u32, NbtError> {
    let name = at.get("Name")?.as_str()?;
    let mut props = Vec::new();
    if let Some(p) = at.opt("Properties")? {
        for (k, v) in p.entries()? {
            let key = k
                .to_str()
                .ok_or_else(|| v.error("the property name is not valid modified UTF-8"))?;
            props.push((key.into_owned(), v.as_str()?.into_owned()));
        }
    }
    Ok(palette.state(&name, props))
}

/// A block entity's or entity's extra: `c`'s source bytes as an uncompressed root
/// compound with an empty name, tagged `nbt-java`, in `grid` at `cell`.
pub fn nbt_extra(kind: ExtraKind, grid: u32, cell: Option<[i32; 3]>, c: &Compound<'_>) -> Extra {
    Extra {
        kind,
        grid: Some(grid),
        cell,
        blob: Blob {
            format: NBT_JAVA.to_string(),
            bytes: c.root_bytes(),
        },
    }
}

/// The Java release a data version is (`3465` → `1.20.1`); `None` for a snapshot or a
/// version the table (`data/java_releases.tsv`) does not list.
pub fn release_for_data_version(data_version: i32) -> Option<&'static str> {
    static TABLE: OnceLock<Vec<(i32, &'static str)>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut v: Vec<(i32, &'static str)> = include_str!("data/java_releases.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let (n, name) = l.split_once('\t')?;
                Some((n.trim().parse().ok()?, name.trim()))
            })
            .collect();
        v.sort();
        v
    });
    t.binary_search_by_key(&data_version, |e| e.0)
        .ok()
        .map(|i| t[i].1)
}

/// A Minecraft payload's header: the platform, `format`, Y up right-handed, 1 m voxels,
/// 32-cell chunks, `platformVersion` from the release table and `dataVersion` first in
/// the meta.
pub fn header(format: StructureFormat, data_version: Option<i32>) -> PayloadHeader {
    let mut meta = Vec::new();
    if let Some(v) = data_version {
        meta.push(("dataVersion".to_string(), v.to_string()));
    }
    PayloadHeader {
        platform: MINECRAFT.to_string(),
        format: format.name().to_string(),
        platform_version: data_version
            .and_then(release_for_data_version)
            .unwrap_or_default()
            .to_string(),
        voxel_size: 1.0,
        axes: PayloadAxes::default(),
        origin: [0; 3],
        chunk_edge: DEFAULT_CHUNK_EDGE,
        meta,
    }
}

/// Ends the meta with `dropped`: the derived data the source held and the import left
/// out, comma-separated (empty when nothing was).
pub fn finish_meta(header: &mut PayloadHeader, dropped: &[&str]) {
    header.meta.push(("dropped".to_string(), dropped.join(",")));
}

/// Most levels of a metadata compound flattened into the meta ("ours").
const MAX_META_DEPTH: usize = 8;

/// Adds `at`'s scalar entries to the meta as `<prefix>.<key>` (nested compounds as
/// `<prefix>.<key>.<key>`): strings as written, numbers in decimal, int arrays and
/// lists of numbers as `[a, b, c]`. Byte arrays and lists of tags are not text and are
/// left out.
pub fn flatten_meta(prefix: &str, at: &At<'_, '_>, meta: &mut Vec<(String, String)>) {
    flatten_at(prefix, at, meta, 0);
}

fn flatten_at(prefix: &str, at: &At<'_, '_>, meta: &mut Vec<(String, String)>, depth: usize) {
    use nbt::TagRef;
    let Ok(entries) = at.entries() else { return };
    for (k, v) in entries {
        let key = format!("{prefix}.{}", k.lossy());
        let text = match v.tag {
            TagRef::Byte(n) => n.to_string(),
            TagRef::Short(n) => n.to_string(),
            TagRef::Int(n) => n.to_string(),
            TagRef::Long(n) => n.to_string(),
            TagRef::Float(n) => n.to_string(),
            TagRef::Double(n) => n.to_string(),
            TagRef::String(s) => s.lossy().into_owned(),
            TagRef::IntArray(a) => ivec_text(a.iter().map(i64::from)),
            TagRef::LongArray(a) => ivec_text(a.iter()),
            TagRef::List(nbt::List::Int(a)) => ivec_text(a.iter().map(i64::from)),
            TagRef::Compound(_) => {
                if depth < MAX_META_DEPTH && key.len() <= usize::from(u16::MAX) {
                    flatten_at(&key, &v, meta, depth + 1);
                }
                continue;
            }
            _ => continue,
        };
        // A meta string is at most a u16 of bytes.
        if key.len() <= usize::from(u16::MAX) && text.len() <= usize::from(u16::MAX) {
            meta.push((key, text));
        }
    }
}

/// `[a, b, c]`.
pub fn ivec_text(v: impl Iterator<Item = i64>) -> String {
    let parts: Vec<String> = v.map(|n| n.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Reads a compound of `x`, `y`, `z` Ints (Litematica's `Position` and `Size`).
pub fn xyz(at: &At<'_, '_>) -> Result<[i32; 3], NbtError> {
    Ok([
        at.get("x")?.as_i32()?,
        at.get("y")?.as_i32()?,
        at.get("z")?.as_i32()?,
    ])
}

/// An entity's cell: its `Pos` (three Doubles) rounded down; `None` when it has none
/// or a coordinate is not a finite number in the i32 range.
pub fn entity_cell(at: &At<'_, '_>, key: &'static str) -> Result<Option<[i32; 3]>, NbtError> {
    let Some(pos) = at.opt(key)? else {
        return Ok(None);
    };
    let v = pos.as_doubles()?;
    if v.len() != 3 {
        return Err(pos.error(format!("{} Doubles; expected 3 (x, y, z)", v.len())));
    }
    let mut cell = [0i32; 3];
    for (c, &d) in cell.iter_mut().zip(&v) {
        let f = d.floor();
        if !f.is_finite() || f < i32::MIN as f64 || f > i32::MAX as f64 {
            return Ok(None);
        }
        *c = f as i32;
    }
    Ok(Some(cell))
}

/// Checks a grid's volume against the cap and adds it to `cells` (the running total).
pub fn count_cells(
    at: &At<'_, '_>,
    size: [i32; 3],
    cells: &mut u64,
    limits: &Limits,
) -> Result<(), NbtError> {
    let v = size
        .iter()
        .map(|&s| s.unsigned_abs() as u64)
        .product::<u64>();
    *cells = cells.saturating_add(v);
    if *cells > limits.max_cells {
        return Err(at.error(format!(
            "a structure of {}x{}x{} blocks takes the import past {} cells, the most one import places",
            size[0], size[1], size[2], limits.max_cells
        )));
    }
    Ok(())
}

/// Fills `grid`'s `layer` over `size` cells from `cell(x, y, z)` (a global palette
/// index), chunk by chunk, storing only chunks that hold something.
pub fn fill_grid<E>(
    payload: &mut VoxelPayload,
    grid: usize,
    layer: u16,
    size: [i32; 3],
    mut cell: impl FnMut(i32, i32, i32) -> Result<u32, E>,
) -> Result<(), E> {
    let Some(e) = payload.layer_edge(layer) else {
        return Ok(());
    };
    let ei = e as i32;
    let n = e * e * e;
    let chunks = size.map(|s| (s.max(0) + ei - 1) / ei);
    let Some(g) = payload.grids.get_mut(grid) else {
        return Ok(());
    };
    for cz in 0..chunks[2] {
        for cy in 0..chunks[1] {
            for cx in 0..chunks[0] {
                let mut cells = vec![0u32; n];
                let mut any = false;
                let (x0, y0, z0) = (cx * ei, cy * ei, cz * ei);
                for z in 0..ei.min(size[2] - z0) {
                    for y in 0..ei.min(size[1] - y0) {
                        let row = e * (y as usize + e * z as usize);
                        for x in 0..ei.min(size[0] - x0) {
                            let v = cell(x0 + x, y0 + y, z0 + z)?;
                            any |= v != 0;
                            cells[row + x as usize] = v;
                        }
                    }
                }
                if any {
                    g.chunks.insert(
                        super::payload::ChunkKey {
                            layer,
                            chunk: [cx, cy, cz],
                        },
                        cells,
                    );
                }
            }
        }
    }
    Ok(())
}

/// Reads `data` as each structure format under small caps, and writes and reads back
/// what converts. The body of the `minecraft` cargo-fuzz target: it must never panic.
pub(crate) fn fuzz_import(data: &[u8]) {
    let limits = Limits {
        max_inflated: 1 << 22,
        max_cells: 1 << 20,
    };
    for format in [
        StructureFormat::Schem,
        StructureFormat::Litematic,
        StructureFormat::Nbt,
        StructureFormat::Schematic,
    ] {
        let Ok(import) = import_bytes("fuzz", data, format, &limits) else {
            continue;
        };
        for w in &import.warnings {
            let _ = w.len();
        }
        let p = &import.payload;
        let shards = encode(p).expect("an imported structure writes");
        let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
        let back = super::payload::decode_all(&views).expect("a written structure reads back");
        assert!(
            back == p.canonical(),
            "an imported structure read back differs"
        );
    }
}
