//! The scene registry: the only list of scenes. Adding a scene = one file + one line here; the
//! conformance tests and `tinkertoy list` pick it up.

use super::{
    Scene, SceneError, bead, bounce, box_stack, chain, chain_3d, cloth, door, double_pendulum, four_bar, pendulum,
    piston, ramp, slider_crank, torque_free, welded_pendulum,
};
use crate::params::{self, ParamError, ParamSpec, ParamValues};

/// One registered scene.
pub struct SceneEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: what the mechanism is.
    pub summary: &'static str,
    /// Declared parameters with defaults and units.
    pub params: &'static [ParamSpec],
    /// Builds the scene from resolved parameters.
    pub build: fn(&ParamValues) -> Result<Scene, SceneError>,
}

impl SceneEntry {
    /// Checks `given` against the declared parameters and builds the scene.
    pub fn build_with(&self, given: &[(String, f64)]) -> Result<Scene, BuildError> {
        let values = params::resolve(&format!("scene {}", self.name), self.params, given)?;
        Ok((self.build)(&values)?)
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

/// Every scene.
pub const SCENES: &[SceneEntry] = &[
    SceneEntry {
        name: "bead",
        summary: "bead on a circle under gravity (seed 002)",
        params: bead::PARAMS,
        build: bead::build,
    },
    SceneEntry {
        name: "pendulum",
        summary: "simple pendulum; reference: exact period via K(k^2)",
        params: pendulum::PARAMS,
        build: pendulum::build,
    },
    SceneEntry {
        name: "double_pendulum",
        summary: "two point masses, two rods",
        params: double_pendulum::PARAMS,
        build: double_pendulum::build,
    },
    SceneEntry {
        name: "chain",
        summary: "N particles, first pinned, rigid links, released horizontal",
        params: chain::PARAMS,
        build: chain::build,
    },
    SceneEntry {
        name: "cloth",
        summary: "W x H 3D particle grid, structural links, two pinned corners",
        params: cloth::PARAMS,
        build: cloth::build,
    },
    SceneEntry {
        name: "slider_crank",
        summary: "torque-driven wheel, rod and slider (seed 003)",
        params: slider_crank::PARAMS,
        build: slider_crank::build,
    },
    SceneEntry {
        name: "four_bar",
        summary: "closed loop of three rigid bars between two world pivots",
        params: four_bar::PARAMS,
        build: four_bar::build,
    },
    SceneEntry {
        name: "torque_free",
        summary: "torque-free asymmetric rigid-3D body spun about its intermediate axis: it flips (seed 001)",
        params: torque_free::PARAMS,
        build: torque_free::build,
    },
    SceneEntry {
        name: "chain_3d",
        summary: "N rigid-3D links joined by ball joints, hung from the origin, released in a horizontal zig-zag (seed 001)",
        params: chain_3d::PARAMS,
        build: chain_3d::build,
    },
    SceneEntry {
        name: "door",
        summary: "rigid-3D door on a hinge tilted from vertical, swinging under gravity (seed 001)",
        params: door::PARAMS,
        build: door::build,
    },
    SceneEntry {
        name: "piston",
        summary: "crank on a hinge, rod (distance joint), piston on a slider (seed 001)",
        params: piston::PARAMS,
        build: piston::build,
    },
    SceneEntry {
        name: "welded_pendulum",
        summary: "bar on a ball joint with a cross bar welded to it: asymmetric 3D compound pendulum (seed 001)",
        params: welded_pendulum::PARAMS,
        build: welded_pendulum::build,
    },
    SceneEntry {
        name: "ramp",
        summary: "box on a 30 deg ramp with Coulomb friction: sticks for mu >= tan 30 deg, slides otherwise (seed 001)",
        params: ramp::PARAMS,
        build: ramp::build,
    },
    SceneEntry {
        name: "box_stack",
        summary: "N cubes stacked on the ground, released at rest: contact and friction must hold it (seed 001)",
        params: box_stack::PARAMS,
        build: box_stack::build,
    },
    SceneEntry {
        name: "bounce",
        summary: "spheres dropped in an offset column onto the ground: restitution, sphere-sphere contact (seed 001)",
        params: bounce::PARAMS,
        build: bounce::build,
    },
];

/// Looks up a scene by name.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|e| e.name == name)
}

/// The registered scene names, comma-separated (for "expected one of" messages).
pub fn names() -> String {
    SCENES.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}
