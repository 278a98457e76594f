//! Litematica schematics (`.litematic`), as the spec's ".litematic" row says: every
//! region becomes a grid named for the region, whose transform is the region's offset:
//! its `Position`, moved to the minimum corner when a `Size` is negative. Block states
//! are bit-packed end to end, at least two bits wide. Tile entities and entities are
//! placed in their region's cells. Pending ticks are dropped.
//!
//! Layout read (Litematica's `LitematicaSchematic`, versions up to 7): the root holds
//! `MinecraftDataVersion`, `Version`, `Metadata` (name, author, times, sizes) and
//! `Regions`, a compound of regions by name. A region holds `Position` and `Size`
//! (compounds of `x`, `y`, `z`; a size may be negative, the region then running from
//! `Position` toward lower coordinates), `BlockStatePalette` (a list of `Name` +
//! `Properties`), `BlockStates` (a LongArray: each block's palette index at
//! `max(2, ceil(log2(palette)))` bits, packed end to end so a value may span two longs,
//! index `(y * |Size.z| + z) * |Size.x| + x` from the minimum corner), `TileEntities`
//! (compounds with `x`, `y`, `z` in the region's cells), `Entities` (compounds with `Pos`
//! in the region's cells) and the pending ticks.

use super::nbt::{At, NbtError};
use super::{
    count_cells, entity_cell, fill_grid, finish_meta, flatten_meta, header, nbt_extra, state_of,
    xyz, BlockPalette, Limits, StructureFormat,
};
use crate::voxel::payload::{ExtraKind, Grid, GridInfo, VoxelPayload, IDENTITY_TRANSFORM};

/// The tick lists a region may hold, dropped as derived data.
const TICKS: [&str; 2] = ["PendingBlockTicks", "PendingFluidTicks"];

/// Converts a read `.litematic` root.
pub(crate) fn convert(
    root: &At<'_, '_>,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<VoxelPayload, NbtError> {
    let data_version = match root.opt("MinecraftDataVersion")? {
        Some(d) => Some(d.as_i32()?),
        None => {
            warnings.push(
                "the file has no MinecraftDataVersion; dataVersion and platformVersion are left empty"
                    .into(),
            );
            None
        }
    };
    let mut h = header(StructureFormat::Litematic, data_version);
    if let Some(v) = root.opt("Version")? {
        h.meta
            .push(("litematicVersion".to_string(), v.as_i32()?.to_string()));
    }
    if let Some(v) = root.opt("SubVersion")? {
        h.meta
            .push(("litematicSubVersion".to_string(), v.as_i32()?.to_string()));
    }
    if let Some(m) = root.opt("Metadata")? {
        m.compound()?;
        flatten_meta("metadata", &m, &mut h.meta);
    }

    let mut palette = BlockPalette::new();
    let mut payload = VoxelPayload::default();
    let mut dropped: Vec<&str> = Vec::new();
    let mut placed = 0u64;
    let regions = root.get("Regions")?;
    for (name, region) in regions.entries()? {
        let grid = payload.grids.len();
        let name = name
            .to_str()
            .ok_or_else(|| region.error("the region name is not valid modified UTF-8"))?
            .into_owned();
        let pos = xyz(&region.get("Position")?)?;
        let size_at = region.get("Size")?;
        let signed = xyz(&size_at)?;
        if signed.contains(&0) {
            return Err(size_at.error(format!(
                "{}x{}x{}; a region's size is never 0 on an axis",
                signed[0], signed[1], signed[2]
            )));
        }
        if signed.contains(&i32::MIN) {
            return Err(size_at.error("a size of -2147483648 is out of range"));
        }
        let size = signed.map(i32::abs);
        count_cells(&size_at, size, &mut placed, limits)?;
        // The minimum corner: a negative size runs from Position toward lower
        // coordinates, so the corner is Position + Size + 1 on that axis.
        let mut min = [0i64; 3];
        for a in 0..3 {
            min[a] = i64::from(pos[a])
                + if signed[a] < 0 {
                    i64::from(signed[a]) + 1
                } else {
                    0
                };
        }
        let mut transform = IDENTITY_TRANSFORM;
        for (a, row) in transform.iter_mut().enumerate() {
            row[3] = min[a] as f32;
        }
        payload.grids.push(Grid::new(GridInfo {
            name: name.clone(),
            parent: None,
            transform,
            bounds_min: [0; 3],
            bounds_size: size,
            attributes: Vec::new(),
        }));

        // Palette: local index → global.
        let pal_at = region.get("BlockStatePalette")?;
        let mut map = Vec::new();
        for item in pal_at.items()? {
            map.push(state_of(&item, &mut palette)?);
        }
        if map.is_empty() {
            return Err(pal_at.error("an empty palette; a region's palette holds at least air"));
        }
        let bits = (usize::BITS - (map.len() - 1).leading_zeros()).max(2);
        let states_at = region.get("BlockStates")?;
        let longs = states_at.as_longs()?;
        let volume = size.iter().map(|&v| v as u64).product::<u64>();
        let need = (volume * u64::from(bits)).div_ceil(64);
        if (longs.len() as u64) < need {
            return Err(states_at.error(format!(
                "{} longs; a region of {}x{}x{} blocks at {bits} bits a block needs {need}",
                longs.len(),
                size[0],
                size[1],
                size[2]
            )));
        }
        let mask = (1u64 << bits) - 1;
        let (sx, sz) = (size[0] as u64, size[2] as u64);
        let n = map.len();
        fill_grid(&mut payload, grid, 0, size, |x, y, z| {
            let i = (y as u64 * sz + z as u64) * sx + x as u64;
            let bit = i * u64::from(bits);
            let w = (bit >> 6) as usize;
            let off = (bit & 63) as u32;
            let lo = longs.get(w).unwrap_or(0) as u64;
            let mut v = lo >> off;
            if off + bits > 64 {
                let hi = longs.get(w + 1).unwrap_or(0) as u64;
                v |= hi << (64 - off);
            }
            let v = (v & mask) as usize;
            map.get(v).copied().ok_or_else(|| {
                states_at.error(format!(
                    "block ({x}, {y}, {z}) is palette index {v}, past the palette's {n} entries"
                ))
            })
        })?;

        if let Some(list) = region.opt("TileEntities")? {
            for item in list.items()? {
                let c = item.compound()?;
                let cell = match (item.opt("x")?, item.opt("y")?, item.opt("z")?) {
                    (Some(x), Some(y), Some(z)) => Some([x.as_i32()?, y.as_i32()?, z.as_i32()?]),
                    _ => None,
                };
                payload
                    .extras
                    .push(nbt_extra(ExtraKind::BlockEntity, grid as u32, cell, c));
            }
        }
        if let Some(list) = region.opt("Entities")? {
            for item in list.items()? {
                let c = item.compound()?;
                let cell = entity_cell(&item, "Pos")?;
                payload
                    .extras
                    .push(nbt_extra(ExtraKind::Entity, grid as u32, cell, c));
            }
        }
        for t in TICKS {
            if region.opt(t)?.is_some() && !dropped.contains(&t) {
                dropped.push(t);
            }
        }
    }
    if payload.grids.is_empty() {
        warnings.push("the file has no regions; the container is empty".into());
    }
    finish_meta(&mut h, &dropped);
    payload.header = h;
    payload.palette = palette.into_entries();
    Ok(payload)
}
