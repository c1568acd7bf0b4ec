//! `pgs` — velocity-level impulses with contact and Coulomb friction, solved by projected
//! Gauss–Seidel with warm starting (seed 001; Catto, "Iterative dynamics with temporal coherence",
//! GDC 2005; Erleben 2004, §6). The only formulation that runs scenes with contact.
//!
//! One step of length h (W = M⁻¹):
//!   v* = v + h W Q(q, v)
//!   rows: every equality row i of J (bilateral, λ free) with target J_i v⁺ = −(β/h) C_i;
//!         per contact a normal row n·(ṗ_b − ṗ_a) with λ_n ≥ 0 and two friction rows t_k·(ṗ_b − ṗ_a)
//!         with ‖λ_t‖ ≤ μ λ_n (the Coulomb cone, the default) or, with `cone: false`, |λ_t,k| ≤ μ λ_n
//!         (per-direction box: the friction pyramid of seed 001, a simplification);
//!   normal target: u_n⁺ ≥ −φ/h for a separated contact (φ > 0: speculative, it may close the gap
//!         but not pass it), u_n⁺ ≥ (β/h) max(−φ − slop, 0) for a penetrating one, and
//!         u_n⁺ ≥ −e u_n⁻ when it approaches faster than the restitution threshold and the gap
//!         closes within the step (φ + h u_n⁻ ≤ 0);
//!   warm start: λ of the same equality rows and of contacts with the same feature key last step;
//!   sweeps: for each row, Δλ = (target − J_i v) / (J_i W J_iᵀ), clamp the accumulated λ to its
//!         bounds, v += W J_iᵀ Δλ; stop when no row changes its velocity by more than tol;
//!         on the cone, a contact's two friction rows are updated unclamped and the pair is then
//!         projected onto the disk ‖λ_t‖ ≤ μ λ_n (the Coulomb cone at the current normal impulse,
//!         as in Bullet's and Box2D v3's 3D friction); on the pyramid each onto its own box;
//!   q⁺ = q ⊕ h v⁺.
//! In the plane (rigid-2D bodies) a contact has the normal row and one friction row along n
//! turned by +90°, whose box |λ_t| ≤ μ λ_n is the Coulomb cone there (`cone` changes nothing).
//! The reported constraint force is Q̂ = Jᵀλ / h over all rows. On a scene without contact it is
//! `impulse` with its own projected sweeps (the same solution when the sweeps converge).

use super::Dynamics;
use super::softness::Softness;
use super::stepper_core::StepperCore;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{NotApplicable, SolverCounters, Stepper};
use crate::constraint::MAX_LOCAL_DOF;
use crate::constraint::joint3::Side;
use crate::contact::{Contact, ContactSet};
use crate::linsolve::{LinearSolver, SolveError, SolveInfo};
use crate::params::Params;
use crate::scene::Scene;
use nalgebra::Vector3;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod problem;
use problem::{ContactWork, empty_problem};

/// Options of the PGS contact stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PgsOptions {
    /// Baumgarte factor on C and on penetration, per step
    #[schemars(range(min = 0, max = 1), extend("unit" = "1"))]
    pub beta: f64,
    /// penetration left uncorrected
    #[schemars(range(min = 0), extend("unit" = "m"))]
    pub slop: f64,
    /// projected Gauss-Seidel sweeps per step at most
    #[schemars(range(min = 1, max = 1_000_000))]
    pub iterations: usize,
    /// sweeps stop when no row changes its velocity by more
    #[schemars(extend("unit" = "m/s", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// the true Coulomb cone (the default): the two friction impulses of a contact projected together onto the disk |lambda_t| <= mu lambda_n (false: each clamped to its own box, the friction pyramid, a simplification the cell's label then names)
    pub cone: bool,
    /// start each step from the impulses of the same contacts and rows at the last step (false: from zero)
    pub warm_start: bool,
    /// with a contact solver (nsgs, newton_ac, apgd, ...) instead of gauss_seidel: stop when the natural-map residual of the step's problem, divided by ||q||, is at most this
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub residual_tol: f64,
}

impl Default for PgsOptions {
    fn default() -> Self {
        PgsOptions { beta: 0.2, slop: 0.001, iterations: 100, tol: 1e-10, cone: true, warm_start: true, residual_tol: 1e-8 }
    }
}

impl Params for PgsOptions {}

impl FormulationParams for PgsOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Pgs::new(scene, *self, solver)?)))
    }
}

/// The registry entry of `pgs`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<PgsOptions>(
    "pgs",
    "velocity level with contact and Coulomb friction (lambda_n >= 0; the Coulomb disk ||lambda_t|| <= mu lambda_n, or with cone: false the friction pyramid |lambda_t,k| <= mu lambda_n), projected Gauss-Seidel, warm-started (seed 001)",
    FormulationKind::Stepper,
)
.solving(super::registry::SystemKind::Contact)
.with_order(1)
.with_contact();

/// One row of the sweep, laid out for it: the global column of each local column, J_r, W J_rᵀ and
/// 1 / (J_r W J_rᵀ) side by side.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    /// Global column of each of the first `l` local columns.
    cols: [u32; MAX_LOCAL_DOF],
    /// Local columns in use.
    l: usize,
    /// J_r on the local columns.
    pub(super) j: [f64; MAX_LOCAL_DOF],
    wj: [f64; MAX_LOCAL_DOF],
    /// 1 / (J_r W J_rᵀ) (0 for a row that moves nothing).
    pub(super) inv_d: f64,
    target: f64,
    /// The accumulated impulse.
    pub(super) lambda: f64,
    /// For a friction row: index of its normal row and μ; for a normal row: lower bound 0.
    kind: RowKind,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) enum RowKind {
    #[default]
    Bilateral,
    Normal,
    Friction {
        normal: usize,
        mu: f64,
    },
}

impl Row {
    /// A row on the bodies at `cols` ((first global column, dof) each, in local order), J zero.
    fn on(cols: &[(usize, usize)]) -> Row {
        let mut row =
            Row { cols: [0; MAX_LOCAL_DOF], l: 0, j: [0.0; MAX_LOCAL_DOF], wj: [0.0; MAX_LOCAL_DOF], inv_d: 0.0, target: 0.0, lambda: 0.0, kind: RowKind::Bilateral };
        for &(c0, d) in cols {
            for c in c0..c0 + d {
                row.cols[row.l] = u32::try_from(c).expect("fewer than 2^32 coordinates");
                row.l += 1;
            }
        }
        row
    }

    /// J_r v, summed in local column order.
    #[inline(always)]
    pub(super) fn velocity(&self, v: &[f64]) -> f64 {
        // fixed widths for the common rows (a pair of planar bodies or particles in 3D, one or
        // two bodies in space), so the loops unroll; the same order of summation either way
        match self.l {
            6 => self.velocity_n::<6>(v),
            12 => self.velocity_n::<12>(v),
            4 => self.velocity_n::<4>(v),
            l => {
                let mut s = 0.0;
                for (j, &c) in self.j[..l].iter().zip(&self.cols[..l]) {
                    s += j * v[c as usize];
                }
                s
            }
        }
    }

    #[inline(always)]
    fn velocity_n<const L: usize>(&self, v: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..L {
            s += self.j[k] * v[self.cols[k] as usize];
        }
        s
    }

    /// v ← v + W J_rᵀ Δλ.
    #[inline(always)]
    pub(super) fn apply(&self, dl: f64, v: &mut [f64]) {
        match self.l {
            6 => self.apply_n::<6>(dl, v),
            12 => self.apply_n::<12>(dl, v),
            4 => self.apply_n::<4>(dl, v),
            l => {
                for (w, &c) in self.wj[..l].iter().zip(&self.cols[..l]) {
                    v[c as usize] += w * dl;
                }
            }
        }
    }

    #[inline(always)]
    fn apply_n<const L: usize>(&self, dl: f64, v: &mut [f64]) {
        for k in 0..L {
            v[self.cols[k] as usize] += self.wj[k] * dl;
        }
    }

    /// out ← out + J_rᵀ x.
    pub(super) fn add_transpose(&self, x: f64, out: &mut [f64]) {
        for (j, &c) in self.j[..self.l].iter().zip(&self.cols[..self.l]) {
            out[c as usize] += j * x;
        }
    }

    /// W J_rᵀ on the `len` local columns from `start` (one body's columns of the row).
    pub(super) fn local_wj(&self, start: usize, len: usize) -> &[f64] {
        &self.wj[start..start + len]
    }

    /// Fills W Jᵀ and 1 / (J W Jᵀ) from J and the diagonal `w`.
    pub(super) fn finish(&mut self, w: &[f64]) {
        let mut d = 0.0;
        for k in 0..self.l {
            self.wj[k] = w[self.cols[k] as usize] * self.j[k];
            d += self.j[k] * self.wj[k];
        }
        self.inv_d = if d > 0.0 { 1.0 / d } else { 0.0 };
    }
}

/// The row d·(ṗ_b − ṗ_a) of contact `c` along the world direction `d`: for a rigid-3D body
/// [dᵀ, (Rᵀ(ρ × d))ᵀ] (body-frame ω), for a rigid-2D one [d_x, d_y, ρ_x d_y − ρ_y d_x]
/// (ρ = p − x, the contact point from the body's centre), for a particle d itself (its 2 or 3
/// components), with sign −1 on side a; `planar` for a contact set in the plane.
pub(super) fn contact_row(sys: &crate::system::System, planar: bool, q: &[f64], c: &Contact, dir: &Vector3<f64>) -> Row {
    let kind = |b: usize| sys.bodies()[b].kind;
    let mut pair = [(sys.offsets()[c.b], kind(c.b).dof()), (0, 0)];
    if let Some(a) = c.a {
        pair = [(sys.offsets()[a], kind(a).dof()), pair[0]];
    }
    let mut row = Row::on(if c.a.is_some() { &pair[..] } else { &pair[..1] });
    let sides = [c.a.map(|a| (a, 0, -1.0)), Some((c.b, if c.a.is_some() { pair[0].1 } else { 0 }, 1.0))];
    for (body, col, sign) in sides.into_iter().flatten() {
        let o = sys.q_offsets()[body];
        match kind(body) {
            crate::model::BodyKind::Particle2 | crate::model::BodyKind::Particle3 => {
                let n = kind(body).dof();
                for (x, jk) in row.j[col..col + n].iter_mut().zip(dir.iter()) {
                    *x += sign * jk;
                }
            }
            _ if planar => {
                let rho = [c.point.x - q[o], c.point.y - q[o + 1]];
                let j = [dir.x, dir.y, rho[0] * dir.y - rho[1] * dir.x];
                for (x, jk) in row.j[col..col + 3].iter_mut().zip(j) {
                    *x += sign * jk;
                }
            }
            _ => {
                let side = Side::body(&q[o..o + 7], None, col);
                side.point_row(&mut row.j, dir, &(c.point - side.x), sign);
            }
        }
    }
    row
}

/// The PGS contact stepper on one scene, with its workspaces.
pub struct Pgs<'a> {
    core: StepperCore<'a>,
    contacts: Option<&'a ContactSet>,
    /// Rows per contact: 3 in space (normal, two tangents), 2 in the plane (normal, tangent).
    per_contact: usize,
    /// The narrow and broad phase's workspace, made at the first step.
    detector: Option<crate::contact::Detector>,
    opts: PgsOptions,
    found: Vec<Contact>,
    rows: Vec<Row>,
    warm: Vec<(u64, [f64; 3])>,
    warm_next: Vec<(u64, [f64; 3])>,
    counters: SolverCounters,
    /// The contact solver of the cell, when its solver is one (then each step's contact problem
    /// is built and solved by it on the true cone instead of by the sweeps above).
    contact_solver: Option<Box<dyn crate::friction::solvers::ContactSolver>>,
    /// J v* of every row at the last step (v* after the applied forces, before any impulse): the
    /// free velocities of the step's contact problem.
    free: Vec<f64>,
    /// The contact solver's workspace, kept across steps: the step's problem, the impulses, and
    /// the assembly's rows-by-column lists and triplets.
    work: ContactWork,
}

impl<'a> Pgs<'a> {
    /// Sets up the stepper for `scene`; `solver` must be `gauss_seidel` (the method it projects).
    pub fn new(scene: &'a Scene, opts: PgsOptions, solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let name = solver.name();
        let gauss_seidel = || {
            let e = crate::linsolve::registry::find("gauss_seidel").expect("registered");
            (e.build)(&e.params.defaults())
        };
        let (solver, contact_solver) = match solver.into_contact() {
            // The core's solver is unused by the contact solver's steps (pgs forms its own rows).
            Some(c) => (gauss_seidel(), Some(c)),
            None if name == "gauss_seidel" => (gauss_seidel(), None),
            None => {
                return Err(NotApplicable(format!(
                    "pgs solves contact problems: by its own projected sweeps with `gauss_seidel`, or by a contact solver (nsgs, psor, pjacobi, apgd), not by `{name}`"
                )));
            }
        };
        if contact_solver.is_some() && scene.system.nrows() > 0 {
            return Err(NotApplicable(format!(
                "pgs with contact solver `{name}` takes scenes whose rows are all contacts; this one has {} equality rows (a mixed problem)",
                scene.system.nrows()
            )));
        }
        let contacts = scene.system.contacts();
        Ok(Pgs {
            contact_solver,
            core: StepperCore::with_contacts(scene, solver)?,
            contacts,
            per_contact: if contacts.is_some_and(ContactSet::planar) { 2 } else { 3 },
            detector: None,
            opts,
            found: Vec::new(),
            rows: Vec::new(),
            warm: Vec::new(),
            warm_next: Vec::new(),
            counters: SolverCounters::default(),
            free: Vec::new(),
            work: ContactWork::default(),
        })
    }

    fn build_rows(&mut self, h: f64, q: &[f64], v: &[f64]) {
        let sys = self.core.ns.system;
        let w = sys.inv_mass();
        let bias_rate = Softness::baumgarte(self.opts.beta, h).bias_rate;
        self.rows.clear();
        // Equality rows: J at q, target −(β/h) C, warm-started from last step's λ.
        self.core.ns.update_constraints(q, &mut self.core.c);
        for blk in self.core.ns.jac.blocks() {
            for r in 0..blk.rows {
                let mut row = Row::on(blk.cols);
                row.j[..blk.ldof].copy_from_slice(&blk.values[r * blk.ldof..(r + 1) * blk.ldof]);
                row.target = -bias_rate * self.core.c[blk.row0 + r];
                row.lambda = self.core.accumulated[blk.row0 + r];
                row.finish(w);
                self.rows.push(row);
            }
        }
        // Contact rows.
        let Some(contacts) = self.contacts else { return };
        let detector = self.detector.get_or_insert_with(|| crate::contact::Detector::new(contacts));
        detector.detect(contacts, sys.q_offsets(), q, &mut self.found);
        let mat = contacts.material;
        let dim = self.per_contact;
        for k in 0..self.found.len() {
            let c = self.found[k];
            let warm = self.warm.iter().find(|(key, _)| *key == c.key).map_or([0.0; 3], |(_, l)| *l);
            let normal_index = self.rows.len();
            let frame = crate::constraint::joint3::frame_with_axis(c.normal.into());
            for (i, &warm_i) in warm.iter().enumerate().take(dim) {
                // In the plane the one tangent is n rotated by +90° (frame_with_axis's first
                // tangent is not in the plane in general).
                let dir: Vector3<f64> =
                    if dim == 2 && i == 1 { Vector3::new(-c.normal.y, c.normal.x, 0.0) } else { frame.column(i).into() };
                let mut row = contact_row(sys, self.per_contact == 2, q, &c, &dir);
                row.finish(w);
                row.lambda = warm_i;
                if i == 0 {
                    row.kind = RowKind::Normal;
                    let un = row.velocity(v);
                    let phi = c.separation;
                    let mut target =
                        if phi > 0.0 { -phi / h } else { bias_rate * (-phi - self.opts.slop).max(0.0) };
                    // Restitution only for an impact within this step (the gap closes: φ + h u_n ≤ 0).
                    if un < -mat.restitution_threshold && phi + h * un <= 0.0 {
                        target = target.max(-mat.restitution * un);
                    }
                    row.target = target;
                } else {
                    row.kind = RowKind::Friction { normal: normal_index, mu: mat.friction };
                }
                self.rows.push(row);
            }
        }
    }

    /// The end of a step: λ kept for the next step's warm start, Q̂ = Jᵀλ / h, q⁺ = q ⊕ h v⁺.
    fn finish_step(&mut self, h: f64, q: &mut [f64], v: &[f64]) {
        let sys = self.core.ns.system;
        // Keep λ for the next step's warm start; Q̂ = Jᵀλ / h.
        let m = sys.nrows();
        for (l, row) in self.core.accumulated.iter_mut().zip(&self.rows[..m]) {
            *l = row.lambda;
        }
        self.warm_next.clear();
        let d = self.per_contact;
        for (k, c) in self.found.iter().enumerate() {
            let mut l = [0.0; 3];
            for (x, r) in l.iter_mut().zip(&self.rows[m + d * k..m + d * k + d]) {
                *x = r.lambda;
            }
            self.warm_next.push((c.key, l));
        }
        std::mem::swap(&mut self.warm, &mut self.warm_next);
        self.core.qhat.fill(0.0);
        for row in &self.rows {
            for (j, &c) in row.j[..row.l].iter().zip(&row.cols[..row.l]) {
                self.core.qhat[c as usize] += j * row.lambda / h;
            }
        }
        self.core.integrate_positions(q, v, h);
    }

    /// The step with the cell's contact solver: the step's problem in FCLIB's local form
    /// ([`Pgs::last_contact_problem`]), solved on the true cone from the warm-started impulses to
    /// `residual_tol` or `iterations`, then v⁺ = v* + W J_cᵀ r and q⁺ = q ⊕ h v⁺. A solve that stops
    /// above the tolerance is kept (as the sweeps' last iterate is) and counted with its residual;
    /// one the solver refuses before iterating (lemke above its size) fails the step with the
    /// solver's reason.
    fn step_with_contact_solver(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        use crate::friction::cone::Normalisation;
        use crate::friction::solvers::Stop;
        let stop = Stop {
            tol: self.opts.residual_tol,
            max_iter: self.opts.iterations,
            seconds: f64::INFINITY,
            norm: Normalisation::Q,
            history: false,
        };
        let mut work = std::mem::take(&mut self.work);
        work.r.clear();
        work.r.extend(self.rows.iter().map(|row| row.lambda));
        if !self.rows.is_empty() {
            if self.core.ns.system.nrows() > 0 {
                return Err(SolveError::Breakdown {
                    solver: "pgs",
                    iterations: 0,
                    reason: "the step's contact problem could not be formed",
                });
            }
            let problem = work.problem.get_or_insert_with(empty_problem);
            self.assemble(problem, &mut work.by_col, &mut work.triplets);
            let solver = self.contact_solver.as_mut().expect("contact mode");
            let o = solver.solve(problem, &mut work.r, &stop);
            if !o.residual.is_finite() {
                return Err(SolveError::Breakdown { solver: "pgs", iterations: o.iterations, reason: "non-finite contact impulse" });
            }
            if let (false, 0, Some(reason)) = (o.converged, o.iterations, o.stopped) {
                return Err(SolveError::Refused { solver: "pgs", reason: reason.into_owned() });
            }
            self.counters.record(SolveInfo { iterations: o.iterations, residual: o.residual });
        }
        for (row, &l) in self.rows.iter_mut().zip(&work.r) {
            row.lambda = l;
            row.apply(l, v);
        }
        self.work = work;
        self.finish_step(h, q, v);
        Ok(())
    }

    /// The two friction rows i, i + 1 of a contact on the Coulomb disk: each updated without a
    /// bound, then the pair scaled onto ‖λ_t‖ ≤ μ λ_n; returns the largest velocity change.
    fn friction_on_disk(&mut self, i: usize, v: &mut [f64]) -> f64 {
        let RowKind::Friction { normal, mu } = self.rows[i].kind else { unreachable!("friction rows follow their normal") };
        let old = [self.rows[i].lambda, self.rows[i + 1].lambda];
        let mut new = old;
        for (k, n) in new.iter_mut().enumerate() {
            let row = &mut self.rows[i + k];
            let dl = (row.target - row.velocity(v)) * row.inv_d;
            *n += dl;
            row.lambda = *n;
            row.apply(dl, v);
        }
        let bound = mu * self.rows[normal].lambda;
        let norm = new[0].hypot(new[1]);
        let mut change = 0.0f64;
        for (k, n) in new.iter().enumerate() {
            let target = if norm > bound { n * bound / norm } else { *n };
            let row = &mut self.rows[i + k];
            row.apply(target - row.lambda, v);
            row.lambda = target;
            if row.inv_d > 0.0 {
                change = change.max(((target - old[k]) / row.inv_d).abs());
            }
        }
        change
    }

    fn bounds(&self, i: usize) -> (f64, f64) {
        match self.rows[i].kind {
            RowKind::Bilateral => (f64::NEG_INFINITY, f64::INFINITY),
            RowKind::Normal => (0.0, f64::INFINITY),
            RowKind::Friction { normal, mu } => {
                let m = mu * self.rows[normal].lambda;
                (-m, m)
            }
        }
    }
}

impl Stepper for Pgs<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        self.core.integrate_velocities(q, v, h);
        self.build_rows(h, q, v);
        self.free.clear();
        self.free.extend(self.rows.iter().map(|r| r.velocity(v)));
        if !self.opts.warm_start {
            self.rows.iter_mut().for_each(|r| r.lambda = 0.0);
        }
        if self.contact_solver.is_some() {
            return self.step_with_contact_solver(h, q, v);
        }
        // Warm start (friction clamped to the warm normal impulse: its box, or with `cone` its
        // disk).
        for i in 0..self.rows.len() {
            let (lo, hi) = self.bounds(i);
            let l = self.rows[i].lambda.clamp(lo, hi);
            self.rows[i].lambda = l;
        }
        // In the plane a contact has one friction row, whose box is the Coulomb cone.
        let disk = self.opts.cone && self.per_contact == 3;
        if disk {
            let m = self.core.ns.system.nrows();
            for k in 0..(self.rows.len() - m) / 3 {
                let (n, t) = (m + 3 * k, m + 3 * k + 1);
                let RowKind::Friction { mu, .. } = self.rows[t].kind else { continue };
                let (a, b) = (self.rows[t].lambda, self.rows[t + 1].lambda);
                let (norm, bound) = (a.hypot(b), mu * self.rows[n].lambda);
                if norm > bound {
                    self.rows[t].lambda = a * bound / norm;
                    self.rows[t + 1].lambda = b * bound / norm;
                }
            }
        }
        for i in 0..self.rows.len() {
            let l = self.rows[i].lambda;
            self.rows[i].apply(l, v);
        }
        let mut sweeps = 0;
        let mut change = 0.0;
        while sweeps < self.opts.iterations {
            crate::linsolve::SolveError::check_deadline("pgs", sweeps)?;
            change = 0.0f64;
            let first_contact_row = self.core.ns.system.nrows();
            for i in 0..self.rows.len() {
                if disk && i >= first_contact_row {
                    match (i - first_contact_row) % 3 {
                        1 => {
                            change = change.max(self.friction_on_disk(i, v));
                            continue;
                        }
                        2 => continue, // done with its pair
                        _ => {}
                    }
                }
                let (lo, hi) = self.bounds(i);
                let row = &mut self.rows[i];
                let dl = (row.target - row.velocity(v)) * row.inv_d;
                let new = (row.lambda + dl).clamp(lo, hi);
                let dl = new - row.lambda;
                row.lambda = new;
                row.apply(dl, v);
                if row.inv_d > 0.0 {
                    change = change.max((dl / row.inv_d).abs());
                }
            }
            sweeps += 1;
            if change <= self.opts.tol {
                break;
            }
        }
        if !change.is_finite() {
            return Err(SolveError::Breakdown { solver: "pgs", iterations: sweeps, reason: "non-finite impulse" });
        }
        self.counters.record(SolveInfo { iterations: sweeps, residual: change });
        self.finish_step(h, q, v);
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }

    fn solver_counters(&self) -> SolverCounters {
        self.counters
    }

    fn contact_problem(&self) -> Option<Result<crate::friction::LocalProblem, crate::friction::ProblemError>> {
        Some(self.last_contact_problem())
    }
}
