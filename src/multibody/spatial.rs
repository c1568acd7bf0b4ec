//! Joint coordinates in space: the spanning tree over rigid-3D bodies and particles in space, and
//! its kinematics (Featherstone 2008, ch. 4).
//!
//! A link's pose follows from its parent's through the joint frames: with P = T_parent · F_parent
//! (rotation P_R, origin P_o), the joint frame's rotation R_J and origin J are
//!   hinge      R_J = P_R Rot_x(u),  J = P_o
//!   slider     R_J = P_R,           J = P_o + u P_R e_x
//!   ball       R_J = P_R Q(u),      J = P_o            (u a unit quaternion; u̇ = its rate in R_J)
//!   fixed      R_J = P_R,           J = P_o
//! and then R = R_J F_childᵀ, x = J − R F_child,o. A free root has the body's own (x, Q) and
//! (ẋ, Ω). Spatial vectors are taken at the world origin, v̂ = (ω, v_O), so a child's velocity is
//! its parent's plus S u̇ with no transform, and ĉ = Ṡ u̇ = v̂ ×ₘ S u̇ for every joint whose S is
//! fixed in the child (§2.2 of docs/design.md).

use super::spatial_aba::State3;
use super::{TreeError, spanning_tree};
use crate::constraint::Motion3;
use crate::model::BodyKind;
use crate::system::System;
use nalgebra::{Matrix3, Matrix6, Quaternion, Rotation3, SMatrix, UnitQuaternion, Vector3, Vector6};

/// How a body hangs from its parent in a spatial tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joint3 {
    /// Rotation about the frame's first axis (1 coordinate \[rad\]).
    Revolute,
    /// Translation along the frame's first axis (1 coordinate \[m\]).
    Prismatic,
    /// Any rotation about the anchor: a unit quaternion (4 numbers), 3 rates \[rad/s\] in the joint frame.
    Spherical,
    /// Rigidly attached.
    Fixed,
    /// A free root: (x \[m\], Q) and (ẋ \[m/s\], Ω \[rad/s\], body frame); (x) and (ẋ) for a particle.
    Free,
}

/// One body of a spatial tree.
#[derive(Clone, Copy, Debug)]
pub struct Link3 {
    /// Body index in the system.
    pub body: usize,
    /// Parent link, or `None` for the world.
    pub parent: Option<usize>,
    /// The joint to the parent.
    pub joint: Joint3,
    /// The constraint that is this joint (`None` for a free root).
    pub constraint: Option<usize>,
    /// Joint frame on the parent: anchor \[m\] and axes as a rotation.
    pub anchor_parent: Vector3<f64>,
    /// Rotation of the parent's joint axes.
    pub axes_parent: UnitQuaternion<f64>,
    /// Joint frame on this body: anchor \[m\].
    pub anchor_child: Vector3<f64>,
    /// Rotation of this body's joint axes.
    pub axes_child: UnitQuaternion<f64>,
    /// Offset of its position coordinates in x, and their number.
    pub xoff: usize,
    /// Number of position coordinates.
    pub nx: usize,
    /// Offset of its velocity coordinates in ẋ.
    pub voff: usize,
    /// Number of velocity coordinates.
    pub dof: usize,
    /// Whether the body is a particle.
    pub particle: bool,
    /// Mass \[kg\].
    pub mass: f64,
    /// Principal moments of inertia \[kg·m²\] (zero for a particle).
    pub inertia: Vector3<f64>,
}

/// The spanning tree of a mechanism in space.
#[derive(Clone, Debug)]
pub struct Tree3 {
    /// The links, parents first.
    pub links: Vec<Link3>,
    /// Number of velocity coordinates.
    pub dim: usize,
    /// Number of position coordinates.
    pub xdim: usize,
    /// Constraints left out of the tree.
    pub loops: Vec<usize>,
    /// Their rows.
    pub loop_rows: usize,
}

fn rotation(axes: &Matrix3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix(axes))
}

impl Tree3 {
    /// The spanning tree over `system`'s 3D joints, or why it has none here.
    pub fn new(system: &System) -> Result<Tree3, TreeError> {
        let bodies = system.bodies();
        let cons = system.constraints();
        if let Some(i) = bodies.iter().position(|b| b.kind.dim() != 3 && b.kind != BodyKind::Clock) {
            return Err(TreeError(format!(
                "body {i} is {} in a mechanism with bodies in space",
                bodies[i].kind.label()
            )));
        }
        let pairs: Vec<_> = cons.iter().map(|c| c.spatial_pair()).collect();
        let (edges, loops) = spanning_tree(bodies.len(), cons.len(), &super::clocks(system), |ci| {
            pairs[ci].map(|p| (p.first.body, p.second.body))
        });
        let (mut links, mut xdim, mut dim) = (Vec::with_capacity(edges.len()), 0, 0);
        for e in edges {
            let b = &bodies[e.body];
            let particle = b.kind == BodyKind::Particle3;
            let ident = (Vector3::zeros(), UnitQuaternion::identity());
            let (joint, fp, fc) = match e.constraint {
                None => (Joint3::Free, ident, ident),
                Some(ci) => {
                    let p = pairs[ci].expect("tree edges are joints");
                    let (sp, sc) = if e.body_is_first { (p.second, p.first) } else { (p.first, p.second) };
                    let joint = match p.motion {
                        Motion3::Revolute => Joint3::Revolute,
                        Motion3::Prismatic => Joint3::Prismatic,
                        Motion3::Spherical => Joint3::Spherical,
                        Motion3::Fixed => Joint3::Fixed,
                    };
                    if particle && matches!(joint, Joint3::Revolute | Joint3::Spherical) {
                        return Err(TreeError(format!(
                            "joint `{}` turns particle {} about a point: a particle has no rotational inertia",
                            cons[ci].kind(),
                            e.body
                        )));
                    }
                    (joint, (sp.frame.anchor, rotation(&sp.frame.axes)), (sc.frame.anchor, rotation(&sc.frame.axes)))
                }
            };
            let (nx, dof) = match joint {
                Joint3::Revolute | Joint3::Prismatic => (1, 1),
                Joint3::Spherical => (4, 3),
                Joint3::Fixed => (0, 0),
                Joint3::Free if particle => (3, 3),
                Joint3::Free => (7, 6),
            };
            links.push(Link3 {
                body: e.body,
                parent: e.parent,
                joint,
                constraint: e.constraint,
                anchor_parent: fp.0,
                axes_parent: fp.1,
                anchor_child: fc.0,
                axes_child: fc.1,
                xoff: xdim,
                nx,
                voff: dim,
                dof,
                particle,
                mass: b.mass,
                inertia: if particle { Vector3::zeros() } else { Vector3::from(b.inertia) },
            });
            xdim += nx;
            dim += dof;
        }
        let loop_rows = loops.iter().map(|&ci| cons[ci].rows()).sum();
        Ok(Tree3 { links, dim, xdim, loops, loop_rows })
    }

    /// Bytes of the workspace of [`super::spatial_aba::Articulated3`] for this tree.
    pub fn workspace_bytes(&self, ndof: usize) -> u64 {
        let m = self.loop_rows as u64;
        // Two trees: `lagrangian` keeps one for evaluations and one for read-only queries.
        2 * (self.links.len() * (std::mem::size_of::<State3>() + std::mem::size_of::<Link3>())) as u64
            + 8 * (6 * ndof as u64 + 16 * m + 4 * self.xdim as u64 + m * m + 4 * m)
    }
}

/// The quaternion stored at `x[0..4]` = (w, x, y, z), normalized.
pub(super) fn quat(x: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(x[0], x[1], x[2], x[3]))
}

/// Stores `q` as (w, x, y, z).
pub(super) fn store(q: &UnitQuaternion<f64>, out: &mut [f64]) {
    out[0] = q.w;
    out[1] = q.i;
    out[2] = q.j;
    out[3] = q.k;
}

/// The motion cross product v̂ ×ₘ m̂ = (ω × m_ω, ω × m_v + v × m_ω).
#[inline]
pub(super) fn crm(v: &Vector6<f64>, m: &Vector6<f64>) -> Vector6<f64> {
    let (w, vo) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
    let (mw, mv) = (m.fixed_rows::<3>(0), m.fixed_rows::<3>(3));
    let top = w.cross(&mw);
    let bot = w.cross(&mv) + vo.cross(&mw);
    Vector6::new(top.x, top.y, top.z, bot.x, bot.y, bot.z)
}

/// The force cross product v̂ ×* f̂ = (ω × n + v × f, ω × f).
#[inline]
pub(super) fn crf(v: &Vector6<f64>, f: &Vector6<f64>) -> Vector6<f64> {
    let (w, vo) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
    let (n, ff) = (f.fixed_rows::<3>(0), f.fixed_rows::<3>(3));
    let top = w.cross(&n) + vo.cross(&ff);
    let bot = w.cross(&ff);
    Vector6::new(top.x, top.y, top.z, bot.x, bot.y, bot.z)
}

/// The spatial vector (a, p × a) of a rotation about the world axis `a` through the point `p`.
#[inline]
pub(super) fn rotation_about(a: Vector3<f64>, p: &Vector3<f64>) -> Vector6<f64> {
    let m = p.cross(&a);
    Vector6::new(a.x, a.y, a.z, m.x, m.y, m.z)
}

/// The velocity v_O + ω × p of the point `p` moving with v̂.
#[inline]
pub(super) fn point_velocity(v: &Vector6<f64>, p: &Vector3<f64>) -> Vector3<f64> {
    v.fixed_rows::<3>(3) + v.fixed_rows::<3>(0).cross(p)
}

/// The angle \[rad\] of the rotation `q` about the x axis (for a rotation about x only), in (−π, π].
pub(super) fn angle_about_x(q: &UnitQuaternion<f64>) -> f64 {
    let a = 2.0 * q.i.atan2(q.w);
    if a > std::f64::consts::PI {
        a - std::f64::consts::TAU
    } else if a <= -std::f64::consts::PI {
        a + std::f64::consts::TAU
    } else {
        a
    }
}

/// D⁻¹ of a symmetric positive-definite 3 × 3 matrix by its LDLᵀ factorization D = L Δ Lᵀ
/// (L unit lower triangular; Golub & Van Loan 2013, Alg. 4.1.2), reading only D's lower
/// triangle: D⁻¹ = L⁻ᵀ Δ⁻¹ L⁻¹, formed entry by entry from L⁻¹ and the three reciprocal pivots.
/// `None` where a pivot is not positive (D is not positive definite: Sylvester's criterion) or
/// not a number. Three divisions and no square root: the articulated-body passes invert one D
/// per ball joint, and a division's latency is what a 3 × 3 inverse waits on.
#[inline]
pub(super) fn spd_inverse3(d: &Matrix3<f64>) -> Option<Matrix3<f64>> {
    let positive = |p: f64| (p > 0.0).then(|| 1.0 / p);
    let (d10, d20, d21) = (d[(1, 0)], d[(2, 0)], d[(2, 1)]);
    let r0 = positive(d[(0, 0)])?;
    let (l10, l20) = (d10 * r0, d20 * r0);
    let r1 = positive(d[(1, 1)] - l10 * d10)?;
    let e21 = d21 - l20 * d10; // Δ₁ l₂₁
    let l21 = e21 * r1;
    let r2 = positive(d[(2, 2)] - l20 * d20 - l21 * e21)?;
    // L⁻¹ = [[1, 0, 0], [m10, 1, 0], [m20, m21, 1]]
    let (m10, m21) = (-l10, -l21);
    let m20 = l10 * l21 - l20;
    let (i21, i20) = (r2 * m21, r2 * m20);
    let i22 = r2;
    let i11 = r1 + m21 * i21;
    let i10 = r1 * m10 + m21 * i20;
    let i00 = r0 + m10 * m10 * r1 + m20 * i20;
    Some(Matrix3::new(i00, i10, i20, i10, i11, i21, i20, i21, i22))
}

/// A 6 × 3 matrix: a joint's motion subspace S, or U = Î^A S.
pub(super) type S63 = SMatrix<f64, 6, 3>;

/// Î S_w for the world-axes basis of a ball joint at `p`, S_w = \[1; \[p\]×\] (columns
/// (e_k, p × e_k)): column k is Î's column k plus Î's right half times p × e_k, whose one zero
/// entry is skipped.
pub(super) fn times_world_axes(ia: &Matrix6<f64>, p: &Vector3<f64>) -> S63 {
    let mut u = S63::zeros();
    for r in 0..6 {
        let (x, y, z) = (ia[(r, 3)], ia[(r, 4)], ia[(r, 5)]);
        // p × e_0 = (0, p_z, −p_y), p × e_1 = (−p_z, 0, p_x), p × e_2 = (p_y, −p_x, 0)
        u[(r, 0)] = ia[(r, 0)] + (y * p.z - z * p.y);
        u[(r, 1)] = ia[(r, 1)] + (z * p.x - x * p.z);
        u[(r, 2)] = ia[(r, 2)] + (x * p.y - y * p.x);
    }
    u
}

/// S_wᵀ f̂ = n + f × p: the moment about `p` of the spatial force f̂ = (n, f) at the origin.
#[inline]
pub(super) fn moment_about(f: &Vector6<f64>, p: &Vector3<f64>) -> Vector3<f64> {
    f.fixed_rows::<3>(0) + f.fixed_rows::<3>(3).cross(p)
}

/// Î − W Uᵀ with W = U D⁻¹, the lower triangle formed and mirrored (symmetric to the bit).
pub(super) fn less_projection(ia: &Matrix6<f64>, u: &S63, dinv: &Matrix3<f64>) -> Matrix6<f64> {
    let w = u * dinv;
    let mut out = Matrix6::zeros();
    for j in 0..6 {
        for i in j..6 {
            let v = ia[(i, j)] - (w[(i, 0)] * u[(j, 0)] + w[(i, 1)] * u[(j, 1)] + w[(i, 2)] * u[(j, 2)]);
            out[(i, j)] = v;
            out[(j, i)] = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, rng_seed: proptest::test_runner::RngSeed::Fixed(3), ..ProptestConfig::default() })]

        /// D = A Aᵀ + εI: D⁻¹ D = 1 within the forward error bound of a backward-stable
        /// factorization, c n ε κ(D) with κ from D's own eigenvalues (n = 3, c = 4).
        #[test]
        fn the_inverse_of_a_definite_matrix_is_within_its_condition_number(
            e in proptest::collection::vec(prop_oneof![4 => -2.0..2.0f64, 1 => Just(0.0)], 9),
            eps in 1e-6..1.0f64,
            scale in prop_oneof![Just(1.0), Just(1e-6), Just(1e6)],
        ) {
            let a = Matrix3::from_column_slice(&e);
            let d = (a * a.transpose() + Matrix3::identity() * eps) * scale;
            let x = spd_inverse3(&d).expect("a definite matrix");
            let ev = d.symmetric_eigenvalues();
            let kappa = ev.max() / ev.min();
            let err = (x * d - Matrix3::identity()).abs().max();
            prop_assert!(err <= 4.0 * 3.0 * f64::EPSILON * kappa, "error {err:e}, kappa {kappa:e}");
            prop_assert_eq!(x, x.transpose());
        }

        /// An indefinite or semidefinite D, or one with a NaN, is refused: a pivot would be
        /// nonpositive. The negative eigenvalue is far from rounding (−0.5 or less against
        /// entries of order 1).
        #[test]
        fn an_indefinite_matrix_is_refused(
            e in proptest::collection::vec(-1.0..1.0f64, 9),
            neg in 0.5..2.0f64,
            k in 0usize..3,
        ) {
            let q = Matrix3::from_column_slice(&e).qr().q();
            let mut l = Vector3::new(1.0, 2.0, 3.0);
            l[k] = -neg;
            let d = q * Matrix3::from_diagonal(&l) * q.transpose();
            prop_assert!(spd_inverse3(&d).is_none());
            let mut nan = Matrix3::identity();
            nan[(k.max(1), 0)] = f64::NAN;
            prop_assert!(spd_inverse3(&nan).is_none());
        }
    }

    #[test]
    fn a_singular_matrix_is_refused() {
        assert!(spd_inverse3(&Matrix3::zeros()).is_none());
        // rank 2: the third pivot is 0 to the bit
        assert!(spd_inverse3(&Matrix3::new(2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0)).is_none());
        assert_eq!(spd_inverse3(&(Matrix3::identity() * 4.0)), Some(Matrix3::identity() * 0.25));
    }
}
