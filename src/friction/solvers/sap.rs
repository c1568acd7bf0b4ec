//! `sap` — the convex primal Newton of the MuJoCo/Drake family: the Semi-Analytic Primal solver
//! (Castro, Han, Permenter, Tedrake, Ehrenberg 2022, "An unconstrained convex formulation of
//! compliant contact", IEEE T-RO 39(2), §IV–§VI) on its **regularised** problem, which is neither
//! the Coulomb problem nor its convex relaxation: it is scored on the Coulomb problem like every
//! other solver, and its residual there stays above the tolerance by what the regularisation
//! moves (said so where a solve ends).
//!
//! SAP minimises over generalized velocities v the unconstrained convex cost
//! ℓ(v) = ½‖v − v*‖²_A + Σ_α ℓ_α(J_α v), ℓ_α(u) = ½ γ_αᵀ R_α γ_α with γ_α(u) = P_F^R(−R_α⁻¹ u)
//! (the projection onto the friction cone F in the norm of R_α, its eq. 19), whose gradient is
//! A(v − v*) − Jᵀγ (momentum balance) and Hessian A + Jᵀ G J, G = −∂γ/∂u. A local problem carries
//! only W = J A⁻¹ Jᵀ and q = J v*, so the iteration runs in the coordinates v = v* + A⁻¹ Jᵀ y of
//! the affine subspace that holds the optimum (there y = γ): u = W y + q, the cost
//! ½ yᵀ W y + Σ ℓ_α(u_α), and the Newton step of v becomes A⁻¹ Jᵀ Δ with (I + G W) Δ = γ − y
//! (multiply Jᵀ(I + G W) Δ = Jᵀ(γ − y) by A⁻¹ to recover SAP's (A + JᵀGJ) Δv = −∇ℓ): the same
//! iterates as SAP's from the same start, without M or J. I + G W has eigenvalues ≥ 1 (G, W
//! positive semidefinite), so the step exists where W is singular; it is solved by faer's sparse
//! LU (G W is not symmetric), the pattern W's. The step length is SAP's exact line search: the
//! root of the convex cost's derivative along Δ in [0, 1.5] by a safeguarded Newton (bisection
//! where a Newton step leaves the bracket). A nonsymmetric W (Siconos' Rover problems) enters as
//! its symmetric part, the cost's.
//!
//! The regularisation is SAP's near-rigid regime for rigid contact (§V): per contact
//! R_N = β²/(4π²) w̃_α and R_T = σ w̃_α, w̃_α = the RMS norm of W_αα (its Frobenius norm / dim),
//! β = 1 and σ = 10⁻³ by default as in the paper. The solve stops at SAP's optimality condition,
//! the momentum residual in the metric of A⁻¹ — ‖Jᵀ(y − γ)‖_{A⁻¹} = √((y − γ)ᵀ W (y − γ)) —
//! at most `tol` times max(‖Jᵀy‖, ‖Jᵀγ‖) in the same metric, or at its cost criterion (a step
//! that decreases the cost by at most 10⁻¹⁵ of it: the rounding floor, which a small β, an
//! ill-conditioned W + R, reaches before the optimality condition), or where the Coulomb
//! residual reaches the solve's tolerance first. One iteration is one Newton step (one factorization).

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop};
use crate::friction::{Csr, LocalProblem};
use crate::params::Params;
use faer::prelude::Solve;
use faer::sparse::{SparseColMat, Triplet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `sap`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SapParams {
    /// the near-rigid parameter: the normal regularisation R_N = beta^2/(4 pi^2) times the RMS norm of the contact's block of W (Castro et al. 2022, section V; 1 in the paper, smaller is stiffer and nearer the convex relaxation)
    #[schemars(extend("unit" = "1", "minimum" = 1e-6, "maximum" = 10.0))]
    pub beta: f64,
    /// the tangential regularisation R_T = sigma times the RMS norm of the contact's block of W (the paper's 1e-3)
    #[schemars(extend("unit" = "1", "minimum" = 1e-12, "maximum" = 1.0))]
    pub sigma: f64,
    /// stop when the momentum residual is at most this times the momenta (in the metric of the inverse mass), or a tenth of the solve's residual tolerance when that is smaller
    #[schemars(extend("unit" = "1", "minimum" = 1e-15, "maximum" = 1e-2))]
    pub tol: f64,
}

impl Default for SapParams {
    fn default() -> Self {
        SapParams { beta: 1.0, sigma: 1e-3, tol: 1e-10 }
    }
}

impl Params for SapParams {}

impl From<SapParams> for Box<dyn ContactSolver> {
    fn from(p: SapParams) -> Self {
        Box::new(Sap { params: p })
    }
}

/// The registry entry of `sap`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<SapParams>(
    "sap",
    "convex primal Newton with exact line search on SAP's regularised problem (Castro et al. 2022; the MuJoCo/Drake family)",
)
.relaxed()
.regularized();

/// The SAP solve.
struct Sap {
    params: SapParams,
}

/// One contact's regularisation: √R_N and √R_T.
#[derive(Clone, Copy, Debug)]
struct Reg {
    sn: f64,
    st: f64,
}

/// γ = P_F^R(−R⁻¹ u) of one contact into `gamma`, and G = −∂γ/∂u into `g` when given; returns
/// the contact's cost ½ γᵀ R γ. In the scaled coordinates ỹ = R^{½} y the projection is the
/// Euclidean one onto the cone ‖ỹ_T‖ ≤ m ỹ_N, m = μ √(R_T/R_N) (three regions: inside, the
/// polar cone, the boundary; with m = 0 the cone is the ray ỹ_T = 0, ỹ_N ≥ 0), and
/// G = R^{-½} DP R^{-½}.
fn project_r(dim: usize, mu: f64, reg: Reg, u: &[f64], gamma: &mut [f64], g: Option<&mut [[f64; 3]; 3]>) -> f64 {
    let m = mu * reg.st / reg.sn;
    let yn = -u[0] / reg.sn;
    let mut yt = [0.0; 2];
    for k in 1..dim {
        yt[k - 1] = -u[k] / reg.st;
    }
    let r = yt[..dim - 1].iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut dp = [[0.0; 3]; 3];
    let mut gt = [0.0; 3];
    if yn >= 0.0 && r <= m * yn {
        gt[0] = yn;
        gt[1..dim].copy_from_slice(&yt[..dim - 1]);
        for (i, row) in dp.iter_mut().enumerate().take(dim) {
            row[i] = 1.0;
        }
    } else if m * r > -yn {
        // On the cone's boundary (r > 0 here: r = 0 with yn > 0 is inside, with yn ≤ 0 polar).
        let c = 1.0 / (1.0 + m * m);
        let gn = (yn + m * r) * c;
        let t = [yt[0] / r, yt[1] / r];
        gt[0] = gn;
        dp[0][0] = c;
        for i in 1..dim {
            gt[i] = m * gn * t[i - 1];
            dp[0][i] = m * t[i - 1] * c;
            dp[i][0] = dp[0][i];
            for j in 1..dim {
                let tt = t[i - 1] * t[j - 1];
                dp[i][j] = m * (m * c * tt + gn * (if i == j { 1.0 } else { 0.0 } - tt) / r);
            }
        }
    }
    let s = |i: usize| if i == 0 { reg.sn } else { reg.st };
    for i in 0..dim {
        gamma[i] = gt[i] / s(i);
    }
    if let Some(g) = g {
        for i in 0..dim {
            for j in 0..dim {
                g[i][j] = dp[i][j] / (s(i) * s(j));
            }
        }
    }
    0.5 * gt[..dim].iter().map(|x| x * x).sum::<f64>()
}

/// The workspace of one solve.
struct Work {
    ws: Csr,
    reg: Vec<Reg>,
    y: Vec<f64>,
    u: Vec<f64>,
    gamma: Vec<f64>,
    g: Vec<[[f64; 3]; 3]>,
    wd: Vec<f64>,
    ut: Vec<f64>,
    h: Vec<Triplet<usize, usize, f64>>,
}

/// (W + Wᵀ)/2 (W itself when symmetric: the same entries, summed in halves).
fn symmetric_part(w: &Csr) -> Csr {
    let mut t = Vec::with_capacity(2 * w.nnz());
    for (i, j, v) in w.triplets() {
        t.push((i, j, 0.5 * v));
        t.push((j, i, 0.5 * v));
    }
    Csr::from_triplets(w.nrows, w.ncols, &t)
}

/// SAP's near-rigid regularisation of every contact.
fn regularisation(p: &LocalProblem, beta: f64, sigma: f64) -> Vec<Reg> {
    (0..p.contacts())
        .map(|a| {
            let b = p.diagonal_block(a);
            let f = b.iter().flatten().map(|x| x * x).sum::<f64>().sqrt() / p.dim as f64;
            let w = if f > 0.0 && f.is_finite() { f } else { 1.0 };
            let rn = beta * beta / (4.0 * std::f64::consts::PI * std::f64::consts::PI) * w;
            Reg { sn: rn.sqrt(), st: (sigma * w).sqrt() }
        })
        .collect()
}

/// The problem whose convex relaxation SAP solves exactly: W + R (R diagonal, R_N and R_T per
/// contact) with the same q and μ — SAP's answer γ satisfies ((W + R) γ + q)ᵀ (g − γ) ≥ 0 for
/// every g in the cones, the optimality of min ½ γᵀ (W + R) γ + qᵀ γ over them (its eq. 22 with
/// v̂ = 0), which an interior point solves independently.
#[cfg(test)]
pub(crate) fn regularised_problem(p: &LocalProblem, beta: f64, sigma: f64) -> LocalProblem {
    let reg = regularisation(p, beta, sigma);
    let mut t = symmetric_part(&p.w).triplets();
    for (a, r) in reg.iter().enumerate() {
        for k in 0..p.dim {
            let s = if k == 0 { r.sn } else { r.st };
            t.push((a * p.dim + k, a * p.dim + k, s * s));
        }
    }
    LocalProblem { w: Csr::from_triplets(p.w.nrows, p.w.ncols, &t), ..p.clone() }
}

impl Work {
    fn new(p: &LocalProblem, params: &SapParams) -> Work {
        let n = p.q.len();
        Work {
            ws: symmetric_part(&p.w),
            reg: regularisation(p, params.beta, params.sigma),
            y: vec![0.0; n],
            u: vec![0.0; n],
            gamma: vec![0.0; n],
            g: vec![[[0.0; 3]; 3]; p.contacts()],
            wd: vec![0.0; n],
            ut: vec![0.0; n],
            h: Vec::new(),
        }
    }

    /// u = W_s y + q, γ(u) and G(u) at the current y; returns the cost ½ yᵀ W_s y + Σ ℓ_α.
    fn evaluate(&mut self, p: &LocalProblem) -> f64 {
        let d = p.dim;
        self.ws.mul(&self.y, &mut self.u);
        let mut cost = 0.5 * self.y.iter().zip(&self.u).map(|(a, b)| a * b).sum::<f64>();
        for (ui, qi) in self.u.iter_mut().zip(&p.q) {
            *ui += qi;
        }
        for (a, ga) in self.g.iter_mut().enumerate() {
            let s = a * d..(a + 1) * d;
            cost += project_r(d, p.mu[a], self.reg[a], &self.u[s.clone()], &mut self.gamma[s], Some(ga));
        }
        cost
    }

    /// SAP's optimality measures: (‖Jᵀ(y − γ)‖, max(‖Jᵀy‖, ‖Jᵀγ‖)) in the metric of A⁻¹.
    fn optimality(&mut self) -> (f64, f64) {
        let wnorm = |ws: &Csr, x: &[f64], tmp: &mut [f64]| {
            ws.mul(x, tmp);
            x.iter().zip(tmp.iter()).map(|(a, b)| a * b).sum::<f64>().max(0.0).sqrt()
        };
        let diff: Vec<f64> = self.y.iter().zip(&self.gamma).map(|(a, b)| a - b).collect();
        let res = wnorm(&self.ws, &diff, &mut self.ut);
        let scale = wnorm(&self.ws, &self.y, &mut self.ut).max(wnorm(&self.ws, &self.gamma, &mut self.ut));
        (res, scale)
    }

    /// The Newton direction: (I + G W_s) Δ = γ − y by sparse LU, or None where it fails.
    fn direction(&mut self, dim: usize) -> Option<Vec<f64>> {
        let n = self.y.len();
        self.h.clear();
        for (a, ga) in self.g.iter().enumerate() {
            for (i, gi) in ga.iter().enumerate().take(dim) {
                let row = a * dim + i;
                self.h.push(Triplet::new(row, row, 1.0));
                for (k, gik) in gi.iter().enumerate().take(dim) {
                    let wrow = a * dim + k;
                    for e in self.ws.ptr[wrow]..self.ws.ptr[wrow + 1] {
                        // Zero factors still place the entry: the pattern is W's at every step.
                        self.h.push(Triplet::new(row, self.ws.idx[e], gik * self.ws.val[e]));
                    }
                }
            }
        }
        let m = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &self.h).ok()?;
        let lu = m.sp_lu().ok()?;
        let mut rhs = faer::Mat::<f64>::from_fn(n, 1, |i, _| self.gamma[i] - self.y[i]);
        lu.solve_in_place(rhs.as_mut());
        let step: Vec<f64> = (0..n).map(|i| rhs[(i, 0)]).collect();
        step.iter().all(|v| v.is_finite()).then_some(step)
    }

    /// The derivative and second derivative of the cost along Δ at step t: with u(t) = u + t W_s Δ,
    /// φ'(t) = Δᵀ W_s y + t Δᵀ W_s Δ − γ(u(t))ᵀ W_s Δ, φ'' = Δᵀ W_s Δ + (W_s Δ)ᵀ G (W_s Δ).
    fn slope(&mut self, p: &LocalProblem, t: f64, dwy: f64, dwd: f64) -> (f64, f64) {
        let d = p.dim;
        let (mut gw, mut wgw) = (0.0, 0.0);
        let mut gamma = [0.0; 3];
        let mut g = [[0.0; 3]; 3];
        for a in 0..p.contacts() {
            let s = a * d..(a + 1) * d;
            for (k, i) in s.clone().enumerate() {
                self.ut[k] = self.u[i] + t * self.wd[i];
            }
            project_r(d, p.mu[a], self.reg[a], &self.ut[..d], &mut gamma[..d], Some(&mut g));
            let wd = &self.wd[s];
            for i in 0..d {
                gw += gamma[i] * wd[i];
                wgw += wd[i] * (0..d).map(|j| g[i][j] * wd[j]).sum::<f64>();
            }
        }
        (dwy + t * dwd - gw, dwd + wgw)
    }

    /// SAP's exact line search: the minimiser of the convex cost along Δ in [0, 1.5], the root of
    /// φ' by Newton's method safeguarded by bisection, to |φ'| ≤ 1e-12 |φ'(0)|.
    fn line_search(&mut self, p: &LocalProblem, step: &[f64]) -> f64 {
        self.ws.mul(step, &mut self.wd);
        let dwy: f64 = self.wd.iter().zip(&self.y).map(|(a, b)| a * b).sum();
        let dwd: f64 = self.wd.iter().zip(step).map(|(a, b)| a * b).sum();
        let (d0, _) = self.slope(p, 0.0, dwy, dwd);
        if !(d0 < 0.0) {
            return 0.0;
        }
        let t_max = 1.5;
        let (d_max, _) = self.slope(p, t_max, dwy, dwd);
        if d_max <= 0.0 {
            return t_max;
        }
        let (mut lo, mut hi, mut t) = (0.0, t_max, 1.0);
        for _ in 0..100 {
            let (d1, d2) = self.slope(p, t, dwy, dwd);
            if d1.abs() <= 1e-12 * d0.abs() {
                break;
            }
            if d1 < 0.0 {
                lo = t
            } else {
                hi = t
            }
            let newton = t - d1 / d2;
            t = if d2 > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
            if hi - lo <= 1e-15 * hi {
                break;
            }
        }
        t
    }
}

impl ContactSolver for Sap {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let mut mon = Monitor::new(p, stop);
        if let Some(o) = mon.check(p, r, 0) {
            return o;
        }
        let tol = self.params.tol.min(0.1 * stop.tol);
        let mut w = Work::new(p, &self.params);
        w.y.copy_from_slice(r);
        let mut cost = w.evaluate(p);
        for it in 1.. {
            let (res, scale) = w.optimality();
            let mut done = (res <= tol * scale || res == 0.0).then_some("SAP's optimality condition");
            let step = if done.is_some() { None } else { w.direction(p.dim) };
            if let Some(step) = &step {
                let t = w.line_search(p, step);
                for (yi, si) in w.y.iter_mut().zip(step) {
                    *yi += t * si;
                }
                let next = w.evaluate(p);
                // SAP's second criterion: the cost no longer decreases beyond its rounding.
                if cost - next <= 1e-15 * next.abs() {
                    done = Some("SAP's cost criterion: the cost stopped decreasing at its rounding");
                }
                cost = next;
            }
            r.copy_from_slice(&w.gamma);
            if let Some(o) = mon.check(p, r, it) {
                return o;
            }
            if let Some(rule) = done {
                let why = format!(
                    "reached the regularised problem's solution ({rule}); the Coulomb residual stays above tol by what the regularisation and the relaxation move"
                );
                return mon.finish(it, Some(why.into()));
            }
            if step.is_none() {
                return mon.finish(it, Some("the Newton step could not be solved".into()));
            }
        }
        unreachable!("the loop returns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// G = −∂γ/∂u against central differences of γ in every region (inside, on the boundary,
    /// polar), in 2D and 3D, to the truncation and rounding error of the difference, 1e-6.
    #[test]
    fn the_projection_derivative_matches_finite_differences() {
        let reg = Reg { sn: 0.3, st: 0.05 };
        for dim in [2, 3] {
            for u in [[-1.0, 0.01, 0.02], [-1.0, 0.5, -0.3], [2.0, 0.1, 0.1], [-0.2, 3.0, -1.0]] {
                let (mut gamma, mut g) = ([0.0; 3], [[0.0; 3]; 3]);
                project_r(dim, 0.6, reg, &u[..dim], &mut gamma[..dim], Some(&mut g));
                let scale = 1.0 + g.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
                for j in 0..dim {
                    let h = 1e-7;
                    let (mut up, mut dn) = (u, u);
                    up[j] += h;
                    dn[j] -= h;
                    let (mut gp, mut gm) = ([0.0; 3], [0.0; 3]);
                    project_r(dim, 0.6, reg, &up[..dim], &mut gp[..dim], None);
                    project_r(dim, 0.6, reg, &dn[..dim], &mut gm[..dim], None);
                    for i in 0..dim {
                        let fd = -(gp[i] - gm[i]) / (2.0 * h);
                        assert!((fd - g[i][j]).abs() <= 1e-6 * scale, "dim {dim}, u {u:?}: G[{i}][{j}]");
                    }
                }
            }
        }
    }
}
