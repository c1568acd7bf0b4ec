//! The pairing rules of the grid: which formulation runs with which solver, and the config
//! errors for listed items that would pair with nothing (docs/design.md §7).

use super::config::{ConfigError, RawConfig, at};
use super::grid::{Item, StepChoice, err};
use crate::formulation::registry::{FormulationEntry, FormulationKind, SolverUse};
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

/// Whether formulation `f` runs with solver `s`: any solver, or its own one given without
/// parameters (the formulation's own parameters set that iteration; the solver's would be ignored).
pub(super) fn pairs_with(f: &Item<FormulationEntry>, s: &Item<SolverEntry>) -> bool {
    match f.entry.solver {
        SolverUse::Any => true,
        SolverUse::Own(name) => s.entry.name == name && s.params.given().is_empty(),
    }
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
    let has_ode = formulations.iter().any(|f| f.entry.kind == FormulationKind::Ode);
    let uses_tolerances =
        has_ode && integrators.iter().any(|i| matches!(i.entry.kind(), IntegratorKind::Adaptive { .. }));
    let uses_steps = formulations.iter().any(|f| f.entry.kind == FormulationKind::Stepper)
        || has_ode && integrators.iter().any(|i| matches!(i.entry.kind(), IntegratorKind::Fixed { .. }));
    if let (Some(list), false, false) = (&raw.tolerances, tolerances.is_empty(), uses_tolerances) {
        return err(
            file,
            at(list),
            "field `tolerances` pairs with no cell: only an adaptive integrator (dopri5, dop853) of an ODE formulation takes tolerances; remove it or add one".into(),
        );
    }
    if let (Some(list), false, false) = (&raw.steps, steps.is_empty(), uses_steps) {
        return err(
            file,
            at(list),
            "field `steps` pairs with no cell: step sizes are for fixed-step integrators of ODE formulations and for stepping formulations; remove it or add one".into(),
        );
    }
    for (i, f) in formulations.iter().enumerate() {
        let loc = at(&raw.formulations.value[i].name);
        if let SolverUse::Own(own) = f.entry.solver
            && !solvers.iter().any(|s| pairs_with(f, s))
        {
            return err(
                file,
                loc,
                format!(
                    "formulation `{}` runs its own `{own}` sweeps, set by its own parameters; list solver `{own}` without parameters for it (a `{own}` entry with parameters pairs only with the other formulations)",
                    f.entry.name
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
            FormulationKind::Stepper if steps.is_empty() => {
                return err(
                    file,
                    loc,
                    format!(
                        "formulation `{}` is its own time stepper and needs a non-empty `steps` list",
                        f.entry.name
                    ),
                );
            }
            _ => {}
        }
    }
    for (i, s) in solvers.iter().enumerate() {
        if !formulations.iter().any(|f| pairs_with(f, s)) {
            return err(
                file,
                at(&raw.solvers.value[i].name),
                format!(
                    "solver `{}` pairs with none of the formulations: {} bring their own solver",
                    s.entry.name,
                    formulations.iter().map(|f| f.entry.name).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
    if let (Some(list), false) = (&raw.integrators, integrators.is_empty())
        && !formulations.iter().any(|f| f.entry.kind == FormulationKind::Ode)
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
                FormulationKind::Ode => integrators
                    .iter()
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
