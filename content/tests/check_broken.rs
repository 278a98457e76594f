//! `dh check` on a folder of deliberately broken sources (`tests/data/broken-pallet`).
//!
//! Each line that must be reported carries a marker comment, `// ERROR: <fragment>` or
//! `// WARNING: <fragment>`, written by hand from the spec. The check must report exactly
//! the marked diagnostics: every marker matched by a diagnostic on its line whose message
//! contains the fragment, and no diagnostic without a marker.

use std::path::{Path, PathBuf};

use dh_content::compile::{compile, CompileOptions};
use dh_content::diag::Severity;

struct Marker {
    file: String,
    line: u32,
    severity: Severity,
    fragment: String,
}

fn markers(root: &Path, rel: &str, out: &mut Vec<Marker>) {
    let dir = root.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if e.path().is_dir() {
            markers(root, &path, out);
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            for (tag, severity) in [
                ("// ERROR: ", Severity::Error),
                ("// WARNING: ", Severity::Warning),
            ] {
                if let Some(pos) = line.find(tag) {
                    out.push(Marker {
                        file: path.clone(),
                        line: i as u32 + 1,
                        severity,
                        fragment: line[pos + tag.len()..].trim().to_string(),
                    });
                }
            }
        }
    }
}

fn broken_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/broken-pallet")
}

#[test]
fn check_reports_exactly_the_marked_errors() {
    let root = broken_root();
    let mut expected = Vec::new();
    markers(&root, "", &mut expected);
    assert!(expected.len() >= 20, "only {} markers", expected.len());
    let out = compile(&root, &CompileOptions::default());
    let mut problems = Vec::new();
    for m in &expected {
        let hit = out.diagnostics.items.iter().any(|d| {
            d.file == m.file
                && d.line == m.line
                && d.severity == m.severity
                && d.message.contains(&m.fragment)
        });
        if !hit {
            problems.push(format!(
                "{}:{}: expected {:?} containing {:?}",
                m.file, m.line, m.severity, m.fragment
            ));
        }
    }
    for d in &out.diagnostics.items {
        let marked = expected.iter().any(|m| {
            d.file == m.file
                && d.line == m.line
                && d.severity == m.severity
                && d.message.contains(&m.fragment)
        });
        if !marked {
            problems.push(format!("unmarked diagnostic: {d}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(out.pallet.is_none());
}

#[test]
fn every_diagnostic_names_file_line_and_column() {
    let out = compile(&broken_root(), &CompileOptions::default());
    for d in &out.diagnostics.items {
        assert!(!d.file.is_empty() && d.line > 0 && d.col > 0, "{d}");
        let shown = d.to_string();
        assert!(
            shown.starts_with(&format!("{}:{}:{}: error: ", d.file, d.line, d.col)),
            "{shown}"
        );
    }
}

#[test]
fn a_build_with_errors_writes_no_pallet() {
    let out = compile(
        &broken_root(),
        &CompileOptions {
            write: true,
            progress: None,
        },
    );
    assert!(out.diagnostics.has_errors());
    assert!(out.pallet.is_none());
}
