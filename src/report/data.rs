//! The report's data files. `summary.csv` and `runs.csv` hold only deterministic quantities, so
//! the same config gives byte-identical files whatever the thread count; wall times, which vary
//! from run to run, go to `timing.csv`.

use super::Row;
use crate::experiment::{Measurements, Recorded};
use std::path::Path;

/// Shortest round-trip text of a float (deterministic): plain in [1e-4, 1e15), else scientific.
pub(super) fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) { format!("{x}") } else { format!("{x:e}") }
}

/// A text cell a spreadsheet will not run as a formula: one starting with = + - @ (or a tab or
/// carriage return) gets a leading apostrophe (OWASP's CSV-injection advice).
pub(super) fn text(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_string() }
}

fn opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_default()
}

/// `summary.csv`: one row per cell (an integrator's Newton iterations, Jacobians and
/// decompositions empty for a stepping formulation); with a reference file, one `ref_err_<column>` per column
/// and `max_ref_err`; with events, `event<i>_crossings`, `event<i>_first` and `event<i>_period`.
pub(super) fn write_summary(rows: &[Row], m: &Measurements, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    let mut extra: Vec<String> = Vec::new();
    if let Some(r) = &m.reference {
        extra.extend(r.columns.iter().map(|c| format!("ref_err_{c}")));
        extra.push("max_ref_err".into());
    }
    for i in 0..m.events.len() {
        extra.extend([format!("event{i}_crossings"), format!("event{i}_first"), format!("event{i}_period")]);
    }
    let fixed = [
        "cell",
        "scene",
        "formulation",
        "solver",
        "integrator",
        "h",
        "tolerance",
        "status",
        "status_time",
        "reason",
        "max_drift_position",
        "max_drift_velocity",
        "max_energy_error",
        "energy_scale_joules",
        "max_abs_power",
        "max_reference_error",
        "steps",
        "rejected",
        "rhs_evals",
        "linear_solves",
        "solver_iterations",
        "max_solver_residual",
        "newton_iterations",
        "jacobians",
        "decompositions",
    ];
    w.write_record(fixed.iter().map(|s| s.to_string()).chain(extra.iter().cloned()))?;
    for r in rows {
        let s = &r.result.summary;
        let c = &s.counters;
        let (t, reason) = r.status_time_reason();
        let mut tail: Vec<String> = Vec::new();
        if let Some(errs) = &r.file_errors {
            tail.extend(errs.iter().map(|e| num(*e)));
            tail.push(opt(r.accuracy()));
        }
        for i in 0..m.events.len() {
            match r.result.events.get(i) {
                Some(e) => tail.extend([e.times.len().to_string(), opt(e.times.first().copied()), opt(e.period())]),
                None => tail.extend([String::new(), String::new(), String::new()]),
            }
        }
        let head = [
            r.cell.id.to_string(),
            text(&r.scene),
            text(&r.formulation),
            text(&r.solver),
            text(&r.integrator),
            opt(r.h),
            opt(r.tol),
            s.status.label().to_string(),
            opt(t),
            text(&reason),
            num(s.max_drift_position),
            num(s.max_drift_velocity),
            num(s.max_energy_error),
            num(s.energy_scale.joules),
            num(s.max_abs_power),
            opt(s.max_reference_error),
            c.steps.to_string(),
            c.rejected.to_string(),
            c.rhs_evals.to_string(),
            c.linear_solves.to_string(),
            c.solver_iterations.to_string(),
            num(s.max_solver_residual),
            c.newton.map(|n| n.iterations.to_string()).unwrap_or_default(),
            c.newton.map(|n| n.jacobians.to_string()).unwrap_or_default(),
            c.newton.map(|n| n.decompositions.to_string()).unwrap_or_default(),
        ];
        w.write_record(head.into_iter().chain(tail))?;
    }
    w.flush()?;
    Ok(())
}

/// `runs.csv`: tidy long format, one row per cell × sample; where a scene has contact, also the
/// sample's contact count and the largest solver residual so far (empty for cells without).
pub(super) fn write_runs(rows: &[Row], path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    let contact = rows.iter().any(|r| r.result.samples.iter().any(|s| s.contacts.is_some()));
    let extra: &[&str] = if contact { &["contacts", "max_solver_residual"] } else { &[] };
    w.write_record(
        [
            "cell",
            "t",
            "energy",
            "energy_error",
            "drift_position",
            "drift_velocity",
            "power",
            "reference_error",
            "steps",
            "rejected",
            "rhs_evals",
            "linear_solves",
            "solver_iterations",
        ]
        .iter()
        .chain(extra),
    )?;
    for r in rows {
        for s in &r.result.samples {
            let c = &s.counters;
            let more = match (contact, s.contacts) {
                (false, _) => vec![],
                (true, Some(n)) => vec![n.to_string(), num(s.max_solver_residual)],
                (true, None) => vec![String::new(), String::new()],
            };
            let base = [
                r.cell.id.to_string(),
                num(s.t),
                num(s.energy),
                num(s.energy_error),
                num(s.drift_position),
                num(s.drift_velocity),
                num(s.power),
                opt(s.reference_error),
                c.steps.to_string(),
                c.rejected.to_string(),
                c.rhs_evals.to_string(),
                c.linear_solves.to_string(),
                c.solver_iterations.to_string(),
            ];
            w.write_record(base.iter().chain(&more))?;
        }
    }
    w.flush()?;
    Ok(())
}

/// `digits.csv`: per cell, the Test Set's mixed digits of every reference column at the
/// reference's one time, and its scd and mescd ([`super::digits`]).
pub(super) fn write_digits(rows: &[Row], r: &crate::experiment::ReferenceData, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    let head: Vec<String> = ["cell".to_string()]
        .into_iter()
        .chain(r.columns.iter().map(|c| format!("mixed_digits_{c}")))
        .chain(["scd".to_string(), "mescd".to_string()])
        .collect();
    w.write_record(&head)?;
    for row in rows {
        let (mixed, scd, mescd) = super::digits(r, row.file_errors.as_deref().unwrap_or(&[]));
        let rec: Vec<String> =
            [row.cell.id.to_string()].into_iter().chain(mixed.into_iter().chain([scd, mescd]).map(num)).collect();
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}

/// `timing.csv`: wall times per cell (not reproducible by nature): the number of timed runs
/// summarised (`repeats`, the fastest; 0 = the single measurement of the parallel simulation
/// pass), the timed runs made (`runs`), whether the summarised runs agree within the config's
/// spread (`steady`), the run's stepping wall time and the median step time, each as median, min
/// and max over the summarised runs, and where it was timed (`host`, `cpu_model`, `core`: the core
/// the timing pass was pinned to, empty when unpinned).
pub(super) fn write_timing(rows: &[Row], prov: &crate::report::Provenance, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record([
        "cell",
        "repeats",
        "runs",
        "steady",
        "wall_seconds",
        "wall_seconds_min",
        "wall_seconds_max",
        "median_step_seconds",
        "median_step_seconds_min",
        "median_step_seconds_max",
        "host",
        "cpu_model",
        "core",
    ])?;
    for r in rows {
        let t = &r.timing;
        let ran = r.result.summary.counters.steps > 0;
        let x = |v: f64| if ran { num(v) } else { num(f64::NAN) };
        let by = prov.timed_by(r.cell.id);
        w.write_record([
            r.cell.id.to_string(),
            t.repeats.to_string(),
            t.runs.to_string(),
            t.steady.to_string(),
            x(t.wall.median),
            x(t.wall.min),
            x(t.wall.max),
            x(t.step.median),
            x(t.step.min),
            x(t.step.max),
            by.host,
            by.cpu,
            by.core.map_or(String::new(), |c| c.to_string()),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// `states.csv`: the recorded quantities in tidy long form, one row per (cell, sample, value):
/// `cell, t, name, value` with names `q[i]`, `v[i]`, `lambda[r]`, `c[r]`, `jv[r]` (indices into
/// the layouts of q, v and the constraint rows) and the recorded outputs by name. Written in cell
/// order, so byte-identical whatever the thread count.
pub(super) fn write_states(rows: &[Row], m: &Measurements, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["cell", "t", "name", "value"])?;
    for r in rows {
        let id = r.cell.id.to_string();
        for sample in &r.result.samples {
            let t = num(sample.t);
            for &q in &m.record {
                let values = match q {
                    Recorded::Q => &sample.q,
                    Recorded::V => &sample.v,
                    Recorded::Lambda => &sample.lambda,
                    Recorded::C => &sample.c,
                    Recorded::Jv => &sample.jv,
                };
                for (i, x) in values.iter().enumerate() {
                    w.write_record([id.as_str(), t.as_str(), &format!("{}[{i}]", q.name()), &num(*x)])?;
                }
            }
            for &k in &m.recorded_outputs {
                if let Some(x) = sample.outputs.get(k) {
                    w.write_record([id.as_str(), t.as_str(), m.outputs[k].as_str(), &num(*x)])?;
                }
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// `events.csv`: every located crossing, `cell, event, output, t, direction`.
pub(super) fn write_events(rows: &[Row], m: &Measurements, path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["cell", "event", "output", "t", "direction"])?;
    for r in rows {
        let id = r.cell.id.to_string();
        for (i, e) in r.result.events.iter().enumerate() {
            let name = &m.outputs[m.events[i].output];
            for (t, up) in e.times.iter().zip(&e.rising) {
                w.write_record([id.as_str(), &i.to_string(), name, &num(*t), if *up { "up" } else { "down" }])?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// `orders.csv`: the observed convergence order of every fixed-step series with two or more
/// step sizes (variant, series, nominal order, slope between the two smallest h, least-squares
/// slope); deterministic like the other data files.
pub(super) fn write_orders(orders: &[super::sections::Order], path: &Path) -> csv::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["variant", "series", "nominal_order", "observed_order", "observed_order_fit", "steps"])?;
    for o in orders {
        w.write_record([
            text(&o.variant),
            text(&o.series),
            o.nominal.map_or(String::new(), |n| n.to_string()),
            num(o.observed.0),
            num(o.observed.1),
            o.steps.join(" "),
        ])?;
    }
    w.flush()?;
    Ok(())
}
