//! The `tinkertoy` command line.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use tinkertoy::commands;
use tinkertoy::experiment;
use tinkertoy::formulation::registry::FORMULATIONS;
use tinkertoy::integrator::registry::INTEGRATORS;
use tinkertoy::linsolve::registry::SOLVERS;
use tinkertoy::params;
use tinkertoy::report::{self, provenance::Provenance};
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

/// Exit status 0 with `line` on stderr, or 2 with the reason.
fn reported(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(line) => {
            eprintln!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(&e),
    }
}

/// Exit status of `run` when the report was written but cells failed: every applicable cell
/// failed or diverged, or (with `--strict`) any did.
const EXIT_CELLS_FAILED: u8 = 3;

/// Exit status of `run` when another process is running the same experiment into the same
/// reports directory.
const EXIT_BUSY: u8 = 4;

/// One line on stderr, exit status 2: bad input, found before anything was computed.
fn bad_input(message: &str) -> ExitCode {
    eprintln!("error: {}", experiment::config::one_line(message));
    ExitCode::from(2)
}

/// The options of `run` besides the config, threads and reports directory.
struct Options {
    strict: bool,
    limits: Vec<String>,
    dry_run: bool,
    shard: Option<String>,
    resume: bool,
    cells: Option<String>,
}

/// `I/N` with 1 <= I <= N <= 10000.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard `{}` is invalid; expected I/N with 1 <= I <= N (e.g. 2/8)", params::short(text));
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if i == 0 || i > n || n > 10_000 { Err(bad()) } else { Ok((i, n)) }
}

fn run(config: PathBuf, threads: Option<usize>, reports: PathBuf, opts: Options) -> ExitCode {
    let file = config.display().to_string();
    if experiment::config::read_config(&file).is_ok_and(|t| experiment::suite::is_suite(&t)) {
        return run_suite(&file, threads, reports, opts);
    }
    run_one(config, threads, reports, opts, None)
}

/// `run` on a suite file: every member is loaded (and so checked) before any computing, then run
/// into `<reports>/<suite>/<member>/` as `run` would, and the suite's report is written over them.
/// The exit status is the worst of the members'.
fn run_suite(file: &str, threads: Option<usize>, reports: PathBuf, opts: Options) -> ExitCode {
    if opts.shard.is_some() || opts.cells.is_some() {
        return bad_input(
            "--shard and --cells select cells of one experiment; run a member file of the suite to use them",
        );
    }
    let suite = match experiment::suite::load(file) {
        Ok(s) => s,
        Err(e) => return bad_input(&e.to_string()),
    };
    let mut names: Vec<String> = Vec::new();
    for m in &suite.members {
        let f = m.display().to_string();
        if experiment::config::read_config(&f).is_ok_and(|t| experiment::suite::is_suite(&t)) {
            return bad_input(&format!("{file}: member `{f}` is itself a suite; a suite lists experiment files"));
        }
        match experiment::load_with(&f, &[]) {
            Ok(e) if names.contains(&e.name) => {
                return bad_input(&format!(
                    "{file}: two members are named `{}`; each member's `name` names its report directory",
                    e.name
                ));
            }
            Ok(e) => names.push(e.name),
            Err(e) => return bad_input(&e.to_string()),
        }
    }
    let dir = reports.join(&suite.name);
    let mut entries = Vec::new();
    let mut failed_cells = false;
    for m in &suite.members {
        let member = Options {
            strict: opts.strict,
            limits: opts.limits.clone(),
            dry_run: opts.dry_run,
            shard: None,
            resume: opts.resume,
            cells: None,
        };
        let code = run_one(m.clone(), threads, dir.clone(), member, Some(&mut entries));
        if code == ExitCode::from(EXIT_CELLS_FAILED) {
            failed_cells = true;
        } else if code != ExitCode::SUCCESS {
            return code;
        }
    }
    if opts.dry_run {
        return ExitCode::SUCCESS;
    }
    let prov = Provenance::collect(&suite.text, threads.unwrap_or(1));
    match report::suite::write(&suite, file, &entries, &prov, &dir) {
        Ok(path) => {
            eprintln!("{}: {} experiments -> {}", suite.name, suite.members.len(), path.display());
            if failed_cells { ExitCode::from(EXIT_CELLS_FAILED) } else { ExitCode::SUCCESS }
        }
        Err(e) => {
            eprintln!("error: writing the report of suite {}: {}", suite.name, experiment::grid::io_reason(&e));
            ExitCode::from(1)
        }
    }
}

/// `run` on one experiment file; with `entry`, the experiment's section of a suite report is
/// pushed there.
fn run_one(
    config: PathBuf,
    threads: Option<usize>,
    reports: PathBuf,
    opts: Options,
    entry: Option<&mut Vec<String>>,
) -> ExitCode {
    let Options { strict, limits, dry_run, shard, resume, cells: selection } = opts;
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
    let all = exp.cells();
    let shard = match shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    if let Some((_, n)) = shard.filter(|&(_, n)| n > all.len()) {
        return bad_input(&format!("--shard: {n} shards for {} cells; use at most one shard per cell", all.len()));
    }
    let cells = match shard {
        Some((i, n)) => experiment::store::shard_cells(&exp, &all, i, n),
        None => all.clone(),
    };
    let selected = match selection.as_deref().map(|s| experiment::store::select(&exp, &cells, all.len(), s)) {
        Some(Ok(f)) => f,
        Some(Err(e)) => return bad_input(&e),
        None => vec![true; cells.len()],
    };
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
    let claim_name = match shard {
        Some((i, n)) => format!("{}.shard-{i}-of-{n}", exp.name),
        None => exp.name.clone(),
    };
    let publisher = match report::publish::claim(&reports, &claim_name) {
        Ok(p) => p,
        Err(e) if e.starts_with("another tinkertoy process") => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BUSY);
        }
        Err(e) => return bad_input(&e),
    };
    // Every finished cell is stored as it completes, for `--resume` and `--cells`.
    let reuse = resume || selection.is_some();
    let store = match experiment::store::Store::open(&reports, &claim_name, &exp.text, reuse) {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    // Selected cells run unless --resume finds them finished; the others (only with --cells) are
    // reused when stored and otherwise left out.
    let mut stored: Vec<Option<experiment::RunResult>> =
        cells.iter().zip(&selected).map(|(c, &sel)| if !sel || resume { store.load(&exp, c) } else { None }).collect();
    let to_run: Vec<experiment::Cell> = cells
        .iter()
        .zip(&selected)
        .zip(&stored)
        .filter(|((_, s), r)| **s && r.is_none())
        .map(|((c, _), _)| c.clone())
        .collect();
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start {threads} worker threads: {e}");
            return ExitCode::from(1);
        }
    };
    let bar = ProgressBar::new(to_run.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} cells, {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(exp.name.clone());
    let fresh = pool.install(|| {
        exp.run_cells(&to_run, &|c, r| {
            store.save(&exp, c, r);
            bar.inc(1)
        })
    });
    bar.finish_and_clear();
    let reused = stored.iter().filter(|r| r.is_some()).count();
    let mut fresh = fresh.into_iter();
    let mut kept = Vec::new();
    let mut results = Vec::new();
    for ((c, sel), r) in cells.iter().zip(&selected).zip(stored.iter_mut()) {
        match (r.take(), sel) {
            (Some(r), _) => results.push(r),
            (None, true) => results.push(fresh.next().expect("one result per cell run")),
            (None, false) => continue,
        }
        kept.push(c.clone());
    }
    let left_out = cells.len() - kept.len();
    let repeats = exp.goals.repeats;
    let timed = results.iter().filter(|r| r.summary.status == experiment::Status::Ok).count();
    let bar = ProgressBar::new((timed * repeats) as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} timed runs, {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{}: timing, one cell at a time", exp.name));
    let (timings, core) = exp.time_all(&kept, &results, &|| bar.inc(1));
    bar.finish_and_clear();
    let mut prov = Provenance::collect(&exp.text, threads);
    prov.timing_core = core;
    if reused > 0 {
        eprintln!(
            "{}: reused {reused} of {} cells finished by an earlier run of this config and build",
            exp.name,
            cells.len()
        );
        prov.notes.push(format!(
            "{reused} of {} cells reused from an earlier run of this config and build (`--resume` or `--cells`); their timings were measured again",
            cells.len()
        ));
    }
    if left_out > 0 {
        prov.notes.push(format!("{left_out} cells neither selected by `--cells` nor stored: left out"));
    }
    if let Some((i, n)) = shard {
        let file = experiment::store::ShardFile {
            build: experiment::store::build_id().to_string(),
            config_hash: experiment::store::config_hash(&exp.text),
            config_file: file.clone(),
            config_text: exp.text.clone(),
            index: i,
            count: n,
            total_cells: all.len(),
            cells: kept.iter().map(|c| c.id).collect(),
            results,
            timings,
            threads,
            timing_core: core,
        };
        let written = postcard::to_stdvec(&file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                std::fs::write(publisher.dir().join(experiment::store::SHARD_FILE), bytes)
                    .map_err(|e| experiment::grid::io_reason(&e))
            })
            .and_then(|()| publisher.publish());
        return match written {
            Ok(dir) => {
                eprintln!(
                    "{}: shard {i}/{n}: {} of {} cells -> {}",
                    exp.name,
                    file.cells.len(),
                    all.len(),
                    dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: writing shard {i}/{n} of {}: {e}", exp.name);
                ExitCode::from(1)
            }
        };
    }
    if let Some(entries) = entry {
        entries.push(report::suite::entry(&exp, &kept, &results, &timings, &exp.name));
    }
    finish(&exp, &kept, &results, &timings, &prov, publisher, strict)
}

/// Writes and publishes the report; the exit status of `run` and `merge`.
fn finish(
    exp: &experiment::Experiment,
    cells: &[experiment::Cell],
    results: &[experiment::RunResult],
    timings: &[experiment::Timing],
    prov: &Provenance,
    publisher: report::publish::Publisher,
    strict: bool,
) -> ExitCode {
    let written = report::write_into(exp, cells, results, timings, prov, publisher.dir())
        .map_err(|e| experiment::config::plain_error(&e.to_string()))
        .and_then(|()| publisher.publish());
    match written {
        Ok(dir) => {
            let count = |l: &str| results.iter().filter(|r| r.summary.status.label() == l).count();
            let left = count("left branch");
            eprintln!(
                "{}: {} cells ({} ok, {} diverged, {}{} failed, {} not applicable) -> {}",
                exp.name,
                cells.len(),
                count("ok"),
                count("diverged"),
                if left > 0 { format!("{left} left the branch, ") } else { String::new() },
                count("failed"),
                count("n/a"),
                dir.join("report.md").display()
            );
            let bad = count("diverged") + left + count("failed");
            if bad > 0 && (count("ok") == 0 || strict) {
                eprintln!(
                    "{}: exit {EXIT_CELLS_FAILED}: {bad} cell(s) failed, diverged or left the branch{}",
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

/// `merge`: checks that the shards are of one config and build and cover every cell once, then
/// writes the report a single run would.
fn merge(dirs: Vec<PathBuf>, reports: PathBuf, strict: bool) -> ExitCode {
    report::publish::install_signal_cleanup();
    let m = match experiment::store::merge_shards(&dirs) {
        Ok(m) => m,
        Err(e) => return bad_input(&e),
    };
    let publisher = match report::publish::claim(&reports, &m.exp.name) {
        Ok(p) => p,
        Err(e) if e.starts_with("another tinkertoy process") => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BUSY);
        }
        Err(e) => return bad_input(&e),
    };
    let mut prov = Provenance::collect(&m.exp.text, m.threads);
    prov.timing_core = m.timing_core;
    prov.notes.push(format!(
        "merged from {} shards (`run --shard I/{}`), computed by tinkertoy {}; each shard timed its own cells",
        m.count,
        m.count,
        experiment::store::build_id()
    ));
    finish(&m.exp, &m.cells, &m.results, &m.timings, &prov, publisher, strict)
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
        Command::Run { config, threads, reports, strict, limits, dry_run, shard, resume, cells } => {
            run(config, threads, reports, Options { strict, limits, dry_run, shard, resume, cells })
        }
        Command::Merge { shards, reports, strict } => merge(shards, reports, strict),
        Command::Validate { formulation, solver, integrator, reports } => {
            validate_cmd(formulation, solver, integrator, reports)
        }
        Command::Check { config } => {
            let file = config.display().to_string();
            if commands::is_model_file(&file) {
                return match commands::check_model(&file) {
                    Ok(text) => {
                        print!("{text}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => bad_input(&e),
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
                    let label =
                        if v.label == v.scene.name { v.label.clone() } else { format!("{} {}", v.scene.name, v.label) };
                    print!("{}", experiment::check::describe(&label, &v.scene));
                }
            }
            ExitCode::SUCCESS
        }
        Command::List => {
            print!("{}", commands::list());
            ExitCode::SUCCESS
        }
        Command::Animate { model, report, cells, frames, fps, out } => {
            reported(commands::animate(&model, &report, &cells, frames as usize, fps, &out))
        }
        Command::Draw { model, out } => reported(commands::draw(&model, &out)),
    }
}
