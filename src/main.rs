//! The `tinkertoy` command line.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use tinkertoy::constraint::registry::CONSTRAINTS;
use tinkertoy::experiment;
use tinkertoy::formulation::registry::{FORMULATIONS, FormulationEntry, FormulationKind, SolverUse};
use tinkertoy::integrator::registry::{INTEGRATORS, IntegratorKind};
use tinkertoy::linsolve::registry::SOLVERS;
use tinkertoy::params;
use tinkertoy::report::{self, provenance::Provenance};
use tinkertoy::scene::registry::{SCENES, SceneEntry};
use tinkertoy::stabilization::registry::STABILIZERS;
use tinkertoy::validate;

/// A research testbed for constrained dynamics.
#[derive(Parser)]
#[command(
    name = "tinkertoy",
    version,
    about,
    after_help = "Examples:\n  tinkertoy run experiments/showcase.yaml            # writes reports/showcase/\n  tinkertoy run experiments/seed002_bead.yaml --threads 1\n  tinkertoy validate                                   # scorecard of every cell against laws and references\n  tinkertoy validate --formulation impulse --solver sparse_cholesky\n  tinkertoy list                                       # every scene, formulation, solver, integrator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an experiment config and write reports/<name>/ (report.md, CSV data, plots).
    Run {
        /// The YAML experiment file.
        config: PathBuf,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Directory the report folder is written into.
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        /// Exit with status 3 when any cell failed or diverged (default: only when no cell ran
        /// to the end). The report is written either way.
        #[arg(long)]
        strict: bool,
        /// Override a limit of the config's `limits:` section, as NAME=VALUE (repeatable):
        /// cells, variants, steps_per_cell, samples, cell_memory_mb, run_memory_mb, cell_seconds, threads.
        #[arg(long = "limit", value_name = "NAME=VALUE")]
        limits: Vec<String>,
        /// Check the config, the budget and the reports directory, print the plan (cells, steps,
        /// estimated memory) and exit without running or writing anything.
        #[arg(long)]
        dry_run: bool,
    },
    /// Check every applicable cell against laws and reference cases; print a scorecard, write
    /// reports/validate/, exit 1 if anything fails.
    Validate {
        /// Only this formulation (default: all registered).
        #[arg(long)]
        formulation: Option<String>,
        /// Only this linear solver (default: all registered).
        #[arg(long)]
        solver: Option<String>,
        /// Only this integrator (default: all registered).
        #[arg(long)]
        integrator: Option<String>,
        /// Directory the `validate` folder is written into.
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
    },
    /// Print every registered constraint, scene, formulation, linear solver, stabilizer and
    /// integrator with its parameters, units and defaults.
    List,
}

fn list() -> String {
    let mut out = String::from("Constraints\n");
    for c in CONSTRAINTS {
        out.push_str(&format!("  {:<16} {}\n    params: {}\n", c.name, c.summary, c.params));
    }
    // (name, summary, parameters) of every registry that declares parameter tables.
    type Rows = Vec<(&'static str, String, params::ParamTable, String)>;
    let formulation = |e: &FormulationEntry| {
        let kind = match e.kind {
            FormulationKind::Ode => "an ODE: pairs with integrators",
            FormulationKind::Stepper => "its own time stepper: pairs with steps",
        };
        let solver = match e.solver {
            SolverUse::Any => String::new(),
            SolverUse::Own(s) => format!("; its own solver: {s}"),
        };
        (e.name, format!("{} [{kind}{solver}]", e.summary), e.params, String::new())
    };
    // A scene's named outputs (at its default parameters) for `record`, `reference` and `events`.
    let outputs = |e: &SceneEntry| match e.build_default(&[]) {
        Ok(s) if !s.outputs.is_empty() => {
            let named: Vec<String> =
                s.outputs.iter().map(|o| format!("{} [{}] {}", o.name, o.unit, o.describes)).collect();
            format!("    outputs: {}\n", named.join("; "))
        }
        _ => String::new(),
    };
    let sections: [(&str, Rows); 4] = [
        ("Scenes", SCENES.iter().map(|e| (e.name, e.summary.to_string(), e.params, outputs(e))).collect()),
        ("Formulations", FORMULATIONS.iter().map(formulation).collect()),
        ("Linear solvers", SOLVERS.iter().map(|e| (e.name, e.summary.to_string(), e.params, String::new())).collect()),
        (
            "Post-step stabilizers",
            STABILIZERS.iter().map(|e| (e.name, e.summary.to_string(), e.params, String::new())).collect(),
        ),
    ];
    for (title, rows) in sections {
        out.push_str(&format!("\n{title}\n"));
        for (name, summary, specs, extra) in rows {
            out.push_str(&format!("  {name:<16} {summary}\n"));
            out.push_str(&params::describe(&(specs.specs)()));
            out.push_str(&extra);
        }
        if title == "Scenes" {
            out.push_str(&format!(
                "  Any scene's outputs also include {}\n",
                tinkertoy::scene::output::GENERIC_OUTPUTS
            ));
        }
    }
    out.push_str("\nIntegrators\n");
    for i in INTEGRATORS {
        let kind = match i.kind() {
            IntegratorKind::Fixed { order } => format!("fixed step h, order {order}"),
            IntegratorKind::Adaptive { order } => format!("adaptive (tolerance), order {order}"),
        };
        out.push_str(&format!("  {:<16} {} [{kind}]\n", i.name, i.summary));
    }
    out
}

/// Exit status of `run` when the report was written but cells failed: every applicable cell
/// failed or diverged, or (with `--strict`) any did.
const EXIT_CELLS_FAILED: u8 = 3;

/// Exit status of `run` when another process is running the same experiment into the same
/// reports directory.
const EXIT_BUSY: u8 = 4;

/// A library's error text in plain words: "No space left on device (os error 28)" → "no space
/// left on device".
fn plain_error(text: &str) -> String {
    let t = text.split(" (os error").next().unwrap_or(text);
    let mut c = t.chars();
    c.next().map_or(String::new(), |f| f.to_lowercase().chain(c).collect())
}

/// One line on stderr, exit status 2: bad input, found before anything was computed.
fn bad_input(message: &str) -> ExitCode {
    eprintln!("error: {}", experiment::config::one_line(message));
    ExitCode::from(2)
}

fn run(
    config: PathBuf,
    threads: Option<usize>,
    reports: PathBuf,
    strict: bool,
    limits: Vec<String>,
    dry_run: bool,
) -> ExitCode {
    report::publish::install_signal_cleanup();
    let file = config.display().to_string();
    let mut overrides = Vec::new();
    for l in &limits {
        match experiment::budget::parse_override(l) {
            Ok(o) => overrides.push(o),
            Err(e) => return bad_input(&format!("--limit: {e}")),
        }
    }
    if threads == Some(0) {
        return bad_input("--threads 0 is invalid; expected at least 1");
    }
    let exp = match experiment::load_with(&file, &overrides) {
        Ok(e) => e,
        Err(e) => return bad_input(&e.to_string()),
    };
    let max_threads = exp.limits.get("threads");
    if let Some(t) = threads.filter(|&t| t as f64 > max_threads) {
        return bad_input(&format!(
            "--threads {t} exceeds `limits.threads` = {max_threads}; the results do not depend on the thread count"
        ));
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .clamp(1, max_threads as usize);
    let cells = exp.cells();
    let memory = match exp.check_memory(&cells, threads) {
        Ok(m) => m,
        Err(e) => return bad_input(&e.to_string()),
    };
    if dry_run {
        let largest = memory.iter().map(|m| m.total()).max().unwrap_or(0);
        let biggest = memory.iter().position(|m| m.total() == largest).map(|i| exp.cell_label(&cells[i]));
        println!(
            "{}: {} cells on {} scene variant(s); largest cell about {} MB ({}); the run about {} MB on {threads} thread(s); limits: {}",
            exp.name,
            cells.len(),
            exp.variants.len(),
            (largest as f64 / 1e6).ceil(),
            biggest.unwrap_or_default(),
            (exp.run_memory(&memory, threads) as f64 / 1e6).ceil(),
            experiment::budget::LIMITS
                .iter()
                .map(|l| format!("{}={}", l.name, exp.limits.get(l.name)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::SUCCESS;
    }
    // Every output error before computing: the directory is checked, locked and written to now.
    let publisher = match report::publish::claim(&reports, &exp.name) {
        Ok(p) => p,
        Err(e) if e.starts_with("another tinkertoy process") => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BUSY);
        }
        Err(e) => return bad_input(&e),
    };
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start {threads} worker threads: {e}");
            publisher.abandon();
            return ExitCode::from(1);
        }
    };
    let bar = ProgressBar::new(cells.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} cells, {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(exp.name.clone());
    let results = pool.install(|| exp.run_all(&cells, &|| bar.inc(1)));
    bar.finish_and_clear();
    let repeats = exp.goals.repeats;
    let timed = results.iter().filter(|r| r.summary.status == experiment::Status::Ok).count();
    let bar = ProgressBar::new((timed * repeats) as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} timed runs, {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{}: timing, one cell at a time", exp.name));
    let (timings, core) = exp.time_all(&cells, &results, &|| bar.inc(1));
    bar.finish_and_clear();
    let mut prov = Provenance::collect(&exp.text, threads);
    prov.timing_core = core;
    let written = report::write_into(&exp, &cells, &results, &timings, &prov, publisher.dir())
        .map_err(|e| plain_error(&e.to_string()))
        .and_then(|()| publisher.publish());
    match written {
        Ok(dir) => {
            let count = |l: &str| results.iter().filter(|r| r.summary.status.label() == l).count();
            eprintln!(
                "{}: {} cells ({} ok, {} diverged, {} failed, {} not applicable) -> {}",
                exp.name,
                cells.len(),
                count("ok"),
                count("diverged"),
                count("failed"),
                count("n/a"),
                dir.join("report.md").display()
            );
            let bad = count("diverged") + count("failed");
            if bad > 0 && (count("ok") == 0 || strict) {
                eprintln!(
                    "{}: exit {EXIT_CELLS_FAILED}: {bad} cell(s) failed or diverged{}",
                    exp.name,
                    if count("ok") == 0 { " and none ran to the end" } else { " (--strict)" }
                );
                ExitCode::from(EXIT_CELLS_FAILED)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: writing the report for {}: {e}; the previous report, if any, is unchanged", exp.name);
            ExitCode::from(1)
        }
    }
}

fn pick<E>(
    field: &str,
    want: &Option<String>,
    all: &'static [E],
    name: fn(&E) -> &'static str,
) -> Result<Vec<&'static E>, String> {
    match want {
        None => Ok(all.iter().collect()),
        Some(w) => match all.iter().find(|e| name(e) == w) {
            Some(e) => Ok(vec![e]),
            None => Err(format!(
                "--{field} `{w}` is unknown; expected one of: {}",
                all.iter().map(name).collect::<Vec<_>>().join(", ")
            )),
        },
    }
}

fn validate_cmd(
    formulation: Option<String>,
    solver: Option<String>,
    integrator: Option<String>,
    reports: PathBuf,
) -> ExitCode {
    let sel = (|| -> Result<validate::Selection<'static>, String> {
        Ok(validate::Selection {
            formulations: pick("formulation", &formulation, FORMULATIONS, |e| e.name)?,
            solvers: pick("solver", &solver, SOLVERS, |e| e.name)?,
            integrators: pick("integrator", &integrator, INTEGRATORS, |e| e.name)?,
            own_steppers: integrator.is_none(),
        })
    })();
    let sel = match sel {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    if !sel.selects_any() {
        let given: Vec<String> = [("formulation", &formulation), ("solver", &solver), ("integrator", &integrator)]
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("--{k} {v}")))
            .collect();
        return bad_input(&format!(
            "the filters {} select no cell (a stepping formulation takes no integrator; a formulation with its own solver pairs only with it); see `tinkertoy list`",
            given.join(" ")
        ));
    }
    report::publish::install_signal_cleanup();
    let publisher = match report::publish::claim(&reports, "validate") {
        Ok(p) => p,
        Err(e) if e.starts_with("another tinkertoy process") => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BUSY);
        }
        Err(e) => return bad_input(&e),
    };
    let checks = validate::run_all(&sel);
    let text = validate::scorecard_text(&checks);
    print!("{text}");
    let tmp = publisher.dir().to_path_buf();
    let written = std::fs::write(tmp.join("scorecard.txt"), &text)
        .and_then(|()| std::fs::write(tmp.join("scorecard.md"), validate::scorecard_markdown(&checks)))
        .map_err(|e| experiment::grid::io_reason(&e))
        .and_then(|()| publisher.publish());
    if let Err(e) = written {
        eprintln!("error: writing {}: {e}", reports.join("validate").display());
        return ExitCode::from(1);
    }
    if checks.iter().any(|c| c.outcome == validate::Outcome::Fail) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config, threads, reports, strict, limits, dry_run } => {
            run(config, threads, reports, strict, limits, dry_run)
        }
        Command::Validate { formulation, solver, integrator, reports } => {
            validate_cmd(formulation, solver, integrator, reports)
        }
        Command::List => {
            print!("{}", list());
            ExitCode::SUCCESS
        }
    }
}
