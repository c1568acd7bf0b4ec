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

use super::normal::StepperCore;
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::scene::Scene;

/// Options of the XPBD stepper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XpbdOptions {
    /// Substeps per step.
    pub substeps: usize,
    /// Constraint-projection iterations per substep.
    pub iterations: usize,
    /// Compliance α (inverse stiffness) \[units of C per N\]; 0 is rigid.
    pub compliance: f64,
}

/// The XPBD stepper on one scene, with its workspaces.
pub struct Xpbd<'a> {
    core: StepperCore<'a>,
    opts: XpbdOptions,
    q_prev: Vec<f64>,
}

impl<'a> Xpbd<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: XpbdOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let nq = scene.system.nq();
        Ok(Xpbd { core: StepperCore::new(scene, solver)?, opts, q_prev: vec![0.0; nq] })
    }
}

impl Stepper for Xpbd<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        let alpha_t = self.opts.compliance / (hs * hs);
        self.core.ns.reg = alpha_t;
        for _ in 0..self.opts.substeps {
            let sys = self.core.ns.system;
            let w = sys.inv_mass();
            self.core.eval_forces(q, v);
            self.q_prev.copy_from_slice(q);
            for i in 0..v.len() {
                v[i] += hs * w[i] * self.core.applied[i];
            }
            sys.advance(q, v, hs);
            self.core.lam.fill(0.0);
            for _ in 0..self.opts.iterations {
                // (J W Jᵀ + α̃ I) Δλ = −C − α̃ λ   (eq. 12)
                self.core.ns.update_constraints(q, &mut self.core.c);
                for ((r, c), l) in self.core.ns.rhs.iter_mut().zip(&self.core.c).zip(&self.core.lam) {
                    *r = -c - alpha_t * l;
                }
                self.core.ns.lambda.fill(0.0);
                self.core.ns.solve(true)?;
                for (l, d) in self.core.lam.iter_mut().zip(&self.core.ns.lambda) {
                    *l += d;
                }
                // q ← q ⊕ W Jᵀ Δλ   (eq. 17)
                self.core.ns.displace(&self.core.ns.lambda, 1.0, q, &mut self.core.tmp);
            }
            // v = (q − q_prev) / h_s (the logarithm of the relative rotation for orientations)
            sys.difference(&self.q_prev, q, hs, v);
            self.core.force_from_accumulated(1.0 / (hs * hs));
        }
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }
}
