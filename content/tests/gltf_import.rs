//! GLB import over every real file in `../shared/fixtures/gltf` (read in place; when the
//! folder is absent the fixture tests print a line and pass), plus hand-built files for
//! every refusal, every color encoding, the UV lanes and the map build's exclusions.
//!
//! Expectations come from the file itself through a small reader written here, independent
//! of the importer (its own chunk split and accessor decode; only the JSON text parser is
//! shared), or were worked out by hand (noted beside each).

use std::collections::BTreeSet;
use std::path::PathBuf;

use dh_content::diag::Severity;
use dh_content::gltf::{
    geometry_report, import_glb, import_glb_with, import_pieces, ChannelPath, GlbErrorKind,
    ImportOptions, ImportWarning, Model, Piece, Purpose,
};
use dh_content::jsonc::{self, Value};
use dh_content::mesh::{pack_basis, unpack_basis};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf")
}

/// Every fixture GLB, sorted; `None` (with a printed line) when the folder is absent.
fn fixture_files() -> Option<Vec<(String, Vec<u8>)>> {
    let d = fixtures();
    let Ok(rd) = std::fs::read_dir(&d) else {
        println!("skipping: the fixture folder {} is absent", d.display());
        return None;
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .collect();
    v.sort();
    Some(
        v.into_iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect(),
    )
}

fn fixture(name: &str) -> Option<Vec<u8>> {
    let p = fixtures().join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

fn object() -> ImportOptions {
    ImportOptions {
        purpose: Purpose::Object,
        ..ImportOptions::default()
    }
}

// ---------------------------------------------------------------------------------------
// An independent reader: the chunk split, the JSON, and accessors as plain numbers.

struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn open(bytes: &[u8]) -> Gltf {
    assert_eq!(&bytes[0..4], b"glTF");
    let jlen = u32le(bytes, 12) as usize;
    let json = jsonc::parse(std::str::from_utf8(&bytes[20..20 + jlen]).unwrap()).unwrap();
    let at = 20 + jlen;
    let bin = if at + 8 <= bytes.len() {
        let blen = u32le(bytes, at) as usize;
        bytes[at + 8..at + 8 + blen].to_vec()
    } else {
        Vec::new()
    };
    Gltf { json, bin }
}

fn num(v: &Value, k: &str) -> Option<usize> {
    v.get(k).and_then(|x| x.as_f64()).map(|n| n as usize)
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k).and_then(|x| x.as_array()).unwrap_or(&[])
}

impl Gltf {
    /// Accessor `i` as f64 per component (normalized integers scaled), `width` per element.
    fn read(&self, i: usize) -> (usize, Vec<f64>) {
        let a = &arr(&self.json, "accessors")[i];
        let width = match a.get("type").unwrap().as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            t => panic!("type {t}"),
        };
        let ct = num(a, "componentType").unwrap();
        let count = num(a, "count").unwrap();
        let norm = matches!(
            a.get("normalized").map(|v| &v.kind),
            Some(jsonc::Kind::Bool(true))
        );
        let size = match ct {
            5121 | 5120 => 1,
            5123 | 5122 => 2,
            _ => 4,
        };
        let mut out = vec![0.0; count * width];
        if let Some(bv) = num(a, "bufferView") {
            let v = &arr(&self.json, "bufferViews")[bv];
            let base = num(v, "byteOffset").unwrap_or(0) + num(a, "byteOffset").unwrap_or(0);
            let stride = num(v, "byteStride").unwrap_or(size * width);
            for e in 0..count {
                for k in 0..width {
                    let at = base + e * stride + k * size;
                    let b = &self.bin[at..at + size];
                    out[e * width + k] = match ct {
                        5126 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                        5125 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
                        5123 => {
                            let x = u16::from_le_bytes(b.try_into().unwrap()) as f64;
                            if norm {
                                x / 65535.0
                            } else {
                                x
                            }
                        }
                        5121 => {
                            let x = b[0] as f64;
                            if norm {
                                x / 255.0
                            } else {
                                x
                            }
                        }
                        _ => panic!("component {ct}"),
                    };
                }
            }
        }
        (width, out)
    }

    /// The nodes the default scene reaches, depth first, parents first.
    fn traversal(&self) -> Vec<usize> {
        let scene = &arr(&self.json, "scenes")[num(&self.json, "scene").unwrap_or(0)];
        let mut out = Vec::new();
        let mut stack: Vec<usize> = arr(scene, "nodes")
            .iter()
            .rev()
            .map(|v| v.as_f64().unwrap() as usize)
            .collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            let node = &arr(&self.json, "nodes")[n];
            stack.extend(
                arr(node, "children")
                    .iter()
                    .rev()
                    .map(|v| v.as_f64().unwrap() as usize),
            );
        }
        out
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn angle_degrees(a: [f32; 3], b: [f32; 3]) -> f64 {
    let a = a.map(f64::from);
    let b = b.map(f64::from);
    let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
        .sqrt()
        .atan2(d)
        .to_degrees()
}

// ---------------------------------------------------------------------------------------
// Hand-built GLBs.

/// A GLB of `json` and `bin` (each padded to 4 bytes).
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() & 3 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() & 3 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(0x4E4F534Au32.to_le_bytes());
    out.extend(j);
    if !b.is_empty() {
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(0x004E4942u32.to_le_bytes());
        out.extend(b);
    }
    out
}

/// Builds buffer views and accessors over one BIN chunk.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<String>,
    accessors: Vec<String>,
}

impl Bin {
    fn push(
        &mut self,
        data: &[u8],
        component: u32,
        ty: &str,
        count: usize,
        normalized: bool,
    ) -> usize {
        while self.bytes.len() & 3 != 0 {
            self.bytes.push(0);
        }
        self.views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            self.bytes.len(),
            data.len()
        ));
        self.bytes.extend_from_slice(data);
        self.accessors.push(format!(
            r#"{{"bufferView":{},"componentType":{component},"type":"{ty}","count":{count}{}}}"#,
            self.views.len() - 1,
            if normalized {
                r#","normalized":true"#
            } else {
                ""
            }
        ));
        self.accessors.len() - 1
    }
    fn f32s(&mut self, v: &[f32], ty: &str, width: usize) -> usize {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&b, 5126, ty, v.len() / width, false)
    }
    fn u8s(&mut self, v: &[u8], ty: &str, width: usize, normalized: bool) -> usize {
        self.push(v, 5121, ty, v.len() / width, normalized)
    }
    fn u16s(&mut self, v: &[u16], ty: &str, width: usize, normalized: bool) -> usize {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&b, 5123, ty, v.len() / width, normalized)
    }
    fn u32s(&mut self, v: &[u32]) -> usize {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&b, 5125, "SCALAR", v.len(), false)
    }
    /// The whole file: `meshes` and `nodes` as JSON arrays' insides, one scene of `roots`.
    fn file(&self, meshes: &str, nodes: &str, roots: &str, extra: &str) -> Vec<u8> {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"meshes":[{meshes}],"nodes":[{nodes}],"scenes":[{{"nodes":[{roots}]}}],"scene":0{extra}}}"#,
            self.bytes.len(),
            self.views.join(","),
            self.accessors.join(",")
        );
        glb(&json, &self.bytes)
    }
}

const TRI: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];

/// One triangle node with `attrs` (extra attribute JSON) and `prim` (extra primitive JSON).
fn one_triangle(b: &mut Bin, attrs: &str, prim: &str) -> Vec<u8> {
    let p = b.f32s(&TRI, "VEC3", 3);
    let i = b.u32s(&[0, 1, 2]);
    b.file(
        &format!(r#"{{"name":"tri","primitives":[{{"attributes":{{"POSITION":{p}{attrs}}},"indices":{i}{prim}}}]}}"#),
        r#"{"name":"T","mesh":0}"#,
        "0",
        "",
    )
}

// ---------------------------------------------------------------------------------------

#[test]
fn every_fixture_imports_or_is_refused_with_the_spec_error() {
    let Some(files) = fixture_files() else { return };
    assert!(files.len() >= 15, "only {} fixtures", files.len());
    let skinned_only = ["CesiumMan.glb", "Fox.glb", "RiggedSimple.glb"];
    for (name, bytes) in &files {
        let map = import_glb(bytes, name);
        let obj = import_glb_with(bytes, name, &object());
        if name == "Box_Draco.glb" {
            for r in [&map, &obj] {
                let e = r.as_ref().unwrap_err();
                assert_eq!(
                    e.kind,
                    GlbErrorKind::Compressed("KHR_draco_mesh_compression".into())
                );
                assert!(e
                    .to_string()
                    .starts_with("Box_Draco.glb: the file requires KHR_draco_mesh_compression"));
            }
            let lines = geometry_report(map.as_ref(), &BTreeSet::new());
            assert_eq!(lines.len(), 1);
            assert_eq!(lines[0].0, Severity::Error);
            assert!(
                lines[0]
                    .1
                    .starts_with("geometry: this map would fail to load"),
                "{}",
                lines[0].1
            );
            continue;
        }
        let obj = obj.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(obj.triangle_count() > 0, "{name}");
        if skinned_only.contains(&name.as_str()) {
            // A map of nothing but skinned nodes still errors: the build would be empty.
            let e = map.unwrap_err();
            assert!(
                matches!(e.kind, GlbErrorKind::OnlySkinned(ref n) if !n.is_empty()),
                "{name}: {e}"
            );
        } else {
            let m = map.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(m.triangle_count(), obj.triangle_count(), "{name}");
        }
    }
}

/// Every vertex of every primitive against the accessors, read independently.
#[test]
fn vertex_data_matches_the_gltf_accessors() {
    let Some(files) = fixture_files() else { return };
    let mut checked = 0usize;
    for (name, bytes) in &files {
        if name == "Box_Draco.glb" {
            continue;
        }
        let model = import_glb_with(bytes, name, &object()).unwrap();
        let g = open(bytes);
        let order = g.traversal();
        assert_eq!(order.len(), model.nodes.len(), "{name}: node count");
        for (k, n) in order.iter().enumerate() {
            let gnode = &arr(&g.json, "nodes")[*n];
            let node = &model.nodes[k];
            assert_eq!(
                node.name,
                gnode.get("name").and_then(|v| v.as_str()).unwrap_or(""),
                "{name}"
            );
            let Some(gm) = num(gnode, "mesh") else {
                assert!(node.mesh.is_none());
                continue;
            };
            let mesh = &model.meshes[node.mesh.unwrap()];
            let gmesh = &arr(&g.json, "meshes")[gm];
            for (p, gp) in arr(gmesh, "primitives").iter().enumerate() {
                let prim = &mesh.primitives[p];
                let attrs = gp.get("attributes").unwrap();
                let (_, pos) = g.read(num(attrs, "POSITION").unwrap());
                let indices: Vec<usize> = match num(gp, "indices") {
                    Some(i) => g.read(i).1.iter().map(|x| *x as usize).collect(),
                    None => (0..pos.len() / 3).collect(),
                };
                // Without NORMAL the primitive is unwelded: vertex j is corner j.
                let welded = num(attrs, "NORMAL").is_some();
                let src = |j: usize| if welded { j } else { indices[j] };
                if welded {
                    assert_eq!(
                        prim.indices.iter().map(|i| *i as usize).collect::<Vec<_>>(),
                        indices,
                        "{name}"
                    );
                    assert_eq!(prim.vertices.len(), pos.len() / 3, "{name}");
                } else {
                    assert_eq!(prim.vertices.len(), indices.len(), "{name}");
                }
                let uv_keys = attrs
                    .as_object()
                    .unwrap()
                    .iter()
                    .filter(|m| m.key.starts_with("TEXCOORD_"))
                    .count();
                assert_eq!(prim.uv_sets as usize, uv_keys.min(4), "{name}");
                let uvs: Vec<Option<Vec<f64>>> = (0..4)
                    .map(|s| num(attrs, &format!("TEXCOORD_{s}")).map(|i| g.read(i).1))
                    .collect();
                let nrm = num(attrs, "NORMAL").map(|i| g.read(i).1);
                let tan = num(attrs, "TANGENT").map(|i| g.read(i).1);
                assert_eq!(prim.tangents_authored, tan.is_some());
                for (j, v) in prim.vertices.iter().enumerate() {
                    let s = src(j);
                    for a in 0..3 {
                        assert_eq!(v.position[a] as f64, pos[s * 3 + a], "{name} position");
                    }
                    for (lane, uv) in uvs.iter().enumerate() {
                        let got = [v.uv0, v.uv1, v.uv2, v.uv3][lane];
                        let want = uv
                            .as_ref()
                            .map(|u| [u[s * 2], u[s * 2 + 1]])
                            .unwrap_or([0.0; 2]);
                        assert_eq!([got[0] as f64, got[1] as f64], want, "{name} uv{lane}");
                    }
                    if let Some(n) = &nrm {
                        let l =
                            (n[s * 3].powi(2) + n[s * 3 + 1].powi(2) + n[s * 3 + 2].powi(2)).sqrt();
                        for a in 0..3 {
                            assert!(
                                close(v.normal[a] as f64, n[s * 3 + a] / l, 1e-6),
                                "{name} normal"
                            );
                        }
                    }
                    if let Some(t) = &tan {
                        let l =
                            (t[s * 4].powi(2) + t[s * 4 + 1].powi(2) + t[s * 4 + 2].powi(2)).sqrt();
                        for a in 0..3 {
                            assert!(
                                close(v.tangent[a] as f64, t[s * 4 + a] / l, 1e-6),
                                "{name} tangent"
                            );
                        }
                        assert_eq!(
                            v.tangent[3] as f64,
                            t[s * 4 + 3].signum(),
                            "{name} handedness"
                        );
                    }
                    // Whatever the source, the basis is unit length and w is ±1.
                    let nl = v.normal.iter().map(|x| x * x).sum::<f32>().sqrt();
                    let tl = v.tangent[..3].iter().map(|x| x * x).sum::<f32>().sqrt();
                    assert!((nl - 1.0).abs() < 1e-4 && (tl - 1.0).abs() < 1e-4, "{name}");
                    assert!(v.tangent[3] == 1.0 || v.tangent[3] == -1.0);
                    checked += 1;
                }
                match num(attrs, "COLOR_0") {
                    Some(i) => {
                        let (w, c) = g.read(i);
                        let all_white = c.iter().all(|x| *x == 1.0);
                        assert_eq!(prim.color0.is_none(), all_white, "{name}");
                        if let Some(got) = &prim.color0 {
                            for (j, rgba) in got.iter().enumerate() {
                                let s = src(j);
                                for a in 0..w {
                                    assert!(
                                        close(rgba[a] as f64, c[s * w + a], 1e-6),
                                        "{name} color"
                                    );
                                }
                                if w == 3 {
                                    assert_eq!(rgba[3], 1.0);
                                }
                            }
                        }
                    }
                    None => assert!(prim.color0.is_none()),
                }
            }
        }
    }
    if !files.is_empty() {
        assert!(checked > 100_000, "only {checked} vertices checked");
    }
}

#[test]
fn vertex_color_fixtures_carry_color0() {
    for name in ["VertexColorTest.glb", "BoxVertexColors.glb"] {
        let Some(b) = fixture(name) else { return };
        let m = import_glb(&b, name).unwrap();
        let with: Vec<_> = m
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .filter(|p| p.color0.is_some())
            .collect();
        assert!(!with.is_empty(), "{name} has a non-white COLOR_0");
        for p in with {
            let c = p.vertex_colors().unwrap();
            assert_eq!(c.len(), p.vertices.len());
            assert!(c.iter().all(|c| c.color1 == [0.0; 4]));
        }
    }
}

/// Octahedral packing of every imported basis round-trips within the spec's bound: under
/// a twentieth of a degree, the handedness exact.
#[test]
fn imported_bases_round_trip_through_octahedral_packing() {
    let Some(files) = fixture_files() else { return };
    let mut worst = 0.0f64;
    let mut n = 0usize;
    for (name, bytes) in &files {
        let Ok(m) = import_glb_with(bytes, name, &object()) else {
            continue;
        };
        for v in m
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .flat_map(|p| &p.vertices)
        {
            let (nn, tt) = unpack_basis(pack_basis(v.normal, v.tangent));
            worst = worst.max(angle_degrees(v.normal, nn));
            worst = worst.max(angle_degrees(
                [v.tangent[0], v.tangent[1], v.tangent[2]],
                [tt[0], tt[1], tt[2]],
            ));
            assert_eq!(tt[3], v.tangent[3], "{name}: handedness");
            n += 1;
        }
    }
    if n > 0 {
        assert!(
            worst < 1.0 / 20.0,
            "worst {worst} degrees over {n} vertices"
        );
    }
}

/// Agreement of derived tangents with authored ones over one model: the file is re-saved
/// without its TANGENT members and imported again, vertex for vertex.
struct Agreement {
    /// Every vertex.
    total: usize,
    /// Vertices every triangle around which has a non-zero UV area and a non-zero area.
    healthy: usize,
    /// Healthy vertices whose handedness matches.
    same_w: usize,
    /// Healthy vertices whose direction is within 1 and within 3 degrees.
    within_1: usize,
    within_3: usize,
    /// The widest angle over healthy vertices, in degrees.
    worst: f64,
    /// Every vertex (healthy or not) whose handedness and direction (3 degrees) match.
    all_agree: usize,
}

fn agreement(name: &str, bytes: &[u8]) -> Agreement {
    let authored = import_glb_with(bytes, name, &object()).unwrap();
    let g = open(bytes);
    let text = g.json.to_json();
    let stripped = strip_tangent(&text);
    assert_ne!(stripped, text, "{name} authors no TANGENT");
    let derived = import_glb_with(&glb(&stripped, &g.bin), name, &object()).unwrap();
    let mut r = Agreement {
        total: 0,
        healthy: 0,
        same_w: 0,
        within_1: 0,
        within_3: 0,
        worst: 0.0,
        all_agree: 0,
    };
    for (ma, md) in authored.meshes.iter().zip(&derived.meshes) {
        for (pa, pd) in ma.primitives.iter().zip(&md.primitives) {
            assert!(pa.tangents_authored && !pd.tangents_authored, "{name}");
            assert_eq!(pa.vertices.len(), pd.vertices.len(), "{name}");
            // A vertex is healthy when no triangle around it is degenerate in UV or space
            // (f64 areas from the imported data, independent of the derivation).
            let mut healthy = vec![true; pd.vertices.len()];
            for t in pd.indices.chunks_exact(3) {
                let v = [0, 1, 2].map(|k| &pd.vertices[t[k] as usize]);
                let uv = v.map(|x| x.uv0.map(f64::from));
                let p = v.map(|x| x.position.map(f64::from));
                let uv_area = (uv[1][0] - uv[0][0]) * (uv[2][1] - uv[0][1])
                    - (uv[2][0] - uv[0][0]) * (uv[1][1] - uv[0][1]);
                let e1 = [0, 1, 2].map(|a| p[1][a] - p[0][a]);
                let e2 = [0, 1, 2].map(|a| p[2][a] - p[0][a]);
                let c = [
                    e1[1] * e2[2] - e1[2] * e2[1],
                    e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0],
                ];
                let area = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
                if uv_area.abs() < 1e-12 || area < 1e-12 {
                    for k in t {
                        healthy[*k as usize] = false;
                    }
                }
            }
            for ((a, d), ok) in pa.vertices.iter().zip(&pd.vertices).zip(healthy) {
                r.total += 1;
                let ang = angle_degrees(
                    [a.tangent[0], a.tangent[1], a.tangent[2]],
                    [d.tangent[0], d.tangent[1], d.tangent[2]],
                );
                let same_w = a.tangent[3] == d.tangent[3];
                r.all_agree += usize::from(same_w && ang < 3.0);
                if ok {
                    r.healthy += 1;
                    r.same_w += usize::from(same_w);
                    r.within_1 += usize::from(ang < 1.0);
                    r.within_3 += usize::from(ang < 3.0);
                    r.worst = r.worst.max(ang);
                }
            }
        }
    }
    let pc = |x: usize, of: usize| 100.0 * x as f64 / of.max(1) as f64;
    println!(
        "{name}: {} vertices, {} with healthy UVs; on those: handedness {:.2}%, within 1 degree {:.2}%, \
         within 3 degrees {:.2}%, worst {:.3} degrees; over every vertex both agree on {:.2}%",
        r.total,
        r.healthy,
        pc(r.same_w, r.healthy),
        pc(r.within_1, r.healthy),
        pc(r.within_3, r.healthy),
        r.worst,
        pc(r.all_agree, r.total),
    );
    r
}

/// MikkTSpace tangents agree with the ones Blender's exporter wrote (MikkTSpace in
/// Blender) on the model built to test exactly this, mirrored UVs included: every vertex
/// whose triangles all have UV area gets the authored handedness and a direction within 3
/// degrees (measured: all 2,770 vertices, the widest 0.003 degrees). The other fixtures
/// that author tangents are measured and printed only: MultiUVTest.glb's cube carries
/// tangents that run against its own TEXCOORD_0 on three faces (its +X face's U grows along
/// +Z but its tangent is -Z), so no derivation from the UVs agrees there; VertexColorTest.glb
/// has one quad (normal -Z, counter-clockwise UVs, tangent +X) whose authored `w = +1` puts
/// the bitangent toward increasing V, against glTF's convention; AnimatedMorphCube.glb has
/// no TEXCOORD_0, so every vertex takes the default space.
#[test]
fn mikktspace_tangents_agree_with_the_authored_ones() {
    if let Some(bytes) = fixture("NormalTangentMirrorTest.glb") {
        let r = agreement("NormalTangentMirrorTest.glb", &bytes);
        assert!(r.healthy * 10 >= r.total * 9, "too few healthy vertices");
        assert_eq!(r.same_w, r.healthy, "handedness");
        assert_eq!(
            r.within_3, r.healthy,
            "direction (worst {} degrees)",
            r.worst
        );
    }
    for name in [
        "VertexColorTest.glb",
        "AnimatedMorphCube.glb",
        "MultiUVTest.glb",
    ] {
        if let Some(bytes) = fixture(name) {
            agreement(name, &bytes);
        }
    }
}

/// The corners of a unit quad in the z = 0 plane: (0,0), (1,0), (1,1), (0,1).
const QUAD: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];

/// A GLB of [`QUAD`] as the triangles `tris` (counter-clockwise seen from +Z), with NORMAL
/// +Z when `normals` and TEXCOORD_0 `uv` per corner when given; imported as an object.
fn quad_vertices(uv: Option<[[f32; 2]; 4]>, normals: bool, tris: [u32; 6]) -> Vec<[f32; 4]> {
    let mut b = Bin::default();
    let p = b.f32s(&QUAD, "VEC3", 3);
    let mut attrs = format!(r#""POSITION":{p}"#);
    if normals {
        let n = b.f32s(&[0.0, 0.0, 1.0].repeat(4), "VEC3", 3);
        attrs += &format!(r#","NORMAL":{n}"#);
    }
    if let Some(uv) = uv {
        let t = b.f32s(uv.as_flattened(), "VEC2", 2);
        attrs += &format!(r#","TEXCOORD_0":{t}"#);
    }
    let i = b.u32s(&tris);
    let bytes = b.file(
        &format!(r#"{{"name":"quad","primitives":[{{"attributes":{{{attrs}}},"indices":{i}}}]}}"#),
        r#"{"name":"Q","mesh":0}"#,
        "0",
        "",
    );
    let m = import_glb_with(&bytes, "quad.glb", &object()).unwrap();
    let prim = &m.meshes[0].primitives[0];
    assert!(!prim.tangents_authored);
    prim.vertices.iter().map(|v| v.tangent).collect()
}

fn assert_tangent(got: [f32; 4], want: [f32; 4], what: &str) {
    for a in 0..3 {
        assert!(
            (got[a] - want[a]).abs() < 1e-6,
            "{what}: {got:?}, want {want:?}"
        );
    }
    assert_eq!(got[3], want[3], "{what}: handedness of {got:?}");
}

/// A quad whose tangent is known by hand. glTF's V runs down the image, so with U along +X
/// and V growing toward -Y the tangent is +X and the bitangent `cross(n, t) * w` must point
/// up the image (+Y): `cross(+Z, +X) = +Y`, so `w = +1`. Mirroring U makes the tangent -X;
/// `cross(+Z, -X) = -Y`, so `w = -1`. Without NORMAL the quad's flat normal (+Z, the
/// winding's) comes first and gives the same frame; without TEXCOORD_0 every vertex gets
/// MikkTSpace's default, +X made perpendicular to the normal, `w = +1`.
#[test]
fn a_hand_made_quad_gets_the_tangent_worked_out_by_hand() {
    let tris = [0, 1, 2, 0, 2, 3];
    let uv = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
    let mirrored = uv.map(|[u, v]| [1.0 - u, v]);
    for t in quad_vertices(Some(uv), true, tris) {
        assert_tangent(t, [1.0, 0.0, 0.0, 1.0], "U along +X");
    }
    for t in quad_vertices(Some(mirrored), true, tris) {
        assert_tangent(t, [-1.0, 0.0, 0.0, -1.0], "U mirrored");
    }
    let flat = quad_vertices(Some(uv), false, tris);
    assert_eq!(flat.len(), 6, "unwelded for flat normals");
    for t in flat {
        assert_tangent(t, [1.0, 0.0, 0.0, 1.0], "flat normals");
    }
    for t in quad_vertices(None, true, tris) {
        assert_tangent(t, [1.0, 0.0, 0.0, 1.0], "no TEXCOORD_0");
    }
}

/// MikkTSpace's own fallback for zero UV area: triangle A (0, 1, 2) maps U along +Y and V
/// along +X (so the tangent is +Y, and up the image is -X = `cross(+Z, +Y)`, `w = +1`);
/// triangle B (0, 2, 3) has its three UVs on one line, so it has no tangent of its own. Its
/// corners at vertices 0 and 2 join A's groups (MikkTSpace's "group with anything") and
/// take A's tangent; vertex 3, which only B reaches, keeps MikkTSpace's default space, +X
/// with `w = +1`.
#[test]
fn zero_area_uvs_take_mikktspace_fallback() {
    let uv = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]];
    let t = quad_vertices(Some(uv), true, [0, 1, 2, 0, 2, 3]);
    for v in [0, 1, 2] {
        assert_tangent(t[v], [0.0, 1.0, 0.0, 1.0], &format!("vertex {v}"));
    }
    assert_tangent(t[3], [1.0, 0.0, 0.0, 1.0], "vertex 3");
}

/// A 24 × 24 grid with height, its left half's U mirrored and a few zero-area UV cells.
fn tangent_grid() -> Vec<u8> {
    let n = 24usize;
    let side = n + 1;
    let (mut pos, mut nrm, mut uv) = (Vec::new(), Vec::new(), Vec::new());
    for y in 0..side {
        for x in 0..side {
            let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
            let h = 0.1 * (fx * 7.0).sin() * (fy * 5.0).cos();
            pos.extend([fx, h, fy]);
            let l = (1.0 + h * h).sqrt();
            nrm.extend([h / l, 1.0 / l, 0.0]);
            let u = if x < side / 2 { 1.0 - fx } else { fx };
            let v = if (x + y) % 11 == 0 { 0.5 } else { fy };
            uv.extend([u, v]);
        }
    }
    let mut idx = Vec::new();
    for y in 0..n as u32 {
        for x in 0..n as u32 {
            let a = y * side as u32 + x;
            let c = a + side as u32;
            idx.extend([a, c, a + 1, a + 1, c, c + 1]);
        }
    }
    let mut b = Bin::default();
    let p = b.f32s(&pos, "VEC3", 3);
    let nm = b.f32s(&nrm, "VEC3", 3);
    let t = b.f32s(&uv, "VEC2", 2);
    let i = b.u32s(&idx);
    b.file(
        &format!(
            r#"{{"name":"grid","primitives":[{{"attributes":{{"POSITION":{p},"NORMAL":{nm},"TEXCOORD_0":{t}}},"indices":{i}}}]}}"#
        ),
        r#"{"name":"G","mesh":0}"#,
        "0",
        "",
    )
}

/// Derived tangents are a function of the input: two imports give bit-identical tangents
/// (a generated grid with mirrored and zero-area UVs, and the fixtures without their
/// TANGENT when present).
#[test]
fn derived_tangents_are_bit_identical_across_imports() {
    let mut inputs = vec![("grid.glb".to_string(), tangent_grid())];
    for name in ["NormalTangentMirrorTest.glb", "Duck.glb"] {
        if let Some(bytes) = fixture(name) {
            let g = open(&bytes);
            inputs.push((
                name.to_string(),
                glb(&strip_tangent(&g.json.to_json()), &g.bin),
            ));
        }
    }
    let bits = |bytes: &[u8], name: &str| -> Vec<[u32; 4]> {
        let m = import_glb_with(bytes, name, &object()).unwrap();
        m.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .inspect(|p| assert!(!p.tangents_authored, "{name}"))
            .flat_map(|p| &p.vertices)
            .map(|v| v.tangent.map(f32::to_bits))
            .collect()
    };
    for (name, bytes) in &inputs {
        let a = bits(bytes, name);
        assert!(!a.is_empty());
        assert_eq!(a, bits(bytes, name), "{name}");
    }
}

fn strip_tangent(json: &str) -> String {
    // Every `"TANGENT":<n>,` / `,"TANGENT":<n>` member of an attributes object.
    let mut out = json.to_string();
    while let Some(at) = out.find("\"TANGENT\":") {
        let mut end = at + "\"TANGENT\":".len();
        let b = out.as_bytes();
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if out.as_bytes().get(end) == Some(&b',') {
            out.replace_range(at..end + 1, "");
        } else if at > 0 && out.as_bytes()[at - 1] == b',' {
            out.replace_range(at - 1..end, "");
        } else {
            out.replace_range(at..end, "");
        }
    }
    out
}

#[test]
fn refusals_name_the_spec_errors() {
    let p = |b: &mut Bin| b.f32s(&TRI, "VEC3", 3);
    // A primitive that is not TRIANGLES.
    let mut b = Bin::default();
    let e = import_glb(&one_triangle(&mut b, "", r#","mode":1"#), "lines.glb").unwrap_err();
    assert!(
        matches!(
            e.kind,
            GlbErrorKind::NotTriangles {
                mode: 1,
                name: "LINES",
                ..
            }
        ),
        "{e}"
    );
    // No POSITION.
    let mut b = Bin::default();
    let n = b.f32s(&TRI, "VEC3", 3);
    let f = b.file(
        &format!(r#"{{"primitives":[{{"attributes":{{"NORMAL":{n}}}}}]}}"#),
        r#"{"mesh":0}"#,
        "0",
        "",
    );
    assert!(matches!(
        import_glb(&f, "x").unwrap_err().kind,
        GlbErrorKind::NoPosition { .. }
    ));
    // Counts that disagree with POSITION, for each attribute the report names.
    for (attr, data, ty, w) in [
        ("NORMAL", vec![0.0f32; 6], "VEC3", 3),
        ("TEXCOORD_0", vec![0.0; 4], "VEC2", 2),
        ("TANGENT", vec![0.0; 8], "VEC4", 4),
        ("COLOR_0", vec![0.5; 8], "VEC4", 4),
        ("COLOR_1", vec![0.5; 6], "VEC3", 3),
    ] {
        let mut b = Bin::default();
        let a = b.f32s(&data, ty, w);
        let e =
            import_glb(&one_triangle(&mut b, &format!(r#","{attr}":{a}"#), ""), "x").unwrap_err();
        assert_eq!(
            e.kind,
            GlbErrorKind::CountMismatch {
                place: "meshes[0] 'tri' primitives[0]".into(),
                attribute: attr.into(),
                count: 2,
                positions: 3
            }
        );
    }
    // An index past the vertices.
    let mut b = Bin::default();
    let pa = p(&mut b);
    let i = b.u16s(&[0, 1, 3], "SCALAR", 1, false);
    let f = b.file(
        &format!(r#"{{"primitives":[{{"attributes":{{"POSITION":{pa}}},"indices":{i}}}]}}"#),
        r#"{"mesh":0}"#,
        "0",
        "",
    );
    let e = import_glb(&f, "x").unwrap_err();
    assert!(
        matches!(
            e.kind,
            GlbErrorKind::IndexOutOfRange {
                index: 3,
                at: 2,
                vertices: 3,
                ..
            }
        ),
        "{e}"
    );
    // Compression and quantization, when required.
    for ext in [
        "EXT_meshopt_compression",
        "KHR_mesh_quantization",
        "KHR_draco_mesh_compression",
    ] {
        let mut b = Bin::default();
        let pa = p(&mut b);
        let f = b.file(
            &format!(r#"{{"primitives":[{{"attributes":{{"POSITION":{pa}}}}}]}}"#),
            r#"{"mesh":0}"#,
            "0",
            &format!(r#","extensionsUsed":["{ext}"],"extensionsRequired":["{ext}"]"#),
        );
        assert_eq!(
            import_glb(&f, "x").unwrap_err().kind,
            GlbErrorKind::Compressed(ext.into())
        );
    }
    // No scene.
    let f = glb(r#"{"asset":{"version":"2.0"}}"#, &[]);
    let e = import_glb(&f, "empty.glb").unwrap_err();
    assert_eq!(e.kind, GlbErrorKind::NoScene);
    let lines = geometry_report(Err(&e), &BTreeSet::new());
    assert_eq!(
        lines,
        vec![(
            Severity::Error,
            format!("geometry: this map would fail to load: {e}")
        )]
    );
    // A container that does not parse is left to the autoCollision baker: no line.
    let e = import_glb(b"not a glb at all", "junk.glb").unwrap_err();
    assert!(matches!(e.kind, GlbErrorKind::Container(_)));
    assert!(geometry_report(Err(&e), &BTreeSet::new()).is_empty());
    // Truncation anywhere is an error, never a panic.
    let mut b = Bin::default();
    let full = one_triangle(&mut b, "", "");
    for cut in 0..full.len() {
        assert!(import_glb(&full[..cut], "cut").is_err(), "cut at {cut}");
    }
    assert!(import_glb(&full, "whole").is_ok());
}

/// Spec 001, "Vertex colors": a map whose materials read no `detail.vertexWeight` never
/// allocates COLOR_1; `ImportOptions::color1: false` leaves the attribute unread (even a
/// malformed one, which the default read refuses), while COLOR_0 is read as ever.
#[test]
fn color1_is_unread_when_the_caller_does_not_keep_it() {
    let mut b = Bin::default();
    let c0 = b.f32s(&[0.5, 0.25, 1.0, 0.5, 0.25, 1.0, 0.5, 0.25, 1.0], "VEC3", 3);
    let c1 = b.u8s(&[255, 0, 0, 255, 0, 0, 255, 0, 0], "VEC3", 3, true);
    let glb = one_triangle(&mut b, &format!(r#","COLOR_0":{c0},"COLOR_1":{c1}"#), "");
    let kept = import_glb(&glb, "c").unwrap();
    let p = &kept.meshes[0].primitives[0];
    assert_eq!(p.color1.as_ref().unwrap()[0], [1.0, 0.0, 0.0, 1.0]);
    let opts = ImportOptions {
        color1: false,
        ..ImportOptions::default()
    };
    let dropped = import_glb_with(&glb, "c", &opts).unwrap();
    let q = &dropped.meshes[0].primitives[0];
    assert!(q.color1.is_none());
    assert_eq!(q.color0, p.color0);
    assert_eq!(q.vertices, p.vertices);
    // A COLOR_1 of the wrong width is refused when read, and never looked at when not.
    let mut b = Bin::default();
    let bad = b.f32s(&[0.5; 6], "VEC2", 2);
    let glb = one_triangle(&mut b, &format!(r#","COLOR_1":{bad}"#), "");
    assert!(import_glb(&glb, "c").is_err());
    let m = import_glb_with(&glb, "c", &opts).unwrap();
    assert!(m.meshes[0].primitives[0].vertex_colors().is_none());
}

#[test]
fn colors_read_in_every_encoding_and_defaults_are_absent() {
    // COLOR_0 unorm8 VEC3, all 255: white everywhere, absent. COLOR_1 unorm16 VEC4: kept.
    let mut b = Bin::default();
    let c0 = b.u8s(&[255; 9], "VEC3", 3, true);
    let c1 = b.u16s(
        &[65535, 0, 32768, 65535, 0, 0, 0, 0, 13107, 0, 0, 0],
        "VEC4",
        4,
        true,
    );
    let m = import_glb(
        &one_triangle(&mut b, &format!(r#","COLOR_0":{c0},"COLOR_1":{c1}"#), ""),
        "c",
    )
    .unwrap();
    let p = &m.meshes[0].primitives[0];
    assert!(p.color0.is_none());
    let c1v = p.color1.as_ref().unwrap();
    assert_eq!(c1v[0], [1.0, 0.0, 32768.0 / 65535.0, 1.0]);
    assert_eq!(c1v[2], [13107.0 / 65535.0, 0.0, 0.0, 0.0]);
    let vc = p.vertex_colors().unwrap();
    assert_eq!(vc[1].color0, [1.0; 4]);
    // COLOR_0 float VEC4 kept verbatim; COLOR_1 zero everywhere is absent.
    let mut b = Bin::default();
    let c0 = b.f32s(
        &[0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0],
        "VEC4",
        4,
    );
    let c1 = b.u8s(&[0; 12], "VEC4", 4, true);
    let m = import_glb(
        &one_triangle(&mut b, &format!(r#","COLOR_0":{c0},"COLOR_1":{c1}"#), ""),
        "c",
    )
    .unwrap();
    let p = &m.meshes[0].primitives[0];
    assert_eq!(p.color0.as_ref().unwrap()[0], [0.25, 0.5, 0.75, 1.0]);
    assert_eq!(p.color0.as_ref().unwrap()[1], [1.0, 1.0, 1.0, 0.5]);
    assert!(p.color1.is_none());
    // Neither set: no color stream at all.
    let mut b = Bin::default();
    let m = import_glb(&one_triangle(&mut b, "", ""), "c").unwrap();
    assert!(m.meshes[0].primitives[0].vertex_colors().is_none());
    // COLOR_0 unorm16 VEC3 off white: kept, alpha 1.
    let mut b = Bin::default();
    let c0 = b.u16s(&[65535, 0, 0, 0, 65535, 0, 0, 0, 65535], "VEC3", 3, true);
    let m = import_glb(
        &one_triangle(&mut b, &format!(r#","COLOR_0":{c0}"#), ""),
        "c",
    )
    .unwrap();
    assert_eq!(
        m.meshes[0].primitives[0].color0.as_ref().unwrap()[2],
        [0.0, 0.0, 1.0, 1.0]
    );
}

#[test]
fn five_uv_sets_read_four_verbatim_into_their_lanes() {
    let mut b = Bin::default();
    let mut attrs = String::new();
    for s in 0..5 {
        let v: Vec<f32> = (0..6).map(|k| (s * 10 + k) as f32 + 0.5).collect();
        let a = b.f32s(&v, "VEC2", 2);
        attrs.push_str(&format!(r#","TEXCOORD_{s}":{a}"#));
    }
    let m = import_glb(&one_triangle(&mut b, &attrs, ""), "uv").unwrap();
    let p = &m.meshes[0].primitives[0];
    assert_eq!(p.uv_sets, 4);
    let v = p.vertices[1];
    assert_eq!(v.uv0, [2.5, 3.5]);
    assert_eq!(v.uv1, [12.5, 13.5]);
    assert_eq!(v.uv2, [22.5, 23.5]);
    assert_eq!(v.uv3, [32.5, 33.5]);
    // One set: the rest are zero and the count says one. Unorm8 UVs are normalized.
    let mut b = Bin::default();
    let a = b.u8s(&[0, 255, 51, 102, 255, 0], "VEC2", 2, true);
    let m = import_glb(
        &one_triangle(&mut b, &format!(r#","TEXCOORD_0":{a}"#), ""),
        "uv",
    )
    .unwrap();
    let p = &m.meshes[0].primitives[0];
    assert_eq!(p.uv_sets, 1);
    assert_eq!(p.vertices[1].uv0, [0.2, 0.4]);
    assert_eq!(p.vertices[1].uv1, [0.0, 0.0]);
    // No NORMAL: flat normals (+Z for this counter-clockwise triangle in the XY plane).
    assert!(!p.normals_authored);
    assert!(p.vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
}

/// A scene of a static box, a node skinned only by its attributes (its skin binding lost),
/// and a morphed node; one animation.
fn mixed_scene() -> Vec<u8> {
    let mut b = Bin::default();
    let p = b.f32s(&TRI, "VEC3", 3);
    let j = b.u8s(&[0; 12], "VEC4", 4, false);
    let w = b.f32s(
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
        4,
    );
    let d = b.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3", 3);
    let t = b.f32s(&[0.0, 1.0], "SCALAR", 1);
    let moves = b.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3", 3);
    let meshes = format!(
        r#"{{"name":"static","primitives":[{{"attributes":{{"POSITION":{p}}},"material":0}}]}},
           {{"name":"skin","primitives":[{{"attributes":{{"POSITION":{p},"JOINTS_0":{j},"WEIGHTS_0":{w}}}}}]}},
           {{"name":"morph","primitives":[{{"attributes":{{"POSITION":{p}}},"targets":[{{"POSITION":{d}}}]}}],"weights":[0.5]}}"#
    );
    let nodes = r#"{"name":"box","mesh":0},{"name":"avatar","mesh":1},{"name":"face","mesh":2},{"name":"group","children":[0,1,2]}"#;
    let extra = format!(
        r#","materials":[{{"name":"grid"}}],"animations":[{{"name":"wave","channels":[{{"sampler":0,"target":{{"node":2,"path":"weights"}}}},{{"sampler":1,"target":{{"node":0,"path":"translation"}}}}],"samplers":[{{"input":{t},"output":{t}}},{{"input":{t},"output":{moves}}}]}}]"#
    );
    b.file(&meshes, nodes, "3", &extra)
}

#[test]
fn a_map_build_leaves_out_skins_ignores_morphs_and_reads_past_animations() {
    let bytes = mixed_scene();
    let m = import_glb(&bytes, "mixed.glb").unwrap();
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["group", "box", "avatar", "face"]);
    assert!(
        m.nodes[2].skinned && m.nodes[2].mesh.is_none(),
        "the skinned node draws nothing"
    );
    assert!(
        m.nodes[3].morph && m.nodes[3].mesh.is_some(),
        "the morphed node draws its base shape"
    );
    // The base shape, not the target's displacement.
    let face = &m.meshes[m.nodes[3].mesh.unwrap()].primitives[0];
    assert_eq!(face.vertices[1].position, [1.0, 0.0, 0.0]);
    assert_eq!(
        m.warnings,
        vec![
            ImportWarning::SkinnedLeftOut(vec!["group/avatar".into()]),
            ImportWarning::MorphTargetsIgnored(vec!["group/face".into()]),
            ImportWarning::AnimationsReadPast(vec![
                "wave/group/face.weights".into(),
                "wave/group/box.translation".into()
            ]),
        ]
    );
    let report = geometry_report(Ok(&m), &BTreeSet::new());
    let text: Vec<&str> = report.iter().map(|l| l.1.as_str()).collect();
    assert!(report.iter().all(|l| l.0 == Severity::Warning));
    assert!(
        text[0].starts_with("geometry: skinned nodes (1): 'group/avatar'"),
        "{}",
        text[0]
    );
    assert!(text[1].starts_with("geometry: morph targets (1 nodes): 'group/face'"));
    assert!(text[2].starts_with("geometry: animation tracks (2):"));
    // An object keeps the skinned mesh, at its bind pose.
    let o = import_glb_with(&bytes, "mixed.glb", &object()).unwrap();
    assert!(o.nodes[2].mesh.is_some());
    assert!(!o
        .warnings
        .iter()
        .any(|w| matches!(w, ImportWarning::SkinnedLeftOut(_))));
    // It reads what a map leaves out, so nothing is warned about: the weights (no skin
    // binding: the node has none), the target and its authored weight, and the clip.
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    let avatar = &o.meshes[o.nodes[2].mesh.unwrap()].primitives[0];
    let sw = avatar.skin.as_ref().unwrap();
    assert_eq!(sw.joints, vec![[0; 4]; 3]);
    assert_eq!(sw.weights[0], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(o.nodes[2].skin, None);
    let face = &o.meshes[o.nodes[3].mesh.unwrap()];
    assert_eq!(face.weights, vec![0.5]);
    assert_eq!(face.primitives[0].targets[0].position[1], [0.0, 0.0, 1.0]);
    assert_eq!(o.animations.len(), 1);
    let wave = &o.animations[0];
    assert_eq!(wave.name, "wave");
    // Nodes renumbered by the traversal: group 0, box 1, avatar 2, face 3.
    let targets: Vec<(usize, ChannelPath)> =
        wave.channels.iter().map(|c| (c.node, c.path)).collect();
    assert_eq!(
        targets,
        [(3, ChannelPath::Weights), (1, ChannelPath::Translation)]
    );
    assert_eq!(wave.channels[1].values, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(wave.duration(), 1.0);
}

/// The three skinned fixtures read the object loader's way: every skinned node keeps its
/// mesh at bind pose, its skin's joints and inverse bind matrices, JOINTS_0/WEIGHTS_0 per
/// vertex and the clips (counts from the files' own JSON, read by hand).
#[test]
fn skinned_fixtures_keep_skins_joints_and_clips_for_an_object() {
    // (file, joints, clips, the first clip's name)
    let cases = [
        ("CesiumMan.glb", 19, 1, "#0"),
        ("Fox.glb", 24, 3, "Survey"),
        ("RiggedSimple.glb", 2, 1, "#0"),
    ];
    for (name, joints, clips, first) in cases {
        let Some(bytes) = fixture(name) else { return };
        let m = import_glb_with(&bytes, name, &object()).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.warnings.is_empty(), "{name}: {:?}", m.warnings);
        let skinned: Vec<usize> = (0..m.nodes.len())
            .filter(|n| m.nodes[*n].skin.is_some())
            .collect();
        assert_eq!(skinned.len(), 1, "{name}");
        let n = &m.nodes[skinned[0]];
        assert!(n.skinned && n.mesh.is_some(), "{name}: the body draws");
        let skin = &m.skins[n.skin.unwrap()];
        assert_eq!(skin.joints.len(), joints, "{name}");
        assert_eq!(skin.inverse_bind.len(), joints, "{name}");
        assert!(
            skin.joints.iter().all(Option::is_some),
            "{name}: every joint reached"
        );
        for p in &m.meshes[n.mesh.unwrap()].primitives {
            let sw = p.skin.as_ref().unwrap();
            assert_eq!(sw.joints.len(), p.vertices.len(), "{name}");
            assert!(sw.joints.iter().flatten().all(|j| usize::from(*j) < joints));
            assert!(dh_content::gltf::pack_skinning(sw).is_some());
        }
        assert_eq!(m.animations.len(), clips, "{name}");
        assert_eq!(m.animations[0].name, first, "{name}");
        assert!(m.animations[0].duration() > 0.0);
        // A map build still leaves the body out (and reads no skin).
        let map = import_glb(&bytes, name);
        assert!(map.is_err() || map.as_ref().is_ok_and(|m| m.skins.is_empty()));
    }
}

/// JOINTS_0 without WEIGHTS_0, a joint count past POSITION's, and a skin naming a node past
/// the file: each an error naming the file and the place.
#[test]
fn broken_skins_are_refused_naming_the_place() {
    let mut b = Bin::default();
    let j = b.u8s(&[0; 12], "VEC4", 4, false);
    let bytes = one_triangle(&mut b, &format!(r#","JOINTS_0":{j}"#), "");
    let e = import_glb_with(&bytes, "lone.glb", &object())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("lone.glb:") && e.contains("WEIGHTS_0 beside JOINTS_0"),
        "{e}"
    );

    let mut b = Bin::default();
    let j = b.u8s(&[0; 16], "VEC4", 4, false);
    let w = b.f32s(&[1.0; 12], "VEC4", 4);
    let bytes = one_triangle(&mut b, &format!(r#","JOINTS_0":{j},"WEIGHTS_0":{w}"#), "");
    let e = import_glb_with(&bytes, "count.glb", &object()).unwrap_err();
    assert!(
        matches!(
            e.kind,
            GlbErrorKind::CountMismatch {
                count: 4,
                positions: 3,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn unbound_slots_are_reported_once_the_table_binds_anything() {
    let m = import_glb(&mixed_scene(), "mixed.glb").unwrap();
    assert_eq!(m.material_slots(), ["grid"]);
    let none = geometry_report(Ok(&m), &BTreeSet::new());
    assert!(!none.iter().any(|l| l.1.contains("material slots")));
    let other: BTreeSet<String> = ["floor".to_string()].into();
    let lines = geometry_report(Ok(&m), &other);
    assert!(lines.iter().any(|l| l.0 == Severity::Warning
        && l.1
            .starts_with("geometry: material slots with no 'materials' entry (1): 'grid'")));
    let bound: BTreeSet<String> = ["grid".to_string()].into();
    assert!(!geometry_report(Ok(&m), &bound)
        .iter()
        .any(|l| l.1.contains("material slots")));
}

/// A mesh of `good` unit triangles and `bad` zero-area ones (a repeated corner, or three
/// points on a line).
fn degenerate_mesh(good: usize, bad: usize) -> Vec<u8> {
    let mut b = Bin::default();
    let p = b.f32s(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0],
        "VEC3",
        3,
    );
    let mut idx = Vec::new();
    for _ in 0..good {
        idx.extend([0u32, 1, 2]);
    }
    for k in 0..bad {
        idx.extend(if k % 2 == 0 { [0u32, 1, 3] } else { [0, 0, 2] });
    }
    let i = b.u32s(&idx);
    b.file(
        &format!(
            r#"{{"name":"flat","primitives":[{{"attributes":{{"POSITION":{p}}},"indices":{i}}}]}}"#
        ),
        r#"{"mesh":0}"#,
        "0",
        "",
    )
}

#[test]
fn degenerate_triangles_are_named_only_past_both_thresholds() {
    let said = |good, bad| {
        let m = import_glb(&degenerate_mesh(good, bad), "d").unwrap();
        geometry_report(Ok(&m), &BTreeSet::new())
            .iter()
            .any(|l| l.1.starts_with("geometry: degenerate triangles"))
    };
    // 128 of 6400 is exactly 2%: named.
    assert!(said(6400 - 128, 128));
    // 127 is too few, whatever the share.
    assert!(!said(0, 127));
    // 128 of 6401 is under 2%.
    assert!(!said(6401 - 128, 128));
    let m = import_glb(&degenerate_mesh(100, 200), "d").unwrap();
    let line = geometry_report(Ok(&m), &BTreeSet::new()).pop().unwrap();
    assert_eq!(line.0, Severity::Warning);
    assert!(line.1.contains("'flat (200 of 300)'"), "{}", line.1);
}

#[test]
fn a_line_lists_twelve_names_and_counts_the_rest() {
    // Fifteen skinned nodes beside one static one.
    let mut b = Bin::default();
    let p = b.f32s(&TRI, "VEC3", 3);
    let j = b.u8s(&[0; 12], "VEC4", 4, false);
    let meshes = format!(
        r#"{{"primitives":[{{"attributes":{{"POSITION":{p}}}}}]}},{{"primitives":[{{"attributes":{{"POSITION":{p},"JOINTS_0":{j}}}}}]}}"#
    );
    let mut nodes = vec![r#"{"name":"static","mesh":0}"#.to_string()];
    for k in 0..15 {
        nodes.push(format!(r#"{{"name":"s{k:02}","mesh":1}}"#));
    }
    let roots: Vec<String> = (0..16).map(|k| k.to_string()).collect();
    let m = import_glb(
        &b.file(&meshes, &nodes.join(","), &roots.join(","), ""),
        "m",
    )
    .unwrap();
    let line = &geometry_report(Ok(&m), &BTreeSet::new())[0].1;
    assert!(
        line.starts_with("geometry: skinned nodes (15): 's00', 's01'"),
        "{line}"
    );
    assert!(line.contains("'s11' and 3 more;"), "{line}");
    assert!(!line.contains("'s12'"));
    // The load warning itself names every node.
    assert_eq!(m.warnings[0].names().len(), 15);
}

#[test]
fn a_folder_of_pieces_joins_as_one_model() {
    let piece = |node: &str, mat: &str| {
        let mut b = Bin::default();
        let p = b.f32s(&TRI, "VEC3", 3);
        b.file(
            &format!(r#"{{"primitives":[{{"attributes":{{"POSITION":{p}}},"material":0}}]}}"#),
            &format!(r#"{{"name":"{node}","mesh":0}}"#),
            "0",
            &format!(r#","materials":[{{"name":"{mat}"}}]"#),
        )
    };
    let a = piece("wall", "brick");
    let b = piece("wall", "brick");
    let c = piece("roof", "tile");
    let pieces = [
        Piece {
            name: "c.glb",
            bytes: &c,
        },
        Piece {
            name: "a.glb",
            bytes: &a,
        },
        Piece {
            name: "b.glb",
            bytes: &b,
        },
    ];
    let m = import_pieces("meshes/de_ancient", &pieces, &ImportOptions::default()).unwrap();
    // Path order; the second 'wall' is a sibling of the first, named as one file would.
    assert_eq!(m.node_paths(), ["wall", "wall.001", "roof"]);
    assert_eq!(m.material_slots(), ["brick", "tile"]);
    assert_eq!(m.triangle_count(), 3);
    // A piece with images (or skins, animations, ...) is refused.
    let bad = {
        let mut b = Bin::default();
        let p = b.f32s(&TRI, "VEC3", 3);
        b.file(
            &format!(r#"{{"primitives":[{{"attributes":{{"POSITION":{p}}}}}]}}"#),
            r#"{"mesh":0}"#,
            "0",
            r#","images":[{"uri":"x.png"}]"#,
        )
    };
    let e = import_pieces(
        "f",
        &[
            Piece {
                name: "a.glb",
                bytes: &a,
            },
            Piece {
                name: "z.glb",
                bytes: &bad,
            },
        ],
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, GlbErrorKind::Piece { ref piece, ref reason } if piece == "z.glb" && reason.contains("1 images")),
        "{e}"
    );
    let ext = {
        let mut b = Bin::default();
        let p = b.f32s(&TRI, "VEC3", 3);
        b.file(
            &format!(r#"{{"primitives":[{{"attributes":{{"POSITION":{p}}}}}]}}"#),
            r#"{"mesh":0}"#,
            "0",
            r#","extensionsUsed":["KHR_materials_unlit"]"#,
        )
    };
    let e = import_pieces(
        "f",
        &[Piece {
            name: "e.glb",
            bytes: &ext,
        }],
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("KHR_materials_unlit"), "{e}");
    // No pieces: the geometry is missing.
    assert_eq!(
        import_pieces("f", &[], &ImportOptions::default())
            .unwrap_err()
            .kind,
        GlbErrorKind::NoPieces
    );
    // The fixtures that carry images are refused as pieces.
    if let Some(bt) = fixture("BoxTextured.glb") {
        assert!(import_pieces(
            "f",
            &[Piece {
                name: "BoxTextured.glb",
                bytes: &bt
            }],
            &ImportOptions::default()
        )
        .is_err());
    }
}

#[test]
fn caps_refuse_rather_than_allocate() {
    let mut b = Bin::default();
    let bytes = one_triangle(&mut b, "", "");
    let tight = ImportOptions {
        max_vertices: 2,
        ..ImportOptions::default()
    };
    assert!(matches!(
        import_glb_with(&bytes, "x", &tight).unwrap_err().kind,
        GlbErrorKind::TooLarge { .. }
    ));
    let tight = ImportOptions {
        max_indices: 2,
        ..ImportOptions::default()
    };
    assert!(matches!(
        import_glb_with(&bytes, "x", &tight).unwrap_err().kind,
        GlbErrorKind::TooLarge { .. }
    ));
    // An accessor claiming more elements than its view holds.
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],
        "accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3","count":4000000000}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]}"#;
    let e = import_glb(&glb(json, &[0; 36]), "x").unwrap_err();
    assert!(
        matches!(
            e.kind,
            GlbErrorKind::TooLarge { .. } | GlbErrorKind::Invalid { .. }
        ),
        "{e}"
    );
}

#[test]
fn model_helpers_are_consistent() {
    let m: Model = import_glb(&mixed_scene(), "mixed.glb").unwrap();
    assert_eq!(m.traversal(), [0, 1, 2, 3]);
    assert_eq!(m.world_matrices().len(), 4);
}

#[test]
fn glb_corpus_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/glb");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "the glb corpus has only {} files",
        files.len()
    );
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_glb(&bytes));
        assert!(r.is_ok(), "{} panicked", f.display());
    }
}

/// The fuzz seed `skin_anim.glb` (a skin of two joints with inverse bind matrices, a morph
/// target, and linear, step and cubic-spline channels) imports as an object, so the fuzzer
/// starts inside the skin and clip readers.
#[test]
fn the_skin_and_clip_seed_imports_as_an_object() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/glb/skin_anim.glb");
    let bytes = std::fs::read(&path).unwrap();
    let m = import_glb_with(&bytes, "skin_anim.glb", &object()).unwrap_or_else(|e| panic!("{e}"));
    let body = m.nodes.iter().find(|n| n.name == "body").unwrap();
    let skin = &m.skins[body.skin.unwrap()];
    assert_eq!(skin.joints.len(), 2);
    // The second inverse bind matrix moves down 1 m (as written in the seed).
    assert_eq!(skin.inverse_bind[1].w_axis.y, -1.0);
    let mesh = &m.meshes[body.mesh.unwrap()];
    assert_eq!(mesh.target_names, ["smile"]);
    assert_eq!(mesh.weights, [0.5]);
    let clip = &m.animations[0];
    assert_eq!(clip.channels.len(), 4);
    use dh_content::gltf::Interpolation;
    let kinds: Vec<Interpolation> = clip.channels.iter().map(|c| c.interpolation).collect();
    assert_eq!(
        kinds,
        [
            Interpolation::Linear,
            Interpolation::Step,
            Interpolation::CubicSpline,
            Interpolation::Linear
        ]
    );
}
