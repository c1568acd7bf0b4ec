//! The contact handling of `xpbd`: Müller, Macklin, Chentanez, Jeschke & Kim 2020, "Detailed
//! rigid body simulation with extended position based dynamics", §3.5 (contacts and static
//! friction as position constraints) and §3.6 (dynamic friction and restitution as velocity
//! updates), in the substep loop of Macklin et al. 2019.
//!
//! Per substep, once the positions are predicted (q ← q ⊕ h_s v), the contacts are detected at
//! q (point p, normal n from a to b, separation φ), each contact point is fixed in both bodies
//! (anchors r_a, r_b) for the substep, and ṽ_n = J_n v is the normal velocity that predicted q.
//! Then, in each position iteration, after the joints, per contact:
//!     s = φ + n·(p_b(q) − p_a(q))                                        (Müller eq. 26, d = −s)
//!     s < 0: the rigid correction (compliance 0) Δλ_n = −s / w_n,  q ← q ⊕ W J_nᵀ Δλ_n,
//!            w_n = J_n W J_nᵀ the generalized inverse mass of both bodies along n (eqs. 2–3);
//!            static friction: Δp = (p_b(q) − p_b(q̄)) − (p_a(q) − p_a(q̄)) over the substep
//!            (q̄ its start), Δp_t = Δp − (Δp·n) n, t = Δp_t / |Δp_t|,
//!            Δλ_t = −|Δp_t| / w_t, applied only while |λ_t + Δλ_t t| ≤ μ λ_n (eq. 27);
//!   after v = (q − q̄) / h_s, per contact that pushed (λ_n > 0):
//!     dynamic friction  the impulse −v_t/|v_t| min(h_s μ f_n, |v_t| / w_t),  f_n = λ_n / h_s²
//!                       (eq. 30: the paper writes the bound h_s μ f_n on Δv_t, where its units
//!                       are those of an impulse; as an impulse it is Coulomb's bound, μ times
//!                       the normal impulse h_s f_n)
//!     restitution       Δv_n = −v_n + max(−e ṽ_n, 0)                                  (eq. 34)
//!     each applied as the impulse Δv / w along its direction.
//! The rows J are evaluated at the current configuration at the contact point (the midpoint of
//! the two anchors; body b's anchor against the world), so the corrections follow the latest
//! constraint directions as the paper asks.
//! DEVIATION: the whole detection (broad and narrow phase) runs per substep; the paper collects
//! candidate pairs once per step (bounding boxes grown by the step's motion) and finds their
//! contact points per substep. The contacts found are the same; the cost of the broad phase is
//! paid per substep. Contact points must be found per substep: with points fixed in the bodies
//! for a whole step, a sphere spinning at 10 rad/s lifted its contact point by
//! r(1 − cos ωh) = 1.4 mm in 1/60 s and fell through it.
//! DEVIATION: one friction coefficient μ for static and dynamic friction (the model's material
//! has one); e = 0 below the material's restitution threshold on the approach speed ṽ_n, where
//! the paper zeroes e below 2 |g| h_s on |v_n|; friction and restitution are applied one after
//! the other, each exact along its own direction, where the paper applies their sum as one
//! impulse.
//! Counters: each step is one solve of the contacts, its iterations the passes over them (one
//! per position iteration, one per velocity update), its residual the largest penetration \[m\]
//! the step's last position pass corrected.

use super::pgs::{Row, contact_row};
use super::soft_contact::{body_local, world};
use crate::contact::{Contact, ContactSet, Detector};
use crate::linsolve::{SolveInfo, SolverCounters};
use crate::model::BodyPoint;
use crate::system::System;
use nalgebra::Vector3;

/// One contact of the step.
#[derive(Clone, Copy, Debug)]
struct Point {
    /// As detected at the step's start.
    contact: Contact,
    /// The contact point in body a's frame (None: side a is the world).
    anchor_a: Option<BodyPoint>,
    /// The contact point in body b's frame.
    anchor_b: BodyPoint,
    /// The normal multiplier of this substep \[N s²\].
    lambda_n: f64,
    /// The static-friction multiplier of this substep, as a world vector \[N s²\].
    lambda_t: Vector3<f64>,
    /// ṽ_n: J_n v before this substep's positions moved \[m/s\].
    approach: f64,
}

/// The contact workspace of an XPBD step: allocated at the first step, reused after.
pub(super) struct XpbdContacts<'a> {
    set: &'a ContactSet,
    detector: Option<Detector>,
    found: Vec<Contact>,
    points: Vec<Point>,
    /// Jᵀλ / h_s² + Jᵀp / h_s of this substep's contact corrections (the reported force).
    force: Vec<f64>,
    /// Passes with contacts this step, and the largest penetration \[m\] of the last position
    /// pass.
    pass: (usize, f64),
    /// One solve per step (see the module documentation).
    pub(super) counters: SolverCounters,
}

impl<'a> XpbdContacts<'a> {
    /// The workspace for `set` on a system with `ndof` velocities.
    pub(super) fn new(set: &'a ContactSet, ndof: usize) -> Self {
        XpbdContacts {
            set,
            detector: None,
            found: Vec::new(),
            points: Vec::new(),
            force: vec![0.0; ndof],
            pass: (0, 0.0),
            counters: SolverCounters::default(),
        }
    }

    /// The contacts of a substep: detected at the predicted positions q, their points fixed in
    /// the bodies, ṽ_n = J_n v with the velocity v that predicted q, the multipliers and the
    /// reported force reset.
    pub(super) fn prepare(&mut self, sys: &System, q: &[f64], v: &[f64]) {
        let detector = self.detector.get_or_insert_with(|| Detector::new(self.set));
        detector.detect(self.set, sys.q_offsets(), q, &mut self.found);
        self.points.clear();
        self.force.fill(0.0);
        for c in &self.found {
            let local = |body: usize| BodyPoint { body, local: body_local(sys, q, body, c.point) };
            let mut point = Point {
                contact: *c,
                anchor_a: c.a.map(local),
                anchor_b: local(c.b),
                lambda_n: 0.0,
                lambda_t: Vector3::zeros(),
                approach: 0.0,
            };
            point.approach = self.row(sys, q, &point, &c.normal).velocity(v);
            self.points.push(point);
        }
    }

    /// One position pass over the contacts at q (`q_start`: the substep's start, `hs` \[s\]):
    /// the normal correction and static friction of each penetrating contact.
    pub(super) fn project(&mut self, sys: &System, q: &mut [f64], q_start: &[f64], hs: f64) {
        let mu = self.set.material.friction;
        let scale = 1.0 / (hs * hs);
        let (mut deepest, mut nan) = (0.0f64, false);
        for k in 0..self.points.len() {
            let p = self.points[k];
            let normal = p.contact.normal;
            let s = p.contact.separation + normal.dot(&(self.at(sys, q, &p, true) - self.at(sys, q, &p, false)));
            nan |= s.is_nan();
            if !(s < 0.0) {
                continue;
            }
            deepest = deepest.max(-s);
            let row = self.row(sys, q, &p, &normal);
            let dl = -s * row.inv_d;
            displace(sys, &p.contact, &row, dl, q);
            row.add_transpose(scale * dl, &mut self.force);
            let lambda_n = p.lambda_n + dl;
            self.points[k].lambda_n = lambda_n;
            // static friction: hold the tangential motion of the substep
            let moved = |x: &[f64], sys: &System| self.at(sys, x, &p, true) - self.at(sys, x, &p, false);
            let dp = moved(q, sys) - moved(q_start, sys);
            let dpt = dp - normal * normal.dot(&dp);
            let norm = dpt.norm();
            if !(norm > 0.0) {
                continue;
            }
            let t = dpt / norm;
            let row = self.row(sys, q, &p, &t);
            let dlt = -norm * row.inv_d;
            let lambda_t = p.lambda_t + t * dlt;
            if lambda_t.norm() <= mu * lambda_n {
                displace(sys, &p.contact, &row, dlt, q);
                row.add_transpose(scale * dlt, &mut self.force);
                self.points[k].lambda_t = lambda_t;
            }
        }
        if !self.points.is_empty() {
            self.pass = (self.pass.0 + 1, if nan { f64::NAN } else { deepest });
        }
    }

    /// The velocity update after v = (q − q̄) / h_s: dynamic friction and restitution of each
    /// contact that pushed in this substep.
    pub(super) fn velocities(&mut self, sys: &System, q: &[f64], v: &mut [f64], hs: f64) {
        let m = self.set.material;
        let planar = self.set.planar();
        for p in &self.points {
            if !(p.lambda_n > 0.0) {
                continue;
            }
            let normal = p.contact.normal;
            // the tangential velocity of b against a at the contact, from the rows of a frame
            let frame = crate::constraint::joint3::frame_with_axis(normal.into());
            let tangents: [Vector3<f64>; 2] = if planar {
                [Vector3::new(-normal.y, normal.x, 0.0), Vector3::zeros()]
            } else {
                [frame.column(1).into(), frame.column(2).into()]
            };
            let mut vt = Vector3::zeros();
            for d in tangents.iter().filter(|d| d.norm() > 0.0) {
                vt += d * self.row(sys, q, p, d).velocity(v);
            }
            let speed = vt.norm();
            if speed > 0.0 {
                let dir = vt / speed;
                let row = self.row(sys, q, p, &dir);
                // the Coulomb bound on the friction impulse: μ times the normal impulse λ_n / h_s
                let dl = -(m.friction * p.lambda_n / hs).min(speed * row.inv_d);
                row.apply(dl, v);
                row.add_transpose(dl / hs, &mut self.force);
            }
            let row = self.row(sys, q, p, &normal);
            let e = if p.approach < -m.restitution_threshold { m.restitution } else { 0.0 };
            let dl = ((-e * p.approach).max(0.0) - row.velocity(v)) * row.inv_d;
            row.apply(dl, v);
            row.add_transpose(dl / hs, &mut self.force);
        }
        self.pass.0 += usize::from(!self.points.is_empty());
    }

    /// Records the step's contact work in the counters.
    pub(super) fn finish_step(&mut self) {
        if self.pass.0 > 0 {
            self.counters.record(SolveInfo { iterations: self.pass.0, residual: self.pass.1 });
        }
        self.pass = (0, 0.0);
    }

    /// out += the contact force of the last substep (see [`XpbdContacts::force`]).
    pub(super) fn add_force(&self, out: &mut [f64]) {
        for (o, f) in out.iter_mut().zip(&self.force) {
            *o += f;
        }
    }

    /// The world position \[m\] of the contact point carried by side b (`b`) or side a at q.
    fn at(&self, sys: &System, q: &[f64], p: &Point, b: bool) -> Vector3<f64> {
        if b { world(sys, q, Some(p.anchor_b), p.contact.point) } else { world(sys, q, p.anchor_a, p.contact.point) }
    }

    /// The row of contact `p` along the world direction `dir` at q, at the current contact point.
    fn row(&self, sys: &System, q: &[f64], p: &Point, dir: &Vector3<f64>) -> Row {
        let b = self.at(sys, q, p, true);
        let point = if p.anchor_a.is_some() { 0.5 * (b + self.at(sys, q, p, false)) } else { b };
        let mut row = contact_row(sys, self.set.planar(), q, &Contact { point, ..p.contact }, dir);
        row.finish(sys.inv_mass());
        row
    }
}

/// q ← q ⊕ W J_rᵀ Δλ on the bodies of contact `c` (the row's local columns: a's, then b's).
fn displace(sys: &System, c: &Contact, row: &Row, dl: f64, q: &mut [f64]) {
    let mut col = 0;
    for body in [c.a, Some(c.b)].into_iter().flatten() {
        let kind = sys.bodies()[body].kind;
        let (o, nq, dof) = (sys.q_offsets()[body], kind.nq(), kind.dof());
        let mut dv = [0.0; 6];
        for (d, w) in dv.iter_mut().zip(row.local_wj(col, dof)) {
            *d = w * dl;
        }
        let mut out = [0.0; 7];
        kind.retract(&q[o..o + nq], &dv[..dof], 1.0, &mut out[..nq]);
        q[o..o + nq].copy_from_slice(&out[..nq]);
        col += dof;
    }
}
