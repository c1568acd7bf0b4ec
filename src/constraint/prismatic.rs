//! Prismatic (slider) joint between two rigid-2D bodies, or between the world and one body.
//!
//! Body a (or the world) carries the sliding axis through its point u_a with unit normal n_a (body
//! frame); body b slides along it through its point u_b and may not rotate relative to a. With
//! n = A(θ_a) n_a, ρ_i = A(θ_i) u_i, d = (x_b + ρ_b) − (x_a + ρ_a), perp(a) = (−a_y, a_x):
//!   C₁ = n · d                              \[m\]    (offset perpendicular to the axis)
//!   C₂ = θ_b − θ_a − θ₀                     \[rad\]  (relative angle)
//!   J₁ = [ −nᵀ, perp(n)·d − n·perp(ρ_a) | nᵀ, n·perp(ρ_b) ]
//!   J₂ = [ 0, 0, −1 | 0, 0, 1 ]
//!   J̇v₁ = −ω_a² n·d + 2 ω_a perp(n)·ḋ + n·(ω_a² ρ_a − ω_b² ρ_b),
//!         ḋ = v_b + ω_b perp(ρ_b) − v_a − ω_a perp(ρ_a)
//!   J̇v₂ = 0
//! Derived by differentiating C₁ twice and dropping the acceleration terms (ṅ = ω_a perp(n),
//! n̈ = α_a perp(n) − ω_a² n). For the world form a has q = v = 0 and its columns are dropped.
//! Seed 003 uses this joint to hold the slider of the slider-crank.

use super::spec::{JointSpec, SpecError};
use super::registry::{ConstraintEntry};
use super::pair::{Frame2, Motion2, Pair2, Side};
use super::{Attach, Constraint};
use crate::model::{BodyKind, dot2, perp, rotate};

/// A slider: body b translates along an axis fixed in body a (or in the world), without rotating.
#[derive(Clone, Debug)]
pub struct Prismatic {
    attach: Attach,
    local_a: [f64; 2],
    normal_a: [f64; 2],
    local_b: [f64; 2],
    theta0: f64,
}

impl Prismatic {
    /// Slider between rigid-2D bodies `a` (carrying the axis through `local_a` \[m\] with
    /// direction `axis_a`, body frame) and `b` (through `local_b` \[m\]); `theta0` \[rad\] is the
    /// relative angle θ_b − θ_a to hold.
    pub fn new(a: usize, local_a: [f64; 2], axis_a: [f64; 2], b: usize, local_b: [f64; 2], theta0: f64) -> Self {
        let l = axis_a[0].hypot(axis_a[1]);
        Prismatic {
            attach: Attach::two(a, BodyKind::Rigid2, b, BodyKind::Rigid2),
            local_a,
            normal_a: perp([axis_a[0] / l, axis_a[1] / l]),
            local_b,
            theta0,
        }
    }

    /// Slider of rigid-2D body `b` (through `local_b` \[m\]) along the world line through `point`
    /// \[m\] with direction `axis`; `theta0` \[rad\] is the absolute angle of b to hold.
    pub fn to_world(point: [f64; 2], axis: [f64; 2], b: usize, local_b: [f64; 2], theta0: f64) -> Self {
        let mut p = Prismatic::new(0, point, axis, b, local_b, theta0);
        p.attach = Attach::one(b, BodyKind::Rigid2);
        p
    }

    /// (q_a, q_b) with the world as (0, 0, 0) for the one-body form.
    fn split<'a>(&self, x: &'a [f64]) -> (&'a [f64], &'a [f64]) {
        const WORLD: [f64; 3] = [0.0; 3];
        if self.attach.bodies().len() == 2 { (&x[..3], &x[3..6]) } else { (&WORLD, &x[..3]) }
    }

    /// (n, ρ_a, ρ_b, d) at configuration `q`.
    fn geometry(&self, q: &[f64]) -> ([f64; 2], [f64; 2], [f64; 2], [f64; 2]) {
        let (qa, qb) = self.split(q);
        let n = rotate(qa[2], self.normal_a);
        let ra = rotate(qa[2], self.local_a);
        let rb = rotate(qb[2], self.local_b);
        let d = [qb[0] + rb[0] - qa[0] - ra[0], qb[1] + rb[1] - qa[1] - ra[1]];
        (n, ra, rb, d)
    }
}

impl Constraint for Prismatic {
    fn planar_pair(&self) -> Option<Pair2> {
        // T_a F_a Trans(u) = T_b F_b with F_a on the axis, F_b at u_b turned by −θ₀.
        let alpha = (-self.normal_a[0]).atan2(self.normal_a[1]);
        let fa = Frame2::new(self.local_a, alpha);
        let bodies = self.attach.bodies();
        let b = *bodies.last().expect("one or two bodies");
        let second = Side { body: Some(b), frame: Frame2::new(self.local_b, alpha - self.theta0) };
        let first = Side { body: (bodies.len() == 2).then_some(bodies[0]), frame: fa };
        Some(Pair2 { first, second, motion: Motion2::Prismatic })
    }
    fn kind(&self) -> &'static str {
        "prismatic"
    }
    fn row_unit(&self, row: usize) -> &'static str {
        if row == 1 { "rad" } else { "m" }
    }
    fn rows(&self) -> usize {
        2
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (qa, qb) = self.split(q);
        let (n, _, _, d) = self.geometry(q);
        c[0] = dot2(n, d);
        c[1] = qb[2] - qa[2] - self.theta0;
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let (n, ra, rb, d) = self.geometry(q);
        let full = [
            -n[0],
            -n[1],
            dot2(perp(n), d) - dot2(n, perp(ra)),
            n[0],
            n[1],
            dot2(n, perp(rb)),
            0.0,
            0.0,
            -1.0,
            0.0,
            0.0,
            1.0,
        ];
        if self.attach.bodies().len() == 2 {
            j.copy_from_slice(&full);
        } else {
            j[..3].copy_from_slice(&full[3..6]);
            j[3..6].copy_from_slice(&full[9..12]);
        }
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (n, ra, rb, d) = self.geometry(q);
        let (va, vb) = self.split(v);
        let (wa, wb) = (va[2], vb[2]);
        let (pa, pb) = (perp(ra), perp(rb));
        let dd = [vb[0] + wb * pb[0] - va[0] - wa * pa[0], vb[1] + wb * pb[1] - va[1] - wa * pa[1]];
        let acc = [wa * wa * ra[0] - wb * wb * rb[0], wa * wa * ra[1] - wb * wb * rb[1]];
        out[0] = -wa * wa * dot2(n, d) + 2.0 * wa * dot2(perp(n), dd) + dot2(n, acc);
        out[1] = 0.0;
    }
}

/// The registry entry of `prismatic`, with a sampler of random instances for the conformance tests.
/// A `joints:` entry: rigid-2D `b` slides along `axis` (world, at the declared poses) through
/// `at` on `a`, keeping its angle relative to `a`; with one body (`b` the world) that body slides
/// on the world line through `at` (or the world point `local_b`), keeping its angle.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("prismatic", &["at", "local_a", "local_b", "axis"])?;
    let axis = s.axis("prismatic")?;
    let a = s.body_a("prismatic", &[BodyKind::Rigid2])?;
    Ok(match s.body_b("prismatic", &[BodyKind::Rigid2])? {
        Some(b) => {
            let lb = s.anchor_b("prismatic")?;
            let point = JointSpec::world_of(Some(b), lb);
            let la = if s.local_a.is_some() { s.anchor_a("prismatic")? } else { a.local(point) };
            let d = a.local_direction(axis);
            Box::new(Prismatic::new(a.body, [la[0], la[1]], [d[0], d[1]], b.body, [lb[0], lb[1]], b.angle() - a.angle()))
        }
        None => {
            // The slider is `a`; the line passes through `at`, or the world point `local_b`, or
            // the slider's anchor where it is declared.
            let la = if s.local_a.is_some() || s.at.is_some() { s.anchor_a("prismatic")? } else { [0.0; 3] };
            let point = s.at.or(s.local_b).unwrap_or_else(|| a.world(la));
            Box::new(Prismatic::to_world([point[0], point[1]], [axis[0], axis[1]], a.body, [la[0], la[1]], a.angle()))
        }
    })
}

/// The registry entry of `prismatic`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "prismatic",
    summary: "slider: rigid-2D body on an axis of another body or the world, no relative rotation; 2 rows, m and rad",
    params: "axis point and direction on a [m], point on b [m], theta0 [rad]",
    from_spec,
    sample: |u| {
        let axis = [1.0, u[7]];
        if u[0] < 0.0 {
            Box::new(Prismatic::new(0, [u[1], u[2]], axis, 1, [u[3], u[4]], u[5]))
        } else {
            Box::new(Prismatic::to_world([u[1], u[2]], axis, 0, [u[3], u[4]], u[5]))
        }
    },
};
