//! The build's half of map thumbnails (spec: dh.map, "The map's thumbnail"): for each map
//! with a `mapThumbnail` camera, the fallback ladder of [`crate::thumbnail`] and the
//! `.dh-mapthumb` companion packed from the PNG beside the map.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{pack_using, AssetKind, CompiledAsset, CompilerWrite};
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::schema::manifest::PalletManifestSource;
use crate::thumbnail::{self, EngineSetting, RenderOutcome, ThumbnailOptions};

/// A map that marks a thumbnail camera, as the validation saw it.
pub(crate) struct ThumbMap {
    /// The map's path in the pallet.
    pub path: String,
    /// Where the map lies on disk (`None` for one embedded in a binary).
    pub disk: Option<PathBuf>,
    /// The camera's `thumbnailSize`.
    pub size: [u32; 2],
    /// The camera's `autoCapture`.
    pub auto_capture: bool,
    /// The box brushes of the folded map, for the plan.
    pub boxes: Vec<thumbnail::PlanBox>,
}

/// What the thumbnail step knows of the build around it.
pub(crate) struct ThumbCx<'a> {
    pub manifest: &'a PalletManifestSource,
    /// The engine to photograph with (`dh build`), when the build produces a pallet.
    pub capture: Option<&'a ThumbnailOptions>,
    /// Whether this is a build that will produce its pallet (a check, or a failed build,
    /// packs and writes nothing).
    pub write: bool,
    /// The dependency pallet files handed to the engine.
    pub dependencies: Vec<PathBuf>,
    /// The dependencies the pallet records as used.
    pub used: Vec<crate::pallet::UsedDependency>,
}

fn warn(diags: &mut Diagnostics, file: &str, message: String) {
    diags.items.push(Diagnostic {
        severity: Severity::Warning,
        file: file.to_string(),
        line: 0,
        col: 0,
        path: String::new(),
        message,
    });
}

/// Writes `bytes` to `disk` whole (a temporary file renamed over it).
fn write_whole(disk: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = disk.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, disk))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// The run folder of one build's captures, removed when dropped.
struct RunRoot(PathBuf);

impl Drop for RunRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Photographs (or falls back for) each of `maps` and returns their companions and the
/// PNGs the build wrote beside them (each marked written). `photos` are the PNGs the
/// sources hold, by path; `assets` the compiled assets (the map documents).
pub(crate) fn ship_thumbnails(
    cx: &ThumbCx,
    maps: &[ThumbMap],
    photos: &BTreeMap<String, Vec<u8>>,
    assets: &[CompiledAsset],
    diags: &mut Diagnostics,
) -> (Vec<CompiledAsset>, Vec<CompilerWrite>) {
    let mut companions = Vec::new();
    let mut writes = Vec::new();
    if !cx.write {
        return (companions, writes);
    }
    let mut run: Option<(RunRoot, Result<PathBuf, String>)> = None;
    for (n, m) in maps.iter().enumerate() {
        let Some(doc) = assets.iter().find(|a| a.path == m.path) else {
            continue;
        };
        let hash = thumbnail::map_hash(&doc.bytes);
        let key = thumbnail::capture_key(&hash, m.size);
        let png_rel = thumbnail::png_path(&m.path);
        let png_disk = m.disk.as_ref().and_then(|d| {
            let name = png_rel.rsplit('/').next()?;
            Some(d.with_file_name(name))
        });
        let mut current = photos.get(&png_rel).cloned();
        let mut why: Option<String> = None;
        if let (Some(t), true) = (cx.capture, m.auto_capture) {
            let ours = current.as_deref().is_some_and(thumbnail::is_plan);
            let hit = t.cached(&key) && current.is_some() && !ours;
            if !hit {
                match (&t.engine, &png_disk) {
                    (EngineSetting::Unset, _) => {
                        why = Some("enginePath is unset (set it in dh-config.jsonc beside pallet.dh or in the current folder, or pass dh build --engine PATH)".into());
                    }
                    (EngineSetting::Named { path, from }, _) if !path.is_file() => {
                        why = Some(format!(
                            "enginePath '{}' ({from}) names nothing",
                            path.display()
                        ));
                    }
                    (_, None) => {
                        why = Some("the map has no folder on disk to write its picture in".into());
                    }
                    (EngineSetting::Named { path, .. }, Some(disk)) => {
                        let (root, pallet) = run.get_or_insert_with(|| {
                            static NEXT: std::sync::atomic::AtomicU64 =
                                std::sync::atomic::AtomicU64::new(0);
                            let root = std::env::temp_dir().join(format!(
                                "dh-thumbnails-{}-{}",
                                std::process::id(),
                                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                            ));
                            let file = root.join(format!("{}.pallet", cx.manifest.id));
                            let made = std::fs::create_dir_all(&root)
                                .map_err(|e| e.to_string())
                                .and_then(|_| {
                                    pack_using(cx.manifest, assets, &cx.used)
                                        .map_err(|e| e.to_string())
                                })
                                .and_then(|b| std::fs::write(&file, b).map_err(|e| e.to_string()))
                                .map(|_| file)
                                .map_err(|e| {
                                    format!("the pallet to photograph could not be written: {e}")
                                });
                            (RunRoot(root), made)
                        });
                        match pallet {
                            Err(e) => why = Some(e.clone()),
                            Ok(file) => {
                                let mut pallets = cx.dependencies.clone();
                                pallets.push(file.clone());
                                let barcode = format!("{}:{}", cx.manifest.id, m.path);
                                let dir = root.0.join(format!("map{n}"));
                                let before = std::fs::read(disk).ok();
                                match thumbnail::run_engine(
                                    path, &dir, &pallets, &barcode, disk, t.timeout,
                                ) {
                                    RenderOutcome::Captured => {
                                        match std::fs::read(disk) {
                                            Ok(bytes) if thumbnail::png_size(&bytes).is_ok() => {
                                                if let Err(e) = t.remember(&key, &bytes) {
                                                    warn(diags, &m.path, format!("thumbnail: the capture of {png_rel} could not be recorded in the cache ({e}); the next build photographs it again"));
                                                }
                                                writes.push(CompilerWrite {
                                                    path: png_rel.clone(),
                                                    disk: disk.clone(),
                                                    bytes: bytes.clone(),
                                                    written: true,
                                                });
                                                current = Some(bytes);
                                            }
                                            _ => {
                                                why = Some(format!("the engine's render wrote no readable PNG at {}", disk.display()));
                                            }
                                        }
                                    }
                                    RenderOutcome::NotTaken { why: w } => {
                                        // The engine drew its own plan where there was no
                                        // PNG: the build draws the plan it can recognize.
                                        if std::fs::read(disk).ok() != before {
                                            match &before {
                                                Some(b) => {
                                                    let _ = write_whole(disk, b);
                                                }
                                                None => {
                                                    let _ = std::fs::remove_file(disk);
                                                }
                                            }
                                        }
                                        why = Some(format!(
                                            "the engine could not photograph the map: {w}"
                                        ));
                                    }
                                    RenderOutcome::Failed { why: w } => why = Some(w),
                                }
                            }
                        }
                    }
                }
            }
        }
        let photo = current.filter(|b| !thumbnail::is_plan(b));
        let packed = match photo {
            Some(bytes) => {
                if let Some(w) = &why {
                    warn(diags, &m.path, format!("thumbnail: no capture ({w}); the last PNG captured, {png_rel}, is packed"));
                }
                match crate::texture::decode_png(&bytes)
                    .map_err(|e| e.to_string())
                    .and_then(|_| thumbnail::encode(&bytes, &hash))
                {
                    Ok(c) => Some(c),
                    Err(e) => {
                        warn(diags, &m.path, format!("thumbnail: {png_rel} is not packed: it is not a PNG the engine reads ({e}); the map ships no picture"));
                        None
                    }
                }
            }
            None => {
                let plan = thumbnail::draw_plan(&m.boxes, m.size);
                let cause = why
                    .as_deref()
                    .map(|w| format!(" (no capture: {w})"))
                    .unwrap_or_default();
                // The spec's third rung: "a note saying it was drawn rather than taken",
                // not a warning (a machine with no engine would warn on every build).
                diags.items.push(Diagnostic {
                    severity: Severity::Note,
                    file: m.path.clone(),
                    line: 0,
                    col: 0,
                    path: String::new(),
                    message: format!("thumbnail: {png_rel}: {}{cause}", thumbnail::PLAN_NOTE),
                });
                if let Some(disk) = &png_disk {
                    if photos.get(&png_rel) != Some(&plan) {
                        match write_whole(disk, &plan) {
                            Ok(()) => writes.push(CompilerWrite {
                                path: png_rel.clone(),
                                disk: disk.clone(),
                                bytes: plan.clone(),
                                written: true,
                            }),
                            Err(e) => warn(diags, &m.path, format!("thumbnail: the plan could not be written to {} ({e}); it is packed all the same", disk.display())),
                        }
                    }
                }
                thumbnail::encode(&plan, &hash).ok()
            }
        };
        if let Some(bytes) = packed {
            companions.push(CompiledAsset {
                path: thumbnail::companion_path(&m.path),
                kind: AssetKind::Raw,
                bytes,
            });
        }
    }
    (companions, writes)
}
