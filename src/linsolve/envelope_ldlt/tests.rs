//! The fused solve of [`super::EnvelopeLdlt`] against the separate assembly and residual of
//! [`crate::sparse::NormalMatrix`], bit for bit.

use super::*;
use crate::linsolve::relative_residual;
use crate::sparse::NormalMatrix;
use crate::scene::SCENES;

/// Two bars on revolutes, the elbow driven: the drive's row reaches the clock (one
/// coordinate) beside the bars (three), so the terms are of mixed sizes.
const ELBOW: &str = include_str!("../../../tests/data/elbow_motor.yaml");

/// A chain whose links visit its particles out of their order (P2, P0, P3, P1, P4): J W Jᵀ is
/// tridiagonal, but the terms' indices do not advance by a stride.
const SHUFFLED_CHAIN: &str = "model: shuffled_chain
length_scale: 5
energy_scale: {joules: 50, definition: \"50 J\"}
bodies:
  - {name: P0, kind: particle2, mass: 1, position: [2, 0]}
  - {name: P1, kind: particle2, mass: 2, position: [4, 0]}
  - {name: P2, kind: particle2, mass: 1, position: [1, 0]}
  - {name: P3, kind: particle2, mass: 3, position: [3, 0]}
  - {name: P4, kind: particle2, mass: 1, position: [5, 0]}
forces:
  - {type: gravity, g: [0, -9.81]}
joints:
  - {type: distance, a: P2, at: [0, 0], length: 1}
  - {type: distance, a: P2, b: P0, length: 1}
  - {type: distance, a: P0, b: P3, length: 1}
  - {type: distance, a: P3, b: P1, length: 1}
  - {type: distance, a: P1, b: P4, length: 1}
";

/// On every built-in scene without contact (chains in the plane and in space, the cloth's wide
/// envelope with fill, rigid bodies mixed with the ground, …), a driven model and a shuffled
/// chain, with no, one and per-row regularisation: the solve's assembled A is
/// [`NormalMatrix::assemble`]'s to the bit (the entries' terms are added in its order), its
/// residual is [`NormalMatrix::relative_residual`]'s to the bit (also where a band tail forms it
/// on the way back), a band tail's L, D⁻¹, x and residual are the general rows' to the bit, and
/// x solves the system to the conditioning's accuracy.
#[test]
fn the_fused_solve_assembles_the_normal_matrix_bit_for_bit_and_solves_it() {
    let (mut kinds, mut tails) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    let model = |file, text| crate::scene::model_file::from_text(file, text).unwrap_or_else(|e| panic!("{e}")).scene;
    let (elbow, shuffled) = (model("elbow.yaml", ELBOW), model("shuffled.yaml", SHUFFLED_CHAIN));
    let scenes =
        SCENES.iter().map(|e| (e.name, e.build_small().unwrap())).chain([("elbow", elbow), ("shuffled", shuffled)]);
    for (name, scene) in scenes {
        let sys = &scene.system;
        if sys.contacts().is_some() || sys.nrows() == 0 {
            continue;
        }
        // off the scene's tidy initial state and its unit masses, so that the products round
        let q: Vec<f64> = scene.q0.iter().enumerate().map(|(i, q)| q + 0.01 * (1.3 * i as f64).sin()).collect();
        let w: Vec<f64> =
            sys.inv_mass().iter().enumerate().map(|(i, w)| w * (1.0 + 0.1 * (0.7 * i as f64).cos())).collect();
        let mut jac = sys.jacobian_layout();
        sys.fill_jacobian(&q, &mut jac);
        let pattern = NormalMatrix::new(&jac);
        let m = jac.nrows();
        let per_row: Vec<f64> = (0..m).map(|i| 1e-3 * (1 + i % 3) as f64).collect();
        for reg in [Reg::Uniform(0.0), Reg::Uniform(1e-2), Reg::PerRow(&per_row)] {
            let op = Operator::Normal { jac: &jac, w: &w, pattern: &pattern, reg };
            let mut s = EnvelopeLdlt::default();
            s.prepare(&op).unwrap();
            kinds.insert((s.chunk, s.natural));
            if s.band_from < m {
                tails.insert(s.affine.is_some());
            }
            let b: Vec<f64> = (0..m).map(|i| (i as f64 * 0.7).sin() + 0.5).collect();
            let mut x = vec![0.0; m];
            let Ok(info) = s.solve(&op, &b, &mut x) else {
                continue; // a scene whose rows are redundant (and not regularised)
            };
            let mut want = vec![0.0; pattern.nnz()];
            pattern.assemble(&jac, &w, &mut want);
            reg.add_to(&mut want, pattern.diagonal_positions());
            assert_eq!(s.a_values, want, "{name}: assembled A");
            let mut ax = vec![0.0; m];
            assert_eq!(info.residual, pattern.relative_residual(&want, &b, &x, &mut ax), "{name}");
            // LDLᵀ is backward stable: the residual is a modest multiple of ε (these systems
            // are small and well conditioned, κ ≲ 10⁴).
            let (mut ax2, mut scratch) = (vec![0.0; m], vec![0.0; op.scratch_len()]);
            let r = relative_residual(&op, &b, &x, &mut ax2, &mut scratch);
            assert!(r < 1e-11, "{name}: residual {r:e}");
            if s.band_from < m {
                // the band tail's loops against the general rows' on the same system: the same
                // L, D⁻¹, x and residual to the bit
                let mut general = EnvelopeLdlt::default();
                general.prepare(&op).unwrap();
                (general.band_from, general.affine) = (m, None);
                let mut x_general = vec![0.0; m];
                let info_general = general.solve(&op, &b, &mut x_general).unwrap();
                assert_eq!((&s.l, &s.d_inv, &x, info.residual), (&general.l, &general.d_inv, &x_general, info_general.residual), "{name}");
            }
        }
    }
    // the chunked kinds (2: particles in the plane, 6: bodies in space) and the generic one
    // (bodies of different sizes), in natural and in RCM order, were all exercised
    assert!(kinds.iter().any(|k| k.0 == 2) && kinds.iter().any(|k| k.0 == 1) && kinds.iter().any(|k| k.0 == 6), "{kinds:?}");
    assert!(kinds.iter().any(|k| !k.1), "no scene took the RCM order: {kinds:?}");
    // and the band tail's loops, with its terms' indices computed (the chains after their
    // pins) and read from the lists (the shuffled chain)
    assert_eq!(tails.len(), 2, "band tails with and without strides: {tails:?}");
}

/// Where the solve's values decay below the smallest normal f64 they are stored as 0, not as
/// subnormals, on which x86 takes up to a hundred cycles an operation: the Newton system of a
/// 3000-link chain under tension (a constraint row and a stiffness row per link, regularised as
/// `xpbd_newton` does), zig-zag for 50 links and straight beyond, b = e₀. Where the chain is
/// straight a link's stiffness row (across it) and constraint row (along it) meet in an exact 0
/// of A, and L's entries there, z and x shrink by about 0.73 a link from the bend on, as they do
/// in the far part of a long chain (`chain_scaling.yaml`). Without the flush, over a thousand of
/// L's entries end up subnormal. x still solves the system.
#[test]
fn values_below_the_normal_range_are_stored_as_zero() {
    let scene = SCENES.iter().find(|e| e.name == "chain").unwrap().build_default(&[("n", crate::params::Scalar::Num(3001.0))]).unwrap();
    let sys = &scene.system;
    let mut q = scene.q0.clone();
    for i in 1..q.len() / 2 {
        let a = if i <= 50 { 0.3 * (1.3 * i as f64).sin() } else { 0.0 };
        (q[2 * i], q[2 * i + 1]) = (q[2 * i - 2] + 0.1 * a.cos(), q[2 * i - 1] + 0.1 * a.sin());
    }
    let mut jac = sys.jacobian_layout_with_stiffness_rows();
    let m = jac.nrows();
    let (lambda, mut c, mut s) = (vec![-1.0; m], vec![0.0; m], vec![0.0; m]);
    sys.eval_with_stiffness(&q, &lambda, &mut c, &mut s, &mut jac, |s, gwg| s * gwg >= 1e-10, None);
    let pattern = NormalMatrix::new(&jac);
    // xpbd_newton's regularisation: α̃ = 0 on the constraint rows, 1/s on the stiffness rows (1
    // where a row was zeroed)
    let reg: Vec<f64> = s.iter().enumerate().map(|(r, s)| if r % 2 == 0 { 0.0 } else if *s > 0.0 { 1.0 / s } else { 1.0 }).collect();
    let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::PerRow(&reg) };
    let mut solver = EnvelopeLdlt::default();
    solver.prepare(&op).unwrap();
    let b: Vec<f64> = (0..m).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    let mut x = vec![0.0; m];
    let info = solver.solve(&op, &b, &mut x).unwrap();
    // backward stable, as in the test above: a modest multiple of ε (the flushed values are
    // 1e-308 of b's scale, far below it)
    assert!(info.residual < 1e-11, "residual {:e}", info.residual);
    for (what, v) in [("L", &solver.l), ("z", &solver.y), ("x", &x)] {
        let subnormal = v.iter().filter(|v| v.is_subnormal()).count();
        let smallest = v.iter().filter(|v| **v != 0.0).fold(f64::INFINITY, |a, v| a.min(v.abs()));
        assert_eq!(subnormal, 0, "{what}: {subnormal} subnormal values");
        assert!(smallest < 1e-290, "{what}: the values decayed only to {smallest:e}");
    }
}
