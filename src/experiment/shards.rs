//! `shards status DIR`: the sweeps sharded into a reports directory (`run --shard I/N`) and the
//! state of each of their shards, read from the names on disk alone: a published shard
//! directory `NAME.shard-I-of-N/` with its shard file is done; a per-cell store
//! `.NAME.shard-I-of-N.cells/` without it is a shard that started and has not published
//! (running, or stopped: `--resume` reuses the cells it stored); neither is missing.

use super::store::{SHARD_FILE, index_ranges};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One sweep's shards.
#[derive(Debug, PartialEq)]
pub(crate) struct SweepStatus {
    /// The experiment's name.
    pub name: String,
    /// Its shard count N.
    pub count: usize,
    /// Published shards (1-based).
    pub done: Vec<usize>,
    /// Started, not published: (shard, cells stored).
    pub incomplete: Vec<(usize, usize)>,
    /// Neither.
    pub missing: Vec<usize>,
    /// The config file as the published shards name it (None before any shard published).
    pub config: Option<String>,
}

/// `NAME.shard-I-of-N` → (NAME, I, N), for 1 ≤ I ≤ N ≤ 100 000.
fn parse(name: &str) -> Option<(String, usize, usize)> {
    let (base, rest) = name.rsplit_once(".shard-")?;
    let (i, n) = rest.split_once("-of-")?;
    let (i, n) = (i.parse::<usize>().ok()?, n.parse::<usize>().ok()?);
    ((1..=n).contains(&i) && n <= 100_000 && !base.is_empty()).then(|| (base.to_string(), i, n))
}

/// The config file a shard file names: its third field, read from the file's start (a shard file
/// of a large sweep is hundreds of MB; the name is in its first bytes). Only for display: the
/// file's checksum is what `merge` verifies.
fn config_of(shard_dir: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(shard_dir.join(SHARD_FILE)).ok()?.take(1 << 16).read_to_end(&mut head).ok()?;
    let (_build, rest): (String, _) = postcard::take_from_bytes(&head).ok()?;
    let (_hash, rest): (String, _) = postcard::take_from_bytes(rest).ok()?;
    let (config, _): (String, _) = postcard::take_from_bytes(rest).ok()?;
    Some(config)
}

/// Cells stored in a per-cell store (its `<cell>.bin` files; timings not counted).
fn stored_cells(store: &Path) -> usize {
    std::fs::read_dir(store).map_or(0, |d| {
        d.filter_map(Result::ok)
            .filter(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                n.ends_with(".bin") && !n.ends_with(".timing.bin")
            })
            .count()
    })
}

/// What is on disk of one shard: published, and the cells stored if a store is there.
type Seen = (bool, Option<usize>);

/// Every sweep with a shard directory or a shard's store in `dir`, by name and shard count.
pub(crate) fn status(dir: &Path) -> std::io::Result<Vec<SweepStatus>> {
    // (name, N) → shard → what is on disk of it
    let mut found: BTreeMap<(String, usize), BTreeMap<usize, Seen>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().to_string();
        // real directories only: a link is not a shard of this directory's
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if let Some(store) = file.strip_prefix('.').and_then(|f| f.strip_suffix(".cells")) {
            if let Some((name, i, n)) = parse(store) {
                found.entry((name, n)).or_default().entry(i).or_default().1 = Some(stored_cells(&entry.path()));
            }
        } else if let Some((name, i, n)) = parse(&file) {
            let published = entry.path().join(SHARD_FILE).is_file();
            found.entry((name, n)).or_default().entry(i).or_default().0 = published;
        }
    }
    Ok(found
        .into_iter()
        .map(|((name, count), shards)| {
            let done: Vec<usize> = shards.iter().filter(|(_, s)| s.0).map(|(i, _)| *i).collect();
            let incomplete = shards.iter().filter_map(|(i, s)| (!s.0).then_some((*i, s.1?))).collect();
            let missing = (1..=count).filter(|i| shards.get(i).is_none_or(|s| !s.0 && s.1.is_none())).collect();
            let config = done.first().and_then(|i| config_of(&dir.join(format!("{name}.shard-{i}-of-{count}"))));
            SweepStatus { name, count, done, incomplete, missing, config }
        })
        .collect())
}

/// The report of `shards status` for the sweeps in `dir`: per sweep its shards done, incomplete
/// and missing, the exact resubmission of the others (Slurm, and without it) and the merge.
pub(crate) fn render(dir: &Path, sweeps: &[SweepStatus]) -> String {
    let d = dir.display();
    if sweeps.is_empty() {
        return format!("no sharded sweep in {d} (no NAME.shard-I-of-N directory or store)\n");
    }
    let mut out = String::new();
    for s in sweeps {
        let config = s.config.as_deref().unwrap_or("CONFIG");
        let _ = write!(out, "{} ({} shards, config {config}): {} done", s.name, s.count, s.done.len());
        if !s.done.is_empty() {
            let _ = write!(out, " ({})", index_ranges(&s.done));
        }
        if !s.incomplete.is_empty() {
            let list: Vec<String> = s
                .incomplete
                .iter()
                .map(|(i, c)| format!("{i}: {c} cell{} stored", if *c == 1 { "" } else { "s" }))
                .collect();
            let _ = write!(
                out,
                "; {} started, not published ({}; running, or stopped — `--resume` reuses the stored cells)",
                s.incomplete.len(),
                list.join(", ")
            );
        }
        if !s.missing.is_empty() {
            let _ = write!(out, "; {} missing ({})", s.missing.len(), index_ranges(&s.missing));
        }
        out.push('\n');
        let mut rerun: Vec<usize> = s.incomplete.iter().map(|(i, _)| *i).chain(s.missing.iter().copied()).collect();
        rerun.sort_unstable();
        if !rerun.is_empty() {
            let ranges = index_ranges(&rerun);
            let _ = writeln!(out, "  rerun: sbatch --array={ranges} scripts/slurm_sweep.sh {config} {} {d}", s.count);
            let _ = writeln!(
                out,
                "     or: for i in {}; do tinkertoy run {config} --shard $i/{} --resume --reports {d}; done",
                rerun.iter().map(usize::to_string).collect::<Vec<_>>().join(" "),
                s.count
            );
        }
        let _ = writeln!(
            out,
            "  merge: tinkertoy merge {d}/{}.shard-1-of-{} --reports {d}{}",
            s.name,
            s.count,
            if rerun.is_empty() { "" } else { " --wait SECONDS" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_parse_and_others_do_not() {
        assert_eq!(parse("chain.shard-3-of-8"), Some(("chain".into(), 3, 8)));
        assert_eq!(parse("a.b.shard-1-of-1"), Some(("a.b".into(), 1, 1)));
        for bad in ["chain", "chain.shard-0-of-8", "chain.shard-9-of-8", ".shard-1-of-2", "x.shard-1-of-200000"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
