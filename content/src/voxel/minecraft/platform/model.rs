//! Minecraft's JSON block models and blockstates, read leniently (an unknown member of
//! Mojang's format is ignored, since it is theirs and grows) but bounded: parent chains
//! stop at [`MAX_PARENT_DEPTH`] and a loop is an error naming the model, texture
//! variables resolve in at most [`MAX_TEXTURE_HOPS`] steps, and every error names the
//! file, with line and column where a value is wrong.

use std::collections::{BTreeMap, HashMap};

use crate::jsonc::{Kind, Value};
use crate::schema::block::Direction;

use super::source::Assets;
use super::PlatformError;

/// Deepest parent chain followed.
pub const MAX_PARENT_DEPTH: usize = 64;
/// Most `#variable` steps one texture reference takes.
pub const MAX_TEXTURE_HOPS: usize = 32;
/// Most elements one model may hold.
pub const MAX_ELEMENTS: usize = 4096;

/// A face after folding: the texture a pallet path.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedFace {
    /// `[u0, v0, u1, v1]`, explicit (the element's default filled in).
    pub uv: [f64; 4],
    /// `/textures/block/stone.png`.
    pub texture: String,
    /// The texture under `assets/minecraft/` (`textures/block/stone.png`).
    pub texture_file: String,
    /// Culled against.
    pub cull: Option<Direction>,
    /// Texture turn.
    pub rotation: u16,
    /// Tint index, when ≥ 0.
    pub tint: Option<i32>,
}

/// An element's rotation.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedRotation {
    /// Origin, 1/16 block.
    pub origin: [f64; 3],
    /// `x`, `y` or `z`.
    pub axis: crate::schema::block::Axis,
    /// Degrees.
    pub angle: f64,
    /// Rescaled.
    pub rescale: bool,
}

/// An element after folding.
#[derive(Debug, Clone, PartialEq)]
pub struct BakedElement {
    /// Minimum corner.
    pub from: [f64; 3],
    /// Maximum corner.
    pub to: [f64; 3],
    /// Its rotation.
    pub rotation: Option<BakedRotation>,
    /// Directional shading (default true).
    pub shade: bool,
    /// Its own light.
    pub light_emission: Option<u8>,
    /// Its faces.
    pub faces: Vec<(Direction, BakedFace)>,
}

/// A model with its parent chain folded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BakedModel {
    /// Ambient occlusion (default true).
    pub ambient_occlusion: bool,
    /// Its elements.
    pub elements: Vec<BakedElement>,
}

impl BakedModel {
    /// Whether it is one unturned element filling the whole block.
    pub fn is_full_cube(&self) -> bool {
        matches!(self.elements.as_slice(), [e] if e.rotation.is_none() && e.from == [0.0; 3] && e.to == [16.0; 3])
    }
}

/// `line:col` of a value in `text`.
fn at(text: &str, v: &Value) -> String {
    let off = (v.span.start as usize).min(text.len());
    let before = &text.as_bytes()[..off];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = off
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    format!("{line}:{col}")
}

/// A model or texture id (`minecraft:block/stone`, `block/stone`) split into its
/// namespace and path.
pub fn split_ref(r: &str) -> (&str, &str) {
    match r.split_once(':') {
        Some((ns, p)) => (ns, p),
        None => ("minecraft", r),
    }
}

/// The canonical id of a model reference: `minecraft:block/stone`.
pub fn model_id(r: &str) -> String {
    let (ns, p) = split_ref(r);
    format!("{ns}:{p}")
}

struct RawModel {
    file: String,
    parent: Option<String>,
    textures: Vec<(String, String)>,
    elements: Option<Vec<RawElement>>,
    ambient_occlusion: Option<bool>,
}

struct RawFace {
    dir: Direction,
    uv: Option<[f64; 4]>,
    texture: String,
    cull: Option<Direction>,
    rotation: u16,
    tint: Option<i32>,
    at: String,
}

struct RawElement {
    from: [f64; 3],
    to: [f64; 3],
    rotation: Option<BakedRotation>,
    shade: bool,
    light_emission: Option<u8>,
    faces: Vec<RawFace>,
}

/// Parses a JSON file of the jar: `Err` names it with the syntax error's place.
pub fn parse_json(name: &str, bytes: &[u8]) -> Result<(String, Value), PlatformError> {
    let text = String::from_utf8(bytes.to_vec()).map_err(|_| PlatformError::Asset {
        file: name.to_string(),
        message: "not UTF-8 text".into(),
    })?;
    let v = crate::jsonc::parse(&text).map_err(|e| {
        let (line, col) = line_col(&text, e.offset);
        PlatformError::Asset {
            file: name.to_string(),
            message: format!("{line}:{col}: {}", e.message),
        }
    })?;
    Ok((text, v))
}

fn line_col(text: &str, off: usize) -> (usize, usize) {
    let off = off.min(text.len());
    let b = &text.as_bytes()[..off];
    let line = b.iter().filter(|&&c| c == b'\n').count() + 1;
    (
        line,
        off - b.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1) + 1,
    )
}

fn direction(s: &str) -> Option<Direction> {
    match s {
        "bottom" => Some(Direction::Down),
        "top" => Some(Direction::Up),
        s => Direction::parse(s),
    }
}

/// A reader over one JSON file, making errors that name it and the place.
pub struct Json<'a> {
    /// The file's name.
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
}

impl Json<'_> {
    /// An error at `v`.
    pub fn err(&self, v: &Value, message: impl std::fmt::Display) -> PlatformError {
        PlatformError::Asset {
            file: self.file.to_string(),
            message: format!("{}: {message}", at(self.text, v)),
        }
    }

    /// `v` as exactly N numbers.
    pub fn numbers<const N: usize>(
        &self,
        v: &Value,
        what: &str,
    ) -> Result<[f64; N], PlatformError> {
        let items = v
            .as_array()
            .filter(|a| a.len() == N)
            .ok_or_else(|| self.err(v, format!("'{what}' must be {N} numbers")))?;
        let mut out = [0.0; N];
        for (o, i) in out.iter_mut().zip(items) {
            *o = i
                .as_f64()
                .filter(|n| n.is_finite())
                .ok_or_else(|| self.err(i, format!("'{what}' must be {N} numbers")))?;
        }
        Ok(out)
    }

    /// `v` as a whole number in `lo..=hi`.
    pub fn int(&self, v: &Value, what: &str, lo: i64, hi: i64) -> Result<i64, PlatformError> {
        match v.as_f64() {
            Some(n) if n.fract() == 0.0 && n >= lo as f64 && n <= hi as f64 => Ok(n as i64),
            _ => Err(self.err(
                v,
                format!("'{what}' must be a whole number from {lo} to {hi}"),
            )),
        }
    }

    /// `v` as a bool.
    pub fn boolean(&self, v: &Value, what: &str) -> Result<bool, PlatformError> {
        match v.kind {
            Kind::Bool(b) => Ok(b),
            _ => Err(self.err(v, format!("'{what}' must be true or false"))),
        }
    }

    /// `v` as a string.
    pub fn string<'v>(&self, v: &'v Value, what: &str) -> Result<&'v str, PlatformError> {
        v.as_str()
            .ok_or_else(|| self.err(v, format!("'{what}' must be a string")))
    }
}

fn read_model(file: &str, bytes: &[u8]) -> Result<RawModel, PlatformError> {
    let (text, v) = parse_json(file, bytes)?;
    let j = Json { file, text: &text };
    if v.as_object().is_none() {
        return Err(j.err(&v, "a model must be a JSON object"));
    }
    let mut m = RawModel {
        file: file.to_string(),
        parent: None,
        textures: Vec::new(),
        elements: None,
        ambient_occlusion: None,
    };
    if let Some(p) = v.get("parent") {
        m.parent = Some(j.string(p, "parent")?.to_string());
    }
    if let Some(ao) = v.get("ambientocclusion") {
        m.ambient_occlusion = Some(j.boolean(ao, "ambientocclusion")?);
    }
    if let Some(t) = v.get("textures") {
        let members = t
            .as_object()
            .ok_or_else(|| j.err(t, "'textures' must be an object"))?;
        for mem in members {
            // A texture is a string, or (newer jars) an object naming its `sprite`.
            let v = mem.value.get("sprite").unwrap_or(&mem.value);
            m.textures
                .push((mem.key.clone(), j.string(v, "textures")?.to_string()));
        }
    }
    if let Some(es) = v.get("elements") {
        let items = es
            .as_array()
            .ok_or_else(|| j.err(es, "'elements' must be an array"))?;
        if items.len() > MAX_ELEMENTS {
            return Err(j.err(
                es,
                format!(
                    "{} elements; a model may hold at most {MAX_ELEMENTS}",
                    items.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(items.len());
        for e in items {
            out.push(read_element(&j, e)?);
        }
        m.elements = Some(out);
    }
    Ok(m)
}

fn read_element(j: &Json, e: &Value) -> Result<RawElement, PlatformError> {
    if e.as_object().is_none() {
        return Err(j.err(e, "an element must be an object"));
    }
    let req = |k: &str| {
        e.get(k)
            .ok_or_else(|| j.err(e, format!("an element needs '{k}'")))
    };
    let from = j.numbers::<3>(req("from")?, "from")?;
    let to = j.numbers::<3>(req("to")?, "to")?;
    let rotation = match e.get("rotation") {
        None => None,
        Some(r) => {
            let origin = r
                .get("origin")
                .map(|o| j.numbers::<3>(o, "origin"))
                .transpose()?
                .unwrap_or([8.0; 3]);
            // `axis` and `angle`, or (newer jars) the angle under the axis's own name.
            let (axis, angle_v) = match r.get("axis") {
                Some(axis_v) => {
                    let axis = crate::schema::block::Axis::parse(j.string(axis_v, "axis")?)
                        .ok_or_else(|| j.err(axis_v, "'axis' must be x, y or z"))?;
                    let angle_v = r
                        .get("angle")
                        .ok_or_else(|| j.err(r, "a rotation needs 'angle'"))?;
                    (axis, angle_v)
                }
                None => ["x", "y", "z"]
                    .into_iter()
                    .find_map(|a| {
                        let axis = crate::schema::block::Axis::parse(a)?;
                        r.get(a).map(|v| (axis, v))
                    })
                    .ok_or_else(|| j.err(r, "a rotation needs 'axis' and 'angle'"))?,
            };
            let angle = angle_v
                .as_f64()
                .filter(|a| a.is_finite() && a.abs() <= 360.0)
                .ok_or_else(|| j.err(angle_v, "'angle' must be a number of degrees"))?;
            let rescale = r
                .get("rescale")
                .map(|b| j.boolean(b, "rescale"))
                .transpose()?
                .unwrap_or(false);
            Some(BakedRotation {
                origin,
                axis,
                angle,
                rescale,
            })
        }
    };
    let shade = e
        .get("shade")
        .map(|b| j.boolean(b, "shade"))
        .transpose()?
        .unwrap_or(true);
    let light_emission = e
        .get("light_emission")
        .map(|l| j.int(l, "light_emission", 0, 15).map(|n| n as u8))
        .transpose()?;
    let mut faces = Vec::new();
    if let Some(fs) = e.get("faces") {
        let members = fs
            .as_object()
            .ok_or_else(|| j.err(fs, "'faces' must be an object"))?;
        for m in members {
            let dir = direction(&m.key).ok_or_else(|| {
                j.err(
                    &m.value,
                    format!(
                        "'{}' is not a face; expected down, up, north, south, west or east",
                        m.key
                    ),
                )
            })?;
            let f = &m.value;
            let tex = f
                .get("texture")
                .ok_or_else(|| j.err(f, "a face needs 'texture'"))?;
            let cull = match f.get("cullface") {
                None => None,
                Some(c) => Some(direction(j.string(c, "cullface")?).ok_or_else(|| {
                    j.err(c, "'cullface' must be down, up, north, south, west or east")
                })?),
            };
            let rotation = match f.get("rotation") {
                None => 0,
                Some(r) => {
                    let n = j.int(r, "rotation", 0, 270)?;
                    if n % 90 != 0 {
                        return Err(j.err(r, "a face's 'rotation' must be 0, 90, 180 or 270"));
                    }
                    n as u16
                }
            };
            let tint = f
                .get("tintindex")
                .map(|t| {
                    j.int(t, "tintindex", i32::MIN as i64, i32::MAX as i64)
                        .map(|n| n as i32)
                })
                .transpose()?
                .filter(|t| *t >= 0);
            faces.push(RawFace {
                dir,
                uv: f.get("uv").map(|u| j.numbers::<4>(u, "uv")).transpose()?,
                texture: j.string(tex, "texture")?.to_string(),
                cull,
                rotation,
                tint,
                at: at(j.text, f),
            });
        }
    }
    Ok(RawElement {
        from,
        to,
        rotation,
        shade,
        light_emission,
        faces,
    })
}

/// Minecraft's default UV of a face: the element's own extent on that face.
pub fn default_uv(dir: Direction, from: [f64; 3], to: [f64; 3]) -> [f64; 4] {
    match dir {
        Direction::Down => [from[0], 16.0 - to[2], to[0], 16.0 - from[2]],
        Direction::Up => [from[0], from[2], to[0], to[2]],
        Direction::North => [16.0 - to[0], 16.0 - to[1], 16.0 - from[0], 16.0 - from[1]],
        Direction::South => [from[0], 16.0 - to[1], to[0], 16.0 - from[1]],
        Direction::West => [from[2], 16.0 - to[1], to[2], 16.0 - from[1]],
        Direction::East => [16.0 - to[2], 16.0 - to[1], 16.0 - from[2], 16.0 - from[1]],
    }
}

/// Folds models on demand and keeps each once.
pub struct Models<'a> {
    assets: &'a Assets,
    raw: HashMap<String, RawModel>,
    baked: HashMap<String, BakedModel>,
    /// What folding noticed and worked around (a face whose texture is missing).
    pub warnings: Vec<String>,
}

impl<'a> Models<'a> {
    /// Models read from `assets`.
    pub fn new(assets: &'a Assets) -> Self {
        Models {
            assets,
            raw: HashMap::new(),
            baked: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    fn file_of(id: &str) -> String {
        let (_, p) = split_ref(id);
        format!("models/{p}.json")
    }

    fn load(&mut self, id: &str, wanted_by: Option<&str>) -> Result<(), PlatformError> {
        if self.raw.contains_key(id) {
            return Ok(());
        }
        let (ns, _) = split_ref(id);
        let rel = Self::file_of(id);
        let name = self.assets.name(&rel);
        let bytes = (ns == "minecraft")
            .then(|| self.assets.files.get(&rel))
            .flatten()
            .ok_or_else(|| PlatformError::Asset {
                file: wanted_by.map_or(name.clone(), str::to_string),
                message: match wanted_by {
                    Some(_) => format!("the model '{id}' it names ({name}) is not in the source"),
                    None => format!("the model '{id}' is not in the source"),
                },
            })?;
        let m = read_model(&name, bytes)?;
        self.raw.insert(id.to_string(), m);
        Ok(())
    }

    /// The model `r` (`minecraft:block/stone`) with its parents folded. `wanted_by` names
    /// the file that asks for it, for the error when it is missing.
    pub fn bake(&mut self, r: &str, wanted_by: &str) -> Result<&BakedModel, PlatformError> {
        let id = model_id(r);
        if !self.baked.contains_key(&id) {
            let m = self.fold(&id, wanted_by)?;
            self.baked.insert(id.clone(), m);
        }
        Ok(&self.baked[&id])
    }

    fn fold(&mut self, id: &str, wanted_by: &str) -> Result<BakedModel, PlatformError> {
        // The chain, child first.
        let mut chain: Vec<String> = Vec::new();
        let mut cur = id.to_string();
        let mut asker = wanted_by.to_string();
        loop {
            if let Some(pos) = chain.iter().position(|c| *c == cur) {
                let mut names: Vec<&str> = chain[pos..].iter().map(String::as_str).collect();
                names.push(&cur);
                let file = self.raw[&chain[pos]].file.clone();
                return Err(PlatformError::Asset {
                    file,
                    message: format!("its parent chain loops: {}", names.join(" → ")),
                });
            }
            if chain.len() >= MAX_PARENT_DEPTH {
                return Err(PlatformError::Asset {
                    file: self.raw[&chain[0]].file.clone(),
                    message: format!("its parent chain is deeper than {MAX_PARENT_DEPTH} models"),
                });
            }
            self.load(&cur, Some(&asker))?;
            chain.push(cur.clone());
            let raw = &self.raw[&cur];
            match &raw.parent {
                Some(p) if !split_ref(p).1.starts_with("builtin/") => {
                    asker = raw.file.clone();
                    cur = model_id(p);
                }
                _ => break,
            }
        }
        // Textures: root first, each child's over its parent's. Elements and ambient
        // occlusion: the nearest that states them.
        let mut textures: BTreeMap<String, String> = BTreeMap::new();
        for c in chain.iter().rev() {
            for (k, v) in &self.raw[c].textures {
                textures.insert(k.clone(), v.clone());
            }
        }
        let ao = chain
            .iter()
            .find_map(|c| self.raw[c].ambient_occlusion)
            .unwrap_or(true);
        let Some(owner) = chain.iter().find(|c| self.raw[*c].elements.is_some()) else {
            return Ok(BakedModel {
                ambient_occlusion: ao,
                elements: Vec::new(),
            });
        };
        let owner = &self.raw[owner];
        let file = self.raw[id].file.clone();
        let mut warnings = Vec::new();
        let mut elements = Vec::new();
        for e in owner.elements.iter().flatten() {
            let mut faces = Vec::new();
            for f in &e.faces {
                match resolve_texture(&f.texture, &textures) {
                    Ok(t) => {
                        let (ns, p) = split_ref(&t);
                        let rel = format!("textures/{p}.png");
                        if ns != "minecraft" || !self.assets.files.contains_key(&rel) {
                            warnings.push(format!(
                                "{file}: face {} ({}) names the texture '{t}', which is not in the source; the face is left out",
                                f.dir, f.at
                            ));
                            continue;
                        }
                        faces.push((
                            f.dir,
                            BakedFace {
                                uv: f.uv.unwrap_or_else(|| default_uv(f.dir, e.from, e.to)),
                                texture: format!("/{rel}"),
                                texture_file: rel,
                                cull: f.cull,
                                rotation: f.rotation,
                                tint: f.tint,
                            },
                        ));
                    }
                    Err(why) => warnings.push(format!(
                        "{file}: face {} ({}): {why}; the face is left out",
                        f.dir, f.at
                    )),
                }
            }
            elements.push(BakedElement {
                from: e.from,
                to: e.to,
                rotation: e.rotation.clone(),
                shade: e.shade,
                light_emission: e.light_emission,
                faces,
            });
        }
        self.warnings.extend(warnings);
        Ok(BakedModel {
            ambient_occlusion: ao,
            elements,
        })
    }
}

/// Follows `#variable`s through `textures` to a texture id.
fn resolve_texture(r: &str, textures: &BTreeMap<String, String>) -> Result<String, String> {
    let mut cur = r;
    for _ in 0..MAX_TEXTURE_HOPS {
        match cur.strip_prefix('#') {
            Some(var) => {
                cur = textures.get(var).ok_or_else(|| {
                    format!("the texture variable '#{var}' is not set along the parent chain")
                })?;
            }
            None => return Ok(cur.to_string()),
        }
    }
    Err(format!(
        "the texture '{r}' does not resolve in {MAX_TEXTURE_HOPS} steps (a loop of variables)"
    ))
}

impl Models<'_> {
    /// Models folded so far.
    pub fn baked_count(&self) -> usize {
        self.baked.len()
    }
}
