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
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
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
}
