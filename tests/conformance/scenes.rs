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
