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
//!
//! Passes saved, to the bit: a cold start (x = 0) skips forming u and the first residual pass;
//! `solve_same` reuses W J_rᵀ and ω / D_r while J is unchanged ([`BlockJacobian::generation`]);
//! a cold velocity solve forms b = −(J v + β C) and the per-row data in its first sweep's pass
//! (`target.rs`). With `coloring` the sweep goes colour by colour of a greedy colouring of the
//! constraint graph, Box2D v3's order (`coloring.rs`): another Gauss–Seidel order. With
//! `parallel` as well, a colour of at least 8192 blocks (`SPLIT_FROM`) in one run is swept in
//! tasks of 2048 (`PAR_BLOCKS`) on the rayon pool (x and u seen as `sweep::Shared`): its blocks
//! touch disjoint rows and columns, so the iterates are the one-thread sweep's, to the bit,
//! whatever the threads. With `simd` (the default) a colour of at least 128 blocks
//! (`lanes::LANES_FROM`) is swept 8 blocks at a time in AVX-512 lanes where the CPU has AVX-512F,
//! from a lane-by-lane copy of its per-row data (`lanes.rs`): the same iterates, to the bit.

use super::registry::{SolverEntry, SolverKind};
use super::{LinearSolver, Operator, Reg, SolveError, SolveInfo, Stopping, VelocityTarget, norm};
use crate::params::{ParamTable, Params};
use crate::sparse::{BlockJacobian, BlockRun};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use coloring::Coloring;
use lanes::{LANES_FROM, Lanes, Packed, PackedSegment};
use rayon::prelude::*;
use sweep::{Change, Kernels, Link, NoReg, PerRow, RowReg, Shared, Uniform, by_width};

mod coloring;
mod lanes;
mod sweep;
mod target;

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
    /// on J W J^T: sweep colour by colour of a greedy colouring of the constraint graph (blocks sharing no body sweep without waiting on each other; Box2D v3's solver order) instead of in row order, another Gauss-Seidel order with other iterates (the dense loop-closure system sweeps in row order)
    pub coloring: bool,
    /// with coloring: sweep a colour of at least 8192 blocks in tasks of 2048 on the run's thread pool (--threads), the same iterates to the bit as on one thread; the cell's times are then wall time on up to that many threads
    pub parallel: bool,
    /// with coloring: sweep a colour of at least 128 blocks 8 at a time in SIMD lanes where the CPU has AVX-512F (detected at run time; otherwise one at a time), the same iterates to the bit; false: always one at a time
    pub simd: bool,
}

impl Default for GaussSeidelParams {
    fn default() -> Self {
        GaussSeidelParams { stop: Stopping::default(), omega: 1.0, check_every: 1, change_tol: 0.0, coloring: false, parallel: false, simd: true }
    }
}

impl Params for GaussSeidelParams {
    fn on_threads(&self) -> bool {
        self.parallel
    }

    fn check(&self, _given: &[&str]) -> Result<(), String> {
        if self.parallel && !self.coloring {
            return Err("parallel: true needs coloring: true (only blocks of one colour are independent)".into());
        }
        Ok(())
    }
}

/// What a coloured sweep with `simd` runs in on this CPU, for reports: "AVX-512F lanes" or
/// "no AVX-512F: one block at a time".
pub fn simd_lanes() -> &'static str {
    match Lanes::detect() {
        Lanes::Avx512 => "AVX-512F lanes",
        Lanes::Scalar => "no AVX-512F: one block at a time",
    }
}

/// Blocks per task of a parallel colour: a task sweeps them in a few microseconds, long against
/// the pool's hand-over.
const PAR_BLOCKS: usize = 2048;

/// A colour (its blocks in one run) is split into tasks from this many blocks on; a smaller one
/// is swept on the calling thread: with fewer than four tasks to share, the wait for the last
/// one ate the gain (`cargo bench --bench step -- coloured` at 10⁴ links).
const SPLIT_FROM: usize = 4 * PAR_BLOCKS;

/// The registry entry of `gauss_seidel`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "gauss_seidel",
    summary: "Gauss-Seidel/SOR; on J W J^T the sequential-impulse sweep",
    kind: SolverKind::Iterative,
    accepts: &[super::registry::SystemKind::Normal, super::registry::SystemKind::NormalWithStiffness, super::registry::SystemKind::LoopClosure, super::registry::SystemKind::Contact],
    params: ParamTable::of::<GaussSeidelParams>(),
    build: |p| Box::new(GaussSeidel::new(*p.get())),
    // Memory: per row the scaled inverse diagonal, A x and a share of u, plus W Jᵀ and (ω/D) W Jᵀ
    // (each as many values as J: at most MAX_LOCAL_DOF per row); with `coloring` and `simd` the
    // lanes' copy of J, (ω/D) W Jᵀ, the inverse diagonal and the columns (estimated always).
    memory: |f| f.sparse(0, 8 * 5 + 4 * 8 * crate::constraint::MAX_LOCAL_DOF as u64 + 4 * crate::constraint::MAX_LOCAL_DOF as u64),
};

/// Gauss-Seidel / SOR with warm start; sequential impulses on J W Jᵀ.
#[derive(Debug)]
pub struct GaussSeidel {
    stop: Stopping,
    omega: f64,
    check_every: usize,
    change_tol: f64,
    /// With `coloring`: the sweep order by colour (formed with the runs).
    coloring: Option<Coloring>,
    /// Whether a colour's blocks are swept in tasks on the thread pool.
    parallel: bool,
    /// The lanes a colour's sweep uses (`simd` and the CPU's features).
    lanes: Lanes,
    /// With `coloring` and lanes: the colours' blocks laid out for them.
    packed: Option<Packed>,
    /// Whether `packed` holds the per-row data last formed: it is packed at the first sweep after
    /// forming (a solve that stops before sweeping packs nothing).
    packed_fresh: bool,
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
    /// Per run, Σ b_r² of a cold velocity solve's first sweep.
    run_r2: Vec<f64>,
    shape: (usize, usize),
    /// What the per-row data (W Jᵀ, ω / D_r) was last prepared from, if that succeeded: a
    /// [`LinearSolver::solve_same`] on the same J, W and diagonal term reuses it.
    prepared: Option<PreparedFor>,
}

/// The inputs of the per-row data: J (its address and [`BlockJacobian::generation`]), W (its
/// address: the system's inverse masses, fixed for a run) and the diagonal term's bits (uniform
/// terms only; a per-row term is prepared again every solve).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PreparedFor {
    jac: usize,
    generation: u64,
    w: usize,
    reg: u64,
}

impl PreparedFor {
    fn of(jac: &BlockJacobian, w: &[f64], reg: &Reg) -> Option<PreparedFor> {
        let reg = match reg {
            _ if reg.is_zero() => 0,
            Reg::Uniform(r) => r.to_bits(),
            Reg::PerRow(_) => return None,
        };
        Some(PreparedFor { jac: jac.values().as_ptr() as usize, generation: jac.generation(), w: w.as_ptr() as usize, reg })
    }
}

impl GaussSeidel {
    /// Builds from its parameters.
    pub fn new(p: GaussSeidelParams) -> Self {
        GaussSeidel {
            stop: p.stop,
            omega: p.omega,
            check_every: p.check_every.max(1),
            change_tol: p.change_tol,
            coloring: p.coloring.then(Coloring::default),
            parallel: p.parallel,
            lanes: if p.simd { Lanes::detect() } else { Lanes::Scalar },
            packed: None,
            packed_fresh: false,
            inv_diag: vec![],
            u: vec![],
            ax: vec![],
            wj: vec![],
            c: vec![],
            runs: vec![],
            links: vec![],
            run_r2: vec![],
            shape: (0, 0),
            prepared: None,
        }
    }

    /// J's runs and their links, for the layout of `jac`.
    fn set_runs(&mut self, jac: &BlockJacobian) {
        self.runs = jac.runs();
        self.links = self.runs.iter().map(|r| Link::of(r, jac.columns())).collect();
        self.run_r2 = vec![0.0; self.runs.len()];
        self.shape = (jac.nrows(), jac.nnz());
        if let Some(c) = self.coloring.as_mut() {
            *c = Coloring::of(&self.runs, jac.columns(), jac.ncols());
            // the lanes gather with 32-bit signed indices
            let fits = jac.ncols() < 1 << 31 && jac.nrows() < 1 << 31;
            self.packed = (self.lanes != Lanes::Scalar && fits).then(|| Packed::lay_out(self.lanes.width(), &self.runs, c, jac.columns()));
            self.packed_fresh = false;
        }
    }

    /// Whether a sweep runs tasks on the pool: `parallel`, and a colour of at least
    /// [`SPLIT_FROM`] blocks in one run (as laid out for the last J).
    fn splits(&self) -> bool {
        self.parallel && self.coloring.as_ref().is_some_and(|c| c.segments.iter().any(|s| s.independent && s.end - s.start >= SPLIT_FROM))
    }

    fn relative(r2: f64, nb: f64) -> f64 {
        if nb > 0.0 { r2.sqrt() / nb } else { r2.sqrt() }
    }

    /// Whether the sweep just done ends the iteration by the cheap test.
    fn changed_little(&self, change: Change) -> bool {
        self.change_tol > 0.0 && change.dx <= self.change_tol * change.x
    }

    /// The sweeps on J W Jᵀ + diag(reg), with the regularisation's form fixed for the kernels;
    /// `same`: the per-row data prepared by the last solve is still that of this matrix.
    #[allow(clippy::too_many_arguments)]
    fn solve_normal<R: RowReg>(
        &mut self,
        jac: &BlockJacobian,
        w: &[f64],
        reg: R,
        b: &[f64],
        x: &mut [f64],
        same: Option<PreparedFor>,
    ) -> Result<SolveInfo, SolveError> {
        let same = self.fit_shape(jac) && same.is_some() && same == self.prepared;
        let k = Kernels { vals: jac.values(), cols: jac.columns(), reg };
        if !same {
            // W J_rᵀ and ω / D_r of every row; D_r ≤ 0 (or NaN) is a vanishing pivot.
            self.prepared = None;
            for run in &self.runs {
                by_width!(run.ldof, k.prepare(run, w, self.omega, &mut self.wj, &mut self.c, &mut self.inv_diag))
                    .map_err(|pivot| SolveError::Singular { solver: "gauss_seidel", pivot, dim: jac.nrows() })?;
            }
            self.packed_fresh = false;
        }
        // A cold start (x = 0, the stepper's stages) on finite rows (every D_r finite, so J is):
        // u = 0 and the residual is ‖b‖ — the same bits as the passes over J below, without them.
        let cold = x.iter().all(|&xi| xi == 0.0) && self.inv_diag.iter().all(|&d| d > 0.0);
        // u = W Jᵀ x = Σ_r (W J_rᵀ) x_r
        self.u.fill(0.0);
        if !cold {
            for run in &self.runs {
                by_width!(run.ldof, k.spread(run, &self.wj, x, &mut self.u));
            }
        }
        let residual = if cold {
            // residual2 with J_r u = 0 and x_r = 0: Σ b_r², summed per run in the same order
            let r2: f64 = self.runs.iter().map(|run| b[run.row0..run.row0 + run.nrows()].iter().fold(0.0, |s, bi| s + bi * bi)).sum();
            Self::relative(r2, norm(b))
        } else {
            self.residual_of(&k, b, x)
        };
        self.iterate(&k, b, x, 0, residual, None)
    }

    /// Whether the workspaces fit `jac`'s layout; if not, makes them fit (a new run list,
    /// allocating only when the shape changes) and returns false: nothing prepared still holds.
    fn fit_shape(&mut self, jac: &BlockJacobian) -> bool {
        if self.shape == (jac.nrows(), jac.nnz()) {
            return true;
        }
        self.set_runs(jac);
        self.wj.resize(jac.nnz(), 0.0);
        self.c.resize(jac.nnz(), 0.0);
        self.inv_diag.resize(jac.nrows(), 0.0);
        self.u.resize(jac.ncols(), 0.0);
        false
    }

    /// The exact relative residual ‖b − A x‖ / ‖b‖ with u = W Jᵀ x.
    fn residual_of<R: RowReg>(&self, k: &Kernels<R>, b: &[f64], x: &[f64]) -> f64 {
        let r2: f64 = self.runs.iter().map(|run| by_width!(run.ldof, k.residual2(run, &self.u, x, b))).sum();
        Self::relative(r2, norm(b))
    }

    /// Sweeps on from `sweeps` done — the last of them, when the caller did it, with `done` its
    /// change — and `residual` the last one computed, until the stopping rule ends them.
    fn iterate<R: RowReg>(
        &mut self,
        k: &Kernels<R>,
        b: &[f64],
        x: &mut [f64],
        mut sweeps: usize,
        mut residual: f64,
        done: Option<Change>,
    ) -> Result<SolveInfo, SolveError> {
        let mut change = done;
        loop {
            if let Some(change) = change {
                let last = sweeps == self.stop.max_iter || self.changed_little(change);
                if last || sweeps.is_multiple_of(self.check_every) {
                    residual = self.residual_of(k, b, x);
                }
                if last {
                    break;
                }
            }
            if !(residual > self.stop.tol && sweeps < self.stop.max_iter && residual.is_finite()) {
                break;
            }
            crate::linsolve::SolveError::check_deadline("gauss_seidel", sweeps)?;
            change = Some(self.sweep(k, b, x));
            sweeps += 1;
        }
        self.stop.finish("gauss_seidel", sweeps, residual)
    }

    /// One sweep over every row, in row order or colour by colour.
    fn sweep<R: RowReg>(&mut self, k: &Kernels<R>, b: &[f64], x: &mut [f64]) -> Change {
        let mut change = Change::default();
        if let (Some(p), Some(order)) = (self.packed.as_mut(), &self.coloring)
            && !self.packed_fresh
        {
            p.pack(&self.runs, order, k.vals, &self.c, &self.inv_diag);
            self.packed_fresh = true;
        }
        if let Some(order) = &self.coloring {
            for (si, seg) in order.segments.iter().enumerate() {
                let (run, list) = (&self.runs[seg.run], &order.blocks[seg.start..seg.end]);
                // lanes and tasks only where the blocks are independent (not the overflow group)
                let lanes = match &self.packed {
                    Some(p) if seg.independent && list.len() >= LANES_FROM => (self.lanes, Some(p.segment(si))),
                    _ => (Lanes::Scalar, None),
                };
                let c = if self.parallel && seg.independent && list.len() >= SPLIT_FROM {
                    Self::sweep_split(k, lanes, run, list, (&self.c, &self.inv_diag), b, x, &mut self.u)
                } else {
                    let x = &mut x[run.row0..run.row0 + run.nrows()];
                    by_width!(run.ldof, k.sweep_colour(lanes, run, list, &self.c, &self.inv_diag, b, x, self.u.as_mut_slice()))
                };
                change = change.max(c);
            }
        } else {
            for (run, &link) in self.runs.iter().zip(&self.links) {
                let c = by_width!(run.ldof, k.sweep(run, link, &self.c, &self.inv_diag, b, x, &mut self.u));
                change = change.max(c);
            }
        }
        change
    }

    /// One colour's blocks `list` of `run` swept in tasks of [`PAR_BLOCKS`] on the thread pool:
    /// the blocks touch disjoint rows and columns, so the tasks give the one-thread sweep's values
    /// whatever the threads ([`Shared`]), and the largest change is the same in any order.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn sweep_split<R: RowReg>(
        k: &Kernels<R>,
        (lanes, packed): (Lanes, Option<PackedSegment>),
        run: &BlockRun,
        list: &[u32],
        (c, inv): (&[f64], &[f64]),
        b: &[f64],
        x: &mut [f64],
        u: &mut [f64],
    ) -> Change {
        let (xs, us) = (Shared::of(&mut x[run.row0..run.row0 + run.nrows()]), Shared::of(u));
        // PAR_BLOCKS is a whole number of lane groups: part p's groups start at group p PAR_BLOCKS / W
        let w = lanes.width();
        debug_assert!(PAR_BLOCKS.is_multiple_of(w));
        list.par_chunks(PAR_BLOCKS)
            .enumerate()
            .map(|(p, part)| {
                let (mut xs, mut us) = (xs, us);
                let lanes = (lanes, packed.map(|s| s.skip_groups(p * PAR_BLOCKS / w, run, w)));
                by_width!(run.ldof, k.sweep_colour(lanes, run, part, c, inv, b, &mut xs, &mut us))
            })
            .reduce(Change::default, Change::max)
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
            crate::linsolve::SolveError::check_deadline("gauss_seidel", sweeps)?;
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
            if last || sweeps.is_multiple_of(self.check_every) {
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
        self.prepared = None;
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
        self.solve_either(op, b, x, false)
    }

    /// Skips forming W Jᵀ and ω / D_r again when J, W and a uniform diagonal term are those they
    /// were formed from (the same bits as forming them again); otherwise as [`LinearSolver::solve`].
    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        self.solve_either(op, b, x, true)
    }

    /// From a cold start (x = 0) in row order the first sweep forms b, and the per-row data of a
    /// fresh matrix, in its own pass over J (`gauss_seidel/target.rs`): the same bits as forming
    /// them first. Otherwise b first, then the solve.
    fn solve_velocity(
        &mut self,
        op: &Operator,
        target: &VelocityTarget,
        b: &mut [f64],
        x: &mut [f64],
        same: bool,
    ) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, reg, .. } = op else {
            return self.solve_either(op, b, x, same);
        };
        if self.coloring.is_some() || self.stop.max_iter == 0 || x.iter().any(|&xi| xi != 0.0) {
            target.form(jac, b);
            return self.solve_either(op, b, x, same);
        }
        let key = PreparedFor::of(jac, w, reg);
        let reuse = if same { key } else { None };
        let info = match reg {
            _ if reg.is_zero() => self.solve_cold_target(jac, w, NoReg, target, b, x, reuse, key),
            Reg::Uniform(r) => self.solve_cold_target(jac, w, Uniform(*r), target, b, x, reuse, key),
            Reg::PerRow(r) => self.solve_cold_target(jac, w, PerRow(r), target, b, x, reuse, key),
        };
        if !matches!(info, Err(SolveError::Singular { .. })) {
            self.prepared = key;
        }
        info
    }
}

impl GaussSeidel {
    /// [`LinearSolver::solve`], or with `same` [`LinearSolver::solve_same`].
    fn solve_either(&mut self, op: &Operator, b: &[f64], x: &mut [f64], same: bool) -> Result<SolveInfo, SolveError> {
        match op {
            Operator::Normal { .. } if self.splits() && rayon::current_thread_index().is_none() => {
                // called from outside the thread pool with colours to split: the whole solve
                // moves onto a pool thread, one hand-over, rather than the caller waiting on the
                // pool once per colour
                rayon::scope(|_| self.solve_either_on_pool(op, b, x, same))
            }
            _ => self.solve_either_on_pool(op, b, x, same),
        }
    }

    /// [`GaussSeidel::solve_either`] on the current thread.
    fn solve_either_on_pool(&mut self, op: &Operator, b: &[f64], x: &mut [f64], same: bool) -> Result<SolveInfo, SolveError> {
        match op {
            Operator::Normal { jac, w, reg, .. } => {
                let key = PreparedFor::of(jac, w, reg);
                let reuse = if same { key } else { None };
                let info = match reg {
                    _ if reg.is_zero() => self.solve_normal(jac, w, NoReg, b, x, reuse),
                    Reg::Uniform(r) => self.solve_normal(jac, w, Uniform(*r), b, x, reuse),
                    Reg::PerRow(r) => self.solve_normal(jac, w, PerRow(r), b, x, reuse),
                };
                // prepared without error (a singular row returns before this): remember from what
                if !matches!(info, Err(SolveError::Singular { .. })) {
                    self.prepared = key;
                }
                info
            }
            Operator::Dense { n, a } => {
                self.prepared = None;
                op.diagonal(&mut self.inv_diag);
                if let Some(i) = self.inv_diag.iter().position(|d| !(*d > 0.0)) {
                    return Err(SolveError::Singular { solver: "gauss_seidel", pivot: i, dim: op.dim() });
                }
                self.solve_dense(op, *n, a, b, x)
            }
        }
    }
}
