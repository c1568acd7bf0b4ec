//! `radau5` — the three-stage Radau IIA method of order 5 with error control: an implicit,
//! L-stable, stiffly accurate collocation method for stiff problems (Hairer & Wanner, Solving
//! ODEs II, §IV.8, and their code RADAU5, whose algorithm this follows step for step).
//!
//! The second-order ODE is advanced as the first-order system y = (x, ẋ), f(y) = (G(x) ẋ,
//! a(x, ẋ)), as in [`super::runge_kutta`]; unit quaternions are renormalized after every
//! accepted step. One step solves the collocation equations for the stage increments
//! Zᵢ = y(t₀ + cᵢ h) − y₀, Z = h (A ⊗ I) F(Z), by simplified Newton iterations with the
//! Jacobian ∂f/∂y frozen at y₀ and the iteration matrix transformed by the eigenvectors T of A⁻¹
//! (Hairer II, (IV.8.15)–(IV.8.17)): one real system (γ/h − J) and one complex system
//! ((α + iβ)/h − J) per iteration instead of one of size 3n.
//!
//! - **Jacobian**: by forward differences, one evaluation of f per column (RADAU5's increment
//!   √(ε · max(10⁻⁵, |yⱼ|))); recomputed only when the last Newton iteration contracted slower
//!   than θ = 0.001 or a step was rejected with an old one.
//! - **Linear systems**: dense LU with partial pivoting of the two n × n iteration matrices
//!   (n = dim x + dim ẋ), real and complex, factored in place in matrices allocated once per run
//!   and refactored only when h changes. The ODE of the `force` and `lagrangian` formulations has
//!   a dense Jacobian (f holds the inverse of the multiplier system), so the cell's linear solver
//!   serves each evaluation of f and these dense factors serve Newton: n² memory and n³/3 work
//!   per factorization, for mechanisms of a few hundred coordinates, not for large chains.
//! - **Error estimate**: the embedded order-3 formula filtered by (I − γ₀ h J)⁻¹, evaluated a
//!   second time at y₀ + err after a rejection or on the first step (Hairer II, (IV.8.19)–(8.20)).
//! - **Step size**: h_new = h / clamp(err^¼ / fac, 1/8, 5), fac = min(0.9, 0.9 (2 k_max + 1) /
//!   (k + 2 k_max)) with k Newton iterations, k_max = 7, and Gustafsson's predictive controller;
//!   h is kept (no refactorization) when the ratio lies in [1, 1.2] and J is still good.
//! - **Tolerances**: as RADAU5, the user's rtol and atol are used as rtol′ = 0.1 rtol^(2/3),
//!   atol′ = rtol′ atol / rtol, so that the order-3 estimate yields errors proportional to rtol.
//! - **Failures**: a Newton iteration that diverges or will not converge within 7 iterations, a
//!   singular iteration matrix, or an evaluation of f that fails is a rejected step, retried at
//!   half the step, down to the step-size underflow bound.
//! - **Dense output**: the collocation polynomial of the last step (order 3 between steps).
//!
//! On a DAE ([`super::ConstrainedDae`], the `dae` formulation) y = (x, ẋ, λ) and the method is
//! RADAU5 with the mass matrix M = diag(I, I, 0): the iteration matrices are γ/h M − J and
//! (α + iβ)/h M − J, the Newton right-hand sides are G − Λ M W/h, the error estimate is
//! (γ/h M − J)⁻¹ (f(y₀) + M Σ eᵢZᵢ/h), and the error weights of index-2 components are divided
//! by h and of index-3 ones by h² (Hairer II, §VII.4 and RADAU5's NIND2, NIND3). Its
//! factorization refuses only exactly zero pivots (RADAU5's DEC; the matrix is graded), and its
//! quaternions are not renormalized in the state (that would move q off C = 0), only in the
//! outputs.

mod coefficients;
mod driver;
#[cfg(test)]
mod tests;

pub use coefficients::{Coefficients, butcher_a};

use super::registry::{IntegratorEntry, Make};
use super::{IntegrateError, Integrator, IntegratorStats, SecondOrderOde};
use crate::linsolve::dense_lu::InPlaceLu;
use nalgebra::{Complex, DMatrix, Vector3};

/// Newton iterations per step at most (RADAU5's NIT).
const NIT: usize = 7;
/// Safety factor of the step-size controller.
const SAFE: f64 = 0.9;
/// Newton contraction below which the Jacobian is kept for the next step (RADAU5's THET).
const THET: f64 = 0.001;
/// Bounds of h_new / h: at most 8 times larger, at least 5 times smaller.
const FAC_GROW: f64 = 8.0;
const FAC_SHRINK: f64 = 5.0;
/// Step ratios in [1, 1.2] keep h and the factorizations (RADAU5's QUOT1, QUOT2).
const KEEP_RATIO: (f64, f64) = (1.0, 1.2);
/// The first step size tried \[s\] (RADAU5's default).
const FIRST_STEP: f64 = 1e-6;

/// How one attempted step ended.
enum Attempt {
    /// Accepted, with the next step size \[s\].
    Accepted { h_new: f64 },
    /// Rejected (error too large, Newton failure, singular matrix or failed evaluation), with the
    /// step to retry and, when an evaluation failed, its error.
    Rejected { h_new: f64, failure: Option<IntegrateError> },
}

/// The Radau IIA order-5 integrator with its workspaces.
#[derive(Debug)]
pub struct Radau5 {
    /// The user's tolerances, and those the method uses (RADAU5's transformation).
    rtol: f64,
    atol: f64,
    tr: f64,
    ta: f64,
    k: Coefficients,
    /// Position coordinates d and differential components nd = d + dim ẋ; a DAE's multipliers
    /// follow them in y, with the form's index (0: an ODE, no multipliers).
    d: usize,
    nd: usize,
    index: u32,
    y0: Vec<f64>,
    f0: Vec<f64>,
    f0_valid: bool,
    /// Stage increments Z and their transformed values W = T⁻¹ Z.
    z: [Vec<f64>; 3],
    w: [Vec<f64>; 3],
    /// Stage values f(y₀ + Zᵢ).
    fz: [Vec<f64>; 3],
    tmp: Vec<f64>,
    tmp2: Vec<f64>,
    scal: Vec<f64>,
    jac: DMatrix<f64>,
    e1: InPlaceLu<f64>,
    e2: InPlaceLu<Complex<f64>>,
    /// Whether `jac` is ∂f/∂y at the current y₀ (fresh) or may be reused (valid).
    jac_fresh: bool,
    jac_valid: bool,
    /// The step the factors are for (0: none).
    factored_h: f64,
    h: f64,
    first: bool,
    last_rejected: bool,
    /// Gustafsson's controller: the last accepted step and its error.
    hacc: f64,
    erracc: f64,
    faccon: f64,
    theta: f64,
    /// The last accepted step's collocation polynomial, in Newton form about its end, and its
    /// length \[s\] (0: none).
    cont: [Vec<f64>; 4],
    dense_h: f64,
    /// A fixed step \[s\] instead of error control (order measurements).
    fixed: Option<f64>,
    stats: IntegratorStats,
}

impl Radau5 {
    /// Radau IIA 5 with relative and absolute tolerances `rtol`, `atol` (as RADAU5's RTOL, ATOL).
    pub fn new(rtol: f64, atol: f64) -> Self {
        let tr = 0.1 * rtol.powf(2.0 / 3.0);
        let ta = tr * atol / rtol;
        Radau5 {
            rtol,
            atol,
            tr,
            ta,
            k: Coefficients::new(),
            d: 0,
            nd: 0,
            index: 0,
            y0: vec![],
            f0: vec![],
            f0_valid: false,
            z: Default::default(),
            w: Default::default(),
            fz: Default::default(),
            tmp: vec![],
            tmp2: vec![],
            scal: vec![],
            jac: DMatrix::zeros(0, 0),
            e1: InPlaceLu::new(0),
            e2: InPlaceLu::new(0),
            jac_fresh: false,
            jac_valid: false,
            factored_h: 0.0,
            h: 0.0,
            first: true,
            last_rejected: false,
            hacc: 0.0,
            erracc: 1e-2,
            faccon: 1.0,
            theta: THET,
            cont: Default::default(),
            dense_h: 0.0,
            fixed: None,
            stats: IntegratorStats::default(),
        }
    }

    /// Radau IIA 5 with the constant step `h` \[s\] and no error control, Newton converged to
    /// about 10⁻¹⁵ relative: for measuring the method's order. A step whose Newton iteration
    /// fails ends the run ([`IntegrateError::NoConvergence`]); it is not retried shorter.
    pub fn with_fixed_step(h: f64) -> Self {
        Radau5 { tr: 1e-14, ta: 1e-14, fixed: Some(h), ..Self::new(1e-14, 1e-14) }
    }

    /// Allocates the workspace for n components of y (once per run; again only when a DAE's
    /// multipliers join on the first step).
    fn allocate(&mut self, n: usize) {
        self.y0 = vec![0.0; n];
        self.f0 = vec![0.0; n];
        self.z = std::array::from_fn(|_| vec![0.0; n]);
        self.w = std::array::from_fn(|_| vec![0.0; n]);
        self.fz = std::array::from_fn(|_| vec![0.0; n]);
        self.cont = std::array::from_fn(|_| vec![0.0; n]);
        self.tmp = vec![0.0; n];
        self.tmp2 = vec![0.0; n];
        self.scal = vec![0.0; n];
        self.jac = DMatrix::zeros(n, n);
        self.e1 = InPlaceLu::new(n);
        self.e2 = InPlaceLu::new(n);
        self.reset();
    }

    /// The tolerances as given.
    pub fn tolerances(&self) -> (f64, f64) {
        (self.rtol, self.atol)
    }

    /// f(y) = (G(x) ẋ, a(x, ẋ)) into `out`; for a DAE (y longer than its `nd` differential
    /// components) F(y) = (G(x) ẋ, W (Q + Jᵀλ), C or J ẋ) ([`crate::integrator::ConstrainedDae`]).
    fn f(
        ode: &mut dyn SecondOrderOde,
        (d, nd): (usize, usize),
        y: &[f64],
        out: &mut [f64],
        stats: &mut IntegratorStats,
    ) -> Result<(), IntegrateError> {
        let (x, rest) = y.split_at(d);
        let (ox, orest) = out.split_at_mut(d);
        if y.len() > nd {
            let ((xd, lambda), (oa, oc)) = (rest.split_at(nd - d), orest.split_at_mut(nd - d));
            ode.position_rate(x, xd, ox);
            stats.rhs_evals += 1;
            ode.dae().expect("a DAE's multipliers in y").rhs(x, xd, lambda, oa, oc);
            return Ok(());
        }
        ode.position_rate(x, rest, ox);
        stats.rhs_evals += 1;
        ode.accel(x, rest, orest)?;
        Ok(())
    }

    /// The error weights at step h: atol′ + rtol′ |y₀ᵢ|, and for a DAE divided by h for the
    /// index-2 components and by h² for the index-3 ones (RADAU5's scaling of higher-index
    /// variables, whose local errors are larger by those factors; Hairer II, §VII.8).
    fn scale(&mut self, h: f64) {
        for (s, y) in self.scal.iter_mut().zip(&self.y0) {
            *s = self.ta + self.tr * y.abs();
        }
        let (d, nd) = (self.d, self.nd);
        let (index2, index3) = match self.index {
            3 => (d..nd, nd..self.scal.len()),
            2 => (nd..self.scal.len(), 0..0),
            _ => (0..0, 0..0),
        };
        self.scal[index2].iter_mut().for_each(|s| *s /= h);
        self.scal[index3].iter_mut().for_each(|s| *s /= h * h);
    }

    /// ∂f/∂y at y₀ by forward differences (one evaluation per column).
    fn jacobian(&mut self, ode: &mut dyn SecondOrderOde) -> Result<(), IntegrateError> {
        let n = self.y0.len();
        for j in 0..n {
            let yj = self.y0[j];
            let delta = (f64::EPSILON * yj.abs().max(1e-5)).sqrt();
            self.tmp.copy_from_slice(&self.y0);
            self.tmp[j] = yj + delta;
            Self::f(ode, (self.d, self.nd), &self.tmp, &mut self.tmp2, &mut self.stats)?;
            for i in 0..n {
                self.jac[(i, j)] = (self.tmp2[i] - self.f0[i]) / delta;
            }
        }
        self.stats.jacobians += 1;
        self.factored_h = 0.0; // the factors are of the old J
        self.jac_fresh = true;
        self.jac_valid = true;
        Ok(())
    }

    /// Factors γ/h M − J and (α + iβ)/h M − J (M = I for an ODE, diag(I, 0) for a DAE); false
    /// when either is singular.
    fn factor(&mut self, h: f64) -> bool {
        let n = self.y0.len();
        let (fac1, alphn, betan) = (self.k.gamma / h, self.k.alpha / h, self.k.beta / h);
        for j in 0..n {
            for i in 0..n {
                let jij = self.jac[(i, j)];
                let diag = i == j && i < self.nd;
                self.e1.a[(i, j)] = if diag { fac1 - jij } else { -jij };
                self.e2.a[(i, j)] = if diag { Complex::new(alphn - jij, betan) } else { Complex::new(-jij, 0.0) };
            }
        }
        self.stats.decompositions += 1;
        self.factored_h = h;
        if self.index > 0 {
            // A DAE's matrix is graded (Hairer II, §VII.4: its condition grows like h^-index), and
            // RADAU5 refuses only exactly zero pivots.
            return self.e1.factor_graded().is_ok() && self.e2.factor_graded().is_ok();
        }
        self.e1.factor().is_ok() && self.e2.factor().is_ok()
    }

    /// The Newton iteration's starting stage increments: the last step's collocation polynomial
    /// extrapolated (zero on the first step or after the state was changed).
    fn starting_values(&mut self, h: f64) {
        let n = self.y0.len();
        if self.dense_h == 0.0 {
            for i in 0..3 {
                self.z[i].iter_mut().for_each(|x| *x = 0.0);
                self.w[i].iter_mut().for_each(|x| *x = 0.0);
            }
            return;
        }
        let (c1m1, c2m1) = (self.k.c[0] - 1.0, self.k.c[1] - 1.0);
        for (s, c) in self.k.c.iter().enumerate() {
            let cq = c * h / self.dense_h;
            for i in 0..n {
                let (a1, a2, a3) = (self.cont[1][i], self.cont[2][i], self.cont[3][i]);
                self.z[s][i] = cq * (a1 + (cq - c2m1) * (a2 + (cq - c1m1) * a3));
            }
        }
        self.transform_z_to_w();
    }

    /// W = T⁻¹ Z, component by component.
    fn transform_z_to_w(&mut self) {
        let ti = self.k.ti;
        for i in 0..self.y0.len() {
            let z = Vector3::new(self.z[0][i], self.z[1][i], self.z[2][i]);
            let w = ti * z;
            (self.w[0][i], self.w[1][i], self.w[2][i]) = (w[0], w[1], w[2]);
        }
    }

    /// The scaled RMS norm of `v` (with `scal`) over `parts` vectors.
    fn norm(&self, parts: &[&[f64]]) -> f64 {
        let mut sum = 0.0;
        for v in parts {
            for (x, s) in v.iter().zip(&self.scal) {
                sum += (x / s) * (x / s);
            }
        }
        (sum / (parts.len() * self.scal.len()) as f64).sqrt()
    }
}

/// How a Newton iteration ended.
enum Newton {
    /// Converged after this many iterations.
    Converged(usize),
    /// Diverged, too slow or failed: retry with h times this factor.
    Failed { factor: f64, failure: Option<IntegrateError> },
}

impl Radau5 {
    /// Simplified Newton on the transformed stage equations (Hairer II, (IV.8.16)–(8.18)).
    fn newton(&mut self, ode: &mut dyn SecondOrderOde, h: f64) -> Result<Newton, IntegrateError> {
        let n = self.y0.len();
        let fnewt = (10.0 * f64::EPSILON / self.tr).max(0.03f64.min(self.tr.sqrt()));
        self.faccon = self.faccon.max(f64::EPSILON).powf(0.8);
        self.theta = THET;
        let (mut dynold, mut thqold) = (0.0, 0.0);
        let (fac1, alphn, betan) = (self.k.gamma / h, self.k.alpha / h, self.k.beta / h);
        // A fixed step cannot be shortened: iterate longer, without predicting the outcome.
        let nit = if self.fixed.is_some() { 50 } else { NIT };
        for newt in 1..=nit {
            for s in 0..3 {
                for i in 0..n {
                    self.tmp[i] = self.y0[i] + self.z[s][i];
                }
                if let Err(e) = Self::f(ode, (self.d, self.nd), &self.tmp, &mut self.fz[s], &mut self.stats) {
                    if e.is_time_budget() {
                        return Err(e);
                    }
                    return Ok(Newton::Failed { factor: 0.5, failure: Some(e) });
                }
            }
            self.stats.newton_iterations += 1;
            // Right-hand sides G − Λ M W / h with G = T⁻¹ F, solved in place into ΔW.
            let ti = self.k.ti;
            for i in 0..n {
                let g = ti * Vector3::new(self.fz[0][i], self.fz[1][i], self.fz[2][i]);
                let (w1, w2, w3) = if i < self.nd { (self.w[0][i], self.w[1][i], self.w[2][i]) } else { (0.0, 0.0, 0.0) };
                self.e1.rhs[i] = g[0] - fac1 * w1;
                self.e2.rhs[i] = Complex::new(g[1] - alphn * w2 + betan * w3, g[2] - betan * w2 - alphn * w3);
            }
            // The factorization refused zero pivots: U is invertible and both solves succeed.
            self.e1.solve();
            self.e2.solve();
            for i in 0..n {
                (self.fz[0][i], self.fz[1][i], self.fz[2][i]) = (self.e1.rhs[i], self.e2.rhs[i].re, self.e2.rhs[i].im);
            }
            let dyno = self.norm(&[&self.fz[0], &self.fz[1], &self.fz[2]]);
            if newt > 1 && newt < nit {
                let thq = dyno / dynold;
                self.theta = if newt == 2 { thq } else { (thq * thqold).sqrt() };
                thqold = thq;
                if !(self.theta < 0.99) {
                    return Ok(Newton::Failed { factor: 0.5, failure: None });
                }
                self.faccon = self.theta / (1.0 - self.theta);
                let dyth = self.faccon * dyno * self.theta.powi((NIT - 1 - newt) as i32) / fnewt;
                if dyth >= 1.0 && self.fixed.is_none() {
                    let qnewt = dyth.clamp(1e-4, 20.0);
                    let factor = 0.8 * qnewt.powf(-1.0 / (4.0 + (NIT - 1 - newt) as f64));
                    return Ok(Newton::Failed { factor, failure: None });
                }
            }
            dynold = dyno.max(f64::EPSILON);
            for s in 0..3 {
                for i in 0..n {
                    self.w[s][i] += self.fz[s][i];
                }
            }
            let t = self.k.t;
            for i in 0..n {
                let z = t * Vector3::new(self.w[0][i], self.w[1][i], self.w[2][i]);
                (self.z[0][i], self.z[1][i], self.z[2][i]) = (z[0], z[1], z[2]);
            }
            if self.faccon * dyno <= fnewt {
                return Ok(Newton::Converged(newt));
            }
        }
        Ok(Newton::Failed { factor: 0.5, failure: None })
    }

    /// The scaled error estimate of the step just solved (Hairer II, (IV.8.19)–(8.20)).
    fn error_estimate(&mut self, ode: &mut dyn SecondOrderOde, h: f64) -> Result<f64, IntegrateError> {
        let n = self.y0.len();
        let hee = self.k.dd.map(|d| d / h);
        for i in 0..n {
            // M (Σ eᵢ Zᵢ)/h: the algebraic rows of a DAE have M = 0.
            self.tmp2[i] = if i < self.nd { hee[0] * self.z[0][i] + hee[1] * self.z[1][i] + hee[2] * self.z[2][i] } else { 0.0 };
            self.e1.rhs[i] = self.tmp2[i] + self.f0[i];
        }
        self.e1.solve();
        let mut err = self.norm(&[self.e1.rhs.as_slice()]).max(1e-10);
        if err >= 1.0 && (self.first || self.last_rejected) {
            for i in 0..n {
                self.tmp[i] = self.y0[i] + self.e1.rhs[i];
            }
            let mut fe = std::mem::take(&mut self.fz[0]);
            let r = Self::f(ode, (self.d, self.nd), &self.tmp, &mut fe, &mut self.stats);
            if r.is_ok() {
                for ((r, fi), f2) in self.e1.rhs.iter_mut().zip(&fe).zip(&self.tmp2) {
                    *r = fi + f2;
                }
                self.e1.solve();
                err = self.norm(&[self.e1.rhs.as_slice()]).max(1e-10);
            }
            self.fz[0] = fe;
            if let Err(e) = r
                && e.is_time_budget()
            {
                return Err(e);
            }
        }
        Ok(err)
    }

    /// One attempt at a step of h from y₀.
    fn attempt(&mut self, ode: &mut dyn SecondOrderOde, h: f64) -> Result<Attempt, IntegrateError> {
        if self.index > 0 {
            self.scale(h);
        }
        if !self.jac_valid {
            self.jacobian(ode)?;
        }
        if self.factored_h != h && !self.factor(h) {
            self.factored_h = 0.0;
            self.jac_valid = self.jac_fresh;
            return Ok(Attempt::Rejected { h_new: 0.5 * h, failure: None });
        }
        self.starting_values(h);
        let newt = match self.newton(ode, h)? {
            Newton::Converged(k) => k,
            Newton::Failed { factor, failure } => {
                self.jac_valid = self.jac_fresh;
                return Ok(Attempt::Rejected { h_new: factor * h, failure });
            }
        };
        if self.fixed.is_some() {
            return Ok(Attempt::Accepted { h_new: h });
        }
        let err = self.error_estimate(ode, h)?;
        let fac = SAFE.min(SAFE * (1 + 2 * NIT) as f64 / (newt + 2 * NIT) as f64);
        let mut quot = (err.powf(0.25) / fac).clamp(1.0 / FAC_GROW, FAC_SHRINK);
        if err >= 1.0 {
            self.jac_valid = self.jac_fresh;
            let h_new = if self.first { 0.1 * h } else { h / quot };
            return Ok(Attempt::Rejected { h_new, failure: None });
        }
        if !self.first {
            // Gustafsson's predictive controller (RADAU5's default).
            let facgus = (self.hacc / h) * (err * err / self.erracc).powf(0.25) / SAFE;
            quot = quot.max(facgus.clamp(1.0 / FAC_GROW, FAC_SHRINK));
        }
        self.hacc = h;
        self.erracc = err.max(1e-2);
        let mut h_new = h / quot;
        if self.last_rejected {
            h_new = h_new.min(h);
        }
        Ok(Attempt::Accepted { h_new })
    }

    /// Ends an accepted step of h: y₁ = y₀ + Z₃, the collocation polynomial, f(y₁), and whether
    /// to keep J and h.
    fn accept(&mut self, ode: &mut dyn SecondOrderOde, h: f64, h_new: f64, clipped: bool) -> Result<(), IntegrateError> {
        let n = self.y0.len();
        let (c1, c1m1, c2m1) = (self.k.c[0], self.k.c[0] - 1.0, self.k.c[1] - 1.0);
        let c1mc2 = self.k.c[0] - self.k.c[1];
        for i in 0..n {
            let (z1, z2, z3) = (self.z[0][i], self.z[1][i], self.z[2][i]);
            // Divided differences on the nodes s = 0, c₂ − 1, c₁ − 1, −1 (s = (t − t₁)/h).
            let y1 = self.y0[i] + z3;
            let a1 = (z2 - z3) / c2m1;
            let ak = (z1 - z2) / c1mc2;
            let a2 = (ak - a1) / c1m1;
            let acont3 = (ak - z1 / c1) / self.k.c[1];
            self.cont[0][i] = y1;
            self.cont[1][i] = a1;
            self.cont[2][i] = a2;
            self.cont[3][i] = a2 - acont3;
        }
        self.dense_h = h;
        self.y0.copy_from_slice(&self.cont[0]);
        // A DAE keeps its own state: renormalizing its quaternions would move q off C = 0 (the
        // constraints read the quaternion's length), and the next step's initial values would be
        // inconsistent, which the index-3 form amplifies by h⁻². Its outputs are normalized.
        if self.index == 0 {
            ode.normalize(&mut self.y0[..self.d]);
        }
        Self::f(ode, (self.d, self.nd), &self.y0, &mut self.f0, &mut self.stats)?;
        self.f0_valid = true;
        self.first = false;
        self.last_rejected = false;
        self.stats.steps += 1;
        // The Jacobian at the new y₀ is recomputed unless Newton contracted fast.
        self.jac_fresh = false;
        self.jac_valid = self.theta <= THET && self.fixed.is_none();
        let ratio = h_new / h;
        let keep = self.jac_valid && (KEEP_RATIO.0..=KEEP_RATIO.1).contains(&ratio);
        let next = if keep { h } else { h_new };
        self.h = if clipped { next.max(self.h) } else { next };
        Ok(())
    }
}

/// The registry entry of `radau5`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "radau5",
    summary: "Radau IIA order 5, implicit and L-stable for stiff problems: simplified Newton on the transformed stages, finite-difference Jacobian, dense LU (Hairer & Wanner's RADAU5), adaptive (rtol = atol = tolerance)",
    order: 5,
    make: Make::Adaptive(|rtol, atol| Box::new(Radau5::new(rtol, atol))),
    dae: true,
};
