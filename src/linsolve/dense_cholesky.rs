//! Dense Cholesky A = L Lᵀ (faer), in place in a matrix allocated once per run, for small SPD systems.
//!
//! Fails with `NotPositiveDefinite` on a non-positive pivot, which is what redundant constraints
//! (a singular J W Jᵀ) produce. O(m³/3) per solve.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, relative_residual};
use crate::params::{NoParams, ParamTable};
use dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::{Conj, MatMut, Par};

/// Dense Cholesky factorization.
#[derive(Default)]
pub struct DenseCholesky {
    a: Vec<f64>,
    mem: Option<MemBuffer>,
    ax: Vec<f64>,
    scratch: Vec<f64>,
}

impl LinearSolver for DenseCholesky {
    fn name(&self) -> &'static str {
        "dense_cholesky"
    }

    /// The factorization's triangular solves write x before reading it.
    fn reads_start(&self) -> bool {
        false
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let n = op.dim();
        self.a = vec![0.0; n * n];
        let req = StackReq::any_of(&[
            llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()),
            llt::solve::solve_in_place_scratch::<f64>(n, 1, Par::Seq),
        ]);
        self.mem = Some(MemBuffer::new(req));
        self.ax = vec![0.0; n];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let n = op.dim();
        op.to_dense(&mut self.a);
        let mem = self.mem.as_mut().expect("prepare() must run before solve()");
        let stack = MemStack::new(mem);
        let a = MatMut::from_column_major_slice_mut(&mut self.a, n, n);
        llt::factor::cholesky_in_place(a, Default::default(), Par::Seq, stack, Default::default()).map_err(
            |llt::factor::LltError::NonPositivePivot { index }| SolveError::NotPositiveDefinite {
                solver: "dense_cholesky",
                pivot: index,
            },
        )?;
        x.copy_from_slice(b);
        let l = faer::MatRef::from_column_major_slice(&self.a, n, n);
        llt::solve::solve_in_place_with_conj(
            l,
            Conj::No,
            MatMut::from_column_major_slice_mut(x, n, 1),
            Par::Seq,
            stack,
        );
        let residual = relative_residual(op, b, x, &mut self.ax, &mut self.scratch);
        Ok(SolveInfo { iterations: 1, residual })
    }
}

/// The registry entry of `dense_cholesky`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "dense_cholesky",
    summary: "dense Cholesky (faer); small SPD systems",
    kind: SolverKind::Direct,
    accepts: super::registry::ANY_SYMMETRIC,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(DenseCholesky::default()),
    // Memory: the d × d matrix factored in place and vectors.
    memory: |f| f.dense(8, 6 * 8),
};
