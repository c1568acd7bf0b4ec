//! The observed order of every stepping formulation, on a planar mechanism (the exact pendulum)
//! and on a mechanism in space with an asymmetric body (the two-hinge pendulum with unequal
//! principal inertias, where the gyroscopic term does work on the coupling), against its declared
//! order ([`crate::formulation::registry::FormulationEntry::order`]). The ODE formulations get
//! their integrators' orders checked in `cases::pendulum`; a stepper's order was checked nowhere,
//! which let `rattle` run at order 1 in space unnoticed.

use super::{Check, Outcome, Selection, own_stepping, run_cell, run_cell_with};
use crate::experiment::Sample;
use crate::integrator::Control;
use crate::metrics::observed_order;
use crate::scene::Scene;
use crate::scene::model_file;

/// The two-hinge pendulum in space with unequal principal inertias.
const TWO_HINGE: &str = include_str!("../../tests/data/two_hinge_pendulum.yaml");

/// How far an observed order may be from the declared one: the slope between two step sizes of a
/// factor 2 in the asymptotic range is the order to a few hundredths; 0.3 leaves room for the
/// next term of the error expansion at these h, as the integrators' check does.
const ORDER_TOL: f64 = 0.3;

/// The lower link's free end of the two-hinge pendulum at the last sample of `r`.
fn tip(scene: &Scene, q: &[f64], v: &[f64]) -> [f64; 3] {
    let mut p = [0.0; 3];
    for (k, name) in ["tip_x", "tip_y", "tip_z"].iter().enumerate() {
        p[k] = scene.output(name).map_or(f64::NAN, |o| o.value(&scene.system, q, v));
    }
    p
}

/// Errors of `error(sample)` at the end of runs of `f` with each h, with the first solver of the
/// selection that pairs with `f`; None where a cell is not applicable or does not run to the end.
fn errors(
    sel: &Selection,
    f: &crate::formulation::registry::FormulationEntry,
    params: &crate::params::Resolved,
    scene: &Scene,
    hs: &[f64],
    t_end: f64,
    error: &dyn Fn(&Sample) -> f64,
) -> Option<(String, Vec<f64>)> {
    let i = own_stepping(sel, f)?;
    for s in &sel.solvers {
        let runs: Vec<Option<f64>> = hs
            .iter()
            .map(|&h| {
                let r = run_cell_with(scene, f, params.clone(), s, i, Control::Fixed { h }, t_end, t_end)?;
                let last = r.samples.last()?;
                (r.summary.status.is_ok() && (last.t - t_end).abs() < 1e-9).then(|| error(last))
            })
            .collect();
        if runs.iter().all(Option::is_some) {
            return Some((s.name.to_string(), runs.into_iter().flatten().collect()));
        }
    }
    None
}

/// The last sample (t = 1 s) of `formulation` with Dop853 at 1e-13 and `dense_lu` on `scene`: a
/// reference (in 3D, `lagrangian` in joint coordinates — the articulated-body algorithm).
fn reference_run(scene: &Scene, formulation: &str) -> Option<Sample> {
    let f = crate::formulation::registry::find(formulation)?;
    let dop853 = crate::integrator::registry::find("dop853")?;
    let solver = crate::linsolve::registry::find("dense_lu")?;
    let control = Control::Adaptive { rtol: 1e-13, atol: 1e-13 };
    run_cell(scene, f, solver, dop853, control, 1.0, 1.0).and_then(|r| r.samples.last().cloned())
}

/// Every stepping formulation's observed order in 2D and in 3D.
pub(super) fn stepper_orders(sel: &Selection, out: &mut Vec<Check>) {
    if !sel.own_steppers {
        return;
    }
    let pendulum = super::cases::scene("pendulum", &[("theta0", 1.0)]);
    let Ok(model) = model_file::from_embedded("tests/data/two_hinge_pendulum.yaml", TWO_HINGE) else { return };
    let two_hinge = model.scene;
    let reference = reference_run(&two_hinge, "lagrangian").map(|r| tip(&two_hinge, &r.q, &r.v));
    // λ at t = 1 s of the Cartesian ODE formulation: the multipliers' reference on both
    // mechanisms (recovered exactly from the state, see `observe`).
    let lambda_reference = |scene: &Scene| reference_run(scene, "force").map(|r| r.lambda);
    let (planar_lambda, spatial_lambda) = (lambda_reference(&pendulum), lambda_reference(&two_hinge));
    let lambda_error = |re: &Option<Vec<f64>>, x: &Sample| {
        re.as_ref().map_or(f64::NAN, |re| re.iter().zip(&x.lambda).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())))
    };
    // Each stepping formulation at its defaults and in every variant it declares.
    let methods = sel.formulations.iter().filter(|f| f.order.is_some()).flat_map(|f| {
        let variants = f.variants.iter().map(move |(label, given)| {
            let params = f.params.with(f.name, given).expect("a declared variant lies in the parameters' domains");
            (*f, format!("{} ({label})", f.name), params)
        });
        std::iter::once((*f, f.name.to_string(), f.params.defaults())).chain(variants)
    });
    for (f, name, params) in methods {
        let Some(order) = f.order else { continue };
        let planar_hs = [1.0 / 200.0, 1.0 / 400.0, 1.0 / 800.0];
        let planar = errors(sel, f, &params, &pendulum, &planar_hs, 1.0, &|x| {
            pendulum.reference.as_ref().map_or(f64::NAN, |r| r.error(x.t, &x.q))
        });
        let planar_l = errors(sel, f, &params, &pendulum, &planar_hs, 1.0, &|x| lambda_error(&planar_lambda, x));
        let spatial_hs = [4e-3, 2e-3, 1e-3];
        let spatial = reference.and_then(|re| {
            errors(sel, f, &params, &two_hinge, &spatial_hs, 1.0, &|x| {
                let p = tip(&two_hinge, &x.q, &x.v);
                ((p[0] - re[0]).powi(2) + (p[1] - re[1]).powi(2) + (p[2] - re[2]).powi(2)).sqrt()
            })
        });
        let spatial_l = errors(sel, f, &params, &two_hinge, &spatial_hs, 1.0, &|x| lambda_error(&spatial_lambda, x));
        for (case, hs, found, what) in [
            ("stepper order, 2D (exact pendulum)", &planar_hs, planar, "|theta(1) - theta_exact(1)|"),
            (
                "stepper lambda order, 2D (exact pendulum)",
                &planar_hs,
                planar_l,
                "max |lambda(1) - lambda_ref(1)| over rows, reference force + dop853 at 1e-13",
            ),
            (
                "stepper lambda order, 3D asymmetric body (two-hinge pendulum)",
                &spatial_hs,
                spatial_l,
                "max |lambda(1) - lambda_ref(1)| over rows, reference force + dop853 at 1e-13",
            ),
            (
                "stepper order, 3D asymmetric body (two-hinge pendulum)",
                &spatial_hs,
                spatial,
                "tip distance at t = 1 s from lagrangian + dop853 at 1e-13",
            ),
        ] {
            let Some((solver, errs)) = found else {
                out.push(Check {
                    case: case.into(),
                    cell: format!("{name} · (no solver runs it)"),
                    measured: f64::NAN,
                    tolerance: format!("{order} +- {ORDER_TOL}"),
                    outcome: Outcome::Info,
                    note: "not applicable to the mechanism, or a cell did not run to the end".into(),
                });
                continue;
            };
            // The slope between the two smallest steps: the asymptotic order.
            let p = observed_order(&hs[1..], &errs[1..]);
            out.push(Check {
                case: case.into(),
                cell: format!("{name} · {solver} · stepper · h={}..{}", hs[0], hs[2]),
                measured: p,
                tolerance: format!("{order} +- {ORDER_TOL}"),
                outcome: if (p - order as f64).abs() <= ORDER_TOL { Outcome::Pass } else { Outcome::Fail },
                note: format!("slope of log {what} against log h between the two smallest h; declared order {order}"),
            });
        }
    }
}

/// Every stepping formulation declared conservative keeps the pendulum's energy bounded without a
/// secular trend over 100 periods at h = T/64 (the least-squares trend of the per-period mean of
/// E − E₀ over the run is at most 0.05 of the error's amplitude, as for the symplectic
/// integrators); the others' energy change is reported.
pub(super) fn stepper_energy(sel: &Selection, out: &mut Vec<Check>) {
    if !sel.own_steppers {
        return;
    }
    let theta0 = 1.0;
    let pendulum = super::cases::scene("pendulum", &[("theta0", theta0)]);
    let period = crate::scene::pendulum::exact_period(1.0, 9.81, theta0);
    let (per, periods) = (64usize, 100usize);
    let h = period / per as f64;
    for f in &sel.formulations {
        let Some(i) = own_stepping(sel, f) else { continue };
        let Some(s) = sel.solvers.iter().find(|s| {
            run_cell(&pendulum, f, s, i, Control::Fixed { h }, h, h).is_some_and(|r| r.summary.status.is_ok())
        }) else {
            continue;
        };
        let Some(r) = run_cell(&pendulum, f, s, i, Control::Fixed { h }, periods as f64 * period, h) else { continue };
        let e0 = r.samples[0].energy;
        let mut amp = 0.0f64;
        let mut pts = Vec::new();
        for (k, chunk) in r.samples[1..].chunks(per).enumerate() {
            let mean = chunk.iter().map(|x| x.energy - e0).sum::<f64>() / chunk.len() as f64;
            amp = chunk.iter().fold(amp, |a, x| a.max((x.energy - e0).abs()));
            pts.push(((k + 1) as f64 * period, mean));
        }
        let ok = r.summary.status.is_ok();
        let (slope, _) = crate::metrics::linear_fit(&pts);
        let trend = if ok { (slope * periods as f64 * period).abs() / amp.max(f64::MIN_POSITIVE) } else { f64::NAN };
        let cell = format!("{} · {} · stepper · pendulum, {periods} periods, h = T/{per}", f.name, s.name);
        if f.conservative {
            // An energy-conserving method (not symplectic: `midpoint`) has no oscillation to
            // compare a trend with; its energy moves only by what its Newton iteration leaves, at
            // most the constraint force times the position tolerance per step: steps × tol × F_max
            // with the steppers' default tol = 1e-10 m and F_max = m g (3 − 2 cos θ₀) ≤ 3 m g.
            let tiny = amp <= steps_bound(periods * per);
            out.push(Check {
                case: "stepper: bounded energy, no secular trend".into(),
                cell,
                measured: trend,
                tolerance: "trend <= 0.05 x amplitude, or |dE| <= steps tol F".into(),
                outcome: if ok && (tiny || trend <= 0.05) { Outcome::Pass } else { Outcome::Fail },
                note: format!(
                    "declared conservative: the energy error (amplitude {amp:.2e} J) oscillates without drift (symplectic), or stays within the Newton tolerance's {:.1e} J (energy-conserving)",
                    steps_bound(periods * per)
                ),
            });
        } else {
            let last = r.samples.last().map_or(f64::NAN, |x| (x.energy - e0) / pendulum.energy_scale.joules);
            out.push(Check {
                case: "stepper: energy change (not declared conservative)".into(),
                cell,
                measured: last,
                tolerance: "reported".into(),
                outcome: Outcome::Info,
                note: "(E(end) - E0)/E_scale: feedback, softness or first-order splitting dissipate or gain energy"
                    .into(),
            });
        }
    }
}

/// The energy a conserving stepper may move by over `steps` steps of the 1 kg, 1 m pendulum: the
/// position tolerance 1e-10 m times the largest constraint force 3 m g, per step.
fn steps_bound(steps: usize) -> f64 {
    steps as f64 * 1e-10 * 3.0 * 9.81
}
