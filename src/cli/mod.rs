//! The `tinkertoy` command line as a library function, [`main_with`]: the `tinkertoy` binary is
//! `main_with(Registry::builtin())`, and a researcher's binary passes a registry extended with
//! its own methods to get every command with them in every table, config and report:
//!
//! ```no_run
//! use tinkertoy::registry::Registry;
//! # const MY_STEPPER: tinkertoy::formulation::registry::FormulationEntry = tinkertoy::formulation::impulse::ENTRY;
//! fn main() -> std::process::ExitCode {
//!     let registry = Registry::builtin().with_formulation(MY_STEPPER).expect("a new name");
//!     tinkertoy::cli::main_with(registry)
//! }
//! ```

use crate::commands::{self, CommandError};
use crate::experiment;
use crate::registry::Registry;
use crate::report;
use crate::validate;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) mod contact;
pub(crate) mod dump;
mod run;
use run::{Options, merge, run};

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

/// What `shards` does.
#[derive(Subcommand)]
enum ShardsAction {
    /// List every sharded sweep in DIR with its shards done, started but not published, and
    /// missing, and print the exact commands that rerun the others and merge.
    Status {
        /// The reports directory the shards were written into.
        dir: PathBuf,
    },
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
        /// Run only shard I of N (1-based) of the cells, partitioned by estimated work, into
        /// <reports>/<name>.shard-I-of-N/ for `merge`.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Reuse the cells an interrupted run of the same config and build already finished.
        #[arg(long)]
        resume: bool,
        /// Run only these cells (indices `3`, ranges `5-9`, filters `formulation=force` …,
        /// comma-separated); the others are reused from the previous run when stored.
        #[arg(long, value_name = "SELECTION")]
        cells: Option<String>,
    },
    /// Merge the shard directories of one sweep (`run --shard I/N`) into the report a single run
    /// would write.
    Merge {
        /// The shard directories.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Directory the report folder is written into.
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        /// Exit with status 3 when any cell failed or diverged.
        #[arg(long)]
        strict: bool,
        /// Wait up to this many seconds for the shards not given or not yet there, looked up by
        /// name next to the first (NAME.shard-I-of-N), checking every 2 s; then merge what is
        /// there. For a merge job chained after an array with `afterany`, which runs even when
        /// tasks failed and waits for their resubmission. At most 2592000 (30 days).
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=2_592_000))]
        wait: Option<u64>,
        /// Keep the shards' per-cell stores (`.NAME.shard-I-of-N.cells/`, one file per cell and
        /// its timing, for `--resume`), which a successful merge otherwise removes; the shard
        /// directories, whose files hold every result, are kept either way.
        #[arg(long)]
        keep_cells: bool,
    },
    /// The shards of sharded sweeps (`run --shard I/N`) in a reports directory.
    Shards {
        #[command(subcommand)]
        action: ShardsAction,
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
    /// Describe each scene variant of a config, or a model file, without running it: size,
    /// consistency of the initial state, rank of J at q0 (degrees of freedom, redundant rows
    /// named) and the joint coordinates `lagrangian` gives it; for a model also what assembly did.
    Check {
        /// The YAML experiment file, a suite (each member), or a model file (first key `model:`).
        config: PathBuf,
    },
    /// Animate recorded cells of a model's experiment side by side: the positions a run wrote to
    /// `states.csv` (`record: [q]`), drawn as `draw` does, written as an animated PNG.
    Animate {
        /// The YAML model file the experiment ran.
        model: PathBuf,
        /// The experiment's report directory (holding `states.csv` and `summary.csv`).
        report: PathBuf,
        /// Cells to show, e.g. `0,3,7` (default: every recorded cell, at most 6).
        #[arg(long, value_delimiter = ',')]
        cells: Vec<usize>,
        /// Number of frames, evenly spaced over the run.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(2..=1000))]
        frames: u16,
        /// Frames per second.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=100))]
        fps: u16,
        /// Directory for `<model>_animation.png`.
        #[arg(long, default_value = "reports/models")]
        out: PathBuf,
    },
    /// Run contact solvers on frictional contact problems (FCLIB .hdf5, Siconos .dat) to each
    /// tolerance and write <reports>/<name>/: solved or not by the natural-map residual, time,
    /// iterations, performance profiles and residual histories.
    Contact {
        /// The problem files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Contact solvers, comma-separated, each `name` or `name:key=value` (default: all).
        #[arg(long, value_delimiter = ',')]
        solvers: Vec<String>,
        /// Tolerances on the natural-map residual / ||q||.
        #[arg(long, value_delimiter = ',', default_values_t = [1e-4, 1e-8])]
        tol: Vec<f64>,
        /// Wall-time limit per solve [s].
        #[arg(long, default_value_t = 10.0)]
        time_limit: f64,
        /// Iterations at most per solve.
        #[arg(long, default_value_t = 100_000)]
        max_iter: usize,
        /// Timed repeats of every solve that converged (median reported).
        #[arg(long, default_value_t = 3)]
        repeats: usize,
        /// Start from the problem's first stored guess instead of r = 0.
        #[arg(long)]
        warm: bool,
        /// Name of the report directory.
        #[arg(long, default_value = "contact")]
        name: String,
        /// Directory the report folder is written into.
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
    },
    /// Run one contact cell (pgs) of an experiment to a time and write that step's frictional
    /// contact problem as an FCLIB file (its impulses as the stored guess).
    Dump {
        /// The YAML experiment file.
        config: PathBuf,
        /// The cell's index (as in the report).
        #[arg(long)]
        cell: usize,
        /// The time of the step [s].
        #[arg(long)]
        time: f64,
        /// The FCLIB file to write (.hdf5).
        #[arg(long)]
        out: PathBuf,
    },
    /// Draw a model file's mechanism at its assembled initial state (bodies, joints, springs,
    /// world anchors, labels) as SVG and PNG.
    Draw {
        /// The YAML model file.
        model: PathBuf,
        /// Directory for `<model>.svg` and `<model>.png`.
        #[arg(long, default_value = "reports/models")]
        out: PathBuf,
    },
}

/// Exit status 0 with `line` on stderr, or the error's status with its line.
fn reported(result: Result<String, CommandError>) -> ExitCode {
    match result {
        Ok(line) => {
            eprintln!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => stopped(&e),
    }
}

/// One line on stderr (the error rendered once), and the exit status its kind gives.
fn stopped(e: &CommandError) -> ExitCode {
    eprintln!("error: {}", experiment::config::one_line(&e.to_string()));
    ExitCode::from(e.exit_status())
}

impl From<report::publish::PublishError> for CommandError {
    /// A busy report is its own kind; any other refusal of the reports directory is bad input.
    fn from(e: report::publish::PublishError) -> Self {
        match e {
            report::publish::PublishError::Busy { .. } => CommandError::Busy(e.to_string()),
            e => CommandError::Usage(e.to_string()),
        }
    }
}

/// Exit status of `run` when the report was written but cells failed: every applicable cell
/// failed or diverged, or (with `--strict`) any did.
const EXIT_CELLS_FAILED: u8 = 3;

/// One line on stderr, exit status 2: bad input, found before anything was computed.
fn bad_input(message: &str) -> ExitCode {
    eprintln!("error: {}", experiment::config::one_line(message));
    ExitCode::from(2)
}

fn pick<E>(
    field: &str,
    want: &Option<String>,
    all: &'static [E],
    name: fn(&E) -> &'static str,
) -> Result<Vec<&'static E>, CommandError> {
    match want {
        None => Ok(all.iter().collect()),
        Some(w) => match all.iter().find(|e| name(e) == w) {
            Some(e) => Ok(vec![e]),
            None => Err(CommandError::Usage(format!(
                "--{field} `{w}` is unknown; expected one of: {}",
                all.iter().map(name).collect::<Vec<_>>().join(", ")
            ))),
        },
    }
}

fn validate_cmd(
    formulation: Option<String>,
    solver: Option<String>,
    integrator: Option<String>,
    reports: PathBuf,
) -> ExitCode {
    let reg = crate::registry::active();
    let sel = (|| -> Result<validate::Selection<'static>, CommandError> {
        Ok(validate::Selection {
            formulations: pick("formulation", &formulation, reg.formulations(), |e| e.name)?,
            solvers: pick("solver", &solver, reg.solvers(), |e| e.name)?,
            integrators: pick("integrator", &integrator, reg.integrators(), |e| e.name)?,
            own_steppers: integrator.is_none(),
        })
    })();
    let sel = match sel {
        Ok(s) => s,
        Err(e) => return stopped(&e),
    };
    if !sel.selects_any() {
        let given: Vec<String> = [("formulation", &formulation), ("solver", &solver), ("integrator", &integrator)]
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("--{k} {v}")))
            .collect();
        return bad_input(&format!(
            "the filters {} select no cell (a stepping formulation takes no integrator; a formulation pairs only with the solvers that take its kind of system); see `tinkertoy list`",
            given.join(" ")
        ));
    }
    report::publish::install_signal_cleanup();
    let publisher = match report::publish::claim(&reports, "validate") {
        Ok(p) => p,
        Err(e) => return stopped(&CommandError::from(e)),
    };
    let checks = validate::run_all(&sel);
    let text = validate::scorecard_text(&checks);
    print!("{text}");
    let tmp = publisher.dir().to_path_buf();
    let written = std::fs::write(tmp.join("scorecard.txt"), &text)
        .and_then(|()| std::fs::write(tmp.join("scorecard.md"), validate::scorecard_markdown(&checks)))
        .map_err(|e| experiment::grid::io_reason(&e))
        .and_then(|()| publisher.publish().map_err(|e| e.to_string()));
    if let Err(e) = written {
        eprintln!("error: writing {}: {e}", reports.join("validate").display());
        return ExitCode::from(1);
    }
    if checks.iter().any(|c| c.outcome == validate::Outcome::Fail) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// The whole command line (`run`, `merge`, `validate`, `list`, `check`, `draw`, `animate`) over
/// `registry`: parses the process's arguments, installs the registry ([`Registry::install`]) and
/// runs the command; returns the exit status (0 done, 1 a validate check failed or a write
/// failed, 2 bad input, 3 cells failed, 4 busy).
pub fn main_with(registry: Registry) -> ExitCode {
    let cli = Cli::parse();
    if registry.install().is_err() {
        eprintln!("error: a registry was already in use in this process; main_with must come first");
        return ExitCode::from(1);
    }
    match cli.command {
        Command::Run { config, threads, reports, strict, limits, dry_run, shard, resume, cells } => {
            run(config, threads, reports, Options { strict, limits, dry_run, shard, resume, cells })
        }
        Command::Merge { shards, reports, strict, wait, keep_cells } => {
            merge(shards, reports, strict, wait, keep_cells)
        }
        Command::Shards { action: ShardsAction::Status { dir } } => shards_status(&dir),
        Command::Validate { formulation, solver, integrator, reports } => {
            validate_cmd(formulation, solver, integrator, reports)
        }
        Command::Check { config } => check(&config),
        Command::List => {
            print!("{}", commands::list(crate::registry::active()));
            ExitCode::SUCCESS
        }
        Command::Animate { model, report, cells, frames, fps, out } => {
            reported(commands::animate(&model, &report, &cells, frames as usize, fps, &out))
        }
        Command::Draw { model, out } => reported(commands::draw(&model, &out)),
        Command::Dump { config, cell, time, out } => reported(dump::dump(&config, cell, time, &out)),
        Command::Contact { files, solvers, tol, time_limit, max_iter, repeats, warm, name, reports } => {
            contact_cmd(contact::ContactOptions {
                files,
                solvers,
                tols: tol,
                seconds: time_limit,
                max_iter,
                repeats,
                warm,
                name,
                reports,
            })
        }
    }
}

/// `check`: a contact problem file, a model file, or a config (each member of a suite), described;
/// everything loaded before anything is printed.
fn check(config: &std::path::Path) -> ExitCode {
    let file = config.display().to_string();
    if config.extension().is_some_and(|e| e == "hdf5" || e == "h5" || e == "dat") {
        return match contact::describe(config) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => stopped(&e),
        };
    }
    if commands::is_model_file(&file) {
        return match commands::check_model(&file) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => stopped(&e),
        };
    }
    // A suite: each member in turn, every one loaded before anything is printed.
    let files = if experiment::config::read_config(&file).is_ok_and(|t| experiment::suite::is_suite(&t)) {
        match experiment::suite::load(&file) {
            Ok(s) => s.members.iter().map(|m| m.display().to_string()).collect(),
            Err(e) => return bad_input(&e.to_string()),
        }
    } else {
        vec![file]
    };
    let mut loaded = Vec::new();
    for f in &files {
        match experiment::load_with(f, &[]) {
            Ok(exp) => loaded.push(exp),
            Err(e) => return bad_input(&e.to_string()),
        }
    }
    for exp in &loaded {
        if files.len() > 1 {
            println!("{}:", exp.name);
        }
        for v in &exp.variants {
            let label = if v.label == v.scene.name { v.label.clone() } else { format!("{} {}", v.scene.name, v.label) };
            print!("{}", experiment::check::describe(&label, &v.scene));
        }
    }
    ExitCode::SUCCESS
}

/// `contact`: every problem and solver checked, then run into the report.
fn contact_cmd(o: contact::ContactOptions) -> ExitCode {
    let prepared = match contact::prepare(&o) {
        Ok(p) => p,
        Err(e) => return stopped(&e),
    };
    report::publish::install_signal_cleanup();
    match contact::run(&o, prepared) {
        Ok(path) => {
            eprintln!("contact: {} problems -> {}", o.files.len(), path.display());
            ExitCode::SUCCESS
        }
        Err(e) => stopped(&e),
    }
}

/// `shards status DIR`: prints [`experiment::shards::render`]; exit 2 when DIR cannot be read.
fn shards_status(dir: &std::path::Path) -> ExitCode {
    match experiment::shards::status(dir) {
        Ok(sweeps) => {
            print!("{}", experiment::shards::render(dir, &sweeps));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "error: shards status: `{}`: {}",
                crate::params::short(&dir.display().to_string()),
                experiment::grid::io_reason(&e)
            );
            ExitCode::from(2)
        }
    }
}
