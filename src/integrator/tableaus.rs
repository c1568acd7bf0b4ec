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

/// The continuous extension (dense output) of a method: y(t₀ + θh) for θ ∈ [0, 1] from one step's
/// stages (Hairer, Nørsett & Wanner, Solving ODEs I, §II.6).
#[derive(Clone, Copy, Debug)]
pub enum Dense {
    /// None: the method is sampled only at step boundaries.
    None,
    /// Dopri5's order-4 extension (Hairer I, §II.6; dopri5.f `contd5`):
    /// y(θ) = r₁ + θ(r₂ + (1−θ)(r₃ + θ(r₄ + (1−θ) r₅))), r₁ = y₀, r₂ = y₁ − y₀, r₃ = h k₁ − r₂,
    /// r₄ = r₂ − h k₇ − r₃, r₅ = h Σ dⱼ kⱼ (k₇ = f(y₁), the FSAL stage). No extra evaluation.
    Dopri5(&'static [f64; 7]),
    /// Dop853's order-7 extension (Hairer I, §II.6; dop853.f `contd8`): the same nesting to r₈,
    /// r₅…r₈ = h Σ dᵢⱼ kⱼ over 16 stages, of which stage 13 is f(y₁) and stages 14–16 are three
    /// extra evaluations.
    Dop853 {
        /// Nodes of the extra stages.
        c: &'static [f64; 3],
        /// Their rows as (stage index from 0, coefficient), nonzero entries only.
        a: &'static [&'static [(usize, f64)]; 3],
        /// d₄…d₇ as (stage index from 0, coefficient), nonzero entries only.
        d: &'static [&'static [(usize, f64)]; 4],
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
    /// Continuous extension for sampling between steps.
    pub dense: Dense,
}
