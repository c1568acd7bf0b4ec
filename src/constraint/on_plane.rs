//! A point of a body in space (a particle, or a point of a rigid-3D body) on a plane or a straight
//! line fixed in a rigid-3D body: the plane or line moves and turns with its body (a pin in a slot
//! of a moving link, a foot on a tilting platform). One row for a plane, two for a line
//! (`on_line` in space, [`OnPlane::line`]).
//!
//! With ρ_a = R_a u_a (zero for a particle) and ρ_b = R_b u_b the world offsets of the point and
//! of the plane's (line's) point, d = (x_a + ρ_a) − (x_b + ρ_b), and t = R_b t̂ for each normal t̂
//! fixed in b (the plane's normal; for a line the two unit vectors ⟂ to it), one row each:
//!   C    = t · d                                                           \[m\]
//!   Ċ    = t·(v_a + ω_a × ρ_a) − t·(v_b + ω_b × ρ_b) + ω_b·(t × d)           (ṫ = ω_b × t)
//!   J    = [ tᵀ, (R_aᵀ(ρ_a × t))ᵀ | −tᵀ, (R_bᵀ(t × d − ρ_b × t))ᵀ ]         (a particle: tᵀ only)
//!   J̇v  = (ω_b × (ω_b × t))·d + 2 (ω_b × t)·ḋ + t·(ω_a × (ω_a × ρ_a) − ω_b × (ω_b × ρ_b))
//! the rows of the slider's t·d (`slider.rs`) with the roles of the sides exchanged (Haug 1989
//! §9.2 writes the same point-on-line pair).

use super::joint3::{Side, frame_with_axis};
use super::registry::ConstraintEntry;
use super::spec::{JointSpec, SpecError};
use super::{Attach, Constraint};
use crate::model::BodyKind;
use crate::model::rotation::vec3;
use nalgebra::Vector3;

/// A point of body `a` (particle or rigid-3D) on a plane or line fixed in rigid-3D body `b`.
#[derive(Clone, Debug)]
pub struct OnPlane {
    attach: Attach,
    /// The point in a's frame \[m\] (zero for a particle).
    pub local_a: Vector3<f64>,
    /// A point of the plane (line) in b's frame \[m\].
    pub local_b: Vector3<f64>,
    /// The unit normals in b's frame: the plane's (one), or two orthonormal ones ⟂ to the line.
    normals: [Vector3<f64>; 2],
    rows: usize,
}

impl OnPlane {
    /// Point `local_a` \[m\] of body `a` (of kind `kind_a`: particle or rigid-3D; a particle's
    /// point is its position) on the plane of rigid-3D body `b` through `local_b` \[m\] with
    /// normal `normal_b` (both in b's frame; the normal is normalised here).
    pub fn plane(a: usize, kind_a: BodyKind, local_a: [f64; 3], b: usize, local_b: [f64; 3], normal_b: [f64; 3]) -> Self {
        let n = vec3(&normal_b).normalize();
        Self::new(a, kind_a, local_a, b, local_b, [n, Vector3::zeros()], 1)
    }

    /// The same point on the line of b through `local_b` along `axis_b` (b's frame): two rows.
    pub fn line(a: usize, kind_a: BodyKind, local_a: [f64; 3], b: usize, local_b: [f64; 3], axis_b: [f64; 3]) -> Self {
        let f = frame_with_axis(axis_b);
        Self::new(a, kind_a, local_a, b, local_b, [f.column(1).into(), f.column(2).into()], 2)
    }

    fn new(
        a: usize,
        kind_a: BodyKind,
        local_a: [f64; 3],
        b: usize,
        local_b: [f64; 3],
        normals: [Vector3<f64>; 2],
        rows: usize,
    ) -> Self {
        assert!(matches!(kind_a, BodyKind::Particle3 | BodyKind::Rigid3));
        let local_a = if kind_a == BodyKind::Rigid3 { vec3(&local_a) } else { Vector3::zeros() };
        OnPlane { attach: Attach::two(a, kind_a, b, BodyKind::Rigid3), local_a, local_b: vec3(&local_b), normals, rows }
    }

    /// The two sides at the local q (and v): a's (a particle as a side that does not turn, its
    /// point rows written by hand) and b's, with ρ_a, ρ_b and d.
    fn sides(&self, q: &[f64], v: Option<&[f64]>) -> (Side, Side, [Vector3<f64>; 3]) {
        let particle = self.attach.kinds()[0] == BodyKind::Particle3;
        let (nq, dof) = if particle { (3, 3) } else { (7, 6) };
        let a = if particle {
            Side {
                r: nalgebra::Matrix3::identity(),
                x: vec3(&q[..3]),
                v: v.map_or(Vector3::zeros(), |v| vec3(&v[..3])),
                w: Vector3::zeros(),
                col: None,
            }
        } else {
            Side::body(&q[..7], v.map(|v| &v[..6]), 0)
        };
        let b = Side::body(&q[nq..nq + 7], v.map(|v| &v[dof..dof + 6]), dof);
        let (ra, rb) = (a.offset(&self.local_a), b.offset(&self.local_b));
        let d = a.x + ra - b.x - rb;
        (a, b, [ra, rb, d])
    }
}

impl Constraint for OnPlane {
    fn kind(&self) -> &'static str {
        if self.rows == 1 { "on_plane" } else { "on_line" }
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (_, b, [_, _, d]) = self.sides(q, None);
        for (c, n) in c.iter_mut().zip(&self.normals[..self.rows]) {
            *c = (b.r * n).dot(&d);
        }
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let (a, b, [ra, rb, d]) = self.sides(q, None);
        let ldof = self.local_dof();
        for (row, n) in j.chunks_mut(ldof).zip(&self.normals[..self.rows]) {
            row.fill(0.0);
            let t = b.r * n;
            if a.col.is_none() {
                row[..3].copy_from_slice(t.as_slice());
            }
            a.point_row(row, &t, &ra, 1.0);
            b.point_row(row, &t, &rb, -1.0);
            b.angular_row(row, &t.cross(&d), 1.0);
        }
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (a, b, [ra, rb, d]) = self.sides(q, Some(v));
        let dd = a.point_velocity(&ra) - b.point_velocity(&rb);
        let bias = a.bias(&ra) - b.bias(&rb);
        for (o, n) in out.iter_mut().zip(&self.normals[..self.rows]) {
            let t = b.r * n;
            let wt = b.w.cross(&t);
            *o = b.w.cross(&wt).dot(&d) + 2.0 * wt.dot(&dd) + t.dot(&bias);
        }
    }
}

/// A `joints:` entry in space, `on_plane` or `on_line` (`line`): point `local_a` of `a` (default
/// its centre; a particle's position) on the plane (line) of rigid-3D body `b` through the world
/// point `at` (default: a's point) with the world normal (direction) `axis`, read at the declared
/// poses.
pub(super) fn from_spec_3d(s: &JointSpec, kind: &'static str, line: bool) -> Result<Box<dyn Constraint>, SpecError> {
    s.only(kind, &["at", "local_a", "axis"])?;
    let a = s.body_a(kind, &[BodyKind::Particle3, BodyKind::Rigid3])?;
    let b = s.body_b(kind, &[BodyKind::Rigid3])?.ok_or(SpecError::Missing {
        kind: kind.into(),
        needs: "a body `b` (the rigid-3D body carrying the plane or line)".into(),
    })?;
    let la = s.local_a.unwrap_or([0.0; 3]);
    if a.kind == BodyKind::Particle3 && la != [0.0; 3] {
        return Err(SpecError::Invalid {
            kind: kind.into(),
            field: "local_a".into(),
            problem: "is off a particle, which has no extent".into(),
            expected: "no `local_a` on a particle",
        });
    }
    let axis = b.local_direction(s.axis(kind)?);
    let lb = b.local(s.at.unwrap_or_else(|| a.world(la)));
    Ok(Box::new(if line {
        OnPlane::line(a.body, a.kind, la, b.body, lb, axis)
    } else {
        OnPlane::plane(a.body, a.kind, la, b.body, lb, axis)
    }))
}

fn from_spec(s: &JointSpec) -> Result<Box<dyn Constraint>, SpecError> {
    from_spec_3d(s, "on_plane", false)
}

/// A sampled instance in space (for the conformance tests): a particle or a rigid-3D body's
/// point on a plane (`line` false) or a line of a rigid-3D body.
pub(super) fn sample_3d(u: &[f64; super::registry::SAMPLE_INPUTS], line: bool) -> Box<dyn Constraint> {
    let kind = if u[0] < 0.0 { BodyKind::Particle3 } else { BodyKind::Rigid3 };
    let (la, lb, axis) = ([u[1], u[2], u[3]], [u[4], u[5], u[6]], [u[7] + 1.5, u[1], u[4]]);
    Box::new(if line { OnPlane::line(0, kind, la, 1, lb, axis) } else { OnPlane::plane(0, kind, la, 1, lb, axis) })
}

/// The registry entry of `on_plane`.
pub const ENTRY: ConstraintEntry = ConstraintEntry {
    name: "on_plane",
    summary: "point of a particle or rigid-3D body on a plane fixed in another rigid-3D body; 1 row, m",
    params: "local_a [m] (a's point), at [m] and axis (the plane's point and normal, world at the declared poses)",
    from_spec,
    sample: |u| sample_3d(u, false),
};
