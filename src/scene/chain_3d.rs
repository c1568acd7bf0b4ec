//! 3D chain of rigid links joined by ball-and-socket joints (seed 001), the first hung from a
//! world point at the origin. Released at rest in a horizontal zig-zag (link i at angle
//! ±`zigzag` from the x axis in the horizontal x–z plane), so it falls and swings out of any plane.
//! Gravity along −y. The last link carries `end_ratio` × the link mass (a heavy payload, with its
//! inertia scaled alike; 1 by default).

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::Ball;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the 3D chain scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Chain3dParams {
    /// links
    #[schemars(range(min = 1, max = 100_000))]
    pub n: usize,
    /// link length (joint to joint)
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub link: f64,
    /// link cross-section side
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub width: f64,
    /// mass per link
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// alternating angle of the links from the x axis
    #[schemars(extend("unit" = "rad"))]
    pub zigzag: f64,
    /// gravity along -y
    #[schemars(range(min = 0), extend("unit" = "m/s^2"))]
    pub gravity: f64,
    /// mass of the last link over `mass` (a heavy payload: mass ratio r)
    #[schemars(range(max = 1e6), extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub end_ratio: f64,
}

impl Default for Chain3dParams {
    fn default() -> Self {
        Chain3dParams { n: 4, link: 0.5, width: 0.05, mass: 1.0, zigzag: 0.5, gravity: 9.81, end_ratio: 1.0 }
    }
}

impl Params for Chain3dParams {}

impl SceneParams for Chain3dParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }

    fn size(&self) -> Option<super::registry::SceneSize> {
        // One ball joint (3 rows) per body; a body stores position and quaternion (7), moves in 6.
        let n = self.n;
        Some(super::registry::SceneSize { bodies: n, nq: 7 * n, ndof: 6 * n, constraints: n, rows: 3 * n })
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<Chain3dParams>(
    "chain_3d",
    "N rigid-3D links joined by ball joints, hung from the origin, released in a horizontal zig-zag (seed 001)",
);

/// Builds the 3D chain.
pub fn build(p: &Chain3dParams) -> Result<Scene, SceneError> {
    let (n, len, w, m, g) = (p.n, p.link, p.width, p.mass, p.gravity);
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let mut q0 = Vec::with_capacity(7 * n);
    let mut joint = Vector3::zeros();
    let mut prev = None;
    for i in 0..n {
        let phi = if i % 2 == 0 { p.zigzag } else { -p.zigzag };
        let dir = Vector3::new(phi.cos(), 0.0, phi.sin());
        // Ry(−φ) turns the body x axis onto dir.
        let pose = pose3(joint + 0.5 * len * dir, UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -phi));
        let mass = if i + 1 == n { m * p.end_ratio } else { m };
        let b = system.add_body(Body::cuboid(mass, [len, w, w]))?;
        push_pose(&mut q0, pose);
        let at = [joint.x, joint.y, joint.z];
        system.add_constraint(Box::new(Ball::at_point(prev, Some((b, pose.0, pose.1)), at)))?;
        prev = Some((b, pose.0, pose.1));
        joint += len * dir;
    }
    let nf = n as f64;
    Ok(Scene {
        name: "chain_3d".into(),
        system,
        q0,
        v0: vec![0.0; 6 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: m * g.max(1e-300) * len * (nf * nf / 2.0 + (p.end_ratio - 1.0) * (nf - 0.5)),
            definition: "sum of m_i g x depth of each link centre when hanging straight down (m g L (n^2/2 + (r-1)(n-1/2)), r = end_ratio)".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: {
            let end = crate::model::BodyPoint { body: n - 1, local: [0.5 * len, 0.0, 0.0] };
            ["end_x", "end_y", "end_z"]
                .iter()
                .enumerate()
                .map(|(axis, name)| Output::new(name, "m", "free end of the last link", Quantity::Point { point: end, axis }))
                .collect()
        },
    })
}
