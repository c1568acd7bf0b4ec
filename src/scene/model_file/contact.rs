//! `contact:` of a model file: collision shapes on rigid-3D bodies, static planes, the material
//! and the speculative margin ([`crate::contact::ContactSet`]). A model with contact runs under
//! `pgs`; every other formulation reports it not applicable.

use super::build::LARGEST;
use super::{Floats, RawContact};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::BodyKind;
use crate::system::System;

/// The contact set `c` describes, with bodies resolved by `lookup`; errors name the field.
pub(super) fn build(
    c: &RawContact,
    system: &System,
    lookup: &dyn Fn(&str, &str) -> Result<usize, String>,
    length_scale: f64,
) -> Result<ContactSet, String> {
    let size = |field: &str, x: f64| -> Result<f64, String> {
        // A shape is a part of the mechanism: positive and at most 1e6 length scales.
        let most = 1e6 * length_scale;
        if x > 0.0 && x <= most {
            Ok(x)
        } else {
            Err(format!("field `{field}` = {}; expected a positive size up to {most:e} m", crate::params::fmt_num(x)))
        }
    };
    let mut shapes = Vec::new();
    for (i, s) in c.shapes.iter().enumerate() {
        let s = &s.value;
        let field = |f: &str| format!("contact.shapes[{i}].{f}");
        let body = lookup(&field("body"), &s.body)?;
        let kind = system.bodies()[body].kind;
        if kind != BodyKind::Rigid3 {
            return Err(format!(
                "field `{}`: body `{}` is {}; contact shapes sit on rigid3 bodies",
                field("body"),
                crate::params::short(&s.body),
                kind.label()
            ));
        }
        let shape = match (s.sphere, &s.r#box) {
            (Some(r), None) => Shape::Sphere { radius: size(&field("sphere"), r)? },
            (None, Some(Floats(h))) if h.len() == 3 => Shape::Cuboid {
                half: [size(&field("box"), h[0])?, size(&field("box"), h[1])?, size(&field("box"), h[2])?],
            },
            (None, Some(Floats(h))) => {
                return Err(format!("field `{}` has {} numbers; expected 3 half extents [m]", field("box"), h.len()));
            }
            _ => {
                return Err(format!(
                    "contact.shapes[{i}] needs exactly one of `sphere` (radius [m]) and `box` (half extents [m])"
                ));
            }
        };
        shapes.push((body, shape));
    }
    let planes = planes(c, length_scale)?;
    let m = c.material();
    let in_range = |field: &str, x: f64, lo: f64, hi: f64| -> Result<f64, String> {
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            let f = crate::params::fmt_num;
            Err(format!("field `contact.{field}` = {}; expected a number in [{}, {}]", f(x), f(lo), f(hi)))
        }
    };
    let material = Material {
        friction: in_range("friction", m.friction, 0.0, 1e6)?,
        restitution: in_range("restitution", m.restitution, 0.0, 1.0)?,
        restitution_threshold: in_range("restitution_threshold", m.restitution_threshold, 0.0, LARGEST)?,
    };
    let margin = in_range("margin", c.margin, 0.0, length_scale)?;
    Ok(ContactSet { shapes, planes, material, margin })
}

/// The static planes of `c`, normals normalised, offsets within 10⁶ length scales \[m\].
fn planes(c: &RawContact, length_scale: f64) -> Result<Vec<Plane>, String> {
    let mut planes = Vec::new();
    for (i, p) in c.planes.iter().enumerate() {
        let n = &p.value.normal.0;
        let norm = n.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n.len() != 3 || !(norm > 0.0 && norm <= LARGEST) {
            return Err(format!(
                "field `contact.planes[{i}].normal` must be 3 finite numbers, not all 0 (the plane's outward normal; it is normalised)"
            ));
        }
        let offset = p.value.offset;
        if !(offset.abs() <= 1e6 * length_scale) {
            return Err(format!(
                "field `contact.planes[{i}].offset` = {}; expected a finite offset within {:e} m",
                crate::params::fmt_num(offset),
                1e6 * length_scale
            ));
        }
        planes.push(Plane { normal: [n[0] / norm, n[1] / norm, n[2] / norm], offset });
    }
    Ok(planes)
}
