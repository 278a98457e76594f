//! Biome tints (spec 004 "Textures, transparency and tint": "A colormap tint is sampled by
//! the cell's biome ... DH's built-in biome table (minecraft.biomes, beside the block
//! tables) gives its temperature, downfall and the colors it states outright ... A cell
//! with no biome, and a container with no biome layer, reads as plains. A water tint is the
//! biome's water color. ... redstone wire and stems take theirs from their power and age").
//!
//! * [`BiomeTable`]: the `minecraft.biomes` table ([`MINECRAFT_BIOMES`], its values and
//!   sources in the file's header), or any table in its format ([`BiomeTable::parse`]).
//! * [`colormap_texel`]: where the game samples a 256x256 grass or foliage colormap for a
//!   temperature and downfall (`GrassColor.get` / `FoliageColor.get`: both clamped to 0 to
//!   1, downfall times temperature, `x = (int)((1 − t)·255)`, `y = (int)((1 − d)·255)`, the
//!   values the game's `float`s widened to `double`).
//! * [`Biome::grass`], [`Biome::foliage`], [`Biome::water`]: a biome's colours, its stated
//!   ones first, its grass modifier applied (`swamp`: the game's 6a7039; `dark_forest`:
//!   `((c & fefefe) + 28340a) >> 1`).
//! * [`redstone_color`] by power and [`stem_color`] by age, by the game's formulas
//!   (`RedStoneWireBlock`'s colour table, `BlockColors`' stem colour).

use std::collections::HashMap;
use std::sync::OnceLock;

/// The built-in `minecraft.biomes` table's text.
pub const MINECRAFT_BIOMES: &str = include_str!("tables/minecraft.biomes");

/// The water colour of a biome that states none (the game's default, 3f76e4).
pub const DEFAULT_WATER: [u8; 3] = [0x3f, 0x76, 0xe4];

/// The grass a swamp modifier gives (the game's `0x6A7039`, where its noise is not below
/// −0.1; the `0x4C763C` patches are not drawn yet).
pub const SWAMP_GRASS: [u8; 3] = [0x6a, 0x70, 0x39];

/// The colour a colormap sample past the image reads (the game's magenta).
pub const COLORMAP_MISS: [u8; 3] = [0xff, 0x00, 0xff];

/// A biome's grass colour modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GrassModifier {
    /// The colormap (or the stated grass).
    #[default]
    None,
    /// A swamp's grass ([`SWAMP_GRASS`]).
    Swamp,
    /// The colormap grass averaged with 28340a.
    DarkForest,
}

/// One biome of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Biome {
    /// Its id without the `minecraft:` namespace.
    pub id: String,
    /// Its temperature.
    pub temperature: f32,
    /// Its downfall.
    pub downfall: f32,
    /// The grass colour it states, if any.
    pub grass: Option<[u8; 3]>,
    /// The foliage colour it states, if any.
    pub foliage: Option<[u8; 3]>,
    /// Its water colour ([`DEFAULT_WATER`] unless stated).
    pub water: [u8; 3],
    /// Its grass modifier.
    pub modifier: GrassModifier,
}

/// A grass or foliage colormap: 256x256 RGBA8 texels, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colormap {
    /// 256 × 256 × 4 bytes.
    pub rgba: Vec<u8>,
}

/// Why a colormap or a biome table was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BiomeError {
    /// A colormap that is not 256x256.
    #[error("{path}: a colormap is 256x256 texels; this one is {width}x{height}")]
    ColormapSize {
        /// The file.
        path: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A line of a biome table that does not read.
    #[error("{path}:{line}: {expected}")]
    Line {
        /// The file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What was expected.
        expected: String,
    },
}

impl Colormap {
    /// A colormap from decoded texels (`path` names the PNG in errors).
    pub fn new(path: &str, width: u32, height: u32, rgba: Vec<u8>) -> Result<Colormap, BiomeError> {
        if width != 256 || height != 256 || rgba.len() != 256 * 256 * 4 {
            return Err(BiomeError::ColormapSize {
                path: path.to_string(),
                width,
                height,
            });
        }
        Ok(Colormap { rgba })
    }

    /// The colour at the texel the game samples for `temperature` and `downfall`.
    pub fn sample(&self, temperature: f32, downfall: f32) -> [u8; 3] {
        let (x, y) = colormap_texel(temperature, downfall);
        let i = (y as usize * 256 + x as usize) * 4;
        match self.rgba.get(i..i + 3) {
            Some(p) => [p[0], p[1], p[2]],
            None => COLORMAP_MISS,
        }
    }
}

/// The colormap texel `(x, y)` the game reads for `temperature` and `downfall`.
pub fn colormap_texel(temperature: f32, downfall: f32) -> (u32, u32) {
    let t = f64::from(temperature.clamp(0.0, 1.0));
    let d = f64::from(downfall.clamp(0.0, 1.0)) * t;
    let x = ((1.0 - t) * 255.0) as u32;
    let y = ((1.0 - d) * 255.0) as u32;
    (x.min(255), y.min(255))
}

fn dark_forest(c: [u8; 3]) -> [u8; 3] {
    let k = [0x28u16, 0x34, 0x0a];
    [0, 1, 2].map(|i| ((u16::from(c[i] & 0xfe) + k[i]) >> 1) as u8)
}

impl Biome {
    /// Its grass colour: stated, else the colormap's, through its modifier.
    pub fn grass(&self, colormap: &Colormap) -> [u8; 3] {
        let base = self
            .grass
            .unwrap_or_else(|| colormap.sample(self.temperature, self.downfall));
        match self.modifier {
            GrassModifier::None => base,
            GrassModifier::Swamp => SWAMP_GRASS,
            GrassModifier::DarkForest => dark_forest(base),
        }
    }

    /// Its foliage colour: stated, else the colormap's.
    pub fn foliage(&self, colormap: &Colormap) -> [u8; 3] {
        self.foliage
            .unwrap_or_else(|| colormap.sample(self.temperature, self.downfall))
    }

    /// Its water colour.
    pub fn water(&self) -> [u8; 3] {
        self.water
    }
}

/// A biome table: biomes by id, plains for anything it does not name.
#[derive(Debug, Clone)]
pub struct BiomeTable {
    biomes: Vec<Biome>,
    by_id: HashMap<String, usize>,
    plains: usize,
}

fn hex_color(s: &str) -> Option<[u8; 3]> {
    if s.len() != 6 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(s, 16).ok()?;
    Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

impl BiomeTable {
    /// The built-in `minecraft.biomes`, parsed once.
    pub fn builtin() -> &'static BiomeTable {
        static TABLE: OnceLock<BiomeTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            // The built-in file is ours and checked by the tests; a broken edit shows as
            // an empty table that reads every cell as the fallback plains.
            BiomeTable::parse("minecraft.biomes", MINECRAFT_BIOMES).unwrap_or_else(|_| {
                BiomeTable::from_biomes(vec![Biome {
                    id: "plains".into(),
                    temperature: 0.8,
                    downfall: 0.4,
                    grass: None,
                    foliage: None,
                    water: DEFAULT_WATER,
                    modifier: GrassModifier::None,
                }])
            })
        })
    }

    fn from_biomes(biomes: Vec<Biome>) -> BiomeTable {
        let by_id: HashMap<String, usize> = biomes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id.clone(), i))
            .collect();
        let plains = by_id.get("plains").copied().unwrap_or(0);
        BiomeTable {
            biomes,
            by_id,
            plains,
        }
    }

    /// Reads a table in `minecraft.biomes`' format (the file's header); it must name
    /// `plains`, the fallback.
    pub fn parse(path: &str, text: &str) -> Result<BiomeTable, BiomeError> {
        let mut biomes = Vec::new();
        let mut seen = HashMap::new();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let err = |expected: String| BiomeError::Line {
                path: path.to_string(),
                line,
                expected,
            };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let mut words = body.split_whitespace();
            let id = words.next().unwrap_or_default();
            let id = id.strip_prefix("minecraft:").unwrap_or(id).to_string();
            if seen.insert(id.clone(), line).is_some() {
                return Err(err(format!("{id} is named twice")));
            }
            let num = |w: Option<&str>, what: &str| {
                w.and_then(|w| w.parse::<f32>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| err(format!("{id}: its {what}, a number")))
            };
            let temperature = num(words.next(), "temperature")?;
            let downfall = num(words.next(), "downfall")?;
            let mut b = Biome {
                id: id.clone(),
                temperature,
                downfall,
                grass: None,
                foliage: None,
                water: DEFAULT_WATER,
                modifier: GrassModifier::None,
            };
            for w in words {
                let (k, v) = w
                    .split_once('=')
                    .ok_or_else(|| err(format!("{id}: `{w}`, where name=value was expected")))?;
                let color =
                    || hex_color(v).ok_or_else(|| err(format!("{id}: {k}={v}, a colour rrggbb")));
                match k {
                    "grass" => b.grass = Some(color()?),
                    "foliage" => b.foliage = Some(color()?),
                    "water" => b.water = color()?,
                    "modifier" => {
                        b.modifier = match v {
                            "swamp" => GrassModifier::Swamp,
                            "dark_forest" => GrassModifier::DarkForest,
                            _ => {
                                return Err(err(format!(
                                    "{id}: modifier={v}, swamp or dark_forest"
                                )))
                            }
                        }
                    }
                    _ => {
                        return Err(err(format!(
                            "{id}: `{k}`, one of grass, foliage, water, modifier"
                        )))
                    }
                }
            }
            biomes.push(b);
        }
        if !seen.contains_key("plains") {
            return Err(BiomeError::Line {
                path: path.to_string(),
                line: text.lines().count(),
                expected: "a plains row (what a cell with no biome reads as)".into(),
            });
        }
        Ok(BiomeTable::from_biomes(biomes))
    }

    /// The biome `id` names (with or without `minecraft:`), plains for `None` or an id the
    /// table does not name.
    pub fn get(&self, id: Option<&str>) -> &Biome {
        let i = id
            .map(|id| id.strip_prefix("minecraft:").unwrap_or(id))
            .and_then(|id| self.by_id.get(id).copied())
            .unwrap_or(self.plains);
        &self.biomes[i.min(self.biomes.len().saturating_sub(1))]
    }

    /// Whether the table names `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id
            .contains_key(id.strip_prefix("minecraft:").unwrap_or(id))
    }

    /// Every biome, in file order.
    pub fn biomes(&self) -> &[Biome] {
        &self.biomes
    }
}

/// Redstone wire's colour at `power` (0 to 15, clamped), by the game's table
/// (`RedStoneWireBlock`: `f = power/15`, red `f·0.6 + (f > 0 ? 0.4 : 0.3)`, green
/// `clamp(f²·0.7 − 0.5)`, blue `clamp(f²·0.6 − 0.7)`, each `floor(v·255)`, in `float`).
pub fn redstone_color(power: u8) -> [u8; 3] {
    let f = f32::from(power.min(15)) / 15.0;
    let r = f * 0.6 + if f > 0.0 { 0.4 } else { 0.3 };
    let g = (f * f * 0.7 - 0.5).clamp(0.0, 1.0);
    let b = (f * f * 0.6 - 0.7).clamp(0.0, 1.0);
    [r, g, b].map(|v| (v * 255.0).floor().clamp(0.0, 255.0) as u8)
}

/// A melon or pumpkin stem's colour at `age` (0 to 7, clamped), by the game's formula
/// (`BlockColors`: red `age·32`, green `255 − age·8`, blue `age·4`); an attached stem is
/// age 7's, e0c71c.
pub fn stem_color(age: u8) -> [u8; 3] {
    let a = age.min(7);
    [a * 32, 255 - a * 8, a * 4]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A colormap whose texel (x, y) is (x, y, 7).
    fn ramp() -> Colormap {
        let mut rgba = Vec::with_capacity(256 * 256 * 4);
        for y in 0..256u32 {
            for x in 0..256u32 {
                rgba.extend_from_slice(&[x as u8, y as u8, 7, 255]);
            }
        }
        Colormap::new("grass.png", 256, 256, rgba).expect("256x256")
    }

    /// Plains: t 0.8 and d 0.4 (floats: 0.800000011920929 and 0.4000000059604645),
    /// d·t = 0.32000000715, x = (int)(0.19999998808·255 = 50.99999696) = 50,
    /// y = (int)(0.67999999285·255 = 173.39999818) = 173.
    #[test]
    fn plains_samples_the_colormap_where_the_game_does() {
        let t = BiomeTable::builtin();
        let plains = t.get(Some("minecraft:plains"));
        assert_eq!((plains.temperature, plains.downfall), (0.8, 0.4));
        assert_eq!(colormap_texel(0.8, 0.4), (50, 173));
        let m = ramp();
        assert_eq!(plains.grass(&m), [50, 173, 7]);
        assert_eq!(plains.foliage(&m), [50, 173, 7]);
        assert_eq!(plains.water(), [0x3f, 0x76, 0xe4]);
        // No biome, and one the table does not name, read as plains.
        assert_eq!(t.get(None).id, "plains");
        assert_eq!(t.get(Some("minecraft:not_a_biome")).id, "plains");
        // Clamped: desert (2.0, 0.0) is x 0, y 255; a frozen peak (−0.7) x 255, y 255.
        assert_eq!(colormap_texel(2.0, 0.0), (0, 255));
        assert_eq!(colormap_texel(-0.7, 0.9), (255, 255));
    }

    /// Swamp states its foliage (6a7039) and water (617b64); its grass modifier gives
    /// 6a7039 whatever the colormap holds (which would be x 50, y (int)(0.28·255 ≈ 71.4)
    /// = 71).
    #[test]
    fn swamp_states_its_colours() {
        let t = BiomeTable::builtin();
        let swamp = t.get(Some("swamp"));
        let m = ramp();
        assert_eq!(colormap_texel(0.8, 0.9), (50, 71));
        assert_eq!(swamp.grass(&m), [0x6a, 0x70, 0x39]);
        assert_eq!(swamp.foliage(&m), [0x6a, 0x70, 0x39]);
        assert_eq!(swamp.water(), [0x61, 0x7b, 0x64]);
        let badlands = t.get(Some("badlands"));
        assert_eq!(badlands.grass(&m), [0x90, 0x81, 0x4d]);
        assert_eq!(badlands.foliage(&m), [0x9e, 0x81, 0x4d]);
        // Dark forest: t 0.7, d 0.8: x (int)(0.3·255 = 76.4999997) 76, y (int)(0.44·255
        // = 112.2) 112; the texel (76, 112, 7) through ((c & fe) + (28, 34, 0a)) >> 1:
        // (76 + 40)/2 = 58, (112 + 52)/2 = 82, (6 + 10)/2 = 8.
        let dark = t.get(Some("dark_forest"));
        assert_eq!(dark.grass(&m), [58, 82, 8]);
    }

    /// Power 0: red 0.3·255 = 76.5 → 76, the rest 0. Power 7: f 0.46667, red 0.68·255 =
    /// 173.4 → 173, green 0.2178·0.7 − 0.5 < 0 → 0. Power 15: red 255, green
    /// (0.7 − 0.5 = 0.19999999 in float)·255 = 50.99999 → 50, blue 0.
    #[test]
    fn redstone_by_power() {
        assert_eq!(redstone_color(0), [76, 0, 0]);
        assert_eq!(redstone_color(7), [173, 0, 0]);
        assert_eq!(redstone_color(15), [255, 50, 0]);
        assert_eq!(redstone_color(99), redstone_color(15));
    }

    /// Age 0: (0, 255, 0); age 3: (96, 231, 12); age 7: (224, 199, 28), e0c71c.
    #[test]
    fn stems_by_age() {
        assert_eq!(stem_color(0), [0, 255, 0]);
        assert_eq!(stem_color(3), [96, 231, 12]);
        assert_eq!(stem_color(7), [0xe0, 0xc7, 0x1c]);
        assert_eq!(stem_color(9), stem_color(7));
    }

    #[test]
    fn the_builtin_table_reads_and_bad_lines_are_named() {
        let t = BiomeTable::parse("minecraft.biomes", MINECRAFT_BIOMES).expect("reads");
        assert_eq!(t.biomes().len(), 65, "55 overworld, 5 nether, 5 end");
        assert!(t.contains("minecraft:cherry_grove"));
        let e = |text: &str| BiomeTable::parse("x.biomes", text).unwrap_err().to_string();
        assert_eq!(
            e("plains 0.8\n"),
            "x.biomes:1: plains: its downfall, a number"
        );
        assert_eq!(
            e("plains 0.8 0.4\nswamp 0.8 0.9 water=61z\n"),
            "x.biomes:2: swamp: water=61z, a colour rrggbb"
        );
        assert!(e("plains 0.8 0.4\nplains 1 1\n").contains("named twice"));
        assert!(e("desert 2 0\n").contains("a plains row"));
        assert!(e("plains 0.8 0.4 tint=ffffff\n").contains("one of grass"));
        assert!(e("plains 0.8 0.4 modifier=x\n").contains("swamp or dark_forest"));
        assert!(Colormap::new("foliage.png", 16, 16, vec![0; 1024]).is_err());
    }
}
