//! Box on a ramp (seed 001, contact with Coulomb friction): a cube resting on a plane inclined by
//! `angle` (30° by default), released at rest. It sticks when μ ≥ tan(angle) and otherwise slides
//! down with the constant acceleration g (sin α − μ cos α). Gravity along −y; the ramp rises
//! along +x: its outward normal is (−sin α, cos α, 0) through the origin.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the ramp scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RampParams {
    /// incline (30 deg)
    #[schemars(extend("unit" = "rad", "exclusiveMinimum" = 0))]
    pub angle: f64,
    /// friction coefficient
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub mu: f64,
    /// cube edge
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub size: f64,
    /// cube mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for RampParams {
    fn default() -> Self {
        RampParams { angle: 0.5235987755982988, mu: 0.3, size: 0.2, mass: 1.0, gravity: 9.81 }
    }
}

impl Params for RampParams {}

impl SceneParams for RampParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<RampParams>(
    "ramp",
    "box on a 30 deg ramp with Coulomb friction: sticks for mu >= tan 30 deg, slides otherwise (seed 001)",
);

/// The unit vector pointing down the ramp of incline `angle` \[rad\].
pub fn downhill(angle: f64) -> Vector3<f64> {
    Vector3::new(-angle.cos(), -angle.sin(), 0.0)
}

/// Builds the ramp scene.
pub fn build(p: &RampParams) -> Result<Scene, SceneError> {
    let (a, mu, s, m, g) = (p.angle, p.mu, p.size, p.mass, p.gravity);
    let normal = Vector3::new(-a.sin(), a.cos(), 0.0);
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let cube = system.add_body(Body::cuboid(m, [s, s, s]))?;
    // Resting on the ramp 1 m up the slope, turned by the incline about z.
    let pose = pose3(-downhill(a) + 0.5 * s * normal, UnitQuaternion::from_axis_angle(&Vector3::z_axis(), a));
    let mut q0 = Vec::new();
    push_pose(&mut q0, pose);
    system.set_contacts(ContactSet {
        shapes: vec![(cube, Shape::Cuboid { half: [0.5 * s; 3] })],
        planes: vec![Plane { normal: normal.into(), offset: 0.0 }],
        material: Material { friction: mu, restitution: 0.0, restitution_threshold: 1.0 },
        margin: 0.02 * s,
    })?;
    Ok(Scene {
        name: "ramp".into(),
        system,
        q0,
        v0: vec![0.0; 6],
        reference: None,
        energy_scale: EnergyScale { joules: m * g * a.sin(), definition: "m g sin(angle) x 1 m of slope".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
