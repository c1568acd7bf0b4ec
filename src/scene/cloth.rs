//! Cloth: a W × H grid of 3D particles joined by structural distance constraints (each particle to
//! its right and lower neighbour), the two end corners of the first row pinned; gravity along −y.
//! The scene of Witkin's CG-vs-direct comparison (§4.4).
//!
//! Every row starts as the same polygonal arc in the x–y plane, sagging by the total turning angle
//! `sag`: link i of a row has direction (cos aᵢ, sin aᵢ), aᵢ = −sag/2 + sag (i + ½)/(W − 1); rows are
//! spaced by `spacing` along z. So every link has its rest length (C = 0) and the chord between the
//! pins is shorter than the row. With `sag` = 0 the pinned row is a straight taut string: its
//! constraints are redundant (J W Jᵀ singular) and, under gravity, inconsistent — a deliberate
//! test case for how solvers cope, not a usable default.
//!
//! Rows: 2·3 (pins) + (W − 1) H + W (H − 1) (links).

use super::{EnergyScale, Scene, SceneError};
use crate::constraint::{Distance, Pin};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};

/// Parameters of the cloth scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "width",
        default: 10.0,
        unit: "1",
        domain: Domain::Integer { min: 2, max: 4000 },
        doc: "particles per row (W)",
    },
    ParamSpec {
        name: "height",
        default: 10.0,
        unit: "1",
        domain: Domain::Integer { min: 2, max: 4000 },
        doc: "rows of particles (H)",
    },
    ParamSpec {
        name: "spacing",
        default: 0.1,
        unit: "m",
        domain: Domain::Positive,
        doc: "rest length of each structural link",
    },
    ParamSpec { name: "mass", default: 0.1, unit: "kg", domain: Domain::Positive, doc: "mass of each particle" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "gravity along -y" },
    ParamSpec {
        name: "sag",
        default: 0.5,
        unit: "rad",
        domain: Domain::NonNegative,
        doc: "total turning angle of each row's initial arc; 0 = taut pinned row (redundant constraints)",
    },
];

/// Builds the cloth scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (w, h) = (p.get_usize("width"), p.get_usize("height"));
    let (s, m, g, sag) = (p.get("spacing"), p.get("mass"), p.get("gravity"), p.get("sag"));
    if sag >= std::f64::consts::PI {
        return Err(SceneError::Geometry {
            scene: "cloth",
            reason: format!("parameter `sag` = {sag} is invalid; expected 0 <= sag < pi"),
        });
    }
    // The row's polygonal arc: x_i, y_i of particle i.
    let mut row = vec![[0.0f64; 2]; w];
    for i in 1..w {
        let a = -0.5 * sag + sag * (i as f64 - 0.5) / (w - 1) as f64;
        row[i] = [row[i - 1][0] + s * a.cos(), row[i - 1][1] + s * a.sin()];
    }
    let id = |i: usize, j: usize| j * w + i;
    let mut system = System::new();
    let mut q0 = Vec::with_capacity(3 * w * h);
    for j in 0..h {
        for p in &row {
            system.add_body(Body::particle3(m))?;
            q0.extend_from_slice(&[p[0], p[1], j as f64 * s]);
        }
    }
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Pin::new(id(0, 0), 3, [0.0; 3])))?;
    system.add_constraint(Box::new(Pin::new(id(w - 1, 0), 3, [row[w - 1][0], row[w - 1][1], 0.0])))?;
    for j in 0..h {
        for i in 0..w {
            if i + 1 < w {
                system.add_constraint(Box::new(Distance::between(id(i + 1, j), id(i, j), 3, s)))?;
            }
            if j + 1 < h {
                system.add_constraint(Box::new(Distance::between(id(i, j + 1), id(i, j), 3, s)))?;
            }
        }
    }
    let total = m * (w * h) as f64;
    Ok(Scene {
        name: "cloth",
        system,
        q0,
        v0: vec![0.0; 3 * w * h],
        reference: None,
        energy_scale: EnergyScale {
            joules: total * g * (h - 1) as f64 * s,
            definition: "total mass * g * (H-1) * spacing",
        },
        parametrization: None,
    })
}
