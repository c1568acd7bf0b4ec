//! The Coulomb cone and the natural-map residual.
//!
//! K_μ = {r : ‖r_T‖ ≤ μ r_N} per contact (normal component first), its dual
//! K*_μ = {u : μ ‖u_T‖ ≤ u_N}. The problem is K*_μ ∋ û ⟂ r ∈ K_μ with û = u + [μ‖u_T‖, 0, 0]
//! (De Saxcé's change of variable). Its natural map (Acary, Brémond, Huber 2018, eq. for
//! F_nat; Facchinei & Pang 2003, §1.5) is F(r) = r − P_K(r − û), zero exactly at a solution; the
//! residual reported is ‖F(r)‖₂ over all contacts, absolute and divided by a named normalisation
//! ([`Normalisation`]).

/// Projects x = (x_N, x_T) (length 2 or 3, normal first) onto K_μ = {‖x_T‖ ≤ μ x_N}, in place:
/// x itself inside the cone, 0 inside its polar cone μ‖x_T‖ ≤ −x_N, else the nearest point of
/// the boundary, x_N' = (x_N + μ‖x_T‖)/(1 + μ²), x_T' = μ x_N' x_T/‖x_T‖. With μ = 0 the cone is
/// the ray x_T = 0, x_N ≥ 0 (the `x_N ≥ 0` test is not implied by ‖x_T‖ ≤ μ x_N there).
pub fn project(mu: f64, x: &mut [f64]) {
    let t = x[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    let n = x[0];
    if n >= 0.0 && t <= mu * n {
        return;
    }
    if mu * t <= -n {
        x.fill(0.0);
        return;
    }
    let a = (n + mu * t) / (1.0 + mu * mu);
    x[0] = a;
    let s = if t > 0.0 { mu * a / t } else { 0.0 };
    for v in &mut x[1..] {
        *v *= s;
    }
}

/// Projects x onto the friction *pyramid* of the box model, |x_T,i| ≤ μ x_N per tangential
/// direction with x_N ≥ 0 (the faceted approximation; exact in 2D, where it is the cone): the
/// normal clamped at 0, then each tangential component clamped to the box of the clamped normal.
pub fn project_box(mu: f64, x: &mut [f64]) {
    x[0] = x[0].max(0.0);
    let bound = mu * x[0];
    for v in &mut x[1..] {
        *v = v.clamp(-bound, bound);
    }
}

/// What the residual is divided by. The field uses several (Acary, Brémond, Huber 2018); the
/// one used is printed with every residual, and so is the absolute value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalisation {
    /// ‖q‖₂ (1 when q = 0): relative to the free velocity.
    Q,
    /// 1 + ‖q‖₂ (FCLIB's merit function).
    OnePlusQ,
}

impl Normalisation {
    /// The name printed with a residual.
    pub fn name(self) -> &'static str {
        match self {
            Normalisation::Q => "||F_nat(r)|| / ||q||",
            Normalisation::OnePlusQ => "||F_nat(r)|| / (1 + ||q||)",
        }
    }

    /// The divisor for a problem with free velocity q.
    pub fn divisor(self, q: &[f64]) -> f64 {
        let nq = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        match self {
            Normalisation::Q if nq > 0.0 => nq,
            Normalisation::Q => 1.0,
            Normalisation::OnePlusQ => 1.0 + nq,
        }
    }
}

/// The natural map of one contact: F = r − P_K(r − û), û = u + [μ‖u_T‖, 0, 0], into `f`.
pub fn natural_map_contact(mu: f64, r: &[f64], u: &[f64], f: &mut [f64]) {
    let ut = u[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
    for k in 0..r.len() {
        let uhat = if k == 0 { u[0] + mu * ut } else { u[k] };
        f[k] = r[k] - uhat;
    }
    project(mu, f);
    for (fk, rk) in f.iter_mut().zip(r) {
        *fk = rk - *fk;
    }
}

/// ‖F_nat(r)‖₂ over every contact, for u = W r + q given (absolute; divide by a
/// [`Normalisation`]).
pub fn natural_map_norm(dim: usize, mu: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let mut f = [0.0; 3];
    let mut sum = 0.0;
    for (a, &m) in mu.iter().enumerate() {
        let s = a * dim..(a + 1) * dim;
        natural_map_contact(m, &r[s.clone()], &u[s], &mut f[..dim]);
        sum += f[..dim].iter().map(|v| v * v).sum::<f64>();
    }
    sum.sqrt()
}

/// ‖r − P_K(r − u)‖₂ over every contact: the natural map of the convex relaxation (the cone
/// complementarity problem of Anitescu 2006, no De Saxcé term), for u = W r + q given (absolute).
pub fn relaxed_natural_map_norm(dim: usize, mu: &[f64], r: &[f64], u: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (a, &m) in mu.iter().enumerate() {
        let (c, v) = (&r[a * dim..(a + 1) * dim], &u[a * dim..(a + 1) * dim]);
        let mut f = [0.0; 3];
        for k in 0..dim {
            f[k] = c[k] - v[k];
        }
        project(m, &mut f[..dim]);
        sum += (0..dim).map(|k| (c[k] - f[k]) * (c[k] - f[k])).sum::<f64>();
    }
    sum.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_lands_on_the_cone_and_is_idempotent_and_orthogonal() {
        for (mu, x) in [
            (0.5, [1.0, 2.0, -1.0]),
            (0.3, [-1.0, 0.1, 0.0]),
            (0.0, [2.0, 1.0, 1.0]),
            (1.0, [0.5, 0.2, 0.1]),
            (0.0, [-1.0, 0.0, 0.0]),
        ] {
            let mut p = x;
            project(mu, &mut p);
            let t = (p[1] * p[1] + p[2] * p[2]).sqrt();
            assert!(p[0] >= 0.0 && t <= mu * p[0] + 1e-15, "{p:?}");
            let mut pp = p;
            project(mu, &mut pp);
            assert_eq!(p, pp);
            // x − P(x) is orthogonal to P(x) (projection onto a cone).
            let d: f64 = (0..3).map(|k| (x[k] - p[k]) * p[k]).sum();
            assert!(d.abs() < 1e-14, "{d}");
        }
    }

    #[test]
    fn natural_map_vanishes_at_a_sticking_a_sliding_and_a_separated_contact() {
        // Separated: r = 0, u_N > 0.
        let mut f = [0.0; 3];
        natural_map_contact(0.5, &[0.0, 0.0, 0.0], &[1.0, 0.3, 0.0], &mut f);
        assert_eq!(f, [0.0; 3]);
        // Sticking: u = 0, r inside the cone.
        natural_map_contact(0.5, &[1.0, 0.2, 0.1], &[0.0, 0.0, 0.0], &mut f);
        assert_eq!(f, [0.0; 3]);
        // Sliding: r on the boundary opposite u_T, u_N = 0: û = (μ‖u_T‖, u_T) ∈ K*, ⟂ r.
        let (mu, s) = (0.5f64, 2.0f64);
        let r = [1.0, -mu, 0.0];
        let u = [0.0, s, 0.0];
        natural_map_contact(mu, &r, &u, &mut f);
        assert!(f.iter().all(|v| v.abs() < 1e-15), "{f:?}");
        // Not a solution, frictionless: a pulling normal impulse at zero velocity is r itself away.
        natural_map_contact(0.0, &[-1.0, 0.0, 0.0], &[0.0, 0.0, 0.0], &mut f);
        assert_eq!(f, [-1.0, 0.0, 0.0]);
    }
}
