//! Point on a circle: a planar particle constrained to a circle (the bead on a wire).
//!
//! Witkin 1997, §2 (and seed 002), with centre c and radius R:
//!   C(p)  = ½ (|p − c|² − R²)          \[m²\]
//!   J     = (p − c)ᵀ                   (1 × 2)
//!   J̇ v  = v · v                       (since J̇ = vᵀ)

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry};
use super::pair::{Frame2, Motion2, Pair2};
use super::{Attach, Constraint};
use crate::model::BodyKind;

/// A planar particle on the circle of centre `center` and radius `radius`.
#[derive(Clone, Debug)]
pub struct Circle {
    attach: Attach,
    /// Centre c \[m\].
    pub center: [f64; 2],
    /// Radius R \[m\].
    pub radius: f64,
}

impl Circle {
    /// Constrains particle-2D `body` to the circle of `center` \[m\] and `radius` \[m\].
    pub fn new(body: usize, center: [f64; 2], radius: f64) -> Self {
        Circle { attach: Attach::one(body, BodyKind::Particle2), center, radius }
    }
}

impl Constraint for Circle {
    fn planar_pair(&self) -> Option<Pair2> {
        Some(Pair2::world(Frame2::new(self.center, 0.0), self.attach.bodies()[0], Frame2::ORIGIN, Motion2::Arm(self.radius)))
    }
    fn kind(&self) -> &'static str {
        "circle"
    }
    fn row_unit(&self, _row: usize) -> &'static str {
        "m²"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (dx, dy) = (q[0] - self.center[0], q[1] - self.center[1]);
        c[0] = 0.5 * (dx * dx + dy * dy - self.radius * self.radius);
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j[0] = q[0] - self.center[0];
        j[1] = q[1] - self.center[1];
    }
    fn jdot_v(&self, _q: &[f64], v: &[f64], out: &mut [f64]) {
        out[0] = v[0] * v[0] + v[1] * v[1];
    }
}

/// The registry entry of `circle`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: planar particle `a` on the circle of `center` and `radius` (default: its
/// declared distance from the centre).
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("circle", &["center", "radius"])?;
    s.world_b("circle")?;
    let a = s.body_a("circle", &[BodyKind::Particle2])?;
    let c = s.center.ok_or_else(|| SpecError::Missing { kind: "circle".into(), needs: "field `center` (a world point)".into() })?;
    let r = s.positive("circle", "radius", s.radius, super::spec::distance(a.world([0.0; 3]), c))?;
    Ok(Box::new(Circle::new(a.body, [c[0], c[1]], r)))
}

/// The registry entry of `circle`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "circle",
    summary: "planar particle on a circle (bead on a wire, Witkin §2); 1 row, m²",
    params: "center [m], radius [m]",
    from_spec,
    sample: |u| Box::new(Circle::new(0, [u[0], u[1]], 1.0 + u[2].abs())),
};
