//! What the engine's commands share: their options, the usage error and how a command
//! ended. [`crate::cli`] builds these from the command line; [`crate::run`] and
//! [`crate::render_cmd`] take them, and neither imports the command line's module.

use std::path::PathBuf;

/// Why the command line was refused (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}\nrun `dh-engine help` for usage")]
pub struct UsageError(pub String);

/// Options shared by `run` and `bench`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunOptions {
    /// `--pallet`, in order.
    pub pallets: Vec<PathBuf>,
    /// `--map`, or bench's SCENE.
    pub map: Option<String>,
    /// `--ticks`.
    pub ticks: Option<u64>,
    /// `--script`.
    pub script: Option<PathBuf>,
    /// `--set`, in order, as written.
    pub sets: Vec<String>,
    /// `--workers`.
    pub workers: Option<usize>,
    /// `--json`.
    pub json: bool,
    /// `--trace`.
    pub trace: Option<PathBuf>,
    /// `--quiet`.
    pub quiet: bool,
    /// bench's `--render WxH`.
    pub render: Option<[u32; 2]>,
    /// bench's `--log-trace [FILE]`: without it bench prints no logic trace.
    pub log_trace: Option<LogTrace>,
    /// Whether bench may draw its one-line progress display on stderr (the binary sets it
    /// when stderr is a terminal).
    pub progress: bool,
    /// Tests: the showcase on its small terrain (no flag sets it).
    pub showcase_tiny: bool,
}

/// Where bench's `--log-trace` sends the logic trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogTrace {
    /// `--log-trace`: printed as `run` prints it (stdout; stderr with `--json`).
    Print,
    /// `--log-trace FILE`: written to FILE.
    File(PathBuf),
}

/// `render`'s options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RenderOptions {
    /// Where the pictures go.
    pub outdir: PathBuf,
    /// `--pallet`, in order.
    pub pallets: Vec<PathBuf>,
    /// `--map`.
    pub map: String,
    /// `--camera NAME|ID`.
    pub camera: Option<String>,
    /// `--size WxH`.
    pub size: Option<[u32; 2]>,
    /// `--worldSeconds T`, as written (validated: a finite number ≥ 0).
    pub world_seconds: Option<String>,
    /// `--script S`.
    pub script: Option<PathBuf>,
    /// `--gpuTimings`.
    pub gpu_timings: bool,
    /// `--set name=value`.
    pub sets: Vec<String>,
    /// `--captureMapThumbnails`.
    pub capture_thumbnails: bool,
    /// `--thumbnailPng PATH`.
    pub thumbnail_png: Option<PathBuf>,
    /// `--thumbnailCamera NAME|ID`.
    pub thumbnail_camera: Option<String>,
    /// `--timeline FILE`.
    pub timeline: Option<PathBuf>,
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Outcome {
    /// Every tick ran and every `expect` held.
    Done,
    /// An `expect` failed or the run failed (exit status 1).
    Failed,
    /// The command line, the map or the script was refused (exit status 2).
    Usage,
}

impl Outcome {
    /// The process exit status.
    pub fn code(self) -> i32 {
        match self {
            Outcome::Done => 0,
            Outcome::Failed => 1,
            Outcome::Usage => 2,
        }
    }
}

/// Parses `WxH` given to `flag` (each edge 1 to 16384), as `render --size` and
/// `bench --render` take it.
pub fn parse_size_flag(flag: &str, v: &str) -> Result<[u32; 2], UsageError> {
    let bad = || UsageError(format!("{flag} takes WxH (e.g. 1280x720), got '{v}'"));
    let (w, h) = v.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(UsageError(format!(
            "{flag}: each edge must be 1 to 16384, got '{v}'"
        )));
    }
    Ok([w, h])
}
