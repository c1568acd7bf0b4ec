//! Runs one cell from code, records its states, and compares them with a reference file:
//!
//!     cargo run --release --example compare_reference
//!
//! The cell is the double pendulum at its defaults with the `force` formulation (Baumgarte
//! feedback ω = 20 rad/s, ζ = 1) and Dop853 at 1e-10, sampled at the reference's times. The
//! reference is `tests/data/double_pendulum_reference.csv`: positions and velocities of both bobs
//! at t = 1 and 2 s, integrated independently (textbook angle equations, another Dop853
//! implementation at 1e-13; see `examples/make_references.rs`) with an error bound per row.
//! The example prints, per time, the largest difference of the recorded state from the
//! reference, and exits with status 1 if any exceeds 1e-8: 100 × the tolerance, room for the
//! global error a local tolerance of 1e-10 accumulates over 2 s, plus the reference's own bound
//! (≤ 1e-12). Measured: 5.8e-12.

use std::process::ExitCode;
use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;

const REFERENCE: &str = include_str!("../tests/data/double_pendulum_reference.csv");

fn main() -> ExitCode {
    // Rows `t, x1, y1, x2, y2, vx1, vy1, vx2, vy2, error_bound`, comments starting with '#'.
    let rows: Vec<Vec<f64>> = REFERENCE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("t,"))
        .map(|l| l.split(',').map(|x| x.trim().parse().expect("a number")).collect())
        .collect();
    let scene = scenes::find("double_pendulum").unwrap().build_default(&[]).unwrap();
    let tol = 1e-10;
    let end = rows.last().map_or(1.0, |r| r[0]);
    let cell = CellSpec::named(
        "force",
        &[("omega", Scalar::Num(20.0))],
        "dense_lu",
        &[],
        Some("dop853"),
        Control::Adaptive { rtol: tol, atol: tol },
        end,
    )
    .unwrap()
    .sampled(1.0) // the reference's times are 1 s apart
    .recording();
    let result = run(&scene, &cell);
    if !result.summary.status.is_ok() {
        eprintln!("the cell did not finish: {:?}", result.summary.status);
        return ExitCode::FAILURE;
    }
    let mut worst = 0.0f64;
    println!("    t [s]   max |state - reference|   reference error bound");
    for row in &rows {
        let Some(sample) = result.samples.iter().find(|s| (s.t - row[0]).abs() < 1e-12) else {
            eprintln!("no recorded sample at t = {}", row[0]);
            return ExitCode::FAILURE;
        };
        let state: Vec<f64> = sample.q.iter().chain(&sample.v).copied().collect();
        let diff = state.iter().zip(&row[1..9]).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        println!("{:9.3}   {:22.3e}   {:21.1e}", row[0], diff, row[9]);
        worst = worst.max(diff);
    }
    let counters = result.summary.counters;
    println!(
        "force (omega = 20) + dop853 at {tol:e}: {} steps, {} rejected, {} RHS evaluations; worst {worst:.2e}",
        counters.steps, counters.rejected, counters.rhs_evals
    );
    if worst <= 1e-8 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
