//! The constraint registry: the only list of constraint types.
//!
//! Scenes build constraints directly; this table exists so that `tinkertoy list` and the conformance
//! tests see every type. Adding a constraint = one file + one line here; `tests/conformance.rs`
//! then checks its J and J̇v against finite differences without being edited.

use super::{
    Ball, Circle, Constraint, Distance, Ground, Hinge, JointFrame, Line, Pin, Prismatic, Revolute, RigidDistance,
    Slider, Weld,
};
use nalgebra::{UnitQuaternion, Vector3};

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

/// The sides of a sampled 3D joint: body–body, body–world or world–body, chosen by `u`.
fn sides3(u: f64) -> (Option<usize>, Option<usize>) {
    if u < -1.0 / 3.0 {
        (Some(0), Some(1))
    } else if u < 1.0 / 3.0 {
        (Some(0), None)
    } else {
        (None, Some(0))
    }
}

/// Two sampled joint frames (anchors in \[−1, 1\]³, orientations from rotation vectors of length
/// up to 2√3 rad).
fn frames3(u: &[f64; SAMPLE_INPUTS]) -> (JointFrame, JointFrame) {
    let rot = |a: f64, b: f64, c: f64| UnitQuaternion::from_scaled_axis(Vector3::new(a, b, c) * 2.0);
    let fa = JointFrame {
        anchor: Vector3::new(u[1], u[2], u[3]),
        axes: *rot(u[2], u[5], u[7]).to_rotation_matrix().matrix(),
    };
    let fb = JointFrame {
        anchor: Vector3::new(u[4], u[5], u[6]),
        axes: *rot(u[7], u[1], u[4]).to_rotation_matrix().matrix(),
    };
    (fa, fb)
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
    ConstraintEntry {
        name: "ball",
        summary: "ball-and-socket joint between two rigid-3D bodies or a body and the world (seed 001); 3 rows, m",
        params: "anchor_a, anchor_b [m] (body frames; world point for the world side)",
        sample: |u| {
            let (a, b) = sides3(u[0]);
            let (fa, fb) = frames3(u);
            Box::new(Ball::new(a, fa.anchor.into(), b, fb.anchor.into()))
        },
    },
    ConstraintEntry {
        name: "rigid_distance",
        summary: "rod between points of two rigid-3D bodies or a body and the world (seed 001 distance joint); 1 row, m",
        params: "anchor_a, anchor_b [m], length [m]",
        sample: |u| {
            let (a, b) = sides3(u[0]);
            let (fa, fb) = frames3(u);
            Box::new(RigidDistance::new(a, fa.anchor.into(), b, fb.anchor.into(), 1.0 + u[7].abs()))
        },
    },
    ConstraintEntry {
        name: "hinge",
        summary: "hinge between two rigid-3D bodies or a body and the world (seed 001); 5 rows: 3 m, 2 dimensionless",
        params: "joint frames on a and b: anchor [m], axes (first = hinge axis)",
        sample: |u| {
            let (a, b) = sides3(u[0]);
            let (fa, fb) = frames3(u);
            Box::new(Hinge::new(a, fa, b, fb))
        },
    },
    ConstraintEntry {
        name: "slider",
        summary: "slider between two rigid-3D bodies or a body and the world, no relative rotation (seed 001); 5 rows: 2 m, 3 dimensionless",
        params: "joint frames on a (first axis = slide direction) and b: anchor [m], axes",
        sample: |u| {
            let (a, b) = sides3(u[0]);
            let (fa, fb) = frames3(u);
            Box::new(Slider::new(a, fa, b, fb))
        },
    },
    ConstraintEntry {
        name: "weld",
        summary: "fixed joint: two rigid-3D bodies (or a body and the world) move as one (seed 001); 6 rows: 3 m, 3 dimensionless",
        params: "joint frames on a and b: anchor [m], axes",
        sample: |u| {
            let (a, b) = sides3(u[0]);
            let (fa, fb) = frames3(u);
            Box::new(Weld::new(a, fa, b, fb))
        },
    },
];

/// Looks up a constraint type by name.
pub fn find(name: &str) -> Option<&'static ConstraintEntry> {
    CONSTRAINTS.iter().find(|e| e.name == name)
}
