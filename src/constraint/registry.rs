//! The constraint registry: the only list of constraint types.
//!
//! Scenes build constraints directly; this table exists so that `tinkertoy list` and the conformance
//! tests see every type. Adding a constraint = one file + one line here; `tests/conformance.rs`
//! then checks its J and J̇v against finite differences without being edited.

use super::{Circle, Constraint, Distance, Ground, Line, Pin, Prismatic, Revolute};

/// Number of uniform samples in \[−1, 1\] a [`ConstraintEntry::sample`] function may read.
pub const SAMPLE_INPUTS: usize = 8;

/// One registered constraint type.
pub struct ConstraintEntry {
    /// Registry name (matches [`Constraint::kind`]).
    pub name: &'static str,
    /// What it constrains.
    pub summary: &'static str,
    /// Its geometric parameters with units, as shown by `tinkertoy list`.
    pub params: &'static str,
    /// Builds a random instance on bodies 0 (and 1) from [`SAMPLE_INPUTS`] uniforms in \[−1, 1\];
    /// each variant (2D/3D, body–body/body–world) is reachable.
    pub sample: fn(&[f64; SAMPLE_INPUTS]) -> Box<dyn Constraint>,
}

fn dim_of(u: f64) -> usize {
    if u < 0.0 { 2 } else { 3 }
}

/// Every constraint type.
pub const CONSTRAINTS: &[ConstraintEntry] = &[
    ConstraintEntry {
        name: "circle",
        summary: "planar particle on a circle (bead on a wire, Witkin §2); 1 row, m²",
        params: "center [m], radius [m]",
        sample: |u| Box::new(Circle::new(0, [u[0], u[1]], 1.0 + u[2].abs())),
    },
    ConstraintEntry {
        name: "distance",
        summary: "rigid rod between two particles or a particle and a world anchor; 1 row, m",
        params: "length [m], anchor [m] (body-world form)",
        sample: |u| {
            if u[0] < 0.0 {
                Box::new(Distance::between(0, 1, dim_of(u[1]), 1.0 + u[2].abs()))
            } else {
                Box::new(Distance::to_anchor(0, dim_of(u[1]), [u[3], u[4], u[5]], 1.0 + u[2].abs()))
            }
        },
    },
    ConstraintEntry {
        name: "pin",
        summary: "particle held at a world point; dim rows, m",
        params: "point [m]",
        sample: |u| Box::new(Pin::new(0, dim_of(u[0]), [u[1], u[2], u[3]])),
    },
    ConstraintEntry {
        name: "line",
        summary: "particle sliding on a fixed world line; dim-1 rows, m",
        params: "point [m], direction",
        sample: |u| Box::new(Line::new(0, dim_of(u[0]), [u[1], u[2], u[3]], [u[4], u[5], 0.5 + u[6].abs()])),
    },
    ConstraintEntry {
        name: "ground",
        summary: "rigid-2D body welded to the world (seed 003); 3 rows, m, m, rad",
        params: "pose (x [m], y [m], theta [rad])",
        sample: |u| Box::new(Ground::new(0, [u[0], u[1], u[2]])),
    },
    ConstraintEntry {
        name: "revolute",
        summary: "pin joint between two rigid-2D bodies or a body and the world (seed 003); 2 rows, m",
        params: "local_a [m], local_b [m] (world point for body-world)",
        sample: |u| {
            if u[0] < 0.0 {
                Box::new(Revolute::new(0, [u[1], u[2]], 1, [u[3], u[4]]))
            } else {
                Box::new(Revolute::to_world(0, [u[1], u[2]], [u[3], u[4]]))
            }
        },
    },
    ConstraintEntry {
        name: "prismatic",
        summary: "slider: rigid-2D body on an axis of another body or the world, no relative rotation; 2 rows, m and rad",
        params: "axis point and direction on a [m], point on b [m], theta0 [rad]",
        sample: |u| {
            let axis = [1.0, u[7]];
            if u[0] < 0.0 {
                Box::new(Prismatic::new(0, [u[1], u[2]], axis, 1, [u[3], u[4]], u[5]))
            } else {
                Box::new(Prismatic::to_world([u[1], u[2]], axis, 0, [u[3], u[4]], u[5]))
            }
        },
    },
];

/// Looks up a constraint type by name.
pub fn find(name: &str) -> Option<&'static ConstraintEntry> {
    CONSTRAINTS.iter().find(|e| e.name == name)
}
