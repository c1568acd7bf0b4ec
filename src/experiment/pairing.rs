//! The pairing rules of the grid: which formulation runs with which solver, and the config
//! errors for listed items that would pair with nothing (docs/design.md §7).

use super::config::{ConfigError, RawConfig, at};
use super::grid::{Item, StepChoice, err};
use crate::formulation::registry::{FormulationEntry, FormulationKind};
use crate::integrator::registry::{IntegratorEntry, IntegratorKind};
use crate::linsolve::registry::SolverEntry;

/// The registered formulations of `kind`, comma-separated.
pub(super) fn names_of_kind(kind: FormulationKind) -> String {
    crate::registry::active()
        .formulations()
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether formulation `f` runs with solver `s`: the solver accepts the kind of system the
/// formulation solves ([`FormulationEntry::pairs_with`]), and, where the formulation's own
/// parameters set a linear solver's iteration (contact), that solver is given without parameters
/// (they would be ignored, and the cell's label would say otherwise); a contact solver's
/// parameters apply.
pub(super) fn pairs_with(f: &Item<FormulationEntry>, s: &Item<SolverEntry>) -> bool {
    f.entry.pairs_with(s.entry)
        && (f.entry.system.solver_params_apply() || s.entry.contact_only() || s.params.given().is_empty())
}

/// Every listed formulation, solver and integrator must be part of at least one cell; the
/// message says why one is not.
pub(super) fn check_pairings(
    file: &str,
    raw: &RawConfig,
    formulations: &[Item<FormulationEntry>],
    solvers: &[Item<SolverEntry>],
    integrators: &[Item<IntegratorEntry>],
    steps: &[StepChoice],
    tolerances: &[StepChoice],
) -> Result<(), ConfigError> {
    let paired = |i: &Item<IntegratorEntry>| formulations.iter().any(|f| f.entry.kind.pairs_with_integrator(i.entry));
    let uses_tolerances =
        integrators.iter().any(|i| paired(i) && matches!(i.entry.kind(), IntegratorKind::Adaptive { .. }));
    let uses_steps = formulations.iter().any(|f| f.entry.kind == FormulationKind::Stepper)
        || integrators.iter().any(|i| paired(i) && matches!(i.entry.kind(), IntegratorKind::Fixed { .. }));
    for (i, f) in formulations.iter().enumerate() {
        check_formulation(file, at(&raw.formulations.value[i].name), f, solvers, integrators, steps)?;
    }
    for (i, s) in solvers.iter().enumerate() {
        if !formulations.iter().any(|f| pairs_with(f, s)) {
            return err(
                file,
                at(&raw.solvers.value[i].name),
                format!(
                    "solver `{}` pairs with none of the formulations: it solves {}{}; {}",
                    s.entry.name,
                    s.entry.accepts.iter().map(|k| k.describe()).collect::<Vec<_>>().join(", "),
                    if s.params.given().is_empty() {
                        ""
                    } else {
                        " (with its own parameters: not a contact problem, whose sweeps the formulation sets)"
                    },
                    formulations
                        .iter()
                        .map(|f| format!("{} solves a {}", f.entry.name, f.entry.system.describe()))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            );
        }
    }
    if let (Some(list), false) = (&raw.integrators, integrators.is_empty())
        && !formulations.iter().any(|f| f.entry.kind.takes_integrators())
    {
        return err(
            file,
            at(list),
            format!(
                "no formulation here yields an ODE ({} are their own time steppers), so `integrators` would pair with nothing; remove it, or add an ODE formulation ({})",
                formulations.iter().map(|f| f.entry.name).collect::<Vec<_>>().join(", "),
                names_of_kind(FormulationKind::Ode)
            ),
        );
    }
    for (i, it) in integrators.iter().enumerate() {
        if !paired(it) {
            return err(
                file,
                at(&raw.integrators.as_ref().expect("integrators are listed").value[i].name),
                format!(
                    "integrator `{}` pairs with none of the formulations: those here that take integrators ({}) yield DAEs, which only the integrators of DAEs advance ({}); add an ODE formulation ({}) or remove it",
                    it.entry.name,
                    formulations
                        .iter()
                        .filter(|f| f.entry.kind == FormulationKind::Dae)
                        .map(|f| f.entry.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                    dae_integrators(),
                    names_of_kind(FormulationKind::Ode)
                ),
            );
        }
    }
    if let (Some(list), false, false) = (&raw.tolerances, tolerances.is_empty(), uses_tolerances) {
        return err(
            file,
            at(list),
            "field `tolerances` pairs with no cell: only an adaptive integrator (dopri5, dop853, radau5) of an ODE or DAE formulation takes tolerances; remove it or add one".into(),
        );
    }
    if let (Some(list), false, false) = (&raw.steps, steps.is_empty(), uses_steps) {
        return err(
            file,
            at(list),
            "field `steps` pairs with no cell: step sizes are for fixed-step integrators of ODE formulations and for stepping formulations; remove it or add one".into(),
        );
    }
    Ok(())
}

/// The registered integrators of DAEs, comma-separated.
fn dae_integrators() -> String {
    crate::registry::active().integrators().iter().filter(|e| e.dae).map(|e| e.name).collect::<Vec<_>>().join(", ")
}

/// Formulation `f` (at `loc`) pairs with a listed solver and has the integrators or steps its kind
/// needs.
fn check_formulation(
    file: &str,
    loc: Option<(u32, u32)>,
    f: &Item<FormulationEntry>,
    solvers: &[Item<SolverEntry>],
    integrators: &[Item<IntegratorEntry>],
    steps: &[StepChoice],
) -> Result<(), ConfigError> {
    if !solvers.iter().any(|s| pairs_with(f, s)) {
        let accepting: Vec<&str> =
            crate::registry::active().solvers().iter().filter(|s| f.entry.pairs_with(s)).map(|s| s.name).collect();
        let how = if f.entry.system.solver_params_apply() {
            String::new()
        } else {
            "; a linear solver among them listed without parameters (the formulation's own parameters set its sweeps)"
                .into()
        };
        return err(
            file,
            loc,
            format!(
                "formulation `{}` solves a {} and pairs with none of the listed solvers; add one of: {}{how}",
                f.entry.name,
                f.entry.system.describe(),
                accepting.join(", ")
            ),
        );
    }
    match f.entry.kind {
        FormulationKind::Ode if integrators.is_empty() => {
            return err(
                file,
                loc,
                format!(
                    "formulation `{}` yields an ODE right-hand side and needs at least one entry in `integrators` (one of: {})",
                    f.entry.name,
                    crate::registry::active().integrators().iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        FormulationKind::Dae if !integrators.iter().any(|i| i.entry.dae) => {
            return err(
                file,
                loc,
                format!(
                    "formulation `{}` yields a DAE and needs an integrator of DAEs in `integrators` (one of: {})",
                    f.entry.name,
                    dae_integrators()
                ),
            );
        }
        FormulationKind::Stepper if steps.is_empty() => {
            return err(
                file,
                loc,
                format!("formulation `{}` is its own time stepper and needs a non-empty `steps` list", f.entry.name),
            );
        }
        _ => {}
    }
    Ok(())
}

/// The cells of one scene variant, counted without listing them (the same loops as
/// [`Experiment::cells`]).
pub(super) fn cells_per_variant(
    formulations: &[Item<FormulationEntry>],
    solvers: &[Item<SolverEntry>],
    integrators: &[Item<IntegratorEntry>],
    stabilizers: usize,
    steps: usize,
    tolerances: usize,
) -> u64 {
    let mut n = 0u64;
    for f in formulations {
        for s in solvers {
            if !pairs_with(f, s) {
                continue;
            }
            let controls: usize = match f.entry.kind {
                FormulationKind::Ode | FormulationKind::Dae => integrators
                    .iter()
                    .filter(|it| f.entry.kind.pairs_with_integrator(it.entry))
                    .map(|it| match it.entry.kind() {
                        IntegratorKind::Adaptive { .. } => tolerances,
                        IntegratorKind::Fixed { .. } => steps,
                    })
                    .sum(),
                FormulationKind::Stepper => steps,
            };
            n += (controls * stabilizers) as u64;
        }
    }
    n
}
