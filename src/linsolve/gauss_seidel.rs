//! Gauss-Seidel (successive over-relaxation with ω = 1 by default) — for J W Jᵀ, the
//! sequential-impulse method (Catto 2005; seeds 001 and 004).
//!
//! For A = J W Jᵀ + diag(reg) the matrix is never assembled. Once per solve each row gets
//! W J_rᵀ and its scaled inverse diagonal ω / D_r (D_r = J_r W J_rᵀ + reg_r, Box2D's effective
//! mass times ω); the solver keeps u = W Jᵀ x (for `impulse` the velocity change the impulses x
//! cause) and sweeps the rows in order:
//!   res_r = b_r − J_r u − reg_r x_r,   Δx_r = (ω / D_r) res_r,   x_r += Δx_r,   u += W J_rᵀ Δx_r
//! which is Gauss-Seidel (SOR) on A x = b, since (A x)_r = J_r u + reg_r x_r (Saad 2003, §4.1).
//! Each row touches only its own block, so a sweep costs O(rows).
//!
//! Data laid out for the sweep: J's blocks are visited as runs of equal width
//! ([`crate::sparse::BlockRun`]), whose values, W Jᵀ, columns and rows are contiguous streams, with
//! the width fixed at compile time for the common blocks (2, 3, 4, 6 and 12 local coordinates: a
//! particle or planar body and a pair of them, a pair of rigid bodies in space). A block's u is
//! gathered once, updated in registers row by row, and scattered once; when every block of a run
//! shares half its columns with the block before (a chain's links share a body), that half is
//! carried over in registers rather than read back from memory, off the sweep's dependency chain.
//! Dot products are summed in two interleaved lanes (even and odd terms), the same order for every
//! width; u's update is (ω / D_r) W J_rᵀ res_r, formed once per solve as one vector per row.
//!
//! Stopping: the exact relative residual ‖b − A x‖ / ‖b‖ ≤ `tol`, checked before the first sweep,
//! after every `check_every`-th sweep and after the last one the cap allows (a full pass over J);
//! and, when `change_tol` > 0, the cheap test of every sweep: the largest |Δx_r| of the sweep at
//! most `change_tol` times the largest |x_r| (a game engine's stopping rule, which costs a compare
//! per row). Whatever stopped it, the residual reported is the exact one after the last sweep.
//! For a dense A (the loop-closure system of `lagrangian`) it is the textbook row sweep.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, Reg, SolveError, SolveInfo, Stopping, norm};
use crate::params::{ParamTable, Params};
use crate::sparse::{BlockJacobian, BlockRun};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `gauss_seidel`: the shared stopping rule, the relaxation factor ω, how often
/// the exact residual is checked and the cheap per-sweep stopping test.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default)]
pub struct GaussSeidelParams {
    /// Stopping rule.
    #[serde(flatten)]
    pub stop: Stopping,
    /// relaxation factor; 1 is plain Gauss-Seidel (SOR converges on SPD matrices exactly for 0 < omega < 2)
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0, "exclusiveMaximum" = 2))]
    pub omega: f64,
    /// check the exact residual after every k-th sweep and after the last one (1: every sweep; at least max_iter: once, at the end, as a game engine's fixed sweeps)
    #[schemars(range(min = 1, max = 100_000_000))]
    pub check_every: usize,
    /// also stop after a sweep whose largest multiplier change is at most change_tol times the largest multiplier (0: off); free to test every sweep, the reported residual is still the exact one
    #[schemars(range(min = 0, max = 1), extend("unit" = "1"))]
    pub change_tol: f64,
}

impl Default for GaussSeidelParams {
    fn default() -> Self {
        GaussSeidelParams { stop: Stopping::default(), omega: 1.0, check_every: 1, change_tol: 0.0 }
    }
}

impl Params for GaussSeidelParams {}

/// The registry entry of `gauss_seidel`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "gauss_seidel",
    summary: "Gauss-Seidel/SOR; on J W J^T the sequential-impulse sweep",
    kind: SolverKind::Iterative,
    params: ParamTable::of::<GaussSeidelParams>(),
    build: |p| Box::new(GaussSeidel::new(*p.get())),
    // Memory: per row the scaled inverse diagonal, A x and a share of u, plus W Jᵀ and (ω/D) W Jᵀ
    // (each as many values as J: at most MAX_LOCAL_DOF per row).
    memory: |f| f.sparse(0, 8 * 4 + 2 * 8 * crate::constraint::MAX_LOCAL_DOF as u64),
};

/// Gauss-Seidel / SOR with warm start; sequential impulses on J W Jᵀ.
#[derive(Debug)]
pub struct GaussSeidel {
    stop: Stopping,
    omega: f64,
    check_every: usize,
    change_tol: f64,
    /// ω / D_r per row (for a dense A: the diagonal itself).
    inv_diag: Vec<f64>,
    u: Vec<f64>,
    ax: Vec<f64>,
    /// W J_rᵀ of every row, in J's block order (formed once per solve).
    wj: Vec<f64>,
    /// (ω / D_r) W J_rᵀ of every row: u's change per unit residual (used every sweep).
    c: Vec<f64>,
    /// J's blocks as runs of equal width, and the shape they were made for (rows, values).
    runs: Vec<BlockRun>,
    /// Per run, how its consecutive blocks share columns (a chain), if they all do.
    links: Vec<Option<Link>>,
    shape: (usize, usize),
}

impl GaussSeidel {
    /// Builds from its parameters.
    pub fn new(p: GaussSeidelParams) -> Self {
        GaussSeidel {
            stop: p.stop,
            omega: p.omega,
            check_every: p.check_every.max(1),
            change_tol: p.change_tol,
            inv_diag: vec![],
            u: vec![],
            ax: vec![],
            wj: vec![],
            c: vec![],
            runs: vec![],
            links: vec![],
            shape: (0, 0),
        }
    }

    /// J's runs and their links, for the layout of `jac`.
    fn set_runs(&mut self, jac: &BlockJacobian) {
        self.runs = jac.runs();
        self.links = self.runs.iter().map(|r| Link::of(r, jac.columns())).collect();
        self.shape = (jac.nrows(), jac.nnz());
    }

    fn relative(r2: f64, nb: f64) -> f64 {
        if nb > 0.0 { r2.sqrt() / nb } else { r2.sqrt() }
    }

    /// Whether the sweep just done ends the iteration by the cheap test.
    fn changed_little(&self, change: Change) -> bool {
        self.change_tol > 0.0 && change.dx <= self.change_tol * change.x
    }

    /// The sweeps on J W Jᵀ + diag(reg), with the regularisation's form fixed for the kernels.
    fn solve_normal<R: RowReg>(
        &mut self,
        jac: &BlockJacobian,
        w: &[f64],
        reg: R,
        b: &[f64],
        x: &mut [f64],
    ) -> Result<SolveInfo, SolveError> {
        if self.shape != (jac.nrows(), jac.nnz()) {
            // a layout prepare() did not see: a new run list (allocates only when the shape changes)
            self.set_runs(jac);
            self.wj.resize(jac.nnz(), 0.0);
            self.c.resize(jac.nnz(), 0.0);
            self.inv_diag.resize(jac.nrows(), 0.0);
            self.u.resize(jac.ncols(), 0.0);
        }
        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg };
        // W J_rᵀ and ω / D_r of every row; D_r ≤ 0 (or NaN) is a vanishing pivot.
        for run in &self.runs {
            by_width!(run.ldof, k.prepare(run, w, self.omega, &mut self.wj, &mut self.c, &mut self.inv_diag))
                .map_err(|pivot| SolveError::Singular { solver: "gauss_seidel", pivot, dim: jac.nrows() })?;
        }
        // u = W Jᵀ x = Σ_r (W J_rᵀ) x_r
        self.u.fill(0.0);
        for run in &self.runs {
            by_width!(run.ldof, k.spread(run, &self.wj, x, &mut self.u));
        }
        let residual_of = |u: &[f64], x: &[f64]| {
            let r2: f64 = self.runs.iter().map(|run| by_width!(run.ldof, k.residual2(run, u, x, b))).sum();
            Self::relative(r2, norm(b))
        };
        let mut residual = residual_of(&self.u, x);
        let mut sweeps = 0;
        while residual > self.stop.tol && sweeps < self.stop.max_iter && residual.is_finite() {
            let mut change = Change::default();
            for (run, &link) in self.runs.iter().zip(&self.links) {
                let c = by_width!(run.ldof, k.sweep(run, link, &self.c, &self.inv_diag, b, x, &mut self.u));
                change = change.max(c);
            }
            sweeps += 1;
            let last = sweeps == self.stop.max_iter || self.changed_little(change);
            if last || sweeps % self.check_every == 0 {
                residual = residual_of(&self.u, x);
            }
            if last {
                break;
            }
        }
        self.stop.finish("gauss_seidel", sweeps, residual)
    }

    /// The row sweep on a dense symmetric A (column-major).
    fn solve_dense(&mut self, op: &Operator, n: usize, a: &[f64], b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let nb = norm(b);
        let residual_of = |x: &[f64], ax: &mut [f64]| {
            op.apply(x, ax, &mut []);
            Self::relative(b.iter().zip(ax.iter()).map(|(bi, ai)| (bi - ai) * (bi - ai)).sum(), nb)
        };
        let mut residual = residual_of(x, &mut self.ax);
        let mut sweeps = 0;
        while residual > self.stop.tol && sweeps < self.stop.max_iter && residual.is_finite() {
            let mut change = Change::default();
            for i in 0..n {
                // A is symmetric: row i = column i, contiguous in column-major storage.
                let col = &a[i * n..(i + 1) * n];
                let ax_i: f64 = col.iter().zip(x.iter()).map(|(aij, xj)| aij * xj).sum();
                let dx = self.omega * (b[i] - ax_i) / self.inv_diag[i];
                x[i] += dx;
                change = change.max(Change { dx: dx.abs(), x: x[i].abs() });
            }
            sweeps += 1;
            let last = sweeps == self.stop.max_iter || self.changed_little(change);
            if last || sweeps % self.check_every == 0 {
                residual = residual_of(x, &mut self.ax);
            }
            if last {
                break;
            }
        }
        self.stop.finish("gauss_seidel", sweeps, residual)
    }
}

impl LinearSolver for GaussSeidel {
    fn name(&self) -> &'static str {
        "gauss_seidel"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        self.inv_diag = vec![0.0; op.dim()];
        self.ax = vec![0.0; op.dim()];
        self.u = vec![0.0; op.scratch_len()];
        if let Operator::Normal { jac, .. } = op {
            self.wj = vec![0.0; jac.nnz()];
            self.c = vec![0.0; jac.nnz()];
            self.set_runs(jac);
        }
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        match op {
            Operator::Normal { jac, w, reg, .. } => match reg {
                _ if reg.is_zero() => self.solve_normal(jac, w, NoReg, b, x),
                Reg::Uniform(r) => self.solve_normal(jac, w, Uniform(*r), b, x),
                Reg::PerRow(r) => self.solve_normal(jac, w, PerRow(r), b, x),
            },
            Operator::Dense { n, a } => {
                op.diagonal(&mut self.inv_diag);
                if let Some(i) = self.inv_diag.iter().position(|d| !(*d > 0.0)) {
                    return Err(SolveError::Singular { solver: "gauss_seidel", pivot: i, dim: op.dim() });
                }
                self.solve_dense(op, *n, a, b, x)
            }
        }
    }
}

/// How the blocks of a run form a chain: the columns of half `to` of every block (but the first)
/// are those of half `from` of the block before it (a chain's links share a body), so the sweep
/// carries those values over in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Link {
    from: usize,
    to: usize,
}

impl Link {
    /// The link every consecutive pair of the run's blocks has, if any (runs of one block, and
    /// odd widths, have none).
    fn of(run: &BlockRun, columns: &[u32]) -> Option<Link> {
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
struct Change {
    dx: f64,
    x: f64,
}

impl Change {
    fn max(self, o: Change) -> Change {
        Change { dx: self.dx.max(o.dx), x: self.x.max(o.x) }
    }
}

/// The diagonal term reg_r of a row, in the form the kernels are compiled for: none (so no
/// `− 0 · x_r` is computed), one value for all rows, or one per row.
trait RowReg: Copy {
    /// a − reg_i x_i.
    fn sub(self, i: usize, a: f64, xi: f64) -> f64;
    /// a + reg_i.
    fn add(self, i: usize, a: f64) -> f64;
}

#[derive(Clone, Copy)]
struct NoReg;
#[derive(Clone, Copy)]
struct Uniform(f64);
#[derive(Clone, Copy)]
struct PerRow<'a>(&'a [f64]);

impl RowReg for NoReg {
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
use by_width;

/// Σ_k a_k b_k summed in two lanes (even and odd k), then added: the same order for every width.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
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
struct Kernels<'a, R> {
    vals: &'a [f64],
    cols: &'a [u32],
    reg: R,
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
    fn prepare<const L: usize>(
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
    fn spread<const L: usize>(&self, run: &BlockRun, wj: &[f64], x: &[f64], u: &mut [f64]) {
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
    fn residual2<const L: usize>(&self, run: &BlockRun, u: &[f64], x: &[f64], b: &[f64]) -> f64 {
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

    /// One Gauss-Seidel pass over the run's rows (the file header's update); returns the largest
    /// |Δx_r| and |x_r|.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sweep<const L: usize>(
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
        let (mut dmax, mut xmax) = (0.0f64, 0.0f64);
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
                let res = self.reg.sub(i, b_r - dot(row, &ul[..l]), *x_r);
                let dx = res * inv_r;
                *x_r += dx;
                for (uk, ck) in ul[..l].iter_mut().zip(wr) {
                    *uk += ck * res;
                }
                // maxsd, not f64::max: a NaN Δx leaves the maximum as it is either way, and the
                // residual check that follows reports it
                let (adx, ax) = (dx.abs(), x_r.abs());
                dmax = if adx > dmax { adx } else { dmax };
                xmax = if ax > xmax { ax } else { xmax };
                i += 1;
            }
            for (o, &c) in ul[..l].iter().zip(bc) {
                u[c as usize] = *o;
            }
        }
        Change { dx: dmax, x: xmax }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Scalar;
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
