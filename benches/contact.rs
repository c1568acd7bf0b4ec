//! Collision detection: the narrow phase's cost per touching box pair (parry's box–box manifold),
//! and the broad phase's growth from 10³ to 10⁵ bodies (the hashed grid over spheres scattered at
//! a fixed density: the pairs found grow linearly, so should the time); the same in the plane
//! (squares and circles on rigid-2D bodies, parry's 2D build).
//!
//! Run: `cargo bench --bench contact`. divan prints time per detection and, through the item
//! counter, pairs or bodies per second; ns per item = 1e9 / (items per second).

use divan::{Bencher, black_box, counter::ItemsCount};
use tinkertoy::contact::{Contact, ContactSet, Detector, Material, Shape};

fn main() {
    divan::main();
}

fn material() -> Material {
    Material { friction: 0.5, restitution: 0.0, restitution_threshold: 1.0 }
}

/// A fixed sequence of numbers uniform in [0, 1) (xorshift64), the same every run.
fn uniform() -> impl FnMut() -> f64 {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Positions and unit quaternions (x, y, z, w, qx, qy, qz) for `n` bodies from `place`.
fn state(n: usize, place: impl Fn(usize) -> ([f64; 3], [f64; 4])) -> (Vec<usize>, Vec<f64>) {
    let mut q = Vec::with_capacity(7 * n);
    for i in 0..n {
        let (x, r) = place(i);
        q.extend_from_slice(&x);
        q.extend_from_slice(&r);
    }
    ((0..n).map(|i| 7 * i).collect(), q)
}

/// `pairs` pairs of 0.2 m cubes, each pair one on the other, the upper turned 0.3 rad about the
/// vertical and 1 mm into the lower (a face–face manifold, clipped), the pairs 1 m apart.
#[divan::bench(args = [10, 100, 1000], sample_count = 20)]
fn narrow_phase_per_box_pair(bencher: Bencher, pairs: usize) {
    let set = ContactSet {
        shapes: (0..2 * pairs).map(|b| (b, Shape::Cuboid { half: [0.1; 3] })).collect(),
        planes: Vec::new(),
        material: material(),
        margin: 0.01,
    };
    let (s, c) = (0.15f64.sin(), 0.15f64.cos());
    let (offsets, q) = state(2 * pairs, |i| {
        let x = (i / 2) as f64;
        if i % 2 == 0 { ([x, 0.0, 0.1], [1.0, 0.0, 0.0, 0.0]) } else { ([x, 0.0, 0.299], [c, 0.0, 0.0, s]) }
    });
    let mut det = Detector::new(&set);
    let mut out: Vec<Contact> = Vec::new();
    det.detect(&set, &offsets, &q, &mut out);
    assert!(out.len() >= 4 * pairs, "{} contacts", out.len());
    bencher.counter(ItemsCount::new(pairs)).bench_local(|| {
        det.detect(&set, &offsets, black_box(&q), &mut out);
        black_box(&out);
    });
}

/// `n` spheres of radius 0.05 m at one per 0.001 m³ (a cube of side n^(1/3)/10 m), positions
/// from a fixed sequence: a few percent of the spheres touch; every detection rebuilds the grid
/// (as every step does).
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 20)]
fn broad_phase_scattered_spheres(bencher: Bencher, n: usize) {
    let set = ContactSet {
        shapes: (0..n).map(|b| (b, Shape::Sphere { radius: 0.05 })).collect(),
        planes: Vec::new(),
        material: material(),
        margin: 0.005,
    };
    let side = (n as f64).cbrt() / 10.0;
    let mut uniform = uniform();
    let points: Vec<[f64; 3]> = (0..n).map(|_| [side * uniform(), side * uniform(), side * uniform()]).collect();
    let (offsets, q) = state(n, |i| (points[i], [1.0, 0.0, 0.0, 0.0]));
    let mut det = Detector::new(&set);
    let mut out: Vec<Contact> = Vec::new();
    det.detect(&set, &offsets, &q, &mut out);
    bencher.counter(ItemsCount::new(n)).bench_local(|| {
        det.detect(&set, &offsets, black_box(&q), &mut out);
        black_box(&out);
    });
}

/// In the plane: `pairs` pairs of 0.2 m squares, the upper turned 0.3 rad and 1 mm into the
/// lower (a clipped edge–edge manifold of parry's 2D build), the pairs 1 m apart.
#[divan::bench(args = [10, 100, 1000], sample_count = 20)]
fn narrow_phase_per_square_pair_in_the_plane(bencher: Bencher, pairs: usize) {
    let set = ContactSet {
        shapes: (0..2 * pairs).map(|b| (b, Shape::Rectangle { half: [0.1; 2] })).collect(),
        planes: Vec::new(),
        material: material(),
        margin: 0.01,
    };
    let d = 0.1 * (0.3f64.cos() + 0.3f64.sin());
    let q: Vec<f64> = (0..2 * pairs)
        .flat_map(|i| {
            let x = (i / 2) as f64;
            if i % 2 == 0 { [x, 0.1, 0.0] } else { [x, 0.2 + d - 0.001, 0.3] }
        })
        .collect();
    let offsets: Vec<usize> = (0..2 * pairs).map(|i| 3 * i).collect();
    let mut det = Detector::new(&set);
    let mut out: Vec<Contact> = Vec::new();
    det.detect(&set, &offsets, &q, &mut out);
    assert!(out.len() >= pairs, "{} contacts", out.len());
    bencher.counter(ItemsCount::new(pairs)).bench_local(|| {
        det.detect(&set, &offsets, black_box(&q), &mut out);
        black_box(&out);
    });
}

/// In the plane: `n` circles of radius 0.05 m at one per 0.01 m² (a square of side √n/10 m),
/// positions from a fixed sequence; every detection rebuilds the grid.
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 20)]
fn broad_phase_scattered_circles_in_the_plane(bencher: Bencher, n: usize) {
    let set = ContactSet {
        shapes: (0..n).map(|b| (b, Shape::Circle { radius: 0.05 })).collect(),
        planes: Vec::new(),
        material: material(),
        margin: 0.005,
    };
    let side = (n as f64).sqrt() / 10.0;
    let mut uniform = uniform();
    let q: Vec<f64> = (0..n).flat_map(|_| [side * uniform(), side * uniform(), 0.0]).collect();
    let offsets: Vec<usize> = (0..n).map(|i| 3 * i).collect();
    let mut det = Detector::new(&set);
    let mut out: Vec<Contact> = Vec::new();
    det.detect(&set, &offsets, &q, &mut out);
    bencher.counter(ItemsCount::new(n)).bench_local(|| {
        det.detect(&set, &offsets, black_box(&q), &mut out);
        black_box(&out);
    });
}
