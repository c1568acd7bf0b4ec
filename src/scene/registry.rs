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

    /// The size of the scene these values build, computed without building it, so that the
    /// budget can refuse a scene too large for memory before any of it is allocated. Scenes whose
    /// size grows with a parameter must return it (the conformance tests check it against the
    /// built scene); None: a fixed-size scene, small enough to build to find out.
    fn size(&self) -> Option<SceneSize> {
        None
    }
}

/// The size of a scene: what the memory it needs scales with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneSize {
    /// Bodies.
    pub bodies: usize,
    /// Position coordinates (length of q).
    pub nq: usize,
    /// Degrees of freedom (length of v).
    pub ndof: usize,
    /// Constraints.
    pub constraints: usize,
    /// Constraint rows (length of C).
    pub rows: usize,
}

impl SceneSize {
    /// The size of a built scene.
    pub fn of(scene: &Scene) -> Self {
        let s = &scene.system;
        SceneSize {
            bodies: s.bodies().len(),
            nq: s.nq(),
            ndof: s.ndof(),
            constraints: s.constraints().len(),
            rows: s.nrows(),
        }
    }

    /// Bytes a built scene of this size holds (bodies, boxed constraints, q0, v0, offsets), an
    /// upper bound measured on the chain and cloth scenes.
    pub fn bytes(&self) -> u64 {
        (self.bodies as u64) * 96 + (self.constraints as u64) * 160 + (self.nq + self.ndof) as u64 * 24
    }
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
    /// The size the parameters give, without building ([`SceneParams::size`]).
    pub size: fn(&Resolved) -> Option<SceneSize>,
    /// Parameter overrides that make the scene small enough for exhaustive tests (dense
    /// references, many random instances); empty when the defaults already are.
    pub test_size: &'static [(&'static str, f64)],
}

fn build_erased<P: SceneParams>(p: &Resolved) -> Result<Scene, SceneError> {
    p.get::<P>().build()
}

fn size_erased<P: SceneParams>(p: &Resolved) -> Option<SceneSize> {
    p.get::<P>().size()
}

impl SceneEntry {
    /// The entry of a scene whose parameters are `P`.
    pub const fn of<P: SceneParams>(name: &'static str, summary: &'static str) -> Self {
        SceneEntry {
            name,
            summary,
            params: ParamTable::of::<P>(),
            build: build_erased::<P>,
            size: size_erased::<P>,
            test_size: &[],
        }
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
