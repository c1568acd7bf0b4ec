//! The linear-solver registry: what a solver entry is, and the lookup. The list itself
//! ([`SOLVERS`]) is declared in `linsolve/mod.rs` from the files' names: adding a solver = one
//! file (the solver and its `ENTRY`) + one name there; the solver-agreement tests and
//! `tinkertoy list` pick it up.

use super::LinearSolver;
pub use super::SOLVERS;
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

/// Looks up a solver by name.
pub fn find(name: &str) -> Option<&'static SolverEntry> {
    SOLVERS.iter().find(|e| e.name == name)
}
