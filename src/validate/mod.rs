//! `tinkertoy validate`: every applicable cell against properties that must hold and cases with
//! known answers, as a scorecard (docs/design.md §6, §9).
//!
//! The checks iterate the registries (or any list given by the caller, so a test can validate a
//! formulation that is not registered): a formulation added in one new file is validated with no
//! other change. Expected failures of a method (explicit Euler's energy growth, Baumgarte feedback
//! beyond its stability bound) are checked as laws and reported as "behaves as predicted".

mod benchmarks;
mod cases;
mod critical;
mod impacts;
mod laws;
mod orders;
mod points;
mod rolling;

pub use laws::{null_space, off_gradient_ratio};

use crate::experiment::{CellSpec, RunResult, run};
use crate::formulation::registry::FormulationEntry;
use crate::integrator::Control;
use crate::integrator::registry::{IntegratorEntry, IntegratorKind};
use crate::linsolve::registry::SolverEntry;
use crate::params::{Scalar, fmt_num};
use crate::scene::Scene;
use std::fmt::Write;

/// The verdict of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Within tolerance.
    Pass,
    /// Outside tolerance.
    Fail,
    /// A predicted behaviour (often a defect of the method, such as energy growth) observed as
    /// predicted.
    AsPredicted,
    /// Measured and reported, not asserted (e.g. the power of feedback forces).
    Info,
}

impl Outcome {
    /// Scorecard text.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "FAIL",
            Outcome::AsPredicted => "behaves as predicted",
            Outcome::Info => "info",
        }
    }
}

/// One line of the scorecard.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The property or reference case.
    pub case: String,
    /// The cell (formulation · solver · integrator · step) or method it applies to.
    pub cell: String,
    /// The measured quantity.
    pub measured: f64,
    /// The tolerance or prediction, as text.
    pub tolerance: String,
    /// The verdict.
    pub outcome: Outcome,
    /// What is expected and why (one line).
    pub note: String,
}

/// What to validate.
pub struct Selection<'a> {
    /// Formulations.
    pub formulations: Vec<&'a FormulationEntry>,
    /// Linear solvers.
    pub solvers: Vec<&'static SolverEntry>,
    /// Integrators (for the ODE formulations).
    pub integrators: Vec<&'static IntegratorEntry>,
    /// Whether the stepping formulations' own time stepping is selected (with no integrator
    /// filter it is; `--integrator X` selects only ODE cells with X).
    pub own_steppers: bool,
}

impl Selection<'_> {
    /// Whether any cell is selected: a formulation with a solver it pairs with, and an integrator
    /// (an ODE formulation) or its own stepping (a stepping formulation).
    pub fn selects_any(&self) -> bool {
        use crate::formulation::registry::FormulationKind;
        self.formulations.iter().any(|f| {
            let solver = self.solvers.iter().any(|s| f.pairs_with(s));
            let time = match f.kind {
                FormulationKind::Ode => !self.integrators.is_empty(),
                FormulationKind::Dae => self.integrators.iter().any(|i| i.dae),
                FormulationKind::Stepper => self.own_steppers,
            };
            solver && time
        })
    }
}

/// Parameters that make an iterative solver accurate enough not to pollute what is validated
/// (relative residual 1e-13, up to 1e5 iterations); none for direct solvers.
pub(crate) fn tight(s: &SolverEntry) -> Vec<(&'static str, Scalar)> {
    // A contact solver stops at the formulation's residual_tol; its own `tol` (the interior
    // point's gap) is not a linear solve's.
    if !s.contact_only() && (s.params.specs)().iter().any(|p| p.name == "tol") {
        vec![("tol", Scalar::Num(1e-13)), ("max_iter", Scalar::Num(1e5))]
    } else {
        vec![]
    }
}

/// Runs one cell with `record_state`, or None if it is not applicable.
pub(crate) fn run_cell(
    scene: &Scene,
    f: &FormulationEntry,
    s: &'static SolverEntry,
    i: impl Into<Option<&'static IntegratorEntry>>,
    control: Control,
    duration: f64,
    interval: f64,
) -> Option<RunResult> {
    run_cell_with(scene, f, f.params.defaults(), s, i.into(), control, duration, interval)
}

/// [`run_cell`] with the formulation's parameters `params` (a declared variant).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_cell_with(
    scene: &Scene,
    f: &FormulationEntry,
    params: crate::params::Resolved,
    s: &'static SolverEntry,
    i: Option<&'static IntegratorEntry>,
    control: Control,
    duration: f64,
    interval: f64,
) -> Option<RunResult> {
    // A DAE pairs with the integrators of DAEs only (the grid's rule): no cell otherwise.
    if let Some(i) = i
        && !f.kind.pairs_with_integrator(i)
    {
        return None;
    }
    let spec = CellSpec {
        formulation: f,
        formulation_params: params,
        solver: s,
        // A parameter outside its domain is a bug of `tight`, not a case to skip quietly.
        solver_params: s.params.with(s.name, &tight(s)).expect("validate's solver parameters lie in every domain"),
        integrator: i,
        control,
        step_fraction: None,
        duration,
        sample_interval: interval,
        drift_bound: 1e6,
        record_state: true,
        outputs: Vec::new(),
        probe_times: std::sync::Arc::from(Vec::new()),
        events: Vec::new(),
        stabilizer: crate::stabilization::registry::find("none").expect("registered"),
        stabilizer_params: crate::params::ParamTable::of::<crate::params::NoParams>().defaults(),
        max_steps: crate::experiment::Limits::default().max_steps(),
        time_budget: crate::experiment::Limits::default().cell_seconds(),
    };
    let r = run(scene, &spec);
    (r.summary.status.label() != "n/a").then_some(r)
}

/// "formulation · solver · integrator · h=…" for a cell.
pub(crate) fn cell_name(
    f: &FormulationEntry,
    s: &SolverEntry,
    i: impl Into<Option<&'static IntegratorEntry>>,
    control: Control,
) -> String {
    let c = match control {
        Control::Fixed { h } => format!("h={}", fmt_num(h)),
        Control::Adaptive { rtol, .. } => format!("tol={}", fmt_num(rtol)),
    };
    let i = i.into().map_or(crate::experiment::OWN_STEPPER, |i| i.name);
    format!("{} · {} · {i} · {c}", f.name, s.name)
}

/// The integrators of the selection of a kind.
pub(crate) fn of_kind<'s>(
    sel: &'s Selection,
    pred: fn(IntegratorKind) -> bool,
) -> impl Iterator<Item = &'static IntegratorEntry> + 's {
    sel.integrators.iter().copied().filter(move |i| pred(i.kind()))
}

/// The own time stepping of `f` (no integrator), if `f` is a stepping formulation and the
/// selection includes stepping.
pub(crate) fn own_stepping(sel: &Selection, f: &FormulationEntry) -> Option<Option<&'static IntegratorEntry>> {
    (sel.own_steppers && f.kind == crate::formulation::registry::FormulationKind::Stepper).then_some(None)
}

/// Runs every check on the selection.
pub fn run_all(sel: &Selection) -> Vec<Check> {
    let mut out = Vec::new();
    laws::orthogonality(sel, &mut out);
    laws::drift(sel, &mut out);
    laws::feedback_power(sel, &mut out);
    cases::pendulum(sel, &mut out);
    cases::small_angle(sel, &mut out);
    cases::bead(sel, &mut out);
    cases::stored(sel, &mut out);
    cases::rigid3d(sel, &mut out);
    rolling::exact_contact_checks(sel, &mut out);
    impacts::impact_checks(sel, &mut out);
    points::point_checks(sel, &mut out);
    critical::critical_friction(sel, &mut out);
    orders::stepper_orders(sel, &mut out);
    orders::stepper_energy(sel, &mut out);
    laws::energy_laws(sel, &mut out);
    laws::baumgarte(sel, &mut out);
    benchmarks::test_set(sel, &mut out);
    benchmarks::car_axis(sel, &mut out);
    benchmarks::iftomm(sel, &mut out);
    out
}

/// The scorecard as aligned plain text.
pub fn scorecard_text(checks: &[Check]) -> String {
    let mut out = String::new();
    let w0 = checks.iter().map(|c| c.case.len()).max().unwrap_or(4).max(4);
    let w1 = checks.iter().map(|c| c.cell.chars().count()).max().unwrap_or(4).max(4);
    let _ = writeln!(out, "{:<w0$}  {:<w1$}  {:>10}  {:<22}  verdict", "case", "cell", "measured", "tolerance");
    for c in checks {
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:>10.3e}  {:<22}  {}",
            c.case,
            c.cell,
            c.measured,
            c.tolerance,
            c.outcome.label()
        );
    }
    let count = |o: Outcome| checks.iter().filter(|c| c.outcome == o).count();
    let _ = writeln!(
        out,
        "\n{} checks: {} pass, {} behave as predicted, {} info, {} FAIL",
        checks.len(),
        count(Outcome::Pass),
        count(Outcome::AsPredicted),
        count(Outcome::Info),
        count(Outcome::Fail)
    );
    out
}

/// The scorecard as Markdown, with each check's explanation.
pub fn scorecard_markdown(checks: &[Check]) -> String {
    let mut out = String::from(
        "# Validation scorecard\n\n| case | cell | measured | tolerance | verdict | why |\n|---|---|---|---|---|---|\n",
    );
    for c in checks {
        let _ = writeln!(
            out,
            "| {} | {} | {:.3e} | {} | {} | {} |",
            c.case,
            c.cell,
            c.measured,
            c.tolerance,
            c.outcome.label(),
            c.note
        );
    }
    out
}
