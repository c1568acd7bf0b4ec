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

use super::registry::{Footprint, SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo};
use crate::params::{NoParams, ParamTable};
use crate::sparse::NormalMatrix;

/// Envelope LDLᵀ with the layout computed once per run.
#[derive(Default)]
pub struct EnvelopeLdlt {
    /// The dense path, for a dense operator (`lagrangian`'s loop closures).
    dense: super::DenseFallback,
    /// perm[new] = old row index.
    perm: Vec<usize>,
    /// First column of the envelope of each (permuted) row.
    first: Vec<usize>,
    /// Start of each row's strictly-lower envelope in `l`.
    row_start: Vec<usize>,
    /// Envelope values: A's lower triangle, then L.
    l: Vec<f64>,
    /// Diagonal: A's, then D.
    d: Vec<f64>,
    /// D⁻¹.
    d_inv: Vec<f64>,
    /// (assembled entry, index into `l`) of each off-diagonal entry of A.
    off_diagonal: Vec<(usize, usize)>,
    /// (assembled entry, permuted row) of each diagonal entry of A.
    diagonal: Vec<(usize, usize)>,
    /// Positions of `l` that A leaves empty (fill inside the envelope), zeroed before each factorization.
    fill: Vec<usize>,
    /// Assembled upper-triangle values of A (for the residual).
    a_values: Vec<f64>,
    /// Permuted right-hand side / solution.
    y: Vec<f64>,
    /// A x, for the residual.
    ax: Vec<f64>,
}

const NOT_SPARSE: &str = "the system matrix is dense (the loop-closure system G M^-1 G^T of `lagrangian`); use dense_lu, dense_cholesky, cg, gauss_seidel or jacobi";

/// Relative size below which a pivot Dᵢ / aᵢᵢ counts as zero (redundant constraints).
const PIVOT_TOL: f64 = 1e-13;

/// Symmetric adjacency lists of the pattern (without the diagonal).
fn adjacency(pattern: &NormalMatrix) -> Vec<Vec<usize>> {
    let (col_ptr, row_idx) = pattern.csc();
    let n = pattern.dim();
    let mut adj = vec![Vec::new(); n];
    for c in 0..n {
        for &r in &row_idx[col_ptr[c]..col_ptr[c + 1]] {
            if r != c {
                adj[r].push(c);
                adj[c].push(r);
            }
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// Breadth-first levels from `start` within the unvisited nodes: (order visited, last level's start).
fn bfs(adj: &[Vec<usize>], start: usize, done: &[bool], mark: &mut [bool]) -> (Vec<usize>, usize) {
    let mut order = vec![start];
    mark[start] = true;
    let (mut level_start, mut i) = (0, 0);
    while i < order.len() {
        level_start = i;
        let end = order.len();
        for k in i..end {
            for &nb in &adj[order[k]] {
                if !done[nb] && !mark[nb] {
                    mark[nb] = true;
                    order.push(nb);
                }
            }
        }
        i = end;
    }
    for &v in &order {
        mark[v] = false;
    }
    (order, level_start)
}

/// Reverse Cuthill–McKee (George & Liu §4.3.1) with a pseudo-peripheral start in each component
/// (one refinement: restart from a least-degree node of the farthest level). Deterministic.
fn reverse_cuthill_mckee(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut done = vec![false; n];
    let mut mark = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let least_degree = |nodes: &[usize]| *nodes.iter().min_by_key(|&&v| (adj[v].len(), v)).expect("non-empty level");
    for seed in 0..n {
        if done[seed] {
            continue;
        }
        let (component, _) = bfs(adj, seed, &done, &mut mark);
        let (levels, last) = bfs(adj, least_degree(&component), &done, &mut mark);
        let start = least_degree(&levels[last..]);
        let c0 = order.len();
        order.push(start);
        done[start] = true;
        let mut i = c0;
        while i < order.len() {
            let mut next: Vec<usize> = adj[order[i]].iter().copied().filter(|&v| !done[v]).collect();
            next.sort_unstable_by_key(|&v| (adj[v].len(), v));
            for v in next {
                done[v] = true;
                order.push(v);
            }
            i += 1;
        }
    }
    order.reverse();
    order
}

/// First envelope column of each row under `perm` (perm[new] = old), given `inv` = perm⁻¹.
fn envelope(adj: &[Vec<usize>], perm: &[usize], inv: &[usize]) -> Vec<usize> {
    perm.iter()
        .enumerate()
        .map(|(i, &old)| adj[old].iter().map(|&nb| inv[nb]).filter(|&j| j < i).fold(i, usize::min))
        .collect()
}

fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (new, &old) in perm.iter().enumerate() {
        inv[old] = new;
    }
    inv
}

/// The ordering with the smaller envelope (natural or RCM): perm\[new\] = old, the first
/// envelope column of each permuted row, and the envelope size (strictly-lower entries).
fn ordering(pattern: &NormalMatrix) -> (Vec<usize>, Vec<usize>, usize) {
    let n = pattern.dim();
    let adj = adjacency(pattern);
    let natural: Vec<usize> = (0..n).collect();
    let rcm = reverse_cuthill_mckee(&adj);
    let size = |perm: &[usize]| -> (usize, Vec<usize>) {
        let first = envelope(&adj, perm, &inverse(perm));
        (first.iter().enumerate().map(|(i, f)| i - f).sum(), first)
    };
    let ((nat_size, nat_first), (rcm_size, rcm_first)) = (size(&natural), size(&rcm));
    if nat_size <= rcm_size { (natural, nat_first, nat_size) } else { (rcm, rcm_first, rcm_size) }
}

/// Bytes [`EnvelopeLdlt::prepare`] keeps: the envelope (values, coverage, fill list), the assembly
/// maps and A's values per stored entry, eleven vectors per row.
fn memory(f: &Footprint) -> u64 {
    match f {
        Footprint::Normal(pattern) => (ordering(pattern).2 as u64) * 17 + f.sparse(24, 11 * 8),
        Footprint::Dense(_) => (super::dense_cholesky::ENTRY.memory)(f), // the dense path
    }
}

impl EnvelopeLdlt {
    /// Number of stored strictly-lower entries of L (the envelope size) after [`LinearSolver::prepare`].
    pub fn envelope_size(&self) -> usize {
        self.l.len()
    }

    /// Factors the assembled A (in `a_values`) into L D Lᵀ (and D⁻¹, so that no division is left in
    /// the row loops but one per pivot).
    fn factor(&mut self) -> Result<(), SolveError> {
        for &p in &self.fill {
            self.l[p] = 0.0;
        }
        for &(src, dst) in &self.off_diagonal {
            self.l[dst] = self.a_values[src];
        }
        for &(src, i) in &self.diagonal {
            self.d[i] = self.a_values[src];
        }
        // Entry (i, k) of the envelope lives at l[base[i] + k], base[i] = row_start[i] − fᵢ (wrapping:
        // only k ≥ fᵢ is ever used). Plain index loops: the rows are a few entries long, too short
        // for iterator set-up to pay off.
        let (first, row_start, d, d_inv, l) = (&self.first, &self.row_start, &mut self.d, &mut self.d_inv, &mut self.l);
        for i in 0..d.len() {
            let fi = first[i];
            let bi = row_start[i].wrapping_sub(fi);
            // wᵢⱼ = aᵢⱼ − Σ wᵢₖ Lⱼₖ over the envelopes' overlap k ∈ [max(fᵢ, fⱼ), j)
            for j in fi..i {
                let fj = first[j];
                let bj = row_start[j].wrapping_sub(fj);
                let mut s = 0.0;
                for k in fi.max(fj)..j {
                    s += l[bi.wrapping_add(k)] * l[bj.wrapping_add(k)];
                }
                l[bi.wrapping_add(j)] -= s;
            }
            // Lᵢⱼ = wᵢⱼ / Dⱼ,  Dᵢ = aᵢᵢ − Σ wᵢⱼ Lᵢⱼ
            let aii = d[i];
            let mut dii = aii;
            let row_i = &mut l[bi.wrapping_add(fi)..bi.wrapping_add(i)];
            for (x, dj_inv) in row_i.iter_mut().zip(&d_inv[fi..i]) {
                let w = *x;
                *x = w * dj_inv;
                dii -= w * *x;
            }
            if !(dii > PIVOT_TOL * aii.abs()) {
                return Err(SolveError::NotPositiveDefinite { solver: "envelope_ldlt", pivot: self.perm[i] });
            }
            d[i] = dii;
            d_inv[i] = 1.0 / dii;
        }
        Ok(())
    }
}

impl LinearSolver for EnvelopeLdlt {
    fn name(&self) -> &'static str {
        "envelope_ldlt"
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        if self.dense.prepare("envelope_ldlt", op)? {
            return Ok(());
        }
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
        let (mut off_diagonal, mut diagonal) = (Vec::with_capacity(pattern.nnz()), Vec::with_capacity(n));
        let mut covered = vec![false; len];
        for c in 0..n {
            for (p, &r) in row_idx[col_ptr[c]..col_ptr[c + 1]].iter().enumerate() {
                let src = col_ptr[c] + p;
                let (a, b) = (inv[r], inv[c]);
                let (i, j) = (a.max(b), a.min(b));
                if i == j {
                    diagonal.push((src, i));
                } else {
                    let dst = row_start[i] + (j - first[i]);
                    off_diagonal.push((src, dst));
                    covered[dst] = true;
                }
            }
        }
        off_diagonal.sort_unstable_by_key(|&(_, dst)| dst);
        let fill = covered.iter().enumerate().filter(|(_, c)| !**c).map(|(p, _)| p).collect();
        *self = EnvelopeLdlt {
            dense: super::DenseFallback::default(),
            perm,
            first,
            row_start,
            l: vec![0.0; len],
            d: vec![0.0; n],
            d_inv: vec![0.0; n],
            off_diagonal,
            diagonal,
            fill,
            a_values: vec![0.0; pattern.nnz()],
            y: vec![0.0; n],
            ax: vec![0.0; n],
        };
        Ok(())
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        if let Some(r) = self.dense.solve("envelope_ldlt", op, b, x) {
            return r;
        }
        let Operator::Normal { jac, w, pattern, reg } = op else {
            return Err(SolveError::NotApplicable { solver: "envelope_ldlt", reason: NOT_SPARSE });
        };
        pattern.assemble(jac, w, &mut self.a_values);
        reg.add_to(&mut self.a_values, pattern.diagonal_positions());
        self.factor()?;
        self.solve_same(op, b, x)
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        if let Some(r) = self.dense.solve("envelope_ldlt", op, b, x) {
            return r;
        }
        let Operator::Normal { pattern, .. } = op else {
            return Err(SolveError::NotApplicable { solver: "envelope_ldlt", reason: NOT_SPARSE });
        };
        let y = &mut self.y;
        for (yi, &old) in y.iter_mut().zip(&self.perm) {
            *yi = b[old];
        }
        let (first, row_start, l) = (&self.first, &self.row_start, &self.l);
        // L z = P b
        for i in 0..y.len() {
            let bi = row_start[i].wrapping_sub(first[i]);
            let mut s = y[i];
            for k in first[i]..i {
                s -= l[bi.wrapping_add(k)] * y[k];
            }
            y[i] = s;
        }
        // D u = z,  Lᵀ y = u
        for (yi, di) in y.iter_mut().zip(&self.d_inv) {
            *yi *= di;
        }
        for i in (0..y.len()).rev() {
            let bi = row_start[i].wrapping_sub(first[i]);
            let yi = y[i];
            for k in first[i]..i {
                y[k] -= l[bi.wrapping_add(k)] * yi;
            }
        }
        for (yi, &old) in y.iter().zip(&self.perm) {
            x[old] = *yi;
        }
        let residual = pattern.relative_residual(&self.a_values, b, x, &mut self.ax);
        Ok(SolveInfo { iterations: 1, residual })
    }
}

/// The registry entry of `envelope_ldlt`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: "envelope_ldlt",
    summary: "envelope (profile) LDL^T of J W J^T, natural or RCM order: linear cost on banded systems (chains), sqrt(m) wide on grids",
    kind: SolverKind::Direct,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(EnvelopeLdlt::default()),
    // Memory: the envelope of L (exact size from the ordering) and the assembly maps.
    memory,
};
