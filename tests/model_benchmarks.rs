//! The IFToMM benchmarks with redundant rows and stiffness: A04 (Bricard's mechanism) and A05
//! (the stiff flyball governor), from their shipped model files.

use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;

mod common;
use common::model;

/// The linear solver of a cell: `envelope_ldlt` for the Cartesian formulations; `lagrangian`
/// solves a dense loop-closure system, which the sparse solvers do not take: `dense_cholesky`.
fn solver_for(formulation: &str) -> &'static str {
    if formulation == "lagrangian" { "dense_cholesky" } else { "envelope_ldlt" }
}

/// Runs IFToMM A04 (Bricard) for 10 s in one cell; returns the result and P3 (the benchmark's
/// point, the Rod2–Rod3 joint) at t = 1, 2, …, 10 s.
fn bricard_cell(
    formulation: &str,
    params: &[(&str, f64)],
    integrator: Option<&str>,
    control: Control,
) -> (tinkertoy::experiment::RunResult, Vec<Vec<f64>>) {
    let m = model("iftomm_a04_bricard");
    let p: Vec<(&str, Scalar)> = params.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
    let times: Vec<f64> = (1..=10).map(f64::from).collect();
    let spec = CellSpec::named(formulation, &p, solver_for(formulation), &[], integrator, control, 10.0)
        .unwrap()
        .sampled(0.05)
        .bounded(m.length_scale)
        .observing(&m.scene, &["P3x", "P3y", "P3z"])
        .unwrap()
        .probing(&times);
    let r = run(&m.scene, &spec);
    let probes = r.probes.clone();
    (r, probes)
}

#[test]
fn bricard_is_overconstrained_and_check_names_the_redundant_row() {
    // 5 rods × 6 coordinates, 6 hinges × 5 rows: Grübler's count gives 0 degrees of freedom; the
    // special axes make one row redundant, so the rank is 29 and the mechanism has 1.
    let m = model("iftomm_a04_bricard");
    let (rank, redundant) = tinkertoy::experiment::check::rank(&m.scene, &m.scene.q0);
    assert_eq!((m.scene.system.ndof(), m.scene.system.nrows()), (30, 30));
    assert_eq!(rank, 29);
    assert_eq!(redundant.len(), 1);
    let text =
        tinkertoy::commands::check_model(&format!("{}/models/iftomm_a04_bricard.yaml", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    println!("{text}");
    assert!(text.contains("rank of J at q0: 29 of 30 rows; 1 degree of freedom; 1 redundant"), "{text}");
}

/// P3 is the benchmark's point, the joint of Rod2 and Rod3 at (1, −1, 0) when t = 0 (it was the
/// Rod3–Rod4 joint, at (1, −1, 1), before), and the stored reference has the published curve's
/// landmarks: z starts at 0 and dips to about −0.5 m near t = 1.25 s, y stays within
/// [−1, −0.87] m (to the two digits the curve is read at: its highest y is −0.866).
#[test]
fn bricard_scores_the_benchmarks_p3_and_its_reference_has_the_published_landmarks() {
    let m = model("iftomm_a04_bricard");
    let (r, _) = bricard_cell(
        "lagrangian",
        &[("reg", 1e-10), ("omega", 20.0)],
        Some("dop853"),
        Control::Adaptive { rtol: 1e-9, atol: 1e-9 },
    );
    let p0 = &r.samples[0].outputs;
    assert!((p0[0] - 1.0).abs() < 1e-12 && (p0[1] + 1.0).abs() < 1e-12 && p0[2].abs() < 1e-12, "{p0:?}");
    assert!(m.scene.system.nrows() == 30);
    let path = format!("{}/experiments/data/iftomm_a04_bricard.csv", env!("CARGO_MANIFEST_DIR"));
    let rows: Vec<Vec<f64>> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('t'))
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert!(rows[0][3].abs() < 1e-12, "z(0) = {}", rows[0][3]);
    let (t_min, z_min) =
        rows.iter().map(|r| (r[0], r[3])).fold((0.0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    println!("P3: z reaches {z_min:.4} m at t = {t_min} s");
    assert!((-0.55..=-0.45).contains(&z_min) && (1.0..=1.5).contains(&t_min), "z min {z_min} at {t_min}");
    let (lo, hi) = rows.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| (l.min(r[2]), h.max(r[2])));
    assert!(lo >= -1.0 - 1e-9 && hi <= -0.865, "y within [{lo}, {hi}]");
}

#[test]
fn bricard_runs_10_s_with_a_regularised_solve_and_no_drift() {
    // A plain direct solve meets the singular J W Jᵀ at once and says so.
    let (r, _) = bricard_cell("force", &[], Some("dop853"), Control::Adaptive { rtol: 1e-9, atol: 1e-9 });
    let tinkertoy::experiment::Status::Failed { t, reason } = &r.summary.status else {
        panic!("force without reg: {:?}", r.summary.status)
    };
    assert_eq!(*t, 0.0);
    assert!(reason.contains("singular"), "{reason}");

    // Tikhonov reg = 1e-10 with feedback omega = 20, Dop853 at 1e-12: the regularisation leaves a
    // residual reg · |λ| ≈ 1e-9 m/s² in the constraint accelerations, which the feedback holds
    // at about that over omega² (1e-12 m); the integrator's tolerance bounds the rest. Bar: the
    // issue's 1e-8 m on the joints; energy to 1e-9 of E_scale (1500 steps at 1e-12 each).
    let tight = Control::Adaptive { rtol: 1e-12, atol: 1e-12 };
    let reg = [("reg", 1e-10), ("omega", 20.0)];
    let (force, p_force) = bricard_cell("force", &reg, Some("dop853"), tight);
    let (lag, p_lag) = bricard_cell("lagrangian", &reg, Some("dop853"), tight);
    for (name, r) in [("force", &force), ("lagrangian", &lag)] {
        let s = &r.summary;
        println!(
            "{name} (reg 1e-10, omega 20) + dop853 1e-12: {}, max |C| {:.2e} m, max energy error {:.2e} x E_scale, {} steps",
            s.status.label(),
            s.max_drift_position,
            s.max_energy_error,
            s.counters.steps
        );
        assert_eq!(s.status.label(), "ok");
        assert!(s.max_drift_position <= 1e-8, "{name}: {:.2e}", s.max_drift_position);
        assert!(s.max_energy_error <= 1e-9, "{name}: {:.2e}", s.max_energy_error);
    }
    // The project's reference for P3: two formulations that share nothing but the model
    // (Cartesian coordinates with multipliers; joint coordinates on a spanning tree, the loop
    // closed by multipliers) agree over the whole run, to what tolerance 1e-12 over ~1500 steps
    // allows on a 1 m mechanism (1.5e-9 m).
    let apart =
        p_force.iter().zip(&p_lag).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs())).fold(0.0, f64::max);
    println!("P3 of force and lagrangian apart by at most {apart:.2e} m over 10 s");
    assert!(p_force.len() == 10 && apart <= 1e-9, "{apart:.2e}");

    // RATTLE with a Tikhonov term in its Newton solves iterates C to its tol (1e-10).
    let (r, _) = bricard_cell("rattle", &[("reg", 1e-6)], None, Control::Fixed { h: 1e-3 });
    println!(
        "rattle (reg 1e-6), h = 1e-3: {}, max |C| {:.2e} m",
        r.summary.status.label(),
        r.summary.max_drift_position
    );
    assert_eq!(r.summary.status.label(), "ok");
    assert!(r.summary.max_drift_position <= 1e-8);
}

#[test]
fn iftomm_a05_flyball_governor_holds_the_sleeve_to_its_reference() {
    // The stiff flyball governor over 10 s. Joint coordinates (a tree: no multipliers) with
    // Dop853 at 1e-9 against the stored reference (lagrangian at 1e-12, within 1.1e-13 m of force
    // at 1e-11): a tolerance of 1e-9 over ~9000 steps allows 1e-6 m; the IFToMM criterion is 1e-3.
    let m = model("iftomm_a05_flyball");
    let path = format!("{}/experiments/data/iftomm_a05_flyball.csv", env!("CARGO_MANIFEST_DIR"));
    let reference: Vec<(f64, f64)> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('t'))
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1])
        })
        .collect();
    let times: Vec<f64> = reference.iter().map(|r| r.0).collect();
    let control = Control::Adaptive { rtol: 1e-9, atol: 1e-9 };
    let spec = CellSpec::named("lagrangian", &[], solver_for("lagrangian"), &[], Some("dop853"), control, 10.0)
        .unwrap()
        .sampled(0.05)
        .observing(&m.scene, &["s"])
        .unwrap()
        .probing(&times);
    let r = run(&m.scene, &spec);
    assert_eq!(r.summary.status.label(), "ok");
    let worst = r.probes.iter().zip(&reference).map(|(p, (_, s))| (p[0] - s).abs()).fold(0.0, f64::max);
    println!("lagrangian + dop853 1e-9: s within {worst:.2e} m of the reference, {} steps", r.summary.counters.steps);
    assert_eq!(r.probes.len(), 201);
    assert!(worst <= 1e-6, "{worst:.2e}");
    // The sleeve rises as the balls fly out: s is not the trivial 0.5 m.
    assert!(reference.iter().any(|(_, s)| *s > 0.7));
}

#[test]
fn an_adaptive_stage_that_fails_is_a_rejected_step_not_a_failed_run() {
    // Regression: on the flyball governor (full rank) force (ω = 20) + Dop853 at 1e-6 ended as
    // failed at t = 0 with "matrix is singular": Hairer's initial-step guess and the first trial
    // stages land on states far off the constraints where J W Jᵀ is singular. A failed stage is
    // now a rejected step, retried a tenth as long: the cell runs, its rejections counted.
    let m = model("iftomm_a05_flyball");
    let params = [("omega", Scalar::Num(20.0))];
    let control = Control::Adaptive { rtol: 1e-6, atol: 1e-6 };
    let spec = CellSpec::named("force", &params, "dense_lu", &[], Some("dop853"), control, 0.2).unwrap().sampled(0.1);
    let r = run(&m.scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    assert!(r.summary.counters.rejected > 0, "the failed stages count as rejected steps");
}
