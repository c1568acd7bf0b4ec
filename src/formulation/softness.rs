//! One value for "a spring on the constraint error", whichever way a formulation is parameterised.
//!
//! Every softened or stabilized constraint here makes C obey a damped spring, C̈ + 2ζω Ċ + ω² C = 0
//! per unit effective mass m_eff = 1 / (J W Jᵀ) of the row ([`Spring`]: natural frequency ω
//! \[rad/s\], damping ratio ζ). The formulations write it in four ways; the conversions:
//!
//! | parameters | formulation | as (ω, ζ) | in the other direction |
//! |---|---|---|---|
//! | k_s \[1/s²\], k_d \[1/s\] (Baumgarte feedback of an ODE) | `force` | ω = √k_s, ζ = k_d / (2√k_s) | k_s = ω², k_d = 2ζω |
//! | f \[Hz\], ζ | `soft_step` (Box2D `jointHertz`, `jointDampingRatio`) | ω = 2πf | f = ω / 2π |
//! | compliance α \[units of C per N\] | `xpbd`, `xpbd_newton` | ω = 1/√(α m_eff), ζ = 0 | α = 1 / (m_eff ω²) |
//! | Baumgarte factor β \[1\] at step h | `impulse`, `pgs` | a rigid solve with the bias of a spring: β = h ω / (2ζ + hω) | — (β fixes only ω/(2ζ + hω)) |
//!
//! At a step h the implicit (backward Euler) spring becomes the three coefficients of Box2D's
//! `b2MakeSoft` ([`Softness`]): the velocity solve J v⁺ = −bias_rate·C, its impulse scaled by
//! mass_scale and relaxed by impulse_scale·λ (Catto, "Solver2D", 2024; Box2D v3 `solver.h`):
//!   a₁ = 2ζ + hω,  a₂ = hω a₁,  a₃ = 1/(1 + a₂):  bias_rate = ω/a₁,  mass_scale = a₂a₃,
//!   impulse_scale = a₃.
//! Baumgarte's β is the rigid case: bias_rate = β/h, mass_scale = 1, impulse_scale = 0. XPBD's
//! compliance, with α̃ = α/h² added to J W Jᵀ, is the ζ = 0 spring: bias_rate = 1/h and
//! mass_scale = 1/(1 + α̃ m_eff) (Macklin et al. 2016, eq. 12), with λ restarted every substep
//! instead of relaxed by impulse_scale.

use super::Gains;

/// A damped spring on a constraint row: natural frequency ω \[rad/s\] and damping ratio ζ \[1\],
/// per unit effective mass of the row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// Natural frequency ω \[rad/s\].
    pub omega: f64,
    /// Damping ratio ζ \[1\] (1: critically damped).
    pub zeta: f64,
}

impl Spring {
    /// From Baumgarte gains k_s \[1/s²\] and k_d \[1/s\] (C̈ + k_d Ċ + k_s C = 0).
    pub fn from_gains(gains: Gains) -> Self {
        let omega = gains.ks.sqrt();
        Spring { omega, zeta: if omega > 0.0 { gains.kd / (2.0 * omega) } else { 0.0 } }
    }

    /// From a frequency f \[Hz\] and damping ratio ζ (Box2D's `jointHertz`, `jointDampingRatio`).
    pub fn from_hertz(hertz: f64, zeta: f64) -> Self {
        Spring { omega: 2.0 * std::f64::consts::PI * hertz, zeta }
    }

    /// From an XPBD compliance α \[units of C per N\] on a row of effective mass m_eff (undamped).
    pub fn from_compliance(alpha: f64, m_eff: f64) -> Self {
        Spring { omega: 1.0 / (alpha * m_eff).sqrt(), zeta: 0.0 }
    }

    /// The Baumgarte gains k_s = ω², k_d = 2ζω of the same spring.
    pub fn gains(&self) -> Gains {
        Gains { ks: self.omega * self.omega, kd: 2.0 * self.zeta * self.omega }
    }

    /// The XPBD compliance α = 1/(m_eff ω²) of the same (undamped) spring.
    pub fn compliance(&self, m_eff: f64) -> f64 {
        1.0 / (m_eff * self.omega * self.omega)
    }

    /// The soft-step coefficients of this spring integrated implicitly over a step h \[s\]
    /// (Box2D `b2MakeSoft`).
    pub fn soft(&self, h: f64) -> Softness {
        let a1 = 2.0 * self.zeta + h * self.omega;
        let a2 = h * self.omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness { bias_rate: self.omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
    }
}

/// How a velocity-level solve treats a row over one step (Box2D's `b2Softness`): target
/// J v⁺ = −bias_rate·C, impulse Δλ = mass_scale·x − impulse_scale·λ for the rigid solution x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Softness {
    /// Velocity bias per unit of C \[1/s\].
    pub bias_rate: f64,
    /// Fraction of the rigid impulse applied \[1\].
    pub mass_scale: f64,
    /// Fraction of the accumulated impulse taken back \[1\].
    pub impulse_scale: f64,
}

impl Softness {
    /// Baumgarte stabilization: a rigid solve that removes the fraction β of C over a step h
    /// \[s\] (bias_rate = β/h, mass_scale = 1, impulse_scale = 0).
    pub fn baumgarte(beta: f64, h: f64) -> Self {
        Softness { bias_rate: beta / h, mass_scale: 1.0, impulse_scale: 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        let s = Spring::from_hertz(3.0, 0.7);
        let back = Spring::from_gains(s.gains());
        assert!((back.omega - s.omega).abs() <= 1e-14 * s.omega && (back.zeta - 0.7).abs() <= 1e-14);
        let m_eff = 2.5;
        let x = Spring::from_compliance(s.compliance(m_eff), m_eff);
        assert!((x.omega - s.omega).abs() <= 1e-14 * s.omega && x.zeta == 0.0);
    }

    #[test]
    fn a_stiff_spring_tends_to_the_rigid_solve_and_xpbd_is_the_undamped_one() {
        // hω → ∞: mass_scale → 1, impulse_scale → 0, bias_rate → 1/h (β = 1).
        let h = 1.0 / 60.0;
        let rigid = Spring { omega: 1e9, zeta: 1.0 }.soft(h);
        assert!((rigid.mass_scale - 1.0).abs() < 1e-12 && rigid.impulse_scale < 1e-12);
        assert!((rigid.bias_rate * h - 1.0).abs() < 1e-6);
        // ζ = 0: bias_rate = 1/h, mass_scale = 1/(1 + α̃ m_eff) with α̃ = α/h² (XPBD, eq. 12).
        let (alpha, m_eff) = (1e-3, 2.0);
        let s = Spring::from_compliance(alpha, m_eff).soft(h);
        assert!((s.bias_rate * h - 1.0).abs() < 1e-12);
        assert!((s.mass_scale - 1.0 / (1.0 + alpha / (h * h) * m_eff)).abs() < 1e-12);
    }
}
