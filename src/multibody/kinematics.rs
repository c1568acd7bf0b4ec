//! Forward and inverse kinematics of the joint tree: q(u), v(u, u̇) and (u, u̇)(q, v).
//!
//! A link's pose follows from its parent's through the joint frames (Featherstone 2008, §4.4):
//! with P = T_parent · F_parent (angle P_θ, origin P_o) and φ the joint frame's angle,
//!   revolute   φ = P_θ + u,  J = P_o
//!   arm(ℓ)     φ = P_θ + u,  J = P_o + ℓ (cos φ, sin φ)
//!   prismatic  φ = P_θ,      J = P_o + u (cos φ, sin φ)
//!   fixed      φ = P_θ,      J = P_o
//! and then θ = φ − F_child,θ, x = J − A(θ) F_child,o. Velocities are planar spatial (Plücker)
//! vectors at the world origin, v̂ = (ω, v_O) with v_O the velocity of the body point at the origin,
//! so a child's is its parent's plus S u̇ with no coordinate transform (docs/design.md §2.2).

use super::aba::LinkState;
use super::{Articulated, JointKind};
use crate::model::rotate;

/// The planar cross product a × b (z component).
#[inline]
pub(super) fn cross2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// The velocity of the point `p` \[m\] moving with spatial velocity `v` = (ω, v_O): v_O + ω ẑ × p.
#[inline]
pub(super) fn point_velocity(v: [f64; 3], p: [f64; 2]) -> [f64; 2] {
    [v[1] - v[0] * p[1], v[2] + v[0] * p[0]]
}

impl Articulated<'_> {
    /// Sets the tree to (u, u̇) in one outward pass: poses, motion subspaces S, spatial
    /// velocities v̂ = v̂_parent + S u̇ and biases ĉ = Ṡ u̇; clears the inward accumulators.
    pub(super) fn set_tree_state(&mut self, u: &[f64], ud: &[f64]) {
        for i in 0..self.tree.links.len() {
            self.place(i, u);
            self.move_link(i, ud);
        }
    }

    /// Positions of every link from u (and S), without velocities.
    pub(super) fn position(&mut self, u: &[f64]) {
        for i in 0..self.tree.links.len() {
            self.place(i, u);
        }
    }

    /// Link `i`'s pose and motion subspace from u, its parent placed.
    #[inline]
    fn place(&mut self, i: usize, u: &[f64]) {
        let l = &self.tree.links[i];
        let (pp, pt) = self.parent_frame(i);
        let st = &mut self.states[i];
        let x = &u[l.offset..l.offset + l.dof];
        let (phi, j) = match l.joint {
            JointKind::Revolute => {
                st.s = [1.0, pp[1], -pp[0]];
                (pt + x[0], pp)
            }
            JointKind::Arm(len) => {
                let phi = pt + x[0];
                st.s = [1.0, pp[1], -pp[0]];
                let (sn, cs) = phi.sin_cos();
                (phi, [pp[0] + len * cs, pp[1] + len * sn])
            }
            JointKind::Prismatic => {
                let (sn, cs) = pt.sin_cos();
                st.s = [0.0, cs, sn];
                (pt, [pp[0] + x[0] * cs, pp[1] + x[0] * sn])
            }
            JointKind::Fixed => (pt, pp),
            JointKind::Free => {
                let theta = if l.particle { 0.0 } else { x[2] };
                st.pose = [x[0], x[1], theta];
                return;
            }
        };
        let theta = phi - l.frame_child.angle;
        let fc = l.frame_child.origin;
        st.pose = if fc == [0.0, 0.0] {
            [j[0], j[1], theta]
        } else {
            let r = rotate(theta, fc);
            [j[0] - r[0], j[1] - r[1], theta]
        };
        st.joint = pp;
    }

    /// Link `i`'s spatial velocity and bias from u̇, its parent moved.
    #[inline]
    fn move_link(&mut self, i: usize, ud: &[f64]) {
        let l = &self.tree.links[i];
        let vp = l.parent.map_or([0.0; 3], |p| self.states[p].v);
        let st = &mut self.states[i];
        let x = &ud[l.offset..l.offset + l.dof];
        st.ia = [0.0; 6];
        st.pa = [0.0; 3];
        (st.v, st.c) = match l.joint {
            // Ṡ = (0, ṗ_y, −ṗ_x) for a rotation about a point p carried by the parent.
            JointKind::Revolute | JointKind::Arm(_) => {
                let pd = point_velocity(vp, st.joint);
                let v = [vp[0] + x[0], vp[1] + st.s[1] * x[0], vp[2] + st.s[2] * x[0]];
                (v, [0.0, pd[1] * x[0], -pd[0] * x[0]])
            }
            // Ṡ = (0, ω_p ẑ × e): the axis turns with the parent.
            JointKind::Prismatic => {
                let v = [vp[0], vp[1] + st.s[1] * x[0], vp[2] + st.s[2] * x[0]];
                (v, [0.0, -vp[0] * st.s[2] * x[0], vp[0] * st.s[1] * x[0]])
            }
            JointKind::Fixed => (vp, [0.0; 3]),
            // v_O = ċ − ω ẑ × c; the rotation column (1, c_y, −c_x) moves with c: Ṡ = (0, ċ_y, −ċ_x).
            JointKind::Free if l.particle => ([0.0, x[0], x[1]], [0.0; 3]),
            JointKind::Free => {
                let c = st.com();
                ([x[2], x[0] + x[2] * c[1], x[1] - x[2] * c[0]], [0.0, x[1] * x[2], -x[0] * x[2]])
            }
        };
    }

    /// The world pose (origin, angle) of link `i`'s joint frame on its parent (or the world).
    #[inline]
    fn parent_frame(&self, i: usize) -> ([f64; 2], f64) {
        let l = &self.tree.links[i];
        let f = l.frame_parent;
        match l.parent {
            None => (f.origin, f.angle),
            Some(p) => {
                let t = self.states[p].pose;
                let r = rotate(t[2], f.origin);
                ([t[0] + r[0], t[1] + r[1]], t[2] + f.angle)
            }
        }
    }

    /// The Cartesian q and v of every body at the state last set.
    pub(super) fn cartesian(&self, q: &mut [f64], v: &mut [f64]) {
        let offsets = self.system.offsets();
        for (l, st) in self.tree.links.iter().zip(&self.states) {
            let o = offsets[l.body];
            let cv = point_velocity(st.v, [st.pose[0], st.pose[1]]);
            q[o] = st.pose[0];
            q[o + 1] = st.pose[1];
            v[o] = cv[0];
            v[o + 1] = cv[1];
            if !l.particle {
                q[o + 2] = st.pose[2];
                v[o + 2] = st.v[0];
            }
        }
    }

    /// The joint coordinates (u, u̇) of a Cartesian state (q, v) that satisfies the tree's
    /// constraints; leaves the tree at that state.
    pub(super) fn reduce_state(&mut self, q: &[f64], v: &[f64], u: &mut [f64], ud: &mut [f64]) {
        let offsets = self.system.offsets();
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let (pp, pt) = self.parent_frame(i);
            let o = offsets[l.body];
            let x = [q[o], q[o + 1]];
            let fc = l.frame_child;
            // The body's angle: its own, or for a particle the one its joint gives it.
            let mut theta = if l.particle { pt - fc.angle } else { q[o + 2] };
            match l.joint {
                JointKind::Revolute => u[l.offset] = theta + fc.angle - pt,
                JointKind::Arm(_) => {
                    let d = [x[0] - pp[0], x[1] - pp[1]];
                    let phi = d[1].atan2(d[0]);
                    u[l.offset] = wrap(phi - pt);
                    theta = pt + u[l.offset] - fc.angle;
                }
                JointKind::Prismatic => {
                    let r = rotate(theta, fc.origin);
                    let d = [x[0] + r[0] - pp[0], x[1] + r[1] - pp[1]];
                    u[l.offset] = d[0] * pt.cos() + d[1] * pt.sin();
                }
                JointKind::Fixed => {}
                JointKind::Free => {
                    u[l.offset] = x[0];
                    u[l.offset + 1] = x[1];
                    if l.particle {
                        theta = 0.0;
                    } else {
                        u[l.offset + 2] = theta;
                    }
                }
            }
            self.states[i].pose = [x[0], x[1], theta];
        }
        self.position(u);
        // Joint rates, root to leaves: the child's velocity relative to the parent's motion.
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let vp = l.parent.map_or([0.0; 3], |p| self.states[p].v);
            let st = &self.states[i];
            let o = offsets[l.body];
            let xd = [v[o], v[o + 1]];
            let x = [st.pose[0], st.pose[1]];
            match l.joint {
                JointKind::Revolute => ud[l.offset] = v[o + 2] - vp[0],
                JointKind::Arm(_) => {
                    let pd = point_velocity(vp, st.joint);
                    let d = [x[0] - st.joint[0], x[1] - st.joint[1]];
                    let dd = [xd[0] - pd[0], xd[1] - pd[1]];
                    ud[l.offset] = cross2(d, dd) / (d[0] * d[0] + d[1] * d[1]) - vp[0];
                }
                JointKind::Prismatic => {
                    // u = (J − P_o)·e with e turning at ω_p: u̇ = (J̇ − Ṗ_o)·e + (J − P_o)·ė.
                    let w = if l.particle { vp[0] } else { v[o + 2] };
                    let r = rotate(st.pose[2], l.frame_child.origin);
                    let jp = [x[0] + r[0], x[1] + r[1]];
                    let jd = [xd[0] - w * r[1], xd[1] + w * r[0]];
                    let pd = point_velocity(vp, st.joint);
                    let e = [st.s[1], st.s[2]];
                    let ed = [-vp[0] * e[1], vp[0] * e[0]];
                    ud[l.offset] = (jd[0] - pd[0]) * e[0]
                        + (jd[1] - pd[1]) * e[1]
                        + (jp[0] - st.joint[0]) * ed[0]
                        + (jp[1] - st.joint[1]) * ed[1];
                }
                JointKind::Fixed => {}
                JointKind::Free => {
                    ud[l.offset] = xd[0];
                    ud[l.offset + 1] = xd[1];
                    if !l.particle {
                        ud[l.offset + 2] = v[o + 2];
                    }
                }
            }
            // v̂ of this link, for its children.
            self.move_link(i, ud);
        }
    }
}

/// The angle a \[rad\] wrapped into (−π, π].
fn wrap(a: f64) -> f64 {
    let w = a - std::f64::consts::TAU * (a / std::f64::consts::TAU).round();
    if w <= -std::f64::consts::PI { w + std::f64::consts::TAU } else { w }
}

impl LinkState {
    /// The centre of mass \[m\].
    #[inline]
    pub(super) fn com(&self) -> [f64; 2] {
        [self.pose[0], self.pose[1]]
    }
}
