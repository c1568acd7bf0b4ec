//! Sweeps beyond one run and the integrity of what runs store and publish: shards merged into the
//! report of a single run, a killed run resumed, `--cells` reruns, `merge` refusing shards that do
//! not make one sweep, a failed run keeping the previous report, special files and planted links
//! refused, and cleanup touching only what dead runs of this host left.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod cluster;

const BIN: &str = env!("CARGO_BIN_EXE_tinkertoy");

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "tinkertoy-sweep-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn showcase() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/showcase.yaml")
}

fn tinkertoy(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `run CONFIG --reports REPORTS EXTRA…`: its exit code and stderr.
fn run(config: &Path, reports: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(BIN).arg("run").arg(config).arg("--reports").arg(reports).args(extra).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).to_string())
}

fn configs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/configs")
}

/// The report without what depends on wall time (lines with time ranges, the cheapest-by-time
/// answer, the timing and provenance lines).
fn without_timings(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| {
            !(l.contains('–')
                || l.contains("wall time")
                || l.contains(" ms")
                || l.contains("timing")
                || l.contains("load average")
                || l.starts_with("- run ")
                || l.starts_with("- merged from"))
        })
        .map(|l| {
            // A ranking row: its wall-time and median-step columns (the two before `front`) come
            // from the parallel pass for cells that did not run to the end, and vary.
            let cells: Vec<&str> = l.split(" | ").collect();
            if l.starts_with("| ") && cells.len() >= 16 {
                let n = cells.len();
                [&cells[..n - 3], &cells[n - 1..]].concat().join(" | ")
            } else {
                l.to_string()
            }
        })
        .collect()
}

#[test]
fn showcase_as_three_shards_merges_into_the_single_run_byte_for_byte() {
    let dir = temp_dir("shards");
    let (single, sharded) = (dir.join("single"), dir.join("sharded"));
    assert!(tinkertoy(&["run", s(&showcase()), "--reports", s(&single)]).status.success());
    let children: Vec<_> = (1..=3)
        .map(|i| {
            Command::new(BIN)
                .args(["run", s(&showcase()), "--reports", s(&sharded), "--shard", &format!("{i}/3"), "--threads", "1"])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let shards: Vec<String> =
        (1..=3).map(|i| sharded.join(format!("showcase.shard-{i}-of-3")).display().to_string()).collect();
    // `shards status`: all three done, and the merge to run.
    let out = tinkertoy(&["shards", "status", s(&sharded)]);
    let status = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success() && status.contains("showcase (3 shards, config ") && status.contains(": 3 done (1-3)"),
        "{status}"
    );
    assert!(!status.contains("rerun") && status.contains("merge: tinkertoy merge "), "{status}");
    // The shards' per-cell stores: kept by a merge with --keep-cells, removed by one without.
    let stores: Vec<_> = (1..=3).map(|i| sharded.join(format!(".showcase.shard-{i}-of-3.cells"))).collect();
    assert!(stores.iter().all(|d| d.is_dir()));
    let kept = dir.join("kept");
    let out = tinkertoy(&["merge", &shards[0], &shards[1], &shards[2], "--reports", s(&kept), "--keep-cells"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stores.iter().all(|d| d.is_dir()), "--keep-cells removed a store");
    let merged = dir.join("merged");
    let out = tinkertoy(&["merge", &shards[0], &shards[1], &shards[2], "--reports", s(&merged)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stores.iter().all(|d| !d.exists()), "a store left after the merge");
    assert!(stderr.contains("removed the shards' per-cell stores (3 directories"), "{stderr}");
    assert!(shards.iter().all(|d| Path::new(d).join("shard.bin").is_file()), "a shard file removed");
    for f in ["summary.csv", "runs.csv", "orders.csv"] {
        let a = std::fs::read(single.join("showcase").join(f)).unwrap();
        let b = std::fs::read(merged.join("showcase").join(f)).unwrap();
        assert!(a == b, "{f} differs between the single run and the merged shards");
    }
    // Regression: `--cells` over the merged report replaced it by a one-cell report, exit 0 (the
    // cells live in the shards' stores, not in this directory's). Refused; the report is kept.
    let merged_summary = std::fs::read(merged.join("showcase/summary.csv")).unwrap();
    let out = tinkertoy(&["run", s(&showcase()), "--reports", s(&merged), "--cells", "3"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("would be replaced by a report of 1 of the experiment's 36 cells"), "{stderr}");
    assert_eq!(std::fs::read(merged.join("showcase/summary.csv")).unwrap(), merged_summary);
    let a = std::fs::read_to_string(single.join("showcase/report.md")).unwrap();
    let b = std::fs::read_to_string(merged.join("showcase/report.md")).unwrap();
    assert!(b.contains("merged from 3 shards") && b.contains("merged by tinkertoy") && b.contains("(the same build)"));
    let (a, b) = (without_timings(&a), without_timings(&b));
    assert!(a.len() > 60, "{} lines compared", a.len());
    assert_eq!(a, b, "the merged report differs beyond timings");
    // Shard 2 lost, shard 3 started again and stopped with one cell stored: `shards status` names
    // both and the exact resubmission of the two.
    std::fs::remove_dir_all(sharded.join("showcase.shard-2-of-3")).unwrap();
    std::fs::remove_dir_all(sharded.join("showcase.shard-3-of-3")).unwrap();
    std::fs::create_dir(sharded.join(".showcase.shard-3-of-3.cells")).unwrap();
    std::fs::write(sharded.join(".showcase.shard-3-of-3.cells/7.bin"), b"").unwrap();
    let out = tinkertoy(&["shards", "status", s(&sharded)]);
    let status = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        status.contains(": 1 done (1); 1 started, not published (3: 1 cell stored;")
            && status.contains("1 missing (2)"),
        "{status}"
    );
    let config = showcase().display().to_string();
    let rerun = format!("rerun: sbatch --array=2-3 scripts/slurm_sweep.sh {config} 3 {}", sharded.display());
    assert!(status.contains(&rerun), "{status}");
}

#[test]
fn merge_refuses_a_missing_a_duplicated_and_a_foreign_shard() {
    let dir = temp_dir("refuse");
    let reports = dir.join("reports");
    for i in 1..=3 {
        assert!(
            tinkertoy(&["run", s(&showcase()), "--reports", s(&reports), "--shard", &format!("{i}/3")])
                .status
                .success()
        );
    }
    let other = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/pendulum_convergence.yaml");
    assert!(tinkertoy(&["run", s(&other), "--reports", s(&reports), "--shard", "2/3"]).status.success());
    let shard = |name: &str, i: usize| reports.join(format!("{name}.shard-{i}-of-3")).display().to_string();
    let (one, two, three) = (shard("showcase", 1), shard("showcase", 2), shard("showcase", 3));
    let foreign = shard("pendulum_convergence", 2);
    let out_dir = dir.join("merged");
    let cases: [(&[&str], &[&str]); 4] = [
        (&[&one, &two], &["1 of 3 shards missing: 3 (2 shard directories given)", "--array=3"]),
        (&[&one, &two, &two, &three], &["shard 2/3 is given twice"]),
        (&[&one, &foreign, &three], &["is a shard of another config", "pendulum_convergence.yaml"]),
        (&[&one, s(&dir)], &["not a shard directory"]),
    ];
    for (args, needles) in cases {
        let start = Instant::now();
        let mut all = vec!["merge"];
        all.extend(args);
        all.extend(["--reports", s(&out_dir)]);
        let out = tinkertoy(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        for n in needles {
            assert!(stderr.contains(n), "`{n}` missing from {stderr}");
        }
        assert!(!out_dir.exists() && start.elapsed() < Duration::from_secs(2));
    }
}

/// Eight cells of about a quarter of a second each.
fn slow_config(dir: &Path) -> PathBuf {
    let path = dir.join("slow.yaml");
    std::fs::write(
        &path,
        "name: slow
scene: {name: double_pendulum}
formulations: [{name: force, params: {omega: 10}}, {name: lagrangian}]
solvers: [{name: dense_lu}]
integrators: [{name: rk4}]
steps: [0.0001, 0.000125, 0.0002, 0.00025]
duration: 5
sample_interval: 0.1
timing: {repeats: 0}
",
    )
    .unwrap();
    path
}

#[test]
fn a_run_killed_after_some_cells_resumes_them_and_ends_byte_identical() {
    let dir = temp_dir("resume");
    let config = slow_config(&dir);
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    assert!(tinkertoy(&["run", s(&config), "--reports", s(&whole), "--threads", "1"]).status.success());
    let mut child = Command::new(BIN)
        .args(["run", s(&config), "--reports", s(&killed), "--threads", "1"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let store = killed.join(".slow.cells");
    let finished = || {
        std::fs::read_dir(&store)
            .map(|d| d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().ends_with(".bin")).count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while finished() < 3 {
        assert!(start.elapsed() < Duration::from_secs(60), "no cell finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stored = finished();
    assert!((3..8).contains(&stored), "{stored} cells stored when killed");
    assert!(!killed.join("slow").exists(), "the killed run must not have published");
    let out = tinkertoy(&["run", s(&config), "--reports", s(&killed), "--threads", "1", "--resume"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("reused {stored} of 8 cells")), "{stderr}");
    for f in ["summary.csv", "runs.csv", "orders.csv"] {
        let a = std::fs::read(whole.join("slow").join(f)).unwrap();
        let b = std::fs::read(killed.join("slow").join(f)).unwrap();
        assert!(a == b, "{f} differs after resuming");
    }
    let report = std::fs::read_to_string(killed.join("slow/report.md")).unwrap();
    assert!(report.contains(&format!("{stored} of 8 cells reused from an earlier run")));
}

#[test]
fn cells_reruns_a_selection_and_reuses_the_rest() {
    let dir = temp_dir("cells");
    let reports = dir.join("reports");
    assert!(tinkertoy(&["run", s(&showcase()), "--reports", s(&reports)]).status.success());
    let before = std::fs::read(reports.join("showcase/summary.csv")).unwrap();
    let out = tinkertoy(&["run", s(&showcase()), "--reports", s(&reports), "--cells", "0-2,5"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("reused 32 of 36 cells"), "{stderr}");
    assert_eq!(std::fs::read(reports.join("showcase/summary.csv")).unwrap(), before);
    // In a fresh directory a filter runs only its cells, and the report says the rest were left out.
    let fresh = dir.join("fresh");
    let out =
        tinkertoy(&["run", s(&showcase()), "--reports", s(&fresh), "--cells", "formulation=lagrangian,integrator=rk4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = std::fs::read_to_string(fresh.join("showcase/summary.csv")).unwrap();
    let rows: Vec<&str> = summary.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{summary}");
    assert!(rows.iter().all(|r| r.contains(",lagrangian,") && r.contains(",rk4,")), "{summary}");
    let report = std::fs::read_to_string(fresh.join("showcase/report.md")).unwrap();
    assert!(report.contains("33 cells neither selected by `--cells` nor stored: left out"));
    for (sel, needle) in
        [("formulation=nope", "selects no cell"), ("speed=1", "unknown key `speed`"), ("99", "outside the cells 0-35")]
    {
        let out = tinkertoy(&["run", s(&showcase()), "--reports", s(&fresh), "--cells", sel]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
}

#[test]
fn an_edited_model_file_is_never_published_with_the_old_numbers() {
    // Regression: the store and the shards were keyed by the config text alone, so after a model
    // file changed `--resume` reused every stored cell ("reused 6 of 6") and `merge` mixed the
    // two mechanisms. Now they carry the identity of the config and of every file it reads.
    let dir = temp_dir("edited-model");
    let model = dir.join("m.yaml");
    let original =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/elbow_motor.yaml")).unwrap();
    std::fs::write(&model, &original).unwrap();
    let config = dir.join("edited.yaml");
    std::fs::write(
        &config,
        "name: edited\nscene: {model: m.yaml}\nformulations: [{name: force}, {name: impulse}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [0.01]\nduration: 0.5\nsample_interval: 0.1\ntiming: {repeats: 0}\n",
    )
    .unwrap();
    let reports = dir.join("reports");
    let heavier = original.replacen("mass: 1,", "mass: 3,", 1);
    assert_ne!(heavier, original);
    // --resume after the edit recomputes every cell on the edited model; --cells, whose other
    // cell is no longer usable, is refused rather than replacing the report by a partial one.
    for extra in [&["--resume"][..], &["--cells", "0"][..]] {
        std::fs::write(&model, &original).unwrap();
        assert!(tinkertoy(&["run", s(&config), "--reports", s(&reports)]).status.success());
        let before = std::fs::read(reports.join("edited/summary.csv")).unwrap();
        std::fs::write(&model, &heavier).unwrap();
        let out = tinkertoy(&[&["run", s(&config), "--reports", s(&reports)][..], extra].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("reused"), "{extra:?}: {stderr}");
        if extra[0] == "--cells" {
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert!(stderr.contains("not in this run's store"), "{stderr}");
            assert_eq!(std::fs::read(reports.join("edited/summary.csv")).unwrap(), before);
        } else {
            assert!(out.status.success(), "{stderr}");
            assert_ne!(std::fs::read(reports.join("edited/summary.csv")).unwrap(), before, "{extra:?}");
        }
    }
    // Shards computed on the original model do not merge once it has changed.
    std::fs::write(&model, &original).unwrap();
    let sharded = dir.join("sharded");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        assert!(tinkertoy(&["run", s(&config), "--reports", s(&sharded), "--shard", &shard]).status.success());
    }
    std::fs::write(&model, &heavier).unwrap();
    let shards: Vec<String> = (1..=2).map(|i| s(&sharded.join(format!("edited.shard-{i}-of-2"))).to_string()).collect();
    let out = tinkertoy(&["merge", &shards[0], &shards[1], "--reports", s(&dir.join("merged"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("m.yaml") && stderr.contains("differs"), "{stderr}");
    // With the model as it was, they merge.
    std::fs::write(&model, &original).unwrap();
    let out = tinkertoy(&["merge", &shards[0], &shards[1], "--reports", s(&dir.join("merged"))]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_flipped_bit_in_a_stored_cell_or_a_shard_is_never_used() {
    // Regression: of 40 single-bit flips in stored cell files 22 were published by --resume, of
    // 40 in shard files 13 were merged. Every stored file now ends with the SHA-256 of its bytes.
    use tinkertoy::experiment::store::unseal;
    let dir = temp_dir("flips");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/configs/valid_small.yaml");
    let reports = dir.join("r");
    assert!(tinkertoy(&["run", s(&config), "--reports", s(&reports)]).status.success());
    let sharded = dir.join("s");
    for i in 1..=2 {
        let shard = format!("{i}/2");
        assert!(tinkertoy(&["run", s(&config), "--reports", s(&sharded), "--shard", &shard]).status.success());
    }
    let cell_file = reports.join(".valid_small.cells/0.bin");
    let shard_file = sharded.join("valid_small.shard-1-of-2/shard.bin");
    // 100 single-bit flips at pseudo-random offsets (a fixed LCG: the same offsets every run).
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for file in [&cell_file, &shard_file] {
        let bytes = std::fs::read(file).unwrap();
        assert!(unseal(&bytes).is_some(), "{} as written", file.display());
        for _ in 0..100 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let at = (state >> 33) as usize % bytes.len();
            let mut bad = bytes.clone();
            bad[at] ^= 1 << ((state >> 29) & 7);
            assert!(unseal(&bad).is_none(), "{}: a flip at byte {at} went unnoticed", file.display());
        }
        // And a truncation.
        assert!(unseal(&bytes[..bytes.len() - 1]).is_none());
    }
    // End to end: the flipped cell is recomputed by --resume, the flipped shard refused by merge.
    let mut bytes = std::fs::read(&cell_file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 4;
    std::fs::write(&cell_file, &bytes).unwrap();
    let before = std::fs::read(reports.join("valid_small/summary.csv")).unwrap();
    let out = tinkertoy(&["run", s(&config), "--reports", s(&reports), "--resume"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("reused 23 of 24"), "{stderr}");
    assert_eq!(std::fs::read(reports.join("valid_small/summary.csv")).unwrap(), before);
    let mut bytes = std::fs::read(&shard_file).unwrap();
    let third = bytes.len() / 3;
    bytes[third] ^= 1;
    std::fs::write(&shard_file, &bytes).unwrap();
    let shards = [sharded.join("valid_small.shard-1-of-2"), sharded.join("valid_small.shard-2-of-2")];
    let out = tinkertoy(&["merge", s(&shards[0]), s(&shards[1]), "--reports", s(&dir.join("m"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("damaged"), "{stderr}");
}

#[test]
fn a_failed_run_leaves_the_previous_report_intact() {
    let reports = temp_dir("keep");
    let good = configs().join("valid_small.yaml");
    assert_eq!(run(&good, &reports, &[]).0, 0);
    let report = reports.join("valid_small/report.md");
    let before = std::fs::read(&report).unwrap();
    // Same experiment name, broken config.
    let broken = reports.join("broken.yaml");
    let text = std::fs::read_to_string(&good).unwrap().replace("duration: 1", "duration: -1");
    std::fs::write(&broken, text).unwrap();
    assert_eq!(run(&broken, &reports, &[]).0, 2);
    assert_eq!(std::fs::read(&report).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(&reports)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_string_lossy().contains(".tmp-") || e.file_name().to_string_lossy().contains(".old-")
        })
        .collect();
    assert!(leftovers.is_empty(), "temporary directories left behind");
}

#[test]
fn fifos_and_devices_are_refused_by_type_before_reading() {
    // Regression: a config, model or reference path that is a FIFO blocked forever (opening it
    // waits for a writer), and `/dev/zero` as a reference was read without bound.
    let dir = temp_dir("fifo");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let model_cfg = dir.join("model.yaml");
    std::fs::write(&model_cfg, format!("name: m\nscene: {{model: {}}}\nformulations: [{{name: force}}]\nsolvers: [{{name: dense_lu}}]\nintegrators: [{{name: rk4}}]\nsteps: [0.01]\nduration: 1\nsample_interval: 0.1\n", fifo.display())).unwrap();
    let ref_cfg = dir.join("reference.yaml");
    std::fs::write(&ref_cfg, "name: r\nscene: {name: pendulum}\nformulations: [{name: force}]\nsolvers: [{name: dense_lu}]\nintegrators: [{name: rk4}]\nsteps: [0.01]\nduration: 1\nsample_interval: 0.1\nreference: {file: /dev/zero}\n").unwrap();
    for (config, needle) in [(&fifo, "FIFO"), (&model_cfg, "FIFO"), (&ref_cfg, "device")] {
        let start = std::time::Instant::now();
        let (code, stderr) = run(config, &dir.join("reports"), &[]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(needle) && stderr.lines().count() == 1, "{stderr}");
        assert!(start.elapsed() < std::time::Duration::from_secs(1), "took {:?}", start.elapsed());
    }
}

#[test]
fn links_planted_where_tinkertoy_writes_are_never_written_through() {
    // Regression: a symlink at the lock (dangling), at the cell store, or at a stored cell's
    // temporary file made the run write through it, outside the reports directory.
    use std::os::unix::fs::symlink;
    let dir = temp_dir("links");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let config = configs().join("valid_small.yaml");
    let snapshot = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(p).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        v.sort();
        v
    };
    // 1. A dangling link at the lock: refused, nothing created at its target.
    let reports = dir.join("r1");
    std::fs::create_dir_all(&reports).unwrap();
    symlink(outside.join("lock-target"), reports.join(".valid_small.lock")).unwrap();
    let (code, stderr) = run(&config, &reports, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!outside.join("lock-target").exists());
    // 2. A link at the cell store: refused before computing.
    let reports = dir.join("r2");
    std::fs::create_dir_all(&reports).unwrap();
    symlink(&outside, reports.join(".valid_small.cells")).unwrap();
    let (code, stderr) = run(&config, &reports, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("link"), "{stderr}");
    assert!(snapshot(&outside).is_empty(), "{:?}", snapshot(&outside));
    // 3. A link at a stored cell's temporary name (planted after a first run, before --resume):
    //    removed as a link, the target untouched.
    let reports = dir.join("r3");
    assert_eq!(run(&config, &reports, &[]).0, 0);
    let victim = outside.join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let tmp = reports.join(".valid_small.cells/0.bin.tmp");
    let _ = std::fs::remove_file(&tmp);
    symlink(&victim, &tmp).unwrap();
    assert_eq!(run(&config, &reports, &[]).0, 0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

#[test]
fn cleanup_removes_only_what_dead_runs_of_this_host_left() {
    // Regression: `run` deleted user directories whose names merely looked like its leftovers
    // (`.data.old-4000000`, `.x.tmp-4000001`). Now only directories holding this host's run marker
    // whose process is gone are removed.
    let reports = temp_dir("cleanup");
    for d in [".data.old-4000000", ".x.tmp-4000001", ".valid_small.tmp-4000002"] {
        std::fs::create_dir_all(reports.join(d)).unwrap();
        std::fs::write(reports.join(d).join("precious"), "user data").unwrap();
    }
    // A leftover of a dead run of this host: its marker names a PID that is not running.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_string();
    let dead = reports.join(".other.tmp-4000003");
    std::fs::create_dir_all(&dead).unwrap();
    std::fs::write(dead.join(".tinkertoy-run"), format!("tinkertoy run\nhost {host}\npid 4000003\nstart 1\n")).unwrap();
    // Another host's live-looking leftover is not ours to judge.
    let foreign = reports.join(".other.tmp-4000004");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join(".tinkertoy-run"), "tinkertoy run\nhost elsewhere\npid 4000004\nstart 1\n").unwrap();
    // A run of this experiment killed between creating its temporary directory and finishing
    // its marker: the directory empty, or holding a marker without its fields.
    let (empty, partial) = (reports.join(".valid_small.tmp-4000005"), reports.join(".valid_small.tmp-4000006"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::write(partial.join(".tinkertoy-run"), "tinkertoy run\nho").unwrap();
    assert_eq!(run(&configs().join("valid_small.yaml"), &reports, &[]).0, 0);
    for d in [".data.old-4000000", ".x.tmp-4000001", ".valid_small.tmp-4000002"] {
        assert!(reports.join(d).join("precious").exists(), "{d} was removed");
    }
    assert!(!empty.exists() && !partial.exists(), "a killed run's unmarked temporary directory stays");
    assert!(!dead.exists(), "a dead run's leftover stays");
    assert!(foreign.exists(), "another host's directory was removed");
}
