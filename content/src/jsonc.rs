//! A JSONC reader (JSON with `//` and `/* */` comments and trailing commas) that keeps the
//! byte span of every value and member, so diagnostics can name `file:line:col`.
//!
//! The parser is iterative over a bounded depth, never panics, and allocates only in
//! proportion to the input it has read (the input is itself bounded by [`MAX_SOURCE_BYTES`]).

use std::fmt;

/// The largest source file the reader accepts (64 MiB).
pub const MAX_SOURCE_BYTES: usize = 64 * 1024 * 1024;
/// The deepest nesting of arrays and objects the reader accepts.
pub const MAX_DEPTH: usize = 128;

/// A byte range in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span over `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start.min(u32::MAX as usize) as u32,
            end: end.min(u32::MAX as usize) as u32,
        }
    }
}

/// A JSON value with the span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// What the value is.
    pub kind: Kind,
    /// Where it was written.
    pub span: Span,
}

/// One member of an object: its key, where the key was written, and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key, unescaped.
    pub key: String,
    /// Where the key was written (quotes included).
    pub key_span: Span,
    /// The value.
    pub value: Value,
}

/// The kinds of JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, as the nearest `f64`.
    Number(f64),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in the order written (duplicates are rejected at parse time).
    Object(Vec<Member>),
}

impl Kind {
    /// The word diagnostics use for this kind ("a string", "an object", ...).
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(_) => "a number",
            Kind::String(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
        }
    }
}

impl Value {
    /// A value with no source position (for values built in code).
    pub fn synthetic(kind: Kind) -> Value {
        Value {
            kind,
            span: Span::default(),
        }
    }

    /// The member named `key` of an object value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    /// The string this value holds, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number this value holds, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The members of an object value.
    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The items of an array value.
    pub fn as_array(&self) -> Option<&[Value]> {
        match &self.kind {
            Kind::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Writes the value as compact, canonical JSON (members in stored order, numbers in
    /// their shortest round-trip form). The same value always writes the same bytes.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_value(self, &mut out, None, 0);
        out
    }

    /// Writes the value as JSON indented by two spaces, for files people read.
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        write_value(self, &mut out, Some(2), 0);
        out.push('\n');
        out
    }
}

/// Writes a JSON string literal with escapes.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes a number in its shortest round-trip form; non-finite numbers (which JSON cannot
/// hold) are written as `null`.
pub fn write_number(n: f64, out: &mut String) {
    if !n.is_finite() {
        out.push_str("null");
    } else if n == 0.0 {
        out.push('0');
    } else {
        out.push_str(&format!("{n}"));
    }
}

fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(w) = indent {
        out.push('\n');
        for _ in 0..w * depth {
            out.push(' ');
        }
    }
}

fn write_value(v: &Value, out: &mut String, indent: Option<usize>, depth: usize) {
    match &v.kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::Number(n) => write_number(*n, out),
        Kind::String(s) => write_string(s, out),
        Kind::Array(items) => {
            out.push('[');
            // Arrays of scalars stay on one line even when pretty-printing.
            let flat = items
                .iter()
                .all(|i| !matches!(i.kind, Kind::Array(_) | Kind::Object(_)));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    if flat && indent.is_some() {
                        out.push(' ');
                    }
                }
                if !flat {
                    newline(out, indent, depth + 1);
                }
                write_value(item, out, indent, depth + 1);
            }
            if !flat && !items.is_empty() {
                newline(out, indent, depth);
            }
            out.push(']');
        }
        Kind::Object(members) => {
            out.push('{');
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_string(&m.key, out);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(&m.value, out, indent, depth + 1);
            }
            if !members.is_empty() {
                newline(out, indent, depth);
            }
            out.push('}');
        }
    }
}

/// A syntax error: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What went wrong, e.g. "expected ',' or '}' after an object member".
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parses one JSONC document. Comments and trailing commas are accepted; a duplicate key
/// in one object, a missing comma, a bad escape or trailing text are errors.
pub fn parse(text: &str) -> Result<Value, SyntaxError> {
    if text.len() > MAX_SOURCE_BYTES {
        return Err(SyntaxError {
            offset: 0,
            message: format!(
                "the file is {} bytes, more than the {} bytes a source may hold",
                text.len(),
                MAX_SOURCE_BYTES
            ),
        });
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    // Skip a UTF-8 byte order mark.
    if text.starts_with('\u{feff}') {
        p.i = 3;
    }
    p.document().map_err(|e| *e)
}

/// The error inside the parser: boxed, so the internal `Result`s stay small (a number
/// comes back in registers, not through memory).
type Stop = Box<SyntaxError>;

/// Objects with fewer members than this check a new key for a duplicate by comparing it
/// with each earlier one; larger objects keep a set of key hashes.
const LINEAR_KEY_CHECK: usize = 8;

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl<'a> Parser<'a> {
    #[cold]
    #[inline(never)]
    fn err(&self, message: impl Into<String>) -> Stop {
        Box::new(SyntaxError {
            offset: self.i,
            message: message.into(),
        })
    }

    fn document(&mut self) -> Result<Value, Stop> {
        let v = self.value(0)?;
        self.ws()?;
        if self.i < self.s.len() {
            return Err(self.err("expected the end of the file after the top-level value"));
        }
        Ok(v)
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// Skips whitespace and comments. Whitespace is the hot case; a comment (or a stray
    /// '/') goes to the out-of-line [`Parser::ws_comments`].
    #[inline(always)]
    fn ws(&mut self) -> Result<(), Stop> {
        let s = self.s;
        let mut i = self.i;
        loop {
            match s.get(i) {
                Some(b'\n') => {
                    i += 1;
                    // Indentation after a line break, eight spaces at a time.
                    while let Some(w) = s.get(i..).and_then(|t| t.first_chunk::<8>()) {
                        if *w != [b' '; 8] {
                            break;
                        }
                        i += 8;
                    }
                }
                Some(b' ' | b'\t' | b'\r') => i += 1,
                Some(b'/') => {
                    self.i = i;
                    return self.ws_comments();
                }
                _ => {
                    self.i = i;
                    return Ok(());
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn ws_comments(&mut self) -> Result<(), Stop> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.i += 1,
                Some(b'/') => match self.s.get(self.i + 1) {
                    Some(b'/') => {
                        self.i = match self.s[self.i..].iter().position(|&c| c == b'\n') {
                            Some(n) => self.i + n,
                            None => self.s.len(),
                        };
                    }
                    Some(b'*') => {
                        let start = self.i;
                        self.i += 2;
                        loop {
                            match self.peek() {
                                None => {
                                    self.i = start;
                                    return Err(self.err("a /* comment is never closed with */"));
                                }
                                Some(b'*') if self.s.get(self.i + 1) == Some(&b'/') => {
                                    self.i += 2;
                                    break;
                                }
                                _ => self.i += 1,
                            }
                        }
                    }
                    _ => return Err(self.err("expected a value, found '/'")),
                },
                _ => return Ok(()),
            }
        }
    }

    #[inline(always)]
    fn value(&mut self, depth: usize) -> Result<Value, Stop> {
        self.ws()?;
        self.value_here(depth)
    }

    /// Reads a value starting exactly at `self.i` (whitespace already skipped). Inlined
    /// into the array and object loops; only containers recurse, through the out-of-line
    /// [`Parser::array`] and [`Parser::object`].
    #[inline(always)]
    fn value_here(&mut self, depth: usize) -> Result<Value, Stop> {
        let start = self.i;
        let kind = match self.peek() {
            Some(b'"') => Kind::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => Kind::Number(self.number()?),
            Some(b'{') => Kind::Object(self.object(depth)?),
            Some(b'[') => Kind::Array(self.array(depth)?),
            Some(b't') => {
                self.word("true")?;
                Kind::Bool(true)
            }
            Some(b'f') => {
                self.word("false")?;
                Kind::Bool(false)
            }
            Some(b'n') => {
                self.word("null")?;
                Kind::Null
            }
            _ => return Err(self.no_value()),
        };
        Ok(Value {
            kind,
            span: Span::new(start, self.i),
        })
    }

    #[cold]
    #[inline(never)]
    fn no_value(&self) -> Stop {
        match self.peek() {
            None => self.err("expected a value, found the end of the file"),
            Some(c) => self.err(format!(
                "expected a value, found '{}'",
                char_at(self.text, self.i).unwrap_or(c as char)
            )),
        }
    }

    #[inline]
    fn word(&mut self, w: &str) -> Result<(), Stop> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            if matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
                return Err(self.err(format!("unexpected text after '{w}'")));
            }
            Ok(())
        } else {
            Err(self.err("expected a value (strings need double quotes)"))
        }
    }

    #[inline]
    fn number(&mut self) -> Result<f64, Stop> {
        let s = self.s;
        let start = self.i;
        let mut i = start;
        let negative = s.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        // The digits as one integer mantissa and a power of ten. Clinger's fast path: a
        // mantissa up to 2^53 scaled by an exact power of ten up to 10^22 rounds
        // correctly in one operation, so it agrees with `str::parse` bit for bit;
        // anything else goes through `str::parse`.
        let mut mantissa: u64 = 0;
        let int_start = i;
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(s, i, &mut mantissa),
            _ => {
                self.i = i;
                return Err(self.err("expected a digit in the number"));
            }
        }
        let mut count = i - int_start;
        let mut scale: i64 = 0;
        if s.get(i) == Some(&b'.') {
            i += 1;
            let frac_start = i;
            i = digits(s, i, &mut mantissa);
            if i == frac_start {
                self.i = i;
                return Err(self.err("expected a digit after the decimal point"));
            }
            count += i - frac_start;
            scale = -((i - frac_start) as i64);
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            let negative_exponent = s.get(i) == Some(&b'-');
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp_start = i;
            let mut exponent: i64 = 0;
            while let Some(&c) = s.get(i) {
                let d = c.wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                // Clamped: anything this far out takes the slow path anyway.
                exponent = (exponent * 10 + d as i64).min(1 << 20);
                i += 1;
            }
            if i == exp_start {
                self.i = i;
                return Err(self.err("expected a digit in the exponent"));
            }
            scale += if negative_exponent {
                -exponent
            } else {
                exponent
            };
        }
        self.i = i;
        // Nineteen digits cannot overflow the u64 mantissa.
        if count <= 19 && mantissa <= 1 << 53 && (-22..=22).contains(&scale) {
            const POW10: [f64; 23] = [
                1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
            ];
            let m = mantissa as f64;
            let v = if scale < 0 {
                m / POW10[scale.unsigned_abs() as usize]
            } else {
                m * POW10[scale as usize]
            };
            return Ok(if negative { -v } else { v });
        }
        self.number_slow(start)
    }

    #[cold]
    #[inline(never)]
    fn number_slow(&mut self, start: usize) -> Result<f64, Stop> {
        let text = &self.text[start..self.i];
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(n),
            _ => {
                self.i = start;
                Err(self.err(format!("the number {text} is out of range")))
            }
        }
    }

    /// Reads a string whose opening quote is at `self.i`. A string with no escapes (the
    /// common case) is one scan and one exactly sized copy.
    #[inline(always)]
    fn string(&mut self) -> Result<String, Stop> {
        let open = self.i;
        let end = plain_run(self.s, open + 1);
        if self.s.get(end) == Some(&b'"') {
            self.i = end + 1;
            // Both ends sit on ASCII quotes, so the slice is on character boundaries.
            return Ok(self.text[open + 1..end].to_owned());
        }
        self.string_escaped(open, end)
    }

    /// The rest of a string from its first escape, control character or the end of the
    /// file at `run_end`.
    #[inline(never)]
    fn string_escaped(&mut self, open: usize, run_end: usize) -> Result<String, Stop> {
        let mut out = String::with_capacity(run_end - open + 15);
        out.push_str(&self.text[open + 1..run_end]);
        self.i = run_end;
        loop {
            match self.peek() {
                None => {
                    self.i = open;
                    return Err(self.err("a string is never closed with '\"'"));
                }
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.peek();
                    self.i += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if self.s.get(self.i) == Some(&b'\\')
                                    && self.s.get(self.i + 1) == Some(&b'u')
                                {
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err(self.err("an unpaired UTF-16 surrogate escape"));
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    return Err(self.err("an unpaired UTF-16 surrogate escape"));
                                }
                            } else {
                                hi
                            };
                            match char::from_u32(c) {
                                Some(ch) => out.push(ch),
                                None => return Err(self.err("an invalid \\u escape")),
                            }
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err("an invalid escape in a string"));
                        }
                    }
                }
                Some(_) => {
                    return Err(self.err("a control character inside a string (escape it)"));
                }
            }
            let run_start = self.i;
            self.i = plain_run(self.s, run_start);
            out.push_str(&self.text[run_start..self.i]);
        }
    }

    fn hex4(&mut self) -> Result<u32, Stop> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.err("expected four hex digits after \\u")),
            };
            v = v * 16 + d as u32;
            self.i += 1;
        }
        Ok(v)
    }

    #[inline(never)]
    fn array(&mut self, depth: usize) -> Result<Vec<Value>, Stop> {
        if depth >= MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.i += 1;
        let mut items: Vec<Value> = Vec::new();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    return Ok(items);
                }
                None => return Err(self.err("an array is never closed with ']'")),
                _ => {}
            }
            let item = self.value_here(depth + 1)?;
            items.push(item);
            self.ws()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {}
                _ => return Err(self.err("expected ',' or ']' after an array item")),
            }
        }
    }

    #[inline(never)]
    fn object(&mut self, depth: usize) -> Result<Vec<Member>, Stop> {
        if depth >= MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.i += 1;
        let mut members: Vec<Member> = Vec::new();
        let mut seen = KeyHashes::default();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    return Ok(members);
                }
                Some(b'"') => {}
                None => return Err(self.err("an object is never closed with '}'")),
                _ => return Err(self.err("expected a member name in double quotes, or '}'")),
            }
            let key_start = self.i;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.i);
            if seen.contains_or_add(&members, &key) {
                self.i = key_start;
                return Err(self.err(format!("the member '{key}' is written twice")));
            }
            self.ws()?;
            if self.peek() != Some(b':') {
                return Err(self.err(format!("expected ':' after the member name '{key}'")));
            }
            self.i += 1;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.ws()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return Err(self.err("expected ',' or '}' after an object member")),
            }
        }
    }
}

/// The index of the first byte at or after `i` that ends a plain run inside a string: a
/// quote, a backslash or a control character (or `s.len()`). Eight bytes at a time: in
/// each word, the lowest byte flagged by a "has a byte equal to / below" test is exact
/// (a false flag can only sit above a true one, where a borrow came from).
#[inline(always)]
fn plain_run(s: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = s.get(i..).and_then(|t| t.first_chunk::<8>()) {
        let w = u64::from_le_bytes(*chunk);
        let quote = w ^ (ONES * b'"' as u64);
        let backslash = w ^ (ONES * b'\\' as u64);
        let hits = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        let hits = hits & HIGH;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = s.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// Reads ASCII digits from `i` into `mantissa` (wrapping: the caller counts them) and
/// returns the index after the last one.
#[inline(always)]
fn digits(s: &[u8], mut i: usize, mantissa: &mut u64) -> usize {
    while let Some(&c) = s.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    i
}

/// The duplicate-key check of one object: a linear scan of the members so far while the
/// object is small, then a set of key hashes (a hash already seen falls back to the scan,
/// so a collision is never mistaken for a duplicate).
#[derive(Default)]
struct KeyHashes {
    set: Option<std::collections::HashSet<u64, std::hash::BuildHasherDefault<PassHasher>>>,
}

impl KeyHashes {
    #[inline]
    fn contains_or_add(&mut self, members: &[Member], key: &str) -> bool {
        if members.len() < LINEAR_KEY_CHECK {
            return members.iter().any(|m| m.key == key);
        }
        let set = self.set.get_or_insert_with(|| {
            let mut set = std::collections::HashSet::with_capacity_and_hasher(
                members.len() * 2,
                Default::default(),
            );
            for m in members {
                set.insert(key_hash(m.key.as_bytes()));
            }
            set
        });
        if set.insert(key_hash(key.as_bytes())) {
            false
        } else {
            members.iter().any(|m| m.key == key)
        }
    }
}

/// A key's 64-bit hash (not keyed: a crafted collision only costs a linear scan).
fn key_hash(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 32;
    }
    let mut w = [0u8; 8];
    w[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    // murmur3's finaliser, so both the low bits (bucket) and the top bits (tag) mix.
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Hashes a `u64` that is already a hash to itself.
#[derive(Default)]
struct PassHasher(u64);

impl std::hash::Hasher for PassHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas() {
        let v = parse("// head\n{ /* a */ \"a\": [1, 2,], \"b\": {\"c\": null,}, }").unwrap();
        assert_eq!(v.to_json(), r#"{"a":[1,2],"b":{"c":null}}"#);
    }

    #[test]
    fn spans_point_at_values() {
        let text = "{\n  \"x\": [1, 2]\n}";
        let v = parse(text).unwrap();
        let x = v.get("x").unwrap();
        assert_eq!(&text[x.span.start as usize..x.span.end as usize], "[1, 2]");
    }

    #[test]
    fn errors_have_offsets() {
        let e = parse("{\"a\": 1 \"b\": 2}").unwrap_err();
        assert_eq!(e.offset, 8);
        assert!(e.message.contains("expected ','"));
        assert!(parse("{\"a\":1,\"a\":2}")
            .unwrap_err()
            .message
            .contains("twice"));
        assert!(parse("[1,2").is_err());
        assert!(parse("\"abc").is_err());
        assert!(parse("/* x").is_err());
        assert!(parse("1e999").is_err());
        assert!(parse("01").is_err());
        assert!(parse("[1] x").is_err());
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 5);
        assert!(parse(&deep).unwrap_err().message.contains("nesting"));
    }

    #[test]
    fn escapes() {
        let v = parse(r#""a\n\u00e9\ud83d\ude00\"""#).unwrap();
        assert_eq!(v.as_str(), Some("a\né😀\""));
        assert_eq!(v.to_json(), "\"a\\né😀\\\"\"");
    }

    #[test]
    fn numbers_match_the_full_parser() {
        // The fast path must agree with str::parse bit for bit.
        for text in [
            "0",
            "-0",
            "1",
            "-1",
            "0.1",
            "0.3",
            "1.5",
            "-2.25",
            "123456789012345",
            "0.000000000000000000001",
            "3.141592653589793",
            "9007199254740993",
            "1234567.8901234",
            "0.1e1",
            "100.000",
            "1e22",
            "12345678901234567890",
            "0.0000000000000000000000001",
            "-0.5",
            "2.5e-7",
            "42.42",
        ] {
            let ours = parse(text).unwrap().as_f64().unwrap();
            let std: f64 = text.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
        }
        // A pseudo-random sweep of decimals with up to 15 digits.
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 100_000;
            let frac = (x >> 20) % 1_000_000_000;
            let text = format!("{int}.{frac:09}");
            let ours = parse(&text).unwrap().as_f64().unwrap();
            let std: f64 = text.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
        }
    }

    #[test]
    fn exponents_match_the_full_parser() {
        // Exponents fold into the fast path's power of ten while it stays within 10^±22.
        for text in [
            "1e0",
            "1e-22",
            "1e-23",
            "9007199254740992e22",
            "9007199254740993e0",
            "123e5",
            "1.5E+3",
            "-2.5e-7",
            "4.35e-5",
            "7e22",
            "7e23",
            "1e400",
            "1e-400",
            "0e999999999999",
            "12345678901234567e-3",
            "0.000123e10",
        ] {
            match text.parse::<f64>() {
                Ok(std) if std.is_finite() => {
                    let ours = parse(text).unwrap().as_f64().unwrap();
                    assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
                }
                _ => assert!(parse(text).unwrap_err().message.contains("out of range")),
            }
        }
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let text = format!(
                "{}.{}e{}",
                x % 1_000_000,
                (x >> 24) % 1000,
                ((x >> 40) % 60) as i64 - 30
            );
            let ours = parse(&text).unwrap().as_f64().unwrap();
            let std: f64 = text.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
        }
    }

    #[test]
    fn string_scanning_finds_every_special_byte() {
        // A quote, backslash or control character at every offset of the word-at-a-time
        // scan, after plain ASCII and after multi-byte UTF-8.
        for prefix in ["", "é", "😀x"] {
            for n in 0..20 {
                let run = format!("{prefix}{}", "a".repeat(n));
                let v = parse(&format!("\"{run}\\n{run}\"")).unwrap();
                assert_eq!(v.as_str().unwrap(), format!("{run}\n{run}"));
                let e = parse(&format!("\"{run}\u{1}\"")).unwrap_err();
                assert_eq!(e.offset, 1 + run.len());
                assert!(e.message.contains("control character"));
                let e = parse(&format!("\"{run}")).unwrap_err();
                assert_eq!((e.offset, e.message.contains("never closed")), (0, true));
                let v = parse(&format!("[\"{run}\", 1]")).unwrap();
                assert_eq!(v.as_array().unwrap()[0].span, Span::new(1, 3 + run.len()));
            }
        }
    }

    #[test]
    fn duplicates_in_large_objects() {
        // Past the linear check, the hash set finds the same duplicate at the same offset.
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{i}\": {i}, "));
        }
        let at = text.len();
        text.push_str("\"k\\u0037\": 0}");
        let e = parse(&text).unwrap_err();
        assert_eq!(e.offset, at);
        assert_eq!(e.message, "the member 'k7' is written twice");
        // Distinct keys, however many, are accepted in order.
        let ok = text.replace("\"k\\u0037\": 0", "\"k100\": 0");
        let v = parse(&ok).unwrap();
        let members = v.as_object().unwrap();
        assert_eq!(members.len(), 101);
        assert_eq!(members[100].key, "k100");
        assert_eq!(v.get("k42").and_then(Value::as_f64), Some(42.0));
    }

    #[test]
    fn numbers_write_shortest() {
        let v = parse("[1.0, 0.1, -0, 1e3, 2.5e-7]").unwrap();
        assert_eq!(v.to_json(), "[1,0.1,0,1000,0.00000025]");
    }
}
