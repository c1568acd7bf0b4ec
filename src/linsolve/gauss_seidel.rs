//! Gauss-Seidel (successive over-relaxation with ω = 1 by default) — for J W Jᵀ, the
//! sequential-impulse method (Catto 2005; seeds 001 and 004).
//!
//! For A = J W Jᵀ the matrix is never assembled. The solver keeps u = W Jᵀ x (for `impulse` that is
//! the velocity change the impulses x cause) and sweeps the constraint rows in order:
//!   res_r = b_r − J_r u,   Δx_r = ω res_r / D_r  (D_r = J_r W J_rᵀ),   x_r += Δx_r,   u += W J_rᵀ Δx_r
//! which is exactly Gauss-Seidel on A x = b, since (A x)_r = J_r u. Each row touches only its own
//! block, so a sweep costs O(rows). After every `check_every`-th sweep, and after the last one the
//! cap allows, the true residual ‖b − J u‖ / ‖b‖ is checked (a full pass over J: with 1, the
//! default, it costs about as much as the sweep itself).
//! For a dense A (the loop-closure system of `lagrangian`) it is the textbook row sweep (Saad 2003, §4.1).

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, Stopping, norm};
use crate::constraint::MAX_LOCAL_DOF;
use crate::params::{ParamTable, Params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `gauss_seidel`: the shared stopping rule, the relaxation factor ω and how often
/// the exact residual is checked.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default)]
pub struct GaussSeidelParams {
    /// Stopping rule.
    #[serde(flatten)]
    pub stop: Stopping,
    /// relaxation factor; 1 is plain Gauss-Seidel (SOR converges on SPD matrices exactly for 0 < omega < 2)
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0, "exclusiveMaximum" = 2))]
    pub omega: f64,
    /// check the exact residual after every k-th sweep and after the last one (1: every sweep; at least max_iter: once, at the end, as a game engine's fixed sweeps)
    #[schemars(range(min = 1, max = 100_000_000))]
    pub check_every: usize,
}

impl Default for GaussSeidelParams {
    fn default() -> Self {
        GaussSeidelParams { stop: Stopping::default(), omega: 1.0, check_every: 1 }
    }
}

impl Params for GaussSeidelParams {}

/// The registry entry of `gauss_seidel`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "gauss_seidel",
    summary: "Gauss-Seidel/SOR; on J W J^T the sequential-impulse sweep",
    kind: SolverKind::Iterative,
    params: ParamTable::of::<GaussSeidelParams>(),
    build: |p| Box::new(GaussSeidel::new(*p.get())),
    // Memory: per-row diagonal, residual, the J-sized scratch and W Jᵀ (as many values as J).
    memory: |f| f.sparse(0, 8 * 8 + 8 * crate::constraint::MAX_LOCAL_DOF as u64),
};

/// Gauss-Seidel / SOR with warm start; sequential impulses on J W Jᵀ.
#[derive(Debug)]
pub struct GaussSeidel {
    stop: Stopping,
    omega: f64,
    check_every: usize,
    diag: Vec<f64>,
    u: Vec<f64>,
    ax: Vec<f64>,
    /// W J_rᵀ of every row, in J's block order (computed once per solve, used every sweep).
    wj: Vec<f64>,
}

impl GaussSeidel {
    /// Builds from its parameters.
    pub fn new(p: GaussSeidelParams) -> Self {
        GaussSeidel { stop: p.stop, omega: p.omega, check_every: p.check_every.max(1), diag: vec![], u: vec![], ax: vec![], wj: vec![] }
    }

    fn residual(b: &[f64], ax: &[f64], nb: f64) -> f64 {
        let r = b.iter().zip(ax).map(|(bi, ai)| (bi - ai) * (bi - ai)).sum::<f64>().sqrt();
        if nb > 0.0 { r / nb } else { r }
    }
}

impl LinearSolver for GaussSeidel {
    fn name(&self) -> &'static str {
        "gauss_seidel"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        self.diag = vec![0.0; op.dim()];
        self.ax = vec![0.0; op.dim()];
        self.u = vec![0.0; op.scratch_len()];
        if let Operator::Normal { jac, .. } = op {
            self.wj = vec![0.0; jac.blocks().map(|b| b.values.len()).sum()];
        }
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        op.diagonal(&mut self.diag);
        if let Some(i) = self.diag.iter().position(|d| !(*d > 0.0)) {
            return Err(SolveError::Singular { solver: "gauss_seidel", pivot: i, dim: op.dim() });
        }
        let nb = norm(b);
        let omega = self.omega;
        let mut sweeps = 0;
        match op {
            Operator::Normal { jac, w, reg, .. } => {
                jac.mul_t(x, &mut self.u);
                for (ui, wi) in self.u.iter_mut().zip(w.iter()) {
                    *ui *= wi;
                }
                // (A x)_r = J_r u + reg x_r
                let ax_of = |u: &[f64], x: &[f64], ax: &mut [f64]| {
                    jac.mul(u, ax);
                    for (i, (a, xi)) in ax.iter_mut().zip(x).enumerate() {
                        *a += reg.at(i) * xi;
                    }
                };
                ax_of(&self.u, x, &mut self.ax);
                // W J_rᵀ once per solve (the same products the sweep formed every time)
                let mut wl = [0.0; MAX_LOCAL_DOF];
                let mut at = 0;
                for blk in jac.blocks() {
                    blk.gather(w, &mut wl);
                    for row in blk.values.chunks_exact(blk.ldof) {
                        for ((o, wk), j) in self.wj[at..at + blk.ldof].iter_mut().zip(&wl).zip(row) {
                            *o = wk * j;
                        }
                        at += blk.ldof;
                    }
                }
                let mut residual = Self::residual(b, &self.ax, nb);
                while residual > self.stop.tol && sweeps < self.stop.max_iter && residual.is_finite() {
                    let mut ul = [0.0; MAX_LOCAL_DOF];
                    let mut at = 0;
                    for blk in jac.blocks() {
                        blk.gather(&self.u, &mut ul);
                        for (r, row) in blk.values.chunks_exact(blk.ldof).enumerate() {
                            let i = blk.row0 + r;
                            let ju: f64 = row.iter().zip(&ul).map(|(j, u)| j * u).sum();
                            let dx = omega * (b[i] - ju - reg.at(i) * x[i]) / self.diag[i];
                            x[i] += dx;
                            for (uk, wj) in ul.iter_mut().zip(&self.wj[at..at + blk.ldof]) {
                                *uk += wj * dx;
                            }
                            at += blk.ldof;
                        }
                        blk.scatter(&ul, &mut self.u);
                    }
                    sweeps += 1;
                    if sweeps % self.check_every == 0 || sweeps == self.stop.max_iter {
                        ax_of(&self.u, x, &mut self.ax);
                        residual = Self::residual(b, &self.ax, nb);
                    }
                }
                self.stop.finish("gauss_seidel", sweeps, residual)
            }
            Operator::Dense { n, a } => {
                let n = *n;
                op.apply(x, &mut self.ax, &mut []);
                let mut residual = Self::residual(b, &self.ax, nb);
                while residual > self.stop.tol && sweeps < self.stop.max_iter && residual.is_finite() {
                    for i in 0..n {
                        // A is symmetric: row i = column i, contiguous in column-major storage.
                        let col = &a[i * n..(i + 1) * n];
                        let ax_i: f64 = col.iter().zip(x.iter()).map(|(aij, xj)| aij * xj).sum();
                        x[i] += omega * (b[i] - ax_i) / self.diag[i];
                    }
                    sweeps += 1;
                    op.apply(x, &mut self.ax, &mut []);
                    residual = Self::residual(b, &self.ax, nb);
                }
                self.stop.finish("gauss_seidel", sweeps, residual)
            }
        }
    }
}
