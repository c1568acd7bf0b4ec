//! Bouncing spheres (seed 001, contact with restitution): `n` spheres dropped in a column from
//! rest, the lowest `drop` above the ground plane y = 0, each next one a diameter plus `gap`
//! higher and shifted sideways by `offset` so that sphere–sphere impacts are oblique.
//! Restitution e applies above an approach speed threshold.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the bounce scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BounceParams {
    /// spheres
    #[schemars(range(min = 1, max = 100))]
    pub n: usize,
    /// sphere radius
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub radius: f64,
    /// mass per sphere
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// initial gap under the lowest
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub drop: f64,
    /// gap between spheres
    #[schemars(range(min = 0), extend("unit" = "m"))]
    pub gap: f64,
    /// sideways shift per sphere
    #[schemars(extend("unit" = "m"))]
    pub offset: f64,
    /// restitution e
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub restitution: f64,
    /// friction coefficient
    #[schemars(range(min = 0), extend("unit" = "1"))]
    pub mu: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for BounceParams {
    fn default() -> Self {
        BounceParams {
            n: 1,
            radius: 0.1,
            mass: 1.0,
            drop: 1.0,
            gap: 0.2,
            offset: 0.05,
            restitution: 0.5,
            mu: 0.3,
            gravity: 9.81,
        }
    }
}

impl Params for BounceParams {}

impl SceneParams for BounceParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<BounceParams>(
    "bounce",
    "spheres dropped in an offset column onto the ground: restitution, sphere-sphere contact (seed 001)",
);

/// Builds the bounce scene.
pub fn build(p: &BounceParams) -> Result<Scene, SceneError> {
    let (n, r, m, g) = (p.n, p.radius, p.mass, p.gravity);
    let e = p.restitution;
    if e > 1.0 {
        return Err(SceneError::Geometry { scene: "bounce", reason: format!("restitution = {e} must be in [0, 1]") });
    }
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let mut q0 = Vec::new();
    let mut shapes = Vec::new();
    for i in 0..n {
        let b = system.add_body(Body::sphere(m, r))?;
        let y = p.drop + r + i as f64 * (2.0 * r + p.gap);
        push_pose(&mut q0, pose3(Vector3::new(i as f64 * p.offset, y, 0.0), UnitQuaternion::identity()));
        shapes.push((b, Shape::Sphere { radius: r }));
    }
    system.set_contacts(ContactSet {
        shapes,
        planes: vec![Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }],
        material: Material { friction: p.mu, restitution: e, restitution_threshold: 0.5 },
        margin: 0.1 * r,
    })?;
    let top = p.drop + n as f64 * (2.0 * r + p.gap);
    Ok(Scene {
        name: "bounce".into(),
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: n as f64 * m * g * top,
            definition: "n m g x height of the top of the column".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
