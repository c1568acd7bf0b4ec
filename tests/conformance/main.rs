//! Conformance: one suite per registry axis, each iterating its registry, so adding an item to a
//! registry covers it here without editing these files.
//!
//! - `constraints`: J, J̇v, the fused C + J kernel and the geometric stiffness against finite
//!   differences on random instances;
//! - `scenes`: consistent initial states at the defaults and at the test size;
//! - `params`: every parameter table's defaults lie in its own domains and resolve to its
//!   `Default`;
//! - `formulations`: the kind an entry declares is what it builds;
//! - `layers`: every import of `src/` runs down the layers `src/lib.rs` lists;
//! - `work`: snapshots of the work counters of a fixed set of cells, so that a change that
//!   doubles the steps, evaluations, solves or iterations fails here.

mod constraints;
mod formulations;
mod layers;
mod params;
mod scenes;
mod work;
