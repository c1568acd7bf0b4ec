//! The contact stages of `soft_step`: Box2D v3's soft contact solver (Box2D v3.1
//! `contact_solver.c`, `b2PrepareContactsTask`, `b2WarmStartContactsTask`, `b2SolveContactsTask`,
//! `b2ApplyRestitutionTask`; `physics_world.c` for the softness). Per step, at its start:
//!   detect the contacts at q (point p, normal n, separation φ, feature key) and fix each
//!   contact's rows for the whole step: a normal row n·(ṗ_b − ṗ_a) and the friction rows along
//!   the tangents (one in the plane, two in space), with J at the step's start (Box2D keeps the
//!   anchors r_a, r_b fixed over the substeps); the approach speed u_n⁻ = J_n v at the step start;
//!   contact softness at the substep h_s (b2MakeSoft), its frequency capped by the substep rate,
//!   f_c = min(contact_hertz, 1 / (4 h_s)); a contact with the world twice as stiff (2 f_c).
//! Per substep, after the joints' stage of the same name:
//!   warm start   v ← v + W Jᵀ λ (the impulses of the same feature at the last step)
//!   solve        per contact, the separation s = φ + n·(p_b(q) − p_a(q)) with the contact point
//!                moved with each body since the step's start; the normal impulse
//!                  s > 0:  bias = s / h_s, rigid (speculative: the gap may close, not pass)
//!                  s ≤ 0:  bias = max(bias_rate s, −push_velocity), soft:
//!                Δλ_n = −m_n mass_scale (J_n v + bias) − impulse_scale λ_n, λ_n ≥ 0;
//!                then friction, rigid: Δλ_t = −m_t J_t v, ‖λ_t‖ ≤ μ λ_n (in space the two
//!                tangents projected together onto the disk, the Coulomb cone; in the plane the
//!                one row's box is the cone)
//!   relax        the same without bias on penetration and rigid (bias 0, mass_scale 1,
//!                impulse_scale 0); speculative contacts keep s / h_s
//! After the substeps, restitution: for a contact that approached faster than its threshold and
//! carried a normal impulse in the step, Δλ_n = −m_n (J_n v + e u_n⁻), λ_n ≥ 0.
//! Counters: each step is one solve of the contacts, its iterations the passes over them (two
//! per substep, and the restitution stage when it runs), its residual the largest velocity change
//! \[m/s\] of the step's last relax pass (the measure of `pgs`'s own sweeps).
//! DEVIATION: Box2D orders its Gauss–Seidel updates per manifold (all normal points of a pair,
//! then their friction) over a graph colouring; here one contact point at a time in detection
//! order, normal then friction.

use super::pgs::{Row, contact_row};
use super::softness::{Softness, Spring};
use crate::contact::{Contact, ContactSet, Detector};
use crate::linsolve::{SolveInfo, SolverCounters};
use crate::model::BodyPoint;
use crate::system::System;
use nalgebra::Vector3;

/// The contact options of `soft_step` (Box2D v3's world definition).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ContactSoftness {
    /// Contact stiffness as a frequency \[Hz\] (Box2D `contactHertz`).
    pub hertz: f64,
    /// Contact damping ratio \[1\] (Box2D `contactDampingRatio`).
    pub damping_ratio: f64,
    /// The fastest push-out of a penetration \[m/s\] (Box2D `contactPushMaxVelocity`).
    pub push_velocity: f64,
}

/// One contact of the step: where its rows start, and what its separation and restitution need.
#[derive(Clone, Copy, Debug)]
struct Point {
    /// Its first (normal) row in the step's rows.
    row: usize,
    /// Separation φ at the step's start \[m\].
    separation: f64,
    /// Unit normal from a to b.
    normal: Vector3<f64>,
    /// The contact point in body a's frame (None: side a is the world, and the point is fixed).
    anchor_a: Option<BodyPoint>,
    /// The contact point in body b's frame.
    anchor_b: BodyPoint,
    /// The contact point at the step's start \[m\] (side a's, when it is the world).
    point: Vector3<f64>,
    /// J_n v at the step's start \[m/s\] (negative: approaching).
    approach: f64,
    /// The largest normal impulse of the step \[N s\].
    max_normal: f64,
    /// Against the world: the stiffer softness.
    fixed: bool,
    /// Its feature key, for the next step's warm start.
    key: u64,
}

/// The contact workspace of a soft step: allocated at the first step, reused after.
pub(super) struct SoftContacts<'a> {
    set: &'a ContactSet,
    options: ContactSoftness,
    /// Rows per contact: 3 in space (normal, two tangents), 2 in the plane.
    per_contact: usize,
    detector: Option<Detector>,
    found: Vec<Contact>,
    points: Vec<Point>,
    rows: Vec<Row>,
    warm: Vec<(u64, [f64; 3])>,
    warm_next: Vec<(u64, [f64; 3])>,
    /// (contact, static) softness at the substep.
    soft: (Softness, Softness),
    /// Passes this step, and the last pass's largest velocity change \[m/s\].
    pass: (usize, f64),
    /// One solve per step (see the module documentation).
    pub(super) counters: SolverCounters,
}

impl<'a> SoftContacts<'a> {
    /// The workspace for `set` with `options`.
    pub(super) fn new(set: &'a ContactSet, options: ContactSoftness) -> Self {
        let rigid = Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };
        SoftContacts {
            set,
            options,
            per_contact: if set.planar() { 2 } else { 3 },
            detector: None,
            found: Vec::new(),
            points: Vec::new(),
            rows: Vec::new(),
            warm: Vec::new(),
            warm_next: Vec::new(),
            soft: (rigid, rigid),
            pass: (0, 0.0),
            counters: SolverCounters::default(),
        }
    }

    /// Prepares the step at (q, v) with substeps of `hs` \[s\]: detection, rows, approach
    /// speeds, softness, warm-start impulses.
    pub(super) fn prepare(&mut self, sys: &System, q: &[f64], v: &[f64], hs: f64) {
        let hertz = self.options.hertz.min(0.25 / hs);
        let zeta = self.options.damping_ratio;
        self.soft = (Spring::from_hertz(hertz, zeta).soft(hs), Spring::from_hertz(2.0 * hertz, zeta).soft(hs));
        let detector = self.detector.get_or_insert_with(|| Detector::new(self.set));
        detector.detect(self.set, sys.q_offsets(), q, &mut self.found);
        self.rows.clear();
        self.points.clear();
        self.pass = (0, 0.0);
        let (w, dim) = (sys.inv_mass(), self.per_contact);
        for c in &self.found {
            let warm = self.warm.iter().find(|(key, _)| *key == c.key).map_or([0.0; 3], |(_, l)| *l);
            let frame = crate::constraint::joint3::frame_with_axis(c.normal.into());
            let row = self.rows.len();
            for (i, &warm_i) in warm.iter().enumerate().take(dim) {
                // In the plane the one tangent is n turned by +90°.
                let dir: Vector3<f64> = if dim == 2 && i == 1 {
                    Vector3::new(-c.normal.y, c.normal.x, 0.0)
                } else {
                    frame.column(i).into()
                };
                let mut r = contact_row(sys, dim == 2, q, c, &dir);
                r.finish(w);
                r.lambda = warm_i;
                self.rows.push(r);
            }
            let local = |body: usize| BodyPoint { body, local: body_local(sys, q, body, c.point) };
            self.points.push(Point {
                row,
                separation: c.separation,
                normal: c.normal,
                anchor_a: c.a.map(local),
                anchor_b: local(c.b),
                point: c.point,
                approach: self.rows[row].velocity(v),
                max_normal: 0.0,
                fixed: c.a.is_none(),
                key: c.key,
            });
        }
    }

    /// Stage "warm start": v ← v + W Jᵀ λ.
    pub(super) fn warm_start(&self, v: &mut [f64]) {
        for r in &self.rows {
            r.apply(r.lambda, v);
        }
    }

    /// Stage "solve" (`soft`) or "relax" (not `soft`) over every contact, at q after `hs`.
    pub(super) fn solve(&mut self, sys: &System, q: &[f64], v: &mut [f64], hs: f64, soft: bool) {
        let dim = self.per_contact;
        let mut change = 0.0f64;
        for k in 0..self.points.len() {
            let p = self.points[k];
            let s = p.separation
                + p.normal.dot(&(world(sys, q, Some(p.anchor_b), p.point) - world(sys, q, p.anchor_a, p.point)));
            let (bias, Softness { mass_scale, impulse_scale, .. }) = if s > 0.0 {
                (s / hs, Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 })
            } else if soft {
                let sf = if p.fixed { self.soft.1 } else { self.soft.0 };
                ((sf.bias_rate * s).max(-self.options.push_velocity), sf)
            } else {
                (0.0, Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 })
            };
            let n = &mut self.rows[p.row];
            let dl = -n.inv_d * mass_scale * (n.velocity(v) + bias) - impulse_scale * n.lambda;
            let new = (n.lambda + dl).max(0.0);
            n.apply(new - n.lambda, v);
            change = change.max(((new - n.lambda) / n.inv_d).abs());
            n.lambda = new;
            self.points[k].max_normal = self.points[k].max_normal.max(new);
            change = change.max(self.friction(p.row, dim, v));
        }
        self.pass = (self.pass.0 + 1, if change.is_finite() { change } else { f64::NAN });
    }

    /// The rigid friction update of the contact whose normal row is `n`: each tangent row
    /// unclamped, then the pair onto the disk ‖λ_t‖ ≤ μ λ_n (one row: its box); the largest
    /// velocity change \[m/s\].
    fn friction(&mut self, n: usize, dim: usize, v: &mut [f64]) -> f64 {
        let mut change = 0.0f64;
        let bound = self.set.material.friction * self.rows[n].lambda;
        let mut new = [0.0; 2];
        for (i, x) in new.iter_mut().enumerate().take(dim - 1) {
            let r = &self.rows[n + 1 + i];
            *x = r.lambda - r.inv_d * r.velocity(v);
        }
        let norm = new[0].hypot(new[1]);
        let scale = if norm > bound { bound / norm } else { 1.0 };
        for (i, x) in new.iter().enumerate().take(dim - 1) {
            let r = &mut self.rows[n + 1 + i];
            let target = x * scale;
            r.apply(target - r.lambda, v);
            change = change.max(((target - r.lambda) / r.inv_d).abs());
            r.lambda = target;
        }
        change
    }

    /// Stage "restitution", after the substeps: contacts that approached faster than the
    /// material's threshold and carried a normal impulse leave at e times their approach speed.
    pub(super) fn restitution(&mut self, v: &mut [f64]) {
        let m = self.set.material;
        let last = self.pass.1;
        if !self.points.is_empty() {
            let passes = self.pass.0 + usize::from(m.restitution != 0.0);
            self.counters.record(SolveInfo { iterations: passes, residual: last });
        }
        if m.restitution == 0.0 {
            return;
        }
        for p in &self.points {
            if p.approach > -m.restitution_threshold || p.max_normal == 0.0 {
                continue;
            }
            let n = &mut self.rows[p.row];
            let dl = -n.inv_d * (n.velocity(v) + m.restitution * p.approach);
            let new = (n.lambda + dl).max(0.0);
            n.apply(new - n.lambda, v);
            n.lambda = new;
        }
    }

    /// Keeps each contact's impulses for the next step's warm start.
    pub(super) fn store_impulses(&mut self) {
        self.warm_next.clear();
        for p in &self.points {
            let mut l = [0.0; 3];
            for (x, r) in l.iter_mut().zip(&self.rows[p.row..p.row + self.per_contact]) {
                *x = r.lambda;
            }
            self.warm_next.push((p.key, l));
        }
        std::mem::swap(&mut self.warm, &mut self.warm_next);
    }

    /// out += s · Jᵀ λ over the contact rows (the contact part of the reported force).
    pub(super) fn add_force(&self, s: f64, out: &mut [f64]) {
        for r in &self.rows {
            r.add_transpose(s * r.lambda, out);
        }
    }
}

/// The body-frame coordinates \[m\] of the world point `p` on body `body` at q.
pub(super) fn body_local(sys: &System, q: &[f64], body: usize, p: Vector3<f64>) -> [f64; 3] {
    let o = sys.q_offsets()[body];
    match sys.bodies()[body].kind {
        crate::model::BodyKind::Rigid2 => {
            let (sn, cs) = q[o + 2].sin_cos();
            let d = [p.x - q[o], p.y - q[o + 1]];
            [cs * d[0] + sn * d[1], -sn * d[0] + cs * d[1], 0.0]
        }
        crate::model::BodyKind::Rigid3 => {
            let r = crate::model::rotation::rotation_matrix(&q[o + 3..o + 7]);
            let l = r.transpose() * (p - Vector3::new(q[o], q[o + 1], q[o + 2]));
            [l.x, l.y, l.z]
        }
        _ => [0.0; 3],
    }
}

/// The world position \[m\] of a contact point carried by its body (`fixed` for the world).
pub(super) fn world(sys: &System, q: &[f64], anchor: Option<BodyPoint>, fixed: Vector3<f64>) -> Vector3<f64> {
    match anchor {
        Some(a) => {
            let o = sys.q_offsets()[a.body];
            let end = o + sys.bodies()[a.body].kind.nq();
            Vector3::from(a.world(sys.bodies()[a.body].kind, &q[o..end]))
        }
        None => fixed,
    }
}
