//! The "logic city": a procedural benchmark scene of many small logic clusters (blocks),
//! written as dh.map source text (JSONC) and built by the real compiler into a pallet.
//!
//! # One block
//!
//! Blocks stand on a square grid, [`BLOCK_PITCH`] meters apart; block `i`'s origin is
//! `(x, 0, z)`, its records are named `b{i}_{part}` ([`record_name`]), and every coordinate
//! below is relative to it (yaw 0 faces -Z; the pawn faces
//! +Z, yaw 180). Each block is:
//!
//! * `floor` (16 × 0.5 × 16, top at y 0), `back` wall and `post` under the button: box
//!   brushes, static colliders.
//! * `button` at (0, 1, 1.1) → `door.toggle`; `door` at (0, 1, 3) slides 2 m up over 1 s.
//!   `door.onOpened` → `and.setB(true)`, `door.onClosed` → `and.setB(false)`.
//! * `plate` (a pressure plate, 1.4 × 0.1 × 1.4) at (-2.5, 0.05, 0): `onStartTouch` →
//!   `timer.fire`, `or.setA(true)`, `not.setA(true)`; `onEndTouch` → `or.setA(false)`,
//!   `not.setA(false)`, `and.setA(false)`.
//! * `timer` (0.25 to 1 s, from the seed): `onTimer` → `and.setA(true)`.
//! * `and` → `lightA`, `or` → `lightB` (and, on its rising edge, the next block's
//!   `timer.fire`: the blocks are wired into one ring), `not` → `lightC` (on / off on the
//!   gate's edges; lightC starts lit, as the not gate's output starts true).
//! * `lift` (3 × 0.2 × 3 at (2.5, 0.1, 0)) rises 0.25 m over 1 s, low enough to step on at
//!   any height; `liftPlate` rides it (parented) and opens it while occupied (`onStartTouch`
//!   → `lift.open`, `or.setB(true)`; `onEndTouch` → `lift.close`, `or.setB(false)`);
//!   `liftLamp`, parented to the plate, is lit while the lift is fully open.
//! * `start` (dh.mapStart) → `fan.open`: `fan` spins at 60 to 180 °/s (from the seed) 3.5 m
//!   up with two `blade`s parented to it, so the carry resolver composes a moving parent
//!   every tick.
//! * `spawn`, a dh.spawnPoint at the block's origin.
//!
//! # The pawn
//!
//! One pawn per block stands at the block's origin facing the button (yaw 180, pitch -30)
//! and runs a [`CYCLE_TICKS`]-tick program from a phase the seed picks per block: press
//! Use (the button), strafe one way across the plate and back, then the other way onto the
//! lift's plate and back ([`City::pawn_commands`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use dh_content::compile::{compile_sources, AssetKind, CompileOptions, SourceData, SourceEntry};

/// Meters between neighboring blocks' origins.
pub const BLOCK_PITCH: f32 = 16.0;

/// Ticks of one pawn program cycle (4 s at 64 Hz).
pub const CYCLE_TICKS: u64 = 256;

/// Ticks each strafe of the pawn program is held (2.75 m at 4 m/s).
pub const STRAFE_TICKS: u64 = 44;

/// Blocks in the default city: 256 blocks of 16 logic entities, 4096 in all.
pub const DEFAULT_BLOCKS: usize = 256;

/// The default seed.
pub const DEFAULT_SEED: u64 = 0xc17e_5eed;

/// The city's pallet id.
pub const PALLET_ID: &str = "bench.city";

/// The map's pallet-relative path.
pub const MAP_PATH: &str = "maps/city.dh-map";

/// Logic entities in one block: button, door, plate, timer, and, or, not, lightA, lightB,
/// lightC, lift, liftPlate, liftLamp, start, fan (15), plus spawn, which is a spawn point
/// and no logic entity; see [`City::logic_entities`].
pub const LOGIC_PER_BLOCK: usize = 15;

/// Records in one block: the 15 logic entities, floor, back, post, two blades and spawn.
pub const RECORDS_PER_BLOCK: usize = 21;

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CityOptions {
    /// Blocks (at least 1).
    pub blocks: usize,
    /// The seed every per-block choice comes from.
    pub seed: u64,
}

impl Default for CityOptions {
    fn default() -> Self {
        CityOptions {
            blocks: DEFAULT_BLOCKS,
            seed: DEFAULT_SEED,
        }
    }
}

/// Why a city could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CityError {
    /// A city needs at least one block.
    #[error("a city needs at least one block")]
    NoBlocks,
    /// The source files could not be written.
    #[error("cannot write the city's sources to {path}: {message}")]
    Write {
        /// The file or folder.
        path: String,
        /// Why.
        message: String,
    },
    /// The compiler refused the sources (a bug in the generator).
    #[error("the city does not compile:\n{0}")]
    Compile(String),
}

/// One block's generated choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Block {
    /// The block's origin (its floor's top center).
    pub origin: [f32; 3],
    /// The tick of the pawn's program on which the city's tick 0 falls.
    pub phase: u64,
    /// The timer's delay in seconds.
    pub timer_seconds: f32,
    /// The fan's rate in degrees a second.
    pub fan_rate: f32,
}

/// What a block's pawn does on one tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PawnCommand {
    /// Press Use (the pawn faces its button).
    Use {
        /// The block.
        block: usize,
    },
    /// Strafe for `ticks` ticks (`right` +1 is the pawn's right, -X as it faces +Z).
    Strafe {
        /// The block.
        block: usize,
        /// -1 or +1.
        right: f32,
        /// How long.
        ticks: u64,
    },
}

/// A generated city: its source text and the per-block choices its pawn program reads.
#[derive(Debug, Clone)]
pub struct City {
    /// What it was built from.
    pub options: CityOptions,
    /// The blocks, in index order.
    pub blocks: Vec<Block>,
    /// `pallet.dh`.
    pub manifest: String,
    /// Pallet-relative path and text of every source, the map included.
    pub sources: Vec<(String, String)>,
}

/// SplitMix64: a small, well-mixed deterministic generator (no dependency, the same
/// numbers on every platform).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` at least 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A record id (a version-4-shaped GUID) from the seed and a counter: the same city gets
/// the same ids.
fn guid(rng: &mut SplitMix64) -> String {
    let a = rng.next_u64().to_be_bytes();
    let b = rng.next_u64().to_be_bytes();
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a);
    bytes[8..].copy_from_slice(&b);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// A number as JSON writes it (no exponent for the sizes used here).
fn n(v: f32) -> String {
    let r = (v * 1000.0).round() / 1000.0;
    if r == r.trunc() {
        format!("{r:.0}")
    } else {
        format!("{r}")
    }
}

fn v3(p: [f32; 3]) -> String {
    format!("[{}, {}, {}]", n(p[0]), n(p[1]), n(p[2]))
}

/// The materials the city's pallet carries: slot name, file and text.
const MATERIALS: [(&str, &str, &str); 6] = [
    (
        "floor",
        "materials/floor.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.55, 0.55, 0.55], \"surface\": \"stone\" }\n",
    ),
    (
        "wall",
        "materials/wall.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.85, 0.85, 0.85], \"surface\": \"stone\" }\n",
    ),
    (
        "button",
        "materials/button.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.8, 0.1, 0.1], \"surface\": \"plastic\" }\n",
    ),
    (
        "door",
        "materials/door.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.15, 0.3, 0.85], \"surface\": \"metal\" }\n",
    ),
    (
        "plate",
        "materials/plate.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.95, 0.8, 0.1], \"surface\": \"metal\" }\n",
    ),
    (
        "fan",
        "materials/fan.dh-mat",
        "{ \"shader\": \"lit\", \"tint\": [0.2, 0.7, 0.3], \"surface\": \"metal\" }\n",
    ),
];

/// Writes records into the map's `objects` array.
struct Writer {
    text: String,
    rng: SplitMix64,
}

impl Writer {
    fn brush(&mut self, name: &str, position: [f32; 3], size: [f32; 3], material: &str) {
        let id = guid(&mut self.rng);
        let _ = writeln!(
            self.text,
            "    {{ \"$type\": \"boxBrush\", \"id\": \"{id}\", \"name\": \"{name}\", \"position\": {}, \"size\": {}, \"material\": \"{material}\" }},",
            v3(position),
            v3(size)
        );
    }

    /// An object record; `extra` is written as more fields (each `"key": value,`).
    /// Returns its id.
    fn object(
        &mut self,
        name: &str,
        position: [f32; 3],
        extra: &str,
        components: &[String],
        connections: &[(&str, Vec<String>)],
    ) -> String {
        let id = guid(&mut self.rng);
        let _ = write!(
            self.text,
            "    {{ \"$type\": \"object\", \"id\": \"{id}\", \"name\": \"{name}\", \"position\": {},{extra}\n      \"components\": [{}]",
            v3(position),
            components.join(", ")
        );
        if !connections.is_empty() {
            self.text.push_str(",\n      \"connections\": [\n");
            for (output, actions) in connections {
                let _ = writeln!(
                    self.text,
                    "        {{ \"output\": \"{output}\", \"actions\": [{}] }},",
                    actions.join(", ")
                );
            }
            self.text.push_str("      ]");
        }
        self.text.push_str(" },\n");
        id
    }
}

/// A call action.
fn call(target: &str, input: &str) -> String {
    format!("{{ \"call\": {{ \"target\": \"{target}\", \"input\": \"{input}\" }} }}")
}

/// A call action with a param.
fn call_p(target: &str, input: &str, param: bool) -> String {
    format!(
        "{{ \"call\": {{ \"target\": \"{target}\", \"input\": \"{input}\", \"param\": {param} }} }}"
    )
}

fn dh_box(size: [f32; 3], material: &str) -> String {
    format!(
        "{{ \"$type\": \"dh.box\", \"size\": {}, \"material\": \"{material}\" }}",
        v3(size)
    )
}

fn point_light(start_on: bool, color: [f32; 3]) -> String {
    format!(
        "{{ \"$type\": \"dh.light\", \"light\": \"point\", \"startOn\": {start_on}, \"color\": {}, \"intensity\": 8, \"range\": 5 }}",
        v3(color)
    )
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Block `i`'s record name for `part` (`b12_door`).
pub fn record_name(block: usize, part: &str) -> String {
    format!("b{block}_{part}")
}

/// The name [`crate::harness`] gives block `i`'s pawn.
pub fn pawn_name(block: usize) -> String {
    format!("pawn{block}")
}

impl City {
    /// Generates the city `options` describes. The same options give the same text.
    pub fn generate(options: &CityOptions) -> Result<City, CityError> {
        if options.blocks == 0 {
            return Err(CityError::NoBlocks);
        }
        let mut rng = SplitMix64::new(options.seed);
        let columns = (options.blocks as f64).sqrt().ceil() as usize;
        let half = (columns as f32 - 1.0) * BLOCK_PITCH / 2.0;
        let blocks: Vec<Block> = (0..options.blocks)
            .map(|i| Block {
                origin: [
                    (i % columns) as f32 * BLOCK_PITCH - half,
                    0.0,
                    (i / columns) as f32 * BLOCK_PITCH - half,
                ],
                phase: rng.below(CYCLE_TICKS),
                timer_seconds: 0.25 * (1 + rng.below(4)) as f32,
                fan_rate: 60.0 + 30.0 * rng.below(5) as f32,
            })
            .collect();

        let mut w = Writer {
            text: String::new(),
            rng: SplitMix64::new(options.seed ^ 0x1d50_f1d5),
        };
        let _ = writeln!(
            w.text,
            "// The logic city: {} blocks, seed {:#x} (generated by dh-bench; see bench/src/city.rs).\n{{\n  \"name\": \"Logic City\",\n  \"description\": \"A procedural benchmark scene: {} blocks of buttons, doors, plates, timers, gates, lights, lifts and fans.\",\n  \"materials\": {{",
            options.blocks,
            options.seed,
            options.blocks
        );
        for (slot, path, _) in MATERIALS {
            let _ = writeln!(w.text, "    \"{slot}\": \"/{path}\",");
        }
        w.text.push_str("  },\n  \"objects\": [\n");
        for (i, b) in blocks.iter().enumerate() {
            write_block(&mut w, i, b, options.blocks);
        }
        w.text.push_str("  ],\n}\n");

        let mut sources: Vec<(String, String)> = MATERIALS
            .iter()
            .map(|(_, path, text)| (path.to_string(), text.to_string()))
            .collect();
        sources.push((MAP_PATH.to_string(), w.text));
        Ok(City {
            options: *options,
            blocks,
            manifest: format!(
                "{{ \"id\": \"{PALLET_ID}\", \"name\": \"Logic City\", \"version\": \"1.0.0\", \"dependencies\": [] }}\n"
            ),
            sources,
        })
    }

    /// The map's full barcode.
    pub fn map_barcode(&self) -> String {
        format!("{PALLET_ID}:{MAP_PATH}")
    }

    /// The map's source text.
    pub fn map_text(&self) -> &str {
        self.sources
            .iter()
            .find(|(p, _)| p == MAP_PATH)
            .map_or("", |(_, t)| t.as_str())
    }

    /// Logic entities in the city.
    pub fn logic_entities(&self) -> usize {
        self.blocks.len() * LOGIC_PER_BLOCK
    }

    /// Records in the city's map.
    pub fn records(&self) -> usize {
        self.blocks.len() * RECORDS_PER_BLOCK
    }

    /// Writes `pallet.dh` and every source under `dir` (created if missing).
    pub fn write_sources(&self, dir: &Path) -> Result<(), CityError> {
        let write = |rel: &str, text: &str| -> Result<(), CityError> {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| CityError::Write {
                    path: parent.display().to_string(),
                    message: e.to_string(),
                })?;
            }
            std::fs::write(&path, text).map_err(|e| CityError::Write {
                path: path.display().to_string(),
                message: e.to_string(),
            })
        };
        write("pallet.dh", &self.manifest)?;
        for (rel, text) in &self.sources {
            write(rel, text)?;
        }
        Ok(())
    }

    /// Builds the city's pallet with the real compiler (`compile_sources`), reading the
    /// sources from `dir` (written there first). Returns the pallet's bytes.
    pub fn compile_in(&self, dir: &Path) -> Result<Vec<u8>, CityError> {
        self.write_sources(dir)?;
        let mut entries = Vec::new();
        for (rel, _) in &self.sources {
            let kind = AssetKind::of(rel)
                .map_err(|e| CityError::Compile(format!("{rel}: {e}")))?
                .ok_or_else(|| CityError::Compile(format!("{rel}: not an asset")))?;
            entries.push(SourceEntry {
                path: rel.clone(),
                kind,
                data: SourceData::Disk(dir.join(rel)),
            });
        }
        let out = compile_sources(
            Some(&self.manifest),
            entries,
            &CompileOptions {
                write: true,
                progress: None,
            },
        );
        if out.diagnostics.has_errors() {
            return Err(CityError::Compile(out.diagnostics.to_string()));
        }
        out.pallet
            .ok_or_else(|| CityError::Compile("the build produced no pallet".into()))
    }

    /// What the block pawns do on `tick` (block order, then command order): block `i`'s
    /// program, at step `s = (tick + phase) mod 256`, presses Use on step 0 and strafes
    /// right on 1, left on 48, left on 96 and right on 144, each for 44 ticks.
    pub fn pawn_commands(&self, tick: u64) -> Vec<PawnCommand> {
        let mut out = Vec::new();
        for (block, b) in self.blocks.iter().enumerate() {
            let step = (tick + b.phase) % CYCLE_TICKS;
            let right = match step {
                0 => {
                    out.push(PawnCommand::Use { block });
                    continue;
                }
                1 | 144 => 1.0,
                48 | 96 => -1.0,
                _ => continue,
            };
            out.push(PawnCommand::Strafe {
                block,
                right,
                ticks: STRAFE_TICKS,
            });
        }
        out
    }
}

fn write_block(w: &mut Writer, i: usize, b: &Block, blocks: usize) {
    let o = b.origin;
    let at = |p: [f32; 3]| add(o, p);
    let name = |part: &str| record_name(i, part);
    let next = (i + 1) % blocks;

    w.brush(
        &name("floor"),
        at([0.0, -0.25, 0.0]),
        [BLOCK_PITCH, 0.5, BLOCK_PITCH],
        "floor",
    );
    w.brush(
        &name("back"),
        at([0.0, 1.0, -7.5]),
        [14.0, 2.0, 0.3],
        "wall",
    );
    w.brush(
        &name("post"),
        at([0.0, 0.375, 1.1]),
        [0.3, 0.75, 0.3],
        "wall",
    );

    // Button -> door; the door's ends drive the and gate's B.
    w.object(
        &name("button"),
        at([0.0, 1.0, 1.1]),
        "",
        &[
            dh_box([0.5, 0.5, 0.3], "button"),
            "{ \"$type\": \"dh.button\" }".into(),
        ],
        &[("onPressed", vec![call(&name("door"), "toggle")])],
    );
    w.object(
        &name("door"),
        at([0.0, 1.0, 3.0]),
        "",
        &[
            dh_box([2.0, 2.0, 0.3], "door"),
            "{ \"$type\": \"dh.mover\", \"direction\": [0, 1, 0], \"distance\": 2, \"duration\": 1 }"
                .into(),
        ],
        &[
            ("onOpened", vec![call_p(&name("and"), "setB", true)]),
            ("onClosed", vec![call_p(&name("and"), "setB", false)]),
        ],
    );

    // Plate -> timer -> gates -> lights.
    w.object(
        &name("plate"),
        at([-2.5, 0.05, 0.0]),
        "",
        &[
            dh_box([1.4, 0.1, 1.4], "plate"),
            "{ \"$type\": \"dh.pressurePlate\" }".into(),
        ],
        &[
            (
                "onStartTouch",
                vec![
                    call(&name("timer"), "fire"),
                    call_p(&name("or"), "setA", true),
                    call_p(&name("not"), "setA", true),
                ],
            ),
            (
                "onEndTouch",
                vec![
                    call_p(&name("or"), "setA", false),
                    call_p(&name("not"), "setA", false),
                    call_p(&name("and"), "setA", false),
                ],
            ),
        ],
    );
    w.object(
        &name("timer"),
        at([-2.5, 0.0, -2.0]),
        "",
        &[format!(
            "{{ \"$type\": \"dh.timer\", \"delaySeconds\": {} }}",
            n(b.timer_seconds)
        )],
        &[("onTimer", vec![call_p(&name("and"), "setA", true)])],
    );
    let gate = |w: &mut Writer, part: &str, kind: &str, light: &str, x: f32, extra: Vec<String>| {
        let mut on_true = vec![call(&name(light), "turnOn")];
        on_true.extend(extra);
        w.object(
            &name(part),
            at([x, 0.0, -3.0]),
            "",
            &[format!("{{ \"$type\": \"{kind}\" }}")],
            &[
                ("onTrue", on_true),
                ("onFalse", vec![call(&name(light), "turnOff")]),
            ],
        );
    };
    gate(w, "and", "dh.andGate", "lightA", -1.0, Vec::new());
    gate(
        w,
        "or",
        "dh.orGate",
        "lightB",
        0.0,
        vec![call(&record_name(next, "timer"), "fire")],
    );
    gate(w, "not", "dh.notGate", "lightC", 1.0, Vec::new());
    for (k, (light, on, color)) in [
        ("lightA", false, [1.0, 0.3, 0.2]),
        ("lightB", false, [0.3, 1.0, 0.3]),
        ("lightC", true, [0.3, 0.4, 1.0]),
    ]
    .into_iter()
    .enumerate()
    {
        w.object(
            &name(light),
            at([k as f32 - 1.0, 2.5, -7.0]),
            "",
            &[point_light(on, color)],
            &[],
        );
    }

    // The lift and its plate; the lamp rides the plate.
    let lift = w.object(
        &name("lift"),
        at([2.5, 0.1, 0.0]),
        "",
        &[
            dh_box([3.0, 0.2, 3.0], "door"),
            "{ \"$type\": \"dh.mover\", \"direction\": [0, 1, 0], \"distance\": 0.25, \"duration\": 1 }"
                .into(),
        ],
        &[
            ("onOpened", vec![call(&name("liftLamp"), "turnOn")]),
            ("onClosed", vec![call(&name("liftLamp"), "turnOff")]),
        ],
    );
    let plate = w.object(
        &name("liftPlate"),
        at([2.5, 0.25, 0.0]),
        &format!(" \"parent\": \"{lift}\","),
        &[
            dh_box([1.4, 0.1, 1.4], "plate"),
            "{ \"$type\": \"dh.pressurePlate\" }".into(),
        ],
        &[
            (
                "onStartTouch",
                vec![
                    call(&name("lift"), "open"),
                    call_p(&name("or"), "setB", true),
                ],
            ),
            (
                "onEndTouch",
                vec![
                    call(&name("lift"), "close"),
                    call_p(&name("or"), "setB", false),
                ],
            ),
        ],
    );
    w.object(
        &name("liftLamp"),
        at([2.5, 0.6, 0.0]),
        &format!(" \"parent\": \"{plate}\","),
        &[point_light(false, [1.0, 0.9, 0.6])],
        &[],
    );

    // The fan spins from the map's first tick, its blades carried.
    w.object(
        &name("start"),
        at([5.0, 0.0, -5.0]),
        "",
        &["{ \"$type\": \"dh.mapStart\" }".into()],
        &[("onMapStart", vec![call(&name("fan"), "open")])],
    );
    let fan = w.object(
        &name("fan"),
        at([5.0, 3.5, -5.0]),
        "",
        &[
            dh_box([0.4, 0.4, 0.4], "fan"),
            format!(
                "{{ \"$type\": \"dh.mover\", \"motion\": \"spin\", \"axis\": [0, 1, 0], \"rate\": {}, \"duration\": 1 }}",
                n(b.fan_rate)
            ),
        ],
        &[],
    );
    for (k, dx) in [-1.0f32, 1.0].into_iter().enumerate() {
        w.object(
            &name(&format!("blade{k}")),
            at([5.0 + dx, 3.5, -5.0]),
            &format!(" \"parent\": \"{fan}\","),
            &[dh_box([1.6, 0.05, 0.3], "fan")],
            &[],
        );
    }

    w.object(
        &name("spawn"),
        o,
        " \"rotation\": [0, 180, 0],",
        &["{ \"$type\": \"dh.spawnPoint\" }".into()],
        &[],
    );
}

/// A folder under the system's temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Makes a fresh folder named after `label`, the process and a counter.
    pub fn new(label: &str) -> std::io::Result<TempDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "dh-bench-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path)?;
        Ok(TempDir { path })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // SplitMix64 seeded with 0: the first outputs of the reference implementation
        // (Steele, Lea and Flood; the values java.util.SplittableRandom(0) gives).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn guids_are_version_4_shaped() {
        let mut r = SplitMix64::new(7);
        let g = guid(&mut r);
        assert_eq!(g.len(), 36);
        assert_eq!(&g[14..15], "4");
        assert!(matches!(&g[19..20], "8" | "9" | "a" | "b"), "{g}");
    }

    #[test]
    fn the_program_presses_then_strafes_both_ways() {
        let city =
            City::generate(&CityOptions { blocks: 1, seed: 1 }).unwrap_or_else(|e| panic!("{e}"));
        let phase = city.blocks[0].phase;
        // The tick on which step s falls.
        let at = |s: u64| (s + CYCLE_TICKS - phase) % CYCLE_TICKS;
        assert_eq!(
            city.pawn_commands(at(0)),
            vec![PawnCommand::Use { block: 0 }]
        );
        let strafe = |right| {
            vec![PawnCommand::Strafe {
                block: 0,
                right,
                ticks: 44,
            }]
        };
        assert_eq!(city.pawn_commands(at(1)), strafe(1.0));
        assert_eq!(city.pawn_commands(at(48)), strafe(-1.0));
        assert_eq!(city.pawn_commands(at(96)), strafe(-1.0));
        assert_eq!(city.pawn_commands(at(144)), strafe(1.0));
        let busy = (0..CYCLE_TICKS)
            .filter(|&t| !city.pawn_commands(t).is_empty())
            .count();
        assert_eq!(busy, 5);
    }

    #[test]
    fn the_same_options_give_the_same_text_and_another_seed_another() {
        let o = CityOptions {
            blocks: 4,
            seed: 42,
        };
        let a = City::generate(&o).unwrap_or_else(|e| panic!("{e}"));
        let b = City::generate(&o).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.map_text(), b.map_text());
        let c = City::generate(&CityOptions { seed: 43, ..o }).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(a.map_text(), c.map_text());
        assert!(matches!(
            City::generate(&CityOptions { blocks: 0, seed: 1 }),
            Err(CityError::NoBlocks)
        ));
    }

    #[test]
    fn blocks_stand_on_a_square_grid_centered_on_the_origin() {
        let city =
            City::generate(&CityOptions { blocks: 4, seed: 1 }).unwrap_or_else(|e| panic!("{e}"));
        let origins: Vec<[f32; 3]> = city.blocks.iter().map(|b| b.origin).collect();
        assert_eq!(
            origins,
            vec![
                [-8.0, 0.0, -8.0],
                [8.0, 0.0, -8.0],
                [-8.0, 0.0, 8.0],
                [8.0, 0.0, 8.0]
            ]
        );
        assert_eq!(city.logic_entities(), 60);
        assert_eq!(city.records(), 84);
    }
}
