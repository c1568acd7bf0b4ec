//! `rattle` — SHAKE/RATTLE for holonomic constraints (Ryckaert, Ciccotti & Berendsen 1977;
//! Andersen 1983; Hairer, Lubich & Wanner, Geometric Numerical Integration, §VII.1.4, eq. 1.26):
//! symmetric, symplectic (for conservative forces), order 2, exactly on the constraint manifold.
//!
//! One step of length h, in velocity form (W = M⁻¹, Jₙ = J(qₙ)):
//!   v½ = vₙ + h/2 W (Q(qₙ) + Jₙᵀ Λ),   qₙ₊₁ = qₙ + h v½,   C(qₙ₊₁) = 0      (solve for Λ)
//!   vₙ₊₁ = v½ + h/2 W (Q(qₙ₊₁) + Jₙ₊₁ᵀ μ),                 Jₙ₊₁ vₙ₊₁ = 0    (solve for μ)
//! Λ is found by simplified Newton, (Jₙ W Jₙᵀ) δ = −(2/h²) C(qₙ₊₁(Λ)), Λ += δ, until ‖C‖∞ ≤ tol,
//! reusing one factorization of Jₙ W Jₙᵀ for every iteration (`solve_same`). The velocity
//! projection at qₙ₊₁ factors Jₙ₊₁ W Jₙ₊₁ᵀ, which is exactly the next step's Jₙ W Jₙᵀ: one
//! factorization per step. Newton failing to reach tol within max_iter ends the run as a failure.
//! Every Newton iterate is rebuilt from qₙ, qₙ₊₁ = qₙ ⊕ h v½(Λ), so that with rigid-3D bodies
//! (where ⊕ is the exponential map and does not compose additively) the converged qₙ₊₁ and v½
//! still satisfy the first line exactly; for bodies with q̇ = v this equals q += (h²/2) W Jₙᵀ δ.
//!
//! With `krylov` = k > 0 the position equation is solved by full Newton instead (Hairer, Lubich &
//! Wanner §VII.1.4 remark on the nonlinear system; Kelley 2003, "Solving Nonlinear Equations with
//! Newton's Method", ch. 3 for the Newton–GMRES and the line search): F(Λ) = (2/h²) C(qₙ₊₁(Λ))
//! has the exact Jacobian ∂F/∂Λ = J(qₙ₊₁) W Jₙᵀ (no geometric stiffness: the force direction Jₙ
//! does not depend on the unknown), non-symmetric; each iteration solves
//! (J(qₙ₊₁) W Jₙᵀ + reg I) δ = −F by at most k GMRES iterations right-preconditioned by the
//! factorization of Jₙ W Jₙᵀ + reg I the simplified Newton uses (`krylov.rs`), then a backtracking
//! line search halves δ until ‖C‖₂² falls by the Armijo fraction 1e-4 of its predicted decrease;
//! Λ starts from the previous step's. The solution, and so the method, is the same: only the
//! convergence differs (quadratic where the simplified iteration is linear with a rate set by how
//! far J turns in a step). DEVIATION (rigid-3D bodies): the matrix omits the exponential map's
//! derivative, so there the iteration is an inexact Newton.
//! Applied forces that depend on v (dampers, the gyroscopic term of an asymmetric body) are taken
//! explicitly at vₙ in the first half kick and implicitly at vₙ₊₁ in the second, by a fixed-point
//! iteration (`implicit_half_kick`): the velocity update is the trapezoidal rule, and the step stays
//! symmetric and of order 2 (with dampers not symplectic, as no dissipative method is). With rigid-3D bodies
//! the update is the exponential-map (Lie group) variant of RATTLE, which is symmetric and of
//! order 2 but not the symplectic RATTLE of the rotation-matrix formulation (GNI §VII.5).

use super::Dynamics;
use super::krylov::{Krylov, gmres};
use super::stepper_core::{EndMultipliers, StepperCore};
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::metrics::inf_norm;
use crate::params::Params;
use crate::scene::Scene;
use crate::sparse::BlockJacobian;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the RATTLE stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RattleOptions {
    /// Newton stops when |C|inf <= tol
    #[schemars(extend("unit" = "units of C", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// Newton iterations per step before the run fails
    #[schemars(range(min = 1, max = 100_000))]
    pub max_iter: usize,
    /// Tikhonov term added to the diagonal of J W Jᵀ in the Newton and projection solves (0: none); it makes redundant rows solvable; the position Newton still iterates to |C| <= tol, the velocity projection is left with J v = reg · μ
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "units of J W Jᵀ"))]
    pub reg: f64,
    /// 0: simplified Newton on the position equation (the start-of-step matrix J W Jᵀ); k > 0: full Newton, the exact matrix J(q_end) W Jᵀ solved by at most k GMRES iterations preconditioned by the solver on J W Jᵀ, with a line search and the multipliers warm-started
    #[schemars(range(min = 0, max = 200))]
    pub krylov: usize,
}

impl Default for RattleOptions {
    fn default() -> Self {
        RattleOptions { tol: 1e-10, max_iter: 50, reg: 0.0, krylov: 0 }
    }
}

impl Params for RattleOptions {}

impl FormulationParams for RattleOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Rattle::new(scene, *self, solver)?)))
    }

    /// With full Newton: GMRES's basis and Hessenberg matrix, J at the end point (at most 12
    /// values per row, a joint between two bodies in space), the warm multipliers, the iterate
    /// before the line search and a state-sized scratch vector.
    fn workspace_bytes(&self, rows: usize, state: usize) -> u64 {
        if self.krylov == 0 {
            return 0;
        }
        let (m, st) = (rows as u64, state as u64);
        8 * (Krylov::values(self.krylov as u64, m) + 12 * m + 2 * m + 2 * st)
    }
}

/// The registry entry of `rattle`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<RattleOptions>(
    "rattle",
    "SHAKE/RATTLE: symplectic, order 2, on C = 0 and J v = 0 to tol (Newton with one factorization per step)",
    FormulationKind::Stepper,
)
.with_order(2)
.conservative();

/// The RATTLE stepper on one scene, with its workspaces.
pub struct Rattle<'a> {
    core: StepperCore<'a>,
    opts: RattleOptions,
    factored_at: Vec<f64>,
    has_factor: bool,
    q_base: Vec<f64>,
    v_half: Vec<f64>,
    /// The previous iterate of the implicit half kick.
    v_prev: Vec<f64>,
    /// Whether Q depends on v (then the second half kick is implicit).
    velocity_dependent: bool,
    /// Full Newton's workspace (`krylov` > 0).
    full: Option<FullNewton>,
    /// λ at each step's end to second order, from Λₙ and μₙ₊₁.
    ends: EndMultipliers,
}

/// The workspace of full Newton on the position equation.
struct FullNewton {
    krylov: Krylov,
    /// J(qₙ₊₁) at the current iterate.
    jac_end: BlockJacobian,
    /// Λ of the previous step (the warm start).
    lambda_warm: Vec<f64>,
    /// Λ before the line search.
    lambda_old: Vec<f64>,
    /// v½ without constraint force (v½*).
    v_free: Vec<f64>,
    /// Scratch of state size, for the products with the exact matrix.
    tmp_n: Vec<f64>,
}

impl<'a> Rattle<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: RattleOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let (nq, n) = (scene.system.nq(), scene.system.ndof());
        let mut core = StepperCore::new(scene, solver)?;
        core.ns.reg = opts.reg;
        let m = scene.system.nrows();
        let full = (opts.krylov > 0).then(|| FullNewton {
            krylov: Krylov::new(opts.krylov, m),
            jac_end: scene.system.jacobian_layout(),
            lambda_warm: vec![0.0; m],
            lambda_old: vec![0.0; m],
            v_free: vec![0.0; n],
            tmp_n: vec![0.0; n],
        });
        Ok(Rattle {
            core,
            opts,
            factored_at: vec![f64::NAN; nq],
            has_factor: false,
            q_base: vec![0.0; nq],
            v_half: vec![0.0; n],
            v_prev: vec![0.0; n],
            velocity_dependent: scene.system.forces_depend_on_velocity(),
            full,
            ends: EndMultipliers::new(scene.system.nrows()),
        })
    }
}

impl Stepper for Rattle<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let sys = self.core.ns.system;
        // Factorization of Jₙ W Jₙᵀ: left by the previous velocity projection if q has not moved.
        let mut factored = self.has_factor && self.factored_at.as_slice() == &*q;
        if !factored {
            self.core.ns.update_jacobian(q);
        }
        // v½ (without constraint force) and the unconstrained position q + h v½.
        self.core.integrate_velocities(q, v, 0.5 * h);
        self.q_base.copy_from_slice(q);
        if self.full.is_some() {
            self.full_newton(h, factored, q, v)?;
            return self.finish(h, q, v);
        }
        self.core.integrate_positions(q, v, h);
        self.core.accumulated.fill(0.0);
        let mut it = 0;
        loop {
            sys.eval_constraints(q, &mut self.core.c);
            if self.newton_rhs(h, it)? {
                break;
            }
            // (Jₙ W Jₙᵀ) δ = −(2/h²) C;  Λ += δ;  q = qₙ ⊕ h (v½* + (h/2) W Jₙᵀ Λ)
            if factored {
                self.core.ns.solve_same(true)?
            } else {
                self.core.ns.solve(true)?
            }
            factored = true;
            for (l, d) in self.core.accumulated.iter_mut().zip(&self.core.ns.lambda) {
                *l += d;
            }
            self.v_half.copy_from_slice(v);
            self.core.ns.add_w_jt(&self.core.accumulated, 0.5 * h, &mut self.v_half, &mut self.core.tmp);
            q.copy_from_slice(&self.q_base);
            sys.advance(q, &self.v_half, h);
            it += 1;
        }
        self.finish(h, q, v)
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    /// λ(tₙ₊₁) ≈ μₙ₊₁ + (Λₙ − μₙ)/2, second order (see `EndMultipliers::after_rattle_step`).
    fn end_multipliers(&self) -> Option<&[f64]> {
        self.ends.get()
    }
}

/// The implicit half kick's relative change at which it has converged (about 45 ε).
const KICK_RTOL: f64 = 1e-14;

/// Below this relative change, a change that no longer falls is rounding: the kick has converged.
const KICK_FLOOR: f64 = 1e-10;

/// Line-search halvings of a full Newton step before it is taken as it is.
const MAX_HALVINGS: usize = 10;

/// The Armijo fraction: a step α δ is accepted once ‖C‖₂² ≤ (1 − 2 · this · α) of its value before.
const ARMIJO: f64 = 1e-4;

impl Rattle<'_> {
    /// With C(qₙ₊₁) in the core's `c` after `it` Newton iterations: true if ‖C‖∞ ≤ tol; otherwise
    /// the right-hand side −(2/h²) C and a zero start for the solve, or the failure once `max_iter`
    /// iterations are spent (or C is not finite).
    fn newton_rhs(&mut self, h: f64, it: usize) -> Result<bool, SolveError> {
        let res = inf_norm(&self.core.c);
        if res <= self.opts.tol {
            return Ok(true);
        }
        if it >= self.opts.max_iter || !res.is_finite() {
            return Err(SolveError::NotConverged {
                solver: "rattle newton",
                iterations: it,
                residual: res,
                tol: self.opts.tol,
            });
        }
        for (r, c) in self.core.ns.rhs.iter_mut().zip(&self.core.c) {
            *r = -2.0 / (h * h) * c;
        }
        self.core.ns.lambda.fill(0.0);
        Ok(false)
    }

    /// qₙ₊₁ = q_base ⊕ h v½(Λ), v½(Λ) = v½* + (h/2) W Jₙᵀ Λ with Λ the core's `accumulated`, and
    /// C(qₙ₊₁) into the core's `c`; returns ‖C‖₂².
    fn position_at(&mut self, h: f64, v_free: &[f64], q: &mut [f64]) -> f64 {
        let sys = self.core.ns.system;
        self.v_half.copy_from_slice(v_free);
        self.core.ns.add_w_jt(&self.core.accumulated, 0.5 * h, &mut self.v_half, &mut self.core.tmp);
        q.copy_from_slice(&self.q_base);
        sys.advance(q, &self.v_half, h);
        sys.eval_constraints(q, &mut self.core.c);
        self.core.c.iter().map(|c| c * c).sum()
    }

    /// Full Newton on the position equation (see the module docs), from the previous step's Λ;
    /// leaves Λ in the core's `accumulated` and qₙ₊₁ in `q`. `v` is v½*.
    fn full_newton(&mut self, h: f64, mut factored: bool, q: &mut [f64], v: &[f64]) -> Result<(), SolveError> {
        let mut full = self.full.take().expect("full Newton's workspace");
        let r = self.full_newton_in(&mut full, h, &mut factored, q, v);
        self.full = Some(full);
        r
    }

    fn full_newton_in(
        &mut self,
        full: &mut FullNewton,
        h: f64,
        factored: &mut bool,
        q: &mut [f64],
        v: &[f64],
    ) -> Result<(), SolveError> {
        let sys = self.core.ns.system;
        full.v_free.copy_from_slice(v);
        self.core.accumulated.copy_from_slice(&full.lambda_warm);
        let mut merit = self.position_at(h, &full.v_free, q);
        let mut it = 0;
        loop {
            if self.newton_rhs(h, it)? {
                break;
            }
            // (J(qₙ₊₁) W Jₙᵀ + reg I) δ = −(2/h²) C by GMRES from δ₀ = P⁻¹ b, P = Jₙ W Jₙᵀ + reg I
            self.core.ns.solve_preconditioner(*factored)?;
            *factored = true;
            sys.fill_jacobian(q, &mut full.jac_end);
            let (jac_end, tmp_n, reg) = (&full.jac_end, &mut full.tmp_n, self.opts.reg);
            gmres(&mut self.core.ns, &mut full.krylov, self.opts.krylov, &mut |ns, x, y| {
                ns.jac.mul_t(x, tmp_n);
                for (t, wi) in tmp_n.iter_mut().zip(ns.system.inv_mass()) {
                    *t *= wi;
                }
                jac_end.mul(tmp_n, y);
                if reg != 0.0 {
                    for (yi, xi) in y.iter_mut().zip(x) {
                        *yi += reg * xi;
                    }
                }
            })?;
            // backtracking: Λ = Λ_old + α δ, α = 1, ½, ¼, …
            full.lambda_old.copy_from_slice(&self.core.accumulated);
            let mut alpha = 1.0;
            for halving in 0..=MAX_HALVINGS {
                for ((l, l0), d) in self.core.accumulated.iter_mut().zip(&full.lambda_old).zip(&self.core.ns.lambda) {
                    *l = l0 + alpha * d;
                }
                let trial = self.position_at(h, &full.v_free, q);
                if trial <= (1.0 - 2.0 * ARMIJO * alpha) * merit || halving == MAX_HALVINGS {
                    merit = trial;
                    break;
                }
                alpha *= 0.5;
            }
            it += 1;
        }
        full.lambda_warm.copy_from_slice(&self.core.accumulated);
        Ok(())
    }

    /// The second half kick with a velocity-dependent force, implicit in vₙ₊₁:
    /// vₙ₊₁ = v½ + (h/2) W (Q(qₙ₊₁, vₙ₊₁) + Jₙ₊₁ᵀ μ), Jₙ₊₁ vₙ₊₁ = 0, by the fixed point
    /// vᵏ⁺¹ = P(v½ + (h/2) W Q(qₙ₊₁, vᵏ)) from v⁰ = v½ (P: the projection onto Jₙ₊₁ v = 0, one
    /// factorization reused). The first half kick is explicit in vₙ, so the velocity update is
    /// the trapezoidal rule and the step is the composition Φ*_{h/2} ∘ S_h ∘ Φ_{h/2} of an explicit
    /// Euler kick, the constrained drift and the kick's adjoint, which is symmetric, hence of even
    /// order, 2 (Hairer, Lubich & Wanner, GNI §II.3–II.4, adjoint and composition methods). The
    /// explicit second kick that forces without velocity dependence use is not symmetric when Q
    /// depends on v and makes the method first order (observed 1.38 then 1.21 from h = 4 to 1 ms
    /// on the two-hinge pendulum with unequal principal inertias before this stage). The iteration contracts by about
    /// (h/2) ‖W ∂Q/∂v‖ per sweep (it diverges past 1: a stiff damper needs a small h); it stops
    /// when vᵏ changes by at most [`KICK_RTOL`] ‖v‖∞, or stops falling below [`KICK_FLOOR`] ‖v‖∞
    /// (rounding), and fails after `max_iter` sweeps or on a non-finite iterate.
    fn implicit_half_kick(&mut self, h: f64, q: &[f64], v: &mut [f64]) -> Result<(), SolveError> {
        self.v_half.copy_from_slice(v);
        let mut before = f64::INFINITY;
        let mut change = f64::NAN;
        for it in 0..self.opts.max_iter {
            self.v_prev.copy_from_slice(v);
            self.core.eval_forces(q, &self.v_prev);
            let w = self.core.ns.system.inv_mass();
            for (((vi, vh), qi), wi) in v.iter_mut().zip(&self.v_half).zip(&self.core.applied).zip(w) {
                *vi = vh + 0.5 * h * wi * qi;
            }
            if it == 0 {
                self.core.project(q, v)?;
            } else {
                self.core.ns.lambda.fill(0.0);
                self.core.solve_target(v, None, true)?;
                self.core.ns.add_w_jt(&self.core.ns.lambda, 1.0, v, &mut self.core.tmp);
            }
            change = v.iter().zip(&self.v_prev).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let scale = inf_norm(v);
            if !v.iter().all(|x| x.is_finite()) {
                return Err(SolveError::Breakdown {
                    solver: "rattle implicit half kick",
                    iterations: it + 1,
                    reason: "the fixed point diverged to a non-finite velocity: h is too large for the velocity-dependent forces",
                });
            }
            // Converged to rounding, or the changes stopped falling at the rounding floor of the
            // projection (they can no longer shrink; 1e-10 ‖v‖ is far above any contraction's
            // remainder after the iterations taken and far below a real stall).
            if change <= KICK_RTOL * scale || (change >= before && change <= KICK_FLOOR * scale) {
                return Ok(());
            }
            before = change;
        }
        Err(SolveError::NotConverged {
            solver: "rattle implicit half kick",
            iterations: self.opts.max_iter,
            residual: change,
            tol: KICK_RTOL * inf_norm(&self.v_half),
        })
    }

    /// The rest of the step from the converged qₙ₊₁ (Λ in the core's `accumulated`, `v` = v½*).
    fn finish(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        // v½ gets the position constraint impulse: q = qₙ + h v½.
        self.core.ns.add_w_jt(&self.core.accumulated, 0.5 * h, v, &mut self.core.tmp);
        // Second half kick and projection onto Jₙ₊₁ v = 0.
        if self.velocity_dependent {
            self.implicit_half_kick(h, q, v)?;
        } else {
            self.core.integrate_velocities(q, v, 0.5 * h);
            self.core.project(q, v)?;
        }
        self.factored_at.copy_from_slice(q);
        self.has_factor = true;
        // The force of the last half step, for the power metric: Q̂ = Jᵀμ' / (h/2).
        self.core.force_from_solution(2.0 / h);
        let s = 2.0 / h;
        self.ends.after_rattle_step(h, &self.core.accumulated, self.core.ns.lambda.iter().map(|l| s * l));
        Ok(())
    }
}
