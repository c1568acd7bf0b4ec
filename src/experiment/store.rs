//! Results on disk: the per-cell store that lets an interrupted run resume, and the shard files
//! that `merge` combines into one report.
//!
//! Both are postcard encodings of [`RunResult`] (floats as their 8 bytes, so a result read back is
//! bit for bit the one computed) keyed by what produced them: the build (crate version and the
//! SHA-256 of the executable), the config's SHA-256, and the cell's index and full label. A result
//! from another build or config is never reused.

use super::grid::{Cell, Experiment};
use super::runner::RunResult;
use super::timing::Timing;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The build: crate version and the first 16 hex digits of the executable's SHA-256.
pub fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok().and_then(|p| std::fs::read(p).ok()).unwrap_or_default();
        let h = Sha256::digest(&exe);
        let hex: String = h.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("{} (binary {hex})", env!("CARGO_PKG_VERSION"))
    })
}

/// The SHA-256 of a config's text, as hex.
pub fn config_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn cell_key(config_hash: &str, exp: &Experiment, cell: &Cell) -> String {
    let spec = format!("{}|{config_hash}|{}|{}", build_id(), cell.id, exp.cell_label(cell));
    Sha256::digest(spec.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// `bytes` followed by their SHA-256: what every stored cell and shard file holds, so that any
/// change of a byte (a flipped bit, a truncation, an edit) is detected before the data is used.
pub fn seal(mut bytes: Vec<u8>) -> Vec<u8> {
    let sum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&sum);
    bytes
}

/// The data of a [`seal`]ed file, or None if its checksum does not match (or it is too short).
pub fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let n = bytes.len().checked_sub(32)?;
    let (data, sum) = bytes.split_at(n);
    (Sha256::digest(data).as_slice() == sum).then_some(data)
}

/// A result read back: the scene's energy scale is not stored, it is the variant's.
fn restore(exp: &Experiment, cell: &Cell, mut r: RunResult) -> RunResult {
    r.summary.energy_scale = exp.variants[cell.variant].scene.energy_scale.clone();
    r
}

/// The per-cell store of one experiment in one reports directory: `<reports>/.<name>.cells/`.
pub struct Store {
    dir: PathBuf,
    hash: String,
}

#[derive(Deserialize)]
struct StoredCell {
    key: String,
    result: RunResult,
}

/// This machine's host name (Linux: the kernel's): in the run marker of a reports directory, and
/// with every stored timing.
pub(crate) fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default()
}

/// A cell's timing as stored, with the host that measured it: reused only on that host.
#[derive(Serialize, Deserialize)]
struct StoredTiming {
    key: String,
    host: String,
    timing: Timing,
}

/// [`StoredCell`] as written (borrowing: the same encoding, no copy of the result).
#[derive(Serialize)]
struct StoredCellRef<'a> {
    key: &'a str,
    result: &'a RunResult,
}

/// Why stored results cannot be used: the store or a shard directory unusable, damaged, or not
/// one sweep with the others; or a `--cells` selection that selects nothing valid. One line naming
/// the directory or the option at fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StoreError {
    /// A directory or file of the store that cannot be read, created or cleared.
    #[error(transparent)]
    Io(#[from] crate::input::FileError),
    /// A stored file whose checksum or format does not match.
    #[error("{0}")]
    Damaged(String),
    /// Shards that are not one sweep: another config, another build, an index twice or missing,
    /// a cell in two shards or none.
    #[error("{0}")]
    NotOneSweep(String),
    /// The config the shards were computed with no longer loads.
    #[error(transparent)]
    Config(#[from] crate::input::ConfigError),
    /// A `--cells` selection that names no valid cell (the item and the valid choices).
    #[error("{0}")]
    Selection(String),
}

/// A [`StoreError::Selection`] with a formatted detail.
macro_rules! selection {
    ($($t:tt)*) => { StoreError::Selection(format!($($t)*)) };
}

/// A [`StoreError::NotOneSweep`] with a formatted detail.
macro_rules! not_one {
    ($($t:tt)*) => { StoreError::NotOneSweep(format!($($t)*)) };
}

impl Store {
    /// Opens the store of `name` in `reports` (the caller holds the name's lock) for results of
    /// the experiment whose [`Experiment::identity`] is `identity`. Without `resume` it starts
    /// empty.
    pub fn open(reports: &Path, name: &str, identity: &str, resume: bool) -> Result<Store, StoreError> {
        let dir = reports.join(format!(".{name}.cells"));
        // The store is ours: a link at its name is refused, never followed.
        if dir.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            return Err(StoreError::Io(crate::input::FileError::new(
                &dir,
                "not a directory (a link or a file); tinkertoy does not write through links — remove it",
            )));
        }
        if !resume && dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| crate::input::FileError::new(&dir, format!("cannot clear: {e}")))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| crate::input::FileError::new(&dir, format!("cannot create: {e}")))?;
        Ok(Store { dir, hash: identity.to_string() })
    }

    fn path(&self, cell: &Cell) -> PathBuf {
        self.dir.join(format!("{}.bin", cell.id))
    }

    /// The stored result of `cell`, if one from this build and config is there.
    pub fn load(&self, exp: &Experiment, cell: &Cell) -> Option<RunResult> {
        let bytes = std::fs::read(self.path(cell)).ok()?;
        // A damaged file (any byte changed) is not reused: the cell runs again.
        let stored: StoredCell = postcard::from_bytes(unseal(&bytes)?).ok()?;
        (stored.key == cell_key(&self.hash, exp, cell)).then(|| restore(exp, cell, stored.result))
    }

    /// Stores the result of `cell` (written to a temporary file and renamed: a crash leaves the
    /// old file or the new one). A failure to store is not an error of the run.
    pub fn save(&self, exp: &Experiment, cell: &Cell, result: &RunResult) {
        let key = cell_key(&self.hash, exp, cell);
        let stored = StoredCellRef { key: &key, result };
        if let Ok(bytes) = postcard::to_stdvec(&stored).map(seal) {
            self.write(&self.path(cell), &bytes);
        }
    }

    fn timing_path(&self, cell: &Cell) -> PathBuf {
        self.dir.join(format!("{}.timing.bin", cell.id))
    }

    /// The stored timing of `cell`, if this host measured it for this build and config: a
    /// resumed run does not time again what it timed before it was interrupted.
    pub fn load_timing(&self, exp: &Experiment, cell: &Cell) -> Option<Timing> {
        let bytes = std::fs::read(self.timing_path(cell)).ok()?;
        let stored: StoredTiming = postcard::from_bytes(unseal(&bytes)?).ok()?;
        (stored.key == cell_key(&self.hash, exp, cell) && stored.host == host()).then_some(stored.timing)
    }

    /// Stores the timing of `cell`, measured on this host (as [`Store::save`]).
    pub fn save_timing(&self, exp: &Experiment, cell: &Cell, timing: &Timing) {
        let stored = StoredTiming { key: cell_key(&self.hash, exp, cell), host: host(), timing: *timing };
        if let Ok(bytes) = postcard::to_stdvec(&stored).map(seal) {
            self.write(&self.timing_path(cell), &bytes);
        }
    }

    /// Writes `bytes` to `path` through a temporary file renamed over it. Created new (O_EXCL)
    /// without following links: a link planted at the temporary name is removed as a link, never
    /// written through; rename replaces a link at the final name itself, not its target.
    fn write(&self, path: &Path, bytes: &[u8]) {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let _ = std::fs::remove_file(&tmp);
        let created = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new().write(true).create_new(true).custom_flags(libc::O_NOFOLLOW).open(&tmp)
        };
        if let Ok(mut f) = created
            && std::io::Write::write_all(&mut f, bytes).is_ok()
        {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}

/// What one shard of a sweep computed, with what identifies the sweep.
#[derive(Serialize, Deserialize)]
pub struct ShardFile {
    /// The build that computed it ([`build_id`]).
    pub build: String,
    /// The identity of the sweep's results ([`Experiment::identity`]): SHA-256 of the config text
    /// and of every model and reference file it read.
    pub config_hash: String,
    /// The config file as given on the command line (reference files are relative to it).
    pub config_file: String,
    /// The config text.
    pub config_text: String,
    /// This shard, 1-based.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
    /// Cells in the whole sweep.
    pub total_cells: usize,
    /// The cells of this shard (indices into the sweep's cells).
    pub cells: Vec<usize>,
    /// Their results, in the same order.
    pub results: Vec<RunResult>,
    /// Their timings, in the same order.
    pub timings: Vec<Timing>,
    /// Worker threads of the shard's run.
    pub threads: usize,
    /// The core its timing pass was pinned to, if pinned.
    pub timing_core: Option<usize>,
    /// Where its cells were timed (host, CPU model, core).
    pub timed_by: super::timing::TimedBy,
}

/// The file name of a shard's data inside its directory.
pub const SHARD_FILE: &str = "shard.bin";

impl ShardFile {
    /// Reads `<dir>/shard.bin`.
    pub fn read(dir: &Path) -> Result<ShardFile, StoreError> {
        let path = dir.join(SHARD_FILE);
        super::config::refuse_special(&path).map_err(|m| crate::input::FileError::new(&path, m.to_string()))?;
        let bytes = std::fs::read(&path).map_err(|e| {
            crate::input::FileError::new(dir, format!("not a shard directory: {}", super::grid::io_reason(&e)))
        })?;
        let damaged = |what: &str| StoreError::Damaged(format!("`{}` is damaged{what}", path.display()));
        let data = unseal(&bytes).ok_or_else(|| damaged(": its checksum does not match its contents"))?;
        postcard::from_bytes(data).map_err(|_| damaged(" or from another format"))
    }

    /// Restores the energy scales of the results from the experiment's scenes.
    pub fn restore(self, exp: &Experiment, cells: &[Cell]) -> Vec<(usize, RunResult, Timing)> {
        let ShardFile { cells: ids, results, timings, .. } = self;
        ids.into_iter().zip(results).zip(timings).map(|((id, r), t)| (id, restore(exp, &cells[id], r), t)).collect()
    }
}

/// Estimated work of a cell (for balancing shards): steps × state size × evaluations per step.
fn work(exp: &Experiment, cell: &Cell) -> f64 {
    let s = &exp.variants[cell.variant].scene.system;
    let size = (s.nq() + s.ndof() + s.nrows()) as f64;
    let steps = match cell.step.control {
        crate::integrator::Control::Fixed { h } => exp.duration / h,
        // An adaptive method's steps grow like tol^(-1/order); 100 per decade is a rough scale.
        crate::integrator::Control::Adaptive { rtol, .. } => 100.0 * (-rtol.log10()).max(1.0),
    };
    let stages = cell.integrator.map_or(1.0, |i| exp.integrators[i].entry.order.max(1) as f64);
    steps * size * stages
}

/// The cells of shard `index` (1-based) of `count`: the largest estimated work first, each to the
/// shard with the least so far (ties: the lower shard, then the lower cell index), returned in
/// cell order. Deterministic: every shard computes the same partition.
pub fn shard_cells(exp: &Experiment, cells: &[Cell], index: usize, count: usize) -> Vec<Cell> {
    let mut order: Vec<(f64, usize)> = cells.iter().map(|c| (work(exp, c), c.id)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut load = vec![0.0f64; count];
    let mut owner = vec![0usize; cells.len()];
    for (w, id) in order {
        let k = (0..count).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        load[k] += w;
        owner[id] = k;
    }
    cells.iter().filter(|c| owner[c.id] + 1 == index).cloned().collect()
}

/// The cells a `--cells` selection names: comma-separated indices (`3`), ranges (`5-9`) and
/// filters `key=value` (keys: formulation, solver, integrator, stabilizer, variant, step; a value
/// matches a label or a registry name). Indices and ranges add cells; filters, if any, keep only the
/// cells matching all of them. One flag per cell of `cells`.
pub fn select(exp: &Experiment, cells: &[Cell], total: usize, spec: &str) -> Result<Vec<bool>, StoreError> {
    const KEYS: &str = "formulation, solver, integrator, stabilizer, variant, step";
    let short = crate::params::short;
    let mut by_index: Option<std::collections::BTreeSet<usize>> = None;
    let mut filters: Vec<(&str, &str)> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some((k, v)) = item.split_once('=') {
            let k = k.trim();
            if !KEYS.split(", ").any(|x| x == k) {
                return Err(selection!("--cells: unknown key `{}`; expected one of: {KEYS}", short(k)));
            }
            filters.push((k, v.trim()));
            continue;
        }
        let (a, b) = item.split_once('-').unwrap_or((item, item));
        let parse = |x: &str| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| selection!("--cells: `{}` is not an index, a range a-b or key=value", short(item)))
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if a > b || b >= total {
            return Err(selection!("--cells: `{}` is outside the cells 0-{}", short(item), total.saturating_sub(1)));
        }
        by_index.get_or_insert_with(Default::default).extend(a..=b);
    }
    let matches = |c: &Cell, key: &str, want: &str| {
        let (label, name) = match key {
            "formulation" => {
                (exp.formulations[c.formulation].label.as_str(), exp.formulations[c.formulation].entry.name)
            }
            "solver" => (exp.solvers[c.solver].label.as_str(), exp.solvers[c.solver].entry.name),
            "integrator" => (exp.integrator_label(c), exp.integrator_label(c)),
            "stabilizer" => (exp.stabilizers[c.stabilizer].label.as_str(), exp.stabilizers[c.stabilizer].entry.name),
            "variant" => (exp.variants[c.variant].label.as_str(), exp.variants[c.variant].label.as_str()),
            _ => (c.step.label.as_str(), c.step.label.as_str()),
        };
        label == want || name == want
    };
    let flags: Vec<bool> = cells
        .iter()
        .map(|c| by_index.as_ref().is_none_or(|f| f.contains(&c.id)) && filters.iter().all(|(k, v)| matches(c, k, v)))
        .collect();
    if !flags.iter().any(|&f| f) {
        return Err(selection!("--cells `{}` selects no cell", short(spec)));
    }
    Ok(flags)
}

/// A sweep put together from its shards.
pub struct Merged {
    /// The experiment, from the config text the shards carry.
    pub exp: Experiment,
    /// Every cell of the sweep.
    pub cells: Vec<Cell>,
    /// Their results, in cell order.
    pub results: Vec<RunResult>,
    /// Their timings, in cell order.
    pub timings: Vec<Timing>,
    /// The most worker threads a shard used.
    pub threads: usize,
    /// The core the first shard's timing pass was pinned to.
    pub timing_core: Option<usize>,
    /// Where each cell was timed (its shard's host, CPU model and core), in cell order.
    pub timed_by: Vec<super::timing::TimedBy>,
    /// Number of shards.
    pub count: usize,
    /// The build that computed the shards ([`build_id`] as they recorded it).
    pub build: String,
}

/// Sorted indices as Slurm's array syntax: runs of consecutive numbers as `a-b`, e.g. `1-3,7`.
pub(crate) fn index_ranges(sorted: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let start = sorted[k];
        while k + 1 < sorted.len() && sorted[k + 1] == sorted[k] + 1 {
            k += 1;
        }
        out.push(if sorted[k] == start { start.to_string() } else { format!("{start}-{}", sorted[k]) });
        k += 1;
    }
    out.join(",")
}

/// Fails unless every shard is of the first one's config, build and shard count.
fn same_sweep(shards: &[(String, ShardFile)]) -> Result<(), StoreError> {
    let (first_dir, first) = &shards[0];
    for (d, s) in &shards[1..] {
        if s.config_hash != first.config_hash {
            return Err(not_one!(
                "`{d}` is a shard of another config (SHA-256 {}…, `{}`) than `{first_dir}` ({}…, `{}`)",
                s.config_hash.get(..12).unwrap_or(&s.config_hash),
                s.config_file,
                first.config_hash.get(..12).unwrap_or(&first.config_hash),
                first.config_file
            ));
        }
        if s.build != first.build {
            return Err(not_one!("`{d}` was computed by tinkertoy {} and `{first_dir}` by {}", s.build, first.build));
        }
        if s.count != first.count {
            return Err(not_one!(
                "`{d}` is shard {}/{} but `{first_dir}` is {}/{}",
                s.index,
                s.count,
                first.index,
                first.count
            ));
        }
    }
    Ok(())
}

/// Reads the shard directories and checks that they are one sweep: one config and build, every
/// shard once, every cell in exactly one shard. The error is one line naming the directory at fault.
pub fn merge_shards(dirs: &[PathBuf]) -> Result<Merged, StoreError> {
    let mut shards = Vec::new();
    for d in dirs {
        shards.push((d.display().to_string(), ShardFile::read(d)?));
    }
    same_sweep(&shards)?;
    let (first_dir, first) = &shards[0];
    let n = first.count;
    let mut missing = Vec::new();
    for i in 1..=n {
        let with: Vec<&str> = shards.iter().filter(|(_, s)| s.index == i).map(|(d, _)| d.as_str()).collect();
        match with.len() {
            0 => missing.push(i),
            1 => {}
            _ => return Err(not_one!("shard {i}/{n} is given twice: `{}` and `{}`", with[0], with[1])),
        }
    }
    if !missing.is_empty() {
        let ranges = index_ranges(&missing);
        return Err(not_one!(
            "{} of {n} shards missing: {ranges} ({} shard directories given); rerun them, e.g. sbatch --array={ranges} scripts/slurm_sweep.sh CONFIG {n}",
            missing.len(),
            dirs.len(),
        ));
    }
    let exp = super::grid::from_text(&first.config_file, &first.config_text)?;
    if exp.identity() != first.config_hash {
        return Err(not_one!(
            "`{first_dir}`: the config text or a file it reads ({}) differs from what the shards were computed with; rerun the shards",
            exp.inputs().iter().map(|(f, _)| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    let cells = exp.cells();
    let mut owner: Vec<Option<usize>> = vec![None; cells.len()];
    for (d, s) in &shards {
        if s.total_cells != cells.len() {
            return Err(not_one!("`{d}` counts {} cells; the config gives {}", s.total_cells, cells.len()));
        }
        for &id in &s.cells {
            if id >= cells.len() || owner[id].is_some() {
                return Err(not_one!("cell {id} of `{d}` is outside the sweep or in two shards"));
            }
            owner[id] = Some(s.index);
        }
    }
    if let Some(id) = owner.iter().position(Option::is_none) {
        return Err(not_one!("cell {id} ({}) is in no shard", exp.cell_label(&cells[id])));
    }
    let threads = shards.iter().map(|(_, s)| s.threads).max().unwrap_or(1);
    let timing_core = first.timing_core;
    let build = first.build.clone();
    let mut slots: Vec<Option<(RunResult, Timing)>> = (0..cells.len()).map(|_| None).collect();
    let mut timed_by = vec![super::timing::TimedBy::default(); cells.len()];
    for (_, s) in shards {
        let by = s.timed_by.clone();
        for (id, r, t) in s.restore(&exp, &cells) {
            slots[id] = Some((r, t));
            timed_by[id] = by.clone();
        }
    }
    let (results, timings) = slots.into_iter().map(|x| x.expect("every cell is covered")).unzip();
    Ok(Merged { exp, cells, results, timings, threads, timing_core, timed_by, count: n, build })
}
