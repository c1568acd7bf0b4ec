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

use super::normal::NormalSolve;
use super::{NotApplicable, SolverCounters, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::scene::Scene;

/// Options of the soft step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoftStepOptions {
    /// Substeps per step (Box2D default 4).
    pub substeps: usize,
    /// Constraint frequency f \[Hz\] (Box2D jointHertz default 60).
    pub hertz: f64,
    /// Damping ratio ζ (Box2D jointDampingRatio default 2).
    pub damping_ratio: f64,
}

/// The soft-step stepper on one scene, with its workspaces.
pub struct SoftStep<'a> {
    ns: NormalSolve<'a>,
    opts: SoftStepOptions,
    applied: Vec<f64>,
    c: Vec<f64>,
    lam: Vec<f64>,
    tmp: Vec<f64>,
    qhat: Vec<f64>,
    force_evals: u64,
}

impl<'a> SoftStep<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: SoftStepOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (n, m) = (scene.system.ndof(), scene.system.nrows());
        Ok(SoftStep {
            ns: NormalSolve::new(&scene.system, solver)?,
            opts,
            applied: vec![0.0; n],
            c: vec![0.0; m],
            lam: vec![0.0; m],
            tmp: vec![0.0; n],
            qhat: vec![0.0; n],
            force_evals: 0,
        })
    }
}

impl Stepper for SoftStep<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        // b2MakeSoft(hertz, zeta, h_s)
        let omega = 2.0 * std::f64::consts::PI * self.opts.hertz;
        let a1 = 2.0 * self.opts.damping_ratio + hs * omega;
        let a2 = hs * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        let (bias_rate, mass_scale, impulse_scale) = (omega / a1, a2 * a3, a3);
        for _ in 0..self.opts.substeps {
            let sys = self.ns.system;
            let w = sys.inv_mass();
            // integrate velocities
            sys.applied_forces(q, v, &mut self.applied);
            self.force_evals += 1;
            for ((vi, qi), wi) in v.iter_mut().zip(&self.applied).zip(w) {
                *vi += hs * wi * qi;
            }
            // warm start with the previous substep's impulses (J at the new configuration)
            self.ns.update_jacobian(q);
            self.ns.add_w_jt(&self.lam, 1.0, v, &mut self.tmp);
            // soft solve
            sys.eval_constraints(q, &mut self.c);
            self.ns.jac.mul(v, &mut self.ns.rhs);
            for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                *r = -(*r + bias_rate * c);
            }
            self.ns.lambda.fill(0.0);
            self.ns.solve(true)?;
            for (x, l) in self.ns.lambda.iter_mut().zip(self.lam.iter_mut()) {
                *x = mass_scale * *x - impulse_scale * *l; // Δλ
                *l += *x;
            }
            self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
            // integrate positions
            for (qi, vi) in q.iter_mut().zip(v.iter()) {
                *qi += hs * vi;
            }
            // relax: rigid velocity solve, no bias, same factorization
            self.ns.jac.mul(v, &mut self.ns.rhs);
            for r in self.ns.rhs.iter_mut() {
                *r = -*r;
            }
            self.ns.lambda.fill(0.0);
            self.ns.solve_same(true)?;
            for (l, y) in self.lam.iter_mut().zip(&self.ns.lambda) {
                *l += y;
            }
            self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
            self.ns.jac.mul_t(&self.lam, &mut self.qhat);
            for x in self.qhat.iter_mut() {
                *x /= hs;
            }
        }
        Ok(())
    }

    fn constraint_force(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.qhat);
    }

    fn solver_counters(&self) -> SolverCounters {
        self.ns.counters
    }

    fn force_evaluations(&self) -> u64 {
        self.force_evals
    }
}
