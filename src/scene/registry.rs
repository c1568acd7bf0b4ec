//! The scene registry: what a scene entry is, and the lookup. The list itself ([`SCENES`]) is
//! declared in `scene/mod.rs` from the scene files' names: adding a scene = one file (its
//! parameter struct and `ENTRY`) + one name there; the conformance tests and `tinkertoy list`
//! pick it up.

pub use super::SCENES;
use super::{Scene, SceneError};
use crate::params::{ParamError, ParamTable, Params, Resolved, Scalar};

/// The parameters of a scene, which know how to build it.
pub trait SceneParams: Params {
    /// Builds the scene (C(q0) = 0 and J v0 = 0 to rounding), or says why these values do not
    /// describe a buildable mechanism.
    fn build(&self) -> Result<Scene, SceneError>;
}

/// One registered scene.
#[derive(Clone, Copy)]
pub struct SceneEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: what the mechanism is.
    pub summary: &'static str,
    /// Declared parameters with defaults and units.
    pub params: ParamTable,
    /// Builds the scene from resolved parameters.
    pub build: fn(&Resolved) -> Result<Scene, SceneError>,
    /// Parameter overrides that make the scene small enough for exhaustive tests (dense
    /// references, many random instances); empty when the defaults already are.
    pub test_size: &'static [(&'static str, f64)],
}

fn build_erased<P: SceneParams>(p: &Resolved) -> Result<Scene, SceneError> {
    p.get::<P>().build()
}

impl SceneEntry {
    /// The entry of a scene whose parameters are `P`.
    pub const fn of<P: SceneParams>(name: &'static str, summary: &'static str) -> Self {
        SceneEntry { name, summary, params: ParamTable::of::<P>(), build: build_erased::<P>, test_size: &[] }
    }

    /// The same entry with the overrides tests use for a small instance.
    pub const fn with_test_size(self, test_size: &'static [(&'static str, f64)]) -> Self {
        SceneEntry { test_size, ..self }
    }

    /// The small instance of the scene that tests use ([`SceneEntry::test_size`]).
    pub fn build_small(&self) -> Result<Scene, BuildError> {
        let given: Vec<(&str, Scalar)> = self.test_size.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
        self.build_default(&given)
    }

    /// Checks `given` against the declared parameters and builds the scene.
    pub fn build_with(&self, given: &[(String, Scalar)]) -> Result<Scene, BuildError> {
        let values = (self.params.resolve)(&format!("scene {}", self.name), given)?;
        Ok((self.build)(&values)?)
    }

    /// The scene at its default parameters with `overrides` (tests, benchmarks, scripts).
    pub fn build_default(&self, overrides: &[(&str, Scalar)]) -> Result<Scene, BuildError> {
        let given: Vec<(String, Scalar)> = overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        self.build_with(&given)
    }
}

/// Why a scene could not be built from user parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// A parameter was unknown or out of its domain.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The parameters do not describe a buildable mechanism.
    #[error(transparent)]
    Scene(#[from] SceneError),
}

/// Looks up a scene by name.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|e| e.name == name)
}

/// The registered scene names, comma-separated (for "expected one of" messages).
pub fn names() -> String {
    SCENES.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}
