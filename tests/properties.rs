//! Property tests, each named after the law it checks.

use nalgebra::DVector;
use proptest::prelude::*;
use tinkertoy::constraint::Line;
use tinkertoy::formulation::Dynamics;
use tinkertoy::formulation::registry::FORMULATIONS;
use tinkertoy::integrator::Integrator;
use tinkertoy::integrator::registry::{self as integrators, INTEGRATORS};
use tinkertoy::integrator::{Control, SymplecticEuler};
use tinkertoy::linsolve::registry::{self as solvers, SOLVERS, SolverKind};
use tinkertoy::model::{Body, Force};
use tinkertoy::params::{NoParams, ParamTable, Scalar};
use tinkertoy::scene::registry::SCENES;
use tinkertoy::scene::{EnergyScale, Scene};
use tinkertoy::system::System;
use tinkertoy::validate::{Outcome, Selection, null_space, off_gradient_ratio, run_all};

proptest! {
    // A fixed seed: the same 16 cases every run (no flakes); stored regressions replay first.
    #![proptest_config(ProptestConfig {
        cases: 16,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    })]

    /// For ideal constraints the constraint force Q̂ = M q̈ − Q that a formulation applies lies in
    /// range(Jᵀ): ‖Nᵀ Q̂‖ ≤ 1e-10·max(‖Q̂‖, ‖Q‖) with N an orthonormal basis of null(J), hence
    /// Q̂·v = 0 for every legal velocity v. A stepper's step may apply ideal forces at both of its
    /// ends (RATTLE), so its implied force is checked against range(Jᵀ) at the start and the end;
    /// its bound adds the rounding floor of a force recovered from a velocity difference (derived
    /// below). Random scenes, random reduced configurations where the scene has a
    /// parametrization, random legal velocities; every formulation × direct solver.
    #[test]
    fn constraint_force_does_no_virtual_work_on_legal_velocities(
        scene_index in 0..SCENES.len(),
        seed in prop::collection::vec(-1.0f64..1.0, 40),
    ) {
        let entry = &SCENES[scene_index];
        let mut scene = entry.build_small().unwrap();
        if let Some(p) = scene.parametrization.as_ref() {
            let k = p.dim();
            let (mut u, mut ud) = (vec![0.0; k], vec![0.0; k]);
            p.reduce(&scene.q0, &scene.v0, &mut u, &mut ud);
            for (i, ui) in u.iter_mut().enumerate() { *ui += 0.8 * seed[i % seed.len()]; }
            p.position(&u, &mut scene.q0);
        }
        let sys = &scene.system;
        let n = sys.ndof();
        let velocity_dependent = sys.forces().iter().any(|f| match f {
            Force::Gyroscopic => true,
            Force::SpringDamper { damping, .. } => *damping != 0.0,
            _ => false,
        });
        let nul = null_space(&scene);
        let r = DVector::from_fn(nul.ncols(), |i, _| seed[(i + 7) % seed.len()]);
        scene.v0 = (&nul * r).as_slice().to_vec();
        for f in FORMULATIONS {
            for s in SOLVERS.iter().filter(|s| s.kind == SolverKind::Direct) {
                let Ok(d) = (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())) else { continue };
                let mut qf = vec![0.0; n];
                let mut qhat = vec![0.0; n];
                let mut q_end = scene.q0.clone();
                // Rounding floor of the implied force, relative to `scale` (0 for the ODE branch,
                // whose M q̈ − Q is exact to a few ulps of the forces).
                let mut floor = 0.0;
                match d {
                    Dynamics::Ode(mut ode) => {
                        let (nx, dd) = (ode.position_dim(), ode.dim());
                        let (mut x, mut xd, mut a) = (vec![0.0; nx], vec![0.0; dd], vec![0.0; dd]);
                        ode.initial(&mut x, &mut xd);
                        if ode.accel(&x, &xd, &mut a).is_err() { continue } // singular configuration drawn
                        let (mut q, mut v, mut qdd) = (vec![0.0; sys.nq()], vec![0.0; n], vec![0.0; n]);
                        ode.cartesian(&x, &xd, &mut q, &mut v);
                        ode.cartesian_acceleration(&x, &xd, &a, &mut qdd);
                        sys.applied_forces(&q, &v, &mut qf);
                        for i in 0..n { qhat[i] = sys.mass()[i] * qdd[i] - qf[i]; }
                    }
                    // A stepper's implied constraint force M Δv / h − Q needs the Q it used; the
                    // average of both ends is exact for position-dependent forces only, so
                    // steppers are checked on scenes without velocity-dependent forces (the
                    // gyroscopic term of rigid-3D scenes, dampers). The ODE formulations above
                    // are checked on every scene.
                    Dynamics::Stepper(_) if velocity_dependent => continue,
                    Dynamics::Stepper(mut st) => {
                        let h = 1e-3;
                        let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
                        if st.step(h, &mut q, &mut v).is_err() { continue }
                        let mut qf1 = vec![0.0; n];
                        sys.applied_forces(&scene.q0, &scene.v0, &mut qf);
                        sys.applied_forces(&q, &v, &mut qf1);
                        for i in 0..n {
                            qf[i] = 0.5 * (qf[i] + qf1[i]);
                            qhat[i] = sys.mass()[i] * (v[i] - scene.v0[i]) / h - qf[i];
                        }
                        // Each substep (h_s = h / s) turns position-level rounding, a few ε ‖q‖∞
                        // (in C, or in q − q_prev for position-based steppers), into a velocity
                        // change of that over h_s (Baumgarte or soft bias, or XPBD's
                        // v = (q − q_prev)/h_s). Summed over s substeps (worst case, no
                        // cancellation): |δv| ≲ 4 ε ‖q‖∞ s / h_s = 4 ε ‖q‖∞ s² / h, and the
                        // implied force divides by h once more: |δQ̂| ≲ 4 ε ‖q‖∞ s² / h² · max M.
                        let substeps = (f.params.specs)()
                            .iter()
                            .find(|p| p.name == "substeps")
                            .map_or(1.0, |p| match p.default { Scalar::Num(x) => x, Scalar::Bool(_) => 1.0 });
                        let q_max = q.iter().chain(&scene.q0).fold(0.0f64, |m, x| m.max(x.abs()));
                        let m_max = sys.mass().iter().fold(0.0f64, |m, x| m.max(*x));
                        floor = 4.0 * f64::EPSILON * q_max * substeps * substeps / (h * h) * m_max;
                        q_end = q;
                    }
                }
                let qhat = DVector::from_vec(qhat);
                let scale = qhat.norm().max(DVector::from_vec(qf).norm());
                // Outside range(J^T) at q0 (and, for a stepper, also at the end of its step).
                let ratio = off_gradient_ratio(&scene, &q_end, &qhat, scale);
                let bound = 1e-10 + floor / scale;
                prop_assert!(ratio <= bound, "{} · {} on {}: |N^T Qc| / scale = {ratio:e} > {bound:e}", f.name, s.name, entry.name);
            }
        }
    }

    /// Explicit Euler on ẍ = −ω²x multiplies the energy by exactly 1 + h²ω² every step:
    /// E⁺ = ½(v − hω²x)² + ½ω²(x + hv)² = (1 + h²ω²)·E.
    #[test]
    fn explicit_euler_multiplies_oscillator_energy_by_one_plus_h2_omega2(h in 1e-3f64..0.2, w in 0.1f64..5.0, x0 in -2.0f64..2.0, v0 in -2.0f64..2.0) {
        prop_assume!(x0.abs() + v0.abs() > 1e-3);
        let (x1, v1) = (x0 + h * v0, v0 - h * w * w * x0); // the integrator's update, written out
        let e = |x: f64, v: f64| 0.5 * v * v + 0.5 * w * w * x * x;
        // Rounding: each energy is a sum of O(E) terms, so the ratio is exact to a few ulps.
        prop_assert!((e(x1, v1) / e(x0, v0) - (1.0 + h * h * w * w)).abs() <= 1e-13);
        // And the registered integrator does exactly that update.
        let mut it = integrators::find("explicit_euler").unwrap().build(Control::Fixed { h }).unwrap();
        it.prepare(1, 1);
        struct Osc(f64);
        impl tinkertoy::formulation::SecondOrderOde for Osc {
            fn dim(&self) -> usize { 1 }
            fn initial(&self, _: &mut [f64], _: &mut [f64]) {}
            fn accel(&mut self, x: &[f64], _: &[f64], a: &mut [f64]) -> Result<(), tinkertoy::linsolve::SolveError> { a[0] = -self.0 * x[0]; Ok(()) }
            fn cartesian(&self, _: &[f64], _: &[f64], _: &mut [f64], _: &mut [f64]) {}
            fn cartesian_acceleration(&self, _: &[f64], _: &[f64], _: &[f64], _: &mut [f64]) {}
            fn constraint_force(&mut self, _: &[f64], _: &[f64], _: &mut [f64]) -> Result<(), tinkertoy::linsolve::SolveError> { Ok(()) }
            fn solver_counters(&self) -> tinkertoy::formulation::SolverCounters { Default::default() }
        }
        let (mut x, mut v) = ([x0], [v0]);
        it.step(&mut Osc(w * w), &mut x, &mut v, h).unwrap();
        prop_assert!((x[0] - x1).abs() <= 1e-15 * (1.0 + x1.abs()) && (v[0] - v1).abs() <= 1e-15 * (1.0 + v1.abs()));
    }

    /// Critically damped Baumgarte feedback (k_s = ω², k_d = 2ω) on a linear constraint, integrated
    /// by symplectic Euler: the constraint error decays iff hω < 2(√2 − 1) (the one-step map
    /// [[1 − h²ω², h(1 − 2hω)], [−hω², 1 − 2hω]] has spectral radius < 1 exactly then).
    #[test]
    fn baumgarte_error_decays_iff_h_omega_below_2_sqrt2_minus_2(hw in 0.05f64..0.98) {
        let bound = 2.0 * (2f64.sqrt() - 1.0);
        prop_assume!((hw - bound).abs() > 0.02); // near the bound the decay is too slow to see
        let h = 0.01;
        let w = hw / h;
        let mut system = System::new();
        system.add_body(Body::particle2(1.0)).unwrap();
        system.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] }).unwrap();
        system.add_constraint(Box::new(Line::new(0, 2, [0.0; 3], [1.0, 0.3, 0.0]))).unwrap();
        let scene = Scene { name: "line".into(), system, q0: vec![-0.03, 0.1], v0: vec![0.0, 0.0], reference: None, energy_scale: EnergyScale { joules: 1.0, definition: "1 J".into() }, parametrization: None, branch: Vec::new(), outputs: Vec::new() };
        let f = tinkertoy::formulation::registry::find("force").unwrap();
        let params = f.params.with("f", &[("ks", Scalar::Num(w * w)), ("kd", Scalar::Num(2.0 * w))]).unwrap();
        let s = solvers::find("dense_lu").unwrap();
        let Dynamics::Ode(mut ode) = (f.build)(&params, &scene, (s.build)(&ParamTable::of::<NoParams>().defaults())).unwrap() else { panic!() };
        let mut it = SymplecticEuler::new(h);
        it.prepare(2, 2);
        let (mut x, mut v) = (scene.q0.clone(), scene.v0.clone());
        let mut c = [0.0];
        scene.system.eval_constraints(&x, &mut c);
        let c0 = c[0].abs();
        for _ in 0..2000 {
            if it.step(ode.as_mut(), &mut x, &mut v, h).is_err() { break }
        }
        scene.system.eval_constraints(&x, &mut c);
        let decays = c[0].abs() < c0; // NaN (blow-up) counts as not decaying
        prop_assert_eq!(decays, hw < bound, "h w = {}: |C| {:e} -> {:e}", hw, c0, c[0].abs());
    }
}

/// Symplectic Euler and Verlet keep the pendulum's energy bounded with no secular trend over 1000
/// periods, while RK4's energy error grows linearly (checked by the validate laws).
#[test]
fn symplectic_integrators_keep_energy_bounded_and_rk4_drifts() {
    let sel = Selection {
        formulations: vec![],
        solvers: vec![],
        integrators: INTEGRATORS.iter().collect(),
        own_steppers: false,
    };
    let checks = run_all(&sel);
    for (case, min) in [("bounded energy, no secular trend", 2), ("secular energy drift", 1), ("energy error order", 1)]
    {
        let these: Vec<_> = checks.iter().filter(|c| c.case == case).collect();
        assert!(these.len() >= min, "{case}: {these:?}");
        assert!(these.iter().all(|c| c.outcome != Outcome::Fail), "{case}: {these:?}");
    }
}
