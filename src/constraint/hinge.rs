//! Hinge (revolute) joint between two rigid-3D bodies, or a body and the world (seed 001, "hinge
//! joint"): the anchors coincide and the hinge axis e₁ᵃ of side a stays along the axis e₁ᵇ of
//! side b, leaving one rotation free.
//!
//! Rows (see [`super::joint3`]):
//!   C₀..₂ = p_a − p_b                                  \[m\]   (ball rows)
//!   C₃    = e₁ᵃ · e₂ᵇ,  C₄ = e₁ᵃ · e₃ᵇ                 \[1\]   (axis ⟂ to b's e₂, e₃)
//!   dot rows: Ċ = (a × b)·(ω_a − ω_b), J̇v = ((ω_a × a) × b + a × (ω_b × b))·(ω_a − ω_b)

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{
    DotRow, Ends, JointFrame, ball_jacobian, ball_jdot_v, ball_rows, frame_with_axis, rotation_stiffness,
};
use super::{Attach, Constraint};

/// A hinge joint.
#[derive(Clone, Debug)]
pub struct Hinge {
    ends: Ends,
    frame_a: JointFrame,
    frame_b: JointFrame,
}

type Pose = Option<(usize, [f64; 3], [f64; 4])>;

impl Hinge {
    /// Hinge between sides `a` and `b` (None = the world) with joint frames given in each side's
    /// frame (column 0 of `axes` is the hinge axis).
    pub fn new(a: Option<usize>, frame_a: JointFrame, b: Option<usize>, frame_b: JointFrame) -> Self {
        Hinge { ends: Ends::new(a, b), frame_a, frame_b }
    }

    /// Hinge through the world point `point` \[m\] along the world direction `axis`, between sides
    /// at poses (body, position \[m\], quaternion (w, x, y, z)); None = the world.
    pub fn at(a: Pose, b: Pose, point: [f64; 3], axis: [f64; 3]) -> Self {
        let axes = frame_with_axis(axis);
        let fa = JointFrame::from_world(a.map(|(_, x, r)| (x, r)), point, axes);
        let fb = JointFrame::from_world(b.map(|(_, x, r)| (x, r)), point, axes);
        Hinge::new(a.map(|p| p.0), fa, b.map(|p| p.0), fb)
    }

    fn dots(&self, s: &[super::joint3::Side; 2]) -> [DotRow; 2] {
        [DotRow::new(s, &self.frame_a, 0, &self.frame_b, 1), DotRow::new(s, &self.frame_a, 0, &self.frame_b, 2)]
    }
}

impl Constraint for Hinge {
    fn spatial_pair(&self) -> Option<super::Pair3> {
        Some(self.ends.pair(&self.frame_a, &self.frame_b, super::Motion3::Revolute))
    }
    fn kind(&self) -> &'static str {
        "hinge"
    }
    fn row_unit(&self, row: usize) -> &'static str {
        if row >= 3 { "1" } else { "m" }
    }
    fn rows(&self) -> usize {
        5
    }
    fn attach(&self) -> &Attach {
        &self.ends.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = self.ends.sides(q, None);
        ball_rows(&s, &self.frame_a, &self.frame_b, c);
        for (k, d) in self.dots(&s).iter().enumerate() {
            c[3 + k] = d.value();
        }
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        let ldof = self.local_dof();
        let s = self.ends.sides(q, None);
        ball_jacobian(&s, &self.frame_a, &self.frame_b, j, ldof);
        for (k, d) in self.dots(&s).iter().enumerate() {
            d.jacobian(&s, &mut j[(3 + k) * ldof..(4 + k) * ldof]);
        }
    }
    fn stiffness_rows(&self) -> usize {
        3 * self.ends.attach.bodies().len()
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let sd = self.ends.sides(q, None);
        let [d0, d1] = self.dots(&sd);
        let dots = [(d0, lambda[3]), (d1, lambda[4])];
        rotation_stiffness(&sd, &self.frame_a, &self.frame_b, Some(&lambda[..3]), &dots, (g, s), self.local_dof());
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let s = self.ends.sides(q, Some(v));
        ball_jdot_v(&s, &self.frame_a, &self.frame_b, out);
        for (k, d) in self.dots(&s).iter().enumerate() {
            out[3 + k] = d.jdot_v(&s);
        }
    }
}

/// The registry entry of `hinge`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-3D `a` and `b` (or the world) hinged about `axis` through `at`.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    let (a, b, at, axis) = s.on_axis("hinge")?;
    Ok(Box::new(Hinge::at(Some(a), b, at, axis)))
}

/// The registry entry of `hinge`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "hinge",
    summary: "hinge between two rigid-3D bodies or a body and the world (seed 001); 5 rows: 3 m, 2 dimensionless",
    params: "joint frames on a and b: anchor [m], axes (first = hinge axis)",
    from_spec,
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(Hinge::new(a, fa, b, fb))
    },
};
