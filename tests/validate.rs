//! `validate` on the built-in cells, and on a formulation with a deliberate bug.

use tinkertoy::formulation::registry::{FORMULATIONS, FormulationEntry, FormulationKind};
use tinkertoy::formulation::{Dynamics, Force, ForceParams, Gains, SecondOrderOde, SolverCounters};
use tinkertoy::integrator::registry::{self as integrators, INTEGRATORS};
use tinkertoy::linsolve::SolveError;
use tinkertoy::linsolve::registry::{self as solvers, SOLVERS};
use tinkertoy::system::System;
use tinkertoy::validate::{Outcome, Selection, run_all, scorecard_text};

#[test]
fn validate_passes_on_every_built_in_cell() {
    let sel = Selection {
        formulations: FORMULATIONS.iter().collect(),
        solvers: SOLVERS.iter().collect(),
        integrators: INTEGRATORS.iter().collect(),
        own_steppers: true,
    };
    let checks = run_all(&sel);
    let failed: Vec<_> = checks.iter().filter(|c| c.outcome == Outcome::Fail).collect();
    assert!(failed.is_empty(), "{}", scorecard_text(&checks));
    // Every stepping formulation's order is checked in 2D and on an asymmetric body in space, and
    // passes (regression: nothing checked a stepper's order, and rattle ran at order 1 in space).
    // (and every variant a stepper declares, e.g. generalized_alpha's stabilized form)
    let steppers = FORMULATIONS.iter().filter(|f| f.order.is_some()).map(|f| 1 + f.variants.len()).sum::<usize>();
    let orders: Vec<_> = checks.iter().filter(|c| c.case.starts_with("stepper order")).collect();
    assert_eq!(orders.len(), 2 * steppers, "{orders:?}");
    // generalized_alpha steps vector-space coordinates only: in space it is not applicable, and
    // the check says so (Info) instead of passing.
    let in_space = |c: &tinkertoy::validate::Check| c.cell.starts_with("generalized_alpha") && c.case.contains("3D");
    assert!(orders.iter().filter(|c| !in_space(c)).all(|c| c.outcome == Outcome::Pass), "{orders:?}");
    assert!(orders.iter().filter(|c| in_space(c)).all(|c| c.outcome == Outcome::Info), "{orders:?}");
    // The steppers declared conservative (rattle, midpoint) keep the pendulum's energy without drift.
    let conservative = FORMULATIONS.iter().filter(|f| f.conservative).count();
    let energy: Vec<_> = checks.iter().filter(|c| c.case.starts_with("stepper: bounded energy")).collect();
    assert!(conservative >= 2 && energy.len() == conservative, "{energy:?}");
    // Particles collide as points, in the plane and in space: the bead on the slab and on the
    // incline line are checked, and pass with Gauss–Seidel on the cone.
    for case in [
        "bead sliding to rest on a slab in the plane",
        "bead sliding to rest on a slab in space",
        "bead on a 30 deg incline line",
    ] {
        let cells: Vec<_> =
            checks.iter().filter(|c| c.case.starts_with(case) && c.cell.starts_with("pgs · gauss_seidel")).collect();
        assert!(!cells.is_empty() && cells.iter().all(|c| c.outcome == Outcome::Pass), "{case}: {cells:?}");
    }
    // The expected behaviours of the methods are observed, not just tolerated.
    assert!(checks.iter().filter(|c| c.outcome == Outcome::AsPredicted).count() >= 5);
    // Dop853 at tight tolerance: the pendulum's period to 1e-10 relative, for both ODE formulations.
    let period: Vec<_> =
        checks.iter().filter(|c| c.case.starts_with("pendulum period") && c.cell.contains("dop853")).collect();
    assert!(period.len() >= 2 && period.iter().all(|c| c.measured <= 1e-10), "{period:?}");
}

/// The force formulation with a sign error: the constraint force's first component on every
/// body (x for particles and rigid bodies) is applied with the wrong sign.
struct SignError<'a> {
    inner: Force<'a>,
    system: &'a System,
    qhat: Vec<f64>,
}

impl SecondOrderOde for SignError<'_> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn position_dim(&self) -> usize {
        self.inner.position_dim()
    }
    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        self.inner.advance(x, xd, h)
    }
    fn position_rate(&self, x: &[f64], xd: &[f64], out: &mut [f64]) {
        self.inner.position_rate(x, xd, out)
    }
    fn normalize(&self, x: &mut [f64]) -> bool {
        self.inner.normalize(x)
    }
    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        self.inner.initial(x, xd)
    }
    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        self.inner.accel(x, xd, a)?;
        self.inner.constraint_force(x, xd, &mut self.qhat)?;
        for &o in self.system.offsets() {
            a[o] -= 2.0 * self.system.inv_mass()[o] * self.qhat[o]; // BUG on purpose: +Q̂_x becomes −Q̂_x
        }
        Ok(())
    }
    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        self.inner.cartesian(x, xd, q, v)
    }
    fn cartesian_acceleration(&self, x: &[f64], xd: &[f64], a: &[f64], out: &mut [f64]) {
        self.inner.cartesian_acceleration(x, xd, a, out)
    }
    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.inner.constraint_force(x, xd, out)
    }
    fn solver_counters(&self) -> SolverCounters {
        self.inner.solver_counters()
    }
}

const WRONG: FormulationEntry = FormulationEntry {
    name: "force_sign_error",
    summary: "force with the x-component of the constraint force negated (a deliberate bug)",
    build: |_, scene, solver| {
        let inner = Force::new(scene, Gains { ks: 0.0, kd: 0.0 }, solver)?;
        Ok(Dynamics::Ode(Box::new(SignError { inner, system: &scene.system, qhat: vec![0.0; scene.system.ndof()] })))
    },
    ..FormulationEntry::of::<ForceParams>("", "", FormulationKind::Ode)
};

#[test]
fn a_formulation_with_a_sign_error_in_its_constraint_force_fails_validation() {
    let sel = Selection {
        formulations: vec![&WRONG],
        solvers: vec![solvers::find("dense_lu").unwrap()],
        integrators: vec![integrators::find("rk4").unwrap(), integrators::find("dop853").unwrap()],
        own_steppers: false,
    };
    let checks = run_all(&sel);
    let failed = |case: &str| checks.iter().any(|c| c.case.starts_with(case) && c.outcome == Outcome::Fail);
    assert!(failed("virtual-work orthogonality"), "{}", scorecard_text(&checks));
    assert!(failed("bounded drift"), "{}", scorecard_text(&checks));
    assert!(failed("pendulum period"), "{}", scorecard_text(&checks));
}
