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
//! - the bounce and the sliding box also in the plane (a disk, a square, rigid-2D), and a square
//!   on a 30° incline there at the friction threshold from both sides (μ = 0.6 > tan α sticks,
//!   μ = 0.55 slides at g (sin α − μ cos α)), each held to 1e-6;
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

/// A one-body case model in space (rigid3) or in the plane (`planar`: rigid2): the body `name`
/// with its (3D, 2D) inertia and shape, its centre at height `up` \[m\] moving at `vx` \[m/s\]
/// along x; gravity `g` = (along x, up) \[m/s²\]; the ground plane (a line) through the origin.
struct Case<'a> {
    planar: bool,
    name: &'a str,
    inertia: (&'a str, &'a str),
    shape: (&'a str, &'a str),
    up: f64,
    vx: f64,
    g: [f64; 2],
}

impl Case<'_> {
    fn text(&self, material: &str) -> String {
        let (n, vx, up, [gx, gy]) = (self.name, self.vx, self.up, self.g);
        let (kind, inertia, shape, position, velocity, gravity, normal) = if self.planar {
            (
                "rigid2",
                self.inertia.1,
                self.shape.1,
                format!("[0, {up}]"),
                format!("[{vx}, 0]"),
                format!("[{gx}, {gy}]"),
                "[0, 1]",
            )
        } else {
            (
                "rigid3",
                self.inertia.0,
                self.shape.0,
                format!("[0, 0, {up}]"),
                format!("[{vx}, 0, 0]"),
                format!("[{gx}, 0, {gy}]"),
                "[0, 0, 1]",
            )
        };
        format!(
            "model: {n}
summary: a contact case with an exact answer
length_scale: 0.2
energy_scale: {{joules: 10, definition: \"m g h0\"}}
bodies:
  - {{name: {n}, kind: {kind}, mass: 1, inertia: {inertia}, position: {position}, velocity: {velocity}}}
forces:
  - {{type: gravity, g: {gravity}}}
contact:
  shapes: [{{body: {n}, {shape}}}]
  planes: [{{normal: {normal}, offset: 0}}]
  margin: 0.01
{material}"
        )
    }
}

/// A solid ball (a disk in the plane) of radius 0.1 m, 1 kg, its lowest point h₀ above a
/// frictionless floor.
fn bouncing_ball(planar: bool) -> Scene {
    let case = Case {
        planar,
        name: "ball",
        inertia: ("[0.004, 0.004, 0.004]", "0.005"),
        shape: ("sphere: 0.1", "circle: 0.1"),
        up: H0 + 0.1,
        vx: 0.0,
        g: [0.0, -G],
    };
    model(&case.text(&format!("  friction: 0\n  restitution: {E}\n  restitution_threshold: 0.01\n")))
}

/// A 0.2 m cube (a square in the plane) of 1 kg resting on the floor, sliding along x at `vx`,
/// friction μ, gravity `g` (a tilted one makes the floor an incline).
fn sliding_box(planar: bool, mu: f64, vx: f64, g: [f64; 2]) -> Scene {
    let case = Case {
        planar,
        name: "box",
        inertia: ("[0.006667, 0.006667, 0.006667]", "0.006667"),
        shape: ("box: [0.1, 0.1, 0.1]", "box: [0.1, 0.1]"),
        up: 0.1,
        vx,
        g,
    };
    model(&case.text(&format!("  friction: {mu}\n")))
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
/// above the floor of the first two flights; `up`: the index of the vertical coordinate.
fn bounce_measures(r: &RunResult, h: f64, up: usize) -> (f64, usize, [f64; 2]) {
    let vz = |i: usize| r.samples[i].v[up];
    let (mut worst, mut impacts, mut apex) = (0.0f64, 0usize, [f64::NAN; 2]);
    for i in 1..r.samples.len() {
        if vz(i - 1) < 0.0 && vz(i) > 0.0 {
            let ratio = -vz(i) / (vz(i - 1) - G * h);
            worst = worst.max((ratio - E).abs() / E);
            impacts += 1;
        }
        if (1..=2).contains(&impacts) {
            let a = &mut apex[impacts - 1];
            let z = r.samples[i].q[up] - 0.1;
            *a = if a.is_nan() { z } else { a.max(z) };
        }
    }
    (worst, impacts, apex)
}

/// The bounce, for each `pgs` cell on the cone, in space or in the plane.
fn bounce(sel: &Selection, out: &mut Vec<Check>, planar: bool) {
    let scene = bouncing_ball(planar);
    let up = if planar { 1 } else { 2 };
    let where_ = if planar { " in the plane" } else { "" };
    let v1 = (2.0 * G * H0).sqrt();
    let b1 = H_BOUNCE * v1 * (1.0 + E + E * E);
    let bounds = [b1, E * E * b1 + H_BOUNCE * E * v1 * (1.0 + E + E * E)];
    for c in contact_cells(sel) {
        let Some(spec) = c.spec(H_BOUNCE, 1.2) else { continue };
        let r = run(&scene, &spec.sampled(H_BOUNCE));
        let cell = c.name(H_BOUNCE);
        let ok = r.summary.status.label() == "ok";
        let (ratio_err, impacts, apex) =
            if ok { bounce_measures(&r, H_BOUNCE, up) } else { (f64::NAN, 0, [f64::NAN; 2]) };
        let ratio_err = if impacts >= 2 { ratio_err } else { f64::NAN };
        let (outcome, why) = c.verdict(ratio_err, 1e-6);
        out.push(Check {
            case: format!("ball bouncing on the floor{where_}, e = 0.5 (restitution law)"),
            cell: cell.clone(),
            measured: ratio_err,
            tolerance: "relative <= 1e-6".into(),
            outcome,
            note: format!("worst |u+/u- + e|/e over its {impacts} impact steps (at least 2 expected){why}"),
        });
        for (k, (&a, &b)) in apex.iter().zip(&bounds).enumerate() {
            let exact = H0 * E.powi(2 * (k as i32 + 1));
            let err = (a - exact).abs();
            let (outcome, why) = c.verdict(err, b);
            out.push(Check {
                case: format!("ball bouncing on the floor{where_}, e = 0.5 (apex {})", k + 1),
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

/// The sliding box's stopping time and its extrapolated stopping distance, in space or in the
/// plane.
fn sliding(sel: &Selection, out: &mut Vec<Check>, planar: bool) {
    let v0 = MU * G * T_STOP;
    let scene = sliding_box(planar, MU, v0, [0.0, -G]);
    let where_ = if planar { " in the plane" } else { "" };
    let exact = v0 * v0 / (2.0 * MU * G);
    for c in contact_cells(sel) {
        let cell = c.name(H_SLIDE);
        let Some((coarse, fine)) = c.halved(&scene, H_SLIDE) else { continue };
        let stop = stopping_time(&coarse, 0, v0);
        let x = |r: &RunResult| r.samples.last().expect("a final sample").q[0];
        let distance = 2.0 * x(&fine) - x(&coarse);
        let cases = [
            (
                "stopping time",
                stop,
                T_STOP,
                "the first step with |v| <= 1e-9 v0 (the run's end, 1 s, when none) vs T = v0/(mu g)",
            ),
            ("stopping distance", distance, exact, "2 x(h/2) - x(h) at 1 s vs v0^2/(2 mu g)"),
        ];
        for (what, measured, exact, how) in cases {
            let rel = (measured - exact).abs() / exact;
            let (outcome, why) = c.verdict(rel, 1e-6);
            out.push(Check {
                case: format!("box sliding to rest{where_}, mu = 0.3 ({what})"),
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

/// The first sample time \[s\] at which velocity `index` is at most 1e-9 of `v0` — or the run's
/// end when it never stops, so that the error is then at least (end − T)/T.
pub(super) fn stopping_time(r: &RunResult, index: usize, v0: f64) -> f64 {
    let end = r.samples.last().map_or(f64::NAN, |s| s.t);
    r.samples.iter().find(|s| s.v[index].abs() <= 1e-9 * v0).map_or(end, |s| s.t)
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

/// A contact cell of the exact cases: a `pgs` cell on the cone with tight solves (each contact
/// solver), or a stepper with contact stages of its own at its defaults (`soft_step`, Box2D's
/// soft contact; `xpbd`, position-level contact).
#[derive(Clone, Copy)]
pub(super) struct ContactCell<'s> {
    formulation: &'s crate::formulation::registry::FormulationEntry,
    solver: &'static crate::linsolve::registry::SolverEntry,
}

impl ContactCell<'_> {
    /// A stepper with contact stages of its own (not `pgs`).
    fn soft(&self) -> bool {
        self.formulation.name != "pgs"
    }

    /// Its name in the scorecard at step `h`.
    pub(super) fn name(&self, h: f64) -> String {
        let base = cell_name(self.formulation, self.solver, None, Control::Fixed { h });
        if self.soft() { base } else { format!("{base} (cone)") }
    }

    /// The cell at step `h` over `duration` \[s\], sampled every 0.5 s with its state recorded.
    pub(super) fn spec(&self, h: f64, duration: f64) -> Option<CellSpec<'static>> {
        if !self.soft() {
            return cone_cell(self.solver, h, duration);
        }
        let spec =
            CellSpec::named(self.formulation.name, &[], self.solver.name, &[], None, Control::Fixed { h }, duration)
                .ok()?;
        Some(spec.sampled(0.5).recording())
    }

    /// Its runs over 1 s at steps `h` and `h`/2, sampled every step, when both end ok.
    pub(super) fn halved(&self, scene: &Scene, h: f64) -> Option<(RunResult, RunResult)> {
        let ok = |h: f64| {
            let r = run(scene, &self.spec(h, 1.0)?.sampled(h));
            (r.summary.status.label() == "ok").then_some(r)
        };
        Some((ok(h)?, ok(h / 2.0)?))
    }

    /// Pass within `tol`; a miss by a solver of another problem, or by a stepper whose contact
    /// stages declare another model ([`crate::formulation::registry::FormulationEntry::contact_model`]),
    /// behaves as predicted; a miss by one that declares none, or a run that failed, fails.
    pub(super) fn verdict(&self, err: f64, tol: f64) -> (Outcome, String) {
        if !self.soft() {
            let (outcome, why) = verdict(err, tol, self.solver.name);
            return (outcome, why.to_string());
        }
        match (err <= tol, err.is_finite(), self.formulation.contact_model) {
            (true, _, _) => (Outcome::Pass, String::new()),
            (false, true, Some(model)) => (Outcome::AsPredicted, format!("; {model}")),
            (false, _, _) => (Outcome::Fail, String::new()),
        }
    }
}

/// The contact cells of the selection: every `pgs` cell, and every other formulation that
/// declares contact (`soft_step`, `xpbd`) with the first selected solver it pairs with (their
/// contact stages use none; a scene without joints makes no solve).
pub(super) fn contact_cells<'s>(sel: &'s Selection) -> Vec<ContactCell<'s>> {
    let mut cells: Vec<ContactCell<'s>> =
        pgs_cells(sel).map(|(f, s)| ContactCell { formulation: f, solver: s }).collect();
    for f in sel.formulations.iter().filter(|f| f.contact && f.name != "pgs" && sel.own_steppers) {
        if let Some(s) = sel.solvers.iter().find(|s| f.pairs_with(s)) {
            cells.push(ContactCell { formulation: f, solver: s });
        }
    }
    cells
}

/// Every case of this module.
pub(super) fn impact_checks(sel: &Selection, out: &mut Vec<Check>) {
    for planar in [false, true] {
        bounce(sel, out, planar);
        sliding(sel, out, planar);
    }
    incline_threshold(sel, out);
    newtons_cradle(sel, out);
}

/// A square on a 30° incline in the plane (the floor under gravity tilted by α: the same
/// equations), friction just above and just below tan α = 0.577: μ = 0.6 sticks (its speed after
/// 1 s held to 1e-6 of the g sin α · 1 s it would reach unopposed), μ = 0.55 slides at
/// a = g (sin α − μ cos α) = 0.233 m/s² (v(1 s)/1 s held to 1e-6 relative).
fn incline_threshold(sel: &Selection, out: &mut Vec<Check>) {
    let (s, c) = std::f64::consts::FRAC_PI_6.sin_cos();
    for (mu, exact, what) in [(0.6, 0.0, "sticks"), (0.55, G * (s - 0.55 * c), "slides")] {
        let scene = sliding_box(true, mu, 0.0, [G * s, -G * c]);
        for c in contact_cells(sel) {
            let Some(spec) = c.spec(H_SLIDE, 1.0) else { continue };
            let r = run(&scene, &spec);
            let ok = r.summary.status.label() == "ok";
            let a = r.samples.last().filter(|_| ok).map_or(f64::NAN, |x| x.v[0] / x.t);
            let err = (a - exact).abs() / if exact > 0.0 { exact } else { G * s };
            let (outcome, why) = c.verdict(err, 1e-6);
            out.push(Check {
                case: format!("square on a 30 deg incline in the plane, mu = {mu} ({what})"),
                cell: c.name(H_SLIDE),
                measured: err,
                tolerance: "relative <= 1e-6".into(),
                outcome,
                note: format!(
                    "v(1 s)/1 s vs {exact:.6} m/s^2 (tan 30 = 0.577: {what}), relative to {}{why}",
                    if exact > 0.0 { "it" } else { "g sin 30" }
                ),
            });
        }
    }
}
