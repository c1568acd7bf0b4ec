//! RATTLE on the Cartesian pendulum (m = L = 1, g = 9.81, q0 = (1, 0), v0 = 0): second order in the
//! energy error and no secular drift (symplectic), as Hairer, Lubich & Wanner (GNI §VII.1.4) predict.

use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::Scene;
use tinkertoy::scene::registry as scenes;

fn pendulum() -> Scene {
    let p = [("length", 1.0), ("mass", 1.0), ("gravity", 9.81), ("theta0", std::f64::consts::FRAC_PI_2)];
    scenes::find("pendulum").unwrap().build_default(&p.map(|(k, v)| (k, Scalar::Num(v)))).unwrap()
}

fn rattle(scene: &Scene, h: f64, duration: f64) -> RunResult {
    let spec = CellSpec::named(
        "rattle",
        &[("tol", Scalar::Num(1e-13))],
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
    let (a, b) = (rattle(&scene, 0.01, 10.0), rattle(&scene, 0.005, 10.0));
    let ratio = max_energy_error(&a, 0.0, 10.0) / max_energy_error(&b, 0.0, 10.0);
    eprintln!("RATTLE energy-error ratio h = 0.01 vs 0.005: {ratio:.4}");
    assert!((ratio - 4.0).abs() <= 0.05, "energy-error ratio h/(h/2) = {ratio}");
    // And it stays on the manifold: Newton to 1e-13.
    assert!(a.summary.max_drift_position <= 1e-12, "drift {}", a.summary.max_drift_position);
}

#[test]
fn rattle_energy_error_does_not_grow_over_100_seconds() {
    let r = rattle(&pendulum(), 0.01, 100.0);
    let (early, late) = (max_energy_error(&r, 0.0, 10.0), max_energy_error(&r, 90.0, 100.0));
    // Bounded oscillation: the late window is no worse than the early one (1 % slack for where the
    // sampled peaks fall).
    eprintln!("RATTLE max relative energy error: [0,10] s {early:.4e}, [90,100] s {late:.4e}");
    assert!(late <= 1.01 * early, "energy error on [90,100] s = {late:e} > on [0,10] s = {early:e}");
}
