//! `admm` — the alternating direction method of multipliers on the Coulomb problem (Boyd, Parikh,
//! Chu, Peleato & Eckstein 2011, §3; for frictional contact Acary & Brémond's ADMM of Siconos,
//! and Acary, Brémond, Huber 2018, §6 on proximal methods): De Saxcé's term s is held fixed
//! while one ADMM step is taken on the convex problem min ½ rᵀ W r + (q + s)ᵀ r over r ∈ K_μ, then
//! updated from the new velocities (a fixed point on s, as the paper's "ADMM with De Saxcé
//! update"). In scaled form, with r = z split between the quadratic and the cone:
//!
//! r ← (W + ρ I)⁻¹ (ρ (z − ξ) − q − s),  z ← P_K(r + ξ),  ξ ← ξ + r − z,  s ← s(W z + q).
//!
//! ρ adapts by residual balancing (Boyd et al. §3.4.1): doubled when the primal residual ‖r − z‖
//! exceeds ten times the dual one ρ‖z − z_prev‖, halved in the opposite case, ξ rescaled with it,
//! at most every 10 iterations, between its start ρ₀ (`rho` times the mean Gershgorin bound of
//! the contacts' blocks of W) and 10⁴ ρ₀: below ρ₀ the iteration with De Saxcé's update diverged
//! on the stacked spheres of FCLIB (W rank-deficient, W + ρ I nearly singular);
//! W + ρ I is factored by faer's sparse LU (W need not be symmetric) at the start and after each change of ρ. The iterate scored is z, which lies in the cones.

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop, block_norms};
use crate::friction::LocalProblem;
use crate::params::Params;
use faer::prelude::Solve;
use faer::sparse::{SparseColMat, Triplet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `admm`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AdmmParams {
    /// the initial penalty rho, relative to the mean Gershgorin bound of the contacts' diagonal blocks of W
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub rho: f64,
    /// adapt rho by residual balancing (false: keep it)
    pub adaptive: bool,
}

impl Default for AdmmParams {
    fn default() -> Self {
        AdmmParams { rho: 1.0, adaptive: true }
    }
}

impl Params for AdmmParams {}

impl From<AdmmParams> for Box<dyn ContactSolver> {
    fn from(p: AdmmParams) -> Self {
        Box::new(Admm { params: p })
    }
}

/// The registry entry of `admm`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<AdmmParams>(
    "admm",
    "ADMM on the Coulomb problem with De Saxce's term updated each iteration, adaptive rho, sparse LU of W + rho I (Boyd et al. 2011)",
);

/// Iterations between two changes of ρ (each one a new factorization).
const ADAPT_EVERY: usize = 10;

/// The solver.
struct Admm {
    params: AdmmParams,
}

/// The LU factors of W + ρ I (W need not be symmetric: Siconos' Rover problems are not), or None
/// where it fails.
fn factor(p: &LocalProblem, rho: f64) -> Option<faer::sparse::linalg::solvers::Lu<usize, f64>> {
    let n = p.q.len();
    let mut t: Vec<Triplet<usize, usize, f64>> =
        p.w.triplets().into_iter().map(|(i, j, v)| Triplet::new(i, j, v)).collect();
    t.extend((0..n).map(|i| Triplet::new(i, i, rho)));
    SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &t).ok()?.sp_lu().ok()
}

/// De Saxcé's term s(u) = (μ‖u_T‖, 0, …) per contact, into `s`.
fn de_saxce(p: &LocalProblem, u: &[f64], s: &mut [f64]) {
    let d = p.dim;
    for (a, (sa, ua)) in s.chunks_mut(d).zip(u.chunks(d)).enumerate() {
        sa.fill(0.0);
        sa[0] = p.mu[a] * ua[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    }
}

impl ContactSolver for Admm {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let n = r.len();
        let norms = block_norms(p);
        let base = norms.iter().sum::<f64>() / norms.len().max(1) as f64;
        let rho0 = self.params.rho * base;
        let mut rho = rho0;
        let mut mon = Monitor::new(p, stop);
        if let Some(o) = mon.check(p, r, 0) {
            return o;
        }
        let Some(mut llt) = factor(p, rho) else {
            return mon.finish(0, Some("W + rho I could not be factored".into()));
        };
        let (mut z, mut xi, mut s, mut x) = (r.to_vec(), vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        de_saxce(p, &mon.u, &mut s);
        for it in 1.. {
            let mut rhs = faer::Mat::<f64>::from_fn(n, 1, |i, _| rho * (z[i] - xi[i]) - p.q[i] - s[i]);
            llt.solve_in_place(rhs.as_mut());
            let mut primal = 0.0;
            let mut dual = 0.0;
            for i in 0..n {
                x[i] = rhs[(i, 0)] + xi[i];
            }
            for (a, c) in x.chunks_mut(p.dim).enumerate() {
                crate::friction::cone::project(p.mu[a], c);
            }
            for i in 0..n {
                let ri = rhs[(i, 0)];
                primal += (ri - x[i]) * (ri - x[i]);
                dual += (x[i] - z[i]) * (x[i] - z[i]);
                xi[i] += ri - x[i];
            }
            z.copy_from_slice(&x);
            r.copy_from_slice(&z);
            if let Some(o) = mon.check(p, r, it) {
                return o;
            }
            de_saxce(p, &mon.u, &mut s);
            let (primal, dual) = (primal.sqrt(), rho * dual.sqrt());
            let scale = if primal > 10.0 * dual && rho < 1e4 * rho0 {
                2.0
            } else if dual > 10.0 * primal && rho > rho0 {
                0.5
            } else {
                1.0
            };
            if self.params.adaptive && scale != 1.0 && it % ADAPT_EVERY == 0 {
                rho *= scale;
                xi.iter_mut().for_each(|v| *v /= scale);
                match factor(p, rho) {
                    Some(f) => llt = f,
                    None => return mon.finish(it, Some("W + rho I could not be factored".into())),
                }
            }
        }
        unreachable!("the loop returns")
    }
}
