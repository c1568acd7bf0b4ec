//! `dump`: one step of a contact cell of an experiment, written as an FCLIB file.

use crate::commands::CommandError;
use crate::experiment;
use crate::formulation::Dynamics;
use crate::friction::fclib::{self, Info};
use crate::integrator::Control;
use crate::params::fmt_num;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// Runs cell `cell` of `config` to the step nearest `time` \[s\] and writes the contact problem of
/// that step to `out` (FCLIB local problem, the step's impulses as its first guess); the line to
/// print, or the reason (bad input before anything is computed, or a failure on the way).
pub(crate) fn dump(config: &Path, cell: usize, time: f64, out: &Path) -> Result<String, CommandError> {
    let file = config.display().to_string();
    let exp = experiment::load_with(&file, &[])?;
    let usage = |m: String| CommandError::Usage(m);
    let cells = exp.cells();
    let c = cells.get(cell).ok_or_else(|| {
        usage(format!("--cell {cell} is out of range: {} has cells 0 to {}", file, cells.len().saturating_sub(1)))
    })?;
    let spec = exp.spec(c);
    let Control::Fixed { h } = spec.control else {
        return Err(usage(format!("--cell {cell} is an adaptive ODE cell; dump takes a contact stepper (pgs) cell")));
    };
    if !(time.is_finite() && time > 0.0 && time <= spec.duration) {
        return Err(usage(format!(
            "--time {} is invalid; expected a time in (0, {}] s",
            fmt_num(time),
            fmt_num(spec.duration)
        )));
    }
    if out.extension().is_none_or(|e| e != "hdf5") {
        return Err(usage(format!("--out {} must end in .hdf5", out.display())));
    }
    crate::input::refuse_special(out).map_err(|m| usage(format!("--out {}: {m}", out.display())))?;
    let scene = &exp.variants[c.variant].scene;
    let solver = (spec.solver.build)(&spec.solver_params);
    let Ok(Dynamics::Stepper(mut stepper)) = (spec.formulation.build)(&spec.formulation_params, scene, solver) else {
        return Err(usage(format!(
            "--cell {cell} ({}) is not a stepping formulation on this scene",
            exp.cell_label(c)
        )));
    };
    if stepper.contact_problem().is_none() {
        return Err(usage(format!(
            "formulation `{}` solves no contact problem; dump takes a pgs cell",
            spec.formulation.name
        )));
    }
    let steps = ((time / h).round() as u64).max(1);
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    for n in 1..=steps {
        stepper
            .step(h, &mut q, &mut v)
            .map_err(|e| CommandError::Failed(format!("the cell failed at t = {}: {e}", fmt_num(n as f64 * h))))?;
    }
    let t = steps as f64 * h;
    let mut p = stepper.contact_problem().expect("checked above").map_err(|e| CommandError::Failed(e.to_string()))?;
    p.name = out.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let info = Info {
        title: format!("{} cell {cell} at t = {} s", exp.name, fmt_num(t)),
        description: format!(
            "dumped by tinkertoy {} from {} cell {cell} ({}): the contact rows of the step ending at t = {} s, W = J_c M^-1 J_c^T, q = J_c v* - target, the step's impulses as guess 1",
            env!("CARGO_PKG_VERSION"),
            file,
            exp.cell_label(c),
            fmt_num(t)
        ),
        math_info: String::new(),
    };
    let bytes = fclib::local_to_bytes(&p, &info).map_err(|e| CommandError::Failed(e.to_string()))?;
    let write = |e: std::io::Error| CommandError::Write(crate::input::FileError::io(out, &e));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(out)
        .map_err(write)?;
    f.write_all(&bytes).map_err(write)?;
    Ok(format!("dump: {} contacts at t = {} s -> {}", p.contacts(), fmt_num(t), out.display()))
}
