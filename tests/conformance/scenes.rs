//! Scenes, read from the registry: every scene's initial state is consistent (C(q0) = 0 and
//! J(q0) v0 = 0 to rounding), at its defaults and at the small size tests use.

use tinkertoy::scene::registry::SCENES;

#[test]
fn every_scene_starts_consistent() {
    for (entry, small) in SCENES.iter().flat_map(|e| [(e, false), (e, true)]) {
        let built = if small { entry.build_small() } else { entry.build_default(&[]) };
        let scene = built.unwrap_or_else(|e| panic!("scene {} (small: {small}): {e}", entry.name));
        let sys = &scene.system;
        assert_eq!(scene.q0.len(), sys.nq(), "{}: q0 length", entry.name);
        assert_eq!(scene.v0.len(), sys.ndof(), "{}: v0 length", entry.name);
        let scale = 1.0 + scene.q0.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        // Positions come from trigonometry and square roots of O(scale) numbers: a few ulps each.
        let tol = 1e-13 * scale;
        let mut c = vec![0.0; sys.nrows()];
        sys.eval_constraints(&scene.q0, &mut c);
        let c_max = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(c_max <= tol, "{}: |C(q0)|inf = {c_max:e} > {tol:e}", entry.name);
        let mut jac = sys.jacobian_layout();
        sys.fill_jacobian(&scene.q0, &mut jac);
        let mut jv = vec![0.0; sys.nrows()];
        jac.mul(&scene.v0, &mut jv);
        let jv_max = jv.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(jv_max <= tol, "{}: |J v0|inf = {jv_max:e}", entry.name);
        assert!(scene.energy_scale.joules > 0.0, "{}: energy scale must be positive", entry.name);
    }
}

/// The size a scene declares from its parameters (what the budget checks before building) is the
/// size it builds, at its defaults, at the test size and at an odd size; a scene that declares
/// none is small at its defaults.
#[test]
fn every_scene_declares_the_size_it_builds() {
    use tinkertoy::params::Scalar;
    use tinkertoy::scene::registry::SceneSize;
    for entry in SCENES {
        let odd: Vec<(&str, Scalar)> = entry.test_size.iter().map(|(k, v)| (*k, Scalar::Num(v + 3.0))).collect();
        for given in [vec![], entry.test_size.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect(), odd] {
            let owned: Vec<(String, Scalar)> = given.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            let values = (entry.params.resolve)(entry.name, &owned).unwrap();
            let scene = entry.build_default(&given).unwrap();
            match (entry.size)(&values) {
                Some(declared) => assert_eq!(declared, SceneSize::of(&scene), "{} at {given:?}", entry.name),
                None => assert!(
                    scene.system.nq() <= 2000,
                    "{}: {} coordinates and no declared size",
                    entry.name,
                    scene.system.nq()
                ),
            }
        }
    }
}

/// Every scene's applied forces are minus the gradient of its potential at q0 (v = 0: the
/// dampers and the gyroscopic term vanish there). The derivative along velocity coordinate i is
/// taken through the system's retraction, q ⊕ ±δ eᵢ (the exponential map for orientations), so it
/// is the generalized force in the same coordinates as Q. Central differences with δ = 1e-6 · s
/// (s: the largest coordinate, at least 1): truncation δ²/6 · |U'''| and rounding ε |U| / δ are
/// both far below 1e-6 of the largest force.
#[test]
fn every_scene_force_is_minus_the_gradient_of_its_potential() {
    for entry in SCENES {
        let scene = entry.build_small().unwrap();
        let sys = &scene.system;
        let (q, n) = (&scene.q0, sys.ndof());
        let mut f = vec![0.0; n];
        sys.applied_forces(q, &vec![0.0; n], &mut f);
        let s = q.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let delta = 1e-6 * s;
        let largest = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let u0 = sys.potential_energy(q).abs();
        let tol = 1e-6 * largest + 1e3 * f64::EPSILON * (u0 + 1.0) / delta;
        let mut e = vec![0.0; n];
        for i in 0..n {
            e.fill(0.0);
            e[i] = 1.0;
            let (mut qp, mut qm) = (q.clone(), q.clone());
            sys.advance(&mut qp, &e, delta);
            sys.advance(&mut qm, &e, -delta);
            let grad = (sys.potential_energy(&qp) - sys.potential_energy(&qm)) / (2.0 * delta);
            assert!((f[i] + grad).abs() <= tol, "{}: coordinate {i}: Q = {} but -dU = {}", entry.name, f[i], -grad);
        }
    }
}

/// M is diagonal here (principal axes), so it is symmetric by construction and positive definite
/// exactly when every entry is positive and finite; W = M⁻¹ must be its inverse entry by entry.
#[test]
fn every_scene_mass_matrix_is_positive_definite() {
    for entry in SCENES {
        let scene = entry.build_small().unwrap_or_else(|e| panic!("scene {}: {e}", entry.name));
        let sys = &scene.system;
        assert_eq!(sys.mass().len(), sys.ndof(), "{}", entry.name);
        for (i, (&m, &w)) in sys.mass().iter().zip(sys.inv_mass()).enumerate() {
            assert!(m.is_finite() && m > 0.0, "{}: M[{i}] = {m}", entry.name);
            assert!((m * w - 1.0).abs() <= 2.0 * f64::EPSILON, "{}: M[{i}] W[{i}] = {}", entry.name, m * w);
        }
    }
}
