//! Bouncing spheres (seed 001, contact with restitution): `n` spheres dropped in a column from
//! rest, the lowest `drop` above the ground plane y = 0, each next one a diameter plus `gap`
//! higher and shifted sideways by `offset` so that sphere–sphere impacts are oblique.
//! Restitution e applies above an approach speed threshold.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the bounce scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "n", default: 1.0, unit: "1", domain: Domain::Integer { min: 1, max: 100 }, doc: "spheres" },
    ParamSpec { name: "radius", default: 0.1, unit: "m", domain: Domain::Positive, doc: "sphere radius" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass per sphere" },
    ParamSpec { name: "drop", default: 1.0, unit: "m", domain: Domain::Positive, doc: "initial gap under the lowest" },
    ParamSpec { name: "gap", default: 0.2, unit: "m", domain: Domain::NonNegative, doc: "gap between spheres" },
    ParamSpec { name: "offset", default: 0.05, unit: "m", domain: Domain::Real, doc: "sideways shift per sphere" },
    ParamSpec { name: "restitution", default: 0.5, unit: "1", domain: Domain::NonNegative, doc: "restitution e" },
    ParamSpec { name: "mu", default: 0.3, unit: "1", domain: Domain::NonNegative, doc: "friction coefficient" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "gravity along -y" },
];

/// Builds the bounce scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (n, r, m, g) = (p.get_usize("n"), p.get("radius"), p.get("mass"), p.get("gravity"));
    let e = p.get("restitution");
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
        let y = p.get("drop") + r + i as f64 * (2.0 * r + p.get("gap"));
        push_pose(&mut q0, pose3(Vector3::new(i as f64 * p.get("offset"), y, 0.0), UnitQuaternion::identity()));
        shapes.push((b, Shape::Sphere { radius: r }));
    }
    system.set_contacts(ContactSet {
        shapes,
        planes: vec![Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }],
        material: Material { friction: p.get("mu"), restitution: e, restitution_threshold: 0.5 },
        margin: 0.1 * r,
    })?;
    let top = p.get("drop") + n as f64 * (2.0 * r + p.get("gap"));
    Ok(Scene {
        name: "bounce",
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: n as f64 * m * g * top,
            definition: "n m g x height of the top of the column",
        },
        parametrization: None,
    })
}
