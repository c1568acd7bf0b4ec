//! Linear solvers for the symmetric positive (semi-)definite systems A x = b of the formulations
//! (docs/design.md §3): A = J W Jᵀ for `force` and `impulse`, A = G M⁻¹ Gᵀ on the loop closures of `lagrangian`.
//!
//! Every solver follows the same life cycle, after faer's split of symbolic and numeric work:
//! [`LinearSolver::prepare`] once per run (allocate workspaces, analyse the sparsity pattern), then
//! [`LinearSolver::solve`] per evaluation with no allocation. `x` carries the warm start in and the
//! solution out. Each solve reports its iterations and final relative residual ‖b − A x‖₂ / ‖b‖₂,
//! and fails with a typed [`SolveError`] rather than panicking.

pub mod registry;

pub mod contact;

registry! {
    /// Every linear solver, in `list` order.
    pub const SOLVERS: &[registry::SolverEntry] = [
        dense_lu,
        dense_cholesky,
        sparse_cholesky,
        envelope_ldlt,
        tree_ldlt,
        cg,
        pcg_ic0,
        gauss_seidel,
        jacobi,
    ];
}

pub use cg::Cg;
pub use dense_cholesky::DenseCholesky;
pub use dense_lu::DenseLu;
pub use envelope_ldlt::EnvelopeLdlt;
pub use gauss_seidel::GaussSeidel;
pub use jacobi::Jacobi;
pub use pcg_ic0::PcgIc0;
pub use sparse_cholesky::SparseCholesky;
pub use tree_ldlt::TreeLdlt;

use crate::sparse::{BlockJacobian, NormalMatrix};

/// What is added to the diagonal of J W Jᵀ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reg<'a> {
    /// The same value on every row: the scaled compliance α̃ of XPBD and soft constraints
    /// (Macklin et al. 2016, eq. 12); 0 for rigid constraints.
    Uniform(f64),
    /// One value per row, e.g. the inverse geometric stiffness 1/s of the extra rows of XPBD's
    /// Newton step.
    PerRow(&'a [f64]),
}

impl Reg<'_> {
    /// The value added to diagonal entry `i`.
    #[inline]
    pub fn at(&self, i: usize) -> f64 {
        match self {
            Reg::Uniform(r) => *r,
            Reg::PerRow(r) => r[i],
        }
    }

    /// True when nothing is added (uniform zero).
    pub fn is_zero(&self) -> bool {
        matches!(self, Reg::Uniform(r) if *r == 0.0)
    }

    /// Adds this diagonal to the assembled values at `diagonal_positions` (one per row).
    pub fn add_to(&self, values: &mut [f64], diagonal_positions: &[usize]) {
        if !self.is_zero() {
            for (i, &p) in diagonal_positions.iter().enumerate() {
                values[p] += self.at(i);
            }
        }
    }
}

/// The matrix of a linear system, in the form its producer has it.
#[derive(Clone, Copy, Debug)]
pub enum Operator<'a> {
    /// A = J W Jᵀ + diag(reg), never formed unless a solver assembles it (Witkin 1997, §4.3).
    Normal {
        /// The block-sparse Jacobian at the current configuration.
        jac: &'a BlockJacobian,
        /// Diagonal of W = M⁻¹.
        w: &'a [f64],
        /// The sparsity pattern and assembly plan of J W Jᵀ.
        pattern: &'a NormalMatrix,
        /// Added to the diagonal.
        reg: Reg<'a>,
    },
    /// A dense symmetric matrix, column-major `n × n` (e.g. the loop-closure system G M⁻¹ Gᵀ of `lagrangian`).
    Dense {
        /// Dimension.
        n: usize,
        /// Column-major entries.
        a: &'a [f64],
    },
}

impl Operator<'_> {
    /// Dimension of the system.
    pub fn dim(&self) -> usize {
        match self {
            Operator::Normal { jac, .. } => jac.nrows(),
            Operator::Dense { n, .. } => *n,
        }
    }

    /// Length of the scratch vector [`Operator::apply`] needs.
    pub fn scratch_len(&self) -> usize {
        match self {
            Operator::Normal { jac, .. } => jac.ncols(),
            Operator::Dense { .. } => 0,
        }
    }

    /// y = A x. For J W Jᵀ this is J (W (Jᵀ x)): two block passes, nothing assembled (Witkin §4.4).
    pub fn apply(&self, x: &[f64], y: &mut [f64], scratch: &mut [f64]) {
        match self {
            Operator::Normal { jac, w, reg, .. } => {
                jac.mul_t(x, scratch);
                for (s, wi) in scratch.iter_mut().zip(w.iter()) {
                    *s *= wi;
                }
                jac.mul(scratch, y);
                if !reg.is_zero() {
                    for (i, (yi, xi)) in y.iter_mut().zip(x).enumerate() {
                        *yi += reg.at(i) * xi;
                    }
                }
            }
            Operator::Dense { n, a } => {
                y.fill(0.0);
                for (j, xj) in x.iter().enumerate() {
                    for (yi, aij) in y.iter_mut().zip(&a[j * n..(j + 1) * n]) {
                        *yi += aij * xj;
                    }
                }
            }
        }
    }

    /// The diagonal of A into `out` (for J W Jᵀ: D_r = Σ_k J_rk² W_k, from the blocks).
    pub fn diagonal(&self, out: &mut [f64]) {
        match self {
            Operator::Normal { jac, w, reg, .. } => {
                for blk in jac.blocks() {
                    let mut wl = [0.0; crate::constraint::MAX_LOCAL_DOF];
                    blk.gather(w, &mut wl);
                    for (r, row) in blk.values.chunks_exact(blk.ldof).enumerate() {
                        out[blk.row0 + r] =
                            row.iter().zip(&wl).map(|(j, wk)| j * j * wk).sum::<f64>() + reg.at(blk.row0 + r);
                    }
                }
            }
            Operator::Dense { n, a } => {
                for (i, d) in out.iter_mut().enumerate() {
                    *d = a[i + i * n];
                }
            }
        }
    }

    /// The full matrix, dense column-major, into `out` (length dim²).
    pub fn to_dense(&self, out: &mut [f64]) {
        match self {
            Operator::Normal { jac, w, pattern, reg } => {
                pattern.assemble_dense(jac, w, out);
                let n = jac.nrows();
                for i in 0..n {
                    out[i + i * n] += reg.at(i);
                }
            }
            Operator::Dense { a, .. } => out.copy_from_slice(a),
        }
    }
}

/// The right-hand side of a velocity solve, b = −(J v + β C) (or −J v without a bias), given by
/// its parts so that a solver that sweeps rows can form b row by row as it goes
/// ([`LinearSolver::solve_velocity`]).
#[derive(Clone, Copy, Debug)]
pub struct VelocityTarget<'a> {
    /// The velocities v (length n).
    pub v: &'a [f64],
    /// The bias rate β \[1/s\] and C (length m), if any.
    pub bias: Option<(f64, &'a [f64])>,
}

impl VelocityTarget<'_> {
    /// b = −(J v + β C) into `b`, J v by [`crate::sparse::BlockJacobian::mul`].
    pub fn form(&self, jac: &crate::sparse::BlockJacobian, b: &mut [f64]) {
        jac.mul(self.v, b);
        for (i, r) in b.iter_mut().enumerate() {
            *r = self.row(i, *r);
        }
    }

    /// Row i of b from its J_r v = `jv`.
    #[inline(always)]
    pub fn row(&self, i: usize, jv: f64) -> f64 {
        match self.bias {
            Some((beta, c)) => -(jv + beta * c[i]),
            None => -jv,
        }
    }
}

/// Cumulative work of the linear solves of a formulation or stabilizer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverCounters {
    /// Linear solves.
    pub solves: u64,
    /// Solver iterations summed over solves (1 per direct solve).
    pub iterations: u64,
    /// Largest relative residual any solve ended with.
    pub max_residual: f64,
}

impl SolverCounters {
    /// Both counts together: solves and iterations summed, the larger residual.
    pub fn plus(mut self, other: SolverCounters) -> SolverCounters {
        self.solves += other.solves;
        self.iterations += other.iterations;
        self.max_residual = self.max_residual.max(other.max_residual);
        self
    }

    /// Records one solve.
    pub fn record(&mut self, info: SolveInfo) {
        self.solves += 1;
        self.iterations += info.iterations as u64;
        self.max_residual = self.max_residual.max(info.residual);
    }
}

/// What one solve did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveInfo {
    /// Iterations (sweeps for Gauss-Seidel and Jacobi; 1 for a direct solve).
    pub iterations: usize,
    /// Final relative residual ‖b − A x‖₂ / ‖b‖₂ (0 when b = 0).
    pub residual: f64,
}

/// Why a solve failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// A zero (or numerically zero) pivot: A is singular, e.g. redundant constraints.
    #[error("{solver}: matrix is singular (pivot {pivot} of {dim} vanishes)")]
    Singular {
        /// Solver name.
        solver: &'static str,
        /// Index of the failing pivot.
        pivot: usize,
        /// Dimension.
        dim: usize,
    },
    /// A Cholesky factorization met a non-positive pivot.
    #[error(
        "{solver}: matrix is not positive definite (pivot {pivot}): J W J^T is singular at the evaluated state (`check` tells whether rows are redundant at q0)"
    )]
    NotPositiveDefinite {
        /// Solver name.
        solver: &'static str,
        /// Index of the failing pivot.
        pivot: usize,
    },
    /// An iterative solver reached its cap above tolerance (with `require_convergence` = 1), or a
    /// formulation's Newton or projection iteration did.
    #[error("{solver}: not converged after {iterations} iterations (residual {residual:.3e} > tol {tol:.1e})")]
    NotConverged {
        /// Solver name.
        solver: &'static str,
        /// Iterations done.
        iterations: usize,
        /// Residual reached, in the measure of its tolerance: relative, ‖b − A x‖₂ / ‖b‖₂, for a
        /// linear solver; absolute for a Newton or projection iteration (max |C| in units of C;
        /// `midpoint` also max |W r| in units of q).
        residual: f64,
        /// Requested tolerance.
        tol: f64,
    },
    /// The iteration broke down (a non-positive curvature pᵀ A p, or a non-finite value).
    #[error("{solver}: breakdown after {iterations} iterations ({reason})")]
    Breakdown {
        /// Solver name.
        solver: &'static str,
        /// Iterations done.
        iterations: usize,
        /// What broke.
        reason: &'static str,
    },
    /// A contact solver refused a step's problem before iterating (its own reason, e.g. more
    /// contacts than it takes).
    #[error("{solver}: the contact solver refused the step's problem: {reason}")]
    Refused {
        /// The formulation that posed the problem.
        solver: &'static str,
        /// The contact solver's reason.
        reason: String,
    },
    /// The cell's wall-time budget (`limits.cell_seconds`) ran out inside the solve
    /// ([`crate::deadline`]).
    #[error("{solver}: time budget exceeded after {iterations} iterations (limits.cell_seconds)")]
    TimeBudget {
        /// Solver (or loop) name.
        solver: &'static str,
        /// Iterations done.
        iterations: usize,
    },
    /// This solver cannot take this kind of operator.
    #[error("{solver} is not applicable: {reason}")]
    NotApplicable {
        /// Solver name.
        solver: &'static str,
        /// Why.
        reason: &'static str,
    },
}

impl SolveError {
    /// At every [`crate::deadline::EVERY`]-th `iteration` of `solver`'s loop, [`SolveError::TimeBudget`]
    /// once the running cell's deadline has passed.
    pub fn check_deadline(solver: &'static str, iteration: usize) -> Result<(), SolveError> {
        if crate::deadline::passed_at(iteration) {
            return Err(SolveError::TimeBudget { solver, iterations: iteration });
        }
        Ok(())
    }
}

/// A solver for A x = b with A symmetric positive (semi-)definite.
pub trait LinearSolver: Send {
    /// Registry name.
    fn name(&self) -> &'static str;
    /// The contact solver this entry of the solver axis is, if it is one ([`contact`]): a
    /// formulation that solves contact problems (`pgs`) takes it out and runs it on each step's
    /// problem.
    fn into_contact(self: Box<Self>) -> Option<Box<dyn crate::friction::solvers::ContactSolver>> {
        None
    }
    /// Allocates workspaces and does the symbolic work for operators shaped like `op`; called once
    /// per run (and again only if the shape changes).
    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError>;
    /// Solves A x = b; `x` holds the warm start on entry (ignored by direct solvers).
    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError>;
    /// Whether [`LinearSolver::solve`] reads `x` on entry as its start: false for a solver that
    /// overwrites `x` before reading it, whose caller may then skip setting a start.
    fn reads_start(&self) -> bool {
        true
    }
    /// Solves with the same matrix as the last [`LinearSolver::solve`] (`op` must still describe
    /// it): direct solvers reuse their factorization (two triangular solves), iterative ones
    /// simply iterate again. For simplified-Newton loops (RATTLE, projection).
    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        self.solve(op, b, x)
    }
    /// Solves J W Jᵀ x = b (`op` is [`Operator::Normal`]) for b = −(J v + β C) formed from
    /// `target` into `b`, by [`LinearSolver::solve`] or, with `same`, [`LinearSolver::solve_same`].
    /// A solver that sweeps rows may form b as it sweeps, to the same bits; b is left in `b`.
    fn solve_velocity(
        &mut self,
        op: &Operator,
        target: &VelocityTarget,
        b: &mut [f64],
        x: &mut [f64],
        same: bool,
    ) -> Result<SolveInfo, SolveError> {
        if let Operator::Normal { jac, .. } = op {
            target.form(jac, b);
        }
        if same { self.solve_same(op, b, x) } else { self.solve(op, b, x) }
    }
}

/// Euclidean norm.
pub(crate) fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// ‖b − A x‖₂ / ‖b‖₂ (or ‖b − A x‖₂ when b = 0), using `ax` and `scratch` as workspaces.
pub fn relative_residual(op: &Operator, b: &[f64], x: &[f64], ax: &mut [f64], scratch: &mut [f64]) -> f64 {
    op.apply(x, ax, scratch);
    let r = b.iter().zip(ax.iter()).map(|(bi, ai)| (bi - ai) * (bi - ai)).sum::<f64>().sqrt();
    let nb = norm(b);
    if nb > 0.0 { r / nb } else { r }
}

/// Stopping rule shared by the iterative solvers.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Stopping {
    /// relative residual tolerance ||b - A x|| / ||b||
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// iteration cap
    #[schemars(range(min = 1, max = 100_000_000))]
    pub max_iter: usize,
    /// true: missing tol at the cap ends the run; false: accept the last iterate (fixed-iteration studies)
    pub require_convergence: bool,
}

impl Default for Stopping {
    fn default() -> Self {
        Stopping { tol: 1e-10, max_iter: 1000, require_convergence: true }
    }
}

impl crate::params::Params for Stopping {}

impl Stopping {
    /// The outcome of an iteration that ended with `residual` after `iterations`.
    pub fn finish(&self, solver: &'static str, iterations: usize, residual: f64) -> Result<SolveInfo, SolveError> {
        if !residual.is_finite() {
            return Err(SolveError::Breakdown { solver, iterations, reason: "non-finite residual" });
        }
        if self.require_convergence && residual > self.tol {
            return Err(SolveError::NotConverged { solver, iterations, residual, tol: self.tol });
        }
        Ok(SolveInfo { iterations, residual })
    }
}
