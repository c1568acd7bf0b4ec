//! `dae` — the constrained equations of motion as a differential-algebraic system, for an
//! integrator of DAEs (`radau5`), in the index-3 form (C(q) = 0) or the index-2 form
//! (J(q) v = 0) (Hairer & Wanner, Solving ODEs II, §VII.1; the Test Set for IVP Solvers writes
//! its mechanical problems so):
//!   q′ = G(q) v,   M v′ = Q(q, v) + J(q)ᵀ λ,   0 = C(q)   or   0 = J(q) v,
//! with λ a state variable that the integrator advances with q and v, not a function of them.
//! No feedback gains and no index reduction: the integrator enforces the algebraic rows at its
//! stages. The cell's linear solver gives the consistent λ₀ (J W Jᵀ λ₀ = −J̇v − J W Q) and the
//! measurements; the integrator's Newton solves the whole (n + m) system with its own matrices.
//! Through the ODE interface the same cell is `force` without feedback, so it pairs only with
//! the integrators of DAEs ([`crate::integrator::registry::IntegratorEntry::dae`]).

use super::force::Force;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{Dynamics, Gains, NotApplicable, SecondOrderOde, SolverCounters};
use crate::integrator::ConstrainedDae;
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use crate::sparse::BlockJacobian;
use crate::system::System;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `dae`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DaeParams {
    /// 3: the position constraint C(q) = 0 (q index 1, v index 2, lambda index 3); 2: the velocity constraint J(q) v = 0 (q and v index 1, lambda index 2; C drifts at the integrator's accuracy)
    #[schemars(range(min = 2, max = 3))]
    pub index: u32,
}

impl Default for DaeParams {
    fn default() -> Self {
        DaeParams { index: 3 }
    }
}

impl Params for DaeParams {}

impl FormulationParams for DaeParams {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        let force = Force::new(scene, Gains { ks: 0.0, kd: 0.0 }, solver)?;
        let sys = &scene.system;
        let n = sys.ndof();
        Ok(Dynamics::Ode(Box::new(Dae {
            force,
            sys,
            index: self.index,
            jac: sys.jacobian_layout(),
            applied: vec![0.0; n],
            tmp: vec![0.0; n],
        })))
    }
}

/// The registry entry of `dae`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<DaeParams>(
    "dae",
    "the equations of motion as a DAE, q' = G v, M v' = Q + J^T lambda, 0 = C (index 3) or 0 = J v (index 2), lambda a state variable; for the integrators of DAEs (radau5)",
    FormulationKind::Dae,
);

/// The DAE on one scene: `force` without feedback for the ODE interface, and the DAE's
/// right-hand side.
pub struct Dae<'a> {
    force: Force<'a>,
    sys: &'a System,
    index: u32,
    jac: BlockJacobian,
    applied: Vec<f64>,
    tmp: Vec<f64>,
}

impl ConstrainedDae for Dae<'_> {
    fn multipliers(&self) -> usize {
        self.sys.nrows()
    }

    fn index(&self) -> u32 {
        self.index
    }

    fn consistent_multipliers(&mut self, x: &[f64], xd: &[f64], lambda: &mut [f64]) -> Result<(), SolveError> {
        self.force.multipliers(x, xd, lambda)
    }

    fn rhs(&mut self, x: &[f64], xd: &[f64], lambda: &[f64], acc: &mut [f64], alg: &mut [f64]) {
        self.sys.applied_forces(x, xd, &mut self.applied);
        self.sys.fill_jacobian(x, &mut self.jac);
        self.jac.mul_t(lambda, &mut self.tmp);
        for (((a, q), jl), w) in acc.iter_mut().zip(&self.applied).zip(&self.tmp).zip(self.sys.inv_mass()) {
            *a = w * (q + jl);
        }
        if self.index == 3 {
            self.sys.eval_constraints(x, alg);
        } else {
            self.jac.mul(xd, alg);
        }
    }
}

impl SecondOrderOde for Dae<'_> {
    fn dim(&self) -> usize {
        self.force.dim()
    }

    fn position_dim(&self) -> usize {
        self.force.position_dim()
    }

    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        self.force.advance(x, xd, h);
    }

    fn position_rate(&self, x: &[f64], xd: &[f64], out: &mut [f64]) {
        self.force.position_rate(x, xd, out);
    }

    fn normalize(&self, x: &mut [f64]) -> bool {
        self.force.normalize(x)
    }

    fn clock_index(&self) -> Option<usize> {
        self.force.clock_index()
    }

    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        self.force.initial(x, xd);
    }

    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        self.force.accel(x, xd, a)
    }

    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        self.force.cartesian(x, xd, q, v);
    }

    fn cartesian_acceleration(&self, x: &[f64], xd: &[f64], a: &[f64], out: &mut [f64]) {
        self.force.cartesian_acceleration(x, xd, a, out);
    }

    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.force.constraint_force(x, xd, out)
    }

    fn solver_counters(&self) -> SolverCounters {
        self.force.solver_counters()
    }

    fn is_cartesian(&self) -> bool {
        true
    }

    fn dae(&mut self) -> Option<&mut dyn ConstrainedDae> {
        Some(self)
    }
}
