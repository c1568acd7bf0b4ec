//! Symplectic (semi-implicit) Euler, order 1: ẋ⁺ = ẋ + h a(x, ẋ),  x⁺ = x + h ẋ⁺ (Hairer, Lubich &
//! Wanner, Geometric Numerical Integration, §I.1.2). Symplectic for velocity-independent forces, so
//! its energy error stays bounded; the integrator of seed 002.

use super::registry::{IntegratorEntry, Make};
use super::{IntegrateError, Integrator, IntegratorStats, fixed_step};
use super::SecondOrderOde;

/// Symplectic Euler with a fixed step.
#[derive(Debug)]
pub struct SymplecticEuler {
    h: f64,
    a: Vec<f64>,
    stats: IntegratorStats,
}

impl SymplecticEuler {
    /// With step `h` \[s\].
    pub fn new(h: f64) -> Self {
        SymplecticEuler { h, a: vec![], stats: IntegratorStats::default() }
    }
}

impl Integrator for SymplecticEuler {
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
        for (vi, ai) in xd.iter_mut().zip(&self.a) {
            *vi += h * ai;
        }
        ode.advance(x, xd, h);
        self.stats.steps += 1;
        Ok(h)
    }

    fn stats(&self) -> IntegratorStats {
        self.stats
    }
}

/// The registry entry of `symplectic_euler`.
pub const ENTRY: IntegratorEntry = IntegratorEntry {
    name: "symplectic_euler",
    summary: "semi-implicit Euler, order 1, symplectic (seed 002)",
    order: 1,
    make: Make::Fixed(|h| Box::new(SymplecticEuler::new(h))),
    dae: false,
};
