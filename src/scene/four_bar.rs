//! Four-bar linkage: a closed loop of three rigid bars (crank, coupler, rocker) between two world
//! pivots O₂ = (0, 0) and O₄ = (d, 0). Four revolute joints (crank–world at O₂, crank–coupler at A,
//! coupler–rocker at B, rocker–world at O₄): 8 rows on 9 coordinates, one degree of freedom.
//! Starts at rest at crank angle φ₀ in the elbow-up assembly; gravity −y, optional crank torque.
//!
//! Assembly: A = a (cos φ₀, sin φ₀); B is the intersection of the circles |B − A| = b and
//! |B − O₄| = c on the left of the directed line A → O₄ (the upper branch for the defaults).

use super::{EnergyScale, Scene, SceneError};
use crate::constraint::Revolute;
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};

/// Parameters of the four-bar scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "ground",
        default: 1.0,
        unit: "m",
        domain: Domain::Positive,
        doc: "distance between the world pivots d",
    },
    ParamSpec { name: "crank", default: 0.4, unit: "m", domain: Domain::Positive, doc: "crank length a" },
    ParamSpec { name: "coupler", default: 1.2, unit: "m", domain: Domain::Positive, doc: "coupler length b" },
    ParamSpec { name: "rocker", default: 0.8, unit: "m", domain: Domain::Positive, doc: "rocker length c" },
    ParamSpec { name: "phi0", default: 1.0, unit: "rad", domain: Domain::Real, doc: "initial crank angle" },
    ParamSpec {
        name: "density",
        default: 1.0,
        unit: "kg/m",
        domain: Domain::Positive,
        doc: "mass per length of every bar",
    },
    ParamSpec { name: "torque", default: 0.0, unit: "N m", domain: Domain::Real, doc: "constant torque on the crank" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "gravity along -y" },
];

fn bar_pose(from: [f64; 2], to: [f64; 2]) -> [f64; 3] {
    [0.5 * (from[0] + to[0]), 0.5 * (from[1] + to[1]), (to[1] - from[1]).atan2(to[0] - from[0])]
}

/// Builds the four-bar scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (d, a, b, c) = (p.get("ground"), p.get("crank"), p.get("coupler"), p.get("rocker"));
    let (phi, rho, tau, g) = (p.get("phi0"), p.get("density"), p.get("torque"), p.get("gravity"));
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
        name: "four_bar",
        system,
        v0: vec![0.0; q0.len()],
        q0,
        reference: None,
        energy_scale: EnergyScale {
            joules: rho * (a + b + c) * g * (a + b + c) + 2.0 * std::f64::consts::PI * tau.abs(),
            definition: "total bar mass * g * total bar length + 2 pi |torque|",
        },
        parametrization: None,
    })
}
