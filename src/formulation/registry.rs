//! The formulation registry: what a formulation entry is, and the lookup. The list itself
//! ([`FORMULATIONS`]) is declared in `formulation/mod.rs` from the files' names: adding a
//! formulation = one file (its parameter struct and `ENTRY`) + one name there; the runner,
//! `tinkertoy list` and the conformance tests pick it up.

pub use super::FORMULATIONS;
use super::{Dynamics, NotApplicable};
use crate::linsolve::LinearSolver;
use crate::linsolve::registry::SolverEntry;
pub use crate::linsolve::registry::SystemKind;
use crate::params::{ParamTable, Params, Resolved};
use crate::scene::Scene;

/// How a formulation advances in time, which decides what it pairs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormulationKind {
    /// It yields the ODE ẍ = a(x, ẋ): it pairs with every integrator (fixed steps and tolerances).
    Ode,
    /// It is its own time-stepping scheme: it pairs with step sizes, never with an integrator.
    Stepper,
    /// It yields the constrained equations as a DAE (and, for measurement, the ODE of `force`
    /// without feedback): it pairs with the integrators of DAEs only.
    Dae,
}

impl FormulationKind {
    /// Whether it pairs with integrators (an ODE or a DAE) rather than with its own steps.
    pub fn takes_integrators(self) -> bool {
        self != FormulationKind::Stepper
    }

    /// Whether it pairs with integrator `i`: every integrator for an ODE, the integrators of
    /// DAEs for a DAE, none for a stepper.
    pub fn pairs_with_integrator(self, i: &crate::integrator::registry::IntegratorEntry) -> bool {
        match self {
            FormulationKind::Ode => true,
            FormulationKind::Dae => i.dae,
            FormulationKind::Stepper => false,
        }
    }
}

/// The parameters of a formulation, which know how to build it on a scene.
pub trait FormulationParams: Params {
    /// Builds the formulation on `scene` with `solver`, or says why it does not apply.
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable>;
    /// Bytes of the formulation's own workspace beyond the budget's generic per-cell vectors, for
    /// `rows` rows of its linear system and a state of `state` = nq + n numbers (0 by default).
    fn workspace_bytes(&self, _rows: usize, _state: usize) -> u64 {
        0
    }
}

/// The formulation's own workspace in bytes for its parameters, system rows and state size.
pub type WorkspaceFn = fn(&Resolved, usize, usize) -> u64;

/// Builds a formulation on a scene with a linear solver, or says why it does not apply.
pub type BuildFn = for<'a> fn(&Resolved, &'a Scene, Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable>;

/// One registered formulation.
#[derive(Clone, Copy)]
pub struct FormulationEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: level and system solved.
    pub summary: &'static str,
    /// ODE or stepper.
    pub kind: FormulationKind,
    /// Declared parameters.
    pub params: ParamTable,
    /// Builds the dynamics.
    pub build: BuildFn,
    /// Its own workspace, for the memory budget ([`FormulationParams::workspace_bytes`]).
    pub workspace: WorkspaceFn,
    /// The linear system it hands to the cell's solver: it pairs with the solvers that accept
    /// it ([`crate::linsolve::registry::SolverEntry::accepts`]), and its memory scales with it.
    pub system: SystemKind,
    /// A stepping formulation's order of accuracy in h (positions at a fixed time), which
    /// `validate` checks on a 2D and a 3D mechanism; None for the ODE formulations, whose order
    /// is their integrator's.
    pub order: Option<u32>,
    /// Whether the stepping formulation conserves the energy of a conservative mechanism (bounded
    /// error, no secular drift: symplectic or energy-conserving), which `validate` checks.
    pub conservative: bool,
    /// Whether it runs scenes with contact (inequality rows of its own); the others report such a
    /// scene as not applicable.
    pub contact: bool,
    /// The contact model of its own contact stages when it is not the rigid problem of the step
    /// (`pgs` solves that problem; a soft or position-level contact answers another): `validate`
    /// reports its misses of the exact contact cases as predicted, with this as the reason.
    pub contact_model: Option<&'static str>,
    /// Named parameter sets that change the method, not just its accuracy (a stepping
    /// formulation's other form), which `validate` checks next to the defaults.
    pub variants: &'static [Variant],
}

/// A named parameter set of a formulation that `validate` checks as its own method.
pub type Variant = (&'static str, &'static [(&'static str, crate::params::Scalar)]);

fn build_erased<'a, P: FormulationParams>(
    p: &Resolved,
    scene: &'a Scene,
    solver: Box<dyn LinearSolver>,
) -> Result<Dynamics<'a>, NotApplicable> {
    p.get::<P>().build(scene, solver)
}

fn workspace_erased<P: FormulationParams>(p: &Resolved, rows: usize, state: usize) -> u64 {
    p.get::<P>().workspace_bytes(rows, state)
}

impl FormulationEntry {
    /// The entry of a formulation of kind `kind` whose parameters are `P`, using the cell's solver.
    pub const fn of<P: FormulationParams>(name: &'static str, summary: &'static str, kind: FormulationKind) -> Self {
        FormulationEntry {
            name,
            summary,
            kind,
            params: ParamTable::of::<P>(),
            build: build_erased::<P>,
            workspace: workspace_erased::<P>,
            system: SystemKind::Normal,
            order: None,
            conservative: false,
            contact: false,
            contact_model: None,
            variants: &[],
        }
    }

    /// The same entry with parameter sets that `validate` checks as methods of their own.
    pub const fn with_variants(self, variants: &'static [Variant]) -> Self {
        FormulationEntry { variants, ..self }
    }

    /// The same entry declared energy-conserving (bounded energy error, no drift).
    pub const fn conservative(self) -> Self {
        FormulationEntry { conservative: true, ..self }
    }

    /// The same entry declared to run scenes with contact, solving the rigid contact problem.
    pub const fn with_contact(self) -> Self {
        FormulationEntry { contact: true, ..self }
    }

    /// The same entry declared to run scenes with contact by stages of its own that answer
    /// another problem than the rigid one, described by `model` ([`FormulationEntry::contact_model`]).
    pub const fn with_contact_model(self, model: &'static str) -> Self {
        FormulationEntry { contact: true, contact_model: Some(model), ..self }
    }

    /// The same entry with its declared order of accuracy (stepping formulations).
    pub const fn with_order(self, order: u32) -> Self {
        FormulationEntry { order: Some(order), ..self }
    }

    /// The same entry solving a system of kind `system` (default [`SystemKind::Normal`]).
    pub const fn solving(self, system: SystemKind) -> Self {
        FormulationEntry { system, ..self }
    }

    /// Whether it pairs with `solver`: the solver accepts the system it solves.
    pub fn pairs_with(&self, solver: &SolverEntry) -> bool {
        solver.accepts.contains(&self.system)
    }
}

/// Looks up a formulation by name.
pub fn find(name: &str) -> Option<&'static FormulationEntry> {
    FORMULATIONS.iter().find(|e| e.name == name)
}
