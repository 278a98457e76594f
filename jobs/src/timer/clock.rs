//! The timer's clock: the CPU's time-stamp counter where the OS trusts it,
//! `Instant` elsewhere.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Where ticks come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `rdtsc`: a few nanoseconds a read; used only where the counter is invariant.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Tsc,
    /// Nanoseconds since the clock's base `Instant`.
    Os,
}

/// A process-wide clock: ticks, and their conversion to nanoseconds since `base`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    source: Source,
    base: Instant,
    base_ticks: u64,
}

static CLOCK: OnceLock<Clock> = OnceLock::new();

/// How long the first use calibrates the counter against `Instant`; later
/// conversions use the whole time since then, so they only get more precise.
const CALIBRATION: Duration = Duration::from_millis(2);

impl Clock {
    /// The process clock (calibrated on first use).
    pub(crate) fn get() -> Clock {
        *CLOCK.get_or_init(Clock::init)
    }

    fn init() -> Clock {
        let base = Instant::now();
        if tsc_usable() {
            let base_ticks = read_tsc();
            // Let enough time pass that the first ratio is already precise.
            while base.elapsed() < CALIBRATION {
                std::hint::spin_loop();
            }
            return Clock {
                source: Source::Tsc,
                base,
                base_ticks,
            };
        }
        Clock {
            source: Source::Os,
            base,
            base_ticks: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn source(&self) -> Source {
        self.source
    }

    /// The current tick count.
    #[inline(always)]
    pub(crate) fn ticks(&self) -> u64 {
        match self.source {
            Source::Tsc => read_tsc(),
            Source::Os => self.base.elapsed().as_nanos() as u64,
        }
    }

    /// Nanoseconds per tick as measured from the clock's base to now, together
    /// with the current tick count (so callers convert with a fresh ratio).
    pub(crate) fn calibrate(&self) -> Calibration {
        match self.source {
            Source::Tsc => {
                let ns = self.base.elapsed().as_nanos() as f64;
                let ticks = read_tsc();
                let elapsed = ticks.wrapping_sub(self.base_ticks).max(1) as f64;
                Calibration {
                    base_ticks: self.base_ticks,
                    ns_per_tick: ns / elapsed,
                    now_ticks: ticks,
                }
            }
            Source::Os => Calibration {
                base_ticks: 0,
                ns_per_tick: 1.0,
                now_ticks: self.ticks(),
            },
        }
    }
}

/// A tick-to-nanosecond conversion taken at one moment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calibration {
    base_ticks: u64,
    ns_per_tick: f64,
    /// The tick count when the calibration was taken.
    pub(crate) now_ticks: u64,
}

impl Calibration {
    /// A span of `ticks` in nanoseconds.
    pub(crate) fn span_ns(&self, ticks: u64) -> u64 {
        (ticks as f64 * self.ns_per_tick) as u64
    }

    /// Nanoseconds since the clock's base at `ticks`.
    pub(crate) fn ns(&self, ticks: u64) -> u64 {
        if self.ns_per_tick == 1.0 && self.base_ticks == 0 {
            return ticks;
        }
        // Ticks read on another core a moment before the base can be a hair
        // smaller; clamp at 0.
        (ticks.saturating_sub(self.base_ticks) as f64 * self.ns_per_tick) as u64
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn read_tsc() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86_64; it only reads the counter.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn read_tsc() -> u64 {
    0
}

/// Whether the time-stamp counter runs at a constant rate in step across cores:
/// the CPU says it is invariant (CPUID 0x8000_0007, EDX bit 8), or Linux uses it
/// as its clock source (virtual machines often hide the CPUID bit).
#[cfg(target_arch = "x86_64")]
fn tsc_usable() -> bool {
    if std::env::var_os("DH_TIMER_NO_TSC").is_some() {
        return false;
    }
    let max_ext = core::arch::x86_64::__cpuid(0x8000_0000).eax;
    if max_ext >= 0x8000_0007 && core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0 {
        return true;
    }
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .is_ok_and(|s| s.trim() == "tsc")
}

#[cfg(not(target_arch = "x86_64"))]
fn tsc_usable() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_convert_to_elapsed_time() {
        let clock = Clock::get();
        let t0 = clock.ticks();
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(5) {
            std::hint::spin_loop();
        }
        let t1 = clock.ticks();
        let cal = clock.calibrate();
        let measured = cal.ns(t1) - cal.ns(t0);
        // Loose bounds: the conversion must be in the right unit, not exact.
        assert!(
            measured >= 4_000_000,
            "{measured} ns for a 5 ms spin ({:?})",
            clock.source()
        );
        assert!(measured < 60_000_000_000, "{measured} ns");
    }
}
