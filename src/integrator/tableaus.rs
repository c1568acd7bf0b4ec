//! The Butcher-tableau type of the explicit Runge–Kutta methods (data for [`super::runge_kutta`]);
//! each method's tableau lives in its own file with its registry entry.

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
