//! The integrator registry: the only list of time integrators. Adding one = one file (or one
//! tableau) + one line here; the order tests and `tinkertoy list` pick it up.

use super::tableaus::{DOP853, DOPRI5, RK4};
use super::{Control, ExplicitEuler, Integrator, RungeKutta, SymplecticEuler, Verlet};

/// How an integrator chooses its steps, and what it pairs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegratorKind {
    /// Fixed step h, for ODE formulations; `order` is its convergence order.
    Fixed {
        /// Global order of accuracy.
        order: u32,
    },
    /// Error-controlled steps from tolerances, for ODE formulations.
    Adaptive {
        /// Order of the propagated solution.
        order: u32,
    },
    /// The formulation's own time stepper (for stepping formulations such as `impulse`), fixed h.
    Stepper,
}

/// One registered integrator.
pub struct IntegratorEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: the scheme.
    pub summary: &'static str,
    /// Step control and pairing.
    pub kind: IntegratorKind,
    /// Builds the integrator for an ODE formulation (None for [`IntegratorKind::Stepper`]).
    pub build: Option<fn(Control) -> Box<dyn Integrator>>,
}

fn fixed_h(control: Control) -> f64 {
    match control {
        Control::Fixed { h } => h,
        Control::Adaptive { .. } => unreachable!("the runner gives fixed-step integrators a step size"),
    }
}

/// Every integrator.
pub const INTEGRATORS: &[IntegratorEntry] = &[
    IntegratorEntry {
        name: "explicit_euler",
        summary: "forward Euler, order 1, not symplectic",
        kind: IntegratorKind::Fixed { order: 1 },
        build: Some(|c| Box::new(ExplicitEuler::new(fixed_h(c)))),
    },
    IntegratorEntry {
        name: "symplectic_euler",
        summary: "semi-implicit Euler, order 1, symplectic (seed 002)",
        kind: IntegratorKind::Fixed { order: 1 },
        build: Some(|c| Box::new(SymplecticEuler::new(fixed_h(c)))),
    },
    IntegratorEntry {
        name: "verlet",
        summary: "velocity Verlet, order 2, symmetric",
        kind: IntegratorKind::Fixed { order: 2 },
        build: Some(|c| Box::new(Verlet::new(fixed_h(c)))),
    },
    IntegratorEntry {
        name: "rk4",
        summary: "classic Runge-Kutta, order 4 (seed 003)",
        kind: IntegratorKind::Fixed { order: 4 },
        build: Some(|c| Box::new(RungeKutta::new(&RK4, c))),
    },
    IntegratorEntry {
        name: "dopri5",
        summary: "Dormand-Prince 5(4), adaptive (rtol = atol = tolerance)",
        kind: IntegratorKind::Adaptive { order: 5 },
        build: Some(|c| Box::new(RungeKutta::new(&DOPRI5, c))),
    },
    IntegratorEntry {
        name: "dop853",
        summary: "Dormand-Prince 8(5,3), adaptive (rtol = atol = tolerance)",
        kind: IntegratorKind::Adaptive { order: 8 },
        build: Some(|c| Box::new(RungeKutta::new(&DOP853, c))),
    },
    IntegratorEntry {
        name: "stepper",
        summary: "the formulation's own time stepper (impulse), fixed h",
        kind: IntegratorKind::Stepper,
        build: None,
    },
];

/// Looks up an integrator by name.
pub fn find(name: &str) -> Option<&'static IntegratorEntry> {
    INTEGRATORS.iter().find(|e| e.name == name)
}
