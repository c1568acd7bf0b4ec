//! FCLIB's HDF5 format (Acary, Brémond, Koziara, Pérignon, INRIA RT-0444, 2014, "Details on the
//! implementation"): a group `/fclib_local` (W, `vectors/q`, `vectors/mu`) or `/fclib_global`
//! (M, H, optionally G; `vectors/f`, `w`, `mu`, optionally `b`), each with `spacedim` and `info`
//! (`title`, `description`, `math_info`); matrices as groups `nzmax, m, n, nz, p, i, x` in
//! T. Davis' CSparse layout — nz = −1 compressed columns (p: n + 1 column pointers, i: row
//! indices), nz = −2 compressed rows (p: m + 1 row pointers, i: column indices), nz ≥ 0 triplets
//! (i: rows, p: columns, nz entries); `/guesses/<k>/r` and `/solution` beside it.
//!
//! Read through `hdf5-pure` (pure Rust, no libhdf5) from bytes read once, at most
//! [`MAX_FILE_BYTES`]; every declared size is checked against the data actually present before
//! anything is allocated from it, so a hostile file gets one reason, never a panic or an
//! allocation it declares.

use super::{Csr, GlobalProblem, LocalProblem, ProblemError};

/// A [`ProblemError::Format`] with a formatted detail.
macro_rules! bad {
    ($($t:tt)*) => { ProblemError::Format(format!($($t)*)) };
}
use std::path::Path;

/// The largest FCLIB file read \[bytes\].
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// A problem read from a file: local or global.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// 3DFC(W, q, μ).
    Local(LocalProblem),
    /// G3DFC(M, H, f, w, μ) (with G, b if the file has them).
    Global(Box<GlobalProblem>),
}

/// What FCLIB's `info` group says about a problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// `title`.
    pub title: String,
    /// `description`.
    pub description: String,
    /// `math_info`.
    pub math_info: String,
}

/// Why a file is not a usable FCLIB problem: the file and the first thing wrong with it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct ProblemFileError {
    /// The file.
    pub file: String,
    /// What is wrong (the group or dataset, the bad value, what was expected).
    pub reason: ProblemError,
}

/// Reads an FCLIB problem and its `info` from `path`.
pub fn read(path: &Path) -> Result<(Problem, Info), ProblemFileError> {
    let file = path.display().to_string();
    let fail = |reason: ProblemError| ProblemFileError { file: file.clone(), reason };
    let unreadable = |m: String| fail(ProblemError::Unreadable(format!("cannot read: {m}")));
    crate::input::refuse_special(path).map_err(|e| unreadable(e.to_string()))?;
    let len = std::fs::metadata(path).map_err(|e| unreadable(crate::input::io_reason(&e)))?.len();
    if len > MAX_FILE_BYTES {
        return Err(fail(ProblemError::TooLarge(format!(
            "the file is {len} bytes; at most {MAX_FILE_BYTES} are read"
        ))));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(crate::input::io_reason(&e)))?;
    let name = path.file_name().map_or(file.clone(), |n| n.to_string_lossy().into_owned());
    from_bytes(&name, bytes).map_err(fail)
}

/// Reads an FCLIB problem from the bytes of a file called `name`.
pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<(Problem, Info), ProblemError> {
    if !hdf5_pure::is_hdf5_bytes(&bytes) {
        return Err(bad!("not an HDF5 file (no HDF5 signature)"));
    }
    let h5 = hdf5_pure::File::from_bytes(bytes).map_err(|e| bad!("not a readable HDF5 file: {e}"))?;
    let root = h5.root();
    let groups = root.groups().map_err(|e| bad!("cannot list the root group: {e}"))?;
    let guesses = read_guesses(&root)?;
    if groups.iter().any(|g| g == "fclib_local") {
        let g = root.group("fclib_local").map_err(|e| bad!("/fclib_local: {e}"))?;
        let dim = spacedim(&g, "/fclib_local")?;
        let q = vector(&g, "vectors/q", "/fclib_local")?;
        let mu = vector(&g, "vectors/mu", "/fclib_local")?;
        let m = dim * mu.len();
        let w = matrix(&g, "W", "/fclib_local", (m, m))?;
        let p = LocalProblem { name: name.into(), dim, w, q, mu, guesses };
        p.validate().map_err(|e| e.within("/fclib_local"))?;
        Ok((Problem::Local(p), info(&g)))
    } else if groups.iter().any(|g| g == "fclib_global") {
        let g = root.group("fclib_global").map_err(|e| bad!("/fclib_global: {e}"))?;
        let at = "/fclib_global";
        let dim = spacedim(&g, at)?;
        let f = vector(&g, "vectors/f", at)?;
        let w = vector(&g, "vectors/w", at)?;
        let mu = vector(&g, "vectors/mu", at)?;
        let (n, m) = (f.len(), dim * mu.len());
        if w.len() != m {
            return Err(bad!("{at}/vectors/w has {} entries; expected {m} ({} contacts x {dim})", w.len(), mu.len()));
        }
        let mm = matrix(&g, "M", at, (n, n))?;
        let h = matrix(&g, "H", at, (n, m))?;
        let bilateral = match g.groups().map_err(|e| bad!("{at}: {e}"))?.iter().any(|x| x == "G") {
            true => {
                let b = vector(&g, "vectors/b", at)?;
                Some((matrix(&g, "G", at, (n, b.len()))?, b))
            }
            false => None,
        };
        if let Some(r) = guesses.iter().find(|r| r.len() != m) {
            return Err(bad!("/guesses: a guess r has {} entries; expected {m}", r.len()));
        }
        let p = GlobalProblem { name: name.into(), dim, m: mm, h, f, w, mu, bilateral, guesses };
        Ok((Problem::Global(Box::new(p)), info(&g)))
    } else {
        Err(bad!(
            "no group /fclib_local or /fclib_global (found: {})",
            if groups.is_empty() { "nothing".into() } else { groups.join(", ") }
        ))
    }
}

fn spacedim(g: &hdf5_pure::Group, at: &str) -> Result<usize, ProblemError> {
    let v = ints(g, "spacedim", at)?;
    match v.as_slice() {
        [2] => Ok(2),
        [3] => Ok(3),
        _ => Err(bad!("{at}/spacedim is {v:?}; expected 2 or 3")),
    }
}

/// The most elements a dataset may declare: the file's bytes at 1 byte an element, so that a
/// dataset declared larger than the data behind it (a fill value over a huge dataspace) is
/// refused before it is read.
const MAX_ELEMENTS: u64 = MAX_FILE_BYTES;

fn dataset(g: &hdf5_pure::Group, path: &str, at: &str) -> Result<hdf5_pure::Dataset, ProblemError> {
    let d = g.dataset(path).map_err(|_| bad!("{at}/{path} is missing"))?;
    let shape = d.shape().map_err(|e| bad!("{at}/{path}: unreadable shape: {e}"))?;
    let n = shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(d),
        _ => Err(ProblemError::TooLarge(format!(
            "{at}/{path} declares {shape:?} elements; at most {MAX_ELEMENTS} are read"
        ))),
    }
}

fn ints(g: &hdf5_pure::Group, path: &str, at: &str) -> Result<Vec<i64>, ProblemError> {
    dataset(g, path, at)?.read_i64().map_err(|e| bad!("{at}/{path} is not integer data: {e}"))
}

fn vector(g: &hdf5_pure::Group, path: &str, at: &str) -> Result<Vec<f64>, ProblemError> {
    let v = dataset(g, path, at)?.read_f64().map_err(|e| bad!("{at}/{path} is not numeric data: {e}"))?;
    match v.iter().position(|x| !x.is_finite()) {
        Some(k) => Err(bad!("{at}/{path}[{k}] is {}; expected a finite number", v[k])),
        None => Ok(v),
    }
}

fn scalar(g: &hdf5_pure::Group, path: &str, at: &str) -> Result<i64, ProblemError> {
    match ints(g, path, at)?.as_slice() {
        [x] => Ok(*x),
        v => Err(bad!("{at}/{path} holds {} values; expected one", v.len())),
    }
}

/// Reads the matrix group `name` of `g`, which must be `shape` (rows, columns).
fn matrix(g: &hdf5_pure::Group, name: &str, at: &str, shape: (usize, usize)) -> Result<Csr, ProblemError> {
    let at = format!("{at}/{name}");
    let mg = g.group(name).map_err(|_| bad!("{at} is missing"))?;
    let (m, n, nz) = (scalar(&mg, "m", &at)?, scalar(&mg, "n", &at)?, scalar(&mg, "nz", &at)?);
    if (m, n) != (shape.0 as i64, shape.1 as i64) {
        return Err(bad!("{at} is declared {m} x {n}; the vectors make it {} x {}", shape.0, shape.1));
    }
    let (m, n) = shape;
    let p = ints(&mg, "p", &at)?;
    let i = ints(&mg, "i", &at)?;
    let x = vector(&mg, "x", &at)?;
    let index = |v: i64, bound: usize, what: &str| -> Result<usize, ProblemError> {
        usize::try_from(v)
            .ok()
            .filter(|&k| k < bound)
            .ok_or_else(|| bad!("{at}: {what} {v} is out of range [0, {bound})"))
    };
    let mut t = Vec::new();
    match nz {
        -1 | -2 => {
            // compressed columns (−1: p over columns, i rows) or rows (−2: p over rows, i columns)
            let (outer, inner) = if nz == -1 { (n, m) } else { (m, n) };
            if p.len() != outer + 1 {
                return Err(bad!("{at}/p has {} entries; expected {} pointers", p.len(), outer + 1));
            }
            if p[0] != 0 || p.windows(2).any(|w| w[1] < w[0]) {
                return Err(bad!("{at}/p is not a non-decreasing list of pointers from 0"));
            }
            let total = p[outer] as usize;
            if i.len() < total || x.len() < total {
                return Err(bad!("{at}: p declares {total} entries; i has {}, x has {}", i.len(), x.len()));
            }
            for o in 0..outer {
                for k in p[o] as usize..p[o + 1] as usize {
                    let r = index(i[k], inner, "index")?;
                    t.push(if nz == -1 { (r, o, x[k]) } else { (o, r, x[k]) });
                }
            }
        }
        k if k >= 0 => {
            let k = k as usize;
            if i.len() < k || p.len() < k || x.len() < k {
                return Err(bad!(
                    "{at}: nz declares {k} triplets; i has {}, p has {}, x has {}",
                    i.len(),
                    p.len(),
                    x.len()
                ));
            }
            for e in 0..k {
                t.push((index(i[e], m, "row")?, index(p[e], n, "column")?, x[e]));
            }
        }
        k => return Err(bad!("{at}/nz is {k}; expected -1 (columns), -2 (rows) or a triplet count >= 0")),
    }
    Ok(Csr::from_triplets(m, n, &t))
}

fn read_guesses(root: &hdf5_pure::Group) -> Result<Vec<Vec<f64>>, ProblemError> {
    if !root.groups().unwrap_or_default().iter().any(|g| g == "guesses") {
        return Ok(Vec::new());
    }
    let g = root.group("guesses").map_err(|e| bad!("/guesses: {e}"))?;
    let mut out = Vec::new();
    let mut names: Vec<String> = g.groups().unwrap_or_default();
    names.sort_by_key(|n| n.parse::<u64>().unwrap_or(u64::MAX));
    for k in names {
        let sub = g.group(&k).map_err(|e| bad!("/guesses/{k}: {e}"))?;
        out.push(vector(&sub, "r", &format!("/guesses/{k}"))?);
    }
    Ok(out)
}

fn info(g: &hdf5_pure::Group) -> Info {
    let text = |path: &str| {
        g.dataset(path)
            .ok()
            .and_then(|d| d.read_string().ok())
            .map(|v| v.join(" ").trim().to_string())
            .unwrap_or_default()
    };
    Info { title: text("info/title"), description: text("info/description"), math_info: text("info/math_info") }
}

/// A matrix as an FCLIB matrix group in compressed rows (`nz` = −2).
fn matrix_group(parent: &mut hdf5_pure::GroupBuilder, name: &str, a: &Csr) {
    let to_i32 = |v: &[usize]| -> Vec<i32> { v.iter().map(|&x| x as i32).collect() };
    let mut w = parent.create_group(name);
    w.create_dataset("nzmax").with_i32_data(&[a.nnz() as i32]);
    w.create_dataset("m").with_i32_data(&[a.nrows as i32]);
    w.create_dataset("n").with_i32_data(&[a.ncols as i32]);
    w.create_dataset("nz").with_i32_data(&[-2]);
    w.create_dataset("p").with_i32_data(&to_i32(&a.ptr));
    w.create_dataset("i").with_i32_data(&to_i32(&a.idx));
    w.create_dataset("x").with_f64_data(&a.val);
    parent.add_group(w.finish());
}

/// The `info` group (title, description, math_info).
fn info_group(parent: &mut hdf5_pure::GroupBuilder, info: &Info) -> Result<(), ProblemError> {
    let mut inf = parent.create_group("info");
    for (k, s) in [("title", &info.title), ("description", &info.description), ("math_info", &info.math_info)] {
        inf.create_dataset(k).with_strings(&[s.as_str()]).map_err(|e| ProblemError::Write(e.to_string()))?;
    }
    parent.add_group(inf.finish());
    Ok(())
}

/// The file's `guesses` group, when there are guesses.
fn guesses_group(b: &mut hdf5_pure::FileBuilder, guesses: &[Vec<f64>]) {
    if guesses.is_empty() {
        return;
    }
    let mut g = b.create_group("guesses");
    g.create_dataset("number_of_guesses").with_i32_data(&[guesses.len() as i32]);
    for (k, r) in guesses.iter().enumerate() {
        let mut s = g.create_group(&(k + 1).to_string());
        s.create_dataset("r").with_f64_data(r);
        g.add_group(s.finish());
    }
    b.add_group(g.finish());
}

/// Writes a local problem as an FCLIB file (W in compressed rows, `spacedim`, `vectors/q`,
/// `vectors/mu`, `info`, and `guesses` when it has some) to bytes.
pub fn local_to_bytes(p: &LocalProblem, info: &Info) -> Result<Vec<u8>, ProblemError> {
    let mut b = hdf5_pure::FileBuilder::new();
    let mut g = b.create_group("fclib_local");
    g.create_dataset("spacedim").with_i32_data(&[p.dim as i32]);
    matrix_group(&mut g, "W", &p.w);
    let mut v = g.create_group("vectors");
    v.create_dataset("q").with_f64_data(&p.q);
    v.create_dataset("mu").with_f64_data(&p.mu);
    g.add_group(v.finish());
    info_group(&mut g, info)?;
    b.add_group(g.finish());
    guesses_group(&mut b, &p.guesses);
    b.finish().map_err(|e| ProblemError::Write(e.to_string()))
}

/// Writes a global problem as an FCLIB file (`/fclib_global`: M and H, and G with `vectors/b`
/// when it has bilateral constraints, in compressed rows; `vectors/f`, `w`, `mu`; `info`;
/// `guesses`) to bytes.
pub fn global_to_bytes(p: &GlobalProblem, info: &Info) -> Result<Vec<u8>, ProblemError> {
    let mut b = hdf5_pure::FileBuilder::new();
    let mut g = b.create_group("fclib_global");
    g.create_dataset("spacedim").with_i32_data(&[p.dim as i32]);
    matrix_group(&mut g, "M", &p.m);
    matrix_group(&mut g, "H", &p.h);
    if let Some((gm, _)) = &p.bilateral {
        matrix_group(&mut g, "G", gm);
    }
    let mut v = g.create_group("vectors");
    v.create_dataset("f").with_f64_data(&p.f);
    v.create_dataset("w").with_f64_data(&p.w);
    v.create_dataset("mu").with_f64_data(&p.mu);
    if let Some((_, bv)) = &p.bilateral {
        v.create_dataset("b").with_f64_data(bv);
    }
    g.add_group(v.finish());
    info_group(&mut g, info)?;
    b.add_group(g.finish());
    guesses_group(&mut b, &p.guesses);
    b.finish().map_err(|e| ProblemError::Write(e.to_string()))
}
