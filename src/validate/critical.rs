//! The critical friction of structures held by friction alone (issue "contact dynamics a
//! researcher can trust"), in the plane, with one μ at every contact: a plank leaning on a wall
//! (the leaning card of a card house), and two cards leaning on each other (a card house's unit).
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
//!
//! The two cards (each as the plank) stand on the floor at their lower corners: the left one
//! leans right at 35° from the vertical, and its upper corner rests on the face of the right one,
//! which leans left at 25°, about 0.1 m below its top. Two bodies, three contacts: the six
//! equations of their balance fix the six contact forces, so the structure stands exactly when
//! every contact's |F|/N is at most μ: μ* = max |F|/N (the 6×6 system solved by LU).

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

/// The two cards with friction μ at their three contacts.
fn two_cards(mu: f64) -> Scene {
    let g = cards();
    let inertia = ((2.0 * A).powi(2) + (2.0 * B).powi(2)) / 12.0;
    let card = |n: &str, c: [f64; 2], angle: f64| {
        format!(
            "  - {{name: {n}, kind: rigid2, mass: 1, inertia: {inertia}, position: [{}, {}], angle: {angle}}}\n",
            c[0], c[1]
        )
    };
    let text = format!(
        "model: two_cards
summary: two cards leaning on each other, held by friction
length_scale: 1
energy_scale: {{joules: 10, definition: \"2 m g a\"}}
bodies:
{}{}forces:
  - {{type: gravity, g: [0, -9.81]}}
contact:
  shapes: [{{body: left, box: [{B}, {A}]}}, {{body: right, box: [{B}, {A}]}}]
  planes: [{{normal: [0, 1], offset: 0}}]
  friction: {mu}
  margin: 0.001
",
        card("left", g.centres[0], -g.angles[0]),
        card("right", g.centres[1], g.angles[1])
    );
    crate::scene::model_file::from_text("two_cards.yaml", &text).expect("a valid model").scene
}

/// The two cards' geometry: each card's centre and lean from the vertical (left leaning right,
/// right leaning left), the feet (lower corners on the floor) and the contact point of the left
/// card's upper corner on the right card's face, with that face's outward normal.
struct Cards {
    centres: [[f64; 2]; 2],
    angles: [f64; 2],
    feet: [[f64; 2]; 2],
    touch: [f64; 2],
    normal: [f64; 2],
}

fn cards() -> Cards {
    let (t1, t2) = (35f64.to_radians(), 25f64.to_radians());
    // A card at angle φ (counter-clockwise): body point (x, y) at c + R(φ)(x, y).
    let at = |c: [f64; 2], phi: f64, p: [f64; 2]| {
        let (s, k) = phi.sin_cos();
        [c[0] + k * p[0] - s * p[1], c[1] + s * p[0] + k * p[1]]
    };
    // The left card (φ = −t1): its corner (b, −a) on the floor at the origin.
    let foot1 = [0.0, 0.0];
    let c1 = {
        let d = at([0.0, 0.0], -t1, [B, -A]);
        [-d[0], -d[1]]
    };
    let touch = at(c1, -t1, [B, A]);
    // The right card (φ = t2): its face x = −b passes through the touch point, its corner (−b, −a)
    // on the floor: the face runs up from that foot along (−sin t2, cos t2), reaching the touch at
    // length touch.y / cos t2.
    let along = touch[1] / t2.cos();
    let foot2 = [touch[0] + along * t2.sin(), 0.0];
    let c2 = {
        let d = at([0.0, 0.0], t2, [-B, -A]);
        [foot2[0] - d[0], -d[1]]
    };
    let normal = [-t2.cos(), -t2.sin()];
    Cards { centres: [c1, c2], angles: [t1, t2], feet: [foot1, foot2], touch, normal }
}

/// μ* of the two cards: the six contact forces from the six balance equations, then the largest
/// |F|/N (NaN when a normal force is not positive: the structure cannot stand).
fn cards_critical() -> f64 {
    let g = cards();
    let w = 9.81;
    // Unknowns: (N1, F1) at the left foot, (N2, F2) at the right foot (N up, F along +x), (Nc, Fc)
    // at the touch, acting on the left card along the right card's outward normal n and tangent
    // t = (−n_y, n_x), and on the right card opposite.
    let (n, t) = (g.normal, [-g.normal[1], g.normal[0]]);
    let cross = |r: [f64; 2], f: [f64; 2]| r[0] * f[1] - r[1] * f[0];
    let mut m = nalgebra::Matrix6::<f64>::zeros();
    let mut rhs = nalgebra::Vector6::<f64>::zeros();
    for (card, sign) in [(0usize, 1.0), (1, -1.0)] {
        let c = g.centres[card];
        let rel = |p: [f64; 2]| [p[0] - c[0], p[1] - c[1]];
        let (row_x, row_y, row_m) = (3 * card, 3 * card + 1, 3 * card + 2);
        let foot = rel(g.feet[card]);
        // The foot's normal force (up) and friction (along x).
        m[(row_y, 2 * card)] = 1.0;
        m[(row_m, 2 * card)] = cross(foot, [0.0, 1.0]);
        m[(row_x, 2 * card + 1)] = 1.0;
        m[(row_m, 2 * card + 1)] = cross(foot, [1.0, 0.0]);
        // The touch.
        let r = rel(g.touch);
        for (k, d) in [(4, n), (5, t)] {
            m[(row_x, k)] = sign * d[0];
            m[(row_y, k)] = sign * d[1];
            m[(row_m, k)] = sign * cross(r, d);
        }
        rhs[row_y] = w;
    }
    let Some(f) = m.lu().solve(&rhs) else { return f64::NAN };
    let pairs = [(f[0], f[1]), (f[2], f[3]), (f[4], f[5])];
    if pairs.iter().any(|(nf, _)| *nf <= 0.0) {
        return f64::NAN;
    }
    pairs.iter().map(|(nf, ff)| ff.abs() / nf).fold(0.0, f64::max)
}

/// The least μ at which `scene(μ)` stands under `spec` (every velocity below 10⁻⁸ after its run),
/// by bisection on \[0, 1\] (40 halvings); NaN when it stood at μ = 0 or fell at 1.
fn threshold(scene: &dyn Fn(f64) -> Scene, spec: &crate::experiment::CellSpec) -> f64 {
    let stands = |mu: f64| {
        let r = run(&scene(mu), spec);
        let last = r.samples.last().filter(|_| r.summary.status.label() == "ok");
        last.is_some_and(|x| x.v.iter().all(|v| v.abs() <= 1e-8))
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    if !stands(hi) || stands(lo) {
        return f64::NAN;
    }
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if stands(mid) { hi = mid } else { lo = mid }
    }
    hi
}

/// A structure of the checks: its case name, its scene at friction μ, μ* and how μ* is known.
type Structure<'a> = (&'a str, &'a dyn Fn(f64) -> Scene, f64, &'a str);

/// Each `pgs` cell's critical μ on each structure, against its μ*.
pub(super) fn critical_friction(sel: &Selection, out: &mut Vec<Check>) {
    let structures: [Structure; 2] = [
        (
            "plank leaning on a wall in the plane, 30 deg (critical friction)",
            &plank,
            critical(),
            "from the statics of its two corners (tan 15 deg = 0.26795 for a thin plank)",
        ),
        (
            "two cards leaning on each other in the plane, 35 and 25 deg (critical friction)",
            &two_cards,
            cards_critical(),
            "the largest |F|/N of the three contact forces that balance the two cards",
        ),
    ];
    for (f, solver) in pgs_cells(sel) {
        let Some(spec) = cone_cell(solver, H, 2.0) else { continue };
        for (case, scene, exact, how) in structures {
            let found = threshold(scene, &spec);
            let rel = (found - exact).abs() / exact;
            let (outcome, why) = verdict(rel, 1e-6, solver.name);
            out.push(Check {
                case: case.into(),
                cell: format!("{} (cone)", cell_name(f, solver, None, Control::Fixed { h: H })),
                measured: rel,
                tolerance: "relative <= 1e-6".into(),
                outcome,
                note: format!(
                    "the least mu at which it stands (bisection; NaN: it stood at mu = 0 or fell at 1) = {found:.8} vs mu* = {exact:.8} {how}{why}"
                ),
            });
        }
    }
}
