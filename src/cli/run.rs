//! `run` and `merge`: one experiment or a suite, sharded or whole, into its published report.

use super::{EXIT_CELLS_FAILED, bad_input, stopped};
use crate::commands::CommandError;
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
fn parse_shard(text: &str) -> Result<(usize, usize), CommandError> {
    let bad = || {
        CommandError::Usage(format!(
            "--shard `{}` is invalid; expected I/N with 1 <= I <= N (e.g. 2/8)",
            params::short(text)
        ))
    };
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
    // The suite's limits, then --limit: the members are checked with them, as they will run.
    let mut overrides = suite.limits.clone();
    for l in &opts.limits {
        match experiment::budget::parse_override(l) {
            Ok(o) => overrides.push(o),
            Err(e) => return bad_input(&format!("--limit: {e}")),
        }
    }
    let mut names: Vec<String> = Vec::new();
    for m in &suite.members {
        let f = m.display().to_string();
        if experiment::config::read_config(&f).is_ok_and(|t| experiment::suite::is_suite(&t)) {
            return bad_input(&format!("{file}: member `{f}` is itself a suite; a suite lists experiment files"));
        }
        match experiment::load_with(&f, &overrides) {
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
    let (started, load_start) = (std::time::Instant::now(), report::provenance::load_average());
    let mut entries = Vec::new();
    let mut failed_cells = false;
    for m in &suite.members {
        let member = Options {
            strict: opts.strict,
            limits: overrides.iter().map(|(k, v)| format!("{k}={v}")).collect(),
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
    let mut prov = Provenance::collect(&suite.text, threads.unwrap_or(1));
    prov.load_start = load_start;
    match report::suite::write(&suite, file, &entries, &prov, (&dir, started.elapsed().as_secs_f64())) {
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

/// A checked run: the experiment, its cells (this shard's), which of them are selected, and
/// their memory estimates.
struct Plan {
    exp: experiment::Experiment,
    /// Every cell of the experiment.
    all: Vec<experiment::Cell>,
    /// This shard's cells.
    cells: Vec<experiment::Cell>,
    selected: Vec<bool>,
    shard: Option<(usize, usize)>,
    threads: usize,
    memory: Vec<experiment::CellMemory>,
}

/// `run` on one experiment file; with `entry`, the experiment's section of a suite report is
/// pushed there.
fn run_one(
    config: PathBuf,
    threads: Option<usize>,
    reports: PathBuf,
    opts: Options,
    entry: Option<&mut Vec<report::suite::Entry>>,
) -> ExitCode {
    report::publish::install_signal_cleanup();
    let plan = match plan(&config, threads, &opts) {
        Ok(plan) => plan,
        Err(e) => return stopped(&e),
    };
    if opts.dry_run {
        print_dry_run(&plan);
        return ExitCode::SUCCESS;
    }
    if let Err(e) = check_disk(&plan, &reports) {
        return stopped(&e);
    }
    let load_start = report::provenance::load_average();
    let computed = match compute(&plan, &reports, &opts) {
        Ok(c) => c,
        Err(e) => return stopped(&e),
    };
    let Plan { exp, shard, threads, .. } = &plan;
    let (timings, core, timings_reused) = time_cells(exp, &computed);
    let mut prov = Provenance::collect(&exp.text, *threads);
    prov.load_start = load_start;
    prov.timing_core = core;
    let (reused, total) = (computed.reused, plan.cells.len());
    if reused > 0 {
        eprintln!(
            "{}: reused {reused} of {total} cells finished by an earlier run of this config and build, and {timings_reused} of their timings",
            exp.name
        );
        prov.notes.push(format!(
            "{reused} of {total} cells reused from an earlier run of this config and build (`--resume` or `--cells`); {timings_reused} of their timings too (measured on this host by that run), the others measured again"
        ));
    }
    let left_out = total - computed.kept.len();
    if left_out > 0 {
        prov.notes.push(format!("{left_out} cells neither selected by `--cells` nor stored: left out"));
    }
    if let Some((i, n)) = *shard {
        return write_shard(&plan, (i, n), computed, timings, core, &config.display().to_string());
    }
    let Computed { kept, results, publisher, .. } = computed;
    if let Some(entries) = entry {
        entries.push(report::suite::entry(exp, &kept, &results, &timings, &exp.name));
    }
    finish(exp, &kept, &results, &timings, &prov, publisher, opts.strict)
}

/// Loads and checks the experiment with the options: limits, threads, shard, cell selection and
/// memory, all before any computing.
fn plan(config: &std::path::Path, threads: Option<usize>, opts: &Options) -> Result<Plan, CommandError> {
    let file = config.display().to_string();
    let mut overrides = Vec::new();
    for l in &opts.limits {
        overrides
            .push(experiment::budget::parse_override(l).map_err(|e| CommandError::Usage(format!("--limit: {e}")))?);
    }
    if threads == Some(0) {
        return Err(CommandError::Usage("--threads 0 is invalid; expected at least 1".into()));
    }
    let exp = experiment::load_with(&file, &overrides)?;
    let max_threads = exp.limits.get(experiment::budget::Limit::Threads);
    if let Some(t) = threads.filter(|&t| t as f64 > max_threads) {
        return Err(CommandError::Usage(format!(
            "--threads {t} exceeds `limits.threads` = {max_threads}; the results do not depend on the thread count"
        )));
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .clamp(1, max_threads as usize);
    let all = exp.cells();
    let shard = opts.shard.as_deref().map(parse_shard).transpose()?;
    if let Some((_, n)) = shard.filter(|&(_, n)| n > all.len()) {
        return Err(CommandError::Usage(format!(
            "--shard: {n} shards for {} cells; use at most one shard per cell",
            all.len()
        )));
    }
    let cells = match shard {
        Some((i, n)) => experiment::store::shard_cells(&exp, &all, i, n),
        None => all.clone(),
    };
    let selected = match opts.cells.as_deref() {
        Some(s) => experiment::store::select(&exp, &cells, all.len(), s)?,
        None => vec![true; cells.len()],
    };
    let memory = exp.check_memory(&cells, threads)?;
    Ok(Plan { exp, all, cells, selected, shard, threads, memory })
}

/// The disk space the run will write ([`experiment::budget::disk_bytes`]) against the space free
/// where the reports go, before any computing: a full disk is found now, not after the cells
/// ran.
fn check_disk(plan: &Plan, reports: &std::path::Path) -> Result<(), CommandError> {
    let needed = experiment::budget::disk_bytes(&plan.memory);
    match experiment::budget::free_bytes(reports) {
        Some(free) if needed > free => Err(CommandError::Usage(format!(
            "{}: the run would write about {} MB into `{}` (the per-cell store, the report's CSV files and figures), where {} MB are free — free some space, record less (`record:`, `sample_interval`), or give another --reports",
            plan.exp.name,
            (needed as f64 / 1e6).ceil(),
            crate::params::short(&reports.display().to_string()),
            free / 1_000_000
        ))),
        _ => Ok(()),
    }
}

/// `--dry-run`: the cell count, the largest cell's and the run's memory, and the limits.
fn print_dry_run(plan: &Plan) {
    let Plan { exp, cells, memory, threads, .. } = plan;
    let largest = memory.iter().map(|m| m.total()).max().unwrap_or(0);
    let biggest = memory.iter().position(|m| m.total() == largest).map(|i| exp.cell_label(&cells[i]));
    println!(
        "{}: {} cells on {} scene variant(s); largest cell about {} MB ({}); the run about {} MB on {threads} thread(s), writing about {} MB; limits: {}",
        exp.name,
        cells.len(),
        exp.variants.len(),
        (largest as f64 / 1e6).ceil(),
        biggest.unwrap_or_default(),
        (exp.run_memory(memory, *threads) as f64 / 1e6).ceil(),
        (experiment::budget::disk_bytes(memory) as f64 / 1e6).ceil(),
        experiment::budget::Limit::ALL
            .iter()
            .map(|&l| format!("{}={}", l.spec().name, exp.limits.get(l)))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// The cells computed (or reused from the store), in cell order, and the claimed report
/// directory they will be published to.
struct Computed {
    kept: Vec<experiment::Cell>,
    results: Vec<experiment::RunResult>,
    /// Whether each kept cell's result came from the store.
    from_store: Vec<bool>,
    reused: usize,
    publisher: report::publish::Publisher,
    store: experiment::store::Store,
}

/// Claims the report directory (every output error before computing), then runs the selected
/// cells not already stored, each stored as it completes (for `--resume` and `--cells`).
fn compute(plan: &Plan, reports: &std::path::Path, opts: &Options) -> Result<Computed, CommandError> {
    let Plan { exp, cells, selected, shard, threads, .. } = plan;
    let claim_name = match shard {
        Some((i, n)) => format!("{}.shard-{i}-of-{n}", exp.name),
        None => exp.name.clone(),
    };
    let publisher = report::publish::claim(reports, &claim_name)?;
    let reuse = opts.resume || opts.cells.is_some();
    let store = experiment::store::Store::open(reports, &claim_name, &exp.identity(), reuse)?;
    // Selected cells run unless --resume finds them finished; the others (only with --cells) are
    // reused when stored and otherwise left out.
    let mut stored: Vec<Option<experiment::RunResult>> = cells
        .iter()
        .zip(selected)
        .map(|(c, &sel)| if !sel || opts.resume { store.load(exp, c) } else { None })
        .collect();
    refuse_partial_replacement(reports, &claim_name, selected, &stored)?;
    let to_run: Vec<experiment::Cell> = cells
        .iter()
        .zip(selected)
        .zip(&stored)
        .filter(|((_, s), r)| **s && r.is_none())
        .map(|((c, _), _)| c.clone())
        .collect();
    // the timing pass runs outside `pool`: a parallel solve's tasks go to the global pool, sized alike
    let _ = rayon::ThreadPoolBuilder::new().num_threads(*threads).build_global();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(*threads)
        .build()
        .map_err(|e| CommandError::Failed(format!("cannot start {threads} worker threads: {e}")))?;
    let bar = progress(to_run.len(), "{msg} [{bar:40}] {pos}/{len} cells, {elapsed}", exp.name.clone());
    let fresh = pool.install(|| {
        exp.run_cells(&to_run, &|c, r| {
            store.save(exp, c, r);
            bar.inc(1)
        })
    });
    bar.finish_and_clear();
    let reused = stored.iter().filter(|r| r.is_some()).count();
    let mut fresh = fresh.into_iter();
    let (mut kept, mut results, mut from_store) = (Vec::new(), Vec::new(), Vec::new());
    for ((c, sel), r) in cells.iter().zip(selected).zip(stored.iter_mut()) {
        let stored = match (r.take(), sel) {
            (Some(r), _) => {
                results.push(r);
                true
            }
            (None, true) => {
                results.push(fresh.next().expect("one result per cell run"));
                false
            }
            (None, false) => continue,
        };
        from_store.push(stored);
        kept.push(c.clone());
    }
    Ok(Computed { kept, results, from_store, reused, publisher, store })
}

/// `--cells` publishes the selected cells and the stored others; a cell neither selected nor
/// stored is left out. Over a report already published under this name (e.g. one merged from
/// shards, whose cells live in the shards' stores, not this one), that would replace the whole
/// report by a partial one: refused before computing, naming what would be lost.
fn refuse_partial_replacement(
    reports: &std::path::Path,
    name: &str,
    selected: &[bool],
    stored: &[Option<experiment::RunResult>],
) -> Result<(), CommandError> {
    let left_out = selected.iter().zip(stored).filter(|(s, r)| !**s && r.is_none()).count();
    let published = reports.join(name).join("report.md");
    if left_out == 0 || std::fs::symlink_metadata(&published).is_err() {
        return Ok(());
    }
    let kept = selected.len() - left_out;
    Err(CommandError::Usage(format!(
        "--cells: the published report {} would be replaced by a report of {kept} of the experiment's {} cells: the other {left_out} are not in this run's store, or were computed from other inputs (a report merged from shards keeps its cells in the shards' stores); run without --cells, or rerun the cells in their shard (--shard I/N --cells ...) and merge again",
        crate::params::short(&reports.join(name).display().to_string()),
        selected.len()
    )))
}

/// A progress bar of `len` steps with `template`, labelled `message`.
fn progress(len: usize, template: &str, message: String) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar.set_message(message);
    bar
}

/// The timing repeats of the cells that ran to the end, one cell at a time, each stored as it
/// completes; a reused cell's stored timing is reused. The timings, the core they were pinned to
/// and how many were reused.
fn time_cells(exp: &experiment::Experiment, computed: &Computed) -> (Vec<experiment::Timing>, Option<usize>, usize) {
    let Computed { kept, results, from_store, store, .. } = computed;
    let known: Vec<Option<experiment::Timing>> =
        kept.iter().zip(from_store).map(|(c, &s)| if s { store.load_timing(exp, c) } else { None }).collect();
    let ok = |r: &experiment::RunResult| r.summary.status == experiment::Status::Ok;
    let reused = known.iter().zip(results).filter(|(k, r)| k.is_some() && ok(r)).count();
    let to_time = results.iter().filter(|r| ok(r)).count() - reused;
    let bar = progress(
        to_time * exp.goals.repeats,
        "{msg} [{bar:40}] {pos}/{len} timed runs, {elapsed}",
        format!("{}: timing, one cell at a time", exp.name),
    );
    let (timings, core) = exp.time_all(kept, results, &known, &|c, t| store.save_timing(exp, c, t), &|| bar.inc(1));
    bar.finish_and_clear();
    (timings, core, reused)
}

/// Writes shard `(i, n)`'s results as its sealed shard file and publishes it.
fn write_shard(
    plan: &Plan,
    (i, n): (usize, usize),
    computed: Computed,
    timings: Vec<experiment::Timing>,
    core: Option<usize>,
    config_file: &str,
) -> ExitCode {
    let exp = &plan.exp;
    let Computed { kept, results, publisher, .. } = computed;
    let file = experiment::store::ShardFile {
        build: experiment::store::build_id().to_string(),
        config_hash: exp.identity(),
        config_file: config_file.to_string(),
        config_text: exp.text.clone(),
        index: i,
        count: n,
        total_cells: plan.all.len(),
        cells: kept.iter().map(|c| c.id).collect(),
        results,
        timings,
        threads: plan.threads,
        timing_core: core,
        timed_by: experiment::timing::TimedBy::here(core),
    };
    let written = postcard::to_stdvec(&file)
        .map(experiment::store::seal)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            std::fs::write(publisher.dir().join(experiment::store::SHARD_FILE), bytes)
                .map_err(|e| experiment::grid::io_reason(&e))
        })
        .and_then(|()| publisher.publish().map_err(|e| e.to_string()));
    match written {
        Ok(dir) => {
            eprintln!(
                "{}: shard {i}/{n}: {} of {} cells -> {}",
                exp.name,
                file.cells.len(),
                plan.all.len(),
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: writing shard {i}/{n} of {}: {e}", exp.name);
            ExitCode::from(1)
        }
    }
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
        .and_then(|()| publisher.publish().map_err(|e| e.to_string()));
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

/// The directories of every shard of the sweep the first of `dirs` belongs to, named
/// NAME.shard-I-of-N next to it, once all of them hold a shard file or `seconds` have passed (then
/// those that are there, and `merge` names the missing ones). Shard directories are published
/// whole (renamed into place), so one that exists is complete.
fn wait_for_shards(dirs: Vec<PathBuf>, seconds: u64) -> Result<Vec<PathBuf>, CommandError> {
    let first = &dirs[0];
    let file = first.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
    let parsed = file.rsplit_once(".shard-").and_then(|(name, rest)| {
        let (i, n) = rest.split_once("-of-")?;
        Some((name.to_string(), i.parse::<usize>().ok()?, n.parse::<usize>().ok()?))
    });
    let Some((name, _, n)) = parsed.filter(|&(_, i, n)| (1..=n).contains(&i) && n <= 100_000) else {
        return Err(CommandError::Usage(format!(
            "--wait: `{}` is not named NAME.shard-I-of-N, so the other shards cannot be looked up; give shard directories as `run --shard` names them",
            crate::params::short(&first.display().to_string())
        )));
    };
    let parent = first.parent().map(PathBuf::from).unwrap_or_default();
    let all: Vec<PathBuf> = (1..=n).map(|i| parent.join(format!("{name}.shard-{i}-of-{n}"))).collect();
    let done = |d: &PathBuf| d.join(experiment::store::SHARD_FILE).is_file();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let mut told = usize::MAX;
    loop {
        let missing: Vec<usize> = (1..=n).filter(|&i| !done(&all[i - 1])).collect();
        if missing.is_empty() || std::time::Instant::now() >= deadline {
            let present: Vec<PathBuf> = all.into_iter().filter(done).collect();
            // none there: the given ones, whose reading names what is wrong
            return Ok(if present.is_empty() { dirs } else { present });
        }
        if missing.len() != told {
            eprintln!("{name}: waiting for {} of {n} shards (at most {seconds} s in all)", missing.len());
            told = missing.len();
        }
        std::thread::sleep(std::time::Duration::from_secs(2).min(deadline - std::time::Instant::now()));
    }
}

/// `merge`: checks that the shards are of one config and build and cover every cell once, then
/// writes the report a single run would.
pub(crate) fn merge(
    dirs: Vec<PathBuf>,
    reports: PathBuf,
    strict: bool,
    wait: Option<u64>,
    keep_cells: bool,
) -> ExitCode {
    report::publish::install_signal_cleanup();
    let dirs = match wait {
        Some(seconds) => match wait_for_shards(dirs, seconds) {
            Ok(d) => d,
            Err(e) => return stopped(&e),
        },
        None => dirs,
    };
    let m = match experiment::store::merge_shards(&dirs) {
        Ok(m) => m,
        Err(e) => return stopped(&e.into()),
    };
    let publisher = match report::publish::claim(&reports, &m.exp.name) {
        Ok(p) => p,
        Err(e) => return stopped(&CommandError::from(e)),
    };
    let mut prov = Provenance::collect(&m.exp.text, m.threads);
    prov.timing_core = m.timing_core;
    prov.timed_by = m.timed_by.clone();
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
    let status = finish(&m.exp, &m.cells, &m.results, &m.timings, &prov, publisher, strict);
    // Published (a failure to publish exits 1 and keeps everything): the shards' per-cell stores
    // are redundant with their shard files.
    if status != ExitCode::from(1) && !keep_cells {
        let (stores, files) = remove_shard_stores(&dirs);
        if stores > 0 {
            eprintln!(
                "{}: removed the shards' per-cell stores ({stores} directories, {files} files; `merge --keep-cells` keeps them)",
                m.exp.name
            );
        }
    }
    status
}

/// Removes the per-cell store `.D.cells` next to each shard directory D (a real directory only:
/// a link there is left alone, never followed); the count of stores and files removed.
fn remove_shard_stores(dirs: &[PathBuf]) -> (usize, usize) {
    let (mut stores, mut files) = (0, 0);
    for dir in dirs {
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { continue };
        let store = parent.join(format!(".{}.cells", name.to_string_lossy()));
        if !store.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let count = std::fs::read_dir(&store).map_or(0, |d| d.count());
        if std::fs::remove_dir_all(&store).is_ok() {
            stores += 1;
            files += count;
        }
    }
    (stores, files)
}
