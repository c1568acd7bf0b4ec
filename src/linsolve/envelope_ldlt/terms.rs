//! The terms of J W Jᵀ as a solve of [`super::EnvelopeLdlt`] reads them: each entry of A the sum
//! of its terms in [`NormalMatrix::assemble`]'s order, on `D`-wide chunks of J and W where every
//! term has the same width.

use crate::sparse::NormalTerm;
#[cfg(doc)]
use crate::sparse::NormalMatrix;

/// The terms of J W Jᵀ and the values they read, for one solve; `D` > 1: every term is on
/// `D`-wide chunks of J and W.
pub(super) struct Terms<'a, const D: usize> {
    pub(super) generic: &'a [NormalTerm],
    pub(super) chunked: &'a [[u32; 3]],
    pub(super) jv: &'a [f64],
    pub(super) w: &'a [f64],
    pub(super) jc: &'a [[f64; D]],
    pub(super) wc: &'a [[f64; D]],
}

impl<const D: usize> Terms<'_, D> {
    /// A chunked term: [`NormalTerm::value`]'s products and sums on `D`-wide chunks.
    #[inline(always)]
    fn chunk_value(&self, &[ja, jb, w0]: &[u32; 3]) -> f64 {
        let (a, b, wk) = (&self.jc[ja as usize], &self.jc[jb as usize], &self.wc[w0 as usize]);
        match D {
            2 => a[0] * wk[0] * b[0] + a[1] * wk[1] * b[1],
            3 => a[0] * wk[0] * b[0] + a[1] * wk[1] * b[1] + a[2] * wk[2] * b[2],
            _ => a.iter().zip(wk).zip(b).map(|((x, y), z)| x * y * z).sum(),
        }
    }

    /// The sum from 0 of the chunked terms `idx` (an entry of A whose terms' indices the caller
    /// computed), as [`Terms::entry`] adds them.
    #[inline(always)]
    pub(super) fn sum_of(&self, idx: &[[u32; 3]]) -> f64 {
        let mut acc = 0.0;
        for term in idx {
            acc += self.chunk_value(term);
        }
        acc
    }

    /// The sum from 0 of the `n` terms from `*t` on (an entry of A, as [`NormalMatrix::assemble`]
    /// adds it); advances `*t`.
    #[inline(always)]
    pub(super) fn entry(&self, n: u32, t: &mut usize) -> f64 {
        let (t0, t1) = (*t, *t + n as usize);
        *t = t1;
        let mut acc = 0.0;
        if D == 1 {
            for term in &self.generic[t0..t1] {
                acc += term.value(self.jv, self.w);
            }
            return acc;
        }
        match &self.chunked[t0..t1] {
            [a] => acc += self.chunk_value(a),
            [a, b] => {
                acc += self.chunk_value(a);
                acc += self.chunk_value(b);
            }
            more => {
                for term in more {
                    acc += self.chunk_value(term);
                }
            }
        }
        acc
    }
}
