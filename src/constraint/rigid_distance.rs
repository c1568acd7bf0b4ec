//! Distance joint between points of two rigid-3D bodies, or a body point and a world point
//! (seed 001, "distance joint"): a massless rod.
//!
//! With d = p_a − p_b, ℓ = |d|, n = d / ℓ and ḋ = ṗ_a − ṗ_b (see [`super::joint3`]):
//!   C   = ℓ − L                                                   \[m\]  (1 row)
//!   J   = point rows of n on side a, −n on side b
//!   J̇v = n·(ω_a × (ω_a × ρ_a) − ω_b × (ω_b × ρ_b)) + (|ḋ|² − (n·ḋ)²) / ℓ
//! (the particle rod of `distance` plus the rotational bias). Undefined at ℓ = 0.
//!
//! Geometric stiffness: with J_d = ∂d/∂δ (the point rows), ∇²ℓ = J_dᵀ (I − n nᵀ) J_d / ℓ + Σ_k n_k ∇²d_k,
//! so K_g = −λ ∇²C is two rank-one terms s = −λ/ℓ, g = J_dᵀ t_i for unit t₁, t₂ ⊥ n (as `distance`),
//! plus the ball joint's rotational terms for the multiplier vector λ n (`joint3::ball_stiffness`:
//! d is the ball joint's C).

use crate::model::BodyKind;
use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry, sides3, frames3};
use super::joint3::{Ends, JointFrame, ball_stiffness};
use super::{Attach, Constraint};
use crate::model::rotation::vec3;
use nalgebra::{Matrix3, Vector3};

/// A rigid rod between two body points.
#[derive(Clone, Debug)]
pub struct RigidDistance {
    ends: Ends,
    frame_a: JointFrame,
    frame_b: JointFrame,
    /// Rest length L \[m\].
    pub length: f64,
}

impl RigidDistance {
    /// Rod of `length` \[m\] between anchor `anchor_a` of side `a` and `anchor_b` of side `b`
    /// (None = the world; anchors in each side's frame \[m\]).
    pub fn new(a: Option<usize>, anchor_a: [f64; 3], b: Option<usize>, anchor_b: [f64; 3], length: f64) -> Self {
        let f = |p: [f64; 3]| JointFrame { anchor: vec3(&p), axes: Matrix3::identity() };
        RigidDistance { ends: Ends::new(a, b), frame_a: f(anchor_a), frame_b: f(anchor_b), length }
    }
}

impl Constraint for RigidDistance {
    fn kind(&self) -> &'static str {
        "rigid_distance"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.ends.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = self.ends.sides(q, None);
        let d = s[0].x + s[0].offset(&self.frame_a.anchor) - s[1].x - s[1].offset(&self.frame_b.anchor);
        c[0] = d.norm() - self.length;
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        j.fill(0.0);
        let s = self.ends.sides(q, None);
        let (ra, rb) = (s[0].offset(&self.frame_a.anchor), s[1].offset(&self.frame_b.anchor));
        let n = (s[0].x + ra - s[1].x - rb).normalize();
        s[0].point_row(j, &n, &ra, 1.0);
        s[1].point_row(j, &n, &rb, -1.0);
    }
    fn stiffness_rows(&self) -> usize {
        2 + 3 * self.ends.attach.bodies().len()
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let ldof = self.local_dof();
        let sd = self.ends.sides(q, None);
        let (ra, rb) = (sd[0].offset(&self.frame_a.anchor), sd[1].offset(&self.frame_b.anchor));
        let d = sd[0].x + ra - sd[1].x - rb;
        let len = d.norm();
        let n = d / len;
        let helper = if n.x.abs() < 0.9 { Vector3::x() } else { Vector3::y() };
        let t1 = n.cross(&helper).normalize();
        let t2 = n.cross(&t1);
        let (head, tail) = g.split_at_mut(2 * ldof);
        head.fill(0.0);
        for (i, t) in [t1, t2].iter().enumerate() {
            let row = &mut head[i * ldof..(i + 1) * ldof];
            sd[0].point_row(row, t, &ra, 1.0);
            sd[1].point_row(row, t, &rb, -1.0);
            s[i] = -lambda[0] / len;
        }
        let lam = [lambda[0] * n.x, lambda[0] * n.y, lambda[0] * n.z];
        ball_stiffness(&sd, &self.frame_a, &self.frame_b, &lam, tail, &mut s[2..], ldof);
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let s = self.ends.sides(q, Some(v));
        let (ra, rb) = (s[0].offset(&self.frame_a.anchor), s[1].offset(&self.frame_b.anchor));
        let d = s[0].x + ra - s[1].x - rb;
        let len = d.norm();
        let n = d / len;
        let dd = s[0].point_velocity(&ra) - s[1].point_velocity(&rb);
        let nd = n.dot(&dd);
        out[0] = n.dot(&(s[0].bias(&ra) - s[1].bias(&rb))) + (dd.dot(&dd) - nd * nd) / len;
    }
}

/// The registry entry of `rigid_distance`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: a rod between anchors `local_a` and `local_b` of rigid-3D `a` and `b` (or a
/// world point); `length` defaults to their distance at the declared poses.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("rigid_distance", &["local_a", "local_b", "length"])?;
    let a = s.body_a("rigid_distance", &[BodyKind::Rigid3])?;
    let b = s.body_b("rigid_distance", &[BodyKind::Rigid3])?;
    let (la, lb) = (s.anchor_a("rigid_distance")?, s.anchor_b("rigid_distance")?);
    let d = super::spec::distance(a.world(la), JointSpec::world_of(b, lb));
    let len = s.positive("rigid_distance", "length", s.length, d)?;
    Ok(Box::new(RigidDistance::new(Some(a.body), la, b.map(|b| b.body), lb, len)))
}

/// The registry entry of `rigid_distance`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "rigid_distance",
    summary: "rod between points of two rigid-3D bodies or a body and the world (seed 001 distance joint); 1 row, m",
    params: "anchor_a, anchor_b [m], length [m]",
    from_spec,
    sample: |u| {
        let (a, b) = sides3(u[0]);
        let (fa, fb) = frames3(u);
        Box::new(RigidDistance::new(a, fa.anchor.into(), b, fb.anchor.into(), 1.0 + u[7].abs()))
    },
};
