//! Experiments: one run of a cell (scene × formulation × solver × integrator × step control), and
//! later the YAML grid and provenance on top of it.

pub mod config;
pub mod grid;
pub mod runner;

pub use config::ConfigError;
pub use grid::{Cell, Experiment, OWN_STEPPER, Recorded, load};
pub use runner::{CellSpec, Counters, RunResult, Sample, Status, Summary, run};
