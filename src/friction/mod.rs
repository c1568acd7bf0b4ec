//! Frictional contact problems as data, and the solvers that compare on them.
//!
//! The problems are those of FCLIB (Acary, Brémond, Koziara, Pérignon, "FCLIB: a collection of
//! discrete 3D frictional contact problems", INRIA RT-0444, 2014), in 2D and 3D:
//!
//! - the **local** problem 3DFC(W, q, μ): find r, u with u = W r + q,
//!   û = u + s(u), s(u) = [μ_α ‖u_T^α‖, 0, 0] per contact α (De Saxcé's term), and
//!   K*_μ ∋ û ⟂ r ∈ K_μ, with K_μ = {r : ‖r_T‖ ≤ μ r_N} the Coulomb cone per contact (normal
//!   component first, then the 1 or 2 tangential ones);
//! - the **global** problem G3DFC(M, H, f, w, μ): M v = H r + f, u = Hᵀ v + w, the same cone
//!   complementarity; with M block-diagonal it reduces to the local one with W = Hᵀ M⁻¹ H and
//!   q = Hᵀ M⁻¹ f + w ([`GlobalProblem::reduce`]).
//!
//! [`fclib`] reads (and writes) FCLIB's HDF5 files through a pure-Rust HDF5 crate; [`cone`] holds
//! the projection onto the cone and the natural-map residual the field scores with (Acary,
//! Brémond, Huber 2018); [`solvers`] the contact-solver axis.

pub mod bench;
pub mod cone;
pub mod dat;
pub mod fclib;
pub mod solvers;

/// A sparse matrix in compressed rows (the layout every solver here reads: row α's block).
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Row pointers (length nrows + 1).
    pub ptr: Vec<usize>,
    /// Column index of each stored entry.
    pub idx: Vec<usize>,
    /// Value of each stored entry.
    pub val: Vec<f64>,
}

/// A matrix entry to assemble: (row, column, order of appearance, value).
pub type Triplet = (usize, usize, usize, f64);

impl Csr {
    /// From (row, column, value) triplets; duplicates are summed in the order given, entries
    /// sorted by column.
    pub fn from_triplets(nrows: usize, ncols: usize, t: &[(usize, usize, f64)]) -> Csr {
        let mut tagged: Vec<Triplet> = t.iter().enumerate().map(|(k, &(i, j, v))| (i, j, k, v)).collect();
        let mut csr = Csr { nrows, ncols, ptr: Vec::new(), idx: Vec::new(), val: Vec::new() };
        csr.fill_from_triplets(nrows, ncols, &mut tagged);
        csr
    }

    /// Refills this matrix in place (its vectors keep their capacity) from (row, column, order,
    /// value) triplets, which are sorted in place: duplicates summed in increasing `order`
    /// (their order of appearance, so the sums are those of [`Csr::from_triplets`]).
    pub fn fill_from_triplets(&mut self, nrows: usize, ncols: usize, t: &mut [Triplet]) {
        t.sort_unstable_by_key(|&(i, j, k, _)| (i, j, k));
        (self.nrows, self.ncols) = (nrows, ncols);
        self.ptr.clear();
        self.idx.clear();
        self.val.clear();
        self.ptr.push(0);
        let mut e = 0;
        for i in 0..nrows {
            while e < t.len() && t[e].0 == i {
                let (_, j, _, v) = t[e];
                if self.idx.len() > *self.ptr.last().expect("ptr starts at 0") && self.idx.last() == Some(&j) {
                    *self.val.last_mut().expect("an entry") += v;
                } else {
                    self.idx.push(j);
                    self.val.push(v);
                }
                e += 1;
            }
            self.ptr.push(self.idx.len());
        }
    }

    /// The triplets of the matrix, row by row.
    pub fn triplets(&self) -> Vec<(usize, usize, f64)> {
        let mut out = Vec::with_capacity(self.val.len());
        for i in 0..self.nrows {
            for k in self.ptr[i]..self.ptr[i + 1] {
                out.push((i, self.idx[k], self.val[k]));
            }
        }
        out
    }

    /// The transpose.
    pub fn transpose(&self) -> Csr {
        let t: Vec<(usize, usize, f64)> = self.triplets().into_iter().map(|(i, j, v)| (j, i, v)).collect();
        Csr::from_triplets(self.ncols, self.nrows, &t)
    }

    /// y = A x.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = (self.ptr[i]..self.ptr[i + 1]).map(|k| self.val[k] * x[self.idx[k]]).sum();
        }
    }

    /// Row i's dot product with x.
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        (self.ptr[i]..self.ptr[i + 1]).map(|k| self.val[k] * x[self.idx[k]]).sum()
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.val.len()
    }
}

/// Why a contact problem cannot be read, checked, reduced or written: the kind of fault, and a
/// one-line detail naming the group, dataset, token or block at fault, the bad value and what was
/// expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// The file cannot be read (missing, a FIFO or device, no permission).
    #[error("{0}")]
    Unreadable(String),
    /// The file does not follow its format: a group, dataset or token missing, malformed or of
    /// the wrong type.
    #[error("{0}")]
    Format(String),
    /// Sizes or values that disagree with each other or with the problem's definition (W not
    /// m × m, μ < 0, a NaN).
    #[error("{0}")]
    Inconsistent(String),
    /// More data than the reader's bound, refused before it is allocated.
    #[error("{0}")]
    TooLarge(String),
    /// A global problem whose M is not block-diagonal and invertible, or whose bilateral
    /// constraints are dependent: its local form does not exist.
    #[error("{0}")]
    Singular(String),
    /// The problem cannot be formed (a stepper that has taken no step, or whose problem has
    /// bilateral rows in local form).
    #[error("{0}")]
    Unavailable(String),
    /// The HDF5 writer refused the problem.
    #[error("{0}")]
    Write(String),
}

impl ProblemError {
    /// The same error with its detail prefixed by `at` (the group or file it was found in).
    pub fn within(self, at: &str) -> Self {
        use ProblemError::*;
        let put = |d: String| format!("{at}: {d}");
        match self {
            Unreadable(d) => Unreadable(put(d)),
            Format(d) => Format(put(d)),
            Inconsistent(d) => Inconsistent(put(d)),
            TooLarge(d) => TooLarge(put(d)),
            Singular(d) => Singular(put(d)),
            Unavailable(d) => Unavailable(put(d)),
            Write(d) => Write(put(d)),
        }
    }
}

/// A [`ProblemError::Inconsistent`] with a formatted detail.
macro_rules! inconsistent {
    ($($t:tt)*) => { ProblemError::Inconsistent(format!($($t)*)) };
}

/// A local frictional contact problem: W r + q with r in the Coulomb cones.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalProblem {
    /// Where it came from (file name, or the scene and step it was dumped from).
    pub name: String,
    /// 2 or 3: unknowns per contact (normal, then tangential).
    pub dim: usize,
    /// The Delassus operator W (m × m, m = dim × contacts), symmetric positive semidefinite.
    pub w: Csr,
    /// The free velocity q (length m) \[m/s\] (or its problem's unit).
    pub q: Vec<f64>,
    /// The friction coefficient per contact \[1\].
    pub mu: Vec<f64>,
    /// Initial guesses r stored with the problem (FCLIB's `guesses`), each of length m.
    pub guesses: Vec<Vec<f64>>,
}

impl LocalProblem {
    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// Checks the sizes and values: W square m × m with m = dim × contacts, q and every guess of
    /// length m, μ ≥ 0 and every number finite. The message names the first inconsistency.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let m = self.dim * self.mu.len();
        if !(self.dim == 2 || self.dim == 3) {
            return Err(inconsistent!("spacedim is {}; expected 2 or 3", self.dim));
        }
        if self.w.nrows != m || self.w.ncols != m {
            return Err(inconsistent!(
                "W is {} x {}; expected {m} x {m} ({} contacts of dimension {})",
                self.w.nrows,
                self.w.ncols,
                self.mu.len(),
                self.dim
            ));
        }
        if self.q.len() != m {
            return Err(inconsistent!("q has {} entries; expected {m}", self.q.len()));
        }
        if let Some(g) = self.guesses.iter().find(|g| g.len() != m) {
            return Err(inconsistent!("a guess r has {} entries; expected {m}", g.len()));
        }
        if let Some(mu) = self.mu.iter().find(|mu| !(mu.is_finite() && **mu >= 0.0)) {
            return Err(inconsistent!("a friction coefficient is {mu}; expected a finite number >= 0"));
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(&self.w.val) || !finite(&self.q) || !self.guesses.iter().all(|g| finite(g)) {
            return Err(inconsistent!("W, q or a guess holds a NaN or an infinity"));
        }
        Ok(())
    }

    /// u = W r + q.
    pub fn velocity(&self, r: &[f64], u: &mut [f64]) {
        self.w.mul(r, u);
        for (ui, qi) in u.iter_mut().zip(&self.q) {
            *ui += qi;
        }
    }

    /// The dense diagonal block W_αα of contact α (dim × dim, row-major in a 3 × 3 array).
    pub fn diagonal_block(&self, a: usize) -> [[f64; 3]; 3] {
        let d = self.dim;
        let mut out = [[0.0; 3]; 3];
        for (r, row) in out.iter_mut().enumerate().take(d) {
            let i = a * d + r;
            for k in self.w.ptr[i]..self.w.ptr[i + 1] {
                let j = self.w.idx[k];
                if j / d == a {
                    row[j % d] = self.w.val[k];
                }
            }
        }
        out
    }
}

/// A global frictional contact problem: M v = H r + f (+ G λ with bilateral constraints
/// Gᵀ v + b = 0), u = Hᵀ v + w.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalProblem {
    /// Where it came from.
    pub name: String,
    /// 2 or 3.
    pub dim: usize,
    /// The mass matrix M (n × n), symmetric positive definite.
    pub m: Csr,
    /// H (n × m): the contact frames' velocities u = Hᵀ v + w.
    pub h: Csr,
    /// f (length n).
    pub f: Vec<f64>,
    /// w (length m).
    pub w: Vec<f64>,
    /// The friction coefficient per contact.
    pub mu: Vec<f64>,
    /// Bilateral constraints Gᵀ v + b = 0 (G: n × p, b), if the problem has them.
    pub bilateral: Option<(Csr, Vec<f64>)>,
    /// Initial guesses r.
    pub guesses: Vec<Vec<f64>>,
}

/// The largest diagonal block of M that [`GlobalProblem::reduce`] inverts densely.
pub const MAX_MASS_BLOCK: usize = 64;

impl GlobalProblem {
    /// The local problem with W = Hᵀ M⁻¹ H and q = Hᵀ M⁻¹ f + w, for M block-diagonal with blocks
    /// of at most [`MAX_MASS_BLOCK`] rows (each body's mass matrix), inverted block by block, so
    /// that the cost is linear in the bodies.
    ///
    /// With bilateral constraints Gᵀ v + b = 0 (FCLIB's GM3DFC: M v = H r + G λ + f), λ is
    /// eliminated: with S = Gᵀ M⁻¹ G (p × p, Cholesky; refused when G's columns are dependent)
    /// and C = Hᵀ M⁻¹ G, W = Hᵀ M⁻¹ H − C S⁻¹ Cᵀ and q = Hᵀ M⁻¹ f + w − C S⁻¹ (Gᵀ M⁻¹ f + b).
    /// The correction is dense on the contact rows the bilateral constraints reach (their count
    /// squared is bounded by [`MAX_COUPLED_ENTRIES`], checked before it is built).
    pub fn reduce(&self) -> Result<LocalProblem, ProblemError> {
        let n = self.m.nrows;
        let minv = self.mass_inverse()?;
        let mut minv_f = vec![0.0; n];
        minv.mul(&self.f, &mut minv_f);
        let m_rows = self.h.ncols;
        let ht = self.h.transpose(); // m × n: row j of Hᵀ is column j of H
        let mut q = vec![0.0; m_rows];
        ht.mul(&minv_f, &mut q);
        for (qi, wi) in q.iter_mut().zip(&self.w) {
            *qi += wi;
        }
        // W = (Hᵀ M⁻¹) H, two sparse products row by row (M⁻¹ is symmetric).
        let a = product(&ht, &minv);
        let mut t = product(&a, &self.h).triplets();
        if let Some((g, b)) = &self.bilateral {
            eliminate_bilateral(&a, &minv, g, b, &minv_f, &mut t, &mut q)?;
        }
        let w = Csr::from_triplets(m_rows, m_rows, &t);
        let p = LocalProblem {
            name: self.name.clone(),
            dim: self.dim,
            w,
            q,
            mu: self.mu.clone(),
            guesses: self.guesses.clone(),
        };
        p.validate()?;
        Ok(p)
    }

    /// M⁻¹, block by block, as a sparse matrix.
    fn mass_inverse(&self) -> Result<Csr, ProblemError> {
        let blocks = mass_blocks(&self.m)?;
        let mut minv_t = Vec::new(); // triplets of M⁻¹ (n × n)
        for (start, len) in &blocks {
            let inv = invert_block(&self.m, *start, *len)?;
            for a in 0..*len {
                for b in 0..*len {
                    if inv[a * len + b] != 0.0 {
                        minv_t.push((start + a, start + b, inv[a * len + b]));
                    }
                }
            }
        }
        Ok(Csr::from_triplets(self.m.nrows, self.m.nrows, &minv_t))
    }
}

/// The most entries of the dense correction C S⁻¹ Cᵀ that [`GlobalProblem::reduce`] builds
/// (the contact rows the bilateral constraints reach, squared): 8 · 10⁶, 64 MB.
pub const MAX_COUPLED_ENTRIES: usize = 8_000_000;

/// Eliminates the bilateral multipliers from the reduced problem: appends −C S⁻¹ Cᵀ to W's
/// triplets `t` and subtracts C S⁻¹ (Gᵀ M⁻¹ f + b) from `q`, where `a` = Hᵀ M⁻¹.
fn eliminate_bilateral(
    a: &Csr,
    minv: &Csr,
    g: &Csr,
    b: &[f64],
    minv_f: &[f64],
    t: &mut Vec<(usize, usize, f64)>,
    q: &mut [f64],
) -> Result<(), ProblemError> {
    let p = g.ncols;
    if g.nrows != minv.nrows || b.len() != p {
        return Err(ProblemError::Inconsistent(format!(
            "G is {} x {} and b has {} entries; expected {} rows and b of {p}",
            g.nrows,
            p,
            b.len(),
            minv.nrows
        )));
    }
    let c = product(a, g); // m × p, sparse rows
    let coupled: Vec<usize> = (0..c.nrows).filter(|&i| c.ptr[i + 1] > c.ptr[i]).collect();
    if coupled.len().saturating_mul(coupled.len()) > MAX_COUPLED_ENTRIES {
        return Err(ProblemError::TooLarge(format!(
            "the bilateral constraints reach {} contact rows: their dense coupling would have {} entries (at most {MAX_COUPLED_ENTRIES})",
            coupled.len(),
            coupled.len().saturating_mul(coupled.len())
        )));
    }
    // S = Gᵀ M⁻¹ G, dense p × p, and y = S⁻¹ (Gᵀ M⁻¹ f + b).
    let gt = g.transpose();
    let gt_minv = product(&gt, minv);
    let s_rows = product(&gt_minv, g);
    let mut s = nalgebra::DMatrix::<f64>::zeros(p, p);
    for (i, j, v) in s_rows.triplets() {
        s[(i, j)] = v;
    }
    let chol = nalgebra::Cholesky::new(s).ok_or_else(|| {
        ProblemError::Singular(
            "Gᵀ M⁻¹ G is not positive definite: G's columns (the bilateral constraints) are dependent".into(),
        )
    })?;
    let mut rhs = nalgebra::DVector::<f64>::from_iterator(p, b.iter().copied());
    for i in 0..p {
        rhs[i] += gt.row_dot(i, minv_f);
    }
    let y = chol.solve(&rhs);
    // X = S⁻¹ Cᵀ on the coupled rows (p × k), then the correction C X.
    let mut ct = nalgebra::DMatrix::<f64>::zeros(p, coupled.len());
    for (col, &i) in coupled.iter().enumerate() {
        for k in c.ptr[i]..c.ptr[i + 1] {
            ct[(c.idx[k], col)] = c.val[k];
        }
        q[i] -= (c.ptr[i]..c.ptr[i + 1]).map(|k| c.val[k] * y[c.idx[k]]).sum::<f64>();
    }
    let x = chol.solve(&ct);
    for &i in &coupled {
        for (cj, &j) in coupled.iter().enumerate() {
            let v: f64 = (c.ptr[i]..c.ptr[i + 1]).map(|k| c.val[k] * x[(c.idx[k], cj)]).sum();
            if v != 0.0 {
                t.push((i, j, -v));
            }
        }
    }
    Ok(())
}

/// A · B for sparse A and B (rows).
fn product(a: &Csr, b: &Csr) -> Csr {
    let mut acc = vec![0.0; b.ncols];
    let mut touched = Vec::new();
    let rows = spmm_rows(a, b, &mut acc, &mut touched);
    let t: Vec<(usize, usize, f64)> =
        rows.iter().enumerate().flat_map(|(i, row)| row.iter().map(move |&(j, v)| (i, j, v))).collect();
    Csr::from_triplets(a.nrows, b.ncols, &t)
}

/// The rows of A · B for sparse A (rows) and B (rows), as (column, value) lists.
fn spmm_rows(a: &Csr, b: &Csr, acc: &mut [f64], touched: &mut Vec<usize>) -> Vec<Vec<(usize, f64)>> {
    let mut out = Vec::with_capacity(a.nrows);
    let mut seen = vec![false; b.ncols];
    for i in 0..a.nrows {
        touched.clear();
        for k in a.ptr[i]..a.ptr[i + 1] {
            let (j, av) = (a.idx[k], a.val[k]);
            for p in b.ptr[j]..b.ptr[j + 1] {
                let c = b.idx[p];
                if !seen[c] {
                    seen[c] = true;
                    touched.push(c);
                }
                acc[c] += av * b.val[p];
            }
        }
        touched.sort_unstable();
        let row: Vec<(usize, f64)> = touched.iter().map(|&c| (c, acc[c])).collect();
        for &c in touched.iter() {
            acc[c] = 0.0;
            seen[c] = false;
        }
        out.push(row);
    }
    out
}

/// The diagonal blocks of a block-diagonal M: maximal runs of rows whose entries stay inside
/// the run, as (first row, size); refused when a block exceeds [`MAX_MASS_BLOCK`] or M is not
/// square.
fn mass_blocks(m: &Csr) -> Result<Vec<(usize, usize)>, ProblemError> {
    if m.nrows != m.ncols {
        return Err(ProblemError::Inconsistent(format!("M is {} x {}; expected a square matrix", m.nrows, m.ncols)));
    }
    let mut out = Vec::new();
    let (mut start, mut reach) = (0usize, 0usize);
    for i in 0..m.nrows {
        for k in m.ptr[i]..m.ptr[i + 1] {
            let j = m.idx[k];
            if j < start {
                return Err(ProblemError::Singular(format!(
                    "M is not block-diagonal (entry ({i}, {j}) links two blocks)"
                )));
            }
            reach = reach.max(j);
        }
        reach = reach.max(i);
        if reach == i {
            if i + 1 - start > MAX_MASS_BLOCK {
                return Err(ProblemError::TooLarge(format!(
                    "M has a diagonal block of {} rows; at most {MAX_MASS_BLOCK} are supported (a body's mass matrix)",
                    i + 1 - start
                )));
            }
            out.push((start, i + 1 - start));
            start = i + 1;
        }
    }
    Ok(out)
}

/// The inverse of M's diagonal block [start, start + len) by Gauss–Jordan with partial pivoting
/// (row-major, len × len).
fn invert_block(m: &Csr, start: usize, len: usize) -> Result<Vec<f64>, ProblemError> {
    let mut a = vec![0.0; len * len];
    for r in 0..len {
        let i = start + r;
        for k in m.ptr[i]..m.ptr[i + 1] {
            a[r * len + (m.idx[k] - start)] = m.val[k];
        }
    }
    let mut inv = vec![0.0; len * len];
    for r in 0..len {
        inv[r * len + r] = 1.0;
    }
    for c in 0..len {
        let p = (c..len).max_by(|&x, &y| a[x * len + c].abs().total_cmp(&a[y * len + c].abs())).unwrap();
        let piv = a[p * len + c];
        if !(piv.abs() > 0.0) {
            return Err(ProblemError::Singular(format!("M is singular (block at row {start})")));
        }
        for k in 0..len {
            a.swap(c * len + k, p * len + k);
            inv.swap(c * len + k, p * len + k);
        }
        for k in 0..len {
            a[c * len + k] /= piv;
            inv[c * len + k] /= piv;
        }
        for r in 0..len {
            if r != c {
                let f = a[r * len + c];
                if f != 0.0 {
                    for k in 0..len {
                        a[r * len + k] -= f * a[c * len + k];
                        inv[r * len + k] -= f * inv[c * len + k];
                    }
                }
            }
        }
    }
    Ok(inv)
}

#[cfg(test)]
mod fclib_tests;
#[cfg(test)]
mod tests;
