//! `lagrangian` — Lagrange's equations in reduced coordinates (Witkin 1997, §5, eq. 13).
//!
//! For a scene with a global parametrization q = q(u), J = ∂q/∂u (n × k):
//!   (Jᵀ M J) ü = Jᵀ Q − Jᵀ M J̇ u̇                      (Witkin eq. 13)
//! an ODE for (u, u̇). The constraints hold identically, so there is no drift and no feedback; the
//! price is a dense k × k reduced mass matrix per evaluation. Closed loops (slider-crank, four-bar)
//! and the cloth have no global parametrization and report "not applicable".
//! The constraint force for the power metric is Q̂ = M q̈ − Q with q̈ = J ü + J̇ u̇.

use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{Dynamics, NotApplicable, SecondOrderOde, SolverCounters};
use crate::linsolve::{LinearSolver, Operator, SolveError};
use crate::system::System;
use crate::params::Params;
use crate::scene::{Parametrization, Scene};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `lagrangian`: none (the reduced coordinates come from the scene).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LagrangianParams {}

impl Params for LagrangianParams {}

impl FormulationParams for LagrangianParams {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Ode(Box::new(Lagrangian::new(scene, solver)?)))
    }
}

/// The registry entry of `lagrangian`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<LagrangianParams>(
    "lagrangian",
    "reduced coordinates, J^T M J u'' = J^T Q - J^T M Jdot u' (Witkin eq. 13); open chains only",
    FormulationKind::Ode,
)
.solving(super::registry::SystemShape::Reduced);

/// The reduced-coordinate formulation on one scene, with its workspaces.
pub struct Lagrangian<'a> {
    system: &'a System,
    param: &'a dyn Parametrization,
    scene: &'a Scene,
    solver: Box<dyn LinearSolver>,
    q: Vec<f64>,
    v: Vec<f64>,
    applied: Vec<f64>,
    jdu: Vec<f64>,
    y: Vec<f64>,
    mass_matrix: Vec<f64>,
    rhs: Vec<f64>,
    udd: Vec<f64>,
    counters: SolverCounters,
}

impl<'a> Lagrangian<'a> {
    /// Sets up the formulation, or says why the scene has no reduced coordinates.
    pub fn new(scene: &'a Scene, mut solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let Some(param) = scene.parametrization.as_deref() else {
            return Err(NotApplicable(format!(
                "scene `{}` has no global parametrization q(u) (closed loops need coordinate partitioning, not implemented)",
                scene.name
            )));
        };
        let (n, k) = (scene.system.ndof(), param.dim());
        let placeholder = vec![0.0; k * k];
        solver.prepare(&Operator::Dense { n: k, a: &placeholder }).map_err(|e| NotApplicable(e.to_string()))?;
        Ok(Lagrangian {
            system: &scene.system,
            param,
            scene,
            solver,
            q: vec![0.0; n],
            v: vec![0.0; n],
            applied: vec![0.0; n],
            jdu: vec![0.0; n],
            y: vec![0.0; n],
            mass_matrix: placeholder,
            rhs: vec![0.0; k],
            udd: vec![0.0; k],
            counters: SolverCounters::default(),
        })
    }

    /// Solves eq. 13 at (u, u̇) into `udd`; leaves q, v, Q and J̇u̇ in the workspaces.
    fn evaluate(&mut self, u: &[f64], ud: &[f64], count: bool) -> Result<(), SolveError> {
        let (sys, p) = (self.system, self.param);
        p.position(u, &mut self.q);
        p.velocity(u, ud, &mut self.v);
        p.jdot_udot(u, ud, &mut self.jdu);
        sys.applied_forces(&self.q, &self.v, &mut self.applied);
        // y = Q − M J̇u̇, rhs = Jᵀ y  (Witkin eq. 13)
        for (((yi, qi), mi), ji) in self.y.iter_mut().zip(&self.applied).zip(sys.mass()).zip(&self.jdu) {
            *yi = qi - mi * ji;
        }
        p.jt_mul(u, &self.y, &mut self.rhs);
        p.mass_matrix(u, sys.mass(), &mut self.mass_matrix);
        let op = Operator::Dense { n: p.dim(), a: &self.mass_matrix };
        let info = self.solver.solve(&op, &self.rhs, &mut self.udd)?;
        if count {
            self.counters.record(info);
        }
        Ok(())
    }
}

impl SecondOrderOde for Lagrangian<'_> {
    fn dim(&self) -> usize {
        self.param.dim()
    }

    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        self.param.reduce(&self.scene.q0, &self.scene.v0, x, xd);
    }

    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, true)?;
        a.copy_from_slice(&self.udd);
        Ok(())
    }

    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        self.param.position(x, q);
        self.param.velocity(x, xd, v);
    }

    fn cartesian_acceleration(&self, x: &[f64], xd: &[f64], a: &[f64], out: &mut [f64]) {
        // q̈ = J ü + J̇ u̇
        self.param.velocity(x, a, out);
        let mut jdu = vec![0.0; out.len()];
        self.param.jdot_udot(x, xd, &mut jdu);
        for (o, j) in out.iter_mut().zip(&jdu) {
            *o += j;
        }
    }

    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, false)?;
        // q̈ = J ü + J̇ u̇;  Q̂ = M q̈ − Q
        self.param.velocity(x, &self.udd, out);
        for (((o, m), jdu), q) in out.iter_mut().zip(self.system.mass()).zip(&self.jdu).zip(&self.applied) {
            *o = m * (*o + jdu) - q;
        }
        Ok(())
    }

    fn solver_counters(&self) -> SolverCounters {
        self.counters
    }
}
