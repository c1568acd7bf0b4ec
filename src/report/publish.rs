//! Crash-safe publication of a report directory.
//!
//! [`claim`] runs before anything is computed: it checks the reports directory (a directory, or
//! creatable; writable; the report's name short enough), takes an exclusive lock on
//! `<root>/.<name>.lock` (released by the kernel when the process ends, however it ends), removes
//! what earlier runs that died left behind, and creates the temporary directory the report is
//! written into. [`Publisher::publish`] then swaps it in with one atomic exchange of the two
//! directories (Linux `renameat2(RENAME_EXCHANGE)`), so that at every instant `<root>/<name>` is
//! either the old complete report or the new one, and removes the old. Where the exchange is not
//! available (another OS, a filesystem without it), `<root>/<name>` is a symbolic link to a
//! generation directory `.<name>.gen-<pid>` instead, and publishing renames a new link over it —
//! also one atomic step. Only the first such publication over a report that is a real directory
//! has a window (two renames), once. On SIGINT, SIGTERM or SIGHUP the temporary directory is
//! removed before the process exits.

use crate::experiment::store::host;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Directories to remove if the process is interrupted.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Longest report name ([`crate::experiment::grid::MAX_NAME`]).
pub(crate) use crate::experiment::grid::MAX_NAME;

/// Installs the handler that removes pending temporary directories on SIGINT, SIGTERM and SIGHUP,
/// then exits with 128 + the signal number. Call once, early.
pub(crate) fn install_signal_cleanup() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let dirs = PENDING.lock().map(|p| p.clone()).unwrap_or_default();
            for d in dirs {
                // Out of the writer's way first (its next write fails instead of recreating files
                // under the directory being removed), then removed.
                let name = d.file_name().unwrap_or_default().to_string_lossy().replace(".tmp-", ".trash-");
                let trash = d.with_file_name(name);
                let gone = if std::fs::rename(&d, &trash).is_ok() { trash } else { d };
                let _ = std::fs::remove_dir_all(gone);
            }
            eprintln!("interrupted (signal {sig}): nothing was published; the previous report, if any, is unchanged");
            std::process::exit(128 + sig);
        }
    });
}

fn pending(dir: &Path, add: bool) {
    if let Ok(mut p) = PENDING.lock() {
        if add {
            p.push(dir.to_path_buf());
        } else {
            p.retain(|d| d != dir);
        }
    }
}

/// A claimed report directory: locked, with its temporary directory created.
pub(crate) struct Publisher {
    final_dir: PathBuf,
    tmp: PathBuf,
    _lock: File,
    /// Set once the report is in place; otherwise dropping the publisher (an error, a panic
    /// unwinding) removes the temporary directory.
    done: bool,
}

impl Drop for Publisher {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.tmp);
            pending(&self.tmp, false);
        }
    }
}

fn reason(e: &std::io::Error) -> String {
    crate::experiment::grid::io_reason(e)
}

/// Whether process `pid` is alive (Linux: /proc; elsewhere assumed alive).
fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") { Path::new(&format!("/proc/{pid}")).exists() } else { true }
}

/// Why a report directory could not be claimed or published; each renders as one line naming the
/// path and what is wrong.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PublishError {
    /// Another process holds the report's lock.
    #[error(
        "another tinkertoy process is running `{name}` into `{root}`; wait for it to finish or pass another --reports directory"
    )]
    Busy {
        /// The report's name.
        name: String,
        /// The reports directory, shortened for display.
        root: String,
    },
    /// The reports directory or the report's path cannot be used as given.
    #[error("{0}")]
    Refused(String),
    /// Renaming the written report into place failed.
    #[error("{0}")]
    Io(String),
}

/// Claims `<root>/<name>` for this process (see the module documentation). The error is one line
/// naming the path and what is wrong.
pub(crate) fn claim(root: &Path, name: &str) -> Result<Publisher, PublishError> {
    claim_checked(root, name).map_err(|e| match e {
        PublishError::Io(m) => PublishError::Refused(m),
        e => e,
    })
}

fn claim_checked(root: &Path, name: &str) -> Result<Publisher, PublishError> {
    let refused = PublishError::Refused;
    let shown = |p: &Path| crate::params::short(&p.display().to_string());
    if name.len() > MAX_NAME {
        return Err(refused(format!("report name is {} bytes long; at most {MAX_NAME}", name.len())));
    }
    if root.exists() && !root.is_dir() {
        return Err(refused(format!("--reports `{}` exists and is not a directory", shown(root))));
    }
    std::fs::create_dir_all(root)
        .map_err(|e| refused(format!("--reports `{}`: cannot create the directory: {}", shown(root), reason(&e))))?;
    let final_dir = root.join(name);
    if final_dir.symlink_metadata().is_ok_and(|m| !m.is_dir()) && generation_of(&final_dir, name).is_none() {
        return Err(refused(format!("`{}` exists and is not a directory; move it away", shown(&final_dir))));
    }
    let lock_path = root.join(format!(".{name}.lock"));
    // O_NOFOLLOW: a link planted at the lock's name (dangling or not) is refused, never written
    // through to a file outside the reports directory.
    let lock = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&lock_path)
    }
    .map_err(|e| refused(format!("--reports `{}` is not writable: {}", shown(root), reason(&e))))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(PublishError::Busy { name: name.to_string(), root: shown(root) });
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(refused(format!("cannot lock `{}`: {}", shown(&lock_path), reason(&e))));
        }
    }
    remove_stale(root, name);
    let tmp = root.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        // A link is removed as a link (remove_file does not follow it), never descended into.
        let _ = std::fs::remove_file(&tmp);
    } else if tmp.exists() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    std::fs::create_dir(&tmp)
        .map_err(|e| refused(format!("--reports `{}` is not writable: {}", shown(root), reason(&e))))?;
    pending(&tmp, true);
    mark(&tmp).map_err(|e| refused(format!("--reports `{}` is not writable: {}", shown(root), reason(&e))))?;
    Ok(Publisher { final_dir, tmp, _lock: lock, done: false })
}

/// The marker file inside every directory a run creates (its temporary directory, which becomes
/// the published report): which host and process made it, and when that process started.
pub(crate) const MARKER: &str = ".tinkertoy-run";

/// This process's PID namespace (Linux: the link /proc/self/ns/pid, e.g. `pid:[4026531836]`;
/// empty elsewhere): PIDs of another namespace — another container, or a cluster node's shard on
/// this host — mean nothing here.
fn pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid").map(|l| l.display().to_string()).unwrap_or_default()
}

/// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat), which
/// tells a live process from a later one that reused its PID.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

/// Writes the marker of this run into `dir`.
fn mark(dir: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let text = format!(
        "tinkertoy run\nhost {}\npidns {}\npid {pid}\nstart {}\n",
        host(),
        pid_namespace(),
        start_time(pid).unwrap_or(0)
    );
    std::fs::write(dir.join(MARKER), text)
}

/// Whether `dir` was made by a run of this host that is provably gone (its process is dead, or
/// its PID now belongs to a process started at another time), or — `same_name` — by another run
/// of the experiment whose lock we hold (the lock is the kernel's, whatever the PID namespace).
/// Without a readable marker of this host: never; a run of another PID namespace (its marker's
/// `pidns`; markers without it are of this one) is judged only through the lock, since its PID
/// would be looked up among this namespace's processes.
fn made_by_a_dead_run(dir: &Path, same_name: bool) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(MARKER)) else { return false };
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string()));
    let (Some(h), Some(pid), Some(start)) = (field("host "), field("pid "), field("start ")) else { return false };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else { return false };
    let other_namespace = field("pidns ").is_some_and(|ns| ns != pid_namespace());
    if h != host() || (!other_namespace && pid == std::process::id()) {
        return false;
    }
    if same_name {
        return true;
    }
    !other_namespace && (!alive(pid) || start_time(pid).is_some_and(|s| s != start))
}

/// Removes what dead runs of this host left in `root`: temporary and old directories that hold
/// this host's marker and whose run is gone (for `name`, whose lock we hold, any other run's).
/// A directory without the marker — a user's, whatever its name — or another host's is never
/// touched.
fn remove_stale(root: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    // the generation the report links to is the published report, whoever made it
    let current = generation_of(&root.join(name), name);
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        let Some(rest) = file.strip_prefix('.') else { continue };
        let split = [".tmp-", ".old-", ".trash-", ".gen-", ".link-"].iter().find_map(|m| rest.rsplit_once(m));
        let Some((stem, pid)) = split else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if current.as_deref() == Some(file.as_str()) {
            continue;
        }
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_symlink() && file.contains(".link-") && stem == name && pid != std::process::id() {
            // a link a killed run made for the swap (under our lock): removed as a link
            let _ = std::fs::remove_file(e.path());
        } else if kind.is_dir() && made_by_a_dead_run(&e.path(), stem == name) {
            let _ = std::fs::remove_dir_all(e.path());
        } else if kind.is_dir() && stem == name && pid != std::process::id() {
            unmarked_leftover(&e.path());
        }
    }
}

/// A run of the experiment whose lock we hold, killed between creating its temporary directory
/// and finishing its marker, leaves the directory empty or holding only a marker without its
/// fields: removed, and only then (`remove_dir` fails on anything else, so nothing with data in
/// it is ever deleted by its name).
fn unmarked_leftover(dir: &Path) {
    let marker = dir.join(MARKER);
    let partial = std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file() && m.len() < 4096)
        && std::fs::read_to_string(&marker).is_ok_and(|t| !t.contains("\nstart "));
    if partial {
        let _ = std::fs::remove_file(&marker);
    }
    let _ = std::fs::remove_dir(dir);
}

/// The generation directory's file name `<root>/<name>` links to, if it is such a link: a
/// relative target `.<name>.gen-<pid>` in the same directory (anything else is not ours).
fn generation_of(final_dir: &Path, name: &str) -> Option<String> {
    let target = std::fs::read_link(final_dir).ok()?;
    let target = target.to_str()?;
    let pid = target.strip_prefix(&format!(".{name}.gen-"))?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then(|| target.to_string())
}

/// Whether the atomic exchange is to be used: not where `TINKERTOY_NO_RENAME_EXCHANGE` is set
/// (the tests' way to run the generation-link path on a filesystem that has the exchange).
fn exchange_wanted() -> bool {
    std::env::var_os("TINKERTOY_NO_RENAME_EXCHANGE").is_none()
}

/// Atomically exchanges two existing paths (Linux); Err when unsupported.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; renameat2 reads them and touches no memory of ours.
    let r = unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

impl Publisher {
    /// The temporary directory to write the report into.
    pub(crate) fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Swaps the written report in (see the module documentation) and returns its directory.
    pub(crate) fn publish(mut self) -> Result<PathBuf, PublishError> {
        let shown = crate::params::short(&self.final_dir.display().to_string());
        let meta = self.final_dir.symlink_metadata().ok();
        let real_dir = meta.as_ref().is_some_and(|m| m.is_dir());
        let absent = meta.is_none();
        if real_dir && exchange_wanted() && exchange(&self.tmp, &self.final_dir).is_ok() {
            // The old report is now at the temporary path.
            self.done = true;
            let _ = std::fs::remove_dir_all(&self.tmp);
        } else if absent && exchange_wanted() {
            std::fs::rename(&self.tmp, &self.final_dir)
                .map_err(|e| PublishError::Io(format!("cannot write `{shown}`: {}", reason(&e))))?;
            self.done = true;
        } else {
            self.publish_generation(real_dir)
                .map_err(|e| PublishError::Io(format!("cannot replace `{shown}`: {}", reason(&e))))?;
        }
        pending(&self.tmp, false);
        Ok(self.final_dir.clone())
    }

    /// Without the exchange: the temporary directory becomes the generation `.<name>.gen-<pid>`,
    /// and a new link to it is renamed over `<root>/<name>` (one atomic step when that is a link
    /// or absent; over a real directory, once, the directory is moved aside first). The previous
    /// generation, or the moved-aside directory, is removed after.
    fn publish_generation(&mut self, real_dir: bool) -> std::io::Result<()> {
        let root = self.final_dir.parent().unwrap_or(Path::new("."));
        let name = self.final_dir.file_name().unwrap_or_default().to_string_lossy().to_string();
        let pid = std::process::id();
        let previous = generation_of(&self.final_dir, &name);
        // a name no entry has (the current generation may carry this PID: a reused one, or this
        // process publishing twice); under the lock nobody else creates one
        let mut suffix = pid;
        let mut generation = format!(".{name}.gen-{suffix}");
        while root.join(&generation).symlink_metadata().is_ok() {
            suffix = suffix.wrapping_add(1);
            generation = format!(".{name}.gen-{suffix}");
        }
        let link = root.join(format!(".{name}.link-{pid}"));
        std::fs::rename(&self.tmp, root.join(&generation))?;
        self.done = true;
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&generation, &link)?;
        let aside = root.join(format!(".{name}.old-{pid}"));
        if real_dir {
            // the one window: a report written by the exchange path is a real directory
            std::fs::rename(&self.final_dir, &aside)?;
        }
        std::fs::rename(&link, &self.final_dir)?;
        if real_dir {
            let _ = std::fs::remove_dir_all(&aside);
        }
        // the previous generation, if it is a directory a run made (its marker), not a link
        if let Some(p) = previous.map(|p| root.join(p))
            && p.symlink_metadata().is_ok_and(|m| m.is_dir())
            && p.join(MARKER).is_file()
        {
            let _ = std::fs::remove_dir_all(p);
        }
        Ok(())
    }
}
