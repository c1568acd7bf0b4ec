//! Envelope (profile, "skyline") LDLᵀ of J W Jᵀ (George & Liu 1981, "Computer Solution of Large
//! Sparse Positive Definite Systems", ch. 4): row i of L is stored densely from its first nonzero
//! column fᵢ to the diagonal, and the factorization fills nothing outside that envelope. The
//! bordering form computes row i from the rows before it:
//!   wᵢⱼ = aᵢⱼ − Σ_{k = max(fᵢ, fⱼ)}^{j−1} wᵢₖ Lⱼₖ   (j = fᵢ … i−1),   Lᵢⱼ = wᵢⱼ / Dⱼ,
//!   Dᵢ = aᵢᵢ − Σ_j wᵢⱼ Lᵢⱼ,
//! i.e. A = L D Lᵀ without square roots. Work is Σᵢ (i − fᵢ)² / 2: linear in the number of rows when
//! the bandwidth is bounded — a chain's or a rope's J W Jᵀ, including the block-banded matrix of
//! XPBD's Newton step — where general sparse Cholesky spends most of its time on per-column symbolic
//! work. On a grid (cloth) the envelope is √m wide and `sparse_cholesky` is the better choice.
//!
//! The ordering (once per run): the constraints' natural order or reverse Cuthill–McKee (George &
//! Liu §4.3), whichever has the smaller envelope. The pattern, the permutation, the envelope layout
//! and where each assembled entry goes are computed in [`LinearSolver::prepare`]; a solve assembles,
//! factors and substitutes into buffers allocated there.
//!
//! A solve is one pass down the rows and one back up. Row i is assembled straight into the
//! envelope (each entry's terms of J W Jᵀ added in [`NormalMatrix::terms`]' order, so A's values
//! are those of [`NormalMatrix::assemble`] to the bit, and kept for the residual check), factored,
//! and its forward substitution done while it is in cache; the way back scales by D⁻¹ and
//! substitutes with Lᵀ. The arithmetic is the bordering form above in the same order as a
//! separate assembly, factorization and substitution would do it.
//!
//! The band tail: in the natural order, the rows from the first one after which every row has
//! exactly one entry left of the diagonal, just left of it (a chain after its pin), run in loops
//! of their own. The way down reads no envelope layout and stores neither D nor z (no later row
//! reads them); the way back forms each row's (A x)ᵢ for the residual as soon as xᵢ₋₁ is final,
//! so the residual does not pass over the tail again. Where the tail's terms sit at indices that
//! advance by one stride per row (a regular chain), the way down computes them instead of reading
//! the entry and term lists. The products and sums are the general path's, in its order: the same
//! L, D⁻¹, x and residual to the bit.
//!
//! Values below the normal range (a deviation from IEEE arithmetic): L's entries, z and D⁻¹ z are
//! stored as 0 where their magnitude is below the smallest normal f64, 2.2e-308
//! (`f64::MIN_POSITIVE`). Where rows couple weakly — the straight far part of a long chain, whose
//! links' stiffness and constraint rows meet in exact zeros of A — these values shrink
//! geometrically along the rows and would cross the subnormal range, where x86 takes up to a
//! hundred cycles an operation (on the 10⁵-link chain of `chain_scaling.yaml`, the rows beyond the
//! disturbed part of the chain). The change to any value is below 2.2e-308 in absolute terms; x,
//! from the way back, is not flushed. `values_below_the_normal_range_are_stored_as_zero` (unit
//! test) builds such a system.

use super::registry::{Footprint, SolverEntry, SolverKind};
use super::{LinearSolver, Operator, Reg, SolveError, SolveInfo};
use crate::params::{NoParams, ParamTable};
use crate::sparse::NormalTerm;
#[cfg(doc)]
use crate::sparse::NormalMatrix;
use ordering::{inverse, ordering};
use tail::{AffineTail, affine_tail, band_tail};
use terms::Terms;

mod ordering;
mod tail;
mod terms;

/// One entry of A in the lower envelope: its position in the assembled value array, its column
/// as an offset into its row of the envelope ([`DIAGONAL`] for the row's diagonal) and how many
/// terms it has (the next ones in the term list: entries and terms are stored in the order the
/// solve visits them).
#[derive(Clone, Copy, Debug)]
struct Entry {
    pos: u32,
    col: u32,
    terms: u32,
}

/// `Entry::col` of a diagonal entry.
const DIAGONAL: u32 = u32::MAX;

fn idx32(x: usize) -> u32 {
    u32::try_from(x).expect("system too large for 32-bit envelope indices")
}

/// Envelope LDLᵀ with the layout computed once per run.
#[derive(Default)]
pub struct EnvelopeLdlt {
    /// perm[new] = old row index.
    perm: Vec<usize>,
    /// First column of the envelope of each (permuted) row.
    first: Vec<usize>,
    /// Start of each row's strictly-lower envelope in `l`.
    row_start: Vec<usize>,
    /// Envelope values: A's lower triangle, then L.
    l: Vec<f64>,
    /// D⁻¹.
    d_inv: Vec<f64>,
    /// Start of each (permuted) row's entries in `entries` (length m + 1).
    row_entries: Vec<u32>,
    /// The entries of A in the lower envelope, row by row: where each goes and its terms.
    entries: Vec<Entry>,
    /// The terms of J W Jᵀ, grouped by entry in [`NormalMatrix::terms`]' order.
    terms: Vec<NormalTerm>,
    /// When every term has the same number of coordinates d ∈ {2, 3, 6} at offsets that are
    /// multiples of d (particles in the plane or in space, bodies in space): d, and each term's
    /// offsets in units of d (J and W read as d-wide chunks: one bounds check per operand).
    chunk: usize,
    chunk_terms: Vec<[u32; 3]>,
    /// Whether the ordering is the natural one (no permutation to apply).
    natural: bool,
    /// First row of the band tail: in the natural order, rows `band_from..` each have one entry
    /// left of the diagonal, in the column just before, and their entries of A sit in
    /// `a_values` in the order the solve visits them (a chain's rows after its pin). The way back
    /// and the residual run over the tail in one pass ([`EnvelopeLdlt::band_backward`]). The
    /// number of rows when there is no tail.
    band_from: usize,
    /// The band tail's terms as strides, when they are regular.
    affine: Option<AffineTail>,
    /// Assembled upper-triangle values of A (for the residual), and A's pattern (column pointers,
    /// row indices) in 32 bits.
    a_values: Vec<f64>,
    col_ptr: Vec<u32>,
    row_idx: Vec<u32>,
    /// Permuted right-hand side, then z of L z = P b (rows before the band tail in a full solve;
    /// every row in [`LinearSolver::solve_same`]).
    y: Vec<f64>,
    /// D⁻¹ z, then the permuted solution (unused in the natural ordering, which works in x).
    u: Vec<f64>,
    /// A x, for the residual.
    ax: Vec<f64>,
}

const NOT_SPARSE: &str = "the system matrix is dense (the loop-closure system G M^-1 G^T of `lagrangian`); use dense_lu, dense_cholesky, cg, gauss_seidel or jacobi";

/// Relative size below which a pivot Dᵢ / aᵢᵢ counts as zero (redundant constraints).
const PIVOT_TOL: f64 = 1e-13;

/// Bytes [`EnvelopeLdlt::prepare`] keeps: the envelope (values, and a byte of coverage while
/// preparing), per stored entry of A its value, its entry and at most one term per body two rows
/// share (three), and ten vectors per row.
fn memory(f: &Footprint) -> u64 {
    match f {
        Footprint::Normal(pattern) => (ordering(pattern).2 as u64) * 9 + f.sparse(8 + 16 + 3 * 16, 10 * 8),
        Footprint::Dense(_) => 0, // not accepted (SystemKind::LoopClosure): the cell is not built
    }
}

impl EnvelopeLdlt {
    /// Number of stored strictly-lower entries of L (the envelope size) after [`LinearSolver::prepare`].
    pub fn envelope_size(&self) -> usize {
        self.l.len()
    }

    /// Bytes of the solver's own arrays that a [`LinearSolver::solve`] reads or writes after
    /// [`LinearSolver::prepare`], each counted once (L, D⁻¹, A's kept values, A x; before the band
    /// tail also D, z, the envelope layout and A's pattern; the entry and term lists, in the tail
    /// only when its terms' indices are not computed; the permutation only when it is not the
    /// natural order). J's values and W, which a solve also reads, are not counted, nor b and x.
    /// For reading a solve's time per row against the machine's bandwidth.
    pub fn bytes_per_solve(&self) -> usize {
        fn bytes<T>(v: &[T]) -> usize {
            std::mem::size_of_val(v)
        }
        // the rows before the band tail (all of them when there is none)
        let s0 = self.band_from;
        // the entry and term lists: up to the tail when its terms' indices are computed
        let (e, t) = if self.affine.is_some() {
            let e = self.row_entries[s0] as usize;
            (e, self.entries[..e].iter().map(|en| en.terms as usize).sum())
        } else {
            (self.entries.len(), if self.chunk > 1 { self.chunk_terms.len() } else { self.terms.len() })
        };
        let entries = bytes(&self.entries[..e]);
        let terms = if self.chunk > 1 { bytes(&self.chunk_terms[..t]) } else { bytes(&self.terms[..t]) };
        let perm = if self.natural { 0 } else { bytes(&self.perm) };
        let head = bytes(&self.first[..s0])
            + bytes(&self.row_start[..s0])
            + bytes(&self.row_entries[..=s0])
            + bytes(&self.y[..s0])
            + bytes(&self.col_ptr[..=s0])
            + bytes(&self.row_idx[..self.col_ptr[s0] as usize]);
        perm + head
            + bytes(&self.l)
            + bytes(&self.d_inv)
            + entries
            + terms
            + bytes(&self.a_values)
            + bytes(&self.u)
            + bytes(&self.ax)
    }

    /// Assembles A row by row into the envelope (and `a_values`), factors it into L D Lᵀ (with D⁻¹,
    /// so that no division is left in the row loops but one per pivot) and solves L z = P b into
    /// `y` and D⁻¹ z into `out`, each row while it is in cache.
    fn factor_and_forward<const D: usize>(
        &mut self,
        jv: &[f64],
        w: &[f64],
        reg: Reg,
        b: &[f64],
        out: &mut [f64],
    ) -> Result<(), SolveError> {
        // Row i's strictly-lower envelope is l[row_start[i] ..][.. i − fᵢ], entry (i, k) at offset
        // k − fᵢ. Plain index loops: the rows are a few entries long, too short for iterator
        // set-up to pay off. One loop does it all, row by row: the chain of pivots (each D⁻¹
        // needs the one before) is its critical path, and the assembly and substitution of the
        // row overlap with it.
        let (first, row_start, d_inv, l) = (&self.first, &self.row_start, &mut self.d_inv, &mut self.l);
        let (a_values, y, perm) = (&mut self.a_values, &mut self.y, &self.perm);
        let (mut entries, mut t) = (self.entries.iter(), 0);
        let (jc, wc) = (jv.as_chunks::<D>().0, w.as_chunks::<D>().0);
        let has_reg = !reg.is_zero();
        let terms = Terms::<D> { generic: &self.terms, chunked: &self.chunk_terms, jv, w, jc, wc };
        let (mut dinv_prev, mut z_prev) = (0.0, 0.0);
        let s0 = self.band_from;
        for i in 0..s0 {
            let (fi, width) = (first[i], i - first[i]);
            let (e0, e1) = (self.row_entries[i], self.row_entries[i + 1]);
            let b_i = if self.natural { b[i] } else { b[perm[i]] };
            if width == 1 && e1 - e0 == 2 {
                // A band of width 1 (a chain's row): one entry left of the diagonal, in straight
                // lines — the general steps below with their empty loops left out.
                let (off, diag) = (entries.next().expect("an entry"), entries.next().expect("the diagonal"));
                let w = terms.entry(off.terms, &mut t);
                let mut aii = terms.entry(diag.terms, &mut t);
                if has_reg {
                    aii += reg.at(perm[i]);
                }
                a_values[off.pos as usize] = w;
                a_values[diag.pos as usize] = aii;
                let (lij, s);
                (lij, _, dinv_prev, s) = tail::band_step((w, aii), b_i, (dinv_prev, z_prev), perm[i])?;
                (l[row_start[i]], d_inv[i], y[i], z_prev) = (lij, dinv_prev, s, s);
                out[i] = flush(s * dinv_prev);
                continue;
            }
            // Entry (i, k) of the envelope at l[bi + k], bi = row_start[i] − fᵢ (wrapping: only
            // k ≥ fᵢ is used); index loops, which compile tighter than slice iterators on rows
            // this short.
            let bi = row_start[i].wrapping_sub(fi);
            // Row i of A: each entry the sum of its terms from 0, the envelope's fill (where A has
            // no entry: a row with fewer entries than its width plus the diagonal) zero.
            if ((e1 - e0) as usize) <= width {
                l[row_start[i]..row_start[i] + width].fill(0.0);
            }
            let reg_i = has_reg.then(|| reg.at(perm[i]));
            let mut aii = 0.0;
            assemble_row(&mut entries, e1 - e0, &terms, &mut t, reg_i, (&mut aii, &mut l[row_start[i]..]), a_values);
            // wᵢⱼ = aᵢⱼ − Σ wᵢₖ Lⱼₖ over the envelopes' overlap k ∈ [max(fᵢ, fⱼ), j); for
            // j = fᵢ + 1 … i − 1 (empty for j = fᵢ).
            eliminate(l, first, row_start, i, bi);
            // Lᵢⱼ = wᵢⱼ / Dⱼ,  Dᵢ = aᵢᵢ − Σ wᵢⱼ Lᵢⱼ, and zᵢ = (P b)ᵢ − Σ Lᵢₖ zₖ. Column i − 1's
            // D⁻¹ and z are the previous row's, still in registers (no store-to-load round trip
            // on the chain of pivots).
            let dii = pivot(l, d_inv, (fi, i, bi), aii, dinv_prev);
            positive_pivot(dii, aii, perm[i])?;
            dinv_prev = 1.0 / dii;
            d_inv[i] = dinv_prev;
            // D⁻¹ z into `out` for the way back
            let s = flush(substitute(l, y, (fi, i, bi), b_i, z_prev));
            y[i] = s;
            z_prev = s;
            out[i] = flush(s * dinv_prev);
        }
        if s0 < d_inv.len() {
            let (e, r) = (self.row_entries[s0] as usize, row_start[s0]);
            let source = self.affine.ok_or((self.entries[e..].as_chunks::<2>().0, t));
            let tail = tail::BandTail { s0, a: &mut a_values[e..], l: &mut l[r..], d_inv, b, out };
            tail::factor(tail, &terms, source, reg, (dinv_prev, z_prev))?;
        }
        Ok(())
    }

    /// L z = P b into `y` and D⁻¹ z into `out`, with the factorization in place.
    fn forward(&mut self, b: &[f64], out: &mut [f64]) {
        let (first, row_start, l, y) = (&self.first, &self.row_start, &self.l, &mut self.y);
        for i in 0..y.len() {
            let row_i = &l[row_start[i]..row_start[i] + (i - first[i])];
            let mut s = b[self.perm[i]];
            for (lk, yk) in row_i.iter().zip(&y[first[i]..i]) {
                s -= lk * yk;
            }
            let s = flush(s);
            y[i] = s;
            out[i] = flush(s * self.d_inv[i]);
        }
    }

    /// Lᵀ u = D⁻¹ z in place in `u` (row i's entries of L subtract Lᵢₖ uᵢ from the uₖ before it,
    /// last row first); then x = Pᵀ u when `u` is not already x.
    fn backward(first: &[usize], row_start: &[usize], l: &[f64], u: &mut [f64]) {
        // uᵢ's last change comes from row i + 1 when that row reaches column i: carried in a
        // register from one row to the next instead of read back from memory.
        let mut carry: Option<f64> = None;
        for i in (0..u.len()).rev() {
            let ui = carry.unwrap_or(u[i]);
            let (fi, width) = (first[i], i - first[i]);
            let row_i = &l[row_start[i]..row_start[i] + width];
            for (lk, uk) in row_i.iter().zip(&mut u[fi..i]) {
                *uk -= lk * ui;
            }
            carry = (width > 0).then(|| u[i - 1]);
        }
    }

    /// The way back from D⁻¹ z (in x if the ordering is natural, else in `u`), and the relative
    /// residual ‖b − A x‖ / ‖b‖.
    fn backward_and_check(&mut self, b: &[f64], x: &mut [f64]) -> SolveInfo {
        if self.natural {
            let s0 = self.band_from;
            self.band_backward(x);
            Self::backward(&self.first, &self.row_start, &self.l, &mut x[..s0]);
        } else {
            Self::backward(&self.first, &self.row_start, &self.l, &mut self.u);
            for (ui, &old) in self.u.iter().zip(&self.perm) {
                x[old] = *ui;
            }
        }
        SolveInfo { iterations: 1, residual: self.residual(b, x) }
    }

    /// [`tail::backward`] on the band tail, if any.
    fn band_backward(&mut self, x: &mut [f64]) {
        let s0 = self.band_from;
        if s0 < x.len() {
            let a = self.a_values[self.row_entries[s0] as usize..].as_chunks::<2>().0;
            tail::backward(&self.l[self.row_start[s0]..], a, &mut self.ax[s0..], x, s0);
        }
    }

    /// ‖b − A x‖₂ / ‖b‖₂ (‖b − A x‖₂ when b = 0) from A's assembled upper triangle: the arithmetic
    /// of [`NormalMatrix::relative_residual`] (the same products and sums in the same order),
    /// on 32-bit indices and with both norms summed in one pass.
    fn residual(&mut self, b: &[f64], x: &[f64]) -> f64 {
        // The band tail's (A x)ᵢ are in place already (`band_backward`); the columns before it
        // here, and the tail's first column's scatter into the row before it.
        let (values, ax, s0) = (&self.a_values, &mut self.ax, self.band_from);
        for (c, w) in self.col_ptr.windows(2).enumerate().take(s0) {
            let (start, diag) = (w[0] as usize, w[1] as usize - 1);
            let xc = x[c];
            let mut acc = values[diag] * xc;
            for (&r, &a) in self.row_idx[start..diag].iter().zip(&values[start..diag]) {
                ax[r as usize] += a * xc;
                acc += a * x[r as usize];
            }
            ax[c] = acc;
        }
        if s0 < ax.len() {
            ax[s0 - 1] += values[self.col_ptr[s0] as usize] * x[s0];
        }
        let (mut r2, mut b2) = (0.0, 0.0);
        for (bi, ai) in b.iter().zip(ax.iter()) {
            r2 += (bi - ai) * (bi - ai);
            b2 += bi * bi;
        }
        let (r, nb) = (r2.sqrt(), b2.sqrt());
        if nb > 0.0 { r / nb } else { r }
    }
}

impl LinearSolver for EnvelopeLdlt {
    fn name(&self) -> &'static str {
        "envelope_ldlt"
    }

    /// The factorization's triangular solves write x before reading it.
    fn reads_start(&self) -> bool {
        false
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let Operator::Normal { pattern, .. } = op else {
            return Err(SolveError::NotApplicable { solver: "envelope_ldlt", reason: NOT_SPARSE });
        };
        let n = pattern.dim();
        let (perm, first, len) = ordering(pattern);
        let inv = inverse(&perm);
        let mut row_start = Vec::with_capacity(n);
        let mut acc = 0;
        for (i, &f) in first.iter().enumerate() {
            row_start.push(acc);
            acc += i - f;
        }
        let (col_ptr, row_idx) = pattern.csc();
        // Each stored entry of A (position p in column c, row r): its permuted row i ≥ column j
        // and its place in the envelope; then its terms, in assembly order.
        let mut place = vec![(0usize, DIAGONAL); pattern.nnz()];
        for c in 0..n {
            for (p, &r) in (col_ptr[c]..col_ptr[c + 1]).zip(&row_idx[col_ptr[c]..col_ptr[c + 1]]) {
                let (a, b) = (inv[r], inv[c]);
                let (i, j) = (a.max(b), a.min(b));
                place[p] = (i, if i == j { DIAGONAL } else { idx32(j - first[i]) });
            }
        }
        let mut grouped: Vec<Vec<NormalTerm>> = vec![Vec::new(); pattern.nnz()];
        for (p, t) in pattern.terms() {
            grouped[p].push(t);
        }
        // rows in order; within a row, the envelope's columns in order and the diagonal last
        let mut order: Vec<usize> = (0..pattern.nnz()).collect();
        order.sort_by_key(|&p| (place[p].0, place[p].1));
        let (mut entries, mut terms) = (Vec::with_capacity(order.len()), Vec::new());
        let mut row_entries = vec![0u32; n + 1];
        for p in order {
            terms.extend_from_slice(&grouped[p]);
            entries.push(Entry { pos: idx32(p), col: place[p].1, terms: idx32(grouped[p].len()) });
            row_entries[place[p].0 + 1] += 1;
        }
        for i in 0..n {
            row_entries[i + 1] += row_entries[i];
        }
        let natural = perm.iter().enumerate().all(|(i, &p)| i == p);
        let band_from = if natural { band_tail(&first, &row_entries, &entries) } else { n };
        let d0 = terms.first().map_or(1, |t: &NormalTerm| t.dof);
        let chunk = if [2, 3, 6].contains(&d0) && terms.iter().all(|t| t.dof == d0 && t.ja % d0 == 0 && t.jb % d0 == 0 && t.w0 % d0 == 0) {
            d0 as usize
        } else {
            1
        };
        let chunk_terms: Vec<[u32; 3]> =
            if chunk > 1 { terms.iter().map(|t| [t.ja / d0, t.jb / d0, t.w0 / d0]).collect() } else { Vec::new() };
        let affine = if chunk > 1 { affine_tail(band_from, &row_entries, &entries, &chunk_terms) } else { None };
        *self = EnvelopeLdlt {
            perm,
            first,
            row_start,
            l: vec![0.0; len],
            d_inv: vec![0.0; n],
            row_entries,
            entries,
            terms,
            chunk,
            chunk_terms,
            natural,
            band_from,
            affine,
            a_values: vec![0.0; pattern.nnz()],
            col_ptr: col_ptr.iter().map(|&p| idx32(p)).collect(),
            row_idx: row_idx.iter().map(|&r| idx32(r)).collect(),
            y: vec![0.0; n],
            u: vec![0.0; if natural { 0 } else { n }],
            ax: vec![0.0; n],
        };
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, reg, .. } = op else {
            return Err(SolveError::NotApplicable { solver: "envelope_ldlt", reason: NOT_SPARSE });
        };
        let mut u = std::mem::take(&mut self.u);
        let out = if self.natural { &mut *x } else { &mut u };
        let r = match self.chunk {
            2 => self.factor_and_forward::<2>(jac.values(), w, *reg, b, out),
            3 => self.factor_and_forward::<3>(jac.values(), w, *reg, b, out),
            6 => self.factor_and_forward::<6>(jac.values(), w, *reg, b, out),
            _ => self.factor_and_forward::<1>(jac.values(), w, *reg, b, out),
        };
        self.u = u;
        r?;
        Ok(self.backward_and_check(b, x))
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        if !matches!(op, Operator::Normal { .. }) {
            return Err(SolveError::NotApplicable { solver: "envelope_ldlt", reason: NOT_SPARSE });
        }
        let mut u = std::mem::take(&mut self.u);
        self.forward(b, if self.natural { x } else { &mut u });
        self.u = u;
        Ok(self.backward_and_check(b, x))
    }
}

/// The registry entry of `envelope_ldlt`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "envelope_ldlt",
    summary: "envelope (profile) LDL^T of J W J^T, natural or RCM order: linear cost on banded systems (chains), sqrt(m) wide on grids",
    kind: SolverKind::Direct,
    accepts: super::registry::SPARSE_NORMAL,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(EnvelopeLdlt::default()),
    // Memory: the envelope of L (exact size from the ordering) and the assembly maps.
    memory,
};

/// `x`, or 0 where |x| is below the smallest normal f64 (2.2e-308): the solve's L, z and D⁻¹ z
/// are flushed so (a deviation from IEEE arithmetic, see the module docs).
#[inline(always)]
pub(super) fn flush(x: f64) -> f64 {
    if x.abs() < f64::MIN_POSITIVE { 0.0 } else { x }
}

/// A pivot Dᵢ of row `row` (of A before permuting) above the tolerance relative to aᵢᵢ.
#[inline(always)]
fn positive_pivot(dii: f64, aii: f64, row: usize) -> Result<(), SolveError> {
    if dii > PIVOT_TOL * aii.abs() {
        Ok(())
    } else {
        Err(SolveError::NotPositiveDefinite { solver: "envelope_ldlt", pivot: row })
    }
}

/// Row i of A: each of its `count` entries the sum of its terms, the diagonal (plus `reg_i`) into
/// `d_i` (aᵢᵢ, from which the pivot Dᵢ follows; only D⁻¹ is stored), the others into the row's
/// envelope, each also into `a_values`.
#[inline(always)]
fn assemble_row<const D: usize>(
    entries: &mut std::slice::Iter<'_, Entry>,
    count: u32,
    terms: &Terms<'_, D>,
    t: &mut usize,
    reg_i: Option<f64>,
    (d_i, l_row): (&mut f64, &mut [f64]),
    a_values: &mut [f64],
) {
    for _ in 0..count {
        let e = entries.next().expect("an entry per row_entries");
        let mut acc = terms.entry(e.terms, t);
        if e.col == DIAGONAL {
            if let Some(r) = reg_i {
                acc += r;
            }
            *d_i = acc;
        } else {
            l_row[e.col as usize] = acc;
        }
        a_values[e.pos as usize] = acc;
    }
}

/// wᵢⱼ = aᵢⱼ − Σ wᵢₖ Lⱼₖ over the envelopes' overlap k ∈ [max(fᵢ, fⱼ), j), in place in row i of
/// the envelope (entry (i, k) at l[bi + k]), for j = fᵢ + 1 … i − 1.
#[inline(always)]
fn eliminate(l: &mut [f64], first: &[usize], row_start: &[usize], i: usize, bi: usize) {
    for j in first[i] + 1..i {
        let fj = first[j];
        let bj = row_start[j].wrapping_sub(fj);
        let mut s = 0.0;
        for k in first[i].max(fj)..j {
            s += l[bi.wrapping_add(k)] * l[bj.wrapping_add(k)];
        }
        l[bi.wrapping_add(j)] -= s;
    }
}

/// Lᵢⱼ = wᵢⱼ / Dⱼ in place and the pivot Dᵢ = aᵢᵢ − Σ wᵢⱼ Lᵢⱼ of row i (columns fᵢ … i − 1, entry
/// (i, k) at l[bi + k]); column i − 1's D⁻¹ is `dinv_prev`, still in a register (no
/// store-to-load round trip on the chain of pivots).
#[inline(always)]
fn pivot(l: &mut [f64], d_inv: &[f64], (fi, i, bi): (usize, usize, usize), aii: f64, dinv_prev: f64) -> f64 {
    let mut dii = aii;
    if i > fi {
        for k in fi..i - 1 {
            let w = l[bi.wrapping_add(k)];
            let x = w * d_inv[k];
            l[bi.wrapping_add(k)] = flush(x);
            dii -= w * x;
        }
        let w = l[bi.wrapping_add(i - 1)];
        let x = w * dinv_prev;
        l[bi.wrapping_add(i - 1)] = flush(x);
        dii -= w * x;
    }
    dii
}

/// zᵢ = (P b)ᵢ − Σ Lᵢₖ zₖ of row i (`b_i` = (P b)ᵢ); z_{i−1} is `z_prev`, still in a register.
#[inline(always)]
fn substitute(l: &[f64], y: &[f64], (fi, i, bi): (usize, usize, usize), b_i: f64, z_prev: f64) -> f64 {
    let mut s = b_i;
    if i > fi {
        for k in fi..i - 1 {
            s -= l[bi.wrapping_add(k)] * y[k];
        }
        s -= l[bi.wrapping_add(i - 1)] * z_prev;
    }
    s
}

#[cfg(test)]
mod tests;
