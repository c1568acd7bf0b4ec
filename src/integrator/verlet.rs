//! Velocity Verlet, order 2 (Swope et al. 1982; Hairer, Lubich & Wanner, GNI, §I.1.4):
//!   ẋ½ = ẋ + h/2 a(x, ẋ),   x⁺ = x + h ẋ½,   ẋ⁺ = ẋ½ + h/2 a(x⁺, ẋ⁺)
//! Symmetric and symplectic when a does not depend on ẋ; then one evaluation per step, since
//! a(x⁺) is the next step's a(x).
//!
//! DEVIATION: the constraint accelerations here depend on ẋ (J̇v, k_d Ċ), which makes the last
//! stage implicit. It is made explicit by evaluating a(x⁺, ẋ̃) at the predicted velocity
//! ẋ̃ = ẋ + h a(x, ẋ), whose error O(h²) enters ẋ⁺ multiplied by h/2: the local error stays O(h³),
//! so the method keeps order 2 with one evaluation per step (the value is reused as the next
//! step's a(x, ẋ), again an O(h²) perturbation times h/2). For velocity-independent forces it is
//! exactly velocity Verlet.

use super::registry::{IntegratorEntry, Make};
use super::{IntegrateError, Integrator, IntegratorStats, fixed_step};
use super::SecondOrderOde;

/// Velocity Verlet with a fixed step.
#[derive(Debug)]
pub struct Verlet {
    h: f64,
    a: Vec<f64>,
    pred: Vec<f64>,
    cached: bool,
    stats: IntegratorStats,
}

impl Verlet {
    /// With step `h` \[s\].
    pub fn new(h: f64) -> Self {
        Verlet { h, a: vec![], pred: vec![], cached: false, stats: IntegratorStats::default() }
    }
}

impl Integrator for Verlet {
    fn prepare(&mut self, _nx: usize, nv: usize) {
        self.a = vec![0.0; nv];
        self.pred = vec![0.0; nv];
        self.cached = false;
    }

    fn step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        x: &mut [f64],
        xd: &mut [f64],
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        let h = fixed_step(self.h, h_max);
        if !self.cached {
            ode.accel(x, xd, &mut self.a)?;
            self.stats.rhs_evals += 1;
        }
        for ((vi, pi), ai) in xd.iter_mut().zip(self.pred.iter_mut()).zip(&self.a) {
            *pi = *vi + h * ai; // ẋ̃, the predicted end velocity
            *vi += 0.5 * h * ai; // ẋ½
        }
        ode.advance(x, xd, h);
        self.cached = false;
        ode.accel(x, &self.pred, &mut self.a)?;
        self.stats.rhs_evals += 1;
        for (vi, ai) in xd.iter_mut().zip(&self.a) {
            *vi += 0.5 * h * ai;
        }
        self.cached = true;
        self.stats.steps += 1;
        Ok(h)
    }

    fn stats(&self) -> IntegratorStats {
        self.stats
    }

    fn reset(&mut self) {
        self.cached = false;
    }
}

/// The registry entry of `verlet`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "verlet",
    summary: "velocity Verlet, order 2, symmetric",
    order: 2,
    make: Make::Fixed(|h| Box::new(Verlet::new(h))),
    dae: false,
};
