//! A mechanical system: bodies, applied forces and constraints, with q and v laid out by body offsets.
//!
//! The mass matrix M is diagonal for every body kind here (particles: m per axis; rigid-2D: m, m, I;
//! rigid-3D: m, m, m, I₁, I₂, I₃ with Ω in the principal body frame), so it is stored as the vector
//! `mass` together with its inverse `inv_mass` = diag(W), W = M⁻¹.
//!
//! q and v have separate layouts: a rigid-3D body owns 7 entries of q and 6 of v. Everything that
//! moves q along a velocity goes through [`System::advance`] (q ⊕ h v: the exponential map for
//! orientations), never through q + h v.

use crate::constraint::{Constraint, MAX_LOCAL_DOF, MAX_LOCAL_NQ, MAX_ROWS};
pub use crate::model::ModelError;
use crate::model::{Body, BodyKind, BodyView, Force};
use crate::sparse::BlockJacobian;

mod rods;
use rods::{Piece, Rod, RodRun, drop_weak_terms};

/// Bodies, forces and constraints, with the index layout of q, v and the constraint rows.
#[derive(Debug, Default)]
pub struct System {
    bodies: Vec<Body>,
    offsets: Vec<usize>,
    q_offsets: Vec<usize>,
    nq: usize,
    mass: Vec<f64>,
    inv_mass: Vec<f64>,
    forces: Vec<Force>,
    constraints: Vec<Box<dyn Constraint>>,
    row_offsets: Vec<usize>,
    nrows: usize,
    contacts: Option<crate::contact::ContactSet>,
    /// Per constraint, the global index of each local position coordinate (flattened; constraint
    /// ci's are at `qmap[qmap_start[ci]..qmap_start[ci + 1]]`), so a gather is one indexed copy.
    qmap: Vec<u32>,
    qmap_start: Vec<usize>,
    /// The same for the local velocity coordinates.
    vmap: Vec<u32>,
    vmap_start: Vec<usize>,
    /// The rods between two particles among the constraints, as plain data (`rods.rs`), read by
    /// the Newton step's passes in place of their objects.
    rods: Vec<Rod>,
    rod_runs: Vec<RodRun>,
}

/// buf[k] = x[map[k]]; returns the count.
#[inline]
fn gather_mapped(map: &[u32], x: &[f64], buf: &mut [f64]) -> usize {
    for (b, &i) in buf.iter_mut().zip(map) {
        *b = x[i as usize];
    }
    map.len()
}

impl System {
    /// An empty system.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a body and returns its index.
    pub fn add_body(&mut self, body: Body) -> Result<usize, ModelError> {
        let index = self.bodies.len();
        if body.kind != BodyKind::Clock && !(body.mass.is_finite() && body.mass > 0.0) {
            return Err(ModelError::BadInertia { body: index, what: "mass", value: body.mass });
        }
        let moments: &[f64] = match body.kind {
            BodyKind::Rigid2 => &body.inertia[2..],
            BodyKind::Rigid3 => &body.inertia,
            _ => &[],
        };
        if let Some(&value) = moments.iter().find(|i| !(i.is_finite() && **i > 0.0)) {
            return Err(ModelError::BadInertia { body: index, what: "inertia", value });
        }
        let dof = body.kind.dof();
        let mut diag = [0.0; 6];
        body.mass_diagonal(&mut diag[..dof]);
        self.offsets.push(self.mass.len());
        self.q_offsets.push(self.nq);
        self.nq += body.kind.nq();
        self.mass.extend_from_slice(&diag[..dof]);
        // The clock is kinematic: W = 0 there (no force moves it), not 1/0.
        self.inv_mass.extend(diag[..dof].iter().map(|&m| if body.kind == BodyKind::Clock { 0.0 } else { 1.0 / m }));
        self.bodies.push(body);
        Ok(index)
    }

    fn check_body(&self, owner: &dyn Fn() -> String, body: usize, kind: Option<BodyKind>) -> Result<(), ModelError> {
        let Some(b) = self.bodies.get(body) else {
            return Err(ModelError::UnknownBody { owner: owner(), body, count: self.bodies.len() });
        };
        match kind {
            Some(k) if k != b.kind => {
                Err(ModelError::KindMismatch { owner: owner(), body, expected: k.label(), found: b.kind.label() })
            }
            _ => Ok(()),
        }
    }

    /// Adds an applied force after checking the bodies it names.
    pub fn add_force(&mut self, force: Force) -> Result<(), ModelError> {
        for (body, kind) in force.bodies() {
            self.check_body(&|| format!("force {force:?}"), body, kind)?;
        }
        self.forces.push(force);
        Ok(())
    }

    /// Adds a constraint after checking its bodies and kinds; returns its index.
    pub fn add_constraint(&mut self, c: Box<dyn Constraint>) -> Result<usize, ModelError> {
        let index = self.constraints.len();
        let owner = || format!("constraint {index} ({})", c.kind());
        for (i, (&body, &kind)) in c.bodies().iter().zip(c.body_kinds()).enumerate() {
            self.check_body(&owner, body, Some(kind))?;
            if c.bodies()[..i].contains(&body) {
                return Err(ModelError::RepeatedBody { owner: owner(), body });
            }
        }
        self.row_offsets.push(self.nrows);
        self.nrows += c.rows();
        let coord = |x: usize| u32::try_from(x).expect("fewer than 2^32 coordinates");
        for (map, start, offsets, len) in [
            (&mut self.qmap, &mut self.qmap_start, &self.q_offsets, BodyKind::nq as fn(BodyKind) -> usize),
            (&mut self.vmap, &mut self.vmap_start, &self.offsets, BodyKind::dof),
        ] {
            if start.is_empty() {
                start.push(0);
            }
            for &b in c.bodies() {
                let o = offsets[b];
                map.extend((o..o + len(self.bodies[b].kind)).map(coord));
            }
            start.push(map.len());
        }
        self.note_rod(index, c.as_ref());
        self.constraints.push(c);
        Ok(index)
    }

    /// Adds contact geometry and material (inequality rows, handled only by formulations that
    /// support contact) after checking its bodies.
    pub fn set_contacts(&mut self, contacts: crate::contact::ContactSet) -> Result<(), ModelError> {
        contacts.validate(&self.bodies)?;
        self.contacts = Some(contacts);
        Ok(())
    }

    /// The contact geometry, if the system has any.
    pub fn contacts(&self) -> Option<&crate::contact::ContactSet> {
        self.contacts.as_ref()
    }

    /// Number of degrees of freedom n: the length of v, of M's diagonal and of a row of J.
    pub fn ndof(&self) -> usize {
        self.mass.len()
    }

    /// Number of position coordinates: the length of q (n plus one per rigid-3D body).
    pub fn nq(&self) -> usize {
        self.nq
    }

    /// Number of constraint rows m (length of C and λ).
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// The bodies.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Offset of each body's slice in v (and in every velocity-space vector: M, Q, columns of J).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Offset of each body's slice in q.
    pub fn q_offsets(&self) -> &[usize] {
        &self.q_offsets
    }

    /// q ← q ⊕ h v for every body ([`BodyKind::retract`]): the position update of every integrator
    /// and stepper; `v` is any velocity-space vector (length n), `h` \[s\] (or 1 for a displacement).
    pub fn advance(&self, q: &mut [f64], v: &[f64], h: f64) {
        if !self.has_orientations() {
            // q and v share one layout: a single vectorizable loop.
            for (qi, vi) in q.iter_mut().zip(v) {
                *qi += h * vi;
            }
            return;
        }
        let mut tmp = [0.0; 7];
        for (i, b) in self.bodies.iter().enumerate() {
            let (oq, ov, nq) = (self.q_offsets[i], self.offsets[i], b.kind.nq());
            let qs = &mut q[oq..oq + nq];
            b.kind.retract(qs, &v[ov..ov + b.kind.dof()], h, &mut tmp[..nq]);
            qs.copy_from_slice(&tmp[..nq]);
        }
    }

    /// The velocity v with q1 = q0 ⊕ h v (the inverse of [`System::advance`]), into `v`.
    pub fn difference(&self, q0: &[f64], q1: &[f64], h: f64, v: &mut [f64]) {
        if !self.has_orientations() {
            for ((vi, a), b) in v.iter_mut().zip(q0).zip(q1) {
                *vi = (b - a) / h;
            }
            return;
        }
        for (i, b) in self.bodies.iter().enumerate() {
            let (oq, ov, nq) = (self.q_offsets[i], self.offsets[i], b.kind.nq());
            b.kind.difference(&q0[oq..oq + nq], &q1[oq..oq + nq], h, &mut v[ov..ov + b.kind.dof()]);
        }
    }

    /// q̇ = G(q) v (length of q): the map from velocities to position rates.
    pub fn qdot(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (i, b) in self.bodies.iter().enumerate() {
            let (oq, ov) = (self.q_offsets[i], self.offsets[i]);
            let (nq, dof) = (b.kind.nq(), b.kind.dof());
            b.kind.qdot(&q[oq..oq + nq], &v[ov..ov + dof], &mut out[oq..oq + nq]);
        }
    }

    /// Whether any body has coordinates with a unit-norm invariant (the quaternion of rigid-3D);
    /// without one, q and v share one layout.
    pub fn has_orientations(&self) -> bool {
        self.nq != self.mass.len()
    }

    /// Rescales every quaternion in q to unit length (after a step taken in the embedding, e.g. by
    /// a Runge–Kutta method); returns whether there was any.
    pub fn normalize(&self, q: &mut [f64]) -> bool {
        let mut any = false;
        for (i, b) in self.bodies.iter().enumerate() {
            if b.kind == BodyKind::Rigid3 {
                let o = self.q_offsets[i] + 3;
                crate::model::rotation::normalize(&mut q[o..o + 4]);
                any = true;
            }
        }
        any
    }

    /// The diagonal of M \[kg or kg·m²\].
    pub fn mass(&self) -> &[f64] {
        &self.mass
    }

    /// The diagonal of W = M⁻¹.
    pub fn inv_mass(&self) -> &[f64] {
        &self.inv_mass
    }

    /// The applied forces.
    pub fn forces(&self) -> &[Force] {
        &self.forces
    }

    /// The index in q of the clock's coordinate s (driven mechanisms), if there is a clock.
    pub fn clock_q_index(&self) -> Option<usize> {
        self.bodies.iter().position(|b| b.kind == BodyKind::Clock).map(|i| self.q_offsets[i])
    }

    /// Whether Q(q, v) depends on v: a damper, or the gyroscopic term on a rigid-3D body whose
    /// principal moments differ (with equal moments Ω × IΩ = 0 identically).
    pub fn forces_depend_on_velocity(&self) -> bool {
        let asymmetric = self.bodies.iter().any(|b| {
            b.kind == crate::model::BodyKind::Rigid3 && (b.inertia[0] != b.inertia[1] || b.inertia[1] != b.inertia[2])
        });
        self.forces.iter().any(|f| match f {
            Force::Gyroscopic => asymmetric,
            Force::SpringDamper { damping, .. } => *damping != 0.0,
            _ => false,
        })
    }

    /// The constraints, in row order.
    pub fn constraints(&self) -> &[Box<dyn Constraint>] {
        &self.constraints
    }

    /// First row of each constraint.
    pub fn row_offsets(&self) -> &[usize] {
        &self.row_offsets
    }

    fn view(&self) -> BodyView<'_> {
        BodyView { bodies: &self.bodies, offsets: &self.offsets, q_offsets: &self.q_offsets }
    }

    /// Copies the local velocity-space entries of constraint `ci` out of the global vector `x`
    /// (length n) into `buf`; returns their number (the constraint's local dof).
    #[inline]
    pub fn gather(&self, ci: usize, x: &[f64], buf: &mut [f64; MAX_LOCAL_DOF]) -> usize {
        gather_mapped(&self.vmap[self.vmap_start[ci]..self.vmap_start[ci + 1]], x, buf)
    }

    /// The global velocity-space indices of constraint `ci`'s local coordinates, in local order.
    pub fn local_map(&self, ci: usize) -> &[u32] {
        &self.vmap[self.vmap_start[ci]..self.vmap_start[ci + 1]]
    }

    /// Copies the local position coordinates of constraint `ci` out of q into `buf`; returns their
    /// number.
    #[inline]
    pub fn gather_q(&self, ci: usize, q: &[f64], buf: &mut [f64; MAX_LOCAL_NQ]) -> usize {
        gather_mapped(&self.qmap[self.qmap_start[ci]..self.qmap_start[ci + 1]], q, buf)
    }

    /// Q(q, v): the sum of all applied generalized forces, written into `out` (length n).
    pub fn applied_forces(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        let view = self.view();
        for f in &self.forces {
            f.apply(&view, q, v, out);
        }
    }

    /// Kinetic energy ½ vᵀ M v \[J\].
    pub fn kinetic_energy(&self, v: &[f64]) -> f64 {
        0.5 * self.mass.iter().zip(v).map(|(m, vi)| m * vi * vi).sum::<f64>()
    }

    /// Potential energy Σ U_k(q) of the conservative forces \[J\].
    pub fn potential_energy(&self, q: &[f64]) -> f64 {
        let view = self.view();
        self.forces.iter().map(|f| f.potential(&view, q)).sum()
    }

    /// Total mechanical energy E(q, v) = ½ vᵀ M v + U(q) \[J\].
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        self.kinetic_energy(v) + self.potential_energy(q)
    }

    /// C(q) for all constraints, written into `c` (length m).
    pub fn eval_constraints(&self, q: &[f64], c: &mut [f64]) {
        let mut ql = [0.0; MAX_LOCAL_NQ];
        for (ci, con) in self.constraints.iter().enumerate() {
            let n = self.gather_q(ci, q, &mut ql);
            let r0 = self.row_offsets[ci];
            con.eval(&ql[..n], &mut c[r0..r0 + con.rows()]);
        }
    }

    /// max_r |C_r(q) + reg λ_r| over every constraint row, each constraint's rows at its first row
    /// in `layout` (a layout of [`System::jacobian_layout_with_stiffness_rows`], whose row count
    /// `lambda` has): a Newton step's convergence test in one pass. C comes from each constraint's
    /// [`Constraint::eval`] (for `distance` the arithmetic of [`System::eval_with_stiffness`]'s C;
    /// a rod between two particles from the system's store of rods, with the same arithmetic),
    /// without J or K_g, and is stored nowhere. The fold is `f64::max` from 0, row by row, so a NaN
    /// term is passed over as `f64::max` passes it over. No allocation.
    pub fn max_constraint_residual(&self, q: &[f64], layout: &BlockJacobian, lambda: &[f64], reg: f64) -> f64 {
        let (mut ql, mut c) = ([0.0; MAX_LOCAL_NQ], [0.0; MAX_ROWS]);
        // four running maxima (constraint ci into lane ci mod 4), so that consecutive constraints
        // do not wait on each other's comparison; max is exact, so the lanes' max is the fold's
        let mut max = [0.0; 4];
        for piece in self.pieces() {
            match piece {
                Piece::Rods(run) => self.rods_max_residual(run, q, layout, lambda, reg, &mut max),
                Piece::Objects(range) => {
                    for (ci, con) in self.objects(range) {
                        let n = self.gather_q(ci, q, &mut ql);
                        let (r0, rows) = (layout.constraint_row0(ci), self.rows_of(ci));
                        con.eval(&ql[..n], &mut c[..rows]);
                        let lane = &mut max[ci % 4];
                        for (cr, l) in c[..rows].iter().zip(&lambda[r0..r0 + rows]) {
                            *lane = f64::max(*lane, (cr + reg * l).abs());
                        }
                    }
                }
            }
        }
        max.into_iter().fold(0.0, f64::max)
    }

    /// J̇(q, v) v for all constraints, written into `out` (length m).
    pub fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (mut ql, mut vl) = ([0.0; MAX_LOCAL_NQ], [0.0; MAX_LOCAL_DOF]);
        for (ci, con) in self.constraints.iter().enumerate() {
            let n = self.gather_q(ci, q, &mut ql);
            let nv = self.gather(ci, v, &mut vl);
            let r0 = self.row_offsets[ci];
            con.jdot_v(&ql[..n], &vl[..nv], &mut out[r0..r0 + con.rows()]);
        }
    }

    /// Allocates the block-sparse Jacobian for this system (pattern only; values are zero).
    pub fn jacobian_layout(&self) -> BlockJacobian {
        BlockJacobian::layout(&self.constraints, &self.bodies, self.offsets(), self.ndof(), |_| 0)
    }

    /// The layout of B = [J; Gᵀ] for XPBD's Newton step: each constraint's rows of J followed by
    /// its [`Constraint::stiffness_rows`] rows g_k of the geometric stiffness (filled by
    /// [`System::eval_with_stiffness`]).
    pub fn jacobian_layout_with_stiffness_rows(&self) -> BlockJacobian {
        BlockJacobian::layout(&self.constraints, &self.bodies, self.offsets(), self.ndof(), |c| c.stiffness_rows())
    }

    /// C(q) into `c` and J(q) into `jac` in one pass over the constraints (no allocation).
    pub fn eval_constraints_and_jacobian(&self, q: &[f64], c: &mut [f64], jac: &mut BlockJacobian) {
        let mut ql = [0.0; MAX_LOCAL_NQ];
        for (ci, con) in self.constraints.iter().enumerate() {
            let n = self.gather_q(ci, q, &mut ql);
            let r0 = self.row_offsets[ci];
            con.eval_with_jacobian(&ql[..n], &mut c[r0..r0 + con.rows()], jac.constraint_values_mut(ci));
        }
    }

    /// For XPBD's Newton step, in the layout of [`System::jacobian_layout_with_stiffness_rows`] (all vectors
    /// have its row count): C(q) and J(q) on each constraint's first rows, and on its stiffness
    /// rows the factor g_k, s_k of K_g = −Σ λ_r ∇²C_r (see
    /// [`crate::constraint::Constraint::geometric_stiffness`]) at the multipliers `lambda`. A term
    /// for which `keep(s_k, g_kᵀ W g_k)` is false gets a zero row and s_k = 0 (the caller's policy:
    /// XPBD's Newton step drops compression and negligible terms). The stiffness rows of `c` are
    /// not written (callers keep them 0). With `jt_lambda`, also adds Bᵀλ (B's stiffness rows
    /// carry λ = 0) into it, each constraint's block scattered as soon as it is formed: on a zero
    /// `jt_lambda`, [`BlockJacobian::mul_t`]'s bits without another pass over J. No allocation.
    #[allow(clippy::too_many_arguments)]
    pub fn eval_with_stiffness(
        &self,
        q: &[f64],
        lambda: &[f64],
        c: &mut [f64],
        s: &mut [f64],
        jac: &mut BlockJacobian,
        keep: impl Fn(f64, f64) -> bool,
        mut jt_lambda: Option<&mut [f64]>,
    ) {
        let mut ql = [0.0; MAX_LOCAL_NQ];
        for piece in self.pieces() {
            let range = match piece {
                Piece::Rods(run) => {
                    let x = jt_lambda.as_deref_mut();
                    match (run.dim(), x) {
                        (2, Some(x)) => self.rods_with_stiffness::<2, 4, true>(run, q, lambda, c, s, jac, &keep, x),
                        (2, None) => self.rods_with_stiffness::<2, 4, false>(run, q, lambda, c, s, jac, &keep, &mut []),
                        (_, Some(x)) => self.rods_with_stiffness::<3, 6, true>(run, q, lambda, c, s, jac, &keep, x),
                        (_, None) => self.rods_with_stiffness::<3, 6, false>(run, q, lambda, c, s, jac, &keep, &mut []),
                    }
                    continue;
                }
                Piece::Objects(range) => range,
            };
            for (ci, con) in self.objects(range) {
                let n = self.gather_q(ci, q, &mut ql);
                // shapes from the cached layouts, not from virtual calls
                let (r0, rows) = (jac.constraint_row0(ci), self.rows_of(ci));
                let k = jac.constraint_rows(ci) - rows;
                let map = &self.vmap[self.vmap_start[ci]..self.vmap_start[ci + 1]];
                let (jv, gv) = jac.constraint_values_mut(ci).split_at_mut(rows * map.len());
                let sk = &mut s[r0 + rows..r0 + rows + k];
                con.eval_with_stiffness(&ql[..n], &lambda[r0..r0 + rows], &mut c[r0..r0 + rows], jv, gv, sk);
                if k > 0 {
                    let mut w = [0.0; MAX_LOCAL_DOF];
                    for (wi, &i) in w.iter_mut().zip(map) {
                        *wi = self.inv_mass[i as usize];
                    }
                    drop_weak_terms(gv, sk, &w[..map.len()], &keep);
                }
                if let Some(x) = jt_lambda.as_deref_mut() {
                    jac.mul_t_constraint(ci, lambda, x);
                }
            }
        }
    }

    /// The rows of constraint `ci` (from the row offsets, not a virtual call).
    fn rows_of(&self, ci: usize) -> usize {
        self.row_offsets.get(ci + 1).unwrap_or(&self.nrows) - self.row_offsets[ci]
    }

    /// Constraints `range` with their indices, for a pass that evaluates each briefly: each step
    /// asks for the object [`PREFETCH_AHEAD`] constraints on (see [`prefetch`]).
    fn objects(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = (usize, &dyn Constraint)> {
        range.map(move |ci| {
            if let Some(ahead) = self.constraints.get(ci + PREFETCH_AHEAD) {
                prefetch(ahead.as_ref());
            }
            (ci, self.constraints[ci].as_ref())
        })
    }

    /// Evaluates J(q) into the preallocated `jac` (no allocation).
    pub fn fill_jacobian(&self, q: &[f64], jac: &mut BlockJacobian) {
        let mut ql = [0.0; MAX_LOCAL_NQ];
        for (ci, con) in self.constraints.iter().enumerate() {
            let n = self.gather_q(ci, q, &mut ql);
            con.jacobian(&ql[..n], jac.constraint_values_mut(ci));
        }
    }
}

/// How many constraints ahead [`prefetch`] reaches in the passes over the constraints.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to bring the first two cache lines of a constraint object into cache. The objects
/// are separate heap allocations reached through the constraint list, and a pass that evaluates
/// each one briefly (a Newton step's stiffness rows and convergence test over many small
/// constraints; a chain's rods now come from the rod store instead) otherwise waits on every
/// object's first load once the system no longer fits in cache. A hint only: no effect on any
/// value, and nothing off x86-64.
#[inline(always)]
fn prefetch(c: &dyn Constraint) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = (c as *const dyn Constraint).cast::<i8>();
        // SAFETY: a prefetch does not access memory (no fault, no effect beyond the cache), so any
        // address is sound; these are the object's own first bytes and the line after.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = c;
}
