//! The `dh-engine` command line: `run`, `bench`, `render` and `help`.

use std::path::PathBuf;

/// What `dh-engine help` prints.
pub const USAGE: &str = "\
dh-engine: the DigitalHeaven engine host (headless)

usage:
  dh-engine run [--pallet P]... --map M [--ticks N] [--script S] [--set name=value]...
                [--workers N] [--json] [--trace FILE] [--quiet]
  dh-engine bench [SCENE] [--pallet P]... [--ticks N] [--workers N] [--set name=value]...
                [--json] [--trace FILE] [--render WxH]
  dh-engine render OUTDIR [--pallet P]... --map M [--camera NAME|ID] [--size WxH]
                [--worldSeconds T] [--script S] [--gpuTimings] [--set name=value]...
                [--timeline FILE] [--captureMapThumbnails [--thumbnailPng PNG]
                [--thumbnailCamera NAME|ID]]
  dh-engine help [prefs|script]

run     installs map M and runs it at world.tickRate (64 Hz) with no clock: as fast as it
        goes. It runs --ticks N ticks, or until the script ends when a script is given and
        no --ticks, or 64 ticks when neither is. The logic trace prints as it happens
        (`[tick] doorButton fired onPressed -> slidingDoor.toggle`), then the frame timer.
bench   runs SCENE (default: the core logic-map, with scripted pawns pressing its buttons
        and riding its lift) for --ticks N ticks (default 6400) and prints the frame timer.
        SCENE is a map name, as for --map. --render WxH also extracts the world and renders
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

  --pallet P        mounts pallet file P beside the embedded core pallet
  --map M           a map: logic-map, maps/logic-map or core:maps/logic-map.dh-map
  --ticks N         how many ticks to run
  --script S        a script of console commands (`dh-engine help script`)
  --set name=value  sets a preference before the map installs (`dh-engine help prefs`)
  --workers N       threads for the job system, the main thread included (default: the
                    machine's cores)
  --json            prints the frame timer as JSON (the logic trace goes to stderr)
  --trace FILE      writes the frame timer's Chrome trace (opens in Perfetto)
  --quiet           does not print the logic trace

exit status: 0 done, 1 an `expect` failed or the run failed, 2 a usage error.
";

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
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cli {
    /// `run`.
    Run(RunOptions),
    /// `bench`.
    Bench(RunOptions),
    /// `render`.
    Render(crate::render_cmd::RenderOptions),
    /// `help [topic]`.
    Help(Option<String>),
}

fn value<'a>(
    flag: &str,
    it: &mut impl Iterator<Item = &'a String>,
) -> Result<&'a String, UsageError> {
    it.next()
        .ok_or_else(|| UsageError(format!("{flag} needs a value")))
}

fn count<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, UsageError> {
    v.parse::<T>()
        .map_err(|_| UsageError(format!("{flag} takes a whole number, got '{v}'")))
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Cli, UsageError> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Cli::Help(None));
    };
    let bench = match command.as_str() {
        "run" => false,
        "bench" => true,
        "render" => return crate::render_cmd::parse(rest).map(Cli::Render),
        "help" | "--help" | "-h" => {
            return match rest {
                [] => Ok(Cli::Help(None)),
                [topic] if topic == "prefs" || topic == "script" => {
                    Ok(Cli::Help(Some(topic.clone())))
                }
                [other, ..] => Err(UsageError(format!(
                    "help takes prefs or script, got '{other}'"
                ))),
            }
        }
        other => {
            return Err(UsageError(format!(
                "unknown command '{other}'; the commands are run, bench, render and help"
            )))
        }
    };
    let mut o = RunOptions::default();
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        // `--flag=value` reads as `--flag value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") && f != "--set" => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let take = |it: &mut std::slice::Iter<'_, String>| -> Result<String, UsageError> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(flag, it).cloned(),
            }
        };
        match flag {
            "--pallet" => o.pallets.push(PathBuf::from(take(&mut it)?)),
            "--map" if !bench => o.map = Some(take(&mut it)?),
            "--ticks" => o.ticks = Some(count("--ticks", &take(&mut it)?)?),
            "--script" if !bench => o.script = Some(PathBuf::from(take(&mut it)?)),
            "--set" => o.sets.push(take(&mut it)?),
            "--workers" => {
                let n: usize = count("--workers", &take(&mut it)?)?;
                if n == 0 {
                    return Err(UsageError("--workers takes at least 1".into()));
                }
                o.workers = Some(n);
            }
            "--json" => o.json = true,
            "--trace" => o.trace = Some(PathBuf::from(take(&mut it)?)),
            "--quiet" => o.quiet = true,
            "--render" if bench => {
                o.render = Some(crate::render_cmd::parse_size_flag(
                    "--render",
                    &take(&mut it)?,
                )?)
            }
            s if bench && !s.starts_with("--") && o.map.is_none() => o.map = Some(s.to_string()),
            s => {
                return Err(UsageError(format!(
                    "{} does not take '{s}'",
                    if bench { "bench" } else { "run" }
                )))
            }
        }
    }
    if bench {
        Ok(Cli::Bench(o))
    } else {
        if o.map.is_none() {
            return Err(UsageError("run needs --map M".into()));
        }
        Ok(Cli::Run(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Cli, UsageError> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        parse(&args)
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
            assert!(USAGE.contains(scene), "{scene} is in the help");
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
            "unknown command 'fly'; the commands are run, bench, render and help"
        );
        assert_eq!(e("help me"), "help takes prefs or script, got 'me'");
        assert_eq!(
            UsageError("x".into()).to_string(),
            "x\nrun `dh-engine help` for usage"
        );
    }
}
