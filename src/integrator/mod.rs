//! Time integrators for the second-order ODEs ẍ = a(x, ẋ) of the `force` and `lagrangian`
//! formulations (DESIGN.md §4).
//!
//! Every integrator advances by one step of at most `h_max` (so the runner lands exactly on its
//! sample times) and counts accepted steps, rejected steps and right-hand-side evaluations. The
//! explicit Runge–Kutta methods share one driver ([`runge_kutta`]); their Butcher tableaux are data.

pub mod registry;

registry! {
    /// Every integrator, in `list` order.
    pub const INTEGRATORS: &[registry::IntegratorEntry] = [
        explicit_euler,
        symplectic_euler,
        verlet,
        rk4,
        dopri5,
        dop853,
    ];
}
pub mod runge_kutta;
pub mod tableaus;

mod dop853_tableau;

pub use explicit_euler::ExplicitEuler;
pub use runge_kutta::RungeKutta;
pub use symplectic_euler::SymplecticEuler;
pub use verlet::Verlet;

use crate::formulation::SecondOrderOde;
use crate::linsolve::SolveError;

/// Work done by an integrator so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegratorStats {
    /// Accepted steps.
    pub steps: u64,
    /// Rejected step attempts (adaptive methods).
    pub rejected: u64,
    /// Right-hand-side evaluations a(x, ẋ).
    pub rhs_evals: u64,
}

/// How the step size is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control {
    /// Constant step h \[s\].
    Fixed {
        /// Step size \[s\].
        h: f64,
    },
    /// Error-controlled steps: accept when the scaled local error estimate ≤ 1, with scale
    /// atol + rtol·|y| per component.
    Adaptive {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance (units of the state components).
        atol: f64,
    },
}

/// Why a step failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IntegrateError {
    /// The formulation's linear solve failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// An adaptive method shrank the step below what the time resolution allows.
    #[error("step size underflow (h = {h:.3e} s)")]
    StepSizeUnderflow {
        /// The last step size tried.
        h: f64,
    },
}

/// A one-step method for ẍ = a(x, ẋ).
pub trait Integrator: Send {
    /// Allocates workspaces for `nx` position and `nv` velocity coordinates (once per run).
    fn prepare(&mut self, nx: usize, nv: usize);
    /// Advances (x, ẋ) by one step of at most `h_max` \[s\]; returns the step length taken.
    fn step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        x: &mut [f64],
        xd: &mut [f64],
        h_max: f64,
    ) -> Result<f64, IntegrateError>;
    /// Work so far.
    fn stats(&self) -> IntegratorStats;
    /// Forgets values cached from the previous step (first-same-as-last stages, Verlet's last
    /// acceleration): called when the state was changed between steps, e.g. by a projection.
    fn reset(&mut self) {}
}

/// The fixed step to take when `h_max` \[s\] remains before the next sample: h itself, or exactly
/// `h_max` when that is not longer than h (up to 1e-9 relative, so rounding in the sample times
/// never creates a sliver step).
pub fn fixed_step(h: f64, h_max: f64) -> f64 {
    if h_max <= h * (1.0 + 1e-9) { h_max } else { h }
}
