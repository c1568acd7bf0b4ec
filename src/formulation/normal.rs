//! The constraint-space system J W Jᵀ λ = b that the Cartesian formulations share: the
//! block-sparse J (Witkin §4.2), the J W Jᵀ pattern (computed once), the prepared linear solver,
//! λ (kept between solves as the warm start) and the solve counters.

use super::{NotApplicable, SolverCounters};
use crate::linsolve::{LinearSolver, Operator, SolveError};
use crate::model::System;
use crate::sparse::{BlockJacobian, NormalMatrix};

/// Workspace for repeated solves of J W Jᵀ λ = b on one system; allocated once per run.
pub struct NormalSolve<'a> {
    /// The system (its W = M⁻¹ is the diagonal used).
    pub system: &'a System,
    /// J at the configuration last passed to [`NormalSolve::update_jacobian`].
    pub jac: BlockJacobian,
    /// Right-hand side b (length m), filled by the formulation.
    pub rhs: Vec<f64>,
    /// The solution λ (length m); its previous value is the next warm start.
    pub lambda: Vec<f64>,
    /// Cumulative solver work.
    pub counters: SolverCounters,
    /// Added to the diagonal of J W Jᵀ (scaled compliance α̃); 0 for rigid constraints.
    pub reg: f64,
    pattern: NormalMatrix,
    solver: Box<dyn LinearSolver>,
}

impl<'a> NormalSolve<'a> {
    /// Lays out J and J W Jᵀ for `system` and prepares `solver` (symbolic analysis, workspaces);
    /// a solver that cannot take this system makes the cell not applicable.
    pub fn new(system: &'a System, mut solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let jac = system.jacobian_layout();
        let pattern = NormalMatrix::new(&jac);
        solver
            .prepare(&Operator::Normal { jac: &jac, w: system.inv_mass(), pattern: &pattern, reg: 0.0 })
            .map_err(|e| NotApplicable(e.to_string()))?;
        let m = system.nrows();
        Ok(NormalSolve {
            system,
            jac,
            rhs: vec![0.0; m],
            lambda: vec![0.0; m],
            counters: SolverCounters::default(),
            reg: 0.0,
            pattern,
            solver,
        })
    }

    /// x += s · W Jᵀ y with the current J (`tmp` has length n): the velocity or position change
    /// caused by multipliers y.
    pub fn add_w_jt(&self, y: &[f64], s: f64, x: &mut [f64], tmp: &mut [f64]) {
        self.jac.mul_t(y, tmp);
        for ((xi, ti), wi) in x.iter_mut().zip(tmp.iter()).zip(self.system.inv_mass()) {
            *xi += s * wi * ti;
        }
    }

    /// Evaluates J(q) into [`NormalSolve::jac`].
    pub fn update_jacobian(&mut self, q: &[f64]) {
        self.system.fill_jacobian(q, &mut self.jac);
    }

    /// Solves J W Jᵀ λ = rhs into λ (warm-started from its current value); `count` adds the solve
    /// to the cost counters (measurement solves pass false).
    pub fn solve(&mut self, count: bool) -> Result<(), SolveError> {
        let op = Operator::Normal { jac: &self.jac, w: self.system.inv_mass(), pattern: &self.pattern, reg: self.reg };
        let info = self.solver.solve(&op, &self.rhs, &mut self.lambda)?;
        if count {
            self.counters.record(info);
        }
        Ok(())
    }

    /// Like [`NormalSolve::solve`] with the matrix of the last solve (J unchanged since): direct
    /// solvers reuse their factorization.
    pub fn solve_same(&mut self, count: bool) -> Result<(), SolveError> {
        let op = Operator::Normal { jac: &self.jac, w: self.system.inv_mass(), pattern: &self.pattern, reg: self.reg };
        let info = self.solver.solve_same(&op, &self.rhs, &mut self.lambda)?;
        if count {
            self.counters.record(info);
        }
        Ok(())
    }
}
