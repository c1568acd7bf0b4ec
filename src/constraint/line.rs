//! Particle on a fixed straight line through p₀ with direction t.
//!
//! With n_k the unit normals of the line (one in 2D: perp(t); two in 3D, orthonormal and ⊥ t):
//!   C_k  = n_k · (p − p₀)   \[m\]   (dim − 1 rows)
//!   J_k  = n_kᵀ
//!   J̇v  = 0                (the normals are fixed)

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, dim_of};
use super::pair::{Frame2, Motion2, Pair2};
use super::{Attach, Constraint};
use crate::model::BodyKind;

/// A 2D or 3D particle that may only slide along a fixed world line.
#[derive(Clone, Debug)]
pub struct Line {
    attach: Attach,
    dim: usize,
    point: [f64; 3],
    normals: [[f64; 3]; 2],
}

impl Line {
    /// Particle `body` of dimension `dim` (2 or 3) on the line through `point` \[m\] along
    /// `direction` (any nonzero length; only its direction is used).
    pub fn new(body: usize, dim: usize, point: [f64; 3], direction: [f64; 3]) -> Self {
        let kind = if dim == 3 { BodyKind::Particle3 } else { BodyKind::Particle2 };
        let dim = kind.dim();
        let mut t = direction;
        if dim == 2 {
            t[2] = 0.0;
        }
        let l = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
        let t = [t[0] / l, t[1] / l, t[2] / l];
        let normals = if dim == 2 {
            [[-t[1], t[0], 0.0], [0.0; 3]]
        } else {
            // First normal: t × e, with e the axis least aligned with t; second: t × n1.
            let e = if t[0].abs() <= t[1].abs() && t[0].abs() <= t[2].abs() {
                [1.0, 0.0, 0.0]
            } else if t[1].abs() <= t[2].abs() {
                [0.0, 1.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            };
            let n1 = cross3(t, e);
            let l1 = (n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]).sqrt();
            let n1 = [n1[0] / l1, n1[1] / l1, n1[2] / l1];
            [n1, cross3(t, n1)]
        };
        Line { attach: Attach::one(body, kind), dim, point, normals }
    }
}

fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

impl Constraint for Line {
    fn spatial_pair(&self) -> Option<super::Pair3> {
        // The direction t = n₁ × n₂ (right-handed with the normals, which are t × e and t × n₁).
        let (n1, n2) = (nalgebra::Vector3::from(self.normals[0]), nalgebra::Vector3::from(self.normals[1]));
        (self.dim == 3).then(|| super::Pair3 {
            first: super::Side3 {
                body: None,
                frame: super::Frame3 {
                    anchor: nalgebra::Vector3::from(self.point),
                    axes: nalgebra::Matrix3::from_columns(&[n1.cross(&n2), n1, n2]),
                },
            },
            second: super::Side3 { body: Some(self.attach.bodies()[0]), frame: super::Frame3::particle() },
            motion: super::Motion3::Prismatic,
        })
    }
    fn planar_pair(&self) -> Option<Pair2> {
        // The direction t with normal (−t_y, t_x).
        let n = self.normals[0];
        (self.dim == 2).then(|| {
            let world = Frame2::new([self.point[0], self.point[1]], (-n[0]).atan2(n[1]));
            Pair2::world(world, self.attach.bodies()[0], Frame2::ORIGIN, Motion2::Prismatic)
        })
    }
    fn kind(&self) -> &'static str {
        "line"
    }
    fn rows(&self) -> usize {
        self.dim - 1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        for (k, ck) in c.iter_mut().enumerate().take(self.dim - 1) {
            *ck = (0..self.dim).map(|i| self.normals[k][i] * (q[i] - self.point[i])).sum();
        }
    }
    fn jacobian(&self, _q: &[f64], j: &mut [f64]) {
        for k in 0..self.dim - 1 {
            j[k * self.dim..(k + 1) * self.dim].copy_from_slice(&self.normals[k][..self.dim]);
        }
    }
    fn jdot_v(&self, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
    }
}

/// The registry entry of `line`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: particle `a` on the world line through `at` (default: its declared
/// position) along `axis`.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("line", &["at", "axis"])?;
    s.world_b("line")?;
    let a = s.body_a("line", &[BodyKind::Particle2, BodyKind::Particle3])?;
    let axis = s.axis("line")?;
    Ok(Box::new(Line::new(a.body, a.kind.dim(), s.at.unwrap_or_else(|| a.world([0.0; 3])), axis)))
}

/// The registry entry of `line`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "line",
    summary: "particle sliding on a fixed world line; dim-1 rows, m",
    params: "point [m], direction",
    from_spec,
    sample: |u| Box::new(Line::new(0, dim_of(u[0]), [u[1], u[2], u[3]], [u[4], u[5], 0.5 + u[6].abs()])),
};
