//! Reduced coordinates q = q(u) for the `lagrangian` formulation (Witkin 1997, §5, eq. 13).
//!
//! A parametrization maps k generalized coordinates u to the Cartesian q of a scene so that every
//! constraint holds identically; J = ∂q/∂u is n × k. The formulation needs only products with J,
//! Jᵀ, the velocity-product term J̇ u̇ and the reduced mass matrix Jᵀ M J, so a parametrization
//! provides those directly and can exploit its structure.

/// A global parametrization of a scene's constraint manifold.
pub trait Parametrization: Send + Sync + std::fmt::Debug {
    /// Number k of reduced coordinates.
    fn dim(&self) -> usize;
    /// Reduced state (u, u̇) of the Cartesian state (q, v), which must satisfy the constraints.
    fn reduce(&self, q: &[f64], v: &[f64], u: &mut [f64], ud: &mut [f64]);
    /// q(u).
    fn position(&self, u: &[f64], q: &mut [f64]);
    /// v = J(u) u̇.
    fn velocity(&self, u: &[f64], ud: &[f64], v: &mut [f64]);
    /// J̇(u, u̇) u̇: the Cartesian acceleration at ü = 0.
    fn jdot_udot(&self, u: &[f64], ud: &[f64], out: &mut [f64]);
    /// out = J(u)ᵀ y.
    fn jt_mul(&self, u: &[f64], y: &[f64], out: &mut [f64]);
    /// The reduced mass matrix Jᵀ M J (k × k, column-major) for the mass diagonal `mass`.
    fn mass_matrix(&self, u: &[f64], mass: &[f64], out: &mut [f64]);
}

/// A planar open chain of point masses in absolute link angles: body i sits at
/// p_i = anchor + Σ_{j ≤ i} ℓ_j (cos u_j, sin u_j), u_j measured from +x.
///
/// J has the columns ∂p_i/∂u_j = ℓ_j (−sin u_j, cos u_j) for i ≥ j, so
///   (Jᵀ M J)_{ij} = ℓ_i ℓ_j cos(u_i − u_j) Σ_{p ≥ max(i,j)} m_p,
///   (Jᵀ y)_j = ℓ_j (−sin u_j, cos u_j) · Σ_{i ≥ j} y_i,
///   (J̇ u̇)_i = −Σ_{j ≤ i} ℓ_j u̇_j² (cos u_j, sin u_j),
/// which cost O(k²), O(n) and O(n) instead of the dense O(n k²).
#[derive(Clone, Debug)]
pub struct AngleChain {
    first_body: usize,
    anchor: [f64; 2],
    fixed_first: bool,
    lengths: Vec<f64>,
}

impl AngleChain {
    /// A chain of particle-2D bodies `first_body`, `first_body + 1`, … (stored consecutively in q)
    /// hanging from `anchor` \[m\]. With `fixed_first`, body `first_body` sits at the anchor and the
    /// links move the bodies after it; otherwise link 0 moves `first_body`. `lengths` \[m\] per link.
    pub fn new(first_body: usize, anchor: [f64; 2], fixed_first: bool, lengths: Vec<f64>) -> Self {
        AngleChain { first_body, anchor, fixed_first, lengths }
    }

    /// Offset in q of the body moved by link j.
    fn offset(&self, j: usize) -> usize {
        2 * (self.first_body + j + usize::from(self.fixed_first))
    }
}

impl Parametrization for AngleChain {
    fn dim(&self) -> usize {
        self.lengths.len()
    }

    fn reduce(&self, q: &[f64], v: &[f64], u: &mut [f64], ud: &mut [f64]) {
        let (mut prev, mut prev_v) = (self.anchor, [0.0, 0.0]);
        for j in 0..self.dim() {
            let o = self.offset(j);
            let d = [q[o] - prev[0], q[o + 1] - prev[1]];
            let dv = [v[o] - prev_v[0], v[o + 1] - prev_v[1]];
            u[j] = d[1].atan2(d[0]);
            ud[j] = (d[0] * dv[1] - d[1] * dv[0]) / (d[0] * d[0] + d[1] * d[1]);
            prev = [q[o], q[o + 1]];
            prev_v = [v[o], v[o + 1]];
        }
    }

    fn position(&self, u: &[f64], q: &mut [f64]) {
        let mut p = self.anchor;
        if self.fixed_first {
            let o = 2 * self.first_body;
            q[o..o + 2].copy_from_slice(&p);
        }
        for (j, (&uj, &l)) in u.iter().zip(&self.lengths).enumerate() {
            p[0] += l * uj.cos();
            p[1] += l * uj.sin();
            let o = self.offset(j);
            q[o..o + 2].copy_from_slice(&p);
        }
    }

    fn velocity(&self, u: &[f64], ud: &[f64], v: &mut [f64]) {
        let mut pv = [0.0, 0.0];
        if self.fixed_first {
            let o = 2 * self.first_body;
            v[o..o + 2].fill(0.0);
        }
        for j in 0..self.dim() {
            let (s, c) = u[j].sin_cos();
            pv[0] -= self.lengths[j] * ud[j] * s;
            pv[1] += self.lengths[j] * ud[j] * c;
            let o = self.offset(j);
            v[o..o + 2].copy_from_slice(&pv);
        }
    }

    fn jdot_udot(&self, u: &[f64], ud: &[f64], out: &mut [f64]) {
        let mut acc = [0.0, 0.0];
        if self.fixed_first {
            let o = 2 * self.first_body;
            out[o..o + 2].fill(0.0);
        }
        for j in 0..self.dim() {
            let (s, c) = u[j].sin_cos();
            let w2 = self.lengths[j] * ud[j] * ud[j];
            acc[0] -= w2 * c;
            acc[1] -= w2 * s;
            let o = self.offset(j);
            out[o..o + 2].copy_from_slice(&acc);
        }
    }

    fn jt_mul(&self, u: &[f64], y: &[f64], out: &mut [f64]) {
        let mut tail = [0.0, 0.0];
        for j in (0..self.dim()).rev() {
            let o = self.offset(j);
            tail[0] += y[o];
            tail[1] += y[o + 1];
            let (s, c) = u[j].sin_cos();
            out[j] = self.lengths[j] * (-s * tail[0] + c * tail[1]);
        }
    }

    fn mass_matrix(&self, u: &[f64], mass: &[f64], out: &mut [f64]) {
        let k = self.dim();
        // tail[j] = Σ_{p ≥ j} m_p (the mass moved by link j).
        let mut tail = 0.0;
        for j in (0..k).rev() {
            tail += mass[self.offset(j)];
            for i in 0..=j {
                let a = self.lengths[i] * self.lengths[j] * (u[i] - u[j]).cos() * tail;
                out[i + j * k] = a;
                out[j + i * k] = a;
            }
        }
    }
}
