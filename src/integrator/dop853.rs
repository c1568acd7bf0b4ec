//! `dop853` — the Dormand–Prince 8(5,3) method with error control (Hairer I, §II.10); its
//! coefficients are in `dop853_tableau.rs`.

use super::registry::{IntegratorEntry, Make};
use super::tableaus::{Dense, ErrorEstimate, Tableau};
use super::{Control, RungeKutta};
use super::dop853_tableau as d8;

/// Dormand–Prince 8(5,3) (Hairer I, §II.10; controller of dop853.f: β = 0, ratio in [1/3, 6]).
pub const DOP853: Tableau = Tableau {
    name: "dop853",
    c: &d8::C,
    a: &d8::A,
    b: &d8::B,
    order: 8,
    error: ErrorEstimate::Dop853 { e5: &d8::E, bhh: d8::BHH },
    fsal: false,
    expo: 1.0 / 8.0,
    beta: 0.0,
    fac_min: 1.0 / 3.0,
    fac_max: 6.0,
    dense: Dense::Dop853 { c: &d8::DENSE_C, a: &d8::DENSE_A, d: &d8::DENSE_D },
};

/// The registry entry of `dop853`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "dop853",
    summary: "Dormand-Prince 8(5,3), adaptive (rtol = atol = tolerance)",
    order: DOP853.order,
    make: Make::Adaptive(|rtol, atol| Box::new(RungeKutta::new(&DOP853, Control::Adaptive { rtol, atol }))),
    dae: false,
};
