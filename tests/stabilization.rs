//! Post-step projection: it holds a 100-mass chain at h = 1/60 to the projection tolerance, and it
//! does not apply to reduced coordinates.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::Scene;
use tinkertoy::scene::registry as scenes;

fn cell(scene: &Scene, formulation: &str, integrator: Option<&str>, stabilizer: &str) -> RunResult {
    let st: &[(&str, Scalar)] =
        if stabilizer == "projection" { &[("tol", Scalar::Num(1e-9)), ("max_iter", Scalar::Num(20.0))] } else { &[] };
    // `lagrangian`'s loop-closure system is dense: the sparse solvers do not take it.
    let solver = if formulation == "lagrangian" { "dense_cholesky" } else { "sparse_cholesky" };
    let spec = CellSpec::named(formulation, &[], solver, &[], integrator, Control::Fixed { h: 1.0 / 60.0 }, 5.0)
        .and_then(|c| c.sampled(1.0 / 60.0).bounded(10.0).stabilized(stabilizer, st))
        .unwrap();
    run(scene, &spec)
}

#[test]
fn projection_holds_a_100_mass_chain_rigid_at_h_1_60() {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(100.0))]).unwrap();
    let free = cell(&scene, "impulse", None, "none");
    let held = cell(&scene, "impulse", None, "projection");
    assert_eq!(held.summary.status.label(), "ok", "{:?}", held.summary.status);
    // Every sample (every step) is projected to |C|inf <= 1e-9 m.
    assert!(held.summary.max_drift_position <= 1e-9, "max link error {:e}", held.summary.max_drift_position);
    // Without it, the same cell stretches links by more than a link length (measured 1.2 m).
    assert!(free.summary.max_drift_position > 0.1, "{}", free.summary.max_drift_position);
    // Velocities are projected too.
    assert!(held.summary.max_drift_velocity <= 1e-8, "max |J v|inf {:e}", held.summary.max_drift_velocity);
}

#[test]
fn projection_leaves_a_joint_tree_alone() {
    // Under `lagrangian` the projection acts on the loop closures only; the pendulum is a tree
    // (one angle), so its motion with the stabilizer is the same to the bit as without.
    let scene = scenes::find("pendulum").unwrap().build_default(&[]).unwrap();
    let free = cell(&scene, "lagrangian", Some("rk4"), "none");
    let held = cell(&scene, "lagrangian", Some("rk4"), "projection");
    assert_eq!(held.summary.status.label(), "ok", "{:?}", held.summary.status);
    assert_eq!(free.samples.len(), held.samples.len());
    for (a, b) in free.samples.iter().zip(&held.samples) {
        assert_eq!(a.energy.to_bits(), b.energy.to_bits(), "t = {}", a.t);
    }
}

/// XPBD's compliance is an inverse stiffness: a 1 kg bob hanging at rest from a rod of compliance
/// α oscillates about the stretch α m g (starting unstretched, between 0 and 2 α m g), so the time
/// mean of the stretch is α m g. 25 oscillation periods are averaged; XPBD with 10 substeps
/// emulates the spring to within a few per cent (first order in h_s ω = 0.05). With more than one
/// iteration per substep the −α̃λ term of eq. 12 matters: without it the iterations drive the rod
/// back towards rigid.
#[test]
fn xpbd_compliance_stretches_a_hanging_rod_by_alpha_m_g() {
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(0.0))]).unwrap();
    let alpha = 1e-3;
    for iterations in [1.0, 3.0] {
        let xpbd: &[(&str, Scalar)] = &[("compliance", Scalar::Num(alpha)), ("iterations", Scalar::Num(iterations))];
        let spec = CellSpec::named("xpbd", xpbd, "sparse_cholesky", &[], None, Control::Fixed { h: 1.0 / 60.0 }, 5.0)
            .unwrap()
            .sampled(1.0 / 60.0)
            .bounded(10.0);
        let r = run(&scene, &spec);
        assert_eq!(r.summary.status.label(), "ok");
        let mean = r.samples.iter().skip(1).map(|s| s.drift_position).sum::<f64>() / (r.samples.len() - 1) as f64;
        let expected = alpha * 1.0 * 9.81;
        eprintln!(
            "XPBD ({iterations} iterations) mean stretch {mean:.4e} m vs alpha m g = {expected:.4e} m (ratio {:.4})",
            mean / expected
        );
        assert!(
            (mean / expected - 1.0).abs() < 0.05,
            "{iterations} iterations: mean stretch {mean:e} m, expected {expected:e} m"
        );
    }
}
