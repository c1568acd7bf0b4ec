//! `generalized_alpha` — the generalized-α method on the index-3 equations of motion
//! M q̈ = Q(q, v) + Jᵀλ, C(q) = 0 (Arnold & Brüls, "Convergence of the generalized-α scheme for
//! constrained mechanical systems", Multibody System Dynamics 18, 2007, Algorithm 1), and its
//! HHT-α special case (Hilber, Hughes & Taylor 1977; α_m = 0).
//!
//! One step of length h from (qₙ, vₙ, q̈ₙ, aₙ), a the algorithmic acceleration:
//!   (1 − α_m) aₙ₊₁ + α_m aₙ = (1 − α_f) q̈ₙ₊₁ + α_f q̈ₙ,
//!   qₙ₊₁ = qₙ + h vₙ + h² (½ − β) aₙ + h² β aₙ₊₁,   vₙ₊₁ = vₙ + h (1 − γ) aₙ + h γ aₙ₊₁,
//!   M q̈ₙ₊₁ = Q(qₙ₊₁, vₙ₊₁) + J(qₙ₊₁)ᵀ λₙ₊₁,   C(qₙ₊₁) = 0,
//! with α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m, β = ¼ (γ + ½)² from the
//! spectral radius at infinity ρ∞ ∈ [0, 1] (Chung & Hulbert 1993): second order, and high
//! frequencies damped to ρ∞ (1: none, 0: annihilated in one step). HHT-α: α_m = 0,
//! α_f = α = (1 − ρ∞)/(1 + ρ∞) ∈ [0, ⅓].
//!
//! The unknowns q̈ₙ₊₁ and λₙ₊₁ are found by Newton iterations on the residuals
//! r = M q̈ − Q − Jᵀλ and C, with Δq̈ = β′ Δq, Δv = γ′ Δq, β′ = (1 − α_m)/(h² β (1 − α_f)),
//! γ′ = γ/(h β). The iteration matrix is [β′M, −Jᵀ; J, 0] with J at the current iterate, solved
//! through its Schur complement by the cell's solver on J W Jᵀ (one solve per iteration):
//! (J W Jᵀ) Δλ = J W r − β′ C, Δq = W (Jᵀ Δλ − r)/β′.
//! That matrix leaves out the applied forces' tangent stiffness and damping, ∂Q/∂q + γ′ ∂Q/∂v,
//! and the geometric stiffness ∂(Jᵀλ)/∂q, which Arnold & Brüls include: its iteration contracts
//! by about h² ‖W ∂Q/∂q‖ + h ‖W ∂Q/∂v‖ and diverges on stiff forces. Where it contracts slower than
//! ½ within a step (and `krylov` > 0), the rest of the step takes full Newton: the exact Jacobian
//! of the scaled residual F̃ = (W r/β′, C) applied by forward differences (Knoll & Keyes 2004)
//! and solved by at most `krylov` GMRES iterations right-preconditioned by the simplified matrix.
//! It stops when the correction just applied is at most tol relative to the iterate, in q and
//! in λ separately (a test on the residuals would resolve λ only to about β′ M tol ~ M tol/(β h²),
//! since a change of λ moves q by W Jᵀ Δλ/β′); the iterate starts from q̈ₙ and λₙ. q̈₀ and λ₀ are the
//! consistent ones, from J W Jᵀ λ₀ = −J̇v − J W Q. λₙ₊₁ is the multiplier at tₙ₊₁ (second order,
//! no order reduction: Arnold & Brüls, Theorem 2, for ρ∞ < 1).
//!
//! `stabilized: true` gives the stabilized index-2 form (the GGL idea of Gear, Gupta &
//! Leimkuhler 1985 in generalized-α, as Arnold, Cardona & Brüls 2016 write it): λ enforces the
//! velocity constraint J(qₙ₊₁) vₙ₊₁ = 0, and a second multiplier η the position constraint
//! C(qₙ₊₁) = 0 through qₙ₊₁ = qₙ + h vₙ + h² (½ − β) aₙ + h² β aₙ₊₁ + W J(qₙ)ᵀ η. Deviation: the
//! correction is mass-weighted (W Jᵀ, GGL's M q̇ = M v − Jᵀη; the papers take Jᵀ) so that both
//! multipliers' Schur complements are the same J W Jᵀ, factored once per iteration; the exact
//! solution has η = 0 either way. Newton's unknowns are (x, Δλ, Δη), x the change of q through a,
//! so Δq = x + W J(qₙ)ᵀ Δη, Δv = γ′ x, Δq̈ = β′ x; the residual is (W r/β′, J v/γ′, C). λ then
//! scales with γ′ ~ 1/h instead of β′ ~ 1/h²: its rounding stays small at small steps, and
//! J v = 0 holds at every step's end.
//! Coordinates must be a vector space (particles, rigid-2D bodies): rigid-3D orientations would
//! need the Lie-group method (Brüls & Cardona 2010), which is not built; contact is not handled.

mod full_newton;

use super::Dynamics;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::stepper_core::StepperCore;
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::metrics::inf_norm;
use crate::params::Params;
use crate::scene::Scene;
use crate::sparse::BlockJacobian;
use full_newton::Gmres;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the generalized-α stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GeneralizedAlphaOptions {
    /// spectral radius at infinity: how much of a mode far above 1/h survives one step (1: undamped, as the trapezoidal rule; 0: annihilated); sets alpha_m, alpha_f, beta, gamma (Chung & Hulbert 1993)
    #[schemars(range(min = 0, max = 1), extend("unit" = "1"))]
    pub rho_inf: f64,
    /// true: the HHT-alpha variant (alpha_m = 0, alpha = (1 - rho_inf)/(1 + rho_inf), needs rho_inf >= 0.5); false: generalized-alpha
    pub hht: bool,
    /// Newton stops when its last correction is at most tol relative: |dq|inf <= tol (1 + |q|inf) and |dlambda|inf <= tol (1 + |lambda|inf)
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// Newton iterations per step before the run fails
    #[schemars(range(min = 1, max = 100_000))]
    pub max_iter: usize,
    /// true: the stabilized index-2 form (the GGL idea of Gear, Gupta & Leimkuhler 1985 in generalized-alpha, Arnold, Cardona & Bruls 2016): lambda enforces the velocity constraint J v = 0 at the step's end and a second multiplier eta the position constraint C = 0 through a mass-weighted correction q += W J(q_n)^T eta; lambda's rounding grows as 1/h instead of 1/h^2; false: the index-3 form (C = 0 by lambda, J v = 0 not enforced)
    pub stabilized: bool,
    /// 0: simplified Newton only, the matrix [beta' M, -J^T; J, 0] (the applied forces' stiffness and damping and the geometric stiffness left out); k > 0: where simplified Newton contracts slower than 1/2 in a step, full Newton for the rest of it: the exact Jacobian of the residual applied by finite differences, solved by at most k GMRES iterations preconditioned by that matrix (stiff springs and dampers need it)
    #[schemars(range(min = 0, max = 200))]
    pub krylov: usize,
}

impl Default for GeneralizedAlphaOptions {
    fn default() -> Self {
        GeneralizedAlphaOptions { rho_inf: 0.9, hht: false, stabilized: false, tol: 1e-10, max_iter: 50, krylov: 10 }
    }
}

impl Params for GeneralizedAlphaOptions {
    fn check(&self, _given: &[&str]) -> Result<(), String> {
        if self.hht && self.rho_inf < 0.5 {
            return Err(format!(
                "`hht: true` needs `rho_inf` >= 0.5 (HHT's alpha = (1 - rho_inf)/(1 + rho_inf) must lie in [0, 1/3]); got rho_inf = {}",
                self.rho_inf
            ));
        }
        Ok(())
    }
}

impl FormulationParams for GeneralizedAlphaOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(GeneralizedAlpha::new(scene, *self, solver)?)))
    }

    /// The stabilized form's second Jacobian J(qₙ) (at most 12 values per row); with full
    /// Newton: GMRES's k + 1 basis vectors of n + m (n + 2m stabilized), its Hessenberg matrix,
    /// the perturbed state (q, v, q̈, λ), three residual-sized vectors and the evaluation Jacobian.
    fn workspace_bytes(&self, rows: usize, state: usize) -> u64 {
        let start = if self.stabilized { 8 * 12 * rows as u64 } else { 0 };
        if self.krylov == 0 {
            return start;
        }
        let extra = if self.stabilized { rows } else { 0 };
        let (k, len) = (self.krylov as u64, (rows + extra + state) as u64);
        start + 8 * ((k + 1) * len + (k + 1) * k + 5 * k + 4 * len + 12 * rows as u64)
    }
}

/// The registry entry of `generalized_alpha`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<GeneralizedAlphaOptions>(
    "generalized_alpha",
    "generalized-alpha (or HHT-alpha) on the index-3 equations M qdd = Q + J^T lambda, C = 0 (Arnold & Bruls 2007), or in the stabilized index-2 form (J v = 0 by lambda, C = 0 by a second multiplier), order 2 in q, v and lambda, high frequencies damped to rho_inf; Newton on qdd and lambda, simplified with J W J^T and full (finite-difference products, GMRES) where that stalls; particles and rigid-2D bodies",
    FormulationKind::Stepper,
)
.with_order(2)
.with_variants(&[("stabilized", &[("stabilized", crate::params::Scalar::Bool(true))])]);

/// The method's coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// α_m.
    pub alpha_m: f64,
    /// α_f.
    pub alpha_f: f64,
    /// γ.
    pub gamma: f64,
    /// β.
    pub beta: f64,
}

impl Coefficients {
    /// From ρ∞ (Chung & Hulbert 1993; Arnold & Brüls 2007, eq. 10), or HHT-α's.
    pub fn new(rho_inf: f64, hht: bool) -> Self {
        let (alpha_m, alpha_f) = if hht {
            (0.0, (1.0 - rho_inf) / (1.0 + rho_inf))
        } else {
            ((2.0 * rho_inf - 1.0) / (rho_inf + 1.0), rho_inf / (rho_inf + 1.0))
        };
        let gamma = 0.5 + alpha_f - alpha_m;
        Coefficients { alpha_m, alpha_f, gamma, beta: 0.25 * (gamma + 0.5) * (gamma + 0.5) }
    }
}

/// The generalized-α stepper on one scene, with its workspaces.
pub struct GeneralizedAlpha<'a> {
    core: StepperCore<'a>,
    opts: GeneralizedAlphaOptions,
    k: Coefficients,
    /// q̈ₙ (then q̈ₙ₊₁), q̈ₙ kept through the step, and the algorithmic acceleration aₙ.
    qdd: Vec<f64>,
    qdd_prev: Vec<f64>,
    acc: Vec<f64>,
    /// λ (force units, the multipliers of C at the step's end).
    lambda: Vec<f64>,
    /// The scaled residual F̃ = (W r/β′, C) at the iterate, and the Newton correction (Δq, Δλ);
    /// stabilized, F̃ = (W r/β′, J v/γ′, C) and the correction (x, Δλ, Δη) (module docs).
    f: Vec<f64>,
    dx: Vec<f64>,
    /// The position change of the last correction (length n).
    shift: Vec<f64>,
    /// J(qₙ) of the stabilized form's position correction W J(qₙ)ᵀ η.
    jac_start: Option<BlockJacobian>,
    /// J at the residual's configuration (the solve's J is the iteration matrix's).
    jac_eval: BlockJacobian,
    /// Full Newton's workspace (`krylov` > 0).
    gmres: Option<Gmres>,
    /// Whether q̈₀ and λ₀ have been computed.
    started: bool,
}

impl<'a> GeneralizedAlpha<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(
        scene: &'a Scene,
        opts: GeneralizedAlphaOptions,
        solver: Box<dyn LinearSolver>,
    ) -> Result<Self, NotApplicable> {
        if scene.system.has_orientations() {
            return Err(NotApplicable(
                "generalized_alpha steps coordinates of a vector space (particles, rigid-2D bodies); rigid-3D orientations need the Lie-group method (Bruls & Cardona 2010), not built"
                    .into(),
            ));
        }
        let core = StepperCore::new(scene, solver)?;
        let (nq, n, m) = (scene.system.nq(), scene.system.ndof(), scene.system.nrows());
        let k = opts.krylov;
        // The unknowns: (Δq, Δλ), or stabilized (x, Δλ, Δη).
        let len = if opts.stabilized { n + 2 * m } else { n + m };
        let gmres = (k > 0).then(|| Gmres::new(k, len, nq, n, m));
        Ok(GeneralizedAlpha {
            core,
            opts,
            k: Coefficients::new(opts.rho_inf, opts.hht),
            qdd: vec![0.0; n],
            qdd_prev: vec![0.0; n],
            acc: vec![0.0; n],
            lambda: vec![0.0; m],
            f: vec![0.0; len],
            dx: vec![0.0; len],
            shift: vec![0.0; n],
            jac_start: opts.stabilized.then(|| scene.system.jacobian_layout()),
            jac_eval: scene.system.jacobian_layout(),
            gmres,
            started: false,
        })
    }

    /// The consistent q̈₀ and λ₀ at (q, v): J W Jᵀ λ = −J̇v − J W Q, q̈ = W (Q + Jᵀλ); a₀ = q̈₀.
    fn start(&mut self, q: &[f64], v: &[f64]) -> Result<(), SolveError> {
        let sys = self.core.ns.system;
        self.core.eval_forces(q, v);
        self.core.ns.update_jacobian(q);
        sys.jdot_v(q, v, &mut self.core.ns.rhs);
        let w = sys.inv_mass();
        for ((t, qi), wi) in self.core.tmp.iter_mut().zip(&self.core.applied).zip(w) {
            *t = wi * qi;
        }
        self.core.ns.jac.mul(&self.core.tmp, &mut self.core.c);
        for (b, jwq) in self.core.ns.rhs.iter_mut().zip(&self.core.c) {
            *b = -*b - jwq;
        }
        self.core.ns.lambda.fill(0.0);
        self.core.ns.solve(true)?;
        self.lambda.copy_from_slice(&self.core.ns.lambda);
        self.qdd.copy_from_slice(&self.core.tmp);
        self.core.ns.add_w_jt(&self.lambda, 1.0, &mut self.qdd, &mut self.core.tmp);
        self.acc.copy_from_slice(&self.qdd);
        self.started = true;
        Ok(())
    }
}

/// The Newton equations' scaling of a step: β′, γ′, and whether the stabilized form's rows are
/// present.
#[derive(Clone, Copy)]
struct Scale {
    beta_p: f64,
    gamma_p: f64,
    stabilized: bool,
}

/// The scaled residual F̃ = (W r/β′, C) at (q, v, q̈, λ), r = M q̈ − Q(q, v) − J(q)ᵀλ, or
/// stabilized (W r/β′, J(q) v/γ′, C), into `out` (J(q) into `jac`).
#[allow(clippy::too_many_arguments)]
fn residual(
    core: &mut StepperCore<'_>,
    jac: &mut BlockJacobian,
    q: &[f64],
    v: &[f64],
    qdd: &[f64],
    lambda: &[f64],
    s: Scale,
    out: &mut [f64],
) {
    let sys = core.ns.system;
    let (n, m) = (qdd.len(), lambda.len());
    core.eval_forces(q, v);
    sys.fill_jacobian(q, jac);
    if s.stabilized {
        jac.mul(v, &mut out[n..n + m]);
        out[n..n + m].iter_mut().for_each(|x| *x /= s.gamma_p);
        sys.eval_constraints(q, &mut out[n + m..]);
    } else {
        sys.eval_constraints(q, &mut out[n..]);
    }
    jac.mul_t(lambda, &mut core.tmp);
    for i in 0..n {
        let r = sys.mass()[i] * qdd[i] - core.applied[i] - core.tmp[i];
        out[i] = sys.inv_mass()[i] * r / s.beta_p;
    }
}

/// x = P⁻¹ y for the simplified Newton matrix in scaled form, with the solve's J:
/// P (Δq, Δλ) = (Δq − W JᵀΔλ/β′, J Δq), so (J W Jᵀ) Δλ = β′ (y_C − J y_q), Δq = y_q + W JᵀΔλ/β′;
/// stabilized, P (x, Δλ, Δη) = (x − W JᵀΔλ/β′, J x, J x + J W Jᵀ Δη) (J(qₙ) taken as J), the same
/// two lines on the velocity row and then (J W Jᵀ) Δη = y_C − J x with the same factorization.
/// `same`: the factorization of the last solve is reused.
fn precondition(core: &mut StepperCore<'_>, s: Scale, y: &[f64], x: &mut [f64], same: bool) -> Result<(), SolveError> {
    let (n, m) = (core.tmp.len(), core.ns.rhs.len());
    core.ns.jac.mul(&y[..n], &mut core.ns.rhs);
    for (b, yc) in core.ns.rhs.iter_mut().zip(&y[n..n + m]) {
        *b = s.beta_p * (yc - *b);
    }
    core.ns.lambda.fill(0.0);
    if same { core.ns.solve_same(true)? } else { core.ns.solve(true)? }
    x[..n].copy_from_slice(&y[..n]);
    core.ns.add_w_jt(&core.ns.lambda, 1.0 / s.beta_p, &mut x[..n], &mut core.tmp);
    x[n..n + m].copy_from_slice(&core.ns.lambda);
    if s.stabilized {
        core.ns.jac.mul(&x[..n], &mut core.ns.rhs);
        for (b, yc) in core.ns.rhs.iter_mut().zip(&y[n + m..]) {
            *b = yc - *b;
        }
        core.ns.lambda.fill(0.0);
        core.ns.solve_same(true)?;
        x[n + m..].copy_from_slice(&core.ns.lambda);
    }
    Ok(())
}

/// The position change of a correction d: Δq = d_q, or stabilized x + W J(qₙ)ᵀ Δη, into `out`.
fn position_change(jac_start: Option<&BlockJacobian>, inv_mass: &[f64], d: &[f64], m: usize, out: &mut [f64]) {
    let n = out.len();
    match jac_start {
        None => out.copy_from_slice(&d[..n]),
        Some(j0) => {
            j0.mul_t(&d[n + m..], out);
            for ((o, x), w) in out.iter_mut().zip(&d[..n]).zip(inv_mass) {
                *o = x + w * *o;
            }
        }
    }
}
impl GeneralizedAlpha<'_> {
    /// The Newton correction (Δq, Δλ) into `dx` for the scaled residual `f` at (q, v): the
    /// simplified Newton step P⁻¹(−F̃), refined by GMRES on the exact Jacobian when `full`.
    fn correction(&mut self, q: &[f64], v: &[f64], s: Scale, full: bool) -> Result<(), SolveError> {
        self.core.ns.update_jacobian(q);
        for x in self.f.iter_mut() {
            *x = -*x;
        }
        let r = precondition(&mut self.core, s, &self.f, &mut self.dx, false);
        for x in self.f.iter_mut() {
            *x = -*x;
        }
        r?;
        if !full {
            return Ok(());
        }
        let Some(mut g) = self.gmres.take() else { return Ok(()) };
        let r = self.refine(&mut g, q, v, s);
        self.gmres = Some(g);
        r
    }
}

/// Relative Newton corrections below which a correction that stops shrinking is rounding: the
/// iteration has converged as far as the arithmetic allows. The index-3 equations amplify the
/// rounding of C into λ by β′ ~ 1/(β h²) (Bottasso, Bauchau & Cardona 2007): on Andrews' squeezer
/// at h = 1e-6 s λ's corrections stall at 2.4e-8 relative; full Newton's finite-difference
/// products are accurate to about √ε of the residual.
const ROUNDING_FLOOR: f64 = 1e-6;

/// A scaled residual F̃ (in metres) within this many ulps of the configuration's size,
/// ‖F̃‖∞ ≤ 16 ε (1 + ‖q‖∞), is the rounding of C's evaluation: a correction that stops shrinking
/// there is noise whatever its size. The index-3 form needs it at small steps, where rounding
/// alone moves λ by more than [`ROUNDING_FLOOR`]: the pendulum at h = 1e-5 s (β′ = 4e10 s⁻²)
/// turns a C of 1e-16 m into relative λ corrections of 1.4e-6.
const ROUNDING_ULPS: f64 = 16.0;

impl GeneralizedAlpha<'_> {
    /// The failure of a step's Newton iteration after `it` iterations with relative correction
    /// `residual`.
    fn not_converged(&self, it: usize, residual: f64) -> SolveError {
        SolveError::NotConverged { solver: "generalized_alpha newton", iterations: it, residual, tol: self.opts.tol }
    }
}

impl Stepper for GeneralizedAlpha<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        if !self.started {
            self.start(q, v)?;
        }
        let Coefficients { alpha_m, alpha_f, gamma, beta } = self.k;
        let beta_p = (1.0 - alpha_m) / (h * h * beta * (1.0 - alpha_f));
        let gamma_p = gamma / (h * beta);
        let s = Scale { beta_p, gamma_p, stabilized: self.opts.stabilized };
        let (n, m) = (v.len(), self.lambda.len());
        if let Some(j0) = &mut self.jac_start {
            self.core.ns.system.fill_jacobian(q, j0);
        }
        // Predictor with q̈ₙ₊₁ = q̈ₙ: aₙ₊₁ = (q̈ₙ − α_m aₙ)/(1 − α_m); q̈ₙ is kept for a's update.
        self.qdd_prev.copy_from_slice(&self.qdd);
        for i in 0..n {
            let (a_n, qdd) = (self.acc[i], self.qdd[i]);
            let a_next = (qdd - alpha_m * a_n) / (1.0 - alpha_m);
            q[i] += h * v[i] + h * h * ((0.5 - beta) * a_n + beta * a_next);
            v[i] += h * ((1.0 - gamma) * a_n + gamma * a_next);
        }
        let (mut it, mut previous, mut full) = (0, f64::INFINITY, false);
        loop {
            residual(&mut self.core, &mut self.jac_eval, q, v, &self.qdd, &self.lambda, s, &mut self.f);
            if !self.f.iter().all(|x| x.is_finite()) {
                return Err(self.not_converged(it, f64::INFINITY));
            }
            self.correction(q, v, s, full)?;
            position_change(self.jac_start.as_ref(), self.core.ns.system.inv_mass(), &self.dx, m, &mut self.shift);
            for i in 0..n {
                let x = self.dx[i];
                q[i] += self.shift[i];
                v[i] += gamma_p * x;
                self.qdd[i] += beta_p * x;
            }
            for (l, d) in self.lambda.iter_mut().zip(&self.dx[n..n + m]) {
                *l += d;
            }
            it += 1;
            // Converged when the correction just applied is within tol of the iterate's size, or
            // when the corrections stopped shrinking below the rounding floor or from a residual
            // at the rounding of C.
            let dq = inf_norm(&self.shift) / (1.0 + inf_norm(&q[..n]));
            let dl = inf_norm(&self.dx[n..n + m]) / (1.0 + inf_norm(&self.lambda));
            let size = dq.max(dl);
            let rounding = inf_norm(&self.f) <= ROUNDING_ULPS * f64::EPSILON * (1.0 + inf_norm(&q[..n]));
            if size <= self.opts.tol || (size >= 0.5 * previous && (size <= ROUNDING_FLOOR || rounding)) {
                break;
            }
            if it >= self.opts.max_iter {
                return Err(self.not_converged(it, size));
            }
            // Simplified Newton contracting slower than 1/2: full Newton for the rest of the step.
            full |= self.gmres.is_some() && size > 0.5 * previous;
            previous = size;
        }
        // J at the converged q, for the reported force.
        self.core.ns.system.fill_jacobian(q, &mut self.jac_eval);
        // aₙ₊₁ = (α_f q̈ₙ − α_m aₙ + (1 − α_f) q̈ₙ₊₁)/(1 − α_m).
        for ((a, qdd_new), qdd_old) in self.acc.iter_mut().zip(&self.qdd).zip(&self.qdd_prev) {
            *a = (alpha_f * qdd_old - alpha_m * *a + (1.0 - alpha_f) * qdd_new) / (1.0 - alpha_m);
        }
        // The reported force Q̂ = J(qₙ₊₁)ᵀ λₙ₊₁ (the last residual's J, at the converged q).
        self.jac_eval.mul_t(&self.lambda, &mut self.core.qhat);
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    fn end_multipliers(&self) -> Option<&[f64]> {
        self.started.then_some(&self.lambda[..])
    }
}
