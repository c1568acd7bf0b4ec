//! RATTLE on the Cartesian pendulum (m = L = 1, g = 9.81, q0 = (1, 0), v0 = 0): second order in the
//! energy error and no secular drift (symplectic), as Hairer, Lubich & Wanner (GNI §VII.1.4) predict
//! — with the simplified Newton iteration and with full Newton (`krylov` > 0), which solve the same
//! equations. Full Newton converges where a link turns so far in a step that the simplified
//! iteration, which keeps the start-of-step matrix, does not; and the method stays symmetric.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::formulation::{Dynamics, registry as formulations};
use tinkertoy::integrator::Control;
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::scene::{Scene, model_file};

fn pendulum() -> Scene {
    let p = [("length", 1.0), ("mass", 1.0), ("gravity", 9.81), ("theta0", std::f64::consts::FRAC_PI_2)];
    scenes::find("pendulum").unwrap().build_default(&p.map(|(k, v)| (k, Scalar::Num(v)))).unwrap()
}

/// Simplified Newton (`krylov: 0`, the default) and full Newton with at most 10 GMRES iterations.
const NEWTONS: [usize; 2] = [0, 10];

fn rattle(scene: &Scene, h: f64, duration: f64, krylov: usize) -> RunResult {
    let spec = CellSpec::named(
        "rattle",
        &[("tol", Scalar::Num(1e-13)), ("krylov", Scalar::Num(krylov as f64))],
        "sparse_cholesky",
        &[],
        None,
        Control::Fixed { h },
        duration,
    )
    .unwrap()
    .sampled(h) // every step
    .bounded(1.0);
    let r = run(scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    r
}

fn max_energy_error(r: &RunResult, from: f64, to: f64) -> f64 {
    r.samples.iter().filter(|s| s.t >= from - 1e-9 && s.t <= to + 1e-9).map(|s| s.energy_error).fold(0.0, f64::max)
}

#[test]
fn rattle_energy_error_is_second_order() {
    // A symplectic method of order 2 conserves a modified energy E + h² E₂ + O(h⁴), so the energy
    // error scales as h²: halving h divides it by 4(1 + O(h²ω²)); at hω ≈ 0.03 the correction is
    // ~1e-3, well inside ±0.05.
    let scene = pendulum();
    for krylov in NEWTONS {
        let (a, b) = (rattle(&scene, 0.01, 10.0, krylov), rattle(&scene, 0.005, 10.0, krylov));
        let ratio = max_energy_error(&a, 0.0, 10.0) / max_energy_error(&b, 0.0, 10.0);
        eprintln!("RATTLE (krylov {krylov}) energy-error ratio h = 0.01 vs 0.005: {ratio:.4}");
        assert!((ratio - 4.0).abs() <= 0.05, "krylov {krylov}: energy-error ratio h/(h/2) = {ratio}");
        // And it stays on the manifold: Newton to 1e-13.
        assert!(a.summary.max_drift_position <= 1e-12, "krylov {krylov}: drift {}", a.summary.max_drift_position);
    }
}

#[test]
fn rattle_energy_error_does_not_grow_over_100_seconds() {
    for krylov in NEWTONS {
        let r = rattle(&pendulum(), 0.01, 100.0, krylov);
        let (early, late) = (max_energy_error(&r, 0.0, 10.0), max_energy_error(&r, 90.0, 100.0));
        // Bounded oscillation: the late window is no worse than the early one (1 % slack for where
        // the sampled peaks fall).
        eprintln!("RATTLE (krylov {krylov}) max relative energy error: [0,10] s {early:.4e}, [90,100] s {late:.4e}");
        assert!(
            late <= 1.01 * early,
            "krylov {krylov}: energy error on [90,100] s = {late:e} > on [0,10] s = {early:e}"
        );
    }
}

/// A unit mass on a massless unit rod about the origin, spinning at `speed` m/s, no gravity.
fn spinner(speed: f64) -> Scene {
    let text = format!(
        "model: spinner
length_scale: 1
energy_scale: {{joules: {e}, definition: \"the kinetic energy\"}}
bodies:
  - {{name: bob, kind: particle2, mass: 1, position: [1, 0], velocity: [0, {speed}]}}
joints:
  - {{type: distance, a: bob, b: world, at: [0, 0]}}
",
        e = 0.5 * speed * speed
    );
    model_file::from_text("spinner.yaml", &text).unwrap_or_else(|e| panic!("{e}")).scene
}

#[test]
fn full_newton_converges_where_the_link_turns_too_far_for_the_simplified_iteration() {
    // RATTLE moves the free point q + h v along the rod's start direction n until |q| = 1: with
    // s the distance moved, s² + 2s + (h v)² = 0, s = −1 + √(1 − (hv)²), and the rod turns by θ with
    // cos θ = 1 + s. The simplified iteration uses the start-of-step slope 1 where the exact one is
    // cos θ: it contracts by 1 − cos θ per iteration, 0.80 at hv = 0.98 (θ = 78.5°), so 50
    // iterations reach 0.8⁵⁰ ≈ 1e-5 of the first error, not 1e-13; Newton converges quadratically.
    let (h, speed) = (1.0 / 60.0, 0.98 * 60.0);
    let scene = spinner(speed);
    let cell = |krylov: usize| {
        let spec = CellSpec::named(
            "rattle",
            &[("tol", Scalar::Num(1e-13)), ("max_iter", Scalar::Num(50.0)), ("krylov", Scalar::Num(krylov as f64))],
            "sparse_cholesky",
            &[],
            None,
            Control::Fixed { h },
            1.0,
        )
        .unwrap()
        .sampled(h)
        .bounded(10.0);
        run(&scene, &spec).summary
    };
    let (simplified, full) = (cell(0), cell(5));
    eprintln!(
        "hv = 0.98: simplified {:?}; full Newton {:?}, drift {:.1e}, energy error {:.1e}, {} solves in {} steps",
        simplified.status,
        full.status,
        full.max_drift_position,
        full.max_energy_error,
        full.counters.linear_solves,
        full.counters.steps
    );
    assert_ne!(simplified.status.label(), "ok", "the simplified iteration should not reach 1e-13 in 50 iterations");
    assert_eq!(full.status.label(), "ok", "{:?}", full.status);
    assert!(full.max_drift_position <= 1e-12, "{:e}", full.max_drift_position);
    // a free spinner's speed is kept exactly by RATTLE (the rod's force is normal to v½ at both
    // ends of the step): the energy to the rounding of its sums
    assert!(full.max_energy_error <= 1e-12, "{:e}", full.max_energy_error);
}

#[test]
fn full_newton_rattle_is_symmetric() {
    // Step forward, flip the velocity, step again: a symmetric method returns to the start (GNI
    // §V.1), here to the Newton tolerance amplified by a few steps' sensitivity. A 5-link chain
    // falling under gravity, h = 0.01 s, 50 steps each way.
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(5.0))]).unwrap();
    let f = formulations::find("rattle").unwrap();
    let s = solvers::find("sparse_cholesky").unwrap();
    let params = [("tol", Scalar::Num(1e-14)), ("krylov", Scalar::Num(10.0))];
    let Dynamics::Stepper(mut st) =
        (f.build)(&f.params.with("f", &params).unwrap(), &scene, (s.build)(&s.params.defaults())).unwrap()
    else {
        panic!("rattle is a stepper")
    };
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    for _ in 0..50 {
        st.step(0.01, &mut q, &mut v).unwrap();
    }
    let moved = q.iter().zip(&scene.q0).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    v.iter_mut().for_each(|x| *x = -*x);
    for _ in 0..50 {
        st.step(0.01, &mut q, &mut v).unwrap();
    }
    let back = q.iter().zip(&scene.q0).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    eprintln!("moved {moved:.2} m, back within {back:.1e} m");
    assert!(moved > 0.1);
    assert!(back <= 1e-9, "{back:e}");
}
