//! Hinged door (seed 001, hinge joint): a uniform slab hinged to the world along one edge. The
//! hinge axis is tilted by `tilt` from the vertical (within the x–y plane) so that gravity (−y)
//! swings the door like a pendulum; released at rest 90° from its lowest position.
//!
//! Body frame: thickness along x, height along y (the hinge axis), width along z; the hinge edge
//! is at body z = −width/2 and passes through the world origin.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::Hinge;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the door scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DoorParams {
    /// door width
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub width: f64,
    /// door height
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub height: f64,
    /// door thickness
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub thickness: f64,
    /// door mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// hinge axis tilt from vertical
    #[schemars(extend("unit" = "rad"))]
    pub tilt: f64,
    /// gravity along -y
    #[schemars(range(min = 0), extend("unit" = "m/s^2"))]
    pub gravity: f64,
}

impl Default for DoorParams {
    fn default() -> Self {
        DoorParams { width: 0.8, height: 2.0, thickness: 0.04, mass: 20.0, tilt: 0.2, gravity: 9.81 }
    }
}

impl Params for DoorParams {}

impl SceneParams for DoorParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<DoorParams>(
    "door",
    "rigid-3D door on a hinge tilted from vertical, swinging under gravity (seed 001)",
);

/// Builds the door.
pub fn build(p: &DoorParams) -> Result<Scene, SceneError> {
    let (w, h, t, m, tilt, g) = (p.width, p.height, p.thickness, p.mass, p.tilt, p.gravity);
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let door = system.add_body(Body::cuboid(m, [t, h, w]))?;
    // Rz(−tilt) turns the body y axis onto the hinge axis (sin tilt, cos tilt, 0).
    let rot = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), -tilt);
    let axis = rot * Vector3::y();
    let pose = pose3(rot * Vector3::new(0.0, 0.0, 0.5 * w), rot);
    let mut q0 = Vec::new();
    push_pose(&mut q0, pose);
    system.add_constraint(Box::new(Hinge::at(Some((door, pose.0, pose.1)), None, [0.0; 3], axis.into())))?;
    Ok(Scene {
        name: "door".into(),
        system,
        q0,
        v0: vec![0.0; 6],
        reference: None,
        energy_scale: EnergyScale { joules: m * g.max(1e-300) * 0.5 * w, definition: "m g width / 2".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
