//! Reports: `reports/<experiment>/` with `report.md`, CSV data and plots, written from run outputs
//! only, into a temporary directory that replaces the previous report in one rename.

mod aggregate;
mod animation;
pub(crate) mod answer;
mod data;
pub(crate) mod drawing;
mod figures;
mod markdown;
pub(crate) mod plot;
pub mod provenance;
pub(crate) mod publish;
pub(crate) mod sections;
pub(crate) mod suite;

use crate::experiment::grid::Variant;
use crate::experiment::{Cell, Experiment, Metric, RunResult, Status, Timing};
use crate::integrator::Control;
use aggregate::Keep;
use provenance::Provenance;
use std::path::Path;

/// A cell with its labels and result, as the report sees it.
#[derive(Clone)]
pub struct Row<'a> {
    /// The cell.
    pub cell: &'a Cell,
    /// Its result.
    pub result: &'a RunResult,
    /// Scene variant label.
    pub scene: String,
    /// Formulation label (with ` + stabilizer` when one is used).
    pub formulation: String,
    /// Stabilizer label.
    pub stabilizer: String,
    /// Solver label.
    pub solver: String,
    /// Integrator label.
    pub integrator: String,
    /// Step or tolerance as written.
    pub step: String,
    /// Step size \[s\], for fixed-step cells.
    pub h: Option<f64>,
    /// Tolerance, for adaptive cells.
    pub tol: Option<f64>,
    /// Legend label: the parts that vary across the experiment, step included.
    pub short: String,
    /// Legend label without the step (identity of a work-precision or convergence series).
    pub short_group: String,
    /// Per reference-file column: max over the file's times of |output − reference| (wrapped
    /// for angles); NaN when the run ended before the last time. None without a reference file.
    pub file_errors: Option<Vec<f64>>,
    /// The columns of `file_errors` whose largest is the reference error (one unit).
    pub scored: Vec<usize>,
    /// The error metric that is "accuracy" in this experiment (`rank_by`, or the default).
    pub accuracy_metric: Metric,
    /// Its wall-time measurement.
    pub timing: Timing,
}

impl Row<'_> {
    /// Legend label of this cell: only the axes that vary in the experiment ("force · h=1/60").
    pub fn label(&self, _with_scene: bool) -> String {
        self.short.clone()
    }

    /// Legend label without the step.
    pub fn group(&self, _with_scene: bool) -> String {
        self.short_group.clone()
    }

    /// The full description of the cell (every axis), for tables.
    pub fn full(&self) -> String {
        format!("{} · {} · {} · {} · {}", self.scene, self.formulation, self.solver, self.integrator, self.step_text())
    }

    fn step_text(&self) -> String {
        if self.h.is_some() { format!("h={}", self.step) } else { format!("tol={}", self.step) }
    }

    /// The value of an error metric; None for cells that did not run. The reference error is
    /// the largest column error against the reference file if the config gives one, else the
    /// error against the scene's exact solution (None without either).
    pub fn metric(&self, m: Metric) -> Option<f64> {
        let s = &self.result.summary;
        if matches!(s.status, Status::NotApplicable { .. }) {
            return None;
        }
        match m {
            Metric::ReferenceError => match &self.file_errors {
                Some(errs) => Some(
                    self.scored
                        .iter()
                        .map(|&k| errs[k])
                        .fold(0.0f64, |m, e| if e.is_nan() || m.is_nan() { f64::NAN } else { m.max(e) }),
                ),
                None => s.max_reference_error,
            },
            Metric::Drift => Some(s.max_drift_position),
            Metric::VelocityDrift => Some(s.max_drift_velocity),
            Metric::EnergyError => Some(s.max_energy_error),
        }
    }

    /// The accuracy metric of the experiment for this cell (see [`Row::metric`]).
    pub fn accuracy(&self) -> Option<f64> {
        self.metric(self.accuracy_metric)
    }

    /// Whether the cell ran to the end.
    pub fn ok(&self) -> bool {
        self.result.summary.status == Status::Ok
    }

    /// The cell as the answer functions see it.
    pub fn candidate(&self) -> answer::Candidate {
        let c = &self.result.summary.counters;
        answer::Candidate {
            id: self.cell.id,
            ok: self.ok(),
            metrics: Metric::ALL.map(|(m, _)| self.metric(m).unwrap_or(f64::NAN)),
            time: self.timing.wall,
            work: [c.rhs_evals, c.linear_solves, c.solver_iterations],
        }
    }

    /// When and why the run did not end normally.
    pub fn status_time_reason(&self) -> (Option<f64>, String) {
        match &self.result.summary.status {
            Status::Ok => (None, String::new()),
            Status::Diverged { t, reason } | Status::LeftBranch { t, reason } | Status::Failed { t, reason } => {
                (Some(*t), reason.clone())
            }
            Status::NotApplicable { reason } => (None, reason.clone()),
        }
    }
}

/// The name of an error metric with its unit, for this experiment.
pub fn metric_name(exp: &Experiment, m: Metric) -> String {
    match m {
        Metric::ReferenceError => {
            if let Some(r) = &exp.measure.reference {
                let unit = exp.variants[0].outputs[r.outputs[r.scored[0]]].unit;
                if r.scored.len() == r.columns.len() {
                    return format!("max error vs {} [{unit}]", r.file);
                }
                let scored: Vec<&str> = r.scored.iter().map(|&k| r.columns[k].as_str()).collect();
                return format!("max error of {} vs {} [{unit}]", scored.join(", "), r.file);
            }
            match &exp.variants[0].scene.reference {
                Some(r) => format!("max reference error [{}]", r.unit()),
                None => "max reference error".into(),
            }
        }
        Metric::Drift => "max ||C||inf [units of C]".into(),
        Metric::VelocityDrift => "max ||J v||inf [units of C / s]".into(),
        Metric::EnergyError => "max relative energy error [1]".into(),
    }
}

/// The name of the accuracy metric of this experiment.
pub fn accuracy_name(exp: &Experiment) -> String {
    metric_name(exp, exp.goals.accuracy)
}

impl Variant {
    /// "name = value" of every parameter given for this variant (or "defaults").
    pub fn scene_params_text(&self) -> Vec<String> {
        if self.params.is_empty() {
            vec!["defaults".into()]
        } else {
            self.params.iter().map(|(k, v)| format!("{k} = {v}")).collect()
        }
    }
}

/// Builds the rows of a finished experiment.
pub fn rows<'a>(exp: &Experiment, cells: &'a [Cell], results: &'a [RunResult], timings: &[Timing]) -> Vec<Row<'a>> {
    let mut rows = raw_rows(exp, cells, results);
    for (r, t) in rows.iter_mut().zip(timings) {
        r.timing = *t;
    }
    let varies = |f: &dyn Fn(&Row) -> String| rows.iter().any(|r| f(r) != f(&rows[0]));
    let v = [
        varies(&|r| r.scene.clone()),
        varies(&|r| r.formulation.clone()),
        varies(&|r| r.solver.clone()),
        varies(&|r| r.integrator.clone()),
    ];
    let step_varies = varies(&|r| r.step_text());
    for r in &mut rows {
        let parts = [&r.scene, &r.formulation, &r.solver, &r.integrator];
        let mut g: Vec<String> = parts.iter().zip(v).filter(|(_, on)| *on).map(|(p, _)| p.to_string()).collect();
        if g.is_empty() {
            g.push(r.formulation.clone());
        }
        r.short_group = g.join(" · ");
        r.short = if step_varies || !v.iter().any(|x| *x) {
            format!("{} · {}", r.short_group, r.step_text())
        } else {
            r.short_group.clone()
        };
    }
    rows
}

fn raw_rows<'a>(exp: &Experiment, cells: &'a [Cell], results: &'a [RunResult]) -> Vec<Row<'a>> {
    cells
        .iter()
        .zip(results)
        .map(|(cell, result)| {
            let (h, tol) = match cell.step.control {
                Control::Fixed { h } => (Some(h), None),
                Control::Adaptive { rtol, .. } => (None, Some(rtol)),
            };
            Row {
                cell,
                result,
                scene: exp.variants[cell.variant].label.clone(),
                formulation: {
                    let f = &exp.formulations[cell.formulation].label;
                    let st = &exp.stabilizers[cell.stabilizer];
                    if st.entry.name == "none" { f.clone() } else { format!("{f} + {}", st.label) }
                },
                stabilizer: exp.stabilizers[cell.stabilizer].label.clone(),
                solver: exp.solvers[cell.solver].label.clone(),
                integrator: exp.integrator_label(cell).to_string(),
                step: cell.step.label.clone(),
                h,
                tol,
                short: String::new(),
                short_group: String::new(),
                file_errors: exp
                    .measure
                    .reference
                    .as_ref()
                    .map(|r| file_errors(r, &exp.variants[cell.variant].outputs, result)),
                scored: exp.measure.reference.as_ref().map_or(Vec::new(), |r| r.scored.clone()),
                accuracy_metric: exp.goals.accuracy,
                timing: Timing::concurrent(result),
            }
        })
        .collect()
}

/// The Test Set's digits of one cell at a one-time reference from its per-column errors: (mixed
/// digits per column, scd = least relative digits, mescd = least mixed digits); columns whose
/// reference is 0 have no relative digits and are left out of scd; NaN anywhere stays NaN.
pub(super) fn digits(r: &crate::experiment::ReferenceData, errors: &[f64]) -> (Vec<f64>, f64, f64) {
    let least = |m: f64, x: f64| if m.is_nan() || x.is_nan() { f64::NAN } else { m.min(x) };
    let (mut mixed, mut scd, mut mescd) = (Vec::new(), f64::INFINITY, f64::INFINITY);
    for (j, y) in r.values[0].iter().enumerate() {
        let e = errors.get(j).copied().unwrap_or(f64::NAN);
        let (rel, mix) = crate::metrics::significant_digits(e, *y);
        mixed.push(mix);
        mescd = least(mescd, mix);
        if *y != 0.0 {
            scd = least(scd, rel);
        }
    }
    (mixed, scd, mescd)
}

/// Per column of the reference: max over its times of |output − reference|; NaN when the run
/// did not reach every time or the output has no value at one of them.
fn file_errors(r: &crate::experiment::ReferenceData, outputs: &[crate::scene::Output], result: &RunResult) -> Vec<f64> {
    r.outputs
        .iter()
        .enumerate()
        .map(|(j, &k)| {
            if result.probes.len() < r.times.len() {
                return f64::NAN;
            }
            result
                .probes
                .iter()
                .zip(&r.values)
                .map(|(p, row)| outputs[k].difference(p[k], row[j]).abs())
                // NaN (an output with no value at that time) stays NaN: f64::max would drop it.
                .fold(0.0, |m: f64, e| if m.is_nan() || e.is_nan() { f64::NAN } else { m.max(e) })
        })
        .collect()
}

type BoxError = Box<dyn std::error::Error>;

/// One figure of the report: drawn, or the reason it is not.
pub struct PlotEntry {
    /// File stem in the report directory.
    pub file: String,
    /// Caption (section title).
    pub caption: String,
    /// What the reader must know (aggregated, or why it is not drawn).
    pub note: Option<String>,
    /// Whether the PNG and SVG exist.
    pub drawn: bool,
}

fn write_all(exp: &Experiment, rows: &[Row], prov: &Provenance, dir: &Path) -> Result<(), BoxError> {
    data::write_summary(rows, &exp.measure, &dir.join("summary.csv"))?;
    data::write_runs(rows, &dir.join("runs.csv"))?;
    data::write_timing(rows, prov, &dir.join("timing.csv"))?;
    let m = &exp.measure;
    if !m.record.is_empty() || !m.recorded_outputs.is_empty() {
        data::write_states(rows, m, &dir.join("states.csv"))?;
    }
    if !m.events.is_empty() {
        data::write_events(rows, m, &dir.join("events.csv"))?;
    }
    if let Some(r) = m.reference.as_ref().filter(|r| r.times.len() == 1) {
        data::write_digits(rows, r, &dir.join("digits.csv"))?;
    }
    let orders = sections::orders(exp, rows);
    if !orders.is_empty() {
        data::write_orders(&orders, &dir.join("orders.csv"))?;
    }
    let with_scene = exp.variants.len() > 1;
    let accuracy = accuracy_name(exp);
    let scale = exp.variants[0].scene.energy_scale.definition.as_str();
    let names: Vec<String> = exp.formulations.iter().map(|f| f.label.clone()).collect();
    let groups: Vec<String> = exp.stabilizers.iter().map(|s| s.label.clone()).collect();
    let mut plots: Vec<PlotEntry> = Vec::new();
    // Data before pictures: the CSVs are written; a figure that cannot be drawn is reported with
    // the reason and never stops the report.
    let mut draw = |file: &str, caption: &str, keep: Keep, make: &dyn Fn() -> Option<plot::Figure>| {
        // A plotting library panic is caught and reported in report.md, not printed as a crash.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let Some(fig) = make() else { return Ok(None) };
            let (fig, note) = if aggregate::too_large(&fig) {
                let n: usize = fig.panels.iter().map(|p| p.series.len()).sum();
                let note = format!(
                    "{n} series in {} panels are too many to draw one by one (at most {} series, {} panels): each formulation with each post-step stabilizer is drawn as one line {} ({} bins of the x axis), over all scene variants. Every cell's values are in `summary.csv` and `runs.csv`.",
                    fig.panels.len(),
                    aggregate::MAX_SERIES,
                    aggregate::MAX_PANELS,
                    if keep == Keep::Max {
                        "through the largest value of its series in each bin"
                    } else {
                        "along its front: the smallest value any of its cells reaches at that cost or less"
                    },
                    aggregate::BINS
                );
                (aggregate::aggregate(&fig, keep, &names, &groups), Some(note))
            } else {
                (fig, None)
            };
            plot::render(&fig, &dir.join(file)).map(|_| Some(note)).map_err(|e| e.to_string())
        }));
        std::panic::set_hook(hook);
        let (drawn, note) = match made {
            Ok(Ok(None)) => return,
            Ok(Ok(Some(note))) => (true, note),
            Ok(Err(e)) => {
                let e = crate::experiment::config::plain_error(&e);
                (false, Some(format!("Not drawn: {e}. The data are in `summary.csv` and `runs.csv`.")))
            }
            Err(_) => (false, Some("Not drawn: the plotting library failed on this figure. The data are in `summary.csv` and `runs.csv`.".to_string())),
        };
        if !drawn {
            for ext in ["svg", "png"] {
                let _ = std::fs::remove_file(dir.join(file).with_extension(ext));
            }
        }
        plots.push(PlotEntry { file: file.to_string(), caption: caption.to_string(), note, drawn });
    };
    draw("drift", "Constraint drift vs time", Keep::Max, &|| Some(figures::drift(rows, with_scene)));
    draw("energy", "Relative energy error vs time", Keep::Max, &|| Some(figures::energy(rows, with_scene, scale)));
    draw("work_precision_time", "Work-precision: accuracy vs wall time", Keep::Min, &|| {
        Some(figures::work_precision(rows, with_scene, &accuracy).0)
    });
    draw("work_precision_evals", "Work-precision: accuracy vs RHS evaluations", Keep::Min, &|| {
        Some(figures::work_precision(rows, with_scene, &accuracy).1)
    });
    draw("convergence", "Convergence: accuracy vs h", Keep::Max, &|| figures::convergence(rows, with_scene, &accuracy));
    std::fs::write(dir.join("report.md"), markdown::render(exp, rows, prov, &plots))?;
    Ok(())
}

/// Writes the report of a finished run into `dir` (the temporary directory of a
/// `publish::Publisher`): the CSV data first, then the plots, then report.md.
pub fn write_into(
    exp: &Experiment,
    cells: &[Cell],
    results: &[RunResult],
    timings: &[Timing],
    prov: &Provenance,
    dir: &Path,
) -> Result<(), BoxError> {
    let rows = rows(exp, cells, results, timings);
    write_all(exp, &rows, prov, dir)
}
