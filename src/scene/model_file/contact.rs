//! `contact:` of a model file: collision shapes on rigid-3D bodies (or all on rigid-2D bodies:
//! contact in the plane), static planes (lines in the plane), the material and the speculative
//! margin ([`crate::contact::ContactSet`]). Every particle of a model with contact collides as a
//! point. A model with contact runs under the contact steppers (`pgs`, `soft_step`, `xpbd`);
//! every other formulation reports it not applicable.

use super::build::LARGEST;
use super::{Floats, RawContact};
use crate::contact::{ContactSet, Material, Plane, Shape};
use crate::model::BodyKind;
use crate::system::System;

/// The contact set `c` describes on `system` (its bodies named by `names`), with bodies resolved
/// by `lookup`; errors name the field.
pub(super) fn build(
    c: &RawContact,
    (system, names): (&System, &[String]),
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
    let mut planar = None;
    for (i, s) in c.shapes.iter().enumerate() {
        let s = &s.value;
        let field = |f: &str| format!("contact.shapes[{i}].{f}");
        let body = lookup(&field("body"), &s.body)?;
        let kind = system.bodies()[body].kind;
        // The first shape's body decides: all in space or all in the plane.
        let first = *planar.get_or_insert(kind == BodyKind::Rigid2);
        let expected = if first { BodyKind::Rigid2 } else { BodyKind::Rigid3 };
        if kind != expected {
            let others =
                if i == 0 { String::new() } else { format!(" (like the shapes before it: {})", expected.label()) };
            return Err(format!(
                "field `{}`: body `{}` is {}; contact shapes sit on rigid3 bodies, or all on rigid2 bodies{others} (a particle takes no shape: it collides as a point)",
                field("body"),
                crate::params::short(&s.body),
                kind.label()
            ));
        }
        let shape = if first { shape2(s, i, length_scale, &size)? } else { shape(s, i, length_scale, &size)? };
        shapes.push((body, shape));
    }
    points((system, names), &mut planar, &mut shapes)?;
    let planes = planes(c, length_scale, planar.unwrap_or(false))?;
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

/// Every particle of the model as a point ([`Shape::Point`], [`Shape::Point2`]), after the shapes:
/// particles collide with the planes and the shapes of the other bodies, in the plane of the
/// shapes (or in the dimension of the first particle when there are no shapes); a particle of the
/// other dimension is refused, naming it.
fn points(
    (system, names): (&System, &[String]),
    planar: &mut Option<bool>,
    shapes: &mut Vec<(usize, Shape)>,
) -> Result<(), String> {
    for (b, body) in system.bodies().iter().enumerate() {
        let in_plane = match body.kind {
            BodyKind::Particle2 => true,
            BodyKind::Particle3 => false,
            _ => continue,
        };
        let first = *planar.get_or_insert(in_plane);
        if first != in_plane {
            let (set, expected) = if first { ("lie in the plane", "particle2") } else { ("are in space", "particle3") };
            return Err(format!(
                "body `{}` is {}: with `contact:`, every particle collides as a point, and this model's contact shapes and particles {set}; expected kind {expected}",
                crate::params::short(&names[b]),
                body.kind.label(),
            ));
        }
        shapes.push((b, if in_plane { Shape::Point2 } else { Shape::Point }));
    }
    Ok(())
}

/// The most points a `hull` may list (its hull is computed when the model is read).
const MAX_HULL_POINTS: usize = 10_000;

/// The shape of entry `i` of `contact.shapes`; errors name the field.
fn shape(
    s: &super::RawShape,
    i: usize,
    length_scale: f64,
    size: &dyn Fn(&str, f64) -> Result<f64, String>,
) -> Result<Shape, String> {
    let field = |f: &str| format!("contact.shapes[{i}].{f}");
    let given = [s.sphere.is_some(), s.r#box.is_some(), s.capsule.is_some(), s.cylinder.is_some(), s.hull.is_some()];
    if given.iter().filter(|g| **g).count() != 1 || s.circle.is_some() || s.polygon.is_some() {
        return Err(format!(
            "contact.shapes[{i}] (on a rigid3 body) needs exactly one of `sphere` (radius [m]), `box` (half extents [m]), `capsule` and `cylinder` ({{radius, half_height}} [m], on the body's z axis) and `hull` (points [m])"
        ));
    }
    let sized = |f: &str, x: f64| size(&field(f), x);
    if let Some(r) = s.sphere {
        return Ok(Shape::Sphere { radius: sized("sphere", r)? });
    }
    if let Some(Floats(h)) = &s.r#box {
        if h.len() != 3 {
            return Err(format!("field `{}` has {} numbers; expected 3 half extents [m]", field("box"), h.len()));
        }
        return Ok(Shape::Cuboid { half: [sized("box", h[0])?, sized("box", h[1])?, sized("box", h[2])?] });
    }
    if let Some(c) = &s.capsule {
        return Ok(Shape::Capsule {
            half_height: sized("capsule.half_height", c.half_height)?,
            radius: sized("capsule.radius", c.radius)?,
        });
    }
    if let Some(c) = &s.cylinder {
        return Ok(Shape::Cylinder {
            half_height: sized("cylinder.half_height", c.half_height)?,
            radius: sized("cylinder.radius", c.radius)?,
        });
    }
    let hull = s.hull.as_deref().unwrap_or_default();
    let points = body_points::<3>(hull, &field("hull"), length_scale)?;
    let shape = Shape::Convex { points };
    if !shape.is_solid() {
        return Err(format!(
            "field `{}`: {} points that span no volume; expected at least 4 points not in one plane",
            field("hull"),
            hull.len()
        ));
    }
    Ok(shape)
}

/// The points of a `hull` (D = 3) or `polygon` (D = 2) named `field`: at most
/// [`MAX_HULL_POINTS`], each D finite numbers within 10⁶ length scales of the body's centre, checked
/// before any hull is computed.
fn body_points<const D: usize>(list: &[Floats], field: &str, length_scale: f64) -> Result<Vec<[f64; D]>, String> {
    if list.len() > MAX_HULL_POINTS {
        return Err(format!(
            "field `{field}` has {} points; expected at most {MAX_HULL_POINTS} (a convex hull is computed from them)",
            list.len()
        ));
    }
    let reach = 1e6 * length_scale;
    let mut points = Vec::with_capacity(list.len());
    for (k, Floats(p)) in list.iter().enumerate() {
        if p.len() != D || !p.iter().all(|x| x.abs() <= reach) {
            return Err(format!(
                "field `{field}[{k}]` must be {D} finite numbers within {reach:e} m of the body's centre (a point in the body frame [m])"
            ));
        }
        let mut x = [0.0; D];
        x.copy_from_slice(p);
        points.push(x);
    }
    Ok(points)
}

/// The shape of entry `i` of `contact.shapes` on a rigid2 body; errors name the field.
fn shape2(
    s: &super::RawShape,
    i: usize,
    length_scale: f64,
    size: &dyn Fn(&str, f64) -> Result<f64, String>,
) -> Result<Shape, String> {
    let field = |f: &str| format!("contact.shapes[{i}].{f}");
    let given = [s.circle.is_some(), s.r#box.is_some(), s.capsule.is_some(), s.polygon.is_some()];
    if given.iter().filter(|g| **g).count() != 1 || s.sphere.is_some() || s.cylinder.is_some() || s.hull.is_some() {
        return Err(format!(
            "contact.shapes[{i}] (on a rigid2 body) needs exactly one of `circle` (radius [m]), `box` (2 half extents [m]), `capsule` ({{radius, half_height}} [m], on the body's y axis) and `polygon` (points [m])"
        ));
    }
    let sized = |f: &str, x: f64| size(&field(f), x);
    if let Some(r) = s.circle {
        return Ok(Shape::Circle { radius: sized("circle", r)? });
    }
    if let Some(Floats(h)) = &s.r#box {
        if h.len() != 2 {
            return Err(format!(
                "field `{}` has {} numbers; expected 2 half extents [m] on a rigid2 body",
                field("box"),
                h.len()
            ));
        }
        return Ok(Shape::Rectangle { half: [sized("box", h[0])?, sized("box", h[1])?] });
    }
    if let Some(c) = &s.capsule {
        return Ok(Shape::Capsule2 {
            half_height: sized("capsule.half_height", c.half_height)?,
            radius: sized("capsule.radius", c.radius)?,
        });
    }
    let polygon = s.polygon.as_deref().unwrap_or_default();
    let points = body_points::<2>(polygon, &field("polygon"), length_scale)?;
    let shape = Shape::Polygon { points };
    if !shape.is_solid() {
        return Err(format!(
            "field `{}`: {} points that span no area; expected at least 3 points not on one line",
            field("polygon"),
            polygon.len()
        ));
    }
    Ok(shape)
}

/// The static planes of `c` (lines where the shapes are `planar`), normals normalised, offsets
/// within 10⁶ length scales \[m\].
fn planes(c: &RawContact, length_scale: f64, planar: bool) -> Result<Vec<Plane>, String> {
    let mut planes = Vec::new();
    let dim = if planar { 2 } else { 3 };
    for (i, p) in c.planes.iter().enumerate() {
        let n = &p.value.normal.0;
        let norm = n.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n.len() != dim || !(norm > 0.0 && norm <= LARGEST) {
            let what = if planar { " (the shapes lie in the plane: the line's normal)" } else { "" };
            return Err(format!(
                "field `contact.planes[{i}].normal` must be {dim} finite numbers, not all 0{what} (the outward normal; it is normalised)"
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
        let z = if planar { 0.0 } else { n[2] / norm };
        planes.push(Plane { normal: [n[0] / norm, n[1] / norm, z], offset });
    }
    Ok(planes)
}
