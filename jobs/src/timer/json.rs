//! A small JSON writer for the timer's reports.

use std::fmt::Write;

/// Appends `s` as a JSON string literal.
pub(crate) fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a number; JSON has no NaN or infinity, so those become `null`.
pub(crate) fn number(out: &mut String, v: f64) {
    if v.is_finite() {
        let _ = write!(out, "{v}");
    } else {
        out.push_str("null");
    }
}

/// Appends `"key":` (after a comma unless `first`).
pub(crate) fn key(out: &mut String, first: bool, k: &str) {
    if !first {
        out.push(',');
    }
    string(out, k);
    out.push(':');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_strings() {
        let mut out = String::new();
        string(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(out, r#""a\"b\\c\nd\u0001é""#);
    }

    #[test]
    fn numbers_are_json() {
        let mut out = String::new();
        number(&mut out, 1.5);
        out.push(' ');
        number(&mut out, f64::NAN);
        out.push(' ');
        number(&mut out, 1e-7);
        assert_eq!(out, "1.5 null 0.0000001");
    }
}
