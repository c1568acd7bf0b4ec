//! What the reader wants from an experiment: an accuracy `target` (the report answers with the
//! cheapest cell that meets it), the metric the rankings use (`rank_by`), and how wall times are
//! measured (`timing`). Validated with the rest of the config, before anything runs.

use super::config::{ConfigError, at};
use super::grid::err;
use serde::Deserialize;
use serde_saphyr::Spanned;

/// An error metric of a cell, each the maximum over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Against the reference: the user's reference file if the config gives one, else the
    /// scene's exact solution (pendulum: |θ − θ_exact| in rad).
    ReferenceError,
    /// Position drift ‖C(q)‖∞ (units of the constraint rows).
    Drift,
    /// Velocity drift ‖J v‖∞.
    VelocityDrift,
    /// Relative energy error |E − E₀| / E_scale.
    EnergyError,
}

impl Metric {
    /// Every metric with its config name.
    pub const ALL: [(Metric, &'static str); 4] = [
        (Metric::ReferenceError, "reference_error"),
        (Metric::Drift, "drift"),
        (Metric::VelocityDrift, "velocity_drift"),
        (Metric::EnergyError, "energy_error"),
    ];

    /// The config name.
    pub fn name(self) -> &'static str {
        Metric::ALL.iter().find(|(m, _)| *m == self).map_or("", |(_, n)| n)
    }
}

/// What the rankings sort by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankBy {
    /// An error metric, smallest first.
    Metric(Metric),
    /// Wall time of the run (median of the timing repeats), cheapest first.
    Time,
    /// Right-hand-side evaluations, then solves, then solver iterations, fewest first.
    Work,
}

/// An accuracy target: every bound must hold (metric ≤ bound).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Target {
    /// (metric, bound in the metric's unit).
    pub bounds: Vec<(Metric, f64)>,
}

/// The reader's goals, as validated from the config.
#[derive(Clone, Debug, PartialEq)]
pub struct Goals {
    /// The accuracy target, if any.
    pub target: Option<Target>,
    /// The ranking key.
    pub rank_by: RankBy,
    /// The error metric the work-precision and convergence plots and the Pareto fronts use:
    /// `rank_by` if it is an error metric, else the reference error if there is a reference,
    /// else the energy error.
    pub accuracy: Metric,
    /// How many times each cell that ran to the end is re-run, one at a time on one pinned core,
    /// to time it; 0 keeps the single time measured during the (parallel) simulation pass.
    pub repeats: usize,
    /// The relative spread (max − min)/min within which the `repeats` fastest timed runs of a cell
    /// must agree; more runs are made until they do (at most
    /// [`super::timing::MAX_RUNS_FACTOR`] × `repeats`), else the cell's time is marked unsteady.
    pub spread: f64,
    /// Length w \[s\] of the two windows, \[0, w\] and \[T − w, T\], over which the report averages
    /// each cell's signed energy change (`energy_window`), so that damping and drift show apart.
    pub energy_window: Option<f64>,
}

/// `target:` — bounds on error metrics, any combination.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTarget {
    /// Bound on the reference error (the file's outputs, or the scene's exact solution).
    #[serde(default)]
    pub reference_error: Option<Spanned<f64>>,
    /// Bound on max ‖C‖∞.
    #[serde(default)]
    pub drift: Option<Spanned<f64>>,
    /// Bound on max ‖J v‖∞.
    #[serde(default)]
    pub velocity_drift: Option<Spanned<f64>>,
    /// Bound on the max relative energy error.
    #[serde(default)]
    pub energy_error: Option<Spanned<f64>>,
}

/// `timing:` — how wall times are measured.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTiming {
    /// Timed repeats of every cell that ran to the end (default 3; 0 = no timing pass).
    #[serde(default)]
    pub repeats: Option<Spanned<f64>>,
    /// Relative spread within which the fastest `repeats` runs must agree (default 0.1).
    #[serde(default)]
    pub spread: Option<Spanned<f64>>,
}

/// Default relative spread of the fastest timed runs.
pub(crate) const DEFAULT_SPREAD: f64 = 0.1;

/// The most timing repeats a config may ask for.
pub(crate) const MAX_REPEATS: usize = 100;

/// Default timing repeats.
pub(crate) const DEFAULT_REPEATS: usize = 3;

/// Validates `target`, `rank_by` and `timing`; `has_reference` says whether a reference error
/// exists (a reference file, or an exact solution of the scene), `driven` whether the scene has
/// drives (whose work changes the energy, so that the default ranking is by drift there).
pub(crate) fn goals(
    file: &str,
    target: Option<&Spanned<RawTarget>>,
    rank_by: Option<&Spanned<String>>,
    timing: Option<&Spanned<RawTiming>>,
    (has_reference, driven): (bool, bool),
    scene: &str,
) -> Result<Goals, ConfigError> {
    let target = match target {
        None => None,
        Some(t) => Some(target_bounds(file, t, has_reference, scene)?),
    };
    // A drive does work: the energy change of a driven mechanism measures the drive, not the
    // method, so without a reference the default is the constraint drift there.
    let default_accuracy = match (has_reference, driven) {
        (true, _) => Metric::ReferenceError,
        (false, true) => Metric::Drift,
        (false, false) => Metric::EnergyError,
    };
    let rank_by = match rank_by {
        None => RankBy::Metric(default_accuracy),
        Some(r) => match r.value.as_str() {
            "time" => RankBy::Time,
            "work" => RankBy::Work,
            name => match Metric::ALL.iter().find(|(_, n)| *n == name) {
                Some((Metric::ReferenceError, _)) if !has_reference => {
                    return err(
                        file,
                        at(r),
                        format!(
                            "field `rank_by` = `reference_error`: scene `{scene}` has no exact solution and the config gives no `reference` file; expected one of: drift, velocity_drift, energy_error, time, work"
                        ),
                    );
                }
                Some((m, _)) => RankBy::Metric(*m),
                None => {
                    return err(
                        file,
                        at(r),
                        format!(
                            "field `rank_by` = `{}` is unknown; expected one of: reference_error, drift, velocity_drift, energy_error, time, work",
                            crate::params::short(name)
                        ),
                    );
                }
            },
        },
    };
    let accuracy = match rank_by {
        RankBy::Metric(m) => m,
        _ => default_accuracy,
    };
    let (repeats, spread) = timing_goals(file, timing)?;
    Ok(Goals { target, rank_by, accuracy, repeats, spread, energy_window: None })
}

/// `timing:`'s repeats and spread, each checked against its domain.
fn timing_goals(file: &str, timing: Option<&Spanned<RawTiming>>) -> Result<(usize, f64), ConfigError> {
    let repeats = match timing.and_then(|t| t.value.repeats.as_ref()) {
        None => DEFAULT_REPEATS,
        Some(r) => {
            if !(r.value.fract() == 0.0 && (0.0..=MAX_REPEATS as f64).contains(&r.value)) {
                return err(
                    file,
                    at(r),
                    format!(
                        "field `timing.repeats` = {} is invalid; expected an integer in [0, {MAX_REPEATS}]",
                        r.value
                    ),
                );
            }
            r.value as usize
        }
    };
    let spread = match timing.and_then(|t| t.value.spread.as_ref()) {
        None => DEFAULT_SPREAD,
        Some(s) => {
            if !(s.value > 0.0 && s.value <= 10.0) {
                return err(
                    file,
                    at(s),
                    format!(
                        "field `timing.spread` = {} is invalid; expected a number in (0, 10] (the relative spread (max − min)/min of the fastest runs, e.g. 0.1)",
                        s.value
                    ),
                );
            }
            s.value
        }
    };
    Ok((repeats, spread))
}

/// The bounds of `target`: each > 0, the reference error only where there is a reference.
fn target_bounds(file: &str, t: &Spanned<RawTarget>, has_reference: bool, scene: &str) -> Result<Target, ConfigError> {
    let given = [
        (Metric::ReferenceError, &t.value.reference_error),
        (Metric::Drift, &t.value.drift),
        (Metric::VelocityDrift, &t.value.velocity_drift),
        (Metric::EnergyError, &t.value.energy_error),
    ];
    let mut bounds = Vec::new();
    for (metric, v) in given {
        let Some(v) = v else { continue };
        if !(v.value.is_finite() && v.value > 0.0) {
            return err(
                file,
                at(v),
                format!("field `target.{}` = {} is invalid; expected a bound > 0", metric.name(), v.value),
            );
        }
        if metric == Metric::ReferenceError && !has_reference {
            return err(
                file,
                at(v),
                format!(
                    "field `target.reference_error`: scene `{scene}` has no exact solution and the config gives no `reference` file; bound drift, velocity_drift or energy_error instead"
                ),
            );
        }
        bounds.push((metric, v.value));
    }
    if bounds.is_empty() {
        return err(
            file,
            at(t),
            "field `target` gives no bound; expected one or more of reference_error, drift, velocity_drift, energy_error".into(),
        );
    }
    Ok(Target { bounds })
}

/// Validates `energy_window` against the run's `duration` (both in seconds): 0 < w ≤ duration / 2,
/// so that the two windows do not overlap.
pub(crate) fn energy_window(file: &str, w: Option<&Spanned<f64>>, duration: f64) -> Result<Option<f64>, ConfigError> {
    let Some(w) = w else { return Ok(None) };
    if !(w.value.is_finite() && w.value > 0.0 && w.value <= duration / 2.0) {
        return err(
            file,
            at(w),
            format!(
                "field `energy_window` = {} is invalid; expected a window w [s] with 0 < w <= duration / 2 ({})",
                w.value,
                duration / 2.0
            ),
        );
    }
    Ok(Some(w.value))
}
