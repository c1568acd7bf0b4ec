//! The report sections that answer the reader's question, per scene variant: the cheapest cell
//! that meets the target, the rankings, the accuracy–cost Pareto fronts and the observed
//! convergence orders.

use super::answer::{self, Choice, Pick};
use super::{Row, metric_name};
use crate::experiment::{Experiment, RankBy};
use crate::integrator::registry::IntegratorKind;
use crate::params::fmt_num;
use std::fmt::Write;

/// Text made safe for one cell of a Markdown table: `|` escaped (it would end the cell), line
/// breaks as spaces (they would end the row), `<` and `>` as entities (raw HTML is shown as text).
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r', '\u{2028}', '\u{2029}'], " ").replace('<', "&lt;").replace('>', "&gt;")
}

pub(super) fn ms(x: f64) -> String {
    format!("{:.3}", x * 1e3)
}

pub(super) fn us(x: f64) -> String {
    format!("{:.1}", x * 1e6)
}

pub(super) fn e(x: f64) -> String {
    if x.is_nan() { "—".into() } else { format!("{x:.2e}") }
}

/// The rows of each scene variant, in variant order, with the variant's heading ("" for one).
pub(super) fn by_variant<'r, 'a>(exp: &Experiment, rows: &'r [Row<'a>]) -> Vec<(String, Vec<&'r Row<'a>>)> {
    exp.variants
        .iter()
        .enumerate()
        .map(|(v, variant)| {
            let title = if exp.variants.len() > 1 { variant.scene_params_text().join(", ") } else { String::new() };
            (title, rows.iter().filter(|r| r.cell.variant == v).collect())
        })
        .collect()
}

fn heading(out: &mut String, title: &str) {
    if !title.is_empty() {
        let _ = writeln!(out, "### {title}\n");
    }
}

/// "wall 0.52 ms [0.50–0.55]" (median [min–max] over the fastest timed runs), with " unsteady"
/// when they do not agree within the config's spread.
pub(super) fn wall(r: &Row) -> String {
    let t = &r.timing.wall;
    let flag = if r.timing.steady { "" } else { " unsteady" };
    if r.timing.repeats > 1 { format!("{} [{}–{}]{flag}", ms(t.median), ms(t.min), ms(t.max)) } else { ms(t.median) }
}

fn find<'r, 'a>(rows: &[&'r Row<'a>], id: usize) -> &'r Row<'a> {
    rows.iter().find(|r| r.cell.id == id).copied().unwrap_or(rows[0])
}

/// The cells of `best`'s series (the same method at the other steps or tolerances) that do not
/// meet `target`, and how many cells the series has besides `best`.
fn failing_neighbours<'r, 'a>(
    rows: &[&'r Row<'a>],
    best: &Row,
    target: &crate::experiment::Target,
) -> (Vec<&'r Row<'a>>, usize) {
    let neighbours: Vec<&Row> =
        rows.iter().copied().filter(|r| r.short_group == best.short_group && r.cell.id != best.cell.id).collect();
    let n = neighbours.len();
    (neighbours.into_iter().filter(|r| !r.candidate().meets(target)).collect(), n)
}

fn describe_pick(
    out: &mut String,
    rows: &[&Row],
    p: &Pick,
    by: &str,
    cost: &dyn Fn(&Row) -> String,
    (acc, target): (&str, &crate::experiment::Target),
) {
    let best = find(rows, p.best);
    let _ = write!(
        out,
        "- **Cheapest by {by}: #{} {}** — {}; {acc} {}",
        best.cell.id,
        best.full(),
        cost(best),
        best.accuracy().map_or("—".into(), e)
    );
    match p.runner_up {
        Some(id) => {
            let r = find(rows, id);
            let tie = if p.tied { " — **tied**: the measurements cannot tell the two apart" } else { "" };
            let _ = writeln!(out, ". Runner-up: #{} {} — {}{tie}.", r.cell.id, r.full(), cost(r));
        }
        None => {
            let _ = writeln!(out, "; the only cell that meets the target.");
        }
    }
    // An isolated pick: most of its series fails the target, so the setting is fragile.
    let (failing, n) = failing_neighbours(rows, best, target);
    if n > 0 && 2 * failing.len() > n {
        let listed: Vec<String> =
            failing.iter().map(|r| format!("{} {}", cell(&r.step), r.result.summary.status.label())).collect();
        let _ = writeln!(
            out,
            "  - **Isolated**: {} of the {n} other cells of its series (the same method at other steps or tolerances) do not meet the target ({}): it meets it at this setting, not robustly.",
            failing.len(),
            listed.join(", ")
        );
    }
}

/// `## Answer`: per variant, the cheapest cell meeting the target by wall time and by work.
pub(super) fn answer(out: &mut String, exp: &Experiment, rows: &[Row]) {
    let Some(target) = &exp.goals.target else { return };
    let bounds: Vec<String> =
        target.bounds.iter().map(|(m, b)| format!("{} ≤ {}", metric_name(exp, *m), fmt_num(*b))).collect();
    let _ = writeln!(out, "## Answer: the cheapest cell that meets the target\n");
    let timing = if exp.goals.repeats > 0 {
        format!(
            "the median of the {} fastest timed runs of the cell, one cell at a time on one pinned core [min–max in brackets; `unsteady` where they did not agree within {} of their minimum after {} runs]; cells whose ranges overlap are tied, and among the cells tied with the fastest the one with the least work is named",
            exp.goals.repeats,
            fmt_num(exp.goals.spread),
            crate::experiment::timing::MAX_RUNS_FACTOR * exp.goals.repeats
        )
    } else {
        "one run's wall time, measured while other cells ran (`timing.repeats: 0`): indicative only".into()
    };
    let _ = writeln!(
        out,
        "Target: {}. Cost by wall time is the stepping time of the whole run, {timing}. Cost by work is right-hand-side evaluations, then linear solves, then solver iterations (deterministic).\n",
        bounds.join(" and ")
    );
    let acc = metric_name(exp, exp.goals.accuracy);
    for (title, vrows) in by_variant(exp, rows) {
        heading(out, &title);
        let candidates: Vec<answer::Candidate> = vrows.iter().map(|r| r.candidate()).collect();
        let Choice { meeting, by_time, by_work, closest } = answer::choose(&candidates, target);
        let ran = vrows.iter().filter(|r| r.result.summary.counters.steps > 0).count();
        match (&by_time, &by_work) {
            (Some(t), Some(w)) => {
                describe_pick(out, &vrows, t, "wall time", &|r| format!("{} ms", wall(r)), (&acc, target));
                let work = |r: &Row| {
                    let c = &r.result.summary.counters;
                    format!(
                        "{} RHS evaluations, {} solves, {} solver iterations",
                        c.rhs_evals, c.linear_solves, c.solver_iterations
                    )
                };
                describe_pick(out, &vrows, w, "work", &work, (&acc, target));
                let _ = writeln!(out, "- {} of {ran} cells that ran meet the target.\n", meeting.len());
            }
            _ => {
                let _ =
                    writeln!(out, "- **No cell meets the target.** Closest (largest ratio of a metric to its bound):");
                for id in closest {
                    let r = find(&vrows, id);
                    let ratio = r.candidate().shortfall(target);
                    let _ = writeln!(
                        out,
                        "  - #{} {} — {} × the bound; {} ms",
                        r.cell.id,
                        r.full(),
                        fmt_num(ratio),
                        wall(r)
                    );
                }
                let _ = writeln!(out);
            }
        }
    }
}

fn rank_name(exp: &Experiment) -> String {
    match exp.goals.rank_by {
        RankBy::Metric(m) => metric_name(exp, m),
        RankBy::Time => "wall time (median of the timed runs)".into(),
        RankBy::Work => "work (RHS evaluations, then solves, then solver iterations)".into(),
    }
}

/// Ok cells first, ordered by `rank_by`; then diverged and failed cells by how far they got.
fn ranked<'r, 'a>(exp: &Experiment, rows: &[&'r Row<'a>]) -> Vec<&'r Row<'a>> {
    let mut v: Vec<&Row> = rows.iter().copied().filter(|r| r.result.summary.status.label() != "n/a").collect();
    v.sort_by(|a, b| {
        let by = |x: &Row, y: &Row| match exp.goals.rank_by {
            RankBy::Metric(m) => {
                let k = |r: &Row| r.metric(m).filter(|x| !x.is_nan()).unwrap_or(f64::INFINITY);
                k(x).total_cmp(&k(y))
            }
            RankBy::Time => x.timing.wall.median.total_cmp(&y.timing.wall.median),
            RankBy::Work => x.candidate().work.cmp(&y.candidate().work),
        };
        (!a.ok()).cmp(&!b.ok()).then_with(|| by(a, b)).then(a.cell.id.cmp(&b.cell.id))
    });
    v
}

/// Per variant, the ids on the Pareto fronts of accuracy against wall time and against RHS
/// evaluations (ok cells only).
pub(super) fn fronts(rows: &[&Row]) -> (Vec<usize>, Vec<usize>) {
    let ok: Vec<&&Row> = rows.iter().filter(|r| r.ok()).collect();
    let acc = |r: &Row| r.accuracy().unwrap_or(f64::NAN);
    let time: Vec<(usize, f64, f64)> = ok.iter().map(|r| (r.cell.id, r.timing.wall.median, acc(r))).collect();
    let work: Vec<(usize, f64, f64)> =
        ok.iter().map(|r| (r.cell.id, r.result.summary.counters.rhs_evals as f64, acc(r))).collect();
    (answer::pareto(&time), answer::pareto(&work))
}

/// `## Cells ranked by …`, one table per variant.
pub(super) fn rankings(out: &mut String, exp: &Experiment, rows: &[Row]) {
    let acc = cell(&metric_name(exp, exp.goals.accuracy));
    let _ = writeln!(
        out,
        "## Cells ranked by {}\n\nPer scene variant: cells that ran to the end first, then diverged and failed ones. `front` marks the cells on the accuracy–cost Pareto front (`t`: against wall time, `w`: against RHS evaluations); `≈` before a rank: its wall-time range overlaps the previous cell's (tied on time). Wall time [ms] is the stepping time of the run{}; the median step time is over every step of one run.\n",
        rank_name(exp),
        if exp.goals.repeats > 1 {
            ", median [min–max] of the timed runs (diverged and failed cells: the single time measured during the parallel pass)"
        } else {
            ""
        }
    );
    for (title, vrows) in by_variant(exp, rows) {
        heading(out, &title);
        let (ft, fw) = fronts(&vrows);
        let (win_head, win_rule) = match exp.goals.energy_window {
            Some(w) => {
                let (w, t) = (fmt_num(w), fmt_num(exp.duration));
                (format!(" ΔE/E_scale on [0, {w}] s | ΔE/E_scale on [{t} − {w}, {t}] s |"), "---|---|")
            }
            None => (String::new(), ""),
        };
        let _ = writeln!(
            out,
            "| rank | # | formulation | solver | integrator | h / tol | status | {acc} | max ‖C‖∞ | max ‖Jv‖∞ | max energy err |{win_head} RHS evals | solves | solver its | wall [ms] | median step [µs] | front |\n|---|---|---|---|---|---|---|---|---|---|---|{win_rule}---|---|---|---|---|---|"
        );
        let list = ranked(exp, &vrows);
        for (k, r) in list.iter().enumerate() {
            let s = &r.result.summary;
            let c = &s.counters;
            let tie = k > 0
                && r.ok()
                && list[k - 1].ok()
                && r.timing.repeats > 0
                && r.timing.wall.overlaps(&list[k - 1].timing.wall);
            let front = match (ft.contains(&r.cell.id), fw.contains(&r.cell.id)) {
                (true, true) => "t w",
                (true, false) => "t",
                (false, true) => "w",
                _ => "",
            };
            let windows = match exp.goals.energy_window {
                Some(w) => {
                    let (a, b) = energy_windows(r, w, exp.duration);
                    format!(" {} | {} |", e(a), e(b))
                }
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |{windows} {} | {} | {} | {} | {} | {front} |",
                if tie { "≈" } else { "" },
                k + 1,
                r.cell.id,
                cell(&r.formulation),
                cell(&r.solver),
                cell(&r.integrator),
                cell(&r.step),
                s.status.label(),
                r.accuracy().map(e).unwrap_or_else(|| "—".into()),
                e(s.max_drift_position),
                e(s.max_drift_velocity),
                e(s.max_energy_error),
                c.rhs_evals,
                c.linear_solves,
                c.solver_iterations,
                wall(r),
                us(r.timing.step.median)
            );
        }
        let _ = writeln!(out);
    }
}

/// The mean signed energy change (E − E₀) / E_scale of a cell's samples on [0, w] and on the last
/// w seconds of its run (all in seconds); NaN for the second window of a run that did not reach
/// its end. Damping shows as two negative values, a drift as values that differ, a conservative
/// scheme as two values near zero.
fn energy_windows(r: &Row, w: f64, duration: f64) -> (f64, f64) {
    let samples = &r.result.samples;
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else { return (f64::NAN, f64::NAN) };
    let scale = r.result.summary.energy_scale.joules;
    let slack = 1e-9 * duration; // rounding of the sample times
    let mean = |lo: f64, hi: f64| {
        let (sum, n) = samples
            .iter()
            .filter(|s| s.t >= lo - slack && s.t <= hi + slack)
            .fold((0.0, 0usize), |(a, n), s| (a + (s.energy - first.energy) / scale, n + 1));
        if n == 0 { f64::NAN } else { sum / n as f64 }
    };
    (mean(first.t, first.t + w), if r.ok() { mean(last.t - w, last.t) } else { f64::NAN })
}

/// Observed convergence order per fixed-step series (everything but h), per variant.
pub(super) struct Order {
    /// Variant heading.
    pub variant: String,
    /// Series label (formulation · solver · integrator …).
    pub series: String,
    /// The integrator's nominal order, if it has one.
    pub nominal: Option<u32>,
    /// (slope between the two smallest h, least-squares slope over all h).
    pub observed: (f64, f64),
    /// The step sizes used, as written.
    pub steps: Vec<String>,
    /// The step sizes left out of the fit: their error is of order one, outside any asymptotic
    /// range (an angle off by a radian, an energy off by its scale).
    pub saturated: Vec<String>,
}

/// The error at or above which a cell is not converging at all, for the order fit: 1 for an
/// error in radians or relative to the energy scale (a pendulum a radian off, an energy off by its
/// scale, gives an order that means nothing); none for errors in other units.
fn saturation(exp: &Experiment) -> f64 {
    let name = super::metric_name(exp, exp.goals.accuracy);
    if name.ends_with("[rad]") || name.ends_with("[1]") { 1.0 } else { f64::INFINITY }
}

/// The observed orders of every fixed-step series with at least two step sizes that ran to the end.
pub(super) fn orders(exp: &Experiment, rows: &[Row]) -> Vec<Order> {
    let mut out = Vec::new();
    for (variant, vrows) in by_variant(exp, rows) {
        let mut groups: Vec<(String, Option<u32>, Vec<&Row>)> = Vec::new();
        for r in vrows.iter().filter(|r| r.h.is_some() && r.ok()) {
            let nominal = r.cell.integrator.and_then(|i| match exp.integrators[i].entry.kind() {
                IntegratorKind::Fixed { order } => Some(order),
                IntegratorKind::Adaptive { .. } => None,
            });
            match groups.iter_mut().find(|g| g.0 == r.short_group) {
                Some(g) => g.2.push(r),
                None => groups.push((r.short_group.clone(), nominal, vec![r])),
            }
        }
        let ceiling = saturation(exp);
        for (series, nominal, list) in groups {
            let (fit, off): (Vec<&&Row>, Vec<&&Row>) =
                list.iter().partition(|r| r.accuracy().is_some_and(|e| !(e >= ceiling)));
            let pts: Vec<(f64, f64)> = fit.iter().filter_map(|r| Some((r.h?, r.accuracy()?))).collect();
            // A series whose steps are all but one saturated keeps its row, without an order.
            let observed =
                answer::observed_order(&pts).or((list.len() >= 2 && !off.is_empty()).then_some((f64::NAN, f64::NAN)));
            if let Some(observed) = observed {
                let mut steps: Vec<(f64, String)> = fit.iter().filter_map(|r| Some((r.h?, r.step.clone()))).collect();
                steps.sort_by(|a, b| b.0.total_cmp(&a.0));
                out.push(Order {
                    variant: variant.clone(),
                    series,
                    nominal,
                    observed,
                    steps: steps.into_iter().map(|s| s.1).collect(),
                    saturated: off.iter().map(|r| r.step.clone()).collect(),
                });
            }
        }
    }
    out
}

/// An observed order to three decimals, or "—" where there is none.
fn order_text(p: f64) -> String {
    if p.is_finite() { format!("{p:.3}") } else { "—".into() }
}

/// `## Observed convergence orders`.
pub(super) fn orders_section(out: &mut String, exp: &Experiment, orders: &[Order]) {
    if orders.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Observed convergence orders\n\nThe slope of log({}) against log h: between the two smallest steps (the asymptotic order) and by least squares over every step. A slope well below the nominal order means the error is not dominated by the integrator's truncation error at these steps (a constraint error, a rounding floor, or steps outside the asymptotic range).\n",
        metric_name(exp, exp.goals.accuracy)
    );
    let with_variant = exp.variants.len() > 1;
    let _ = writeln!(
        out,
        "| {}series | nominal order | observed (two smallest h) | observed (fit, all h) | steps h |\n|{}---|---|---|---|---|",
        if with_variant { "variant | " } else { "" },
        if with_variant { "---|" } else { "" }
    );
    for o in orders {
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} |",
            if with_variant { format!("{} | ", cell(&o.variant)) } else { String::new() },
            cell(&o.series),
            o.nominal.map_or("—".into(), |n| n.to_string()),
            order_text(o.observed.0),
            order_text(o.observed.1),
            if o.saturated.is_empty() {
                o.steps.join(", ")
            } else {
                format!("{} (left out, error ≥ 1: {})", o.steps.join(", "), o.saturated.join(", "))
            }
        );
    }
    let _ = writeln!(out);
}
