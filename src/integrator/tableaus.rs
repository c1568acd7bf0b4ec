//! Butcher tableaux of the explicit Runge–Kutta methods (data for [`super::runge_kutta`]).

use super::dop853_tableau as d8;

/// How a method estimates its local error.
#[derive(Clone, Copy, Debug)]
pub enum ErrorEstimate {
    /// No estimate: fixed steps only.
    None,
    /// Embedded pair: err = h Σ eᵢ kᵢ (eᵢ = bᵢ − b̂ᵢ), RMS norm (Hairer I, §II.4).
    Embedded(&'static [f64]),
    /// DOP853's combined 5th/3rd-order estimate (Hairer I, §II.10, eq. 10.19 and dop853.f).
    Dop853 {
        /// 5th-order estimator weights.
        e5: &'static [f64],
        /// 3rd-order estimator weights on k₁, k₉, k₁₂.
        bhh: [f64; 3],
    },
}

/// An explicit Runge–Kutta method.
#[derive(Clone, Copy, Debug)]
pub struct Tableau {
    /// Registry name of the method.
    pub name: &'static str,
    /// Nodes cᵢ (unused by the autonomous ODEs here; kept for completeness).
    pub c: &'static [f64],
    /// Rows a₂…a_s of the strictly lower-triangular Runge–Kutta matrix.
    pub a: &'static [&'static [f64]],
    /// Weights bᵢ of the propagated solution.
    pub b: &'static [f64],
    /// Order of the propagated solution.
    pub order: u32,
    /// Error estimator.
    pub error: ErrorEstimate,
    /// First-same-as-last: the last stage is f(y⁺) (its row of a equals b).
    pub fsal: bool,
    /// Step-size controller exponent 1/(q+1) for the estimator's order q.
    pub expo: f64,
    /// PI-controller β (Hairer I, §IV.2; 0 for a plain controller).
    pub beta: f64,
    /// Bounds on the step ratio h_new / h.
    pub fac_min: f64,
    /// Upper bound on the step ratio.
    pub fac_max: f64,
}

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
};

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
};

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
};
