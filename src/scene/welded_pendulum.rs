//! Welded compound pendulum (seed 001, fixed and ball joints): a vertical bar hangs from a world
//! ball joint at the origin, and a cross bar is welded to its lower end, off to one side, so the
//! compound body is asymmetric. Released at rest with the assembly turned by `angle0` about the
//! horizontal axis (1, 0, 1)/√2: it swings and spins in 3D. Gravity along −y.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::{Ball, Weld};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{Unit, UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the welded pendulum scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WeldedPendulumParams {
    /// hanging bar length
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub length: f64,
    /// welded cross bar length
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub arm: f64,
    /// mass of each bar
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// release angle
    #[schemars(extend("unit" = "rad"))]
    pub angle0: f64,
    /// gravity along -y
    #[schemars(range(min = 0), extend("unit" = "m/s^2"))]
    pub gravity: f64,
}

impl Default for WeldedPendulumParams {
    fn default() -> Self {
        WeldedPendulumParams { length: 1.0, arm: 0.6, mass: 1.0, angle0: 0.8, gravity: 9.81 }
    }
}

impl Params for WeldedPendulumParams {}

impl SceneParams for WeldedPendulumParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<WeldedPendulumParams>(
    "welded_pendulum",
    "bar on a ball joint with a cross bar welded to it: asymmetric 3D compound pendulum (seed 001)",
);

/// Builds the welded pendulum.
pub fn build(p: &WeldedPendulumParams) -> Result<Scene, SceneError> {
    let (len, arm, m, g) = (p.length, p.arm, p.mass, p.gravity);
    let turn = UnitQuaternion::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 0.0, 1.0)), p.angle0);
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
        name: "welded_pendulum".into(),
        system,
        q0,
        v0: vec![0.0; 12],
        reference: None,
        energy_scale: EnergyScale { joules: 2.0 * m * g.max(1e-300) * len, definition: "2 m g length".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
