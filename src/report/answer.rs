//! The answers a report opens with, as pure functions of per-cell numbers (so they can be tested
//! on synthetic summaries): the cheapest cell that meets an accuracy target, by wall time and by
//! work counters; the accuracy–cost Pareto front; observed convergence orders.

use crate::experiment::timing::Spread;
use crate::experiment::{Metric, Target};

/// One cell as the answer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Cell id.
    pub id: usize,
    /// Whether it ran to the end (only such cells can meet a target).
    pub ok: bool,
    /// Its value of every metric, in [`Metric::ALL`] order (NaN when it has none).
    pub metrics: [f64; 4],
    /// Wall time of the run \[s\]: median and min–max over the timing repeats.
    pub time: Spread,
    /// Work counters: RHS evaluations, linear solves, solver iterations.
    pub work: [u64; 3],
}

impl Candidate {
    /// Its value of `m`.
    pub fn metric(&self, m: Metric) -> f64 {
        let i = Metric::ALL.iter().position(|(x, _)| *x == m).unwrap_or(0);
        self.metrics[i]
    }

    /// Whether it ran to the end and every bound holds (a NaN metric does not hold).
    pub fn meets(&self, target: &Target) -> bool {
        self.ok && target.bounds.iter().all(|&(m, b)| self.metric(m) <= b)
    }

    /// How far it is from the target: the largest ratio metric / bound (≤ 1 when met); infinite
    /// for a cell that did not run to the end or lacks a metric.
    pub fn shortfall(&self, target: &Target) -> f64 {
        if !self.ok {
            return f64::INFINITY;
        }
        target
            .bounds
            .iter()
            .map(|&(m, b)| self.metric(m) / b)
            .fold(0.0, |a: f64, r| if r.is_nan() { f64::INFINITY } else { a.max(r) })
    }
}

/// The cheapest cells under one cost measure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pick {
    /// The cheapest.
    pub best: usize,
    /// The next cheapest, if any.
    pub runner_up: Option<usize>,
    /// Whether the measurements cannot tell the two apart (time spreads overlap; equal counters).
    pub tied: bool,
}

/// The answer for one scene variant and one target.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Choice {
    /// Cells meeting the target, cheapest (median wall time) first.
    pub meeting: Vec<usize>,
    /// Cheapest by wall time (median of the repeats; among cells whose time range overlaps the
    /// fastest one's, the one with the least work); None when no cell meets the target.
    pub by_time: Option<Pick>,
    /// Cheapest by work counters (RHS evaluations, then solves, then iterations).
    pub by_work: Option<Pick>,
    /// When none meets it: up to three cells that came closest (smallest shortfall), closest first.
    pub closest: Vec<usize>,
}

fn pick(sorted: &[&Candidate], tied: impl Fn(&Candidate, &Candidate) -> bool) -> Option<Pick> {
    let best = sorted.first()?;
    let runner = sorted.get(1);
    Some(Pick { best: best.id, runner_up: runner.map(|r| r.id), tied: runner.is_some_and(|r| tied(best, r)) })
}

/// Chooses, among `cells` (one scene variant), the cheapest that meet `target`.
pub(crate) fn choose(cells: &[Candidate], target: &Target) -> Choice {
    let mut meeting: Vec<&Candidate> = cells.iter().filter(|c| c.meets(target)).collect();
    meeting.sort_by(|a, b| a.time.median.total_cmp(&b.time.median).then(a.work.cmp(&b.work)).then(a.id.cmp(&b.id)));
    // Ties by time are broken by work: among the cells whose time range overlaps the fastest
    // one's, the least work is the pick, so that an answer does not follow the machine's load
    // between two cells the measurements cannot tell apart.
    let mut by_time_order = meeting.clone();
    if let Some(first) = meeting.first() {
        let lightest = meeting
            .iter()
            .filter(|c| c.time.overlaps(&first.time))
            .min_by(|a, b| a.work.cmp(&b.work).then(a.time.median.total_cmp(&b.time.median)).then(a.id.cmp(&b.id)));
        if let Some(l) = lightest {
            let i = by_time_order.iter().position(|c| c.id == l.id).unwrap_or(0);
            let chosen = by_time_order.remove(i);
            by_time_order.insert(0, chosen);
        }
    }
    let by_time = pick(&by_time_order, |a, b| a.time.overlaps(&b.time));
    let mut by_work_order = meeting.clone();
    by_work_order
        .sort_by(|a, b| a.work.cmp(&b.work).then(a.time.median.total_cmp(&b.time.median)).then(a.id.cmp(&b.id)));
    let by_work = pick(&by_work_order, |a, b| a.work == b.work);
    let closest = if meeting.is_empty() {
        let mut near: Vec<&Candidate> = cells.iter().filter(|c| c.shortfall(target).is_finite()).collect();
        near.sort_by(|a, b| a.shortfall(target).total_cmp(&b.shortfall(target)).then(a.id.cmp(&b.id)));
        near.iter().take(3).map(|c| c.id).collect()
    } else {
        Vec::new()
    };
    Choice { meeting: meeting.iter().map(|c| c.id).collect(), by_time, by_work, closest }
}

/// The Pareto front of (id, cost, error) points: the points no other point beats or equals in
/// both cost and error while beating it in one. Sorted by cost; non-finite points never qualify.
pub(crate) fn pareto(points: &[(usize, f64, f64)]) -> Vec<usize> {
    let mut p: Vec<&(usize, f64, f64)> = points.iter().filter(|q| q.1.is_finite() && q.2.is_finite()).collect();
    p.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)).then(a.0.cmp(&b.0)));
    let mut front = Vec::new();
    let mut best_err = f64::INFINITY;
    for q in p {
        if q.2 < best_err {
            front.push(q.0);
            best_err = q.2;
        }
    }
    front
}

/// Observed orders of a series of (h, error) points: the slope of log error against log h
/// between the two smallest steps (the asymptotic order), and the least-squares slope over all
/// points. None with fewer than two usable (positive, finite) points.
pub(crate) fn observed_order(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let mut p: Vec<(f64, f64)> =
        points.iter().filter(|(h, e)| *h > 0.0 && *e > 0.0 && e.is_finite()).map(|(h, e)| (h.ln(), e.ln())).collect();
    if p.len() < 2 {
        return None;
    }
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let finest = (p[1].1 - p[0].1) / (p[1].0 - p[0].0);
    let n = p.len() as f64;
    let (mx, my) = (p.iter().map(|q| q.0).sum::<f64>() / n, p.iter().map(|q| q.1).sum::<f64>() / n);
    let sxy: f64 = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum();
    let sxx: f64 = p.iter().map(|q| (q.0 - mx).powi(2)).sum();
    Some((finest, sxy / sxx))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(id: usize, err: f64, time: (f64, f64, f64), rhs: u64) -> Candidate {
        Candidate {
            id,
            ok: true,
            metrics: [err, 1e-9, 1e-9, 1e-6],
            time: Spread { min: time.0, median: time.1, max: time.2 },
            work: [rhs, rhs, rhs],
        }
    }

    fn target(bound: f64) -> Target {
        Target { bounds: vec![(Metric::ReferenceError, bound)] }
    }

    #[test]
    fn the_cheapest_cell_meeting_the_target_wins_by_time_and_by_work() {
        let cells = [
            cell(0, 1e-3, (1.0, 1.1, 1.2), 100), // too inaccurate, cheapest
            cell(1, 1e-7, (5.0, 5.2, 5.4), 900), // meets; slow
            cell(2, 1e-6, (2.0, 2.1, 2.2), 800), // meets at the bound; fastest of those that meet
            cell(3, 1e-8, (3.0, 3.1, 3.2), 400), // meets; fewest evaluations
        ];
        let c = choose(&cells, &target(1e-6));
        assert_eq!(c.meeting, vec![2, 3, 1]);
        assert_eq!(c.by_time, Some(Pick { best: 2, runner_up: Some(3), tied: false }));
        assert_eq!(c.by_work, Some(Pick { best: 3, runner_up: Some(2), tied: false }));
        assert!(c.closest.is_empty());
    }

    #[test]
    fn overlapping_time_spreads_and_equal_counters_are_ties() {
        let cells = [cell(0, 1e-9, (1.0, 1.3, 1.6), 500), cell(1, 1e-9, (1.5, 1.4, 2.0), 500)];
        let c = choose(&cells, &target(1e-6));
        assert_eq!(c.by_time, Some(Pick { best: 0, runner_up: Some(1), tied: true }));
        assert_eq!(c.by_work, Some(Pick { best: 0, runner_up: Some(1), tied: true }));
    }

    #[test]
    fn a_tie_by_time_goes_to_the_cell_with_less_work() {
        // Regression: the wall-time answer followed the machine's load (the same config named a
        // different cheapest cell 8 minutes apart). Cell 1 is faster by median but its range
        // overlaps cell 0's, which does half the work: cell 0 is the pick, tied with cell 1.
        let cells = [cell(0, 1e-9, (1.0, 1.3, 1.6), 500), cell(1, 1e-9, (1.1, 1.2, 2.0), 1000)];
        let c = choose(&cells, &target(1e-6));
        assert_eq!(c.by_time, Some(Pick { best: 0, runner_up: Some(1), tied: true }));
        // Without the overlap the faster cell wins whatever its work.
        let cells = [cell(0, 1e-9, (1.5, 1.6, 1.7), 500), cell(1, 1e-9, (1.1, 1.2, 1.3), 1000)];
        assert_eq!(choose(&cells, &target(1e-6)).by_time, Some(Pick { best: 1, runner_up: Some(0), tied: false }));
    }

    #[test]
    fn when_none_meets_the_target_the_closest_are_listed_and_failed_cells_never_count() {
        let mut failed = cell(3, 1e-12, (0.1, 0.1, 0.1), 10);
        failed.ok = false;
        let mut missing = cell(4, f64::NAN, (0.1, 0.1, 0.1), 10);
        missing.metrics[0] = f64::NAN;
        let cells = [
            cell(0, 1e-3, (1.0, 1.0, 1.0), 1),
            cell(1, 5e-6, (9.0, 9.0, 9.0), 9),
            cell(2, 2e-5, (2.0, 2.0, 2.0), 2),
            failed,
            missing,
        ];
        let c = choose(&cells, &target(1e-6));
        assert!(c.meeting.is_empty() && c.by_time.is_none() && c.by_work.is_none());
        assert_eq!(c.closest, vec![1, 2, 0]);
    }

    #[test]
    fn every_bound_of_a_combined_target_must_hold() {
        let t = Target { bounds: vec![(Metric::ReferenceError, 1e-6), (Metric::EnergyError, 1e-7)] };
        let cells = [cell(0, 1e-8, (1.0, 1.0, 1.0), 1)]; // energy error 1e-6 > 1e-7
        assert!(!cells[0].meets(&t));
        assert_eq!(cells[0].shortfall(&t), 1e-6 / 1e-7);
    }

    #[test]
    fn pareto_front_keeps_only_undominated_points() {
        let pts = [(0, 1.0, 1e-2), (1, 2.0, 1e-4), (2, 3.0, 1e-3), (3, 2.0, 1e-2), (4, 4.0, 1e-6), (5, f64::NAN, 0.0)];
        assert_eq!(pareto(&pts), vec![0, 1, 4]);
    }

    #[test]
    fn observed_order_recovers_the_power_of_a_power_law() {
        let pts: Vec<(f64, f64)> = [0.1, 0.05, 0.025].iter().map(|h: &f64| (*h, 3.0 * h.powi(4))).collect();
        let (finest, fit) = observed_order(&pts).unwrap();
        assert!((finest - 4.0).abs() < 1e-12 && (fit - 4.0).abs() < 1e-12);
        assert!(observed_order(&[(0.1, 1.0)]).is_none());
    }
}
