//! The sidecar-edited GLB the pallet ships (spec: dh.object, "Sidecar Files" — "The ops
//! apply to the packaged GLB"; the ops touch only the scene graph, and skinning,
//! blendshape and animation data ship untouched).
//!
//! [`rewrite_glb`] reads the source GLB's JSON with `gltf-json` and edits only the scene
//! graph to match the edited [`Model`]: each node's name, children, transform and (after a
//! merge) mesh, and the scene's roots. Everything else ships as it was — skins, joints,
//! inverse bind matrices, animations, morph targets, cameras, lights, materials, textures,
//! images, samplers, extensions — and the BIN chunk's bytes are copied unchanged; a merge's
//! new mesh is appended after them (so every existing view still points at the same
//! bytes). Node numbers stay the file's: a dropped (or merged-away) node stays in `nodes`,
//! detached from the scene, so every skin joint and animation target still names the node
//! it named.
//!
//! A node's transform is written from the model's `f64` matrix (as [`super::write_glb`]
//! writes it) unless the file's own members already give that very matrix. The output is
//! deterministic: the JSON is written with sorted keys, the same input giving the same
//! bytes.
//!
//! When the source cannot be edited this way (it does not read as `gltf-json`, or the
//! model holds a node no single file numbers), the model is written whole by
//! [`super::write_glb`], as before.

use gltf_json as json;
use json::Index;

use glam::{DMat4, DQuat, DVec3};

use super::write::{self, Bin, WriteError};
use super::Model;
use crate::math;

/// Writes `model` — imported from `source` and edited by its `.dh-model` sidecar — back
/// into `source`, changing only the scene graph (see the module docs).
pub fn rewrite_glb(source: &[u8], model: &Model) -> Result<Vec<u8>, WriteError> {
    write::check_indices(model)?;
    match edit(source, model) {
        Some(r) => r,
        None => write::write_glb(model),
    }
}

/// The local matrix the importer reads from a `gltf-json` node (its members widened to
/// `f64`, the same formula as the importer's).
fn typed_local(g: &json::Node) -> DMat4 {
    if let Some(m) = g.matrix {
        return DMat4::from_cols_array(&m.map(f64::from));
    }
    let t = g
        .translation
        .map_or(DVec3::ZERO, |t| DVec3::from_array(t.map(f64::from)));
    let r = g
        .rotation
        .map_or(DQuat::IDENTITY, |q| DQuat::from_array(q.0.map(f64::from)));
    let s = g
        .scale
        .map_or(DVec3::ONE, |s| DVec3::from_array(s.map(f64::from)));
    math::from_trs(t, r, s)
}

/// The nodes the scene reaches (a node reached twice, or an index past the nodes, is
/// `None`: the importer refuses such a file anyway).
fn reached(root: &json::Root, scene: usize) -> Option<Vec<bool>> {
    let mut seen = vec![false; root.nodes.len()];
    let mut stack: Vec<usize> = root
        .scenes
        .get(scene)?
        .nodes
        .iter()
        .map(|i| i.value())
        .collect();
    while let Some(n) = stack.pop() {
        if *seen.get(n)? {
            return None;
        }
        seen[n] = true;
        if let Some(kids) = &root.nodes[n].children {
            stack.extend(kids.iter().map(|c| c.value()));
        }
    }
    Some(seen)
}

fn index<T>(i: usize) -> Option<Index<T>> {
    u32::try_from(i).ok().map(Index::new)
}

/// The edited file, or `None` when the source cannot be edited in place.
fn edit(source: &[u8], model: &Model) -> Option<Result<Vec<u8>, WriteError>> {
    let c = super::glb::split(source).ok()?;
    let mut root: json::Root = json::deserialize::from_str(c.json).ok()?;
    let scene = root.scene.map_or(0, |s| s.value());
    let reach = reached(&root, scene)?;

    // Every model node names one file node, each once.
    let mut claimed = vec![false; root.nodes.len()];
    let mut src = Vec::with_capacity(model.nodes.len());
    for n in &model.nodes {
        let s = n.source?;
        if *claimed.get(s)? {
            return None;
        }
        claimed[s] = true;
        src.push(s);
    }

    // What the scene reached is re-hung from the model; what it no longer holds stays
    // in `nodes`, detached.
    for (g, r) in root.nodes.iter_mut().zip(&reach) {
        if *r {
            g.children = None;
        }
    }

    // Meshes a merge made, appended after the file's.
    let slots: Vec<String> = root
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| match m.name.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("#{i}"),
        })
        .collect();
    let mut bin = Bin::new();
    let mut new_mesh: Vec<Option<usize>> = vec![None; model.meshes.len()];
    let mut patches: Vec<(usize, write::Members)> = Vec::new();
    let (view_base, acc_base) = (root.buffer_views.len(), root.accessors.len());
    for (n, &s) in model.nodes.iter().zip(&src) {
        let mesh = match (n.source_mesh, n.mesh) {
            (Some(m), _) => Some(index(m)?),
            (None, Some(k)) => {
                let i = match new_mesh[k] {
                    Some(i) => i,
                    None => {
                        let m = &model.meshes[k];
                        let mut prims = Vec::with_capacity(m.primitives.len());
                        for p in &m.primitives {
                            let mut prim: json::mesh::Primitive =
                                json::deserialize::from_str(&write::primitive(p, &slots, &mut bin))
                                    .ok()?;
                            for a in prim.attributes.values_mut() {
                                *a = index(a.value() + acc_base)?;
                            }
                            prim.indices = match prim.indices {
                                Some(i) => Some(index(i.value() + acc_base)?),
                                None => None,
                            };
                            prims.push(prim);
                        }
                        root.meshes.push(json::Mesh {
                            extensions: None,
                            extras: Default::default(),
                            name: (!m.name.is_empty()).then(|| m.name.clone()),
                            primitives: prims,
                            weights: None,
                        });
                        new_mesh[k] = Some(root.meshes.len() - 1);
                        root.meshes.len() - 1
                    }
                };
                Some(index(i)?)
            }
            (None, None) => None,
        };
        let g = &mut root.nodes[s];
        if g.name.as_deref().unwrap_or("") != n.name {
            g.name = (!n.name.is_empty()).then(|| n.name.clone());
        }
        g.children = if n.children.is_empty() {
            None
        } else {
            Some(
                n.children
                    .iter()
                    .map(|c| index(src[*c]))
                    .collect::<Option<Vec<_>>>()?,
            )
        };
        if g.mesh != mesh {
            // A merge's new mesh: the file's skin and weights were the old one's.
            g.skin = None;
            g.weights = None;
            g.mesh = mesh;
        }
        if typed_local(g) != n.local {
            g.matrix = None;
            g.translation = None;
            g.rotation = None;
            g.scale = None;
            patches.push((s, write::transform_members(&n.local)));
        }
    }
    root.scenes[scene].nodes = model
        .roots
        .iter()
        .map(|r| index(src[*r]))
        .collect::<Option<Vec<_>>>()?;

    // A node the ops took out of the scene leaves the file, unless a skin or an animation
    // names it (it then stays, detached, so they ship as they were); the rest renumber.
    let mut keep: Vec<bool> = claimed.iter().zip(&reach).map(|(c, r)| *c || !*r).collect();
    for skin in &root.skins {
        for j in skin.joints.iter().chain(skin.skeleton.as_ref()) {
            *keep.get_mut(j.value())? = true;
        }
    }
    for a in &root.animations {
        for ch in &a.channels {
            *keep.get_mut(ch.target.node.value())? = true;
        }
    }
    let mut renumber: Vec<Option<usize>> = vec![None; keep.len()];
    let mut next = 0usize;
    for (r, k) in renumber.iter_mut().zip(&keep) {
        if *k {
            *r = Some(next);
            next += 1;
        }
    }
    let moved = |i: Index<json::Node>| -> Option<Index<json::Node>> {
        index(renumber.get(i.value()).copied().flatten()?)
    };
    if next < keep.len() {
        let old = std::mem::take(&mut root.nodes);
        for (mut g, k) in old.into_iter().zip(&keep) {
            if !*k {
                continue;
            }
            g.children = g
                .children
                .map(|kids| kids.into_iter().filter_map(moved).collect::<Vec<_>>())
                .filter(|kids| !kids.is_empty());
            root.nodes.push(g);
        }
        for sc in root.scenes.iter_mut() {
            sc.nodes = sc.nodes.iter().copied().filter_map(moved).collect();
        }
        for skin in root.skins.iter_mut() {
            for j in skin.joints.iter_mut() {
                *j = moved(*j)?;
            }
            skin.skeleton = match skin.skeleton {
                Some(j) => Some(moved(j)?),
                None => None,
            };
        }
        for a in root.animations.iter_mut() {
            for ch in a.channels.iter_mut() {
                ch.target.node = moved(ch.target.node)?;
            }
        }
        for (s, _) in patches.iter_mut() {
            *s = renumber[*s]?;
        }
    }

    // The BIN chunk: the file's bytes unchanged, a merge's data after them.
    let mut out_bin: std::borrow::Cow<'_, [u8]> = c.bin.unwrap_or(&[]).into();
    if !bin.accessors.is_empty() {
        match root.buffers.first() {
            None => root.buffers.push(json::Buffer {
                byte_length: 0u64.into(),
                name: None,
                uri: None,
                extensions: None,
                extras: Default::default(),
            }),
            Some(b) if b.uri.is_some() => return None,
            Some(_) => {}
        }
        let mut bytes = out_bin.into_owned();
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        let base = bytes.len();
        bin.align();
        if bin.bytes.is_empty() {
            // Only empty primitives: their accessors still need a buffer of a byte or more.
            bin.bytes.extend_from_slice(&[0; 4]);
        }
        bytes.extend_from_slice(&bin.bytes);
        for v in &bin.views {
            let mut view: json::buffer::View = json::deserialize::from_str(v).ok()?;
            view.byte_offset = Some((view.byte_offset.map_or(0, |o| o.0) + base as u64).into());
            view.buffer = Index::new(0);
            root.buffer_views.push(view);
        }
        for a in &bin.accessors {
            let mut acc: json::Accessor = json::deserialize::from_str(a).ok()?;
            acc.buffer_view = match acc.buffer_view {
                Some(v) => Some(index(v.value() + view_base)?),
                None => None,
            };
            root.accessors.push(acc);
        }
        root.buffers[0].byte_length = (bytes.len() as u64).into();
        out_bin = bytes.into();
    }

    let mut value = json::serialize::to_value(&root).ok()?;
    let nodes = value.get_mut("nodes")?.as_array_mut()?;
    for (s, members) in patches {
        let obj = nodes.get_mut(s)?.as_object_mut()?;
        for (key, values) in members {
            if !values.iter().all(|v| v.is_finite()) {
                return None;
            }
            obj.insert(
                key.to_string(),
                json::Value::Array(values.into_iter().map(json::Value::from).collect()),
            );
        }
    }
    let text = json::serialize::to_string(&value).ok()?;
    Some(write::assemble(&model.name, text, &out_bin))
}
