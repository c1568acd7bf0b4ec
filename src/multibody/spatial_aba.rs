//! The articulated-body algorithm on a spatial joint tree (Featherstone 2008, ch. 7, Table 7.1)
//! in 6D spatial vectors at the world origin, v̂ = (ω, v_O), f̂ = (n_O, f).
//!
//! For a body with mass m, centre of mass c and world inertia I_c = R diag(I) Rᵀ:
//!   Î = \[\[I_c + m \[c\]×\[c\]×ᵀ, m \[c\]×\], \[m \[c\]×ᵀ, m 1\]\]                (eq. 2.63)
//! The passes are those of the planar tree ([`super::aba`]) with joints of up to three
//! coordinates (S is 6 × 3 with unused columns zero and D padded with ones on the diagonal, which
//! leaves the used block's inverse unchanged) and a free rigid root solved as a floating base,
//! â = −(Î^A)⁻¹ p̂^A (§9.3). A ball joint at P_o runs the passes in the world-axes basis
//! S_w = \[1; \[P_o\]×\] of the same span (S = S_w R_J): U = Î^A S_w takes Î^A's columns plus
//! its right half times P_o × e_k, D = S_wᵀ U and τ = −S_wᵀ p̂^A are moments about P_o, and the
//! outward pass turns the world ü_w into the joint frame, ü = R_Jᵀ ü_w (U D⁻¹ Uᵀ, and so Î^A and
//! p̂^A, do not depend on the basis). Î and Î^A − U D⁻¹ Uᵀ are formed on one triangle and
//! mirrored, so Î^A is symmetric to the bit; D⁻¹ comes from D's LDLᵀ factors
//! (`spd_inverse3`). The rotations are kept as matrices too (R, R_J), for the
//! products with vectors. The gyroscopic term comes with the spatial algebra: p̂ = v̂ ×* Î v̂
//! carries ω × I_c ω. The system's generalized forces, written for the body-frame velocity
//! coordinates, carry it as the applied force −Ω × I Ω when the scene has it; so the tree takes
//! the applied torque plus Ω × I Ω (`Articulated3::spatial_force`), and follows the scene's
//! model with or without the gyroscopic term.

use super::aba::Degenerate;
use super::spatial::{
    Joint3, Link3, S63, Tree3, angle_about_x, crf, crm, less_projection, moment_about, point_velocity, quat,
    rotation_about, spd_inverse3, store, times_world_axes,
};
use crate::system::System;
use nalgebra::{Matrix3, Matrix6, UnitQuaternion, Vector3, Vector6};

/// The per-link workspace of the spatial articulated-body algorithm.
#[derive(Clone, Copy, Debug)]
pub struct State3 {
    /// Body rotation (a particle's is its joint's), and as a matrix R.
    rot: UnitQuaternion<f64>,
    rm: Matrix3<f64>,
    /// Centre of mass \[m\].
    x: Vector3<f64>,
    /// Rotation of the child's joint frame, and as a matrix R_J.
    rj: UnitQuaternion<f64>,
    rjm: Matrix3<f64>,
    /// Origin of the joint frame on the parent \[m\].
    po: Vector3<f64>,
    /// Motion subspace (unused columns zero); not formed for a ball joint, whose passes use the
    /// world-axes basis S_w (see `articulate`).
    s: S63,
    /// Spatial velocity and velocity-product acceleration.
    v: Vector6<f64>,
    c: Vector6<f64>,
    /// Articulated inertia and bias.
    ia: Matrix6<f64>,
    pa: Vector6<f64>,
    /// U = Î^A S, D⁻¹, τ = −Sᵀ p̂^A (S_w for a ball joint).
    u: S63,
    dinv: Matrix3<f64>,
    tau: Vector3<f64>,
    /// Spatial acceleration.
    a: Vector6<f64>,
    /// Whether the stored quaternion of the body is −(this rotation's) (the scene's sign).
    flip: bool,
}

impl Default for State3 {
    fn default() -> Self {
        State3 {
            rot: UnitQuaternion::identity(),
            rm: Matrix3::identity(),
            x: Vector3::zeros(),
            rj: UnitQuaternion::identity(),
            rjm: Matrix3::identity(),
            po: Vector3::zeros(),
            s: S63::zeros(),
            v: Vector6::zeros(),
            c: Vector6::zeros(),
            ia: Matrix6::zeros(),
            pa: Vector6::zeros(),
            u: S63::zeros(),
            dinv: Matrix3::identity(),
            tau: Vector3::zeros(),
            a: Vector6::zeros(),
            flip: false,
        }
    }
}

/// A spatial joint tree with its workspace.
pub struct Articulated3<'a> {
    system: &'a System,
    /// Its joint tree.
    pub tree: Tree3,
    states: Vec<State3>,
}

/// Hands the body's Î (eq. 2.63) to `add` one entry at a time (row, column, value), and returns
/// Î v̂.
/// Î = \[\[I_c + m(|c|² 1 − c cᵀ), m\[c\]×\], \[m\[c\]×ᵀ, m 1\]\] with I_c = R diag(I) Rᵀ, each symmetric
/// entry formed once and added to both places, so Î^A stays symmetric to the bit; Î v̂ =
/// (I_c ω + c × h, h) with h = m (v_O + ω × c) the momentum (eq. 2.63 applied to (ω, v_O)).
fn add_inertia(l: &Link3, st: Placed<'_>, mut add: impl FnMut(usize, usize, f64)) -> Vector6<f64> {
    let r = st.rm;
    let (m, c) = (l.mass, st.x);
    let cc = c.dot(c);
    let w = st.v.fixed_rows::<3>(0).into_owned();
    let mut icw = [0.0; 3];
    for j in 0..3 {
        for i in j..3 {
            let ic = r[(i, 0)] * l.inertia.x * r[(j, 0)]
                + r[(i, 1)] * l.inertia.y * r[(j, 1)]
                + r[(i, 2)] * l.inertia.z * r[(j, 2)];
            let shift = if i == j { cc - c[i] * c[j] } else { -c[i] * c[j] };
            add(i, j, ic + m * shift);
            icw[i] += ic * w[j];
            if i != j {
                add(j, i, ic + m * shift);
                icw[j] += ic * w[i];
            }
        }
        add(3 + j, 3 + j, m);
    }
    let (mx, my, mz) = (m * c.x, m * c.y, m * c.z);
    // m[c]× in the upper right block, its transpose in the lower left.
    for (i, j, v) in [(0, 1, -mz), (0, 2, my), (1, 0, mz), (1, 2, -mx), (2, 0, -my), (2, 1, mx)] {
        add(i, 3 + j, v);
        add(3 + j, i, v);
    }
    let h = m * point_velocity(st.v, c);
    join(Vector3::from(icw) + c.cross(&h), h)
}

/// A body's rotation, centre of mass and spatial velocity, borrowed from its [`State3`].
#[derive(Clone, Copy)]
struct Placed<'a> {
    rm: &'a Matrix3<f64>,
    x: &'a Vector3<f64>,
    v: &'a Vector6<f64>,
}

impl State3 {
    fn placed(&self) -> Placed<'_> {
        Placed { rm: &self.rm, x: &self.x, v: &self.v }
    }
}

/// Î v̂ of the body alone (as [`add_inertia`] returns it), Î itself not kept.
fn inertia_times_velocity(l: &Link3, st: &State3) -> Vector6<f64> {
    add_inertia(l, st.placed(), |_, _, _| {})
}

/// S u̇ of link `l`'s joint for the joint rates (or accelerations) `ud`; for a ball joint
/// S_w (R_J u̇), a rotation about P_o at the world rate R_J u̇.
#[inline]
fn joint_motion(l: &Link3, st: &State3, ud: &[f64]) -> Vector6<f64> {
    if l.joint == Joint3::Spherical {
        return rotation_about(st.rjm * Vector3::new(ud[0], ud[1], ud[2]), &st.po);
    }
    let mut su = Vector6::zeros();
    for (k, uk) in ud.iter().enumerate() {
        su += st.s.column(k) * *uk;
    }
    su
}

fn join(a: Vector3<f64>, b: Vector3<f64>) -> Vector6<f64> {
    Vector6::new(a.x, a.y, a.z, b.x, b.y, b.z)
}

impl<'a> Articulated3<'a> {
    /// The workspace for `tree` on `system` (allocated once).
    pub fn new(system: &'a System, tree: Tree3) -> Self {
        let states = vec![State3::default(); tree.links.len()];
        Articulated3 { system, tree, states }
    }

    /// (P_o, P_R): the world origin and rotation of link `i`'s joint frame on its parent.
    fn parent_frame(&self, i: usize) -> (Vector3<f64>, UnitQuaternion<f64>) {
        let l = &self.tree.links[i];
        match l.parent {
            None => (l.anchor_parent, l.axes_parent),
            Some(p) => {
                let t = &self.states[p];
                (t.x + t.rot * l.anchor_parent, t.rot * l.axes_parent)
            }
        }
    }

    /// Link `i`'s pose and motion subspace from x.
    fn place(&mut self, i: usize, x: &[f64]) {
        let l = &self.tree.links[i];
        let (po, pr) = self.parent_frame(i);
        let u = &x[l.xoff..l.xoff + l.nx];
        let st = &mut self.states[i];
        st.po = po;
        st.s = S63::zeros();
        let (rj, j) = match l.joint {
            Joint3::Revolute => {
                let rj = pr * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), u[0]);
                st.s.set_column(0, &rotation_about(pr * Vector3::x(), &po));
                (rj, po)
            }
            Joint3::Prismatic => {
                let d = pr * Vector3::x();
                st.s.set_column(0, &join(Vector3::zeros(), d));
                (pr, po + u[0] * d)
            }
            // S = S_w diag(R_J): the world-axes basis at P_o, never formed (see `joint_motion`).
            Joint3::Spherical => (pr * quat(u), po),
            Joint3::Fixed => (pr, po),
            Joint3::Free => {
                st.x = Vector3::new(u[0], u[1], u[2]);
                st.rot = if l.particle { UnitQuaternion::identity() } else { quat(&u[3..7]) };
                st.rj = st.rot;
                st.rm = st.rot.to_rotation_matrix().into_inner();
                st.rjm = st.rm;
                for k in 0..3 {
                    st.s[(3 + k, k)] = 1.0;
                }
                return;
            }
        };
        st.rj = rj;
        st.rot = rj * l.axes_child.inverse();
        st.x = j - st.rot * l.anchor_child;
        st.rm = st.rot.to_rotation_matrix().into_inner();
        st.rjm = rj.to_rotation_matrix().into_inner();
    }

    /// Link `i`'s spatial velocity and bias from ẋ.
    fn move_link(&mut self, i: usize, xd: &[f64]) {
        let l = &self.tree.links[i];
        let vp = l.parent.map_or(Vector6::zeros(), |p| self.states[p].v);
        let st = &mut self.states[i];
        let ud = &xd[l.voff..l.voff + l.dof];
        st.ia = Matrix6::zeros();
        st.pa = Vector6::zeros();
        if l.joint == Joint3::Free && !l.particle {
            // v̂ = (ω, ẋ − ω × c); the rotation columns (a, c × a) move with the body: ĉ = v̂ ×ₘ (ω, c × ω).
            let w = st.rm * Vector3::new(ud[3], ud[4], ud[5]);
            let xdot = Vector3::new(ud[0], ud[1], ud[2]);
            st.v = join(w, xdot - w.cross(&st.x));
            st.c = crm(&st.v, &join(w, st.x.cross(&w)));
            return;
        }
        let su = joint_motion(l, st, ud);
        st.v = vp + su;
        st.c = crm(&st.v, &su);
    }

    /// The spatial force at the origin of body `l`'s generalized force (F, τ body frame) in
    /// `forces`; with `dynamic`, τ + Ω × I Ω, since p̂ already carries −Ω × I Ω.
    fn spatial_force(&self, l: &Link3, st: &State3, forces: &[f64], dynamic: bool) -> Vector6<f64> {
        let o = self.system.offsets()[l.body];
        let f = Vector3::new(forces[o], forces[o + 1], forces[o + 2]);
        let n = if l.particle {
            Vector3::zeros()
        } else {
            let mut tau = Vector3::new(forces[o + 3], forces[o + 4], forces[o + 5]);
            if dynamic {
                let w = st.rm.tr_mul(&st.v.fixed_rows::<3>(0));
                tau += w.cross(&l.inertia.component_mul(&w));
            }
            st.rm * tau
        };
        join(n + st.x.cross(&f), f)
    }
}

impl super::TreeDynamics for Articulated3<'_> {
    fn dim(&self) -> usize {
        self.tree.dim
    }

    fn position_dim(&self) -> usize {
        self.tree.xdim
    }

    fn loops(&self) -> &[usize] {
        &self.tree.loops
    }

    fn set_state(&mut self, x: &[f64], xd: &[f64]) {
        for i in 0..self.tree.links.len() {
            self.place(i, x);
            self.move_link(i, xd);
        }
    }

    fn cartesian_state(&self, q: &mut [f64], v: &mut [f64]) {
        let (qo, vo) = (self.system.q_offsets(), self.system.offsets());
        for (l, st) in self.tree.links.iter().zip(&self.states) {
            let (oq, ov) = (qo[l.body], vo[l.body]);
            q[oq..oq + 3].copy_from_slice(st.x.as_slice());
            v[ov..ov + 3].copy_from_slice(point_velocity(&st.v, &st.x).as_slice());
            if !l.particle {
                store(&st.rot, &mut q[oq + 3..oq + 7]);
                if st.flip {
                    q[oq + 3..oq + 7].iter_mut().for_each(|x| *x = -*x);
                }
                let w = st.rm.tr_mul(&st.v.fixed_rows::<3>(0));
                v[ov + 3..ov + 6].copy_from_slice(w.as_slice());
            }
        }
    }

    fn solve(&mut self, forces: &[f64], udd: &mut [f64]) -> Result<(), Degenerate> {
        for i in (0..self.tree.links.len()).rev() {
            let f = self.spatial_force(&self.tree.links[i], &self.states[i], forces, true);
            let (l, st) = (&self.tree.links[i], &mut self.states[i]);
            let ia = &mut st.ia;
            let iv = add_inertia(l, Placed { rm: &st.rm, x: &st.x, v: &st.v }, |i, j, v| ia[(i, j)] += v);
            st.pa += crf(&st.v, &iv) - f;
            self.articulate(i)?;
        }
        self.outward(true, udd)
    }

    fn resolve(&mut self, forces: &[f64], dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate> {
        for i in 0..self.tree.links.len() {
            let (l, st) = (&self.tree.links[i], &self.states[i]);
            let f = self.spatial_force(l, st, forces, dynamic);
            self.states[i].pa = if dynamic { crf(&st.v, &inertia_times_velocity(l, st)) - f } else { -f };
        }
        for i in (0..self.tree.links.len()).rev() {
            let l = &self.tree.links[i];
            let st = &mut self.states[i];
            match l.joint {
                Joint3::Free if !l.particle => {}
                Joint3::Spherical => st.tau = -moment_about(&st.pa, &st.po),
                _ => st.tau = -(st.s.transpose() * st.pa),
            }
            let Some(p) = l.parent else { continue };
            let c = if dynamic { st.c } else { Vector6::zeros() };
            let up = st.pa + st.ia * c + st.u * (st.dinv * (st.tau - st.u.transpose() * c));
            self.states[p].pa += up;
        }
        self.outward(dynamic, udd)
    }

    fn prescribed_accelerations(&mut self, udd: &[f64]) {
        for i in 0..self.tree.links.len() {
            let l = &self.tree.links[i];
            let ap = l.parent.map_or(Vector6::zeros(), |p| self.states[p].a);
            let st = &mut self.states[i];
            let ud = &udd[l.voff..l.voff + l.dof];
            if l.joint == Joint3::Free && !l.particle {
                // ü = (ẍ_c, Ω̇): ω̇ = R Ω̇, â_O = ẍ_c − ω̇ × c − ω × ċ.
                let wd = st.rot * Vector3::new(ud[3], ud[4], ud[5]);
                let w = st.v.fixed_rows::<3>(0).into_owned();
                let cd = point_velocity(&st.v, &st.x);
                st.a = join(wd, Vector3::new(ud[0], ud[1], ud[2]) - wd.cross(&st.x) - w.cross(&cd));
                continue;
            }
            st.a = ap + st.c + joint_motion(l, st, ud);
        }
    }

    fn cartesian_accelerations(&self, dynamic: bool, out: &mut [f64]) {
        let vo = self.system.offsets();
        for (l, st) in self.tree.links.iter().zip(&self.states) {
            let o = vo[l.body];
            let mut acc = point_velocity(&st.a, &st.x);
            let w = st.v.fixed_rows::<3>(0).into_owned();
            if dynamic {
                acc += w.cross(&point_velocity(&st.v, &st.x));
            }
            out[o..o + 3].copy_from_slice(acc.as_slice());
            if !l.particle {
                let wd = st.rot.inverse() * st.a.fixed_rows::<3>(0).into_owned();
                out[o + 3..o + 6].copy_from_slice(wd.as_slice());
            }
        }
    }

    fn reduce(&mut self, q: &[f64], v: &[f64], x: &mut [f64], xd: &mut [f64]) {
        let (qo, vo) = (self.system.q_offsets(), self.system.offsets());
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let (po, pr) = self.parent_frame(i);
            let oq = qo[l.body];
            let pos = Vector3::new(q[oq], q[oq + 1], q[oq + 2]);
            let stored = (!l.particle).then(|| quat(&q[oq + 3..oq + 7]));
            // The body's rotation: its own, or for a particle the one its joint gives it.
            let rot = stored.unwrap_or_else(|| pr * l.axes_child.inverse());
            let u = &mut x[l.xoff..l.xoff + l.nx];
            match l.joint {
                Joint3::Revolute => u[0] = angle_about_x(&(pr.inverse() * rot * l.axes_child)),
                Joint3::Prismatic => u[0] = (pos + rot * l.anchor_child - po).dot(&(pr * Vector3::x())),
                Joint3::Spherical => store(&(pr.inverse() * rot * l.axes_child), u),
                Joint3::Fixed => {}
                Joint3::Free => {
                    u[..3].copy_from_slice(pos.as_slice());
                    if let Some(r) = stored {
                        store(&r, &mut u[3..7]);
                    }
                }
            }
            self.place(i, x);
            // Keep the scene's sign of each stored quaternion.
            self.states[i].flip = !l.particle && {
                let s = &q[oq + 3..oq + 7];
                let r = self.states[i].rot;
                r.w * s[0] + r.i * s[1] + r.j * s[2] + r.k * s[3] < 0.0
            };
        }
        for i in 0..self.tree.links.len() {
            let l = self.tree.links[i];
            let vp = l.parent.map_or(Vector6::zeros(), |p| self.states[p].v);
            let st = &self.states[i];
            let ov = vo[l.body];
            let cd = Vector3::new(v[ov], v[ov + 1], v[ov + 2]);
            let wp = vp.fixed_rows::<3>(0).into_owned();
            let w = if l.particle { wp } else { st.rot * Vector3::new(v[ov + 3], v[ov + 4], v[ov + 5]) };
            let ud = &mut xd[l.voff..l.voff + l.dof];
            match l.joint {
                Joint3::Revolute => ud[0] = (st.rj * Vector3::x()).dot(&(w - wp)),
                Joint3::Prismatic => {
                    // u = (J − P_o)·d with d turning at ω_p: u̇ = (J̇ − Ṗ_o)·d + (J − P_o)·(ω_p × d).
                    let arm = st.rot * l.anchor_child;
                    let (j, jd) = (st.x + arm, cd + w.cross(&arm));
                    let d = st.rj * Vector3::x();
                    ud[0] = (jd - point_velocity(&vp, &st.po)).dot(&d) + (j - st.po).dot(&wp.cross(&d));
                }
                Joint3::Spherical => ud.copy_from_slice((st.rj.inverse() * (w - wp)).as_slice()),
                Joint3::Fixed => {}
                Joint3::Free => {
                    ud[..3].copy_from_slice(cd.as_slice());
                    if !l.particle {
                        ud[3..6].copy_from_slice(&v[ov + 3..ov + 6]);
                    }
                }
            }
            self.move_link(i, xd);
        }
    }

    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        for l in &self.tree.links {
            let (u, ud) = (&mut x[l.xoff..l.xoff + l.nx], &xd[l.voff..l.voff + l.dof]);
            let rot_at = match l.joint {
                Joint3::Spherical => Some((0, 0)),
                Joint3::Free if !l.particle => Some((3, 3)),
                _ => None,
            };
            let lin = rot_at.map_or(l.nx, |(p, _)| p);
            for k in 0..lin {
                u[k] += h * ud[k];
            }
            if let Some((p, w)) = rot_at {
                let dq = UnitQuaternion::from_scaled_axis(Vector3::new(ud[w], ud[w + 1], ud[w + 2]) * h);
                store(&(quat(&u[p..p + 4]) * dq), &mut u[p..p + 4]);
            }
        }
    }

    fn position_rate(&self, x: &[f64], xd: &[f64], out: &mut [f64]) {
        for l in &self.tree.links {
            let (u, ud, o) = (&x[l.xoff..l.xoff + l.nx], &xd[l.voff..l.voff + l.dof], &mut out[l.xoff..l.xoff + l.nx]);
            let rot_at = match l.joint {
                Joint3::Spherical => Some((0, 0)),
                Joint3::Free if !l.particle => Some((3, 3)),
                _ => None,
            };
            let lin = rot_at.map_or(l.nx, |(p, _)| p);
            o[..lin].copy_from_slice(&ud[..lin]);
            if let Some((p, w)) = rot_at {
                // Q̇ = ½ Q ⊗ (0, w)
                let qq = nalgebra::Quaternion::new(u[p], u[p + 1], u[p + 2], u[p + 3]);
                let r = qq * nalgebra::Quaternion::new(0.0, ud[w], ud[w + 1], ud[w + 2]) * 0.5;
                o[p..p + 4].copy_from_slice(&[r.w, r.i, r.j, r.k]);
            }
        }
    }

    fn normalize(&self, x: &mut [f64]) -> bool {
        let mut any = false;
        for l in &self.tree.links {
            let p = match l.joint {
                Joint3::Spherical => 0,
                Joint3::Free if !l.particle => 3,
                _ => continue,
            };
            crate::model::rotation::normalize(&mut x[l.xoff + p..l.xoff + p + 4]);
            any = true;
        }
        any
    }
}

impl Articulated3<'_> {
    /// Link `i`'s U, D⁻¹, τ from its Î^A, p̂^A, and its contribution to the parent's. A ball
    /// joint works in the world-axes basis S_w (U D⁻¹ Uᵀ does not depend on the basis of S's
    /// span); its ü is turned into the joint frame in the outward pass.
    fn articulate(&mut self, i: usize) -> Result<(), Degenerate> {
        let l = &self.tree.links[i];
        let st = &mut self.states[i];
        let d = match l.joint {
            Joint3::Free if !l.particle => None,
            Joint3::Spherical => {
                st.u = times_world_axes(&st.ia, &st.po);
                let mut d = Matrix3::zeros();
                for k in 0..3 {
                    d.set_column(k, &moment_about(&st.u.column(k).into_owned(), &st.po));
                }
                st.tau = -moment_about(&st.pa, &st.po);
                Some(d)
            }
            _ => {
                st.u = st.ia * st.s;
                let mut d = st.s.transpose() * st.u;
                for k in l.dof..3 {
                    d[(k, k)] = 1.0;
                }
                st.tau = -(st.s.transpose() * st.pa);
                Some(d)
            }
        };
        if let Some(d) = d {
            let non_finite = !d.iter().all(|x| x.is_finite());
            st.dinv = spd_inverse3(&d).ok_or(Degenerate { body: l.body, non_finite })?;
        }
        let Some(p) = l.parent else { return Ok(()) };
        // Parents come before their children: the parent is in `before`.
        let (before, here) = self.states.split_at_mut(i);
        let (st, ps) = (&here[0], &mut before[p]);
        let ia_up = less_projection(&st.ia, &st.u, &st.dinv);
        ps.pa += st.pa + ia_up * st.c + st.u * (st.dinv * st.tau);
        for (x, y) in ps.ia.as_mut_slice().iter_mut().zip(ia_up.as_slice()) {
            *x += *y;
        }
        Ok(())
    }

    /// The outward pass: ü and â of every link.
    fn outward(&mut self, dynamic: bool, udd: &mut [f64]) -> Result<(), Degenerate> {
        for i in 0..self.tree.links.len() {
            let l = &self.tree.links[i];
            let ap = l.parent.map_or(Vector6::zeros(), |p| self.states[p].a);
            let st = &mut self.states[i];
            let out = &mut udd[l.voff..l.voff + l.dof];
            if l.joint == Joint3::Free && !l.particle {
                // Floating base: Î^A â + p̂^A = 0, then ü = (ẍ_c, Ω̇).
                let non_finite = !st.ia.iter().all(|x| x.is_finite());
                let chol = st.ia.cholesky().ok_or(Degenerate { body: l.body, non_finite })?;
                st.a = -chol.solve(&st.pa);
                let (wd, ao) = (st.a.fixed_rows::<3>(0).into_owned(), st.a.fixed_rows::<3>(3).into_owned());
                let mut xdd = ao + wd.cross(&st.x);
                if dynamic {
                    let w = st.v.fixed_rows::<3>(0).into_owned();
                    xdd += w.cross(&point_velocity(&st.v, &st.x));
                }
                out[..3].copy_from_slice(xdd.as_slice());
                out[3..6].copy_from_slice(st.rm.tr_mul(&wd).as_slice());
                continue;
            }
            let mut a = ap;
            if dynamic {
                a += st.c;
            }
            let x = st.dinv * (st.tau - st.u.transpose() * a);
            if l.joint == Joint3::Spherical {
                a += rotation_about(x, &st.po);
                out.copy_from_slice(st.rjm.tr_mul(&x).as_slice());
            } else {
                for k in 0..l.dof {
                    out[k] = x[k];
                    a += st.s.column(k) * x[k];
                }
            }
            st.a = a;
        }
        Ok(())
    }
}
