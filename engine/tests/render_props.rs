//! Extraction draws a physics prop where the solver carried it and turned as the solver
//! turned it: the logic-map's `crateDropped` starts 3 m up, tilted (25, 40, 15 degrees), and
//! falls; once it has landed, its live box carries the body's rotation, not the authored tilt.

mod support;

use dh_engine::catalog::Catalog;
use dh_engine::extract;
use dh_engine::host::{Host, HostOptions};
use dh_jobs::{FrameTimer, Scheduler};
use dh_sims::Name;
use support::angle;

#[test]
fn a_fallen_prop_is_drawn_at_the_solvers_rotation() {
    let mut host = Host::start(&HostOptions {
        map: "logic-map".into(),
        ..HostOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let crate_e = host
        .sim()
        .records()
        .iter()
        .copied()
        .find(|&e| {
            host.sim()
                .get::<Name>(e)
                .is_some_and(|n| n.0 == "crateDropped")
        })
        .unwrap_or_else(|| panic!("no crateDropped"));
    let authored = host
        .sim()
        .world_pose(crate_e)
        .unwrap_or_else(|| panic!("no pose"))
        .rotation
        .to_array();
    let at_start = host
        .prop_pose(crate_e)
        .unwrap_or_else(|| panic!("crateDropped is a physics prop"));
    assert!(
        angle(at_start.rotation.to_array(), authored) < 0.5,
        "the body starts as authored"
    );
    let scheduler = Scheduler::new(1).unwrap_or_else(|e| panic!("{e}"));
    let timer = FrameTimer::new();
    for _ in 0..192 {
        host.step(None, &scheduler, &timer)
            .unwrap_or_else(|e| panic!("{e}"));
        timer.end_frame();
    }
    let body = host
        .prop_pose(crate_e)
        .unwrap_or_else(|| panic!("still a prop"));
    assert!(body.position[1] < 1.0, "it fell: {:?}", body.position);
    assert!(
        angle(body.rotation.to_array(), authored) > 5.0,
        "it landed turned away from its tilt"
    );
    let catalog = Catalog::with_core().unwrap_or_else(|e| panic!("{e}"));
    let (_, map) = catalog
        .load_map("logic-map")
        .unwrap_or_else(|e| panic!("{e}"));
    let x = extract::extract(&host, &catalog, &map);
    let drawn = x
        .frame
        .live_boxes
        .iter()
        .find(|b| (0..3).all(|k| (b.position[k] - body.position[k]).abs() < 1e-4))
        .unwrap_or_else(|| panic!("no live box at the body's position {:?}", body.position));
    assert!(
        angle(drawn.rotation.to_array(), body.rotation.to_array()) < 0.01,
        "drawn {:?}, body {:?}",
        drawn.rotation,
        body.rotation
    );
}
