//! Every registered linear solver agrees with `dense_lu` on J W Jᵀ systems from random scenes and
//! configurations (property test over the solver and scene registries); the contact solvers are
//! scored on problem files by the `contact` command.
//!
//! Tolerances:
//! - direct solvers: backward-stable factorizations give a forward error ≲ κ(A)·ε·c(m); the
//!   systems here have κ ≤ ~10⁴ (checked below), so 1e-10 relative leaves a margin of ≳10².
//! - iterative solvers run to relative residual tol = 1e-12; their forward error is bounded by
//!   κ(A)·tol, which the test computes from the eigenvalues of A and uses as the bound.

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;
use tinkertoy::linsolve::registry::{SOLVERS, SolverKind};
use tinkertoy::linsolve::{Operator, Reg, SolveError};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry::SCENES;
use tinkertoy::sparse::NormalMatrix;

const TOL: f64 = 1e-12;

/// ‖a − b‖ / ‖b‖, or ‖a − b‖ when b = 0.
fn rel(a: &[f64], b: &[f64]) -> f64 {
    let d = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt();
    let nb = b.iter().map(|y| y * y).sum::<f64>().sqrt();
    if nb > 0.0 { d / nb } else { d }
}

proptest! {
    // A fixed seed: the same 24 cases every run (no flakes), plus the stored regressions (a CG
    // whose recurred residual met 1e-12 while its true residual ended at 1.017e-12, before CG
    // restarted from the true residual).
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(24),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_solver_agrees_with_dense_lu_on_random_j_w_jt_systems(
        scene_index in 0..SCENES.len(),
        seed in prop::collection::vec(-1.0f64..1.0, 97),
    ) {
        let entry = &SCENES[scene_index];
        let scene = entry.build_small().unwrap();
        let sys = &scene.system;
        let pick = |i: usize| seed[i % seed.len()];
        // A nearby configuration (not necessarily consistent: the solvers do not care).
        let q: Vec<f64> = scene.q0.iter().enumerate().map(|(i, x)| x + 0.05 * pick(i)).collect();
        let m = sys.nrows();
        if m == 0 {
            return Ok(()); // no constraint rows (torque_free, ramp): no system to solve
        }
        let b: Vec<f64> = (0..m).map(|i| pick(i + 41)).collect();
        let mut jac = sys.jacobian_layout();
        sys.fill_jacobian(&q, &mut jac);
        let pattern = NormalMatrix::new(&jac);
        // Half the cases add a compliance term (XPBD, soft constraints): A = J W Jᵀ + reg·I.
        let reg = if seed[0] > 0.0 { seed[1].abs() } else { 0.0 };
        let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::Uniform(reg) };

        let mut dense = vec![0.0; m * m];
        op.to_dense(&mut dense);
        let a = DMatrix::from_column_slice(m, m, &dense);
        let eig = a.clone().symmetric_eigen().eigenvalues;
        let (lmin, lmax) = (eig.min(), eig.max());
        prop_assume!(lmin > 1e-8 * lmax); // skip (measure-zero) near-singular configurations
        let kappa = lmax / lmin;
        // Jacobi converges for ω < 2/ρ(D⁻¹A); use ω = 1/ρ so every sample is inside its domain.
        let d_inv_sqrt = DMatrix::from_diagonal(&a.diagonal().map(|d| 1.0 / d.sqrt()));
        let rho = (&d_inv_sqrt * &a * &d_inv_sqrt).symmetric_eigen().eigenvalues.max();

        let reference = {
            let lu = SOLVERS.iter().find(|s| s.name == "dense_lu").unwrap();
            let mut s = (lu.build)(&lu.params.defaults());
            s.prepare(&op).unwrap();
            let mut x = vec![0.0; m];
            s.solve(&op, &b, &mut x).unwrap();
            x
        };
        // dense_lu itself against nalgebra's independent LU.
        let check = a.clone().lu().solve(&DVector::from_column_slice(&b)).unwrap();
        prop_assert!(rel(&reference, check.as_slice()) < 1e-10);

        for solver in SOLVERS {
            let mut given = vec![];
            if solver.kind == SolverKind::Iterative {
                given.push(("tol", Scalar::Num(TOL)));
                given.push(("max_iter", Scalar::Num(1e6)));
            }
            if solver.name == "jacobi" {
                // ρ ≥ 1 (the diagonal of D⁻¹A is 1), so 1/ρ ≤ 1 up to rounding: clamp into (0, 1].
                given.push(("omega", Scalar::Num((1.0 / rho).min(1.0))));
            }
            let mut s = (solver.build)(&solver.params.with(solver.name, &given).unwrap());
            if let Err(e) = s.prepare(&op) {
                // A solver may decline a system it cannot take (e.g. `tree_ldlt` one whose
                // body-constraint graph has a loop), but only as not applicable, with a reason;
                // `every_solver_solves_the_chain` holds each to at least the chain.
                prop_assert!(matches!(e, SolveError::NotApplicable { .. }), "{} on {}: {e}", solver.name, entry.name);
                continue;
            }
            let mut x = vec![0.0; m];
            let info = s.solve(&op, &b, &mut x).map_err(|e| TestCaseError::fail(format!("{} on {}: {e}", solver.name, entry.name)))?;
            let err = rel(&x, &reference);
            let bound = match solver.kind {
                SolverKind::Direct => 1e-10,
                SolverKind::Iterative => {
                    prop_assert!(info.residual <= TOL, "{}: residual {:.3e} above tol", solver.name, info.residual);
                    // forward error ≤ κ · (relative residual), plus the reference's own error
                    kappa * TOL * 1.01 + 1e-10
                }
            };
            prop_assert!(err <= bound, "{} on {} (kappa {kappa:.2e}): relative error {err:.3e} > {bound:.3e}", solver.name, entry.name);
        }
    }
}

/// IC(0) drops no fill where J W Jᵀ is tridiagonal (a chain in row order), so it is the exact
/// Cholesky factor and preconditioned CG converges in one iteration at every size; unpreconditioned
/// CG needs a number of iterations growing with the chain (κ ∝ N²).
#[test]
fn pcg_ic0_solves_a_chain_in_one_iteration() {
    use tinkertoy::linsolve::{Cg, LinearSolver, Operator, PcgIc0, Reg, Stopping};
    for links in [10usize, 100, 1000] {
        let scene = tinkertoy::scene::registry::find("chain")
            .unwrap()
            .build_default(&[("n", Scalar::Num((links + 1) as f64))])
            .unwrap();
        let sys = &scene.system;
        let mut q = scene.q0.clone();
        for i in 1..=links {
            let a = -0.3 * (i as f64 / links as f64);
            q[2 * i] = q[2 * i - 2] + 0.1 * a.cos();
            q[2 * i + 1] = q[2 * i - 1] + 0.1 * a.sin();
        }
        let mut jac = sys.jacobian_layout();
        sys.fill_jacobian(&q, &mut jac);
        let pattern = NormalMatrix::new(&jac);
        let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
        let m = op.dim();
        let b: Vec<f64> = (0..m).map(|i| (0.7 * i as f64).sin()).collect();
        let stop = Stopping { tol: 1e-10, max_iter: 100_000, require_convergence: true };
        let (mut pcg, mut cg) = (PcgIc0::new(stop), Cg::new(stop));
        pcg.prepare(&op).unwrap();
        cg.prepare(&op).unwrap();
        let (mut x, mut y) = (vec![0.0; m], vec![0.0; m]);
        let ip = pcg.solve(&op, &b, &mut x).unwrap();
        let ic = cg.solve(&op, &b, &mut y).unwrap();
        println!("chain of {links}: pcg_ic0 {} iteration(s), cg {} iterations", ip.iterations, ic.iterations);
        assert_eq!(ip.iterations, 1, "{links} links");
        assert!(ip.residual <= 1e-10);
        if links >= 100 {
            assert!(ic.iterations > 10 * ip.iterations);
        }
    }
}

/// Every registered solver takes the chain's J W Jᵀ (a tree: no solver may decline it) and solves
/// it to the accuracy its kind promises against dense LU: 1e-10 relative for direct solvers, and
/// κ · tol for iterative ones (κ of the 11-row chain's matrix, computed here); one that does not
/// read its start ([`tinkertoy::linsolve::LinearSolver::reads_start`]) gives the same bits from any.
#[test]
fn every_solver_solves_the_chain() {
    let scene = SCENES.iter().find(|e| e.name == "chain").unwrap().build_small().unwrap();
    let sys = &scene.system;
    let mut q = scene.q0.clone();
    for (i, x) in q.iter_mut().enumerate() {
        *x += 0.01 * ((i * 7919) % 13) as f64 / 13.0;
    }
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&q, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let m = op.dim();
    let mut dense = vec![0.0; m * m];
    op.to_dense(&mut dense);
    let a = DMatrix::from_column_slice(m, m, &dense);
    let eig = a.clone().symmetric_eigen().eigenvalues;
    let kappa = eig.max() / eig.min();
    // Damped Jacobi converges for ω < 2/ρ(D⁻¹A): ω = 1/ρ, as in the property test.
    let d_inv_sqrt = DMatrix::from_diagonal(&a.diagonal().map(|d| 1.0 / d.sqrt()));
    let rho = (&d_inv_sqrt * &a * &d_inv_sqrt).symmetric_eigen().eigenvalues.max();
    let b: Vec<f64> = (0..m).map(|i| (i as f64 + 1.0).sin()).collect();
    let reference = a.clone().lu().solve(&DVector::from_column_slice(&b)).unwrap();
    for solver in SOLVERS {
        let mut given: Vec<(&str, Scalar)> = if solver.kind == SolverKind::Iterative {
            vec![("tol", Scalar::Num(TOL)), ("max_iter", Scalar::Num(1e6))]
        } else {
            vec![]
        };
        if solver.name == "jacobi" {
            given.push(("omega", Scalar::Num((1.0 / rho).min(1.0))));
        }
        let mut s = (solver.build)(&solver.params.with(solver.name, &given).unwrap());
        s.prepare(&op).unwrap_or_else(|e| panic!("{}: {e}", solver.name));
        let mut x = vec![0.0; m];
        s.solve(&op, &b, &mut x).unwrap_or_else(|e| panic!("{}: {e}", solver.name));
        let err = rel(&x, reference.as_slice());
        let bound = if solver.kind == SolverKind::Direct { 1e-10 } else { kappa * TOL * 1.01 + 1e-10 };
        assert!(err <= bound, "{}: relative error {err:e} > {bound:e}", solver.name);
        if !s.reads_start() {
            // a solver that says it does not read its start gets the same bits from a NaN one
            let mut from_nan = vec![f64::NAN; m];
            s.solve(&op, &b, &mut from_nan).unwrap_or_else(|e| panic!("{}: {e}", solver.name));
            assert!(
                x.iter().zip(&from_nan).all(|(a, b)| a.to_bits() == b.to_bits()),
                "{} reads its start",
                solver.name
            );
        }
    }
}

/// A warm start far larger than the solution (the last step's multipliers while b has nearly
/// vanished, as in a finite-difference Jacobian column of `radau5`) leaves the recurred residual
/// of CG and PCG small while b − A x is lost to cancellation: both restart from the true
/// residual and meet the tolerance on it (pcg_ic0 once failed here with residual 7.6e-6).
#[test]
fn cg_and_pcg_ic0_meet_the_true_residual_from_a_warm_start_1e12_times_the_solution() {
    use tinkertoy::linsolve::{Cg, LinearSolver, PcgIc0, Stopping};
    let scene = SCENES.iter().find(|e| e.name == "chain").unwrap().build_small().unwrap();
    let sys = &scene.system;
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&scene.q0, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let m = op.dim();
    let b: Vec<f64> = (0..m).map(|i| 1e-12 * (i as f64 + 1.0).sin()).collect();
    let stop = Stopping { tol: 1e-10, max_iter: 10_000, require_convergence: true };
    let solvers: [(&str, Box<dyn LinearSolver>); 2] =
        [("cg", Box::new(Cg::new(stop))), ("pcg_ic0", Box::new(PcgIc0::new(stop)))];
    for (name, mut s) in solvers {
        s.prepare(&op).unwrap();
        let mut x: Vec<f64> = (0..m).map(|i| (0.3 * i as f64).cos()).collect();
        let info = s.solve(&op, &b, &mut x).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(info.residual <= 1e-10, "{name}: {info:?}");
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_tinkertoy");

/// The values of column `name` of a CSV text.
fn column(text: &str, name: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let i = r.headers().unwrap().iter().position(|h| h == name).unwrap();
    r.records().map(|rec| rec.unwrap()[i].to_string()).collect()
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tinkertoy-solvers-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `contact` on two small Siconos problems: a report with every solver at both tolerances, the
/// answers and the profile plots; `check` on a problem file prints its sizes; bad input (an
/// unknown solver, a truncated HDF5 file) is one line, exit 2, before anything is written.
#[test]
fn contact_scores_solvers_on_problem_files_and_refuses_bad_ones_in_one_line() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/contact");
    let dir = temp_dir("contact");
    let out = Command::new(BIN)
        .args(["contact", "--repeats", "1", "--reports"])
        .arg(&dir)
        .arg(data.join("FrictionContact3D_1c.dat"))
        .arg(data.join("Rover4396.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = std::fs::read_to_string(dir.join("contact/summary.csv")).unwrap();
    // 2 problems x every solver x 2 tolerances.
    let solvers = tinkertoy::friction::solvers::CONTACT_SOLVERS;
    assert_eq!(column(&summary, "solver").len(), 2 * solvers.len() * 2, "{summary}");
    let solved: Vec<(String, String)> =
        column(&summary, "solver").into_iter().zip(column(&summary, "solved")).collect();
    for (s, ok) in &solved {
        // apgd, sap and ipm_ccp solve the convex relaxation, lemke the 3D pyramid; both
        // problems slide, so they must not claim them.
        let coulomb = solvers.iter().find(|e| e.name == s).expect("a registered solver").coulomb();
        assert_eq!(ok, if coulomb { "true" } else { "false" }, "{summary}");
    }
    for f in [
        "report.md",
        "answers.csv",
        "history.csv",
        "profile_1e-4.png",
        "profile_1e-8.png",
        "history.png",
        "history_time.png",
    ] {
        assert!(dir.join("contact").join(f).exists(), "{f}");
    }
    let out = Command::new(BIN).arg("check").arg(data.join("Box_Stacks-i0122-82-5.hdf5")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("82 contacts in 3D") && text.contains("global (FCLIB"), "{text}");
    // A step of a shipped contact experiment, dumped and read back by `check`.
    let dumped = dir.join("box_stack_step.hdf5");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/box_stack.yaml");
    let st = Command::new(BIN)
        .arg("dump")
        .arg(&config)
        .args(["--cell", "0", "--time", "0.5", "--out"])
        .arg(&dumped)
        .status();
    assert!(st.unwrap().success());
    let out = Command::new(BIN).arg("check").arg(&dumped).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("local (FCLIB), \"box_stack cell 0 at t = 0.5 s\"") && text.contains("guess 1:"), "{text}");

    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(data.join("Capsules-i125-1213.hdf5")).unwrap();
    let truncated = dir.join("truncated.hdf5");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    for args in [
        vec![
            "contact".into(),
            "--solvers".into(),
            "nsgs,warp_drive".into(),
            data.join("Rover4396.dat").display().to_string(),
        ],
        vec!["contact".into(), truncated.display().to_string()],
        vec!["check".into(), truncated.display().to_string()],
    ] {
        let out = Command::new(BIN).args(&args).arg("--reports").arg(dir.join("bad")).output();
        let out = match args[0].as_str() {
            "check" => Command::new(BIN).args(&args).output().unwrap(),
            _ => out.unwrap(),
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!dir.join("bad").exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
