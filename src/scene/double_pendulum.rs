//! Double pendulum: two point masses, a rod from a world pivot at the origin to the first and a rod
//! from the first to the second; released at rest from angles θ₁, θ₂ (from the downward vertical).
//! Chaotic for large angles; no closed-form reference.

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, AngleChain, EnergyScale, Scene, SceneError};
use crate::constraint::Distance;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the double pendulum scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DoublePendulumParams {
    /// upper rod length
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub length1: f64,
    /// lower rod length
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub length2: f64,
    /// upper mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass1: f64,
    /// lower mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass2: f64,
    /// upper rod angle from the downward vertical
    #[schemars(extend("unit" = "rad"))]
    pub theta1: f64,
    /// lower rod angle from the downward vertical
    #[schemars(extend("unit" = "rad"))]
    pub theta2: f64,
    /// downward gravity g
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for DoublePendulumParams {
    fn default() -> Self {
        DoublePendulumParams {
            length1: 1.0,
            length2: 1.0,
            mass1: 1.0,
            mass2: 1.0,
            theta1: 1.0,
            theta2: 0.5,
            gravity: 9.81,
        }
    }
}

impl Params for DoublePendulumParams {}

impl SceneParams for DoublePendulumParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<DoublePendulumParams>("double_pendulum", "two point masses, two rods");

/// Builds the double pendulum scene.
pub fn build(p: &DoublePendulumParams) -> Result<Scene, SceneError> {
    let (l1, l2, m1, m2) = (p.length1, p.length2, p.mass1, p.mass2);
    let (t1, t2, g) = (p.theta1, p.theta2, p.gravity);
    let mut system = System::new();
    let a = system.add_body(Body::particle2(m1))?;
    let b = system.add_body(Body::particle2(m2))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Distance::to_anchor(a, 2, [0.0; 3], l1)))?;
    system.add_constraint(Box::new(Distance::between(b, a, 2, l2)))?;
    let p1 = [l1 * t1.sin(), -l1 * t1.cos()];
    let p2 = [p1[0] + l2 * t2.sin(), p1[1] - l2 * t2.cos()];
    Ok(Scene {
        name: "double_pendulum".into(),
        system,
        q0: vec![p1[0], p1[1], p2[0], p2[1]],
        v0: vec![0.0; 4],
        reference: None,
        energy_scale: EnergyScale { joules: g * (m1 * l1 + m2 * (l1 + l2)), definition: "g (m1 L1 + m2 (L1 + L2))".into() },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], false, vec![l1, l2]))),
        branch: Vec::new(),
        outputs: vec![
            Output::new("theta1", "rad", "angle of rod 1 from the downward vertical", Quantity::Swing { from: None, to: crate::model::BodyPoint::center(a) }),
            Output::new("theta2", "rad", "angle of rod 2 from the downward vertical (absolute)", Quantity::Swing { from: Some(crate::model::BodyPoint::center(a)), to: crate::model::BodyPoint::center(b) }),
            Output::new("x1", "m", "bob 1 x", Quantity::Coord { body: a, index: 0 }),
            Output::new("y1", "m", "bob 1 y", Quantity::Coord { body: a, index: 1 }),
            Output::new("x2", "m", "bob 2 x", Quantity::Coord { body: b, index: 0 }),
            Output::new("y2", "m", "bob 2 y", Quantity::Coord { body: b, index: 1 }),
        ],
    })
}
