//! Suites (`suite:` files): the members run into one directory with one report that answers for
//! each; a bad suite is one clear line, exit 2, before anything runs.

mod common;

use common::{BIN, temp_dir};
use std::process::{Command, Stdio};

/// A small experiment with a target, named `name`.
fn member(name: &str, h: f64) -> String {
    format!(
        "name: {name}
scene: {{name: pendulum}}
formulations: [{{name: force, params: {{omega: 10}}}}, {{name: rattle}}]
solvers: [{{name: dense_lu}}]
integrators: [{{name: rk4}}]
steps: [{h}]
duration: 1
sample_interval: 0.1
target: {{drift: 1.0e-6}}
timing: {{repeats: 0}}
"
    )
}

/// Writes `files` into a fresh directory and runs `run <first file>` there with `args`; returns
/// (exit code, stderr, the reports directory).
fn run(tag: &str, files: &[(&str, &str)], args: &[&str]) -> (i32, String, std::path::PathBuf) {
    let dir = temp_dir(tag);
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let reports = dir.join("reports");
    let out = Command::new(BIN)
        .arg("run")
        .arg(dir.join(files[0].0))
        .arg("--reports")
        .arg(&reports)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), reports)
}

const SUITE: &str = "suite: two
description: Two pendulum experiments.
experiments: [a.yaml, b.yaml]
";

#[test]
fn a_suite_runs_its_members_and_answers_for_each() {
    let (a, b) = (member("first", 0.01), member("second", 0.001));
    let (code, stderr, reports) = run("suite_ok", &[("suite.yaml", SUITE), ("a.yaml", &a), ("b.yaml", &b)], &[]);
    assert_eq!(code, 0, "{stderr}");
    let dir = reports.join("two");
    for m in ["first", "second"] {
        assert!(dir.join(m).join("report.md").is_file(), "{m}'s own report");
        assert!(dir.join(m).join("summary.csv").is_file());
    }
    let text = std::fs::read_to_string(dir.join("report.md")).unwrap();
    println!("{text}");
    for needle in [
        "# two",
        "Two pendulum experiments.",
        "SHA-256",
        "## first",
        "## second",
        "[first/report.md](first/report.md)",
        "Target: max ||C||inf",
        "Cheapest by wall time",
        "Cells that meet the target",
    ] {
        assert!(text.contains(needle), "`{needle}` missing");
    }
    // Each member's section is its own answer: the same cheapest cell as its own report names.
    let own = std::fs::read_to_string(dir.join("first").join("report.md")).unwrap();
    let pick = own.lines().find(|l| l.starts_with("- **Cheapest by work")).unwrap();
    assert!(text.contains(pick), "{pick}");
    // The data files are what a single run of the member writes.
    let single = run("suite_single", &[("a.yaml", &a)], &[]);
    assert_eq!(single.0, 0);
    let alone = std::fs::read(single.2.join("first").join("summary.csv")).unwrap();
    assert_eq!(std::fs::read(dir.join("first").join("summary.csv")).unwrap(), alone);
}

/// Exit 2 with one line holding every needle, and no report anywhere.
fn refused(what: &str, (code, stderr, reports): (i32, String, std::path::PathBuf), needles: &[&str]) {
    assert_eq!(code, 2, "{what}: exit {code}, stderr {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: not one line: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{what}: `{n}` missing from: {stderr}");
    }
    assert!(!reports.join("two").join("report.md").exists(), "{what}: a suite report was written");
    assert!(!reports.join("two").join("first").exists(), "{what}: a member ran");
    println!("{what}: {}", stderr.trim_end());
}

/// (what, suite text, b.yaml text, needles, extra arguments).
type Case<'a> = (&'a str, String, String, &'a [&'a str], Vec<&'a str>);

#[test]
fn a_bad_suite_is_one_line_before_anything_runs() {
    let (a, b) = (member("first", 0.01), member("second", 0.001));
    let bad_b = b.replace("name: rattle", "name: rattel");
    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        ("a missing member", SUITE.replace("b.yaml]", "c.yaml]"), b.clone(), &["suite.yaml:3:", "experiments[1]", "`c.yaml`", "no such file"], vec![]),
        ("a member listed twice", SUITE.replace("b.yaml]", "a.yaml]"), b.clone(), &["experiments[1]", "`a.yaml`", "twice"], vec![]),
        ("a bad member, found before the first runs", SUITE.to_string(), bad_b, &["b.yaml", "`rattel`"], vec![]),
        ("two members of one name", SUITE.to_string(), member("first", 0.001), &["two members are named `first`"], vec![]),
        ("a bad suite name", SUITE.replace("suite: two", "suite: \"t/o\""), b.clone(), &["field `suite`", "`t/o`", "letters, digits"], vec![]),
        ("no members", SUITE.replace("[a.yaml, b.yaml]", "[]"), b.clone(), &["field `experiments`", "0 files", "1 to 64"], vec![]),
        ("an unknown field", SUITE.replace("description:", "descripton:"), b.clone(), &["descripton"], vec![]),
        ("a nested suite", SUITE.replace("b.yaml]", "suite.yaml]"), b.clone(), &["itself a suite"], vec![]),
        ("--shard with a suite", SUITE.to_string(), b.clone(), &["--shard and --cells", "member file"], vec!["--shard", "1/2"]),
        ("a bad suite limit", format!("{SUITE}limits: {{cells: 0}}\n"), b.clone(), &["suite.yaml:4:", "limits.cells"], vec![]),
        // The suite's limits and --limit bind every member, and are checked before the first runs.
        ("the suite's limits bind each member", format!("{SUITE}limits: {{cells: 1}}\n"), b.clone(), &["a.yaml", "2 cells", "limits.cells"], vec![]),
        ("--limit binds each member", SUITE.to_string(), b.clone(), &["a.yaml", "2 cells", "limits.cells"], vec!["--limit", "cells=1"]),
    ];
    for (i, (what, suite, b, needles, args)) in cases.iter().enumerate() {
        let r = run(&format!("suite_bad{i}"), &[("suite.yaml", suite), ("a.yaml", &a), ("b.yaml", b)], args);
        refused(what, r, needles);
    }
}

#[test]
fn check_on_a_suite_describes_every_member() {
    let (a, b) = (member("first", 0.01), member("second", 0.001));
    let dir = temp_dir("suite_check");
    for (name, text) in [("suite.yaml", SUITE), ("a.yaml", a.as_str()), ("b.yaml", b.as_str())] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Command::new(BIN).arg("check").arg(dir.join("suite.yaml")).stdin(Stdio::null()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("first:\n") && text.contains("second:\n"), "{text}");
    assert_eq!(text.matches("rank of J at q0").count(), 2, "{text}");
    // A bad member is found before anything is printed.
    std::fs::write(dir.join("b.yaml"), b.replace("name: rattle", "name: rattel")).unwrap();
    let out = Command::new(BIN).arg("check").arg(dir.join("suite.yaml")).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`rattel`"));
}

#[test]
fn suites_in_flow_style_or_with_a_byte_order_mark_are_suites() {
    // Regression: a suite was recognised by a line starting with `suite:`, so flow style and a
    // byte-order mark were read as broken experiment configs.
    let (a, b) = (member("first", 0.01), member("second", 0.001));
    let flow = "{suite: two, description: Two pendulum experiments., experiments: [a.yaml, b.yaml]}\n";
    let bom = format!("\u{feff}{SUITE}");
    for (tag, text) in [("suite_flow", flow), ("suite_bom", bom.as_str())] {
        let (code, stderr, reports) = run(tag, &[("suite.yaml", text), ("a.yaml", &a), ("b.yaml", &b)], &[]);
        assert_eq!(code, 0, "{tag}: {stderr}");
        assert!(reports.join("two/report.md").is_file(), "{tag}");
    }
}

#[test]
fn a_suites_limits_admit_a_member_that_needs_them() {
    // Regression: a suite with `limits:` was refused as an unknown field, and its members were
    // checked against the default limits whatever `--limit` said. A member of 2·10⁷ steps per cell
    // is over the default 10⁷; the suite's limit (or --limit) admits it (`--dry-run`: checked,
    // nothing computed).
    let (a, b) = (member("first", 0.01), member("second", 5e-8));
    let raised = format!("{SUITE}limits: {{steps_per_cell: 3.0e7}}\n");
    let (code, stderr, _) =
        run("suite_limits", &[("suite.yaml", &raised), ("a.yaml", &a), ("b.yaml", &b)], &["--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr, _) = run(
        "suite_cli_limit",
        &[("suite.yaml", SUITE), ("a.yaml", &a), ("b.yaml", &b)],
        &["--dry-run", "--limit", "steps_per_cell=3e7"],
    );
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr, _) =
        run("suite_default_limits", &[("suite.yaml", SUITE), ("a.yaml", &a), ("b.yaml", &b)], &["--dry-run"]);
    assert_eq!(code, 2, "over the default limit: {stderr}");
    assert!(stderr.contains("steps_per_cell"), "{stderr}");
}
