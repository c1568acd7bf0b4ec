//! The direct solvers `sparse_cholesky`, `envelope_ldlt` and `tree_ldlt` on the chain's J W Jᵀ, 10³ to 10⁶ rows,
//! J fixed (a bent chain):
//! - `refactor_and_solve`: `LinearSolver::solve` = assembly of J W Jᵀ into the fixed pattern,
//!   numeric factorization into reused buffers, triangular solves, and the residual check;
//! - `solve_same`: the triangular solves (and residual) with the existing factorization.
//!
//! The symbolic analysis (ordering, elimination tree or envelope) runs once in `prepare`, outside
//! the timing.
//!
//! Run: `cargo bench --bench linsolve`; ns per row = 1e9 / (rows per second).

use divan::{Bencher, black_box, counter::ItemsCount};
use tinkertoy::linsolve::{EnvelopeLdlt, LinearSolver, Operator, Reg, SparseCholesky, TreeLdlt};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::NormalMatrix;

fn main() {
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
