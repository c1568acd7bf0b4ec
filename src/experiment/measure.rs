//! What a config asks to measure besides the metrics: the recorded states and outputs
//! (`record`), the user's reference data (`reference`) and output crossings (`events`), all
//! validated against every scene variant and every step before anything runs.

use super::config::{ConfigError, RawConfig, at};
use super::grid::{StepChoice, Variant, err};
use super::observe::{Direction, EventSpec};
use crate::integrator::Control;
use crate::params::{fmt_num, short};
use serde_saphyr::Spanned;
use std::path::Path;

/// A per-sample vector quantity a config can record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Positions q (rigid-3D orientations as quaternions w, x, y, z).
    Q,
    /// Velocities v (rigid-3D: ẋ and Ω in the body frame).
    V,
    /// Constraint multipliers λ per row, with Q̂ = Jᵀ λ (force units).
    Lambda,
    /// C(q) per constraint row.
    C,
    /// J v per constraint row.
    Jv,
}

impl Recorded {
    /// Every recordable vector quantity with its config name.
    pub const ALL: [(Recorded, &'static str); 5] = [
        (Recorded::Q, "q"),
        (Recorded::V, "v"),
        (Recorded::Lambda, "lambda"),
        (Recorded::C, "c"),
        (Recorded::Jv, "jv"),
    ];

    /// The config name (`q`, `v`, `lambda`, `c`, `jv`).
    pub fn name(self) -> &'static str {
        Recorded::ALL.iter().find(|(r, _)| *r == self).map_or("", |(_, n)| n)
    }
}

/// The user's reference data: named outputs at given times.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceData {
    /// The file as the config gives it.
    pub file: String,
    /// The columns compared (output names).
    pub columns: Vec<String>,
    /// Their indices into [`Measurements::outputs`].
    pub outputs: Vec<usize>,
    /// The columns (indices into `columns`) whose largest error is the reference error; all of
    /// one unit.
    pub scored: Vec<usize>,
    /// The times \[s\], increasing.
    pub times: Vec<f64>,
    /// values\[row\]\[column\].
    pub values: Vec<Vec<f64>>,
}

/// Everything measured besides the metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measurements {
    /// Vector quantities written to `states.csv`.
    pub record: Vec<Recorded>,
    /// Every output name the config uses (recorded, reference columns, events), in first-use order.
    pub outputs: Vec<String>,
    /// Indices into `outputs` of the recorded outputs.
    pub recorded_outputs: Vec<usize>,
    /// The reference data, if any.
    pub reference: Option<ReferenceData>,
    /// The events (their `output` indexes `outputs`).
    pub events: Vec<EventSpec>,
}

/// Bytes one recorded value takes in `states.csv` (cell, t, name, value and separators), an upper
/// estimate for the size check.
const BYTES_PER_RECORDED_VALUE: f64 = 48.0;

/// The largest reference file read \[bytes\] and the most rows taken from it.
const REFERENCE_MAX_BYTES: u64 = 64 << 20;
const REFERENCE_MAX_ROWS: usize = 1_000_000;

fn index_of(outputs: &mut Vec<String>, name: &str) -> usize {
    outputs.iter().position(|o| o == name).unwrap_or_else(|| {
        outputs.push(name.to_string());
        outputs.len() - 1
    })
}

/// Resolves output `name` on every variant (the error names the valid choices).
fn check_output(file: &str, field: &str, name: &Spanned<String>, variants: &[Variant]) -> Result<(), ConfigError> {
    for v in variants {
        if let Err(e) = v.scene.output(&name.value) {
            return err(file, at(name), format!("field `{field}`: {e}"));
        }
    }
    Ok(())
}

/// The time and sample settings the checks need.
pub(super) struct Axis<'a> {
    pub duration: f64,
    pub sample_interval: f64,
    pub steps: &'a [StepChoice],
    /// Cells per variant (for the record size estimate).
    pub cells_per_variant: f64,
}

/// Validates `record`, `record_limit_mb`, `reference` and `events`; resolves the outputs on the
/// variants (stored in each [`Variant::outputs`]).
pub(super) fn measurements(
    file: &str,
    raw: &RawConfig,
    variants: &mut [Variant],
    axis: &Axis,
    model_reference: Option<&crate::scene::model_file::ModelReference>,
) -> Result<Measurements, ConfigError> {
    let mut m = Measurements::default();
    recorded(file, raw, variants, &mut m)?;
    check_record_size(file, raw, variants, axis, &m)?;
    if let Some(r) = &raw.reference {
        m.reference = Some(reference(file, r, variants, axis, &mut m.outputs, false)?);
    } else if let (Some(r), Some(model)) = (model_reference, &raw.scene.model) {
        // The model's own reference, located at the config's `scene.model`.
        let (referenced, defined) = (model.referenced, model.defined);
        let spanned = |names: &[String]| {
            let list: Vec<Spanned<String>> =
                names.iter().map(|c| Spanned { value: c.clone(), referenced, defined }).collect();
            (!list.is_empty()).then_some(Spanned { value: list, referenced, defined })
        };
        let raw_ref = super::config::RawReference {
            file: Spanned { value: r.file.clone(), referenced, defined },
            columns: spanned(&r.columns),
            score: spanned(&r.score),
        };
        let raw_ref = Spanned { value: raw_ref, referenced, defined };
        m.reference = Some(reference(file, &raw_ref, variants, axis, &mut m.outputs, true)?);
    }
    events(file, raw, variants, &mut m)?;
    for v in variants.iter_mut() {
        v.outputs = m.outputs.iter().map(|n| v.scene.output(n).expect("checked above")).collect();
    }
    Ok(m)
}

/// The vector quantities and outputs of `record`, into `m` (each once).
fn recorded(file: &str, raw: &RawConfig, variants: &[Variant], m: &mut Measurements) -> Result<(), ConfigError> {
    if let Some(list) = &raw.record {
        for (i, item) in list.value.iter().enumerate() {
            if let Some((r, _)) = Recorded::ALL.iter().find(|(_, n)| *n == item.value.as_str()) {
                if !m.record.contains(r) {
                    m.record.push(*r);
                }
                continue;
            }
            if variants.iter().any(|v| v.scene.output(&item.value).is_err()) {
                let e = variants
                    .iter()
                    .find_map(|v| v.scene.output(&item.value).err())
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                let names = Recorded::ALL.map(|(_, n)| n).join(", ");
                return err(
                    file,
                    at(item),
                    format!(
                        "field `record[{i}]`: `{}` is neither a vector quantity ({names}) nor an output: {e}",
                        short(&item.value)
                    ),
                );
            }
            let k = index_of(&mut m.outputs, &item.value);
            if !m.recorded_outputs.contains(&k) {
                m.recorded_outputs.push(k);
            }
        }
    }
    Ok(())
}

/// The recorded states' size, estimated from the scenes' dimensions, against `record_limit_mb`.
fn check_record_size(
    file: &str,
    raw: &RawConfig,
    variants: &[Variant],
    axis: &Axis,
    m: &Measurements,
) -> Result<(), ConfigError> {
    let limit = match &raw.record_limit_mb {
        Some(b) if !(b.value.is_finite() && b.value > 0.0) => {
            return err(
                file,
                at(b),
                format!("field `record_limit_mb` = {} is invalid; expected a finite number > 0", b.value),
            );
        }
        Some(b) => b.value,
        None => 256.0,
    };
    if let (Some(list), false) = (&raw.record, m.record.is_empty() && m.recorded_outputs.is_empty()) {
        // Every cell holds the recorded vectors and outputs at each of at most n_samples + 1 samples.
        let n_samples = (axis.duration / axis.sample_interval - 1e-9).ceil().max(1.0) + 1.0;
        let values: f64 = variants
            .iter()
            .map(|v| {
                let s = &v.scene.system;
                let per = |r: &Recorded| match r {
                    Recorded::Q => s.nq(),
                    Recorded::V => s.ndof(),
                    Recorded::Lambda | Recorded::C | Recorded::Jv => s.nrows(),
                };
                (m.record.iter().map(per).sum::<usize>() + m.recorded_outputs.len()) as f64
            })
            .sum();
        let mb = values * axis.cells_per_variant * n_samples * BYTES_PER_RECORDED_VALUE / 1e6;
        if !(mb <= limit) {
            return err(
                file,
                at(list),
                format!(
                    "field `record`: the recorded states would take about {} MB (at most {} samples per cell); `record_limit_mb` = {} — sample less often, shorten the run, sweep fewer cells, or raise the limit",
                    fmt_num(mb.round()),
                    fmt_num(n_samples),
                    fmt_num(limit)
                ),
            );
        }
    }
    Ok(())
}

/// The `events`: each an output of every variant, a finite value and a direction, into `m`.
fn events(file: &str, raw: &RawConfig, variants: &[Variant], m: &mut Measurements) -> Result<(), ConfigError> {
    if let Some(list) = &raw.events {
        for (i, e) in list.value.iter().enumerate() {
            check_output(file, &format!("events[{i}].output"), &e.value.output, variants)?;
            if variants.iter().any(|v| v.scene.output(&e.value.output.value).is_ok_and(|o| o.quantity.needs_lambda())) {
                return err(
                    file,
                    at(&e.value.output),
                    format!(
                        "field `events[{i}].output` = `{}` is a multiplier, known at samples only; an event needs an output of the state (q, v)",
                        short(&e.value.output.value)
                    ),
                );
            }
            let value = e.value.value.as_ref().map_or(0.0, |v| v.value);
            if !value.is_finite() {
                return err(
                    file,
                    e.value.value.as_ref().and_then(at),
                    format!("field `events[{i}].value` = {value} is invalid; expected a finite number"),
                );
            }
            let direction = match e.value.direction.as_ref().map(|d| d.value.as_str()) {
                None | Some("up") => Direction::Up,
                Some("down") => Direction::Down,
                Some("both") => Direction::Both,
                Some(other) => {
                    return err(
                        file,
                        e.value.direction.as_ref().and_then(at),
                        format!(
                            "field `events[{i}].direction`: unknown direction `{}`; expected one of: up, down, both",
                            short(other)
                        ),
                    );
                }
            };
            let output = index_of(&mut m.outputs, &e.value.output.value);
            m.events.push(EventSpec { output, value, direction });
        }
    }
    Ok(())
}

/// Reads and checks the reference file: a CSV whose header is `t` and output names (lines
/// starting with `#` are comments). With `within_run` (a model's own reference, written for its
/// benchmark's duration) rows after the run's duration are left out instead of refused.
fn reference(
    file: &str,
    r: &Spanned<super::config::RawReference>,
    variants: &[Variant],
    axis: &Axis,
    outputs: &mut Vec<String>,
    within_run: bool,
) -> Result<ReferenceData, ConfigError> {
    let path_field = &r.value.file;
    let path = Path::new(file).parent().unwrap_or(Path::new("")).join(&path_field.value);
    let fail = |msg: String| {
        err(file, at(path_field), format!("field `reference.file` = `{}`: {msg}", short(&path_field.value)))
    };
    let (mut reader, header) = match open_reference(&path) {
        Ok(opened) => opened,
        Err(msg) => return fail(msg),
    };
    let columns: Vec<Spanned<String>> = match &r.value.columns {
        Some(c) => c.value.clone(),
        // Default: every column that names an output of the scene (others, e.g. error bounds,
        // are ignored).
        None => header[1..]
            .iter()
            .filter(|h| variants.iter().all(|v| v.scene.output(h).is_ok()))
            .map(|h| Spanned { value: h.clone(), referenced: path_field.referenced, defined: path_field.defined })
            .collect(),
    };
    if columns.is_empty() {
        return fail(format!(
            "no column names an output of the scene (columns: {}); see `tinkertoy list` for the outputs",
            header[1..].join(", ")
        ));
    }
    let mut col_index = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        let Some(k) = header.iter().position(|h| *h == c.value).filter(|&k| k > 0) else {
            return err(
                file,
                at(c),
                format!(
                    "field `reference.columns[{i}]`: `{}` is not a column of the file; its columns are: {}",
                    short(&c.value),
                    header[1..].join(", ")
                ),
            );
        };
        check_output(file, &format!("reference.columns[{i}]"), c, variants)?;
        col_index.push(k);
    }
    let (times, values) = match reference_rows(&mut reader, &header, &col_index, axis, within_run) {
        Ok(rows) => rows,
        Err(msg) => return fail(msg),
    };
    if times.is_empty() {
        return fail("no data rows".into());
    }
    let names: Vec<String> = columns.iter().map(|c| c.value.clone()).collect();
    let scored = scored_columns(file, r, &names, variants)?;
    let idx = names.iter().map(|n| index_of(outputs, n)).collect();
    Ok(ReferenceData { file: path_field.value.clone(), columns: names, outputs: idx, scored, times, values })
}

/// The columns of `reference.score` (default: every compared column) as indices into `names`,
/// checked to be compared columns of one unit: the reference error is their largest error, and
/// a largest error over metres and metres per second would mean nothing.
fn scored_columns(
    file: &str,
    r: &Spanned<super::config::RawReference>,
    names: &[String],
    variants: &[Variant],
) -> Result<Vec<usize>, ConfigError> {
    let unit = |name: &str| variants[0].scene.output(name).map_or("", |o| o.unit);
    let scored: Vec<(usize, &str)> = match &r.value.score {
        None => names.iter().enumerate().map(|(k, n)| (k, n.as_str())).collect(),
        Some(list) => {
            let mut scored = Vec::new();
            for (i, c) in list.value.iter().enumerate() {
                let Some(k) = names.iter().position(|n| *n == c.value) else {
                    return err(
                        file,
                        at(c),
                        format!(
                            "field `reference.score[{i}]` = `{}` is not a compared column; expected one of: {}",
                            short(&c.value),
                            names.join(", ")
                        ),
                    );
                };
                scored.push((k, names[k].as_str()));
            }
            if scored.is_empty() {
                return err(
                    file,
                    at(list),
                    format!("field `reference.score` is empty; expected one or more of: {}", names.join(", ")),
                );
            }
            scored
        }
    };
    let first = unit(scored[0].1);
    if let Some((_, other)) = scored.iter().find(|(_, n)| unit(n) != first) {
        let at_field = r.value.score.as_ref().map_or(at(&r.value.file), at);
        return err(
            file,
            at_field,
            format!(
                "field `reference.score`: the reference error is the largest error of columns of one unit, but `{}` is in {first} and `{}` in {}; name the columns to score in `reference.score` (every compared column is still reported on its own)",
                short(scored[0].1),
                short(other),
                unit(other)
            ),
        );
    }
    Ok(scored.into_iter().map(|(k, _)| k).collect())
}

/// The data rows of a reference file: the times (increasing, in [0, duration], on every fixed
/// step's boundaries) and the values of the columns `col_index`; a bad row is the message naming
/// its line.
fn reference_rows(
    reader: &mut csv::Reader<std::fs::File>,
    header: &[String],
    col_index: &[usize],
    axis: &Axis,
    within_run: bool,
) -> Result<(Vec<f64>, Vec<Vec<f64>>), String> {
    let (mut times, mut values) = (Vec::new(), Vec::new());
    for (row, rec) in reader.records().enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => return Err(format!("row {}: {e}", row + 1)),
        };
        let line = rec.position().map_or(row + 2, |p| p.line() as usize);
        if times.len() == REFERENCE_MAX_ROWS {
            return Err(format!("more than {REFERENCE_MAX_ROWS} rows"));
        }
        let cell = |k: usize| -> Result<f64, String> {
            let text = rec.get(k).unwrap_or("").trim();
            text.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("line {line}, column `{}`: `{}` is not a finite number", header[k], short(text)))
        };
        let t = cell(0)?;
        if within_run && t > axis.duration && times.last().is_some_and(|&p| t > p) {
            break;
        }
        if within_run && t > axis.duration && times.is_empty() {
            return Err(format!(
                "line {line}: the model's reference starts at t = {t} s, after this run's duration ({} s); run at least that long, or give the experiment a `reference:` of its own",
                fmt_num(axis.duration)
            ));
        }
        if !(t >= 0.0 && t <= axis.duration) || times.last().is_some_and(|&p| t <= p) {
            return Err(format!(
                "line {line}: t = {t} must increase and lie in [0, duration = {} s]",
                fmt_num(axis.duration)
            ));
        }
        for s in axis.steps {
            if let Control::Fixed { h } = s.control {
                let n = t / h;
                if (n - n.round()).abs() > 1e-6 {
                    return Err(format!(
                        "line {line}: t = {t} s is not a step boundary of h = {} (t/h = {n}); a fixed-step cell is compared only at its step boundaries n·h, so every reference time must be a multiple of every step",
                        s.label
                    ));
                }
            }
        }
        values.push(col_index.iter().map(|&k| cell(k)).collect::<Result<Vec<f64>, String>>()?);
        times.push(t);
    }
    Ok((times, values))
}

/// Opens a reference CSV (a regular file of at most [`REFERENCE_MAX_BYTES`]) and reads its header:
/// `t` first, no name twice; a bad file is the message saying why.
fn open_reference(path: &Path) -> Result<(csv::Reader<std::fs::File>, Vec<String>), String> {
    if let Err(m) = super::config::refuse_special(path) {
        return Err(format!("cannot read {}: {m}", path.display()));
    }
    match std::fs::metadata(path) {
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        Ok(md) if md.len() > REFERENCE_MAX_BYTES => {
            return Err(format!("the file has {} bytes; at most {} are read", md.len(), REFERENCE_MAX_BYTES));
        }
        Ok(_) => {}
    }
    let mut reader = match csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_path(path) {
        Ok(r) => r,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|s| s.trim().to_string()).collect(),
        Err(e) => return Err(format!("bad CSV header: {e}")),
    };
    if header.first().map(String::as_str) != Some("t") {
        return Err(format!("the first column must be `t` (time in s); the header is `{}`", short(&header.join(","))));
    }
    // A column named twice would be read once and compared with either copy: ambiguous.
    if let Some((i, h)) = header.iter().enumerate().find(|(i, h)| header[..*i].contains(h)) {
        return Err(format!(
            "column {} repeats the name `{}` of an earlier column; each column must be named once",
            i + 1,
            short(h)
        ));
    }
    Ok((reader, header))
}
