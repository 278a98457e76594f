//! Diagnostics: errors and warnings that name a file, a line and column, the JSON path
//! and what was expected. A build collects all of them rather than stopping at the first.

use std::fmt;

use crate::jsonc::Span;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The build fails.
    Error,
    /// The build goes on; the author should look.
    Warning,
    /// Said for the record, nothing to fix: the spec's "note" (a map thumbnail drawn
    /// rather than taken). Not counted among the warnings.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One source file as the diagnostics see it: its display path (relative to the pallet
/// root, `/`-separated) and its text, with line starts for `line:col` lookups.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path diagnostics print.
    pub path: String,
    /// The file's text.
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A source file from its display path and text.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push((i + 1).min(u32::MAX as usize) as u32);
            }
        }
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0) as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end.saturating_sub(start));
        (line as u32 + 1, col as u32 + 1)
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file's display path ("" when the diagnostic is about no one file).
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub col: u32,
    /// The JSON path of the value, e.g. `objects[3].components[0]` ("" at the top).
    pub path: String,
    /// The message, in the spec's wording where it has one.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.is_empty() {
            write!(f, "{}", self.file)?;
            if self.line > 0 {
                write!(f, ":{}:{}", self.line, self.col)?;
            }
            write!(f, ": ")?;
        }
        write!(f, "{}: ", self.severity.as_str())?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl Diagnostic {
    /// The diagnostic as one JSON object (for `--json`).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"severity\":");
        crate::jsonc::write_string(self.severity.as_str(), &mut out);
        out.push_str(",\"file\":");
        crate::jsonc::write_string(&self.file, &mut out);
        out.push_str(&format!(
            ",\"line\":{},\"col\":{},\"path\":",
            self.line, self.col
        ));
        crate::jsonc::write_string(&self.path, &mut out);
        out.push_str(",\"message\":");
        crate::jsonc::write_string(&self.message, &mut out);
        out.push('}');
        out
    }
}

/// Every diagnostic of a check or build, in the order found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    /// The diagnostics.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds an error located in `file` at `span`.
    pub fn error(&mut self, file: &SourceFile, span: Span, path: &str, message: impl Into<String>) {
        self.push(Severity::Error, file, span, path, message);
    }

    /// Adds a warning located in `file` at `span`.
    pub fn warning(
        &mut self,
        file: &SourceFile,
        span: Span,
        path: &str,
        message: impl Into<String>,
    ) {
        self.push(Severity::Warning, file, span, path, message);
    }

    /// Adds a diagnostic located in `file` at `span`.
    pub fn push(
        &mut self,
        severity: Severity,
        file: &SourceFile,
        span: Span,
        path: &str,
        message: impl Into<String>,
    ) {
        let (line, col) = file.line_col(span.start);
        self.items.push(Diagnostic {
            severity,
            file: file.path.clone(),
            line,
            col,
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// Adds an error about a file as a whole (or about no file: pass "").
    pub fn file_error(&mut self, file: &str, message: impl Into<String>) {
        self.items.push(Diagnostic {
            severity: Severity::Error,
            file: file.to_string(),
            line: 0,
            col: 0,
            path: String::new(),
            message: message.into(),
        });
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// How many errors.
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.severity == Severity::Error)
    }

    /// Appends another set.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// Sorts by file, line, column, then message, so output is stable.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| {
            (&a.file, a.line, a.col, &a.message).cmp(&(&b.file, b.line, b.col, &b.message))
        });
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.items {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

/// The edit distance between `a` and `b`: the fewest single-character insertions,
/// deletions, substitutions and swaps of two neighbors that turn one into the other
/// (optimal string alignment; case-sensitive, so callers lower-case both for a
/// case-insensitive distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            let mut best = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i - 1] == *cb && b[j - 1] == *ca {
                best = best.min(before[j - 1] + 1);
            }
            cur[j + 1] = best;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The case-insensitive edit distance from `name` to `choice` when it is near enough to
/// suggest: at most a quarter of the name's length (at least 1), and a name shorter than
/// five characters must start as the choice does (`cone` is not a typo of `none`).
fn near_edit(name: &str, choice: &str) -> Option<usize> {
    let n = name.to_lowercase();
    let c = choice.to_lowercase();
    let len = n.chars().count();
    if len < 5 && n.chars().next() != c.chars().next() {
        return None;
    }
    let d = edit_distance(&n, &c);
    (d <= (len / 4).max(1)).then_some(d)
}

/// Whether `name` (three characters or more) is a whole `-`/`_`/`.`/`/`/`:`-separated
/// segment of `choice` or the start of it, case-insensitively (`debug` of `debug-map`).
fn is_part_of(name: &str, choice: &str) -> bool {
    let n = name.to_lowercase();
    let c = choice.to_lowercase();
    n.chars().count() >= 3
        && (c.starts_with(&n) || c.split(['-', '_', '.', '/', ':']).any(|s| s == n))
}

/// The choices near `name`, nearest first (ties in the choices' order), at most `max`: those
/// within a case-insensitive edit distance of a quarter of the name's length (at least 1);
/// failing any, the one choice the name is the start or a whole segment of (`debug` for
/// `debug-map`), when exactly one is. A choice equal to `name` is not a suggestion.
pub fn nearest<'a>(
    name: &str,
    choices: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let choices: Vec<&'a str> = choices.into_iter().filter(|c| *c != name).collect();
    let mut scored: Vec<(usize, usize, &'a str)> = choices
        .iter()
        .enumerate()
        .filter_map(|(i, c)| near_edit(name, c).map(|d| (d, i, *c)))
        .collect();
    scored.sort();
    let mut out: Vec<&'a str> = Vec::new();
    for (_, _, c) in scored {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    if out.is_empty() {
        let mut parts: Vec<&'a str> = choices
            .into_iter()
            .filter(|c| is_part_of(name, c))
            .collect();
        parts.dedup();
        if parts.len() == 1 {
            out = parts;
        }
    }
    out.truncate(max);
    out
}

/// The one choice nearest to `name`, if any is near enough ([`nearest`]).
pub fn closest<'a>(name: &str, choices: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest(name, choices, 1).into_iter().next()
}

/// The suggestion appended to a message about an unknown `name`: "; did you mean
/// `choice`?" with the nearest choice, or "" when none is near enough.
pub fn did_you_mean<'a>(name: &str, choices: impl IntoIterator<Item = &'a str>) -> String {
    match closest(name, choices) {
        Some(c) => format!("; did you mean `{c}`?"),
        None => String::new(),
    }
}

/// The dotted names nearest to `name` (`world.tickRate`), nearest first, at most `max`:
/// a case-insensitive edit distance over the whole name of at most a quarter of its length
/// (at least 2), or over its last `.` segment of at most a quarter of that segment (at
/// least 1), scored one worse than a whole-name match. Preferences are named this way.
pub fn nearest_dotted<'a>(
    name: &str,
    choices: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit('.').next().unwrap_or(&lower).to_string();
    let mut scored: Vec<(usize, &'a str)> = choices
        .into_iter()
        .filter_map(|c| {
            let dl = c.to_ascii_lowercase();
            let whole = edit_distance(&lower, &dl);
            let dlast = dl.rsplit('.').next().unwrap_or(&dl);
            let tail = edit_distance(&last, dlast);
            let whole_ok = whole <= (lower.len() / 4).max(2);
            let tail_ok = !last.is_empty() && tail <= (last.len() / 4).max(1);
            (whole_ok || tail_ok).then_some((whole.min(tail + 1), c))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(max).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col() {
        let f = SourceFile::new("a.dh-map", "ab\ncdé\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (2, 4)); // after the two-byte é
        assert_eq!(f.line_col(8), (3, 1));
    }

    #[test]
    fn display() {
        let f = SourceFile::new("maps/a.dh-map", "{\n  \"yaw\": 1\n}");
        let mut d = Diagnostics::new();
        d.error(&f, Span::new(4, 9), "objects[0]", "unknown member 'yaw'");
        assert_eq!(
            d.items[0].to_string(),
            "maps/a.dh-map:2:3: error: objects[0]: unknown member 'yaw'"
        );
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("solidd", "solid"), 1);
        assert_eq!(edit_distance("é", "e"), 1);
        // A swap of two neighbors is one edit.
        assert_eq!(edit_distance("gird", "grid"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
    }

    #[test]
    fn suggests_the_nearest_choice() {
        let maps = ["logic-map", "debug-map", "physics-eval", "render-eval"];
        assert_eq!(closest("debug", maps), Some("debug-map"));
        assert_eq!(closest("logic", maps), Some("logic-map"));
        assert_eq!(closest("rendr-eval", maps), Some("render-eval"));
        assert_eq!(closest("zzz", maps), None);
        assert_eq!(did_you_mean("debug", maps), "; did you mean `debug-map`?");
        assert_eq!(did_you_mean("nothing-like-it", maps), "");
        // Case alone is near; the name itself is never its own suggestion.
        assert_eq!(
            closest("INTENSITY", ["range", "intensity"]),
            Some("intensity")
        );
        assert_eq!(closest("range", ["range"]), None);
        // Nearest first, then the choices' order.
        assert_eq!(
            nearest("colr", ["colour", "cold", "color"], 3),
            vec!["cold", "color"]
        );
        // Too short a name is not the start of everything.
        assert_eq!(closest("d", ["debug-map"]), None);
    }

    #[test]
    fn suggests_dotted_names() {
        let names = ["world.tickRate", "client.voxel.streamRadius", "client.fov"];
        assert_eq!(
            nearest_dotted("world.tickrate", names, 3),
            vec!["world.tickRate"]
        );
        assert_eq!(
            nearest_dotted("client.voxel.streamRadus", names, 3),
            vec!["client.voxel.streamRadius"]
        );
        assert!(nearest_dotted("nothing.like.it.at.all", names, 3).is_empty());
    }
}
