//! Figures for grids too large to draw series by series: one panel, one line per formulation and
//! post-step stabilizer (stabilized and unstabilized cells of a formulation behave differently and
//! are never merged) —
//! through the worst value of all its series in each of [`BINS`] bins of x (time plots), or along
//! its front, the best value reached at that cost or less (work-precision). The per-cell data stay
//! in the CSV files.

use super::plot::{Figure, Panel, Series, Style};

/// The most series a figure draws one by one; beyond it the figure is aggregated.
pub(super) const MAX_SERIES: usize = 240;
/// The most panels a figure draws; beyond it the figure is aggregated.
pub(super) const MAX_PANELS: usize = 24;
/// Bins of the x axis in an aggregated figure.
pub(super) const BINS: usize = 160;

/// What an aggregated line follows in each x bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keep {
    /// The largest value (the worst cell: drift, energy error over time).
    Max,
    /// The front of smallest values: the best reached at that x or less (work-precision).
    Min,
}

/// Whether `fig` is too large to draw series by series.
pub(super) fn too_large(fig: &Figure) -> bool {
    fig.panels.len() > MAX_PANELS || fig.panels.iter().map(|p| p.series.len()).sum::<usize>() > MAX_SERIES
}

/// `fig` as one panel with a line per colour and group (formulation and stabilizer, named by
/// `names[colour]` and `groups[group]`) through the extreme value of its series in each x bin;
/// guides and fronts are dropped. A group other than the first is drawn dashed.
pub(super) fn aggregate(fig: &Figure, keep: Keep, names: &[String], groups: &[String]) -> Figure {
    let pts =
        || fig.panels.iter().flat_map(|p| &p.series).filter(|s| matches!(s.style, Style::Line | Style::LineMarkers));
    let xs = pts().flat_map(|s| s.points.iter().map(|p| p.0)).filter(|x| x.is_finite() && (!fig.x_log || *x > 0.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let map = |x: f64| if fig.x_log { x.ln() } else { x };
    let (a, b) = (map(lo), map(hi));
    let bin = |x: f64| {
        if !(b > a) { 0 } else { (((map(x) - a) / (b - a) * BINS as f64) as usize).min(BINS - 1) }
    };
    let colours: Vec<(usize, usize)> = {
        let mut c: Vec<(usize, usize)> = pts().map(|s| (s.color, s.group)).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let mut series = Vec::new();
    for &(c, g) in &colours {
        let mut best: Vec<Option<(f64, f64)>> = vec![None; BINS];
        let mut count = 0;
        for s in pts().filter(|s| s.color == c && s.group == g) {
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
        let mut name = names.get(c).cloned().unwrap_or_else(|| format!("formulation {c}"));
        if groups.len() > 1 {
            name = format!("{name} + {}", groups.get(g).cloned().unwrap_or_else(|| format!("stabilizer {g}")));
        }
        let what = match keep {
            Keep::Max => "largest",
            Keep::Min => "front (smallest at this cost or less)",
        };
        let mut line = Series::new(format!("{name}: {what} of {count} series"), c, points, Style::LineMarkers);
        line.variant = g;
        line.group = g;
        series.push(line);
    }
    let total: usize = fig.panels.iter().map(|p| p.series.len()).sum();
    Figure {
        title: format!("{} — aggregated ({total} series in {} panels)", fig.title, fig.panels.len()),
        panels: vec![Panel { title: "all cells, per formulation and stabilizer".into(), series }],
        ..fig.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregation_keeps_the_stabilizers_of_a_formulation_apart() {
        // Regression: chain_challenge's aggregated energy plot merged midpoint with and without
        // projection into one line, showing midpoint losing 30 % where midpoint alone conserves
        // its energy to 7e-12. Two cells of one formulation, one per stabilizer: two lines, each
        // with its own largest values.
        let mut plain = Series::new("midpoint".into(), 3, vec![(1.0, 1e-12), (2.0, 2e-12)], Style::Line);
        let mut projected = Series::new("midpoint + projection".into(), 3, vec![(1.0, 0.1), (2.0, 0.3)], Style::Line);
        (plain.group, projected.group) = (0, 1);
        let fig = Figure {
            title: "energy".into(),
            x_label: "t".into(),
            y_label: "E".into(),
            x_log: false,
            y_log: true,
            panels: vec![Panel { title: String::new(), series: vec![plain, projected] }],
        };
        let names: Vec<String> = (0..4).map(|i| if i == 3 { "midpoint".into() } else { format!("f{i}") }).collect();
        let groups = vec!["none".to_string(), "projection".to_string()];
        let agg = aggregate(&fig, Keep::Max, &names, &groups);
        let lines = &agg.panels[0].series;
        assert_eq!(lines.len(), 2);
        let worst = |s: &Series| s.points.iter().map(|p| p.1).fold(0.0f64, f64::max);
        assert!(lines[0].label.starts_with("midpoint + none") && worst(&lines[0]) <= 2e-12, "{}", lines[0].label);
        assert!(lines[1].label.starts_with("midpoint + projection") && worst(&lines[1]) == 0.3);
    }
}
