//! A small stack of cubes on the ground (seed 001, contact): `n` equal cubes, each resting on the
//! one below, the lowest on the plane y = 0, released at rest (gravity along −y). A correct
//! contact solver keeps it standing; residual penetration and creep measure its quality.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the box stack scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "n", default: 3.0, unit: "1", domain: Domain::Integer { min: 1, max: 100 }, doc: "cubes" },
    ParamSpec { name: "size", default: 0.2, unit: "m", domain: Domain::Positive, doc: "cube edge" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass per cube" },
    ParamSpec { name: "mu", default: 0.6, unit: "1", domain: Domain::NonNegative, doc: "friction coefficient" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "gravity along -y" },
];

/// Builds the box stack.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (n, s, m, g) = (p.get_usize("n"), p.get("size"), p.get("mass"), p.get("gravity"));
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
        material: Material { friction: p.get("mu"), restitution: 0.0, restitution_threshold: 1.0 },
        margin: 0.02 * s,
    })?;
    let nf = n as f64;
    Ok(Scene {
        name: "box_stack",
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: m * g * s * nf * nf / 2.0,
            definition: "sum of m g x height of each cube centre",
        },
        parametrization: None,
    })
}
