//! The registry: every scene, formulation, linear solver, integrator and stabilizer a config,
//! `list`, `validate` and the reports can name, as one value an outside crate extends.
//!
//! [`Registry::builtin`] holds the built-in items (the lists each axis declares from its files);
//! a researcher's crate adds its own with [`Registry::with_formulation`] and its siblings and hands
//! the result to [`crate::cli::main_with`], which installs it as the process's registry before it
//! reads a config: from then on the outside items are in every table, config, cell and report
//! exactly as the built-in ones are.
//!
//! The installed registry is process-wide (like a logger): configs, cells and `validate` resolve
//! names through [`active`], which is the built-in registry unless one was installed. A registry
//! is installed at most once, before the first name is resolved.

use crate::formulation::registry::{FORMULATIONS, FormulationEntry};
use crate::integrator::registry::{INTEGRATORS, IntegratorEntry};
use crate::linsolve::registry::{SOLVERS, SolverEntry};
use crate::scene::registry::{SCENES, SceneEntry};
use crate::stabilization::registry::{STABILIZERS, StabilizerEntry};
use std::sync::OnceLock;

/// One axis of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Parametrised mechanisms.
    Scene,
    /// Constraint formulations.
    Formulation,
    /// Linear solvers.
    Solver,
    /// Time integrators.
    Integrator,
    /// Post-step stabilizers.
    Stabilizer,
}

impl Axis {
    /// The axis's name as configs spell it in the singular (`formulation`, …).
    pub fn name(self) -> &'static str {
        match self {
            Axis::Scene => "scene",
            Axis::Formulation => "formulation",
            Axis::Solver => "solver",
            Axis::Integrator => "integrator",
            Axis::Stabilizer => "stabilizer",
        }
    }
}

/// Why an item cannot be added to a registry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The name is not 1–40 characters of `a-z`, `0-9` and `_` starting with a letter.
    #[error(
        "{} name {name:?} is not valid: use 1-40 characters of a-z, 0-9 and _, starting with a letter",
        axis.name()
    )]
    BadName {
        /// The axis.
        axis: Axis,
        /// The name given.
        name: String,
    },
    /// An item of that axis already has the name.
    #[error("{} `{name}` is already registered; choose another name", axis.name())]
    Duplicate {
        /// The axis.
        axis: Axis,
        /// The name given.
        name: String,
    },
}

/// Every item configs can name, on every axis, in `list` order (built-in items first, then the
/// outside ones in the order they were added).
#[derive(Clone)]
pub struct Registry {
    scenes: Vec<SceneEntry>,
    formulations: Vec<FormulationEntry>,
    solvers: Vec<SolverEntry>,
    integrators: Vec<IntegratorEntry>,
    stabilizers: Vec<StabilizerEntry>,
    outside: Vec<(Axis, &'static str)>,
}

/// Whether `name` may name a registry item (the same rule for built-in and outside items).
fn valid_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

impl Registry {
    /// The built-in items and nothing else (the linear solvers, then the contact solvers on the
    /// same axis).
    pub fn builtin() -> Self {
        Registry {
            scenes: SCENES.to_vec(),
            formulations: FORMULATIONS.to_vec(),
            solvers: SOLVERS.iter().chain(&crate::linsolve::contact::CONTACT_ENTRIES).copied().collect(),
            integrators: INTEGRATORS.to_vec(),
            stabilizers: STABILIZERS.to_vec(),
            outside: Vec::new(),
        }
    }

    fn admit(&mut self, axis: Axis, name: &'static str, taken: bool) -> Result<(), RegistryError> {
        if !valid_name(name) {
            return Err(RegistryError::BadName { axis, name: name.into() });
        }
        if taken {
            return Err(RegistryError::Duplicate { axis, name: name.into() });
        }
        self.outside.push((axis, name));
        Ok(())
    }

    /// The registry with an outside scene added.
    pub fn with_scene(mut self, entry: SceneEntry) -> Result<Self, RegistryError> {
        self.admit(Axis::Scene, entry.name, self.scene(entry.name).is_some())?;
        self.scenes.push(entry);
        Ok(self)
    }

    /// The registry with an outside formulation added.
    pub fn with_formulation(mut self, entry: FormulationEntry) -> Result<Self, RegistryError> {
        self.admit(Axis::Formulation, entry.name, self.formulation(entry.name).is_some())?;
        self.formulations.push(entry);
        Ok(self)
    }

    /// The registry with an outside linear solver added.
    pub fn with_solver(mut self, entry: SolverEntry) -> Result<Self, RegistryError> {
        self.admit(Axis::Solver, entry.name, self.solver(entry.name).is_some())?;
        self.solvers.push(entry);
        Ok(self)
    }

    /// The registry with an outside integrator added.
    pub fn with_integrator(mut self, entry: IntegratorEntry) -> Result<Self, RegistryError> {
        self.admit(Axis::Integrator, entry.name, self.integrator(entry.name).is_some())?;
        self.integrators.push(entry);
        Ok(self)
    }

    /// The registry with an outside stabilizer added.
    pub fn with_stabilizer(mut self, entry: StabilizerEntry) -> Result<Self, RegistryError> {
        self.admit(Axis::Stabilizer, entry.name, self.stabilizer(entry.name).is_some())?;
        self.stabilizers.push(entry);
        Ok(self)
    }

    /// Every scene.
    pub fn scenes(&self) -> &[SceneEntry] {
        &self.scenes
    }
    /// Every formulation.
    pub fn formulations(&self) -> &[FormulationEntry] {
        &self.formulations
    }
    /// Every linear solver.
    pub fn solvers(&self) -> &[SolverEntry] {
        &self.solvers
    }
    /// Every integrator.
    pub fn integrators(&self) -> &[IntegratorEntry] {
        &self.integrators
    }
    /// Every stabilizer.
    pub fn stabilizers(&self) -> &[StabilizerEntry] {
        &self.stabilizers
    }

    /// The scene named `name`.
    pub fn scene(&self, name: &str) -> Option<&SceneEntry> {
        self.scenes.iter().find(|e| e.name == name)
    }
    /// The formulation named `name`.
    pub fn formulation(&self, name: &str) -> Option<&FormulationEntry> {
        self.formulations.iter().find(|e| e.name == name)
    }
    /// The linear solver named `name`.
    pub fn solver(&self, name: &str) -> Option<&SolverEntry> {
        self.solvers.iter().find(|e| e.name == name)
    }
    /// The integrator named `name`.
    pub fn integrator(&self, name: &str) -> Option<&IntegratorEntry> {
        self.integrators.iter().find(|e| e.name == name)
    }
    /// The stabilizer named `name`.
    pub fn stabilizer(&self, name: &str) -> Option<&StabilizerEntry> {
        self.stabilizers.iter().find(|e| e.name == name)
    }

    /// Every scene's name, comma-separated (for messages).
    pub fn scene_names(&self) -> String {
        self.scenes.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
    }

    /// The items added from outside, in the order they were added (reports name them).
    pub fn outside(&self) -> &[(Axis, &'static str)] {
        &self.outside
    }

    /// Whether the item `name` of `axis` came from outside the crate.
    pub fn is_outside(&self, axis: Axis, name: &str) -> bool {
        self.outside.iter().any(|&(a, n)| a == axis && n == name)
    }

    /// Makes this the process's registry ([`active`]); returns it back if a registry is already
    /// active (installed, or the built-in one after a name was resolved).
    pub fn install(self) -> Result<&'static Registry, Box<Registry>> {
        let mut this = Some(self);
        let active = ACTIVE.get_or_init(|| this.take().expect("taken once"));
        match this {
            None => Ok(active),
            Some(back) => Err(Box::new(back)),
        }
    }
}

static ACTIVE: OnceLock<Registry> = OnceLock::new();

/// The process's registry: the one installed ([`Registry::install`]), else the built-in one.
pub fn active() -> &'static Registry {
    ACTIVE.get_or_init(Registry::builtin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_items_are_checked_and_recorded() {
        let mut twin = *crate::formulation::registry::find("force").unwrap();
        twin.name = "force";
        let r = Registry::builtin().with_formulation(twin);
        assert!(matches!(r, Err(RegistryError::Duplicate { axis: Axis::Formulation, .. })));
        twin.name = "Force 2";
        assert!(matches!(Registry::builtin().with_formulation(twin), Err(RegistryError::BadName { .. })));
        twin.name = "force_twin";
        let r = Registry::builtin().with_formulation(twin).unwrap();
        assert_eq!(r.formulations().len(), FORMULATIONS.len() + 1);
        assert!(r.is_outside(Axis::Formulation, "force_twin"));
        assert!(!r.is_outside(Axis::Formulation, "force"));
        // Every built-in name obeys the rule outside names must.
        let b = Registry::builtin();
        let names = b.scenes().iter().map(|e| e.name).chain(b.formulations().iter().map(|e| e.name));
        let names = names.chain(b.solvers().iter().map(|e| e.name)).chain(b.integrators().iter().map(|e| e.name));
        for n in names.chain(b.stabilizers().iter().map(|e| e.name)) {
            assert!(valid_name(n), "{n}");
        }
    }
}
