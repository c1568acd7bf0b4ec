//! The direct solvers `sparse_cholesky`, `envelope_ldlt` and `tree_ldlt` on the chain's J W Jᵀ, 10³ to 10⁶ rows,
//! J fixed (a bent chain):
//! - `refactor_and_solve`: `LinearSolver::solve` = assembly of J W Jᵀ into the fixed pattern,
//!   numeric factorization into reused buffers, triangular solves, and the residual check;
//! - `solve_same`: the triangular solves (and residual) with the existing factorization.
//!
//! The symbolic analysis (ordering, elimination tree or envelope) runs once in `prepare`, outside
//! the timing.
//!
//! - `contact_iteration`: the contact solvers (0 nsgs, 1 psor, 2 pjacobi), ns per contact per
//!   iteration at 10, 100 and 1000 contacts.
//!
//! - `bandwidth_read`, `bandwidth_triad`: the machine's streaming bandwidth, for the 10⁶-row
//!   figures (the bench first prints the bytes per row `envelope_ldlt`'s solve streams).
//!
//! Run: `cargo bench --bench linsolve`; ns per row = 1e9 / (rows per second).

use divan::{
    Bencher, black_box,
    counter::{BytesCount, ItemsCount},
};
use tinkertoy::linsolve::{EnvelopeLdlt, LinearSolver, Operator, Reg, SparseCholesky, TreeLdlt};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::NormalMatrix;

fn main() {
    // What `envelope_ldlt`'s solve streams per row, to read its time against `bandwidth_read`.
    for rows in [ROWS[0], ROWS[ROWS.len() - 1]] {
        let (scene, jac, pattern) = setup(rows);
        let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
        let mut e = EnvelopeLdlt::default();
        e.prepare(&op).unwrap();
        let jw = 8 * (jac.nnz() + scene.system.inv_mass().len());
        println!(
            "envelope_ldlt on the chain at {rows} rows: {:.0} bytes per row in its own arrays, {:.0} in J's values and W",
            e.bytes_per_solve() as f64 / rows as f64,
            jw as f64 / rows as f64
        );
    }
    divan::main();
}

const ROWS: &[usize] = &[1_000, 10_000, 100_000, 1_000_000];

fn setup(rows: usize) -> (tinkertoy::scene::Scene, tinkertoy::sparse::BlockJacobian, NormalMatrix) {
    // n particles give n + 1 rows (2 pin rows + n − 1 links).
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num((rows - 1) as f64))]).unwrap();
    let mut q = scene.q0.clone();
    let n = q.len() / 2;
    for i in 1..n {
        let a = -0.3 * (i as f64 / n as f64);
        q[2 * i] = q[2 * i - 2] + 0.1 * a.cos();
        q[2 * i + 1] = q[2 * i - 1] + 0.1 * a.sin();
    }
    let mut jac = scene.system.jacobian_layout();
    scene.system.fill_jacobian(&q, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    (scene, jac, pattern)
}

/// Times `LinearSolver::solve` (`refactor` = true) or `solve_same` after one factorization.
fn bench_solver<S: LinearSolver + Default>(bencher: Bencher, rows: usize, refactor: bool) {
    let (scene, jac, pattern) = setup(rows);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut s = S::default();
    s.prepare(&op).unwrap();
    let m = op.dim();
    let b: Vec<f64> = (0..m).map(|i| (i as f64).sin()).collect();
    let mut x = vec![0.0; m];
    s.solve(&op, &b, &mut x).unwrap();
    bencher.counter(ItemsCount::new(m)).bench_local(|| {
        if refactor {
            s.solve(&op, black_box(&b), &mut x).unwrap();
        } else {
            s.solve_same(&op, black_box(&b), &mut x).unwrap();
        }
    });
}

#[divan::bench(types = [SparseCholesky, EnvelopeLdlt, TreeLdlt], args = ROWS, sample_count = 10)]
fn refactor_and_solve<S: LinearSolver + Default>(bencher: Bencher, rows: usize) {
    bench_solver::<S>(bencher, rows, true);
}

#[divan::bench(types = [SparseCholesky, EnvelopeLdlt, TreeLdlt], args = ROWS, sample_count = 10)]
fn solve_same<S: LinearSolver + Default>(bencher: Bencher, rows: usize) {
    bench_solver::<S>(bencher, rows, false);
}

/// The machine's streaming read bandwidth, to read the per-row figures at 10⁶ rows against (a
/// solve that streams B bytes per row cannot take less than B / bandwidth per row): the sum of
/// a 256 MiB array (larger than any cache) in eight independent lanes, counted in bytes, so
/// divan's B/s column is the bandwidth.
#[divan::bench(sample_count = 10)]
fn bandwidth_read(bencher: Bencher) {
    let b = vec![1.0f64; STREAM];
    bencher.counter(BytesCount::new(8 * STREAM)).bench_local(|| {
        let mut acc = [0.0; 8];
        for chunk in black_box(&b).chunks_exact(8) {
            for (s, x) in acc.iter_mut().zip(chunk) {
                *s += x;
            }
        }
        black_box(acc)
    });
}

/// The same for a triad a = b + s c over three 256 MiB arrays: 24 bytes per element counted (the
/// write-allocate read of a is not).
#[divan::bench(sample_count = 10)]
fn bandwidth_triad(bencher: Bencher) {
    let (mut a, b, c) = (vec![0.0f64; STREAM], vec![1.0f64; STREAM], vec![2.0f64; STREAM]);
    bencher.counter(BytesCount::new(24 * STREAM)).bench_local(|| {
        for ((x, y), z) in a.iter_mut().zip(black_box(&b)).zip(&c) {
            *x = y + 0.5 * z;
        }
        black_box(&a);
    });
}

/// Elements of each bandwidth probe's arrays (2²⁵ f64 = 256 MiB).
const STREAM: usize = 1 << 25;

/// A hub: one pinned particle with `spokes` particles on rods around it (a star, no loop). Every
/// rod row shares the hub's coordinates, so J W Jᵀ is dense over the rods: `envelope_ldlt` and
/// `sparse_cholesky` factor a dense block (cubic work), `tree_ldlt` eliminates the spokes into the
/// hub one at a time (linear). `refactor_and_solve` at 100 and 1000 spokes.
#[divan::bench(types = [SparseCholesky, EnvelopeLdlt, TreeLdlt], args = [100, 1_000], sample_count = 10)]
fn star<S: LinearSolver + Default>(bencher: Bencher, spokes: usize) {
    use tinkertoy::constraint::{Distance, Pin};
    use tinkertoy::model::Body;
    use tinkertoy::system::System;
    let mut sys = System::new();
    let mut q = vec![0.0, 0.0];
    sys.add_body(Body::particle2(1.0)).unwrap();
    sys.add_constraint(Box::new(Pin::new(0, 2, [0.0; 3]))).unwrap();
    for i in 1..=spokes {
        let a = i as f64 * std::f64::consts::TAU / spokes as f64;
        sys.add_body(Body::particle2(1.0)).unwrap();
        sys.add_constraint(Box::new(Distance::between(i, 0, 2, 1.0))).unwrap();
        q.extend_from_slice(&[a.cos(), a.sin()]);
    }
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&q, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: sys.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut s = S::default();
    s.prepare(&op).unwrap();
    let m = op.dim();
    let b: Vec<f64> = (0..m).map(|i| (i as f64).sin()).collect();
    let mut x = vec![0.0; m];
    bencher.counter(ItemsCount::new(m)).bench_local(|| {
        s.solve(&op, black_box(&b), &mut x).unwrap();
    });
}

/// Contact solvers on a row of `contacts` contacts coupled to their neighbours, W = T ⊗ I₃ with T
/// tridiagonal (1 on the diagonal, −0.4 off it: SPD), q = (−1, 0.3, −0.2) per contact (pressed
/// and sliding), μ = 0.5: ten iterations of each solver (tol 0, so none stops early), counted
/// per contact per iteration. An iteration includes the residual check every solver runs (one
/// sparse product W r + q and the natural map). Growth exponent from 10 to 1000 contacts: the
/// slope of log(time) against log(contacts).
#[divan::bench(args = [10, 100, 1_000], consts = [0, 1, 2], sample_count = 10)]
fn contact_iteration<const SOLVER: usize>(bencher: Bencher, contacts: usize) {
    use tinkertoy::friction::cone::Normalisation;
    use tinkertoy::friction::solvers::{CONTACT_SOLVERS, Stop};
    use tinkertoy::friction::{Csr, LocalProblem};
    let m = 3 * contacts;
    let mut t = Vec::new();
    for a in 0..contacts {
        for k in 0..3 {
            t.push((3 * a + k, 3 * a + k, 1.0));
            if a + 1 < contacts {
                t.push((3 * a + k, 3 * (a + 1) + k, -0.4));
                t.push((3 * (a + 1) + k, 3 * a + k, -0.4));
            }
        }
    }
    let q = (0..m).map(|i| [-1.0, 0.3, -0.2][i % 3]).collect();
    let p = LocalProblem {
        name: "row".into(),
        dim: 3,
        w: Csr::from_triplets(m, m, &t),
        q,
        mu: vec![0.5; contacts],
        guesses: Vec::new(),
    };
    let entry = &CONTACT_SOLVERS[SOLVER];
    let stop = Stop { tol: 0.0, max_iter: 10, seconds: f64::INFINITY, norm: Normalisation::Q, history: false };
    bencher.counter(ItemsCount::new(10 * contacts)).bench_local(|| {
        let mut solver = (entry.build)(&entry.params.defaults());
        let mut r = vec![0.0; m];
        black_box(solver.solve(&p, &mut r, &stop));
    });
}
