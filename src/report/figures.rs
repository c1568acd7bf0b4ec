//! The report's figures, built from run results only: drift and energy error against time,
//! work-precision (accuracy against wall time and against right-hand-side evaluations, with the
//! Pareto front) and, when the config sweeps h, convergence (accuracy against h with labelled
//! reference slopes and the observed order of every series).
//!
//! Every figure of a report uses one colour per formulation, and one marker shape and dash
//! pattern per combination of the other axes (solver, integrator, stabilizer, and in time plots
//! the step), so a series looks the same in every plot and coinciding series stay visible. Each
//! scene variant gets its own panels, titled with its parameters.

use super::Row;
use super::answer::{observed_order, pareto};
use super::plot::{Figure, Panel, Series, Style};

/// Most series one panel shows before a variant's panel is split by formulation.
const PER_PANEL: usize = 16;

/// A time series of values at or below this is rounding noise (drawn faint, said so).
const NOISE: f64 = 1e-12;

/// The marker/dash index of a row: its position among the distinct (solver, integrator,
/// stabilizer[, step]) combinations of the experiment.
fn variants(rows: &[Row], with_step: bool) -> Vec<usize> {
    let key = |r: &Row| {
        (r.cell.solver, r.cell.integrator, r.cell.stabilizer, if with_step { r.step.clone() } else { String::new() })
    };
    let mut keys: Vec<_> = rows.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    rows.iter().map(|r| keys.binary_search(&key(r)).unwrap_or(0)).collect()
}

/// The variant's panel title: its parameters (empty with one variant).
fn variant_title(r: &Row, with_scene: bool) -> String {
    if with_scene { r.scene.clone() } else { String::new() }
}

/// Drops the fields a panel title already states from a legend label.
fn strip(label: &str, title: &str) -> String {
    let parts: Vec<&str> = title.split(" · ").collect();
    let kept: Vec<&str> = label.split(" · ").filter(|f| !parts.contains(f)).collect();
    if kept.is_empty() { label.to_string() } else { kept.join(" · ") }
}

/// Groups (row, series) into panels: one per scene variant — in time plots (`split`) one per
/// variant and formulation when a variant has more than [`PER_PANEL`] series; titles name the
/// variant (and formulation). Work-precision and convergence panels are never split: every cell
/// of a variant is compared in one panel.
fn panels(items: Vec<(&Row, Series)>, with_scene: bool, split: bool) -> Vec<Panel> {
    type Group<'r, 'a> = (usize, String, Vec<(&'r Row<'a>, Series)>);
    let mut by_variant: Vec<Group> = Vec::new();
    for (r, s) in items {
        match by_variant.iter_mut().find(|g| g.0 == r.cell.variant) {
            Some(g) => g.2.push((r, s)),
            None => by_variant.push((r.cell.variant, variant_title(r, with_scene), vec![(r, s)])),
        }
    }
    by_variant.sort_by_key(|g| g.0);
    for g in &mut by_variant {
        // Bands under the points: the Pareto front is drawn first.
        g.2.sort_by_key(|(_, s)| s.style != Style::Front);
    }
    let mut out = Vec::new();
    for (_, title, list) in by_variant {
        let data = list.iter().filter(|(_, s)| s.style != Style::Guide && s.style != Style::Front).count();
        if data <= PER_PANEL || !split {
            let series = list.into_iter().map(|(_, mut s)| {
                s.label = strip(&s.label, &title);
                s
            });
            out.push(Panel { title: title.clone(), series: series.collect() });
            continue;
        }
        let mut by_f: Vec<(String, Vec<Series>)> = Vec::new();
        for (r, mut s) in list {
            // The base formulation (its stabilized variants share the panel and the colour).
            let f = r.formulation.split(" + ").next().unwrap_or(&r.formulation);
            let t = if title.is_empty() { f.to_string() } else { format!("{title} · {f}") };
            s.label = strip(&s.label, &t);
            match by_f.iter_mut().find(|g| g.0 == t) {
                Some(g) => g.1.push(s),
                None => by_f.push((t, vec![s])),
            }
        }
        out.extend(by_f.into_iter().map(|(title, series)| Panel { title, series }));
    }
    out
}

fn time_figure(rows: &[Row], with_scene: bool, value: fn(&crate::experiment::Sample) -> f64) -> Vec<Panel> {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.result.samples.len() > 1).collect();
    let owned: Vec<Row> = rows.iter().map(|r| (*r).clone()).collect();
    let look = variants(&owned, true);
    let items = rows
        .iter()
        .zip(look)
        .map(|(r, variant)| {
            // t = 0 is exact by construction (zero drift, zero energy error): skipped on log axes.
            let points: Vec<(f64, f64)> =
                r.result.samples.iter().filter(|s| s.t > 0.0).map(|s| (s.t, value(s))).collect();
            let faint = !points.is_empty() && points.iter().all(|p| p.1.abs() <= NOISE);
            // A run that ended before its second sample still shows as a marker.
            let style = if r.result.samples.len() <= 3 { Style::LineMarkers } else { Style::Line };
            let (label, color, group) = (r.label(with_scene), r.cell.formulation, r.cell.stabilizer);
            (*r, Series { label, color, variant, points, style, faint, group })
        })
        .collect();
    mark_noise(panels(items, with_scene, true))
}

/// Says so in the title of a panel whose every data series is at rounding level.
fn mark_noise(mut out: Vec<Panel>) -> Vec<Panel> {
    for p in &mut out {
        let data: Vec<&Series> =
            p.series.iter().filter(|s| matches!(s.style, Style::Line | Style::LineMarkers)).collect();
        if !data.is_empty() && data.iter().all(|s| s.faint) {
            let sep = if p.title.is_empty() { "" } else { " — " };
            p.title = format!("{}{sep}rounding noise only (every value ≤ {NOISE:e})", p.title);
        }
    }
    out
}

/// ‖C‖∞ against t (log y), one series per cell that produced samples.
pub(super) fn drift(rows: &[Row], with_scene: bool) -> Figure {
    Figure {
        title: "Constraint drift ||C(q)||inf (position level)".into(),
        x_label: "time t [s]".into(),
        y_label: "||C||inf [units of C: m, m^2 or rad]".into(),
        x_log: false,
        y_log: true,
        panels: time_figure(rows, with_scene, |s| s.drift_position),
    }
}

/// Relative energy error against t (log y).
pub(super) fn energy(rows: &[Row], with_scene: bool, scale: &str) -> Figure {
    Figure {
        title: format!("Relative energy error |E(t) - E(0)| / E_scale, E_scale = {scale}"),
        x_label: "time t [s]".into(),
        y_label: "relative energy error [1]".into(),
        x_log: false,
        y_log: true,
        panels: time_figure(rows, with_scene, |s| s.energy_error),
    }
}

/// Ok cells grouped by everything but the step: (first row of the group, series of (x, accuracy)).
fn by_group<'r, 'a>(
    rows: &'r [Row<'a>],
    with_scene: bool,
    x: &dyn Fn(&Row) -> Option<f64>,
) -> Vec<(&'r Row<'a>, Series)> {
    let look = variants(rows, false);
    let mut out: Vec<(&Row, Series)> = Vec::new();
    for (r, variant) in rows.iter().zip(look).filter(|(r, _)| r.ok()) {
        let (Some(xv), Some(yv)) = (x(r), r.accuracy()) else { continue };
        match out.iter_mut().find(|(o, _)| o.cell.variant == r.cell.variant && o.short_group == r.short_group) {
            Some((_, s)) => s.points.push((xv, yv)),
            None => {
                let mut s = Series::new(r.group(with_scene), r.cell.formulation, vec![(xv, yv)], Style::LineMarkers);
                s.variant = variant;
                s.group = r.cell.stabilizer;
                out.push((r, s));
            }
        }
    }
    for (_, s) in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        s.faint = s.points.iter().all(|p| p.1.abs() <= NOISE);
    }
    out
}

/// Adds each variant's Pareto front (accuracy against `x`) as a band under its points.
fn with_fronts<'r, 'a>(rows: &'r [Row<'a>], items: &mut Vec<(&'r Row<'a>, Series)>, x: &dyn Fn(&Row) -> f64) {
    let mut seen: Vec<usize> = Vec::new();
    for r in rows.iter().filter(|r| r.ok()) {
        if seen.contains(&r.cell.variant) {
            continue;
        }
        seen.push(r.cell.variant);
        let vr: Vec<&Row> = rows.iter().filter(|o| o.ok() && o.cell.variant == r.cell.variant).collect();
        let pts: Vec<(usize, f64, f64)> =
            vr.iter().map(|o| (o.cell.id, x(o), o.accuracy().unwrap_or(f64::NAN))).collect();
        let front: Vec<(f64, f64)> =
            pareto(&pts).iter().filter_map(|id| pts.iter().find(|p| p.0 == *id).map(|p| (p.1, p.2))).collect();
        if front.len() > 1 {
            items.insert(
                0,
                (r, Series::new("Pareto front (nothing cheaper is as accurate)".into(), 0, front, Style::Front)),
            );
        }
    }
}

/// Accuracy against wall time and against RHS evaluations (log–log), for ok cells.
pub(super) fn work_precision(rows: &[Row], with_scene: bool, accuracy: &str) -> (Figure, Figure) {
    let wall = |r: &Row| r.timing.wall.median;
    let evals = |r: &Row| r.result.summary.counters.rhs_evals as f64;
    let mut time = by_group(rows, with_scene, &|r| Some(wall(r)));
    with_fronts(rows, &mut time, &wall);
    let mut work = by_group(rows, with_scene, &|r| Some(evals(r)));
    with_fronts(rows, &mut work, &evals);
    (
        Figure {
            title: format!("Work-precision: {accuracy} vs wall time"),
            x_label: "wall time of the run [s] (median of the timed runs)".into(),
            y_label: accuracy.to_string(),
            x_log: true,
            y_log: true,
            panels: mark_noise(panels(time, with_scene, false)),
        },
        Figure {
            title: format!("Work-precision: {accuracy} vs right-hand-side evaluations"),
            x_label: "right-hand-side evaluations [count]".into(),
            y_label: accuracy.to_string(),
            x_log: true,
            y_log: true,
            panels: mark_noise(panels(work, with_scene, false)),
        },
    )
}

/// Accuracy against h (log–log) for fixed-step cells, the observed order of each series in its
/// legend, and labelled slope-1, 2 and 4 guides per variant; None when the config has fewer than
/// two step sizes.
pub(super) fn convergence(rows: &[Row], with_scene: bool, accuracy: &str) -> Option<Figure> {
    let fixed: Vec<Row> = rows.iter().filter(|r| r.h.is_some()).cloned().collect();
    let mut items = by_group(&fixed, with_scene, &|r| r.h);
    items.retain(|(_, s)| s.points.len() >= 2);
    if items.is_empty() {
        return None;
    }
    for (_, s) in &mut items {
        if let Some((p, _)) = observed_order(&s.points) {
            s.label = format!("{} (order {p:.2})", s.label);
        }
    }
    // Guides per variant through the geometric mean of the errors at the largest h.
    let mut guides = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    for (r, _) in &items {
        if seen.contains(&r.cell.variant) {
            continue;
        }
        seen.push(r.cell.variant);
        let mine: Vec<&Series> =
            items.iter().filter(|(o, _)| o.cell.variant == r.cell.variant).map(|(_, s)| s).collect();
        let h_max = mine.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(0.0f64, f64::max);
        let h_min = mine.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(f64::INFINITY, f64::min);
        let at_max: Vec<f64> = mine
            .iter()
            .filter_map(|s| s.points.iter().find(|p| p.0 == h_max).map(|p| p.1))
            .filter(|e| *e > 0.0)
            .collect();
        if at_max.is_empty() {
            continue;
        }
        let anchor = (at_max.iter().map(|e| e.ln()).sum::<f64>() / at_max.len() as f64).exp();
        for p in [1.0, 2.0, 4.0] {
            let pts = vec![(h_max, anchor), (h_min, anchor * (h_min / h_max).powf(p))];
            guides.push((*r, Series::new(format!("slope {p}"), 0, pts, Style::Guide)));
        }
    }
    let mut all = items;
    all.extend(guides);
    Some(Figure {
        title: format!("Convergence: {accuracy} vs step size h"),
        x_label: "step size h [s]".into(),
        y_label: accuracy.to_string(),
        x_log: true,
        y_log: true,
        panels: mark_noise(panels(all, with_scene, false)),
    })
}
