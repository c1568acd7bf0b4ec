//! Applied (external) forces Q(q, v) and their potentials.
//!
//! Every conservative force carries its potential so that the total energy
//! E(q, v) = ½ vᵀ M v + Σ U_k(q) is exact for every scene (it is the quantity whose drift the testbed
//! measures). The damper of a spring-damper is dissipative and has no potential.

use super::body::{Body, BodyKind};
use super::point::BodyPoint;

/// One applied force. Forces are data: the system evaluates them in [`Force::apply`].
#[derive(Clone, Debug, PartialEq)]
pub enum Force {
    /// Uniform gravity: every body receives m·g at its centre of mass. U = −Σ m g·x.
    Gravity {
        /// Gravitational acceleration \[m/s²\] (z ignored for planar bodies).
        g: [f64; 3],
    },
    /// Linear spring and damper between a body point and another body point or a world point:
    /// F on `a` = −(k (ℓ − ℓ₀) + c ℓ̇) n with n the unit vector from `b` to `a`, ℓ = |r_a − r_b|
    /// (and the opposite force on `b` when it is a body). U = ½ k (ℓ − ℓ₀)².
    SpringDamper {
        /// First end.
        a: BodyPoint,
        /// Second end: a body point or a fixed world point.
        b: End,
        /// Stiffness k \[N/m\].
        stiffness: f64,
        /// Damping c \[N·s/m\].
        damping: f64,
        /// Rest length ℓ₀ \[m\].
        rest_length: f64,
    },
    /// A constant world force F \[N\] at a body point. U = −F·r.
    Constant {
        /// Where the force acts.
        at: BodyPoint,
        /// The force \[N\].
        force: [f64; 3],
    },
    /// A constant torque τ \[N·m\] on a rigid-2D body. U = −τ θ.
    Torque {
        /// The rigid-2D body.
        body: usize,
        /// Torque \[N·m\], counter-clockwise positive.
        torque: f64,
    },
    /// The gyroscopic torque −Ω × I Ω \[N·m\] on every rigid-3D body (body frame): the velocity
    /// term of Euler's equations I Ω̇ = τ − Ω × I Ω (seed 001, Newton–Euler). Workless
    /// (Ω · (Ω × I Ω) = 0), so U = 0. Engines often drop it; leaving it out of a scene measures
    /// what that costs.
    Gyroscopic,
}

/// The second end of a spring: a point of a body, or a point fixed in the world \[m\].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum End {
    /// A body point.
    Body(BodyPoint),
    /// A world point \[m\] (z ignored in the plane).
    World([f64; 3]),
}

impl End {
    /// World position \[m\] of this end at positions `q` (all bodies).
    fn world(&self, view: &BodyView, q: &[f64]) -> [f64; 3] {
        match self {
            End::Body(p) => p.world(view.bodies[p.body].kind, view.q_slice(p.body, q)),
            End::World(x) => *x,
        }
    }

    /// World velocity \[m/s\] of this end.
    fn velocity(&self, view: &BodyView, q: &[f64], v: &[f64]) -> [f64; 3] {
        match self {
            End::Body(p) => p.velocity(view.bodies[p.body].kind, view.q_slice(p.body, q), view.slice(p.body, v)),
            End::World(_) => [0.0; 3],
        }
    }
}

/// What a force needs to know about the bodies: their kinds and where their slices start.
pub struct BodyView<'a> {
    /// All bodies of the system.
    pub bodies: &'a [Body],
    /// Offset of each body's slice in v (and in the generalized force).
    pub offsets: &'a [usize],
    /// Offset of each body's slice in q.
    pub q_offsets: &'a [usize],
}

impl BodyView<'_> {
    fn slice<'q>(&self, body: usize, v: &'q [f64]) -> &'q [f64] {
        let o = self.offsets[body];
        &v[o..o + self.bodies[body].kind.dof()]
    }

    fn q_slice<'q>(&self, body: usize, q: &'q [f64]) -> &'q [f64] {
        let o = self.q_offsets[body];
        &q[o..o + self.bodies[body].kind.nq()]
    }
}

fn sub3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl Force {
    /// Adds this force's generalized force Q(q, v) into `out` (length n).
    pub fn apply(&self, view: &BodyView, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            Force::Gravity { g } => {
                for (i, b) in view.bodies.iter().enumerate() {
                    let o = view.offsets[i];
                    for d in 0..b.kind.dim() {
                        out[o + d] += b.mass * g[d];
                    }
                }
            }
            Force::SpringDamper { a, b, stiffness, damping, rest_length } => {
                let ka = view.bodies[a.body].kind;
                let qa = view.q_slice(a.body, q);
                let d = sub3(a.world(ka, qa), b.world(view, q));
                let len = dot3(d, d).sqrt();
                if len == 0.0 {
                    return; // DEVIATION: direction undefined at zero length; the force is taken as zero.
                }
                let n = [d[0] / len, d[1] / len, d[2] / len];
                let dv = sub3(a.velocity(ka, qa, view.slice(a.body, v)), b.velocity(view, q, v));
                let mag = -(stiffness * (len - rest_length) + damping * dot3(n, dv));
                let f = [mag * n[0], mag * n[1], mag * n[2]];
                let oa = view.offsets[a.body];
                a.apply(ka, qa, f, &mut out[oa..oa + ka.dof()]);
                if let End::Body(b) = b {
                    let (kb, ob) = (view.bodies[b.body].kind, view.offsets[b.body]);
                    b.apply(kb, view.q_slice(b.body, q), [-f[0], -f[1], -f[2]], &mut out[ob..ob + kb.dof()]);
                }
            }
            Force::Constant { at, force } => {
                let k = view.bodies[at.body].kind;
                let o = view.offsets[at.body];
                let qa = view.q_slice(at.body, q);
                at.apply(k, qa, *force, &mut out[o..o + k.dof()]);
            }
            Force::Torque { body, torque } => {
                out[view.offsets[*body] + 2] += torque;
            }
            Force::Gyroscopic => {
                for (i, b) in view.bodies.iter().enumerate() {
                    if b.kind == BodyKind::Rigid3 {
                        let o = view.offsets[i] + 3;
                        let w = [v[o], v[o + 1], v[o + 2]];
                        let l = [b.inertia[0] * w[0], b.inertia[1] * w[1], b.inertia[2] * w[2]];
                        // −Ω × (I Ω)
                        out[o] -= w[1] * l[2] - w[2] * l[1];
                        out[o + 1] -= w[2] * l[0] - w[0] * l[2];
                        out[o + 2] -= w[0] * l[1] - w[1] * l[0];
                    }
                }
            }
        }
    }

    /// Potential energy U(q) \[J\] of this force (zero for its dissipative part).
    pub fn potential(&self, view: &BodyView, q: &[f64]) -> f64 {
        match self {
            Force::Gravity { g } => view
                .bodies
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let o = view.q_offsets[i];
                    -(0..b.kind.dim()).map(|d| b.mass * g[d] * q[o + d]).sum::<f64>()
                })
                .sum(),
            Force::SpringDamper { a, b, stiffness, rest_length, .. } => {
                let ka = view.bodies[a.body].kind;
                let d = sub3(a.world(ka, view.q_slice(a.body, q)), b.world(view, q));
                let stretch = dot3(d, d).sqrt() - rest_length;
                0.5 * stiffness * stretch * stretch
            }
            Force::Constant { at, force } => {
                let k = view.bodies[at.body].kind;
                -dot3(*force, at.world(k, view.q_slice(at.body, q)))
            }
            Force::Torque { body, torque } => -torque * q[view.q_offsets[*body] + 2],
            Force::Gyroscopic => 0.0,
        }
    }

    /// The bodies this force references (for validation when it is added to a system).
    pub fn bodies(&self) -> Vec<(usize, Option<BodyKind>)> {
        match self {
            Force::Gravity { .. } | Force::Gyroscopic => vec![],
            Force::SpringDamper { a, b: End::Body(b), .. } => vec![(a.body, None), (b.body, None)],
            Force::SpringDamper { a, b: End::World(_), .. } => vec![(a.body, None)],
            Force::Constant { at, .. } => vec![(at.body, None)],
            Force::Torque { body, .. } => vec![(*body, Some(BodyKind::Rigid2))],
        }
    }
}
