//! Piston on a slider (seed 001, slider and distance joints): a crank disc hinged to the world
//! about z at the origin drives, through a rod (a rigid distance from its crank pin), a piston
//! that slides along the world x axis. Gravity along −y acts in the plane of the crank.
//!
//! Started at crank angle θ₀ with angular velocity ω₀ and the consistent piston velocity
//! ẋ_p = −r ω₀ sin θ₀ (1 + r cos θ₀ / √(L² − r² sin² θ₀)), x_p = r cos θ₀ + √(L² − r² sin² θ₀).

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, EnergyScale, Scene, SceneError, pose3, push_pose};
use crate::constraint::{Hinge, RigidDistance, Slider};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use nalgebra::{UnitQuaternion, Vector3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the piston scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PistonParams {
    /// crank radius r
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub radius: f64,
    /// rod length L > r
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub rod: f64,
    /// crank disc mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub crank_mass: f64,
    /// piston mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub piston_mass: f64,
    /// initial crank angle
    #[schemars(extend("unit" = "rad"))]
    pub theta0: f64,
    /// initial crank speed
    #[schemars(extend("unit" = "rad/s"))]
    pub omega0: f64,
    /// gravity along -y
    #[schemars(range(min = 0), extend("unit" = "m/s^2"))]
    pub gravity: f64,
}

impl Default for PistonParams {
    fn default() -> Self {
        PistonParams {
            radius: 0.2,
            rod: 0.6,
            crank_mass: 2.0,
            piston_mass: 1.0,
            theta0: 0.5,
            omega0: 5.0,
            gravity: 9.81,
        }
    }
}

impl Params for PistonParams {}

impl SceneParams for PistonParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<PistonParams>("piston", "crank on a hinge, rod (distance joint), piston on a slider (seed 001)");

/// Builds the piston mechanism.
pub fn build(p: &PistonParams) -> Result<Scene, SceneError> {
    let (r, l, th, w0, g) = (p.radius, p.rod, p.theta0, p.omega0, p.gravity);
    if l <= r {
        return Err(SceneError::Geometry {
            scene: "piston",
            reason: format!("rod = {l} m must exceed radius = {r} m for the crank to turn"),
        });
    }
    let (mc, mp) = (p.crank_mass, p.piston_mass);
    let mut system = System::new();
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Gyroscopic)?;
    let crank = system.add_body(Body::cuboid(mc, [2.0 * r, 2.0 * r, 0.05]))?;
    let piston = system.add_body(Body::cuboid(mp, [0.1, 0.1, 0.1]))?;
    let crank_pose = pose3(Vector3::zeros(), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), th));
    let root = (l * l - r * r * th.sin().powi(2)).sqrt();
    let xp = r * th.cos() + root;
    let piston_pose = pose3(Vector3::new(xp, 0.0, 0.0), UnitQuaternion::identity());
    let mut q0 = Vec::new();
    push_pose(&mut q0, crank_pose);
    push_pose(&mut q0, piston_pose);
    system.add_constraint(Box::new(Hinge::at(
        Some((crank, crank_pose.0, crank_pose.1)),
        None,
        [0.0; 3],
        [0.0, 0.0, 1.0],
    )))?;
    system.add_constraint(Box::new(RigidDistance::new(Some(crank), [r, 0.0, 0.0], Some(piston), [0.0; 3], l)))?;
    system.add_constraint(Box::new(Slider::at(
        None,
        Some((piston, piston_pose.0, piston_pose.1)),
        piston_pose.0,
        [1.0, 0.0, 0.0],
    )))?;
    let vp = -r * w0 * th.sin() * (1.0 + r * th.cos() / root);
    let iz = system.bodies()[crank].inertia[2];
    Ok(Scene {
        name: "piston".into(),
        system,
        q0,
        v0: vec![0.0, 0.0, 0.0, 0.0, 0.0, w0, vp, 0.0, 0.0, 0.0, 0.0, 0.0],
        reference: None,
        energy_scale: EnergyScale {
            joules: 0.5 * iz * w0 * w0 + (mc + mp) * g * r,
            definition: "1/2 I_crank omega0^2 + (m_crank + m_piston) g r".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: vec![Output::new("piston_x", "m", "x of the piston", Quantity::Coord { body: piston, index: 0 })],
    })
}
