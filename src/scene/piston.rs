//! Piston on a slider (seed 001, slider and distance joints): a crank disc hinged to the world
//! about z at the origin drives, through a rod (a rigid distance from its crank pin), a piston
//! that slides along the world x axis. Gravity along −y acts in the plane of the crank.
//!
//! Started at crank angle θ₀ with angular velocity ω₀ and the consistent piston velocity
//! ẋ_p = −r ω₀ sin θ₀ (1 + r cos θ₀ / √(L² − r² sin² θ₀)), x_p = r cos θ₀ + √(L² − r² sin² θ₀).

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::{Hinge, RigidDistance, Slider};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the piston scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "radius", default: 0.2, unit: "m", domain: Domain::Positive, doc: "crank radius r" },
    ParamSpec { name: "rod", default: 0.6, unit: "m", domain: Domain::Positive, doc: "rod length L > r" },
    ParamSpec { name: "crank_mass", default: 2.0, unit: "kg", domain: Domain::Positive, doc: "crank disc mass" },
    ParamSpec { name: "piston_mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "piston mass" },
    ParamSpec { name: "theta0", default: 0.5, unit: "rad", domain: Domain::Real, doc: "initial crank angle" },
    ParamSpec { name: "omega0", default: 5.0, unit: "rad/s", domain: Domain::Real, doc: "initial crank speed" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::NonNegative, doc: "gravity along -y" },
];

/// Builds the piston mechanism.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (r, l, th, w0, g) = (p.get("radius"), p.get("rod"), p.get("theta0"), p.get("omega0"), p.get("gravity"));
    if l <= r {
        return Err(SceneError::Geometry {
            scene: "piston",
            reason: format!("rod = {l} m must exceed radius = {r} m for the crank to turn"),
        });
    }
    let (mc, mp) = (p.get("crank_mass"), p.get("piston_mass"));
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let crank = system.add_body(Body::cuboid(mc, [2.0 * r, 2.0 * r, 0.05]))?;
    let piston = system.add_body(Body::cuboid(mp, [0.1, 0.1, 0.1]))?;
    let crank_pose = pose3(Vector3::zeros(), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), th));
    let root = (l * l - r * r * th.sin().powi(2)).sqrt();
    let xp = r * th.cos() + root;
    let piston_pose = pose3(Vector3::new(xp, 0.0, 0.0), UnitQuaternion::identity());
    let mut q0 = Vec::new();
    push_pose(&mut q0, crank_pose);
    push_pose(&mut q0, piston_pose);
    system.add_constraint(Box::new(Hinge::at(
        Some((crank, crank_pose.0, crank_pose.1)),
        None,
        [0.0; 3],
        [0.0, 0.0, 1.0],
    )))?;
    system.add_constraint(Box::new(RigidDistance::new(Some(crank), [r, 0.0, 0.0], Some(piston), [0.0; 3], l)))?;
    system.add_constraint(Box::new(Slider::at(
        None,
        Some((piston, piston_pose.0, piston_pose.1)),
        piston_pose.0,
        [1.0, 0.0, 0.0],
    )))?;
    let vp = -r * w0 * th.sin() * (1.0 + r * th.cos() / root);
    let iz = system.bodies()[crank].inertia[2];
    Ok(Scene {
        name: "piston",
        system,
        q0,
        v0: vec![0.0, 0.0, 0.0, 0.0, 0.0, w0, vp, 0.0, 0.0, 0.0, 0.0, 0.0],
        reference: None,
        energy_scale: EnergyScale {
            joules: 0.5 * iz * w0 * w0 + (mc + mp) * g * r,
            definition: "1/2 I_crank omega0^2 + (m_crank + m_piston) g r",
        },
        parametrization: None,
    })
}
