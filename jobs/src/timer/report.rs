//! The timer's report: summaries of the window and its three output forms.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::{json, Frame};
use crate::error::JobsError;

/// One scope for the Chrome trace, in nanoseconds since the timer started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceSpan {
    pub(crate) tid: u32,
    pub(crate) name: &'static str,
    pub(crate) start_ns: u64,
    pub(crate) dur_ns: u64,
}

/// What the Chrome trace is made of.
#[derive(Clone, Debug, Default, PartialEq)]
struct Trace {
    /// (trace thread id, thread name); tid 0 is the frames track.
    threads: Vec<(u32, String)>,
    /// (frame index, start ns, duration ns).
    frames: Vec<(u64, u64, u64)>,
    spans: Vec<TraceSpan>,
}

/// A distribution in milliseconds. Percentiles are nearest-rank: the `p`-th
/// percentile of `n` sorted values is the value at rank `ceil(p × n / 100)`
/// (1-based), so it is always one of the samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (50th percentile).
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest sample.
    pub max: f64,
}

/// One phase (CPU scopes of one name) or one GPU pass over the window.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseReport {
    /// The scope or pass name.
    pub name: String,
    /// Frames of the window in which it occurred; the figures below cover only
    /// those frames.
    pub frames: usize,
    /// Scopes (or pass records) per frame in which it occurred.
    pub calls_per_frame: f64,
    /// Mean per-frame total, in milliseconds (CPU time summed over threads).
    pub mean_ms: f64,
    /// 95th percentile (nearest-rank) of the per-frame totals, in milliseconds.
    pub p95_ms: f64,
    /// Largest per-frame total, in milliseconds.
    pub max_ms: f64,
}

/// The scheduler's figures over the frames that recorded them.
#[derive(Clone, Debug, PartialEq)]
pub struct JobsReport {
    /// Frames that recorded job statistics.
    pub frames: usize,
    /// Mean jobs executed per frame.
    pub jobs_per_frame: f64,
    /// Mean steals per frame.
    pub steals_per_frame: f64,
    /// Mean idle share per thread (index 0 is the main thread), in percent.
    pub idle_percent: Vec<f64>,
}

/// A summary of the timer's window; see [`FrameTimer::report`](super::FrameTimer::report).
#[derive(Clone, Debug, PartialEq)]
pub struct TimerReport {
    /// Frames in the window.
    pub frames: usize,
    /// Index of the oldest frame in the window.
    pub first_frame: u64,
    /// The frame budget, in milliseconds.
    pub budget_ms: f64,
    /// Frames longer than the budget.
    pub over_budget: usize,
    /// Frame times.
    pub frame_ms: Summary,
    /// CPU phases (scopes by name), by descending mean.
    pub phases: Vec<PhaseReport>,
    /// GPU passes, by descending mean.
    pub gpu_passes: Vec<PhaseReport>,
    /// Scheduler figures, if any frame recorded them.
    pub jobs: Option<JobsReport>,
    /// Scopes lost because a thread's ring was full, since the timer started.
    pub dropped_scopes: u64,
    trace: Trace,
}

/// The nearest-rank `percent`-th percentile of sorted values.
pub(crate) fn nearest_rank<T: Copy>(sorted: &[T], percent: usize) -> Option<T> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = (percent * n).div_ceil(100).clamp(1, n);
    Some(sorted[rank - 1])
}

fn summarize(values: &mut [f64]) -> Summary {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return Summary::default();
    }
    let at = |p| nearest_rank(values, p).unwrap_or(0.0);
    Summary {
        mean: values.iter().sum::<f64>() / values.len() as f64,
        p50: at(50),
        p95: at(95),
        p99: at(99),
        max: values[values.len() - 1],
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Per-name samples in order of first appearance.
#[derive(Default)]
struct Series {
    order: Vec<String>,
    index: HashMap<String, usize>,
    /// Per name: (per-frame total ms, calls) for each frame it occurred in.
    samples: Vec<Vec<(f64, u64)>>,
}

impl Series {
    fn add_frame(&mut self, items: impl Iterator<Item = (String, f64, u64)>) {
        let mut seen: HashMap<usize, usize> = HashMap::new();
        for (name, value, calls) in items {
            let slot = match self.index.get(&name) {
                Some(&i) => i,
                None => {
                    self.order.push(name.clone());
                    self.index.insert(name, self.order.len() - 1);
                    self.samples.push(Vec::new());
                    self.order.len() - 1
                }
            };
            match seen.get(&slot) {
                Some(&at) => {
                    let s = &mut self.samples[slot][at];
                    s.0 += value;
                    s.1 += calls;
                }
                None => {
                    seen.insert(slot, self.samples[slot].len());
                    self.samples[slot].push((value, calls));
                }
            }
        }
    }

    fn reports(self) -> Vec<PhaseReport> {
        let mut out: Vec<PhaseReport> = self
            .order
            .into_iter()
            .zip(self.samples)
            .map(|(name, samples)| {
                let frames = samples.len();
                let calls: u64 = samples.iter().map(|s| s.1).sum();
                let mut values: Vec<f64> = samples.iter().map(|s| s.0).collect();
                let summary = summarize(&mut values);
                PhaseReport {
                    name,
                    frames,
                    calls_per_frame: calls as f64 / frames.max(1) as f64,
                    mean_ms: summary.mean,
                    p95_ms: summary.p95,
                    max_ms: summary.max,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.mean_ms
                .total_cmp(&a.mean_ms)
                .then_with(|| a.name.cmp(&b.name))
        });
        out
    }
}

/// Builds the report from the window's frames.
pub(super) fn build<'a>(
    frames: impl Iterator<Item = &'a Frame>,
    budget: Duration,
    dropped_scopes: u64,
    threads: Vec<(u32, String)>,
) -> TimerReport {
    let frames: Vec<&Frame> = frames.collect();
    let budget_ns = budget.as_nanos().min(u64::MAX as u128) as u64;
    let mut frame_ms: Vec<f64> = frames.iter().map(|f| ms(f.dur_ns)).collect();
    let mut phases = Series::default();
    let mut gpu = Series::default();
    let mut jobs_frames = 0usize;
    let (mut jobs, mut steals) = (0u64, 0u64);
    let mut idle: Vec<(f64, usize)> = Vec::new();
    let mut trace = Trace {
        threads,
        ..Trace::default()
    };
    for f in &frames {
        phases.add_frame(
            f.phases
                .iter()
                .map(|p| (p.name.to_owned(), ms(p.ns), u64::from(p.calls))),
        );
        gpu.add_frame(f.gpu.iter().map(|(name, v)| (name.clone(), *v, 1)));
        if let Some(j) = &f.jobs {
            jobs_frames += 1;
            jobs += j.jobs;
            steals += j.steals;
            if idle.len() < j.idle_percent.len() {
                idle.resize(j.idle_percent.len(), (0.0, 0));
            }
            for (slot, &pct) in idle.iter_mut().zip(&j.idle_percent) {
                slot.0 += pct;
                slot.1 += 1;
            }
        }
        trace.frames.push((f.index, f.start_ns, f.dur_ns));
        trace.spans.extend_from_slice(&f.spans);
    }
    trace.spans.sort_by(|a, b| {
        (a.tid, a.start_ns, std::cmp::Reverse(a.dur_ns)).cmp(&(
            b.tid,
            b.start_ns,
            std::cmp::Reverse(b.dur_ns),
        ))
    });
    TimerReport {
        frames: frames.len(),
        first_frame: frames.first().map_or(0, |f| f.index),
        budget_ms: ms(budget_ns),
        over_budget: frames.iter().filter(|f| f.dur_ns > budget_ns).count(),
        frame_ms: summarize(&mut frame_ms),
        phases: phases.reports(),
        gpu_passes: gpu.reports(),
        jobs: (jobs_frames > 0).then(|| JobsReport {
            frames: jobs_frames,
            jobs_per_frame: jobs as f64 / jobs_frames as f64,
            steals_per_frame: steals as f64 / jobs_frames as f64,
            idle_percent: idle.iter().map(|&(sum, n)| sum / n.max(1) as f64).collect(),
        }),
        dropped_scopes,
        trace,
    }
}

impl TimerReport {
    /// The report as a table for the terminal.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let over_pct = if self.frames > 0 {
            self.over_budget as f64 * 100.0 / self.frames as f64
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "frames {} (#{}..#{})   budget {:.2} ms   over budget {} ({:.1}%)",
            self.frames,
            self.first_frame,
            (self.first_frame + self.frames as u64).saturating_sub(1),
            self.budget_ms,
            self.over_budget,
            over_pct
        );
        let width = self
            .phases
            .iter()
            .chain(&self.gpu_passes)
            .map(|p| p.name.chars().count())
            .max()
            .unwrap_or(0)
            .max(16);
        let f = &self.frame_ms;
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "frame time (ms)", "mean", "p50", "p95", "p99", "max"
        );
        let _ = writeln!(
            out,
            "{:<width$} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            "", f.mean, f.p50, f.p95, f.p99, f.max
        );
        for (title, rows) in [
            ("phase (cpu ms)", &self.phases),
            ("gpu pass (ms)", &self.gpu_passes),
        ] {
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "{:<width$} {:>9} {:>9} {:>9} {:>9} {:>9}",
                title, "frames", "calls/fr", "mean", "p95", "max"
            );
            for p in rows.iter() {
                let _ = writeln!(
                    out,
                    "{:<width$} {:>9} {:>9.2} {:>9.3} {:>9.3} {:>9.3}",
                    p.name, p.frames, p.calls_per_frame, p.mean_ms, p.p95_ms, p.max_ms
                );
            }
        }
        if let Some(j) = &self.jobs {
            let _ = write!(
                out,
                "jobs/frame {:.1}   steals/frame {:.1}   idle %",
                j.jobs_per_frame, j.steals_per_frame
            );
            for (t, pct) in j.idle_percent.iter().enumerate() {
                if t == 0 {
                    let _ = write!(out, "  main {pct:.1}");
                } else {
                    let _ = write!(out, "  w{t} {pct:.1}");
                }
            }
            out.push('\n');
        }
        if self.dropped_scopes > 0 {
            let _ = writeln!(out, "dropped scopes {}", self.dropped_scopes);
        }
        out
    }

    /// The report as one JSON object, for benchmark comparisons:
    /// `frames`, `first_frame`, `budget_ms`, `over_budget`, `frame_ms` (`mean`,
    /// `p50`, `p95`, `p99`, `max`), `phases` and `gpu_passes` (arrays of `name`,
    /// `frames`, `calls_per_frame`, `mean_ms`, `p95_ms`, `max_ms`), `jobs` (`frames`,
    /// `jobs_per_frame`, `steals_per_frame`, `idle_percent` array; or `null`) and
    /// `dropped_scopes`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(512);
        out.push('{');
        json::key(&mut out, true, "frames");
        json::number(&mut out, self.frames as f64);
        json::key(&mut out, false, "first_frame");
        json::number(&mut out, self.first_frame as f64);
        json::key(&mut out, false, "budget_ms");
        json::number(&mut out, self.budget_ms);
        json::key(&mut out, false, "over_budget");
        json::number(&mut out, self.over_budget as f64);
        json::key(&mut out, false, "frame_ms");
        let f = &self.frame_ms;
        out.push('{');
        for (i, (k, v)) in [
            ("mean", f.mean),
            ("p50", f.p50),
            ("p95", f.p95),
            ("p99", f.p99),
            ("max", f.max),
        ]
        .into_iter()
        .enumerate()
        {
            json::key(&mut out, i == 0, k);
            json::number(&mut out, v);
        }
        out.push('}');
        for (k, rows) in [("phases", &self.phases), ("gpu_passes", &self.gpu_passes)] {
            json::key(&mut out, false, k);
            out.push('[');
            for (i, p) in rows.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('{');
                json::key(&mut out, true, "name");
                json::string(&mut out, &p.name);
                json::key(&mut out, false, "frames");
                json::number(&mut out, p.frames as f64);
                json::key(&mut out, false, "calls_per_frame");
                json::number(&mut out, p.calls_per_frame);
                json::key(&mut out, false, "mean_ms");
                json::number(&mut out, p.mean_ms);
                json::key(&mut out, false, "p95_ms");
                json::number(&mut out, p.p95_ms);
                json::key(&mut out, false, "max_ms");
                json::number(&mut out, p.max_ms);
                out.push('}');
            }
            out.push(']');
        }
        json::key(&mut out, false, "jobs");
        match &self.jobs {
            None => out.push_str("null"),
            Some(j) => {
                out.push('{');
                json::key(&mut out, true, "frames");
                json::number(&mut out, j.frames as f64);
                json::key(&mut out, false, "jobs_per_frame");
                json::number(&mut out, j.jobs_per_frame);
                json::key(&mut out, false, "steals_per_frame");
                json::number(&mut out, j.steals_per_frame);
                json::key(&mut out, false, "idle_percent");
                out.push('[');
                for (i, &v) in j.idle_percent.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json::number(&mut out, v);
                }
                out.push_str("]}");
            }
        }
        json::key(&mut out, false, "dropped_scopes");
        json::number(&mut out, self.dropped_scopes as f64);
        out.push('}');
        out
    }

    /// The scopes of the most recent frames (see
    /// [`FrameTimerConfig::trace_frames`](super::FrameTimerConfig::trace_frames))
    /// as Chrome trace-event JSON, which Perfetto and `chrome://tracing` open:
    /// `{"traceEvents":[...]}` with one complete event (`"ph":"X"`, `ts` and `dur`
    /// in microseconds) per scope on its thread's track, one per frame on the
    /// `frames` track (tid 0), and thread-name metadata events.
    pub fn chrome_trace_json(&self) -> String {
        let t = &self.trace;
        let mut out = String::with_capacity(64 + 96 * (t.spans.len() + t.frames.len()));
        out.push_str("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push(',');
            }
            first = false;
        };
        sep(&mut out);
        out.push_str(
            "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"dh frame timer\"}}",
        );
        let names = std::iter::once((0u32, "frames"))
            .chain(t.threads.iter().map(|(tid, n)| (*tid, n.as_str())));
        for (tid, name) in names {
            sep(&mut out);
            let _ = write!(out, "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"args\":{{\"name\":");
            json::string(&mut out, name);
            out.push_str("}}");
        }
        for &(index, start, dur) in &t.frames {
            sep(&mut out);
            let _ = write!(
                out,
                "{{\"name\":\"frame {index}\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":"
            );
            json::number(&mut out, start as f64 / 1e3);
            out.push_str(",\"dur\":");
            json::number(&mut out, dur as f64 / 1e3);
            let _ = write!(out, ",\"args\":{{\"frame\":{index}}}}}");
        }
        for s in &t.spans {
            sep(&mut out);
            out.push_str("{\"name\":");
            json::string(&mut out, s.name);
            let _ = write!(out, ",\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":", s.tid);
            json::number(&mut out, s.start_ns as f64 / 1e3);
            out.push_str(",\"dur\":");
            json::number(&mut out, s.dur_ns as f64 / 1e3);
            out.push('}');
        }
        out.push_str("]}");
        out
    }

    /// Writes [`chrome_trace_json`](Self::chrome_trace_json) to `path`.
    ///
    /// # Errors
    /// [`JobsError::Write`] when the file cannot be written.
    pub fn write_chrome_trace(&self, path: impl AsRef<Path>) -> Result<(), JobsError> {
        let path = path.as_ref();
        std::fs::write(path, self.chrome_trace_json()).map_err(|source| JobsError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

impl std::fmt::Display for TimerReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_table())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&v, 50), Some(50));
        assert_eq!(nearest_rank(&v, 95), Some(95));
        assert_eq!(nearest_rank(&v, 99), Some(99));
        assert_eq!(nearest_rank(&v, 100), Some(100));
        let v = [10u64, 20, 30, 40, 50];
        // ceil(0.5 * 5) = 3, ceil(0.95 * 5) = 5
        assert_eq!(nearest_rank(&v, 50), Some(30));
        assert_eq!(nearest_rank(&v, 95), Some(50));
        assert_eq!(nearest_rank(&v, 0), Some(10));
        assert_eq!(nearest_rank::<u64>(&[], 50), None);
        assert_eq!(nearest_rank(&[7u64], 99), Some(7));
    }
}
