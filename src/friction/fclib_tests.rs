//! Contact problems as data: every shipped FCLIB file reads with its kind and sizes, global
//! problems (with and without bilateral constraints) reduce to local ones that agree with the
//! global equations, problems written as FCLIB read back exactly, the stored guesses' residuals
//! match the independent implementation, and hostile files get one reason and no panic.

use super::cone::{Normalisation, natural_map_norm};
use super::fclib::{self, Info, Problem};
use super::tests::{data, local};
use super::*;

#[test]
fn every_shipped_fclib_file_loads_with_its_kind_and_sizes() {
    for (file, global, contacts, mu) in [
        ("local_problem_test.hdf5", false, 48, 0.7),
        ("Capsules-i125-1213.hdf5", false, 286, 0.7),
        ("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", false, 60, 0.5),
        ("Box_Stacks-i0122-82-5.hdf5", true, 82, 0.3),
        ("Spheres-i099-356-679.hdf5", true, 356, 0.7),
        ("spheres-in-a-box-98-i10000-256-10.hdf5", true, 256, 0.1),
    ] {
        let (p, _) = fclib::read(&data(file)).unwrap();
        let (dim, n_mu, mu0) = match &p {
            Problem::Local(l) => (l.dim, l.mu.len(), l.mu[0]),
            Problem::Global(g) => (g.dim, g.mu.len(), g.mu[0]),
        };
        assert_eq!((matches!(p, Problem::Global(_)), dim, n_mu, mu0), (global, 3, contacts, mu), "{file}");
    }
}

/// W r + q of the reduced problem against the global equations solved directly: M v = H r + f by
/// conjugate gradients on M (a different path from the block inversion), u = Hᵀ v + w.
#[test]
fn global_problems_reduce_to_local_ones_that_agree_with_the_global_equations() {
    for file in ["Box_Stacks-i0122-82-5.hdf5", "spheres-in-a-box-98-i10000-256-10.hdf5", "Spheres-i099-356-679.hdf5"] {
        let Problem::Global(g) = fclib::read(&data(file)).unwrap().0 else { panic!("{file} is global") };
        let p = g.reduce().unwrap();
        let m = p.q.len();
        let r: Vec<f64> = (0..m).map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.3).collect();
        let mut u = vec![0.0; m];
        p.velocity(&r, &mut u);
        let n = g.m.nrows;
        let mut b = vec![0.0; n];
        g.h.mul(&r, &mut b);
        for (bi, fi) in b.iter_mut().zip(&g.f) {
            *bi += fi;
        }
        // CG on M v = b.
        let (mut v, mut res, mut dir, mut mp) = (vec![0.0; n], b.clone(), b.clone(), vec![0.0; n]);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let mut rr = dot(&res, &res);
        let b2 = rr;
        for _ in 0..10 * n {
            if rr <= 1e-32 * b2 {
                break;
            }
            g.m.mul(&dir, &mut mp);
            let alpha = rr / dot(&dir, &mp);
            for k in 0..n {
                v[k] += alpha * dir[k];
                res[k] -= alpha * mp[k];
            }
            let rr_new = dot(&res, &res);
            for k in 0..n {
                dir[k] = res[k] + rr_new / rr * dir[k];
            }
            rr = rr_new;
        }
        let ht = g.h.transpose();
        let mut u2 = vec![0.0; m];
        ht.mul(&v, &mut u2);
        for (x, w) in u2.iter_mut().zip(&g.w) {
            *x += w;
        }
        let scale = u2.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let diff = u.iter().zip(&u2).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        assert!(diff <= 1e-12 * scale, "{file}: {diff:e} of {scale:e}");
        // And the residual of the reduced problem is the global one.
        let a = natural_map_norm(3, &p.mu, &r, &u);
        let b = natural_map_norm(3, &p.mu, &r, &u2);
        assert!((a - b).abs() <= 1e-12 * a, "{file}: {a} {b}");
    }
}

/// Box_Stacks with four bilateral constraints added (G: four columns over a few velocity
/// coordinates, b ≠ 0): the reduced problem (λ eliminated through Gᵀ M⁻¹ G) gives the contact
/// velocities of the mixed problem M v = H r + G λ + f, Gᵀ v + b = 0 solved independently, as
/// one dense LU of its saddle-point matrix, to κ · n · ε (κ that matrix's condition number);
/// written as FCLIB and read back, the problem is the same.
#[test]
fn bilateral_constraints_are_eliminated_as_the_mixed_problem_solves_them() {
    let Problem::Global(mut g) = fclib::read(&data("Box_Stacks-i0122-82-5.hdf5")).unwrap().0 else { panic!("global") };
    let plain = g.reduce().unwrap();
    let (n, pb) = (g.m.nrows, 4);
    let gt: Vec<(usize, usize, f64)> =
        (0..pb).flat_map(|c| (0..3).map(move |k| ((7 * c + 11 * k + 3) % n, c, 1.0 - 0.4 * k as f64))).collect();
    let b: Vec<f64> = (0..pb).map(|c| 0.1 * (c as f64 - 1.5)).collect();
    g.bilateral = Some((Csr::from_triplets(n, pb, &gt), b.clone()));
    let p = g.reduce().unwrap();
    let m = p.q.len();
    let r: Vec<f64> = (0..m).map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.3).collect();
    let mut u = vec![0.0; m];
    p.velocity(&r, &mut u);
    // The mixed problem: [M −G; Gᵀ 0] (v, λ) = (H r + f, −b).
    let mut k = nalgebra::DMatrix::<f64>::zeros(n + pb, n + pb);
    for (i, j, v) in g.m.triplets() {
        k[(i, j)] = v;
    }
    for &(i, c, v) in &gt {
        k[(i, n + c)] -= v;
        k[(n + c, i)] += v;
    }
    let mut rhs = nalgebra::DVector::<f64>::zeros(n + pb);
    let mut hr = vec![0.0; n];
    g.h.mul(&r, &mut hr);
    for i in 0..n {
        rhs[i] = hr[i] + g.f[i];
    }
    for c in 0..pb {
        rhs[n + c] = -b[c];
    }
    let kappa = {
        let sv = k.clone().singular_values();
        sv.max() / sv.min()
    };
    let x = k.lu().solve(&rhs).unwrap();
    let mut u2 = vec![0.0; m];
    g.h.transpose().mul(&x.as_slice()[..n], &mut u2);
    for (a, w) in u2.iter_mut().zip(&g.w) {
        *a += w;
    }
    let scale = u2.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let diff = u.iter().zip(&u2).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    let tol = kappa * (n + pb) as f64 * f64::EPSILON * scale;
    assert!(diff <= tol, "reduced vs mixed: {diff:e} > {tol:e} (kappa {kappa:e})");
    // The constraints matter: without them the velocities differ by far more.
    let mut u0 = vec![0.0; m];
    plain.velocity(&r, &mut u0);
    let moved = u0.iter().zip(&u2).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    assert!(moved > 1e3 * tol, "{moved:e}");
    // Written as FCLIB (G and b included) and read back: the same problem.
    let info = Info { title: "mixed".into(), description: "bilateral".into(), math_info: String::new() };
    let bytes = fclib::global_to_bytes(&g, &info).unwrap();
    // For the independent check (compare/fclib_residual.py reads it with h5py and numpy).
    if let Some(path) = std::env::var_os("TINKERTOY_WRITE_MIXED_FCLIB") {
        std::fs::write(path, &bytes).unwrap();
    }
    assert_eq!(fclib::from_bytes(&g.name, bytes).unwrap().0, Problem::Global(g.clone()));
    // Dependent constraints (a column repeated) are refused with the reason.
    let mut dup = gt.clone();
    dup.extend(gt.iter().filter(|t| t.1 == 0).map(|&(i, _, v)| (i, pb, v)));
    g.bilateral = Some((Csr::from_triplets(n, pb + 1, &dup), vec![0.0; pb + 1]));
    let e = g.reduce().unwrap_err();
    assert!(matches!(&e, super::ProblemError::Singular(m) if m.contains("dependent")), "{e:?}");
}

#[test]
fn a_local_problem_written_as_fclib_reads_back_exactly() {
    let p = local("local_problem_test.hdf5");
    let info =
        Info { title: "round trip".into(), description: "written by the tests".into(), math_info: String::new() };
    let bytes = fclib::local_to_bytes(&p, &info).unwrap();
    let (back, back_info) = fclib::from_bytes(&p.name, bytes).unwrap();
    assert_eq!(back, Problem::Local(p));
    assert_eq!(back_info.title, "round trip");
}

/// The residual of every shipped problem's non-zero guess, against the values the independent
/// numpy/h5py implementation (`compare/fclib_residual.py`) printed for the same files.
#[test]
fn the_residual_of_the_stored_guesses_matches_the_independent_implementation() {
    for (file, expected) in [("Capsules-i125-1213.hdf5", 1.113712e-02), ("local_problem_test.hdf5", 3.262420e+00)] {
        let p = local(file);
        let mut u = vec![0.0; p.q.len()];
        p.velocity(&p.guesses[0], &mut u);
        let got = natural_map_norm(p.dim, &p.mu, &p.guesses[0], &u) / Normalisation::Q.divisor(&p.q);
        // The script prints 7 significant digits.
        assert!((got - expected).abs() <= 5e-7 * expected, "{file}: {got:e} vs {expected:e}");
    }
}

#[test]
fn hostile_or_malformed_files_get_one_reason_and_no_panic() {
    let good = std::fs::read(data("local_problem_test.hdf5")).unwrap();
    let truncated = good[..good.len() / 3].to_vec();
    let random: Vec<u8> = (0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    for (what, bytes) in [("truncated", truncated), ("random bytes", random)] {
        let e = fclib::from_bytes(what, bytes).unwrap_err().to_string();
        assert!(!e.is_empty() && !e.contains('\n'), "{what}: {e}");
    }
    // Declared sizes that the data does not hold, a NaN, and a missing group.
    let build = |tweak: &dyn Fn(&mut hdf5_pure::FileBuilder)| {
        let mut b = hdf5_pure::FileBuilder::new();
        tweak(&mut b);
        b.finish().unwrap()
    };
    let local_with = |nz: i32, p: &[i32], q: &[f64]| {
        let (p, q) = (p.to_vec(), q.to_vec());
        build(&move |b: &mut hdf5_pure::FileBuilder| {
            let mut g = b.create_group("fclib_local");
            g.create_dataset("spacedim").with_i32_data(&[3]);
            let mut w = g.create_group("W");
            for (k, v) in [("nzmax", 1), ("m", 3), ("n", 3), ("nz", nz)] {
                w.create_dataset(k).with_i32_data(&[v]);
            }
            w.create_dataset("p").with_i32_data(&p);
            w.create_dataset("i").with_i32_data(&[0]);
            w.create_dataset("x").with_f64_data(&[1.0]);
            g.add_group(w.finish());
            let mut v = g.create_group("vectors");
            v.create_dataset("q").with_f64_data(&q);
            v.create_dataset("mu").with_f64_data(&[0.5]);
            g.add_group(v.finish());
            b.add_group(g.finish());
        })
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("billion triplets", local_with(1_000_000_000, &[0], &[1.0, 0.0, 0.0]), "nz declares 1000000000 triplets"),
        ("pointer past the data", local_with(-2, &[0, 5, 5, 5], &[1.0, 0.0, 0.0]), "p declares 5 entries"),
        ("NaN in q", local_with(1, &[0], &[f64::NAN, 0.0, 0.0]), "vectors/q[0] is NaN"),
        (
            "no fclib group",
            build(&|b: &mut hdf5_pure::FileBuilder| {
                b.create_dataset("x").with_f64_data(&[1.0]);
            }),
            "no group /fclib_local or /fclib_global",
        ),
    ];
    for (what, bytes, expected) in cases {
        let e = fclib::from_bytes(what, bytes).unwrap_err().to_string();
        assert!(e.contains(expected), "{what}: {e}");
    }
    // A Siconos text file declaring a million contacts in a few bytes: refused before W is sized.
    let e = dat::from_text("huge.dat", "3 1000000 0 3000000 3000000").unwrap_err().to_string();
    assert!(e.contains("the file holds 5"), "{e}");
}
