//! Experiments: the YAML config, the grid of cells and its pairing rules, and the run of one cell
//! (scene × formulation × solver × integrator or own stepping × step control × stabilizer) on its
//! time axis.

mod axes;
pub(crate) mod budget;
pub mod cell;
pub mod check;
mod clock;
pub mod config;
mod contained;
pub(crate) mod goal;
pub mod grid;
pub mod measure;
pub mod observe;
mod pairing;
pub(crate) mod runner;
pub(crate) mod shards;
pub(crate) mod source;
pub mod store;
pub(crate) mod suite;
pub mod timing;

pub use budget::{CellMemory, Limits};
pub use cell::CellSpec;
pub use config::ConfigError;
pub use contained::run_contained;
pub use goal::{Goals, Metric, RankBy, Target};
pub use grid::{Cell, Experiment, OWN_STEPPER, load, load_with};
pub use measure::{Measurements, Recorded, ReferenceData};
pub use observe::{Crossings, Direction, EventSpec};
pub use runner::{Counters, RunResult, Sample, Status, Summary, run};
pub use timing::{Spread, Timing};
