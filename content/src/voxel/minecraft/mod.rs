//! Minecraft Java Edition sources (spec dh.voxel, "Importing Minecraft Java"): the NBT
//! reader they all share, and the structure formats (`.schem`, `.litematic`, `.nbt`,
//! `.schematic`) converted into the canonical payload.

pub mod nbt;
pub mod world;
