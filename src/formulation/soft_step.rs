//! `soft_step` — Box2D v3's substepped soft-constraint solver (Catto 2024, "Solver2D" and Box2D
//! v3 `solver.c`, `b2MakeSoft` in `solver.h`), a variant of `impulse`.
//!
//! Softness from a frequency f \[Hz\] and damping ratio ζ at the substep h_s (b2MakeSoft):
//!   ω = 2πf,  a₁ = 2ζ + h_s ω,  a₂ = h_s ω a₁,  a₃ = 1 / (1 + a₂)
//!   biasRate = ω / a₁,  massScale = a₂ a₃,  impulseScale = a₃
//! Per substep, the stages of `b2SolverStage`:
//!   integrate velocities   v ← v + h_s W Q
//!   warm start             v ← v + W Jᵀ λ                       (λ: last substep's total impulse)
//!   solve (soft)           (J W Jᵀ) x = −(J v + biasRate C);  Δλ = massScale x − impulseScale λ
//!                          λ ← λ + Δλ;  v ← v + W Jᵀ Δλ
//!   integrate positions    q ← q + h_s v
//!   relax (rigid)          (J W Jᵀ) y = −J v;  λ ← λ + y;  v ← v + W Jᵀ y
//! DEVIATION: Box2D solves joint by joint (Gauss-Seidel, graph colouring); here each stage solves
//! all rows at once with the cell's linear solver, and the relax stage reuses the factorization of
//! the solve stage (J at the substep start; Box2D updates anchors with the body rotations).
//! DEVIATION: Box2D v3 lowers the joint frequency to min(jointHertz, 1/(8 h_s)) for large steps
//! (`b2World_Step` in `world.c`: "Hertz values get reduced for large time steps"); here `hertz` is
//! used as given, so at h = 1/60 s with 4 substeps a joint is twice as stiff as Box2D's (60 Hz
//! against 30 Hz). The contact frequency is capped as Box2D caps it (a quarter of the substep
//! rate).
//!
//! On a scene with contact, each stage also runs over the contacts after the joints, as Box2D's
//! stages do: one projected Gauss–Seidel pass of soft normal impulses and rigid Coulomb friction
//! per stage, and a restitution stage after the substeps (in `formulation/soft_contact.rs`).

use super::Dynamics;
use super::soft_contact::{ContactSoftness, SoftContacts};
use super::softness::{Softness, Spring};
use super::stepper_core::StepperCore;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, SolverCounters, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the soft step.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SoftStepOptions {
    /// substeps per step (Box2D default 4)
    #[schemars(range(min = 1, max = 100_000))]
    pub substeps: usize,
    /// constraint stiffness as a frequency (Box2D jointHertz 60), used as given: Box2D caps it at an eighth of the substep rate (30 Hz at 4 substeps of 1/60 s), this does not
    #[schemars(extend("unit" = "Hz", "exclusiveMinimum" = 0))]
    pub hertz: f64,
    /// constraint damping ratio (Box2D jointDampingRatio 2)
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub damping_ratio: f64,
    /// Tikhonov term added to the diagonal of J W Jᵀ in every solve (0: none); makes redundant rows solvable by direct solvers, at a velocity residual of reg · |λ|
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "units of J W Jᵀ"))]
    pub reg: f64,
    /// contact stiffness as a frequency, capped at a quarter of the substep rate; contacts with the world take twice it (Box2D contactHertz 30)
    #[schemars(range(max = 1e12), extend("unit" = "Hz", "exclusiveMinimum" = 0))]
    pub contact_hertz: f64,
    /// contact damping ratio (Box2D contactDampingRatio 10)
    #[schemars(range(min = 0, max = 1e6), extend("unit" = "1"))]
    pub contact_damping_ratio: f64,
    /// the fastest push-out of a penetration (Box2D contactPushMaxVelocity 3 m/s)
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "m/s"))]
    pub push_velocity: f64,
}

impl Default for SoftStepOptions {
    fn default() -> Self {
        SoftStepOptions {
            substeps: 4,
            hertz: 60.0,
            damping_ratio: 2.0,
            reg: 0.0,
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            push_velocity: 3.0,
        }
    }
}

impl Params for SoftStepOptions {}

impl FormulationParams for SoftStepOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(SoftStep::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `soft_step`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<SoftStepOptions>(
    "soft_step",
    "Box2D v3 soft step: substeps with soft velocity constraints (frequency, damping ratio) and a rigid relax pass; contacts as Box2D's soft contact solver (soft normal impulses, rigid Coulomb friction, restitution)",
    FormulationKind::Stepper,
)
.with_order(1)
.with_contact_model(
    "soft contact (a damped spring on penetration in the solve stage, rigid only in the relax stage), not the rigid problem",
);

/// The soft-step stepper on one scene, with its workspaces.
pub struct SoftStep<'a> {
    core: StepperCore<'a>,
    opts: SoftStepOptions,
    /// The contact stages, on a scene with contact.
    contacts: Option<SoftContacts<'a>>,
}

impl<'a> SoftStep<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: SoftStepOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let mut core = StepperCore::with_contacts(scene, solver)?;
        core.ns.reg = opts.reg;
        let softness = ContactSoftness {
            hertz: opts.contact_hertz,
            damping_ratio: opts.contact_damping_ratio,
            push_velocity: opts.push_velocity,
        };
        let contacts = scene.system.contacts().map(|set| SoftContacts::new(set, softness));
        Ok(SoftStep { core, opts, contacts })
    }
}

impl Stepper for SoftStep<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        // b2MakeSoft(hertz, zeta, h_s)
        let Softness { bias_rate, mass_scale, impulse_scale } =
            Spring::from_hertz(self.opts.hertz, self.opts.damping_ratio).soft(hs);
        let sys = self.core.ns.system;
        if let Some(c) = self.contacts.as_mut() {
            c.prepare(sys, q, v, hs);
        }
        for _ in 0..self.opts.substeps {
            self.core.integrate_velocities(q, v, hs);
            // warm start with the previous substep's impulses (J at the new configuration)
            // (C and J in one pass: the warm start changes v only)
            self.core.ns.update_constraints(q, &mut self.core.c);
            self.core.warm_start(v);
            if let Some(c) = &self.contacts {
                c.warm_start(v);
            }
            // soft solve
            self.core.ns.lambda.fill(0.0);
            self.core.solve_target(v, Some(bias_rate), false)?;
            for (x, l) in self.core.ns.lambda.iter_mut().zip(self.core.accumulated.iter_mut()) {
                *x = mass_scale * *x - impulse_scale * *l; // Δλ
                *l += *x;
            }
            self.core.ns.add_w_jt(&self.core.ns.lambda, 1.0, v, &mut self.core.tmp);
            if let Some(c) = self.contacts.as_mut() {
                c.solve(sys, q, v, hs, true);
            }
            // integrate positions
            self.core.integrate_positions(q, v, hs);
            // relax: rigid velocity solve, no bias, same factorization
            self.core.relax(v)?;
            if let Some(c) = self.contacts.as_mut() {
                c.solve(sys, q, v, hs, false);
            }
        }
        // Q̂ from the last substep's J and multipliers (what each substep would leave)
        self.core.force_from_accumulated(1.0 / hs);
        if let Some(c) = self.contacts.as_mut() {
            c.restitution(v);
            c.add_force(1.0 / hs, &mut self.core.qhat);
            c.store_impulses();
        }
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    /// The joints' linear solves and the contacts' passes (one solve per step), together.
    fn solver_counters(&self) -> SolverCounters {
        let c = self.core.ns.counters;
        self.contacts.as_ref().map_or(c, |contact| c.plus(contact.counters))
    }
}
