//! The integrator registry: the only list of time integrators (for ODE formulations; stepping
//! formulations are their own integrators and take only a step size). Adding one = one file (or
//! one tableau) + one line here; the order tests and `tinkertoy list` pick it up.

use super::tableaus::{DOP853, DOPRI5, RK4};
use super::{Control, ExplicitEuler, Integrator, RungeKutta, SymplecticEuler, Verlet};

/// How an integrator chooses its steps (derived from [`Make`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegratorKind {
    /// Fixed step h; `order` is its convergence order.
    Fixed {
        /// Global order of accuracy.
        order: u32,
    },
    /// Error-controlled steps from tolerances.
    Adaptive {
        /// Order of the propagated solution.
        order: u32,
    },
}

/// How to build an integrator: from a step size, or from tolerances.
#[derive(Clone, Copy)]
pub enum Make {
    /// A fixed-step method, from h \[s\].
    Fixed(fn(f64) -> Box<dyn Integrator>),
    /// An error-controlled method, from (rtol, atol).
    Adaptive(fn(f64, f64) -> Box<dyn Integrator>),
}

/// One registered integrator.
#[derive(Clone, Copy)]
pub struct IntegratorEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: the scheme.
    pub summary: &'static str,
    /// Order of accuracy (of the propagated solution, for adaptive pairs).
    pub order: u32,
    /// Its constructor, which says whether it takes a step size or tolerances.
    pub make: Make,
}

impl IntegratorEntry {
    /// Fixed-step or adaptive, with the order.
    pub fn kind(&self) -> IntegratorKind {
        match self.make {
            Make::Fixed(_) => IntegratorKind::Fixed { order: self.order },
            Make::Adaptive(_) => IntegratorKind::Adaptive { order: self.order },
        }
    }

    /// The integrator for `control`, or why this integrator does not take it.
    pub fn build(&self, control: Control) -> Result<Box<dyn Integrator>, String> {
        match (self.make, control) {
            (Make::Fixed(make), Control::Fixed { h }) => Ok(make(h)),
            (Make::Adaptive(make), Control::Adaptive { rtol, atol }) => Ok(make(rtol, atol)),
            (Make::Fixed(_), Control::Adaptive { .. }) => {
                Err(format!("integrator `{}` takes a step size h, not tolerances", self.name))
            }
            (Make::Adaptive(_), Control::Fixed { .. }) => {
                Err(format!("integrator `{}` takes tolerances, not a step size", self.name))
            }
        }
    }
}

/// Every integrator.
pub const INTEGRATORS: &[IntegratorEntry] = &[
    IntegratorEntry {
        name: "explicit_euler",
        summary: "forward Euler, order 1, not symplectic",
        order: 1,
        make: Make::Fixed(|h| Box::new(ExplicitEuler::new(h))),
    },
    IntegratorEntry {
        name: "symplectic_euler",
        summary: "semi-implicit Euler, order 1, symplectic (seed 002)",
        order: 1,
        make: Make::Fixed(|h| Box::new(SymplecticEuler::new(h))),
    },
    IntegratorEntry {
        name: "verlet",
        summary: "velocity Verlet, order 2, symmetric",
        order: 2,
        make: Make::Fixed(|h| Box::new(Verlet::new(h))),
    },
    IntegratorEntry {
        name: "rk4",
        summary: "classic Runge-Kutta, order 4 (seed 003)",
        order: 4,
        make: Make::Fixed(|h| Box::new(RungeKutta::new(&RK4, Control::Fixed { h }))),
    },
    IntegratorEntry {
        name: "dopri5",
        summary: "Dormand-Prince 5(4), adaptive (rtol = atol = tolerance)",
        order: 5,
        make: Make::Adaptive(|rtol, atol| Box::new(RungeKutta::new(&DOPRI5, Control::Adaptive { rtol, atol }))),
    },
    IntegratorEntry {
        name: "dop853",
        summary: "Dormand-Prince 8(5,3), adaptive (rtol = atol = tolerance)",
        order: 8,
        make: Make::Adaptive(|rtol, atol| Box::new(RungeKutta::new(&DOP853, Control::Adaptive { rtol, atol }))),
    },
];

/// Looks up an integrator by name.
pub fn find(name: &str) -> Option<&'static IntegratorEntry> {
    INTEGRATORS.iter().find(|e| e.name == name)
}
