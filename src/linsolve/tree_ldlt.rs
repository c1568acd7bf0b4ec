//! Linear-time solve for acyclic mechanisms (Baraff 1996, "Linear-time dynamics using Lagrange
//! multipliers", SIGGRAPH, §§5–7): instead of forming J W Jᵀ, factor the sparse saddle-point matrix
//!   H = [[M, Jᵀ], [J, −R]]    (bodies and constraints as nodes; R = the operator's regularization)
//! whose graph — a body node per body, a constraint node per constraint, an edge where a
//! constraint touches a body — is a tree (a forest, with the world as the root of every
//! world-attached constraint) exactly when the mechanism has no loop. Eliminating the nodes children
//! first fills nothing: with B_c = H_{c, parent(c)},
//!   D_c = H_cc − Σ_{k child of c} B_kᵀ D_k⁻¹ B_k,   Q_c = D_c⁻¹ B_c           (Baraff eq. 14–16)
//! then H [y; λ] = [0; −b] by one pass up (y_p −= Q_cᵀ y_c) and one down (x_c = D_c⁻¹ y_c − Q_c x_p),
//! and λ solves (J W Jᵀ + R) λ = b. Body pivots are positive definite (M plus PSD terms) and
//! constraint pivots negative definite, so each is factored by Cholesky of ±D. Work and memory are
//! O(nodes) with blocks of at most 6 × 6 (body) and the constraint's rows.
//!
//! The tree and the elimination order are built in [`LinearSolver::prepare`]; a loop in the graph
//! makes the solver not applicable. A solve reads J once: the elimination gathers each edge's block
//! as it goes, and a node's D starts as its first child's term (no separate initialization pass).

use super::registry::{Footprint, SolverEntry, SolverKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo, norm};
use crate::params::{NoParams, ParamTable};
use crate::sparse::BlockJacobian;

const NAME: &str = "tree_ldlt";
const NOT_SPARSE: &str =
    "the system matrix is dense (lagrangian's loop closures); use dense_lu, dense_cholesky, cg, gauss_seidel or jacobi";

/// A node of the body–constraint tree, in elimination order (children before parents).
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// Body: first column; constraint: first row.
    first: u32,
    /// Parent node (in elimination order), or `u32::MAX` (a root).
    parent: u32,
    /// Where B_c comes from: the constraint's slot.
    slot: u32,
    /// Offset in the arena of D (dim²; then D⁻¹), followed by Q (dim × pdim) and y (dim).
    d: u32,
    /// Length of a row of the constraint's J block.
    ldof: u8,
    /// Whether no node hangs below it, and whether it is the first child of its parent to be
    /// eliminated (which then writes the parent's D rather than updating it).
    leaf: bool,
    first_child: bool,
    /// Dimension (body dof or constraint rows) and the parent's.
    dim: u8,
    pdim: u8,
    /// The body's first local column in the constraint's block.
    koff: u8,
    /// Whether it is a constraint node, and whether B_c = J-blockᵀ (a body below its constraint).
    constraint: bool,
    transposed: bool,
}

impl Node {
    /// Arena offsets of D⁻¹, Q and y.
    #[inline(always)]
    fn offsets(&self) -> (usize, usize, usize) {
        let (d, dim, pdim) = (self.d as usize, self.dim as usize, self.pdim as usize);
        let q = d + dim * dim;
        (d, q, q + dim * pdim)
    }
}

/// Baraff's linear-time tree factorization, with its layout computed once per run.
#[derive(Default)]
pub struct TreeLdlt {
    nodes: Vec<Node>,
    arena: Vec<f64>,
    /// Scratch for the residual: Jᵀx (n) and J W Jᵀ x (m).
    jtx: Vec<f64>,
    ax: Vec<f64>,
}

fn memory(f: &Footprint) -> u64 {
    match f {
        // Per row at most: the constraint's D and B (6 × 6 each), a body's D, Q, B (6 × 6 each),
        // y — bounded by 8 · (2 nnz + 40 m) bytes with nnz the stored entries of J W Jᵀ.
        Footprint::Normal(p) => 8 * (2 * p.nnz() as u64 + 40 * p.dim() as u64),
        Footprint::Dense(_) => 0,
    }
}

/// The registry entry of `tree_ldlt`.
pub const ENTRY: SolverEntry = SolverEntry {
    name: NAME,
    summary: "Baraff's linear-time LDL^T of the saddle-point matrix [M J^T; J -R] on the body-constraint tree: O(n) with no fill for mechanisms without loops",
    kind: SolverKind::Direct,
    accepts: super::registry::SPARSE_NORMAL,
    params: ParamTable::of::<NoParams>(),
    build: |_| Box::new(TreeLdlt::default()),
    memory,
};

/// The body nodes of the constraint blocks, identified by their first column: each column's body
/// index (`usize::MAX` where no body starts), each body's (first column, dimension), and the
/// constraints touching each body.
#[allow(clippy::type_complexity)]
fn body_nodes(blocks: &[crate::sparse::ConstraintBlock<'_>], ncols: usize) -> (Vec<usize>, Vec<(usize, usize)>, Vec<Vec<usize>>) {
    // Body nodes are identified by their first column.
    let mut body_at = vec![usize::MAX; ncols + 1];
    let mut bodies: Vec<(usize, usize)> = Vec::new();
    let mut touching: Vec<Vec<usize>> = Vec::new();
    for (ci, b) in blocks.iter().enumerate() {
        for &(c0, d) in b.cols {
            if body_at[c0] == usize::MAX {
                body_at[c0] = bodies.len();
                bodies.push((c0, d));
                touching.push(Vec::new());
            }
            touching[body_at[c0]].push(ci);
        }
    }
    (body_at, bodies, touching)
}

/// The breadth-first order of the body–constraint graph from the world (world-attached
/// constraints first, then alternately bodies and constraints; a part the world does not hold
/// rooted at its first body) and each node's parent; graph nodes: constraint ci → ci, body
/// k → m + k. A loop is refused.
fn breadth_first(
    blocks: &[crate::sparse::ConstraintBlock<'_>],
    body_at: &[usize],
    bodies: &[(usize, usize)],
    touching: &[Vec<usize>],
) -> Result<(Vec<usize>, Vec<usize>), SolveError> {
    // Breadth-first from the world: world-attached constraints first, then alternately bodies
    // and constraints. Graph nodes: constraint ci → ci, body k → m + k.
    let m = blocks.len();
    let mut parent = vec![usize::MAX; m + bodies.len()];
    let mut seen = vec![false; m + bodies.len()];
    let mut order: Vec<usize> = Vec::with_capacity(m + bodies.len());
    for (ci, b) in blocks.iter().enumerate() {
        if b.cols.len() == 1 {
            seen[ci] = true;
            order.push(ci);
        }
    }
    let mut head = 0;
    loop {
        while head < order.len() {
            let g = order[head];
            head += 1;
            let next: Vec<usize> = if g < m {
                blocks[g].cols.iter().map(|&(c0, _)| m + body_at[c0]).collect()
            } else {
                touching[g - m].clone()
            };
            for h in next {
                if h == parent[g] {
                    continue;
                }
                if seen[h] {
                    return Err(SolveError::NotApplicable {
                        solver: NAME,
                        reason: "the body-constraint graph has a loop (a closed chain, a grid, or two world constraints on one branch); use envelope_ldlt or sparse_cholesky",
                    });
                }
                seen[h] = true;
                parent[h] = g;
                order.push(h);
            }
        }
        // A part the world does not hold: root it at its first body.
        let Some(k) = (0..bodies.len()).find(|&k| !seen[m + k]) else { break };
        seen[m + k] = true;
        order.push(m + k);
    }
    Ok((order, parent))
}

impl TreeLdlt {
    /// Builds the body–constraint forest of `jac` and its elimination order.
    fn layout(&mut self, jac: &BlockJacobian) -> Result<(), SolveError> {
        let blocks: Vec<_> = jac.blocks().collect();
        let (body_at, bodies, touching) = body_nodes(&blocks, jac.ncols());
        let m = blocks.len();
        let (order, parent) = breadth_first(&blocks, &body_at, &bodies, &touching)?;
        // Elimination order: children before parents (reverse breadth-first order).
        let mut position = vec![0; order.len()];
        for (i, &g) in order.iter().rev().enumerate() {
            position[g] = i;
        }
        let mut nodes = vec![Node::default(); order.len()];
        let small = |x: usize| u32::try_from(x).map_err(|_| SolveError::NotApplicable { solver: NAME, reason: "more than 2^32 entries" });
        for &g in &order {
            let i = position[g];
            let p = parent[g];
            let mut n = if g < m {
                Node { first: small(blocks[g].row0)?, dim: blocks[g].rows as u8, constraint: true, slot: small(g)?, ..Node::default() }
            } else {
                let (c0, d) = bodies[g - m];
                Node { first: small(c0)?, dim: d as u8, slot: u32::MAX, ..Node::default() }
            };
            n.parent = if p == usize::MAX { u32::MAX } else { small(position[p])? };
            if p != usize::MAX {
                // The J block between the constraint and the body on this edge.
                let (ci, c0) = if g < m { (g, bodies[p - m].0) } else { (p, bodies[g - m].0) };
                let mut koff = 0;
                for &(b0, d) in blocks[ci].cols {
                    if b0 == c0 {
                        break;
                    }
                    koff += d;
                }
                n.pdim = if g < m { bodies[p - m].1 as u8 } else { blocks[p].rows as u8 };
                (n.slot, n.koff, n.transposed, n.ldof) = (small(ci)?, koff as u8, g >= m, blocks[ci].ldof as u8);
            }
            nodes[i] = n;
        }
        let mut has_child = vec![false; nodes.len()];
        for n in nodes.iter_mut() {
            if n.parent != u32::MAX {
                let p = n.parent as usize;
                n.first_child = !has_child[p];
                has_child[p] = true;
            }
        }
        let mut at = 0;
        for (n, &hc) in nodes.iter_mut().zip(&has_child) {
            n.leaf = !hc;
            n.d = small(at)?;
            at = n.offsets().2 + n.dim as usize;
        }
        self.nodes = nodes;
        self.arena = vec![0.0; at];
        self.jtx = vec![0.0; jac.ncols()];
        self.ax = vec![0.0; jac.nrows()];
        Ok(())
    }

    /// The elimination, children first, in one pass: D = H_ii (+ the children's terms, already in
    /// place), D⁻¹, then for the edge to the parent B from J, Q = D⁻¹ B and D_p −= Bᵀ Q.
    fn factor(&mut self, jac: &BlockJacobian, w: &[f64], reg: &super::Reg) -> Result<(), SolveError> {
        let a = &mut self.arena;
        let mut b = [0.0; 72];
        for n in &self.nodes {
            let (d0, q0, _) = n.offsets();
            let (dim, pdim, first) = (n.dim as usize, n.pdim as usize, n.first as usize);
            let d = &mut a[d0..d0 + dim * dim];
            if n.leaf {
                d.fill(0.0);
            }
            for k in 0..dim {
                d[k * dim + k] += if n.constraint { -reg.at(first + k) } else { 1.0 / w[first + k] };
            }
            let sign = if n.constraint { -1.0 } else { 1.0 };
            invert_definite(d, dim, sign).ok_or(if n.constraint {
                SolveError::Singular { solver: NAME, pivot: first, dim: jac.nrows() }
            } else {
                SolveError::NotPositiveDefinite { solver: NAME, pivot: first }
            })?;
            if n.parent == u32::MAX {
                continue;
            }
            // B_c (dim × pdim, row-major) = the J block (rows × dof) or its transpose.
            let vals = jac.constraint_values(n.slot as usize);
            let (ldof, koff) = (n.ldof as usize, n.koff as usize);
            for r in 0..dim {
                for c in 0..pdim {
                    b[r * pdim + c] = if n.transposed { vals[c * ldof + koff + r] } else { vals[r * ldof + koff + c] };
                }
            }
            // The parent's block lies after the child's in the arena.
            let pd0 = self.nodes[n.parent as usize].d as usize;
            let (lo, hi) = a.split_at_mut(pd0);
            let (dinv, q) = lo[d0..q0 + dim * pdim].split_at_mut(q0 - d0);
            let dp = &mut hi[..pdim * pdim];
            let w = n.first_child;
            match (dim, pdim) {
                (1, 2) => edge_factor(1, 2, dinv, &b, q, dp, w),
                (2, 1) => edge_factor(2, 1, dinv, &b, q, dp, w),
                (1, 3) => edge_factor(1, 3, dinv, &b, q, dp, w),
                (3, 1) => edge_factor(3, 1, dinv, &b, q, dp, w),
                (1, 6) => edge_factor(1, 6, dinv, &b, q, dp, w),
                (6, 1) => edge_factor(6, 1, dinv, &b, q, dp, w),
                (3, 6) => edge_factor(3, 6, dinv, &b, q, dp, w),
                (6, 3) => edge_factor(6, 3, dinv, &b, q, dp, w),
                _ => edge_factor(dim, pdim, dinv, &b, q, dp, w),
            }
        }
        Ok(())
    }
}

/// Q = D⁻¹ B and D_p −= Bᵀ Q for one edge (dim × dim D⁻¹, dim × pdim B and Q, pdim × pdim D_p;
/// with `write`, D_p = −Bᵀ Q: the parent's first child starts its sum); inlined with literal sizes
/// so that the small loops unroll.
#[inline(always)]
fn edge_factor(dim: usize, pdim: usize, dinv: &[f64], b: &[f64], q: &mut [f64], dp: &mut [f64], write: bool) {
    let (dinv, b, q, dp) = (&dinv[..dim * dim], &b[..dim * pdim], &mut q[..dim * pdim], &mut dp[..pdim * pdim]);
    for r in 0..dim {
        for c in 0..pdim {
            let mut s = 0.0;
            for k in 0..dim {
                s += dinv[r * dim + k] * b[k * pdim + c];
            }
            q[r * pdim + c] = s;
        }
    }
    for r in 0..pdim {
        for c in 0..pdim {
            let mut s = 0.0;
            for k in 0..dim {
                s += b[k * pdim + r] * q[k * pdim + c];
            }
            if write {
                dp[r * pdim + c] = -s;
            } else {
                dp[r * pdim + c] -= s;
            }
        }
    }
}

/// y_p −= Qᵀ y_c for one edge.
#[inline(always)]
fn edge_up(dim: usize, pdim: usize, q: &[f64], y: &[f64], yp: &mut [f64]) {
    let (q, y, yp) = (&q[..dim * pdim], &y[..dim], &mut yp[..pdim]);
    for c in 0..pdim {
        let mut s = 0.0;
        for r in 0..dim {
            s += q[r * pdim + c] * y[r];
        }
        yp[c] -= s;
    }
}

/// y_c ← D⁻¹ y_c − Q x_p for one node (`pdim` = 0 at a root).
#[inline(always)]
fn node_down(dim: usize, pdim: usize, dinv: &[f64], q: &[f64], y: &mut [f64], xp: &[f64]) {
    let (dinv, q, y, xp) = (&dinv[..dim * dim], &q[..dim * pdim], &mut y[..dim], &xp[..pdim]);
    let mut t = [0.0; 12];
    for r in 0..dim {
        let mut s = 0.0;
        for k in 0..dim {
            s += dinv[r * dim + k] * y[k];
        }
        for c in 0..pdim {
            s -= q[r * pdim + c] * xp[c];
        }
        t[r] = s;
    }
    y.copy_from_slice(&t[..dim]);
}

/// Replaces the symmetric `dim × dim` matrix `d` (row-major), definite with sign `sign`, by its
/// inverse (Cholesky of sign · d, then the inverse of the factor); `None` if a pivot is not
/// positive.
fn invert_definite(d: &mut [f64], dim: usize, sign: f64) -> Option<()> {
    if dim == 1 {
        let v = sign * d[0];
        if !(v > 0.0) {
            return None;
        }
        d[0] = 1.0 / d[0];
        return Some(());
    }
    if dim == 2 {
        // sign·d = [[a, b], [b, c]] positive definite: a > 0 and det > 0.
        let (a, b, c) = (sign * d[0], sign * d[1], sign * d[3]);
        let det = a * c - b * b;
        if !(a > 0.0) || !(det > 1e-14 * a * c) {
            return None;
        }
        let s = sign / det;
        (d[0], d[1], d[2], d[3]) = (c * s, -b * s, -b * s, a * s);
        return Some(());
    }
    // L Lᵀ = sign · d, in place in the lower triangle.
    let scale = (0..dim).map(|k| (sign * d[k * dim + k]).abs()).fold(0.0, f64::max);
    for j in 0..dim {
        let mut s = sign * d[j * dim + j];
        for k in 0..j {
            s -= d[j * dim + k] * d[j * dim + k];
        }
        if !(s > 1e-14 * scale) {
            return None;
        }
        let l = s.sqrt();
        d[j * dim + j] = l;
        for i in j + 1..dim {
            let mut t = sign * d[i * dim + j];
            for k in 0..j {
                t -= d[i * dim + k] * d[j * dim + k];
            }
            d[i * dim + j] = t / l;
        }
    }
    // Columns of (L Lᵀ)⁻¹ by forward and back substitution on unit vectors, into a scratch.
    let mut inv = [0.0; 144];
    for c in 0..dim {
        let mut z = [0.0; 12];
        for i in 0..dim {
            let mut t = if i == c { 1.0 } else { 0.0 };
            for k in 0..i {
                t -= d[i * dim + k] * z[k];
            }
            z[i] = t / d[i * dim + i];
        }
        for i in (0..dim).rev() {
            let mut t = z[i];
            for k in i + 1..dim {
                t -= d[k * dim + i] * z[k];
            }
            z[i] = t / d[i * dim + i];
        }
        for i in 0..dim {
            inv[i * dim + c] = sign * z[i];
        }
    }
    d[..dim * dim].copy_from_slice(&inv[..dim * dim]);
    Some(())
}

impl LinearSolver for TreeLdlt {
    fn name(&self) -> &'static str {
        NAME
    }

    fn prepare(&mut self, op: &Operator) -> Result<(), SolveError> {
        let Operator::Normal { jac, w, .. } = op else {
            return Err(SolveError::NotApplicable { solver: NAME, reason: NOT_SPARSE });
        };
        if w.contains(&0.0) {
            return Err(SolveError::NotApplicable {
                solver: NAME,
                reason: "a body has no mass (the clock of a driven scene), and the saddle-point pivots need M; use envelope_ldlt or sparse_cholesky",
            });
        }
        if jac.blocks().any(|b| b.rows > 12) {
            return Err(SolveError::NotApplicable { solver: NAME, reason: "a constraint block has more than 12 rows" });
        }
        self.layout(jac)
    }

    fn solve(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, reg, .. } = op else {
            return Err(SolveError::NotApplicable { solver: NAME, reason: NOT_SPARSE });
        };
        self.factor(jac, w, reg)?;
        self.solve_same(op, b, x)
    }

    fn solve_same(&mut self, op: &Operator, b: &[f64], x: &mut [f64]) -> Result<SolveInfo, SolveError> {
        let Operator::Normal { jac, w, reg, .. } = op else {
            return Err(SolveError::NotApplicable { solver: NAME, reason: NOT_SPARSE });
        };
        let a = &mut self.arena;
        for n in &self.nodes {
            let (first, y0) = (n.first as usize, n.offsets().2);
            for k in 0..n.dim as usize {
                a[y0 + k] = if n.constraint { -b[first + k] } else { 0.0 };
            }
        }
        // Up: y_p −= Qᵀ y_c.
        for n in &self.nodes {
            if n.parent == u32::MAX {
                continue;
            }
            let (_, q0, y0) = n.offsets();
            let (dim, pdim) = (n.dim as usize, n.pdim as usize);
            let py = self.nodes[n.parent as usize].offsets().2;
            let (lo, hi) = a.split_at_mut(py);
            let (q, y, yp) = (&lo[q0..q0 + dim * pdim], &lo[y0..y0 + dim], &mut hi[..pdim]);
            match (dim, pdim) {
                (1, 2) => edge_up(1, 2, q, y, yp),
                (2, 1) => edge_up(2, 1, q, y, yp),
                (1, 3) => edge_up(1, 3, q, y, yp),
                (3, 1) => edge_up(3, 1, q, y, yp),
                _ => edge_up(dim, pdim, q, y, yp),
            }
        }
        // Down: x_c = D⁻¹ y_c − Q x_p (parents first); y_c holds x_c after.
        for n in self.nodes.iter().rev() {
            let (d0, q0, y0) = n.offsets();
            let (dim, pdim) = (n.dim as usize, n.pdim as usize);
            let py = if n.parent == u32::MAX { 0 } else { self.nodes[n.parent as usize].offsets().2 };
            // The parent's y lies after the child's in the arena.
            let (lo, hi) = a.split_at_mut(y0);
            let (y, xp) = if n.parent == u32::MAX { (&mut hi[..dim], &[][..]) } else {
                let (y, rest) = hi.split_at_mut(py - y0);
                (&mut y[..dim], &rest[..pdim])
            };
            let (dinv, q) = (&lo[d0..d0 + dim * dim], &lo[q0..q0 + dim * pdim]);
            match (dim, pdim) {
                (1, 2) => node_down(1, 2, dinv, q, y, xp),
                (2, 1) => node_down(2, 1, dinv, q, y, xp),
                (1, 3) => node_down(1, 3, dinv, q, y, xp),
                (3, 1) => node_down(3, 1, dinv, q, y, xp),
                _ => node_down(dim, pdim, dinv, q, y, xp),
            }
            if n.constraint {
                let first = n.first as usize;
                x[first..first + dim].copy_from_slice(y);
            }
        }
        // Residual ‖b − (J W Jᵀ + R) x‖ / ‖b‖, matrix-free.
        jac.mul_t(x, &mut self.jtx);
        for (v, wi) in self.jtx.iter_mut().zip(w.iter()) {
            *v *= wi;
        }
        jac.mul(&self.jtx, &mut self.ax);
        let mut r2 = 0.0;
        for (i, (axi, bi)) in self.ax.iter().zip(b).enumerate() {
            let d = bi - axi - reg.at(i) * x[i];
            r2 += d * d;
        }
        let nb = norm(b);
        let residual = if nb > 0.0 { r2.sqrt() / nb } else { r2.sqrt() };
        Ok(SolveInfo { iterations: 1, residual })
    }
}
