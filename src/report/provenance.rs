//! Provenance: what produced a report (config hash, crate version, git commit, date, machine).

use sha2::{Digest, Sha256};

/// Everything a report's footer states about its origin.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// SHA-256 of the config file's bytes, hex.
    pub config_hash: String,
    /// tinkertoy's crate version.
    pub version: &'static str,
    /// `git rev-parse HEAD` of the working directory (with `-dirty` if it has changes), if any.
    pub commit: String,
    /// UTC date and time of the run (ISO 8601).
    pub date: String,
    /// OS, architecture, CPU model, logical CPUs, memory.
    pub machine: String,
    /// Worker threads used.
    pub threads: usize,
    /// The machine's load average over 1, 5 and 15 minutes when the run started (Linux
    /// `/proc/loadavg`), if set: timings depend on it, the machine may be shared.
    pub load_start: Option<[f64; 3]>,
    /// The load average when the report was assembled.
    pub load_end: Option<[f64; 3]>,
    /// The core the timing thread was pinned to, if timing ran and pinning succeeded.
    pub timing_core: Option<usize>,
    /// How the results were put together when not by one run from scratch (resumed, merged from
    /// shards, a `--cells` selection).
    pub notes: Vec<String>,
    /// Where each cell was timed, by cell index, when the cells were timed on several machines
    /// (a merge of shards); empty: every cell by this run, here, on `timing_core`.
    pub timed_by: Vec<crate::experiment::timing::TimedBy>,
}

impl Provenance {
    /// Where cell `id` was timed.
    pub fn timed_by(&self, id: usize) -> crate::experiment::timing::TimedBy {
        self.timed_by.get(id).cloned().unwrap_or_else(|| crate::experiment::timing::TimedBy::here(self.timing_core))
    }
}

/// Civil date from days since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn now_utc() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", s / 3600, (s / 60) % 60, s % 60)
}

fn machine() -> String {
    let cpu = crate::experiment::timing::cpu_model();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map(|kb| format!("{:.1} GiB", kb / 1024.0 / 1024.0))
        .unwrap_or_else(|| "unknown memory".into());
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let lanes = crate::linsolve::gauss_seidel::simd_lanes();
    format!(
        "{} {}, {cpu}, {cpus} logical CPUs, {mem} (gauss_seidel's coloured sweep with simd: {lanes})",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The load average over 1, 5 and 15 minutes (`/proc/loadavg`), where the system gives it.
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|w| w.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// The note naming the items of the active registry that came from outside the crate, if any:
/// their code is the binary's, not that of tinkertoy's commit.
fn outside_items() -> Option<String> {
    let outside = crate::registry::active().outside();
    (!outside.is_empty()).then(|| {
        let items: Vec<String> = outside.iter().map(|(axis, name)| format!("{} `{name}`", axis.name())).collect();
        format!(
            "items from outside tinkertoy, registered by this binary ({}): {}; the commit above is tinkertoy's, their code is identified by the build",
            std::env::current_exe().ok().and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned())).unwrap_or_default(),
            items.join(", ")
        )
    })
}

impl Provenance {
    /// The load line of the report: at the start and at the end, with the logical CPUs.
    pub fn load_text(&self) -> String {
        let f = |l: Option<[f64; 3]>| l.map_or("unknown".to_string(), |[a, b, c]| format!("{a:.2}, {b:.2}, {c:.2}"));
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        format!(
            "load average (1, 5, 15 min) at the start {}, at the end {}, on {cpus} logical CPUs: timings taken under a load near or above the CPU count are slower and spread more",
            f(self.load_start),
            f(self.load_end)
        )
    }

    /// Collects provenance for a run of the config text `config` on `threads` threads.
    pub fn collect(config: &str, threads: usize) -> Self {
        let hash = Sha256::digest(config.as_bytes());
        // The commit the binary was built from (build.rs), wherever it runs.
        let commit = env!("TINKERTOY_COMMIT").to_string();
        Provenance {
            config_hash: hash.iter().map(|b| format!("{b:02x}")).collect(),
            version: env!("CARGO_PKG_VERSION"),
            commit,
            date: now_utc(),
            machine: machine(),
            threads,
            load_start: None,
            load_end: load_average(),
            timing_core: None,
            notes: outside_items().into_iter().collect(),
            timed_by: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::civil;

    #[test]
    fn civil_from_days_known_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
    }
}
