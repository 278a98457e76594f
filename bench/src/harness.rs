//! Runs a [`City`] through the engine host: the city's pallet is built by the real
//! compiler, mounted beside the core pallet like any `--pallet` file, installed by
//! [`Host::start`], and ticked by [`Host::step`] on a dh-jobs [`Scheduler`] of the asked
//! number of threads, with the frame timer around every tick.
//!
//! The per-tick data-parallel passes (mover integration, the carry resolver, world
//! transforms, the plate and trigger overlap measurements, the pawns' moves) run through the
//! host's own [`dh_engine::host::JobsParallel`] adapter (sims' `Parallel` over
//! `Scheduler::parallel_for_mut`); events apply in the one serial order, so the trace and the
//! end state do not depend on the thread count (`tests/city.rs`).
//!
//! Each tick: the pawn program's commands for this tick go to the host as the script's
//! verbs would (`use`, `move`), timed as the `pawns` scope; then [`Host::step`] (`input`,
//! `logic`, `physics`, `teleports`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dh_engine::host::{Host, HostError, HostOptions};
use dh_engine::script::ScriptHost;
use dh_jobs::{FrameTimer, FrameTimerConfig, Scheduler, TimerReport};
use dh_sims::{Light, Mover, Pose, PressurePlate, Vec3};

use crate::city::{pawn_name, City, CityError, PawnCommand, TempDir};

/// The pawns' facing: yaw 180 (toward +Z, the button) and pitch -30 (down at it).
pub const PAWN_YAW: f32 = 180.0;
/// See [`PAWN_YAW`].
pub const PAWN_PITCH: f32 = -30.0;

/// Why a city run could not start or a tick failed.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The city could not be generated or built.
    #[error(transparent)]
    City(#[from] CityError),
    /// The pallet file could not be written.
    #[error("cannot write the city's pallet to {path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The host refused the map or a tick failed.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The job system did not start.
    #[error("jobs: {0}")]
    Jobs(String),
    /// A pawn command was refused.
    #[error("{pawn}: {message}")]
    Pawn {
        /// The pawn.
        pawn: String,
        /// Why.
        message: String,
    },
}

/// How a run is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessOptions {
    /// Threads for the job system, the calling thread included (at least 1).
    pub workers: usize,
    /// Keep every trace line (the determinism test); otherwise only their count and a hash.
    pub keep_trace: bool,
}

/// A pawn's state at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PawnEnd {
    /// Its feet.
    pub feet: Vec3,
    /// Its velocity.
    pub velocity: Vec3,
    /// Whether it stood on something.
    pub grounded: bool,
}

/// The city's state at a tick, for comparing runs: every record's pose, every mover, every
/// light's switch, every plate's occupants, every pawn (each in author or id order).
#[derive(Debug, Clone, PartialEq)]
pub struct CityState {
    /// The next tick.
    pub tick: u64,
    /// Every record's world pose, in author order (`None`: no transform).
    pub poses: Vec<Option<Pose>>,
    /// Every mover, in author order.
    pub movers: Vec<Mover>,
    /// Every light's `on`, in author order.
    pub lights: Vec<bool>,
    /// Every plate's occupants (pawn ids), in author order.
    pub plates: Vec<Vec<u32>>,
    /// Every pawn, in id order.
    pub pawns: Vec<PawnEnd>,
    /// Delayed runs and timer fires waiting.
    pub scheduled: usize,
}

impl CityState {
    /// A 64-bit FNV-1a digest of the whole state (float bits, so any difference shows).
    pub fn digest(&self) -> u64 {
        let mut h = Fnv::new();
        h.u64(self.tick);
        for p in &self.poses {
            match p {
                Some(p) => {
                    h.floats(&p.position.to_array());
                    h.floats(&p.rotation.to_array());
                    h.floats(&p.scale.to_array());
                }
                None => h.u64(u64::MAX),
            }
        }
        for m in &self.movers {
            h.u64(m.state.progress.to_bits());
            h.u64(m.state.speed.to_bits());
            h.u64(u64::from(m.state.moving));
            h.u64(m.state.heading as u64);
        }
        for &l in &self.lights {
            h.u64(u64::from(l));
        }
        for p in &self.plates {
            h.u64(p.len() as u64);
            for &id in p {
                h.u64(u64::from(id));
            }
        }
        for p in &self.pawns {
            h.floats(&p.feet.to_array());
            h.floats(&p.velocity.to_array());
            h.u64(u64::from(p.grounded));
        }
        h.u64(self.scheduled as u64);
        h.0
    }
}

/// FNV-1a, 64 bits.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
    /// The offset basis.
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Hashes a number's little-endian bytes.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    fn floats(&mut self, v: &[f32]) {
        for f in v {
            self.bytes(&f.to_bits().to_le_bytes());
        }
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

/// A city installed in a host, with its scheduler and frame timer.
pub struct CityRun<'c> {
    city: &'c City,
    host: Host,
    scheduler: Scheduler,
    timer: FrameTimer,
    workers: usize,
    keep_trace: bool,
    trace: Vec<String>,
    trace_lines: u64,
    trace_hash: Fnv,
    /// Keeps the pallet file until the run ends.
    _dir: TempDir,
}

impl std::fmt::Debug for CityRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CityRun")
            .field("blocks", &self.city.blocks.len())
            .field("workers", &self.workers)
            .field("tick", &self.host.tick())
            .finish()
    }
}

/// What [`CityRun::run`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Ticks run.
    pub ticks: u64,
    /// Wall time of the ticks (pawn commands, logic, physics), setup excluded.
    pub wall: Duration,
}

impl Timing {
    /// Ticks a second.
    pub fn ticks_per_second(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.ticks as f64 / s
        } else {
            0.0
        }
    }
}

impl<'c> CityRun<'c> {
    /// Builds the city's pallet, starts a host on it with `options.workers` threads and
    /// spawns one pawn per block at its origin, facing its button.
    pub fn start(city: &'c City, options: HarnessOptions) -> Result<CityRun<'c>, HarnessError> {
        let dir = TempDir::new("city").map_err(|e| HarnessError::Write {
            path: std::env::temp_dir().display().to_string(),
            message: e.to_string(),
        })?;
        let bytes = city.compile_in(&dir.path().join("src"))?;
        let pallet: PathBuf = dir.path().join("city.pallet");
        std::fs::write(&pallet, bytes).map_err(|e| HarnessError::Write {
            path: pallet.display().to_string(),
            message: e.to_string(),
        })?;
        let mut host = Host::start(&HostOptions {
            map: city.map_barcode(),
            pallets: vec![pallet],
            sets: Vec::new(),
        })?;
        for (i, b) in city.blocks.iter().enumerate() {
            let name = pawn_name(i);
            let pawn = |message| HarnessError::Pawn {
                pawn: name.clone(),
                message,
            };
            host.spawn(&name, Some(Vec3::from_array(b.origin)), Some(PAWN_YAW))
                .map_err(pawn)?;
            host.turn(&name, PAWN_YAW, Some(PAWN_PITCH)).map_err(pawn)?;
        }
        let workers = options.workers.max(1);
        let scheduler = Scheduler::new(workers).map_err(|e| HarnessError::Jobs(e.to_string()))?;
        let _ = scheduler.take_stats();
        let timer = FrameTimer::with_config(FrameTimerConfig {
            // Every tick of a benchmark run in the window; no Chrome trace frames.
            window: 100_000,
            trace_frames: 0,
            ..FrameTimerConfig::default()
        });
        Ok(CityRun {
            city,
            host,
            scheduler,
            timer,
            workers,
            keep_trace: options.keep_trace,
            trace: Vec::new(),
            trace_lines: 0,
            trace_hash: Fnv::new(),
            _dir: dir,
        })
    }

    /// The host.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// Threads in the job system.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs one tick: the pawn program's commands, then the host's tick.
    pub fn step(&mut self) -> Result<(), HarnessError> {
        let tick = self.host.tick();
        // The frame is this tick alone: its wall time is measured here, and the scheduler's
        // figures start here, so time spent between ticks (another run's turn) counts in
        // neither.
        let started = Instant::now();
        let _ = self.scheduler.take_stats();
        {
            let _s = self.timer.scope("pawns");
            for c in self.city.pawn_commands(tick) {
                let (block, result) = match c {
                    PawnCommand::Use { block } => (block, self.host.use_key(&pawn_name(block))),
                    PawnCommand::Strafe {
                        block,
                        right,
                        ticks,
                    } => (
                        block,
                        self.host
                            .move_pawn(&pawn_name(block), 0.0, right, Some(ticks)),
                    ),
                };
                result.map_err(|message| HarnessError::Pawn {
                    pawn: pawn_name(block),
                    message,
                })?;
            }
        }
        let lines = self.host.step(None, &self.scheduler, &self.timer);
        self.timer.record_job_stats(&self.scheduler.take_stats());
        self.timer.end_frame_with_duration(started.elapsed());
        for l in lines? {
            let text = l.to_string();
            self.trace_lines += 1;
            self.trace_hash.bytes(text.as_bytes());
            self.trace_hash.bytes(b"\n");
            if self.keep_trace {
                self.trace.push(text);
            }
        }
        Ok(())
    }

    /// Runs `ticks` ticks and times them.
    pub fn run(&mut self, ticks: u64) -> Result<Timing, HarnessError> {
        let start = Instant::now();
        for _ in 0..ticks {
            self.step()?;
        }
        Ok(Timing {
            ticks,
            wall: start.elapsed(),
        })
    }

    /// The trace lines kept (with [`HarnessOptions::keep_trace`]).
    pub fn trace(&self) -> &[String] {
        &self.trace
    }

    /// Trace lines so far and their FNV-1a digest.
    pub fn trace_digest(&self) -> (u64, u64) {
        (self.trace_lines, self.trace_hash.0)
    }

    /// The frame timer's report over every tick so far.
    pub fn report(&self) -> TimerReport {
        self.timer.report()
    }

    /// Forgets the frame timer's frames so far (after a warm-up).
    pub fn reset_timer(&mut self) {
        self.timer = FrameTimer::with_config(self.timer.config().clone());
        let _ = self.scheduler.take_stats();
    }

    /// The city's state now.
    pub fn state(&self) -> CityState {
        let sim = self.host.sim();
        let records = sim.records();
        let physics = self.host.physics();
        CityState {
            tick: self.host.tick(),
            poses: records.iter().map(|&e| sim.world_pose(e)).collect(),
            movers: records
                .iter()
                .filter_map(|&e| sim.get::<Mover>(e))
                .collect(),
            lights: records
                .iter()
                .filter_map(|&e| sim.get::<Light>(e).map(|l| l.on))
                .collect(),
            plates: records
                .iter()
                .filter_map(|&e| {
                    sim.get::<PressurePlate>(e)
                        .map(|p| p.occupants.iter().map(|id| id.0).collect())
                })
                .collect(),
            pawns: physics
                .pawn_ids()
                .into_iter()
                .filter_map(|id| physics.pawn_state(id).ok())
                .map(|s| PawnEnd {
                    feet: s.feet,
                    velocity: s.velocity,
                    grounded: s.grounded,
                })
                .collect(),
            scheduled: sim.scheduled_count(),
        }
    }
}
