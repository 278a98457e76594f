//! What an object import reads that a map build leaves out (spec: runtime assets, "What the
//! map importer leaves out" — "the object loader already reads skinned and blendshaped
//! models for avatars, at their bind pose and base shape"): skins (joints and inverse bind
//! matrices), JOINTS_0 / WEIGHTS_0 per vertex, morph target displacements and animation
//! clips; and the skinning stream ("GPU vertex streams": four unorm16 bone weights, then
//! four u8 joint indices, 12 B, weights quantized by largest remainder so they sum to one
//! whole scale, present only on a skin of at most [`MAX_GPU_JOINTS`] joints).
//!
//! Every count is checked against the accessor it comes from before anything is allocated,
//! and every error names the place in the file.

use super::error::GlbErrorKind;
use super::glb::{invalid, join, Accessor, Document, R};
use glam::DMat4;
use gltf_json as json;
use json::mesh::Semantic;
use json::validation::Checked;

/// Bytes per vertex of the skinning stream.
pub const SKINNING_STRIDE: u32 = 12;
/// The most joints a skin may bind and still get a skinning stream (an 8-bit index).
pub const MAX_GPU_JOINTS: usize = 256;

/// JOINTS_0 and WEIGHTS_0 of one primitive, one entry per vertex.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinWeights {
    /// Four joint indices into the skin's `joints`.
    pub joints: Vec<[u16; 4]>,
    /// Their weights, as authored (a zero-sum vertex keeps zeros).
    pub weights: Vec<[f32; 4]>,
}

/// One morph target's displacements, one per vertex.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphTarget {
    /// POSITION deltas (zero where the target authored none).
    pub position: Vec<[f32; 3]>,
    /// NORMAL deltas, when authored.
    pub normal: Option<Vec<[f32; 3]>>,
}

/// A skin: the joints its vertices index and each joint's inverse bind matrix.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skin {
    /// The skin's name (empty when the file gives none).
    pub name: String,
    /// Each joint's node; `None` for a joint a compaction dropped (it stays at its bind).
    pub joints: Vec<Option<usize>>,
    /// One per joint (identity when the file gives none, as glTF says).
    pub inverse_bind: Vec<DMat4>,
    /// The `skeleton` root node, when authored.
    pub skeleton: Option<usize>,
}

/// What a channel animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelPath {
    /// `translation`: VEC3 values.
    Translation,
    /// `rotation`: quaternions, `x y z w`.
    Rotation,
    /// `scale`: VEC3 values.
    Scale,
    /// `weights`: one value per morph target a key.
    Weights,
}

/// How a sampler interpolates between keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Linear (slerp for rotations).
    Linear,
    /// Step: a key's value holds until the next key.
    Step,
    /// Cubic spline: each key carries an in-tangent, a value and an out-tangent.
    CubicSpline,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// The node it moves.
    pub node: usize,
    /// What it animates.
    pub path: ChannelPath,
    /// How keys interpolate.
    pub interpolation: Interpolation,
    /// Key times, seconds, non-decreasing.
    pub times: Vec<f32>,
    /// The output values, flat: `times.len() × width` (× 3 for a cubic spline).
    pub values: Vec<f32>,
}

/// An animation clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Animation {
    /// The clip's name (`#index` when the file gives none).
    pub name: String,
    /// Its channels.
    pub channels: Vec<Channel>,
}

impl Animation {
    /// The clip's length: its last key time (zero with no keys).
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0, f32::max)
    }
}

/// The skinning stream of `skin` (spec 003, "GPU vertex streams"): per vertex four unorm16
/// weights quantized by largest remainder so they sum to exactly 65535, then four u8 joint
/// indices; `None` when a joint index does not fit in eight bits (the skin is past
/// [`MAX_GPU_JOINTS`] and is deformed on the CPU). A vertex whose weights sum to zero binds
/// its first joint whole.
pub fn pack_skinning(skin: &SkinWeights) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(skin.joints.len() * SKINNING_STRIDE as usize);
    for (j, w) in skin.joints.iter().zip(&skin.weights) {
        let mut idx = [0u8; 4];
        for k in 0..4 {
            idx[k] = u8::try_from(j[k]).ok()?;
        }
        for q in quantize_weights(*w) {
            out.extend_from_slice(&q.to_le_bytes());
        }
        out.extend_from_slice(&idx);
    }
    Some(out)
}

/// Four weights to unorm16 summing to exactly 65535 (largest remainder).
fn quantize_weights(w: [f32; 4]) -> [u16; 4] {
    let w = w.map(|x| {
        if x.is_finite() && x > 0.0 {
            f64::from(x)
        } else {
            0.0
        }
    });
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 {
        return [65535, 0, 0, 0];
    }
    let scaled = w.map(|x| x / sum * 65535.0);
    let mut q = scaled.map(|x| x.floor() as u32);
    let mut left = 65535 - q.iter().sum::<u32>();
    let mut order = [0usize, 1, 2, 3];
    // Largest remainder first; ties to the lower lane, so the result is deterministic.
    order.sort_by(|a, b| {
        let ra = scaled[*a] - scaled[*a].floor();
        let rb = scaled[*b] - scaled[*b].floor();
        rb.total_cmp(&ra).then(a.cmp(b))
    });
    for k in order.iter().cycle() {
        if left == 0 {
            break;
        }
        q[*k] += 1;
        left -= 1;
    }
    q.map(|x| x.min(65535) as u16)
}

/// An attribute accessor of a primitive, its count checked against `n`.
fn counted(doc: &Document<'_>, index: usize, place: &str, what: &str, n: usize) -> R<Accessor> {
    let acc = doc.accessor(index, &format!("{place}.{what}"))?;
    if acc.count != n {
        return Err(GlbErrorKind::CountMismatch {
            place: place.to_string(),
            attribute: what.to_string(),
            count: acc.count,
            positions: n,
        });
    }
    Ok(acc)
}

/// JOINTS_0 / WEIGHTS_0 of a primitive with `n` vertices (both or neither).
pub(crate) fn read_skin_weights(
    doc: &Document<'_>,
    prim: &json::mesh::Primitive,
    place: &str,
    n: usize,
) -> R<Option<SkinWeights>> {
    let j = prim.attributes.get(&Checked::Valid(Semantic::Joints(0)));
    let w = prim.attributes.get(&Checked::Valid(Semantic::Weights(0)));
    let (j, w) = match (j, w) {
        (None, None) => return Ok(None),
        (Some(j), Some(w)) => (j.value(), w.value()),
        (Some(_), None) => {
            return Err(invalid(
                join(place, "attributes"),
                "WEIGHTS_0 beside JOINTS_0",
            ))
        }
        (None, Some(_)) => {
            return Err(invalid(
                join(place, "attributes"),
                "JOINTS_0 beside WEIGHTS_0",
            ))
        }
    };
    let ja = counted(doc, j, place, "attributes.JOINTS_0", n)?;
    let wa = counted(doc, w, place, "attributes.WEIGHTS_0", n)?;
    if ja.width != 4 || ja.matrix || ja.component.is_float() || ja.normalized {
        return Err(invalid(
            format!("{} (JOINTS_0)", ja.place),
            "a VEC4 of unsigned bytes or shorts",
        ));
    }
    if wa.width != 4 || wa.matrix {
        return Err(invalid(
            format!("{} (WEIGHTS_0)", wa.place),
            "a VEC4 of floats or normalized integers",
        ));
    }
    let cap = n.saturating_mul(4);
    let jv = doc.read_floats(&ja, cap)?;
    let wv = doc.read_floats(&wa, cap)?;
    let mut joints = Vec::with_capacity(n);
    for (i, c) in jv.chunks_exact(4).enumerate() {
        let mut q = [0u16; 4];
        for k in 0..4 {
            if !(0.0..=65535.0).contains(&c[k]) {
                return Err(invalid(
                    format!("{} (JOINTS_0) vertex {i}", ja.place),
                    format!("a joint index in 0..65535, found {}", c[k]),
                ));
            }
            q[k] = c[k] as u16;
        }
        joints.push(q);
    }
    let weights = wv
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    Ok(Some(SkinWeights { joints, weights }))
}

/// A primitive's morph targets (POSITION and NORMAL deltas; TANGENT deltas are not read).
pub(crate) fn read_targets(
    doc: &Document<'_>,
    prim: &json::mesh::Primitive,
    place: &str,
    n: usize,
    max_values: usize,
) -> R<Vec<MorphTarget>> {
    let Some(targets) = &prim.targets else {
        return Ok(Vec::new());
    };
    if targets.len().saturating_mul(n) > max_values {
        return Err(GlbErrorKind::TooLarge {
            what: format!("{place}: morph target vertices"),
            got: targets.len().saturating_mul(n),
            limit: max_values,
        });
    }
    let cap = n.saturating_mul(3);
    let vec3 = |acc: &Accessor, key: &str| -> R<Vec<[f32; 3]>> {
        if acc.width != 3 || acc.matrix {
            return Err(invalid(format!("{} ({key})", acc.place), "a VEC3"));
        }
        Ok(doc
            .read_floats(acc, cap)?
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect())
    };
    let mut out = Vec::with_capacity(targets.len());
    for (t, target) in targets.iter().enumerate() {
        let tp = format!("{place}.targets[{t}]");
        let position = match target.positions {
            Some(i) => vec3(&counted(doc, i.value(), &tp, "POSITION", n)?, "POSITION")?,
            None => vec![[0.0; 3]; n],
        };
        let normal = match target.normals {
            Some(i) => Some(vec3(&counted(doc, i.value(), &tp, "NORMAL", n)?, "NORMAL")?),
            None => None,
        };
        out.push(MorphTarget { position, normal });
    }
    Ok(out)
}

/// `mesh.extras.targetNames`, when it is an array of strings.
pub(crate) fn target_names(mesh: &json::Mesh) -> Vec<String> {
    let Some(raw) = mesh.extras.as_ref() else {
        return Vec::new();
    };
    let Ok(v) = json::deserialize::from_str::<json::Value>(raw.get()) else {
        return Vec::new();
    };
    match v.get("targetNames").and_then(|t| t.as_array()) {
        Some(a) => a
            .iter()
            .map(|s| s.as_str().unwrap_or("").to_string())
            .collect(),
        None => Vec::new(),
    }
}

/// Reads a MAT4 float accessor: `count` column-major matrices.
fn read_matrices(doc: &Document<'_>, acc: &Accessor, count: usize) -> R<Vec<DMat4>> {
    if !acc.matrix || acc.width != 16 || !acc.component.is_float() {
        return Err(invalid(&acc.place, "a MAT4 of floats"));
    }
    if acc.count < count {
        return Err(invalid(
            &acc.place,
            format!(
                "at least {count} matrices (one per joint), found {}",
                acc.count
            ),
        ));
    }
    let mut flat = acc.clone();
    flat.matrix = false;
    // Only the matrices the joints use are kept; the read is bounded by the joints (a
    // longer accessor is read up to a joint count's worth past them, else refused).
    let cap = count.saturating_add(1024).saturating_mul(16);
    let v = doc.read_floats(&flat, cap)?;
    Ok(v.chunks_exact(16)
        .take(count)
        .map(|c| {
            let mut m = [0.0f64; 16];
            for (o, x) in m.iter_mut().zip(c) {
                *o = f64::from(*x);
            }
            DMat4::from_cols_array(&m)
        })
        .collect())
}

/// Every skin of the file, joints as the file's node numbers.
pub(crate) fn read_skins(doc: &Document<'_>, node_count: usize) -> R<Vec<Skin>> {
    let mut out = Vec::with_capacity(doc.root.skins.len());
    for (s, skin) in doc.root.skins.iter().enumerate() {
        let place = format!("skins[{s}]");
        let mut joints = Vec::with_capacity(skin.joints.len().min(node_count));
        for (k, j) in skin.joints.iter().enumerate() {
            let j = j.value();
            if j >= node_count {
                return Err(invalid(
                    format!("{place}.joints[{k}]"),
                    format!("a node index below {node_count}, found {j}"),
                ));
            }
            joints.push(Some(j));
        }
        let inverse_bind = match skin.inverse_bind_matrices {
            Some(i) => {
                let acc = doc.accessor(i.value(), &join(&place, "inverseBindMatrices"))?;
                read_matrices(doc, &acc, joints.len())?
            }
            None => vec![DMat4::IDENTITY; joints.len()],
        };
        let skeleton = match skin.skeleton.map(|n| n.value()) {
            Some(n) if n >= node_count => {
                return Err(invalid(
                    join(&place, "skeleton"),
                    format!("a node index below {node_count}, found {n}"),
                ))
            }
            other => other,
        };
        out.push(Skin {
            name: skin.name.clone().unwrap_or_default(),
            joints,
            inverse_bind,
            skeleton,
        });
    }
    Ok(out)
}

/// Every animation of the file, nodes as the file's numbers; `max_values` bounds the keys
/// and values read over all of them.
pub(crate) fn read_animations(
    doc: &Document<'_>,
    node_count: usize,
    max_values: usize,
) -> R<Vec<Animation>> {
    let mut room = max_values;
    let mut out = Vec::with_capacity(doc.root.animations.len());
    for (a, anim) in doc.root.animations.iter().enumerate() {
        let place = format!("animations[{a}]");
        let name = match anim.name.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("#{a}"),
        };
        let mut channels = Vec::with_capacity(anim.channels.len());
        for (c, ch) in anim.channels.iter().enumerate() {
            let cp = format!("{place}.channels[{c}]");
            let node = ch.target.node.value();
            if node >= node_count {
                return Err(invalid(
                    join(&cp, "target.node"),
                    format!("a node index below {node_count}, found {node}"),
                ));
            }
            let (path, width) = match ch.target.path {
                Checked::Valid(json::animation::Property::Translation) => {
                    (ChannelPath::Translation, 3)
                }
                Checked::Valid(json::animation::Property::Rotation) => (ChannelPath::Rotation, 4),
                Checked::Valid(json::animation::Property::Scale) => (ChannelPath::Scale, 3),
                Checked::Valid(json::animation::Property::MorphTargetWeights) => {
                    (ChannelPath::Weights, 1)
                }
                Checked::Invalid => {
                    return Err(invalid(
                        join(&cp, "target.path"),
                        "translation, rotation, scale or weights",
                    ))
                }
            };
            let si = ch.sampler.value();
            let sampler = anim.samplers.get(si).ok_or_else(|| {
                invalid(
                    join(&cp, "sampler"),
                    format!("a sampler index below {}, found {si}", anim.samplers.len()),
                )
            })?;
            let sp = format!("{place}.samplers[{si}]");
            let interpolation = match sampler.interpolation {
                Checked::Valid(json::animation::Interpolation::Linear) => Interpolation::Linear,
                Checked::Valid(json::animation::Interpolation::Step) => Interpolation::Step,
                Checked::Valid(json::animation::Interpolation::CubicSpline) => {
                    Interpolation::CubicSpline
                }
                Checked::Invalid => {
                    return Err(invalid(
                        join(&sp, "interpolation"),
                        "LINEAR, STEP or CUBICSPLINE",
                    ))
                }
            };
            let input = doc.accessor(sampler.input.value(), &join(&sp, "input"))?;
            let output = doc.accessor(sampler.output.value(), &join(&sp, "output"))?;
            if input.width != 1 || input.matrix || !input.component.is_float() {
                return Err(invalid(
                    &input.place,
                    "a SCALAR float accessor of key times",
                ));
            }
            let times = doc.read_floats(&input, room)?;
            room -= times.len();
            if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[0] > w[1]) {
                return Err(invalid(&input.place, "finite, non-decreasing key times"));
            }
            let values = doc.read_floats(&output, room)?;
            room -= values.len();
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            // `weights` channels carry one value per morph target a key: any multiple.
            let whole = if path == ChannelPath::Weights {
                !times.is_empty() && values.len() % (times.len() * per_key) == 0
            } else {
                output.width == width && values.len() == times.len() * width * per_key
            };
            if !whole {
                return Err(invalid(
                    &output.place,
                    format!(
                        "{} value(s) of {width} component(s) per key time ({} keys), found {}",
                        per_key,
                        times.len(),
                        values.len()
                    ),
                ));
            }
            channels.push(Channel {
                node,
                path,
                interpolation,
                times,
                values,
            });
        }
        out.push(Animation { name, channels });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_quantize_to_one_whole_scale_by_largest_remainder() {
        // Three thirds: 21845 each, 0 left over... 65535 / 3 = 21845 exactly.
        assert_eq!(
            quantize_weights([1.0, 1.0, 1.0, 0.0]),
            [21845, 21845, 21845, 0]
        );
        // 0.5 / 0.25 / 0.125 / 0.125 of 65535: 32767.5, 16383.75, 8191.875, 8191.875 ->
        // floors 32767 + 16383 + 8191 + 8191 = 65532, three left: the .875s, then .75.
        assert_eq!(
            quantize_weights([0.5, 0.25, 0.125, 0.125]),
            [32767, 16384, 8192, 8192]
        );
        assert_eq!(quantize_weights([0.0; 4]), [65535, 0, 0, 0]);
        let s = SkinWeights {
            joints: vec![[1, 2, 3, 255]],
            weights: vec![[0.5, 0.25, 0.125, 0.125]],
        };
        let b = pack_skinning(&s).unwrap();
        assert_eq!(b.len(), 12);
        assert_eq!(&b[8..12], &[1, 2, 3, 255]);
        assert_eq!(u16::from_le_bytes([b[0], b[1]]), 32767);
        let past = SkinWeights {
            joints: vec![[256, 0, 0, 0]],
            weights: vec![[1.0, 0.0, 0.0, 0.0]],
        };
        assert_eq!(pack_skinning(&past), None, "a joint past 255 has no stream");
    }
}
