//! `gauss_seidel`'s stopping tests: skipping the exact residual between sweeps (`check_every`)
//! changes nothing but the cost, and the cheap per-sweep test (`change_tol`) stops the sweeps
//! early while the residual it reports is still the exact one.

use tinkertoy::linsolve::gauss_seidel::{GaussSeidel, GaussSeidelParams};
use tinkertoy::linsolve::{LinearSolver, Operator, Reg, Stopping, relative_residual};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::{BlockJacobian, NormalMatrix};

/// J of a 50-particle chain at rest and a right-hand side with every sign.
fn chain_system() -> (tinkertoy::scene::Scene, BlockJacobian, Vec<f64>) {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(50.0))]).unwrap();
    let mut jac = scene.system.jacobian_layout();
    scene.system.fill_jacobian(&scene.q0, &mut jac);
    let b: Vec<f64> = (0..jac.nrows()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
    (scene, jac, b)
}

fn solver(max_iter: usize, check_every: usize, change_tol: f64) -> GaussSeidel {
    let stop = Stopping { tol: 1e-300, max_iter, require_convergence: false };
    GaussSeidel::new(GaussSeidelParams { stop, omega: 1.0, check_every, change_tol })
}

#[test]
fn checking_the_residual_only_after_the_last_sweep_gives_the_same_iterate() {
    let (scene, jac, b) = chain_system();
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut out = Vec::new();
    for check_every in [1, 3, 10] {
        let mut s = solver(10, check_every, 0.0);
        s.prepare(&op).unwrap();
        let mut x = vec![0.0; op.dim()];
        let info = s.solve(&op, &b, &mut x).unwrap();
        assert_eq!(info.iterations, 10);
        out.push((x, info.residual));
    }
    for (x, r) in &out[1..] {
        assert_eq!(x, &out[0].0, "the iterate depends on check_every");
        assert_eq!(*r, out[0].1, "the final residual depends on check_every");
    }
    assert!(out[0].1 > 0.0 && out[0].1 < 1.0, "10 sweeps reduce the residual: {}", out[0].1);
}

#[test]
fn the_change_test_stops_early_and_reports_the_exact_residual() {
    let (scene, jac, b) = chain_system();
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    // Gauss-Seidel on the chain converges slowly (the 50-link system has κ ~ 10³), so a sweep
    // changing λ by less than 1e-3 of its size comes long before the cap of 100 000.
    let mut s = solver(100_000, 100_000, 1e-3);
    s.prepare(&op).unwrap();
    let mut x = vec![0.0; op.dim()];
    let info = s.solve(&op, &b, &mut x).unwrap();
    assert!(info.iterations > 1 && info.iterations < 100_000, "stopped after {}", info.iterations);
    // The residual reported is the exact one of the iterate returned (the same computation).
    let (mut ax, mut scratch) = (vec![0.0; op.dim()], vec![0.0; op.scratch_len()]);
    let exact = relative_residual(&op, &b, &x, &mut ax, &mut scratch);
    // The solver accumulates u = W Jᵀ x over the sweeps where this check forms it afresh: the two
    // differ by rounding, about sweeps · ε ‖A x‖ / ‖b − A x‖ ≈ 500 · 2.2e-16 / 1.6e-2 ≈ 7e-12
    // relative to the residual here.
    assert!((info.residual - exact).abs() <= 1e-10 * exact, "reported {} exact {}", info.residual, exact);
    // And the iterate is the one the same number of sweeps gives without the test.
    let mut plain = solver(info.iterations, 1, 0.0);
    plain.prepare(&op).unwrap();
    let mut y = vec![0.0; op.dim()];
    plain.solve(&op, &b, &mut y).unwrap();
    assert_eq!(x, y, "the change test changed the sweeps");
}
