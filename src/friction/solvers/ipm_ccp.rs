//! `ipm_ccp` — the exact reference on the convex relaxation: the cone-complementarity problem of
//! Anitescu (2006) and Anitescu & Tasora (2010), min ½ rᵀ W r + qᵀ r over r ∈ K_μ (no De Saxcé
//! term), solved by an interior-point method for conic programs (Clarabel: Goulart & Chen 2024,
//! "Clarabel: an interior-point solver for conic programs with quadratic objectives").
//!
//! Each contact's r = (r_N, r_T) enters as the second-order cone s = (μ r_N, r_T), ‖s_T‖ ≤ s_N,
//! plus r_N ≥ 0 (the cone of μ = 0 is the half-line). The relaxation's solution is the Coulomb
//! solution where contacts stick or separate; where one slides the two differ by the normal
//! velocity the relaxation lets through (μ‖u_T‖), so the residual on the true problem — which
//! every solver is scored on — stays above 0 there. Its iterations are interior-point
//! iterations, not sweeps: compare its answers, not its iteration counts. Its accuracy is the
//! interior point's: on a contact sliding on the cone's boundary the iterate approaches the
//! solution at about the square root of the duality gap (gap 1e-12: about 1e-8 in r).

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop};
use crate::friction::LocalProblem;
use crate::params::Params;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `ipm_ccp`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IpmParams {
    /// the interior-point method's tolerance on the duality gap and the feasibility residuals (Clarabel's tol_gap_abs, tol_gap_rel, tol_feas), at most: a tenth of the solve's residual tolerance when that is smaller
    #[schemars(extend("unit" = "1", "minimum" = 1e-14, "maximum" = 1e-2))]
    pub tol: f64,
    /// interior-point iterations at most
    #[schemars(range(min = 1, max = 1000))]
    pub max_iter: u32,
}

impl Default for IpmParams {
    fn default() -> Self {
        IpmParams { tol: 1e-12, max_iter: 200 }
    }
}

impl Params for IpmParams {}

impl From<IpmParams> for Box<dyn ContactSolver> {
    fn from(p: IpmParams) -> Self {
        Box::new(Ipm { params: p })
    }
}

/// The registry entry of `ipm_ccp`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<IpmParams>(
    "ipm_ccp",
    "interior point on the convex relaxation (Anitescu 2006) through Clarabel: the exact reference for the CCP solvers",
)
.relaxed();

/// The interior-point solve.
struct Ipm {
    params: IpmParams,
}

/// The relaxation's data for Clarabel: P = W (upper triangle of (W + Wᵀ)/2, compressed columns),
/// A with s = b − A r = (r_N of every contact; then (μ r_N, r_T) per contact in a second-order
/// cone, or r_T = 0 for μ = 0), b = 0, and the cones.
fn conic_data(p: &LocalProblem) -> (CscMatrix<f64>, CscMatrix<f64>, Vec<f64>, Vec<SupportedConeT<f64>>) {
    let (n, d, nc) = (p.q.len(), p.dim, p.contacts());
    let mut upper: Vec<(usize, usize, f64)> = Vec::with_capacity(p.w.nnz());
    for i in 0..p.w.nrows {
        for k in p.w.ptr[i]..p.w.ptr[i + 1] {
            let (j, v) = (p.w.idx[k], p.w.val[k]);
            upper.push((i.min(j), i.max(j), if i == j { v } else { 0.5 * v }));
        }
    }
    let pmat = csc(n, n, upper);
    // A frictionless contact's cone {r_T = 0} has no interior: its tangential rows are equalities.
    let mut a = Vec::with_capacity(nc + n);
    for c in 0..nc {
        a.push((c, c * d, -1.0));
    }
    let mut cones = vec![SupportedConeT::NonnegativeConeT(nc)];
    let mut row = nc;
    for c in 0..nc {
        if p.mu[c] > 0.0 {
            a.push((row, c * d, -p.mu[c]));
            row += 1;
            cones.push(SupportedConeT::SecondOrderConeT(d));
        } else {
            cones.push(SupportedConeT::ZeroConeT(d - 1));
        }
        for k in 1..d {
            a.push((row, c * d + k, -1.0));
            row += 1;
        }
    }
    (pmat, csc(row, n, a), vec![0.0; row], cones)
}

/// A compressed-column matrix from triplets (duplicates summed).
fn csc(m: usize, n: usize, mut t: Vec<(usize, usize, f64)>) -> CscMatrix<f64> {
    t.sort_by_key(|&(i, j, _)| (j, i));
    let (mut colptr, mut rowval, mut nzval) = (vec![0usize; n + 1], Vec::with_capacity(t.len()), Vec::new());
    let mut last: Option<(usize, usize)> = None;
    for (i, j, v) in t {
        if last == Some((i, j)) {
            *nzval.last_mut().expect("an entry") += v;
            continue;
        }
        rowval.push(i);
        nzval.push(v);
        colptr[j + 1] += 1;
        last = Some((i, j));
    }
    for j in 0..n {
        colptr[j + 1] += colptr[j];
    }
    CscMatrix::new(m, n, colptr, rowval, nzval)
}

/// Why the interior-point method gave no solution.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConicError {
    /// Clarabel refused the settings built from the stop rule (its message).
    #[error("Clarabel's settings: {0}")]
    Settings(String),
    /// Clarabel refused the problem data (its message).
    #[error("Clarabel refused: {0}")]
    Refused(String),
    /// The method ended without a solution.
    #[error("the interior-point method ended {status} after {iterations} iterations")]
    Ended {
        /// Clarabel's final status.
        status: String,
        /// Its iterations.
        iterations: u32,
    },
}

/// The relaxation's solution by the interior-point method, with its iterations; or why none.
pub fn solve_ccp(p: &LocalProblem, tol: f64, max_iter: u32, seconds: f64) -> Result<(Vec<f64>, u32), ConicError> {
    let (pmat, a, b, cones) = conic_data(p);
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .tol_gap_abs(tol)
        .tol_gap_rel(tol)
        .tol_feas(tol)
        .max_iter(max_iter)
        .time_limit(seconds)
        .build()
        .map_err(|e| ConicError::Settings(e.to_string()))?;
    let mut solver =
        DefaultSolver::new(&pmat, &p.q, &a, &b, &cones, settings).map_err(|e| ConicError::Refused(e.to_string()))?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => {
            Ok((solver.solution.x.clone(), solver.solution.iterations))
        }
        s => Err(ConicError::Ended { status: format!("{s:?}"), iterations: solver.solution.iterations }),
    }
}

impl ContactSolver for Ipm {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let mut mon = Monitor::new(p, stop);
        let tol = self.params.tol.min(0.1 * stop.tol).max(1e-14);
        match solve_ccp(p, tol, self.params.max_iter, stop.seconds) {
            Ok((x, it)) => {
                r.copy_from_slice(&x);
                let mut o = match mon.check(p, r, 1) {
                    Some(o) if o.converged => o,
                    _ => mon.finish(
                        1,
                        Some("reached the convex relaxation's solution; the Coulomb residual stays above tol".into()),
                    ),
                };
                o.iterations = it as usize;
                o
            }
            Err(e) => {
                let _ = mon.check(p, r, 0);
                mon.finish(0, Some(e.to_string().into()))
            }
        }
    }
}
