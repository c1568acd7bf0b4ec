//! Fixed (weld) joint between two rigid-3D bodies, or a body and the world (seed 001, "fixed
//! joint"): the anchors coincide and the joint frames stay aligned; no relative motion is left.
//!
//! Rows (see [`super::joint3`]):
//!   C₀..₂ = p_a − p_b                                      \[m\]   (ball rows)
//!   C₃..₅ = e₂ᵃ·e₃ᵇ, e₃ᵃ·e₁ᵇ, e₁ᵃ·e₂ᵇ                      \[1\]   (≈ relative rotation vector)

use crate::model::BodyKind;
use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{
    Ends, JointFrame, Side, ball_jacobian, ball_jdot_v, ball_rows, orientation_rows, rotation_stiffness,
};
use super::{Attach, Constraint};
use nalgebra::Matrix3;

/// A weld joint.
#[derive(Clone, Debug)]
pub struct Weld {
    ends: Ends,
    frame_a: JointFrame,
    frame_b: JointFrame,
}

impl Weld {
    /// Weld between sides `a` and `b` (None = the world) with joint frames in each side's frame.
    pub fn new(a: Option<usize>, frame_a: JointFrame, b: Option<usize>, frame_b: JointFrame) -> Self {
        Weld { ends: Ends::new(a, b), frame_a, frame_b }
    }

    /// Weld at the world point `point` \[m\] (world-aligned joint frame) between sides at poses
    /// (body, position \[m\], quaternion (w, x, y, z)); None = the world.
    pub fn at(a: Option<(usize, [f64; 3], [f64; 4])>, b: Option<(usize, [f64; 3], [f64; 4])>, point: [f64; 3]) -> Self {
        let fa = JointFrame::from_world(a.map(|(_, x, r)| (x, r)), point, Matrix3::identity());
        let fb = JointFrame::from_world(b.map(|(_, x, r)| (x, r)), point, Matrix3::identity());
        Weld::new(a.map(|p| p.0), fa, b.map(|p| p.0), fb)
    }

    fn sides(&self, q: &[f64], v: Option<&[f64]>) -> [Side; 2] {
        self.ends.sides(q, v)
    }
}

impl Constraint for Weld {
    fn spatial_pair(&self) -> Option<super::Pair3> {
        Some(self.ends.pair(&self.frame_a, &self.frame_b, super::Motion3::Fixed))
    }
    fn kind(&self) -> &'static str {
        "weld"
    }
    fn row_unit(&self, row: usize) -> &'static str {
        if row >= 3 { "1" } else { "m" }
    }
    fn rows(&self) -> usize {
        6
    }
    fn attach(&self) -> &Attach {
        &self.ends.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = self.sides(q, None);
        ball_rows(&s, &self.frame_a, &self.frame_b, c);
        for (k, d) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            c[3 + k] = d.value();
        }
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        let ldof = self.local_dof();
        let s = self.sides(q, None);
        ball_jacobian(&s, &self.frame_a, &self.frame_b, j, ldof);
        for (k, d) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            d.jacobian(&s, &mut j[(3 + k) * ldof..(4 + k) * ldof]);
        }
    }
    fn stiffness_rows(&self) -> usize {
        3 * self.ends.attach.bodies().len()
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let sd = self.ends.sides(q, None);
        let [d0, d1, d2] = orientation_rows(&sd, &self.frame_a, &self.frame_b);
        let dots = [(d0, lambda[3]), (d1, lambda[4]), (d2, lambda[5])];
        rotation_stiffness(&sd, &self.frame_a, &self.frame_b, Some(&lambda[..3]), &dots, (g, s), self.local_dof());
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let s = self.sides(q, Some(v));
        ball_jdot_v(&s, &self.frame_a, &self.frame_b, out);
        for (k, d) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            out[3 + k] = d.jdot_v(&s);
        }
    }
}

/// The registry entry of `weld`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-3D `a` and `b` (or the world) fixed together as declared, the joint
/// frame at `at` (default: `a`'s centre of mass).
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("weld", &["at"])?;
    let a = s.body_a("weld", &[BodyKind::Rigid3])?;
    let b = s.body_b("weld", &[BodyKind::Rigid3])?;
    let at = s.at.unwrap_or_else(|| a.world([0.0; 3]));
    Ok(Box::new(Weld::at(Some(a.pose3()), b.map(|b| b.pose3()), at)))
}

/// The registry entry of `weld`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "weld",
    summary: "fixed joint: two rigid-3D bodies (or a body and the world) move as one (seed 001); 6 rows: 3 m, 3 dimensionless",
    params: "joint frames on a and b: anchor [m], axes",
    from_spec,
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(Weld::new(a, fa, b, fb))
    },
};
