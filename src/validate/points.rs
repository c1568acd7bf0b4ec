//! Contact cases with exact answers for particles (issue "contact dynamics a researcher can
//! trust"): a particle collides as a point, with the lines or planes and with the shapes of the
//! other bodies. Each contact cell ([`super::impacts::contact_cells`]) is held to 1e-6 relative:
//!
//! - a bead sliding to rest on a slab that rests on the floor, in the plane (a particle2 on a
//!   rigid2 box) and in space (a particle3 on a rigid3 box): from v₀ = μ g T it stops at t = T
//!   = 0.5 s, after v₀²/(2μg) — extrapolated from h and h/2 as 2 x(h/2) − x(h), as the sliding
//!   box of [`super::impacts`] — while the slab, held by the floor's friction (μ (m + M) g
//!   against μ m g), does not move;
//! - a bead on a 30° incline line in the plane (the line tilted, gravity vertical), friction
//!   just above and just below tan α = 0.577: μ = 0.6 sticks, μ = 0.55 slides at
//!   a = g (sin α − μ cos α).

use super::impacts::{ContactCell, contact_cells, stopping_time};
use super::{Check, Selection};
use crate::experiment::{RunResult, run};
use crate::scene::Scene;

const G: f64 = 9.81;
const MU: f64 = 0.3;
/// The bead's stopping time \[s\] and the step h \[s\] (T/h and T/(h/2) whole).
const T_STOP: f64 = 0.5;
const H: f64 = 1.0 / 60.0;
/// Where the bead starts on the slab's top \[m\].
const X0: f64 = -0.3;

fn model(text: &str) -> Scene {
    crate::scene::model_file::from_text("point_case.yaml", text).expect("a valid model").scene
}

/// A 1 kg bead on the top of a 10 kg slab (1 m wide, 0.2 m thick; 1 m deep in space) resting on
/// the floor, the bead at x = −0.3 m moving at `v0` along x; friction μ everywhere.
fn bead_on_slab(planar: bool, v0: f64) -> Scene {
    let (slab, bead, g, floor, shape) = if planar {
        (
            "kind: rigid2, mass: 10, inertia: 0.86667, position: [0, 0.1]".to_string(),
            format!("kind: particle2, mass: 1, position: [{X0}, 0.2], velocity: [{v0}, 0]"),
            format!("[0, -{G}]"),
            "[0, 1]",
            "box: [0.5, 0.1]",
        )
    } else {
        (
            "kind: rigid3, mass: 10, inertia: [0.86667, 0.86667, 1.66667], position: [0, 0, 0.1]".to_string(),
            format!("kind: particle3, mass: 1, position: [{X0}, 0, 0.2], velocity: [{v0}, 0, 0]"),
            format!("[0, 0, -{G}]"),
            "[0, 0, 1]",
            "box: [0.5, 0.5, 0.1]",
        )
    };
    model(&format!(
        "model: bead_on_slab
summary: a bead sliding to rest on a slab
length_scale: 0.2
energy_scale: {{joules: 1, definition: \"the bead's kinetic energy at the start, about\"}}
bodies:
  - {{name: slab, {slab}}}
  - {{name: bead, {bead}}}
forces:
  - {{type: gravity, g: {g}}}
contact:
  shapes: [{{body: slab, {shape}}}]
  planes: [{{normal: {floor}, offset: 0}}]
  friction: {MU}
  margin: 0.01
"
    ))
}

/// A 1 kg bead at rest on a line through the origin tilted by 30° (rising along +x), friction μ.
fn bead_on_incline(mu: f64) -> Scene {
    let (s, c) = std::f64::consts::FRAC_PI_6.sin_cos();
    model(&format!(
        "model: bead_on_incline
summary: a bead on a 30 deg incline
length_scale: 0.2
energy_scale: {{joules: 1, definition: \"m g times 0.1 m, about\"}}
bodies:
  - {{name: bead, kind: particle2, mass: 1, position: [0, 0]}}
forces:
  - {{type: gravity, g: [0, -{G}]}}
contact:
  planes: [{{normal: [{}, {c}], offset: 0}}]
  friction: {mu}
  margin: 0.01
",
        -s
    ))
}

/// One check of cell `c` on `case`: `err` held to 1e-6 relative.
fn check(c: &ContactCell, case: String, err: f64, note: String, out: &mut Vec<Check>) {
    let (outcome, why) = c.verdict(err, 1e-6);
    out.push(Check {
        case,
        cell: c.name(H),
        measured: err,
        tolerance: "relative <= 1e-6".into(),
        outcome,
        note: note + &why,
    });
}

/// The bead sliding to rest on the slab: its stopping time and distance, and the slab held.
fn sliding(sel: &Selection, out: &mut Vec<Check>, planar: bool) {
    let v0 = MU * G * T_STOP;
    let scene = bead_on_slab(planar, v0);
    let exact = v0 * v0 / (2.0 * MU * G);
    // The bead's first coordinate in q and in v (after the slab's).
    let (bead_q, bead_v) = if planar { (3, 3) } else { (7, 6) };
    let where_ = if planar { "in the plane" } else { "in space" };
    for c in contact_cells(sel) {
        let Some((coarse, fine)) = c.halved(&scene, H) else { continue };
        let stop = stopping_time(&coarse, bead_v, v0);
        let x = |r: &RunResult| r.samples.last().expect("a final sample").q[bead_q] - X0;
        let distance = 2.0 * x(&fine) - x(&coarse);
        let slab = coarse.samples.iter().map(|s| s.q[0].abs()).fold(0.0, f64::max);
        let case = |what: &str| format!("bead sliding to rest on a slab {where_}, mu = 0.3 ({what})");
        let time = (stop - T_STOP).abs() / T_STOP;
        let note = format!(
            "relative error of the first step with |v| <= 1e-9 v0 (1 s when none) vs T = v0/(mu g) = {T_STOP} s, h = 1/60 s"
        );
        check(&c, case("stopping time"), time, note, out);
        let note = format!(
            "relative error of 2 x(h/2) - x(h) at 1 s vs v0^2/(2 mu g) = {exact:.6} m, v0 = {v0:.4} m/s, h = 1/60 and 1/120 s"
        );
        check(&c, case("stopping distance"), (distance - exact).abs() / exact, note, out);
        let note = format!(
            "the slab's largest |x| over the run at h = 1/60 s, relative to the stopping distance {exact:.6} m (exact: 0; the floor's friction holds it)"
        );
        check(&c, case("slab held"), slab / exact, note, out);
    }
}

/// The bead on the 30° incline line from both sides of the friction threshold.
fn incline(sel: &Selection, out: &mut Vec<Check>) {
    let (s, c) = std::f64::consts::FRAC_PI_6.sin_cos();
    for (mu, exact, what) in [(0.6, 0.0, "sticks"), (0.55, G * (s - 0.55 * c), "slides")] {
        let scene = bead_on_incline(mu);
        for cell in contact_cells(sel) {
            let Some(spec) = cell.spec(H, 1.0) else { continue };
            let r = run(&scene, &spec);
            let ok = r.summary.status.label() == "ok";
            let a = r.samples.last().filter(|_| ok).map_or(f64::NAN, |x| x.v[0].hypot(x.v[1]) / x.t);
            let err = (a - exact).abs() / if exact > 0.0 { exact } else { G * s };
            let note = format!(
                "|v(1 s)|/1 s vs {exact:.6} m/s^2 (tan 30 = 0.577: {what}), relative to {}; the line tilted, gravity vertical",
                if exact > 0.0 { "it" } else { "g sin 30" }
            );
            check(&cell, format!("bead on a 30 deg incline line in the plane, mu = {mu} ({what})"), err, note, out);
        }
    }
}

/// Every case of this module.
pub(super) fn point_checks(sel: &Selection, out: &mut Vec<Check>) {
    for planar in [true, false] {
        sliding(sel, out, planar);
    }
    incline(sel, out);
}
