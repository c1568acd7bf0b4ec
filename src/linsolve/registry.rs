//! The linear-solver registry: what a solver entry is, and the lookup. The list itself
//! ([`SOLVERS`]) is declared in `linsolve/mod.rs` from the files' names: adding a solver = one
//! file (the solver and its `ENTRY`) + one name there; the solver-agreement tests and
//! `tinkertoy list` pick it up.

use super::LinearSolver;
pub use super::SOLVERS;
use crate::params::{ParamTable, Resolved};
use crate::sparse::NormalMatrix;

/// Whether a solver is exact up to rounding or iterates to a tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// A factorization: exact up to rounding.
    Direct,
    /// An iteration to a tolerance.
    Iterative,
}

/// The kind of linear system a formulation hands to its solver: formulations declare the one
/// they solve, solvers the ones they accept, and a formulation pairs with a solver exactly when
/// the solver accepts its kind (docs/design.md §7). Nothing else decides pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemKind {
    /// J W Jᵀ over the constraint rows: sparse (the constraint graph's pattern), symmetric
    /// positive semidefinite, definite for independent rows or a regularization.
    Normal,
    /// J W Jᵀ over the constraint rows and their geometric-stiffness rows (XPBD's and the
    /// midpoint rule's Newton step), with per-row regularization: sparse, symmetric.
    NormalWithStiffness,
    /// A small dense symmetric positive definite matrix: the loop-closure system G M⁻¹ Gᵀ of
    /// `lagrangian` (m × m, m = loop-closure rows), given as a dense operator.
    LoopClosure,
    /// A contact problem over J W Jᵀ with contact rows (unilateral normals, bounded friction):
    /// the formulation runs the solver's projected sweeps with its own parameters, so the
    /// solver's own parameters do not apply.
    Contact,
}

impl SystemKind {
    /// One line for `list` and messages.
    pub fn describe(self) -> &'static str {
        match self {
            SystemKind::Normal => "sparse SPD J W J^T",
            SystemKind::NormalWithStiffness => "sparse symmetric J W J^T with geometric-stiffness rows",
            SystemKind::LoopClosure => "dense SPD loop-closure system G M^-1 G^T",
            SystemKind::Contact => "contact problem (projected sweeps, the formulation's parameters)",
        }
    }

    /// Whether a linear solver's own parameters apply to a solve of this kind (not for contact:
    /// the formulation's parameters set its sweeps; a contact solver's parameters do apply,
    /// [`SolverEntry::contact_only`]).
    pub fn solver_params_apply(self) -> bool {
        self != SystemKind::Contact
    }
}

/// The kinds the sparse direct and preconditioned solvers accept: the sparse normal matrices
/// (on a dense loop-closure system they would be a dense Cholesky factorization under another
/// name).
pub const SPARSE_NORMAL: &[SystemKind] = &[SystemKind::Normal, SystemKind::NormalWithStiffness];

/// The kinds a solver that works on any symmetric operator (dense, or applied through J) accepts.
pub const ANY_SYMMETRIC: &[SystemKind] =
    &[SystemKind::Normal, SystemKind::NormalWithStiffness, SystemKind::LoopClosure];

/// One registered linear solver.
#[derive(Clone, Copy)]
pub struct SolverEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: the method and when it fits.
    pub summary: &'static str,
    /// Direct or iterative.
    pub kind: SolverKind,
    /// The systems it solves: it pairs with the formulations that solve one of these.
    pub accepts: &'static [SystemKind],
    /// Declared parameters.
    pub params: ParamTable,
    /// Builds a solver from its resolved parameters (of the type `params` declares).
    pub build: fn(&Resolved) -> Box<dyn LinearSolver>,
    /// Bytes its workspaces take on a system (matrices, factors, vectors), for the budget.
    pub memory: fn(&Footprint) -> u64,
}

impl SolverEntry {
    /// Whether it is a contact solver (it takes contact problems only): its parameters apply to
    /// a contact problem, where a linear solver's are set by the formulation's own sweeps.
    pub fn contact_only(&self) -> bool {
        self.accepts == [SystemKind::Contact]
    }
}

/// The system a solver would be prepared on, as far as its memory depends on it.
pub enum Footprint<'a> {
    /// J W Jᵀ with this pattern (upper triangle stored).
    Normal(&'a NormalMatrix),
    /// A dense k × k matrix (the loop-closure system of `lagrangian`).
    Dense(usize),
}

impl Footprint<'_> {
    /// The dimension.
    pub fn dim(&self) -> u64 {
        match self {
            Footprint::Normal(p) => p.dim() as u64,
            Footprint::Dense(k) => *k as u64,
        }
    }

    /// Stored entries of the upper triangle.
    pub fn nnz(&self) -> u64 {
        match self {
            Footprint::Normal(p) => p.nnz() as u64,
            Footprint::Dense(k) => (*k as u64) * (*k as u64 + 1) / 2,
        }
    }

    /// `per_entry` bytes per stored entry of the dense d × d matrix plus `per_row` bytes per row
    /// (the dense solvers, whatever the system's sparsity).
    pub fn dense(&self, per_entry: u64, per_row: u64) -> u64 {
        let d = self.dim();
        d.saturating_mul(d).saturating_mul(per_entry).saturating_add(d * per_row)
    }

    /// `per_nnz` bytes per stored entry plus `per_row` bytes per row (the assembled-sparse and
    /// matrix-free solvers).
    pub fn sparse(&self, per_nnz: u64, per_row: u64) -> u64 {
        self.nnz().saturating_mul(per_nnz).saturating_add(self.dim().saturating_mul(per_row))
    }
}

/// Looks up a solver by name.
pub fn find(name: &str) -> Option<&'static SolverEntry> {
    SOLVERS.iter().find(|e| e.name == name)
}
