//! An experiment: a validated config expanded into its cross product of cells.
//!
//! Cells = scene variants × formulations × solvers × (integrators × step controls) × stabilizers,
//! where the formulation's kind decides the time axis: an ODE formulation pairs with every
//! integrator (fixed-step ones with every entry of `steps`, adaptive ones with every entry of
//! `tolerances`); a stepping formulation is its own integrator and pairs with every entry of
//! `steps`. A formulation pairs with the solvers that take the kind of system it solves
//! (`experiment::pairing`). A pairing that cannot run is not a cell; a listed item that would end up in
//! no cell is a config error, so nothing is silently dropped. Cells that can run in principle but
//! not on this scene (a contact scene for an equality-only formulation) are kept and reported as
//! not applicable with the reason.

use super::axes::{check_name, check_step_axes, fixed_steps, method_axes, time_axis, tolerance_list};
use super::budget::Limits;
use super::cell::CellSpec;
pub use super::config::{CONFIG_MAX_BYTES, io_reason};
use super::config::{ConfigError, RawConfig, RawItem, at, check_label, parse};
use super::contained::run_contained;
use super::goal::{Goals, goals};
use super::measure::{Axis, Measurements, measurements};
use super::pairing::{cells_per_variant, check_pairings, pairs_with};
use super::runner::RunResult;
use crate::formulation::registry::{FormulationEntry, FormulationKind};
use crate::integrator::Control;
use crate::integrator::registry::{IntegratorEntry, IntegratorKind};
use crate::linsolve::registry::SolverEntry;
use crate::params::{self, ParamTable, Resolved, Scalar};
use crate::scene::{Output, Scene};
use crate::stabilization::registry::StabilizerEntry;
use rayon::prelude::*;
use serde_saphyr::Spanned;

/// A registry item chosen by the config, with its resolved parameters and display label.
pub struct Item<E: 'static> {
    /// The registry entry.
    pub entry: &'static E,
    /// Resolved parameters.
    pub params: Resolved,
    /// Display label: the config's `label`, or the name with the parameters given.
    pub label: String,
}

/// One value of the step-control axis.
#[derive(Clone, Debug, PartialEq)]
pub struct StepChoice {
    /// Step size or tolerances.
    pub control: Control,
    /// As written in the config (e.g. `1/60`, `1e-9`).
    pub label: String,
    /// A fixed step as the exact fraction p/q it was written as (`1/60`, `0.0025` = 25/10000), so
    /// that step boundaries n·h print as the decimal of n·p/q; None for tolerances or other text.
    pub fraction: Option<(u64, u64)>,
}

/// One scene built from one combination of swept parameters.
pub struct Variant {
    /// Label (`n=100`, or the scene name when nothing is swept).
    pub label: String,
    /// The parameters given.
    pub params: Vec<(String, Scalar)>,
    /// The built scene.
    pub scene: Scene,
    /// The outputs the config uses, resolved on this scene (in [`Measurements::outputs`] order).
    pub outputs: Vec<Output>,
}

/// A validated experiment.
pub struct Experiment {
    /// Name (the report directory).
    pub name: String,
    /// What it shows.
    pub description: String,
    /// The config file path.
    pub file: String,
    /// The config text (hashed for provenance).
    pub text: String,
    /// Where the mechanism comes from (a registered scene or a model file).
    pub scene: super::source::SceneSource,
    /// Scene variants.
    pub variants: Vec<Variant>,
    /// Formulations.
    pub formulations: Vec<Item<FormulationEntry>>,
    /// Linear solvers.
    pub solvers: Vec<Item<SolverEntry>>,
    /// Integrators.
    pub integrators: Vec<Item<IntegratorEntry>>,
    /// Post-step stabilizers.
    pub stabilizers: Vec<Item<StabilizerEntry>>,
    /// Fixed steps.
    pub steps: Vec<StepChoice>,
    /// Adaptive tolerances.
    pub tolerances: Vec<StepChoice>,
    /// End time \[s\].
    pub duration: f64,
    /// Sample interval \[s\].
    pub sample_interval: f64,
    /// Divergence bound on ‖C‖∞.
    pub divergence_bound: f64,
    /// Recorded quantities and outputs, reference data, events.
    pub measure: Measurements,
    /// The reference file's times, shared by every cell.
    pub probe_times: std::sync::Arc<[f64]>,
    /// Target, ranking key and timing repeats.
    pub goals: Goals,
    /// Bounds on work and memory.
    pub limits: Limits,
}

/// One cell of the grid: indices into the experiment's lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Position in the grid (report order).
    pub id: usize,
    /// Scene variant index.
    pub variant: usize,
    /// Formulation index.
    pub formulation: usize,
    /// Solver index.
    pub solver: usize,
    /// Integrator index; None for a stepping formulation (its own integrator).
    pub integrator: Option<usize>,
    /// Stabilizer index.
    pub stabilizer: usize,
    /// Step control.
    pub step: StepChoice,
}

/// What the integrator column says for a stepping formulation.
pub const OWN_STEPPER: &str = "stepper";

/// Integrators take no parameters (their step control is the `steps` and `tolerances` axes).
pub(super) const NO_PARAMS: ParamTable = ParamTable::of::<params::NoParams>();

pub(super) fn err<T>(file: &str, location: Option<(u32, u32)>, message: String) -> Result<T, ConfigError> {
    Err(ConfigError { file: file.to_string(), location, message })
}

pub(super) fn check_positive(file: &str, field: &str, v: &Spanned<f64>) -> Result<f64, ConfigError> {
    if !(v.value.is_finite() && v.value > 0.0) {
        return err(file, at(v), format!("field `{field}` = {} is invalid; expected a finite number > 0", v.value));
    }
    Ok(v.value)
}

fn label_of(name: &str, given: &[(String, Scalar)]) -> String {
    if given.is_empty() {
        name.to_string()
    } else {
        let p: Vec<String> = given.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{name}({})", p.join(", "))
    }
}

/// Resolves a list of items against a registry given as (name, params) pairs.
pub(super) fn items<E>(
    file: &str,
    field: &str,
    list: &Spanned<Vec<RawItem>>,
    registry: &'static [E],
    name_of: fn(&E) -> &'static str,
    params_of: fn(&E) -> ParamTable,
) -> Result<Vec<Item<E>>, ConfigError> {
    let choices = registry.iter().map(name_of).collect::<Vec<_>>().join(", ");
    if list.value.is_empty() {
        return err(file, at(list), format!("field `{field}` is an empty list; give at least one of: {choices}"));
    }
    let mut out = Vec::new();
    for (i, raw) in list.value.iter().enumerate() {
        let Some(entry) = registry.iter().find(|e| name_of(e) == raw.name.value) else {
            let kind = field.trim_end_matches('s');
            return err(
                file,
                at(&raw.name),
                format!("field `{field}[{i}].name`: unknown {kind} `{}`; expected one of: {choices}", raw.name.value),
            );
        };
        let given: Vec<(String, Scalar)> = raw.params.iter().map(|(k, v)| (k.clone(), v.value)).collect();
        let params =
            (params_of(entry).resolve)(&format!("{field}[{i}] ({})", raw.name.value), &given).map_err(|e| {
                let loc = match &e {
                    params::ParamError::OutOfDomain { name, .. } | params::ParamError::Duplicate { name, .. } => {
                        raw.params.get(name).and_then(at)
                    }
                    params::ParamError::Unknown { name, .. } => raw.params.get(name).and_then(at).or(at(&raw.name)),
                    params::ParamError::Rule { .. } => at(&raw.name),
                };
                ConfigError { file: file.to_string(), location: loc, message: e.to_string() }
            })?;
        if let Some(l) = &raw.label {
            check_label(file, &format!("{field}[{i}].label"), l, at(&raw.name))?;
        }
        let label = raw.label.clone().unwrap_or_else(|| label_of(&raw.name.value, &given));
        if let Some(j) = out.iter().position(|o: &Item<E>| o.label == label) {
            return err(
                file,
                at(&raw.name),
                format!(
                    "field `{field}[{i}]` repeats `{field}[{j}]` (both `{}`); each entry is one row of the report — remove it, change its parameters or give it another `label`",
                    crate::params::short(&label)
                ),
            );
        }
        out.push(Item { entry, params, label });
    }
    Ok(out)
}

/// The smallest tolerance of an adaptive integrator: ten times the unit roundoff 2⁻⁵³, rounded
/// up (Hairer, Nørsett & Wanner's dopri5/dop853 codes refuse smaller ones).
pub const MIN_TOLERANCE: f64 = 2.3e-15;

/// Reads, parses and validates an experiment file; builds its scenes.
pub fn load(file: &str) -> Result<Experiment, ConfigError> {
    load_with(file, &[])
}

/// [`load`] with `--limit` overrides over the config's `limits:`.
pub fn load_with(file: &str, overrides: &[(String, f64)]) -> Result<Experiment, ConfigError> {
    from_text_with(file, &super::config::read_config(file)?, overrides)
}

/// Validates an experiment given as text (`file` names it in errors).
pub fn from_text(file: &str, text: &str) -> Result<Experiment, ConfigError> {
    from_text_with(file, text, &[])
}

/// Longest experiment name, which names its report directory: the report's temporary sibling
/// `.<name>.tmp-<pid>` must fit in a file name (255 bytes).
pub const MAX_NAME: usize = 200;

/// [`from_text`] with `--limit` overrides.
pub fn from_text_with(file: &str, text: &str, overrides: &[(String, f64)]) -> Result<Experiment, ConfigError> {
    let raw: RawConfig = parse(file, text)?;
    let limits = Limits::resolve(file, raw.limits.as_ref(), overrides)?;
    let name = check_name(file, &raw)?;
    let (formulations, solvers, integrators, stabilizers) = method_axes(file, &raw)?;

    let (duration, sample_interval) = time_axis(file, &raw)?;
    let divergence_bound = match &raw.divergence_bound {
        Some(b) => Some(check_positive(file, "divergence_bound", b)?),
        None => None,
    };
    let steps = fixed_steps(file, &raw, duration)?;
    let tolerances = tolerance_list(file, &raw)?;
    check_step_axes(file, &raw, &integrators, &steps, &tolerances)?;

    check_pairings(file, &raw, &formulations, &solvers, &integrators, &steps, &tolerances)?;

    let per_variant =
        cells_per_variant(&formulations, &solvers, &integrators, stabilizers.len(), steps.len(), tolerances.len());
    let (scene, mut variants) =
        super::source::variants(file, &raw, &limits, per_variant, &steps, (duration, sample_interval))?;
    let divergence_bound = divergence_bound.unwrap_or_else(|| scene.default_divergence_bound(&variants));

    let axis = Axis { duration, sample_interval, steps: &steps, cells_per_variant: per_variant as f64 };
    let model_reference = match &scene {
        super::source::SceneSource::Model(info) => info.reference.as_ref(),
        _ => None,
    };
    let measure = measurements(file, &raw, &mut variants, &axis, model_reference)?;
    let has_reference = measure.reference.is_some() || variants.iter().all(|v| v.scene.reference.is_some());
    let driven = variants.iter().any(|v| v.scene.system.constraints().iter().any(|c| c.driving()));
    let mut goals = goals(
        file,
        raw.target.as_ref(),
        raw.rank_by.as_ref(),
        raw.timing.as_ref(),
        (has_reference, driven),
        scene.name(),
    )?;
    goals.energy_window = super::goal::energy_window(file, raw.energy_window.as_ref(), duration)?;

    Ok(Experiment {
        name,
        description: raw.description.trim().to_string(),
        file: file.to_string(),
        text: text.to_string(),
        scene,
        variants,
        formulations,
        solvers,
        integrators,
        stabilizers,
        steps,
        tolerances,
        duration,
        sample_interval,
        divergence_bound,
        probe_times: measure.reference.as_ref().map_or(Vec::new(), |r| r.times.clone()).into(),
        measure,
        goals,
        limits,
    })
}

impl Experiment {
    /// The files besides the config that determine the results, with their SHA-256 (hex): the
    /// model file (its text) and the reference data (the parsed times and values, bit for bit).
    pub fn inputs(&self) -> Vec<(String, String)> {
        use sha2::{Digest, Sha256};
        let mut out = Vec::new();
        if let super::source::SceneSource::Model(m) = &self.scene {
            out.push((m.file.clone(), m.text_hash.clone()));
        }
        if let Some(r) = &self.measure.reference {
            let mut h = Sha256::new();
            for c in &r.columns {
                h.update(c.as_bytes());
                h.update([0u8]);
            }
            for (t, row) in r.times.iter().zip(&r.values) {
                h.update(t.to_bits().to_le_bytes());
                for v in row {
                    h.update(v.to_bits().to_le_bytes());
                }
            }
            out.push((r.file.clone(), h.finalize().iter().map(|b| format!("{b:02x}")).collect()));
        }
        out
    }

    /// The identity of the experiment's results: SHA-256 (hex) of the config text and of every
    /// input ([`Experiment::inputs`]). A stored cell or a shard is reused or merged only under the
    /// same identity, so an edited model or reference file is never published with old numbers.
    pub fn identity(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(self.text.as_bytes());
        for (file, hash) in self.inputs() {
            h.update([0u8]);
            h.update(file.as_bytes());
            h.update([0u8]);
            h.update(hash.as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Every cell, in report order.
    pub fn cells(&self) -> Vec<Cell> {
        let mut out = Vec::new();
        for variant in 0..self.variants.len() {
            for (formulation, f) in self.formulations.iter().enumerate() {
                for (solver, s) in self.solvers.iter().enumerate() {
                    if !pairs_with(f, s) {
                        continue;
                    }
                    // (integrator, its step controls): every integrator for an ODE formulation,
                    // the formulation's own stepping for a stepper.
                    let times: Vec<(Option<usize>, &[StepChoice])> = match f.entry.kind {
                        FormulationKind::Ode | FormulationKind::Dae => self
                            .integrators
                            .iter()
                            .enumerate()
                            .filter(|(_, it)| f.entry.kind.pairs_with_integrator(it.entry))
                            .map(|(i, it)| match it.entry.kind() {
                                IntegratorKind::Adaptive { .. } => (Some(i), self.tolerances.as_slice()),
                                IntegratorKind::Fixed { .. } => (Some(i), self.steps.as_slice()),
                            })
                            .collect(),
                        FormulationKind::Stepper => vec![(None, self.steps.as_slice())],
                    };
                    for (integrator, choices) in times {
                        for stabilizer in 0..self.stabilizers.len() {
                            for step in choices {
                                out.push(Cell {
                                    id: out.len(),
                                    variant,
                                    formulation,
                                    solver,
                                    integrator,
                                    stabilizer,
                                    step: step.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The integrator column of a cell: the integrator's label, or `stepper` for a stepping
    /// formulation (its own integrator).
    pub fn integrator_label(&self, cell: &Cell) -> &str {
        match cell.integrator {
            Some(i) => &self.integrators[i].label,
            None => OWN_STEPPER,
        }
    }

    /// The runner's description of a cell.
    pub fn spec(&self, cell: &Cell) -> CellSpec<'static> {
        CellSpec {
            formulation: self.formulations[cell.formulation].entry,
            formulation_params: self.formulations[cell.formulation].params.clone(),
            solver: self.solvers[cell.solver].entry,
            solver_params: self.solvers[cell.solver].params.clone(),
            integrator: cell.integrator.map(|i| self.integrators[i].entry),
            control: cell.step.control,
            step_fraction: cell.step.fraction,
            duration: self.duration,
            sample_interval: self.sample_interval,
            drift_bound: self.divergence_bound,
            record_state: !self.measure.record.is_empty(),
            outputs: self.variants[cell.variant].outputs.clone(),
            probe_times: self.probe_times.clone(),
            events: self.measure.events.clone(),
            stabilizer: self.stabilizers[cell.stabilizer].entry,
            stabilizer_params: self.stabilizers[cell.stabilizer].params.clone(),
            max_steps: self.limits.max_steps(),
            time_budget: self.limits.cell_seconds(),
        }
    }

    /// Runs every cell in parallel on the current rayon pool; results in cell order whatever the
    /// number of threads. `tick` is called once per finished cell (progress reporting).
    pub fn run_all(&self, cells: &[Cell], tick: &(dyn Fn() + Sync)) -> Vec<RunResult> {
        self.run_cells(cells, &|_, _| tick())
    }

    /// [`Experiment::run_all`], calling `done` with each cell and its result as it finishes (to
    /// store it, say). Cells whose formulation or solver spreads its work over the pool
    /// ([`Params::on_threads`](crate::params::Params::on_threads)) run after the others, one at a
    /// time: a thread waiting on its tasks would otherwise take up another cell's whole run, which
    /// would count against the first cell's `limits.cell_seconds`.
    pub fn run_cells(&self, cells: &[Cell], done: &(dyn Fn(&Cell, &RunResult) + Sync)) -> Vec<RunResult> {
        let run = |c: &Cell| {
            let r = run_contained(&self.variants[c.variant].scene, &self.spec(c));
            done(c, &r);
            r
        };
        let threaded = |c: &Cell| {
            self.formulations[c.formulation].params.on_threads() || self.solvers[c.solver].params.on_threads()
        };
        let mut results: Vec<Option<RunResult>> =
            cells.par_iter().map(|c| if threaded(c) { None } else { Some(run(c)) }).collect();
        for (slot, c) in results.iter_mut().zip(cells) {
            if slot.is_none() {
                *slot = Some(run(c));
            }
        }
        results.into_iter().flatten().collect()
    }
}
