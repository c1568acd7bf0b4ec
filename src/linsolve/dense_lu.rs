//! Dense LU with partial pivoting (nalgebra's Gaussian elimination steps), for small systems.
//!
//! P A = L U by Doolittle elimination with row pivoting (Golub & Van Loan, Matrix Computations,
//! Alg. 3.4.1), done in place in a matrix allocated once per run ([`InPlaceLu`], which `radau5`
//! also uses); then L y = P b, U x = y. The reference solver the others are checked against.
//! O(m³) per solve: not for large systems.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, relative_residual};
use crate::params::{NoParams, ParamTable};
use nalgebra::{ComplexField, DMatrix, DVector};

/// Dense LU with partial pivoting.
#[derive(Debug, Default)]
pub struct DenseLu {
    lu: InPlaceLu<f64>,
    ax: Vec<f64>,
    scratch: Vec<f64>,
}

/// P A = L U with partial pivoting, in place in a matrix allocated once, real or complex (Golub &
/// Van Loan, Matrix Computations, Alg. 3.4.1, through nalgebra's elimination steps): the factors
/// of `dense_lu` and of `radau5`'s two iteration matrices.
#[derive(Debug, Default)]
pub struct InPlaceLu<T: ComplexField<RealField = f64> + Copy> {
    /// The matrix, overwritten by its factors.
    pub a: DMatrix<T>,
    pivots: Vec<usize>,
    /// The right-hand side, overwritten by the solution.
    pub rhs: DVector<T>,
}

impl<T: ComplexField<RealField = f64> + Copy> InPlaceLu<T> {
    /// Room for n × n.
    pub fn new(n: usize) -> Self {
        InPlaceLu { a: DMatrix::zeros(n, n), pivots: vec![0; n], rhs: DVector::zeros(n) }
    }

    /// Factors `a` in place; Err(the column) where a pivot is zero to working precision (at most
    /// n ε max|A|, with |z| = |Re z| + |Im z|) or not finite.
    pub fn factor(&mut self) -> Result<(), usize> {
        let n = self.a.nrows();
        let scale = self.a.camax();
        // A pivot below n·ε·max|A| is zero to working precision.
        self.factor_above(n as f64 * f64::EPSILON * scale)
    }

    /// Factors `a` in place refusing only a pivot that is exactly zero or not finite, as
    /// LINPACK's DEC in RADAU5: for a graded matrix whose small pivots are not rounding (a DAE's
    /// iteration matrix, whose multiplier pivots are ~ h² J W Jᵀ against entries ~ 1/h).
    pub fn factor_graded(&mut self) -> Result<(), usize> {
        self.factor_above(0.0)
    }

    /// Factors `a` in place; Err(the column) where a pivot's modulus is at most `tiny` or not
    /// finite.
    fn factor_above(&mut self, tiny: f64) -> Result<(), usize> {
        let n = self.a.nrows();
        for i in 0..n {
            let piv = self.a.view_range(i.., i).icamax() + i;
            let diag = self.a[(piv, i)];
            let size = diag.modulus();
            if size <= tiny || !size.is_finite() {
                return Err(i);
            }
            self.pivots[i] = piv;
            if piv != i {
                self.a.columns_range_mut(..i).swap_rows(i, piv);
                nalgebra::linalg::gauss_step_swap(&mut self.a, diag, i, piv);
            } else {
                nalgebra::linalg::gauss_step(&mut self.a, diag, i);
            }
        }
        Ok(())
    }

    /// Solves A x = `rhs` in place with the factors: L y = P b, U x = y; false where U has a zero
    /// on its diagonal.
    pub fn solve(&mut self) -> bool {
        for i in 0..self.a.nrows() {
            self.rhs.swap_rows(i, self.pivots[i]);
        }
        self.a.solve_lower_triangular_with_diag_mut(&mut self.rhs, T::one());
        self.a.solve_upper_triangular_mut(&mut self.rhs)
    }
}

impl LinearSolver for DenseLu {
    fn name(&self) -> &'static str {
        "dense_lu"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let n = op.dim();
        self.lu = InPlaceLu::new(n);
        self.ax = vec![0.0; n];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let n = op.dim();
        op.to_dense(self.lu.a.as_mut_slice());
        self.lu.factor().map_err(|pivot| SolveError::Singular { solver: "dense_lu", pivot, dim: n })?;
        self.solve_same(op, b, x)
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let n = op.dim();
        self.lu.rhs.as_mut_slice().copy_from_slice(b);
        if !self.lu.solve() {
            return Err(SolveError::Singular { solver: "dense_lu", pivot: n, dim: n });
        }
        x.copy_from_slice(self.lu.rhs.as_slice());
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
