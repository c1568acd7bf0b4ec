//! `run` and `merge`: one experiment or a suite, sharded or whole, into its published report.

use super::{EXIT_BUSY, EXIT_CELLS_FAILED, bad_input};
use crate::experiment;
use crate::params;
use crate::report::{self, provenance::Provenance};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `run` besides the config, threads and reports directory.
pub(crate) struct Options {
    pub(crate) strict: bool,
    pub(crate) limits: Vec<String>,
    pub(crate) dry_run: bool,
    pub(crate) shard: Option<String>,
    pub(crate) resume: bool,
    pub(crate) cells: Option<String>,
}

/// `I/N` with 1 <= I <= N <= 10000.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard `{}` is invalid; expected I/N with 1 <= I <= N (e.g. 2/8)", params::short(text));
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if i == 0 || i > n || n > 10_000 { Err(bad()) } else { Ok((i, n)) }
}

pub(crate) fn run(config: PathBuf, threads: Option<usize>, reports: PathBuf, opts: Options) -> ExitCode {
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
    let max_threads = exp.limits.get(experiment::budget::Limit::Threads);
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
            experiment::budget::Limit::ALL
                .iter()
                .map(|&l| format!("{}={}", l.spec().name, exp.limits.get(l)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::SUCCESS;
    }
    let load_start = report::provenance::load_average();
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
    let store = match experiment::store::Store::open(&reports, &claim_name, &exp.identity(), reuse) {
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
    prov.load_start = load_start;
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
            config_hash: exp.identity(),
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
            .map(experiment::store::seal)
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
pub(crate) fn merge(dirs: Vec<PathBuf>, reports: PathBuf, strict: bool) -> ExitCode {
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
        "merged from {} shards (`run --shard I/{}`), computed by tinkertoy {} and merged by tinkertoy {}{}; each shard timed its own cells",
        m.count,
        m.count,
        m.build,
        experiment::store::build_id(),
        if m.build == experiment::store::build_id() {
            " (the same build)"
        } else {
            " — another build: the version and commit below are the merging build's, not the computing one's"
        }
    ));
    finish(&m.exp, &m.cells, &m.results, &m.timings, &prov, publisher, strict)
}
