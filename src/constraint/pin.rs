//! Particle pinned to a world point (a nail).
//!
//!   C   = p − p₀     \[m\]   (dim rows)
//!   J   = I          (dim × dim)
//!   J̇v = 0

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

/// The registry entry of `pin`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: particle `a` held at `at` (default: its declared position).
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("pin", &["at"])?;
    s.world_b("pin")?;
    let a = s.body_a("pin", &[BodyKind::Particle2, BodyKind::Particle3])?;
    Ok(Box::new(Pin::new(a.body, a.kind.dim(), s.at.unwrap_or_else(|| a.world([0.0; 3])))))
}

/// The registry entry of `pin`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "pin",
    summary: "particle held at a world point; dim rows, m",
    params: "point [m]",
    from_spec,
    sample: |u| Box::new(Pin::new(0, dim_of(u[0]), [u[1], u[2], u[3]])),
};
