//! Dense LU with partial pivoting (nalgebra's Gaussian elimination steps), for small systems.
//!
//! P A = L U by Doolittle elimination with row pivoting (Golub & Van Loan, Matrix Computations,
//! Alg. 3.4.1), done in place in a matrix allocated once per run; then L y = P b, U x = y. The
//! reference solver the others are checked against. O(m³) per solve: not for large systems.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, relative_residual};
use crate::params::{NoParams, ParamTable};
use nalgebra::{DMatrix, DVector};

/// Dense LU with partial pivoting.
#[derive(Debug, Default)]
pub struct DenseLu {
    a: DMatrix<f64>,
    pivots: Vec<usize>,
    rhs: DVector<f64>,
    ax: Vec<f64>,
    scratch: Vec<f64>,
}

impl LinearSolver for DenseLu {
    fn name(&self) -> &'static str {
        "dense_lu"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let n = op.dim();
        self.a = DMatrix::zeros(n, n);
        self.pivots = vec![0; n];
        self.rhs = DVector::zeros(n);
        self.ax = vec![0.0; n];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let n = op.dim();
        op.to_dense(self.a.as_mut_slice());
        let scale = self.a.amax();
        // A pivot below n·ε·max|A| is zero to working precision.
        let tiny = n as f64 * f64::EPSILON * scale;
        for i in 0..n {
            let piv = self.a.view_range(i.., i).icamax() + i;
            let diag = self.a[(piv, i)];
            if diag.abs() <= tiny || !diag.is_finite() {
                return Err(SolveError::Singular { solver: "dense_lu", pivot: i, dim: n });
            }
            self.pivots[i] = piv;
            if piv != i {
                self.a.columns_range_mut(..i).swap_rows(i, piv);
                nalgebra::linalg::gauss_step_swap(&mut self.a, diag, i, piv);
            } else {
                nalgebra::linalg::gauss_step(&mut self.a, diag, i);
            }
        }
        self.solve_same(op, b, x)
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let n = op.dim();
        self.rhs.as_mut_slice().copy_from_slice(b);
        for i in 0..n {
            self.rhs.swap_rows(i, self.pivots[i]);
        }
        self.a.solve_lower_triangular_with_diag_mut(&mut self.rhs, 1.0);
        if !self.a.solve_upper_triangular_mut(&mut self.rhs) {
            return Err(SolveError::Singular { solver: "dense_lu", pivot: n, dim: n });
        }
        x.copy_from_slice(self.rhs.as_slice());
        let residual = relative_residual(op, b, x, &mut self.ax, &mut self.scratch);
        Ok(SolveInfo { iterations: 1, residual })
    }
}

/// The registry entry of `dense_lu`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "dense_lu",
    summary: "dense LU with partial pivoting (nalgebra); small systems, reference",
    kind: SolverKind::Direct,
    accepts: super::registry::ANY_SYMMETRIC,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(DenseLu::default()),
    // Memory: the d × d matrix factored in place, pivots and vectors.
    memory: |f| f.dense(8, 6 * 8),
};
