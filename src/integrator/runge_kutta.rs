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
//! The first step size comes from Hairer's `hinit` (Solving ODEs I, §II.4). A step clipped to
//! land on a sample time does not shrink the step proposed for the next one.

use super::SecondOrderOde;
use super::tableaus::{ErrorEstimate, Tableau};
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
        }
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
        for i in 0..self.y.len() {
            self.stage[i] = self.y[i] + h * self.k[0][i];
        }
        let last = self.k.len() - 1;
        let (d, stage) = (self.d, &self.stage);
        Self::f(ode, d, stage, &mut self.k[last], &mut self.stats)?;
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
            Control::Adaptive { rtol, atol } => {
                if self.h == 0.0 {
                    self.h = self.initial_step(ode, rtol, atol, h_max)?;
                }
                loop {
                    let clipped = h_max < self.h;
                    let h = if clipped { h_max } else { self.h };
                    self.attempt(ode, h)?;
                    let err = self.error_norm(h, rtol, atol);
                    let t = self.tab;
                    let fac11 = err.powf(t.expo);
                    if err <= 1.0 {
                        // PI controller: h_new = h / fac, fac = clamp(err^expo / err_old^β / safe).
                        let fac = (fac11 / self.err_old.powf(t.beta) / SAFE).clamp(1.0 / t.fac_max, 1.0 / t.fac_min);
                        let h_new = h / fac;
                        self.err_old = err.max(1e-4);
                        self.h = if clipped { h_new.max(self.h) } else { h_new };
                        break h;
                    }
                    self.stats.rejected += 1;
                    self.h = h / (fac11 / SAFE).min(1.0 / t.fac_min);
                    if !(self.h > 1e-14 * h_max.max(1.0)) {
                        return Err(IntegrateError::StepSizeUnderflow { h: self.h });
                    }
                }
            }
        };
        // The first stage of the next step: FSAL methods have it already (unless renormalizing the
        // quaternions moved y⁺), the others evaluate it.
        let last = self.tab.b.len() - 1;
        let moved = ode.normalize(&mut self.y_new[..d]);
        if self.tab.fsal && !moved {
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
}
