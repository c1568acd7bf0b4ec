//! What watches a run: how it ends (typed until rendered into the cell's [`Status`]), the step and
//! wall-time budget, the per-step times, and the observers that look at the state after every
//! accepted step (events, branch invariants).

use std::time::Instant;

use super::Status;
use super::driver::{Driver, StepFailure};
use crate::experiment::budget::STEP_TIMES_CAP;
use crate::experiment::cell::CellSpec;
use crate::experiment::observe::{Crossings, EventSpec, Probe, illinois};
use crate::integrator::IntegrateError;
use crate::scene::{Output, Scene};

/// Why a run ended before its duration; each rendered once into a [`Status`].
pub(super) enum End {
    /// The step count reached `limits.steps_per_cell`.
    MaxSteps { t: f64, n: u64 },
    /// The wall time exceeded `limits.cell_seconds`.
    TimeBudget { t: f64, seconds: f64 },
    /// A step failed.
    Step { t: f64, failure: StepFailure },
    /// The state after a step holds a NaN or an infinity.
    NonFinite { t: f64 },
    /// The continuous extension failed at a stop inside a step.
    DenseOutput { t: f64, error: IntegrateError },
    /// A sample's constraint drift exceeds the divergence bound.
    Drift { t: f64, drift: f64, bound: f64 },
    /// A branch invariant failed: the status by the rule of
    /// [`crate::experiment::contained::off_branch`] (a jump diverged, a move left the branch).
    Branch(Status),
}

impl End {
    /// The status the cell records.
    pub(super) fn into_status(self) -> Status {
        match self {
            End::MaxSteps { t, n } => Status::Failed {
                t,
                reason: format!("max steps: {n} steps taken before the end (limits.steps_per_cell)"),
            },
            End::TimeBudget { t, seconds } => Status::Failed {
                t,
                reason: format!("time budget: {seconds} s of wall time exceeded (limits.cell_seconds)"),
            },
            End::Step { t, failure } => Status::Failed { t, reason: failure.to_string() },
            End::NonFinite { t } => Status::Diverged { t, reason: "non-finite state (NaN or infinity)".into() },
            End::DenseOutput { t, error } => Status::Failed { t, reason: format!("dense output: {error}") },
            End::Drift { t, drift, bound } => Status::Diverged {
                t,
                reason: format!("constraint drift |C|inf = {drift:.3e} exceeds the bound {bound:.3e}"),
            },
            End::Branch(status) => status,
        }
    }
}

/// The most wall time \[s\] of steps between two reads of the clock for the time budget.
const BUDGET_CHECK_SECONDS: f64 = 0.01;

/// The step and wall-time budget of one cell; while it lives, the cell's deadline is set for the
/// loops inside a step ([`crate::deadline`]).
pub(super) struct Budget {
    max_steps: u64,
    seconds: f64,
    start: Instant,
    next_check: u64,
    _deadline: crate::deadline::Guard,
}

impl Budget {
    /// The cell's budget, its clock started now.
    pub(super) fn start(cell: &CellSpec) -> Self {
        let start = Instant::now();
        let deadline = std::time::Duration::try_from_secs_f64(cell.time_budget).ok().and_then(|d| start.checked_add(d));
        Budget {
            max_steps: cell.max_steps,
            seconds: cell.time_budget,
            start,
            next_check: 1,
            _deadline: crate::deadline::set(deadline),
        }
    }

    /// The end of a run whose budget ran out inside a step at time `t`.
    pub(super) fn exceeded(&self, t: f64) -> End {
        End::TimeBudget { t, seconds: self.seconds }
    }

    /// Before step `n + 1` at time `t`: whether the run may take it. The clock is read every step
    /// while steps are expensive and every few steps once they are cheap (at most 64, and no more
    /// than about 10 ms of steps between two reads), so that no cell overruns its budget by more
    /// than 10 ms of steps; inside a step the loops read the deadline themselves
    /// ([`crate::deadline`]), so an expensive step overruns it by at most
    /// [`crate::deadline::EVERY`] of its iterations.
    pub(super) fn check(&mut self, n: u64, t: f64) -> Result<(), End> {
        if n >= self.max_steps {
            return Err(End::MaxSteps { t, n });
        }
        if n >= self.next_check {
            let elapsed = self.start.elapsed().as_secs_f64();
            if elapsed > self.seconds {
                return Err(End::TimeBudget { t, seconds: self.seconds });
            }
            let per_step = elapsed / n.max(1) as f64;
            self.next_check = n + ((BUDGET_CHECK_SECONDS / per_step) as u64).clamp(1, 64);
        }
        Ok(())
    }
}

/// Per-step wall times for the median, at most [`STEP_TIMES_CAP`] of them: past that, every other
/// one is dropped and only every `stride`-th step is kept (an evenly thinned sample).
pub(super) struct StepTimes {
    seconds: Vec<f64>,
    stride: u64,
}

impl StepTimes {
    /// Room for the step count of a fixed step (capped), a guess for an adaptive one.
    pub(super) fn with_capacity(steps: usize) -> Self {
        StepTimes { seconds: Vec::with_capacity(steps.min(STEP_TIMES_CAP)), stride: 1 }
    }

    /// Records that step `n` (counted from 0) took `seconds`.
    pub(super) fn record(&mut self, n: u64, seconds: f64) {
        if n.is_multiple_of(self.stride) {
            self.seconds.push(seconds);
            if self.seconds.len() >= STEP_TIMES_CAP {
                let mut i = 0;
                self.seconds.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
        }
    }

    /// The median (mean of the two middle values for an even count); 0 for none.
    pub(super) fn median(mut self) -> f64 {
        let x = &mut self.seconds;
        if x.is_empty() {
            return 0.0;
        }
        x.sort_unstable_by(f64::total_cmp);
        let n = x.len();
        if n % 2 == 1 { x[n / 2] } else { 0.5 * (x[n / 2 - 1] + x[n / 2]) }
    }
}

/// The run as an observer sees it right after an accepted step [t_prev, t].
pub(super) struct Now<'s, 'a> {
    pub(super) scene: &'a Scene,
    pub(super) driver: &'s mut Driver<'a>,
    pub(super) probe: &'s mut Probe<'a>,
    pub(super) t_prev: f64,
    pub(super) t: f64,
    /// Whether steps are error-controlled (a crossing is then located on the continuous
    /// extension).
    pub(super) adaptive: bool,
    /// Workspaces (x, ẋ) for a state inside the step.
    pub(super) inside: &'s mut (Vec<f64>, Vec<f64>),
}

impl Now<'_, '_> {
    /// The time of the root of `g(q, v)` inside the step, given its values `g0`, `g1` at the step's
    /// ends: on the continuous extension of an adaptive ODE step (Illinois), linear between the
    /// two boundaries of a fixed step.
    fn crossing(&mut self, g: &dyn Fn(&[f64], &[f64]) -> f64, g0: f64, g1: f64) -> f64 {
        let (t0, t1) = (self.t_prev, self.t);
        let linear = t0 + (t1 - t0) * g0 / (g0 - g1);
        if !self.adaptive {
            return linear;
        }
        let (probe, (xi, xdi)) = (&mut *self.probe, &mut *self.inside);
        let theta = self.driver.uncounted(|ode, integrator| {
            let mut at = |theta: f64| match integrator.dense_output(ode, theta, xi, xdi) {
                Ok(true) => {
                    ode.cartesian(xi, xdi, &mut probe.q, &mut probe.v);
                    g(&probe.q, &probe.v)
                }
                _ => f64::NAN,
            };
            illinois(&mut at, g0, g1)
        });
        theta.map_or(linear, |theta| t0 + theta * (t1 - t0))
    }
}

/// Looks at the state after every accepted step.
pub(super) trait StepObserver {
    /// Observes the step that just ended; an error ends the run.
    fn after_step(&mut self, now: &mut Now<'_, '_>) -> Result<(), End>;
}

/// Locates the crossings of the cell's events: g = output − value (wrapped for angles) changes
/// sign in the step's direction.
pub(super) struct EventWatch<'c> {
    events: &'c [EventSpec],
    outputs: &'c [Output],
    /// g at the last step boundary, one per event.
    g_prev: Vec<f64>,
    values: Vec<f64>,
    /// The crossings found, one list per event.
    pub(super) crossings: Vec<Crossings>,
}

impl<'c> EventWatch<'c> {
    /// The cell's events, g evaluated at the initial state loaded in `probe`.
    pub(super) fn new(scene: &Scene, cell: &'c CellSpec, probe: &Probe) -> Self {
        let (events, outputs) = (&cell.events[..], &cell.outputs[..]);
        let mut values = vec![0.0; outputs.len()];
        probe.outputs(scene, outputs, &mut values);
        let g_prev = events.iter().map(|e| outputs[e.output].difference(values[e.output], e.value)).collect();
        EventWatch { events, outputs, g_prev, values, crossings: vec![Crossings::default(); events.len()] }
    }
}

impl StepObserver for EventWatch<'_> {
    fn after_step(&mut self, now: &mut Now<'_, '_>) -> Result<(), End> {
        let sys = &now.scene.system;
        now.probe.load(now.driver, None);
        now.probe.outputs(now.scene, self.outputs, &mut self.values);
        for (i, e) in self.events.iter().enumerate() {
            let o = &self.outputs[e.output];
            let (g0, g1) = (self.g_prev[i], o.difference(self.values[e.output], e.value));
            if e.crosses(o, g0, g1) {
                let tc = now.crossing(&|q, v| o.difference(o.value(sys, q, v), e.value), g0, g1);
                self.crossings[i].times.push(tc);
                self.crossings[i].rising.push(g1 > g0);
            }
            self.g_prev[i] = g1;
        }
        Ok(())
    }
}

/// Checks the scene's branch invariants at every step (a run may leave a branch and come back
/// between samples); a failed one ends the run by the rule of
/// [`crate::experiment::contained::off_branch`], judged on the largest move of the step.
pub(super) struct BranchWatch {
    /// The positions at the last check.
    prev: Vec<f64>,
    /// The length scale a body may move in one step before that is a jump \[m\].
    scale: f64,
}

impl BranchWatch {
    /// Starts at the scene's initial positions.
    pub(super) fn new(scene: &Scene, cell: &CellSpec) -> Self {
        BranchWatch { prev: scene.q0.clone(), scale: cell.drift_bound }
    }
}

impl StepObserver for BranchWatch {
    fn after_step(&mut self, now: &mut Now<'_, '_>) -> Result<(), End> {
        let sys = &now.scene.system;
        now.probe.load(now.driver, None);
        let off = now.scene.branch.iter().find_map(|b| b.violated(sys, &now.probe.q, &now.probe.v));
        let jump = crate::scene::largest_jump(sys, &self.prev, &now.probe.q);
        self.prev.copy_from_slice(&now.probe.q);
        match off {
            Some(reason) => Err(End::Branch(crate::experiment::contained::off_branch(now.t, reason, jump, self.scale))),
            None => Ok(()),
        }
    }
}
