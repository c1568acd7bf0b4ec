//! Integrator conformance on the simple pendulum (exact solution via Jacobi sn), iterating the
//! integrator registry: fixed-step methods reach their order, adaptive ones get more accurate as
//! the tolerance falls, and our Dopri5/Dop853 agree with the independent `ode_solvers` crate.

use std::cell::RefCell;
use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::formulation::registry as formulations;
use tinkertoy::formulation::{Dynamics, SecondOrderOde};
use tinkertoy::integrator::Control;
use tinkertoy::integrator::registry::{INTEGRATORS, IntegratorKind};
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::metrics::observed_order;
use tinkertoy::params::{NoParams, ParamTable, Scalar};
use tinkertoy::scene::registry as scenes;
use tinkertoy::scene::{Reference, Scene};

fn pendulum() -> Scene {
    // θ₀ = 1 rad: clearly nonlinear (T is 6.6 % longer than 2π√(L/g)).
    scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap()
}

fn cell(formulation: &str, integrator: &str, control: Control, duration: f64) -> CellSpec<'static> {
    CellSpec::named(formulation, &[], "dense_lu", &[], Some(integrator), control, duration).unwrap().bounded(10.0)
}

/// |θ(1) − θ_exact(1)| for one run.
fn error_at_one(scene: &Scene, formulation: &str, integrator: &str, control: Control) -> f64 {
    let r = run(scene, &cell(formulation, integrator, control, 1.0));
    assert_eq!(r.summary.status.label(), "ok", "{formulation}/{integrator}: {:?}", r.summary.status);
    r.samples.last().unwrap().reference_error.unwrap()
}

#[test]
fn every_fixed_step_integrator_reaches_its_order_on_the_pendulum() {
    let scene = pendulum();
    for entry in INTEGRATORS {
        let IntegratorKind::Fixed { order } = entry.kind() else { continue };
        // Step sizes in the asymptotic range: small enough that the leading error term dominates,
        // large enough that RK4's error (~h⁴) stays far above rounding (1e-13).
        let hs: Vec<f64> = if order >= 4 {
            vec![1.0 / 50.0, 1.0 / 100.0, 1.0 / 200.0]
        } else {
            vec![1.0 / 200.0, 1.0 / 400.0, 1.0 / 800.0]
        };
        for formulation in ["force", "lagrangian"] {
            let errs: Vec<f64> =
                hs.iter().map(|&h| error_at_one(&scene, formulation, entry.name, Control::Fixed { h })).collect();
            let p = observed_order(&hs, &errs);
            eprintln!("{formulation}/{}: observed order {p:.3} (errors {errs:?})", entry.name);
            assert!(
                (p - order as f64).abs() <= 0.3,
                "{formulation}/{}: observed order {p:.3}, expected {order} (errors {errs:?})",
                entry.name
            );
        }
    }
}

#[test]
fn adaptive_integrators_get_more_accurate_as_tolerance_falls() {
    let scene = pendulum();
    for entry in INTEGRATORS {
        let IntegratorKind::Adaptive { .. } = entry.kind() else { continue };
        let errs: Vec<f64> = [1e-4, 1e-7, 1e-10]
            .iter()
            .map(|&tol| error_at_one(&scene, "lagrangian", entry.name, Control::Adaptive { rtol: tol, atol: tol }))
            .collect();
        assert!(
            errs[1] < errs[0] && errs[2] < errs[1],
            "{}: errors {errs:?} do not fall with the tolerance",
            entry.name
        );
        // Tolerance proportionality: the global error at tol 1e-10 is within a factor 1e3 of tol
        // (the usual gap between local error control and global error over one period).
        assert!(errs[2] < 1e-7, "{}: error {:.3e} at tol 1e-10", entry.name, errs[2]);
    }
}

/// Adapter: a tinkertoy formulation as an `ode_solvers` system, y = (x, ẋ).
struct AsOdeSolvers<'a> {
    ode: RefCell<Box<dyn SecondOrderOde + 'a>>,
    d: usize,
}

impl ode_solvers::System<f64, ode_solvers::DVector<f64>> for AsOdeSolvers<'_> {
    fn system(&self, _t: f64, y: &ode_solvers::DVector<f64>, dy: &mut ode_solvers::DVector<f64>) {
        let d = self.d;
        let y = y.as_slice();
        let mut a = vec![0.0; d];
        self.ode.borrow_mut().accel(&y[..d], &y[d..], &mut a).expect("solve");
        dy.as_mut_slice()[..d].copy_from_slice(&y[d..]);
        dy.as_mut_slice()[d..].copy_from_slice(&a);
    }
}

/// Final Cartesian state after `t_end` from `ode_solvers` (Sparse output: one sample per accepted
/// step, avoiding its extrapolated dense end point, see CRATES.md).
fn reference_end_state(scene: &Scene, method: &str, tol: f64, t_end: f64) -> Vec<f64> {
    let f = formulations::find("force").unwrap();
    let solver = (solvers::find("dense_lu").unwrap().build)(&ParamTable::of::<NoParams>().defaults());
    let Dynamics::Ode(ode) = (f.build)(&f.params.defaults(), scene, solver).unwrap() else { unreachable!() };
    let d = ode.dim();
    let (mut x, mut xd) = (vec![0.0; d], vec![0.0; d]);
    ode.initial(&mut x, &mut xd);
    let y0 = ode_solvers::DVector::from_column_slice(&[x, xd].concat());
    let sys = AsOdeSolvers { ode: RefCell::new(ode), d };
    let out = match method {
        "dopri5" => {
            // Hairer's defaults (safety 0.9, β 0.04, ratio in [0.2, 10]), Sparse output.
            let mut s = ode_solvers::Dopri5::from_param(
                sys,
                0.0,
                t_end,
                t_end,
                y0,
                tol,
                tol,
                0.9,
                0.04,
                0.2,
                10.0,
                t_end,
                0.0,
                100_000,
                1000,
                ode_solvers::OutputType::Sparse,
            );
            s.integrate().expect("ode_solvers dopri5");
            s.y_out().last().unwrap().clone()
        }
        _ => {
            // Hairer's defaults (safety 0.9, β 0, ratio in [1/3, 6]), Sparse output.
            let mut s = ode_solvers::Dop853::from_param(
                sys,
                0.0,
                t_end,
                t_end,
                y0,
                tol,
                tol,
                0.9,
                0.0,
                0.333,
                6.0,
                t_end,
                0.0,
                100_000,
                1000,
                ode_solvers::OutputType::Sparse,
            );
            s.integrate().expect("ode_solvers dop853");
            s.y_out().last().unwrap().clone()
        }
    };
    out.as_slice().to_vec()
}

#[test]
fn our_adaptive_integrators_agree_with_ode_solvers() {
    // Same ODE (force formulation on the double pendulum), same tolerance, same controller
    // constants: two independent implementations of the same method take nearly the same steps,
    // so they agree far below the tolerance (measured: 0.14·tol for dopri5, 0.21·tol for dop853);
    // 10·tol leaves room for a different step sequence, while a wrong coefficient gives O(tol^(1/2))
    // or worse.
    let scene = scenes::find("double_pendulum").unwrap().build_default(&[]).unwrap();
    for (name, tol) in [("dopri5", 1e-10), ("dop853", 1e-12)] {
        let mut c = cell("force", name, Control::Adaptive { rtol: tol, atol: tol }, 1.0);
        c.record_state = true;
        let ours = run(&scene, &c);
        let last = ours.samples.last().unwrap();
        let theirs = reference_end_state(&scene, name, tol, 1.0);
        let d = scene.system.ndof();
        let diff = last.q.iter().zip(&theirs[..d]).map(|(a, b)| (a - b).abs()).fold(0.0f64, f64::max);
        eprintln!("{name}: tol {tol:e}, max abs difference of q(1): {diff:.3e}");
        assert!(diff < 10.0 * tol, "{name}: our q(1) and ode_solvers' differ by {diff:.3e}");
    }
}

#[test]
fn pendulum_reference_is_the_exact_solution() {
    let Some(Reference::Pendulum { .. }) = pendulum().reference else { panic!("pendulum has no reference") };
}
