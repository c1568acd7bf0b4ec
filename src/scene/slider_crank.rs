//! Slider-crank (seed 003): a wheel driven by a constant torque turns a crank pin; a connecting rod
//! pushes a slider along a horizontal track. Bodies: ground (welded: 1 ground constraint), wheel,
//! rod, slider (rigid-2D). Joints: revolute ground–wheel at the wheel centre, revolute wheel–rod at
//! the crank pin, revolute rod–slider, prismatic ground–slider along +x. 11 rows on 12 coordinates:
//! one degree of freedom. Starts at rest with crank angle φ₀; gravity −y on every body.
//!
//! Initial geometry: crank pin P = r (cos φ₀, sin φ₀); slider S = (r cos φ₀ + √(ℓ² − r² sin² φ₀), 0).

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, EnergyScale, Scene, SceneError};
use crate::constraint::{Ground, Prismatic, Revolute};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the slider-crank scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SliderCrankParams {
    /// distance from wheel centre to crank pin r
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub crank_radius: f64,
    /// connecting rod length l (> r)
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub rod_length: f64,
    /// constant motor torque on the wheel
    #[schemars(extend("unit" = "N m"))]
    pub torque: f64,
    /// initial crank angle
    #[schemars(extend("unit" = "rad"))]
    pub phi0: f64,
    /// wheel mass (uniform disc of radius r)
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub wheel_mass: f64,
    /// rod mass (slender bar)
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub rod_mass: f64,
    /// slider mass (0.2 m x 0.1 m block)
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub slider_mass: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
}

impl Default for SliderCrankParams {
    fn default() -> Self {
        SliderCrankParams {
            crank_radius: 0.5,
            rod_length: 1.5,
            torque: 10.0,
            phi0: 0.5,
            wheel_mass: 1.0,
            rod_mass: 1.0,
            slider_mass: 1.0,
            gravity: 9.81,
        }
    }
}

impl Params for SliderCrankParams {}

impl SceneParams for SliderCrankParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<SliderCrankParams>("slider_crank", "torque-driven wheel, rod and slider (seed 003)");

/// Builds the slider-crank scene.
pub fn build(p: &SliderCrankParams) -> Result<Scene, SceneError> {
    let (r, l, tau, phi) = (p.crank_radius, p.rod_length, p.torque, p.phi0);
    let g = p.gravity;
    if l <= r {
        return Err(SceneError::Geometry {
            scene: "slider_crank",
            reason: format!("rod_length = {l} must exceed crank_radius = {r} for the crank to turn fully"),
        });
    }
    let pin = [r * phi.cos(), r * phi.sin()];
    let slider = [pin[0] + (l * l - pin[1] * pin[1]).sqrt(), 0.0];
    let ground_pose = [0.0, 0.0, 0.0];
    let wheel_pose = [0.0, 0.0, phi];
    let rod_pose =
        [0.5 * (pin[0] + slider[0]), 0.5 * (pin[1] + slider[1]), (slider[1] - pin[1]).atan2(slider[0] - pin[0])];
    let slider_pose = [slider[0], slider[1], 0.0];

    let mut system = System::new();
    let (mw, mr, ms) = (p.wheel_mass, p.rod_mass, p.slider_mass);
    // The ground body is welded; its mass only has to make M invertible.
    let ground = system.add_body(Body::rigid2(1.0, 1.0))?;
    let wheel = system.add_body(Body::rigid2(mw, 0.5 * mw * r * r))?;
    let rod = system.add_body(Body::bar(mr, l))?;
    let block = system.add_body(Body::rigid2(ms, ms * (0.2f64.powi(2) + 0.1f64.powi(2)) / 12.0))?;
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_force(Force::Torque { body: wheel, torque: tau })?;
    system.add_constraint(Box::new(Ground::new(ground, ground_pose)))?;
    system.add_constraint(Box::new(Revolute::at_point(ground, ground_pose, wheel, wheel_pose, [0.0, 0.0])))?;
    system.add_constraint(Box::new(Revolute::at_point(wheel, wheel_pose, rod, rod_pose, pin)))?;
    system.add_constraint(Box::new(Revolute::at_point(rod, rod_pose, block, slider_pose, slider)))?;
    system.add_constraint(Box::new(Prismatic::new(ground, [0.0, 0.0], [1.0, 0.0], block, [0.0, 0.0], 0.0)))?;
    let q0 = [ground_pose, wheel_pose, rod_pose, slider_pose].concat();
    Ok(Scene {
        name: "slider_crank".into(),
        system,
        v0: vec![0.0; q0.len()],
        q0,
        reference: None,
        energy_scale: EnergyScale {
            joules: 2.0 * std::f64::consts::PI * tau.abs() + (mw + mr + ms) * g * r,
            definition: "2 pi |torque| + (wheel + rod + slider mass) g r: work of one crank turn plus the potential swing".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: vec![
            Output::new("crank_angle", "rad", "angle of the wheel (crank)", Quantity::Coord { body: wheel, index: 2 }),
            Output::new("slider_x", "m", "x of the slider block", Quantity::Coord { body: block, index: 0 }),
        ],
    })
}
