//! Cloth: a W × H grid of 3D particles joined by structural distance constraints (each particle to
//! its right and lower neighbour), two corners of the first row pinned. Starts flat and at rest in
//! the horizontal x–z plane; gravity along −y. The scene of Witkin's CG-vs-direct comparison (§4.4).
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
];

/// Builds the cloth scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (w, h) = (p.get_usize("width"), p.get_usize("height"));
    let (s, m, g) = (p.get("spacing"), p.get("mass"), p.get("gravity"));
    let id = |i: usize, j: usize| j * w + i;
    let mut system = System::new();
    let mut q0 = Vec::with_capacity(3 * w * h);
    for j in 0..h {
        for i in 0..w {
            system.add_body(Body::particle3(m))?;
            q0.extend_from_slice(&[i as f64 * s, 0.0, j as f64 * s]);
        }
    }
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Pin::new(id(0, 0), 3, [0.0; 3])))?;
    system.add_constraint(Box::new(Pin::new(id(w - 1, 0), 3, [(w - 1) as f64 * s, 0.0, 0.0])))?;
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
    })
}
