//! The fence between layers: every module of `src/` imports only from its own layer and the ones
//! below it, in the order `src/lib.rs` lists them. Read from the sources (outside `#[cfg(test)]`
//! sections, test modules in files named `tests.rs`, and comments), so an upward import fails
//! here with the file and line.

use std::path::Path;

/// The layers, bottom up, as `src/lib.rs` lists them.
const LAYERS: &[&[&str]] = &[
    &["special", "params", "metrics", "input", "deadline", "expr", "large_pages"],
    &["model"],
    &["constraint"],
    &["sparse"],
    &["contact"],
    &["system"],
    &["friction"],
    &["linsolve"],
    &["normal_solve"],
    &["integrator"],
    &["multibody"],
    &["scene"],
    &["formulation"],
    &["stabilization"],
    &["registry"],
    &["experiment"],
    &["report"],
    &["validate"],
    &["commands", "cli"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules a line of code names through `crate::` (paths and `use` groups).
fn imports(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in line.match_indices("crate::") {
        let rest = &line[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').filter_map(|g| g.trim().split("::").next()).map(str::to_string));
        } else {
            out.push(rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect());
        }
    }
    out.retain(|m| !m.is_empty() && m.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
    out
}

#[test]
fn every_import_runs_down_the_layers_of_lib_rs() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut declared: Vec<&str> =
        lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';')).collect();
    declared.sort_unstable();
    let mut layered: Vec<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    layered.sort_unstable();
    assert_eq!(declared, layered, "every module of lib.rs has a layer here");
    for m in &declared {
        assert!(lib.contains(&format!("[`{m}`]")), "lib.rs's layer list names `{m}`");
    }
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut violations = Vec::new();
    for f in all {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        let top = rel.split(['/', '.']).next().unwrap().to_string();
        let Some(own) = layer(&top) else { continue }; // lib.rs, main.rs
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue; // a `#[cfg(test)] mod tests;` in a file of its own: tests may use any layer
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for m in imports(line) {
                if let Some(l) = layer(&m)
                    && l > own
                {
                    violations.push(format!("src/{rel}:{}: `{top}` imports `{m}`, a layer above it", n + 1));
                }
            }
        }
    }
    assert!(violations.is_empty(), "imports against the layers of lib.rs:\n{}", violations.join("\n"));
}
