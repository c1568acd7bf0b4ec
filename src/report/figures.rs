//! The report's figures, built from run results only: drift and energy error against time,
//! work-precision (accuracy against wall time and against right-hand-side evaluations) and, when
//! the config sweeps h, convergence (accuracy against h with reference slopes).

use super::Row;
use super::plot::{Figure, Panel, Series, Style};

/// Most series one panel shows before the figure is split.
const PER_PANEL: usize = 20;
/// Up to this many series, time plots use a single panel.
const SINGLE_PANEL: usize = 14;

/// Splits time-series into panels: one panel if few; else the coarsest grouping — by scene
/// variant, by formulation, or by both — whose groups all fit in one panel, with the group as the
/// panel title and removed from the legend; if none fits, scene × formulation chunked to at most
/// [`PER_PANEL`] series.
fn facet(rows: &[Row], series: Vec<Series>, with_scene: bool) -> Vec<Panel> {
    if series.len() <= SINGLE_PANEL {
        return vec![Panel { title: String::new(), series }];
    }
    type Key = fn(&Row) -> String;
    let by_scene: Key = |r| r.scene.clone();
    let by_formulation: Key = |r| r.formulation.clone();
    let by_both: Key = |r| format!("{} · {}", r.scene, r.formulation);
    let mut candidates: Vec<Key> = Vec::new();
    if with_scene {
        candidates.push(by_scene);
    }
    candidates.push(by_formulation);
    if with_scene {
        candidates.push(by_both);
    }
    let groups_of = |key: Key| {
        let mut groups: Vec<(String, usize)> = Vec::new();
        for r in rows {
            let k = key(r);
            match groups.iter_mut().find(|g| g.0 == k) {
                Some(g) => g.1 += 1,
                None => groups.push((k, 1)),
            }
        }
        groups
    };
    let fits = |key: &Key| groups_of(*key).iter().all(|g| g.1 <= PER_PANEL);
    let key = candidates.iter().copied().filter(fits).min_by_key(|k| groups_of(*k).len()).unwrap_or(if with_scene {
        by_both
    } else {
        by_formulation
    });
    let mut groups: Vec<(String, Vec<Series>)> = Vec::new();
    for (row, mut s) in rows.iter().zip(series) {
        let k = key(row);
        // The panel title names the group; the legend keeps only what differs inside it (the
        // group's fields are dropped wherever they stand in the label).
        let parts: Vec<&str> = k.split(" · ").collect();
        let kept: Vec<&str> = s.label.split(" · ").filter(|field| !parts.contains(field)).collect();
        if !kept.is_empty() {
            s.label = kept.join(" · ");
        }
        match groups.iter_mut().find(|g| g.0 == k) {
            Some(g) => g.1.push(s),
            None => groups.push((k, vec![s])),
        }
    }
    let mut panels = Vec::new();
    for (key, list) in groups {
        let chunks = list.len().div_ceil(PER_PANEL);
        for (i, chunk) in list.chunks(PER_PANEL).enumerate() {
            let title = if chunks > 1 { format!("{key} ({}/{chunks})", i + 1) } else { key.clone() };
            panels.push(Panel { title, series: chunk.to_vec() });
        }
    }
    panels
}

fn time_series(rows: &[Row], with_scene: bool, value: fn(&crate::experiment::Sample) -> f64) -> Vec<Series> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| Series {
            label: r.label(with_scene),
            color: i,
            // t = 0 is exact by construction (zero drift, zero energy error): skipped on log axes.
            points: r.result.samples.iter().filter(|s| s.t > 0.0).map(|s| (s.t, value(s))).collect(),
            // A run that ended before its second sample still shows as a marker.
            style: if r.result.samples.len() <= 3 { Style::LineMarkers } else { Style::Line },
        })
        .collect()
}

/// ‖C‖∞ against t (log y), one series per cell that produced samples.
pub fn drift(rows: &[Row], with_scene: bool) -> Figure {
    let rows: Vec<Row> = rows.iter().filter(|r| r.result.samples.len() > 1).cloned().collect();
    let series = time_series(&rows, with_scene, |s| s.drift_position);
    Figure {
        title: "Constraint drift ||C(q)||inf (position level)".into(),
        x_label: "time t [s]".into(),
        y_label: "||C||inf [units of C: m, m^2 or rad]".into(),
        x_log: false,
        y_log: true,
        panels: facet(&rows, series, with_scene),
    }
}

/// Relative energy error against t (log y).
pub fn energy(rows: &[Row], with_scene: bool, scale: &str) -> Figure {
    let rows: Vec<Row> = rows.iter().filter(|r| r.result.samples.len() > 1).cloned().collect();
    let series = time_series(&rows, with_scene, |s| s.energy_error);
    Figure {
        title: format!("Relative energy error |E(t) - E(0)| / E_scale, E_scale = {scale}"),
        x_label: "time t [s]".into(),
        y_label: "relative energy error [1]".into(),
        x_log: false,
        y_log: true,
        panels: facet(&rows, series, with_scene),
    }
}

/// Groups ok cells by everything but the step, with points (x(row), accuracy).
fn by_group(rows: &[Row], with_scene: bool, x: fn(&Row) -> Option<f64>) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows.iter().filter(|r| r.result.summary.status.label() == "ok") {
        let (Some(xv), Some(yv)) = (x(r), r.accuracy()) else { continue };
        let label = r.group(with_scene);
        match out.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push((xv, yv)),
            None => {
                let color = out.len();
                out.push(Series { label, color, points: vec![(xv, yv)], style: Style::LineMarkers });
            }
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

fn chunked(series: Vec<Series>) -> Vec<Panel> {
    let n = series.len().div_ceil(PER_PANEL).max(1);
    series
        .chunks(PER_PANEL)
        .enumerate()
        .map(|(i, c)| Panel { title: if n > 1 { format!("{}/{n}", i + 1) } else { String::new() }, series: c.to_vec() })
        .collect()
}

/// Accuracy against wall time and against RHS evaluations (log–log), for ok cells.
pub fn work_precision(rows: &[Row], with_scene: bool, accuracy: &str) -> (Figure, Figure) {
    let time = by_group(rows, with_scene, |r| Some(r.timing.wall.median));
    let evals = by_group(rows, with_scene, |r| Some(r.result.summary.counters.rhs_evals as f64));
    (
        Figure {
            title: format!("Work-precision: {accuracy} vs wall time"),
            x_label: "wall time [s]".into(),
            y_label: accuracy.to_string(),
            x_log: true,
            y_log: true,
            panels: chunked(time),
        },
        Figure {
            title: format!("Work-precision: {accuracy} vs right-hand-side evaluations"),
            x_label: "right-hand-side evaluations [count]".into(),
            y_label: accuracy.to_string(),
            x_log: true,
            y_log: true,
            panels: chunked(evals),
        },
    )
}

/// Accuracy against h (log–log) for fixed-step cells, with slope-1, 2 and 4 guides; None when the
/// config has fewer than two step sizes.
pub fn convergence(rows: &[Row], with_scene: bool, accuracy: &str) -> Option<Figure> {
    let fixed: Vec<Row> = rows.iter().filter(|r| r.h.is_some()).cloned().collect();
    let mut series = by_group(&fixed, with_scene, |r| r.h);
    series.retain(|s| s.points.len() >= 2);
    if series.is_empty() {
        return None;
    }
    // Guides through the geometric mean of the errors at the largest h.
    let h_max = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(0.0f64, f64::max);
    let h_min = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(f64::INFINITY, f64::min);
    let at_max: Vec<f64> = series
        .iter()
        .filter_map(|s| s.points.iter().find(|p| p.0 == h_max).map(|p| p.1))
        .filter(|e| *e > 0.0)
        .collect();
    if !at_max.is_empty() {
        let anchor = (at_max.iter().map(|e| e.ln()).sum::<f64>() / at_max.len() as f64).exp();
        for p in [1.0, 2.0, 4.0] {
            series.push(Series {
                label: format!("slope {p}"),
                color: 0,
                points: vec![(h_max, anchor), (h_min, anchor * (h_min / h_max).powf(p))],
                style: Style::Guide,
            });
        }
    }
    Some(Figure {
        title: format!("Convergence: {accuracy} vs step size h"),
        x_label: "step size h [s]".into(),
        y_label: accuracy.to_string(),
        x_log: true,
        y_log: true,
        panels: chunked(series),
    })
}
