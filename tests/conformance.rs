//! Conformance: every registered constraint and scene, read from the registries (adding one to a
//! registry covers it here without editing this file).
//!
//! - J matches central finite differences of C, and J̇v matches the finite difference of J(q)·v
//!   along v, at random configurations and velocities. Differences are taken on the configuration
//!   manifold: q ⊕ ε e_k moves along velocity coordinate k (`BodyKind::retract`, the exponential map
//!   for the quaternion of a rigid-3D body), so J is checked as the velocity Jacobian Ċ = J v;
//! - every scene's initial state is consistent: C(q0) = 0 and J(q0) v0 = 0 to rounding.
//!
//! Tolerance for the finite differences. The central difference D(ε) = (f(q+εe) − f(q−εe)) / 2ε has
//! truncation error ≈ ε² f‴/6 and rounding error ≈ u |f| / ε (u = 2.2e-16). With ε = 1e-5 and the
//! O(1) geometry sampled here, rounding is ≈ 1e-11 and truncation ≈ 1e-10·|f‴|. Near a geometric
//! singularity (two particles almost coincident) f‴ grows, so the truncation part is measured, not
//! assumed: D(2ε) − D(ε) ≈ 3 × (truncation error of D(ε)) (Richardson). The tolerance is
//! 1e-8 + 3·|D(2ε) − D(ε)|. A sign error in any block changes an entry by 2|J_ik|, which is O(0.1–1)
//! for these samples, far above it (checked by hand: flipping one block of `distance` and of
//! `prismatic` fails this test).

use proptest::prelude::*;
use tinkertoy::constraint::registry::{CONSTRAINTS, SAMPLE_INPUTS};
use tinkertoy::constraint::{Constraint, MAX_LOCAL_DOF, MAX_LOCAL_NQ, MAX_ROWS};
use tinkertoy::model::BodyKind;
use tinkertoy::scene::registry::SCENES;

const EPS: f64 = 1e-5;

fn tolerance(d1: f64, d2: f64) -> f64 {
    1e-8 + 3.0 * (d2 - d1).abs()
}

/// q ⊕ h·dir for the local coordinates of bodies of `kinds` (dir is a local velocity vector).
fn retract(kinds: &[BodyKind], q: &[f64], dir: &[f64], h: f64) -> [f64; MAX_LOCAL_NQ] {
    let mut out = [0.0; MAX_LOCAL_NQ];
    let (mut oq, mut ov) = (0, 0);
    for k in kinds {
        k.retract(&q[oq..oq + k.nq()], &dir[ov..ov + k.dof()], h, &mut out[oq..oq + k.nq()]);
        oq += k.nq();
        ov += k.dof();
    }
    out
}

/// Central difference of `f` along the velocity direction `dir` at `q` with step `h`, all rows.
fn central(
    f: &dyn Fn(&[f64], &mut [f64]),
    kinds: &[BodyKind],
    q: &[f64],
    dir: &[f64],
    h: f64,
    rows: usize,
) -> [f64; MAX_ROWS] {
    let n = q.len();
    let (qp, qm) = (retract(kinds, q, dir, h), retract(kinds, q, dir, -h));
    let (mut fp, mut fm) = ([0.0; MAX_ROWS], [0.0; MAX_ROWS]);
    f(&qp[..n], &mut fp[..rows]);
    f(&qm[..n], &mut fm[..rows]);
    let mut out = [0.0; MAX_ROWS];
    for r in 0..rows {
        out[r] = (fp[r] - fm[r]) / (2.0 * h);
    }
    out
}

/// A local configuration for the bodies of `kinds` from the uniforms `raw`: coordinates as drawn,
/// except that a rigid-3D body's quaternion is normalized.
fn configuration(kinds: &[BodyKind], raw: &[f64]) -> Option<[f64; MAX_LOCAL_NQ]> {
    let mut q = [0.0; MAX_LOCAL_NQ];
    q[..raw.len()].copy_from_slice(raw);
    let mut o = 0;
    for k in kinds {
        if *k == BodyKind::Rigid3 {
            let quat = &mut q[o + 3..o + 7];
            let norm = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm < 0.1 {
                return None;
            }
            quat.iter_mut().for_each(|x| *x /= norm);
        }
        o += k.nq();
    }
    Some(q)
}

fn check_constraint(c: &dyn Constraint, raw_q: &[f64], v: &[f64]) -> Result<(), TestCaseError> {
    let (rows, n, nq, kinds) = (c.rows(), c.local_dof(), c.local_nq(), c.body_kinds());
    let Some(q) = configuration(kinds, &raw_q[..nq]) else {
        prop_assume!(false, "quaternion too short to normalize");
        unreachable!()
    };
    let (q, v) = (&q[..nq], &v[..n]);
    let mut j = vec![0.0; rows * n];
    c.jacobian(q, &mut j);
    let mut jdv = [0.0; MAX_ROWS];
    c.jdot_v(q, v, &mut jdv[..rows]);
    // C is not differentiable where its geometry degenerates (coincident particles: ℓ = 0); such
    // samples are measure-zero and are rejected rather than compared.
    prop_assume!(j.iter().chain(&jdv[..rows]).all(|x| x.is_finite()));
    let eval = |x: &[f64], out: &mut [f64]| c.eval(x, out);
    for k in 0..n {
        let mut e = [0.0; MAX_LOCAL_DOF];
        e[k] = 1.0;
        let d1 = central(&eval, kinds, q, &e[..n], EPS, rows);
        let d2 = central(&eval, kinds, q, &e[..n], 2.0 * EPS, rows);
        for r in 0..rows {
            let tol = tolerance(d1[r], d2[r]);
            prop_assert!(
                (j[r * n + k] - d1[r]).abs() <= tol,
                "{}: J[{r},{k}] = {} but finite difference gives {} (tol {tol:e}) at q = {q:?}",
                c.kind(),
                j[r * n + k],
                d1[r]
            );
        }
    }
    // J̇v = d/ds [J(q + s v) v] at s = 0.
    let jv = |x: &[f64], out: &mut [f64]| {
        let mut jx = [0.0; MAX_ROWS * MAX_LOCAL_DOF];
        c.jacobian(x, &mut jx[..rows * n]);
        for r in 0..rows {
            out[r] = (0..n).map(|i| jx[r * n + i] * v[i]).sum();
        }
    };
    let d1 = central(&jv, kinds, q, v, EPS, rows);
    let d2 = central(&jv, kinds, q, v, 2.0 * EPS, rows);
    for r in 0..rows {
        let tol = tolerance(d1[r], d2[r]);
        prop_assert!(
            (jdv[r] - d1[r]).abs() <= tol,
            "{}: J̇v[{r}] = {} but finite difference gives {} (tol {tol:e}) at q = {q:?}, v = {v:?}",
            c.kind(),
            jdv[r],
            d1[r]
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_constraint_jacobian_and_jdot_v_match_finite_differences(
        u in prop::array::uniform8(-1.0f64..1.0),
        q in prop::array::uniform14(-2.0f64..2.0),
        v in prop::array::uniform12(-2.0f64..2.0),
    ) {
        let u: [f64; SAMPLE_INPUTS] = u;
        for entry in CONSTRAINTS {
            let c = (entry.sample)(&u);
            prop_assert_eq!(c.kind(), entry.name, "registry name and Constraint::kind disagree");
            prop_assert!(c.rows() <= MAX_ROWS && c.local_dof() <= MAX_LOCAL_DOF && c.local_nq() <= MAX_LOCAL_NQ);
            check_constraint(c.as_ref(), &q, &v)?;
        }
    }
}

#[test]
fn every_scene_starts_consistent() {
    for entry in SCENES {
        let scene = entry.build_with(&[]).unwrap_or_else(|e| panic!("scene {} (defaults): {e}", entry.name));
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
