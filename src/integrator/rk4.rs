//! `rk4` — the classic fourth-order Runge–Kutta method (Kutta 1901), fixed step.

use super::registry::{IntegratorEntry, Make};
use super::tableaus::{Dense, ErrorEstimate, Tableau};
use super::{Control, RungeKutta};

/// Classic fourth-order Runge–Kutta (Kutta 1901).
pub const RK4: Tableau = Tableau {
    name: "rk4",
    c: &[0.0, 0.5, 0.5, 1.0],
    a: &[&[0.5], &[0.0, 0.5], &[0.0, 0.0, 1.0]],
    b: &[1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
    order: 4,
    error: ErrorEstimate::None,
    fsal: false,
    expo: 0.0,
    beta: 0.0,
    fac_min: 1.0,
    fac_max: 1.0,
    dense: Dense::None,
};

/// The registry entry of `rk4`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "rk4",
    summary: "classic Runge-Kutta, order 4 (seed 003)",
    order: RK4.order,
    make: Make::Fixed(|h| Box::new(RungeKutta::new(&RK4, Control::Fixed { h }))),
    dae: false,
};
