//! `radau5`'s [`Integrator`] interface: the run's workspace, one accepted step (retrying
//! rejected ones), the state's reset and the dense output.

use super::{Attempt, FIRST_STEP, Radau5};
use crate::integrator::{IntegrateError, Integrator, IntegratorStats, SecondOrderOde};

impl Integrator for Radau5 {
    fn prepare(&mut self, nx: usize, nv: usize) {
        (self.d, self.nd, self.index) = (nx, nx + nv, 0);
        self.allocate(nx + nv);
        self.h = 0.0;
        self.first = true;
        self.stats = IntegratorStats::default();
    }

    fn workspace_vectors(&self) -> usize {
        // y0, f0, Z, W, F (3 each), the polynomial (4), two temporaries, the scale, 3 right-hand sides
        26
    }

    fn workspace_matrices(&self) -> usize {
        // J, the real factors and the complex ones (two words per entry)
        4
    }

    fn step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        x: &mut [f64],
        xd: &mut [f64],
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        let (d, nd) = (self.d, self.nd);
        if !self.f0_valid {
            if let Some(dae) = ode.dae() {
                let n = nd + dae.multipliers();
                self.index = dae.index();
                if self.y0.len() != n {
                    self.allocate(n);
                }
                dae.consistent_multipliers(x, xd, &mut self.y0[nd..])?;
            }
            self.y0[..d].copy_from_slice(x);
            self.y0[d..nd].copy_from_slice(xd);
            Self::f(ode, (d, nd), &self.y0, &mut self.f0, &mut self.stats)?;
            self.f0_valid = true;
        }
        if self.h == 0.0 {
            self.h = self.fixed.unwrap_or(FIRST_STEP).min(h_max);
        }
        for (s, y) in self.scal.iter_mut().zip(&self.y0) {
            *s = self.ta + self.tr * y.abs();
        }
        loop {
            let clipped = h_max < self.h;
            let h = if clipped { h_max } else { self.h };
            match self.attempt(ode, h)? {
                Attempt::Accepted { h_new } => {
                    self.accept(ode, h, h_new, clipped)?;
                    x.copy_from_slice(&self.y0[..d]);
                    xd.copy_from_slice(&self.y0[d..nd]);
                    if self.index > 0 {
                        ode.normalize(x);
                    }
                    return Ok(h);
                }
                Attempt::Rejected { h_new, failure } => {
                    if self.fixed.is_some() {
                        return Err(IntegrateError::NoConvergence { h });
                    }
                    self.stats.rejected += 1;
                    self.last_rejected = true;
                    self.h = h_new;
                    if !(self.h > 1e-14 * h_max.max(1.0)) {
                        return Err(match failure {
                            Some(e) => IntegrateError::StageFailed { h, source: Box::new(e) },
                            None => IntegrateError::StepSizeUnderflow { h: self.h },
                        });
                    }
                }
            }
        }
    }

    fn stats(&self) -> IntegratorStats {
        self.stats
    }

    fn reset(&mut self) {
        // The state was changed between steps: f(y₀), J and the extrapolation are stale.
        self.f0_valid = false;
        self.jac_fresh = false;
        self.jac_valid = false;
        self.factored_h = 0.0;
        self.dense_h = 0.0;
    }

    fn dense_output(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        theta: f64,
        x: &mut [f64],
        xd: &mut [f64],
    ) -> Result<bool, IntegrateError> {
        if self.dense_h == 0.0 {
            return Ok(false);
        }
        let s = theta - 1.0;
        let (c1m1, c2m1) = (self.k.c[0] - 1.0, self.k.c[1] - 1.0);
        for i in 0..self.tmp.len() {
            let (a0, a1, a2, a3) = (self.cont[0][i], self.cont[1][i], self.cont[2][i], self.cont[3][i]);
            self.tmp[i] = a0 + s * (a1 + (s - c2m1) * (a2 + (s - c1m1) * a3));
        }
        let (d, nd) = (self.d, self.nd);
        x.copy_from_slice(&self.tmp[..d]);
        xd.copy_from_slice(&self.tmp[d..nd]);
        ode.normalize(x);
        Ok(true)
    }
}
