//! MikkTSpace, the tangent space of Morten S. Mikkelsen's reference `mikktspace.c` (the one
//! Blender bakes normal maps with and the glTF specification names), ported to safe Rust
//! for triangle lists.
//!
//! The port follows the reference step for step and in the same floating-point order:
//! vertices with equal position, normal and texture coordinate are welded; triangles with
//! two equal corner positions are degenerate and set aside; every other triangle gets its
//! first-order derivatives ∂p/∂u and ∂p/∂v, its UV orientation, and its neighbours across
//! shared edges; the corners around each welded vertex are grouped by connectivity and
//! orientation (the "4 rules", including the reference's one order dependency: the first
//! group to reach a triangle with no usable UV area decides its orientation); each group
//! splits into subgroups by the angular threshold (180°, the default every caller uses);
//! each subgroup's tangent is the angle-weighted sum of its triangles' derivatives
//! projected onto the vertex normal's plane; degenerate triangles copy the space of a good
//! triangle sharing the welded vertex.
//!
//! Three places differ from the C source without changing any finite result it gives:
//! * The recursive group walk (`AssignRecur`) is an explicit stack, so a vertex shared by
//!   millions of triangles cannot overflow the thread's stack. The visiting order is the
//!   recursion's.
//! * The subgroup step compares every pair of a group's triangles in the reference, which is
//!   quadratic in a vertex's valence. Here a group first checks in one pass whether all its
//!   projected directions lie within a half-space (then no pair can be 180° apart and the
//!   group is one subgroup); failing that, a group of more than 64 triangles looks for a
//!   pair that the threshold could split (nearly opposite directions, found through a grid
//!   of direction cells), and only when one exists runs the reference's pairwise pass. All
//!   give the reference's subgroups.
//! * `Normalize` divides by a length that underflows to zero for vectors shorter than about
//!   1e-19, which makes the reference return infinities and NaN; here such a vector is
//!   scaled up first. A vector the reference normalizes to finite values gets the same bits.
//!
//! Quads are not taken (glTF primitives are triangles), so the reference's quad-only steps
//! (`AvgTSpace`, the quad orientation fix, degenerate quads) have nothing to do and are
//! left out. Inputs that are not finite read as `0`.
//!
//! Why a port and not the `mikktspace` / `bevy_mikktspace` crate. Compared corner by corner
//! on 2026-12-02 (a scratch program calling this module's `corner_spaces` and both crates
//! on every triangle primitive of the glTF fixtures with NORMAL and TEXCOORD_0: BoxTextured,
//! CesiumMan, CesiumMilkTruck, Duck, MorphPrimitivesTest, MultiUVTest,
//! NormalTangentMirrorTest, VertexColorTest; 51 216 corners), all three give the same bits:
//! tangent, orientation, and, against `bevy_mikktspace` 1.0, which reports a corner it could
//! not derive as `None`, the same derived/default split. The port stays because:
//! * `bevy_mikktspace` 1.0 still walks groups recursively (`assign_to_group_recursive`), so
//!   an untrusted mesh with a vertex shared by enough triangles overflows the stack;
//!   `mikktspace` 0.3 is the C source transliterated, recursion included, and unsafe.
//! * The subgroup pass is quadratic in a vertex's valence there. On the same machine
//!   (release, the mean of 3 runs, shared cores): a 512×512 grid 280 ms here against 1 220 ms
//!   (`bevy_mikktspace`) and 1 342 ms (`mikktspace`); a fan of 20 000 triangles around one
//!   vertex with UVs that flip orientation 451 ms against 961 ms; of 200 000, 61 s against
//!   413 s. That last case is slow here too: once a group can split, the reference's pairwise
//!   pass runs, quadratic in the group's size. A faster exact subgroup pass is still to
//!   write; no input limit bounds it today.
//! * The crates also read through per-corner callbacks, where this port reads the welded
//!   vertex arrays the importer already holds.

use std::collections::BTreeMap;

use glam::Vec3;

use crate::mesh::MeshVertex;

// The vector steps are glam's `Vec3` (`+`, `-`, `f32 * Vec3`, `dot`, `length`): scalar f32
// operations in the reference's own order (`dot` is `x·x' + y·y' + z·z'`), so the bits are
// the C source's. `normalize` stays the reference's `v * (1 / |v|)`, not glam's.
type V = Vec3;

/// A triangle with no usable UV area: it joins any group (`GROUP_WITH_ANY`).
const GROUP_WITH_ANY: u8 = 4;
/// The triangle's UV winding is counter-clockwise (`ORIENT_PRESERVING`).
const ORIENT_PRESERVING: u8 = 8;
const NONE: u32 = u32::MAX;
/// `cos(180°)` as the reference computes it in `float`: exactly `-1`.
const THRESHOLD_COS: f32 = -1.0;
/// Groups up to this size take the reference's pairwise subgroup pass directly, a
/// subgroup held as one bit per member.
const SMALL_GROUP: usize = 64;

/// One face corner's tangent space, as the reference hands it to `setTSpaceBasic`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CornerSpace {
    /// The tangent (the reference's `vOs`): unit length when derived, `+X` by default.
    pub tangent: V,
    /// The reference's `bOrient`: the bitangent `cross(n, t)` runs along +V of the texture
    /// coordinates as given (MikkTSpace's sign `+1`).
    pub orient: bool,
    /// Whether a group (or, for a degenerate triangle, a good triangle's group) gave this
    /// space; `false` is the reference's default space (`+X`, `bOrient = false`).
    pub derived: bool,
}

const DEFAULT_SPACE: CornerSpace = CornerSpace {
    tangent: Vec3::X,
    orient: false,
    derived: false,
};

fn not_zero(x: f32) -> bool {
    x.abs() > f32::MIN_POSITIVE
}
fn v_not_zero(v: V) -> bool {
    not_zero(v.x) || not_zero(v.y) || not_zero(v.z)
}
/// The reference's `Normalize` (`v * (1 / |v|)`), scaled first when that is not finite.
fn normalize(v: V) -> V {
    let r = (1.0 / v.length()) * v;
    if r.is_finite() {
        return r;
    }
    let m = v.to_array().iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if m > 0.0 && m.is_finite() {
        let w = v / m;
        (1.0 / w.length()) * w
    } else {
        r
    }
}
/// `v` less its part along the unit `n`, normalized when not zero.
fn project(n: V, v: V) -> V {
    let p = v - n.dot(v) * n;
    if v_not_zero(p) {
        normalize(p)
    } else {
        p
    }
}
fn finite(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// A good triangle's state (the reference's `STriInfo`).
#[derive(Clone, Copy)]
struct Tri {
    /// `GROUP_WITH_ANY | ORIENT_PRESERVING`.
    flag: u8,
    /// The good triangle across edge `i` (corner `i` to corner `i + 1`), or `NONE`.
    neighbors: [u32; 3],
    /// The group each corner belongs to, or `NONE`.
    group: [u32; 3],
    /// Unit ∂p/∂u and ∂p/∂v, both flipped for a clockwise UV winding.
    os: V,
    ot: V,
    /// The source triangle's number: its corners' spaces are `3 * face + corner`.
    face: u32,
}

struct Group {
    /// The welded vertex every member triangle has a corner at.
    rep: u32,
    orient: bool,
    /// Its triangles in `members`, in the order the walk added them.
    start: usize,
    len: usize,
}

/// The vertex data the algorithm reads: each vertex's position, normal and texture
/// coordinate, a value that is not finite read as `0`.
struct Mesh<'a> {
    vertices: &'a [MeshVertex],
}

impl Mesh<'_> {
    fn position(&self, v: u32) -> V {
        self.vertices
            .get(v as usize)
            .map_or(Vec3::ZERO, |x| Vec3::from_array(x.position.map(finite)))
    }
    fn normal(&self, v: u32) -> V {
        self.vertices
            .get(v as usize)
            .map_or(Vec3::ZERO, |x| Vec3::from_array(x.normal.map(finite)))
    }
    fn uv(&self, v: u32) -> [f32; 2] {
        self.vertices
            .get(v as usize)
            .map_or([0.0; 2], |x| x.uv0.map(finite))
    }
    /// The comparison key of the weld: equal keys are equal under `==` (so `-0` is `0`).
    fn key(&self, v: u32) -> [u32; 8] {
        let p = self.position(v);
        let n = self.normal(v);
        let t = self.uv(v);
        [p.x, p.y, p.z, n.x, n.y, n.z, t[0], t[1]].map(|x| (x + 0.0).to_bits())
    }
}

/// MikkTSpace over the triangle list `indices` (three per triangle; a trailing partial
/// triangle is ignored) of `vertices`, reading each vertex's position, normal (expected
/// unit length) and `uv0`. Returns one space per corner, `3 * triangle + corner`. An index
/// past `vertices` makes every corner the default space.
pub(crate) fn corner_spaces(vertices: &[MeshVertex], indices: &[u32]) -> Vec<CornerSpace> {
    let tris_total = indices.len() / 3;
    let mut spaces = vec![DEFAULT_SPACE; tris_total * 3];
    if tris_total == 0 || indices.iter().any(|i| *i as usize >= vertices.len()) {
        return spaces;
    }
    let mesh = Mesh { vertices };

    // Weld (GenerateSharedVerticesIndexList): each vertex maps to the first of its equals.
    let rep = weld(&mesh);
    let welded = |i: u32| rep[i as usize];

    // Degenerate triangles (two equal corner positions) go last, the good ones keep their
    // order (DegenPrologue).
    let mut good: Vec<[u32; 3]> = Vec::new();
    let mut good_face: Vec<u32> = Vec::new();
    let mut degenerate: Vec<u32> = Vec::new();
    for (f, tri) in indices.chunks_exact(3).enumerate() {
        let l = [welded(tri[0]), welded(tri[1]), welded(tri[2])];
        let p = l.map(|v| mesh.position(v));
        if p[0] == p[1] || p[0] == p[2] || p[1] == p[2] {
            degenerate.push(f as u32);
        } else {
            good.push(l);
            good_face.push(f as u32);
        }
    }

    let mut tris = init_tri_info(&mesh, &good, &good_face);
    build_neighbors(&mut tris, &good, vertices.len());
    let (groups, members) = build_groups(&mut tris, &good);

    let mut scratch = Scratch::default();
    for (id, g) in groups.iter().enumerate() {
        let faces = &members[g.start..g.start + g.len];
        subgroup_spaces(&mesh, &tris, &good, g, faces, &mut scratch);
        for (f, space) in faces.iter().zip(&scratch.out) {
            let tri = &tris[*f as usize];
            let Some(i) = tri.group.iter().position(|x| *x == id as u32) else {
                continue;
            };
            spaces[tri.face as usize * 3 + i] = CornerSpace {
                orient: g.orient,
                ..*space
            };
        }
    }

    // DegenEpilogue: a degenerate triangle's corner copies the space of the first good
    // corner at the same welded vertex.
    let mut first = vec![NONE; vertices.len()];
    for (j, v) in good.iter().flatten().enumerate() {
        if let Some(slot) = first.get_mut(*v as usize) {
            if *slot == NONE {
                *slot = j as u32;
            }
        }
    }
    for f in degenerate {
        for i in 0..3 {
            let v = welded(indices[f as usize * 3 + i]);
            let j = first[v as usize];
            if j != NONE {
                let src = tris[j as usize / 3].face as usize * 3 + j as usize % 3;
                spaces[f as usize * 3 + i] = spaces[src];
            }
        }
    }
    spaces
}

/// Each vertex's representative: the lowest-numbered vertex equal to it under `==` in
/// position, normal and texture coordinate.
fn weld(mesh: &Mesh) -> Vec<u32> {
    let n = mesh.vertices.len();
    let mut order: Vec<([u32; 8], u32)> = (0..n as u32).map(|v| (mesh.key(v), v)).collect();
    order.sort_unstable();
    let mut rep = vec![0u32; n];
    let mut run = (None, 0u32);
    for (key, v) in &order {
        if run.0 != Some(key) {
            run = (Some(key), *v);
        }
        rep[*v as usize] = run.1;
    }
    rep
}

/// The reference's `InitTriInfo` for triangles: derivatives, magnitudes, orientation.
fn init_tri_info(mesh: &Mesh, good: &[[u32; 3]], good_face: &[u32]) -> Vec<Tri> {
    good.iter()
        .zip(good_face)
        .map(|(l, face)| {
            let mut tri = Tri {
                flag: GROUP_WITH_ANY,
                neighbors: [NONE; 3],
                group: [NONE; 3],
                os: Vec3::ZERO,
                ot: Vec3::ZERO,
                face: *face,
            };
            let [v1, v2, v3] = l.map(|v| mesh.position(v));
            let [t1, t2, t3] = l.map(|v| mesh.uv(v));
            let t21x = t2[0] - t1[0];
            let t21y = t2[1] - t1[1];
            let t31x = t3[0] - t1[0];
            let t31y = t3[1] - t1[1];
            let d1 = v2 - v1;
            let d2 = v3 - v1;
            let area = t21x * t31y - t21y * t31x;
            let os = t31y * d1 - t21y * d2;
            let ot = -t31x * d1 + t21x * d2;
            if area > 0.0 {
                tri.flag |= ORIENT_PRESERVING;
            }
            if not_zero(area) {
                let abs_area = area.abs();
                let len_os = os.length();
                let len_ot = ot.length();
                let s = if tri.flag & ORIENT_PRESERVING == 0 {
                    -1.0
                } else {
                    1.0
                };
                if not_zero(len_os) {
                    tri.os = (s / len_os) * os;
                }
                if not_zero(len_ot) {
                    tri.ot = (s / len_ot) * ot;
                }
                if not_zero(len_os / abs_area) && not_zero(len_ot / abs_area) {
                    tri.flag &= !GROUP_WITH_ANY;
                }
            }
            tri
        })
        .collect()
}

/// The edge of `tri` whose ends are `a` and `b`: its number and its ends in `tri`'s
/// winding (the reference's `GetEdge`).
fn get_edge(tri: &[u32; 3], a: u32, b: u32) -> (usize, u32, u32) {
    let on = |v: u32| v == a || v == b;
    if on(tri[0]) {
        if on(tri[1]) {
            (0, tri[0], tri[1])
        } else {
            (2, tri[2], tri[0])
        }
    } else {
        (1, tri[1], tri[2])
    }
}

/// The reference's `BuildNeighborsFast`: edges sorted by (low end, high end, triangle),
/// each paired with the first later unpaired edge that runs the other way. Welded vertex
/// numbers are below `vertices`.
fn build_neighbors(tris: &mut [Tri], good: &[[u32; 3]], vertices: usize) {
    // Bucket the edges by low end (a counting sort, so each bucket lists its triangles in
    // order), then sort each bucket stably by high end.
    let mut start = vec![0u32; vertices + 1];
    for l in good {
        for i in 0..3 {
            let low = l[i].min(l[(i + 1) % 3]) as usize;
            start[low + 1] += 1;
        }
    }
    for v in 0..vertices {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut edges = vec![(0u32, 0u32, 0u32); good.len() * 3];
    for (f, l) in good.iter().enumerate() {
        for i in 0..3 {
            let (a, b) = (l[i], l[(i + 1) % 3]);
            let slot = &mut fill[a.min(b) as usize];
            edges[*slot as usize] = (a.min(b), a.max(b), f as u32);
            *slot += 1;
        }
    }
    drop(fill);
    for w in start.windows(2) {
        edges[w[0] as usize..w[1] as usize].sort_by_key(|e| e.1);
    }
    drop(start);
    for i in 0..edges.len() {
        let (a, b, f) = edges[i];
        let (edge_a, a0, a1) = get_edge(&good[f as usize], a, b);
        if tris[f as usize].neighbors[edge_a] != NONE {
            continue;
        }
        let mut j = i + 1;
        while j < edges.len() && edges[j].0 == a && edges[j].1 == b {
            let t = edges[j].2;
            let (edge_b, b1, b0) = get_edge(&good[t as usize], a, b);
            if a0 == b0 && a1 == b1 && tris[t as usize].neighbors[edge_b] == NONE {
                tris[f as usize].neighbors[edge_a] = t;
                tris[t as usize].neighbors[edge_b] = f;
                break;
            }
            j += 1;
        }
    }
}

/// The corner of `l` at welded vertex `v` (0 when absent, which a group never asks).
fn corner_of(l: &[u32; 3], v: u32) -> usize {
    l.iter().position(|x| *x == v).unwrap_or(0)
}

/// The reference's `Build4RuleGroups` with `AssignRecur` as an explicit stack.
fn build_groups(tris: &mut [Tri], good: &[[u32; 3]]) -> (Vec<Group>, Vec<u32>) {
    let mut groups: Vec<Group> = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    for f in 0..tris.len() {
        for i in 0..3 {
            if tris[f].flag & GROUP_WITH_ANY != 0 || tris[f].group[i] != NONE {
                continue;
            }
            let id = groups.len() as u32;
            let orient = tris[f].flag & ORIENT_PRESERVING != 0;
            let rep = good[f][i];
            let start = members.len();
            tris[f].group[i] = id;
            members.push(f as u32);
            let left = tris[f].neighbors[i];
            let right = tris[f].neighbors[(i + 2) % 3];
            stack.clear();
            // Popped left first, then (after everything the left one reached) right.
            for n in [right, left] {
                if n != NONE {
                    stack.push(n);
                }
            }
            while let Some(t) = stack.pop() {
                let tri = &mut tris[t as usize];
                let c = corner_of(&good[t as usize], rep);
                if tri.group[c] != NONE {
                    continue;
                }
                if tri.flag & GROUP_WITH_ANY != 0 && tri.group == [NONE; 3] {
                    // The first group to reach it decides its orientation.
                    tri.flag &= !ORIENT_PRESERVING;
                    if orient {
                        tri.flag |= ORIENT_PRESERVING;
                    }
                }
                if (tri.flag & ORIENT_PRESERVING != 0) != orient {
                    continue;
                }
                tri.group[c] = id;
                members.push(t);
                for n in [tri.neighbors[(c + 2) % 3], tri.neighbors[c]] {
                    if n != NONE {
                        stack.push(n);
                    }
                }
            }
            groups.push(Group {
                rep,
                orient,
                start,
                len: members.len() - start,
            });
        }
    }
    (groups, members)
}

/// Buffers [`subgroup_spaces`] reuses from group to group.
#[derive(Default)]
struct Scratch {
    /// Each member's projected, normalized ∂p/∂u and ∂p/∂v.
    proj: Vec<(V, V)>,
    /// Each member's `GROUP_WITH_ANY`.
    any: Vec<bool>,
    /// Member positions sorted by triangle number.
    sorted: Vec<usize>,
    /// Small groups: each distinct subgroup as a mask over `sorted`, and its space.
    masks: Vec<(u64, CornerSpace)>,
    /// Large groups: each distinct subgroup's sorted triangles, and its space.
    lists: Vec<(Vec<u32>, CornerSpace)>,
    list: Vec<u32>,
    /// The result: the space of each member's corner, in member order.
    out: Vec<CornerSpace>,
}

/// The reference's `GenerateTSpaces` for one group: the space of each member triangle's
/// corner at the group's vertex, into `scratch.out`. A member's subgroup is every member
/// joined with it ([`joined`]), listed by triangle number; equal subgroups share one
/// evaluation.
fn subgroup_spaces(
    mesh: &Mesh,
    tris: &[Tri],
    good: &[[u32; 3]],
    g: &Group,
    faces: &[u32],
    scratch: &mut Scratch,
) {
    let n = mesh.normal(g.rep);
    let Scratch {
        proj,
        any,
        sorted,
        masks,
        lists,
        list,
        out,
    } = scratch;
    // The projections depend only on the member and the group's normal.
    proj.clear();
    proj.extend(faces.iter().map(|f| {
        let t = &tris[*f as usize];
        (project(n, t.os), project(n, t.ot))
    }));
    any.clear();
    any.extend(
        faces
            .iter()
            .map(|f| tris[*f as usize].flag & GROUP_WITH_ANY != 0),
    );
    sorted.clear();
    sorted.extend(0..faces.len());
    sorted.sort_unstable_by_key(|k| faces[*k]);
    out.clear();
    let (proj, any, sorted) = (&proj[..], &any[..], &sorted[..]);
    let eval = |keep: &dyn Fn(usize, usize) -> bool| -> CornerSpace {
        eval_tspace(
            mesh,
            tris,
            good,
            g.rep,
            sorted
                .iter()
                .enumerate()
                .filter(|(bit, k)| keep(*bit, **k))
                .map(|(_, k)| (faces[*k], proj[*k].0)),
        )
    };

    if all_joined(proj, any) {
        let space = eval(&|_, _| true);
        out.resize(faces.len(), space);
        return;
    }
    if faces.len() <= SMALL_GROUP {
        masks.clear();
        for a in 0..faces.len() {
            let mask = sorted
                .iter()
                .enumerate()
                .filter(|(_, b)| joined(proj, any, a, **b))
                .fold(0u64, |m, (bit, _)| m | 1 << bit);
            let space = match masks.iter().find(|(m, _)| *m == mask) {
                Some((_, space)) => *space,
                None => {
                    let space = eval(&|bit, _| mask & 1 << bit != 0);
                    masks.push((mask, space));
                    space
                }
            };
            out.push(space);
        }
        return;
    }
    if !any_split(proj, any) {
        let space = eval(&|_, _| true);
        out.resize(faces.len(), space);
        return;
    }
    lists.clear();
    let mut by_hash: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for a in 0..faces.len() {
        list.clear();
        list.extend(
            sorted
                .iter()
                .filter(|b| joined(proj, any, a, **b))
                .map(|b| faces[*b]),
        );
        let h = fnv(list);
        let found = by_hash
            .get(&h)
            .and_then(|c| c.iter().find(|u| lists[**u].0 == *list))
            .copied();
        let space = match found {
            Some(u) => lists[u].1,
            None => {
                let space = eval(&|_, b| joined(proj, any, a, b));
                lists.push((list.clone(), space));
                by_hash.entry(h).or_default().push(lists.len() - 1);
                space
            }
        };
        out.push(space);
    }
}

/// Whether members `a` and `b` of a group share a subgroup: the reference's test (either
/// has no usable UV area, they are one triangle, or both derivative pairs are less than
/// 180° apart).
fn joined(proj: &[(V, V)], any: &[bool], a: usize, b: usize) -> bool {
    any[a]
        || any[b]
        || a == b
        || (proj[a].0.dot(proj[b].0) > THRESHOLD_COS && proj[a].1.dot(proj[b].1) > THRESHOLD_COS)
}

fn fnv(list: &[u32]) -> u64 {
    list.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ u64::from(*x)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A test in one pass that every pair of members is [`joined`] (`false` says nothing). A
/// pair of vectors of length at most about 1 whose dot product is `-1` or less has a sum
/// shorter than 0.05, so along any unit direction `d` one of them has a component under
/// 0.025. When every non-`any` member's ∂p/∂u has a component over 0.03 along the first
/// one's (a unit vector), no two of them are that opposite; the same for ∂p/∂v.
fn all_joined(proj: &[(V, V)], any: &[bool]) -> bool {
    let mut members = proj.iter().zip(any).filter(|(_, a)| !**a).map(|(p, _)| *p);
    let Some((ds, dt)) = members.next() else {
        return true;
    };
    let unit = |v: V| (0.999..=1.001).contains(&v.dot(v));
    unit(ds) && unit(dt) && members.all(|(s, t)| s.dot(ds) > 0.03 && t.dot(dt) > 0.03)
}

/// Whether some pair of non-`any` members could fall apart at the 180° threshold: their
/// projected ∂p/∂u (or ∂p/∂v) have a dot product of `-1` or less. For vectors of length at
/// most about 1 that needs them nearly opposite (each component of the sum under 0.05), so
/// each member is only tested against the members in the direction cells (1/16 wide) next
/// to its opposite. A member whose vectors are not finite or longer than that is tested
/// against every member.
fn any_split(proj: &[(V, V)], any: &[bool]) -> bool {
    const CELLS: f32 = 16.0;
    let cell = |v: V| (v * CELLS).floor().as_ivec3().to_array();
    let tame = |v: V| v.is_finite() && v.dot(v) <= 1.001;
    let apart = |a: usize, b: usize| !joined(proj, any, a, b);
    let mut grid_s: BTreeMap<[i32; 3], Vec<usize>> = BTreeMap::new();
    let mut grid_t: BTreeMap<[i32; 3], Vec<usize>> = BTreeMap::new();
    for (k, (s, t)) in proj.iter().enumerate() {
        if any[k] {
            continue;
        }
        if !(tame(*s) && tame(*t)) {
            if (0..proj.len()).any(|b| apart(k, b)) {
                return true;
            }
            continue;
        }
        grid_s.entry(cell(*s)).or_default().push(k);
        grid_t.entry(cell(*t)).or_default().push(k);
    }
    for (k, (s, t)) in proj.iter().enumerate() {
        if any[k] || !(tame(*s) && tame(*t)) {
            continue;
        }
        for (grid, v) in [(&grid_s, *s), (&grid_t, *t)] {
            let c = cell(-1.0 * v);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let Some(list) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else {
                            continue;
                        };
                        if list.iter().any(|b| apart(k, *b)) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    false
}

/// The reference's `EvalTspace`: the angle-weighted sum of the members' projected ∂p/∂u
/// (given with each member) at the welded vertex `rep`, normalized.
fn eval_tspace(
    mesh: &Mesh,
    tris: &[Tri],
    good: &[[u32; 3]],
    rep: u32,
    members: impl Iterator<Item = (u32, V)>,
) -> CornerSpace {
    let n = mesh.normal(rep);
    let mut os = Vec3::ZERO;
    for (f, v_os) in members {
        let tri = &tris[f as usize];
        if tri.flag & GROUP_WITH_ANY != 0 {
            continue;
        }
        let l = &good[f as usize];
        let i = corner_of(l, rep);
        let p0 = mesh.position(l[(i + 2) % 3]);
        let p1 = mesh.position(l[i]);
        let p2 = mesh.position(l[(i + 1) % 3]);
        let v1 = project(n, p0 - p1);
        let v2 = project(n, p2 - p1);
        let cos = v1.dot(v2).clamp(-1.0, 1.0);
        // The reference takes the arc cosine in double precision.
        let angle = f64::from(cos).acos() as f32;
        os += angle * v_os;
    }
    if v_not_zero(os) {
        os = normalize(os);
    }
    CornerSpace {
        tangent: os,
        orient: false,
        derived: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal reference test: some pair of non-`any` members is not joined.
    fn any_split_by_pairs(proj: &[(V, V)], any: &[bool]) -> bool {
        (0..proj.len()).any(|a| {
            (0..proj.len()).any(|b| {
                let (ds, dt) = (proj[a].0.dot(proj[b].0), proj[a].1.dot(proj[b].1));
                !(a == b || any[a] || any[b] || (ds > -1.0 && dt > -1.0))
            })
        })
    }

    #[test]
    fn the_split_search_finds_exactly_the_pairs_the_reference_splits() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let mut splits = 0;
        for case in 0..600 {
            let n = 2 + case % 40;
            let mut proj: Vec<(V, V)> = (0..n)
                .map(|_| {
                    let s = normalize(Vec3::new(rnd(), rnd(), rnd()));
                    let t = normalize(Vec3::new(rnd(), rnd(), rnd()));
                    (s, t)
                })
                .collect();
            // Exact and nearly exact opposites, rotated copies, a NaN and an infinity.
            if case % 3 == 0 {
                proj[1].0 = -proj[0].0;
            }
            if case % 5 == 0 {
                proj[n - 1].1 = normalize(proj[0].1.map(|x| -x * (1.0 + 1e-7)));
            }
            if case % 7 == 0 {
                proj[n / 2].0 = Vec3::new(f32::NAN, 0.0, 0.0);
            }
            if case % 11 == 0 {
                proj[n / 2].1 = Vec3::new(f32::INFINITY, 1.0, 1.0);
            }
            let any: Vec<bool> = (0..n).map(|k| (k * 7 + case) % 9 == 0).collect();
            let want = any_split_by_pairs(&proj, &any);
            splits += usize::from(want);
            assert_eq!(any_split(&proj, &any), want, "case {case}");
            if all_joined(&proj, &any) {
                assert!(!want, "case {case}");
            }
            // Directions in one half-space: the one-pass test must see it.
            let (s0, t0) = proj[0];
            let near: Vec<(V, V)> = proj
                .iter()
                .map(|(s, t)| {
                    let flip = |v: V, d: V| {
                        if v.dot(d) < 0.1 {
                            v + 2.0 * d
                        } else {
                            v
                        }
                    };
                    (normalize(flip(*s, s0)), normalize(flip(*t, t0)))
                })
                .collect();
            let no_any = vec![false; n];
            if near.iter().all(|(s, t)| s.is_finite() && t.is_finite()) {
                assert!(all_joined(&near, &no_any), "case {case}");
                assert!(!any_split_by_pairs(&near, &no_any));
            }
        }
        assert!(splits > 50 && splits < 550, "{splits} of 600 split");
    }

    #[test]
    fn welding_treats_minus_zero_as_zero_and_keeps_other_values_apart() {
        let v = |p: [f32; 3], u: [f32; 2]| MeshVertex {
            position: p,
            normal: [0.0, 0.0, 1.0],
            uv0: u,
            ..MeshVertex::default()
        };
        let verts = [
            v([0.0, 1.0, 0.0], [0.5, 0.5]),
            v([-0.0, 1.0, 0.0], [0.5, 0.5]),
            v([0.0, 1.0, 0.0], [0.5, 0.25]),
            v([0.0, 1.0, 0.0], [0.5, -0.0 + 0.5]),
        ];
        let rep = weld(&Mesh { vertices: &verts });
        assert_eq!(rep, vec![0, 0, 2, 0]);
    }

    #[test]
    fn normalize_matches_the_reference_and_survives_underflow() {
        // 1 / |(3, 4, 0)| = 0.2 in float, times each component.
        assert_eq!(
            normalize(Vec3::new(3.0, 4.0, 0.0)).to_array(),
            [3.0 * 0.2f32, 4.0 * 0.2f32, 0.0]
        );
        // |v|² underflows to 0 for components near 1e-30: scaled first, it is (0.6, 0.8, 0).
        let n = normalize(Vec3::new(3e-30, 4e-30, 0.0));
        assert!((n[0] - 0.6).abs() < 1e-6 && (n[1] - 0.8).abs() < 1e-6 && n[2] == 0.0);
    }
}
