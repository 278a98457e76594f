//! Sponge schematics (`.schem`, WorldEdit), versions 1, 2 and 3, as the spec's
//! ".schem" row says: one grid, its minimum corner at cell 0, holding every block; block
//! entities (`BlockEntities`, or `TileEntities` in version 1) and entities kept as
//! `nbt-java` extras; biomes into the `biome` layer at block scale, per block in version
//! 3 and per column in version 2; `Offset` and the `Metadata` strings into the meta
//! (`offset`, `metadata.<key>`).
//!
//! Layout read (SpongePowered's Schematic-Specification): the root compound is named
//! `Schematic` (versions 1 and 2), or is unnamed and holds a `Schematic` compound
//! (version 3). `Width`, `Height`, `Length` are unsigned Shorts. Block data is one
//! unsigned LEB128 varint per block, X fastest, then Z, then Y (index
//! `x + z * Width + y * Width * Length`), each a value of the `Palette` compound (state
//! string → Int); version 3 holds them under `Blocks { Palette, Data, BlockEntities }`.
//! Biomes: version 2's `BiomePalette` + `BiomeData` (one varint per column,
//! `x + z * Width`), version 3's `Biomes { Palette, Data }` (one per block). A block
//! entity's `Pos` is its cell; an entity's cell is its `Pos` rounded down, both as the file
//! writes them.

use super::nbt::{At, NbtError};
use super::{
    count_cells, entity_cell, fill_grid, finish_meta, flatten_meta, header, ivec_text, nbt_extra,
    BlockPalette, Limits, StructureFormat, BIOME_LAYER,
};
use crate::voxel::payload::{ExtraKind, Grid, GridInfo, Layer, VoxelPayload};

/// A local palette index no entry names.
const UNNAMED: u32 = u32::MAX;

/// Converts a read `.schem` root.
pub(crate) fn convert(
    root: &At<'_, '_>,
    grid_name: &str,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<VoxelPayload, NbtError> {
    // Version 3 nests everything in a `Schematic` compound.
    let nested = match root.opt("Schematic")? {
        Some(s) if s.compound().is_ok() => Some(s),
        _ => None,
    };
    let s = nested.as_ref().unwrap_or(root);
    let version_at = s.get("Version")?;
    let version = version_at.as_i32()?;
    if !(1..=3).contains(&version) {
        return Err(version_at.error(format!(
            "Sponge schematic version {version}; expected 1, 2 or 3"
        )));
    }
    let data_version = match s.opt("DataVersion")? {
        Some(d) => Some(d.as_i32()?),
        None if version >= 2 => {
            warnings.push(format!(
                "a version {version} schematic has no DataVersion; dataVersion and platformVersion are left empty"
            ));
            None
        }
        None => None,
    };
    let size = [
        unsigned_short(&s.get("Width")?)?,
        unsigned_short(&s.get("Height")?)?,
        unsigned_short(&s.get("Length")?)?,
    ];
    let mut placed = 0u64;
    count_cells(s, size, &mut placed, limits)?;
    let volume = size.iter().map(|&v| v as usize).product::<usize>();

    let mut h = header(StructureFormat::Schem, data_version);
    h.meta
        .push(("spongeVersion".to_string(), version.to_string()));
    if let Some(off) = s.opt("Offset")? {
        let o = off.as_ivec::<3>()?;
        h.meta.push((
            "offset".to_string(),
            ivec_text(o.iter().map(|&v| i64::from(v))),
        ));
    }
    if let Some(m) = s.opt("Metadata")? {
        m.compound()?;
        flatten_meta("metadata", &m, &mut h.meta);
    }
    finish_meta(&mut h, &[]);

    let mut palette = BlockPalette::new();
    let mut payload = VoxelPayload {
        header: h,
        ..VoxelPayload::default()
    };
    payload
        .grids
        .push(Grid::new(GridInfo::new(grid_name, [0; 3], size)));

    // Blocks.
    let blocks = if version >= 3 { s.opt("Blocks")? } else { None };
    let (pal_at, data_at, entities_key_at) = match &blocks {
        Some(b) => (b.opt("Palette")?, b.opt("Data")?, Some(b)),
        None if version >= 3 => (None, None, None),
        None => (s.opt("Palette")?, s.opt("BlockData")?, None),
    };
    match (pal_at, data_at) {
        (Some(pal), Some(data)) => {
            let map = local_palette(&pal, &mut palette, Kind::Block)?;
            let cells = decode_varints(&data, volume, &map)?;
            let w = size[0] as usize;
            let l = size[2] as usize;
            fill_grid(&mut payload, 0, 0, size, |x, y, z| {
                Ok::<u32, NbtError>(cells[x as usize + z as usize * w + y as usize * w * l])
            })?;
        }
        (None, None) if version >= 3 => {}
        (None, _) => {
            return Err(NbtError::Missing {
                path: format!("{}Palette", prefix(s, blocks.is_some())),
                expected: "the block palette (a Compound of state → Int)",
            })
        }
        (Some(_), None) => {
            return Err(NbtError::Missing {
                path: format!(
                    "{}{}",
                    prefix(s, blocks.is_some()),
                    if version >= 3 { "Data" } else { "BlockData" }
                ),
                expected: "the block data (a ByteArray of varints)",
            })
        }
    }

    // Block entities and entities.
    let be_key = if version == 1 {
        "TileEntities"
    } else {
        "BlockEntities"
    };
    let be_list = match entities_key_at {
        Some(b) => b.opt(be_key)?,
        None => s.opt(be_key)?,
    };
    if let Some(list) = be_list {
        for item in list.items()? {
            let c = item.compound()?;
            let cell = match item.opt("Pos")? {
                Some(p) => Some(p.as_ivec::<3>()?),
                None => match (item.opt("x")?, item.opt("y")?, item.opt("z")?) {
                    (Some(x), Some(y), Some(z)) => Some([x.as_i32()?, y.as_i32()?, z.as_i32()?]),
                    _ => None,
                },
            };
            payload
                .extras
                .push(nbt_extra(ExtraKind::BlockEntity, 0, cell, c));
        }
    }
    if let Some(list) = s.opt("Entities")? {
        for item in list.items()? {
            let c = item.compound()?;
            let cell = entity_cell(&item, "Pos")?;
            payload
                .extras
                .push(nbt_extra(ExtraKind::Entity, 0, cell, c));
        }
    }

    // Biomes: version 3 per block, version 2 per column (every block of a column
    // takes its biome).
    if version == 3 {
        if let Some(b) = s.opt("Biomes")? {
            let pal = b.get("Palette")?;
            let data = b.get("Data")?;
            let map = local_palette(&pal, &mut palette, Kind::Biome)?;
            let biomes = decode_varints(&data, volume, &map)?;
            count_cells(&b, size, &mut placed, limits)?;
            let layer = add_biome_layer(&mut payload);
            let w = size[0] as usize;
            let l = size[2] as usize;
            fill_grid(&mut payload, 0, layer, size, |x, y, z| {
                Ok::<u32, NbtError>(biomes[x as usize + z as usize * w + y as usize * w * l])
            })?;
        }
    } else if version == 2 {
        if let (Some(pal), Some(data)) = (s.opt("BiomePalette")?, s.opt("BiomeData")?) {
            let map = local_palette(&pal, &mut palette, Kind::Biome)?;
            let columns = size[0] as usize * size[2] as usize;
            let biomes = decode_varints(&data, columns, &map)?;
            count_cells(&data, size, &mut placed, limits)?;
            let layer = add_biome_layer(&mut payload);
            let w = size[0] as usize;
            fill_grid(&mut payload, 0, layer, size, |x, _y, z| {
                Ok::<u32, NbtError>(biomes[x as usize + z as usize * w])
            })?;
        }
    }
    payload.palette = palette.into_entries();
    Ok(payload)
}

/// The path prefix of the block palette and data (`Schematic.Blocks.`, `Schematic.`).
fn prefix(s: &At<'_, '_>, nested: bool) -> String {
    let p = s.path();
    let base = if p == "(root)" {
        String::new()
    } else {
        format!("{p}.")
    };
    if nested {
        format!("{base}Blocks.")
    } else {
        base
    }
}

fn add_biome_layer(payload: &mut VoxelPayload) -> u16 {
    payload.layers.push(Layer {
        name: BIOME_LAYER.to_string(),
        cell_scale: 1,
    });
    (payload.layers.len() - 1) as u16
}

/// A width, height or length: an unsigned Short (an Int is read too).
fn unsigned_short(at: &At<'_, '_>) -> Result<i32, NbtError> {
    use super::nbt::TagRef;
    let v = match at.tag {
        TagRef::Short(v) => i32::from(v as u16),
        _ => at.as_i32()?,
    };
    if !(0..=65535).contains(&v) {
        return Err(at.error(format!("{v}; expected 0 to 65535")));
    }
    Ok(v)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    Biome,
}

/// A Sponge palette (state string → Int): local index → global index, `UNNAMED` where no
/// entry names the index. Indices may leave gaps, but none may lie past four times the
/// entries plus 1024 ("ours": a dense table stays bounded by the file).
fn local_palette(
    pal: &At<'_, '_>,
    palette: &mut BlockPalette,
    kind: Kind,
) -> Result<Vec<u32>, NbtError> {
    let entries = pal.entries()?;
    let n = entries.len();
    let cap = n.saturating_mul(4).saturating_add(1024);
    let mut map = Vec::with_capacity(n);
    for (key, v) in entries {
        let local = v.as_i32()?;
        if local < 0 || local as usize >= cap {
            return Err(v.error(format!(
                "palette index {local}; expected 0 to {} for a palette of {n} entries",
                cap - 1
            )));
        }
        let name = key
            .to_str()
            .ok_or_else(|| v.error("the state name is not valid modified UTF-8"))?;
        let global = match kind {
            Kind::Block => palette.state_string(&name).ok_or_else(|| {
                v.error(format!(
                    "'{name}' is not a block state; expected namespace:id or namespace:id[key=value,...]"
                ))
            })?,
            Kind::Biome => {
                let (ns, id) = super::split_id(&name);
                palette.intern(crate::voxel::payload::PaletteEntry::new(ns, id))
            }
        };
        let local = local as usize;
        if map.len() <= local {
            map.resize(local + 1, UNNAMED);
        }
        map[local] = global;
    }
    Ok(map)
}

/// Decodes `count` unsigned LEB128 varints from a ByteArray, each mapped through `map`.
fn decode_varints(data: &At<'_, '_>, count: usize, map: &[u32]) -> Result<Vec<u32>, NbtError> {
    let bytes = data.as_bytes()?;
    // Every varint takes at least one byte.
    if bytes.len() < count {
        return Err(data.error(format!(
            "{} bytes hold at most {} varints; the schematic has {count} cells",
            bytes.len(),
            bytes.len()
        )));
    }
    let mut out = Vec::with_capacity(count);
    let mut i = 0usize;
    for n in 0..count {
        let mut v: u32 = 0;
        let mut shift = 0u32;
        loop {
            let Some(&b) = bytes.get(i) else {
                return Err(data.error(format!(
                    "the varints end inside cell {n} of {count} (byte {i})"
                )));
            };
            i += 1;
            if shift >= 28 && (b & 0x70) != 0 || shift > 28 {
                return Err(data.error(format!(
                    "the varint of cell {n} at byte {} runs past 32 bits",
                    i - 1
                )));
            }
            v |= u32::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        let g = map.get(v as usize).copied().unwrap_or(UNNAMED);
        if g == UNNAMED {
            return Err(data.error(format!(
                "cell {n} is palette index {v}, which no palette entry names ({} entries)",
                map.iter().filter(|&&m| m != UNNAMED).count()
            )));
        }
        out.push(g);
    }
    Ok(out)
}
