//! Time integrators for the second-order ODEs ẍ = a(x, ẋ) of the `force` and `lagrangian`
//! formulations (docs/design.md §4).
//!
//! Every integrator advances by one step of at most `h_max` (the runner passes the time left to the
//! end of the run) and counts accepted steps, rejected steps and right-hand-side evaluations. Fixed
//! steps are sampled at step boundaries; the adaptive methods are sampled between boundaries
//! through their continuous extension ([`Integrator::dense_output`]), so sampling never changes
//! the steps. The explicit Runge–Kutta methods share one driver ([`runge_kutta`]); their Butcher
//! tableaux are data.

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
        radau5,
    ];
}
pub mod runge_kutta;
pub mod tableaus;

mod dop853_tableau;
#[cfg(test)]
mod test_ode;

pub use explicit_euler::ExplicitEuler;
pub use runge_kutta::RungeKutta;
pub use symplectic_euler::SymplecticEuler;
pub use verlet::Verlet;

use crate::linsolve::{SolveError, SolverCounters};

/// The second-order ODE a formulation yields for the integrators to advance: ẍ = a(x, ẋ) in its own coordinates x
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
    /// The index in x of a driven scene's clock s (ṡ = 1), if it has one: with fixed steps the
    /// runner sets it to the counted time n h after every step, so that s does not accumulate the
    /// rounding of a sum of steps.
    fn clock_index(&self) -> Option<usize> {
        None
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
    /// Whether a reduced state can be projected onto the constraints it keeps explicit
    /// ([`SecondOrderOde::project`]).
    fn projects(&self) -> bool {
        false
    }
    /// Projects a reduced state onto the constraints it keeps explicit (loop closures) to ‖C‖∞ ≤
    /// `tol` within `max_iter` Gauss–Newton iterations, then its rates onto their velocity
    /// constraints: the `projection` stabilizer for a formulation whose state is not Cartesian.
    fn project(&mut self, _x: &mut [f64], _xd: &mut [f64], _tol: f64, _max_iter: usize) -> Result<(), SolveError> {
        Ok(())
    }
    /// The same mechanism as a constrained DAE, for an integrator of DAEs (`radau5`), when the
    /// formulation offers it (`dae`); None (the default): only the ODE.
    fn dae(&mut self) -> Option<&mut dyn ConstrainedDae> {
        None
    }
}

/// The constrained equations of motion in the mass-matrix form M y′ = F(y) of Hairer & Wanner
/// (Solving ODEs II, §VII.1 and §IV.8's RADAU5 with a mass matrix) for y = (x, ẋ, λ),
/// M = diag(I, I, 0):
///   x′ = G(x) ẋ,   ẋ′ = W (Q(x, ẋ) + J(x)ᵀ λ),   0 = C(x) (index 3) or 0 = J(x) ẋ (index 2).
/// x is index 1; ẋ is index 2 in the index-3 form and index 1 in the index-2 form; λ has the
/// form's index. The x′ rows are the ODE's [`SecondOrderOde::position_rate`].
pub trait ConstrainedDae {
    /// Number of multipliers m (rows of C).
    fn multipliers(&self) -> usize;
    /// The index of the algebraic rows: 3 (C = 0) or 2 (J ẋ = 0).
    fn index(&self) -> u32;
    /// The consistent multipliers at (x, ẋ), from J W Jᵀ λ = −J̇ẋ − J W Q, into `lambda` (force
    /// units).
    fn consistent_multipliers(&mut self, x: &[f64], xd: &[f64], lambda: &mut [f64]) -> Result<(), SolveError>;
    /// The ẋ′ rows W (Q + Jᵀλ) into `acc` and the algebraic rows (C, or J ẋ) into `alg`.
    fn rhs(&mut self, x: &[f64], xd: &[f64], lambda: &[f64], acc: &mut [f64], alg: &mut [f64]);
}

/// Work done by an integrator so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntegratorStats {
    /// Accepted steps.
    pub steps: u64,
    /// Rejected step attempts (adaptive methods).
    pub rejected: u64,
    /// Right-hand-side evaluations a(x, ẋ) of the steps.
    pub rhs_evals: u64,
    /// Evaluations made only to sample inside a step (dop853's three extra dense-output stages);
    /// measurement, not counted in `rhs_evals`.
    pub dense_evals: u64,
    /// Jacobians ∂f/∂y formed (implicit methods; their evaluations are in `rhs_evals`).
    pub jacobians: u64,
    /// Factorizations of the iteration matrix (implicit methods).
    pub decompositions: u64,
    /// Newton iterations (implicit methods).
    pub newton_iterations: u64,
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
    /// An adaptive method's stage evaluation kept failing as the step was cut (each failure a
    /// rejected step) until the step underflowed; the last failure is the source.
    #[error(
        "step size underflow (h = {h:.3e} s): every trial step failed in a stage evaluation, the last with: {source}"
    )]
    StageFailed {
        /// The last step size tried \[s\].
        h: f64,
        /// The last stage's error.
        source: Box<IntegrateError>,
    },
    /// An implicit method at a fixed step: its Newton iteration diverged or did not converge
    /// (or its iteration matrix was singular), and the step may not be shortened.
    #[error("Newton iteration of the implicit step did not converge at the fixed step h = {h:.3e} s")]
    NoConvergence {
        /// The step \[s\].
        h: f64,
    },
}

impl IntegrateError {
    /// Whether the cell's wall-time budget ran out inside the step ([`crate::deadline`]): the
    /// run ends there; it is not a rejected step to retry smaller.
    pub fn is_time_budget(&self) -> bool {
        match self {
            IntegrateError::Solve(e) => matches!(e, SolveError::TimeBudget { .. }),
            IntegrateError::StageFailed { source, .. } => source.is_time_budget(),
            IntegrateError::StepSizeUnderflow { .. } | IntegrateError::NoConvergence { .. } => false,
        }
    }
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
    /// Vectors of length nx + nv that [`Integrator::prepare`] allocates (stages, dense-output
    /// storage), for the memory budget.
    fn workspace_vectors(&self) -> usize {
        4
    }
    /// Dense (nx + nv) × (nx + nv) matrices of f64 that [`Integrator::prepare`] allocates (an
    /// implicit method's Jacobian and factors; a complex matrix counts twice), for the memory
    /// budget.
    fn workspace_matrices(&self) -> usize {
        0
    }
    /// Work so far.
    fn stats(&self) -> IntegratorStats;
    /// The state at t₀ + θ h inside the last accepted step [t₀, t₀ + h], θ ∈ [0, 1], from the
    /// method's continuous extension (Hairer, Nørsett & Wanner I, §II.6), into (x, ẋ). Returns
    /// false when the method has none (the caller samples at step boundaries only).
    fn dense_output(
        &mut self,
        _ode: &mut dyn SecondOrderOde,
        _theta: f64,
        _x: &mut [f64],
        _xd: &mut [f64],
    ) -> Result<bool, IntegrateError> {
        Ok(false)
    }
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
