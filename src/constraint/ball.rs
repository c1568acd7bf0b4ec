//! Ball-and-socket joint between two rigid-3D bodies, or a body and the world (seed 001,
//! "ball joint"): one point of each side coincides.
//!
//! With ρ = R u the world offset of each anchor (see [`super::joint3`]):
//!   C   = (x_a + ρ_a) − (x_b + ρ_b)                              \[m\]  (3 rows)
//!   J   = [ I, −R_a \[u_a\]× | −I, R_b \[u_b\]× ]  (point rows with n = e₁, e₂, e₃)
//!   J̇v = ω_a × (ω_a × ρ_a) − ω_b × (ω_b × ρ_b)
//! and the geometric stiffness of XPBD's Newton step, three rows per rotating side
//! (`joint3::ball_stiffness`).

use crate::model::BodyKind;
use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{Ends, JointFrame, ball_jacobian, ball_jdot_v, ball_rows, ball_stiffness};
use super::{Attach, Constraint};
use nalgebra::Matrix3;

/// A ball-and-socket joint.
#[derive(Clone, Debug)]
pub struct Ball {
    ends: super::joint3::Ends,
    frame_a: JointFrame,
    frame_b: JointFrame,
}

impl Ball {
    /// Joint between sides `a` and `b` (None = the world) at anchors `anchor_a`, `anchor_b` \[m\] in
    /// each side's frame.
    pub fn new(a: Option<usize>, anchor_a: [f64; 3], b: Option<usize>, anchor_b: [f64; 3]) -> Self {
        let f = |p: [f64; 3]| JointFrame { anchor: p.into(), axes: Matrix3::identity() };
        Ball { ends: Ends::new(a, b), frame_a: f(anchor_a), frame_b: f(anchor_b) }
    }

    /// Joint at the world point `point` \[m\] between sides at poses `pose_a`, `pose_b` (position
    /// \[m\], quaternion (w, x, y, z)); a `None` pose is the world.
    pub fn at_point(
        a: Option<(usize, [f64; 3], [f64; 4])>,
        b: Option<(usize, [f64; 3], [f64; 4])>,
        point: [f64; 3],
    ) -> Self {
        let fa = JointFrame::from_world(a.map(|(_, x, r)| (x, r)), point, Matrix3::identity());
        let fb = JointFrame::from_world(b.map(|(_, x, r)| (x, r)), point, Matrix3::identity());
        Ball { ends: Ends::new(a.map(|p| p.0), b.map(|p| p.0)), frame_a: fa, frame_b: fb }
    }
}

impl Constraint for Ball {
    fn spatial_pair(&self) -> Option<super::Pair3> {
        Some(self.ends.pair(&self.frame_a, &self.frame_b, super::Motion3::Spherical))
    }
    fn kind(&self) -> &'static str {
        "ball"
    }
    fn rows(&self) -> usize {
        3
    }
    fn attach(&self) -> &Attach {
        &self.ends.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        ball_rows(&self.ends.sides(q, None), &self.frame_a, &self.frame_b, c);
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        let ldof = self.local_dof();
        ball_jacobian(&self.ends.sides(q, None), &self.frame_a, &self.frame_b, j, ldof);
    }
    fn stiffness_rows(&self) -> usize {
        3 * self.ends.attach.bodies().len()
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let ldof = self.local_dof();
        ball_stiffness(&self.ends.sides(q, None), &self.frame_a, &self.frame_b, lambda, g, s, ldof);
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        ball_jdot_v(&self.ends.sides(q, Some(v)), &self.frame_a, &self.frame_b, out);
    }
}

/// The registry entry of `ball`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-3D `a` and `b` (or the world) joined at `at` or `local_a`/`local_b`.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("ball", &["at", "local_a", "local_b"])?;
    let a = s.body_a("ball", &[BodyKind::Rigid3])?;
    let b = s.body_b("ball", &[BodyKind::Rigid3])?;
    Ok(Box::new(Ball::new(Some(a.body), s.anchor_a("ball")?, b.map(|b| b.body), s.anchor_b("ball")?)))
}

/// The registry entry of `ball`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "ball",
    summary: "ball-and-socket joint between two rigid-3D bodies or a body and the world (seed 001); 3 rows, m",
    params: "anchor_a, anchor_b [m] (body frames; world point for the world side)",
    from_spec,
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(Ball::new(a, fa.anchor.into(), b, fb.anchor.into()))
    },
};
