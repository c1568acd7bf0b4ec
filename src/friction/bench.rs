//! Scoring contact solvers as the field does (Acary, Brémond, Huber 2018): every selected solver
//! on every problem to each tolerance within a time limit, solved or not by the natural-map
//! residual, timed by repeated runs interleaved across solvers, and compared by Dolan–Moré
//! performance profiles (Dolan & Moré 2002): ρ_s(τ) = share of problems with
//! t_{p,s} ≤ τ · min_s t_{p,s}.

use super::LocalProblem;
use super::cone::Normalisation;
use super::solvers::{ContactSolverEntry, Outcome, Stop};
use crate::params::Resolved;
use std::time::Instant;

/// One solver with its parameters, as run.
pub struct Contender {
    /// The registry entry.
    pub entry: &'static ContactSolverEntry,
    /// Its parameters.
    pub params: Resolved,
    /// Its label (name and given parameters).
    pub label: String,
}

/// What one solver did on one problem at one tolerance.
#[derive(Clone, Debug)]
pub struct Run {
    /// Index of the problem.
    pub problem: usize,
    /// Index of the contender.
    pub solver: usize,
    /// The tolerance.
    pub tol: f64,
    /// The first solve (its history, iterations and residuals).
    pub outcome: Outcome,
    /// Wall times of the timed repeats \[s\] (the first solve's when there are none).
    pub times: Vec<f64>,
    /// The first solve's answer r.
    pub answer: Vec<f64>,
}

impl Run {
    /// The median wall time \[s\].
    pub fn median(&self) -> f64 {
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        let n = t.len();
        if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            t[n / 2]
        } else {
            0.5 * (t[n / 2 - 1] + t[n / 2])
        }
    }
}

/// The settings of a comparison.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Iterations at most per solve.
    pub max_iter: usize,
    /// Wall time at most per solve \[s\].
    pub seconds: f64,
    /// Timed repeats of every solve that converged (0: the first solve's time).
    pub repeats: usize,
    /// The residual's normalisation.
    pub norm: Normalisation,
    /// Start from the problem's first stored guess (FCLIB `guesses`) instead of r = 0.
    pub warm: bool,
}

/// The start of a solve: the first guess with `warm`, else zeros.
fn start(p: &LocalProblem, warm: bool) -> Vec<f64> {
    match (warm, p.guesses.first()) {
        (true, Some(g)) => g.clone(),
        _ => vec![0.0; p.q.len()],
    }
}

/// Runs every contender on every problem at every tolerance: a first solve each (its outcome
/// and history), then `repeats` rounds in which each converged solve is timed again, the
/// contenders interleaved within a round so that a change of the machine's speed touches all.
pub fn compare(problems: &[LocalProblem], contenders: &[Contender], tols: &[f64], s: &Settings) -> Vec<Run> {
    let mut runs = Vec::new();
    for (pi, p) in problems.iter().enumerate() {
        for &tol in tols {
            let stop = Stop { tol, max_iter: s.max_iter, seconds: s.seconds, norm: s.norm, history: true };
            let first = runs.len();
            for (si, c) in contenders.iter().enumerate() {
                let mut solver = (c.entry.build)(&c.params);
                let mut r = start(p, s.warm);
                let outcome = solver.solve(p, &mut r, &stop);
                let times = vec![outcome.seconds];
                runs.push(Run { problem: pi, solver: si, tol, outcome, times, answer: r });
            }
            for round in 0..s.repeats {
                for run in &mut runs[first..] {
                    if !run.outcome.converged {
                        continue;
                    }
                    if round == 0 {
                        run.times.clear();
                    }
                    let c = &contenders[run.solver];
                    let mut solver = (c.entry.build)(&c.params);
                    let mut r = start(p, s.warm);
                    let t = Instant::now();
                    let _ = solver.solve(p, &mut r, &Stop { seconds: f64::INFINITY, ..stop });
                    run.times.push(t.elapsed().as_secs_f64());
                }
            }
        }
    }
    runs
}

/// The performance profile of each contender at `tol`: the sorted ratios t_{p,s} / min_s t_{p,s}
/// of the problems it solved (unsolved problems count as never within any τ), and the number of
/// problems.
pub fn profile(runs: &[Run], contenders: usize, problems: usize, tol: f64) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); contenders];
    for p in 0..problems {
        let here: Vec<&Run> = runs.iter().filter(|r| r.problem == p && r.tol == tol).collect();
        let best = here.iter().filter(|r| r.outcome.converged).map(|r| r.median()).fold(f64::INFINITY, f64::min);
        for r in here.iter().filter(|r| r.outcome.converged) {
            out[r.solver].push(r.median() / best);
        }
    }
    for v in &mut out {
        v.sort_by(f64::total_cmp);
    }
    out
}
