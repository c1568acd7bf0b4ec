//! Time per step on the hanging chain (10² … 10⁶ links) and on the cloth (about 10² … 10⁶
//! constraint rows), h = 1/60 s:
//! - `impulse` + `sparse_cholesky`: one stepper step (assembly + numeric refactor + solve);
//! - `impulse` + `gauss_seidel`: one step with 20 sequential-impulse sweeps (fixed cost); the
//!   same swept colour by colour (`coloring`), on one thread in AVX-512 lanes where the CPU has
//!   them (`simd`, the default) and one block at a time (`_one_lane`), and in tasks on the global
//!   rayon pool (`parallel`; as many threads as cores unless `RAYON_NUM_THREADS` says otherwise);
//! - `impulse` + `pcg_ic0`: one step, IC(0)-preconditioned CG to 1e-10 (one iteration on a chain);
//! - `force` + `cg`: one symplectic-Euler step = one right-hand-side evaluation (CG to 1e-8),
//!   advancing the simulation: each solve is warm-started from the previous step's λ, as in a run.
//!   The first (cold, λ = 0) solve is far more expensive — κ(J W Jᵀ) grows like N² on a chain — and
//!   shows up as the `slowest` sample; the median is the warm-started step. Only 10³ and 10⁴ links:
//!   a cold solve at 10⁵ takes minutes.
//!
//! Run: `cargo bench --bench step`. The chain starts bent so the solves are not trivial; the
//! impulse benchmarks restart from the same state so every sample measures the same work. The
//! cloth (W × W particles, structural links, two pinned corners, rows ≈ 2 W²) starts from its
//! sagging initial state.

use divan::{Bencher, black_box, counter::ItemsCount};
use tinkertoy::formulation::{Dynamics, registry as formulations};
use tinkertoy::integrator::{Integrator, SymplecticEuler};
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::params::{ParamTable, Resolved, Scalar};
use tinkertoy::scene::{Scene, registry as scenes};

fn main() {
    divan::main();
}

const LINKS: &[usize] = &[100, 1_000, 10_000, 100_000, 1_000_000];
/// Cloth side W: 2 W² ≈ 10², 10³, 10⁴, 10⁵, 10⁶ rows.
const CLOTH: &[usize] = &[7, 22, 71, 224, 707];

fn chain(links: usize) -> (Scene, Vec<f64>, Vec<f64>) {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num((links + 1) as f64))]).unwrap();
    let mut q = scene.q0.clone();
    for i in 1..=links {
        let a = -0.3 * (i as f64 / links as f64);
        q[2 * i] = q[2 * i - 2] + 0.1 * a.cos();
        q[2 * i + 1] = q[2 * i - 1] + 0.1 * a.sin();
    }
    let v = vec![0.0; q.len()];
    (scene, q, v)
}

fn params(table: ParamTable, given: &[(&str, Scalar)]) -> Resolved {
    table.with("bench", given).unwrap()
}

fn cloth(w: usize) -> (Scene, Vec<f64>, Vec<f64>) {
    let scene = scenes::find("cloth")
        .unwrap()
        .build_default(&[("width", Scalar::Num(w as f64)), ("height", Scalar::Num(w as f64))])
        .unwrap();
    let (q, v) = (scene.q0.clone(), scene.v0.clone());
    (scene, q, v)
}

fn impulse_step(bencher: Bencher, links: usize, solver: &str, sp: &[(&str, Scalar)]) {
    step_on(bencher, chain(links), solver, sp);
}

fn step_on(bencher: Bencher, state: (Scene, Vec<f64>, Vec<f64>), solver: &str, sp: &[(&str, Scalar)]) {
    stepper_on(bencher, state, ("impulse", &[]), solver, sp);
}

fn stepper_on(
    bencher: Bencher,
    (scene, q0, v0): (Scene, Vec<f64>, Vec<f64>),
    (formulation, fp): (&str, &[(&str, Scalar)]),
    solver: &str,
    sp: &[(&str, Scalar)],
) {
    let f = formulations::find(formulation).unwrap();
    let s = solvers::find(solver).unwrap();
    let Dynamics::Stepper(mut st) = (f.build)(&params(f.params, fp), &scene, (s.build)(&params(s.params, sp))).unwrap()
    else {
        unreachable!()
    };
    let (mut q, mut v) = (q0.clone(), v0.clone());
    bencher.counter(ItemsCount::new(scene.system.nrows())).bench_local(|| {
        q.copy_from_slice(&q0);
        v.copy_from_slice(&v0);
        st.step(black_box(1.0 / 60.0), &mut q, &mut v).unwrap();
    });
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_sparse_cholesky(bencher: Bencher, links: usize) {
    impulse_step(bencher, links, "sparse_cholesky", &[]);
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_gauss_seidel_20_sweeps(bencher: Bencher, links: usize) {
    impulse_step(
        bencher,
        links,
        "gauss_seidel",
        &[("max_iter", Scalar::Num(20.0)), ("require_convergence", Scalar::Bool(false))],
    );
}

/// The 20 sweeps' parameters, swept colour by colour, in tasks with `parallel`; the exact
/// residual once, after the last sweep (a game engine's fixed sweeps).
fn coloured(parallel: bool) -> [(&'static str, Scalar); 6] {
    coloured_lanes(parallel, true)
}

/// [`coloured`] with the SIMD lanes on or off (`simd`): the same iterates, to the bit.
fn coloured_lanes(parallel: bool, simd: bool) -> [(&'static str, Scalar); 6] {
    [
        ("max_iter", Scalar::Num(20.0)),
        ("check_every", Scalar::Num(20.0)),
        ("require_convergence", Scalar::Bool(false)),
        ("coloring", Scalar::Bool(true)),
        ("parallel", Scalar::Bool(parallel)),
        ("simd", Scalar::Bool(simd)),
    ]
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_gauss_seidel_20_coloured_sweeps(bencher: Bencher, links: usize) {
    impulse_step(bencher, links, "gauss_seidel", &coloured(false));
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_gauss_seidel_20_coloured_sweeps_one_lane(bencher: Bencher, links: usize) {
    impulse_step(bencher, links, "gauss_seidel", &coloured_lanes(false, false));
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_gauss_seidel_20_coloured_sweeps_parallel(bencher: Bencher, links: usize) {
    impulse_step(bencher, links, "gauss_seidel", &coloured(true));
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn impulse_pcg_ic0(bencher: Bencher, links: usize) {
    impulse_step(bencher, links, "pcg_ic0", &[("tol", Scalar::Num(1e-10))]);
}

/// XPBD with full Newton (geometric stiffness), one substep of two iterations: the cell that holds
/// the 1000-link chain at h = 1/60 s. Rows counted: the chain's constraint rows (the Newton system
/// has one more per link).
#[divan::bench(args = LINKS, sample_count = 10)]
fn xpbd_newton_1x2_envelope_ldlt(bencher: Bencher, links: usize) {
    let fp: &[(&str, Scalar)] = &[("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(2.0))];
    stepper_on(bencher, chain(links), ("xpbd_newton", fp), "envelope_ldlt", &[]);
}

#[divan::bench(args = LINKS, sample_count = 10)]
fn xpbd_newton_1x2_sparse_cholesky(bencher: Bencher, links: usize) {
    let fp: &[(&str, Scalar)] = &[("substeps", Scalar::Num(1.0)), ("iterations", Scalar::Num(2.0))];
    stepper_on(bencher, chain(links), ("xpbd_newton", fp), "sparse_cholesky", &[]);
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_pcg_ic0(bencher: Bencher, w: usize) {
    step_on(bencher, cloth(w), "pcg_ic0", &[("tol", Scalar::Num(1e-10)), ("max_iter", Scalar::Num(1e5))]);
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_sparse_cholesky(bencher: Bencher, w: usize) {
    step_on(bencher, cloth(w), "sparse_cholesky", &[]);
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_gauss_seidel_20_sweeps(bencher: Bencher, w: usize) {
    step_on(
        bencher,
        cloth(w),
        "gauss_seidel",
        &[("max_iter", Scalar::Num(20.0)), ("require_convergence", Scalar::Bool(false))],
    );
}

#[divan::bench(args = [1_000, 10_000], sample_count = 20)]
fn force_cg_symplectic_euler(bencher: Bencher, links: usize) {
    let (scene, q0, v0) = chain(links);
    let f = formulations::find("force").unwrap();
    let s = solvers::find("cg").unwrap();
    let Dynamics::Ode(mut ode) = (f.build)(
        &params(f.params, &[("omega", Scalar::Num(20.0))]),
        &scene,
        (s.build)(&params(s.params, &[("tol", Scalar::Num(1e-8)), ("max_iter", Scalar::Num(1e6))])),
    )
    .unwrap() else {
        unreachable!()
    };
    let mut integ = SymplecticEuler::new(1.0 / 60.0);
    integ.prepare(ode.position_dim(), ode.dim());
    let (mut q, mut v) = (q0, v0);
    bencher.counter(ItemsCount::new(scene.system.nrows())).bench_local(|| {
        integ.step(ode.as_mut(), &mut q, &mut v, 1.0).unwrap();
    });
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_gauss_seidel_20_coloured_sweeps(bencher: Bencher, w: usize) {
    step_on(bencher, cloth(w), "gauss_seidel", &coloured(false));
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_gauss_seidel_20_coloured_sweeps_one_lane(bencher: Bencher, w: usize) {
    step_on(bencher, cloth(w), "gauss_seidel", &coloured_lanes(false, false));
}

#[divan::bench(args = CLOTH, sample_count = 10)]
fn cloth_impulse_gauss_seidel_20_coloured_sweeps_parallel(bencher: Bencher, w: usize) {
    step_on(bencher, cloth(w), "gauss_seidel", &coloured(true));
}
