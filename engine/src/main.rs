//! `dh-engine`: the engine host binary (`run`, `bench`, `render`, `light-check`, `help`, `completions`).
use mimalloc::MiMalloc;

use dh_engine::cli::{self, Cli};
use dh_engine::{light_check, prefs, render_cmd, run, script};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::parse(&args) {
        Err(e) => {
            eprintln!("dh-engine: {e}");
            2
        }
        Ok(Cli::Help(None)) => {
            print!("{}", cli::usage());
            0
        }
        Ok(Cli::Help(Some(topic))) => {
            if topic == "prefs" {
                print!("{}", prefs::help_text());
            } else {
                print!("{}", script::HELP);
            }
            0
        }
        Ok(Cli::HelpText(text)) => {
            print!("{text}");
            0
        }
        Ok(Cli::Completions(shell)) => {
            clap_complete::generate(
                shell,
                &mut cli::command(),
                "dh-engine",
                &mut std::io::stdout(),
            );
            0
        }
        Ok(Cli::Run(o)) => {
            run::run(&o, false, &mut std::io::stdout(), &mut std::io::stderr()).code()
        }
        Ok(Cli::Render(o)) => {
            render_cmd::render(&o, &mut std::io::stdout(), &mut std::io::stderr()).code()
        }
        Ok(Cli::Bench(mut o)) => {
            use std::io::IsTerminal;
            o.progress = std::io::stderr().is_terminal();
            run::run(&o, true, &mut std::io::stdout(), &mut std::io::stderr()).code()
        }
        Ok(Cli::LightCheck(source)) => match light_check::check_save(&source) {
            Ok(report) => {
                print!("{report}");
                0
            }
            Err(e) => {
                eprintln!("dh-engine light-check: {e}");
                1
            }
        },
    };
    std::process::exit(code);
}
