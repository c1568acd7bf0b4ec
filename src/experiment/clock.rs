//! The time axis of fixed-step cells: a cell labelled h takes steps of exactly h, and step
//! boundary n is at t = n·h, counted, never accumulated (docs/design.md §7). A step written as a
//! fraction or a decimal keeps that exact value, so boundary times print as its decimal. The
//! stops of a run (samples and probe times) are laid out here for both kinds of time axis.

use super::cell::CellSpec;

/// The exact fraction p/q a step was written as: `p/q` with integers, or a plain decimal.
pub(crate) fn exact_fraction(text: &str) -> Option<(u64, u64)> {
    let int = |s: &str| s.trim().parse::<u64>().ok();
    if let Some((p, q)) = text.split_once('/') {
        return int(p).zip(int(q)).filter(|&(p, q)| p > 0 && q > 0);
    }
    let t = text.trim();
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 15 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let q = 10u64.pow(frac.len() as u32);
    let whole = if whole.is_empty() { 0 } else { int(whole)? };
    let frac = if frac.is_empty() { 0 } else { int(frac)? };
    let p = whole.checked_mul(q)?.checked_add(frac)?;
    (p > 0).then_some((p, q))
}

/// Time k·interval \[s\] (a sample time, or a step boundary n·h), as k·p/q (one rounding) when the interval's shortest decimal is
/// the fraction p/q, so that it prints as that decimal (0.15, not 0.15000000000000002).
pub(crate) fn sample_time(k: u64, interval: f64, fraction: Option<(u64, u64)>) -> f64 {
    match fraction.and_then(|(p, q)| k.checked_mul(p).map(|kp| (kp, q))) {
        Some((kp, q)) if kp < 1 << 53 => kp as f64 / q as f64,
        _ => k as f64 * interval,
    }
}

/// The time axis of a fixed step h: boundary n is at n·h, computed as n·p/q (one rounding) when h
/// was written as the fraction p/q, so that it prints as that decimal.
pub(crate) struct FixedClock {
    pub(crate) h: f64,
    fraction: Option<(u64, u64)>,
    /// The last boundary: the one nearest the duration (|n·h − duration| ≤ h/2), at least 1.
    pub(crate) n_end: u64,
}

impl FixedClock {
    pub(crate) fn new(h: f64, fraction: Option<(u64, u64)>, duration: f64) -> Self {
        FixedClock { h, fraction, n_end: (duration / h + 0.5).floor().max(1.0) as u64 }
    }

    /// t_n \[s\].
    pub(crate) fn time(&self, n: u64) -> f64 {
        sample_time(n, self.h, self.fraction)
    }

    /// The first boundary at or after time `t`, capped at the last. t/h carries the rounding of h
    /// and of t (≈ n ε relative): a slack of 1e-6 of a step absorbs it for n up to ~10⁹ without
    /// ever skipping to the boundary before.
    pub(crate) fn boundary_at_or_after(&self, t: f64) -> u64 {
        ((t / self.h - 1e-6).ceil().max(1.0) as u64).min(self.n_end)
    }
}

/// A time the run stops at: a sample, or a probe time.
pub(super) struct Stop {
    /// The time \[s\].
    pub(super) t: f64,
    /// Fixed steps: the step boundary of the stop.
    pub(super) boundary: Option<u64>,
    /// A probe (outputs only) rather than a sample.
    pub(super) is_probe: bool,
}

/// The samples (every k·interval, the last at the duration) and probe times of a run, in time
/// order. Fixed steps: a sample is at the first boundary at or after its time (boundaries already
/// sampled are skipped); a probe is at the boundary nearest its time (checked to be on one before
/// the run).
pub(super) fn stops(cell: &CellSpec, clock: Option<&FixedClock>) -> Vec<Stop> {
    let n_samples = (cell.duration / cell.sample_interval - 1e-9).ceil().max(1.0) as u64;
    let fraction = exact_fraction(&format!("{}", cell.sample_interval));
    let mut out: Vec<Stop> = Vec::with_capacity(n_samples as usize + cell.probe_times.len());
    let mut last = 0;
    for k in 1..=n_samples {
        let t = if k == n_samples { cell.duration } else { sample_time(k, cell.sample_interval, fraction) };
        let boundary = clock.map(|c| if k == n_samples { c.n_end } else { c.boundary_at_or_after(t) });
        if let Some(b) = boundary {
            if b <= last {
                continue; // this boundary was sampled already (sample interval below h)
            }
            last = b;
        }
        out.push(Stop { t, boundary, is_probe: false });
    }
    let mut probes = cell.probe_times.iter().map(|&t| Stop {
        t,
        boundary: clock.map(|c| ((t / c.h).round() as u64).min(c.n_end)),
        is_probe: true,
    });
    // Merge by time (by boundary for fixed steps); a probe goes before a sample at the same time.
    let mut merged = Vec::with_capacity(out.len() + cell.probe_times.len());
    let mut next = probes.next();
    for s in out {
        while let Some(p) = next.take() {
            let before = match (p.boundary, s.boundary) {
                (Some(a), Some(b)) => a <= b,
                _ => p.t <= s.t,
            };
            if before {
                merged.push(p);
                next = probes.next();
            } else {
                next = Some(p);
                break;
            }
        }
        merged.push(s);
    }
    merged.extend(next);
    merged.extend(probes);
    merged
}

#[cfg(test)]
mod tests {
    use super::{FixedClock, exact_fraction};

    #[test]
    fn boundaries_are_counted_not_accumulated() {
        let c = FixedClock::new(1.0 / 60.0, Some((1, 60)), 10.0);
        assert_eq!(c.n_end, 600);
        // 0.05 s = 3 steps, although 0.05 / (1/60) = 3.0000000000000004 in floating point.
        assert_eq!(c.boundary_at_or_after(0.05), 3);
        assert_eq!(c.boundary_at_or_after(0.06), 4);
        assert_eq!(c.time(3), 0.05);
        assert_eq!(c.time(600), 10.0);
        // Long runs: the boundary at or after 2e9 + 0.5 steps is 2e9 + 1.
        let long = FixedClock::new(1e-3, Some((1, 1000)), 4e6);
        assert_eq!(long.boundary_at_or_after((2e9 + 0.5) * 1e-3), 2_000_000_001);
        // The run ends at the boundary nearest the duration: 10 s at h = 0.3 s ends at 9.9 s.
        assert_eq!(FixedClock::new(0.3, Some((3, 10)), 10.0).n_end, 33);
    }

    #[test]
    fn steps_are_read_as_the_exact_fractions_they_were_written_as() {
        assert_eq!(exact_fraction("1/60"), Some((1, 60)));
        assert_eq!(exact_fraction(" 3 / 200 "), Some((3, 200)));
        assert_eq!(exact_fraction("0.0025"), Some((25, 10000)));
        assert_eq!(exact_fraction("2"), Some((2, 1)));
        assert_eq!(exact_fraction("1.5"), Some((15, 10)));
        for not_exact in ["1e-3", "0.1/3", "-0.5", "0", "1/0", "", "."] {
            assert_eq!(exact_fraction(not_exact), None, "{not_exact}");
        }
    }
}
