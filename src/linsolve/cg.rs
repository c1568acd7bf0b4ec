//! Matrix-free conjugate gradient (Hestenes & Stiefel 1952; Witkin 1997 §4.4; Shewchuk 1994, B2).
//!
//! Needs only y = A x, which for A = J W Jᵀ is J (W (Jᵀ x)): two passes over the blocks of J, so no
//! matrix is ever assembled and the cost per iteration is linear in the number of rows. Starts from
//! the warm start in `x`. For redundant but consistent constraints (A singular, b in its range) the
//! iterates stay in the range and converge to a least-squares solution (Witkin §4.4).
//!
//!   r₀ = b − A x₀, p₀ = r₀;  α = rᵀr / pᵀAp;  x += α p;  r −= α A p;  β = r′ᵀr′ / rᵀr;  p = r′ + β p
//!
//! Deviation: where the recurred residual meets the tolerance but the true one, b − A x, does not
//! (they drift apart by O(ε κ)), CG restarts from the true residual, up to 3 times (residual
//! replacement, van der Vorst & Ye 2000); the iterations are counted together.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, Stopping, norm, relative_residual};
use crate::params::ParamTable;

/// The registry entry of `cg`: its parameters are the shared [`Stopping`] rule.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "cg",
    summary: "matrix-free conjugate gradient on J W J^T (Witkin 4.4), warm start",
    kind: SolverKind::Iterative,
    accepts: super::registry::ANY_SYMMETRIC,
    params: ParamTable::of::<Stopping>(),
    build: |p| Box::new(Cg::new(*p.get())),
    // Memory: matrix-free: x, r, p, A p, warm start, residual and J-sized scratch.
    memory: |f| f.sparse(0, 8 * 8),
};

/// Conjugate gradient on the operator, with warm start.
#[derive(Debug)]
pub struct Cg {
    stop: Stopping,
    r: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
    scratch: Vec<f64>,
}

impl Cg {
    /// A CG solver with the given stopping rule.
    pub fn new(stop: Stopping) -> Self {
        Cg { stop, r: vec![], p: vec![], ap: vec![], scratch: vec![] }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl LinearSolver for Cg {
    fn name(&self) -> &'static str {
        "cg"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let n = op.dim();
        self.r = vec![0.0; n];
        self.p = vec![0.0; n];
        self.ap = vec![0.0; n];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let nb = norm(b);
        if nb == 0.0 {
            x.fill(0.0);
            return Ok(SolveInfo { iterations: 0, residual: 0.0 });
        }
        let mut iterations = 0;
        // The recurred residual drifts from the true one by O(ε κ): where it says converged but
        // b − A x does not, restart from the true residual (residual replacement, van der Vorst
        // & Ye 2000), at most `REPLACEMENTS` times.
        let mut residual = f64::INFINITY;
        for _ in 0..=REPLACEMENTS {
            self.iterate(op, b, x, nb, &mut iterations)?;
            // Report the true residual, not the recurrence.
            residual = relative_residual(op, b, x, &mut self.ap, &mut self.scratch);
            if residual <= self.stop.tol || iterations >= self.stop.max_iter {
                break;
            }
        }
        self.stop.finish("cg", iterations, residual)
    }
}

/// Restarts from the true residual after the recurrence has converged (see [`Cg`]'s solve).
const REPLACEMENTS: usize = 3;

impl Cg {
    /// CG from r = b − A x until the recurred residual is within tol·‖b‖ or `iterations` reaches
    /// the cap, counting into `iterations`.
    fn iterate(&mut self, op: &Operator, b: &[f64], x: &mut [f64], nb: f64, iterations: &mut usize) -> Result<(), SolveError> {
        op.apply(x, &mut self.ap, &mut self.scratch);
        for ((r, bi), ai) in self.r.iter_mut().zip(b).zip(&self.ap) {
            *r = bi - ai;
        }
        self.p.copy_from_slice(&self.r);
        let mut rr = dot(&self.r, &self.r);
        while rr.sqrt() > self.stop.tol * nb && *iterations < self.stop.max_iter {
            crate::linsolve::SolveError::check_deadline("cg", *iterations)?;
            op.apply(&self.p, &mut self.ap, &mut self.scratch);
            let pap = dot(&self.p, &self.ap);
            if !(pap > 0.0) {
                return Err(SolveError::Breakdown {
                    solver: "cg",
                    iterations: *iterations,
                    reason: "p^T A p <= 0: matrix not positive semi-definite or inconsistent right-hand side",
                });
            }
            let alpha = rr / pap;
            for ((xi, pi), (ri, api)) in x.iter_mut().zip(&self.p).zip(self.r.iter_mut().zip(&self.ap)) {
                *xi += alpha * pi;
                *ri -= alpha * api;
            }
            let rr_new = dot(&self.r, &self.r);
            let beta = rr_new / rr;
            for (pi, ri) in self.p.iter_mut().zip(&self.r) {
                *pi = ri + beta * *pi;
            }
            rr = rr_new;
            *iterations += 1;
        }
        Ok(())
    }
}
