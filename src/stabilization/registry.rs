//! The stabilizer registry: the only list of post-step stabilizers. Adding one = one file + one
//! line here.

use super::{EnergyProjection, Projection, Stabilizer};
use crate::linsolve::LinearSolver;
use crate::normal_solve::NormalSolve;
use crate::normal_solve::NotApplicable;
use crate::params::{NoParams, ParamTable, Params, Resolved};
use crate::scene::Scene;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Builds a stabilizer for a scene with a linear solver (None: no stabilization).
pub type BuildFn =
    for<'a> fn(&Resolved, &'a Scene, Box<dyn LinearSolver>) -> Result<Option<Box<dyn Stabilizer + 'a>>, NotApplicable>;

/// One registered stabilizer.
#[derive(Clone, Copy)]
pub struct StabilizerEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: what it corrects.
    pub summary: &'static str,
    /// Declared parameters.
    pub params: ParamTable,
    /// Builds it.
    pub build: BuildFn,
}

/// Parameters of `projection`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ProjectionParams {
    /// project until |C|inf <= tol
    #[schemars(extend("unit" = "units of C", "exclusiveMinimum" = 0))]
    pub tol: f64,
    /// Gauss-Newton iterations per step before the run fails
    #[schemars(range(min = 1, max = 1000))]
    pub max_iter: usize,
}

impl Default for ProjectionParams {
    fn default() -> Self {
        ProjectionParams { tol: 1e-10, max_iter: 10 }
    }
}

impl Params for ProjectionParams {}

/// Every stabilizer.
pub const STABILIZERS: &[StabilizerEntry] = &[
    StabilizerEntry {
        name: "none",
        summary: "no post-step correction",
        params: ParamTable::of::<NoParams>(),
        build: |_, _, _| Ok(None),
    },
    StabilizerEntry {
        name: "projection",
        summary: "after each step, Gauss-Newton projection onto C = 0 (M-metric), then onto J v = 0, with the cell's solver",
        params: ParamTable::of::<ProjectionParams>(),
        build: |p, scene, solver| {
            if scene.system.contacts().is_some() {
                return Err(NotApplicable(
                    "projection moves bodies onto C = 0 without seeing the contact rows, so it could push them into each other; not applicable to scenes with contact".into(),
                ));
            }
            let p: &ProjectionParams = p.get();
            let ns = NormalSolve::new(&scene.system, solver)?;
            Ok(Some(Box::new(Projection::new(ns, p.tol, p.max_iter))))
        },
    },
    StabilizerEntry {
        name: "energy",
        summary: "after each step, v onto J v = 0 with the cell's solver, then scaled so that E(q, v) equals the initial energy (the M-orthogonal projection onto that level): the energy is enforced, not conserved; conservative systems only",
        params: ParamTable::of::<NoParams>(),
        build: |_, scene, solver| {
            let sys = &scene.system;
            if let Some(reason) = not_conservative(sys) {
                return Err(NotApplicable(format!("energy projection holds the initial energy, which {reason}")));
            }
            Ok(Some(Box::new(EnergyProjection::new(NormalSolve::new(sys, solver)?, &scene.q0, &scene.v0))))
        },
    },
];

/// Why the total energy of `sys` is not a constant of its motion, if it is not: contacts
/// (impacts and friction), dampers, or drives (the clock's work).
fn not_conservative(sys: &crate::system::System) -> Option<&'static str> {
    use crate::model::{BodyKind, Force};
    if sys.contacts().is_some() {
        return Some("contact changes (impacts and friction dissipate)");
    }
    if sys.forces().iter().any(|f| matches!(f, Force::SpringDamper { damping, .. } if *damping != 0.0)) {
        return Some("a damper dissipates");
    }
    if sys.bodies().iter().any(|b| b.kind == BodyKind::Clock) {
        return Some("the drives change by the work they do");
    }
    None
}

/// Looks up a stabilizer by name.
pub fn find(name: &str) -> Option<&'static StabilizerEntry> {
    STABILIZERS.iter().find(|e| e.name == name)
}
