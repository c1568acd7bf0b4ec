//! From a parsed model file to a scene: bodies and their declared state, forces, joints (through
//! each constraint type's `from_spec`), outputs; then assembly.

use super::address::{JointRows, coordinate, multiplier_unit, output};
use super::bodies::Bodies;
use super::forces::force;
use super::{Floats, Model, RawModel, fail};
use crate::constraint::registry as constraints;
use crate::constraint::spec::{JointSpec, SideSpec};
use crate::input::{ConfigError, at};
use crate::model::BodyKind;
use crate::params::{fmt_num, short};
use crate::scene::{EnergyScale, Output, Scene};
use crate::system::System;
use serde_saphyr::Spanned;
use std::collections::HashMap;

/// The largest magnitude of any number in a model: products of two stay finite (1e200), so no
/// force or energy overflows from the input alone.
pub(super) const LARGEST: f64 = 1e100;
/// The smallest mass or moment of inertia: its reciprocal (in W = M⁻¹) stays finite.
pub(super) const SMALLEST: f64 = 1e-100;
/// How far from the origin, in length scales, a position or point may lie: the rounding of a
/// coordinate x is |x| ε, and assembly must reach 1e-9 · length_scale, so |x| ≤ 1e-9 / ε ≈ 4.5e6
/// length scales (angles likewise, in radians).
pub(super) const REACH: f64 = 1e6;

/// `n` finite numbers of magnitude at most [`LARGEST`] from `v` as a 3-vector (z = 0 when n = 2),
/// or why not.
pub(super) fn vector(field: &str, v: &Floats, n: usize) -> Result<[f64; 3], String> {
    if v.0.len() != n {
        return Err(format!("field `{field}` has {} numbers; expected {n}", v.0.len()));
    }
    if let Some(x) = v.0.iter().find(|x| !(x.abs() <= LARGEST)) {
        return Err(format!(
            "field `{field}` holds {}; expected finite numbers of magnitude at most {LARGEST:e}",
            fmt_num(*x)
        ));
    }
    let mut out = [0.0; 3];
    out[..n].copy_from_slice(&v.0);
    Ok(out)
}

/// A point `p` \[m\] within [`REACH`] length scales of the origin, or why not.
pub(super) fn placed(field: &str, p: [f64; 3], length_scale: f64) -> Result<[f64; 3], String> {
    let reach = REACH * length_scale;
    match p.iter().find(|x| x.abs() > reach) {
        Some(x) => Err(format!(
            "field `{field}` holds {}; a mechanism of length_scale {} must lie within {reach:e} m of the origin (1e6 length scales: farther out, rounding alone exceeds the assembly tolerance)",
            fmt_num(*x),
            fmt_num(length_scale)
        )),
        None => Ok(p),
    }
}

pub(super) fn finite(field: &str, x: f64) -> Result<f64, String> {
    if x.abs() <= LARGEST {
        Ok(x)
    } else {
        Err(format!("field `{field}` = {}; expected a finite number of magnitude at most {LARGEST:e}", fmt_num(x)))
    }
}

/// A positive mass, inertia or scale in [[`SMALLEST`], [`LARGEST`]].
pub(super) fn positive(field: &str, x: f64) -> Result<f64, String> {
    if (SMALLEST..=LARGEST).contains(&x) {
        Ok(x)
    } else {
        Err(format!("field `{field}` = {}; expected a positive number in [{SMALLEST:e}, {LARGEST:e}]", fmt_num(x)))
    }
}

/// A finite non-negative number at most [`LARGEST`] (stiffness, damping, rest length).
pub(super) fn non_negative(field: &str, x: f64, unit: &str) -> Result<f64, String> {
    if (0.0..=LARGEST).contains(&x) {
        Ok(x)
    } else {
        Err(format!("field `{field}` = {}; expected a number in [0, {LARGEST:e}] [{unit}]", fmt_num(x)))
    }
}

/// A name of letters, digits and `_`, starting with a letter or `_`, at most 64 long.
pub(super) fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Builds the scene a model file describes and assembles its state.
pub fn build(file: &str, raw: &RawModel) -> Result<Model, ConfigError> {
    build_checked(file, raw, true, super::DEFAULT_ASSEMBLY_BYTES)
}

/// [`build`], checking that the declared reference file exists next to the model file when
/// `reference_on_disk` (a model built into the binary carries its reference with it instead).
/// The assembly of the initial state may allocate at most `max_bytes`.
pub(super) fn build_checked(
    file: &str,
    raw: &RawModel,
    reference_on_disk: bool,
    max_bytes: u64,
) -> Result<Model, ConfigError> {
    let (length_scale, joules) = check_header(file, raw)?;
    let mut bodies = Bodies::default();
    for (i, b) in raw.bodies.value.iter().enumerate() {
        bodies.add(file, i, b, length_scale)?;
    }
    let Bodies { mut system, q0, v0, names, body_names } = bodies;
    let lookup = |field: &str, n: &str| lookup_body(&names, &body_names, field, n);
    add_forces(file, raw, &mut system, &q0, length_scale, &lookup)?;
    let simplifications = gyroscopic(file, raw, &mut system)?;
    let mut marks = Vec::with_capacity(raw.joints.len());
    let mut joint_rows = JointRows::new();
    for (i, j) in raw.joints.iter().enumerate() {
        marks.push(add_joint(file, i, j, &mut system, &q0, length_scale, &lookup)?);
        let c = system.constraints().len() - 1;
        name_joint((file, &format!("joints[{i}]")), (j.value.name.as_ref(), c), &system, &names, &mut joint_rows)?;
    }
    if let Some(c) = &raw.contact {
        let here = |m: String| ConfigError { file: file.into(), location: at(c), message: m };
        let set = super::contact::build(&c.value, (&system, &body_names), &lookup, length_scale).map_err(&here)?;
        system.set_contacts(set).map_err(|e| here(e.to_string()))?;
    }

    let es = &raw.energy_scale.value;
    let mut scene = Scene {
        name: raw.model.value.clone(),
        system,
        q0,
        v0,
        reference: None,
        energy_scale: EnergyScale { joules, definition: es.definition.trim().to_string() },
        parametrization: None,
        outputs: Vec::new(),
        branch: Vec::new(),
    };
    add_drives(file, raw, &mut scene, length_scale, &lookup, &joint_rows)?;
    for (i, d) in raw.drives.iter().enumerate() {
        // Drive i is the constraint after the joints' and the drives' before it.
        let c = raw.joints.len() + i;
        debug_assert!(scene.system.constraints()[c].driving());
        name_joint(
            (file, &format!("drives[{i}]")),
            (d.value.name.as_ref(), c),
            &scene.system,
            &names,
            &mut joint_rows,
        )?;
    }
    add_outputs(file, raw, &mut scene, &lookup, &joint_rows)?;
    add_branch(file, raw, &mut scene, &lookup, &joint_rows)?;
    let assembly = assemble_declared(file, raw, &mut scene, (length_scale, max_bytes), &lookup)?;
    if let Some(reason) = scene.branch.iter().find_map(|b| b.violated(&scene.system, &scene.q0, &scene.v0)) {
        let at_branch = raw.branch.first().map_or(at(&raw.model), |b| at(&b.value.value));
        return Err(ConfigError {
            file: file.into(),
            location: at_branch,
            message: format!("the assembled state {reason}; the declared poses are on another branch"),
        });
    }
    Ok(Model {
        file: file.to_string(),
        summary: raw.summary.trim().to_string(),
        source: raw.source.trim().to_string(),
        length_scale,
        assembly,
        scene,
        body_names,
        joints: marks,
        simplifications,
        text_hash: String::new(),
        reference: declared_reference(file, raw, reference_on_disk)?,
    })
}

/// The model's name, its `length_scale` \[m\] and `energy_scale.joules` \[J\], and the item counts,
/// checked.
fn check_header(file: &str, raw: &RawModel) -> Result<(f64, f64), ConfigError> {
    let name = &raw.model.value;
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return fail(
            file,
            &raw.model,
            format!("field `model` = `{}` is invalid; expected 1 to 64 letters, digits, `_` or `-`", short(name)),
        );
    }
    let length_scale =
        positive("length_scale", raw.length_scale.value).or_else(|m| fail(file, &raw.length_scale, m))?;
    let es = &raw.energy_scale.value;
    let joules = positive("energy_scale.joules", es.joules.value).or_else(|m| fail(file, &es.joules, m))?;
    for (field, n) in [
        ("bodies", raw.bodies.value.len()),
        ("forces", raw.forces.len()),
        ("joints", raw.joints.len()),
        ("outputs", raw.outputs.len()),
    ] {
        if n > super::MAX_ITEMS {
            return fail(
                file,
                &raw.model,
                format!("field `{field}` has {n} entries; expected at most {}", super::MAX_ITEMS),
            );
        }
    }
    if raw.bodies.value.is_empty() {
        return fail(file, &raw.bodies, "field `bodies` is empty; a model needs at least one body".into());
    }
    Ok((length_scale, joules))
}

/// The index of the body named `n` (given in `field`), or the message listing the bodies.
fn lookup_body(names: &HashMap<String, usize>, body_names: &[String], field: &str, n: &str) -> Result<usize, String> {
    names.get(n).copied().ok_or_else(|| {
        let mut known: Vec<&str> = body_names.iter().map(String::as_str).take(20).collect();
        if body_names.len() > 20 {
            known.push("…");
        }
        format!("field `{field}` = `{}` is no body of this model; expected one of: {}", short(n), known.join(", "))
    })
}

/// The declared side of body i (kind and coordinates at q0), for joints and forces.
fn side(system: &System, q0: &[f64], i: usize) -> SideSpec {
    let kind = system.bodies()[i].kind;
    let o = system.q_offsets()[i];
    SideSpec { body: i, kind, q: q0[o..o + kind.nq()].to_vec() }
}

/// Adds the model's `forces`.
fn add_forces(
    file: &str,
    raw: &RawModel,
    system: &mut System,
    q0: &[f64],
    length_scale: f64,
    lookup: &Lookup,
) -> Result<(), ConfigError> {
    for (i, f) in raw.forces.iter().enumerate() {
        let here = |m: String| ConfigError { file: file.into(), location: at(f), message: format!("forces[{i}]: {m}") };
        let force = force(&f.value, system, q0, length_scale, lookup, &side).map_err(here)?;
        system.add_force(force).map_err(|e| ConfigError {
            file: file.into(),
            location: at(f),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

/// Adds joint `i` of the model; returns where it sits.
fn add_joint(
    file: &str,
    i: usize,
    j: &Spanned<super::RawJoint>,
    system: &mut System,
    q0: &[f64],
    length_scale: f64,
    lookup: &Lookup,
) -> Result<super::JointMark, ConfigError> {
    let here = |m: String| ConfigError {
        file: file.into(),
        location: at(j),
        message: format!("joints[{i}] ({}): {m}", short(&j.value.kind.value)),
    };
    let j = &j.value;
    let Some(entry) = constraints::find(&j.kind.value) else {
        let known: Vec<&str> = constraints::CONSTRAINTS.iter().map(|e| e.name).collect();
        return Err(ConfigError {
            file: file.into(),
            location: at(&j.kind),
            message: format!(
                "field `joints[{i}].type` = `{}` is unknown; expected one of: {}",
                short(&j.kind.value),
                known.join(", ")
            ),
        });
    };
    let a = if j.a.value == "world" { None } else { Some(lookup("a", &j.a.value).map_err(&here)?) };
    let b = match &j.b {
        Some(b) if b.value != "world" => Some(lookup("b", &b.value).map_err(&here)?),
        _ => None,
    };
    let (a, b, swapped) = match (a, b) {
        (None, None) => return Err(here("`a` and `b` are both the world; a joint needs a body".into())),
        (None, Some(b)) => (Some(b), None, true), // the world first: swap, so `a` is the body
        (a, b) => (a, b, false),
    };
    if a.is_some() && a == b {
        return Err(here(format!("`a` and `b` are the same body `{}`", j.a.value)));
    }
    let sa = a.map(|i| side(system, q0, i));
    let dim = sa.as_ref().map_or(2, |s| s.kind.dim());
    let v = |field: &str, x: &Option<Floats>| {
        x.as_ref().map(|x| vector(field, x, dim).and_then(|p| placed(field, p, length_scale))).transpose()
    };
    let spec = JointSpec {
        a: sa,
        b: b.map(|i| side(system, q0, i)),
        at: v("at", &j.at).map_err(&here)?,
        // The sides swapped, so are their anchors.
        local_a: v(if swapped { "local_b" } else { "local_a" }, if swapped { &j.local_b } else { &j.local_a })
            .map_err(&here)?,
        local_b: v(if swapped { "local_a" } else { "local_b" }, if swapped { &j.local_a } else { &j.local_b })
            .map_err(&here)?,
        axis: j.axis.as_ref().map(|x| vector("axis", x, dim)).transpose().map_err(&here)?,
        center: v("center", &j.center).map_err(&here)?,
        length: j.length,
        radius: j.radius,
    };
    let c = (entry.from_spec)(&spec).map_err(|e| here(e.to_string()))?;
    system.add_constraint(c).map_err(|e| here(e.to_string()))?;
    Ok(mark(&j.kind.value, &spec))
}

/// Records the rows of joint `i` (just added) under its `name`, if it has one: a unique name of
/// letters, digits or `_` that no body has.
fn name_joint(
    (file, item): (&str, &str),
    (name, c): (Option<&Spanned<String>>, usize),
    system: &System,
    bodies: &HashMap<String, usize>,
    rows: &mut JointRows,
) -> Result<(), ConfigError> {
    let Some(name) = name else { return Ok(()) };
    if !is_name(&name.value) || rows.contains_key(&name.value) || bodies.contains_key(&name.value) {
        return Err(ConfigError {
            file: file.into(),
            location: at(name),
            message: format!(
                "{item}: field `name` = `{}` is invalid or repeated; expected a name of letters, digits or `_` that no other joint, drive or body has",
                short(&name.value)
            ),
        });
    }
    let constraint = &system.constraints()[c];
    let units = (0..constraint.rows()).map(|r| multiplier_unit(constraint.row_unit(r))).collect();
    rows.insert(name.value.clone(), (system.row_offsets()[c], units));
    Ok(())
}

/// Adds the model's `drives` to the scene.
fn add_drives(
    file: &str,
    raw: &RawModel,
    scene: &mut Scene,
    length_scale: f64,
    lookup: &Lookup,
    joints: &JointRows,
) -> Result<(), ConfigError> {
    for (i, d) in raw.drives.iter().enumerate() {
        let here = |m: String| ConfigError {
            file: file.into(),
            location: at(&d.value.coordinate),
            message: format!("drives[{i}]: {m}"),
        };
        let address = &d.value.coordinate.value;
        // `JOINT.angle` of a named joint: a hinge's angle.
        let joint = address.split_once('.').filter(|(_, c)| c.trim() == "angle").map(|(j, _)| j.trim());
        if let Some((j, (row, _))) = joint.and_then(|j| joints.get_key_value(j)) {
            let c = scene.system.row_offsets().iter().position(|r| r == row).expect("a named joint's first row");
            super::drives::add_hinge(scene, j, c, &d.value).map_err(&here)?;
            continue;
        }
        let qi = coordinate(scene, "coordinate", address, lookup).map_err(&here)?;
        let other = d.value.relative_to.as_ref().map(|b| lookup("relative_to", b)).transpose().map_err(&here)?;
        super::drives::add(scene, qi, other, &d.value, length_scale).map_err(&here)?;
    }
    Ok(())
}

/// Adds the model's `outputs` to the scene.
fn add_outputs(
    file: &str,
    raw: &RawModel,
    scene: &mut Scene,
    lookup: &Lookup,
    joints: &JointRows,
) -> Result<(), ConfigError> {
    for (i, o) in raw.outputs.iter().enumerate() {
        let here = |s: &Spanned<String>, m: String| ConfigError {
            file: file.into(),
            location: at(s),
            message: format!("outputs[{i}]: {m}"),
        };
        let on = &o.value.name;
        if !is_name(&on.value) || scene.outputs.iter().any(|x| x.name == on.value) {
            return Err(here(
                on,
                format!(
                    "field `name` = `{}` is invalid or repeated; expected a unique name of letters, digits or `_`",
                    short(&on.value)
                ),
            ));
        }
        let quantity = output(scene, &o.value.value.value, lookup, joints).map_err(|m| here(&o.value.value, m))?;
        let describes = o.value.describes.clone().unwrap_or_else(|| o.value.value.value.clone());
        let unit = quantity.1;
        scene.outputs.push(Output::new(&on.value, unit, &describes, quantity.0));
    }
    Ok(())
}

/// Adds the model's `branch` invariants to the scene.
fn add_branch(
    file: &str,
    raw: &RawModel,
    scene: &mut Scene,
    lookup: &Lookup,
    joints: &JointRows,
) -> Result<(), ConfigError> {
    for (i, b) in raw.branch.iter().enumerate() {
        let here = |m: String| ConfigError {
            file: file.into(),
            location: at(&b.value.value),
            message: format!("branch[{i}]: {m}"),
        };
        let (quantity, unit) = output(scene, &b.value.value.value, lookup, joints).map_err(&here)?;
        if quantity.needs_lambda() {
            return Err(here("a branch invariant is a function of the state (q, v); a multiplier is not".into()));
        }
        let (min, max) = (b.value.min, b.value.max);
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(here(format!("`min` = {min} and `max` = {max}; expected finite bounds with min < max")));
        }
        let text = b.value.value.value.trim();
        let output = Output::new(text, unit, &format!("branch invariant {text}"), quantity);
        scene.branch.push(crate::scene::Invariant { output, min, max });
    }
    Ok(())
}

/// Assembles the scene's initial state as `assemble` says (on by default, keeping the listed
/// coordinates), or records it unassembled.
fn assemble_declared(
    file: &str,
    raw: &RawModel,
    scene: &mut Scene,
    (length_scale, max_bytes): (f64, u64),
    lookup: &Lookup,
) -> Result<super::assemble::Assembly, ConfigError> {
    let off = matches!(raw.assemble.as_ref().map(|a| &a.value), Some(super::RawAssembleChoice::Off));
    let (keep, keep_v) = match raw.assemble.as_ref().map(|a| &a.value) {
        Some(super::RawAssembleChoice::On(a)) => {
            let resolve = |list: &[Spanned<String>], field: &str| -> Result<Vec<usize>, ConfigError> {
                list.iter()
                    .map(|s| {
                        coordinate(scene, field, &s.value, lookup).map_err(|m| ConfigError {
                            file: file.into(),
                            location: at(s),
                            message: format!("field `assemble.{field}`: {m}"),
                        })
                    })
                    .collect()
            };
            (resolve(&a.keep, "keep")?, resolve(&a.keep_velocity, "keep_velocity")?)
        }
        _ => (Vec::new(), Vec::new()),
    };
    let assembly = if off {
        super::assemble::unassembled(scene)
    } else {
        super::assemble::assemble(scene, &keep, &keep_v, length_scale, max_bytes).map_err(|m| ConfigError {
            file: file.into(),
            location: at(&raw.model),
            message: m,
        })?
    };
    Ok(assembly)
}

/// The model's declared reference, checked to exist next to the model file when
/// `reference_on_disk`.
fn declared_reference(
    file: &str,
    raw: &RawModel,
    reference_on_disk: bool,
) -> Result<Option<super::ModelReference>, ConfigError> {
    Ok(match &raw.reference {
        Some(r) => {
            let dir = std::path::Path::new(file).parent().unwrap_or(std::path::Path::new(""));
            if reference_on_disk && !dir.join(&r.value.file).is_file() {
                return Err(ConfigError {
                    file: file.into(),
                    location: at(r),
                    message: format!(
                        "field `reference.file` = `{}`: no such file (relative to the model file)",
                        short(&r.value.file)
                    ),
                });
            }
            Some(r.value.clone())
        }
        None => None,
    })
}

/// Where a joint built from `spec` sits: its anchors where the type has them (a pin at its
/// point, a circle at its centre, a body on a line at itself).
fn mark(kind: &str, spec: &JointSpec) -> super::JointMark {
    let mut anchors = Vec::new();
    if let Some(a) = &spec.a {
        anchors.push((Some(a.body), spec.anchor_a(kind).unwrap_or([0.0; 3])));
    }
    match &spec.b {
        Some(b) => anchors.push((Some(b.body), spec.anchor_b(kind).unwrap_or([0.0; 3]))),
        None => {
            if let Some(p) = spec.center.or(spec.at).or(spec.local_b) {
                anchors.push((None, p));
            }
        }
    }
    super::JointMark { kind: kind.to_string(), anchors }
}

/// Resolves a body name (the field it was given in, the name) to its index.
pub(super) type Lookup<'a> = dyn Fn(&str, &str) -> Result<usize, String> + 'a;
/// The declared side of body i (kind and coordinates at q0), for joints and forces.
pub(super) type SideOf<'a> = dyn Fn(&System, &[f64], usize) -> SideSpec + 'a;

/// The phrase labels and reports carry for a model without the gyroscopic term.
pub(super) const NO_GYROSCOPIC: &str = "no gyroscopic term";

/// Adds the gyroscopic term −Ω × IΩ when the model has rigid-3D bodies, unless `gyroscopic: false`
/// turns it off (then returns that simplification, to be named wherever the model is reported).
/// An explicit `{type: gyroscopic}` force is accepted and not added twice; with `gyroscopic: false`
/// it is a contradiction, refused.
fn gyroscopic(file: &str, raw: &RawModel, system: &mut System) -> Result<Vec<String>, ConfigError> {
    let listed = system.forces().iter().any(|f| matches!(f, crate::model::Force::Gyroscopic));
    let spatial = system.bodies().iter().any(|b| b.kind == BodyKind::Rigid3);
    match &raw.gyroscopic {
        Some(g) if !g.value => {
            if listed {
                return fail(
                    file,
                    g,
                    "field `gyroscopic` = false contradicts the `{type: gyroscopic}` force; keep one of the two".into(),
                );
            }
            Ok(if spatial { vec![NO_GYROSCOPIC.to_string()] } else { Vec::new() })
        }
        _ => {
            if spatial && !listed {
                system.add_force(crate::model::Force::Gyroscopic).map_err(|e| ConfigError {
                    file: file.into(),
                    location: at(&raw.model),
                    message: e.to_string(),
                })?;
            }
            Ok(Vec::new())
        }
    }
}
