//! `dh`: the DigitalHeaven content toolchain.
//!
//! ```text
//! dh build <dir> [-o|--output <file.pallet>] [--pallet <dep.pallet>]... [--engine <file>] [--json] [--quiet]
//! dh check <dir> [--json] [--quiet]
//! dh inspect <file.pallet> [--json]
//! dh import vox <file.vox> [--platform <id>] [--into <pallet dir>] [--quiet]
//! dh import gltf <file.glb|.gltf> [--into <pallet dir>] [--quiet]
//! dh import minecraft-world <save> --into <pallet dir> [--quiet]
//! dh import minecraft <file.schem|.litematic|.nbt|.schematic> [--into <pallet dir>] [--quiet]
//! dh import minecraft <client.jar|assets folder> --into <dir> [--quiet]
//! dh new pallet <dir> [--barcode <id>] [--quiet] | dh new map|object <pallet dir>/<path> [--quiet]
//! dh completions <shell>
//! ```
//!
//! The command line is clap's (derive): every command takes `--help`, and a mistyped
//! command or flag gets clap's "did you mean". Usage errors exit 2, a failed build 1.
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand};
use dh_content::compile::{compile_with_thumbnails, BuildOutput, CompileOptions, DependencySearch};
use dh_content::diag::Severity;
use dh_content::pallet::{Codec, Pallet};
use dh_content::thumbnail::{EngineSetting, ThumbnailOptions};
use mimalloc::MiMalloc;

mod new;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

const USAGE: &str = "\
dh — the DigitalHeaven content toolchain

USAGE:
    dh build <dir> [-o|--output <file.pallet>] [--pallet <dep.pallet>]... [--engine <file>]
             [--json] [--quiet]
        Compile the source pallet in <dir> (its root holds pallet.dh) into a .pallet.
        The output defaults to <dir>.pallet beside the folder. The same sources always
        give a byte-identical pallet. Exits 1 when any error is reported. The compiled
        pallets of its dependencies (the .pallet files beside <dir>, and each --pallet)
        are mounted so maps inheriting from them and objects varying theirs are checked
        whole; a dependency a chain needs that is absent is said once. A map with a
        mapThumbnail camera is photographed by the engine (--engine, else enginePath in
        dh-config.jsonc beside pallet.dh or in the current folder) into
        <map>.thumbnail.png beside it, unless that capture is cached, and packed as its
        .dh-mapthumb companion; without an engine the last PNG, else a CPU-drawn plan.
    dh check <dir> [--json] [--quiet]
        Validate a source pallet without writing anything; reports every error.
    dh inspect <file.pallet | payload.dh-vox.bin> [--json]
        List a compiled pallet's manifest and entries (and summarize each voxel payload
        in it), or summarize a voxel payload file (its shards <payload>.<n> are read from
        beside it): grids with their non-empty cell counts and the total, the palette,
        region and chunk counts, and chunks and bytes per body mode.
    dh import vox <file.vox> [--platform <id>] [--into <pallet dir>] [--quiet]
        Import a MagicaVoxel or Teardown .vox: writes <name>.dh-vox and its
        <name>.dh-vox.bin payload into the pallet folder (default: beside the file).
        The platform (magicavoxel, teardown, or an id) is detected when not given.
    dh import gltf <file.glb | .gltf> [--into <pallet dir>] [--quiet]
        Import a glTF model so that, placed, it draws as itself: copies it as <name>.glb
        (a .gltf is packed into one), writes one .dh-mat per glTF material from its PBR
        values (base colour factor and texture, alpha mode and cutoff, emissive,
        double-sided as renderFace) and its images (PNG or JPEG, as they are) under
        <name>/, and <name>.dh-obj binding every drawn part's slots. Prints each file
        written and an instance record to paste into a map. A re-run rewrites only its
        own untouched files: a file edited by hand (or not written by dh import) is left
        alone and said so; on unchanged input it writes nothing. --into defaults to the
        file's folder; it must lie inside a source pallet (a folder holding pallet.dh).
    dh import minecraft-world <save> --into <pallet dir> [--quiet]
        Convert a Minecraft Java save (a folder with level.dat, or one dimension's
        folder) into the pallet: <name>.dh-vox.bin (never the save's own files), its
        <name>.dh-vox and a <name>.dh-map with the volume, a spawn point at the world's
        spawn and cameras. Regions convert in parallel with a progress bar on a terminal;
        a chunk that cannot be read is named and left out, and the rest converts.
    dh import minecraft <file.schem | .litematic | .nbt | .schematic> [--into <pallet dir>]
                        [--quiet]
        Import a Minecraft structure (Sponge, Litematica, structure block, MCEdit):
        writes <name>.dh-vox and its <name>.dh-vox.bin payload into the pallet folder
        (default: beside the file).
    dh import minecraft <client.jar | assets folder> --into <dir> [--quiet]
        Generate the Minecraft platform pallet (com.mojang.minecraft) from this
        machine's own game files, never shipped: pallet.dh, blocks/<id>.dh-block for
        every block with a model (rules, folded models, surface, light, collision), the
        textures they name with their .mcmeta and the colormaps,
        maps/environment.dh-map (the sun, sky and look imported worlds inherit) and
        blocks.fingerprint. Progress on a terminal; a rerun on an unchanged jar writes
        nothing.
    dh new pallet <dir> [--barcode <id>] [--quiet]
    dh new map <pallet dir>/<path> [--quiet]
    dh new object <pallet dir>/<path> [--quiet]
        Write commented starter files with freshly minted ids, so no id is typed by
        hand: a source pallet (pallet.dh and maps/main.dh-map), or a map or an object
        inside an existing source pallet (the nearest folder above holding pallet.dh).
        A map holds a floor, a spawn point, a camera, a sun and the sky; an object a box
        with a collider. Each builds with no errors and no warnings. The pallet id is the
        folder's name when that is one, else local.<name> (ours). Never overwrites a
        file: an existing one is refused with exit 1.
    dh completions <shell>
        Print a completion script for bash, zsh, fish, elvish or powershell, e.g.
        `dh completions bash > /etc/bash_completion.d/dh`.
    dh help [<command>]
        Show this text, or a command's options (the same as `dh <command> --help`).

OPTIONS:
    -o, --output <file>   Where `dh build` writes the pallet.
    --pallet <file>       A dependency's compiled pallet `dh build` mounts (repeatable).
    --engine <file>       The dh-engine `dh build` photographs map thumbnails with.
    --platform <id>       The platform a .vox follows (dh import).
    --into <dir>          The source pallet folder an import writes into.
    --barcode <id>        The id `dh new pallet` gives the pallet.
    --json                Machine-readable output: diagnostics as one JSON object per line
                          (build, check) or one JSON document (inspect).
    -q, --quiet           No progress bar and no summary line (build, check, import, new).
    -h, --help            Every command's own options.

Diagnostics print as `file:line:col: error|warning: path: message`.";

/// What `dh new` says when it is not told what to write.
const NEW_NEEDS_KIND: &str = "`dh new` needs what to write; expected `dh new pallet <dir>`, `dh new map <pallet dir>/<path>` or `dh new object <pallet dir>/<path>`";

#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("{0}\n\nRun `dh help` for usage.")]
    Usage(String),
    #[error("{0}")]
    Failed(String),
}

/// `dh`'s grammar.
#[derive(Debug, Parser)]
#[command(
    name = "dh",
    override_help = USAGE,
    disable_help_subcommand = true,
    args_override_self = true
)]
struct Grammar {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compiles the source pallet in <dir> (its root holds pallet.dh) into a .pallet.
    ///
    /// The output defaults to <dir>.pallet beside the folder. The same sources always give
    /// a byte-identical pallet. Exits 1 when any error is reported.
    #[command(args_override_self = true)]
    Build {
        /// The source pallet's folder.
        #[arg(value_name = "dir", required = true)]
        dir: Option<PathBuf>,
        /// Where the pallet is written (default: <dir>.pallet beside the folder).
        #[arg(
            short = 'o',
            long = "output",
            value_name = "file",
            allow_hyphen_values = true
        )]
        output: Option<PathBuf>,
        /// A dependency's compiled pallet to mount (repeatable); the .pallet files beside
        /// <dir> are looked through too.
        #[arg(long = "pallet", value_name = "file", allow_hyphen_values = true)]
        pallets: Vec<PathBuf>,
        /// The engine that photographs map thumbnails, over dh-config.jsonc's enginePath.
        #[arg(long = "engine", value_name = "file", allow_hyphen_values = true)]
        engine: Option<PathBuf>,
        /// Diagnostics as one JSON object per line.
        #[arg(long)]
        json: bool,
        /// No progress bar and no summary line.
        #[arg(short = 'q', long)]
        quiet: bool,
    },
    /// Validates a source pallet without writing anything; reports every error.
    #[command(args_override_self = true)]
    Check {
        /// The source pallet's folder.
        #[arg(value_name = "dir", required = true)]
        dir: Option<PathBuf>,
        /// Diagnostics as one JSON object per line.
        #[arg(long)]
        json: bool,
        /// No summary line.
        #[arg(short = 'q', long)]
        quiet: bool,
    },
    /// Lists a compiled pallet's manifest and entries, or summarizes a voxel payload file.
    ///
    /// A pallet's voxel payloads are summarized too; a payload file's shards
    /// <payload>.<n> are read from beside it.
    #[command(args_override_self = true)]
    Inspect {
        /// A .pallet or a .dh-vox.bin payload.
        #[arg(value_name = "file", required = true)]
        file: Option<PathBuf>,
        /// One JSON document.
        #[arg(long)]
        json: bool,
        /// (No effect on inspect.)
        #[arg(short = 'q', long, hide = true)]
        quiet: bool,
    },
    /// Imports a .vox, a glTF model or a Minecraft structure or save: `dh import vox <file.vox>`.
    ///
    /// vox writes <name>.dh-vox and its <name>.dh-vox.bin payload into the pallet folder
    /// (default: beside the file); the platform (magicavoxel, teardown, or an id) is
    /// detected when not given. gltf copies a .glb (or packs a .gltf) as <name>.glb,
    /// writes a .dh-mat per glTF material and its images under <name>/ and <name>.dh-obj
    /// binding every slot; a re-run leaves hand-edited files alone and says so.
    /// minecraft with a client .jar or an assets folder generates the platform pallet
    /// com.mojang.minecraft into --into.
    #[command(args_override_self = true)]
    Import {
        /// The importer.
        #[arg(value_name = "format", value_parser = ["vox", "gltf", "minecraft", "minecraft-world"], required = true)]
        format: Option<String>,
        /// The file to import (a .vox; for gltf a .glb or .gltf; for minecraft a .schem,
        /// .litematic, .nbt or .schematic, or a client .jar or assets folder for the
        /// platform pallet).
        #[arg(value_name = "file", required = true)]
        file: Option<PathBuf>,
        /// The platform the .vox follows (magicavoxel, teardown, or an id).
        #[arg(long, value_name = "id", allow_hyphen_values = true)]
        platform: Option<String>,
        /// The source pallet folder the import writes into.
        #[arg(long, value_name = "dir", allow_hyphen_values = true)]
        into: Option<PathBuf>,
        /// (No effect on import.)
        #[arg(long, hide = true)]
        json: bool,
        /// No summary line.
        #[arg(short = 'q', long)]
        quiet: bool,
    },
    /// Writes commented starter files with freshly minted ids: `dh new pallet <dir>`.
    ///
    /// `dh new pallet <dir>` writes a source pallet: pallet.dh and maps/main.dh-map.
    /// `dh new map <pallet dir>/<path>` and `dh new object <pallet dir>/<path>` write a
    /// .dh-map or a .dh-obj inside an existing source pallet (the nearest folder above
    /// the file holding pallet.dh); the extension is added when the path has none. A map
    /// holds a floor, a spawn point, a camera, a sun and the sky; an object a box with a
    /// collider. Every file builds with no errors and no warnings, and none is ever
    /// overwritten. The layout and the derived id (the folder's name when it is a pallet
    /// id, else local.<name>) are ours; the spec names no starter pallet.
    #[command(args_override_self = true)]
    New {
        /// What to write.
        #[arg(value_name = "kind", value_parser = ["pallet", "map", "object"], required = true)]
        kind: Option<String>,
        /// The pallet's folder, or the map's or object's file.
        #[arg(value_name = "path", required = true)]
        path: Option<PathBuf>,
        /// The new pallet's id (default: derived from the folder's name).
        #[arg(long, value_name = "id", allow_hyphen_values = true)]
        barcode: Option<String>,
        /// No summary line.
        #[arg(short = 'q', long)]
        quiet: bool,
    },
    /// Prints a shell completion script.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_name = "shell")]
        shell: clap_complete::Shell,
    },
    /// Shows the usage, or a command's options.
    #[command(disable_help_flag = true)]
    Help {
        /// A command.
        #[arg(
            value_name = "command",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        words: Vec<String>,
    },
}

struct Args {
    command: String,
    /// The importer `dh import` runs (`vox`, `gltf`, `minecraft`, `minecraft-world`), or what
    /// `dh new` writes (`pallet`, `map`, `object`).
    format: Option<String>,
    /// The id `dh new pallet` gives the pallet.
    barcode: Option<String>,
    platform: Option<String>,
    into: Option<PathBuf>,
    input: Option<PathBuf>,
    output: Option<PathBuf>,
    pallets: Vec<PathBuf>,
    /// `dh build --engine`.
    engine: Option<PathBuf>,
    json: bool,
    quiet: bool,
}

/// What the command line asks for.
enum Request {
    /// A command to run.
    Run(Args),
    /// Text to print on stdout (the usage, a command's help).
    Print(String),
    /// A completion script.
    Completions(clap_complete::Shell),
}

fn context_str(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

/// Every command `dh` takes, as its usage errors list them.
const COMMANDS: &str = "build, check, inspect, import, new, completions or help";

/// A refused command line in `dh`'s words, with clap's "did you mean" after it.
fn usage_message(e: &clap::Error, args: &[String]) -> String {
    let in_command = args.first().is_some_and(|a| !a.starts_with('-'));
    let mut tips = String::new();
    if let Some(s) = context_str(e, ContextKind::SuggestedSubcommand) {
        tips.push_str(&format!("\n  tip: a similar command exists: '{s}'"));
    }
    if let Some(s) = context_str(e, ContextKind::SuggestedArg) {
        tips.push_str(&format!("\n  tip: a similar option exists: '{s}'"));
    }
    if let Some(s) = context_str(e, ContextKind::SuggestedValue) {
        tips.push_str(&format!("\n  tip: a similar value exists: '{s}'"));
    }
    let arg = context_str(e, ContextKind::InvalidArg).unwrap_or_default();
    let message = match e.kind() {
        ErrorKind::InvalidSubcommand => {
            let word = context_str(e, ContextKind::InvalidSubcommand).unwrap_or_default();
            format!("unknown command '{word}'; expected {COMMANDS}")
        }
        ErrorKind::UnknownArgument if !in_command => {
            format!("unknown command '{arg}'; expected {COMMANDS}")
        }
        ErrorKind::UnknownArgument if arg.starts_with('-') => format!("unknown option '{arg}'"),
        ErrorKind::UnknownArgument => format!("unexpected argument '{arg}'"),
        ErrorKind::MissingRequiredArgument => {
            let command = args.first().map_or("", String::as_str);
            match (command, arg.as_str()) {
                ("import", "<format>") => {
                    "`dh import` needs a format; expected `dh import vox <file.vox>`, `dh import gltf <file.glb>` or `dh import minecraft <file.schem>`".to_string()
                }
                ("import", _) => "`dh import` needs the file to import".to_string(),
                ("new", "<kind>") => NEW_NEEDS_KIND.to_string(),
                ("new", _) => "`dh new` needs the path to write".to_string(),
                ("inspect", _) => "`dh inspect` needs a .pallet or .dh-vox.bin file".to_string(),
                _ => format!("`dh {command}` needs the source pallet's folder"),
            }
        }
        ErrorKind::InvalidValue => {
            let value = context_str(e, ContextKind::InvalidValue).unwrap_or_default();
            let flag = arg.split_whitespace().next().unwrap_or_default();
            if arg.contains("<kind>") {
                format!("`dh new {value}` is not something dh new writes; expected pallet, map or object")
            } else if arg.contains("format") {
                format!(
                    "`dh import {value}` is not an importer; expected `dh import vox <file.vox>`, `dh import gltf <file.glb>` or `dh import minecraft <file.schem>`"
                )
            } else if !value.is_empty() {
                let valid = match e.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(v)) => v.join(", "),
                    _ => String::new(),
                };
                format!("'{value}' is not one of {valid}")
            } else {
                // A flag short of its value is the last word (values are taken as written,
                // dashes and all), so name it as typed.
                let typed = args
                    .last()
                    .map_or(flag, |a| a.split('=').next().unwrap_or(a));
                let what = match flag {
                    "--platform" => "a platform id",
                    "--into" => "a folder",
                    _ => "a file path",
                };
                format!("'{typed}' needs {what} after it")
            }
        }
        _ => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    };
    format!("{message}{tips}")
}

/// `dh <command> --help`, as clap renders it.
fn command_help(name: &str) -> String {
    match Grammar::try_parse_from(["dh", name, "--help"]) {
        Err(e) => e.render().to_string(),
        Ok(_) => String::new(),
    }
}

fn parse_args(args: &[String]) -> Result<Request, CliError> {
    let argv = std::iter::once("dh".to_string()).chain(args.iter().cloned());
    let grammar = match Grammar::try_parse_from(argv) {
        Ok(g) => g,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            return Ok(Request::Print(match args.first().map(String::as_str) {
                Some("-h" | "--help") => USAGE.to_string(),
                _ => e.render().to_string().trim_end().to_string(),
            }))
        }
        Err(e) => return Err(CliError::Usage(usage_message(&e, args))),
    };
    let command = grammar
        .command
        .ok_or_else(|| CliError::Usage(format!("no command given; expected {COMMANDS}")))?;
    let mut a = Args {
        command: String::new(),
        format: None,
        barcode: None,
        platform: None,
        into: None,
        input: None,
        output: None,
        pallets: Vec::new(),
        engine: None,
        json: false,
        quiet: false,
    };
    match command {
        Command::Build {
            dir,
            output,
            pallets,
            engine,
            json,
            quiet,
        } => {
            a.command = "build".into();
            (a.input, a.output, a.pallets, a.json, a.quiet) = (dir, output, pallets, json, quiet);
            a.engine = engine;
        }
        Command::Check { dir, json, quiet } => {
            a.command = "check".into();
            (a.input, a.json, a.quiet) = (dir, json, quiet);
        }
        Command::Inspect { file, json, quiet } => {
            a.command = "inspect".into();
            (a.input, a.json, a.quiet) = (file, json, quiet);
        }
        Command::Import {
            format,
            file,
            platform,
            into,
            json,
            quiet,
        } => {
            if format.is_none() {
                return Err(CliError::Usage(
                    "`dh import` needs a format; expected `dh import vox <file.vox>`, `dh import gltf <file.glb>` or `dh import minecraft <file.schem>`".into(),
                ));
            }
            a.command = "import".into();
            a.format = format;
            (a.input, a.platform, a.into, a.json, a.quiet) = (file, platform, into, json, quiet);
        }
        Command::New {
            kind,
            path,
            barcode,
            quiet,
        } => {
            if kind.is_none() {
                return Err(CliError::Usage(NEW_NEEDS_KIND.into()));
            }
            if barcode.is_some() && kind.as_deref() != Some("pallet") {
                return Err(CliError::Usage(
                    "`--barcode` names a new pallet's id; it is for `dh new pallet`".into(),
                ));
            }
            a.command = "new".into();
            a.format = kind;
            (a.input, a.barcode, a.quiet) = (path, barcode, quiet);
        }
        Command::Completions { shell } => return Ok(Request::Completions(shell)),
        Command::Help { words } => {
            return Ok(Request::Print(match words.first().map(String::as_str) {
                Some(c @ ("build" | "check" | "inspect" | "import" | "new" | "completions")) => {
                    command_help(c).trim_end().to_string()
                }
                _ => USAGE.to_string(),
            }))
        }
    }
    Ok(Request::Run(a))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(Request::Run(a)) => a,
        Ok(Request::Print(text)) => {
            println!("{text}");
            return ExitCode::SUCCESS;
        }
        Ok(Request::Completions(shell)) => {
            clap_complete::generate(shell, &mut Grammar::command(), "dh", &mut std::io::stdout());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("dh: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match args.command.as_str() {
        "build" | "check" => build_or_check(&args),
        "inspect" => inspect(&args),
        "new" => new(&args),
        _ => import(&args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e @ CliError::Usage(_)) => {
            eprintln!("dh: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("dh: {e}");
            ExitCode::from(1)
        }
    }
}

/// A progress bar on stderr, drawn only on a terminal and only for builds long enough to
/// want one.
fn progress_bar(enabled: bool) -> impl Fn(usize, usize) + Sync {
    move |done: usize, total: usize| {
        if !enabled || total < 50 {
            return;
        }
        let width = 30;
        let filled = done * width / total.max(1);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{total} files",
            "#".repeat(filled),
            " ".repeat(width - filled)
        );
        if done == total {
            let _ = writeln!(err);
        }
    }
}

fn build_or_check(args: &Args) -> Result<bool, CliError> {
    let write = args.command == "build";
    let dir = args.input.clone().ok_or_else(|| {
        CliError::Usage(format!(
            "`dh {}` needs the source pallet's folder",
            args.command
        ))
    })?;
    if !dir.is_dir() {
        return Err(CliError::Failed(format!(
            "{} is not a folder; expected a source pallet folder holding pallet.dh",
            dir.display()
        )));
    }
    let bar = progress_bar(!args.quiet && !args.json && std::io::stderr().is_terminal());
    let opts = CompileOptions {
        write,
        progress: Some(&bar),
    };
    let search = DependencySearch::for_source(&dir, &args.pallets);
    let thumbnails = if write {
        Some(ThumbnailOptions::new(engine_setting(&dir, args)?))
    } else {
        None
    };
    let out = compile_with_thumbnails(&dir, &opts, &search, thumbnails.as_ref());
    print_diagnostics(&out, args.json);
    let errors = out.diagnostics.error_count();
    let warnings = out
        .diagnostics
        .items
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    if errors > 0 {
        if !args.quiet && !args.json {
            eprintln!("dh: {errors} error(s), {warnings} warning(s); nothing written");
        }
        return Ok(false);
    }
    if write {
        let target = args.output.clone().unwrap_or_else(|| default_output(&dir));
        let bytes = out
            .pallet
            .as_deref()
            .ok_or_else(|| CliError::Failed("the build produced no pallet".into()))?;
        write_atomically(&target, bytes)?;
        record_writes(&target, &out, args)?;
        if !args.quiet && !args.json {
            eprintln!(
                "dh: built {} ({} entries, {} bytes, {warnings} warning(s))",
                target.display(),
                out.assets.len(),
                bytes.len()
            );
        }
    } else if !args.quiet && !args.json {
        eprintln!(
            "dh: {} checked: {} asset(s), no errors, {warnings} warning(s)",
            dir.display(),
            out.assets.len()
        );
    }
    Ok(true)
}

/// The file `dh build` reads its settings from.
const CONFIG_NAME: &str = "dh-config.jsonc";

/// Where `dh build` finds the engine that photographs map thumbnails: `--engine PATH`,
/// else `enginePath` in the first `dh-config.jsonc` found beside `pallet.dh` (the source
/// folder), then in the current folder. A relative `enginePath` is read from the config
/// file's folder. A config file that does not read, or whose `enginePath` is not a
/// string, is refused naming the file; members other than `enginePath` are not settings
/// `dh` reads and are refused too, so a misspelling is never silently ignored.
fn engine_setting(dir: &Path, args: &Args) -> Result<EngineSetting, CliError> {
    if let Some(p) = &args.engine {
        return Ok(EngineSetting::Named {
            path: p.clone(),
            from: "--engine".into(),
        });
    }
    let mut candidates = vec![dir.join(CONFIG_NAME)];
    if let Ok(cwd) = std::env::current_dir() {
        candidates.push(cwd.join(CONFIG_NAME));
    }
    let Some(file) = candidates.into_iter().find(|p| p.is_file()) else {
        return Ok(EngineSetting::Unset);
    };
    let fail = |why: String| CliError::Failed(format!("{}: {why}", file.display()));
    let text = std::fs::read_to_string(&file).map_err(|e| fail(format!("cannot read it: {e}")))?;
    let value = dh_content::jsonc::parse(&text).map_err(|e| {
        fail(format!(
            "not JSONC: {e}; expected an object like {{ \"enginePath\": \"/path/to/dh-engine\" }}"
        ))
    })?;
    let dh_content::jsonc::Kind::Object(members) = &value.kind else {
        return Err(fail(
            "expected an object like { \"enginePath\": \"/path/to/dh-engine\" }".into(),
        ));
    };
    let mut engine = EngineSetting::Unset;
    for m in members {
        match (m.key.as_str(), m.value.as_str()) {
            ("enginePath", Some(p)) => {
                let p = PathBuf::from(p);
                let path = if p.is_relative() {
                    file.parent().unwrap_or(Path::new(".")).join(p)
                } else {
                    p
                };
                engine = EngineSetting::Named {
                    path,
                    from: file.display().to_string(),
                };
            }
            ("enginePath", None) => {
                return Err(fail(
                    "enginePath: expected a string naming the engine binary".into(),
                ))
            }
            (other, _) => {
                return Err(fail(format!(
                    "'{other}' is not a setting dh reads; expected enginePath"
                )))
            }
        }
    }
    Ok(engine)
}

/// Records what the build wrote back into the sources (identity sidecars) in
/// `<palletId>.compiler-writes` beside the built pallet, so neither the next build nor an
/// editor reads those files as a person's edit.
fn record_writes(target: &Path, out: &BuildOutput, args: &Args) -> Result<(), CliError> {
    let Some(manifest) = &out.manifest else {
        return Ok(());
    };
    let record = target
        .parent()
        .unwrap_or(Path::new("."))
        .join(dh_content::compile::compiler_writes_name(&manifest.id));
    if out.writes.iter().all(|w| !w.written) {
        return Ok(());
    }
    dh_content::compile::record_compiler_writes(&record, &out.writes)
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", record.display())))?;
    if !args.quiet && !args.json {
        for w in out.writes.iter().filter(|w| w.written) {
            eprintln!("dh: wrote {} (recorded in {})", w.path, record.display());
        }
    }
    Ok(())
}

fn default_output(dir: &Path) -> PathBuf {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "out".into());
    let parent = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    parent.join(format!("{name}.pallet"))
}

fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, target))
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", target.display())))
}

fn print_diagnostics(out: &BuildOutput, json: bool) {
    let stdout = std::io::stdout();
    let mut o = stdout.lock();
    for d in &out.diagnostics.items {
        if json {
            let _ = writeln!(o, "{}", d.to_json());
        } else {
            let _ = writeln!(o, "{d}");
        }
    }
}

/// `dh import minecraft-world <save> --into <pallet>`.
fn import_world(args: &Args) -> Result<bool, CliError> {
    use dh_content::voxel::minecraft::world::{import::import_world, WorldOptions};
    let save = args.input.clone().ok_or_else(|| {
        CliError::Usage("`dh import minecraft-world` needs the save's folder".into())
    })?;
    let into = args.into.clone().ok_or_else(|| {
        CliError::Usage("`dh import minecraft-world` needs --into <pallet dir>".into())
    })?;
    let tty = !args.quiet && std::io::stderr().is_terminal();
    let start = std::time::Instant::now();
    let last_line = std::sync::Mutex::new(std::time::Instant::now());
    let progress = |done: usize, total: usize, chunks: u64| {
        if args.quiet {
            return;
        }
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let rate = chunks as f64 / secs;
        let mut err = std::io::stderr().lock();
        if tty {
            let width = 30;
            let filled = done * width / total.max(1);
            let _ = write!(
                err,
                "\r[{}{}] {done}/{total} regions, {rate:.0} chunks/s",
                "#".repeat(filled),
                " ".repeat(width - filled)
            );
            if done == total {
                let _ = writeln!(err);
            }
        } else if let Ok(mut at) = last_line.lock() {
            // Plain lines, at most one every two seconds and the last.
            if done == total || at.elapsed().as_secs_f64() >= 2.0 {
                *at = std::time::Instant::now();
                let _ = writeln!(
                    err,
                    "dh: {done}/{total} regions, {chunks} chunks, {rate:.0} chunks/s"
                );
            }
        }
    };
    // Ctrl+C stops the conversion at the next region and writes nothing (the payload is
    // written beside and renamed into place only once whole); a second Ctrl+C quits at
    // once.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for registered in [
        signal_hook::flag::register_conditional_shutdown(
            signal_hook::consts::SIGINT,
            130,
            std::sync::Arc::clone(&cancel),
        ),
        signal_hook::flag::register(signal_hook::consts::SIGINT, std::sync::Arc::clone(&cancel)),
    ] {
        if let Err(e) = registered {
            eprintln!(
                "dh: warning: Ctrl+C cannot be caught ({e}); it will stop the import at once"
            );
        }
    }
    let opts = WorldOptions {
        progress: Some(&progress),
        cancel: Some(&cancel),
        ..WorldOptions::default()
    };
    let r = import_world(&save, &into, &opts).map_err(|e| CliError::Failed(e.to_string()))?;
    for w in &r.report.warnings {
        eprintln!("dh: warning: {w}");
    }
    let manifest = std::fs::read_to_string(into.join("pallet.dh")).unwrap_or_default();
    if !manifest.contains(&format!("\"{}\"", dh_content::schema::voxel::MINECRAFT)) {
        eprintln!(
            "dh: warning: {}: the map inherits {}; add \"{}\" to pallet.dh's dependencies, or the build refuses the map",
            into.join("pallet.dh").display(),
            dh_content::voxel::minecraft::world::import::ENVIRONMENT_TEMPLATE,
            dh_content::schema::voxel::MINECRAFT
        );
    }
    for e in &r.report.chunk_errors {
        eprintln!("dh: error: {e}");
    }
    if !args.quiet {
        let g = &r.report.grids;
        eprintln!(
            "dh: imported {} as {} and {}: {} dimension(s) ({}), {} chunks, {} skipped (not full), {} palette entries, {} block entities, {} entities, in {:.2} s",
            save.display(),
            r.definition.display(),
            r.map.display(),
            g.len(),
            g.iter().map(|g| g.id.as_str()).collect::<Vec<_>>().join(", "),
            g.iter().map(|g| g.chunks).sum::<u64>(),
            r.report.skipped_chunks(),
            r.report.palette_entries,
            r.report.block_entities,
            r.report.entities,
            start.elapsed().as_secs_f64()
        );
        if !r.report.chunk_errors.is_empty() {
            eprintln!(
                "dh: {} chunk(s) or region(s) could not be read and were left out; the rest was written",
                r.report.chunk_errors.len()
            );
        }
    }
    Ok(r.report.chunk_errors.is_empty())
}

fn import(args: &Args) -> Result<bool, CliError> {
    if args.format.as_deref() == Some("minecraft-world") {
        return import_world(args);
    }
    if args.format.as_deref() == Some("minecraft") {
        return import_minecraft(args);
    }
    if args.format.as_deref() == Some("gltf") {
        return import_gltf(args);
    }
    let file = args
        .input
        .clone()
        .ok_or_else(|| CliError::Usage("`dh import vox` needs the .vox file".into()))?;
    let report = dh_content::voxel::import::import_vox(
        &file,
        args.platform.as_deref(),
        args.into.as_deref(),
    )
    .map_err(|e| CliError::Failed(e.to_string()))?;
    for w in &report.warnings {
        eprintln!("dh: warning: {}: {w}", file.display());
    }
    if !args.quiet {
        eprintln!(
            "dh: imported {} as {} ({}{}): {} grid(s), {} voxel(s), {} palette entries",
            file.display(),
            report.definition.display(),
            report.platform,
            if report.platform_detected {
                ", detected"
            } else {
                ""
            },
            report.grids,
            report.voxels,
            report.palette_entries
        );
    }
    Ok(true)
}

/// `dh import gltf`: one line per file written or updated, one per file left alone with
/// the reason, the importer's notes as warnings, then the summary and the instance record
/// to paste into a map (`--quiet`: only the warnings and the skipped files).
fn import_gltf(args: &Args) -> Result<bool, CliError> {
    use dh_content::gltf::pallet_import::FileOutcome;
    let file = args
        .input
        .clone()
        .ok_or_else(|| CliError::Usage("`dh import gltf` needs the .glb or .gltf file".into()))?;
    if args.platform.is_some() {
        return Err(CliError::Usage(
            "`--platform` is for a .vox; a glTF model follows no voxel platform".into(),
        ));
    }
    let report = dh_content::gltf::import_gltf(&file, args.into.as_deref())
        .map_err(|e| CliError::Failed(e.to_string()))?;
    for n in &report.notes {
        eprintln!("dh: warning: {}: {n}", file.display());
    }
    let (mut written, mut skipped) = (0, 0);
    for f in &report.files {
        match &f.outcome {
            FileOutcome::Written | FileOutcome::Updated => {
                written += 1;
                if !args.quiet {
                    let verb = if f.outcome == FileOutcome::Written {
                        "wrote"
                    } else {
                        "updated"
                    };
                    eprintln!("dh: {verb} {}", f.path.display());
                }
            }
            FileOutcome::Skipped(why) => {
                skipped += 1;
                eprintln!("dh: skipped {}: {why}; left as it is", f.path.display());
            }
            FileOutcome::Unchanged => {}
        }
    }
    if !args.quiet {
        let unchanged = report.files.len() - written - skipped;
        eprintln!(
            "dh: imported {} as {}: {} material(s), {} image(s), {} slot binding(s); {written} file(s) written, {unchanged} unchanged, {skipped} skipped",
            file.display(),
            report.object.display(),
            report.materials,
            report.images,
            report.slots.len()
        );
        eprintln!("dh: place it in a map with: {}", report.instance);
    }
    Ok(true)
}

fn import_minecraft(args: &Args) -> Result<bool, CliError> {
    let file = args.input.clone().ok_or_else(|| {
        CliError::Usage(
            "`dh import minecraft` needs the .schem, .litematic, .nbt or .schematic, or a client .jar or assets folder".into(),
        )
    })?;
    let jar = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jar") || e.eq_ignore_ascii_case("zip"));
    if jar || file.is_dir() {
        return import_platform(args, &file);
    }
    if args.platform.is_some() {
        return Err(CliError::Usage(
            "`--platform` is for a .vox; a Minecraft structure follows com.mojang.minecraft".into(),
        ));
    }
    let report = dh_content::voxel::minecraft::import_file(&file, args.into.as_deref())
        .map_err(|e| CliError::Failed(e.to_string()))?;
    for w in &report.warnings {
        eprintln!("dh: warning: {}: {w}", file.display());
    }
    if !args.quiet {
        eprintln!(
            "dh: imported {} as {} ({}): {} grid(s), {} block(s), {} palette entries, {} block entities and entities",
            file.display(),
            report.definition.display(),
            report.platform,
            report.grids,
            report.voxels,
            report.palette_entries,
            report.extras
        );
    }
    Ok(true)
}

/// `dh import minecraft <client.jar | assets folder> --into <dir>`: the platform pallet.
fn import_platform(args: &Args, input: &Path) -> Result<bool, CliError> {
    use dh_content::voxel::minecraft::platform::{import_platform, PlatformOptions};
    let into = args.into.clone().ok_or_else(|| {
        CliError::Usage(
            "`dh import minecraft <client.jar>` needs --into <dir>, the platform pallet's folder"
                .into(),
        )
    })?;
    if args.platform.is_some() {
        return Err(CliError::Usage(
            "`--platform` is for a .vox; the platform pallet is com.mojang.minecraft".into(),
        ));
    }
    let tty = !args.quiet && std::io::stderr().is_terminal();
    let progress = move |done: usize, total: usize| {
        if !tty {
            return;
        }
        let width = 30;
        let filled = done * width / total.max(1);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {done}/{total} blockstates",
            "#".repeat(filled),
            " ".repeat(width - filled)
        );
        if done == total {
            let _ = writeln!(err);
        }
    };
    let start = std::time::Instant::now();
    let opts = PlatformOptions {
        progress: Some(&progress),
        ..PlatformOptions::default()
    };
    let r = import_platform(input, &into, &opts).map_err(|e| CliError::Failed(e.to_string()))?;
    for w in &r.warnings {
        eprintln!("dh: warning: {w}");
    }
    if !args.quiet {
        eprintln!(
            "dh: imported {} into {} ({}, {}): {} of {} blockstates as blocks ({} left to the colour table), {} models, {} textures; {} file(s) written, {} unchanged, {} stale block(s) removed; blocks {}, in {:.2} s",
            input.display(),
            into.display(),
            dh_content::schema::voxel::MINECRAFT,
            r.version.as_deref().unwrap_or("version unknown"),
            r.blocks,
            r.blockstates,
            r.skipped.len(),
            r.models,
            r.textures,
            r.written.len(),
            r.unchanged,
            r.removed.len(),
            &r.fingerprint[..r.fingerprint.len().min(12)],
            start.elapsed().as_secs_f64()
        );
    }
    Ok(true)
}

fn inspect(args: &Args) -> Result<bool, CliError> {
    let path = args.input.clone().ok_or_else(|| {
        CliError::Usage("`dh inspect` needs a .pallet or .dh-vox.bin file".into())
    })?;
    let mut magic = [0u8; 8];
    {
        use std::io::Read;
        let mut f = std::fs::File::open(&path)
            .map_err(|e| CliError::Failed(format!("cannot open {}: {e}", path.display())))?;
        let _ = f.read(&mut magic);
    }
    if magic.starts_with(b"DHVX") {
        return inspect_payload_file(&path, args.json);
    }
    let pallet = Pallet::open(&path).map_err(|e| CliError::Failed(e.to_string()))?;
    let m = pallet.manifest();
    let stdout = std::io::stdout();
    let mut o = stdout.lock();
    let codec = |c: Codec| match c {
        Codec::Stored => "stored",
        Codec::Lz4 => "lz4",
    };
    if args.json {
        let mut s = String::from("{\"id\":");
        dh_content::jsonc::write_string(&m.id, &mut s);
        s.push_str(",\"name\":");
        dh_content::jsonc::write_string(&m.name, &mut s);
        s.push_str(",\"version\":");
        dh_content::jsonc::write_string(&m.version, &mut s);
        s.push_str(",\"dependencies\":[");
        for (i, d) in m.dependencies.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            dh_content::jsonc::write_string(d, &mut s);
        }
        s.push_str("],\"buildInfo\":{\"contentChecksum\":");
        dh_content::jsonc::write_string(&m.build_info.content_checksum, &mut s);
        s.push_str(&format!(
            ",\"formulaVersion\":{}}},\"entries\":[",
            m.build_info.formula_version
        ));
        for (i, e) in pallet.entries().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"path\":");
            dh_content::jsonc::write_string(e.path, &mut s);
            s.push_str(&format!(
                ",\"codec\":\"{}\",\"offset\":{},\"storedLength\":{},\"rawLength\":{},\"crc32\":\"{:08x}\",\"mime\":",
                codec(e.codec),
                e.offset,
                e.stored_len,
                e.raw_len,
                e.crc32
            ));
            dh_content::jsonc::write_string(e.meta.mime.as_deref().unwrap_or(""), &mut s);
            s.push('}');
        }
        s.push_str("]}");
        let _ = writeln!(o, "{s}");
    } else {
        let _ = writeln!(o, "pallet   {} ({}) {}", m.id, m.name, m.version);
        if !m.dependencies.is_empty() {
            let _ = writeln!(o, "depends  {}", m.dependencies.join(", "));
        }
        let _ = writeln!(
            o,
            "checksum {} (formula {})",
            m.build_info.content_checksum, m.build_info.formula_version
        );
        let _ = writeln!(o, "{} entries:", pallet.len());
        let _ = writeln!(
            o,
            "  {:<6} {:>10} {:>10} {:>8}  {:<32} path",
            "codec", "stored", "raw", "crc32", "mime"
        );
        for e in pallet.entries() {
            let _ = writeln!(
                o,
                "  {:<6} {:>10} {:>10} {:08x}  {:<32} {}",
                codec(e.codec),
                e.stored_len,
                e.raw_len,
                e.crc32,
                e.meta.mime.as_deref().unwrap_or("-"),
                e.path
            );
        }
        for e in pallet.entries() {
            if !e.path.ends_with(".dh-vox.bin") {
                continue;
            }
            let mut shards = Vec::new();
            for n in 0u16.. {
                let name = dh_content::pallet::voxel_shard_name(e.path, n);
                match pallet.range(&name) {
                    Ok(bytes) => shards.push(bytes),
                    Err(_) => break,
                }
            }
            let summary = PayloadSummary::read(e.path, &shards)
                .map_err(|err| CliError::Failed(err.to_string()))?;
            let _ = writeln!(o);
            let _ = write!(o, "{}", summary.to_table());
        }
    }
    Ok(true)
}

/// What `dh inspect` says about a voxel payload.
struct PayloadSummary {
    name: String,
    header: String,
    meta: Vec<(String, String)>,
    layers: Vec<String>,
    grids: Vec<(String, Option<u32>, u64)>,
    palette: Vec<String>,
    regions: usize,
    shards: usize,
    chunks: u64,
    /// (chunks, body bytes) per mode: uniform, packed, sparse.
    modes: [(u64, u64); 3],
    lz4_chunks: u64,
}

impl PayloadSummary {
    fn read(
        name: &str,
        shards: &[&[u8]],
    ) -> Result<PayloadSummary, dh_content::voxel::payload::PayloadError> {
        use dh_content::voxel::payload::PayloadReader;
        let r = PayloadReader::open_named(name, shards)?;
        let h = r.header();
        let header = format!(
            "platform {}  format {}  voxel {} m  chunk edge {}  origin {:?}",
            if h.platform.is_empty() {
                "-"
            } else {
                &h.platform
            },
            if h.format.is_empty() { "-" } else { &h.format },
            h.voxel_size,
            h.chunk_edge,
            h.origin
        );
        let mut cells = vec![0u64; r.grids().len()];
        let mut modes = [(0u64, 0u64); 3];
        let mut chunks = 0u64;
        let mut lz4_chunks = 0u64;
        let mut buf = Vec::new();
        for (ri, region) in r.regions().iter().enumerate() {
            let n = r.chunk_table(ri)?.entries().len();
            for ci in 0..n {
                chunks += 1;
                let (codec, body) = r.chunk_body(ri, ci)?;
                if codec == 1 {
                    lz4_chunks += 1;
                }
                if let Some(m) = body.first().and_then(|m| modes.get_mut(*m as usize)) {
                    m.0 += 1;
                    m.1 += body.len() as u64;
                }
                r.read_chunk_into(ri, ci, &mut buf)?;
                if let Some(c) = cells.get_mut(region.grid as usize) {
                    *c += buf.iter().filter(|v| **v != 0).count() as u64;
                }
            }
        }
        let grids = r
            .grids()
            .iter()
            .zip(cells)
            .map(|(g, c)| (g.name.clone(), g.parent, c))
            .collect();
        let palette = r
            .palette()
            .iter()
            .map(|p| format!("{}:{}", p.ns, p.id))
            .collect();
        Ok(PayloadSummary {
            name: name.to_string(),
            header,
            meta: h.meta.clone(),
            layers: r
                .layers()
                .iter()
                .map(|l| format!("{} (cell scale {})", l.name, l.cell_scale))
                .collect(),
            grids,
            palette,
            regions: r.regions().len(),
            shards: r.shard_count(),
            chunks,
            modes,
            lz4_chunks,
        })
    }

    fn total_cells(&self) -> u64 {
        self.grids.iter().map(|g| g.2).sum()
    }

    fn to_table(&self) -> String {
        let mut s = format!("payload  {}\n         {}\n", self.name, self.header);
        for (k, v) in &self.meta {
            s.push_str(&format!("meta     {k} = {v}\n"));
        }
        s.push_str(&format!("layers   {}\n", self.layers.join(", ")));
        s.push_str(&format!("grids    {}\n", self.grids.len()));
        for (i, (name, parent, cells)) in self.grids.iter().enumerate() {
            let parent = parent.map_or("-".to_string(), |p| format!("#{p}"));
            s.push_str(&format!(
                "  #{i:<4} {cells:>12} cells  parent {parent:<5} {name}\n"
            ));
        }
        s.push_str(&format!(
            "  total {:>12} non-empty cells\n",
            self.total_cells()
        ));
        let shown: Vec<&str> = self.palette.iter().take(12).map(String::as_str).collect();
        let more = self.palette.len().saturating_sub(shown.len());
        s.push_str(&format!(
            "palette  {} entries: {}{}\n",
            self.palette.len(),
            shown.join(", "),
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        ));
        s.push_str(&format!(
            "regions  {} in {} shard(s); chunks {} ({} LZ4)\n",
            self.regions, self.shards, self.chunks, self.lz4_chunks
        ));
        for (label, (n, bytes)) in ["uniform", "packed", "sparse"].iter().zip(self.modes) {
            s.push_str(&format!(
                "  {label:<8} {n:>8} chunks {bytes:>12} body bytes\n"
            ));
        }
        s
    }

    fn to_json(&self) -> String {
        let mut s = String::from("{\"payload\":");
        dh_content::jsonc::write_string(&self.name, &mut s);
        s.push_str(",\"meta\":{");
        for (i, (k, v)) in self.meta.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            dh_content::jsonc::write_string(k, &mut s);
            s.push(':');
            dh_content::jsonc::write_string(v, &mut s);
        }
        s.push('}');
        s.push_str(",\"grids\":[");
        for (i, (name, parent, cells)) in self.grids.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"name\":");
            dh_content::jsonc::write_string(name, &mut s);
            match parent {
                Some(p) => s.push_str(&format!(",\"parent\":{p}")),
                None => s.push_str(",\"parent\":null"),
            }
            s.push_str(&format!(",\"cells\":{cells}}}"));
        }
        s.push_str(&format!(
            "],\"totalCells\":{},\"palette\":{},\"regions\":{},\"shards\":{},\"chunks\":{},\"lz4Chunks\":{},\"modes\":{{",
            self.total_cells(),
            self.palette.len(),
            self.regions,
            self.shards,
            self.chunks,
            self.lz4_chunks
        ));
        for (i, (label, (n, bytes))) in ["uniform", "packed", "sparse"]
            .iter()
            .zip(self.modes)
            .enumerate()
        {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&format!("\"{label}\":{{\"chunks\":{n},\"bytes\":{bytes}}}"));
        }
        s.push_str("}}");
        s
    }
}

fn inspect_payload_file(path: &Path, json: bool) -> Result<bool, CliError> {
    let mut files = Vec::new();
    let read = |p: &Path| {
        std::fs::read(p).map_err(|e| CliError::Failed(format!("cannot read {}: {e}", p.display())))
    };
    files.push(read(path)?);
    for n in 1u16.. {
        let mut sibling = path.as_os_str().to_owned();
        sibling.push(format!(".{n}"));
        let sibling = PathBuf::from(sibling);
        if !sibling.is_file() {
            break;
        }
        files.push(read(&sibling)?);
    }
    let views: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    let name = path.display().to_string();
    let summary =
        PayloadSummary::read(&name, &views).map_err(|e| CliError::Failed(e.to_string()))?;
    if json {
        println!("{}", summary.to_json());
    } else {
        print!("{}", summary.to_table());
    }
    Ok(true)
}

/// `dh new pallet|map|object <path>`.
fn new(args: &Args) -> Result<bool, CliError> {
    let path = args
        .input
        .clone()
        .ok_or_else(|| CliError::Usage("`dh new` needs the path to write".into()))?;
    let failed = |e: new::NewError| CliError::Failed(e.to_string());
    match args.format.as_deref() {
        Some("pallet") => {
            let p = new::new_pallet(&path, args.barcode.as_deref()).map_err(failed)?;
            if !args.quiet {
                for f in &p.files {
                    eprintln!("dh: wrote {}", f.display());
                }
                eprintln!(
                    "dh: new pallet {}; build it with `dh build {}` and run its map with `dh-engine run --pallet {} --map {}:maps/main.dh-map`",
                    p.id,
                    path.display(),
                    default_output(&path).display(),
                    p.id
                );
            }
        }
        Some("map") => {
            let f = new::new_map(&path).map_err(failed)?;
            if !args.quiet {
                eprintln!("dh: wrote {}", f.display());
            }
        }
        _ => {
            let f = new::new_object(&path).map_err(failed)?;
            if !args.quiet {
                eprintln!("dh: wrote {}", f.display());
            }
        }
    }
    Ok(true)
}
