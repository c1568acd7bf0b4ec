//! The constraint-space system J W Jᵀ λ = b that the Cartesian formulations share: the
//! block-sparse J (Witkin §4.2), the J W Jᵀ pattern (computed once), the prepared linear solver,
//! λ (kept between solves as the warm start) and the solve counters.

use crate::linsolve::{LinearSolver, Operator, Reg, SolveError, SolveInfo, SolverCounters, VelocityTarget};
use crate::sparse::{BlockJacobian, NormalMatrix};
use crate::system::System;

/// Why a formulation (or stabilizer) cannot run on a scene (or with a solver), stated for the report.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotApplicable(pub String);

/// Why the equality-only formulations do not run scenes with contact.
pub const CONTACT_NOT_APPLICABLE: &str = "the scene has contacts (inequality rows λ_n ≥ 0, |λ_t| ≤ μ λ_n), which a linear solve of J W Jᵀ λ = b cannot enforce; use a formulation that takes contact (`pgs`, `soft_step`)";

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
    /// When not empty: one diagonal value per row, used instead of `reg`.
    pub reg_rows: Vec<f64>,
    pattern: NormalMatrix,
    solver: Box<dyn LinearSolver>,
    /// Solves so far, for the deadline's every-so-often read ([`crate::deadline`]).
    calls: usize,
}

impl<'a> NormalSolve<'a> {
    /// Lays out J and J W Jᵀ for `system` and prepares `solver` (symbolic analysis, workspaces);
    /// a solver that cannot take this system makes the cell not applicable.
    pub fn new(system: &'a System, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        if system.contacts().is_some() {
            return Err(NotApplicable(CONTACT_NOT_APPLICABLE.into()));
        }
        Self::with_contacts(system, solver)
    }

    /// Like [`NormalSolve::new`] but also on systems with contact, for formulations that handle
    /// the contact rows themselves (`pgs`).
    pub fn with_contacts(system: &'a System, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        Self::with_layout(system, system.jacobian_layout(), solver)
    }

    /// Like [`NormalSolve::with_contacts`] for a Jacobian layout other than the system's own (e.g.
    /// [`System::jacobian_layout_with_stiffness_rows`]); the vectors have its row count.
    pub fn with_layout(
        system: &'a System,
        jac: BlockJacobian,
        mut solver: Box<dyn LinearSolver>,
    ) -> Result<Self, NotApplicable> {
        let pattern = NormalMatrix::new(&jac);
        solver
            .prepare(&Operator::Normal { jac: &jac, w: system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) })
            .map_err(|e| NotApplicable(e.to_string()))?;
        let m = jac.nrows();
        Ok(NormalSolve {
            system,
            jac,
            rhs: vec![0.0; m],
            lambda: vec![0.0; m],
            counters: SolverCounters::default(),
            reg: 0.0,
            reg_rows: Vec::new(),
            pattern,
            solver,
            calls: 0,
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

    /// q ← q ⊕ s · W Jᵀ y with the current J (`tmp` has length n): the position change caused by
    /// position-level multipliers y, through [`System::advance`] (the exponential map for
    /// orientations).
    pub fn displace(&self, y: &[f64], s: f64, q: &mut [f64], tmp: &mut [f64]) {
        self.jac.mul_t(y, tmp);
        for (t, w) in tmp.iter_mut().zip(self.system.inv_mass()) {
            *t *= w;
        }
        self.system.advance(q, tmp, s);
    }

    /// Evaluates C(q) into `c` and J(q) into [`NormalSolve::jac`] in one pass.
    pub fn update_constraints(&mut self, q: &[f64], c: &mut [f64]) {
        self.system.eval_constraints_and_jacobian(q, c, &mut self.jac);
    }

    /// Evaluates J(q) into [`NormalSolve::jac`].
    pub fn update_jacobian(&mut self, q: &[f64]) {
        self.system.fill_jacobian(q, &mut self.jac);
    }

    /// Runs `solve` on the current operator, λ and rhs, unless there is no constraint: counts the
    /// call, checks the run's deadline every so often ([`crate::deadline`]) and, with `count`,
    /// adds the solve to the cost counters.
    fn run(
        &mut self,
        count: bool,
        solve: impl FnOnce(&mut dyn LinearSolver, &Operator, &mut [f64], &mut [f64]) -> Result<SolveInfo, SolveError>,
    ) -> Result<(), SolveError> {
        if self.rhs.is_empty() {
            return Ok(()); // no constraints: nothing to solve
        }
        self.calls += 1;
        crate::linsolve::SolveError::check_deadline("constraint solve", self.calls)?;
        let reg = diagonal(self.reg, &self.reg_rows);
        let op = Operator::Normal { jac: &self.jac, w: self.system.inv_mass(), pattern: &self.pattern, reg };
        let info = solve(self.solver.as_mut(), &op, &mut self.rhs, &mut self.lambda)?;
        if count {
            self.counters.record(info);
        }
        Ok(())
    }

    /// Sets λ to 0, the start of the next [`NormalSolve::solve`], unless the solver does not read
    /// a start ([`LinearSolver::reads_start`]): then λ is left as it is, to be overwritten.
    pub fn start_from_zero(&mut self) {
        if self.solver.reads_start() {
            self.lambda.fill(0.0);
        }
    }

    /// Solves J W Jᵀ λ = rhs into λ (warm-started from its current value); `count` adds the solve
    /// to the cost counters (measurement solves pass false).
    pub fn solve(&mut self, count: bool) -> Result<(), SolveError> {
        self.run(count, |s, op, b, x| s.solve(op, b, x))
    }

    /// Solves J W Jᵀ λ = b for the velocity target b = −(J v + β C) (see [`VelocityTarget`]),
    /// formed into `rhs` — by the solver as it sweeps, where it can — and counted; λ starts from
    /// its current value; `same` as [`NormalSolve::solve_same`].
    pub fn solve_velocity(&mut self, target: &VelocityTarget, same: bool) -> Result<(), SolveError> {
        self.run(true, |s, op, b, x| s.solve_velocity(op, target, b, x, same))
    }

    /// Like [`NormalSolve::solve`] (or [`NormalSolve::solve_same`] with `same`) for a solve that
    /// only preconditions an outer iteration whose own residual decides convergence (`midpoint`'s
    /// Newton–GMRES): an iterative solver's last iterate is kept when it misses its tolerance (the
    /// solve is counted, with its residual); every other failure is returned.
    pub fn solve_preconditioner(&mut self, same: bool) -> Result<(), SolveError> {
        let r = if same { self.solve_same(true) } else { self.solve(true) };
        match r {
            Err(SolveError::NotConverged { iterations, residual, .. }) if residual.is_finite() => {
                self.counters.record(crate::linsolve::SolveInfo { iterations, residual });
                Ok(())
            }
            r => r,
        }
    }

    /// Like [`NormalSolve::solve`] with the matrix of the last solve (J unchanged since): direct
    /// solvers reuse their factorization.
    pub fn solve_same(&mut self, count: bool) -> Result<(), SolveError> {
        self.run(count, |s, op, b, x| s.solve_same(op, b, x))
    }
}

/// The diagonal term of a solve: one value per row when `rows` is not empty, else the uniform
/// `reg` (a free function, so that the operator borrows only those fields).
fn diagonal(reg: f64, rows: &[f64]) -> Reg<'_> {
    if rows.is_empty() { Reg::Uniform(reg) } else { Reg::PerRow(rows) }
}
