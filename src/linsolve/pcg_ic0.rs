//! Conjugate gradient preconditioned by an incomplete Cholesky factorization without fill, IC(0)
//! (Meijerink & van der Vorst 1977; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
//! §10.3.2 and Algorithm 9.1 for PCG).
//!
//! A = J W Jᵀ (+ reg I) is assembled into its fixed upper-triangle pattern (the one
//! `sparse_cholesky` uses) and factored as A ≈ Uᵀ U with U restricted to that pattern:
//!   U_ij = (A_ij − Σ_{k<i} U_ki U_kj) / U_ii  (i < j),   U_jj = √(A_jj − Σ_{k<j} U_kj²),
//! the sums over the rows k present in both columns. Then PCG with M = Uᵀ U:
//!   r₀ = b − A x₀, z₀ = M⁻¹ r₀, p₀ = z₀;  α = rᵀz / pᵀAp;  x += α p;  r −= α A p;
//!   z = M⁻¹ r;  β = r′ᵀz′ / rᵀz;  p = z′ + β p.
//! Where the constraint graph is a tree in row order (a chain: tridiagonal A), IC(0) has no dropped
//! fill and is the exact Cholesky factor, so PCG converges in one iteration; on a grid (cloth) it is
//! an approximation and the iteration count grows slowly with size. If a pivot is not positive (IC(0)
//! can break down on matrices that are not M-matrices), the factorization is repeated on A + σ D
//! with σ = 1e-3, 1e-2, … (Manteuffel 1980); the shift only changes the preconditioner, not the
//! system solved. Unlike `cg`, this solver assembles A (no longer matrix-free).

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, Stopping, norm};
use crate::params::ParamTable;

/// Restarts from the true residual after the recurrence has converged (see the solve).
const REPLACEMENTS: usize = 3;

impl PcgIc0 {
    /// PCG from r = b − A x with the factors in `u` until the recurred residual is within
    /// tol·‖b‖ or `iterations` reaches the cap, counting into `iterations`.
    fn iterate(
        &mut self,
        pattern: &crate::sparse::NormalMatrix,
        x: &mut [f64],
        b: &[f64],
        nb: f64,
        iterations: &mut usize,
    ) -> Result<(), SolveError> {
        let (col_ptr, row_idx) = pattern.csc();
        pattern.mul_symmetric(&self.a, x, &mut self.ap);
        for ((r, bi), ai) in self.r.iter_mut().zip(b).zip(&self.ap) {
            *r = bi - ai;
        }
        precondition(col_ptr, row_idx, &self.u, &self.r, &mut self.z);
        self.p.copy_from_slice(&self.z);
        let mut rz = dot(&self.r, &self.z);
        while norm(&self.r) > self.stop.tol * nb && *iterations < self.stop.max_iter {
            crate::linsolve::SolveError::check_deadline("pcg_ic0", *iterations)?;
            pattern.mul_symmetric(&self.a, &self.p, &mut self.ap);
            let pap = dot(&self.p, &self.ap);
            if !(pap > 0.0) {
                return Err(SolveError::Breakdown {
                    solver: "pcg_ic0",
                    iterations: *iterations,
                    reason: "p^T A p <= 0: matrix not positive definite",
                });
            }
            let alpha = rz / pap;
            for ((xi, pi), (ri, api)) in x.iter_mut().zip(&self.p).zip(self.r.iter_mut().zip(&self.ap)) {
                *xi += alpha * pi;
                *ri -= alpha * api;
            }
            precondition(col_ptr, row_idx, &self.u, &self.r, &mut self.z);
            let rz_new = dot(&self.r, &self.z);
            let beta = rz_new / rz;
            for (pi, zi) in self.p.iter_mut().zip(&self.z) {
                *pi = zi + beta * *pi;
            }
            rz = rz_new;
            *iterations += 1;
        }
        Ok(())
    }
}

/// The registry entry of `pcg_ic0`: its parameters are the shared [`Stopping`] rule.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "pcg_ic0",
    summary: "conjugate gradient preconditioned by incomplete Cholesky IC(0) of the assembled J W J^T; exact in one iteration on chains",
    kind: SolverKind::Iterative,
    accepts: super::registry::SPARSE_NORMAL,
    params: ParamTable::of::<Stopping>(),
    build: |p| Box::new(PcgIc0::new(*p.get())),
    // Memory: A and its IC(0) factor on A's pattern, five vectors.
    memory: |f| f.sparse(2 * 8, 8 * 8),
};

const NOT_SPARSE: &str = "pcg_ic0 factors the assembled sparse J W Jᵀ; the dense loop-closure system G M^-1 G^T of `lagrangian` has no sparse pattern — use cg, dense_lu or dense_cholesky";

/// IC(0)-preconditioned conjugate gradient with its workspaces.
#[derive(Debug)]
pub struct PcgIc0 {
    stop: Stopping,
    a: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
}

impl PcgIc0 {
    /// A solver with the given stopping rule.
    pub fn new(stop: Stopping) -> Self {
        PcgIc0 { stop, a: vec![], u: vec![], r: vec![], z: vec![], p: vec![], ap: vec![] }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// IC(0) of the upper-triangle CSC matrix (`col_ptr`, `row_idx` sorted, diagonal last) with values
/// `a` plus `shift` times its diagonal, into `u`; false if a pivot is not positive.
fn factor(col_ptr: &[usize], row_idx: &[usize], a: &[f64], shift: f64, u: &mut [f64]) -> bool {
    let n = col_ptr.len() - 1;
    for j in 0..n {
        let (s, e) = (col_ptr[j], col_ptr[j + 1]);
        for p in s..e {
            let i = row_idx[p];
            // Σ_{k<i} U_ki U_kj over the rows k in both column i and column j (both sorted).
            let (mut pi, ei) = (col_ptr[i], col_ptr[i + 1] - 1);
            let mut q = s;
            let mut sum = 0.0;
            while pi < ei && q < p {
                let (ki, kj) = (row_idx[pi], row_idx[q]);
                if ki == kj {
                    sum += u[pi] * u[q];
                    pi += 1;
                    q += 1;
                } else if ki < kj {
                    pi += 1;
                } else {
                    q += 1;
                }
            }
            if i == j {
                let d = a[p] * (1.0 + shift) - sum;
                if !(d > 0.0) {
                    return false;
                }
                u[p] = d.sqrt();
            } else {
                u[p] = (a[p] - sum) / u[col_ptr[i + 1] - 1];
            }
        }
    }
    true
}

/// z = (Uᵀ U)⁻¹ r with U in upper-triangle CSC form.
fn precondition(col_ptr: &[usize], row_idx: &[usize], u: &[f64], r: &[f64], z: &mut [f64]) {
    let n = col_ptr.len() - 1;
    // Uᵀ y = r: row j of Uᵀ is column j of U.
    for j in 0..n {
        let (s, e) = (col_ptr[j], col_ptr[j + 1] - 1);
        let mut acc = r[j];
        for p in s..e {
            acc -= u[p] * z[row_idx[p]];
        }
        z[j] = acc / u[e];
    }
    // U z = y, column by column from the last.
    for j in (0..n).rev() {
        let (s, e) = (col_ptr[j], col_ptr[j + 1] - 1);
        z[j] /= u[e];
        let zj = z[j];
        for p in s..e {
            z[row_idx[p]] -= u[p] * zj;
        }
    }
}

impl LinearSolver for PcgIc0 {
    fn name(&self) -> &'static str {
        "pcg_ic0"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let Operator::Normal { pattern, .. } = op else {
            return Err(SolveError::NotApplicable { solver: "pcg_ic0", reason: NOT_SPARSE });
        };
        let n = op.dim();
        self.a = vec![0.0; pattern.nnz()];
        self.u = vec![0.0; pattern.nnz()];
        self.r = vec![0.0; n];
        self.z = vec![0.0; n];
        self.p = vec![0.0; n];
        self.ap = vec![0.0; n];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, pattern, reg } = op else {
            return Err(SolveError::NotApplicable { solver: "pcg_ic0", reason: NOT_SPARSE });
        };
        let nb = norm(b);
        if nb == 0.0 {
            x.fill(0.0);
            return Ok(SolveInfo { iterations: 0, residual: 0.0 });
        }
        pattern.assemble(jac, w, &mut self.a);
        reg.add_to(&mut self.a, pattern.diagonal_positions());
        let (col_ptr, row_idx) = pattern.csc();
        let mut shift = 0.0;
        while !factor(col_ptr, row_idx, &self.a, shift, &mut self.u) {
            shift = if shift == 0.0 { 1e-3 } else { shift * 10.0 };
            if shift > 1e3 {
                return Err(SolveError::Breakdown {
                    solver: "pcg_ic0",
                    iterations: 0,
                    reason: "incomplete Cholesky breaks down even with a diagonal shift: matrix not positive definite",
                });
            }
        }
        // As `cg`: where the recurrence says converged but b − A x does not (a warm start far
        // larger than the solution leaves b − A x to cancellation), restart from the true
        // residual, at most `REPLACEMENTS` times (van der Vorst & Ye 2000).
        let mut iterations = 0;
        let mut res = f64::INFINITY;
        for _ in 0..=REPLACEMENTS {
            self.iterate(pattern, x, b, nb, &mut iterations)?;
            // The true residual with the assembled A, not the recurrence.
            pattern.mul_symmetric(&self.a, x, &mut self.ap);
            res = b.iter().zip(&self.ap).map(|(bi, ai)| (bi - ai) * (bi - ai)).sum::<f64>().sqrt() / nb;
            if res <= self.stop.tol || iterations >= self.stop.max_iter {
                break;
            }
        }
        self.stop.finish("pcg_ic0", iterations, res)
    }
}
