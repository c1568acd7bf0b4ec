//! Welded compound pendulum (seed 001, fixed and ball joints): a vertical bar hangs from a world
//! ball joint at the origin, and a cross bar is welded to its lower end, off to one side, so the
//! compound body is asymmetric. Released at rest with the assembly turned by `angle0` about the
//! horizontal axis (1, 0, 1)/√2: it swings and spins in 3D. Gravity along −y.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::{Ball, Weld};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{Unit, UnitQuaternion, Vector3};

/// Parameters of the welded pendulum scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "length", default: 1.0, unit: "m", domain: Domain::Positive, doc: "hanging bar length" },
    ParamSpec { name: "arm", default: 0.6, unit: "m", domain: Domain::Positive, doc: "welded cross bar length" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass of each bar" },
    ParamSpec { name: "angle0", default: 0.8, unit: "rad", domain: Domain::Real, doc: "release angle" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::NonNegative, doc: "gravity along -y" },
];

/// Builds the welded pendulum.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (len, arm, m, g) = (p.get("length"), p.get("arm"), p.get("mass"), p.get("gravity"));
    let turn = UnitQuaternion::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 0.0, 1.0)), p.get("angle0"));
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let bar = system.add_body(Body::cuboid(m, [0.05, len, 0.05]))?;
    let cross = system.add_body(Body::cuboid(m, [0.05, 0.05, arm]))?;
    // Hanging configuration, then turned as a whole about the pivot.
    let bar_pose = pose3(turn * Vector3::new(0.0, -0.5 * len, 0.0), turn);
    let cross_pose = pose3(turn * Vector3::new(0.0, -len - 0.025, 0.5 * arm), turn);
    let weld_at = turn * Vector3::new(0.0, -len, 0.0);
    let mut q0 = Vec::new();
    push_pose(&mut q0, bar_pose);
    push_pose(&mut q0, cross_pose);
    system.add_constraint(Box::new(Ball::at_point(Some((bar, bar_pose.0, bar_pose.1)), None, [0.0; 3])))?;
    system.add_constraint(Box::new(Weld::at(
        Some((bar, bar_pose.0, bar_pose.1)),
        Some((cross, cross_pose.0, cross_pose.1)),
        weld_at.into(),
    )))?;
    Ok(Scene {
        name: "welded_pendulum",
        system,
        q0,
        v0: vec![0.0; 12],
        reference: None,
        energy_scale: EnergyScale { joules: 2.0 * m * g.max(1e-300) * len, definition: "2 m g length" },
        parametrization: None,
    })
}
