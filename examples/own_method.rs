//! A researcher's own method in the harness, written outside the crate against its public API
//! only: the constrained symplectic Euler method, registered next to the built-in formulations,
//! with the whole command line. `cargo run --release --example own_method -- list` shows it,
//! `… -- run examples/own_method.yaml` runs it in a cross product with built-in cells and
//! reports it, `… -- validate --formulation constrained_euler` gives it every check a built-in
//! stepper gets.
//!
//! The method (Hairer, Lubich & Wanner, Geometric Numerical Integration, 2nd ed., §VII.1.4: the
//! first-order half of RATTLE; symplectic, order 1, on the constraint manifold), one step of h:
//!   v* = vₙ + h W Q(qₙ, vₙ)
//!   qₙ₊₁ = qₙ + h (v* + W Jₙᵀ Λ),   C(qₙ₊₁) = 0        (SHAKE: solve for the impulse Λ)
//!   vₙ₊₁ = v* + W Jₙᵀ Λ + W Jₙ₊₁ᵀ μ,   Jₙ₊₁ vₙ₊₁ = 0   (project: solve for μ)
//! The constraint force reported for a step is Jₙᵀ Λ / h.
//!
//! It also registers `constrained_euler_leaky`, a deliberately broken copy that loses 1 % of the
//! velocity per second and still declares itself energy-conserving: `validate` fails it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;
use tinkertoy::formulation::registry::{FormulationEntry, FormulationKind, FormulationParams};
use tinkertoy::formulation::stepper_core::StepperCore;
use tinkertoy::formulation::{Dynamics, NotApplicable, Stepper};
use tinkertoy::linsolve::{LinearSolver, SolveError};
use tinkertoy::params::Params;
use tinkertoy::registry::Registry;
use tinkertoy::scene::Scene;

/// Options of the constrained symplectic Euler stepper.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
struct SymplecticEulerOptions {
    /// SHAKE stops when |C|inf <= tol
    #[schemars(extend("unit" = "units of C", "exclusiveMinimum" = 0))]
    tol: f64,
    /// SHAKE iterations per step before the run fails
    #[schemars(range(min = 1, max = 10_000))]
    max_iter: usize,
}

impl Default for SymplecticEulerOptions {
    fn default() -> Self {
        SymplecticEulerOptions { tol: 1e-10, max_iter: 50 }
    }
}

impl Params for SymplecticEulerOptions {}

impl FormulationParams for SymplecticEulerOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(SymplecticEuler::new(scene, *self, 0.0, solver)?)))
    }
}

/// The broken copy's options: the same, and a velocity leak it does not declare.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
struct LeakyOptions {
    /// SHAKE stops when |C|inf <= tol
    #[schemars(extend("unit" = "units of C", "exclusiveMinimum" = 0))]
    tol: f64,
}

impl Default for LeakyOptions {
    fn default() -> Self {
        LeakyOptions { tol: 1e-10 }
    }
}

impl Params for LeakyOptions {}

impl FormulationParams for LeakyOptions {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        let opts = SymplecticEulerOptions { tol: self.tol, ..Default::default() };
        Ok(Dynamics::Stepper(Box::new(SymplecticEuler::new(scene, opts, 0.01, solver)?)))
    }
}

/// The registry entry: a stepper of order 1 that conserves energy (symplectic).
const SYMPLECTIC_EULER: FormulationEntry = FormulationEntry::of::<SymplecticEulerOptions>(
    "constrained_euler",
    "constrained symplectic Euler (GNI VII.1.4): kick, SHAKE positions onto C = 0, project v onto J v = 0",
    FormulationKind::Stepper,
)
.with_order(1)
.conservative();

/// The broken copy, declared as the original is.
const LEAKY: FormulationEntry = FormulationEntry::of::<LeakyOptions>(
    "constrained_euler_leaky",
    "BROKEN ON PURPOSE: constrained_euler losing 1 % of v per second (validate must fail it)",
    FormulationKind::Stepper,
)
.with_order(1)
.conservative();

/// The stepper on one scene, with its workspace (allocated once).
struct SymplecticEuler<'a> {
    core: StepperCore<'a>,
    opts: SymplecticEulerOptions,
    /// Velocity lost per second \[1/s\] (the broken copy's defect; 0 for the method).
    leak: f64,
    /// Scratch for qₙ.
    q0: Vec<f64>,
}

impl<'a> SymplecticEuler<'a> {
    fn new(
        scene: &'a Scene,
        opts: SymplecticEulerOptions,
        leak: f64,
        solver: Box<dyn LinearSolver>,
    ) -> Result<Self, NotApplicable> {
        let core = StepperCore::new(scene, solver)?;
        Ok(SymplecticEuler { q0: vec![0.0; scene.q0.len()], core, opts, leak })
    }
}

impl Stepper for SymplecticEuler<'_> {
    fn step(&mut self, h: f64, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        self.core.integrate_velocities(q, v, h);
        self.core.shake(q, v, h, (self.opts.tol, self.opts.max_iter), &mut self.q0)?;
        // the step's constraint force: the position impulse along J(qₙ) and the projection's
        // along J(qₙ₊₁), each over h
        self.core.force_from_accumulated(1.0 / h);
        self.core.project(q, v)?;
        self.core.add_force_from_solution(1.0 / h);
        v.iter_mut().for_each(|x| *x *= 1.0 - self.leak * h);
        Ok(())
    }

    fn core(&self) -> &StepperCore<'_> {
        &self.core
    }
}

fn main() -> ExitCode {
    let registry = Registry::builtin()
        .with_formulation(SYMPLECTIC_EULER)
        .and_then(|r| r.with_formulation(LEAKY))
        .expect("the names are free");
    tinkertoy::cli::main_with(registry)
}
