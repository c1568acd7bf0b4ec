//! The time axis of fixed steps: a cell labelled h takes steps of exactly h, t_n = n·h is counted,
//! never accumulated, and sampling never changes the steps.

use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;

#[test]
fn two_thousand_seconds_at_h_1_1000_take_two_million_steps_and_keep_the_energy() {
    // Accumulating t += h drifts past any tolerance on the sample times after ~30 s at this h,
    // and each sample interval then ended with a sliver step of ~1e-12 s whose Baumgarte bias
    // β C / h turned into ~1e7 m/s (a reported energy error of 3.6e12 m g L). Counting steps
    // removes the slivers; the impulse stepper then keeps its bounded energy error.
    let scene = scenes::find("pendulum")
        .unwrap()
        .build_default(&[("theta0", Scalar::Num(std::f64::consts::FRAC_PI_2))])
        .unwrap();
    let spec = CellSpec::named("impulse", &[], "dense_lu", &[], None, Control::Fixed { h: 1e-3 }, 2000.0)
        .unwrap()
        .sampled(1.0);
    let r = run(&scene, &spec);
    let s = &r.summary;
    println!(
        "impulse, h = 1/1000, 2000 s: {} steps, max energy error {:.3e} m g L",
        s.counters.steps, s.max_energy_error
    );
    assert!(s.status.is_ok(), "{:?}", s.status);
    assert_eq!(s.counters.steps, 2_000_000);
    assert_eq!(r.samples.len(), 2001, "one sample per second and the start");
    assert!(s.max_energy_error < 0.1, "max energy error {} m g L", s.max_energy_error);
}

#[test]
fn sampling_every_step_or_every_ten_steps_reaches_the_same_final_state_bit_for_bit() {
    let scene = scenes::find("double_pendulum").unwrap().build_default(&[]).unwrap();
    // A non-dyadic h: with accumulated time the samples every h ended windows with sliver steps.
    let h = 1.0 / 60.0;
    for (f, i) in [("force", Some("rk4")), ("force", Some("symplectic_euler")), ("rattle", None), ("impulse", None)] {
        let cell = |interval: f64| {
            let spec = CellSpec::named(f, &[], "dense_lu", &[], i, Control::Fixed { h }, 3.0).unwrap();
            run(&scene, &spec.sampled(interval).recording())
        };
        let (every, tenth) = (cell(h), cell(10.0 * h));
        let (a, b) = (every.samples.last().unwrap(), tenth.samples.last().unwrap());
        assert_eq!(every.summary.counters.steps, 180, "{f} {i:?}");
        assert_eq!(tenth.summary.counters.steps, 180, "{f} {i:?}");
        assert_eq!(every.samples.len(), 181, "{f} {i:?}");
        assert_eq!(tenth.samples.len(), 19, "{f} {i:?}: 18 boundaries 10 h apart and the start");
        assert!((a.t - 3.0).abs() <= 4.0 * f64::EPSILON * 3.0 && a.t == b.t, "{} {}", a.t, b.t);
        assert!(a.q == b.q && a.v == b.v, "{f} {i:?}: the final states differ");
    }
}
