//! `rattle` — SHAKE/RATTLE for holonomic constraints (Ryckaert, Ciccotti & Berendsen 1977;
//! Andersen 1983; Hairer, Lubich & Wanner, Geometric Numerical Integration, §VII.1.4, eq. 1.26):
//! symmetric, symplectic (for conservative forces), order 2, exactly on the constraint manifold.
//!
//! One step of length h, in velocity form (W = M⁻¹, Jₙ = J(qₙ)):
//!   v½ = vₙ + h/2 W (Q(qₙ) + Jₙᵀ Λ),   qₙ₊₁ = qₙ + h v½,   C(qₙ₊₁) = 0      (solve for Λ)
//!   vₙ₊₁ = v½ + h/2 W (Q(qₙ₊₁) + Jₙ₊₁ᵀ μ),                 Jₙ₊₁ vₙ₊₁ = 0    (solve for μ)
//! Λ is found by simplified Newton, (Jₙ W Jₙᵀ) δ = −(2/h²) C(qₙ₊₁(Λ)), Λ += δ, until ‖C‖∞ ≤ tol,
//! reusing one factorization of Jₙ W Jₙᵀ for every iteration (`solve_same`). The velocity
//! projection at qₙ₊₁ factors Jₙ₊₁ W Jₙ₊₁ᵀ, which is exactly the next step's Jₙ W Jₙᵀ: one
//! factorization per step. Newton failing to reach tol within max_iter ends the run as a failure.
//! Every Newton iterate is rebuilt from qₙ, qₙ₊₁ = qₙ ⊕ h v½(Λ), so that with rigid-3D bodies
//! (where ⊕ is the exponential map and does not compose additively) the converged qₙ₊₁ and v½
//! still satisfy the first line exactly; for bodies with q̇ = v this equals q += (h²/2) W Jₙᵀ δ.
//! DEVIATION: applied forces that depend on v are evaluated at the current velocity estimate, which
//! keeps order 2 but not exact symplecticity (true of any damping anyway). With rigid-3D bodies
//! the update is the exponential-map (Lie group) variant of RATTLE, which is symmetric and of
//! order 2 but not the symplectic RATTLE of the rotation-matrix formulation (GNI §VII.5).

use super::Dynamics;
use super::stepper_core::StepperCore;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::metrics::inf_norm;
use crate::params::Params;
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the RATTLE stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RattleOptions {
    /// Newton stops when |C|inf <= tol
    #[schemars(extend("unit" = "units of C", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// Newton iterations per step before the run fails
    #[schemars(range(min = 1, max = 100_000))]
    pub max_iter: usize,
    /// Tikhonov term added to the diagonal of J W Jᵀ in the Newton and projection solves (0: none); it makes redundant rows solvable; the position Newton still iterates to |C| <= tol, the velocity projection is left with J v = reg · μ
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "units of J W Jᵀ"))]
    pub reg: f64,
}

impl Default for RattleOptions {
    fn default() -> Self {
        RattleOptions { tol: 1e-10, max_iter: 50, reg: 0.0 }
    }
}

impl Params for RattleOptions {}

impl FormulationParams for RattleOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Rattle::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `rattle`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<RattleOptions>(
    "rattle",
    "SHAKE/RATTLE: symplectic, order 2, on C = 0 and J v = 0 to tol (Newton with one factorization per step)",
    FormulationKind::Stepper,
);

/// The RATTLE stepper on one scene, with its workspaces.
pub struct Rattle<'a> {
    core: StepperCore<'a>,
    opts: RattleOptions,
    factored_at: Vec<f64>,
    has_factor: bool,
    q_base: Vec<f64>,
    v_half: Vec<f64>,
}

impl<'a> Rattle<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: RattleOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (nq, n) = (scene.system.nq(), scene.system.ndof());
        let mut core = StepperCore::new(scene, solver)?;
        core.ns.reg = opts.reg;
        Ok(Rattle {
            core,
            opts,
            factored_at: vec![f64::NAN; nq],
            has_factor: false,
            q_base: vec![0.0; nq],
            v_half: vec![0.0; n],
        })
    }
}

impl Stepper for Rattle<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let sys = self.core.ns.system;
        // Factorization of Jₙ W Jₙᵀ: left by the previous velocity projection if q has not moved.
        let mut factored = self.has_factor && self.factored_at.as_slice() == &*q;
        if !factored {
            self.core.ns.update_jacobian(q);
        }
        // v½ (without constraint force) and the unconstrained position q + h v½.
        self.core.integrate_velocities(q, v, 0.5 * h);
        self.q_base.copy_from_slice(q);
        self.core.integrate_positions(q, v, h);
        self.core.accumulated.fill(0.0);
        let mut it = 0;
        loop {
            sys.eval_constraints(q, &mut self.core.c);
            let res = inf_norm(&self.core.c);
            if res <= self.opts.tol {
                break;
            }
            if it >= self.opts.max_iter || !res.is_finite() {
                return Err(SolveError::NotConverged {
                    solver: "rattle newton",
                    iterations: it,
                    residual: res,
                    tol: self.opts.tol,
                });
            }
            // (Jₙ W Jₙᵀ) δ = −(2/h²) C;  Λ += δ;  q = qₙ ⊕ h (v½* + (h/2) W Jₙᵀ Λ)
            for (r, c) in self.core.ns.rhs.iter_mut().zip(&self.core.c) {
                *r = -2.0 / (h * h) * c;
            }
            self.core.ns.lambda.fill(0.0);
            if factored {
                self.core.ns.solve_same(true)?
            } else {
                self.core.ns.solve(true)?
            }
            factored = true;
            for (l, d) in self.core.accumulated.iter_mut().zip(&self.core.ns.lambda) {
                *l += d;
            }
            self.v_half.copy_from_slice(v);
            self.core.ns.add_w_jt(&self.core.accumulated, 0.5 * h, &mut self.v_half, &mut self.core.tmp);
            q.copy_from_slice(&self.q_base);
            sys.advance(q, &self.v_half, h);
            it += 1;
        }
        // v½ gets the position constraint impulse: q = qₙ + h v½.
        self.core.ns.add_w_jt(&self.core.accumulated, 0.5 * h, v, &mut self.core.tmp);
        // Second half kick and projection onto Jₙ₊₁ v = 0.
        self.core.integrate_velocities(q, v, 0.5 * h);
        self.core.project(q, v)?;
        self.factored_at.copy_from_slice(q);
        self.has_factor = true;
        // The force of the last half step, for the power metric: Q̂ = Jᵀμ' / (h/2).
        self.core.force_from_solution(2.0 / h);
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }
}
