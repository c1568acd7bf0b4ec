//! Figures for grids too large to draw series by series: one panel, one line per formulation —
//! through the worst value of all its series in each of [`BINS`] bins of x (time plots), or along
//! its front, the best value reached at that cost or less (work-precision). The per-cell data stay
//! in the CSV files.

use super::plot::{Figure, Panel, Series, Style};

/// The most series a figure draws one by one; beyond it the figure is aggregated.
pub const MAX_SERIES: usize = 240;
/// The most panels a figure draws; beyond it the figure is aggregated.
pub const MAX_PANELS: usize = 24;
/// Bins of the x axis in an aggregated figure.
pub const BINS: usize = 160;

/// What an aggregated line follows in each x bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The largest value (the worst cell: drift, energy error over time).
    Max,
    /// The front of smallest values: the best reached at that x or less (work-precision).
    Min,
}

/// Whether `fig` is too large to draw series by series.
pub fn too_large(fig: &Figure) -> bool {
    fig.panels.len() > MAX_PANELS || fig.panels.iter().map(|p| p.series.len()).sum::<usize>() > MAX_SERIES
}

/// `fig` as one panel with a line per colour (formulation, named by `names[colour]`) through the
/// extreme value of its series in each x bin; guides and fronts are dropped.
pub fn aggregate(fig: &Figure, keep: Keep, names: &[String]) -> Figure {
    let pts =
        || fig.panels.iter().flat_map(|p| &p.series).filter(|s| matches!(s.style, Style::Line | Style::LineMarkers));
    let xs = pts().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|x| x.is_finite() && (!fig.x_log || *x > 0.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let map = |x: f64| if fig.x_log { x.ln() } else { x };
    let (a, b) = (map(lo), map(hi));
    let bin = |x: f64| {
        if !(b > a) { 0 } else { (((map(x) - a) / (b - a) * BINS as f64) as usize).min(BINS - 1) }
    };
    let colours: Vec<usize> = {
        let mut c: Vec<usize> = pts().map(|s| s.color).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let mut series = Vec::new();
    for &c in &colours {
        let mut best: Vec<Option<(f64, f64)>> = vec![None; BINS];
        let mut count = 0;
        for s in pts().filter(|s| s.color == c) {
            count += 1;
            for &(x, y) in &s.points {
                if !(x.is_finite() && y.is_finite()) || (fig.x_log && x <= 0.0) {
                    continue;
                }
                let slot = &mut best[bin(x)];
                let better = match (slot.as_ref(), keep) {
                    (None, _) => true,
                    (Some(&(_, v)), Keep::Max) => y > v,
                    (Some(&(_, v)), Keep::Min) => y < v,
                };
                if better {
                    *slot = Some((x, y));
                }
            }
        }
        let mut points: Vec<(f64, f64)> = best.into_iter().flatten().collect();
        if keep == Keep::Min {
            // The front: the best value reachable at this cost or less (only the bins that improve).
            let mut low = f64::INFINITY;
            points.retain(|&(_, y)| {
                let better = y < low;
                low = low.min(y);
                better
            });
        }
        let name = names.get(c).cloned().unwrap_or_else(|| format!("formulation {c}"));
        let what = match keep {
            Keep::Max => "largest",
            Keep::Min => "front (smallest at this cost or less)",
        };
        series.push(Series::new(format!("{name}: {what} of {count} series"), c, points, Style::LineMarkers));
    }
    let total: usize = fig.panels.iter().map(|p| p.series.len()).sum();
    Figure {
        title: format!("{} — aggregated ({total} series in {} panels)", fig.title, fig.panels.len()),
        panels: vec![Panel { title: "all cells, per formulation".into(), series }],
        ..fig.clone()
    }
}
