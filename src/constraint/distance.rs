//! Distance (rigid rod) between two particles, or between a particle and a world anchor.
//!
//! With d = p_a − p_b (p_b the anchor for the one-body form), ℓ = |d|, n = d/ℓ:
//!   C      = ℓ − L                              \[m\]  (so ‖C‖∞ is a length error)
//!   J      = [ nᵀ, −nᵀ ]                        (1 × 2·dim; only nᵀ for the anchored form)
//!   J̇ v   = (|ḋ|² − (n·ḋ)²) / ℓ                 (ṅ = (ḋ − n (n·ḋ)) / ℓ, then ṅ·ḋ)
//! The rod of Witkin 1997 §4 and of seed 002, written as a length rather than ½(ℓ² − L²) so that
//! drift reads in metres. Undefined at ℓ = 0 (coincident particles).

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, dim_of};
use super::pair::{Frame2, Motion2, Pair2, Side};
use super::{Attach, Constraint};
use crate::model::BodyKind;

/// A rigid distance between two particles, or between one particle and a fixed world point.
#[derive(Clone, Debug)]
pub struct Distance {
    attach: Attach,
    dim: usize,
    /// World anchor \[m\] (used only by the one-body form; z ignored in 2D).
    pub anchor: [f64; 3],
    /// Rest length L \[m\].
    pub length: f64,
}

fn particle_kind(dim: usize) -> BodyKind {
    if dim == 3 { BodyKind::Particle3 } else { BodyKind::Particle2 }
}

impl Distance {
    /// Rod of `length` \[m\] between particles `a` and `b`, both of dimension `dim` (2 or 3).
    pub fn between(a: usize, b: usize, dim: usize, length: f64) -> Self {
        let k = particle_kind(dim);
        Distance { attach: Attach::two(a, k, b, k), dim: k.dim(), anchor: [0.0; 3], length }
    }

    /// Rod of `length` \[m\] between particle `a` (dimension `dim`) and the world point `anchor` \[m\].
    pub fn to_anchor(a: usize, dim: usize, anchor: [f64; 3], length: f64) -> Self {
        let k = particle_kind(dim);
        Distance { attach: Attach::one(a, k), dim: k.dim(), anchor, length }
    }

    /// d = p_a − p_b and ḋ (when `v` is given), in a 3-vector (z = 0 in 2D).
    #[inline(always)]
    fn delta(&self, x: &[f64], anchor: bool) -> [f64; 3] {
        let mut d = [0.0; 3];
        let dim = self.dim;
        if self.attach.bodies().len() == 2 {
            for i in 0..dim {
                d[i] = x[i] - x[dim + i];
            }
        } else {
            let other = if anchor { self.anchor } else { [0.0; 3] };
            for i in 0..dim {
                d[i] = x[i] - other[i];
            }
        }
        d
    }
}

/// ∇²C = (I − n nᵀ)/ℓ ⊗ [[1, −1], [−1, 1]] for d = x_a − x_b, ℓ = |d|, n = d/ℓ (the anchor
/// version keeps the first block). I − n nᵀ = Σ_t t tᵀ over unit t ⊥ n: one row g = (t, −t)
/// per t with s = −λ/ℓ, positive when the link is in tension (λ < 0 pulls the ends together).
/// `dim` is the particles' dimension, `ldof` the row length (`dim` anchored, 2 `dim` between two).
#[inline(always)]
fn stiffness_from(dim: usize, ldof: usize, d: [f64; 3], inv_l: f64, lambda: f64, g: &mut [f64], s: &mut [f64]) {
    let n = [d[0] * inv_l, d[1] * inv_l, d[2] * inv_l];
    let ts: [[f64; 3]; 2] = if dim == 2 {
        [[-n[1], n[0], 0.0], [0.0; 3]]
    } else {
        // branchless orthonormal basis (Duff et al. 2017, "Building an orthonormal basis, revisited")
        let sign = 1f64.copysign(n[2]);
        let a = -1.0 / (sign + n[2]);
        let b = n[0] * n[1] * a;
        [[1.0 + sign * n[0] * n[0] * a, sign * b, -sign * n[0]], [b, sign + n[1] * n[1] * a, -n[1]]]
    };
    for (k, t) in ts.iter().take(dim - 1).enumerate() {
        let row = &mut g[k * ldof..(k + 1) * ldof];
        // element by element: a copy of 2 or 3 values of run-time length becomes a call to
        // memcpy
        row[0] = t[0];
        row[1] = t[1];
        if dim == 3 {
            row[2] = t[2];
        }
        if ldof > dim {
            for i in 0..dim {
                row[dim + i] = -t[i];
            }
        }
        s[k] = -lambda * inv_l;
    }
}

/// C = |d| − L of a rod with d = p_a − p_b (z = 0 in 2D) \[m\]: `Distance::eval`'s arithmetic, for
/// the system's store of rods between two particles.
#[inline(always)]
pub(crate) fn rod_error(d: [f64; 3], length: f64) -> f64 {
    norm(d) - length
}

/// J = [nᵀ, −nᵀ] and the `dim` − 1 stiffness rows g_k with weights s_k of a rod of `length` \[m\]
/// between two particles of dimension `dim`, from d = p_a − p_b; returns C \[m\]:
/// `Distance::eval_with_stiffness`'s arithmetic, for the system's store of such rods.
#[inline(always)]
pub(crate) fn rod_with_stiffness(
    dim: usize,
    d: [f64; 3],
    length: f64,
    lambda: f64,
    j: &mut [f64],
    g: &mut [f64],
    s: &mut [f64],
) -> f64 {
    let l = norm(d);
    let inv_l = 1.0 / l;
    for i in 0..dim {
        j[i] = d[i] * inv_l;
    }
    for i in 0..dim {
        j[dim + i] = -d[i] * inv_l;
    }
    stiffness_from(dim, 2 * dim, d, inv_l, lambda, g, s);
    l - length
}

#[inline(always)]
fn norm(d: [f64; 3]) -> f64 {
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

impl Constraint for Distance {
    fn planar_pair(&self) -> Option<Pair2> {
        if self.dim != 2 {
            return None;
        }
        let bodies = self.attach.bodies();
        let motion = Motion2::Arm(self.length);
        Some(if bodies.len() == 2 {
            Pair2 {
                first: Side { body: Some(bodies[0]), frame: Frame2::ORIGIN },
                second: Side { body: Some(bodies[1]), frame: Frame2::ORIGIN },
                motion,
            }
        } else {
            Pair2::world(Frame2::new([self.anchor[0], self.anchor[1]], 0.0), bodies[0], Frame2::ORIGIN, motion)
        })
    }
    fn kind(&self) -> &'static str {
        "distance"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        c[0] = rod_error(self.delta(q, true), self.length);
    }
    fn particle_rod(&self) -> Option<(usize, f64)> {
        (self.attach.bodies().len() == 2).then_some((self.dim, self.length))
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let mut c = [0.0];
        self.eval_with_jacobian(q, &mut c, j);
    }
    fn eval_with_jacobian(&self, q: &[f64], c: &mut [f64], j: &mut [f64]) {
        let d = self.delta(q, true);
        let l = norm(d);
        c[0] = l - self.length;
        let dim = self.dim;
        for i in 0..dim {
            j[i] = d[i] / l;
        }
        if self.attach.bodies().len() == 2 {
            // (−d)/ℓ = −(d/ℓ) exactly: one division per coordinate
            for i in 0..dim {
                j[dim + i] = -j[i];
            }
        }
    }
    fn stiffness_rows(&self) -> usize {
        self.dim - 1
    }
    /// See `Distance::stiffness_from`.
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let d = self.delta(q, true);
        let inv_l = 1.0 / norm(d);
        let ldof = self.attach.bodies().len() * self.dim;
        stiffness_from(self.dim, ldof, d, inv_l, lambda[0], g, s);
    }
    fn eval_with_stiffness(
        &self,
        q: &[f64],
        lambda: &[f64],
        c: &mut [f64],
        j: &mut [f64],
        g: &mut [f64],
        s: &mut [f64],
    ) {
        let d = self.delta(q, true);
        if self.attach.bodies().len() == 2 {
            c[0] = rod_with_stiffness(self.dim, d, self.length, lambda[0], j, g, s);
            return;
        }
        let l = norm(d);
        let inv_l = 1.0 / l;
        c[0] = l - self.length;
        for i in 0..self.dim {
            j[i] = d[i] * inv_l;
        }
        stiffness_from(self.dim, self.dim, d, inv_l, lambda[0], g, s);
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let d = self.delta(q, true);
        let dd = self.delta(v, false);
        let l = norm(d);
        let n_dd = (d[0] * dd[0] + d[1] * dd[1] + d[2] * dd[2]) / l;
        let dd2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
        out[0] = (dd2 - n_dd * n_dd) / l;
    }
}

/// The registry entry of `distance`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: a rod between particles `a` and `b`, or between `a` and the world point
/// `local_b` (or `at`); `length` defaults to the distance at the declared poses.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("distance", &["at", "local_b", "length"])?;
    let a = s.body_a("distance", &[BodyKind::Particle2, BodyKind::Particle3])?;
    let dim = a.kind.dim();
    let pa = a.world([0.0; 3]);
    match s.body_b("distance", &[a.kind])? {
        Some(b) => {
            if s.at.is_some() || s.local_b.is_some() {
                return Err(SpecError::Geometry {
                    kind: "distance".into(),
                    reason: "between two particles it takes no point; give `length` or let the poses give it".into(),
                });
            }
            let len = s.positive("distance", "length", s.length, super::spec::distance(pa, b.world([0.0; 3])))?;
            Ok(Box::new(Distance::between(a.body, b.body, dim, len)))
        }
        None => {
            let anchor = s.anchor_b("distance")?;
            let len = s.positive("distance", "length", s.length, super::spec::distance(pa, anchor))?;
            Ok(Box::new(Distance::to_anchor(a.body, dim, anchor, len)))
        }
    }
}

/// The registry entry of `distance`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "distance",
    summary: "rigid rod between two particles or a particle and a world anchor; 1 row, m",
    params: "length [m], anchor [m] (body-world form)",
    from_spec,
    sample: |u| {
        if u[0] < 0.0 {
            Box::new(Distance::between(0, 1, dim_of(u[1]), 1.0 + u[2].abs()))
        } else {
            Box::new(Distance::to_anchor(0, dim_of(u[1]), [u[3], u[4], u[5]], 1.0 + u[2].abs()))
        }
    },
};
