//! A folder of pieces read as one model (`GlbMerge`): every `.glb` directly in the folder,
//! in path order, its nodes following the previous piece's, a material slot two pieces
//! draw being one slot. A piece with images, textures, skins, animations, cameras, sparse
//! accessors or glTF extensions is refused rather than joined wrongly.

use super::error::{GlbError, GlbErrorKind};
use super::glb;
use super::import::{finish, read_raw, Raw};
use super::{ImportOptions, Model, Purpose};

/// One piece of a folder: its file name and bytes.
#[derive(Debug, Clone, Copy)]
pub struct Piece<'a> {
    /// The piece's path or file name; pieces are joined in the order of these names.
    pub name: &'a str,
    /// The GLB's bytes.
    pub bytes: &'a [u8],
}

/// Why a piece may not be joined, if it may not.
fn refusal(bytes: &[u8]) -> Result<Option<String>, GlbErrorKind> {
    let c = glb::split(bytes)?;
    let (root, _) = glb::parse_root(c.json)?;
    for (n, what) in [
        (root.images.len(), "images"),
        (root.textures.len(), "textures"),
        (root.skins.len(), "skins"),
        (root.animations.len(), "animations"),
        (root.cameras.len(), "cameras"),
    ] {
        if n > 0 {
            return Ok(Some(format!(
                "it carries {n} {what}; a piece may carry only meshes, nodes and materials"
            )));
        }
    }
    let sparse = root.accessors.iter().filter(|a| a.sparse.is_some()).count();
    if sparse > 0 {
        return Ok(Some(format!(
            "it has {sparse} sparse accessor(s); a piece may carry only meshes, nodes and materials"
        )));
    }
    let mut exts: Vec<&str> = root.extensions_used.iter().map(String::as_str).collect();
    for e in &root.extensions_required {
        if !exts.contains(&e.as_str()) {
            exts.push(e);
        }
    }
    if !exts.is_empty() {
        return Ok(Some(format!(
            "it uses glTF extensions ({}); a piece may carry only meshes, nodes and materials",
            exts.join(", ")
        )));
    }
    Ok(None)
}

/// Joins `pieces` (sorted here by name) into one model named `folder`. No piece is an
/// error ([`GlbErrorKind::NoPieces`]: the geometry is missing).
pub fn import_pieces(
    folder: &str,
    pieces: &[Piece<'_>],
    opts: &ImportOptions,
) -> Result<Model, GlbError> {
    let fail = |kind| GlbError {
        model: folder.to_string(),
        kind,
    };
    if pieces.is_empty() {
        return Err(fail(GlbErrorKind::NoPieces));
    }
    let mut order: Vec<&Piece<'_>> = pieces.iter().collect();
    order.sort_by(|a, b| a.name.cmp(b.name));
    let mut joined = Model {
        name: folder.to_string(),
        ..Model::default()
    };
    let mut tracks = Vec::new();
    let mut left = *opts;
    for p in order {
        let piece_err = |kind| GlbError {
            model: format!("{folder}/{}", p.name),
            kind,
        };
        if let Some(reason) = refusal(p.bytes).map_err(piece_err)? {
            return Err(fail(GlbErrorKind::Piece {
                piece: p.name.to_string(),
                reason,
            }));
        }
        let raw =
            read_raw(p.bytes, p.name, &left, opts.purpose == Purpose::Object).map_err(piece_err)?;
        let used_v: usize = raw
            .model
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.vertices.len())
            .sum();
        let used_i: usize = raw
            .model
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.len())
            .sum();
        left.max_vertices = left.max_vertices.saturating_sub(used_v);
        left.max_indices = left.max_indices.saturating_sub(used_i);
        let node_base = joined.nodes.len();
        if node_base + raw.model.nodes.len() > opts.max_nodes {
            return Err(fail(GlbErrorKind::TooLarge {
                what: "nodes over every piece".into(),
                got: node_base + raw.model.nodes.len(),
                limit: opts.max_nodes,
            }));
        }
        let mesh_base = joined.meshes.len();
        let skin_base = joined.skins.len();
        let Raw {
            model, tracks: t, ..
        } = raw;
        tracks.extend(t);
        for mut n in model.nodes {
            n.parent = n.parent.map(|x| x + node_base);
            n.children.iter_mut().for_each(|c| *c += node_base);
            n.mesh = n.mesh.map(|m| m + mesh_base);
            n.skin = n.skin.map(|s| s + skin_base);
            // No single file numbers a joined node.
            n.source = None;
            n.source_mesh = None;
            joined.nodes.push(n);
        }
        joined
            .roots
            .extend(model.roots.iter().map(|r| r + node_base));
        joined.meshes.extend(model.meshes);
        joined.skins.extend(model.skins.into_iter().map(|mut s| {
            s.joints.iter_mut().flatten().for_each(|j| *j += node_base);
            s.skeleton = s.skeleton.map(|k| k + node_base);
            s
        }));
        joined
            .animations
            .extend(model.animations.into_iter().map(|mut a| {
                a.channels.iter_mut().for_each(|c| c.node += node_base);
                a
            }));
    }
    finish(
        Raw {
            model: joined,
            tracks,
            ignored: Vec::new(),
        },
        opts.purpose,
    )
    .map_err(fail)
}
