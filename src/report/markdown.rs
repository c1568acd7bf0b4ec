//! `report.md`: what was run, every cell ranked by accuracy and by cost, the cells that could not
//! run or failed with their reasons, the plots, metric definitions and provenance.

use super::Row;
use super::provenance::Provenance;
use super::sections::{self, cell, e};
use crate::experiment::Experiment;
use crate::experiment::source::SceneSource;
use crate::params::fmt_num;
use std::fmt::Write;

/// The comparison with the user's reference data, most accurate first.
fn reference_section(out: &mut String, exp: &Experiment, r: &crate::experiment::ReferenceData, by_acc: &[&Row]) {
    let units: Vec<&str> = r.outputs.iter().map(|&k| exp.variants[0].outputs[k].unit).collect();
    let _ = writeln!(
        out,
        "\n## Against the reference data\n\nmax over the {} times of `{}` (t = {} … {} s) of |output − reference|, evaluated exactly at those times (fixed steps: at the step boundaries; adaptive: by dense output); angles are compared modulo 2π.\n",
        r.times.len(),
        r.file,
        fmt_num(r.times[0]),
        fmt_num(*r.times.last().unwrap_or(&0.0))
    );
    let subset = r.scored.len() < r.columns.len();
    if subset {
        let scored: Vec<String> = r.scored.iter().map(|&k| format!("`{}`", r.columns[k])).collect();
        let _ = writeln!(
            out,
            "The reference error that ranks the cells and meets the target is the largest error of {} (`reference.score`); every column is shown.\n",
            scored.join(", ")
        );
    }
    let head: Vec<String> = r
        .columns
        .iter()
        .zip(&units)
        .enumerate()
        .map(|(k, (c, u))| {
            cell(&format!("{c} [{u}]{}", if subset && r.scored.contains(&k) { " (scored)" } else { "" }))
        })
        .collect();
    let _ = writeln!(out, "| # | cell | {} |\n|---|---|{}", head.join(" | "), "---|".repeat(head.len()));
    for row in by_acc {
        let errs = row.file_errors.as_deref().unwrap_or(&[]);
        let cols: Vec<String> = errs.iter().map(|x| if x.is_nan() { "—".into() } else { e(*x) }).collect();
        let _ = writeln!(out, "| {} | {} | {} |", row.cell.id, cell(&row.full()), cols.join(" | "));
    }
    if r.times.len() == 1 {
        digits_table(out, r, by_acc);
    }
}

/// Significant correct digits at an end-time reference, the Test Set for IVP Solvers' form.
fn digits_table(out: &mut String, r: &crate::experiment::ReferenceData, by_acc: &[&Row]) {
    let _ = writeln!(
        out,
        "
Significant correct digits at t = {} s, the Test Set for IVP Solvers' measure: per column the mixed digits −log₁₀(|error| / (1 + |reference|)); `scd` is −log₁₀ of the largest relative error |error| / |reference| and `mescd` the least mixed digits, both over every column (`digits.csv`).\n",
        fmt_num(r.times[0])
    );
    let head: Vec<String> = r.columns.iter().map(|c| cell(c)).collect();
    let _ = writeln!(
        out,
        "| # | cell | {} | scd | mescd |\n|---|---|{}---|---|",
        head.join(" | "),
        "---|".repeat(head.len())
    );
    let f = |x: f64| if x.is_nan() { "—".to_string() } else { format!("{x:.2}") };
    for row in by_acc {
        let (mixed, scd, mescd) = super::digits(r, row.file_errors.as_deref().unwrap_or(&[]));
        let cols: Vec<String> = mixed.iter().map(|&x| f(x)).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            row.cell.id,
            cell(&row.full()),
            cols.join(" | "),
            f(scd),
            f(mescd)
        );
    }
}

/// The located crossings of every event and the periods they give.
fn events_section(out: &mut String, exp: &Experiment, ran: &[&Row]) {
    let m = &exp.measure;
    let _ = writeln!(out, "\n## Events\n");
    for (i, ev) in m.events.iter().enumerate() {
        let dir = match ev.direction {
            crate::experiment::Direction::Up => "upward",
            crate::experiment::Direction::Down => "downward",
            crate::experiment::Direction::Both => "either-way",
        };
        let _ =
            writeln!(out, "- event {i}: {dir} crossings of `{}` through {}", m.outputs[ev.output], fmt_num(ev.value));
    }
    let _ = writeln!(
        out,
        "\nAdaptive cells locate a crossing on their dense output (Illinois root finding to 1e-15 of the step: the time is as accurate as the interpolant); fixed-step cells interpolate linearly between the two bracketing step boundaries (the time is within that step, error O(h²) for a smooth crossing). The period is the mean spacing of the crossings in the direction of the first one. All crossings are in `events.csv`.\n"
    );
    let _ = writeln!(out, "| # | cell | event | crossings | first [s] | period [s] |\n|---|---|---|---|---|---|");
    for row in ran {
        for (i, c) in row.result.events.iter().enumerate() {
            let first = c.times.first().map_or("—".into(), |t| format!("{t:.12}"));
            let period = c.period().map_or("—".into(), |p| format!("{p:.12}"));
            let _ = writeln!(
                out,
                "| {} | {} | {i} | {} | {first} | {period} |",
                row.cell.id,
                cell(&row.full()),
                c.times.len()
            );
        }
    }
}

/// Renders the whole report.
pub(super) fn render(exp: &Experiment, rows: &[Row], prov: &Provenance, plots: &[super::PlotEntry]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", exp.name);
    if !exp.description.is_empty() {
        // The description is prose: Markdown is kept, raw HTML is shown as text.
        let _ = writeln!(out, "{}\n", exp.description.replace('<', "&lt;").replace('>', "&gt;"));
    }
    sections::answer(&mut out, exp, rows);
    what_was_run(&mut out, exp);
    axes_run(&mut out, exp, rows);
    run_notes(&mut out, exp, rows, prov);
    let ran: Vec<&Row> = rows.iter().filter(|r| r.result.summary.status.label() != "n/a").collect();
    let mut by_acc = ran.clone();
    by_acc.sort_by(|a, b| {
        let key = |r: &Row| (!r.ok(), r.accuracy().filter(|x| !x.is_nan()).unwrap_or(f64::INFINITY));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.cell.id.cmp(&b.cell.id))
    });
    sections::rankings(&mut out, exp, rows);
    sections::orders_section(&mut out, exp, &sections::orders(exp, rows));

    if let Some(reference) = &exp.measure.reference {
        reference_section(&mut out, exp, reference, &by_acc);
    }
    if !exp.measure.events.is_empty() {
        events_section(&mut out, exp, &ran);
    }

    failed_section(&mut out, rows);
    plots_section(&mut out, plots);
    definitions_section(&mut out, exp);
    provenance_section(&mut out, exp, prov);
    out
}

/// "What was run": the scene (or model, its source, assembly and simplifications).
fn what_was_run(out: &mut String, exp: &Experiment) {
    let _ = writeln!(out, "## What was run\n");
    let scene_params: Vec<String> = exp.variants[0].scene_params_text();
    match &exp.scene {
        SceneSource::Builtin(e) => {
            let _ = writeln!(out, "- scene: `{}` — {}; parameters: {}", e.name, e.summary, scene_params.join(", "));
        }
        SceneSource::Model(m) => {
            // The model's own text is prose: kept on one line, raw HTML shown as text.
            let _ = writeln!(out, "- scene: model `{}` from `{}` — {}", m.name, cell(&m.file), cell(&m.summary));
            if !m.source.is_empty() {
                let _ = writeln!(out, "- model source: {}", cell(&m.source));
            }
            let _ = writeln!(out, "- {}", m.assembly);
            for s in &m.simplifications {
                let _ = writeln!(out, "- simplification chosen by the model: {s}");
            }
        }
    }
}

/// The scene variants, the method axes, the step sizes or tolerances, the duration, and how the
/// time axis of fixed steps is defined.
fn axes_run(out: &mut String, exp: &Experiment, rows: &[Row]) {
    if exp.variants.len() > 1 {
        let variants: Vec<String> = exp.variants.iter().map(|v| v.label.clone()).collect();
        let _ = writeln!(out, "- scene variants: {}", variants.join("; "));
    }
    let list = |v: Vec<&str>| v.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
    let _ = writeln!(out, "- formulations: {}", list(exp.formulations.iter().map(|i| i.label.as_str()).collect()));
    let _ = writeln!(out, "- linear solvers: {}", list(exp.solvers.iter().map(|i| i.label.as_str()).collect()));
    let _ = writeln!(out, "- integrators: {}", list(exp.integrators.iter().map(|i| i.label.as_str()).collect()));
    let _ =
        writeln!(out, "- post-step stabilizers: {}", list(exp.stabilizers.iter().map(|i| i.label.as_str()).collect()));
    if !exp.steps.is_empty() {
        let _ = writeln!(
            out,
            "- step sizes h [s]: {}",
            exp.steps.iter().map(|s| s.label.clone()).collect::<Vec<_>>().join(", ")
        );
    }
    if !exp.tolerances.is_empty() {
        let _ = writeln!(
            out,
            "- tolerances (rtol = atol): {}",
            exp.tolerances.iter().map(|s| s.label.clone()).collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(
        out,
        "- duration {} s, sampled every {} s; a run stops as diverged if ‖C‖∞ > {}",
        fmt_num(exp.duration),
        fmt_num(exp.sample_interval),
        fmt_num(exp.divergence_bound)
    );
    if !exp.steps.is_empty() {
        let _ = writeln!(
            out,
            "- time axis of fixed steps: every step has exactly the labelled h and t = n·h (counted, not accumulated); a sample is the state at the first step boundary at or after each multiple of the sample interval, and a run ends at the boundary nearest the duration (within h/2)"
        );
        // a stepper that redoes steps in pieces (`midpoint` with `splits`) deviates inside a step
        let split: Vec<String> = rows
            .iter()
            .filter(|r| r.h.is_some() && r.result.summary.counters.rejected > 0)
            .map(|r| format!("#{} ({})", r.cell.id, r.result.summary.counters.rejected))
            .collect();
        if !split.is_empty() {
            let _ = writeln!(
                out,
                "- steps redone in pieces: where its Newton iteration stalled, a stepping cell took a step of h as two halves (recursively); samples and the time axis stay on multiples of h, the cost columns count every piece, and `rejected` counts the abandoned attempts: {}",
                split.join(", ")
            );
        }
    }
    // `lagrangian` on a joint tree solves nothing: its cells differ only by the solver's label.
    if exp.solvers.len() > 1 && exp.formulations.iter().any(|f| f.entry.name == "lagrangian") {
        let trees: Vec<&str> = exp
            .variants
            .iter()
            .filter(|v| matches!(crate::multibody::footprint(&v.scene.system), Ok((_, 0))))
            .map(|v| v.label.as_str())
            .collect();
        if !trees.is_empty() {
            let _ = writeln!(
                out,
                "- `lagrangian` on {}: a joint tree without loop closures, so no linear solve; its cells that differ only in the linear solver are one computation",
                trees.join(", ")
            );
        }
    }
}

/// Names the cells whose formulation or solver runs on the thread pool ([`Params::on_threads`]):
/// their times are not one core's.
///
/// [`Params::on_threads`]: crate::params::Params::on_threads
fn threaded_note(out: &mut String, exp: &Experiment, rows: &[Row], prov: &Provenance) {
    let threaded: Vec<String> = rows
        .iter()
        .filter(|r| {
            exp.formulations[r.cell.formulation].params.on_threads() || exp.solvers[r.cell.solver].params.on_threads()
        })
        .map(|r| r.cell.id.to_string())
        .collect();
    if !threaded.is_empty() {
        let (which, verb, their) =
            if threaded.len() == 1 { ("cell", "spreads", "its") } else { ("cells", "spread", "their") };
        let _ = writeln!(
            out,
            "- {which} {} {verb} {their} solves over the run's thread pool ({} threads; e.g. `gauss_seidel` with `parallel: true`): {their} times are wall time on up to that many threads, not one core's — {their} timing thread waits on the pool's threads, which are not pinned; in the simulation pass such cells run after the others, one at a time",
            threaded.join(", "),
            prov.threads,
        );
    }
}

/// How adaptive cells are sampled, how timings were taken, the cell counts by status, the
/// accuracy metric and energy scale, and the drives.
fn run_notes(out: &mut String, exp: &Experiment, rows: &[Row], prov: &Provenance) {
    let accuracy = super::accuracy_name(exp);
    if !exp.tolerances.is_empty() {
        let _ = writeln!(
            out,
            "- adaptive cells step from 0 to the duration as their error control chooses and are sampled at the exact sample times through their dense output (dopri5: order 4; dop853: order 7, whose 3 extra evaluations per sampled step are not counted as cost; radau5: its collocation polynomial, order 3), so sampling does not change their steps"
        );
    }
    if exp.goals.repeats > 0 {
        let _ = writeln!(
            out,
            "- timing: after the simulation pass, every cell that ran to the end was run {r} more times, one cell at a time on one thread pinned to {}, and again (at most {} runs) until its {r} fastest runs agreed within {} of their minimum; wall times are the median [min–max] of those fastest runs (`timing.csv`: `runs` made, `steady`); {}; the data files come from the simulation pass",
            prov.timing_core.map_or("one core (pinning refused: unpinned)".into(), |c| format!("core {c}")),
            crate::experiment::timing::MAX_RUNS_FACTOR * exp.goals.repeats,
            fmt_num(exp.goals.spread),
            unsteady_note(rows),
            r = exp.goals.repeats,
        );
    } else {
        let _ = writeln!(
            out,
            "- timing: one measurement per cell, taken during the parallel simulation pass while other cells ran (`timing.repeats: 0`): indicative, not for ranking"
        );
    }
    threaded_note(out, exp, rows, prov);
    let count = |l: &str| rows.iter().filter(|r| r.result.summary.status.label() == l).count();
    let left = count("left branch");
    let _ = writeln!(
        out,
        "- {} cells: {} ok, {} diverged, {}{} failed, {} not applicable\n",
        rows.len(),
        count("ok"),
        count("diverged"),
        if left > 0 {
            format!("{left} left the assembly branch (a branch invariant of the model failed), ")
        } else {
            String::new()
        },
        count("failed"),
        count("n/a")
    );
    let scale = &exp.variants[0].scene.energy_scale;
    let _ = writeln!(
        out,
        "Accuracy is the **{accuracy}** over the run. Energy errors are divided by E_scale = {} ({} J for the first variant).\n",
        scale.definition,
        fmt_num(scale.joules)
    );
    let system = &exp.variants[0].scene.system;
    let drives = system.constraints().iter().filter(|c| c.driving()).count();
    if drives > 0 {
        let _ = writeln!(
            out,
            "The mechanism is driven ({drives} coordinate{} prescribed in time by `drives:`): the drives do work, so the energy changes by that work and its \"error\" measures the work, not the integration. Judge such cells by a reference or by the drift.\n",
            if drives == 1 { "" } else { "s" }
        );
    }
}

/// The table of cells that did not run to the end.
fn failed_section(out: &mut String, rows: &[Row]) {
    let _ = writeln!(out, "\n## Not applicable and failed cells\n");
    let bad: Vec<&Row> = rows.iter().filter(|r| r.result.summary.status.label() != "ok").collect();
    if bad.is_empty() {
        let _ = writeln!(out, "None: every cell ran to the end.");
    } else {
        let _ = writeln!(out, "| # | cell | status | at t [s] | reason |\n|---|---|---|---|---|");
        for r in bad {
            let (t, reason) = r.status_time_reason();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                r.cell.id,
                cell(&r.full()),
                r.result.summary.status.label(),
                t.map(fmt_num).unwrap_or_else(|| "—".into()),
                cell(&reason)
            );
        }
    }
}

/// The plots with their captions and notes.
fn plots_section(out: &mut String, plots: &[super::PlotEntry]) {
    let _ = writeln!(out, "\n## Plots\n");
    let _ = writeln!(
        out,
        "Values below {:e} (e.g. exactly zero drift of reduced coordinates) are drawn at that floor on log axes; the first sample (t = 0, exact by construction) is not drawn. Each plot is also available as SVG.\n",
        super::plot::LOG_FLOOR
    );
    for p in plots {
        let _ = writeln!(out, "### {}\n", p.caption);
        if let Some(note) = &p.note {
            let _ = writeln!(out, "{note}\n");
        }
        if p.drawn {
            let _ = writeln!(out, "![{}]({}.png)\n", p.caption, p.file);
        }
    }
}

/// "every cell's timing is steady" or the cells whose fastest runs did not agree.
fn unsteady_note(rows: &[Row]) -> String {
    let ids: Vec<String> =
        rows.iter().filter(|r| r.timing.repeats > 0 && !r.timing.steady).map(|r| format!("#{}", r.cell.id)).collect();
    if ids.is_empty() {
        "every timed cell got within it".into()
    } else {
        format!(
            "{} cell(s) did not and are marked `unsteady` (the machine's load varied): {}",
            ids.len(),
            ids.join(", ")
        )
    }
}

/// The definitions of the metrics and data files.
fn definitions_section(out: &mut String, exp: &Experiment) {
    let _ = writeln!(out, "## Metric definitions\n");
    let _ = writeln!(
        out,
        "- drift: max over samples of ‖C(q)‖∞ (position) and ‖J(q) v‖∞ (velocity), in the units of the constraint rows (m for distances and joints, m² for `circle`, rad for angles);"
    );
    let _ = writeln!(
        out,
        "- energy error: max over samples of |E(t) − E(0)| / E_scale, E = ½ vᵀMv + potentials, E_scale as stated above;"
    );
    let _ = writeln!(
        out,
        "- constraint power: Q̂·v [W] with Q̂ the constraint force (Jᵀλ for `force`, M q̈ − Q for `lagrangian`, the last (sub)step's force for steppers); zero for ideal constraints, non-zero when feedback or softness does work;"
    );
    let _ = writeln!(
        out,
        "- reference error: distance to the scene's exact solution where it has one (pendulum: |θ(t) − θ_exact(t)| in rad);"
    );
    if exp.measure.record.contains(&crate::experiment::measure::Recorded::Lambda) {
        let _ = writeln!(
            out,
            "- recorded λ (`states.csv`): the multiplier of each constraint row at the sample's time in force units (N, N·m for angular rows), defined by Q̂ = Jᵀλ; recovered from Q̂ at the sample's configuration for the ODE formulations (exact for the state: the integrator's order) and for the first-order steppers (order 1), the steppers' own second-order estimate at the step's end for `rattle` (μₙ₊₁ + (Λₙ − μₙ)/2) and `midpoint` (its midpoint values extrapolated with the rounding mode cancelled); NaN with contact;"
        );
    }
    if let Some(r) = &exp.measure.reference {
        let _ = writeln!(
            out,
            "- error vs `{}`: max over the file's times of |output − file value| per column, in the output's unit (angles modulo 2π); the accuracy column is the largest over the columns;",
            r.file
        );
    }
    let _ = writeln!(
        out,
        "- cost: wall time of stepping, median wall time of one step, accepted steps, right-hand-side evaluations (one per applied-force + constraint evaluation; for steppers one per applied-force evaluation), linear solves (stabilizer included), solver iterations (1 per direct solve).\n"
    );
    let _ = writeln!(
        out,
        "Data: `summary.csv` (one row per cell), `runs.csv` (one row per cell and sample; with contact also the contact count and the largest solver residual so far), `states.csv` (recorded quantities, with `record:`), `events.csv` (crossings, with `events:`), `orders.csv` (observed convergence orders, with two or more steps) — byte-identical for the same config on any thread count — and `timing.csv` (wall times: median, min and max over the timed runs).\n"
    );
}

/// The provenance: hashes of the config and inputs, version, commit, load, date, machine.
fn provenance_section(out: &mut String, exp: &Experiment, prov: &Provenance) {
    let _ = writeln!(out, "## Provenance\n");
    let _ = writeln!(out, "- config: `{}`, SHA-256 `{}`", exp.file, prov.config_hash);
    for (file, hash) in exp.inputs() {
        let _ =
            writeln!(out, "- input: `{}`, SHA-256 `{hash}` (a model's text; reference data as parsed)", cell(&file));
    }
    let _ = writeln!(out, "- tinkertoy {} at commit `{}`", prov.version, prov.commit);
    for note in &prov.notes {
        let _ = writeln!(out, "- {note}");
    }
    let _ = writeln!(out, "- {}", prov.load_text());
    let _ = writeln!(out, "- run {} on {}, {} worker threads", prov.date, prov.machine, prov.threads);
    if !prov.timed_by.is_empty() {
        // merged: which machines timed which share of the cells (per cell in timing.csv)
        let mut hosts: Vec<(String, String, usize)> = Vec::new();
        for by in &prov.timed_by {
            match hosts.iter_mut().find(|(h, c, _)| *h == by.host && *c == by.cpu) {
                Some(e) => e.2 += 1,
                None => hosts.push((by.host.clone(), by.cpu.clone(), 1)),
            }
        }
        let list: Vec<String> = hosts.iter().map(|(h, c, n)| format!("`{}` ({c}): {n} cells", cell(h))).collect();
        let _ = writeln!(
            out,
            "- timed on {} host(s): {} — each cell's host, CPU model and pinned core are in `timing.csv`; timings from different CPU models are not comparable",
            hosts.len(),
            list.join("; ")
        );
    }
}
