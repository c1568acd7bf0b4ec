//! One evaluation of the chain's joint-coordinate dynamics, M(u) ü = Q(u, u̇), by the
//! articulated-body algorithm (`lagrangian`: positions, velocities, the inward and outward
//! passes), on the hanging chain from 10 to 10⁵ links (the 3D chain from 10 to 10⁴; 10 and 100
//! of each for `compare/pinocchio_aba.py`), in a bent and moving state. Counted per link, so divan's
//! items/s is links per second and the growth with N is read off the per-link time. Run: `cargo bench --bench lagrangian`.

use divan::{Bencher, black_box, counter::ItemsCount};
use tinkertoy::formulation::Gains;
use tinkertoy::formulation::lagrangian::Lagrangian;
use tinkertoy::integrator::SecondOrderOde;
use tinkertoy::linsolve::registry as solvers;
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;

fn main() {
    divan::main();
}

#[divan::bench(args = [10, 100, 1_000, 10_000, 100_000])]
fn chain_evaluation(bencher: Bencher, links: usize) {
    let mut scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num((links + 1) as f64))]).unwrap();
    // Bent (angles from 0 to −0.3 rad along the chain) and swinging (rates up to 1 rad/s).
    for i in 1..=links {
        let a = -0.3 * (i as f64 / links as f64);
        let w = (i as f64 * 0.37).sin();
        scene.q0[2 * i] = scene.q0[2 * i - 2] + 0.1 * a.cos();
        scene.q0[2 * i + 1] = scene.q0[2 * i - 1] + 0.1 * a.sin();
        scene.v0[2 * i] = scene.v0[2 * i - 2] - 0.1 * w * a.sin();
        scene.v0[2 * i + 1] = scene.v0[2 * i - 1] + 0.1 * w * a.cos();
    }
    let s = solvers::find("dense_lu").unwrap();
    let mut lg = Lagrangian::new(&scene, Gains { ks: 0.0, kd: 0.0 }, (s.build)(&s.params.defaults())).unwrap();
    let k = lg.dim();
    let (mut u, mut ud, mut a) = (vec![0.0; k], vec![0.0; k], vec![0.0; k]);
    lg.initial(&mut u, &mut ud);
    bencher.counter(ItemsCount::new(links)).bench_local(|| {
        lg.accel(black_box(&u), black_box(&ud), &mut a).unwrap();
        black_box(&a);
    });
}

/// The same on the 3D chain of cuboid links on ball joints (`chain_3d`, zig-zag start, at rest):
/// quaternion joint coordinates, 6D spatial algebra, joints of three coordinates.
#[divan::bench(args = [10, 100, 1_000, 10_000])]
fn chain_3d_evaluation(bencher: Bencher, links: usize) {
    let scene = scenes::find("chain_3d").unwrap().build_default(&[("n", Scalar::Num(links as f64))]).unwrap();
    let s = solvers::find("dense_lu").unwrap();
    let mut lg = Lagrangian::new(&scene, Gains { ks: 0.0, kd: 0.0 }, (s.build)(&s.params.defaults())).unwrap();
    let (mut u, mut ud, mut a) = (vec![0.0; lg.position_dim()], vec![0.0; lg.dim()], vec![0.0; lg.dim()]);
    lg.initial(&mut u, &mut ud);
    // Swinging: the first step's accelerations as velocities.
    lg.accel(&u, &ud, &mut a).unwrap();
    ud.copy_from_slice(&a);
    bencher.counter(ItemsCount::new(links)).bench_local(|| {
        lg.accel(black_box(&u), black_box(&ud), &mut a).unwrap();
        black_box(&a);
    });
}
