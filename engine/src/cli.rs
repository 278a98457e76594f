//! The `dh-engine` command line: `run`, `bench`, `render`, `help` and `completions`,
//! parsed by clap. This module builds the options of [`crate::options`]; `run` and
//! `render` take them from there and do not import this module.

use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::options::parse_size_flag;
pub use crate::options::{LogTrace, RenderOptions, RunOptions, UsageError};

/// What `dh-engine help` (and `dh-engine --help`) prints: every command with every flag
/// it takes, and what the frame timer and its trace keep, read from the timer's own
/// defaults ([`dh_jobs::DEFAULT_WINDOW_FRAMES`], [`dh_jobs::DEFAULT_TRACE_FRAMES`]).
pub fn usage() -> String {
    let window = dh_jobs::DEFAULT_WINDOW_FRAMES;
    let trace = dh_jobs::DEFAULT_TRACE_FRAMES;
    format!(
        "\
dh-engine: the DigitalHeaven engine host (headless)

usage:
  dh-engine run [--pallet P]... --map M [--ticks N] [--script S] [--set name=value]...
                [--workers N] [--json] [--trace FILE] [--quiet]
  dh-engine bench [SCENE] [--pallet P]... [--ticks N] [--workers N] [--set name=value]...
                [--json] [--trace FILE] [--quiet] [--render WxH] [--log-trace [FILE]]
  dh-engine render OUTDIR [--pallet P]... --map M [--camera NAME|ID] [--size WxH]
                [--worldSeconds T] [--script S] [--gpuTimings] [--set name=value]...
                [--timeline FILE] [--captureMapThumbnails [--thumbnailPng PNG]
                [--thumbnailCamera NAME|ID]]
  dh-engine light-check --source SAVE
  dh-engine help [prefs|script|COMMAND]
  dh-engine completions SHELL

run     installs map M and runs it at world.tickRate (64 Hz) with no clock: as fast as it
        goes. It runs --ticks N ticks, or until the script ends when a script is given and
        no --ticks, or 64 ticks when neither is. The logic trace prints as it happens
        (`[tick] doorButton fired onPressed -> slidingDoor.toggle`), then the frame timer.
bench   runs SCENE for --ticks N ticks and prints the frame timer; the logic trace only
        with --log-trace (--log-trace FILE writes it to FILE). Without SCENE (or `showcase`)
        it runs the main job's showcase for 240 ticks: the core logic-map's scripted pawns
        over generated voxel terrain streaming around a circling camera, a pawn walking it,
        rendered offscreen when a Vulkan device exists (lavapipe included), with a one-line
        progress display on a terminal. SCENE is otherwise a map name, as for --map (for
        logic-map, 6400 ticks of the same pawns). --render WxH also extracts the world and renders
        its default camera (the mapThumbnail camera, else the first named one) offscreen
        every tick, and the frame timer shows the GPU pass times beside the CPU phases.
        SCENE may instead be a built-in voxel scene, which prints its figures beside the
        spec's (it takes --workers only: meshing's second worker count, default 2):
          voxel-mesh       meshing a 512x128x512 world's chunks within 128 m, per chunk
                           and on 1 and 2 workers (spec: 936 chunks, 200-300 us a chunk)
          voxel-light      cold lighting of a 306-column spawn radius, then a torch
                           placed and removed (spec: 0.68 s; 2.5 ms / 0.5 ms)
          voxel-collision  collision around one pawn on 256x96x256 terrain: bodies,
                           triangles, cook per chunk, first tick at a new place (spec:
                           109 chunks, ~14,500 triangles, ~1 ms a chunk, ~9 ms)
render  photographs map M from every named camera (or --camera) into OUTDIR/<camera>.png
        (sRGB PNG), after --worldSeconds of world time or once --script ends. Aspect: a
        camera's stated w:h keeps --size's width; --captureMapThumbnails shoots the map's
        mapThumbnail camera at its thumbnailSize; --timeline names a camera per frame,
        'CAMERA [SECONDS]' a line. With no Vulkan device it draws a top-down plan instead.
light-check
        lights Minecraft save SAVE's overworld with the engine's light field and compares
        it with the light the game saved: block and sky light agreement over interior
        chunks, and the block ids that disagree most.
help    prints this text, the preferences (`help prefs`), the script commands
        (`help script`) or a command's options (`help run`; the same as `run --help`).
completions
        prints a completion script for SHELL (bash, zsh, fish, elvish, powershell), e.g.
        `dh-engine completions bash > /etc/bash_completion.d/dh-engine`.

The frame timer sums up the last {window} frames (ticks) of a run; the Chrome trace holds
every scope of the last {trace} of them.

run and bench:
  --pallet P        mounts pallet file P beside the embedded core pallet; a source pallet
                    folder (pallet.dh at its root) is compiled in process first, as
                    `dh build` would, printing its diagnostics
  --map M           (run) a map: logic-map, maps/logic-map or core:maps/logic-map.dh-map
  --ticks N         how many ticks to run
  --script S        (run) a script of console commands (`dh-engine help script`)
  --set name=value  sets a preference before the map installs (`dh-engine help prefs`)
  --workers N       threads for the job system, the main thread included (default: the
                    machine's cores)
  --json            prints the frame timer as JSON (the logic trace goes to stderr)
  --trace FILE      writes the frame timer's Chrome trace (opens in Perfetto): the last
                    {trace} frames
  --quiet           does not print the logic trace
  --render WxH      (bench) also renders the default camera offscreen every tick at WxH
  --log-trace [FILE]
                    (bench) prints the logic trace (or writes it to FILE); without it
                    bench prints none

render:
  OUTDIR            where the pictures go
  --pallet P, --map M, --script S, --set name=value
                    as for run (the script runs before the shots)
  --camera NAME|ID  photographs only this camera
  --size WxH        the picture size; a camera's stated w:h keeps its width
  --worldSeconds T  world time to run before the shots
  --gpuTimings      streams the voxel volumes the live client's way and reports GPU pass
                    times
  --timeline FILE   names a camera per frame, 'CAMERA [SECONDS]' a line
  --captureMapThumbnails
                    shoots the map's mapThumbnail camera at its thumbnailSize into
                    OUTDIR/thumbnail.png
  --thumbnailPng PNG
                    also writes the thumbnail to PNG
  --thumbnailCamera NAME|ID
                    the thumbnail's camera in place of the mapThumbnail camera

light-check:
  --source SAVE     the save folder (or a folder of region files)

Every command takes --help.

exit status: 0 done, 1 an `expect` failed or the run failed, 2 a usage error.
"
    )
}

/// The commands, in the order `unknown command` names them.
const COMMANDS: &str = "run, bench, render, light-check and help";

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cli {
    /// `run`.
    Run(RunOptions),
    /// `bench`.
    Bench(RunOptions),
    /// `render`.
    Render(RenderOptions),
    /// `help [topic]`: `prefs` or `script` (no topic: [`usage`]).
    Help(Option<String>),
    /// A command's own help (`run --help`, `help run`), as clap renders it.
    HelpText(String),
    /// `completions SHELL`.
    Completions(clap_complete::Shell),
    /// `light-check --source SAVE`: the save folder ([`crate::light_check`]).
    LightCheck(PathBuf),
}

/// `dh-engine`'s grammar.
#[derive(Debug, Parser)]
#[command(
    name = "dh-engine",
    override_help = usage(),
    disable_help_subcommand = true,
    args_override_self = true
)]
struct Grammar {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Installs a map and runs it at world.tickRate with no clock, printing the logic
    /// trace and then the frame timer.
    ///
    /// It runs --ticks N ticks, or until the script ends when a script is given and no
    /// --ticks, or 64 ticks when neither is. Exits 1 when an `expect` fails.
    #[command(args_override_self = true)]
    Run(RunArgs),
    /// Runs a scene (default: the showcase, the main job) and prints the frame timer.
    ///
    /// SCENE is a map name, as for `run --map`, or a built-in voxel scene (voxel-mesh,
    /// voxel-light, voxel-collision), which takes --workers only.
    #[command(args_override_self = true)]
    Bench(BenchArgs),
    /// Photographs a map from its named cameras into OUTDIR/<camera>.png.
    ///
    /// The shots are taken after --worldSeconds of world time or once --script ends.
    /// With no Vulkan device it draws a top-down plan instead.
    #[command(args_override_self = true)]
    Render(RenderArgs),
    /// Prints the usage, the preferences (`help prefs`), the script commands
    /// (`help script`) or a command's options (`help run`).
    #[command(disable_help_flag = true)]
    Help {
        /// prefs, script or a command.
        #[arg(
            value_name = "TOPIC",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        words: Vec<String>,
    },
    /// Lights a Minecraft Java save's overworld with the engine's light field and
    /// compares it with the light the game saved (block and sky light agreement over
    /// interior chunks, and the block ids that disagree most).
    #[command(name = "light-check")]
    LightCheck {
        /// The save folder (or a folder of region files).
        #[arg(long, value_name = "SAVE")]
        source: PathBuf,
    },
    /// Prints a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to complete for.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

/// What `run` and `bench` share.
#[derive(Debug, Args)]
struct CommonArgs {
    /// Mounts pallet file P beside the embedded core pallet (repeatable, in order); a source
    /// pallet folder is compiled in process first, as `dh build` would.
    #[arg(long = "pallet", value_name = "P", allow_hyphen_values = true)]
    pallets: Vec<PathBuf>,
    /// How many ticks to run.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = ticks)]
    ticks: Option<u64>,
    /// Sets a preference before the map installs (`dh-engine help prefs`; repeatable).
    #[arg(long = "set", value_name = "name=value", allow_hyphen_values = true)]
    sets: Vec<String>,
    /// Threads for the job system, the main thread included (default: the machine's cores).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = workers)]
    workers: Option<usize>,
    /// Prints the frame timer (its last frames, formatted from
    /// [`dh_jobs::DEFAULT_WINDOW_FRAMES`]) as JSON; the logic trace goes to stderr.
    #[arg(long, help = json_help())]
    json: bool,
    /// Writes the frame timer's Chrome trace (opens in Perfetto): every scope of the last
    /// frames (the number is formatted from [`dh_jobs::DEFAULT_TRACE_FRAMES`]).
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, help = trace_help())]
    trace: Option<PathBuf>,
    /// Does not print the logic trace.
    #[arg(long)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The map: logic-map, maps/logic-map or core:maps/logic-map.dh-map.
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    map: Option<String>,
    /// A script of console commands (`dh-engine help script`).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    script: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// A map name (as for `run --map`) or a built-in voxel scene.
    #[arg(value_name = "SCENE")]
    scene: Option<String>,
    /// Also renders the default camera offscreen every tick at WxH.
    #[arg(long, value_name = "WxH", allow_hyphen_values = true, value_parser = render_size)]
    render: Option<[u32; 2]>,
    /// Prints the logic trace (bench prints none without it), or writes it to FILE.
    #[arg(long = "log-trace", value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    log_trace: Option<String>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
struct RenderArgs {
    /// Where the pictures go.
    #[arg(value_name = "OUTDIR")]
    outdir: Option<PathBuf>,
    /// Mounts pallet file P beside the embedded core pallet (repeatable, in order); a source
    /// pallet folder is compiled in process first, as `dh build` would.
    #[arg(long = "pallet", value_name = "P", allow_hyphen_values = true)]
    pallets: Vec<PathBuf>,
    /// The map: logic-map, maps/logic-map or core:maps/logic-map.dh-map.
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    map: Option<String>,
    /// Photographs only this camera (by name or id).
    #[arg(long, value_name = "NAME|ID", allow_hyphen_values = true)]
    camera: Option<String>,
    /// The picture size; a camera's stated w:h keeps its width.
    #[arg(long, value_name = "WxH", allow_hyphen_values = true, value_parser = size)]
    size: Option<[u32; 2]>,
    /// World time to run before the shots.
    #[arg(long = "worldSeconds", value_name = "T", allow_hyphen_values = true, value_parser = world_seconds)]
    world_seconds: Option<String>,
    /// A script of console commands run before the shots (`dh-engine help script`).
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    script: Option<PathBuf>,
    /// Streams the voxel volumes the live client's way and reports GPU pass times.
    #[arg(long = "gpuTimings")]
    gpu_timings: bool,
    /// Sets a preference before the map installs (`dh-engine help prefs`; repeatable).
    #[arg(long = "set", value_name = "name=value", allow_hyphen_values = true)]
    sets: Vec<String>,
    /// Names a camera per frame, 'CAMERA [SECONDS]' a line.
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    timeline: Option<PathBuf>,
    /// Shoots the map's mapThumbnail camera at its thumbnailSize into OUTDIR/thumbnail.png.
    #[arg(long = "captureMapThumbnails")]
    capture_thumbnails: bool,
    /// Also writes the thumbnail to PNG.
    #[arg(long = "thumbnailPng", value_name = "PNG", allow_hyphen_values = true)]
    thumbnail_png: Option<PathBuf>,
    /// The thumbnail's camera (by name or id) in place of the mapThumbnail camera.
    #[arg(
        long = "thumbnailCamera",
        value_name = "NAME|ID",
        allow_hyphen_values = true
    )]
    thumbnail_camera: Option<String>,
}

/// `--trace`'s help line, with the frames the trace keeps.
fn trace_help() -> String {
    format!(
        "Writes the frame timer's Chrome trace (opens in Perfetto): every scope of the last {} frames",
        dh_jobs::DEFAULT_TRACE_FRAMES
    )
}

/// `--json`'s help line, with the frames the timer sums up.
fn json_help() -> String {
    format!(
        "Prints the frame timer (the last {} frames) as JSON; the logic trace goes to stderr",
        dh_jobs::DEFAULT_WINDOW_FRAMES
    )
}

fn count<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, UsageError> {
    v.parse::<T>()
        .map_err(|_| UsageError(format!("{flag} takes a whole number, got '{v}'")))
}

fn ticks(v: &str) -> Result<u64, UsageError> {
    count("--ticks", v)
}

fn workers(v: &str) -> Result<usize, UsageError> {
    let n: usize = count("--workers", v)?;
    if n == 0 {
        return Err(UsageError("--workers takes at least 1".into()));
    }
    Ok(n)
}

fn render_size(v: &str) -> Result<[u32; 2], UsageError> {
    parse_size_flag("--render", v)
}

fn size(v: &str) -> Result<[u32; 2], UsageError> {
    parse_size_flag("--size", v)
}

fn world_seconds(v: &str) -> Result<String, UsageError> {
    match v.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(v.to_string()),
        _ => Err(UsageError(format!(
            "--worldSeconds takes seconds ≥ 0, got '{v}'"
        ))),
    }
}

/// clap's `Command` for `dh-engine`: what the completion scripts are generated from.
pub fn command() -> clap::Command {
    Grammar::command()
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Cli, UsageError> {
    let argv = std::iter::once("dh-engine".to_string()).chain(args.iter().cloned());
    let grammar = match Grammar::try_parse_from(argv) {
        Ok(g) => g,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return Ok(match args.first().map(String::as_str) {
                Some("-h" | "--help") => Cli::Help(None),
                _ => Cli::HelpText(e.render().to_string()),
            })
        }
        Err(e) => return Err(UsageError(usage_message(&e, args, COMMANDS))),
    };
    let Some(command) = grammar.command else {
        return Ok(Cli::Help(None));
    };
    match command {
        Command::Run(a) => {
            let o = run_options(a.common, a.map, a.script, None);
            if o.map.is_none() {
                return Err(UsageError("run needs --map M".into()));
            }
            Ok(Cli::Run(o))
        }
        Command::Bench(a) => {
            let mut o = run_options(a.common, a.scene, None, a.render);
            // Read as a string: clap's path parser refuses the empty value that a bare
            // `--log-trace` stands for.
            o.log_trace = a.log_trace.map(|p| {
                if p.is_empty() {
                    LogTrace::Print
                } else {
                    LogTrace::File(PathBuf::from(p))
                }
            });
            Ok(Cli::Bench(o))
        }
        Command::Render(a) => render_options(a).map(Cli::Render),
        Command::Help { words } => match words.as_slice() {
            [] => Ok(Cli::Help(None)),
            [topic] if topic == "prefs" || topic == "script" => Ok(Cli::Help(Some(topic.clone()))),
            [topic] if is_command(topic) => Ok(Cli::HelpText(command_help(topic))),
            [other, ..] => Err(UsageError(format!(
                "help takes prefs or script, got '{other}'"
            ))),
        },
        Command::Completions { shell } => Ok(Cli::Completions(shell)),
        Command::LightCheck { source } => Ok(Cli::LightCheck(source)),
    }
}

fn is_command(word: &str) -> bool {
    matches!(
        word,
        "run" | "bench" | "render" | "completions" | "light-check"
    )
}

/// `<command> --help`, as clap renders it.
fn command_help(name: &str) -> String {
    match Grammar::try_parse_from(["dh-engine", name, "--help"]) {
        Err(e) => e.render().to_string(),
        Ok(_) => String::new(),
    }
}

fn run_options(
    c: CommonArgs,
    map: Option<String>,
    script: Option<PathBuf>,
    render: Option<[u32; 2]>,
) -> RunOptions {
    RunOptions {
        pallets: c.pallets,
        map,
        ticks: c.ticks,
        script,
        sets: c.sets,
        workers: c.workers,
        json: c.json,
        trace: c.trace,
        quiet: c.quiet,
        render,
        ..RunOptions::default()
    }
}

fn render_options(a: RenderArgs) -> Result<RenderOptions, UsageError> {
    let outdir = a
        .outdir
        .ok_or_else(|| UsageError("render needs an output folder".into()))?;
    let map = a
        .map
        .ok_or_else(|| UsageError("render needs --map M".into()))?;
    if a.camera.is_some() && a.capture_thumbnails {
        return Err(UsageError("--camera and --captureMapThumbnails are exclusive; --thumbnailCamera names the thumbnail's camera".into()));
    }
    Ok(RenderOptions {
        outdir,
        pallets: a.pallets,
        map,
        camera: a.camera,
        size: a.size,
        world_seconds: a.world_seconds,
        script: a.script,
        gpu_timings: a.gpu_timings,
        sets: a.sets,
        capture_thumbnails: a.capture_thumbnails,
        thumbnail_png: a.thumbnail_png,
        thumbnail_camera: a.thumbnail_camera,
        timeline: a.timeline,
    })
}

fn context_str(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

/// The flag an argument's display names (`--map <M>` names `--map`).
fn flag_of(arg: &str) -> &str {
    arg.split_whitespace().next().unwrap_or(arg)
}

/// clap's "did you mean" for `e`, as lines to add to a message (empty when it has none).
pub fn suggestions(e: &clap::Error) -> String {
    let mut tips = String::new();
    if let Some(s) = context_str(e, ContextKind::SuggestedSubcommand) {
        tips.push_str(&format!("\n  tip: a similar command exists: '{s}'"));
    }
    if let Some(s) = context_str(e, ContextKind::SuggestedArg) {
        tips.push_str(&format!("\n  tip: a similar argument exists: '{s}'"));
    }
    if let Some(s) = context_str(e, ContextKind::SuggestedValue) {
        tips.push_str(&format!("\n  tip: a similar value exists: '{s}'"));
    }
    if let Some(ContextValue::StyledStrs(list)) = e.get(ContextKind::Suggested) {
        for s in list {
            let s = s.to_string();
            // Only the "`sub --flag` exists" kind; "use `-- x`" is no help here.
            if s.ends_with("exists") {
                tips.push_str(&format!("\n  tip: {s}"));
            }
        }
    }
    tips
}

/// The usage message for a refused command line, in the engine's words: `args` are the
/// arguments after the program name and `commands` lists the commands for an unknown one.
/// clap's "did you mean" suggestions follow on lines of their own. `dh-bench` shares it.
pub fn usage_message(e: &clap::Error, args: &[String], commands: &str) -> String {
    let command = args
        .first()
        .filter(|a| !a.starts_with('-'))
        .map_or("", String::as_str);
    let tips = suggestions(e);
    let message = match e.kind() {
        ErrorKind::InvalidSubcommand => {
            let word = context_str(e, ContextKind::InvalidSubcommand).unwrap_or_default();
            format!("unknown command '{word}'; the commands are {commands}")
        }
        ErrorKind::UnknownArgument => {
            let word = context_str(e, ContextKind::InvalidArg).unwrap_or_default();
            if command.is_empty() {
                format!("unknown command '{word}'; the commands are {commands}")
            } else {
                format!("{command} does not take '{word}'")
            }
        }
        ErrorKind::ValueValidation => match std::error::Error::source(e) {
            Some(source) => match source.downcast_ref::<UsageError>() {
                Some(usage) => usage.0.clone(),
                None => source.to_string(),
            },
            None => clap_text(e),
        },
        ErrorKind::InvalidValue => {
            let arg = context_str(e, ContextKind::InvalidArg).unwrap_or_default();
            let value = context_str(e, ContextKind::InvalidValue).unwrap_or_default();
            if value.is_empty() {
                // A flag short of its value is the last word (values are taken as
                // written, dashes and all), so name it as typed.
                let typed = args.last().map_or(arg.as_str(), |a| {
                    a.split_once('=').map_or(a.as_str(), |(f, _)| f)
                });
                format!("{} needs a value", flag_of(typed))
            } else {
                let valid = match e.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(v)) => v.join(", "),
                    _ => String::new(),
                };
                format!("{} takes one of {valid}, got '{value}'", flag_of(&arg))
            }
        }
        _ => clap_text(e),
    };
    format!("{message}{tips}")
}

/// clap's own wording for an error, less its "error: " and its usage lines.
fn clap_text(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Cli, UsageError> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    /// `render`'s options, as `render_cmd::parse` gave them before the grammar moved here.
    fn pr(s: &str) -> Result<RenderOptions, UsageError> {
        match p(&format!("render {s}"))? {
            Cli::Render(o) => Ok(o),
            other => panic!("render parsed as {other:?}"),
        }
    }

    #[test]
    fn parses_run() {
        let cli = p("run --pallet a.pallet --map logic-map --ticks 200 --script s.dhs --set world.tickRate=32 --set client.fov=80 --workers 2 --json --trace t.json")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            cli,
            Cli::Run(RunOptions {
                pallets: vec!["a.pallet".into()],
                map: Some("logic-map".into()),
                ticks: Some(200),
                script: Some("s.dhs".into()),
                sets: vec!["world.tickRate=32".into(), "client.fov=80".into()],
                workers: Some(2),
                json: true,
                trace: Some("t.json".into()),
                quiet: false,
                render: None,
                ..RunOptions::default()
            })
        );
        assert_eq!(
            p("run --map=logic-map --ticks=5"),
            Ok(Cli::Run(RunOptions {
                map: Some("logic-map".into()),
                ticks: Some(5),
                ..RunOptions::default()
            }))
        );
    }

    #[test]
    fn bench_takes_log_trace_with_or_without_a_file() {
        // Issue 18 item 1: bench prints the logic trace only with --log-trace.
        assert_eq!(
            p("bench --log-trace"),
            Ok(Cli::Bench(RunOptions {
                log_trace: Some(LogTrace::Print),
                ..RunOptions::default()
            }))
        );
        assert_eq!(
            p("bench --ticks 5 --log-trace trace.txt"),
            Ok(Cli::Bench(RunOptions {
                ticks: Some(5),
                log_trace: Some(LogTrace::File("trace.txt".into())),
                ..RunOptions::default()
            }))
        );
        assert_eq!(
            p("bench logic-map --log-trace --json"),
            Ok(Cli::Bench(RunOptions {
                map: Some("logic-map".into()),
                json: true,
                log_trace: Some(LogTrace::Print),
                ..RunOptions::default()
            }))
        );
        assert!(p("run --map logic-map --log-trace").is_err());
    }

    #[test]
    fn parses_bench_and_help() {
        assert_eq!(p("bench"), Ok(Cli::Bench(RunOptions::default())));
        assert_eq!(
            p("bench debug-map --ticks 100 --workers 1"),
            Ok(Cli::Bench(RunOptions {
                map: Some("debug-map".into()),
                ticks: Some(100),
                workers: Some(1),
                ..RunOptions::default()
            }))
        );
        assert_eq!(
            p("bench --render 320x180"),
            Ok(Cli::Bench(RunOptions {
                render: Some([320, 180]),
                ..RunOptions::default()
            }))
        );
        assert!(p("bench --render 320").is_err());
        assert!(p("run --map m --render 320x180").is_err());
        assert_eq!(p(""), Ok(Cli::Help(None)));
        assert_eq!(p("help"), Ok(Cli::Help(None)));
        assert_eq!(p("help prefs"), Ok(Cli::Help(Some("prefs".into()))));
    }

    #[test]
    fn parses_the_voxel_scenes() {
        for scene in ["voxel-mesh", "voxel-light", "voxel-collision"] {
            assert!(crate::bench_scenes::is_scene(scene));
            assert!(usage().contains(scene), "{scene} is in the help");
            assert_eq!(
                p(&format!("bench {scene}")),
                Ok(Cli::Bench(RunOptions {
                    map: Some(scene.into()),
                    ..RunOptions::default()
                }))
            );
        }
        assert_eq!(
            p("bench voxel-mesh --workers 4"),
            Ok(Cli::Bench(RunOptions {
                map: Some("voxel-mesh".into()),
                workers: Some(4),
                ..RunOptions::default()
            }))
        );
        assert!(!crate::bench_scenes::is_scene("logic-map"));
        assert!(!crate::bench_scenes::is_scene("voxel"));
    }

    #[test]
    fn usage_errors() {
        let e = |s: &str| p(s).unwrap_err().0;
        assert_eq!(e("run"), "run needs --map M");
        assert_eq!(e("run --map"), "--map needs a value");
        assert_eq!(
            e("run --map m --ticks ten"),
            "--ticks takes a whole number, got 'ten'"
        );
        assert_eq!(e("run --map m --workers 0"), "--workers takes at least 1");
        assert_eq!(e("run --map m extra"), "run does not take 'extra'");
        assert_eq!(e("bench a b"), "bench does not take 'b'");
        assert_eq!(e("bench --script s"), "bench does not take '--script'");
        assert_eq!(
            e("fly"),
            "unknown command 'fly'; the commands are run, bench, render, light-check and help"
        );
        assert_eq!(e("help me"), "help takes prefs or script, got 'me'");
        assert_eq!(
            UsageError("x".into()).to_string(),
            "x\nrun `dh-engine help` for usage"
        );
    }

    #[test]
    fn parses_the_options() {
        let o = pr(
            "out --map render-eval --camera white --size 320x200 --worldSeconds 1.5 --gpuTimings",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.outdir, PathBuf::from("out"));
        assert_eq!(o.camera.as_deref(), Some("white"));
        assert_eq!(o.size, Some([320, 200]));
        assert_eq!(o.world_seconds.as_deref(), Some("1.5"));
        assert!(o.gpu_timings);
        let t = pr("out --map m --captureMapThumbnails --thumbnailPng maps/m.thumbnail.png")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(t.capture_thumbnails);
        assert_eq!(
            pr("--map m").unwrap_err().0,
            "render needs an output folder"
        );
        assert_eq!(pr("out").unwrap_err().0, "render needs --map M");
        assert!(pr("out --map m --size 10").is_err());
        assert!(pr("out --map m --worldSeconds -1").is_err());
        assert!(pr("out --map m a b").is_err());
    }

    #[test]
    fn every_command_has_help_and_mistypes_get_suggestions() {
        for command in ["run", "bench", "render", "completions"] {
            match p(&format!("{command} --help")) {
                Ok(Cli::HelpText(text)) => {
                    assert!(text.contains(&format!("dh-engine {command}")), "{text}")
                }
                other => panic!("{command} --help gave {other:?}"),
            }
            assert!(matches!(
                p(&format!("help {command}")),
                Ok(Cli::HelpText(_))
            ));
        }
        assert_eq!(p("--help"), Ok(Cli::Help(None)));
        assert_eq!(
            p("run --map m --tick 5").unwrap_err().0,
            "run does not take '--tick'\n  tip: a similar argument exists: '--ticks'"
        );
        assert_eq!(
            p("rendr").unwrap_err().0,
            "unknown command 'rendr'; the commands are run, bench, render, light-check and help\n  tip: a similar command exists: 'render'"
        );
        assert_eq!(
            p("completions bash"),
            Ok(Cli::Completions(clap_complete::Shell::Bash))
        );
        assert!(p("completions tcsh").is_err());
        assert_eq!(
            p("run --map a --map b --json --json"),
            Ok(Cli::Run(RunOptions {
                map: Some("b".into()),
                json: true,
                ..RunOptions::default()
            }))
        );
        assert_eq!(
            p("run --map m --set=world.tickRate=128"),
            Ok(Cli::Run(RunOptions {
                map: Some("m".into()),
                sets: vec!["world.tickRate=128".into()],
                ..RunOptions::default()
            }))
        );
    }
}
