//! `drive` — a driving (rheonomic) constraint: one body coordinate prescribed as a function of
//! time, C(q, t) = q_i − f(t), e.g. a crank turned at a constant rate, θ(t) = θ₀ + ω t; or the
//! difference of one coordinate of two bodies, C = q_{a,i} − q_{b,i} − f(t) (a motor between two
//! moving links: the relative angle of two planar bodies is their revolute joint's coordinate).
//!
//! Time reaches the constraint as the coordinate s of the scene's clock ([`BodyKind::Clock`]:
//! ṡ = 1, W = 0, so no constraint force moves it and s = t to rounding). In the extended
//! coordinates (q, s) the constraint is an ordinary scleronomic one,
//!
//!   C = q_i − f(s),   J = [eᵢ, −f′(s)],   J̇ v = −f″(s) ṡ²   (relative: J = [eᵢ, −eᵢ, −f′(s)]),
//!
//! whose velocity and acceleration conditions J v = 0 and J v̇ + J̇ v = 0 are exactly the rheonomic
//! ones, q̇_i − f′(t) = 0 and q̈_i − f″(t) = 0 (the ∂C/∂t and ∂²C/∂t² terms; Haug, Computer-Aided
//! Kinematics and Dynamics of Mechanical Systems, 1989, §3.3 on driving constraints). So every
//! formulation built on J, J̇ v and W runs driven mechanisms unchanged; the clock's own row in
//! W Jᵀ is zero. The profile is
//!
//!   f(t) = start + rate · t + amplitude · (sin(ω t + φ) − sin φ)        (f(0) = start),
//!
//! or any expression in t ([`crate::expr`]), whose f′ and f″ are exact (forward-mode jets), or a
//! table interpolated by a natural cubic spline ([`crate::expr::Spline`]).

use super::{Attach, Constraint};
use crate::expr::{Expr, Spline};
use crate::model::BodyKind;

/// The prescribed motion f(t) of a driven coordinate.
#[derive(Clone, Debug, PartialEq)]
pub enum Profile {
    /// A ramp plus a sine.
    Harmonic(Harmonic),
    /// An expression in t; where it has no finite value (a domain error at some t) the drive's
    /// rows are NaN, and the run stops there as a numerical failure at that time.
    Expression(Expr),
    /// A table interpolated by a natural cubic spline; outside its times the rows are NaN (a
    /// numerical failure at that time).
    Table(Spline),
}

impl Profile {
    /// (f(t), f′(t), f″(t)).
    pub fn at(&self, t: f64) -> (f64, f64, f64) {
        match self {
            Profile::Harmonic(h) => h.at(t),
            Profile::Expression(e) => e.eval(t).map_or((f64::NAN, f64::NAN, f64::NAN), |j| (j.v, j.d1, j.d2)),
            Profile::Table(s) => s.eval(t).map_or((f64::NAN, f64::NAN, f64::NAN), |j| (j.v, j.d1, j.d2)),
        }
    }
}

/// f(t) = start + rate t + amplitude (sin(ω t + φ) − sin φ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Harmonic {
    /// f(0) \[m or rad\].
    pub start: f64,
    /// Constant rate \[m/s or rad/s\].
    pub rate: f64,
    /// Amplitude of the harmonic part \[m or rad\].
    pub amplitude: f64,
    /// Its angular frequency ω \[rad/s\].
    pub omega: f64,
    /// Its phase φ \[rad\].
    pub phase: f64,
}

impl Harmonic {
    /// (f(t), f′(t), f″(t)).
    pub fn at(&self, t: f64) -> (f64, f64, f64) {
        let (s, c) = (self.omega * t + self.phase).sin_cos();
        let a = self.amplitude;
        (
            self.start + self.rate * t + a * (s - self.phase.sin()),
            self.rate + a * self.omega * c,
            -a * self.omega * self.omega * s,
        )
    }
}

/// Body coordinate `index` of `body` (less the same coordinate of a second body, for a relative
/// drive) driven along a [`Profile`] of the clock's time.
#[derive(Clone, Debug)]
pub struct Drive {
    attach: Attach,
    index: usize,
    /// The prescribed motion.
    pub profile: Profile,
}

/// Whether `index` is a coordinate of a body of `kind` whose q and v entries coincide (a
/// position, or a planar body's angle).
fn drivable(kind: BodyKind, index: usize) -> bool {
    kind != BodyKind::Clock && index < if kind == BodyKind::Rigid3 { 3 } else { kind.dof() }
}

impl Drive {
    /// Drives coordinate `index` of body `body` (of kind `kind`; a position or planar angle, whose
    /// q and v entries coincide) by `profile` of the time held by body `clock`.
    pub fn new(body: usize, kind: BodyKind, index: usize, clock: usize, profile: Profile) -> Self {
        assert!(drivable(kind, index));
        Drive { attach: Attach::two(body, kind, clock, BodyKind::Clock), index, profile }
    }

    /// Drives the difference q_{a,i} − q_{b,i} of coordinate `index` of bodies `a` and `b` (of one
    /// kind) by `profile` of the time held by body `clock`.
    pub fn relative(a: usize, b: usize, kind: BodyKind, index: usize, clock: usize, profile: Profile) -> Self {
        assert!(drivable(kind, index) && a != b);
        Drive { attach: Attach::three(a, kind, b, kind, clock, BodyKind::Clock), index, profile }
    }

    /// The clock's local position and velocity columns (after the driven bodies' slices).
    fn clock_at(&self) -> (usize, usize) {
        let kinds = self.attach.kinds();
        let driven = &kinds[..kinds.len() - 1];
        (driven.iter().map(|k| k.nq()).sum(), driven.iter().map(|k| k.dof()).sum())
    }

    /// The second body's local position and velocity offsets, for a relative drive.
    fn second(&self) -> Option<(usize, usize)> {
        let kinds = self.attach.kinds();
        (kinds.len() == 3).then(|| (kinds[0].nq(), kinds[0].dof()))
    }
}

impl Constraint for Drive {
    fn driving(&self) -> bool {
        true
    }
    fn kind(&self) -> &'static str {
        "drive"
    }
    fn row_unit(&self, _row: usize) -> &'static str {
        if self.attach.kinds()[0] == BodyKind::Rigid2 && self.index == 2 { "rad" } else { "m" }
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = q[self.clock_at().0];
        let b = self.second().map_or(0.0, |(qb, _)| q[qb + self.index]);
        c[0] = q[self.index] - b - self.profile.at(s).0;
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let (sq, sv) = self.clock_at();
        j.fill(0.0);
        j[self.index] = 1.0;
        if let Some((_, vb)) = self.second() {
            j[vb + self.index] = -1.0;
        }
        j[sv] = -self.profile.at(q[sq]).1;
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (sq, sv) = self.clock_at();
        out[0] = -self.profile.at(q[sq]).2 * v[sv] * v[sv];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_and_jdot_v_are_the_derivatives_of_c() {
        // A rigid-2D body's angle driven by a ramp plus a sine; central differences with step δ
        // have truncation δ²/6 · |f‴| ≈ 1e-10 · 8 and rounding ε / δ ≈ 1e-11.
        let p = Harmonic { start: 0.3, rate: 2.0, amplitude: 0.5, omega: 2.0, phase: 0.4 };
        let d = Drive::new(0, BodyKind::Rigid2, 2, 1, Profile::Harmonic(p));
        let (q, v) = ([0.1, -0.2, 0.7, 1.3], [0.4, 0.5, -0.6, 1.0]);
        let mut j = [0.0; 4];
        d.jacobian(&q, &mut j);
        let delta = 1e-5;
        let c = |q: &[f64]| {
            let mut c = [0.0];
            d.eval(q, &mut c);
            c[0]
        };
        for i in 0..4 {
            let (mut a, mut b) = (q, q);
            a[i] += delta;
            b[i] -= delta;
            assert!(((c(&a) - c(&b)) / (2.0 * delta) - j[i]).abs() < 1e-9, "column {i}");
        }
        // J̇ v = d/dε (J(q + ε v) v) at ε = 0.
        let jv = |e: f64| {
            let qe: Vec<f64> = q.iter().zip(&v).map(|(x, y)| x + e * y).collect();
            let mut j = [0.0; 4];
            d.jacobian(&qe, &mut j);
            j.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>()
        };
        let mut out = [0.0];
        d.jdot_v(&q, &v, &mut out);
        assert!(((jv(delta) - jv(-delta)) / (2.0 * delta) - out[0]).abs() < 1e-8, "{}", out[0]);
    }

    #[test]
    fn a_relative_drive_is_the_difference_of_its_bodies_coordinates() {
        // Two rigid-2D bodies' angles and the clock: C = θ_a − θ_b − f(s), J = [e₂, −e₂, −f′].
        let p = Harmonic { start: 0.1, rate: 1.5, amplitude: 0.2, omega: 4.0, phase: 0.0 };
        let d = Drive::relative(0, 1, BodyKind::Rigid2, 2, 2, Profile::Harmonic(p));
        let q = [0.0, 0.0, 0.9, 1.0, 0.0, 0.3, 0.25];
        let mut c = [0.0];
        d.eval(&q, &mut c);
        assert!((c[0] - (0.9 - 0.3 - p.at(0.25).0)).abs() < 1e-15);
        let mut j = [0.0; 7];
        d.jacobian(&q, &mut j);
        assert_eq!(&j[..6], &[0.0, 0.0, 1.0, 0.0, 0.0, -1.0]);
        assert_eq!(j[6], -p.at(0.25).1);
        let mut out = [0.0];
        d.jdot_v(&q, &[0.0, 0.0, 0.5, 0.0, 0.0, -0.5, 1.0], &mut out);
        assert_eq!(out[0], -p.at(0.25).2);
    }
}
