//! Siconos' plain-text format for local problems (`FrictionContact3D_1c.dat` and the like):
//! whitespace-separated numbers — the dimension, the number of contacts, a storage flag, W's size
//! (rows, columns), then W, then q, then μ. W is either dense (flag 0: its size again, then its
//! entries column by column) or sparse-block (flag 1, Siconos' `SparseBlockStructuredMatrix`: the
//! number of stored blocks, the block rows and columns, the cumulative row and column sizes, the
//! block-row pointers and the block-column indices, then each block as its number followed by
//! its entries column by column). Every block of a contact problem is dim × dim.

use super::{Csr, LocalProblem, ProblemError};

/// A [`ProblemError::Format`] with a formatted detail.
macro_rules! bad {
    ($($t:tt)*) => { ProblemError::Format(format!($($t)*)) };
}

/// The largest `.dat` file read \[bytes\] (Siconos' largest, a rock pile, is 1.2 MB).
pub const MAX_BYTES: u64 = 16 << 20;

/// Reads a dense-storage Siconos `.dat` local problem called `name` from its text.
pub fn from_text(name: &str, text: &str) -> Result<LocalProblem, ProblemError> {
    let tokens = text.split_whitespace().count();
    let mut tok = text.split_whitespace().enumerate();
    let mut next = |what: &str| -> Result<f64, ProblemError> {
        let (k, t) = tok.next().ok_or_else(|| bad!("the file ends before {what}"))?;
        t.parse::<f64>().map_err(|_| bad!("token {} (`{}`) is not a number ({what})", k + 1, crate::params::short(t)))
    };
    let count = |v: f64, what: &str, max: usize| -> Result<usize, ProblemError> {
        (v.fract() == 0.0 && v >= 0.0 && v <= max as f64)
            .then_some(v as usize)
            .ok_or_else(|| bad!("{what} is {v}; expected an integer in [0, {max}]"))
    };
    let dim = count(next("the dimension")?, "the dimension", 3)?;
    let nc = count(next("the number of contacts")?, "the number of contacts", 1 << 20)?;
    let storage = next("the storage flag")?;
    let m = dim * nc;
    let (r, c) = (count(next("W's rows")?, "W's rows", m)?, count(next("W's columns")?, "W's columns", m)?);
    if (r, c) != (m, m) {
        return Err(bad!("W is declared {r} x {c}; {nc} contacts of dimension {dim} make it {m} x {m}"));
    }
    let t = if storage == 0.0 {
        // The dense W, q and μ must be in the text before anything is sized from the declared counts.
        let needed = m.checked_mul(m).and_then(|w| w.checked_add(m + nc + 7));
        if needed.is_none_or(|n| n > tokens) {
            return Err(bad!(
                "{nc} contacts of dimension {dim} need {} numbers (a dense W, q and mu); the file holds {tokens}",
                needed.map_or("more than 2^64".to_string(), |n| n.to_string())
            ));
        }
        let (r, c) = (count(next("W's rows")?, "W's rows", m)?, count(next("W's columns")?, "W's columns", m)?);
        if (r, c) != (m, m) {
            return Err(bad!("W is declared {r} x {c}; {nc} contacts of dimension {dim} make it {m} x {m}"));
        }
        let mut t = Vec::with_capacity(m * m);
        for j in 0..m {
            for i in 0..m {
                let v = next("the entries of W")?;
                if v != 0.0 {
                    t.push((i, j, v));
                }
            }
        }
        t
    } else if storage == 1.0 {
        sparse_blocks(&mut next, dim, nc, tokens)?
    } else {
        return Err(bad!("storage flag {storage}: expected 0 (dense) or 1 (sparse-block)"));
    };
    let q = (0..m).map(|_| next("q")).collect::<Result<Vec<_>, _>>()?;
    let mu = (0..nc).map(|_| next("mu")).collect::<Result<Vec<_>, _>>()?;
    // A local problem ends with μ (Siconos' files may add one flag, 0 or 1, after it): more
    // numbers mean another layout (Siconos' global GFC3D files start alike), which read as a
    // local one would be a wrong problem.
    let rest: Vec<&str> = tok.map(|(_, t)| t).collect();
    if !(rest.is_empty() || rest == ["0"] || rest == ["1"]) {
        return Err(bad!(
            "{} numbers follow mu; a local problem ends there (a global problem, such as Siconos' GFC3D files, is not read from .dat)",
            rest.len()
        ));
    }
    let p = LocalProblem { name: name.into(), dim, w: Csr::from_triplets(m, m, &t), q, mu, guesses: Vec::new() };
    p.validate()?;
    Ok(p)
}

/// W in Siconos' sparse-block storage as triplets, each block checked against the declared
/// structure (dim × dim blocks on an nc × nc block grid) and counted against the `tokens` the
/// file holds before anything is sized from it.
fn sparse_blocks(
    next: &mut dyn FnMut(&str) -> Result<f64, ProblemError>,
    dim: usize,
    nc: usize,
    tokens: usize,
) -> Result<Vec<(usize, usize, f64)>, ProblemError> {
    fn int(
        next: &mut dyn FnMut(&str) -> Result<f64, ProblemError>,
        what: &str,
        max: usize,
    ) -> Result<usize, ProblemError> {
        let v = next(what)?;
        (v.fract() == 0.0 && v >= 0.0 && v <= max as f64)
            .then_some(v as usize)
            .ok_or_else(|| bad!("{what} is {v}; expected an integer in [0, {max}]"))
    }
    let mut count = |what: &str, max: usize| int(next, what, max);
    let blocks = count("the number of blocks", nc.saturating_mul(nc))?;
    let (rows, cols) = (count("the block rows", nc)?, count("the block columns", nc)?);
    if (rows, cols) != (nc, nc) {
        return Err(bad!("W has {rows} x {cols} blocks; {nc} contacts make it {nc} x {nc}"));
    }
    // Each block: its number and dim² entries; then q and μ.
    // The sizes (2 nc), the two counts, the row pointers (nc + 1), the column indices, the blocks
    // (each its number and dim² entries), q and μ.
    let needed = blocks.checked_mul(2 + dim * dim).and_then(|b| b.checked_add(3 * nc + 3 + nc * dim + nc));
    if needed.is_none_or(|n| n > tokens) {
        return Err(bad!("{blocks} blocks of {dim} x {dim} need more numbers than the file's {tokens}"));
    }
    for what in ["the cumulative row sizes", "the cumulative column sizes"] {
        for k in 0..nc {
            if count(what, nc * dim)? != (k + 1) * dim {
                return Err(bad!("{what}: block {k} is not {dim} x {dim}, as every contact's is"));
            }
        }
    }
    let (ptr_len, idx_len) = (count("the row pointers' count", nc + 1)?, count("the column indices' count", blocks)?);
    if ptr_len != nc + 1 || idx_len != blocks {
        return Err(bad!("{ptr_len} row pointers and {idx_len} column indices; expected {} and {blocks}", nc + 1));
    }
    let ptr = (0..=nc).map(|_| count("a block-row pointer", blocks)).collect::<Result<Vec<_>, _>>()?;
    if ptr[0] != 0 || ptr[nc] != blocks || ptr.windows(2).any(|w| w[0] > w[1]) {
        return Err(bad!("the block-row pointers do not run from 0 to the number of blocks"));
    }
    let col = (0..blocks).map(|_| count("a block-column index", nc - 1)).collect::<Result<Vec<_>, _>>()?;
    let mut t = Vec::with_capacity(blocks * dim * dim);
    for bi in 0..nc {
        for (k, &bj) in col.iter().enumerate().take(ptr[bi + 1]).skip(ptr[bi]) {
            if int(next, "a block's number", blocks)? != k {
                return Err(bad!("block {k} is not numbered {k}"));
            }
            for j in 0..dim {
                for i in 0..dim {
                    let v = next("a block's entries")?;
                    if v != 0.0 {
                        t.push((bi * dim + i, bj * dim + j, v));
                    }
                }
            }
        }
    }
    Ok(t)
}
