//! `contact`: every selected contact solver on a set of frictional contact problems (FCLIB HDF5
//! files or Siconos `.dat` files), scored as the field scores them, into `<reports>/<name>/`.

use crate::commands::CommandError;
use crate::friction::bench::{self, Contender, Run, Settings};
use crate::friction::cone::Normalisation;
use crate::friction::fclib::{self, Problem, ProblemFileError};
use crate::friction::solvers::CONTACT_SOLVERS;
use crate::friction::{LocalProblem, dat};
use crate::input::FileError;
use crate::params::{Scalar, fmt_num};
use crate::report::plot::{Figure, Panel, Series, Style, render};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Loads a problem file (FCLIB HDF5, or a Siconos `.dat`), reducing a global problem to the
/// local one; why not when it cannot.
pub(crate) fn load(path: &Path) -> Result<(LocalProblem, String), CommandError> {
    let at_file = |reason| ProblemFileError { file: path.display().to_string(), reason };
    if path.extension().is_some_and(|e| e == "dat") {
        let file = path.display().to_string();
        let text = crate::input::read_text_within(
            &file,
            "the problem",
            "a Siconos .dat problem is at most a few MB",
            crate::friction::dat::MAX_BYTES,
        )?;
        let name = path.file_name().map_or(file.clone(), |n| n.to_string_lossy().into_owned());
        let p = dat::from_text(&name, &text).map_err(at_file)?;
        let sparse = text.split_whitespace().nth(2) == Some("1");
        let layout = if sparse { "sparse-block W" } else { "dense W" };
        return Ok((p, format!("local (Siconos .dat, {layout})")));
    }
    let (problem, info) = fclib::read(path)?;
    let title = if info.title.is_empty() { String::new() } else { format!(", \"{}\"", info.title) };
    match problem {
        Problem::Local(p) => Ok((p, format!("local (FCLIB){title}"))),
        Problem::Global(g) => {
            let (n, nnz_m, nnz_h) = (g.m.nrows, g.m.nnz(), g.h.nnz());
            let reduction = match &g.bilateral {
                Some((gm, _)) => format!(
                    "{} bilateral constraints G^T v + b = 0 eliminated: W = H^T M^-1 H - C S^-1 C^T, S = G^T M^-1 G",
                    gm.ncols
                ),
                None => "reduced to W = H^T M^-1 H".to_string(),
            };
            let p = g.reduce().map_err(at_file)?;
            Ok((p, format!("global (FCLIB; n = {n}, nnz(M) = {nnz_m}, nnz(H) = {nnz_h}; {reduction}){title}")))
        }
    }
}

/// `check` on a problem file: its kind, sizes, μ and the residual of each stored guess.
pub(crate) fn describe(path: &Path) -> Result<String, CommandError> {
    let (p, kind) = load(path)?;
    let mut out = String::new();
    let (lo, hi) = p.mu.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &m| (a.min(m), b.max(m)));
    let _ = writeln!(out, "{}: {kind}", p.name);
    let _ = writeln!(
        out,
        "  {} contacts in {}D, W {} x {} with {} stored entries, mu in [{}, {}], ||q|| = {}",
        p.contacts(),
        p.dim,
        p.w.nrows,
        p.w.ncols,
        p.w.nnz(),
        fmt_num(lo),
        fmt_num(hi),
        fmt_num(Normalisation::Q.divisor(&p.q))
    );
    let mut u = vec![0.0; p.q.len()];
    for (k, g) in p.guesses.iter().enumerate() {
        p.velocity(g, &mut u);
        let abs = crate::friction::cone::natural_map_norm(p.dim, &p.mu, g, &u);
        let nonzero = g.iter().any(|v| *v != 0.0);
        let _ = writeln!(
            out,
            "  guess {}: {}residual {} = {:.3e} (absolute {:.3e})",
            k + 1,
            if nonzero { "" } else { "all zeros, " },
            Normalisation::Q.name(),
            abs / Normalisation::Q.divisor(&p.q),
            abs
        );
    }
    if p.guesses.is_empty() {
        let _ = writeln!(out, "  no stored guess");
    }
    Ok(out)
}

/// The options of `contact`.
pub(crate) struct ContactOptions {
    /// Problem files.
    pub files: Vec<PathBuf>,
    /// Solver names (empty: every registered one).
    pub solvers: Vec<String>,
    /// Tolerances.
    pub tols: Vec<f64>,
    /// Time limit per solve \[s\].
    pub seconds: f64,
    /// Iterations at most per solve.
    pub max_iter: usize,
    /// Timed repeats.
    pub repeats: usize,
    /// Start from the stored guess.
    pub warm: bool,
    /// Report name.
    pub name: String,
    /// Reports directory.
    pub reports: PathBuf,
}

/// What `contact` runs: the problems, how each was read, and the solvers.
pub(crate) struct Prepared {
    /// The problems (global ones reduced to local ones).
    pub problems: Vec<LocalProblem>,
    /// How each was read (kind, sizes of the global form, title).
    pub kinds: Vec<String>,
    /// The solvers with their parameters.
    pub contenders: Vec<Contender>,
}

/// A solver given as `name:key=value:…`: its name and parameters.
type SolverSpec<'a> = (&'a str, Vec<(&'a str, Scalar)>);

/// Checks the options and loads every problem, before anything is computed.
pub(crate) fn prepare(o: &ContactOptions) -> Result<Prepared, CommandError> {
    let usage = CommandError::Usage;
    if o.files.is_empty() {
        return Err(usage("contact needs at least one problem file (FCLIB .hdf5 or Siconos .dat)".into()));
    }
    if let Some(t) = o.tols.iter().find(|t| !(t.is_finite() && **t > 0.0 && **t < 1.0)) {
        return Err(usage(format!("--tol {} is invalid; expected numbers in (0, 1), e.g. 1e-4,1e-8", fmt_num(*t))));
    }
    if !(o.seconds.is_finite() && o.seconds > 0.0 && o.seconds <= 3600.0) {
        return Err(usage(format!("--time-limit {} is invalid; expected seconds in (0, 3600]", fmt_num(o.seconds))));
    }
    if !(1..=100_000_000).contains(&o.max_iter) {
        return Err(usage(format!("--max-iter {} is invalid; expected an integer in [1, 100000000]", o.max_iter)));
    }
    if o.repeats > 100 {
        return Err(usage(format!("--repeats {} is invalid; expected an integer in [0, 100]", o.repeats)));
    }
    if o.tols.is_empty() || o.tols.len() > 16 {
        return Err(usage(format!("--tol lists {} tolerances; expected 1 to 16", o.tols.len())));
    }
    let names: Vec<&str> = CONTACT_SOLVERS.iter().map(|e| e.name).collect();
    let mut contenders = Vec::new();
    for s in if o.solvers.is_empty() { names.iter().map(|s| s.to_string()).collect() } else { o.solvers.clone() } {
        let (name, given) = parse_solver(&s)?;
        let entry = crate::friction::solvers::find(name).ok_or_else(|| {
            usage(format!(
                "--solvers: unknown contact solver `{}`; expected one of: {}",
                crate::params::short(name),
                names.join(", ")
            ))
        })?;
        let params = entry.params.with(name, &given).map_err(|e| usage(format!("--solvers: {e}")))?;
        contenders.push(Contender { entry, params, label: s.clone() });
    }
    let mut problems = Vec::new();
    let mut kinds = Vec::new();
    for f in &o.files {
        let (p, kind) = load(f)?;
        problems.push(p);
        kinds.push(kind);
    }
    Ok(Prepared { problems, kinds, contenders })
}

/// `name` or `name:key=value:key=value`.
fn parse_solver(s: &str) -> Result<SolverSpec<'_>, CommandError> {
    let usage = CommandError::Usage;
    let mut parts = s.split(':');
    let name = parts.next().unwrap_or("");
    let mut given = Vec::new();
    for kv in parts {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            usage(format!("--solvers: `{}` is not key=value (e.g. psor:omega=1.5)", crate::params::short(kv)))
        })?;
        let value = match v {
            "true" => Scalar::Bool(true),
            "false" => Scalar::Bool(false),
            _ => {
                let bad = || usage(format!("--solvers: `{}` is not a number", crate::params::short(v)));
                Scalar::Num(v.parse().map_err(|_| bad())?)
            }
        };
        given.push((k, value));
    }
    Ok((name, given))
}

/// Runs the comparison of what [`prepare`] loaded and writes the report; the path of
/// `report.md`.
pub(crate) fn run(o: &ContactOptions, prepared: Prepared) -> Result<PathBuf, CommandError> {
    let Prepared { problems, kinds, contenders } = prepared;
    let publisher = crate::report::publish::claim(&o.reports, &o.name).map_err(CommandError::from)?;
    let settings =
        Settings { max_iter: o.max_iter, seconds: o.seconds, repeats: o.repeats, norm: Normalisation::Q, warm: o.warm };
    let load_start = crate::report::provenance::load_average();
    let runs = bench::compare(&problems, &contenders, &o.tols, &settings);
    let dir = publisher.dir().to_path_buf();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| CommandError::Write(FileError::io(&path, &e)))
    };
    write("summary.csv", summary_csv(&problems, &contenders, &runs))?;
    write("history.csv", history_csv(&problems, &contenders, &runs))?;
    write("answers.csv", answers_csv(&problems, &contenders, &runs))?;
    let mut figures = Vec::new();
    for &tol in &o.tols {
        let stem = format!("profile_{}", fmt_num(tol));
        let fig = profile_figure(&problems, &contenders, &runs, tol);
        let drawn = render(&fig, &dir.join(&stem)).map_err(|e| FileError::new(dir.join(&stem), e.to_string()));
        figures.push((stem.clone(), drawn));
    }
    let tight = o.tols.iter().copied().fold(f64::INFINITY, f64::min);
    for (stem, against_time) in [("history", false), ("history_time", true)] {
        let fig = history_figure(&problems, &contenders, &runs, tight, against_time);
        let drawn = render(&fig, &dir.join(stem)).map_err(|e| FileError::new(dir.join(stem), e.to_string()));
        figures.push((stem.into(), drawn));
    }
    let md = report_md(o, &problems, &kinds, &contenders, &runs, &settings, &figures, load_start);
    write("report.md", md)?;
    let out = publisher.publish().map_err(CommandError::from)?;
    Ok(out.join("report.md"))
}

fn summary_csv(problems: &[LocalProblem], c: &[Contender], runs: &[Run]) -> String {
    let mut s = String::from("problem,contacts,solver,tol,solved,iterations,residual,absolute_residual,stopped\n");
    for r in runs {
        let p = &problems[r.problem];
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:e},{:e},{}",
            p.name,
            p.contacts(),
            c[r.solver].label,
            r.tol,
            r.outcome.converged,
            r.outcome.iterations,
            r.outcome.residual,
            r.outcome.absolute,
            r.outcome.stopped.clone().unwrap_or_default().replace(',', ";")
        );
    }
    s
}

fn history_csv(problems: &[LocalProblem], c: &[Contender], runs: &[Run]) -> String {
    let mut s = String::from("problem,solver,tol,iteration,residual\n");
    for r in runs {
        for &(it, _, res) in &r.outcome.history {
            let _ = writeln!(s, "{},{},{},{it},{res:e}", problems[r.problem].name, c[r.solver].label, r.tol);
        }
    }
    s
}

/// Every solve's answer r, entry by entry (shortest round-trip decimal: read back exactly), for
/// an independent check of the residuals (`compare/fclib_residual.py`).
fn answers_csv(problems: &[LocalProblem], c: &[Contender], runs: &[Run]) -> String {
    let mut s = String::from("problem,solver,tol,index,r\n");
    for r in runs {
        for (i, v) in r.answer.iter().enumerate() {
            let _ = writeln!(s, "{},{},{},{i},{v:e}", problems[r.problem].name, c[r.solver].label, r.tol);
        }
    }
    s
}

fn profile_figure(problems: &[LocalProblem], c: &[Contender], runs: &[Run], tol: f64) -> Figure {
    let ratios = bench::profile(runs, c.len(), problems.len(), tol);
    let tau_max = ratios.iter().flatten().copied().fold(1.0, f64::max) * 2.0;
    let n = problems.len() as f64;
    let series = ratios
        .iter()
        .enumerate()
        .map(|(s, v)| {
            // ρ(τ) as a step function from τ = 1 to τ_max.
            let mut pts = vec![(1.0, 0.0)];
            let mut solved = 0.0;
            for &t in v {
                pts.push((t, solved / n));
                solved += 1.0;
                pts.push((t, solved / n));
            }
            pts.push((tau_max, solved / n));
            let mut ser =
                Series::new(format!("{} ({} of {} solved)", c[s].label, v.len(), problems.len()), s, pts, Style::Line);
            ser.variant = s;
            ser
        })
        .collect();
    Figure {
        title: format!(
            "Performance profile at tol = {} (Dolan-More): share of problems solved within tau x the fastest",
            fmt_num(tol)
        ),
        x_label: "tau = time / fastest solver's time on the problem".into(),
        y_label: "share of problems solved".into(),
        x_log: true,
        y_log: false,
        panels: vec![Panel { title: String::new(), series }],
    }
}

/// The residual after every iteration of each solver at `tol`, one panel per problem, against
/// the iteration or (`against_time`) the wall time of the first solve.
fn history_figure(problems: &[LocalProblem], c: &[Contender], runs: &[Run], tol: f64, against_time: bool) -> Figure {
    let panels = problems
        .iter()
        .enumerate()
        .map(|(pi, p)| Panel {
            title: format!("{} ({} contacts)", p.name, p.contacts()),
            series: runs
                .iter()
                .filter(|r| r.problem == pi && r.tol == tol)
                .map(|r| {
                    let pts = r
                        .outcome
                        .history
                        .iter()
                        .map(|&(it, t, res)| (if against_time { t } else { it as f64 }, res))
                        .collect();
                    let mut s = Series::new(c[r.solver].label.clone(), r.solver, pts, Style::Line);
                    s.variant = r.solver;
                    s
                })
                .collect(),
        })
        .collect();
    Figure {
        title: format!(
            "Residual history at tol = {}: {} against {}",
            fmt_num(tol),
            Normalisation::Q.name(),
            if against_time { "wall time (the first solve)" } else { "iterations" }
        ),
        x_label: if against_time { "wall time of the solve [s]".into() } else { "iteration".into() },
        y_label: "natural-map residual / ||q||".into(),
        x_log: true,
        y_log: true,
        panels,
    }
}

#[allow(clippy::too_many_arguments)]
fn report_md(
    o: &ContactOptions,
    problems: &[LocalProblem],
    kinds: &[String],
    c: &[Contender],
    runs: &[Run],
    s: &Settings,
    figures: &[(String, Result<(), FileError>)],
    load_start: Option<[f64; 3]>,
) -> String {
    use crate::report::sections::cell;
    let mut md = format!("# {}\n\n", cell(&o.name));
    answer_table(&mut md, o, problems, c, runs, s);
    md.push_str("\n## What was run\n\n");
    for (p, k) in problems.iter().zip(kinds) {
        md.push_str(&format!(
            "- `{}`: {}; {} contacts in {}D, W {} x {} with {} entries\n",
            cell(&p.name),
            cell(k),
            p.contacts(),
            p.dim,
            p.w.nrows,
            p.w.ncols,
            p.w.nnz()
        ));
    }
    for x in c {
        let relaxed = if x.entry.regularized {
            " — solves a regularised convex relaxation (compliant contact); scored on the Coulomb problem"
        } else if x.entry.relaxed {
            " — solves the convex relaxation (no De Saxce term); scored on the Coulomb problem"
        } else if x.entry.pyramid {
            " — solves the friction pyramid's LCP (exact in 2D; in 3D the inscribed 4-sided pyramid); scored on the Coulomb problem"
        } else {
            ""
        };
        md.push_str(&format!("- solver `{}`: {}{relaxed}\n", cell(&x.label), cell(x.entry.summary)));
    }
    md.push_str(&format!(
        "- tolerances: {}; start: {}\n",
        o.tols.iter().map(|t| fmt_num(*t)).collect::<Vec<_>>().join(", "),
        if s.warm { "the problem's first stored guess (zeros where it has none)" } else { "r = 0" }
    ));
    every_solve(&mut md, problems, c, runs);
    md.push_str("\n## Plots\n\n");
    for (stem, res) in figures {
        match res {
            Ok(()) => md.push_str(&format!("![{stem}]({stem}.png)\n\n")),
            Err(e) => md.push_str(&format!("{stem} could not be drawn: {}\n\n", cell(&e.reason))),
        }
    }
    let prov = crate::report::provenance::Provenance::collect("", 1);
    let f = |l: Option<[f64; 3]>| l.map_or("unknown".to_string(), |[a, b, c]| format!("{a:.2}, {b:.2}, {c:.2}"));
    md.push_str(&format!(
        "## Provenance\n\n- tinkertoy {} ({}), {}\n- {}\n- load average (1, 5, 15 min) at the start {}, at the end {}\n",
        prov.version,
        prov.commit,
        prov.date,
        prov.machine,
        f(load_start),
        f(prov.load_end)
    ));
    md
}

/// The answer: per problem and tolerance, the fastest solver that solved it and the runner-up.
fn answer_table(
    md: &mut String,
    o: &ContactOptions,
    problems: &[LocalProblem],
    c: &[Contender],
    runs: &[Run],
    s: &Settings,
) {
    use crate::report::sections::cell;
    md.push_str("## Answer: the fastest solver that solves each problem\n\n");
    md.push_str(&format!(
        "Solved means the natural-map residual {} (De Saxce's term included, absolute value in `summary.csv`) reached the tolerance within {} iterations and {} s. Time is the median of {} timed solves, interleaved across solvers [min-max].\n\n",
        Normalisation::Q.name(),
        s.max_iter,
        fmt_num(s.seconds),
        s.repeats.max(1)
    ));
    md.push_str("| problem | tol | fastest | time [ms] | runner-up | solved by |\n|---|---|---|---|---|---|\n");
    for (pi, p) in problems.iter().enumerate() {
        for &tol in &o.tols {
            let mut ok: Vec<&Run> =
                runs.iter().filter(|r| r.problem == pi && r.tol == tol && r.outcome.converged).collect();
            ok.sort_by(|a, b| a.median().total_cmp(&b.median()));
            let (best, time) =
                ok.first().map_or(("none".to_string(), "—".to_string()), |r| (c[r.solver].label.clone(), ms(r)));
            let second = ok.get(1).map_or("—".to_string(), |r| format!("{} ({} ms)", c[r.solver].label, ms(r)));
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} of {} |\n",
                cell(&p.name),
                fmt_num(tol),
                cell(&best),
                time,
                cell(&second),
                ok.len(),
                c.len()
            ));
        }
    }
}

/// One row per solve: problem, solver, tolerance, outcome, residuals, time, why it stopped.
fn every_solve(md: &mut String, problems: &[LocalProblem], c: &[Contender], runs: &[Run]) {
    use crate::report::sections::cell;
    md.push_str("\n## Every solve\n\n| problem | solver | tol | solved | iterations | residual | absolute | time [ms] | stopped |\n|---|---|---|---|---|---|---|---|---|\n");
    for r in runs {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.2e} | {:.2e} | {} | {} |\n",
            cell(&problems[r.problem].name),
            cell(&c[r.solver].label),
            fmt_num(r.tol),
            if r.outcome.converged { "yes" } else { "no" },
            r.outcome.iterations,
            r.outcome.residual,
            r.outcome.absolute,
            ms(r),
            cell(r.outcome.stopped.as_deref().unwrap_or(""))
        ));
    }
}

/// The median time of a run and its range \[ms\].
fn ms(r: &Run) -> String {
    let (lo, hi) = r.times.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &t| (a.min(t), b.max(t)));
    format!("{:.3} [{:.3}-{:.3}]", 1e3 * r.median(), 1e3 * lo, 1e3 * hi)
}
