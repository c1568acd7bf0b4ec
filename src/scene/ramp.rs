//! Box on a ramp (seed 001, contact with Coulomb friction): a cube resting on a plane inclined by
//! `angle` (30° by default), released at rest. It sticks when μ ≥ tan(angle) and otherwise slides
//! down with the constant acceleration g (sin α − μ cos α). Gravity along −y; the ramp rises
//! along +x: its outward normal is (−sin α, cos α, 0) through the origin.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the ramp scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "angle",
        default: 0.5235987755982988,
        unit: "rad",
        domain: Domain::Positive,
        doc: "incline (30 deg)",
    },
    ParamSpec { name: "mu", default: 0.3, unit: "1", domain: Domain::NonNegative, doc: "friction coefficient" },
    ParamSpec { name: "size", default: 0.2, unit: "m", domain: Domain::Positive, doc: "cube edge" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "cube mass" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "gravity along -y" },
];

/// The unit vector pointing down the ramp of incline `angle` \[rad\].
pub fn downhill(angle: f64) -> Vector3<f64> {
    Vector3::new(-angle.cos(), -angle.sin(), 0.0)
}

/// Builds the ramp scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (a, mu, s, m, g) = (p.get("angle"), p.get("mu"), p.get("size"), p.get("mass"), p.get("gravity"));
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
        name: "ramp",
        system,
        q0,
        v0: vec![0.0; 6],
        reference: None,
        energy_scale: EnergyScale { joules: m * g * a.sin(), definition: "m g sin(angle) x 1 m of slope" },
        parametrization: None,
    })
}
