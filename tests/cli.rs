//! The command line as a user meets it: malformed configs, reproducible data files, the seed-002
//! report, listings, checks, reports that render, and the documentation's examples.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_tinkertoy");

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "tinkertoy-test-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(config: &Path, reports: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .arg("run")
        .arg(config)
        .arg("--reports")
        .arg(reports)
        .args(extra)
        .output()
        .expect("run tinkertoy");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).to_string())
}

fn configs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/configs")
}

#[test]
fn malformed_configs_give_one_line_exit_2_and_write_nothing() {
    // (file, substrings the single error line must contain)
    let cases: &[(&str, &[&str])] = &[
        ("bad_yaml.yaml", &["bad_yaml.yaml:4:"]),
        ("unknown_key.yaml", &[":19:1:", "unknown field `speed`", "expected one of name"]),
        (
            "unknown_formulation.yaml",
            &[":7:11:", "formulations[1].name", "`impuls`", "expected one of: force, impulse,", "lagrangian"],
        ),
        ("negative_h.yaml", &["steps[1]", "-0.01", "0 < h <= duration"]),
        ("zero_h.yaml", &["steps[0]", "= 0", "0 < h <= duration"]),
        ("negative_mass.yaml", &[":4:18:", "`mass` = -1", "> 0"]),
        (
            "empty_solvers.yaml",
            &["`solvers` is an empty list", "dense_lu, dense_cholesky, sparse_cholesky, envelope_ldlt"],
        ),
        ("wrong_type.yaml", &[":8:11:", "`duration`", "`ten`"]),
        ("unknown_scene.yaml", &["`pendulumm`", "bead, pendulum, double_pendulum"]),
        ("unknown_solver_param.yaml", &["`tolerance`", "tol, max_iter, require_convergence"]),
        ("missing_tolerances.yaml", &["dop853", "tolerances"]),
        ("conflicting_gains.yaml", &["(ks, kd)", "(omega, zeta)"]),
        ("bad_integer.yaml", &["`n` = 2.5", "an integer in [2, 10000000]"]),
        ("bad_name.yaml", &["`../escape`", "letters, digits"]),
        ("missing_field.yaml", &["missing field `duration`"]),
        // Pairing (the formulation's kind decides the time axis; a listed item that pairs with
        // nothing is an error, not a silently empty grid).
        ("stepper_integrator.yaml", &[":9:11:", "`stepper` is not an integrator", "impulse, pgs, rattle"]),
        ("ode_without_integrators.yaml", &[":6:11:", "`force` yields an ODE", "integrators", "rk4"]),
        ("integrators_without_ode.yaml", &["no formulation here yields an ODE", "rattle, xpbd", "force, lagrangian"]),
        ("unused_tolerances.yaml", &[":9:13:", "`tolerances` pairs with no cell", "dopri5, dop853"]),
        ("dae_without_dae_integrator.yaml", &[":5:11:", "`dae` yields a DAE", "radau5"]),
        (
            "integrator_pairs_with_nothing.yaml",
            &[":9:11:", "`rk4` pairs with none", "(dae)", "radau5", "force, lagrangian"],
        ),
        ("record_too_large.yaml", &[":12:9:", "field `record`", "MB", "record_limit_mb"]),
        (
            "pgs_with_solver_params.yaml",
            &[":5:11:", "`pgs` solves a contact problem", "gauss_seidel", "listed without parameters"],
        ),
        // Measurements: outputs, reference data, events.
        ("reference_missing_file.yaml", &[":14:9:", "reference.file", "no_such_file.csv", "cannot read"]),
        ("reference_bad_column.yaml", &[":15:21:", "reference.columns[1]", "`theta3`", "theta1, theta2, x2, y2"]),
        (
            "reference_mixed_units.yaml",
            &[":14:9:", "reference.score", "`theta1` is in rad and `x2` in m", "name the columns to score"],
        ),
        ("reference_off_boundary.yaml", &["line 5", "t = 0.1 s", "not a step boundary of h = 0.03"]),
        ("record_unknown_output.yaml", &[":13:13:", "record[1]", "`theta3`", "q, v, lambda, c, jv", "theta1, theta2"]),
        ("event_bad_direction.yaml", &[":15:16:", "events[0].direction", "`sideways`", "up, down, both"]),
        (
            "model_reference_after_duration.yaml",
            &["car_axis.reference.csv", "starts at t = 3 s, after this run's duration (1 s)", "run at least that long"],
        ),
        (
            "event_on_multiplier.yaml",
            &[":14:13:", "events[0].output", "`lambda1` is a multiplier", "known at samples only"],
        ),
        ("energy_window_too_long.yaml", &[":11:16:", "`energy_window` = 0.8", "0 < w <= duration / 2 (0.5)"]),
        // Goals: target, rank_by, timing.
        ("target_without_reference.yaml", &[":12:27:", "target.reference_error", "no exact solution", "drift"]),
        ("bad_rank_by.yaml", &[":12:10:", "`rank_by` = `speed`", "drift, velocity_drift, energy_error, time, work"]),
        ("bad_repeats.yaml", &[":12:19:", "`timing.repeats` = 2.5", "[0, 100]"]),
        ("bad_spread.yaml", &[":12:30:", "`timing.spread` = 0", "(0, 10]"]),
        ("empty_target.yaml", &[":12:9:", "`target` gives no bound", "reference_error, drift"]),
        // Domains and types from the parameter structs.
        ("bad_omega.yaml", &[":8:21:", "`omega` = 2.5", "(0, 2)"]),
        ("bool_as_number.yaml", &[":6:26:", "`warm_start` = 0", "true or false"]),
    ];
    for (file, needles) in cases {
        let reports = temp_dir("bad");
        let (code, stderr) = run(&configs().join(file), &reports, &[]);
        assert_eq!(code, 2, "{file}: exit code {code}, stderr {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{file}: expected one line, got {stderr:?}");
        assert!(lines[0].starts_with("error: ") && lines[0].contains(file), "{file}: {}", lines[0]);
        for n in *needles {
            assert!(lines[0].contains(n), "{file}: `{n}` missing from {:?}", lines[0]);
        }
        assert!(!reports.exists(), "{file}: something was written to {}", reports.display());
    }
}

#[test]
fn data_files_are_byte_identical_with_one_and_two_threads() {
    let (a, b) = (temp_dir("t1"), temp_dir("t2"));
    let config = configs().join("valid_small.yaml");
    assert_eq!(run(&config, &a, &["--threads", "1"]).0, 0);
    assert_eq!(run(&config, &b, &["--threads", "2"]).0, 0);
    for f in ["summary.csv", "runs.csv", "states.csv", "events.csv"] {
        let x = std::fs::read(a.join("valid_small").join(f)).unwrap();
        let y = std::fs::read(b.join("valid_small").join(f)).unwrap();
        assert!(!x.is_empty());
        assert!(x == y, "{f} differs between 1 and 2 threads");
    }
    assert!(!std::fs::read_to_string(a.join("valid_small/report.md")).unwrap().contains("thread pool"), "no pool note");
}

#[test]
fn a_parallel_sweep_gives_the_one_thread_rows_and_its_report_says_how_it_was_timed() {
    let dir = temp_dir("par");
    assert_eq!(run(&configs().join("coloured_parallel.yaml"), &dir, &["--threads", "2"]).0, 0);
    let out = dir.join("coloured_parallel");
    // every sample of cell 1 equals cell 0's, to the last digit (runs.csv: the cell first)
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let rows = |id: &str| -> Vec<&str> { runs.lines().filter_map(|l| l.strip_prefix(id)?.strip_prefix(',')).collect() };
    assert!(rows("0").len() >= 2);
    assert_eq!(rows("0"), rows("1"));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("- cell 1 spreads its solves over the run's thread pool (2 threads"), "{report}");
}

fn column(text: &str, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let i = r.headers().unwrap().iter().position(|h| h == name).unwrap();
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

#[test]
fn seed_002_report_shows_drift_growing_at_1_60_and_staying_small_with_feedback() {
    let reports = temp_dir("seed002");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/seed002_bead.yaml");
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let dir = reports.join("seed002_bead");
    for f in ["report.md", "drift.png", "drift.svg", "energy.png", "work_precision_time.png", "convergence.png"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let (form, h, drift) =
        (column(&summary, "formulation"), column(&summary, "h"), column(&summary, "max_drift_position"));
    let find = |f: &str, hv: f64| -> f64 {
        let i = (0..form.len()).find(|&i| form[i] == f && (h[i].parse::<f64>().unwrap() - hv).abs() < 1e-12).unwrap();
        drift[i].parse().unwrap()
    };
    // C = ½(|p|² − 1): 0.1 means the bead is ~10 % off the circle.
    assert!(find("force (no feedback)", 1.0 / 60.0) > 0.1);
    assert!(find("force (ks=1e2, kd=1e-2)", 1.0 / 600.0) < 1e-2);
    // And the drift curve grows: at h = 1/60 without feedback, late drift exceeds early drift.
    let runs = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let (cell, t, d) = (column(&runs, "cell"), column(&runs, "t"), column(&runs, "drift_position"));
    let at = |tt: f64| {
        (0..cell.len())
            .find(|&i| cell[i] == "0" && (t[i].parse::<f64>().unwrap() - tt).abs() < 1e-9)
            .map(|i| d[i].parse::<f64>().unwrap())
            .unwrap()
    };
    assert!(at(10.0) > 2.0 * at(1.0), "drift at 1 s {} vs 10 s {}", at(1.0), at(10.0));
}

#[test]
fn list_names_every_registered_item() {
    let out = Command::new(BIN).arg("list").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "circle",
        "prismatic",
        "slider_crank",
        "four_bar",
        "impulse",
        "lagrangian",
        "sparse_cholesky",
        "gauss_seidel",
        "dop853",
        "xpbd",
    ] {
        assert!(text.contains(name), "`{name}` missing from list");
    }
}

#[test]
fn reference_data_experiment_ranks_cells_against_the_file() {
    // experiments/reference_data.yaml: the double pendulum from both arms horizontal against a
    // reference computed independently (ode_solvers' Dop853 at 1e-13, error bound ≤ 1e-12 in the
    // file). Dop853 at 1e-12 must agree with it to ~1e-12 (its own error is of the order of the
    // tolerance over 2 s of a mildly chaotic motion); 1e-10 leaves a factor 100 for the growth.
    let reports = temp_dir("refdata");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/reference_data.yaml");
    let (code, stderr) = run(&config, &reports, &[]);
    assert_eq!(code, 0, "{stderr}");
    let dir = reports.join("reference_data");
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let (integrators, tols, errs) =
        (column(&summary, "integrator"), column(&summary, "tolerance"), column(&summary, "max_ref_err"));
    let best = integrators
        .iter()
        .zip(&tols)
        .zip(&errs)
        .filter(|((i, t), _)| *i == "dop853" && *t == "1e-12")
        .map(|(_, e)| e.parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(best > 0.0 && best < 1e-10, "dop853 at 1e-12 vs the reference file: {best:e}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("## Against the reference data") && report.contains("## Events"));
    let states = std::fs::read_to_string(dir.join("states.csv")).unwrap();
    for name in [",q[0],", ",lambda[1],", ",theta1,", ",theta2,"] {
        assert!(states.contains(name), "states.csv lacks {name}");
    }
}

#[test]
fn run_exits_3_when_no_cell_ran_to_the_end_or_with_strict_when_any_failed() {
    let out = temp_dir("exit");
    let (code, err) = run(&configs().join("all_diverge.yaml"), &out, &[]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("none ran to the end"), "{err}");
    assert!(out.join("all_diverge/report.md").exists(), "the report is written either way");
    // A run with some ok cells exits 0, and 3 under --strict.
    let (code, err) = run(&configs().join("some_diverge.yaml"), &out, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 ok, 1 diverged"), "{err}");
    let (code, err) = run(&configs().join("some_diverge.yaml"), &out, &["--strict"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("(--strict)"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn convergence_report_gives_orders_1_1_2_4_for_euler_symplectic_euler_verlet_rk4() {
    let out = temp_dir("orders");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/pendulum_convergence.yaml");
    let (code, err) = run(&config, &out, &[]);
    assert_eq!(code, 0, "{err}");
    let dir = out.join("pendulum_convergence");
    let csv = std::fs::read_to_string(dir.join("orders.csv")).unwrap();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("## Observed convergence orders"));
    let expected = [("explicit_euler", 1.0), ("symplectic_euler", 1.0), ("verlet", 2.0), ("rk4", 4.0)];
    let mut seen = 0;
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (series, nominal, observed) = (f[1], f[2], f[3].parse::<f64>().unwrap());
        let (_, p) = expected.iter().find(|(name, _)| series.ends_with(name)).expect("a known integrator");
        assert_eq!(nominal.parse::<f64>().unwrap(), *p, "{line}");
        // Asymptotic order from the two smallest steps (1/200, 1/400), within ±0.1 of nominal.
        assert!((observed - p).abs() <= 0.1, "{line}");
        seen += 1;
    }
    assert_eq!(seen, 8, "two formulations × four integrators");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn every_shipped_experiment_passes_its_checks_and_writes_nothing_on_dry_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "experiments/ lists {} configs", files.len());
    let reports = temp_dir("dry-run");
    for f in &files {
        let (code, err) = run(f, &reports, &["--dry-run"]);
        assert_eq!(code, 0, "{}: {err}", f.display());
    }
    assert!(!reports.exists(), "--dry-run wrote {}", reports.display());
}

#[test]
fn energy_window_columns_are_the_mean_signed_energy_change_of_the_data_file() {
    // The impulse stepper on the pendulum (1/60 s, 2 s) does not conserve energy; the report's two
    // window columns must be the means of (E − E₀)/E_scale over runs.csv's samples in [0, 0.5] s and [1.5, 2] s.
    let dir = temp_dir("energy-window");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("windows.yaml");
    std::fs::write(
        &config,
        "name: windows\nscene: {name: pendulum}\nformulations: [{name: impulse}]\nsolvers: [{name: dense_lu}]\nsteps: [\"1/60\"]\nduration: 2\nsample_interval: 0.05\nenergy_window: 0.5\ntiming: {repeats: 0}\n",
    )
    .unwrap();
    let reports = dir.join("reports");
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let out = reports.join("windows");
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let scale: f64 = column(&summary, "energy_scale_joules")[0].parse().unwrap();
    let (t, e) = (column(&runs, "t"), column(&runs, "energy"));
    let t: Vec<f64> = t.iter().map(|x| x.parse().unwrap()).collect();
    let e: Vec<f64> = e.iter().map(|x| x.parse().unwrap()).collect();
    let mean = |lo: f64, hi: f64| {
        let d: Vec<f64> = t
            .iter()
            .zip(&e)
            .filter(|(t, _)| **t >= lo - 1e-9 && **t <= hi + 1e-9)
            .map(|(_, x)| (x - e[0]) / scale)
            .collect();
        d.iter().sum::<f64>() / d.len() as f64
    };
    let (early, late) = (mean(0.0, 0.5), mean(t[t.len() - 1] - 0.5, t[t.len() - 1]));
    assert!(early != 0.0 && late != 0.0 && early != late, "windows {early:e}, {late:e} would not test the columns");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("ΔE/E_scale on [0, 0.5] s | ΔE/E_scale on [2 − 0.5, 2] s"), "window columns missing");
    let row = report.lines().find(|l| l.contains("| impulse |")).expect("ranked row");
    // 3 significant digits in the table: agree to half a unit in the last place.
    for want in [early, late] {
        let shown = format!("{want:.2e}");
        assert!(row.contains(&shown), "{shown} not in {row}");
    }
}

#[test]
fn check_counts_degrees_of_freedom_and_names_the_redundant_row() {
    // A 5 × 3 cloth: 15 particles in space (45 coordinates), two pinned corners (6 rows) and 22
    // links (28 rows). Released with sag 0 the pinned row is a straight line between its pins:
    // its four links and the pins cannot all vary independently along it, so J loses one rank
    // (27 of 28 rows, 18 degrees of freedom) and one link row is named redundant. With sag the
    // row bends and every row is independent (17 degrees of freedom).
    let dir = temp_dir("check");
    std::fs::create_dir_all(&dir).unwrap();
    let go = |sag: f64| {
        let config = dir.join(format!("cloth{sag}.yaml"));
        std::fs::write(
            &config,
            format!(
                "name: check\nscene: {{name: cloth, params: {{width: 5, height: 3, sag: {sag}}}}}\nformulations: [{{name: force}}]\nsolvers: [{{name: dense_lu}}]\nintegrators: [{{name: rk4}}]\nsteps: [\"1/60\"]\nduration: 1\nsample_interval: 0.1\n"
            ),
        )
        .unwrap();
        let out = Command::new(BIN).arg("check").arg(&config).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let taut = go(0.0);
    assert!(taut.contains("rank of J at q0: 27 of 28 rows; 18 degrees of freedom; 1 redundant: constraint"), "{taut}");
    assert!(taut.contains("(`distance`) row 0"), "{taut}");
    let sagging = go(0.5);
    assert!(sagging.contains("28 of 28 rows; 17 degrees of freedom; no redundant rows"), "{sagging}");
    assert!(sagging.contains("kept explicit: 22 × `distance`"), "{sagging}");
    let out = Command::new(BIN).arg("check").arg(dir.join("missing.yaml")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn list_and_validate_work_from_any_directory_and_list_counts_degrees_of_freedom() {
    // Regression: `validate` panicked (exit 101) outside the checkout (its benchmark model looked
    // for its reference file on disk), and `list` printed velocity coordinates as "dof" (30 for
    // Bricard's mechanism, which has 1).
    let dir = std::env::temp_dir();
    let out = Command::new(BIN)
        .args(["validate", "--formulation", "force", "--integrator", "dop853"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Andrews' squeezer") && text.contains("0 FAIL"), "{text}");
    let out = Command::new(BIN).arg("list").current_dir(&dir).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("built into this binary"), "{text}");
    assert!(text.contains("30 rows, 30 velocity coordinates, 1 degree of freedom"), "{text}");
    // Every file of models/ is built in, so the two lists are the same.
    let mut files: Vec<String> = std::fs::read_dir(format!("{}/models", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .map(|e| format!("models/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".yaml"))
        .collect();
    files.sort();
    let shipped: Vec<&str> = tinkertoy::scene::model_file::SHIPPED.iter().map(|(p, _)| *p).collect();
    assert_eq!(files, shipped);
}

/// Every table of a generated report is a table to a GitHub-flavoured Markdown parser, and each row
/// has as many cells as the source line has cell separators: a `|` inside a cell (a header such
/// as `max ||C||inf`, a failure reason) must be escaped, or the table breaks or loses cells.
fn assert_tables_render(report: &str) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let rules = report.lines().filter(|l| l.starts_with("|---")).count();
    let mut tables = 0;
    let mut row: Option<(std::ops::Range<usize>, usize)> = None;
    for (event, range) in Parser::new_ext(report, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Table(_)) => tables += 1,
            Event::Start(Tag::TableHead | Tag::TableRow) => row = Some((range, 0)),
            Event::Start(Tag::TableCell) => {
                if let Some((_, n)) = row.as_mut() {
                    *n += 1;
                }
            }
            Event::End(pulldown_cmark::TagEnd::TableHead | pulldown_cmark::TagEnd::TableRow) => {
                let (r, n) = row.take().unwrap();
                let line = report[r].lines().next().unwrap();
                let separators = line.match_indices('|').filter(|(i, _)| *i == 0 || &line[i - 1..*i] != "\\").count();
                assert_eq!(n + 1, separators, "cells lost in: {line}");
            }
            _ => {}
        }
    }
    assert_eq!(tables, rules, "{} of {rules} tables render", tables);
}

#[test]
fn every_table_of_a_report_renders_as_markdown() {
    // Regression: a ranking by drift put `max ||C||inf` unescaped in the header, so the ranking
    // table did not render (chain_challenge: 1 of 4 tables rendered). A config ranked by drift
    // with a failing cell (explicit Euler runs away), and the driven elbow model.
    let reports = temp_dir("markdown");
    std::fs::create_dir_all(&reports).unwrap();
    let config = reports.join("md.yaml");
    std::fs::write(
        &config,
        "name: md\nscene: {name: pendulum}\nformulations: [{name: force, params: {omega: 5}}, {name: impulse}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: explicit_euler}, {name: rk4}]\nsteps: [0.1, 0.05]\nduration: 20\nsample_interval: 0.5\nrank_by: drift\ntiming: {repeats: 0}\n",
    )
    .unwrap();
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let report = std::fs::read_to_string(reports.join("md/report.md")).unwrap();
    assert_tables_render(&report);
    assert!(report.contains("\\|\\|C\\|\\|inf"), "the header is escaped");
    // Provenance carries the machine's load (timings depend on it) and its CPU count.
    assert!(report.contains("load average (1, 5, 15 min) at the start") && report.contains("logical CPUs"));
    // and what gauss_seidel's simd runs in on this CPU (timings depend on it)
    assert!(report.contains("gauss_seidel's coloured sweep with simd: "), "the machine line names the sweep's lanes");
    // The model's summary is shown as text: raw HTML escaped (regression: it went in unescaped).
    let text = std::fs::read_to_string(format!("{}/tests/data/elbow_motor.yaml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let elbow = reports.join("elbow_motor.yaml");
    std::fs::write(
        &elbow,
        text.replacen("model: elbow_motor\n", "model: elbow_motor\nsummary: \"<b>elbow</b> | motor\"\n", 1),
    )
    .unwrap();
    let elbow = elbow.display().to_string();
    std::fs::write(
        &config,
        format!("name: md_driven\nscene: {{model: {elbow}}}\nformulations: [{{name: force}}, {{name: rattle}}]\nsolvers: [{{name: dense_lu}}]\nintegrators: [{{name: rk4}}]\nsteps: [0.01, 0.005]\nduration: 2\nsample_interval: 0.1\ntiming: {{repeats: 0}}\n"),
    )
    .unwrap();
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let driven = std::fs::read_to_string(reports.join("md_driven/report.md")).unwrap();
    assert_tables_render(&driven);
    assert!(driven.contains("&lt;b&gt;elbow&lt;/b&gt;") && !driven.contains("<b>"), "{driven}");
    // A driven mechanism without a reference is ranked by drift by default (its drives do work,
    // so its energy change is theirs): regression, it was ranked by the energy error.
    assert!(driven.contains("| max \\|\\|C\\|\\|inf [units of C] |"), "{driven}");
}

#[test]
fn an_answer_says_when_its_pick_is_isolated_in_its_series() {
    // Regression: the N = 2 four-bar's answer named a cell that met the target at one tolerance
    // only (its neighbours left the branch) without saying so. Here force without feedback and
    // symplectic Euler on the pendulum over 10 s: at h = 1/30 it drifts away (diverged), at 1/60 it
    // ends more than 1 rad off, at 1/120 it meets a 1 rad target: it is the pick, and isolated.
    let reports = temp_dir("isolated");
    std::fs::create_dir_all(&reports).unwrap();
    let config = reports.join("iso.yaml");
    std::fs::write(
        &config,
        "name: iso\nscene: {name: pendulum, params: {theta0: 1}}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: symplectic_euler}]\nsteps: [\"1/30\", \"1/60\", \"1/120\"]\nduration: 10\nsample_interval: 0.05\ntarget: {reference_error: 1}\ntiming: {repeats: 0}\n",
    )
    .unwrap();
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let report = std::fs::read_to_string(reports.join("iso/report.md")).unwrap();
    let answer = report.split("## What was run").next().unwrap();
    assert!(answer.contains("h=1/120") && answer.contains("**Isolated**: 2 of the 2 other cells"), "{answer}");
}

#[test]
fn a_reference_file_with_a_column_named_twice_is_refused() {
    // Regression: a duplicated column was accepted (compared with one copy or the other).
    let dir = temp_dir("dupcol");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dup.csv"), "t,theta,theta\n0,1,1\n0.1,0.9,0.9\n").unwrap();
    let config = dir.join("dup.yaml");
    std::fs::write(&config, "name: dup\nscene: {name: pendulum}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [0.01]\nduration: 0.1\nsample_interval: 0.1\nreference: {file: dup.csv}\n").unwrap();
    let (code, stderr) = run(&config, &dir.join("reports"), &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("repeats the name `theta`"), "{stderr}");
}

/// The example outside crate (`examples/own_method.rs`, built by `cargo test` with the tests):
/// a formulation registered from outside is listed, runs from a YAML config next to built-in
/// cells, is named in the report, and gets every validate check a built-in stepper gets; its
/// deliberately broken copy (an undeclared velocity leak) fails validate; the plain binary does
/// not know it and says so.
#[test]
fn an_outside_formulation_is_listed_run_reported_and_validated_like_a_built_in_one() {
    let bin = Path::new(BIN).parent().unwrap().join("examples").join("own_method");
    assert!(bin.exists(), "{} is built by `cargo test` (examples)", bin.display());
    let out = Command::new(&bin).arg("list").output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.lines().any(|l| l.trim_start().starts_with("constrained_euler ") && l.ends_with("(outside)")),
        "{list}"
    );

    let dir = temp_dir("own_method");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/own_method.yaml");
    let st = Command::new(&bin).arg("run").arg(&config).arg("--reports").arg(&dir).status().unwrap();
    assert!(st.success());
    let summary = std::fs::read_to_string(dir.join("own_method/summary.csv")).unwrap();
    let formulations = column(&summary, "formulation");
    for f in ["constrained_euler", "rattle", "impulse"] {
        assert_eq!(formulations.iter().filter(|x| *x == f).count(), 3, "{f}: {summary}");
    }
    let report = std::fs::read_to_string(dir.join("own_method/report.md")).unwrap();
    assert!(report.contains("items from outside tinkertoy") && report.contains("formulation `constrained_euler`"));
    let (code, err) = run(&config, &dir, &[]);
    assert_eq!(code, 2, "the plain binary refuses the unknown name: {err}");
    assert!(err.contains("unknown formulation `constrained_euler`"), "{err}");

    let validate = |f: &str| {
        let out = Command::new(&bin).args(["validate", "--formulation", f, "--reports"]).arg(&dir).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, card) = validate("constrained_euler");
    assert_eq!(code, Some(0), "{card}");
    // The checks a built-in stepper gets, each present and passed for the outside method.
    for case in [
        "virtual-work orthogonality",
        "pendulum theta(t) (exact)",
        "stepper order, 2D (exact pendulum)",
        "stepper order, 3D asymmetric body",
        "stepper lambda order, 2D (exact pendulum)",
        "stepper lambda order, 3D asymmetric body",
        "stepper: bounded energy, no secular trend",
    ] {
        assert!(
            card.lines().any(|l| l.starts_with(case) && l.contains("constrained_euler") && l.ends_with("pass")),
            "{case}: {card}"
        );
    }
    let (code, card) = validate("constrained_euler_leaky");
    assert_eq!(code, Some(1), "{card}");
    let failed = |case: &str| card.lines().any(|l| l.starts_with(case) && l.ends_with("FAIL"));
    assert!(failed("stepper: bounded energy, no secular trend"), "{card}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `docs/reference.md` ends with the output of `list`; it must be the current one. With
/// `TINKERTOY_UPDATE_REFERENCE=1` the test rewrites it instead.
#[test]
fn registered_items_in_the_reference_are_the_output_of_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(BIN).arg("list").current_dir(root).output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8(out.stdout).unwrap();
    let path = root.join("docs/reference.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- begin list -->\n```text\n", "```\n<!-- end list -->");
    let a = doc.find(begin).expect("a list block") + begin.len();
    let b = a + doc[a..].find(end).expect("its end");
    if std::env::var_os("TINKERTOY_UPDATE_REFERENCE").is_some() {
        std::fs::write(&path, format!("{}{list}{}", &doc[..a], &doc[b..])).unwrap();
        return;
    }
    assert!(doc[a..b] == list, "docs/reference.md is stale: rerun with TINKERTOY_UPDATE_REFERENCE=1");
}

/// The config shown in README.md's five-minute tour is a working config.
#[test]
fn the_readme_config_example_runs() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let a = readme.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let block = &readme[a..a + readme[a..].find("```").unwrap()];
    let dir = temp_dir("readme_config");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("my_pendulum.yaml");
    std::fs::write(&config, block).unwrap();
    let (code, err) = run(&config, &dir, &[]);
    assert_eq!(code, 0, "{err}");
    let summary = std::fs::read_to_string(dir.join("my_pendulum/summary.csv")).unwrap();
    assert_eq!(column(&summary, "status").iter().filter(|s| *s == "ok").count(), 8, "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
