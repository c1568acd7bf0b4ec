//! `gauss_seidel`'s stopping tests: skipping the exact residual between sweeps (`check_every`)
//! changes nothing but the cost, and the cheap per-sweep test (`change_tol`) stops the sweeps
//! early while the residual it reports is still the exact one. And its reuse and order: a
//! `solve_same` skips forming the per-row data only while J is unchanged, and the coloured sweep
//! (`coloring`) is another Gauss–Seidel order that converges to the same solution, whose colours
//! swept in tasks on a thread pool (`parallel`) give its iterates to the bit. A velocity
//! solve that forms b = −(J v + β C) in its first sweep gives the bits of forming b first.

use tinkertoy::linsolve::gauss_seidel::{GaussSeidel, GaussSeidelParams};
use tinkertoy::linsolve::{LinearSolver, Operator, Reg, Stopping, VelocityTarget, relative_residual};
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
    GaussSeidel::new(GaussSeidelParams {
        stop,
        omega: 1.0,
        check_every,
        change_tol,
        coloring: false,
        parallel: false,
        simd: true,
    })
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

#[test]
fn solve_same_reuses_the_per_row_data_only_while_j_is_unchanged() {
    let (scene, mut jac, b) = chain_system();
    let pattern = NormalMatrix::new(&jac);
    let w = scene.system.inv_mass();
    let b2: Vec<f64> = b.iter().map(|x| 0.5 * x + 1.0).collect();
    // what a fresh solver gives on (J, b2)
    let fresh = |jac: &BlockJacobian| {
        let op = Operator::Normal { jac, w, pattern: &pattern, reg: Reg::Uniform(0.0) };
        let mut s = solver(7, 7, 0.0);
        s.prepare(&op).unwrap();
        let mut x = vec![0.0; op.dim()];
        s.solve(&op, &b2, &mut x).unwrap();
        x
    };
    let expected = fresh(&jac);
    let mut s = solver(7, 7, 0.0);
    {
        let op = Operator::Normal { jac: &jac, w, pattern: &pattern, reg: Reg::Uniform(0.0) };
        s.prepare(&op).unwrap();
        let mut x = vec![0.0; op.dim()];
        s.solve(&op, &b, &mut x).unwrap();
        let mut y = vec![0.0; op.dim()];
        s.solve_same(&op, &b2, &mut y).unwrap();
        assert_eq!(y, expected, "solve_same on the same J");
    }
    // J changes (the chain bent) and a caller asks for the same matrix anyway: the solver sees
    // the new J and forms its data again, so it still answers for the J it is given
    let mut q = scene.q0.clone();
    for (i, qi) in q.iter_mut().enumerate() {
        *qi += 0.02 * ((i * 5 % 9) as f64 - 4.0);
    }
    scene.system.fill_jacobian(&q, &mut jac);
    let expected = fresh(&jac);
    let op = Operator::Normal { jac: &jac, w, pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut y = vec![0.0; op.dim()];
    s.solve_same(&op, &b2, &mut y).unwrap();
    assert_eq!(y, expected, "solve_same after J changed");
}

#[test]
fn the_coloured_sweep_is_another_order_that_converges_to_the_solution() {
    let (scene, jac, b) = chain_system();
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let m = op.dim();
    let run = |coloring: bool, max_iter: usize, tol: f64| {
        let stop = Stopping { tol, max_iter, require_convergence: false };
        let mut s = GaussSeidel::new(GaussSeidelParams {
            stop,
            omega: 1.0,
            check_every: 1,
            change_tol: 0.0,
            coloring,
            parallel: false,
            simd: true,
        });
        s.prepare(&op).unwrap();
        let mut x = vec![0.0; m];
        let info = s.solve(&op, &b, &mut x).unwrap();
        (x, info)
    };
    // one sweep in another order: other iterates (not the row order renamed)
    assert_ne!(run(true, 1, 1e-300).0, run(false, 1, 1e-300).0);
    // to convergence: A x = b to 1e-12 relative, so |x − x*| ≤ ‖A⁻¹‖ ‖b − A x‖ = 1e-12 ‖b‖ / λ_min
    let tol = 1e-12;
    let (x, info) = run(true, 1_000_000, tol);
    assert!(info.residual <= tol, "coloured sweeps ended at {:e} after {}", info.residual, info.iterations);
    let (mut a, mut col, mut scratch) = (nalgebra::DMatrix::zeros(m, m), vec![0.0; m], vec![0.0; op.scratch_len()]);
    for j in 0..m {
        let mut e = vec![0.0; m];
        e[j] = 1.0;
        op.apply(&e, &mut col, &mut scratch);
        a.column_mut(j).copy_from_slice(&col);
    }
    let lambda_min = a.clone().symmetric_eigen().eigenvalues.min();
    let exact = a.cholesky().expect("J W Jᵀ is SPD").solve(&nalgebra::DVector::from_column_slice(&b));
    let bound = tol * b.iter().map(|v| v * v).sum::<f64>().sqrt() / lambda_min;
    let err = x.iter().zip(exact.iter()).map(|(p, q)| (p - q) * (p - q)).sum::<f64>().sqrt();
    assert!(err <= bound, "|x − x*| = {err:e} above ‖A⁻¹‖ ‖r‖ = {bound:e}");
}

/// Ten coloured sweeps on `jac`'s J W Jᵀ from x = 0, on a pool of `threads` threads, with the
/// SIMD lanes where the CPU has them (`simd`).
fn coloured_sweeps(
    scene: &tinkertoy::scene::Scene,
    jac: &BlockJacobian,
    b: &[f64],
    (parallel, simd): (bool, bool),
    threads: usize,
) -> (Vec<f64>, f64) {
    let pattern = NormalMatrix::new(jac);
    let op = Operator::Normal { jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(1e-3) };
    let stop = Stopping { tol: 1e-300, max_iter: 10, require_convergence: false };
    let mut s = GaussSeidel::new(GaussSeidelParams {
        stop,
        omega: 1.0,
        check_every: 1,
        change_tol: 0.0,
        coloring: true,
        parallel,
        simd,
    });
    s.prepare(&op).unwrap();
    let mut x = vec![0.0; op.dim()];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let info = pool.install(|| s.solve(&op, b, &mut x)).unwrap();
    (x, info.residual)
}

#[test]
fn the_parallel_and_simd_coloured_sweeps_give_the_bits_of_the_coloured_sweep_one_block_at_a_time() {
    // a bent chain of 20 000 particles (two colours of about 10 000 links: five tasks of 2048
    // each) and a 200 × 200 cloth (its 79 600 links in two runs, each run's share of a colour
    // above the 8192 blocks from which a colour is split); b with every sign
    let chain = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(20_000.0))]).unwrap();
    let cloth = scenes::find("cloth")
        .unwrap()
        .build_default(&[("width", Scalar::Num(200.0)), ("height", Scalar::Num(200.0))])
        .unwrap();
    for scene in [chain, cloth] {
        let mut q = scene.q0.clone();
        for (i, qi) in q.iter_mut().enumerate() {
            *qi += 0.01 * ((i * 13 % 7) as f64 - 3.0);
        }
        let mut jac = scene.system.jacobian_layout();
        scene.system.fill_jacobian(&q, &mut jac);
        let b: Vec<f64> = (0..jac.nrows()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
        // one block at a time on one thread: the reference
        let one = coloured_sweeps(&scene, &jac, &b, (false, false), 1);
        assert!(one.1.is_finite() && one.1 < 1.0, "{}", one.1);
        for (parallel, simd, threads) in
            [(false, true, 1), (true, false, 1), (true, false, 2), (true, true, 2), (true, true, 4)]
        {
            let par = coloured_sweeps(&scene, &jac, &b, (parallel, simd), threads);
            let how = format!("parallel {parallel}, simd {simd}, {threads} threads");
            assert!(par.0.iter().zip(&one.0).all(|(p, o)| p.to_bits() == o.to_bits()), "x with {how}");
            assert_eq!(par.1.to_bits(), one.1.to_bits(), "residual with {how}");
        }
    }
}

#[test]
fn a_hubs_overflow_group_is_swept_one_block_at_a_time_whatever_simd_says() {
    // 64 + 200 rods on one hub particle: the first 64 take a colour each, the other 200 all share
    // the hub's columns and go to the overflow group, above the 128 blocks from which a colour is
    // swept in lanes; in lanes its blocks would read and write the hub's u at once. (The tasks of
    // `parallel` skip the overflow group by the same test, from 8192 blocks: a hub that large
    // makes J W Jᵀ's pattern too large for this test.)
    let rods = 64 + 200;
    let mut text = String::from(
        "model: hub\nlength_scale: 1\nenergy_scale: {joules: 1, definition: one}\nbodies:\n  - {name: H, kind: particle2, mass: 1, position: [0, 0]}\n",
    );
    for i in 0..rods {
        let a = i as f64 * std::f64::consts::TAU / rods as f64;
        text += &format!("  - {{name: P{i}, kind: particle2, mass: 1, position: [{}, {}]}}\n", a.cos(), a.sin());
    }
    text += "joints:\n";
    for i in 0..rods {
        text += &format!("  - {{type: distance, a: H, b: P{i}}}\n");
    }
    let scene = tinkertoy::scene::model_file::from_text("hub.yaml", &text).unwrap().scene;
    let mut jac = scene.system.jacobian_layout();
    scene.system.fill_jacobian(&scene.q0, &mut jac);
    let b: Vec<f64> = (0..jac.nrows()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
    let one = coloured_sweeps(&scene, &jac, &b, (false, false), 1);
    assert!(one.1.is_finite(), "{}", one.1);
    let lanes = coloured_sweeps(&scene, &jac, &b, (false, true), 1);
    assert!(lanes.0.iter().zip(&one.0).all(|(p, o)| p.to_bits() == o.to_bits()), "x with simd");
    assert_eq!(lanes.1.to_bits(), one.1.to_bits(), "residual with simd");
}

#[test]
fn parallel_without_coloring_is_refused_with_the_field_named() {
    let table = tinkertoy::linsolve::registry::find("gauss_seidel").unwrap().params;
    let err = table.with("gauss_seidel", &[("parallel", Scalar::Bool(true))]).unwrap_err().to_string();
    assert!(err.contains("parallel") && err.contains("coloring"), "{err}");
    assert!(table.with("gauss_seidel", &[("parallel", Scalar::Bool(true)), ("coloring", Scalar::Bool(true))]).is_ok());
}

#[test]
fn forming_the_velocity_target_in_the_first_sweep_gives_the_bits_of_forming_it_first() {
    let (scene, mut jac, _) = chain_system();
    let mut q = scene.q0.clone();
    for (i, qi) in q.iter_mut().enumerate() {
        *qi += 0.01 * ((i * 13 % 7) as f64 - 3.0);
    }
    scene.system.fill_jacobian(&q, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let w = scene.system.inv_mass();
    let (n, m) = (jac.ncols(), jac.nrows());
    let v: Vec<f64> = (0..n).map(|i| ((i * 5 % 13) as f64 - 6.0) * 0.1).collect();
    let c: Vec<f64> = (0..m).map(|i| ((i * 3 % 7) as f64 - 3.0) * 1e-3).collect();
    let per_row: Vec<f64> = (0..m).map(|i| 0.01 * (i % 3) as f64).collect();
    let zero = vec![0.0; n];
    let mut cases = 0;
    for reg in [Reg::Uniform(0.0), Reg::Uniform(0.3), Reg::PerRow(&per_row)] {
        for (v, bias) in [(&v, Some((12.5, &c[..]))), (&v, None), (&zero, None)] {
            for (max_iter, tol) in [(1, 1e-300), (5, 1e-300), (5, 2.0)] {
                let op = Operator::Normal { jac: &jac, w, pattern: &pattern, reg };
                let target = VelocityTarget { v, bias };
                let stop = Stopping { tol, max_iter, require_convergence: false };
                let params = GaussSeidelParams {
                    stop,
                    omega: 1.0,
                    check_every: 1,
                    change_tol: 0.0,
                    coloring: false,
                    parallel: false,
                    simd: true,
                };
                // fused: a solve, then the same matrix again (the relax stage's solve_same)
                let (mut fused, mut plain) = (GaussSeidel::new(params), GaussSeidel::new(params));
                fused.prepare(&op).unwrap();
                plain.prepare(&op).unwrap();
                for same in [false, true] {
                    let (mut b1, mut x1) = (vec![0.0; m], vec![0.0; m]);
                    let i1 = fused.solve_velocity(&op, &target, &mut b1, &mut x1, same).unwrap();
                    let (mut b2, mut x2) = (vec![0.0; m], vec![0.0; m]);
                    target.form(&jac, &mut b2);
                    let i2 = if same { plain.solve_same(&op, &b2, &mut x2) } else { plain.solve(&op, &b2, &mut x2) }
                        .unwrap();
                    assert_eq!(b1, b2, "b: {reg:?} max_iter {max_iter} tol {tol} same {same}");
                    assert_eq!(x1, x2, "x: {reg:?} max_iter {max_iter} tol {tol} same {same}");
                    assert_eq!(i1, i2, "info: {reg:?} max_iter {max_iter} tol {tol} same {same}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 54);
    // a vanishing row is the same error, at the same row
    let mut flat = jac.clone();
    flat.constraint_values_mut(3).fill(0.0);
    let op = Operator::Normal { jac: &flat, w, pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut s = solver(3, 1, 0.0);
    s.prepare(&op).unwrap();
    let (mut b, mut x) = (vec![0.0; m], vec![0.0; m]);
    let fused = s.solve_velocity(&op, &VelocityTarget { v: &v, bias: None }, &mut b, &mut x, false).unwrap_err();
    let mut x = vec![0.0; m];
    let plain = s.solve(&op, &b, &mut x).unwrap_err();
    assert_eq!(fused.to_string(), plain.to_string());
}
