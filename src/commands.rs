//! The commands around mechanisms that `main` dispatches: `list`, and `check`, `draw` and
//! `animate` on model files. Each returns the text to print, or why it stopped as a
//! [`CommandError`], whose kind gives the exit status.

use crate::constraint::registry::CONSTRAINTS;
use crate::formulation::registry::{FormulationEntry, FormulationKind};
use crate::input::{ConfigError, FileError};
use crate::integrator::registry::IntegratorKind;
use crate::params;
use crate::registry::{Axis, Registry};
use crate::scene::model_file;
use crate::scene::registry::SceneEntry;
use std::path::{Path, PathBuf};

/// Why a command stopped. Rendered once, as one line, by the command line; the kind gives the
/// exit status ([`CommandError::exit_status`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// A config, model or suite refused, located in its file (bad input: exit 2).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A contact problem file that cannot be used (bad input: exit 2).
    #[error(transparent)]
    Problem(#[from] crate::friction::fclib::ProblemFileError),
    /// Stored results or shards that cannot be used, or a `--cells` selection that selects no
    /// valid cell (bad input: exit 2).
    #[error(transparent)]
    Store(#[from] crate::experiment::store::StoreError),
    /// A command-line option out of its range, named with its value and the valid choices (bad
    /// input: exit 2).
    #[error("{0}")]
    Usage(String),
    /// A file read before anything is computed that cannot be used (bad input: exit 2).
    #[error(transparent)]
    Read(FileError),
    /// A file that could not be written after computing (exit 1).
    #[error("cannot write {0}")]
    Write(FileError),
    /// The computation failed on the way (a cell's step; exit 1).
    #[error("{0}")]
    Failed(String),
    /// Another process holds the report (exit 4).
    #[error("{0}")]
    Busy(String),
}

impl CommandError {
    /// The process's exit status for this error: 2 bad input, 1 a failure after computing
    /// started, 4 busy.
    pub fn exit_status(&self) -> u8 {
        match self {
            CommandError::Config(_)
            | CommandError::Problem(_)
            | CommandError::Store(_)
            | CommandError::Usage(_)
            | CommandError::Read(_) => 2,
            CommandError::Write(_) | CommandError::Failed(_) => 1,
            CommandError::Busy(_) => 4,
        }
    }
}

/// The text of `tinkertoy list`: every constraint, and every scene, formulation, linear solver,
/// stabilizer and integrator of `reg` (items from outside the crate marked so) with its
/// parameters, units and defaults, and the model files in `models/`.
pub fn list(reg: &Registry) -> String {
    let outside = |axis: Axis, name: &str| if reg.is_outside(axis, name) { " (outside)" } else { "" };
    let mut out = String::from("Constraints\n");
    for c in CONSTRAINTS {
        out.push_str(&format!("  {:<16} {}\n    params: {}\n", c.name, c.summary, c.params));
    }
    // (name, summary, parameters) of every registry that declares parameter tables.
    type Rows = Vec<(&'static str, String, params::ParamTable, String)>;
    let formulation = |e: &FormulationEntry| {
        let kind = match e.kind {
            FormulationKind::Ode => "an ODE: pairs with integrators",
            FormulationKind::Stepper => "its own time stepper: pairs with steps",
            FormulationKind::Dae => "a DAE: pairs with the integrators of DAEs",
        };
        let solvers: Vec<&str> = reg.solvers().iter().filter(|s| e.pairs_with(s)).map(|s| s.name).collect();
        let contact = if e.contact { "; runs contact" } else { "" };
        let solver = format!("{contact}; solves a {}: {}", e.system.describe(), solvers.join(", "));
        let from = outside(Axis::Formulation, e.name);
        (e.name, format!("{} [{kind}{solver}]{from}", e.summary), e.params, String::new())
    };
    // A scene's named outputs (at its default parameters) for `record`, `reference` and `events`.
    let outputs = |e: &SceneEntry| match e.build_default(&[]) {
        Ok(s) if !s.outputs.is_empty() => {
            let named: Vec<String> =
                s.outputs.iter().map(|o| format!("{} [{}] {}", o.name, o.unit, o.describes)).collect();
            format!("    outputs: {}\n", named.join("; "))
        }
        _ => String::new(),
    };
    let sections: [(&str, Rows); 4] = [
        (
            "Scenes",
            reg.scenes()
                .iter()
                .map(|e| (e.name, format!("{}{}", e.summary, outside(Axis::Scene, e.name)), e.params, outputs(e)))
                .collect(),
        ),
        ("Formulations", reg.formulations().iter().map(formulation).collect()),
        (
            "Solvers (the linear solvers, and the contact solvers, which take contact problems: pgs and the `contact` command)",
            reg.solvers()
                .iter()
                .map(|e| {
                    let accepts: Vec<&str> = e.accepts.iter().map(|k| k.describe()).collect();
                    let summary =
                        format!("{} [takes: {}]{}", e.summary, accepts.join("; "), outside(Axis::Solver, e.name));
                    (e.name, summary, e.params, String::new())
                })
                .collect(),
        ),
        (
            "Post-step stabilizers",
            reg.stabilizers()
                .iter()
                .map(|e| {
                    (e.name, format!("{}{}", e.summary, outside(Axis::Stabilizer, e.name)), e.params, String::new())
                })
                .collect(),
        ),
    ];
    for (title, rows) in sections {
        out.push_str(&format!("\n{title}\n"));
        for (name, summary, specs, extra) in rows {
            out.push_str(&format!("  {name:<16} {summary}\n"));
            out.push_str(&params::describe(&(specs.specs)()));
            out.push_str(&extra);
        }
        if title == "Scenes" {
            out.push_str(&format!("  Any scene's outputs also include {}\n", crate::scene::output::GENERIC_OUTPUTS));
        }
    }
    out.push_str(&models_section());
    out.push_str(&integrators_section(reg));
    out
}

/// The `Integrators` section of `list`: each with its kind and order.
fn integrators_section(reg: &Registry) -> String {
    let mut out = String::from("\nIntegrators\n");
    for i in reg.integrators() {
        let kind = match i.kind() {
            IntegratorKind::Fixed { order } => format!("fixed step h, order {order}"),
            IntegratorKind::Adaptive { order } => format!("adaptive (tolerance), order {order}"),
        };
        let from = if reg.is_outside(Axis::Integrator, i.name) { " (outside)" } else { "" };
        out.push_str(&format!("  {:<16} {} [{kind}]{from}\n", i.name, i.summary));
    }
    out
}

/// Whether `file` is a model file: its first key (the first line that is neither blank nor a
/// comment) is `model:`. Anything unreadable is left to the config loader to report.
pub fn is_model_file(file: &str) -> bool {
    let Ok(text) = crate::experiment::config::read_text(file, "the file", "a model or config is a few kB") else {
        return false;
    };
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .is_some_and(|l| l.starts_with("model:"))
}

/// The model files in `models/` under the current directory, each loaded and assembled, with its
/// outputs; from a directory without `models/`, the shipped models built into the binary.
fn models_section() -> String {
    let mut out = String::from("\nModels (files in models/; an experiment uses one as `scene: {model: <path>}`)\n");
    let mut files: Vec<PathBuf> = std::fs::read_dir("models")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "yaml")).collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        out.push_str("  (no models/ directory here: the models shipped with tinkertoy, built into this binary)\n");
        for (path, text) in model_file::SHIPPED {
            model_line(&mut out, path, model_file::from_embedded(path, text));
        }
    }
    for f in files {
        let path = f.to_string_lossy();
        model_line(&mut out, &path, crate::scene::model_file::load(&path));
    }
    out
}

/// One model's entry in `list`: name, summary, size, degrees of freedom and outputs, or why it
/// does not load.
fn model_line(out: &mut String, path: &str, m: Result<model_file::Model, crate::experiment::config::ConfigError>) {
    match m {
        Ok(m) => {
            let s = &m.scene.system;
            let dof = crate::experiment::check::degrees_of_freedom(&m.scene)
                .map_or("degrees of freedom not computed (J too large)".to_string(), |d| {
                    format!("{d} degree{} of freedom", if d == 1 { "" } else { "s" })
                });
            out.push_str(&format!(
                "  {:<16} {}\n    file: {path}; {} bodies, {} joints, {} rows, {} velocity coordinates, {dof}\n",
                m.scene.name,
                m.summary,
                s.bodies().len(),
                s.constraints().len(),
                s.nrows(),
                s.ndof()
            ));
            let named: Vec<String> =
                m.scene.outputs.iter().map(|o| format!("{} [{}] {}", o.name, o.unit, o.describes)).collect();
            if !named.is_empty() {
                out.push_str(&format!("    outputs: {}\n", named.join("; ")));
            }
        }
        Err(e) => out.push_str(&format!("  {path}: {}\n", crate::experiment::config::one_line(&e.to_string()))),
    }
}

/// `check <model.yaml>`: the scene's description (size, consistency, rank, joint coordinates),
/// what assembly did and the branch invariants.
pub fn check_model(file: &str) -> Result<String, CommandError> {
    let m = model_file::load(file)?;
    let mut out = crate::experiment::check::describe(&m.scene.name, &m.scene);
    out.push_str(&format!("  {}\n", m.assembly));
    for s in &m.simplifications {
        out.push_str(&format!("  simplification: {s}\n"));
    }
    if let Some(r) = &m.reference {
        let columns = if r.columns.is_empty() { "every output column".to_string() } else { r.columns.join(", ") };
        out.push_str(&format!("  reference: {} ({columns}), used by experiments that give none\n", r.file));
    }
    if !m.scene.branch.is_empty() {
        let names: Vec<String> =
            m.scene.branch.iter().map(|b| format!("{} in [{}, {}]", b.output.name, b.min, b.max)).collect();
        out.push_str(&format!("  branch invariants (hold at q0): {}\n", names.join("; ")));
    }
    Ok(out)
}

/// Creates `out` or says why it cannot.
fn out_dir(out: &Path) -> Result<(), CommandError> {
    std::fs::create_dir_all(out).map_err(|e| {
        CommandError::Usage(format!(
            "--out `{}`: cannot create the directory: {}",
            out.display(),
            crate::input::io_reason(&e)
        ))
    })
}

/// `draw <model.yaml>`: writes `<out>/<model>.svg` and `.png`; returns the line to report.
pub fn draw(model: &Path, out: &Path) -> Result<String, CommandError> {
    let m = model_file::load(&model.display().to_string())?;
    out_dir(out)?;
    let stem = out.join(&m.scene.name);
    crate::report::drawing::draw(&m, &stem).map_err(CommandError::Write)?;
    Ok(format!("{}: wrote {}.svg and {}.png", m.scene.name, stem.display(), stem.display()))
}

/// `animate <model.yaml> <report dir>`: writes `<out>/<model>_animation.png`; returns the line to
/// report.
pub fn animate(
    model: &Path,
    report: &Path,
    cells: &[usize],
    frames: usize,
    fps: u16,
    out: &Path,
) -> Result<String, CommandError> {
    let m = model_file::load(&model.display().to_string())?;
    let tracks =
        crate::report::drawing::tracks_from_report(report, cells, m.scene.q0.len()).map_err(CommandError::Read)?;
    out_dir(out)?;
    let svgs = crate::report::drawing::animation_svgs(&m, &tracks, frames);
    let stem: PathBuf = out.join(format!("{}_animation", m.scene.name));
    crate::report::drawing::write_apng(&svgs, fps, &stem).map_err(CommandError::Write)?;
    Ok(format!("{}: wrote {}.png ({} frames, {} cells)", m.scene.name, stem.display(), svgs.len(), tracks.len()))
}
