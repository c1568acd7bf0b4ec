//! Wall-time measurement a reader can repeat: after the simulation pass (parallel, whose data
//! files do not depend on timing), every cell that ran to the end is re-run `repeats` times, one
//! cell at a time, on one thread pinned to one core, and its wall time and median step time are
//! summarised as median and min–max over the repeats.

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

    /// Whether two spreads overlap (the measurements cannot tell the two apart).
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// The timing of one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    /// Timed repeats; 0 when the time is the single measurement of the simulation pass (taken
    /// while other cells ran) or the cell did not run to the end.
    pub repeats: usize,
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
        Timing { repeats: 0, wall: one(c.wall_seconds), step: one(c.median_step_seconds) }
    }
}

/// Pins the calling thread to the last core the process may use (best effort: timing still runs
/// serially if the platform refuses); returns the core's id.
fn pin() -> Option<usize> {
    let core = core_affinity::get_core_ids()?.into_iter().last()?;
    core_affinity::set_for_current(core).then_some(core.id)
}

impl Experiment {
    /// Times every cell that ran to the end `self.goals.repeats` times, serially on one pinned
    /// thread; other cells (and all cells with 0 repeats) keep the simulation pass's single
    /// measurement. Returns the timings and the core the thread was pinned to.
    pub fn time_all(
        &self,
        cells: &[Cell],
        results: &[RunResult],
        tick: &(dyn Fn() + Sync),
    ) -> (Vec<Timing>, Option<usize>) {
        let repeats = self.goals.repeats;
        std::thread::scope(|s| {
            s.spawn(|| {
                let core = if repeats > 0 { pin() } else { None };
                let timings = cells
                    .iter()
                    .zip(results)
                    .map(|(c, r)| {
                        if repeats == 0 || r.summary.status != Status::Ok {
                            return Timing::concurrent(r);
                        }
                        let (mut wall, mut step) = (Vec::with_capacity(repeats), Vec::with_capacity(repeats));
                        for _ in 0..repeats {
                            let again = run_contained(&self.variants[c.variant].scene, &self.spec(c));
                            // A timed run repeats the same computation: the same steps and solves.
                            debug_assert_eq!(again.summary.counters.steps, r.summary.counters.steps);
                            debug_assert_eq!(again.summary.counters.rhs_evals, r.summary.counters.rhs_evals);
                            wall.push(again.summary.counters.wall_seconds);
                            step.push(again.summary.counters.median_step_seconds);
                            tick();
                        }
                        Timing { repeats, wall: Spread::of(&wall), step: Spread::of(&step) }
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
    fn spread_is_min_median_max_and_overlap_is_interval_intersection() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(Spread::of(&[4.0, 1.0]).median, 2.5);
        assert!(s.overlaps(&Spread { min: 3.0, median: 3.5, max: 4.0 }));
        assert!(!s.overlaps(&Spread { min: 3.1, median: 3.5, max: 4.0 }));
    }
}
