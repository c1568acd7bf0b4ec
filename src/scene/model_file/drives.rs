//! `drives:` of a model file: driving constraints ([`crate::constraint::drive`]). The first drive
//! adds the scene's clock body (s = 0, ṡ = 1 at t = 0), after every declared body so that their
//! indices are unchanged; every drive is then one `drive` row on its body and the clock, built
//! before assembly, so the declared state is projected onto C(q, t₀) = 0 like any other joint.

use super::RawDrive;
use super::build::{LARGEST, REACH};
use crate::constraint::Motion3;
use crate::constraint::drive::{Drive, Harmonic, Profile};
use crate::constraint::hinge_drive::HingeDrive;
use crate::expr::{Expr, Spline};
use crate::model::{Body, BodyKind};
use crate::scene::Scene;
use nalgebra::Matrix3;
use serde_saphyr::Spanned;

/// Adds the drive `d` of coordinate `qi` (an index into q), relative to body `other` if given, to
/// `scene`.
pub(super) fn add(
    scene: &mut Scene,
    qi: usize,
    other: Option<usize>,
    d: &RawDrive,
    length_scale: f64,
) -> Result<(), String> {
    let system = &scene.system;
    let body = system.q_offsets().partition_point(|&o| o <= qi) - 1;
    let kind = system.bodies()[body].kind;
    let index = qi - system.q_offsets()[body];
    if let Some(b) = other {
        let kb = system.bodies()[b].kind;
        if b == body || kb != kind {
            return Err(format!(
                "field `relative_to` = `{}` must be another body of the driven one's kind ({})",
                crate::params::short(d.relative_to.as_deref().unwrap_or("")),
                kind.label()
            ));
        }
    }
    let angle = kind == BodyKind::Rigid2 && index == 2;
    if kind == BodyKind::Rigid3 && index >= 3 {
        return Err(format!(
            "`{}` is a quaternion component; a drive takes a position (x, y, z), a planar body's angle or a named hinge's angle (JOINT.angle)",
            crate::params::short(&d.coordinate.value)
        ));
    }
    let (unit, reach) = if angle { ("rad", REACH) } else { ("m", REACH * length_scale) };
    let declared = match other {
        Some(b) => scene.q0[qi] - scene.q0[system.q_offsets()[b] + index],
        None => scene.q0[qi],
    };
    let profile = profile(d, declared, reach, unit)?;
    let clock = clock(scene)?;
    let drive = match other {
        Some(b) => Drive::relative(body, b, kind, index, clock, profile),
        None => Drive::new(body, kind, index, clock, profile),
    };
    scene.system.add_constraint(Box::new(drive)).map_err(|e| e.to_string())?;
    Ok(())
}

/// The profile a drive's fields describe (`declared`: f(0) when `start` is not given).
fn profile(d: &RawDrive, declared: f64, reach: f64, unit: &str) -> Result<Profile, String> {
    match (&d.function, &d.table) {
        (Some(_), Some(_)) => Err("fields `function` and `table` are both set; a drive takes one".into()),
        (Some(f), None) => expression(f, d, reach, unit),
        (None, Some(t)) => table(&t.value, d, reach, unit),
        (None, None) => harmonic(d, declared, reach, unit),
    }
}

/// The scene's clock body, added (s = 0, ṡ = 1) at the first drive.
fn clock(scene: &mut Scene) -> Result<usize, String> {
    if let Some(c) = scene.system.bodies().iter().position(|b| b.kind == BodyKind::Clock) {
        return Ok(c);
    }
    let c = scene.system.add_body(Body::clock()).map_err(|e| e.to_string())?;
    scene.q0.push(0.0);
    scene.v0.push(1.0);
    Ok(c)
}

/// Adds the drive `d` of the angle of joint `joint` (`JOINT.angle`, constraint `c`): a hinge
/// between a rigid-3D body and the world ([`HingeDrive`]).
pub(super) fn add_hinge(scene: &mut Scene, joint: &str, c: usize, d: &RawDrive) -> Result<(), String> {
    let name = crate::params::short(joint);
    let constraint = &scene.system.constraints()[c];
    let pair = constraint.spatial_pair().filter(|p| p.motion == Motion3::Revolute).ok_or_else(|| {
        format!(
            "`{name}.angle`: `{name}` is a {} joint; a joint's angle can be driven on a hinge to the world (in the plane, drive a body's angle, with `relative_to` for a joint between two bodies)",
            constraint.kind()
        )
    })?;
    if d.relative_to.is_some() {
        return Err(format!("field `relative_to` is set on the hinge `{name}`'s angle, which is already relative"));
    }
    let (body, body_first) = match (pair.first.body, pair.second.body) {
        (Some(b), None) => (b, true),
        (None, Some(b)) => (b, false),
        _ => {
            return Err(format!(
                "the hinge `{name}` joins two moving bodies; a hinge drive holds a hinge to the world (with the clock it would touch 13 velocity coordinates, more than the 12 of a constraint's block)"
            ));
        }
    };
    let axes = [pair.first.frame.axes, pair.second.frame.axes];
    // The declared angle: φ of side a relative to side b, R₁F₁ Rx(−φ) = R₂F₂, at the declared pose.
    let o = scene.system.q_offsets()[body];
    let r = crate::model::rotation::rotation_matrix(&scene.q0[o + 3..o + 7]);
    let (r1, r2) = if body_first { (r, Matrix3::identity()) } else { (Matrix3::identity(), r) };
    let (f1, f2) = (r1 * axes[0], r2 * axes[1]);
    let (n, u, w) = (f2.column(0), f2.column(1), f1.column(1));
    let declared = n.dot(&u.cross(&w)).atan2(u.dot(&w));
    let profile = profile(d, declared, REACH, "rad")?;
    let clock = clock(scene)?;
    let drive = HingeDrive::new(body, body_first, axes, clock, profile);
    scene.system.add_constraint(Box::new(drive)).map_err(|e| e.to_string())?;
    Ok(())
}

/// Refuses the ramp-and-sine fields next to `function` or `table` (named `with`).
fn alone(d: &RawDrive, with: &str) -> Result<(), String> {
    let others = [
        ("start", d.start.unwrap_or(0.0)),
        ("rate", d.rate),
        ("amplitude", d.amplitude),
        ("omega", d.omega),
        ("phase", d.phase),
    ];
    match others.iter().find(|(field, x)| *x != 0.0 || (*field == "start" && d.start.is_some())) {
        Some((field, _)) => Err(format!(
            "field `{field}` is set next to `{with}`; a drive takes `function`, `table` or start/rate/amplitude/omega/phase"
        )),
        None => Ok(()),
    }
}

/// The profile of `table` (no other profile field may be set): a natural cubic spline through
/// it, covering t = 0, every value within `reach`.
fn table(t: &super::RawTable, d: &RawDrive, reach: f64, unit: &str) -> Result<Profile, String> {
    alone(d, "table")?;
    let spline = Spline::new(&t.t, &t.value).map_err(|m| format!("field `table`: {m}"))?;
    if !(spline.span().0 <= 0.0) {
        return Err(format!(
            "field `table`: `t[0]` = {} s; expected the table to start at or before t = 0",
            crate::params::fmt_num(spline.span().0)
        ));
    }
    if let Some(i) = t.value.iter().position(|x| !(x.abs() <= reach)) {
        return Err(format!(
            "field `table`: `value[{i}]` = {} {unit}; expected magnitude at most {reach:e} {unit}",
            crate::params::fmt_num(t.value[i])
        ));
    }
    Ok(Profile::Table(spline))
}

/// The profile of `function` (no other profile field may be set): parsed, and finite with
/// magnitude at most `reach` at t = 0.
fn expression(f: &Spanned<String>, d: &RawDrive, reach: f64, unit: &str) -> Result<Profile, String> {
    alone(d, "function")?;
    let bad = |m: String| format!("field `function` = `{}`: {m}", crate::params::short(&f.value));
    let e = Expr::parse(&f.value).map_err(|e| bad(e.to_string()))?;
    let j = e.eval(0.0).map_err(|e| bad(e.to_string()))?;
    if !(j.v.abs() <= reach) {
        return Err(bad(format!(
            "f(0) = {} {unit}; expected magnitude at most {reach:e} {unit}",
            crate::params::fmt_num(j.v)
        )));
    }
    Ok(Profile::Expression(e))
}

/// The ramp-plus-sine profile, its fields checked.
fn harmonic(d: &RawDrive, declared: f64, reach: f64, unit: &str) -> Result<Profile, String> {
    let start = d.start.unwrap_or(declared);
    for (field, x, bound) in [
        ("start", start, reach),
        ("amplitude", d.amplitude, reach),
        ("rate", d.rate, LARGEST),
        ("omega", d.omega, LARGEST),
        ("phase", d.phase, REACH),
    ] {
        if !(x.abs() <= bound) {
            return Err(format!(
                "field `{field}` = {}; expected a finite number of magnitude at most {bound:e}{}",
                crate::params::fmt_num(x),
                if field == "start" || field == "amplitude" { format!(" {unit}") } else { String::new() }
            ));
        }
    }
    Ok(Profile::Harmonic(Harmonic { start, rate: d.rate, amplitude: d.amplitude, omega: d.omega, phase: d.phase }))
}
