//! Work counters of a fixed set of cells, pinned by a snapshot (insta): accepted and rejected
//! steps, right-hand-side evaluations, linear solves and solver iterations are deterministic
//! (wall time is not, and is not pinned), so a change that doubles a cell's solves or iterations
//! fails here even when every accuracy test still passes. The set covers every formulation,
//! every integrator, direct and iterative solvers and the projection stabilizer. An intended
//! change of cost is accepted by reviewing the new snapshot (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test --release --test conformance` and reading the diff).

use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::integrator::Control;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;

/// (scene, scene overrides, formulation, its overrides, solver, its overrides, integrator,
/// control, stabilizer)
type Case = (
    &'static str,
    &'static [(&'static str, f64)],
    &'static str,
    &'static [(&'static str, Scalar)],
    &'static str,
    &'static [(&'static str, Scalar)],
    Option<&'static str>,
    Control,
    &'static str,
);

const H: Control = Control::Fixed { h: 1.0 / 60.0 };
const TOL: Control = Control::Adaptive { rtol: 1e-8, atol: 1e-8 };
const PENDULUM: &[(&str, f64)] = &[("theta0", 1.0)];
const CHAIN: &[(&str, f64)] = &[("n", 30.0)];
const ITERATIVE: &[(&str, Scalar)] = &[("tol", Scalar::Num(1e-8))];
/// A fixed sweep budget, as sequential impulses are used in engines.
const SWEEPS: &[(&str, Scalar)] = &[("max_iter", Scalar::Num(20.0)), ("require_convergence", Scalar::Bool(false))];

const CASES: &[Case] = &[
    (
        "pendulum",
        PENDULUM,
        "force",
        &[("omega", Scalar::Num(10.0))],
        "dense_lu",
        &[],
        Some("explicit_euler"),
        H,
        "none",
    ),
    ("pendulum", PENDULUM, "force", &[], "dense_lu", &[], Some("symplectic_euler"), H, "none"),
    ("pendulum", PENDULUM, "force", &[], "dense_lu", &[], Some("verlet"), H, "none"),
    ("pendulum", PENDULUM, "force", &[], "dense_cholesky", &[], Some("rk4"), H, "none"),
    ("pendulum", PENDULUM, "force", &[], "dense_lu", &[], Some("dopri5"), TOL, "none"),
    ("pendulum", PENDULUM, "lagrangian", &[], "dense_lu", &[], Some("dop853"), TOL, "none"),
    ("pendulum", PENDULUM, "lagrangian", &[], "dense_cholesky", &[], Some("rk4"), H, "none"),
    ("chain", CHAIN, "force", &[("omega", Scalar::Num(10.0))], "cg", ITERATIVE, Some("rk4"), H, "projection"),
    ("chain", CHAIN, "impulse", &[], "sparse_cholesky", &[], None, H, "none"),
    ("chain", CHAIN, "impulse", &[], "gauss_seidel", SWEEPS, None, H, "none"),
    ("chain", CHAIN, "impulse", &[], "pcg_ic0", ITERATIVE, None, H, "none"),
    ("chain", CHAIN, "impulse", &[], "jacobi", SWEEPS, None, H, "none"),
    ("pendulum", PENDULUM, "rattle", &[], "envelope_ldlt", &[], None, H, "none"),
    ("chain", CHAIN, "xpbd", &[], "sparse_cholesky", &[], None, H, "none"),
    (
        "chain",
        CHAIN,
        "xpbd_newton",
        &[("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(3.0)), ("tol", Scalar::Num(1e-9))],
        "envelope_ldlt",
        &[],
        None,
        H,
        "none",
    ),
    ("chain", CHAIN, "soft_step", &[], "sparse_cholesky", &[], None, H, "projection"),
    ("box_stack", &[], "pgs", &[], "gauss_seidel", &[], None, H, "none"),
    ("door", &[], "impulse", &[], "dense_cholesky", &[], None, H, "projection"),
];

#[test]
fn work_counters_of_the_reference_cells_are_unchanged() {
    let mut table = String::from(
        "scene | formulation | solver | integrator | stabilizer : steps rejected rhs_evals solves iterations\n",
    );
    for &(scene, sp, f, fp, s, ssp, i, control, st) in CASES {
        let given: Vec<(&str, Scalar)> = sp.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
        let built = scenes::find(scene).unwrap().build_default(&given).unwrap();
        let spec = CellSpec::named(f, fp, s, ssp, i, control, 2.0).and_then(|c| c.stabilized(st, &[])).unwrap();
        let r = run(&built, &spec);
        assert!(r.summary.status.is_ok(), "{scene} {f} {s}: {:?}", r.summary.status);
        let c = r.summary.counters;
        let fp_text: Vec<String> = fp.iter().map(|(k, v)| format!("{k}={v}")).collect();
        table.push_str(&format!(
            "{scene} | {f}({}) | {s} | {} | {st} : {} {} {} {} {}\n",
            fp_text.join(","),
            i.unwrap_or("stepper"),
            c.steps,
            c.rejected,
            c.rhs_evals,
            c.linear_solves,
            c.solver_iterations
        ));
    }
    insta::assert_snapshot!(table);
}
