//! `midpoint` — the constrained implicit midpoint rule with the constraint force along the
//! midpoint gradient, solved by Newton's method with geometric stiffness: an energy-conserving,
//! symmetric, rigid step for long chains at large steps.
//!
//! One step of length h from (qₙ, vₙ), with the midpoint q_m = qₙ ⊕ ½(q ⊖ qₙ) of the unknown
//! end point q = qₙ₊₁ and v_m = (q ⊖ qₙ)/h:
//!   M (q ⊖ qₙ − h vₙ) = (h²/2) Q(q_m, v_m) + J(q_m)ᵀ Λ,    C(q) = 0,
//!   vₙ₊₁ = 2 (q ⊖ qₙ)/h − vₙ,      λ = 2Λ/h² (force units).
//! Eliminating v gives the implicit midpoint rule, M(vₙ₊₁ − vₙ) = h Q_m + h J(q_m)ᵀλ,
//! q ⊖ qₙ = (h/2)(vₙ + vₙ₊₁), with the constraint enforced at the step's end. The constraint force
//! is taken along J at the midpoint: the discrete derivative of the energy-momentum methods
//! (Gonzalez 1999, "Mechanical systems subject to holonomic constraints: differential-algebraic
//! formulations and conservative integration", Physica D 132, §4; Simo & Tarnow 1992). For a
//! distance constraint J(q_m) is parallel to the midpoint of the two link vectors, so
//! J(q_m)(q − qₙ) = (|dₙ₊₁|² − |dₙ|²)/(2|d_m|) = 0 once both ends hold the length, and for a
//! linear constraint (pin, line) it is exact: with such constraints on particles and constant forces
//! (gravity) the constraint force does no work over a step and the energy is conserved to the
//! Newton tolerance, at every step size — no drift and no numerical damping.
//!
//! Why not RATTLE at large steps: RATTLE (and every variational integrator that enforces the
//! constraints at the nodes, Leyendecker, Marsden & Ortiz 2008) applies the constraint force along
//! J(qₙ), a known direction, so the transverse restoring force of a link under tension T is explicit
//! — Störmer–Verlet on a spring of stiffness T/ℓ, stable only while h ω < 2 with ω up to
//! 2√(T/(m ℓ)). A hanging 1000-link chain of 0.1 m links of 1 kg has T ≈ 9.8 kN at the pin:
//! h ω ≈ 10 at h = 1/60 s. Here the direction is implicit (at the midpoint), which is stable at any
//! h for that mode: the rule conserves the energy, and the midpoint rule maps a mode's rotation
//! rate ω to 2 atan(h ω/2)/h, so a link turns by less than π per step and J(q_m) is defined.
//! What it gives up: the rule is symmetric and of order 2 but not symplectic (energy is conserved
//! instead), and J v = 0 holds at the midpoint, J(q_m) v_m = 0, not at the step's end.
//!
//! Newton's method on the residuals r = M(q ⊖ qₙ − h vₙ) − (h²/2)Q_m − J_mᵀΛ and C(q): with the
//! geometric stiffness of the midpoint direction, ∂(−J_mᵀΛ)/∂q = ½ K_g(q_m, Λ) = ½ Σ s_k g_k g_kᵀ
//! (the factor ½ is ∂q_m/∂q), the step is the normal-matrix solve of `xpbd_newton` with
//! B = [J_m; Gᵀ] and the stiffness rows' diagonal 2/s_k:
//!   (B W Bᵀ + diag(0, 2 S⁻¹)) [ΔΛ; ν] = B u − [C(q); 0],   u = W r,   Δq = W Bᵀ [ΔΛ; ν] − u.
//! The exact Newton matrix has J(q) (the end point's Jacobian) in the constraint rows and J(q_m)
//! in the columns: it is not symmetric. Its symmetric part at the midpoint, P (J(q_m) in both,
//! compression terms with |s|), is factored by the cell's solver and preconditions GMRES on the
//! exact matrix (Saad & Schultz 1986, right preconditioning, at most `krylov` iterations, to a
//! relative residual of 1e-4): each GMRES iteration costs one solve with P's factorization and one
//! product with the exact matrix, and Newton converges quadratically. With `krylov: 0` the step
//! P⁻¹b alone is taken (a quasi-Newton iteration whose rate is about the links' half-turn per step:
//! it stalls when the end of a long chain whips). With an iterative cell solver its solve is the
//! preconditioner: an iterate that misses the solver's tolerance is kept (and counted with its
//! residual), since Newton's own residuals decide convergence.
//! DEVIATION: ∂Q/∂q is left out of the Newton matrix (exact for gravity); at the solution both
//! residuals vanish to `tol` whatever the matrix.
//! Globalization: a backtracking line search on the merit ‖C‖² + ‖W r‖² (halving up to 8 times).
//! Warm start: Λ from the previous step, and q = qₙ ⊕ (h vₙ + (h²/2) W Q(qₙ, vₙ) + W J_mᵀΛ) with
//! the previous step's midpoint Jacobian (RATTLE's first line with the last constraint force).
//! Splits (`splits` > 0): a step whose Newton iteration stalls (residual not halved by an iteration
//! past the second, or 15 iterations) is redone as two half steps, recursively; near a link turning
//! by π in one step Newton is drawn toward the flipped configuration, where J(q_m) is undefined.
//! The next step starts one level coarser than the finest the last one needed. Abandoned attempts
//! are reported as rejected steps; every attempt and substep is in the cost counters.
//! With rigid-3D bodies ⊕ and ⊖ are the exponential map and its inverse, and the rule is the
//! Lie-group midpoint rule (symmetric, order 2; its energy is not exactly conserved).

use super::Dynamics;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams, SystemKind};
use super::stepper_core::{EndMultipliers, StepperCore};
use super::{NotApplicable, Stepper};
use super::krylov::{Krylov, gmres};
use crate::linsolve::{LinearSolver, SolveError};
use crate::normal_solve::NormalSolve;
use crate::params::Params;
use crate::scene::Scene;
use crate::sparse::BlockJacobian;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A geometric-stiffness term is kept under the policy of `xpbd_newton` (tension only, and above
/// rounding): s gᵀ W g ≥ 1e-10.
fn keep_stiffness(s: f64, g_w_g: f64) -> bool {
    s * g_w_g >= 1e-10
}

/// With GMRES on the exact matrix every term above rounding is kept, compression (s < 0) too: the
/// exact matrix has its 2/s, the symmetric preconditioner 2/|s| (positive definite).
fn keep_any_stiffness(s: f64, g_w_g: f64) -> bool {
    s.abs() * g_w_g >= 1e-10
}

/// The diagonal 2/s of a stiffness row (of the exact matrix, or with |s| of the preconditioner);
/// 1 for a zeroed row (s = 0: its unknown is then 0).
fn stiffness_diagonal(s: f64) -> f64 {
    if s != 0.0 && (2.0 / s).is_finite() { 2.0 / s } else { 1.0 }
}

/// Newton iterations a step is given before it is split in halves (with `splits` > 0): quadratic
/// convergence from the warm start takes 3–6; an iteration still running past this is being drawn
/// to a link turning by π in one step, where J(q_m) is undefined.
const ATTEMPT_ITER: usize = 15;

/// Line-search halvings before a step is taken as it is.
const MAX_HALVINGS: usize = 8;

/// Options of the midpoint stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MidpointOptions {
    /// Newton stops when |C(q)|inf <= tol and |W r|inf <= tol, after at least one iteration
    #[schemars(extend("unit" = "units of C and of q", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// Newton iterations per step before the run fails
    #[schemars(range(min = 1, max = 100_000))]
    pub max_iter: usize,
    /// times a step may be halved, recursively, when its Newton iteration stalls (0: never; it then fails at max_iter)
    #[schemars(range(min = 0, max = 20))]
    pub splits: usize,
    /// GMRES iterations per Newton step on the exact matrix, preconditioned by the solver on its symmetric part (0: that part alone)
    #[schemars(range(min = 0, max = 200))]
    pub krylov: usize,
    /// Tikhonov term added to the constraint rows' diagonal of the Newton matrix (0: none); makes redundant rows solvable; Newton still iterates to tol
    #[schemars(range(min = 0, max = 1e100), extend("unit" = "units of J W Jᵀ"))]
    pub reg: f64,
}

impl Default for MidpointOptions {
    fn default() -> Self {
        MidpointOptions { tol: 1e-10, max_iter: 50, splits: 0, krylov: 20, reg: 0.0 }
    }
}

impl Params for MidpointOptions {}

impl FormulationParams for MidpointOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Midpoint::new(scene, *self, solver)?)))
    }

    /// GMRES's k + 1 basis vectors and 6 more of the stiffness layout's rows, 8 state-sized
    /// vectors, the (k + 1) × k Hessenberg matrix, and (q, v, Λ) saved at each split depth.
    fn workspace_bytes(&self, rows: usize, state: usize) -> u64 {
        let (k, m, st) = (self.krylov as u64, rows as u64, state as u64);
        8 * ((k + 7) * m + 8 * st + (k + 1) * k + self.splits as u64 * (st + m))
    }
}

/// The registry entry of `midpoint`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<MidpointOptions>(
    "midpoint",
    "constrained implicit midpoint, force along J at the midpoint (Gonzalez 1999): symmetric, rigid to tol, energy-conserving for distance and linear constraints under gravity at any h; Newton with geometric stiffness",
    FormulationKind::Stepper,
)
.solving(SystemKind::NormalWithStiffness)
.with_order(2)
.conservative();

/// The midpoint stepper on one scene, with its workspaces.
pub struct Midpoint<'a> {
    core: StepperCore<'a>,
    opts: MidpointOptions,
    work: Work,
    krylov: Krylov,
    scratch: Scratch,
    /// (q, v, Λ) saved at each split depth.
    saved: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)>,
    /// Step attempts abandoned for two half steps so far.
    splits_taken: u64,
    /// The split depth the last step needed.
    depth_hint: usize,
    /// The deepest split of the current step.
    deepest: usize,
    /// Step length of the last step \[s\] (for Q̂).
    last_h: f64,
    /// λ at each (sub)step's end to second order, extrapolated from the midpoint values.
    ends: EndMultipliers,
}

/// Workspace of one step (rows in the layout of
/// [`crate::system::System::jacobian_layout_with_stiffness_rows`] unless said otherwise).
struct Work {
    /// The Tikhonov term on the constraint rows (the option `reg`).
    reg: f64,
    /// qₙ (length nq).
    q_n: Vec<f64>,
    /// vₙ (length n).
    v_n: Vec<f64>,
    /// The midpoint q_m (length nq).
    q_m: Vec<f64>,
    /// The iterate before the last Newton step, for the line search (length nq).
    q_old: Vec<f64>,
    /// Multipliers before the last Newton step (length m).
    lambda_old: Vec<f64>,
    /// The Newton step in q (velocity space, length n).
    dq: Vec<f64>,
    /// The Newton step in the multipliers (length m).
    dlambda: Vec<f64>,
    /// u = W r (length n).
    u: Vec<f64>,
    /// q ⊖ qₙ (length n).
    d: Vec<f64>,
    /// Stiffness weights s_k (0 on constraint rows).
    s: Vec<f64>,
    /// Whether each row is a stiffness row.
    stiffness_row: Vec<bool>,
    /// J(q) at the end point, in the system's own row layout.
    jac_end: BlockJacobian,
    /// C(q) in the system's own row layout.
    c_end: Vec<f64>,
    /// Row of the stiffness layout holding each of the system's constraint rows.
    row_map: Vec<usize>,
}

/// Scratch of the product with the exact matrix: the end point's rows (length of the system's rows)
/// and a state-sized vector.
struct Scratch {
    tmp_m: Vec<f64>,
    tmp_n: Vec<f64>,
}

impl<'a> Midpoint<'a> {
    /// Sets up the stepper for `scene`.
    pub fn new(scene: &'a Scene, opts: MidpointOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let sys = &scene.system;
        let (nq, n) = (sys.nq(), sys.ndof());
        let (core, stiffness_row) = StepperCore::with_stiffness_rows(scene, solver)?;
        let m = stiffness_row.len();
        // the system's constraint rows, in the stiffness layout's order
        let row_map: Vec<usize> = (0..m).filter(|&r| !stiffness_row[r]).collect();
        let work = Work {
            reg: opts.reg,
            q_n: vec![0.0; nq],
            v_n: vec![0.0; n],
            q_m: vec![0.0; nq],
            q_old: vec![0.0; nq],
            lambda_old: vec![0.0; m],
            dq: vec![0.0; n],
            dlambda: vec![0.0; m],
            u: vec![0.0; n],
            d: vec![0.0; n],
            s: vec![0.0; m],
            stiffness_row,
            jac_end: sys.jacobian_layout(),
            c_end: vec![0.0; sys.nrows()],
            row_map,
        };
        let krylov = Krylov::new(opts.krylov, m);
        let scratch = Scratch { tmp_m: vec![0.0; sys.nrows()], tmp_n: vec![0.0; n] };
        let saved = vec![(vec![0.0; nq], vec![0.0; n], vec![0.0; m]); opts.splits];
        Ok(Midpoint { core, opts, work, krylov, scratch, saved, splits_taken: 0, depth_hint: 0, deepest: 0, last_h: 1.0, ends: EndMultipliers::new(sys.nrows()) })
    }

    /// Evaluates at the iterate q (multipliers in `accumulated`): the midpoint, C(q) and J(q) (into
    /// `c_end`, `jac_end`, and C into the core's `c` on the constraint rows), J(q_m) and the
    /// stiffness factor into the core's Jacobian, and u = W r. Returns (max |C|, max |u|).
    fn evaluate(&mut self, h: f64, q: &[f64]) -> (f64, f64) {
        let (work, core) = (&mut self.work, &mut self.core);
        let sys = core.ns.system;
        let w = sys.inv_mass();
        // q_m = qₙ ⊕ ½ (q ⊖ qₙ); v_m = (q ⊖ qₙ)/h
        sys.difference(&work.q_n, q, 1.0, &mut work.d);
        work.q_m.copy_from_slice(&work.q_n);
        sys.advance(&mut work.q_m, &work.d, 0.5);
        for (t, d) in core.tmp.iter_mut().zip(&work.d) {
            *t = d / h;
        }
        let v_m = std::mem::take(&mut core.tmp);
        core.eval_forces(&work.q_m, &v_m);
        core.tmp = v_m;
        // J(q_m) and K_g(q_m, Λ); C at q_m is overwritten below by C(q)
        let keep = if self.opts.krylov > 0 { keep_any_stiffness } else { keep_stiffness };
        sys.eval_with_stiffness(&work.q_m, &core.accumulated, &mut core.c, &mut work.s, &mut core.ns.jac, keep, None);
        sys.eval_constraints_and_jacobian(q, &mut work.c_end, &mut work.jac_end);
        let mut c_max: f64 = 0.0;
        for (&r, c) in work.row_map.iter().zip(&work.c_end) {
            core.c[r] = *c;
            c_max = c_max.max(c.abs());
        }
        // u = W r = (q ⊖ qₙ) − h vₙ − (h²/2) W Q_m − W J_mᵀ Λ
        core.ns.jac.mul_t(&core.accumulated, &mut core.tmp);
        let mut u_max: f64 = 0.0;
        let parts = work.d.iter().zip(&work.v_n).zip(w.iter().zip(core.applied.iter().zip(&core.tmp)));
        for (ui, ((d, v0), (wi, (qa, jl)))) in work.u.iter_mut().zip(parts) {
            *ui = d - h * v0 - wi * (0.5 * h * h * qa + jl);
            u_max = u_max.max(ui.abs());
        }
        (c_max, u_max)
    }

    /// The merit ‖C‖² + ‖u‖² of the last evaluation.
    fn merit(&self) -> f64 {
        let c2: f64 = self.work.c_end.iter().map(|c| c * c).sum();
        c2 + self.work.u.iter().map(|u| u * u).sum::<f64>()
    }

    /// The Newton step (Δq, ΔΛ) at the last evaluation, into `dq` and `dlambda`.
    fn newton_direction(&mut self) -> Result<(), SolveError> {
        let reg = self.work.reg;
        let (work, core) = (&mut self.work, &mut self.core);
        let w = core.ns.system.inv_mass();
        for ((r, s), &stiff) in core.ns.reg_rows.iter_mut().zip(&work.s).zip(&work.stiffness_row) {
            // ½ K_g: the stiffness row's diagonal is 2/s (with |s| in the symmetric part)
            *r = if stiff { stiffness_diagonal(s.abs()) } else { reg };
        }
        // b = B u − [C; 0]  (C = 0 on stiffness rows), B = [J(q_m); Gᵀ] (the symmetric part's)
        core.ns.jac.mul(&work.u, &mut core.ns.rhs);
        for ((r, c), &stiff) in core.ns.rhs.iter_mut().zip(&core.c).zip(&work.stiffness_row) {
            if !stiff {
                *r -= c;
            }
        }
        if self.opts.krylov > 0 {
            // the exact matrix's constraint rows: J(q) Δq = −C, i.e. b = J(q) u − C there
            work.jac_end.mul(&work.u, &mut self.scratch.tmp_m);
            for ((&r, ju), c) in work.row_map.iter().zip(&self.scratch.tmp_m).zip(&work.c_end) {
                core.ns.rhs[r] = ju - c;
            }
        }
        // z = P⁻¹ b with a fresh factorization of the symmetric part
        core.ns.lambda.fill(0.0);
        core.ns.solve_preconditioner(false)?;
        if self.opts.krylov > 0 {
            let (work, sc) = (&*work, &mut self.scratch);
            gmres(&mut core.ns, &mut self.krylov, self.opts.krylov, &mut |ns, x, y| apply_exact(ns, work, sc, x, y))?;
        }
        // Δq = W Bᵀ z − u;  ΔΛ = z on constraint rows
        core.ns.jac.mul_t(&core.ns.lambda, &mut work.dq);
        for ((dq, u), wi) in work.dq.iter_mut().zip(&work.u).zip(w) {
            *dq = wi * *dq - u;
        }
        for ((dl, z), &stiff) in work.dlambda.iter_mut().zip(&core.ns.lambda).zip(&work.stiffness_row) {
            *dl = if stiff { 0.0 } else { *z };
        }
        Ok(())
    }
}

/// y = A x with the exact Newton matrix A = B_end W B_mᵀ + diag(reg I, 2S⁻¹), B_m = [J(q_m); Gᵀ]
/// (the solve's Jacobian) and B_end the same with J(q) on the constraint rows.
fn apply_exact(ns: &NormalSolve<'_>, work: &Work, sc: &mut Scratch, x: &[f64], y: &mut [f64]) {
    let w = ns.system.inv_mass();
    ns.jac.mul_t(x, &mut sc.tmp_n);
    for (t, wi) in sc.tmp_n.iter_mut().zip(w) {
        *t *= wi;
    }
    ns.jac.mul(&sc.tmp_n, y);
    work.jac_end.mul(&sc.tmp_n, &mut sc.tmp_m);
    for (&r, v) in work.row_map.iter().zip(&sc.tmp_m) {
        y[r] = *v;
    }
    for (((yi, xi), s), &stiff) in y.iter_mut().zip(x).zip(&work.s).zip(&work.stiffness_row) {
        if stiff {
            *yi += stiffness_diagonal(*s) * xi;
        } else if work.reg != 0.0 {
            *yi += work.reg * xi;
        }
    }
}

impl Midpoint<'_> {
    /// One midpoint step of length `h` by at most `max_iter` Newton iterations.
    /// With `fail_fast` (a split is possible) it also gives up once an iteration past the second
    /// reduces the residual by less than half: Newton is then not in its quadratic regime.
    fn midpoint_step(
        &mut self,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        max_iter: usize,
        fail_fast: bool,
    ) -> Result<(), SolveError> {
        self.last_h = h;
        let sys = self.core.ns.system;
        self.work.q_n.copy_from_slice(q);
        self.work.v_n.copy_from_slice(v);
        // warm start: Λ from the previous step and q = qₙ ⊕ (h vₙ + (h²/2) W Q(qₙ, vₙ) + W J_mᵀΛ)
        // with the previous step's midpoint Jacobian (still in place): the last constraint force
        // bends the prediction, as in RATTLE's first line
        self.core.integrate_velocities(q, v, 0.5 * h);
        self.core.ns.add_w_jt(&self.core.accumulated, 1.0 / h, v, &mut self.core.tmp);
        sys.advance(q, v, h);
        let mut it = 0;
        let (mut c_max, mut u_max) = self.evaluate(h, q);
        let mut last_res = f64::INFINITY;
        loop {
            // at least one Newton iteration: at small h the warm start meets tol on positions
            // while Λ (= h²λ/2) is still the previous step's, and λ would be carried unchanged
            if it >= 1 && c_max <= self.opts.tol && u_max <= self.opts.tol {
                break;
            }
            let res = c_max.max(u_max);
            let stalled = fail_fast && it >= 2 && res > 0.5 * last_res;
            last_res = res;
            if it >= max_iter || !res.is_finite() || stalled {
                return Err(SolveError::NotConverged {
                    solver: "midpoint newton",
                    iterations: it,
                    residual: res,
                    tol: self.opts.tol,
                });
            }
            self.newton_direction()?;
            let phi0 = self.merit();
            self.work.q_old.copy_from_slice(q);
            self.work.lambda_old.copy_from_slice(&self.core.accumulated);
            // backtracking: the full step first, then halves while the merit does not decrease
            let mut alpha = 1.0;
            for halving in 0..=MAX_HALVINGS {
                q.copy_from_slice(&self.work.q_old);
                sys.advance(q, &self.work.dq, alpha);
                for ((l, l0), dl) in self.core.accumulated.iter_mut().zip(&self.work.lambda_old).zip(&self.work.dlambda) {
                    *l = l0 + alpha * dl;
                }
                (c_max, u_max) = self.evaluate(h, q);
                let phi = self.merit();
                if phi < phi0 || halving == MAX_HALVINGS || !phi0.is_finite() {
                    break;
                }
                alpha *= 0.5;
            }
            it += 1;
        }
        // vₙ₊₁ = 2 (q ⊖ qₙ)/h − vₙ
        for ((vi, d), v0) in v.iter_mut().zip(&self.work.d).zip(&self.work.v_n) {
            *vi = 2.0 * d / h - v0;
        }
        let s = 2.0 / (h * h);
        let acc = &self.core.accumulated;
        self.ends.after_midpoint_step(h, self.work.row_map.iter().map(|&r| s * acc[r]));
        Ok(())
    }

    /// A step of `h` split in two halves (each possibly split again, down to depth `splits`) when
    /// its Newton iteration does not converge within [`ATTEMPT_ITER`] iterations or stalls.
    fn split_step(&mut self, h: f64, q: &mut [f64], v: &mut [f64], depth: usize) -> Result<(), SolveError> {
        if depth == self.opts.splits {
            return self.midpoint_step(h, q, v, self.opts.max_iter, false);
        }
        let save = &mut self.saved[depth];
        save.0.copy_from_slice(q);
        save.1.copy_from_slice(v);
        save.2.copy_from_slice(&self.core.accumulated);
        if self.midpoint_step(h, q, v, ATTEMPT_ITER.min(self.opts.max_iter), true).is_ok() {
            return Ok(());
        }
        let save = &self.saved[depth];
        q.copy_from_slice(&save.0);
        v.copy_from_slice(&save.1);
        // Λ scales as h²: the warm start of a half step is a quarter
        for (l, l0) in self.core.accumulated.iter_mut().zip(&save.2) {
            *l = 0.25 * l0;
        }
        self.splits_taken += 1;
        self.deepest = self.deepest.max(depth + 1);
        self.split_step(0.5 * h, q, v, depth + 1)?;
        self.split_step(0.5 * h, q, v, depth + 1)
    }
}

impl Stepper for Midpoint<'_> {
    /// A step of h as 2^d equal substeps, d one level coarser than the finest the last step
    /// needed (each substep split further where its Newton stalls): after a whip the step goes
    /// back to whole steps one level per step, and never pays for more than one abandoned attempt
    /// per level it tries.
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        let start = self.depth_hint.saturating_sub(1);
        self.deepest = start;
        let n = 1usize << start;
        for _ in 0..n {
            self.split_step(h / n as f64, q, v, start)?;
        }
        self.depth_hint = self.deepest;
        Ok(())
    }

    /// Step attempts abandoned for two half steps.
    fn rejected_steps(&self) -> u64 {
        self.splits_taken
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    /// Q̂ = J(q_m)ᵀ λ = J(q_m)ᵀ Λ · 2/h² of the last step (J of the last evaluation is in place; its
    /// stiffness rows carry Λ = 0).
    fn constraint_force(&mut self, out: &mut [f64]) {
        self.core.accumulated_force(2.0 / (self.last_h * self.last_h), out);
    }

    /// λ(tₙ₊₁) extrapolated from the last two midpoint values (see
    /// `EndMultipliers::after_midpoint_step`).
    fn end_multipliers(&self) -> Option<&[f64]> {
        self.ends.get()
    }
}
