//! The block-sparse constraint Jacobian (Witkin 1997, §4.2) and products with it.
//!
//! Each constraint owns a row range and, for each body it touches, a dense block of
//! `rows × dof(body)` entries; nothing else of J is stored. J·x and Jᵀ·y visit each block once, so
//! their cost is linear in the number of constraint rows, and no matrix is ever assembled for them
//! (this is all the matrix-free conjugate gradient of Witkin §4.4 needs). The normal matrix J W Jᵀ is
//! assembled by [`NormalMatrix`] when a factorization needs it.

mod normal;

pub use normal::{NormalMatrix, NormalTerm};

use crate::constraint::{MAX_BODIES, MAX_LOCAL_DOF};

/// Where one constraint's blocks live.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// First global row.
    row0: usize,
    /// Number of rows.
    rows: usize,
    /// Number of local coordinates (row length of the local block).
    ldof: usize,
    /// Offset of the row-major `rows × ldof` values in `values`.
    val0: usize,
    /// (first global column, dof) of each body, in local order.
    cols: [(usize, usize); MAX_BODIES],
    /// Number of bodies.
    nb: usize,
    /// Offset of this slot's `ldof` global column indices in `colmap`.
    cm0: usize,
}

/// A slot's first row, rows, first value and row length (see `BlockJacobian::heads`).
#[derive(Clone, Copy, Debug)]
struct Head {
    row0: u32,
    rows: u32,
    val0: u32,
    ldof: u32,
}

impl Head {
    /// The slot's first value and number of values.
    #[inline(always)]
    fn values(self) -> (usize, usize) {
        (self.val0 as usize, self.rows as usize * self.ldof as usize)
    }
}

/// y = B x for one slot's row-major block B (`L` local columns at global `cols`); `L` fixed so the
/// short loops unroll (the particle blocks: 2, 4, 6).
#[inline(always)]
fn mul_slot<const L: usize>(cols: [u32; L], vals: &[f64], x: &[f64], y: &mut [f64], row0: usize, f: impl RowMap) {
    let xl: [f64; L] = std::array::from_fn(|k| x[cols[k] as usize]);
    for (i, (yr, row)) in y.iter_mut().zip(vals.chunks_exact(L)).enumerate() {
        let row: &[f64; L] = row.try_into().expect("L entries");
        *yr = f(row0 + i, (0..L).map(|k| row[k] * xl[k]).sum());
    }
}

/// What [`BlockJacobian::mul_then`] makes of each row's product: `f(r, (J x)_r)`.
pub trait RowMap: Fn(usize, f64) -> f64 + Copy {}
impl<F: Fn(usize, f64) -> f64 + Copy> RowMap for F {}

/// x += Bᵀ y for one slot's block (see [`mul_slot`]): rows summed locally, scattered once.
#[inline(always)]
fn mul_t_slot<const L: usize>(
    cols: [u32; L],
    vals: &[f64],
    y: &[f64],
    x: &mut [f64],
    row0: usize,
    g: &mut impl FnMut(usize, f64),
) {
    let mut acc = [0.0; L];
    for (i, (&yr, row)) in y.iter().zip(vals.chunks_exact(L)).enumerate() {
        g(row0 + i, yr);
        let row: &[f64; L] = row.try_into().expect("L entries");
        for k in 0..L {
            acc[k] += row[k] * yr;
        }
    }
    for k in 0..L {
        x[cols[k] as usize] += acc[k];
    }
}

/// One constraint's part of J: its rows and, for each body it touches, the columns of its block.
#[derive(Clone, Copy, Debug)]
pub struct ConstraintBlock<'a> {
    /// First global row.
    pub row0: usize,
    /// Number of rows.
    pub rows: usize,
    /// Length of one local row (sum of the bodies' dof).
    pub ldof: usize,
    /// (first global column, dof) of each body, in local order.
    pub cols: &'a [(usize, usize)],
    /// The global column of each of the `ldof` local columns.
    pub columns: &'a [u32],
    /// Row-major `rows × ldof` values.
    pub values: &'a [f64],
}

impl ConstraintBlock<'_> {
    /// Copies the entries of the global vector `x` at this block's columns into `out`.
    #[inline]
    pub fn gather(&self, x: &[f64], out: &mut [f64; MAX_LOCAL_DOF]) {
        let mut k = 0;
        for &(c0, d) in self.cols {
            copy_run(&x[c0..c0 + d], &mut out[k..k + d]);
            k += d;
        }
    }

    /// Writes the local vector `local` back to this block's columns of the global vector `x`.
    #[inline]
    pub fn scatter(&self, local: &[f64; MAX_LOCAL_DOF], x: &mut [f64]) {
        let mut k = 0;
        for &(c0, d) in self.cols {
            copy_run(&local[k..k + d], &mut x[c0..c0 + d]);
            k += d;
        }
    }
}

/// Copies a body's run of 1–6 values with fixed-size moves: `copy_from_slice` (and a plain loop,
/// which the compiler turns back into one) calls memcpy for each run, which cost a fifth of a
/// sequential-impulse step on the chain.
#[inline(always)]
fn copy_run(src: &[f64], dst: &mut [f64]) {
    match (src, dst) {
        ([a, b], [x, y]) => (*x, *y) = (*a, *b),
        ([a, b, c], [x, y, z]) => (*x, *y, *z) = (*a, *b, *c),
        ([a], [x]) => *x = *a,
        (src, dst) => dst.copy_from_slice(src),
    }
}

/// Consecutive blocks of J with the same width `ldof` and the same number of rows: block b of the
/// run has rows `row0 + b·rows ..`, values `val0 + b·rows·ldof ..` (row-major) and columns
/// `col0 + b·ldof ..` in [`BlockJacobian::values`] and [`BlockJacobian::columns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// Local columns of each block.
    pub ldof: usize,
    /// Rows of each block.
    pub rows: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// First global row.
    pub row0: usize,
    /// Offset of the first value.
    pub val0: usize,
    /// Offset of the first column index.
    pub col0: usize,
}

impl BlockRun {
    /// The run's rows, `rows × blocks` of them.
    pub fn nrows(&self) -> usize {
        self.rows * self.blocks
    }
}

/// The constraint Jacobian J (m × n) stored as one dense block per (constraint, body) pair.
#[derive(Clone, Debug)]
pub struct BlockJacobian {
    slots: Vec<Slot>,
    /// Each slot's first row, rows, first value and row length in 32 bits, apart from the slots:
    /// what a pass over the constraints (evaluating C, filling J) reads per constraint, 16 bytes
    /// where a slot is 96.
    heads: Vec<Head>,
    /// For each slot, the global column of each local column (flattened).
    colmap: Vec<u32>,
    values: Vec<f64>,
    nrows: usize,
    ncols: usize,
    /// Bumped whenever the values are handed out for writing: a solver that prepared per-row
    /// data from J can tell that J is unchanged since.
    generation: u64,
    /// The slots as runs of equal shape ([`BlockJacobian::runs`]), which the products stream over.
    runs: Vec<BlockRun>,
}

impl BlockJacobian {
    /// Lays out the rows of `constraints` on the velocity coordinates of `bodies` (`offsets`:
    /// each body's first velocity coordinate; `ndof` in all): each constraint's `rows()` rows
    /// followed by `extra(c)` more (the geometric-stiffness rows g_k of XPBD's Newton step,
    /// B = [J; Gᵀ]). Rows stay grouped by constraint, so a chain's matrix stays banded. Values
    /// start at zero. The system hub, one layer up, calls this for its constraints.
    pub fn layout(
        constraints: &[Box<dyn crate::constraint::Constraint>],
        bodies: &[crate::model::Body],
        offsets: &[usize],
        ndof: usize,
        extra: impl Fn(&dyn crate::constraint::Constraint) -> usize,
    ) -> Self {
        let mut slots = Vec::with_capacity(constraints.len());
        let mut colmap = Vec::new();
        let (mut val0, mut row0) = (0, 0);
        for c in constraints {
            let mut cols = [(0, 0); MAX_BODIES];
            let cm0 = colmap.len();
            for (k, &b) in c.bodies().iter().enumerate() {
                cols[k] = (offsets[b], bodies[b].kind.dof());
                colmap.extend(
                    (cols[k].0..cols[k].0 + cols[k].1).map(|x| u32::try_from(x).expect("fewer than 2^32 coordinates")),
                );
            }
            let (ldof, rows) = (c.local_dof(), c.rows() + extra(c.as_ref()));
            slots.push(Slot { row0, rows, ldof, val0, cols, nb: c.bodies().len(), cm0 });
            val0 += rows * ldof;
            row0 += rows;
        }
        let u32_of = |x: usize| u32::try_from(x).expect("fewer than 2^32 rows and values");
        let heads = slots
            .iter()
            .map(|s| Head { row0: u32_of(s.row0), rows: u32_of(s.rows), val0: u32_of(s.val0), ldof: u32_of(s.ldof) })
            .collect();
        let mut jac = BlockJacobian {
            slots,
            heads,
            colmap,
            values: vec![0.0; val0],
            nrows: row0,
            ncols: ndof,
            generation: 0,
            runs: vec![],
        };
        jac.runs = jac.slot_runs();
        jac
    }

    /// Number of rows of constraint `ci` in this layout.
    pub fn constraint_rows(&self, ci: usize) -> usize {
        self.heads[ci].rows as usize
    }

    /// First row of constraint `ci`.
    pub fn constraint_row0(&self, ci: usize) -> usize {
        self.heads[ci].row0 as usize
    }

    /// Number of rows m.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns n.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored (structurally nonzero) entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The row-major local block of constraint `ci`, for filling.
    pub fn constraint_values_mut(&mut self, ci: usize) -> &mut [f64] {
        self.generation += 1;
        let (v0, len) = self.heads[ci].values();
        &mut self.values[v0..v0 + len]
    }

    /// How many times values were handed out for writing ([`BlockJacobian::constraint_values_mut`]):
    /// equal counts on the same object mean J is unchanged.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The row-major local block of constraint `ci`.
    pub fn constraint_values(&self, ci: usize) -> &[f64] {
        let (v0, len) = self.heads[ci].values();
        &self.values[v0..v0 + len]
    }

    /// The constraint blocks in row order.
    pub fn blocks(&self) -> impl Iterator<Item = ConstraintBlock<'_>> {
        self.slots.iter().map(|s| ConstraintBlock {
            row0: s.row0,
            rows: s.rows,
            ldof: s.ldof,
            cols: &s.cols[..s.nb],
            columns: &self.colmap[s.cm0..s.cm0 + s.ldof],
            values: &self.values[s.val0..s.val0 + s.rows * s.ldof],
        })
    }

    /// Every stored value, row-major per block, blocks in row order (a [`BlockRun`]'s values start
    /// at its `val0`).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The global column of every local column, per block in row order (a [`BlockRun`]'s start at
    /// its `col0`).
    pub fn columns(&self) -> &[u32] {
        &self.colmap
    }

    /// The blocks grouped into maximal runs of consecutive blocks with the same width and row
    /// count, whose rows, values and columns are then contiguous: kernels that loop over a run
    /// with the width fixed at compile time (the sequential-impulse sweep) visit J as one stream.
    pub fn runs(&self) -> Vec<BlockRun> {
        self.runs.clone()
    }

    /// The runs of [`BlockJacobian::runs`], formed from the slots.
    fn slot_runs(&self) -> Vec<BlockRun> {
        let mut runs: Vec<BlockRun> = Vec::new();
        for s in &self.slots {
            match runs.last_mut() {
                Some(r) if r.ldof == s.ldof && r.rows == s.rows => r.blocks += 1,
                _ => runs.push(BlockRun {
                    ldof: s.ldof,
                    rows: s.rows,
                    blocks: 1,
                    row0: s.row0,
                    val0: s.val0,
                    col0: s.cm0,
                }),
            }
        }
        runs
    }

    /// y = J x (Witkin §4.2: each block multiplies its body's slice of x into its rows of y),
    /// streamed run by run with the block width fixed for the common widths.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        self.mul_then(x, y, |_, s| s);
    }

    /// yᵣ = f(r, (J x)ᵣ) for every row r: [`BlockJacobian::mul`] with a map applied to each row's
    /// product as it is formed (a right-hand side b − J x in the same pass).
    pub fn mul_then(&self, x: &[f64], y: &mut [f64], f: impl RowMap) {
        debug_assert_eq!(x.len(), self.ncols);
        debug_assert_eq!(y.len(), self.nrows);
        for run in &self.runs {
            match run.ldof {
                4 => self.mul_run::<4>(run, x, y, f),
                6 => self.mul_run::<6>(run, x, y, f),
                2 => self.mul_run::<2>(run, x, y, f),
                _ => self.mul_run::<0>(run, x, y, f),
            }
        }
    }

    /// y = f(J x) over one run's blocks (`L` = 0: the width read at run time).
    #[inline(always)]
    fn mul_run<const L: usize>(&self, run: &BlockRun, x: &[f64], y: &mut [f64], f: impl RowMap) {
        let l = run.ldof;
        if run.nrows() == 0 {
            return; // a constraint without rows
        }
        let cols = &self.colmap[run.col0..run.col0 + run.blocks * l];
        let vals = &self.values[run.val0..run.val0 + run.nrows() * l];
        let y = &mut y[run.row0..run.row0 + run.nrows()];
        let blocks = cols.chunks_exact(l).zip(vals.chunks_exact(run.rows * l)).zip(y.chunks_exact_mut(run.rows));
        for (b, ((bc, bv), by)) in blocks.enumerate() {
            let row0 = run.row0 + b * run.rows;
            if L == 0 {
                for (i, (yr, row)) in by.iter_mut().zip(bv.chunks_exact(l)).enumerate() {
                    *yr = f(row0 + i, row.iter().zip(bc).map(|(a, &c)| a * x[c as usize]).sum());
                }
            } else {
                mul_slot::<L>(bc.try_into().expect("L columns"), bv, x, by, row0, f);
            }
        }
    }

    /// x = Jᵀ y (Witkin §4.2: each block's transpose scatters its rows of y into its body's slice),
    /// streamed run by run as [`BlockJacobian::mul`].
    pub fn mul_t(&self, y: &[f64], x: &mut [f64]) {
        x.fill(0.0);
        self.add_mul_t(y, x, |_, _| {});
    }

    /// x += Jᵀ y, calling `g(r, yᵣ)` on every row as it reads yᵣ, in row order (a pass over y
    /// fused into the product). On an x of zeros it is [`BlockJacobian::mul_t`], to the bit: a
    /// caller that keeps its x zero between products (each reader zeroing what it read) saves
    /// `mul_t`'s pass that zeroes it.
    pub fn add_mul_t(&self, y: &[f64], x: &mut [f64], mut g: impl FnMut(usize, f64)) {
        debug_assert_eq!(x.len(), self.ncols);
        debug_assert_eq!(y.len(), self.nrows);
        for run in &self.runs {
            match run.ldof {
                4 => self.mul_t_run::<4>(run, y, x, &mut g),
                6 => self.mul_t_run::<6>(run, y, x, &mut g),
                2 => self.mul_t_run::<2>(run, y, x, &mut g),
                _ => self.mul_t_run::<0>(run, y, x, &mut g),
            }
        }
    }

    /// x += Jᵀ y over one run's blocks (`L` = 0: the width read at run time).
    #[inline(always)]
    fn mul_t_run<const L: usize>(&self, run: &BlockRun, y: &[f64], x: &mut [f64], g: &mut impl FnMut(usize, f64)) {
        let l = run.ldof;
        if run.nrows() == 0 {
            return; // a constraint without rows
        }
        let cols = &self.colmap[run.col0..run.col0 + run.blocks * l];
        let vals = &self.values[run.val0..run.val0 + run.nrows() * l];
        let y = &y[run.row0..run.row0 + run.nrows()];
        let blocks = cols.chunks_exact(l).zip(vals.chunks_exact(run.rows * l)).zip(y.chunks_exact(run.rows));
        for (b, ((bc, bv), by)) in blocks.enumerate() {
            let row0 = run.row0 + b * run.rows;
            if L == 0 {
                for (i, (&yr, row)) in by.iter().zip(bv.chunks_exact(l)).enumerate() {
                    g(row0 + i, yr);
                    for (a, &c) in row.iter().zip(bc) {
                        x[c as usize] += a * yr;
                    }
                }
            } else {
                mul_t_slot::<L>(bc.try_into().expect("L columns"), bv, by, x, row0, g);
            }
        }
    }

    /// x += J_ciᵀ y on constraint `ci`'s block alone, with [`BlockJacobian::mul_t`]'s arithmetic on
    /// that block: a pass that forms J constraint by constraint can scatter Jᵀy as it goes, into an
    /// x zeroed first, and gets `mul_t`'s bits when it visits the constraints in order.
    pub fn mul_t_constraint(&self, ci: usize, y: &[f64], x: &mut [f64]) {
        let s = &self.slots[ci];
        let run = BlockRun { ldof: s.ldof, rows: s.rows, blocks: 1, row0: s.row0, val0: s.val0, col0: s.cm0 };
        let mut g = |_, _| {};
        match run.ldof {
            4 => self.mul_t_run::<4>(&run, y, x, &mut g),
            6 => self.mul_t_run::<6>(&run, y, x, &mut g),
            2 => self.mul_t_run::<2>(&run, y, x, &mut g),
            _ => self.mul_t_run::<0>(&run, y, x, &mut g),
        }
    }

    /// x += Bᵀ y for one block B of `L` ∈ {2, 4, 6} columns `cols`, rows `vals` (row-major) and
    /// their `y`: [`BlockJacobian::mul_t`]'s arithmetic on a block of that width, for a pass that
    /// knows the block's columns itself.
    #[inline(always)]
    pub fn mul_t_block<const L: usize>(cols: [u32; L], vals: &[f64], y: &[f64], x: &mut [f64]) {
        mul_t_slot::<L>(cols, vals, y, x, 0, &mut |_, _| {});
    }

    /// Writes J as a dense column-major m × n matrix into `out` (for tests and tiny systems).
    pub fn to_dense(&self, out: &mut [f64]) {
        out.fill(0.0);
        for s in &self.slots {
            let vals = &self.values[s.val0..s.val0 + s.rows * s.ldof];
            for (r, row) in vals.chunks_exact(s.ldof).enumerate() {
                let mut k = 0;
                for &(c0, d) in &s.cols[..s.nb] {
                    for j in 0..d {
                        out[(s.row0 + r) + (c0 + j) * self.nrows] += row[k + j];
                    }
                    k += d;
                }
            }
        }
    }
}
