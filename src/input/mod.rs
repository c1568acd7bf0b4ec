//! Reading the project's YAML inputs (experiment configs, model files, suites): the located error
//! every input refusal is ([`ConfigError`]: file, line, column, message), the bounded reading of a
//! file that refuses FIFOs and devices by type, and the YAML parse whose errors name the field in
//! the project's words. Below every layer that reads a file, so that scenes (model files) and
//! experiments (configs) share it without one importing the other.

mod strict;

use serde_saphyr::Spanned;
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

/// The location of a spanned value.
pub fn at<T>(s: &Spanned<T>) -> Option<(u32, u32)> {
    Some((s.referenced.line() as u32, s.referenced.column() as u32))
}

/// Parses YAML text into `T` (experiment files, model files, suites); errors become one line
/// naming the field (the key at or nearest before the error's position), in the project's words (no
/// library advice), with the value shortened.
pub fn parse_as<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, ConfigError> {
    // Non-finite numbers reach the field, whose check names them with its valid range.
    let mut options = serde_saphyr::Options::default();
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    serde_saphyr::from_str_with_options::<strict::StrictRoot<T>>(text, options).map(|root| root.0).map_err(|e| {
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
        // A value's type error is located at its key in a flow map (`{a: 1, b: "x"}` at `b`): the
        // key there is the field, not the one before it.
        let key = unknown.or_else(|| {
            location
                .zip(src)
                .and_then(|((_, col), line)| key_at(line, col as usize).or_else(|| key_before(line, col as usize)))
        });
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
    // Rust's type names as a user reads them.
    for (rust, plain) in [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected usize", "expected a whole number >= 0"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected u32", "expected a whole number >= 0"),
        ("expected i64", "expected a whole number"),
    ] {
        m = m.replacen(rust, plain, 1);
    }
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

/// The key that starts at 1-based column `col` of `line` (`key:` there), if one does.
fn key_at(line: &str, col: usize) -> Option<String> {
    let rest: String = line.chars().skip(col.saturating_sub(1)).collect();
    let key: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let after = rest[key.len()..].trim_start();
    (!key.is_empty() && after.starts_with(':')).then_some(key)
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

/// Whether `c` would break a message's one line or change how it reads on a terminal: control
/// characters, the Unicode line and paragraph separators (U+2028, U+2029), and the
/// bidirectional formatting characters (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
fn breaks_line(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A message safe to print on one terminal line: control characters, line separators and bidi
/// formatting characters escaped (`breaks_line`), every value quoted in
/// backticks shortened to 80 characters, the whole to 1000.
pub fn one_line(message: &str) -> String {
    let mut out = String::new();
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let escaped: String =
            part.chars().map(|c| if breaks_line(c) { c.escape_default().to_string() } else { c.to_string() }).collect();
        if i % 2 == 1 && escaped.chars().count() > 80 {
            out.extend(escaped.chars().take(80));
            out.push('…');
        } else {
            out.push_str(&escaped);
        }
    }
    if out.chars().count() > 1000 { format!("{}…", out.chars().take(1000).collect::<String>()) } else { out }
}

/// The largest config file read \[bytes\].
pub const CONFIG_MAX_BYTES: u64 = 1 << 20;

/// Reads a YAML input (`what`: "the config", "the model"): at most [`CONFIG_MAX_BYTES`], UTF-8;
/// `typical` says what size to expect when it is too large.
pub fn read_text(file: &str, what: &str, typical: &str) -> Result<String, ConfigError> {
    read_text_within(file, what, typical, CONFIG_MAX_BYTES)
}

/// [`read_text`] of a text input of at most `max_bytes` (a problem file rather than a config).
pub fn read_text_within(file: &str, what: &str, typical: &str, max_bytes: u64) -> Result<String, ConfigError> {
    use std::io::Read;
    let fail = |message: String| ConfigError { file: file.to_string(), location: None, message };
    // By type before opening: opening a FIFO blocks until a writer comes, a device may never end.
    refuse_special(file).map_err(|m| fail(format!("cannot read {what}: {m}")))?;
    let f = std::fs::File::open(file).map_err(|e| fail(format!("cannot read {what}: {}", io_reason(&e))))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(fail(format!("cannot read {what}: it is a directory")));
    }
    let mut bytes = Vec::new();
    f.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read {what}: {}", io_reason(&e))))?;
    if bytes.len() as u64 > max_bytes {
        return Err(fail(format!("{what} is larger than {max_bytes} bytes; {typical}")));
    }
    // A UTF-8 byte-order mark, which some editors write, is not part of the YAML.
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).map(<[u8]>::to_vec).unwrap_or(bytes);
    String::from_utf8(bytes).map_err(|e| {
        fail(format!("{what} is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
    })
}

/// A path that is not a regular file, and what it is instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("it is {kind}, not a regular file")]
pub struct NotRegularFile {
    /// What the path is: `a directory`, `a FIFO (named pipe)`, `a socket` or `a device`.
    pub kind: &'static str,
}

/// Refuses a path that is not a regular file (after following links): a directory, a FIFO, a
/// socket or a device, named as such; Ok for a regular file or one that cannot be inspected (the
/// open that follows then says why).
pub fn refuse_special(path: impl AsRef<std::path::Path>) -> Result<(), NotRegularFile> {
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
    Err(NotRegularFile { kind })
}

/// A file that could not be read, written or used, named, with the reason in plain words.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("`{path}`: {reason}")]
pub struct FileError {
    /// The file or directory.
    pub path: String,
    /// What went wrong (an I/O error without the library's wording, or what the content lacks).
    pub reason: String,
}

impl FileError {
    /// `path` with an I/O error's plain reason.
    pub fn io(path: impl AsRef<std::path::Path>, e: &std::io::Error) -> Self {
        FileError { path: path.as_ref().display().to_string(), reason: io_reason(e) }
    }

    /// `path` with `reason`.
    pub fn new(path: impl AsRef<std::path::Path>, reason: impl Into<String>) -> Self {
        FileError { path: path.as_ref().display().to_string(), reason: reason.into() }
    }
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
