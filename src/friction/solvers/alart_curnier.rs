//! The Alart–Curnier function of one contact and its generalized Jacobian (Alart & Curnier 1991,
//! "A mixed formulation for frictional contact problems prone to Newton like solution methods";
//! Acary, Brémond, Huber 2018, §3.3), shared by `nsgs_ac` (a Newton per contact) and `newton_ac`
//! (a Newton on the whole problem).
//!
//! With ρ > 0, x = r − ρ u:
//!
//! Φ_N = r_N − max(0, x_N),   Φ_T = r_T − P_D(μ max(0, x_N))(x_T),
//!
//! P_D(b) the projection onto the disk ‖·‖ ≤ b. Φ(r, u) = 0 exactly when (r, u) satisfies Signorini
//! and Coulomb's law (sliding against u_T, sticking with u_T = 0), so no De Saxcé term is needed.
//! Φ = r − p(x) with p piecewise smooth; its generalized Jacobian with respect to x is P'
//! below, and with u = W r + q the Jacobian with respect to r is H = I − P' + ρ P' W.

/// Φ of one contact (normal first; `dim` 2 or 3) at (r, u) into `phi`, and P' = ∂p/∂x into
/// `dp` (rows and columns beyond `dim` left untouched). At a kink the one-sided derivative of the
/// active piece is taken (x_N = 0: the contact counted open; ‖x_T‖ = b: counted sticking).
pub(crate) fn contact(mu: f64, rho: f64, r: &[f64], u: &[f64], phi: &mut [f64], dp: &mut [[f64; 3]; 3]) {
    let dim = r.len();
    let xn = r[0] - rho * u[0];
    let (pn, a) = if xn > 0.0 { (xn, 1.0) } else { (0.0, 0.0) };
    let mut xt = [0.0; 2];
    for k in 1..dim {
        xt[k - 1] = r[k] - rho * u[k];
    }
    let t = xt[..dim - 1].iter().map(|v| v * v).sum::<f64>().sqrt();
    let bound = mu * pn;
    for row in dp.iter_mut() {
        *row = [0.0; 3];
    }
    dp[0][0] = a;
    phi[0] = r[0] - pn;
    if t <= bound {
        for k in 1..dim {
            dp[k][k] = 1.0;
            phi[k] = r[k] - xt[k - 1];
        }
    } else {
        // On the disk's edge: p_T = b x_T/‖x_T‖, ∂p_T/∂x_T = (b/t)(I − ê êᵀ), ∂p_T/∂x_N = μ a ê.
        let s = bound / t;
        for i in 1..dim {
            let ei = xt[i - 1] / t;
            phi[i] = r[i] - s * xt[i - 1];
            dp[i][0] = mu * a * ei;
            for j in 1..dim {
                let ej = xt[j - 1] / t;
                dp[i][j] = s * (if i == j { 1.0 } else { 0.0 } - ei * ej);
            }
        }
    }
}

/// One contact's problem with the others fixed, u = W_αα r + b, by a damped Newton on its
/// Alart–Curnier function from the `r` given: H Δ = −Φ with H = I − P' + ρ P' W_αα, the step
/// halved until ½‖Φ‖² decreases by the Armijo factor (1 − 10⁻⁴ t); at most 50 steps, stopping
/// when ‖Φ‖ is at rounding level (10⁻¹⁵ of ‖r‖ + ρ‖u‖). Where H is singular or no step
/// decreases ‖Φ‖ (the function is only semismooth), the contact falls back to the projected fixed
/// point ([`super::local_fixed_point`]). `w` is W_αα, `r` updated in place.
pub(crate) fn local_newton(dim: usize, mu: f64, w: &[[f64; 3]; 3], b: &[f64], rho: f64, r: &mut [f64]) {
    let phi_at = |r: &[f64], phi: &mut [f64], dp: &mut [[f64; 3]; 3]| {
        let mut u = [0.0; 3];
        for i in 0..dim {
            u[i] = b[i] + (0..dim).map(|j| w[i][j] * r[j]).sum::<f64>();
        }
        contact(mu, rho, r, &u[..dim], phi, dp);
        let scale = (0..dim).map(|i| r[i].abs() + rho * u[i].abs()).fold(0.0, f64::max);
        (phi.iter().map(|v| v * v).sum::<f64>(), scale)
    };
    let (mut phi, mut dp) = ([0.0; 3], [[0.0; 3]; 3]);
    for _ in 0..50 {
        let (psi, scale) = phi_at(r, &mut phi[..dim], &mut dp);
        if psi.sqrt() <= 1e-15 * scale + 1e-300 {
            return;
        }
        let mut h = [[0.0; 3]; 3];
        for i in 0..dim {
            for j in 0..dim {
                let pw: f64 = (0..dim).map(|k| dp[i][k] * w[k][j]).sum();
                h[i][j] = if i == j { 1.0 } else { 0.0 } - dp[i][j] + rho * pw;
            }
        }
        let mut step = [-phi[0], -phi[1], -phi[2]];
        if !solve_small(dim, &mut h, &mut step[..dim]) {
            break;
        }
        let (mut t, mut trial, mut accepted) = (1.0, [0.0; 3], false);
        for _ in 0..30 {
            for i in 0..dim {
                trial[i] = r[i] + t * step[i];
            }
            let (psi_t, _) = phi_at(&trial[..dim], &mut phi[..dim], &mut dp);
            if psi_t <= (1.0 - 1e-4 * t) * psi {
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            break;
        }
        r.copy_from_slice(&trial[..dim]);
    }
    super::local_fixed_point(dim, mu, w, b, rho, r);
}

/// Solves the `n` × `n` system A x = b (n ≤ 3) by Gaussian elimination with partial pivoting, in
/// place in `b`; false when a pivot vanishes (relative to the largest entry of A).
pub(crate) fn solve_small(n: usize, a: &mut [[f64; 3]; 3], b: &mut [f64]) -> bool {
    let scale = a.iter().take(n).flat_map(|row| row[..n].iter()).fold(0.0f64, |m, v| m.max(v.abs()));
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs())).expect("a row");
        if !(a[p][k].abs() > 1e-14 * scale) {
            return false;
        }
        a.swap(k, p);
        b.swap(k, p);
        let pivot_row = a[k];
        for i in k + 1..n {
            let f = a[i][k] / pivot_row[k];
            for (aij, akj) in a[i][k..n].iter_mut().zip(&pivot_row[k..n]) {
                *aij -= f * akj;
            }
            b[i] -= f * b[k];
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k][j] * b[j]).sum();
        b[k] = (b[k] - s) / a[k][k];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Jacobian P' against central differences of p(x) = r − Φ at points off the kinks, in
    /// every piece (open, sticking, sliding), 2D and 3D.
    #[test]
    fn the_generalized_jacobian_is_the_derivative_away_from_kinks() {
        let rho = 0.7;
        for (mu, r) in [
            (0.5, vec![1.0, 0.1, -0.2]),
            (0.5, vec![1.0, 2.0, -1.5]),
            (0.3, vec![-1.0, 0.4, 0.2]),
            (0.8, vec![2.0, -3.0]),
            (0.8, vec![2.0, 0.3]),
        ] {
            let dim = r.len();
            let u = vec![0.0; dim];
            let (mut phi, mut dp) = (vec![0.0; dim], [[0.0; 3]; 3]);
            contact(mu, rho, &r, &u, &mut phi, &mut dp);
            for j in 0..dim {
                let h = 1e-6;
                let (mut rp, mut rm) = (r.clone(), r.clone());
                rp[j] += h;
                rm[j] -= h;
                let (mut fp, mut fm, mut d) = (vec![0.0; dim], vec![0.0; dim], [[0.0; 3]; 3]);
                contact(mu, rho, &rp, &u, &mut fp, &mut d);
                contact(mu, rho, &rm, &u, &mut fm, &mut d);
                for i in 0..dim {
                    // p = r − Φ, and x = r here (u = 0): ∂p_i/∂x_j = δ_ij − ∂Φ_i/∂r_j.
                    let delta = if i == j { 1.0 } else { 0.0 };
                    let fd = delta - (fp[i] - fm[i]) / (2.0 * h);
                    assert!((fd - dp[i][j]).abs() < 1e-7, "mu {mu}, r {r:?}: dp[{i}][{j}] = {} vs {fd}", dp[i][j]);
                }
            }
        }
    }

    /// Φ vanishes at the known solutions: a sticking contact (u = 0 inside the cone), a sliding
    /// one (r on the cone's edge, u_T opposite r_T, u_N = 0), an open one (r = 0, u_N > 0).
    #[test]
    fn phi_vanishes_at_coulomb_solutions() {
        let (mu, rho) = (0.5, 1.3);
        for (r, u) in [
            ([1.0, 0.1, 0.2], [0.0, 0.0, 0.0]),
            ([2.0, 0.6, -0.8], [0.0, -3.0, 4.0]),
            ([0.0, 0.0, 0.0], [1.0, 5.0, -2.0]),
        ] {
            let (mut phi, mut dp) = ([0.0; 3], [[0.0; 3]; 3]);
            contact(mu, rho, &r, &u, &mut phi, &mut dp);
            assert!(phi.iter().all(|v| v.abs() < 1e-15), "r {r:?}, u {u:?}: {phi:?}");
        }
    }
}
