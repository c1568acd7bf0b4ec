//! Formulation properties and seed reproductions (seeds 002 and 004, Witkin eq. 11 and 13).

use tinkertoy::constraint::{Line, Pin};
use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::formulation::Dynamics;
use tinkertoy::formulation::registry as formulations;
use tinkertoy::integrator::Control;
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::model::{Body, Force};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::scene::{EnergyScale, Scene};
use tinkertoy::system::System;

struct Cell<'a> {
    formulation: (&'a str, Vec<(String, Scalar)>),
    solver: (&'a str, Vec<(String, Scalar)>),
    integrator: Option<&'a str>,
    control: Control,
    duration: f64,
    interval: f64,
}

fn named(v: &[(String, Scalar)]) -> Vec<(&str, Scalar)> {
    v.iter().map(|(k, x)| (k.as_str(), *x)).collect()
}

fn go(scene: &Scene, c: Cell) -> RunResult {
    let (fp, sp) = (named(&c.formulation.1), named(&c.solver.1));
    let spec = CellSpec::named(c.formulation.0, &fp, c.solver.0, &sp, c.integrator, c.control, c.duration)
        .unwrap()
        .sampled(c.interval)
        .recording();
    run(scene, &spec)
}

/// Numeric parameter overrides.
fn p(pairs: &[(&str, f64)]) -> Vec<(String, Scalar)> {
    pairs.iter().map(|(k, v)| (k.to_string(), Scalar::Num(*v))).collect()
}

fn radius(q: &[f64]) -> f64 {
    q[0].hypot(q[1])
}

#[test]
fn seed_002_force_without_feedback_drifts_outward_at_h_1_60() {
    // Seed 002: unit bead on the unit circle, symplectic Euler, dt = 1/60, no feedback: "the
    // distance sadly stretches away". The radius must grow, and keep growing.
    let scene = scenes::find("bead").unwrap().build_default(&[]).unwrap();
    let r = go(
        &scene,
        Cell {
            formulation: ("force", vec![]),
            solver: ("dense_lu", vec![]),
            integrator: Some("symplectic_euler"),
            control: Control::Fixed { h: 1.0 / 60.0 },
            duration: 10.0,
            interval: 1.0,
        },
    );
    assert_eq!(r.summary.status.label(), "ok");
    let radii: Vec<f64> = r.samples.iter().map(|s| radius(&s.q)).collect();
    assert!(radii[1] > 1.0 && radii[5] > radii[1] && radii[10] > radii[5], "radius does not drift outward: {radii:?}");
    assert!(radii[10] - 1.0 > 1e-2, "drift after 10 s only {:.3e}", radii[10] - 1.0);
}

#[test]
fn seed_002_feedback_keeps_the_bead_within_1e_2_of_the_circle_at_h_1_600() {
    // Seed 002: ks = 1e2, kd = 1e-2 at dt = 1/600 over 10 s: "stays in the vicinity of 1".
    let scene = scenes::find("bead").unwrap().build_default(&[]).unwrap();
    let r = go(
        &scene,
        Cell {
            formulation: ("force", p(&[("ks", 1e2), ("kd", 1e-2)])),
            solver: ("dense_lu", vec![]),
            integrator: Some("symplectic_euler"),
            control: Control::Fixed { h: 1.0 / 600.0 },
            duration: 10.0,
            interval: 0.05,
        },
    );
    assert_eq!(r.summary.status.label(), "ok");
    let worst = r.samples.iter().map(|s| (radius(&s.q) - 1.0).abs()).fold(0.0f64, f64::max);
    assert!(worst <= 1e-2, "max | |p| - 1 | = {worst:.3e}");
    // Without feedback, the same step drifts further (the feedback is what holds it).
    let free = go(
        &scene,
        Cell {
            formulation: ("force", vec![]),
            solver: ("dense_lu", vec![]),
            integrator: Some("symplectic_euler"),
            control: Control::Fixed { h: 1.0 / 600.0 },
            duration: 10.0,
            interval: 0.05,
        },
    );
    let free_worst = free.samples.iter().map(|s| (radius(&s.q) - 1.0).abs()).fold(0.0f64, f64::max);
    assert!(free_worst > worst, "feedback {worst:.3e} vs none {free_worst:.3e}");
}

/// A particle under gravity held by one linear constraint, started off it.
fn linear_scene(pin: bool) -> Scene {
    let mut system = System::new();
    system.add_body(Body::particle2(2.0)).unwrap();
    system.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] }).unwrap();
    if pin {
        system.add_constraint(Box::new(Pin::new(0, 2, [0.3, -0.2, 0.0]))).unwrap();
    } else {
        system.add_constraint(Box::new(Line::new(0, 2, [0.0, 0.0, 0.0], [1.0, 0.5, 0.0]))).unwrap();
    }
    Scene {
        name: "linear".into(),
        system,
        q0: vec![0.1, 0.4],
        v0: vec![0.7, -0.2],
        reference: None,
        energy_scale: EnergyScale { joules: 1.0, definition: "1 J".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    }
}

#[test]
fn impulse_on_a_linear_constraint_obeys_c_next_equals_one_minus_beta_times_c() {
    // C⁺ = C + h J v⁺ and J v⁺ = −(β/h) C when the solve is exact, so C⁺ = (1 − β) C to rounding.
    for pin in [false, true] {
        let scene = linear_scene(pin);
        let beta = 0.3;
        let f = formulations::find("impulse").unwrap();
        let s = solvers::find("dense_lu").unwrap();
        let Dynamics::Stepper(mut stepper) = (f.build)(
            &f.params.with("f", &[("beta", Scalar::Num(beta))]).unwrap(),
            &scene,
            (s.build)(&s.params.defaults()),
        )
        .unwrap() else {
            panic!()
        };
        let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
        let m = scene.system.nrows();
        let (mut c0, mut c1) = (vec![0.0; m], vec![0.0; m]);
        for _ in 0..20 {
            scene.system.eval_constraints(&q, &mut c0);
            stepper.step(1.0 / 60.0, &mut q, &mut v).unwrap();
            scene.system.eval_constraints(&q, &mut c1);
            for (a, b) in c0.iter().zip(&c1) {
                // relative to the size of C; rounding in q (|q| ~ 1) allows ~1e-16 absolute.
                assert!((b - (1.0 - beta) * a).abs() <= 1e-12 * a.abs() + 1e-15, "pin={pin}: C {a:e} -> {b:e}");
            }
        }
    }
}

#[test]
fn force_and_lagrangian_agree_on_the_double_pendulum_with_dop853() {
    // Both solve the same mechanics exactly (eq. 11 on the constraint manifold, eq. 13 in angles);
    // with Dop853 at tol 1e-13 each is accurate to ~1e-11 over 1 s, so they agree to 1e-8.
    let scene = scenes::find("double_pendulum").unwrap().build_default(&[]).unwrap();
    let runs: Vec<RunResult> = ["force", "lagrangian"]
        .iter()
        .map(|f| {
            go(
                &scene,
                Cell {
                    formulation: (f, vec![]),
                    solver: ("dense_lu", vec![]),
                    integrator: Some("dop853"),
                    control: Control::Adaptive { rtol: 1e-13, atol: 1e-13 },
                    duration: 1.0,
                    interval: 0.25,
                },
            )
        })
        .collect();
    for (a, b) in runs[0].samples.iter().zip(&runs[1].samples) {
        let diff =
            a.q.iter().chain(&a.v).zip(b.q.iter().chain(&b.v)).map(|(x, y)| (x - y).abs()).fold(0.0f64, f64::max);
        assert!(diff <= 1e-8, "t = {}: force and lagrangian differ by {diff:.3e}", a.t);
    }
}

#[test]
fn impulse_gauss_seidel_converges_to_the_sparse_cholesky_step_as_iterations_grow() {
    // One impulse step of a bent 30-link chain: Gauss-Seidel (sequential impulses) with a fixed
    // sweep count approaches the exact solve monotonically (GS on SPD systems converges).
    let scene = scenes::find("chain").unwrap().build_with(&p(&[("n", 31.0)])).unwrap();
    let n = scene.system.ndof();
    let mut q0 = scene.q0.clone();
    let mut v0 = vec![0.0; n];
    for i in 1..31 {
        // bend into a consistent arc: link i at angle −0.05 i
        let a = -0.05 * i as f64;
        q0[2 * i] = q0[2 * i - 2] + 0.1 * a.cos();
        q0[2 * i + 1] = q0[2 * i - 1] + 0.1 * a.sin();
        v0[2 * i + 1] = -0.3 * i as f64 / 30.0;
    }
    let one_step = |solver: &str, params: Vec<(String, Scalar)>| {
        let f = formulations::find("impulse").unwrap();
        let s = solvers::find(solver).unwrap();
        let Dynamics::Stepper(mut st) = (f.build)(
            &f.params.with("f", &[("warm_start", Scalar::Bool(false))]).unwrap(),
            &scene,
            (s.build)(&(s.params.resolve)("s", &params).unwrap()),
        )
        .unwrap() else {
            panic!()
        };
        let (mut q, mut v) = (q0.clone(), v0.clone());
        st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
        v
    };
    let exact = one_step("sparse_cholesky", vec![]);
    let mut last = f64::INFINITY;
    let mut errs = vec![];
    for sweeps in [1.0, 4.0, 16.0, 64.0, 256.0, 4096.0] {
        let mut params = p(&[("max_iter", sweeps), ("tol", 1e-15)]);
        params.push(("require_convergence".into(), Scalar::Bool(false)));
        let v = one_step("gauss_seidel", params);
        let err = v.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0f64, f64::max);
        errs.push(err);
        assert!(err <= last, "error grew with more sweeps: {errs:?}");
        last = err;
    }
    assert!(last < 1e-9, "4096 sweeps still {last:.3e} from the direct solve: {errs:?}");
    assert!(errs[0] > 1e3 * last, "no convergence visible: {errs:?}");
}

#[test]
fn a_ten_thousand_link_chain_runs_impulse_sparse_cholesky_and_force_cg() {
    // Nothing dense: a 10⁴-row J W Jᵀ would be 800 MB dense; these paths assemble only the
    // sparse pattern (sparse_cholesky) or nothing at all (cg).
    let scene = scenes::find("chain").unwrap().build_with(&p(&[("n", 10_001.0)])).unwrap();
    let a = go(
        &scene,
        Cell {
            formulation: ("impulse", vec![]),
            solver: ("sparse_cholesky", vec![]),
            integrator: None,
            control: Control::Fixed { h: 1.0 / 60.0 },
            duration: 0.1,
            interval: 0.1,
        },
    );
    assert_eq!(a.summary.status.label(), "ok", "{:?}", a.summary.status);
    let b = go(
        &scene,
        Cell {
            formulation: ("force", p(&[("omega", 20.0)])),
            solver: ("cg", p(&[("max_iter", 1e6), ("tol", 1e-8)])),
            integrator: Some("symplectic_euler"),
            control: Control::Fixed { h: 1.0 / 600.0 },
            duration: 0.01,
            interval: 0.01,
        },
    );
    assert_eq!(b.summary.status.label(), "ok", "{:?}", b.summary.status);
}

#[test]
fn a_bead_on_the_incline_slides_with_acceleration_g_sin_alpha() {
    // s(t) = ½ g sin α t² along the wire, the normal force constant: the exact motion is
    // quadratic in t, which RK4 (order 4) integrates exactly up to rounding, so the bound is a
    // few ulps of the travelled distance (≈ 2.4 m) times the 100 steps.
    let alpha = 0.5;
    let scene = scenes::find("incline").unwrap().build_default(&[("angle", Scalar::Num(alpha))]).unwrap();
    for f in ["force", "lagrangian"] {
        let spec = CellSpec::named(f, &[], "dense_lu", &[], Some("rk4"), Control::Fixed { h: 0.01 }, 1.0).unwrap();
        let r = run(&scene, &spec.recording());
        // lagrangian: one slide coordinate along the wire (the line constraint as a prismatic joint).
        assert!(r.summary.status.is_ok(), "{f}: {:?}", r.summary.status);
        let q = &r.samples.last().unwrap().q;
        let s = (q[0] * q[0] + q[1] * q[1]).sqrt();
        let exact = 0.5 * 9.81 * alpha.sin();
        assert!((s - exact).abs() <= 1e-12, "{f}: s(1) = {s}, exact {exact}");
        assert!(q[1] < 0.0 && (q[1] / q[0] + alpha.tan()).abs() <= 1e-12, "off the wire: {q:?}");
    }
}

#[test]
fn a_tikhonov_term_lets_force_and_lagrangian_run_a_redundant_constraint() {
    // A pendulum held by its rod twice (two identical distance constraints): J W Jᵀ = [[a, a],
    // [a, a]] is singular and the rigid solves fail. With reg = eps the multiplier system is
    // (A + eps I) λ = b: the two rows share the rod's tension, λ_r = b / (2a + eps) each, and each
    // row's acceleration misses its target by eps λ_r (the bias the parameter states). With
    // eps = 1e-8 1/kg and λ_r up to half the rod's tension m g (3 − 2 cos θ₀) ≈ 9.4 N that is
    // ≤ 9.4e-8 m/s², which the feedback (ω = 10 rad/s) holds as a length error ≤ eps λ_r / ω²
    // ≈ 9.4e-10 m on top of the single rod's own (RK4) drift; the motion stays that of the
    // single rod to well within 1e-6 m over 2 s.
    use tinkertoy::constraint::Distance;
    use tinkertoy::model::{Body, Force};
    use tinkertoy::scene::{EnergyScale, Scene};
    use tinkertoy::system::System;
    let build = |twice: bool| {
        let mut system = System::new();
        system.add_body(Body::particle2(1.0)).unwrap();
        system.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] }).unwrap();
        system.add_constraint(Box::new(Distance::to_anchor(0, 2, [0.0; 3], 1.0))).unwrap();
        if twice {
            system.add_constraint(Box::new(Distance::to_anchor(0, 2, [0.0; 3], 1.0))).unwrap();
        }
        let a: f64 = 1.0;
        Scene {
            name: "redundant_pendulum".into(),
            system,
            q0: vec![a.sin(), -a.cos()],
            v0: vec![0.0, 0.0],
            reference: None,
            energy_scale: EnergyScale { joules: 9.81, definition: "m g L".into() },
            parametrization: None,
            branch: Vec::new(),
            outputs: vec![],
        }
    };
    let (single, double) = (build(false), build(true));
    for f in ["force", "lagrangian"] {
        let cell = |scene: &Scene, reg: f64| {
            let p = [("omega", Scalar::Num(10.0)), ("reg", Scalar::Num(reg))];
            let spec =
                CellSpec::named(f, &p, "dense_cholesky", &[], Some("rk4"), Control::Fixed { h: 1.0 / 240.0 }, 2.0)
                    .unwrap()
                    .sampled(0.05)
                    .recording();
            run(scene, &spec)
        };
        let rigid = cell(&double, 0.0);
        let soft = cell(&double, 1e-8);
        let reference = cell(&single, 0.0);
        assert_eq!(reference.summary.status.label(), "ok");
        assert_eq!(soft.summary.status.label(), "ok", "{f}: {:?}", soft.summary.status);
        let diff = soft
            .samples
            .iter()
            .zip(&reference.samples)
            .flat_map(|(a, b)| a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()))
            .fold(0.0_f64, f64::max);
        eprintln!(
            "{f}: rigid solve {}, with reg 1e-8: {diff:.2e} m from the single rod, length error {:.2e} m (single rod: {:.2e} m)",
            rigid.summary.status.label(),
            soft.summary.max_drift_position,
            reference.summary.max_drift_position
        );
        if f == "force" {
            assert_ne!(rigid.summary.status.label(), "ok");
        }
        assert!(diff <= 1e-6, "{f}: {diff:e}");
        let bias = 1e-8 * 9.81 * (3.0 - 2.0 * 1f64.cos()) / 2.0 / 100.0; // eps λ_r,max / ω²
        let bound = reference.summary.max_drift_position + 2.0 * bias;
        assert!(soft.summary.max_drift_position <= bound, "{f}: {:e} > {bound:e}", soft.summary.max_drift_position);
    }
}

/// The state and multipliers at t = 1 s of the pendulum (θ₀ = 1 rad) under `formulation` with
/// `params`, with the cell's solver `sparse_cholesky`.
fn state_at_one(
    formulation: &str,
    params: &[(&str, Scalar)],
    integrator: Option<&str>,
    control: Control,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    let spec = CellSpec::named(formulation, params, "sparse_cholesky", &[], integrator, control, 1.0)
        .unwrap()
        .recording()
        .bounded(1.0);
    let r = run(&scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{formulation} {params:?}: {:?}", r.summary.status);
    let last = r.samples.last().unwrap();
    assert!((last.t - 1.0).abs() < 1e-12);
    (last.q.clone(), last.v.clone(), last.lambda.clone())
}

/// Generalized-α and HHT-α on the index-3 pendulum, in the index-3 and the stabilized index-2
/// form: q, v and λ at t = 1 s all converge at order 2 — no order reduction in the multiplier
/// (Arnold & Brüls 2007, Theorem 2, for ρ∞ < 1; with the consistent q̈₀ the initial perturbation
/// they analyse is absent). Reference: `force` + Dop853 at
/// 1e-13 (its error ~1e-12 is far below the smallest error here, ~1e-6). Steps 1/200 to 1/800 s
/// are in the asymptotic range (the slope between the two smallest is asserted within ±0.1).
/// Printed, not asserted: with ρ∞ = 0 (α_m = −1) λ's slope is 1.10, 1.71, 1.88 over successive
/// halvings from h = 1/100 s — its asymptotic range starts later.
#[test]
fn generalized_alpha_is_second_order_in_q_v_and_lambda_on_the_index_3_pendulum() {
    let (qr, vr, lr) = state_at_one("force", &[], Some("dop853"), Control::Adaptive { rtol: 1e-13, atol: 1e-13 });
    let dist = |a: &[f64], b: &[f64]| a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    let variants: [&[(&str, Scalar)]; 4] = [
        &[("rho_inf", Scalar::Num(0.9))],
        &[("hht", Scalar::Bool(true)), ("rho_inf", Scalar::Num(0.7))],
        &[("rho_inf", Scalar::Num(0.9)), ("stabilized", Scalar::Bool(true))],
        &[("hht", Scalar::Bool(true)), ("rho_inf", Scalar::Num(0.7)), ("stabilized", Scalar::Bool(true))],
    ];
    let hs = [1.0 / 200.0, 1.0 / 400.0, 1.0 / 800.0];
    for params in variants {
        let mut errs = [[0.0; 3]; 3];
        for (k, &h) in hs.iter().enumerate() {
            let (q, v, l) = state_at_one("generalized_alpha", params, None, Control::Fixed { h });
            errs[0][k] = dist(&q, &qr);
            errs[1][k] = dist(&v, &vr);
            errs[2][k] = dist(&l, &lr);
        }
        for (what, e) in ["q", "v", "lambda"].iter().zip(&errs) {
            let p = tinkertoy::metrics::observed_order(&hs[1..], &e[1..]);
            eprintln!("generalized_alpha {params:?}: {what} errors {e:?}, order {p:.3}");
            assert!((p - 2.0).abs() <= 0.1, "{params:?}: {what} order {p:.3} (errors {e:?})");
        }
    }
    // Printed, not asserted: ρ∞ = 0 (α_m = −1), whose λ reaches its asymptotic range later.
    let (mut prev, mut prev_h) = (f64::NAN, f64::NAN);
    for h in [1.0 / 100.0, 1.0 / 200.0, 1.0 / 400.0, 1.0 / 800.0] {
        let (q, v, l) = state_at_one("generalized_alpha", &[("rho_inf", Scalar::Num(0.0))], None, Control::Fixed { h });
        let e = dist(&l, &lr);
        let p = tinkertoy::metrics::observed_order(&[prev_h, h], &[prev, e]);
        eprintln!(
            "generalized_alpha rho_inf = 0, h = {h}: q {:.3e}, v {:.3e}, lambda {e:.3e}, lambda slope {p:.3}",
            dist(&q, &qr),
            dist(&v, &vr)
        );
        (prev, prev_h) = (e, h);
    }
}

/// The stabilized index-2 form of generalized-α enforces J v = 0 at every step's end, the index-3
/// form only C = 0 (its J v error is the method's O(h²) velocity error). Pendulum θ₀ = 1 rad,
/// h = 1/50 s, 1 s. Bound: Newton stops when its last correction Δq is at most tol (1 + |q|) =
/// 2e-10 m; the velocity row was solved exactly in its linearization, so what is left of J v is
/// the change of J over that correction times v, |Δq|/L · |v| ≤ 2e-10 × 1.5 m/s (L = 1 m, |v| ≤
/// √(2 g L (1 − cos 1)) ≈ 3 m/s), within 1e-9 m/s.
#[test]
fn stabilized_generalized_alpha_keeps_the_velocity_constraint() {
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    let drift = |stabilized: bool| {
        let params = [("stabilized", Scalar::Bool(stabilized))];
        let spec = CellSpec::named(
            "generalized_alpha",
            &params,
            "sparse_cholesky",
            &[],
            None,
            Control::Fixed { h: 0.02 },
            1.0,
        )
        .unwrap();
        let r = run(&scene, &spec);
        assert_eq!(r.summary.status.label(), "ok");
        (r.summary.max_drift_position, r.summary.max_drift_velocity)
    };
    let (c3, v3) = drift(false);
    let (c2, v2) = drift(true);
    eprintln!("index-3: |C| {c3:.2e} m, |J v| {v3:.2e} m/s; stabilized: |C| {c2:.2e} m, |J v| {v2:.2e} m/s");
    assert!(c2 <= 1e-9 && c3 <= 1e-9, "{c2:e} {c3:e}");
    assert!(v2 <= 1e-9, "stabilized |J v| = {v2:e}");
    assert!(v3 > 1e3 * v2, "index-3 |J v| = {v3:e}: the stabilized form should be far tighter");
}

/// The index-3 form turns the rounding of C (~ε = 2.2e-16 m) into λ through β′ ~ 1/(β h²)
/// (Bottasso, Bauchau & Cardona 2007): on the pendulum (θ₀ = 1 rad, t = 1 s, m = 1 kg, L = 1 m)
/// λ's error stops falling with h and rises, about ε β′ L m = 9e-6 N at h = 1e-5 s. The
/// stabilized index-2 form solves for λ on J v = 0, scaled by γ′ ~ 1/h, and its λ error keeps its
/// order 2 (slope within ±0.1) down to 1e-5 s. Measured: index-3 2.9e-6 and 2.3e-5 N, stabilized
/// 6.3e-8 and 6.0e-10 N at h = 1e-4 and 1e-5 s.
#[test]
fn stabilized_generalized_alpha_multipliers_escape_the_index_3_rounding() {
    let (_, _, lr) = state_at_one("force", &[], Some("dop853"), Control::Adaptive { rtol: 1e-13, atol: 1e-13 });
    let hs = [1e-4, 1e-5];
    let err = |stabilized: bool| {
        hs.map(|h| {
            let (_, _, l) = state_at_one(
                "generalized_alpha",
                &[("stabilized", Scalar::Bool(stabilized))],
                None,
                Control::Fixed { h },
            );
            (l[0] - lr[0]).abs()
        })
    };
    let (e3, e2) = (err(false), err(true));
    let p = tinkertoy::metrics::observed_order(&hs, &e2);
    eprintln!("lambda errors at h = {hs:?}: index-3 {e3:?}, stabilized {e2:?} (order {p:.3})");
    assert!((p - 2.0).abs() <= 0.1, "stabilized lambda order {p:.3}");
    assert!(e3[1] > e3[0], "index-3 lambda error should grow below 1e-4 s: {e3:?}");
    assert!(e3[1] > 1e3 * e2[1], "{e3:?} against {e2:?}");
}

/// `radau5` on the pendulum as a DAE at fixed steps: the orders of Radau IIA (s = 3) on
/// constrained systems (Hairer & Wanner II, §VII.4, Theorem 4.10 and Table 4.3 for index 3;
/// §VII.3 for index 2): index 3, q (index 1) of order 2s − 1 = 5 and v (index 2) of order
/// s = 3; index 2, q and v (both index 1) of order 5. Measured at t = 1 s (θ₀ = 1 rad) at
/// h = 1/20, 1/40, 1/80 s against `force` + Dop853 at 1e-13; the slope between the two smallest
/// steps within ±0.1 of the theory (measured 4.981, 2.983; 5.000, 4.993).
#[test]
fn radau5_on_the_dae_has_the_orders_of_radau_iia_on_index_2_and_3() {
    let (qr, vr, _) = state_at_one("force", &[], Some("dop853"), Control::Adaptive { rtol: 1e-13, atol: 1e-13 });
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    let dist = |a: &[f64], b: &[f64]| a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    let hs = [1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0];
    for (index, expected) in [(3.0, [5.0, 3.0]), (2.0, [5.0, 5.0])] {
        let mut errs = [[0.0; 3]; 2];
        for (k, &h) in hs.iter().enumerate() {
            let f = formulations::find("dae").unwrap();
            let s = solvers::find("dense_lu").unwrap();
            let params = f.params.with("dae", &[("index", Scalar::Num(index))]).unwrap();
            let Dynamics::Ode(mut ode) = (f.build)(&params, &scene, (s.build)(&s.params.defaults())).unwrap() else {
                panic!()
            };
            let mut it = tinkertoy::integrator::radau5::Radau5::with_fixed_step(h);
            use tinkertoy::integrator::Integrator;
            it.prepare(ode.position_dim(), ode.dim());
            let (mut q, mut v) = (vec![0.0; ode.position_dim()], vec![0.0; ode.dim()]);
            ode.initial(&mut q, &mut v);
            for _ in 0..(1.0 / h).round() as usize {
                it.step(ode.as_mut(), &mut q, &mut v, f64::INFINITY).unwrap();
            }
            errs[0][k] = dist(&q, &qr);
            errs[1][k] = dist(&v, &vr);
        }
        for ((what, e), p_theory) in ["q", "v"].iter().zip(&errs).zip(expected) {
            let p = tinkertoy::metrics::observed_order(&hs[1..], &e[1..]);
            eprintln!("radau5 on the index-{index} DAE: {what} errors {e:?}, order {p:.3} (theory {p_theory})");
            assert!((p - p_theory).abs() <= 0.1, "index {index}: {what} order {p:.3} (errors {e:?})");
        }
    }
}
