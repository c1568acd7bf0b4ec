//! What the cell loop says about a run that did not end normally: a panic inside the cell,
//! contained and recorded in that cell ([`run_contained`]), and the rule that tells a blow-up from
//! a move to another assembly branch ([`off_branch`]).

use super::cell::CellSpec;
use super::runner::{RunResult, Status};
use crate::scene::Scene;

thread_local! {
    /// The time the current cell on this thread has reached (the last step boundary), so that a
    /// panic inside a step is recorded with its time.
    static CELL_TIME: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// [`super::runner::run`] with the cell's panic contained: a panic anywhere in the cell (a kernel's bug, a
/// formulation's own code) ends that cell as `failed` with the panic's message and the time the
/// cell had reached; the caller and the other cells go on.
pub fn run_contained(scene: &Scene, cell: &CellSpec) -> RunResult {
    CELL_TIME.with(|t| t.set(0.0));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| super::runner::run(scene, cell))) {
        Ok(r) => r,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            let mut r = super::runner::not_applicable(scene, String::new());
            r.summary.status = Status::Failed {
                t: CELL_TIME.with(|t| t.get()),
                reason: format!("panicked in the cell (a bug in the code it ran): {message}"),
            };
            r
        }
    }
}

/// Records the time the current cell on this thread has reached, for [`run_contained`].
pub(super) fn set_cell_time(t: f64) {
    CELL_TIME.with(|c| c.set(t));
}

/// How a run that broke a branch invariant ended, by the stated rule: if the step that broke it
/// moved a body by more than the length scale `scale` (the divergence bound) or turned a planar
/// body by more than π, the integration ran away — no converging step makes such a jump, and the
/// invariant failed because the numbers blew up, not because the mechanism went through a
/// singular configuration onto another branch — so the run diverged; otherwise it left the branch.
pub(super) fn off_branch(t: f64, reason: String, (moved, turned): (f64, f64), scale: f64) -> Status {
    if moved > scale || turned > std::f64::consts::PI || moved.is_nan() || turned.is_nan() {
        Status::Diverged {
            t,
            reason: format!(
                "the state jumped in one step (a body moved {moved:.3e} m, length scale {scale:.3e} m; a planar body turned {turned:.3e} rad, more than π is a jump), which broke the branch invariant: {reason}"
            ),
        }
    } else {
        Status::LeftBranch { t, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::cell::CellSpec;
    use crate::formulation::stepper_core::StepperCore;
    use crate::formulation::{Dynamics, NotApplicable, Stepper};
    use crate::integrator::Control;
    use crate::linsolve::{LinearSolver, SolveError};

    /// A test-only stepper that panics in its tenth step.
    struct Bomb<'a> {
        core: StepperCore<'a>,
        steps: usize,
    }

    impl Stepper for Bomb<'_> {
        fn step(&mut self, _h: f64, _q: &mut [f64], _v: &mut [f64]) -> Result<(), SolveError> {
            self.steps += 1;
            assert!(self.steps < 10, "injected failure in step {}", self.steps);
            Ok(())
        }
        fn core(&self) -> &StepperCore<'_> {
            &self.core
        }
    }

    fn bomb<'a>(
        _: &crate::params::Resolved,
        scene: &'a Scene,
        solver: Box<dyn LinearSolver>,
    ) -> Result<Dynamics<'a>, NotApplicable> {
        Ok(Dynamics::Stepper(Box::new(Bomb { core: StepperCore::new(scene, solver)?, steps: 0 })))
    }

    #[test]
    fn a_panic_inside_one_cell_fails_that_cell_with_its_time_and_message() {
        // Regression: a panic inside one cell's step ended the whole run, every other cell's work
        // lost. Through a test-only stepper that panics in its tenth step of 0.01 s.
        let scene = crate::scene::registry::find("pendulum").unwrap().build_default(&[]).unwrap();
        let mut spec = CellSpec::named("impulse", &[], "dense_lu", &[], None, Control::Fixed { h: 0.01 }, 1.0).unwrap();
        let entry = crate::formulation::registry::FormulationEntry { build: bomb, ..*spec.formulation };
        spec.formulation = Box::leak(Box::new(entry));
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = run_contained(&scene, &spec);
        std::panic::set_hook(hook);
        let Status::Failed { t, reason } = &r.summary.status else { panic!("{:?}", r.summary.status) };
        assert!((t - 0.09).abs() < 1e-12, "t = {t}");
        assert!(reason.contains("panicked") && reason.contains("injected failure in step 10"), "{reason}");
        // The same cell without the bomb runs normally on the same thread afterwards.
        let ok = CellSpec::named("impulse", &[], "dense_lu", &[], None, Control::Fixed { h: 0.01 }, 1.0).unwrap();
        assert!(run_contained(&scene, &ok).summary.status.is_ok());
    }

    #[test]
    fn a_branch_invariant_broken_by_a_jump_is_a_divergence_not_a_branch_change() {
        // Regression: force (ω = 10) + RK4 on the N-four-bar ended "left the assembly branch" with
        // a coupler angle of −9.7e6 rad reached in one step. A step turning a planar body by more
        // than π, or moving a body by more than the length scale, is a blow-up.
        let reason = || "K2.angle outside [-0.5, 0.5]".to_string();
        assert_eq!(off_branch(1.0, reason(), (1e-3, 1e-3), 1.0).label(), "left branch");
        assert_eq!(off_branch(1.0, reason(), (1e-3, 9.7e6), 1.0).label(), "diverged");
        assert_eq!(off_branch(1.0, reason(), (2.0, 0.0), 1.0).label(), "diverged");
        assert_eq!(off_branch(1.0, reason(), (f64::NAN, 0.0), 1.0).label(), "diverged");
        let Status::Diverged { reason, .. } = off_branch(1.0, reason(), (0.0, 4.0), 1.0) else { unreachable!() };
        assert!(reason.contains("jumped in one step") && reason.contains("K2.angle"), "{reason}");
    }
}
