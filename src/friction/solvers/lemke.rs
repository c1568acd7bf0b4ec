//! `lemke` — the pivoting reference: Lemke's complementary pivoting (Lemke 1965; Cottle, Pang &
//! Stone 1992, §4.4) on the linear complementarity problem of the friction *pyramid* (Stewart &
//! Trinkle 1996; Anitescu & Potra 1997). In 2D the pyramid is the cone, so Lemke's answer is the
//! exact Coulomb solution (up to rounding) the iterative solvers are checked against; in 3D it
//! is the inscribed pyramid with the four directions ±t₁, ±t₂ (|r_T1| + |r_T2| ≤ μ r_N), a
//! different problem, scored on the Coulomb cone all the same.
//!
//! Unknowns per contact: r_N, β ≥ 0 (one per direction, r_T = D β) and λ (the sliding speed):
//!
//! 0 ≤ r_N ⊥ u_N ≥ 0,  0 ≤ β ⊥ Dᵀ u_T + λ e ≥ 0,  0 ≤ λ ⊥ μ r_N − eᵀ β ≥ 0,  u = W r + q.
//!
//! The tableau is dense, (n + 2n + 2) columns for n unknowns, and a pivot costs O(n²): a reference
//! for small problems (at most [`MAX_CONTACTS`] contacts).

use super::{ContactSolver, ContactSolverEntry, Monitor, Outcome, Stop};
use crate::friction::LocalProblem;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most contacts `lemke` takes (in 3D 300 LCP unknowns: a dense tableau of 1.4 MB).
pub const MAX_CONTACTS: usize = 50;

/// Parameters of `lemke` (none: it pivots until the solution or a ray).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LemkeParams {}

impl Params for LemkeParams {}

impl From<LemkeParams> for Box<dyn ContactSolver> {
    fn from(_: LemkeParams) -> Self {
        Box::new(Lemke)
    }
}

/// The registry entry of `lemke`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<LemkeParams>(
    "lemke",
    "Lemke's pivoting on the friction pyramid's LCP (Stewart & Trinkle 1996): exact in 2D, the inscribed 4-sided pyramid in 3D; small problems",
)
.pyramid();

/// Lemke's method.
struct Lemke;

/// The pyramid's directions in the tangent plane of a contact of dimension `dim`.
fn directions(dim: usize) -> Vec<[f64; 2]> {
    if dim == 2 { vec![[1.0, 0.0], [-1.0, 0.0]] } else { vec![[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]] }
}

/// Per LCP unknown, the components of r it moves, with their weights.
type Unknowns = Vec<Vec<(usize, f64)>>;

/// The LCP (M, q̃) of the pyramid, dense row-major, and the map E from its unknowns
/// z = (r_N, β, λ per contact) to r (as, per unknown, the (row of r, weight) pairs).
fn lcp(p: &LocalProblem) -> (Vec<f64>, Vec<f64>, Unknowns) {
    let (d, nc) = (p.dim, p.contacts());
    let dirs = directions(d);
    let per = 2 + dirs.len();
    let n = nc * per;
    // Column k of E: which components of r unknown k moves.
    let mut e: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for a in 0..nc {
        e[a * per].push((a * d, 1.0));
        for (k, dir) in dirs.iter().enumerate() {
            for t in 1..d {
                if dir[t - 1] != 0.0 {
                    e[a * per + 1 + k].push((a * d + t, dir[t - 1]));
                }
            }
        }
    }
    // W dense (a small problem), then W E column by column (n_r × n).
    let nr = p.q.len();
    let mut w = vec![0.0; nr * nr];
    for i in 0..nr {
        for k in p.w.ptr[i]..p.w.ptr[i + 1] {
            w[i * nr + p.w.idx[k]] += p.w.val[k];
        }
    }
    let mut we = vec![0.0; nr * n];
    for (k, col) in e.iter().enumerate() {
        for &(j, wt) in col {
            for i in 0..nr {
                we[i * n + k] += wt * w[i * nr + j];
            }
        }
    }
    let mut m = vec![0.0; n * n];
    let mut qt = vec![0.0; n];
    for (row, col) in e.iter().enumerate() {
        for &(i, wt) in col {
            for k in 0..n {
                m[row * n + k] += wt * we[i * n + k];
            }
            qt[row] += wt * p.q[i];
        }
    }
    for a in 0..nc {
        let lam = a * per + per - 1;
        for k in 0..dirs.len() {
            m[(a * per + 1 + k) * n + lam] = 1.0;
            m[lam * n + a * per + 1 + k] = -1.0;
        }
        m[lam * n + a * per] = p.mu[a];
    }
    (m, qt, e)
}

/// Why Lemke's method stopped without a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum LemkeEnd {
    /// No row limits the entering variable: the LCP has no solution Lemke can reach.
    #[error("Lemke's method ended on a secondary ray after {0} pivots")]
    SecondaryRay(usize),
    /// The pivot budget ran out.
    #[error("Lemke's method took {0} pivots without reaching a solution")]
    PivotLimit(usize),
}

/// Solves w = M z + q ≥ 0 ⊥ z ≥ 0 by Lemke's method with the covering vector 1; the pivots taken,
/// or why it stopped (a secondary ray: the LCP has no solution Lemke can reach).
fn solve_lcp(n: usize, m: &[f64], q: &[f64], max_pivots: usize) -> Result<(Vec<f64>, usize), LemkeEnd> {
    if q.iter().all(|&v| v >= 0.0) {
        return Ok((vec![0.0; n], 0));
    }
    // Tableau rows: w − M z − 1 z0 = q; columns w (0..n), z (n..2n), z0 (2n), rhs (2n + 1).
    let cols = 2 * n + 2;
    let mut t = vec![0.0; n * cols];
    for i in 0..n {
        t[i * cols + i] = 1.0;
        for k in 0..n {
            t[i * cols + n + k] = -m[i * n + k];
        }
        t[i * cols + 2 * n] = -1.0;
        t[i * cols + 2 * n + 1] = q[i];
    }
    let mut basis: Vec<usize> = (0..n).collect();
    let r = (0..n).min_by(|&a, &b| q[a].total_cmp(&q[b])).expect("a row");
    pivot(&mut t, cols, r, 2 * n);
    let mut leaving = basis[r];
    basis[r] = 2 * n;
    for pivots in 1..=max_pivots {
        let entering = if leaving < n { leaving + n } else { leaving - n };
        // Ratio test over rows whose entering coefficient is positive; ties go to z0's row.
        let mut best: Option<(usize, f64)> = None;
        for i in 0..n {
            let a = t[i * cols + entering];
            if a > 1e-12 {
                let ratio = t[i * cols + 2 * n + 1] / a;
                let better = match best {
                    None => true,
                    Some((bi, br)) => {
                        ratio < br - 1e-12 || (ratio <= br + 1e-12 && basis[i] == 2 * n && basis[bi] != 2 * n)
                    }
                };
                if better {
                    best = Some((i, ratio));
                }
            }
        }
        let Some((row, _)) = best else {
            return Err(LemkeEnd::SecondaryRay(pivots));
        };
        pivot(&mut t, cols, row, entering);
        leaving = basis[row];
        basis[row] = entering;
        if leaving == 2 * n {
            let mut z = vec![0.0; n];
            for (i, &b) in basis.iter().enumerate() {
                if (n..2 * n).contains(&b) {
                    z[b - n] = t[i * cols + 2 * n + 1].max(0.0);
                }
            }
            return Ok((z, pivots));
        }
    }
    Err(LemkeEnd::PivotLimit(max_pivots))
}

/// Gauss–Jordan pivot of the tableau on (row, col).
fn pivot(t: &mut [f64], cols: usize, row: usize, col: usize) {
    let p = t[row * cols + col];
    for v in &mut t[row * cols..(row + 1) * cols] {
        *v /= p;
    }
    let pivot_row: Vec<f64> = t[row * cols..(row + 1) * cols].to_vec();
    for (i, r) in t.chunks_mut(cols).enumerate() {
        let f = r[col];
        if i != row && f != 0.0 {
            for (x, y) in r.iter_mut().zip(&pivot_row) {
                *x -= f * y;
            }
        }
    }
}

impl ContactSolver for Lemke {
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome {
        let mut mon = Monitor::new(p, stop);
        if p.contacts() > MAX_CONTACTS {
            let _ = mon.check(p, r, 0);
            return mon.finish(
                0,
                Some(
                    format!("lemke is a reference for at most {MAX_CONTACTS} contacts; this problem has {}", p.contacts())
                        .into(),
                ),
            );
        }
        let (m, qt, e) = lcp(p);
        let n = qt.len();
        match solve_lcp(n, &m, &qt, 50 * n + 100) {
            Ok((z, pivots)) => {
                r.fill(0.0);
                for (k, col) in e.iter().enumerate() {
                    for &(i, wt) in col {
                        r[i] += wt * z[k];
                    }
                }
                let mut o = match mon.check(p, r, 1) {
                    Some(o) => o,
                    None => mon.finish(1, Some("the pyramid's solution; the cone's residual stays above tol".into())),
                };
                o.iterations = pivots;
                o
            }
            Err(end) => {
                let _ = mon.check(p, r, 0);
                mon.finish(0, Some(end.to_string().into()))
            }
        }
    }
}
