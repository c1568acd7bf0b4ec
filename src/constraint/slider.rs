//! Slider (prismatic) joint between two rigid-3D bodies, or a body and the world (seed 001,
//! "slider joint"): the anchor of side b stays on the axis e₁ᵃ through the anchor of side a, and
//! the relative orientation is locked; one translation is free.
//!
//! With t = e₂ᵃ or e₃ᵃ (world vectors on side a, ⟂ to the axis) and d = p_b − p_a:
//!   C₀, C₁ = t · d                                                  \[m\]
//!   Ċ = ω_a·(t × d) + t·ṗ_b − t·ṗ_a          (angular row t × d on a, point rows ∓t)
//!   J̇v = (ω_a × (ω_a × t))·d + 2 (ω_a × t)·ḋ + t·(ω_b × (ω_b × ρ_b) − ω_a × (ω_a × ρ_a))
//!   C₂..₄ = e₂ᵃ·e₃ᵇ, e₃ᵃ·e₁ᵇ, e₁ᵃ·e₂ᵇ                              \[1\]  (orientation lock)

use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{Ends, JointFrame, Side, frame_with_axis, orientation_rows};
use super::{Attach, Constraint};

/// A slider joint.
#[derive(Clone, Debug)]
pub struct Slider {
    ends: Ends,
    frame_a: JointFrame,
    frame_b: JointFrame,
}

impl Slider {
    /// Slider between sides `a` (carrying the axis, column 0 of its frame) and `b` (None = the
    /// world), joint frames in each side's frame.
    pub fn new(a: Option<usize>, frame_a: JointFrame, b: Option<usize>, frame_b: JointFrame) -> Self {
        Slider { ends: Ends::new(a, b), frame_a, frame_b }
    }

    /// Slider along the world direction `axis` through the world point `point` \[m\] (the current
    /// anchor of both sides), between sides at poses (body, position \[m\], quaternion
    /// (w, x, y, z)); None = the world.
    pub fn at(
        a: Option<(usize, [f64; 3], [f64; 4])>,
        b: Option<(usize, [f64; 3], [f64; 4])>,
        point: [f64; 3],
        axis: [f64; 3],
    ) -> Self {
        let axes = frame_with_axis(axis);
        let fa = JointFrame::from_world(a.map(|(_, x, r)| (x, r)), point, axes);
        let fb = JointFrame::from_world(b.map(|(_, x, r)| (x, r)), point, axes);
        Slider::new(a.map(|p| p.0), fa, b.map(|p| p.0), fb)
    }

    fn geometry(&self, s: &[Side; 2]) -> (nalgebra::Vector3<f64>, nalgebra::Vector3<f64>, nalgebra::Vector3<f64>) {
        let (ra, rb) = (s[0].offset(&self.frame_a.anchor), s[1].offset(&self.frame_b.anchor));
        let d = s[1].x + rb - s[0].x - ra;
        (ra, rb, d)
    }
}

impl Constraint for Slider {
    fn kind(&self) -> &'static str {
        "slider"
    }
    fn rows(&self) -> usize {
        5
    }
    fn attach(&self) -> &Attach {
        &self.ends.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = self.ends.sides(q, None);
        let (_, _, d) = self.geometry(&s);
        for (k, ck) in c.iter_mut().take(2).enumerate() {
            *ck = self.frame_a.axis(&s[0], 1 + k).dot(&d);
        }
        for (k, r) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            c[2 + k] = r.value();
        }
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        let ldof = self.local_dof();
        let s = self.ends.sides(q, None);
        let (ra, rb, d) = self.geometry(&s);
        for k in 0..2 {
            let t = self.frame_a.axis(&s[0], 1 + k);
            let row = &mut j[k * ldof..(k + 1) * ldof];
            s[0].angular_row(row, &t.cross(&d), 1.0);
            s[0].point_row(row, &t, &ra, -1.0);
            s[1].point_row(row, &t, &rb, 1.0);
        }
        for (k, r) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            r.jacobian(&s, &mut j[(2 + k) * ldof..(3 + k) * ldof]);
        }
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let s = self.ends.sides(q, Some(v));
        let (ra, rb, d) = self.geometry(&s);
        let dd = s[1].point_velocity(&rb) - s[0].point_velocity(&ra);
        let wa = s[0].w;
        for (k, o) in out.iter_mut().take(2).enumerate() {
            let t = self.frame_a.axis(&s[0], 1 + k);
            let td = wa.cross(&t);
            *o = wa.cross(&td).dot(&d) + 2.0 * td.dot(&dd) + t.dot(&(s[1].bias(&rb) - s[0].bias(&ra)));
        }
        for (k, r) in orientation_rows(&s, &self.frame_a, &self.frame_b).iter().enumerate() {
            out[2 + k] = r.jdot_v(&s);
        }
    }
}

/// The registry entry of `slider`, with a sampler of random instances for the conformance tests.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "slider",
    summary: "slider between two rigid-3D bodies or a body and the world, no relative rotation (seed 001); 5 rows: 2 m, 3 dimensionless",
    params: "joint frames on a (first axis = slide direction) and b: anchor [m], axes",
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(Slider::new(a, fa, b, fb))
    },
};
