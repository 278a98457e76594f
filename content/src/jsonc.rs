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
    let v = p.value(0)?;
    p.ws()?;
    if p.i < p.s.len() {
        return Err(p.err("expected the end of the file after the top-level value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            offset: self.i,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.i += 1,
                Some(b'/') => match self.s.get(self.i + 1) {
                    Some(b'/') => {
                        while let Some(c) = self.peek() {
                            if c == b'\n' {
                                break;
                            }
                            self.i += 1;
                        }
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

    fn value(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.ws()?;
        let start = self.i;
        let kind = match self.peek() {
            None => return Err(self.err("expected a value, found the end of the file")),
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                self.object(depth)?
            }
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                self.array(depth)?
            }
            Some(b'"') => Kind::String(self.string()?),
            Some(b't') => self.word("true", Kind::Bool(true))?,
            Some(b'f') => self.word("false", Kind::Bool(false))?,
            Some(b'n') => self.word("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => Kind::Number(self.number()?),
            Some(c) => {
                return Err(self.err(format!(
                    "expected a value, found '{}'",
                    char_at(self.text, self.i).unwrap_or(c as char)
                )))
            }
        };
        Ok(Value {
            kind,
            span: Span::new(start, self.i),
        })
    }

    fn word(&mut self, w: &str, kind: Kind) -> Result<Kind, SyntaxError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            if matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
                return Err(self.err(format!("unexpected text after '{w}'")));
            }
            Ok(kind)
        } else {
            Err(self.err("expected a value (strings need double quotes)"))
        }
    }

    fn number(&mut self) -> Result<f64, SyntaxError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        // The digits as an exact integer mantissa while they fit (Clinger's fast path:
        // a mantissa below 2^53 scaled by an exact power of ten up to 10^22 rounds
        // correctly in one operation); anything else goes through the full parser.
        let mut mantissa: u64 = 0;
        let mut digits = 0u32;
        let mut scale: i32 = 0;
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while let Some(c @ b'0'..=b'9') = self.peek() {
                    mantissa = mantissa.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                    digits += 1;
                    self.i += 1;
                }
            }
            _ => return Err(self.err("expected a digit in the number")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("expected a digit after the decimal point"));
            }
            while let Some(c @ b'0'..=b'9') = self.peek() {
                if mantissa != 0 || c != b'0' {
                    digits += 1;
                }
                mantissa = mantissa.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                scale -= 1;
                self.i += 1;
            }
        }
        let mut exact = digits <= 15;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            exact = false;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("expected a digit in the exponent"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        if exact && scale >= -22 {
            const POW10: [f64; 23] = [
                1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
            ];
            let m = mantissa as f64;
            let v = match POW10.get((-scale) as usize) {
                Some(p) if scale < 0 => m / p,
                _ => m,
            };
            return Ok(if negative { -v } else { v });
        }
        let text = &self.text[start..self.i];
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(n),
            _ => {
                self.i = start;
                Err(self.err(format!("the number {text} is out of range")))
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let open = self.i;
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let run_start = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run_start..self.i]);
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
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
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

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    return Ok(Kind::Array(items));
                }
                None => return Err(self.err("an array is never closed with ']'")),
                _ => {}
            }
            items.push(self.value(depth + 1)?);
            self.ws()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {}
                _ => return Err(self.err("expected ',' or ']' after an array item")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut members: Vec<Member> = Vec::new();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Kind::Object(members));
                }
                Some(b'"') => {}
                None => return Err(self.err("an object is never closed with '}'")),
                _ => return Err(self.err("expected a member name in double quotes, or '}'")),
            }
            let key_start = self.i;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.i);
            if members.iter().any(|m| m.key == key) {
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
            "0", "-0", "1", "-1", "0.1", "0.3", "1.5", "-2.25", "123456789012345",
            "0.000000000000000000001", "3.141592653589793", "9007199254740993",
            "1234567.8901234", "0.1e1", "100.000", "1e22", "12345678901234567890",
            "0.0000000000000000000000001", "-0.5", "2.5e-7", "42.42",
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
    fn numbers_write_shortest() {
        let v = parse("[1.0, 0.1, -0, 1e3, 2.5e-7]").unwrap();
        assert_eq!(v.to_json(), "[1,0.1,0,1000,0.00000025]");
    }
}
