//! Reading a client jar (a zip) or an unpacked `assets/` folder, bounded: the entry
//! count, each entry's inflated size, the total inflated, and every entry's name
//! (no `..`, nothing absolute). Only what the importer reads is inflated:
//! `assets/minecraft/blockstates/*.json`, `models/**/*.json`, `textures/**/*.png` and
//! their `.mcmeta`, and the jar's `version.json`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Limits, PlatformError};

/// The folder inside a jar every asset the importer reads lies under.
pub const ASSETS_PREFIX: &str = "assets/minecraft/";

/// The assets read, by path under `assets/minecraft/` (`blockstates/stone.json`,
/// `models/block/stone.json`, `textures/block/stone.png`).
#[derive(Debug, Clone, Default)]
pub struct Assets {
    /// How files are named in messages: `client.jar!/` or the folder with a `/`.
    pub origin: String,
    /// The files.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The game version (`version.json`'s `id`), when the source holds one.
    pub version: Option<String>,
}

impl Assets {
    /// How `rel` (a path under `assets/minecraft/`) is named in messages.
    pub fn name(&self, rel: &str) -> String {
        format!("{}{ASSETS_PREFIX}{rel}", self.origin)
    }
}

/// Whether a path under `assets/minecraft/` is one the importer reads.
fn wanted(rel: &str) -> bool {
    (rel.starts_with("blockstates/") && rel.ends_with(".json"))
        || (rel.starts_with("models/") && rel.ends_with(".json"))
        || (rel.starts_with("textures/") && (rel.ends_with(".png") || rel.ends_with(".png.mcmeta")))
}

/// Why an entry name is refused: absolute, a drive, a `..` or `.` segment, a backslash or
/// a NUL; `None` when it is fine.
pub fn bad_name(name: &str) -> Option<&'static str> {
    if name.starts_with('/') || name.starts_with('\\') {
        return Some("it is absolute");
    }
    if name.contains('\\') || name.contains('\0') {
        return Some("it holds a backslash or a NUL");
    }
    if name.len() >= 2 && name.as_bytes()[1] == b':' {
        return Some("it names a drive");
    }
    if name.split('/').any(|s| s == ".." || s == ".") {
        return Some("it holds a '..' or '.' segment");
    }
    None
}

fn version_of(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let v = crate::jsonc::parse(text).ok()?;
    let id = v.get("id").and_then(|i| i.as_str())?;
    (!id.is_empty() && id.len() <= 64).then(|| id.to_string())
}

/// Reads the jar at `path`'s bytes (`jar` names it in messages).
pub fn read_jar(jar: &str, bytes: &[u8], limits: &Limits) -> Result<Assets, PlatformError> {
    let bad = |message: String| PlatformError::Jar {
        jar: jar.to_string(),
        message,
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!("not a readable zip (a client jar is one): {e}")))?;
    if zip.len() > limits.max_entries {
        return Err(bad(format!(
            "the jar holds {} entries; the importer reads at most {}",
            zip.len(),
            limits.max_entries
        )));
    }
    let mut out = Assets {
        origin: format!("{jar}!/"),
        ..Assets::default()
    };
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let mut f = zip
            .by_index(i)
            .map_err(|e| bad(format!("entry {i} cannot be read: {e}")))?;
        let Ok(name) = std::str::from_utf8(f.name_raw()).map(str::to_string) else {
            return Err(bad(format!("entry {i}'s name is not UTF-8")));
        };
        let entry_err = |message: String| PlatformError::Entry {
            file: format!("{jar}!/{name}"),
            message,
        };
        if let Some(why) = bad_name(&name) {
            return Err(entry_err(format!(
                "the entry's name is refused: {why}; a jar's entries are relative paths"
            )));
        }
        if f.is_dir() {
            continue;
        }
        let is_version = name == "version.json";
        let rel = name.strip_prefix(ASSETS_PREFIX);
        if !is_version && !rel.is_some_and(wanted) {
            continue;
        }
        let declared = f.size();
        if declared > limits.max_entry_bytes {
            return Err(entry_err(format!(
                "it inflates to {declared} bytes; an asset may be at most {}",
                limits.max_entry_bytes
            )));
        }
        let mut buf = Vec::with_capacity(declared as usize);
        (&mut f)
            .take(limits.max_entry_bytes + 1)
            .read_to_end(&mut buf)
            .map_err(|e| entry_err(format!("cannot be inflated: {e}")))?;
        if buf.len() as u64 > limits.max_entry_bytes {
            return Err(entry_err(format!(
                "it inflates past {} bytes, the most an asset may be (its header said {declared})",
                limits.max_entry_bytes
            )));
        }
        total += buf.len() as u64;
        if total > limits.max_total_bytes {
            return Err(entry_err(format!(
                "the assets read so far inflate past {} bytes, the most one import reads",
                limits.max_total_bytes
            )));
        }
        if is_version {
            out.version = version_of(&buf);
        } else if let Some(rel) = rel {
            out.files.insert(rel.to_string(), buf);
        }
    }
    if !out.files.keys().any(|k| k.starts_with("blockstates/")) {
        return Err(PlatformError::NotAssets {
            path: jar.to_string(),
            why: format!("it holds no {ASSETS_PREFIX}blockstates/*.json"),
        });
    }
    Ok(out)
}

/// The `assets/minecraft` folder of `dir`: `dir` itself when it holds `blockstates/`,
/// else `dir/minecraft` (an `assets/` folder), else `dir/assets/minecraft`.
pub fn minecraft_folder(dir: &Path) -> Option<PathBuf> {
    [
        dir.to_path_buf(),
        dir.join("minecraft"),
        dir.join("assets").join("minecraft"),
    ]
    .into_iter()
    .find(|d| d.join("blockstates").is_dir())
}

/// Reads an unpacked folder (see [`minecraft_folder`]) under the same caps as a jar.
pub fn read_folder(dir: &Path, limits: &Limits) -> Result<Assets, PlatformError> {
    let shown = dir.display().to_string();
    let Some(root) = minecraft_folder(dir) else {
        return Err(PlatformError::NotAssets {
            path: shown,
            why: "it holds no blockstates/ folder, nor minecraft/blockstates/ or assets/minecraft/blockstates/".into(),
        });
    };
    let mut out = Assets {
        origin: format!(
            "{}/",
            root.parent()
                .and_then(Path::parent)
                .unwrap_or(dir)
                .display()
        ),
        ..Assets::default()
    };
    let mut total = 0u64;
    let mut count = 0usize;
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((d, rel)) = stack.pop() {
        let io = |source| PlatformError::Io {
            path: d.display().to_string(),
            action: "read the folder",
            source,
        };
        let mut names: Vec<(String, PathBuf, bool)> = Vec::new();
        for e in std::fs::read_dir(&d).map_err(io)? {
            let e = e.map_err(io)?;
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let t = e.file_type().map_err(io)?;
            if t.is_symlink() {
                continue;
            }
            names.push((name, e.path(), t.is_dir()));
        }
        names.sort();
        for (name, path, is_dir) in names {
            count += 1;
            if count > limits.max_entries {
                return Err(PlatformError::NotAssets {
                    path: shown,
                    why: format!(
                        "it holds more than {} files and folders",
                        limits.max_entries
                    ),
                });
            }
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if is_dir {
                if rel.is_empty() && !matches!(name.as_str(), "blockstates" | "models" | "textures")
                {
                    continue;
                }
                stack.push((path, r));
                continue;
            }
            if !wanted(&r) {
                continue;
            }
            let len = std::fs::metadata(&path)
                .map_err(|source| PlatformError::Io {
                    path: path.display().to_string(),
                    action: "read",
                    source,
                })?
                .len();
            if len > limits.max_entry_bytes {
                return Err(PlatformError::Entry {
                    file: path.display().to_string(),
                    message: format!(
                        "it is {len} bytes; an asset may be at most {}",
                        limits.max_entry_bytes
                    ),
                });
            }
            total += len;
            if total > limits.max_total_bytes {
                return Err(PlatformError::Entry {
                    file: path.display().to_string(),
                    message: format!(
                        "the assets read so far pass {} bytes, the most one import reads",
                        limits.max_total_bytes
                    ),
                });
            }
            let bytes = std::fs::read(&path).map_err(|source| PlatformError::Io {
                path: path.display().to_string(),
                action: "read",
                source,
            })?;
            out.files.insert(r, bytes);
        }
    }
    for v in [dir.join("version.json"), root.join("../../version.json")] {
        if let Ok(b) = std::fs::read(&v) {
            if b.len() < 1 << 20 {
                out.version = version_of(&b);
                break;
            }
        }
    }
    Ok(out)
}

/// A PNG's width and height from its header, refused past `max_side` a side or when
/// the bytes are not a PNG.
pub fn png_size(bytes: &[u8], max_side: u32) -> Result<(u32, u32), String> {
    const SIG: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != SIG || &bytes[12..16] != b"IHDR" {
        return Err("not a PNG (no signature and IHDR header)".into());
    }
    let w = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
    let h = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
    if w == 0 || h == 0 {
        return Err(format!(
            "the PNG claims {w}x{h} texels; a texture has at least one"
        ));
    }
    if w > max_side || h > max_side {
        return Err(format!(
            "the PNG claims {w}x{h} texels; a block texture may be at most {max_side} a side"
        ));
    }
    Ok((w, h))
}
