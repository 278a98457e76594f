//! The region mesher: face culling across chunk and region borders, the see-through
//! rules, corner occlusion, placement and winding, translucent order, fluids.

use dh_content::voxel::blocks::BlockTables;
use dh_content::voxel::payload::{
    GridInfo, PaletteEntry, PayloadAxes, PayloadHeader, Property, UpAxis,
};
use dh_engine::voxel::{
    mesh_region, FluidTable, MapChunks, MeshContext, MeshOptions, MeshScratch, Placement,
    RegionMesh, Surface, VoxelLooks,
};

const STONE: u32 = 1;
const GLASS: u32 = 2;
const RED_GLASS: u32 = 3;
const LEAVES: u32 = 4;
const WATER: u32 = 5;
const FLOW4: u32 = 6;
const STAIRS_LOGGED: u32 = 7;

fn palette() -> Vec<PaletteEntry> {
    let mc = |id: &str| PaletteEntry::new("minecraft", id);
    let mut flow = mc("water");
    flow.properties.push(Property::string("level", "4"));
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
    ]
}

fn looks(fluids: bool) -> VoxelLooks {
    let tables = BlockTables::builtin().expect("built-in tables load");
    let ft = FluidTable::minecraft();
    VoxelLooks::resolve(
        &palette(),
        tables,
        Some("com.mojang.minecraft"),
        None,
        if fluids { Some(&ft) } else { None },
    )
}

fn world(cells: &[([i32; 3], u32)]) -> MapChunks {
    let mut w = MapChunks::new(16);
    for &(c, v) in cells {
        w.set(c, v);
    }
    w
}

/// Meshes every region of `regions` with `opts` and `placement`.
fn mesh_all(
    w: &MapChunks,
    looks: &VoxelLooks,
    opts: MeshOptions,
    placement: &Placement,
    regions: &[[i32; 3]],
) -> Vec<RegionMesh> {
    let ctx = MeshContext::new(looks, placement, &opts);
    let mut scratch = MeshScratch::default();
    regions
        .iter()
        .map(|&r| mesh_region(w, &ctx, r, &mut scratch))
        .collect()
}

fn quads(meshes: &[RegionMesh], s: Surface) -> usize {
    meshes.iter().map(|m| m.surface(s).quad_count()).sum()
}

fn all_quads(meshes: &[RegionMesh]) -> usize {
    meshes.iter().map(RegionMesh::quad_count).sum()
}

/// Every region within one of the origin.
fn near_regions() -> Vec<[i32; 3]> {
    let mut v = Vec::new();
    for z in -1..=1 {
        for y in -1..=1 {
            for x in -1..=1 {
                v.push([x, y, z]);
            }
        }
    }
    v
}

#[test]
fn faces_between_chunks_and_regions_are_culled() {
    let l = looks(false);
    let id = Placement::identity();
    // Two stones across a chunk border (x 15 | 16) inside one region of 2 chunks.
    let w = world(&[([15, 3, 3], STONE), ([16, 3, 3], STONE)]);
    let m = mesh_all(&w, &l, MeshOptions::default(), &id, &near_regions());
    assert_eq!(
        all_quads(&m),
        10,
        "the face between the two chunks is hidden"
    );
    assert_eq!(m.iter().map(|r| r.chunks_with_faces).sum::<u32>(), 2);
    // Across a region border (x 31 | 32 with two chunks a region).
    let w = world(&[([31, 3, 3], STONE), ([32, 3, 3], STONE)]);
    let m = mesh_all(&w, &l, MeshOptions::default(), &id, &near_regions());
    assert_eq!(
        all_quads(&m),
        10,
        "the face between the two regions is hidden"
    );
    assert_eq!(m.iter().filter(|r| !r.is_empty()).count(), 2);
    // Across Y and Z borders, and below zero.
    let w = world(&[([0, -1, 0], STONE), ([0, 0, 0], STONE), ([0, 0, -1], STONE)]);
    let m = mesh_all(&w, &l, MeshOptions::default(), &id, &near_regions());
    assert_eq!(all_quads(&m), 14);
    // A region draws exactly the faces its chunks would one by one.
    let mut cells = Vec::new();
    let mut seed = 7u32;
    for _ in 0..3000 {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let c = [(seed >> 8) % 40, (seed >> 16) % 40, (seed >> 24) % 40].map(|v| v as i32 - 8);
        cells.push((c, [STONE, GLASS, LEAVES][(seed % 3) as usize]));
    }
    let w = world(&cells);
    let two = mesh_all(&w, &l, MeshOptions::default(), &id, &near_regions());
    let mut ones = Vec::new();
    for z in -2..=3 {
        for y in -2..=3 {
            for x in -2..=3 {
                ones.push([x, y, z]);
            }
        }
    }
    let one = mesh_all(
        &w,
        &l,
        MeshOptions {
            region_chunks: 1,
            ..MeshOptions::default()
        },
        &id,
        &ones,
    );
    for s in Surface::ALL {
        assert_eq!(quads(&two, s), quads(&one, s), "{s:?}");
    }
}

#[test]
fn see_through_blocks_hide_only_their_own_kind() {
    let l = looks(false);
    let id = Placement::identity();
    let run = |cells: &[([i32; 3], u32)], opts: MeshOptions| {
        mesh_all(&world(cells), &l, opts, &id, &[[0, 0, 0]])
    };
    let fast = MeshOptions::default();
    let fancy = MeshOptions {
        opaque_leaves: false,
        ..fast
    };
    // Glass beside glass: no face between.
    let m = run(&[([1, 1, 1], GLASS), ([2, 1, 1], GLASS)], fast);
    assert_eq!(quads(&m, Surface::Translucent), 10);
    // Glass beside red glass: two kinds, both faces.
    let m = run(&[([1, 1, 1], GLASS), ([2, 1, 1], RED_GLASS)], fast);
    assert_eq!(quads(&m, Surface::Translucent), 12);
    // Stone beside glass: the stone shows its face through the glass; the glass's face
    // against the stone is hidden.
    let m = run(&[([1, 1, 1], STONE), ([2, 1, 1], GLASS)], fast);
    assert_eq!(quads(&m, Surface::Opaque), 6);
    assert_eq!(quads(&m, Surface::Translucent), 5);
    // Water beside water (no fluid table: cubes): a lake has no inner walls.
    let m = run(&[([1, 1, 1], WATER), ([1, 2, 1], WATER)], fast);
    assert_eq!(quads(&m, Surface::Translucent), 10);
    // Leaves: opaque (Fast) hide each other; cut out (Fancy, `inner`) keep the faces
    // between, and switching is live with the same resolved looks.
    let cells = [([1, 1, 1], LEAVES), ([2, 1, 1], LEAVES), ([1, 1, 2], STONE)];
    let m = run(&cells, fast);
    assert_eq!(quads(&m, Surface::Opaque), 10 + 4);
    assert_eq!(quads(&m, Surface::Cutout), 0);
    let m = run(&cells, fancy);
    assert_eq!(quads(&m, Surface::Cutout), 12 - 1);
    assert_eq!(quads(&m, Surface::Opaque), 6);
}

/// The top face of the cell at `cell` (identity placement): each corner's (x, z)
/// position and its occlusion count, and the triangles as corner positions.
type TopFace = (Vec<([f32; 2], f32)>, Vec<[f32; 2]>);

fn top_face(m: &RegionMesh, cell: [i32; 3]) -> TopFace {
    let s = m.surface(Surface::Opaque);
    let verts = s.to_vertices();
    let top = (cell[1] + 1) as f32;
    let mut corners = Vec::new();
    let mut tris = Vec::new();
    for q in 0..s.quad_count() {
        let idx = &s.indices[q * 6..q * 6 + 6];
        let v = &verts[idx[0] as usize];
        let inside = idx.iter().all(|&i| {
            let p = verts[i as usize].position;
            p[1] == top
                && p[0] >= cell[0] as f32
                && p[0] <= cell[0] as f32 + 1.0
                && p[2] >= cell[2] as f32
                && p[2] <= cell[2] as f32 + 1.0
        });
        if inside && v.normal[1] > 0.99 {
            let v0 = (*idx.iter().min().unwrap_or(&0)) as usize;
            for vert in &verts[v0..v0 + 4] {
                corners.push(([vert.position[0], vert.position[2]], vert.uv2[0]));
            }
            for &i in idx {
                let p = verts[i as usize].position;
                tris.push([p[0], p[2]]);
            }
        }
    }
    (corners, tris)
}

fn ao_at(corners: &[([f32; 2], f32)], x: f32, z: f32) -> f32 {
    corners
        .iter()
        .find(|(p, _)| *p == [x, z])
        .map(|c| c.1)
        .unwrap_or(-1.0)
}

#[test]
fn corner_occlusion_counts_and_the_lighter_diagonal() {
    let l = looks(false);
    let id = Placement::identity();
    let floor = [5, 5, 5];
    let m = |extra: &[[i32; 3]]| {
        let mut cells = vec![(floor, STONE)];
        cells.extend(extra.iter().map(|&c| (c, STONE)));
        mesh_all(
            &world(&cells),
            &l,
            MeshOptions::default(),
            &id,
            &[[0, 0, 0]],
        )
    };
    // Nothing around: every corner 0.
    let r = m(&[]);
    let (c, _) = top_face(&r[0], floor);
    assert_eq!(c.len(), 4);
    assert!(c.iter().all(|c| c.1 == 0.0));
    // One edge cell on +X in the layer above: the two +X corners count 1.
    let r = m(&[[6, 6, 5]]);
    let (c, _) = top_face(&r[0], floor);
    assert_eq!(ao_at(&c, 6.0, 5.0), 1.0);
    assert_eq!(ao_at(&c, 6.0, 6.0), 1.0);
    assert_eq!(ao_at(&c, 5.0, 5.0), 0.0);
    assert_eq!(ao_at(&c, 5.0, 6.0), 0.0);
    // Edges on +X and +Z: their shared corner is fully hidden (3, two edges), the other
    // two corners on them count 1, the far corner 0.
    let r = m(&[[6, 6, 5], [5, 6, 6]]);
    let (c, _) = top_face(&r[0], floor);
    assert_eq!(ao_at(&c, 6.0, 6.0), 3.0);
    assert_eq!(ao_at(&c, 6.0, 5.0), 1.0);
    assert_eq!(ao_at(&c, 5.0, 6.0), 1.0);
    assert_eq!(ao_at(&c, 5.0, 5.0), 0.0);
    // Only the diagonal cell: that corner counts 1, and the quad is split along the
    // other diagonal, so the dark corner shades one triangle alone.
    let r = m(&[[6, 6, 6]]);
    let (c, tris) = top_face(&r[0], floor);
    assert_eq!(ao_at(&c, 6.0, 6.0), 1.0);
    assert_eq!(ao_at(&c, 5.0, 5.0), 0.0);
    let dark_in = tris.chunks(3).filter(|t| t.contains(&[6.0, 6.0])).count();
    assert_eq!(dark_in, 1, "the dark corner is in one triangle: {tris:?}");
    // The shared edge is the lighter diagonal (5,6)-(6,5).
    for t in tris.chunks(3) {
        assert!(
            t.contains(&[5.0, 6.0]) && t.contains(&[6.0, 5.0]),
            "{tris:?}"
        );
    }
}

/// Every triangle's winding agrees with its vertices' normal.
fn assert_outward(m: &RegionMesh) {
    for s in &m.surfaces {
        let v = s.to_vertices();
        for t in s.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| v[t[k] as usize].position.map(f64::from));
            let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            let vn = v[t[0] as usize].normal.map(f64::from);
            let d = n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2];
            assert!(d > 0.0, "triangle {t:?} winds against its normal {vn:?}");
        }
    }
}

#[test]
fn placement_composes_axes_size_origin_and_mirrors_right_way_out() {
    let l = looks(false);
    let w = world(&[([0, 0, 0], STONE), ([3, 1, 2], STONE)]);
    let opts = MeshOptions::default();
    // MagicaVoxel: z-up-right at 0.1 m, origin (1, 0, 0): cell (x, y, z) lands at
    // X = 0.1 (x - 1), Y = 0.1 z, Z = -0.1 y.
    let mut h = PayloadHeader {
        voxel_size: 0.1,
        axes: PayloadAxes {
            up: UpAxis::Z,
            left_handed: false,
        },
        origin: [1, 0, 0],
        ..PayloadHeader::default()
    };
    let grids = vec![GridInfo::new("g", [0, 0, 0], [16, 16, 16])];
    let p = Placement::new(&h, &grids, 0, None).expect("a placement");
    assert!(!p.mirrors());
    let q = p.point(glam::DVec3::from([3.0, 1.0, 2.0]));
    for (a, b) in q.to_array().iter().zip([0.2, 0.2, -0.1]) {
        assert!((a - b).abs() < 1e-9, "{q:?}");
    }
    let m = mesh_all(&w, &l, opts, &p, &[[0, 0, 0]]);
    assert_eq!(all_quads(&m), 12);
    assert_outward(&m[0]);
    // The grid's +Z face (its up) faces world +Y.
    let v = m[0].surface(Surface::Opaque).to_vertices();
    assert!(v.iter().any(|v| v.normal[1] > 0.999));
    // Left-handed: mirrored, and the triangles turned right way out again.
    h.axes.left_handed = true;
    let p = Placement::new(&h, &grids, 0, None).expect("a placement");
    assert!(p.mirrors());
    let m = mesh_all(&w, &l, opts, &p, &[[0, 0, 0]]);
    assert_outward(&m[0]);
    // A mirroring pose on a right-handed source, and a child grid's transform.
    h.axes.left_handed = false;
    let pose = [
        [-2.0, 0.0, 0.0, 5.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let mut child = GridInfo::new("c", [0, 0, 0], [16, 16, 16]);
    child.parent = Some(0);
    child.transform = [
        [0.0, -1.0, 0.0, 4.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let grids = vec![grids[0].clone(), child];
    let pose = Placement::from_rows(pose).affine;
    let p = Placement::new(&h, &grids, 1, Some(pose)).expect("a placement");
    assert!(p.mirrors());
    // Child cell (1, 0, 0) → parent (4, 1, 0) → meters (0.3, 0, -0.1) → pose (4.4, 0, -0.1).
    let q = p.point(glam::DVec3::from([1.0, 0.0, 0.0]));
    for (a, b) in q.to_array().iter().zip([4.4, 0.0, -0.1]) {
        assert!((a - b).abs() < 1e-9, "{q:?}");
    }
    let m = mesh_all(&w, &l, opts, &p, &[[0, 0, 0]]);
    assert_outward(&m[0]);
}

#[test]
fn translucent_faces_are_written_lowest_first() {
    let l = looks(false);
    let mut cells = Vec::new();
    for y in [9, 2, 6, 0] {
        cells.push(([y, y, 1], GLASS));
        cells.push(([y, y, 4], RED_GLASS));
    }
    let m = mesh_all(
        &world(&cells),
        &l,
        MeshOptions::default(),
        &Placement::identity(),
        &[[0, 0, 0]],
    );
    let s = m[0].surface(Surface::Translucent);
    assert_eq!(s.quad_count(), 48);
    let lows: Vec<f32> = s
        .indices
        .chunks(6)
        .map(|q| {
            q.iter()
                .map(|&i| s.positions[i as usize][1])
                .fold(f32::INFINITY, f32::min)
        })
        .collect();
    assert!(lows.windows(2).all(|w| w[0] <= w[1]), "{lows:?}");
}

#[test]
fn fluids_draw_from_their_level() {
    let l = looks(true);
    let id = Placement::identity();
    let run = |cells: &[([i32; 3], u32)]| {
        mesh_all(&world(cells), &l, MeshOptions::default(), &id, &[[0, 0, 0]])
    };
    // A lone source: six faces, each drawn from both sides; its corners the weighted
    // mean 10 × 8/9 / 13 (one full column and three open ones).
    let m = run(&[([4, 4, 4], WATER)]);
    let s = m[0].surface(Surface::Translucent);
    assert_eq!(s.quad_count(), 12);
    let top = s.positions.iter().map(|p| p[1]).fold(0.0f32, f32::max);
    assert!((top - (4.0 + 80.0 / 117.0)).abs() < 1e-5, "{top}");
    // A source beside a level-4 flow: no face between them; their shared corner
    // (10 × 8/9 + 4/9) / 13, one of the flow's far corners (4/9) / 4.
    let m = run(&[([4, 4, 4], WATER), ([5, 4, 4], FLOW4)]);
    let s = m[0].surface(Surface::Translucent);
    assert_eq!(s.quad_count(), 2 * (5 + 5));
    let heights: Vec<f32> = s.positions.iter().map(|p| p[1] - 4.0).collect();
    let shared = (80.0 / 9.0 + 4.0 / 9.0) / 13.0;
    assert!(heights.iter().any(|h| (h - shared).abs() < 1e-5));
    assert!(heights.iter().any(|h| (h - 1.0 / 9.0).abs() < 1e-5));
    // Water under water: the lower cell's top is not drawn and its corners stand full.
    let m = run(&[([4, 4, 4], WATER), ([4, 5, 4], WATER)]);
    let s = m[0].surface(Surface::Translucent);
    assert_eq!(s.quad_count(), 2 * (6 + 6 - 2));
    assert!(s.positions.iter().any(|p| p[1] == 5.0 && p[0] == 4.0));
    // Glass beside a source gives its face up to the water: the water draws its face.
    let m = run(&[([4, 4, 4], WATER), ([5, 4, 4], GLASS)]);
    let s = m[0].surface(Surface::Translucent);
    assert_eq!(s.quad_count(), 5 + 2 * 6);
    // A waterlogged stair (a cube without the pallet): its block covers every side, so
    // its water draws nothing; beside a source there is no face of water between them.
    let m = run(&[([4, 4, 4], STAIRS_LOGGED), ([5, 4, 4], WATER)]);
    assert_eq!(quads(&m, Surface::Opaque), 6);
    assert_eq!(quads(&m, Surface::Translucent), 2 * 5);
    // Stone beside water: the water's face against it is hidden, the stone's shows.
    let m = run(&[([4, 4, 4], WATER), ([4, 3, 4], STONE)]);
    assert_eq!(quads(&m, Surface::Opaque), 6);
    assert_eq!(quads(&m, Surface::Translucent), 2 * 5);
}

#[test]
fn streams_pack_at_sixteen_byte_boundaries() {
    let l = looks(false);
    let m = mesh_all(
        &world(&[([1, 1, 1], STONE)]),
        &l,
        MeshOptions::default(),
        &Placement::identity(),
        &[[0, 0, 0]],
    );
    let s = m[0].surface(Surface::Opaque);
    let p = s.pack();
    assert_eq!(p.vertex_count, 24);
    // 24 positions × 12 B = 288 B, already a multiple of the 16-byte stream alignment.
    assert_eq!(p.basis_offset, 288);
    assert_eq!(p.basis_offset % 16, 0);
    assert_eq!(p.attributes_offset, p.basis_offset + 24 * 8);
    assert_eq!(p.bytes.len(), p.attributes_offset + 24 * 32);
    assert_eq!(s.byte_size(), 24 * 52 + 36 * 4);
    // UV1: the cell coordinates across the face; UV0: the palette atlas texel.
    let v = s.to_vertices();
    let atlas = l.atlas();
    let uv0 = v[0].uv0;
    let tx = (uv0[0] * atlas.width as f32) as usize;
    assert_eq!(tx, STONE as usize);
    assert!(v
        .iter()
        .all(|v| v.uv1[0].abs() <= 2.0 && v.uv1[1].abs() <= 2.0));
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as u32) % n
    }
}

#[test]
fn the_face_pass_finds_what_a_cell_by_cell_check_finds_on_random_worlds() {
    // Opaque stone and leaves (Fast), glass and red glass (see-through, each hiding only
    // its own kind), an index past the palette (the unresolved look: opaque), uniform
    // chunks among stored ones; edges 8, 16 and 32.
    let l = looks(false);
    let id = Placement::identity();
    let ctx = MeshContext::new(&l, &id, &MeshOptions::default());
    let opaque = |v: u32| matches!(v, STONE | LEAVES | 99);
    for (seed, edge) in [(1u64, 8usize), (2, 16), (3, 32), (4, 16)] {
        let mut rng = Rng(seed);
        let mut w = MapChunks::new(edge);
        let span = 2 * edge as i32;
        let density = [15, 50, 85, 97][seed as usize % 4];
        for z in 0..span {
            for y in 0..span {
                for x in 0..span {
                    if rng.below(100) < density {
                        let v = [STONE, GLASS, RED_GLASS, LEAVES, 99][rng.below(5) as usize];
                        w.set([x, y, z], v);
                    }
                }
            }
        }
        w.chunks
            .insert([1, 1, 1], dh_engine::voxel::StoredChunk::Uniform(STONE));
        w.chunks
            .insert([2, 0, 0], dh_engine::voxel::StoredChunk::Uniform(GLASS));
        let dirs = [
            [1, 0, 0],
            [-1, 0, 0],
            [0, 1, 0],
            [0, -1, 0],
            [0, 0, 1],
            [0, 0, -1],
        ];
        let mut scratch = MeshScratch::default();
        for cz in -1..=2 {
            for cy in -1..=2 {
                for cx in -1..=2 {
                    let chunk = [cx, cy, cz];
                    let e = edge as i32;
                    dh_engine::voxel::find_faces(&w, &ctx, chunk, &mut scratch);
                    let mut got: Vec<([i32; 3], usize)> = scratch
                        .faces()
                        .iter()
                        .map(|&f| {
                            let p = [f & 63, (f >> 6) & 63, (f >> 12) & 63];
                            (
                                [0, 1, 2].map(|a| chunk[a] * e + p[a] as i32 - 1),
                                (f >> 18) as usize,
                            )
                        })
                        .collect();
                    got.sort();
                    let mut want = Vec::new();
                    for z in 0..e {
                        for y in 0..e {
                            for x in 0..e {
                                let c = [chunk[0] * e + x, chunk[1] * e + y, chunk[2] * e + z];
                                let v = w.get(c);
                                if v == 0 {
                                    continue;
                                }
                                for (d, n) in dirs.iter().enumerate() {
                                    let nv = w.get([c[0] + n[0], c[1] + n[1], c[2] + n[2]]);
                                    let hidden = opaque(nv) || (!opaque(v) && nv == v);
                                    if !hidden {
                                        want.push((c, d));
                                    }
                                }
                            }
                        }
                    }
                    want.sort();
                    assert_eq!(got, want, "edge {edge}, chunk {chunk:?}");
                }
            }
        }
    }
}
