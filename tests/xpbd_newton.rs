//! XPBD with full Newton steps (`newton = 1`) and the envelope LDLᵀ solver.
//!
//! - A converged Newton step solves Macklin et al. 2016 eq. 8 exactly: C(q) = 0 and the
//!   stationarity M(q − q̃) = J(q)ᵀλ, checked from outside the stepper by a least-squares fit of λ.
//!   Plain XPBD (Gauss–Newton without the residual g) stops at a point that satisfies C = 0 but not
//!   the stationarity — the approximation `newton = 1` removes.
//! - The long-chain challenge: 1000 links, h = 1/60 s, 5 s, one substep of at most 3 Newton
//!   iterations: every link within 1e-6 m; XPBD with the same budget of solves blows up.
//! - `extrapolate` (the iterations start from q̃ plus the previous step's correction) lands on
//!   the same step as the start from q̃, and needs fewer solves on the long chain.
//! - `envelope_ldlt` finds the band of a chain whose constraints are listed in shuffled order
//!   (reverse Cuthill–McKee) and solves it like the sparse Cholesky.
//! - The convergence test's one-pass max |C + reg λ| is the largest over the constraint rows, to
//!   the bit, on every built-in scene without contact.

use nalgebra::{DMatrix, DVector};
use tinkertoy::constraint::{Distance, Pin};
use tinkertoy::experiment::{CellSpec, Status, run};
use tinkertoy::formulation::{Dynamics, registry as formulations};
use tinkertoy::integrator::Control;
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::linsolve::{EnvelopeLdlt, LinearSolver, Operator, Reg, SparseCholesky};
use tinkertoy::model::Body;
use tinkertoy::params::Scalar;
use tinkertoy::scene::Scene;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::{BlockJacobian, NormalMatrix};
use tinkertoy::system::System;

/// One step of `formulation` (`xpbd` or `xpbd_newton`) with the given parameters from (q, v) at
/// step h on a 3-link chain of unit masses; returns q̃ and the new q.
fn one_step(
    scene: &Scene,
    formulation: &str,
    params: &[(&str, Scalar)],
    q0: &[f64],
    v0: &[f64],
    h: f64,
) -> (Vec<f64>, Vec<f64>) {
    let f = formulations::find(formulation).unwrap();
    let s = solvers::find("sparse_cholesky").unwrap();
    let Dynamics::Stepper(mut st) =
        (f.build)(&f.params.with("f", params).unwrap(), scene, (s.build)(&s.params.defaults())).unwrap()
    else {
        panic!("xpbd is a stepper")
    };
    let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
    st.step(h, &mut q, &mut v).unwrap();
    // q̃ = q0 + h (v0 + h W Q), Q = gravity on unit masses
    let q_tilde: Vec<f64> = q0
        .iter()
        .zip(v0)
        .enumerate()
        .map(|(i, (x, u))| x + h * (u - if i % 2 == 1 { h * 9.81 } else { 0.0 }))
        .collect();
    (q_tilde, q)
}

/// (max |C(q)|, relative stationarity residual min_λ |M(q − q̃) − J(q)ᵀλ| / |M(q − q̃)|).
fn kkt_residuals(system: &System, q_tilde: &[f64], q: &[f64]) -> (f64, f64) {
    let (m, n) = (system.nrows(), system.ndof());
    let mut c = vec![0.0; m];
    system.eval_constraints(q, &mut c);
    let mut jac = system.jacobian_layout();
    system.fill_jacobian(q, &mut jac);
    let mut dense = vec![0.0; m * n];
    jac.to_dense(&mut dense);
    let j = DMatrix::from_column_slice(m, n, &dense);
    let r = DVector::from_iterator(n, q.iter().zip(q_tilde).zip(system.mass()).map(|((a, b), mk)| mk * (a - b)));
    // least squares Jᵀ λ ≈ r through the normal equations (J Jᵀ is 4 × 4 and well conditioned here)
    let lambda = (&j * j.transpose()).cholesky().unwrap().solve(&(&j * &r));
    let residual = (&r - j.transpose() * lambda).norm() / r.norm();
    (c.iter().fold(0.0f64, |a, x| a.max(x.abs())), residual)
}

#[test]
fn a_converged_newton_step_solves_macklin_eq_8_and_plain_xpbd_does_not() {
    // A bent 3-link chain, moving fast, and a large step: the links turn by ~0.5 rad in the step.
    let q0 = [0.0, 0.0, 0.1, -0.02, 0.19, -0.07, 0.26, -0.14];
    let v0 = [0.0, 0.0, 0.5, 1.0, -1.0, 2.0, 1.5, 3.0];
    let h = 1.0 / 30.0;
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(4.0))]).unwrap();
    let newton = [("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(30.0))];
    let (q_tilde, q) = one_step(&scene, "xpbd_newton", &newton, &q0, &v0, h);
    let (c, stationarity) = kkt_residuals(&scene.system, &q_tilde, &q);
    println!("newton: |C| = {c:.2e}, stationarity residual {stationarity:.2e}");
    // 30 quadratically convergent iterations: both residuals at rounding level
    assert!(c <= 1e-13, "newton: |C|inf = {c:e}");
    assert!(stationarity <= 1e-10, "newton: stationarity residual {stationarity:e}");

    let plain = [("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(30.0))];
    let (q_tilde, q) = one_step(&scene, "xpbd", &plain, &q0, &v0, h);
    let (c, stationarity) = kkt_residuals(&scene.system, &q_tilde, &q);
    println!("plain xpbd: |C| = {c:.2e}, stationarity residual {stationarity:.2e}");
    assert!(c <= 1e-10, "plain xpbd reaches C = 0 too: {c:e}");
    assert!(stationarity > 1e-6, "plain xpbd drops g, so its end point is not the projection: {stationarity:e}");
}

fn challenge(formulation: &str, formulation_params: &[(&str, Scalar)]) -> tinkertoy::experiment::RunResult {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(1000.0))]).unwrap();
    let spec = CellSpec::named(
        formulation,
        formulation_params,
        "envelope_ldlt",
        &[],
        None,
        Control::Fixed { h: 1.0 / 60.0 },
        5.0,
    )
    .unwrap()
    .sampled(1.0 / 60.0);
    run(&scene, &spec)
}

#[test]
fn newton_holds_the_1000_link_chain_within_1e_6_m_at_h_1_60() {
    let newton = challenge(
        "xpbd_newton",
        &[("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(3.0)), ("tol", Scalar::Num(3e-7))],
    );
    let s = &newton.summary;
    println!(
        "newton 1 x <=3: {:?}, max link error {:.2e} m, {} solves in {} steps",
        s.status, s.max_drift_position, s.counters.linear_solves, s.counters.steps
    );
    assert!(matches!(s.status, Status::Ok), "{:?}", s.status);
    assert!(s.max_drift_position <= 1e-6, "max link error {:e} m", s.max_drift_position);
    // The same budget of three solves per step without the geometric stiffness: Gauss–Newton
    // diverges where h² |λ| / (m ℓ) > 1 (the tension near the pivot).
    let plain = challenge("xpbd", &[("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(3.0))]);
    let p = &plain.summary;
    println!("plain xpbd 1 x 3: {:?}, max link error {:.2e} m", p.status, p.max_drift_position);
    assert!(!matches!(p.status, Status::Ok) || p.max_drift_position > 1e-2, "{:?}", p.status);
}

#[test]
fn envelope_ldlt_finds_the_band_of_a_shuffled_chain() {
    // 200 particles, a pin and 199 links added in a scrambled order: the natural order has a wide
    // envelope, reverse Cuthill–McKee recovers bandwidth 1 (envelope size m − 1).
    let n = 200;
    let mut system = System::new();
    let mut q = Vec::new();
    for i in 0..n {
        system.add_body(Body::particle2(1.0)).unwrap();
        let a = 0.3 * (i as f64 / n as f64);
        q.extend_from_slice(&[0.1 * i as f64 * a.cos(), -0.1 * i as f64 * a.sin()]);
    }
    let mut order: Vec<usize> = (1..n).collect();
    let len = order.len();
    for i in 0..len {
        order.swap(i, (i * 7919 + 13) % len); // a fixed scramble
    }
    for &i in &order[..order.len() / 2] {
        system.add_constraint(Box::new(Distance::between(i, i - 1, 2, 0.1))).unwrap();
    }
    system.add_constraint(Box::new(Pin::new(0, 2, [0.0; 3]))).unwrap();
    for &i in &order[order.len() / 2..] {
        system.add_constraint(Box::new(Distance::between(i, i - 1, 2, 0.1))).unwrap();
    }
    let mut jac = system.jacobian_layout();
    system.fill_jacobian(&q, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let m = op.dim();
    let mut env = EnvelopeLdlt::default();
    env.prepare(&op).unwrap();
    // the pin's two rows touch each other and link 1's row: one row of the envelope is 2 wide
    assert!(env.envelope_size() <= m, "envelope {} for {m} rows", env.envelope_size());
    let b: Vec<f64> = (0..m).map(|i| (i as f64 * 0.37).sin()).collect();
    let (mut x_env, mut x_chol) = (vec![0.0; m], vec![0.0; m]);
    let info = env.solve(&op, &b, &mut x_env).unwrap();
    let mut chol = SparseCholesky::default();
    chol.prepare(&op).unwrap();
    chol.solve(&op, &b, &mut x_chol).unwrap();
    let scale = x_chol.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let diff = x_env.iter().zip(&x_chol).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    println!(
        "envelope {} for {m} rows, residual {:.1e}, max diff {diff:.1e} (scale {scale:.1e})",
        env.envelope_size(),
        info.residual
    );
    assert!(info.residual <= 1e-12);
    assert!(diff <= 1e-10 * scale);
}

#[test]
fn every_direct_solver_takes_the_same_newton_steps() {
    // From rest the links far from the pin carry almost no tension: their stiffness terms must be
    // dropped (not turned into 1/s ≈ 1e16 on the diagonal), or the dense LU's pivot test calls
    // the matrix singular. All direct solvers then follow the same trajectory to rounding.
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(30.0))]).unwrap();
    let fp = [("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(3.0)), ("tol", Scalar::Num(1e-9))];
    let energies: Vec<(&str, f64)> = ["dense_lu", "dense_cholesky", "sparse_cholesky", "envelope_ldlt"]
        .iter()
        .map(|&solver| {
            let spec = CellSpec::named("xpbd_newton", &fp, solver, &[], None, Control::Fixed { h: 1.0 / 60.0 }, 1.0)
                .unwrap()
                .sampled(0.1);
            let r = run(&scene, &spec);
            assert!(matches!(r.summary.status, Status::Ok), "{solver}: {:?}", r.summary.status);
            assert!(r.summary.max_drift_position <= 1e-8, "{solver}: {:e}", r.summary.max_drift_position);
            (solver, r.summary.max_energy_error)
        })
        .collect();
    let e0 = energies[0].1;
    for (solver, e) in &energies {
        assert!((e - e0).abs() <= 1e-9 * e0, "{solver}: energy error {e} against dense_lu's {e0}");
    }
}

/// A stepper of `xpbd_newton` (one substep, `envelope_ldlt`) with the given parameters.
fn newton_stepper<'a>(scene: &'a Scene, params: &[(&str, Scalar)]) -> Box<dyn tinkertoy::formulation::Stepper + 'a> {
    let f = formulations::find("xpbd_newton").unwrap();
    let s = solvers::find("envelope_ldlt").unwrap();
    match (f.build)(&f.params.with("f", params).unwrap(), scene, (s.build)(&s.params.defaults())).unwrap() {
        Dynamics::Stepper(st) => st,
        _ => panic!("xpbd_newton is a stepper"),
    }
}

#[test]
fn the_extrapolated_start_lands_on_the_same_step_in_fewer_solves() {
    let scene =
        scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(100.0)), ("link", Scalar::Num(0.1))]).unwrap();
    let h = 1.0 / 60.0;
    // Same step: 30 steps of history give the extrapolating stepper a correction to start from
    // (the chain is falling and whipping by then); the next step from that state, solved to
    // tol 1e-12 m, by it and by a fresh stepper that starts from q̃ with λ = 0. Both are
    // Newton's converged solution of the same equations (Macklin's eq. 8), so they agree to the
    // tolerance times the step's sensitivity, far below the links' 0.1 m.
    let tight = |extrapolate: bool| {
        [
            ("substeps", Scalar::Num(1.0)),
            ("iterations", Scalar::Num(30.0)),
            ("tol", Scalar::Num(1e-12)),
            ("extrapolate", Scalar::Bool(extrapolate)),
        ]
    };
    let mut ext = newton_stepper(&scene, &tight(true));
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    for _ in 0..30 {
        ext.step(h, &mut q, &mut v).unwrap();
    }
    let (mut q_fresh, mut v_fresh) = (q.clone(), v.clone());
    ext.step(h, &mut q, &mut v).unwrap();
    newton_stepper(&scene, &tight(false)).step(h, &mut q_fresh, &mut v_fresh).unwrap();
    let dq = q.iter().zip(&q_fresh).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    println!("same step, extrapolated start and start from q~: max |dq| = {dq:.1e} m");
    assert!(dq <= 1e-9, "{dq:e} m");

    // Fewer solves: 5 s of the same chain at the challenge's tolerance, 3e-7 m.
    let cell = |extrapolate: bool| {
        let fp = [
            ("substeps", Scalar::Num(1.0)),
            ("iterations", Scalar::Num(30.0)),
            ("tol", Scalar::Num(3e-7)),
            ("extrapolate", Scalar::Bool(extrapolate)),
        ];
        let spec = CellSpec::named("xpbd_newton", &fp, "envelope_ldlt", &[], None, Control::Fixed { h }, 5.0)
            .unwrap()
            .sampled(0.05);
        let r = run(&scene, &spec).summary;
        assert!(matches!(r.status, Status::Ok), "{:?}", r.status);
        assert!(r.max_drift_position <= 3e-7, "{:e}", r.max_drift_position);
        r.counters.linear_solves
    };
    let (from_q_tilde, extrapolated) = (cell(false), cell(true));
    println!("solves in 300 steps: {from_q_tilde} from q~, {extrapolated} extrapolated");
    assert!(extrapolated < from_q_tilde, "{extrapolated} vs {from_q_tilde}");
}

#[test]
fn the_work_per_link_does_not_grow_from_1e3_to_1e5_links() {
    // The counters of the long-chain cell (one substep of at most 3 Newton iterations, tol 3e-7,
    // envelope LDLᵀ) over its first 6 steps at 10³, 10⁴ and 10⁵ links: the rows per link and the
    // envelope (the factorization's stored entries) per row, which fix a solve's work, within
    // 10 % of each other, and the Newton solves per step never more than at the smallest chain.
    // A superlinear step (an envelope that widens with N, more solves as the chain grows) fails.
    let params = [("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(3.0)), ("tol", Scalar::Num(3e-7))];
    let mut per_link = Vec::new();
    for n in [1_000usize, 10_000, 100_000] {
        let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(n as f64))]).unwrap();
        let spec =
            CellSpec::named("xpbd_newton", &params, "envelope_ldlt", &[], None, Control::Fixed { h: 1.0 / 60.0 }, 0.1)
                .unwrap()
                .sampled(0.1);
        let r = run(&scene, &spec);
        assert!(matches!(r.summary.status, Status::Ok), "n = {n}: {:?}", r.summary.status);
        let c = &r.summary.counters;
        let solves_per_step = c.linear_solves as f64 / c.steps as f64;
        // the stepper's own layout: the constraint rows and their geometric-stiffness rows
        let mut jac = scene.system.jacobian_layout_with_stiffness_rows();
        scene.system.fill_jacobian(&scene.q0, &mut jac);
        let pattern = NormalMatrix::new(&jac);
        let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
        let mut env = EnvelopeLdlt::default();
        env.prepare(&op).unwrap();
        let (rows, envelope) = (op.dim() as f64, env.envelope_size() as f64);
        println!(
            "n = {n}: {solves_per_step:.3} solves per step, {:.3} rows per link, envelope {:.3} per row",
            rows / n as f64,
            envelope / rows
        );
        per_link.push((rows / n as f64, envelope / rows, solves_per_step));
    }
    let spread = |f: fn(&(f64, f64, f64)) -> f64| {
        let v: Vec<f64> = per_link.iter().map(f).collect();
        v.iter().cloned().fold(f64::MIN, f64::max) / v.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert!(spread(|p| p.0) <= 1.1, "rows per link {per_link:?}");
    assert!(spread(|p| p.1) <= 1.1, "envelope per row {per_link:?}");
    assert!(per_link.iter().all(|p| p.2 <= per_link[0].2 && p.2 <= 3.0), "solves per step {per_link:?}");
}

/// Every built-in scene without contact at a state off its initial one (q0 + 0.01 sin(1.3 i)),
/// with its layout with stiffness rows and multipliers of both signs (cos(0.9 r)).
fn perturbed_states() -> impl Iterator<Item = (&'static scenes::SceneEntry, Scene, Vec<f64>, BlockJacobian, Vec<f64>)> {
    tinkertoy::scene::SCENES.iter().filter_map(|entry| {
        let scene = entry.build_small().unwrap();
        let sys = &scene.system;
        if sys.contacts().is_some() || sys.nrows() == 0 {
            return None;
        }
        let q: Vec<f64> = scene.q0.iter().enumerate().map(|(i, q)| q + 0.01 * (1.3 * i as f64).sin()).collect();
        let jac = sys.jacobian_layout_with_stiffness_rows();
        let lambda: Vec<f64> = (0..jac.nrows()).map(|r| (0.9 * r as f64).cos()).collect();
        Some((entry, scene, q, jac, lambda))
    })
}

/// The Newton step's convergence test, `System::max_constraint_residual` (one pass, C stored
/// nowhere, four running maxima), is max |C_r + reg λ_r| over the constraint rows of the layout
/// with stiffness rows, to the bit: on every built-in scene without contact (constraints of one
/// to six rows, in the plane and in space), off the scenes' initial states, with λ of both signs.
/// C comes from `eval_with_stiffness`, which writes it on the same rows.
#[test]
fn the_convergence_test_is_the_largest_c_plus_reg_lambda() {
    let mut rows_seen = std::collections::BTreeSet::new();
    for (entry, scene, q, mut jac, lambda) in perturbed_states() {
        let sys = &scene.system;
        let m = jac.nrows();
        let (mut c, mut s) = (vec![0.0; m], vec![0.0; m]);
        sys.eval_with_stiffness(&q, &lambda, &mut c, &mut s, &mut jac, |_, _| true, None);
        let offsets = sys.row_offsets();
        for reg in [0.0, 0.3] {
            let mut want = 0.0;
            for ci in 0..sys.constraints().len() {
                let rows = offsets.get(ci + 1).unwrap_or(&sys.nrows()) - offsets[ci];
                rows_seen.insert(rows);
                let r0 = jac.constraint_row0(ci);
                for r in r0..r0 + rows {
                    want = f64::max(want, (c[r] + reg * lambda[r]).abs());
                }
            }
            assert!(want > 0.0, "{}: nothing to compare", entry.name);
            assert_eq!(sys.max_constraint_residual(&q, &jac, &lambda, reg), want, "{} at reg {reg}", entry.name);
        }
    }
    assert!(rows_seen.len() >= 3, "constraints of too few shapes: {rows_seen:?}");
}

/// The system keeps its rods between two particles as plain data and evaluates them there in the
/// Newton step's two passes; this checks that store against the objects, to the bit: on every
/// built-in scene without contact, off the initial state, with λ of both signs (so the policy
/// below keeps some stiffness terms and drops others), C, J, the stiffness rows and their weights
/// from `eval_with_stiffness` equal each constraint's own `eval_with_stiffness` with the same
/// policy applied, the convergence test equals the fold over each constraint's own `eval`, and
/// the Bᵀλ it adds block by block in the same pass equals `BlockJacobian::mul_t`'s.
#[test]
fn the_rod_store_gives_the_objects_values_to_the_bit() {
    let keep = |s: f64, gwg: f64| s * gwg > 0.05;
    let mut rods = [0usize; 4];
    for (entry, scene, q, mut jac, lambda) in perturbed_states() {
        let sys = &scene.system;
        let m = jac.nrows();
        let (mut c, mut s, mut bt_lambda) = (vec![0.0; m], vec![0.0; m], vec![0.0; sys.ndof()]);
        sys.eval_with_stiffness(&q, &lambda, &mut c, &mut s, &mut jac, keep, Some(&mut bt_lambda));
        let mut want_bt = vec![0.0; sys.ndof()];
        jac.mul_t(&lambda, &mut want_bt);
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&bt_lambda), bits(&want_bt), "{}: B^T lambda", entry.name);
        let offsets = sys.row_offsets();
        let mut want_max = 0.0;
        for (ci, con) in sys.constraints().iter().enumerate() {
            if let Some((dim, _)) = con.particle_rod() {
                rods[dim] += 1;
            }
            let mut ql = [0.0; 14];
            let n = sys.gather_q(ci, &q, &mut ql);
            let rows = offsets.get(ci + 1).unwrap_or(&sys.nrows()) - offsets[ci];
            let (r0, k) = (jac.constraint_row0(ci), jac.constraint_rows(ci) - rows);
            let map = sys.local_map(ci);
            let mut vals = jac.constraint_values(ci).to_vec();
            let (mut cl, mut sl) = (vec![0.0; rows], vec![0.0; k]);
            let (jv, gv) = vals.split_at_mut(rows * map.len());
            con.eval_with_stiffness(&ql[..n], &lambda[r0..r0 + rows], &mut cl, jv, gv, &mut sl);
            for (row, sv) in gv.chunks_exact_mut(map.len()).zip(sl.iter_mut()) {
                let gwg: f64 = row.iter().zip(map).map(|(g, &i)| g * g * sys.inv_mass()[i as usize]).sum();
                if !keep(*sv, gwg) {
                    *sv = 0.0;
                    row.fill(0.0);
                }
            }
            let what = format!("{}: constraint {ci} ({})", entry.name, con.kind());
            assert_eq!(bits(&c[r0..r0 + rows]), bits(&cl), "{what}: C");
            assert_eq!(bits(jac.constraint_values(ci)), bits(&vals), "{what}: J and the stiffness rows");
            assert_eq!(bits(&s[r0 + rows..r0 + rows + k]), bits(&sl), "{what}: s");
            con.eval(&ql[..n], &mut cl);
            for (cr, l) in cl.iter().zip(&lambda[r0..]) {
                want_max = f64::max(want_max, (cr + 0.3 * l).abs());
            }
        }
        assert_eq!(sys.max_constraint_residual(&q, &jac, &lambda, 0.3), want_max, "{}", entry.name);
    }
    assert!(rods[2] > 0 && rods[3] > 0, "rods in the plane and in space: {rods:?}");
}
