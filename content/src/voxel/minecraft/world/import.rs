//! `dh import minecraft-world <save> --into <pallet>`: a save into a pallet as a map
//! (spec dh.voxel, "Importing Minecraft Java"; the brief's reading: the world is converted
//! on import, so the pallet holds the payload and never the save).
//!
//! It writes, into the pallet folder:
//!
//! * `<name>.dh-vox.bin` (and shards): the converted world ([`super::write_world_payload`];
//!   nothing of the save, no `level.dat`, `.mca` or `.mcc`, is copied);
//! * `<name>.dh-vox`: its definition (`platform` Minecraft, `format` `anvil`, the
//!   world's `platformVersion`, `data` the payload);
//! * `<name>.dh-map`: a map inheriting the Minecraft environment template
//!   (`com.mojang.minecraft:maps/environment.dh-map`), with the volume placed at the
//!   origin (cell (x, y, z) is meter (x, y, z)), a `dh.spawnPoint` at level.dat's spawn
//!   (the top face of the spawn block's cell, centered), and two cameras: one at eye
//!   height over the spawn and an overview above and behind it.
//!
//! `<name>` is the save folder's name in lowercase letters, digits, `-` and `_`. Object
//! ids are name-based UUIDs (v5), so importing the same save again writes the same files.

use std::path::{Path, PathBuf};

use super::{write_world_payload, WorldError, WorldOptions, WorldReport};
use crate::jsonc::write_string;

/// The environment template every imported world's map inherits.
pub const ENVIRONMENT_TEMPLATE: &str = "com.mojang.minecraft:maps/environment.dh-map";

/// What an import wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldImport {
    /// The definition.
    pub definition: PathBuf,
    /// The map.
    pub map: PathBuf,
    /// The payload and its shards.
    pub payload: Vec<PathBuf>,
    /// The spawn the map's spawn point stands on.
    pub spawn: [i32; 3],
    /// What converting did.
    pub report: WorldReport,
}

/// The asset name for a save folder.
pub fn asset_name(save: &Path) -> String {
    let raw = save
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut s: String = raw
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "world".to_string()
    } else {
        s
    }
}

fn uuid(name: &str, what: &str) -> String {
    let ns = uuid::Uuid::from_bytes(*b"dh.minecraft.wld");
    uuid::Uuid::new_v5(&ns, format!("{name}/{what}").as_bytes()).to_string()
}

fn num(v: f64) -> String {
    format!("{v}")
}

/// The `.dh-vox` definition's text.
pub fn definition_text(name: &str, platform_version: &str, data: &str) -> String {
    let mut s = String::from("{\n  \"name\": ");
    write_string(name, &mut s);
    s.push_str(",\n  \"platform\": \"com.mojang.minecraft\",\n  \"format\": \"anvil\",\n");
    if !platform_version.is_empty() {
        s.push_str("  \"platformVersion\": ");
        write_string(platform_version, &mut s);
        s.push_str(",\n");
    }
    s.push_str("  \"data\": ");
    write_string(data, &mut s);
    s.push_str("\n}\n");
    s
}

/// The map's text: the template, the volume, the spawn point and the cameras.
pub fn map_text(name: &str, volume: &str, spawn: [i32; 3]) -> String {
    let (x, y, z) = (
        f64::from(spawn[0]) + 0.5,
        f64::from(spawn[1]),
        f64::from(spawn[2]) + 0.5,
    );
    let p = |a: f64, b: f64, c: f64| format!("[{}, {}, {}]", num(a), num(b), num(c));
    let mut s = String::from("{\n  \"name\": ");
    write_string(name, &mut s);
    s.push_str(&format!(
        ",\n  // The Minecraft environment (sky, sun, look); made by the platform pallet.\n  \"inherits\": \"{ENVIRONMENT_TEMPLATE}\",\n  \"objects\": [\n"
    ));
    s.push_str(&format!(
        "    {{ \"$type\": \"object\", \"id\": \"{}\", \"name\": \"world\", \"position\": [0, 0, 0],\n      \"components\": [ {{ \"$type\": \"dh.voxelVolume\", \"volume\": ",
        uuid(name, "world")
    ));
    write_string(volume, &mut s);
    s.push_str(" } ] },\n");
    s.push_str(&format!(
        "    {{ \"$type\": \"object\", \"id\": \"{}\", \"name\": \"spawn\", \"position\": {},\n      \"components\": [ {{ \"$type\": \"dh.spawnPoint\" }} ] }},\n",
        uuid(name, "spawn"),
        p(x, y, z)
    ));
    s.push_str(&format!(
        "    {{ \"$type\": \"object\", \"id\": \"{}\", \"name\": \"spawn view\", \"position\": {}, \"rotation\": [0, 0, 0],\n      \"components\": [ {{ \"$type\": \"dh.camera\", \"fov\": 70 }} ] }},\n",
        uuid(name, "camera"),
        p(x, y + 1.62, z)
    ));
    s.push_str(&format!(
        "    {{ \"$type\": \"object\", \"id\": \"{}\", \"name\": \"overview\", \"position\": {}, \"rotation\": [-35, 0, 0],\n      \"components\": [ {{ \"$type\": \"dh.camera\", \"fov\": 60, \"role\": \"mapThumbnail\" }} ] }}\n",
        uuid(name, "overview"),
        p(x, y + 48.0, z + 64.0)
    ));
    s.push_str("  ]\n}\n");
    s
}

/// Converts the save at `save` into the pallet folder `into`: the payload, the
/// definition and the map (see the module doc). A save with no spawn in its level.dat
/// (or no level.dat) spawns at (0, 64, 0) on the overworld; ours.
pub fn import_world(
    save: &Path,
    into: &Path,
    options: &WorldOptions<'_>,
) -> Result<WorldImport, WorldError> {
    let name = asset_name(save);
    let def_name = format!("{name}.dh-vox");
    let payload_name = format!("{def_name}.bin");
    let written = write_world_payload(save, &into.join(&payload_name), options)?;
    let spawn = written.report.level.spawn.unwrap_or([0, 64, 0]);
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| WorldError::Io { path, source }
    };
    let def = into.join(&def_name);
    let text = definition_text(
        &name,
        &written.report.level.platform_version(),
        &payload_name,
    );
    std::fs::write(&def, text).map_err(io(&def))?;
    let map = into.join(format!("{name}.dh-map"));
    std::fs::write(&map, map_text(&name, &format!("/{def_name}"), spawn)).map_err(io(&map))?;
    Ok(WorldImport {
        definition: def,
        map,
        payload: written.files,
        spawn,
        report: written.report,
    })
}
