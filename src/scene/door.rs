//! Hinged door (seed 001, hinge joint): a uniform slab hinged to the world along one edge. The
//! hinge axis is tilted by `tilt` from the vertical (within the x–y plane) so that gravity (−y)
//! swings the door like a pendulum; released at rest 90° from its lowest position.
//!
//! Body frame: thickness along x, height along y (the hinge axis), width along z; the hinge edge
//! is at body z = −width/2 and passes through the world origin.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::Hinge;
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the door scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "width", default: 0.8, unit: "m", domain: Domain::Positive, doc: "door width" },
    ParamSpec { name: "height", default: 2.0, unit: "m", domain: Domain::Positive, doc: "door height" },
    ParamSpec { name: "thickness", default: 0.04, unit: "m", domain: Domain::Positive, doc: "door thickness" },
    ParamSpec { name: "mass", default: 20.0, unit: "kg", domain: Domain::Positive, doc: "door mass" },
    ParamSpec { name: "tilt", default: 0.2, unit: "rad", domain: Domain::Real, doc: "hinge axis tilt from vertical" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::NonNegative, doc: "gravity along -y" },
];

/// Builds the door.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (w, h, t, m, tilt, g) =
        (p.get("width"), p.get("height"), p.get("thickness"), p.get("mass"), p.get("tilt"), p.get("gravity"));
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
        name: "door",
        system,
        q0,
        v0: vec![0.0; 6],
        reference: None,
        energy_scale: EnergyScale { joules: m * g.max(1e-300) * 0.5 * w, definition: "m g width / 2" },
        parametrization: None,
    })
}
