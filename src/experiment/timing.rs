//! Wall-time measurement a reader can repeat: after the simulation pass (parallel, whose data
//! files do not depend on timing), every cell that ran to the end is re-run at least `repeats`
//! times, one cell at a time, on one thread pinned to one core, until its `repeats` fastest runs
//! agree within the relative spread `spread` ((max − min)/min) or [`MAX_RUNS_FACTOR`] × `repeats`
//! runs are spent; its wall time and median step time are summarised as median and min–max over
//! those fastest runs, and a cell that never got within the bound is marked unsteady. Load from
//! other processes only slows a run down, so the fastest runs are the least disturbed.

use super::contained::run_contained;
use super::grid::{Cell, Experiment};
use super::runner::{RunResult, Status};

/// min, median and max of a set of measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Spread {
    /// Smallest.
    pub min: f64,
    /// Median (mean of the two middle values for an even count).
    pub median: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `x` (all zero for none).
    pub fn of(x: &[f64]) -> Spread {
        if x.is_empty() {
            return Spread::default();
        }
        let mut v = x.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) };
        Spread { min: v[0], median, max: v[n - 1] }
    }

    /// (max − min)/min: 0 for one measurement, infinite for a zero minimum with a spread.
    pub fn relative(&self) -> f64 {
        let d = self.max - self.min;
        if d == 0.0 { 0.0 } else { d / self.min }
    }

    /// Whether two spreads overlap (the measurements cannot tell the two apart).
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// Where a cell's timing was measured: the host, its CPU model and the core the timing pass was
/// pinned to (None: unpinned). Timings from different hosts or CPU models are not comparable.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimedBy {
    /// The host name.
    pub host: String,
    /// Its CPU model (`/proc/cpuinfo`'s model name).
    pub cpu: String,
    /// The core the timing thread was pinned to.
    pub core: Option<usize>,
}

impl TimedBy {
    /// This host and CPU, with the timing pass pinned to `core`.
    pub fn here(core: Option<usize>) -> TimedBy {
        TimedBy { host: super::store::host(), cpu: cpu_model(), core }
    }
}

/// This machine's CPU model (Linux `/proc/cpuinfo`'s first `model name`), or "unknown CPU".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|x| x.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// At most this many times `repeats` timed runs per cell.
pub const MAX_RUNS_FACTOR: usize = 4;

/// The timing of one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    /// Timed runs summarised (the fastest of `runs`); 0 when the time is the single measurement
    /// of the simulation pass (taken while other cells ran) or the cell did not run to the end.
    pub repeats: usize,
    /// Timed runs made in all (at least `repeats`).
    pub runs: usize,
    /// Whether the `repeats` fastest runs agree within the config's spread bound (true for the
    /// single measurement of the simulation pass, which has no spread to judge).
    pub steady: bool,
    /// Wall time of stepping over the whole run \[s\].
    pub wall: Spread,
    /// Median wall time of one step \[s\].
    pub step: Spread,
}

impl Timing {
    /// The single, concurrent measurement of the simulation pass.
    pub fn concurrent(r: &RunResult) -> Timing {
        let c = &r.summary.counters;
        let one = |x: f64| Spread { min: x, median: x, max: x };
        Timing { repeats: 0, runs: 0, steady: true, wall: one(c.wall_seconds), step: one(c.median_step_seconds) }
    }

    /// The timing of `runs` = (wall, median step) pairs: the `repeats` fastest by wall time, and
    /// whether they agree within `spread`.
    pub fn of_fastest(runs: &[(f64, f64)], repeats: usize, spread: f64) -> Timing {
        let fastest = fastest(runs, repeats);
        let wall: Vec<f64> = fastest.iter().map(|r| r.0).collect();
        let step: Vec<f64> = fastest.iter().map(|r| r.1).collect();
        let wall = Spread::of(&wall);
        Timing {
            repeats: fastest.len(),
            runs: runs.len(),
            steady: wall.relative() <= spread,
            wall,
            step: Spread::of(&step),
        }
    }
}

/// The `k` runs of least wall time (ties in run order).
fn fastest(runs: &[(f64, f64)], k: usize) -> Vec<(f64, f64)> {
    let mut sorted = runs.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    sorted.truncate(k);
    sorted
}

/// The lock file through which timing passes on one host share out its cores: core `id`'s,
/// in the temporary directory (local to the host), opened without following a link.
fn core_lock(id: usize) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = std::env::temp_dir().join(format!("tinkertoy-timing-core-{id}.lock"));
    let open = |write: bool| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(write)
            .create(write)
            .truncate(false)
            .mode(0o666)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
    };
    // another user's file may be read-only to us; the lock needs no write access
    open(true).or_else(|_| open(false)).ok()
}

/// Takes the exclusive lock of `file` if it is free; whether it was.
fn lock(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid open descriptor; flock has no memory effects.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Pins the calling thread to a core of the process's CPU set that no other timing pass on this
/// host holds, claimed through its lock file ([`core_lock`]), last core first; when every one is
/// held, it tries again every 20 ms until one is free. Shards sharing a host so time on
/// different cores instead of all on the last, which doubled their times with two shards per
/// host. Returns the core's id and its lock, held until dropped (best effort: where no lock file
/// can be opened it pins to the last core unclaimed, and timing still runs serially if the
/// platform refuses to pin).
fn pin() -> Option<(usize, Option<std::fs::File>)> {
    let cores = core_affinity::get_core_ids()?;
    let locks: Vec<_> = cores.iter().rev().filter_map(|c| core_lock(c.id).map(|l| (*c, l))).collect();
    let (core, claim) = if locks.is_empty() {
        (*cores.last()?, None)
    } else {
        loop {
            if let Some((c, l)) = locks.iter().find(|(_, l)| lock(l)) {
                break (*c, l.try_clone().ok());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    core_affinity::set_for_current(core).then_some((core.id, claim))
}

impl Experiment {
    /// Times every cell that ran to the end, serially on one pinned thread: `self.goals.repeats`
    /// runs, then more until the fastest `repeats` agree within `self.goals.spread` or
    /// [`MAX_RUNS_FACTOR`] × `repeats` runs are spent; other cells (and all cells with 0 repeats)
    /// keep the simulation pass's single measurement. A `known` timing (stored by an earlier,
    /// interrupted run of this build and config on this host) is reused, not measured again; each
    /// new timing is passed to `timed` as soon as it is complete, to be stored. Returns the
    /// timings and the core the thread was pinned to.
    pub fn time_all(
        &self,
        cells: &[Cell],
        results: &[RunResult],
        known: &[Option<Timing>],
        timed: &(dyn Fn(&Cell, &Timing) + Sync),
        tick: &(dyn Fn() + Sync),
    ) -> (Vec<Timing>, Option<usize>) {
        let repeats = self.goals.repeats;
        std::thread::scope(|s| {
            s.spawn(|| {
                let pinned = if repeats > 0 { pin() } else { None };
                let core = pinned.as_ref().map(|p| p.0);
                // the core's claim is held until every cell is timed
                let _claim = pinned.and_then(|p| p.1);
                let timings = cells
                    .iter()
                    .zip(results)
                    .zip(known)
                    .map(|((c, r), known)| {
                        if repeats == 0 || r.summary.status != Status::Ok {
                            return Timing::concurrent(r);
                        }
                        if let Some(t) = known {
                            return *t;
                        }
                        let mut runs = Vec::with_capacity(MAX_RUNS_FACTOR * repeats);
                        loop {
                            let again = run_contained(&self.variants[c.variant].scene, &self.spec(c));
                            // A timed run repeats the same computation: the same steps and solves.
                            debug_assert_eq!(again.summary.counters.steps, r.summary.counters.steps);
                            debug_assert_eq!(again.summary.counters.rhs_evals, r.summary.counters.rhs_evals);
                            let k = &again.summary.counters;
                            runs.push((k.wall_seconds, k.median_step_seconds));
                            if runs.len() <= repeats {
                                tick();
                            }
                            if runs.len() < repeats {
                                continue;
                            }
                            let t = Timing::of_fastest(&runs, repeats, self.goals.spread);
                            if t.steady || runs.len() >= MAX_RUNS_FACTOR * repeats {
                                timed(c, &t);
                                break t;
                            }
                        }
                    })
                    .collect();
                (timings, core)
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Spread;

    #[test]
    fn a_timing_summarises_the_fastest_runs_and_judges_their_spread() {
        // Five runs, one disturbed (3.0 s): the three fastest are 1.00, 1.05, 1.08 — within 10 %
        // of each other (8 %), not within 5 %.
        let runs = [(1.05, 0.1), (3.0, 0.3), (1.0, 0.2), (1.08, 0.4), (1.5, 0.5)];
        let t = super::Timing::of_fastest(&runs, 3, 0.10);
        assert_eq!((t.repeats, t.runs, t.steady), (3, 5, true));
        assert_eq!((t.wall.min, t.wall.median, t.wall.max), (1.0, 1.05, 1.08));
        assert_eq!((t.step.min, t.step.max), (0.1, 0.4), "the step times of the same runs");
        assert!(!super::Timing::of_fastest(&runs, 3, 0.05).steady);
        assert_eq!(super::Timing::of_fastest(&runs[..1], 1, 0.0).wall.relative(), 0.0);
    }

    #[test]
    fn spread_is_min_median_max_and_overlap_is_interval_intersection() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0]).median, 2.5);
        assert!(s.overlaps(&Spread { min: 3.0, median: 3.5, max: 4.0 }));
        assert!(!s.overlaps(&Spread { min: 3.1, median: 3.5, max: 4.0 }));
    }
}
