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

/// An output value: addresses joined by `+` and `-` (outside parentheses), all of one unit.
pub(super) fn output(scene: &Scene, value: &str, lookup: &Lookup) -> Result<(Quantity, &'static str), String> {
    // Split at + and - outside parentheses (a point's coordinates may be negative).
    let mut pieces: Vec<(f64, &str)> = Vec::new();
    let (mut depth, mut start, mut sign) = (0i32, 0usize, 1.0);
    for (i, ch) in value.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            '+' | '-' if depth == 0 => {
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
    for (sign, term) in pieces {
        if term.trim().is_empty() {
            return Err(format!("`{}` has an empty term; expected body addresses joined by + or -", short(value)));
        }
        let o = scene.output(&generic("value", term, lookup)?).map_err(|_| {
            format!(
                "`{}` is no body address; expected NAME.x|y|z|angle|qw|qx|qy|qz, NAME.vx|vy|vz|omega|wx|wy|wz or NAME.point(px, py[, pz]).x|y|z|vx|vy|vz",
                short(term.trim())
            )
        })?;
        terms.push((sign, o));
    }
    let unit = terms[0].1.unit;
    if let Some((_, o)) = terms.iter().find(|(_, o)| o.unit != unit) {
        return Err(format!("`{}` adds {} to {unit}; every term needs the same unit", short(value), o.unit));
    }
    if let [(s, o)] = terms.as_slice()
        && *s == 1.0
    {
        return Ok((o.quantity.clone(), unit));
    }
    Ok((Quantity::Sum { terms: terms.into_iter().map(|(s, o)| (s, o.quantity)).collect() }, unit))
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
