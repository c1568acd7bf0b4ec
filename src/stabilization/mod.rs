//! Post-step stabilizers: corrections a cell applies to its Cartesian state after every step
//! (docs/design.md §2.8). One file per stabilizer; the list is in [`registry`].

mod energy;
mod projection;
pub mod registry;

pub use energy::EnergyProjection;
pub use projection::Projection;

use crate::linsolve::SolveError;
use crate::linsolve::SolverCounters;

/// A correction of (q, v) after a step, e.g. projection onto C(q) = 0 and J v = 0.
pub trait Stabilizer: Send {
    /// Corrects the Cartesian state in place.
    fn apply(&mut self, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError>;
    /// Cumulative linear-solver work.
    fn counters(&self) -> SolverCounters;
    /// The (tolerance on ‖C‖∞, iteration cap) of a projection, which a formulation in reduced
    /// coordinates applies itself ([`crate::integrator::SecondOrderOde::project`]); `None` for a
    /// correction only Cartesian states take.
    fn target(&self) -> Option<(f64, usize)> {
        None
    }
}
