//! The `.vox` importer over every real file in `../shared/fixtures/{vox,teardown}` (read in
//! place, never copied: several are CC-BY-SA, GPL or AGPL), plus hand-built files.
//!
//! Expectations come from the file itself through a small chunk walker written here,
//! independent of the importer: the voxel count of each model is its `XYZI` count, or the
//! non-zero bytes of its inflated `TDCZ` grid; the grid tree is the `nTRN` / `nGRP` graph
//! walked from node 0, depth first. Transforms and palette entries checked by value were
//! worked out by hand from the bytes (noted beside each).

use std::collections::BTreeMap;
use std::path::PathBuf;

use dh_content::voxel::import::{
    convert, import_vox, import_vox_bytes, VoxPlatform, CHUNK_TAG_PREFIX,
};
use dh_content::voxel::payload::{decode_all, encode, PropValue, VoxelPayload};
use dh_content::voxel::vox::{read_vox, VoxError};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
}

/// Every fixture in `dir`, sorted; `None` (with a printed line) when the folder is absent.
fn fixture_files(dir: &str) -> Option<Vec<PathBuf>> {
    let d = fixtures().join(dir);
    let Ok(rd) = std::fs::read_dir(&d) else {
        println!("skipping: the fixture folder {} is absent", d.display());
        return None;
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "vox"))
        .collect();
    v.sort();
    Some(v)
}

fn fixture(rel: &str) -> Option<Vec<u8>> {
    let p = fixtures().join(rel);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            println!("skipping: the fixture {} is absent", p.display());
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// An independent walker: just enough of the format to count and to draw the graph.

fn le(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn dict(c: &[u8], mut o: usize) -> (Vec<(String, String)>, usize) {
    let n = le(c, o);
    o += 4;
    let mut d = Vec::new();
    for _ in 0..n {
        let mut s = [String::new(), String::new()];
        for x in &mut s {
            let l = le(c, o) as usize;
            *x = String::from_utf8_lossy(&c[o + 4..o + 4 + l]).into_owned();
            o += 4 + l;
        }
        let [k, v] = s;
        d.push((k, v));
    }
    (d, o)
}

#[derive(Debug)]
enum Node {
    T { name: Option<String>, child: i32 },
    G(Vec<i32>),
    S(i32),
}

#[derive(Default, Debug)]
struct Walked {
    /// Per model: size and voxel count.
    models: Vec<([i32; 3], usize)>,
    nodes: BTreeMap<i32, Node>,
    rgba: Option<Vec<[u8; 4]>>,
    /// (id, whole chunk bytes) of every chunk the importer does not read.
    unread: Vec<(String, Vec<u8>)>,
}

fn tdcz_count(c: &[u8]) -> usize {
    let cells = (le(c, 0) * le(c, 4) * le(c, 8)) as usize;
    // VoxTool never finishes the stream: take whatever a one-shot inflate yields.
    let out = match miniz_oxide::inflate::decompress_to_vec_zlib(&c[12..]) {
        Ok(v) => v,
        Err(e) => e.output,
    };
    assert!(
        out.len() >= cells,
        "TDCZ inflates to {} of {cells} cells",
        out.len()
    );
    out[..cells].iter().filter(|&&b| b != 0).count()
}

fn walk(b: &[u8]) -> Walked {
    assert_eq!(&b[0..4], b"VOX ");
    assert_eq!(&b[8..12], b"MAIN");
    let mut off = 20 + le(b, 12) as usize;
    let mut w = Walked::default();
    let mut size = [0; 3];
    while off < b.len() {
        let id = String::from_utf8_lossy(&b[off..off + 4]).into_owned();
        let (n, m) = (le(b, off + 4) as usize, le(b, off + 8) as usize);
        let c = &b[off + 12..off + 12 + n];
        match id.as_str() {
            "SIZE" => size = [le(c, 0), le(c, 4), le(c, 8)],
            "XYZI" => w.models.push((size, le(c, 0) as usize)),
            "TDCZ" => w.models.push((size, tdcz_count(c))),
            "RGBA" => {
                w.rgba = Some(
                    c.chunks_exact(4)
                        .map(|p| [p[0], p[1], p[2], p[3]])
                        .collect(),
                )
            }
            "nTRN" => {
                let (attrs, o) = dict(c, 4);
                let child = le(c, o);
                let name = attrs
                    .iter()
                    .find(|(k, _)| k == "_name")
                    .map(|(_, v)| v.clone());
                w.nodes.insert(le(c, 0), Node::T { name, child });
            }
            "nGRP" => {
                let (_, o) = dict(c, 4);
                let k = le(c, o) as usize;
                w.nodes.insert(
                    le(c, 0),
                    Node::G((0..k).map(|i| le(c, o + 4 + 4 * i)).collect()),
                );
            }
            "nSHP" => {
                let (_, o) = dict(c, 4);
                w.nodes.insert(le(c, 0), Node::S(le(c, o + 4)));
            }
            "MATL" if (1..=255).contains(&le(c, 0)) => {}
            "LAYR" => {}
            _ => w.unread.push((id, b[off..off + 12 + n + m].to_vec())),
        }
        off += 12 + n + m;
    }
    w
}

/// The grid tree the graph implies, depth first from node 0: (name, parent, model).
fn expected_grids(w: &Walked) -> Vec<(Option<String>, Option<u32>, Option<usize>)> {
    fn go(
        w: &Walked,
        id: i32,
        parent: Option<u32>,
        out: &mut Vec<(Option<String>, Option<u32>, Option<usize>)>,
    ) {
        let Some(Node::T { name, child, .. }) = w.nodes.get(&id) else {
            panic!("node {id}")
        };
        let me = out.len() as u32;
        match w.nodes.get(child) {
            Some(Node::S(model)) => out.push((name.clone(), parent, Some(*model as usize))),
            Some(Node::G(children)) => {
                out.push((name.clone(), parent, None));
                for &c in children {
                    go(w, c, Some(me), out);
                }
            }
            other => panic!("node {child}: {other:?}"),
        }
    }
    let mut out = Vec::new();
    if w.nodes.is_empty() {
        for m in 0..w.models.len() {
            out.push((None, None, Some(m)));
        }
    } else {
        go(w, 0, None, &mut out);
    }
    out
}

fn non_empty(p: &VoxelPayload, grid: usize) -> usize {
    p.grids[grid]
        .chunks
        .values()
        .map(|c| c.iter().filter(|&&v| v != 0).count())
        .sum()
}

fn prop<'a>(p: &'a VoxelPayload, index: usize, key: &str) -> Option<&'a PropValue> {
    p.palette[index]
        .properties
        .iter()
        .find(|q| q.key == key)
        .map(|q| &q.value)
}

fn string(v: Option<&PropValue>) -> Option<&str> {
    match v {
        Some(PropValue::String(s)) => Some(s),
        _ => None,
    }
}

/// Checks one file against the walker: voxel counts per model, the grid tree, the
/// palette's colors and the kept chunks; then that the payload writes and reads back.
fn check_file(path: &std::path::Path, platform: VoxPlatform) -> VoxelPayload {
    let bytes = std::fs::read(path).unwrap();
    let w = walk(&bytes);
    let imp = import_vox_bytes(&path.display().to_string(), &bytes, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        imp.platform,
        platform,
        "{}: detected platform",
        path.display()
    );
    assert!(imp.platform_detected);
    let p = &imp.payload;
    let name = path.file_name().unwrap().to_string_lossy();

    // The grid tree, and each model's voxels in the grids that hold it.
    let expect = expected_grids(&w);
    assert_eq!(p.grids.len(), expect.len(), "{name}: grid count");
    for (i, (g, (ename, eparent, emodel))) in p.grids.iter().zip(&expect).enumerate() {
        assert_eq!(g.info.parent, *eparent, "{name}: grid {i}'s parent");
        if let Some(n) = ename {
            assert_eq!(&g.info.name, n, "{name}: grid {i}'s name");
        }
        match emodel {
            Some(m) => {
                let (size, count) = w.models[*m];
                assert_eq!(
                    g.info.bounds_size, size,
                    "{name}: grid {i} (model {m}) size"
                );
                assert_eq!(
                    non_empty(p, i),
                    count,
                    "{name}: grid {i} holds model {m}'s voxels"
                );
            }
            None => assert_eq!(non_empty(p, i), 0, "{name}: group grid {i} holds no cells"),
        }
    }
    // Every model is placed at least once.
    for m in 0..w.models.len() {
        assert!(
            expect.iter().any(|e| e.2 == Some(m)),
            "{name}: model {m} unplaced"
        );
    }

    // The palette: entry 0 empty, then the 255 source indices with the file's colors.
    assert_eq!(p.palette.len(), 256);
    assert!(p.palette[0].is_empty_entry());
    for i in 1..=255usize {
        assert_eq!(
            prop(p, i, "index"),
            Some(&PropValue::Int(i as i32)),
            "{name}: entry {i}"
        );
        if let Some(rgba) = &w.rgba {
            let c = rgba[i - 1];
            let hex = format!("#{:02x}{:02x}{:02x}{:02x}", c[0], c[1], c[2], c[3]);
            assert_eq!(
                string(prop(p, i, "color")),
                Some(hex.as_str()),
                "{name}: entry {i}"
            );
        }
    }

    // Every chunk not read, whole and in order.
    let extras: Vec<(String, Vec<u8>)> = p
        .extras
        .iter()
        .map(|e| (e.blob.format.clone(), e.blob.bytes.clone()))
        .collect();
    let unread: Vec<(String, Vec<u8>)> = w
        .unread
        .iter()
        .map(|(id, b)| (format!("{CHUNK_TAG_PREFIX}{id}"), b.clone()))
        .collect();
    assert_eq!(extras, unread, "{name}: extras");

    // Written and read back, it is the same payload.
    let shards = encode(p).unwrap_or_else(|e| panic!("{name}: {e}"));
    let views: Vec<&[u8]> = shards.iter().map(|s| s.as_slice()).collect();
    let back = decode_all(&views).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        back == p.canonical(),
        "{name}: the payload read back differs"
    );
    imp.payload
}

#[test]
fn every_magicavoxel_fixture_imports() {
    let Some(files) = fixture_files("vox") else {
        return;
    };
    assert!(files.len() >= 8, "{files:?}");
    for f in files {
        let p = check_file(&f, VoxPlatform::MagicaVoxel);
        assert_eq!(p.header.platform, "com.ephtracy.magicavoxel");
        for e in &p.palette[1..] {
            assert_eq!((e.ns.as_str(), e.id.as_str()), ("dh", "color"));
        }
    }
}

#[test]
fn every_teardown_fixture_imports() {
    let Some(files) = fixture_files("teardown") else {
        return;
    };
    assert!(files.len() >= 3, "{files:?}");
    for f in files {
        let p = check_file(&f, VoxPlatform::Teardown);
        assert_eq!(p.header.platform, "com.tuxedolabs.teardown");
        // The spec's two documented facts: index 9 is grass, 57 to 72 wood; the paint kept.
        assert_eq!(
            (p.palette[9].ns.as_str(), p.palette[9].id.as_str()),
            ("teardown", "grass")
        );
        for i in 57..=72 {
            assert_eq!(p.palette[i].id, "wood");
        }
        assert_eq!(p.palette[1].id, "glass");
        assert_eq!(p.palette[230].id, "unphysical");
        assert_eq!(p.palette[200].id, "reserved");
        assert!(string(prop(&p, 57, "color")).is_some_and(|c| c.starts_with('#')));
    }
}

#[test]
fn tdcz_models_count_their_inflated_cells() {
    let Some(b) = fixture("teardown/teardown_tdcz.vox") else {
        return;
    };
    let f = read_vox(&b).unwrap();
    // From the fixture's README and a by-hand inflate: 8 TDCZ grids; the wheels are
    // 4x11x11 with 316 voxels each, the body 34x54x20.
    let counts: Vec<usize> = f.models.iter().map(|m| m.voxels.len()).collect();
    assert_eq!(
        counts,
        walk(&b).models.iter().map(|m| m.1).collect::<Vec<_>>()
    );
    assert_eq!(f.models.len(), 8);
    assert_eq!(f.models[7].size, [34, 54, 20]);
    assert_eq!(&counts[2..7], &[316; 5]);
    let imp = import_vox_bytes("tdcz", &b, None).unwrap();
    // The root group lists its children as nodes 16, 14, 12, 10, 8, 6, 4, 2 (from the bytes).
    let names: Vec<&str> = imp
        .payload
        .grids
        .iter()
        .map(|g| g.info.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "node 0", "body", "wheel_fr", "wheel_fl", "wheel_br", "wheel_bl", "wheel", "hatch",
            "door"
        ]
    );
}

#[test]
fn transforms_fold_the_pivot_by_hand() {
    // placeholder.vox: one 2x2x2 model under nTRN 2 with _t "0 0 1", no rotation. The
    // pivot is (1, 1, 1), so the grid's transform is identity with translation (-1, -1, 0).
    if let Some(b) = fixture("vox/placeholder.vox") {
        let p = import_vox_bytes("placeholder", &b, Some("magicavoxel"))
            .unwrap()
            .payload;
        assert_eq!(p.grids.len(), 2);
        assert_eq!(
            p.grids[1].info.transform,
            [
                [1.0, 0.0, 0.0, -1.0],
                [0.0, 1.0, 0.0, -1.0],
                [0.0, 0.0, 1.0, 0.0]
            ]
        );
        assert_eq!(p.grids[0].info.transform[0][3], 0.0);
    }
    // sandbags.vox: a 47x23x15 model under nTRN 2 with _r 72 and _t "0 -1 12". 72 is
    // 0b1001000: row 0 takes column 0, row 1 column 2, row 2 column 1, row 2 negative:
    // R = (1 0 0), (0 0 1), (0 -1 0). The pivot (23, 11, 7) turns to R p = (23, 7, -11),
    // so the translation is (0 - 23, -1 - 7, 12 + 11) = (-23, -8, 23).
    if let Some(b) = fixture("teardown/sandbags.vox") {
        let p = import_vox_bytes("sandbags", &b, Some("teardown"))
            .unwrap()
            .payload;
        assert_eq!(
            p.grids[1].info.transform,
            [
                [1.0, 0.0, 0.0, -23.0],
                [0.0, 0.0, 1.0, -8.0],
                [0.0, -1.0, 0.0, 23.0]
            ]
        );
        assert_eq!(p.grids[1].info.attribute("layer"), Some("0"));
    }
}

#[test]
fn shared_groups_are_placed_under_each_transform() {
    // test-transform.vox: the root group holds four transforms that all point at group 3
    // (two transforms, one of them over group 7 with four shapes): 1 + 4 * (1 + 1 + 4 + 1)
    // = 29 grids, and the 128^3 floor model is placed four times.
    let Some(b) = fixture("vox/test-transform.vox") else {
        return;
    };
    let p = import_vox_bytes("test-transform", &b, None)
        .unwrap()
        .payload;
    assert_eq!(p.grids.len(), 29);
    let floors: Vec<usize> = (0..p.grids.len())
        .filter(|&i| p.grids[i].info.name == "floor")
        .collect();
    assert_eq!(floors.len(), 4);
    for i in floors {
        assert_eq!(non_empty(&p, i), 98_304);
        assert_eq!(p.grids[i].info.bounds_size, [128, 128, 128]);
    }
}

#[test]
fn materials_become_properties_as_written() {
    // metal-material.vox: MATL 85 is _metal with _weight 0.526316, _rough 0.252632,
    // _spec 0.736842, _ior 0.3 (read from the bytes by hand); its one model uses index 85.
    let Some(b) = fixture("vox/metal-material.vox") else {
        return;
    };
    let p = import_vox_bytes("metal", &b, None).unwrap().payload;
    let keys: Vec<(&str, String)> = p.palette[85]
        .properties
        .iter()
        .map(|q| {
            let v = match &q.value {
                PropValue::String(s) => s.clone(),
                PropValue::Int(i) => i.to_string(),
                PropValue::Bool(b) => b.to_string(),
            };
            (q.key.as_str(), v)
        })
        .collect();
    assert_eq!(&keys[0], &("index", "85".to_string()));
    assert_eq!(keys[1].0, "color");
    assert_eq!(
        &keys[2..],
        &[
            ("material", "metal".to_string()),
            ("_weight", "0.526316".to_string()),
            ("_rough", "0.252632".to_string()),
            ("_spec", "0.736842".to_string()),
            ("_ior", "0.3".to_string()),
        ]
    );
}

#[test]
fn animation_keeps_frame_zero_with_a_warning() {
    // animation.0.99.7.1.vox: nTRN 2 has three keyframes, frame 0 at _t "14 -29 20"; its
    // 40^3 model's pivot is (20, 20, 20), so the translation is (-6, -49, 0).
    let Some(b) = fixture("vox/animation.0.99.7.1.vox") else {
        return;
    };
    let imp = import_vox_bytes("anim", &b, None).unwrap();
    let t = imp.payload.grids[1].info.transform;
    assert_eq!([t[0][3], t[1][3], t[2][3]], [-6.0, -49.0, 0.0]);
    assert!(
        imp.warnings
            .iter()
            .any(|w| w.contains("only frame 0 is kept")),
        "{:?}",
        imp.warnings
    );
}

// ---------------------------------------------------------------------------------------
// Hand-built files.

fn chunk(id: &[u8; 4], content: &[u8]) -> Vec<u8> {
    let mut v = id.to_vec();
    v.extend((content.len() as i32).to_le_bytes());
    v.extend(0i32.to_le_bytes());
    v.extend(content);
    v
}

fn file(chunks: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = chunks.concat();
    let mut v = b"VOX ".to_vec();
    v.extend(150i32.to_le_bytes());
    v.extend(b"MAIN");
    v.extend(0i32.to_le_bytes());
    v.extend((body.len() as i32).to_le_bytes());
    v.extend(body);
    v
}

fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|i| i.to_le_bytes()).collect()
}

fn dict_bytes(pairs: &[(&str, &str)]) -> Vec<u8> {
    let mut v = ints(&[pairs.len() as i32]);
    for (k, val) in pairs {
        v.extend(ints(&[k.len() as i32]));
        v.extend(k.as_bytes());
        v.extend(ints(&[val.len() as i32]));
        v.extend(val.as_bytes());
    }
    v
}

#[test]
fn a_file_without_palette_or_graph_uses_the_defaults() {
    // One 3x1x1 model, voxels at x = 0 and 2 (indices 1 and 255), no RGBA, no graph.
    let mut xyzi = ints(&[2]);
    xyzi.extend([0, 0, 0, 1, 2, 0, 0, 255]);
    let b = file(&[chunk(b"SIZE", &ints(&[3, 1, 1])), chunk(b"XYZI", &xyzi)]);
    let imp = import_vox_bytes("mem", &b, None).unwrap();
    let p = &imp.payload;
    assert_eq!(p.grids.len(), 1);
    assert_eq!(p.grids[0].info.name, "model 0");
    // Pivot (1, 0, 0).
    assert_eq!(p.grids[0].info.transform[0][3], -1.0);
    assert_eq!(p.cell(0, 0, [0, 0, 0]), Some(1));
    assert_eq!(p.cell(0, 0, [2, 0, 0]), Some(255));
    assert_eq!(p.cell(0, 0, [1, 0, 0]), Some(0));
    // MagicaVoxel's default palette: index 1 white, 255 the darkest gray.
    assert_eq!(string(prop(p, 1, "color")), Some("#ffffffff"));
    assert_eq!(string(prop(p, 255, "color")), Some("#111111ff"));
    // As Teardown with no RGBA, an entry carries no paint (the material's color applies).
    let td = import_vox_bytes("mem", &b, Some("teardown"))
        .unwrap()
        .payload;
    assert_eq!(prop(&td, 1, "color"), None);
}

#[test]
fn mirrors_hidden_nodes_and_layers_become_attributes() {
    // Root nTRN 0 -> nGRP 1 -> nTRN 2 (hidden, layer 3, _r 4|64 = mirror Z, _t 5 6 7)
    // -> nSHP 3 -> model 0 (2x2x2, pivot (1, 1, 1)). LAYR 3 is named "back" and hidden.
    let mut xyzi = ints(&[1]);
    xyzi.extend([1, 1, 1, 9]);
    let mut trn0 = ints(&[0]);
    trn0.extend(dict_bytes(&[]));
    trn0.extend(ints(&[1, -1, -1, 1]));
    trn0.extend(dict_bytes(&[]));
    let mut grp = ints(&[1]);
    grp.extend(dict_bytes(&[]));
    grp.extend(ints(&[1, 2]));
    let mut trn2 = ints(&[2]);
    trn2.extend(dict_bytes(&[("_name", "mirror"), ("_hidden", "1")]));
    trn2.extend(ints(&[3, -1, 3, 1]));
    trn2.extend(dict_bytes(&[("_r", "68"), ("_t", "5 6 7")]));
    let mut shp = ints(&[3]);
    shp.extend(dict_bytes(&[]));
    shp.extend(ints(&[1, 0]));
    shp.extend(dict_bytes(&[]));
    let mut layr = ints(&[3]);
    layr.extend(dict_bytes(&[("_name", "back"), ("_hidden", "1")]));
    layr.extend(ints(&[-1]));
    let b = file(&[
        chunk(b"SIZE", &ints(&[2, 2, 2])),
        chunk(b"XYZI", &xyzi),
        chunk(b"nTRN", &trn0),
        chunk(b"nGRP", &grp),
        chunk(b"nTRN", &trn2),
        chunk(b"nSHP", &shp),
        chunk(b"LAYR", &layr),
        chunk(b"zZZZ", b"kept"),
    ]);
    let p = import_vox_bytes("mem", &b, Some("com.ephtracy.magicavoxel"))
        .unwrap()
        .payload;
    assert_eq!(p.grids.len(), 2);
    let g = &p.grids[1].info;
    assert_eq!(g.name, "mirror");
    assert_eq!(g.parent, Some(0));
    // R = diag(1, 1, -1); R * pivot = (1, 1, -1); t - R p = (4, 5, 8).
    assert_eq!(
        g.transform,
        [
            [1.0, 0.0, 0.0, 4.0],
            [0.0, 1.0, 0.0, 5.0],
            [0.0, 0.0, -1.0, 8.0]
        ]
    );
    assert_eq!(g.attribute("layer"), Some("back"));
    assert_eq!(g.attribute("layerHidden"), Some("true"));
    assert_eq!(g.attribute("hidden"), Some("true"));
    assert_eq!(p.cell(1, 0, [1, 1, 1]), Some(9));
    assert_eq!(p.extras.len(), 1);
    assert_eq!(p.extras[0].blob.format, "magicavoxel.chunk.zZZZ");
    assert_eq!(p.extras[0].blob.bytes, chunk(b"zZZZ", b"kept"));
}

#[test]
fn broken_files_fail_naming_the_place() {
    assert!(matches!(
        read_vox(b"PNG\0...."),
        Err(VoxError::Magic { .. })
    ));
    // XYZI claims 1000 voxels in 8 bytes.
    let b = file(&[
        chunk(b"SIZE", &ints(&[2, 2, 2])),
        chunk(b"XYZI", &ints(&[1000, 0])),
    ]);
    let e = read_vox(&b).unwrap_err().to_string();
    assert!(
        e.contains("chunk 'XYZI' #1") && e.contains("1000 items of the voxel count"),
        "{e}"
    );
    // A cycle: nTRN 0 -> nGRP 1 -> nTRN 0.
    let mut trn0 = ints(&[0]);
    trn0.extend(dict_bytes(&[]));
    trn0.extend(ints(&[1, -1, -1, 1]));
    trn0.extend(dict_bytes(&[]));
    let mut grp = ints(&[1]);
    grp.extend(dict_bytes(&[]));
    grp.extend(ints(&[1, 0]));
    let b = file(&[chunk(b"nTRN", &trn0), chunk(b"nGRP", &grp)]);
    let e = import_vox_bytes("cyc.vox", &b, None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cyc.vox: the scene graph has a cycle"), "{e}");
    // A bad rotation byte (two rows on column 0).
    let mut trn0 = ints(&[0]);
    trn0.extend(dict_bytes(&[]));
    trn0.extend(ints(&[1, -1, -1, 1]));
    trn0.extend(dict_bytes(&[("_r", "0")]));
    let e = read_vox(&file(&[chunk(b"nTRN", &trn0)]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("transform node 0's rotation _r is \"0\""), "{e}");
    // An unknown platform.
    let e = import_vox_bytes("x", &file(&[]), Some("minecraft"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("'minecraft' is not a platform a .vox follows"),
        "{e}"
    );
}

#[test]
fn import_writes_the_definition_and_its_payload() {
    let Some(_) = fixture("vox/axes.vox") else {
        return;
    };
    let src = fixtures().join("vox/axes.vox");
    let dir = std::env::temp_dir().join(format!("dh-vox-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let r = import_vox(&src, None, Some(&dir)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.definition, dir.join("axes.dh-vox"));
    assert_eq!(r.payload, [dir.join("axes.dh-vox.bin")]);
    assert_eq!(r.platform, "com.ephtracy.magicavoxel");
    assert_eq!(r.grids, 14);
    // 3 shapes of model 0 (920), 3 of model 1 (1640), 3 of model 2 (1480), 1 of model 3 (332).
    assert_eq!(r.voxels, 3 * 920 + 3 * 1640 + 3 * 1480 + 332);
    let text = std::fs::read_to_string(&r.definition).unwrap();
    assert!(text.contains("\"data\": \"axes.dh-vox.bin\""), "{text}");
    let bin = std::fs::read(&r.payload[0]).unwrap();
    let back = decode_all(&[&bin]).unwrap();
    let direct = convert(
        &read_vox(&std::fs::read(&src).unwrap()).unwrap(),
        VoxPlatform::MagicaVoxel,
    )
    .unwrap()
    .payload;
    assert!(back == direct.canonical());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vox_corpus_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/vox");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus folder {} is missing: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "the vox corpus has only {} files",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| dh_content::fuzzing::fuzz_vox(&bytes));
        assert!(r.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn an_unfinished_tdcz_stream_still_reads() {
    // The corpus seed tdcz_unfinished.vox: a 4x4x4 TDCZ of the bytes 1 0 0 2 repeated,
    // zlib-flushed but never finished: 32 of the 64 cells are non-empty, x fastest.
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/vox/tdcz_unfinished.vox");
    let b = std::fs::read(p).unwrap();
    let f = read_vox(&b).unwrap();
    assert_eq!(f.models[0].voxels.len(), 32);
    assert_eq!(&f.models[0].voxels[..2], &[[0, 0, 0, 1], [3, 0, 0, 2]]);
    let imp = import_vox_bytes("tdcz_unfinished", &b, None).unwrap();
    assert_eq!(
        imp.platform,
        VoxPlatform::Teardown,
        "a TDCZ file reads as Teardown"
    );
}
