//! Revolute joint between two rigid-2D bodies, or between one body and the world (seed 003).
//!
//! With ρ_i = A(θ_i) u_i the world offset of the joint point on body i and perp(a) = (−a_y, a_x):
//!   C    = (x_a + ρ_a) − (x_b + ρ_b)          \[m\]   (2 rows; x_b + ρ_b is a fixed point p for
//!                                                      the body–world form)
//!   J    = [ I₂, perp(ρ_a) | −I₂, −perp(ρ_b) ]   (2 × 6; 2 × 3 for body–world)
//!   J̇v  = −ω_a² ρ_a + ω_b² ρ_b                 (A″u = −A u)
//! Seed 003 ("Revolute Joint") writes the same J and J̇ entry by entry.
//!
//! Geometric stiffness K_g = −Σ_r λ_r ∇²C_r: C is linear in x and ∂²(A(θ)u)/∂θ² = −A(θ)u, so the only
//! second derivatives are ∂²C/∂θ_a² = −ρ_a and ∂²C/∂θ_b² = +ρ_b, and
//!   K_g = (λ·ρ_a) e_θa e_θaᵀ − (λ·ρ_b) e_θb e_θbᵀ
//! (two rank-one terms; one for the body–world form).

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry};
use super::pair::{Frame2, Motion2, Pair2, Side};
use super::{Attach, Constraint};
use crate::model::{BodyKind, perp, rotate};

/// A pin joint: one point of body `a` coincides with one point of body `b` (or a world point).
#[derive(Clone, Debug)]
pub struct Revolute {
    attach: Attach,
    /// Joint point in body a's frame \[m\].
    pub local_a: [f64; 2],
    /// Joint point in body b's frame \[m\], or the world point for the body–world form.
    pub local_b: [f64; 2],
}

/// The local offset u with x + A(θ) u = `point`, for a body at `pose` = (x, y, θ).
pub fn local_offset(pose: [f64; 3], point: [f64; 2]) -> [f64; 2] {
    rotate(-pose[2], [point[0] - pose[0], point[1] - pose[1]])
}

impl Revolute {
    /// Joint between rigid-2D bodies `a` and `b` at offsets `local_a`, `local_b` \[m\] (body frames).
    pub fn new(a: usize, local_a: [f64; 2], b: usize, local_b: [f64; 2]) -> Self {
        Revolute { attach: Attach::two(a, BodyKind::Rigid2, b, BodyKind::Rigid2), local_a, local_b }
    }

    /// Joint pinning offset `local_a` \[m\] of rigid-2D body `a` to the world point `point` \[m\].
    pub fn to_world(a: usize, local_a: [f64; 2], point: [f64; 2]) -> Self {
        Revolute { attach: Attach::one(a, BodyKind::Rigid2), local_a, local_b: point }
    }

    /// Joint at the world point `point` \[m\] between bodies at poses `pose_a`, `pose_b`.
    pub fn at_point(a: usize, pose_a: [f64; 3], b: usize, pose_b: [f64; 3], point: [f64; 2]) -> Self {
        Revolute::new(a, local_offset(pose_a, point), b, local_offset(pose_b, point))
    }

    fn two(&self) -> bool {
        self.attach.bodies().len() == 2
    }
}

impl Constraint for Revolute {
    fn planar_pair(&self) -> Option<Pair2> {
        let fa = Frame2::new(self.local_a, 0.0);
        Some(if self.two() {
            let b = self.attach.bodies()[1];
            Pair2 {
                first: Side { body: Some(self.attach.bodies()[0]), frame: fa },
                second: Side { body: Some(b), frame: Frame2::new(self.local_b, 0.0) },
                motion: Motion2::Revolute,
            }
        } else {
            Pair2::world(Frame2::new(self.local_b, 0.0), self.attach.bodies()[0], fa, Motion2::Revolute)
        })
    }
    fn kind(&self) -> &'static str {
        "revolute"
    }
    fn rows(&self) -> usize {
        2
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let ra = rotate(q[2], self.local_a);
        let pb = if self.two() {
            let rb = rotate(q[5], self.local_b);
            [q[3] + rb[0], q[4] + rb[1]]
        } else {
            self.local_b
        };
        c[0] = q[0] + ra[0] - pb[0];
        c[1] = q[1] + ra[1] - pb[1];
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let ldof = self.local_dof();
        j.fill(0.0);
        let pa = perp(rotate(q[2], self.local_a));
        j[0] = 1.0;
        j[2] = pa[0];
        j[ldof + 1] = 1.0;
        j[ldof + 2] = pa[1];
        if self.two() {
            let pb = perp(rotate(q[5], self.local_b));
            j[3] = -1.0;
            j[5] = -pb[0];
            j[ldof + 4] = -1.0;
            j[ldof + 5] = -pb[1];
        }
    }
    fn stiffness_rows(&self) -> usize {
        if self.two() { 2 } else { 1 }
    }
    fn geometric_stiffness(&self, q: &[f64], lambda: &[f64], g: &mut [f64], s: &mut [f64]) {
        let ldof = self.local_dof();
        g.fill(0.0);
        let ra = rotate(q[2], self.local_a);
        g[2] = 1.0;
        s[0] = lambda[0] * ra[0] + lambda[1] * ra[1];
        if self.two() {
            let rb = rotate(q[5], self.local_b);
            g[ldof + 5] = 1.0;
            s[1] = -(lambda[0] * rb[0] + lambda[1] * rb[1]);
        }
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let ra = rotate(q[2], self.local_a);
        let wa2 = v[2] * v[2];
        out[0] = -wa2 * ra[0];
        out[1] = -wa2 * ra[1];
        if self.two() {
            let rb = rotate(q[5], self.local_b);
            let wb2 = v[5] * v[5];
            out[0] += wb2 * rb[0];
            out[1] += wb2 * rb[1];
        }
    }
}

/// The registry entry of `revolute`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-2D `a` and `b` (or the world) joined at `at` or at `local_a`/`local_b`.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("revolute", &["at", "local_a", "local_b"])?;
    let a = s.body_a("revolute", &[BodyKind::Rigid2])?;
    let la = s.anchor_a("revolute")?;
    let lb = s.anchor_b("revolute")?;
    Ok(match s.body_b("revolute", &[BodyKind::Rigid2])? {
        Some(b) => Box::new(Revolute::new(a.body, [la[0], la[1]], b.body, [lb[0], lb[1]])),
        None => Box::new(Revolute::to_world(a.body, [la[0], la[1]], [lb[0], lb[1]])),
    })
}

/// The registry entry of `revolute`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "revolute",
    summary: "pin joint between two rigid-2D bodies or a body and the world (seed 003); 2 rows, m",
    params: "local_a [m], local_b [m] (world point for body-world)",
    from_spec,
    sample: |u| {
        if u[0] < 0.0 {
            Box::new(Revolute::new(0, [u[1], u[2]], 1, [u[3], u[4]]))
        } else {
            Box::new(Revolute::to_world(0, [u[1], u[2]], [u[3], u[4]]))
        }
    },
};
