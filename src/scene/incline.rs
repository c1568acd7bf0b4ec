//! Bead on an inclined straight wire: a particle-2D on the line through the origin at angle α
//! below the horizontal (`line`: 1 row, the offset normal to the wire \[m\]), released at rest at
//! the origin under gravity. It slides with constant acceleration g sin α, s(t) = ½ g sin α t²,
//! the constraint force is the constant normal force m g cos α, and energy is conserved. The only
//! registered scene with the `line` constraint.

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, EnergyScale, Scene, SceneError};
use crate::constraint::Line;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the incline scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct InclineParams {
    /// angle of the wire below the horizontal, in (0, pi/2)
    #[schemars(extend("unit" = "rad", "exclusiveMinimum" = 0, "exclusiveMaximum" = std::f64::consts::FRAC_PI_2))]
    pub angle: f64,
    /// bead mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// downward gravity g
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for InclineParams {
    fn default() -> Self {
        InclineParams { angle: 0.5, mass: 1.0, gravity: 9.81 }
    }
}

impl Params for InclineParams {}

impl SceneParams for InclineParams {
    fn build(&self) -> Result<Scene, SceneError> {
        let (a, m, g) = (self.angle, self.mass, self.gravity);
        let mut system = System::new();
        let bead = system.add_body(Body::particle2(m))?;
        system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
        system.add_constraint(Box::new(Line::new(bead, 2, [0.0; 3], [a.cos(), -a.sin(), 0.0])))?;
        Ok(Scene {
            name: "incline".into(),
            system,
            q0: vec![0.0, 0.0],
            v0: vec![0.0, 0.0],
            reference: None,
            // The energy turned into motion in the first second: m g (½ g sin α · 1 s²) sin α.
            energy_scale: EnergyScale { joules: 0.5 * m * g * g * a.sin() * a.sin(), definition: "m g^2 sin^2(alpha) (1 s)^2 / 2".into() },
            parametrization: None,
            branch: Vec::new(),
            outputs: vec![
            Output::new("x", "m", "bead x", Quantity::Coord { body: bead, index: 0 }),
            Output::new("y", "m", "bead y", Quantity::Coord { body: bead, index: 1 }),
        ],
        })
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<InclineParams>(
    "incline",
    "bead sliding down an inclined straight wire (the line constraint): constant acceleration g sin(angle)",
);
