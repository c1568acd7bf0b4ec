//! Scenes: parametrised mechanisms with a consistent initial state and, where one exists, a
//! reference solution (DESIGN.md §5). One file per scene; the list is in [`registry`].

mod bead;
mod chain;
mod cloth;
mod double_pendulum;
mod four_bar;
mod pendulum;
pub mod registry;
mod slider_crank;

use crate::model::{ModelError, System};

/// A known answer a scene can be checked against.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// The exact period of a periodic motion.
    Period {
        /// Period T \[s\].
        seconds: f64,
        /// The formula it comes from, with its source.
        formula: &'static str,
    },
}

/// The characteristic energy that energy errors are divided by.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergyScale {
    /// Value \[J\].
    pub joules: f64,
    /// How it is defined for this scene (stated in reports).
    pub definition: &'static str,
}

/// A built scene: the system and its initial state.
#[derive(Debug)]
pub struct Scene {
    /// Registry name of the scene.
    pub name: &'static str,
    /// Bodies, forces and constraints.
    pub system: System,
    /// Initial positions (C(q0) = 0 to rounding).
    pub q0: Vec<f64>,
    /// Initial velocities (J v0 = 0 to rounding).
    pub v0: Vec<f64>,
    /// Known answer, if any.
    pub reference: Option<Reference>,
    /// Scale of relative energy errors.
    pub energy_scale: EnergyScale,
}

/// A scene that cannot be built from the given parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The model rejected a body, force or constraint.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The parameters describe a mechanism that cannot be assembled.
    #[error("scene {scene}: {reason}")]
    Geometry {
        /// Scene name.
        scene: &'static str,
        /// Why (naming the parameters involved).
        reason: String,
    },
}
