//! Special functions needed by reference solutions.

/// Complete elliptic integral of the first kind K(m) = ∫₀^{π/2} dφ / √(1 − m sin²φ), with the
/// parameter m = k² in \[0, 1).
///
/// Computed by the arithmetic–geometric mean, K(m) = π / (2 AGM(1, √(1 − m))) (Abramowitz & Stegun
/// 17.6.1); the iteration converges quadratically, so 2·ulp accuracy is reached in a few steps.
pub fn ellip_k(m: f64) -> f64 {
    assert!((0.0..1.0).contains(&m), "ellip_k: parameter m = {m} outside [0, 1)");
    let (mut a, mut b) = (1.0f64, (1.0 - m).sqrt());
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        let an = 0.5 * (a + b);
        b = (a * b).sqrt();
        a = an;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Jacobi elliptic function sn(u | m) for parameter m = k² in \[0, 1).
///
/// Descending Landen / AGM scheme (Abramowitz & Stegun 16.4.3): run the AGM a_{n+1} = (a_n + b_n)/2,
/// b_{n+1} = √(a_n b_n), c_{n+1} = (a_n − b_n)/2 from (1, √(1−m), √m) until c_N vanishes, set
/// φ_N = 2^N a_N u, recur φ_{n−1} = (φ_n + asin(c_n sin φ_n / a_n)) / 2, and return sin φ_0.
pub fn jacobi_sn(u: f64, m: f64) -> f64 {
    assert!((0.0..1.0).contains(&m), "jacobi_sn: parameter m = {m} outside [0, 1)");
    const MAX: usize = 16;
    let (mut a, mut c) = ([0.0f64; MAX], [0.0f64; MAX]);
    a[0] = 1.0;
    c[0] = m.sqrt();
    let mut b = (1.0 - m).sqrt();
    let mut n = 0;
    while n + 1 < MAX && c[n].abs() > 1e-16 {
        a[n + 1] = 0.5 * (a[n] + b);
        c[n + 1] = 0.5 * (a[n] - b);
        b = (a[n] * b).sqrt();
        n += 1;
    }
    let mut phi = (1u64 << n) as f64 * a[n] * u;
    for i in (1..=n).rev() {
        phi = 0.5 * (phi + (c[i] * phi.sin() / a[i]).asin());
    }
    phi.sin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_sn_limits_and_quarter_period() {
        // m = 0: sn(u|0) = sin u. At u = K(m): sn = 1 for every m (A&S 16.5.1).
        for u in [-2.0, 0.3, 1.0, 5.0] {
            assert!((jacobi_sn(u, 0.0) - f64::sin(u)).abs() < 1e-15);
        }
        for m in [0.1, 0.5, 0.9, 0.99] {
            assert!((jacobi_sn(ellip_k(m), m) - 1.0).abs() < 1e-12, "m = {m}");
            assert!(jacobi_sn(2.0 * ellip_k(m), m).abs() < 1e-12, "m = {m}");
        }
        // sn(0.5 | 0.5) = 0.470750473655657, from mpmath.ellipfun("sn", 0.5, m=0.5) (50-digit arithmetic).
        assert!((jacobi_sn(0.5, 0.5) - 0.470_750_473_655_657).abs() < 1e-13);
    }

    #[test]
    fn ellip_k_matches_tabulated_values() {
        // K(0) = π/2 exactly; K(0.5) = 1.854074677301372 (A&S table 17.1, DLMF 19.2).
        assert!((ellip_k(0.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert!((ellip_k(0.5) - 1.854_074_677_301_372).abs() < 1e-14);
    }
}
