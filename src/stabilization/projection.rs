//! `projection` — post-stabilization onto the constraint manifold (Ascher, Chin & Reich 1994;
//! Hairer, Lubich & Wanner, GNI §IV.4 "projection methods"; Cline & Pai 2003 for rigid bodies).
//!
//! After a step, positions are projected onto C(q) = 0 by Gauss–Newton in the metric of M,
//!   (J W Jᵀ) δ = −C(q),   q ← q ⊕ W Jᵀ δ,        repeated until ‖C‖∞ ≤ tol,
//! with J re-evaluated (and J W Jᵀ refactored) at every iterate, so convergence is quadratic; then
//! velocities onto J v = 0 with the factorization of the final iterate,
//!   (J W Jᵀ) μ = −J v,   v ← v + W Jᵀ μ.
//! Both corrections are the M-orthogonal projections, so they remove only constraint-violating
//! motion. A correction that does not decrease ‖C‖∞ is halved (up to 8 times; backtracking, as in
//! damped Gauss–Newton, Nocedal & Wright §10.3), which keeps the iteration from overshooting near
//! ill-conditioned (nearly straight) configurations. Failing to reach tol within max_iter ends the
//! run as a failure.

use super::Stabilizer;
use crate::linsolve::SolveError;
use crate::linsolve::SolverCounters;
use crate::metrics::inf_norm;
use crate::normal_solve::NormalSolve;

/// Position and velocity projection with its workspaces.
pub struct Projection<'a> {
    ns: NormalSolve<'a>,
    tol: f64,
    max_iter: usize,
    c: Vec<f64>,
    tmp: Vec<f64>,
    dq: Vec<f64>,
    q_save: Vec<f64>,
}

impl<'a> Projection<'a> {
    /// Projection to ‖C‖∞ ≤ `tol` (units of C) within `max_iter` Gauss–Newton iterations, solving
    /// with the workspace `ns`.
    pub fn new(ns: NormalSolve<'a>, tol: f64, max_iter: usize) -> Self {
        let (n, m) = (ns.system.ndof(), ns.system.nrows());
        let nq = ns.system.nq();
        Projection { ns, tol, max_iter, c: vec![0.0; m], tmp: vec![0.0; n], dq: vec![0.0; n], q_save: vec![0.0; nq] }
    }
}

impl Stabilizer for Projection<'_> {
    fn apply(&mut self, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let sys = self.ns.system;
        let mut it = 0;
        loop {
            sys.eval_constraints(q, &mut self.c);
            let res = inf_norm(&self.c);
            if res <= self.tol {
                break;
            }
            if it >= self.max_iter || !res.is_finite() {
                return Err(SolveError::NotConverged {
                    solver: "projection",
                    iterations: it,
                    residual: res,
                    tol: self.tol,
                });
            }
            self.ns.update_jacobian(q);
            for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                *r = -c;
            }
            self.ns.lambda.fill(0.0);
            self.ns.solve(true)?;
            // Δq = W Jᵀ δ, halved while it does not reduce ‖C‖∞.
            self.dq.fill(0.0);
            self.ns.add_w_jt(&self.ns.lambda, 1.0, &mut self.dq, &mut self.tmp);
            self.q_save.copy_from_slice(q);
            let mut scale = 1.0;
            for _ in 0..8 {
                sys.advance(q, &self.dq, scale);
                sys.eval_constraints(q, &mut self.c);
                if inf_norm(&self.c) < res {
                    break;
                }
                q.copy_from_slice(&self.q_save);
                scale *= 0.5;
            }
            it += 1;
        }
        // Velocity projection at the projected q.
        self.ns.update_jacobian(q);
        self.ns.jac.mul(v, &mut self.ns.rhs);
        for r in self.ns.rhs.iter_mut() {
            *r = -*r;
        }
        self.ns.lambda.fill(0.0);
        self.ns.solve(true)?;
        self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        Ok(())
    }

    fn counters(&self) -> SolverCounters {
        self.ns.counters
    }

    fn target(&self) -> Option<(f64, usize)> {
        Some((self.tol, self.max_iter))
    }
}
