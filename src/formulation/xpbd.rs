//! `xpbd` — extended position-based dynamics (Macklin, Müller & Chentanez 2016, "XPBD") with
//! substeps (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke & Müller 2019, "Small steps in
//! physics simulation"): compliant constraints at the position level.
//!
//! Per substep of h_s = h / n, with α̃ = α / h_s² (α the compliance; 0 = rigid):
//!   v ← v + h_s W Q;   q_prev ← q;   q ← q + h_s v;   λ ← 0
//!   `iterations` times:  (J W Jᵀ + α̃ I) Δλ = −C(q) − α̃ λ        (Macklin 2016, eq. 12)
//!                        λ ← λ + Δλ;   q ← q + W Jᵀ Δλ             (eq. 17)
//!   v ← (q − q_prev) / h_s
//! (For rigid-3D bodies "+" is the exponential map q ⊕ δ and "−" its logarithm, the rigid-body
//! form of Müller et al. 2020, "Detailed rigid body simulation with extended position based
//! dynamics", with the rotation applied exactly instead of their first-order quaternion update.)
//! DEVIATION: eq. 12 is solved for all constraints at once with the cell's linear solver, J and C
//! evaluated at the iterate. Macklin solves it constraint by constraint, re-evaluating each C
//! after its neighbours moved (nonlinear Gauss-Seidel); `gauss_seidel` with max_iter = 1 is the
//! linearized sweep closest to it. One compliance α applies to every constraint row.
//! The constraint force for the power metric is Q̂ = Jᵀλ / h_s² of the last substep (eq. 9).
//!
//! On a scene with contact, each position iteration also projects the contacts after the joints
//! (rigid normal corrections and static friction), and each substep ends with their dynamic
//! friction and restitution at the velocity level: Müller et al. 2020, §3.5–3.6, in
//! `formulation/xpbd_contact.rs`. Their force joins Q̂ (λ / h_s² and impulses / h_s).
//!
//! Full Newton steps on Macklin's eq. 8 (with the geometric stiffness) are the formulation
//! `xpbd_newton`.

use super::Dynamics;
use super::stepper_core::StepperCore;
use super::xpbd_contact::XpbdContacts;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, SolverCounters, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the XPBD stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct XpbdOptions {
    /// substeps per step
    #[schemars(range(min = 1, max = 100_000))]
    pub substeps: usize,
    /// projection iterations per substep
    #[schemars(range(min = 1, max = 10_000))]
    pub iterations: usize,
    /// compliance alpha of every constraint (0 = rigid)
    #[schemars(range(min = 0), extend("unit" = "units of C per N"))]
    pub compliance: f64,
}

impl Default for XpbdOptions {
    fn default() -> Self {
        XpbdOptions { substeps: 10, iterations: 1, compliance: 0.0 }
    }
}

impl Params for XpbdOptions {}

impl FormulationParams for XpbdOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Xpbd::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `xpbd`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<XpbdOptions>(
    "xpbd",
    "XPBD with substeps: compliant position projection (J W J^T + alpha/h^2) dlambda = -C - alpha/h^2 lambda; contacts as Mueller et al. 2020 (rigid position corrections with static friction, dynamic friction and restitution on velocities)",
    FormulationKind::Stepper,
)
.with_order(1)
.with_contact_model(
    "position-level contact (Mueller et al. 2020): rigid corrections one contact at a time, each holding by static friction only up to mu times its own normal multiplier, and friction bounded by the position multipliers; first order in the substep, not the rigid problem of the step",
);

/// The XPBD stepper on one scene, with its workspaces.
pub struct Xpbd<'a> {
    core: StepperCore<'a>,
    opts: XpbdOptions,
    q_prev: Vec<f64>,
    /// Substep length of the last step \[s\] (for Q̂).
    last_hs: f64,
    /// The contact corrections, on a scene with contact.
    contacts: Option<XpbdContacts<'a>>,
}

impl<'a> Xpbd<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: XpbdOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let q_prev = vec![0.0; scene.system.nq()];
        let contacts = scene.system.contacts().map(|set| XpbdContacts::new(set, scene.system.ndof()));
        Ok(Xpbd { core: StepperCore::with_contacts(scene, solver)?, opts, q_prev, last_hs: 1.0, contacts })
    }
}

impl Stepper for Xpbd<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        self.last_hs = hs;
        let alpha_t = self.opts.compliance / (hs * hs);
        self.core.ns.reg = alpha_t;
        let sys = self.core.ns.system;
        for _ in 0..self.opts.substeps {
            self.q_prev.copy_from_slice(q);
            self.core.integrate_velocities(q, v, hs);
            self.core.integrate_positions(q, v, hs);
            if let Some(c) = self.contacts.as_mut() {
                c.prepare(sys, q, v);
            }
            self.core.accumulated.fill(0.0);
            for _ in 0..self.opts.iterations {
                // (J W Jᵀ + α̃ I) Δλ = −C − α̃ λ   (eq. 12)
                self.core.ns.update_constraints(q, &mut self.core.c);
                for ((r, c), l) in self.core.ns.rhs.iter_mut().zip(&self.core.c).zip(&self.core.accumulated) {
                    *r = -c - alpha_t * l;
                }
                self.core.ns.lambda.fill(0.0);
                self.core.ns.solve(true)?;
                for (l, d) in self.core.accumulated.iter_mut().zip(&self.core.ns.lambda) {
                    *l += d;
                }
                // q ← q ⊕ W Jᵀ Δλ   (eq. 17)
                self.core.ns.displace(&self.core.ns.lambda, 1.0, q, &mut self.core.tmp);
                if let Some(c) = self.contacts.as_mut() {
                    c.project(sys, q, &self.q_prev, hs);
                }
            }
            // v = (q − q_prev) / h_s (the logarithm of the relative rotation for orientations)
            sys.difference(&self.q_prev, q, hs, v);
            if let Some(c) = self.contacts.as_mut() {
                c.velocities(sys, q, v, hs);
            }
        }
        if let Some(c) = self.contacts.as_mut() {
            c.finish_step();
        }
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    /// Q̂ = Jᵀλ / h_s² of the last substep (eq. 9), computed when asked (at samples) rather than
    /// at every substep: J of the last iteration is still in place.
    fn constraint_force(&mut self, out: &mut [f64]) {
        self.core.accumulated_force(1.0 / (self.last_hs * self.last_hs), out);
        if let Some(c) = &self.contacts {
            c.add_force(out);
        }
    }

    /// The joints' linear solves and the contacts' passes (one solve per step), together.
    fn solver_counters(&self) -> SolverCounters {
        let c = self.core.ns.counters;
        self.contacts.as_ref().map_or(c, |contact| c.plus(contact.counters))
    }
}
