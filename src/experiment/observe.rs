//! What a run measures besides stepping: the metrics of a sample, the recorded state and
//! multipliers, the named outputs, and the crossings of an output through a value (events).
//! None of it is counted as cost.

use super::runner::{Driver, Sample, total_counters};
use crate::metrics::{constraint_power, inf_norm, relative_energy_error};
use crate::normal_solve::NormalSolve;
use crate::scene::{Output, Scene};
use crate::stabilization::Stabilizer;

/// Which way an event's output crosses its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From below to above.
    Up,
    /// From above to below.
    Down,
    /// Either way.
    Both,
}

/// An event: the times an output crosses a value.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    /// Index into the cell's outputs.
    pub output: usize,
    /// The value crossed (units of the output).
    pub value: f64,
    /// Which crossings count.
    pub direction: Direction,
}

impl EventSpec {
    /// Whether the signed distances g0 → g1 (output − value, wrapped for angles) over one step
    /// cross in this event's direction. A jump of more than π in an angle is a wrap, not a crossing.
    pub(super) fn crosses(&self, output: &Output, g0: f64, g1: f64) -> bool {
        if output.is_angle() && (g1 - g0).abs() > std::f64::consts::PI {
            return false;
        }
        let up = g0 < 0.0 && g1 >= 0.0;
        let down = g0 > 0.0 && g1 <= 0.0;
        match self.direction {
            Direction::Up => up,
            Direction::Down => down,
            Direction::Both => up || down,
        }
    }
}

/// The crossing times of one event and the period they give.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Crossings {
    /// Crossing times \[s\], increasing.
    pub times: Vec<f64>,
    /// Whether each crossing was upward.
    pub rising: Vec<bool>,
}

impl Crossings {
    /// The mean spacing \[s\] of the crossings in the direction of the first one,
    /// (t_last − t_first) / (count − 1) over those, if there are two: the period of a periodic
    /// output.
    pub fn period(&self) -> Option<f64> {
        let first = *self.rising.first()?;
        let same: Vec<f64> =
            self.times.iter().zip(&self.rising).filter(|(_, r)| **r == first).map(|(t, _)| *t).collect();
        (same.len() >= 2).then(|| (same[same.len() - 1] - same[0]) / (same.len() - 1) as f64)
    }
}

/// Measurement workspaces, allocated once per run.
pub(super) struct Probe<'a> {
    pub(super) q: Vec<f64>,
    pub(super) v: Vec<f64>,
    c: Vec<f64>,
    jv: Vec<f64>,
    qhat: Vec<f64>,
    jac: crate::sparse::BlockJacobian,
    contacts: Vec<crate::contact::Contact>,
    detector: Option<crate::contact::Detector>,
    /// Solves J W Jᵀ λ = J W Q̂ for the recorded multipliers (None: not recorded, or contact).
    lambda_solve: Option<NormalSolve<'a>>,
    wq: Vec<f64>,
}

impl<'a> Probe<'a> {
    /// Workspaces for `scene`; `multipliers` prepares the solve that recovers λ from Q̂.
    pub(super) fn new(scene: &'a Scene, multipliers: bool) -> Self {
        let sys = &scene.system;
        let (n, m) = (sys.ndof(), sys.nrows());
        let lambda_solve = multipliers
            .then(|| {
                let solver = crate::linsolve::registry::find("sparse_cholesky").expect("registered");
                NormalSolve::new(sys, (solver.build)(&solver.params.defaults())).ok()
            })
            .flatten();
        Probe {
            q: scene.q0.clone(),
            v: scene.v0.clone(),
            c: vec![0.0; m],
            jv: vec![0.0; m],
            qhat: vec![0.0; n],
            jac: sys.jacobian_layout(),
            contacts: Vec::new(),
            detector: sys.contacts().map(crate::contact::Detector::new),
            lambda_solve,
            wq: vec![0.0; n],
        }
    }

    /// Loads the Cartesian (q, v) of the driver's state, or of `at` = (x, ẋ) for an ODE (a state
    /// inside a step).
    pub(super) fn load(&mut self, driver: &Driver, at: Option<(&[f64], &[f64])>) {
        match driver {
            Driver::Ode { ode, x, xd, .. } => {
                let (x, xd) = at.unwrap_or((x, xd));
                ode.cartesian(x, xd, &mut self.q, &mut self.v);
            }
            Driver::Stepper { q, v, .. } => {
                self.q.copy_from_slice(q);
                self.v.copy_from_slice(v);
            }
        }
    }

    /// The values of `outputs` at the loaded q, into `out` (multiplier outputs: NaN).
    pub(super) fn outputs(&self, scene: &Scene, outputs: &[Output], out: &mut [f64]) {
        self.outputs_with(scene, outputs, None, out);
    }

    /// The values of `outputs` at the loaded q with the multipliers `lambda`, into `out`.
    fn outputs_with(&self, scene: &Scene, outputs: &[Output], lambda: Option<&[f64]>, out: &mut [f64]) {
        for (o, y) in outputs.iter().zip(out.iter_mut()) {
            *y = o.value_with(&scene.system, &self.q, &self.v, lambda);
        }
    }

    /// The values of `outputs` at the driver's state (or at `at`, see [`Probe::load`]) into
    /// `out`, with the multipliers recovered there when an output needs them.
    pub(super) fn probe(
        &mut self,
        scene: &Scene,
        driver: &mut Driver,
        at: Option<(&[f64], &[f64])>,
        outputs: &[Output],
        out: &mut [f64],
    ) {
        self.load(driver, at);
        if outputs.iter().any(|o| o.quantity.needs_lambda()) {
            let ok = self.constraint_force(driver, at);
            let lambda = self.lambda(driver, ok);
            self.outputs_with(scene, outputs, Some(&lambda), out);
        } else {
            self.outputs(scene, outputs, out);
        }
    }

    /// Q̂, the applied constraint force, at the driver's state (or at `at`) into the workspace;
    /// false when the formulation could not evaluate it.
    fn constraint_force(&mut self, driver: &mut Driver, at: Option<(&[f64], &[f64])>) -> bool {
        match driver {
            Driver::Ode { ode, x, xd, .. } => {
                let (x, xd) = at.unwrap_or((x, xd));
                ode.constraint_force(x, xd, &mut self.qhat).is_ok()
            }
            Driver::Stepper { stepper, .. } => {
                stepper.constraint_force(&mut self.qhat);
                true
            }
        }
    }

    /// λ at the loaded state: the stepper's own estimate, or recovered from Q̂.
    fn lambda(&mut self, driver: &Driver, force_ok: bool) -> Vec<f64> {
        match end_multipliers(driver) {
            Some(l) => l.to_vec(),
            None => self.multipliers(force_ok),
        }
    }

    /// The metrics at time `t` of the driver's state (or of `at`, see [`Probe::load`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sample(
        &mut self,
        scene: &Scene,
        driver: &mut Driver,
        stab: &Option<Box<dyn Stabilizer + '_>>,
        t: f64,
        e0: f64,
        record: bool,
        at: Option<(&[f64], &[f64])>,
        outputs: &[Output],
    ) -> Sample {
        let sys = &scene.system;
        self.load(driver, at);
        let power_ok = self.constraint_force(driver, at);
        let energy = sys.energy(&self.q, &self.v);
        sys.eval_constraints(&self.q, &mut self.c);
        sys.fill_jacobian(&self.q, &mut self.jac);
        self.jac.mul(&self.v, &mut self.jv);
        // Contact rows C = φ ≥ 0 are violated by the penetration max(0, −φ).
        let penetration = sys.contacts().zip(self.detector.as_mut()).map_or(0.0, |(set, detector)| {
            detector.detect(set, sys.q_offsets(), &self.q, &mut self.contacts);
            self.contacts.iter().fold(0.0f64, |m, c| m.max(-c.separation))
        });
        let lambda = if record || outputs.iter().any(|o| o.quantity.needs_lambda()) {
            self.lambda(driver, power_ok)
        } else {
            vec![]
        };
        let mut values = vec![0.0; outputs.len()];
        self.outputs_with(scene, outputs, (!lambda.is_empty()).then_some(lambda.as_slice()), &mut values);
        Sample {
            t,
            energy,
            energy_error: relative_energy_error(energy, e0, scene.energy_scale.joules),
            drift_position: inf_norm(&self.c).max(penetration),
            drift_velocity: inf_norm(&self.jv),
            power: if power_ok { constraint_power(&self.qhat, &self.v) } else { f64::NAN },
            reference_error: scene.reference.as_ref().map(|r| r.error(t, &self.q)),
            counters: total_counters(driver, stab),
            q: if record { self.q.clone() } else { vec![] },
            v: if record { self.v.clone() } else { vec![] },
            c: if record { self.c.clone() } else { vec![] },
            jv: if record { self.jv.clone() } else { vec![] },
            lambda: if record { lambda } else { vec![] },
            outputs: values,
            contacts: sys.contacts().map(|_| u32::try_from(self.contacts.len()).unwrap_or(u32::MAX)),
            max_solver_residual: driver.max_residual(),
        }
    }

    /// λ with Q̂ = Jᵀ λ (force units: N for a distance row, N·m for an angular one), recovered
    /// from the applied constraint force as the solution of J W Jᵀ λ = J W Q̂ (exact when J has
    /// full rank). NaN where it cannot be recovered: scenes with contact, rank-deficient J.
    fn multipliers(&mut self, force_ok: bool) -> Vec<f64> {
        let m = self.c.len();
        let Some(ns) = self.lambda_solve.as_mut().filter(|_| force_ok) else { return vec![f64::NAN; m] };
        ns.update_jacobian(&self.q);
        for ((w, qh), wi) in self.wq.iter_mut().zip(&self.qhat).zip(ns.system.inv_mass()) {
            *w = wi * qh;
        }
        ns.jac.mul(&self.wq, &mut ns.rhs);
        match ns.solve(false) {
            Ok(()) => ns.lambda.clone(),
            Err(_) => vec![f64::NAN; m],
        }
    }
}

/// The stepper's own estimate of λ at the step's end (see
/// [`crate::formulation::Stepper::end_multipliers`]); None for an ODE.
fn end_multipliers<'d>(driver: &'d Driver) -> Option<&'d [f64]> {
    match driver {
        Driver::Stepper { stepper, .. } => stepper.end_multipliers(),
        Driver::Ode { .. } => None,
    }
}

/// The root θ ∈ [0, 1] of g with g(0) = g0 and g(1) = g1 of opposite signs: the Illinois variant
/// of regula falsi (Dowell & Jarratt 1971), superlinear, bracketing; stops when the bracket is
/// below 1e-15 or g vanishes.
pub(super) fn illinois(g: &mut dyn FnMut(f64) -> f64, g0: f64, g1: f64) -> f64 {
    let (mut a, mut b, mut ga, mut gb) = (0.0, 1.0, g0, g1);
    let mut side = 0;
    for _ in 0..100 {
        let c = (a * gb - b * ga) / (gb - ga);
        if !(b - a > 1e-15) || !c.is_finite() {
            break;
        }
        let gc = g(c);
        if gc == 0.0 || !gc.is_finite() {
            return c;
        }
        if (gc < 0.0) == (ga < 0.0) {
            (a, ga) = (c, gc);
            if side == -1 {
                gb *= 0.5;
            }
            side = -1;
        } else {
            (b, gb) = (c, gc);
            if side == 1 {
                ga *= 0.5;
            }
            side = 1;
        }
    }
    (a * gb - b * ga) / (gb - ga)
}
