//! Constraint formulations (docs/design.md §2): what the multipliers λ mean and which system is solved.
//!
//! A formulation turns a scene and a linear solver into [`Dynamics`]: either a second-order ODE
//! ẍ = a(x, ẋ) that any ODE integrator can advance (`force`, `lagrangian`), or a time stepper that
//! is its own integrator (`impulse`). Formulations consume the constraints' C, J and J̇v through the
//! system and the block-sparse Jacobian; no formulation contains Jacobian code.

mod krylov;
pub mod registry;
mod soft_contact;
pub mod softness;
pub mod stepper_core;
mod xpbd_contact;

registry! {
    /// Every formulation, in `list` order.
    pub const FORMULATIONS: &[registry::FormulationEntry] = [
        force,
        impulse,
        pgs,
        rattle,
        midpoint,
        generalized_alpha,
        xpbd,
        xpbd_newton,
        soft_step,
        lagrangian,
        dae,
    ];
}

pub use dae::{Dae, DaeParams};
pub use force::{Force, ForceParams};
pub use generalized_alpha::{GeneralizedAlpha, GeneralizedAlphaOptions};
pub use impulse::Impulse;
pub use lagrangian::{Lagrangian, LagrangianParams};
pub use midpoint::{Midpoint, MidpointOptions};
pub use pgs::{Pgs, PgsOptions};
pub use rattle::{Rattle, RattleOptions};
pub use soft_step::{SoftStep, SoftStepOptions};
pub use xpbd::{Xpbd, XpbdOptions};
pub use xpbd_newton::{XpbdNewton, XpbdNewtonOptions};

pub use crate::integrator::SecondOrderOde;
use crate::linsolve::SolveError;
pub use crate::linsolve::SolverCounters;
pub use crate::normal_solve::NotApplicable;

/// A formulation that is its own time stepper, acting on the Cartesian state directly.
pub trait Stepper: Send {
    /// Advances (q, v) by one step of length `h` \[s\].
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError>;
    /// The shared workspace (solve, forces, counters).
    fn core(&self) -> &stepper_core::StepperCore<'_>;
    /// The constraint force Q̂ of the last (sub)step, for the power metric.
    fn constraint_force(&mut self, out: &mut [f64]) {
        out.copy_from_slice(&self.core().qhat);
    }
    /// The multipliers λ at the end of the last step in force units (one per constraint row of
    /// the system), where the formulation estimates them to its own order; None (the default):
    /// the observer recovers λ from [`Stepper::constraint_force`] at the step's end
    /// configuration, which is exact for a stepper whose Q̂ is the end point's force.
    fn end_multipliers(&self) -> Option<&[f64]> {
        None
    }
    /// Cumulative solver work.
    fn solver_counters(&self) -> SolverCounters {
        self.core().ns.counters
    }
    /// Step attempts abandoned so far (a step redone in smaller pieces); 0 for fixed schemes.
    fn rejected_steps(&self) -> u64 {
        0
    }
    /// Right-hand-side (applied force) evaluations so far.
    fn force_evaluations(&self) -> u64 {
        self.core().force_evals
    }
    /// The frictional contact problem the last step solved, in FCLIB's local form, for a
    /// stepper that solves one (`pgs`); None for the others, or the reason it cannot be written.
    fn contact_problem(&self) -> Option<Result<crate::friction::LocalProblem, crate::friction::ProblemError>> {
        None
    }
}

/// What a formulation becomes on a scene (borrowing the scene's system).
pub enum Dynamics<'a> {
    /// An ODE for an integrator.
    Ode(Box<dyn SecondOrderOde + 'a>),
    /// A self-contained stepper.
    Stepper(Box<dyn Stepper + 'a>),
}

/// Feedback gains of a damped spring on the constraint error, C̈ = −k_s C − k_d Ċ, given either
/// directly or as a natural frequency and damping ratio (k_s = ω², k_d = 2ζω), the language of
/// Box2D, Rapier, MuJoCo and Drake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// Stiffness k_s \[1/s²\].
    pub ks: f64,
    /// Damping k_d \[1/s\].
    pub kd: f64,
}

impl Gains {
    /// From frequency ω \[rad/s\] and damping ratio ζ \[1\] (see [`softness::Spring`]).
    pub fn from_frequency(omega: f64, zeta: f64) -> Self {
        softness::Spring { omega, zeta }.gains()
    }
}
