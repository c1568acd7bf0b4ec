//! The time axis: a cell labelled h takes steps of exactly h, t_n = n·h is counted, never
//! accumulated; adaptive cells are sampled through their dense output; sampling never changes the
//! steps.

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

#[test]
fn dop853_sampled_every_millisecond_takes_the_same_steps_as_with_one_sample() {
    // Samples inside a step come from the continuous extension (Hairer I, §II.6): the steps, the
    // cost and the final state do not depend on how often the cell is sampled.
    let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
    for formulation in ["force", "lagrangian"] {
        let spec =
            CellSpec::named(formulation, &[], "dense_lu", &[], Some("dop853"), tol(1e-9), 10.0).unwrap().recording();
        let once = run(&scene, &spec);
        let dense = run(&scene, &spec.clone().sampled(1e-3));
        let (a, b) = (&once.summary.counters, &dense.summary.counters);
        println!("{formulation}/dop853 at 1e-9: {} steps sampled once, {} sampled every 1 ms", a.steps, b.steps);
        assert!(once.summary.status.is_ok() && dense.summary.status.is_ok());
        assert_eq!((a.steps, a.rejected, a.rhs_evals), (b.steps, b.rejected, b.rhs_evals));
        assert_eq!((a.linear_solves, a.solver_iterations), (b.linear_solves, b.solver_iterations));
        assert_eq!(dense.samples.len(), 10_001);
        let (l0, l1) = (once.samples.last().unwrap(), dense.samples.last().unwrap());
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!((l0.t, bits(&l0.q), bits(&l0.v)), (l1.t, bits(&l1.q), bits(&l1.v)), "final state bit for bit");
        // Exact sample times, printed as their decimals.
        assert_eq!(dense.samples[150].t, 0.15);
        assert_eq!(dense.samples[7].t.to_string(), "0.007");
        // The interpolated samples are as accurate as the steps: the exact reference agrees to
        // the tolerance's order at every millisecond.
        let worst = dense.samples.iter().map(|s| s.reference_error.unwrap()).fold(0.0, f64::max);
        assert!(worst < 1e-7, "{formulation}: worst interpolated reference error {worst:e}");
    }
}

fn tol(t: f64) -> Control {
    Control::Adaptive { rtol: t, atol: t }
}

#[test]
fn a_sample_interval_may_be_a_fraction_as_steps_are() {
    // Regression: `sample_interval: "1/60"` was refused though `steps` take p/q.
    let text = "name: frac\nscene: {name: pendulum}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [\"1/60\"]\nduration: 1\nsample_interval: \"1/60\"\n";
    let exp = tinkertoy::experiment::grid::from_text("frac.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exp.sample_interval, 1.0 / 60.0);
    let bad = text.replace("sample_interval: \"1/60\"", "sample_interval: \"1/0\"");
    let Err(e) = tinkertoy::experiment::grid::from_text("frac.yaml", &bad) else { panic!("1/0 accepted") };
    let e = e.to_string();
    assert!(e.contains("sample_interval") && e.contains("1/60"), "{e}");
}
