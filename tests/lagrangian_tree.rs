//! `lagrangian` in joint coordinates from the constraint graph: the articulated-body algorithm must
//! reproduce the hand-written reduced coordinates (`AngleChain`, Witkin eq. 13 formed densely) and
//! the maximal-coordinate `force` formulation on every equality-only scene.

use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use tinkertoy::experiment::{CellSpec, RunResult, run};
use tinkertoy::formulation::Gains;
use tinkertoy::formulation::lagrangian::Lagrangian;
use tinkertoy::integrator::{Control, SecondOrderOde};
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::model::BodyKind;
use tinkertoy::params::Scalar;
use tinkertoy::scene::{Scene, registry as scenes};

fn scene(name: &str, p: &[(&str, f64)]) -> Scene {
    let p: Vec<_> = p.iter().map(|&(k, v)| (k, Scalar::Num(v))).collect();
    scenes::find(name).unwrap().build_default(&p).unwrap()
}

fn lagrangian(scene: &Scene) -> Lagrangian<'_> {
    let s = solvers::find("dense_lu").unwrap();
    Lagrangian::new(scene, Gains { ks: 0.0, kd: 0.0 }, (s.build)(&s.params.defaults())).unwrap()
}

/// q̈ of the hand-written parametrization at (u, u̇): (Jᵀ M J) ü = Jᵀ (Q − M J̇ u̇), q̈ = J ü + J̇ u̇,
/// solved densely (the pre-tree path, kept as the reference).
fn angle_chain_qdd(scene: &Scene, u: &[f64], ud: &[f64]) -> (Vec<f64>, f64) {
    let p = scene.parametrization.as_deref().unwrap();
    let (n, k) = (scene.system.ndof(), p.dim());
    let (mut q, mut v, mut jdu, mut f) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    p.position(u, &mut q);
    p.velocity(u, ud, &mut v);
    p.jdot_udot(u, ud, &mut jdu);
    scene.system.applied_forces(&q, &v, &mut f);
    let y: Vec<f64> = f.iter().zip(scene.system.mass()).zip(&jdu).map(|((f, m), j)| f - m * j).collect();
    let mut rhs = vec![0.0; k];
    p.jt_mul(u, &y, &mut rhs);
    let mut mm = vec![0.0; k * k];
    p.mass_matrix(u, scene.system.mass(), &mut mm);
    let mass = nalgebra::DMatrix::from_column_slice(k, k, &mm);
    let sv = mass.clone().singular_values();
    let kappa = sv.max() / sv.min();
    let udd = mass.lu().solve(&nalgebra::DVector::from_vec(rhs)).unwrap();
    let mut qdd = vec![0.0; n];
    p.velocity(u, udd.as_slice(), &mut qdd);
    (qdd.iter().zip(&jdu).map(|(a, j)| a + j).collect(), kappa)
}

#[test]
fn joint_coordinates_reproduce_the_hand_written_chain_accelerations() {
    // Chains in a bent, spinning state: angles and rates from a fixed pseudo-random sequence. Both
    // paths compute the same q̈ of the same ODE; they differ by rounding. The dense reference's
    // forward error is bounded by κ(Jᵀ M J)·ε (LU with partial pivoting, small growth), the
    // recursion's by O(N ε): the bound is 1e-12 or 4 κ ε where the reference's conditioning
    // (a 1000:1 end mass) makes it the less accurate of the two.
    for (n, ratio) in [(6.0, 1.0), (31.0, 1.0), (31.0, 1000.0)] {
        let mut sc = scene("chain", &[("n", n), ("end_ratio", ratio)]);
        let k = sc.parametrization.as_ref().unwrap().dim();
        let mut s = 0.3_f64;
        let mut next = || {
            s = (s * 997.0 + 0.123).fract();
            s
        };
        let u: Vec<f64> = (0..k).map(|_| -1.5 + 3.0 * next()).collect();
        let ud: Vec<f64> = (0..k).map(|_| -4.0 + 8.0 * next()).collect();
        let nd = sc.system.ndof();
        let (mut q, mut v) = (vec![0.0; nd], vec![0.0; nd]);
        let p = sc.parametrization.as_deref().unwrap();
        p.position(&u, &mut q);
        p.velocity(&u, &ud, &mut v);
        let (reference, kappa) = angle_chain_qdd(&sc, &u, &ud);
        sc.q0 = q;
        sc.v0 = v;
        let mut lg = lagrangian(&sc);
        let kk = lg.dim();
        let (mut x, mut xd, mut a) = (vec![0.0; kk], vec![0.0; kk], vec![0.0; kk]);
        lg.initial(&mut x, &mut xd);
        lg.accel(&x, &xd, &mut a).unwrap();
        let mut qdd = vec![0.0; nd];
        lg.cartesian_acceleration(&x, &xd, &a, &mut qdd);
        let scale = reference.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let err = qdd.iter().zip(&reference).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs())) / scale;
        let bound = 1e-12_f64.max(4.0 * kappa * f64::EPSILON);
        eprintln!(
            "chain n = {n}, end ratio {ratio}: max |q'' - q''_AngleChain| / max|q''| = {err:.2e} (kappa {kappa:.1e}, bound {bound:.1e})"
        );
        assert!(err <= bound, "n = {n}: relative difference {err:e}");
    }
}

fn cell(scene: &Scene, formulation: &str, duration: f64) -> RunResult {
    let spec = CellSpec::named(
        formulation,
        &[],
        "dense_lu",
        &[],
        Some("dop853"),
        Control::Adaptive { rtol: 1e-12, atol: 1e-12 },
        duration,
    )
    .unwrap()
    .sampled(duration / 4.0)
    .recording()
    .bounded(1e3);
    run(scene, &spec)
}

/// The scene's length scale \[m\]: the largest distance between two bodies or of a body from
/// the origin (the mechanisms here are built around it), over the samples of `run`.
fn length_scale(scene: &Scene, run: &RunResult) -> f64 {
    let mut l = 0.0_f64;
    for s in &run.samples {
        l = l.max(spread(scene, &s.q));
    }
    l
}

fn spread(scene: &Scene, q: &[f64]) -> f64 {
    let sys = &scene.system;
    let pos = |i: usize| -> Vec<f64> {
        let o = sys.q_offsets()[i];
        q[o..o + sys.bodies()[i].kind.dim()].to_vec()
    };
    let n = sys.bodies().len();
    let mut l = 0.0_f64;
    for i in 0..n {
        let pi = pos(i);
        l = l.max(pi.iter().map(|x| x * x).sum::<f64>().sqrt());
        for j in 0..i {
            l = l.max(pi.iter().zip(pos(j)).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt());
        }
    }
    l
}

fn conservative(scene: &Scene) -> bool {
    use tinkertoy::model::Force;
    scene.system.forces().iter().all(|f| !matches!(f, Force::SpringDamper { damping, .. } if *damping > 0.0))
}

#[test]
fn lagrangian_agrees_with_force_on_every_equality_only_scene() {
    // dop853 at rtol = atol = 1e-12 over 1 s: both cells integrate the same motion to ~1e-11 of
    // its size, so their positions agree to 1e-8 of the length scale (and orientations to 1e-8
    // rad) with three orders to spare; lagrangian's energy error is the integrator's (the tree's
    // constraints hold exactly). Every equality-only scene must run: planar ones on the planar
    // tree, the rest on the spatial tree (cloth: its distance joints in space stay explicit).
    let mut checked = Vec::new();
    for entry in scenes::SCENES {
        let sc = entry.build_small().unwrap();
        if sc.system.contacts().is_some() {
            continue;
        }
        let lg = cell(&sc, "lagrangian", 1.0);
        if let tinkertoy::experiment::Status::NotApplicable { reason } = &lg.summary.status {
            eprintln!("{:16} not applicable: {reason}", entry.name);
            continue;
        }
        assert_eq!(lg.summary.status.label(), "ok", "{}: {:?}", entry.name, lg.summary.status);
        let fc = cell(&sc, "force", 1.0);
        assert_eq!(fc.summary.status.label(), "ok", "{}: {:?}", entry.name, fc.summary.status);
        let l = length_scale(&sc, &fc);
        let sys = &sc.system;
        let (mut diff, mut turn) = (0.0_f64, 0.0_f64);
        assert_eq!(lg.samples.len(), fc.samples.len());
        for (a, b) in lg.samples.iter().zip(&fc.samples) {
            assert!((a.t - b.t).abs() <= 1e-12);
            for (i, body) in sys.bodies().iter().enumerate() {
                let o = sys.q_offsets()[i];
                for d in 0..body.kind.dim() {
                    diff = diff.max((a.q[o + d] - b.q[o + d]).abs());
                }
                // Orientations: the angle of the relative rotation [rad].
                turn = turn.max(match body.kind {
                    BodyKind::Rigid2 => (a.q[o + 2] - b.q[o + 2]).abs(),
                    BodyKind::Rigid3 => {
                        let qa = UnitQuaternion::from_quaternion(Quaternion::from_parts(
                            a.q[o + 3],
                            Vector3::new(a.q[o + 4], a.q[o + 5], a.q[o + 6]),
                        ));
                        let qb = UnitQuaternion::from_quaternion(Quaternion::from_parts(
                            b.q[o + 3],
                            Vector3::new(b.q[o + 4], b.q[o + 5], b.q[o + 6]),
                        ));
                        qa.angle_to(&qb)
                    }
                    _ => 0.0,
                });
            }
        }
        // A mechanism that does not move (torque-free: one body spinning in place) has no spread;
        // its positions are then compared to 1e-8 m.
        let l = if l > 0.0 { l } else { 1.0 };
        let energy = lg.summary.max_energy_error;
        eprintln!(
            "{:16} position difference {:.2e} x L (L = {l:.3} m), orientation {turn:.1e} rad, lagrangian energy error {energy:.2e} x E_scale, loop drift {:.2e}",
            entry.name,
            diff / l,
            lg.summary.max_drift_position
        );
        assert!(diff <= 1e-8 * l, "{}: positions differ by {diff:e} m (L = {l} m)", entry.name);
        assert!(turn <= 1e-8, "{}: orientations differ by {turn:e} rad", entry.name);
        if conservative(&sc) {
            assert!(energy <= 1e-10, "{}: energy error {energy:e}", entry.name);
        }
        checked.push(entry.name);
    }
    for must in [
        "bead",
        "pendulum",
        "double_pendulum",
        "chain",
        "slider_crank",
        "four_bar",
        "incline",
        "cloth",
        "torque_free",
        "chain_3d",
        "door",
        "piston",
        "welded_pendulum",
    ] {
        assert!(checked.contains(&must), "lagrangian did not run on {must}");
    }
}

#[test]
fn floating_mechanisms_become_free_roots() {
    // Nothing holds these to the world: two rigid bars joined by a revolute joint (a free rigid
    // root with a one-angle child) and two particles on a rod (a free particle root with an arm),
    // thrown spinning under gravity. Joint coordinates must follow `force` to the integrators'
    // tolerance, and the horizontal momentum (no horizontal force) stays constant.
    use tinkertoy::constraint::{Distance, Revolute};
    use tinkertoy::model::{Body, Force};
    use tinkertoy::scene::EnergyScale;
    use tinkertoy::system::System;
    let mut system = System::new();
    system.add_body(Body::bar(1.0, 1.0)).unwrap();
    system.add_body(Body::bar(2.0, 1.0)).unwrap();
    system.add_body(Body::particle2(1.0)).unwrap();
    system.add_body(Body::particle2(0.5)).unwrap();
    system.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] }).unwrap();
    system.add_constraint(Box::new(Revolute::new(0, [0.5, 0.0], 1, [-0.5, 0.0]))).unwrap();
    system.add_constraint(Box::new(Distance::between(2, 3, 2, 1.0))).unwrap();
    // Joint point (0.5, 0) moves at (0, 0.5) as part of either bar; the rod's ends differ by a
    // velocity perpendicular to it.
    let q0 = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 1.0, 2.0];
    let v0 = vec![0.0, 0.0, 1.0, 0.0, -0.5, -2.0, 1.0, 0.0, 1.0, 0.7];
    let sc = Scene {
        name: "floating".into(),
        system,
        q0,
        v0,
        reference: None,
        energy_scale: EnergyScale { joules: 10.0, definition: "10 J".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: vec![],
    };
    let lg = cell(&sc, "lagrangian", 1.0);
    let fc = cell(&sc, "force", 1.0);
    assert_eq!(lg.summary.status.label(), "ok", "{:?}", lg.summary.status);
    let mut diff = 0.0_f64;
    let mut px_drift = 0.0_f64;
    let mass = sc.system.mass();
    let px_of = |v: &[f64]| -> f64 { [0, 3, 6, 8].iter().map(|&i| mass[i] * v[i]).sum() };
    let px0 = px_of(&sc.v0);
    for (a, b) in lg.samples.iter().zip(&fc.samples) {
        for i in [0, 1, 3, 4, 6, 7, 8, 9] {
            diff = diff.max((a.q[i] - b.q[i]).abs());
        }
        let px = px_of(&a.v);
        px_drift = px_drift.max((px - px0).abs());
    }
    eprintln!(
        "floating: position difference {diff:.2e} m, horizontal momentum drift {px_drift:.2e} kg m/s, energy {:.2e}",
        lg.summary.max_energy_error
    );
    assert!(diff <= 1e-8, "positions differ by {diff:e} m");
    assert!(px_drift <= 1e-9, "horizontal momentum drifts by {px_drift:e}");
    assert!(lg.summary.max_energy_error <= 1e-10);
}

#[test]
fn projection_puts_the_loop_closure_back_and_keeps_rk4_of_order_4() {
    // The four-bar under lagrangian + RK4: the explicit revolute joint that closes the loop drifts
    // (to ~3e-2 m at h = 1/60 s over 10 s); with the `projection` stabilizer (tol 1e-10) every
    // sample holds it within tol. Projecting after each step of an order-p method keeps order p
    // (Hairer, Lubich & Wanner, GNI §IV.4, Thm. 4.1): against a Dop853 reference at 1e-12 the
    // position error over 2 s falls by 2⁴ per halving of h, read as an observed order ≥ 3.5.
    let sc = scene("four_bar", &[]);
    let cell = |formulation: &str, control: Control, duration: f64, project: bool| {
        let integrator = if matches!(control, Control::Fixed { .. }) { "rk4" } else { "dop853" };
        let mut spec = CellSpec::named(formulation, &[], "dense_cholesky", &[], Some(integrator), control, duration)
            .unwrap()
            .sampled(0.05)
            .recording()
            .bounded(1e3);
        if project {
            spec = spec.stabilized("projection", &[("tol", Scalar::Num(1e-10))]).unwrap();
        }
        let r = run(&sc, &spec);
        assert_eq!(r.summary.status.label(), "ok", "{formulation}: {:?}", r.summary.status);
        r
    };
    let fixed = |h: f64| Control::Fixed { h };
    let free = cell("lagrangian", fixed(1.0 / 60.0), 10.0, false);
    let projected = cell("lagrangian", fixed(1.0 / 60.0), 10.0, true);
    eprintln!(
        "four-bar, lagrangian + rk4, h = 1/60 s: loop drift {:.2e} m without projection, {:.2e} m with",
        free.summary.max_drift_position, projected.summary.max_drift_position
    );
    assert!(free.summary.max_drift_position > 1e-6);
    assert!(projected.summary.max_drift_position <= 1e-10 + 1e-15);
    let reference = cell("force", Control::Adaptive { rtol: 1e-12, atol: 1e-12 }, 2.0, false);
    let error = |h: f64| {
        let r = cell("lagrangian", fixed(h), 2.0, true);
        r.samples
            .iter()
            .zip(&reference.samples)
            .flat_map(|(a, b)| a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()))
            .fold(0.0_f64, f64::max)
    };
    let (e1, e2) = (error(1.0 / 200.0), error(1.0 / 400.0));
    let order = (e1 / e2).log2();
    eprintln!("lagrangian + rk4 + projection: error {e1:.2e} at h = 1/200, {e2:.2e} at 1/400: order {order:.2}");
    assert!(order >= 3.5, "observed order {order}");
}

#[test]
fn the_spatial_tree_follows_the_scenes_model_with_and_without_the_gyroscopic_term() {
    // The spatial algebra carries ω × I ω by itself; the system's rigid-3D forces carry it only if
    // the scene includes it. With it the body flips (period ~ 5 s at ω = 2 rad/s); without it Ω
    // stays constant in the body frame (I Ω̇ = 0). Over 8 s, dop853 at 1e-12: the orientations of
    // lagrangian and force agree to 1e-8 rad either way, and the two models differ by far more.
    let run_one = |formulation: &str, gyroscopic: bool| {
        let sc =
            scenes::find("torque_free").unwrap().build_default(&[("gyroscopic", Scalar::Bool(gyroscopic))]).unwrap();
        let r = cell(&sc, formulation, 8.0); // sampled every 2 s
        assert_eq!(r.summary.status.label(), "ok", "{formulation}: {:?}", r.summary.status);
        r.samples
            .iter()
            .map(|s| UnitQuaternion::from_quaternion(Quaternion::new(s.q[3], s.q[4], s.q[5], s.q[6])))
            .collect::<Vec<_>>()
    };
    let apart = |a: &[UnitQuaternion<f64>], b: &[UnitQuaternion<f64>]| {
        a.iter().zip(b).map(|(x, y)| x.angle_to(y)).fold(0.0, f64::max)
    };
    let (lg, fc) = (run_one("lagrangian", true), run_one("force", true));
    let (lg0, fc0) = (run_one("lagrangian", false), run_one("force", false));
    eprintln!(
        "torque_free: lagrangian - force {:.1e} rad (gyroscopic), {:.1e} rad (without); the two models differ by {:.2} rad",
        apart(&lg, &fc),
        apart(&lg0, &fc0),
        apart(&fc, &fc0)
    );
    assert!(apart(&lg, &fc) <= 1e-8);
    assert!(apart(&lg0, &fc0) <= 1e-8);
    assert!(apart(&fc, &fc0) > 0.1);
}

#[test]
fn loop_closures_run_with_every_linear_solver() {
    // The four-bar's loop closure is a dense 2 × 2 system G M⁻¹ Gᵀ. The direct solvers give the
    // same multipliers to rounding (the sparse ones factor it as the dense matrix it is): 1e-12 m
    // over 2 s. The iterative ones stop at a relative residual of 1e-12, so each evaluation's
    // multipliers are off by at most κ · 1e-12 (κ of a 2 × 2 system, ≲ 1e2) relatively; 480
    // evaluations over 2 s of a non-chaotic mechanism add these up to ≲ 1e-8 m. `tree_ldlt` needs
    // the body-constraint graph of J, which a dense system does not have: not applicable.
    let sc = scene("four_bar", &[]);
    let cell = |solver: &str| {
        let s = solvers::find(solver).unwrap();
        let params: Vec<(&str, Scalar)> = if s.kind == tinkertoy::linsolve::registry::SolverKind::Iterative {
            vec![("tol", Scalar::Num(1e-12)), ("max_iter", Scalar::Num(1000.0))]
        } else {
            vec![]
        };
        let spec =
            CellSpec::named("lagrangian", &[], solver, &params, Some("rk4"), Control::Fixed { h: 1.0 / 60.0 }, 2.0)
                .unwrap()
                .sampled(0.1)
                .recording();
        run(&sc, &spec)
    };
    let reference = cell("dense_lu");
    let lagrangian = tinkertoy::formulation::registry::find("lagrangian").unwrap();
    for s in tinkertoy::linsolve::SOLVERS {
        let r = cell(s.name);
        // The sparse solvers do not take the dense loop-closure system: those cells are n/a.
        if !lagrangian.pairs_with(s) {
            assert_eq!(r.summary.status.label(), "n/a", "{}: {:?}", s.name, r.summary.status);
            continue;
        }
        assert_eq!(r.summary.status.label(), "ok", "{}: {:?}", s.name, r.summary.status);
        let diff = r
            .samples
            .iter()
            .zip(&reference.samples)
            .flat_map(|(a, b)| a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()))
            .fold(0.0_f64, f64::max);
        eprintln!("four-bar, lagrangian + {}: positions within {diff:.1e} of dense_lu's", s.name);
        let bound = if s.kind == tinkertoy::linsolve::registry::SolverKind::Direct { 1e-12 } else { 1e-8 };
        assert!(diff <= bound, "{}: {diff:e}", s.name);
    }
}

/// A Scene around `system` with the given initial state (no reference, no outputs).
fn scene_of(system: tinkertoy::system::System, q0: Vec<f64>, v0: Vec<f64>) -> Scene {
    Scene {
        name: "custom".into(),
        system,
        q0,
        v0,
        reference: None,
        energy_scale: tinkertoy::scene::EnergyScale { joules: 10.0, definition: "10 J".into() },
        parametrization: None,
        branch: Vec::new(),
        outputs: vec![],
    }
}

#[test]
fn a_slide_on_a_turning_body_carries_its_axis_along() {
    // A block sliding along a spinning bar, in the plane and in space: the slide's axis turns
    // with its parent, so the joint's velocity-product term Ṡ u̇ (Coriolis, 2 ω u̇) is not zero —
    // which no shipped scene exercises (their sliders hang from the world). Against `force`
    // (dop853 at 1e-12, 1 s) positions agree to 1e-8 m, as on the scenes.
    use nalgebra::{Matrix3, Vector3};
    use tinkertoy::constraint::{Hinge, JointFrame, Prismatic, Revolute, Slider};
    use tinkertoy::model::{Body, Force};
    use tinkertoy::system::System;
    let (theta, w, s, sd): (f64, f64, f64, f64) = (0.3, 2.0, 0.3, 0.5);
    // Plane: bar pinned at its centre, block on the bar's axis at distance s, sliding at ṡ.
    let mut planar = System::new();
    planar.add_body(Body::bar(1.0, 1.0)).unwrap();
    planar.add_body(Body::rigid2(0.5, 0.01)).unwrap();
    planar.add_force(Force::Gravity { g: [0.0, -9.81, 0.0] }).unwrap();
    planar.add_constraint(Box::new(Revolute::to_world(0, [0.0, 0.0], [0.0, 0.0]))).unwrap();
    planar.add_constraint(Box::new(Prismatic::new(0, [0.0, 0.0], [1.0, 0.0], 1, [0.0, 0.0], 0.0))).unwrap();
    let (c, sn) = (theta.cos(), theta.sin());
    let q0 = vec![0.0, 0.0, theta, s * c, s * sn, theta];
    // block velocity: ω ẑ × (s e) + ṡ e
    let v0 = vec![0.0, 0.0, w, -w * s * sn + sd * c, w * s * c + sd * sn, w];
    let plane = scene_of(planar, q0, v0);
    // Space: a bar on a vertical hinge at the origin, a block on a slider along the bar's x axis.
    let mut spatial = System::new();
    spatial.add_body(Body::rigid3(1.0, [0.01, 0.1, 0.1])).unwrap();
    spatial.add_body(Body::rigid3(0.5, [0.01, 0.01, 0.01])).unwrap();
    spatial.add_force(Force::Gravity { g: [0.0, 0.0, -9.81] }).unwrap();
    spatial.add_force(Force::Gyroscopic).unwrap();
    let z_axis = Matrix3::from_columns(&[Vector3::z(), Vector3::x(), Vector3::y()]);
    let origin = Some(([0.0; 3], [1.0, 0.0, 0.0, 0.0]));
    spatial
        .add_constraint(Box::new(Hinge::new(
            None,
            JointFrame::from_world(None, [0.0; 3], z_axis),
            Some(0),
            JointFrame::from_world(origin, [0.0; 3], z_axis),
        )))
        .unwrap();
    let block = Some(([s, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]));
    let x_axis = Matrix3::identity();
    spatial
        .add_constraint(Box::new(Slider::new(
            Some(0),
            JointFrame::from_world(origin, [0.0; 3], x_axis),
            Some(1),
            JointFrame::from_world(block, [s, 0.0, 0.0], x_axis),
        )))
        .unwrap();
    // Bar spinning about z at ω, block at (s, 0, 0) moving at ṡ x̂ + ω ẑ × s x̂, turning with it.
    let q0 = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, s, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let v0 = vec![0.0, 0.0, 0.0, 0.0, 0.0, w, sd, w * s, 0.0, 0.0, 0.0, w];
    let space = scene_of(spatial, q0, v0);
    for sc in [&plane, &space] {
        let (lg, fc) = (cell(sc, "lagrangian", 1.0), cell(sc, "force", 1.0));
        assert_eq!(lg.summary.status.label(), "ok", "{:?}", lg.summary.status);
        assert_eq!(fc.summary.status.label(), "ok", "{:?}", fc.summary.status);
        let diff = lg
            .samples
            .iter()
            .zip(&fc.samples)
            .flat_map(|(a, b)| a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()))
            .fold(0.0_f64, f64::max);
        let moved = fc.samples.last().unwrap().q.iter().zip(&sc.q0).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        eprintln!(
            "slide on a turning body ({} coordinates): lagrangian - force {diff:.2e}, motion {moved:.2}",
            sc.q0.len()
        );
        assert!(diff <= 1e-8, "{diff:e}");
    }
}
