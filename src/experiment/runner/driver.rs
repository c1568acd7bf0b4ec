//! The two ways a formulation advances — an ODE right-hand side with an integrator, or its own
//! time stepper — behind one step function, with the cell's post-step stabilizer.

use super::{Counters, NewtonWork};
use crate::experiment::cell::CellSpec;
use crate::formulation::{Dynamics, NotApplicable, SecondOrderOde, Stepper};
use crate::integrator::{Control, IntegrateError, Integrator, fixed_step};
use crate::linsolve::{SolveError, SolverCounters};
use crate::stabilization::Stabilizer;

/// Why a step failed: the typed error of the part that failed, rendered once into the cell's
/// status.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StepFailure {
    /// The integrator's step (its stages' solves included).
    #[error(transparent)]
    Integrate(#[from] IntegrateError),
    /// A stepping formulation's step.
    #[error(transparent)]
    Step(SolveError),
    /// The post-step stabilizer (or a reduced-coordinate formulation's own projection).
    #[error(transparent)]
    Stabilize(SolveError),
}

impl StepFailure {
    /// Whether the cell's wall-time budget ran out inside the step ([`crate::deadline`]).
    pub(crate) fn is_time_budget(&self) -> bool {
        match self {
            StepFailure::Integrate(e) => e.is_time_budget(),
            StepFailure::Step(e) | StepFailure::Stabilize(e) => matches!(e, SolveError::TimeBudget { .. }),
        }
    }
}

/// A formulation's dynamics paired with how it is advanced.
pub(crate) enum Driver<'a> {
    /// An ODE right-hand side and its integrator; `uncounted`: the solves made only to sample
    /// inside a step (dense output), subtracted from the cost.
    Ode {
        ode: Box<dyn SecondOrderOde + 'a>,
        integrator: Box<dyn Integrator>,
        x: Vec<f64>,
        xd: Vec<f64>,
        uncounted: SolverCounters,
    },
    /// A stepping formulation advancing the Cartesian state (q, v) in place, with step size h.
    Stepper { stepper: Box<dyn Stepper + 'a>, h: f64, steps: u64, q: Vec<f64>, v: Vec<f64> },
}

/// Whether every value of `a` and `b` is finite.
pub(super) fn all_finite(a: &[f64], b: &[f64]) -> bool {
    finite(a) && finite(b)
}

/// Whether every entry of `x` is finite: x · 0 is 0 for a finite x and NaN otherwise, summed in
/// eight independent lanes so that the check runs in vector registers without a branch per entry
/// (it runs after every step, over the whole state).
fn finite(x: &[f64]) -> bool {
    let mut lanes = [0.0; 8];
    let (chunks, rest) = x.as_chunks::<8>();
    for c in chunks {
        for k in 0..8 {
            lanes[k] += c[k] * 0.0;
        }
    }
    lanes.iter().chain(rest).all(|x| (x * 0.0) == 0.0)
}

impl<'a> Driver<'a> {
    /// Pairs a formulation's dynamics with the cell's integrator (stepping formulations start
    /// from `q0`, `v0`), or says why they do not pair.
    pub(super) fn pair(dynamics: Dynamics<'a>, cell: &CellSpec, q0: &[f64], v0: &[f64]) -> Result<Self, NotApplicable> {
        let name = cell.formulation.name;
        let no = |m: String| Err(NotApplicable(m));
        match (dynamics, cell.integrator) {
            (Dynamics::Stepper(stepper), None) => match cell.control {
                Control::Fixed { h } => Ok(Driver::Stepper { stepper, h, steps: 0, q: q0.to_vec(), v: v0.to_vec() }),
                Control::Adaptive { .. } => {
                    no(format!("formulation `{name}` is its own time stepper: it takes a step size h, not tolerances"))
                }
            },
            (Dynamics::Stepper(_), Some(i)) => no(format!(
                "formulation `{name}` is itself a time-stepping scheme (velocity update then position update), not an ODE right-hand side, so `{}` cannot integrate it; give it only a step size",
                i.name
            )),
            (Dynamics::Ode(_), None) => {
                no(format!("formulation `{name}` yields an ODE right-hand side and needs an integrator"))
            }
            (Dynamics::Ode(ode), Some(i)) => {
                let mut integrator = i.build(cell.control).map_err(|e| NotApplicable(e.to_string()))?;
                let (nx, nv) = (ode.position_dim(), ode.dim());
                integrator.prepare(nx, nv);
                let (mut x, mut xd) = (vec![0.0; nx], vec![0.0; nv]);
                ode.initial(&mut x, &mut xd);
                Ok(Driver::Ode { ode, integrator, x, xd, uncounted: SolverCounters::default() })
            }
        }
    }

    /// Takes one step of at most `h_max` \[s\] (a stepper's own h, or less to land on a stop),
    /// then applies the stabilizer to a finite state; returns the step taken and whether the state
    /// is finite.
    pub(super) fn advance(
        &mut self,
        stab: &mut Option<Box<dyn Stabilizer + 'a>>,
        h_max: f64,
    ) -> Result<(f64, bool), StepFailure> {
        match self {
            Driver::Ode { ode, integrator, x, xd, .. } => {
                let h = integrator.step(ode.as_mut(), x, xd, h_max)?;
                if let Some(s) = stab.as_mut()
                    && all_finite(x, xd)
                {
                    // A post-step stabilizer moves the state: the integrator's caches go stale.
                    integrator.reset();
                    match s.target() {
                        // Reduced coordinates project themselves (onto their loop closures).
                        Some((tol, max_iter)) if !ode.is_cartesian() => ode.project(x, xd, tol, max_iter),
                        _ => s.apply(x, xd),
                    }
                    .map_err(StepFailure::Stabilize)?;
                }
                Ok((h, all_finite(x, xd)))
            }
            Driver::Stepper { stepper, h, steps, q, v } => {
                let hs = fixed_step(*h, h_max);
                *steps += 1;
                stepper.step(hs, q, v).map_err(StepFailure::Step)?;
                if let Some(s) = stab.as_mut()
                    && all_finite(q, v)
                {
                    s.apply(q, v).map_err(StepFailure::Stabilize)?;
                }
                Ok((hs, all_finite(q, v)))
            }
        }
    }

    /// Sets a driven scene's clock coordinate `i` of the integrated state (x for an ODE, q for a
    /// stepper) to the counted time `t`.
    pub(super) fn set_clock(&mut self, i: usize, t: f64) {
        match self {
            Driver::Ode { x, .. } => x[i] = t,
            Driver::Stepper { q, .. } => q[i] = t,
        }
    }

    /// Where a driven scene's clock sits in the integrated state, if it has one.
    pub(super) fn clock_index(&self, scene: &crate::scene::Scene) -> Option<usize> {
        match self {
            Driver::Ode { ode, .. } => ode.clock_index(),
            Driver::Stepper { .. } => scene.system.clock_q_index(),
        }
    }

    /// Runs `measure` on an ODE's right-hand side and integrator, the solves it makes counted as
    /// measurement (subtracted from the cost); `None` for a stepper.
    pub(super) fn uncounted<R>(
        &mut self,
        measure: impl FnOnce(&mut dyn SecondOrderOde, &mut dyn Integrator) -> R,
    ) -> Option<R> {
        let Driver::Ode { ode, integrator, uncounted, .. } = self else { return None };
        let before = ode.solver_counters();
        let r = measure(ode.as_mut(), integrator.as_mut());
        let after = ode.solver_counters();
        uncounted.solves += after.solves - before.solves;
        uncounted.iterations += after.iterations - before.iterations;
        Some(r)
    }

    /// The cost so far (wall times left at 0).
    pub(super) fn counters(&self) -> Counters {
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
                    newton: Some(NewtonWork {
                        iterations: i.newton_iterations,
                        jacobians: i.jacobians,
                        decompositions: i.decompositions,
                    }),
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
                    newton: None,
                }
            }
        }
    }

    /// The largest relative residual of any linear solve so far.
    pub(crate) fn max_residual(&self) -> f64 {
        match self {
            Driver::Ode { ode, .. } => ode.solver_counters().max_residual,
            Driver::Stepper { stepper, .. } => stepper.solver_counters().max_residual,
        }
    }
}

/// The driver's counters plus the stabilizer's solves.
pub(crate) fn total_counters(driver: &Driver, stab: &Option<Box<dyn Stabilizer + '_>>) -> Counters {
    let mut c = driver.counters();
    if let Some(s) = stab {
        let sc = s.counters();
        c.linear_solves += sc.solves;
        c.solver_iterations += sc.iterations;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::all_finite;

    /// The lane-summed check finds a non-finite value wherever it sits: in a full chunk of eight,
    /// in the remainder, in either vector; finite values of any size (±0, subnormal, largest)
    /// pass.
    #[test]
    fn the_finite_check_finds_every_non_finite_value_and_passes_finite_ones() {
        let finite = [0.0, -0.0, 5e-324, -f64::MAX, f64::MAX, 1.0, -3.5];
        let x: Vec<f64> = (0..19).map(|i| finite[i % finite.len()]).collect();
        assert!(all_finite(&x, &x));
        assert!(all_finite(&[], &[]));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for i in 0..x.len() {
                let mut y = x.clone();
                y[i] = bad;
                assert!(!all_finite(&y, &x) && !all_finite(&x, &y), "{bad} at {i}");
            }
        }
    }
}
