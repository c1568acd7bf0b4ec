//! The contact-solver axis: solvers of the local problem W r + q, r ∈ K_μ, each one file with
//! its typed parameters and registry entry ([`CONTACT_SOLVERS`]), compared on the same problems
//! by the natural-map residual ([`super::cone`]).
//!
//! Every solver is checked the same way: after each iteration the residual ‖F_nat(r)‖ of the
//! true problem (De Saxcé's term included) is computed from u = W r + q (one sparse product, as
//! in Siconos' solvers, counted in the time) and the solve stops when it is at most `tol` times the
//! normalisation, or at `max_iter` iterations, or at the time limit.

mod alart_curnier;

registry! {
    /// Every contact solver, in `list` order.
    pub const CONTACT_SOLVERS: &[ContactSolverEntry] =
        [nsgs, nsgs_ac, psor, pjacobi, newton_ac, admm, apgd, sap, ipm_ccp, lemke];
}

use super::LocalProblem;
use super::cone::{Normalisation, natural_map_norm};
use crate::params::{ParamTable, Params, Resolved};
use std::borrow::Cow;
use std::time::Instant;

/// When a solve stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stop {
    /// The residual to reach, in units of the normalisation.
    pub tol: f64,
    /// Iterations at most.
    pub max_iter: usize,
    /// Wall time at most \[s\].
    pub seconds: f64,
    /// What the residual is divided by.
    pub norm: Normalisation,
    /// Whether the residual after every iteration is kept ([`Outcome::history`]); off inside a
    /// time step, where nothing reads it.
    pub history: bool,
}

/// How a solve ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Iterations done (sweeps, or gradient steps).
    pub iterations: usize,
    /// The last residual ‖F_nat(r)‖ divided by the normalisation.
    pub residual: f64,
    /// The last residual ‖F_nat(r)‖, absolute.
    pub absolute: f64,
    /// Whether `residual <= tol`.
    pub converged: bool,
    /// Wall time of the solve \[s\].
    pub seconds: f64,
    /// (iteration, seconds since the start, normalised residual) after every iteration, when
    /// [`Stop::history`] asks for it (empty otherwise).
    pub history: Vec<(usize, f64, f64)>,
    /// Why it stopped without converging (iteration cap, time limit, a non-finite iterate, or
    /// the solver's own reason).
    pub stopped: Option<Cow<'static, str>>,
}

/// A contact solver. Its vectors (O(contacts) each, and the residual history) are allocated at
/// each solve, so under `pgs` once per step; not yet a workspace reused across solves.
pub trait ContactSolver: Send {
    /// Solves `p` from the guess in `r` (zeros for a cold start), leaving the answer in `r`.
    fn solve(&mut self, p: &LocalProblem, r: &mut [f64], stop: &Stop) -> Outcome;
}

/// Builds a solver from its resolved parameters.
pub type BuildFn = fn(&Resolved) -> Box<dyn ContactSolver>;

/// One registered contact solver.
#[derive(Clone, Copy)]
pub struct ContactSolverEntry {
    /// Registry name.
    pub name: &'static str,
    /// One line: the method and its source.
    pub summary: &'static str,
    /// Declared parameters.
    pub params: ParamTable,
    /// Builds it.
    pub build: BuildFn,
    /// Whether resolved parameters are this solver's (their type is its parameter type).
    pub owns: fn(&Resolved) -> bool,
    /// Whether it solves the convex relaxation (no De Saxcé term) rather than the Coulomb
    /// problem: its answers are scored on the true problem all the same, and said so.
    pub relaxed: bool,
    /// Whether the relaxation it solves is also regularised (SAP's R: compliant contact), so its
    /// answer is not the relaxation's either.
    pub regularized: bool,
    /// Whether it solves the friction pyramid's LCP rather than the Coulomb cone (the same
    /// problem in 2D; in 3D the inscribed pyramid): scored on the Coulomb problem all the same.
    pub pyramid: bool,
}

fn build_erased<P: Params + Into<Box<dyn ContactSolver>> + Clone>(p: &Resolved) -> Box<dyn ContactSolver> {
    p.get::<P>().clone().into()
}

impl ContactSolverEntry {
    /// The entry of a solver whose parameters `P` build it.
    pub const fn of<P: Params + Into<Box<dyn ContactSolver>> + Clone>(
        name: &'static str,
        summary: &'static str,
    ) -> Self {
        ContactSolverEntry {
            name,
            summary,
            params: ParamTable::of::<P>(),
            build: build_erased::<P>,
            owns: Resolved::holds::<P>,
            relaxed: false,
            regularized: false,
            pyramid: false,
        }
    }

    /// The same entry declared to solve the convex relaxation.
    pub const fn relaxed(self) -> Self {
        ContactSolverEntry { relaxed: true, ..self }
    }

    /// The same entry declared to solve a regularised problem.
    pub const fn regularized(self) -> Self {
        ContactSolverEntry { regularized: true, ..self }
    }

    /// The same entry declared to solve the friction pyramid's LCP.
    pub const fn pyramid(self) -> Self {
        ContactSolverEntry { pyramid: true, ..self }
    }

    /// Whether it solves the Coulomb problem itself (neither the relaxation nor the pyramid).
    pub const fn coulomb(&self) -> bool {
        !self.relaxed && !self.pyramid
    }
}

/// Looks up a contact solver by name.
pub fn find(name: &str) -> Option<&'static ContactSolverEntry> {
    CONTACT_SOLVERS.iter().find(|e| e.name == name)
}

/// The residual check every solver runs after each iteration: u = W r + q, the natural map, the
/// history, and the stopping rule. A solver keeps one across solves ([`Monitor::restart`]), so
/// its vectors keep their capacity.
pub(crate) struct Monitor {
    start: Instant,
    divisor: f64,
    stop: Stop,
    /// u = W r + q of the last check.
    pub(crate) u: Vec<f64>,
    history: Vec<(usize, f64, f64)>,
    last: (f64, f64),
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            start: Instant::now(),
            divisor: 1.0,
            stop: Stop { tol: 0.0, max_iter: 0, seconds: 0.0, norm: Normalisation::Q, history: false },
            u: Vec::new(),
            history: Vec::new(),
            last: (f64::NAN, f64::NAN),
        }
    }
}

impl Monitor {
    /// A new monitor started for a solve of `p`.
    pub(crate) fn new(p: &LocalProblem, stop: &Stop) -> Monitor {
        let mut m = Monitor::default();
        m.restart(p, stop);
        m
    }

    /// Starts the clock for a solve of `p` (allocating only when `p` is larger than any before).
    pub(crate) fn restart(&mut self, p: &LocalProblem, stop: &Stop) {
        self.start = Instant::now();
        self.divisor = stop.norm.divisor(&p.q);
        self.stop = *stop;
        self.u.clear();
        self.u.resize(p.q.len(), 0.0);
        self.history.clear();
        self.last = (f64::NAN, f64::NAN);
    }

    /// The residual of `r` after `it` iterations; Some(outcome) when the solve must stop.
    pub(crate) fn check(&mut self, p: &LocalProblem, r: &[f64], it: usize) -> Option<Outcome> {
        p.velocity(r, &mut self.u);
        let abs = natural_map_norm(p.dim, &p.mu, r, &self.u);
        let rel = abs / self.divisor;
        let t = self.start.elapsed().as_secs_f64();
        if it > 0 && self.stop.history {
            self.history.push((it, t, rel));
        }
        self.last = (rel, abs);
        let reason = if rel <= self.stop.tol {
            return Some(self.finish(it, None));
        } else if !rel.is_finite() {
            "a non-finite iterate"
        } else if it >= self.stop.max_iter {
            "iteration cap"
        } else if t > self.stop.seconds {
            "time limit"
        } else if crate::deadline::passed_at(it) {
            "the cell's time budget (limits.cell_seconds)"
        } else {
            return None;
        };
        Some(self.finish(it, Some(reason.into())))
    }

    /// The outcome after `it` iterations with the last residual.
    pub(crate) fn finish(&mut self, it: usize, stopped: Option<Cow<'static, str>>) -> Outcome {
        let (residual, absolute) = self.last;
        Outcome {
            iterations: it,
            residual,
            absolute,
            converged: residual <= self.stop.tol,
            seconds: self.start.elapsed().as_secs_f64(),
            history: if self.stop.history { std::mem::take(&mut self.history) } else { Vec::new() },
            stopped,
        }
    }
}

/// A bound on the largest eigenvalue of each contact's diagonal block W_αα, its largest absolute
/// row sum (Gershgorin; never below λ_max, and equal to it for a diagonal block, where the
/// Frobenius norm would be √3 times too large and the fixed point three times slower): the step
/// 1/bound of the per-contact projected fixed point.
pub(crate) fn block_norms(p: &LocalProblem) -> Vec<f64> {
    (0..p.contacts()).map(|a| block_norm(p, a)).collect()
}

/// [`block_norms`] of contact `a`.
pub(crate) fn block_norm(p: &LocalProblem, a: usize) -> f64 {
    let b = p.diagonal_block(a);
    b.iter().map(|row| row.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max)
}

/// The local problem of contact α with the others fixed: r_α = P_K(r_α − ρ (W_αα r_α + b + s)),
/// b = q_α + Σ_{β≠α} W_αβ r_β, by projected fixed-point iteration with ρ = 1/(the Gershgorin
/// bound of W_αα) until the
/// change is below 1e-15 of |r_α| (plus 1e-300) or 100 iterations (Siconos' "projection on cone
/// with local iteration"). `w` is W_αα, `r` the contact's unknowns, updated in place.
pub(crate) fn local_fixed_point(dim: usize, mu: f64, w: &[[f64; 3]; 3], b: &[f64], rho: f64, r: &mut [f64]) {
    let mut x = [0.0; 3];
    for _ in 0..100 {
        let mut u = [0.0; 3];
        for i in 0..dim {
            u[i] = b[i] + (0..dim).map(|j| w[i][j] * r[j]).sum::<f64>();
        }
        let ut = u[1..dim].iter().map(|v| v * v).sum::<f64>().sqrt();
        for i in 0..dim {
            let uhat = if i == 0 { u[0] + mu * ut } else { u[i] };
            x[i] = r[i] - rho * uhat;
        }
        super::cone::project(mu, &mut x[..dim]);
        let change = (0..dim).map(|i| (x[i] - r[i]).abs()).fold(0.0, f64::max);
        let size = (0..dim).map(|i| x[i].abs()).fold(0.0, f64::max);
        r.copy_from_slice(&x[..dim]);
        if change <= 1e-15 * size + 1e-300 {
            break;
        }
    }
}
