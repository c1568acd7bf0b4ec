//! Events: crossing times of a named output, located on the dense output of an adaptive method,
//! and the period they give.

use tinkertoy::experiment::{CellSpec, Direction, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;

#[test]
fn pendulum_period_from_events_matches_the_exact_period() {
    // θ₀ = 1 rad, released at rest: T = 4 √(L/g) K(sin²(θ₀/2)) (exact, Jacobi). Upward crossings
    // of θ = 0 on Dop853's order-7 interpolant at tolerance 1e-12: the crossing times carry the
    // global error (~1e-11 s over 20 s), so T from 9 periods is good to ~1e-12 relative; 1e-10 is
    // the bound asked.
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    let exact = scene.reference.as_ref().unwrap().period().unwrap();
    let tol = Control::Adaptive { rtol: 1e-12, atol: 1e-12 };
    for formulation in ["lagrangian", "force"] {
        let spec = CellSpec::named(formulation, &[], "dense_lu", &[], Some("dop853"), tol, 20.0)
            .unwrap()
            .observing(&scene, &["theta"])
            .unwrap()
            .with_event(0, 0.0, Direction::Up);
        let r = run(&scene, &spec);
        assert!(r.summary.status.is_ok(), "{:?}", r.summary.status);
        let c = &r.events[0];
        let period = c.period().unwrap();
        let rel = (period - exact).abs() / exact;
        println!(
            "{formulation}/dop853 1e-12: {} upward crossings, T = {period:.15} s, exact {exact:.15} s, rel. error {rel:.2e}",
            c.times.len()
        );
        assert!(c.rising.iter().all(|&r| r));
        // The first upward crossing of a release at rest from θ₀ > 0 is at 3T/4.
        assert!((c.times[0] - 0.75 * exact).abs() < 1e-9, "first crossing {} vs {}", c.times[0], 0.75 * exact);
        if formulation == "lagrangian" {
            assert!(rel < 1e-10, "period relative error {rel:e}");
        }
    }
}

#[test]
fn fixed_step_crossings_interpolate_within_the_step() {
    // RK4 at h = 1/1000 with crossings located by linear interpolation between step boundaries:
    // both directions, alternating, at (1/4 + k/2) T.
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    let exact = scene.reference.as_ref().unwrap().period().unwrap();
    let spec = CellSpec::named("lagrangian", &[], "dense_lu", &[], Some("rk4"), Control::Fixed { h: 1e-3 }, 5.0)
        .unwrap()
        .observing(&scene, &["theta"])
        .unwrap()
        .with_event(0, 0.0, Direction::Both);
    let r = run(&scene, &spec);
    let c = &r.events[0];
    assert_eq!(c.rising.first(), Some(&false), "a release at rest from θ₀ > 0 first swings down through 0");
    assert!(c.rising.windows(2).all(|w| w[0] != w[1]), "directions alternate");
    for (k, t) in c.times.iter().enumerate() {
        let expected = (0.25 + 0.5 * k as f64) * exact;
        // RK4 at h = 1e-3 is accurate to ~1e-11 rad; linear interpolation errs in time by about
        // h²|θ̈|/(8|θ̇|), and θ̈ = −ω² sin θ vanishes at the crossing, leaving O(h³) ≈ 1e-9 s.
        assert!((t - expected).abs() < 1e-9, "crossing {k}: {t} vs {expected}");
    }
}
