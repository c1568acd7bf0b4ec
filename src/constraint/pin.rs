//! Particle pinned to a world point (a nail), or to a point of a rigid body of its dimension (a
//! bead glued to a link: [`PinToBody`]).
//!
//!   C   = p − p₀     \[m\]   (dim rows)
//!   J   = I          (dim × dim)
//!   J̇v = 0
//!
//! To a body point with world offset ρ = R u (perp(a) = (−a_y, a_x) in the plane; in space v
//! holds the body-frame Ω, so ω = R Ω and ω × ρ = −R \[u\]× Ω, as for `ball`):
//!   C   = p − (x_b + ρ)                                   \[m\]
//!   J   = [ I | −I, −perp(ρ) ]  (plane)     [ I | −I, R \[u\]× ]  (space)
//!   J̇v = ω² ρ                  (plane)     ω × (ω × ρ)         (space)

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, dim_of};
use super::pair::{Frame2, Motion2, Pair2};
use super::{Attach, Constraint};
use crate::model::BodyKind;

/// A 2D or 3D particle held at a fixed world point.
#[derive(Clone, Debug)]
pub struct Pin {
    attach: Attach,
    dim: usize,
    /// The world point p₀ \[m\] (z ignored in 2D).
    pub point: [f64; 3],
}

impl Pin {
    /// Pins particle `body` of dimension `dim` (2 or 3) at `point` \[m\].
    pub fn new(body: usize, dim: usize, point: [f64; 3]) -> Self {
        let kind = if dim == 3 { BodyKind::Particle3 } else { BodyKind::Particle2 };
        Pin { attach: Attach::one(body, kind), dim: kind.dim(), point }
    }
}

impl Constraint for Pin {
    fn spatial_pair(&self) -> Option<super::Pair3> {
        (self.dim == 3).then(|| super::Pair3 {
            first: super::Side3 {
                body: None,
                frame: super::Frame3 { anchor: nalgebra::Vector3::from(self.point), axes: nalgebra::Matrix3::identity() },
            },
            second: super::Side3 { body: Some(self.attach.bodies()[0]), frame: super::Frame3::particle() },
            motion: super::Motion3::Fixed,
        })
    }
    fn planar_pair(&self) -> Option<Pair2> {
        (self.dim == 2).then(|| {
            Pair2::world(Frame2::new([self.point[0], self.point[1]], 0.0), self.attach.bodies()[0], Frame2::ORIGIN, Motion2::Fixed)
        })
    }
    fn kind(&self) -> &'static str {
        "pin"
    }
    fn rows(&self) -> usize {
        self.dim
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        for i in 0..self.dim {
            c[i] = q[i] - self.point[i];
        }
    }
    fn jacobian(&self, _q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        for i in 0..self.dim {
            j[i * self.dim + i] = 1.0;
        }
    }
    fn jdot_v(&self, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
    }
}

/// A particle held at a point of a rigid body of its dimension.
#[derive(Clone, Debug)]
pub struct PinToBody {
    attach: Attach,
    dim: usize,
    /// The point in the body's frame \[m\] (z ignored in the plane).
    pub local: [f64; 3],
}

impl PinToBody {
    /// Pins particle `particle` of dimension `dim` (2 or 3) to the point `local` \[m\] (body
    /// frame) of the rigid body `body` (rigid-2D for dim 2, rigid-3D for dim 3).
    pub fn new(particle: usize, dim: usize, body: usize, local: [f64; 3]) -> Self {
        let (kp, kb) = if dim == 3 {
            (BodyKind::Particle3, BodyKind::Rigid3)
        } else {
            (BodyKind::Particle2, BodyKind::Rigid2)
        };
        PinToBody { attach: Attach::two(particle, kp, body, kb), dim: kp.dim(), local }
    }

    /// (ρ = R u, R) at the local q (the body's slice after the particle's).
    fn offset(&self, q: &[f64]) -> (nalgebra::Vector3<f64>, nalgebra::Matrix3<f64>) {
        let o = self.dim;
        let r = if self.dim == 3 {
            crate::model::rotation::rotation_matrix(&q[o + 3..o + 7])
        } else {
            nalgebra::Rotation3::from_axis_angle(&nalgebra::Vector3::z_axis(), q[o + 2]).into_inner()
        };
        (r * nalgebra::Vector3::from(self.local), r)
    }

    /// The body's angular velocity in the world frame at the local v, its rotation being `r`.
    fn omega(&self, v: &[f64], r: &nalgebra::Matrix3<f64>) -> nalgebra::Vector3<f64> {
        let o = self.dim;
        if self.dim == 3 {
            r * nalgebra::Vector3::new(v[o + 3], v[o + 4], v[o + 5])
        } else {
            nalgebra::Vector3::new(0.0, 0.0, v[o + 2])
        }
    }
}

impl Constraint for PinToBody {
    fn kind(&self) -> &'static str {
        "pin"
    }
    fn rows(&self) -> usize {
        self.dim
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (rho, _) = self.offset(q);
        for i in 0..self.dim {
            c[i] = q[i] - q[self.dim + i] - rho[i];
        }
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let (rho, r) = self.offset(q);
        let d = self.dim;
        let cols = if d == 3 { 9 } else { 5 };
        j[..d * cols].fill(0.0);
        for i in 0..d {
            j[i * cols + i] = 1.0;
            j[i * cols + d + i] = -1.0;
        }
        if d == 3 {
            // R [u]× (ω × ρ = −R [u]× Ω, and C has −ρ).
            let ru = r * nalgebra::Vector3::from(self.local).cross_matrix();
            for i in 0..3 {
                for k in 0..3 {
                    j[i * cols + 6 + k] = ru[(i, k)];
                }
            }
        } else {
            // −perp(ρ) = (ρ_y, −ρ_x).
            j[4] = rho[1];
            j[cols + 4] = -rho[0];
        }
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (rho, r) = self.offset(q);
        let w = self.omega(v, &r);
        let a = w.cross(&w.cross(&rho));
        // C̈ = a_p − a_b − α × ρ − ω × (ω × ρ): the velocity-product part is −ω × (ω × ρ).
        for i in 0..self.dim {
            out[i] = -a[i];
        }
    }
}

/// The registry entry of `pin`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: particle `a` held at `at` (default: its declared position), to the world
/// or to the rigid body `b` of its dimension (then `at` is read in b's frame at the declared
/// pose, or `local_b` gives the body point).
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    let a = s.body_a("pin", &[BodyKind::Particle2, BodyKind::Particle3])?;
    let rigid = if a.kind == BodyKind::Particle3 { BodyKind::Rigid3 } else { BodyKind::Rigid2 };
    match s.body_b("pin", &[rigid])? {
        None => {
            s.only("pin", &["at"])?;
            Ok(Box::new(Pin::new(a.body, a.kind.dim(), s.at.unwrap_or_else(|| a.world([0.0; 3])))))
        }
        Some(b) => {
            s.only("pin", &["at", "local_b"])?;
            let local = match (s.local_b, s.at) {
                (Some(_), Some(_)) => return Err(SpecError::Both { kind: "pin".into(), first: "at", second: "local_b" }),
                (Some(l), None) => l,
                (None, at) => b.local(at.unwrap_or_else(|| a.world([0.0; 3]))),
            };
            Ok(Box::new(PinToBody::new(a.body, a.kind.dim(), b.body, local)))
        }
    }
}

/// The registry entry of `pin`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "pin",
    summary: "particle held at a world point, or at a point of a rigid body of its dimension; dim rows, m",
    params: "point [m] (world; or body frame of b)",
    from_spec,
    sample: |u| {
        if u[7] < 0.0 {
            Box::new(Pin::new(0, dim_of(u[0]), [u[1], u[2], u[3]]))
        } else {
            Box::new(PinToBody::new(0, dim_of(u[0]), 1, [u[1], u[2], u[3]]))
        }
    },
};
