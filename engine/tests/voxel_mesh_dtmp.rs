//! TEMPORARY (engineer D): a hash of the mesher's whole output on random worlds, to
//! check a rewrite keeps it byte-identical. Deleted before the session ends.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;

use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{PaletteEntry, Property};
use dh_engine::voxel::{
    mesh_region, FluidTable, MapChunks, MeshContext, MeshOptions, MeshScratch, Placement,
    StoredChunk, VoxelLooks,
};

fn palette() -> Vec<PaletteEntry> {
    let mc = |id: &str| PaletteEntry::new("minecraft", id);
    let mut flow = mc("water");
    flow.properties.push(Property::string("level", "4"));
    let mut fall = mc("water");
    fall.properties.push(Property::string("level", "9"));
    let mut stairs = mc("oak_stairs");
    stairs
        .properties
        .push(Property::string("waterlogged", "true"));
    vec![
        PaletteEntry::empty(),
        mc("stone"),
        mc("glass"),
        mc("red_stained_glass"),
        mc("oak_leaves"),
        mc("water"),
        flow,
        stairs,
        mc("torch"),
        mc("lava"),
        fall,
        mc("ice"),
        mc("grass_block"),
    ]
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn world(rng: &mut Rng, edge: usize, n: i32, density: u32) -> MapChunks {
    let mut w = MapChunks::new(edge);
    let span = n * edge as i32;
    for z in -span / 2..span / 2 {
        for y in -span / 2..span / 2 {
            for x in -span / 2..span / 2 {
                if rng.next() % 100 < density {
                    let v = rng.next() % 15; // 13, 14: past the palette
                    w.set([x, y, z], if v == 14 { 99 } else { v });
                }
            }
        }
    }
    // A few uniform chunks.
    w.chunks.insert([0, 0, 0], StoredChunk::Uniform(1));
    w.chunks.insert([1, 0, 0], StoredChunk::Uniform(1));
    w.chunks.insert([0, 1, 0], StoredChunk::Uniform(5));
    w.chunks.insert([-1, -1, -1], StoredChunk::Uniform(4));
    w
}

#[test]
fn dtmp_mesh_hash() {
    let tables = BlockTables::builtin().expect("tables");
    let ft = FluidTable::minecraft();
    let mut h = DefaultHasher::new();
    let mut rng = Rng(7);
    let mut total = 0usize;
    let placements = [
        Placement::identity(),
        Placement::from_matrix([
            [-0.5, 0.0, 0.0, 3.25],
            [0.0, 0.5, 0.0, -1.5],
            [0.0, 0.0, 0.5, 0.75],
        ]),
        Placement::from_matrix([
            [0.0, 0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0, 2.0],
            [0.0, 1.0, 0.0, 0.0],
        ]),
    ];
    for (edge, n) in [(8usize, 4i32), (16, 3), (32, 2)] {
        for density in [20u32, 70, 97] {
            let w = world(&mut rng, edge, n, density);
            for fluids in [false, true] {
                let looks = VoxelLooks::resolve(
                    &palette(),
                    tables,
                    Some("com.mojang.minecraft"),
                    None,
                    if fluids { Some(&ft) } else { None },
                );
                for opaque_leaves in [true, false] {
                    for rc in [1usize, 2] {
                        for p in &placements {
                            let opts = MeshOptions {
                                opaque_leaves,
                                region_chunks: rc,
                            };
                            let ctx = MeshContext::new(&looks, p, &opts);
                            let mut scratch = MeshScratch::default();
                            let r = (n as usize).div_ceil(2 * rc) as i32 + 1;
                            for rz in -r..r {
                                for ry in -r..r {
                                    for rx in -r..r {
                                        let m = mesh_region(&w, &ctx, [rx, ry, rz], &mut scratch);
                                        total += m.quad_count();
                                        h.write_u32(m.chunks_with_faces);
                                        for s in &m.surfaces {
                                            h.write_usize(s.positions.len());
                                            for q in &s.positions {
                                                for c in q {
                                                    h.write_u32(c.to_bits());
                                                }
                                            }
                                            for q in &s.basis {
                                                for c in q {
                                                    h.write_u16(*c);
                                                }
                                            }
                                            for q in &s.attributes {
                                                for c in q {
                                                    h.write_u32(c.to_bits());
                                                }
                                            }
                                            for c in &s.indices {
                                                h.write_u32(*c);
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    println!("DTMP quads {total} hash {:016x}", h.finish());
}
