//! The workspace every Cartesian stepper shares, over the constraint-space solve
//! ([`crate::normal_solve::NormalSolve`]).

use super::NotApplicable;
use crate::linsolve::{LinearSolver, SolveError, VelocityTarget};
use crate::normal_solve::{CONTACT_NOT_APPLICABLE, NormalSolve};
use crate::scene::Scene;
use crate::sparse::BlockJacobian;

/// The workspace every Cartesian stepper shares (`impulse`, `pgs`, `rattle`, `xpbd`,
/// `xpbd_newton`, `soft_step`, and a stepper written outside the crate): the J W Jᵀ solve (with its own λ,
/// the unknown of the last solve and the next one's warm start), the applied forces Q, the
/// constraint values C, the multipliers accumulated over a (sub)step, an n-vector scratch, the
/// constraint force of the last (sub)step and the count of applied-force evaluations. Allocated
/// once per run. The steppers are written as Box2D's stages over it: [`Self::integrate_velocities`],
/// [`Self::warm_start`], [`Self::solve_velocity`] (rigid or soft), [`Self::relax`],
/// [`Self::integrate_positions`], [`Self::shake`] (positions onto C = 0), [`Self::project`].
///
/// Invariants of the stage API, which a stepper outside the crate relies on as the built-in ones
/// do: J in the solve is the one of the last stage that names a configuration (`update_constraints`,
/// `shake`, `project`); every stage that solves counts its solve in [`Stepper::solver_counters`];
/// the velocity stages leave the multipliers of their solve in [`Self::lambda`]; nothing allocates
/// after [`StepperCore::new`]. The reported constraint force is whatever the stepper last set with
/// [`Self::force_from_solution`] or [`Self::force_from_accumulated`] (plus
/// [`Self::add_force_from_solution`] for a second stage; zero until then): the recorded λ is
/// recovered from it, and `validate` checks its order.
///
/// [`Stepper::solver_counters`]: super::Stepper::solver_counters
pub struct StepperCore<'a> {
    /// The constraint-space solve.
    pub(super) ns: NormalSolve<'a>,
    /// Q(q, v) of the last evaluation (length n).
    pub(super) applied: Vec<f64>,
    /// C(q) (length m).
    pub(super) c: Vec<f64>,
    /// Multipliers accumulated over a (sub)step (length m).
    pub(super) accumulated: Vec<f64>,
    /// Scratch of length n.
    pub(super) tmp: Vec<f64>,
    /// Constraint force Q̂ of the last (sub)step, for the power metric (length n).
    pub(super) qhat: Vec<f64>,
    /// Applied-force evaluations so far.
    pub(super) force_evals: u64,
}

impl<'a> StepperCore<'a> {
    /// Allocates the workspace for `scene` and prepares `solver`.
    pub fn new(scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        Self::build(NormalSolve::new(&scene.system, solver)?, scene)
    }

    /// Like [`StepperCore::new`] but also on scenes with contact (for `pgs`).
    pub fn with_contacts(scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        Self::build(NormalSolve::with_contacts(&scene.system, solver)?, scene)
    }

    /// Like [`StepperCore::new`] with another Jacobian layout (see [`NormalSolve::with_layout`]);
    /// `c` and `accumulated` have its row count.
    pub fn with_layout(
        scene: &'a Scene,
        jac: BlockJacobian,
        solver: Box<dyn LinearSolver>,
    ) -> Result<Self, NotApplicable> {
        if scene.system.contacts().is_some() {
            return Err(NotApplicable(CONTACT_NOT_APPLICABLE.into()));
        }
        Self::build(NormalSolve::with_layout(&scene.system, jac, solver)?, scene)
    }

    /// The workspace over B = [J; Gᵀ] ([`crate::system::System::jacobian_layout_with_stiffness_rows`]),
    /// for the Newton steppers with geometric stiffness (`xpbd_newton`, `midpoint`), with per-row
    /// regularization, and the mask of the layout's stiffness rows.
    pub fn with_stiffness_rows(
        scene: &'a Scene,
        solver: Box<dyn LinearSolver>,
    ) -> Result<(Self, Vec<bool>), NotApplicable> {
        let sys = &scene.system;
        let jac = sys.jacobian_layout_with_stiffness_rows();
        let mut stiffness_row = vec![false; jac.nrows()];
        for (ci, c) in sys.constraints().iter().enumerate() {
            let r0 = jac.constraint_row0(ci) + c.rows();
            stiffness_row[r0..r0 + c.stiffness_rows()].fill(true);
        }
        let m = jac.nrows();
        let mut core = Self::with_layout(scene, jac, solver)?;
        core.ns.reg_rows = vec![0.0; m];
        Ok((core, stiffness_row))
    }

    fn build(ns: NormalSolve<'a>, scene: &'a Scene) -> Result<Self, NotApplicable> {
        let (n, m) = (scene.system.ndof(), ns.jac.nrows());
        Ok(StepperCore {
            ns,
            applied: vec![0.0; n],
            c: vec![0.0; m],
            accumulated: vec![0.0; m],
            tmp: vec![0.0; n],
            qhat: vec![0.0; n],
            force_evals: 0,
        })
    }

    /// Evaluates Q(q, v) into `applied` and counts it.
    pub fn eval_forces(&mut self, q: &[f64], v: &[f64]) {
        self.ns.system.applied_forces(q, v, &mut self.applied);
        self.force_evals += 1;
    }

    /// Stage "integrate velocities" (Box2D's name; symplectic Euler's kick): Q = Q(q, v), then
    /// v ← v + h W Q. Every stepper opens its (sub)step with it; RATTLE's half kicks pass h/2.
    pub fn integrate_velocities(&mut self, q: &[f64], v: &mut [f64], h: f64) {
        self.eval_forces(q, v);
        let w = self.ns.system.inv_mass();
        for ((vi, qi), wi) in v.iter_mut().zip(&self.applied).zip(w) {
            *vi += h * wi * qi;
        }
    }

    /// The right-hand side of a velocity solve, (J W Jᵀ) x = −(J v + b C) with the Baumgarte or
    /// soft bias rate b, or −J v without bias (relax, project), into the solve's `rhs`. J (and C,
    /// for a bias) must be current.
    pub fn velocity_target(&mut self, v: &[f64], bias_rate: Option<f64>) {
        self.ns.jac.mul(v, &mut self.ns.rhs);
        match bias_rate {
            Some(b) => {
                for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                    *r = -(*r + b * c);
                }
            }
            None => self.ns.rhs.iter_mut().for_each(|r| *r = -*r),
        }
    }

    /// The velocity solve (J W Jᵀ) λ = −(J v + b C) (−J v without a bias) from λ's current value,
    /// `same` as [`NormalSolve::solve_same`]: [`Self::velocity_target`] and the solve in one call
    /// ([`NormalSolve::solve_velocity`]), so that a sweeping solver forms the target as it sweeps.
    /// J (and C, for a bias) must be current.
    pub fn solve_target(&mut self, v: &[f64], bias_rate: Option<f64>, same: bool) -> Result<(), SolveError> {
        let target = VelocityTarget { v, bias: bias_rate.map(|b| (b, &self.c[..])) };
        self.ns.solve_velocity(&target, same)
    }

    /// Stage "warm start": v ← v + W Jᵀ λ with the multipliers accumulated so far.
    pub fn warm_start(&mut self, v: &mut [f64]) {
        self.ns.add_w_jt(&self.accumulated, 1.0, v, &mut self.tmp);
    }

    /// Stage "relax" (Box2D): a rigid velocity solve without bias, J v⁺ = 0, reusing the
    /// factorization of the last solve; its impulse is added to the accumulated multipliers.
    pub fn relax(&mut self, v: &mut [f64]) -> Result<(), SolveError> {
        self.ns.lambda.fill(0.0);
        self.solve_target(v, None, true)?;
        for (l, y) in self.accumulated.iter_mut().zip(&self.ns.lambda) {
            *l += y;
        }
        self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        Ok(())
    }

    /// Stage "project": v onto J(q) v = 0 in the metric of M, with a fresh factorization at q
    /// (RATTLE's second constraint); the multipliers stay in the solve's `lambda`.
    pub fn project(&mut self, q: &[f64], v: &mut [f64]) -> Result<(), SolveError> {
        self.ns.update_jacobian(q);
        self.ns.lambda.fill(0.0);
        self.solve_target(v, None, false)?;
        self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        Ok(())
    }

    /// Stage "integrate positions": q ← q ⊕ h v (the exponential map for orientations).
    pub fn integrate_positions(&self, q: &mut [f64], v: &[f64], h: f64) {
        self.ns.system.advance(q, v, h);
    }

    /// out = s · Jᵀ λ with the accumulated multipliers and the J in place (position-based
    /// steppers compute their Q̂ = Jᵀλ / h_s² only when it is sampled).
    pub fn accumulated_force(&self, s: f64, out: &mut [f64]) {
        self.ns.jac.mul_t(&self.accumulated, out);
        out.iter_mut().for_each(|x| *x *= s);
    }

    /// Sets the reported constraint force Q̂ = s · Jᵀ λ from the accumulated multipliers.
    pub fn force_from_accumulated(&mut self, s: f64) {
        self.ns.jac.mul_t(&self.accumulated, &mut self.qhat);
        self.qhat.iter_mut().for_each(|x| *x *= s);
    }

    /// The mechanism the stepper advances.
    pub fn system(&self) -> &'a crate::system::System {
        self.ns.system
    }

    /// Sets the Tikhonov term added to the diagonal of J W Jᵀ in every later solve (0: none).
    pub fn set_regularization(&mut self, reg: f64) {
        self.ns.reg = reg;
    }

    /// C and J at `q` (C into [`Self::constraint_values`]), for a velocity solve with a bias.
    pub fn update_constraints(&mut self, q: &[f64]) {
        self.ns.update_constraints(q, &mut self.c);
    }

    /// C(q) of the last [`Self::update_constraints`] or [`Self::shake`] (length m).
    pub fn constraint_values(&self) -> &[f64] {
        &self.c
    }

    /// The multipliers of the last solve (length m): an impulse \[N·s\] for the velocity stages.
    pub fn lambda(&self) -> &[f64] {
        &self.ns.lambda
    }

    /// The multipliers accumulated over the (sub)step (length m), the warm start of the next.
    pub fn accumulated(&self) -> &[f64] {
        &self.accumulated
    }

    /// Stage "solve": the velocity constraint (J W Jᵀ) λ = −(J v + b C) with the bias rate b
    /// (Baumgarte β/h or a soft bias; None for J v⁺ = 0), from the previous λ when `warm_start`,
    /// else from zero; then v ← v + W Jᵀ λ. J and C must be current ([`Self::update_constraints`]).
    /// The λ is an impulse; the stepper adds it to the accumulated multipliers if it wants to.
    pub fn solve_velocity(
        &mut self,
        v: &mut [f64],
        bias_rate: Option<f64>,
        warm_start: bool,
    ) -> Result<(), SolveError> {
        if !warm_start {
            self.ns.lambda.fill(0.0);
        }
        self.solve_target(v, bias_rate, false)?;
        self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        Ok(())
    }

    /// Stage "shake" (SHAKE's position solve; Ryckaert, Ciccotti & Berendsen 1977; Hairer, Lubich &
    /// Wanner, GNI §VII.1.4): the impulse Λ along J(q₀) for which q = q₀ ⊕ h (v + W J(q₀)ᵀ Λ) lies
    /// on C(q) = 0, by simplified Newton with one factorization of J(q₀) W J(q₀)ᵀ,
    /// (J₀ W J₀ᵀ) δ = −C(q) / h, Λ += δ, until ‖C‖∞ ≤ `tol` \[units of C\]. On entry `q` is q₀ and
    /// `v` the unconstrained velocity; on return `q` is on the manifold, `v` = v + W J₀ᵀ Λ, Λ is
    /// in [`Self::accumulated`] and C(q) in [`Self::constraint_values`]; returns the iterations.
    /// More than `max_iter` iterations (or a non-finite C) is [`SolveError::NotConverged`].
    /// `q0` is scratch of length nq for q₀.
    pub fn shake(
        &mut self,
        q: &mut [f64],
        v: &mut [f64],
        h: f64,
        (tol, max_iter): (f64, usize),
        q0: &mut [f64],
    ) -> Result<usize, SolveError> {
        let sys = self.ns.system;
        q0.copy_from_slice(q);
        self.ns.update_jacobian(q0);
        self.accumulated.fill(0.0);
        sys.advance(q, v, h);
        for it in 0.. {
            sys.eval_constraints(q, &mut self.c);
            let res = crate::metrics::inf_norm(&self.c);
            if res <= tol {
                return Ok(it);
            }
            if it >= max_iter || !res.is_finite() {
                return Err(SolveError::NotConverged { solver: "shake", iterations: it, residual: res, tol });
            }
            for (r, c) in self.ns.rhs.iter_mut().zip(&self.c) {
                *r = -c / h;
            }
            self.ns.lambda.fill(0.0);
            if it == 0 {
                self.ns.solve(true)?
            } else {
                self.ns.solve_same(true)?
            }
            for (a, d) in self.accumulated.iter_mut().zip(&self.ns.lambda) {
                *a += d;
            }
            self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
            q.copy_from_slice(q0);
            sys.advance(q, v, h);
        }
        unreachable!("the loop returns")
    }

    /// Sets the reported constraint force Q̂ = s · Jᵀ λ from the last solve's solution.
    pub fn force_from_solution(&mut self, s: f64) {
        self.ns.jac.mul_t(&self.ns.lambda, &mut self.qhat);
        self.qhat.iter_mut().for_each(|x| *x *= s);
    }

    /// Adds s · Jᵀ λ of the last solve to the reported constraint force: for a step that applies
    /// its constraint impulse in two stages (a position solve, then a velocity projection at the
    /// new J), whose force is the sum of both.
    pub fn add_force_from_solution(&mut self, s: f64) {
        self.ns.jac.mul_t(&self.ns.lambda, &mut self.tmp);
        for (f, x) in self.qhat.iter_mut().zip(&self.tmp) {
            *f += s * x;
        }
    }
}

/// The multipliers at the end of each step, estimated to second order from a symmetric method's
/// own multipliers (force units, one per constraint row of the system; see
/// [`super::Stepper::end_multipliers`]). Allocated once per run.
pub(super) struct EndMultipliers {
    /// λ(tₙ₊₁) of the last step.
    end: Vec<f64>,
    /// The previous step's value the next estimate combines with (see the two update rules).
    prev: Vec<f64>,
    /// The value before that (midpoint steps only).
    prev2: Vec<f64>,
    /// Lengths of the previous two steps \[s\]; 0 before there was one.
    prev_h: [f64; 2],
}

impl EndMultipliers {
    /// Room for `m` rows, nothing estimated yet.
    pub(super) fn new(m: usize) -> Self {
        EndMultipliers { end: vec![0.0; m], prev: vec![0.0; m], prev2: vec![0.0; m], prev_h: [0.0; 2] }
    }

    /// The estimate of the last step; None before the first.
    pub(super) fn get(&self) -> Option<&[f64]> {
        (self.prev_h[0] > 0.0).then_some(&self.end[..])
    }

    /// After a midpoint step of length h whose multipliers `mid` belong to its midpoint,
    /// λ_{n+½} = λ(tₙ + h/2) + O(h²). The midpoint rule's velocity recurrence
    /// vₙ₊₁ = 2(q ⊖ qₙ)/h − vₙ carries a mode that alternates in sign from step to step (rounding
    /// there is not damped), and λ, a second difference of q, sees it amplified by 1/h. So
    /// λ(tₙ₊₁) = w₁ λ_{n+½} + w₂ λ_{n−½} + w₃ λ_{n−3/2} with weights exact for a linear λ(t)
    /// (second order) and with w₁ − w₂ + w₃ = 0 (the alternating mode cancels): w₂ = ½, and
    /// w₃ = −(a₁ + a₂)/(2(a₃ − a₁)), w₁ = ½ − w₃ with aₖ the midpoints' times relative to tₙ₊₁;
    /// (1, ½, −½) for equal steps. The first step keeps λ_{½} (first order), the second
    /// extrapolates linearly from two.
    pub(super) fn after_midpoint_step(&mut self, h: f64, mid: impl Iterator<Item = f64>) {
        let [h1, h2] = self.prev_h;
        let w = if h2 > 0.0 {
            let (a1, a2, a3) = (-0.5 * h, -h - 0.5 * h1, -h - h1 - 0.5 * h2);
            let w3 = -(a1 + a2) / (2.0 * (a3 - a1));
            [0.5 - w3, 0.5, w3]
        } else if h1 > 0.0 {
            let e = h / (h1 + h);
            [1.0 + e, -e, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        for (((e, p), p2), l) in self.end.iter_mut().zip(self.prev.iter_mut()).zip(self.prev2.iter_mut()).zip(mid) {
            *e = w[0] * l + w[1] * *p + w[2] * *p2;
            *p2 = *p;
            *p = l;
        }
        self.prev_h = [h, h1];
    }

    /// After a RATTLE step of length h with position multiplier Λₙ (at Jₙ) and velocity
    /// multiplier μₙ₊₁ (at Jₙ₊₁), both forces: each is first order, Λₙ = λ(tₙ) + c h + O(h²) and
    /// μₙ = λ(tₙ) − c h + O(h²) with one smooth c (the symmetric step's error expansion, GNI
    /// §VII.1.4 — so their mean at tₙ is second order), hence
    /// λ(tₙ₊₁) ≈ μₙ₊₁ + (Λₙ − μₙ)/2 + O(h²) with μₙ from the step before (the first step keeps
    /// μ₁, first order).
    pub(super) fn after_rattle_step(&mut self, h: f64, position: &[f64], velocity: impl Iterator<Item = f64>) {
        let first = self.prev_h[0] == 0.0;
        for (((e, p), lam), mu) in self.end.iter_mut().zip(self.prev.iter_mut()).zip(position).zip(velocity) {
            *e = if first { mu } else { mu + 0.5 * (lam - *p) };
            *p = mu;
        }
        self.prev_h = [h, self.prev_h[0]];
    }
}
