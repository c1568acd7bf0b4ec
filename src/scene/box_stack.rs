//! A small stack of cubes on the ground (seed 001, contact): `n` equal cubes, each resting on the
//! one below, the lowest on the plane y = 0, released at rest (gravity along −y). A correct
//! contact solver keeps it standing; residual penetration and creep measure its quality.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the box stack scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BoxStackParams {
    /// cubes
    #[schemars(range(min = 1, max = 100))]
    pub n: usize,
    /// cube edge
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub size: f64,
    /// mass per cube
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// friction coefficient
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub mu: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for BoxStackParams {
    fn default() -> Self {
        BoxStackParams { n: 3, size: 0.2, mass: 1.0, mu: 0.6, gravity: 9.81 }
    }
}

impl Params for BoxStackParams {}

impl SceneParams for BoxStackParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<BoxStackParams>(
    "box_stack",
    "N cubes stacked on the ground, released at rest: contact and friction must hold it (seed 001)",
);

/// Builds the box stack.
pub fn build(p: &BoxStackParams) -> Result<Scene, SceneError> {
    let (n, s, m, g) = (p.n, p.size, p.mass, p.gravity);
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let mut q0 = Vec::new();
    let mut shapes = Vec::new();
    for i in 0..n {
        let b = system.add_body(Body::cuboid(m, [s, s, s]))?;
        push_pose(&mut q0, pose3(Vector3::new(0.0, (i as f64 + 0.5) * s, 0.0), UnitQuaternion::identity()));
        shapes.push((b, Shape::Cuboid { half: [0.5 * s; 3] }));
    }
    system.set_contacts(ContactSet {
        shapes,
        planes: vec![Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }],
        material: Material { friction: p.mu, restitution: 0.0, restitution_threshold: 1.0 },
        margin: 0.02 * s,
    })?;
    let nf = n as f64;
    Ok(Scene {
        name: "box_stack".into(),
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: m * g * s * nf * nf / 2.0,
            definition: "sum of m g x height of each cube centre".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
