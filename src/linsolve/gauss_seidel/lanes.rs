//! A colour's blocks swept W at a time in SIMD lanes (Box2D v3 `solver.c` and `contact_solver.c`
//! sweep a colour's constraints four or eight at a time the same way): lane j holds block j of a
//! group of W, and each step of [`super::sweep::Kernels::sweep_listed`]'s update — the two-lane
//! dot product, the residual, Δx_r, x_r and u's block — is done for the W blocks at once, in the
//! same order of operations per lane, without fused multiply-adds. The blocks of one colour share
//! no row and no column, so the W updates are those of the one-block-at-a-time sweep, to the bit,
//! and so is the largest change (a maximum over the same values). A colour's last `len mod W`
//! blocks take the scalar kernel.
//!
//! The instruction set is chosen at run time ([`Lanes::detect`]): with AVX-512F, 8 lanes of f64,
//! gathering u, x and b and scattering u and x with its gather and scatter instructions; without
//! it (or off x86-64) the sweep is the scalar one. Nothing assumes a `-C target-cpu`: the lane
//! kernel is compiled for its feature and called only after the CPU reported it. AVX2 alone was
//! tried and is not used: it has gathers but no scatter, and its 4-lane kernel (hardware gathers,
//! scalar stores) was slower than the scalar sweep in trials on an Intel Xeon with AVX-512F. A
//! colour of fewer than [`LANES_FROM`] blocks is swept one block at a time: below that the lanes'
//! setup per colour was not repaid.

use super::coloring::{Coloring, Segment};
use super::sweep::{Change, Kernels, RowReg, Store};
use crate::sparse::BlockRun;

/// A colour is swept in lanes from this many blocks on (in trials the chain's step with 20
/// coloured sweeps was level with the one-block sweep at about 100 blocks per colour, slower at
/// 50).
pub(super) const LANES_FROM: usize = 128;

/// The lanes a colour's sweep uses on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lanes {
    /// One block at a time.
    Scalar,
    /// 8 lanes of f64 (AVX-512F).
    Avx512,
}

impl Lanes {
    /// The widest lanes this CPU offers (the standard library caches the CPUID query).
    pub(super) fn detect() -> Lanes {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Lanes::Avx512;
            }
        }
        Lanes::Scalar
    }

    /// Lanes of f64 per group (1: none).
    pub(super) fn width(self) -> usize {
        match self {
            Lanes::Scalar => 1,
            Lanes::Avx512 => 8,
        }
    }
}

/// The colours' blocks laid out for the lanes, as Box2D v3 lays out a colour's constraints for its
/// wide solver: per group of W consecutive blocks of a colour's list, lane j holding block j,
/// the J values and the (ω / D_r) W J_rᵀ values stored lane by lane (`[row][k][lane]`), the
/// columns (`[k][lane]`) and ω / D_r (`[row][lane]`). Every load of the sweep's arithmetic is
/// then one contiguous vector; only u, x and b are gathered. The columns follow the layout of J
/// (packed with the colouring); the values follow J's values and are packed at the first sweep
/// after each forming of the per-row data. A list's last `len mod W` blocks, and the overflow
/// group, are not packed: the scalar kernel sweeps them.
#[derive(Debug, Default)]
pub(super) struct Packed {
    w: usize,
    vals: Vec<f64>,
    c: Vec<f64>,
    inv: Vec<f64>,
    cols: Vec<u32>,
    /// Per segment of the colouring: where its groups start in `vals` (and `c`), `cols`, `inv`.
    starts: Vec<[usize; 3]>,
}

/// One segment's packed groups (see [`Packed`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct PackedSegment<'a> {
    vals: &'a [f64],
    c: &'a [f64],
    inv: &'a [f64],
    cols: &'a [u32],
}

impl<'a> PackedSegment<'a> {
    /// The groups from group `g` on (a task's part of a colour that starts at block g W).
    pub(super) fn skip_groups(self, g: usize, run: &BlockRun, w: usize) -> PackedSegment<'a> {
        let (v, r) = (g * w * run.rows * run.ldof, g * w * run.rows);
        PackedSegment { vals: &self.vals[v..], c: &self.c[v..], inv: &self.inv[r..], cols: &self.cols[g * w * run.ldof..] }
    }
}

impl Packed {
    /// The layout for `w` lanes of the colouring's segments over `runs`, with the columns packed
    /// (allocates; values are packed by [`Packed::pack`]).
    pub(super) fn lay_out(w: usize, runs: &[BlockRun], order: &Coloring, columns: &[u32]) -> Packed {
        let mut p = Packed { w, ..Packed::default() };
        let mut at = [0usize; 3];
        for seg in &order.segments {
            let run = &runs[seg.run];
            p.starts.push(at);
            let blocks = Packed::blocks(seg, w);
            at[0] += blocks * run.rows * run.ldof;
            at[1] += blocks * run.ldof;
            at[2] += blocks * run.rows;
            for group in order.blocks[seg.start..seg.start + blocks].chunks_exact(w) {
                for k in 0..run.ldof {
                    p.cols.extend(group.iter().map(|&blk| columns[run.col0 + blk as usize * run.ldof + k]));
                }
            }
        }
        p.vals = vec![0.0; at[0]];
        p.c = vec![0.0; at[0]];
        p.inv = vec![0.0; at[2]];
        p
    }

    /// The blocks of `seg` packed: whole groups of `w`, none of the overflow group (its blocks
    /// may share columns).
    fn blocks(seg: &Segment, w: usize) -> usize {
        if seg.independent { (seg.end - seg.start) / w * w } else { 0 }
    }

    /// Packs J's values `vals`, the per-row (ω / D_r) W J_rᵀ `c` and ω / D_r `inv` (J's order).
    pub(super) fn pack(&mut self, runs: &[BlockRun], order: &Coloring, vals: &[f64], c: &[f64], inv: &[f64]) {
        let w = self.w;
        for (seg, &[v0, _, r0]) in order.segments.iter().zip(&self.starts) {
            let run = &runs[seg.run];
            let (l, rows) = (run.ldof, run.rows);
            let blocks = Packed::blocks(seg, w);
            let (mut dv, mut di) = (v0, r0);
            // written in order; each group's reads stay within its W blocks' values
            for group in order.blocks[seg.start..seg.start + blocks].chunks_exact(w) {
                for r in 0..rows {
                    for k in 0..l {
                        for &blk in group {
                            let src = run.val0 + (blk as usize * rows + r) * l + k;
                            self.vals[dv] = vals[src];
                            self.c[dv] = c[src];
                            dv += 1;
                        }
                    }
                    for &blk in group {
                        self.inv[di] = inv[run.row0 + blk as usize * rows + r];
                        di += 1;
                    }
                }
            }
        }
    }

    /// Segment `s`'s groups.
    pub(super) fn segment(&self, s: usize) -> PackedSegment<'_> {
        let [v, k, r] = self.starts[s];
        PackedSegment { vals: &self.vals[v..], c: &self.c[v..], inv: &self.inv[r..], cols: &self.cols[k..] }
    }
}

impl<R: RowReg> Kernels<'_, R> {
    /// [`Kernels::sweep_listed`] over the listed blocks, W of them at a time in lanes when `lanes`
    /// has them, the width is fixed (`L` > 0) and the list is packed (`packed`, its groups from
    /// the list's first block); the same iterates and change, to the bit.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sweep_colour<const L: usize>(
        &self,
        (lanes, packed): (Lanes, Option<PackedSegment>),
        run: &BlockRun,
        list: &[u32],
        c: &[f64],
        inv: &[f64],
        b: &[f64],
        x: &mut (impl Store + ?Sized),
        u: &mut (impl Store + ?Sized),
    ) -> Change {
        match (lanes, packed) {
            #[cfg(target_arch = "x86_64")]
            (Lanes::Avx512, Some(p)) if L > 0 => {
                // SAFETY: `Lanes::Avx512` is made only where the CPU reported AVX-512F
                // (`Lanes::detect`; the tests ask the same query).
                unsafe { x86::avx512::sweep::<R, L>(self, run, list, p, (c, inv), b, x, u) }
            }
            _ => self.sweep_listed::<L>(run, list, c, inv, b, x, u),
        }
    }
}

/// The lane sweep for one instruction set: groups of W listed blocks from the packed segment,
/// each group's rows updated in lockstep (every block of a run has `run.rows` rows), then the
/// list's last `len mod W` blocks one at a time by [`Kernels::sweep_listed`] from J's order.
/// Per lane it is [`super::sweep`]'s update with its operations in the same order: the dot
/// product's even terms and odd terms in two sums then added, res = (b_r − J_r u) − reg_r x_r,
/// Δx_r = res · ω / D_r, x_r + Δx_r, u_k + c_k · res, and the change's maxima with maxpd's rule.
#[cfg(target_arch = "x86_64")]
macro_rules! lane_sweep {
    ($isa:ident, $feature:literal, $v:ty, $w:literal, $gather:path, $scatter:path, $load:ident, $store:ident, $set1:ident,
     $mul:ident, $add:ident, $sub:ident, $max:ident, $abs:ident) => {
        #[doc = concat!("The lane sweep with ", stringify!($w), " lanes of f64, compiled for ", $feature, ".")]
        pub(super) mod $isa {
            use super::*;

            const W: usize = $w;

            /// The first W values of `s`.
            #[inline]
            #[target_feature(enable = $feature)]
            fn load(s: &[f64]) -> $v {
                // SAFETY: the slice is bounds-checked to W values first.
                unsafe { $load(s[..W].as_ptr()) }
            }

            /// The W values of `v`.
            #[inline]
            #[target_feature(enable = $feature)]
            fn spill(v: $v) -> [f64; W] {
                let mut a = [0.0; W];
                // SAFETY: `a` holds W values.
                unsafe { $store(a.as_mut_ptr(), v) };
                a
            }

            /// J_r u per lane (`jr`: the row's L vectors), as `sweep::dot`: the even terms and the
            /// odd terms in two sums, then added.
            #[inline]
            #[target_feature(enable = $feature)]
            fn dot<const L: usize>(jr: &[f64], ul: &[$v; L]) -> $v {
                let mut s0 = $mul(load(jr), ul[0]);
                if L == 1 {
                    return s0;
                }
                let mut s1 = $mul(load(&jr[W..]), ul[1]);
                let mut kk = 2;
                while kk + 1 < L {
                    s0 = $add(s0, $mul(load(&jr[kk * W..]), ul[kk]));
                    s1 = $add(s1, $mul(load(&jr[(kk + 1) * W..]), ul[kk + 1]));
                    kk += 2;
                }
                if kk < L {
                    s0 = $add(s0, $mul(load(&jr[kk * W..]), ul[kk]));
                }
                $add(s0, s1)
            }

            /// The lane sweep (see the macro's docs).
            #[target_feature(enable = $feature)]
            #[allow(clippy::too_many_arguments)]
            pub(in super::super) fn sweep<R: RowReg, const L: usize>(
                k: &Kernels<R>,
                run: &BlockRun,
                list: &[u32],
                packed: PackedSegment,
                (c, inv): (&[f64], &[f64]),
                b: &[f64],
                x: &mut (impl Store + ?Sized),
                u: &mut (impl Store + ?Sized),
            ) -> Change {
                debug_assert!(L > 0 && L == run.ldof);
                // x (the run's rows) and u as raw memory for the gathers and scatters, which check
                // every index against the length; x and u are used only through these until the
                // remainder's sweep
                let (xs, us) = (x.raw(), u.raw());
                let rows = run.rows;
                let b_run = &b[run.row0..run.row0 + run.nrows()];
                let groups = list.chunks_exact(W);
                let rest = groups.remainder();
                let (mut dxm, mut xm) = ($set1(0.0), $set1(0.0));
                let (gv, gr) = (rows * L * W, rows * W);
                for (g, group) in groups.enumerate() {
                    let (pv, pc) = (&packed.vals[g * gv..(g + 1) * gv], &packed.c[g * gv..(g + 1) * gv]);
                    let (pi, pcols) = (&packed.inv[g * gr..(g + 1) * gr], &packed.cols[g * L * W..(g + 1) * L * W]);
                    let group: &[u32; W] = group.try_into().expect("W blocks");
                    // u's block per lane: ul[k] holds column k of the W blocks
                    let mut ul = [$set1(0.0); L];
                    for (ulk, ck) in ul.iter_mut().zip(pcols.chunks_exact(W)) {
                        // SAFETY: `us` is u's memory, not otherwise accessed during the loop.
                        *ulk = unsafe { $gather(ck, us) };
                    }
                    for r in 0..rows {
                        let (jr, cr) = (&pv[r * L * W..(r + 1) * L * W], &pc[r * L * W..(r + 1) * L * W]);
                        let dot = dot::<L>(jr, &ul);
                        // the rows (within the run); Packed::lay_out keeps them below 2³¹
                        let (mut i, mut i32s) = ([0usize; W], [0u32; W]);
                        for ((ij, ij32), &blk) in i.iter_mut().zip(i32s.iter_mut()).zip(group) {
                            *ij = blk as usize * rows + r;
                            *ij32 = *ij as u32;
                        }
                        // SAFETY: `xs` is x's memory, not otherwise accessed during the loop; `b_run`
                        // is borrowed for the call.
                        let xr = unsafe { $gather(&i32s, xs) };
                        let bd = $sub(unsafe { $gather(&i32s, (b_run.as_ptr() as *mut f64, b_run.len())) }, dot);
                        let res = match k.reg.lanes::<W>(run.row0, &i) {
                            None => bd,
                            Some(reg) => $sub(bd, $mul(load(&reg), xr)),
                        };
                        let dx = $mul(res, load(&pi[r * W..]));
                        let xr = $add(xr, dx);
                        for (kk, ulk) in ul.iter_mut().enumerate() {
                            *ulk = $add(*ulk, $mul(load(&cr[kk * W..]), res));
                        }
                        // SAFETY: as for the gather of x.
                        unsafe { $scatter(&i32s, xs, xr) };
                        dxm = $max($abs(dx), dxm);
                        xm = $max($abs(xr), xm);
                    }
                    for (ulk, ck) in ul.iter().zip(pcols.chunks_exact(W)) {
                        // SAFETY: as for the gather of u.
                        unsafe { $scatter(ck, us, *ulk) };
                    }
                }
                // no lane maximum is NaN, so folding them is the maximum over every row, as one lane
                let mut lanes = Change::default();
                for (&dx, &x) in spill(dxm).iter().zip(&spill(xm)) {
                    lanes = lanes.max(Change { dx, x });
                }
                lanes.max(k.sweep_listed::<L>(run, rest, c, inv, b, x, u))
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// Panics unless every index is below `len` (and the 32-bit gather's sign bit is clear).
    #[inline(always)]
    fn check(idx: &[u32], len: usize) {
        let mut top = 0u32;
        for &i in idx {
            top = top.max(i);
        }
        assert!((top as usize) < len.min(1 << 31), "lane index out of range");
    }

    /// The 8 values at `idx` of the `len` values at `base`.
    /// SAFETY: `base` must be valid for reads of `len` values.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn gather8(idx: &[u32], (base, len): (*mut f64, usize)) -> __m512d {
        let idx = &idx[..8];
        check(idx, len);
        // SAFETY: every index is in bounds (checked); the indices are read from 8 u32.
        unsafe { _mm512_i32gather_pd::<8>(_mm256_loadu_si256(idx.as_ptr() as *const __m256i), base) }
    }

    /// Stores the 8 values of `v` at `idx` of the `len` values at `base` (distinct indices).
    /// SAFETY: `base` must be valid for writes of `len` values.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn scatter8(idx: &[u32], (base, len): (*mut f64, usize), v: __m512d) {
        let idx = &idx[..8];
        check(idx, len);
        // SAFETY: every index is in bounds (checked); the indices are read from 8 u32.
        unsafe { _mm512_i32scatter_pd::<8>(base, _mm256_loadu_si256(idx.as_ptr() as *const __m256i), v) }
    }

    lane_sweep!(avx512, "avx512f", __m512d, 8, gather8, scatter8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd,
        _mm512_mul_pd, _mm512_add_pd, _mm512_sub_pd, _mm512_max_pd, _mm512_abs_pd);
}

#[cfg(test)]
mod tests {
    use super::super::coloring::Coloring;
    use super::super::sweep::{PerRow, Uniform, by_width};
    use super::*;
    use crate::params::Scalar;
    use crate::scene::registry as scenes;

    /// Bits of x, u and every colour's change after three coloured sweeps from x = 0.5, with the
    /// lanes `lanes`.
    #[allow(clippy::too_many_arguments)]
    fn sweeps<R: RowReg>(k: &Kernels<R>, runs: &[BlockRun], order: &Coloring, (c, inv): (&[f64], &[f64]), b: &[f64], x0: &[f64], ncols: usize, lanes: Lanes) -> Vec<u64> {
        let mut packed = Packed::lay_out(lanes.width(), runs, order, k.cols);
        packed.pack(runs, order, k.vals, c, inv);
        let (mut x, mut u) = (x0.to_vec(), vec![0.0; ncols]);
        let mut changes = vec![];
        for _ in 0..3 {
            for (si, seg) in order.segments.iter().enumerate() {
                let (run, list, p) = (&runs[seg.run], &order.blocks[seg.start..seg.end], packed.segment(si));
                let xr = &mut x[run.row0..run.row0 + run.nrows()];
                // every segment's change, not only the sweep's largest
                let lanes = if seg.independent { lanes } else { Lanes::Scalar };
                let change = by_width!(run.ldof, k.sweep_colour((lanes, Some(p)), run, list, c, inv, b, xr, u.as_mut_slice()));
                changes.extend([change.dx, change.x]);
            }
        }
        x.iter().chain(&u).chain(&changes).map(|v| v.to_bits()).collect()
    }

    /// The lane widths this CPU can run, each seen by the CPU's feature query.
    fn available() -> Vec<Lanes> {
        let mut lanes = vec![];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                lanes.push(Lanes::Avx512);
            }
        }
        lanes
    }

    #[test]
    fn lanes_give_the_bits_of_the_one_block_sweep() {
        let cases: [(&str, &[(&str, Scalar)]); 4] = [
            ("chain", &[("n", Scalar::Num(41.0))]),
            ("cloth", &[("width", Scalar::Num(7.0)), ("height", Scalar::Num(5.0))]),
            ("chain_3d", &[("n", Scalar::Num(19.0))]),
            ("slider_crank", &[]),
        ];
        let mut widths = std::collections::BTreeSet::new();
        for (name, over) in cases {
            let scene = scenes::find(name).unwrap().build_default(over).unwrap();
            let mut q = scene.q0.clone();
            for (i, qi) in q.iter_mut().enumerate() {
                *qi += 0.01 * ((i * 13 % 7) as f64 - 3.0); // bend it: no two rows alike
            }
            let mut jac = scene.system.jacobian_layout();
            scene.system.fill_jacobian(&q, &mut jac);
            let runs = jac.runs();
            widths.extend(runs.iter().map(|r| (r.ldof, r.rows)));
            let order = Coloring::of(&runs, jac.columns(), jac.ncols());
            let per_row: Vec<f64> = (0..jac.nrows()).map(|i| 0.01 * (1 + i % 5) as f64).collect();
            // b with one NaN row: its lane must not disturb the others, nor the change
            let mut b: Vec<f64> = (0..jac.nrows()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
            b[jac.nrows() / 2] = f64::NAN;
            let x0 = vec![0.5; jac.nrows()];
            let w = scene.system.inv_mass();
            for reg in [None, Some(&per_row)] {
                let (mut wj, mut c, mut inv) = (vec![0.0; jac.nnz()], vec![0.0; jac.nnz()], vec![0.0; jac.nrows()]);
                let check = |k: &dyn Fn(Lanes) -> Vec<u64>| {
                    let scalar = k(Lanes::Scalar);
                    for lanes in available() {
                        let first_difference = k(lanes).iter().zip(&scalar).position(|(p, q)| p != q);
                        assert_eq!(first_difference, None, "{name}: {lanes:?}");
                    }
                };
                match reg {
                    None => {
                        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg: Uniform(0.25) };
                        runs.iter().for_each(|r| by_width!(r.ldof, k.prepare(r, w, 1.3, &mut wj, &mut c, &mut inv)).unwrap());
                        check(&|l| sweeps(&k, &runs, &order, (&c, &inv), &b, &x0, jac.ncols(), l));
                    }
                    Some(p) => {
                        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg: PerRow(p) };
                        runs.iter().for_each(|r| by_width!(r.ldof, k.prepare(r, w, 1.3, &mut wj, &mut c, &mut inv)).unwrap());
                        check(&|l| sweeps(&k, &runs, &order, (&c, &inv), &b, &x0, jac.ncols(), l));
                    }
                }
            }
        }
        // every width the kernels fix, one row per block and several
        assert!(widths.is_superset(&[(4, 1), (6, 1), (2, 2), (6, 2), (12, 3)].into()), "{widths:?}");
    }
}
