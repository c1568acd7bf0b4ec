//! Bead on a circle (seed 002): a unit particle on the circle ½(|p|² − R²) = 0 under gravity,
//! released at rest from angle `angle0` (measured from +x, counter-clockwise; seed 002 starts at
//! p = (1, 0)). Reference: it is a pendulum of length R, so the exact θ(t) of [`super::pendulum`].

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, AngleChain, EnergyScale, Reference, Scene, SceneError};
use crate::constraint::Circle;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the bead scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BeadParams {
    /// circle radius R
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub radius: f64,
    /// bead mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// downward gravity g
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
    /// initial position angle from +x
    #[schemars(extend("unit" = "rad"))]
    pub angle0: f64,
}

impl Default for BeadParams {
    fn default() -> Self {
        BeadParams { radius: 1.0, mass: 1.0, gravity: 9.81, angle0: 0.0 }
    }
}

impl Params for BeadParams {}

impl SceneParams for BeadParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<BeadParams>("bead", "bead on a circle under gravity (seed 002)");

/// Builds the bead scene.
pub fn build(p: &BeadParams) -> Result<Scene, SceneError> {
    let (r, m, g, a0) = (p.radius, p.mass, p.gravity, p.angle0);
    let mut system = System::new();
    let bead = system.add_body(Body::particle2(m))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Circle::new(bead, [0.0, 0.0], r)))?;
    Ok(Scene {
        name: "bead".into(),
        system,
        q0: vec![r * a0.cos(), r * a0.sin()],
        v0: vec![0.0, 0.0],
        // The bead is a pendulum of length R about the circle's centre, released at rest from
        // θ₀ = angle0 + π/2 measured from the downward vertical.
        reference: {
            let theta0 = (a0 + std::f64::consts::FRAC_PI_2 + std::f64::consts::PI)
                .rem_euclid(2.0 * std::f64::consts::PI)
                - std::f64::consts::PI;
            (theta0.abs() < std::f64::consts::PI - 1e-9).then_some(Reference::Pendulum {
                length: r,
                gravity: g,
                theta0,
            })
        },
        energy_scale: EnergyScale { joules: m * g * r, definition: "m g R".into() },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], false, vec![r]))),
        branch: Vec::new(),
        outputs: vec![Output::new(
            "theta",
            "rad",
            "angle of the bead from the downward vertical through the circle's centre",
            Quantity::Swing { from: None, to: crate::model::BodyPoint::center(bead) },
        )],
    })
}
