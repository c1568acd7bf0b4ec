//! The `energy` stabilizer: after every step the velocities are scaled back to the initial energy.
//!
//! - On the long chain at h = 1/60 s the implicit position step of `xpbd_newton` holds every link
//!   and damps the whip; with the projection the same cell holds the links and the energy.
//! - It refuses the systems whose energy is not a constant of the motion: contact, dampers, drives.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::scene::{Scene, model_file};

fn xpbd_newton(scene: &Scene, stabilizer: &str, duration: f64) -> RunResult {
    let params = [("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(30.0)), ("tol", Scalar::Num(3e-7))];
    let cell =
        CellSpec::named("xpbd_newton", &params, "envelope_ldlt", &[], None, Control::Fixed { h: 1.0 / 60.0 }, duration)
            .unwrap()
            .sampled(0.05)
            .bounded(10.0)
            .stabilized(stabilizer, &[])
            .unwrap();
    run(scene, &cell)
}

#[test]
fn the_projected_chain_holds_its_links_and_its_energy_where_the_implicit_step_damps_it() {
    let scene =
        scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(100.0)), ("link", Scalar::Num(0.1))]).unwrap();
    let plain = xpbd_newton(&scene, "none", 10.0);
    let held = xpbd_newton(&scene, "energy", 10.0);
    let (p, h) = (&plain.summary, &held.summary);
    println!(
        "plain: links {:.2e} m, energy {:.2e}; energy-projected: links {:.2e} m, energy {:.2e}; solves {} vs {}",
        p.max_drift_position,
        p.max_energy_error,
        h.max_drift_position,
        h.max_energy_error,
        p.counters.linear_solves,
        h.counters.linear_solves
    );
    assert!(p.status.is_ok() && h.status.is_ok(), "{:?} {:?}", p.status, h.status);
    // Newton stops at max |C| ≤ 3e-7 m, within 30 iterations on every step of both
    assert!(p.max_drift_position <= 3e-7 && h.max_drift_position <= 3e-7);
    // The implicit step removes a large part of E_scale over 10 s (the whip reaches the free end)…
    assert!(p.max_energy_error > 0.1, "{}", p.max_energy_error);
    // …and the projection puts it back at every step: E = E₀ up to the rounding of its sums over
    // 200 coordinates, ~1e-13 of E_scale (≈ 4.9 kJ here).
    assert!(h.max_energy_error <= 1e-12, "{}", h.max_energy_error);
}

/// A pendulum on a spring-damper (a, b: the damping), or on a spring with its pivot driven.
fn model(damping: f64, driven: bool) -> Scene {
    let text = format!(
        "model: spring_pendulum
length_scale: 2
energy_scale: {{joules: 20, definition: \"20 J\"}}
bodies:
  - {{name: bob, kind: particle2, mass: 1, position: [1, 0]}}
  - {{name: pivot, kind: particle2, mass: 1, position: [0, 0]}}
forces:
  - {{type: gravity, g: [0, -9.81]}}
  - {{type: spring, a: {{body: bob}}, b: {{body: pivot}}, stiffness: 50, damping: {damping}, rest_length: 1}}
joints:
  - {{type: line, a: pivot, b: world, at: [0, 0], axis: [1, 0]}}
{}",
        if driven { "drives:\n  - {coordinate: pivot.x, amplitude: 0.1, omega: 3}\n" } else { "" }
    );
    model_file::from_text("spring_pendulum.yaml", &text).unwrap_or_else(|e| panic!("{e}")).scene
}

#[test]
fn energy_projection_is_refused_where_the_energy_is_not_conserved() {
    let reason = |r: &RunResult| match &r.summary.status {
        tinkertoy::experiment::Status::NotApplicable { reason } => reason.clone(),
        s => panic!("ran: {s:?}"),
    };
    // the conservative spring pendulum runs, and holds its energy
    let r = xpbd_newton(&model(0.0, false), "energy", 1.0);
    assert!(r.summary.status.is_ok(), "{:?}", r.summary.status);
    assert!(r.summary.max_energy_error <= 1e-12, "{}", r.summary.max_energy_error);
    assert!(reason(&xpbd_newton(&model(0.5, false), "energy", 1.0)).contains("damper"));
    assert!(reason(&xpbd_newton(&model(0.0, true), "energy", 1.0)).contains("drives"));
    let stack = scenes::find("box_stack").unwrap().build_small().unwrap();
    let cell = CellSpec::named("pgs", &[], "gauss_seidel", &[], None, Control::Fixed { h: 1.0 / 60.0 }, 0.1)
        .unwrap()
        .stabilized("energy", &[])
        .unwrap();
    assert!(reason(&run(&stack, &cell)).contains("contact"));
}
