//! The linear-solver registry: the only list of solvers. Adding a solver = one file + one line here;
//! the solver-agreement tests and `tinkertoy list` pick it up.

use super::{
    LinearSolver, cg, dense_cholesky, dense_lu, envelope_ldlt, gauss_seidel, jacobi, pcg_ic0, sparse_cholesky,
};
use crate::params::{ParamTable, Resolved};

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
}

/// Every linear solver.
pub const SOLVERS: &[SolverEntry] = &[
    dense_lu::ENTRY,
    dense_cholesky::ENTRY,
    sparse_cholesky::ENTRY,
    envelope_ldlt::ENTRY,
    cg::ENTRY,
    pcg_ic0::ENTRY,
    gauss_seidel::ENTRY,
    jacobi::ENTRY,
];

/// Looks up a solver by name.
pub fn find(name: &str) -> Option<&'static SolverEntry> {
    SOLVERS.iter().find(|e| e.name == name)
}
