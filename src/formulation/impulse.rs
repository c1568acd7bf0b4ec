//! `impulse` — the velocity-level formulation (seeds 001 and 004; Catto 2005), a time stepper.
//!
//! One step of length h, split into n substeps of h_s = h / n:
//!   v* = v + h_s W Q                                   (integrate applied forces)
//!   J W Jᵀ λ = −(J v* + (β / h_s) C)                   (velocity constraint with Baumgarte bias)
//!   v⁺ = v* + W Jᵀ λ,   q⁺ = q + h_s v⁺                (symplectic-Euler-like update)
//! λ is an impulse \[N·s\]; Q̂ = Jᵀλ / h_s is the equivalent constraint force. For a constraint that
//! is linear in q, C⁺ = C + h_s J v⁺ = (1 − β) C exactly. With `gauss_seidel` as the solver the
//! solve is the sequential-impulse sweep; λ of the previous step is the warm start when enabled.

use super::Dynamics;
use super::softness::Softness;
use super::stepper_core::StepperCore;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the impulse stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ImpulseOptions {
    /// Baumgarte factor: fraction of C removed per substep
    #[schemars(range(min = 0, max = 1), extend("unit" = "1"))]
    pub beta: f64,
    /// start each solve from the previous lambda
    pub warm_start: bool,
    /// substeps per step
    #[schemars(range(min = 1, max = 100_000))]
    pub substeps: usize,
    /// Tikhonov term added to the diagonal of J W Jᵀ (0: none); makes redundant rows solvable by direct solvers, at a velocity residual of reg · |λ|
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "units of J W Jᵀ"))]
    pub reg: f64,
}

impl Default for ImpulseOptions {
    fn default() -> Self {
        ImpulseOptions { beta: 0.2, warm_start: true, substeps: 1, reg: 0.0 }
    }
}

impl Params for ImpulseOptions {}

impl FormulationParams for ImpulseOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Impulse::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `impulse`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<ImpulseOptions>(
    "impulse",
    "velocity level, J W J^T lambda = -(J v* + beta/h C), sequential impulses with gauss_seidel",
    FormulationKind::Stepper,
)
.with_order(1);

/// The impulse-based stepper on one scene, with its workspaces.
pub struct Impulse<'a> {
    core: StepperCore<'a>,
    opts: ImpulseOptions,
    /// The last substep \[s\]; the core's `qhat` holds Jᵀλ of that substep.
    hs: f64,
}

impl<'a> Impulse<'a> {
    /// Sets up the stepper for `scene` (its initial state is used by the runner).
    pub fn new(scene: &'a Scene, opts: ImpulseOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let mut core = StepperCore::new(scene, solver)?;
        core.ns.reg = opts.reg;
        Ok(Impulse { core, opts, hs: 1.0 })
    }
}

impl Stepper for Impulse<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        for _ in 0..self.opts.substeps {
            let sys = self.core.ns.system;
            let w = sys.inv_mass();
            // v* = v + h_s W Q
            self.core.integrate_velocities(q, v, hs);
            // J W Jᵀ λ = −(J v* + (β/h_s) C)
            self.core.ns.update_constraints(q, &mut self.core.c);
            if !self.opts.warm_start {
                self.core.ns.lambda.fill(0.0);
            }
            self.core.solve_target(v, Some(Softness::baumgarte(self.opts.beta, hs).bias_rate), false)?;
            // v⁺ = v* + W Jᵀ λ;  q⁺ = q + h_s v⁺ (Jᵀλ is kept; Q̂ = Jᵀλ / h_s when it is asked for)
            self.core.ns.jac.mul_t(&self.core.ns.lambda, &mut self.core.qhat);
            for ((vi, wi), ji) in v.iter_mut().zip(w).zip(&self.core.qhat) {
                *vi += wi * ji;
            }
            self.core.integrate_positions(q, v, hs);
        }
        self.hs = hs;
        Ok(())
    }

    fn constraint_force(&mut self, out: &mut [f64]) {
        for (o, ji) in out.iter_mut().zip(&self.core.qhat) {
            *o = ji / self.hs;
        }
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }
}
