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
