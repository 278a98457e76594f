//! Drawing the map's voxel volumes (spec `dh.voxel`: "Placing it in a map", "How the
//! engine draws it" and its streaming paragraphs, "Lighting modes", "Hybrid shading";
//! runtime assets, "Voxel volumes").
//!
//! [`VoxelDraw`] is the glue between the host's placed volumes and the renderer:
//!
//! * **The map's volumes** — [`VoxelDraw::sync`] adds one streamed volume per shown grid
//!   of every placed `dh.voxelVolume` ([`Host::voxel_volumes`]) to its one
//!   [`VoxelStreamer`]: its payload read by range from the mounted pallet under
//!   `client.voxel.cellCacheMb`, its looks resolved on a streaming thread when it opens,
//!   lit as the placement's, else the definition's, else the platform's `lighting`
//!   resolves ([`resolve_lighting`]). A host running another map (a map swap)
//!   starts the streamer over with [`VoxelStreamer::new_map`].
//! * **Live frames** — [`VoxelDraw::frame`] marks each volume whose record is in the world
//!   drawn, updates the streamer with the view's camera (it never waits on a thread) and
//!   joins the frame: each open volume's two materials, one [`MeshInstance`] per resident
//!   region of a volume drawn this frame, the static generation stamped again
//!   ([`crate::extract::stamp_voxel_materials`]) and the light window.
//! * **Captures** — [`VoxelDraw::capture`] streams within `client.voxel.captureRadius`
//!   around the capture's camera (outward from each volume's origin without one) and lands
//!   everything in range, meshed and lit, before it joins the frame; the renderer's
//!   capture path then uploads every mesh, skipping only the per-frame upload budget.
//! * **Hybrid shading** — the lit volume nearest the camera hands the renderer a window of
//!   [`WINDOW_BRICKS`] light bricks around the camera in the grid's light space
//!   ([`VoxelLightWindow`]), its tables from `client.voxel.lightBrightness` and
//!   `client.voxel.blockLightTint`, and `client.voxel.occlusionStep`,
//!   `client.voxel.blockLightIntensity` and `client.voxel.lightEdgeFade`; it shades that
//!   volume's instances. The window's cells are read again only when the window moves or
//!   the field changes, and each brick carries its content hash as its version, so the
//!   renderer (which keeps the window resident) writes only the bricks whose light
//!   changed, `client.voxel.lightUploadKb` of them a frame.
//!
//! [`MeshInstance`]: dh_gpu::render::frame::MeshInstance

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use dh_content::schema::components::voxel_volume::VoxelLighting;
use dh_content::schema::voxel::{platform_defaults, MINECRAFT};
use dh_content::voxel::payload::UpAxis;
use dh_gpu::render::frame::{RenderFrame, View, VoxelLightWindow, LIGHT_BRICK, LIGHT_BRICK_CELLS};
use dh_gpu::render::light_window::{brick_hash, DEFAULT_LIGHT_UPLOAD_KB};
use dh_gpu::render::math::rotate;
use glam::{DMat4, DVec3, IVec3, Mat4, Vec3};

use super::stream::{
    CameraView, LookInputs, SharedLooks, StreamConfig, StreamStats, StreamVolume, VolumeId,
    VolumeSource, VoxelStreamer,
};
use super::volume::OpenedVolume;
use super::{
    resolve_lighting, BlockLightTable, FluidTable, PaletteCache, PalletLight, Placement,
    PlatformBlocks,
};
use crate::host::Host;
use crate::prefs::Prefs;

/// Bricks (16³ cells each) along x, y and z of the light window around the camera: 64
/// cells each way across, 32 up and down.
pub const WINDOW_BRICKS: [u32; 3] = [4, 2, 4];

/// What a cell of the window reads where the field has no lit column: open sky and no
/// block light, which shades as DH's own lighting.
pub const UNLIT: u16 = 15 << 12;

/// One streamed grid of a placed volume.
#[derive(Debug, Clone)]
struct Drawn {
    /// The volume's index in [`Host::voxel_volumes`].
    record: usize,
    /// Its id in the streamer.
    id: VolumeId,
    /// Whether a light field is computed (and the window may shade it).
    lit: bool,
    /// Cells to meters.
    placement: Placement,
    /// Meters to cells (light space: the grid is Y up when lit).
    to_cells: Placement,
    /// The cells it holds, `[min, max)`.
    cells: [[i32; 3]; 2],
}

/// What the window's cells were read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WindowKey {
    id: VolumeId,
    origin: [i32; 3],
    columns: usize,
    bytes: usize,
}

#[derive(Debug, Clone)]
struct WindowCache {
    key: WindowKey,
    cells: Vec<u16>,
    /// Each brick's content hash ([`brick_hash`]): the version the renderer compares with
    /// what the GPU holds, so it writes only the bricks whose light changed.
    versions: Vec<u64>,
    /// Every cell of a lit column read (none was held by a light job).
    complete: bool,
}

/// What one frame (or capture) joined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// What the streamer holds after this frame's update.
    pub stream: StreamStats,
    /// Volumes (grids) the streamer holds for the map.
    pub volumes: usize,
    /// Region mesh instances joined to the frame.
    pub instances: usize,
    /// Materials joined to the frame (two per open volume).
    pub materials: usize,
    /// Instances the light window shades (0: no window).
    pub lit_instances: usize,
    /// Whether the window's cells were read again this frame.
    pub window_read: bool,
}

/// The renderer's voxel volumes for one map at a time (see the module docs).
pub struct VoxelDraw {
    streamer: VoxelStreamer,
    config: StreamConfig,
    /// The host's volumes the streamer was filled from.
    volumes: Vec<Arc<OpenedVolume>>,
    drawn: Vec<Drawn>,
    window: Option<WindowCache>,
    log: Vec<String>,
    /// Resolved palettes kept across opens and map swaps while the platform pallet's
    /// files are unchanged.
    palettes: Arc<PaletteCache>,
}

impl std::fmt::Debug for VoxelDraw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoxelDraw")
            .field("streamer", &self.streamer)
            .field("drawn", &self.drawn.len())
            .finish_non_exhaustive()
    }
}

/// The camera the streamer reads from a view: its eye, looking down its rotated -Z.
pub fn camera_view(view: &View) -> CameraView {
    CameraView {
        position: view.position,
        forward: rotate(view.rotation, Vec3::NEG_Z),
    }
}

/// A cells-to-light-space map as the renderer takes it (column-major 4×4).
fn mat4(p: &Placement) -> Mat4 {
    DMat4::from(p.affine).as_mat4()
}

/// The light of every cell of the window of `bricks` bricks at cell `origin` (a whole
/// brick on each axis) of volume `id`, in the renderer's order (brick after brick, x
/// fastest, then y, then z; inside a brick `x + 16 (y + 16 z)`), [`UNLIT`] where no column
/// is lit, copied a brick at a time under one lock of the field
/// ([`VoxelStreamer::copy_light_bricks`]). The flag says whether the field could be read
/// (a light job holding it answers nothing, and the window is read again next frame).
fn read_window(
    streamer: &VoxelStreamer,
    id: VolumeId,
    origin: [i32; 3],
    bricks: [u32; 3],
) -> (Vec<u16>, bool) {
    let n = bricks.map(|v| v as usize);
    let mut cells = vec![UNLIT; n[0] * n[1] * n[2] * LIGHT_BRICK_CELLS];
    let min = origin.map(|c| c.div_euclid(LIGHT_BRICK as i32));
    let complete = streamer.copy_light_bricks(id, min, bricks, &mut cells);
    (cells, complete)
}

impl VoxelDraw {
    /// A drawer with no volumes, streaming under the preferences in `prefs`
    /// (`client.voxel.*`; its threads start here).
    pub fn new(prefs: &Prefs) -> VoxelDraw {
        Self::with_workers(prefs, StreamConfig::from_prefs(prefs).workers)
    }

    /// [`VoxelDraw::new`] with `workers` streaming threads in place of
    /// `client.voxel.workers`; 0 starts none, and the caller works the queue
    /// ([`VoxelStreamer::work_one`]) as jobs of its frame (the bench's showcase).
    pub fn with_workers(prefs: &Prefs, workers: usize) -> VoxelDraw {
        let config = StreamConfig::from_prefs(prefs);
        VoxelDraw {
            streamer: VoxelStreamer::new(StreamConfig { workers, ..config }),
            config,
            volumes: Vec::new(),
            drawn: Vec::new(),
            window: None,
            log: Vec::new(),
            palettes: Arc::new(PaletteCache::new()),
        }
    }

    /// The palettes kept across opens (how many resolved, how many were reused).
    pub fn palette_cache(&self) -> &Arc<PaletteCache> {
        &self.palettes
    }

    /// The streamer (its stats, resident regions and light).
    pub fn streamer(&self) -> &VoxelStreamer {
        &self.streamer
    }

    /// The streamer's id of each grid drawn, with the index of its volume in
    /// [`Host::voxel_volumes`] and whether its light field is computed, in the order
    /// added.
    pub fn volume_ids(&self) -> Vec<(usize, VolumeId, bool)> {
        self.drawn.iter().map(|d| (d.record, d.id, d.lit)).collect()
    }

    /// Lines for the log since the last call: the lighting notes of the volumes added and
    /// what the streamer reported (open failures, decoding errors, the ceilings' one
    /// warning a map).
    pub fn take_log(&mut self) -> Vec<String> {
        let mut out = std::mem::take(&mut self.log);
        out.extend(self.streamer.take_log());
        out
    }

    /// Brings the streamer in line with the map `host` runs: when its volumes are not
    /// the ones added (the first frame, or a map swap), the streamer starts a new map and
    /// every shown grid is added, closed (it opens the first frame it is drawn).
    pub fn sync(&mut self, host: &Host) {
        let now = host.voxel_volumes();
        let same = now.len() == self.volumes.len()
            && now
                .iter()
                .zip(&self.volumes)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if same {
            return;
        }
        self.streamer.new_map();
        self.drawn.clear();
        self.window = None;
        // The workspace's platform pallets, found once a map (spec: the workspace pallet
        // whose ID equals the container's platform).
        let mut platforms: Vec<(String, Option<Arc<PlatformBlocks>>)> = Vec::new();
        let mut keys = Vec::new();
        for (record, v) in now.iter().enumerate() {
            let blocks = v.platform.as_deref().and_then(|pl| {
                if let Some((_, b)) = platforms.iter().find(|(id, _)| id == pl) {
                    return b.clone();
                }
                let b = PlatformBlocks::find(host.catalog(), pl).map(Arc::new);
                platforms.push((pl.to_string(), b.clone()));
                b
            });
            let key = PaletteCache::key(&v.container, &v.palette);
            keys.push(key.clone());
            let platform = v.platform.as_deref();
            let default = platform
                .and_then(platform_defaults)
                .map_or(VoxelLighting::Dh, |p| p.lighting);
            let choice = resolve_lighting(
                &v.name,
                host.voxel_volume_lighting(record),
                v.lighting,
                default,
            );
            if let Some(line) = &choice.log_line {
                self.log.push(line.clone());
            }
            // The streamer says so when a grid that asks for a field is not Y up.
            let y_up = v.header.axes.up == UpAxis::Y;
            let fluids = (platform == Some(MINECRAFT)).then(FluidTable::minecraft);
            // What the platform pallet states about light by state, over the built-in
            // levels ([`BlockLightTable::minecraft`]).
            let light = (platform == Some(MINECRAFT)).then(|| {
                Arc::new(BlockLightTable::minecraft()) as Arc<dyn PalletLight + Send + Sync>
            });
            // The grids of one container resolve its palette once (and log it once).
            let shared = Arc::new(SharedLooks::new(&v.name));
            for g in &v.grids {
                let Some(to_cells) = g.placement.inverse() else {
                    self.log.push(format!(
                        "voxel volume '{}': grid '{}' is placed singular (a zero scale) and is not drawn",
                        v.name, g.name
                    ));
                    continue;
                };
                let name = if v.grids.len() > 1 {
                    format!("{} ({})", v.name, g.name)
                } else {
                    v.name.clone()
                };
                // Read by range from the mounted pallet, its looks resolved on a
                // streaming thread when it opens.
                let id = self.streamer.add_volume(StreamVolume {
                    name,
                    source: VolumeSource::Payload {
                        bytes: v.bytes.clone(),
                        grid: g.index as u32,
                        pose: Some(v.pose),
                        looks: LookInputs {
                            tables: None,
                            pallet: None,
                            fluids: fluids.clone(),
                            light: light.clone(),
                            shared: Some(shared.clone()),
                            platform: blocks.clone(),
                            cache: Some((self.palettes.clone(), key.clone())),
                        },
                    },
                    light_field: choice.light_field,
                });
                let lit = choice.light_field && y_up;
                self.drawn.push(Drawn {
                    record,
                    id,
                    lit,
                    placement: g.placement,
                    to_cells,
                    cells: g.cells,
                });
            }
        }
        // A map swap keeps only the palettes the new map uses.
        self.palettes.retain(&keys);
        self.volumes = now;
    }

    /// Applies a change of the streaming preferences (read every frame; the streamer
    /// decides what a change reopens).
    fn apply_prefs(&mut self, prefs: &Prefs) {
        let c = StreamConfig::from_prefs(prefs);
        if c != self.config {
            self.streamer.set_config(c);
            self.config = c;
        }
    }

    /// The volumes whose records are in the world now.
    fn shown(&self, host: &Host) -> HashSet<VolumeId> {
        self.drawn
            .iter()
            .filter(|d| host.voxel_volume_in_world(d.record))
            .map(|d| d.id)
            .collect()
    }

    /// One live frame seen from `view`: every volume in the world is drawn, the streamer
    /// updated (never waiting on a thread), and what is resident joined to `frame`.
    pub fn frame(&mut self, host: &Host, view: &View, frame: &mut RenderFrame) -> DrawStats {
        self.sync(host);
        self.apply_prefs(&host.prefs);
        let shown = self.shown(host);
        for d in &self.drawn {
            if shown.contains(&d.id) {
                self.streamer.draw(d.id);
            }
        }
        let stream = self.streamer.update(camera_view(view));
        self.join(&host.prefs, &shown, Some(view.position), frame, stream)
    }

    /// A capture's streaming: within `client.voxel.captureRadius` around `view` (outward
    /// from each volume's origin when `None`), under both ceilings, everything in range
    /// landed, meshed and lit, before what is resident joins `frame`.
    pub fn capture(
        &mut self,
        host: &Host,
        view: Option<&View>,
        frame: &mut RenderFrame,
    ) -> DrawStats {
        self.sync(host);
        self.apply_prefs(&host.prefs);
        let shown = self.shown(host);
        let stream = self
            .streamer
            .land_all(view.map(camera_view), self.config.capture_radius);
        self.join(&host.prefs, &shown, view.map(|v| v.position), frame, stream)
    }

    /// Streams the live client's way (`client.voxel.streamRadius` around `view`, the
    /// threads working as they do between frames) until nothing is opening or meshing and
    /// nothing is queued that `client.voxel.maxMeshes` leaves room for, or `max_frames`
    /// frames of `frame_time` each have passed; what `--gpuTimings` captures time.
    /// Returns the frames it took and what joined `frame`.
    pub fn settle_live(
        &mut self,
        host: &Host,
        view: &View,
        frame: &mut RenderFrame,
        max_frames: usize,
        frame_time: Duration,
    ) -> (usize, DrawStats) {
        self.sync(host);
        self.apply_prefs(&host.prefs);
        let shown = self.shown(host);
        let mut frames = 0;
        let mut stream;
        loop {
            for d in &self.drawn {
                if shown.contains(&d.id) {
                    self.streamer.draw(d.id);
                }
            }
            stream = self.streamer.update(camera_view(view));
            frames += 1;
            let opening =
                self.drawn.iter().filter(|d| shown.contains(&d.id)).count() > stream.volumes_open;
            // What is still queued waits for `maxMeshes` only once every slot is taken.
            let waiting = stream.queued > 0 && stream.resident < self.config.max_meshes;
            if (!opening && !waiting && stream.meshing == 0) || frames >= max_frames {
                break;
            }
            std::thread::sleep(frame_time);
        }
        let stats = self.join(&host.prefs, &shown, Some(view.position), frame, stream);
        (frames, stats)
    }

    /// Appends the materials, the shown volumes' instances and the light window to
    /// `frame`.
    fn join(
        &mut self,
        prefs: &Prefs,
        shown: &HashSet<VolumeId>,
        center: Option<Vec3>,
        frame: &mut RenderFrame,
        stream: StreamStats,
    ) -> DrawStats {
        if self.drawn.is_empty() {
            // A map with no volumes: the frame is the extracted one.
            self.window = None;
            return DrawStats {
                stream,
                ..DrawStats::default()
            };
        }
        let base = frame.materials.len() as u32;
        let materials = self.streamer.materials();
        let material_count = materials.len();
        frame.materials.extend(materials);
        let instances = self.streamer.instances(base);
        let keys = self.streamer.resident_regions();
        let mut per_volume: BTreeMap<VolumeId, Vec<u32>> = BTreeMap::new();
        let mut joined = 0;
        // `instances` and `resident_regions` walk the same regions in the same order.
        let paired = keys.len() == instances.len();
        for (i, inst) in instances.into_iter().enumerate() {
            let volume = if paired {
                keys.get(i).map(|k| k.0)
            } else {
                None
            };
            if let Some(v) = volume {
                if !shown.contains(&v) {
                    continue;
                }
                per_volume
                    .entry(v)
                    .or_default()
                    .push(frame.meshes.len() as u32);
            }
            frame.meshes.push(inst);
            joined += 1;
        }
        crate::extract::stamp_voxel_materials(frame, self.streamer.materials_generation());
        let (window, read) = self.light_window(prefs, center, &per_volume, &stream);
        let lit_instances = window.as_ref().map_or(0, |w| w.lit_instances.len());
        frame.voxel_light = window;
        DrawStats {
            stream,
            volumes: self.drawn.len(),
            instances: joined,
            materials: material_count,
            lit_instances,
            window_read: read,
        }
    }

    /// The light window of the lit volume nearest `center` (the first lit one drawing
    /// anything when `None`, centered on its origin), and whether its cells were read
    /// again.
    fn light_window(
        &mut self,
        prefs: &Prefs,
        center: Option<Vec3>,
        per_volume: &BTreeMap<VolumeId, Vec<u32>>,
        stream: &StreamStats,
    ) -> (Option<VoxelLightWindow>, bool) {
        let mut best: Option<(f64, &Drawn, DVec3)> = None;
        for d in &self.drawn {
            if !d.lit || !per_volume.contains_key(&d.id) {
                continue;
            }
            let world = match center {
                Some(c) => c.as_dvec3(),
                None => d.placement.point(DVec3::ZERO),
            };
            let c = d.to_cells.point(world);
            let lo = IVec3::from_array(d.cells[0]).as_dvec3();
            let hi = IVec3::from_array(d.cells[1]).as_dvec3();
            // How far outside the cells, squared (0 inside).
            let gap = (lo - c).max(c - hi).max(DVec3::ZERO).length_squared();
            if best.as_ref().is_none_or(|(g, _, _)| gap < *g) {
                best = Some((gap, d, c));
            }
        }
        let Some((_, d, c)) = best else {
            self.window = None;
            return (None, false);
        };
        let b = f64::from(LIGHT_BRICK);
        let origin = [0, 1, 2].map(|a| {
            let brick = (c[a] / b).round() as i32 - (WINDOW_BRICKS[a] / 2) as i32;
            brick * LIGHT_BRICK as i32
        });
        let key = WindowKey {
            id: d.id,
            origin,
            columns: stream.light_columns,
            bytes: stream.light_bytes,
        };
        let (id, to_cells) = (d.id, d.to_cells);
        let lit_instances = per_volume.get(&id).cloned().unwrap_or_default();
        let reuse = self
            .window
            .as_ref()
            .is_some_and(|w| w.key == key && w.complete);
        let read = !reuse;
        if read {
            let (cells, complete) = read_window(&self.streamer, id, origin, WINDOW_BRICKS);
            let versions = cells.chunks(LIGHT_BRICK_CELLS).map(brick_hash).collect();
            self.window = Some(WindowCache {
                key,
                cells,
                versions,
                complete,
            });
        }
        let (cells, brick_versions) = self
            .window
            .as_ref()
            .map(|w| (w.cells.clone(), w.versions.clone()))
            .unwrap_or_default();
        let upload_kb = light_upload_kb(prefs);
        let brightness = prefs.float32("client.voxel.lightBrightness", 0.5);
        let tint = match prefs.floats("client.voxel.blockLightTint") {
            Ok(v) if v.len() >= 3 => [0, 1, 2].map(|i| v[i].clamp(0.0, 255.0).round() as u8),
            _ => [255, 214, 170],
        };
        let (sky_gate, fill) = VoxelLightWindow::tables(brightness, tint);
        let window = VoxelLightWindow {
            world_to_light: mat4(&to_cells),
            origin,
            bricks: WINDOW_BRICKS,
            cells,
            brick_versions,
            upload_kb,
            sky_gate,
            fill,
            occlusion_step: prefs.float32("client.voxel.occlusionStep", 0.2),
            block_light_intensity: prefs.float32("client.voxel.blockLightIntensity", 1.0),
            edge_fade: prefs.float32("client.voxel.lightEdgeFade", 8.0),
            lit_instances,
        };
        (Some(window), read)
    }
}

/// `client.voxel.lightUploadKb` as the renderer takes it (KiB of light bricks a frame).
pub fn light_upload_kb(prefs: &Prefs) -> u32 {
    prefs
        .int("client.voxel.lightUploadKb")
        .ok()
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(DEFAULT_LIGHT_UPLOAD_KB)
}

/// The world box of every shown grid of `host`'s voxel volumes whose record is in the
/// world (each grid's cell bounds through its placement), `None` without one.
pub fn volume_bounds(host: &Host) -> Option<(Vec3, Vec3)> {
    // Per axis with f64::min / max (NaN-skipping, as the box always was; glam's min
    // and max pick by comparison).
    let mut lo = DVec3::INFINITY;
    let mut hi = DVec3::NEG_INFINITY;
    for (i, v) in host.voxel_volumes().iter().enumerate() {
        if !host.voxel_volume_in_world(i) {
            continue;
        }
        for g in &v.grids {
            if (0..3).any(|a| g.cells[1][a] <= g.cells[0][a]) {
                continue;
            }
            for corner in 0..8 {
                let c =
                    [0, 1, 2].map(|a| f64::from(g.cells[usize::from(corner & (1 << a) != 0)][a]));
                let p = g.placement.point(DVec3::from_array(c));
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
        }
    }
    (lo.is_finite() && hi.is_finite()).then(|| (lo.as_vec3(), hi.as_vec3()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::pack_light;

    #[test]
    fn a_placement_becomes_a_column_major_matrix() {
        // Cells to meters: scale 0.5 and move by (1, 2, 3); meters to cells inverts it.
        let p = Placement::from_rows([
            [0.5, 0.0, 0.0, 1.0],
            [0.0, 0.5, 0.0, 2.0],
            [0.0, 0.0, 0.5, 3.0],
        ]);
        let inv = p.inverse().unwrap_or_else(|| panic!("singular"));
        let m = mat4(&inv).to_cols_array_2d();
        // World (2, 3, 4) is cell (2, 2, 2): by hand, (2 - 1) / 0.5 and so on.
        let w = [2.0f32, 3.0, 4.0];
        let cell = [0, 1, 2].map(|r| m[0][r] * w[0] + m[1][r] * w[1] + m[2][r] * w[2] + m[3][r]);
        assert_eq!(cell, [2.0, 2.0, 2.0]);
        assert_eq!([m[0][3], m[1][3], m[2][3], m[3][3]], [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn the_light_upload_budget_is_its_preference() {
        // The spec's default is 1024 KiB; a set value passes through.
        let mut prefs = Prefs::new();
        assert_eq!(light_upload_kb(&prefs), 1024);
        prefs
            .set("client.voxel.lightUploadKb", "16")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(light_upload_kb(&prefs), 16);
    }

    #[test]
    fn unlit_is_open_sky_without_block_light() {
        // SSSS RRRR GGGG BBBB: sky 15, nothing else.
        assert_eq!(UNLIT, 0xF000);
        assert_eq!(pack_light(15, 0), UNLIT);
        assert_eq!(pack_light(0, 14), 0x0EEE);
    }

    #[test]
    fn the_camera_looks_down_its_rotated_minus_z() {
        // 90° about +Y: -Z turns to -X.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let v = View {
            position: Vec3::new(1.0, 2.0, 3.0),
            rotation: glam::Quat::from_xyzw(0.0, h, 0.0, h),
            projection: dh_gpu::render::frame::Projection::Perspective { fov_y: 60.0 },
            near: 0.1,
            far: None,
        };
        let c = camera_view(&v);
        assert_eq!(c.position.to_array(), [1.0, 2.0, 3.0]);
        assert!((c.forward[0] + 1.0).abs() < 1e-6, "{:?}", c.forward);
        assert!(c.forward[1].abs() < 1e-6 && c.forward[2].abs() < 1e-6);
    }
    /// The old path, one `light_at` (one lock) a cell: the reference the brick path is
    /// checked against. The light of every cell of the window of `bricks` bricks at cell `origin` of volume
    /// `id`, in the renderer's order (brick after brick, x fastest, then y, then z; inside a
    /// brick `x + 16 (y + 16 z)`), [`UNLIT`] where no column is lit. The flag says whether
    /// every cell of a lit column was read (a light job holding the field answers nothing).
    fn read_window_per_cell(
        streamer: &VoxelStreamer,
        id: VolumeId,
        origin: [i32; 3],
        bricks: [u32; 3],
    ) -> (Vec<u16>, bool) {
        let b = LIGHT_BRICK as i32;
        let n = bricks.map(|v| v as usize);
        let mut cells = vec![UNLIT; n[0] * n[1] * n[2] * LIGHT_BRICK_CELLS];
        let mut complete = true;
        for bz in 0..n[2] {
            for bx in 0..n[0] {
                let x0 = origin[0] + bx as i32 * b;
                let z0 = origin[2] + bz as i32 * b;
                // A column the field has not lit answers nothing anywhere.
                if streamer.light_at(id, [x0, origin[1], z0]).is_none() {
                    continue;
                }
                for by in 0..n[1] {
                    let y0 = origin[1] + by as i32 * b;
                    let brick = (bx + n[0] * (by + n[1] * bz)) * LIGHT_BRICK_CELLS;
                    for z in 0..b {
                        for y in 0..b {
                            for x in 0..b {
                                let i = brick + (x + b * (y + b * z)) as usize;
                                match streamer.light_at(id, [x0 + x, y0 + y, z0 + z]) {
                                    Some(v) => {
                                        if let Some(c) = cells.get_mut(i) {
                                            *c = v;
                                        }
                                    }
                                    None => complete = false,
                                }
                            }
                        }
                    }
                }
            }
        }
        (cells, complete)
    }

    #[test]
    fn the_window_read_by_bricks_equals_the_window_read_cell_by_cell() {
        use crate::voxel::{MapChunks, StreamConfig, StreamVolume, VolumeSource, VoxelLooks};
        use dh_content::voxel::blocks::BlockTables;
        use dh_content::voxel::payload::PaletteEntry;
        // Stone ground with a torch pit and a glowstone, over 3 × 3 chunks, lit: the
        // window reaches past the lit columns, below the field and above it.
        let palette = vec![
            PaletteEntry::empty(),
            PaletteEntry::new("minecraft", "stone"),
            PaletteEntry::new("minecraft", "torch"),
            PaletteEntry::new("minecraft", "glowstone"),
        ];
        let tables = BlockTables::builtin().unwrap_or_else(|e| panic!("{e}"));
        let looks = VoxelLooks::resolve(&palette, tables, Some(MINECRAFT), None, None);
        let mut w = MapChunks::new(16);
        for x in 0..48 {
            for z in 0..48 {
                let h = 4 + (x * 7 + z * 3) % 9;
                for y in 0..h {
                    w.set([x, y, z], 1);
                }
            }
        }
        w.set([20, 13, 20], 2);
        w.set([30, 2, 9], 3);
        w.set([5, 20, 40], 3);
        let mut s = VoxelStreamer::new(StreamConfig {
            workers: 0,
            region_chunks: 1,
            ..StreamConfig::default()
        });
        let id = s.add_volume(StreamVolume {
            name: "window".into(),
            source: VolumeSource::Chunks {
                chunks: Arc::new(w),
                cells: [[0, 0, 0], [48, 32, 48]],
                placement: Placement::identity(),
                looks: Arc::new(looks),
            },
            light_field: true,
        });
        let st = s.land_all(
            Some(CameraView {
                position: Vec3::new(24.0, 16.0, 24.0),
                forward: Vec3::X,
            }),
            100.0,
        );
        assert!(st.light_columns > 0);
        for origin in [[0, 0, 0], [-16, -16, -32], [16, 16, 0], [32, -32, 32]] {
            let by_cell = read_window_per_cell(&s, id, origin, WINDOW_BRICKS);
            let by_brick = read_window(&s, id, origin, WINDOW_BRICKS);
            assert!(by_cell.1 && by_brick.1, "{origin:?}");
            assert_eq!(by_cell.0.len(), by_brick.0.len());
            let first = by_cell.0.iter().zip(&by_brick.0).position(|(a, b)| a != b);
            assert_eq!(first, None, "origin {origin:?}");
        }
        // The window reads more than sky: the torch's light is in it.
        let (cells, _) = read_window(&s, id, [0, 0, 0], WINDOW_BRICKS);
        assert!(cells.iter().any(|v| v & 0x0FFF != 0));
    }
}
