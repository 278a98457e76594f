//! Shared helpers for the simulation tests: reading maps, the core crate object, and a fake
//! overlap source standing in for the physics world's pawns.
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::read::{parse_source, Mode};
use dh_content::schema::map::{read_map, Map};
use dh_sims::math::{Pose, SpecQuat, Vec3};
use dh_sims::{OverlapSource, PawnId, ResolvedObject, SimWorld, TickEvents};

/// The core pallet's folder.
pub fn core_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/core")
}

/// Reads a map source, failing the test on any error.
pub fn map_from(path: &str, text: &str) -> Map {
    let file = SourceFile::new(path, text);
    let mut diags = Diagnostics::new();
    let map = read_map(&file, &mut diags, Mode::Build).expect("the map parses");
    assert!(!diags.has_errors(), "{path}: {:?}", diags.items);
    map
}

/// The core logic demo.
pub fn logic_map() -> Map {
    let path = core_dir().join("maps/logic-map.dh-map");
    let text = std::fs::read_to_string(&path).expect("logic-map.dh-map is readable");
    map_from("maps/logic-map.dh-map", &text)
}

/// Resolves `/objects/physicsCube.dh-obj` (and its barcode) to the core crate.
pub fn core_resolver(source: &str) -> Option<ResolvedObject> {
    if !source.ends_with("objects/physicsCube.dh-obj") {
        return None;
    }
    let path = core_dir().join("objects/physicsCube.dh-obj");
    let text = std::fs::read_to_string(path).ok()?;
    let file = SourceFile::new("objects/physicsCube.dh-obj", text);
    let mut diags = Diagnostics::new();
    let value = parse_source(&file, &mut diags)?;
    Some(ResolvedObject::from_object_json(
        "core:objects/physicsCube.dh-obj",
        &value,
    ))
}

/// Installs the logic demo.
pub fn install_logic_map() -> SimWorld {
    SimWorld::install(&logic_map(), &core_resolver).expect("the logic map installs")
}

/// Installs a map written inline.
pub fn install_text(text: &str) -> SimWorld {
    SimWorld::install(&map_from("test.dh-map", text), &|_| None).expect("the map installs")
}

/// Pawns as capsules (radius 0.3 m, 1.8 m tall, standing on their feet) at set positions.
#[derive(Debug, Default)]
pub struct FakePawns {
    /// Behind a lock: a tick measures its plates and triggers from several threads.
    pub pawns: Mutex<Vec<(PawnId, Vec3)>>,
}

impl FakePawns {
    pub fn new() -> FakePawns {
        FakePawns::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(PawnId, Vec3)>> {
        self.pawns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts pawn `id` at `feet` (adding it if new).
    pub fn put(&self, id: u32, feet: impl Into<Vec3>) {
        let feet = feet.into();
        let mut p = self.lock();
        match p.iter_mut().find(|(q, _)| q.0 == id) {
            Some(slot) => slot.1 = feet,
            None => p.push((PawnId(id), feet)),
        }
    }

    /// Takes pawn `id` out of the world.
    pub fn remove(&self, id: u32) {
        self.lock().retain(|(q, _)| q.0 != id);
    }

    /// Applies a tick's teleports: each pawn stands at its event's destination.
    pub fn apply(&self, ev: &TickEvents) {
        for t in &ev.teleports {
            let feet = self
                .lock()
                .iter()
                .find(|(q, _)| *q == t.pawn)
                .map(|(_, f)| *f)
                .unwrap_or(Vec3::ZERO);
            let moved = t.apply(feet, 0.0, 0.0, Vec3::ZERO);
            self.put(t.pawn.0, moved.position);
        }
    }
}

const RADIUS: f32 = 0.3;
const HEIGHT: f32 = 1.8;

fn sphere_touches_box(center: Vec3, pose: &Pose, half: Vec3) -> bool {
    let local = pose.rotation.inverse().rotate(center - pose.position);
    let mut d2 = 0.0;
    for i in 0..3 {
        let out = (local[i].abs() - half[i]).max(0.0);
        d2 += out * out;
    }
    d2 <= RADIUS * RADIUS
}

impl OverlapSource for FakePawns {
    fn pawns_in_box(&self, pose: &Pose, half_extents: Vec3) -> Vec<PawnId> {
        self.lock()
            .iter()
            .filter(|(_, feet)| {
                // Sphere centers along the capsule's axis, every 5 cm.
                let steps = ((HEIGHT - 2.0 * RADIUS) / 0.05) as usize;
                (0..=steps).any(|k| {
                    let y = feet[1] + RADIUS + k as f32 * 0.05;
                    sphere_touches_box(Vec3::new(feet[0], y, feet[2]), pose, half_extents)
                })
            })
            .map(|(id, _)| *id)
            .collect()
    }
}

/// The trace lines of tick `tick`, as text.
pub fn lines_at(sim: &SimWorld, tick: u64) -> Vec<String> {
    sim.trace()
        .iter()
        .filter(|l| l.tick == tick)
        .map(|l| l.text.clone())
        .collect()
}

/// Every trace line, as `[tick] text`.
pub fn all_lines(sim: &SimWorld) -> Vec<String> {
    sim.trace().iter().map(|l| l.to_string()).collect()
}

/// The y of the record named `name`.
pub fn y_of(sim: &SimWorld, name: &str) -> f32 {
    sim.pose_of(name).expect("the record exists").position[1]
}

/// Asserts two floats agree to 1e-5.
pub fn assert_near(actual: f32, expected: f32, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-5,
        "{what}: expected {expected}, found {actual}"
    );
}
