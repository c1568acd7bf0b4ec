//! The budget checked before anything runs: a config whose cells would need more memory or more
//! cells than its limits allow is refused with one line naming the limit, exit 2, nothing written,
//! in well under two seconds — counting each formulation's and solver's own workspace; and the
//! time budget, which holds inside a step too.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{BASE, BIN, run_limited, temp_dir, write_config};

#[test]
fn a_dense_solve_larger_than_the_memory_limit_is_refused_before_running() {
    // chain n = 2000: J W Jᵀ is 2001 × 2001, dense_lu holds it in 8 · 2001² B ≈ 32 MB.
    let dir = temp_dir("dense");
    let config = write_config(
        &dir,
        "dense.yaml",
        &[
            ("scene: {name: pendulum}", "scene: {name: chain, params: {n: 2000}}"),
            ("duration: 1", "duration: 0.02"),
            ("sample_interval: 0.1", "sample_interval: 0.01"),
        ],
        "",
    );
    let reports = dir.join("reports");
    let go = |limit: &str| {
        let start = Instant::now();
        let out = Command::new(BIN)
            .arg("run")
            .arg(&config)
            .arg("--reports")
            .arg(&reports)
            .args(["--limit", &format!("cell_memory_mb={limit}"), "--dry-run"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            start.elapsed(),
        )
    };
    let (code, stderr, _, elapsed) = go("30");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("limits.cell_memory_mb` = 30") && stderr.contains("solver `dense_lu` needs about 33 MB"),
        "{stderr}"
    );
    assert!(elapsed < Duration::from_secs(2) && !reports.exists());
    let (code, stderr, stdout, _) = go("40");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("largest cell about"), "{stdout}");
}

#[test]
fn a_grid_of_ten_to_the_five_tiny_cells_is_refused_by_the_budget_with_a_clear_message() {
    let dir = temp_dir("huge");
    let lengths: Vec<String> = (0..1000).map(|i| format!("{}", 0.5 + i as f64 * 1e-3)).collect();
    let config = dir.join("huge.yaml");
    std::fs::write(
        &config,
        BASE.replace(
            "scene: {name: pendulum}",
            &format!("scene: {{name: pendulum, params: {{length: [{}]}}}}", lengths.join(", ")),
        )
        .replace(
            "[{name: force}]",
            "[{name: force}, {name: lagrangian}, {name: impulse}, {name: rattle}, {name: xpbd}]",
        )
        .replace("[{name: dense_lu}]", "[{name: dense_lu}, {name: dense_cholesky}, {name: cg}, {name: jacobi}]")
        .replace("steps: [0.01]", "steps: [0.01, 0.02, 0.025, 0.05]")
        .replace("[{name: rk4}]", "[{name: rk4}, {name: verlet}, {name: symplectic_euler}]"),
    )
    .unwrap();
    let reports = dir.join("reports");
    let start = Instant::now();
    let out = Command::new(BIN)
        .arg("run")
        .arg(&config)
        .arg("--reports")
        .arg(&reports)
        .args(["--limit", "variants=1000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // Per variant: (2 ODE formulations × 3 integrators + 3 steppers) × 4 solvers × 4 steps = 144.
    assert!(
        stderr.contains(
            "the config asks for 144000 cells (1000 scene variant(s) × 144 per variant); `limits.cells` = 20000"
        ),
        "{stderr}"
    );
    assert!(start.elapsed() < Duration::from_secs(2) && !reports.exists());
}

#[test]
fn midpoints_krylov_basis_counts_in_the_memory_budget() {
    // chain n = 200 000 under `midpoint`: its Newton system has 400 001 rows (links, pin and one
    // stiffness row per link), so GMRES's basis of krylov + 1 vectors adds 8 · 201 · 400 001 B ≈ 643 MB
    // at krylov = 200 and nothing at krylov = 0; with a 900 MB cell limit the first is refused
    // before running and the second is accepted.
    let dir = temp_dir("krylov");
    let reports = dir.join("reports");
    let go = |krylov: u32| {
        let config = dir.join(format!("krylov{krylov}.yaml"));
        std::fs::write(
            &config,
            BASE.replace("scene: {name: pendulum}", "scene: {name: chain, params: {n: 200000}}")
                .replace(
                    "formulations: [{name: force}]",
                    &format!("formulations: [{{name: midpoint, params: {{krylov: {krylov}}}}}]"),
                )
                .replace("solvers: [{name: dense_lu}]", "solvers: [{name: envelope_ldlt}]")
                .replace("integrators: [{name: rk4}]\n", "")
                .replace("duration: 1", "duration: 0.02")
                .replace("sample_interval: 0.1", "sample_interval: 0.01"),
        )
        .unwrap();
        dry_run(&config, &reports, "cell_memory_mb=900")
    };
    let (code, stderr) = go(200);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("limits.cell_memory_mb` = 900") && stderr.contains("workspaces"), "{stderr}");
    let (code, stderr) = go(0);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!reports.exists());
}

#[test]
fn lagrangians_loop_closure_system_counts_in_the_memory_budget() {
    // The cloth in joint coordinates: its pins are fixed joints, every distance joint in space
    // stays an explicit loop closure, so G M⁻¹ Gᵀ is dense over all link rows. At 60 × 60
    // particles that is 7 080 rows: 8 · 7 080² B ≈ 400 MB for the matrix alone (and as much for
    // dense Cholesky's copy); refused under a 500 MB cell limit before running. The chain of
    // 200 000 links is a tree (no loop rows): a few tens of MB, accepted.
    let dir = temp_dir("lagrangian_budget");
    let reports = dir.join("reports");
    let go = |scene: &str| {
        let config = dir.join("lagrangian.yaml");
        std::fs::write(
            &config,
            BASE.replace("scene: {name: pendulum}", scene)
                .replace("formulations: [{name: force}]", "formulations: [{name: lagrangian}]")
                .replace("solvers: [{name: dense_lu}]", "solvers: [{name: dense_cholesky}]"),
        )
        .unwrap();
        dry_run(&config, &reports, "cell_memory_mb=500")
    };
    let (code, stderr) = go("scene: {name: cloth, params: {width: 60, height: 60}}");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("limits.cell_memory_mb` = 500") && stderr.contains("lagrangian"), "{stderr}");
    let (code, stderr) = go("scene: {name: chain, params: {n: 200000}}");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!reports.exists());
}

#[test]
fn radau5s_dense_matrices_count_in_the_memory_budget() {
    // `radau5` keeps J and its real and complex factors, 4 dense n × n matrices of n = x and ẋ
    // together: a chain of 2 000 particles under `force` has n = 8 000, 8 · 4 · 8 000² B ≈ 2 GB,
    // refused under a 1 000 MB cell limit with the integrator named; 200 particles (n = 800,
    // about 20 MB) are accepted.
    let dir = temp_dir("radau_budget");
    let reports = dir.join("reports");
    let go = |n: u32| {
        let config = dir.join("radau.yaml");
        std::fs::write(
            &config,
            BASE.replace("scene: {name: pendulum}", &format!("scene: {{name: chain, params: {{n: {n}}}}}"))
                .replace("solvers: [{name: dense_lu}]", "solvers: [{name: sparse_cholesky}]")
                .replace(
                    "integrators: [{name: rk4}]\nsteps: [0.01]",
                    "integrators: [{name: radau5}]\ntolerances: [1.0e-6]",
                ),
        )
        .unwrap();
        dry_run(&config, &reports, "cell_memory_mb=1000")
    };
    let (code, stderr) = go(2000);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("limits.cell_memory_mb` = 1000") && stderr.contains("integrator `radau5` keeps dense"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let (code, stderr) = go(200);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!reports.exists());
}

/// `run CONFIG --reports REPORTS --limit LIMIT --dry-run`: (exit status, standard error).
fn dry_run(config: &Path, reports: &Path, limit: &str) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .arg("run")
        .arg(config)
        .arg("--reports")
        .arg(reports)
        .args(["--limit", limit, "--dry-run"])
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
}

#[test]
fn a_step_that_would_run_for_minutes_ends_at_the_cells_time_budget() {
    // One step of `force` on a 2000-mass chain with Gauss–Seidel asked for 10⁸ sweeps to 1e-300:
    // about 10 µs a sweep, some 1000 s for its first solve. The budget used to be read only
    // between steps, so the cell ran for that long; the sweep loop now reads the cell's deadline
    // every 32 sweeps. With `cell_seconds=1` the cell fails with `time budget` at t = 0 and the
    // whole run (start-up, report) ends well within 20 s.
    let dir = temp_dir("budget_in_step");
    let config = write_config(
        &dir,
        "gs.yaml",
        &[
            ("{name: pendulum}", "{name: chain, params: {n: 2000}}"),
            ("{name: dense_lu}", "{name: gauss_seidel, params: {tol: 1.0e-300, max_iter: 100000000}}"),
        ],
        "timing: {repeats: 0}\n",
    );
    let reports = dir.join("reports");
    let (code, summary, elapsed) = run_limited(&config, &reports, "cell_seconds=1");
    assert_eq!(code, Some(3), "{summary}");
    assert!(summary.contains("time budget: 1 s of wall time exceeded"), "{summary}");
    assert!(elapsed < Duration::from_secs(20), "the run took {elapsed:?}");
}

#[test]
fn a_run_whose_output_exceeds_the_free_disk_is_refused_before_computing() {
    // chain n = 10000 recording q and v (40000 values a sample) every 1e-3 s for 1000 s: 1e6
    // samples of about 320 KB, about 1.6e12 B with the text of its CSV files — more than any disk
    // this runs on has free. The memory limits are raised so that only the disk refuses.
    let dir = temp_dir("disk");
    let config = write_config(
        &dir,
        "disk.yaml",
        &[
            ("scene: {name: pendulum}", "scene: {name: chain, params: {n: 10000}}"),
            ("duration: 1", "duration: 1000"),
            ("sample_interval: 0.1", "sample_interval: 0.001"),
            ("steps: [0.01]", "steps: [0.001]"),
        ],
        "record: [q, v]\nrecord_limit_mb: 1.0e9\n",
    );
    let reports = dir.join("reports");
    let start = Instant::now();
    let mut args =
        vec!["run".to_string(), config.display().to_string(), "--reports".into(), reports.display().to_string()];
    for l in ["cell_memory_mb=1e12", "run_memory_mb=1e12", "samples=1e12", "steps_per_cell=1e12"] {
        args.extend(["--limit".into(), l.into()]);
    }
    let mut child = Command::new(BIN).args(&args).stderr(std::process::Stdio::piped()).spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("not refused: the run started computing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the run would write about") && stderr.contains("MB are free"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(2) && !reports.exists(), "computed or wrote before refusing");
    // --dry-run states the estimate and does not refuse.
    args.push("--dry-run".into());
    let out = Command::new(BIN).args(&args).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("writing about"), "{}", String::from_utf8_lossy(&out.stderr));
}
