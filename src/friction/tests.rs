//! Tests of the contact-problem data, the residual and the solvers on the shipped problems.

use super::cone::{Normalisation, natural_map_norm, project};
use super::fclib::{self, Info, Problem};
use super::solvers::{CONTACT_SOLVERS, Stop, find};
use super::*;
use proptest::prelude::*;

pub(super) fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/contact").join(name)
}

pub(super) fn local(name: &str) -> LocalProblem {
    match fclib::read(&data(name)).unwrap().0 {
        Problem::Local(p) => p,
        Problem::Global(g) => g.reduce().unwrap(),
    }
}

fn stop(tol: f64) -> Stop {
    Stop { tol, max_iter: 200_000, seconds: 60.0, norm: Normalisation::Q, history: true }
}

/// FrictionContact3D_1c (Siconos): one contact, W = [[15, −1, −2], [−1, 14, 1], [−2, 1, 16]],
/// q = (−1, 2, 3), μ = 0.1. Its sticking candidate −W⁻¹q lies outside the cone, so the contact
/// slides: r on the cone's boundary, û orthogonal to it.
#[test]
fn every_coulomb_solver_reaches_1e_10_on_the_one_contact_problem() {
    let text = std::fs::read_to_string(data("FrictionContact3D_1c.dat")).unwrap();
    let p = dat::from_text("FrictionContact3D_1c.dat", &text).unwrap();
    assert_eq!((p.dim, p.mu.clone(), p.q.clone()), (3, vec![0.1], vec![-1.0, 2.0, 3.0]));
    for e in CONTACT_SOLVERS {
        let mut solver = (e.build)(&e.params.defaults());
        let mut r = vec![0.0; 3];
        let o = solver.solve(&p, &mut r, &stop(1e-10));
        if !e.coulomb() {
            // The convex relaxation's solution, and the 3D pyramid's, are not the Coulomb one
            // where the contact slides.
            assert!(
                !o.converged && o.stopped.as_deref().is_some_and(|s| s.contains("relaxation") || s.contains("pyramid")),
                "{}: {:?} after {} iterations",
                e.name,
                o.stopped,
                o.iterations
            );
            continue;
        }
        assert!(o.converged && o.residual <= 1e-10, "{}: {:?}, residual {:e}", e.name, o.stopped, o.residual);
        let t = (r[1] * r[1] + r[2] * r[2]).sqrt();
        assert!((t - 0.1 * r[0]).abs() <= 1e-9 * r[0] && r[0] > 0.0, "{}: sliding, on the boundary: {r:?}", e.name);
    }
}

/// A frictionless contact (μ = 0: the cone is the ray r_T = 0, r_N ≥ 0, where the relaxation
/// and the pyramid coincide with Coulomb's) in 2D and 3D, W = diag(2, 3, 3): separating
/// (q_N = 6.25 > 0) from a warm guess that pushes, r = 0 exactly; approaching (q_N = −4),
/// r = (2, 0, 0) with u = 0. Every solver, to its tolerance 1e-10 relative to ‖q‖; a regularised
/// one (SAP) approaching solves (W + R) r = −q instead, with R_N = β² w̃/(4π²) ≤ 3/(4π²) here
/// (β = 1, w̃ at most W's largest entry): r_N within [4/(2 + 3/(4π²)), 2].
#[test]
fn every_solver_lets_a_frictionless_contact_separate_and_stops_an_approaching_one() {
    for dim in [2, 3] {
        let w =
            Csr::from_triplets(dim, dim, &(0..dim).map(|i| (i, i, if i == 0 { 2.0 } else { 3.0 })).collect::<Vec<_>>());
        for (qn, exact) in [(6.25, 0.0), (-4.0, 2.0)] {
            let mut q = vec![0.0; dim];
            q[0] = qn;
            let p =
                LocalProblem { name: "frictionless".into(), dim, w: w.clone(), q, mu: vec![0.0], guesses: Vec::new() };
            for e in CONTACT_SOLVERS {
                let mut r = vec![0.0; dim];
                r[0] = 5.0;
                let o = (e.build)(&e.params.defaults()).solve(&p, &mut r, &stop(1e-10));
                let tol = 1e-9 * qn.abs();
                let low = if e.regularized && exact > 0.0 {
                    4.0 / (2.0 + 3.0 / (4.0 * std::f64::consts::PI.powi(2))) - tol
                } else {
                    exact - tol
                };
                assert!(
                    (low..=exact + tol).contains(&r[0]) && r[1..].iter().all(|t| t.abs() <= tol),
                    "{} in {dim}D, q_N = {qn}: r = {r:?} ({:?})",
                    e.name,
                    o.stopped
                );
            }
        }
    }
}

/// A random well-conditioned problem of `n` contacts: W = D + E with D positive diagonal and E a
/// small symmetric coupling (diagonally dominant, so cond(W) ≤ 3), μ ≤ 0.3: the Coulomb problem
/// then has one solution, which every Coulomb solver must find.
fn random_problem(n: usize, seed: &[f64]) -> LocalProblem {
    random_problem_in(3, n, seed)
}

/// [`random_problem`] with contacts of dimension `dim` (2: in the plane).
fn random_problem_in(dim: usize, n: usize, seed: &[f64]) -> LocalProblem {
    let m = dim * n;
    let mut t = Vec::new();
    let mut k = 0;
    let mut next = || {
        k += 1;
        seed[k % seed.len()] * (1.0 + (k as f64 * 0.618).fract())
    };
    for i in 0..m {
        t.push((i, i, 1.0 + next().abs()));
        for j in 0..i {
            let e = 0.4 / m as f64 * (next() - 0.5);
            t.push((i, j, e));
            t.push((j, i, e));
        }
    }
    let q = (0..m).map(|_| 2.0 * next() - 1.0).collect();
    let mu = (0..n).map(|_| 0.3 * next().abs().min(1.0)).collect();
    LocalProblem { name: "random".into(), dim, w: Csr::from_triplets(m, m, &t), q, mu, guesses: Vec::new() }
}

proptest! {
    // A fixed seed: the same 1000 problems every run (no flakes), a failure reproducible.
    #![proptest_config(ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(40),
        ..ProptestConfig::default()
    })]

    /// Every Coulomb solver converges to 1e-10 on random well-conditioned problems, its answer
    /// lies in the cones, and the answers agree to the tolerance the conditioning allows:
    /// ‖r_a − r_b‖ ≤ cond(W)/λ_min · (‖F_a‖ + ‖F_b‖)·‖q‖ ≲ 10 · 2e-10 · ‖q‖.
    #[test]
    fn coulomb_solvers_agree_on_random_well_conditioned_problems(
        n in 1usize..6,
        seed in proptest::collection::vec(0.0f64..1.0, 8..16),
    ) {
        let p = random_problem(n, &seed);
        let nq = Normalisation::Q.divisor(&p.q);
        let mut answers = Vec::new();
        for e in CONTACT_SOLVERS.iter().filter(|e| e.coulomb()) {
            let mut r = vec![0.0; p.q.len()];
            let o = (e.build)(&e.params.defaults()).solve(&p, &mut r, &stop(1e-10));
            prop_assert!(o.converged, "{}: {:?}", e.name, o.stopped);
            for (a, c) in r.chunks(3).enumerate() {
                let mut x = [c[0], c[1], c[2]];
                project(p.mu[a], &mut x);
                prop_assert!(x.iter().zip(c).all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs())));
            }
            answers.push((e.name, r));
        }
        for (name, r) in &answers[1..] {
            let d = r.iter().zip(&answers[0].1).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            prop_assert!(d <= 2e-9 * nq, "{name} vs {}: {d:e}", answers[0].0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(42),
        ..ProptestConfig::default()
    })]

    /// In 2D the friction pyramid is the Coulomb cone, so Lemke's pivoting gives the exact
    /// solution: every Coulomb solver agrees with it on random well-conditioned planar problems
    /// to the bound of the 3D test, cond(W)/λ_min · (‖F‖ + rounding) ≲ 2e-9 ‖q‖.
    #[test]
    fn coulomb_solvers_agree_with_lemke_in_the_plane(
        n in 1usize..6,
        seed in proptest::collection::vec(0.0f64..1.0, 8..16),
    ) {
        let p = random_problem_in(2, n, &seed);
        let nq = Normalisation::Q.divisor(&p.q);
        let lemke = crate::friction::solvers::find("lemke").expect("registered");
        let mut exact = vec![0.0; p.q.len()];
        let o = (lemke.build)(&lemke.params.defaults()).solve(&p, &mut exact, &stop(1e-10));
        prop_assert!(o.converged && o.residual <= 1e-12, "lemke: {:?}, residual {:e}", o.stopped, o.residual);
        for e in CONTACT_SOLVERS.iter().filter(|e| e.coulomb()) {
            let mut r = vec![0.0; p.q.len()];
            let o = (e.build)(&e.params.defaults()).solve(&p, &mut r, &stop(1e-10));
            prop_assert!(o.converged, "{}: {:?}", e.name, o.stopped);
            let d = r.iter().zip(&exact).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            prop_assert!(d <= 2e-9 * nq, "{} vs lemke: {d:e}", e.name);
        }
    }
}

/// Gershgorin bounds of a symmetric W: (λ_min from below, ‖W‖₂ from above).
fn gershgorin(w: &Csr) -> (f64, f64) {
    let (mut low, mut high) = (f64::INFINITY, 0.0f64);
    for i in 0..w.nrows {
        let (mut diag, mut off) = (0.0, 0.0);
        for k in w.ptr[i]..w.ptr[i + 1] {
            if w.idx[k] == i { diag += w.val[k] } else { off += w.val[k].abs() }
        }
        low = low.min(diag - off);
        high = high.max(diag.abs() + off);
    }
    (low, high)
}

/// The solvers of the convex relaxation agree with the interior-point reference (`ipm_ccp`) on
/// 1000 random well-conditioned problems (fixed seeds), to the error bound of a strongly monotone
/// variational inequality (Facchinei & Pang 2003, Prop. 1.5.14 and §6.3): for the relaxation's
/// natural map F, ‖r − r*‖ ≤ (1 + ‖W‖)/λ_min(W) · ‖F(r)‖, so two answers differ by at most that
/// factor times the sum of their residuals (the factor from Gershgorin bounds of W). A relaxed
/// solver that stops on the Coulomb residual instead (the Coulomb problem is solved before the
/// relaxation is, e.g. at r = 0 when every contact separates) has found a Coulomb solution, which
/// is not the relaxation's; at least a third of the problems must reach the comparison.
#[test]
fn relaxation_solvers_agree_with_the_interior_point_reference() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut compared = 0;
    for case in 0..1000 {
        let n = 1 + (uniform() * 5.0) as usize;
        let seed: Vec<f64> = (0..8 + (uniform() * 8.0) as usize).map(|_| uniform()).collect();
        let p = random_problem(n, &seed);
        let (low, high) = gershgorin(&p.w);
        assert!(low > 0.0, "case {case}");
        let factor = (1.0 + high) / low;
        let nq = Normalisation::Q.divisor(&p.q);
        let mut answers = Vec::new();
        for e in CONTACT_SOLVERS.iter().filter(|e| e.relaxed && !e.regularized) {
            let mut r = vec![0.0; p.q.len()];
            let o = (e.build)(&e.params.defaults()).solve(&p, &mut r, &stop(1e-10));
            let mut u = vec![0.0; r.len()];
            p.velocity(&r, &mut u);
            let f = crate::friction::cone::relaxed_natural_map_norm(3, &p.mu, &r, &u);
            if o.converged && f > 1e-9 * nq {
                continue; // a Coulomb solution, not the relaxation's
            }
            // An interior point approaches a contact sliding on the cone's boundary at about the
            // square root of its gap: 1e-6 there, the first-order solvers 1e-9.
            let bound = if e.name == "ipm_ccp" { 1e-6 } else { 1e-9 };
            assert!(f <= bound * nq, "case {case}, {}: relaxation residual {f:e}: {:?}", e.name, o.stopped);
            answers.push((e.name, r, f));
        }
        let Some((reference, r0, f0)) = answers.iter().find(|a| a.0 == "ipm_ccp") else { continue };
        for (name, r, f) in answers.iter().filter(|a| a.0 != "ipm_ccp") {
            let d = r.iter().zip(r0).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            assert!(d <= factor * (f + f0), "case {case}, {name} vs {reference}: {d:e} > {:e}", factor * (f + f0));
            compared += 1;
        }
    }
    assert!(compared >= 333, "only {compared} of 1000 problems compared");
}

/// `sap` solves its regularised problem exactly: on 1000 random well-conditioned problems (fixed
/// seeds) its answer agrees with the interior-point solution of the relaxation of W + R (the
/// problem SAP's optimum solves, [`super::solvers::sap::regularised_problem`]), within the
/// variational-inequality error bound of the other relaxation solvers, (1 + ‖W + R‖)/λ_min(W + R)
/// times the two answers' residuals on that problem; SAP's own residual there is at most 1e-9
/// ‖q‖. Where the Coulomb problem is solved first (e.g. at r = 0 when every contact separates
/// with u_N ≥ 0 but not u_N ≥ μ‖u_T‖) the solve stops there, on another problem's solution;
/// at least two thirds of the problems must reach the comparison.
#[test]
fn sap_agrees_with_the_interior_point_on_its_regularised_problem() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let sap = find("sap").expect("registered");
    let mut compared = 0;
    for case in 0..1000 {
        let n = 1 + (uniform() * 5.0) as usize;
        let seed: Vec<f64> = (0..8 + (uniform() * 8.0) as usize).map(|_| uniform()).collect();
        let dim = if case % 4 == 3 { 2 } else { 3 };
        let p = random_problem_in(dim, n, &seed);
        let reg = super::solvers::sap::regularised_problem(&p, 1.0, 1e-3);
        let (low, high) = gershgorin(&reg.w);
        let factor = (1.0 + high) / low;
        let nq = Normalisation::Q.divisor(&p.q);
        let mut r = vec![0.0; p.q.len()];
        let o = (sap.build)(&sap.params.defaults()).solve(&p, &mut r, &stop(1e-10));
        let residual = |x: &[f64]| {
            let mut u = vec![0.0; x.len()];
            reg.velocity(x, &mut u);
            crate::friction::cone::relaxed_natural_map_norm(dim, &reg.mu, x, &u)
        };
        let f = residual(&r);
        if o.converged && f > 1e-9 * nq {
            continue; // a Coulomb solution, not the regularised problem's
        }
        assert!(f <= 1e-9 * nq, "case {case}: sap's residual on its problem {f:e}: {:?}", o.stopped);
        let (x, _) = super::solvers::ipm_ccp::solve_ccp(&reg, 1e-12, 200, 60.0).unwrap();
        let f0 = residual(&x);
        let d = r.iter().zip(&x).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        assert!(d <= factor * (f + f0), "case {case}: sap vs ipm_ccp {d:e} > {:e}", factor * (f + f0));
        compared += 1;
    }
    assert!(compared >= 667, "only {compared} of 1000 problems compared");
}

#[test]
fn the_registry_names_are_unique_and_found() {
    for e in CONTACT_SOLVERS {
        assert_eq!(find(e.name).unwrap().name, e.name);
        assert_eq!(CONTACT_SOLVERS.iter().filter(|x| x.name == e.name).count(), 1);
    }
}

/// A `box_stack` step of `pgs` on the true cone, written as FCLIB and read back: the same
/// problem bit for bit, which `nsgs` solves to the same impulses bit for bit; and the impulses
/// `pgs` found in the step (the problem's first guess) solve it — the stack rests, so every
/// contact sticks or separates and the converged sweep meets the natural map to its tolerance.
#[test]
fn a_box_stack_step_dumped_as_fclib_reads_back_and_resolves_to_the_same_impulses() {
    use crate::formulation::Dynamics;
    use crate::params::Scalar;
    let scene = crate::scene::registry::find("box_stack").unwrap().build_default(&[]).unwrap();
    let f = crate::formulation::registry::find("pgs").unwrap();
    let params = f
        .params
        .with(
            "pgs",
            &[("cone", Scalar::Bool(true)), ("iterations", Scalar::Num(100_000.0)), ("tol", Scalar::Num(1e-15))],
        )
        .unwrap();
    let gs = crate::linsolve::registry::find("gauss_seidel").unwrap();
    let Ok(Dynamics::Stepper(mut pgs)) = (f.build)(&params, &scene, (gs.build)(&gs.params.defaults())) else {
        panic!("pgs builds on box_stack")
    };
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    for _ in 0..60 {
        pgs.step(1.0 / 60.0, &mut q, &mut v).unwrap();
    }
    let p = pgs.contact_problem().unwrap().unwrap();
    p.validate().unwrap();
    assert!(p.contacts() >= 8, "{} contacts", p.contacts());
    let bytes = fclib::local_to_bytes(&p, &Info::default()).unwrap();
    let Problem::Local(back) = fclib::from_bytes("box_stack step", bytes).unwrap().0 else { panic!("local") };
    assert_eq!(back.w, p.w);
    assert_eq!((back.q.clone(), back.mu.clone(), back.guesses.clone()), (p.q.clone(), p.mu.clone(), p.guesses.clone()));
    let solve = |x: &LocalProblem| {
        let e = find("nsgs").unwrap();
        let mut r = vec![0.0; x.q.len()];
        let o = (e.build)(&e.params.defaults()).solve(x, &mut r, &stop(1e-12));
        (o, r)
    };
    let (o1, r1) = solve(&p);
    let (_, r2) = solve(&back);
    assert!(r1.iter().zip(&r2).all(|(a, b)| a.to_bits() == b.to_bits()));
    let mut u = vec![0.0; p.q.len()];
    p.velocity(&p.guesses[0], &mut u);
    let pgs_res = natural_map_norm(3, &p.mu, &p.guesses[0], &u) / Normalisation::Q.divisor(&p.q);
    println!(
        "box_stack step: {} contacts, nsgs {:?} after {} sweeps; pgs's impulses: residual {pgs_res:.2e}",
        p.contacts(),
        o1.converged,
        o1.iterations
    );
    assert!(pgs_res <= 1e-10, "{pgs_res:e}");
}

/// `pgs` with a contact solver from the solver axis: each step's problem solved on the true cone
/// to the residual asked (`sap`, regularised, with β = 10⁻³: to what its regularisation allows);
/// the stack rests (no cube moves by 1 mm in 1 s); on a scene with joints
/// (a mixed problem) the pairing is refused as not applicable.
#[test]
fn pgs_runs_its_steps_with_every_contact_solver_on_the_solver_axis() {
    use crate::experiment::{CellSpec, run};
    use crate::integrator::Control;
    use crate::params::Scalar;
    let scene = crate::scene::registry::find("box_stack").unwrap().build_default(&[]).unwrap();
    let params =
        [("cone", Scalar::Bool(true)), ("iterations", Scalar::Num(100_000.0)), ("residual_tol", Scalar::Num(1e-10))];
    for e in CONTACT_SOLVERS {
        let stiff = [("beta", Scalar::Num(1e-3))];
        let own: &[(&str, Scalar)] = if e.regularized { &stiff } else { &[] };
        let spec = CellSpec::named("pgs", &params, e.name, own, None, Control::Fixed { h: 1.0 / 60.0 }, 1.0)
            .unwrap()
            .sampled(0.1)
            .recording();
        let r = run(&scene, &spec);
        assert_eq!(r.summary.status.label(), "ok", "{}: {:?}", e.name, r.summary.status);
        let (first, last) = (&r.samples[0].q, &r.samples.last().unwrap().q);
        let moved = first.iter().zip(last).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        // A regularised solver's answer sits off the Coulomb one by R γ in velocity, R at most
        // (β²/4π² + σ) times the block's size: its residual relative to ‖q‖ is bounded by that.
        let bound = if e.regularized { 1e-6 / (4.0 * std::f64::consts::PI.powi(2)) + 1e-3 } else { 1e-10 };
        assert!(r.summary.max_solver_residual <= bound, "{}: {:e}", e.name, r.summary.max_solver_residual);
        assert!(moved < 1e-3, "{}: moved {moved} m", e.name);
        // Each sample counts the contacts within the margin: the 12 resting ones (4 per face of 3
        // stacked cubes) at the start, at most those after (parry's clipping of two exactly
        // coincident faces can lose the corners where rounding puts each face's corner just
        // outside the other: `pjacobi`'s lower pair has 2 of 4 at 0.4 s); the last sample
        // carries the run's largest residual to the summary.
        assert_eq!(r.samples[0].contacts, Some(12), "{}", e.name);
        assert!(r.samples.iter().all(|s| s.contacts.is_some_and(|n| n <= 12)), "{}", e.name);
        assert_eq!(r.samples.last().unwrap().max_solver_residual, r.summary.max_solver_residual);
    }
    let bead = crate::scene::registry::find("pendulum").unwrap().build_default(&[]).unwrap();
    let spec = CellSpec::named("pgs", &[], "nsgs", &[], None, Control::Fixed { h: 0.01 }, 0.1).unwrap();
    assert_eq!(run(&bead, &spec).summary.status.label(), "n/a");
}

/// Siconos' sparse-block storage reads to the same problem as its dense storage: a planar problem
/// of two contacts with W = [[A, B], [Bᵀ, C]] written both ways (blocks column by column); a
/// block structure that is not the contacts' (a 1 × 1 block), a pointer past the blocks, and
/// numbers after μ (a global file read as local) are refused with their reason.
#[test]
fn sparse_block_dat_reads_as_its_dense_twin_and_bad_structures_are_refused() {
    let dense = "2 2 0 4 4 4 4  4 1 0.5 0  1 3 0 0.2  0.5 0 5 2  0 0.2 2 6  -1 0.5 2 -0.3  0.3 0.6 1";
    let sparse = "2 2 1 4 4  4 2 2  2 4 2 4  3 4  0 2 4  0 1 0 1  0 4 1 1 3  1 0.5 0 0 0.2  2 0.5 0 0 0.2  3 5 2 2 6  -1 0.5 2 -0.3  0.3 0.6 1";
    let a = dat::from_text("dense", dense).unwrap();
    let b = dat::from_text("sparse", sparse).unwrap();
    assert_eq!((a.dim, &a.q, &a.mu), (b.dim, &b.q, &b.mu));
    let (ta, tb) = (a.w.triplets(), b.w.triplets());
    assert_eq!(ta, tb, "dense {ta:?}\nsparse {tb:?}");
    for (text, reason) in [
        (sparse.replacen("2 4 2 4", "1 4 2 4", 1), "is not 2 x 2"),
        (sparse.replacen("0 2 4", "0 2 9", 1), "is 9; expected an integer in [0, 4]"),
        (sparse.replacen("4 2 2", "400 2 2", 1), "the number of blocks is 400; expected an integer in [0, 4]"),
        (format!("{dense} 5 6 7"), "4 numbers follow mu"),
    ] {
        let e = dat::from_text("bad", &text).unwrap_err().to_string();
        assert!(e.contains(reason), "{e}");
    }
}
