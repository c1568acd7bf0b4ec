//! 3D chain of rigid links joined by ball-and-socket joints (seed 001), the first hung from a
//! world point at the origin. Released at rest in a horizontal zig-zag (link i at angle
//! ±`zigzag` from the x axis in the horizontal x–z plane), so it falls and swings out of any plane.
//! Gravity along −y.

use super::{EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::Ball;
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use nalgebra::{UnitQuaternion, Vector3};

/// Parameters of the 3D chain scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "n", default: 4.0, unit: "1", domain: Domain::Integer { min: 1, max: 100_000 }, doc: "links" },
    ParamSpec { name: "link", default: 0.5, unit: "m", domain: Domain::Positive, doc: "link length (joint to joint)" },
    ParamSpec { name: "width", default: 0.05, unit: "m", domain: Domain::Positive, doc: "link cross-section side" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass per link" },
    ParamSpec {
        name: "zigzag",
        default: 0.5,
        unit: "rad",
        domain: Domain::Real,
        doc: "alternating angle of the links from the x axis",
    },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::NonNegative, doc: "gravity along -y" },
];

/// Builds the 3D chain.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (n, len, w, m, g) = (p.get_usize("n"), p.get("link"), p.get("width"), p.get("mass"), p.get("gravity"));
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let mut q0 = Vec::with_capacity(7 * n);
    let mut joint = Vector3::zeros();
    let mut prev = None;
    for i in 0..n {
        let phi = if i % 2 == 0 { p.get("zigzag") } else { -p.get("zigzag") };
        let dir = Vector3::new(phi.cos(), 0.0, phi.sin());
        // Ry(−φ) turns the body x axis onto dir.
        let pose = pose3(joint + 0.5 * len * dir, UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -phi));
        let b = system.add_body(Body::cuboid(m, [len, w, w]))?;
        push_pose(&mut q0, pose);
        let at = [joint.x, joint.y, joint.z];
        system.add_constraint(Box::new(Ball::at_point(prev, Some((b, pose.0, pose.1)), at)))?;
        prev = Some((b, pose.0, pose.1));
        joint += len * dir;
    }
    let nf = n as f64;
    Ok(Scene {
        name: "chain_3d",
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: m * g.max(1e-300) * len * nf * nf / 2.0,
            definition: "sum of m g x depth of each link centre when hanging straight down (m g L n^2 / 2)",
        },
        parametrization: None,
    })
}
