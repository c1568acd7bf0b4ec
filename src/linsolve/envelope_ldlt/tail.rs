//! The band tail of [`super::EnvelopeLdlt`]: in the natural order, the rows from the first one
//! after which every row has exactly one entry left of the diagonal, just left of it (a chain
//! after its pin), factored, substituted and checked in loops of their own — the general row's
//! products and sums in its order, with its empty loops and its envelope layout left out.

use super::terms::Terms;
use super::{DIAGONAL, Entry, flush, positive_pivot};
use crate::linsolve::{Reg, SolveError};
#[cfg(doc)]
use super::EnvelopeLdlt;

/// The band tail of one solve (see [`EnvelopeLdlt::band_from`]): from row `s0` on, A's assembled
/// values (from the first tail row's off-diagonal entry on), L (from its entry on); D⁻¹, (P b)
/// and D⁻¹ z of every row.
pub(super) struct BandTail<'a> {
    pub(super) s0: usize,
    pub(super) a: &'a mut [f64],
    pub(super) l: &'a mut [f64],
    pub(super) d_inv: &'a mut [f64],
    pub(super) b: &'a [f64],
    pub(super) out: &'a mut [f64],
}

/// A band tail whose every row has one term in its off-diagonal entry and two in its diagonal,
/// on `D`-wide chunks at indices that advance by the same stride from each row to the next (a
/// regular chain): `base` the first tail row's three terms ([ja, jb, w0] in chunks, in the
/// order the entries add them), `stride` their steps (wrapping). The solve computes the indices
/// instead of reading the entry and term lists.
#[derive(Clone, Copy, Debug)]
pub(super) struct AffineTail {
    base: [[u32; 3]; 3],
    stride: [[u32; 3]; 3],
}

/// The terms of the band tail from row `s0` on as an [`AffineTail`] when they are one: its
/// entries in pairs of one term off the diagonal and two on it, and its chunked terms at indices
/// affine in the row.
pub(super) fn affine_tail(s0: usize, row_entries: &[u32], entries: &[Entry], chunk_terms: &[[u32; 3]]) -> Option<AffineTail> {
    let e0 = row_entries[s0] as usize;
    let t0 = entries[..e0].iter().map(|en| en.terms as usize).sum();
    let tail = entries.get(e0..).filter(|e| !e.is_empty())?;
    if !tail.chunks(2).all(|p| p.len() == 2 && p[0].terms == 1 && p[1].terms == 2) {
        return None;
    }
    let terms = chunk_terms.get(t0..).filter(|t| t.len() == 3 * tail.len() / 2)?;
    let rows = terms.as_chunks::<3>().0;
    let base = rows[0];
    let step = |a: [u32; 3], b: [u32; 3]| [0, 1, 2].map(|c| b[c].wrapping_sub(a[c]));
    let stride = rows.get(1).map_or([[0; 3]; 3], |r1| [0, 1, 2].map(|j| step(base[j], r1[j])));
    let at = |k: usize, j: usize| [0, 1, 2].map(|c| base[j][c].wrapping_add((k as u32).wrapping_mul(stride[j][c])));
    rows.iter().enumerate().all(|(k, r)| (0..3).all(|j| r[j] == at(k, j))).then_some(AffineTail { base, stride })
}

/// The way down on the band tail: each row's two entries of A from the [`AffineTail`]'s
/// computed indices, or else (`source`'s `Err`) from the entry pairs and the term list from its
/// cursor,
/// each entry the sum of its terms from 0 as [`Terms::entry`] adds them.
#[inline(always)]
pub(super) fn factor<const D: usize>(
    tail: BandTail<'_>,
    terms: &Terms<'_, D>,
    source: Result<AffineTail, (&[[Entry; 2]], usize)>,
    reg: Reg,
    prev: (f64, f64),
) -> Result<(), SolveError> {
    match source {
        Ok(AffineTail { base, stride }) => factor_band_tail(tail, reg, prev, |k| {
            // row k's terms are at base + k stride
            let k = k as u32;
            let at = |j: usize| {
                let (b, s) = (base[j], stride[j]);
                [b[0].wrapping_add(k.wrapping_mul(s[0])), b[1].wrapping_add(k.wrapping_mul(s[1])), b[2].wrapping_add(k.wrapping_mul(s[2]))]
            };
            (terms.sum_of(&[at(0)]), terms.sum_of(&[at(1), at(2)]))
        }),
        Err((entries, mut t)) => factor_band_tail(tail, reg, prev, |k| {
            let [off, diag] = entries[k];
            (terms.entry(off.terms, &mut t), terms.entry(diag.terms, &mut t))
        }),
    }
}

/// The way back over the band tail (rows s0 …, last first), each row's (A x)ᵢ formed as soon as
/// xᵢ₋₁ is final: xᵢ₋₁ −= Lᵢ,ᵢ₋₁ xᵢ, then (A x)ᵢ = (aᵢᵢ xᵢ + aᵢ₋₁,ᵢ xᵢ₋₁) + aᵢ,ᵢ₊₁ xᵢ₊₁ —
/// [`EnvelopeLdlt::residual`]'s products and sums in its order, in the pass that makes x. `l`,
/// `a` and `ax` start at row s0 (its L entry, its (off-diagonal, diagonal) pair of A, its
/// (A x)ᵢ); `x` is the whole D⁻¹ z, the solution on return from row s0 − 1 on.
pub(super) fn backward(l: &[f64], a: &[[f64; 2]], ax: &mut [f64], x: &mut [f64], s0: usize) {
    let m = x.len() - s0;
    let (l, a, ax) = (&l[..m], &a[..m], &mut ax[..m]);
    let (mut x_next, mut a_next) = (0.0, None);
    let mut xi = x[s0 + m - 1];
    for k in (0..m).rev() {
        let i = s0 + k;
        let xm = x[i - 1] - l[k] * xi;
        x[i - 1] = xm;
        let [off, diag] = a[k];
        let mut acc = diag * xi;
        acc += off * xm;
        if let Some(a_up) = a_next {
            acc += a_up * x_next;
        }
        ax[k] = acc;
        (x_next, a_next, xi) = (xi, Some(off), xm);
    }
}

/// The way down ([`EnvelopeLdlt::factor_and_forward`]) on the band tail: row k's two entries of A from
/// `pair(k)` (each the sum of its terms from 0), Lᵢ,ᵢ₋₁ = aᵢ,ᵢ₋₁ D⁻¹ᵢ₋₁, Dᵢ = aᵢᵢ − aᵢ,ᵢ₋₁ Lᵢ,ᵢ₋₁
/// and zᵢ = bᵢ − Lᵢ,ᵢ₋₁ zᵢ₋₁ — the general row's steps with their empty loops left out, in
/// straight lines from the previous row's D⁻¹ and z (`prev`). Neither D nor z is stored: no
/// later row reads them.
#[inline(always)]
fn factor_band_tail(
    tail: BandTail<'_>,
    reg: Reg,
    (mut dinv_prev, mut z_prev): (f64, f64),
    mut pair: impl FnMut(usize) -> (f64, f64),
) -> Result<(), SolveError> {
    let BandTail { s0, a, l, d_inv, b, out } = tail;
    let m = out.len() - s0;
    let a = &mut a.as_chunks_mut::<2>().0[..m];
    let (l, d_inv, b, out) = (&mut l[..m], &mut d_inv[s0..], &b[s0..], &mut out[s0..]);
    let has_reg = !reg.is_zero();
    for k in 0..m {
        let (w, mut aii) = pair(k);
        if has_reg {
            aii += reg.at(s0 + k);
        }
        a[k] = [w, aii];
        let (lij, s);
        (lij, _, dinv_prev, s) = band_step((w, aii), b[k], (dinv_prev, z_prev), s0 + k)?;
        (l[k], d_inv[k], z_prev) = (lij, dinv_prev, s);
        out[k] = flush(s * dinv_prev);
    }
    Ok(())
}

/// One row of width 1 from its assembled (aᵢ,ᵢ₋₁, aᵢᵢ), (P b)ᵢ and the previous row's D⁻¹ and z:
/// (Lᵢ,ᵢ₋₁, Dᵢ, D⁻¹ᵢ, zᵢ) with Lᵢ,ᵢ₋₁ = aᵢ,ᵢ₋₁ D⁻¹ᵢ₋₁, Dᵢ = aᵢᵢ − aᵢ,ᵢ₋₁ Lᵢ,ᵢ₋₁ and
/// zᵢ = (P b)ᵢ − Lᵢ,ᵢ₋₁ zᵢ₋₁ (the bordering form with its empty loops left out); `row` (of A
/// before permuting) names a pivot that vanishes.
#[inline(always)]
pub(super) fn band_step(
    (w, aii): (f64, f64),
    b_i: f64,
    (dinv_prev, z_prev): (f64, f64),
    row: usize,
) -> Result<(f64, f64, f64, f64), SolveError> {
    let lij = w * dinv_prev;
    let dii = aii - w * lij;
    positive_pivot(dii, aii, row)?;
    Ok((lij, dii, 1.0 / dii, flush(b_i - lij * z_prev)))
}

/// The first row of the band tail (see [`EnvelopeLdlt::band_from`]) of a matrix in its natural
/// order: the rows from it on each have exactly two entries, the one just left of the diagonal
/// and the diagonal, stored in `a_values` in entry order; `n` when the last row is not such a row.
pub(super) fn band_tail(first: &[usize], row_entries: &[u32], entries: &[Entry]) -> usize {
    let n = first.len();
    let in_band = |i: usize| {
        let e0 = row_entries[i] as usize;
        i >= 1
            && first[i] == i - 1
            && row_entries[i + 1] as usize == e0 + 2
            && entries[e0].col == 0
            && entries[e0 + 1].col == DIAGONAL
            && entries[e0].pos as usize == e0
            && entries[e0 + 1].pos as usize == e0 + 1
    };
    (0..n).rev().take_while(|&i| in_band(i)).last().unwrap_or(n)
}
