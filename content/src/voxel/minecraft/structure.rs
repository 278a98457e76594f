//! Vanilla structure-block files (`.nbt`), as the spec's ".nbt" row says: one grid, or one
//! per palette when the structure has `palettes` (shipwrecks, ruins): the same blocks
//! read through each palette, named `palette <n>`, every grid after the first hidden,
//! since the game picks one variant. Block entities belong to the block list and are
//! kept once, on the first grid. A cell the file does not list was structure void, so it
//! stays `dh:empty`.
//!
//! Layout read (the game's `StructureTemplate`): `DataVersion`, `size` (three Ints),
//! `palette` (a list of `Name` + `Properties`) or `palettes` (a list of such lists, all
//! of one length), `blocks` (each a `state` index into the palette, a `pos` of three
//! Ints inside the size, and an optional `nbt` compound: the block entity) and
//! `entities` (each `pos` (Doubles), `blockPos` (Ints) and `nbt`). A block entity's extra
//! is its `nbt` compound, in the block's cell; an entity's is its whole entry (its exact
//! `pos` and its `nbt`), in its `blockPos` cell ("ours": the entry is the entity's source
//! NBT in a structure).

use super::nbt::{At, NbtError};
use super::{
    count_cells, fill_grid, finish_meta, header, nbt_extra, state_of, BlockPalette, Limits,
    StructureFormat,
};
use crate::voxel::payload::{ExtraKind, Grid, GridInfo, VoxelPayload};

/// Converts a read structure `.nbt` root.
pub(crate) fn convert(
    root: &At<'_, '_>,
    grid_name: &str,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<VoxelPayload, NbtError> {
    let data_version = match root.opt("DataVersion")? {
        Some(d) => Some(d.as_i32()?),
        None => {
            warnings.push(
                "the structure has no DataVersion; dataVersion and platformVersion are left empty"
                    .into(),
            );
            None
        }
    };
    let size_at = root.get("size")?;
    let size = size_at.as_ivec::<3>()?;
    if size.iter().any(|&s| s < 0) {
        return Err(size_at.error(format!(
            "{}x{}x{}; expected sizes of 0 or more",
            size[0], size[1], size[2]
        )));
    }

    let mut palette = BlockPalette::new();
    // One local → global map per palette.
    let mut palettes: Vec<Vec<u32>> = Vec::new();
    let mut palette_paths: Vec<String> = Vec::new();
    match (root.opt("palettes")?, root.opt("palette")?) {
        (Some(list), _) => {
            for p in list.items()? {
                let mut map = Vec::new();
                for item in p.items()? {
                    map.push(state_of(&item, &mut palette)?);
                }
                palette_paths.push(p.path());
                palettes.push(map);
            }
            if palettes.is_empty() {
                return Err(list.error("no palettes; expected at least one"));
            }
        }
        (None, Some(p)) => {
            let mut map = Vec::new();
            for item in p.items()? {
                map.push(state_of(&item, &mut palette)?);
            }
            palette_paths.push(p.path());
            palettes.push(map);
        }
        (None, None) => {
            return Err(NbtError::Missing {
                path: "palette".into(),
                expected: "the block palette (a List of Name + Properties), or palettes",
            })
        }
    }

    let mut placed = 0u64;
    for _ in &palettes {
        count_cells(&size_at, size, &mut placed, limits)?;
    }
    let volume = size.iter().map(|&v| v as usize).product::<usize>();
    // Each cell's local state, or u32::MAX where no block is listed (structure void).
    const VOID: u32 = u32::MAX;
    let mut local = vec![VOID; volume];
    let mut payload = VoxelPayload {
        header: header(StructureFormat::Nbt, data_version),
        ..VoxelPayload::default()
    };
    let blocks = root.get("blocks")?;
    for b in blocks.items()? {
        let state_at = b.get("state")?;
        let state = state_at.as_i32()?;
        for (map, path) in palettes.iter().zip(&palette_paths) {
            if state < 0 || state as usize >= map.len() {
                return Err(state_at.error(format!(
                    "palette index {state} is past the {} entries of {path}",
                    map.len()
                )));
            }
        }
        let pos_at = b.get("pos")?;
        let pos = pos_at.as_ivec::<3>()?;
        if (0..3).any(|a| pos[a] < 0 || pos[a] >= size[a]) {
            return Err(pos_at.error(format!(
                "({}, {}, {}) is outside the structure's size {}x{}x{}",
                pos[0], pos[1], pos[2], size[0], size[1], size[2]
            )));
        }
        let i = pos[0] as usize
            + size[0] as usize * (pos[1] as usize + size[1] as usize * pos[2] as usize);
        local[i] = state as u32;
        if let Some(nbt) = b.opt("nbt")? {
            let c = nbt.compound()?;
            payload
                .extras
                .push(nbt_extra(ExtraKind::BlockEntity, 0, Some(pos), c));
        }
    }
    if let Some(list) = root.opt("entities")? {
        for e in list.items()? {
            let c = e.compound()?;
            let cell = match e.opt("blockPos")? {
                Some(p) => Some(p.as_ivec::<3>()?),
                None => super::entity_cell(&e, "pos")?,
            };
            payload
                .extras
                .push(nbt_extra(ExtraKind::Entity, 0, cell, c));
        }
    }

    let many = palettes.len() > 1;
    for (n, map) in palettes.iter().enumerate() {
        let mut info = GridInfo::new(
            if many {
                format!("palette {n}")
            } else {
                grid_name.to_string()
            },
            [0; 3],
            size,
        );
        if n > 0 {
            info.attributes
                .push(("hidden".to_string(), "true".to_string()));
        }
        payload.grids.push(Grid::new(info));
        let (sx, sy) = (size[0] as usize, size[1] as usize);
        fill_grid(&mut payload, n, 0, size, |x, y, z| {
            let l = local[x as usize + sx * (y as usize + sy * z as usize)];
            // Checked against every palette above.
            Ok::<u32, NbtError>(if l == VOID {
                0
            } else {
                map.get(l as usize).copied().unwrap_or(0)
            })
        })?;
    }
    finish_meta(&mut payload.header, &[]);
    payload.palette = palette.into_entries();
    Ok(payload)
}
