//! Constraint formulations (DESIGN.md §2): what the multipliers λ mean and which system is solved.
//!
//! A formulation turns a scene and a linear solver into [`Dynamics`]: either a second-order ODE
//! ẍ = a(x, ẋ) that any ODE integrator can advance (`force`, `lagrangian`), or a time stepper that
//! is its own integrator (`impulse`). Formulations consume the constraints' C, J and J̇v through the
//! system and the block-sparse Jacobian; no formulation contains Jacobian code.

pub mod normal;
pub mod registry;

registry! {
    /// Every formulation, in `list` order.
    pub const FORMULATIONS: &[registry::FormulationEntry] = [
        force,
        impulse,
        pgs,
        rattle,
        xpbd,
        soft_step,
        lagrangian,
    ];
}

pub use force::{Force, ForceParams};
pub use impulse::Impulse;
pub use lagrangian::{Lagrangian, LagrangianParams};
pub use pgs::{Pgs, PgsOptions};
pub use rattle::{Rattle, RattleOptions};
pub use soft_step::{SoftStep, SoftStepOptions};
pub use xpbd::{Xpbd, XpbdOptions};

use crate::linsolve::{SolveError, SolveInfo};

/// Cumulative linear-solver work of a formulation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverCounters {
    /// Linear solves.
    pub solves: u64,
    /// Solver iterations summed over solves (1 per direct solve).
    pub iterations: u64,
    /// Largest relative residual any solve ended with.
    pub max_residual: f64,
}

impl SolverCounters {
    /// Records one solve.
    pub fn record(&mut self, info: SolveInfo) {
        self.solves += 1;
        self.iterations += info.iterations as u64;
        self.max_residual = self.max_residual.max(info.residual);
    }
}

/// A formulation that yields the second-order ODE ẍ = a(x, ẋ) in its own coordinates x
/// (Cartesian q for `force`, reduced u for `lagrangian`).
///
/// x may live on a manifold (the unit quaternions of rigid-3D bodies): then ẋ is a velocity of
/// another length than x, x moves only through [`SecondOrderOde::advance`] (fixed-step methods) or
/// through its rate [`SecondOrderOde::position_rate`] followed by [`SecondOrderOde::normalize`]
/// (Runge–Kutta methods, which step in the embedding). The defaults are those of a vector space.
pub trait SecondOrderOde: Send {
    /// Number of velocity coordinates in ẋ (and in the acceleration).
    fn dim(&self) -> usize;
    /// Number of position coordinates in x (`dim()` unless x holds quaternions).
    fn position_dim(&self) -> usize {
        self.dim()
    }
    /// x ← x ⊕ h ẋ: the position update of a fixed-step method (x + h ẋ in a vector space, the
    /// exponential map for orientations).
    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        for (xi, vi) in x.iter_mut().zip(xd) {
            *xi += h * vi;
        }
    }
    /// The time derivative of x at velocity ẋ (ẋ itself in a vector space), into `out`.
    fn position_rate(&self, _x: &[f64], xd: &[f64], out: &mut [f64]) {
        out.copy_from_slice(xd);
    }
    /// Restores the invariants of x after a step taken in the embedding (unit quaternions);
    /// returns whether x has any.
    fn normalize(&self, _x: &mut [f64]) -> bool {
        false
    }
    /// The initial (x, ẋ) from the scene's initial state.
    fn initial(&self, x: &mut [f64], xd: &mut [f64]);
    /// The acceleration a(x, ẋ): one right-hand-side evaluation (one linear solve).
    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError>;
    /// The Cartesian state (q, v) of (x, ẋ).
    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]);
    /// The Cartesian acceleration q̈ of the ODE acceleration `a` = ẍ at (x, ẋ) (identity for
    /// Cartesian formulations). Validation derives the applied constraint force M q̈ − Q from it.
    fn cartesian_acceleration(&self, x: &[f64], xd: &[f64], a: &[f64], out: &mut [f64]);
    /// The constraint force Q̂ in Cartesian coordinates at (x, ẋ), for measurement only (its solve
    /// is not counted as cost).
    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError>;
    /// Cumulative solver work of the evaluations so far (measurement solves excluded).
    fn solver_counters(&self) -> SolverCounters;
    /// Whether x is the Cartesian q itself (so a post-step stabilizer may correct it).
    fn is_cartesian(&self) -> bool {
        false
    }
}

/// A formulation that is its own time stepper, acting on the Cartesian state directly.
pub trait Stepper: Send {
    /// Advances (q, v) by one step of length `h` \[s\].
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError>;
    /// The shared workspace (solve, forces, counters).
    fn core(&self) -> &normal::StepperCore<'_>;
    /// The constraint force Q̂ of the last (sub)step, for the power metric.
    fn constraint_force(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.core().qhat);
    }
    /// Cumulative solver work.
    fn solver_counters(&self) -> SolverCounters {
        self.core().ns.counters
    }
    /// Right-hand-side (applied force) evaluations so far.
    fn force_evaluations(&self) -> u64 {
        self.core().force_evals
    }
}

/// What a formulation becomes on a scene (borrowing the scene's system).
pub enum Dynamics<'a> {
    /// An ODE for an integrator.
    Ode(Box<dyn SecondOrderOde + 'a>),
    /// A self-contained stepper.
    Stepper(Box<dyn Stepper + 'a>),
}

/// Why a formulation cannot run on a scene (or with a solver), stated for the report.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotApplicable(pub String);

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
    /// From frequency ω \[rad/s\] and damping ratio ζ \[1\].
    pub fn from_frequency(omega: f64, zeta: f64) -> Self {
        Gains { ks: omega * omega, kd: 2.0 * zeta * omega }
    }
}
