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

use super::registry::{SceneEntry, SceneParams};
use super::{EnergyScale, Scene, SceneError};
use crate::constraint::{Distance, Pin};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the cloth scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ClothParams {
    /// particles per row (W)
    #[schemars(range(min = 2, max = 4000))]
    pub width: usize,
    /// rows of particles (H)
    #[schemars(range(min = 2, max = 4000))]
    pub height: usize,
    /// rest length of each structural link
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub spacing: f64,
    /// mass of each particle
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// gravity along -y
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
    /// total turning angle of each row's initial arc; 0 = taut pinned row (redundant constraints)
    #[schemars(range(min = 0), extend("unit" = "rad"))]
    pub sag: f64,
}

impl Default for ClothParams {
    fn default() -> Self {
        ClothParams { width: 10, height: 10, spacing: 0.1, mass: 0.1, gravity: 9.81, sag: 0.5 }
    }
}

impl Params for ClothParams {}

impl SceneParams for ClothParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }

    fn size(&self) -> Option<super::registry::SceneSize> {
        // Two pins (3 rows each) and the structural links along both grid directions.
        let (w, h) = (self.width, self.height);
        let links = h * (w - 1) + w * (h - 1);
        Some(super::registry::SceneSize { bodies: w * h, nq: 3 * w * h, ndof: 3 * w * h, constraints: 2 + links, rows: 6 + links })
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<ClothParams>("cloth", "W x H 3D particle grid, structural links, two pinned corners")
        .with_test_size(&[("width", 4.0), ("height", 3.0)]);

/// Builds the cloth scene.
pub fn build(p: &ClothParams) -> Result<Scene, SceneError> {
    let (w, h) = (p.width, p.height);
    let (s, m, g, sag) = (p.spacing, p.mass, p.gravity, p.sag);
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
        name: "cloth".into(),
        system,
        q0,
        v0: vec![0.0; 3 * w * h],
        reference: None,
        energy_scale: EnergyScale {
            joules: total * g * (h - 1) as f64 * s,
            definition: "total mass * g * (H-1) * spacing".into(),
        },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    })
}
