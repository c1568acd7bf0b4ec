//! `pjacobi` — projected Jacobi on the Coulomb cone: every contact at once from the previous
//! iterate, r_α ← P_K(r_α − ρ_α (u_α + s_α)), u = W r + q (the parallel-friendly relative of
//! NSGS; Acary, Brémond, Huber 2018, §4.1), with the step ρ_α = θ / G_α, G_α the largest
//! absolute row sum of W over the contact's rows (Gershgorin's bound on W's spectrum, so that
//! θ ≤ 1 is a contraction for the convex part).

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop};
use crate::friction::LocalProblem;
use crate::friction::cone::project;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `pjacobi`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PjacobiParams {
    /// step as a fraction of the Gershgorin bound 1/G of each contact
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0), range(max = 2))]
    pub theta: f64,
}

impl Default for PjacobiParams {
    fn default() -> Self {
        PjacobiParams { theta: 1.0 }
    }
}

impl Params for PjacobiParams {}

impl From<PjacobiParams> for Box<dyn ContactSolver> {
    fn from(p: PjacobiParams) -> Self {
        Box::new(Pjacobi { theta: p.theta, rho: Vec::new(), mon: Monitor::default() })
    }
}

/// The registry entry of `pjacobi`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<PjacobiParams>(
    "pjacobi",
    "projected Jacobi on the Coulomb cone, all contacts at once, step theta/Gershgorin bound per contact",
);

struct Pjacobi {
    theta: f64,
    /// The step per contact (computed per problem, kept across solves).
    rho: Vec<f64>,
    /// The residual check, kept across solves.
    mon: Monitor,
}

impl ContactSolver for Pjacobi {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let d = p.dim;
        let Pjacobi { theta, rho, mon } = self;
        rho.clear();
        rho.extend((0..p.contacts()).map(|a| {
                let g = (a * d..(a + 1) * d)
                    .map(|i| (p.w.ptr[i]..p.w.ptr[i + 1]).map(|k| p.w.val[k].abs()).sum::<f64>())
                    .fold(0.0, f64::max);
                if g > 0.0 { *theta / g } else { 0.0 }
            }));
        mon.restart(p, stop);
        for it in 0.. {
            // The check computes u = W r + q, which the next iteration uses.
            if let Some(o) = mon.check(p, r, it) {
                return o;
            }
            for (a, &rho_a) in rho.iter().enumerate() {
                let s = a * d;
                let u = &mon.u[s..s + d];
                let ut = u[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
                let mut x = [0.0; 3];
                for i in 0..d {
                    let uhat = if i == 0 { u[0] + p.mu[a] * ut } else { u[i] };
                    x[i] = r[s + i] - rho_a * uhat;
                }
                project(p.mu[a], &mut x[..d]);
                r[s..s + d].copy_from_slice(&x[..d]);
            }
        }
        unreachable!("the loop returns")
    }
}
