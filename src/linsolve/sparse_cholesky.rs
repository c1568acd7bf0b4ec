//! Sparse Cholesky of J W Jᵀ (faer): symbolic analysis (AMD ordering, or the natural order when
//! that has no more fill, elimination tree, supernodes) once per run, numeric factorization into reused buffers per solve — no allocation in the step
//! loop (the low-level faer API, see CRATES.md).
//!
//! J W Jᵀ is assembled from the block-sparse J through [`crate::sparse::NormalMatrix`] (upper
//! triangle). Fails with `NotPositiveDefinite` when constraints are redundant. The reported
//! residual ‖b − A x‖ / ‖b‖ uses the assembled A.

use super::registry::{Footprint, SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, relative_residual};
use crate::params::{NoParams, ParamTable};
use dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::LltError;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::{Conj, MatMut, Par, Side};

/// Sparse Cholesky with a reused symbolic factorization.
#[derive(Default)]
pub struct SparseCholesky {
    symbolic: Option<SymbolicCholesky<usize>>,
    a_values: Vec<f64>,
    l_values: Vec<f64>,
    mem: Option<MemBuffer>,
    ax: Vec<f64>,
    scratch: Vec<f64>,
}

const NOT_SPARSE: &str = "the system matrix is dense (the loop-closure system G M^-1 G^T of `lagrangian`); use dense_lu, dense_cholesky, cg, gauss_seidel or jacobi";

impl LinearSolver for SparseCholesky {
    fn name(&self) -> &'static str {
        "sparse_cholesky"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let Operator::Normal { pattern, .. } = op else {
            return Err(SolveError::NotApplicable { solver: "sparse_cholesky", reason: NOT_SPARSE });
        };
        // AMD, unless the natural order of the rows already has no more fill (a chain's
        // tridiagonal J W Jᵀ): then the identity ordering saves permuting A at every refactorization.
        let analyse = |ordering| {
            factorize_symbolic_cholesky(pattern.symbolic(), Side::Upper, ordering, CholeskySymbolicParams::default())
                .map_err(|_| SolveError::Breakdown {
                    solver: "sparse_cholesky",
                    iterations: 0,
                    reason: "symbolic analysis ran out of memory",
                })
        };
        let amd = analyse(SymmetricOrdering::Amd)?;
        let natural = analyse(SymmetricOrdering::Identity)?;
        let symbolic = if natural.len_val() <= amd.len_val() { natural } else { amd };
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        self.l_values = vec![0.0; symbolic.len_val()];
        self.a_values = vec![0.0; pattern.nnz()];
        self.mem = Some(MemBuffer::new(req));
        self.symbolic = Some(symbolic);
        self.ax = vec![0.0; op.dim()];
        self.scratch = vec![0.0; op.scratch_len()];
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, pattern, reg } = op else {
            return Err(SolveError::NotApplicable { solver: "sparse_cholesky", reason: NOT_SPARSE });
        };
        let symbolic = self.symbolic.as_ref().expect("prepare() must run before solve()");
        pattern.assemble(jac, w, &mut self.a_values);
        reg.add_to(&mut self.a_values, pattern.diagonal_positions());
        let stack = MemStack::new(self.mem.as_mut().expect("prepare() must run before solve()"));
        let llt = symbolic
            .factorize_numeric_llt(
                &mut self.l_values,
                pattern.view(&self.a_values),
                Side::Upper,
                Default::default(),
                Par::Seq,
                stack,
                Default::default(),
            )
            .map_err(|LltError::NonPositivePivot { index }| SolveError::NotPositiveDefinite {
                solver: "sparse_cholesky",
                pivot: index,
            })?;
        let _ = llt;
        self.solve_same(op, b, x)
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let symbolic = self.symbolic.as_ref().expect("prepare() must run before solve()");
        let stack = MemStack::new(self.mem.as_mut().expect("prepare() must run before solve()"));
        let llt = LltRef::new(symbolic, &self.l_values);
        x.copy_from_slice(b);
        let n = x.len();
        llt.solve_in_place_with_conj(Conj::No, MatMut::from_column_major_slice_mut(x, n, 1), Par::Seq, stack);
        // The residual with the assembled A (which includes reg on its diagonal): the same
        // quantity as the matrix-free J W Jᵀ x + reg x, at a third of the cost.
        let residual = match op {
            Operator::Normal { pattern, .. } => pattern.relative_residual(&self.a_values, b, x, &mut self.ax),
            Operator::Dense { .. } => relative_residual(op, b, x, &mut self.ax, &mut self.scratch),
        };
        Ok(SolveInfo { iterations: 1, residual })
    }
}

/// Bytes [`SparseCholesky::prepare`] keeps: L's values (their count from the same symbolic
/// analysis, AMD or natural), A's values and faer's scratch; the symbolic structure's indices are
/// counted as one more L-sized array.
fn memory(f: &Footprint) -> u64 {
    let Footprint::Normal(pattern) = f else { return 0 }; // not applicable
    let len = |ordering| {
        factorize_symbolic_cholesky(pattern.symbolic(), Side::Upper, ordering, CholeskySymbolicParams::default())
            .map(|s| s.len_val() as u64)
            .unwrap_or(u64::MAX / 64)
    };
    let l = len(SymmetricOrdering::Amd).min(len(SymmetricOrdering::Identity));
    l.saturating_mul(16).saturating_add(f.sparse(8, 8 * 8))
}

/// The registry entry of `sparse_cholesky`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "sparse_cholesky",
    summary: "sparse Cholesky of J W J^T (faer), symbolic analysis once per run",
    kind: SolverKind::Direct,
    accepts: super::registry::SPARSE_NORMAL,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(SparseCholesky::default()),
    // Memory: A, L (exact size from the symbolic analysis) and faer's scratch.
    memory,
};
