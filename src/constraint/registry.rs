//! The constraint registry: what a constraint entry is, the helpers its random samplers share,
//! and the lookup.
//!
//! Scenes build constraints directly; the list ([`CONSTRAINTS`], declared in `constraint/mod.rs`
//! from the files' names) exists so that `tinkertoy list` and the conformance tests see every
//! type. Adding a constraint = one file (the constraint and its `ENTRY` with a sampler) + one name
//! there; `tests/conformance.rs` then checks its J and J̇v against finite differences without
//! being edited.

pub use super::CONSTRAINTS;
use super::spec::{JointSpec, SpecError};
use super::{Constraint, JointFrame};
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
    /// Builds the constraint a model file's `joints:` entry describes, or says which field is
    /// missing, does not apply, or describes no joint of this type.
    pub from_spec: fn(&JointSpec) -> Result<Box<dyn Constraint>, SpecError>,
    /// Builds a random instance on bodies 0 (and 1) from [`SAMPLE_INPUTS`] uniforms in \[−1, 1\];
    /// each variant (2D/3D, body–body/body–world) is reachable.
    pub sample: fn(&[f64; SAMPLE_INPUTS]) -> Box<dyn Constraint>,
}

/// The particle dimension (2 or 3) a sample picks from the uniform `u`.
pub fn dim_of(u: f64) -> usize {
    if u < 0.0 { 2 } else { 3 }
}

/// The sides of a sampled 3D joint: body–body, body–world or world–body, chosen by `u`.
pub fn sides3(u: f64) -> (Option<usize>, Option<usize>) {
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
pub fn frames3(u: &[f64; SAMPLE_INPUTS]) -> (JointFrame, JointFrame) {
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

/// Looks up a constraint type by name.
pub fn find(name: &str) -> Option<&'static ConstraintEntry> {
    CONSTRAINTS.iter().find(|e| e.name == name)
}
