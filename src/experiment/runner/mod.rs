//! The runner: advances one cell from t = 0 to the duration, samples metrics at exact times, and
//! ends cleanly on failure or divergence (docs/design.md §6–7).
//!
//! Wall time counts only the stepping (integration and solves), not the sampling of metrics, the
//! location of events or dense output; the solves done to measure (constraint power, multipliers,
//! dense-output stages) are not counted as cost either.

mod driver;
mod watch;

use std::time::Instant;

use super::cell::CellSpec;
use super::clock::{FixedClock, Stop, stops};
use super::observe::{Crossings, Probe};
use crate::formulation::NotApplicable;
use crate::integrator::Control;
use crate::scene::{EnergyScale, Scene};
use crate::stabilization::Stabilizer;
pub(crate) use driver::{Driver, total_counters};
use watch::{BranchWatch, Budget, End, EventWatch, Now, StepObserver, StepTimes};

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
    /// An integrator's Newton work (zero for the explicit ones); None for a stepping formulation,
    /// whose Newton iterations are its linear solves.
    #[serde(default)]
    pub newton: Option<NewtonWork>,
}

/// The work of an implicit integrator's Newton iterations, the counts the Test Set for IVP
/// Solvers reports next to steps and evaluations.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewtonWork {
    /// Newton iterations.
    pub iterations: u64,
    /// Jacobians formed (their evaluations are in `rhs_evals`).
    pub jacobians: u64,
    /// Factorizations of the iteration matrices (one real and one complex for `radau5`).
    pub decompositions: u64,
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
    /// Contacts within the margin at this sample (None in a scene without contact).
    pub contacts: Option<u32>,
    /// The largest residual any step's solve has ended at so far, in the solver's own measure
    /// (the summary's `max_solver_residual` up to this time).
    pub max_solver_residual: f64,
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

/// Runs one cell on `scene`: steps to each stop (sample or probe time), the observers looking at
/// every accepted step, then samples and checks the state at the stop.
pub fn run(scene: &Scene, cell: &CellSpec) -> RunResult {
    let mut sim = match Simulation::new(scene, cell) {
        Ok(sim) => sim,
        Err(reason) => return not_applicable(scene, reason.0),
    };
    let stops = std::mem::take(&mut sim.stops);
    let status = match stops.iter().try_for_each(|stop| sim.run_to(stop)) {
        Ok(()) => Status::Ok,
        Err(end) => end.into_status(),
    };
    sim.finish(status)
}

/// One cell's run in progress: the stepping state, its clock and everything that watches it.
struct Simulation<'a> {
    scene: &'a Scene,
    cell: &'a CellSpec<'a>,
    driver: Driver<'a>,
    stab: Option<Box<dyn Stabilizer + 'a>>,
    probe: Probe<'a>,
    /// Fixed steps: every step has the labelled h and the time is the step count times h, never
    /// accumulated. A sample is the state at the first step boundary at or after k × interval
    /// (once per boundary); the run ends at the boundary nearest the duration (within h/2).
    /// Adaptive steps (`None`) run to the duration regardless of the samples (the last one is
    /// clipped to end on it); a sample, probe or event inside a step is read off the method's
    /// continuous extension.
    clock: Option<FixedClock>,
    stops: Vec<Stop>,
    /// Where a driven scene's clock sits in the integrated state.
    clock_at: Option<usize>,
    e0: f64,
    /// Accepted steps.
    n: u64,
    /// The time of the last step boundary and of the one before \[s\].
    t: f64,
    t_prev: f64,
    /// A state (x, ẋ) inside the last step.
    inside: (Vec<f64>, Vec<f64>),
    budget: Budget,
    step_times: StepTimes,
    events: Option<EventWatch<'a>>,
    branch: Option<BranchWatch>,
    /// Wall time of the stepping so far \[s\]: measurement (events, branch checks, samples) excluded.
    wall: f64,
    samples: Vec<Sample>,
    probes: Vec<Vec<f64>>,
}

impl<'a> Simulation<'a> {
    /// Builds the cell's formulation, integrator and stabilizer, or says why they do not combine.
    fn new(scene: &'a Scene, cell: &'a CellSpec<'a>) -> Result<Self, NotApplicable> {
        let (formulation, solver) = (cell.formulation, cell.solver);
        if !formulation.pairs_with(solver) {
            return Err(NotApplicable(format!(
                "`{}` solves a {}, which solver `{}` does not take",
                formulation.name,
                formulation.system.describe(),
                solver.name
            )));
        }
        let dynamics = (formulation.build)(&cell.formulation_params, scene, (solver.build)(&cell.solver_params))?;
        let driver = Driver::pair(dynamics, cell, &scene.q0, &scene.v0)?;
        let stab = (cell.stabilizer.build)(&cell.stabilizer_params, scene, (solver.build)(&cell.solver_params))?;
        if let (Some(s), Driver::Ode { ode, .. }) = (&stab, &driver)
            && !ode.is_cartesian()
            && !(ode.projects() && s.target().is_some())
        {
            return Err(NotApplicable(format!(
                "stabilizer `{}` corrects Cartesian states; `{}` integrates reduced coordinates",
                cell.stabilizer.name, formulation.name
            )));
        }
        Ok(Self::start(scene, cell, driver, stab))
    }

    /// The run at t = 0, its first sample taken.
    fn start(
        scene: &'a Scene,
        cell: &'a CellSpec<'a>,
        mut driver: Driver<'a>,
        stab: Option<Box<dyn Stabilizer + 'a>>,
    ) -> Self {
        let mut probe = Probe::new(scene, cell.record_state || cell.outputs.iter().any(|o| o.quantity.needs_lambda()));
        let e0 = scene.system.energy(&scene.q0, &scene.v0);
        let first = probe.sample(scene, &mut driver, &stab, 0.0, e0, cell.record_state, None, &cell.outputs);
        let clock = match cell.control {
            Control::Fixed { h } => Some(FixedClock::new(h, cell.step_fraction, cell.duration)),
            Control::Adaptive { .. } => None,
        };
        let expected_steps = match cell.control {
            Control::Fixed { h } => ((cell.duration / h).ceil() as usize).saturating_add(1),
            _ => 1024,
        };
        let inside = match &driver {
            Driver::Ode { x, xd, .. } => (vec![0.0; x.len()], vec![0.0; xd.len()]),
            Driver::Stepper { .. } => (vec![], vec![]),
        };
        Simulation {
            stops: stops(cell, clock.as_ref()),
            clock,
            clock_at: driver.clock_index(scene),
            e0,
            n: 0,
            t: 0.0,
            t_prev: 0.0,
            inside,
            budget: Budget::start(cell),
            step_times: StepTimes::with_capacity(expected_steps),
            events: (!cell.events.is_empty()).then(|| EventWatch::new(scene, cell, &probe)),
            branch: (!scene.branch.is_empty()).then(|| BranchWatch::new(scene, cell)),
            wall: 0.0,
            samples: vec![first],
            probes: Vec::with_capacity(cell.probe_times.len()),
            scene,
            cell,
            driver,
            stab,
            probe,
        }
    }

    /// Steps to `stop`, then samples (or probes) there and checks the sample.
    fn run_to(&mut self, stop: &Stop) -> Result<(), End> {
        let start = Instant::now();
        let mut unmeasured = 0.0;
        let stepped = self.step_to(stop, &mut unmeasured);
        self.wall += start.elapsed().as_secs_f64() - unmeasured;
        stepped?;
        self.at_stop(stop)
    }

    /// Takes steps until the boundary of `stop` (fixed steps) or its time (adaptive); the time
    /// observers spend is added to `unmeasured`.
    fn step_to(&mut self, stop: &Stop, unmeasured: &mut f64) -> Result<(), End> {
        while match stop.boundary {
            Some(nk) => self.n < nk,
            None => self.t < stop.t,
        } {
            // Every run ends: a step count or wall time beyond the budget fails the cell.
            self.budget.check(self.n, self.t)?;
            let h_max = self.clock.as_ref().map_or(self.cell.duration - self.t, |c| c.h);
            let step_start = Instant::now();
            let step = self.driver.advance(&mut self.stab, h_max);
            self.step_times.record(self.n, step_start.elapsed().as_secs_f64());
            let (h, finite) = step.map_err(|failure| {
                if failure.is_time_budget() { self.budget.exceeded(self.t) } else { End::Step { t: self.t, failure } }
            })?;
            self.accept(h, h_max);
            if !finite {
                return Err(End::NonFinite { t: self.t });
            }
            let observe_start = Instant::now();
            let observed = self.observe_step();
            *unmeasured += observe_start.elapsed().as_secs_f64();
            observed?;
        }
        Ok(())
    }

    /// Moves the clock past an accepted step of length `h` (at most `h_max`).
    fn accept(&mut self, h: f64, h_max: f64) {
        self.n += 1;
        self.t_prev = self.t;
        self.t = match &self.clock {
            Some(c) => c.time(self.n),
            None if h >= h_max => self.cell.duration,
            None => self.t + h,
        };
        super::contained::set_cell_time(self.t);
        // A driven scene's clock s is the counted time n h, not a sum of steps.
        if let (Some(i), Some(_)) = (self.clock_at, &self.clock) {
            self.driver.set_clock(i, self.t);
        }
    }

    /// Runs the step observers (events, then branch invariants) on the step just accepted.
    fn observe_step(&mut self) -> Result<(), End> {
        let mut now = Now {
            scene: self.scene,
            driver: &mut self.driver,
            probe: &mut self.probe,
            t_prev: self.t_prev,
            t: self.t,
            adaptive: self.clock.is_none(),
            inside: &mut self.inside,
        };
        let observers =
            [self.events.as_mut().map(|e| e as &mut dyn StepObserver), self.branch.as_mut().map(|b| b as _)];
        observers.into_iter().flatten().try_for_each(|o| o.after_step(&mut now))
    }

    /// At a stop: the state there (inside the last step for an adaptive one that passed it),
    /// recorded as a probe or as a sample checked against the drift bound and the branch.
    fn at_stop(&mut self, stop: &Stop) -> Result<(), End> {
        let inside = match &self.clock {
            None if stop.t < self.t => self.dense_at(stop.t)?,
            _ => false,
        };
        let (stop_t, at) =
            if inside { (stop.t, Some((self.inside.0.as_slice(), self.inside.1.as_slice()))) } else { (self.t, None) };
        let (scene, cell) = (self.scene, self.cell);
        if stop.is_probe {
            let mut values = vec![0.0; cell.outputs.len()];
            self.probe.probe(scene, &mut self.driver, at, &cell.outputs, &mut values);
            self.probes.push(values);
            return Ok(());
        }
        let mut s = self.probe.sample(
            scene,
            &mut self.driver,
            &self.stab,
            stop_t,
            self.e0,
            cell.record_state,
            at,
            &cell.outputs,
        );
        s.counters.wall_seconds = self.wall;
        let drift = s.drift_position;
        self.samples.push(s);
        if !(drift <= cell.drift_bound) {
            return Err(End::Drift { t: stop_t, drift, bound: cell.drift_bound });
        }
        match scene.branch.iter().find_map(|b| b.violated(&scene.system, &self.probe.q, &self.probe.v)) {
            Some(reason) => Err(End::Branch(Status::LeftBranch { t: stop_t, reason })),
            None => Ok(()),
        }
    }

    /// The state at `t` inside the last adaptive step, into `inside`, from the continuous
    /// extension (its solves are measurement); false when the method has none.
    fn dense_at(&mut self, t: f64) -> Result<bool, End> {
        let theta = (t - self.t_prev) / (self.t - self.t_prev);
        let (xi, xdi) = &mut self.inside;
        let r = self.driver.uncounted(|ode, integrator| integrator.dense_output(ode, theta, xi, xdi));
        r.unwrap_or(Ok(false)).map_err(|error| End::DenseOutput { t, error })
    }

    /// The result: samples, probes, crossings and the summary with `status`.
    fn finish(self, status: Status) -> RunResult {
        let mut counters = total_counters(&self.driver, &self.stab);
        counters.wall_seconds = self.wall;
        counters.median_step_seconds = self.step_times.median();
        let samples = self.samples;
        let fold = |f: &dyn Fn(&Sample) -> f64| {
            samples.iter().map(f).fold(0.0f64, |m, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x) })
        };
        let summary = Summary {
            status,
            max_drift_position: fold(&|s| s.drift_position),
            max_drift_velocity: fold(&|s| s.drift_velocity),
            max_energy_error: fold(&|s| s.energy_error),
            energy_scale: self.scene.energy_scale.clone(),
            max_abs_power: fold(&|s| s.power.abs()),
            max_reference_error: self
                .scene
                .reference
                .as_ref()
                .map(|_| fold(&|s| s.reference_error.unwrap_or(f64::NAN))),
            max_solver_residual: self.driver.max_residual(),
            counters,
        };
        let events = match self.events {
            Some(watch) => watch.crossings,
            None => Vec::new(),
        };
        RunResult { samples, summary, probes: self.probes, events }
    }
}
