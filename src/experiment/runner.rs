//! The runner: advances one cell from t = 0 to the duration, samples metrics at exact times, and
//! ends cleanly on failure or divergence (docs/design.md §6–7).
//!
//! Wall time counts only the stepping (integration and solves), not the sampling of metrics, the
//! location of events or dense output; the solves done to measure (constraint power, multipliers,
//! dense-output stages) are not counted as cost either.

use std::time::Instant;

use super::cell::CellSpec;
use super::clock::{FixedClock, stops};
use super::observe::{Crossings, Probe, illinois};
use crate::formulation::{Dynamics, SecondOrderOde, Stepper};
use crate::integrator::{Control, Integrator, fixed_step};
use crate::linsolve::SolverCounters;
use crate::scene::{EnergyScale, Scene};
use crate::stabilization::Stabilizer;

/// Cumulative cost counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Accepted steps.
    pub steps: u64,
    /// Rejected step attempts.
    pub rejected: u64,
    /// Right-hand-side evaluations (applied forces + constraint solve for ODEs; substeps for steppers).
    pub rhs_evals: u64,
    /// Linear solves.
    pub linear_solves: u64,
    /// Linear-solver iterations (1 per direct solve).
    pub solver_iterations: u64,
    /// Wall time spent stepping \[s\].
    pub wall_seconds: f64,
    /// Median wall time of one accepted or failed step (stabilizer included) \[s\]; 0 before any step.
    pub median_step_seconds: f64,
}

/// The metrics at one sample time.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// Time \[s\].
    pub t: f64,
    /// Total energy E \[J\].
    pub energy: f64,
    /// |E − E₀| / E_scale.
    pub energy_error: f64,
    /// ‖C(q)‖∞ (units of the constraint rows), including the penetration max(0, −φ) of every
    /// contact in scenes with contact \[m\].
    pub drift_position: f64,
    /// ‖J v‖∞.
    pub drift_velocity: f64,
    /// Constraint power Q̂ · v \[W\].
    pub power: f64,
    /// Distance to the scene's reference solution, if it has one.
    pub reference_error: Option<f64>,
    /// Cumulative cost up to this sample.
    pub counters: Counters,
    /// Positions (empty unless requested).
    pub q: Vec<f64>,
    /// Velocities (empty unless requested).
    pub v: Vec<f64>,
    /// C(q) per constraint row (empty unless requested).
    pub c: Vec<f64>,
    /// J v per constraint row (empty unless requested).
    pub jv: Vec<f64>,
    /// Multipliers λ per constraint row, Q̂ = Jᵀ λ, in force units (empty unless requested).
    pub lambda: Vec<f64>,
    /// Values of the cell's outputs.
    pub outputs: Vec<f64>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Status {
    /// Reached the duration.
    Ok,
    /// Blew up: non-finite state or drift beyond the bound.
    Diverged {
        /// Time \[s\] at which it was detected.
        t: f64,
        /// What was seen.
        reason: String,
    },
    /// The state left the scene's assembly branch (a branch invariant failed after a step): the
    /// run went on a different motion of the mechanism, with the constraints still satisfied.
    LeftBranch {
        /// Time \[s\] of the first sample off the branch.
        t: f64,
        /// Which invariant, and its value.
        reason: String,
    },
    /// A numerical failure: singular matrix, solver not converged, step-size underflow.
    Failed {
        /// Time \[s\] of the failing step.
        t: f64,
        /// The typed error, as text.
        reason: String,
    },
    /// The combination cannot run, and why.
    NotApplicable {
        /// Why.
        reason: String,
    },
}

impl Status {
    /// Whether the run reached its duration.
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }

    /// Short label: `ok`, `diverged`, `left branch`, `failed`, `n/a`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Diverged { .. } => "diverged",
            Status::LeftBranch { .. } => "left branch",
            Status::Failed { .. } => "failed",
            Status::NotApplicable { .. } => "n/a",
        }
    }
}

/// The summary of one run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// How it ended.
    pub status: Status,
    /// max over samples of ‖C‖∞.
    pub max_drift_position: f64,
    /// max over samples of ‖J v‖∞.
    pub max_drift_velocity: f64,
    /// max over samples of |E − E₀| / E_scale.
    pub max_energy_error: f64,
    /// The scale energy errors are divided by.
    /// (Not stored with a result: it is the scene's, restored from the scene when a stored result
    /// is read back.)
    #[serde(skip, default = "unset_scale")]
    pub energy_scale: EnergyScale,
    /// max over samples of |Q̂ · v| \[W\].
    pub max_abs_power: f64,
    /// max over samples of the reference error, if the scene has a reference.
    pub max_reference_error: Option<f64>,
    /// Largest relative residual of any linear solve.
    pub max_solver_residual: f64,
    /// Final cost counters.
    pub counters: Counters,
}

/// Samples and summary of one run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// The time series.
    pub samples: Vec<Sample>,
    /// The summary.
    pub summary: Summary,
    /// The outputs at each probe time reached (one vector per time, in order).
    pub probes: Vec<Vec<f64>>,
    /// The crossings of each event.
    pub events: Vec<Crossings>,
}

fn unset_scale() -> EnergyScale {
    EnergyScale { joules: f64::NAN, definition: "".into() }
}

pub(super) fn not_applicable(scene: &Scene, reason: String) -> RunResult {
    RunResult {
        samples: vec![],
        probes: vec![],
        events: vec![],
        summary: Summary {
            status: Status::NotApplicable { reason },
            max_drift_position: f64::NAN,
            max_drift_velocity: f64::NAN,
            max_energy_error: f64::NAN,
            energy_scale: scene.energy_scale.clone(),
            max_abs_power: f64::NAN,
            max_reference_error: None,
            max_solver_residual: f64::NAN,
            counters: Counters::default(),
        },
    }
}

/// The two ways a formulation advances.
pub(super) enum Driver<'a> {
    /// `uncounted`: the solves made only to sample inside a step (dense output), subtracted from
    /// the cost.
    Ode {
        ode: Box<dyn SecondOrderOde + 'a>,
        integrator: Box<dyn Integrator>,
        x: Vec<f64>,
        xd: Vec<f64>,
        uncounted: SolverCounters,
    },
    Stepper {
        stepper: Box<dyn Stepper + 'a>,
        h: f64,
        steps: u64,
    },
}

impl Driver<'_> {
    fn counters(&self) -> Counters {
        match self {
            Driver::Ode { ode, integrator, uncounted, .. } => {
                let (s, i) = (ode.solver_counters(), integrator.stats());
                Counters {
                    steps: i.steps,
                    rejected: i.rejected,
                    rhs_evals: i.rhs_evals,
                    linear_solves: s.solves - uncounted.solves,
                    solver_iterations: s.iterations - uncounted.iterations,
                    wall_seconds: 0.0,
                    median_step_seconds: 0.0,
                }
            }
            Driver::Stepper { stepper, steps, .. } => {
                let s = stepper.solver_counters();
                Counters {
                    steps: *steps,
                    rejected: stepper.rejected_steps(),
                    rhs_evals: stepper.force_evaluations(),
                    linear_solves: s.solves,
                    solver_iterations: s.iterations,
                    wall_seconds: 0.0,
                    median_step_seconds: 0.0,
                }
            }
        }
    }

    fn max_residual(&self) -> f64 {
        match self {
            Driver::Ode { ode, .. } => ode.solver_counters().max_residual,
            Driver::Stepper { stepper, .. } => stepper.solver_counters().max_residual,
        }
    }
}

/// Pairs a formulation's dynamics with the cell's integrator, or says why they do not pair.
fn pair<'a>(dynamics: Dynamics<'a>, cell: &CellSpec) -> Result<Driver<'a>, String> {
    let name = cell.formulation.name;
    match (dynamics, cell.integrator) {
        (Dynamics::Stepper(stepper), None) => match cell.control {
            Control::Fixed { h } => Ok(Driver::Stepper { stepper, h, steps: 0 }),
            Control::Adaptive { .. } => {
                Err(format!("formulation `{name}` is its own time stepper: it takes a step size h, not tolerances"))
            }
        },
        (Dynamics::Stepper(_), Some(i)) => Err(format!(
            "formulation `{name}` is itself a time-stepping scheme (velocity update then position update), not an ODE right-hand side, so `{}` cannot integrate it; give it only a step size",
            i.name
        )),
        (Dynamics::Ode(_), None) => {
            Err(format!("formulation `{name}` yields an ODE right-hand side and needs an integrator"))
        }
        (Dynamics::Ode(ode), Some(i)) => {
            let mut integrator = i.build(cell.control)?;
            let (nx, nv) = (ode.position_dim(), ode.dim());
            integrator.prepare(nx, nv);
            let (mut x, mut xd) = (vec![0.0; nx], vec![0.0; nv]);
            ode.initial(&mut x, &mut xd);
            Ok(Driver::Ode { ode, integrator, x, xd, uncounted: SolverCounters::default() })
        }
    }
}

/// The driver's counters plus the stabilizer's solves.
pub(super) fn total_counters(driver: &Driver, stab: &Option<Box<dyn Stabilizer + '_>>) -> Counters {
    let mut c = driver.counters();
    if let Some(s) = stab {
        let sc = s.counters();
        c.linear_solves += sc.solves;
        c.solver_iterations += sc.iterations;
    }
    c
}

/// Capacity for the per-step times: the step count of a fixed step (capped), a guess for adaptive.
use super::budget::STEP_TIMES_CAP;

fn expected_steps(cell: &CellSpec) -> usize {
    match cell.control {
        Control::Fixed { h } => ((cell.duration / h).ceil() as usize + 1).min(STEP_TIMES_CAP),
        _ => 1024,
    }
}

/// The median of `x` (mean of the two middle values for an even count); 0 for none.
fn median(x: &mut [f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.sort_unstable_by(f64::total_cmp);
    let n = x.len();
    if n % 2 == 1 { x[n / 2] } else { 0.5 * (x[n / 2 - 1] + x[n / 2]) }
}

/// The most wall time \[s\] of steps between two reads of the clock for the time budget.
const BUDGET_CHECK_SECONDS: f64 = 0.01;

fn all_finite(a: &[f64], b: &[f64]) -> bool {
    a.iter().chain(b).all(|x| x.is_finite())
}

/// Runs one cell on `scene`.
pub fn run(scene: &Scene, cell: &CellSpec) -> RunResult {
    if !cell.formulation.pairs_with(cell.solver) {
        return not_applicable(
            scene,
            format!(
                "`{}` solves a {}, which solver `{}` does not take",
                cell.formulation.name,
                cell.formulation.system.describe(),
                cell.solver.name
            ),
        );
    }
    let solver = (cell.solver.build)(&cell.solver_params);
    let dynamics = match (cell.formulation.build)(&cell.formulation_params, scene, solver) {
        Ok(d) => d,
        Err(e) => return not_applicable(scene, e.0),
    };
    let mut driver = match pair(dynamics, cell) {
        Ok(d) => d,
        Err(reason) => return not_applicable(scene, reason),
    };
    let mut stab =
        match (cell.stabilizer.build)(&cell.stabilizer_params, scene, (cell.solver.build)(&cell.solver_params)) {
            Ok(s) => s,
            Err(e) => return not_applicable(scene, e.0),
        };
    if let (Some(s), Driver::Ode { ode, .. }) = (&stab, &driver)
        && !ode.is_cartesian()
        && !(ode.projects() && s.target().is_some())
    {
        return not_applicable(
            scene,
            format!(
                "stabilizer `{}` corrects Cartesian states; `{}` integrates reduced coordinates",
                cell.stabilizer.name, cell.formulation.name
            ),
        );
    }
    let sys = &scene.system;
    let mut probe = Probe::new(scene, cell.record_state);
    // Stepping formulations advance the Cartesian state in place.
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    let e0 = sys.energy(&scene.q0, &scene.v0);
    let outs = &cell.outputs;
    let mut samples = vec![probe.sample(scene, &mut driver, &stab, 0.0, e0, cell.record_state, None, outs)];
    let mut status = Status::Ok;
    let mut wall = 0.0;
    let mut step_seconds: Vec<f64> = Vec::with_capacity(expected_steps(cell));
    let mut t = 0.0;
    // Fixed steps: every step has the labelled h and the time is the step count times h, never
    // accumulated. A sample is the state at the first step boundary at or after k × interval
    // (once per boundary); the run ends at the boundary nearest the duration (within h/2).
    let clock = match cell.control {
        Control::Fixed { h } => Some(FixedClock::new(h, cell.step_fraction, cell.duration)),
        Control::Adaptive { .. } => None,
    };
    let stops = stops(cell, clock.as_ref());
    let mut n: u64 = 0;
    let mut next_budget_check: u64 = 1;
    let mut stride: u64 = 1;
    let run_start = Instant::now();
    // Adaptive steps run to the duration regardless of the samples (the last one is clipped to end
    // on it); a sample, probe or event inside a step is read off the method's continuous extension.
    let (mut t_prev, mut xi, mut xdi) = match &driver {
        Driver::Ode { x, xd, .. } => (0.0, vec![0.0; x.len()], vec![0.0; xd.len()]),
        Driver::Stepper { .. } => (0.0, vec![], vec![]),
    };
    let mut probes: Vec<Vec<f64>> = Vec::with_capacity(cell.probe_times.len());
    let mut events = vec![Crossings::default(); cell.events.len()];
    // Event functions g = output − value (wrapped for angles) at the last step boundary.
    let mut g_prev = vec![0.0; cell.events.len()];
    let mut values = vec![0.0; outs.len()];
    // Where a driven scene's clock sits in the integrated state (x for an ODE, q for a stepper),
    // found once.
    let clock_at = match &driver {
        Driver::Ode { ode, .. } => ode.clock_index(),
        Driver::Stepper { .. } => sys.clock_q_index(),
    };
    // The positions at the last branch check (every step, when the scene has branch invariants).
    let mut branch_prev = if scene.branch.is_empty() { Vec::new() } else { scene.q0.clone() };
    if !cell.events.is_empty() {
        probe.outputs(scene, outs, &mut values);
        for (g, e) in g_prev.iter_mut().zip(&cell.events) {
            *g = outs[e.output].difference(values[e.output], e.value);
        }
    }
    'outer: for stop in &stops {
        let start = Instant::now();
        let mut unmeasured = 0.0; // event location inside the timed loop is measurement
        while match stop.boundary {
            Some(nk) => n < nk,
            None => t < stop.t,
        } {
            // Every run ends: a step count or wall time beyond the budget fails the cell.
            if n >= cell.max_steps {
                status = Status::Failed {
                    t,
                    reason: format!("max steps: {n} steps taken before the end (limits.steps_per_cell)"),
                };
                wall += start.elapsed().as_secs_f64() - unmeasured;
                break 'outer;
            }
            // The clock is read every step while steps are expensive and every few steps once
            // they are cheap (at most 64, and no more than about 10 ms of steps between two
            // reads), so that no cell overruns its budget by more than a step or 10 ms.
            if n >= next_budget_check {
                let elapsed = run_start.elapsed().as_secs_f64();
                if elapsed > cell.time_budget {
                    status = Status::Failed {
                        t,
                        reason: format!(
                            "time budget: {} s of wall time exceeded (limits.cell_seconds)",
                            cell.time_budget
                        ),
                    };
                    wall += start.elapsed().as_secs_f64() - unmeasured;
                    break 'outer;
                }
                let per_step = elapsed / n.max(1) as f64;
                next_budget_check = n + ((BUDGET_CHECK_SECONDS / per_step) as u64).clamp(1, 64);
            }
            let h_max = match &clock {
                Some(c) => c.h,
                None => cell.duration - t,
            };
            let step_start = Instant::now();
            let step = match &mut driver {
                Driver::Ode { ode, integrator, x, xd, .. } => {
                    let r = integrator.step(ode.as_mut(), x, xd, h_max).map_err(|e| e.to_string());
                    // A post-step stabilizer moves the state: the integrator's caches go stale.
                    let r = r.and_then(|h| match stab.as_mut() {
                        Some(s) if all_finite(x, xd) => {
                            integrator.reset();
                            let r = match s.target() {
                                // Reduced coordinates project themselves (onto their loop closures).
                                Some((tol, max_iter)) if !ode.is_cartesian() => ode.project(x, xd, tol, max_iter),
                                _ => s.apply(x, xd),
                            };
                            r.map(|_| h).map_err(|e| e.to_string())
                        }
                        _ => Ok(h),
                    });
                    r.map(|h| (h, all_finite(x, xd)))
                }
                Driver::Stepper { stepper, h, steps } => {
                    let hs = fixed_step(*h, h_max);
                    *steps += 1;
                    let r = stepper.step(hs, &mut q, &mut v).map_err(|e| e.to_string());
                    let r = r.and_then(|_| match stab.as_mut() {
                        Some(s) if all_finite(&q, &v) => s.apply(&mut q, &mut v).map_err(|e| e.to_string()),
                        _ => Ok(()),
                    });
                    r.map(|_| (hs, all_finite(&q, &v)))
                }
            };
            // Per-step times for the median, at most STEP_TIMES_CAP of them: past that, every other
            // one is dropped and only every `stride`-th step is kept (an evenly thinned sample).
            if n.is_multiple_of(stride) {
                step_seconds.push(step_start.elapsed().as_secs_f64());
                if step_seconds.len() >= STEP_TIMES_CAP {
                    let mut i = 0;
                    step_seconds.retain(|_| {
                        i += 1;
                        i % 2 == 1
                    });
                    stride *= 2;
                }
            }
            match step {
                Ok((h, finite)) => {
                    n += 1;
                    t_prev = t;
                    t = match &clock {
                        Some(c) => c.time(n),
                        None if h >= h_max => cell.duration,
                        None => t + h,
                    };
                    super::contained::set_cell_time(t);
                    // A driven scene's clock s is the counted time n h, not a sum of steps.
                    if let (Some(i), Some(_)) = (clock_at, &clock) {
                        match &mut driver {
                            Driver::Ode { x, .. } => x[i] = t,
                            Driver::Stepper { .. } => q[i] = t,
                        }
                    }
                    if !finite {
                        status = Status::Diverged { t, reason: "non-finite state (NaN or infinity)".into() };
                        wall += start.elapsed().as_secs_f64() - unmeasured;
                        break 'outer;
                    }
                }
                Err(reason) => {
                    status = Status::Failed { t, reason };
                    wall += start.elapsed().as_secs_f64() - unmeasured;
                    break 'outer;
                }
            }
            if !cell.events.is_empty() {
                let event_start = Instant::now();
                if let Driver::Stepper { .. } = driver {
                    probe.q.copy_from_slice(&q);
                }
                probe.load(&driver, None);
                probe.outputs(scene, outs, &mut values);
                for (i, e) in cell.events.iter().enumerate() {
                    let o = &outs[e.output];
                    let g1 = o.difference(values[e.output], e.value);
                    if e.crosses(o, g_prev[i], g1) {
                        let tc = match &mut driver {
                            Driver::Ode { ode, integrator, uncounted, .. } if clock.is_none() => {
                                let before = ode.solver_counters();
                                let mut g = |theta: f64| match integrator.dense_output(
                                    ode.as_mut(),
                                    theta,
                                    &mut xi,
                                    &mut xdi,
                                ) {
                                    Ok(true) => {
                                        ode.cartesian(&xi, &xdi, &mut probe.q, &mut probe.v);
                                        o.difference(o.value(sys, &probe.q), e.value)
                                    }
                                    _ => f64::NAN,
                                };
                                let theta = illinois(&mut g, g_prev[i], g1);
                                let after = ode.solver_counters();
                                uncounted.solves += after.solves - before.solves;
                                uncounted.iterations += after.iterations - before.iterations;
                                t_prev + theta * (t - t_prev)
                            }
                            // Fixed steps: linear interpolation between the two boundaries.
                            _ => t_prev + (t - t_prev) * g_prev[i] / (g_prev[i] - g1),
                        };
                        events[i].times.push(tc);
                        events[i].rising.push(g1 > g_prev[i]);
                    }
                    g_prev[i] = g1;
                }
                unmeasured += event_start.elapsed().as_secs_f64();
            }
            // The branch invariants, at every step (a run may leave a branch and come back
            // between samples), not counted in the wall time.
            if !scene.branch.is_empty() {
                let branch_start = Instant::now();
                if let Driver::Stepper { .. } = driver {
                    probe.q.copy_from_slice(&q);
                }
                probe.load(&driver, None);
                let off = scene.branch.iter().find_map(|b| b.violated(sys, &probe.q));
                let jump = crate::scene::largest_jump(sys, &branch_prev, &probe.q);
                branch_prev.copy_from_slice(&probe.q);
                unmeasured += branch_start.elapsed().as_secs_f64();
                if let Some(reason) = off {
                    status = super::contained::off_branch(t, reason, jump, cell.drift_bound);
                    wall += start.elapsed().as_secs_f64() - unmeasured;
                    break 'outer;
                }
            }
        }
        wall += start.elapsed().as_secs_f64() - unmeasured;
        if let Driver::Stepper { .. } = driver {
            probe.q.copy_from_slice(&q);
            probe.v.copy_from_slice(&v);
        }
        // An adaptive step that passed the stop: interpolate inside it.
        let inside = match (&clock, &mut driver) {
            (None, Driver::Ode { ode, integrator, uncounted, .. }) if stop.t < t => {
                let before = ode.solver_counters();
                let theta = (stop.t - t_prev) / (t - t_prev);
                let r = integrator.dense_output(ode.as_mut(), theta, &mut xi, &mut xdi);
                let after = ode.solver_counters();
                uncounted.solves += after.solves - before.solves;
                uncounted.iterations += after.iterations - before.iterations;
                match r {
                    Ok(inside) => inside,
                    Err(e) => {
                        status = Status::Failed { t: stop.t, reason: format!("dense output: {e}") };
                        break 'outer;
                    }
                }
            }
            _ => false,
        };
        let (stop_t, at) = if inside { (stop.t, Some((xi.as_slice(), xdi.as_slice()))) } else { (t, None) };
        if stop.is_probe {
            probe.load(&driver, at);
            probe.outputs(scene, outs, &mut values);
            probes.push(values.clone());
            continue;
        }
        let mut s = probe.sample(scene, &mut driver, &stab, stop_t, e0, cell.record_state, at, outs);
        s.counters.wall_seconds = wall;
        let drift = s.drift_position;
        samples.push(s);
        if !(drift <= cell.drift_bound) {
            status = Status::Diverged {
                t: stop_t,
                reason: format!("constraint drift |C|inf = {drift:.3e} exceeds the bound {:.3e}", cell.drift_bound),
            };
            break;
        }
        if let Some(reason) = scene.branch.iter().find_map(|b| b.violated(&scene.system, &probe.q)) {
            status = Status::LeftBranch { t: stop_t, reason };
            break;
        }
    }
    let mut counters = total_counters(&driver, &stab);
    counters.wall_seconds = wall;
    counters.median_step_seconds = median(&mut step_seconds);
    let fold = |f: &dyn Fn(&Sample) -> f64| {
        samples.iter().map(f).fold(0.0f64, |m, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x) })
    };
    let summary = Summary {
        status,
        max_drift_position: fold(&|s| s.drift_position),
        max_drift_velocity: fold(&|s| s.drift_velocity),
        max_energy_error: fold(&|s| s.energy_error),
        energy_scale: scene.energy_scale.clone(),
        max_abs_power: fold(&|s| s.power.abs()),
        max_reference_error: scene.reference.as_ref().map(|_| fold(&|s| s.reference_error.unwrap_or(f64::NAN))),
        max_solver_residual: driver.max_residual(),
        counters,
    };
    RunResult { samples, summary, probes, events }
}
