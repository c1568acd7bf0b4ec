//! Records the git commit the binary is built from (with `-dirty` when tracked files differ from it),
//! so that reports name the code that produced them wherever the binary runs.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    for path in ["src", "Cargo.toml", "build.rs", ".git/HEAD", ".git/index"] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
        println!("cargo:rerun-if-changed=.git/{head}");
    }
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(c) if git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty()) => {
            format!("{c}-dirty")
        }
        Some(c) => c,
        None => "unknown (not built from a git checkout)".into(),
    };
    println!("cargo:rustc-env=TINKERTOY_COMMIT={commit}");
}
