//! `impulse` — the velocity-level formulation (seeds 001 and 004; Catto 2005), a time stepper.
//!
//! One step of length h, split into n substeps of h_s = h / n:
//!   v* = v + h_s W Q                                   (integrate applied forces)
//!   J W Jᵀ λ = −(J v* + (β / h_s) C)                   (velocity constraint with Baumgarte bias)
//!   v⁺ = v* + W Jᵀ λ,   q⁺ = q + h_s v⁺                (symplectic-Euler-like update)
//! λ is an impulse \[N·s\]; Q̂ = Jᵀλ / h_s is the equivalent constraint force. For a constraint that
//! is linear in q, C⁺ = C + h_s J v⁺ = (1 − β) C exactly. With `gauss_seidel` as the solver the
//! solve is the sequential-impulse sweep; λ of the previous step is the warm start when enabled.

use super::normal::NormalSolve;
use super::{NotApplicable, SolverCounters, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::scene::Scene;

/// Options of the impulse stepper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpulseOptions {
    /// Baumgarte factor β \[1\] in \[0, 1\]: fraction of the position error removed per substep.
    pub beta: f64,
    /// Start each solve from the previous step's λ.
    pub warm_start: bool,
    /// Substeps per step.
    pub substeps: usize,
}

/// The impulse-based stepper on one scene, with its workspaces.
pub struct Impulse<'a> {
    ns: NormalSolve<'a>,
    opts: ImpulseOptions,
    applied: Vec<f64>,
    c: Vec<f64>,
    dv: Vec<f64>,
    qhat: Vec<f64>,
    force_evals: u64,
}

impl<'a> Impulse<'a> {
    /// Sets up the stepper for `scene` (its initial state is used by the runner).
    pub fn new(scene: &'a Scene, opts: ImpulseOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (n, m) = (scene.system.ndof(), scene.system.nrows());
        Ok(Impulse {
            ns: NormalSolve::new(&scene.system, solver)?,
            opts,
            applied: vec![0.0; n],
            c: vec![0.0; m],
            dv: vec![0.0; n],
            qhat: vec![0.0; n],
            force_evals: 0,
        })
    }
}

impl Stepper for Impulse<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        for _ in 0..self.opts.substeps {
            let sys = self.ns.system;
            let w = sys.inv_mass();
            // v* = v + h_s W Q
            sys.applied_forces(q, v, &mut self.applied);
            self.force_evals += 1;
            for ((vi, qi), wi) in v.iter_mut().zip(&self.applied).zip(w) {
                *vi += hs * wi * qi;
            }
            // J W Jᵀ λ = −(J v* + (β/h_s) C)
            self.ns.update_jacobian(q);
            sys.eval_constraints(q, &mut self.c);
            self.ns.jac.mul(v, &mut self.ns.rhs);
            let bias = self.opts.beta / hs;
            for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                *r = -(*r + bias * c);
            }
            if !self.opts.warm_start {
                self.ns.lambda.fill(0.0);
            }
            self.ns.solve(true)?;
            // v⁺ = v* + W Jᵀ λ;  q⁺ = q + h_s v⁺
            self.ns.jac.mul_t(&self.ns.lambda, &mut self.dv);
            for i in 0..v.len() {
                self.qhat[i] = self.dv[i] / hs;
                v[i] += w[i] * self.dv[i];
                q[i] += hs * v[i];
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
