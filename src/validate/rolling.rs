//! Contact cases with exact answers (issue "contact dynamics a researcher can trust"):
//!
//! - a sphere on a 30° incline: with friction μ ≥ (2/7) tan α it rolls without slipping, its
//!   centre accelerating at a = (5/7) g sin α; below, it slides at a = g (sin α − μ cos α). The
//!   stepping is velocity level and the contact normal constant, so each step adds exactly a·h to
//!   the velocity down the slope when the step's contact problem is solved exactly: the measured
//!   v(1 s)/1 s is held to 1e-6 relative, the solvers' own accuracy (residual 1e-10);
//! - a solid cylinder on the same incline, lying across it (its axis horizontal): it rolls at
//!   a = (2/3) g sin α when μ ≥ (1/3) tan α and slides at g (sin α − μ cos α) below, held
//!   likewise; it touches along a line, two contact points at its rims, whose two friction rows
//!   along the slope are one constraint written twice (a rank-deficient W every solver must
//!   handle);
//! - a sphere thrown with backspin along the floor: friction at the contact point leaves the
//!   angular momentum about that point unchanged, so once it rolls its speed is
//!   v = (5 v₀ + 2 r ω₀)/7 (a solid sphere) — at every step of a velocity-level stepper too, the
//!   step that ends the slip included: held to 1e-6 relative.

use super::{Check, Selection, tight};
use crate::experiment::{CellSpec, run};
use crate::integrator::Control;
use crate::params::Scalar;
use crate::scene::Scene;

/// The incline's angle α \[rad\] and gravity g \[m/s²\].
const ALPHA: f64 = std::f64::consts::FRAC_PI_6;
const G: f64 = 9.81;

/// A solid sphere (1 kg, radius 0.1 m) at rest on the plane through the origin with normal
/// (−sin α, 0, cos α) (it rises toward +x), friction μ.
fn sphere_on_incline(mu: f64) -> Scene {
    let (s, c) = ALPHA.sin_cos();
    sphere_model(mu, [-0.1 * s, 0.0, 0.1 * c], [-s, 0.0, c], [0.0; 3], [0.0; 3])
}

/// A solid sphere (1 kg, radius 0.1 m, I = 2/5 m r²) at `x` with velocity `v` and angular
/// velocity `w` (world) over the plane through the origin with normal `n`, friction μ.
fn sphere_model(mu: f64, x: [f64; 3], n: [f64; 3], v: [f64; 3], w: [f64; 3]) -> Scene {
    let text = format!(
        "model: rolling_sphere
summary: a solid sphere on a 30 degree incline
length_scale: 1
energy_scale: {{joules: 1, definition: \"m g r\"}}
bodies:
  - {{name: ball, kind: rigid3, mass: 1, inertia: [0.004, 0.004, 0.004], position: {x:?},
     velocity: {v:?}, angular_velocity: {w:?}}}
forces:
  - {{type: gravity, g: [0, 0, -{G}]}}
contact:
  shapes: [{{body: ball, sphere: 0.1}}]
  planes: [{{normal: {n:?}, offset: 0}}]
  friction: {mu}
  margin: 0.01
outputs:
  - {{name: x, value: ball.x}}
",
    );
    crate::scene::model_file::from_text("rolling_sphere.yaml", &text).expect("a valid model").scene
}

/// A solid cylinder (1 kg, radius 0.1 m, length 0.2 m; I = m r²/2 about its axis,
/// m (3 r² + L²)/12 across) lying across the incline of [`sphere_on_incline`] (its axis along y,
/// the body's z axis turned by 90° about x), at rest, friction μ.
fn cylinder_on_incline(mu: f64) -> Scene {
    let (s, c) = ALPHA.sin_cos();
    let (r, half) = (0.1, 0.1);
    let across = (3.0 * r * r + 4.0 * half * half) / 12.0;
    let text = format!(
        "model: rolling_cylinder
summary: a solid cylinder on a 30 degree incline
length_scale: 1
energy_scale: {{joules: 1, definition: \"m g r\"}}
bodies:
  - {{name: roller, kind: rigid3, mass: 1, inertia: [{across}, {across}, {axial}], position: {x:?},
     orientation: {{axis: [1, 0, 0], angle: {quarter}}}}}
forces:
  - {{type: gravity, g: [0, 0, -{G}]}}
contact:
  shapes: [{{body: roller, cylinder: {{radius: {r}, half_height: {half}}}}}]
  planes: [{{normal: {n:?}, offset: 0}}]
  friction: {mu}
  margin: 0.01
outputs:
  - {{name: x, value: roller.x}}
",
        axial = 0.5 * r * r,
        x = [-r * s, 0.0, r * c],
        n = [-s, 0.0, c],
        quarter = std::f64::consts::FRAC_PI_2,
    );
    crate::scene::model_file::from_text("rolling_cylinder.yaml", &text).expect("a valid model").scene
}

const H: f64 = 1.0 / 60.0;

/// The `pgs` cell of `solver` on the cone with tight solves (residual 1e-10), steps of `h` over
/// `duration` \[s\], sampled every 0.5 s with its state recorded.
pub(super) fn cone_cell(
    solver: &crate::linsolve::registry::SolverEntry,
    h: f64,
    duration: f64,
) -> Option<CellSpec<'_>> {
    let params = [
        ("cone", Scalar::Bool(true)),
        ("iterations", Scalar::Num(10_000.0)),
        ("tol", Scalar::Num(1e-14)),
        ("residual_tol", Scalar::Num(1e-10)),
    ];
    let spec =
        CellSpec::named("pgs", &params, solver.name, &tight(solver), None, Control::Fixed { h }, duration).ok()?;
    Some(spec.sampled(0.5).recording())
}

/// Every contact case with an exact answer here, for each `pgs` cell on the cone.
pub(super) fn exact_contact_checks(sel: &Selection, out: &mut Vec<Check>) {
    let (s, c) = ALPHA.sin_cos();
    let down = [-c, 0.0, -s];
    let (v0, w0, r) = (2.0, -10.0, 0.1);
    let backspin = sphere_model(0.3, [0.0, 0.0, r], [0.0, 0.0, 1.0], [v0, 0.0, 0.0], [0.0, w0, 0.0]);
    let rolling = (5.0 * v0 + 2.0 * r * w0) / 7.0;
    // (case, scene, exact value, measured from the last sample, what the note says)
    type Measure = fn(&crate::experiment::Sample, [f64; 3]) -> f64;
    let along: Measure = |x, d| (0..3).map(|k| x.v[k] * d[k]).sum::<f64>() / x.t;
    let speed: Measure = |x, _| x.v[0];
    let mut cases: Vec<(String, Scene, f64, Measure, String)> = Vec::new();
    // (body, how it lies, its scene, a = ratio g sin α when it rolls, the rolling condition)
    type OnIncline = fn(f64) -> Scene;
    let bodies: [(&str, &str, OnIncline, f64, &str, &str); 2] = [
        ("sphere", "on", sphere_on_incline, 5.0 / 7.0, "", "5/7"),
        ("cylinder", "across", cylinder_on_incline, 2.0 / 3.0, " (mu >= tan 30 / 3 = 0.19)", "2/3"),
    ];
    for (body, lies, on_incline, ratio, condition, fraction) in bodies {
        let slope = "relative error of v(1 s)/1 s down the slope";
        cases.push((
            format!("{body} {lies} a 30 deg incline, mu = 0.3 (rolling)"),
            on_incline(0.3),
            ratio * G * s,
            along,
            format!("{slope}; rolls{condition}: a = {fraction} g sin 30"),
        ));
        cases.push((
            format!("{body} {lies} a 30 deg incline, mu = 0.1 (sliding)"),
            on_incline(0.1),
            G * (s - 0.1 * c),
            along,
            format!("{slope}; slides: a = g (sin 30 - mu cos 30)"),
        ));
    }
    cases.push((
        "sphere thrown with backspin on the floor (sliding to rolling)".into(),
        backspin,
        rolling,
        speed,
        "relative error of the rolling speed at 1 s vs (5 v0 + 2 r w0)/7, v0 = 2 m/s, w0 = -10 rad/s, r = 0.1 m, mu = 0.3".into(),
    ));
    for (case, scene, exact, measure, what) in &cases {
        for c in super::impacts::contact_cells(sel) {
            let Some(spec) = c.spec(H, 1.0) else { continue };
            let r = run(scene, &spec);
            let last = r.samples.last().expect("a final sample");
            let ok = r.summary.status.label() == "ok";
            let rel = if ok { (measure(last, down) - exact).abs() / exact } else { f64::NAN };
            let (outcome, why) = c.verdict(rel, 1e-6);
            out.push(Check {
                case: case.clone(),
                cell: c.name(H),
                measured: rel,
                tolerance: "relative <= 1e-6".into(),
                outcome,
                note: format!("{what} = {exact:.6}{why}"),
            });
        }
    }
}
