//! The sweep of `gauss_seidel` over J's runs of equal-width blocks: the kernels with the width
//! fixed at compile time, the carry of a chain's shared body, the per-row diagonal term and the
//! sweep's change for the cheap stopping test (see the parent module's docs).

use crate::linsolve::VelocityTarget;
use crate::sparse::BlockRun;
use std::sync::atomic::{AtomicU64, Ordering};

/// How the blocks of a run form a chain: the columns of half `to` of every block (but the first)
/// are those of half `from` of the block before it (a chain's links share a body), so the sweep
/// carries those values over in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Link {
    from: usize,
    to: usize,
}

impl Link {
    /// The link every consecutive pair of the run's blocks has, if any (runs of one block, and
    /// odd widths, have none).
    pub(super) fn of(run: &BlockRun, columns: &[u32]) -> Option<Link> {
        let (l, h) = (run.ldof, run.ldof / 2);
        if run.blocks < 2 || l % 2 != 0 {
            return None;
        }
        let cols = &columns[run.col0..run.col0 + run.blocks * l];
        let half = |b: usize, k: usize| &cols[b * l + k * h..b * l + (k + 1) * h];
        [(1, 0), (0, 1), (0, 0), (1, 1)].into_iter().map(|(from, to)| Link { from, to }).find(|lk| {
            // the shared half must differ from the block's other half, or the carried values
            // would be overwritten
            (1..run.blocks).all(|b| half(b, lk.to) == half(b - 1, lk.from) && half(b, 0) != half(b, 1))
        })
    }
}

/// The largest |Δx_r| and |x_r| of a sweep.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Change {
    pub(super) dx: f64,
    pub(super) x: f64,
}

impl Change {
    pub(super) fn max(self, o: Change) -> Change {
        Change { dx: self.dx.max(o.dx), x: self.x.max(o.x) }
    }

    /// Takes in one row's |Δx_r| and |x_r| — maxsd, not f64::max: a NaN Δx leaves the maximum as
    /// it is either way, and the residual check that follows reports it.
    #[inline(always)]
    fn track(&mut self, dx: f64, x: f64) {
        let (adx, ax) = (dx.abs(), x.abs());
        self.dx = if adx > self.dx { adx } else { self.dx };
        self.x = if ax > self.x { ax } else { self.x };
    }
}

/// Where [`Kernels::sweep_listed`] reads and writes x and u: a plain slice (one thread) or
/// [`Shared`], the same memory seen by the tasks of one colour at once.
pub(super) trait Store {
    /// The value at `i`.
    fn load(&self, i: usize) -> f64;
    /// Sets the value at `i`.
    fn store(&mut self, i: usize, v: f64);
    /// The address of the first value and the number of values, for the lane kernels' gathers
    /// and scatters (valid while the store is not otherwise used).
    fn raw(&mut self) -> (*mut f64, usize);
}

impl Store for [f64] {
    #[inline(always)]
    fn raw(&mut self) -> (*mut f64, usize) {
        (self.as_mut_ptr(), self.len())
    }
    #[inline(always)]
    fn load(&self, i: usize) -> f64 {
        self[i]
    }
    #[inline(always)]
    fn store(&mut self, i: usize, v: f64) {
        self[i] = v;
    }
}

// `Shared` reads f64 storage as `AtomicU64`: same size, and the alignment must match too.
const _: () = assert!(std::mem::align_of::<f64>() == std::mem::align_of::<AtomicU64>());

/// A slice of f64 shared by the tasks of a parallel colour, each value loaded and stored as a
/// relaxed atomic (a plain load or store on x86-64 and AArch64). The colouring gives each task
/// blocks whose rows and columns no other task of the colour touches, so no value is written by
/// one task and read or written by another: the loads see what a sequential sweep would, and the
/// iterates are those of [`Kernels::sweep_listed`] on one thread, to the bit.
#[derive(Clone, Copy)]
pub(super) struct Shared<'a>(&'a [AtomicU64]);

impl<'a> Shared<'a> {
    /// The slice `x`, borrowed for the colour's tasks.
    pub(super) fn of(x: &'a mut [f64]) -> Self {
        // SAFETY: AtomicU64 has the size of f64, its alignment (asserted above) and accepts every
        // bit pattern; `x` is borrowed exclusively for 'a, so every access for 'a goes through
        // this view, and all of them are atomic.
        Shared(unsafe { &*(x as *mut [f64] as *const [AtomicU64]) })
    }
}

impl Store for Shared<'_> {
    #[inline(always)]
    fn raw(&mut self) -> (*mut f64, usize) {
        // AtomicU64 holds its value in an UnsafeCell: writes through this pointer are allowed;
        // the colouring gives this task values no other task touches during the colour
        (self.0.as_ptr() as *mut f64, self.0.len())
    }
    #[inline(always)]
    fn load(&self, i: usize) -> f64 {
        f64::from_bits(self.0[i].load(Ordering::Relaxed))
    }
    #[inline(always)]
    fn store(&mut self, i: usize, v: f64) {
        self.0[i].store(v.to_bits(), Ordering::Relaxed);
    }
}

/// The diagonal term reg_r of a row, in the form the kernels are compiled for: none (so no
/// `− 0 · x_r` is computed), one value for all rows, or one per row.
pub(super) trait RowReg: Copy + Sync {
    /// a − reg_i x_i.
    fn sub(self, i: usize, a: f64, xi: f64) -> f64;
    /// a + reg_i.
    fn add(self, i: usize, a: f64) -> f64;
    /// reg of the W rows `row0 + i[j]`, or None when there is no term (the lane kernels).
    fn lanes<const W: usize>(self, row0: usize, i: &[usize; W]) -> Option<[f64; W]>;
}

#[derive(Clone, Copy)]
pub(super) struct NoReg;
#[derive(Clone, Copy)]
pub(super) struct Uniform(pub(super) f64);
#[derive(Clone, Copy)]
pub(super) struct PerRow<'a>(pub(super) &'a [f64]);

impl RowReg for NoReg {
    #[inline(always)]
    fn lanes<const W: usize>(self, _: usize, _: &[usize; W]) -> Option<[f64; W]> {
        None
    }
    #[inline(always)]
    fn sub(self, _: usize, a: f64, _: f64) -> f64 {
        a
    }
    #[inline(always)]
    fn add(self, _: usize, a: f64) -> f64 {
        a
    }
}

impl RowReg for Uniform {
    #[inline(always)]
    fn lanes<const W: usize>(self, _: usize, _: &[usize; W]) -> Option<[f64; W]> {
        Some([self.0; W])
    }
    #[inline(always)]
    fn sub(self, _: usize, a: f64, xi: f64) -> f64 {
        a - self.0 * xi
    }
    #[inline(always)]
    fn add(self, _: usize, a: f64) -> f64 {
        a + self.0
    }
}

impl RowReg for PerRow<'_> {
    #[inline(always)]
    fn lanes<const W: usize>(self, row0: usize, i: &[usize; W]) -> Option<[f64; W]> {
        let mut reg = [0.0; W];
        for (o, &ij) in reg.iter_mut().zip(i) {
            *o = self.0[row0 + ij];
        }
        Some(reg)
    }
    #[inline(always)]
    fn sub(self, i: usize, a: f64, xi: f64) -> f64 {
        a - self.0[i] * xi
    }
    #[inline(always)]
    fn add(self, i: usize, a: f64) -> f64 {
        a + self.0[i]
    }
}

/// Calls a [`Kernels`] method with the width fixed at compile time for the common block widths
/// (`L` = 0: the width read at run time).
macro_rules! by_width {
    ($ldof:expr, $k:ident . $f:ident ( $($arg:expr),* )) => {
        match $ldof {
            4 => $k.$f::<4>($($arg),*),
            2 => $k.$f::<2>($($arg),*),
            6 => $k.$f::<6>($($arg),*),
            3 => $k.$f::<3>($($arg),*),
            12 => $k.$f::<12>($($arg),*),
            _ => $k.$f::<0>($($arg),*),
        }
    };
}
pub(super) use by_width;

/// Σ_k a_k b_k summed in two lanes (even and odd k), then added: the same order for every width.
#[inline(always)]
pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let l = a.len();
    if l == 1 {
        return a[0] * b[0];
    }
    let (mut s0, mut s1) = (a[0] * b[0], a[1] * b[1]);
    let mut k = 2;
    while k + 1 < l {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        k += 2;
    }
    if k < l {
        s0 += a[k] * b[k];
    }
    s0 + s1
}

/// The per-run kernels over J's values and columns; `L` is the run's width when it is not 0.
pub(super) struct Kernels<'a, R> {
    pub(super) vals: &'a [f64],
    pub(super) cols: &'a [u32],
    pub(super) reg: R,
}

impl<R: RowReg> Kernels<'_, R> {
    /// The run's values (row-major per block), columns (per block) and width.
    #[inline(always)]
    fn of<const L: usize>(&self, run: &BlockRun) -> (&[f64], &[u32], usize) {
        let l = if L == 0 { run.ldof } else { L };
        debug_assert_eq!(l, run.ldof);
        let n = run.nrows();
        (&self.vals[run.val0..run.val0 + n * l], &self.cols[run.col0..run.col0 + run.blocks * l], l)
    }

    /// W J_rᵀ into `wj`, ω / D_r into `inv` and their product into `c` for every row of the run;
    /// Err(row) for D_r ≤ 0.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prepare<const L: usize>(
        &self,
        run: &BlockRun,
        w: &[f64],
        omega: f64,
        wj: &mut [f64],
        c: &mut [f64],
        inv: &mut [f64],
    ) -> Result<(), usize> {
        let (vals, cols, l) = self.of::<L>(run);
        let wj = &mut wj[run.val0..run.val0 + vals.len()];
        let c = &mut c[run.val0..run.val0 + vals.len()];
        let inv = &mut inv[run.row0..run.row0 + run.nrows()];
        let mut wl = [0.0; crate::constraint::MAX_LOCAL_DOF];
        let mut i = run.row0;
        for (((bv, bw), bcc), (bc, bi)) in vals
            .chunks_exact(run.rows * l)
            .zip(wj.chunks_exact_mut(run.rows * l))
            .zip(c.chunks_exact_mut(run.rows * l))
            .zip(cols.chunks_exact(l).zip(inv.chunks_exact_mut(run.rows)))
        {
            for (o, &col) in wl[..l].iter_mut().zip(bc) {
                *o = w[col as usize];
            }
            for (((row, wr), cr), inv_r) in bv.chunks_exact(l).zip(bw.chunks_exact_mut(l)).zip(bcc.chunks_exact_mut(l)).zip(bi) {
                for ((o, wk), j) in wr.iter_mut().zip(&wl[..l]).zip(row) {
                    *o = wk * j;
                }
                let d = self.reg.add(i, dot(row, wr));
                if !(d > 0.0) {
                    return Err(i);
                }
                *inv_r = omega / d;
                for (o, wk) in cr.iter_mut().zip(wr.iter()) {
                    *o = wk * *inv_r;
                }
                i += 1;
            }
        }
        Ok(())
    }

    /// u += Σ_r (W J_rᵀ) x_r over the run's rows (each block's sum added once).
    #[inline(always)]
    pub(super) fn spread<const L: usize>(&self, run: &BlockRun, wj: &[f64], x: &[f64], u: &mut [f64]) {
        let (vals, cols, l) = self.of::<L>(run);
        let wj = &wj[run.val0..run.val0 + vals.len()];
        let x = &x[run.row0..run.row0 + run.nrows()];
        for ((bw, bc), bx) in wj.chunks_exact(run.rows * l).zip(cols.chunks_exact(l)).zip(x.chunks_exact(run.rows)) {
            let mut acc = [0.0; crate::constraint::MAX_LOCAL_DOF];
            for (wr, &xr) in bw.chunks_exact(l).zip(bx) {
                for (a, wk) in acc[..l].iter_mut().zip(wr) {
                    *a += wk * xr;
                }
            }
            for (a, &c) in acc[..l].iter().zip(bc) {
                u[c as usize] += a;
            }
        }
    }

    /// Σ_r (b_r − J_r u − reg_r x_r)² over the run's rows.
    #[inline(always)]
    pub(super) fn residual2<const L: usize>(&self, run: &BlockRun, u: &[f64], x: &[f64], b: &[f64]) -> f64 {
        let (vals, cols, l) = self.of::<L>(run);
        let mut ul = [0.0; crate::constraint::MAX_LOCAL_DOF];
        let mut i = run.row0;
        let mut r2 = 0.0;
        for (bv, bc) in vals.chunks_exact(run.rows * l).zip(cols.chunks_exact(l)) {
            for (o, &c) in ul[..l].iter_mut().zip(bc) {
                *o = u[c as usize];
            }
            for row in bv.chunks_exact(l) {
                let r = self.reg.sub(i, b[i] - dot(row, &ul[..l]), x[i]);
                r2 += r * r;
                i += 1;
            }
        }
        r2
    }

    /// The update of one row (global index `i`) with the block's u in `ul`: res = b_r − J_r u −
    /// reg_r x_r, x_r += (ω / D_r) res, u += (ω / D_r) W J_rᵀ res (`cr`); the change tracked.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn update_row(&self, i: usize, row: &[f64], cr: &[f64], b_r: f64, inv_r: f64, x_r: &mut f64, ul: &mut [f64], change: &mut Change) {
        let res = self.reg.sub(i, b_r - dot(row, ul), *x_r);
        let dx = res * inv_r;
        *x_r += dx;
        for (uk, ck) in ul.iter_mut().zip(cr) {
            *uk += ck * res;
        }
        change.track(dx, *x_r);
    }

    /// The first sweep of a cold solve (x = 0, u = 0) with b = −(J v + β C) formed as it goes, in
    /// one pass over the run: per row, with `form`, W J_rᵀ, ω / D_r and their product as
    /// [`Kernels::prepare`] forms them (else those stored); b_r from J_r v with the arithmetic of
    /// [`crate::sparse::BlockJacobian::mul`], stored in `b`; then the update of [`Kernels::sweep`].
    /// Returns the sweep's change and Σ b_r² over the run (in row order), or Err(row) for D_r ≤ 0.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn first_sweep<const L: usize>(
        &self,
        run: &BlockRun,
        form: Option<(&[f64], f64)>,
        target: &VelocityTarget,
        (wj, c, inv): (&mut [f64], &mut [f64], &mut [f64]),
        b: &mut [f64],
        x: &mut [f64],
        u: &mut [f64],
    ) -> Result<(Change, f64), usize> {
        let (vals, cols, l) = self.of::<L>(run);
        let (rows, n) = (run.rows, run.nrows());
        let span = run.val0..run.val0 + vals.len();
        let (wj, c) = (&mut wj[span.clone()], &mut c[span]);
        let (inv, x) = (&mut inv[run.row0..run.row0 + n], &mut x[run.row0..run.row0 + n]);
        let (mut ul, mut vl, mut wl) = ([0.0; crate::constraint::MAX_LOCAL_DOF], [0.0; crate::constraint::MAX_LOCAL_DOF], [0.0; crate::constraint::MAX_LOCAL_DOF]);
        let (mut change, mut r2) = (Change::default(), 0.0f64);
        for (blk, bc) in cols.chunks_exact(l).enumerate() {
            for (k, &col) in bc.iter().enumerate() {
                ul[k] = u[col as usize];
                vl[k] = target.v[col as usize];
            }
            if let Some((w, _)) = form {
                for (o, &col) in wl[..l].iter_mut().zip(bc) {
                    *o = w[col as usize];
                }
            }
            for li in blk * rows..(blk + 1) * rows {
                let i = run.row0 + li;
                let row = &vals[li * l..(li + 1) * l];
                if let Some((_, omega)) = form {
                    let wr = &mut wj[li * l..(li + 1) * l];
                    for ((o, wk), j) in wr.iter_mut().zip(&wl[..l]).zip(row) {
                        *o = wk * j;
                    }
                    let d = self.reg.add(i, dot(row, wr));
                    if !(d > 0.0) {
                        return Err(i);
                    }
                    inv[li] = omega / d;
                    for (o, wk) in c[li * l..(li + 1) * l].iter_mut().zip(wr.iter()) {
                        *o = wk * inv[li];
                    }
                }
                let jv: f64 = if L == 0 {
                    row.iter().zip(&vl[..l]).map(|(a, v)| a * v).sum()
                } else {
                    (0..L).map(|k| row[k] * vl[k]).sum()
                };
                let b_r = target.row(i, jv);
                b[i] = b_r;
                r2 += b_r * b_r;
                self.update_row(i, row, &c[li * l..(li + 1) * l], b_r, inv[li], &mut x[li], &mut ul[..l], &mut change);
            }
            for (o, &col) in ul[..l].iter().zip(bc) {
                u[col as usize] = *o;
            }
        }
        Ok((change, r2))
    }

    /// One Gauss-Seidel pass over the listed blocks of the run (block indices within it, no two
    /// sharing a column: one colour of the constraint graph), in list order; returns the largest
    /// |Δx_r| and |x_r|. The blocks are independent, so consecutive ones overlap in the CPU
    /// instead of waiting on each other's u. x (the run's rows) and u are read and written
    /// through [`Store`]: slices, or [`Shared`] when tasks sweep parts of one colour's list at once.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sweep_listed<const L: usize>(
        &self,
        run: &BlockRun,
        list: &[u32],
        c: &[f64],
        inv: &[f64],
        b: &[f64],
        x: &mut (impl Store + ?Sized),
        u: &mut (impl Store + ?Sized),
    ) -> Change {
        let (vals, cols, l) = self.of::<L>(run);
        let (rows, n) = (run.rows, run.nrows());
        let wj = &c[run.val0..run.val0 + vals.len()];
        let (inv, b) = (&inv[run.row0..run.row0 + n], &b[run.row0..run.row0 + n]);
        let mut ul = [0.0; crate::constraint::MAX_LOCAL_DOF];
        let mut change = Change::default();
        for &blk in list {
            let blk = blk as usize;
            let bc = &cols[blk * l..(blk + 1) * l];
            for (o, &c) in ul[..l].iter_mut().zip(bc) {
                *o = u.load(c as usize);
            }
            for i in blk * rows..(blk + 1) * rows {
                let (row, wr) = (&vals[i * l..(i + 1) * l], &wj[i * l..(i + 1) * l]);
                let mut x_r = x.load(i);
                self.update_row(run.row0 + i, row, wr, b[i], inv[i], &mut x_r, &mut ul[..l], &mut change);
                x.store(i, x_r);
            }
            for (o, &c) in ul[..l].iter().zip(bc) {
                u.store(c as usize, *o);
            }
        }
        change
    }

    /// One Gauss-Seidel pass over the run's rows (the file header's update); returns the largest
    /// |Δx_r| and |x_r|.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sweep<const L: usize>(
        &self,
        run: &BlockRun,
        link: Option<Link>,
        c: &[f64],
        inv: &[f64],
        b: &[f64],
        x: &mut [f64],
        u: &mut [f64],
    ) -> Change {
        let (vals, cols, l) = self.of::<L>(run);
        let (n, h) = (run.nrows(), l / 2);
        let wj = &c[run.val0..run.val0 + vals.len()];
        let (inv, b, x) = (&inv[run.row0..run.row0 + n], &b[run.row0..run.row0 + n], &mut x[run.row0..run.row0 + n]);
        let mut ul = [0.0; crate::constraint::MAX_LOCAL_DOF];
        let mut change = Change::default();
        let mut i = run.row0;
        for (blk, ((bv, bw), (bc, (bi, (bb, bx))))) in vals
            .chunks_exact(run.rows * l)
            .zip(wj.chunks_exact(run.rows * l))
            .zip(cols.chunks_exact(l).zip(inv.chunks_exact(run.rows).zip(b.chunks_exact(run.rows).zip(x.chunks_exact_mut(run.rows)))))
            .enumerate()
        {
            match link {
                // The shared half is still in registers: only the other half is read from u
                // (no store-to-load round trip on the sweep's dependency chain).
                Some(Link { from, to }) if blk > 0 => {
                    let mut shared = [0.0; crate::constraint::MAX_LOCAL_DOF];
                    for k in 0..h {
                        shared[k] = if from == 0 { ul[k] } else { ul[h + k] };
                    }
                    for k in 0..h {
                        if to == 0 {
                            ul[k] = shared[k];
                            ul[h + k] = u[bc[h + k] as usize];
                        } else {
                            ul[h + k] = shared[k];
                            ul[k] = u[bc[k] as usize];
                        }
                    }
                }
                _ => {
                    for (o, &c) in ul[..l].iter_mut().zip(bc) {
                        *o = u[c as usize];
                    }
                }
            }
            for (((row, wr), (inv_r, b_r)), x_r) in bv.chunks_exact(l).zip(bw.chunks_exact(l)).zip(bi.iter().zip(bb)).zip(bx.iter_mut()) {
                self.update_row(i, row, wr, *b_r, *inv_r, x_r, &mut ul[..l], &mut change);
                i += 1;
            }
            for (o, &c) in ul[..l].iter().zip(bc) {
                u[c as usize] = *o;
            }
        }
        change
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Scalar;
    use crate::sparse::BlockJacobian;
    use crate::scene::registry as scenes;

    /// One solve's worth of sweeps over every run, each run's width fixed (`fixed`) or read at run
    /// time, with chains carried in registers (`linked`) or not; returns x and u.
    fn sweeps(jac: &BlockJacobian, w: &[f64], b: &[f64], fixed: bool, linked: bool) -> (Vec<f64>, Vec<f64>) {
        let runs = jac.runs();
        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg: Uniform(0.25) };
        let (mut wj, mut c, mut inv) = (vec![0.0; jac.nnz()], vec![0.0; jac.nnz()], vec![0.0; jac.nrows()]);
        let (mut x, mut u) = (vec![0.5; jac.nrows()], vec![0.0; jac.ncols()]);
        for run in &runs {
            if fixed && run.ldof == 4 {
                k.prepare::<4>(run, w, 1.3, &mut wj, &mut c, &mut inv).unwrap();
                k.spread::<4>(run, &wj, &x, &mut u);
            } else {
                k.prepare::<0>(run, w, 1.3, &mut wj, &mut c, &mut inv).unwrap();
                k.spread::<0>(run, &wj, &x, &mut u);
            }
        }
        for _ in 0..3 {
            for run in &runs {
                let link = if linked { Link::of(run, jac.columns()) } else { None };
                if fixed && run.ldof == 4 {
                    k.sweep::<4>(run, link, &c, &inv, b, &mut x, &mut u);
                } else {
                    k.sweep::<0>(run, link, &c, &inv, b, &mut x, &mut u);
                }
            }
        }
        (x, u)
    }

    #[test]
    fn fixed_width_and_chain_carrying_kernels_give_the_bits_of_the_generic_sweep() {
        let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(20.0))]).unwrap();
        let mut q = scene.q0.clone();
        for (i, qi) in q.iter_mut().enumerate() {
            *qi += 0.01 * ((i * 13 % 7) as f64 - 3.0); // bend it: no two rows alike
        }
        let mut jac = scene.system.jacobian_layout();
        scene.system.fill_jacobian(&q, &mut jac);
        let runs = jac.runs();
        // the pin's 2-row block, then the 19 links as one run of 4-wide blocks sharing a particle
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!((runs[1].ldof, runs[1].blocks), (4, 19));
        assert!(Link::of(&runs[1], jac.columns()).is_some());
        let b: Vec<f64> = (0..jac.nrows()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
        let w = scene.system.inv_mass();
        let generic = sweeps(&jac, w, &b, false, false);
        assert_eq!(sweeps(&jac, w, &b, true, false), generic, "fixed width");
        assert_eq!(sweeps(&jac, w, &b, true, true), generic, "fixed width, chain carried");
        assert_eq!(sweeps(&jac, w, &b, false, true), generic, "chain carried");
    }

    #[test]
    fn a_link_needs_every_consecutive_pair_to_share_a_half() {
        let run = BlockRun { ldof: 4, rows: 1, blocks: 3, row0: 0, val0: 0, col0: 0 };
        // blocks (b, a): (2,3 | 0,1), (4,5 | 2,3), (6,7 | 4,5): the first half moves to the second
        assert_eq!(Link::of(&run, &[2, 3, 0, 1, 4, 5, 2, 3, 6, 7, 4, 5]), Some(Link { from: 0, to: 1 }));
        assert_eq!(Link::of(&run, &[0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7]), Some(Link { from: 1, to: 0 }));
        assert_eq!(Link::of(&run, &[0, 1, 2, 3, 2, 3, 4, 5, 8, 9, 6, 7]), None);
    }
}
