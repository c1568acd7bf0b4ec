//! Siconos' plain-text format for local problems (`FrictionContact3D_1c.dat` and the like):
//! whitespace-separated numbers — the dimension, the number of contacts, a storage flag (0: W
//! dense), W's size twice (rows, columns), W column by column, then q, then μ. The sparse-block
//! storage (flag 1) is refused with that reason.

use super::{Csr, LocalProblem};

/// Reads a dense-storage Siconos `.dat` local problem called `name` from its text.
pub fn from_text(name: &str, text: &str) -> Result<LocalProblem, String> {
    let tokens = text.split_whitespace().count();
    let mut tok = text.split_whitespace().enumerate();
    let mut next = |what: &str| -> Result<f64, String> {
        let (k, t) = tok.next().ok_or_else(|| format!("the file ends before {what}"))?;
        t.parse::<f64>()
            .map_err(|_| format!("token {} (`{}`) is not a number ({what})", k + 1, crate::params::short(t)))
    };
    let count = |v: f64, what: &str, max: usize| -> Result<usize, String> {
        (v.fract() == 0.0 && v >= 0.0 && v <= max as f64)
            .then_some(v as usize)
            .ok_or_else(|| format!("{what} is {v}; expected an integer in [0, {max}]"))
    };
    let dim = count(next("the dimension")?, "the dimension", 3)?;
    let nc = count(next("the number of contacts")?, "the number of contacts", 1 << 20)?;
    let storage = next("the storage flag")?;
    if storage != 0.0 {
        return Err(format!("storage flag {storage}: only dense storage (0) is read"));
    }
    let m = dim * nc;
    // The dense W, q and μ must be in the text before anything is sized from the declared counts.
    let needed = m.checked_mul(m).and_then(|w| w.checked_add(m + nc + 7));
    if needed.is_none_or(|n| n > tokens) {
        return Err(format!(
            "{nc} contacts of dimension {dim} need {} numbers (a dense W, q and mu); the file holds {tokens}",
            needed.map_or("more than 2^64".to_string(), |n| n.to_string())
        ));
    }
    for _ in 0..2 {
        let (r, c) = (count(next("W's rows")?, "W's rows", m)?, count(next("W's columns")?, "W's columns", m)?);
        if (r, c) != (m, m) {
            return Err(format!("W is declared {r} x {c}; {nc} contacts of dimension {dim} make it {m} x {m}"));
        }
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
    let q = (0..m).map(|_| next("q")).collect::<Result<Vec<_>, _>>()?;
    let mu = (0..nc).map(|_| next("mu")).collect::<Result<Vec<_>, _>>()?;
    let p = LocalProblem { name: name.into(), dim, w: Csr::from_triplets(m, m, &t), q, mu, guesses: Vec::new() };
    p.validate()?;
    Ok(p)
}
