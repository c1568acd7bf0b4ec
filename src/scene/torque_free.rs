//! Torque-free asymmetric rigid body (seed 001, Newton–Euler): a body with principal moments
//! I₁ < I₂ < I₃ spinning mostly about the intermediate axis e₂ flips over periodically (the
//! "Dzhanibekov" or tennis-racket effect). No forces but the gyroscopic term, no constraints:
//! kinetic energy E and the world angular momentum L = R I Ω are exact invariants.
//!
//! Reference: Euler's equations are solved by Jacobi elliptic functions (Landau & Lifshitz,
//! Mechanics, §37). For L² > 2 E I₂, Ω₂ ∝ sn(τ | k²) with
//!   τ = t √((I₃ − I₂)(L² − 2 E I₁) / (I₁ I₂ I₃)),   k² = (I₂ − I₁)(2 E I₃ − L²) / ((I₃ − I₂)(L² − 2 E I₁)),
//! so Ω (and the body's flip) is periodic with T = 4 K(k²) √(I₁ I₂ I₃ / ((I₃ − I₂)(L² − 2 E I₁))),
//! and Ω₂ changes sign every T/2. For L² < 2 E I₂ the indices 1 and 3 swap.

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use crate::special::ellip_k;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the torque-free body scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TorqueFreeParams {
    /// smallest principal moment
    #[schemars(extend("unit" = "kg m^2", "exclusiveMinimum" = 0))]
    pub i1: f64,
    /// intermediate moment
    #[schemars(extend("unit" = "kg m^2", "exclusiveMinimum" = 0))]
    pub i2: f64,
    /// largest principal moment
    #[schemars(extend("unit" = "kg m^2", "exclusiveMinimum" = 0))]
    pub i3: f64,
    /// mass
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// initial spin about the intermediate axis
    #[schemars(extend("unit" = "rad/s", "exclusiveMinimum" = 0))]
    pub omega: f64,
    /// initial spin about axes 1 and 3, as a fraction of omega
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub wobble: f64,
    /// include the gyroscopic torque -Omega x I Omega (false drops it, as some engines do)
    pub gyroscopic: bool,
}

impl Default for TorqueFreeParams {
    fn default() -> Self {
        TorqueFreeParams { i1: 1.0, i2: 2.0, i3: 3.0, mass: 1.0, omega: 2.0, wobble: 0.01, gyroscopic: true }
    }
}

impl Params for TorqueFreeParams {}

impl SceneParams for TorqueFreeParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry = SceneEntry::of::<TorqueFreeParams>(
    "torque_free",
    "torque-free asymmetric rigid-3D body spun about its intermediate axis: it flips (seed 001)",
);

/// The period \[s\] of the body-frame angular velocity Ω(t) of a torque-free body with principal
/// moments `i` (strictly increasing) \[kg·m²\] started at body angular velocity `w0` \[rad/s\]
/// (the formula of the module docs); Ω₂ changes sign every half period.
pub fn period(i: [f64; 3], w0: [f64; 3]) -> f64 {
    let e2: f64 = (0..3).map(|k| i[k] * w0[k] * w0[k]).sum(); // 2E
    let l2: f64 = (0..3).map(|k| (i[k] * w0[k]).powi(2)).sum();
    // Landau & Lifshitz §37 assume L² > 2 E I₂; otherwise swap axes 1 and 3.
    let (a, b, c) = if l2 > e2 * i[1] { (i[0], i[1], i[2]) } else { (i[2], i[1], i[0]) };
    let m = (b - a) * (e2 * c - l2) / ((c - b) * (l2 - e2 * a));
    4.0 * ellip_k(m) * (a * b * c / ((c - b) * (l2 - e2 * a))).sqrt()
}

/// The initial body angular velocity \[rad/s\] for spin `omega` and relative `wobble`.
pub fn initial_spin(omega: f64, wobble: f64) -> [f64; 3] {
    [wobble * omega, omega, wobble * omega]
}

/// Builds the torque-free body scene.
pub fn build(p: &TorqueFreeParams) -> Result<Scene, SceneError> {
    let i = [p.i1, p.i2, p.i3];
    if !(i[0] < i[1] && i[1] < i[2]) {
        return Err(SceneError::Geometry {
            scene: "torque_free",
            reason: format!("i1 < i2 < i3 is required (got {}, {}, {})", i[0], i[1], i[2]),
        });
    }
    let mut system = System::new();
    system.add_body(Body::rigid3(p.mass, i))?;
    if p.gyroscopic {
        system.add_force(Force::Gyroscopic)?;
    }
    let w = initial_spin(p.omega, p.wobble);
    let energy = 0.5 * (0..3).map(|k| i[k] * w[k] * w[k]).sum::<f64>();
    Ok(Scene {
        name: "torque_free".into(),
        system,
        q0: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        v0: vec![0.0, 0.0, 0.0, w[0], w[1], w[2]],
        reference: None,
        energy_scale: EnergyScale { joules: energy, definition: "the initial kinetic energy 1/2 Omega . I Omega".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
