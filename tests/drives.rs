//! Driving constraints C(q, t) = q_i − f(t) (`drives:` in model files): every formulation follows
//! a driven mechanism, including the ∂C/∂t and ∂²C/∂t² terms that time contributes.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::model_file;

/// The crank's prescribed angle: θ(t) = θ₀ + 2 t + 0.5 sin 3t (rate, amplitude, omega of the drive).
/// The linear solver of a cell: `sparse_cholesky` for the Cartesian formulations; `lagrangian`
/// solves a dense loop-closure system, which the sparse solvers do not take: `dense_cholesky`.
fn solver_for(formulation: &str) -> &'static str {
    if formulation == "lagrangian" { "dense_cholesky" } else { "sparse_cholesky" }
}

fn theta(t: f64) -> f64 {
    0.3 + 2.0 * t + 0.5 * (3.0 * t).sin()
}

/// A slider-crank (crank 1 m, rod 3 m, slider on the x axis) whose crank angle is driven by
/// `theta`, under gravity; declared poses a little off, for assembly to correct.
fn slider_crank() -> model_file::Model {
    model_file::from_text("driven_slider_crank.yaml", &slider_crank_text()).unwrap_or_else(|e| panic!("{e}"))
}

/// The text of [`slider_crank`]'s model.
fn slider_crank_text() -> String {
    let t0: f64 = 0.3;
    let (ax, ay) = (t0.cos(), t0.sin());
    let x0 = ax + (9.0 - ay * ay).sqrt();
    let phi = (-ay).atan2(x0 - ax);
    let text = format!(
        "model: driven_slider_crank
length_scale: 4
energy_scale: {{joules: 50, definition: \"50 J\"}}
bodies:
  - {{name: crank, kind: rigid2, mass: 1, inertia: 0.0833, position: [{:.3}, {:.3}], angle: 0.3}}
  - {{name: rod, kind: rigid2, mass: 2, inertia: 1.5, position: [{:.3}, {:.3}], angle: {phi:.3}}}
  - {{name: slider, kind: rigid2, mass: 0.5, inertia: 0.01, position: [{x0:.3}, 0], angle: 0}}
forces:
  - {{type: gravity, g: [0, -9.81]}}
joints:
  - {{type: revolute, a: crank, local_a: [-0.5, 0], b: world, local_b: [0, 0]}}
  - {{type: revolute, a: crank, local_a: [0.5, 0], b: rod, local_b: [-1.5, 0]}}
  - {{type: revolute, a: rod, local_a: [1.5, 0], b: slider, local_b: [0, 0]}}
  - {{type: prismatic, a: slider, axis: [1, 0], at: [{x0:.3}, 0]}}
drives:
  - {{coordinate: crank.angle, start: 0.3, rate: 2, amplitude: 0.5, omega: 3}}
outputs:
  - {{name: sx, value: slider.x}}
",
        ax / 2.0,
        ay / 2.0,
        (ax + x0) / 2.0,
        ay / 2.0
    );
    text
}

/// The slider's exact x for crank angle θ: r cos θ + √(l² − r² sin² θ) with r = 1, l = 3.
fn slider_x(t: f64) -> f64 {
    let th = theta(t);
    th.cos() + (9.0 - th.sin().powi(2)).sqrt()
}

fn cell(
    m: &model_file::Model,
    f: &str,
    p: &[(&str, f64)],
    integrator: Option<&str>,
    control: Control,
    t: f64,
) -> RunResult {
    let params: Vec<(&str, Scalar)> = p.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
    let spec = CellSpec::named(f, &params, solver_for(f), &[], integrator, control, t)
        .unwrap()
        .sampled(0.1)
        .bounded(m.length_scale)
        .observing(&m.scene, &["sx"])
        .unwrap()
        .probing(&(1..=20).map(|k| k as f64 * 0.1).collect::<Vec<_>>());
    run(&m.scene, &spec)
}

/// (formulation, its parameters, integrator, step control).
type Case<'a> = (&'a str, Vec<(&'a str, f64)>, Option<&'a str>, Control);

#[test]
fn a_driven_slider_crank_follows_its_drive_in_every_formulation() {
    let m = slider_crank();
    // The drive adds the clock (the fourth body) and one row; assembly moved the declared poses.
    assert_eq!(m.scene.system.bodies().len(), 4);
    assert_eq!(m.scene.system.nrows(), 2 + 2 + 2 + 2 + 1);
    assert!(m.assembly.moved_position > 1e-4 && m.assembly.residual_after < 1e-12, "{}", m.assembly);
    // Zero degrees of freedom are left: the slider's place is fixed by the crank angle, so its
    // distance from the exact x(t) is at most the constraint violation times the linkage's gain
    // (|dx/dC| ≲ 3 for these lengths; 10 is the bar), plus the probe's rounding.
    let fixed = |h: f64| Control::Fixed { h };
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        ("force", vec![("omega", 20.0)], Some("rk4"), fixed(1e-3)),
        ("force", vec![("omega", 20.0)], Some("dop853"), Control::Adaptive { rtol: 1e-10, atol: 1e-10 }),
        ("impulse", vec![], None, fixed(1e-3)),
        ("rattle", vec![], None, fixed(1e-3)),
        ("midpoint", vec![], None, fixed(1e-3)),
        ("xpbd", vec![], None, fixed(1e-3)),
        ("xpbd_newton", vec![], None, fixed(1e-3)),
        ("soft_step", vec![], None, fixed(1e-3)),
        ("lagrangian", vec![("omega", 20.0)], Some("rk4"), fixed(1e-3)),
        ("lagrangian", vec![("omega", 20.0)], Some("dop853"), Control::Adaptive { rtol: 1e-10, atol: 1e-10 }),
    ];
    for (f, p, i, control) in cases {
        let r = cell(&m, f, &p, i, control, 2.0);
        let s = &r.summary;
        let worst =
            r.probes.iter().enumerate().map(|(k, x)| (x[0] - slider_x((k + 1) as f64 * 0.1)).abs()).fold(0.0, f64::max);
        println!(
            "{f} {p:?} {i:?}: {}, max |C| {:.2e}, slider off by at most {worst:.2e} m",
            s.status.label(),
            s.max_drift_position
        );
        assert_eq!(s.status.label(), "ok", "{f}: {:?}", s.status);
        assert_eq!(r.probes.len(), 20);
        // The clock sums its steps: s − t ≤ steps · ε · t, moving the slider by at most that
        // times its speed (|ẋ| ≤ |θ̇| (r + r² / √(l² − r²)) ≤ 3.5 · 1.36 < 5 m/s).
        let clock = s.counters.steps as f64 * f64::EPSILON * 2.0 * 5.0;
        assert!(
            worst <= 10.0 * s.max_drift_position + clock,
            "{f}: {worst:.2e} vs |C| {:.2e}, clock {clock:.1e}",
            s.max_drift_position
        );
        assert!(worst <= 1e-3, "{f}: {worst:.2e}");
    }
}

/// A pendulum (L = 1 m) hanging from a support driven sideways, x(t) = A sin ωt: one free
/// coordinate whose dynamics feel the drive's acceleration, φ'' = −(g/L) sin φ + (A ω²/L) sin(ωt)
/// cos φ (φ from the downward vertical).
const SHAKEN: &str = "model: shaken_pendulum
length_scale: 1
energy_scale: {joules: 10, definition: \"10 J\"}
bodies:
  - {name: support, kind: particle2, mass: 1, position: [0, 0]}
  - {name: bob, kind: particle2, mass: 1, position: [0.5, -0.8660254037844386]}
forces:
  - {type: gravity, g: [0, -9.81]}
joints:
  - {type: distance, a: support, b: bob}
drives:
  - {coordinate: support.x, amplitude: 0.2, omega: 5}
  - {coordinate: support.y}
outputs:
  - {name: bx, value: bob.x}
assemble:
  keep_velocity: [bob.x]
";

/// The reduced equation of the shaken pendulum by classical RK4 with `n` steps (written out here,
/// independently of the library): bob x at `t`.
fn shaken_reference(t: f64, n: usize) -> f64 {
    let f = |t: f64, y: [f64; 2]| [y[1], -9.81 * y[0].sin() + 0.2 * 25.0 * (5.0 * t).sin() * y[0].cos()];
    // φ(0) = π/6; the bob starts at rest in x while the support moves at A ω = 1 m/s (the velocity
    // assembly keeps the bob's x velocity 0): L φ'(0) cos φ + 1 = 0.
    let phi0 = std::f64::consts::FRAC_PI_6;
    let (mut y, h) = ([phi0, -1.0 / phi0.cos()], t / n as f64);
    for k in 0..n {
        let tk = k as f64 * h;
        let k1 = f(tk, y);
        let k2 = f(tk + h / 2.0, [y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
        let k3 = f(tk + h / 2.0, [y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
        let k4 = f(tk + h, [y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    0.2 * (5.0 * t).sin() + y[0].sin()
}

#[test]
fn a_shaken_pendulum_feels_the_drive_acceleration() {
    let m = model_file::from_text("shaken.yaml", SHAKEN).unwrap_or_else(|e| panic!("{e}"));
    // RK4 at 1e-4 s and 2e-4 s differ by 15/16 of the coarse one's error: the fine one is
    // within a fifteenth of that difference.
    let (want, coarse) = (shaken_reference(2.0, 20_000), shaken_reference(2.0, 10_000));
    let bound = (want - coarse).abs() / 15.0;
    println!("reference bob x at 2 s: {want:.15}, error bound {bound:.1e} m");
    assert!(bound < 1e-12);
    // The bob's x at 2 s by one cell.
    let bob_x = |f: &str, params: &[(&str, Scalar)], integrator: Option<&str>, control: Control| {
        let spec = CellSpec::named(f, params, solver_for(f), &[], integrator, control, 2.0)
            .unwrap()
            .sampled(0.1)
            .observing(&m.scene, &["bx"])
            .unwrap()
            .probing(&[2.0]);
        let r = run(&m.scene, &spec);
        assert_eq!(r.summary.status.label(), "ok", "{f}");
        r.probes[0][0]
    };
    let control = Control::Adaptive { rtol: 1e-11, atol: 1e-11 };
    let got = bob_x("force", &[("omega", Scalar::Num(20.0))], Some("dop853"), control);
    println!("bob x at 2 s: {got:.15} vs the reduced equation {want:.15}: {:.2e} m", (got - want).abs());
    // Dop853 at 1e-11 over 2 s of a smooth problem: 1e-9 m; a missing ∂²C/∂t² term would be off
    // by the drive's acceleration (A ω² = 5 m/s²) integrated: tenths of a metre.
    assert!((got - want).abs() <= 1e-9, "{got} vs {want}");
    // RATTLE at h = 1e-3 s: second order, error ≈ h² ω² × swing ≈ 1e-6 · 25 · 0.5 ≈ 1.3e-5 m.
    // Joint coordinates (the bob on its rod as one angle, the support driven through the clock
    // carried beside it) at the same tolerance.
    let got = bob_x("lagrangian", &[("omega", Scalar::Num(20.0))], Some("dop853"), control);
    println!("lagrangian: {got:.15}: {:.2e} m", (got - want).abs());
    assert!((got - want).abs() <= 1e-9, "{got} vs {want}");
    let got = bob_x("rattle", &[], None, Control::Fixed { h: 1e-3 });
    println!("rattle h = 1e-3: {:.2e} m", (got - want).abs());
    assert!((got - want).abs() <= 2e-5);
}

/// Two bars hinged to the world and to each other, the elbow driven by a motor: the relative
/// angle follows θ_B − θ_A = 1 t + 0.3 sin 2t (from 0), the shoulder swings freely under gravity.
const ELBOW: &str = include_str!("data/elbow_motor.yaml");

#[test]
fn an_elbow_motor_drives_the_relative_angle_of_two_moving_links() {
    let m = model_file::from_text("elbow.yaml", ELBOW).unwrap_or_else(|e| panic!("{e}"));
    let f = |t: f64| t + 0.3 * (2.0 * t).sin();
    let probe = |formulation: &str, p: &[(&str, f64)], integrator: Option<&str>, control: Control| {
        let params: Vec<(&str, Scalar)> = p.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
        // pgs brings its own projected Gauss-Seidel sweep
        let solver = if formulation == "pgs" { "gauss_seidel" } else { solver_for(formulation) };
        let spec = CellSpec::named(formulation, &params, solver, &[], integrator, control, 2.0)
            .unwrap()
            .sampled(0.1)
            .observing(&m.scene, &["elbow", "shoulder"])
            .unwrap()
            .probing(&(1..=20).map(|k| k as f64 * 0.1).collect::<Vec<_>>());
        let r = run(&m.scene, &spec);
        assert_eq!(r.summary.status.label(), "ok", "{formulation}: {:?}", r.summary.status);
        let elbow =
            r.probes.iter().enumerate().map(|(k, x)| (x[0] - f((k + 1) as f64 * 0.1)).abs()).fold(0.0, f64::max);
        (elbow, r.summary.max_drift_position, r.probes[19][1])
    };
    let tight = Control::Adaptive { rtol: 1e-11, atol: 1e-11 };
    let (e_force, c_force, s_force) = probe("force", &[("omega", 20.0)], Some("dop853"), tight);
    let (e_lag, c_lag, s_lag) = probe("lagrangian", &[("omega", 20.0)], Some("dop853"), tight);
    let (e_rattle, c_rattle, s_rattle) = probe("rattle", &[], None, Control::Fixed { h: 1e-3 });
    // pgs: the drive's row touches three bodies (A, B and the clock) — it once indexed a
    // two-body row with them and panicked
    let (e_pgs, c_pgs, s_pgs) = probe("pgs", &[], None, Control::Fixed { h: 1e-3 });
    println!(
        "force: elbow off f(t) by {e_force:.2e} (|C| {c_force:.2e}); lagrangian {e_lag:.2e} (|C| {c_lag:.2e}); rattle {e_rattle:.2e} (|C| {c_rattle:.2e}); pgs {e_pgs:.2e} (|C| {c_pgs:.2e})"
    );
    println!("shoulder at 2 s: force {s_force:.12}, lagrangian {s_lag:.12}, rattle {s_rattle:.12}, pgs {s_pgs:.12}");
    // The elbow row is one of C: the relative angle is off f(t) by at most the drift.
    for (e, c) in [(e_force, c_force), (e_lag, c_lag), (e_rattle, c_rattle), (e_pgs, c_pgs)] {
        assert!(e <= c + 1e-12, "{e:.2e} vs {c:.2e}");
    }
    // The free shoulder, which the motor's reaction swings: Cartesian coordinates with multipliers
    // and joint coordinates agree to their tolerance (1e-11 over 2 s: 1e-8 rad), RATTLE to its
    // second order at h = 1e-3 (≈ h² × the motion's rates squared ≈ 1e-4 rad).
    assert!((s_force - s_lag).abs() <= 1e-8, "{s_force} vs {s_lag}");
    assert!((s_rattle - s_lag).abs() <= 1e-4, "{s_rattle} vs {s_lag}");
    // pgs is first order (symplectic-Euler-like): ≈ h × the motion's rates (a few per second)
    // over 2 s ≈ 1e-2 rad.
    assert!((s_pgs - s_lag).abs() <= 1e-2, "{s_pgs} vs {s_lag}");
}

#[test]
fn the_drive_clock_is_the_counted_time_not_a_sum_of_steps() {
    // Regression: the clock coordinate s was integrated like any other, so after 3·10⁵ RK4 steps
    // of 1e-5 s it read 3 + 2.6e-11, an error floor under every driven model. With fixed steps
    // it is now set to the counted time n h after every step: s equals the sample's time to the
    // bit, and s(3) is 3 to rounding, for an ODE formulation (the clock in x) and a stepper (in q).
    let m = slider_crank();
    let clock = m.scene.system.clock_q_index().expect("a driven model has a clock");
    for (f, p, integrator) in [("force", vec![("omega", 10.0)], Some("rk4")), ("impulse", vec![], None)] {
        let params: Vec<(&str, Scalar)> = p.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
        let spec = CellSpec::named(f, &params, solver_for(f), &[], integrator, Control::Fixed { h: 1e-5 }, 3.0)
            .unwrap()
            .sampled(1.0)
            .recording();
        let r = run(&m.scene, &spec);
        assert_eq!(r.summary.status.label(), "ok", "{f}");
        for s in &r.samples {
            assert_eq!(s.q[clock], s.t, "{f}: s − t = {:.3e} at t = {}", s.q[clock] - s.t, s.t);
        }
        // n h = 300000 × 1e-5 is 3 + 1 ulp in floating point: the counted time itself.
        let end = r.samples.last().unwrap().q[clock];
        assert!((end - 3.0).abs() <= 2.0 * 3.0 * f64::EPSILON, "{f}: s(3) − 3 = {:.3e}", end - 3.0);
    }
}

/// The slider-crank's drive written as an expression and as a table (θ sampled every 0.01 s on
/// [0, 2.5] s, natural cubic spline): both follow the exact slider. The expression is the same
/// f(t) as the harmonic drive, so only rounding separates them; the spline's own error is of the
/// order of (5/384) h⁴ max|θ⁗| = (5/384) 1e-8 · 40.5 ≈ 5.3e-9 rad (its natural end condition
/// θ″ = 0 holds at t = 0; the wrong one at 2.5 s is past the run's 2 s), which the linkage's gain
/// (≤ 10) turns into at most 5.3e-8 m (measured: 9.2e-10 m).
#[test]
fn a_drive_given_as_an_expression_or_a_table_follows_the_same_crank() {
    let harmonic = slider_crank();
    let knots: Vec<f64> = (0..=250).map(|k| k as f64 * 0.01).collect();
    let values: Vec<String> = knots.iter().map(|&t| format!("{:.17e}", theta(t))).collect();
    let times: Vec<String> = knots.iter().map(|t| format!("{t}")).collect();
    let base = slider_crank_text();
    let expression = base.replace(
        "{coordinate: crank.angle, start: 0.3, rate: 2, amplitude: 0.5, omega: 3}",
        "{coordinate: crank.angle, function: \"0.3 + 2*t + 0.5*sin(3*t)\"}",
    );
    let table = base.replace(
        "{coordinate: crank.angle, start: 0.3, rate: 2, amplitude: 0.5, omega: 3}",
        &format!("{{coordinate: crank.angle, table: {{t: [{}], value: [{}]}}}}", times.join(", "), values.join(", ")),
    );
    let control = Control::Adaptive { rtol: 1e-10, atol: 1e-10 };
    let worst = |m: &model_file::Model| {
        let r = cell(m, "force", &[("omega", 20.0)], Some("dop853"), control, 2.0);
        assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
        r.probes.iter().enumerate().map(|(k, x)| (x[0] - slider_x((k + 1) as f64 * 0.1)).abs()).fold(0.0, f64::max)
    };
    let h = worst(&harmonic);
    let e = worst(&model_file::from_text("expression.yaml", &expression).unwrap_or_else(|e| panic!("{e}")));
    let t = worst(&model_file::from_text("table.yaml", &table).unwrap_or_else(|e| panic!("{e}")));
    println!("slider off by: harmonic {h:.2e}, expression {e:.2e}, table {t:.2e} m");
    assert!((e - h).abs() <= 1e-9, "{e:.3e} vs {h:.3e}");
    assert!(t <= h + 5.3e-8, "{t:.3e} vs {h:.3e}");
    // A table that ends at 1 s cannot drive a 2 s run: the cell fails at the table's end.
    let short = base.replace(
        "{coordinate: crank.angle, start: 0.3, rate: 2, amplitude: 0.5, omega: 3}",
        &format!(
            "{{coordinate: crank.angle, table: {{t: [{}], value: [{}]}}}}",
            times[..=100].join(", "),
            values[..=100].join(", ")
        ),
    );
    let m = model_file::from_text("short.yaml", &short).unwrap_or_else(|e| panic!("{e}"));
    let r = cell(&m, "force", &[("omega", 20.0)], Some("dop853"), control, 2.0);
    let end = match &r.summary.status {
        tinkertoy::experiment::Status::Diverged { t, .. } | tinkertoy::experiment::Status::Failed { t, .. } => *t,
        other => panic!("{other:?}"),
    };
    assert!((0.9..=1.0 + 1e-9).contains(&end), "{:?}", r.summary.status);
}

/// A named drive's multiplier is the force it applies, a named joint's its reaction: a 2 kg cart
/// driven along x by x(t) = t² (an expression), a 1 kg bob hanging from it on a rod. At t = 0 the
/// bob hangs at rest straight below, so the rod pulls only along y: the push is m_cart ẍ = 4 N and
/// the tension the bob's weight, 9.81 N (outputs `push` = motor.lambda, `tension` = −rod.lambda).
#[test]
fn a_named_drive_outputs_the_force_it_applies() {
    let text = "model: pushed
length_scale: 10
energy_scale: {joules: 10, definition: \"10 J\"}
bodies:
  - {name: cart, kind: particle2, mass: 2, position: [0, 0]}
  - {name: bob, kind: particle2, mass: 1, position: [0, -1]}
forces:
  - {type: gravity, g: [0, -9.81]}
joints:
  - {name: rod, type: distance, a: cart, b: bob}
drives:
  - {name: motor, coordinate: cart.x, function: \"t^2\"}
  - {coordinate: cart.y}
outputs:
  - {name: push, value: motor.lambda}
  - {name: tension, value: -1 * rod.lambda}
";
    let m = model_file::from_text("pushed.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.scene.outputs[0].unit, "N");
    let control = Control::Adaptive { rtol: 1e-12, atol: 1e-12 };
    let spec = CellSpec::named("force", &[], "dense_lu", &[], Some("dop853"), control, 1.0)
        .unwrap()
        .sampled(0.1)
        .observing(&m.scene, &["push", "tension"])
        .unwrap();
    let r = run(&m.scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    // The push is m_cart ẍ minus the rod's x force on the cart.
    let first = &r.samples[0];
    assert!(first.outputs[0].is_finite() && first.outputs[1] > 0.0, "{:?}", first.outputs);
    // At t = 0 the bob hangs straight below at rest: the rod is vertical, its x force is zero,
    // and the push is m_cart · 2 = 4 N exactly (to the solve's rounding).
    assert!((first.outputs[0] - 4.0).abs() < 1e-9, "{}", first.outputs[0]);
    // The tension at t = 0 is the bob's weight (it is at rest, no centripetal term).
    assert!((first.outputs[1] - 9.81).abs() < 1e-9, "{}", first.outputs[1]);
}

/// A hinge's angle driven in space (`coordinate: JOINT.angle` on a hinge to the world): a body
/// with principal inertias (0.1, 0.2, 0.3) kg m² turned about the tilted axis n = (1, 2, 2)/3
/// through its centre by θ(t) = t²/2. About a fixed axis through the centre of mass the
/// gyroscopic term has no component along n, so the motor's torque is exactly nᵀ I n θ̈ =
/// 2.1/9 N m at every t, and the rate about n is θ̇ = t.
#[test]
fn a_hinge_driven_in_space_turns_as_prescribed_with_the_torque_of_its_inertia() {
    let text = "model: turned
length_scale: 1
energy_scale: {joules: 1, definition: \"1 J\"}
bodies:
  - {name: rotor, kind: rigid3, mass: 1, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0]}
joints:
  - {name: axle, type: hinge, a: rotor, b: world, at: [0, 0, 0], axis: [1, 2, 2]}
drives:
  - {name: motor, coordinate: axle.angle, function: \"0.5 * t^2\"}
outputs:
  - {name: torque, value: motor.lambda}
  - {name: rate, value: 0.33333333333333333 * rotor.wx + 0.66666666666666667 * rotor.wy + 0.66666666666666667 * rotor.wz}
";
    // The angle is the body's relative to the world, whichever side the file names the world
    // (a model file puts the body first).
    let swapped = text.replace("a: rotor, b: world", "a: world, b: rotor");
    for text in [text, swapped.as_str()] {
        turned(text);
    }
}

/// The rotor of [`a_hinge_driven_in_space_turns_as_prescribed_with_the_torque_of_its_inertia`]:
/// its torque and its rate t about n.
fn turned(text: &str) {
    let m = model_file::from_text("turned.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.scene.outputs[0].unit, "N m");
    let control = Control::Adaptive { rtol: 1e-12, atol: 1e-12 };
    let spec = CellSpec::named("force", &[], "dense_lu", &[], Some("dop853"), control, 2.0)
        .unwrap()
        .sampled(0.5)
        .observing(&m.scene, &["torque", "rate"])
        .unwrap();
    let r = run(&m.scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    let exact = 2.1 / 9.0;
    for s in &r.samples {
        println!("t = {}: torque {:.15}, rate {:.15}", s.t, s.outputs[0], s.outputs[1]);
        // The sign of a multiplier follows the row (C = sin(θ − f)): its magnitude is the torque.
        assert!((s.outputs[0].abs() - exact).abs() <= 1e-9, "t = {}: {}", s.t, s.outputs[0]);
        assert!((s.outputs[1] - s.t).abs() <= 1e-9, "t = {}: rate {}", s.t, s.outputs[1]);
    }
}
