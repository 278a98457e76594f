//! `dh.voxel` (`.dh-vox`): the small definition of a voxel container. It says whose rules
//! the data follows (`platform`), how cells become meters (`voxelSize`, `axes`, `origin`),
//! where the data is (`data`: a `.dh-vox.bin` payload or a source the build converts), and
//! how the container is lit where a placement does not say (`lighting`).
//!
//! The field set is closed. This module reads and checks the definition only; the payload,
//! the importers, meshing and the light field live elsewhere.

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Kind, Span, Value};
use crate::read::{
    parse_source, read_block, unknown_member_message, Block, Cx, FromJson, Mode, Table, ToJson,
};
use crate::refs::split_barcode;
use crate::schema::components::voxel_volume::VoxelLighting;
use crate::schema::manifest::{is_valid_pallet_id, CORE_PALLET_ID};
use crate::schema::material::strip_type;

/// The `$type` of a voxel definition.
pub const TYPE_ID: &str = "dh.voxel";

tokens! {
    /// A source's up axis and handedness.
    pub enum Axes as "axes value" {
        /// X up, right-handed.
        XUpRight = "x-up-right",
        /// X up, left-handed.
        XUpLeft = "x-up-left",
        /// Y up, right-handed (Minecraft; the engine's own).
        #[default]
        YUpRight = "y-up-right",
        /// Y up, left-handed.
        YUpLeft = "y-up-left",
        /// Z up, right-handed (MagicaVoxel, Teardown).
        ZUpRight = "z-up-right",
        /// Z up, left-handed.
        ZUpLeft = "z-up-left",
    }
}

/// One row of the built-in platform table: what a known platform seeds when a definition
/// leaves `voxelSize` and `axes` out, and how its containers are lit by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlatformDefaults {
    /// The platform's ID (reverse-DNS, publisher first).
    pub id: &'static str,
    /// The built-in alias that reads as the ID.
    pub alias: &'static str,
    /// The display name.
    pub name: &'static str,
    /// Meters per voxel.
    pub voxel_size: f64,
    /// Up axis and handedness.
    pub axes: Axes,
    /// How its containers are lit when neither placement nor definition says.
    pub lighting: VoxelLighting,
}

/// MagicaVoxel's ID.
pub const MAGICAVOXEL: &str = "com.ephtracy.magicavoxel";
/// Teardown's ID.
pub const TEARDOWN: &str = "com.tuxedolabs.teardown";
/// Minecraft Java's ID, which every Minecraft source implies.
pub const MINECRAFT: &str = "com.mojang.minecraft";

/// The built-in platform table (voxel spec, Platforms; lighting from Lighting modes).
pub const PLATFORMS: &[PlatformDefaults] = &[
    PlatformDefaults {
        id: MAGICAVOXEL,
        alias: "magicavoxel",
        name: "MagicaVoxel",
        voxel_size: 0.1,
        axes: Axes::ZUpRight,
        lighting: VoxelLighting::Dh,
    },
    PlatformDefaults {
        id: TEARDOWN,
        alias: "teardown",
        name: "Teardown",
        voxel_size: 0.1,
        axes: Axes::ZUpRight,
        lighting: VoxelLighting::Dh,
    },
    PlatformDefaults {
        id: MINECRAFT,
        alias: "minecraft",
        name: "Minecraft Java",
        voxel_size: 1.0,
        axes: Axes::YUpRight,
        lighting: VoxelLighting::Hybrid,
    },
];

/// The built-in row for platform `id`, if DH knows it.
pub fn platform_defaults(id: &str) -> Option<&'static PlatformDefaults> {
    PLATFORMS.iter().find(|p| p.id == id)
}

/// A `platform`: a publisher-first ID, or a built-in alias read as its ID. Written back
/// (and stored) as the ID.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Platform {
    /// The platform's ID (`com.mojang.minecraft`).
    pub id: String,
    /// The value as written (`minecraft` when the alias was used).
    pub written: String,
}

impl Platform {
    /// The ID for `written`: an alias's ID, or `written` itself when it is a publisher-first
    /// ID; `None` when it is neither.
    pub fn resolve(written: &str) -> Option<String> {
        if let Some(p) = PLATFORMS.iter().find(|p| p.alias == written) {
            return Some(p.id.to_string());
        }
        (written != CORE_PALLET_ID && is_valid_pallet_id(written)).then(|| written.to_string())
    }
}

impl FromJson for Platform {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a string (a platform ID or a built-in alias)", v);
            return None;
        };
        match Platform::resolve(s) {
            Some(id) => Some(Platform {
                id,
                written: s.to_string(),
            }),
            None => {
                let aliases: Vec<&str> = PLATFORMS.iter().map(|p| p.alias).collect();
                cx.error(
                    v.span,
                    format!(
                        "'{s}' is not a platform; expected a publisher-first ID of lowercase dot-separated segments, such as {MINECRAFT}, or a built-in alias: {}",
                        aliases.join(", ")
                    ),
                );
                None
            }
        }
    }
}

impl ToJson for Platform {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::String(self.id.clone()))
    }
}

/// A cell coordinate: exactly three whole numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cell(pub [i32; 3]);

impl FromJson for Cell {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Kind::Array(items) = &v.kind else {
            cx.expected("an array of exactly three whole numbers", v);
            return None;
        };
        if items.len() != 3 {
            cx.error(
                v.span,
                format!(
                    "expected exactly three whole numbers, found {} items",
                    items.len()
                ),
            );
            return None;
        }
        let mut out = [0i32; 3];
        for (slot, item) in out.iter_mut().zip(items) {
            match item.kind {
                Kind::Number(n)
                    if n.is_finite()
                        && n.fract() == 0.0
                        && n >= i32::MIN as f64
                        && n <= i32::MAX as f64 =>
                {
                    *slot = n as i32
                }
                Kind::Number(n) => {
                    cx.error(
                        item.span,
                        format!(
                            "expected exactly three whole numbers from {} to {}, found {n}",
                            i32::MIN,
                            i32::MAX
                        ),
                    );
                    return None;
                }
                _ => {
                    cx.error(
                        item.span,
                        format!(
                            "expected exactly three whole numbers, found {}",
                            item.kind.describe()
                        ),
                    );
                    return None;
                }
            }
        }
        Some(Cell(out))
    }
}

impl ToJson for Cell {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::Array(
            self.0
                .iter()
                .map(|c| Value::synthetic(Kind::Number(*c as f64)))
                .collect(),
        ))
    }
}

/// What a definition's `data` names, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    /// A `.dh-vox.bin` payload, the canonical form.
    Payload,
    /// A `.vox` (MagicaVoxel or Teardown).
    Vox,
    /// A Sponge schematic (`.schem`).
    Schem,
    /// A Litematica schematic (`.litematic`).
    Litematic,
    /// A vanilla structure (`.nbt`).
    Nbt,
    /// An MCEdit / Schematica schematic (`.schematic`).
    Schematic,
    /// A Java Edition world folder, or one dimension's folder.
    World,
}

impl DataKind {
    /// Classifies `data` by the extension of its last segment (ASCII case-insensitive);
    /// a name with none of the known extensions is a world folder.
    pub fn of(data: &str) -> DataKind {
        let last = data.rsplit('/').next().unwrap_or(data).to_ascii_lowercase();
        if last.ends_with(".dh-vox.bin") {
            DataKind::Payload
        } else if last.ends_with(".vox") {
            DataKind::Vox
        } else if last.ends_with(".schem") {
            DataKind::Schem
        } else if last.ends_with(".litematic") {
            DataKind::Litematic
        } else if last.ends_with(".nbt") {
            DataKind::Nbt
        } else if last.ends_with(".schematic") {
            DataKind::Schematic
        } else {
            DataKind::World
        }
    }

    /// The `format` this source records (`None` for a payload, whose header carries it).
    pub fn format(self) -> Option<&'static str> {
        match self {
            DataKind::Payload => None,
            DataKind::Vox => Some("vox"),
            DataKind::Schem => Some("schem"),
            DataKind::Litematic => Some("litematic"),
            DataKind::Nbt => Some("nbt"),
            DataKind::Schematic => Some("schematic"),
            DataKind::World => Some("anvil"),
        }
    }

    /// Whether this is a Minecraft source (which implies `com.mojang.minecraft`).
    pub fn is_minecraft(self) -> bool {
        matches!(
            self,
            DataKind::Schem
                | DataKind::Litematic
                | DataKind::Nbt
                | DataKind::Schematic
                | DataKind::World
        )
    }

    /// How the kind is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            DataKind::Payload => "a .dh-vox.bin payload",
            DataKind::Vox => "a .vox",
            DataKind::Schem => "a .schem",
            DataKind::Litematic => "a .litematic",
            DataKind::Nbt => "a .nbt",
            DataKind::Schematic => "a .schematic",
            DataKind::World => "a Java world folder",
        }
    }
}

block! {
    /// `dh.voxel`: a voxel container's definition. A closed field set; `$type` is optional
    /// and taken off before reading. A `dh.voxel` does not take `inherits`.
    pub struct VoxelDef = "dh.voxel" {
        /// Display name.
        opt name: String = "name",
        /// One line on what this is.
        opt description: String = "description",
        /// Whose rules the data follows (required for a `.vox`). Stored as the ID.
        opt platform: Platform = "platform",
        /// The format the data arrived in (`vox`, `schem`, `litematic`, `nbt`, `schematic`,
        /// `anvil`); the compiler records the source's own.
        opt format: String = "format",
        /// The source's own version (`26.2`).
        opt platform_version: String = "platformVersion",
        /// Meters per voxel; > 0. Seeded from the platform when left out.
        opt voxel_size: f64 = "voxelSize",
        /// Up axis and handedness. Seeded from the platform when left out.
        opt axes: Axes = "axes",
        /// The origin cell (default `[0, 0, 0]`).
        opt origin: Cell = "origin",
        /// A `.dh-vox.bin`, or a source the build converts, in this pallet.
        req data: String = "data",
        /// Block namespace → the pallet that provides it.
        opt namespaces: Table<String> = "namespaces",
        /// `dh`, `hybrid` or `minecraft`; left out, the platform's default.
        opt lighting: VoxelLighting = "lighting",
    }
}

impl VoxelDef {
    /// What `data` names.
    pub fn data_kind(&self) -> DataKind {
        DataKind::of(&self.data)
    }

    /// The platform the data follows: the authored one, else the one a Minecraft source
    /// implies; `None` when neither (a payload carries its own).
    pub fn platform_id(&self) -> Option<&str> {
        match &self.platform {
            Some(p) => Some(p.id.as_str()),
            None if self.data_kind().is_minecraft() => Some(MINECRAFT),
            None => None,
        }
    }

    /// Meters per voxel: the authored value, else the platform's, else 1.
    pub fn effective_voxel_size(&self) -> f64 {
        self.voxel_size
            .or_else(|| {
                self.platform_id()
                    .and_then(platform_defaults)
                    .map(|p| p.voxel_size)
            })
            .unwrap_or(1.0)
    }

    /// Up axis and handedness: the authored value, else the platform's, else `y-up-right`.
    pub fn effective_axes(&self) -> Axes {
        self.axes
            .or_else(|| {
                self.platform_id()
                    .and_then(platform_defaults)
                    .map(|p| p.axes)
            })
            .unwrap_or_default()
    }

    /// The origin cell (`[0, 0, 0]` when left out).
    pub fn effective_origin(&self) -> Cell {
        self.origin.unwrap_or_default()
    }

    /// How the container is lit where a placement does not say: its own `lighting`, else
    /// its platform's default (`hybrid` for Minecraft, `dh` for everything else).
    pub fn effective_lighting(&self) -> VoxelLighting {
        self.lighting
            .or_else(|| {
                self.platform_id()
                    .and_then(platform_defaults)
                    .map(|p| p.lighting)
            })
            .unwrap_or(VoxelLighting::Dh)
    }

    /// The format the build records: the source's own (`None` for a payload, whose header
    /// carries it).
    pub fn source_format(&self) -> Option<&'static str> {
        self.data_kind().format()
    }

    /// Runs the definition's build-time rules.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        let kind = self.data_kind();

        // data: present (reading reports a missing one), in this pallet.
        if at.has("data") {
            if self.data.is_empty() {
                cx.error_at(at, at.field("data"), "'data' must name a .dh-vox.bin or a voxel source in this pallet, found an empty string");
            } else if let Some((pallet, _)) = split_barcode(&self.data) {
                cx.error_at(
                    at,
                    at.field("data"),
                    format!(
                        "'data' must name a file in this pallet (relative to this file, or '/' from the pallet root); '{}' names pallet '{pallet}'",
                        self.data
                    ),
                );
            }
        }

        // platform: required for a .vox; a Minecraft source implies Minecraft.
        match &self.platform {
            None if kind == DataKind::Vox && !at.has("platform") => cx.error_at(
                at,
                at.field("data"),
                format!(
                    "'platform' is required for a .vox: name MagicaVoxel ({MAGICAVOXEL}) or Teardown ({TEARDOWN}), which read its palette differently"
                ),
            ),
            Some(p) if kind.is_minecraft() && p.id != MINECRAFT => cx.error_at(
                at,
                at.field("platform"),
                format!(
                    "'data' names {}, a Minecraft source, which implies platform {MINECRAFT}; 'platform' names {}",
                    kind.describe(),
                    p.id
                ),
            ),
            _ => {}
        }

        // format: the source's own.
        if let (Some(f), Some(own)) = (&self.format, kind.format()) {
            if f != own {
                cx.error_at(
                    at,
                    at.field("format"),
                    format!(
                        "'format' is \"{f}\", but 'data' names {}, whose format is \"{own}\"",
                        kind.describe()
                    ),
                );
            }
        }

        // voxelSize > 0.
        if let Some(s) = self.voxel_size {
            if s <= 0.0 {
                cx.error_at(
                    at,
                    at.field("voxelSize"),
                    format!("'voxelSize' must be > 0, found {s}"),
                );
            }
        }

        // An authored value that disagrees with the platform table: warn, keep it.
        if let Some(defaults) = self.platform_id().and_then(platform_defaults) {
            if let Some(s) = self.voxel_size {
                if s > 0.0 && s != defaults.voxel_size {
                    cx.warning_at(
                        at,
                        at.field("voxelSize"),
                        format!(
                            "'voxelSize' {s} disagrees with {}'s {} ({}); the authored value is kept",
                            defaults.name, defaults.voxel_size, defaults.id
                        ),
                    );
                }
            }
            if let Some(a) = self.axes {
                if a != defaults.axes {
                    cx.warning_at(
                        at,
                        at.field("axes"),
                        format!(
                            "'axes' {a} disagrees with {}'s {} ({}); the authored value is kept",
                            defaults.name, defaults.axes, defaults.id
                        ),
                    );
                }
            }
        }

        // namespaces: each maps to a pallet id.
        if let Some(ns) = &self.namespaces {
            let path = at.field_path("namespaces");
            cx.at_path(&path, |cx| {
                for (key, key_span, pallet) in &ns.entries {
                    if key.is_empty() {
                        cx.error(*key_span, "a block namespace must not be empty");
                    } else if !is_valid_pallet_id(pallet) {
                        let msg = format!(
                            "namespace '{key}' maps to '{pallet}', which is not a pallet id; expected reverse-DNS segments of lowercase letters, digits and '-', e.g. {MINECRAFT}"
                        );
                        cx.at_key(key, |cx| cx.error(*key_span, msg));
                    }
                }
            });
        }
    }

    /// The references this definition states, as `(member, reference, span)`: its `data`
    /// (a file, or for [`DataKind::World`] a folder, of this pallet).
    pub fn references(&self) -> Vec<(&'static str, &str, Span)> {
        if self.data.is_empty() {
            return Vec::new();
        }
        vec![("data", self.data.as_str(), self.at.field("data"))]
    }
}

/// The payload a definition compiles to: its own path with `.bin` added
/// (`props/crate.dh-vox` → `props/crate.dh-vox.bin`).
pub fn payload_path(definition_path: &str) -> String {
    format!("{definition_path}.bin")
}

/// Takes a written `inherits` off the definition, reporting that a dh.voxel does not take
/// one (with the field list, as any unknown member's error does).
fn strip_inherits(cx: &mut Cx, mut v: Value) -> Value {
    if let Kind::Object(members) = &mut v.kind {
        while let Some(pos) = members.iter().position(|m| m.key == "inherits") {
            let m = members.remove(pos);
            let msg = format!(
                "{}; a dh.voxel does not take inherits",
                unknown_member_message(VoxelDef::BLOCK, "inherits", VoxelDef::FIELDS)
            );
            cx.error(m.key_span, msg);
        }
    }
    v
}

/// Reads and validates a `.dh-vox` source (`$type` is allowed and must be `dh.voxel`).
pub fn read_voxel(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<VoxelDef> {
    let v = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let v = strip_type(&mut cx, v, TYPE_ID)?;
    let v = strip_inherits(&mut cx, v);
    let d = read_block::<VoxelDef>(&mut cx, &v)?;
    d.validate(&mut cx);
    Some(d)
}
