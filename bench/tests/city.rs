//! The logic city through the engine host: it compiles and installs, its wiring fires as
//! bench/src/city.rs describes it (expected lines written by hand from that description and
//! the spec's timings), and its trace and end state do not depend on the thread count.

use dh_bench::city::{City, CityOptions, CYCLE_TICKS, LOGIC_PER_BLOCK};
use dh_bench::harness::{CityRun, HarnessOptions};

fn city(blocks: usize, seed: u64) -> City {
    City::generate(&CityOptions { blocks, seed }).unwrap_or_else(|e| panic!("{e}"))
}

fn start(city: &City, workers: usize) -> CityRun<'_> {
    CityRun::start(
        city,
        HarnessOptions {
            workers,
            keep_trace: true,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_city_installs_with_every_block_in_it() {
    let c = city(9, 5);
    let run = start(&c, 1);
    let state = run.state();
    // Per block: door, lift and fan move; lightA, lightB, lightC and liftLamp; plate and
    // liftPlate; one pawn.
    assert_eq!(state.movers.len(), 27);
    assert_eq!(state.lights.len(), 36);
    assert_eq!(state.plates.len(), 18);
    assert_eq!(state.pawns.len(), 9);
    // Only lightC (the not gate's: its output starts true) starts lit.
    assert_eq!(state.lights.iter().filter(|&&on| on).count(), 9);
    assert_eq!(c.logic_entities(), 9 * LOGIC_PER_BLOCK);
    assert_eq!(run.host().sim().records().len(), c.records());
    // Block 4 is the middle of the 3 × 3 grid: its pawn stands on the origin.
    let feet = state.pawns[4].feet;
    assert!(feet[0].abs() < 1e-3 && feet[2].abs() < 1e-3, "{feet:?}");
}

#[test]
fn one_block_fires_as_wired() {
    let c = city(1, 11);
    let b = c.blocks[0];
    // The pawn presses Use on the tick its program's step is 0.
    let pressed = (CYCLE_TICKS - b.phase) % CYCLE_TICKS;
    let timer_ticks = (f64::from(b.timer_seconds) * 64.0).round() as u64;
    let mut run = start(&c, 1);
    run.run(pressed + 200).unwrap_or_else(|e| panic!("{e}"));
    let trace = run.trace().to_vec();
    let has = |line: &str| trace.iter().any(|l| l == line);

    assert_eq!(trace[0], "[0] b0_start fired onMapStart -> b0_fan.open");
    // The door, pressed on tick P, is fully open 64 ticks (1 s) later.
    assert!(
        has(&format!(
            "[{pressed}] b0_button fired onPressed -> b0_door.toggle"
        )),
        "{trace:#?}"
    );
    assert!(
        has(&format!(
            "[{}] b0_door fired onOpened -> b0_and.setB(true)",
            pressed + 64
        )),
        "{trace:#?}"
    );

    // The first strafe crosses the plate: its start-touch tick, and what follows in order.
    let touch = trace
        .iter()
        .position(|l| l.ends_with("b0_plate fired onStartTouch -> b0_timer.fire"))
        .unwrap_or_else(|| panic!("the plate never fired:\n{trace:#?}"));
    let t = &trace[touch][..trace[touch].find(']').map_or(0, |i| i + 1)];
    let want = [
        format!("{t} b0_plate fired onStartTouch -> b0_timer.fire"),
        format!("{t} b0_plate fired onStartTouch -> b0_or.setA(true)"),
        format!("{t} b0_or fired onTrue -> b0_lightB.turnOn"),
        // One block: the ring's next block is itself.
        format!("{t} b0_or fired onTrue -> b0_timer.fire"),
        format!("{t} b0_plate fired onStartTouch -> b0_not.setA(true)"),
        format!("{t} b0_not fired onFalse -> b0_lightC.turnOff"),
    ];
    assert_eq!(&trace[touch..touch + want.len()], &want[..]);
    // Both fires of the timer come due `delaySeconds` later, each on its own.
    let tick: u64 = t
        .trim_matches(|c| c == '[' || c == ']')
        .parse()
        .unwrap_or_else(|e| panic!("{t}: {e}"));
    let fired = format!(
        "[{}] b0_timer fired onTimer -> b0_and.setA(true)",
        tick + timer_ticks
    );
    assert_eq!(
        trace.iter().filter(|l| **l == fired).count(),
        2,
        "{fired}\n{trace:#?}"
    );
}

#[test]
fn the_trace_and_end_state_are_the_same_on_one_and_two_workers() {
    let c = city(16, 3);
    let mut one = start(&c, 1);
    let mut two = start(&c, 2);
    one.run(400).unwrap_or_else(|e| panic!("{e}"));
    two.run(400).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        one.trace().len() > 100,
        "a busy city: {} lines",
        one.trace().len()
    );
    assert_eq!(one.trace(), two.trace());
    let (a, b) = (one.state(), two.state());
    assert_eq!(a.tick, 400);
    assert_eq!(a, b);
    assert_eq!(a.digest(), b.digest());
    assert_eq!(one.trace_digest(), two.trace_digest());
}
