//! Dense LU with partial pivoting in place, real or complex, for `radau5`'s two iteration
//! matrices.

use nalgebra::{ComplexField, DMatrix, DVector};

/// A dense LU factorization with partial pivoting, in place in a matrix allocated once (real
/// or complex; Golub & Van Loan, Matrix Computations, Alg. 3.4.1, through nalgebra's elimination
/// steps).
#[derive(Debug)]
pub(super) struct InPlaceLu<T: ComplexField<RealField = f64> + Copy> {
    pub(super) a: DMatrix<T>,
    pivots: Vec<usize>,
    pub(super) rhs: DVector<T>,
}

impl<T: ComplexField<RealField = f64> + Copy> InPlaceLu<T> {
    pub(super) fn new(n: usize) -> Self {
        InPlaceLu { a: DMatrix::zeros(n, n), pivots: vec![0; n], rhs: DVector::zeros(n) }
    }

    /// Factors `a` in place; false when a pivot is zero to working precision (below n ε max|A|).
    pub(super) fn factor(&mut self) -> bool {
        let n = self.a.nrows();
        let scale = self.a.iter().fold(0.0f64, |m, x| m.max(x.modulus()));
        let tiny = n as f64 * f64::EPSILON * scale;
        for i in 0..n {
            let piv = self.a.view_range(i.., i).icamax() + i;
            let diag = self.a[(piv, i)];
            let size = diag.modulus();
            if !(size > tiny) || !size.is_finite() {
                return false;
            }
            self.pivots[i] = piv;
            if piv != i {
                self.a.columns_range_mut(..i).swap_rows(i, piv);
                nalgebra::linalg::gauss_step_swap(&mut self.a, diag, i, piv);
            } else {
                nalgebra::linalg::gauss_step(&mut self.a, diag, i);
            }
        }
        true
    }

    /// Solves A x = `rhs` in place with the factors.
    pub(super) fn solve(&mut self) {
        for i in 0..self.a.nrows() {
            self.rhs.swap_rows(i, self.pivots[i]);
        }
        self.a.solve_lower_triangular_with_diag_mut(&mut self.rhs, T::one());
        // The factorization refused zero pivots, so U is invertible.
        let _ = self.a.solve_upper_triangular_mut(&mut self.rhs);
    }
}
