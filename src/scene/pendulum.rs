//! Simple pendulum: a point mass on a massless rod of length L from a world pivot at the origin,
//! released at rest from angle θ₀ (from the downward vertical).
//!
//! Reference: the exact period T = 4 √(L/g) K(sin²(θ₀/2)), K the complete elliptic integral of the
//! first kind (e.g. Landau & Lifshitz, Mechanics §11, problem 1; DLMF 19.2.8 for K).

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, AngleChain, EnergyScale, Reference, Scene, SceneError};
use crate::constraint::Distance;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use crate::special::{ellip_k, jacobi_sn};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the pendulum scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PendulumParams {
    /// rod length L
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub length: f64,
    /// release angle from the downward vertical, |theta0| < pi
    #[schemars(extend("unit" = "rad"))]
    pub theta0: f64,
    /// bob mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// downward gravity g
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
    /// initial angular velocity (the exact reference needs 0)
    #[schemars(extend("unit" = "rad/s"))]
    pub omega0: f64,
}

impl Default for PendulumParams {
    fn default() -> Self {
        PendulumParams { length: 1.0, theta0: 0.5, mass: 1.0, gravity: 9.81, omega0: 0.0 }
    }
}

impl Params for PendulumParams {}

impl SceneParams for PendulumParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<PendulumParams>("pendulum", "simple pendulum; reference: exact period via K(k^2)");

/// The exact period \[s\] of a pendulum of length `l` \[m\] released at rest from `theta0` \[rad\]
/// under gravity `g` \[m/s²\].
pub fn exact_period(l: f64, g: f64, theta0: f64) -> f64 {
    let k = (0.5 * theta0).sin();
    4.0 * (l / g).sqrt() * ellip_k(k * k)
}

/// The exact angle θ(t) \[rad\] from the downward vertical of that pendulum at time `t` \[s\]:
/// θ(t) = 2 asin(k sn(K(k²) − ω t | k²)), k = sin(θ₀/2), ω = √(g/L).
pub fn exact_angle(l: f64, g: f64, theta0: f64, t: f64) -> f64 {
    let k = (0.5 * theta0).sin();
    let m = k * k;
    2.0 * (k * jacobi_sn(ellip_k(m) - (g / l).sqrt() * t, m)).asin()
}

/// Builds the pendulum scene.
pub fn build(p: &PendulumParams) -> Result<Scene, SceneError> {
    let (l, t0, m, g, w0) = (p.length, p.theta0, p.mass, p.gravity, p.omega0);
    if t0.abs() >= std::f64::consts::PI {
        return Err(SceneError::Geometry {
            scene: "pendulum",
            reason: format!(
                "parameter `theta0` = {t0} is invalid; expected |theta0| < pi (an inverted start has no period)"
            ),
        });
    }
    let mut system = System::new();
    let bob = system.add_body(Body::particle2(m))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Distance::to_anchor(bob, 2, [0.0; 3], l)))?;
    Ok(Scene {
        name: "pendulum".into(),
        system,
        q0: vec![l * t0.sin(), -l * t0.cos()],
        v0: vec![l * w0 * t0.cos(), l * w0 * t0.sin()],
        // The closed form is for a release at rest.
        reference: (w0 == 0.0).then_some(Reference::Pendulum { length: l, gravity: g, theta0: t0 }),
        energy_scale: EnergyScale { joules: m * g * l, definition: "m g L".into() },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], false, vec![l]))),
        branch: Vec::new(),
        outputs: vec![
            Output::new("theta", "rad", "angle of the rod from the downward vertical", Quantity::Swing { from: None, to: crate::model::BodyPoint::center(bob) }),
            Output::new("x", "m", "bob x", Quantity::Coord { body: bob, index: 0 }),
            Output::new("y", "m", "bob y", Quantity::Coord { body: bob, index: 1 }),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_angle_starts_at_theta0_and_returns_after_one_period() {
        let (l, g, t0) = (1.3, 9.81, 2.0);
        let t = exact_period(l, g, t0);
        assert!((exact_angle(l, g, t0, 0.0) - t0).abs() < 1e-12);
        assert!((exact_angle(l, g, t0, 0.5 * t) + t0).abs() < 1e-12);
        assert!((exact_angle(l, g, t0, t) - t0).abs() < 1e-12);
        assert!(exact_angle(l, g, t0, 0.25 * t).abs() < 1e-12);
    }

    #[test]
    fn small_angle_period_tends_to_two_pi_sqrt_l_over_g() {
        // T = 2π√(L/g)(1 + θ₀²/16 + …): at θ₀ = 1e-4 the correction is 6e-10 relative.
        let t = exact_period(2.0, 9.81, 1e-4);
        let t_small = 2.0 * std::f64::consts::PI * (2.0f64 / 9.81).sqrt();
        assert!((t / t_small - 1.0).abs() < 1e-9);
    }
}
