//! Where an experiment's mechanism comes from: a registered scene (`scene: {name: …}`, with
//! parameters that may be swept) or a model file (`scene: {model: models/<x>.yaml}`), and the
//! scene variants it gives, counted and sized before any is built.

use super::budget::{self, Limits};
use super::config::{ConfigError, RawConfig, at};
use super::grid::{Variant, err};
use crate::params::{self, Scalar};
use crate::scene::model_file::{self, Assembly};
use crate::scene::registry::{self as scenes, SceneEntry, SceneSize};

/// What a model-file scene brings besides the scene itself (for reports).
#[derive(Clone, Debug)]
pub struct ModelInfo {
    /// The model file, as the config names it.
    pub file: String,
    /// The model's name.
    pub name: String,
    /// Its one-line summary.
    pub summary: String,
    /// Its source (citation).
    pub source: String,
    /// Its length scale \[m\].
    pub length_scale: f64,
    /// How far assembly moved the declared state.
    pub assembly: Assembly,
    /// The model's reference, its file relative to the config's directory, if it declares one.
    pub reference: Option<crate::scene::model_file::ModelReference>,
    /// Physics the model turns off, named in its label and report.
    pub simplifications: Vec<String>,
    /// SHA-256 of the model file's text, hex.
    pub text_hash: String,
}

/// The mechanism of an experiment.
#[derive(Clone)]
pub enum SceneSource {
    /// A registered scene.
    Builtin(&'static SceneEntry),
    /// A model file.
    Model(Box<ModelInfo>),
}

impl SceneSource {
    /// The scene's name.
    pub fn name(&self) -> &str {
        match self {
            SceneSource::Builtin(e) => e.name,
            SceneSource::Model(m) => &m.name,
        }
    }

    /// One line: what the mechanism is.
    pub fn summary(&self) -> &str {
        match self {
            SceneSource::Builtin(e) => e.summary,
            SceneSource::Model(m) => &m.summary,
        }
    }

    /// The divergence bound when the config gives none: the mechanism's length scale — a
    /// registered scene's extent ([`crate::scene::Scene::extent`], the largest over the variants),
    /// a model's `length_scale`.
    pub fn default_divergence_bound(&self, variants: &[Variant]) -> f64 {
        match self {
            SceneSource::Builtin(_) => variants.iter().map(|v| v.scene.extent()).fold(0.0, f64::max),
            SceneSource::Model(m) => m.length_scale,
        }
    }
}

/// A model file named by a config: relative paths are read from the config's directory.
fn model_path(config: &str, model: &str) -> String {
    let p = std::path::Path::new(model);
    if p.is_absolute() {
        return model.to_string();
    }
    let dir = std::path::Path::new(config).parent().unwrap_or(std::path::Path::new(""));
    dir.join(p).to_string_lossy().into_owned()
}

/// The scene source a config names, with its variants: for a model, the one assembled scene; for
/// a registered scene, the cross product of the listed parameter values, counted and sized
/// against `limits` before any is built.
pub(super) fn variants(
    file: &str,
    raw: &RawConfig,
    limits: &Limits,
    per_variant: u64,
    steps: &[super::grid::StepChoice],
    times: (f64, f64),
) -> Result<(SceneSource, Vec<Variant>), ConfigError> {
    let s = &raw.scene;
    let entry = match (&s.name, &s.model) {
        (Some(_), Some(m)) => {
            return err(
                file,
                at(m),
                "field `scene`: give `name` (a built-in scene) or `model` (a model file), not both".into(),
            );
        }
        (None, Some(m)) => {
            return model_source(file, raw, limits, (per_variant, steps, times), m);
        }
        (Some(n), None) => crate::registry::active().scene(&n.value).ok_or_else(|| ConfigError {
            file: file.to_string(),
            location: at(n),
            message: format!(
                "field `scene.name`: unknown scene `{}`; expected one of: {}",
                n.value,
                crate::registry::active().scene_names()
            ),
        })?,
        (None, None) => {
            return err(file, s.at(), "field `scene` needs `name` (a built-in scene) or `model` (a model file)".into());
        }
    };
    // Scene variants: the cross product of list-valued parameters, counted (with the cells, steps
    // and samples) before any is built.
    let count = variant_count(file, s)?;
    budget::check_counts(file, raw, limits, (count, per_variant), steps, times)?;
    let mut combos: Vec<Vec<(String, Scalar)>> = vec![vec![]];
    for (k, v) in &s.params {
        combos = combos
            .iter()
            .flat_map(|c| v.value.0.iter().map(move |x| [c.clone(), vec![(k.clone(), *x)]].concat()))
            .collect();
    }
    let swept: Vec<&String> = s.params.iter().filter(|(_, v)| v.value.0.len() > 1).map(|(k, _)| k).collect();
    let located = |e: &params::ParamError| match e {
        params::ParamError::OutOfDomain { name, .. }
        | params::ParamError::Unknown { name, .. }
        | params::ParamError::Duplicate { name, .. } => s.params.get(name).and_then(at),
        params::ParamError::Rule { .. } => s.at(),
    };
    let param_error = |e: params::ParamError| ConfigError {
        file: file.to_string(),
        location: located(&e),
        message: format!("scene.params: {e}"),
    };
    let mut sizes = Vec::with_capacity(combos.len());
    for p in &combos {
        let values = (entry.params.resolve)(&format!("scene {}", entry.name), p).map_err(param_error)?;
        sizes.push((entry.size)(&values));
    }
    budget::check_scene_sizes(file, raw, limits, &sizes)?;
    let mut variants = Vec::new();
    for p in combos {
        let scene = entry.build_with(&p).map_err(|e| {
            let location = match &e {
                scenes::BuildError::Param(pe) => located(pe),
                _ => s.at(),
            };
            ConfigError { file: file.to_string(), location, message: format!("scene.params: {e}") }
        })?;
        let label = if swept.is_empty() {
            entry.name.to_string()
        } else {
            p.iter().filter(|(k, _)| swept.contains(&k)).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
        };
        variants.push(Variant { label, params: p, scene, outputs: Vec::new() });
    }
    Ok((SceneSource::Builtin(entry), variants))
}

/// The cell-count axes a scene is sized with: cells per variant, the fixed steps, and
/// (duration, sample interval) \[s\].
type CountAxes<'x> = (u64, &'x [super::grid::StepChoice], (f64, f64));

/// The one variant of a model file (which takes no `scene.params`), sized against `limits`
/// before and after it is read.
fn model_source(
    file: &str,
    raw: &RawConfig,
    limits: &Limits,
    axes: CountAxes,
    m: &serde_saphyr::Spanned<String>,
) -> Result<(SceneSource, Vec<Variant>), ConfigError> {
    if let Some((k, v)) = raw.scene.params.iter().next() {
        return err(
            file,
            at(v),
            format!(
                "field `scene.params.{}`: a model file declares no parameters; edit the model instead",
                params::short(k)
            ),
        );
    }
    let (per_variant, steps, times) = axes;
    budget::check_counts(file, raw, limits, (1.0, per_variant), steps, times)?;
    let path = model_path(file, &m.value);
    let model = model_file::load_within(&path, (limits.get(budget::Limit::CellMemoryMb) * 1e6) as u64)?;
    budget::check_scene_sizes(file, raw, limits, &[Some(SceneSize::of(&model.scene))])?;
    let info = ModelInfo {
        file: m.value.clone(),
        name: model.scene.name.clone(),
        summary: model.summary,
        source: model.source,
        length_scale: model.length_scale,
        assembly: model.assembly,
        simplifications: model.simplifications,
        text_hash: model.text_hash,
        reference: model.reference.map(|r| crate::scene::model_file::ModelReference {
            file: beside(std::path::Path::new(&m.value), std::path::Path::new(&path), &r.file),
            columns: r.columns,
            score: r.score,
        }),
    };
    let label = if info.simplifications.is_empty() {
        info.name.clone()
    } else {
        format!("{} ({})", info.name, info.simplifications.join(", "))
    };
    Ok((
        SceneSource::Model(Box::new(info)),
        vec![Variant { label, params: Vec::new(), scene: model.scene, outputs: Vec::new() }],
    ))
}

/// The number of variants of a registered scene: the product of its parameter lists' lengths,
/// each list non-empty and without a repeated value.
fn variant_count(file: &str, s: &super::config::RawScene) -> Result<f64, ConfigError> {
    let mut count = 1.0f64;
    for (k, v) in &s.params {
        if v.value.0.is_empty() {
            return err(file, at(v), format!("field `scene.params.{}` is an empty list", params::short(k)));
        }
        if let Some(i) = (1..v.value.0.len()).find(|&i| v.value.0[..i].contains(&v.value.0[i])) {
            return err(
                file,
                at(v),
                format!(
                    "field `scene.params.{}[{i}]` = {} repeats an earlier value; each swept value gives one scene variant",
                    params::short(k),
                    v.value.0[i]
                ),
            );
        }
        count *= v.value.0.len() as f64;
    }
    Ok(count)
}

/// The path of `file`, given relative to the model file `model` (as the config names it; `opened`
/// is the same file as opened), as seen from the config: the model's directory joined with it, and
/// `dir/../` dropped where `dir` is that directory and a real one (not a link, whose `..` would
/// lead elsewhere), so `../models/../experiments/data/x.csv` reads `../experiments/data/x.csv`.
fn beside(model: &std::path::Path, opened: &std::path::Path, file: &str) -> String {
    let dir = model.parent().unwrap_or(std::path::Path::new(""));
    let opened_dir = opened.parent().unwrap_or(std::path::Path::new(""));
    let real_dir = opened_dir.symlink_metadata().is_ok_and(|m| m.is_dir());
    let named = matches!(dir.components().next_back(), Some(std::path::Component::Normal(_)));
    match file.strip_prefix("../") {
        Some(rest) if real_dir && named => dir.parent().unwrap_or(std::path::Path::new("")).join(rest),
        _ => dir.join(file),
    }
    .to_string_lossy()
    .into_owned()
}
