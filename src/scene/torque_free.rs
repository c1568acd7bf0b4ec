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

use super::{EnergyScale, Scene, SceneError};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};
use crate::special::ellip_k;

/// Parameters of the torque-free body scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "i1", default: 1.0, unit: "kg m^2", domain: Domain::Positive, doc: "smallest principal moment" },
    ParamSpec { name: "i2", default: 2.0, unit: "kg m^2", domain: Domain::Positive, doc: "intermediate moment" },
    ParamSpec { name: "i3", default: 3.0, unit: "kg m^2", domain: Domain::Positive, doc: "largest principal moment" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass" },
    ParamSpec {
        name: "omega",
        default: 2.0,
        unit: "rad/s",
        domain: Domain::Positive,
        doc: "initial spin about the intermediate axis",
    },
    ParamSpec {
        name: "wobble",
        default: 0.01,
        unit: "1",
        domain: Domain::Positive,
        doc: "initial spin about axes 1 and 3, as a fraction of omega",
    },
    ParamSpec {
        name: "gyroscopic",
        default: 1.0,
        unit: "0/1",
        domain: Domain::Integer { min: 0, max: 1 },
        doc: "include the gyroscopic torque -Omega x I Omega (0 drops it, as some engines do)",
    },
];

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
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let i = [p.get("i1"), p.get("i2"), p.get("i3")];
    if !(i[0] < i[1] && i[1] < i[2]) {
        return Err(SceneError::Geometry {
            scene: "torque_free",
            reason: format!("i1 < i2 < i3 is required (got {}, {}, {})", i[0], i[1], i[2]),
        });
    }
    let mut system = System::new();
    system.add_body(Body::rigid3(p.get("mass"), i))?;
    if p.get("gyroscopic") != 0.0 {
        system.add_force(Force::Gyroscopic)?;
    }
    let w = initial_spin(p.get("omega"), p.get("wobble"));
    let energy = 0.5 * (0..3).map(|k| i[k] * w[k] * w[k]).sum::<f64>();
    Ok(Scene {
        name: "torque_free",
        system,
        q0: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        v0: vec![0.0, 0.0, 0.0, w[0], w[1], w[2]],
        reference: None,
        energy_scale: EnergyScale { joules: energy, definition: "the initial kinetic energy 1/2 Omega . I Omega" },
        parametrization: None,
    })
}
