//! Metrics: pure functions of states and trajectories (docs/design.md §6). Their exact definitions are
//! part of the product and are repeated in the README.

/// Significant correct digits as the Test Set for IVP Solvers scores a component with error `e`
/// against the reference value `y` (Mazzia & Magherini, Test Set 2.4, sec. "scd"):
/// (relative −log₁₀(|e| / |y|), mixed −log₁₀(|e| / (1 + |y|)) — its mescd with atol = rtol,
/// relative above 1 and absolute below). An exact component has +∞ digits; NaN stays NaN.
pub fn significant_digits(e: f64, y: f64) -> (f64, f64) {
    (-(e.abs() / y.abs()).log10(), -(e.abs() / (1.0 + y.abs())).log10())
}

/// ‖x‖∞ = max |xᵢ| (0 for an empty vector). Used for drift: ‖C(q)‖∞ and ‖J v‖∞.
pub fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| if v.is_nan() { f64::NAN } else { m.max(v.abs()) })
}

/// Relative energy error |E − E₀| / E_scale, with E_scale the scene's stated energy scale.
pub fn relative_energy_error(e: f64, e0: f64, scale: f64) -> f64 {
    (e - e0).abs() / scale
}

/// Constraint power Q̂ · v \[W\]: zero for ideal constraints; Baumgarte feedback does work.
pub fn constraint_power(qhat: &[f64], v: &[f64]) -> f64 {
    qhat.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// Least-squares slope of log(err) against log(h): the observed convergence order.
/// Returns NaN with fewer than two usable (positive, finite) points.
pub fn observed_order(h: &[f64], err: &[f64]) -> f64 {
    let pts: Vec<(f64, f64)> = h
        .iter()
        .zip(err)
        .filter(|(a, b)| **a > 0.0 && **b > 0.0 && b.is_finite())
        .map(|(a, b)| (a.ln(), b.ln()))
        .collect();
    linear_fit(&pts).0
}

/// Least-squares line y = slope·x + intercept through `pts`; (NaN, NaN) with fewer than two points.
pub fn linear_fit(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observed_order_recovers_an_exact_power_law() {
        let h = [0.1, 0.05, 0.025];
        let err: Vec<f64> = h.iter().map(|x: &f64| 3.0 * x.powi(4)).collect();
        assert!((observed_order(&h, &err) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn inf_norm_propagates_nan() {
        assert!(inf_norm(&[1.0, f64::NAN]).is_nan());
        assert_eq!(inf_norm(&[-3.0, 2.0]), 3.0);
    }
}
