//! Four-bar linkage: a closed loop of three rigid bars (crank, coupler, rocker) between two world
//! pivots O₂ = (0, 0) and O₄ = (d, 0). Four revolute joints (crank–world at O₂, crank–coupler at A,
//! coupler–rocker at B, rocker–world at O₄): 8 rows on 9 coordinates, one degree of freedom.
//! Starts at rest at crank angle φ₀ in the elbow-up assembly; gravity −y, optional crank torque.
//!
//! Assembly: A = a (cos φ₀, sin φ₀); B is the intersection of the circles |B − A| = b and
//! |B − O₄| = c on the left of the directed line A → O₄ (the upper branch for the defaults).

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, EnergyScale, Scene, SceneError};
use crate::constraint::Revolute;
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the four-bar scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FourBarParams {
    /// distance between the world pivots d
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub ground: f64,
    /// crank length a
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub crank: f64,
    /// coupler length b
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub coupler: f64,
    /// rocker length c
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub rocker: f64,
    /// initial crank angle
    #[schemars(extend("unit" = "rad"))]
    pub phi0: f64,
    /// mass per length of every bar
    #[schemars(extend("unit" = "kg/m", "exclusiveMinimum" = 0))]
    pub density: f64,
    /// constant torque on the crank
    #[schemars(extend("unit" = "N m"))]
    pub torque: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for FourBarParams {
    fn default() -> Self {
        FourBarParams {
            ground: 1.0,
            crank: 0.4,
            coupler: 1.2,
            rocker: 0.8,
            phi0: 1.0,
            density: 1.0,
            torque: 0.0,
            gravity: 9.81,
        }
    }
}

impl Params for FourBarParams {}

impl SceneParams for FourBarParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<FourBarParams>("four_bar", "closed loop of three rigid bars between two world pivots");

fn bar_pose(from: [f64; 2], to: [f64; 2]) -> [f64; 3] {
    [0.5 * (from[0] + to[0]), 0.5 * (from[1] + to[1]), (to[1] - from[1]).atan2(to[0] - from[0])]
}

/// Builds the four-bar scene.
pub fn build(p: &FourBarParams) -> Result<Scene, SceneError> {
    let (d, a, b, c) = (p.ground, p.crank, p.coupler, p.rocker);
    let (phi, rho, tau, g) = (p.phi0, p.density, p.torque, p.gravity);
    let o2 = [0.0, 0.0];
    let o4 = [d, 0.0];
    let pa = [a * phi.cos(), a * phi.sin()];
    // Circle–circle intersection around A (radius b) and O4 (radius c).
    let e = [o4[0] - pa[0], o4[1] - pa[1]];
    let dist = e[0].hypot(e[1]);
    if dist > b + c || dist < (b - c).abs() || dist == 0.0 {
        return Err(SceneError::Geometry {
            scene: "four_bar",
            reason: format!(
                "coupler = {b} and rocker = {c} cannot close the loop at phi0 = {phi} (|A - O4| = {dist:.6})"
            ),
        });
    }
    let along = (b * b - c * c + dist * dist) / (2.0 * dist);
    let h = (b * b - along * along).max(0.0).sqrt();
    let u = [e[0] / dist, e[1] / dist];
    let pb = [pa[0] + along * u[0] - h * u[1], pa[1] + along * u[1] + h * u[0]];

    let (crank_pose, coupler_pose, rocker_pose) = (bar_pose(o2, pa), bar_pose(pa, pb), bar_pose(o4, pb));
    let mut system = System::new();
    let crank = system.add_body(Body::bar(rho * a, a))?;
    let coupler = system.add_body(Body::bar(rho * b, b))?;
    let rocker = system.add_body(Body::bar(rho * c, c))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    if tau != 0.0 {
        system.add_force(Force::Torque { body: crank, torque: tau })?;
    }
    system.add_constraint(Box::new(Revolute::to_world(crank, [-0.5 * a, 0.0], o2)))?;
    system.add_constraint(Box::new(Revolute::at_point(crank, crank_pose, coupler, coupler_pose, pa)))?;
    system.add_constraint(Box::new(Revolute::at_point(coupler, coupler_pose, rocker, rocker_pose, pb)))?;
    system.add_constraint(Box::new(Revolute::to_world(rocker, [-0.5 * c, 0.0], o4)))?;
    let q0 = [crank_pose, coupler_pose, rocker_pose].concat();
    Ok(Scene {
        name: "four_bar".into(),
        system,
        v0: vec![0.0; q0.len()],
        q0,
        reference: None,
        energy_scale: EnergyScale {
            joules: rho * (a + b + c) * g * (a + b + c) + 2.0 * std::f64::consts::PI * tau.abs(),
            definition: "total bar mass * g * total bar length + 2 pi |torque|".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: vec![
            Output::new("crank_angle", "rad", "angle of the crank from the x axis", Quantity::Coord { body: crank, index: 2 }),
            Output::new("coupler_angle", "rad", "angle of the coupler from the x axis", Quantity::Coord { body: coupler, index: 2 }),
            Output::new("rocker_angle", "rad", "angle of the rocker from the x axis", Quantity::Coord { body: rocker, index: 2 }),
        ],
    })
}
