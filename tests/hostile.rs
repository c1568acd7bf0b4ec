//! Hostile and extreme inputs: each is refused before anything is computed with one line naming
//! the field and the bad value, exit 2, nothing written, in well under two seconds; plus runs
//! killed while writing their report, and grids too large for one-by-one plots.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod common;
use common::{BASE, BIN, run_limited, temp_dir, write_config};

/// How a case is set up: the config text (None: the path is given in `args`), the arguments after
/// `run <config>` or the whole argument list for `validate`.
struct Case {
    what: &'static str,
    config: Option<String>,
    args: Vec<String>,
    exit: i32,
    needles: Vec<&'static str>,
}

fn with(from: &str, to: &str) -> Option<String> {
    assert!(BASE.contains(from), "{from}");
    Some(BASE.replace(from, to))
}

fn case(what: &'static str, config: Option<String>, args: &[&str], needles: &[&'static str]) -> Case {
    Case { what, config, args: args.iter().map(|s| s.to_string()).collect(), exit: 2, needles: needles.to_vec() }
}

fn cases(dir: &Path) -> Vec<Case> {
    let file = dir.join("a_file");
    std::fs::write(&file, "not a directory").unwrap();
    let file_s = file.display().to_string();
    let under_file = file.join("reports").display().to_string();
    let occupied = dir.join("occupied");
    std::fs::create_dir_all(&occupied).unwrap();
    std::fs::write(occupied.join("hostile"), "a file where the report directory goes").unwrap();
    let occupied_s = occupied.display().to_string();
    let not_utf8 = dir.join("latin1.yaml");
    std::fs::write(&not_utf8, b"name: caf\xe9\n").unwrap();
    let big_name = format!("scene: {{name: {}}}", "p".repeat(200_000));
    let many_lengths: Vec<String> = (0..201).map(|i| format!("{}", 1.0 + i as f64 * 1e-3)).collect();
    let many_masses: Vec<String> = (0..100).map(|i| format!("{}", 1.0 + i as f64)).collect();
    let sweep = format!(
        "scene: {{name: pendulum, params: {{length: [{}], mass: [{}]}}}}",
        many_lengths.join(", "),
        many_masses.join(", ")
    );
    // 3000 rods on one hub: J W Jᵀ is dense, 4.5·10⁶ row pairs (about 380 MB to assemble).
    let hub = dir.join("hub.yaml");
    let mut hub_text = String::from(
        "model: hub\nlength_scale: 1\nenergy_scale: {joules: 1, definition: one}\nbodies:\n  - {name: H, kind: particle2, mass: 1, position: [0, 0]}\n",
    );
    for i in 0..3000 {
        let a = i as f64 * std::f64::consts::TAU / 3000.0;
        hub_text += &format!("  - {{name: P{i}, kind: particle2, mass: 1, position: [{}, {}]}}\n", a.cos(), a.sin());
    }
    hub_text += "joints:\n";
    for i in 0..3000 {
        hub_text += &format!("  - {{type: distance, a: H, b: P{i}}}\n");
    }
    std::fs::write(&hub, hub_text).unwrap();
    let hub_scene = format!("scene: {{model: {}}}", hub.display());
    let s = |x: &str| x.to_string();
    let mut v = vec![
        case(
            "3000 rods on one hub under a 100 MB cell limit",
            with("scene: {name: pendulum}", &hub_scene),
            &["--limit", "cell_memory_mb=100"],
            &["hub.yaml", "J W Jᵀ", "MB", "limits.cell_memory_mb"],
        ),
        // Work the config asks for.
        case("step 1e-300", with("steps: [0.01]", "steps: [1e-300]"), &[], &["steps[0]", "1e-300", "limits.steps_per_cell"]),
        case(
            "dense solve on a 10^5-mass chain",
            with("scene: {name: pendulum}", "scene: {name: chain, params: {n: 100000}}"),
            &[],
            &["limits.cell_memory_mb", "dense_lu", "MB"],
        ),
        case(
            "4000 x 4000 cloth",
            with("scene: {name: pendulum}", "scene: {name: cloth, params: {width: 4000, height: 4000}}"),
            &[],
            &["scene.params", "16000000 bodies", "limits.cell_memory_mb"],
        ),
        // Messages name the expected type and hint at the usual slip (regression: "expected string
        // scalar (got [5)", a mis-indented key blamed on another).
        case("a list for a number", with("duration: 1", "duration: [5]"), &[], &["field `duration`", "a single value", "not a list"]),
        case("a number for a list", with("steps: [0.01]", "steps: 0.01"), &[], &["field `steps`", "expected a list, e.g. [0.01]"]),
        case(
            "params at the top level",
            with("scene: {name: pendulum}", "scene: {name: pendulum}\nparams: {theta0: 1}"),
            &[],
            &["unknown field `params`", "indented under the wrong key", "scene:"],
        ),
        case("20100 scene variants", with("scene: {name: pendulum}", &sweep), &[], &["scene.params", "20100 scene variants", "limits.variants"]),
        case(
            "too many cells",
            with("scene: {name: pendulum}", &sweep),
            &["--limit", "variants=100000"],
            &["20100 cells", "limits.cells"],
        ),
        case(
            "10^6 samples per cell in 40 cells",
            with(
                "steps: [0.01]\nduration: 1\nsample_interval: 0.1",
                "steps: [1e-4, 2e-4, 3e-4, 4e-4, 5e-4, 6e-4, 7e-4, 8e-4, 9e-4, 1e-3]\nduration: 100\nsample_interval: 1e-4",
            )
            .map(|t| t.replace("integrators: [{name: rk4}]", "integrators: [{name: rk4}, {name: verlet}, {name: symplectic_euler}, {name: explicit_euler}]")),
            &[],
            &["sample_interval", "limits.samples"],
        ),
        case(
            "eight 3 GB cells on eight threads",
            with("scene: {name: pendulum}", "scene: {name: chain, params: {n: 20000}}").map(|t| {
                t.replace("formulations: [{name: force}]", "formulations: [{name: force}, {name: impulse}, {name: rattle}, {name: xpbd}]")
                    .replace("solvers: [{name: dense_lu}]", "solvers: [{name: dense_lu}, {name: dense_cholesky}]")
            }),
            &["--threads", "8"],
            &["limits.run_memory_mb", "8 largest cells", "8 thread(s)"],
        ),
        case("--threads 10000", Some(s(BASE)), &["--threads", "10000"], &["--threads 10000", "limits.threads"]),
        case("--threads 0", Some(s(BASE)), &["--threads", "0"], &["--threads 0", "at least 1"]),
        case("--limit unknown", Some(s(BASE)), &["--limit", "speed=3"], &["--limit", "`speed`", "cells, variants, steps_per_cell"]),
        case("--limit not a number", Some(s(BASE)), &["--limit", "cells=many"], &["--limit", "`many`", "not a number"]),
        case("--limit zero", Some(s(BASE)), &["--limit", "cells=0"], &["--limit", "`cells` = 0", ">= 1"]),
        case("--limit without =", Some(s(BASE)), &["--limit", "cells"], &["--limit", "NAME=VALUE"]),
        case("limits negative", Some(format!("{BASE}limits: {{cells: -1}}\n")), &[], &["limits.cells", "-1", ">= 1"]),
        case("limits unknown", Some(format!("{BASE}limits: {{speed: 1}}\n")), &[], &["limits.speed", "unknown limit", "cell_memory_mb"]),
        case(
            "tolerance 1e-24",
            with("integrators: [{name: rk4}]\nsteps: [0.01]", "integrators: [{name: dopri5}]\ntolerances: [1e-24]"),
            &[],
            &["tolerances[0]", "1e-24", "2.3e-15"],
        ),
        case("config /dev/zero", None, &["/dev/zero"], &["/dev/zero", "a device, not a regular file"]),
        case("config is a directory", None, &[&dir.display().to_string()], &["a directory"]),
        case("config missing", None, &["/nonexistent/x.yaml"], &["x.yaml", "no such file"]),
        // A line separator or a bidi override in a path is escaped, never printed raw.
        case("path with U+2028", None, &["/nonexistent/a\u{2028}b.yaml"], &["a\\u{2028}b.yaml", "no such file"]),
        case("path with U+202E", None, &["/nonexistent/a\u{202e}b.yaml"], &["a\\u{202e}b.yaml"]),
        case("config not UTF-8", None, &[&not_utf8.display().to_string()], &["latin1.yaml", "not UTF-8"]),
        case("step 1/0", with("steps: [0.01]", "steps: [\"1/0\"]"), &[], &["steps[0]", "1/0"]),
        // Output errors, found before computing.
        case("--reports is a file", Some(s(BASE)), &["--reports", &file_s], &["--reports", "not a directory"]),
        case("--reports under a file", Some(s(BASE)), &["--reports", &under_file], &["--reports", "cannot create"]),
        case("--reports in /proc", Some(s(BASE)), &["--reports", "/proc/tinkertoy-reports"], &["--reports", "/proc/tinkertoy-reports"]),
        case("report path is a file", Some(s(BASE)), &["--reports", &occupied_s], &["hostile", "not a directory"]),
        case("name of 250 characters", with("name: hostile", &format!("name: {}", "n".repeat(250))), &[], &["field `name`", "250", "at most 200"]),
        // Messages: non-finite numbers, library wording, long and control-character values.
        case("duration NaN", with("duration: 1", "duration: .nan"), &[], &["`duration`", "NaN", "finite"]),
        case("step infinite", with("steps: [0.01]", "steps: [.inf]"), &[], &["`steps[0]` = inf", "0 < h <= duration"]),
        case("scene parameter NaN", with("scene: {name: pendulum}", "scene: {name: pendulum, params: {length: .nan}}"), &[], &["`length` = NaN", "finite"]),
        case("formulation parameter infinite", with("{name: force}", "{name: force, params: {omega: .inf}}"), &[], &["`omega` = inf", "finite number >= 0"]),
        case("sample interval -inf", with("sample_interval: 0.1", "sample_interval: -.inf"), &[], &["sample_interval", "inf"]),
        case("duplicate key", Some(format!("{BASE}duration: 2\n")), &[], &["`duration`", "given twice"]),
        case("200 kB scene name", with("scene: {name: pendulum}", &big_name), &[], &["scene.name", "unknown scene", "…"]),
        case(
            "control characters",
            with("{name: force}", "{name: \"for\\x1b[31mce\\x07\"}"),
            &[],
            &["formulations[0].name", "\\u{1b}[31m", "\\u{7}"],
        ),
        // Labels and duplicates.
        case("label with a script tag", with("{name: force}", "{name: force, label: \"<script>x\"}"), &[], &["formulations[0].label", "HTML tag"]),
        case("label like a formula", with("{name: force}", "{name: force, label: \"=1+1\"}"), &[], &["formulations[0].label", "= + - @"]),
        case("label with a table bar", with("{name: dense_lu}", "{name: dense_lu, label: \"a|b\"}"), &[], &["solvers[0].label", "|"]),
        case("empty label", with("{name: force}", "{name: force, label: \"\"}"), &[], &["formulations[0].label", "1 to 80"]),
        case("label of 100 characters", with("{name: rk4}", &format!("{{name: rk4, label: {}}}", "r".repeat(100))), &[], &["integrators[0].label", "1 to 80"]),
        case(
            "a word for a flag after another key in a flow map",
            with("[{name: dense_lu}]", "[{name: cg, params: {max_iter: 5, require_convergence: \"yes\"}}]"),
            &[],
            &["field `require_convergence`", "yes"],
        ),
        case("duplicate solver", with("[{name: dense_lu}]", "[{name: dense_lu}, {name: dense_lu}]"), &[], &["solvers[1]", "repeats `solvers[0]`"]),
        case(
            "duplicate label",
            with("[{name: force}]", "[{name: force, label: f}, {name: impulse, label: f}]"),
            &[],
            &["formulations[1]", "repeats `formulations[0]`", "`f`"],
        ),
        case("duplicate step", with("steps: [0.01]", "steps: [0.01, \"1/100\"]"), &[], &["steps[1]", "repeats `steps[0]`"]),
        case(
            "duplicate tolerance",
            with("integrators: [{name: rk4}]\nsteps: [0.01]", "integrators: [{name: dopri5}]\ntolerances: [1e-6, 1.0e-6]"),
            &[],
            &["tolerances[1]", "repeats `tolerances[0]`"],
        ),
        case(
            "duplicate swept value",
            with("scene: {name: pendulum}", "scene: {name: pendulum, params: {length: [1, 2, 1]}}"),
            &[],
            &["scene.params.length[2]", "repeats"],
        ),
    ];
    // validate: filters selecting no cell, unknown filter values.
    let mut validate = |what, args: &[&str], needles: &[&'static str]| {
        let mut c = case(what, None, args, needles);
        c.args.insert(0, "validate".into());
        v.push(c);
    };
    validate(
        "validate selecting no cell",
        &["--formulation", "pgs", "--integrator", "rk4"],
        &["--formulation pgs --integrator rk4", "select no cell"],
    );
    validate(
        "validate stepper with integrator",
        &["--formulation", "rattle", "--integrator", "dop853"],
        &["select no cell"],
    );
    validate("validate unknown solver", &["--solver", "qr"], &["--solver `qr`", "dense_lu"]);
    v
}

#[test]
fn hostile_inputs_are_refused_before_computing_with_one_line_naming_the_field() {
    let dir = temp_dir("cases");
    let all = cases(&dir);
    assert!(all.len() >= 40, "{} cases", all.len());
    for (i, c) in all.iter().enumerate() {
        let reports = dir.join(format!("reports-{i}"));
        let mut cmd = Command::new(BIN);
        let config = dir.join(format!("case-{i}.yaml"));
        if c.args.first().map(String::as_str) == Some("validate") {
            cmd.args(&c.args).arg("--reports").arg(&reports);
        } else {
            cmd.arg("run");
            match &c.config {
                Some(text) => {
                    std::fs::write(&config, text).unwrap();
                    cmd.arg(&config).args(&c.args);
                    if !c.args.iter().any(|a| a == "--reports") {
                        cmd.arg("--reports").arg(&reports);
                    }
                }
                // The config path is the first argument.
                None => {
                    cmd.args(&c.args).arg("--reports").arg(&reports);
                }
            }
        }
        let start = Instant::now();
        let out = cmd.stdin(Stdio::null()).output().unwrap();
        let elapsed = start.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let code = out.status.code().unwrap_or(-1);
        assert_eq!(code, c.exit, "{}: exit {code}, stderr {stderr}", c.what);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}: expected one line, got {stderr:?}", c.what);
        assert!(lines[0].starts_with("error: "), "{}: {}", c.what, lines[0]);
        assert!(lines[0].chars().count() <= 1200, "{}: a line of {} characters", c.what, lines[0].len());
        assert!(
            !lines[0]
                .chars()
                .any(|ch| ch.is_control() || matches!(ch, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}')),
            "{}: raw control, line-separator or bidi characters",
            c.what
        );
        assert!(
            !lines[0].contains("Options") && !lines[0].contains("os error"),
            "{}: library wording: {}",
            c.what,
            lines[0]
        );
        for n in &c.needles {
            assert!(lines[0].contains(n), "{}: `{n}` missing from {:?}", c.what, lines[0]);
        }
        assert!(!reports.exists(), "{}: something was written to {}", c.what, reports.display());
        assert!(elapsed < Duration::from_secs(2), "{}: took {elapsed:?}", c.what);
    }
}

/// An experiment whose report takes a while to write (several figures of many series).
fn crash_config(dir: &Path, description: &str) -> PathBuf {
    let path = dir.join(format!("crash-{}.yaml", description.len()));
    let text = format!(
        "name: crash
description: {description}
scene: {{name: double_pendulum}}
formulations: [{{name: force, params: {{omega: 10}}}}, {{name: lagrangian}}, {{name: impulse}}]
solvers: [{{name: dense_lu}}, {{name: cg}}]
integrators: [{{name: symplectic_euler}}, {{name: verlet}}, {{name: rk4}}]
steps: [0.01, 0.005, 0.0025, 0.002]
duration: 2
sample_interval: 0.002
timing: {{repeats: 0}}
"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// None: `reports/crash` is missing or incomplete; Some(description) of the complete report.
fn complete(reports: &Path) -> Option<String> {
    let dir = reports.join("crash");
    let md = std::fs::read_to_string(dir.join("report.md")).ok()?;
    let ok = md.contains("## Provenance") && md.trim_end().ends_with("worker threads");
    let data = ["summary.csv", "runs.csv", "drift.png", "energy.svg"].iter().all(|f| dir.join(f).exists());
    (ok && data).then(|| md.lines().nth(2).unwrap_or("").to_string())
}

fn leftovers(reports: &Path) -> Vec<String> {
    // the generation `crash` links to (without the atomic exchange) is the report itself
    let current = std::fs::read_link(reports.join("crash")).ok().map(|t| t.display().to_string());
    std::fs::read_dir(reports)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| [".tmp-", ".old-", ".trash-", ".gen-", ".link-"].iter().any(|m| n.contains(m)))
        .filter(|n| current.as_deref() != Some(n.as_str()))
        .collect()
}

/// Starts a run of `config` and waits until `ready(its temporary directory)`, calling `check` at
/// every poll.
fn start_and_wait(
    config: &Path,
    reports: &Path,
    ready: impl Fn(&Path) -> bool,
    check: impl Fn(),
) -> std::process::Child {
    let child =
        Command::new(BIN).arg("run").arg(config).arg("--reports").arg(reports).stderr(Stdio::null()).spawn().unwrap();
    let tmp = reports.join(format!(".crash.tmp-{}", child.id()));
    let start = Instant::now();
    while !ready(&tmp) {
        check();
        assert!(start.elapsed() < Duration::from_secs(60), "the run never got there");
        std::thread::sleep(Duration::from_micros(200));
    }
    child
}

/// Starts a run and waits until it is writing its report (its temporary directory holds the
/// CSV files), checking at every poll that `reports/crash` is a complete report with
/// description `expect`.
fn start_and_wait_for_writing(config: &Path, reports: &Path, expect: &str) -> std::process::Child {
    start_and_wait(
        config,
        reports,
        |tmp| tmp.join("runs.csv").exists(),
        || assert_eq!(complete(reports).as_deref(), Some(expect), "reports/crash incomplete during the run"),
    )
}

#[test]
fn a_run_killed_while_writing_leaves_the_old_report_and_the_next_run_cleans_up() {
    let dir = temp_dir("crash");
    let reports = dir.join("reports");
    let (v1, v2) = (crash_config(&dir, "first version"), crash_config(&dir, "second version, longer"));
    let run = |config: &Path| Command::new(BIN).arg("run").arg(config).arg("--reports").arg(&reports).output().unwrap();
    assert!(run(&v1).status.success());
    assert_eq!(complete(&reports).as_deref(), Some("first version"));

    // SIGKILL in the middle of writing: no handler runs; the old report stays whole.
    let mut child = start_and_wait_for_writing(&v2, &reports, "first version");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(complete(&reports).as_deref(), Some("first version"));
    assert!(!leftovers(&reports).is_empty(), "the killed run's temporary directory should still be there");

    // The next run removes it and replaces the report; a watcher checks every instant.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (stop, reports) = (stop.clone(), reports.clone());
        std::thread::spawn(move || {
            let mut checks = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let seen = complete(&reports);
                assert!(
                    matches!(seen.as_deref(), Some("first version") | Some("second version, longer")),
                    "reports/crash was {seen:?} at check {checks}"
                );
                checks += 1;
            }
            checks
        })
    };
    assert!(run(&v2).status.success());
    stop.store(true, Ordering::SeqCst);
    let checks = watcher.join().expect("the report was incomplete at some check");
    assert!(checks > 10, "{checks} checks");
    assert_eq!(complete(&reports).as_deref(), Some("second version, longer"));
    assert!(leftovers(&reports).is_empty(), "left behind: {:?}", leftovers(&reports));

    // SIGTERM while writing: the handler removes the temporary directory and exits 128 + 15.
    let child = start_and_wait_for_writing(&v1, &reports, "second version, longer");
    // SAFETY: kill(2) on the child's pid with a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait_with_output().unwrap().status;
    assert!(status.code() == Some(143) || status.success(), "{status:?}");
    assert_eq!(
        complete(&reports).as_deref(),
        Some(if status.success() { "first version" } else { "second version, longer" })
    );
    assert!(leftovers(&reports).is_empty(), "left behind after SIGTERM: {:?}", leftovers(&reports));
}

#[test]
fn two_runs_of_one_experiment_at_once_one_wins_and_the_other_says_so_before_computing() {
    let dir = temp_dir("busy");
    let reports = dir.join("reports");
    let config = crash_config(&dir, "busy");
    let first = start_and_wait(&config, &reports, |tmp| tmp.exists(), || {}); // it holds the lock
    let start = Instant::now();
    let second = Command::new(BIN).arg("run").arg(&config).arg("--reports").arg(&reports).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("another tinkertoy process is running `crash`"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(2));
    assert!(first.wait_with_output().unwrap().status.success());
    assert_eq!(complete(&reports).as_deref(), Some("busy"));
    assert!(leftovers(&reports).is_empty());
}

#[test]
fn grids_too_large_for_one_by_one_plots_complete_with_aggregated_figures() {
    // 300 lengths × 2 formulations: 600 cells in 300 panels, beyond the figure limits.
    let dir = temp_dir("grid");
    let lengths: Vec<String> = (0..300).map(|i| format!("{}", 0.5 + i as f64 * 1e-3)).collect();
    let config = dir.join("grid.yaml");
    std::fs::write(
        &config,
        BASE.replace("name: hostile", "name: grid")
            .replace(
                "scene: {name: pendulum}",
                &format!("scene: {{name: pendulum, params: {{length: [{}]}}}}", lengths.join(", ")),
            )
            .replace("[{name: force}]", "[{name: force}, {name: lagrangian}]")
            .replace("duration: 1", "duration: 0.1")
            .replace("sample_interval: 0.1", "sample_interval: 0.05")
            + "timing: {repeats: 0}\n",
    )
    .unwrap();
    let reports = dir.join("reports");
    let out = Command::new(BIN).arg("run").arg(&config).arg("--reports").arg(&reports).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = std::fs::read_to_string(reports.join("grid/report.md")).unwrap();
    assert!(report.contains("600 series in 300 panels are too many to draw one by one"), "no aggregation note");
    for f in ["summary.csv", "runs.csv", "drift.png", "energy.png", "work_precision_time.png"] {
        assert!(reports.join("grid").join(f).exists(), "{f} missing");
    }
    let summary = std::fs::read_to_string(reports.join("grid/summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 601);
}

#[test]
fn every_run_ends_adaptive_cells_fail_at_the_step_limit_and_any_cell_at_its_time_budget() {
    // Baumgarte feedback with ω = 2³¹ rad/s makes the ODE stiff: Dopri5 needs ~ω·T steps.
    let dir = temp_dir("ends");
    let config = write_config(
        &dir,
        "stiff.yaml",
        &[
            ("{name: force}", "{name: force, params: {omega: 2147483648}}"),
            ("integrators: [{name: rk4}]\nsteps: [0.01]", "integrators: [{name: dopri5}]\ntolerances: [1e-6]"),
        ],
        "timing: {repeats: 0}\n",
    );
    let reports = dir.join("reports");
    let go = |limit: &str| run_limited(&config, &reports, limit);
    let (code, summary, elapsed) = go("steps_per_cell=20000");
    assert_eq!(code, Some(3));
    assert!(summary.contains("failed") && summary.contains("max steps: 20000 steps taken before the end"), "{summary}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let (code, summary, elapsed) = go("cell_seconds=1");
    assert_eq!(code, Some(3));
    assert!(summary.contains("time budget: 1 s of wall time exceeded"), "{summary}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn a_figure_that_cannot_be_drawn_is_reported_and_the_data_are_kept() {
    use tinkertoy::experiment::{Timing, grid};
    use tinkertoy::report::{self, provenance::Provenance};
    let exp = grid::from_text("inline.yaml", BASE).unwrap();
    let cells = exp.cells();
    let results = exp.run_all(&cells, &|| {});
    let timings = vec![Timing::default(); cells.len()];
    let dir = temp_dir("figure");
    // The drift figure's SVG path is taken by a directory: writing it fails.
    std::fs::create_dir_all(dir.join("drift.svg")).unwrap();
    report::write_into(&exp, &cells, &results, &timings, &Provenance::collect(BASE, 1), &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("### Constraint drift vs time\n\nNot drawn: "), "{md}");
    assert!(!md.contains("(drift.png)"));
    assert!(md.contains("(energy.png)"));
    for f in ["summary.csv", "runs.csv", "energy.png", "energy.svg"] {
        assert!(dir.join(f).exists(), "{f}");
    }
}

/// `run`, `run --resume` and `merge` SIGKILLed at 16 pseudo-random moments (a fixed sequence,
/// spread over a whole run's length) while a watcher checks `reports/crash` without pause: at
/// every check it is the old complete report or the new one. `no_exchange` runs the publication
/// without `renameat2(RENAME_EXCHANGE)` (a link to a generation directory swapped atomically);
/// its first publication over the exchange path's real directory is the one window, made before
/// the watcher starts. Ends with a complete run and nothing left behind.
fn killed_at_random_moments(tag: &str, no_exchange: bool) {
    let dir = temp_dir(tag);
    let reports = dir.join("reports");
    let (v1, v2) = (crash_config(&dir, "first version"), crash_config(&dir, "second version, longer"));
    let shards = dir.join("shards");
    let command = |args: &[&std::ffi::OsStr]| {
        let mut c = Command::new(BIN);
        c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
        if no_exchange {
            c.env("TINKERTOY_NO_RENAME_EXCHANGE", "1");
        }
        c
    };
    let run = |config: &Path, extra: &[&str]| {
        let mut c = command(&["run".as_ref(), config.as_os_str(), "--reports".as_ref(), reports.as_os_str()]);
        c.args(extra);
        c
    };
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let mut c = command(&["run".as_ref(), v2.as_os_str(), "--reports".as_ref(), shards.as_os_str()]);
        assert!(c.args(["--shard", &shard]).status().unwrap().success());
    }
    let merge = || {
        let (a, b) = (shards.join("crash.shard-1-of-2"), shards.join("crash.shard-2-of-2"));
        command(&["merge".as_ref(), a.as_os_str(), b.as_os_str(), "--reports".as_ref(), reports.as_os_str()])
    };
    // The exchange path first (a real directory), then the one under test.
    let mut plain = Command::new(BIN);
    plain.args(["run".as_ref(), v1.as_os_str(), "--reports".as_ref(), reports.as_os_str()]).stderr(Stdio::null());
    assert!(plain.status().unwrap().success());
    let start = Instant::now();
    assert!(run(&v1, &[]).status().unwrap().success());
    let full = start.elapsed();
    assert_eq!(complete(&reports).as_deref(), Some("first version"));

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (stop, reports) = (stop.clone(), reports.clone());
        std::thread::spawn(move || {
            let mut checks = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let seen = complete(&reports);
                assert!(
                    matches!(seen.as_deref(), Some("first version") | Some("second version, longer")),
                    "reports/crash was {seen:?} at check {checks}"
                );
                checks += 1;
            }
            checks
        })
    };
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for k in 0..16 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let fraction = (x >> 11) as f64 / (1u64 << 53) as f64;
        let mut child = match k % 3 {
            0 => run(&v1, &[]),
            1 => run(&v2, &["--resume"]),
            _ => merge(),
        }
        .spawn()
        .unwrap();
        std::thread::sleep(full.mul_f64(1.2 * fraction));
        let _ = child.kill();
        child.wait().unwrap();
    }
    assert!(run(&v2, &[]).status().unwrap().success());
    stop.store(true, Ordering::SeqCst);
    let checks = watcher.join().expect("the report was incomplete at some check");
    assert!(checks > 100, "{checks} checks");
    assert_eq!(complete(&reports).as_deref(), Some("second version, longer"));
    assert!(leftovers(&reports).is_empty(), "left behind: {:?}", leftovers(&reports));
    if no_exchange {
        assert!(reports.join("crash").symlink_metadata().unwrap().file_type().is_symlink());
    }
}

#[test]
fn sigkill_at_any_moment_of_run_resume_or_merge_leaves_a_complete_report() {
    killed_at_random_moments("kill_exchange", false);
}

#[test]
fn without_the_atomic_exchange_sigkill_at_any_moment_leaves_a_complete_report() {
    killed_at_random_moments("kill_generations", true);
}
