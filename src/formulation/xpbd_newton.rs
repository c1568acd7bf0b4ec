//! `xpbd_newton` — XPBD's substepped, compliant position step (see `xpbd`) solved by full Newton
//! iterations instead of XPBD's Gauss–Newton ones.
//!
//! Per substep of h_s = h / n, with α̃ = α / h_s²: v ← v + h_s W Q; q_prev ← q; q ← q + h_s v
//! (the prediction q̃); then `iterations` Newton steps (below) from λ of the previous substep and
//! from q̃ (with `extrapolate`: from q̃ ⊕ the previous substep's correction q ⊖ q̃);
//! v ← (q − q_prev) / h_s. The constraint force for the power metric is Q̂ = Jᵀλ / h_s².
//!
//! It drops the two approximations of Macklin 2016 §4 and takes full Newton steps on
//! its eq. 8, g = M(q − q̃) − Jᵀλ = 0, h = C(q) + α̃λ = 0:
//!   [K  −Jᵀ; J  α̃] [Δq; Δλ] = −[g; h],   K = M + K_g,   K_g = −Σ_r λ_r ∇²C_r
//! with the geometric stiffness K_g (Tournier, Nesme, Gilles & Faure 2015, "Stable constrained
//! dynamics"; Andrews, Teichmann & Kry 2017, "Geometric stiffness for real-time constrained
//! multibody dynamics") and λ warm-started from the previous substep, so that the first iteration
//! already sees the links' tension. Each constraint gives K_g as Σ_k s_k g_k g_kᵀ
//! ([`crate::constraint::Constraint::geometric_stiffness`], clamped to s_k ≥ 0), so with
//! B = [J; Gᵀ] and ν = −S Gᵀ Δq the step is again a normal-matrix solve, one extra row per term:
//!   (B W Bᵀ + diag(α̃, S⁻¹)) [Δλ; ν] = B u − [C + α̃λ; 0],   u = W g = (q ⊖ q̃) − W Jᵀλ,
//!   Δq = W Bᵀ [Δλ; ν] − u,
//! which keeps W diagonal and every linear solver applicable (a chain's matrix stays banded).
//! With `tol` > 0 a substep stops iterating once max |C + α̃λ| ≤ tol.
//! Convergence is quadratic where Gauss–Newton's rate h_s² |λ|/(m ℓ) exceeds 1 — a long chain's
//! tension at large steps. Constraints without a K_g factor get their Gauss–Newton block.

use super::Dynamics;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::stepper_core::StepperCore;
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::params::Params;
use crate::scene::Scene;
use crate::system::System;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A geometric-stiffness term is kept when s > 0 (tension: compression would make M + K_g
/// indefinite; that row then gets XPBD's Gauss–Newton block) and s gᵀ W g ≥ 1e-10: a smaller
/// term changes M + K_g below rounding, and its 1/s would only inflate the system's diagonal
/// (from rest, links far from the pin carry almost no tension).
fn keep_stiffness(s: f64, g_w_g: f64) -> bool {
    s * g_w_g >= 1e-10
}

/// The diagonal term of each row: α̃ on a constraint row, S⁻¹ = 1/s on a stiffness row, and 1 on
/// a zeroed one (s = 0: its unknown is then 0).
fn regularisation(reg_rows: &mut [f64], s: &[f64], stiffness_row: &[bool], alpha_t: f64) {
    for ((r, s), &stiff) in reg_rows.iter_mut().zip(s).zip(stiffness_row) {
        *r = if !stiff {
            alpha_t
        } else if *s > 0.0 && (1.0 / *s).is_finite() {
            1.0 / *s
        } else {
            1.0
        };
    }
}

/// Options of the XPBD Newton stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct XpbdNewtonOptions {
    /// substeps per step
    #[schemars(range(min = 1, max = 100_000))]
    pub substeps: usize,
    /// Newton iterations per substep (at most, with tol)
    #[schemars(range(min = 1, max = 10_000))]
    pub iterations: usize,
    /// compliance alpha of every constraint (0 = rigid)
    #[schemars(range(min = 0), extend("unit" = "units of C per N"))]
    pub compliance: f64,
    /// stop a substep's iterations once max |C + alpha/h^2 lambda| <= tol (0: always `iterations`)
    #[schemars(range(min = 0), extend("unit" = "units of C"))]
    pub tol: f64,
    /// start each substep's iterations from q~ plus the previous substep's correction q - q~
    /// instead of from q~ (false: Macklin's start)
    pub extrapolate: bool,
}

impl Default for XpbdNewtonOptions {
    fn default() -> Self {
        XpbdNewtonOptions { substeps: 10, iterations: 1, compliance: 0.0, tol: 0.0, extrapolate: false }
    }
}

impl Params for XpbdNewtonOptions {}

impl FormulationParams for XpbdNewtonOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(XpbdNewton::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `xpbd_newton`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<XpbdNewtonOptions>(
    "xpbd_newton",
    "XPBD's compliant position step by full Newton iterations: geometric stiffness, residual M(q - q~) - J^T lambda, multipliers warm-started (Macklin 2016 eq. 8)",
    FormulationKind::Stepper,
)
.solving(super::registry::SystemKind::NormalWithStiffness)
.with_order(1);

/// The XPBD Newton stepper on one scene, with its workspaces.
pub struct XpbdNewton<'a> {
    core: StepperCore<'a>,
    opts: XpbdNewtonOptions,
    q_prev: Vec<f64>,
    work: NewtonWork,
    /// Substep length of the last step \[s\] (for Q̂).
    last_hs: f64,
    /// Whether the last substep stopped on its convergence test, which evaluates C only: J in
    /// place is then the last iterate's, and Q̂ re-evaluates it at `q_end`.
    stale_jacobian: bool,
    /// The positions at the end of the last step, kept when `stale_jacobian`.
    q_end: Vec<f64>,
}

/// Workspace of the Newton iterations (rows in the layout of [`System::jacobian_layout_with_stiffness_rows`]).
struct NewtonWork {
    /// The inertial prediction q̃ (length nq with orientations; empty in plain coordinates, where
    /// it is recomputed: [`Prediction`]).
    q_tilde: Vec<f64>,
    /// Stiffness weights s_k (0 on constraint rows).
    s: Vec<f64>,
    /// Whether each row is a stiffness row.
    stiffness_row: Vec<bool>,
    /// The previous substep's correction q ⊖ q̃ (velocity layout; 0 before the first), the start
    /// of the next one's iterations with `extrapolate`.
    correction: Vec<f64>,
    /// Bᵀy of the iterations' two products (velocity layout), zero between them: each reader zeroes
    /// what it read, so that a product only adds ([`crate::sparse::BlockJacobian::add_mul_t`]).
    bt_y: Vec<f64>,
}

impl<'a> XpbdNewton<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: XpbdNewtonOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let nq = scene.system.nq();
        let (core, stiffness_row) = StepperCore::with_stiffness_rows(scene, solver)?;
        let m = stiffness_row.len();
        let correction = vec![0.0; scene.system.ndof()];
        let q_tilde = vec![0.0; if scene.system.has_orientations() { nq } else { 0 }];
        let bt_y = vec![0.0; scene.system.ndof()];
        let work = NewtonWork { q_tilde, s: vec![0.0; m], stiffness_row, correction, bt_y };
        Ok(XpbdNewton { core, opts, q_prev: vec![0.0; nq], work, last_hs: 1.0, stale_jacobian: false, q_end: vec![0.0; nq] })
    }

    /// Stage "integrate velocities", then the prediction: Q = Q(q, v), v ← v + h_s W Q, q_prev ← q,
    /// q ← q ⊕ h_s v = q̃ (stored too when the system has orientations; in plain coordinates it is
    /// q_prev + h_s v, recomputed where it is read, and the kick and the drift are one pass with
    /// the bits of `StepperCore::integrate_velocities` and `System::advance`).
    fn kick_and_predict(&mut self, q: &mut [f64], v: &mut [f64], hs: f64) {
        let sys = self.core.ns.system;
        if sys.has_orientations() {
            self.core.integrate_velocities(q, v, hs);
            self.q_prev.copy_from_slice(q);
            self.core.integrate_positions(q, v, hs);
            self.work.q_tilde.copy_from_slice(q);
            return;
        }
        self.core.eval_forces(q, v);
        let kicks = self.core.applied.iter().zip(sys.inv_mass());
        for ((qp, qi), (vi, (fi, wi))) in self.q_prev.iter_mut().zip(q.iter_mut()).zip(v.iter_mut().zip(kicks)) {
            *vi += hs * wi * fi;
            *qp = *qi;
            *qi += hs * *vi;
        }
    }

    /// One substep's Newton iterations from the prediction q = q̃ (see the module docs); λ comes in
    /// warm from the previous substep. Returns whether they stopped on the convergence test (J in
    /// place is then the last iterate's, not J(q)).
    fn newton_iterations(&mut self, q: &mut [f64], v: &[f64], hs: f64, alpha_t: f64) -> Result<bool, SolveError> {
        let work = &mut self.work;
        let core = &mut self.core;
        let sys = core.ns.system;
        let prediction = Prediction::new(sys, &self.q_prev, v, hs, &work.q_tilde);
        if self.opts.extrapolate {
            // the iterations start from q̃ ⊕ (the previous substep's q ⊖ q̃): that correction is
            // h_s² W Jᵀ(λ/h_s²), the constraint force's displacement, which changes by O(h_s³)
            // from one substep to the next where the motion is smooth — a start O(h_s³) from the
            // solution instead of O(h_s²), and with Newton's quadratic convergence fewer
            // iterations; the converged step is the same to `tol`
            sys.advance(q, &work.correction, 1.0);
        }
        let mut converged = false;
        for it in 0..self.opts.iterations {
            if it > 0 && self.opts.tol > 0.0 {
                // the test needs C only: J and K_g are formed when another iteration follows
                if sys.max_constraint_residual(q, &core.ns.jac, &core.accumulated, alpha_t) <= self.opts.tol {
                    converged = true;
                    break;
                }
            }
            // C, J and K_g = Σ s g gᵀ at (q, λ)
            // and Bᵀλ, in the same pass (adding into `bt_y`, zero here)
            let (c, s, jac) = (&mut core.c, &mut work.s, &mut core.ns.jac);
            sys.eval_with_stiffness(q, &core.accumulated, c, s, jac, keep_stiffness, Some(&mut work.bt_y));
            regularisation(&mut core.ns.reg_rows, &work.s, &work.stiffness_row, alpha_t);
            // u = W g = (q ⊖ q̃) − W Jᵀλ  (in `applied`, free until the next substep's forces)
            let at_prediction = it == 0 && !self.opts.extrapolate;
            prediction.correction(q, at_prediction, &mut work.bt_y, sys.inv_mass(), &mut core.applied);
            // rhs = B u − [C + α̃λ; 0]  (c = λ = 0 on stiffness rows), in the pass that forms B u
            let (c, l) = (&core.c, &core.accumulated);
            core.ns.jac.mul_then(&core.applied, &mut core.ns.rhs, |r, bu| bu - (c[r] + alpha_t * l[r]));
            core.ns.start_from_zero();
            core.ns.solve(true)?;
            // Δq = W Bᵀ z − u;  λ += Δλ (constraint rows, in the pass that reads z for Bᵀ z)
            let (l, stiff) = (&mut core.accumulated, &work.stiffness_row);
            core.ns.jac.add_mul_t(&core.ns.lambda, &mut work.bt_y, |r, z| {
                if !stiff[r] {
                    l[r] += z;
                }
            });
            step_by(sys, q, &mut work.bt_y, &core.applied);
        }
        if self.opts.extrapolate {
            prediction.difference(q, &mut work.correction);
        }
        Ok(converged)
    }
}

/// q ← q ⊕ (W t − u), the Newton step Δq = W Bᵀ z − u with t = Bᵀ z (in plain coordinates
/// `System::advance`'s q + 1 Δq, the same bits, in the pass that forms Δq; with orientations Δq
/// is formed in `t`); leaves t zero.
fn step_by(sys: &System, q: &mut [f64], t: &mut [f64], u: &[f64]) {
    let w = sys.inv_mass();
    if sys.has_orientations() {
        for ((ti, ui), wi) in t.iter_mut().zip(u).zip(w) {
            *ti = wi * *ti - ui;
        }
        sys.advance(q, t, 1.0);
        t.fill(0.0);
    } else {
        for ((qi, ti), (ui, wi)) in q.iter_mut().zip(t.iter_mut()).zip(u.iter().zip(w)) {
            *qi += wi * *ti - ui;
            *ti = 0.0;
        }
    }
}

/// Where the iterations read the prediction q̃ from.
enum Prediction<'p> {
    /// Plain coordinates: q̃ = q_prev + h_s v (`System::advance`'s bits), recomputed per entry.
    Plain { q_prev: &'p [f64], v: &'p [f64], hs: f64 },
    /// With orientations: q̃ as stored by [`XpbdNewton::kick_and_predict`].
    Stored { sys: &'p System, q_tilde: &'p [f64] },
}

impl<'p> Prediction<'p> {
    /// The prediction of `sys` after [`XpbdNewton::kick_and_predict`] from `q_prev` with `v` over `hs`.
    fn new(sys: &'p System, q_prev: &'p [f64], v: &'p [f64], hs: f64, q_tilde: &'p [f64]) -> Self {
        if sys.has_orientations() { Prediction::Stored { sys, q_tilde } } else { Prediction::Plain { q_prev, v, hs } }
    }

    /// u = (q ⊖ q̃) − W t with t = Jᵀλ, leaving t zero; `at_prediction`: q is q̃ itself (the
    /// first iteration without `extrapolate`), whose q ⊖ q̃ = q − q reads q alone (the same bits).
    fn correction(&self, q: &[f64], at_prediction: bool, t: &mut [f64], w: &[f64], u: &mut [f64]) {
        match *self {
            Prediction::Plain { .. } if at_prediction => {
                for ((ui, qi), (ti, wi)) in u.iter_mut().zip(q).zip(t.iter_mut().zip(w)) {
                    // q − q̃ with q̃ = q: +0, or NaN where q is not finite — as from a stored q̃
                    #[allow(clippy::eq_op)]
                    let d = qi - qi;
                    *ui = d - wi * *ti;
                    *ti = 0.0;
                }
            }
            Prediction::Plain { q_prev, v, hs } => {
                let q_tilde = q_prev.iter().zip(v).map(|(qp, vi)| qp + hs * vi);
                for ((ui, (qi, qt)), (ti, wi)) in u.iter_mut().zip(q.iter().zip(q_tilde)).zip(t.iter_mut().zip(w)) {
                    *ui = (qi - qt) - wi * *ti;
                    *ti = 0.0;
                }
            }
            Prediction::Stored { sys, q_tilde } => {
                sys.difference(q_tilde, q, 1.0, u);
                for ((ui, ti), wi) in u.iter_mut().zip(t.iter_mut()).zip(w) {
                    *ui -= wi * *ti;
                    *ti = 0.0;
                }
            }
        }
    }

    /// q ⊖ q̃ into `out` (`System::difference`'s (q − q̃) / 1 in plain coordinates).
    fn difference(&self, q: &[f64], out: &mut [f64]) {
        match *self {
            Prediction::Plain { q_prev, v, hs } => {
                for ((o, qi), (qp, vi)) in out.iter_mut().zip(q).zip(q_prev.iter().zip(v)) {
                    *o = (qi - (qp + hs * vi)) / 1.0;
                }
            }
            Prediction::Stored { sys, q_tilde } => sys.difference(q_tilde, q, 1.0, out),
        }
    }
}

impl Stepper for XpbdNewton<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let hs = h / self.opts.substeps as f64;
        self.last_hs = hs;
        let alpha_t = self.opts.compliance / (hs * hs);
        self.core.ns.reg = alpha_t;
        for _ in 0..self.opts.substeps {
            let sys = self.core.ns.system;
            self.kick_and_predict(q, v, hs);
            self.stale_jacobian = self.newton_iterations(q, v, hs, alpha_t)?;
            // v = (q − q_prev) / h_s (the logarithm of the relative rotation for orientations)
            sys.difference(&self.q_prev, q, hs, v);
        }
        if self.stale_jacobian {
            self.q_end.copy_from_slice(q);
        }
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    /// Q̂ = Jᵀλ / h_s² of the last substep (Macklin 2016, eq. 9), with J at the substep's end
    /// (re-evaluated if the iterations stopped on their test, which forms C only; otherwise J of
    /// the last iteration is in place; its stiffness rows carry λ = 0).
    fn constraint_force(&mut self, out: &mut [f64]) {
        if self.stale_jacobian {
            let core = &mut self.core;
            let sys = core.ns.system;
            let (c, s, jac) = (&mut core.c, &mut self.work.s, &mut core.ns.jac);
            sys.eval_with_stiffness(&self.q_end, &core.accumulated, c, s, jac, keep_stiffness, None);
            self.stale_jacobian = false;
        }
        self.core.accumulated_force(1.0 / (self.last_hs * self.last_hs), out);
    }
}
