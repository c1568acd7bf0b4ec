//! Shared kinematics of the 3D joints (seed 001): each joint connects two *sides*, each a rigid-3D
//! body or the fixed world, and is written with the rows below. Nothing here is a constraint.
//!
//! A side has position x, rotation R and, for a body, velocity v and body-frame angular velocity Ω
//! (world ω = R Ω). A body point at local offset u has world offset ρ = R u and
//!   p = x + ρ,   ṗ = v + ω × ρ,   p̈|_(v̇ = 0, Ω̇ = 0) = ω × (ω × ρ)             (the "bias")
//! A body vector a = R u has ȧ = ω × a. Two row types cover every joint:
//! - point row  n·ṗ = n·v + (Rᵀ(ρ × n))·Ω : columns [nᵀ, (Rᵀ(ρ × n))ᵀ];
//! - angular row k·ω = (Rᵀk)·Ω : columns [0, (Rᵀk)ᵀ].
//!
//! J̇v is d/ds [J(q ⊕ s v) v] with v (hence Ω and ω) held fixed, which is the bias acceleration
//! C̈ − J v̇ of each row. The world side is the identity frame at the origin, so its "local"
//! anchors and axes are world quantities.

use super::Attach;
use crate::model::BodyKind;
use crate::model::rotation::{rotation_matrix, vec3};
use nalgebra::{Matrix3, Vector3};
use std::ops::AddAssign;

/// One side of a joint at the current state, with its columns in the local Jacobian row.
pub(crate) struct Side {
    /// Rotation R (identity for the world).
    pub r: Matrix3<f64>,
    /// Position x \[m\] (origin for the world).
    pub x: Vector3<f64>,
    /// Linear velocity \[m/s\] (zero for the world or when no velocity was given).
    pub v: Vector3<f64>,
    /// World angular velocity ω = R Ω \[rad/s\].
    pub w: Vector3<f64>,
    /// First local column of this side's six, or None for the world.
    pub col: Option<usize>,
}

impl Side {
    /// The fixed world: identity frame at the origin, at rest.
    pub(crate) fn world() -> Self {
        Side { r: Matrix3::identity(), x: Vector3::zeros(), v: Vector3::zeros(), w: Vector3::zeros(), col: None }
    }

    /// A rigid-3D body with position slice `q` (7), optional velocity slice `v` (6), whose six
    /// columns start at `col` of a local row.
    pub(crate) fn body(q: &[f64], v: Option<&[f64]>, col: usize) -> Self {
        let r = rotation_matrix(&q[3..7]);
        let (lin, w) = match v {
            Some(v) => (vec3(&v[..3]), r * vec3(&v[3..6])),
            None => (Vector3::zeros(), Vector3::zeros()),
        };
        Side { r, x: vec3(&q[..3]), v: lin, w, col: Some(col) }
    }

    /// World offset ρ = R u of the local point u.
    pub(crate) fn offset(&self, u: &Vector3<f64>) -> Vector3<f64> {
        self.r * u
    }

    /// Velocity ṗ = v + ω × ρ of the point at world offset ρ.
    pub(crate) fn point_velocity(&self, rho: &Vector3<f64>) -> Vector3<f64> {
        self.v + self.w.cross(rho)
    }

    /// Bias acceleration ω × (ω × ρ) of the point at world offset ρ (also ä of a body vector ρ).
    pub(crate) fn bias(&self, rho: &Vector3<f64>) -> Vector3<f64> {
        self.w.cross(&self.w.cross(rho))
    }

    /// Adds s · [nᵀ, (Rᵀ(ρ × n))ᵀ] to this side's columns of the row `j`.
    pub(crate) fn point_row(&self, j: &mut [f64], n: &Vector3<f64>, rho: &Vector3<f64>, s: f64) {
        if let Some(c) = self.col {
            let ang = self.r.transpose() * rho.cross(n);
            for d in 0..3 {
                j[c + d] += s * n[d];
                j[c + 3 + d] += s * ang[d];
            }
        }
    }

    /// Adds s · [0, (Rᵀk)ᵀ] to this side's columns of the row `j`.
    pub(crate) fn angular_row(&self, j: &mut [f64], k: &Vector3<f64>, s: f64) {
        if let Some(c) = self.col {
            let ang = self.r.transpose() * k;
            for d in 0..3 {
                j[c + 3 + d] += s * ang[d];
            }
        }
    }
}

/// The two ends of a 3D joint: bodies a and b, either of which (not both) may be the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ends {
    /// The attached bodies, in local order.
    pub attach: Attach,
    a_world: bool,
    b_world: bool,
}

impl Ends {
    /// Joint between `a` and `b` (None = the world).
    ///
    /// # Panics
    /// If both are the world.
    pub(crate) fn new(a: Option<usize>, b: Option<usize>) -> Self {
        let k = BodyKind::Rigid3;
        let attach = match (a, b) {
            (Some(a), Some(b)) => Attach::two(a, k, b, k),
            (Some(x), None) | (None, Some(x)) => Attach::one(x, k),
            (None, None) => panic!("a joint needs at least one body"),
        };
        Ends { attach, a_world: a.is_none(), b_world: b.is_none() }
    }

    /// The bodies of side a and side b (`None` = the world).
    pub(crate) fn side_bodies(&self) -> (Option<usize>, Option<usize>) {
        let b = self.attach.bodies();
        match (self.a_world, self.b_world) {
            (false, false) => (Some(b[0]), Some(b[1])),
            (true, _) => (None, Some(b[0])),
            (false, true) => (Some(b[0]), None),
        }
    }

    /// The pair T_a F_a M(u) = T_b F_b of a joint with frames `fa`, `fb`.
    pub(crate) fn pair(&self, fa: &JointFrame, fb: &JointFrame, motion: super::Motion3) -> super::Pair3 {
        let (a, b) = self.side_bodies();
        let frame = |f: &JointFrame| super::Frame3 { anchor: f.anchor, axes: f.axes };
        super::Pair3 {
            first: super::Side3 { body: a, frame: frame(fa) },
            second: super::Side3 { body: b, frame: frame(fb) },
            motion,
        }
    }

    /// The two sides at local state `q` (and `v` when given).
    pub(crate) fn sides(&self, q: &[f64], v: Option<&[f64]>) -> [Side; 2] {
        let a = if self.a_world { Side::world() } else { Side::body(q, v, 0) };
        let b = if self.b_world {
            Side::world()
        } else if self.a_world {
            Side::body(q, v, 0)
        } else {
            Side::body(&q[7..], v.map(|v| &v[6..]), 6)
        };
        [a, b]
    }
}

/// Where a joint sits on one side: the anchor point u \[m\] and the joint frame F (columns e₁ =
/// joint axis, e₂, e₃), both in that side's frame (world frame for the world side).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointFrame {
    /// Anchor in the side's frame \[m\].
    pub anchor: Vector3<f64>,
    /// Orthonormal joint axes in the side's frame (columns).
    pub axes: Matrix3<f64>,
}

impl JointFrame {
    /// The frame that coincides with the world point `point` \[m\] and world axes `axes` for a side
    /// at position `x` \[m\] and orientation `quat` (w, x, y, z); `None` = the world side.
    pub fn from_world(pose: Option<([f64; 3], [f64; 4])>, point: [f64; 3], axes: Matrix3<f64>) -> Self {
        match pose {
            Some((x, quat)) => {
                let r = rotation_matrix(&quat);
                JointFrame { anchor: r.transpose() * (vec3(&point) - vec3(&x)), axes: r.transpose() * axes }
            }
            None => JointFrame { anchor: vec3(&point), axes },
        }
    }

    /// Axis `i` (0 = the joint axis) of this frame in world coordinates on `side`.
    pub(crate) fn axis(&self, side: &Side, i: usize) -> Vector3<f64> {
        side.r * self.axes.column(i)
    }
}

/// An orthonormal frame whose first column is the unit vector along `axis`.
pub fn frame_with_axis(axis: [f64; 3]) -> Matrix3<f64> {
    let e1 = vec3(&axis).normalize();
    let helper = if e1.x.abs() < 0.9 { Vector3::x() } else { Vector3::y() };
    let e2 = e1.cross(&helper).normalize();
    let e3 = e1.cross(&e2);
    Matrix3::from_columns(&[e1, e2, e3])
}

/// Rows C = p_a − p_b (3 rows, m): the ball-and-socket part shared by ball, hinge and weld.
pub(crate) fn ball_rows(s: &[Side; 2], fa: &JointFrame, fb: &JointFrame, c: &mut [f64]) {
    let pa = s[0].x + s[0].offset(&fa.anchor);
    let pb = s[1].x + s[1].offset(&fb.anchor);
    c[..3].copy_from_slice((pa - pb).as_slice());
}

/// J of [`ball_rows`], into the first 3 rows of `j` (row length `ldof`).
pub(crate) fn ball_jacobian(s: &[Side; 2], fa: &JointFrame, fb: &JointFrame, j: &mut [f64], ldof: usize) {
    let (ra, rb) = (s[0].offset(&fa.anchor), s[1].offset(&fb.anchor));
    for i in 0..3 {
        let n = Vector3::ith(i, 1.0);
        let row = &mut j[i * ldof..(i + 1) * ldof];
        s[0].point_row(row, &n, &ra, 1.0);
        s[1].point_row(row, &n, &rb, -1.0);
    }
}

/// Geometric stiffness K_g = −Σ λ_r ∇²C_r of [`ball_rows`] in the chart Q ⊗ exp(δ/2) of each side:
/// C is a sum of one term ±R e^{[δ]×} u per side, whose second-order part is ±½ R (δ (δ·u) − u |δ|²),
/// so each rotating side contributes the 3 × 3 block
///   H = (μ·u) I − ½ (μ uᵀ + u μᵀ),   μ = ±Rᵀλ (+ for side a, − for side b),
/// on its Ω columns (no cross terms). Its eigenvalues are ½(μ·u ± |μ||u|) and μ·u (one is never
/// positive; the system clamps negative weights); each eigenpair (s, e) gives a row g = e on that
/// side's Ω columns: three rows per rotating side, into `g` (row length `ldof`), weights into `s`.
pub(crate) fn ball_stiffness(
    sides: &[Side; 2],
    fa: &JointFrame,
    fb: &JointFrame,
    lambda: &[f64],
    g: &mut [f64],
    s: &mut [f64],
    ldof: usize,
) {
    g.fill(0.0);
    let lam = vec3(lambda);
    let mut k = 0;
    for (side, frame, sign) in [(&sides[0], fa, 1.0), (&sides[1], fb, -1.0)] {
        let Some(c) = side.col else { continue };
        let mu = sign * side.r.transpose() * lam;
        let u = frame.anchor;
        let h = Matrix3::identity() * mu.dot(&u) - 0.5 * (mu * u.transpose() + u * mu.transpose());
        let eig = h.symmetric_eigen();
        for i in 0..3 {
            let e = eig.eigenvectors.column(i);
            let row = &mut g[k * ldof..(k + 1) * ldof];
            row[c + 3..c + 6].copy_from_slice(&[e[0], e[1], e[2]]);
            s[k] = eig.eigenvalues[i];
            k += 1;
        }
    }
}

/// J̇v of [`ball_rows`]: ω_a × (ω_a × ρ_a) − ω_b × (ω_b × ρ_b).
pub(crate) fn ball_jdot_v(s: &[Side; 2], fa: &JointFrame, fb: &JointFrame, out: &mut [f64]) {
    let d = s[0].bias(&s[0].offset(&fa.anchor)) - s[1].bias(&s[1].offset(&fb.anchor));
    out[..3].copy_from_slice(d.as_slice());
}

/// Row C = a·b for the world vectors a (on side a) and b (on side b): zero when perpendicular
/// (dimensionless; ≈ the angle error in rad near zero).
/// Ċ = (a × b)·(ω_a − ω_b), J̇v = ((ω_a × a) × b + a × (ω_b × b))·(ω_a − ω_b).
pub(crate) struct DotRow {
    a: Vector3<f64>,
    b: Vector3<f64>,
}

impl DotRow {
    /// The row for axis `i` of frame `fa` (side a) and axis `k` of frame `fb` (side b).
    pub(crate) fn new(s: &[Side; 2], fa: &JointFrame, i: usize, fb: &JointFrame, k: usize) -> Self {
        DotRow { a: fa.axis(&s[0], i), b: fb.axis(&s[1], k) }
    }

    /// C.
    pub(crate) fn value(&self) -> f64 {
        self.a.dot(&self.b)
    }

    /// Adds its Jacobian to `row`.
    pub(crate) fn jacobian(&self, s: &[Side; 2], row: &mut [f64]) {
        let k = self.a.cross(&self.b);
        s[0].angular_row(row, &k, 1.0);
        s[1].angular_row(row, &k, -1.0);
    }

    /// J̇v.
    pub(crate) fn jdot_v(&self, s: &[Side; 2]) -> f64 {
        let (wa, wb) = (s[0].w, s[1].w);
        (wa.cross(&self.a).cross(&self.b) + self.a.cross(&wb.cross(&self.b))).dot(&(wa - wb))
    }
}

/// The chart Hessian of β·(R u) in R ⊕ δ = R exp([δ]×), with β in the body frame:
/// ½(uβᵀ + βuᵀ) − (β·u) I.
pub(crate) fn rot_hessian(u: &Vector3<f64>, beta: &Vector3<f64>) -> Matrix3<f64> {
    0.5 * (u * beta.transpose() + beta * u.transpose()) - Matrix3::identity() * beta.dot(u)
}

/// The Hessian blocks (H_aa, H_bb, H_ab) of a dot row a·b in the body-frame chart.
pub(crate) fn dot_hessian(row: &DotRow, ra: &Matrix3<f64>, rb: &Matrix3<f64>) -> [Matrix3<f64>; 3] {
    let (a0, b0) = (ra.transpose() * row.a, rb.transpose() * row.b);
    let haa = rot_hessian(&a0, &(ra.transpose() * row.b));
    let hbb = rot_hessian(&b0, &(rb.transpose() * row.a));
    let hab = -skew(&a0) * ra.transpose() * rb * skew(&b0);
    [haa, hbb, hab]
}

/// The cross-product matrix [v]× (w ↦ v × w).
pub(crate) fn skew(v: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -v.z, v.y, v.z, 0.0, -v.x, -v.y, v.x, 0.0)
}

/// The geometric stiffness of ball rows (multipliers `ball`, if the joint has them) and dot rows
/// (each with its multiplier) on the rotation columns of the rotating sides, as eigen-rows: three
/// per rotating side, into `g` (row length `ldof`) and `s`. In the body-frame chart R ⊕ δ = R exp([δ]×)
/// a rotating vector a = R a₀ has ∂a/∂δ = −R[a₀]× and symmetric second derivative
/// ½ R(e_i × (e_j × a₀) + e_j × (e_i × a₀)), so a dot row a·b has the Hessian blocks
///   H_aa = ½(a₀βᵀ + βa₀ᵀ) − (β·a₀) I,  β = R_aᵀ b;   H_bb likewise;   H_ab = −[a₀]× R_aᵀR_b [b₀]×,
/// and K_g = −Σ λ_r H_r (ball rows: `ball_stiffness`'s blocks, no cross terms). The 6 × 6 (3 × 3 with
/// the world) symmetric K_g is factored by its eigenpairs.
pub(crate) fn rotation_stiffness(
    sides: &[Side; 2],
    fa: &JointFrame,
    fb: &JointFrame,
    ball: Option<&[f64]>,
    dots: &[(DotRow, f64)],
    (g, s): (&mut [f64], &mut [f64]),
    ldof: usize,
) {
    let mut k = nalgebra::Matrix6::<f64>::zeros();
    let (ra, rb) = (sides[0].r, sides[1].r);
    if let Some(lambda) = ball {
        let lam = vec3(lambda);
        for (blk, side, frame, sign) in [(0, &sides[0], fa, 1.0), (3, &sides[1], fb, -1.0)] {
            let mu = sign * side.r.transpose() * lam;
            let u = frame.anchor;
            let h = Matrix3::identity() * mu.dot(&u) - 0.5 * (mu * u.transpose() + u * mu.transpose());
            k.fixed_view_mut::<3, 3>(blk, blk).add_assign(&h);
        }
    }
    for (row, lambda) in dots {
        let [haa, hbb, hab] = dot_hessian(row, &ra, &rb);
        k.fixed_view_mut::<3, 3>(0, 0).add_assign(&(-lambda * haa));
        k.fixed_view_mut::<3, 3>(3, 3).add_assign(&(-lambda * hbb));
        k.fixed_view_mut::<3, 3>(0, 3).add_assign(&(-lambda * hab));
        k.fixed_view_mut::<3, 3>(3, 0).add_assign(&(-lambda * hab.transpose()));
    }
    g.fill(0.0);
    // Fixed-size eigen-decompositions: no allocation per evaluation.
    let mut put = |e: usize, block: usize, col: usize, v: &[f64]| {
        g[e * ldof + col + 3..e * ldof + col + 6].copy_from_slice(&v[block..block + 3]);
    };
    match (sides[0].col, sides[1].col) {
        (Some(ca), Some(cb)) => {
            let eig = k.symmetric_eigen();
            for (e, se) in s.iter_mut().enumerate().take(6) {
                let v: [f64; 6] = std::array::from_fn(|d| eig.eigenvectors[(d, e)]);
                put(e, 0, ca, &v);
                put(e, 3, cb, &v);
                *se = eig.eigenvalues[e];
            }
        }
        (Some(c), None) | (None, Some(c)) => {
            let block = if sides[0].col.is_some() { 0 } else { 3 };
            let eig = k.fixed_view::<3, 3>(block, block).into_owned().symmetric_eigen();
            for (e, se) in s.iter_mut().enumerate().take(3) {
                let v: [f64; 3] = std::array::from_fn(|d| eig.eigenvectors[(d, e)]);
                put(e, 0, c, &v);
                *se = eig.eigenvalues[e];
            }
        }
        (None, None) => {}
    }
}

/// The three dot rows that lock the relative orientation (frames a and b aligned):
/// e₂ᵃ·e₃ᵇ, e₃ᵃ·e₁ᵇ, e₁ᵃ·e₂ᵇ. At alignment their gradients are e₁, e₂, e₃: independent.
pub(crate) fn orientation_rows(s: &[Side; 2], fa: &JointFrame, fb: &JointFrame) -> [DotRow; 3] {
    [DotRow::new(s, fa, 1, fb, 2), DotRow::new(s, fa, 2, fb, 0), DotRow::new(s, fa, 0, fb, 1)]
}
