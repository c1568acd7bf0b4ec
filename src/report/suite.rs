//! The report of a suite (`suite:` files, e.g. `experiments/benchmarks.yaml`): one section per
//! member experiment with its answer — which cells meet its target and at what cost — and a link
//! to the member's full report, which is written beside it as a single run would write it.

use super::sections::{answer, by_variant, cell, e, wall};
use super::{Row, accuracy_name, rows};
use crate::experiment::{Cell, Experiment, RunResult, Timing};
use std::fmt::Write as _;

/// One member's part of the suite report: its Markdown section and its rows of `scores.csv`.
pub(crate) struct Entry {
    /// The section.
    pub markdown: String,
    /// One row per cell, in [`SCORE_COLUMNS`] order.
    pub scores: Vec<Vec<String>>,
}

/// The columns of a suite's `scores.csv`: per member and cell, its library's error measure (the
/// member's accuracy metric), whether the member's target (the library's criterion) is met, the
/// wall time, and at a one-time reference the Test Set's scd and mescd.
pub(crate) const SCORE_COLUMNS: [&str; 10] = [
    "experiment",
    "cell",
    "label",
    "status",
    "accuracy_metric",
    "accuracy",
    "meets_target",
    "wall_seconds",
    "scd",
    "mescd",
];

/// The rows of `scores.csv` for one member.
fn scores(exp: &Experiment, rows: &[Row]) -> Vec<Vec<String>> {
    let metric = accuracy_name(exp);
    let one_time = exp.measure.reference.as_ref().filter(|r| r.times.len() == 1);
    rows.iter()
        .map(|r| {
            let meets = exp.goals.target.as_ref().map_or(String::new(), |t| r.candidate().meets(t).to_string());
            let (scd, mescd) = one_time.map_or((String::new(), String::new()), |reference| {
                let (_, scd, mescd) = super::digits(reference, r.file_errors.as_deref().unwrap_or(&[]));
                (super::data::num(scd), super::data::num(mescd))
            });
            let ran = r.result.summary.counters.steps > 0;
            vec![
                exp.name.clone(),
                r.cell.id.to_string(),
                super::data::text(&r.full()),
                r.result.summary.status.label().to_string(),
                super::data::text(&metric),
                super::data::num(r.accuracy().unwrap_or(f64::NAN)),
                meets,
                super::data::num(if ran { r.timing.wall.median } else { f64::NAN }),
                scd,
                mescd,
            ]
        })
        .collect()
}

/// One member's section of the suite report (Markdown) and its score rows, for the member's
/// report in the subdirectory `link` of the suite's directory.
pub(crate) fn entry(exp: &Experiment, cells: &[Cell], results: &[RunResult], timings: &[Timing], link: &str) -> Entry {
    let rows = rows(exp, cells, results, timings);
    Entry { markdown: section(exp, &rows, link), scores: scores(exp, &rows) }
}

/// The member's Markdown section.
fn section(exp: &Experiment, rows: &[Row], link: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {}\n", exp.name);
    let description = exp.description.split_whitespace().collect::<Vec<_>>().join(" ");
    if !description.is_empty() {
        let _ = writeln!(out, "{description}\n");
    }
    let count = |l: &str| rows.iter().filter(|r| r.result.summary.status.label() == l).count();
    let _ = writeln!(
        out,
        "{} cells: {} ok, {} diverged, {} left the branch, {} failed, {} not applicable. Full report: [{link}/report.md]({link}/report.md).\n",
        rows.len(),
        count("ok"),
        count("diverged"),
        count("left branch"),
        count("failed"),
        count("n/a"),
    );
    let Some(target) = &exp.goals.target else {
        let _ = writeln!(out, "No target is set: its report ranks the cells without answering.\n");
        return out;
    };
    // The member's own answer, its headings one level down.
    let mut own = String::new();
    answer(&mut own, exp, rows);
    for line in own.lines().skip_while(|l| l.starts_with("## ") || l.is_empty()) {
        let line = if line.starts_with("### ") { format!("#{line}") } else { line.to_string() };
        let _ = writeln!(out, "{line}");
    }
    // Every cell that meets the target, cheapest first by wall time.
    let acc = accuracy_name(exp);
    for (title, vrows) in by_variant(exp, rows) {
        let mut meeting: Vec<&&Row> = vrows.iter().filter(|r| r.candidate().meets(target)).collect();
        if meeting.is_empty() {
            continue;
        }
        meeting.sort_by(|a, b| {
            a.candidate().time.median.total_cmp(&b.candidate().time.median).then(a.cell.id.cmp(&b.cell.id))
        });
        let scope = if title.is_empty() { String::new() } else { format!(" ({title})") };
        let _ = writeln!(out, "Cells that meet the target{scope}, cheapest first by wall time:\n");
        let _ = writeln!(out, "| # | cell | {} | max ‖C‖∞ | wall [ms] | RHS evals | solves |", cell(&acc));
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        for r in meeting {
            let s = &r.result.summary;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.cell.id,
                cell(&r.full()),
                r.accuracy().map_or("—".into(), e),
                e(s.max_drift_position),
                wall(r),
                s.counters.rhs_evals,
                s.counters.linear_solves
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// Writes `<dir>/report.md` for a suite — its description, provenance, run time and the members'
/// entries in order — and `<dir>/scores.csv` (through temporary files renamed into place, so a
/// reader never sees half a file). `seconds` is the suite's wall time.
pub(crate) fn write(
    suite: &crate::experiment::suite::Suite,
    file: &str,
    entries: &[Entry],
    prov: &super::provenance::Provenance,
    (dir, seconds): (&std::path::Path, f64),
) -> std::io::Result<std::path::PathBuf> {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", suite.name);
    if !suite.description.is_empty() {
        let _ = writeln!(out, "{}\n", suite.description.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    let _ = writeln!(
        out,
        "A suite: {} experiments run one after another, each written to its own report beside this one as a single run of its file would write it. Per experiment: how its cells ended, its answer (the cheapest cell that meets its target, by wall time and by work) and every cell that meets the target.\n",
        suite.members.len()
    );
    let _ = writeln!(out, "## Provenance\n");
    let _ = writeln!(out, "- suite: `{file}`, SHA-256 `{}`", prov.config_hash);
    let _ = writeln!(out, "- tinkertoy {} at commit `{}`", prov.version, prov.commit);
    let _ = writeln!(out, "- finished {} on {}", prov.date, prov.machine);
    let _ = writeln!(
        out,
        "- run time {seconds:.0} s (wall: every member computed, timed and written); {}",
        prov.load_text()
    );
    let _ = writeln!(
        out,
        "- each member's report carries its own config hash and timing details; `scores.csv` has one row per member and cell: its error measure, whether its target is met, its wall time [s], and at a one-time reference the Test Set's scd and mescd\n"
    );
    for e in entries {
        out.push_str(&e.markdown);
    }
    let mut w = csv::Writer::from_path(dir.join(".scores.csv.tmp")).map_err(std::io::Error::other)?;
    w.write_record(SCORE_COLUMNS).map_err(std::io::Error::other)?;
    for row in entries.iter().flat_map(|e| &e.scores) {
        w.write_record(row).map_err(std::io::Error::other)?;
    }
    w.flush()?;
    drop(w);
    std::fs::rename(dir.join(".scores.csv.tmp"), dir.join("scores.csv"))?;
    let path = dir.join("report.md");
    let tmp = dir.join(".report.md.tmp");
    std::fs::write(&tmp, out)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}
