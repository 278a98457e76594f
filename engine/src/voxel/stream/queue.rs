//! The one queue every streaming thread takes work from, and the threads themselves.
//!
//! A thread asking for work gets, in order: a volume to open; a volume's next light
//! slice (one light job per volume at a time); else the most urgent queued region as
//! the camera stands *now* (distance to its bounds, a region behind the camera weighed
//! up to `behindWeight` times farther), provided a `maxMeshes` slot is free and the
//! region is nearer than where `meshBudgetMb` ran out.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use dh_gpu::render::frame::MeshAsset;
use glam::DVec3;

use super::{CameraView, OpenVolume, RegionKey, StreamConfig, VolumeId, VolumeSpec};
use crate::voxel::place::box_distance;
use crate::voxel::VoxelLooks;

/// How urgent a region is for a camera: the distance to its bounds, times
/// `1 + (behind_weight - 1) · max(0, -cos θ)` where θ is the angle between the camera's
/// forward and the direction to the region's center, so a region straight behind the
/// camera counts `behind_weight` times farther than one the same distance ahead, one
/// beside it its distance alone. Lower is sooner.
pub fn urgency(camera: &CameraView, center: DVec3, half: DVec3, behind_weight: f32) -> f64 {
    let p = camera.position.as_dvec3();
    let d = box_distance(p, center, half);
    if d <= 0.0 {
        return 0.0;
    }
    let v = center - p;
    let vl = v.length();
    let f = camera.forward.as_dvec3();
    let fl = f.length();
    if vl <= 0.0 || fl <= 0.0 || !fl.is_finite() {
        return d;
    }
    let cos = v.dot(f) / (vl * fl);
    let w = 1.0 + (f64::from(behind_weight) - 1.0).max(0.0) * (-cos).max(0.0);
    d * w
}

/// A region waiting in the queue.
pub(crate) struct Pending {
    pub ticket: u64,
    pub volume: Arc<OpenVolume>,
    pub center: DVec3,
    pub half: DVec3,
}

/// A light slice waiting for a thread.
pub(crate) struct LightJob {
    pub ticket: u64,
    pub volume: Arc<OpenVolume>,
    /// Brick columns to light, most urgent first.
    pub columns: Vec<[i32; 2]>,
    /// Brick columns to forget first (no resident region needs them any more).
    pub forget: Vec<[i32; 2]>,
    /// `client.voxel.lightSliceMs`.
    pub slice: std::time::Duration,
}

/// Work a thread runs.
pub(crate) enum Task {
    Open {
        id: VolumeId,
        ticket: u64,
        spec: Arc<VolumeSpec>,
        config: StreamConfig,
        looks: Option<Arc<VoxelLooks>>,
    },
    Mesh {
        key: RegionKey,
        ticket: u64,
        volume: Arc<OpenVolume>,
    },
    Light {
        id: VolumeId,
        job: LightJob,
    },
}

/// What a thread finished.
pub(crate) enum Done {
    Opened {
        id: VolumeId,
        ticket: u64,
        result: Result<Arc<OpenVolume>, String>,
    },
    Meshed {
        key: RegionKey,
        ticket: u64,
        asset: Option<Arc<MeshAsset>>,
    },
    Lit {
        id: VolumeId,
        ticket: u64,
        /// Columns asked for that are lit now.
        lit: Vec<[i32; 2]>,
        /// Columns asked for that are still not lit (the slice or the budget ran out).
        left: Vec<[i32; 2]>,
        /// Columns forgotten.
        forgot: Vec<[i32; 2]>,
        /// Bytes the field holds.
        bytes: usize,
    },
}

/// A volume waiting to be opened.
pub(crate) struct OpenJob {
    pub id: VolumeId,
    pub ticket: u64,
    pub spec: Arc<VolumeSpec>,
    pub config: StreamConfig,
    pub looks: Option<Arc<VoxelLooks>>,
}

/// The state every thread shares, behind one lock.
pub(crate) struct Queue {
    pub camera: CameraView,
    /// Each volume's stand-in camera when a capture names none (its origin).
    pub focus: HashMap<VolumeId, CameraView>,
    pub opens: VecDeque<OpenJob>,
    pub pending: HashMap<RegionKey, Pending>,
    pub lights: Vec<(VolumeId, LightJob)>,
    pub lights_running: HashSet<VolumeId>,
    /// Regions taken by a thread whose result the frame has not taken in yet.
    pub meshing: usize,
    /// Regions resident (drawing something).
    pub resident: usize,
    pub max_meshes: usize,
    /// Where `meshBudgetMb` ran out: nothing at or past this distance is taken.
    pub horizon: Option<f64>,
    pub behind_weight: f32,
    pub shutdown: bool,
    pub done: Vec<Done>,
    /// The queued regions by urgency for the camera as it last stood: (urgency,
    /// distance, key), most urgent first, rebuilt when the camera, a focus, the weight or
    /// the queue's contents change; entries no longer queued are skipped.
    order: Vec<(f64, f64, RegionKey)>,
    order_valid: bool,
    /// Entries before it were taken or unloaded.
    head: usize,
}

impl Queue {
    pub fn new(max_meshes: usize, behind_weight: f32) -> Queue {
        Queue {
            camera: CameraView::default(),
            focus: HashMap::new(),
            opens: VecDeque::new(),
            pending: HashMap::new(),
            lights: Vec::new(),
            lights_running: HashSet::new(),
            meshing: 0,
            resident: 0,
            max_meshes,
            horizon: None,
            behind_weight,
            shutdown: false,
            done: Vec::new(),
            order: Vec::new(),
            order_valid: false,
            head: 0,
        }
    }

    /// The urgent order must be rebuilt (the camera moved, regions were queued).
    pub fn invalidate(&mut self) {
        self.order_valid = false;
    }

    fn rebuild(&mut self) {
        let mut order: Vec<(f64, f64, RegionKey)> = self
            .pending
            .iter()
            .map(|(key, p)| {
                let cam = self.camera_for(key.0);
                let d = box_distance(cam.position.as_dvec3(), p.center, p.half);
                let u = urgency(cam, p.center, p.half, self.behind_weight);
                (u, d, *key)
            })
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
        self.order = order;
        self.order_valid = true;
        self.head = 0;
    }

    fn camera_for(&self, id: VolumeId) -> &CameraView {
        self.focus.get(&id).unwrap_or(&self.camera)
    }

    /// The most urgent queued region a thread may take now, if any.
    pub fn best_region(&mut self) -> Option<RegionKey> {
        if self.meshing + self.resident >= self.max_meshes || self.pending.is_empty() {
            return None;
        }
        if !self.order_valid {
            self.rebuild();
        }
        while let Some(&(_, _, k)) = self.order.get(self.head) {
            if self.pending.contains_key(&k) {
                break;
            }
            self.head += 1;
        }
        let rest = self.order.get(self.head..).unwrap_or_default();
        rest.iter()
            .find(|(_, d, k)| self.pending.contains_key(k) && self.horizon.is_none_or(|h| *d < h))
            .map(|&(_, _, k)| k)
    }

    fn light_ready(&self) -> Option<usize> {
        self.lights
            .iter()
            .position(|(id, _)| !self.lights_running.contains(id))
    }

    /// Whether a thread asking now would get something.
    pub fn ready(&mut self) -> bool {
        !self.shutdown
            && (!self.opens.is_empty()
                || self.light_ready().is_some()
                || self.best_region().is_some())
    }

    /// Takes the next task.
    pub fn take(&mut self) -> Option<Task> {
        if self.shutdown {
            return None;
        }
        if let Some(o) = self.opens.pop_front() {
            return Some(Task::Open {
                id: o.id,
                ticket: o.ticket,
                spec: o.spec,
                config: o.config,
                looks: o.looks,
            });
        }
        if let Some(i) = self.light_ready() {
            let (id, job) = self.lights.swap_remove(i);
            self.lights_running.insert(id);
            return Some(Task::Light { id, job });
        }
        let key = self.best_region()?;
        let p = self.pending.remove(&key)?;
        self.meshing += 1;
        Some(Task::Mesh {
            key,
            ticket: p.ticket,
            volume: p.volume,
        })
    }
}

/// The queue and its two signals: work may be ready (threads wait on it), work finished
/// (a capture waits on it).
pub(crate) struct Shared {
    pub queue: Mutex<Queue>,
    pub work: Condvar,
    pub finished: Condvar,
}

impl Shared {
    pub fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one task, runs it on the calling thread and posts its result; false when
    /// there was nothing to take.
    pub fn run_one(&self, run: fn(Task) -> Done) -> bool {
        let Some(task) = self.lock().take() else {
            return false;
        };
        let done = run(task);
        self.lock().done.push(done);
        self.finished.notify_all();
        true
    }
}

/// The streaming threads' driver: a thread of its own that owns a scheduler of
/// `workers` threads (itself included) and, whenever the queue has work, runs `workers`
/// background-lane jobs, each taking tasks until none is left.
pub(crate) fn drive(shared: Arc<Shared>, workers: usize, run: fn(Task) -> Done) {
    let scheduler = dh_jobs::Scheduler::new(workers.max(1)).ok();
    loop {
        {
            let mut q = shared.lock();
            while !q.shutdown && !q.ready() {
                q = shared.work.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
            if q.shutdown {
                return;
            }
        }
        match &scheduler {
            Some(s) => s.scope(|scope| {
                for _ in 0..workers.max(1) {
                    let shared = &shared;
                    scope.spawn_in(
                        dh_jobs::Lane::Background,
                        move |_| {
                            while shared.run_one(run) {}
                        },
                    );
                }
            }),
            // No scheduler (its threads could not start): this thread does the work.
            None => while shared.run_one(run) {},
        }
    }
}
