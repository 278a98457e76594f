//! The importer proper: the scene graph, the meshes it draws, and the three things a map
//! build leaves out (skins, morph targets, animations).

use super::error::{GlbError, GlbErrorKind, ImportWarning};
use super::glb::{self, dh_extra, invalid, join, Document, NodeTrs, R};
use super::skin;
use super::tangent;
use super::{ImportOptions, Mesh, Model, Node, Primitive, Purpose};
use crate::math;
use crate::mesh::MeshVertex;
use glam::{DMat4, DQuat, DVec3};
use gltf_json as json;
use json::mesh::Semantic;
use json::validation::Checked;

/// The extensions whose geometry the importer cannot read: a file that requires one is
/// refused.
pub const REFUSED_EXTENSIONS: [&str; 3] = [
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
    "KHR_mesh_quantization",
];

/// Imports a GLB for a map with the default caps. `name` names the model in errors and
/// warnings.
pub fn import_glb(bytes: &[u8], name: &str) -> Result<Model, GlbError> {
    import_glb_with(bytes, name, &ImportOptions::default())
}

/// Imports a GLB with explicit options.
pub fn import_glb_with(bytes: &[u8], name: &str, opts: &ImportOptions) -> Result<Model, GlbError> {
    read_model(bytes, name, opts).map_err(|kind| GlbError {
        model: name.to_string(),
        kind,
    })
}

/// Reads only a GLB's scene graph, for a loader that places the model's parts before (or
/// without) drawing it: every node with its name, hierarchy, transform, mesh and roles, and
/// each mesh's name and its primitives' material slots and reflection probes. No accessor
/// is read, so each [`Primitive`] has no vertices and no indices; the document is checked
/// as far as the importer checks it before geometry (the container, the JSON, the scene,
/// the node tree, refused extensions, primitive modes and material indices).
pub fn read_scene(bytes: &[u8], name: &str, opts: &ImportOptions) -> Result<Model, GlbError> {
    read_raw_with(bytes, name, opts, opts.purpose == Purpose::Object, false)
        .and_then(|raw| finish(raw, opts.purpose))
        .map_err(|kind| GlbError {
            model: name.to_string(),
            kind,
        })
}

/// Budget counters over one model.
struct Budget {
    vertices: usize,
    indices: usize,
}

pub(crate) fn read_model(bytes: &[u8], name: &str, opts: &ImportOptions) -> R<Model> {
    let raw = read_raw(bytes, name, opts, opts.purpose == Purpose::Object)?;
    finish(raw, opts.purpose)
}

/// A model as read, before the map build's exclusions are applied and warned about.
pub(crate) struct Raw {
    pub model: Model,
    /// Animation tracks (`animation/node.path`).
    pub tracks: Vec<String>,
    /// Extensions used and not read.
    pub ignored: Vec<String>,
}

/// Reads the document. With `decode_skinned` false, a skinned node keeps its flag but no
/// mesh (its geometry is never decoded).
pub(crate) fn read_raw(
    bytes: &[u8],
    name: &str,
    opts: &ImportOptions,
    decode_skinned: bool,
) -> R<Raw> {
    read_raw_with(bytes, name, opts, decode_skinned, true)
}

/// [`read_raw`], reading each mesh's geometry only with `geometry` (else its primitives'
/// material slots alone).
fn read_raw_with(
    bytes: &[u8],
    name: &str,
    opts: &ImportOptions,
    decode_skinned: bool,
    geometry: bool,
) -> R<Raw> {
    let c = glb::split(bytes)?;
    let doc = Document::open(&c, opts.max_vertices.saturating_mul(72))?;
    let root = &doc.root;

    for ext in &root.extensions_required {
        if REFUSED_EXTENSIONS.contains(&ext.as_str()) {
            return Err(GlbErrorKind::Compressed(ext.to_string()));
        }
    }
    let ignored: Vec<String> = root
        .extensions_used
        .iter()
        .filter(|e| *e == "EXT_mesh_gpu_instancing")
        .cloned()
        .collect();

    let scene_index = root.scene.map_or(0, |s| s.value());
    let scene = root.scenes.get(scene_index).ok_or(GlbErrorKind::NoScene)?;
    let scene_place = format!("scenes[{scene_index}]");

    let gnodes = &root.nodes;
    if gnodes.len() > opts.max_nodes {
        return Err(GlbErrorKind::TooLarge {
            what: "nodes".into(),
            got: gnodes.len(),
            limit: opts.max_nodes,
        });
    }
    let gmeshes = &root.meshes;
    let materials = &root.materials;

    // The node arena mirrors the file's numbering; `compact` drops what the scene does
    // not reach.
    let mut nodes: Vec<Node> = Vec::with_capacity(gnodes.len());
    for (i, n) in gnodes.iter().enumerate() {
        let trs = doc.trs.get(i).cloned().unwrap_or_default();
        nodes.push(read_node(n, &trs, i, gnodes.len(), gmeshes.len())?);
    }
    // An object reads its skins and clips (a map build leaves them out).
    let object = opts.purpose == Purpose::Object && decode_skinned && geometry;
    let (skins, animations) = if object {
        let skins = skin::read_skins(&doc, gnodes.len())?;
        for (i, (node, g)) in nodes.iter_mut().zip(gnodes).enumerate() {
            if let Some(s) = g.skin.map(|s| s.value()) {
                if s >= skins.len() {
                    return Err(invalid(
                        format!("nodes[{i}].skin"),
                        format!("a skin index below {}, found {s}", skins.len()),
                    ));
                }
                node.skin = Some(s);
            }
        }
        let room = opts.max_vertices.saturating_mul(16);
        (skins, skin::read_animations(&doc, gnodes.len(), room)?)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut roots = Vec::new();
    for (k, r) in scene.nodes.iter().enumerate() {
        let place = format!("{scene_place}.nodes[{k}]");
        let i = r.value();
        if i >= nodes.len() {
            return Err(invalid(
                place,
                format!("a node index below {}, found {i}", nodes.len()),
            ));
        }
        roots.push(i);
    }
    // Parents from children, refusing a node reached twice (a cycle or a shared child).
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<usize> = roots.clone();
    for r in &roots {
        if reached[*r] {
            return Err(invalid(
                format!("{scene_place}.nodes"),
                format!("each root listed once, found node {r} twice"),
            ));
        }
        reached[*r] = true;
    }
    while let Some(n) = stack.pop() {
        let kids = nodes[n].children.clone();
        for c in kids {
            if reached[c] {
                return Err(invalid(
                    format!("nodes[{n}].children"),
                    format!(
                        "a tree: node {c} is reached twice (a cycle, or a child with two parents)"
                    ),
                ));
            }
            reached[c] = true;
            nodes[c].parent = Some(n);
            stack.push(c);
        }
    }

    // Which meshes are skinned or morphed, from their attribute names alone.
    let mut mesh_skinned = vec![false; gmeshes.len()];
    let mut mesh_morph = vec![false; gmeshes.len()];
    for (m, mesh) in gmeshes.iter().enumerate() {
        for prim in &mesh.primitives {
            if prim.attributes.keys().any(|a| {
                matches!(
                    a,
                    Checked::Valid(Semantic::Joints(_) | Semantic::Weights(_))
                )
            }) {
                mesh_skinned[m] = true;
            }
            if prim.targets.as_ref().is_some_and(|t| !t.is_empty()) {
                mesh_morph[m] = true;
            }
        }
    }
    for (node, g) in nodes.iter_mut().zip(gnodes) {
        let has_skin = g.skin.is_some();
        if let Some(m) = node.mesh {
            node.skinned = has_skin || mesh_skinned[m];
            node.morph = mesh_morph[m];
        }
    }

    // Decode each mesh a reached node draws, once.
    let mut decoded: Vec<Option<usize>> = vec![None; gmeshes.len()];
    let mut meshes: Vec<Mesh> = Vec::new();
    let mut budget = Budget {
        vertices: 0,
        indices: 0,
    };
    for i in 0..nodes.len() {
        if !reached[i] {
            continue;
        }
        let Some(m) = nodes[i].mesh else { continue };
        if nodes[i].skinned && !decode_skinned {
            nodes[i].mesh = None;
            continue;
        }
        let slot = match decoded[m] {
            Some(s) => s,
            None => {
                let mesh = if geometry {
                    read_mesh(&doc, &gmeshes[m], m, materials, opts, &mut budget)?
                } else {
                    read_mesh_slots(&gmeshes[m], m, materials)?
                };
                meshes.push(mesh);
                decoded[m] = Some(meshes.len() - 1);
                meshes.len() - 1
            }
        };
        nodes[i].mesh = Some(slot);
    }

    let mut model = Model {
        name: name.to_string(),
        nodes,
        roots,
        meshes,
        warnings: Vec::new(),
        skins,
        animations,
    };
    let mut new_index: Vec<Option<usize>> = vec![None; model.nodes.len()];
    for (k, n) in model.traversal().into_iter().enumerate() {
        new_index[n] = Some(k);
    }
    model.compact();
    let paths = model.node_paths();
    let mut tracks = Vec::new();
    // An object imported its clips: nothing is read past.
    let read_past: &[json::Animation] = if object { &[] } else { &root.animations };
    for (a, anim) in read_past.iter().enumerate() {
        let aname = match anim.name.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("#{a}"),
        };
        for ch in &anim.channels {
            let n = ch.target.node.value();
            let what = match ch.target.path {
                Checked::Valid(json::animation::Property::Translation) => "translation",
                Checked::Valid(json::animation::Property::Rotation) => "rotation",
                Checked::Valid(json::animation::Property::Scale) => "scale",
                Checked::Valid(json::animation::Property::MorphTargetWeights) => "weights",
                Checked::Invalid => "?",
            };
            // The file's node number, through the compaction, to the node's path.
            let who = new_index
                .get(n)
                .copied()
                .flatten()
                .and_then(|n| paths.get(n))
                .cloned()
                .unwrap_or_else(|| format!("nodes[{n}]"));
            tracks.push(format!("{aname}/{who}.{what}"));
        }
    }
    Ok(Raw {
        model,
        tracks,
        ignored,
    })
}

/// Applies a map build's exclusions (skinned nodes draw nothing) and writes the model's
/// warnings, one per concern, naming every node or track.
pub(crate) fn finish(raw: Raw, purpose: Purpose) -> R<Model> {
    let Raw {
        mut model,
        tracks,
        ignored,
    } = raw;
    let paths = model.node_paths();
    let order = model.traversal();
    let skinned: Vec<String> = order
        .iter()
        .filter(|n| model.nodes[**n].skinned)
        .map(|n| paths[*n].clone())
        .collect();
    let morph: Vec<String> = order
        .iter()
        .filter(|n| {
            let node = &model.nodes[**n];
            // An object that read its targets ignores none.
            let read = node
                .mesh
                .and_then(|m| model.meshes.get(m))
                .is_some_and(|m| m.primitives.iter().any(|p| !p.targets.is_empty()));
            node.morph && !read && !(purpose == Purpose::Map && node.skinned)
        })
        .map(|n| paths[*n].clone())
        .collect();
    model.warnings.clear();
    if purpose == Purpose::Map && !skinned.is_empty() {
        for n in model.nodes.iter_mut() {
            if n.skinned {
                n.mesh = None;
            }
        }
        if !model.nodes.iter().any(|n| n.mesh.is_some()) {
            return Err(GlbErrorKind::OnlySkinned(skinned));
        }
        model.warnings.push(ImportWarning::SkinnedLeftOut(skinned));
        model.compact();
    }
    if !morph.is_empty() {
        model
            .warnings
            .push(ImportWarning::MorphTargetsIgnored(morph));
    }
    if !tracks.is_empty() {
        model
            .warnings
            .push(ImportWarning::AnimationsReadPast(tracks));
    }
    if !ignored.is_empty() {
        model
            .warnings
            .push(ImportWarning::ExtensionsIgnored(ignored));
    }
    Ok(model)
}

fn read_node(
    n: &json::Node,
    trs: &NodeTrs,
    i: usize,
    node_count: usize,
    mesh_count: usize,
) -> R<Node> {
    let place = format!("nodes[{i}]");
    let mut node = Node::new(n.name.as_deref().unwrap_or(""));
    node.source = Some(i);
    for (k, c) in n.children.iter().flatten().enumerate() {
        let cp = format!("{place}.children[{k}]");
        let ci = c.value();
        if ci >= node_count {
            return Err(invalid(
                cp,
                format!("a node index below {node_count}, found {ci}"),
            ));
        }
        if ci == i {
            return Err(invalid(cp, "another node (a node cannot be its own child)"));
        }
        node.children.push(ci);
    }
    if let Some(m) = trs.matrix {
        node.local = DMat4::from_cols_array(&m);
    } else {
        let t = trs.translation.map_or(DVec3::ZERO, DVec3::from_array);
        let r = trs.rotation.map_or(DQuat::IDENTITY, DQuat::from_array);
        let s = trs.scale.map_or(DVec3::ONE, DVec3::from_array);
        node.local = math::from_trs(t, r, s);
    }
    if let Some(m) = n.mesh.map(|m| m.value()) {
        if m >= mesh_count {
            return Err(invalid(
                join(&place, "mesh"),
                format!("a mesh index below {mesh_count}, found {m}"),
            ));
        }
        node.mesh = Some(m);
        node.source_mesh = Some(m);
    }
    // `extras.dh` keeps a role through a GLB `dh build` rewrote ([`super::write_glb`]).
    let role = |key: &str| matches!(dh_extra(&n.extras, key), Some(json::Value::Bool(true)));
    node.camera = n.camera.is_some() || role("camera");
    node.light = n
        .extensions
        .as_ref()
        .is_some_and(|e| e.khr_lights_punctual.is_some())
        || role("light");
    node.skinned = role("skinned");
    Ok(node)
}

fn mode_name(mode: u64) -> &'static str {
    match mode {
        0 => "POINTS",
        1 => "LINES",
        2 => "LINE_LOOP",
        3 => "LINE_STRIP",
        5 => "TRIANGLE_STRIP",
        6 => "TRIANGLE_FAN",
        _ => "not a glTF mode",
    }
}

/// A primitive's mode, refused unless TRIANGLES.
fn triangles(prim: &json::mesh::Primitive, place: &str) -> R<()> {
    let mode = match prim.mode {
        Checked::Valid(m) => u64::from(m.as_gl_enum()),
        Checked::Invalid => {
            return Err(invalid(
                join(place, "mode"),
                "a glTF primitive mode (an integer)",
            ))
        }
    };
    if mode != 4 {
        return Err(GlbErrorKind::NotTriangles {
            place: place.to_string(),
            mode,
            name: mode_name(mode),
        });
    }
    Ok(())
}

fn read_mesh(
    doc: &Document<'_>,
    mesh: &json::Mesh,
    m: usize,
    materials: &[json::Material],
    opts: &ImportOptions,
    budget: &mut Budget,
) -> R<Mesh> {
    let place = format!("meshes[{m}]");
    let name = mesh.name.clone().unwrap_or_default();
    let label = if name.is_empty() {
        place.clone()
    } else {
        format!("{place} '{name}'")
    };
    let mut out = Mesh {
        name,
        ..Mesh::default()
    };
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let pp = format!("{label} primitives[{p}]");
        out.primitives
            .push(read_primitive(doc, prim, &pp, materials, opts, budget)?);
    }
    if opts.purpose == Purpose::Object {
        let targets = out.primitives.iter().map(|p| p.targets.len()).max();
        let targets = targets.unwrap_or(0);
        if out.primitives.iter().any(|p| p.targets.len() != targets) {
            return Err(invalid(
                join(&label, "primitives"),
                format!("the same number of morph targets on every primitive ({targets})"),
            ));
        }
        if targets > 0 {
            let mut w = mesh.weights.clone().unwrap_or_default();
            if w.len() != targets && !w.is_empty() {
                return Err(invalid(
                    join(&label, "weights"),
                    format!("one weight per morph target ({targets}), found {}", w.len()),
                ));
            }
            w.resize(targets, 0.0);
            out.weights = w;
            let names = skin::target_names(mesh);
            if names.len() == targets {
                out.target_names = names;
            }
        }
    }
    Ok(out)
}

/// A mesh's name and each primitive's material slot and reflection probe, its geometry
/// left unread (no vertices, no indices).
fn read_mesh_slots(mesh: &json::Mesh, m: usize, materials: &[json::Material]) -> R<Mesh> {
    let place = format!("meshes[{m}]");
    let mut out = Mesh {
        name: mesh.name.clone().unwrap_or_default(),
        ..Mesh::default()
    };
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let pp = format!("{place}.primitives[{p}]");
        triangles(prim, &pp)?;
        out.primitives.push(Primitive {
            material: material_slot(prim, &pp, materials)?,
            reflection_probe: reflection_probe(prim),
            ..Primitive::default()
        });
    }
    Ok(out)
}

/// A primitive's material slot: the material's name, `#index` for an unnamed one.
fn material_slot(
    prim: &json::mesh::Primitive,
    place: &str,
    materials: &[json::Material],
) -> R<Option<String>> {
    Ok(match prim.material.map(|m| m.value()) {
        None => None,
        Some(i) => {
            let mat = materials.get(i).ok_or_else(|| {
                invalid(
                    join(place, "material"),
                    format!("a material index below {}, found {i}", materials.len()),
                )
            })?;
            match mat.name.as_deref() {
                Some(s) if !s.is_empty() => Some(s.to_string()),
                _ => Some(format!("#{i}")),
            }
        }
    })
}

/// The reflection probe a primitive's `extras.dh.reflectionProbe` names.
fn reflection_probe(prim: &json::mesh::Primitive) -> Option<String> {
    match dh_extra(&prim.extras, "reflectionProbe") {
        Some(json::Value::String(s)) => Some(s),
        _ => None,
    }
}

/// An attribute's accessor, its count checked against POSITION's.
fn attribute(
    doc: &Document<'_>,
    prim: &json::mesh::Primitive,
    key: Semantic,
    place: &str,
    positions: usize,
) -> R<Option<glb::Accessor>> {
    let name = key.to_string();
    let Some(i) = prim.attributes.get(&Checked::Valid(key)) else {
        return Ok(None);
    };
    let acc = doc.accessor(i.value(), &format!("{place}.attributes.{name}"))?;
    if acc.count != positions {
        return Err(GlbErrorKind::CountMismatch {
            place: place.to_string(),
            attribute: name,
            count: acc.count,
            positions,
        });
    }
    Ok(Some(acc))
}

fn expect_width(acc: &glb::Accessor, key: &str, widths: &[usize], what: &str) -> R<()> {
    if widths.contains(&acc.width) && !acc.matrix {
        Ok(())
    } else {
        Err(invalid(
            format!("{} ({key})", acc.place),
            format!("{what}, found {} components", acc.width),
        ))
    }
}

fn read_primitive(
    doc: &Document<'_>,
    prim: &json::mesh::Primitive,
    place: &str,
    materials: &[json::Material],
    opts: &ImportOptions,
    budget: &mut Budget,
) -> R<Primitive> {
    triangles(prim, place)?;
    let Some(pos_index) = prim.attributes.get(&Checked::Valid(Semantic::Positions)) else {
        return Err(GlbErrorKind::NoPosition {
            place: place.to_string(),
        });
    };
    let pos = doc.accessor(pos_index.value(), &format!("{place}.attributes.POSITION"))?;
    if pos.width != 3 || pos.matrix || !pos.component.is_float() {
        return Err(invalid(
            format!("{} (POSITION)", pos.place),
            "a VEC3 of floats (quantized positions need KHR_mesh_quantization, which is not read)",
        ));
    }
    let n = pos.count;
    let vertex_room = opts.max_vertices.saturating_sub(budget.vertices);
    if n > vertex_room {
        return Err(GlbErrorKind::TooLarge {
            what: format!("{place}: vertices (the whole model's)"),
            got: budget.vertices.saturating_add(n),
            limit: opts.max_vertices,
        });
    }
    budget.vertices += n;

    let normal = attribute(doc, prim, Semantic::Normals, place, n)?;
    let tangent_acc = attribute(doc, prim, Semantic::Tangents, place, n)?;
    let mut uvs = Vec::new();
    for k in 0..4 {
        uvs.push(attribute(doc, prim, Semantic::TexCoords(k), place, n)?);
    }
    let color0 = attribute(doc, prim, Semantic::Colors(0), place, n)?;
    // A COLOR_1 the caller does not keep is never read (nor checked, nor allocated).
    let color1 = if opts.color1 {
        attribute(doc, prim, Semantic::Colors(1), place, n)?
    } else {
        None
    };
    // The authored count reaches the highest lane the source fills (a file that authors
    // TEXCOORD_3 alone has four sets, three of them zero), so every authored lane is kept.
    let uv_sets = uvs.iter().rposition(Option::is_some).map_or(0, |k| k + 1) as u8;

    let cap = n.saturating_mul(4);
    let positions = doc.read_floats(&pos, cap)?;
    let mut vertices: Vec<MeshVertex> = positions
        .chunks_exact(3)
        .map(|p| MeshVertex {
            position: [p[0], p[1], p[2]],
            ..MeshVertex::default()
        })
        .collect();
    if let Some(acc) = &normal {
        expect_width(acc, "NORMAL", &[3], "a VEC3")?;
        for (v, d) in vertices
            .iter_mut()
            .zip(doc.read_floats(acc, cap)?.chunks_exact(3))
        {
            v.normal = tangent::unit_normal([d[0], d[1], d[2]]);
        }
    }
    for (k, acc) in uvs.iter().enumerate() {
        let Some(acc) = acc else { continue };
        expect_width(acc, &format!("TEXCOORD_{k}"), &[2], "a VEC2")?;
        let data = doc.read_floats(acc, cap)?;
        for (v, d) in vertices.iter_mut().zip(data.chunks_exact(2)) {
            let uv = [d[0], d[1]];
            match k {
                0 => v.uv0 = uv,
                1 => v.uv1 = uv,
                2 => v.uv2 = uv,
                _ => v.uv3 = uv,
            }
        }
    }
    let mut tangents_authored = false;
    if let Some(acc) = &tangent_acc {
        expect_width(acc, "TANGENT", &[4], "a VEC4")?;
        for (v, d) in vertices
            .iter_mut()
            .zip(doc.read_floats(acc, cap)?.chunks_exact(4))
        {
            // Kept as the exporter wrote it, at unit length.
            let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let t = if l.is_finite() && l > 0.0 {
                [d[0] / l, d[1] / l, d[2] / l]
            } else {
                tangent::orthonormal_tangent(v.normal, [0.0; 3])
            };
            v.tangent = [t[0], t[1], t[2], if d[3] < 0.0 { -1.0 } else { 1.0 }];
        }
        tangents_authored = true;
    }
    let read_color =
        |acc: &Option<glb::Accessor>, key: &str, alpha: f32| -> R<Option<Vec<[f32; 4]>>> {
            let Some(acc) = acc else { return Ok(None) };
            expect_width(acc, key, &[3, 4], "a VEC3 or a VEC4")?;
            let data = doc.read_floats(acc, cap)?;
            let w = acc.width;
            Ok(Some(
                data.chunks_exact(w)
                    .map(|c| {
                        let g = |i: usize| c.get(i).copied().unwrap_or(alpha).clamp(0.0, 1.0);
                        [g(0), g(1), g(2), if w == 4 { g(3) } else { 1.0 }]
                    })
                    .collect(),
            ))
        };
    let mut c0 = read_color(&color0, "COLOR_0", 1.0)?;
    let mut c1 = read_color(&color1, "COLOR_1", 1.0)?;
    // A set whose every value is its default is absent.
    const EPS: f32 = 0.5 / 65535.0;
    if c0
        .as_ref()
        .is_some_and(|c| c.iter().all(|v| v.iter().all(|x| *x >= 1.0 - EPS)))
    {
        c0 = None;
    }
    if c1
        .as_ref()
        .is_some_and(|c| c.iter().all(|v| v.iter().all(|x| *x <= EPS)))
    {
        c1 = None;
    }

    let mut indices = match prim.indices.map(|i| i.value()) {
        Some(i) => {
            let acc = doc.accessor(i, &join(place, "indices"))?;
            let room = opts.max_indices.saturating_sub(budget.indices);
            doc.read_indices(&acc, room).map_err(|e| match e {
                GlbErrorKind::TooLarge { what, got, .. } => GlbErrorKind::TooLarge {
                    what: format!("{what} (the whole model's)"),
                    got: budget.indices.saturating_add(got),
                    limit: opts.max_indices,
                },
                e => e,
            })?
        }
        None => {
            if n > opts.max_indices.saturating_sub(budget.indices) {
                return Err(GlbErrorKind::TooLarge {
                    what: format!("{place}: indices (the whole model's)"),
                    got: budget.indices.saturating_add(n),
                    limit: opts.max_indices,
                });
            }
            (0..n as u32).collect()
        }
    };
    budget.indices += indices.len();
    if indices.len() % 3 != 0 {
        return Err(invalid(
            join(place, "indices"),
            format!(
                "a whole number of triangles (a multiple of 3 indices), found {}",
                indices.len()
            ),
        ));
    }
    if let Some((at, index)) = indices.iter().enumerate().find(|(_, i)| **i as usize >= n) {
        return Err(GlbErrorKind::IndexOutOfRange {
            place: place.to_string(),
            index: *index,
            at,
            vertices: n,
        });
    }

    let (mut skin_weights, mut targets) = if opts.purpose == Purpose::Object {
        let room = opts.max_vertices.saturating_mul(8);
        (
            skin::read_skin_weights(doc, prim, place, n)?,
            skin::read_targets(doc, prim, place, n, room)?,
        )
    } else {
        (None, Vec::new())
    };

    let normals_authored = normal.is_some();
    if !normals_authored {
        // glTF: flat normals, so every corner becomes its own vertex.
        let extra = indices.len().saturating_sub(n);
        if extra > opts.max_vertices.saturating_sub(budget.vertices) {
            return Err(GlbErrorKind::TooLarge {
                what: format!("{place}: vertices once unwelded for flat normals"),
                got: budget.vertices.saturating_add(extra),
                limit: opts.max_vertices,
            });
        }
        budget.vertices += extra;
        let unweld = |src: &[[f32; 4]]| -> Vec<[f32; 4]> {
            indices.iter().map(|i| src[*i as usize]).collect()
        };
        c0 = c0.as_deref().map(unweld);
        c1 = c1.as_deref().map(unweld);
        fn pick<T: Copy>(src: &[T], indices: &[u32]) -> Vec<T> {
            indices.iter().map(|i| src[*i as usize]).collect()
        }
        if let Some(s) = skin_weights.as_mut() {
            s.joints = pick(&s.joints, &indices);
            s.weights = pick(&s.weights, &indices);
        }
        for t in targets.iter_mut() {
            t.position = pick(&t.position, &indices);
            // Flat normals have no authored deltas to follow.
            t.normal = None;
        }
        vertices = indices.iter().map(|i| vertices[*i as usize]).collect();
        tangent::flat_normals(&mut vertices);
        indices = (0..vertices.len() as u32).collect();
        if tangents_authored {
            for v in vertices.iter_mut() {
                let t = tangent::orthonormal_tangent(
                    v.normal,
                    [v.tangent[0], v.tangent[1], v.tangent[2]],
                );
                v.tangent = [t[0], t[1], t[2], v.tangent[3]];
            }
        }
    }
    if !tangents_authored {
        // glTF: MikkTSpace over the normals and TEXCOORD_0.
        tangent::derive_tangents(&mut vertices, &indices, uvs[0].is_some());
    }

    let material = material_slot(prim, place, materials)?;
    let reflection_probe = reflection_probe(prim);

    Ok(Primitive {
        vertices,
        indices,
        uv_sets,
        normals_authored,
        tangents_authored,
        color0: c0,
        color1: c1,
        material,
        reflection_probe,
        skin: skin_weights,
        targets,
    })
}
