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
//! DEVIATION: applied forces that depend on v are evaluated at the current velocity estimate, which
//! keeps order 2 but not exact symplecticity (true of any damping anyway).

use super::normal::NormalSolve;
use super::{NotApplicable, SolverCounters, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::metrics::inf_norm;
use crate::scene::Scene;

/// Options of the RATTLE stepper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RattleOptions {
    /// Newton stops when ‖C(q)‖∞ ≤ tol (units of the constraint rows).
    pub tol: f64,
    /// Newton iteration cap per step.
    pub max_iter: usize,
}

/// The RATTLE stepper on one scene, with its workspaces.
pub struct Rattle<'a> {
    ns: NormalSolve<'a>,
    opts: RattleOptions,
    applied: Vec<f64>,
    c: Vec<f64>,
    lam: Vec<f64>,
    tmp: Vec<f64>,
    factored_at: Vec<f64>,
    has_factor: bool,
    qhat: Vec<f64>,
    force_evals: u64,
}

impl<'a> Rattle<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: RattleOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (n, m) = (scene.system.ndof(), scene.system.nrows());
        Ok(Rattle {
            ns: NormalSolve::new(&scene.system, solver)?,
            opts,
            applied: vec![0.0; n],
            c: vec![0.0; m],
            lam: vec![0.0; m],
            tmp: vec![0.0; n],
            factored_at: vec![f64::NAN; n],
            has_factor: false,
            qhat: vec![0.0; n],
            force_evals: 0,
        })
    }
}

impl Stepper for Rattle<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let sys = self.ns.system;
        let w = sys.inv_mass();
        // Factorization of Jₙ W Jₙᵀ: left by the previous velocity projection if q has not moved.
        let mut factored = self.has_factor && self.factored_at.as_slice() == &*q;
        if !factored {
            self.ns.update_jacobian(q);
        }
        // v½ (without constraint force) and the unconstrained position q + h v½.
        sys.applied_forces(q, v, &mut self.applied);
        self.force_evals += 1;
        for i in 0..v.len() {
            v[i] += 0.5 * h * w[i] * self.applied[i];
            q[i] += h * v[i];
        }
        self.lam.fill(0.0);
        let mut it = 0;
        loop {
            sys.eval_constraints(q, &mut self.c);
            let res = inf_norm(&self.c);
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
            // (Jₙ W Jₙᵀ) δ = −(2/h²) C;  Λ += δ;  q += (h²/2) W Jₙᵀ δ
            for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                *r = -2.0 / (h * h) * c;
            }
            self.ns.lambda.fill(0.0);
            if factored {
                self.ns.solve_same(true)?
            } else {
                self.ns.solve(true)?
            }
            factored = true;
            for (l, d) in self.lam.iter_mut().zip(&self.ns.lambda) {
                *l += d;
            }
            self.ns.add_w_jt(&self.ns.lambda, 0.5 * h * h, q, &mut self.tmp);
            it += 1;
        }
        // v½ gets the position constraint impulse: q = qₙ + h v½.
        self.ns.add_w_jt(&self.lam, 0.5 * h, v, &mut self.tmp);
        // Second half kick and projection onto Jₙ₊₁ v = 0.
        sys.applied_forces(q, v, &mut self.applied);
        self.force_evals += 1;
        for i in 0..v.len() {
            v[i] += 0.5 * h * w[i] * self.applied[i];
        }
        self.ns.update_jacobian(q);
        self.ns.jac.mul(v, &mut self.ns.rhs);
        for r in self.ns.rhs.iter_mut() {
            *r = -*r;
        }
        self.ns.lambda.fill(0.0);
        self.ns.solve(true)?;
        self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        self.factored_at.copy_from_slice(q);
        self.has_factor = true;
        // The force of the last half step, for the power metric: Q̂ = Jᵀμ' / (h/2).
        self.ns.jac.mul_t(&self.ns.lambda, &mut self.qhat);
        for x in self.qhat.iter_mut() {
            *x *= 2.0 / h;
        }
        Ok(())
    }

    fn constraint_force(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.qhat);
    }

    fn solver_counters(&self) -> SolverCounters {
        self.ns.counters
    }

    fn force_evaluations(&self) -> u64 {
        self.force_evals
    }
}
