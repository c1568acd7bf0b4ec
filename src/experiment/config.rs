//! The YAML experiment schema (serde-saphyr; unknown keys rejected) and its validation against the
//! registries. Validation is complete before anything runs: a bad config produces one
//! [`ConfigError`] naming the file, line and column, the field, the bad value and the valid choices.

use crate::params::Scalar;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::fmt;

/// A config that cannot be run, located in its file.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The config file.
    pub file: String,
    /// 1-based line and column, when known.
    pub location: Option<(u32, u32)>,
    /// What is wrong (field, bad value, valid choices).
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A time step: a number of seconds, or a fraction written as the string "p/q" (e.g. "1/60").
#[derive(Clone, Debug, PartialEq)]
pub struct StepValue {
    /// Seconds.
    pub seconds: f64,
    /// As written (used in labels).
    pub text: String,
}

impl<'de> Deserialize<'de> for StepValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = StepValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a step in seconds, as a number or a fraction string like \"1/60\"")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<StepValue, E> {
                // Plain decimals as written (0.01); extreme ones in exponent form (1e-300).
                let plain = format!("{x}");
                let text = if plain.len() > 16 { format!("{x:e}") } else { plain };
                Ok(StepValue { seconds: x, text })
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<StepValue, E> {
                self.visit_f64(x as f64)
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<StepValue, E> {
                self.visit_f64(x as f64)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<StepValue, E> {
                let parsed = match s.split_once('/') {
                    Some((p, q)) => p.trim().parse::<f64>().ok().zip(q.trim().parse::<f64>().ok()).map(|(p, q)| p / q),
                    None => s.trim().parse::<f64>().ok(),
                };
                match parsed {
                    Some(x) => Ok(StepValue { seconds: x, text: s.trim().to_string() }),
                    None => {
                        Err(E::custom(format!("invalid step `{s}`; expected a number or a fraction like \"1/60\"")))
                    }
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A scene parameter: one value, or a list of values to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct OneOrMany(pub Vec<Scalar>);

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, true/false, or a list of them")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![Scalar::Bool(b)]))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![Scalar::Num(x)]))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![Scalar::Num(x as f64)]))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![Scalar::Num(x as f64)]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<Scalar>()? {
                    v.push(x);
                }
                Ok(OneOrMany(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `scene:` — which mechanism: a registered scene with parameters (a list value sweeps that
/// parameter), or a model file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScene {
    /// Registry name.
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    /// A model file (relative to the config's directory).
    #[serde(default)]
    pub model: Option<Spanned<String>>,
    /// Parameter values (defaults for the rest).
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<OneOrMany>>,
}

impl RawScene {
    /// Where the scene is named in the file (its `name` or `model`).
    pub fn at(&self) -> Option<(u32, u32)> {
        self.name.as_ref().or(self.model.as_ref()).and_then(at)
    }
}

/// One entry of `formulations:`, `solvers:` or `integrators:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawItem {
    /// Registry name.
    pub name: Spanned<String>,
    /// Display label (default: name and non-default parameters).
    #[serde(default)]
    pub label: Option<String>,
    /// Parameter values (defaults for the rest).
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<Scalar>>,
}

/// An experiment file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Experiment name: the report goes to `reports/<name>/`.
    pub name: Spanned<String>,
    /// What the experiment shows (copied into the report).
    #[serde(default)]
    pub description: String,
    /// The mechanism.
    pub scene: RawScene,
    /// Formulations to compare.
    pub formulations: Spanned<Vec<RawItem>>,
    /// Linear solvers to compare.
    pub solvers: Spanned<Vec<RawItem>>,
    /// Integrators for the ODE formulations (stepping formulations take only `steps`).
    #[serde(default)]
    pub integrators: Option<Spanned<Vec<RawItem>>>,
    /// Post-step stabilizers to compare (default: `none` only).
    #[serde(default)]
    pub stabilizers: Option<Spanned<Vec<RawItem>>>,
    /// Step sizes \[s\] for fixed-step integrators and steppers.
    #[serde(default)]
    pub steps: Option<Spanned<Vec<Spanned<StepValue>>>>,
    /// Tolerances (rtol = atol) for adaptive integrators.
    #[serde(default)]
    pub tolerances: Option<Spanned<Vec<Spanned<f64>>>>,
    /// Simulated time \[s\].
    pub duration: Spanned<f64>,
    /// Time between samples \[s\]: a number, or a fraction "p/q" as steps take.
    pub sample_interval: Spanned<StepValue>,
    /// Windows \[0, w\] and \[T − w, T\] \[s\] over which the report averages the signed energy change.
    #[serde(default)]
    pub energy_window: Option<Spanned<f64>>,
    /// A run stops as diverged when ‖C‖∞ exceeds this (units of C). Default 100.
    #[serde(default)]
    pub divergence_bound: Option<Spanned<f64>>,
    /// Per-sample quantities written to `states.csv`: any of `q`, `v`, `lambda` (multipliers per
    /// row, force units), `c` (C per row), `jv` (J v per row), and named outputs of the scene.
    #[serde(default)]
    pub record: Option<Spanned<Vec<Spanned<String>>>>,
    /// The largest recorded state a run may hold \[MB\] (default 256); checked before running.
    #[serde(default)]
    pub record_limit_mb: Option<Spanned<f64>>,
    /// Reference data to compare every cell with, exactly at its times.
    #[serde(default)]
    pub reference: Option<Spanned<RawReference>>,
    /// Output crossings to locate (and the period they give).
    #[serde(default)]
    pub events: Option<Spanned<Vec<Spanned<RawEvent>>>>,
    /// The accuracy the reader needs: the report opens with the cheapest cell meeting it.
    #[serde(default)]
    pub target: Option<Spanned<super::goal::RawTarget>>,
    /// What the rankings sort by: an error metric, `time` or `work`.
    #[serde(default)]
    pub rank_by: Option<Spanned<String>>,
    /// How wall times are measured.
    #[serde(default)]
    pub timing: Option<Spanned<super::goal::RawTiming>>,
    /// Bounds on the work and memory of the run (see `budget::LIMITS`).
    #[serde(default)]
    pub limits: Option<Spanned<BTreeMap<String, Spanned<f64>>>>,
}

/// `reference:` a CSV of `t` and named outputs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReference {
    /// The CSV file, relative to the config file.
    pub file: Spanned<String>,
    /// The columns to compare (default: every column that names an output of the scene).
    #[serde(default)]
    pub columns: Option<Spanned<Vec<Spanned<String>>>>,
}

/// One entry of `events:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    /// The output whose crossings are located.
    pub output: Spanned<String>,
    /// The value crossed (default 0), in the output's unit.
    #[serde(default)]
    pub value: Option<Spanned<f64>>,
    /// `up` (default), `down` or `both`.
    #[serde(default)]
    pub direction: Option<Spanned<String>>,
}

/// The location of a spanned value.
pub fn at<T>(s: &Spanned<T>) -> Option<(u32, u32)> {
    Some((s.referenced.line() as u32, s.referenced.column() as u32))
}

/// Parses YAML text; errors become one line naming the field (the key nearest before the error's
/// position), in the project's words (no library advice), with the value shortened.
pub fn parse(file: &str, text: &str) -> Result<RawConfig, ConfigError> {
    parse_as::<RawConfig>(file, text)
}

/// [`parse`] for any YAML schema (experiment files, model files).
pub fn parse_as<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, ConfigError> {
    serde_saphyr::from_str::<T>(text).map_err(|e| {
        let location = e.location().map(|l| (l.line() as u32, l.column() as u32));
        let first = e.to_string().lines().next().unwrap_or("").to_string();
        // "error: line L column C: message" → "message"
        let mut message = first.trim_start_matches("error: ").to_string();
        if let Some(idx) = message.find(": ").filter(|_| message.starts_with("line ")) {
            message = message[idx + 2..].to_string();
        }
        message = plain_words(&message);
        let src = location.and_then(|(line, _)| text.lines().nth((line as usize).saturating_sub(1)));
        // An unknown field is located at itself (in a flow map the key before it is another one).
        let unknown = message.strip_prefix("unknown field `").and_then(|r| r.split('`').next()).map(str::to_string);
        let key = unknown.or_else(|| location.zip(src).and_then(|((_, col), line)| key_before(line, col as usize)));
        // The value read off the line, when the message does not quote it.
        let value = location.zip(src).map(|((_, col), line)| {
            let rest: String = line.chars().skip((col as usize).saturating_sub(1)).collect();
            rest.split([',', '}', ']', '#']).next().unwrap_or("").trim().to_string()
        });
        if let Some(v) = value.filter(|v| !v.is_empty() && !message.contains('`')) {
            message = format!("{message} (got `{}`)", crate::params::short(&v));
        }
        message = hint(&message);
        // A missing field is reported where its map ends; the key before that point is not it.
        if let Some(key) = key
            && !message.starts_with("field `")
            && !message.starts_with("missing field")
        {
            message = format!("field `{}`: {message}", crate::params::short(&key));
        }
        ConfigError { file: file.to_string(), location, message }
    })
}

/// The expected type named as a user reads it, and a hint where a common slip explains the
/// error: a mis-indented key, an unquoted value with commas in a flow map.
fn hint(message: &str) -> String {
    let got = message.split("(got ").nth(1).map(|g| g.trim_end_matches(')').to_string());
    let mut m = message.to_string();
    for (library, plain) in [
        ("expected string scalar", "expected a single value (a number or a word)"),
        ("expected scalar", "expected a single value (a number or a word)"),
        ("expected sequence start", "expected a list, e.g. [0.01]"),
        ("expected mapping start", "expected a map, e.g. {name: rk4}"),
    ] {
        if m.starts_with(library) {
            m = m.replacen(library, plain, 1);
            if got.as_deref().is_some_and(|g| g.starts_with("`[")) {
                m.push_str(", not a list");
            }
        }
    }
    if let Some(key) = m.strip_prefix("unknown field `").and_then(|r| r.split('`').next()) {
        if key.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '.') || key.contains(')') {
            m.push_str("; a value with commas inside a `{…}` map must be quoted, e.g. value: \"B.point(0, 0, 0.5).x\"");
        } else if ["params", "name", "label"].contains(&key) {
            m.push_str(&format!(
                "; is `{key}` indented under the wrong key? It belongs to `scene:` or to an entry of formulations, solvers, integrators or stabilizers"
            ));
        }
    }
    m
}

/// The YAML library's wording made plain: no advice about its options.
fn plain_words(message: &str) -> String {
    let m = message.split(", set ").next().unwrap_or(message).to_string();
    if let Some(rest) = m.strip_prefix("non-finite float ") {
        let value = rest.split(" rejected").next().unwrap_or(rest);
        return format!("{value} is not a finite number; no field takes NaN or an infinity");
    }
    if let Some(key) = m.strip_prefix("duplicate mapping key: ") {
        return format!("key `{}` is given twice", crate::params::short(key));
    }
    m
}

/// The mapping key that a value at 1-based column `col` of `line` belongs to: the last `key:`
/// before it (block or flow style).
fn key_before(line: &str, col: usize) -> Option<String> {
    let prefix: String = line.chars().take(col.saturating_sub(1)).collect();
    let prefix = if prefix.trim().is_empty() { line.to_string() } else { prefix };
    let colon = prefix.rfind(':')?;
    let head = &prefix[..colon];
    let start = head.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).map_or(0, |i| i + 1);
    let key = head[start..].trim();
    (!key.is_empty() && !key.starts_with('-')).then(|| key.to_string())
}

/// A message safe to print on one terminal line: control characters escaped, every value quoted in
/// backticks shortened to 80 characters, the whole to 1000.
pub fn one_line(message: &str) -> String {
    let mut out = String::new();
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let escaped: String =
            part.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect();
        if i % 2 == 1 && escaped.chars().count() > 80 {
            out.extend(escaped.chars().take(80));
            out.push('…');
        } else {
            out.push_str(&escaped);
        }
    }
    if out.chars().count() > 1000 { format!("{}…", out.chars().take(1000).collect::<String>()) } else { out }
}

/// The longest label.
const MAX_LABEL: usize = 80;

/// A display label goes into Markdown tables, CSV cells and plot legends: printable, one line,
/// without Markdown table syntax or anything that opens an HTML tag (`<` before a letter, `/`, `!`
/// or `?`; `<=` is fine), not starting like a spreadsheet formula.
pub(super) fn check_label(file: &str, field: &str, label: &str, loc: Option<(u32, u32)>) -> Result<(), ConfigError> {
    let bad = label.is_empty()
        || label.chars().count() > MAX_LABEL
        || label.chars().any(|c| c.is_control() || matches!(c, '|' | '`'))
        || label.as_bytes().windows(2).any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || b"/!?".contains(&w[1])))
        || label.starts_with(['=', '+', '-', '@']);
    if bad {
        return Err(ConfigError {
            file: file.to_string(),
            location: loc,
            message: format!(
                "field `{field}` = `{}` is invalid; expected 1 to {MAX_LABEL} printable characters without | or ` or an HTML tag, not starting with = + - @",
                crate::params::short(label)
            ),
        });
    }
    Ok(())
}

/// The largest config file read \[bytes\].
pub const CONFIG_MAX_BYTES: u64 = 1 << 20;

/// Reads a config file: at most [`CONFIG_MAX_BYTES`] (so `/dev/zero` is refused, not read until
/// memory runs out), UTF-8.
pub fn read_config(file: &str) -> Result<String, ConfigError> {
    read_text(file, "the config", "an experiment file is a few kB")
}

/// Reads a YAML input (`what`: "the config", "the model"): at most [`CONFIG_MAX_BYTES`], UTF-8;
/// `typical` says what size to expect when it is too large.
pub fn read_text(file: &str, what: &str, typical: &str) -> Result<String, ConfigError> {
    use std::io::Read;
    let fail = |message: String| ConfigError { file: file.to_string(), location: None, message };
    // By type before opening: opening a FIFO blocks until a writer comes, a device may never end.
    refuse_special(file).map_err(|m| fail(format!("cannot read {what}: {m}")))?;
    let f = std::fs::File::open(file).map_err(|e| fail(format!("cannot read {what}: {}", io_reason(&e))))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(fail(format!("cannot read {what}: it is a directory")));
    }
    let mut bytes = Vec::new();
    f.take(CONFIG_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read {what}: {}", io_reason(&e))))?;
    if bytes.len() as u64 > CONFIG_MAX_BYTES {
        return Err(fail(format!("{what} is larger than {CONFIG_MAX_BYTES} bytes; {typical}")));
    }
    // A UTF-8 byte-order mark, which some editors write, is not part of the YAML.
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).map(<[u8]>::to_vec).unwrap_or(bytes);
    String::from_utf8(bytes).map_err(|e| {
        fail(format!("{what} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
    })
}

/// Refuses a path that is not a regular file (after following links): a directory, a FIFO, a
/// socket or a device, named as such; Ok for a regular file or one that cannot be inspected (the
/// open that follows then says why).
pub fn refuse_special(path: impl AsRef<std::path::Path>) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(md) = std::fs::metadata(path) else { return Ok(()) };
    let t = md.file_type();
    let kind = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        return Ok(());
    };
    Err(format!("it is {kind}, not a regular file"))
}

/// An I/O error as a short reason, without the library's wording.
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file or directory".into(),
        K::PermissionDenied => "permission denied".into(),
        K::IsADirectory => "it is a directory".into(),
        K::NotADirectory => "a path component is not a directory".into(),
        K::AlreadyExists => "it already exists".into(),
        K::ReadOnlyFilesystem => "read-only file system".into(),
        K::StorageFull => "no space left on the device".into(),
        K::InvalidFilename => "the name is too long or invalid".into(),
        _ => {
            let s = e.to_string();
            plain_error(&s)
        }
    }
}

/// A library's error text in plain words: "No space left on device (os error 28)" → "no space
/// left on device".
pub fn plain_error(text: &str) -> String {
    let t = text.split(" (os error").next().unwrap_or(text);
    let mut c = t.chars();
    c.next().map_or(String::new(), |f| f.to_lowercase().chain(c).collect())
}
