//! The linear-solver registry: the only list of solvers. Adding a solver = one file + one line here;
//! the solver-agreement tests and `tinkertoy list` pick it up.

use super::{
    Cg, DenseCholesky, DenseLu, EnvelopeLdlt, GaussSeidel, Jacobi, LinearSolver, PcgIc0, SparseCholesky, cg,
    gauss_seidel, jacobi, pcg_ic0,
};
use crate::params::{ParamSpec, ParamValues};

/// Whether a solver is exact up to rounding or iterates to a tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// A factorization: exact up to rounding.
    Direct,
    /// An iteration to a tolerance.
    Iterative,
}

/// One registered linear solver.
pub struct SolverEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: the method and when it fits.
    pub summary: &'static str,
    /// Direct or iterative.
    pub kind: SolverKind,
    /// Declared parameters.
    pub params: &'static [ParamSpec],
    /// Builds a solver from resolved parameters.
    pub build: fn(&ParamValues) -> Box<dyn LinearSolver>,
}

/// Every linear solver.
pub const SOLVERS: &[SolverEntry] = &[
    SolverEntry {
        name: "dense_lu",
        summary: "dense LU with partial pivoting (nalgebra); small systems, reference",
        kind: SolverKind::Direct,
        params: &[],
        build: |_| Box::new(DenseLu::default()),
    },
    SolverEntry {
        name: "dense_cholesky",
        summary: "dense Cholesky (faer); small SPD systems",
        kind: SolverKind::Direct,
        params: &[],
        build: |_| Box::new(DenseCholesky::default()),
    },
    SolverEntry {
        name: "sparse_cholesky",
        summary: "sparse Cholesky of J W J^T (faer), symbolic analysis once per run",
        kind: SolverKind::Direct,
        params: &[],
        build: |_| Box::new(SparseCholesky::default()),
    },
    SolverEntry {
        name: "envelope_ldlt",
        summary: "envelope (profile) LDL^T of J W J^T, natural or RCM order: linear cost on banded systems (chains), sqrt(m) wide on grids",
        kind: SolverKind::Direct,
        params: &[],
        build: |_| Box::new(EnvelopeLdlt::default()),
    },
    SolverEntry {
        name: "cg",
        summary: "matrix-free conjugate gradient on J W J^T (Witkin 4.4), warm start",
        kind: SolverKind::Iterative,
        params: cg::PARAMS,
        build: |p| Box::new(Cg::from_params(p)),
    },
    SolverEntry {
        name: "pcg_ic0",
        summary: "conjugate gradient preconditioned by incomplete Cholesky IC(0) of the assembled J W J^T; exact in one iteration on chains",
        kind: SolverKind::Iterative,
        params: pcg_ic0::PARAMS,
        build: |p| Box::new(PcgIc0::from_params(p)),
    },
    SolverEntry {
        name: "gauss_seidel",
        summary: "Gauss-Seidel/SOR; on J W J^T the sequential-impulse sweep",
        kind: SolverKind::Iterative,
        params: gauss_seidel::PARAMS,
        build: |p| Box::new(GaussSeidel::from_params(p)),
    },
    SolverEntry {
        name: "jacobi",
        summary: "damped Jacobi, matrix-free on J W J^T",
        kind: SolverKind::Iterative,
        params: jacobi::PARAMS,
        build: |p| Box::new(Jacobi::from_params(p)),
    },
];

/// Looks up a solver by name.
pub fn find(name: &str) -> Option<&'static SolverEntry> {
    SOLVERS.iter().find(|e| e.name == name)
}
