//! MCEdit and Schematica schematics (`.schematic`, pre-flattening numeric ids), as the
//! spec's ".schematic" row says: `AddBlocks` or `Add` for ids past 255; every entry
//! keeps its numeric `id:data` in its raw blob (format `minecraft-legacy`), so a
//! re-export is exact; the common blocks whose meaning does not depend on orientation map
//! to their flattened state (the table `data/legacy_blocks.tsv`, which states its
//! source); everything else becomes `minecraft-legacy:<id>` with an integer `data`
//! property, never a guessed facing.
//!
//! Layout read (MCEdit's format, as WorldEdit's `MCEditSchematicReader` and Schematica
//! read it): `Width`, `Height`, `Length` (Shorts), `Materials` (`Alpha`), `Blocks` and
//! `Data` (one byte per block, index `(y * Length + z) * Width + x`), optionally
//! `AddBlocks` (a nibble per block, the id's bits 8-11: the low nibble of byte `i / 2` for
//! an even block index, the high nibble for an odd one) or Schematica's `Add` (a byte per
//! block, the id's bits 8-15), `TileEntities` (with `x`, `y`, `z` cells) and `Entities`
//! (with `Pos`). WorldEdit's `WEOffsetX/Y/Z` go into the meta as `offset`, and
//! `WEOriginX/Y/Z` as `metadata.WEOrigin`. A schematic has no data version.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::nbt::{At, NbtError};
use super::{
    count_cells, entity_cell, fill_grid, finish_meta, header, ivec_text, nbt_extra, parse_state,
    BlockPalette, Limits, StructureFormat, LEGACY_FORMAT, LEGACY_NAMESPACE,
};
use crate::voxel::payload::{
    Blob, ExtraKind, Grid, GridInfo, PaletteEntry, PropValue, Property, VoxelPayload,
};

/// The flattened state of a pre-flattening `id:data`, when the table maps it
/// (`minecraft:oak_log[axis=x]`).
pub fn legacy_state(id: u16, data: u8) -> Option<&'static str> {
    static TABLE: OnceLock<HashMap<(u16, u8), &'static str>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            include_str!("data/legacy_blocks.tsv")
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                .filter_map(|l| {
                    let (key, state) = l.split_once('\t')?;
                    let (id, data) = key.split_once(':')?;
                    Some(((id.parse().ok()?, data.parse().ok()?), state.trim()))
                })
                .collect()
        })
        .get(&(id, data))
        .copied()
}

/// The palette entry of `id:data`: its flattened state when the table maps it, else
/// `minecraft-legacy:<id>` with `data`; either way with the raw `id:data` blob. `None`
/// for structure void (`dh:empty`).
pub fn legacy_entry(id: u16, data: u8) -> Option<PaletteEntry> {
    let raw = Blob {
        format: LEGACY_FORMAT.to_string(),
        bytes: format!("{id}:{data}").into_bytes(),
    };
    let mut e = match legacy_state(id, data).and_then(parse_state) {
        Some((name, props)) => super::block_entry(name, props)?,
        None => {
            let mut e = PaletteEntry::new(LEGACY_NAMESPACE, id.to_string());
            e.properties.push(Property {
                key: "data".into(),
                value: PropValue::Int(i32::from(data)),
            });
            e
        }
    };
    e.raw = Some(raw);
    Some(e)
}

/// Converts a read `.schematic` root.
pub(crate) fn convert(
    root: &At<'_, '_>,
    grid_name: &str,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<VoxelPayload, NbtError> {
    if let Some(m) = root.opt("Materials")? {
        let materials = m.as_str()?;
        if materials != "Alpha" {
            return Err(m.error(format!(
                "'{materials}'; expected Alpha (Java Edition block ids; Classic and Pocket schematics are not read)"
            )));
        }
    }
    let mut size = [0i32; 3];
    for (a, key) in ["Width", "Height", "Length"].into_iter().enumerate() {
        let at = root.get(key)?;
        let v = at.as_short()?;
        if v < 0 {
            return Err(at.error(format!("{v}; expected 0 or more")));
        }
        size[a] = i32::from(v);
    }
    let mut placed = 0u64;
    count_cells(root, size, &mut placed, limits)?;
    let volume = size.iter().map(|&v| v as usize).product::<usize>();
    let blocks_at = root.get("Blocks")?;
    let blocks = blocks_at.as_bytes()?;
    let data_at = root.get("Data")?;
    let data = data_at.as_bytes()?;
    for (at, b) in [(&blocks_at, blocks), (&data_at, data)] {
        if b.len() != volume {
            return Err(at.error(format!(
                "{} bytes; a {}x{}x{} schematic has {volume} blocks",
                b.len(),
                size[0],
                size[1],
                size[2]
            )));
        }
    }
    // The id's high bits: AddBlocks (WorldEdit, a nibble a block) or Add (Schematica, a
    // byte a block).
    let add_blocks = match root.opt("AddBlocks")? {
        Some(a) => {
            let b = a.as_bytes()?;
            if b.len() < volume.div_ceil(2) {
                return Err(a.error(format!(
                    "{} bytes; {volume} blocks need {} (a nibble each)",
                    b.len(),
                    volume.div_ceil(2)
                )));
            }
            Some(b)
        }
        None => None,
    };
    let add = match root.opt("Add")? {
        Some(a) => {
            let b = a.as_bytes()?;
            if b.len() < volume {
                return Err(a.error(format!(
                    "{} bytes; {volume} blocks need {} (a byte each)",
                    b.len(),
                    volume
                )));
            }
            Some(b)
        }
        None => None,
    };
    let id_at = |i: usize| -> u16 {
        let low = u16::from(blocks[i]);
        if let Some(a) = add_blocks {
            let nib = a[i >> 1];
            let high = if i & 1 == 0 { nib & 0x0f } else { nib >> 4 };
            low | u16::from(high) << 8
        } else if let Some(a) = add {
            low | u16::from(a[i]) << 8
        } else {
            low
        }
    };

    let mut h = header(StructureFormat::Schematic, None);
    let offset: Vec<Option<i32>> = ["WEOffsetX", "WEOffsetY", "WEOffsetZ"]
        .into_iter()
        .map(|k| root.opt(k).ok().flatten().and_then(|v| v.as_i32().ok()))
        .collect();
    if let [Some(x), Some(y), Some(z)] = offset[..] {
        h.meta.push((
            "offset".to_string(),
            ivec_text([x, y, z].into_iter().map(i64::from)),
        ));
    }
    let origin: Vec<Option<i32>> = ["WEOriginX", "WEOriginY", "WEOriginZ"]
        .into_iter()
        .map(|k| root.opt(k).ok().flatten().and_then(|v| v.as_i32().ok()))
        .collect();
    if let [Some(x), Some(y), Some(z)] = origin[..] {
        h.meta.push((
            "metadata.WEOrigin".to_string(),
            ivec_text([x, y, z].into_iter().map(i64::from)),
        ));
    }
    let mut dropped = Vec::new();
    if root.opt("Biomes")?.is_some() {
        // MCEdit's numeric column biomes: pre-1.13 ids, not kept, as a 1.13-1.17 world's
        // numeric biomes are not.
        warnings.push("the schematic's numeric Biomes are pre-1.13 ids and are not kept".into());
        dropped.push("Biomes");
    }
    finish_meta(&mut h, &dropped);

    // One entry per distinct id:data, in first-seen order.
    let mut palette = BlockPalette::new();
    let mut seen: HashMap<(u16, u8), u32> = HashMap::new();
    let mut cells = Vec::with_capacity(volume);
    for (i, &d) in data.iter().enumerate() {
        let key = (id_at(i), d & 0x0f);
        let g = match seen.get(&key) {
            Some(&g) => g,
            None => {
                let g = legacy_entry(key.0, key.1).map_or(0, |e| palette.intern(e));
                seen.insert(key, g);
                g
            }
        };
        cells.push(g);
    }
    let mut payload = VoxelPayload {
        header: h,
        ..VoxelPayload::default()
    };
    payload
        .grids
        .push(Grid::new(GridInfo::new(grid_name, [0; 3], size)));
    let (w, l) = (size[0] as usize, size[2] as usize);
    fill_grid(&mut payload, 0, 0, size, |x, y, z| {
        Ok::<u32, NbtError>(cells[(y as usize * l + z as usize) * w + x as usize])
    })?;

    if let Some(list) = root.opt("TileEntities")? {
        for item in list.items()? {
            let c = item.compound()?;
            let cell = match (item.opt("x")?, item.opt("y")?, item.opt("z")?) {
                (Some(x), Some(y), Some(z)) => Some([x.as_i32()?, y.as_i32()?, z.as_i32()?]),
                _ => None,
            };
            payload
                .extras
                .push(nbt_extra(ExtraKind::BlockEntity, 0, cell, c));
        }
    }
    if let Some(list) = root.opt("Entities")? {
        for item in list.items()? {
            let c = item.compound()?;
            let cell = entity_cell(&item, "Pos")?;
            payload
                .extras
                .push(nbt_extra(ExtraKind::Entity, 0, cell, c));
        }
    }
    if let Some(m) = root.opt("SchematicaMapping")? {
        // Schematica's id → name table for this file: kept whole as a source extra, so a
        // modded schematic's ids can be named later.
        let c = m.compound()?;
        let mut e = nbt_extra(ExtraKind::Source, 0, None, c);
        e.grid = None;
        payload.extras.push(e);
    }
    payload.palette = palette.into_entries();
    Ok(payload)
}
