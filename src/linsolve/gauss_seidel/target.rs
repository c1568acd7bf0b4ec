//! `gauss_seidel`'s velocity solves from a cold start (x = 0, the stepper's stages): the first
//! sweep forms the per-row data (unless `solve_same` may reuse it) and b = −(J v + β C) in the
//! same pass over J as it sweeps, where the plain path makes three passes (J v, the per-row data,
//! the sweep). The same arithmetic row by row, so the same bits: what the first sweep did is
//! undone, and the plain path taken, whenever the plain path would not have swept (b = 0, b not
//! finite, a residual already within `tol`, an infinite D_r).

use super::sweep::{Change, Kernels, RowReg, by_width};
use super::{GaussSeidel, PreparedFor};
use crate::linsolve::{SolveError, SolveInfo, VelocityTarget, norm};
use crate::sparse::BlockJacobian;

impl GaussSeidel {
    /// The cold velocity solve on J W Jᵀ + diag(reg) (row order, at least one sweep allowed).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_cold_target<R: RowReg>(
        &mut self,
        jac: &BlockJacobian,
        w: &[f64],
        reg: R,
        target: &VelocityTarget,
        b: &mut [f64],
        x: &mut [f64],
        reuse: Option<PreparedFor>,
        key: Option<PreparedFor>,
    ) -> Result<SolveInfo, SolveError> {
        let same = self.fit_shape(jac) && reuse.is_some() && reuse == self.prepared;
        if !same {
            self.prepared = None;
        }
        crate::linsolve::SolveError::check_deadline("gauss_seidel", 0)?;
        self.u.fill(0.0);
        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg };
        let form = (!same).then_some((w, self.omega));
        let mut change = Change::default();
        for (ri, run) in self.runs.iter().enumerate() {
            let arrays = (&mut self.wj[..], &mut self.c[..], &mut self.inv_diag[..]);
            let (c, r2) = by_width!(run.ldof, k.first_sweep(run, form, target, arrays, b, x, &mut self.u))
                .map_err(|pivot| SolveError::Singular { solver: "gauss_seidel", pivot, dim: jac.nrows() })?;
            self.run_r2[ri] = r2;
            change = change.max(c);
        }
        // the residual before the sweep, as the plain path's cold start sums it
        let residual = Self::relative(self.run_r2.iter().sum(), norm(b));
        let finite_rows = self.inv_diag.iter().all(|&d| d > 0.0);
        if !(finite_rows && residual > self.stop.tol && residual.is_finite()) {
            // the plain path would not have swept from here: undo, and take it (the per-row
            // data is formed, for every row)
            x.fill(0.0);
            self.prepared = key;
            return self.solve_normal(jac, w, reg, b, x, key);
        }
        self.iterate(&k, b, x, 1, residual, Some(change))
    }
}
