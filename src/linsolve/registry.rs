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

/// One registered linear solver.
#[derive(Clone, Copy)]
pub struct SolverEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: the method and when it fits.
    pub summary: &'static str,
    /// Direct or iterative.
    pub kind: SolverKind,
    /// Declared parameters.
    pub params: ParamTable,
    /// Builds a solver from its resolved parameters (of the type `params` declares).
    pub build: fn(&Resolved) -> Box<dyn LinearSolver>,
    /// Bytes its workspaces take on a system (matrices, factors, vectors), for the budget.
    pub memory: fn(&Footprint) -> u64,
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
