//! Block tables: data, not code. A text file per namespace (`minecraft.blocks`,
//! `teardown.blocks`, `dh.blocks`) says how a palette entry looks when no platform pallet
//! draws it (a color DH chose, never sampled from a game), whether it is solid, and which
//! surface preset it is made of, so drawing and collision read one record per block.
//!
//! # The format
//!
//! One statement a line; `#` starts a comment (at the line's start or after a space).
//!
//! ```text
//! namespace minecraft                     # the palette namespace the table answers for
//! platform com.mojang.minecraft           # repeatable; none means every platform
//! set dye red a8302c                      # one color of the {dye} placeholder
//! forms block - _planks s _block          # {block}: the capture + each suffix in turn
//!
//! water 3b6ad6 translucent passable       # a row: an id or a pattern, a base, modifiers
//! {dye}_wool @{dye} surface=fabric        # a set: red_wool wears red
//! {block}_button @{block} passable        # forms: oak_button wears oak_planks
//! deepslate_*_ore @deepslate              # a wildcard (one or more characters)
//! ```
//!
//! A base is a color `rrggbb`, `-` (none), `@id` (another row of this table: its color and
//! its flags), `@{name}` (the placeholder's set color, or the forms block's row) or
//! `@own` (the entry's own `color` property, how a Teardown entry keeps its paint).
//! Modifiers: `opaque` (the default), `cutout`, `translucent` or `empty` (drawn as);
//! `solid` / `passable` (a row is solid unless it is empty or says passable, and a row
//! built on another keeps that one's solidity); `surface=<preset>` (a row built on another
//! is made of what that one is, and one that names none is stone; a name that is not a
//! preset fails the table); `alpha=hh` and `shade=f` (the alpha and a brightness factor of
//! a color the table names); `else=rrggbb` (the color of an `@own` entry that carries
//! none); `inner` (a see-through block that keeps the faces between two cells of its own
//! kind); `leaves` (a block `client.voxel.opaqueLeaves` draws solid).
//!
//! Exact ids win; patterns are tried in file order. An `@own` color below full alpha is
//! drawn translucent, and one at zero alpha is not there at all (empty, and passable
//! unless the row says solid).
//!
//! # Resolving an entry
//!
//! [`resolve_entry`]: the platform pallet when present and it names the block, else the
//! built-in tables ([`BlockTables::builtin`], embedded in this crate and parsed once),
//! else [`BlockLook::unresolved`]. Solidity and surface always come from the table (the
//! pallet only says what shape a solid block has).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::schema::surface::{surface_names, surface_preset, DEFAULT_SURFACE};

/// The built-in `minecraft.blocks` text.
pub const MINECRAFT_BLOCKS: &str = include_str!("tables/minecraft.blocks");
/// The built-in `teardown.blocks` text.
pub const TEARDOWN_BLOCKS: &str = include_str!("tables/teardown.blocks");
/// The built-in `dh.blocks` text.
pub const DH_BLOCKS: &str = include_str!("tables/dh.blocks");

/// Deepest chain of rows built on rows (`@id`, `@{block}`) a lookup follows.
pub const MAX_REF_DEPTH: usize = 8;
/// Most pattern steps one lookup may take before it gives up (unresolved).
pub const MAX_MATCH_STEPS: usize = 50_000;
/// Longest table text the parser accepts, in bytes.
pub const MAX_TABLE_LEN: usize = 1 << 22;

/// How a block is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DrawAs {
    /// Hides what it touches (the default).
    #[default]
    Opaque,
    /// Alpha-tested: leaves and plants.
    Cutout,
    /// Blended: glass, water, ice.
    Translucent,
    /// Not drawn: air, barriers.
    Empty,
}

impl DrawAs {
    /// The name a table writes.
    pub fn name(self) -> &'static str {
        match self {
            DrawAs::Opaque => "opaque",
            DrawAs::Cutout => "cutout",
            DrawAs::Translucent => "translucent",
            DrawAs::Empty => "empty",
        }
    }

    fn parse(s: &str) -> Option<DrawAs> {
        Some(match s {
            "opaque" => DrawAs::Opaque,
            "cutout" => DrawAs::Cutout,
            "translucent" => DrawAs::Translucent,
            "empty" => DrawAs::Empty,
            _ => return None,
        })
    }
}

/// Where a look came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookSource {
    /// The platform pallet draws it from this `dh.block` (`blocks/<id>.dh-block`).
    Pallet {
        /// The block definition's path in the pallet.
        block: String,
    },
    /// A block table row: the table's name and the row's line.
    Table {
        /// The table (`minecraft.blocks`).
        table: String,
        /// The row's 1-based line.
        line: usize,
    },
    /// Nothing names it: the engine's glowing red checker.
    Unresolved,
}

/// How a palette entry is drawn and what it collides as.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockLook {
    /// The flat color (sRGB, alpha last); `None` when the row names none (not drawn, or
    /// drawn from the pallet's model, or unresolved).
    pub color: Option<[u8; 4]>,
    /// How it is drawn.
    pub draw: DrawAs,
    /// Whether it collides.
    pub solid: bool,
    /// The surface preset it is made of.
    pub surface: &'static str,
    /// Keeps the faces between two cells of its own kind (fancy leaves).
    pub inner: bool,
    /// Drawn solid when `client.voxel.opaqueLeaves` is on.
    pub leaves: bool,
    /// Where it came from.
    pub source: LookSource,
}

impl BlockLook {
    /// The unresolved look: the glowing red checker, opaque, solid, stone.
    pub fn unresolved() -> BlockLook {
        BlockLook {
            color: None,
            draw: DrawAs::Opaque,
            solid: true,
            surface: DEFAULT_SURFACE,
            inner: false,
            leaves: false,
            source: LookSource::Unresolved,
        }
    }

    /// Whether this is the unresolved look.
    pub fn is_unresolved(&self) -> bool {
        self.source == LookSource::Unresolved
    }
}

/// A block table that failed to load: the table, the line and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table}:{line}: {message}")]
pub struct BlockTableError {
    /// The table's name (`minecraft.blocks`).
    pub table: String,
    /// The 1-based line (0 for the table as a whole).
    pub line: usize,
    /// What was wrong and what was expected.
    pub message: String,
}

/// A row's base, as written.
#[derive(Debug, Clone, PartialEq)]
enum Base {
    None,
    Color([u8; 3]),
    Row(String),
    Placeholder(String),
    Own,
}

/// One piece of a row's key.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Lit(String),
    Star,
    Ph(String),
}

#[derive(Debug, Clone, PartialEq)]
struct Row {
    line: usize,
    key: String,
    segs: Vec<Seg>,
    base: Base,
    draw: Option<DrawAs>,
    solid: Option<bool>,
    surface: Option<&'static str>,
    alpha: Option<u8>,
    shade: Option<f32>,
    else_color: Option<[u8; 3]>,
    inner: bool,
    leaves: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Placeholder {
    Set(Vec<(String, [u8; 3])>),
    Forms(Vec<String>),
}

/// One parsed block table.
#[derive(Debug, Clone)]
pub struct BlockTable {
    name: String,
    namespace: String,
    platforms: Vec<String>,
    placeholders: HashMap<String, Placeholder>,
    rows: Vec<Row>,
    exact: HashMap<String, usize>,
    patterns: Vec<usize>,
}

/// A color as the table resolves it before the entry is known.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Color {
    None,
    Rgba([u8; 4]),
    Own { fallback: Option<[u8; 4]> },
}

/// One lookup's search state: the steps taken (bounded by [`MAX_MATCH_STEPS`]) and every
/// id already resolved, so a shape's capture is never looked up twice.
#[derive(Debug, Default)]
struct Search {
    steps: usize,
    memo: HashMap<String, Option<Resolved>>,
}

/// A row resolved through its references, before the entry's own color is applied.
#[derive(Debug, Clone, PartialEq)]
struct Resolved {
    color: Color,
    draw: DrawAs,
    solid: Option<bool>,
    surface: &'static str,
    inner: bool,
    leaves: bool,
    line: usize,
}

fn parse_hex3(s: &str) -> Option<[u8; 3]> {
    if s.len() != 6 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(s, 16).ok()?;
    Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

/// Parses an entry's `color` property: `#rrggbbaa` or `#rrggbb` (alpha ff).
pub fn parse_color(s: &str) -> Option<[u8; 4]> {
    let h = s.strip_prefix('#')?;
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    match h.len() {
        6 => {
            let [r, g, b] = parse_hex3(h)?;
            Some([r, g, b, 0xff])
        }
        8 => {
            let v = u32::from_str_radix(h, 16).ok()?;
            Some(v.to_be_bytes())
        }
        _ => None,
    }
}

/// Formats a color as an entry's `color` property: `#rrggbbaa`, lowercase.
pub fn format_color(c: [u8; 4]) -> String {
    format!("#{:02x}{:02x}{:02x}{:02x}", c[0], c[1], c[2], c[3])
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':')
}

fn parse_key(key: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    let mut lit = String::new();
    let mut chars = key.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => {
                if !lit.is_empty() {
                    segs.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                if matches!(segs.last(), Some(Seg::Star) | Some(Seg::Ph(_))) {
                    return Err(format!(
                        "'{key}': a wildcard right after a wildcard or placeholder matches nothing new; put text between them"
                    ));
                }
                segs.push(Seg::Star);
            }
            '{' => {
                if !lit.is_empty() {
                    segs.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                if matches!(segs.last(), Some(Seg::Star) | Some(Seg::Ph(_))) {
                    return Err(format!(
                        "'{key}': a placeholder right after a wildcard or placeholder cannot tell where one ends; put text between them"
                    ));
                }
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) if c.is_ascii_alphanumeric() || c == '_' => name.push(c),
                        Some(c) => {
                            return Err(format!(
                                "'{key}': '{c}' in a placeholder name; expected letters, digits or '_' and a closing '}}'"
                            ))
                        }
                        None => return Err(format!("'{key}': a placeholder without its closing '}}'")),
                    }
                }
                if name.is_empty() {
                    return Err(format!("'{key}': an empty placeholder '{{}}'"));
                }
                segs.push(Seg::Ph(name));
            }
            c if is_id_char(c) => lit.push(c),
            c => {
                return Err(format!(
                    "'{key}': '{c}' is not allowed in a block id; expected letters, digits, '_', '-', '.', '/', ':', '*' or a {{placeholder}}"
                ))
            }
        }
    }
    if !lit.is_empty() {
        segs.push(Seg::Lit(lit));
    }
    Ok(segs)
}

impl BlockTable {
    /// Parses a table. `name` is used in messages (`minecraft.blocks`).
    pub fn parse(name: &str, text: &str) -> Result<BlockTable, BlockTableError> {
        let err = |line: usize, message: String| BlockTableError {
            table: name.to_string(),
            line,
            message,
        };
        if text.len() > MAX_TABLE_LEN {
            return Err(err(
                0,
                format!("the table is {} bytes; at most {MAX_TABLE_LEN}", text.len()),
            ));
        }
        let mut t = BlockTable {
            name: name.to_string(),
            namespace: String::new(),
            platforms: Vec::new(),
            placeholders: HashMap::new(),
            rows: Vec::new(),
            exact: HashMap::new(),
            patterns: Vec::new(),
        };
        let mut namespace_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let body = strip_comment(raw);
            let words: Vec<&str> = body.split_whitespace().collect();
            let Some(&first) = words.first() else {
                continue;
            };
            match first {
                "namespace" => {
                    if words.len() != 2 {
                        return Err(err(line, "expected 'namespace <name>'".into()));
                    }
                    if namespace_line != 0 {
                        return Err(err(
                            line,
                            format!("a second 'namespace'; the table already answers for '{}' (line {namespace_line})", t.namespace),
                        ));
                    }
                    if !words[1]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                    {
                        return Err(err(line, format!("'{}' is not a namespace; expected lowercase letters, digits, '_', '-' or '.'", words[1])));
                    }
                    t.namespace = words[1].to_string();
                    namespace_line = line;
                }
                "platform" => {
                    if words.len() != 2 {
                        return Err(err(line, "expected 'platform <platform id>'".into()));
                    }
                    t.platforms.push(words[1].to_string());
                }
                "set" => {
                    if words.len() != 4 {
                        return Err(err(line, "expected 'set <name> <key> <rrggbb>'".into()));
                    }
                    let color = parse_hex3(words[3]).ok_or_else(|| {
                        err(
                            line,
                            format!(
                                "'{}' is not a color; expected six hex digits rrggbb",
                                words[3]
                            ),
                        )
                    })?;
                    check_ph_name(words[1]).map_err(|m| err(line, m))?;
                    match t.placeholders.entry(words[1].to_string()).or_insert_with(|| Placeholder::Set(Vec::new())) {
                        Placeholder::Set(keys) => {
                            if keys.iter().any(|(k, _)| k == words[2]) {
                                return Err(err(line, format!("set '{}' already has key '{}'", words[1], words[2])));
                            }
                            keys.push((words[2].to_string(), color));
                        }
                        Placeholder::Forms(_) => {
                            return Err(err(line, format!("'{}' is already a forms placeholder; a name is a set or forms, not both", words[1])))
                        }
                    }
                }
                "forms" => {
                    if words.len() < 3 {
                        return Err(err(
                            line,
                            "expected 'forms <name> <suffix>...' ('-' for no suffix)".into(),
                        ));
                    }
                    check_ph_name(words[1]).map_err(|m| err(line, m))?;
                    if t.placeholders.contains_key(words[1]) {
                        return Err(err(
                            line,
                            format!("placeholder '{}' is already declared", words[1]),
                        ));
                    }
                    let suffixes = words[2..]
                        .iter()
                        .map(|s| {
                            if *s == "-" {
                                String::new()
                            } else {
                                s.to_string()
                            }
                        })
                        .collect();
                    t.placeholders
                        .insert(words[1].to_string(), Placeholder::Forms(suffixes));
                }
                _ => {
                    let row = parse_row(line, &words).map_err(|m| err(line, m))?;
                    let idx = t.rows.len();
                    if row.segs.iter().all(|s| matches!(s, Seg::Lit(_))) {
                        if let Some(prev) = t.exact.insert(row.key.clone(), idx) {
                            return Err(err(
                                line,
                                format!(
                                    "'{}' already has a row (line {})",
                                    row.key, t.rows[prev].line
                                ),
                            ));
                        }
                    } else {
                        t.patterns.push(idx);
                    }
                    t.rows.push(row);
                }
            }
        }
        if t.namespace.is_empty() {
            return Err(err(
                0,
                "the table names no namespace; expected a 'namespace <name>' line".into(),
            ));
        }
        t.validate()?;
        Ok(t)
    }

    /// Every reference must resolve, and every placeholder be declared and captured.
    fn validate(&self) -> Result<(), BlockTableError> {
        let err = |line: usize, message: String| BlockTableError {
            table: self.name.clone(),
            line,
            message,
        };
        for row in &self.rows {
            for seg in &row.segs {
                if let Seg::Ph(n) = seg {
                    if !self.placeholders.contains_key(n) {
                        return Err(err(row.line, format!("placeholder '{{{n}}}' is not declared; expected a 'set {n} ...' or 'forms {n} ...' line")));
                    }
                }
            }
            match &row.base {
                Base::Placeholder(n)
                    if !row.segs.iter().any(|s| matches!(s, Seg::Ph(p) if p == n)) =>
                {
                    return Err(err(
                        row.line,
                        format!(
                            "the base '@{{{n}}}' names a placeholder the row's id '{}' does not capture",
                            row.key
                        ),
                    ));
                }
                Base::Row(id) => {
                    let mut steps = Search::default();
                    match self.lookup_inner(id, 1, &mut steps) {
                        Ok(Some(_)) => {}
                        Ok(None) => {
                            return Err(err(
                                row.line,
                                format!("the base '@{id}' names no row of this table"),
                            ))
                        }
                        Err(m) => return Err(err(row.line, format!("the base '@{id}': {m}"))),
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The table's name (`minecraft.blocks`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The palette namespace it answers for.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The platforms it applies to (empty: every platform).
    pub fn platforms(&self) -> &[String] {
        &self.platforms
    }

    /// Number of rows (ids and patterns).
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// The exact ids the table names, in file order.
    pub fn exact_ids(&self) -> impl Iterator<Item = &str> + '_ {
        self.rows
            .iter()
            .filter(|r| r.segs.iter().all(|s| matches!(s, Seg::Lit(_))))
            .map(|r| r.key.as_str())
    }

    /// Whether it applies to a container of `platform` (`None`: every table applies).
    pub fn applies_to(&self, platform: Option<&str>) -> bool {
        match platform {
            None => true,
            Some(p) => self.platforms.is_empty() || self.platforms.iter().any(|q| q == p),
        }
    }

    /// The look of block `id` (without namespace) carrying `own` as its color property,
    /// or `None` when no row names it.
    pub fn lookup(&self, id: &str, own: Option<[u8; 4]>) -> Option<BlockLook> {
        let mut steps = Search::default();
        let r = self.lookup_inner(id, 0, &mut steps).ok()??;
        Some(self.finish(r, own))
    }

    fn finish(&self, r: Resolved, own: Option<[u8; 4]>) -> BlockLook {
        let mut draw = r.draw;
        let color = match r.color {
            Color::None => None,
            Color::Rgba(c) => Some(c),
            Color::Own { fallback } => match own {
                Some(c) => {
                    if c[3] == 0 {
                        draw = DrawAs::Empty;
                    } else if c[3] < 0xff && draw == DrawAs::Opaque {
                        draw = DrawAs::Translucent;
                    }
                    Some(c)
                }
                None => fallback,
            },
        };
        BlockLook {
            color,
            draw,
            solid: r.solid.unwrap_or(draw != DrawAs::Empty),
            surface: r.surface,
            inner: r.inner,
            leaves: r.leaves,
            source: LookSource::Table {
                table: self.name.clone(),
                line: r.line,
            },
        }
    }

    fn lookup_inner(
        &self,
        id: &str,
        depth: usize,
        steps: &mut Search,
    ) -> Result<Option<Resolved>, String> {
        if depth > MAX_REF_DEPTH {
            return Err(format!(
                "rows built on rows nest deeper than {MAX_REF_DEPTH} (a cycle?) at '{id}'"
            ));
        }
        if let Some(r) = steps.memo.get(id) {
            return Ok(r.clone());
        }
        let r = self.lookup_uncached(id, depth, steps)?;
        steps.memo.insert(id.to_string(), r.clone());
        Ok(r)
    }

    fn lookup_uncached(
        &self,
        id: &str,
        depth: usize,
        steps: &mut Search,
    ) -> Result<Option<Resolved>, String> {
        if let Some(&i) = self.exact.get(id) {
            return self.resolve_row(&self.rows[i], &[], depth, steps).map(Some);
        }
        for &i in &self.patterns {
            let row = &self.rows[i];
            let mut caps = Vec::new();
            if self.match_segs(&row.segs, id, &mut caps, depth, steps)? {
                return self.resolve_row(row, &caps, depth, steps).map(Some);
            }
        }
        Ok(None)
    }

    /// Matches `s` against `segs`, filling `caps` with (placeholder, capture).
    fn match_segs(
        &self,
        segs: &[Seg],
        s: &str,
        caps: &mut Vec<(String, String)>,
        depth: usize,
        steps: &mut Search,
    ) -> Result<bool, String> {
        steps.steps += 1;
        if steps.steps > MAX_MATCH_STEPS {
            return Err(format!("matching took more than {MAX_MATCH_STEPS} steps"));
        }
        let Some((first, rest)) = segs.split_first() else {
            return Ok(s.is_empty());
        };
        match first {
            Seg::Lit(l) => match s.strip_prefix(l.as_str()) {
                Some(tail) => self.match_segs(rest, tail, caps, depth, steps),
                None => Ok(false),
            },
            Seg::Star | Seg::Ph(_) => {
                // One or more characters, shortest first; the rest must match after. A
                // parsed key always has text after a wildcard or placeholder (or nothing),
                // so only the places that text occurs are tried.
                let ends: Vec<usize> = match rest.first() {
                    None => vec![s.len()],
                    Some(Seg::Lit(l)) => s
                        .char_indices()
                        .map(|(k, _)| k)
                        .filter(|&k| s[k..].starts_with(l.as_str()))
                        .collect(),
                    Some(_) => s
                        .char_indices()
                        .map(|(k, _)| k)
                        .chain(std::iter::once(s.len()))
                        .collect(),
                };
                for k in ends {
                    if k == 0 {
                        continue;
                    }
                    let (cap, tail) = s.split_at(k);
                    let mark = caps.len();
                    if !self.match_segs(rest, tail, caps, depth, steps)? {
                        caps.truncate(mark);
                        continue;
                    }
                    if let Seg::Ph(name) = first {
                        if !self.capture_ok(name, cap, depth, steps)? {
                            caps.truncate(mark);
                            continue;
                        }
                        caps.push((name.clone(), cap.to_string()));
                    }
                    return Ok(true);
                }
                Ok(false)
            }
        }
    }

    fn capture_ok(
        &self,
        name: &str,
        cap: &str,
        depth: usize,
        steps: &mut Search,
    ) -> Result<bool, String> {
        match self.placeholders.get(name) {
            Some(Placeholder::Set(keys)) => Ok(keys.iter().any(|(k, _)| k == cap)),
            Some(Placeholder::Forms(_)) => Ok(self.forms_block(name, cap, depth, steps)?.is_some()),
            None => Ok(false),
        }
    }

    /// The row a forms capture names: the capture with each suffix in turn.
    fn forms_block(
        &self,
        name: &str,
        cap: &str,
        depth: usize,
        steps: &mut Search,
    ) -> Result<Option<Resolved>, String> {
        let Some(Placeholder::Forms(suffixes)) = self.placeholders.get(name) else {
            return Ok(None);
        };
        for suffix in suffixes {
            let id = format!("{cap}{suffix}");
            if let Some(r) = self.lookup_inner(&id, depth + 1, steps)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    fn resolve_row(
        &self,
        row: &Row,
        caps: &[(String, String)],
        depth: usize,
        steps: &mut Search,
    ) -> Result<Resolved, String> {
        let own_flags = |color: Color| Resolved {
            color,
            draw: row.draw.unwrap_or_default(),
            solid: row
                .solid
                .or_else(|| (row.draw == Some(DrawAs::Empty)).then_some(false)),
            surface: row.surface.unwrap_or(DEFAULT_SURFACE),
            inner: row.inner,
            leaves: row.leaves,
            line: row.line,
        };
        let mut r = match &row.base {
            Base::None => own_flags(Color::None),
            Base::Color(c) => own_flags(Color::Rgba([c[0], c[1], c[2], 0xff])),
            Base::Own => own_flags(Color::Own {
                fallback: row.else_color.map(|c| [c[0], c[1], c[2], 0xff]),
            }),
            Base::Row(id) => {
                let base = self
                    .lookup_inner(id, depth + 1, steps)?
                    .ok_or_else(|| format!("'@{id}' names no row"))?;
                self.inherit(row, base)
            }
            Base::Placeholder(name) => {
                let cap = caps
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, c)| c.as_str())
                    .ok_or_else(|| format!("'@{{{name}}}' has no capture"))?;
                match self.placeholders.get(name) {
                    Some(Placeholder::Set(keys)) => {
                        let c = keys
                            .iter()
                            .find(|(k, _)| k == cap)
                            .map(|(_, c)| *c)
                            .ok_or_else(|| format!("'{cap}' is not a key of set '{name}'"))?;
                        own_flags(Color::Rgba([c[0], c[1], c[2], 0xff]))
                    }
                    Some(Placeholder::Forms(_)) => {
                        let base = self
                            .forms_block(name, cap, depth, steps)?
                            .ok_or_else(|| format!("'{cap}' names no block of forms '{name}'"))?;
                        self.inherit(row, base)
                    }
                    None => return Err(format!("placeholder '{name}' is not declared")),
                }
            }
        };
        // alpha= and shade= adjust a color the table names.
        if let Color::Rgba(c) = &mut r.color {
            apply_alpha_shade(c, row.alpha, row.shade);
        }
        if let Color::Own { fallback: Some(c) } = &mut r.color {
            apply_alpha_shade(c, row.alpha, row.shade);
        }
        r.line = row.line;
        Ok(r)
    }

    /// A row built on `base`: its color and flags, with the row's own modifiers on top.
    fn inherit(&self, row: &Row, base: Resolved) -> Resolved {
        let draw = row.draw.unwrap_or(base.draw);
        let solid = match (row.solid, row.draw) {
            (Some(s), _) => Some(s),
            (None, Some(DrawAs::Empty)) => Some(false),
            (None, _) => base.solid,
        };
        let color = match (base.color, row.else_color) {
            (Color::Own { fallback: None }, Some(e)) => Color::Own {
                fallback: Some([e[0], e[1], e[2], 0xff]),
            },
            (c, _) => c,
        };
        Resolved {
            color,
            draw,
            solid,
            surface: row.surface.unwrap_or(base.surface),
            inner: row.inner || base.inner,
            leaves: row.leaves || base.leaves,
            line: row.line,
        }
    }
}

fn apply_alpha_shade(c: &mut [u8; 4], alpha: Option<u8>, shade: Option<f32>) {
    if let Some(f) = shade {
        for ch in c.iter_mut().take(3) {
            *ch = (f32::from(*ch) * f).round().clamp(0.0, 255.0) as u8;
        }
    }
    if let Some(a) = alpha {
        c[3] = a;
    }
}

fn check_ph_name(n: &str) -> Result<(), String> {
    if !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(format!(
            "'{n}' is not a placeholder name; expected letters, digits or '_'"
        ))
    }
}

fn strip_comment(line: &str) -> &str {
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        if c == '#' && prev_space {
            return &line[..i];
        }
        prev_space = c.is_whitespace();
    }
    line
}

fn parse_row(line: usize, words: &[&str]) -> Result<Row, String> {
    let key = words[0];
    let segs = parse_key(key)?;
    let Some(&base_word) = words.get(1) else {
        return Err(format!(
            "'{key}' has no base; expected a color rrggbb, '-', '@id', '@{{name}}' or '@own' after it"
        ));
    };
    let base = if base_word == "-" {
        Base::None
    } else if base_word == "@own" {
        Base::Own
    } else if let Some(r) = base_word.strip_prefix('@') {
        if let Some(n) = r.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            check_ph_name(n)?;
            Base::Placeholder(n.to_string())
        } else if !r.is_empty() && r.chars().all(is_id_char) {
            Base::Row(r.to_string())
        } else {
            return Err(format!(
                "'{base_word}' is not a base; expected '@id', '@{{name}}' or '@own'"
            ));
        }
    } else if let Some(c) = parse_hex3(base_word) {
        Base::Color(c)
    } else {
        return Err(format!(
            "'{base_word}' is not a base; expected a color rrggbb, '-', '@id', '@{{name}}' or '@own'"
        ));
    };
    let mut row = Row {
        line,
        key: key.to_string(),
        segs,
        base,
        draw: None,
        solid: None,
        surface: None,
        alpha: None,
        shade: None,
        else_color: None,
        inner: false,
        leaves: false,
    };
    for &m in &words[2..] {
        if let Some(d) = DrawAs::parse(m) {
            if let Some(prev) = row.draw {
                return Err(format!("'{key}' is drawn as both {} and {m}", prev.name()));
            }
            row.draw = Some(d);
            continue;
        }
        match m {
            "solid" | "passable" => {
                if row.solid.is_some() {
                    return Err(format!("'{key}' says solid or passable twice"));
                }
                row.solid = Some(m == "solid");
            }
            "inner" => row.inner = true,
            "leaves" => row.leaves = true,
            _ => {
                let Some((k, v)) = m.split_once('=') else {
                    return Err(format!(
                        "'{m}' is not a modifier; expected opaque, cutout, translucent, empty, solid, passable, inner, leaves, surface=, alpha=, shade= or else="
                    ));
                };
                match k {
                    "surface" => {
                        let Some(p) = surface_preset(v) else {
                            return Err(format!(
                                "surface '{v}' is not a surface preset; expected one of {}",
                                surface_names().join(", ")
                            ));
                        };
                        row.surface = Some(p.name);
                    }
                    "alpha" => {
                        if v.len() != 2 {
                            return Err(format!("alpha '{v}' is not two hex digits hh"));
                        }
                        row.alpha = Some(
                            u8::from_str_radix(v, 16)
                                .map_err(|_| format!("alpha '{v}' is not two hex digits hh"))?,
                        );
                    }
                    "shade" => {
                        let f: f32 = v
                            .parse()
                            .ok()
                            .filter(|f: &f32| f.is_finite() && *f >= 0.0 && *f <= 4.0)
                            .ok_or_else(|| format!("shade '{v}' is not a factor from 0 to 4"))?;
                        row.shade = Some(f);
                    }
                    "else" => {
                        row.else_color = Some(parse_hex3(v).ok_or_else(|| {
                            format!("else '{v}' is not a color; expected six hex digits rrggbb")
                        })?);
                    }
                    _ => {
                        return Err(format!(
                            "'{k}=' is not a modifier; expected surface=, alpha=, shade= or else="
                        ))
                    }
                }
            }
        }
    }
    Ok(row)
}

/// The block tables in force, front first: a table loaded from a pallet or a platform
/// file is put in front of the built-in ones, so its rows win.
#[derive(Debug, Clone)]
pub struct BlockTables {
    tables: Vec<BlockTable>,
}

static BUILTIN: OnceLock<Result<BlockTables, BlockTableError>> = OnceLock::new();

impl BlockTables {
    /// The built-in tables (`minecraft.blocks`, `teardown.blocks`, `dh.blocks`), parsed
    /// once per process.
    pub fn builtin() -> Result<&'static BlockTables, &'static BlockTableError> {
        BUILTIN
            .get_or_init(|| {
                Ok(BlockTables {
                    tables: vec![
                        BlockTable::parse("minecraft.blocks", MINECRAFT_BLOCKS)?,
                        BlockTable::parse("teardown.blocks", TEARDOWN_BLOCKS)?,
                        BlockTable::parse("dh.blocks", DH_BLOCKS)?,
                    ],
                })
            })
            .as_ref()
    }

    /// Tables from a list, front first.
    pub fn new(tables: Vec<BlockTable>) -> BlockTables {
        BlockTables { tables }
    }

    /// Puts `table` in front, so its rows win over every table already here.
    pub fn push_front(&mut self, table: BlockTable) {
        self.tables.insert(0, table);
    }

    /// The tables, front first.
    pub fn tables(&self) -> &[BlockTable] {
        &self.tables
    }

    /// The look of `namespace:id` in a container of `platform`: the first table for the
    /// namespace that applies to the platform and has a row for the id; `None` when none
    /// does.
    pub fn lookup(
        &self,
        namespace: &str,
        id: &str,
        platform: Option<&str>,
        own: Option<[u8; 4]>,
    ) -> Option<BlockLook> {
        self.tables
            .iter()
            .filter(|t| t.namespace == namespace && t.applies_to(platform))
            .find_map(|t| t.lookup(id, own))
    }
}

/// The platform pallet, as far as resolving looks needs it: which blocks it draws.
pub trait PlatformPallet {
    /// The pallet's ID (equal to the container's platform).
    fn id(&self) -> &str;
    /// The namespace it answers for (`minecraft` for `com.mojang.minecraft`).
    fn namespace(&self) -> &str;
    /// Whether it holds `blocks/<id>.dh-block`.
    fn has_block(&self, id: &str) -> bool;
}

/// A `.pallet` as a [`PlatformPallet`], answering for one namespace.
pub struct PalletBlocks<'a> {
    /// The pallet.
    pub pallet: &'a crate::pallet::Pallet,
    /// The namespace it answers for.
    pub namespace: String,
}

impl PlatformPallet for PalletBlocks<'_> {
    fn id(&self) -> &str {
        &self.pallet.manifest().id
    }

    fn namespace(&self) -> &str {
        &self.namespace
    }

    fn has_block(&self, id: &str) -> bool {
        self.pallet.entry(&block_path(id)).is_some()
    }
}

/// Where a platform pallet keeps block `id`'s definition: `blocks/<id>.dh-block`.
pub fn block_path(id: &str) -> String {
    format!("blocks/{id}.dh-block")
}

/// A palette entry as looks resolve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryKey<'a> {
    /// Its namespace (`minecraft`).
    pub namespace: &'a str,
    /// Its id (`oak_stairs`).
    pub id: &'a str,
    /// Its own `color` property, parsed (a `dh:color` or a painted Teardown entry).
    pub color: Option<[u8; 4]>,
}

/// Resolves a palette entry to its look and solidity: the platform pallet when present
/// and it draws the block (solidity and surface still from the table, else solid stone),
/// else the tables, else the unresolved look.
pub fn resolve_entry(
    tables: &BlockTables,
    entry: EntryKey<'_>,
    platform: Option<&str>,
    pallet: Option<&dyn PlatformPallet>,
) -> BlockLook {
    let table = tables.lookup(entry.namespace, entry.id, platform, entry.color);
    if let Some(p) = pallet {
        let ours = platform.is_none_or(|pl| pl == p.id());
        if ours && p.namespace() == entry.namespace && p.has_block(entry.id) {
            let mut look = table.unwrap_or_else(BlockLook::unresolved);
            look.source = LookSource::Pallet {
                block: block_path(entry.id),
            };
            return look;
        }
    }
    table.unwrap_or_else(BlockLook::unresolved)
}

/// Parses `data` (lossily decoded) as a block table and, when it loads, looks up every
/// word of it as an id, with and without an own color, in front of the built-in tables.
/// The body of the `blocks` cargo-fuzz target: it must never panic, and every lookup is
/// bounded by [`MAX_MATCH_STEPS`].
pub(crate) fn fuzz_table(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(table) = BlockTable::parse("fuzz.blocks", &text) else {
        return;
    };
    let namespace = table.namespace().to_string();
    let platform = table.platforms().first().cloned();
    let mut tables = match BlockTables::builtin() {
        Ok(t) => t.clone(),
        Err(_) => BlockTables::new(Vec::new()),
    };
    tables.push_front(table);
    for word in text.split_whitespace().take(64) {
        for own in [None, Some([1, 2, 3, 0]), Some([1, 2, 3, 0x80])] {
            let key = EntryKey {
                namespace: &namespace,
                id: word,
                color: own,
            };
            let _ = resolve_entry(&tables, key, platform.as_deref(), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXCERPT: &str = "\
namespace minecraft
platform com.mojang.minecraft
set dye red a8302c
forms block - _planks s _block _log _stem

barrier - empty solid                              # not drawn, still a wall
water 3b6ad6 translucent passable                  # drawn, never stood on
glass c6dde4 translucent alpha=60 surface=glass    # see-through and solid
oak_leaves 4d7f2a cutout surface=grass inner leaves # solid unless a row says passable
oak_planks a3834f surface=wood                     # footsteps, grip and impacts of wood
stone 7f7f7f
deepslate 4a4a4f
{dye}_wool @{dye} surface=fabric                   # a set: red_wool wears red
{block}_button @{block} passable                   # forms: oak_button wears oak_planks, and is wood
deepslate_*_ore @deepslate                         # a wildcard wears another row, and is made of it
";

    #[test]
    fn the_spec_excerpt_reads_as_the_spec_says() {
        let t = BlockTable::parse("minecraft.blocks", EXCERPT).unwrap();
        assert_eq!(t.namespace(), "minecraft");
        assert_eq!(t.platforms(), ["com.mojang.minecraft"]);

        let barrier = t.lookup("barrier", None).unwrap();
        assert_eq!(
            (barrier.color, barrier.draw, barrier.solid),
            (None, DrawAs::Empty, true)
        );

        let water = t.lookup("water", None).unwrap();
        assert_eq!(water.color, Some([0x3b, 0x6a, 0xd6, 0xff]));
        assert_eq!(
            (water.draw, water.solid, water.surface),
            (DrawAs::Translucent, false, "stone")
        );

        let glass = t.lookup("glass", None).unwrap();
        assert_eq!(glass.color, Some([0xc6, 0xdd, 0xe4, 0x60]));
        assert_eq!(
            (glass.draw, glass.solid, glass.surface),
            (DrawAs::Translucent, true, "glass")
        );

        let leaves = t.lookup("oak_leaves", None).unwrap();
        assert_eq!(
            (
                leaves.draw,
                leaves.solid,
                leaves.surface,
                leaves.inner,
                leaves.leaves
            ),
            (DrawAs::Cutout, true, "grass", true, true)
        );

        let wool = t.lookup("red_wool", None).unwrap();
        assert_eq!(
            (wool.color, wool.surface, wool.solid),
            (Some([0xa8, 0x30, 0x2c, 0xff]), "fabric", true)
        );
        assert!(
            t.lookup("blue_wool", None).is_none(),
            "blue is not in the set"
        );

        let button = t.lookup("oak_button", None).unwrap();
        assert_eq!(button.color, Some([0xa3, 0x83, 0x4f, 0xff]));
        assert_eq!((button.surface, button.solid), ("wood", false));
        // "stone" + "-" is a row.
        assert_eq!(
            t.lookup("stone_button", None).unwrap().color,
            Some([0x7f, 0x7f, 0x7f, 0xff])
        );
        assert!(t.lookup("spruce_button", None).is_none(), "no spruce row");

        let ore = t.lookup("deepslate_iron_ore", None).unwrap();
        assert_eq!(ore.color, Some([0x4a, 0x4a, 0x4f, 0xff]));
        assert_eq!(
            ore.source,
            LookSource::Table {
                table: "minecraft.blocks".into(),
                line: 15
            }
        );
        assert!(
            t.lookup("deepslate__ore", None).is_none(),
            "a wildcard matches one or more characters"
        );
    }

    #[test]
    fn exact_ids_win_and_patterns_go_in_file_order() {
        let t = BlockTable::parse("t", "namespace t\nred_* 110000\n*_x 220000\nred_x 330000\n")
            .unwrap();
        assert_eq!(
            t.lookup("red_x", None).unwrap().color,
            Some([0x33, 0, 0, 0xff])
        );
        assert_eq!(
            t.lookup("red_y_x", None).unwrap().color,
            Some([0x11, 0, 0, 0xff])
        );
        assert_eq!(
            t.lookup("blue_x", None).unwrap().color,
            Some([0x22, 0, 0, 0xff])
        );
    }

    #[test]
    fn a_row_built_on_another_keeps_its_flags_and_adds_its_own() {
        let t = BlockTable::parse(
            "t",
            "namespace t\nice 80a0ff translucent surface=ice\nice_slab @ice shade=0.5\nice_wall @ice opaque passable\n",
        )
        .unwrap();
        let slab = t.lookup("ice_slab", None).unwrap();
        assert_eq!(slab.color, Some([0x40, 0x50, 0x80, 0xff]));
        assert_eq!(
            (slab.draw, slab.solid, slab.surface),
            (DrawAs::Translucent, true, "ice")
        );
        let wall = t.lookup("ice_wall", None).unwrap();
        assert_eq!(
            (wall.draw, wall.solid, wall.surface),
            (DrawAs::Opaque, false, "ice")
        );
    }

    #[test]
    fn own_colors_keep_paint_and_fall_back_to_else() {
        let t = BlockTable::parse(
            "t",
            "namespace t\nwood @own surface=wood else=9a7048 solid\ncolor @own\n",
        )
        .unwrap();
        let painted = t.lookup("wood", Some([1, 2, 3, 0xff])).unwrap();
        assert_eq!(
            (painted.color, painted.surface),
            (Some([1, 2, 3, 0xff]), "wood")
        );
        let bare = t.lookup("wood", None).unwrap();
        assert_eq!(bare.color, Some([0x9a, 0x70, 0x48, 0xff]));
        // Below full alpha is translucent; zero alpha is not there (a row saying solid stays solid).
        let half = t.lookup("color", Some([9, 9, 9, 0x80])).unwrap();
        assert_eq!((half.draw, half.solid), (DrawAs::Translucent, true));
        let gone = t.lookup("color", Some([9, 9, 9, 0])).unwrap();
        assert_eq!((gone.draw, gone.solid), (DrawAs::Empty, false));
        let gone_wood = t.lookup("wood", Some([9, 9, 9, 0])).unwrap();
        assert_eq!((gone_wood.draw, gone_wood.solid), (DrawAs::Empty, true));
    }

    #[test]
    fn bad_tables_fail_naming_line_and_expectation() {
        let e =
            BlockTable::parse("x.blocks", "namespace x\nstone 808080 surface=lava\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string().starts_with(
                "x.blocks:2: surface 'lava' is not a surface preset; expected one of stone, grass"
            ),
            "{e}"
        );
        let e = BlockTable::parse("x.blocks", "namespace x\na @b\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.blocks:2: the base '@b' names no row of this table"
        );
        let e = BlockTable::parse("x.blocks", "namespace x\na @b\nb @a\n").unwrap_err();
        assert!(e.to_string().contains("nest deeper than 8"), "{e}");
        let e = BlockTable::parse("x.blocks", "namespace x\n{c}_wool @{c}\n").unwrap_err();
        assert!(
            e.to_string().contains("placeholder '{c}' is not declared"),
            "{e}"
        );
        let e = BlockTable::parse("x.blocks", "stone 808080\n").unwrap_err();
        assert_eq!(e.line, 0);
        let e =
            BlockTable::parse("x.blocks", "namespace x\nstone 808080\nstone 808080\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.blocks:3: 'stone' already has a row (line 2)"
        );
        let e = BlockTable::parse("x.blocks", "namespace x\nstone 8080\n").unwrap_err();
        assert!(e.to_string().contains("'8080' is not a base"), "{e}");
        let e = BlockTable::parse("x.blocks", "namespace x\nstone 808080 shiny\n").unwrap_err();
        assert!(e.to_string().contains("'shiny' is not a modifier"), "{e}");
    }

    #[test]
    fn colors_parse_and_format() {
        assert_eq!(parse_color("#a8302cff"), Some([0xa8, 0x30, 0x2c, 0xff]));
        assert_eq!(parse_color("#a8302c"), Some([0xa8, 0x30, 0x2c, 0xff]));
        assert_eq!(parse_color("a8302c"), None);
        assert_eq!(parse_color("#a8302"), None);
        assert_eq!(format_color([0xa8, 0x30, 0x2c, 0x80]), "#a8302c80");
    }

    #[test]
    fn builtin_lookups_stay_far_under_the_step_budget() {
        let tables = BlockTables::builtin().unwrap();
        let mc = &tables.tables()[0];
        let ids: Vec<String> = mc.exact_ids().map(str::to_string).collect();
        let mut worst = (0, String::new());
        for id in &ids {
            for suffix in ["", "_stairs", "_slab", "_wall_hanging_sign", "_not_a_shape"] {
                for prefix in ["", "waxed_", "stripped_", "potted_", "deepslate_"] {
                    let q = format!("{prefix}{id}{suffix}");
                    let mut steps = Search::default();
                    let _ = mc.lookup_inner(&q, 0, &mut steps);
                    if steps.steps > worst.0 {
                        worst = (steps.steps, q);
                    }
                }
            }
        }
        assert!(worst.0 < MAX_MATCH_STEPS / 10, "{worst:?}");
    }
}
