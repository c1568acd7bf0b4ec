//! Experiments: the YAML config, the grid of cells and its pairing rules, and the run of one cell
//! (scene × formulation × solver × integrator or own stepping × step control × stabilizer) on its
//! time axis.

mod clock;
pub mod config;
pub mod grid;
pub mod measure;
pub mod observe;
mod pairing;
pub mod runner;

pub use config::ConfigError;
pub use grid::{Cell, Experiment, OWN_STEPPER, load};
pub use measure::{Measurements, Recorded, ReferenceData};
pub use observe::{Crossings, Direction, EventSpec};
pub use runner::{CellSpec, Counters, RunResult, Sample, Status, Summary, run};
