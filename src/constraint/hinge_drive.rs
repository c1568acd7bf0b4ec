//! `hinge_drive` — the angle of a hinge between a rigid-3D body and the world prescribed in time
//! (a motor turning a crank in space), a driving constraint like [`super::drive`], with time the
//! coordinate s of the scene's clock.
//!
//! The hinge's frames F₁ (on its side a, the first) and F₂ (on side b) satisfy R₁F₁ Rx(−φ) = R₂F₂
//! (`Pair3`, `Motion3::Revolute`), φ the angle of side a relative to side b about the axis — the
//! sign of the planar relative drive, q_a − q_b. With the world vectors n = R₂F₂e₁ (the axis),
//! u = R₂F₂e₂ and w = R₁F₁e₂, x = u·w = cos φ and y = n·(u × w) = sin φ while the hinge holds. The
//! row is
//!   C    = y cos f(s) − x sin f(s)          (= sin(φ − f) on the hinge: φ − f to first order) \[rad\]
//! which needs no angle unwrapping and has no branch cut near its zero. With ω₁, ω₂ the sides'
//! world angular velocities and Δω = ω₁ − ω₂ (u and n turn with ω₂, w with ω₁):
//!   ẋ = −Δω·(u × w),   ẏ = Δω·(x n − (n·w) u)          (det(n, u, w) is invariant under a common
//!   rotation), so
//!   J    = [ k on side a's Ω (as Rᵀk), −k on side b's, −f′ (y sin f + x cos f) on the clock ],
//!   k    = cos f (x n − (n·w) u) + sin f (u × w)        (= n on the hinge),
//!   J̇v  = cos f ÿ − sin f ẍ − 2 f′ṡ (sin f ẏ + cos f ẋ) − f″ṡ² (y sin f + x cos f)
//!         − f′²ṡ² (y cos f − x sin f),
//! with ẍ, ÿ the second derivatives of u·w and det(n, u, w) at fixed ω (ȧ = ω × a, ä = ω × (ω × a)).
//! A hinge between two moving bodies would touch 13 velocity coordinates with the clock, more than
//! a constraint's local block holds ([`super::MAX_LOCAL_DOF`]); the model file refuses it.

use super::drive::Profile;
use super::joint3::Side;
use super::{Attach, Constraint};
use crate::model::BodyKind;
use nalgebra::{Matrix3, Vector3};

/// The angle of a hinge between rigid-3D body `body` and the world driven by a [`Profile`].
#[derive(Clone, Debug)]
pub struct HingeDrive {
    attach: Attach,
    /// Whether the body is the hinge's first side (the world then its second).
    body_first: bool,
    /// The joint-frame axes of the first and the second side, in that side's frame (world axes
    /// for the world).
    axes: [Matrix3<f64>; 2],
    /// The prescribed angle \[rad\].
    pub profile: Profile,
}

/// det(a, b, c) = a·(b × c).
fn det(a: &Vector3<f64>, b: &Vector3<f64>, c: &Vector3<f64>) -> f64 {
    a.dot(&b.cross(c))
}

impl HingeDrive {
    /// Drives the hinge whose sides are `body` (first when `body_first`) and the world, with
    /// joint-frame axes `axes` (first side's, second side's; each in its side's frame), by
    /// `profile` of the time held by body `clock`.
    pub fn new(body: usize, body_first: bool, axes: [Matrix3<f64>; 2], clock: usize, profile: Profile) -> Self {
        HingeDrive { attach: Attach::two(body, BodyKind::Rigid3, clock, BodyKind::Clock), body_first, axes, profile }
    }

    /// The two sides (first, second) at the local q and v, and the clock's s and ṡ.
    fn sides(&self, q: &[f64], v: Option<&[f64]>) -> ([Side; 2], f64, f64) {
        let body = Side::body(&q[..7], v.map(|v| &v[..6]), 0);
        let sides = if self.body_first { [body, Side::world()] } else { [Side::world(), body] };
        (sides, q[7], v.map_or(1.0, |v| v[6]))
    }

    /// The world vectors (n, u, w) of the module docs.
    fn vectors(&self, s: &[Side; 2]) -> [Vector3<f64>; 3] {
        let (f1, f2) = (s[0].r * self.axes[0], s[1].r * self.axes[1]);
        [f2.column(0).into(), f2.column(1).into(), f1.column(1).into()]
    }
}

impl Constraint for HingeDrive {
    fn driving(&self) -> bool {
        true
    }
    fn kind(&self) -> &'static str {
        "hinge_drive"
    }
    fn row_unit(&self, _row: usize) -> &'static str {
        "rad"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let (s, t, _) = self.sides(q, None);
        let [n, u, w] = self.vectors(&s);
        let (sn, cs) = self.profile.at(t).0.sin_cos();
        c[0] = det(&n, &u, &w) * cs - u.dot(&w) * sn;
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let (s, t, _) = self.sides(q, None);
        let [n, u, w] = self.vectors(&s);
        let (f, f1, _) = self.profile.at(t);
        let (sn, cs) = f.sin_cos();
        let (x, y) = (u.dot(&w), det(&n, &u, &w));
        let k = cs * (x * n - n.dot(&w) * u) + sn * u.cross(&w);
        j.fill(0.0);
        s[0].angular_row(j, &k, 1.0);
        s[1].angular_row(j, &k, -1.0);
        j[6] = -f1 * (y * sn + x * cs);
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (s, t, sd) = self.sides(q, Some(v));
        let [n, u, w] = self.vectors(&s);
        let (f, f1, f2) = self.profile.at(t);
        let (sn, cs) = f.sin_cos();
        // n and u turn with side b, w with side a.
        let (wb, wa) = (s[1].w, s[0].w);
        let (nd, ud, wd) = (wb.cross(&n), wb.cross(&u), wa.cross(&w));
        let (ndd, udd, wdd) = (wb.cross(&nd), wb.cross(&ud), wa.cross(&wd));
        let (x, y) = (u.dot(&w), det(&n, &u, &w));
        let (xd, yd) = (ud.dot(&w) + u.dot(&wd), det(&nd, &u, &w) + det(&n, &ud, &w) + det(&n, &u, &wd));
        let xdd = udd.dot(&w) + 2.0 * ud.dot(&wd) + u.dot(&wdd);
        let ydd = det(&ndd, &u, &w)
            + det(&n, &udd, &w)
            + det(&n, &u, &wdd)
            + 2.0 * (det(&nd, &ud, &w) + det(&nd, &u, &wd) + det(&n, &ud, &wd));
        out[0] = cs * ydd
            - sn * xdd
            - 2.0 * f1 * sd * (sn * yd + cs * xd)
            - f2 * sd * sd * (y * sn + x * cs)
            - f1 * f1 * sd * sd * (y * cs - x * sn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::drive::Harmonic;
    use nalgebra::UnitQuaternion;

    /// A tilted hinge frame on the body, the world's frame turned about another axis; the body's
    /// orientation is off the hinge (so every term of J and J̇v counts), and the clock at s.
    fn drive(body_first: bool) -> HingeDrive {
        let fa = *UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.7, 0.4)).to_rotation_matrix().matrix();
        let fb = *UnitQuaternion::from_scaled_axis(Vector3::new(-0.2, 0.5, 0.9)).to_rotation_matrix().matrix();
        let p = Harmonic { start: 0.3, rate: 2.0, amplitude: 0.5, omega: 2.0, phase: 0.4 };
        HingeDrive::new(0, body_first, [fa, fb], 1, Profile::Harmonic(p))
    }

    /// q ⊕ ε v: the position moves by ε v, the quaternion by exp(ε Ω / 2) on the right (body
    /// frame), the clock by ε ṡ.
    fn moved(q: &[f64; 8], v: &[f64; 7], e: f64) -> [f64; 8] {
        let mut out = *q;
        BodyKind::Rigid3.retract(&q[..7], &v[..6], e, &mut out[..7]);
        out[7] = q[7] + e * v[6];
        out
    }

    #[test]
    fn jacobian_and_jdot_v_are_the_derivatives_of_c() {
        // Central differences along q ⊕ ε v: truncation ε² |C‴| / 6 ≈ 1e-10 · 10, rounding
        // 1e-16 / ε ≈ 1e-11.
        let r = UnitQuaternion::from_scaled_axis(Vector3::new(0.8, 0.1, -0.6));
        let q = [0.1, -0.2, 0.3, r.w, r.i, r.j, r.k, 0.7];
        let v = [0.4, 0.5, -0.6, 1.3, -0.8, 2.1, 1.0];
        for body_first in [true, false] {
            let d = drive(body_first);
            let c = |q: &[f64]| {
                let mut c = [0.0];
                d.eval(q, &mut c);
                c[0]
            };
            let jv = |q: &[f64], v: &[f64; 7]| {
                let mut j = [0.0; 7];
                d.jacobian(q, &mut j);
                j.iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
            };
            let e = 1e-5;
            // Every column (each velocity coordinate alone), and v itself.
            let mut directions: Vec<[f64; 7]> =
                (0..7).map(|k| std::array::from_fn(|i| f64::from(u8::from(i == k)))).collect();
            directions.push(v);
            for dir in &directions {
                let fd = (c(&moved(&q, dir, e)) - c(&moved(&q, dir, -e))) / (2.0 * e);
                assert!(
                    (fd - jv(&q, dir)).abs() < 1e-9,
                    "J {dir:?} = {} vs {fd} (body first: {body_first})",
                    jv(&q, dir)
                );
            }
            let (a, b) = (moved(&q, &v, e), moved(&q, &v, -e));
            let mut out = [0.0];
            d.jdot_v(&q, &v, &mut out);
            let fd2 = (jv(&a, &v) - jv(&b, &v)) / (2.0 * e);
            assert!((fd2 - out[0]).abs() < 1e-8, "J̇v = {} vs {fd2} (body first: {body_first})", out[0]);
        }
    }
}
