//! Sweeps across hosts: shards in separate PID namespaces and under separate host names, resumed
//! shards' timings, `merge --wait`, and timing passes sharing a host's cores.

use super::*;

/// Two shards on one reports directory in separate PID namespaces (`unshare --pid --fork
/// --mount-proc`, as two cluster nodes whose PIDs mean nothing to each other): the second claims
/// its shard while the first computes, both finish, and their merge equals one run byte for byte.
/// The second's PID is shifted by three background `sleep`s, so that the first's PID (2) is a
/// live `sleep` of another start time in the second's namespace. Regression: the second's
/// cleanup took the first's temporary directory for a dead run's and removed it; the first
/// computed everything and failed writing its result, "no such file or directory".
#[test]
fn shards_in_separate_pid_namespaces_share_one_reports_directory() {
    if !Command::new("unshare").args(["--pid", "--fork", "--mount-proc", "true"]).status().is_ok_and(|s| s.success()) {
        eprintln!("skipped: `unshare --pid --fork --mount-proc` is not permitted on this machine");
        return;
    }
    let dir = temp_dir("pidns");
    let config = configs().join("two_namespaces.yaml");
    let (single, sharded) = (dir.join("single"), dir.join("sharded"));
    assert_eq!(run(&config, &single, &["--threads", "1"]).0, 0);
    let shard = |i: usize, pad: usize| {
        // `; exit $s` keeps the shell from exec'ing the run, so that its PID is 2 + pad.
        let script = format!(
            "{}{BIN} run '{}' --reports '{}' --shard {i}/2 --threads 1; s=$?; exit $s",
            "sleep 30 & ".repeat(pad),
            s(&config),
            s(&sharded)
        );
        Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc", "sh", "-c", &script])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = shard(1, 0);
    let t0 = Instant::now();
    let computing = || {
        std::fs::read_dir(&sharded).is_ok_and(|d| {
            d.flatten().any(|e| e.file_name().to_string_lossy().starts_with(".two_namespaces.shard-1-of-2.tmp-"))
        })
    };
    while !computing() {
        assert!(t0.elapsed() < Duration::from_secs(30), "the first shard never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = shard(2, 3);
    for (i, c) in [first, second].into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "shard {}: {}", i + 1, String::from_utf8_lossy(&out.stderr));
    }
    let shards: Vec<String> =
        (1..=2).map(|i| sharded.join(format!("two_namespaces.shard-{i}-of-2")).display().to_string()).collect();
    let merged = dir.join("merged");
    let out = tinkertoy(&["merge", &shards[0], &shards[1], "--reports", s(&merged)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["summary.csv", "runs.csv", "orders.csv"] {
        let a = std::fs::read(single.join("two_namespaces").join(f)).unwrap();
        let b = std::fs::read(merged.join("two_namespaces").join(f)).unwrap();
        assert!(a == b, "{f} differs between the single run and the merged shards");
    }
}

/// A resumed shard does not time again the cells its interrupted run timed: each timing is
/// stored with the cell as it completes, on this host. A shard resumed after it finished reuses
/// every cell and every timing (its shard file's timings identical — a timing
/// measured again would differ; where it was timed is the resumed run's, whose claimed core may
/// differ); with one cell's stored timing removed, that cell alone is timed again. Regression:
/// `--resume` timed every cell again, most of a shard's cost with the default 3 repeats.
#[test]
fn a_resumed_shard_reuses_the_timings_it_stored() {
    let dir = temp_dir("retime");
    let config = configs().join("two_namespaces.yaml");
    let shard = |extra: &[&str]| {
        let mut args = vec!["--shard", "1/2", "--threads", "1"];
        args.extend(extra);
        let (code, stderr) = run(&config, &dir, &args);
        assert_eq!(code, 0, "{stderr}");
        let file = tinkertoy::experiment::store::ShardFile::read(&dir.join("two_namespaces.shard-1-of-2")).unwrap();
        (stderr, (file.cells, file.timings))
    };
    let (_, first) = shard(&[]);
    let (stderr, resumed) = shard(&["--resume"]);
    assert!(stderr.contains("reused 2 of 2 cells") && stderr.contains("and 2 of their timings"), "{stderr}");
    assert!(first == resumed, "the resumed shard's timings differ: its cells were timed again");
    let store = dir.join(".two_namespaces.shard-1-of-2.cells");
    let timing = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".timing.bin"))
        .expect("a stored timing");
    std::fs::remove_file(&timing).unwrap();
    let (stderr, again) = shard(&["--resume"]);
    assert!(stderr.contains("and 1 of their timings"), "{stderr}");
    assert!(first != again, "the cell whose timing was removed should have been timed again");
}

/// `merge --wait` given one shard of two waits for the other, looked up by name, and merges
/// both once it is published: the merge job of an array chained with `afterany` runs after a
/// failed task and waits for its resubmission. With the other shard never there, it stops at its
/// limit and names the missing shard.
#[test]
fn merge_waits_for_the_shards_still_missing() {
    let dir = temp_dir("wait");
    let config = configs().join("two_namespaces.yaml");
    let shard_dir = |i: usize| dir.join(format!("two_namespaces.shard-{i}-of-2"));
    assert_eq!(run(&config, &dir, &["--shard", "1/2", "--threads", "1"]).0, 0);
    let out = tinkertoy(&["merge", s(&shard_dir(1)), "--wait", "1", "--reports", s(&dir.join("early"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("waiting for 1 of 2 shards") && stderr.contains("1 of 2 shards missing: 2"), "{stderr}");
    // A wait past any schedule's horizon is refused in one line (it overflowed the clock).
    let out = tinkertoy(&["merge", s(&shard_dir(1)), "--wait", "18446744073709551615"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not in 0..=2592000"), "{stderr}");
    let merged = dir.join("merged");
    let waiting = Command::new(BIN)
        .args(["merge", s(&shard_dir(1)), "--wait", "120", "--reports", s(&merged)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(run(&config, &dir, &["--shard", "2/2", "--threads", "1"]).0, 0);
    let out = waiting.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = std::fs::read_to_string(merged.join("two_namespaces/summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 1 + 4, "{summary}");
}

/// Two shards run under two host names (`unshare --uts`, as two cluster nodes): the merged
/// report's `timing.csv` names, per cell, the host that timed it and its CPU model, and the report
/// says how many cells each host timed. Regression: the merged report described only the merging
/// machine, and which host timed which cells was recorded nowhere.
#[test]
fn a_merged_report_names_the_host_that_timed_each_cell() {
    if !Command::new("unshare").args(["--uts", "true"]).status().is_ok_and(|s| s.success()) {
        eprintln!("skipped: `unshare --uts` is not permitted on this machine");
        return;
    }
    let dir = temp_dir("hosts");
    let config = configs().join("two_namespaces.yaml");
    let sharded = dir.join("sharded");
    for i in 1..=2 {
        let script = format!(
            "hostname node-{i} && {BIN} run '{}' --reports '{}' --shard {i}/2 --threads 1",
            s(&config),
            s(&sharded)
        );
        let out = Command::new("unshare").args(["--uts", "sh", "-c", &script]).output().unwrap();
        assert!(out.status.success(), "shard {i}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let merged = dir.join("merged");
    let first = sharded.join("two_namespaces.shard-1-of-2");
    let out = tinkertoy(&["merge", s(&first), "--wait", "0", "--reports", s(&merged)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let timing = std::fs::read_to_string(merged.join("two_namespaces/timing.csv")).unwrap();
    let header: Vec<&str> = timing.lines().next().unwrap().split(',').collect();
    let host = header.iter().position(|c| *c == "host").expect("a host column");
    assert_eq!(header[host + 1], "cpu_model");
    let mut by_host = std::collections::BTreeMap::new();
    for line in timing.lines().skip(1) {
        *by_host.entry(line.split(',').nth(host).unwrap().to_string()).or_insert(0) += 1;
    }
    let names: Vec<&String> = by_host.keys().collect();
    assert_eq!(names, ["node-1", "node-2"], "{timing}");
    let report = std::fs::read_to_string(merged.join("two_namespaces/report.md")).unwrap();
    assert!(
        report.contains("- timed on 2 host(s): `node-1` (")
            && report.contains(&format!("): {} cells; `node-2`", by_host["node-1"])),
        "{report}"
    );
}

/// Timing passes on one host claim different cores: with the last core's claim held (as a shard
/// timing on the same host holds it), a run times on another core of its set, and says so in
/// `timing.csv`. Regression: every run pinned its timing to the last core, so two shards per host
/// (`parallel -S 2/node`) timed on one core and measured about twice their times.
#[test]
fn a_timing_pass_does_not_share_a_core_another_holds() {
    use std::os::fd::AsRawFd;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        eprintln!("skipped: one CPU");
        return;
    }
    let dir = temp_dir("cores");
    // the highest core id of this process's set is the last one a run claims first
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap().split(':').nth(1).unwrap().trim();
    let last: usize = list.rsplit([',', '-']).next().unwrap().parse().unwrap();
    let path = std::env::temp_dir().join(format!("tinkertoy-timing-core-{last}.lock"));
    let held = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).unwrap();
    // SAFETY: a valid descriptor.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let (code, stderr) = run(&configs().join("two_namespaces.yaml"), &dir, &["--threads", "1"]);
    drop(held);
    assert_eq!(code, 0, "{stderr}");
    let timing = std::fs::read_to_string(dir.join("two_namespaces/timing.csv")).unwrap();
    let cores: Vec<&str> = timing.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert!(
        !cores.is_empty() && cores.iter().all(|c| !c.is_empty() && *c != last.to_string()),
        "last core {last}: {timing}"
    );
}
