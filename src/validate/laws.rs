//! Laws every cell or method must obey: virtual-work orthogonality of the constraint force, bounded
//! drift, the energy behaviour of each integrator, and the Baumgarte stability bound.

use super::{Check, Outcome, Selection, cell_name, run_cell};
use crate::constraint::Line;
use crate::formulation::registry::FormulationKind;
use crate::formulation::{Dynamics, SecondOrderOde, SolverCounters};
use crate::integrator::registry::IntegratorKind;
use crate::integrator::{Control, Integrator, registry as integrators};
use crate::linsolve::SolveError;
use crate::metrics::linear_fit;
use crate::model::{Body, Force};
use crate::params::Scalar;
use crate::scene::registry as scenes;
use crate::scene::{EnergyScale, Scene};
use crate::system::System;
use nalgebra::{DMatrix, DVector};

/// The scenes orthogonality is checked on: every registered scene without contact (contact rows
/// are inequalities, outside this law), at its test size, with whether its applied forces depend on
/// the velocity (then a stepper's implied force, which averages the applied force over the step,
/// is inexact, and only the ODE formulations are checked there). Also the constraint types that
/// none of them contains, so that a gap in coverage is reported rather than passed over.
/// The scenes of the orthogonality check: every registered scene (small) and every shipped model,
/// without contact, each with whether it has velocity-dependent forces; and the registered
/// constraint types none of them contains.
fn ortho_scenes() -> (Vec<(String, Scene, bool)>, Vec<&'static str>) {
    let (mut out, mut kinds) = (Vec::new(), Vec::new());
    let registered =
        crate::registry::active().scenes().iter().filter_map(|e| Some((e.name.to_string(), e.build_small().ok()?)));
    let models = crate::scene::model_file::SHIPPED.iter().filter_map(|(path, text)| {
        Some((path.to_string(), crate::scene::model_file::from_embedded(path, text).ok()?.scene))
    });
    for (name, scene) in registered.chain(models) {
        if scene.system.contacts().is_some() {
            continue;
        }
        let velocity_dependent = scene.system.forces().iter().any(|f| match f {
            crate::model::Force::Gyroscopic => true,
            crate::model::Force::SpringDamper { damping, .. } => *damping != 0.0,
            _ => false,
        });
        // Redundant rows (Bricard's mechanism) make J W Jᵀ singular: the check is for full rank.
        let rows = scene.system.nrows();
        if rows > 0 && dense_jacobian(&scene, &scene.q0).svd(false, false).rank(1e-10) < rows {
            continue;
        }
        kinds.extend(scene.system.constraints().iter().map(|c| c.kind()));
        out.push((name, scene, velocity_dependent));
    }
    let missing =
        crate::constraint::registry::CONSTRAINTS.iter().map(|c| c.name).filter(|k| !kinds.contains(k)).collect();
    (out, missing)
}

fn build(name: &str, params: &[(&str, f64)]) -> Scene {
    let given: Vec<(&str, Scalar)> = params.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
    scenes::find(name).expect("registered scene").build_default(&given).expect("valid built-in parameters")
}

/// Orthonormal basis of null(J(q0)) (columns), from the eigenvectors of JᵀJ with eigenvalue
/// ≤ 1e-12·max: the legal velocities of the scene at its current q0.
pub fn null_space(scene: &Scene) -> DMatrix<f64> {
    let sys = &scene.system;
    let (m, n) = (sys.nrows(), sys.ndof());
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&scene.q0, &mut jac);
    let mut dense = vec![0.0; m * n];
    jac.to_dense(&mut dense);
    let j = DMatrix::from_column_slice(m, n, &dense);
    let eig = (j.transpose() * &j).symmetric_eigen();
    let max = eig.eigenvalues.amax().max(1e-300);
    let cols: Vec<DVector<f64>> = (0..n)
        .filter(|&k| eig.eigenvalues[k] <= 1e-12 * max)
        .map(|k| eig.eigenvectors.column(k).into_owned())
        .collect();
    DMatrix::from_columns(&cols)
}

use crate::experiment::check::dense_jacobian;

/// How far a constraint force `qhat` is from doing no virtual work: the norm of its component
/// outside range([J(q0)ᵀ, J(q1)ᵀ]) (least squares), divided by `scale`. For an ODE formulation
/// q1 = q0 and this is ‖Nᵀ Q̂‖ with N a basis of null(J); for a stepper q1 is the end of its step,
/// since a step may apply ideal forces at both ends (RATTLE: Jₙᵀ Λ, then Jₙ₊₁ᵀ μ).
pub fn off_gradient_ratio(scene: &Scene, q1: &[f64], qhat: &DVector<f64>, scale: f64) -> f64 {
    if qhat.norm() == 0.0 {
        return 0.0; // no constraint force, no virtual work (also when the force scale is 0)
    }
    if scene.system.nrows() == 0 {
        return qhat.norm() / scale; // no constraints: any constraint force is off range(Jᵀ) = {0}
    }
    let (mut j0, mut j1) = (dense_jacobian(scene, &scene.q0), dense_jacobian(scene, q1));
    // A driven scene's clock (infinitely heavy, W = 0) takes no constraint force: its column of J
    // (−f′(s) of each drive row) is not part of the force the bodies feel, so it is left out.
    let mut qhat = qhat.clone();
    let sys = &scene.system;
    for (b, body) in sys.bodies().iter().enumerate().filter(|(_, b)| b.kind == crate::model::BodyKind::Clock) {
        let col = sys.offsets()[b];
        debug_assert_eq!(body.kind.dof(), 1);
        j0.column_mut(col).fill(0.0);
        j1.column_mut(col).fill(0.0);
        qhat[col] = 0.0;
    }
    let qhat = &qhat;
    let g = if q1 == scene.q0.as_slice() {
        j0.transpose()
    } else {
        DMatrix::from_columns(
            &[j0.transpose()
                .column_iter()
                .chain(j1.transpose().column_iter())
                .map(|c| c.into_owned())
                .collect::<Vec<_>>()]
            .concat(),
        )
    };
    // The component outside range(G) is qhat − B Bᵀ qhat for an orthonormal basis B of range(G),
    // taken from the SVD of whichever of G and Gᵀ is tall: nalgebra's SVD of a wide matrix can be
    // inaccurate (measured: a least-squares residual of 1.1e-6 where the normal equations and the
    // tall SVD both give 1e-14, for a 36 × 46 G = [J₀ᵀ, J₁ᵀ] of the small cloth).
    let basis = if g.nrows() >= g.ncols() {
        let svd = g.svd(true, false);
        let tol = 1e-12 * svd.singular_values.max();
        let Some(u) = svd.u else { return f64::NAN };
        let keep: Vec<usize> = (0..svd.singular_values.len()).filter(|&k| svd.singular_values[k] > tol).collect();
        DMatrix::from_columns(&keep.iter().map(|&k| u.column(k).into_owned()).collect::<Vec<_>>())
    } else {
        let svd = g.transpose().svd(false, true);
        let tol = 1e-12 * svd.singular_values.max();
        let Some(v_t) = svd.v_t else { return f64::NAN };
        let keep: Vec<usize> = (0..svd.singular_values.len()).filter(|&k| svd.singular_values[k] > tol).collect();
        DMatrix::from_columns(&keep.iter().map(|&k| v_t.row(k).transpose()).collect::<Vec<_>>())
    };
    if basis.ncols() == 0 {
        return qhat.norm() / scale;
    }
    (qhat - &basis * (basis.transpose() * qhat)).norm() / scale
}

/// The constraint force M q̈ − Q the cell applies at (q0, v0), from its own acceleration or step,
/// the scale of the applied force Q (it normalizes the check when the constraint force vanishes),
/// and the configuration at the end of the step (q0 for ODE formulations).
fn applied_constraint_force(dynamics: Dynamics, scene: &Scene) -> Result<(DVector<f64>, f64, Vec<f64>), SolveError> {
    let sys = &scene.system;
    let n = sys.ndof();
    let mut q_force = vec![0.0; n];
    let mut qhat = vec![0.0; n];
    let mut q_end = scene.q0.clone();
    match dynamics {
        Dynamics::Ode(mut ode) => {
            let (nx, d) = (ode.position_dim(), ode.dim());
            let (mut x, mut xd, mut a) = (vec![0.0; nx], vec![0.0; d], vec![0.0; d]);
            ode.initial(&mut x, &mut xd);
            ode.accel(&x, &xd, &mut a)?;
            let (mut q, mut v, mut qdd) = (vec![0.0; sys.nq()], vec![0.0; n], vec![0.0; n]);
            ode.cartesian(&x, &xd, &mut q, &mut v);
            ode.cartesian_acceleration(&x, &xd, &a, &mut qdd);
            sys.applied_forces(&q, &v, &mut q_force);
            for i in 0..n {
                qhat[i] = sys.mass()[i] * qdd[i] - q_force[i];
            }
        }
        Dynamics::Stepper(mut st) => {
            let h = 1e-3;
            let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
            st.step(h, &mut q, &mut v)?;
            // Applied forces averaged over the step's ends (RATTLE kicks with half of each).
            let mut q_force1 = vec![0.0; n];
            sys.applied_forces(&scene.q0, &scene.v0, &mut q_force);
            sys.applied_forces(&q, &v, &mut q_force1);
            let stepper_avg = |a: f64, b: f64| 0.5 * (a + b);
            for i in 0..n {
                let q_avg = stepper_avg(q_force[i], q_force1[i]);
                qhat[i] = sys.mass()[i] * (v[i] - scene.v0[i]) / h - q_avg;
                q_force[i] = q_avg;
            }
            q_end = q;
        }
    }
    let q_norm = q_force.iter().map(|x| x * x).sum::<f64>().sqrt();
    Ok((DVector::from_vec(qhat), q_norm, q_end))
}

/// ‖Nᵀ Q̂‖ ≤ 1e-10 ‖Q̂‖ at legal velocities on every scene, per formulation × solver.
pub(super) fn orthogonality(sel: &Selection, out: &mut Vec<Check>) {
    let (mut ortho, missing) = ortho_scenes();
    let kinds = crate::constraint::registry::CONSTRAINTS.len();
    out.push(Check {
        case: "virtual-work orthogonality: coverage".into(),
        cell: format!("{} scenes without contact", ortho.len()),
        measured: missing.len() as f64,
        tolerance: "0 constraint types missing".into(),
        outcome: if missing.is_empty() { Outcome::Pass } else { Outcome::Fail },
        note: if missing.is_empty() {
            format!("the scenes together contain all {kinds} registered constraint types")
        } else {
            format!("no scene without contact contains: {}", missing.join(", "))
        },
    });
    for f in &sel.formulations {
        for s in sel.solvers.iter().filter(|s| f.pairs_with(s)) {
            let (mut worst, mut ran, mut solver_error) = (0.0f64, false, None);
            for (name, scene, velocity_dependent) in ortho.iter_mut() {
                if *velocity_dependent && f.kind == FormulationKind::Stepper {
                    continue;
                }
                let nul = null_space(scene);
                // A legal velocity: v = N r with a fixed, varied r.
                let r = DVector::from_fn(nul.ncols(), |i, _| (1.3 * i as f64 + 0.7).sin());
                scene.v0 = (&nul * r).as_slice().to_vec();
                let fp = f.params.defaults();
                let Ok(sp) = s.params.with(s.name, &super::tight(s)) else { continue };
                let Ok(dynamics) = (f.build)(&fp, scene, (s.build)(&sp)) else { continue };
                match applied_constraint_force(dynamics, scene) {
                    Ok((qhat, q_norm, q_end)) => {
                        ran = true;
                        // Relative to the force scale of the system: where the constraint force is
                        // zero (a first impulse step with tangent velocity and tangent gravity), its
                        // rounding noise must not count as a violation.
                        let norm = qhat.norm().max(q_norm);
                        if norm > 0.0 {
                            worst = worst.max(off_gradient_ratio(scene, &q_end, &qhat, norm));
                        }
                    }
                    Err(e) => solver_error = Some(format!("{name}: {e}")),
                }
            }
            let cell = format!("{} · {}", f.name, s.name);
            let note = "max over the scenes (every one without contact and with J of full rank at q0; steppers skip those with velocity-dependent forces) at legal velocities of the part of Qc outside range(J^T) (for steppers: range of J^T at both ends of a 1e-3 s step), over max(|Qc|, |Q|); Qc = M qdd - Q from the cell's own acceleration or step";
            if let Some(e) = solver_error.as_ref().filter(|_| !ran) {
                out.push(Check {
                    case: "virtual-work orthogonality".into(),
                    cell,
                    measured: f64::NAN,
                    tolerance: "not measured".into(),
                    outcome: Outcome::Info,
                    note: format!("the linear solver failed even at tol 1e-13 with 1e5 iterations ({e}); a solver limit, not a property of the formulation"),
                });
            } else if ran {
                out.push(Check {
                    case: "virtual-work orthogonality".into(),
                    cell,
                    measured: worst,
                    tolerance: "<= 1e-10".into(),
                    outcome: if worst <= 1e-10 { Outcome::Pass } else { Outcome::Fail },
                    note: match &solver_error {
                        Some(e) => format!("{note}; not measured where the linear solver failed even at tol 1e-13 with 1e5 iterations (a solver limit; the last: {e})"),
                        None => note.into(),
                    },
                });
            }
        }
    }
}

/// How to advance a formulation when exercising it: its own stepping for a stepper (when
/// selected), else the most accurate fixed-step integrator selected.
fn reference_stepping(
    sel: &Selection,
    f: &crate::formulation::registry::FormulationEntry,
) -> Option<Option<&'static integrators::IntegratorEntry>> {
    if f.kind == FormulationKind::Stepper {
        return super::own_stepping(sel, f);
    }
    let best = sel.integrators.iter().copied().filter_map(|i| match i.kind() {
        IntegratorKind::Fixed { order } => Some((order, i)),
        _ => None,
    });
    best.max_by_key(|(o, _)| *o).map(|(_, i)| Some(i))
}

/// Max ‖C‖∞ ≤ 1e-2 m over 5 s of the pendulum (θ₀ = 1 rad) at h = 1/100, per formulation × solver.
pub(super) fn drift(sel: &Selection, out: &mut Vec<Check>) {
    let scene = build("pendulum", &[("theta0", 1.0)]);
    for f in &sel.formulations {
        let Some(i) = reference_stepping(sel, f) else { continue };
        for s in &sel.solvers {
            let control = Control::Fixed { h: 0.01 };
            let Some(r) = run_cell(&scene, f, s, i, control, 5.0, 0.05) else { continue };
            let ok = r.summary.status.label() == "ok";
            let d = r.summary.max_drift_position;
            out.push(Check {
                case: "bounded drift (pendulum, 5 s)".into(),
                cell: cell_name(f, s, i, control),
                measured: d,
                tolerance: "<= 1e-2 m".into(),
                outcome: if ok && d <= 1e-2 { Outcome::Pass } else { Outcome::Fail },
                note: if ok {
                    "max |C|inf over the run: 1 % of the rod length".into()
                } else {
                    format!("run ended: {:?}", r.summary.status)
                },
            });
        }
    }
}

/// Reports (does not assert) the power of the constraint force along a pendulum run.
pub(super) fn feedback_power(sel: &Selection, out: &mut Vec<Check>) {
    let scene = build("pendulum", &[("theta0", 1.0)]);
    for f in &sel.formulations {
        let Some(i) = reference_stepping(sel, f) else { continue };
        let Some(s) = sel.solvers.first() else { continue };
        let control = Control::Fixed { h: 0.01 };
        let Some(r) = run_cell(&scene, f, s, i, control, 2.0, 0.01) else { continue };
        out.push(Check {
            case: "constraint power (pendulum, 2 s)".into(),
            cell: cell_name(f, s, i, control),
            measured: r.summary.max_abs_power,
            tolerance: "reported".into(),
            outcome: Outcome::Info,
            note: "max |Qc.v| [W] along the numerical motion: ideal constraints do no work, Baumgarte feedback (ks, kd, beta) and off-manifold velocities do".into(),
        });
    }
}

/// ẍ = −ω² x (harmonic oscillator) or θ̈ = −(g/L) sin θ (pendulum), as a bare ODE.
struct TestOde {
    omega2: f64,
    nonlinear: bool,
}

impl SecondOrderOde for TestOde {
    fn dim(&self) -> usize {
        1
    }
    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        x[0] = 1.0;
        xd[0] = 0.0;
    }
    fn accel(&mut self, x: &[f64], _xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        a[0] = if self.nonlinear { -self.omega2 * x[0].sin() } else { -self.omega2 * x[0] };
        Ok(())
    }
    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        q[0] = x[0];
        v[0] = xd[0];
    }
    fn cartesian_acceleration(&self, _x: &[f64], _xd: &[f64], a: &[f64], out: &mut [f64]) {
        out[0] = a[0];
    }
    fn constraint_force(&mut self, _x: &[f64], _xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        out[0] = 0.0;
        Ok(())
    }
    fn solver_counters(&self) -> SolverCounters {
        SolverCounters::default()
    }
}

impl TestOde {
    fn energy(&self, x: f64, xd: f64) -> f64 {
        if self.nonlinear { 0.5 * xd * xd - self.omega2 * x.cos() } else { 0.5 * xd * xd + 0.5 * self.omega2 * x * x }
    }
}

fn integrator(name: &str, h: f64) -> Option<Box<dyn Integrator>> {
    let e = integrators::find(name)?;
    let mut i = e.build(Control::Fixed { h }).ok()?;
    i.prepare(1, 1);
    Some(i)
}

/// Energy behaviour per integrator: explicit Euler's growth factor, bounded energy of the
/// symplectic methods, RK4's h⁴ energy error.
pub(super) fn energy_laws(sel: &Selection, out: &mut Vec<Check>) {
    let names: Vec<&str> = sel.integrators.iter().map(|i| i.name).collect();
    if names.contains(&"explicit_euler") {
        euler_growth(out);
    }
    for name in ["symplectic_euler", "verlet"] {
        if names.contains(&name) {
            bounded_energy(name, out);
        }
    }
    if names.contains(&"rk4") {
        rk4_energy(out);
    }
}

/// The pendulum θ'' = −(g/L) sin θ from 1 rad at rest: (g/L \[1/s²\], θ₀ \[rad\], period \[s\]).
fn pendulum() -> (f64, f64, f64) {
    let (g_l, theta0) = (9.81f64, 1.0f64);
    (g_l, theta0, 4.0 / g_l.sqrt() * crate::special::ellip_k((0.5 * theta0).sin().powi(2)))
}

/// Explicit Euler multiplies the harmonic oscillator's energy by exactly 1 + h²ω² per step.
fn euler_growth(out: &mut Vec<Check>) {
    // E_{n+1} = (1 + h²ω²) E_n exactly for x'' = −ω² x (expand the update).
    let (h, w2) = (0.01, 4.0);
    let mut ode = TestOde { omega2: w2, nonlinear: false };
    if let Some(mut it) = integrator("explicit_euler", h) {
        let (mut x, mut v) = ([1.0], [0.0]);
        let mut worst = 0.0f64;
        for _ in 0..200 {
            let e0 = ode.energy(x[0], v[0]);
            if it.step(&mut ode, &mut x, &mut v, h).is_err() {
                break;
            }
            worst = worst.max((ode.energy(x[0], v[0]) / e0 - (1.0 + h * h * w2)).abs());
        }
        out.push(Check {
            case: "energy growth of explicit Euler".into(),
            cell: "explicit_euler · harmonic oscillator, h w = 0.02".into(),
            measured: worst,
            tolerance: "|E+/E - (1+h^2 w^2)| <= 1e-12".into(),
            outcome: if worst <= 1e-12 { Outcome::AsPredicted } else { Outcome::Fail },
            note: "explicit Euler multiplies the oscillator's energy by exactly 1 + h^2 w^2 per step: it always gains energy".into(),
        });
    }
}

/// A symplectic method's energy error on the pendulum oscillates without a secular trend.
fn bounded_energy(name: &str, out: &mut Vec<Check>) {
    let (g_l, theta0, period) = pendulum();
    // 1000 periods at h = T/64; energy error sampled once per period.
    let h = period / 64.0;
    let mut ode = TestOde { omega2: g_l, nonlinear: true };
    let Some(mut it) = integrator(name, h) else { return };
    let (mut x, mut v) = ([theta0], [0.0]);
    let e0 = ode.energy(theta0, 0.0);
    // The per-period mean of the energy error: sampling once per period would alias the
    // oscillation (the numerical period differs from T) into an apparent trend.
    let mut pts = Vec::new();
    let mut amp = 0.0f64;
    for k in 1..=1000 {
        let mut mean = 0.0;
        for _ in 0..64 {
            let _ = it.step(&mut ode, &mut x, &mut v, h);
            let de = ode.energy(x[0], v[0]) - e0;
            amp = amp.max(de.abs());
            mean += de / 64.0;
        }
        pts.push((k as f64 * period, mean));
    }
    let (slope, _) = linear_fit(&pts);
    let trend = (slope * 1000.0 * period).abs() / amp;
    out.push(Check {
        case: "bounded energy, no secular trend".into(),
        cell: format!("{name} · pendulum, 1000 periods, h = T/64"),
        measured: trend,
        tolerance: "fitted trend <= 0.05 x amplitude".into(),
        outcome: if trend <= 0.05 { Outcome::Pass } else { Outcome::Fail },
        note: format!("symplectic: the energy error oscillates (amplitude {amp:.2e}) without drifting; the least-squares trend of its per-period mean over the run is compared with that amplitude"),
    });
}

/// RK4's energy error on the pendulum: order 5 in h, growing linearly in time.
fn rk4_energy(out: &mut Vec<Check>) {
    let (g_l, theta0, period) = pendulum();
    // Max |ΔE| over `periods` periods at h = T/div.
    let rk4_energy = |div: f64, periods: f64| -> f64 {
        let h = period / div;
        let mut ode = TestOde { omega2: g_l, nonlinear: true };
        let Some(mut it) = integrator("rk4", h) else { return f64::NAN };
        let (mut x, mut v) = ([theta0], [0.0]);
        let e0 = ode.energy(theta0, 0.0);
        let mut worst = 0.0f64;
        for _ in 0..(periods * div).round() as usize {
            let _ = it.step(&mut ode, &mut x, &mut v, h);
            worst = worst.max((ode.energy(x[0], v[0]) - e0).abs());
        }
        worst
    };
    let divs = [32.0, 64.0, 128.0];
    let hs: Vec<f64> = divs.iter().map(|d| period / d).collect();
    let errs: Vec<f64> = divs.iter().map(|&d| rk4_energy(d, 10.0)).collect();
    let p = crate::metrics::observed_order(&hs, &errs);
    out.push(Check {
        case: "energy error order".into(),
        cell: "rk4 · pendulum, 10 periods, h = T/32..T/128".into(),
        measured: p,
        tolerance: "slope 5 +- 0.3".into(),
        outcome: if (p - 5.0).abs() <= 0.3 { Outcome::AsPredicted } else { Outcome::Fail },
        note: "RK4's state error is O(h^4), but on oscillatory motion its energy error is O(h^5): per step the energy changes by O(h^6) (harmonic oscillator: |R(ih w)|^2 = 1 - (h w)^6/72)".into(),
    });
    let growth = rk4_energy(64.0, 100.0) / rk4_energy(64.0, 10.0);
    out.push(Check {
        case: "secular energy drift".into(),
        cell: "rk4 · pendulum, h = T/64, 100 vs 10 periods".into(),
        measured: growth,
        tolerance: "ratio 10 +- 2 (linear in t)".into(),
        outcome: if (growth - 10.0).abs() <= 2.0 { Outcome::AsPredicted } else { Outcome::Fail },
        note: "RK4 is not symplectic: its energy error grows linearly with time, unlike symplectic Euler and Verlet"
            .into(),
    });
}

/// A particle under gravity on a line (a linear constraint), started 0.1 m off it.
fn line_scene() -> Scene {
    let mut system = System::new();
    let _ = system.add_body(Body::particle2(1.0));
    let _ = system.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] });
    let _ = system.add_constraint(Box::new(Line::new(0, 2, [0.0, 0.0, 0.0], [1.0, 0.3, 0.0])));
    let n = [-0.3f64, 1.0];
    let l = n[0].hypot(n[1]);
    Scene {
        name: "line".into(),
        system,
        q0: vec![0.1 * n[0] / l, 0.1 * n[1] / l],
        v0: vec![0.0, 0.0],
        reference: None,
        energy_scale: EnergyScale { joules: 1.0, definition: "1 J".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: Vec::new(),
    }
}

/// Critically damped Baumgarte feedback (k_s = ω², k_d = 2ω) with symplectic Euler: the error of
/// a linear constraint decays iff hω < 2(√2 − 1) ≈ 0.828 (eigenvalues of the one-step map
/// [[1 − h²ω², h(1 − 2hω)], [−hω², 1 − 2hω]]: trace and determinant conditions).
pub(super) fn baumgarte(sel: &Selection, out: &mut Vec<Check>) {
    let Some(f) = sel.formulations.iter().find(|f| f.name == "force") else { return };
    if !sel.integrators.iter().any(|i| i.name == "symplectic_euler") {
        return;
    }
    let Some(solver) = crate::linsolve::registry::find("dense_lu") else { return };
    let scene = line_scene();
    let bound = 2.0 * (2f64.sqrt() - 1.0);
    for hw in [0.80, 0.86] {
        let (h, w) = (0.01, hw / 0.01);
        let given = [("ks", Scalar::Num(w * w)), ("kd", Scalar::Num(2.0 * w))];
        let Ok(fp) = f.params.with(f.name, &given) else { return };
        let Ok(Dynamics::Ode(mut ode)) = (f.build)(&fp, &scene, (solver.build)(&solver.params.defaults())) else {
            return;
        };
        let Some(mut it) = integrator("symplectic_euler", h) else { return };
        it.prepare(2, 2);
        let (mut x, mut v) = (scene.q0.clone(), scene.v0.clone());
        let mut c = [0.0];
        scene.system.eval_constraints(&x, &mut c);
        let c0 = c[0].abs();
        for _ in 0..400 {
            if it.step(ode.as_mut(), &mut x, &mut v, h).is_err() {
                break;
            }
        }
        scene.system.eval_constraints(&x, &mut c);
        let ratio = c[0].abs() / c0;
        let decays = ratio < 1.0;
        let predicted = hw < bound;
        out.push(Check {
            case: "Baumgarte stability bound".into(),
            cell: format!("force · symplectic_euler · h w = {hw}"),
            measured: ratio,
            tolerance: if predicted {
                "|C(4 s)|/|C(0)| < 1 (decays)".into()
            } else {
                "|C(4 s)|/|C(0)| > 1 (grows)".into()
            },
            outcome: if decays == predicted { Outcome::AsPredicted } else { Outcome::Fail },
            note: format!("critical damping ks = w^2, kd = 2w: decays iff h w < 2(sqrt 2 - 1) = {bound:.4}"),
        });
    }
}
