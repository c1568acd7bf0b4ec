//! The constrained implicit midpoint stepper (`midpoint`): what its construction promises —
//! energy conserved to the Newton tolerance on a particle chain under gravity at h = 1/60 s, time
//! reversibility (a symmetric method), order 2 against the exact pendulum, rigidity to `tol`.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::formulation::registry as formulations;
use tinkertoy::formulation::{Dynamics, Stepper};
use tinkertoy::integrator::Control;
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::params::Scalar;
use tinkertoy::scene::Scene;
use tinkertoy::scene::registry as scenes;

fn scene(name: &str, p: &[(&str, f64)]) -> Scene {
    let p: Vec<_> = p.iter().map(|&(k, v)| (k, Scalar::Num(v))).collect();
    scenes::find(name).unwrap().build_default(&p).unwrap()
}

fn midpoint(scene: &Scene, params: &[(&str, f64)], h: f64, duration: f64) -> RunResult {
    let p: Vec<_> = params.iter().map(|&(k, v)| (k, Scalar::Num(v))).collect();
    let spec = CellSpec::named("midpoint", &p, "envelope_ldlt", &[], None, Control::Fixed { h }, duration)
        .unwrap()
        .sampled(h) // every step
        .bounded(10.0);
    let r = run(scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    r
}

fn stepper(scene: &Scene, tol: f64) -> Box<dyn Stepper + '_> {
    let f = formulations::find("midpoint").unwrap();
    let s = solvers::find("envelope_ldlt").unwrap();
    let Dynamics::Stepper(st) =
        (f.build)(&f.params.with("f", &[("tol", Scalar::Num(tol))]).unwrap(), scene, (s.build)(&s.params.defaults()))
            .unwrap()
    else {
        panic!("midpoint is a stepper")
    };
    st
}

#[test]
fn midpoint_conserves_the_chains_energy_to_the_newton_tolerance_at_60_hz() {
    // 20 unit masses on 0.1 m links released horizontal, h = 1/60 s for 5 s: the end whips (steps
    // are split where Newton needs it). The constraint force does no work over a step once both
    // ends hold the link length, so the energy error per step is the work of the residuals:
    // |Σ λ_r ΔC_r| + |M u · Δq| ≤ (Σ|λ| + Σ m |Δq|/h²) · tol. With Σ|λ| ≤ 3 × (the chain's weight
    // summed over its links, 20 · 19/2 · 9.81 N ≈ 1.9 kN) ≈ 6e3 N and tol = 1e-10 m that is < 1e-6 J
    // per step, < 3e-4 J over 300 steps: 1.5e-6 of E_scale (186 J). Measured: ~1e-9.
    let chain = scene("chain", &[("n", 20.0), ("link", 0.1)]);
    let r = midpoint(&chain, &[("splits", 6.0)], 1.0 / 60.0, 5.0);
    eprintln!(
        "midpoint chain n = 20: energy error {:.3e} x E_scale, link error {:.3e} m",
        r.summary.max_energy_error, r.summary.max_drift_position
    );
    assert!(r.summary.max_energy_error <= 1.5e-6, "energy error {:e}", r.summary.max_energy_error);
    // rigid: every link within tol (plus rounding of 0.1 m lengths, ~1e-16 m)
    assert!(r.summary.max_drift_position <= 1e-10 + 1e-14, "link error {:e}", r.summary.max_drift_position);
}

#[test]
fn midpoint_is_time_reversible() {
    // A symmetric method for a reversible system: 20 steps forward, velocities negated, 20 steps
    // forward again return to the start with negated velocities. Each step solves to tol = 1e-13
    // (m); 40 steps of Newton error amplified by the chain's Lyapunov growth over 0.67 s (at most
    // e^(λ t) with λ ≈ √(g/ℓ) ≈ 10/s: ~800) bound the difference by ~4e-8 m.
    let chain = scene("chain", &[("n", 6.0), ("link", 0.1)]);
    let mut st = stepper(&chain, 1e-13);
    let (mut q, mut v) = (chain.q0.clone(), chain.v0.clone());
    let h = 1.0 / 60.0;
    for _ in 0..20 {
        st.step(h, &mut q, &mut v).unwrap();
    }
    let moved = q.iter().zip(&chain.q0).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    v.iter_mut().for_each(|x| *x = -*x);
    for _ in 0..20 {
        st.step(h, &mut q, &mut v).unwrap();
    }
    let dq = q.iter().zip(&chain.q0).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    let dv = v.iter().zip(&chain.v0).map(|(a, b)| (a + b).abs()).fold(0.0, f64::max);
    eprintln!("midpoint reversibility: moved {moved:.3} m, back to {dq:.3e} m, {dv:.3e} m/s");
    assert!(moved > 0.1, "the chain moved only {moved} m");
    assert!(dq <= 4e-8 && dv <= 4e-6, "not reversible: |dq| = {dq:e} m, |dv| = {dv:e} m/s");
}

#[test]
fn midpoint_is_second_order_on_the_exact_pendulum() {
    // The implicit midpoint rule has order 2: halving h divides the error against the exact
    // pendulum (θ0 = π/2, 5 s) by 4 up to O(h²ω²) ≈ 1e-3 and the sampling: ±0.1.
    let p = scene("pendulum", &[("theta0", std::f64::consts::FRAC_PI_2)]);
    let (a, b) = (midpoint(&p, &[("tol", 1e-13)], 0.01, 5.0), midpoint(&p, &[("tol", 1e-13)], 0.005, 5.0));
    let ratio = a.summary.max_reference_error.unwrap() / b.summary.max_reference_error.unwrap();
    eprintln!("midpoint pendulum error ratio h = 0.01 vs 0.005: {ratio:.4}");
    assert!((ratio - 4.0).abs() <= 0.1, "error ratio h/(h/2) = {ratio}");
    // energy: the pendulum's constraint is a distance to a fixed point, gravity is constant
    assert!(a.summary.max_energy_error <= 1e-11, "energy error {:e}", a.summary.max_energy_error);
}

#[test]
fn midpoint_energy_error_is_the_newton_tolerances_not_a_drift() {
    // Over 60 s of the whipping 10-link chain at h = 1/60 s the energy error comes only from the
    // residuals Newton leaves (bounded by the work per step of the constraint and inertial residuals,
    // linear in tol): a method drift would not shrink with tol. Measured: 3.5e-8 at tol = 1e-10,
    // 3.4e-10 at 1e-12 (ratio ~100 = the tolerance ratio); asserted: at least 10.
    let chain = scene("chain", &[("n", 10.0), ("link", 0.1)]);
    let loose = midpoint(&chain, &[("splits", 6.0), ("tol", 1e-10)], 1.0 / 60.0, 60.0);
    let tight = midpoint(&chain, &[("splits", 6.0), ("tol", 1e-12)], 1.0 / 60.0, 60.0);
    let (a, b) = (loose.summary.max_energy_error, tight.summary.max_energy_error);
    eprintln!("midpoint 60 s energy error: tol 1e-10 {a:.3e}, tol 1e-12 {b:.3e}");
    assert!(a <= 1e-6 && b <= a / 10.0, "energy error does not follow tol: {a:e} vs {b:e}");
}
