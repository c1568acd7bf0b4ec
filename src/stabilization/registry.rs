//! The stabilizer registry: the only list of post-step stabilizers. Adding one = one file + one
//! line here.

use super::{Projection, Stabilizer};
use crate::formulation::NotApplicable;
use crate::formulation::normal::NormalSolve;
use crate::linsolve::LinearSolver;
use crate::params::{Domain, ParamSpec, ParamValues};
use crate::scene::Scene;

/// Builds a stabilizer for a scene with a linear solver (None: no stabilization).
pub type BuildFn = for<'a> fn(
    &ParamValues,
    &'a Scene,
    Box<dyn LinearSolver>,
) -> Result<Option<Box<dyn Stabilizer + 'a>>, NotApplicable>;

/// One registered stabilizer.
pub struct StabilizerEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: what it corrects.
    pub summary: &'static str,
    /// Declared parameters.
    pub params: &'static [ParamSpec],
    /// Builds it.
    pub build: BuildFn,
}

const PROJECTION_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "tol",
        default: 1e-10,
        unit: "units of C",
        domain: Domain::Positive,
        doc: "project until |C|inf <= tol",
    },
    ParamSpec {
        name: "max_iter",
        default: 10.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 1000 },
        doc: "Gauss-Newton iterations per step before the run fails",
    },
];

/// Every stabilizer.
pub const STABILIZERS: &[StabilizerEntry] = &[
    StabilizerEntry { name: "none", summary: "no post-step correction", params: &[], build: |_, _, _| Ok(None) },
    StabilizerEntry {
        name: "projection",
        summary: "after each step, Gauss-Newton projection onto C = 0 (M-metric), then onto J v = 0, with the cell's solver",
        params: PROJECTION_PARAMS,
        build: |p, scene, solver| {
            if scene.system.contacts().is_some() {
                return Err(NotApplicable(
                    "projection moves bodies onto C = 0 without seeing the contact rows, so it could push them into each other; not applicable to scenes with contact".into(),
                ));
            }
            let ns = NormalSolve::new(&scene.system, solver)?;
            Ok(Some(Box::new(Projection::new(ns, p.get("tol"), p.get_usize("max_iter")))))
        },
    },
];

/// Looks up a stabilizer by name.
pub fn find(name: &str) -> Option<&'static StabilizerEntry> {
    STABILIZERS.iter().find(|e| e.name == name)
}
