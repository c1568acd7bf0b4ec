//! Assembly of the normal matrix A = J W Jᵀ (m × m, symmetric positive semi-definite).
//!
//! A_rs = Σ_k J_{r,k} W_k J_{s,k}, summed over the bodies k that the constraints of rows r and s
//! share (Witkin 1997, §4.2–4.3). The sparsity pattern depends only on which constraints share a
//! body, so it is computed once per system: [`NormalMatrix::new`] lists every contribution
//! (row, column, where its two Jacobian rows and its W block live, and its slot in the compressed
//! column storage). Re-assembly for new values is then one pass over that list, with no allocation,
//! and the symbolic pattern can be handed to a sparse Cholesky that reuses its analysis.

use super::BlockJacobian;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

/// One contribution A_rs += Σ_{d<dof} J[ja+d] · w[w0+d] · J[jb+d].
#[derive(Clone, Copy, Debug)]
struct Term {
    pos: u32,
    row: u32,
    col: u32,
    ja: u32,
    jb: u32,
    w0: u32,
    dof: u32,
}

impl Term {
    fn term(&self) -> NormalTerm {
        NormalTerm { ja: self.ja, jb: self.jb, w0: self.w0, dof: self.dof }
    }
}

/// One contribution Σ_{d<dof} J[ja+d] · w[w0+d] · J[jb+d] to an entry of J W Jᵀ (indices into
/// [`BlockJacobian::values`] and the diagonal of W).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalTerm {
    /// First value of the row's block entries for the shared body.
    pub ja: u32,
    /// The same for the other row.
    pub jb: u32,
    /// The shared body's first column (its first entry of W).
    pub w0: u32,
    /// The shared body's number of coordinates.
    pub dof: u32,
}

impl NormalTerm {
    /// The term's value for J's values `j` and W's diagonal `w`.
    #[inline(always)]
    pub fn value(&self, j: &[f64], w: &[f64]) -> f64 {
        let (ja, jb, w0, dof) = (self.ja as usize, self.jb as usize, self.w0 as usize, self.dof as usize);
        let (a, b, wk) = (&j[ja..ja + dof], &j[jb..jb + dof], &w[w0..w0 + dof]);
        match dof {
            // the common particle blocks, unrolled
            2 => a[0] * wk[0] * b[0] + a[1] * wk[1] * b[1],
            3 => a[0] * wk[0] * b[0] + a[1] * wk[1] * b[1] + a[2] * wk[2] * b[2],
            _ => a.iter().zip(wk).zip(b).map(|((x, y), z)| x * y * z).sum(),
        }
    }
}

/// The sparsity pattern of J W Jᵀ (upper triangle, compressed sparse columns) and its assembly plan.
#[derive(Clone, Debug)]
pub struct NormalMatrix {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    diag_pos: Vec<usize>,
    terms: Vec<Term>,
}

fn idx(x: usize) -> u32 {
    u32::try_from(x).expect("system too large for 32-bit assembly indices")
}

impl NormalMatrix {
    /// Computes the pattern and assembly plan of J W Jᵀ for the layout of `jac`.
    ///
    /// # Panics
    /// If J has 2³² or more stored entries (far beyond what fits in memory with the rest of a run).
    pub fn new(jac: &BlockJacobian) -> Self {
        let n = jac.nrows();
        // For each body (keyed by its first column): the (slot, local column offset) that touch it.
        let mut touching: Vec<Vec<(usize, usize)>> = vec![Vec::new(); jac.ncols()];
        for (si, s) in jac.slots.iter().enumerate() {
            let mut k = 0;
            for &(c0, d) in &s.cols[..s.nb] {
                touching[c0].push((si, k));
                k += d;
            }
        }
        let mut raw: Vec<(usize, usize, Term)> = Vec::new();
        for (c0, list) in touching.iter().enumerate() {
            for &(a, ka) in list {
                let sa = jac.slots[a];
                let dof = sa.cols.iter().take(sa.nb).find(|c| c.0 == c0).map_or(0, |c| c.1);
                for &(b, kb) in list {
                    let sb = jac.slots[b];
                    for r in 0..sa.rows {
                        for s in 0..sb.rows {
                            let (row, col) = (sa.row0 + r, sb.row0 + s);
                            if row > col {
                                continue;
                            }
                            let term = Term {
                                pos: 0,
                                row: idx(row),
                                col: idx(col),
                                ja: idx(sa.val0 + r * sa.ldof + ka),
                                jb: idx(sb.val0 + s * sb.ldof + kb),
                                w0: idx(c0),
                                dof: idx(dof),
                            };
                            raw.push((col, row, term));
                        }
                    }
                }
            }
        }
        raw.sort_unstable_by_key(|&(c, r, _)| (c, r));
        let mut col_ptr = vec![0usize; n + 1];
        let mut row_idx = Vec::new();
        let mut terms = Vec::with_capacity(raw.len());
        let mut last: Option<(usize, usize)> = None;
        for &(c, r, mut t) in &raw {
            if last != Some((c, r)) {
                row_idx.push(r);
                col_ptr[c + 1] += 1;
                last = Some((c, r));
            }
            t.pos = idx(row_idx.len() - 1);
            terms.push(t);
        }
        for c in 0..n {
            col_ptr[c + 1] += col_ptr[c];
        }
        // Every constraint row has a nonzero diagonal (it touches at least one body), and rows are
        // sorted within a column, so the diagonal is the last entry of each column.
        let diag_pos = (0..n).map(|c| col_ptr[c + 1] - 1).collect();
        NormalMatrix { n, col_ptr, row_idx, diag_pos, terms }
    }

    /// The bytes [`NormalMatrix::new`] allocates for `jac`'s layout at its peak (its raw list of
    /// row pairs sharing a body, being sorted, and the plan and pattern built from it), computed
    /// from the rows touching each body in O(slots) time and O(columns) memory, without building
    /// anything: the memory budget checks it first, so that rows sharing one body (a hub with
    /// thousands of rods, whose J W Jᵀ is dense) are refused before the quadratic list exists.
    pub fn build_bytes(jac: &BlockJacobian) -> u64 {
        let mut rows_on = vec![0u64; jac.ncols()];
        for s in &jac.slots {
            for &(c0, _) in &s.cols[..s.nb] {
                rows_on[c0] += s.rows as u64;
            }
        }
        // pairs (a, b) of rows on one body with a ≤ b: at most r(r + 1)/2 per body
        let raw: u64 = rows_on.iter().map(|&r| r.saturating_mul(r + 1) / 2).fold(0, u64::saturating_add);
        let per_raw = (std::mem::size_of::<(usize, usize, Term)>()
            + std::mem::size_of::<Term>()
            + std::mem::size_of::<usize>()) as u64;
        raw.saturating_mul(per_raw).saturating_add(3 * 8 * (jac.nrows() as u64 + 1))
    }

    /// Dimension m.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Number of stored entries of the upper triangle.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// The symbolic pattern (upper triangle, sorted rows) as a faer view.
    pub fn symbolic(&self) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(self.n, self.n, &self.col_ptr, None, &self.row_idx)
    }

    /// A faer view of the upper triangle with the given `values` (length [`NormalMatrix::nnz`]).
    pub fn view<'a>(&'a self, values: &'a [f64]) -> SparseColMatRef<'a, usize, f64> {
        SparseColMatRef::new(self.symbolic(), values)
    }

    /// The compressed-column pattern of the upper triangle: (column pointers, sorted row indices);
    /// the diagonal is the last entry of each column.
    pub fn csc(&self) -> (&[usize], &[usize]) {
        (&self.col_ptr, &self.row_idx)
    }

    /// Position in the value array of each diagonal entry A_ii.
    pub fn diagonal_positions(&self) -> &[usize] {
        &self.diag_pos
    }

    /// Assembles the upper-triangle values of J W Jᵀ into `values` (length [`NormalMatrix::nnz`]),
    /// where `w` is the diagonal of W = M⁻¹. No allocation.
    pub fn assemble(&self, jac: &BlockJacobian, w: &[f64], values: &mut [f64]) {
        values.fill(0.0);
        for t in &self.terms {
            values[t.pos as usize] += t.term().value(&jac.values, w);
        }
    }

    /// Every contribution to the assembled values, in the order [`NormalMatrix::assemble`] adds
    /// them: (position in the value array, the term). A solver that assembles in its own layout
    /// adds each position's terms in this order, starting from 0, to get the same bits.
    pub fn terms(&self) -> impl Iterator<Item = (usize, NormalTerm)> + '_ {
        self.terms.iter().map(|t| (t.pos as usize, t.term()))
    }

    /// y = A x for the symmetric A whose upper triangle `values` were assembled into this pattern.
    pub fn mul_symmetric(&self, values: &[f64], x: &[f64], y: &mut [f64]) {
        // Column c holds A_rc for r < c, then A_cc last: scatter the strict upper part into y[r]
        // and gather its transpose (row c of the lower part) into y[c].
        for (c, w) in self.col_ptr.windows(2).enumerate() {
            let (start, diag) = (w[0], w[1] - 1);
            let xc = x[c];
            let mut acc = values[diag] * xc;
            for (&r, &a) in self.row_idx[start..diag].iter().zip(&values[start..diag]) {
                y[r] += a * xc;
                acc += a * x[r];
            }
            y[c] = acc;
        }
    }

    /// ‖b − A x‖₂ / ‖b‖₂ (or ‖b − A x‖₂ when b = 0) for the A whose upper triangle `values` were
    /// assembled into this pattern; `ax` is a workspace of length m.
    pub fn relative_residual(&self, values: &[f64], b: &[f64], x: &[f64], ax: &mut [f64]) -> f64 {
        self.mul_symmetric(values, x, ax);
        let r = b.iter().zip(ax.iter()).map(|(bi, ai)| (bi - ai) * (bi - ai)).sum::<f64>().sqrt();
        let nb = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        if nb > 0.0 { r / nb } else { r }
    }

    /// Assembles the full symmetric J W Jᵀ as a dense column-major m × m matrix into `out`.
    pub fn assemble_dense(&self, jac: &BlockJacobian, w: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        let j = &jac.values;
        let n = self.n;
        for t in &self.terms {
            let (ja, jb, w0) = (t.ja as usize, t.jb as usize, t.w0 as usize);
            let mut acc = 0.0;
            for d in 0..t.dof as usize {
                acc += j[ja + d] * w[w0 + d] * j[jb + d];
            }
            let (r, c) = (t.row as usize, t.col as usize);
            out[r + c * n] += acc;
            if r != c {
                out[c + r * n] += acc;
            }
        }
    }
}
