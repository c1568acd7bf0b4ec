//! `radau5`: its coefficients against RADAU5's published ones, its order at fixed steps, and a
//! stiff damper at the tolerance.

use super::{Coefficients, Radau5, butcher_a};
use crate::integrator::test_ode::Oscillator;
use crate::integrator::{Control, Integrator, RungeKutta};
use nalgebra::Matrix3;

#[test]
fn the_transformation_block_diagonalises_a_inverse_and_the_estimate_has_radau5s_weights() {
    let k = Coefficients::new();
    let block = k.ti * butcher_a().try_inverse().unwrap() * k.t;
    #[rustfmt::skip]
    let want = Matrix3::new(
        k.gamma, 0.0, 0.0,
        0.0, k.alpha, -k.beta,
        0.0, k.beta, k.alpha,
    );
    // Entries of size ~10: rounding of a few ulps of that.
    assert!((block - want).amax() <= 1e-13, "{block} vs {want}");
    // RADAU5's published constants (DD1–DD3 in radau5.f), derived here from the order
    // conditions of the embedded formula.
    let s6 = 6f64.sqrt();
    let dd = [-(13.0 + 7.0 * s6) / 3.0, (-13.0 + 7.0 * s6) / 3.0, -1.0 / 3.0];
    for (got, want) in k.dd.iter().zip(dd) {
        assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "dd {:?} vs {dd:?}", k.dd);
    }
    assert!((k.gamma - 3.637834252744496).abs() < 1e-12, "gamma {}", k.gamma);
}

/// (x, ẋ) at `t_end` from x = 1, ẋ = 0.
fn integrate(method: &mut dyn Integrator, ode: &mut Oscillator, t_end: f64) -> (f64, f64) {
    method.prepare(1, 1);
    let (mut x, mut xd) = ([1.0], [0.0]);
    let mut t = 0.0;
    while t < t_end * (1.0 - 1e-12) {
        t += method.step(ode, &mut x, &mut xd, t_end - t).unwrap();
    }
    (x[0], xd[0])
}

#[test]
fn fixed_steps_converge_at_order_five_on_the_pendulum() {
    // Reference: Dop853 with 4000 steps (error ~ 1e-16, far below the smallest error here).
    let mut ode = Oscillator { linear: None };
    let dop853 = &crate::integrator::dop853::DOP853;
    let (xr, vr) = integrate(&mut RungeKutta::new(dop853, Control::Fixed { h: 1e-3 }), &mut ode, 4.0);
    // Steps where the leading error term dominates and stays far above rounding.
    let hs = [0.4, 0.2, 0.1];
    let errs: Vec<f64> = hs
        .iter()
        .map(|&h| {
            let (x, v) = integrate(&mut Radau5::with_fixed_step(h), &mut ode, 4.0);
            (x - xr).abs().max((v - vr).abs())
        })
        .collect();
    let p = crate::metrics::observed_order(&hs, &errs);
    eprintln!("radau5 fixed steps {hs:?}: errors {errs:?}, observed order {p:.3}");
    assert!((p - 5.0).abs() <= 0.2, "observed order {p:.3} (errors {errs:?})");
}

#[test]
fn a_stiff_damper_takes_long_steps_at_the_tolerance() {
    // ẍ + (1 + 10⁶) ẋ + 10⁶ x = 0: eigenvalues −1 and −10⁶. x = (10⁶ e^(−t) − e^(−10⁶ t)) /
    // (10⁶ − 1). An explicit method needs h < 2.8e-6 s to stay stable; Radau IIA is L-stable.
    let (k, c) = (1e6, 1e6 + 1.0);
    let mut ode = Oscillator { linear: Some((k, c)) };
    let mut radau = Radau5::new(1e-8, 1e-8);
    let (x, _) = integrate(&mut radau, &mut ode, 10.0);
    let exact = (1e6 * (-10f64).exp() - (-1e7f64).exp()) / (1e6 - 1.0);
    let s = radau.stats();
    eprintln!("radau5 on the stiff damper: x(10) error {:.2e}, {s:?}", (x - exact).abs());
    // Global error of a stable, tolerance-proportional method: within 100 rtol of |x|max = 1.
    assert!((x - exact).abs() <= 1e-6, "x(10) = {x:e}, exact {exact:e}");
    // The transient of 10⁻⁶ s is resolved in a few dozen steps, then steps grow to ~1 s.
    assert!(s.steps < 200, "{s:?}");
}
