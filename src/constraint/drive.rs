//! `drive` — a driving (rheonomic) constraint: one body coordinate prescribed as a function of
//! time, C(q, t) = q_i − f(t), e.g. a crank turned at a constant rate, θ(t) = θ₀ + ω t.
//!
//! Time reaches the constraint as the coordinate s of the scene's clock ([`BodyKind::Clock`]:
//! ṡ = 1, W = 0, so no constraint force moves it and s = t to rounding). In the extended
//! coordinates (q, s) the constraint is an ordinary scleronomic one,
//!
//!   C = q_i − f(s),   J = [eᵢ, −f′(s)],   J̇ v = −f″(s) ṡ²,
//!
//! whose velocity and acceleration conditions J v = 0 and J v̇ + J̇ v = 0 are exactly the rheonomic
//! ones, q̇_i − f′(t) = 0 and q̈_i − f″(t) = 0 (the ∂C/∂t and ∂²C/∂t² terms; Haug, Computer-Aided
//! Kinematics and Dynamics of Mechanical Systems, 1989, §3.3 on driving constraints). So every
//! formulation built on J, J̇ v and W runs driven mechanisms unchanged; the clock's own row in
//! W Jᵀ is zero. The profile is
//!
//!   f(t) = start + rate · t + amplitude · (sin(ω t + φ) − sin φ)        (f(0) = start).

use super::{Attach, Constraint};
use crate::model::BodyKind;

/// The prescribed motion f(t) of a driven coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
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

impl Profile {
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

/// Body coordinate `index` of `body` driven along a [`Profile`] of the clock's time.
#[derive(Clone, Debug)]
pub struct Drive {
    attach: Attach,
    index: usize,
    /// The prescribed motion.
    pub profile: Profile,
}

impl Drive {
    /// Drives coordinate `index` of body `body` (of kind `kind`; a position or planar angle, whose
    /// q and v entries coincide) by `profile` of the time held by body `clock`.
    pub fn new(body: usize, kind: BodyKind, index: usize, clock: usize, profile: Profile) -> Self {
        assert!(kind != BodyKind::Clock && index < if kind == BodyKind::Rigid3 { 3 } else { kind.dof() });
        Drive { attach: Attach::two(body, kind, clock, BodyKind::Clock), index, profile }
    }

    fn body_dof(&self) -> usize {
        self.attach.kinds()[0].dof()
    }
}

impl Constraint for Drive {
    fn kind(&self) -> &'static str {
        "drive"
    }
    fn rows(&self) -> usize {
        1
    }
    fn attach(&self) -> &Attach {
        &self.attach
    }
    fn eval(&self, q: &[f64], c: &mut [f64]) {
        let s = q[self.attach.kinds()[0].nq()];
        c[0] = q[self.index] - self.profile.at(s).0;
    }
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let s = q[self.attach.kinds()[0].nq()];
        j.fill(0.0);
        j[self.index] = 1.0;
        j[self.body_dof()] = -self.profile.at(s).1;
    }
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        let s = q[self.attach.kinds()[0].nq()];
        let sdot = v[self.body_dof()];
        out[0] = -self.profile.at(s).2 * sdot * sdot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_and_jdot_v_are_the_derivatives_of_c() {
        // A rigid-2D body's angle driven by a ramp plus a sine; central differences with step δ
        // have truncation δ²/6 · |f‴| ≈ 1e-10 · 8 and rounding ε / δ ≈ 1e-11.
        let p = Profile { start: 0.3, rate: 2.0, amplitude: 0.5, omega: 2.0, phase: 0.4 };
        let d = Drive::new(0, BodyKind::Rigid2, 2, 1, p);
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
}
