//! A point of one planar body (a particle, or a point of a rigid-2D body) on a straight line
//! fixed in a rigid-2D body: the line moves and turns with its body (a wheel on a swinging axle's
//! guide, a pin in a slot of a moving link). One row. In space the same joint (a particle or a
//! rigid-3D body's point on a line of a rigid-3D body, two rows) is [`super::on_plane::OnPlane`].
//!
//! With r_a = A(θ_a) u_a (zero for a particle) and r_b = A(θ_b) u_b the world offsets of the
//! point and of the line's point, n = A(θ_b) n̂ the line's unit normal, d = (x_a + r_a) − (x_b + r_b)
//! and perp(a) = (−a_y, a_x):
//!   C    = n · d                                              \[m\]
//!   J    = [ nᵀ, n·perp(r_a) | −nᵀ, perp(n)·d − n·perp(r_b) ]   (ṅ = ω_b perp(n), ṙ = ω perp(r))
//!   J̇v  = n·(ω_b² r_b − ω_a² r_a) + 2 ω_b perp(n)·ḋ − ω_b² n·d,
//!         ḋ = v_a + ω_a perp(r_a) − v_b − ω_b perp(r_b)
//! (C̈ = n·d̈ + 2 ṅ·ḋ + n̈·d with the acceleration-free parts d̈ → −ω_a² r_a + ω_b² r_b and
//! n̈ → −ω_b² n; Haug 1989 §3.2 writes the same translational joint row.)

use super::registry::ConstraintEntry;
use super::spec::{JointSpec, SpecError};
use super::{Attach, Constraint};
use crate::model::{BodyKind, perp, rotate};

/// A point of body `a` (particle or rigid-2D) on a line fixed in rigid-2D body `b`.
#[derive(Clone, Debug)]
pub struct OnLine {
    attach: Attach,
    /// The point in a's frame \[m\] (zero for a particle).
    pub local_a: [f64; 2],
    /// A point of the line in b's frame \[m\].
    pub local_b: [f64; 2],
    /// The line's unit normal in b's frame.
    pub normal_b: [f64; 2],
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

impl OnLine {
    /// Point `local_a` \[m\] of body `a` (of kind `kind_a`: particle or rigid-2D; a particle's
    /// point is its position) on the line of rigid-2D body `b` through `local_b` \[m\] with unit
    /// normal `normal_b` (both in b's frame; the normal is normalised here).
    pub fn new(a: usize, kind_a: BodyKind, local_a: [f64; 2], b: usize, local_b: [f64; 2], normal_b: [f64; 2]) -> Self {
        assert!(matches!(kind_a, BodyKind::Particle2 | BodyKind::Rigid2));
        let l = normal_b[0].hypot(normal_b[1]);
        let local_a = if kind_a == BodyKind::Rigid2 { local_a } else { [0.0; 2] };
        OnLine {
            attach: Attach::two(a, kind_a, b, BodyKind::Rigid2),
            local_a,
            local_b,
            normal_b: [normal_b[0] / l, normal_b[1] / l],
        }
    }

    /// Where b's slice starts in the local q and v (a's dof: 2 or 3).
    fn split(&self) -> usize {
        self.attach.kinds()[0].dof()
    }

    /// (r_a, r_b, n, d) at the local q.
    fn geometry(&self, q: &[f64]) -> ([f64; 2], [f64; 2], [f64; 2], [f64; 2]) {
        let o = self.split();
        let ra = if o == 3 { rotate(q[2], self.local_a) } else { [0.0; 2] };
        let rb = rotate(q[o + 2], self.local_b);
        let n = rotate(q[o + 2], self.normal_b);
        let d = [q[0] + ra[0] - q[o] - rb[0], q[1] + ra[1] - q[o + 1] - rb[1]];
        (ra, rb, n, d)
    }
}

impl Constraint for OnLine {
    fn kind(&self) -> &'static str {
        "on_line"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (_, _, n, d) = self.geometry(q);
        c[0] = dot(n, d);
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let o = self.split();
        let (ra, rb, n, d) = self.geometry(q);
        j[0] = n[0];
        j[1] = n[1];
        if o == 3 {
            j[2] = dot(n, perp(ra));
        }
        j[o] = -n[0];
        j[o + 1] = -n[1];
        j[o + 2] = dot(perp(n), d) - dot(n, perp(rb));
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let o = self.split();
        let (ra, rb, n, d) = self.geometry(q);
        let wa = if o == 3 { v[2] } else { 0.0 };
        let wb = v[o + 2];
        let (pa, pb) = (perp(ra), perp(rb));
        let dd = [v[0] + wa * pa[0] - v[o] - wb * pb[0], v[1] + wa * pa[1] - v[o + 1] - wb * pb[1]];
        out[0] = wb * wb * dot(n, rb) - wa * wa * dot(n, ra) + 2.0 * wb * dot(perp(n), dd) - wb * wb * dot(n, d);
    }
}

/// A `joints:` entry: point `local_a` of `a` (default its centre; a particle's position) on the
/// line of rigid-2D body `b` through the world point `at` (default: a's point) along the world
/// direction `axis`, both read at the declared poses; in space, of a rigid-3D body `b`.
fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    s.only("on_line", &["at", "local_a", "axis"])?;
    let a = s.body_a("on_line", &[BodyKind::Particle2, BodyKind::Rigid2, BodyKind::Particle3, BodyKind::Rigid3])?;
    if matches!(a.kind, BodyKind::Particle3 | BodyKind::Rigid3) {
        return super::on_plane::from_spec_3d(s, "on_line", true);
    }
    let b = s.body_b("on_line", &[BodyKind::Rigid2])?.ok_or(SpecError::Missing {
        kind: "on_line".into(),
        needs: "a body `b` (the rigid-2D body carrying the line; a world line is `line`)".into(),
    })?;
    let la = s.local_a.unwrap_or([0.0; 3]);
    if a.kind == BodyKind::Particle2 && la != [0.0; 3] {
        return Err(SpecError::Invalid {
            kind: "on_line".into(),
            field: "local_a".into(),
            problem: "is off a particle, which has no extent".into(),
            expected: "no `local_a` on a particle",
        });
    }
    let t = s.axis("on_line")?;
    let at = s.at.unwrap_or_else(|| a.world(la));
    let lb = b.local(at);
    let nb = b.local_direction([-t[1], t[0], 0.0]);
    Ok(Box::new(OnLine::new(a.body, a.kind, [la[0], la[1]], b.body, [lb[0], lb[1]], [nb[0], nb[1]])))
}

/// The registry entry of `on_line`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "on_line",
    summary: "point of a particle or rigid body on a line fixed in another rigid body of its dimension; 1 row in the plane, 2 in space, m",
    params: "local_a [m] (a's point), at [m] and axis (the line, world at the declared poses)",
    from_spec,
    sample: |u| {
        if u[7] > 0.5 {
            return super::on_plane::sample_3d(u, true);
        }
        let kind = if u[0] < 0.0 { BodyKind::Particle2 } else { BodyKind::Rigid2 };
        Box::new(OnLine::new(0, kind, [u[1], u[2]], 1, [u[3], u[4]], [u[5].cos(), u[5].sin() + 0.1 * u[6]]))
    },
};
