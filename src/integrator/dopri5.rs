//! `dopri5` — the Dormand–Prince 5(4) pair with error control (Dormand & Prince 1980).

use super::registry::{IntegratorEntry, Make};
use super::tableaus::{Dense, ErrorEstimate, Tableau};
use super::{Control, RungeKutta};

/// Dormand–Prince 5(4) (Dormand & Prince 1980; Hairer I, Table II.5.2; controller of dopri5.f:
/// β = 0.04, step ratio in [0.2, 10]).
pub const DOPRI5: Tableau = Tableau {
    name: "dopri5",
    c: &[0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0],
    a: &[
        &[1.0 / 5.0],
        &[3.0 / 40.0, 9.0 / 40.0],
        &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
        &[19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0],
        &[9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0],
        &[35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0],
    ],
    b: &[35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0],
    order: 5,
    error: ErrorEstimate::Embedded(&[
        71.0 / 57600.0,
        0.0,
        -71.0 / 16695.0,
        71.0 / 1920.0,
        -17253.0 / 339200.0,
        22.0 / 525.0,
        -1.0 / 40.0,
    ]),
    fsal: true,
    expo: 0.2,
    beta: 0.04,
    fac_min: 0.2,
    fac_max: 10.0,
    dense: Dense::Dopri5(&DOPRI5_DENSE),
};

/// Dense-output weights d₁…d₇ (Hairer I, §II.6; dopri5.f).
const DOPRI5_DENSE: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// The registry entry of `dopri5`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "dopri5",
    summary: "Dormand-Prince 5(4), adaptive (rtol = atol = tolerance)",
    order: DOPRI5.order,
    make: Make::Adaptive(|rtol, atol| Box::new(RungeKutta::new(&DOPRI5, Control::Adaptive { rtol, atol }))),
    dae: false,
};
