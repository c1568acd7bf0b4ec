//! The articulated-body algorithm on a planar joint tree (Featherstone 2008, ch. 7, Table 7.1),
//! with every spatial quantity expressed at the world origin (§2.8 of docs/design.md).
//!
//! Planar spatial vectors: motion v̂ = (ω, v_Ox, v_Oy), force f̂ = (n_O, f_x, f_y). For a body with
//! mass m, centre of mass c and moment of inertia I about it, the spatial inertia at the origin is
//!   Î = [[I + m|c|², −m c_y, m c_x], [−m c_y, m, 0], [m c_x, 0, m]],
//! and v̂ ×* ĥ = (v_x h_y − v_y h_x, −ω h_y, ω h_x). One evaluation is three passes over the links:
//!   out:  v̂_i = v̂_p + S_i u̇_i,  ĉ_i = Ṡ_i u̇_i,  p̂_i = v̂_i ×* Î_i v̂_i − f̂_i        (eq. 7.25–7.27)
//!   in:   Î^A_i, p̂^A_i accumulate the children's  Î^a = Î^A − U D⁻¹ Uᵀ,
//!         p̂^a = p̂^A + Î^a ĉ + U D⁻¹ τ,  U = Î^A S,  D = Sᵀ U,  τ = −Sᵀ p̂^A           (eq. 7.28–7.35)
//!   out:  ü_i = D⁻¹ (τ − Uᵀ (â_p + ĉ_i)),  â_i = â_p + ĉ_i + S_i ü_i                 (eq. 7.36–7.38)
//! DEVIATION: no joint forces τ (applied forces are Cartesian and enter as f̂); gravity is an
//! applied force, not a base acceleration. Every step is O(1) per link: the cost is linear.

use super::Tree;
use super::kinematics::{cross2, point_velocity};
use crate::system::System;

/// The per-link workspace of the articulated-body algorithm.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkState {
    /// Pose (x, y \[m\] of the centre of mass, θ \[rad\]; a particle's θ is its joint's).
    pub(super) pose: [f64; 3],
    /// World origin of the joint frame on the parent \[m\].
    pub(super) joint: [f64; 2],
    /// Motion subspace S: up to three columns.
    pub(super) s: [[f64; 3]; 3],
    /// Spatial velocity v̂.
    pub(super) v: [f64; 3],
    /// Velocity-product acceleration ĉ = Ṡ u̇.
    pub(super) c: [f64; 3],
    /// Articulated inertia Î^A (symmetric).
    ia: [[f64; 3]; 3],
    /// Articulated bias force p̂^A.
    pa: [f64; 3],
    /// U = Î^A S (columns).
    u: [[f64; 3]; 3],
    /// D⁻¹ (dof × dof).
    dinv: [[f64; 3]; 3],
    /// τ = −Sᵀ p̂^A.
    tau: [f64; 3],
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

/// The articulated inertia of a link met a non-positive pivot (a joint that moves no mass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Degenerate {
    /// The body whose joint moves no inertia.
    pub body: usize,
}

fn inertia(m: f64, i: f64, c: [f64; 2]) -> [[f64; 3]; 3] {
    [[i + m * (c[0] * c[0] + c[1] * c[1]), -m * c[1], m * c[0]], [-m * c[1], m, 0.0], [m * c[0], 0.0, m]]
}

#[inline]
fn mul(a: &[[f64; 3]; 3], x: [f64; 3]) -> [f64; 3] {
    // a is symmetric: rows equal columns.
    [
        a[0][0] * x[0] + a[0][1] * x[1] + a[0][2] * x[2],
        a[1][0] * x[0] + a[1][1] * x[1] + a[1][2] * x[2],
        a[2][0] * x[0] + a[2][1] * x[1] + a[2][2] * x[2],
    ]
}

#[inline]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// D⁻¹ of the symmetric dof × dof matrix `d` (dof ≤ 3) by its adjugate, or `None` if `d` is not
/// positive definite (leading minors checked against `scale`, the size of the link's inertia).
fn invert(d: &[[f64; 3]; 3], dof: usize, scale: f64) -> Option<[[f64; 3]; 3]> {
    let mut out = [[0.0; 3]; 3];
    let tiny = 1e-14 * scale;
    let m1 = d[0][0];
    if dof >= 1 && !(m1 > tiny) {
        return None;
    }
    match dof {
        0 => {}
        1 => out[0][0] = 1.0 / m1,
        2 => {
            let det = d[0][0] * d[1][1] - d[0][1] * d[1][0];
            if !(det > tiny * m1) {
                return None;
            }
            out = [[d[1][1] / det, -d[0][1] / det, 0.0], [-d[1][0] / det, d[0][0] / det, 0.0], [0.0; 3]];
        }
        _ => {
            let m2 = d[0][0] * d[1][1] - d[0][1] * d[1][0];
            let cof = |r: usize, c: usize| {
                let (r0, r1) = ((r + 1) % 3, (r + 2) % 3);
                let (c0, c1) = ((c + 1) % 3, (c + 2) % 3);
                d[r0][c0] * d[r1][c1] - d[r0][c1] * d[r1][c0]
            };
            let det = d[0][0] * cof(0, 0) + d[0][1] * cof(0, 1) + d[0][2] * cof(0, 2);
            if !(m2 > tiny * m1) || !(det > tiny * m2) {
                return None;
            }
            for (r, row) in out.iter_mut().enumerate() {
                for (c, x) in row.iter_mut().enumerate() {
                    *x = cof(c, r) / det;
                }
            }
        }
    }
    Some(out)
}

impl<'a> Articulated<'a> {
    /// The workspace for `tree` on `system` (allocated once).
    pub fn new(system: &'a System, tree: Tree) -> Self {
        let states = vec![LinkState::default(); tree.links.len()];
        Articulated { system, tree, states }
    }

    /// Number of joint coordinates.
    pub fn dim(&self) -> usize {
        self.tree.dim
    }

    /// Sets the tree to (u, u̇): poses, motion subspaces, spatial velocities and biases.
    pub fn set_state(&mut self, u: &[f64], ud: &[f64]) {
        self.position(u);
        self.velocity(ud);
    }

    /// The Cartesian (q, v) of the state last set.
    pub fn cartesian_state(&self, q: &mut [f64], v: &mut [f64]) {
        self.cartesian(q, v);
    }

    /// The inward pass for the inertias: Î^A, U and D⁻¹ of every link at the state last set.
    pub fn articulate(&mut self) -> Result<(), Degenerate> {
        for (l, st) in self.tree.links.iter().zip(self.states.iter_mut()) {
            st.ia = inertia(l.mass, l.inertia, st.com());
        }
        for i in (0..self.tree.links.len()).rev() {
            let l = self.tree.links[i];
            let st = &mut self.states[i];
            let mut d = [[0.0; 3]; 3];
            for k in 0..l.dof {
                st.u[k] = mul(&st.ia, st.s[k]);
                for j in 0..l.dof {
                    d[j][k] = dot(st.s[j], st.u[k]);
                }
            }
            st.dinv = invert(&d, l.dof, st.ia[1][1].max(st.ia[0][0])).ok_or(Degenerate { body: l.body })?;
            let Some(p) = l.parent else { continue };
            // Î^a = Î^A − U D⁻¹ Uᵀ, added to the parent.
            let mut ia = st.ia;
            for j in 0..l.dof {
                for k in 0..l.dof {
                    let w = st.dinv[j][k];
                    for r in 0..3 {
                        for c in 0..3 {
                            ia[r][c] -= st.u[j][r] * w * st.u[k][c];
                        }
                    }
                }
            }
            let pst = &mut self.states[p];
            for r in 0..3 {
                for c in 0..3 {
                    pst.ia[r][c] += ia[r][c];
                }
            }
        }
        Ok(())
    }

    /// The bias and outward passes for the Cartesian generalized forces `forces` (length n, in
    /// each body's velocity coordinates): the joint accelerations into `udd`. With `dynamic` the
    /// velocity-product terms of the state last set are included; without, the result is the
    /// response M⁻¹ of the tree to `forces` at rest. Needs [`Articulated::articulate`] first.
    pub fn accelerations(&mut self, forces: &[f64], dynamic: bool, udd: &mut [f64]) {
        let offsets = self.system.offsets();
        for (l, st) in self.tree.links.iter().zip(self.states.iter_mut()) {
            let o = offsets[l.body];
            let f = [forces[o], forces[o + 1]];
            let tq = if l.particle { 0.0 } else { forces[o + 2] };
            let c = st.com();
            let fs = [tq + cross2(c, f), f[0], f[1]];
            st.pa = if dynamic {
                // p̂ = v̂ ×* Î v̂ − f̂
                let h = mul(&inertia(l.mass, l.inertia, c), st.v);
                let v = st.v;
                [v[1] * h[2] - v[2] * h[1] - fs[0], -v[0] * h[2] - fs[1], v[0] * h[1] - fs[2]]
            } else {
                [-fs[0], -fs[1], -fs[2]]
            };
        }
        for i in (0..self.tree.links.len()).rev() {
            let l = self.tree.links[i];
            let st = &mut self.states[i];
            for k in 0..l.dof {
                st.tau[k] = -dot(st.s[k], st.pa);
            }
            let Some(p) = l.parent else { continue };
            // p̂^a = p̂^A + Î^a ĉ + U D⁻¹ τ with Î^a ĉ = Î^A ĉ − U D⁻¹ Uᵀ ĉ.
            let mut pa = st.pa;
            let c = if dynamic { st.c } else { [0.0; 3] };
            let iac = mul(&st.ia, c);
            for r in 0..3 {
                pa[r] += iac[r];
            }
            for j in 0..l.dof {
                let mut w = 0.0;
                for k in 0..l.dof {
                    w += st.dinv[j][k] * (st.tau[k] - dot(st.u[k], c));
                }
                for r in 0..3 {
                    pa[r] += st.u[j][r] * w;
                }
            }
            let pst = &mut self.states[p];
            for r in 0..3 {
                pst.pa[r] += pa[r];
            }
        }
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let ap = l.parent.map_or([0.0; 3], |p| self.states[p].a);
            let st = &mut self.states[i];
            let mut a = ap;
            if dynamic {
                for r in 0..3 {
                    a[r] += st.c[r];
                }
            }
            let mut rhs = [0.0; 3];
            for k in 0..l.dof {
                rhs[k] = st.tau[k] - dot(st.u[k], a);
            }
            for j in 0..l.dof {
                let x = (0..l.dof).map(|k| st.dinv[j][k] * rhs[k]).sum::<f64>();
                udd[l.offset + j] = x;
                for r in 0..3 {
                    a[r] += st.s[j][r] * x;
                }
            }
            st.a = a;
        }
    }

    /// The outward pass for given joint accelerations ü: â_i = â_p + ĉ_i + S_i ü_i (the forward
    /// kinematics of accelerations, q̈ = J ü + J̇ u̇, at the state last set).
    pub fn prescribed_accelerations(&mut self, udd: &[f64]) {
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let ap = l.parent.map_or([0.0; 3], |p| self.states[p].a);
            let st = &mut self.states[i];
            let mut a = ap;
            for r in 0..3 {
                a[r] += st.c[r];
                for j in 0..l.dof {
                    a[r] += st.s[j][r] * udd[l.offset + j];
                }
            }
            st.a = a;
        }
    }

    /// The Cartesian accelerations q̈ of the accelerations last computed: ẍ = â_O + ω̇ ẑ × c
    /// + ω ẑ × ċ (with `dynamic`; without, the state is taken at rest), θ̈ = ω̇.
    pub fn cartesian_accelerations(&self, dynamic: bool, out: &mut [f64]) {
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
