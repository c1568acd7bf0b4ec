//! Points attached to bodies, and the planar rotation helpers every rigid-2D kernel uses.
//!
//! For a rigid-2D body with q = (x, y, θ), a body-fixed point with local offset u has world position
//! r = x + A(θ) u (Bender / seed 003, eq. 2), velocity ṙ = ẋ + ω A′(θ) u with A′(θ) u = perp(A(θ) u),
//! and a force F applied at r acts on the generalized coordinates as (F, (r − x) × F).
//! For a rigid-3D body (q = (x, Q), v = (ẋ, Ω) with Ω in the body frame) the point is
//! r = x + R u, ṙ = ẋ + R (Ω × u), and F at r acts as (F, u × Rᵀ F) (body-frame torque).

use super::body::BodyKind;
use super::rotation;

/// A(θ) u: rotates the local vector `u` by `theta` \[rad\].
#[inline]
pub fn rotate(theta: f64, u: [f64; 2]) -> [f64; 2] {
    let (s, c) = theta.sin_cos();
    [c * u[0] - s * u[1], s * u[0] + c * u[1]]
}

/// perp(a) = (−a_y, a_x): the 90° rotation, so that A′(θ) u = perp(A(θ) u) and A″(θ) u = −A(θ) u.
#[inline]
pub fn perp(a: [f64; 2]) -> [f64; 2] {
    [-a[1], a[0]]
}

/// 2D cross product a × b = a_x b_y − a_y b_x.
#[inline]
pub fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// Dot product of two planar vectors.
#[inline]
pub fn dot2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// A point fixed to a body: for particles the body's position itself, for rigid bodies the point
/// at local offset `local` \[m\] from the centre of mass, in the body frame (z ignored for rigid-2D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyPoint {
    /// Index of the body in its system.
    pub body: usize,
    /// Offset in the body frame \[m\]; must be zero for particles.
    pub local: [f64; 3],
}

impl BodyPoint {
    /// The body's reference point (a particle, or a rigid body's centre of mass).
    pub fn center(body: usize) -> Self {
        BodyPoint { body, local: [0.0; 3] }
    }

    /// World position \[m\] (z = 0 for planar bodies) from the body's coordinate slice `q`.
    pub fn world(&self, kind: BodyKind, q: &[f64]) -> [f64; 3] {
        match kind {
            BodyKind::Particle2 => [q[0], q[1], 0.0],
            BodyKind::Particle3 => [q[0], q[1], q[2]],
            BodyKind::Rigid2 => {
                let r = rotate(q[2], self.planar());
                [q[0] + r[0], q[1] + r[1], 0.0]
            }
            BodyKind::Rigid3 => {
                let r = rotation::rotation_matrix(&q[3..7]) * rotation::vec3(&self.local);
                [q[0] + r[0], q[1] + r[1], q[2] + r[2]]
            }
            BodyKind::Clock => [0.0; 3], // no position in space
        }
    }

    /// World velocity \[m/s\] from the body's slices `q` and `v`.
    pub fn velocity(&self, kind: BodyKind, q: &[f64], v: &[f64]) -> [f64; 3] {
        match kind {
            BodyKind::Particle2 => [v[0], v[1], 0.0],
            BodyKind::Particle3 => [v[0], v[1], v[2]],
            BodyKind::Rigid2 => {
                let r = perp(rotate(q[2], self.planar()));
                [v[0] + v[2] * r[0], v[1] + v[2] * r[1], 0.0]
            }
            BodyKind::Rigid3 => {
                let w = rotation::vec3(&v[3..6]).cross(&rotation::vec3(&self.local));
                let r = rotation::rotation_matrix(&q[3..7]) * w;
                [v[0] + r[0], v[1] + r[1], v[2] + r[2]]
            }
            BodyKind::Clock => [0.0; 3],
        }
    }

    /// Adds the generalized force of a world force `f` \[N\] applied at this point to the body's
    /// slice `out` of the generalized force vector.
    pub fn apply(&self, kind: BodyKind, q: &[f64], f: [f64; 3], out: &mut [f64]) {
        for (o, fi) in out.iter_mut().zip(f.iter()).take(kind.dim()) {
            *o += fi;
        }
        match kind {
            BodyKind::Rigid2 => out[2] += cross(rotate(q[2], self.planar()), [f[0], f[1]]),
            BodyKind::Rigid3 => {
                let fb = rotation::rotation_matrix(&q[3..7]).transpose() * rotation::vec3(&f);
                let t = rotation::vec3(&self.local).cross(&fb);
                for d in 0..3 {
                    out[3 + d] += t[d];
                }
            }
            _ => {}
        }
    }

    fn planar(&self) -> [f64; 2] {
        [self.local[0], self.local[1]]
    }
}
