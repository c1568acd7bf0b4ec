//! The critical friction of a structure held by friction alone (issue "contact dynamics a
//! researcher can trust"): a plank leaning on a wall — the leaning card of a card house — in the
//! plane, with the same μ at the floor and at the wall.
//!
//! The plank (length 2a = 1 m, thickness 2b = 2 cm, 1 kg) leans at θ = 30° from the vertical, its
//! lower corner on the floor at P_f = (x_f, 0) and its upper corner on the wall x = 0 at
//! P_w = (0, y_w), its centre at x_g from the wall. With both contacts at the limit of the cone
//! (F_f = μ N_f, F_w = μ N_w), force and moment balance about P_f give
//! x_g μ² + y_w μ − (x_f − x_g) = 0, so it stands exactly when
//! μ ≥ μ* = (−y_w + √(y_w² + 4 x_g (x_f − x_g))) / (2 x_g) (tan(θ/2) for a thin plank).
//! A velocity-level step from rest sticks exactly when the static problem has a solution at q₀,
//! so the threshold of the time stepping is μ* itself: each `pgs` cell's threshold is found by
//! bisection on μ (stands: every velocity below 10⁻⁸ after 2 s) and held to 1e-6 relative.

use super::impacts::{pgs_cells, verdict};
use super::{Check, Selection, cell_name, rolling::cone_cell};
use crate::experiment::run;
use crate::integrator::Control;
use crate::scene::Scene;

const A: f64 = 0.5;
const B: f64 = 0.01;
const THETA: f64 = std::f64::consts::FRAC_PI_6;
const H: f64 = 1.0 / 60.0;

/// The plank with friction μ at both contacts, touching the floor and the wall at its corners.
fn plank(mu: f64) -> Scene {
    let (s, c) = THETA.sin_cos();
    let (x, y) = (B * c + A * s, B * s + A * c);
    let inertia = ((2.0 * A).powi(2) + (2.0 * B).powi(2)) / 12.0;
    let text = format!(
        "model: leaning_plank
summary: a plank leaning on a wall, held by friction
length_scale: 1
energy_scale: {{joules: 5, definition: \"m g a\"}}
bodies:
  - {{name: plank, kind: rigid2, mass: 1, inertia: {inertia}, position: [{x}, {y}], angle: {THETA}}}
forces:
  - {{type: gravity, g: [0, -9.81]}}
contact:
  shapes: [{{body: plank, box: [{B}, {A}]}}]
  planes: [{{normal: [0, 1], offset: 0}}, {{normal: [1, 0], offset: 0}}]
  friction: {mu}
  margin: 0.01
"
    );
    crate::scene::model_file::from_text("leaning_plank.yaml", &text).expect("a valid model").scene
}

/// μ* from the contact geometry.
fn critical() -> f64 {
    let (s, c) = THETA.sin_cos();
    let (xf, yw, xg) = (2.0 * A * s, 2.0 * A * c, A * s + B * c);
    (-yw + (yw * yw + 4.0 * xg * (xf - xg)).sqrt()) / (2.0 * xg)
}

/// Each `pgs` cell's critical μ by bisection on \[0, 1\] (40 halvings), against μ*.
pub(super) fn critical_friction(sel: &Selection, out: &mut Vec<Check>) {
    let exact = critical();
    for (f, solver) in pgs_cells(sel) {
        let Some(spec) = cone_cell(solver, H, 2.0) else { continue };
        let stands = |mu: f64| {
            let r = run(&plank(mu), &spec);
            let last = r.samples.last().filter(|_| r.summary.status.label() == "ok");
            last.is_some_and(|x| x.v.iter().all(|v| v.abs() <= 1e-8))
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        let found = if stands(hi) && !stands(lo) {
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if stands(mid) { hi = mid } else { lo = mid }
            }
            hi
        } else {
            f64::NAN
        };
        let rel = (found - exact).abs() / exact;
        let (outcome, why) = verdict(rel, 1e-6, solver.name);
        out.push(Check {
            case: "plank leaning on a wall in the plane, 30 deg (critical friction)".into(),
            cell: format!("{} (cone)", cell_name(f, solver, None, Control::Fixed { h: H })),
            measured: rel,
            tolerance: "relative <= 1e-6".into(),
            outcome,
            note: format!(
                "the least mu at which it stands (bisection; NaN: it stood at mu = 0 or fell at 1) = {found:.8} vs mu* = {exact:.8} from the statics of its two corners (tan 15 deg = 0.26795 for a thin plank){why}"
            ),
        });
    }
}
