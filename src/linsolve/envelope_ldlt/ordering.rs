//! The ordering of `envelope_ldlt`: the constraints' natural order or reverse Cuthill–McKee
//! (George & Liu 1981, §4.3), whichever gives the smaller envelope, with each row's first envelope
//! column.

use crate::sparse::NormalMatrix;

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

/// perm⁻¹: inv[old] = new.
pub(super) fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (new, &old) in perm.iter().enumerate() {
        inv[old] = new;
    }
    inv
}

/// The ordering with the smaller envelope (natural or RCM): perm\[new\] = old, the first
/// envelope column of each permuted row, and the envelope size (strictly-lower entries).
pub(super) fn ordering(pattern: &NormalMatrix) -> (Vec<usize>, Vec<usize>, usize) {
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
