//! Explicit (forward) Euler, order 1: x⁺ = x + h ẋ,  ẋ⁺ = ẋ + h a(x, ẋ) (Hairer, Nørsett & Wanner,
//! Solving ODEs I, §I.7). Not symplectic: on a harmonic oscillator the energy grows by the factor
//! (1 + h²ω²) every step.

use super::registry::{IntegratorEntry, Make};
use super::{IntegrateError, Integrator, IntegratorStats, fixed_step};
use super::SecondOrderOde;

/// Explicit Euler with a fixed step.
#[derive(Debug)]
pub struct ExplicitEuler {
    h: f64,
    a: Vec<f64>,
    stats: IntegratorStats,
}

impl ExplicitEuler {
    /// With step `h` \[s\].
    pub fn new(h: f64) -> Self {
        ExplicitEuler { h, a: vec![], stats: IntegratorStats::default() }
    }
}

impl Integrator for ExplicitEuler {
    fn prepare(&mut self, _nx: usize, nv: usize) {
        self.a = vec![0.0; nv];
    }

    fn step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        x: &mut [f64],
        xd: &mut [f64],
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        let h = fixed_step(self.h, h_max);
        ode.accel(x, xd, &mut self.a)?;
        self.stats.rhs_evals += 1;
        ode.advance(x, xd, h);
        for (vi, ai) in xd.iter_mut().zip(&self.a) {
            *vi += h * ai;
        }
        self.stats.steps += 1;
        Ok(h)
    }

    fn stats(&self) -> IntegratorStats {
        self.stats
    }
}

/// The registry entry of `explicit_euler`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "explicit_euler",
    summary: "forward Euler, order 1, not symplectic",
    order: 1,
    make: Make::Fixed(|h| Box::new(ExplicitEuler::new(h))),
    dae: false,
};
