//! Writes the model files of parametrised benchmark families (a model file holds numbers, not
//! expressions, so a family is generated, one file per member):
//!
//!     cargo run --release --example make_models
//!
//! IFToMM benchmark A02, the N-four-bar mechanism (González, Dopico, Lugrís & Cuadrado, "Library
//! of computational benchmark problems", IFToMM Technical Committee for Multibody Dynamics; after
//! Bayo & Avello 1994): N parallelogram windows of 2N + 1 uniform bars (1 m, 1 kg each), N + 1
//! cranks pivoted at (i, 0) and N horizontal couplers between the crank tips B_{i-1} and B_i.
//! Gravity 9.81 m/s² along -y. Starts with every crank vertical and B0 moving at 1 m/s along +x.
//! Whenever the cranks are horizontal the whole mechanism lies flat on the ground line: there its
//! mobility jumps from 1 to N + 1, the configurations where solvers leave the branch.

use std::fmt::Write;

fn a02(n: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# IFToMM A02 N-four-bar mechanism, N = {n}: written by `cargo run --release --example make_models`."
    );
    let _ = writeln!(
        s,
        "# Cranks C0..C{n} (vertical at t = 0, angle pi/2, spinning at -1 rad/s), couplers K1..K{n} (horizontal)."
    );
    let _ = writeln!(s, "model: iftomm_a02_n{n}");
    let _ = writeln!(
        s,
        "summary: \"IFToMM A02: {n} four-bar windows of {} unit bars, flat (singular) whenever the cranks are horizontal\"",
        2 * n + 1
    );
    let _ = writeln!(
        s,
        "source: \"IFToMM Library of computational benchmark problems, A02 N-four-bar mechanism (Gonzalez, Dopico, Lugris, Cuadrado; after Bayo & Avello 1994)\""
    );
    let _ = writeln!(s, "length_scale: {}", n.max(1));
    let mass_height = (n + 1) as f64 * 0.5 + n as f64;
    let _ = writeln!(s, "energy_scale:");
    let _ = writeln!(s, "  joules: {:.17e}", 9.81 * mass_height);
    let _ = writeln!(
        s,
        "  definition: \"g times the sum of m x the height of each bar's centre at t = 0 (cranks vertical)\""
    );
    let _ = writeln!(s, "bodies:");
    // I = m L^2 / 12 for a thin uniform rod of 1 kg and 1 m.
    for i in 0..=n {
        let _ = writeln!(
            s,
            "  - {{name: C{i}, kind: rigid2, mass: 1, inertia: 0.08333333333333333, position: [{i}, 0.5], angle: 1.5707963267948966, velocity: [0.5, 0], angular_velocity: -1}}"
        );
    }
    for i in 1..=n {
        let _ = writeln!(
            s,
            "  - {{name: K{i}, kind: rigid2, mass: 1, inertia: 0.08333333333333333, position: [{}, 1], angle: 0, velocity: [1, 0]}}",
            i as f64 - 0.5
        );
    }
    let _ = writeln!(s, "forces:\n  - {{type: gravity, g: [0, -9.81]}}");
    let _ = writeln!(s, "joints:");
    for i in 0..=n {
        let _ = writeln!(s, "  - {{type: revolute, a: C{i}, local_a: [-0.5, 0], b: world, local_b: [{i}, 0]}}");
    }
    for i in 1..=n {
        let _ = writeln!(s, "  - {{type: revolute, a: K{i}, local_a: [-0.5, 0], b: C{}, local_b: [0.5, 0]}}", i - 1);
        let _ = writeln!(s, "  - {{type: revolute, a: K{i}, local_a: [0.5, 0], b: C{i}, local_b: [0.5, 0]}}");
    }
    let _ = writeln!(s, "outputs:");
    let _ = writeln!(
        s,
        "  - {{name: B0x, value: \"C0.point(0.5, 0).x\", describes: \"x of B0, the tip of crank C0 (the benchmark's reference point) [m]\"}}"
    );
    let _ = writeln!(s, "  - {{name: B0y, value: \"C0.point(0.5, 0).y\", describes: \"y of B0 [m]\"}}");
    let _ = writeln!(s, "  - {{name: B0vx, value: \"C0.point(0.5, 0).vx\", describes: \"x velocity of B0 [m/s]\"}}");
    let _ = writeln!(s, "  - {{name: B0vy, value: \"C0.point(0.5, 0).vy\", describes: \"y velocity of B0 [m/s]\"}}");
    let _ =
        writeln!(s, "  - {{name: crank, value: C0.angle, describes: \"angle of crank C0 from +x (unwrapped) [rad]\"}}");
    let _ = writeln!(s, "# On the parallelogram branch every coupler stays horizontal; a coupler that turns means the");
    let _ = writeln!(s, "# run went through a flat configuration onto another branch.");
    let _ = writeln!(s, "branch:");
    for i in 1..=n {
        let _ = writeln!(s, "  - {{value: K{i}.angle, min: -0.5, max: 0.5}}");
    }
    let _ = writeln!(s, "assemble:\n  keep_velocity: [C0.angle]");
    let _ = writeln!(
        s,
        "# B0's position and velocity on the parallelogram branch (the benchmark's reference), by\n# `cargo run --release --example make_references`; the reference error scores the position (a\n# largest error is over one unit), the velocity is reported per column\nreference: {{file: ../experiments/data/iftomm_a02_n{n}.csv, columns: [B0x, B0y, B0vx, B0vy], score: [B0x, B0y]}}"
    );
    s
}

fn main() {
    std::fs::create_dir_all("models").unwrap();
    for n in [2, 40] {
        let path = format!("models/iftomm_a02_n{n}.yaml");
        std::fs::write(&path, a02(n)).unwrap();
        println!("wrote {path}");
    }
}
