//! One cell of an experiment, resolved: what runs (formulation, solver, integrator or own
//! stepping, stabilizer, with parameters), on which time axis, and what is measured; with builder
//! methods for tests, benchmarks and scripts.

use super::observe::{Direction, EventSpec};
use crate::formulation::registry::FormulationEntry;
use crate::integrator::Control;
use crate::integrator::registry::IntegratorEntry;
use crate::linsolve::registry::SolverEntry;
use crate::params::{Resolved, Scalar};
use crate::registry::Axis;
use crate::scene::{Output, Scene};
use crate::stabilization::registry::StabilizerEntry;
use std::sync::Arc;

/// One cell of an experiment, resolved.
#[derive(Clone)]
pub struct CellSpec<'f> {
    /// The formulation (registered, or any entry a caller such as a test provides).
    pub formulation: &'f FormulationEntry,
    /// Its parameters.
    pub formulation_params: Resolved,
    /// The linear solver.
    pub solver: &'static SolverEntry,
    /// Its parameters.
    pub solver_params: Resolved,
    /// The integrator of an ODE formulation; None for a stepping formulation (its own integrator).
    pub integrator: Option<&'static IntegratorEntry>,
    /// Step size or tolerances.
    pub control: Control,
    /// A fixed step h as the exact fraction p/q (step boundaries n·h are then computed as n·p/q,
    /// one rounding); None: n·h.
    pub step_fraction: Option<(u64, u64)>,
    /// End time \[s\].
    pub duration: f64,
    /// Time between samples \[s\].
    pub sample_interval: f64,
    /// A run whose ‖C‖∞ exceeds this (in the units of C) is stopped as diverged.
    pub drift_bound: f64,
    /// Keep q, v, C, J v and λ in every sample.
    pub record_state: bool,
    /// Named outputs evaluated at every sample, at every probe time and for the events.
    pub outputs: Vec<Output>,
    /// Extra times \[s\] (increasing, within the duration) at which the outputs are evaluated
    /// exactly (a reference file's times): fixed steps need them on step boundaries, adaptive
    /// methods read them off their dense output.
    pub probe_times: Arc<[f64]>,
    /// Output crossings to locate.
    pub events: Vec<EventSpec>,
    /// Post-step stabilizer (`none` for none).
    pub stabilizer: &'static StabilizerEntry,
    /// Its parameters.
    pub stabilizer_params: Resolved,
    /// The most steps the cell may take; an adaptive cell that reaches it fails ("max steps").
    pub max_steps: u64,
    /// Wall-clock budget of the run \[s\]; a cell that exceeds it fails ("time budget").
    pub time_budget: f64,
}

/// Why a cell cannot be built from names and parameters ([`CellSpec::named`] and its builders).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CellError {
    /// No item of that name is registered on the axis.
    #[error("unknown {} `{name}`", axis.name())]
    Unknown {
        /// The axis.
        axis: Axis,
        /// The name asked for.
        name: String,
    },
    /// A parameter unknown or out of its domain.
    #[error(transparent)]
    Param(#[from] crate::params::ParamError),
    /// An output the scene does not have.
    #[error(transparent)]
    Output(#[from] crate::scene::UnknownOutput),
}

impl CellSpec<'static> {
    /// A cell from registry names and parameter overrides, for tests, benchmarks and scripts:
    /// sampled once at the end, drift bound 1e3, no recorded state, no stabilizer (change them
    /// with the builder methods). `integrator` is None for a stepping formulation. Unknown names
    /// or parameters give the registry's error message.
    #[allow(clippy::too_many_arguments)]
    pub fn named(
        formulation: &str,
        formulation_params: &[(&str, Scalar)],
        solver: &str,
        solver_params: &[(&str, Scalar)],
        integrator: Option<&str>,
        control: Control,
        duration: f64,
    ) -> Result<Self, CellError> {
        let reg = crate::registry::active();
        let unknown = |axis, name: &str| CellError::Unknown { axis, name: name.into() };
        let f = reg.formulation(formulation).ok_or_else(|| unknown(Axis::Formulation, formulation))?;
        let s = reg.solver(solver).ok_or_else(|| unknown(Axis::Solver, solver))?;
        let i = match integrator {
            Some(name) => Some(reg.integrator(name).ok_or_else(|| unknown(Axis::Integrator, name))?),
            None => None,
        };
        let none = crate::stabilization::registry::find("none").expect("`none` is registered");
        Ok(CellSpec {
            formulation: f,
            formulation_params: f.params.with(formulation, formulation_params)?,
            solver: s,
            solver_params: s.params.with(solver, solver_params)?,
            integrator: i,
            control,
            step_fraction: None,
            duration,
            sample_interval: duration,
            drift_bound: 1e3,
            record_state: false,
            outputs: Vec::new(),
            probe_times: Arc::from(Vec::new()),
            events: Vec::new(),
            stabilizer: none,
            stabilizer_params: none.params.defaults(),
            max_steps: crate::experiment::Limits::default().max_steps(),
            time_budget: crate::experiment::Limits::default().cell_seconds(),
        })
    }
}

impl<'f> CellSpec<'f> {
    /// The same cell sampled every `interval` \[s\].
    pub fn sampled(self, interval: f64) -> Self {
        CellSpec { sample_interval: interval, ..self }
    }

    /// The same cell stopped as diverged when ‖C‖∞ exceeds `bound` (units of C).
    pub fn bounded(self, bound: f64) -> Self {
        CellSpec { drift_bound: bound, ..self }
    }

    /// The same cell keeping q, v, C, J v and λ in every sample.
    pub fn recording(self) -> Self {
        CellSpec { record_state: true, ..self }
    }

    /// The same cell evaluating the scene's outputs `names` at every sample (see
    /// [`Scene::output`]).
    pub fn observing(self, scene: &Scene, names: &[&str]) -> Result<Self, CellError> {
        let outputs = names.iter().map(|n| scene.output(n)).collect::<Result<_, _>>()?;
        Ok(CellSpec { outputs, ..self })
    }

    /// The same cell locating the crossings of output `output` (an index into the observed
    /// outputs) through `value` in `direction`.
    pub fn with_event(mut self, output: usize, value: f64, direction: Direction) -> Self {
        self.events.push(EventSpec { output, value, direction });
        self
    }

    /// The same cell also evaluating its outputs exactly at `times` \[s\] (increasing).
    pub fn probing(self, times: &[f64]) -> Self {
        CellSpec { probe_times: Arc::from(times), ..self }
    }

    /// The same cell with the registered stabilizer `name` and parameter overrides.
    pub fn stabilized(self, name: &str, params: &[(&str, Scalar)]) -> Result<Self, CellError> {
        let st = crate::registry::active()
            .stabilizer(name)
            .ok_or_else(|| CellError::Unknown { axis: Axis::Stabilizer, name: name.into() })?;
        let stabilizer_params = st.params.with(name, params)?;
        Ok(CellSpec { stabilizer: st, stabilizer_params, ..self })
    }
}
