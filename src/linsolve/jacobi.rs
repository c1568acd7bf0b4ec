//! Damped Jacobi iteration: x ← x + ω D⁻¹ (b − A x), D = diag(A) (Saad, Iterative Methods for Sparse
//! Linear Systems, 2003, §4.1). Matrix-free for J W Jᵀ (D from the blocks, A x from J and Jᵀ); every
//! row is updated from the same old iterate, so it parallelises but converges only for ω small
//! enough (for the chain's J W Jᵀ, ω ≤ 2/λ_max(D⁻¹A) ≈ 1; the default 2/3 is the classic damping).

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, Stopping, norm};
use crate::params::{ParamTable, Params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `jacobi`: the shared stopping rule and the relaxation factor ω.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default)]
pub struct JacobiParams {
    /// Stopping rule.
    #[serde(flatten)]
    pub stop: Stopping,
    /// damping factor
    #[schemars(range(max = 1), extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub omega: f64,
}

impl Default for JacobiParams {
    fn default() -> Self {
        JacobiParams { stop: Stopping::default(), omega: 2.0 / 3.0 }
    }
}

impl Params for JacobiParams {}

/// The registry entry of `jacobi`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "jacobi",
    summary: "damped Jacobi, matrix-free on J W J^T",
    kind: SolverKind::Iterative,
    accepts: super::registry::ANY_SYMMETRIC,
    params: ParamTable::of::<JacobiParams>(),
    build: |p| Box::new(Jacobi::new(*p.get())),
    // Memory: matrix-free: diagonal, update, residual and scratch vectors.
    memory: |f| f.sparse(0, 8 * 8),
};

/// Damped Jacobi with warm start.
#[derive(Debug)]
pub struct Jacobi {
    stop: Stopping,
    omega: f64,
    diag: Vec<f64>,
    ax: Vec<f64>,
    scratch: Vec<f64>,
}

impl Jacobi {
    /// Builds from its parameters.
    pub fn new(p: JacobiParams) -> Self {
        Jacobi { stop: p.stop, omega: p.omega, diag: vec![], ax: vec![], scratch: vec![] }
    }
}

impl LinearSolver for Jacobi {
    fn name(&self) -> &'static str {
        "jacobi"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        self.diag = vec![0.0; op.dim()];
        self.ax = vec![0.0; op.dim()];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        op.diagonal(&mut self.diag);
        if let Some(i) = self.diag.iter().position(|d| !(*d > 0.0)) {
            return Err(SolveError::Singular { solver: "jacobi", pivot: i, dim: op.dim() });
        }
        let nb = norm(b);
        let scale = if nb > 0.0 { nb } else { 1.0 };
        let mut iterations = 0;
        loop {
            crate::linsolve::SolveError::check_deadline("jacobi", iterations)?;
            op.apply(x, &mut self.ax, &mut self.scratch);
            let mut rr = 0.0;
            for ((ai, bi), di) in self.ax.iter_mut().zip(b).zip(&self.diag) {
                let r = bi - *ai;
                rr += r * r;
                *ai = r / di; // reuse ax as the correction D⁻¹ r
            }
            let residual = rr.sqrt() / scale;
            if residual <= self.stop.tol || iterations >= self.stop.max_iter || !residual.is_finite() {
                return self.stop.finish("jacobi", iterations, residual);
            }
            for (xi, ci) in x.iter_mut().zip(&self.ax) {
                *xi += self.omega * ci;
            }
            iterations += 1;
        }
    }
}
