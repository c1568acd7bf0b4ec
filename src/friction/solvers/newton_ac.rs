//! `newton_ac` — a nonsmooth (semismooth) Newton on the whole problem's Alart–Curnier function
//! (Alart & Curnier 1991; Christensen, Klarbring, Pang & Strömberg 1998; Acary, Brémond, Huber
//! 2018, §5: "nonsmooth Newton methods win where W has full rank"), with a line search.
//!
//! Φ(r) stacks every contact's Alart–Curnier function (`alart_curnier::contact`) at
//! u = W r + q, with ρ_α = 1/(the Gershgorin bound of W_αα). Each iteration solves
//! H Δ = −Φ, H = I − P' + ρ P' W (P' block diagonal, so H has W's block pattern), by a sparse LU
//! (faer; the symbolic analysis once per problem), then halves the step until the merit
//! ½‖Φ‖² decreases by the Armijo factor (1 − 10⁻⁴ t). Where H is singular or no step of at
//! least 2⁻²⁰ decreases the merit (Φ is only semismooth: Newton's direction need not descend,
//! and a rank-deficient W makes H singular), the iteration takes one `nsgs` sweep instead,
//! counted in the reason of a solve that does not converge. Each iterate is projected onto the cones (a solution lies
//! there, and the projection is nonexpansive, so never farther from it). One iteration is one Newton step (one factorization).

use super::alart_curnier::contact;
use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop, block_norms};
use crate::friction::LocalProblem;
use crate::params::Params;
use faer::prelude::Solve;
use faer::sparse::{SparseColMat, Triplet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `newton_ac` (none beyond the stopping rule every solver gets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NewtonAcParams {}

impl Params for NewtonAcParams {}

impl From<NewtonAcParams> for Box<dyn ContactSolver> {
    fn from(_: NewtonAcParams) -> Self {
        Box::new(NewtonAc)
    }
}

/// The registry entry of `newton_ac`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<NewtonAcParams>(
    "newton_ac",
    "semismooth Newton on the whole Alart-Curnier function, sparse LU, Armijo line search (Alart & Curnier 1991)",
);

/// The global Newton.
struct NewtonAc;

/// Φ of every contact at r into `phi`, P' per contact into `dp`, with `u` = W r + q computed;
/// returns ½‖Φ‖².
fn phi_all(p: &LocalProblem, rho: &[f64], r: &[f64], u: &mut [f64], phi: &mut [f64], dp: &mut [[[f64; 3]; 3]]) -> f64 {
    let d = p.dim;
    p.velocity(r, u);
    for (a, dpa) in dp.iter_mut().enumerate() {
        let s = a * d..(a + 1) * d;
        contact(p.mu[a], rho[a], &r[s.clone()], &u[s.clone()], &mut phi[s], dpa);
    }
    0.5 * phi.iter().map(|v| v * v).sum::<f64>()
}

/// H = I − P' + ρ P' W as triplets: row i of contact α is e_i − P'_i· (on the block's columns)
/// plus ρ_α Σ_k P'_ik W_k· (W's rows of the block).
fn jacobian(p: &LocalProblem, rho: &[f64], dp: &[[[f64; 3]; 3]], out: &mut Vec<Triplet<usize, usize, f64>>) {
    let d = p.dim;
    out.clear();
    for (a, dpa) in dp.iter().enumerate() {
        for (i, dpi) in dpa.iter().enumerate().take(d) {
            let row = a * d + i;
            for (j, dpij) in dpi.iter().enumerate().take(d) {
                out.push(Triplet::new(row, a * d + j, if i == j { 1.0 } else { 0.0 } - dpij));
            }
            for (k, dpik) in dpi.iter().enumerate().take(d) {
                let (f, wrow) = (rho[a] * dpik, a * d + k);
                for e in p.w.ptr[wrow]..p.w.ptr[wrow + 1] {
                    // Zero factors still place the entry: the pattern is the same at every step.
                    out.push(Triplet::new(row, p.w.idx[e], f * p.w.val[e]));
                }
            }
        }
    }
}

/// One nonsmooth Gauss–Seidel sweep (the `nsgs` sweep: each contact's problem, the others
/// fixed, by the projected fixed point), the safeguard where Newton's step does not descend.
fn sweep(p: &LocalProblem, rho: &[f64], blocks: &[[[f64; 3]; 3]], r: &mut [f64]) {
    let d = p.dim;
    let mut b = [0.0; 3];
    for (a, block) in blocks.iter().enumerate() {
        let s = a * d;
        for i in 0..d {
            b[i] = p.q[s + i] + p.w.row_dot(s + i, r) - (0..d).map(|j| block[i][j] * r[s + j]).sum::<f64>();
        }
        super::local_fixed_point(d, p.mu[a], block, &b[..d], rho[a], &mut r[s..s + d]);
    }
}

/// The Newton direction: Δ with H Δ = −Φ, or None where the LU fails or Δ is not finite.
fn direction(n: usize, h: &[Triplet<usize, usize, f64>], phi: &[f64]) -> Option<Vec<f64>> {
    let m = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, h).ok()?;
    let lu = m.sp_lu().ok()?;
    let mut rhs = faer::Mat::<f64>::from_fn(n, 1, |i, _| -phi[i]);
    lu.solve_in_place(rhs.as_mut());
    let step: Vec<f64> = (0..n).map(|i| rhs[(i, 0)]).collect();
    step.iter().all(|v| v.is_finite()).then_some(step)
}

impl ContactSolver for NewtonAc {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let (n, nc) = (r.len(), p.contacts());
        let rho: Vec<f64> = block_norms(p).into_iter().map(|b| if b > 0.0 { 1.0 / b } else { 1.0 }).collect();
        let mut mon = Monitor::new(p, stop);
        if let Some(o) = mon.check(p, r, 0) {
            return o;
        }
        let (mut u, mut phi, mut dp) = (vec![0.0; n], vec![0.0; n], vec![[[0.0; 3]; 3]; nc]);
        let (mut trial, mut u_t, mut phi_t, mut dp_t) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], dp.clone());
        let mut h = Vec::new();
        let blocks: Vec<[[f64; 3]; 3]> = (0..nc).map(|a| p.diagonal_block(a)).collect();
        let mut fallbacks = 0;
        for it in 1.. {
            let psi = phi_all(p, &rho, r, &mut u, &mut phi, &mut dp);
            jacobian(p, &rho, &dp, &mut h);
            let mut accepted = false;
            if let Some(step) = direction(n, &h, &phi) {
                let mut t = 1.0;
                while t >= 1.0 / (1 << 20) as f64 {
                    for i in 0..n {
                        trial[i] = r[i] + t * step[i];
                    }
                    if phi_all(p, &rho, &trial, &mut u_t, &mut phi_t, &mut dp_t) <= (1.0 - 1e-4 * t) * psi {
                        accepted = true;
                        r.copy_from_slice(&trial);
                        break;
                    }
                    t *= 0.5;
                }
            }
            if !accepted {
                fallbacks += 1;
                sweep(p, &rho, &blocks, r);
            }
            // Onto the cones: a solution lies there, and the projection is never farther from it.
            for (a, c) in r.chunks_mut(p.dim).enumerate() {
                crate::friction::cone::project(p.mu[a], c);
            }
            if let Some(mut o) = mon.check(p, r, it) {
                if fallbacks > 0 && !o.converged {
                    let note = format!("{fallbacks} of {it} iterations fell back to a projected step");
                    o.stopped = Some(o.stopped.map_or(note.clone(), |s| format!("{s}; {note}")).into());
                }
                return o;
            }
        }
        unreachable!("the loop returns")
    }
}
