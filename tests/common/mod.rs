//! Helpers shared by the CLI-level test files (`hostile`, `budget`, `model_errors`); not every
//! file uses every helper.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The release binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_tinkertoy");

/// A fresh, empty temporary directory for one test, named after the test file, the process, `tag`
/// and a counter.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "tinkertoy-{}-{}-{tag}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small valid experiment the tests break or enlarge one field at a time.
pub const BASE: &str = "name: hostile
scene: {name: pendulum}
formulations: [{name: force}]
solvers: [{name: dense_lu}]
integrators: [{name: rk4}]
steps: [0.01]
duration: 1
sample_interval: 0.1
";
