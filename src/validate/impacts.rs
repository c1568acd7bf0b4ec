//! Contact cases with exact answers, continued (issue "contact dynamics a researcher can
//! trust"): impacts and stopping, for each `pgs` cell on the cone.
//!
//! - a ball dropped from h₀ = 1 m onto a frictionless floor with restitution e = 0.5: the
//!   impact step leaves it at u_N⁺ = −e u_N⁻ of that step's approach speed (the restitution target
//!   of the step's problem, met to the solver's tolerance: held to 1e-6 relative), and its apexes
//!   reach e^(2k) h₀. A fixed step without event location meets the apex only to first order in
//!   h: the ball turns at a gap of up to h|v| before the floor, and the discrete flight adds
//!   at most e|v|h/2 + e²|v|h, so apex k is held to b_k = h v_k (1 + e + e²) with
//!   v_k = e^(k−1) √(2 g h₀) plus e² b_(k−1) carried from the apex before;
//! - a box sliding on the floor from v₀ = μ g T, T = 0.5 s: friction takes exactly μ g h off its
//!   speed each step, so it stops at t = T (held to 1e-6 relative), and its position, first order
//!   in h (x(h) = v₀²/(2μg) − v₀h/2 when T/h is whole), extrapolated from h and h/2 as
//!   2 x(h/2) − x(h), is the stopping distance v₀²/(2μg) (held to 1e-6 relative);
//! - Newton's cradle (a ball striking two touching ones at rest, e = 1, no gravity): reported, not
//!   asserted. The cradle one observes (the striker stops, the last ball leaves at v) is a
//!   sequence of impacts; one step's simultaneous impact problem has another solution — the
//!   striker rebounds at −v/3, the other two leave together at 2v/3, which keeps momentum and
//!   energy as well. Each cell's velocities are printed against both.

use super::{Check, Outcome, Selection, cell_name, rolling::cone_cell};
use crate::experiment::{CellSpec, RunResult, run};
use crate::integrator::Control;
use crate::params::Scalar;
use crate::scene::Scene;

const G: f64 = 9.81;
/// The ball's drop height \[m\] (its lowest point above the floor) and restitution.
const H0: f64 = 1.0;
const E: f64 = 0.5;
/// The bounce's step \[s\].
const H_BOUNCE: f64 = 1.0 / 600.0;
/// The sliding box: friction, stopping time T \[s\], and its step h \[s\] (T/h and T/(h/2) whole).
const MU: f64 = 0.3;
const T_STOP: f64 = 0.5;
const H_SLIDE: f64 = 1.0 / 60.0;

fn model(text: &str) -> Scene {
    crate::scene::model_file::from_text("impact_case.yaml", text).expect("a valid model").scene
}

/// A solid sphere of radius 0.1 m, 1 kg, its lowest point h₀ above a frictionless floor.
fn bouncing_ball() -> Scene {
    model(&format!(
        "model: bouncing_ball
summary: a ball dropped onto a frictionless floor with restitution
length_scale: 1
energy_scale: {{joules: 10, definition: \"m g h0\"}}
bodies:
  - {{name: ball, kind: rigid3, mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, {z}]}}
forces:
  - {{type: gravity, g: [0, 0, -{G}]}}
contact:
  shapes: [{{body: ball, sphere: 0.1}}]
  planes: [{{normal: [0, 0, 1], offset: 0}}]
  friction: 0
  restitution: {E}
  restitution_threshold: 0.01
  margin: 0.01
",
        z = H0 + 0.1
    ))
}

/// A 0.2 m cube of 1 kg resting on the floor, sliding along x at v₀ = μ g T.
fn sliding_box() -> Scene {
    model(&format!(
        "model: sliding_box
summary: a box sliding to rest on the floor
length_scale: 0.2
energy_scale: {{joules: 1, definition: \"its kinetic energy\"}}
bodies:
  - {{name: box, kind: rigid3, mass: 1, inertia: [0.006667, 0.006667, 0.006667], position: [0, 0, 0.1],
     velocity: [{v0}, 0, 0]}}
forces:
  - {{type: gravity, g: [0, 0, -{G}]}}
contact:
  shapes: [{{body: box, box: [0.1, 0.1, 0.1]}}]
  planes: [{{normal: [0, 0, 1], offset: 0}}]
  friction: {MU}
  margin: 0.01
",
        v0 = MU * G * T_STOP
    ))
}

/// Three balls of radius 0.1 m and 1 kg on the x axis, no gravity: the striker at 1 m/s toward two
/// touching ones at rest, e = 1.
fn cradle() -> Scene {
    let ball = |n: &str, x: f64, v: f64| {
        format!(
            "  - {{name: {n}, kind: rigid3, mass: 1, inertia: [0.004, 0.004, 0.004], position: [{x}, 0, 0], velocity: [{v}, 0, 0]}}\n"
        )
    };
    let bodies = [ball("striker", -0.3, 1.0), ball("b2", 0.0, 0.0), ball("b3", 0.2, 0.0)].concat();
    model(&format!(
        "model: newtons_cradle
summary: a ball striking two touching balls
length_scale: 0.2
energy_scale: {{joules: 0.5, definition: \"the striker's kinetic energy\"}}
bodies:
{bodies}contact:
  shapes: [{{body: striker, sphere: 0.1}}, {{body: b2, sphere: 0.1}}, {{body: b3, sphere: 0.1}}]
  friction: 0
  restitution: 1
  restitution_threshold: 0.01
  margin: 0.01
"
    ))
}

/// Pass within `tol`; a solver of another problem missing it behaves as predicted.
pub(super) fn verdict(err: f64, tol: f64, solver: &str) -> (Outcome, &'static str) {
    let other = crate::friction::solvers::find(solver).is_some_and(|e| !e.coulomb());
    match (err <= tol, other) {
        (true, _) => (Outcome::Pass, ""),
        (false, true) => (
            Outcome::AsPredicted,
            "; it solves another problem (a relaxation, a regularisation or the pyramid), not Coulomb's",
        ),
        (false, false) => (Outcome::Fail, ""),
    }
}

/// The bounce's two measures from per-step samples: the worst |ratio − e|/e over the impact
/// steps (u⁺ = v_k, u⁻ = v_(k−1) − g h of the step that turns the ball), and the apex heights
/// above the floor of the first two flights.
fn bounce_measures(r: &RunResult, h: f64) -> (f64, usize, [f64; 2]) {
    let vz = |i: usize| r.samples[i].v[2];
    let (mut worst, mut impacts, mut apex) = (0.0f64, 0usize, [f64::NAN; 2]);
    for i in 1..r.samples.len() {
        if vz(i - 1) < 0.0 && vz(i) > 0.0 {
            let ratio = -vz(i) / (vz(i - 1) - G * h);
            worst = worst.max((ratio - E).abs() / E);
            impacts += 1;
        }
        if (1..=2).contains(&impacts) {
            let a = &mut apex[impacts - 1];
            let z = r.samples[i].q[2] - 0.1;
            *a = if a.is_nan() { z } else { a.max(z) };
        }
    }
    (worst, impacts, apex)
}

/// The bounce, for each `pgs` cell on the cone.
fn bounce(sel: &Selection, out: &mut Vec<Check>) {
    let scene = bouncing_ball();
    let v1 = (2.0 * G * H0).sqrt();
    let b1 = H_BOUNCE * v1 * (1.0 + E + E * E);
    let bounds = [b1, E * E * b1 + H_BOUNCE * E * v1 * (1.0 + E + E * E)];
    for (f, solver) in pgs_cells(sel) {
        let Some(spec) = cone_cell(solver, H_BOUNCE, 1.2) else { continue };
        let r = run(&scene, &spec.sampled(H_BOUNCE));
        let cell = format!("{} (cone)", cell_name(f, solver, None, Control::Fixed { h: H_BOUNCE }));
        let ok = r.summary.status.label() == "ok";
        let (ratio_err, impacts, apex) = if ok { bounce_measures(&r, H_BOUNCE) } else { (f64::NAN, 0, [f64::NAN; 2]) };
        let ratio_err = if impacts >= 2 { ratio_err } else { f64::NAN };
        let (outcome, why) = verdict(ratio_err, 1e-6, solver.name);
        out.push(Check {
            case: "ball bouncing on the floor, e = 0.5 (restitution law)".into(),
            cell: cell.clone(),
            measured: ratio_err,
            tolerance: "relative <= 1e-6".into(),
            outcome,
            note: format!("worst |u+/u- + e|/e over its {impacts} impact steps (at least 2 expected){why}"),
        });
        for (k, (&a, &b)) in apex.iter().zip(&bounds).enumerate() {
            let exact = H0 * E.powi(2 * (k as i32 + 1));
            let err = (a - exact).abs();
            let (outcome, why) = verdict(err, b, solver.name);
            out.push(Check {
                case: format!("ball bouncing on the floor, e = 0.5 (apex {})", k + 1),
                cell: cell.clone(),
                measured: err / exact,
                tolerance: format!("relative <= {:.2e}", b / exact),
                outcome,
                note: format!(
                    "relative error of the apex vs e^{} h0 = {exact} m; first order in h (no event location): the bound is h|v|(1 + e + e^2) carried over the bounces{why}",
                    2 * (k + 1)
                ),
            });
        }
    }
}

/// The sliding box's stopping time and its extrapolated stopping distance.
fn sliding(sel: &Selection, out: &mut Vec<Check>) {
    let scene = sliding_box();
    let v0 = MU * G * T_STOP;
    let exact = v0 * v0 / (2.0 * MU * G);
    for (f, solver) in pgs_cells(sel) {
        let cell = format!("{} (cone)", cell_name(f, solver, None, Control::Fixed { h: H_SLIDE }));
        let runs: Vec<Option<RunResult>> = [H_SLIDE, H_SLIDE / 2.0]
            .iter()
            .map(|&h| {
                let r = run(&scene, &cone_cell(solver, h, 1.0)?.sampled(h));
                (r.summary.status.label() == "ok").then_some(r)
            })
            .collect();
        let [Some(coarse), Some(fine)] = &runs[..] else { continue };
        let stop = coarse.samples.iter().find(|s| s.v[0].abs() <= 1e-9 * v0).map_or(f64::NAN, |s| s.t);
        let x = |r: &RunResult| r.samples.last().expect("a final sample").q[0];
        let distance = 2.0 * x(fine) - x(coarse);
        let cases = [
            ("stopping time", stop, T_STOP, "the first step with |v| <= 1e-9 v0 (NaN: none) vs T = v0/(mu g)"),
            ("stopping distance", distance, exact, "2 x(h/2) - x(h) at 1 s vs v0^2/(2 mu g)"),
        ];
        for (what, measured, exact, how) in cases {
            let rel = (measured - exact).abs() / exact;
            let (outcome, why) = verdict(rel, 1e-6, solver.name);
            out.push(Check {
                case: format!("box sliding to rest, mu = 0.3 ({what})"),
                cell: cell.clone(),
                measured: rel,
                tolerance: "relative <= 1e-6".into(),
                outcome,
                note: format!("relative error of {how} = {exact:.6}, v0 = {v0:.4} m/s, h = 1/60 and 1/120 s{why}"),
            });
        }
    }
}

/// Newton's cradle, reported: each cell's velocities after the impact against the sequential
/// answer (0, 0, v) and the simultaneous one (−v/3, 2v/3, 2v/3); with `gauss_seidel` also one
/// sweep per step, as a game engine's sequential impulses run it (one sweep gives (0, v/2, v/2)).
fn newtons_cradle(sel: &Selection, out: &mut Vec<Check>) {
    let scene = cradle();
    let one_sweep = |solver: &'static crate::linsolve::registry::SolverEntry| {
        let params = [("cone", Scalar::Bool(true)), ("iterations", Scalar::Num(1.0))];
        let spec = CellSpec::named("pgs", &params, solver.name, &[], None, Control::Fixed { h: H_SLIDE }, 0.5).ok()?;
        Some((spec.sampled(0.5).recording(), " (cone, one sweep)"))
    };
    let cells = pgs_cells(sel).flat_map(|(f, solver)| {
        let sweep = (solver.name == "gauss_seidel").then(|| one_sweep(solver)).flatten();
        [cone_cell(solver, H_SLIDE, 0.5).map(|s| (s, " (cone)")), sweep]
            .into_iter()
            .flatten()
            .map(move |c| (f, solver, c))
    });
    for (f, solver, (spec, label)) in cells {
        let r = run(&scene, &spec);
        let Some(last) = r.samples.last().filter(|_| r.summary.status.label() == "ok") else { continue };
        let v: Vec<f64> = (0..3).map(|b| last.v[6 * b]).collect();
        let dist = |a: [f64; 3]| v.iter().zip(a).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt();
        let (seq, sim) = (dist([0.0, 0.0, 1.0]), dist([-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]));
        out.push(Check {
            case: "Newton's cradle, 3 balls, e = 1 (reported)".into(),
            cell: format!("{}{label}", cell_name(f, solver, None, Control::Fixed { h: H_SLIDE })),
            measured: seq,
            tolerance: "reported".into(),
            outcome: Outcome::Info,
            note: format!(
                "velocities after the impact ({:.4}, {:.4}, {:.4}) m/s; distance to the observed cradle (0, 0, 1): {seq:.3}, to one simultaneous impact (-1/3, 2/3, 2/3): {sim:.2e}",
                v[0], v[1], v[2]
            ),
        });
    }
}

/// The `pgs` cells of the selection (formulation, contact or linear solver).
pub(super) fn pgs_cells<'s>(
    sel: &'s Selection,
) -> impl Iterator<
    Item = (&'s crate::formulation::registry::FormulationEntry, &'static crate::linsolve::registry::SolverEntry),
> + 's {
    sel.formulations
        .iter()
        .filter(move |f| f.name == "pgs" && sel.own_steppers)
        .flat_map(move |f| sel.solvers.iter().filter(|s| f.pairs_with(s)).map(move |s| (*f, *s)))
}

/// Every case of this module.
pub fn impact_checks(sel: &Selection, out: &mut Vec<Check>) {
    bounce(sel, out);
    sliding(sel, out);
    newtons_cradle(sel, out);
}
