//! The YAML experiment schema (serde-saphyr; unknown keys rejected) and its validation against the
//! registries. Validation is complete before anything runs: a bad config produces one
//! [`ConfigError`] naming the file, line and column, the field, the bad value and the valid choices.

pub use crate::input::{
    CONFIG_MAX_BYTES, ConfigError, at, io_reason, one_line, parse_as, plain_error, read_text, refuse_special,
};
use crate::params::Scalar;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::fmt;

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
    /// The compared columns whose largest error is the reference error, all of one unit
    /// (default: every compared column); the others are reported per column.
    #[serde(default)]
    pub score: Option<Spanned<Vec<Spanned<String>>>>,
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

/// Parses YAML text; errors become one line naming the field (the key nearest before the error's
/// position), in the project's words (no library advice), with the value shortened.
pub fn parse(file: &str, text: &str) -> Result<RawConfig, ConfigError> {
    parse_as::<RawConfig>(file, text)
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

/// Reads a config file: at most [`CONFIG_MAX_BYTES`] (so `/dev/zero` is refused, not read until
/// memory runs out), UTF-8.
pub fn read_config(file: &str) -> Result<String, ConfigError> {
    read_text(file, "the config", "an experiment file is a few kB")
}
