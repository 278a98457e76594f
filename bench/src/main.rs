//! `dh-bench`: runs benchmark scenes through the engine host and prints the frame timer.
use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use mimalloc::MiMalloc;

use dh_bench::city::{City, CityOptions, DEFAULT_BLOCKS, DEFAULT_SEED};
use dh_bench::harness::{CityRun, HarnessOptions, Timing};

/// Ticks each run takes per turn.
const BATCH: u64 = 32;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// What `dh-bench help` prints.
const USAGE: &str = "\
dh-bench: benchmark scenes run through the engine host (headless)

usage:
  dh-bench city [--blocks N] [--seed S] [--ticks T] [--warmup T] [--workers W[,W...]]
                [--json] [--emit DIR]
  dh-bench completions <shell>
  dh-bench help
  dh-bench city --help

city    generates the logic city (N blocks of 15 logic entities each: a button and its
        door, a pressure plate, a timer, and / or / not gates and their lights, a lift with
        its plate and lamp, a spinning fan; one pawn per block pressing the button and
        walking over both plates), builds it with the pallet compiler, installs it in the
        engine host once per worker count, warms each up, then runs T measured ticks on each,
        the runs taking turns 32 ticks at a time (so a noisy machine slows all alike).
        Prints ticks per second and the frame timer per run, then the runs side by side
        with the state digest of each (identical digests: the same end state).

  --blocks N        blocks (default 256: 3840 logic entities, 256 pawns)
  --seed S          the generator's seed (default 0xc17e5eed; decimal or 0x hex)
  --ticks T         measured ticks per run (default 640: 10 s of game time)
  --warmup T        ticks run before measuring, not timed (default 64)
  --workers LIST    job-system threads per run, the main thread included (default 1,2)
  --json            prints one JSON object instead of the tables
  --emit DIR        also writes the city's pallet sources (pallet.dh, the map, materials)
  -h, --help        city's options

completions <shell>
        prints the shell completion script for bash, elvish, fish, powershell or zsh, e.g.
        `dh-bench completions bash > /etc/bash_completion.d/dh-bench`.

exit status: 0 done, 1 a run failed, 2 a usage error.
";

#[derive(Debug, Clone, PartialEq)]
struct Options {
    blocks: usize,
    seed: u64,
    ticks: u64,
    warmup: u64,
    workers: Vec<usize>,
    json: bool,
    emit: Option<PathBuf>,
}

/// `dh-bench`'s grammar (clap, derive).
#[derive(Debug, Parser)]
#[command(
    name = "dh-bench",
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
    /// Generates the logic city, builds it, installs it once per worker count and runs the
    /// runs side by side, printing ticks per second, the frame timers and the state digests.
    ///
    /// The runs take turns 32 ticks at a time, so a noisy machine slows all alike;
    /// identical digests mean the same end state.
    #[command(args_override_self = true)]
    City(CityArgs),
    /// Prints the shell completion script for `shell`.
    Completions {
        /// bash, elvish, fish, powershell or zsh.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Prints the usage.
    #[command(disable_help_flag = true)]
    Help {
        /// Ignored.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        words: Vec<String>,
    },
}

/// `--workers W[,W...]`, parsed.
#[derive(Debug, Clone)]
struct WorkerList(Vec<usize>);

#[derive(Debug, clap::Args)]
struct CityArgs {
    /// Blocks (default 256: 3840 logic entities, 256 pawns).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = blocks)]
    blocks: Option<usize>,
    /// The generator's seed (default 0xc17e5eed; decimal or 0x hex).
    #[arg(long, value_name = "S", allow_hyphen_values = true, value_parser = seed)]
    seed: Option<u64>,
    /// Measured ticks per run (default 640: 10 s of game time).
    #[arg(long, value_name = "T", allow_hyphen_values = true, value_parser = ticks)]
    ticks: Option<u64>,
    /// Ticks run before measuring, not timed (default 64).
    #[arg(long, value_name = "T", allow_hyphen_values = true, value_parser = warmup)]
    warmup: Option<u64>,
    /// Job-system threads per run, the main thread included (default 1,2).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = workers)]
    workers: Option<WorkerList>,
    /// Prints one JSON object instead of the tables.
    #[arg(long)]
    json: bool,
    /// Also writes the city's pallet sources (pallet.dh, the map, materials).
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    emit: Option<PathBuf>,
}

fn number(flag: &str, v: &str) -> Result<u64, String> {
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    };
    parsed.ok_or_else(|| format!("{flag} takes a whole number, got '{v}'"))
}

fn blocks(v: &str) -> Result<usize, String> {
    let n = number("--blocks", v)?;
    if n == 0 {
        return Err("--blocks takes at least 1".into());
    }
    usize::try_from(n).map_err(|_| format!("--blocks {n} is too many"))
}

fn seed(v: &str) -> Result<u64, String> {
    number("--seed", v)
}

fn ticks(v: &str) -> Result<u64, String> {
    number("--ticks", v)
}

fn warmup(v: &str) -> Result<u64, String> {
    number("--warmup", v)
}

fn workers(v: &str) -> Result<WorkerList, String> {
    let mut list = Vec::new();
    for w in v.split(',') {
        let n = number("--workers", w.trim())?;
        if n == 0 {
            return Err("--workers takes counts of at least 1".into());
        }
        list.push(usize::try_from(n).map_err(|_| format!("--workers {n} is too many"))?);
    }
    Ok(WorkerList(list))
}

/// The parsed grammar, or clap's refusal (help requests included).
fn grammar(args: &[String]) -> Result<Grammar, clap::Error> {
    Grammar::try_parse_from(std::iter::once("dh-bench".to_string()).chain(args.iter().cloned()))
}

/// The options of `city`, or `None` where the command line asks for help.
fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let command = match grammar(args) {
        Ok(g) => g.command,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => return Ok(None),
        Err(e) => return Err(dh_engine::cli::usage_message(&e, args, "city and help")),
    };
    let Some(Command::City(a)) = command else {
        return Ok(None);
    };
    Ok(Some(Options {
        blocks: a.blocks.unwrap_or(DEFAULT_BLOCKS),
        seed: a.seed.unwrap_or(DEFAULT_SEED),
        ticks: a.ticks.unwrap_or(640),
        warmup: a.warmup.unwrap_or(64),
        workers: a.workers.map_or_else(|| vec![1, 2], |w| w.0),
        json: a.json,
        emit: a.emit,
    }))
}

/// What a help request prints: `city --help` gets clap's page for `city`, the rest
/// (`help`, `--help`, no arguments) [`USAGE`].
fn help_text(args: &[String]) -> String {
    match grammar(args) {
        Err(e)
            if e.kind() == clap::error::ErrorKind::DisplayHelp
                && args.first().is_some_and(|a| a == "city") =>
        {
            e.render().to_string()
        }
        _ => USAGE.to_string(),
    }
}

/// One run's figures.
struct RunResult {
    workers: usize,
    ticks_per_second: f64,
    /// The median of the per-batch rates.
    median_batch: f64,
    wall_s: f64,
    trace_lines: u64,
    trace_digest: u64,
    state_digest: u64,
    table: String,
    timer_json: String,
}

fn run(o: &Options, err: &mut dyn Write) -> Result<(City, Vec<RunResult>), String> {
    let city = City::generate(&CityOptions {
        blocks: o.blocks,
        seed: o.seed,
    })
    .map_err(|e| e.to_string())?;
    if let Some(dir) = &o.emit {
        city.write_sources(dir).map_err(|e| e.to_string())?;
    }
    let mut runs = Vec::new();
    for &workers in &o.workers {
        let _ = writeln!(
            err,
            "dh-bench: city of {} blocks on {workers} worker(s): building, installing, {} warm-up ticks",
            o.blocks, o.warmup
        );
        let mut r = CityRun::start(
            &city,
            HarnessOptions {
                workers,
                keep_trace: false,
            },
        )
        .map_err(|e| e.to_string())?;
        r.run(o.warmup).map_err(|e| e.to_string())?;
        r.reset_timer();
        runs.push(r);
    }
    // The runs take turns, BATCH ticks each, so a noisy machine's slow spells fall on all
    // of them alike.
    let mut walls = vec![Vec::new(); runs.len()];
    let mut done = 0;
    while done < o.ticks {
        let n = BATCH.min(o.ticks - done);
        for (r, w) in runs.iter_mut().zip(walls.iter_mut()) {
            w.push(r.run(n).map_err(|e| e.to_string())?);
        }
        done += n;
    }
    let mut results = Vec::new();
    for (r, w) in runs.iter().zip(walls) {
        let wall: f64 = w.iter().map(|t| t.wall.as_secs_f64()).sum();
        let mut rates: Vec<f64> = w.iter().map(Timing::ticks_per_second).collect();
        rates.sort_by(f64::total_cmp);
        let report = r.report();
        let (trace_lines, trace_digest) = r.trace_digest();
        results.push(RunResult {
            workers: r.workers(),
            ticks_per_second: if wall > 0.0 {
                o.ticks as f64 / wall
            } else {
                0.0
            },
            median_batch: rates.get(rates.len() / 2).copied().unwrap_or(0.0),
            wall_s: wall,
            trace_lines,
            trace_digest,
            state_digest: r.state().digest(),
            table: report.to_table(),
            timer_json: report.to_json(),
        });
    }
    Ok((city, results))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    if let Ok(Grammar {
        command: Some(Command::Completions { shell }),
    }) = grammar(&args)
    {
        use clap::CommandFactory;
        clap_complete::generate(shell, &mut Grammar::command(), "dh-bench", &mut out);
        return;
    }
    let options = match parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            let _ = write!(out, "{}", help_text(&args));
            return;
        }
        Err(e) => {
            let _ = writeln!(err, "dh-bench: {e}\nrun `dh-bench help` for usage");
            std::process::exit(2);
        }
    };
    let (city, results) = match run(&options, &mut err) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "dh-bench: {e}");
            std::process::exit(1);
        }
    };
    let base = results.first().map_or(0.0, |r| r.ticks_per_second);
    let identical = results
        .windows(2)
        .all(|w| w[0].state_digest == w[1].state_digest && w[0].trace_digest == w[1].trace_digest);
    if options.json {
        let runs: Vec<serde_json::Value> = results
            .iter()
            .map(|r| {
                serde_json::json!({
                    "workers": r.workers,
                    "ticks_per_second": r.ticks_per_second,
                    "median_batch_ticks_per_second": r.median_batch,
                    "wall_s": r.wall_s,
                    "speedup": if base > 0.0 { r.ticks_per_second / base } else { 0.0 },
                    "trace_lines": r.trace_lines,
                    "trace_digest": format!("{:016x}", r.trace_digest),
                    "state_digest": format!("{:016x}", r.state_digest),
                    "timer": serde_json::from_str::<serde_json::Value>(&r.timer_json)
                        .unwrap_or(serde_json::Value::Null),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "scene": "logic-city",
            "blocks": options.blocks,
            "seed": options.seed,
            "logic_entities": city.logic_entities(),
            "records": city.records(),
            "pawns": city.blocks.len(),
            "ticks": options.ticks,
            "warmup": options.warmup,
            "identical": identical,
            "runs": runs,
        });
        let _ = writeln!(out, "{doc}");
    } else {
        for r in &results {
            let _ = writeln!(
                out,
                "{} ticks of the logic city ({} blocks, {} logic entities, {} pawns) at 64 Hz on {} thread(s): {:.1} ticks/s ({:.3} s; median of {}-tick batches {:.1})",
                options.ticks,
                options.blocks,
                city.logic_entities(),
                city.blocks.len(),
                r.workers,
                r.ticks_per_second,
                r.wall_s,
                BATCH,
                r.median_batch
            );
            let _ = writeln!(out, "{}", r.table);
        }
        let _ = writeln!(
            out,
            "workers  ticks/s   median    vs first  trace lines  trace digest      state digest"
        );
        for r in &results {
            let _ = writeln!(
                out,
                "{:>7}  {:>8.1}  {:>8.1}  {:>7.2}x  {:>11}  {:016x}  {:016x}",
                r.workers,
                r.ticks_per_second,
                r.median_batch,
                if base > 0.0 {
                    r.ticks_per_second / base
                } else {
                    0.0
                },
                r.trace_lines,
                r.trace_digest,
                r.state_digest
            );
        }
        let _ = writeln!(
            out,
            "{}",
            if identical {
                "every run ended in the same state with the same trace"
            } else {
                "the runs DIFFER: determinism is broken"
            }
        );
    }
    if !identical {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Option<Options>, String> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    #[test]
    fn parses_city() {
        let o = p(
            "city --blocks 16 --seed 0x10 --ticks=100 --warmup 0 --workers 1,2,4 --json --emit out",
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no options"));
        assert_eq!(
            o,
            Options {
                blocks: 16,
                seed: 16,
                ticks: 100,
                warmup: 0,
                workers: vec![1, 2, 4],
                json: true,
                emit: Some(PathBuf::from("out")),
            }
        );
        let d = p("city")
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("none"));
        assert_eq!(
            (d.blocks, d.ticks, d.warmup, d.workers),
            (256, 640, 64, vec![1, 2])
        );
        assert_eq!(p("help"), Ok(None));
        assert_eq!(p(""), Ok(None));
    }

    #[test]
    fn completions_for_each_shell() {
        use clap::CommandFactory;
        for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
            let args = vec!["completions".to_string(), shell.to_string()];
            let Ok(Grammar {
                command: Some(Command::Completions { shell }),
            }) = grammar(&args)
            else {
                panic!("{shell}: not a completions request");
            };
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Grammar::command(), "dh-bench", &mut script);
            assert!(String::from_utf8_lossy(&script).contains("city"), "{shell}");
        }
        assert!(p("completions tcsh").is_err());
    }

    #[test]
    fn usage_errors() {
        let e = |s: &str| p(s).err().unwrap_or_default();
        assert_eq!(e("city --blocks 0"), "--blocks takes at least 1");
        assert_eq!(
            e("city --ticks ten"),
            "--ticks takes a whole number, got 'ten'"
        );
        assert_eq!(
            e("city --workers 1,0"),
            "--workers takes counts of at least 1"
        );
        assert_eq!(e("city --seed"), "--seed needs a value");
        assert_eq!(e("city extra"), "city does not take 'extra'");
        assert_eq!(
            e("fly"),
            "unknown command 'fly'; the commands are city and help"
        );
    }

    #[test]
    fn city_has_help_and_mistypes_get_suggestions() {
        let args = |s: &str| -> Vec<String> { s.split_whitespace().map(String::from).collect() };
        assert_eq!(p("city --help"), Ok(None));
        assert!(help_text(&args("city --help")).contains("dh-bench city"));
        assert_eq!(help_text(&args("help")), USAGE);
        assert_eq!(
            p("city --tick 5").err().unwrap_or_default(),
            "city does not take '--tick'\n  tip: a similar argument exists: '--ticks'"
        );
    }
}
