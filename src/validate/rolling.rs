//! A sphere on a 30° incline (issue "contact dynamics a researcher can trust", exact answers):
//! with friction μ ≥ (2/7) tan α it rolls without slipping, its centre accelerating at
//! a = (5/7) g sin α; below, it slides at a = g (sin α − μ cos α). The stepping is velocity
//! level and the contact normal constant, so each step adds exactly a·h to the velocity down the
//! slope when the step's contact problem is solved exactly: the measured v(1 s)/1 s is held to
//! 1e-6 relative, the solvers' own accuracy (residual 1e-10).

use super::{Check, Outcome, Selection, cell_name, tight};
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
    let text = format!(
        "model: rolling_sphere
summary: a solid sphere on a 30 degree incline
length_scale: 1
energy_scale: {{joules: 1, definition: \"m g r\"}}
bodies:
  - {{name: ball, kind: rigid3, mass: 1, inertia: [0.004, 0.004, 0.004], position: [{x}, 0, {z}]}}
forces:
  - {{type: gravity, g: [0, 0, -{G}]}}
contact:
  shapes: [{{body: ball, sphere: 0.1}}]
  planes: [{{normal: [{nx}, 0, {c}], offset: 0}}]
  friction: {mu}
  margin: 0.01
outputs:
  - {{name: x, value: ball.x}}
",
        x = -0.1 * s,
        z = 0.1 * c,
        nx = -s,
    );
    crate::scene::model_file::from_text("rolling_sphere.yaml", &text).expect("a valid model").scene
}

/// Rolling (μ = 0.3 ≥ (2/7) tan 30° = 0.165) and sliding (μ = 0.1) for every contact-capable
/// stepping cell on the true cone.
pub fn sphere_on_incline_checks(sel: &Selection, out: &mut Vec<Check>) {
    let (s, c) = ALPHA.sin_cos();
    let down = [-c, 0.0, -s];
    for (mu, rolls) in [(0.3, true), (0.1, false)] {
        let scene = sphere_on_incline(mu);
        let exact = if rolls { 5.0 / 7.0 * G * s } else { G * (s - mu * c) };
        for f in sel.formulations.iter().filter(|f| f.name == "pgs" && sel.own_steppers) {
            for solver in sel.solvers.iter().filter(|s| f.pairs_with(s)) {
                let params = [
                    ("cone", Scalar::Bool(true)),
                    ("iterations", Scalar::Num(10_000.0)),
                    ("tol", Scalar::Num(1e-14)),
                    ("residual_tol", Scalar::Num(1e-10)),
                ];
                let h = 1.0 / 60.0;
                let Ok(spec) =
                    CellSpec::named("pgs", &params, solver.name, &tight(solver), None, Control::Fixed { h }, 1.0)
                else {
                    continue;
                };
                let r = run(&scene, &spec.sampled(0.5).recording());
                let last = r.samples.last().expect("a final sample");
                let a = (0..3).map(|k| last.v[k] * down[k]).sum::<f64>() / last.t;
                let rel = if r.summary.status.label() == "ok" { (a - exact).abs() / exact } else { f64::NAN };
                let entry = crate::friction::solvers::find(solver.name);
                let other = entry.is_some_and(|e| !e.coulomb());
                let outcome = match (rel <= 1e-6, other) {
                    (true, _) => Outcome::Pass,
                    (false, true) => Outcome::AsPredicted,
                    (false, false) => Outcome::Fail,
                };
                let what = if rolls { "rolls: a = 5/7 g sin 30" } else { "slides: a = g (sin 30 - mu cos 30)" };
                let mut note = format!("relative error of v(1 s)/1 s down the slope; {what} = {exact:.6} m/s^2");
                if other && outcome == Outcome::AsPredicted {
                    note.push_str(&format!(
                        "; {} solves another problem (a relaxation, a regularisation or the pyramid), not Coulomb's",
                        solver.name
                    ));
                }
                out.push(Check {
                    case: format!(
                        "sphere on a 30 deg incline, mu = {mu} ({})",
                        if rolls { "rolling" } else { "sliding" }
                    ),
                    cell: format!("{} (cone)", cell_name(f, solver, None, Control::Fixed { h })),
                    measured: rel,
                    tolerance: "relative <= 1e-6".into(),
                    outcome,
                    note,
                });
            }
        }
    }
}
