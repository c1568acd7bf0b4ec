//! Body addresses in model files: `NAME.x|y|z|angle|qw..qz`, `NAME.vx|vy|vz|omega|wx..wz`,
//! `NAME.point(px, py[, pz]).x|y|z|vx|vy|vz` and
//! signed sums of them, resolved against the built scene (outputs, branch invariants, kept
//! coordinates, drives).

use super::build::Lookup;
use crate::params::short;
use crate::scene::{Quantity, Scene};

/// `NAME.rest` as `body<i>.rest`; an unknown NAME is reported as the value of `field`.
pub(super) fn generic(field: &str, address: &str, lookup: &Lookup) -> Result<String, String> {
    let (body, rest) = address.trim().split_once('.').ok_or_else(|| {
        format!(
            "`{}` is no body address; expected NAME.x|y|z|angle|qw|qx|qy|qz, NAME.vx|vy|vz|omega|wx|wy|wz or NAME.point(px, py[, pz]).x|y|z|vx|vy|vz",
            short(address)
        )
    })?;
    let i = lookup(field, body.trim())?;
    Ok(format!("body{i}.{}", rest.trim()))
}

/// The named joints: name → (first constraint row, rows, the multiplier's unit per row).
pub(super) type JointRows = std::collections::HashMap<String, (usize, Vec<&'static str>)>;

/// The unit of a multiplier whose row has unit `row` (energy over the row's unit).
pub(super) fn multiplier_unit(row: &str) -> &'static str {
    match row {
        "m" => "N",
        "m²" => "N/m",
        _ => "N m", // rad or a dimensionless orientation row
    }
}

/// `JOINT.lambda` (its first row) or `JOINT.lambda(k)` (row k, from 0) of a named joint, if
/// `term` is one.
fn multiplier(term: &str, joints: &JointRows) -> Option<Result<(Quantity, &'static str), String>> {
    let (name, rest) = term.split_once('.')?;
    let (first, units) = joints.get(name.trim())?;
    let rest = rest.trim();
    let k = if rest == "lambda" {
        Ok(0)
    } else if let Some(inner) = rest.strip_prefix("lambda(").and_then(|r| r.strip_suffix(')')) {
        inner.trim().parse::<usize>().map_err(|_| ())
    } else {
        Err(())
    };
    Some(match k {
        Ok(k) if k < units.len() => Ok((Quantity::Multiplier { row: first + k }, units[k])),
        _ => Err(format!(
            "`{}` is no multiplier of joint `{}`; expected {}.lambda or {}.lambda(k) with k in 0..{}",
            short(term),
            short(name.trim()),
            short(name.trim()),
            short(name.trim()),
            units.len() - 1
        )),
    })
}

/// One term `[NUMBER *] ADDRESS` of an output value.
fn term(
    scene: &Scene,
    text: &str,
    lookup: &Lookup,
    joints: &JointRows,
) -> Result<(f64, Quantity, &'static str), String> {
    let (factor, address) = match text.split_once('*') {
        Some((f, a)) => match f.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => (x, a.trim()),
            _ => return Err(format!("`{}` is no factor; expected a finite number before `*`", short(f.trim()))),
        },
        None => (1.0, text.trim()),
    };
    if let Some(m) = multiplier(address, joints) {
        let (q, unit) = m?;
        return Ok((factor, q, unit));
    }
    let o = scene.output(&generic("value", address, lookup)?).map_err(|_| {
        format!(
            "`{}` is no body address; expected NAME.x|y|z|angle|qw|qx|qy|qz, NAME.vx|vy|vz|omega|wx|wy|wz, NAME.point(px, py[, pz]).x|y|z|vx|vy|vz or JOINT.lambda",
            short(address)
        )
    })?;
    Ok((factor, o.quantity, o.unit))
}

/// An output value: terms `[NUMBER *] ADDRESS` (a body address, or a named joint's
/// `JOINT.lambda`) joined by `+` and `-` (outside parentheses), all of one unit.
pub(super) fn output(
    scene: &Scene,
    value: &str,
    lookup: &Lookup,
    joints: &JointRows,
) -> Result<(Quantity, &'static str), String> {
    // Split at + and - outside parentheses (a point's coordinates may be negative).
    let mut pieces: Vec<(f64, &str)> = Vec::new();
    let (mut depth, mut start, mut sign) = (0i32, 0usize, 1.0);
    let bytes = value.as_bytes();
    // A sign after a digit's exponent mark (`1e-3 * B.x`) belongs to the number.
    let exponent = |i: usize| i >= 2 && matches!(bytes[i - 1], b'e' | b'E') && bytes[i - 2].is_ascii_digit();
    for (i, ch) in value.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            '+' | '-' if depth == 0 && !exponent(i) => {
                pieces.push((sign, &value[start..i]));
                sign = if ch == '-' { -1.0 } else { 1.0 };
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push((sign, &value[start..]));
    if pieces.len() > 1 && pieces[0].1.trim().is_empty() {
        pieces.remove(0); // a leading sign
    }
    let mut terms = Vec::new();
    for (sign, text) in pieces {
        if text.trim().is_empty() {
            return Err(format!("`{}` has an empty term; expected body addresses joined by + or -", short(value)));
        }
        let (factor, q, unit) = term(scene, text, lookup, joints)?;
        terms.push((sign * factor, q, unit));
    }
    let unit = terms[0].2;
    if let Some((_, _, u)) = terms.iter().find(|(_, _, u)| *u != unit) {
        return Err(format!("`{}` adds {u} to {unit}; every term needs the same unit", short(value)));
    }
    if let [(s, q, _)] = terms.as_slice()
        && *s == 1.0
    {
        return Ok((q.clone(), unit));
    }
    Ok((Quantity::Sum { terms: terms.into_iter().map(|(s, q, _)| (s, q)).collect() }, unit))
}

/// The index in q of a coordinate address `NAME.coord` (for `assemble.keep`).
pub(super) fn coordinate(scene: &Scene, field: &str, address: &str, lookup: &Lookup) -> Result<usize, String> {
    let o = scene
        .output(&generic(field, address, lookup)?)
        .map_err(|_| format!("`{}` is no coordinate; expected NAME.x|y|z|angle|qw|qx|qy|qz", short(address)))?;
    match o.quantity {
        Quantity::Coord { body, index } => Ok(scene.system.q_offsets()[body] + index),
        _ => Err(format!("`{}` is no coordinate; expected NAME.x|y|z|angle|qw|qx|qy|qz", short(address))),
    }
}
