//! GMRES on a Newton matrix that the cell's linear solver does not factor itself, right-
//! preconditioned by the factorization of a nearby symmetric normal matrix it does factor (Saad &
//! Schultz 1986, "GMRES: a generalized minimal residual algorithm for solving nonsymmetric linear
//! systems"; one cycle, no restart, Givens rotations on the Hessenberg matrix). Shared by
//! `midpoint` (the exact matrix's constraint rows use J at the end point) and `rattle`'s full
//! Newton (J(qₙ₊₁) W Jₙᵀ against the factored Jₙ W Jₙᵀ).

use crate::linsolve::{SolveError, norm};
use crate::normal_solve::NormalSolve;

/// GMRES stops when ‖b − A z‖₂ ≤ this × ‖b‖₂: Newton then converges at this rate even far from
/// the solution and quadratically close to it (the residual b is then small itself).
pub(super) const KRYLOV_RTOL: f64 = 1e-4;

/// y = A x, given the solve whose Jacobian and masses the product reads.
pub(super) type Apply<'f> = dyn FnMut(&NormalSolve<'_>, &[f64], &mut [f64]) + 'f;

/// Workspace of at most `k` GMRES iterations on m unknowns.
pub(super) struct Krylov {
    /// Orthonormal basis, (k + 1) vectors of length m.
    basis: Vec<Vec<f64>>,
    /// Hessenberg matrix, column j holds rows 0..=j+1 ((k + 1) × k, column-major).
    hess: Vec<f64>,
    /// Givens rotations (cos, sin).
    rot: Vec<(f64, f64)>,
    /// The rotated right-hand side ‖r₀‖ e₁ (length k + 1).
    g: Vec<f64>,
    /// The least-squares coefficients (length k).
    y: Vec<f64>,
    /// The current solution z (length m).
    z: Vec<f64>,
    /// b (length m).
    b: Vec<f64>,
}

impl Krylov {
    /// The workspace of at most `k` iterations on `m` unknowns (empty for k = 0).
    pub(super) fn new(k: usize, m: usize) -> Self {
        Krylov {
            basis: if k > 0 { vec![vec![0.0; m]; k + 1] } else { Vec::new() },
            hess: vec![0.0; (k + 1) * k],
            rot: vec![(1.0, 0.0); k],
            g: vec![0.0; k + 1],
            y: vec![0.0; k],
            z: vec![0.0; m],
            b: vec![0.0; m],
        }
    }

    /// Its size in f64 values, for a memory estimate: (k + 3) m + (k + 1) k + 3 k + 1 (the
    /// rotations counted as two values each).
    pub(super) fn values(k: u64, m: u64) -> u64 {
        (k + 3) * m + (k + 1) * k + 3 * k + 1
    }
}

impl Krylov {
    /// Column j of the Hessenberg matrix (k + 1 rows) brought to upper triangular form: the
    /// previous Givens rotations applied, then a new one zeroing H[j+1, j], applied to g too.
    fn rotate(&mut self, j: usize, k: usize) {
        let col = j * (k + 1);
        for i in 0..j {
            let (c, s) = self.rot[i];
            let (a, b) = (self.hess[i + col], self.hess[i + 1 + col]);
            self.hess[i + col] = c * a + s * b;
            self.hess[i + 1 + col] = -s * a + c * b;
        }
        let (a, b) = (self.hess[j + col], self.hess[j + 1 + col]);
        let r = a.hypot(b);
        let (c, s) = if r == 0.0 { (1.0, 0.0) } else { (a / r, b / r) };
        self.rot[j] = (c, s);
        self.hess[j + col] = r;
        self.hess[j + 1 + col] = 0.0;
        self.g[j + 1] = -s * self.g[j];
        self.g[j] *= c;
    }
}

/// GMRES on A z = b (b in the solve's `rhs`, z = P⁻¹ b in its `lambda` on entry and the solution on
/// exit) with right preconditioning by the factorization of P in place in `ns`: A P⁻¹ y = r₀,
/// z += P⁻¹ y. `apply(ns, x, y)` sets y = A x. Stops at a relative residual of [`KRYLOV_RTOL`] or
/// after `k` iterations in all.
pub(super) fn gmres(
    ns: &mut NormalSolve<'_>,
    kr: &mut Krylov,
    k: usize,
    apply: &mut Apply<'_>,
) -> Result<(), SolveError> {
    kr.b.copy_from_slice(&ns.rhs);
    kr.z.copy_from_slice(&ns.lambda);
    let b_norm = norm(&kr.b);
    if b_norm == 0.0 {
        return Ok(());
    }
    // r₀ = b − A z into basis[0]
    let mut v0 = std::mem::take(&mut kr.basis[0]);
    apply(ns, &kr.z, &mut v0);
    for (v, b) in v0.iter_mut().zip(&kr.b) {
        *v = b - *v;
    }
    let beta = norm(&v0);
    kr.basis[0] = v0;
    if beta <= KRYLOV_RTOL * b_norm {
        return Ok(());
    }
    kr.basis[0].iter_mut().for_each(|v| *v /= beta);
    kr.g.fill(0.0);
    kr.g[0] = beta;
    let mut used = 0;
    for j in 0..k {
        // w = A P⁻¹ v_j
        ns.rhs.copy_from_slice(&kr.basis[j]);
        ns.lambda.fill(0.0);
        ns.solve_preconditioner(true)?;
        let mut wv = std::mem::take(&mut kr.basis[j + 1]);
        let pv = std::mem::take(&mut ns.lambda);
        apply(ns, &pv, &mut wv);
        ns.lambda = pv;
        // modified Gram–Schmidt
        for i in 0..=j {
            let hij: f64 = wv.iter().zip(&kr.basis[i]).map(|(a, b)| a * b).sum();
            kr.hess[i + j * (k + 1)] = hij;
            for (a, b) in wv.iter_mut().zip(&kr.basis[i]) {
                *a -= hij * b;
            }
        }
        let h_next = norm(&wv);
        kr.hess[j + 1 + j * (k + 1)] = h_next;
        if h_next > 0.0 {
            wv.iter_mut().for_each(|a| *a /= h_next);
        }
        kr.basis[j + 1] = wv;
        kr.rotate(j, k);
        used = j + 1;
        if kr.g[j + 1].abs() <= KRYLOV_RTOL * b_norm || h_next == 0.0 {
            break;
        }
    }
    // y = H⁻¹ g (upper triangular), z += P⁻¹ (V y)
    let y = &mut kr.y;
    for i in (0..used).rev() {
        let t: f64 = (i + 1..used).map(|l| kr.hess[i + l * (k + 1)] * y[l]).sum();
        y[i] = (kr.g[i] - t) / kr.hess[i + i * (k + 1)];
    }
    ns.rhs.fill(0.0);
    for (l, yl) in kr.y.iter().enumerate().take(used) {
        for (r, v) in ns.rhs.iter_mut().zip(&kr.basis[l]) {
            *r += yl * v;
        }
    }
    ns.lambda.fill(0.0);
    ns.solve_preconditioner(true)?;
    for (l, z) in ns.lambda.iter_mut().zip(&kr.z) {
        *l += z;
    }
    Ok(())
}
