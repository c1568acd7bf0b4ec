//! `nsgs` — nonsmooth Gauss–Seidel with the exact Coulomb cone (Jean 1999, "The non-smooth
//! contact dynamics method"; Acary, Brémond, Huber 2018, §4.1): contact after contact, the local
//! problem with the others fixed, solved by the projected fixed point on the cone
//! (`local_fixed_point` in `solvers`), the De Saxcé term included.

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop, block_norm, local_fixed_point};
use crate::friction::LocalProblem;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `nsgs` (none beyond the stopping rule every solver gets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NsgsParams {}

impl Params for NsgsParams {}

impl From<NsgsParams> for Box<dyn ContactSolver> {
    fn from(_: NsgsParams) -> Self {
        Box::new(Sweeps::new(1.0, false))
    }
}

/// The registry entry of `nsgs`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<NsgsParams>(
    "nsgs",
    "nonsmooth Gauss-Seidel on the Coulomb cone (Jean 1999): per-contact projected fixed point, De Saxce term included",
);

/// Gauss–Seidel sweeps over the contacts with relaxation ω (1: NSGS), shared with `psor`.
pub(crate) struct Sweeps {
    /// Relaxation ω ∈ (0, 2).
    pub(crate) omega: f64,
    /// The local step per contact, 1/(Gershgorin bound of W_αα) (computed per problem).
    pub(crate) rho: Vec<f64>,
    /// Each contact by a Newton on its Alart–Curnier function (`nsgs_ac`) instead of the projected
    /// fixed point.
    pub(crate) newton: bool,
    /// The diagonal blocks W_αα (computed per problem, kept across solves).
    pub(crate) blocks: Vec<[[f64; 3]; 3]>,
    /// The residual check, kept across solves.
    pub(crate) mon: Monitor,
}

impl Sweeps {
    /// Sweeps with relaxation `omega`, by Newton per contact when `newton`.
    pub(crate) fn new(omega: f64, newton: bool) -> Sweeps {
        Sweeps { omega, rho: Vec::new(), newton, blocks: Vec::new(), mon: Monitor::default() }
    }
}

impl ContactSolver for Sweeps {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let d = p.dim;
        let Sweeps { omega, rho, newton, blocks, mon } = self;
        let (omega, newton) = (*omega, *newton);
        rho.clear();
        rho.extend((0..p.contacts()).map(|a| block_norm(p, a)).map(|n| if n > 0.0 { 1.0 / n } else { 0.0 }));
        blocks.clear();
        blocks.extend((0..p.contacts()).map(|a| p.diagonal_block(a)));
        mon.restart(p, stop);
        if let Some(o) = mon.check(p, r, 0) {
            return o;
        }
        let mut b = [0.0; 3];
        let mut old = [0.0; 3];
        for it in 1.. {
            for (a, block) in blocks.iter().enumerate() {
                let s = a * d;
                // b = q_α + Σ_{β≠α} W_αβ r_β = (W r + q)_α − W_αα r_α
                for i in 0..d {
                    b[i] = p.q[s + i] + p.w.row_dot(s + i, r) - (0..d).map(|j| block[i][j] * r[s + j]).sum::<f64>();
                }
                old[..d].copy_from_slice(&r[s..s + d]);
                if rho[a] > 0.0 && newton {
                    super::alart_curnier::local_newton(d, p.mu[a], block, &b[..d], rho[a], &mut r[s..s + d]);
                } else if rho[a] > 0.0 {
                    local_fixed_point(d, p.mu[a], block, &b[..d], rho[a], &mut r[s..s + d]);
                }
                if omega != 1.0 {
                    // Over-relaxation extrapolates past the cone: project back onto it.
                    for i in 0..d {
                        r[s + i] = omega * r[s + i] + (1.0 - omega) * old[i];
                    }
                    crate::friction::cone::project(p.mu[a], &mut r[s..s + d]);
                }
            }
            if let Some(o) = mon.check(p, r, it) {
                return o;
            }
        }
        unreachable!("the loop returns")
    }
}
