//! `apgd` — accelerated projected gradient descent (Mazhar, Heyn, Negrut & Tasora 2015, "Using
//! Nesterov's method to accelerate multibody dynamics with friction and contact", ACM TOG 34(3),
//! Algorithm 2: Nesterov's momentum, Lipschitz backtracking, adaptive restart) on the **convex
//! relaxation** (the cone complementarity problem of Anitescu & Tasora 2010): min ½ rᵀ W r + qᵀ r
//! over r ∈ K_μ, which drops De Saxcé's term. Its answers are scored on the Coulomb problem
//! like every other solver's; where contacts slide, the relaxation's solution is not the Coulomb
//! one and the solve stops once it has reached the relaxation's solution, saying so.

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop};
use crate::friction::LocalProblem;
use crate::friction::cone::project;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `apgd`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ApgdParams {
    /// restart the momentum when it points uphill (O'Donoghue & Candes 2015)
    pub restart: bool,
}

impl Default for ApgdParams {
    fn default() -> Self {
        ApgdParams { restart: true }
    }
}

impl Params for ApgdParams {}

impl From<ApgdParams> for Box<dyn ContactSolver> {
    fn from(p: ApgdParams) -> Self {
        Box::new(Apgd { restart: p.restart, v: Default::default(), mon: Monitor::default() })
    }
}

/// The registry entry of `apgd`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<ApgdParams>(
    "apgd",
    "accelerated projected gradient with restart (Mazhar-Tasora 2015) on the convex relaxation (no De Saxce term)",
)
.relaxed();

struct Apgd {
    restart: bool,
    /// W y, W x, x, r + 1, y and the gradient g (kept across solves).
    v: [Vec<f64>; 6],
    /// The residual check, kept across solves.
    mon: Monitor,
}

/// ½ xᵀ W x + qᵀ x with W x given.
fn objective(x: &[f64], wx: &[f64], q: &[f64]) -> f64 {
    x.iter().zip(wx).zip(q).map(|((xi, wi), qi)| xi * (0.5 * wi + qi)).sum()
}

fn project_all(p: &LocalProblem, x: &mut [f64]) {
    for (a, c) in x.chunks_mut(p.dim).enumerate() {
        project(p.mu[a], c);
    }
}

impl ContactSolver for Apgd {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let m = r.len();
        let divisor = stop.norm.divisor(&p.q);
        let Apgd { restart, v, mon } = self;
        for x in v.iter_mut() {
            x.clear();
            x.resize(m, 0.0);
        }
        let [wy, wx, x, ones, y, g] = v;
        mon.restart(p, stop);
        project_all(p, r);
        if let Some(o) = mon.check(p, r, 0) {
            return o;
        }
        // L from a secant through r and r + 1 (the paper's initial estimate).
        for (o, ri) in ones.iter_mut().zip(r.iter()) {
            *o = ri + 1.0;
        }
        p.w.mul(ones, wx);
        p.w.mul(r, wy);
        let num = wx.iter().zip(wy.iter()).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        let mut l = (num / (m as f64).sqrt()).max(f64::MIN_POSITIVE);
        y.copy_from_slice(r);
        let mut theta = 1.0f64;
        for it in 1.. {
            p.w.mul(y, wy);
            for i in 0..m {
                g[i] = wy[i] + p.q[i];
            }
            let fy = objective(y, wy, &p.q);
            let mut backtracks = 0;
            loop {
                for i in 0..m {
                    x[i] = y[i] - g[i] / l;
                }
                project_all(p, x);
                p.w.mul(x, wx);
                let d2: f64 = x.iter().zip(y.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
                let lin: f64 = g.iter().zip(x.iter().zip(y.iter())).map(|(gi, (a, b))| gi * (a - b)).sum();
                // The sufficient-decrease test, up to the rounding of the two objective values:
                // without the slack, x ≈ y fails it by rounding alone and L grows without bound.
                let fx = objective(x, wx, &p.q);
                let slack = 16.0 * f64::EPSILON * (fx.abs() + fy.abs());
                if fx <= fy + lin + 0.5 * l * d2 + slack || backtracks >= 60 {
                    break;
                }
                l *= 2.0;
                backtracks += 1;
            }
            let theta_next = 0.5 * (-theta * theta + theta * (theta * theta + 4.0).sqrt());
            let beta = theta * (1.0 - theta) / (theta * theta + theta_next);
            let uphill: f64 = g.iter().zip(x.iter().zip(r.iter())).map(|(gi, (a, b))| gi * (a - b)).sum();
            for i in 0..m {
                y[i] = x[i] + beta * (x[i] - r[i]);
            }
            theta = theta_next;
            if *restart && uphill > 0.0 {
                y.copy_from_slice(x);
                theta = 1.0;
            }
            r.copy_from_slice(x);
            l *= 0.9;
            if let Some(o) = mon.check(p, r, it) {
                return o;
            }
            let ccp = crate::friction::cone::relaxed_natural_map_norm(p.dim, &p.mu, r, &mon.u) / divisor;
            if ccp <= 1e-2 * stop.tol {
                return mon.finish(
                    it,
                    Some(
                        format!(
                            "reached the convex relaxation's solution (its residual {ccp:.1e}); the Coulomb residual stays above tol"
                        )
                        .into(),
                    ),
                );
            }
        }
        unreachable!("the loop returns")
    }
}
