//! Ground constraint: a rigid-2D body welded to the world (seed 003, "Ground Constraint").
//!
//!   C   = (x − c_x, y − c_y, θ − c_θ)   \[m, m, rad\]
//!   J   = I₃
//!   J̇v = 0

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry};
use super::pair::{Frame2, Motion2, Pair2};
use super::{Attach, Constraint};
use crate::model::BodyKind;

/// Welds a rigid-2D body at a fixed pose.
#[derive(Clone, Debug)]
pub struct Ground {
    attach: Attach,
    /// The fixed pose (c_x \[m\], c_y \[m\], c_θ \[rad\]).
    pub pose: [f64; 3],
}

impl Ground {
    /// Welds rigid-2D `body` at `pose` = (x \[m\], y \[m\], θ \[rad\]).
    pub fn new(body: usize, pose: [f64; 3]) -> Self {
        Ground { attach: Attach::one(body, BodyKind::Rigid2), pose }
    }
}

impl Constraint for Ground {
    fn planar_pair(&self) -> Option<Pair2> {
        let world = Frame2::new([self.pose[0], self.pose[1]], self.pose[2]);
        Some(Pair2::world(world, self.attach.bodies()[0], Frame2::ORIGIN, Motion2::Fixed))
    }
    fn kind(&self) -> &'static str {
        "ground"
    }
    fn row_unit(&self, row: usize) -> &'static str {
        if row == 2 { "rad" } else { "m" }
    }
    fn rows(&self) -> usize {
        3
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        for i in 0..3 {
            c[i] = q[i] - self.pose[i];
        }
    }
    fn jacobian(&self, _q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        for i in 0..3 {
            j[i * 3 + i] = 1.0;
        }
    }
    fn jdot_v(&self, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
    }
}

/// The registry entry of `ground`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-2D `a` welded to the world at its declared pose.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("ground", &[])?;
    s.world_b("ground")?;
    let a = s.body_a("ground", &[BodyKind::Rigid2])?;
    Ok(Box::new(Ground::new(a.body, [a.q[0], a.q[1], a.q[2]])))
}

/// The registry entry of `ground`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "ground",
    summary: "rigid-2D body welded to the world (seed 003); 3 rows, m, m, rad",
    params: "pose (x [m], y [m], theta [rad])",
    from_spec,
    sample: |u| Box::new(Ground::new(0, [u[0], u[1], u[2]])),
};
