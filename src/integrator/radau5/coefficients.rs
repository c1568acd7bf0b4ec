//! The Radau IIA (s = 3) coefficients (Hairer II, Table IV.5.6) and the eigen-decomposition of
//! A⁻¹ that splits the Newton system (Hairer II, (IV.8.15)–(8.17)).

use nalgebra::{Complex, Matrix3, Vector3};

/// The Butcher matrix A of Radau IIA with three stages (its last row is b).
pub fn butcher_a() -> Matrix3<f64> {
    let s6 = 6f64.sqrt();
    #[rustfmt::skip]
    let a = Matrix3::new(
        (88.0 - 7.0 * s6) / 360.0, (296.0 - 169.0 * s6) / 1800.0, (-2.0 + 3.0 * s6) / 225.0,
        (296.0 + 169.0 * s6) / 1800.0, (88.0 + 7.0 * s6) / 360.0, (-2.0 - 3.0 * s6) / 225.0,
        (16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0,
    );
    a
}

/// The Radau IIA (s = 3) coefficients and the transformation of A⁻¹ to block-diagonal form.
#[derive(Clone, Copy, Debug)]
pub struct Coefficients {
    /// Nodes c₁, c₂, c₃ = 1.
    pub c: [f64; 3],
    /// T: its columns are the real eigenvector of A⁻¹ and the real and imaginary parts of a
    /// complex one, so that T⁻¹ A⁻¹ T = [γ 0 0; 0 α −β; 0 β α].
    pub t: Matrix3<f64>,
    /// T⁻¹.
    pub ti: Matrix3<f64>,
    /// The real eigenvalue γ of A⁻¹.
    pub gamma: f64,
    /// The complex pair α ± iβ of A⁻¹.
    pub alpha: f64,
    /// Its imaginary part β > 0.
    pub beta: f64,
    /// The error estimate's weights on Z₁, Z₂, Z₃, divided by γ₀ = 1/γ (RADAU5's DD1–DD3).
    pub dd: [f64; 3],
}

impl Coefficients {
    /// Builds the coefficients from the Butcher matrix of Radau IIA (Hairer II, Table IV.5.6).
    pub fn new() -> Self {
        let s6 = 6f64.sqrt();
        let a = butcher_a();
        let c = [(4.0 - s6) / 10.0, (4.0 + s6) / 10.0, 1.0];
        // The eigenvalues of A: one real, u, and a complex pair p ± iq (closed forms; those of
        // A⁻¹ are their reciprocals).
        let (c81, c9) = (81f64.cbrt(), 9f64.cbrt());
        let u = (6.0 + c81 - c9) / 30.0;
        let (p, q) = ((12.0 - c81 + c9) / 60.0, (c81 + c9) * 3f64.sqrt() / 60.0);
        let real = null_vector(&a, Complex::new(u, 0.0));
        let pair = null_vector(&a, Complex::new(p, q));
        let t = Matrix3::from_columns(&[real.map(|z| z.re), pair.map(|z| z.re), pair.map(|z| z.im)]);
        let ti = t.try_inverse().expect("the eigenvectors of Radau IIA's A are independent");
        let norm = p * p + q * q;
        // The embedded order-3 formula ŷ₁ = y₀ + h (γ₀ f(y₀) + Σ b̂ᵢ f(Yᵢ)), γ₀ = u: its weights
        // from the order conditions Σ b̂ᵢ cᵢ^(k−1) = 1/k − γ₀ δ_{k1}, k = 1, 2, 3; then
        // ŷ₁ − y₁ = γ₀ h f(y₀) + eᵀ Z with e = A⁻ᵀ (b̂ − b) since h f(Yᵢ) = (A⁻¹ Z)ᵢ.
        let v = Matrix3::from_fn(|k, i| c[i].powi(k as i32));
        let bhat = v.try_inverse().expect("distinct nodes") * Vector3::new(1.0 - u, 0.5, 1.0 / 3.0);
        let b = Vector3::new(a[(2, 0)], a[(2, 1)], a[(2, 2)]);
        let ainv = a.try_inverse().expect("A is invertible");
        let e = ainv.transpose() * (bhat - b);
        Coefficients {
            c,
            t,
            ti,
            gamma: 1.0 / u,
            alpha: p / norm,
            beta: q / norm,
            dd: [e[0] / u, e[1] / u, e[2] / u],
        }
    }
}

impl Default for Coefficients {
    fn default() -> Self {
        Self::new()
    }
}

/// A vector v ≠ 0 with (A − λ I) v = 0 for an eigenvalue λ of the 3 × 3 matrix A: the cross
/// product of two rows of A − λ I (without conjugation, so it is orthogonal to both rows in the
/// bilinear sense, and to the third, which they span).
fn null_vector(a: &Matrix3<f64>, lambda: Complex<f64>) -> Vector3<Complex<f64>> {
    let m = a.map(|x| Complex::new(x, 0.0)) - Matrix3::identity() * lambda;
    let (r0, r1) = (m.row(0), m.row(1));
    Vector3::new(
        r0[1] * r1[2] - r0[2] * r1[1],
        r0[2] * r1[0] - r0[0] * r1[2],
        r0[0] * r1[1] - r0[1] * r1[0],
    )
}
