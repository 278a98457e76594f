//! The render city on the renderer's CPU side: extraction, and recording a frame's passes
//! on 1 and 2 workers (draw calls per ms). `cargo bench -p dh-bench --bench render`, or
//! `... -- --side N --frames F --size WxH` (defaults 16, 64, 640x360). `--quick` is a
//! smoke run (side 4, 4 frames). A plain harness (it prints a table): lavapipe renders
//! on the same cores while the CPU records, so figures taken there are smoke figures, and
//! its GPU pass times are CPU time.

use dh_bench::render_city::{install, measure, RenderCity, DEFAULT_SEED, DEFAULT_SIDE};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut side = DEFAULT_SIDE;
    let mut frames = 64;
    let mut size = [640, 360];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| -> String {
            match it.next() {
                Some(v) => v.clone(),
                None => {
                    eprintln!("render: {flag} needs a value");
                    std::process::exit(2);
                }
            }
        };
        let number = |flag: &str, v: String| -> usize {
            v.parse().unwrap_or_else(|_| {
                eprintln!("render: {flag} takes a whole number, got '{v}'");
                std::process::exit(2);
            })
        };
        match a.as_str() {
            "--side" => side = number("--side", value("--side")),
            "--frames" => frames = number("--frames", value("--frames")),
            "--size" => {
                let v = value("--size");
                let parsed = v
                    .split_once('x')
                    .and_then(|(w, h)| Some([w.parse().ok()?, h.parse().ok()?]));
                size = parsed.unwrap_or_else(|| {
                    eprintln!("render: --size takes WxH, got '{v}'");
                    std::process::exit(2);
                });
            }
            "--quick" => {
                side = 4;
                frames = 4;
            }
            // cargo bench passes --bench; anything else a harness might get is ignored.
            _ => {}
        }
    }
    let city = match RenderCity::generate(side, DEFAULT_SEED) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("render: {e}");
            std::process::exit(1);
        }
    };
    let result = install(&city).and_then(|i| measure(&i, frames, size, &[1, 2], 2));
    match result {
        Ok(f) => {
            println!(
                "render city: {side} x {side} blocks, {frames} frames at {}x{}",
                size[0], size[1]
            );
            print!("{}", f.to_table());
        }
        Err(e) => {
            eprintln!("render: {e}");
            std::process::exit(1);
        }
    }
}
