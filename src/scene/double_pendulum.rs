//! Double pendulum: two point masses, a rod from a world pivot at the origin to the first and a rod
//! from the first to the second; released at rest from angles θ₁, θ₂ (from the downward vertical).
//! Chaotic for large angles; no closed-form reference.

use super::{AngleChain, EnergyScale, Scene, SceneError};
use crate::constraint::Distance;
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};

/// Parameters of the double pendulum scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "length1", default: 1.0, unit: "m", domain: Domain::Positive, doc: "upper rod length" },
    ParamSpec { name: "length2", default: 1.0, unit: "m", domain: Domain::Positive, doc: "lower rod length" },
    ParamSpec { name: "mass1", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "upper mass" },
    ParamSpec { name: "mass2", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "lower mass" },
    ParamSpec {
        name: "theta1",
        default: 1.0,
        unit: "rad",
        domain: Domain::Real,
        doc: "upper rod angle from the downward vertical",
    },
    ParamSpec {
        name: "theta2",
        default: 0.5,
        unit: "rad",
        domain: Domain::Real,
        doc: "lower rod angle from the downward vertical",
    },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "downward gravity g" },
];

/// Builds the double pendulum scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (l1, l2, m1, m2) = (p.get("length1"), p.get("length2"), p.get("mass1"), p.get("mass2"));
    let (t1, t2, g) = (p.get("theta1"), p.get("theta2"), p.get("gravity"));
    let mut system = System::new();
    let a = system.add_body(Body::particle2(m1))?;
    let b = system.add_body(Body::particle2(m2))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Distance::to_anchor(a, 2, [0.0; 3], l1)))?;
    system.add_constraint(Box::new(Distance::between(b, a, 2, l2)))?;
    let p1 = [l1 * t1.sin(), -l1 * t1.cos()];
    let p2 = [p1[0] + l2 * t2.sin(), p1[1] - l2 * t2.cos()];
    Ok(Scene {
        name: "double_pendulum",
        system,
        q0: vec![p1[0], p1[1], p2[0], p2[1]],
        v0: vec![0.0; 4],
        reference: None,
        energy_scale: EnergyScale { joules: g * (m1 * l1 + m2 * (l1 + l2)), definition: "g (m1 L1 + m2 (L1 + L2))" },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], false, vec![l1, l2]))),
    })
}
