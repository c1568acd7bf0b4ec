//! A one-degree-of-freedom ODE for the integrators' unit tests: the pendulum ẍ = −sin x, or the
//! damped oscillator ẍ = −k x − c ẋ, from x = 1, ẋ = 0.

use super::SecondOrderOde;
use crate::linsolve::{SolveError, SolverCounters};

/// ẍ = −k x − c ẋ with `linear` = Some((k, c)), else the pendulum's −sin x (nonlinear: no linear
/// superconvergence).
pub(crate) struct Oscillator {
    pub linear: Option<(f64, f64)>,
}

impl SecondOrderOde for Oscillator {
    fn dim(&self) -> usize {
        1
    }
    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        (x[0], xd[0]) = (1.0, 0.0);
    }
    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        a[0] = match self.linear {
            Some((k, c)) => -k * x[0] - c * xd[0],
            None => -x[0].sin(),
        };
        Ok(())
    }
    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        (q[0], v[0]) = (x[0], xd[0]);
    }
    fn cartesian_acceleration(&self, _: &[f64], _: &[f64], a: &[f64], out: &mut [f64]) {
        out[0] = a[0];
    }
    fn constraint_force(&mut self, _: &[f64], _: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        out[0] = 0.0;
        Ok(())
    }
    fn solver_counters(&self) -> SolverCounters {
        SolverCounters::default()
    }
}
