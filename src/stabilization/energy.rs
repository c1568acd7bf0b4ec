//! `energy` — post-step projection onto the initial state's energy level (Hairer, Lubich & Wanner,
//! "Geometric Numerical Integration", 2nd ed. 2006, §IV.4, the standard projection method with the
//! total energy as the invariant; applied to the velocities only).
//!
//! After a step to (q, v), with E₀ = E(q₀, v₀) the energy of the scene's initial state,
//! U(q) the potential and K(v) = ½ vᵀ M v the kinetic energy: first v onto the hidden constraint
//! J(q) v = 0 (the M-orthogonal projection, (J W Jᵀ) μ = −J v, v ← v + W Jᵀ μ, with the cell's
//! solver — a position step leaves velocities with a component along the constraints, whose energy
//! is not the mechanism's), then
//!   v ← s v,   s = √((E₀ − U(q)) / K(v)),
//! so that E(q, v) = E₀ to rounding. s v is the velocity closest to v in the metric of M among
//! those with J v = 0 and that energy (within the subspace the level set {½ vᵀ M v = K} is an
//! ellipsoid, and v points along its normal M v). Positions are not moved: the step's C(q) is
//! kept as it is.
//!
//! What it is, and is not: the energy is then *enforced*, not conserved by the integrator. Whatever
//! the step dissipated (an implicit position step damps the fast modes it cannot resolve) is put
//! back in proportion to the velocities the step left, mostly into the motion that carries the
//! kinetic energy; the projected method is neither symmetric nor symplectic, and where the step
//! gains energy it is taken out the same way. It is applicable to conservative systems only: no
//! dampers, drives (the clock's work) or contacts.
//!
//! Failures, recorded in the cell: U(q) > E₀ (no velocity reaches E₀: the step raised the
//! potential energy above the total) and K(v) = 0 with E₀ > U(q) (no motion to scale).

use super::Stabilizer;
use crate::linsolve::{SolveError, SolverCounters};
use crate::normal_solve::NormalSolve;
use crate::system::System;

/// The energy projection with the energy it holds and its velocity solve.
pub struct EnergyProjection<'a> {
    system: &'a System,
    ns: NormalSolve<'a>,
    tmp: Vec<f64>,
    /// E₀ \[J\].
    e0: f64,
}

impl<'a> EnergyProjection<'a> {
    /// Holds the system of `ns` at the energy of (q0, v0) \[J\], projecting velocities with the
    /// solve `ns`.
    pub fn new(ns: NormalSolve<'a>, q0: &[f64], v0: &[f64]) -> Self {
        let system = ns.system;
        EnergyProjection { system, tmp: vec![0.0; system.ndof()], ns, e0: system.energy(q0, v0) }
    }

    /// The energy held, E₀ \[J\].
    pub fn level(&self) -> f64 {
        self.e0
    }
}

impl Stabilizer for EnergyProjection<'_> {
    fn apply(&mut self, q: &mut [f64], v: &mut [f64]) -> Result<(), SolveError> {
        if self.system.nrows() > 0 {
            // v onto J(q) v = 0
            self.ns.update_jacobian(q);
            self.ns.jac.mul(v, &mut self.ns.rhs);
            self.ns.rhs.iter_mut().for_each(|r| *r = -*r);
            self.ns.lambda.fill(0.0);
            self.ns.solve(true)?;
            self.ns.add_w_jt(&self.ns.lambda, 1.0, v, &mut self.tmp);
        }
        let kinetic = self.e0 - self.system.potential_energy(q);
        let k = self.system.kinetic_energy(v);
        if kinetic == k {
            return Ok(());
        }
        if !(kinetic >= 0.0) {
            return Err(SolveError::Breakdown {
                solver: "energy",
                iterations: 0,
                reason: "the potential energy of the step's positions exceeds the initial total energy: no velocity reaches it",
            });
        }
        if !(k > 0.0) {
            return Err(SolveError::Breakdown {
                solver: "energy",
                iterations: 0,
                reason: "no motion to scale: the kinetic energy is zero below the initial total energy",
            });
        }
        let s = (kinetic / k).sqrt();
        v.iter_mut().for_each(|x| *x *= s);
        Ok(())
    }

    fn counters(&self) -> SolverCounters {
        self.ns.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Scalar;
    use crate::scene::registry as scenes;

    #[test]
    fn the_projected_state_has_the_initial_energy_and_an_admissible_velocity_keeps_its_direction() {
        let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(5.0))]).unwrap();
        let sys = &scene.system;
        let entry = crate::linsolve::registry::find("dense_lu").unwrap();
        let solver = (entry.build)(&entry.params.defaults());
        let mut p = EnergyProjection::new(NormalSolve::new(sys, solver).unwrap(), &scene.q0, &scene.v0);
        // a later state: the chain bent down (below its initial energy), turning rigidly about the
        // pin — a velocity with J v = 0
        let mut q = scene.q0.clone();
        for (i, x) in q.iter_mut().enumerate().skip(2) {
            if i % 2 == 1 {
                *x -= 0.01 * i as f64;
            }
        }
        let v0: Vec<f64> =
            (0..q.len()).map(|i| if i % 2 == 0 { -0.1 * (q[i + 1] - q[1]) } else { 0.1 * (q[i - 1] - q[0]) }).collect();
        let mut v = v0.clone();
        p.apply(&mut q, &mut v).unwrap();
        let e = sys.energy(&q, &v);
        // the energy is E₀ up to a few roundings of the sums (relative ε · n)
        let e0 = p.level();
        let close = |e: f64, v: &[f64]| (e - e0).abs() <= 1e-14 * e0.abs().max(sys.kinetic_energy(v));
        assert!(close(e, &v), "{e} vs {e0}");
        let s = v[2] / v0[2];
        assert!(s > 1.0, "energy was missing: the velocities grow ({s})");
        for (a, b) in v.iter().zip(&v0) {
            // the projection onto J v = 0 leaves an admissible v alone up to its solve's rounding
            assert!((a - s * b).abs() <= 1e-12 * a.abs().max(1.0), "{a} vs {}", s * b);
        }
        // a velocity along the links too: it ends on J v = 0, at E₀
        let mut w: Vec<f64> = (0..q.len()).map(|i| 0.1 * (i as f64).sin()).collect();
        p.apply(&mut q, &mut w).unwrap();
        let (mut jac, mut jw) = (sys.jacobian_layout(), vec![0.0; sys.nrows()]);
        sys.fill_jacobian(&q, &mut jac);
        jac.mul(&w, &mut jw);
        assert!(jw.iter().all(|x| x.abs() <= 1e-12), "{jw:?}");
        assert!(close(sys.energy(&q, &w), &w));
        // at rest below E₀ nothing can be scaled, and above E₀ no velocity helps: both recorded
        let mut rest = vec![0.0; v.len()];
        assert!(p.apply(&mut q, &mut rest).is_err());
        let mut high = scene.q0.clone();
        for (i, x) in high.iter_mut().enumerate() {
            if i % 2 == 1 {
                *x += 1.0;
            }
        }
        assert!(p.apply(&mut high, &mut v).is_err());
    }
}
