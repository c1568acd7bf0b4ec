//! `forces:` of a model file: gravity, spring-dampers between body points or to a world point,
//! constant forces and torques, the gyroscopic term, each checked field by field.

use super::RawPoint;
use super::build::{Lookup, SideOf, finite, non_negative, placed, vector};
use crate::model::{BodyKind, BodyPoint, End, Force};
use crate::params::short;
use crate::system::System;

/// The force types, in the order errors list them.
const FORCES: &str = "gravity, spring, constant, torque, gyroscopic";

/// A body point `{body, point}` of a force.
fn body_point(field: &str, p: &RawPoint, system: &System, lookup: &Lookup) -> Result<BodyPoint, String> {
    let name = p.body.as_ref().ok_or_else(|| format!("field `{field}` needs `body` (and `point`) or `world`"))?;
    let body = lookup(&format!("{field}.body"), name)?;
    let kind = system.bodies()[body].kind;
    let local = match &p.point {
        Some(x) => vector(&format!("{field}.point"), x, kind.dim())?,
        None => [0.0; 3],
    };
    if matches!(kind, BodyKind::Particle2 | BodyKind::Particle3) && local != [0.0; 3] {
        return Err(format!("field `{field}.point` is off a particle, which has no extent"));
    }
    Ok(BodyPoint { body, local })
}

pub(super) fn force(
    f: &super::RawForce,
    system: &System,
    q0: &[f64],
    length_scale: f64,
    lookup: &Lookup,
    side: &SideOf,
) -> Result<Force, String> {
    let kind = f.kind.value.as_str();
    let given: Vec<&str> = [
        ("g", f.g.is_some()),
        ("a", f.a.is_some()),
        ("b", f.b.is_some()),
        ("stiffness", f.stiffness.is_some()),
        ("damping", f.damping.is_some()),
        ("rest_length", f.rest_length.is_some()),
        ("body", f.body.is_some()),
        ("point", f.point.is_some()),
        ("force", f.force.is_some()),
        ("torque", f.torque.is_some()),
    ]
    .iter()
    .filter(|(_, p)| *p)
    .map(|(n, _)| *n)
    .collect();
    let takes: &[&str] = match kind {
        "gravity" => &["g"],
        "spring" => &["a", "b", "stiffness", "damping", "rest_length"],
        "constant" => &["body", "point", "force"],
        "torque" => &["body", "torque"],
        "gyroscopic" => &[],
        other => return Err(format!("field `type` = `{}` is unknown; expected one of: {FORCES}", short(other))),
    };
    if let Some(x) = given.iter().find(|g| !takes.contains(g)) {
        return Err(format!(
            "field `{x}` does not apply to `{kind}`; it takes: {}",
            if takes.is_empty() { "nothing".to_string() } else { takes.join(", ") }
        ));
    }
    let need = |n: &str| format!("`{kind}` needs field `{n}`");
    let dim = system.bodies().iter().map(|b| b.kind.dim()).max().unwrap_or(2);
    Ok(match kind {
        "gravity" => {
            let g = f.g.as_ref().ok_or_else(|| need("g"))?;
            Force::Gravity { g: vector("g", g, dim)? }
        }
        "spring" => spring(f, system, q0, length_scale, lookup, side)?,
        "constant" => {
            let at = body_point(
                "body",
                &RawPoint { body: f.body.clone(), point: f.point.clone(), world: None },
                system,
                lookup,
            )?;
            let v = f.force.as_ref().ok_or_else(|| need("force"))?;
            Force::Constant { at, force: vector("force", v, system.bodies()[at.body].kind.dim())? }
        }
        "torque" => {
            let body = lookup("body", f.body.as_ref().ok_or_else(|| need("body"))?)?;
            if system.bodies()[body].kind != BodyKind::Rigid2 {
                return Err("field `body`: `torque` acts on a rigid2 body (use `constant` forces in space)".into());
            }
            Force::Torque { body, torque: finite("torque", f.torque.ok_or_else(|| need("torque"))?)? }
        }
        _ => Force::Gyroscopic,
    })
}

/// A spring-damper between two body points, or a body point and a world point; its rest length
/// defaults to the declared distance.
fn spring(
    f: &super::RawForce,
    system: &System,
    q0: &[f64],
    length_scale: f64,
    lookup: &Lookup,
    side: &SideOf,
) -> Result<Force, String> {
    let need = |n: &str| format!("`spring` needs field `{n}`");
    let a = body_point("a", f.a.as_ref().ok_or_else(|| need("a"))?, system, lookup)?;
    let rb = f.b.as_ref().ok_or_else(|| need("b"))?;
    let sa = side(system, q0, a.body);
    let pa = sa.world(a.local);
    let (b, pb) = match (&rb.world, &rb.body, &rb.point) {
        (Some(w), None, None) => {
            let w = placed("b.world", vector("b.world", w, sa.kind.dim())?, length_scale)?;
            (End::World(w), w)
        }
        (None, Some(_), _) => {
            let b = body_point("b", rb, system, lookup)?;
            if b.body == a.body {
                return Err("a spring's two ends are on the same body".into());
            }
            (End::Body(b), side(system, q0, b.body).world(b.local))
        }
        _ => return Err("field `b` takes `body` (and `point`) or `world`, not both".into()),
    };
    let stiffness = non_negative("stiffness", f.stiffness.ok_or_else(|| need("stiffness"))?, "N/m")?;
    let damping = non_negative("damping", f.damping.unwrap_or(0.0), "N s/m")?;
    let rest =
        non_negative("rest_length", f.rest_length.unwrap_or_else(|| crate::constraint::spec::distance(pa, pb)), "m")?;
    Ok(Force::SpringDamper { a, b, stiffness, damping, rest_length: rest })
}
