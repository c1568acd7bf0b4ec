//! Suites: one file that names several experiment files, run one after another into one
//! directory with one report that answers for each (`experiments/benchmarks.yaml`). A suite holds
//! no cells of its own: every member keeps its own scene, duration, reference and target.
//!
//! ```yaml
//! suite: benchmarks
//! description: The shipped benchmark models, each scored by its library's criterion.
//! experiments: [iftomm_a02_n2.yaml, andrews_squeezer.yaml]   # relative to this file
//! limits: {cell_seconds: 600}   # optional: for every member, over its own; --limit over both
//! ```

use super::config::{ConfigError, at, parse_as, read_config};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::path::{Path, PathBuf};

/// The most experiments one suite may name.
pub(crate) const MAX_MEMBERS: usize = 64;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    suite: Spanned<String>,
    #[serde(default)]
    description: String,
    experiments: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    limits: Option<Spanned<std::collections::BTreeMap<String, Spanned<f64>>>>,
}

/// A loaded suite: its name, description, text and the member files in order.
#[derive(Clone, Debug)]
pub(crate) struct Suite {
    /// Names the suite's report directory.
    pub name: String,
    /// What the suite is for (Markdown).
    pub description: String,
    /// The suite file's text (hashed for provenance).
    pub text: String,
    /// The member experiment files, resolved against the suite file's directory.
    pub members: Vec<PathBuf>,
    /// The suite's `limits:` as overrides of every member's own, in file order.
    pub limits: Vec<(String, f64)>,
}

/// Whether `text` is a suite file (a top-level `suite:` key) rather than an experiment.
pub(crate) fn is_suite(text: &str) -> bool {
    // Parsed, not sniffed: a top-level key `suite` in block or flow style; text that is not a
    // YAML map is no suite (the config reader then says what is wrong with it).
    serde_saphyr::from_str::<std::collections::BTreeMap<String, serde::de::IgnoredAny>>(text)
        .is_ok_and(|m| m.contains_key("suite"))
}

/// Reads and checks a suite file: its name, and that every member exists, once. The members'
/// own contents are checked by loading them (the caller does so before running any).
pub(crate) fn load(file: &str) -> Result<Suite, ConfigError> {
    let text = read_config(file)?;
    let raw: RawSuite = parse_as(file, &text)?;
    let err = |location, message: String| ConfigError { file: file.to_string(), location, message };
    let name = raw.suite.value.clone();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(err(
            at(&raw.suite),
            format!(
                "field `suite` = `{}` is invalid; expected letters, digits, `_` or `-` (it names the report directory)",
                crate::params::short(&name)
            ),
        ));
    }
    let list = &raw.experiments.value;
    if list.is_empty() || list.len() > MAX_MEMBERS {
        return Err(err(
            at(&raw.experiments),
            format!("field `experiments` lists {} files; expected 1 to {MAX_MEMBERS}", list.len()),
        ));
    }
    let base = Path::new(file).parent().unwrap_or(Path::new("."));
    let mut members: Vec<PathBuf> = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let path = base.join(&m.value);
        if !path.is_file() {
            return Err(err(
                at(m),
                format!(
                    "field `experiments[{i}]` = `{}`: no such file (paths are relative to the suite file)",
                    crate::params::short(&m.value)
                ),
            ));
        }
        if members.contains(&path) {
            return Err(err(
                at(m),
                format!("field `experiments[{i}]` = `{}` is listed twice", crate::params::short(&m.value)),
            ));
        }
        members.push(path);
    }
    // Checked here, with the suite file's line and column; applied to every member.
    super::budget::Limits::resolve(file, raw.limits.as_ref(), &[])?;
    let limits = raw.limits.iter().flat_map(|l| l.value.iter().map(|(k, v)| (k.clone(), v.value))).collect();
    Ok(Suite { name, description: raw.description.trim().to_string(), text, members, limits })
}
