//! Slider (prismatic) joint between two rigid-3D bodies, or a body and the world (seed 001,
//! "slider joint"): the anchor of side b stays on the axis e₁ᵃ through the anchor of side a, and
//! the relative orientation is locked; one translation is free.
//!
//! With t = e₂ᵃ or e₃ᵃ (world vectors on side a, ⟂ to the axis) and d = p_b − p_a:
//!   C₀, C₁ = t · d                                                  \[m\]
//!   Ċ = ω_a·(t × d) + t·ṗ_b − t·ṗ_a          (angular row t × d on a, point rows ∓t)
//!   J̇v = (ω_a × (ω_a × t))·d + 2 (ω_a × t)·ḋ + t·(ω_b × (ω_b × ρ_b) − ω_a × (ω_a × ρ_a))
//!   C₂..₄ = e₂ᵃ·e₃ᵇ, e₃ᵃ·e₁ᵇ, e₁ᵃ·e₂ᵇ                              \[1\]  (orientation lock)
//!
//! Geometric stiffness K_g = −Σ λ_r ∇²C_r over (x_a, δ_a, x_b, δ_b) in the body-frame chart. For
//! f = t·d with t = R_a t₀, ∂t/∂δ_a = −R_a\[t₀\]×, ∂d/∂δ_a = R_a\[u_a\]×, ∂d/∂δ_b = −R_b\[u_b\]×, ∂d/∂x = ∓I:
//!   H_{δa δa} = Ĥ(t₀, R_aᵀd) − Ĥ(u_a, R_aᵀt) + M + Mᵀ,  M = \[t₀\]×\[u_a\]×,   H_{δb δb} = Ĥ(u_b, R_bᵀt),
//!   H_{δa xa} = −\[t₀\]× R_aᵀ,  H_{δa xb} = \[t₀\]× R_aᵀ,  H_{δa δb} = −\[t₀\]× R_aᵀR_b \[u_b\]×
//! (Ĥ(u, β) = `joint3::rot_hessian`), plus the dot rows' blocks; the 12 × 12 (6 × 6 with the world)
//! symmetric K_g is factored by its eigenpairs.

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{Ends, JointFrame, Side, dot_hessian, frame_with_axis, orientation_rows, rot_hessian, skew};
use nalgebra::{Matrix3, SMatrix};
use std::ops::AddAssign;
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
    fn spatial_pair(&self) -> Option<super::Pair3> {
        Some(self.ends.pair(&self.frame_a, &self.frame_b, super::Motion3::Prismatic))
    }
    fn kind(&self) -> &'static str {
        "slider"
    }
    fn row_unit(&self, row: usize) -> &'static str {
        if row >= 2 { "1" } else { "m" }
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
    fn stiffness_rows(&self) -> usize {
        6 * self.ends.attach.bodies().len()
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let ldof = self.local_dof();
        let sd = self.ends.sides(q, None);
        let (_, _, d) = self.geometry(&sd);
        let (ra, rb) = (sd[0].r, sd[1].r);
        let (ua, ub) = (self.frame_a.anchor, self.frame_b.anchor);
        // Blocks of the 12 × 12 matrix: x_a 0, δ_a 3, x_b 6, δ_b 9.
        let mut k = SMatrix::<f64, 12, 12>::zeros();
        let mut add = |i: usize, j: usize, m: Matrix3<f64>| {
            k.fixed_view_mut::<3, 3>(i, j).add_assign(&m);
            if i != j {
                k.fixed_view_mut::<3, 3>(j, i).add_assign(&m.transpose());
            }
        };
        for (r, &lam) in lambda.iter().take(2).enumerate() {
            let t = self.frame_a.axis(&sd[0], 1 + r);
            let t0 = ra.transpose() * t;
            let m = skew(&t0) * skew(&ua);
            let h_aa = rot_hessian(&t0, &(ra.transpose() * d)) - rot_hessian(&ua, &(ra.transpose() * t)) + m + m.transpose();
            add(3, 3, -lam * h_aa);
            add(3, 0, lam * skew(&t0) * ra.transpose());
            add(3, 6, -lam * skew(&t0) * ra.transpose());
            add(3, 9, lam * skew(&t0) * ra.transpose() * rb * skew(&ub));
            add(9, 9, -lam * rot_hessian(&ub, &(rb.transpose() * t)));
        }
        for (row, &lam) in orientation_rows(&sd, &self.frame_a, &self.frame_b).iter().zip(&lambda[2..5]) {
            let [haa, hbb, hab] = dot_hessian(row, &ra, &rb);
            add(3, 3, -lam * haa);
            add(9, 9, -lam * hbb);
            add(3, 9, -lam * hab);
        }
        g.fill(0.0);
        let mut put = |e: usize, col: usize, v: &[f64]| g[e * ldof + col..e * ldof + col + 6].copy_from_slice(v);
        match (sd[0].col, sd[1].col) {
            (Some(ca), Some(cb)) => {
                let eig = k.symmetric_eigen();
                for (e, se) in s.iter_mut().enumerate().take(12) {
                    let v: [f64; 12] = std::array::from_fn(|i| eig.eigenvectors[(i, e)]);
                    put(e, ca, &v[..6]);
                    put(e, cb, &v[6..]);
                    *se = eig.eigenvalues[e];
                }
            }
            (Some(c), None) | (None, Some(c)) => {
                let o = if sd[0].col.is_some() { 0 } else { 6 };
                let eig = k.fixed_view::<6, 6>(o, o).into_owned().symmetric_eigen();
                for (e, se) in s.iter_mut().enumerate().take(6) {
                    let v: [f64; 6] = std::array::from_fn(|i| eig.eigenvectors[(i, e)]);
                    put(e, c, &v);
                    *se = eig.eigenvalues[e];
                }
            }
            (None, None) => {}
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
/// A `joints:` entry: rigid-3D `b` (or the world) slides on `a` along `axis` through `at`, no
/// relative rotation.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    let (a, b, at, axis) = s.on_axis("slider")?;
    Ok(Box::new(Slider::at(Some(a), b, at, axis)))
}

/// The registry entry of `slider`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "slider",
    summary: "slider between two rigid-3D bodies or a body and the world, no relative rotation (seed 001); 5 rows: 2 m, 3 dimensionless",
    params: "joint frames on a (first axis = slide direction) and b: anchor [m], axes",
    from_spec,
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(Slider::new(a, fa, b, fb))
    },
};
