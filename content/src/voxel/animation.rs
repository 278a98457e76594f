//! Animated block textures: a Minecraft `.mcmeta` `animation` block read and played
//! (spec 004 "Textures, transparency and tint": "An animated texture plays").
//!
//! * The frame size is square on the image's shorter side unless `width` or `height` says
//!   otherwise (a stated one with the image's other edge). Frames are read left to right,
//!   then top to bottom, across the image; its edges must be multiples of the frame's.
//! * `frametime` is in game ticks, twenty a second (1 unless stated, at least 1).
//! * `frames`, when given, is the order played: each a frame index or an
//!   `{ "index", "time" }` with its own time; without it every frame plays in order.
//! * `interpolate` blends each frame's colour toward the next frame's across its time, once a
//!   tick, and keeps its own alpha, as the game does (`SpriteContents.InterpolationData`:
//!   each channel `(int)(d·this + (1 − d)·next)` in the sRGB bytes, `d = 1 − tick/time`).
//!
//! Time is the world clock: [`tick_of`] turns world seconds into the tick that picks the
//! frame, so a capture's `--worldSeconds` picks it too. [`Animation::state_at`] says which
//! frame (and, interpolating, which tick of its blend) shows; two ticks whose states are
//! equal compose the same tile ([`Animation::changed`]), so only a changed tile is written.
//!
//! Untrusted bytes: the `.mcmeta` is read only up to [`MAX_MCMETA_BYTES`], `frames` holds at
//! most [`MAX_FRAMES`] entries, a time is 1 to [`MAX_FRAME_TIME`] ticks, and a frame index
//! must lie in the image. Every refusal names the file and the member (the `mcmeta` fuzz
//! target, `fuzz/corpus/mcmeta/`).

use serde_json::Value;

/// The longest `.mcmeta` read, in bytes.
pub const MAX_MCMETA_BYTES: usize = 64 * 1024;
/// The most entries `frames` may list.
pub const MAX_FRAMES: usize = 4096;
/// The longest a frame may show, in ticks (an hour).
pub const MAX_FRAME_TIME: u32 = 72_000;
/// Game ticks a second.
pub const TICKS_PER_SECOND: f64 = 20.0;

/// Why a `.mcmeta` animation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnimationError {
    /// Past [`MAX_MCMETA_BYTES`].
    #[error("{path}: {len} bytes, past the {MAX_MCMETA_BYTES} a .mcmeta may have")]
    TooLong {
        /// The file.
        path: String,
        /// Its length.
        len: usize,
    },
    /// Not JSON, or not an object at the top.
    #[error("{path}: not a JSON object ({reason})")]
    Json {
        /// The file.
        path: String,
        /// What the parser said.
        reason: String,
    },
    /// A member of the wrong kind or out of range.
    #[error("{path}: animation.{member}: {expected}")]
    Member {
        /// The file.
        path: String,
        /// The member (`frametime`, `frames[3].index`, ...).
        member: String,
        /// What was expected there.
        expected: String,
    },
    /// A `texture` member of the wrong kind.
    #[error("{path}: texture.{member}: {expected}")]
    TextureMember {
        /// The file.
        path: String,
        /// The member (`mipmap_strategy`).
        member: String,
        /// What was expected there.
        expected: String,
    },
    /// A frame size that does not tile the image.
    #[error(
        "{path}: frames of {frame_width}x{frame_height} do not tile the {width}x{height} image \
         (each edge a multiple of the frame's, the frame 1 texel or more)"
    )]
    FrameSize {
        /// The file.
        path: String,
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
        /// The frame's width.
        frame_width: u32,
        /// The frame's height.
        frame_height: u32,
    },
}

/// One entry of the order played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The frame in the image (row-major across it).
    pub index: u32,
    /// Ticks it shows.
    pub time: u32,
}

/// A texture's animation, read from its `.mcmeta` against its image's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Animation {
    /// The image's width.
    pub image_width: u32,
    /// The image's height.
    pub image_height: u32,
    /// A frame's width.
    pub frame_width: u32,
    /// A frame's height.
    pub frame_height: u32,
    /// The order played, never empty.
    pub frames: Vec<Frame>,
    /// Whether colour blends toward the next frame across each frame's time.
    pub interpolate: bool,
}

/// What shows at a tick: the entry of [`Animation::frames`] and, interpolating, the ticks
/// into it (0 otherwise). Equal states compose equal tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameState {
    /// The entry of the order.
    pub entry: usize,
    /// Ticks into it when interpolating, else 0.
    pub sub: u32,
}

/// The tick world time `world_seconds` falls in (twenty a second; 0 before the start and
/// for a time that is not a number).
pub fn tick_of(world_seconds: f64) -> u64 {
    let t = (world_seconds * TICKS_PER_SECOND).floor();
    if t.is_finite() && t > 0.0 {
        t.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

fn member(path: &str, member: impl Into<String>, expected: &str) -> AnimationError {
    AnimationError::Member {
        path: path.to_string(),
        member: member.into(),
        expected: expected.to_string(),
    }
}

/// A whole number in `lo..=hi` at `v`, else the member error.
fn whole(path: &str, name: &str, v: &Value, lo: u64, hi: u64) -> Result<u32, AnimationError> {
    v.as_u64()
        .filter(|n| (lo..=hi).contains(n))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| member(path, name, &format!("a whole number from {lo} to {hi}")))
}

/// The `.mcmeta` `bytes` (at `path`) read as a JSON object, refused past
/// [`MAX_MCMETA_BYTES`] before anything is parsed.
fn mcmeta_root(path: &str, bytes: &[u8]) -> Result<serde_json::Map<String, Value>, AnimationError> {
    if bytes.len() > MAX_MCMETA_BYTES {
        return Err(AnimationError::TooLong {
            path: path.to_string(),
            len: bytes.len(),
        });
    }
    let root: Value = serde_json::from_slice(bytes).map_err(|e| AnimationError::Json {
        path: path.to_string(),
        reason: e.to_string(),
    })?;
    match root {
        Value::Object(root) => Ok(root),
        _ => Err(AnimationError::Json {
            path: path.to_string(),
            reason: "the top is not an object".into(),
        }),
    }
}

/// Whether the `.mcmeta` `bytes` (at `path`) marks its texture `dark_cutout`: Minecraft's
/// `"texture": { "mipmap_strategy": "dark_cutout" }` (spec 004 "Textures, transparency and
/// tint": the leaves' holes are black so they darken at a distance). Any other strategy, or
/// none, is not.
pub fn dark_cutout(path: &str, bytes: &[u8]) -> Result<bool, AnimationError> {
    let root = mcmeta_root(path, bytes)?;
    match root.get("texture").and_then(|t| t.get("mipmap_strategy")) {
        None => Ok(false),
        Some(Value::String(s)) => Ok(s == "dark_cutout"),
        Some(_) => Err(AnimationError::TextureMember {
            path: path.to_string(),
            member: "mipmap_strategy".into(),
            expected: "a string (\"dark_cutout\", \"cutout\", \"mean\" or \"auto\")".into(),
        }),
    }
}

/// Reads the `animation` block of `bytes` (the `.mcmeta` at `path`) for an image of
/// `width` x `height`; `None` when the file has no `animation` (a still texture).
pub fn parse_mcmeta(
    path: &str,
    bytes: &[u8],
    width: u32,
    height: u32,
) -> Result<Option<Animation>, AnimationError> {
    let root = mcmeta_root(path, bytes)?;
    let Some(anim) = root.get("animation") else {
        return Ok(None);
    };
    let Some(anim) = anim.as_object() else {
        return Err(AnimationError::Member {
            path: path.to_string(),
            member: String::new(),
            expected: "an object".into(),
        });
    };
    let edge = u64::from(crate::texture::MAX_EDGE);
    let stated = |name: &str| {
        anim.get(name)
            .map(|v| whole(path, name, v, 1, edge))
            .transpose()
    };
    let (fw, fh) = match (stated("width")?, stated("height")?) {
        (Some(w), Some(h)) => (w, h),
        (Some(w), None) => (w, height),
        (None, Some(h)) => (width, h),
        (None, None) => (width.min(height), width.min(height)),
    };
    if fw == 0 || fh == 0 || !width.is_multiple_of(fw) || !height.is_multiple_of(fh) {
        return Err(AnimationError::FrameSize {
            path: path.to_string(),
            width,
            height,
            frame_width: fw,
            frame_height: fh,
        });
    }
    let count = u64::from(width / fw) * u64::from(height / fh);
    let frametime = anim
        .get("frametime")
        .map(|v| whole(path, "frametime", v, 1, u64::from(MAX_FRAME_TIME)))
        .transpose()?
        .unwrap_or(1);
    let interpolate = match anim.get("interpolate") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(member(path, "interpolate", "true or false")),
    };
    let last = count - 1;
    let frames = match anim.get("frames") {
        None => {
            if count > MAX_FRAMES as u64 {
                return Err(member(
                    path,
                    "frames",
                    &format!("at most {MAX_FRAMES} frames (the image holds {count})"),
                ));
            }
            (0..count as u32)
                .map(|index| Frame {
                    index,
                    time: frametime,
                })
                .collect()
        }
        Some(Value::Array(list)) => {
            if list.is_empty() || list.len() > MAX_FRAMES {
                return Err(member(
                    path,
                    "frames",
                    &format!("a list of 1 to {MAX_FRAMES} frames"),
                ));
            }
            let mut out = Vec::with_capacity(list.len());
            for (i, f) in list.iter().enumerate() {
                let at = format!("frames[{i}]");
                let frame = match f {
                    Value::Number(_) => Frame {
                        index: whole(path, &at, f, 0, last)?,
                        time: frametime,
                    },
                    Value::Object(o) => {
                        let index = o
                            .get("index")
                            .ok_or_else(|| member(path, format!("{at}.index"), "a frame index"))
                            .and_then(|v| whole(path, &format!("{at}.index"), v, 0, last))?;
                        let time = o
                            .get("time")
                            .map(|v| {
                                whole(path, &format!("{at}.time"), v, 1, u64::from(MAX_FRAME_TIME))
                            })
                            .transpose()?
                            .unwrap_or(frametime);
                        Frame { index, time }
                    }
                    _ => return Err(member(path, at, "a frame index or { \"index\", \"time\" }")),
                };
                out.push(frame);
            }
            out
        }
        Some(_) => return Err(member(path, "frames", "a list")),
    };
    Ok(Some(Animation {
        image_width: width,
        image_height: height,
        frame_width: fw,
        frame_height: fh,
        frames,
        interpolate,
    }))
}

impl Animation {
    /// Ticks in one loop of the order.
    pub fn cycle_ticks(&self) -> u64 {
        self.frames.iter().map(|f| u64::from(f.time)).sum()
    }

    /// What shows at tick `tick`.
    pub fn state_at(&self, tick: u64) -> FrameState {
        let cycle = self.cycle_ticks().max(1);
        let mut t = tick % cycle;
        for (entry, f) in self.frames.iter().enumerate() {
            let time = u64::from(f.time);
            if t < time {
                return FrameState {
                    entry,
                    sub: if self.interpolate { t as u32 } else { 0 },
                };
            }
            t -= time;
        }
        FrameState { entry: 0, sub: 0 }
    }

    /// Whether the tile composed at tick `now` differs from the one at tick `then` by its
    /// state (a new frame, or a new tick of a blended one): the tile to write again.
    pub fn changed(&self, then: u64, now: u64) -> bool {
        self.state_at(then) != self.state_at(now)
    }

    /// The texels of frame `index` of `image` (the whole image, RGBA8, rows top to
    /// bottom), `frame_width × frame_height × 4` bytes; `None` when `image` is not the size
    /// read or the index is past the image's frames.
    pub fn frame_texels(&self, image: &[u8], index: u32) -> Option<Vec<u8>> {
        let (iw, fw, fh) = (
            self.image_width as usize,
            self.frame_width as usize,
            self.frame_height as usize,
        );
        if image.len() != iw * self.image_height as usize * 4 || fw == 0 {
            return None;
        }
        let cols = iw / fw;
        let (cx, cy) = (index as usize % cols, index as usize / cols);
        if (cy + 1) * fh > self.image_height as usize {
            return None;
        }
        let mut out = Vec::with_capacity(fw * fh * 4);
        for row in 0..fh {
            let s = ((cy * fh + row) * iw + cx * fw) * 4;
            out.extend_from_slice(image.get(s..s + fw * 4)?);
        }
        Some(out)
    }

    /// The tile at tick `tick`: its frame's texels, blended toward the next entry's colour
    /// when interpolating (its own alpha kept); `None` as [`Animation::frame_texels`].
    pub fn compose(&self, image: &[u8], tick: u64) -> Option<Vec<u8>> {
        let s = self.state_at(tick);
        let f = self.frames.get(s.entry)?;
        let mut out = self.frame_texels(image, f.index)?;
        if self.interpolate && s.sub > 0 {
            let next = self.frames.get((s.entry + 1) % self.frames.len())?;
            let to = self.frame_texels(image, next.index)?;
            let d = 1.0 - f64::from(s.sub) / f64::from(f.time);
            for (a, b) in out.chunks_exact_mut(4).zip(to.chunks_exact(4)) {
                for c in 0..3 {
                    a[c] = (d * f64::from(a[c]) + (1.0 - d) * f64::from(b[c])) as u8;
                }
            }
        }
        Some(out)
    }

    /// The tile at world time `world_seconds` ([`tick_of`]).
    pub fn frame_at(&self, image: &[u8], world_seconds: f64) -> Option<Vec<u8>> {
        self.compose(image, tick_of(world_seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str, w: u32, h: u32) -> Result<Option<Animation>, AnimationError> {
        parse_mcmeta("block/lava_still.png.mcmeta", json.as_bytes(), w, h)
    }

    /// A 2x6 image: three 2x2 frames stacked, each a flat colour (alpha 255, 200, 100).
    fn strip() -> Vec<u8> {
        let c = [[0u8, 0, 0, 255], [100, 200, 40, 200], [200, 100, 240, 100]];
        (0..3).flat_map(|f| c[f].repeat(4)).collect()
    }

    #[test]
    fn defaults_square_on_the_shorter_side() {
        let a = parse(r#"{"animation":{}}"#, 16, 64).unwrap().unwrap();
        assert_eq!((a.frame_width, a.frame_height), (16, 16));
        assert_eq!(a.frames.len(), 4);
        assert!(a.frames.iter().all(|f| f.time == 1));
        assert_eq!(a.frames[3].index, 3);
        assert!(!a.interpolate);
        assert_eq!(parse(r#"{"texture":{"blur":true}}"#, 16, 16), Ok(None));
        let a = parse(r#"{"animation":{"width":8}}"#, 16, 16)
            .unwrap()
            .unwrap();
        assert_eq!(
            (a.frame_width, a.frame_height),
            (8, 16),
            "height: the image's"
        );
        assert_eq!(a.frames.len(), 2);
    }

    /// frametime 2 and frames [2, {index 0, time 5}, 1]: ticks 0-1 frame 2, 2-6 frame 0,
    /// 7-8 frame 1, a cycle of 9; 1.0 s is tick 20, 20 mod 9 = 2: frame 0.
    #[test]
    fn frames_order_and_times() {
        let a = parse(
            r#"{"animation":{"frametime":2,"frames":[2,{"index":0,"time":5},1]}}"#,
            2,
            6,
        )
        .unwrap()
        .unwrap();
        assert_eq!(a.cycle_ticks(), 9);
        let entry = |t| a.state_at(t).entry;
        assert_eq!([0, 1, 2, 6, 7, 8, 9].map(entry), [0, 0, 1, 1, 2, 2, 0]);
        assert_eq!(tick_of(1.0), 20);
        assert_eq!(tick_of(-3.0), 0);
        assert_eq!(tick_of(f64::NAN), 0);
        let img = strip();
        assert_eq!(a.frame_at(&img, 1.0).unwrap(), [0, 0, 0, 255].repeat(4));
        assert_eq!(
            a.frame_at(&img, 0.0).unwrap(),
            [200, 100, 240, 100].repeat(4)
        );
        assert!(!a.changed(2, 6), "frame 0 throughout");
        assert!(a.changed(6, 7));
    }

    /// interpolate, frametime 4, frames 1 then 2: at tick 1 d = 1 − 1/4 = 0.75, so
    /// red (int)(0.75·100 + 0.25·200) = 125, green 175, blue (int)(30 + 60) = 90, alpha
    /// frame 1's 200; at tick 3 d = 0.25: 175, 125, 190 (0.25·40 + 0.75·240 = 190). Every
    /// tick of a blended frame is a change.
    #[test]
    fn interpolate_blends_colour_and_keeps_alpha() {
        let a = parse(
            r#"{"animation":{"interpolate":true,"frametime":4,"frames":[1,2]}}"#,
            2,
            6,
        )
        .unwrap()
        .unwrap();
        let img = strip();
        assert_eq!(a.compose(&img, 0).unwrap(), [100, 200, 40, 200].repeat(4));
        assert_eq!(a.compose(&img, 1).unwrap(), [125, 175, 90, 200].repeat(4));
        assert_eq!(a.compose(&img, 3).unwrap(), [175, 125, 190, 200].repeat(4));
        // Frame 2 blending back toward frame 1, its own alpha 100: tick 5, d 0.75.
        assert_eq!(a.compose(&img, 5).unwrap(), [175, 125, 190, 100].repeat(4));
        assert!(a.changed(0, 1));
        assert!(!a.changed(1, 9), "a cycle of 8");
    }

    #[test]
    fn bad_members_are_named() {
        let e = |json: &str| parse(json, 16, 48).unwrap_err().to_string();
        assert!(e(r#"{"animation":{"frametime":0}}"#).contains("animation.frametime"));
        assert!(e(r#"{"animation":{"frames":[0,3]}}"#).contains("animation.frames[1]"));
        assert!(e(r#"{"animation":{"frames":[{"time":2}]}}"#).contains("frames[0].index"));
        assert!(e(r#"{"animation":{"frames":[{"index":1,"time":-1}]}}"#).contains("frames[0].time"));
        assert!(e(r#"{"animation":{"frames":[]}}"#).contains("animation.frames"));
        assert!(e(r#"{"animation":{"interpolate":1}}"#).contains("interpolate"));
        assert!(e(r#"{"animation":{"width":5}}"#).contains("do not tile"));
        assert!(e(r#"[1]"#).contains("not a JSON object"));
        assert!(e("{").contains("lava_still.png.mcmeta"));
        let long = vec![b' '; MAX_MCMETA_BYTES + 1];
        assert!(matches!(
            parse_mcmeta("x.mcmeta", &long, 16, 16),
            Err(AnimationError::TooLong { .. })
        ));
        // 1x4096 frames of a 4096x4096 image would be 16M frames: refused, not listed.
        assert!(parse(r#"{"animation":{"width":1,"height":1}}"#, 4096, 4096)
            .unwrap_err()
            .to_string()
            .contains("at most 4096"));
    }
}
