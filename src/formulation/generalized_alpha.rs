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
//! Coordinates must be a vector space (particles, rigid-2D bodies): rigid-3D orientations would
//! need the Lie-group method (Brüls & Cardona 2010), which is not built; contact is not handled.

use super::Dynamics;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::stepper_core::StepperCore;
use super::{NotApplicable, Stepper};
use crate::linsolve::{LinearSolver, SolveError};
use crate::metrics::inf_norm;
use crate::params::Params;
use crate::scene::Scene;
use crate::sparse::BlockJacobian;
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
    /// 0: simplified Newton only, the matrix [beta' M, -J^T; J, 0] (the applied forces' stiffness and damping and the geometric stiffness left out); k > 0: where simplified Newton contracts slower than 1/2 in a step, full Newton for the rest of it: the exact Jacobian of the residual applied by finite differences, solved by at most k GMRES iterations preconditioned by that matrix (stiff springs and dampers need it)
    #[schemars(range(min = 0, max = 200))]
    pub krylov: usize,
}

impl Default for GeneralizedAlphaOptions {
    fn default() -> Self {
        GeneralizedAlphaOptions { rho_inf: 0.9, hht: false, tol: 1e-10, max_iter: 50, krylov: 10 }
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

    /// With full Newton: GMRES's k + 1 basis vectors of n + m, its Hessenberg matrix, the
    /// perturbed state (q, v, q̈, λ), three residual-sized vectors and the evaluation Jacobian (at
    /// most 12 values per row).
    fn workspace_bytes(&self, rows: usize, state: usize) -> u64 {
        if self.krylov == 0 {
            return 0;
        }
        let (k, len) = (self.krylov as u64, (rows + state) as u64);
        8 * ((k + 1) * len + (k + 1) * k + 5 * k + 4 * len + 12 * rows as u64)
    }
}

/// The registry entry of `generalized_alpha`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<GeneralizedAlphaOptions>(
    "generalized_alpha",
    "generalized-alpha (or HHT-alpha) on the index-3 equations M qdd = Q + J^T lambda, C = 0 (Arnold & Bruls 2007), order 2 in q, v and lambda, high frequencies damped to rho_inf; Newton on qdd and lambda, simplified with J W J^T and full (finite-difference products, GMRES) where that stalls; particles and rigid-2D bodies",
    FormulationKind::Stepper,
)
.with_order(2);

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
    /// The scaled residual F̃ = (W r/β′, C) at the iterate, and the Newton correction (Δq, Δλ).
    f: Vec<f64>,
    dx: Vec<f64>,
    /// J at the residual's configuration (the solve's J is the iteration matrix's).
    jac_eval: BlockJacobian,
    /// Full Newton's workspace (`krylov` > 0).
    gmres: Option<Gmres>,
    /// Whether q̈₀ and λ₀ have been computed.
    started: bool,
}

/// GMRES on the Newton system with finite-difference products (Knoll & Keyes 2004) and the
/// simplified Newton matrix as right preconditioner (Saad 2003, Alg. 9.5).
struct Gmres {
    /// Orthonormal basis of the Krylov space, k + 1 vectors of length n + m.
    basis: Vec<Vec<f64>>,
    /// Hessenberg matrix, column-major (k + 1) × k, and the Givens rotations.
    hess: Vec<f64>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    g: Vec<f64>,
    /// The least-squares solution (k).
    y: Vec<f64>,
    /// The perturbed iterate (q, v, q̈, λ) and the residual there.
    qp: Vec<f64>,
    vp: Vec<f64>,
    qddp: Vec<f64>,
    lp: Vec<f64>,
    fp: Vec<f64>,
    /// Scratch of length n + m.
    w: Vec<f64>,
    z: Vec<f64>,
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
        let gmres = (k > 0).then(|| Gmres {
            basis: vec![vec![0.0; n + m]; k + 1],
            hess: vec![0.0; (k + 1) * k],
            cs: vec![0.0; k],
            sn: vec![0.0; k],
            g: vec![0.0; k + 1],
            y: vec![0.0; k],
            qp: vec![0.0; nq],
            vp: vec![0.0; n],
            qddp: vec![0.0; n],
            lp: vec![0.0; m],
            fp: vec![0.0; n + m],
            w: vec![0.0; n + m],
            z: vec![0.0; n + m],
        });
        Ok(GeneralizedAlpha {
            core,
            opts,
            k: Coefficients::new(opts.rho_inf, opts.hht),
            qdd: vec![0.0; n],
            qdd_prev: vec![0.0; n],
            acc: vec![0.0; n],
            lambda: vec![0.0; m],
            f: vec![0.0; n + m],
            dx: vec![0.0; n + m],
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

/// The scaled residual F̃ = (W r/β′, C) at (q, v, q̈, λ), r = M q̈ − Q(q, v) − J(q)ᵀλ, into `out`
/// (J(q) into `jac`).
#[allow(clippy::too_many_arguments)]
fn residual(
    core: &mut StepperCore<'_>,
    jac: &mut BlockJacobian,
    q: &[f64],
    v: &[f64],
    qdd: &[f64],
    lambda: &[f64],
    beta_p: f64,
    out: &mut [f64],
) {
    let sys = core.ns.system;
    let n = qdd.len();
    core.eval_forces(q, v);
    sys.eval_constraints(q, &mut out[n..]);
    sys.fill_jacobian(q, jac);
    jac.mul_t(lambda, &mut core.tmp);
    for i in 0..n {
        let r = sys.mass()[i] * qdd[i] - core.applied[i] - core.tmp[i];
        out[i] = sys.inv_mass()[i] * r / beta_p;
    }
}

/// x = P⁻¹ y for the simplified Newton matrix in scaled form, P (Δq, Δλ) = (Δq − W JᵀΔλ/β′,
/// J Δq) with the solve's J: (J W Jᵀ) Δλ = β′ (y_C − J y_q), Δq = y_q + W JᵀΔλ/β′. `same`: the
/// factorization of the last solve is reused.
fn precondition(core: &mut StepperCore<'_>, beta_p: f64, y: &[f64], x: &mut [f64], same: bool) -> Result<(), SolveError> {
    let n = core.tmp.len();
    core.ns.jac.mul(&y[..n], &mut core.ns.rhs);
    for (b, yc) in core.ns.rhs.iter_mut().zip(&y[n..]) {
        *b = beta_p * (yc - *b);
    }
    core.ns.lambda.fill(0.0);
    if same { core.ns.solve_same(true)? } else { core.ns.solve(true)? }
    x[..n].copy_from_slice(&y[..n]);
    core.ns.add_w_jt(&core.ns.lambda, 1.0 / beta_p, &mut x[..n], &mut core.tmp);
    x[n..].copy_from_slice(&core.ns.lambda);
    Ok(())
}
impl GeneralizedAlpha<'_> {
    /// The Newton correction (Δq, Δλ) into `dx` for the scaled residual `f` at (q, v): the
    /// simplified Newton step P⁻¹(−F̃), refined by GMRES on the exact Jacobian when `full`.
    fn correction(&mut self, q: &[f64], v: &[f64], beta_p: f64, gamma_p: f64, full: bool) -> Result<(), SolveError> {
        self.core.ns.update_jacobian(q);
        for x in self.f.iter_mut() {
            *x = -*x;
        }
        let r = precondition(&mut self.core, beta_p, &self.f, &mut self.dx, false);
        for x in self.f.iter_mut() {
            *x = -*x;
        }
        r?;
        if !full {
            return Ok(());
        }
        let Some(mut g) = self.gmres.take() else { return Ok(()) };
        let r = self.refine(&mut g, q, v, beta_p, gamma_p);
        self.gmres = Some(g);
        r
    }

    /// The directional derivative of F̃ at the iterate along x = (Δq, Δλ), by a forward
    /// difference (Δv = γ′Δq, Δq̈ = β′Δq), into `out`.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_times(
        &mut self,
        g: &mut Gmres,
        q: &[f64],
        v: &[f64],
        beta_p: f64,
        gamma_p: f64,
        x: &[f64],
        out: &mut [f64],
    ) {
        let n = v.len();
        // ε relative to each component's size (positions in m, multipliers in N).
        let rel = x[..n]
            .iter()
            .zip(q)
            .map(|(d, u)| d.abs() / (1.0 + u.abs()))
            .chain(x[n..].iter().zip(&self.lambda).map(|(d, u)| d.abs() / (1.0 + u.abs())))
            .fold(0.0f64, f64::max);
        if rel == 0.0 {
            out.fill(0.0);
            return;
        }
        let eps = f64::EPSILON.sqrt() / rel;
        for i in 0..n {
            g.qp[i] = q[i] + eps * x[i];
            g.vp[i] = v[i] + eps * gamma_p * x[i];
            g.qddp[i] = self.qdd[i] + eps * beta_p * x[i];
        }
        g.qp[n..].copy_from_slice(&q[n..]);
        for (l, (l0, d)) in g.lp.iter_mut().zip(self.lambda.iter().zip(&x[n..])) {
            *l = l0 + eps * d;
        }
        residual(&mut self.core, &mut self.jac_eval, &g.qp, &g.vp, &g.qddp, &g.lp, beta_p, &mut g.fp);
        for ((o, fp), f) in out.iter_mut().zip(&g.fp).zip(&self.f) {
            *o = (fp - f) / eps;
        }
    }

    /// GMRES from `dx` (the preconditioned start) on F̃′ dx = −F̃, right-preconditioned, at most
    /// `krylov` iterations, to a relative residual of 1e-8 (Saad 2003, Alg. 9.5).
    fn refine(&mut self, g: &mut Gmres, q: &[f64], v: &[f64], beta_p: f64, gamma_p: f64) -> Result<(), SolveError> {
        let k = self.opts.krylov;
        let dx = std::mem::take(&mut self.dx);
        let mut w = std::mem::take(&mut g.w);
        self.jacobian_times(g, q, v, beta_p, gamma_p, &dx, &mut w);
        self.dx = dx;
        // r₀ = −F̃ − F̃′ x₀
        let fnorm = norm(&self.f);
        for ((b, wi), fi) in g.basis[0].iter_mut().zip(&w).zip(&self.f) {
            *b = -fi - wi;
        }
        let beta = norm(&g.basis[0]);
        g.w = w;
        if !(beta > 1e-8 * fnorm) {
            return Ok(());
        }
        g.basis[0].iter_mut().for_each(|b| *b /= beta);
        g.g.fill(0.0);
        g.g[0] = beta;
        let mut used = 0;
        for j in 0..k {
            let (mut z, mut w) = (std::mem::take(&mut g.z), std::mem::take(&mut g.w));
            precondition(&mut self.core, beta_p, &g.basis[j], &mut z, true)?;
            self.jacobian_times(g, q, v, beta_p, gamma_p, &z, &mut w);
            g.z = z;
            g.w = w;
            used = j + 1;
            if arnoldi(g, j, k) <= 1e-8 * fnorm {
                break;
            }
        }
        // y from the triangular system, then dx += P⁻¹ (V y).
        for i in (0..used).rev() {
            let s: f64 = (i + 1..used).map(|l| g.hess[l * (k + 1) + i] * g.y[l]).sum();
            g.y[i] = (g.g[i] - s) / g.hess[i * (k + 1) + i];
        }
        g.w.fill(0.0);
        for (yj, vj) in g.y[..used].iter().zip(&g.basis) {
            for (wi, vi) in g.w.iter_mut().zip(vj) {
                *wi += yj * vi;
            }
        }
        precondition(&mut self.core, beta_p, &g.w, &mut g.z, true)?;
        for (d, z) in self.dx.iter_mut().zip(&g.z) {
            *d += z;
        }
        Ok(())
    }
}

/// One Arnoldi step on column j with the new vector in `g.w` (modified Gram–Schmidt), the Givens
/// rotations applied; returns the least-squares residual |g_{j+1}|.
fn arnoldi(g: &mut Gmres, j: usize, k: usize) -> f64 {
    let col = j * (k + 1);
    for i in 0..=j {
        let h: f64 = g.w.iter().zip(&g.basis[i]).map(|(a, b)| a * b).sum();
        g.hess[col + i] = h;
        for (wi, vi) in g.w.iter_mut().zip(&g.basis[i]) {
            *wi -= h * vi;
        }
    }
    let hn = norm(&g.w);
    g.hess[col + j + 1] = hn;
    if j + 1 < g.basis.len() && hn > 0.0 {
        let (next, w) = (&mut g.basis[j + 1], &g.w);
        for (b, wi) in next.iter_mut().zip(w) {
            *b = wi / hn;
        }
    }
    for i in 0..j {
        let (a, b) = (g.hess[col + i], g.hess[col + i + 1]);
        g.hess[col + i] = g.cs[i] * a + g.sn[i] * b;
        g.hess[col + i + 1] = -g.sn[i] * a + g.cs[i] * b;
    }
    let (a, b) = (g.hess[col + j], g.hess[col + j + 1]);
    let d = a.hypot(b);
    (g.cs[j], g.sn[j]) = if d > 0.0 { (a / d, b / d) } else { (1.0, 0.0) };
    g.hess[col + j] = d;
    g.hess[col + j + 1] = 0.0;
    g.g[j + 1] = -g.sn[j] * g.g[j];
    g.g[j] *= g.cs[j];
    g.g[j + 1].abs()
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// Relative Newton corrections below which a correction that stops shrinking is rounding: the
/// iteration has converged as far as the arithmetic allows. The index-3 equations amplify the
/// rounding of C into λ by β′ ~ 1/(β h²) (Bottasso, Bauchau & Cardona 2007): on Andrews' squeezer
/// at h = 1e-6 s λ's corrections stall at 2.4e-8 relative; full Newton's finite-difference
/// products are accurate to about √ε of the residual.
const ROUNDING_FLOOR: f64 = 1e-6;

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
        let n = v.len();
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
            residual(&mut self.core, &mut self.jac_eval, q, v, &self.qdd, &self.lambda, beta_p, &mut self.f);
            if !self.f.iter().all(|x| x.is_finite()) {
                return Err(self.not_converged(it, f64::INFINITY));
            }
            self.correction(q, v, beta_p, gamma_p, full)?;
            for i in 0..n {
                let dq = self.dx[i];
                q[i] += dq;
                v[i] += gamma_p * dq;
                self.qdd[i] += beta_p * dq;
            }
            for (l, d) in self.lambda.iter_mut().zip(&self.dx[n..]) {
                *l += d;
            }
            it += 1;
            // Converged when the correction just applied is within tol of the iterate's size, or
            // when the corrections stopped shrinking below the rounding floor.
            let dq = inf_norm(&self.dx[..n]) / (1.0 + inf_norm(&q[..n]));
            let dl = inf_norm(&self.dx[n..]) / (1.0 + inf_norm(&self.lambda));
            let size = dq.max(dl);
            if size <= self.opts.tol || (size <= ROUNDING_FLOOR && size >= 0.5 * previous) {
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
