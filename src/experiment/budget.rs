//! The work and memory budget of a run, checked before anything is computed.
//!
//! A config asks for cells (the cross product), steps per cell, samples, recorded values and memory.
//! Each is bounded by a limit with a default ([`LIMITS`]), set in the config's `limits:` section or
//! with `--limit NAME=VALUE`. The checks run in three stages, each before the work it bounds:
//! counts (variants, cells, steps, samples) before any scene is built; scene sizes, from the
//! parameters alone ([`crate::scene::registry::SceneParams::size`]), before the scenes are built;
//! and the memory of every cell (its formulation's system, its solver's matrices and factors —
//! the sparse factors' sizes from the same symbolic analysis the solvers do — its states and
//! samples) and of the whole run at the chosen thread count (the largest cells running at once, every
//! scene, every cell's kept results) before the first cell starts.
//!
//! Memory figures are estimates from the sizes of the buffers each component allocates, rounded
//! up; they are bounds to refuse runs that cannot fit, not measurements.

use super::config::{ConfigError, at};
use super::grid::{Cell, Experiment, err};
use crate::formulation::registry::{FormulationKind, SystemKind};
use crate::linsolve::registry::Footprint;
use crate::params::fmt_num;
use crate::scene::registry::SceneSize;
use crate::sparse::NormalMatrix;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// One limit: config name, default, what it bounds.
pub struct LimitSpec {
    /// Name in `limits:` and `--limit`.
    pub name: &'static str,
    /// Default value.
    pub default: f64,
    /// What it bounds, with its unit.
    pub describes: &'static str,
}

/// Every limit, with its default.
pub(crate) const LIMITS: [LimitSpec; 8] = [
    LimitSpec { name: "cells", default: 20_000.0, describes: "cells in the cross product" },
    LimitSpec { name: "variants", default: 1_000.0, describes: "scene variants (combinations of swept parameters)" },
    LimitSpec {
        name: "steps_per_cell",
        default: 1e7,
        describes: "steps of one cell: duration / h for fixed steps; an adaptive cell that reaches it fails",
    },
    LimitSpec { name: "samples", default: 5e6, describes: "samples kept over all cells (rows of runs.csv)" },
    LimitSpec {
        name: "cell_memory_mb",
        default: 4096.0,
        describes: "estimated memory of one cell [MB]: system, solver, workspaces, samples",
    },
    LimitSpec {
        name: "run_memory_mb",
        default: 12288.0,
        describes: "estimated memory of the run [MB]: the largest cells running at once on the worker threads, scenes, kept results",
    },
    LimitSpec {
        name: "cell_seconds",
        default: 1800.0,
        describes: "wall-clock time of one cell [s]; a cell that exceeds it fails with `time budget`",
    },
    LimitSpec { name: "threads", default: 256.0, describes: "worker threads (`--threads`)" },
];

/// One limit, by name in code (its config name is [`Limit::spec`]'s): reads are typed, only the
/// config and the command line spell limits as strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `cells`.
    Cells,
    /// `variants`.
    Variants,
    /// `steps_per_cell`.
    StepsPerCell,
    /// `samples`.
    Samples,
    /// `cell_memory_mb`.
    CellMemoryMb,
    /// `run_memory_mb`.
    RunMemoryMb,
    /// `cell_seconds`.
    CellSeconds,
    /// `threads`.
    Threads,
}

impl Limit {
    /// Every limit, in [`LIMITS`] order.
    pub const ALL: [Limit; LIMITS.len()] = [
        Limit::Cells,
        Limit::Variants,
        Limit::StepsPerCell,
        Limit::Samples,
        Limit::CellMemoryMb,
        Limit::RunMemoryMb,
        Limit::CellSeconds,
        Limit::Threads,
    ];

    /// Its name, default and meaning.
    pub fn spec(self) -> &'static LimitSpec {
        &LIMITS[self as usize]
    }
}

/// The limits of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Values in [`LIMITS`] order.
    values: [f64; LIMITS.len()],
}

impl Default for Limits {
    fn default() -> Self {
        Limits { values: LIMITS.map(|l| l.default) }
    }
}

impl Limits {
    /// The value of a limit.
    pub fn get(&self, limit: Limit) -> f64 {
        self.values[limit as usize]
    }

    /// The most steps a cell may take.
    pub fn max_steps(&self) -> u64 {
        self.get(Limit::StepsPerCell) as u64
    }

    /// The wall-clock budget of one cell \[s\].
    pub fn cell_seconds(&self) -> f64 {
        self.get(Limit::CellSeconds)
    }

    fn set(&mut self, name: &str, value: f64) -> Result<(), LimitError> {
        let Some(i) = LIMITS.iter().position(|l| l.name == name) else {
            return Err(LimitError::Unknown(name.into()));
        };
        if !(value.is_finite() && value >= 1.0) {
            return Err(LimitError::Invalid { name: LIMITS[i].name, value });
        }
        self.values[i] = value;
        Ok(())
    }

    /// The config's `limits:` over the defaults, then the command line's `--limit` overrides.
    pub fn resolve(
        file: &str,
        raw: Option<&Spanned<BTreeMap<String, Spanned<f64>>>>,
        overrides: &[(String, f64)],
    ) -> Result<Limits, ConfigError> {
        let mut limits = Limits::default();
        for (k, v) in raw.map(|r| r.value.iter()).into_iter().flatten() {
            limits.set(k, v.value).or_else(|e| err(file, at(v), format!("field `limits.{}`: {e}", short_key(k))))?;
        }
        for (k, v) in overrides {
            limits.set(k, *v).or_else(|e| err(file, None, format!("--limit: {e}")))?;
        }
        Ok(limits)
    }
}

fn short_key(k: &str) -> String {
    crate::params::short(k)
}

/// A limit that cannot be set as given.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum LimitError {
    /// No limit of that name.
    #[error(
        "unknown limit `{}`; expected one of: {}",
        crate::params::short(.0),
        LIMITS.iter().map(|l| l.name).collect::<Vec<_>>().join(", ")
    )]
    Unknown(String),
    /// A value below 1 or not finite.
    #[error("limit `{name}` = {} is invalid; expected a finite number >= 1", fmt_num(*value))]
    Invalid {
        /// The limit.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// An override that is not `NAME=VALUE`.
    #[error("`{}` is not NAME=VALUE", crate::params::short(.0))]
    NotNameValue(String),
    /// A value that is not a number.
    #[error("`{}` is not a number", crate::params::short(.0))]
    NotNumber(String),
}

/// Parses one `--limit NAME=VALUE` argument.
pub(crate) fn parse_override(arg: &str) -> Result<(String, f64), LimitError> {
    let Some((k, v)) = arg.split_once('=') else {
        return Err(LimitError::NotNameValue(arg.into()));
    };
    let value = v.trim().parse::<f64>().map_err(|_| LimitError::NotNumber(v.into()))?;
    let mut probe = Limits::default();
    probe.set(k.trim(), value)?;
    Ok((k.trim().to_string(), value))
}

/// Megabytes, for messages.
fn mb(bytes: u64) -> String {
    fmt_num((bytes as f64 / 1e6).ceil())
}

/// Bytes one kept sample takes: its time, metrics and the recorded vectors and outputs.
fn sample_bytes(recorded_values: usize) -> u64 {
    // Sample: ~16 scalars, six Vec headers, the recorded values.
    16 * 8 + 6 * 24 + 8 * recorded_values as u64
}

/// The memory of one cell, by part.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellMemory {
    /// The formulation's own matrices (`lagrangian`'s joint tree and loop-closure system).
    pub system: u64,
    /// The solver's matrices, factors and vectors (twice with a projecting stabilizer).
    pub solver: u64,
    /// States, the Jacobian, integrator stages and the per-step timing buffer.
    pub workspace: u64,
    /// Samples kept to the end of the run.
    pub samples: u64,
}

impl CellMemory {
    /// All of it \[bytes\].
    pub fn total(&self) -> u64 {
        self.system.saturating_add(self.solver).saturating_add(self.workspace).saturating_add(self.samples)
    }
}

/// The bytes a run writes into its reports directory for cells with these estimates: each kept
/// sample once in the per-cell store (binary, as kept in memory; a shard's file holds it again),
/// and as text in the report's CSV files, where a number takes about 2.75 times its 8 bytes
/// (up to 22 characters) — 5 times the kept samples in all — and 16 MB for the figures and
/// the report.
pub(crate) fn disk_bytes(cells: &[CellMemory]) -> u64 {
    let samples: u64 = cells.iter().map(|m| m.samples).fold(0, u64::saturating_add);
    samples.saturating_mul(5).saturating_add(16_000_000)
}

/// The bytes free to this user on the file system that holds `dir`, or its nearest existing
/// ancestor (`dir` may not exist yet); None where the system does not say.
pub(crate) fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let existing = dir.ancestors().find(|d| d.as_os_str().is_empty() || d.exists())?;
    let path = if existing.as_os_str().is_empty() { std::path::Path::new(".") } else { existing };
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a valid, writable statvfs.
    let r = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    (r == 0).then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Samples one cell keeps (the initial state, one per interval, the probes).
pub(super) fn samples_per_cell(duration: f64, interval: f64, probes: usize) -> f64 {
    (duration / interval - 1e-9).ceil().max(1.0) + 1.0 + probes as f64
}

/// Checks what can be counted before any scene is built: scene variants, cells, steps per cell and
/// samples; then the scenes' sizes from their parameters. `combos` is the variants' count,
/// `per_variant` the cells of one variant.
pub(super) fn check_counts(
    file: &str,
    raw: &super::config::RawConfig,
    limits: &Limits,
    (combos, per_variant): (f64, u64),
    steps: &[super::grid::StepChoice],
    (duration, sample_interval): (f64, f64),
) -> Result<(), ConfigError> {
    let over = |limit: Limit, n: f64| n > limits.get(limit);
    if over(Limit::Variants, combos) {
        return err(
            file,
            raw.scene.at(),
            format!(
                "field `scene.params`: the swept parameters give {} scene variants; `limits.variants` = {} — sweep fewer values or raise the limit",
                fmt_num(combos),
                fmt_num(limits.get(Limit::Variants))
            ),
        );
    }
    let cells = combos * per_variant as f64;
    if over(Limit::Cells, cells) {
        return err(
            file,
            at(&raw.formulations),
            format!(
                "the config asks for {} cells ({} scene variant(s) × {per_variant} per variant); `limits.cells` = {} — sweep fewer items or raise the limit",
                fmt_num(cells),
                fmt_num(combos),
                fmt_num(limits.get(Limit::Cells))
            ),
        );
    }
    for (i, s) in steps.iter().enumerate() {
        if let crate::integrator::Control::Fixed { h } = s.control {
            let n = (duration / h).ceil();
            if over(Limit::StepsPerCell, n) {
                let loc = raw.steps.as_ref().and_then(|l| at(&l.value[i]));
                return err(
                    file,
                    loc,
                    format!(
                        "field `steps[{i}]` = {}: {} steps over duration {duration} s; `limits.steps_per_cell` = {} — use a larger step, a shorter duration, or raise the limit",
                        crate::params::short(&s.label),
                        fmt_num(n),
                        fmt_num(limits.get(Limit::StepsPerCell))
                    ),
                );
            }
        }
    }
    let samples = cells * samples_per_cell(duration, sample_interval, 0);
    if over(Limit::Samples, samples) {
        return err(
            file,
            at(&raw.sample_interval),
            format!(
                "field `sample_interval` = {sample_interval}: {} cells keep {} samples in all; `limits.samples` = {} — sample less often, run fewer cells, or raise the limit",
                fmt_num(cells),
                fmt_num(samples),
                fmt_num(limits.get(Limit::Samples))
            ),
        );
    }
    Ok(())
}

/// Checks the scenes' sizes, from their parameters, before building them: the memory of each
/// built scene and of all together.
pub(super) fn check_scene_sizes(
    file: &str,
    raw: &super::config::RawConfig,
    limits: &Limits,
    sizes: &[Option<SceneSize>],
) -> Result<(), ConfigError> {
    let mut total = 0u64;
    for s in sizes.iter().flatten() {
        let bytes = s.bytes();
        total = total.saturating_add(bytes);
        let limit = limits.get(Limit::CellMemoryMb);
        if bytes as f64 > limit * 1e6 {
            return err(
                file,
                raw.scene.at(),
                format!(
                    "field `scene.params`: a scene of {} bodies and {} constraint rows would take about {} MB to build; `limits.cell_memory_mb` = {} — choose a smaller scene or raise the limit",
                    s.bodies,
                    s.rows,
                    mb(bytes),
                    fmt_num(limit)
                ),
            );
        }
    }
    let limit = limits.get(Limit::RunMemoryMb);
    if total as f64 > limit * 1e6 {
        return err(
            file,
            raw.scene.at(),
            format!(
                "field `scene.params`: the scene variants would take about {} MB together; `limits.run_memory_mb` = {} — sweep fewer or smaller scenes, or raise the limit",
                mb(total),
                fmt_num(limit)
            ),
        );
    }
    Ok(())
}

/// The patterns of J W Jᵀ per variant and shape and the (system, solver) footprints per variant,
/// formulation, solver and projection, built once, only for the shapes the config uses.
#[derive(Default)]
struct Footprints {
    patterns: BTreeMap<(usize, bool), NormalMatrix>,
    sizes: BTreeMap<(usize, usize, usize, bool), (u64, u64)>,
}

impl Footprints {
    /// The bytes of cell `c`'s dense system (formulations in joint coordinates) and of its solver
    /// (twice with a projecting stabilizer, which has a solver of its own).
    fn system_and_solver(&mut self, exp: &Experiment, c: &Cell) -> (u64, u64) {
        let v = &exp.variants[c.variant];
        let (f, s) = (&exp.formulations[c.formulation], &exp.solvers[c.solver]);
        let projecting = exp.stabilizers[c.stabilizer].entry.name != "none";
        let key = (c.variant, c.formulation, c.solver, projecting);
        if let Some(x) = self.sizes.get(&key) {
            return *x;
        }
        let (system, footprint_solver) = match f.entry.system {
            SystemKind::LoopClosure => match crate::multibody::footprint(&v.scene.system) {
                Ok((bytes, loop_rows)) => (bytes, (s.entry.memory)(&Footprint::Dense(loop_rows))),
                Err(_) => (0, 0), // not applicable on this scene
            },
            shape => {
                let stiff = shape == SystemKind::NormalWithStiffness;
                let sys = &v.scene.system;
                let layout = if stiff { sys.jacobian_layout_with_stiffness_rows() } else { sys.jacobian_layout() };
                // J W Jᵀ's pattern, which every cell on it assembles, counted before it is built:
                // past the cell's limit the cell is refused without building it
                let pattern_bytes = NormalMatrix::build_bytes(&layout);
                if pattern_bytes as f64 > exp.limits.get(Limit::CellMemoryMb) * 1e6 {
                    (pattern_bytes, 0)
                } else {
                    let pattern = self.patterns.entry((c.variant, stiff)).or_insert_with(|| NormalMatrix::new(&layout));
                    (pattern_bytes, (s.entry.memory)(&Footprint::Normal(pattern)))
                }
            }
        };
        let solver = if projecting { footprint_solver.saturating_mul(2) } else { footprint_solver };
        self.sizes.insert(key, (system, solver));
        (system, solver)
    }
}

/// The length of the state an implicit integrator's dense matrices are square in: q and v, and a
/// DAE's multipliers.
fn dense_state(kind: FormulationKind, size: &SceneSize) -> u64 {
    let multipliers = if kind == FormulationKind::Dae { size.rows } else { 0 };
    (size.nq + size.ndof + multipliers) as u64
}

impl Experiment {
    /// The estimated memory of cell `c`.
    fn cell_memory(&self, c: &Cell, footprints: &mut Footprints) -> CellMemory {
        let v = &self.variants[c.variant];
        let size = SceneSize::of(&v.scene);
        let f = &self.formulations[c.formulation];
        let (system, solver) = footprints.system_and_solver(self, c);
        let steps = match c.step.control {
            crate::integrator::Control::Fixed { h } => (self.duration / h).ceil() as u64 + 1,
            _ => self.limits.max_steps(),
        };
        let recorded = if self.measure.record.is_empty() { 0 } else { size.nq + size.ndof + 3 * size.rows }
            + self.measure.outputs.len();
        let jac = v.scene.system.jacobian_layout().nnz() as u64;
        // The integrator's stages and dense-output storage on the formulation's state (at
        // most q and v), plus the formulation's, probe's and stabilizer's vectors.
        let (stages, matrices) = c
            .integrator
            .and_then(|i| self.integrators[i].entry.build(c.step.control).ok())
            .map_or((0, 0), |i| (i.workspace_vectors() as u64, i.workspace_matrices() as u64));
        let state = dense_state(f.entry.kind, &size);
        // the formulation's own (e.g. midpoint's Krylov basis), on the rows it solves
        let own_rows = if f.entry.system == SystemKind::NormalWithStiffness {
            footprints.patterns.get(&(c.variant, true)).map_or(size.rows, |p| p.dim())
        } else {
            size.rows
        };
        let own = (f.entry.workspace)(&f.params, own_rows, size.nq + size.ndof);
        let workspace = 8 * ((24 + stages) * (size.nq + size.ndof) as u64 + 24 * size.rows as u64)
            + 3 * 16 * jac
            + 8 * matrices * state.saturating_mul(state)
            + 8 * steps.min(STEP_TIMES_CAP as u64)
            + own;
        let probes = self.probe_times.len();
        let n_samples = samples_per_cell(self.duration, self.sample_interval, probes) as u64;
        CellMemory { system, solver, workspace, samples: n_samples * sample_bytes(recorded) }
    }

    /// The name of cell `c`'s integrator and the bytes of its dense matrices, if it keeps any
    /// (an implicit method's Jacobian and factors).
    fn dense_integrator_bytes(&self, c: &Cell, size: &SceneSize) -> Option<(&'static str, u64)> {
        let entry = self.integrators[c.integrator?].entry;
        let matrices = entry.build(c.step.control).ok()?.workspace_matrices() as u64;
        let n = dense_state(self.formulations[c.formulation].entry.kind, size);
        (matrices > 0).then(|| (entry.name, 8 * matrices * n.saturating_mul(n)))
    }

    /// Cell `c`'s estimate `m` against `limits.cell_memory_mb`, the error naming its largest part.
    fn check_cell_memory(&self, c: &Cell, m: &CellMemory) -> Result<(), ConfigError> {
        let limit = self.limits.get(Limit::CellMemoryMb) * 1e6;
        if m.total() as f64 <= limit {
            return Ok(());
        }
        let (f, s) = (&self.formulations[c.formulation], &self.solvers[c.solver]);
        let size = SceneSize::of(&self.variants[c.variant].scene);
        let mut dense = false;
        let what = if m.solver >= m.system && m.solver >= m.workspace && m.solver >= m.samples {
            format!("solver `{}` needs about {} MB", s.label, mb(m.solver))
        } else if m.system >= m.workspace && m.system >= m.samples {
            if f.entry.system == SystemKind::LoopClosure {
                format!("formulation `{}` needs about {} MB for its dense system", f.label, mb(m.system))
            } else {
                format!(
                    "assembling J W Jᵀ needs about {} MB: its rows share bodies, and every pair of rows on one body is an entry",
                    mb(m.system)
                )
            }
        } else if m.samples >= m.workspace {
            format!("its samples need about {} MB", mb(m.samples))
        } else if let Some((name, bytes)) = self.dense_integrator_bytes(c, &size) {
            dense = true;
            format!(
                "integrator `{name}` keeps dense n x n matrices, n = {} (positions and velocities): about {} MB",
                size.nq + size.ndof,
                mb(bytes)
            )
        } else {
            format!("its states and workspaces need about {} MB", mb(m.workspace))
        };
        err(
            &self.file,
            None,
            format!(
                "field `limits.cell_memory_mb` = {}: cell `{}` would need about {} MB ({what}, on {} constraint rows and {} coordinates) — choose {}, a smaller scene, or raise the limit",
                fmt_num(self.limits.get(Limit::CellMemoryMb)),
                self.cell_label(c),
                mb(m.total()),
                size.rows,
                size.nq,
                if dense { "an explicit integrator" } else { "a sparse or matrix-free solver" }
            ),
        )
    }
}

/// The per-step timing buffer holds at most this many entries (then it keeps every other one).
pub(crate) const STEP_TIMES_CAP: usize = 1 << 20;

impl Experiment {
    /// The estimated memory of every cell, in cell order, and of the run with `threads` workers;
    /// an error naming the first cell or the run that exceeds its limit.
    pub fn check_memory(&self, cells: &[Cell], threads: usize) -> Result<Vec<CellMemory>, ConfigError> {
        let mut footprints = Footprints::default();
        let mut out = Vec::with_capacity(cells.len());
        for c in cells {
            let m = self.cell_memory(c, &mut footprints);
            self.check_cell_memory(c, &m)?;
            out.push(m);
        }
        let file = &self.file;
        let (at_once, scenes, kept) = self.run_memory_parts(&out, threads);
        let total = at_once.saturating_add(scenes).saturating_add(kept);
        let limit = self.limits.get(Limit::RunMemoryMb);
        if total as f64 > limit * 1e6 {
            return err(
                file,
                None,
                format!(
                    "field `limits.run_memory_mb` = {}: the run would need about {} MB ({} MB for the {} largest cells running at once on {threads} thread(s), {} MB of scenes, {} MB of kept samples) — use fewer threads, fewer or smaller cells, or raise the limit",
                    fmt_num(limit),
                    mb(total),
                    mb(at_once),
                    threads.min(out.len()),
                    mb(scenes),
                    mb(kept)
                ),
            );
        }
        Ok(out)
    }

    /// The run's memory \[bytes\]: the `threads` largest cells at once, every scene, every cell's
    /// kept samples.
    pub fn run_memory(&self, cells: &[CellMemory], threads: usize) -> u64 {
        let (a, b, c) = self.run_memory_parts(cells, threads);
        a.saturating_add(b).saturating_add(c)
    }

    fn run_memory_parts(&self, cells: &[CellMemory], threads: usize) -> (u64, u64, u64) {
        let mut working: Vec<u64> = cells.iter().map(|m| m.total() - m.samples).collect();
        working.sort_unstable_by(|a, b| b.cmp(a));
        let at_once: u64 = working.iter().take(threads.max(1)).sum();
        let scenes: u64 = self.variants.iter().map(|v| SceneSize::of(&v.scene).bytes()).sum();
        let kept: u64 = cells.iter().map(|m| m.samples).sum();
        (at_once, scenes, kept)
    }

    /// `variant / formulation / solver / integrator / stabilizer / step` of a cell, for messages.
    pub fn cell_label(&self, c: &Cell) -> String {
        format!(
            "{} / {} / {} / {} / {} / {}",
            self.variants[c.variant].label,
            self.formulations[c.formulation].label,
            self.solvers[c.solver].label,
            self.integrator_label(c),
            self.stabilizers[c.stabilizer].label,
            c.step.label
        )
    }
}
