//! The integrator registry: what an integrator entry is, and the lookup. Integrators are for the
//! ODE formulations; stepping formulations are their own integrators and take only a step size.
//! The list itself ([`INTEGRATORS`]) is declared in `integrator/mod.rs` from the files' names:
//! adding an integrator = one file (its `Integrator`, or its Butcher tableau for the shared
//! Runge–Kutta driver, and its `ENTRY`) + one name there; the order tests and `tinkertoy list`
//! pick it up.

pub use super::INTEGRATORS;
use super::{Control, Integrator};

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
    /// Whether it integrates the constrained equations in DAE form
    /// ([`super::ConstrainedDae`]), and so pairs with the `dae` formulation.
    pub dae: bool,
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
    pub fn build(&self, control: Control) -> Result<Box<dyn Integrator>, ControlError> {
        match (self.make, control) {
            (Make::Fixed(make), Control::Fixed { h }) => Ok(make(h)),
            (Make::Adaptive(make), Control::Adaptive { rtol, atol }) => Ok(make(rtol, atol)),
            (Make::Fixed(_), Control::Adaptive { .. }) => Err(ControlError::WantsStep(self.name)),
            (Make::Adaptive(_), Control::Fixed { .. }) => Err(ControlError::WantsTolerances(self.name)),
        }
    }
}

/// An integrator given the other kind of step control than it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// A fixed-step integrator (named) given tolerances.
    #[error("integrator `{0}` takes a step size h, not tolerances")]
    WantsStep(&'static str),
    /// An adaptive integrator (named) given a step size.
    #[error("integrator `{0}` takes tolerances, not a step size")]
    WantsTolerances(&'static str),
}

/// Looks up an integrator by name.
pub fn find(name: &str) -> Option<&'static IntegratorEntry> {
    INTEGRATORS.iter().find(|e| e.name == name)
}
