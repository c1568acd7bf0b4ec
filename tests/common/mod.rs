//! Helpers shared by the test files (the CLI-level `hostile`, `budget`, `model_errors`, `suite`;
//! the model files' `models`, `model_benchmarks`, `model_physics`); not every file uses every
//! helper.
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

/// A shipped model file by name (`models/<name>.yaml`), loaded and assembled.
pub fn model(name: &str) -> tinkertoy::scene::model_file::Model {
    let path = format!("{}/models/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
    tinkertoy::scene::model_file::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Every shipped model file.
pub fn shipped() -> Vec<tinkertoy::scene::model_file::Model> {
    let dir = format!("{}/models", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| tinkertoy::scene::model_file::load(&p.to_string_lossy()).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// Writes `BASE` with each (from, to) replaced, then `extra` appended, to `dir/file`; its path.
pub fn write_config(dir: &std::path::Path, file: &str, replace: &[(&str, &str)], extra: &str) -> std::path::PathBuf {
    let mut text = BASE.to_string();
    for (from, to) in replace {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    let path = dir.join(file);
    std::fs::write(&path, text + extra).unwrap();
    path
}

/// `run CONFIG --reports REPORTS --limit LIMIT`: (exit status, the `hostile` experiment's
/// summary.csv, wall time).
pub fn run_limited(
    config: &std::path::Path,
    reports: &std::path::Path,
    limit: &str,
) -> (Option<i32>, String, std::time::Duration) {
    let start = std::time::Instant::now();
    let out = std::process::Command::new(BIN)
        .arg("run")
        .arg(config)
        .arg("--reports")
        .arg(reports)
        .args(["--limit", limit])
        .output()
        .unwrap();
    let summary = std::fs::read_to_string(reports.join("hostile/summary.csv")).unwrap_or_default();
    (out.status.code(), summary, start.elapsed())
}
