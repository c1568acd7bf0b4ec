//! The articulated-body algorithm on a planar joint tree (Featherstone 2008, ch. 7, Table 7.1),
//! with every spatial quantity expressed at the world origin (docs/design.md §2.2).
//!
//! Planar spatial vectors: motion v̂ = (ω, v_Ox, v_Oy), force f̂ = (n_O, f_x, f_y). For a body with
//! mass m, centre of mass c and moment of inertia I about it, the spatial inertia at the origin is
//!   Î = [[I + m|c|², −m c_y, m c_x], [−m c_y, m, 0], [m c_x, 0, m]],
//! and v̂ ×* ĥ = (v_x h_y − v_y h_x, −ω h_y, ω h_x). One evaluation is three passes over the links:
//!   out:  v̂_i = v̂_p + S_i u̇_i,  ĉ_i = Ṡ_i u̇_i                                       (eq. 7.25–7.26)
//!   in:   Î^A_i = Î_i + Σ Î^a_child,  p̂^A_i = v̂_i ×* Î_i v̂_i − f̂_i + Σ p̂^a_child,
//!         Î^a = Î^A − U D⁻¹ Uᵀ,  p̂^a = p̂^A + Î^a ĉ + U D⁻¹ τ,
//!         U = Î^A S,  D = Sᵀ U,  τ = −Sᵀ p̂^A                                        (eq. 7.27–7.35)
//!   out:  ü_i = D⁻¹ (τ − Uᵀ (â_p + ĉ_i)),  â_i = â_p + ĉ_i + S_i ü_i                 (eq. 7.36–7.38)
//! Every joint below a root has at most one coordinate, so U is a vector and D a number; a free
//! root (2 or 3 coordinates) solves its own D = Sᵀ Î^A S (§9.3, the floating base).
//! DEVIATION: no joint forces (applied forces are Cartesian and enter as f̂); gravity is an
//! applied force, not a base acceleration. Every step is O(1) per link: the cost is linear.

use super::kinematics::{cross2, point_velocity};
use super::{JointKind, Link, Tree};
use crate::system::System;

/// The per-link workspace of the articulated-body algorithm (31 numbers).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkState {
    /// Pose (x, y \[m\] of the centre of mass, θ \[rad\]; a particle's θ is its joint's).
    pub(super) pose: [f64; 3],
    /// World origin of the joint frame on the parent \[m\].
    pub(super) joint: [f64; 2],
    /// Motion subspace S of a one-coordinate joint.
    pub(super) s: [f64; 3],
    /// Spatial velocity v̂.
    pub(super) v: [f64; 3],
    /// Velocity-product acceleration ĉ = Ṡ u̇.
    pub(super) c: [f64; 3],
    /// Articulated inertia Î^A (symmetric: 00, 01, 02, 11, 12, 22).
    pub(super) ia: [f64; 6],
    /// Articulated bias force p̂^A.
    pub(super) pa: [f64; 3],
    /// U = Î^A S.
    u: [f64; 3],
    /// D⁻¹ = 1 / Sᵀ Î^A S.
    dinv: f64,
    /// τ = −Sᵀ p̂^A.
    tau: f64,
    /// Spatial acceleration â.
    a: [f64; 3],
}

/// A joint tree with its workspace: evaluates the forward dynamics in linear time.
pub struct Articulated<'a> {
    /// The mechanism.
    pub(super) system: &'a System,
    /// Its joint tree.
    pub tree: Tree,
    pub(super) states: Vec<LinkState>,
}

/// The articulated inertia of a link met a non-positive pivot (a joint that moves no inertia), or
/// a non-finite one (the state blew up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Degenerate {
    /// The body whose joint moves no inertia.
    pub body: usize,
    /// Whether the pivot was not a number (a non-finite state) rather than ≤ 0.
    pub non_finite: bool,
}

impl Degenerate {
    /// As a solve error: a breakdown on a non-finite state, else a singular pivot among `bodies`.
    pub fn error(self, bodies: usize) -> crate::linsolve::SolveError {
        use crate::linsolve::SolveError;
        if self.non_finite {
            SolveError::Breakdown { solver: "articulated-body", iterations: 0, reason: "non-finite state" }
        } else {
            SolveError::Singular { solver: "articulated-body", pivot: self.body, dim: bodies }
        }
    }
}

#[inline]
fn inertia(l: &Link, c: [f64; 2]) -> [f64; 6] {
    let m = l.mass;
    [l.inertia + m * (c[0] * c[0] + c[1] * c[1]), -m * c[1], m * c[0], m, 0.0, m]
}

#[inline]
fn mul(a: &[f64; 6], x: [f64; 3]) -> [f64; 3] {
    [
        a[0] * x[0] + a[1] * x[1] + a[2] * x[2],
        a[1] * x[0] + a[3] * x[1] + a[4] * x[2],
        a[2] * x[0] + a[4] * x[1] + a[5] * x[2],
    ]
}

#[inline]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The spatial force at the origin of the generalized force on a link's body (f_x, f_y, τ).
#[inline]
fn spatial_force(l: &Link, forces: &[f64], o: usize, c: [f64; 2]) -> [f64; 3] {
    let f = [forces[o], forces[o + 1]];
    let tq = if l.particle { 0.0 } else { forces[o + 2] };
    [tq + cross2(c, f), f[0], f[1]]
}

impl<'a> Articulated<'a> {
    /// The workspace for `tree` on `system` (allocated once).
    pub fn new(system: &'a System, tree: Tree) -> Self {
        let states = vec![LinkState::default(); tree.links.len()];
        Articulated { system, tree, states }
    }

    /// The inward pass for inertias and biases, then the outward pass for the accelerations, for
    /// the Cartesian generalized forces `forces` (length n, each body's velocity coordinates) at the
    /// state last set ([`super::TreeDynamics::set_state`]): the joint accelerations into `udd`. Keeps
    /// Î^A, U and D⁻¹ for [`super::TreeDynamics::resolve`].
    fn solve_tree(&mut self, forces: &[f64], udd: &mut [f64]) -> Result<(), Degenerate> {
        let offsets = self.system.offsets();
        for i in (0..self.tree.links.len()).rev() {
            let l = &self.tree.links[i];
            let st = &mut self.states[i];
            let c = st.com();
            let inert = inertia(l, c);
            let mut ia = st.ia;
            for (x, y) in ia.iter_mut().zip(&inert) {
                *x += y;
            }
            // p̂ = v̂ ×* Î v̂ − f̂
            let h = mul(&inert, st.v);
            let (v, f) = (st.v, spatial_force(l, forces, offsets[l.body], c));
            let pa = [
                st.pa[0] + v[1] * h[2] - v[2] * h[1] - f[0],
                st.pa[1] - v[0] * h[2] - f[1],
                st.pa[2] + v[0] * h[1] - f[2],
            ];
            st.ia = ia;
            st.pa = pa;
            if l.dof == 1 {
                let u = mul(&ia, st.s);
                let d = dot(st.s, u);
                if !(d > 0.0) {
                    return Err(Degenerate { body: l.body, non_finite: !d.is_finite() });
                }
                st.u = u;
                st.dinv = 1.0 / d;
                st.tau = -dot(st.s, pa);
            }
            let Some(p) = l.parent else { continue };
            let (ia_up, pa_up) = if l.dof == 1 {
                let (u, dinv) = (st.u, st.dinv);
                let up = [
                    ia[0] - u[0] * u[0] * dinv,
                    ia[1] - u[0] * u[1] * dinv,
                    ia[2] - u[0] * u[2] * dinv,
                    ia[3] - u[1] * u[1] * dinv,
                    ia[4] - u[1] * u[2] * dinv,
                    ia[5] - u[2] * u[2] * dinv,
                ];
                let iac = mul(&up, st.c);
                let w = dinv * st.tau;
                (up, [pa[0] + iac[0] + u[0] * w, pa[1] + iac[1] + u[1] * w, pa[2] + iac[2] + u[2] * w])
            } else {
                let iac = mul(&ia, st.c);
                (ia, [pa[0] + iac[0], pa[1] + iac[1], pa[2] + iac[2]])
            };
            let ps = &mut self.states[p];
            for (x, y) in ps.ia.iter_mut().zip(&ia_up) {
                *x += y;
            }
            for (x, y) in ps.pa.iter_mut().zip(&pa_up) {
                *x += y;
            }
        }
        self.outward(true, udd)
    }

    /// The bias and outward passes again for other forces, reusing the inertias of the last
    /// [`super::TreeDynamics::solve`]: with `dynamic` the velocity terms of the state are included;
    /// without, the result is the tree's response at rest, M⁻¹ Gᵀ-style (for loop closures).
    fn resolve_tree(&mut self, forces: &[f64], dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate> {
        let offsets = self.system.offsets();
        for (l, st) in self.tree.links.iter().zip(self.states.iter_mut()) {
            let c = st.com();
            let f = spatial_force(l, forces, offsets[l.body], c);
            st.pa = if dynamic {
                let h = mul(&inertia(l, c), st.v);
                let v = st.v;
                [v[1] * h[2] - v[2] * h[1] - f[0], -v[0] * h[2] - f[1], v[0] * h[1] - f[2]]
            } else {
                [-f[0], -f[1], -f[2]]
            };
        }
        for i in (0..self.tree.links.len()).rev() {
            let l = &self.tree.links[i];
            let st = &mut self.states[i];
            if l.dof == 1 {
                st.tau = -dot(st.s, st.pa);
            }
            let Some(p) = l.parent else { continue };
            let c = if dynamic { st.c } else { [0.0; 3] };
            // Î^a ĉ = Î^A ĉ − U D⁻¹ Uᵀ ĉ
            let mut up = mul(&st.ia, c);
            for (x, y) in up.iter_mut().zip(&st.pa) {
                *x += y;
            }
            if l.dof == 1 {
                let w = st.dinv * (st.tau - dot(st.u, c));
                for (x, y) in up.iter_mut().zip(&st.u) {
                    *x += y * w;
                }
            }
            let ps = &mut self.states[p];
            for (x, y) in ps.pa.iter_mut().zip(&up) {
                *x += y;
            }
        }
        self.outward(dynamic, udd)
    }

    /// The outward pass: ü and â of every link from τ, U, D⁻¹ (and ĉ with `dynamic`).
    fn outward(&mut self, dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate> {
        for i in 0..self.tree.links.len() {
            let l = &self.tree.links[i];
            let ap = l.parent.map_or([0.0; 3], |p| self.states[p].a);
            let st = &mut self.states[i];
            let mut a = ap;
            if dynamic {
                for (x, y) in a.iter_mut().zip(&st.c) {
                    *x += y;
                }
            }
            match l.joint {
                JointKind::Fixed => {}
                JointKind::Free => {
                    let x =
                        free_root(l, st, a).ok_or(Degenerate { body: l.body, non_finite: !st.ia[0].is_finite() })?;
                    let cols = free_columns(l, st.com());
                    for (k, xk) in x.iter().take(l.dof).enumerate() {
                        udd[l.offset + k] = *xk;
                        for r in 0..3 {
                            a[r] += cols[k][r] * xk;
                        }
                    }
                }
                _ => {
                    let x = st.dinv * (st.tau - dot(st.u, a));
                    udd[l.offset] = x;
                    for (ar, sr) in a.iter_mut().zip(&st.s) {
                        *ar += sr * x;
                    }
                }
            }
            st.a = a;
        }
        Ok(())
    }

    /// The outward pass for given joint accelerations ü: â_i = â_p + ĉ_i + S_i ü_i (the forward
    /// kinematics of accelerations, q̈ = J ü + J̇ u̇, at the state last set).
    fn prescribed(&mut self, udd: &[f64]) {
        for i in 0..self.tree.links.len() {
            let l = &self.tree.links[i];
            let ap = l.parent.map_or([0.0; 3], |p| self.states[p].a);
            let st = &mut self.states[i];
            let mut a = [ap[0] + st.c[0], ap[1] + st.c[1], ap[2] + st.c[2]];
            let cols = match l.joint {
                JointKind::Free => free_columns(l, st.com()),
                _ => [st.s, [0.0; 3], [0.0; 3]],
            };
            for (k, col) in cols.iter().take(l.dof).enumerate() {
                for r in 0..3 {
                    a[r] += col[r] * udd[l.offset + k];
                }
            }
            st.a = a;
        }
    }

    /// The Cartesian accelerations q̈ of the accelerations last computed: ẍ = â_O + ω̇ ẑ × c
    /// + ω ẑ × ċ (with `dynamic`; without, the state is taken at rest), θ̈ = ω̇.
    fn cartesian_acc(&self, dynamic: bool, out: &mut [f64]) {
        let offsets = self.system.offsets();
        for (l, st) in self.tree.links.iter().zip(&self.states) {
            let o = offsets[l.body];
            let c = st.com();
            let mut acc = point_velocity(st.a, c);
            if dynamic {
                let cd = point_velocity(st.v, c);
                acc[0] -= st.v[0] * cd[1];
                acc[1] += st.v[0] * cd[0];
            }
            out[o] = acc[0];
            out[o + 1] = acc[1];
            if !l.particle {
                out[o + 2] = st.a[0];
            }
        }
    }
}

/// The motion subspace of a free root at centre of mass c: ẋ, ẏ, and (rigid) θ̇ about c.
#[inline]
pub(super) fn free_columns(l: &Link, c: [f64; 2]) -> [[f64; 3]; 3] {
    let rot = if l.particle { [0.0; 3] } else { [1.0, c[1], -c[0]] };
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], rot]
}

/// A free root's coordinates' accelerations: D ü = −Sᵀ (p̂^A + Î^A â'), D = Sᵀ Î^A S.
fn free_root(l: &Link, st: &LinkState, a: [f64; 3]) -> Option<[f64; 3]> {
    let cols = free_columns(l, st.com());
    let k = l.dof;
    let mut d = [[0.0; 3]; 3];
    let mut rhs = [0.0; 3];
    let ia_a = mul(&st.ia, a);
    for j in 0..k {
        let u = mul(&st.ia, cols[j]);
        for (m, col) in cols.iter().enumerate().take(k) {
            d[m][j] = dot(*col, u);
        }
        rhs[j] = -dot(cols[j], [st.pa[0] + ia_a[0], st.pa[1] + ia_a[1], st.pa[2] + ia_a[2]]);
    }
    // Unused coordinates (a particle's rotation) get a unit pivot and a zero right-hand side.
    for (j, row) in d.iter_mut().enumerate().skip(k) {
        row[j] = 1.0;
    }
    let m = nalgebra::Matrix3::from_fn(|r, c| d[r][c]);
    let x = m.cholesky()?.solve(&nalgebra::Vector3::from(rhs));
    Some([x.x, x.y, x.z])
}

impl super::TreeDynamics for Articulated<'_> {
    fn dim(&self) -> usize {
        self.tree.dim
    }
    fn loops(&self) -> &[usize] {
        &self.tree.loops
    }
    fn set_state(&mut self, u: &[f64], ud: &[f64]) {
        self.set_tree_state(u, ud);
    }
    fn cartesian_state(&self, q: &mut [f64], v: &mut [f64]) {
        self.cartesian(q, v);
    }
    fn solve(&mut self, forces: &[f64], udd: &mut [f64]) -> Result<(), Degenerate> {
        self.solve_tree(forces, udd)
    }
    fn resolve(&mut self, forces: &[f64], dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate> {
        self.resolve_tree(forces, dynamic, udd)
    }
    fn prescribed_accelerations(&mut self, udd: &[f64]) {
        self.prescribed(udd);
    }
    fn cartesian_accelerations(&self, dynamic: bool, out: &mut [f64]) {
        self.cartesian_acc(dynamic, out);
    }
    fn reduce(&mut self, q: &[f64], v: &[f64], u: &mut [f64], ud: &mut [f64]) {
        self.reduce_state(q, v, u, ud);
    }
}
