//! `generalized_alpha`'s full Newton: GMRES on the Newton system with finite-difference products
//! of the exact Jacobian (Knoll & Keyes 2004), right-preconditioned by the simplified Newton
//! matrix (Saad 2003, Alg. 9.5).

use super::{GeneralizedAlpha, Scale, position_change, precondition, residual};
use crate::linsolve::{SolveError, norm};

/// GMRES on the Newton system with finite-difference products (Knoll & Keyes 2004) and the
/// simplified Newton matrix as right preconditioner (Saad 2003, Alg. 9.5).
pub(super) struct Gmres {
    /// Orthonormal basis of the Krylov space, k + 1 vectors of the unknowns' length.
    basis: Vec<Vec<f64>>,
    /// Hessenberg matrix, column-major (k + 1) × k, and the Givens rotations.
    hess: Vec<f64>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    g: Vec<f64>,
    /// The least-squares solution (k).
    y: Vec<f64>,
    /// The position change of the direction (length n), the perturbed iterate (q, v, q̈, λ) and
    /// the residual there.
    dq: Vec<f64>,
    qp: Vec<f64>,
    vp: Vec<f64>,
    qddp: Vec<f64>,
    lp: Vec<f64>,
    fp: Vec<f64>,
    /// Scratch of the unknowns' length.
    w: Vec<f64>,
    z: Vec<f64>,
}

impl Gmres {
    /// The workspace of at most `k` iterations on `len` unknowns, for nq coordinates, n velocities
    /// and m rows.
    pub(super) fn new(k: usize, len: usize, nq: usize, n: usize, m: usize) -> Self {
        Gmres {
        basis: vec![vec![0.0; len]; k + 1],
        hess: vec![0.0; (k + 1) * k],
        cs: vec![0.0; k],
        sn: vec![0.0; k],
        g: vec![0.0; k + 1],
        y: vec![0.0; k],
        dq: vec![0.0; n],
        qp: vec![0.0; nq],
        vp: vec![0.0; n],
        qddp: vec![0.0; n],
        lp: vec![0.0; m],
        fp: vec![0.0; len],
        w: vec![0.0; len],
        z: vec![0.0; len],
        }
    }
}

impl GeneralizedAlpha<'_> {
    /// The directional derivative of F̃ at the iterate along x = (Δq, Δλ) (stabilized
    /// (x, Δλ, Δη)), by a forward difference (Δq from [`position_change`], Δv = γ′x, Δq̈ = β′x),
    /// into `out`.
    fn jacobian_times(&mut self, g: &mut Gmres, q: &[f64], v: &[f64], s: Scale, x: &[f64], out: &mut [f64]) {
        let (n, m) = (v.len(), self.lambda.len());
        position_change(self.jac_start.as_ref(), self.core.ns.system.inv_mass(), x, m, &mut g.dq);
        // ε relative to each component's size (positions in m, multipliers in N).
        let rel = g
            .dq
            .iter()
            .zip(q)
            .map(|(d, u)| d.abs() / (1.0 + u.abs()))
            .chain(x[n..n + m].iter().zip(&self.lambda).map(|(d, u)| d.abs() / (1.0 + u.abs())))
            .fold(0.0f64, f64::max);
        if rel == 0.0 {
            out.fill(0.0);
            return;
        }
        let eps = f64::EPSILON.sqrt() / rel;
        for i in 0..n {
            g.qp[i] = q[i] + eps * g.dq[i];
            g.vp[i] = v[i] + eps * s.gamma_p * x[i];
            g.qddp[i] = self.qdd[i] + eps * s.beta_p * x[i];
        }
        g.qp[n..].copy_from_slice(&q[n..]);
        for (l, (l0, d)) in g.lp.iter_mut().zip(self.lambda.iter().zip(&x[n..n + m])) {
            *l = l0 + eps * d;
        }
        residual(&mut self.core, &mut self.jac_eval, &g.qp, &g.vp, &g.qddp, &g.lp, s, &mut g.fp);
        for ((o, fp), f) in out.iter_mut().zip(&g.fp).zip(&self.f) {
            *o = (fp - f) / eps;
        }
    }

    /// GMRES from `dx` (the preconditioned start) on F̃′ dx = −F̃, right-preconditioned, at most
    /// `krylov` iterations, to a relative residual of 1e-8 (Saad 2003, Alg. 9.5).
    pub(super) fn refine(&mut self, g: &mut Gmres, q: &[f64], v: &[f64], s: Scale) -> Result<(), SolveError> {
        let k = self.opts.krylov;
        let dx = std::mem::take(&mut self.dx);
        let mut w = std::mem::take(&mut g.w);
        self.jacobian_times(g, q, v, s, &dx, &mut w);
        self.dx = dx;
        // r₀ = −F̃ − F̃′ x₀
        let fnorm = norm(&self.f);
        for ((b, wi), fi) in g.basis[0].iter_mut().zip(&w).zip(&self.f) {
            *b = -fi - wi;
        }
        let beta = norm(&g.basis[0]);
        g.w = w;
        if !(beta > 1e-8 * fnorm) {
            return Ok(());
        }
        g.basis[0].iter_mut().for_each(|b| *b /= beta);
        g.g.fill(0.0);
        g.g[0] = beta;
        let mut used = 0;
        for j in 0..k {
            let (mut z, mut w) = (std::mem::take(&mut g.z), std::mem::take(&mut g.w));
            precondition(&mut self.core, s, &g.basis[j], &mut z, true)?;
            self.jacobian_times(g, q, v, s, &z, &mut w);
            g.z = z;
            g.w = w;
            let rest = arnoldi(g, j, k);
            if g.hess[j * (k + 1) + j] == 0.0 {
                break; // F̃′ P⁻¹ is singular on the new direction: keep the columns before it
            }
            used = j + 1;
            if rest <= 1e-8 * fnorm {
                break;
            }
        }
        // y from the triangular system, then dx += P⁻¹ (V y).
        for i in (0..used).rev() {
            let s: f64 = (i + 1..used).map(|l| g.hess[l * (k + 1) + i] * g.y[l]).sum();
            g.y[i] = (g.g[i] - s) / g.hess[i * (k + 1) + i];
        }
        g.w.fill(0.0);
        for (yj, vj) in g.y[..used].iter().zip(&g.basis) {
            for (wi, vi) in g.w.iter_mut().zip(vj) {
                *wi += yj * vi;
            }
        }
        precondition(&mut self.core, s, &g.w, &mut g.z, true)?;
        for (d, z) in self.dx.iter_mut().zip(&g.z) {
            *d += z;
        }
        Ok(())
    }
}

/// One Arnoldi step on column j with the new vector in `g.w` (modified Gram–Schmidt), the Givens
/// rotations applied; returns the least-squares residual |g_{j+1}|.
fn arnoldi(g: &mut Gmres, j: usize, k: usize) -> f64 {
    let col = j * (k + 1);
    for i in 0..=j {
        let h: f64 = g.w.iter().zip(&g.basis[i]).map(|(a, b)| a * b).sum();
        g.hess[col + i] = h;
        for (wi, vi) in g.w.iter_mut().zip(&g.basis[i]) {
            *wi -= h * vi;
        }
    }
    let hn = norm(&g.w);
    g.hess[col + j + 1] = hn;
    if j + 1 < g.basis.len() && hn > 0.0 {
        let (next, w) = (&mut g.basis[j + 1], &g.w);
        for (b, wi) in next.iter_mut().zip(w) {
            *b = wi / hn;
        }
    }
    for i in 0..j {
        let (a, b) = (g.hess[col + i], g.hess[col + i + 1]);
        g.hess[col + i] = g.cs[i] * a + g.sn[i] * b;
        g.hess[col + i + 1] = -g.sn[i] * a + g.cs[i] * b;
    }
    let (a, b) = (g.hess[col + j], g.hess[col + j + 1]);
    let d = a.hypot(b);
    (g.cs[j], g.sn[j]) = if d > 0.0 { (a / d, b / d) } else { (1.0, 0.0) };
    g.hess[col + j] = d;
    g.hess[col + j + 1] = 0.0;
    g.g[j + 1] = -g.sn[j] * g.g[j];
    g.g[j] *= g.cs[j];
    g.g[j + 1].abs()
}
