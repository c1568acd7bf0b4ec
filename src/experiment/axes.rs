//! The axes of an experiment checked from its config: its name, the method axes (formulations,
//! solvers, integrators, stabilizers), the time axis, the fixed steps and the tolerances.

use super::clock::exact_fraction;
use super::config::{ConfigError, RawConfig, at};
use super::grid::{Item, MAX_NAME, MIN_TOLERANCE, NO_PARAMS, StepChoice, check_positive, err, items};
use super::pairing::names_of_kind;
use crate::formulation::registry::{FormulationEntry, FormulationKind};
use crate::integrator::Control;
use crate::integrator::registry::{IntegratorEntry, IntegratorKind};
use crate::linsolve::registry::SolverEntry;
use crate::params::fmt_num;
use crate::stabilization::registry::StabilizerEntry;

/// An experiment's formulations, solvers, integrators and stabilizers.
pub(super) type MethodAxes =
    (Vec<Item<FormulationEntry>>, Vec<Item<SolverEntry>>, Vec<Item<IntegratorEntry>>, Vec<Item<StabilizerEntry>>);

/// The experiment's `name`, checked (it names the report directory), and its `scene.name`, if
/// given, checked to be registered.
pub(super) fn check_name(file: &str, raw: &RawConfig) -> Result<String, ConfigError> {
    let name = raw.name.value.clone();
    if name.len() > MAX_NAME {
        return err(
            file,
            at(&raw.name),
            format!(
                "field `name` is {} characters long; expected at most {} (it names the report directory)",
                name.len(),
                MAX_NAME
            ),
        );
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return err(
            file,
            at(&raw.name),
            format!(
                "field `name` = `{name}` is invalid; expected letters, digits, `_` or `-` (it names the report directory)"
            ),
        );
    }
    if let Some(n) = &raw.scene.name
        && crate::registry::active().scene(&n.value).is_none()
    {
        return err(
            file,
            at(n),
            format!(
                "field `scene.name`: unknown scene `{}`; expected one of: {}",
                n.value,
                crate::registry::active().scene_names()
            ),
        );
    }
    Ok(name)
}

/// The formulation, solver, integrator and stabilizer axes, each entry resolved in the active
/// registry with its parameters.
pub(super) fn method_axes(file: &str, raw: &RawConfig) -> Result<MethodAxes, ConfigError> {
    let formulations = items(
        file,
        "formulations",
        &raw.formulations,
        crate::registry::active().formulations(),
        |e| e.name,
        |e| e.params,
    )?;
    let solvers = items(file, "solvers", &raw.solvers, crate::registry::active().solvers(), |e| e.name, |e| e.params)?;
    let integrators = match &raw.integrators {
        Some(list) => {
            if let Some(i) = list.value.iter().position(|r| r.name.value == "stepper") {
                return err(
                    file,
                    at(&list.value[i].name),
                    format!(
                        "field `integrators[{i}].name`: `stepper` is not an integrator; stepping formulations ({}) are their own integrators and take their step sizes from `steps` — remove this entry",
                        names_of_kind(FormulationKind::Stepper)
                    ),
                );
            }
            items(file, "integrators", list, crate::registry::active().integrators(), |e| e.name, |_| NO_PARAMS)?
        }
        None => Vec::new(),
    };
    let stabilizers = match &raw.stabilizers {
        Some(list) => {
            items(file, "stabilizers", list, crate::registry::active().stabilizers(), |e| e.name, |e| e.params)?
        }
        None => {
            let entry = crate::registry::active().stabilizer("none").expect("`none` is registered");
            vec![Item { entry, params: entry.params.defaults(), label: entry.name.to_string() }]
        }
    };
    Ok((formulations, solvers, integrators, stabilizers))
}

/// `duration` and `sample_interval` \[s\], checked against each other.
pub(super) fn time_axis(file: &str, raw: &RawConfig) -> Result<(f64, f64), ConfigError> {
    let duration = check_positive(file, "duration", &raw.duration)?;
    let sample_interval = {
        let v = &raw.sample_interval;
        if !(v.value.seconds.is_finite() && v.value.seconds > 0.0) {
            return err(
                file,
                at(v),
                format!(
                    "field `sample_interval` = {} is invalid; expected a finite number > 0 or a fraction like \"1/60\"",
                    crate::params::short(&v.value.text)
                ),
            );
        }
        v.value.seconds
    };
    if sample_interval > duration {
        return err(
            file,
            at(&raw.sample_interval),
            format!("field `sample_interval` = {sample_interval} exceeds `duration` = {duration}"),
        );
    }
    if duration / sample_interval > 1e6 {
        return err(
            file,
            at(&raw.sample_interval),
            format!(
                "field `sample_interval` = {sample_interval} gives more than 10^6 samples over duration {duration}"
            ),
        );
    }
    Ok((duration, sample_interval))
}

/// The fixed steps h of `steps`, each 0 < h ≤ `duration`, none repeated, with the exact fraction
/// it was written as.
pub(super) fn fixed_steps(file: &str, raw: &RawConfig, duration: f64) -> Result<Vec<StepChoice>, ConfigError> {
    let mut steps = Vec::new();
    if let Some(list) = &raw.steps {
        for (i, s) in list.value.iter().enumerate() {
            let h = s.value.seconds;
            if !(h.is_finite() && h > 0.0 && h <= duration) {
                return err(
                    file,
                    at(s),
                    format!(
                        "field `steps[{i}]` = {} is invalid; expected a step h with 0 < h <= duration ({duration} s)",
                        s.value.text
                    ),
                );
            }
            if let Some(j) = steps.iter().position(|c: &StepChoice| c.control == Control::Fixed { h }) {
                return err(
                    file,
                    at(s),
                    format!(
                        "field `steps[{i}]` = {} repeats `steps[{j}]`; each step is one column of cells",
                        s.value.text
                    ),
                );
            }
            let fraction = exact_fraction(&s.value.text).filter(|&(p, q)| p as f64 / q as f64 == h);
            steps.push(StepChoice { control: Control::Fixed { h }, label: s.value.text.clone(), fraction });
        }
    }
    Ok(steps)
}

/// The tolerances of `tolerances`, each in [[`MIN_TOLERANCE`], 1), none repeated.
pub(super) fn tolerance_list(file: &str, raw: &RawConfig) -> Result<Vec<StepChoice>, ConfigError> {
    let mut tolerances = Vec::new();
    if let Some(list) = &raw.tolerances {
        for (i, t) in list.value.iter().enumerate() {
            // Hairer's codes refuse rtol <= 10 u (u = 2.3e-16, the unit roundoff): an error
            // estimate cannot be driven below rounding, so the step size would shrink forever.
            if !(t.value >= MIN_TOLERANCE && t.value < 1.0) {
                return err(
                    file,
                    at(t),
                    format!(
                        "field `tolerances[{i}]` = {} is invalid; expected {MIN_TOLERANCE:e} <= tolerance < 1 (below ten times the unit roundoff no step can meet it)",
                        fmt_num(t.value)
                    ),
                );
            }
            if let Some(j) = tolerances.iter().position(|c: &StepChoice| c.label == fmt_num(t.value)) {
                return err(
                    file,
                    at(t),
                    format!("field `tolerances[{i}]` = {} repeats `tolerances[{j}]`", fmt_num(t.value)),
                );
            }
            tolerances.push(StepChoice {
                control: Control::Adaptive { rtol: t.value, atol: t.value },
                label: fmt_num(t.value),
                fraction: None,
            });
        }
    }
    Ok(tolerances)
}

/// Every adaptive integrator has tolerances and every fixed-step one has steps.
pub(super) fn check_step_axes(
    file: &str,
    raw: &RawConfig,
    integrators: &[Item<IntegratorEntry>],
    steps: &[StepChoice],
    tolerances: &[StepChoice],
) -> Result<(), ConfigError> {
    for (i, it) in integrators.iter().enumerate() {
        let loc = raw.integrators.as_ref().and_then(|l| at(&l.value[i].name));
        match it.entry.kind() {
            IntegratorKind::Adaptive { .. } if tolerances.is_empty() => {
                return err(
                    file,
                    loc,
                    format!("integrator `{}` is adaptive and needs a non-empty `tolerances` list", it.entry.name),
                );
            }
            IntegratorKind::Fixed { .. } if steps.is_empty() => {
                return err(
                    file,
                    loc,
                    format!("integrator `{}` takes a fixed step and needs a non-empty `steps` list", it.entry.name),
                );
            }
            _ => {}
        }
    }
    Ok(())
}
