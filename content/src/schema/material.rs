//! `dh.material` (`.dh-mat`): how a surface draws and what it is made of. The spec names
//! the asset without defining its bytes; ARCHITECTURE.md fixes the closed field set.

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Kind, Value};
use crate::read::{parse_source, read_block, Cx, FromJson, Mode, ToJson};
use crate::schema::surface::{surface_names, surface_preset};

/// An sRGB color: three or four numbers in `[0, 1]` (`[r, g, b]` or `[r, g, b, a]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Srgb {
    /// Red, green, blue, alpha (alpha 1 when three numbers were written).
    pub rgba: [f64; 4],
    /// Whether the alpha was written.
    pub has_alpha: bool,
}

impl Default for Srgb {
    fn default() -> Self {
        Srgb {
            rgba: [1.0; 4],
            has_alpha: false,
        }
    }
}

impl Srgb {
    /// The color converted to linear light (alpha unchanged), as the renderer reads it.
    pub fn to_linear(&self) -> [f32; 4] {
        let f = |c: f64| -> f32 {
            let c = c.clamp(0.0, 1.0);
            (if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }) as f32
        };
        [
            f(self.rgba[0]),
            f(self.rgba[1]),
            f(self.rgba[2]),
            self.rgba[3] as f32,
        ]
    }
}

impl FromJson for Srgb {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Kind::Array(items) = &v.kind else {
            cx.expected("an sRGB color [r, g, b] or [r, g, b, a]", v);
            return None;
        };
        if items.len() != 3 && items.len() != 4 {
            cx.error(
                v.span,
                format!(
                    "expected an sRGB color of three or four numbers, found {} items",
                    items.len()
                ),
            );
            return None;
        }
        let mut rgba = [1.0; 4];
        for (slot, item) in rgba.iter_mut().zip(items) {
            match item.kind {
                Kind::Number(n) if (0.0..=1.0).contains(&n) => *slot = n,
                Kind::Number(n) => {
                    cx.error(
                        item.span,
                        format!("a color channel must be within [0, 1], found {n}"),
                    );
                    return None;
                }
                _ => {
                    cx.expected("a number in [0, 1]", item);
                    return None;
                }
            }
        }
        Some(Srgb {
            rgba,
            has_alpha: items.len() == 4,
        })
    }
}

impl ToJson for Srgb {
    fn to_json(&self) -> Value {
        let n = if self.has_alpha { 4 } else { 3 };
        Value::synthetic(Kind::Array(
            self.rgba[..n]
                .iter()
                .map(|c| Value::synthetic(Kind::Number(*c)))
                .collect(),
        ))
    }
}

tokens! {
    /// How a material shades.
    pub enum Shader as "shader" {
        /// Lit by the scene's lights, lightmaps and probes.
        #[default]
        Lit = "lit",
        /// Its color as is.
        Unlit = "unlit",
    }
}

tokens! {
    /// How a material's alpha is used.
    pub enum AlphaMode as "alphaMode" {
        /// Alpha ignored.
        #[default]
        Opaque = "opaque",
        /// Cutout at `alphaCutoff`.
        Mask = "mask",
        /// Blended (drawn opaque on maps; translucent on voxel faces).
        Blend = "blend",
    }
}

tokens! {
    /// Which faces draw.
    pub enum RenderFace as "renderFace" {
        /// Front faces only.
        #[default]
        Front = "front",
        /// Both sides.
        Both = "both",
    }
}

tokens! {
    /// A vertex color channel.
    pub enum Channel as "vertex color channel" {
        /// Red.
        #[default]
        R = "r",
        /// Green.
        G = "g",
        /// Blue.
        B = "b",
        /// Alpha.
        A = "a",
    }
}

block! {
    /// `detail`: a second layer painted over the base color, weighted per vertex by one
    /// channel of the mesh's COLOR_1 (spec 001, "Vertex colors": without COLOR_1 the weight
    /// is zero, so the layer does not show).
    pub struct MaterialDetail = "dh.material detail" {
        /// The COLOR_1 channel that weights the detail layer.
        req vertex_weight: Channel = "vertexWeight",
        /// The layer's color (sRGB; default white). Where the weight is 1 it replaces the
        /// base color (tint × texture); an alpha scales the weight.
        opt tint: Srgb = "tint",
    }
}

block! {
    /// `water`: the material is a body of water.
    pub struct MaterialWater = "dh.material water" {
        /// Density in kg/m³ (whether a swimmer sinks or floats). Default 1000.
        opt density: f64 = "density",
        /// Multiplies the world's swim drag; divides stroke, sprint and drift. Default 1.
        opt viscosity: f64 = "viscosity",
        /// How far an eye inside sees, in meters. Default 16.
        opt clarity: f64 = "clarity",
        /// The fog color an eye inside sees (sRGB).
        opt haze: Srgb = "haze",
        /// Meters over which the surface fades out at a shore. Default 0.5.
        opt shore_fade: f64 = "shoreFade",
    }
}

block! {
    /// `dh.material`: a closed field set.
    pub struct Material = "dh.material" {
        /// Another material this one reads unset fields from (a reference).
        opt inherits: String = "inherits",
        /// `lit` (default) or `unlit`.
        opt shader: Shader = "shader",
        /// The base-color texture (a reference).
        opt base_color: String = "baseColor",
        /// Multiplies the base color (sRGB; default white).
        opt tint: Srgb = "tint",
        /// Texture repeats per meter of UV, `[u, v]` (default `[1, 1]`).
        opt uv_scale: crate::schema::common::Vec2 = "uvScale",
        /// Emitted color (sRGB; default black).
        opt emissive_color: Srgb = "emissiveColor",
        /// Multiplies the emitted color (default 1).
        opt emissive_intensity: f64 = "emissiveIntensity",
        /// The emission texture (a reference).
        opt emissive_texture: String = "emissiveTexture",
        /// `opaque` (default), `mask`, `blend`.
        opt alpha_mode: AlphaMode = "alphaMode",
        /// The cutout threshold under `mask` (default 0.5).
        opt alpha_cutoff: f64 = "alphaCutoff",
        /// `front` (default) or `both`.
        opt render_face: RenderFace = "renderFace",
        /// Whether a lightmap bake counts this surface's emission as light (default true).
        opt bake_emission: bool = "bakeEmission",
        /// The surface preset it is made of (default stone).
        opt surface: String = "surface",
        /// A detail layer.
        opt detail: MaterialDetail = "detail",
        /// The material is water.
        opt water: MaterialWater = "water",
    }
}

impl Material {
    /// Default alpha cutoff under `mask`.
    pub const DEFAULT_ALPHA_CUTOFF: f64 = 0.5;

    /// Runs the material's build-time rules.
    pub fn validate(&self, cx: &mut Cx) {
        let at = &self.at;
        if let Some(s) = &self.surface {
            if surface_preset(s).is_none() {
                let msg = crate::read::unknown_token_message("surface preset", s, &surface_names());
                cx.error_at(at, at.field("surface"), msg);
            }
        }
        if let Some(c) = self.alpha_cutoff {
            if !(0.0..=1.0).contains(&c) {
                cx.error_at(
                    at,
                    at.field("alphaCutoff"),
                    format!("'alphaCutoff' must be within [0, 1], found {c}"),
                );
            }
            if self.alpha_mode != Some(AlphaMode::Mask) {
                cx.warning_at(
                    at,
                    at.field("alphaCutoff"),
                    "'alphaCutoff' is read only under alphaMode \"mask\"",
                );
            }
        }
        if let Some(i) = self.emissive_intensity {
            if i < 0.0 {
                cx.error_at(
                    at,
                    at.field("emissiveIntensity"),
                    format!("'emissiveIntensity' must not be negative, found {i}"),
                );
            }
        }
        if let Some(uv) = self.uv_scale {
            if uv.0.contains(&0.0) {
                cx.error_at(
                    at,
                    at.field("uvScale"),
                    "'uvScale' must not be zero on either axis",
                );
            }
        }
        if let Some(w) = &self.water {
            let wat = &w.at;
            for (name, v) in [
                ("density", w.density),
                ("viscosity", w.viscosity),
                ("clarity", w.clarity),
            ] {
                if let Some(v) = v {
                    if v <= 0.0 {
                        cx.error_at(
                            wat,
                            wat.field(name),
                            format!("water '{name}' must be positive, found {v}"),
                        );
                    }
                }
            }
            if let Some(s) = w.shore_fade {
                if s < 0.0 {
                    cx.error_at(
                        wat,
                        wat.field("shoreFade"),
                        format!("water 'shoreFade' must not be negative, found {s}"),
                    );
                }
            }
        }
    }

    /// The references this material names (base color, emission texture, parent), with the
    /// member each sits in.
    pub fn references(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        if let Some(p) = &self.inherits {
            out.push(("inherits", p.as_str()));
        }
        if let Some(p) = &self.base_color {
            out.push(("baseColor", p.as_str()));
        }
        if let Some(p) = &self.emissive_texture {
            out.push(("emissiveTexture", p.as_str()));
        }
        out
    }
}

/// Reads a `.dh-mat` source (`$type` is allowed and must be `dh.material`).
pub fn read_material(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<Material> {
    let v = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let v = strip_type(&mut cx, v, "dh.material")?;
    let m = read_block::<Material>(&mut cx, &v)?;
    m.validate(&mut cx);
    Some(m)
}

/// Removes an asset's optional `$type` member after checking it names `expected`
/// (the type is inferred from the extension; a wrong one is an error).
pub fn strip_type(cx: &mut Cx, mut v: Value, expected: &str) -> Option<Value> {
    if let Kind::Object(members) = &mut v.kind {
        if let Some(pos) = members.iter().position(|m| m.key == "$type") {
            let m = members.remove(pos);
            match m.value.as_str() {
                Some(t) if t == expected => {}
                _ => cx.error(
                    m.value.span,
                    format!("'$type' must be \"{expected}\" in this file (the type follows the file's extension)"),
                ),
            }
        }
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> (Option<Material>, Vec<String>) {
        let file = SourceFile::new("materials/m.dh-mat", text);
        let mut d = Diagnostics::new();
        let m = read_material(&file, &mut d, Mode::Build);
        (m, d.items.iter().map(|d| d.to_string()).collect())
    }

    #[test]
    fn reads_every_field_and_writes_back() {
        let text = r#"{"shader":"unlit","baseColor":"tex/a.png","tint":[1,0.5,0.25],"uvScale":[2,2],"emissiveColor":[0,0,0],"emissiveIntensity":2,"emissiveTexture":"tex/e.png","alphaMode":"mask","alphaCutoff":0.3,"renderFace":"both","bakeEmission":false,"surface":"ice","detail":{"vertexWeight":"g","tint":[0.2,0.6,0.15]},"water":{"density":1000,"viscosity":1.5,"clarity":8,"haze":[0.1,0.3,0.4],"shoreFade":0.5}}"#;
        let (m, d) = check(text);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(m.unwrap().to_json().to_json(), text);
    }

    #[test]
    fn closed_field_set() {
        let (_, d) = check("{\n  \"color\": [1, 0, 0]\n}");
        assert_eq!(d.len(), 1);
        assert!(d[0].starts_with("materials/m.dh-mat:2:3: error: unknown member 'color' in dh.material; the fields of dh.material are: inherits, shader, baseColor,"), "{d:?}");
    }

    #[test]
    fn rules() {
        let (_, d) = check(r#"{"surface":"lava"}"#);
        assert!(
            d[0].contains("'lava' is not a valid surface preset; expected one of: stone, grass,"),
            "{d:?}"
        );
        let (_, d) = check(r#"{"alphaMode":"mask","alphaCutoff":1.5}"#);
        assert!(
            d[0].contains("'alphaCutoff' must be within [0, 1], found 1.5"),
            "{d:?}"
        );
        let (_, d) = check(r#"{"tint":[2,0,0]}"#);
        assert!(
            d[0].contains("a color channel must be within [0, 1], found 2"),
            "{d:?}"
        );
        let (_, d) = check(r#"{"shader":"pbr"}"#);
        assert!(
            d[0].contains("'pbr' is not a valid shader; expected one of: lit, unlit"),
            "{d:?}"
        );
        let (_, d) = check(r#"{"water":{"density":0}}"#);
        assert!(
            d[0].contains("water 'density' must be positive, found 0"),
            "{d:?}"
        );
        let (_, d) = check(r#"{"$type":"dh.map"}"#);
        assert!(d[0].contains("'$type' must be \"dh.material\""), "{d:?}");
        let (_, d) = check(r#"{"$type":"dh.material","uvScale":[0,1]}"#);
        assert_eq!(d.len(), 1);
        assert!(d[0].contains("'uvScale' must not be zero"), "{d:?}");
    }

    #[test]
    fn srgb_to_linear() {
        let c = Srgb {
            rgba: [1.0, 0.5, 0.0, 1.0],
            has_alpha: false,
        };
        let l = c.to_linear();
        assert_eq!(l[0], 1.0);
        assert!((l[1] - 0.21404).abs() < 1e-4);
        assert_eq!(l[2], 0.0);
    }
}
