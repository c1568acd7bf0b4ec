//! One driver for every explicit Runge–Kutta method, fixed-step or adaptive.
//!
//! The second-order ODE is advanced as the first-order system y = (x, ẋ), f(y) = (ẋ, a(x, ẋ)),
//! where the first part is the position rate G(x) ẋ when x holds unit quaternions (rigid-3D
//! bodies): the step is taken in the embedding and the quaternions are renormalized after every
//! accepted step (projection onto |Q| = 1, Hairer, Lubich & Wanner, GNI §IV.4), which also
//! invalidates a first-same-as-last stage.
//! Stages kᵢ = f(y + h Σⱼ aᵢⱼ kⱼ), y⁺ = y + h Σ bᵢ kᵢ (Hairer, Nørsett & Wanner, Solving ODEs I,
//! §II.1). Adaptive methods accept a step when the scaled error norm err ≤ 1, with component scale
//! atol + rtol·max(|y|, |y⁺|), and choose the next step by the PI controller of Hairer's dopri5.f /
//! dop853.f: h_new = h · clamp(safe · err^(−expo) · err_old^β, fac_min, fac_max), safe = 0.9.
//! The first step size comes from Hairer's `hinit` (Solving ODEs I, §II.4). The last step is
//! clipped to end on the duration. Methods with a continuous extension keep the last accepted
//! step's stages (double-buffered, no copy) and build its interpolant on the first request
//! ([`Integrator::dense_output`]; Hairer I, §II.6).

use super::SecondOrderOde;
use super::tableaus::{Dense, ErrorEstimate, Tableau};
use super::{Control, IntegrateError, Integrator, IntegratorStats, fixed_step};

/// An explicit Runge–Kutta integrator with its workspaces.
#[derive(Debug)]
pub struct RungeKutta {
    tab: &'static Tableau,
    control: Control,
    d: usize,
    k: Vec<Vec<f64>>,
    y: Vec<f64>,
    stage: Vec<f64>,
    y_new: Vec<f64>,
    k_first_valid: bool,
    h: f64,
    err_old: f64,
    stats: IntegratorStats,
    /// The last accepted step's stages (Dop853: then f(y₁) and the three extra stages).
    dense_k: Vec<Vec<f64>>,
    /// The last accepted step's start and end states.
    dense_y0: Vec<f64>,
    dense_y1: Vec<f64>,
    /// Its length \[s\] (0: no step yet).
    dense_h: f64,
    /// The interpolant's coefficient vectors r₁…r₅ (Dopri5) or r₁…r₈ (Dop853).
    rcont: Vec<Vec<f64>>,
    /// Whether `rcont` describes the last step.
    rcont_ready: bool,
}

/// Safety factor of the step-size controller.
const SAFE: f64 = 0.9;

impl RungeKutta {
    /// The method `tab` with step control `control` (adaptive control needs an error estimate).
    pub fn new(tab: &'static Tableau, control: Control) -> Self {
        RungeKutta {
            tab,
            control,
            d: 0,
            k: vec![],
            y: vec![],
            stage: vec![],
            y_new: vec![],
            k_first_valid: false,
            h: 0.0,
            err_old: 1e-4,
            stats: IntegratorStats::default(),
            dense_k: vec![],
            dense_y0: vec![],
            dense_y1: vec![],
            dense_h: 0.0,
            rcont: vec![],
            rcont_ready: false,
        }
    }

    /// Builds the interpolant of the last accepted step (Dop853: three extra evaluations).
    fn build_rcont(&mut self, ode: &mut dyn SecondOrderOde) -> Result<(), IntegrateError> {
        let (h, d, s) = (self.dense_h, self.d, self.tab.b.len());
        let f1 = match self.tab.dense {
            Dense::None => return Ok(()),
            Dense::Dopri5(_) => s - 1, // the FSAL stage is f(y₁)
            Dense::Dop853 { .. } => s,
        };
        for i in 0..self.dense_y0.len() {
            let (y0, y1) = (self.dense_y0[i], self.dense_y1[i]);
            let diff = y1 - y0;
            let bspl = h * self.dense_k[0][i] - diff;
            self.rcont[0][i] = y0;
            self.rcont[1][i] = diff;
            self.rcont[2][i] = bspl;
            self.rcont[3][i] = diff - h * self.dense_k[f1][i] - bspl;
        }
        match self.tab.dense {
            Dense::None => {}
            Dense::Dopri5(dw) => {
                let r = &mut self.rcont[4];
                r.iter_mut().for_each(|x| *x = 0.0);
                for (j, dj) in dw.iter().enumerate().filter(|(_, dj)| **dj != 0.0) {
                    for (ri, kj) in r.iter_mut().zip(&self.dense_k[j]) {
                        *ri += h * dj * kj;
                    }
                }
            }
            Dense::Dop853 { a, d: dd, .. } => {
                for (e, row) in a.iter().enumerate() {
                    self.stage.copy_from_slice(&self.dense_y0);
                    for &(j, aij) in row.iter() {
                        for (st, kj) in self.stage.iter_mut().zip(&self.dense_k[j]) {
                            *st += h * aij * kj;
                        }
                    }
                    let (x, xd) = self.stage.split_at(d);
                    let (ox, oa) = self.dense_k[s + 1 + e].split_at_mut(d);
                    ode.position_rate(x, xd, ox);
                    self.stats.dense_evals += 1;
                    ode.accel(x, xd, oa)?;
                }
                for (r, row) in self.rcont[4..].iter_mut().zip(dd.iter()) {
                    r.iter_mut().for_each(|x| *x = 0.0);
                    for &(j, dij) in row.iter() {
                        for (ri, kj) in r.iter_mut().zip(&self.dense_k[j]) {
                            *ri += h * dij * kj;
                        }
                    }
                }
            }
        }
        self.rcont_ready = true;
        Ok(())
    }

    /// f(y) = (ẋ, a(x, ẋ)) into `out`.
    fn f(
        ode: &mut dyn SecondOrderOde,
        d: usize,
        y: &[f64],
        out: &mut [f64],
        stats: &mut IntegratorStats,
    ) -> Result<(), IntegrateError> {
        let (x, xd) = y.split_at(d);
        let (ox, oa) = out.split_at_mut(d);
        ode.position_rate(x, xd, ox);
        stats.rhs_evals += 1;
        ode.accel(x, xd, oa)?;
        Ok(())
    }

    /// Runs all stages with step h from self.y, writes y⁺ into y_new.
    fn attempt(&mut self, ode: &mut dyn SecondOrderOde, h: f64) -> Result<(), IntegrateError> {
        let s = self.tab.b.len();
        for i in 1..s {
            let row = self.tab.a[i - 1];
            self.stage.copy_from_slice(&self.y);
            for (j, aij) in row.iter().enumerate() {
                if *aij != 0.0 {
                    let f = h * aij;
                    for (st, kj) in self.stage.iter_mut().zip(&self.k[j]) {
                        *st += f * kj;
                    }
                }
            }
            let (d, stage) = (self.d, &self.stage);
            Self::f(ode, d, stage, &mut self.k[i], &mut self.stats)?;
        }
        self.y_new.copy_from_slice(&self.y);
        for (i, bi) in self.tab.b.iter().enumerate() {
            if *bi != 0.0 {
                let f = h * bi;
                for (yn, ki) in self.y_new.iter_mut().zip(&self.k[i]) {
                    *yn += f * ki;
                }
            }
        }
        Ok(())
    }

    fn scale(&self, i: usize, rtol: f64, atol: f64) -> f64 {
        atol + rtol * self.y[i].abs().max(self.y_new[i].abs())
    }

    /// Scaled error norm of the last attempt (Hairer's dopri5.f / dop853.f).
    fn error_norm(&self, h: f64, rtol: f64, atol: f64) -> f64 {
        let n = self.y.len() as f64;
        match self.tab.error {
            ErrorEstimate::None => 0.0,
            ErrorEstimate::Embedded(e) => {
                let mut sum = 0.0;
                for i in 0..self.y.len() {
                    let est: f64 = e.iter().zip(&self.k).map(|(ei, ki)| ei * ki[i]).sum();
                    let r = h * est / self.scale(i, rtol, atol);
                    sum += r * r;
                }
                (sum / n).sqrt()
            }
            ErrorEstimate::Dop853 { e5, bhh } => {
                let (mut err5, mut err3) = (0.0, 0.0);
                for i in 0..self.y.len() {
                    let sk = self.scale(i, rtol, atol);
                    let e: f64 = e5.iter().zip(&self.k).map(|(ei, ki)| ei * ki[i]).sum();
                    let bsum: f64 = self.tab.b.iter().zip(&self.k).map(|(bi, ki)| bi * ki[i]).sum();
                    let e3 = bsum - bhh[0] * self.k[0][i] - bhh[1] * self.k[8][i] - bhh[2] * self.k[11][i];
                    err5 += (e / sk) * (e / sk);
                    err3 += (e3 / sk) * (e3 / sk);
                }
                let deno = err5 + 0.01 * err3;
                let deno = if deno <= 0.0 { 1.0 } else { deno };
                h.abs() * err5 * (1.0 / (deno * n)).sqrt()
            }
        }
    }
    /// One accepted error-controlled step of at most `h_max` \[s\] (rejected attempts retried
    /// shorter); returns its length.
    fn adaptive_step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        rtol: f64,
        atol: f64,
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        if self.h == 0.0 {
            self.h = self.initial_step(ode, rtol, atol, h_max)?;
        }
        loop {
            let clipped = h_max < self.h;
            let h = if clipped { h_max } else { self.h };
            // A stage whose evaluation fails (a trial state where the formulation's solve
            // breaks down) is a rejected step: retry a tenth as long, down to the
            // underflow bound, and report the stage's own error only there.
            if let Err(e) = self.attempt(ode, h) {
                if e.is_time_budget() {
                    return Err(e); // the cell's budget, not the step: no retry
                }
                self.stats.rejected += 1;
                self.h = 0.1 * h;
                if !(self.h > 1e-14 * h_max.max(1.0)) {
                    return Err(IntegrateError::StageFailed { h, source: Box::new(e) });
                }
                continue;
            }
            let err = self.error_norm(h, rtol, atol);
            let t = self.tab;
            let fac11 = err.powf(t.expo);
            if err <= 1.0 {
                // PI controller: h_new = h / fac, fac = clamp(err^expo / err_old^β / safe).
                let fac = (fac11 / self.err_old.powf(t.beta) / SAFE).clamp(1.0 / t.fac_max, 1.0 / t.fac_min);
                let h_new = h / fac;
                self.err_old = err.max(1e-4);
                self.h = if clipped { h_new.max(self.h) } else { h_new };
                return Ok(h);
            }
            self.stats.rejected += 1;
            self.h = h / (fac11 / SAFE).min(1.0 / t.fac_min);
            if !(self.h > 1e-14 * h_max.max(1.0)) {
                return Err(IntegrateError::StepSizeUnderflow { h: self.h });
            }
        }
    }

    /// Hairer's initial step guess (one extra evaluation).
    fn initial_step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        rtol: f64,
        atol: f64,
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        let (mut dnf, mut dny) = (0.0, 0.0);
        for i in 0..self.y.len() {
            let sk = atol + rtol * self.y[i].abs();
            dnf += (self.k[0][i] / sk).powi(2);
            dny += (self.y[i] / sk).powi(2);
        }
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 { 1e-6 } else { (dny / dnf).sqrt() * 0.01 };
        h = h.min(h_max);
        let last = self.k.len() - 1;
        // The trial evaluation at y + h f(y): where it fails, a tenth of h (a rejected trial).
        loop {
            for i in 0..self.y.len() {
                self.stage[i] = self.y[i] + h * self.k[0][i];
            }
            let (d, stage) = (self.d, &self.stage);
            match Self::f(ode, d, stage, &mut self.k[last], &mut self.stats) {
                Ok(()) => break,
                Err(e) if e.is_time_budget() => return Err(e),
                Err(e) => {
                    self.stats.rejected += 1;
                    if !(0.1 * h > 1e-14 * h_max.max(1.0)) {
                        return Err(IntegrateError::StageFailed { h, source: Box::new(e) });
                    }
                    h *= 0.1;
                }
            }
        }
        let mut der2 = 0.0;
        for i in 0..self.y.len() {
            let sk = atol + rtol * self.y[i].abs();
            der2 += ((self.k[last][i] - self.k[0][i]) / sk).powi(2);
        }
        let der2 = der2.sqrt() / h;
        let der12 = der2.abs().max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 { (h * 1e-3).max(1e-6) } else { (0.01 / der12).powf(1.0 / self.tab.order as f64) };
        Ok((100.0 * h).min(h1).min(h_max))
    }
}

impl Integrator for RungeKutta {
    fn workspace_vectors(&self) -> usize {
        // k (stages), y, stage, y_new; with dense output the stored stages, the coefficient
        // terms and the step's two end states.
        let stages = self.tab.b.len();
        let (stored, terms) = match self.tab.dense {
            Dense::None => (0, 0),
            Dense::Dopri5(_) => (stages, 5),
            Dense::Dop853 { .. } => (stages + 4, 8),
        };
        stages + 3 + stored + terms + if stored > 0 { 2 } else { 0 }
    }

    fn prepare(&mut self, nx: usize, nv: usize) {
        self.d = nx;
        let (stages, len) = (self.tab.b.len(), nx + nv);
        self.k = vec![vec![0.0; len]; stages];
        self.y = vec![0.0; len];
        self.stage = vec![0.0; len];
        self.y_new = vec![0.0; len];
        self.k_first_valid = false;
        self.h = 0.0;
        self.err_old = 1e-4;
        let (stored, terms) = match self.tab.dense {
            Dense::None => (0, 0),
            Dense::Dopri5(_) => (stages, 5),
            Dense::Dop853 { .. } => (stages + 4, 8),
        };
        self.dense_k = vec![vec![0.0; len]; stored];
        self.rcont = vec![vec![0.0; len]; terms];
        self.dense_y0 = vec![0.0; if stored > 0 { len } else { 0 }];
        self.dense_y1 = self.dense_y0.clone();
        self.dense_h = 0.0;
        self.rcont_ready = false;
    }

    fn step(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        x: &mut [f64],
        xd: &mut [f64],
        h_max: f64,
    ) -> Result<f64, IntegrateError> {
        let d = self.d;
        self.y[..d].copy_from_slice(x);
        self.y[d..].copy_from_slice(xd);
        if !self.k_first_valid {
            let (y, k0) = (&self.y, &mut self.k[0]);
            Self::f(ode, d, y, k0, &mut self.stats)?;
            self.k_first_valid = true;
        }
        let h_taken = match self.control {
            Control::Fixed { h } => {
                let h = fixed_step(h, h_max);
                self.attempt(ode, h)?;
                h
            }
            Control::Adaptive { rtol, atol } => self.adaptive_step(ode, rtol, atol, h_max)?,
        };
        // The first stage of the next step: FSAL methods have it already (unless renormalizing the
        // quaternions moved y⁺), the others evaluate it.
        let last = self.tab.b.len() - 1;
        let moved = ode.normalize(&mut self.y_new[..d]);
        if !self.dense_k.is_empty() {
            // Keep this step for dense output: its stages move to dense_k (swapped, not copied).
            for (k, kd) in self.k.iter_mut().zip(self.dense_k.iter_mut()) {
                std::mem::swap(k, kd);
            }
            std::mem::swap(&mut self.y, &mut self.dense_y0);
            self.dense_y1.copy_from_slice(&self.y_new);
            self.dense_h = h_taken;
            self.rcont_ready = false;
            if self.tab.fsal && !moved {
                self.k[0].copy_from_slice(&self.dense_k[last]);
            } else {
                let (y_new, k0) = (&self.y_new, &mut self.k[0]);
                Self::f(ode, d, y_new, k0, &mut self.stats)?;
            }
            if let Dense::Dop853 { .. } = self.tab.dense {
                self.dense_k[last + 1].copy_from_slice(&self.k[0]); // stage 13 = f(y₁)
            }
        } else if self.tab.fsal && !moved {
            self.k.swap(0, last);
        } else {
            let (y_new, k0) = (&self.y_new, &mut self.k[0]);
            Self::f(ode, d, y_new, k0, &mut self.stats)?;
        }
        x.copy_from_slice(&self.y_new[..d]);
        xd.copy_from_slice(&self.y_new[d..]);
        self.stats.steps += 1;
        Ok(h_taken)
    }

    fn stats(&self) -> IntegratorStats {
        self.stats
    }

    fn reset(&mut self) {
        self.k_first_valid = false;
    }

    fn dense_output(
        &mut self,
        ode: &mut dyn SecondOrderOde,
        theta: f64,
        x: &mut [f64],
        xd: &mut [f64],
    ) -> Result<bool, IntegrateError> {
        if self.dense_k.is_empty() || self.dense_h == 0.0 {
            return Ok(false);
        }
        if !self.rcont_ready {
            self.build_rcont(ode)?;
        }
        // y(θ) = r₁ + θ(r₂ + θ₁(r₃ + θ(r₄ + θ₁(…)))), θ₁ = 1 − θ, evaluated from the inside out.
        let (th, th1) = (theta, 1.0 - theta);
        let last = self.rcont.len() - 1;
        for i in 0..self.stage.len() {
            let mut acc = self.rcont[last][i];
            for j in (1..last).rev() {
                acc = self.rcont[j][i] + if j % 2 == 1 { th1 } else { th } * acc;
            }
            self.stage[i] = self.rcont[0][i] + th * acc;
        }
        let d = self.d;
        x.copy_from_slice(&self.stage[..d]);
        xd.copy_from_slice(&self.stage[d..]);
        ode.normalize(x);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::RungeKutta;
    use crate::integrator::dop853::DOP853;
    use crate::integrator::dopri5::DOPRI5;
    use crate::integrator::tableaus::Tableau;
    use crate::integrator::test_ode::Oscillator;
    use crate::integrator::{Control, Integrator};

    /// The interpolant's error at θ = 0.3 after one step of h from x = 1 (max over x and ẋ: the
    /// velocity error is the leading one), and its error at θ = 0 and θ = 1 against the step's own
    /// endpoints.
    fn dense_error(tab: &'static Tableau, h: f64) -> (f64, f64) {
        let mut rk = RungeKutta::new(tab, Control::Fixed { h });
        rk.prepare(1, 1);
        let (mut x, mut xd) = ([1.0], [0.0]);
        let mut ode = Oscillator { linear: None };
        rk.step(&mut ode, &mut x, &mut xd, h).unwrap();
        let (mut xi, mut vi) = ([0.0], [0.0]);
        assert!(rk.dense_output(&mut ode, 1.0, &mut xi, &mut vi).unwrap());
        let ends = (xi[0] - x[0]).abs().max((vi[0] - xd[0]).abs());
        rk.dense_output(&mut ode, 0.0, &mut xi, &mut vi).unwrap();
        let ends = ends.max((xi[0] - 1.0).abs()).max(vi[0].abs());
        rk.dense_output(&mut ode, 0.3, &mut xi, &mut vi).unwrap();
        // Reference x(0.3 h): 100 Dop853 steps (error ~ (0.003 h)⁹, far below the interpolant's).
        let mut fine = RungeKutta::new(&DOP853, Control::Fixed { h: 0.003 * h });
        fine.prepare(1, 1);
        let (mut xr, mut vr) = ([1.0], [0.0]);
        for _ in 0..100 {
            fine.step(&mut ode, &mut xr, &mut vr, h).unwrap();
        }
        ((xi[0] - xr[0]).abs().max((vi[0] - vr[0]).abs()), ends)
    }

    #[test]
    fn dense_output_has_its_order_and_meets_the_step_endpoints() {
        // Dopri5's extension is of order 4 and Dop853's of order 7: the local error of the
        // interpolant after one step is O(h⁵) and O(h⁸). Steps where it dominates rounding.
        for (tab, order, hs) in [(&DOPRI5, 5.0, [0.2, 0.1, 0.05]), (&DOP853, 8.0, [0.8, 0.4, 0.2])] {
            let errs: Vec<(f64, f64)> = hs.iter().map(|&h| dense_error(tab, h)).collect();
            for &(_, ends) in &errs {
                assert!(ends <= 4.0 * f64::EPSILON, "{}: endpoint mismatch {ends:e}", tab.name);
            }
            let p = crate::metrics::observed_order(&hs, &errs.iter().map(|e| e.0).collect::<Vec<_>>());
            assert!((p - order).abs() <= 0.5, "{}: observed local order {p:.2}, expected {order} ({errs:?})", tab.name);
        }
    }
}
