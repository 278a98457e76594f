//! `dh-engine`: the engine host binary.
use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() {
    eprintln!("dh-engine: not yet runnable");
    std::process::exit(2);
}
