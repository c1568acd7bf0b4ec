//! `force` — the acceleration-level formulation with Baumgarte feedback (Witkin 1997, eq. 11;
//! Baumgarte 1972; seeds 002 and 003).
//!
//! Each right-hand-side evaluation at (q, v):
//!   Q      = applied forces
//!   J W Jᵀ λ = −J̇v − J W Q − k_s C − k_d Ċ          (Witkin eq. 11; Ċ = J v)
//!   Q̂      = Jᵀ λ,   a = W (Q + Q̂)
//! With k_s = k_d = 0 the constraint is only enforced at the acceleration level, so C drifts
//! (seed 002); the feedback turns C into a damped oscillator C̈ + k_d Ċ + k_s C = 0.
//! λ of the previous evaluation is the warm start of iterative solvers.

use super::Dynamics;
use crate::normal_solve::NormalSolve;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{Gains, NotApplicable, SecondOrderOde, SolverCounters};
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `force`: the Baumgarte feedback, as (k_s, k_d) or as (ω, ζ) with k_s = ω²,
/// k_d = 2ζω — one or the other, not both.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[schemars(inline)] // `lagrangian`'s parameters are these, read off the same schema
pub struct ForceParams {
    /// Baumgarte stiffness k_s on C
    #[schemars(range(min = 0), extend("unit" = "1/s^2"))]
    pub ks: f64,
    /// Baumgarte damping k_d on dC/dt
    #[schemars(range(min = 0), extend("unit" = "1/s"))]
    pub kd: f64,
    /// feedback frequency; if > 0, k_s = omega^2, k_d = 2 zeta omega
    #[schemars(range(min = 0), extend("unit" = "rad/s"))]
    pub omega: f64,
    /// feedback damping ratio (with omega)
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub zeta: f64,
    /// Tikhonov term eps added to the diagonal of the multiplier system, (A + eps I) lambda = b: redundant rows and singular configurations then solve; bias: each row's acceleration misses its target by eps lambda_r (1/kg on length rows)
    #[schemars(range(min = 0), extend("unit" = "1/kg"))]
    pub reg: f64,
}

impl Default for ForceParams {
    fn default() -> Self {
        ForceParams { ks: 0.0, kd: 0.0, omega: 0.0, zeta: 1.0, reg: 0.0 }
    }
}

impl ForceParams {
    /// The feedback gains these parameters describe.
    pub fn gains(&self) -> Gains {
        if self.omega > 0.0 { Gains::from_frequency(self.omega, self.zeta) } else { Gains { ks: self.ks, kd: self.kd } }
    }
}

impl Params for ForceParams {
    fn check(&self, given: &[&str]) -> Result<(), String> {
        let has = |k: &str| given.contains(&k);
        if (has("omega") || has("zeta")) && (has("ks") || has("kd")) {
            return Err("give the feedback either as (ks, kd) or as (omega, zeta), not both".into());
        }
        Ok(())
    }
}

impl FormulationParams for ForceParams {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        let mut f = Force::new(scene, self.gains(), solver)?;
        f.ns.reg = self.reg;
        Ok(Dynamics::Ode(Box::new(f)))
    }
}

/// The registry entry of `force`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<ForceParams>(
    "force",
    "acceleration level, J W J^T lambda = -Jdot v - J W Q - ks C - kd Cdot (Witkin eq. 11)",
    FormulationKind::Ode,
);

/// The force-based formulation on one scene, with its workspaces.
pub struct Force<'a> {
    ns: NormalSolve<'a>,
    q0: &'a [f64],
    v0: &'a [f64],
    gains: Gains,
    applied: Vec<f64>,
    wq: Vec<f64>,
    c: Vec<f64>,
    cdot: Vec<f64>,
    jdv: Vec<f64>,
    qhat: Vec<f64>,
}

impl<'a> Force<'a> {
    /// Sets up the formulation (Jacobian layout, J W Jᵀ pattern, solver preparation) for `scene`.
    pub fn new(scene: &'a Scene, gains: Gains, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (n, m) = (scene.system.ndof(), scene.system.nrows());
        Ok(Force {
            ns: NormalSolve::new(&scene.system, solver)?,
            q0: &scene.q0,
            v0: &scene.v0,
            gains,
            applied: vec![0.0; n],
            wq: vec![0.0; n],
            c: vec![0.0; m],
            cdot: vec![0.0; m],
            jdv: vec![0.0; m],
            qhat: vec![0.0; n],
        })
    }

    /// Solves Witkin eq. 11 at (q, v), leaving Q in `applied` and Q̂ in `qhat`.
    fn evaluate(&mut self, q: &[f64], v: &[f64], count: bool) -> Result<(), SolveError> {
        let sys = self.ns.system;
        sys.applied_forces(q, v, &mut self.applied);
        self.ns.update_constraints(q, &mut self.c);
        sys.jdot_v(q, v, &mut self.jdv);
        self.ns.jac.mul(v, &mut self.cdot);
        for ((wq, qi), wi) in self.wq.iter_mut().zip(&self.applied).zip(sys.inv_mass()) {
            *wq = wi * qi;
        }
        self.ns.jac.mul(&self.wq, &mut self.ns.rhs);
        let Gains { ks, kd } = self.gains;
        for (i, b) in self.ns.rhs.iter_mut().enumerate() {
            // Witkin eq. 11: b = −J̇v − J W Q − k_s C − k_d Ċ
            *b = -self.jdv[i] - *b - ks * self.c[i] - kd * self.cdot[i];
        }
        self.ns.solve(count)?;
        self.ns.jac.mul_t(&self.ns.lambda, &mut self.qhat);
        Ok(())
    }
}

impl Force<'_> {
    /// The multipliers of Witkin eq. 11 at (q, v) (with this formulation's gains) into `out`; the
    /// solve is counted as cost.
    pub(super) fn multipliers(&mut self, q: &[f64], v: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(q, v, true)?;
        out.copy_from_slice(&self.ns.lambda);
        Ok(())
    }
}

impl SecondOrderOde for Force<'_> {
    fn dim(&self) -> usize {
        self.ns.system.ndof()
    }

    fn position_dim(&self) -> usize {
        self.ns.system.nq()
    }

    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        self.ns.system.advance(x, xd, h);
    }

    fn position_rate(&self, x: &[f64], xd: &[f64], out: &mut [f64]) {
        self.ns.system.qdot(x, xd, out);
    }

    fn normalize(&self, x: &mut [f64]) -> bool {
        self.ns.system.normalize(x)
    }

    fn clock_index(&self) -> Option<usize> {
        self.ns.system.clock_q_index()
    }

    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        x.copy_from_slice(self.q0);
        xd.copy_from_slice(self.v0);
    }

    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, true)?;
        for (((ai, qi), qh), wi) in a.iter_mut().zip(&self.applied).zip(&self.qhat).zip(self.ns.system.inv_mass()) {
            *ai = wi * (qi + qh); // a = W (Q + Q̂)
        }
        Ok(())
    }

    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        q.copy_from_slice(x);
        v.copy_from_slice(xd);
    }

    fn cartesian_acceleration(&self, _x: &[f64], _xd: &[f64], a: &[f64], out: &mut [f64]) {
        out.copy_from_slice(a);
    }

    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, false)?;
        out.copy_from_slice(&self.qhat);
        Ok(())
    }

    fn solver_counters(&self) -> SolverCounters {
        self.ns.counters
    }

    fn is_cartesian(&self) -> bool {
        true
    }
}
