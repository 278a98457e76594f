//! Why a GLB (or a folder of pieces) did not import, and the warnings an import that did
//! carries.

use std::fmt;

/// A model that did not import: which one, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{model}: {kind}")]
pub struct GlbError {
    /// The model's display name (its path in the pallet, or the piece's).
    pub model: String,
    /// What went wrong.
    pub kind: GlbErrorKind,
}

impl GlbError {
    /// Whether `dh build` reports this as `geometry: this map would fail to load…`: every
    /// refusal except a container or JSON chunk that does not parse at all, which is left
    /// to the autoCollision baker.
    pub fn would_fail_load(&self) -> bool {
        !matches!(
            self.kind,
            GlbErrorKind::Container(_) | GlbErrorKind::Json { .. }
        )
    }
}

/// The reasons a model is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GlbErrorKind {
    /// The bytes are not a binary glTF 2.0 container (header, chunk table).
    #[error("not a binary glTF 2.0 file: {0}")]
    Container(String),
    /// The JSON chunk does not parse.
    #[error("the JSON chunk does not parse at byte {offset}: {message}")]
    Json {
        /// Byte offset inside the JSON chunk.
        offset: usize,
        /// What the parser expected.
        message: String,
    },
    /// A member of the glTF document is not what glTF requires.
    #[error("{place}: expected {expected}")]
    Invalid {
        /// Where, as a JSON path (`meshes[0].primitives[1].indices`).
        place: String,
        /// What glTF requires there, and what was found.
        expected: String,
    },
    /// Compressed or quantized geometry the importer cannot read.
    #[error("the file requires {0}: compressed or quantized geometry (KHR_draco_mesh_compression, EXT_meshopt_compression, KHR_mesh_quantization) cannot be read; export it uncompressed")]
    Compressed(String),
    /// The file has no scene.
    #[error("the file has no scene (no 'scenes', or 'scene' names none of them)")]
    NoScene,
    /// A primitive that is not a triangle list.
    #[error("{place}: mode {mode} ({name}) is not TRIANGLES (4); only triangle lists load")]
    NotTriangles {
        /// `meshes[m].primitives[p]` and the mesh's name.
        place: String,
        /// The glTF mode number.
        mode: u64,
        /// Its name.
        name: &'static str,
    },
    /// A primitive with no POSITION.
    #[error("{place}: the primitive has no POSITION attribute")]
    NoPosition {
        /// `meshes[m].primitives[p]` and the mesh's name.
        place: String,
    },
    /// An attribute whose count disagrees with POSITION's.
    #[error("{place}: {attribute} has {count} elements but POSITION has {positions}; every attribute of a primitive has one element per vertex")]
    CountMismatch {
        /// `meshes[m].primitives[p]` and the mesh's name.
        place: String,
        /// The attribute (`NORMAL`, `TEXCOORD_0`, `COLOR_1`, ...).
        attribute: String,
        /// Its count.
        count: usize,
        /// POSITION's count.
        positions: usize,
    },
    /// An index past the vertices.
    #[error("{place}: index {index} (element {at} of the index list) points past the {vertices} vertices")]
    IndexOutOfRange {
        /// `meshes[m].primitives[p]` and the mesh's name.
        place: String,
        /// The index.
        index: u32,
        /// Its position in the index list.
        at: usize,
        /// The primitive's vertex count.
        vertices: usize,
    },
    /// A size past what the importer is set to read.
    #[error("{what}: {got} is more than the importer's limit of {limit}")]
    TooLarge {
        /// What was counted.
        what: String,
        /// How many.
        got: usize,
        /// The limit.
        limit: usize,
    },
    /// A map build left with nothing but skinned nodes.
    #[error("every drawn node is skinned, so the map build is empty and has nothing to draw: {}", list_all(.0))]
    OnlySkinned(Vec<String>),
    /// A piece of a folder that cannot be joined.
    #[error("piece '{piece}' cannot be joined into one model: {reason}")]
    Piece {
        /// The piece's file name.
        piece: String,
        /// What it carries that pieces may not.
        reason: String,
    },
    /// A folder of pieces with no `.glb` in it.
    #[error("the folder holds no .glb piece, so the geometry is missing")]
    NoPieces,
}

pub(crate) fn list_all(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What an import left out or read past: one warning per concern per model, naming every
/// node or track (spec: runtime assets, "What the map importer leaves out").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportWarning {
    /// Skinned nodes dropped from a map build (the pallet keeps their data).
    SkinnedLeftOut(Vec<String>),
    /// Nodes whose morph targets are ignored; they draw at their base shape.
    MorphTargetsIgnored(Vec<String>),
    /// Animation tracks read past (`animation/node.path`).
    AnimationsReadPast(Vec<String>),
    /// Extensions the file uses (not requires) that the importer does not read.
    ExtensionsIgnored(Vec<String>),
}

impl ImportWarning {
    /// The names the warning carries.
    pub fn names(&self) -> &[String] {
        match self {
            ImportWarning::SkinnedLeftOut(n)
            | ImportWarning::MorphTargetsIgnored(n)
            | ImportWarning::AnimationsReadPast(n)
            | ImportWarning::ExtensionsIgnored(n) => n,
        }
    }
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportWarning::SkinnedLeftOut(n) => write!(
                f,
                "{} skinned node(s) left out of the build (a static map cannot deform a skin; the pallet keeps the data): {}",
                n.len(),
                list_all(n)
            ),
            ImportWarning::MorphTargetsIgnored(n) => write!(
                f,
                "morph targets ignored on {} node(s), which draw at their base shape: {}",
                n.len(),
                list_all(n)
            ),
            ImportWarning::AnimationsReadPast(n) => write!(
                f,
                "{} animation track(s) read past (a static build has nothing to play them with): {}",
                n.len(),
                list_all(n)
            ),
            ImportWarning::ExtensionsIgnored(n) => write!(
                f,
                "extension(s) used but not read, so what they add is not drawn: {}",
                list_all(n)
            ),
        }
    }
}
