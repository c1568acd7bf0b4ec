//! J·x and Jᵀ·y on the hanging chain, 10³ to 10⁶ links: the cost per constraint row should be flat
//! (linear growth), since each block is visited once and nothing is assembled.
//!
//! Run: `cargo bench --bench jacobian`. divan prints time per call and, through the item counter,
//! rows per second; ns per row = 1e9 / (rows per second).

use divan::{Bencher, black_box, counter::ItemsCount};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry;
use tinkertoy::sparse::BlockJacobian;

fn main() {
    divan::main();
}

const LINKS: &[usize] = &[1_000, 10_000, 100_000, 1_000_000];

fn chain(links: usize) -> (BlockJacobian, usize, usize) {
    let scene = registry::find("chain").unwrap().build_default(&[("n", Scalar::Num((links + 1) as f64))]).unwrap();
    let sys = &scene.system;
    let mut q = scene.q0.clone();
    // Bend the chain so the link directions differ (values do not affect the cost, only realism).
    for (i, x) in q.iter_mut().enumerate() {
        *x += 1e-3 * ((i * 7919) % 101) as f64;
    }
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&q, &mut jac);
    (jac, sys.nrows(), sys.ndof())
}

#[divan::bench(args = LINKS, sample_count = 20)]
fn j_times_x(bencher: Bencher, links: usize) {
    let (jac, m, n) = chain(links);
    let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
    let mut y = vec![0.0; m];
    bencher.counter(ItemsCount::new(m)).bench_local(|| {
        jac.mul(black_box(&x), &mut y);
        black_box(&y);
    });
}

#[divan::bench(args = LINKS, sample_count = 20)]
fn jt_times_y(bencher: Bencher, links: usize) {
    let (jac, m, n) = chain(links);
    let y: Vec<f64> = (0..m).map(|i| (i as f64).cos()).collect();
    let mut x = vec![0.0; n];
    bencher.counter(ItemsCount::new(m)).bench_local(|| {
        jac.mul_t(black_box(&y), &mut x);
        black_box(&x);
    });
}

#[divan::bench(args = LINKS, sample_count = 20)]
fn fill_jacobian(bencher: Bencher, links: usize) {
    let scene = registry::find("chain").unwrap().build_default(&[("n", Scalar::Num((links + 1) as f64))]).unwrap();
    let mut jac = scene.system.jacobian_layout();
    bencher.counter(ItemsCount::new(scene.system.nrows())).bench_local(|| {
        scene.system.fill_jacobian(black_box(&scene.q0), &mut jac);
    });
}
