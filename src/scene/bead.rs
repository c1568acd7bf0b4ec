//! Bead on a circle (seed 002): a unit particle on the circle ½(|p|² − R²) = 0 under gravity,
//! released at rest from angle `angle0` (measured from +x, counter-clockwise; seed 002 starts at
//! p = (1, 0)). Reference: it is a pendulum of length R, so the exact θ(t) of [`super::pendulum`].

use super::{AngleChain, EnergyScale, Reference, Scene, SceneError};
use crate::constraint::Circle;
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};

/// Parameters of the bead scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "radius", default: 1.0, unit: "m", domain: Domain::Positive, doc: "circle radius R" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "bead mass" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "downward gravity g" },
    ParamSpec {
        name: "angle0",
        default: 0.0,
        unit: "rad",
        domain: Domain::Real,
        doc: "initial position angle from +x",
    },
];

/// Builds the bead scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (r, m, g, a0) = (p.get("radius"), p.get("mass"), p.get("gravity"), p.get("angle0"));
    let mut system = System::new();
    let bead = system.add_body(Body::particle2(m))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Circle::new(bead, [0.0, 0.0], r)))?;
    Ok(Scene {
        name: "bead",
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
        energy_scale: EnergyScale { joules: m * g * r, definition: "m g R" },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], false, vec![r]))),
    })
}
